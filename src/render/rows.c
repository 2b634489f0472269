/* SPDX-License-Identifier: MIT */
/*
 * rows.c - the layout: async threads in creation order, each in the first
 * free row at or below its creator's, so children sit near their parents
 * (greedy first fit; a row is free once the thread placed in it has
 * ended).  So the threads of one row never overlap in time: each row keeps
 * its threads (and their runs) in time order, which is the index every
 * frame uses to find what is visible with a binary search.
 */
#include <stdlib.h>
#include <string.h>

#include "common/mintree.h"
#include "view-internal.h"

/* ------------------------------------------------------------- helpers */

static int32_t arrow_row(const struct weft_view *v, uint32_t x);

void weft__tset_free(struct tset *s)
{
	free(s->ix);
	free(s->t0);
	free(s->t1);
	free(s->prow);
	free(s->pend);
	free(s->off);
	memset(s, 0, sizeof *s);
}

/* The laid-out threads with mark[t] (all of them if mark is NULL), or
 * those `pred` accepts, grouped by row.  Threads are in creation order,
 * which is time order within a row. */
int weft__tset_build(struct weft_view *v, struct tset *s, const uint8_t *mark,
		     int (*pred)(const struct weft_thread *))
{
	const struct weft_thread *th = weft_model_threads(v->m, &(uint32_t){0});
	weft__tset_free(s);
	s->off = calloc((size_t)v->rows.nrows + 2, sizeof *s->off);
	if (!s->off)
		return -1;
	uint32_t n = 0;
	for (uint32_t t = 0; t < v->rows.nthreads; t++) {
		if (v->rows.row[t] < 0 || (mark && !mark[t]) ||
		    (pred && !pred(&th[t])))
			continue;
		s->off[v->rows.row[t] + 1]++;
		n++;
	}
	for (int r = 0; r < v->rows.nrows; r++)
		s->off[r + 1] += s->off[r];
	s->ix = malloc(((size_t)n + 1) * sizeof *s->ix);
	s->t0 = malloc(((size_t)n + 1) * sizeof *s->t0);
	s->t1 = malloc(((size_t)n + 1) * sizeof *s->t1);
	if (s == &v->ix.all) {
		s->prow = malloc(((size_t)n + 1) * sizeof *s->prow);
		s->pend = malloc((size_t)n + 1);
		if (!s->prow || !s->pend)
			return -1;
	}
	uint32_t *fill = malloc(((size_t)v->rows.nrows + 1) * sizeof *fill);
	if (!s->ix || !s->t0 || !s->t1 || !fill) {
		free(fill);
		return -1;
	}
	memcpy(fill, s->off, (size_t)v->rows.nrows * sizeof *fill);
	for (uint32_t t = 0; t < v->rows.nthreads; t++) {
		if (v->rows.row[t] < 0 || (mark && !mark[t]) ||
		    (pred && !pred(&th[t])))
			continue;
		uint32_t k = fill[v->rows.row[t]]++;
		s->ix[k] = t;
		s->t0[k] = th[t].t_create;
		s->t1[k] = v->rows.end[t];
		if (s->prow) {
			uint32_t par = th[t].parent;
			/* (made in a collapsed process: from its
			 * header) */
			s->prow[k] = par < v->rows.nthreads &&
						     !(th[t].flags &
						       WEFT_THREAD_NO_CREATE)
					     ? arrow_row(v, par)
					     : -1;
			s->pend[k] = th[t].end == WEFT_END_PENDING &&
				     !is_never(&th[t]);
		}
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
	return x->t0 < y->t0   ? -1
	       : x->t0 > y->t0 ? 1
			       : (x->i > y->i) - (x->i < y->i);
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
	free(x->t0);
	free(x->t1);
	free(x->cum);
	x->t0 = malloc(((size_t)n + 1) * sizeof *x->t0);
	x->t1 = malloc(((size_t)n + 1) * sizeof *x->t1);
	x->cum = malloc(((size_t)n + 1) * sizeof *x->cum);
	if (!x->t0 || !x->t1 || !x->cum)
		return -1;
	int64_t mx = INT64_MIN;
	x->cum[0] = 0;
	for (uint32_t i = 0; i < n; i++) {
		x->t0[i] = iv[x->ord[i]].t0;
		x->t1[i] = iv[x->ord[i]].t1;
		/* what it adds to the union of those before it: from
		 * where they reach (mx) or its start, to its end */
		int64_t from = x->t0[i] > mx ? x->t0[i] : mx;
		x->cum[i + 1] =
			x->cum[i] + (x->t1[i] > from ? x->t1[i] - from : 0);
		if (x->t1[i] > mx)
			mx = x->t1[i];
		x->pmax[i] = mx;
	}
	x->n = n;
	return 0;
}

/* First i in [lo, n) of the index whose running maximum end is >= t. */
uint32_t weft__ivindex_from(const struct ivindex *x, uint32_t lo, int64_t t)
{
	return weft__gallop(x->pmax, lo, x->n, t);
}

/* The union before t: every interval that starts before t (the first j
 * of them, in order of start) adds its piece; of those the part after t
 * is covered from t to the furthest end (pmax[j - 1]: the interval that
 * reaches it starts before t), so it is taken off. */
int64_t weft__ivindex_covered(const struct ivindex *x, int64_t t, uint32_t *i)
{
	uint32_t j = *i;
	if (j > x->n || (j > 0 && x->t0[j - 1] >= t))
		j = 0;
	j = weft__gallop(x->t0, j, x->n, t);
	*i = j;
	if (!j)
		return 0;
	int64_t over = x->pmax[j - 1] > t ? x->pmax[j - 1] - t : 0;
	return x->cum[j] - over;
}

/* ------------------------------------------------------------- layout */

/* The process a thread's rows go with (threads of no known process: the
 * first one's). */
static uint32_t group_of(const struct weft_view *v, uint32_t t)
{
	uint32_t p = weft_model_thread_process(v->m, t);
	return p < v->rows.nglay ? p : 0;
}

/* The row an arrow to or from thread x ends on: the thread's, or for a
 * thread of a collapsed process its header's (-1: none). */
static int32_t arrow_row(const struct weft_view *v, uint32_t x)
{
	if (x >= v->rows.nthreads)
		return -1;
	if (v->rows.row[x] >= 0 || !v->rows.grouped)
		return v->rows.row[x];
	const struct weft_thread *th = weft_model_threads(v->m, &(uint32_t){0});
	if ((th[x].flags & WEFT_THREAD_ROOT) ||
	    (v->sel.only_chain && v->sel.nchain && !v->sel.chm[x]))
		return -1; /* (no row open either; not in the chain shown) */
	uint32_t p = group_of(v, x);
	if (!v->rows.collapsed[p])
		return -1;
	return weft_view_header_row(v, p);
}

/* ---------------------------------------------------------------- lanes */

/* A run of many short processes (a build, a test suite, a server's
 * workers) would be a staircase of groups, one under the other.  Groups
 * that do not overlap in time share rows instead: each process's group
 * goes into the first lane that is free when it starts, as a thread goes
 * into the first free row (weft_layout_new(), and with the same rule: a
 * lane is free at t when what it holds ended before t by more than an
 * eighth of its life).  A group spans its threads' lives, to the right
 * edge while its process runs (it may start more) or one of them never
 * ends.  Groups keep their lanes as a live trace grows (new ones go to
 * the first lane free); all are placed anew only when one no longer fits
 * where it is (a group that grew into the next one of its lane), or
 * when the groups shown change (a chain alone).  Within a lane, groups
 * come in time order and so do their threads' indexes (the order rows
 * keep threads in): a group is not put after one holding later threads. */
struct lanes {
	uint32_t np, nl, cap;
	const int64_t *t0, *t1;	 /* per process: its group's span */
	const uint32_t *lo, *hi; /* per process: its threads' indexes */
	int64_t *tree;		 /* the lanes' free times, min per node:
				    leaves at [cap, 2 cap) */
	uint32_t *hi_ix;	 /* per lane: the last index placed there */
};

/* When a lane holding group p is free. */
static int64_t free_after(const struct lanes *L, uint32_t p)
{
	int64_t a = L->t0[p], b = L->t1[p];
	return b == INT64_MAX ? INT64_MAX : b + (b - a) / 8 + 1;
}

static void lane_set(struct lanes *L, uint32_t l, int64_t t, uint32_t hi)
{
	weft__mintree_set(L->tree, L->cap, l, t);
	L->hi_ix[l] = hi;
}

/* The first lane at or after `from` free at t, or L->nl (none). */
static uint32_t lane_free(const struct lanes *L, uint32_t from, int64_t t)
{
	uint32_t l = weft__mintree_first(L->tree, L->cap, from, L->nl, t);
	return l == UINT32_MAX ? L->nl : l;
}

/* Room for lane l (every lane's state kept). */
static int lane_room(struct lanes *L, uint32_t l)
{
	if (l < L->cap)
		return 0;
	uint32_t cap = weft__mintree_cap(L->cap, l, 16);
	uint32_t *h = realloc(L->hi_ix, (size_t)cap * sizeof *h);
	if (!h)
		return -1;
	L->hi_ix = h;
	return weft__mintree_room(&L->tree, &L->cap, l, L->nl, 16);
}

/* A placed process, by lane, then by time (then index). */
struct placed {
	int32_t lane;
	uint32_t p;
	int64_t t0;
};

static int by_lane(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;
	if (x->lane != y->lane)
		return x->lane < y->lane ? -1 : 1;
	if (x->t0 != y->t0)
		return x->t0 < y->t0 ? -1 : 1;
	return x->p < y->p ? -1 : x->p > y->p;
}

/* v->rows.lproc/loff/nlanes from v->rows.plane: the placed processes by lane and
 * time.  Returns -1 (no memory), 0, or 1 when two groups of a lane no
 * longer fit one after the other. */
static int lane_lists(struct weft_view *v, const struct lanes *L)
{
	uint32_t n = 0, nl = 0;
	struct placed *pp = malloc(((size_t)L->np + 1) * sizeof *pp);
	if (!pp)
		return -1;
	for (uint32_t p = 0; p < L->np; p++)
		if (v->rows.plane[p] >= 0) {
			pp[n++] = (struct placed){v->rows.plane[p], p,
						  v->rows.pt0[p]};
			if ((uint32_t)v->rows.plane[p] + 1 > nl)
				nl = (uint32_t)v->rows.plane[p] + 1;
		}
	qsort(pp, n, sizeof *pp, by_lane);
	for (uint32_t k = 0; k < n; k++)
		v->rows.lproc[k] = pp[k].p;
	free(pp);
	uint32_t *off = realloc(v->rows.loff, ((size_t)nl + 1) * sizeof *off);
	if (!off)
		return -1;
	v->rows.loff = off;
	memset(off, 0, ((size_t)nl + 1) * sizeof *off);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t p = v->rows.lproc[k];
		off[v->rows.plane[p] + 1]++;
		if (k &&
		    v->rows.plane[v->rows.lproc[k - 1]] == v->rows.plane[p]) {
			uint32_t q = v->rows.lproc[k - 1];
			if (free_after(L, q) > L->t0[p] || L->hi[q] >= L->lo[p])
				return 1;
		}
	}
	for (uint32_t l = 0; l < nl; l++)
		off[l + 1] += off[l];
	v->rows.nlanes = nl;
	return 0;
}

