/* SPDX-License-Identifier: MIT */
/*
 * decode.c - events out of a stream's packets: opening the next packet of
 * a stream (a copy, for a file), the general decoder that checks every
 * field against the packet's end and reports what is wrong, and the slow
 * half of peek() (decode.h has the inline fast half).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "decode.h"

/* The common payload shapes, derived from the event table when a reader
 * opens, decoded with straight-line code (strings take weft__decode()). */
void weft__derive_shapes(uint8_t shape[WEFT_EV_COUNT])
{
	for (int id = 0; id < WEFT_EV_COUNT; id++) {
		const struct weft__evspec *e = &weft__events[id];
		int a = e->f[0].type, b = a ? e->f[1].type : 0;
		int c = b ? e->f[2].type : 0;
		int d = c ? e->f[3].type : 0;
		shape[id] = SH_GENERIC;
		if (a == WEFT_FT_ID && b == WEFT_FT_NAME && c == WEFT_FT_NAME &&
		    !d)
			shape[id] = SH_ID_NAME_NAME;
		if (c)
			continue;
		if (!a)
			shape[id] = SH_NONE;
		else if (a == WEFT_FT_ID && !b)
			shape[id] = SH_ID;
		else if (a == WEFT_FT_NAME && !b)
			shape[id] = SH_NAME;
		else if (a == WEFT_FT_ID && b == WEFT_FT_NAME)
			shape[id] = SH_ID_NAME;
		else if (a == WEFT_FT_NAME &&
			 (b == WEFT_FT_I64 || b == WEFT_FT_U64))
			shape[id] = SH_NAME_VAL;
		else if (a == WEFT_FT_ID && b == WEFT_FT_ID)
			shape[id] = SH_ID_ID;
	}
}

/* Decodes the event at s->pos.  Returns 1 (ev filled), 0 (end of the
 * packet's content) or -1 (corrupt: the rest of the packet is skipped). */
int weft__decode(struct weft_reader *r, struct rstream *s,
		 struct weft_event *ev)
{
	const uint8_t *p = s->data + s->pos, *end = s->data + s->end;
	uint64_t off = s->pk_off + s->pos;
	unsigned id;
	uint64_t ts;

	if (p >= end)
		return 0;
	if ((p[0] & 31) == WEFT_EH_EXTENDED) {
		if (end - p < WEFT_EH_EXT_SIZE)
			goto short_event;
		id = weft__ld32(p + 1);
		ts = weft__ld64(p + 5);
		if (ts < s->clock) {
			weft__problem(r, off, "time goes backwards");
			return -1;
		}
		p += WEFT_EH_EXT_SIZE;
	} else {
		if (end - p < 4)
			goto short_event;
		uint32_t w = weft__ld32(p);
		id = w & 31;
		ts = weft__compact_ts(s->clock, w);
		p += 4;
	}
	if (id >= WEFT_EV_COUNT) {
		weft__problem(r, off, "unknown event id %u", id);
		return -1;
	}
	const struct weft__evspec *sp = &weft__events[id];
	ev->ts = ts;
	ev->type = (uint16_t)id;
	ev->flags = 0;
	ev->id = ev->id2 = 0;
	ev->name = ev->name2 = 0;
	ev->value = ev->value2 = ev->value3 = 0;
	ev->text = NULL;
	ev->text_len = 0;
	int nid = 0, nname = 0, nval = 0;
	for (int i = 0; i < 4 && sp->f[i].type; i++) {
		switch (sp->f[i].type) {
		case WEFT_FT_ID:
			if (end - p < 8)
				goto short_event;
			if (nid++ == 0)
				ev->id = weft__ld64(p);
			else
				ev->id2 = weft__ld64(p);
			p += 8;
			break;
		case WEFT_FT_NAME:
			if (end - p < 2)
				goto short_event;
			if (nname++ == 0)
				ev->name = weft__ld16(p);
			else
				ev->name2 = weft__ld16(p);
			p += 2;
			break;
		case WEFT_FT_I64:
		case WEFT_FT_U64:
			if (end - p < 8)
				goto short_event;
			*(nval == 0   ? &ev->value
			  : nval == 1 ? &ev->value2
				      : &ev->value3) = (int64_t)weft__ld64(p);
			nval++;
			p += 8;
			break;
		case WEFT_FT_TRUNC:
			if (end - p < 1)
				goto short_event;
			if (*p > 1) {
				weft__problem(r, off, "%s: bad truncation flag",
					      sp->name);
				return -1;
			}
			if (*p)
				ev->flags |= WEFT_EVF_TRUNCATED;
			p++;
			break;
		case WEFT_FT_STR: {
			const uint8_t *z = memchr(p, 0, (size_t)(end - p));
			if (!z) {
				weft__problem(r, off, "%s: unterminated text",
					      sp->name);
				return -1;
			}
			ev->text = (const char *)p;
			ev->text_len = (uint32_t)(z - p);
			p = z + 1;
			break;
		}
		}
	}
	ev->actor = s->cur;
	if (weft__switches(id))
		s->cur = ev->id;
	s->clock = ts;
	ev->offset = off;
	s->pos = (uint32_t)(p - s->data);
	return 1;

short_event:
	weft__problem(r, off, "event cut short by the end of the packet");
	return -1;
}

