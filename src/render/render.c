/* SPDX-License-Identifier: MIT */
/*
 * render.c - layout and drawing of a model (view.h), through a canvas.
 *
 * Layout: async threads in creation order, each in the first free row at
 * or below its creator's, so children sit near their parents (greedy
 * first fit; a row is free once the thread placed in it has ended).
 *
 * Drawing, back to front (mirage-trace-viewer's rules and colours):
 * background; idle periods and pauses as bands; the time grid; search and
 * selection highlights; thread lines (dark grey), with a vertical line from
 * the creator; white where running; failed threads and should-resolve
 * threads that never resolved in red (the latter to the right edge, with a
 * message); arrows by kind (green resolve, blue read, red read of a
 * failure, yellow wait not followed by a read, orange signal, grey
 * become/cancel), fading with their length; labels where they fit (the id
 * otherwise), kinds in grey; counters as step plots in a band at the
 * bottom.
 *
 * Level of detail: what lies outside the window is culled; each row
 * remembers the last pixel it drew, so a frame draws at most about one
 * primitive per pixel column per row however many events the trace has.
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

struct weft_view {
	const struct weft_model *m;
	double w, h;
	int64_t t0, t1;     /* visible range */
	int64_t tmin, tmax; /* the trace */
	double scroll;      /* vertical pixel offset */
	int *row;           /* per thread, -1: not drawn */
	uint32_t nrow_threads;
	int nrows;
	uint8_t *hl;        /* search matches */
	uint8_t *sel;       /* the selection and its causal chain */
	uint32_t selected;
	int counters;
};

/* ------------------------------------------------------------- layout */

static void layout(struct weft_view *v)
{
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(v->m, &n);
	free(v->row);
	v->row = malloc((n + 1) * sizeof *v->row);
	int64_t *busy = NULL;
	int cap = 0;
	v->nrows = 0;
	v->nrow_threads = n;
	if (!v->row)
		return;
	for (uint32_t i = 0; i < n; i++) {
		v->row[i] = -1;
		if (th[i].flags & WEFT_THREAD_ROOT)
			continue;
		int want = 0;
		uint32_t p = th[i].parent;
		if (p < i && v->row[p] >= 0)
			want = v->row[p] + 1;
		int64_t end = th[i].end == WEFT_END_PENDING &&
				      (th[i].flags & WEFT_THREAD_SHOULD_RESOLVE)
			      ? INT64_MAX
			      : th[i].t_end;
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
		busy[r] = end;
		v->row[i] = r;
	}
	free(busy);
	free(v->hl);
	free(v->sel);
	v->hl = calloc(n + 1, 1);
	v->sel = calloc(n + 1, 1);
}