/* Each process with a group (count[p]) in a lane: those placed before
 * keep theirs while everything still fits, the others go to the first
 * free one. */
static int place_lanes(struct weft_view *v, struct lanes *L,
		       const uint32_t *count)
{
	uint32_t np = L->np;
	int32_t *pl = realloc(v->rows.plane, ((size_t)np + 1) * sizeof *pl);
	uint32_t *lp = realloc(v->rows.lproc, ((size_t)np + 1) * sizeof *lp);
	float *tw = realloc(v->rows.hdr_tw, ((size_t)np + 1) * sizeof *tw);
	if (pl)
		v->rows.plane = pl;
	if (lp)
		v->rows.lproc = lp;
	if (tw)
		v->rows.hdr_tw = tw;
	if (!pl || !lp || !tw)
		return -1;
	for (uint32_t p = v->rows.nplane; p < np; p++)
		tw[p] = 0;
	int anew = 0;
	for (uint32_t p = 0; p < np; p++) {
		if (p >= v->rows.nplane)
			pl[p] = -1;
		else if (pl[p] >= 0 && !count[p])
			anew = 1; /* (a group gone: the groups shown changed) */
	}
	v->rows.nplane = np;
	int rc = anew ? 1 : lane_lists(v, L);
	if (rc < 0)
		return -1;
	if (rc) {
		for (uint32_t p = 0; p < np; p++)
			pl[p] = -1;
		v->rows.nlanes = 0;
	}
	/* the lanes as they are: each one's last group */
	L->nl = 0;
	for (uint32_t l = 0; l < v->rows.nlanes; l++) {
		uint32_t last = v->rows.lproc[v->rows.loff[l + 1] - 1];
		if (lane_room(L, l))
			return -1;
		L->nl = l + 1;
		lane_set(L, l, free_after(L, last), L->hi[last]);
	}
	for (uint32_t p = 0; p < np; p++) {
		if (!count[p] || pl[p] >= 0)
			continue;
		uint32_t l = lane_free(L, 0, L->t0[p]);
		while (l < L->nl && L->hi_ix[l] >= L->lo[p])
			l = lane_free(L, l + 1, L->t0[p]);
		if (l == L->nl) {
			if (lane_room(L, l))
				return -1;
			L->nl++;
		}
		pl[p] = (int32_t)l;
		lane_set(L, l, free_after(L, p), L->hi[p]);
	}
	return lane_lists(v, L) < 0 ? -1 : 0;
}

