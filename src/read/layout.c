/* SPDX-License-Identifier: MIT */
/*
 * layout.c - rows for the async threads of a model (model.h): packed,
 * stable, computed when the model changes rather than per frame.
 *
 * Threads are placed once, in creation order, and never move:
 *   1. a thread that continues its creator (the next activation of a
 *      repeating source: weft_model_continues()) takes its creator's row,
 *      if nothing was placed there since: a connection's reads, a timer's
 *      activations stay on one row;
 *   2. long-lived threads (and repeating sources), those that span half
 *      the trace or more when it is first laid out, take rows of their
 *      own at the top, first fit (not one of a kind whose threads
 *      mostly are not: a connection of many that happened to live
 *      long is laid out as the others of its kind are);
 *   3. a thread of a brief kind (its threads live, on average, under
 *      0.2 % of the trace: requests, writes, queries; a repeating
 *      source's activations count as long as the source lasts) takes
 *      the first free row
 *      under the long-lived ones, so that what happens at any moment is
 *      gathered where a zoomed view shows rows in full; a thread that a
 *      long-lived one made (a connection its listener accepted) takes
 *      the last free row; any other the free row nearest its creator's
 *      (below first, at equal distance); a new row only when none is
 *      free.
 * A row is free for a thread created at t when what it holds ended before
 * t by more than an eighth of its own life: the gap that keeps two
 * neighbours apart at any zoom where they are drawn at all.  A thread
 * still pending holds its row for good.
 *
 * The free rows are found with a segment tree of the times rows become
 * free (minimum per node): the nearest free row is two descents, so
 * placing n threads on r rows costs O(n log r).
 *
 * Placing a thread looks only at what ended before it was created, which
 * a growing trace already holds: laying out the threads a live trace adds
 * gives the rows a layout of the whole trace would have given them
 * (except for rule 2, decided when the layout is made).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weft/model.h"

#include "common/mintree.h"
#include "common/grow.h"
#include "common/sorted.h"

struct weft_layout {
	const struct weft_model *m;
	uint32_t nth; /* threads considered so far */
	int32_t *row; /* per thread, -1: not laid out */
	uint32_t cth;
	uint32_t nrows, top;
	uint32_t *last; /* per row: the thread placed last */
	int64_t *tree;	/* segment tree of the rows' free times: leaves
			      at [cap, 2 cap) */
	uint32_t cap;	/* leaves (a power of two >= nrows) */
	uint32_t nlaid;
	uint8_t *brief; /* per kind (name id): its threads live briefly */
	uint32_t nbrief;
	/* a group's layout (weft_layout_new_groups): its threads, in
	 * ascending order, row[] per member; NULL: row[] per thread */
	uint32_t *mem;
	uint32_t nmem, cmem;
	int fresh; /* (made by weft_layout_update_groups, not placed yet) */
};

/* Where thread x's row is kept in l->row, or UINT32_MAX: not there. */
static uint32_t slot(const struct weft_layout *l, uint32_t x)
{
	if (!l->mem)
		return x < l->nth ? x : UINT32_MAX;
	return weft__sorted_find(l->mem, l->nmem, x);
}

static int32_t row_of(const struct weft_layout *l, uint32_t x)
{
	uint32_t k = slot(l, x);
	return k == UINT32_MAX ? -1 : l->row[k];
}

#define FOREVER INT64_MAX

static int is_root(const struct weft_thread *t)
{
	return t->flags & WEFT_THREAD_ROOT;
}

int weft_model_continues(const struct weft_model *m, uint32_t x)
{
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(m, &n);
	if (x >= n || th[x].parent >= n || th[x].parent == x)
		return 0;
	const struct weft_thread *c = &th[x], *p = &th[c->parent];
	return !is_root(p) && p->kind && p->kind == c->kind &&
	       p->end != WEFT_END_PENDING && c->t_create >= p->t_end &&
	       !(c->flags & WEFT_THREAD_NO_CREATE);
}

/* When the row that holds thread t is free again. */
static int64_t free_at(const struct weft_thread *t)
{
	if (t->end == WEFT_END_PENDING)
		return FOREVER;
	int64_t life = t->t_end - t->t_create;
	return t->t_end + (life > 0 ? life / 8 : 0);
}

/* ------------------------------------------------------------- free rows */

static void tree_set(struct weft_layout *l, uint32_t r, int64_t v)
{
	weft__mintree_set(l->tree, l->cap, r, v);
}

