/* SPDX-License-Identifier: MIT */
/*
 * render.c - layout and drawing of a model (view.h), through a canvas.
 *
 * Layout: async threads in creation order, each in the first free row at
 * or below its creator's, so children sit near their parents (greedy
 * first fit; a row is free once the thread placed in it has ended).  So
 * the threads of one row never overlap in time: each row keeps its
 * threads (and their runs) in time order, which is the index every frame
 * uses to find what is visible with a binary search.
 *
 * Vertical focus + context: when the rows do not all fit, a band of full
 * rows around the focus row is drawn, and the rows above and below it are
 * squeezed into the rest of the height (see view.h).  Squeezed rows are
 * drawn as thin lines: no runs, labels, spans or notes.
 *
 * Drawing, back to front (mirage-trace-viewer's rules and colours):
 * background; idle periods and pauses as bands; the time grid; search,
 * chain and selection highlights; thread lines (dark grey), with a
 * vertical line from the creator; a grey mark where a thread still
 * pending at the end was last seen; white where running; spans; failed
 * threads and should-resolve threads that never resolved in red (the
 * latter to the right edge, with a message); arrows by kind (green
 * resolve, blue read, red read of a failure, yellow wait not followed by
 * a read, orange signal, grey cancel), fading with their length, becomes
 * as vertical lines; labels where they fit (the id otherwise), kinds in
 * grey; notes; counters as step plots in a band at the bottom.
 *
 * Level of detail: every pass keeps, per pixel row, which pixel columns it
 * has drawn (a "next free column" union-find): a thread, run or band that
 * lands only on drawn columns is skipped, and the binary search jumps to
 * the first one that reaches past them.  So a frame costs on the order of
 * one primitive per pixel column and pixel row, whatever the trace.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"

#define ROW_H 26.0
#define TOP 18.0
#define LEFT 8.0
#define COUNTERS_H 70.0
#define GRID_H 16.0
#define FONT 11.0
#define FOCUS_SHARE 0.7 /* of the height, for full rows, when all do not fit */
#define FULL 12.0       /* rows at least this tall are drawn in full */
#define ARROW_FADE 6000.0 /* px: arrows this long are invisible */
#define MAX_MARKS 8192    /* pending-at-end marks per frame */

/* Threads grouped by row, in time order within a row. */
struct tset {
	uint32_t *ix;
	uint32_t *off; /* nrows + 1 */
	uint32_t n;
};

/* Intervals by start, with the running maximum of their ends. */
struct ivindex {
	uint32_t *ord;
	int64_t *pmax;
	uint32_t n;
};

struct weft_view {
	const struct weft_model *m;
	double w, h;
	int64_t t0, t1;     /* visible range */
	int64_t tmin, tmax; /* the trace */
	int focus;          /* row at the centre of the full band */
	double drag_rows;   /* vertical drag not yet a whole row */

	uint32_t nthreads;  /* threads known to the layout */
	int *row;           /* per thread, -1: not laid out */
	int64_t *end;       /* per thread: end as drawn (never: INT64_MAX) */
	int nrows;
	struct tset all, bad, hl, chain;
	uint32_t *rruns, *rroff; /* runs by row, in time order */
	uint32_t *notes, nnotes; /* indexes of notes in the labels */
	struct ivindex iv[3];    /* idle, pause, spans */
	uint32_t *ph_ix, *ph_off; /* loop phases by stream, in time order */
	uint32_t ph_nst;

	uint8_t *hlm;    /* search matches */
	uint8_t *chm;    /* the causal chain */
	char *query;     /* the search, re-applied to new threads */
	uint32_t selected, chained, nchain;
	int only_chain;
	int counters;
	uint8_t *ctr_off; /* per counter: hidden */
	uint32_t nctr_off;

	/* geometry of this frame */
	double bottom;     /* of the rows */
	int fa, fk;        /* first full row, number of full rows */
	double hup, hu, hd; /* height above the band, row heights above/below */

	/* per-frame scratch: covered pixel columns per pixel row */
	int *cover;
	uint32_t *stamp;
	int covw, covh;
	double cs, rs; /* pixels per cell across and down (>= 1: a huge
			  surface is covered in cells of several pixels) */
	uint32_t pass;
	uint16_t *seen;
	float *bcov; /* per cell across: the share a band covers */
	double (*marks)[2];
	/* the frame's arrows, gathered then drawn by colour */
	struct adraw *ad, *ad2;
	size_t cad;
};

/* ------------------------------------------------------------- helpers */

static int is_never(const struct weft_thread *t)
{
	return t->end == WEFT_END_PENDING &&
	       (t->flags & WEFT_THREAD_SHOULD_RESOLVE);
}

static void tset_free(struct tset *s)
{
	free(s->ix);
	free(s->off);
	memset(s, 0, sizeof *s);
}

/* The laid-out threads with mark[t] (all of them if mark is NULL), or
 * those `pred` accepts, grouped by row.  Threads are in creation order,
 * which is time order within a row. */
static int tset_build(struct weft_view *v, struct tset *s, const uint8_t *mark,
		      int (*pred)(const struct weft_thread *))
{
	const struct weft_thread *th = weft_model_threads(v->m, &(uint32_t){0});
	tset_free(s);
	s->off = calloc((size_t)v->nrows + 2, sizeof *s->off);
	if (!s->off)
		return -1;
	uint32_t n = 0;
	for (uint32_t t = 0; t < v->nthreads; t++) {
		if (v->row[t] < 0 || (mark && !mark[t]) || (pred && !pred(&th[t])))
			continue;
		s->off[v->row[t] + 1]++;
		n++;
	}
	for (int r = 0; r < v->nrows; r++)
		s->off[r + 1] += s->off[r];
	s->ix = malloc(((size_t)n + 1) * sizeof *s->ix);
	uint32_t *fill = malloc(((size_t)v->nrows + 1) * sizeof *fill);
	if (!s->ix || !fill) {
		free(fill);
		return -1;
	}
	memcpy(fill, s->off, (size_t)v->nrows * sizeof *fill);
	for (uint32_t t = 0; t < v->nthreads; t++) {
		if (v->row[t] < 0 || (mark && !mark[t]) || (pred && !pred(&th[t])))
			continue;
		s->ix[fill[v->row[t]]++] = t;
	}
	free(fill);
	s->n = n;
	return 0;
}

static int pred_bad(const struct weft_thread *t)
{
	return t->end == WEFT_END_FAILED || is_never(t);
}

struct key {
	int64_t t0;
	uint32_t i;
};

static int cmp_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	return x->t0 < y->t0 ? -1 : x->t0 > y->t0 ? 1 : (x->i > y->i) - (x->i < y->i);
}

static int ivindex_build(struct ivindex *x, const struct weft_interval *iv,
			 uint32_t n)
{
	free(x->ord);
	free(x->pmax);
	x->n = 0;
	x->ord = malloc(((size_t)n + 1) * sizeof *x->ord);
	x->pmax = malloc(((size_t)n + 1) * sizeof *x->pmax);
	if (!x->ord || !x->pmax)
		return -1;
	int sorted = 1;
	for (uint32_t i = 0; i < n; i++) {
		x->ord[i] = i;
		if (i && iv[i].t0 < iv[i - 1].t0)
			sorted = 0;
	}
	if (!sorted) {
		struct key *k = malloc(((size_t)n + 1) * sizeof *k);
		if (!k)
			return -1;
		for (uint32_t i = 0; i < n; i++)
			k[i] = (struct key){iv[i].t0, i};
		qsort(k, n, sizeof *k, cmp_key);
		for (uint32_t i = 0; i < n; i++)
			x->ord[i] = k[i].i;
		free(k);
	}
	int64_t mx = INT64_MIN;
	for (uint32_t i = 0; i < n; i++) {
		if (iv[x->ord[i]].t1 > mx)
			mx = iv[x->ord[i]].t1;
		x->pmax[i] = mx;
	}
	x->n = n;
	return 0;
}

