/* SPDX-License-Identifier: MIT */
/*
 * msgs.c - messages between the processes of a merged trace: each read
 * of bytes (a `received` event) is matched with the writes (`sent`) of
 * the same channel whose bytes it covers, and becomes a read arrow from
 * the writing async thread to the reading one (a READ event made by the
 * merge, flagged WEFT_EVF_MESSAGE, with the write's time).
 *
 * Both ends of a stream channel (a pipe, a Unix socket, TCP) count its
 * bytes from its start, so a read [a, b) matches the writes that overlap
 * it.  A datagram (UDP) is matched with the oldest unmatched one of its
 * channel and size.  Events come in time order, but a read may come
 * before its write (a writer records after its system call returns; two
 * machines' clocks are never quite aligned): such a read waits, bounded,
 * for its write, and the arrow is made when the write comes.  What is
 * never matched (a peer that was not traced) is forgotten: a channel
 * keeps at most QCAP unmatched writes and reads.
 *
 * Only messages between different rings (processes) are made: within one
 * process the trace of one ring already shows what it shows.
 *
 * Waits: a thread waits for the next bytes of a stream when it is the
 * next activation of a read that received some (a fire event named it:
 * fire target=A next=B, then A received bytes up to offset o: B waits
 * for the bytes from o: common/next-reader.h, which weft ship shares),
 * or when a received event of no bytes says so
 * (what shims before format 1.x wrote, still read).  If
 * the trace ends with it still waiting while the last word on the
 * connection was its own (its peer read from the other direction after
 * it last read), it waits on that peer's reader: a try_read made at the
 * trace's end (when every ring has been read: the peer may read our last
 * message after our ring ended), flagged WEFT_EVF_MESSAGE, which weft why
 * follows into the peer (the other direction of a channel is the channel
 * ^ 1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "common/grow.h"
#include "common/next-reader.h"

#define QCAP 256 /* unmatched ends kept per channel */
#define DGRAM_WAIT                                                             \
	INT64_C(2000000000) /* a datagram's write may be read
					   this long after (else lost) */
#define EARLY_WAIT                                                             \
	INT64_C(1000000000) /* a read may wait this long for
					   the write recorded after it */

/* One end of a message: its bytes [off, off + len), who and when. */
struct mend {
	uint64_t off, len;
	uint64_t thread; /* the writer or the reader (merged ids) */
	int64_t ns;
	uint32_t stream; /* the reader's */
	uint32_t sub;	 /* its ring */
};

struct mq {
	struct mend v[QCAP];
	uint32_t head, n; /* a ring buffer */
};

struct mchan {
	uint64_t chan; /* 0: a free slot */
	struct mq w, r;
	struct mend last; /* the last read of bytes */
	struct mend wait; /* a thread waiting for the next bytes */
	int has_last, has_wait;
};

struct msgs {
	struct mchan *c;
	uint32_t cap, used;
	struct weft__fires fires; /* each stream's last fire */
};

static struct mend *at(struct mq *q, uint32_t i)
{
	return &q->v[(q->head + i) % QCAP];
}

static void drop_first(struct mq *q)
{
	q->head = (q->head + 1) % QCAP;
	q->n--;
}

static void drop(struct mq *q, uint32_t i)
{
	for (; i + 1 < q->n; i++)
		*at(q, i) = *at(q, i + 1);
	q->n--;
}

static void put(struct mq *q, const struct mend *e)
{
	/* a write of bytes written before that nobody read (its writer
	 * took them back: a write that failed) is replaced */
	for (uint32_t i = 0; i < q->n; i++)
		if (at(q, i)->off == e->off && e->off != UINT64_MAX) {
			*at(q, i) = *e;
			return;
		}
	if (q->n == QCAP)
		drop_first(q); /* the oldest: its other end never came */
	*at(q, q->n++) = *e;
}

static uint64_t chash(uint64_t c)
{
	return weft__mix64(c);
}