struct weft_view *weft_view_new(const struct weft_model *m, double w, double h)
{
	struct weft_view *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->m = m;
	v->w = w;
	v->h = h;
	v->counters = 1;
	v->selected = WEFT_NONE;
	layout(v);
	if (!v->row || !v->hl || !v->sel) {
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
	free(v->hl);
	free(v->sel);
	free(v);
}

void weft_view_model_changed(struct weft_view *v)
{
	int64_t a = v->t0, b = v->t1;
	int fit = v->t0 <= v->tmin && v->t1 >= v->tmax;
	layout(v);
	weft_model_range(v->m, &v->tmin, &v->tmax);
	if (fit) /* it was showing everything: follow the trace */
		weft_view_fit(v);
	else
		weft_view_set_range(v, a, b);
}

int weft_view_row(const struct weft_view *v, uint32_t t)
{
	return t < v->nrow_threads ? v->row[t] : -1;
}

/* ------------------------------------------------------------- view */

void weft_view_resize(struct weft_view *v, double w, double h)
{
	v->w = w > 50 ? w : 50;
	v->h = h > 50 ? h : 50;
}

void weft_view_set_range(struct weft_view *v, int64_t t0, int64_t t1)
{
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
	v->scroll = 0;
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

static double yof(const struct weft_view *v, int row)
{
	return TOP + ROW_H * row + ROW_H / 2 - v->scroll;
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
	double left = at - (x - LEFT) / plot_w(v) * ns;
	weft_view_set_range(v, (int64_t)left, (int64_t)(left + ns));
}

void weft_view_pan(struct weft_view *v, double dx, double dy)
{
	int64_t d = (int64_t)(dx * (double)(v->t1 - v->t0) / plot_w(v));
	weft_view_set_range(v, v->t0 - d, v->t1 - d);
	v->scroll -= dy;
	double max = ROW_H * v->nrows - (v->h - TOP - COUNTERS_H - GRID_H);
	if (v->scroll > max)
		v->scroll = max;
	if (v->scroll < 0)
		v->scroll = 0;
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

uint32_t weft_view_search(struct weft_view *v, const char *text)
{
	uint32_t n, hits = 0;
	weft_model_threads(v->m, &n);
	char title[256];
	for (uint32_t i = 0; i < n && i < v->nrow_threads; i++) {
		v->hl[i] = 0;
		if (!text || !*text || v->row[i] < 0)
			continue;
		weft_model_title(v->m, i, title, sizeof title);
		if (contains_ci(title, text)) {
			v->hl[i] = 1;
			hits++;
		}
	}
	return hits;
}

uint32_t weft_view_pick(const struct weft_view *v, double x, double y)
{
	uint32_t n, best = WEFT_NONE;
	const struct weft_thread *th = weft_model_threads(v->m, &n);
	double bestd = 8;
	for (uint32_t i = 0; i < n && i < v->nrow_threads; i++) {
		if (v->row[i] < 0)
			continue;
		double dy = fabs(yof(v, v->row[i]) - y);
		if (dy > bestd)
			continue;
		double x0 = xof(v, th[i].t_create), x1 = xof(v, th[i].t_end);
		double dx = x < x0 ? x0 - x : x > x1 ? x - x1 : 0;
		double d = dx > dy ? dx : dy;
		if (d < bestd) {
			bestd = d;
			best = i;
		}
	}
	return best;
}

void weft_view_select(struct weft_view *v, uint32_t t)
{
	uint32_t n, na;
	const struct weft_thread *th = weft_model_threads(v->m, &n);
	const struct weft_arrow *a = weft_model_arrows(v->m, &na);
	memset(v->sel, 0, v->nrow_threads);
	v->selected = t;
	if (t >= v->nrow_threads)
		return;
	/* The causal chain: its creators up, and the threads it touched or
	 * was touched by. */
	for (uint32_t p = t; p < n && !v->sel[p]; p = th[p].parent)
		v->sel[p] = 1;
	uint32_t k;
	const uint32_t *ai = weft_model_thread_arrows(v->m, t, &k);
	for (uint32_t i = 0; i < k; i++) {
		v->sel[a[ai[i]].from] = 1;
		v->sel[a[ai[i]].to] = 1;
	}
}

void weft_view_show_counters(struct weft_view *v, int on)
{
	v->counters = on;
}

/* ------------------------------------------------------------- drawing */

struct pen {
	const struct weft_canvas *c;
	long prims;
};

static void color(struct pen *p, double r, double g, double b, double a)
{
	p->c->color(p->c->ctx, r, g, b, a);
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

static void draw_grid(struct weft_view *v, struct pen *p, double bottom)
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
		line(p, x, TOP - 4, x, bottom);
	}
	char d[32], buf[64];
	snprintf(buf, sizeof buf, "each grid division: %s",
		 dur_str(d, sizeof d, step));
	color(p, 0.35, 0.35, 0.35, 1);
	text(p, LEFT, v->h - 4, buf);
}

static void draw_bands(struct weft_view *v, struct pen *p, double bottom)
{
	static const int kinds[2] = {WEFT_EV_IDLE, WEFT_EV_PAUSE};
	for (int k = 0; k < 2; k++) {
		uint32_t n;
		const struct weft_interval *iv =
			weft_model_intervals(v->m, kinds[k], &n);
		if (k == 0)
			color(p, 0.8, 0.8, 0.8, 1);
		else
			color(p, 0.7, 0.6, 0.6, 1);
		double last = -1e9;
		for (uint32_t i = 0; i < n; i++) {
			double x0 = xof(v, iv[i].t0), x1 = xof(v, iv[i].t1);
			if (x1 < 0 || x0 > v->w || x1 - last < 0.5)
				continue;
			if (x0 < last)
				x0 = last;
			rect(p, x0, TOP, x1 - x0 < 0.5 ? 0.5 : x1 - x0,
			     bottom - TOP);
			last = x1;
			if (x1 - x0 > 60) {
				char buf[300];
				snprintf(buf, sizeof buf, "%s: %s",
					 k ? "pause" : "idle",
					 weft_model_name(v->m, iv[i].name));
				color(p, 1, 1, 1, 1);
				text(p, x0 + 3, TOP + 11, buf);
				if (k == 0)
					color(p, 0.8, 0.8, 0.8, 1);
				else
					color(p, 0.7, 0.6, 0.6, 1);
			}
		}
	}
}

/* Is row r visible, and is [x0, x1] worth drawing on it (not already
 * covered by what the row drew this pass)? */
static int visible(const struct weft_view *v, double *lastx, int r, double x0,
		   double x1, double bottom)
{
	double y = yof(v, r);
	if (y < TOP - ROW_H || y > bottom + ROW_H || x1 < 0 || x0 > v->w)
		return 0;
	if (x1 <= lastx[r] + 0.5)
		return 0;
	return 1;
}

static void arrowhead(struct pen *p, double x0, double y0, double x1,
		      double y1)
{
	double dx = x1 - x0, dy = y1 - y0, len = sqrt(dx * dx + dy * dy);
	if (len < 1)
		return;
	dx /= len;
	dy /= len;
	double hl = len < 10 ? len : 10, hw = 4;
	double bx = x1 - dx * hl, by = y1 - dy * hl;
	p->c->triangle(p->c->ctx, x1, y1, bx - dy * hw, by + dx * hw,
		       bx + dy * hw, by - dx * hw);
	p->prims++;
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

long weft_view_render(struct weft_view *v, const struct weft_canvas *c)
{
	struct pen pn = {c, 0}, *p = &pn;
	uint32_t nth, nrun, narr, nctr;
	const struct weft_thread *th = weft_model_threads(v->m, &nth);
	const struct weft_run *run = weft_model_runs(v->m, &nrun);
	const struct weft_arrow *ar = weft_model_arrows(v->m, &narr);
	const struct weft_counter *ctr = weft_model_counters(v->m, &nctr);
	if (nth > v->nrow_threads)
		weft_view_model_changed(v);
	double bottom = v->h - GRID_H - (v->counters && nctr ? COUNTERS_H : 0);
	double right = xof(v, v->tmax);
	double *lastx = malloc(((size_t)v->nrows + 1) * sizeof *lastx);
	if (!lastx)
		return 0;

	color(p, 0.9, 0.9, 0.9, 1);
	rect(p, 0, 0, v->w, v->h);
	draw_bands(v, p, bottom);
	draw_grid(v, p, bottom);
	c->clip(c->ctx, 0, TOP - 6, v->w, bottom - TOP + 6);

	/* Highlights behind the lines: search (yellow), selection. */
	for (int pass = 0; pass < 2; pass++) {
		const uint8_t *mark = pass ? v->sel : v->hl;
		if (pass)
			color(p, 1, 0.75, 0.4, 0.6);
		else
			color(p, 1, 1, 0, 1);
		for (uint32_t i = 0; i < nth && i < v->nrow_threads; i++) {
			if (!mark[i] || v->row[i] < 0)
				continue;
			double x0 = xof(v, th[i].t_create) - 3,
			       x1 = xof(v, th[i].t_end) + 3;
			if (x1 - x0 < 8) {
				x0 -= 4;
				x1 += 4;
			}
			rect(p, x0, yof(v, v->row[i]) - 5, x1 - x0, 10);
		}
	}

	/* Thread lines and creation lines. */
	color(p, 0.2, 0.2, 0.2, 1);
	c->line_width(c->ctx, 2);
	for (int r = 0; r <= v->nrows; r++)
		lastx[r] = -1e9;
	for (uint32_t i = 0; i < nth && i < v->nrow_threads; i++) {
		int r = v->row[i];
		if (r < 0)
			continue;
		double x0 = xof(v, th[i].t_create), x1 = xof(v, th[i].t_end);
		if (x1 - x0 < 1)
			x1 = x0 + 1;
		uint32_t par = th[i].parent;
		if (par < v->nrow_threads && v->row[par] >= 0 && x0 >= 0 &&
		    x0 <= v->w && !(th[i].flags & WEFT_THREAD_NO_CREATE))
			line(p, x0, yof(v, v->row[par]), x0, yof(v, r));
		if (!visible(v, lastx, r, x0, x1, bottom))
			continue;
		line(p, x0 > lastx[r] ? x0 : lastx[r], yof(v, r), x1,
		     yof(v, r));
		lastx[r] = x1;
	}
	/* Running: white. */
	color(p, 1, 1, 1, 1);
	c->line_width(c->ctx, 4);
	for (int r = 0; r <= v->nrows; r++)
		lastx[r] = -1e9;
	for (uint32_t i = 0; i < nrun; i++) {
		uint32_t t = run[i].thread;
		int r = t < v->nrow_threads ? v->row[t] : -1;
		if (r < 0)
			continue;
		double x0 = xof(v, run[i].t0), x1 = xof(v, run[i].t1);
		if (x1 - x0 < 1)
			x1 = x0 + 1;
		if (!visible(v, lastx, r, x0, x1, bottom))
			continue;
		line(p, x0, yof(v, r), x1, yof(v, r));
		lastx[r] = x1;
	}
	/* Failed threads and should-resolve threads that never resolved. */
	color(p, 0.8, 0, 0, 1);
	c->line_width(c->ctx, 2);
	for (uint32_t i = 0; i < nth && i < v->nrow_threads; i++) {
		int r = v->row[i];
		if (r < 0)
			continue;
		int never = th[i].end == WEFT_END_PENDING &&
			    (th[i].flags & WEFT_THREAD_SHOULD_RESOLVE);
		if (th[i].end != WEFT_END_FAILED && !never)
			continue;
		double y = yof(v, r), x0 = xof(v, th[i].t_create);
		double x1 = never ? (right > v->w ? v->w : right)
				  : xof(v, th[i].t_end);
		line(p, x0, y, x1, y);
		rect(p, x1 - 1, y - 8, 2, 16);
		const char *msg = never ? "should-resolve thread never resolved"
					: weft_model_string(v->m, th[i].message);
		double tw = c->text_width(c->ctx, FONT, msg);
		text(p, x1 - tw - 4 > x0 ? x1 - tw - 4 : x1 + 4, y - 5, msg);
	}

	/* Arrows, one colour at a time, fading with their length.  Arrows
	 * are in time order: only those ending in the window are looked at
	 * (one ending outside it crosses it only if it is long, and long
	 * arrows fade out); of those landing on the same pixel column of the
	 * same row, one is drawn. */
	c->line_width(c->ctx, 1);
	uint32_t lo = 0, hi = narr;
	{
		uint32_t a0 = 0, a1 = narr;
		while (a0 < a1) {
			uint32_t mid = a0 + (a1 - a0) / 2;
			if (ar[mid].t < v->t0)
				a0 = mid + 1;
			else
				a1 = mid;
		}
		lo = a0;
		a1 = narr;
		while (a0 < a1) {
			uint32_t mid = a0 + (a1 - a0) / 2;
			if (ar[mid].t <= v->t1)
				a0 = mid + 1;
			else
				a1 = mid;
		}
		hi = a0;
	}
	size_t cols = (size_t)v->w + 2;
	uint8_t *seen = calloc(cols * ((size_t)v->nrows + 1), 1);
	for (int kind = 0; kind < WEFT_ARROW_KINDS && seen; kind++) {
		if (kind == WEFT_ARROW_CREATE)
			continue; /* drawn as creation lines */
		memset(seen, 0, cols * ((size_t)v->nrows + 1));
		for (uint32_t i = lo; i < hi; i++) {
			const struct weft_arrow *a = &ar[i];
			if (a->kind != kind || a->from == a->to ||
			    (a->flags & WEFT_ARROW_FOLLOWED))
				continue;
			int r0 = a->from < v->nrow_threads ? v->row[a->from] : -1;
			int r1 = a->to < v->nrow_threads ? v->row[a->to] : -1;
			if (r0 < 0 || r1 < 0)
				continue;
			int64_t tf = a->t;
			if (kind == WEFT_ARROW_READ ||
			    kind == WEFT_ARROW_READ_FAILED)
				tf = th[a->from].t_end < a->t ? th[a->from].t_end
							       : a->t;
			double x0 = xof(v, tf), x1 = xof(v, a->t);
			double y0 = yof(v, r0), y1 = yof(v, r1);
			if ((x0 < 0 && x1 < 0) || (x0 > v->w && x1 > v->w) ||
			    (y0 < TOP && y1 < TOP) ||
			    (y0 > bottom && y1 > bottom))
				continue;
			size_t cell = (size_t)r1 * cols +
				      (size_t)(x1 < 0 ? 0 : x1 > v->w ? v->w : x1);
			if (seen[cell])
				continue;
			seen[cell] = 1;
			double len = hypot(x1 - x0, y1 - y0);
			double alpha = 1 - len / 6000;
			if (alpha <= 0.01)
				continue;
			color(p, arrow_rgb[kind][0], arrow_rgb[kind][1],
			      arrow_rgb[kind][2], alpha);
			line(p, x0, y0, x1, y1);
			arrowhead(p, x0, y0, x1, y1);
		}
	}
	free(seen);

	/* Labels where there is room; kinds in grey below. */
	char title[256];
	for (uint32_t i = 0; i < nth && i < v->nrow_threads; i++) {
		int r = v->row[i];
		if (r < 0)
			continue;
		double x0 = xof(v, th[i].t_create), x1 = xof(v, th[i].t_end);
		double y = yof(v, r);
		if (x1 < 0 || x0 > v->w || y < TOP || y > bottom)
			continue;
		if (x0 < LEFT)
			x0 = LEFT;
		if (th[i].end == WEFT_END_PENDING &&
		    (th[i].flags & WEFT_THREAD_SHOULD_RESOLVE))
			x1 = right;
		if (x1 - x0 < 24)
			continue;
		weft_model_title(v->m, i, title, sizeof title);
		double tw = c->text_width(c->ctx, FONT, title);
		color(p, 0, 0, 0, 1);
		c->clip(c->ctx, x0, y - 16, x1 - x0, 30);
		text(p, x0 + 2, y - 4, title);
		if (th[i].kind && th[i].label != WEFT_NONE && x1 - x0 > tw) {
			color(p, 0.5, 0.5, 0.5, 1);
			text(p, x0 + 2, y + 11,
			     weft_model_name(v->m, th[i].kind));
		}
		c->unclip(c->ctx); /* back to the plot's clip */
	}
	c->unclip(c->ctx);

	/* Counters: step plots, each scaled to its own range. */
	if (v->counters && nctr) {
		static const double cc[4][3] = {
			{1, .4, .4}, {1, .5, 0}, {.4, .8, .8}, {.8, .4, 1}};
		double y0 = bottom + 4, hgt = COUNTERS_H - 10;
		color(p, 0.85, 0.85, 0.85, 1);
		rect(p, 0, bottom, v->w, COUNTERS_H);
		c->line_width(c->ctx, 2);
		for (uint32_t k = 0; k < nctr; k++) {
			const struct weft_counter *q = &ctr[k];
			double span = q->max > q->min ? (double)(q->max - q->min)
						      : 1;
			color(p, cc[k % 4][0], cc[k % 4][1], cc[k % 4][2], 1);
			double px = -1e9, py = 0;
			for (uint32_t s = 0; s < q->nsamples; s++) {
				double x = xof(v, q->samples[s].t);
				double y = y0 + hgt -
					   (double)(q->samples[s].value - q->min) /
						   span * hgt;
				if (s && x >= 0 && px <= v->w && x - px >= 0.5) {
					line(p, px, py, x, py);
					line(p, x, py, x, y);
				}
				if (!s || x - px >= 0.5) {
					px = x;
					py = y;
				}
			}
			if (px < v->w)
				line(p, px, py, right < v->w ? right : v->w, py);
			char buf[300];
			snprintf(buf, sizeof buf, "%s = %lld",
				 weft_model_name(v->m, q->name),
				 (long long)(q->nsamples ? q->samples[q->nsamples - 1].value : 0));
			text(p, v->w - LEFT - c->text_width(c->ctx, FONT, buf),
			     y0 + 10 + 12 * (k % 4), buf);
		}
	}
	free(lastx);
	return p->prims;
}