/* Room for row r (the tree doubles, rows keep their times). */
static int tree_room(struct weft_layout *l, uint32_t r)
{
	if (r < l->cap)
		return 0;
	uint32_t cap = weft__mintree_cap(l->cap, r, 64);
	uint32_t *last = realloc(l->last, (size_t)cap * sizeof *last);
	if (!last)
		return -ENOMEM;
	l->last = last;
	return weft__mintree_room(&l->tree, &l->cap, r, l->nrows, 64) ? -ENOMEM
								      : 0;
}

/* First row in [lo, hi) free before t, or UINT32_MAX. */
static uint32_t first_free(const struct weft_layout *l, uint32_t lo,
			   uint32_t hi, int64_t t)
{
	return weft__mintree_first(l->tree, l->cap, lo, hi, t);
}

/* Last row in [lo, hi) free before t, or UINT32_MAX. */
static uint32_t last_free(const struct weft_layout *l, uint32_t lo, uint32_t hi,
			  int64_t t)
{
	return weft__mintree_last(l->tree, l->cap, lo, hi, t);
}

/* ------------------------------------------------------------- placing */

static int place(struct weft_layout *l, const struct weft_thread *th,
		 uint32_t x, uint32_t r)
{
	if (r == l->nrows) {
		if (tree_room(l, r))
			return -ENOMEM;
		l->nrows++;
	}
	l->row[slot(l, x)] = (int32_t)r;
	l->last[r] = x;
	tree_set(l, r, free_at(&th[x]));
	l->nlaid++;
	return 0;
}

/* The row for thread x: rules 1 and 3 (top: a long-lived one, rule 2,
 * within the top rows, which grow as needed). */
static uint32_t choose(struct weft_layout *l, const struct weft_thread *th,
		       uint32_t x, int top)
{
	uint32_t p = th[x].parent;
	int64_t t = th[x].t_create;
	int32_t pr = row_of(l, p);
	if (pr >= 0 && l->last[pr] == p && weft_model_continues(l->m, x))
		return (uint32_t)pr;
	if (top) {
		uint32_t r = first_free(l, 0, l->nrows, t);
		return r == UINT32_MAX ? l->nrows : r;
	}
	/* the free row nearest the creator's, among those below the top
	 * rows; a thread of a brief kind, the first of them: what happens
	 * at any moment gathers under the long-lived rows, where a zoomed
	 * view shows it in full; a longer one made by a long-lived one
	 * (a connection by its listener), the last */
	uint32_t lo = l->top, hi = l->nrows;
	uint32_t below, above = UINT32_MAX;
	uint32_t kind = th[x].kind;
	if (kind < l->nbrief && l->brief[kind]) {
		below = first_free(l, lo, hi, t);
	} else if (pr < 0 || (uint32_t)pr < lo) {
		/* (from the bottom: the rows under the long-lived ones are
		 * the brief threads') */
		below = last_free(l, lo, hi, t);
	} else {
		below = first_free(l, (uint32_t)pr + 1, hi, t);
		above = last_free(l, lo, (uint32_t)pr, t);
	}
	if (below == UINT32_MAX && above == UINT32_MAX)
		return l->nrows;
	if (above == UINT32_MAX)
		return below;
	if (below == UINT32_MAX)
		return above;
	return below - (uint32_t)pr <= (uint32_t)pr - above ? below : above;
}

static int want(const struct weft_thread *th, const uint8_t *only, uint32_t i)
{
	return !is_root(&th[i]) && (!only || only[i]);
}

/* Grows the per-thread table to the model's threads. */
static int thread_room(struct weft_layout *l, uint32_t n)
{
	return weft__grow32(&l->row, &l->cth, n, sizeof *l->row, 1024);
}

/* What the layouts of a model made at one time share: how far each
 * thread's source reaches and when it began, which pass places it (1: a
 * long-lived one or source, at the top; 2: of a brief kind; 3: any
 * other), and the brief kinds. */
struct shared {
	uint8_t *pass;
	uint8_t *brief;
	uint32_t nbrief;
};

static void shared_free(struct shared *sh)
{
	free(sh->pass);
	free(sh->brief);
}

