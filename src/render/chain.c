/* SPDX-License-Identifier: MIT */
/*
 * chain.c - the causal chain of a thread, and showing only it.
 */
#include <stdlib.h>
#include <string.h>

#include "view-internal.h"

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
		weft__relayout(v);
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
		weft__relayout(v);
	else
		weft__tset_build(v, &v->chain, v->chm, NULL);
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
		weft__relayout(v);
	v->focus = 0;
	if (v->selected < v->nthreads && v->row[v->selected] >= 0)
		v->focus = v->row[v->selected];
}
