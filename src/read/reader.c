/* SPDX-License-Identifier: MIT */
/*
 * reader.c - a ring's source (internal.h, weft__ring_ops): opens a weft
 * ring (a file, memory, or a kept directory's chunks; open.c chooses)
 * and merges its streams' events in time order, inserting a WEFT_EV_LOSS
 * pseudo-event wherever something is missing; in follow mode, keeps
 * looking for what a live writer commits.
 *
 * Every byte is hostile: lengths and offsets are checked before use, a
 * packet that fails validation is skipped and counted, and the offset of
 * what was wrong is kept in the problem list.  A file is read with pread
 * (packets.c), never mapped, so a file truncated or replaced while it is
 * read is a reported problem, not a SIGBUS; input that is not a file is
 * read only as far as its header declares.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decode.h"
#include "kept.h"
#include "run.h"
#include "sys.h"
#include "common/grow.h"

/* ------------------------------------------------------------- open */

static void free_streams(struct weft_reader *r)
{
	for (uint32_t i = 0; i < r->nst; i++) {
		struct rstream *s = &r->st[i];
		if (s->job) {
			/* (a packet being read ahead is waited for) */
			weft__pf_collect(r->pf, s->job);
			free(s->job);
		}
		weft__pf_buffer_free(s->copy2, r->rh.h.packet_size);
		free(s->pk);
		free(s->copy);
	}
	free(r->st);
	r->st = NULL;
	r->nst = 0;
}

void weft__ring_free(struct weft_reader *r)
{
	free_streams(r);
	if (r->pf_own)
		weft__pf_free(r->pf);
	free(r->heap);
	free(r->batch);
	free(r->textbuf);
	free(r->sinfo);
	free(r->names);
	for (struct namebuf *nb = r->namebufs, *next; nb; nb = next) {
		next = nb->next;
		free(nb);
	}
	free(r->hdrcopy);
	free(r->owned);
	if (r->src.fd >= 0)
		close(r->src.fd);
	weft__kread_free(r->src.kv);
	free(r);
}

/* The text field of the header (the program name), valid UTF-8. */
static void set_comm(struct weft_trace_info *in, const struct weft__fhdr *h)
{
	weft_utf8_fix(in->comm, sizeof in->comm, h->comm,
		      strnlen(h->comm, sizeof h->comm));
}

/* The header region is at hand (r->hdr) and checked (r->rh). */
static int open_common(struct weft_reader *r)
{
	const struct weft__fhdr *h = &r->rh.h;
	struct weft_trace_info *in = &r->info;
	int err;

	memcpy(in->uuid, h->uuid, 16);
	weft__uuid_str(h->uuid, in->uuid_str);
	in->major = h->major;
	in->minor = h->minor;
	in->pid = h->pid;
	in->ppid = h->ppid;
	set_comm(in, h);
	in->session = h->session;
	in->packet_size = h->packet_size;
	in->npackets = h->npackets;
	in->mode = (int)h->mode;
	in->file_size = h->file_size;
	in->lost_no_stream = h->lost_no_stream;
	in->lost_names = h->lost_names;
	if (!in->writer)
		in->writer = h->state == WEFT_STATE_STOPPED
				     ? WEFT_WRITER_STOPPED
				     : WEFT_WRITER_GONE;
	r->live = in->writer == WEFT_WRITER_LIVE;
	weft__derive_shapes(r->shape);
	weft__setup_clock(r);
	weft__load_machine(r);
	if ((err = weft__load_tables(r)))
		return err;
	if ((err = weft__index_ring(r, 0)))
		return err;
	r->heap = malloc((r->nst ? r->nst : 1) * sizeof *r->heap);
	if (!r->heap)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->nst; i++) {
		if (!r->src.mem || r->live) {
			r->st[i].copy = malloc(h->packet_size);
			if (!r->st[i].copy)
				return -ENOMEM;
		}
		r->sinfo[i].first_ts = UINT64_MAX;
	}
	in->first_ts = UINT64_MAX;
	return 0;
}