static struct mchan *chan_of(struct msgs *S, uint64_t chan)
{
	if ((S->used + 1) * 2 > S->cap) {
		uint32_t c = S->cap ? S->cap * 2 : 64;
		struct mchan *n = calloc(c, sizeof *n);
		if (!n)
			return NULL;
		for (uint32_t i = 0; i < S->cap; i++) {
			if (!S->c[i].chan)
				continue;
			uint32_t k = (uint32_t)chash(S->c[i].chan) & (c - 1);
			while (n[k].chan)
				k = (k + 1) & (c - 1);
			n[k] = S->c[i];
		}
		free(S->c);
		S->c = n;
		S->cap = c;
	}
	uint32_t k = (uint32_t)chash(chan) & (S->cap - 1);
	while (S->c[k].chan && S->c[k].chan != chan)
		k = (k + 1) & (S->cap - 1);
	if (!S->c[k].chan) {
		S->c[k].chan = chan;
		S->used++;
	}
	return &S->c[k];
}

void weft__msgs_free(struct rmulti *M)
{
	if (M->msgs) {
		weft__fires_release(&M->msgs->fires);
		free(M->msgs->c);
		free(M->msgs);
	}
}

/* The arrow: reader r read bytes writer w wrote, made at `ns`. */
static int arrow(struct rmulti *M, const struct mend *w, const struct mend *r,
		 int64_t ns)
{
	struct weft_event ev;
	memset(&ev, 0, sizeof ev);
	ev.type = WEFT_EV_READ;
	ev.flags = WEFT_EVF_MESSAGE | WEFT_EVF_MADE;
	ev.stream = r->stream;
	ev.actor = r->thread;
	ev.id = w->thread;
	/* On one machine a write is recorded after its system call returns
	 * and the read may come first: it was written no later than read. */
	const struct rmulti *m = M;
	ev.value = w->ns > r->ns && m->sub[w->sub].host == m->sub[r->sub].host
			   ? r->ns
			   : w->ns;
	return weft__syn_push(M, ns, &ev);
}

/* Stream channels: a read matched with the writes of its bytes; what is
 * not written yet waits: *r becomes that part (the writes of a channel
 * come in the order of their bytes, so it is the read's tail).  `now`:
 * the time the arrows are made at. */
static int match_bytes(struct rmulti *M, struct mchan *c, struct mend *r,
		       int64_t now, int *done)
{
	uint64_t a = r->off, b = r->off + r->len;
	int err = 0;
	*done = 0;
	uint64_t reach = a;
	for (uint32_t i = 0; i < c->w.n && !err;) {
		struct mend *w = at(&c->w, i);
		uint64_t wa = w->off, wb = w->off + w->len;
		if (wb <= a && wb <= b) {
			/* wholly read before: a read of ours skipped it */
			if (i == 0 && wb <= a) {
				drop_first(&c->w);
				continue;
			}
			i++;
			continue;
		}
		if (wa >= b) {
			i++;
			continue;
		}
		if (w->sub != r->sub)
			err = arrow(M, w, r, now);
		uint64_t hi = wb < b ? wb : b;
		if (hi > reach)
			reach = hi;
		if (wb <= b) {
			drop(&c->w, i); /* read to its end */
			continue;
		}
		i++;
	}
	*done = reach >= b;
	r->off = reach;
	r->len = b - reach;
	return err;
}

int weft__msgs_fire(struct rmulti *M, const struct weft_event *ev)
{
	if (!M->msgs && !(M->msgs = calloc(1, sizeof *M->msgs)))
		return -ENOMEM;
	return weft__fires_note(&M->msgs->fires, ev);
}