uint32_t weft__packet_valid_end(const uint8_t *pk, uint32_t content,
				uint64_t ts_begin, uint64_t *last_ts)
{
	struct weft_reader tmp = {0};
	struct rstream s = {0};
	struct weft_event ev;
	s.data = pk;
	s.pos = WEFT_PK_EVENTS;
	s.end = content;
	s.clock = ts_begin;
	uint32_t valid = s.pos;
	while (weft__decode(&tmp, &s, &ev) == 1)
		valid = s.pos;
	*last_ts = s.clock;
	return valid;
}

/* A packet that was indexed but cannot be decoded now (rewritten by a
 * live writer since, or the file shrank): a loss where it was. */
static void packet_gone(struct rstream *s, const struct rpacket *p)
{
	s->loss = 1;
	s->loss_packets++;
	s->loss_ts = s->clock ? s->clock : p->ts_begin;
	s->expect_seq = p->seq + 1;
}

/* Queues the reading of the stream's packet after the one being opened
 * into its second buffer (prefetch.c), for a file nothing writes. */
static void read_ahead(struct weft_reader *r, struct rstream *s)
{
	size_t ps = r->rh.h.packet_size;
	if (r->live || r->src.mem || r->src.kv || s->next_pk >= s->npk ||
	    s->no_ahead || (r->flags & WEFT_READ_ONE_THREAD))
		return;
	if (!s->job) {
		if (!r->pf && (r->pf = weft__pf_new()))
			r->pf_own = 1;
		s->job = r->pf ? calloc(1, sizeof *s->job) : NULL;
		s->copy2 = s->job ? weft__pf_buffer(ps) : NULL;
		if (!s->copy2) {
			/* (none: no thread, out of memory, over the budget) */
			free(s->job);
			s->job = NULL;
			s->no_ahead = 1;
			return;
		}
	}
	const struct rpacket *p = &s->pk[s->next_pk];
	s->job->src = r->src;
	s->job->off = r->rh.packets_off + (uint64_t)p->slot * ps;
	s->job->len = ps;
	s->job->dst = s->copy2;
	s->job_pk = s->next_pk;
	weft__pf_submit(r->pf, s->job);
}