/* First i in [lo, n) of the index whose running maximum end is >= t. */
static uint32_t ivindex_from(const struct ivindex *x, uint32_t lo, int64_t t)
{
	uint32_t hi = x->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (x->pmax[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ------------------------------------------------------------- layout */

static void layout(struct weft_view *v)
{
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(v->m, &n);
	free(v->row);
	free(v->end);
	v->row = malloc(((size_t)n + 1) * sizeof *v->row);
	v->end = malloc(((size_t)n + 1) * sizeof *v->end);
	int64_t *busy = NULL;
	int cap = 0;
	v->nrows = 0;
	v->nthreads = 0;
	if (!v->row || !v->end)
		return;
	int filter = v->only_chain && v->nchain && v->chm;
	for (uint32_t i = 0; i < n; i++) {
		v->row[i] = -1;
		v->end[i] = is_never(&th[i]) ? INT64_MAX : th[i].t_end;
		if ((th[i].flags & WEFT_THREAD_ROOT) || (filter && !v->chm[i]))
			continue;
		int want = 0;
		uint32_t p = th[i].parent;
		if (p < i && v->row[p] >= 0)
			want = v->row[p] + 1;
		int r = want;
		while (r < v->nrows && busy[r] >= th[i].t_create)
			r++;
		if (r >= cap) {
			int nc = cap ? cap * 2 : 64;
			while (nc <= r)
				nc *= 2;
			int64_t *nb = realloc(busy, (size_t)nc * sizeof *nb);
			if (!nb)
				break;
			busy = nb;
			cap = nc;
		}
		while (v->nrows <= r)
			busy[v->nrows++] = INT64_MIN;
		busy[r] = v->end[i];
		v->row[i] = r;
	}
	free(busy);
	v->nthreads = n;
	if (v->focus >= v->nrows)
		v->focus = v->nrows ? v->nrows - 1 : 0;
}

/* The loop phases of each OS thread, in time order: the model gives
 * them so (disjoint, each appended as it ends), so a stable counting sort
 * by OS thread is all it takes. */
static int index_phases(struct weft_view *v)
{
	uint32_t n;
	const struct weft_interval *iv =
		weft_model_intervals(v->m, WEFT_EV_PHASE, &n);
	free(v->ph_ix);
	free(v->ph_off);
	v->ph_ix = NULL;
	v->ph_nst = 0;
	uint32_t nst = 0;
	for (uint32_t i = 0; i < n; i++)
		if (iv[i].stream >= nst)
			nst = iv[i].stream + 1;
	v->ph_off = calloc((size_t)nst + 2, sizeof *v->ph_off);
	v->ph_ix = malloc(((size_t)n + 1) * sizeof *v->ph_ix);
	if (!v->ph_off || !v->ph_ix)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		v->ph_off[iv[i].stream + 2]++;
	for (uint32_t k = 0; k < nst; k++)
		v->ph_off[k + 2] += v->ph_off[k + 1];
	for (uint32_t i = 0; i < n; i++)
		v->ph_ix[v->ph_off[iv[i].stream + 1]++] = i;
	v->ph_nst = nst;
	return 0;
}

/* Everything derived from the layout: the per-row indexes. */
static int index_rows(struct weft_view *v)
{
	uint32_t nrun, nl, niv;
	const struct weft_run *run = weft_model_runs(v->m, &nrun);
	(void)run;
	if (tset_build(v, &v->all, NULL, NULL) ||
	    tset_build(v, &v->bad, NULL, pred_bad) ||
	    tset_build(v, &v->hl, v->hlm, NULL) ||
	    tset_build(v, &v->chain, v->chm, NULL))
		return -1;
	/* runs by row: the runs of each thread of the row, in order */
	free(v->rruns);
	free(v->rroff);
	v->rruns = malloc(((size_t)nrun + 1) * sizeof *v->rruns);
	v->rroff = calloc((size_t)v->nrows + 2, sizeof *v->rroff);
	if (!v->rruns || !v->rroff)
		return -1;
	uint32_t k = 0;
	for (int r = 0; r < v->nrows; r++) {
		v->rroff[r] = k;
		for (uint32_t i = v->all.off[r]; i < v->all.off[r + 1]; i++) {
			uint32_t nr;
			const uint32_t *ri =
				weft_model_thread_runs(v->m, v->all.ix[i], &nr);
			for (uint32_t j = 0; j < nr && k < nrun; j++)
				v->rruns[k++] = ri[j];
		}
	}
	v->rroff[v->nrows] = k;
	/* notes */
	const struct weft_label *lb = weft_model_labels(v->m, &nl);
	if (index_phases(v))
		return -1;
	free(v->notes);
	v->nnotes = 0;
	v->notes = malloc(((size_t)nl + 1) * sizeof *v->notes);
	if (!v->notes)
		return -1;
	for (uint32_t i = 0; i < nl; i++)
		if (lb[i].kind == WEFT_EV_NOTE)
			v->notes[v->nnotes++] = i;
	static const int kinds[3] = {WEFT_EV_IDLE, WEFT_EV_PAUSE,
				     WEFT_EV_SPAN_BEGIN};
	for (int i = 0; i < 3; i++) {
		const struct weft_interval *iv =
			weft_model_intervals(v->m, kinds[i], &niv);
		if (ivindex_build(&v->iv[i], iv, niv))
			return -1;
	}
	return 0;
}

static int contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < n && hay[i] &&
		       tolower((unsigned char)hay[i]) ==
			       tolower((unsigned char)needle[i]))
			i++;
		if (i == n)
			return 1;
	}
	return !n;
}

/* Marks the matches of the search among threads [from, nthreads). */
static uint32_t match(struct weft_view *v, uint32_t from)
{
	uint32_t hits = 0;
	char title[256];
	for (uint32_t i = from; i < v->nthreads; i++) {
		v->hlm[i] = 0;
		if (!v->query || v->row[i] < 0)
			continue;
		weft_model_title(v->m, i, title, sizeof title);
		if (contains_ci(title, v->query)) {
			v->hlm[i] = 1;
			hits++;
		}
	}
	return hits;
}

/* Lays out again (after the model grew or the filter changed) and keeps
 * the marks of the threads already known. */
static void relayout(struct weft_view *v)
{
	uint32_t old = v->nthreads, n;
	weft_model_threads(v->m, &n);
	uint8_t *hl = realloc(v->hlm, (size_t)n + 1);
	uint8_t *ch = realloc(v->chm, (size_t)n + 1);
	if (hl)
		v->hlm = hl;
	if (ch)
		v->chm = ch;
	if (!hl || !ch)
		return;
	if (n > old) {
		memset(v->hlm + old, 0, n - old);
		memset(v->chm + old, 0, n - old);
	}
	layout(v);
	if (v->nthreads > old)
		match(v, old);
	else if (v->query)
		match(v, 0);
	index_rows(v);
}

struct weft_view *weft_view_new(const struct weft_model *m, double w, double h)
{
	struct weft_view *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->m = m;
	v->counters = 1;
	v->selected = WEFT_NONE;
	v->chained = WEFT_NONE;
	weft_view_resize(v, w, h);
	relayout(v);
	if (!v->row || !v->hlm || !v->chm || !v->all.off || !v->rroff ||
	    !v->notes) {
		weft_view_free(v);
		return NULL;
	}
	weft_view_fit(v);
	return v;
}

void weft_view_free(struct weft_view *v)
{
	if (!v)
		return;
	free(v->row);
	free(v->end);
	tset_free(&v->all);
	tset_free(&v->bad);
	tset_free(&v->hl);
	tset_free(&v->chain);
	free(v->rruns);
	free(v->rroff);
	free(v->notes);
	free(v->ph_ix);
	free(v->ph_off);
	for (int i = 0; i < 3; i++) {
		free(v->iv[i].ord);
		free(v->iv[i].pmax);
	}
	free(v->hlm);
	free(v->chm);
	free(v->query);
	free(v->ctr_off);
	free(v->cover);
	free(v->stamp);
	free(v->seen);
	free(v->bcov);
	free(v->marks);
	free(v->ad);
	free(v->ad2);
	free(v);
}

void weft_view_model_changed(struct weft_view *v)
{
	int64_t a = v->t0, b = v->t1;
	int fit = v->t0 <= v->tmin && v->t1 >= v->tmax;
	relayout(v);
	weft_model_range(v->m, &v->tmin, &v->tmax);
	if (fit) /* it was showing everything: follow the trace */
		weft_view_fit(v);
	else
		weft_view_set_range(v, a, b);
}

int weft_view_row(const struct weft_view *v, uint32_t t)
{
	return t < v->nthreads ? v->row[t] : -1;
}

int weft_view_rows(const struct weft_view *v)
{
	return v->nrows;
}

/* ------------------------------------------------------------- geometry */

void weft_view_resize(struct weft_view *v, double w, double h)
{
	v->w = w > 50 ? w : 50;
	v->h = h > 50 ? h : 50;
	if (v->w > 16384)
		v->w = 16384;
	if (v->h > 16384)
		v->h = 16384;
}

/* A time computed in floating point, as a time set_range() accepts. */
static int64_t clamp_time(double t)
{
	const double lim = 2.0 * (double)WEFT_MODEL_T_MAX;
	if (!(t > -lim)) /* and NaN */
		return -2 * WEFT_MODEL_T_MAX;
	if (t > lim)
		return 2 * WEFT_MODEL_T_MAX;
	return (int64_t)t;
}