static int shared_make(const struct weft_model *m, struct shared *sh)
{
	memset(sh, 0, sizeof *sh);
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(m, &n);
	int64_t t0, t1;
	weft_model_range(m, &t0, &t1);
	int64_t span = t1 - t0;
	/* how far each thread's source reaches: its own end, or that of
	 * the activations that continue it (children come after parents) */
	int64_t *reach = malloc(((size_t)n + 1) * sizeof *reach);
	int64_t *start = malloc(((size_t)n + 1) * sizeof *start);
	uint8_t *top = calloc((size_t)n + 1, 1);
	sh->nbrief = weft_reader_info(weft_model_reader(m))->nnames;
	uint64_t *sum = calloc((size_t)sh->nbrief + 1, sizeof *sum);
	uint32_t *cnt = calloc((size_t)sh->nbrief + 1, sizeof *cnt);
	sh->brief = calloc((size_t)sh->nbrief + 1, 1);
	if (!reach || !top || !start || !sum || !cnt || !sh->brief) {
		free(reach);
		free(start);
		free(top);
		free(sum);
		free(cnt);
		shared_free(sh);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		reach[i] = th[i].end == WEFT_END_PENDING ? t1 : th[i].t_end;
	for (uint32_t i = n; i-- > 0;)
		if (weft_model_continues(m, i)) {
			uint32_t p = th[i].parent;
			if (reach[i] > reach[p])
				reach[p] = reach[i];
		}
	for (uint32_t i = 0; i < n; i++) {
		if (weft_model_continues(m, i)) {
			top[i] = top[th[i].parent];
			reach[i] =
				reach[th[i].parent]; /* (the source's life) */
			start[i] = start[th[i].parent];
		} else {
			top[i] = span > 0 &&
				 reach[i] - th[i].t_create >= span / 2;
			start[i] = th[i].t_create;
		}
	}
	/* a long-lived one that a long-lived one made, of a kind whose
	 * threads mostly are not (one connection of many, its listener's,
	 * that lived long) is an instance like the others, not a part of
	 * the program: it goes with its kind, below the brief ones (rule
	 * 4), so that what a zoomed view shows in full is what happens
	 * then, not rows of connections waiting */
	uint32_t *srcs = calloc((size_t)sh->nbrief + 1, sizeof *srcs);
	uint32_t *longs = calloc((size_t)sh->nbrief + 1, sizeof *longs);
	uint8_t *lived = malloc((size_t)n + 1);
	if (!srcs || !longs || !lived) {
		free(srcs);
		free(longs);
		free(lived);
		free(reach);
		free(start);
		free(top);
		free(sum);
		free(cnt);
		shared_free(sh);
		return -ENOMEM;
	}
	if (n)
		memcpy(lived, top, n);
	for (uint32_t i = 0; i < n; i++)
		if (th[i].kind && th[i].kind < sh->nbrief &&
		    !weft_model_continues(m, i)) {
			srcs[th[i].kind]++;
			longs[th[i].kind] += top[i];
		}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = th[i].parent;
		if (weft_model_continues(m, i))
			top[i] = top[p];
		else if (top[i] && p < n && !is_root(&th[p]) && lived[p] &&
			 th[i].kind < sh->nbrief &&
			 2 * longs[th[i].kind] < srcs[th[i].kind])
			top[i] = 0;
	}
	free(srcs);
	free(longs);
	free(lived);
	/* the kinds whose threads live briefly: on average under 0.2 % of
	 * the trace (ended ones, a source's activations as long as the
	 * source lasts; decided once, like the top rows) */
	for (uint32_t i = 0; i < n; i++)
		if (th[i].kind < sh->nbrief && th[i].end != WEFT_END_PENDING &&
		    reach[i] >= start[i]) {
			sum[th[i].kind] += (uint64_t)(reach[i] - start[i]);
			cnt[th[i].kind]++;
		}
	for (uint32_t k = 1; k < sh->nbrief; k++)
		sh->brief[k] = cnt[k] && span > 0 &&
			       sum[k] / cnt[k] < (uint64_t)span / 500;
	free(sum);
	free(cnt);
	free(reach);
	free(start);
	for (uint32_t i = 0; i < n; i++)
		if (!top[i])
			top[i] = th[i].kind < sh->nbrief &&
						 sh->brief[th[i].kind]
					 ? 2
					 : 3;
	sh->pass = top;
	return 0;
}

/* Its own copy of the brief kinds.  -ENOMEM, or 0. */
static int take_brief(struct weft_layout *l, const uint8_t *brief,
		      uint32_t nbrief)
{
	if (!(l->brief = malloc((size_t)nbrief + 1)))
		return -ENOMEM;
	memcpy(l->brief, brief, (size_t)nbrief + 1);
	l->nbrief = nbrief;
	return 0;
}