/* A run of several processes: each process's threads laid out apart
 * (weft_layout_new_groups(): packed and stable within the group, all the
 * groups in one pass over the threads), under a header; groups in lanes
 * (above), a lane as tall as its tallest group; a collapsed process is
 * its header alone; a process with no thread to show has no group. */
static int layout_groups(struct weft_view *v, int again, const uint8_t *only)
{
	uint32_t n, np;
	const struct weft_thread *th = weft_model_threads(v->m, &n);
	const struct weft_model_process *pr = weft_model_processes(v->m, &np);
	if (np > v->rows.nglay) {
		struct weft_layout **g = realloc(v->rows.glay, np * sizeof *g);
		uint8_t *c = realloc(v->rows.collapsed, np);
		if (g)
			v->rows.glay = g;
		if (c)
			v->rows.collapsed = c;
		if (!g || !c)
			return -1;
		memset(v->rows.glay + v->rows.nglay, 0,
		       (np - v->rows.nglay) * sizeof *g);
		memset(v->rows.collapsed + v->rows.nglay, 0,
		       np - v->rows.nglay);
		v->rows.nglay = np;
	}
	uint32_t *gid = malloc(((size_t)n + 1) * sizeof *gid);
	uint32_t *count = calloc((size_t)np + 1, sizeof *count);
	uint32_t *lo = malloc(((size_t)np + 1) * 2 * sizeof *lo);
	int64_t *t0 = realloc(v->rows.pt0, ((size_t)np + 1) * sizeof *t0);
	if (t0)
		v->rows.pt0 = t0;
	int64_t *t1 = realloc(v->rows.pt1, ((size_t)np + 1) * sizeof *t1);
	if (t1)
		v->rows.pt1 = t1;
	int32_t *grow = realloc(v->rows.grow, ((size_t)n + 1) * sizeof *grow);
	if (grow)
		v->rows.grow = grow;
	struct lanes L = {.np = np, .t0 = t0, .t1 = t1, .lo = lo};
	if (!gid || !count || !lo || !t0 || !t1 || !grow) {
		free(gid);
		free(count);
		free(lo);
		return -1;
	}
	uint32_t *hi = lo + np + 1;
	L.hi = hi;
	for (uint32_t p = 0; p < np; p++) {
		t0[p] = INT64_MAX;
		t1[p] = INT64_MIN;
		lo[p] = UINT32_MAX;
		hi[p] = 0;
	}
	/* each thread's group (OS threads have no row; a collapsed
	 * process's threads none either), and what each group spans */
	for (uint32_t i = 0; i < n; i++) {
		gid[i] = WEFT_NONE;
		if ((!only || only[i]) && !(th[i].flags & WEFT_THREAD_ROOT)) {
			uint32_t g = group_of(v, i);
			count[g]++;
			if (!v->rows.collapsed[g])
				gid[i] = g;
			int64_t e = is_never(&th[i]) ? INT64_MAX : th[i].t_end;
			if (th[i].t_create < t0[g])
				t0[g] = th[i].t_create;
			if (e > t1[g])
				t1[g] = e;
			if (i < lo[g])
				lo[g] = i;
			hi[g] = i;
		}
	}
	for (uint32_t p = 0; p < np; p++)
		if (pr[p].end == WEFT_PROC_RUNNING || t1[p] < t0[p])
			t1[p] = INT64_MAX;
	int rc;
	if (again) {
		for (uint32_t p = 0; p < np; p++)
			weft_layout_free(v->rows.glay[p]);
		rc = weft_layout_new_groups(v->rows.glay, np, v->m, gid);
	} else {
		rc = weft_layout_update_groups(v->rows.glay, np, v->m, gid,
					       v->rows.nthreads);
	}
	free(gid);
	if (!rc)
		rc = place_lanes(v, &L, count);
	free(L.tree);
	free(L.hi_ix);
	free(lo);
	free(count);
	/* the lanes' rows: a header, then as many as its tallest group */
	int32_t *top = rc ? NULL
			  : realloc(v->rows.ltop,
				    ((size_t)v->rows.nlanes + 1) * sizeof *top);
	if (top)
		v->rows.ltop = top;
	if (rc || !top)
		return -1;
	int rows = 0;
	for (uint32_t l = 0; l < v->rows.nlanes; l++) {
		int h = 0;
		for (uint32_t k = v->rows.loff[l]; k < v->rows.loff[l + 1];
		     k++) {
			struct weft_layout *g = v->rows.glay[v->rows.lproc[k]];
			struct weft_layout_info in;
			if (!g)
				continue;
			weft_layout_info(g, &in);
			if ((int)in.rows > h)
				h = (int)in.rows;
		}
		top[l] = rows;
		rows += 1 + h;
	}
	int32_t *hl =
		realloc(v->rows.hdr_lane, ((size_t)rows + 1) * sizeof *hl);
	uint8_t *rt = realloc(v->rows.rtop, (size_t)rows + 1);
	if (hl)
		v->rows.hdr_lane = hl;
	if (rt)
		v->rows.rtop = rt;
	if (!hl || !rt)
		return -1;
	for (int r = 0; r < rows; r++) {
		hl[r] = -1;
		rt[r] = 0;
	}
	for (uint32_t i = 0; i < n; i++)
		grow[i] = -1;
	for (uint32_t l = 0; l < v->rows.nlanes; l++) {
		hl[top[l]] = (int32_t)l;
		for (uint32_t k = v->rows.loff[l]; k < v->rows.loff[l + 1];
		     k++) {
			struct weft_layout *g = v->rows.glay[v->rows.lproc[k]];
			if (!g)
				continue;
			uint32_t nm;
			const int32_t *lr;
			const uint32_t *mem = weft_layout_members(g, &lr, &nm);
			struct weft_layout_info in;
			weft_layout_info(g, &in);
			int r0 = top[l] + 1;
			for (uint32_t j = 0; j < nm; j++)
				if (lr[j] >= 0 && mem[j] < n)
					grow[mem[j]] = r0 + lr[j];
			for (uint32_t j = 0; j < in.top; j++)
				rt[r0 + (int)j] = 1;
		}
	}
	v->rows.row = grow;
	v->rows.nthreads = n;
	v->rows.nrows = rows;
	v->rows.top_rows = 0;
	return 0;
}