void weft_view_set_range(struct weft_view *v, int64_t t0, int64_t t1)
{
	/* Within twice the model's range of times: any two still subtract
	 * without overflow, however far one pans or zooms out. */
	const int64_t lim = 2 * WEFT_MODEL_T_MAX;
	t0 = t0 < -lim ? -lim : t0 > lim - 1000 ? lim - 1000 : t0;
	t1 = t1 > lim ? lim : t1;
	if (t1 <= t0)
		t1 = t0 + 1000;
	v->t0 = t0;
	v->t1 = t1;
}

void weft_view_fit(struct weft_view *v)
{
	weft_model_range(v->m, &v->tmin, &v->tmax);
	int64_t span = v->tmax - v->tmin;
	int64_t pad = span / 50 + 1;
	weft_view_set_range(v, v->tmin - pad, v->tmax + pad);
}

void weft_view_range(const struct weft_view *v, int64_t *t0, int64_t *t1)
{
	*t0 = v->t0;
	*t1 = v->t1;
}

static double plot_w(const struct weft_view *v)
{
	return v->w - 2 * LEFT;
}

static double xof(const struct weft_view *v, int64_t t)
{
	double x = LEFT + (double)(t - v->t0) * plot_w(v) / (double)(v->t1 - v->t0);
	return x < -1e6 ? -1e6 : x > 1e6 ? 1e6 : x;
}

/* The time at pixel x. */
static int64_t tof(const struct weft_view *v, double x)
{
	return clamp_time((double)v->t0 +
			  (x - LEFT) / plot_w(v) * (double)(v->t1 - v->t0));
}

static int any_counter(const struct weft_view *v)
{
	uint32_t n;
	weft_model_counters(v->m, &n);
	if (!v->counters)
		return 0;
	for (uint32_t k = 0; k < n; k++)
		if (k >= v->nctr_off || !v->ctr_off[k])
			return 1;
	return 0;
}

/* The frame's vertical geometry: full band and squeezed rows. */
static void geometry(struct weft_view *v)
{
	v->bottom = v->h - GRID_H - (any_counter(v) ? COUNTERS_H : 0);
	double a = v->bottom - TOP;
	int n = v->nrows;
	if (a < ROW_H)
		a = ROW_H;
	if (n * ROW_H <= a) {
		v->fa = 0;
		v->fk = n;
		v->hup = v->hu = v->hd = 0;
		return;
	}
	int k = (int)(a * FOCUS_SHARE / ROW_H);
	k = k < 1 ? 1 : k > n ? n : k;
	int fa = v->focus - k / 2;
	fa = fa < 0 ? 0 : fa > n - k ? n - k : fa;
	int above = fa, below = n - fa - k;
	double ctx = a - k * ROW_H;
	v->fa = fa;
	v->fk = k;
	v->hup = above + below ? ctx * above / (above + below) : 0;
	v->hu = above ? v->hup / above : 0;
	v->hd = below ? (ctx - v->hup) / below : 0;
}

static double yof(const struct weft_view *v, int row)
{
	if (row < v->fa)
		return TOP + v->hu * (row + 0.5);
	if (row < v->fa + v->fk)
		return TOP + v->hup + ROW_H * (row - v->fa + 0.5);
	return TOP + v->hup + ROW_H * v->fk + v->hd * (row - v->fa - v->fk + 0.5);
}

static double row_h(const struct weft_view *v, int row)
{
	return row < v->fa ? v->hu : row < v->fa + v->fk ? ROW_H : v->hd;
}

/* The row drawn at pixel y (clamped to the rows). */
static int row_at(const struct weft_view *v, double y)
{
	double d = y - TOP;
	int r;
	if (d < v->hup)
		r = v->hu > 0 ? (int)(d / v->hu) : 0;
	else if (d < v->hup + ROW_H * v->fk)
		r = v->fa + (int)((d - v->hup) / ROW_H);
	else
		r = v->fa + v->fk +
		    (v->hd > 0 ? (int)((d - v->hup - ROW_H * v->fk) / v->hd) : 0);
	return r < 0 ? 0 : r >= v->nrows ? v->nrows - 1 : r;
}

void weft_view_set_focus(struct weft_view *v, int row)
{
	v->focus = row < 0 ? 0 : row >= v->nrows ? v->nrows - 1 : row;
	if (v->focus < 0)
		v->focus = 0;
}

int weft_view_focus(const struct weft_view *v)
{
	return v->focus;
}

double weft_view_thread_y(struct weft_view *v, uint32_t t, double *rh)
{
	int r = weft_view_row(v, t);
	if (r < 0)
		return -1;
	geometry(v);
	if (rh)
		*rh = row_h(v, r);
	return yof(v, r);
}

void weft_view_zoom(struct weft_view *v, double factor, double x)
{
	if (factor <= 0)
		return;
	double span = (double)(v->t1 - v->t0);
	double at = (double)v->t0 + (x - LEFT) / plot_w(v) * span;
	double ns = span / factor;
	if (ns < 100)
		ns = 100; /* 100 ns across the window at most */
	if (ns > 4e18)
		ns = 4e18;
	double left = at - (x - LEFT) / plot_w(v) * ns;
	weft_view_set_range(v, clamp_time(left), clamp_time(left + ns));
}

void weft_view_pan(struct weft_view *v, double dx, double dy)
{
	double d = dx * (double)(v->t1 - v->t0) / plot_w(v);
	weft_view_set_range(v, clamp_time((double)v->t0 - d),
			    clamp_time((double)v->t1 - d));
	if (dy) {
		/* dragging down brings the rows above into focus */
		v->drag_rows -= dy / ROW_H;
		int rows = (int)v->drag_rows;
		v->drag_rows -= rows;
		weft_view_set_focus(v, v->focus + rows);
	}
}

/* ------------------------------------------------------------- interaction */

uint32_t weft_view_search(struct weft_view *v, const char *text)
{
	free(v->query);
	v->query = text && *text ? strdup(text) : NULL;
	uint32_t hits = match(v, 0);
	tset_build(v, &v->hl, v->hlm, NULL);
	return hits;
}

/* First i in [lo, n) of a row's threads whose end is >= t. */
static uint32_t first_end(const struct weft_view *v, const uint32_t *ix,
			  uint32_t lo, uint32_t n, int64_t t)
{
	while (lo < n) {
		uint32_t mid = lo + (n - lo) / 2;
		if (v->end[ix[mid]] < t)
			lo = mid + 1;
		else
			n = mid;
	}
	return lo;
}

uint32_t weft_view_pick(struct weft_view *v, double x, double y)
{
	const struct weft_thread *th = weft_model_threads(v->m, &(uint32_t){0});
	if (!v->nrows || y < TOP - 8)
		return WEFT_NONE;
	geometry(v);
	if (y > v->bottom + 8)
		return WEFT_NONE;
	uint32_t best = WEFT_NONE;
	double bestd = 8;
	int r0 = row_at(v, y - 8), r1 = row_at(v, y + 8);
	int64_t ta = tof(v, x - 8), tb = tof(v, x + 8);
	for (int r = r0; r <= r1; r++) {
		double dy = fabs(yof(v, r) - y);
		if (dy > bestd)
			continue;
		const uint32_t *ix = v->all.ix + v->all.off[r];
		uint32_t n = v->all.off[r + 1] - v->all.off[r];
		for (uint32_t i = first_end(v, ix, 0, n, ta);
		     i < n && th[ix[i]].t_create <= tb; i++) {
			double x0 = xof(v, th[ix[i]].t_create);
			double x1 = v->end[ix[i]] == INT64_MAX
					    ? xof(v, v->tmax)
					    : xof(v, v->end[ix[i]]);
			double dx = x < x0 ? x0 - x : x > x1 ? x - x1 : 0;
			double d = dx > dy ? dx : dy;
			if (d < bestd) {
				bestd = d;
				best = ix[i];
			}
		}
	}
	return best;
}

void weft_view_select(struct weft_view *v, uint32_t t)
{
	v->selected = t < v->nthreads ? t : WEFT_NONE;
}

uint32_t weft_view_selected(const struct weft_view *v)
{
	return v->selected;
}

/* Which way causality flows along an arrow: from `src` to `dst`.  A wait
 * (try_read) makes the waiter depend on what it waits on. */
static void arrow_ends(const struct weft_arrow *a, uint32_t *src,
		       uint32_t *dst)
{
	if (a->kind == WEFT_ARROW_TRY_READ) {
		*src = a->to;
		*dst = a->from;
	} else {
		*src = a->from;
		*dst = a->to;
	}
}

/* Grows the chain from t, backwards (dir < 0) or forwards, with a
 * worklist: lim[n] is the latest (backwards) or earliest (forwards) time
 * at which what happened to n still matters to t.  Backwards, an arrow
 * into n at or before lim[n] brings its source in, with the arrow's time
 * as its limit, except for a wait: a thread that waits on another
 * depends on it until the wait's own limit.  Forwards, an arrow out of n
 * at or after lim[n] brings its destination in from the arrow's time. */
