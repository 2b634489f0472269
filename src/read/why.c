/* SPDX-License-Identifier: MIT */
/*
 * why.c - why is an async thread still pending: the chain of waits from
 * it to the root blocker, and a verdict from the evidence (model.h).
 *
 * A verdict states only what the trace shows.  What "shows" means here:
 *   - a creation that is not in the trace is a loss only if the reader
 *     counted a loss that may hold it; in a trace with no losses, a
 *     thread never created was never created (a loop run as a thread);
 *   - a loss hides events where it may lie: a gap of packets before the
 *     point it is reported at, events dropped by the writer after it (and,
 *     on an OS thread that dropped events in signal handlers, within the
 *     packet before it).  Only a loss that may hide events after the
 *     chain's first creation can hide its evidence;
 *   - being pending when the trace ends is a fault only against what the
 *     trace shows can take that long: a blocker younger than the longest
 *     finished thread of its kind, a woken waiter that had been ready for
 *     less than woken waiters took to read, are in flight;
 *   - a thread that waits on nothing, that nothing waits on and that
 *     nothing says should resolve is no fault at all.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weft/model.h"

const char *weft_verdict_name(int v)
{
	switch (v) {
	case WEFT_VERDICT_OK:
		return "ok";
	case WEFT_VERDICT_LOST_WAKEUP:
		return "lost wake-up";
	case WEFT_VERDICT_NEVER_RESOLVED:
		return "never resolved";
	case WEFT_VERDICT_DEADLOCK:
		return "deadlock";
	case WEFT_VERDICT_FAILED_UPSTREAM:
		return "failed upstream";
	case WEFT_VERDICT_TRUNCATED:
		return "truncated";
	case WEFT_VERDICT_IN_FLIGHT:
		return "in flight";
	case WEFT_VERDICT_UNAWAITED:
		return "not awaited";
	}
	return "?";
}

struct weft_why_index {
	const struct weft_model *m;
	uint32_t nth;
	uint32_t *awaited_by; /* per thread: a pending thread waiting on it */
	int64_t *awaited_since;
	uint32_t *kind_of; /* per thread: its kind, canonical by text */
	int64_t *longest;  /* per canonical kind: longest finished life */
	uint32_t nkinds;
	int64_t ready_max;     /* longest a woken waiter took to read; -1 */
	uint8_t *nested;       /* per stream: it dropped events in handlers */
	int64_t *stream_end;   /* per stream: its last event's time */
	uint32_t *last_stream; /* per thread: the OS thread of its last run */
	uint32_t nstreams;
};

/* Follows becomes to the thread that stands for `t` now. */
static uint32_t successor(const struct weft_model *m, uint32_t t)
{
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(m, &n);
	for (int hops = 0; t < n && th[t].end == WEFT_END_BECAME &&
			   th[t].became != WEFT_NONE && hops < 1000;
	     hops++)
		t = th[t].became;
	return t;
}

/* The thread `t` waits on: the target of its last try_read that no read
 * of that target by `t` answered.  *since gets the try_read's time,
 * *flags its arrow's flags. */
static uint32_t waits_on(const struct weft_model *m, uint32_t t, int64_t *since,
			 unsigned *flags)
{
	uint32_t na, n;
	const struct weft_arrow *a = weft_model_arrows(m, &na);
	const uint32_t *idx = weft_model_thread_arrows(m, t, &n);
	uint32_t target = WEFT_NONE;
	for (uint32_t k = 0; k < n; k++) {
		const struct weft_arrow *x = &a[idx[k]];
		if (x->kind == WEFT_ARROW_TRY_READ && x->from == t) {
			target = x->to;
			/* (a wait on another process is made at the end of
			 * the trace; it began when the reply was awaited) */
			*since = x->flags & WEFT_ARROW_MESSAGE
					 ? weft_model_arrow_sent(m, idx[k])
					 : x->t;
			*flags = x->flags;
		} else if ((x->kind == WEFT_ARROW_READ ||
			    x->kind == WEFT_ARROW_READ_FAILED) &&
			   x->to == t && x->from == target)
			target = WEFT_NONE;
	}
	return target;
}