/* The rows, from the library's layout (weft_layout_new(): packed and
 * stable), anew or for the threads the model added since; a run of
 * several processes by process (layout_groups()). */
static int layout(struct weft_view *v, int again)
{
	uint32_t n, np;
	const struct weft_thread *th = weft_model_threads(v->m, &n);
	const uint8_t *only = v->sel.only_chain && v->sel.nchain ? v->sel.chm
								 : NULL;
	int rc = 0;
	weft_model_processes(v->m, &np);
	if (np >= 2 && !v->rows.grouped)
		again = 1; /* (grouped from now on: every thread anew) */
	uint32_t known = again ? 0 : v->rows.nthreads; /* (ends already set) */
	weft_model_range(v->m, &v->time.tmin, &v->time.tmax);
	v->rows.grouped = np >= 2;
	if (v->rows.grouped) {
		weft_layout_free(v->rows.lay);
		v->rows.lay = NULL;
		rc = layout_groups(v, again, only);
	} else {
		free(v->rows.rtop);
		free(v->rows.hdr_lane);
		v->rows.rtop = NULL;
		v->rows.hdr_lane = NULL;
		v->rows.nlanes = 0;
		if (again || !v->rows.lay) {
			weft_layout_free(v->rows.lay);
			v->rows.lay = NULL;
			rc = weft_layout_new(&v->rows.lay, v->m, only);
		} else
			rc = weft_layout_update(v->rows.lay, only);
	}
	int64_t *end = realloc(v->rows.end, ((size_t)n + 1) * sizeof *end);
	if (end)
		v->rows.end = end;
	if (rc || !end) {
		weft_layout_free(v->rows.lay);
		v->rows.lay = NULL;
		v->rows.row = NULL;
		v->rows.nrows = 0;
		v->rows.nthreads = 0;
		return -1;
	}
	for (uint32_t i = known; i < n; i++)
		v->rows.end[i] = is_never(&th[i]) ? INT64_MAX : th[i].t_end;
	/* a pending thread's last sighting moves on as the trace grows */
	for (uint32_t i = 0; i < known; i++)
		if (th[i].end == WEFT_END_PENDING && !is_never(&th[i]))
			v->rows.end[i] = th[i].t_end;
	if (!v->rows.grouped) {
		struct weft_layout_info in;
		v->rows.row = weft_layout_rows(v->rows.lay, &v->rows.nthreads);
		weft_layout_info(v->rows.lay, &in);
		v->rows.nrows = (int)in.rows;
		v->rows.top_rows = (int)in.top;
	}
	if (v->geo.focus >= v->rows.nrows)
		v->geo.focus = v->rows.nrows ? v->rows.nrows - 1 : 0;
	return 0;
}

