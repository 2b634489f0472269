/* SPDX-License-Identifier: MIT */
/*
 * path.c - the critical path of an async thread: its life walked back
 * from its end, split into running, ready and waiting, and each wait
 * explained by the thread that ended it (path.h).
 *
 * A different walk from the causal chain: that one collects everything
 * that touched a thread; this one follows, at each moment, the one thread
 * the subject was held up by.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weft/path.h"
#include "common/grow.h"

#define MAX_SEGS (1u << 20)

const char *weft_path_state_name(int state)
{
	switch (state) {
	case WEFT_PATH_RUNNING:
		return "running";
	case WEFT_PATH_READY:
		return "ready";
	case WEFT_PATH_WAITING:
		return "waiting";
	case WEFT_PATH_OTHER:
		return "other";
	}
	return "?";
}

struct weft_path_index {
	const struct weft_model *m;
	uint32_t nst;
	uint32_t *st_off, *st_run; /* per OS thread: its runs by start */
	const struct weft_interval *idle;
	uint32_t *id_off, *id_iv; /* per OS thread: its idle times by start */
};

void weft_path_index_free(struct weft_path_index *ix)
{
	if (!ix)
		return;
	free(ix->st_off);
	free(ix->st_run);
	free(ix->id_off);
	free(ix->id_iv);
	free(ix);
}

/* Per OS thread, its idle times (blocked: in poll) by start: one OS
 * thread's are disjoint and the model adds each as it ends, so in the
 * model's order they are by start already (a stable bucketing keeps it). */
