/* SPDX-License-Identifier: MIT */
/*
 * why.c - why is an async thread still pending: the chain of waits from
 * it to the root blocker, and a verdict from the evidence (model.h).
 */
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
	}
	return "?";
}

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
 * of that target by `t` answered.  *since gets the try_read's time. */
static uint32_t waits_on(const struct weft_model *m, uint32_t t, int64_t *since)
{
	uint32_t na, n;
	const struct weft_arrow *a = weft_model_arrows(m, &na);
	const uint32_t *idx = weft_model_thread_arrows(m, t, &n);
	uint32_t target = WEFT_NONE;
	for (uint32_t k = 0; k < n; k++) {
		const struct weft_arrow *x = &a[idx[k]];
		if (x->kind == WEFT_ARROW_TRY_READ && x->from == t) {
			target = x->to;
			*since = x->t;
		} else if ((x->kind == WEFT_ARROW_READ ||
			    x->kind == WEFT_ARROW_READ_FAILED) &&
			   x->to == t && x->from == target)
			target = WEFT_NONE;
	}
	return target;
}

static int losses_before(const struct weft_model *m, int64_t t)
{
	uint32_t n;
	const struct weft_loss *l = weft_model_losses(m, &n);
	for (uint32_t i = 0; i < n; i++)
		if (l[i].t <= t && (l[i].packets || l[i].events))
			return 1;
	return 0;
}

int weft_why(const struct weft_model *m, uint32_t thread, struct weft_why *w)
{
	uint32_t nth, na;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_arrow *a = weft_model_arrows(m, &na);
	memset(w, 0, sizeof *w);
	w->evidence = WEFT_NONE;
	if (thread >= nth)
		return WEFT_EINVAL;
	uint32_t t = successor(m, thread);
	w->thread = t;
	if (th[t].end != WEFT_END_PENDING) {
		w->verdict = WEFT_VERDICT_OK;
		return 0;
	}

	/* Walk the waits. */
	int truncated = 0;
	for (;;) {
		for (uint32_t k = 0; k < w->nchain; k++)
			if (w->chain[k].thread == t) {
				w->verdict = WEFT_VERDICT_DEADLOCK;
				w->cycle = t;
				return 0;
			}
		if (w->nchain == WEFT_WHY_MAX_CHAIN) {
			w->verdict = WEFT_VERDICT_NEVER_RESOLVED;
			return 0;
		}
		w->chain[w->nchain].thread = t;
		w->chain[w->nchain].t_wait = 0;
		w->nchain++;
		truncated |= !!(th[t].flags & WEFT_THREAD_NO_CREATE);
		if (th[t].end != WEFT_END_PENDING)
			break; /* ended, and its waiter never read it */
		int64_t since = 0;
		uint32_t next = waits_on(m, t, &since);
		if (next == WEFT_NONE)
			break; /* the root blocker */
		w->chain[w->nchain - 1].t_wait = since;
		w->t_wait = since;
		t = successor(m, next);
	}

	uint32_t b = t;
	/* What touched the blocker: the last signal or resolution (or
	 * failure) into it. */
	uint32_t n;
	const uint32_t *idx = weft_model_thread_arrows(m, b, &n);
	for (uint32_t k = 0; k < n; k++) {
		const struct weft_arrow *x = &a[idx[k]];
		if (x->to != b)
			continue;
		if (x->kind == WEFT_ARROW_SIGNAL ||
		    x->kind == WEFT_ARROW_RESOLVE ||
		    x->kind == WEFT_ARROW_FAIL ||
		    x->kind == WEFT_ARROW_CANCEL) {
			w->evidence = idx[k];
		}
	}
	if (th[b].end == WEFT_END_FAILED)
		w->verdict = WEFT_VERDICT_FAILED_UPSTREAM;
	else if (w->evidence != WEFT_NONE)
		w->verdict = WEFT_VERDICT_LOST_WAKEUP;
	else if (truncated || losses_before(m, w->nchain > 1 ? w->t_wait
							     : th[b].t_end))
		w->verdict = WEFT_VERDICT_TRUNCATED;
	else
		w->verdict = WEFT_VERDICT_NEVER_RESOLVED;
	return 0;
}