static struct weft_reader *reader_new(unsigned flags)
{
	struct weft_reader *r = calloc(1, sizeof *r);
	if (r) {
		r->ops = &weft__ring_ops;
		r->src.fd = -1;
		r->flags = flags;
		r->ahead = UINT32_MAX;
	}
	return r;
}

/* Memory: checked and read in place. */
static int open_in_memory(struct weft_reader *r, const uint8_t *data,
			  size_t len, struct weft_diag *d)
{
	r->src.mem = data;
	r->src.len = len;
	int err = weft__hdr_check(data, len, &r->rh, d);
	if (err)
		return err;
	r->hdr = data;
	return open_common(r);
}

int weft__ring_open_mem(struct weft_reader **out, const void *data, size_t len,
			int own, unsigned flags, struct weft_diag *d)
{
	*out = NULL;
	struct weft_reader *r = reader_new(flags & ~WEFT_READ_FOLLOW);
	if (!r) {
		if (own)
			free((void *)data);
		return -ENOMEM;
	}
	if (own)
		r->owned = (uint8_t *)data;
	int err = open_in_memory(r, data, len, d);
	if (err) {
		weft__ring_free(r);
		return err;
	}
	*out = r;
	return 0;
}

/* Reads up to n bytes; fewer only at the end of the input. */
static int read_full(int fd, uint8_t *b, size_t n, size_t *got)
{
	*got = 0;
	while (*got < n) {
		ssize_t k = read(fd, b + *got, n - *got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			break;
		*got += (size_t)k;
	}
	return 0;
}

/*
 * Input that is not a regular file (a pipe, a terminal, a device): its
 * header first, and no further than it declares (a ring's, or a
 * bundle's), so that /dev/zero or an endless pipe is refused after its
 * first bytes, and a trace followed by more bytes is read to its end.
 */
int weft__slurp(int fd, uint8_t **out, size_t *outlen, int *bundle,
		struct weft_diag *d)
{
	struct weft__fhdr fh;
	struct rhdr rh;
	size_t got;
	*out = NULL;
	*bundle = 0;
	int err = read_full(fd, (uint8_t *)&fh, sizeof fh, &got);
	if (err)
		return weft__diag(d, err, 0, "%s", strerror(-err));
	uint64_t want = weft__bundle_size((const uint8_t *)&fh, got);
	if (want) {
		*bundle = 1;
		if (want < got)
			return weft__diag(d, WEFT_ECORRUPT, 16,
					  "bad bundle size %llu",
					  (unsigned long long)want);
	} else {
		/* Checked as if everything it declares were there; then
		 * read. */
		err = weft__hdr_check((const uint8_t *)&fh,
				      got < sizeof fh ? got : UINT64_MAX, &rh,
				      d);
		if (err)
			return err;
		want = rh.h.file_size;
	}
	size_t cap = 1 << 20, n = got;
	if (want > SIZE_MAX)
		return -ENOMEM;
	if (cap > want)
		cap = (size_t)want;
	if (cap < n)
		cap = n;
	uint8_t *b = malloc(cap);
	if (!b)
		return -ENOMEM;
	memcpy(b, &fh, n);
	while (n < want) {
		/* Grown as the bytes arrive, not as declared. */
		if (n == cap &&
		    weft__grow_to(&b, &cap, n + 1, 1, 1, (size_t)want)) {
			free(b);
			return -ENOMEM;
		}
		err = read_full(fd, b + n, cap - n, &got);
		if (err) {
			free(b);
			return weft__diag(d, err, n, "%s", strerror(-err));
		}
		n += got;
		if (n < cap)
			break; /* the end of the input */
	}
	*out = b;
	*outlen = n;
	return 0;
}

int weft__ring_open(struct weft_reader **out, const char *path, unsigned flags,
		    struct weft_diag *d)
{
	*out = NULL;
	struct weft_reader *r = reader_new(flags);
	if (!r)
		return -ENOMEM;
	int err = weft__open_file_header(&r->src, path, &r->rh, d);
	if (err)
		goto out;
	r->hdrcopy = malloc(r->rh.h.header_size);
	if (!r->hdrcopy) {
		err = -ENOMEM;
		goto out;
	}
	r->hdr = r->hdrcopy;
	if (weft__writer_holds(r->src.fd))
		r->info.writer = WEFT_WRITER_LIVE;
	if ((err = weft__hdr_reload(r))) {
		err = weft__diag(d, err, 0,
				 "the file shrank while its header "
				 "was read");
		goto out;
	}
	/* The tables as they are now (the checked copy holds the counts of
	 * the first read). */
	const struct weft__fhdr *fh = (const void *)r->hdr;
	if (r->info.writer == WEFT_WRITER_LIVE) {
		r->rh.h.nstreams = fh->nstreams < r->rh.h.streams_cap
					   ? fh->nstreams
					   : r->rh.h.streams_cap;
		r->rh.h.state = fh->state;
	}
	err = open_common(r);
out:
	if (err) {
		weft__ring_free(r);
		return err;
	}
	*out = r;
	return 0;
}

int weft__reader_open_kept(struct weft_reader **out, struct weft__kring *K,
			   unsigned flags, struct weft_diag *d)
{
	*out = NULL;
	struct weft_reader *r = reader_new(flags & ~WEFT_READ_FOLLOW);
	if (!r)
		return -ENOMEM;
	uint64_t size;
	const uint8_t *h = weft__kring_header(K, &size);
	int err = (r->src.kv = weft__kread_new(K)) ? 0 : -ENOMEM;
	r->src.len = size;
	if (!err)
		err = weft__hdr_check(h, size, &r->rh, d);
	if (!err) {
		r->hdr = h;
		err = open_common(r);
	}
	if (err) {
		weft__ring_free(r);
		return err;
	}
	*out = r;
	return 0;
}

static void uncount(struct weft_reader *r);

static void ring_info(struct weft_reader *r)
{
	struct weft_trace_info *in = &r->info;
	uncount(r);
	in->events = 0;
	for (unsigned t = 0; t < WEFT_EV_COUNT; t++)
		in->events += in->counts[t];
	in->first_ts = UINT64_MAX;
	in->last_ts = 0;
	for (uint32_t i = 0; i < r->nst; i++) {
		struct weft_stream_info *si = &r->sinfo[i];
		const struct rstream *s = &r->st[i];
		si->events = s->nev;
		si->first_ts = s->nev ? s->first_ts : UINT64_MAX;
		si->last_ts = s->nev ? s->last_ts : 0;
		if (s->nev && s->first_ts < in->first_ts)
			in->first_ts = s->first_ts;
		if (s->nev && s->last_ts > in->last_ts)
			in->last_ts = s->last_ts;
	}
}

static const struct weft_problem *ring_problems(struct weft_reader *r,
						unsigned *n)
{
	*n = r->nprob;
	return r->prob;
}

/* ------------------------------------------------------------- merge */

static inline __attribute__((always_inline)) int
take(struct weft_reader *r, uint32_t idx, struct weft_event *ev)
{
	struct rstream *s = &r->st[idx];
	if (s->pending == 2) {
		memset(ev, 0, sizeof *ev);
		ev->type = WEFT_EV_LOSS;
		ev->ts = s->loss_ts;
		ev->value = (int64_t)s->loss_packets;
		ev->id = s->loss_events;
		ev->actor = s->cur;
		ev->offset = s->pk_off;
		if (s->loss_partial)
			ev->flags = WEFT_EVF_PARTIAL;
		s->loss = s->loss_partial = 0;
		s->loss_packets = s->loss_events = 0;
	} else if (!weft__fast_decode(r, s, ev) &&
		   weft__decode(r, s, ev) != 1) {
		weft__corrupt_packet(r, s, idx);
		s->pending = 0;
		return 0;
	}
	s->pending = 0;
	if (__builtin_expect(s->carried, 0))
		ev->flags |= WEFT_EVF_CARRIED;
	ev->stream = idx;
	ev->ns = weft__ns(r, ev->ts);
	return 1;
}

static int before(struct weft_reader *r, uint32_t a, uint32_t b)
{
	uint64_t x = r->st[a].next_ts, y = r->st[b].next_ts;
	return x < y || (x == y && a < b);
}

static void heap_push(struct weft_reader *r, uint32_t s)
{
	uint32_t i = r->nheap++;
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!before(r, s, r->heap[p]))
			break;
		r->heap[i] = r->heap[p];
		i = p;
	}
	r->heap[i] = s;
}