static int index_idle(struct weft_path_index *ix)
{
	uint32_t n;
	ix->idle = weft_model_intervals(ix->m, WEFT_INTERVAL_IDLE, &n);
	ix->id_off = calloc((size_t)ix->nst + 2, sizeof *ix->id_off);
	ix->id_iv = malloc(((size_t)n + 1) * sizeof *ix->id_iv);
	uint32_t *fill = calloc((size_t)ix->nst + 1, sizeof *fill);
	if (!ix->id_off || !ix->id_iv || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		if (ix->idle[i].stream < ix->nst)
			ix->id_off[ix->idle[i].stream + 1]++;
	for (uint32_t s = 0; s < ix->nst; s++)
		ix->id_off[s + 1] += ix->id_off[s];
	for (uint32_t i = 0; i < n; i++)
		if (ix->idle[i].stream < ix->nst) {
			uint32_t s = ix->idle[i].stream;
			ix->id_iv[ix->id_off[s] + fill[s]++] = i;
		}
	free(fill);
	return 0;
}

int weft_path_index_new(struct weft_path_index **out,
			const struct weft_model *m)
{
	*out = NULL;
	uint32_t nrun, nst;
	const struct weft_run *run = weft_model_runs(m, &nrun);
	weft_model_streams(m, &nst);
	struct weft_path_index *ix = calloc(1, sizeof *ix);
	if (!ix)
		return -ENOMEM;
	ix->m = m;
	ix->nst = nst;
	ix->st_off = calloc((size_t)nst + 2, sizeof *ix->st_off);
	ix->st_run = malloc(((size_t)nrun + 1) * sizeof *ix->st_run);
	uint32_t *fill = calloc((size_t)nst + 1, sizeof *fill);
	if (!ix->st_off || !ix->st_run || !fill) {
		free(fill);
		weft_path_index_free(ix);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < nrun; i++)
		if (run[i].stream < nst)
			ix->st_off[run[i].stream + 1]++;
	for (uint32_t s = 0; s < nst; s++)
		ix->st_off[s + 1] += ix->st_off[s];
	for (uint32_t i = 0; i < nrun; i++) /* runs are by start */
		if (run[i].stream < nst) {
			uint32_t s = run[i].stream;
			ix->st_run[ix->st_off[s] + fill[s]++] = i;
		}
	free(fill);
	if (index_idle(ix)) {
		weft_path_index_free(ix);
		return -ENOMEM;
	}
	*out = ix;
	return 0;
}

struct walk {
	const struct weft_path_index *ix;
	const struct weft_model *m;
	const struct weft_thread *th;
	uint32_t nth;
	const struct weft_run *run;
	const struct weft_arrow *arr;
	struct weft_path_seg *seg;
	uint32_t nseg, cseg;
	int oom;
};

static void emit(struct walk *w, int64_t t0, int64_t t1, uint32_t thread,
		 uint32_t on, uint32_t depth, int state)
{
	if (t1 <= t0 || w->oom || w->nseg >= MAX_SEGS)
		return;
	if (weft__grow32(&w->seg, &w->cseg, (size_t)w->nseg + 1, sizeof *w->seg,
			 64)) {
		w->oom = 1;
		return;
	}
	struct weft_path_seg *s = &w->seg[w->nseg++];
	s->t0 = t0;
	s->t1 = t1;
	s->thread = thread;
	s->on = on;
	s->depth = depth;
	s->state = (uint32_t)state;
	s->idle = 0;
}

static int is_root(const struct walk *w, uint32_t t)
{
	return t >= w->nth || (w->th[t].flags & WEFT_THREAD_ROOT);
}

/* x's last run that began before t (index into its runs), or -1. */
static int64_t run_before(const struct walk *w, uint32_t x, int64_t t,
			  const uint32_t *ix, uint32_t n)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (w->run[ix[mid]].t0 < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	(void)x;
	return (int64_t)lo - 1;
}

/* What x waited on at time t: its last try_read at or before t that no
 * read of the same thread by x answered by then.  *tw: when. */
static uint32_t waiting_on(const struct walk *w, uint32_t x, int64_t t,
			   int64_t *tw)
{
	uint32_t n;
	const uint32_t *ix = weft_model_thread_arrows(w->m, x, &n);
	uint32_t target = WEFT_NONE;
	for (uint32_t k = 0; k < n; k++) {
		const struct weft_arrow *a = &w->arr[ix[k]];
		if (a->t > t)
			break;
		if (a->kind == WEFT_ARROW_TRY_READ && a->from == x) {
			target = a->to;
			*tw = a->t;
		} else if ((a->kind == WEFT_ARROW_READ ||
			    a->kind == WEFT_ARROW_READ_FAILED) &&
			   a->to == x && a->from == target && a->t < t)
			target = WEFT_NONE;
	}
	return target;
}

/* The last arrow of `kinds` (a bit mask) into x in [t0, t1], or NONE. */
static uint32_t last_into(const struct walk *w, uint32_t x, unsigned kinds,
			  int64_t t0, int64_t t1)
{
	uint32_t n;
	const uint32_t *ix = weft_model_thread_arrows(w->m, x, &n);
	uint32_t found = WEFT_NONE;
	for (uint32_t k = 0; k < n; k++) {
		const struct weft_arrow *a = &w->arr[ix[k]];
		if (a->t > t1)
			break;
		if (a->t >= t0 && a->to == x && ((1u << a->kind) & kinds))
			found = ix[k];
	}
	return found;
}

/* What ran longest on OS thread s in [a, b], other than x (NONE: none,
 * the OS thread was idle). */
static uint32_t instead(const struct walk *w, uint32_t s, uint32_t x, int64_t a,
			int64_t b)
{
	const struct weft_path_index *ix = w->ix;
	if (s >= ix->nst)
		return WEFT_NONE;
	const uint32_t *r = ix->st_run + ix->st_off[s];
	uint32_t n = ix->st_off[s + 1] - ix->st_off[s];
	uint32_t lo = 0, hi = n;
	while (lo < hi) { /* the first run that begins at or after b */
		uint32_t mid = lo + (hi - lo) / 2;
		if (w->run[r[mid]].t0 < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint32_t best = WEFT_NONE;
	int64_t most = 0;
	for (uint32_t k = lo, seen = 0; k-- > 0 && seen < 100000; seen++) {
		const struct weft_run *x1 = &w->run[r[k]];
		if (x1->t1 <= a) {
			/* runs of one OS thread do not overlap: done */
			break;
		}
		int64_t o =
			(x1->t1 < b ? x1->t1 : b) - (x1->t0 > a ? x1->t0 : a);
		if (x1->thread != x && o > most) {
			most = o;
			best = x1->thread;
		}
	}
	return best;
}

/* The end of the last idle time (blocked: in poll) of OS thread s that
 * overlaps [a, b], at most b; a when none.  *reason: its name. */
static int64_t idle_end(const struct walk *w, uint32_t s, int64_t a, int64_t b,
			uint32_t *reason)
{
	const struct weft_path_index *ix = w->ix;
	*reason = 0;
	if (s >= ix->nst)
		return a;
	const uint32_t *v = ix->id_iv + ix->id_off[s];
	uint32_t lo = 0, hi = ix->id_off[s + 1] - ix->id_off[s];
	while (lo < hi) { /* the first that begins at or after b */
		uint32_t mid = lo + (hi - lo) / 2;
		if (ix->idle[v[mid]].t0 < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return a;
	const struct weft_interval *iv = &ix->idle[v[lo - 1]];
	if (iv->t1 <= a) /* (disjoint and by start: the others end before) */
		return a;
	*reason = iv->name;
	return iv->t1 < b ? iv->t1 : b;
}

/* The OS thread x ran on next after t (else where it was created). */
static uint32_t next_stream(const struct walk *w, uint32_t x, int64_t t,
			    const uint32_t *ix, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		if (w->run[ix[k]].t0 >= t)
			return w->run[ix[k]].stream;
	return w->th[x].stream;
}

static void walk(struct walk *w, uint32_t x, int64_t lo, int64_t hi,
		 uint32_t depth, int subject)
{
	if (is_root(w, x) || depth >= WEFT_PATH_MAX_DEPTH || w->oom)
		return;
	const struct weft_thread *tx = &w->th[x];
	if (lo < tx->t_create)
		lo = tx->t_create;
	uint32_t nr;
	const uint32_t *rx = weft_model_thread_runs(w->m, x, &nr);
	int64_t t = hi;
	for (uint32_t guard = 0; t > lo && guard < 100000 && !w->oom; guard++) {
		int64_t k = run_before(w, x, t, rx, nr);
		const struct weft_run *r = k >= 0 ? &w->run[rx[k]] : NULL;
		if (r && r->t1 >= t) {
			int64_t a = r->t0 > lo ? r->t0 : lo;
			emit(w, a, t, x, WEFT_NONE, depth, WEFT_PATH_RUNNING);
			t = a;
			subject = 0;
			continue;
		}
		int64_t gs = r ? r->t1 : tx->t_create;
		if (gs < lo)
			gs = lo;
		uint32_t s = next_stream(w, x, t, rx, nr);
		/* Ended by another thread, not while it ran: it waited on
		 * that one (a promise, a request the loop completes). */
		if (subject && tx->end != WEFT_END_PENDING && t == tx->t_end) {
			uint32_t e = last_into(w, x,
					       1u << WEFT_ARROW_RESOLVE |
						       1u << WEFT_ARROW_FAIL |
						       1u << WEFT_ARROW_CANCEL,
					       t, t);
			subject = 0;
			if (e != WEFT_NONE && w->arr[e].from != x) {
				uint32_t by = w->arr[e].from;
				emit(w, gs, t, x, by, depth, WEFT_PATH_WAITING);
				walk(w, by, gs, t, depth + 1, 0);
				t = gs;
				continue;
			}
		}
		subject = 0;
		int64_t tw = 0;
		uint32_t on = waiting_on(w, x, gs, &tw);
		if (on != WEFT_NONE && !is_root(w, on)) {
			/* Woken when it ended, or by a signal into it. */
			const struct weft_thread *to = &w->th[on];
			int64_t te = -1;
			uint32_t waker = WEFT_NONE;
			if (to->end != WEFT_END_PENDING && to->t_end <= t &&
			    to->t_end >= tw) {
				te = to->t_end;
				uint32_t e = last_into(
					w, on,
					1u << WEFT_ARROW_RESOLVE |
						1u << WEFT_ARROW_FAIL |
						1u << WEFT_ARROW_CANCEL,
					te, te);
				waker = e != WEFT_NONE ? w->arr[e].from : on;
			} else {
				uint32_t e = last_into(
					w, on, 1u << WEFT_ARROW_SIGNAL, tw, t);
				if (e != WEFT_NONE) {
					te = w->arr[e].t;
					waker = w->arr[e].from;
				}
			}
			if (te < 0) {
				te = t;
				waker = on;
			}
			if (te < gs)
				te = gs;
			if (te < t)
				emit(w, te, t, x, instead(w, s, x, te, t),
				     depth, WEFT_PATH_READY);
			emit(w, gs, te, x, on, depth, WEFT_PATH_WAITING);
			/* The thread that did the waking explains the wait;
			 * an OS thread or the awaited one itself: the
			 * awaited one. */
			walk(w, is_root(w, waker) ? on : waker, gs, te,
			     depth + 1, 0);
			t = gs;
			continue;
		}
		uint32_t sig = last_into(w, x, 1u << WEFT_ARROW_SIGNAL, gs, t);
		if (sig != WEFT_NONE) {
			int64_t ts = w->arr[sig].t;
			uint32_t by = w->arr[sig].from;
			/* (what never runs is never ready: signalled, it
			 * waits on for what would resolve it) */
			if (nr)
				emit(w, ts, t, x, instead(w, s, x, ts, t),
				     depth, WEFT_PATH_READY);
			else
				emit(w, ts, t, x, WEFT_NONE, depth,
				     WEFT_PATH_WAITING);
			emit(w, gs, ts, x, by, depth, WEFT_PATH_WAITING);
			walk(w, by, gs, ts, depth + 1, 0);
			t = gs;
			continue;
		}
		if (!nr) {
			/* It never runs (a condition, a promise, a request
			 * nothing resolved yet): never ready, it waits for
			 * what no one did (signal, resolve it). */
			emit(w, gs, t, x, WEFT_NONE, depth, WEFT_PATH_WAITING);
			t = gs;
			continue;
		}
		/* Its OS thread blocked (in poll) after gs: until it woke, x
		 * waited for an event (had x been ready, its loop would not
		 * have blocked): a timer not due, a read with no bytes.
		 * After, it was ready while its OS thread ran something else
		 * (a loop whose callback runs; a thread created, not run
		 * yet); else no recorded wait explains it. */
		uint32_t why;
		int64_t ie = idle_end(w, s, gs, t, &why);
		uint32_t ran = instead(w, s, x, ie, t);
		emit(w, ie, t, x, ran, depth,
		     ran != WEFT_NONE || !r ? WEFT_PATH_READY
					    : WEFT_PATH_OTHER);
		emit(w, gs, ie, x, WEFT_NONE, depth, WEFT_PATH_WAITING);
		if (ie > gs && !w->oom && w->nseg &&
		    w->seg[w->nseg - 1].t1 == ie)
			w->seg[w->nseg - 1].idle = why;
		t = gs;
	}
}

static int cmp_seg(const void *a, const void *b)
{
	const struct weft_path_seg *x = a, *y = b;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

int weft_path_at(const struct weft_path_index *ix, uint32_t thread,
		 struct weft_path *p)
{
	memset(p, 0, sizeof *p);
	struct walk w = {0};
	w.ix = ix;
	w.m = ix->m;
	w.th = weft_model_threads(w.m, &w.nth);
	uint32_t n;
	w.run = weft_model_runs(w.m, &n);
	w.arr = weft_model_arrows(w.m, &n);
	if (is_root(&w, thread))
		return WEFT_EINVAL;
	int64_t t0, t1;
	weft_model_range(w.m, &t0, &t1);
	const struct weft_thread *x = &w.th[thread];
	p->subject = thread;
	p->t0 = x->t_create;
	p->t1 = x->end == WEFT_END_PENDING ? t1 : x->t_end;
	walk(&w, thread, p->t0, p->t1, 0, 1);
	if (w.oom) {
		free(w.seg);
		return -ENOMEM;
	}
	if (w.nseg > 1)
		qsort(w.seg, w.nseg, sizeof *w.seg, cmp_seg);
	for (uint32_t i = 0; i < w.nseg && !w.seg[i].depth; i++)
		p->total[w.seg[i].state] += w.seg[i].t1 - w.seg[i].t0;
	p->seg = w.seg;
	p->nseg = w.nseg;
	return 0;
}

int weft_path(const struct weft_model *m, uint32_t thread, struct weft_path *p)
{
	struct weft_path_index *ix;
	int rc = weft_path_index_new(&ix, m);
	if (rc) {
		memset(p, 0, sizeof *p);
		return rc;
	}
	rc = weft_path_at(ix, thread, p);
	weft_path_index_free(ix);
	return rc;
}

void weft_path_release(struct weft_path *p)
{
	if (!p)
		return;
	free(p->seg);
	p->seg = NULL;
	p->nseg = 0;
}
