/* SPDX-License-Identifier: MIT */
/*
 * clocks.c - rings of several machines on one time axis.
 *
 * Rings with one boot id share CLOCK_MONOTONIC (each taken out of its
 * writer's time namespace, whose offset the ring records): one machine,
 * nothing to align.  The first ring's machine is the reference; each
 * other machine H gets an offset off_H, added to its CLOCK_MONOTONIC to
 * place it on the reference's:
 *
 *  1. by CLOCK_REALTIME: each ring's clock readings pair CLOCK_MONOTONIC
 *     with CLOCK_REALTIME (read as tight sandwiches); if both machines'
 *     realtime clocks are right, off_H = (real - mono)_H - (real - mono)_R.
 *     Only as accurate as NTP keeps them (milliseconds, often less);
 *  2. by messages, when the machines exchanged some that both ends
 *     recorded (sent/received events matched by channel and byte range):
 *     a message cannot be received before it was sent, so a message from
 *     A at s (A's clock) received by B at r (B's) says off_A - off_B <=
 *     r - s.  Messages both ways bound off_H from both sides, [lo, hi];
 *     the offset is the middle, within +-(hi - lo)/2 (as Trace Compass's
 *     and Intel's trace collector's synchronisation do, with a constant
 *     offset: no drift between the machines' clocks is modelled, so a
 *     long run between machines whose clocks drift apart may find no
 *     offset that fits every message, which is said).  Messages one way
 *     only bound one side: the realtime estimate is kept if it lies
 *     within, else moved to the bound;
 *  3. an offset the user forces (--offset HOST=NS) wins.
 * Machines are placed in the order of their links to those already
 * placed (breadth first from the reference).  Raw timestamps stay as
 * they were (ev.ts): only ev.ns moves.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "multi.h"
#include "common/grow.h"

#define UNKNOWN_BOOT(b) (!memcmp((b), zero16, 16))
static const uint8_t zero16[16];

/* One message end: a sent or received event, on its machine's clock. */
struct xfer {
	uint64_t chan, off, len;
	int64_t t; /* the machine's CLOCK_MONOTONIC */
	uint32_t host;
};