/* Moves `s`, put at the top of the heap, down to its place. */
static void heap_sift(struct weft_reader *r, uint32_t s)
{
	uint32_t i = 0, n = r->nheap;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(r, r->heap[c + 1], r->heap[c]))
			c++;
		if (!before(r, r->heap[c], s))
			break;
		r->heap[i] = r->heap[c];
		i = c;
	}
	r->heap[i] = s;
}

static uint32_t heap_pop(struct weft_reader *r)
{
	uint32_t top = r->heap[0];
	uint32_t last = r->heap[--r->nheap];
	if (r->nheap)
		heap_sift(r, last);
	return top;
}

/* Follow mode: streams registered since the last look. */
static void new_streams(struct weft_reader *r)
{
	const struct weft__fhdr *fh = (const void *)r->hdr;
	uint32_t ns = fh->nstreams;
	if (ns > r->rh.h.streams_cap)
		ns = r->rh.h.streams_cap;
	if (ns <= r->nst)
		return;
	struct rstream *st = realloc(r->st, ns * sizeof *st);
	if (st)
		r->st = st;
	struct weft_stream_info *si = st ? realloc(r->sinfo, ns * sizeof *si)
					 : NULL;
	if (si)
		r->sinfo = si;
	uint32_t *hp = si ? realloc(r->heap, ns * sizeof *hp) : NULL;
	if (!hp)
		return; /* out of memory: they wait for the next look */
	r->heap = hp;
	for (uint32_t i = r->nst; i < ns; i++) {
		memset(&r->st[i], 0, sizeof r->st[i]);
		weft__stream_info(r, i);
		r->st[i].copy = malloc(r->rh.h.packet_size);
		if (!r->st[i].copy) {
			ns = i;
			break;
		}
	}
	r->nst = ns;
	r->info.nstreams = ns;
	r->info.streams = r->sinfo;
}