/* What an ended thread `t` started that still is pending: the latest
 * created among its descendants (along creation arrows, a bounded walk),
 * but not another activation of its own kind nor what that one started
 * (a read that fired arms the next read: that one waits for the next
 * request, or the end of the stream, not on this one). */
static uint32_t pending_work(const struct weft_model *m, uint32_t t)
{
	uint32_t nth, na;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_arrow *a = weft_model_arrows(m, &na);
	uint32_t queue[4096], head = 0, tail = 0, best = WEFT_NONE;
	queue[tail++] = t;
	while (head < tail) {
		uint32_t x = queue[head++], n;
		const uint32_t *idx = weft_model_thread_arrows(m, x, &n);
		for (uint32_t k = 0; k < n; k++) {
			const struct weft_arrow *c = &a[idx[k]];
			if (c->kind != WEFT_ARROW_CREATE || c->from != x ||
			    c->to >= nth)
				continue;
			uint32_t y = c->to;
			if (th[y].end == WEFT_END_PENDING &&
			    th[y].kind != th[t].kind &&
			    (best == WEFT_NONE ||
			     th[y].t_create >= th[best].t_create))
				best = y;
			if (th[y].kind != th[t].kind &&
			    tail < sizeof queue / sizeof *queue)
				queue[tail++] = y;
		}
	}
	return best;
}

static int is_read(int kind)
{
	return kind == WEFT_ARROW_READ || kind == WEFT_ARROW_READ_FAILED;
}

/* The time of the last signal into x at or before `t` and not before
 * `from`, or -1 (a bounded look back: a hub has many arrows). */