static int cmp_xfer(const void *a, const void *b)
{
	const struct xfer *x = a, *y = b;
	if (x->chan != y->chan)
		return x->chan < y->chan ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

struct xlist {
	struct xfer *v;
	size_t n, cap;
};

static int push(struct xlist *l, const struct xfer *x)
{
	if (weft__grow_to(&l->v, &l->cap, l->n + 1, sizeof *l->v, 1024,
			  SIZE_MAX))
		return -ENOMEM;
	l->v[l->n++] = *x;
	return 0;
}

/* Reads ring k once more (a reader of its own) for its messages. */
static int scan_ring(struct rmulti *M, uint32_t k, struct xlist *sent,
		     struct xlist *recv)
{
	struct msub *s = &M->sub[k];
	struct weft_reader *r;
	int err =
		s->mem && !s->kring
			? weft__ring_open_mem(&r, s->mem, s->memlen, 0, 0, NULL)
			: weft__ring_reopen(s, &r);
	if (err)
		return 0; /* (read once already: gone since; no messages) */
	int64_t base = weft__ring_mono0(s->r);
	struct weft_event e;
	while (!err && weft_reader_next(r, &e) == 0) {
		if (e.type != WEFT_EV_SENT && e.type != WEFT_EV_RECEIVED)
			continue;
		/* datagrams (no offset) are matched by order, which needs
		 * clocks: not used to place them */
		if ((uint64_t)e.value2 == UINT64_MAX || !e.value3)
			continue;
		struct xfer x = {
			.chan = (uint64_t)e.value,
			.off = (uint64_t)e.value2,
			.len = (uint64_t)e.value3,
			.t = e.ns + base,
			.host = s->host,
		};
		err = push(e.type == WEFT_EV_SENT ? sent : recv, &x);
	}
	weft_reader_close(r);
	return err;
}

/* Bounds between pairs of machines: bound[a * n + b] is the least r - s
 * of messages from a to b (off_a - off_b <= it), INT64_MAX: none. */
static int message_bounds(struct rmulti *M, int64_t *bound, uint64_t *count)
{
	struct xlist sent = {0}, recv = {0};
	int err = 0;
	for (uint32_t k = 0; k < M->nsub && !err; k++)
		err = scan_ring(M, k, &sent, &recv);
	if (!err && sent.n && recv.n) {
		qsort(sent.v, sent.n, sizeof *sent.v, cmp_xfer);
		qsort(recv.v, recv.n, sizeof *recv.v, cmp_xfer);
		/* every (send, receive) of a channel whose bytes overlap */
		size_t i = 0, j = 0;
		uint32_t n = M->nhosts;
		while (i < sent.n && j < recv.n) {
			const struct xfer *a = &sent.v[i], *b = &recv.v[j];
			if (a->chan != b->chan) {
				if (a->chan < b->chan)
					i++;
				else
					j++;
				continue;
			}
			uint64_t ae = a->off + a->len, be = b->off + b->len;
			if (a->off < be && b->off < ae && a->host != b->host) {
				int64_t d = b->t - a->t;
				size_t at = (size_t)a->host * n + b->host;
				if (d < bound[at])
					bound[at] = d;
				count[at]++;
			}
			if (ae <= be)
				i++;
			else
				j++;
		}
	}
	free(sent.v);
	free(recv.v);
	return err;
}

/* (real - mono) of a ring, the median of its clock readings. */
static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int64_t real_minus_mono(const struct weft_reader *r)
{
	struct weft__ctuple t[WEFT_CLOCK_TUPLES];
	unsigned n = weft__ring_tuples(r, t, WEFT_CLOCK_TUPLES);
	if (!n) /* before 1.3: the start anchor */
		return r->rh.h.a0.real_ns - (r->rh.h.a0.mono_ns + r->timens);
	int64_t d[WEFT_CLOCK_TUPLES];
	for (unsigned i = 0; i < n; i++)
		d[i] = t[i].real_ns - (t[i].mono_ns + r->timens);
	qsort(d, n, sizeof *d, cmp_i64);
	return d[n / 2];
}

static int forced(const struct weft_merge_opts *o, const struct weft_host *h,
		  int64_t *ns)
{
	for (unsigned i = 0; o && i < o->noffsets; i++) {
		const char *w = o->offset_host[i];
		if (!w || !*w)
			continue;
		if (!strcmp(w, h->name) ||
		    (h->boot_id[0] && !strncmp(w, h->boot_id, strlen(w)))) {
			*ns = o->offset_ns[i];
			return 1;
		}
	}
	return 0;
}

int weft__clocks_align(struct rmulti *M, const struct weft_merge_opts *opts)
{
	/* the machines, by boot id; a ring that does not say (before 1.3)
	 * is taken to be the first ring's machine's */
	free(M->hosts);
	M->hosts = calloc(M->nsub ? M->nsub : 1, sizeof *M->hosts);
	int64_t *d = calloc(M->nsub ? M->nsub : 1, sizeof *d);
	if (!M->hosts || !d) {
		free(d);
		return -ENOMEM;
	}
	M->nhosts = 0;
	for (uint32_t k = 0; k < M->nsub; k++) {
		struct msub *s = &M->sub[k];
		uint32_t h = MNONE;
		for (uint32_t i = 0; i < M->nhosts && h == MNONE; i++) {
			uint32_t k0 = 0;
			while (M->sub[k0].host != i)
				k0++;
			if (!memcmp(M->sub[k0].r->boot, s->r->boot, 16))
				h = i;
		}
		if (h == MNONE && UNKNOWN_BOOT(s->r->boot) && M->nhosts)
			h = 0;
		if (h == MNONE) {
			h = M->nhosts++;
			struct weft_host *H = &M->hosts[h];
			memcpy(H->name, s->r->info.host, sizeof H->name);
			memcpy(H->boot_id, s->r->info.boot_id,
			       sizeof H->boot_id);
			d[h] = real_minus_mono(s->r);
		}
		if (!M->hosts[h].name[0] && s->r->info.host[0])
			memcpy(M->hosts[h].name, s->r->info.host,
			       sizeof M->hosts[h].name);
		s->host = h;
	}
	uint32_t n = M->nhosts;
	for (uint32_t r = 0; r < M->nruns; r++) {
		M->runs[r].host = 0;
		for (uint32_t k = 0; k < M->nsub; k++)
			if (M->sub[k].run == r) {
				M->runs[r].host = M->sub[k].host;
				break;
			}
	}
	M->hosts[0].method = WEFT_CLOCK_REFERENCE;
	int err = 0;
	if (n > 1) {
		int64_t *bound = malloc((size_t)n * n * sizeof *bound);
		uint64_t *count = calloc((size_t)n * n, sizeof *count);
		uint8_t *placed = calloc(n, 1);
		if (!bound || !count || !placed)
			err = -ENOMEM;
		for (size_t i = 0; !err && i < (size_t)n * n; i++)
			bound[i] = INT64_MAX;
		if (!err)
			err = message_bounds(M, bound, count);
		for (uint32_t h = 1; !err && h < n; h++) {
			struct weft_host *H = &M->hosts[h];
			H->offset_ns = d[h] - d[0];
			H->method = WEFT_CLOCK_REALTIME;
			H->uncertainty_ns = -1; /* NTP's, not known */
			H->lo_ns = INT64_MIN;
			H->hi_ns = INT64_MAX;
		}
		if (!err)
			placed[0] = 1;
		/* a forced offset places its machine */
		for (uint32_t h = 0; !err && h < n; h++) {
			int64_t ns;
			if (forced(opts, &M->hosts[h], &ns)) {
				M->hosts[h].offset_ns = ns;
				M->hosts[h].method = WEFT_CLOCK_FORCED;
				M->hosts[h].uncertainty_ns = 0;
				placed[h] = 1;
			}
		}
		/* breadth first: a machine linked by messages to one placed */
		for (int progress = 1; !err && progress;) {
			progress = 0;
			for (uint32_t h = 1; h < n; h++) {
				if (placed[h])
					continue;
				struct weft_host *H = &M->hosts[h];
				int64_t lo = INT64_MIN, hi = INT64_MAX,
					slack = 0;
				uint64_t msgs = 0;
				for (uint32_t p = 0; p < n; p++) {
					if (!placed[p])
						continue;
					const struct weft_host *P =
						&M->hosts[p];
					int64_t pu = P->uncertainty_ns > 0
							     ? P->uncertainty_ns
							     : 0;
					/* h -> p: off_h <= off_p + bound */
					int64_t b = bound[(size_t)h * n + p];
					if (b != INT64_MAX &&
					    P->offset_ns + b < hi)
						hi = P->offset_ns + b;
					/* p -> h: off_h >= off_p - bound */
					b = bound[(size_t)p * n + h];
					if (b != INT64_MAX &&
					    P->offset_ns - b > lo)
						lo = P->offset_ns - b;
					msgs += count[(size_t)h * n + p] +
						count[(size_t)p * n + h];
					if (pu > slack)
						slack = pu;
				}
				if (!msgs)
					continue;
				placed[h] = 1;
				progress = 1;
				H->messages = msgs;
				H->lo_ns = lo;
				H->hi_ns = hi;
				H->method = WEFT_CLOCK_MESSAGES;
				if (lo != INT64_MIN && hi != INT64_MAX &&
				    lo <= hi) {
					H->offset_ns = lo + (hi - lo) / 2;
					H->uncertainty_ns =
						(hi - lo) / 2 + slack;
				} else if (lo != INT64_MIN && hi != INT64_MAX) {
					/* no offset fits every message: the
					 * realtime estimate, said so */
					H->method = WEFT_CLOCK_REALTIME;
					H->uncertainty_ns = -1;
				} else {
					if (H->offset_ns < lo)
						H->offset_ns = lo;
					if (H->offset_ns > hi)
						H->offset_ns = hi;
					H->uncertainty_ns = -1;
				}
			}
		}
		free(bound);
		free(count);
		free(placed);
	}
	for (uint32_t h = 0; h < n; h++) {
		int64_t ns;
		if (forced(opts, &M->hosts[h], &ns)) {
			M->hosts[h].offset_ns = ns;
			M->hosts[h].method = WEFT_CLOCK_FORCED;
			M->hosts[h].uncertainty_ns = 0;
		}
	}
	free(d);
	return err;
}