/* Follow mode: looks for what the writer committed since the last look.
 * Returns the number of streams that have something new. */
static int refresh(struct weft_reader *r)
{
	if (weft__hdr_reload(r))
		return 0;
	new_streams(r);
	/* Names interned since. */
	if (weft__load_names(r))
		return 0;
	/* (a packet being decoded that has grown since it was copied: its
	 * stream's peek copies it again, decode.c) */
	int got = 0;
	weft__index_ring(r, 1);
	for (uint32_t i = 0; i < r->nst; i++) {
		struct rstream *s = &r->st[i];
		if (!s->pending && weft__peek(r, i)) {
			heap_push(r, i);
			got++;
		}
	}
	return got;
}

/* Per-event bookkeeping, kept to a few increments; weft_reader_info()
 * derives the rest. */
static inline void account(struct weft_reader *r, const struct weft_event *ev)
{
	struct rstream *s = &r->st[ev->stream];
	if (ev->type == WEFT_EV_LOSS) {
		/* Declared drops (full ring, and re-entry from signal
		 * handlers: events_nested is the part of them due to that). */
		r->info.losses.events_discarded += ev->id;
		r->sinfo[ev->stream].losses.events_discarded += ev->id;
		return;
	}
	r->info.counts[ev->type]++;
	if (!s->nev++)
		s->first_ts = ev->ts;
	s->last_ts = ev->ts;
}

/*
 * The text of the event returned: valid UTF-8 (invalid sequences become
 * U+FFFD), and valid until the next call.  A file's packet copy is reused
 * when the stream moves on to its next packet, so from a file the text is
 * kept here; from memory it stays in place unless it had to be fixed.
 */