/* The loop phases of each OS thread, in time order: the model gives
 * them so (disjoint, each appended as it ends), so a stable counting sort
 * by OS thread is all it takes. */
static int index_phases(struct weft_view *v)
{
	uint32_t n;
	const struct weft_interval *iv =
		weft_model_intervals(v->m, WEFT_INTERVAL_PHASE, &n);
	free(v->ix.ph_ix);
	free(v->ix.ph_off);
	free(v->ix.ph_t1);
	v->ix.ph_ix = NULL;
	v->ix.ph_nst = 0;
	uint32_t nst = 0;
	for (uint32_t i = 0; i < n; i++)
		if (iv[i].stream >= nst)
			nst = iv[i].stream + 1;
	v->ix.ph_off = calloc((size_t)nst + 2, sizeof *v->ix.ph_off);
	v->ix.ph_ix = malloc(((size_t)n + 1) * sizeof *v->ix.ph_ix);
	v->ix.ph_t1 = malloc(((size_t)n + 1) * sizeof *v->ix.ph_t1);
	if (!v->ix.ph_off || !v->ix.ph_ix || !v->ix.ph_t1)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		v->ix.ph_off[iv[i].stream + 2]++;
	for (uint32_t k = 0; k < nst; k++)
		v->ix.ph_off[k + 2] += v->ix.ph_off[k + 1];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = v->ix.ph_off[iv[i].stream + 1]++;
		v->ix.ph_ix[k] = i;
		v->ix.ph_t1[k] = iv[i].t1;
	}
	v->ix.ph_nst = nst;
	return 0;
}

