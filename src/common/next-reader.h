/* SPDX-License-Identifier: MIT */
/*
 * next-reader.h - which thread waits for a connection's next bytes: the
 * one rule that the merge (src/read/msgs.c) applies to make a wait, and
 * weft ship (tools/cmd-ship.c) to ship it as a received end of no bytes
 * for weft fetch to make the same wait.  One copy, so the two cannot
 * drift (tests/fleet's t_fetch_hang compares what each makes).
 *
 * A loop's fire event names the read it runs (target) and that read's
 * next activation (next); when the target then receives bytes of a
 * stream, the next activation waits for the bytes after them.
 *
 * Header-only (static inline), for libweft-read and the tools.
 */
#ifndef WEFT_COMMON_NEXT_READER_H
#define WEFT_COMMON_NEXT_READER_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "weft/read.h"
#include "common/grow.h"

/* Each stream's last fire: its target and its next activation. */
struct weft__fires {
	struct weft__fire {
		uint64_t target, next;
	} * v;
	uint32_t n; /* streams 0 .. n - 1 (those never fired: zeros) */
};

/* Notes a fire event (WEFT_EV_FIRE: id the target, id2 the next); 0 or
 * -ENOMEM (the table as it was). */
static inline int weft__fires_note(struct weft__fires *f,
				   const struct weft_event *ev)
{
	if (ev->stream >= f->n) {
		uint32_t was = f->n;
		if (weft__grow32(&f->v, &f->n, (size_t)ev->stream + 1,
				 sizeof *f->v, 16))
			return -ENOMEM;
		memset(f->v + was, 0, (size_t)(f->n - was) * sizeof *f->v);
	}
	f->v[ev->stream].target = ev->id;
	f->v[ev->stream].next = ev->id2;
	return 0;
}

/* The thread that waits for the bytes after those ev received: the next
 * activation of the read the last fire of ev's stream ran, when ev is
 * that read receiving bytes of a stream (not a datagram); else 0. */
static inline uint64_t weft__next_reader(const struct weft__fires *f,
					 const struct weft_event *ev)
{
	uint64_t th = ev->id ? ev->id : ev->actor;
	if (ev->type != WEFT_EV_RECEIVED || !ev->value3 ||
	    (uint64_t)ev->value2 == UINT64_MAX)
		return 0;
	if (ev->stream >= f->n || f->v[ev->stream].target != th)
		return 0;
	return f->v[ev->stream].next;
}

static inline void weft__fires_release(struct weft__fires *f)
{
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

#endif
