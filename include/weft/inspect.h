/* SPDX-License-Identifier: MIT */
/*
 * inspect.h - a thread for an inspector, as data and as text (part of libweft-read).
 */
#ifndef WEFT_INSPECT_H
#define WEFT_INSPECT_H

#include <stddef.h>
#include <stdint.h>

#include "weft/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A thread for an inspector, as data: how long it lived, ran and waited,
 * and every arrow in or out, label and note of it, in time order, each an
 * entry (front ends present them; none need parse text).
 *
 * A wait is a try-read (WEFT_ARROW_TRY_READ): the waiter waited on the
 * other thread from the entry's time until that thread ended or the
 * waiter ran again (was woken), whichever came first; neither: until the
 * end of the trace.
 */
enum weft_entry_kind {
	WEFT_ENTRY_ARROW, /* an arrow in or out (a wait among them) */
	WEFT_ENTRY_LABEL,
	WEFT_ENTRY_NOTE,
};

enum weft_wait_end {
	WEFT_WAIT_NONE,	  /* not a wait */
	WEFT_WAIT_ENDED,  /* the awaited thread ended (resolved, failed...) */
	WEFT_WAIT_WOKEN,  /* the waiter ran again first */
	WEFT_WAIT_AT_END, /* still waiting when the trace ends */
};

struct weft_entry {
	int64_t t;	/* when: ns from the trace's origin */
	int64_t dur;	/* a wait's length (ns); -1: not a wait */
	uint32_t other; /* the arrow's other thread, or WEFT_NONE */
	uint32_t arrow; /* index in weft_model_arrows(), or WEFT_NONE */
	uint32_t text;	/* a label's or note's text (weft_model_string) */
	uint8_t kind;	/* enum weft_entry_kind */
	uint8_t out;	/* an arrow from the thread (1) or into it (0) */
	uint8_t wait;	/* enum weft_wait_end */
	uint8_t pad;
};

struct weft_inspect {
	int64_t lifetime; /* creation to end (pending: to its last mention) */
	int64_t running;  /* its runs within its life (pending: to the
			     end of the trace) */
	int64_t waiting;  /* the union of its own waits (arrows out) within
			     its life, less the time it ran: running +
			     waiting <= its life */
	struct weft_entry *entries; /* in time order, then arrows before
				       labels before notes */
	uint32_t n;
};

/* Fills `in` (which must be zeroed or released before) for `thread`.
 * Returns 0, WEFT_EINVAL for no such thread, or -ENOMEM.  Release with
 * weft_inspect_release() (which accepts a zeroed one). */
WEFT_API int weft_model_inspect(const struct weft_model *m, uint32_t thread,
				struct weft_inspect *in);
WEFT_API void weft_inspect_release(struct weft_inspect *in);
/* One entry of `thread` as a line for a person, its arrows said from its
 * side: "at 0.001200 s: created TITLE", "... created by TITLE", "...
 * resolved by TITLE", "... waited on (not ready) TITLE for 2.5 ms (until
 * it resolved)", "at ...: label: TEXT".  weft_model_inspect() lists no
 * arrow of a thread to itself (its own resolve).  Writes at most `cap`
 * bytes, NUL included; returns the whole length (like snprintf). */
WEFT_API size_t weft_entry_text(const struct weft_model *m, uint32_t thread,
				const struct weft_entry *e, char *buf,
				size_t cap);

/*
 * A thread described for a person, as lines of text: its title; id and
 * kind; when it was created and how and when it ended (with its failure
 * message); how long it lived, ran and waited; its creator.  The head
 * is that much; the whole description goes on with every entry of
 * weft_model_inspect(), one a line (weft_entry_text()).  Writes at most
 * `cap` bytes, NUL included; returns the length of the whole text (like
 * snprintf).  Both viewers' inspectors show the head above the entries.
 */
WEFT_API size_t weft_model_describe_head(const struct weft_model *m,
					 uint32_t thread, char *buf,
					 size_t cap);
WEFT_API size_t weft_model_describe(const struct weft_model *m, uint32_t thread,
				    char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_INSPECT_H */