/* Spans by the row of their thread, by start (the model gives them in
 * that order: a stable counting sort), with the latest end so far along
 * each row, so a frame jumps past what it has drawn. */
static int index_spans(struct weft_view *v)
{
	uint32_t n;
	const struct weft_interval *iv =
		weft_model_intervals(v->m, WEFT_INTERVAL_SPAN, &n);
	free(v->ix.rsp);
	free(v->ix.rspoff);
	free(v->ix.rsp_max);
	free(v->ix.rsp_t0);
	free(v->ix.rsp_t1);
	free(v->ix.rsp_d);
	v->ix.rsp_d = malloc((size_t)n + 1);
	v->ix.rsp_t0 = malloc(((size_t)n + 1) * sizeof *v->ix.rsp_t0);
	v->ix.rsp_t1 = malloc(((size_t)n + 1) * sizeof *v->ix.rsp_t1);
	v->ix.rsp = malloc(((size_t)n + 1) * sizeof *v->ix.rsp);
	v->ix.rsp_max = malloc(((size_t)n + 1) * sizeof *v->ix.rsp_max);
	v->ix.rspoff = calloc((size_t)v->rows.nrows + 2, sizeof *v->ix.rspoff);
	if (!v->ix.rsp || !v->ix.rsp_max || !v->ix.rspoff || !v->ix.rsp_t0 ||
	    !v->ix.rsp_t1 || !v->ix.rsp_d)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		if (iv[i].thread < v->rows.nthreads &&
		    v->rows.row[iv[i].thread] >= 0)
			v->ix.rspoff[v->rows.row[iv[i].thread] + 2]++;
	for (int r = 0; r < v->rows.nrows; r++)
		v->ix.rspoff[r + 2] += v->ix.rspoff[r + 1];
	for (uint32_t i = 0; i < n; i++)
		if (iv[i].thread < v->rows.nthreads &&
		    v->rows.row[iv[i].thread] >= 0)
			v->ix.rsp[v->ix.rspoff[v->rows.row[iv[i].thread] + 1]++] =
				i;
	for (int r = 0; r < v->rows.nrows; r++) {
		int64_t mx = INT64_MIN;
		for (uint32_t k = v->ix.rspoff[r]; k < v->ix.rspoff[r + 1];
		     k++) {
			const struct weft_interval *x = &iv[v->ix.rsp[k]];
			if (x->t1 > mx)
				mx = x->t1;
			v->ix.rsp_max[k] = mx;
			v->ix.rsp_t0[k] = x->t0;
			v->ix.rsp_t1[k] = x->t1;
			v->ix.rsp_d[k] = (uint8_t)(x->depth > 3 ? 3 : x->depth);
		}
	}
	return 0;
}

/* Arrows by the row they land on and their kind, in time order (a
 * stable counting sort of the model's, which are in time order): the
 * ones a frame draws between rows.  Creations (drawn as creation lines),
 * an arrow to itself and waits a read answered are left out.  An arrow
 * into or out of a collapsed process ends at its header; one within it
 * (both ends on the header) is left out; a creation into it is kept
 * (drawn as a creation line to its header: its child has no row). */