int weft__msgs_event(struct rmulti *M, uint32_t k, const struct weft_event *ev)
{
	if (!M->msgs && !(M->msgs = calloc(1, sizeof *M->msgs)))
		return -ENOMEM;
	struct mchan *c = chan_of(M->msgs, (uint64_t)ev->value);
	if (!c)
		return -ENOMEM;
	struct mend e = {
		.off = (uint64_t)ev->value2,
		.len = (uint64_t)ev->value3,
		.thread = ev->id ? ev->id : ev->actor,
		.ns = ev->ns,
		.stream = ev->stream,
		.sub = k,
	};
	int dgram = e.off == UINT64_MAX;
	if (ev->type == WEFT_EV_RECEIVED && !dgram) {
		if (!e.len) {
			c->wait = e;
			c->has_wait = 1;
			return 0;
		}
		if (c->has_wait && c->wait.sub == k && e.off >= c->wait.off)
			c->has_wait = 0; /* what it waited for came */
		c->last = e;
		c->has_last = 1;
		/* what comes after it: the rule weft ship ships too */
		uint64_t next = weft__next_reader(&M->msgs->fires, ev);
		if (next) {
			c->wait = e;
			c->wait.thread = next;
			c->wait.off = e.off + e.len;
			c->wait.len = 0;
			c->has_wait = 1;
		}
	}
	if (!e.len)
		return 0;
	int err = 0;
	if (ev->type == WEFT_EV_SENT) {
		put(&c->w, &e);
		/* reads that came first and waited for it */
		for (uint32_t i = 0; i < c->r.n && !err;) {
			struct mend *r = at(&c->r, i);
			int done = 0;
			if (r->ns + EARLY_WAIT < e.ns) {
				drop(&c->r, i);
				continue;
			}
			if (dgram) {
				if (r->len == e.len) {
					if (r->sub != e.sub)
						err = arrow(M, &e, r, e.ns);
					drop(&c->r, i);
					c->w.n--; /* (e was read) */
					break;
				}
				i++;
				continue;
			}
			err = match_bytes(M, c, r, e.ns, &done);
			if (done)
				drop(&c->r, i);
			else
				i++;
		}
		return err;
	}
	if (dgram) {
		/* the oldest write of its size not too old; older ones of
		 * its size were lost */
		for (uint32_t i = 0; i < c->w.n; i++) {
			struct mend *w = at(&c->w, i);
			if (w->ns + DGRAM_WAIT < e.ns) {
				drop(&c->w, i--);
				continue;
			}
			if (w->len != e.len)
				continue;
			if (w->sub != e.sub)
				err = arrow(M, w, &e, e.ns);
			drop(&c->w, i);
			return err;
		}
		put(&c->r, &e);
		return 0;
	}
	int done = 0;
	err = match_bytes(M, c, &e, e.ns, &done);
	if (!err && !done)
		put(&c->r, &e); /* (the arrows made stay: some bytes wait) */
	return err;
}

static struct mchan *find(struct msgs *S, uint64_t chan)
{
	if (!S || !S->cap || !chan)
		return NULL;
	uint32_t k = (uint32_t)chash(chan) & (S->cap - 1);
	for (; S->c[k].chan; k = (k + 1) & (S->cap - 1))
		if (S->c[k].chan == chan)
			return &S->c[k];
	return NULL;
}

int weft__msgs_end(struct rmulti *M, int64_t ns)
{
	struct msgs *S = M->msgs;
	int err = 0;
	for (uint32_t i = 0; S && i < S->cap && !err; i++) {
		struct mchan *c = &S->c[i];
		if (!c->chan || !c->has_wait)
			continue;
		uint32_t k = c->wait.sub;
		struct mchan *peer = find(S, c->chan ^ 1);
		if (!peer || !peer->has_last || peer->last.sub == k ||
		    (c->has_last && peer->last.ns <= c->last.ns))
			continue; /* the last word was the peer's: no wait */
		struct weft_event ev;
		memset(&ev, 0, sizeof ev);
		ev.type = WEFT_EV_TRY_READ;
		ev.flags = WEFT_EVF_MESSAGE | WEFT_EVF_MADE;
		ev.stream = c->wait.stream;
		ev.actor = c->wait.thread;
		ev.id = peer->last.thread;
		ev.value = c->wait.ns; /* since when it waits */
		err = weft__syn_push(M, ns, &ev);
		c->has_wait = 0;
	}
	return err;
}