static int64_t signalled_between(const struct weft_model *m, uint32_t x,
				 int64_t from, int64_t t)
{
	uint32_t na, n;
	const struct weft_arrow *a = weft_model_arrows(m, &na);
	const uint32_t *idx = weft_model_thread_arrows(m, x, &n);
	uint32_t lo = 0, hi = n;
	while (lo < hi) { /* first arrow after t */
		uint32_t mid = lo + (hi - lo) / 2;
		if (a[idx[mid]].t <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t k = lo, seen = 0; k-- > 0 && seen < 4096; seen++) {
		const struct weft_arrow *y = &a[idx[k]];
		if (y->t < from)
			break;
		if (y->kind == WEFT_ARROW_SIGNAL && y->to == x)
			return y->t;
	}
	return -1;
}

/* A small table of kind names, so that two ids with one text (names are
 * interned by address) are one kind. */
static uint32_t canon_kind(const struct weft_model *m, uint32_t kind,
			   uint32_t *canon, uint32_t ccanon, uint32_t *names,
			   uint32_t *nnames)
{
	if (!kind)
		return WEFT_NONE;
	if (kind < ccanon && canon[kind])
		return canon[kind] - 1;
	const char *s = weft_model_name(m, kind);
	uint32_t c = WEFT_NONE;
	for (uint32_t i = 0; i < *nnames; i++)
		if (!strcmp(weft_model_name(m, names[i]), s)) {
			c = i;
			break;
		}
	if (c == WEFT_NONE) {
		c = (*nnames)++;
		names[c] = kind;
	}
	if (kind < ccanon)
		canon[kind] = c + 1;
	return c;
}

void weft_why_index_free(struct weft_why_index *ix)
{
	if (!ix)
		return;
	free(ix->awaited_by);
	free(ix->awaited_since);
	free(ix->kind_of);
	free(ix->longest);
	free(ix->nested);
	free(ix->stream_end);
	free(ix->last_stream);
	free(ix);
}

int weft_why_index_new(struct weft_why_index **out, const struct weft_model *m)
{
	*out = NULL;
	uint32_t nth, na, nst;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_arrow *a = weft_model_arrows(m, &na);
	weft_model_streams(m, &nst);
	struct weft_why_index *ix = calloc(1, sizeof *ix);
	if (!ix)
		return -ENOMEM;
	ix->m = m;
	ix->nth = nth;
	ix->ready_max = -1;
	ix->awaited_by = malloc(((size_t)nth + 1) * sizeof *ix->awaited_by);
	ix->awaited_since = malloc(((size_t)nth + 1) * sizeof(int64_t));
	ix->kind_of = malloc(((size_t)nth + 1) * sizeof *ix->kind_of);
	ix->nested = calloc((size_t)nst + 1, 1);
	ix->stream_end = malloc(((size_t)nst + 1) * sizeof *ix->stream_end);
	ix->last_stream = malloc(((size_t)nth + 1) * sizeof *ix->last_stream);
	/* Kinds are 16-bit name ids in a trace; a model may say more. */
	uint32_t maxkind = 0;
	for (uint32_t i = 0; i < nth; i++)
		if (th[i].kind > maxkind)
			maxkind = th[i].kind;
	uint32_t ccanon = maxkind < (1u << 20) ? maxkind + 1 : 1u << 20;
	uint32_t *canon = calloc(ccanon, sizeof *canon);
	uint32_t *names = malloc(((size_t)ccanon + 1) * sizeof *names);
	ix->longest = malloc(((size_t)ccanon + 1) * sizeof *ix->longest);
	if (!ix->awaited_by || !ix->awaited_since || !ix->kind_of ||
	    !ix->nested || !canon || !names || !ix->longest ||
	    !ix->stream_end || !ix->last_stream) {
		free(canon);
		free(names);
		weft_why_index_free(ix);
		return -ENOMEM;
	}
	ix->nstreams = nst;
	struct weft_reader *r = weft_model_reader(m);
	const struct weft_trace_info *in = r ? weft_reader_info(r) : NULL;
	for (uint32_t s = 0; in && s < nst && s < in->nstreams; s++)
		ix->nested[s] = in->streams[s].losses.events_nested > 0;
	/* Where each OS thread's trace ends: its last run, arrow or idle
	 * period (a loop that stopped recording while a worker went on
	 * shows nothing after). */
	int64_t t0, t1;
	weft_model_range(m, &t0, &t1);
	for (uint32_t s = 0; s < nst; s++)
		ix->stream_end[s] = t0;
	uint32_t nrun, niv;
	const struct weft_run *run = weft_model_runs(m, &nrun);
	const struct weft_interval *iv =
		weft_model_intervals(m, WEFT_INTERVAL_IDLE, &niv);
	for (uint32_t i = 0; i < nth; i++)
		ix->last_stream[i] = th[i].stream;
	for (uint32_t i = 0; i < nrun; i++) {
		if (run[i].stream < nst &&
		    run[i].t1 > ix->stream_end[run[i].stream])
			ix->stream_end[run[i].stream] = run[i].t1;
		if (run[i].thread < nth)
			ix->last_stream[run[i].thread] = run[i].stream;
	}
	for (uint32_t i = 0; i < na; i++)
		if (a[i].stream < nst && a[i].t > ix->stream_end[a[i].stream])
			ix->stream_end[a[i].stream] = a[i].t;
	for (uint32_t i = 0; i < niv; i++)
		if (iv[i].stream < nst &&
		    iv[i].t1 > ix->stream_end[iv[i].stream])
			ix->stream_end[iv[i].stream] = iv[i].t1;

	for (uint32_t i = 0; i < nth; i++) {
		ix->awaited_by[i] = WEFT_NONE;
		uint32_t k = th[i].kind < ccanon
				     ? canon_kind(m, th[i].kind, canon, ccanon,
						  names, &ix->nkinds)
				     : WEFT_NONE;
		ix->kind_of[i] = k;
	}
	for (uint32_t k = 0; k < ix->nkinds; k++)
		ix->longest[k] = -1;
	free(canon);
	free(names);

	for (uint32_t i = 0; i < nth; i++) {
		const struct weft_thread *t = &th[i];
		if (t->flags & (WEFT_THREAD_ROOT | WEFT_THREAD_NO_CREATE))
			continue;
		/* Finished: ended by something, not replaced or turned
		 * into another. */
		if ((t->end == WEFT_END_RESOLVED || t->end == WEFT_END_FAILED ||
		     t->end == WEFT_END_CANCELLED) &&
		    ix->kind_of[i] != WEFT_NONE) {
			int64_t life = t->t_end - t->t_create;
			if (life > ix->longest[ix->kind_of[i]])
				ix->longest[ix->kind_of[i]] = life;
		}
	}

	/* Each thread's open wait (its latest try_read not yet answered
	 * by a read of that source), through the arrows in order: what a
	 * walk of each thread's own arrows finds, without its cache
	 * misses. */
	uint32_t *target = malloc(((size_t)nth + 1) * sizeof *target);
	int64_t *tw = malloc(((size_t)nth + 1) * sizeof *tw);
	if (!target || !tw) {
		free(target);
		free(tw);
		weft_why_index_free(ix);
		return -ENOMEM;
	}
	memset(target, 0xff, ((size_t)nth + 1) * sizeof *target); /* NONE */
	for (uint32_t k = 0; k < na; k++) {
		const struct weft_arrow *x = &a[k];
		if (x->kind == WEFT_ARROW_TRY_READ) {
			uint32_t i = x->from; /* (a root's: never read) */
			if (i < nth) {
				target[i] = x->to;
				tw[i] = x->t;
			}
		} else if (is_read(x->kind)) {
			uint32_t i = x->to;
			if (i >= nth || (th[i].flags & WEFT_THREAD_ROOT) ||
			    x->from != target[i])
				continue;
			/* An answered wait: how long the waiter took to
			 * read once woken. */
			const struct weft_thread *s = &th[target[i]];
			int64_t woke = -1;
			if (s->end != WEFT_END_PENDING && s->t_end <= x->t)
				woke = s->t_end;
			int64_t sig =
				signalled_between(m, target[i], tw[i], x->t);
			if (sig > woke)
				woke = sig;
			if (woke < tw[i])
				woke = tw[i];
			if (x->t - woke > ix->ready_max)
				ix->ready_max = x->t - woke;
			target[i] = WEFT_NONE;
		}
	}
	for (uint32_t i = 0; i < nth; i++) {
		if (th[i].flags & WEFT_THREAD_ROOT)
			continue;
		if (th[i].end == WEFT_END_PENDING && target[i] != WEFT_NONE) {
			uint32_t s = successor(m, target[i]);
			if (s < nth && ix->awaited_by[s] == WEFT_NONE) {
				ix->awaited_by[s] = i;
				ix->awaited_since[s] = tw[i];
			}
		}
	}
	free(target);
	free(tw);
	*out = ix;
	return 0;
}

/* Where the trace of the OS thread(s) `x` lives on ends. */
static int64_t horizon(const struct weft_why_index *ix, uint32_t x)
{
	const struct weft_thread *th =
		weft_model_threads(ix->m, &(uint32_t){0});
	int64_t h = INT64_MIN;
	uint32_t s[2] = {th[x].stream, ix->last_stream[x]};
	for (int k = 0; k < 2; k++)
		if (s[k] < ix->nstreams && ix->stream_end[s[k]] > h)
			h = ix->stream_end[s[k]];
	if (h == INT64_MIN)
		weft_model_range(ix->m, &(int64_t){0}, &h);
	return h;
}

/* Whether loss `l` may hide events at or after `ws` (INT64_MIN: any
 * time), up to the end of the trace t1. */
static int hides(const struct weft_why_index *ix, const struct weft_loss *l,
		 int64_t ws, int64_t t1)
{
	int before = l->t > ws; /* events before l->t, after ws */
	if ((l->packets || (l->flags & WEFT_EVF_PARTIAL)) && before)
		return 1;
	if (l->events) {
		if (l->t < t1) /* dropped after it, while the trace went on */
			return 1;
		if (l->stream < ix->nstreams && ix->nested[l->stream] && before)
			return 1;
	}
	return 0;
}

static uint32_t hiding_loss(const struct weft_why_index *ix, int64_t ws)
{
	uint32_t n;
	const struct weft_loss *l = weft_model_losses(ix->m, &n);
	int64_t t0, t1;
	weft_model_range(ix->m, &t0, &t1);
	for (uint32_t i = 0; i < n; i++)
		if (hides(ix, &l[i], ws, t1))
			return i;
	return WEFT_NONE;
}

int weft_why_at(const struct weft_why_index *ix, uint32_t thread,
		struct weft_why *w)
{
	const struct weft_model *m = ix->m;
	uint32_t nth, na;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_arrow *a = weft_model_arrows(m, &na);
	memset(w, 0, sizeof *w);
	w->evidence = w->waiter = w->awaited_by = w->loss = WEFT_NONE;
	w->cycle = WEFT_NONE;
	w->longest = -1;
	if (thread >= nth || nth != ix->nth)
		return WEFT_EINVAL;
	uint32_t t = successor(m, thread);
	w->thread = t;
	if (th[t].end != WEFT_END_PENDING) {
		w->verdict = WEFT_VERDICT_OK;
		return 0;
	}
	int64_t t0, t1;
	weft_model_range(m, &t0, &t1);

	/* Walk the waits. */
	int cycle = 0, cut = 0, message_hop = 0;
	for (;;) {
		for (uint32_t k = 0; k < w->nchain; k++)
			if (w->chain[k].thread == t) {
				cycle = 1;
				w->cycle = t;
			}
		if (cycle)
			break;
		if (w->nchain == WEFT_WHY_MAX_CHAIN) {
			cut = 1;
			break;
		}
		w->chain[w->nchain].thread = t;
		w->chain[w->nchain].t_wait = 0;
		w->nchain++;
		if (th[t].end != WEFT_END_PENDING) {
			/* A peer process that read our request: what it
			 * started for it and still is pending is what the
			 * reply waits on. */
			uint32_t p = message_hop ? pending_work(m, t)
						 : WEFT_NONE;
			message_hop = 0;
			if (p == WEFT_NONE)
				break; /* ended, and its waiter never read it */
			w->chain[w->nchain - 1].t_wait = th[p].t_create;
			w->t_wait = th[p].t_create;
			t = p;
			continue;
		}
		int64_t since = 0;
		unsigned fl = 0;
		uint32_t next = waits_on(m, t, &since, &fl);
		message_hop = (fl & WEFT_ARROW_MESSAGE) != 0;
		if (next == WEFT_NONE)
			break; /* the root blocker */
		w->chain[w->nchain - 1].t_wait = since;
		w->t_wait = since;
		t = successor(m, next);
	}

	uint32_t b = w->chain[w->nchain - 1].thread;
	/* the chain ends at a peer's reader of the request that ended with
	 * nothing it started pending: the reply never came */
	if (message_hop && th[b].end != WEFT_END_PENDING && !cycle && !cut) {
		w->waiter = w->nchain > 1 ? w->chain[w->nchain - 2].thread
					  : WEFT_NONE;
		w->verdict = WEFT_VERDICT_NEVER_RESOLVED;
		return 0;
	}
	if (w->nchain > 1) {
		w->waiter = w->chain[w->nchain - 2].thread;
	} else if (ix->awaited_by[b] != WEFT_NONE) {
		w->awaited_by = w->waiter = ix->awaited_by[b];
		w->t_wait = ix->awaited_since[b];
	}
	int should = (th[thread].flags | th[w->thread].flags) &
		     WEFT_THREAD_SHOULD_RESOLVE;
	if (w->nchain == 1 && w->waiter == WEFT_NONE && !should) {
		w->verdict = WEFT_VERDICT_UNAWAITED;
		return 0;
	}

	/* What touched the blocker: the last signal or resolution (or
	 * failure, cancellation) into it. */
	uint32_t n;
	const uint32_t *idx = weft_model_thread_arrows(m, b, &n);
	for (uint32_t k = 0; k < n; k++) {
		const struct weft_arrow *x = &a[idx[k]];
		if (x->to == b && (x->kind == WEFT_ARROW_SIGNAL ||
				   x->kind == WEFT_ARROW_RESOLVE ||
				   x->kind == WEFT_ARROW_FAIL ||
				   x->kind == WEFT_ARROW_CANCEL))
			w->evidence = idx[k];
	}

	/* Where the evidence lies: from the first creation among the
	 * threads involved (any time, if one's creation is not there). */
	int64_t ws = INT64_MAX;
	for (uint32_t k = 0; k <= w->nchain; k++) {
		uint32_t x = k < w->nchain ? w->chain[k].thread : w->waiter;
		if (x == WEFT_NONE || x >= nth)
			continue;
		if (th[x].flags & WEFT_THREAD_NO_CREATE)
			ws = INT64_MIN;
		else if (th[x].t_create < ws)
			ws = th[x].t_create;
	}
	w->loss = hiding_loss(ix, ws);
	if (w->loss != WEFT_NONE) {
		w->verdict = WEFT_VERDICT_TRUNCATED;
		return 0;
	}
	if (cycle) {
		w->verdict = WEFT_VERDICT_DEADLOCK;
		return 0;
	}
	if (cut) {
		w->verdict = WEFT_VERDICT_NEVER_RESOLVED;
		return 0;
	}
	if (w->evidence != WEFT_NONE && w->waiter != WEFT_NONE) {
		const struct weft_arrow *e = &a[w->evidence];
		/* Woken while waiting (resolved, failed, signalled): still in
		 * flight if the trace of the waiter's OS thread ends before
		 * it could have read, as far as this trace shows waiters
		 * taking to read once woken. */
		w->horizon = horizon(ix, w->waiter);
		if (e->t >= w->t_wait &&
		    (e->t > w->horizon ||
		     (ix->ready_max >= 0 &&
		      w->horizon - e->t <= ix->ready_max))) {
			w->verdict = WEFT_VERDICT_IN_FLIGHT;
			w->longest = ix->ready_max;
			w->ready = e->t;
			return 0;
		}
		w->verdict = th[b].end == WEFT_END_FAILED
				     ? WEFT_VERDICT_FAILED_UPSTREAM
				     : WEFT_VERDICT_LOST_WAKEUP;
		return 0;
	}
	if (th[b].end == WEFT_END_FAILED) {
		w->verdict = WEFT_VERDICT_FAILED_UPSTREAM;
		return 0;
	}
	w->horizon = horizon(ix, b);
	if (th[b].end == WEFT_END_PENDING && w->evidence == WEFT_NONE &&
	    !(th[b].flags & WEFT_THREAD_NO_CREATE) &&
	    ix->kind_of[b] != WEFT_NONE) {
		int64_t longest = ix->longest[ix->kind_of[b]];
		if (longest >= 0 && w->horizon - th[b].t_create <= longest) {
			w->verdict = WEFT_VERDICT_IN_FLIGHT;
			w->longest = longest;
			return 0;
		}
	}
	w->verdict = WEFT_VERDICT_NEVER_RESOLVED;
	return 0;
}

int weft_why(const struct weft_model *m, uint32_t thread, struct weft_why *w)
{
	struct weft_why_index *ix;
	int rc = weft_why_index_new(&ix, m);
	if (rc) {
		memset(w, 0, sizeof *w);
		return rc;
	}
	rc = weft_why_at(ix, thread, w);
	weft_why_index_free(ix);
	return rc;
}