static int keep_text(struct weft_reader *r, struct weft_event *ev)
{
	int valid = weft_utf8_valid(ev->text, ev->text_len);
	if (valid && r->src.mem && !r->live)
		return 0;
	size_t cap = (size_t)r->rh.h.packet_size * 3 + 1;
	if (!r->textbuf && !(r->textbuf = malloc(cap)))
		return -ENOMEM;
	if (valid) {
		memcpy(r->textbuf, ev->text, ev->text_len + 1);
	} else {
		ev->text_len = (uint32_t)weft_utf8_fix(r->textbuf, cap,
						       ev->text, ev->text_len);
		ev->flags |= WEFT_EVF_REPLACED;
	}
	ev->text = r->textbuf;
	return 0;
}

/* Follow mode, nothing left: is the writer still there? */
static int writer_live(struct weft_reader *r)
{
	return weft__writer_holds(r->src.fd);
}

/*
 * The common case of next_event() in straight-line code: the next event of
 * the stream at the top of the heap is complete in its packet and of a
 * simple shape (no loss, no text).  `several`: the heap holds other
 * streams (else only this one: a single-threaded program's trace, or the
 * last stream left), a constant, so that each case compiles to its own
 * code.  Returns 1 having done what next_event() does (take, peek,
 * account), or 0 having changed nothing.  The caller's event is written
 * last: for all the compiler knows that struct may alias the reader, and
 * the general path loads the stream's fields again after each store to
 * it.  (A reader of several rings has no heap of its own: merge.c merges
 * them.)
 */
static inline __attribute__((always_inline)) int
next_fast(struct weft_reader *r, struct weft_event *ev, int several)
{
	uint32_t idx = r->heap[0];
	struct rstream *s = &r->st[idx];
	struct weft__payload f;
	if (s->pending != 1 || s->carried || !weft__fast_payload(r, s, &f))
		return 0; /* (a carried event: take() marks it) */
	const uint8_t *data = s->data;
	uint32_t end = s->end;
	unsigned id = s->next_id;
	uint64_t actor, offset, ts = weft__step(s, &f, &actor, &offset);
	/* weft__peek(), with what it would load at hand: an event was
	 * pending, so the stream is in a packet and has no loss. */
	uint32_t w;
	int gone = 0;
	if (f.next + 4 <= end &&
	    ((w = weft__ld32(data + f.next)) & 31) != WEFT_EH_EXTENDED) {
		s->next_ts = weft__compact_ts(ts, w);
		s->next_id = w & 31;
		s->next_hdr = 4;
	} else {
		s->pending = 0;
		gone = !weft__peek_slow(r, idx);
		if (gone && !several)
			r->nheap = 0;
	}
	/* account() */
	r->info.counts[id]++;
	if (!s->nev++)
		s->first_ts = ts;
	s->last_ts = ts;
	int64_t ns = weft__ns(r, ts);
	weft__fill(ev, ts, id, actor, offset, &f);
	ev->stream = idx;
	ev->ns = ns;
	/* next_event() pops the stream and pushes it again; here it moves
	 * down from the top to its place, in one pass, and the order is the
	 * same (the streams' times, then their indices, are a total
	 * order). */
	if (several && gone)
		heap_pop(r);
	else if (several)
		heap_sift(r, idx);
	return 1;
}

/*
 * Batches: the stream at the top of the heap decoded several events at a
 * time, in one loop that keeps the stream's state in registers, into
 * r->batch, which weft_reader_next() then returns one by one (a copy, and
 * no branch on the stream's state).  A batch holds events of the current
 * packet of one stream, with compact headers and of the simple shapes
 * next_fast() decodes, that come before every other stream's next event
 * (the heap's order: times, then indices); and never the packet's last
 * event, whose peek opens the next packet: next_fast() takes it alone, so
 * that losses and problems are found when they were, and a packet that
 * ends in the middle of an event is left to weft__decode() (a counted
 * loss).  The events are counted as decoded; weft_reader_info() takes
 * back those not returned yet (uncount()), so that between two calls it
 * says what it said.
 */
#define BATCH 64