/* Opens the stream's next packet.  Returns 1, or 0 if it has none left. */
static int open_next_packet(struct weft_reader *r, struct rstream *s)
{
	const struct weft__fhdr *h = &r->rh.h;
	while (s->next_pk < s->npk) {
		struct rpacket *p = &s->pk[s->next_pk++];
		uint64_t off =
			r->rh.packets_off + (uint64_t)p->slot * h->packet_size;
		const uint8_t *pk;
		uint64_t content;
		if (r->src.mem && !r->live) {
			pk = r->src.mem + off;
			content = weft__ld64(pk + WEFT_PK_CONTENT) / 8;
		} else {
			uint64_t gen;
			long c;
			uint32_t k = s->next_pk - 1; /* (p's) */
			if (s->job && weft__pf_collect(r->pf, s->job) &&
			    s->job_pk == k) {
				/* read ahead: the buffers change places */
				uint8_t *t = s->copy;
				s->copy = s->copy2;
				s->copy2 = t;
				c = weft__packet_checked(&r->rh, s->copy,
							 s->job->err, &gen);
			} else
				c = weft__packet_copy(&r->src, &r->rh, p->slot,
						      s->copy, &gen, r->live);
			read_ahead(r, s);
			if (c == PK_GONE) {
				weft__lost_packet(r, p->stream, off);
				packet_gone(s, p);
				continue;
			}
			if (c < 0 || gen != p->gen) {
				/* Overwritten since it was indexed. */
				r->info.losses.packets_torn++;
				r->sinfo[p->stream].losses.packets_torn++;
				packet_gone(s, p);
				continue;
			}
			if (!weft__same_packet(r, p, s->copy, c)) {
				/* Valid when indexed, not now: rewritten by
				 * something that is not a weft writer (the
				 * file replaced, by cp(1) of another trace
				 * with the same generations in the same
				 * slots, or damaged). */
				weft__problem(r, off + WEFT_PK_CONTENT,
					      "packet %u changed while being "
					      "read",
					      p->slot);
				r->info.losses.packets_corrupt++;
				r->sinfo[p->stream].losses.packets_corrupt++;
				packet_gone(s, p);
				continue;
			}
			pk = s->copy;
			content = (uint64_t)c;
		}
		/* a kept chunk's carried threads: outside the sequence */
		s->carried = !!(p->gen & WEFT__GEN_CARRIED);
		if (s->carried)
			goto opened;
		if (s->prev_open && !r->live) {
			/* An inconsistent copy (cp(1) of a live ring): the
			 * previous packet was copied while still open, and the
			 * writer went on to this one, so that packet's tail is
			 * missing.  `weft snapshot` avoids this. */
			s->loss = 1;
			s->loss_partial = 1;
			s->loss_ts = p->ts_begin;
			r->info.losses.packets_torn++;
			r->sinfo[p->stream].losses.packets_torn++;
		}
		s->prev_open = p->ts_end == 0;
		if (p->seq != s->expect_seq) {
			uint64_t gap = p->seq > s->expect_seq
					       ? p->seq - s->expect_seq
					       : 0;
			s->loss = 1;
			s->loss_packets += gap;
			s->loss_ts = p->ts_begin;
			r->info.losses.packets_lost += gap;
			r->sinfo[p->stream].losses.packets_lost += gap;
		}
		s->expect_seq = p->seq + 1;
opened:
		s->open_copy = r->live && weft__ld64(pk + WEFT_PK_TS_END) == 0;
		s->data = pk;
		s->pos = WEFT_PK_EVENTS;
		s->end = (uint32_t)content;
		s->pk_off = off;
		s->pk_gen = p->gen;
		s->pk_seq = p->seq;
		s->pk_slot = p->slot;
		s->pk_discarded = weft__ld64(pk + WEFT_PK_DISCARDED);
		s->clock = p->ts_begin > s->clock ? p->ts_begin : s->clock;
		if (p->ts_begin < s->clock && s->clock - p->ts_begin > MASK27)
			s->clock = p->ts_begin;
		s->cur = p->current;
		s->in_packet = 1;
		return 1;
	}
	return 0;
}

/* The writer's declared drops, seen when a packet is finished. */
static void packet_done(struct weft_reader *r, struct rstream *s)
{
	uint64_t disc = s->pk_discarded;
	if (r->live) {
		/* The count may have grown in place since the copy. */
		uint8_t w[WEFT_PK_DISCARDED + 8 - WEFT_PK_GEN];
		if (weft__src_read(&r->src, s->pk_off + WEFT_PK_GEN, w,
				   sizeof w) == 0 &&
		    weft__ld64(w) == s->pk_gen) {
			uint64_t now =
				weft__ld64(w + WEFT_PK_DISCARDED - WEFT_PK_GEN);
			if (now > disc)
				disc = now;
		}
	}
	if (disc > s->last_discarded) {
		s->loss = 1;
		s->loss_events += disc - s->last_discarded;
		s->loss_ts = s->clock;
		s->last_discarded = disc;
	}
	s->in_packet = 0;
}