/* The first layout of the threads `list` names (ascending; NULL: those
 * i < n that `only` wants): three passes, the long-lived ones on top,
 * then the brief ones just under them, then the others.  (A row a later
 * pass takes is free of what the earlier passes put there: the rows'
 * free times are those of their latest threads.) */
static int place_all(struct weft_layout *l, const struct shared *sh,
		     const uint8_t *only, const uint32_t *list, uint32_t count)
{
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(l->m, &n);
	l->nth = n;
	if (!list)
		count = n;
	int rc = 0;
	for (int pass = 1; pass <= 3 && !rc; pass++) {
		for (uint32_t k = 0; k < count && !rc; k++) {
			uint32_t i = list ? list[k] : k;
			if ((list || want(th, only, i)) && sh->pass[i] == pass)
				rc = place(l, th, i,
					   choose(l, th, i, pass == 1));
		}
		if (pass == 1)
			l->top = l->nrows;
	}
	return rc;
}

int weft_layout_new(struct weft_layout **out, const struct weft_model *m,
		    const uint8_t *only)
{
	*out = NULL;
	struct weft_layout *l = calloc(1, sizeof *l);
	if (!l)
		return -ENOMEM;
	l->m = m;
	uint32_t n;
	weft_model_threads(m, &n);
	struct shared sh;
	int rc = thread_room(l, n + 1);
	if (!rc) {
		for (uint32_t i = 0; i < n; i++)
			l->row[i] = -1;
		rc = shared_make(m, &sh);
	}
	if (!rc) {
		rc = take_brief(l, sh.brief, sh.nbrief);
		if (!rc)
			rc = place_all(l, &sh, only, NULL, 0);
		shared_free(&sh);
	}
	if (rc) {
		weft_layout_free(l);
		return rc;
	}
	*out = l;
	return 0;
}

/* A layout for group members: empty, the brief kinds given. */
static struct weft_layout *group_layout(const struct weft_model *m,
					const uint8_t *brief, uint32_t nbrief)
{
	struct weft_layout *l = calloc(1, sizeof *l);
	if (!l || take_brief(l, brief, nbrief)) {
		free(l);
		return NULL;
	}
	l->m = m;
	return l;
}

/* Thread x joins group layout l (after every member it has). */
static int join(struct weft_layout *l, uint32_t x)
{
	if (l->nmem == l->cmem) {
		/* two arrays of one capacity: it grows when both have */
		uint32_t c = l->cmem, c2 = l->cmem;
		if (WEFT_GROW32(l->mem, c, (size_t)l->nmem + 1) ||
		    WEFT_GROW32(l->row, c2, (size_t)l->nmem + 1))
			return -ENOMEM;
		l->cmem = l->cth = c;
	}
	l->mem[l->nmem] = x;
	l->row[l->nmem++] = -1;
	return 0;
}

int weft_layout_new_groups(struct weft_layout **out, uint32_t ngroups,
			   const struct weft_model *m, const uint32_t *group)
{
	memset(out, 0, ngroups * sizeof *out);
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(m, &n);
	struct shared sh;
	int rc = shared_make(m, &sh);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < n && !rc; i++) {
		uint32_t g = group[i];
		if (g >= ngroups || is_root(&th[i]))
			continue;
		if (!out[g] && !(out[g] = group_layout(m, sh.brief, sh.nbrief)))
			rc = -ENOMEM;
		else
			rc = join(out[g], i);
	}
	for (uint32_t g = 0; g < ngroups && !rc; g++)
		if (out[g])
			rc = place_all(out[g], &sh, NULL, out[g]->mem,
				       out[g]->nmem);
	shared_free(&sh);
	if (rc)
		for (uint32_t g = 0; g < ngroups; g++) {
			weft_layout_free(out[g]);
			out[g] = NULL;
		}
	return rc;
}

