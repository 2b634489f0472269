/* SPDX-License-Identifier: MIT */
/*
 * chain.h - the causal chain of a thread: what led to it and what it led to (part of libweft-read).
 */
#ifndef WEFT_CHAIN_H
#define WEFT_CHAIN_H

#include <stdint.h>

#include "weft/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The causal chain of a thread: what led to it and what it led to.
 *
 * Backwards, from the moment it ended (or the end of the trace if it
 * never did): the threads whose arrows reached it — its creator, what
 * resolved, failed, signalled or cancelled it, the results it read, what
 * it waited on — each only up to the moment it mattered, then theirs.
 * Forwards, from its creation: the threads it created, resolved,
 * signalled or cancelled, that read it or waited on it, from the moment
 * it reached them, then theirs.
 *
 * It stops at what connects everything:
 *   - OS threads (roots) carry no causality: they are left out;
 *   - a *hub* — a thread that interacts with at least 16 threads and 8
 *     times as many as the median of the threads it interacts with (an
 *     event loop, a listener, a pool) — is shown but not walked through
 *     (the subject itself is walked, whatever it is);
 *   - a repeating source is one source: a thread reached through the
 *     activation it continues brings in the source's first activation
 *     (what armed it) rather than every earlier one, and a thread's
 *     next activation is not what it led to.
 * `depth` bounds the steps from the subject: 1 (its direct arrows), 2,
 * 3..., WEFT_CHAIN_ALL (as far as it goes).
 *
 * weft_chain() fills `c`, which must be zeroed or released before;
 * weft_chain_release() frees what it holds (NULL: nothing, as every
 * release of the library).  Returns 0, WEFT_EINVAL for
 * no such thread, or -ENOMEM.
 */
#define WEFT_CHAIN_ALL 0

enum weft_chain_flags {
	WEFT_CHAIN_IN = 1 << 0,	     /* in the chain */
	WEFT_CHAIN_SUBJECT = 1 << 1, /* the thread asked about */
	WEFT_CHAIN_BEFORE = 1 << 2,  /* it led to the subject */
	WEFT_CHAIN_AFTER = 1 << 3,   /* the subject led to it */
	WEFT_CHAIN_HUB = 1 << 4,     /* a hub: shown, not walked through */
};

struct weft_chain {
	uint8_t *in;	   /* per thread: enum weft_chain_flags, 0: out */
	uint32_t nthreads; /* threads `in` covers (the model's, then) */
	uint32_t subject;
	int depth;
	uint32_t size; /* threads in the chain, the subject included */
	uint32_t hubs; /* of which hubs */
};

WEFT_API int weft_chain(const struct weft_model *m, uint32_t thread, int depth,
			struct weft_chain *c);
WEFT_API void weft_chain_release(struct weft_chain *c);
/* Whether a thread is a hub (as above). */
WEFT_API int weft_model_is_hub(const struct weft_model *m, uint32_t thread);
/* The same for every thread at once (is[t] = 1 for a hub, else 0; `is`
 * holds one byte per thread of the model), in one pass where a call of
 * weft_model_is_hub() per thread would take one each.  0 or -ENOMEM. */
WEFT_API int weft_model_hubs(const struct weft_model *m, uint8_t *is);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_CHAIN_H */