void weft__corrupt_packet(struct weft_reader *r, struct rstream *s,
			  uint32_t idx)
{
	r->info.losses.packets_corrupt++;
	r->sinfo[idx].losses.packets_corrupt++;
	s->loss = 1;
	s->loss_ts = s->clock;
	s->pos = s->end;
}

/* A live ring's packet being decoded, copied again now that its copy
 * (taken while the writer was in it) is read to the end.  Returns 1 (it
 * grew: s->end moved on), 0 (as it was; s->open_copy says whether it is
 * still open), or -1: it was overwritten before its tail was read, a
 * loss counted and marked (torn, partial), as for a copy of a live ring
 * that holds an open packet before its next one. */
static int recopy(struct weft_reader *r, struct rstream *s, uint32_t idx)
{
	uint64_t gen;
	long c = weft__packet_copy(&r->src, &r->rh, s->pk_slot, s->copy, &gen,
				   1);
	s->open_copy = 0;
	if (c <= 0 || gen != s->pk_gen ||
	    (uint64_t)c > r->rh.h.packet_size - WEFT_PK_TRAILER ||
	    (uint32_t)c < s->end) {
		s->loss = 1;
		s->loss_partial = 1;
		s->loss_ts = s->clock;
		r->info.losses.packets_torn++;
		r->sinfo[idx].losses.packets_torn++;
		return -1;
	}
	s->data = s->copy;
	s->open_copy = weft__ld64(s->copy + WEFT_PK_TS_END) == 0;
	if ((uint32_t)c == s->end)
		return 0;
	s->end = (uint32_t)c;
	return 1;
}

int weft__peek_slow(struct weft_reader *r, uint32_t idx)
{
	struct rstream *s = &r->st[idx];
	for (;;) {
		if (s->loss) {
			s->next_ts = s->loss_ts;
			s->pending = 2;
			return 1;
		}
		if (s->in_packet) {
			if (s->pos < s->end) {
				const uint8_t *p = s->data + s->pos;
				uint32_t left = s->end - s->pos;
				if ((p[0] & 31) == WEFT_EH_EXTENDED) {
					if (left >= WEFT_EH_EXT_SIZE) {
						s->next_ts = weft__ld64(p + 5);
						s->next_id = weft__ld32(p + 1);
						s->next_hdr = WEFT_EH_EXT_SIZE;
						/* time going backwards is
						 * reported by decode() */
						if (s->next_ts < s->clock) {
							s->next_ts = s->clock;
							s->next_id = UINT32_MAX;
						}
						s->pending = 1;
						return 1;
					}
				} else if (left >= 4) {
					uint32_t w = weft__ld32(p);
					s->next_ts =
						weft__compact_ts(s->clock, w);
					s->next_id = w & 31;
					s->next_hdr = 4;
					s->pending = 1;
					return 1;
				}
				weft__problem(r, s->pk_off + s->pos,
					      "event cut short by the end of "
					      "the packet");
				weft__corrupt_packet(r, s, idx);
				continue;
			}
			if (s->open_copy) {
				/* read to the end of a copy taken while the
				 * writer was in it: its tail may have come
				 * since, and must be read before the
				 * stream's next packet (which the writer
				 * opens only after closing this one) */
				int g = recopy(r, s, idx);
				if (g > 0)
					continue;
				if (g == 0 && s->open_copy &&
				    (r->flags & WEFT_READ_FOLLOW))
					return 0; /* still being written */
				if (g < 0)
					continue; /* (its loss first) */
			}
			if ((r->flags & WEFT_READ_FOLLOW) &&
			    s->next_pk >= s->npk)
				return 0; /* the writer may still append */
			packet_done(r, s);
			continue;
		}
		if (!open_next_packet(r, s)) {
			if (s->loss)
				continue; /* a torn last packet */
			return 0;
		}
	}
}