static void chain_walk(struct weft_view *v, uint32_t t, int dir, int64_t *lim,
		       uint32_t *stack, uint8_t *queued)
{
	uint32_t n, na, top = 0;
	const struct weft_thread *th = weft_model_threads(v->m, &n);
	const struct weft_arrow *a = weft_model_arrows(v->m, &na);
	for (uint32_t i = 0; i < v->nthreads; i++)
		lim[i] = dir < 0 ? INT64_MIN : INT64_MAX;
	lim[t] = dir < 0 ? (is_never(&th[t]) ? INT64_MAX : th[t].t_end)
			 : th[t].t_create;
	memset(queued, 0, v->nthreads);
	stack[top++] = t;
	queued[t] = 1;
	while (top) {
		uint32_t x = stack[--top], k;
		queued[x] = 0;
		const uint32_t *ai = weft_model_thread_arrows(v->m, x, &k);
		for (uint32_t j = 0; j < k; j++) {
			const struct weft_arrow *e = &a[ai[j]];
			uint32_t src, dst, y;
			arrow_ends(e, &src, &dst);
			if (src >= v->nthreads || dst >= v->nthreads)
				continue;
			int64_t l;
			if (dir < 0) {
				if (dst != x || e->t > lim[x])
					continue;
				y = src;
				l = e->kind == WEFT_ARROW_TRY_READ ? lim[x] : e->t;
				if (l <= lim[y])
					continue;
			} else {
				if (src != x || e->t < lim[x])
					continue;
				y = dst;
				l = e->t;
				if (l >= lim[y])
					continue;
			}
			if (th[y].flags & WEFT_THREAD_ROOT)
				continue; /* OS threads carry no causality */
			int fresh = lim[y] == (dir < 0 ? INT64_MIN : INT64_MAX);
			lim[y] = l;
			if (fresh)
				v->chm[y] = 1;
			if (!queued[y]) { /* at most once on the stack */
				queued[y] = 1;
				stack[top++] = y;
			}
		}
	}
}

uint32_t weft_view_chain(struct weft_view *v, uint32_t t)
{
	uint32_t n;
	weft_model_threads(v->m, &n);
	if (n > v->nthreads)
		relayout(v);
	memset(v->chm, 0, v->nthreads);
	v->chained = WEFT_NONE;
	v->nchain = 0;
	if (t < v->nthreads) {
		v->chained = t;
		v->chm[t] = 1;
		int64_t *lim = malloc(((size_t)v->nthreads + 1) * sizeof *lim);
		uint32_t *stack = malloc(((size_t)v->nthreads + 1) * sizeof *stack);
		uint8_t *queued = malloc((size_t)v->nthreads + 1);
		if (lim && stack && queued) {
			chain_walk(v, t, -1, lim, stack, queued);
			chain_walk(v, t, 1, lim, stack, queued);
		}
		free(lim);
		free(stack);
		free(queued);
		for (uint32_t i = 0; i < v->nthreads; i++)
			v->nchain += v->chm[i];
	}
	if (v->only_chain)
		relayout(v);
	else
		tset_build(v, &v->chain, v->chm, NULL);
	return v->nchain;
}

uint32_t weft_view_chain_size(const struct weft_view *v)
{
	return v->nchain;
}

int weft_view_in_chain(const struct weft_view *v, uint32_t t)
{
	return t < v->nthreads && v->chm[t];
}

void weft_view_only_chain(struct weft_view *v, int on)
{
	if (!!on == v->only_chain)
		return;
	v->only_chain = !!on;
	if (on && !v->nchain && v->selected < v->nthreads)
		weft_view_chain(v, v->selected); /* lays out again */
	else
		relayout(v);
	v->focus = 0;
	if (v->selected < v->nthreads && v->row[v->selected] >= 0)
		v->focus = v->row[v->selected];
}

void weft_view_show_counters(struct weft_view *v, int on)
{
	v->counters = on;
}

void weft_view_show_counter(struct weft_view *v, uint32_t k, int on)
{
	if (k >= v->nctr_off) {
		uint32_t n = k + 16;
		uint8_t *p = realloc(v->ctr_off, n);
		if (!p)
			return;
		memset(p + v->nctr_off, 0, n - v->nctr_off);
		v->ctr_off = p;
		v->nctr_off = n;
	}
	v->ctr_off[k] = !on;
}

int weft_view_counter_shown(const struct weft_view *v, uint32_t k)
{
	return v->counters && (k >= v->nctr_off || !v->ctr_off[k]);
}

/* ------------------------------------------------------------- drawing */

struct pen {
	const struct weft_canvas *c;
	long prims;
	double rgba[4]; /* the canvas's colour, when `known` */
	int known;
};

/* Sets the colour, unless it is set already: a back end may draw what it
 * gathered at each colour change. */
static void color(struct pen *p, double r, double g, double b, double a)
{
	if (p->known && p->rgba[0] == r && p->rgba[1] == g && p->rgba[2] == b &&
	    p->rgba[3] == a)
		return;
	p->c->color(p->c->ctx, r, g, b, a);
	p->rgba[0] = r;
	p->rgba[1] = g;
	p->rgba[2] = b;
	p->rgba[3] = a;
	p->known = 1;
}

/* A clip and its end; the end may restore an earlier colour (cairo). */
static void clip(struct pen *p, double x, double y, double w, double h)
{
	p->c->clip(p->c->ctx, x, y, w, h);
}

static void unclip(struct pen *p)
{
	p->c->unclip(p->c->ctx);
	p->known = 0;
}

static void line(struct pen *p, double x0, double y0, double x1, double y1)
{
	p->c->line(p->c->ctx, x0, y0, x1, y1);
	p->prims++;
}

static void rect(struct pen *p, double x, double y, double w, double h)
{
	p->c->rect(p->c->ctx, x, y, w, h);
	p->prims++;
}

static void text(struct pen *p, double x, double y, const char *s)
{
	p->c->text(p->c->ctx, x, y, FONT, s);
	p->prims++;
}

static void triangle(struct pen *p, double x0, double y0, double x1,
		     double y1, double x2, double y2)
{
	p->c->triangle(p->c->ctx, x0, y0, x1, y1, x2, y2);
	p->prims++;
}

/* The covered columns of pixel row y in this pass ("next free column":
 * 0 free, d > 0 look at column + d), or NULL off the surface. */
static int *cov_row(struct weft_view *v, double y)
{
	int iy = (int)floor(y / v->rs);
	if (iy < 0 || iy >= v->covh)
		return NULL;
	int *r = v->cover + (size_t)iy * (size_t)v->covw;
	if (v->stamp[iy] != v->pass) {
		memset(r, 0, (size_t)v->covw * sizeof *r);
		v->stamp[iy] = v->pass;
	}
	return r;
}

static int col(const struct weft_view *v, double x)
{
	return x < 0 ? 0 : x > v->w ? (int)(v->w / v->cs) : (int)(x / v->cs);
}

static int cov_find(int *r, int c)
{
	int x = c;
	while (r[x])
		x += r[x];
	while (r[c] && c != x) { /* compress */
		int nx = c + r[c];
		r[c] = x - c;
		c = nx;
	}
	return x;
}

/* Marks columns [c0, c1] drawn; returns 1 if any of them was free. */
static int cov_take(int *r, int c0, int c1)
{
	if (!r)
		return 1;
	int c = cov_find(r, c0);
	if (c > c1)
		return 0;
	for (; c <= c1; c = cov_find(r, c + 1))
		r[c] = 1;
	return 1;
}

/* Is [c0, c1] all drawn?  If so, *next is the first free column. */
static int cov_full(int *r, int c0, int c1, int *next)
{
	if (!r)
		return 0;
	*next = cov_find(r, c0);
	return *next > c1;
}