/* Counts batch[k..n) (of one stream). */
static void count_batch(struct weft_reader *r, uint32_t k, uint32_t n)
{
	if (k >= n)
		return;
	const struct weft_event *b = r->batch;
	struct rstream *s = &r->st[r->bstream];
	if (!s->nev)
		s->first_ts = b[k].ts;
	s->nev += n - k;
	s->last_ts = b[n - 1].ts;
	for (; k < n; k++)
		r->info.counts[b[k].type]++;
}

/* weft_reader_info(): the events of the batch returned are counted, and
 * those not returned yet are not. */
static void uncount(struct weft_reader *r)
{
	uint32_t k = r->bi, n = r->bn;
	if (r->bu < n) {
		/* (those not returned are not counted already) */
		count_batch(r, r->bu, k);
	} else if (k < n) {
		const struct weft_event *b = r->batch;
		struct rstream *s = &r->st[r->bstream];
		s->nev -= n - k;
		s->last_ts = k ? b[k - 1].ts : r->blast;
		for (uint32_t i = k; i < n; i++)
			r->info.counts[b[i].type]--;
	}
	r->bu = k;
}

/* The batch is all returned: every event of it counted. */
static void settle(struct weft_reader *r)
{
	if (r->bu < r->bn)
		count_batch(r, r->bu, r->bn);
	r->bu = r->bn;
}

/* The loop of refill(), on its own: the stream's state in locals (under
 * -fno-strict-aliasing, every store to the batch would otherwise load the
 * reader's and the stream's fields again), each shape storing its fields
 * straight into the batch.  Decodes the events of stream idx (s) whose
 * header is compact into r->batch while they come before (bts, bidx);
 * returns how many, the stream's state moved past them. */
static inline __attribute__((always_inline)) uint32_t
decode_run(struct weft_reader *r, struct rstream *s, uint32_t idx, uint64_t bts,
	   uint32_t bidx, int several)
{
	const uint8_t *data = s->data;
	struct weft_event *b = r->batch;
	uint64_t origin = r->info.origin_ticks, mult = r->mult;
	uint32_t end = s->end, pos = s->pos;
	unsigned id = s->next_id;
	uint64_t ts = s->next_ts, cur = s->cur, pk_off = s->pk_off;
	uint32_t n = 0;
	_Static_assert(WEFT_EV_COUNT <= 32, "r->shape: ids < 32");
	_Static_assert(SH_ID_NAME_NAME < 8, "shapes < 8");
	if (s->next_hdr != 4)
		return 0;
	for (;;) {
		struct weft_event *e = &b[n];
		const uint8_t *p = data + pos + 4;
		uint32_t left = end - pos - 4, len, w;
		uint64_t x = 0;
		/* (id < 32, and a shape < 8: no check before the jump) */
		switch (r->shape[id] & 7) {
		case SH_NONE:
			len = 0;
			e->id = e->id2 = 0;
			e->name = e->name2 = 0;
			e->value = 0;
			break;
		case SH_ID:
			len = 8;
			if (left < len)
				goto stop;
			e->id = x = weft__ld64(p);
			e->id2 = 0;
			e->name = e->name2 = 0;
			e->value = 0;
			break;
		case SH_NAME:
			len = 2;
			if (left < len)
				goto stop;
			e->id = e->id2 = 0;
			e->name = weft__ld16(p);
			e->name2 = 0;
			e->value = 0;
			break;
		case SH_ID_NAME:
			len = 10;
			if (left < len)
				goto stop;
			e->id = x = weft__ld64(p);
			e->id2 = 0;
			e->name = weft__ld16(p + 8);
			e->name2 = 0;
			e->value = 0;
			break;
		case SH_ID_NAME_NAME:
			len = 12;
			if (left < len)
				goto stop;
			e->id = x = weft__ld64(p);
			e->id2 = 0;
			e->name = weft__ld16(p + 8);
			e->name2 = weft__ld16(p + 10);
			e->value = 0;
			break;
		case SH_NAME_VAL:
			len = 10;
			if (left < len)
				goto stop;
			e->id = e->id2 = 0;
			e->name = weft__ld16(p);
			e->name2 = 0;
			e->value = (int64_t)weft__ld64(p + 2);
			break;
		case SH_ID_ID:
			len = 16;
			if (left < len)
				goto stop;
			e->id = x = weft__ld64(p);
			e->id2 = weft__ld64(p + 8);
			e->name = e->name2 = 0;
			e->value = 0;
			break;
		case SH_GENERIC:
		default:
			goto stop;
		}
		/* the packet's last event: not in a batch */
		if (left < len + 4 ||
		    ((w = weft__ld32(p + len)) & 31) == WEFT_EH_EXTENDED)
			break;
		e->ts = ts;
		e->ns = weft__ns_at(origin, mult, ts);
		e->stream = idx;
		e->type = (uint16_t)id;
		e->actor = cur;
		e->offset = pk_off + pos;
		/* (flags, text, text_len, value2, value3: 0 since the
		 * batch was allocated) */
		n++;
		r->info.counts[id]++;
		if (weft__switches(id))
			cur = x;
		pos += 4 + len;
		ts = weft__compact_ts(ts, w);
		id = w & 31;
		if (n == BATCH)
			break;
		if (several && (ts > bts || (ts == bts && idx > bidx)))
			break;
	}
stop:
	if (n) {
		s->pos = pos;
		s->clock = b[n - 1].ts;
		s->cur = cur;
		s->next_ts = ts;
		s->next_id = id;
	}
	return n;
}

