/* SPDX-License-Identifier: MIT */
/*
 * why.h - why a thread is still pending: the chain of waits and its verdict (`weft why`) (part of libweft-read).
 */
#ifndef WEFT_WHY_H
#define WEFT_WHY_H

#include <stdint.h>

#include "weft/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Diagnosis: why is a thread still pending?
 *
 * weft_why() walks the chain of waits from `thread` (following becomes):
 * each pending thread waits on the target of its last try_read that no
 * read answered, until a thread that waits on nothing (the root blocker),
 * a thread that already ended, or a thread seen twice.  When the subject
 * itself waits on nothing, its waiter is a pending thread that waits on
 * it (`awaited_by`), if any.  A verdict states only what the trace shows
 * (docs/model.md, "weft why"):
 *   LOST_WAKEUP      the blocker was signalled or resolved, but the waiter
 *                    never read it (classically: signalled before anyone
 *                    waited, then waited on forever);
 *   NEVER_RESOLVED   nothing touched the blocker once the wait began, for
 *                    longer than any finished thread of its kind lived;
 *   DEADLOCK         the waits form a cycle;
 *   FAILED_UPSTREAM  the blocker failed and the waiter never read it;
 *   TRUNCATED        events were lost where the evidence lies (a loss
 *                    the reader counted after the chain's first creation,
 *                    or anywhere before a thread whose creation is not in
 *                    the trace), so no verdict is safe;
 *   OK               the thread is not pending;
 * and two that are not faults:
 *   IN_FLIGHT        the trace ended while the blocker was pending for no
 *                    longer than a finished thread of its kind lived in
 *                    this trace (`longest`), or while its waiter, woken
 *                    (by a resolution, a failure or a signal), had been
 *                    ready for no longer than a woken waiter took to read
 *                    in this trace.  "The trace ended" is where the trace
 *                    of the OS thread it lives on ends (`horizon`): an OS
 *                    thread that stopped recording early shows nothing
 *                    after;
 *   UNAWAITED        the subject waits on nothing, nothing waits on it
 *                    and nothing says it should resolve (an event loop, a
 *                    listener, a connection open when the trace ended).
 * A thread whose creation is not in a trace with no losses was never
 * created by the program (a loop it runs as a thread): that is not a loss.
 */
enum weft_verdict {
	WEFT_VERDICT_OK,
	WEFT_VERDICT_LOST_WAKEUP,
	WEFT_VERDICT_NEVER_RESOLVED,
	WEFT_VERDICT_DEADLOCK,
	WEFT_VERDICT_FAILED_UPSTREAM,
	WEFT_VERDICT_TRUNCATED,
	WEFT_VERDICT_IN_FLIGHT,
	WEFT_VERDICT_UNAWAITED,
};

/* Whether a verdict is a fault (exit status 1 of `weft why`): every one
 * but OK, IN_FLIGHT and UNAWAITED. */
#define WEFT_VERDICT_IS_FAULT(v)                                               \
	((v) != WEFT_VERDICT_OK && (v) != WEFT_VERDICT_IN_FLIGHT &&            \
	 (v) != WEFT_VERDICT_UNAWAITED)

#define WEFT_WHY_MAX_CHAIN 64

struct weft_why {
	uint32_t thread; /* the subject (after following becomes) */
	int verdict;	 /* enum weft_verdict */
	uint32_t nchain; /* chain[0] is the subject; chain[n-1] the blocker */
	struct {
		uint32_t thread;
		int64_t t_wait; /* when it began waiting on the next one */
	} chain[WEFT_WHY_MAX_CHAIN];
	uint32_t evidence; /* arrow: the signal/resolve/fail of the
			      blocker, or NONE */
	uint32_t cycle;	   /* DEADLOCK: the thread the last waits on */
	int64_t t_wait;	   /* when the last waiter began waiting */
	/* (since 0.2) */
	uint32_t waiter;     /* who waits on the blocker: chain[n-2], or for a
			      chain of one its awaited_by; NONE: nobody */
	uint32_t awaited_by; /* chain of one: a pending thread waiting on
				the subject, or NONE */
	uint32_t loss;	     /* TRUNCATED: the loss (weft_model_losses) */
	int64_t longest;     /* IN_FLIGHT: what the trace shows may take that
			      long (a finished thread's life, a woken
			      waiter's delay); else -1 */
	int64_t ready;	     /* IN_FLIGHT, woken waiter: since when */
	int64_t horizon;     /* where the trace of the OS thread the judged
			      thread lives on ends (its creation's or its
			      last run's, the later): being pending is
			      measured up to there */
};

WEFT_API int weft_why(const struct weft_model *m, uint32_t thread,
		      struct weft_why *w);

/* For many questions about one model (`weft why --all`): what weft_why()
 * otherwise works out at each call, in O(threads + arrows), once.  The
 * index reads the model, which must outlive it; weft_why_at() may be
 * called from several threads at once.  0 or -ENOMEM. */
struct weft_why_index;
WEFT_API int weft_why_index_new(struct weft_why_index **out,
				const struct weft_model *m);
WEFT_API void weft_why_index_free(struct weft_why_index *ix);
WEFT_API int weft_why_at(const struct weft_why_index *ix, uint32_t thread,
			 struct weft_why *w);

/* "lost wake-up", ... */
WEFT_API const char *weft_verdict_name(int verdict);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_WHY_H */