int weft_layout_update_groups(struct weft_layout **out, uint32_t ngroups,
			      const struct weft_model *m, const uint32_t *group,
			      uint32_t from)
{
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(m, &n);
	/* the rows' last threads may have ended since */
	for (uint32_t g = 0; g < ngroups; g++) {
		struct weft_layout *l = out[g];
		for (uint32_t r = 0; l && r < l->nrows; r++)
			tree_set(l, r, free_at(&th[l->last[r]]));
		if (l)
			l->nth = n;
	}
	/* a group with no layout yet (its threads are all new): a first
	 * layout of them, as weft_layout_new() would make it */
	struct shared sh;
	int fresh = 0, rc = 0;
	for (uint32_t i = from; i < n && !fresh; i++)
		fresh = group[i] < ngroups && !out[group[i]] &&
			!is_root(&th[i]);
	if (fresh && (rc = shared_make(m, &sh)))
		return rc;
	for (uint32_t i = from; i < n && !rc; i++) {
		uint32_t g = group[i];
		if (g >= ngroups || is_root(&th[i]))
			continue;
		if (!out[g]) {
			if (!(out[g] = group_layout(m, sh.brief, sh.nbrief))) {
				rc = -ENOMEM;
				break;
			}
			out[g]->fresh = 1;
		}
		rc = join(out[g], i);
		if (!rc && !out[g]->fresh)
			rc = place(out[g], th, i, choose(out[g], th, i, 0));
	}
	for (uint32_t g = 0; g < ngroups && fresh; g++)
		if (out[g] && out[g]->fresh) {
			out[g]->fresh = 0;
			if (!rc)
				rc = place_all(out[g], &sh, NULL, out[g]->mem,
					       out[g]->nmem);
		}
	if (fresh)
		shared_free(&sh);
	return rc;
}

const uint32_t *weft_layout_members(const struct weft_layout *l,
				    const int32_t **rows, uint32_t *n)
{
	*rows = l->mem ? l->row : NULL;
	*n = l->mem ? l->nmem : 0;
	return l->mem;
}

int weft_layout_update(struct weft_layout *l, const uint8_t *only)
{
	if (l->mem)
		return -EINVAL; /* (a group's: weft_layout_update_groups) */
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(l->m, &n);
	if (n <= l->nth)
		return 0;
	if (thread_room(l, n + 1))
		return -ENOMEM;
	/* the rows' last threads may have ended since */
	for (uint32_t r = 0; r < l->nrows; r++)
		tree_set(l, r, free_at(&th[l->last[r]]));
	uint32_t from = l->nth;
	for (uint32_t i = from; i < n; i++)
		l->row[i] = -1;
	l->nth = n;
	for (uint32_t i = from; i < n; i++)
		if (want(th, only, i)) {
			int rc = place(l, th, i, choose(l, th, i, 0));
			if (rc)
				return rc;
		}
	return 0;
}

void weft_layout_free(struct weft_layout *l)
{
	if (!l)
		return;
	free(l->row);
	free(l->mem);
	free(l->last);
	free(l->tree);
	free(l->brief);
	free(l);
}

const int32_t *weft_layout_rows(const struct weft_layout *l, uint32_t *n)
{
	*n = l->mem ? 0 : l->nth;
	return l->mem ? NULL : l->row;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

void weft_layout_info(const struct weft_layout *l, struct weft_layout_info *in)
{
	memset(in, 0, sizeof *in);
	in->rows = l->nrows;
	in->top = l->top;
	in->threads = l->nlaid;
}

int weft_layout_peak(const struct weft_layout *l, uint32_t *peak)
{
	/* a sweep over the creations (in order already) and the ends
	 * (sorted) */
	*peak = 0;
	uint32_t n, k = 0;
	const struct weft_thread *th = weft_model_threads(l->m, &n);
	int64_t *ends = malloc(((size_t)l->nlaid + 1) * sizeof *ends);
	if (!ends)
		return -ENOMEM;
	/* (the threads it covers: every one, or a group's members) */
	uint32_t cover = l->mem ? l->nmem : l->nth;
	for (uint32_t j = 0; j < cover; j++) {
		uint32_t i = l->mem ? l->mem[j] : j;
		if (i < n && l->row[j] >= 0)
			ends[k++] = th[i].end == WEFT_END_PENDING ? FOREVER
								  : th[i].t_end;
	}
	qsort(ends, k, sizeof *ends, cmp_i64);
	uint32_t alive = 0, e = 0;
	for (uint32_t j = 0; j < cover; j++) {
		uint32_t i = l->mem ? l->mem[j] : j;
		if (i >= n || l->row[j] < 0)
			continue;
		/* (a thread that ends as another begins is not alive with
		 * it: the next activation of a source) */
		while (e < k && ends[e] <= th[i].t_create) {
			e++;
			alive -= alive > 0;
		}
		if (++alive > *peak)
			*peak = alive;
	}
	free(ends);
	return 0;
}