/* (each case its own code) */
static __attribute__((noinline)) uint32_t
decode_one(struct weft_reader *r, struct rstream *s, uint32_t idx)
{
	return decode_run(r, s, idx, UINT64_MAX, UINT32_MAX, 0);
}

static __attribute__((noinline)) uint32_t
decode_several(struct weft_reader *r, struct rstream *s, uint32_t idx,
	       uint64_t bts, uint32_t bidx)
{
	return decode_run(r, s, idx, bts, bidx, 1);
}

/* Decodes a batch (above) of the stream at the top of the heap: 1, the
 * first of them in r->batch[0], or 0 (none: the caller takes the next
 * event as it did). */
static inline __attribute__((always_inline)) int refill(struct weft_reader *r,
							int several)
{
	settle(r);
	r->bi = r->bn = r->bu = 0;
	uint32_t idx = r->heap[0];
	struct rstream *s = &r->st[idx];
	if (s->pending != 1 || s->carried)
		return 0; /* (a carried event: take() marks it) */
	if (!r->batch && !(r->batch = calloc(BATCH, sizeof *r->batch)))
		return 0;
	/* the first other stream's next event: the batch's bound */
	uint64_t bts = UINT64_MAX;
	uint32_t bidx = UINT32_MAX;
	if (several) {
		bidx = r->heap[1];
		if (r->nheap > 2 && before(r, r->heap[2], bidx))
			bidx = r->heap[2];
		bts = r->st[bidx].next_ts;
	}
	uint32_t n = several ? decode_several(r, s, idx, bts, bidx)
			     : decode_one(r, s, idx);
	if (!n)
		return 0;
	/* counted as decoded (uncount() takes back those not returned) */
	r->bstream = idx;
	r->blast = s->last_ts;
	if (!s->nev)
		s->first_ts = r->batch[0].ts;
	s->nev += n;
	s->last_ts = r->batch[n - 1].ts;
	if (several)
		heap_sift(r, idx);
	r->bn = r->bu = n;
	return 1;
}

/* Everything but next_fast(): kept out of line, so that the common path
 * of weft_reader_next() is a small function of its own. */