static int index_arrows(struct weft_view *v)
{
	uint32_t n;
	const struct weft_arrow *ar = weft_model_arrows(v->m, &n);
	const struct weft_thread *th = weft_model_threads(v->m, &(uint32_t){0});
	size_t keys = (size_t)v->rows.nrows * WEFT_ARROW_KINDS;
	free(v->ix.arr_ix);
	free(v->ix.arr_off);
	free(v->ix.arr_t);
	v->ix.arr_ix = malloc(((size_t)n + 1) * sizeof *v->ix.arr_ix);
	v->ix.arr_t = malloc(((size_t)n + 1) * sizeof *v->ix.arr_t);
	free(v->ix.arr_tf);
	free(v->ix.arr_rf);
	v->ix.arr_tf = malloc(((size_t)n + 1) * sizeof *v->ix.arr_tf);
	v->ix.arr_rf = malloc(((size_t)n + 1) * sizeof *v->ix.arr_rf);
	v->ix.arr_off = calloc(keys + 2, sizeof *v->ix.arr_off);
	if (!v->ix.arr_ix || !v->ix.arr_t || !v->ix.arr_off || !v->ix.arr_tf ||
	    !v->ix.arr_rf)
		return -1;
#define KEEP(a)                                                                \
	(((a)->kind != WEFT_ARROW_CREATE ||                                    \
	  ((a)->to < v->rows.nthreads && v->rows.row[(a)->to] < 0 &&           \
	   !(th[(a)->to].flags & WEFT_THREAD_NO_CREATE))) &&                   \
	 (a)->from != (a)->to && !((a)->flags & WEFT_ARROW_FOLLOWED) &&        \
	 (a)->from < v->rows.nthreads && (a)->to < v->rows.nthreads &&         \
	 arrow_row(v, (a)->from) >= 0 && arrow_row(v, (a)->to) >= 0 &&         \
	 (v->rows.row[(a)->to] >= 0 || v->rows.row[(a)->from] >= 0 ||          \
	  arrow_row(v, (a)->from) != arrow_row(v, (a)->to)) &&                 \
	 (a)->kind < WEFT_ARROW_KINDS)
#define KEY(a) ((size_t)arrow_row(v, (a)->to) * WEFT_ARROW_KINDS + (a)->kind)
	for (uint32_t i = 0; i < n; i++)
		if (KEEP(&ar[i]))
			v->ix.arr_off[KEY(&ar[i]) + 2]++;
	for (size_t k = 0; k < keys; k++)
		v->ix.arr_off[k + 2] += v->ix.arr_off[k + 1];
	for (uint32_t i = 0; i < n; i++)
		if (KEEP(&ar[i])) {
			uint32_t k = v->ix.arr_off[KEY(&ar[i]) + 1]++;
			const struct weft_arrow *a = &ar[i];
			v->ix.arr_ix[k] = i;
			v->ix.arr_t[k] = a->t;
			v->ix.arr_rf[k] = arrow_row(v, a->from);
			v->ix.arr_tf[k] = a->t;
			if (a->kind == WEFT_ARROW_READ &&
			    (a->flags & WEFT_ARROW_MESSAGE)) {
				/* bytes from another process: from when
				 * they were written */
				int64_t w = weft_model_arrow_sent(v->m, i);
				v->ix.arr_tf[k] = w < a->t ? w : a->t;
			} else if ((a->kind == WEFT_ARROW_READ ||
				    a->kind == WEFT_ARROW_READ_FAILED) &&
				   th[a->from].t_end < a->t)
				v->ix.arr_tf[k] = th[a->from].t_end;
		}
#undef KEEP
#undef KEY
	return 0;
}

/* Each row's occupancy at a fixed resolution over the trace: zoomed out,
 * a frame draws the squeezed rows from these bitmaps (a few word
 * operations a row) instead of walking each row's threads. */
static int index_occupancy(struct weft_view *v)
{
	free(v->ix.occ);
	v->ix.occ = NULL;
	int64_t span = v->time.tmax - v->time.tmin;
	size_t words = (size_t)v->rows.nrows * OCC_WORDS;
	if (span <= 0 || !v->rows.nrows || words * 8 > OCC_MAX_BYTES)
		return 0; /* (frames walk the rows) */
	v->ix.occ = calloc(words, sizeof *v->ix.occ);
	if (!v->ix.occ)
		return -1;
	v->ix.occ_t0 = v->time.tmin;
	v->ix.occ_span = span;
	double per = (double)OCC_BUCKETS / (double)span;
	for (int r = 0; r < v->rows.nrows; r++) {
		uint64_t *bits = v->ix.occ + (size_t)r * OCC_WORDS;
		const int64_t *s0 = v->ix.all.t0 + v->ix.all.off[r];
		const int64_t *s1 = v->ix.all.t1 + v->ix.all.off[r];
		uint32_t n = v->ix.all.off[r + 1] - v->ix.all.off[r];
		int last = -1;
		for (uint32_t i = 0; i < n; i++) {
			int64_t e = s1[i] == INT64_MAX || s1[i] > v->time.tmax
					    ? v->time.tmax
					    : s1[i];
			int b0 = (int)((double)(s0[i] - v->time.tmin) * per);
			int b1 = (int)((double)(e - v->time.tmin) * per);
			b0 = b0 < 0		 ? 0
			     : b0 >= OCC_BUCKETS ? OCC_BUCKETS - 1
						 : b0;
			b1 = b1 < b0		 ? b0
			     : b1 >= OCC_BUCKETS ? OCC_BUCKETS - 1
						 : b1;
			if (b1 <= last)
				continue; /* (all set already) */
			if (b0 <= last)
				b0 = last + 1;
			for (int b = b0; b <= b1;) {
				if (!(b & 63) && b + 63 <= b1) {
					bits[b >> 6] = ~0ull;
					b += 64;
				} else {
					bits[b >> 6] |= 1ull << (b & 63);
					b++;
				}
			}
			last = b1;
		}
	}
	return 0;
}

