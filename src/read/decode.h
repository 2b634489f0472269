/* SPDX-License-Identifier: MIT */
/*
 * decode.h - decoding events out of a ring's packets (libweft-read,
 * private): decode.c's slow paths, and the hot part inline (the next
 * event's time and the common payload shapes), so that the merge of a
 * ring's streams (reader.c) compiles it in place.
 */
#ifndef WEFT_READ_DECODE_H
#define WEFT_READ_DECODE_H

#include "internal.h"

#define MASK27 ((1ull << WEFT_EH_COMPACT_BITS) - 1)

enum {
	SH_GENERIC,
	SH_NONE,
	SH_ID,
	SH_NAME,
	SH_ID_NAME,
	SH_NAME_VAL,
	SH_ID_ID,
	SH_ID_NAME_NAME,
};
void weft__derive_shapes(uint8_t shape[WEFT_EV_COUNT]);
int weft__decode(struct weft_reader *r, struct rstream *s,
		 struct weft_event *ev);
int weft__peek_slow(struct weft_reader *r, uint32_t idx);
void weft__corrupt_packet(struct weft_reader *r, struct rstream *s,
			  uint32_t idx);

/* ------------------------------------------------------- inline decoding */

/* Whether an event of type `id` makes its first ID the stream's current
 * async thread (run, and the fused events that end in a run).  One place
 * for the decoders; the writer keeps its own list (src/record/). */
static inline int weft__switches(unsigned id)
{
	return id == WEFT_EV_RUN || id == WEFT_EV_RESOLVE_RUN ||
	       id == WEFT_EV_FIRE;
}

/* The full timestamp of a compact header's 27 low bits, after `clock`
 * (the stream's last timestamp): the one place this is computed. */
static inline uint64_t weft__compact_ts(uint64_t clock, uint32_t w)
{
	uint64_t ts = (clock & ~MASK27) | (w >> 5);
	if (ts < clock)
		ts += 1ull << WEFT_EH_COMPACT_BITS;
	return ts;
}

/* Finds what the stream gives next and its time, without decoding it:
 * the merge only needs the time, and the event is then decoded straight
 * into the caller's struct.  Returns 1 (s->pending: 1 an event at s->pos,
 * 2 a loss; s->next_ts its time) or 0 (nothing more for now).  The common
 * case inline: the next event of the current packet. */
static inline __attribute__((always_inline)) int
weft__peek(struct weft_reader *r, uint32_t idx)
{
	struct rstream *s = &r->st[idx];
	if (__builtin_expect(!s->loss && s->in_packet && s->pos + 4 <= s->end,
			     1)) {
		uint32_t w = weft__ld32(s->data + s->pos);
		if ((w & 31) != WEFT_EH_EXTENDED) {
			s->next_ts = weft__compact_ts(s->clock, w);
			s->next_id = w & 31;
			s->next_hdr = 4;
			s->pending = 1;
			return 1;
		}
	}
	return weft__peek_slow(r, idx);
}

/* The payload of a simple shape, decoded: its fields (0 where the event
 * has none) and where the next event begins. */
struct weft__payload {
	uint64_t id, id2;
	int64_t value;
	uint32_t name, name2;
	uint32_t next;
};

/* Decodes the payload of the event at s->pos (whose time peek() found)
 * into *f if its shape is a simple one and it is complete; returns 0 to
 * let weft__decode() do it (and report what is wrong).  Nothing is
 * stored but *f: the callers write the caller's event last, as, for all
 * the compiler knows, it may alias the reader's state (any store to it
 * would otherwise load every field of the stream again). */
static inline __attribute__((always_inline)) int
weft__fast_payload(const struct weft_reader *r, const struct rstream *s,
		   struct weft__payload *f)
{
	const uint8_t *p = s->data + s->pos + s->next_hdr;
	const uint8_t *end = s->data + s->end;
	unsigned id = s->next_id;
	if (id >= WEFT_EV_COUNT)
		return 0;
	f->id = f->id2 = 0;
	f->value = 0;
	f->name = f->name2 = 0;
	switch (r->shape[id]) {
	case SH_NONE:
		break;
	case SH_ID:
		if (end - p < 8)
			return 0;
		f->id = weft__ld64(p);
		p += 8;
		break;
	case SH_NAME:
		if (end - p < 2)
			return 0;
		f->name = weft__ld16(p);
		p += 2;
		break;
	case SH_ID_NAME:
		if (end - p < 10)
			return 0;
		f->id = weft__ld64(p);
		f->name = weft__ld16(p + 8);
		p += 10;
		break;
	case SH_ID_NAME_NAME:
		if (end - p < 12)
			return 0;
		f->id = weft__ld64(p);
		f->name = weft__ld16(p + 8);
		f->name2 = weft__ld16(p + 10);
		p += 12;
		break;
	case SH_NAME_VAL:
		if (end - p < 10)
			return 0;
		f->name = weft__ld16(p);
		f->value = (int64_t)weft__ld64(p + 2);
		p += 10;
		break;
	case SH_ID_ID:
		if (end - p < 16)
			return 0;
		f->id = weft__ld64(p);
		f->id2 = weft__ld64(p + 8);
		p += 16;
		break;
	default:
		return 0;
	}
	f->next = (uint32_t)(p - s->data);
	return 1;
}

/* The caller's event of a simple shape (the stream's state already moved
 * past it), in one run of stores. */
static inline __attribute__((always_inline)) void
weft__fill(struct weft_event *ev, uint64_t ts, unsigned id, uint64_t actor,
	   uint64_t offset, const struct weft__payload *f)
{
	ev->ts = ts;
	ev->type = (uint16_t)id;
	ev->flags = 0;
	ev->id = f->id;
	ev->id2 = f->id2;
	ev->value = f->value;
	ev->value2 = ev->value3 = 0;
	ev->name = f->name;
	ev->name2 = f->name2;
	ev->text = NULL;
	ev->text_len = 0;
	ev->actor = actor;
	ev->offset = offset;
}

/* Moves stream s past its event whose payload is f (the next one not
 * peeked yet); returns the event's time, and its actor and offset (from
 * before the move). */
static inline __attribute__((always_inline)) uint64_t
weft__step(struct rstream *s, const struct weft__payload *f, uint64_t *actor,
	   uint64_t *offset)
{
	uint64_t ts = s->next_ts;
	*actor = s->cur;
	*offset = s->pk_off + s->pos;
	if (weft__switches(s->next_id))
		s->cur = f->id;
	s->clock = ts;
	s->pos = f->next;
	return ts;
}

/* Decodes the event at s->pos (whose time peek() found) if its shape is a
 * simple one and it is complete; returns 0 to let weft__decode() do it
 * (and report what is wrong). */
static inline __attribute__((always_inline)) int
weft__fast_decode(struct weft_reader *r, struct rstream *s,
		  struct weft_event *ev)
{
	struct weft__payload f;
	if (!weft__fast_payload(r, s, &f))
		return 0;
	uint64_t actor, offset, ts = weft__step(s, &f, &actor, &offset);
	weft__fill(ev, ts, s->next_id, actor, offset, &f);
	return 1;
}

#endif