static const char *dur_str(char *buf, size_t cap, double ns)
{
	if (ns < 1e3)
		snprintf(buf, cap, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, cap, "%.3g us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, cap, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, cap, "%.3g s", ns / 1e9);
	return buf;
}

static void draw_grid(struct weft_view *v, struct pen *p)
{
	double span = (double)(v->t1 - v->t0);
	double step = pow(10, floor(log10(span / 8)));
	if (span / step > 16)
		step *= 5;
	else if (span / step > 8)
		step *= 2;
	color(p, 0.7, 0.7, 0.7, 1);
	p->c->line_width(p->c->ctx, 1);
	double first = ceil((double)v->t0 / step) * step;
	for (double t = first; t < (double)v->t1; t += step) {
		double x = xof(v, (int64_t)t);
		line(p, x, TOP - 4, x, v->bottom);
	}
	char d[32], buf[64];
	snprintf(buf, sizeof buf, "each grid division: %s",
		 dur_str(d, sizeof d, step));
	color(p, 0.35, 0.35, 0.35, 1);
	text(p, LEFT, v->h - 4, buf);
	if (v->fk < v->nrows) {
		/* where the squeezed rows are: a rule on each side of the
		 * full band */
		color(p, 0.55, 0.55, 0.65, 1);
		if (v->fa > 0)
			line(p, 0, TOP + v->hup, 4, TOP + v->hup);
		if (v->fa + v->fk < v->nrows)
			line(p, 0, TOP + v->hup + ROW_H * v->fk, 4,
			     TOP + v->hup + ROW_H * v->fk);
		rect(p, 0, TOP + v->hup, 2, ROW_H * v->fk);
	}
}

/* Idle periods and pauses as bands, drawn per pixel column (per cell
 * across, on a huge picture): each column is shaded by the share of its
 * time the band covers, in BAND_STEPS steps, all the columns of one step
 * at once.  A frame draws a few aligned boxes per column at most, not an
 * antialiased sliver per interval, and a column half idle still looks
 * half idle. */
#define BAND_STEPS 16
#define BAND_LABELS 64

/* The shade of column c: 0 (none) to BAND_STEPS (covered). */
static int band_step(const struct weft_view *v, int c)
{
	int q = (int)lround(v->bcov[c] * BAND_STEPS);
	return q > BAND_STEPS ? BAND_STEPS : q;
}

static void draw_bands(struct weft_view *v, struct pen *p)
{
	int ncol = v->covw;
	double bot = round(v->bottom);
	for (int k = 0; k < 2; k++) {
		uint32_t n;
		const struct weft_interval *iv = weft_model_intervals(
			v->m, k ? WEFT_EV_PAUSE : WEFT_EV_IDLE, &n);
		const struct ivindex *x = &v->iv[k];
		double band[3] = {0.8, 0.8, 0.8};
		if (k) {
			band[0] = 0.7;
			band[1] = band[2] = 0.6;
		}
		memset(v->bcov, 0, (size_t)ncol * sizeof *v->bcov);
		struct {
			double x;
			uint32_t name;
		} lab[BAND_LABELS];
		int nlab = 0, any = 0;
		/* In order of start, each band from where the ones before
		 * ended (`last`): the pieces are disjoint, so a column's
		 * shares add up to at most 1.  A band that adds less than
		 * half a pixel is skipped, with all it hides. */
		double last = -1e9;
		uint32_t i = ivindex_from(x, 0, v->t0);
		while (i < x->n) {
			const struct weft_interval *b = &iv[x->ord[i]];
			if (b->t0 > v->t1)
				break;
			double x0 = xof(v, b->t0), x1 = xof(v, b->t1);
			if (x1 - last < 0.5) {
				i = ivindex_from(x, i + 1, tof(v, last + 0.5));
				continue;
			}
			i++;
			if (x1 - x0 > 60 && nlab < BAND_LABELS) {
				lab[nlab].x = x0 < 0 ? 0 : x0;
				lab[nlab++].name = b->name;
			}
			double a0 = x0 < last ? last : x0;
			if (a0 < 0)
				a0 = 0;
			double a1 = x1 > v->w ? v->w : x1;
			if (a1 - a0 < 0.5)
				a1 = a0 + 0.5; /* a thin band stays visible */
			last = x1;
			/* its share of each column it crosses */
			for (int c = (int)(a0 / v->cs); c < ncol; c++) {
				double c0 = c * v->cs, c1 = c0 + v->cs;
				double o = (a1 < c1 ? a1 : c1) -
					   (a0 > c0 ? a0 : c0);
				if (o <= 0)
					break;
				v->bcov[c] += (float)(o / v->cs);
				any = 1;
			}
		}
		/* each step's columns, runs of them as one box */
		for (int q = any ? BAND_STEPS : 0; q > 0; q--) {
			int drawn = 0;
			for (int c = 0; c < ncol; c++) {
				if (band_step(v, c) != q)
					continue;
				int e = c + 1;
				while (e < ncol && band_step(v, e) == q)
					e++;
				if (!drawn)
					color(p, band[0], band[1], band[2],
					      (double)q / BAND_STEPS);
				drawn = 1;
				rect(p, c * v->cs, TOP, (e - c) * v->cs,
				     bot - TOP);
				c = e - 1;
			}
		}
		color(p, 1, 1, 1, 1);
		for (int j = 0; j < nlab; j++) {
			char buf[300];
			snprintf(buf, sizeof buf, "%s: %s",
				 k ? "pause" : "idle",
				 weft_model_name(v->m, lab[j].name));
			text(p, lab[j].x + 3, TOP + 11, buf);
		}
	}
}

static void arrowhead(struct pen *p, double x0, double y0, double x1, double y1)
{
	double dx = x1 - x0, dy = y1 - y0, len = sqrt(dx * dx + dy * dy);
	if (len < 1)
		return;
	dx /= len;
	dy /= len;
	double hl = len < 10 ? len : 10, hw = 4;
	double bx = x1 - dx * hl, by = y1 - dy * hl;
	triangle(p, x1, y1, bx - dy * hw, by + dx * hw, bx + dy * hw,
		 by - dx * hw);
}

static const double arrow_rgb[WEFT_ARROW_KINDS][3] = {
	[WEFT_ARROW_CREATE] = {0.2, 0.2, 0.2},
	[WEFT_ARROW_READ] = {0, 0, 1},
	[WEFT_ARROW_READ_FAILED] = {1, 0, 0},
	[WEFT_ARROW_TRY_READ] = {0.8, 0.8, 0.4},
	[WEFT_ARROW_RESOLVE] = {0, 0.5, 0},
	[WEFT_ARROW_FAIL] = {1, 0, 0},
	[WEFT_ARROW_SIGNAL] = {1, 0.6, 0},
	[WEFT_ARROW_BECOME] = {0.2, 0.2, 0.2},
	[WEFT_ARROW_CANCEL] = {0.5, 0.5, 0.5},
};

enum pass_kind { P_HIGHLIGHT, P_LINE, P_BAD };

struct walk {
	struct weft_view *v;
	struct pen *p;
	const struct weft_thread *th;
	enum pass_kind kind;
	int full;     /* draw the rows in full (1) or the squeezed ones (0) */
	double right; /* x of the end of the trace */
	double pad;   /* highlights: margin */
	/* a line not drawn yet, that the next one may extend */
	double sx0, sx1, sy;
	int seg;
	double (*marks)[2];
	int nmarks;
};

static void seg_flush(struct walk *k)
{
	if (k->seg)
		line(k->p, k->sx0, k->sy, k->sx1, k->sy);
	k->seg = 0;
}

/* A horizontal line, joined to the previous one when they touch. */
static void segment(struct walk *k, double x0, double x1, double y)
{
	if (k->seg && y == k->sy && x0 <= k->sx1 + 1 && x0 >= k->sx0) {
		if (x1 > k->sx1)
			k->sx1 = x1;
		return;
	}
	seg_flush(k);
	k->seg = 1;
	k->sx0 = x0;
	k->sx1 = x1;
	k->sy = y;
}

static void draw_thread(struct walk *k, uint32_t t, int r, double x0,
			double x1)
{
	struct weft_view *v = k->v;
	struct pen *p = k->p;
	const struct weft_thread *th = &k->th[t];
	double y = yof(v, r), rh = row_h(v, r);
	switch (k->kind) {
	case P_HIGHLIGHT: {
		double hh = rh >= FULL ? 10 : rh < 2 ? 2 : rh;
		double a = x0 - k->pad, b = x1 + k->pad;
		if (b - a < 8) {
			a -= 4;
			b += 4;
		}
		rect(p, a, y - hh / 2, b - a, hh);
		break;
	}
	case P_LINE: {
		uint32_t par = th->parent;
		int pr = par < v->nthreads ? v->row[par] : -1;
		if (pr >= 0 && x0 >= 0 && x0 <= v->w &&
		    !(th->flags & WEFT_THREAD_NO_CREATE) &&
		    (k->full || row_h(v, pr) < FULL))
			line(p, x0, yof(v, pr), x0, y);
		segment(k, x0, x1, y);
		if (k->full && th->end == WEFT_END_PENDING && !is_never(th) &&
		    x1 >= 0 && x1 <= v->w && k->nmarks < MAX_MARKS) {
			/* pending at the end: a grey mark where it was
			 * last seen (drawn after the lines) */
			k->marks[k->nmarks][0] = x1;
			k->marks[k->nmarks++][1] = y;
		}
		break;
	}
	case P_BAD: {
		int never = is_never(th);
		line(p, x0, y, x1, y);
		if (!k->full)
			break;
		rect(p, x1 - 1, y - 8, 2, 16);
		const char *msg = never ? "should-resolve thread never resolved"
					: weft_model_string(v->m, th->message);
		double tw = p->c->text_width(p->c->ctx, FONT, msg);
		text(p, x1 - tw - 4 > x0 ? x1 - tw - 4 : x1 + 4, y - 5, msg);
		break;
	}
	}
}

/* Draws the threads of set `s` on row r that show in the window, skipping
 * those that land only on columns this pass has drawn. */
static void walk_row(struct walk *k, const struct tset *s, int r)
{
	struct weft_view *v = k->v;
	const uint32_t *ix = s->ix + s->off[r];
	uint32_t n = s->off[r + 1] - s->off[r];
	if (!n)
		return;
	double y = yof(v, r);
	int *cr = cov_row(v, y);
	uint32_t i = first_end(v, ix, 0, n, v->t0);
	while (i < n) {
		uint32_t t = ix[i];
		if (k->th[t].t_create > v->t1)
			break;
		double x0 = xof(v, k->th[t].t_create);
		double x1 = v->end[t] == INT64_MAX
				    ? (k->right > v->w ? v->w : k->right)
				    : xof(v, v->end[t]);
		if (x1 - x0 < 1)
			x1 = x0 + 1;
		int next;
		if (cov_full(cr, col(v, x0), col(v, x1), &next)) {
			i = first_end(v, ix, i + 1, n, tof(v, next * v->cs));
			continue;
		}
		cov_take(cr, col(v, x0), col(v, x1));
		draw_thread(k, t, r, x0, x1);
		i++;
	}
	seg_flush(k);
}

/* Each row of set `s`, full ones or squeezed ones. */
static void walk_rows(struct walk *k, const struct tset *s)
{
	k->v->pass++;
	for (int r = 0; r < k->v->nrows; r++)
		if ((row_h(k->v, r) >= FULL) == k->full)
			walk_row(k, s, r);
}

/* Runs, white, on the full rows. */
static void draw_runs(struct weft_view *v, struct pen *p)
{
	const struct weft_run *run = weft_model_runs(v->m, &(uint32_t){0});
	color(p, 1, 1, 1, 1);
	p->c->line_width(p->c->ctx, 4);
	v->pass++;
	/* the rows drawn in full: the focus band, and the squeezed rows
	 * above or below it when they are still FULL px tall */
	int r0 = v->hu >= FULL ? 0 : v->fa;
	int r1 = v->hd >= FULL ? v->nrows : v->fa + v->fk;
	for (int r = r0; r < r1; r++) {
		if (row_h(v, r) < FULL)
			continue;
		const uint32_t *ix = v->rruns + v->rroff[r];
		uint32_t n = v->rroff[r + 1] - v->rroff[r], lo = 0, hi = n;
		double y = yof(v, r);
		int *cr = cov_row(v, y);
		int64_t from = v->t0;
		int have = 0;
		double sx0 = 0, sx1 = 0;
		for (;;) {
			hi = n;
			while (lo < hi) {
				uint32_t mid = lo + (hi - lo) / 2;
				if (run[ix[mid]].t1 < from)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo >= n || run[ix[lo]].t0 > v->t1)
				break;
			const struct weft_run *u = &run[ix[lo]];
			double x0 = xof(v, u->t0), x1 = xof(v, u->t1);
			if (x1 - x0 < 1)
				x1 = x0 + 1;
			int next;
			if (cov_full(cr, col(v, x0), col(v, x1), &next)) {
				from = tof(v, next * v->cs);
				lo++;
				continue;
			}
			cov_take(cr, col(v, x0), col(v, x1));
			if (have && x0 <= sx1 + 1 && x0 >= sx0) {
				sx1 = x1 > sx1 ? x1 : sx1;
			} else {
				if (have)
					line(p, sx0, y, sx1, y);
				have = 1;
				sx0 = x0;
				sx1 = x1;
			}
			lo++;
		}
		if (have)
			line(p, sx0, y, sx1, y);
	}
}

/* Spans: thin teal bars under the line (nested ones lower), with their
 * name where it fits. */
static void draw_spans(struct weft_view *v, struct pen *p)
{
	uint32_t n;
	const struct weft_interval *iv =
		weft_model_intervals(v->m, WEFT_EV_SPAN_BEGIN, &n);
	const struct ivindex *x = &v->iv[2];
	for (uint32_t i = ivindex_from(x, 0, v->t0); i < x->n; i++) {
		const struct weft_interval *s = &iv[x->ord[i]];
		if (s->t0 > v->t1)
			break;
		if (s->t1 < v->t0 || s->thread >= v->nthreads)
			continue;
		int r = v->row[s->thread];
		if (r < 0 || row_h(v, r) < FULL)
			continue;
		double x0 = xof(v, s->t0), x1 = xof(v, s->t1);
		if (x1 - x0 < 1)
			x1 = x0 + 1;
		double y = yof(v, r) + 3 + 2.5 * (s->depth > 3 ? 3 : s->depth);
		color(p, 0, 0.55, 0.55, 1);
		rect(p, x0, y, x1 - x0, 2);
		const char *name = weft_model_name(v->m, s->name);
		double tw = p->c->text_width(p->c->ctx, FONT * 0.8, name);
		if (x1 - x0 > tw + 6 && !s->depth) {
			p->c->text(p->c->ctx, (x0 < LEFT ? LEFT : x0) + 2,
				   yof(v, r) + 12, FONT * 0.8, name);
			p->prims++;
		}
	}
}

/* The colour of a loop phase: libuv's by meaning (the wait in poll is
 * blue like idle time, callbacks warm), others by their name's hash. */
static void phase_rgb(const char *name, double rgb[3])
{
	static const struct {
		const char *name;
		double rgb[3];
	} known[] = {
		{"timers", {0.85, 0.55, 0.1}},  {"pending", {0.75, 0.3, 0.3}},
		{"idle", {0.55, 0.55, 0.55}},   {"prepare", {0.5, 0.4, 0.7}},
		{"poll", {0.25, 0.45, 0.75}},   {"check", {0.3, 0.6, 0.35}},
		{"closing", {0.45, 0.3, 0.15}},
	};
	static const double hashed[6][3] = {
		{0.6, 0.3, 0.6}, {0.3, 0.55, 0.55}, {0.65, 0.5, 0.2},
		{0.4, 0.4, 0.75}, {0.55, 0.35, 0.3}, {0.35, 0.6, 0.3}};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (!strcmp(name, known[i].name)) {
			memcpy(rgb, known[i].rgb, sizeof known[i].rgb);
			return;
		}
	uint32_t h = 2166136261u;
	for (const char *c = name; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	memcpy(rgb, hashed[h % 6], sizeof hashed[0]);
}

/* First phase of [lo, hi) in a stream's list that ends at or after t. */
static uint32_t phase_from(const struct weft_view *v,
			   const struct weft_interval *iv, uint32_t lo,
			   uint32_t hi, int64_t t)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (iv[v->ph_ix[mid]].t1 < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* An event loop's phases: a coloured bar under the line of the thread
 * current when each began (the loop), its name where it fits.  Phases of
 * one OS thread are disjoint and in order: once a pixel is drawn, the
 * search jumps to the first phase that reaches past it, so a frame draws
 * at most one bar per pixel column and loop. */
static void draw_phases(struct weft_view *v, struct pen *p)
{
	uint32_t n;
	const struct weft_interval *iv =
		weft_model_intervals(v->m, WEFT_EV_PHASE, &n);
	for (uint32_t s = 0; s < v->ph_nst; s++) {
		uint32_t end = v->ph_off[s + 1];
		double last = -1e9;
		uint32_t i = phase_from(v, iv, v->ph_off[s], end, v->t0);
		while (i < end) {
			const struct weft_interval *ph = &iv[v->ph_ix[i]];
			if (ph->t0 > v->t1)
				break;
			double x0 = xof(v, ph->t0), x1 = xof(v, ph->t1);
			if (x1 < last + 0.5) {
				/* under what is drawn: jump past it */
				i = phase_from(v, iv, i + 1, end,
					       tof(v, last + 0.5));
				continue;
			}
			i++;
			int r = ph->thread < v->nthreads ? v->row[ph->thread]
							  : -1;
			if (r < 0 || row_h(v, r) < FULL)
				continue;
			/* whole pixels: crisp bars, one colour per column */
			x0 = round(x0 < last ? last : x0 < LEFT - 1 ? LEFT - 1
								     : x0);
			x1 = round(x1 > v->w + 1 ? v->w + 1 : x1);
			if (x1 - x0 < 1)
				x1 = x0 + 1;
			last = x1;
			const char *name = weft_model_name(v->m, ph->name);
			double rgb[3];
			phase_rgb(name, rgb);
			color(p, rgb[0], rgb[1], rgb[2], 1);
			double y = round(yof(v, r));
			rect(p, x0, y + 3, x1 - x0, 3);
			if (x1 - x0 > 30) {
				double tw = p->c->text_width(p->c->ctx,
							     FONT * 0.8, name);
				if (x1 - x0 > tw + 6) {
					p->c->text(p->c->ctx, x0 + 2, y + 14,
						   FONT * 0.8, name);
					p->prims++;
				}
			}
		}
	}
}

/* Notes: a small flag above the line; their text when zoomed in. */
static void draw_notes(struct weft_view *v, struct pen *p)
{
	uint32_t nl;
	const struct weft_label *lb = weft_model_labels(v->m, &nl);
	uint32_t lo = 0, hi = v->nnotes;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (lb[v->notes[mid]].t < v->t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	v->pass++;
	double lastx = -1e9;
	for (uint32_t i = lo; i < v->nnotes; i++) {
		const struct weft_label *n = &lb[v->notes[i]];
		if (n->t > v->t1)
			break;
		int r = n->thread < v->nthreads ? v->row[n->thread] : -1;
		if (r < 0 || row_h(v, r) < FULL)
			continue;
		double x = xof(v, n->t), y = yof(v, r);
		if (!cov_take(cov_row(v, y - 8), col(v, x), col(v, x)))
			continue;
		color(p, 0.45, 0.25, 0.6, 1);
		line(p, x, y - 2, x, y - 13);
		triangle(p, x, y - 13, x + 8, y - 10, x, y - 7);
		const char *s = weft_model_string(v->m, n->text);
		/* the text only where the next note leaves room */
		double room = 1e9;
		if (i + 1 < v->nnotes && lb[v->notes[i + 1]].t <= v->t1)
			room = xof(v, lb[v->notes[i + 1]].t) - x;
		double tw = p->c->text_width(p->c->ctx, FONT * 0.8, s);
		if (room > tw + 10 && x > lastx) {
			p->c->text(p->c->ctx, x + 9, y - 9, FONT * 0.8, s);
			p->prims++;
			lastx = x + tw + 6;
		}
	}
}

/* Labels where there is room on full rows; kinds in grey below. */
static void draw_labels(struct weft_view *v, struct pen *p,
			const struct weft_thread *th, double right)
{
	const struct weft_canvas *c = p->c;
	char title[256];
	for (int r = v->fa; r < v->fa + v->fk; r++) {
		const uint32_t *ix = v->all.ix + v->all.off[r];
		uint32_t n = v->all.off[r + 1] - v->all.off[r];
		double y = yof(v, r);
		uint32_t i = first_end(v, ix, 0, n, v->t0);
		while (i < n) {
			uint32_t t = ix[i];
			if (th[t].t_create > v->t1)
				break;
			double x0 = xof(v, th[t].t_create);
			double x1 = v->end[t] == INT64_MAX ? right
							   : xof(v, v->end[t]);
			if (x0 < LEFT)
				x0 = LEFT;
			if (x1 - x0 < 24) {
				/* the threads that end before x0 + 24 are
				 * all too short */
				i = first_end(v, ix, i + 1, n,
					      tof(v, (x0 > LEFT ? x0 : LEFT) + 24));
				continue;
			}
			i++;
			weft_model_title(v->m, t, title, sizeof title);
			double tw = c->text_width(c->ctx, FONT, title);
			color(p, 0, 0, 0, 1);
			clip(p, x0, y - 16, x1 - x0, 30);
			text(p, x0 + 2, y - 4, title);
			if (th[t].kind && th[t].label != WEFT_NONE &&
			    x1 - x0 > tw) {
				color(p, 0.5, 0.5, 0.5, 1);
				text(p, x0 + 2, y + 11,
				     weft_model_name(v->m, th[t].kind));
			}
			unclip(p); /* back to the plot's clip */
		}
	}
}

/* An arrow to draw: its ends and its colour group (kind and opacity). */
struct adraw {
	float x0, y0, x1, y1;
	uint16_t group;
	uint8_t head;
};

/* Opacities are drawn in steps of 1/ALPHA_STEPS: arrows of one kind and
 * step share a colour, so a frame changes colour a few dozen times rather
 * than once per arrow (a fading arrow's opacity depends on its length). */
#define ALPHA_STEPS 32
#define AGROUPS (WEFT_ARROW_KINDS * (ALPHA_STEPS + 1))

/* Room for n gathered arrows; 0 when memory is short. */
static int arrows_room(struct weft_view *v, size_t n)
{
	if (n <= v->cad)
		return 1;
	size_t c = v->cad ? v->cad * 2 : 1024;
	while (c < n)
		c *= 2;
	struct adraw *a = realloc(v->ad, c * sizeof *a);
	if (a)
		v->ad = a;
	struct adraw *b = a ? realloc(v->ad2, c * sizeof *b) : NULL;
	if (b)
		v->ad2 = b;
	if (!a || !b)
		return 0;
	v->cad = c;
	return 1;
}

/* Draws the gathered arrows group by group: in each, the lines, then
 * their heads (a back end draws a run of lines, or of shapes, at once). */
static void flush_arrows(struct weft_view *v, struct pen *p, size_t n)
{
	uint32_t start[AGROUPS + 1] = {0};
	for (size_t i = 0; i < n; i++)
		start[v->ad[i].group + 1]++;
	for (int g = 0; g < AGROUPS; g++)
		start[g + 1] += start[g];
	uint32_t at[AGROUPS];
	memcpy(at, start, sizeof at);
	for (size_t i = 0; i < n; i++)
		v->ad2[at[v->ad[i].group]++] = v->ad[i];
	p->c->line_width(p->c->ctx, 1);
	for (int g = 0; g < AGROUPS; g++) {
		if (start[g] == start[g + 1])
			continue;
		int kind = g / (ALPHA_STEPS + 1), q = g % (ALPHA_STEPS + 1);
		color(p, arrow_rgb[kind][0], arrow_rgb[kind][1],
		      arrow_rgb[kind][2], (double)q / ALPHA_STEPS);
		for (uint32_t i = start[g]; i < start[g + 1]; i++) {
			const struct adraw *d = &v->ad2[i];
			line(p, d->x0, d->y0, d->x1, d->y1);
		}
		for (uint32_t i = start[g]; i < start[g + 1]; i++) {
			const struct adraw *d = &v->ad2[i];
			if (d->head)
				arrowhead(p, d->x0, d->y0, d->x1, d->y1);
		}
	}
}

static void draw_arrows(struct weft_view *v, struct pen *p,
			const struct weft_thread *th)
{
	uint32_t narr;
	const struct weft_arrow *ar = weft_model_arrows(v->m, &narr);
	/* Arrows are in time order; an arrow is drawn from its source's
	 * time (reads: when the source ended) to its time, so those that
	 * show end in the window or at most ARROW_FADE px right of it. */
	int64_t last = tof(v, v->w + ARROW_FADE);
	uint32_t lo = 0, hi = narr;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ar[mid].t < v->t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t cols = (size_t)v->covw;
	memset(v->seen, 0, cols * (size_t)v->covh * sizeof *v->seen);
	size_t n = 0;
	for (uint32_t i = lo; i < narr && ar[i].t <= last; i++) {
		const struct weft_arrow *a = &ar[i];
		int kind = a->kind;
		if (kind == WEFT_ARROW_CREATE || a->from == a->to ||
		    (a->flags & WEFT_ARROW_FOLLOWED))
			continue;
		int r0 = a->from < v->nthreads ? v->row[a->from] : -1;
		int r1 = a->to < v->nthreads ? v->row[a->to] : -1;
		if (r0 < 0 || r1 < 0)
			continue;
		int64_t tf = a->t;
		if (kind == WEFT_ARROW_READ || kind == WEFT_ARROW_READ_FAILED)
			tf = th[a->from].t_end < a->t ? th[a->from].t_end
						      : a->t;
		double x0 = xof(v, tf), x1 = xof(v, a->t);
		double y0 = yof(v, r0), y1 = yof(v, r1);
		if ((x0 < 0 && x1 < 0) || (x0 > v->w && x1 > v->w))
			continue;
		/* one per kind per pixel where it lands (or, beyond the
		 * right edge, where it starts) */
		double cx = x1 <= v->w ? x1 : x0;
		int cy = (int)floor((x1 <= v->w ? y1 : y0) / v->rs);
		if (cy < 0 || cy >= v->covh)
			continue;
		/* squeezed rows are context: their arrows are drawn only
		 * for the selection and its chain */
		int squeezed = row_h(v, r0) < FULL || row_h(v, r1) < FULL;
		if (squeezed && !v->chm[a->from] && !v->chm[a->to] &&
		    a->from != v->selected && a->to != v->selected)
			continue;
		uint16_t *cell =
			&v->seen[(size_t)cy * cols + (size_t)col(v, cx)];
		if (*cell & (1u << kind))
			continue;
		*cell |= (uint16_t)(1u << kind);
		if (kind == WEFT_ARROW_BECOME) {
			/* a merge: a vertical line, like a creation */
			color(p, 0.2, 0.2, 0.2, squeezed ? 0.4 : 1);
			p->c->line_width(p->c->ctx, 2);
			line(p, x1, y0, x1, y1);
			p->c->line_width(p->c->ctx, 1);
			continue;
		}
		double len = hypot(x1 - x0, y1 - y0);
		double alpha = 1 - len / ARROW_FADE;
		if (squeezed)
			alpha *= 0.35;
		int q = (int)lround(alpha * ALPHA_STEPS);
		if (alpha <= 0.01 || q <= 0)
			continue;
		if (n == v->cad && !arrows_room(v, n + 1)) {
			/* short of memory: draw what was gathered */
			flush_arrows(v, p, n);
			n = 0;
			if (!v->cad)
				return;
		}
		struct adraw *d = &v->ad[n++];
		d->x0 = (float)x0;
		d->y0 = (float)y0;
		d->x1 = (float)x1;
		d->y1 = (float)y1;
		d->group = (uint16_t)(kind * (ALPHA_STEPS + 1) +
				      (q > ALPHA_STEPS ? ALPHA_STEPS : q));
		d->head = !squeezed;
	}
	flush_arrows(v, p, n);
}

static void draw_counters(struct weft_view *v, struct pen *p, double right)
{
	uint32_t nctr;
	const struct weft_counter *ctr = weft_model_counters(v->m, &nctr);
	static const double cc[4][3] = {
		{1, .4, .4}, {1, .5, 0}, {.4, .8, .8}, {.8, .4, 1}};
	double y0 = v->bottom + 4, hgt = COUNTERS_H - 10;
	color(p, 0.85, 0.85, 0.85, 1);
	rect(p, 0, v->bottom, v->w, COUNTERS_H);
	p->c->line_width(p->c->ctx, 2);
	int shown = 0;
	for (uint32_t k = 0; k < nctr; k++) {
		if (!weft_view_counter_shown(v, k))
			continue;
		const struct weft_counter *q = &ctr[k];
		/* in floating point: counter values are any int64 */
		double span = q->max > q->min ? (double)q->max - (double)q->min
					      : 1;
		color(p, cc[k % 4][0], cc[k % 4][1], cc[k % 4][2], 1);
#define YV(s)                                                                  \
	(y0 + hgt -                                                            \
	 ((double)q->samples[s].value - (double)q->min) / span * hgt)
		/* the sample in force at the left edge, then one step per
		 * pixel column: the last sample of each column */
		uint32_t lo = 0, hi = q->nsamples;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (q->samples[mid].t <= v->t0)
				lo = mid + 1;
			else
				hi = mid;
		}
		uint32_t s = lo ? lo - 1 : 0;
		double px = s < q->nsamples ? xof(v, q->samples[s].t) : 0;
		if (px < 0)
			px = 0;
		double py = q->nsamples ? YV(s) : y0 + hgt;
		while (q->nsamples && s + 1 < q->nsamples) {
			/* the last sample before the next pixel column */
			double xn = xof(v, q->samples[s + 1].t);
			if (xn > v->w)
				break;
			int64_t tn = tof(v, floor(xn) + 1);
			lo = s + 1;
			hi = q->nsamples;
			while (lo < hi) {
				uint32_t mid = lo + (hi - lo) / 2;
				if (q->samples[mid].t < tn)
					lo = mid + 1;
				else
					hi = mid;
			}
			uint32_t e = lo > s + 1 ? lo - 1 : s + 1;
			double x = xof(v, q->samples[e].t), y = YV(e);
			/* the range the column went through */
			double ymin = py, ymax = py;
			for (uint32_t j = s + 1; j <= e && j < s + 8; j++) {
				double yy = YV(j);
				ymin = yy < ymin ? yy : ymin;
				ymax = yy > ymax ? yy : ymax;
			}
			line(p, px, py, x, py);
			line(p, x, ymin < y ? ymin : y, x, ymax > y ? ymax : y);
			px = x;
			py = y;
			s = e;
		}
#undef YV
		if (px < v->w)
			line(p, px, py, right < v->w ? right : v->w, py);
		char buf[300];
		snprintf(buf, sizeof buf, "%s = %lld",
			 weft_model_name(v->m, q->name),
			 (long long)(q->nsamples ? q->samples[q->nsamples - 1].value
						 : 0));
		text(p, v->w - LEFT - p->c->text_width(p->c->ctx, FONT, buf),
		     y0 + 10 + 12 * (shown % 5), buf);
		shown++;
	}
}

/* Scratch sized for the surface. */
static int scratch(struct weft_view *v)
{
	/* at most 4096 x 4096 cells: 64 MiB, however big the picture */
	double cs = v->w > 4096 ? v->w / 4096 : 1, rs = v->h > 4096 ? v->h / 4096 : 1;
	int w = (int)(v->w / cs) + 2, h = (int)(v->h / rs) + 1;
	v->cs = cs;
	v->rs = rs;
	if (w == v->covw && h == v->covh)
		return 0;
	free(v->cover);
	free(v->stamp);
	free(v->seen);
	free(v->bcov);
	v->cover = malloc((size_t)w * (size_t)h * sizeof *v->cover);
	v->bcov = malloc((size_t)w * sizeof *v->bcov);
	v->stamp = calloc((size_t)h, sizeof *v->stamp);
	v->seen = malloc((size_t)w * (size_t)h * sizeof *v->seen);
	v->pass = 1;
	if (!v->marks)
		v->marks = malloc(MAX_MARKS * sizeof *v->marks);
	if (!v->cover || !v->stamp || !v->seen || !v->marks || !v->bcov) {
		v->covw = v->covh = 0;
		return -1;
	}
	v->covw = w;
	v->covh = h;
	return 0;
}

long weft_view_render(struct weft_view *v, const struct weft_canvas *c)
{
	struct pen pn = {c, 0}, *p = &pn;
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(v->m, &nth);
	if (nth > v->nthreads)
		weft_view_model_changed(v);
	if (scratch(v))
		return 0;
	geometry(v);
	double right = xof(v, v->tmax);
	struct walk k = {v, p, th, P_HIGHLIGHT, 1, right, 3};

	color(p, 0.9, 0.9, 0.9, 1);
	rect(p, 0, 0, v->w, v->h);
	draw_bands(v, p);
	draw_grid(v, p);
	clip(p, 0, TOP - 6, v->w, v->bottom - TOP + 6);

	/* Highlights behind the lines: search (yellow), chain (light
	 * teal), the selection (orange, around its line). */
	for (k.full = 0; k.full < 2; k.full++) {
		color(p, 1, 1, 0, 1);
		walk_rows(&k, &v->hl);
		color(p, 0.55, 0.85, 0.75, 0.6);
		walk_rows(&k, &v->chain);
	}
	if (v->selected < v->nthreads && v->row[v->selected] >= 0) {
		uint32_t t = v->selected;
		double x0 = xof(v, th[t].t_create);
		double x1 = v->end[t] == INT64_MAX ? right : xof(v, v->end[t]);
		double y = yof(v, v->row[t]);
		color(p, 1, 0.45, 0, 1);
		c->line_width(c->ctx, 2);
		for (int s = -1; s <= 1; s += 2)
			line(p, x0 - 4, y + s * 6, x1 + 4, y + s * 6);
	}

	/* Thread lines and creation lines; squeezed rows thin and light. */
	k.kind = P_LINE;
	k.full = 0;
	color(p, 0.6, 0.6, 0.6, 1);
	c->line_width(c->ctx, 1);
	walk_rows(&k, &v->all);
	k.full = 1;
	color(p, 0.2, 0.2, 0.2, 1);
	c->line_width(c->ctx, 2);
	k.marks = v->marks;
	walk_rows(&k, &v->all);
	color(p, 0.45, 0.45, 0.45, 1);
	for (int i = 0; i < k.nmarks; i++)
		triangle(p, v->marks[i][0], v->marks[i][1] - 5,
			 v->marks[i][0] + 7, v->marks[i][1], v->marks[i][0],
			 v->marks[i][1] + 5);

	draw_runs(v, p);
	draw_spans(v, p);
	draw_phases(v, p);

	/* Failed threads and should-resolve threads that never resolved. */
	k.kind = P_BAD;
	color(p, 0.8, 0, 0, 1);
	for (k.full = 0; k.full < 2; k.full++) {
		c->line_width(c->ctx, k.full ? 2 : 1);
		walk_rows(&k, &v->bad);
	}

	draw_arrows(v, p, th);
	draw_labels(v, p, th, right);
	draw_notes(v, p); /* over the labels: they are rarer */
	unclip(p);

	if (any_counter(v))
		draw_counters(v, p, right);
	if (c->flush)
		c->flush(c->ctx);
	return p->prims;
}