/* Everything derived from the layout: the per-row indexes. */
static int index_rows(struct weft_view *v)
{
	uint32_t nrun, nl, niv;
	const struct weft_run *run = weft_model_runs(v->m, &nrun);
	if (weft__tset_build(v, &v->ix.all, NULL, NULL) ||
	    weft__tset_build(v, &v->ix.bad, NULL, pred_bad) ||
	    weft__tset_build(v, &v->ix.hl, v->search.hlm, NULL) ||
	    weft__tset_build(v, &v->ix.chain, v->sel.chm, NULL))
		return -1;
	if (index_spans(v) || index_arrows(v))
		return -1;
	/* lives drawn, summed along each row: how busy a stretch is */
	free(v->ix.psum);
	v->ix.psum = malloc(((size_t)v->ix.all.n + (size_t)v->rows.nrows + 1) *
			    sizeof *v->ix.psum);
	if (!v->ix.psum)
		return -1;
	for (int r = 0; r < v->rows.nrows; r++) {
		int64_t *ps = v->ix.psum + v->ix.all.off[r] + (uint32_t)r,
			sum = 0;
		uint32_t n = v->ix.all.off[r + 1] - v->ix.all.off[r];
		const int64_t *s0 = v->ix.all.t0 + v->ix.all.off[r];
		const int64_t *s1 = v->ix.all.t1 + v->ix.all.off[r];
		ps[0] = 0;
		for (uint32_t i = 0; i < n; i++) {
			int64_t e = s1[i] == INT64_MAX ? v->time.tmax : s1[i];
			sum += e > s0[i] ? e - s0[i] : 0;
			ps[i + 1] = sum;
		}
	}
	if (index_occupancy(v))
		return -1;
	/* runs by row: the runs of each thread of the row, in order */
	free(v->ix.rruns);
	free(v->ix.rroff);
	free(v->ix.rrun_t0);
	free(v->ix.rrun_t1);
	v->ix.rruns = malloc(((size_t)nrun + 1) * sizeof *v->ix.rruns);
	v->ix.rrun_t0 = malloc(((size_t)nrun + 1) * sizeof *v->ix.rrun_t0);
	v->ix.rrun_t1 = malloc(((size_t)nrun + 1) * sizeof *v->ix.rrun_t1);
	v->ix.rroff = calloc((size_t)v->rows.nrows + 2, sizeof *v->ix.rroff);
	if (!v->ix.rruns || !v->ix.rroff || !v->ix.rrun_t0 || !v->ix.rrun_t1)
		return -1;
	/* (the model's runs are in order of start: a stable counting sort
	 * by row reads them once, in order) */
	for (uint32_t i = 0; i < nrun; i++)
		if (run[i].thread < v->rows.nthreads &&
		    v->rows.row[run[i].thread] >= 0)
			v->ix.rroff[v->rows.row[run[i].thread] + 2]++;
	for (int r = 0; r < v->rows.nrows; r++)
		v->ix.rroff[r + 2] += v->ix.rroff[r + 1];
	for (uint32_t i = 0; i < nrun; i++)
		if (run[i].thread < v->rows.nthreads &&
		    v->rows.row[run[i].thread] >= 0) {
			uint32_t k =
				v->ix.rroff[v->rows.row[run[i].thread] + 1]++;
			v->ix.rrun_t0[k] = run[i].t0;
			v->ix.rrun_t1[k] = run[i].t1;
			v->ix.rruns[k] = i;
		}
	/* notes */
	const struct weft_label *lb = weft_model_labels(v->m, &nl);
	if (index_phases(v))
		return -1;
	free(v->ix.notes);
	v->ix.nnotes = 0;
	v->ix.notes = malloc(((size_t)nl + 1) * sizeof *v->ix.notes);
	if (!v->ix.notes)
		return -1;
	for (uint32_t i = 0; i < nl; i++)
		if (lb[i].kind == WEFT_EV_NOTE)
			v->ix.notes[v->ix.nnotes++] = i;
	static const int kinds[2] = {WEFT_INTERVAL_IDLE, WEFT_INTERVAL_PAUSE};
	for (int i = 0; i < 2; i++) {
		const struct weft_interval *iv =
			weft_model_intervals(v->m, kinds[i], &niv);
		if (ivindex_build(&v->ix.iv[i], iv, niv))
			return -1;
	}
	return 0;
}

/* Lays out the threads the model added, or everything anew (after the
 * filter changed), and keeps the marks of the threads already known. */
void weft__relayout(struct weft_view *v, int again)
{
	uint32_t old = v->rows.nthreads, n;
	weft_model_threads(v->m, &n);
	uint8_t *hl = realloc(v->search.hlm, (size_t)n + 1);
	uint8_t *ch = realloc(v->sel.chm, (size_t)n + 1);
	if (hl)
		v->search.hlm = hl;
	if (ch)
		v->sel.chm = ch;
	if (!hl || !ch)
		return;
	if (n > old) {
		memset(v->search.hlm + old, 0, n - old);
		memset(v->sel.chm + old, 0, n - old);
	}
	if (layout(v, again))
		return;
	if (v->rows.nthreads > old)
		weft__match(v, old);
	else if (v->search.query)
		weft__match(v, 0);
	index_rows(v);
}