static __attribute__((noinline)) int next_event(struct weft_reader *r,
						struct weft_event *ev)
{
	settle(r);
	if (!r->started) {
		r->started = 1;
		for (uint32_t i = 0; i < r->nst; i++)
			if (weft__peek(r, i))
				heap_push(r, i);
	}
again:
	if (!r->nheap) {
		if (!(r->flags & WEFT_READ_FOLLOW))
			return WEFT_EEOF;
		int live = writer_live(r);
		r->live = 1; /* copy packets by the protocol from now on */
		if (!refresh(r)) {
			if (live)
				return WEFT_EAGAIN;
			const struct weft__fhdr *fh = (const void *)r->hdr;
			r->info.writer = fh->state == WEFT_STATE_STOPPED
						 ? WEFT_WRITER_STOPPED
						 : WEFT_WRITER_GONE;
			return WEFT_EEOF;
		}
	}
	uint32_t s;
	int ok;
	if (r->nheap == 1) {
		/* One stream left (or only one): no merge needed. */
		s = r->heap[0];
		ok = take(r, s, ev);
		if (ok && ev->text && keep_text(r, ev))
			return -ENOMEM;
		if (!weft__peek(r, s))
			r->nheap = 0;
	} else {
		s = heap_pop(r);
		ok = take(r, s, ev);
		if (ok && ev->text && keep_text(r, ev))
			return -ENOMEM;
		if (weft__peek(r, s))
			heap_push(r, s);
	}
	if (!ok)
		goto again;
	account(r, ev);
	return 0;
}

/* The packets indexed, and those opened (what is left to read is in
 * the others). */
static void ring_packets(const struct weft_reader *r, uint64_t *done,
			 uint64_t *all)
{
	for (uint32_t i = 0; i < r->nst; i++) {
		*done += r->st[i].next_pk;
		*all += r->st[i].npk;
	}
}

/* Every case but one stream's next_fast(), out of line, so that the
 * common path stays the small function it is: several streams in the
 * heap, or what next_event() does. */
static __attribute__((noinline)) int next_other(struct weft_reader *r,
						struct weft_event *ev)
{
	if (r->nheap > 1 && refill(r, 1)) {
		*ev = r->batch[r->bi++];
		return 0;
	}
	if (!r->nheap || !next_fast(r, ev, 1))
		return next_event(r, ev);
	return 0;
}

/* One stream in the heap: its next event in straight-line code. */
static int next_one(struct weft_reader *r, struct weft_event *ev)
{
	if (refill(r, 0)) {
		*ev = r->batch[r->bi++];
		return 0;
	}
	if (!next_fast(r, ev, 0))
		return next_event(r, ev);
	return 0;
}

/* The ring's next event when its batch is empty (weft_reader_next). */
static int ring_next(struct weft_reader *r, struct weft_event *ev)
{
	if (r->nheap == 1)
		return next_one(r, ev);
	return next_other(r, ev);
}

/* ------------------------------------------------------------ process */

static const struct weft_process *ring_processes(struct weft_reader *r,
						 uint32_t *n)
{
	/* one ring: the process that wrote it */
	struct weft_process one;
	memset(&one, 0, sizeof one);
	const struct weft_trace_info *in = &r->info;
	one.pid = in->pid;
	one.ppid = in->ppid;
	one.parent = one.prev_image = one.next_image = WEFT_NO_PROCESS;
	memcpy(one.comm, in->comm, sizeof one.comm);
	one.exe = "";
	one.t_start = 0;
	one.t_end = INT64_MAX;
	one.end = in->writer == WEFT_WRITER_GONE ? WEFT_PROC_VANISHED
						 : WEFT_PROC_RUNNING;
	one.nstreams = in->nstreams;
	r->one = one;
	*n = 1;
	return &r->one;
}

static uint32_t ring_stream_process(struct weft_reader *r, uint32_t stream)
{
	return stream < r->info.nstreams ? 0 : WEFT_NO_PROCESS;
}

static const struct weft_host *ring_hosts(struct weft_reader *r, uint32_t *n)
{
	static const struct weft_host none = {0};
	(void)r;
	*n = 1;
	return &none;
}

const struct weft__reader_ops weft__ring_ops = {
	.next = ring_next,
	.info = ring_info,
	.problems = ring_problems,
	.name = weft__ring_name,
	.copy = weft__ring_copy,
	.ctf = weft__ring_ctf,
	.processes = ring_processes,
	.stream_process = ring_stream_process,
	.hosts = ring_hosts,
	.packets = ring_packets,
	.close = weft__ring_free,
};
