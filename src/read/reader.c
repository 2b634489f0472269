/* SPDX-License-Identifier: MIT */
/*
 * reader.c - reads a weft ring: validates the header, indexes the valid
 * packets of every stream, and merges the streams' events in time order,
 * inserting a WEFT_EV_LOSS pseudo-event wherever something is missing.
 *
 * Every byte is hostile: lengths and offsets are checked before use, a
 * packet that fails validation is skipped and counted, and the offset of
 * what was wrong is kept in the problem list.  A ring that a live writer
 * still holds is read through per-packet consistent copies (see the commit
 * protocol in src/common/format.h); a finished one is read in place.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifndef __wasi__
#include <sys/file.h>
#include <sys/mman.h>
#endif

#include "internal.h"

#define MASK27 ((1ull << WEFT_EH_COMPACT_BITS) - 1)
#define MAX_PROBLEMS 64

struct rstream {
	struct rpacket *pk; /* sorted by seq */
	uint32_t npk, pkcap;
	uint32_t next_pk;     /* next packet to open */
	const uint8_t *data;  /* packet being decoded */
	uint32_t pos, end;    /* bytes within it */
	uint64_t pk_off;      /* its file offset */
	uint64_t pk_gen, pk_seq, pk_discarded;
	uint32_t pk_slot;
	int in_packet;
	uint64_t clock;       /* last timestamp */
	uint64_t cur;         /* current async thread */
	uint64_t expect_seq;  /* next packet_seq_num expected */
	uint64_t last_discarded;
	uint8_t *copy;        /* packet copy (live rings) */
	int prev_open; /* the packet before was open when copied */
	int pending;      /* 1 an event at pos, 2 a loss (see peek) */
	uint64_t next_ts; /* its time */
	uint32_t next_id, next_hdr; /* its event id and header size */
	uint64_t nev, first_ts, last_ts; /* events returned so far */
	/* a loss found, to be returned before the next event */
	int loss, loss_partial;
	uint64_t loss_packets, loss_events, loss_ts;
};

struct namebuf {
	struct namebuf *next;
	char s[];
};

struct weft_reader {
	const uint8_t *base;
	size_t len;
	uint8_t *owned;
	size_t mapped;
	int fd;
	unsigned flags;
	int live; /* a writer holds the ring: copy packets before use */
	struct rhdr rh;
	struct weft_trace_info info;
	struct weft_stream_info *sinfo;
	const char **names; /* names_cap entries, info.nnames loaded */
	struct namebuf *namebufs;
	uint32_t names_missing; /* the first name not loaded yet */
	struct rstream *st;
	uint32_t nst;
	uint32_t *heap;
	uint32_t nheap;
	int started;
	uint64_t mult; /* ns per tick << 32 */
	struct weft_problem prob[MAX_PROBLEMS];
	unsigned nprob;
	char *textbuf; /* live rings: the text of the event returned */
	uint8_t shape[WEFT_EV_COUNT];
};

/* ------------------------------------------------------------- helpers */

__attribute__((format(printf, 3, 4))) static void
problem(struct weft_reader *r, uint64_t off, const char *fmt, ...)
{
	r->info.problems++;
	if (r->nprob >= MAX_PROBLEMS)
		return;
	struct weft_problem *p = &r->prob[r->nprob++];
	p->offset = off;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->what, sizeof p->what, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 4, 5))) static int
fail(struct weft_diag *d, int err, uint64_t off, const char *fmt, ...)
{
	if (d) {
		d->offset = off;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(d->msg, sizeof d->msg, fmt, ap);
		va_end(ap);
	}
	return err;
}

static inline uint64_t ld64_acq(const uint8_t *p)
{
	/* Packet fields at 8-aligned offsets of 1 KiB-aligned packets; the
	 * file start is page- or malloc-aligned, so this is aligned. */
	if (((uintptr_t)p & 7) == 0)
		return __atomic_load_n((const uint64_t *)(const void *)p,
				       __ATOMIC_ACQUIRE);
	uint64_t v;
	memcpy(&v, p, 8);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return v;
}

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* ------------------------------------------------------------- header */

int weft__hdr_check(const uint8_t *base, size_t len, struct rhdr *out,
		    struct weft_diag *d)
{
	const struct weft__fhdr *fh = (const void *)base;
	struct weft__fhdr *h = &out->h;

	if (len == 0)
		return fail(d, WEFT_EEMPTY, 0, "empty input");
	if (len < 8 || memcmp(base, WEFT_FILE_MAGIC, 8)) {
		if (len >= 4 && weft__ld32(base) == WEFT_CTF_MAGIC)
			return fail(d, WEFT_ENOTTRACE, 0,
				    "a bare CTF packet, not a weft ring file "
				    "(read CTF directories with babeltrace2)");
		return fail(d, WEFT_ENOTTRACE, 0,
			    "not a weft trace (no WEFTRING magic)");
	}
	if (len < sizeof *fh)
		return fail(d, WEFT_ETRUNC, len,
			    "truncated in the file header (%zu of %zu bytes)",
			    len, sizeof *fh);
	memcpy(h, fh, sizeof *h);
	/* The atomics of the header, read once, with acquire where the
	 * writer publishes with release. */
	h->nstreams = __atomic_load_n(&fh->nstreams, __ATOMIC_ACQUIRE);
	h->nnames = __atomic_load_n(&fh->nnames, __ATOMIC_ACQUIRE);
	h->strings_used = __atomic_load_n(&fh->strings_used, __ATOMIC_ACQUIRE);
	h->state = __atomic_load_n(&fh->state, __ATOMIC_ACQUIRE);
	if (h->major != WEFT_FORMAT_MAJOR)
		return fail(d, WEFT_EVERSION, 8,
			    "format version %u.%u; this weft reads %u.x",
			    h->major, h->minor, WEFT_FORMAT_MAJOR);
	if (!is_pow2(h->packet_size) || h->packet_size < WEFT_MIN_PACKET ||
	    h->packet_size > WEFT_MAX_PACKET)
		return fail(d, WEFT_ECORRUPT,
			    offsetof(struct weft__fhdr, packet_size),
			    "bad packet size %u", h->packet_size);
	if (h->header_size < sizeof *fh || h->header_size % 4096 ||
	    h->npackets == 0 ||
	    h->file_size != (uint64_t)h->header_size +
				    (uint64_t)h->npackets * h->packet_size)
		return fail(d, WEFT_ECORRUPT,
			    offsetof(struct weft__fhdr, header_size),
			    "inconsistent ring geometry (header %u, %u packets "
			    "of %u, file %llu bytes)",
			    h->header_size, h->npackets, h->packet_size,
			    (unsigned long long)h->file_size);
	if (len < h->file_size)
		return fail(d, WEFT_ETRUNC, len,
			    "truncated: %zu of %llu bytes", len,
			    (unsigned long long)h->file_size);
	uint64_t hs = h->header_size;
	if ((uint64_t)h->metadata_off + h->metadata_len > hs ||
	    (uint64_t)h->streams_off +
			    (uint64_t)h->streams_cap *
				    sizeof(struct weft__fstream) >
		    hs ||
	    (uint64_t)h->names_off +
			    (uint64_t)h->names_cap * sizeof(struct weft__fname) >
		    hs ||
	    (uint64_t)h->strings_off + h->strings_cap > hs ||
	    (h->streams_off & 7) || (h->names_off & 3))
		return fail(d, WEFT_ECORRUPT,
			    offsetof(struct weft__fhdr, metadata_off),
			    "header tables lie outside the header");
	if (h->freq == 0)
		return fail(d, WEFT_ECORRUPT, offsetof(struct weft__fhdr, freq),
			    "clock frequency is 0");
	if (h->nstreams > h->streams_cap)
		h->nstreams = h->streams_cap;
	if (h->nnames > h->names_cap)
		h->nnames = h->names_cap;
	if (h->strings_used > h->strings_cap)
		h->strings_used = h->strings_cap;
	out->packets_off = hs;
	return 0;
}

long weft__packet_copy(const uint8_t *base, const struct rhdr *rh,
		       uint32_t slot, uint8_t *dst, uint64_t *genp)
{
	uint32_t ps = rh->h.packet_size;
	const uint8_t *pk = base + rh->packets_off + (uint64_t)slot * ps;
	/* Order: gen, then content_size, then the bytes, then (after an
	 * acquire fence) the trailer.  Pairs with open_packet() and
	 * ev_commit() in src/record/record.c. */
	uint64_t gen = ld64_acq(pk + WEFT_PK_GEN);
	*genp = gen;
	if (!gen)
		return 0;
	/* timestamp_end before content_size (it sits before it, too, for a
	 * sequential copy): a packet seen closed has its final content.
	 * Pairs with the release store in close_packet(). */
	uint64_t ts_end = ld64_acq(pk + WEFT_PK_TS_END);
	uint64_t content = ld64_acq(pk + WEFT_PK_CONTENT);
	memcpy(dst, pk, ps);
	/* The copy says what we read first, not what memcpy saw later. */
	memcpy(dst + WEFT_PK_TS_END, &ts_end, 8);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	uint64_t trailer = weft__ld64(pk + ps - WEFT_PK_TRAILER);
	if (trailer != gen || weft__ld64(dst + WEFT_PK_GEN) != gen)
		return -1;
	content /= 8;
	if (content < WEFT_PK_EVENTS || content > ps - WEFT_PK_TRAILER)
		return (long)content; /* let validation report it */
	/* What lies past the commit may be half written: never keep it. */
	memset(dst + content, 0, ps - WEFT_PK_TRAILER - content);
	memcpy(dst + WEFT_PK_CONTENT, &(uint64_t){content * 8}, 8);
	return (long)content;
}

/* ------------------------------------------------------------- open */

static void free_streams(struct weft_reader *r)
{
	for (uint32_t i = 0; i < r->nst; i++) {
		free(r->st[i].pk);
		free(r->st[i].copy);
	}
	free(r->st);
	r->st = NULL;
	r->nst = 0;
}

void weft_reader_close(struct weft_reader *r)
{
	if (!r)
		return;
	free_streams(r);
	free(r->heap);
	free(r->textbuf);
	free(r->sinfo);
	free(r->names);
	for (struct namebuf *nb = r->namebufs, *next; nb; nb = next) {
		next = nb->next;
		free(nb);
	}
#ifndef __wasi__
	if (r->mapped)
		munmap((void *)r->base, r->mapped);
#endif
	free(r->owned);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}

/* The clock: the writer refreshes an anchor (a seqlock) as it runs; the
 * frequency measured between the start anchor and the latest one is more
 * precise than the 2 ms calibration done at start. */
static void setup_clock(struct weft_reader *r)
{
	const struct weft__fhdr *fh = (const void *)r->base;
	struct weft__fhdr *h = &r->rh.h;
	struct weft__anchor a1 = h->a0;
	for (int tries = 0; tries < 100; tries++) {
		uint64_t s0 = __atomic_load_n(&fh->a1_seq, __ATOMIC_ACQUIRE);
		if (s0 & 1)
			continue;
		memcpy(&a1, &fh->a1, sizeof a1);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&fh->a1_seq, __ATOMIC_RELAXED) == s0)
			break;
	}
	uint64_t freq = h->freq;
	double span = (double)a1.mono_ns - (double)h->a0.mono_ns;
	if (h->clock_kind == WEFT_CLOCK_TSC && a1.ticks > h->a0.ticks &&
	    span > 1e8) {
		double f = (double)(a1.ticks - h->a0.ticks) * 1e9 / span;
		/* Trust it only if it agrees with the calibration to 1 %. */
		if (f > (double)freq * 0.99 && f < (double)freq * 1.01)
			freq = (uint64_t)(f + 0.5);
	}
	r->info.freq = freq;
	r->info.clock_kind = (int)h->clock_kind;
	r->info.origin_ticks = h->a0.ticks;
	r->info.origin_real_ns = h->a0.real_ns;
	r->mult = (uint64_t)((1e9 * 4294967296.0) / (double)freq);
	if (freq == 1000000000u)
		r->mult = 1ull << 32;
}

int64_t weft_reader_ns(struct weft_reader *r, uint64_t t)
{
	uint64_t o = r->info.origin_ticks;
	if (t >= o)
		return (int64_t)(((unsigned __int128)(t - o) * r->mult) >> 32);
	return -(int64_t)(((unsigned __int128)(o - t) * r->mult) >> 32);
}

/* Placeholders: a name not yet published (looked at again on the next
 * load) and one that lies outside the string table (never again). */
static const char name_pending[] = "?", name_bad[] = "?";

/* Loads the names interned since the last call (all of them the first
 * time).  Append-only: a name's text, once returned, stays where it is
 * until the reader closes, so a live reader can load more at any time. */
static int load_names(struct weft_reader *r)
{
	const struct weft__fhdr *fh = (const void *)r->base;
	const struct weft__fhdr *h = &r->rh.h;
	uint32_t cap = h->names_cap ? h->names_cap : 1;
	if (!r->names) {
		r->names = calloc(cap, sizeof *r->names);
		if (!r->names)
			return -ENOMEM;
		r->names[0] = "";
		r->info.nnames = 1;
		r->names_missing = 1;
	}
	uint32_t nn = r->live ? __atomic_load_n(&fh->nnames, __ATOMIC_ACQUIRE)
			      : h->nnames;
	uint32_t used = r->live ? __atomic_load_n(&fh->strings_used,
						  __ATOMIC_ACQUIRE)
				: h->strings_used;
	if (nn > cap)
		nn = cap;
	if (used > h->strings_cap)
		used = h->strings_cap;
	const struct weft__fname *fn =
		(const void *)(r->base + h->names_off);
	const uint8_t *strs = r->base + h->strings_off;
	/* Room for the texts of what is new or was pending. */
	size_t need = 0, count = 0;
	for (uint32_t i = r->names_missing; i < nn; i++)
		if (i >= r->info.nnames || r->names[i] == name_pending) {
			uint32_t len = __atomic_load_n(&fn[i].len,
						       __ATOMIC_ACQUIRE);
			if (!(len & WEFT_NAME_VALID))
				continue; /* not published yet: no room */
			len &= ~WEFT_NAME_VALID;
			need += (len < WEFT_NAME_MAX ? len : WEFT_NAME_MAX) + 1;
			count++;
		}
	/* A corrupt table's names may overlap: what is copied is bounded
	 * by the string table's size, not by the sum of the lengths. */
	if (need > (size_t)used + count)
		need = (size_t)used + count;
	struct namebuf *nb = NULL;
	char *w = NULL, *wend = NULL;
	if (need) {
		nb = malloc(sizeof *nb + need);
		if (!nb)
			return -ENOMEM;
		nb->next = r->namebufs;
		r->namebufs = nb;
		w = nb->s;
		wend = nb->s + need;
	}
	uint32_t missing = nn;
	for (uint32_t i = r->names_missing; i < nn; i++) {
		if (i < r->info.nnames && r->names[i] != name_pending)
			continue;
		uint32_t len = __atomic_load_n(&fn[i].len, __ATOMIC_ACQUIRE);
		uint32_t off = fn[i].off;
		if (!(len & WEFT_NAME_VALID)) {
			r->names[i] = name_pending;
			if (missing == nn)
				missing = i;
			continue;
		}
		len &= ~WEFT_NAME_VALID;
		/* The writer counts a string's bytes before it publishes
		 * the name: after the acquire load of len, strings_used
		 * covers it. */
		if (r->live && (uint64_t)off + len > used) {
			used = __atomic_load_n(&fh->strings_used,
					       __ATOMIC_ACQUIRE);
			if (used > h->strings_cap)
				used = h->strings_cap;
		}
		if (len > WEFT_NAME_MAX || (uint64_t)off + len > used ||
		    (!r->live && (size_t)(wend - w) < (size_t)len + 1)) {
			problem(r, h->names_off + (uint64_t)i * sizeof *fn,
				"name %u lies outside the string table", i);
			r->names[i] = name_bad;
			continue;
		}
		/* Published since room was counted: the next load. */
		if ((size_t)(wend - w) < (size_t)len + 1) {
			r->names[i] = name_pending;
			if (missing == nn)
				missing = i;
			continue;
		}
		memcpy(w, strs + off, len);
		w[len] = 0;
		r->names[i] = w;
		w += len + 1;
	}
	r->names_missing = missing;
	if (nn > r->info.nnames)
		r->info.nnames = nn;
	r->info.names = r->names;
	return 0;
}

static int load_tables(struct weft_reader *r)
{
	const struct weft__fhdr *h = &r->rh.h;
	const uint8_t *b = r->base;

	int err = load_names(r);
	if (err)
		return err;

	/* streams */
	uint32_t ns = h->nstreams;
	r->sinfo = calloc(ns ? ns : 1, sizeof *r->sinfo);
	r->st = calloc(ns ? ns : 1, sizeof *r->st);
	if (!r->sinfo || !r->st)
		return -ENOMEM;
	r->nst = ns;
	const struct weft__fstream *fs = (const void *)(b + h->streams_off);
	for (uint32_t i = 0; i < ns; i++) {
		struct weft_stream_info *si = &r->sinfo[i];
		si->index = i;
		if (!__atomic_load_n(&fs[i].valid, __ATOMIC_ACQUIRE))
			continue;
		si->tid = fs[i].tid;
		memcpy(si->name, fs[i].name, 16);
		si->name[16] = 0;
		si->start_ticks = fs[i].start_ticks;
		si->losses.events_nested = __atomic_load_n(
			&fs[i].dropped_nested, __ATOMIC_RELAXED);
		si->losses.texts_truncated =
			__atomic_load_n(&fs[i].truncated, __ATOMIC_RELAXED);
		r->info.losses.events_nested += si->losses.events_nested;
		r->info.losses.texts_truncated += si->losses.texts_truncated;
	}
	r->info.nstreams = ns;
	r->info.streams = r->sinfo;
	return 0;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct rpacket *x = a, *y = b;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

/* Validates the packet header at `pk` (a copy, or the ring itself when no
 * writer is live) and records it.  Returns 1 if indexed. */
static int index_packet(struct weft_reader *r, uint32_t slot,
			const uint8_t *pk, uint64_t gen)
{
	const struct weft__fhdr *h = &r->rh.h;
	uint64_t off = r->rh.packets_off + (uint64_t)slot * h->packet_size;
	uint32_t ps = h->packet_size;

	if (weft__ld32(pk + WEFT_PK_MAGIC) != WEFT_CTF_MAGIC)
		goto bad_magic;
	if (memcmp(pk + WEFT_PK_UUID, h->uuid, 16)) {
		problem(r, off + WEFT_PK_UUID, "packet %u: foreign trace UUID",
			slot);
		goto corrupt;
	}
	uint64_t content = weft__ld64(pk + WEFT_PK_CONTENT);
	if (weft__ld64(pk + WEFT_PK_SIZE) != (uint64_t)ps * 8 || content % 8 ||
	    content / 8 < WEFT_PK_EVENTS ||
	    content / 8 > ps - WEFT_PK_TRAILER) {
		problem(r, off + WEFT_PK_CONTENT,
			"packet %u: bad content/packet size", slot);
		goto corrupt;
	}
	uint64_t stream = weft__ld64(pk + WEFT_PK_STREAM);
	if (stream >= r->nst) {
		/* A stream registered after the header was read (live), or
		 * a corrupt id. */
		if (stream < h->streams_cap && r->live)
			return 0;
		problem(r, off + WEFT_PK_STREAM,
			"packet %u: unknown stream %llu", slot,
			(unsigned long long)stream);
		goto corrupt;
	}
	struct rstream *s = &r->st[stream];
	if (s->npk == s->pkcap) {
		uint32_t cap = s->pkcap ? s->pkcap * 2 : 16;
		struct rpacket *n = realloc(s->pk, cap * sizeof *n);
		if (!n)
			return -ENOMEM;
		s->pk = n;
		s->pkcap = cap;
	}
	struct rpacket *p = &s->pk[s->npk++];
	p->slot = slot;
	p->stream = (uint32_t)stream;
	p->gen = gen;
	p->seq = weft__ld64(pk + WEFT_PK_SEQ);
	p->ts_begin = weft__ld64(pk + WEFT_PK_TS_BEGIN);
	p->ts_end = weft__ld64(pk + WEFT_PK_TS_END);
	p->discarded = weft__ld64(pk + WEFT_PK_DISCARDED);
	p->current = weft__ld64(pk + WEFT_PK_CURRENT);
	r->info.packets_used++;
	return 1;

bad_magic:
	problem(r, off, "packet %u: bad magic", slot);
corrupt:
	r->info.losses.packets_corrupt++;
	return 0;
}

/* Finds the valid packets of the ring.  With `refresh` set (follow mode),
 * only packets newer than what each stream has already indexed. */
static int index_ring(struct weft_reader *r, int refresh)
{
	const struct weft__fhdr *h = &r->rh.h;
	uint8_t *tmp = r->live ? malloc(h->packet_size) : NULL;
	if (r->live && !tmp)
		return -ENOMEM;
	for (uint32_t slot = 0; slot < h->npackets; slot++) {
		const uint8_t *pk =
			r->base + r->rh.packets_off +
			(uint64_t)slot * h->packet_size;
		uint64_t gen;
		if (r->live) {
			long c = weft__packet_copy(r->base, &r->rh, slot, tmp,
						   &gen);
			if (c < 0) {
				if (!refresh)
					r->info.losses.packets_torn++;
				continue;
			}
			pk = tmp;
		} else {
			gen = weft__ld64(pk + WEFT_PK_GEN);
			if (gen && weft__ld64(pk + h->packet_size -
					      WEFT_PK_TRAILER) != gen) {
				/* The writer died while opening it. */
				r->info.losses.packets_torn++;
				continue;
			}
		}
		if (!gen)
			continue;
		if (refresh) {
			uint64_t stream = weft__ld64(pk + WEFT_PK_STREAM);
			if (stream >= r->nst)
				continue;
			struct rstream *s = &r->st[stream];
			uint64_t seq = weft__ld64(pk + WEFT_PK_SEQ);
			uint64_t known = s->npk ? s->pk[s->npk - 1].seq : 0;
			if (s->npk ? seq <= known : seq < s->expect_seq)
				continue;
			if (s->in_packet && seq <= s->pk_seq)
				continue;
		}
		int rc = index_packet(r, slot, pk, gen);
		if (rc < 0) {
			free(tmp);
			return rc;
		}
	}
	free(tmp);
	for (uint32_t i = 0; i < r->nst; i++) {
		struct rstream *s = &r->st[i];
		uint32_t from = refresh ? s->next_pk : 0;
		if (s->npk - from > 1)
			qsort(s->pk + from, s->npk - from, sizeof *s->pk,
			      cmp_seq);
		/* Same sequence number twice: corrupt; keep the newest. */
		uint32_t w = from;
		for (uint32_t k = from; k < s->npk; k++) {
			if (w > from && s->pk[w - 1].seq == s->pk[k].seq) {
				r->info.losses.packets_corrupt++;
				s->pk[w - 1] = s->pk[k];
				continue;
			}
			s->pk[w++] = s->pk[k];
		}
		s->npk = w;
	}
	return 0;
}

/* The common payload shapes, derived from the event table when a reader
 * opens, decoded with straight-line code (strings take decode()). */
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

static void derive_shapes(uint8_t shape[WEFT_EV_COUNT])
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

static int open_common(struct weft_reader *r, struct weft_diag *d)
{
	int err = weft__hdr_check(r->base, r->len, &r->rh, d);
	if (err)
		return err;
	const struct weft__fhdr *h = &r->rh.h;
	struct weft_trace_info *in = &r->info;

	memcpy(in->uuid, h->uuid, 16);
	weft__uuid_str(h->uuid, in->uuid_str);
	in->major = h->major;
	in->minor = h->minor;
	in->pid = h->pid;
	in->ppid = h->ppid;
	memcpy(in->comm, h->comm, sizeof h->comm);
	in->comm[32] = 0;
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
	derive_shapes(r->shape);
	setup_clock(r);
	if ((err = load_tables(r)))
		return err;
	if ((err = index_ring(r, 0)))
		return err;
	r->heap = malloc((r->nst ? r->nst : 1) * sizeof *r->heap);
	if (!r->heap)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->nst; i++) {
		if (r->live) {
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
		r->fd = -1;
		r->flags = flags;
	}
	return r;
}

int weft_reader_open_mem(struct weft_reader **out, const void *data,
			 size_t len, unsigned flags, struct weft_diag *d)
{
	*out = NULL;
	struct weft_reader *r = reader_new(flags & ~WEFT_READ_FOLLOW);
	if (!r)
		return -ENOMEM;
	r->base = data;
	r->len = len;
	int err = open_common(r, d);
	if (err) {
		weft_reader_close(r);
		return err;
	}
	*out = r;
	return 0;
}

static int slurp(int fd, uint8_t **buf, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	uint8_t *b = malloc(cap);
	if (!b)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			uint8_t *nb = realloc(b, cap *= 2);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
		}
		ssize_t k = read(fd, b + n, cap - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = -errno;
			free(b);
			return e;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	*buf = b;
	*len = n;
	return 0;
}

int weft_reader_open(struct weft_reader **out, const char *path,
		     unsigned flags, struct weft_diag *d)
{
	*out = NULL;
	if (!path)
		return WEFT_EINVAL;
	struct weft_reader *r = reader_new(flags);
	if (!r)
		return -ENOMEM;
	int err = 0;
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		err = fail(d, -errno, 0, "%s", strerror(errno));
		goto out;
	}
	struct stat sb;
	if (fstat(fd, &sb) < 0) {
		err = -errno;
		goto out_fd;
	}
	if (S_ISDIR(sb.st_mode)) {
		err = fail(d, WEFT_ENOTTRACE, 0,
			   "a directory (CTF directories are read by "
			   "babeltrace2)");
		goto out_fd;
	}
#ifndef __wasi__
	if (S_ISREG(sb.st_mode) && fd != 0 && sb.st_size > 0) {
		void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED,
			       fd, 0);
		if (m == MAP_FAILED) {
			err = -errno;
			goto out_fd;
		}
		r->base = m;
		r->len = r->mapped = (size_t)sb.st_size;
		/* A live writer holds an exclusive lock for as long as it
		 * traces. */
		if (flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK)
			r->info.writer = WEFT_WRITER_LIVE;
		else
			flock(fd, LOCK_UN);
		r->fd = fd;
		fd = -1;
	} else
#endif
	{
		r->flags &= ~WEFT_READ_FOLLOW; /* a pipe's copy cannot grow */
		err = slurp(fd, &r->owned, &r->len);
		if (err)
			goto out_fd;
		r->base = r->owned;
	}
	err = open_common(r, d);
out_fd:
	if (fd > 0)
		close(fd);
out:
	if (err) {
		weft_reader_close(r);
		return err;
	}
	*out = r;
	return 0;
}

const struct weft_trace_info *weft_reader_info(struct weft_reader *r)
{
	struct weft_trace_info *in = &r->info;
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
	return in;
}

const struct weft_problem *weft_reader_problems(struct weft_reader *r,
						unsigned *n)
{
	*n = r->nprob;
	return r->prob;
}

const char *weft_reader_name(struct weft_reader *r, uint32_t id)
{
	/* A live ring: the name may have been interned since the last
	 * load (just before the event that uses it). */
	if (r->live && id &&
	    (id >= r->info.nnames || r->names[id] == name_pending))
		load_names(r);
	return id < r->info.nnames && r->names[id] ? r->names[id] : "";
}

/* ------------------------------------------------------------- decode */

/* Decodes the event at s->pos.  Returns 1 (ev filled), 0 (end of the
 * packet's content) or -1 (corrupt: the rest of the packet is skipped). */
static int decode(struct weft_reader *r, struct rstream *s,
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
			problem(r, off, "time goes backwards");
			return -1;
		}
		p += WEFT_EH_EXT_SIZE;
	} else {
		if (end - p < 4)
			goto short_event;
		uint32_t w = weft__ld32(p);
		id = w & 31;
		ts = (s->clock & ~MASK27) | (w >> 5);
		if (ts < s->clock)
			ts += 1ull << WEFT_EH_COMPACT_BITS;
		p += 4;
	}
	if (id >= WEFT_EV_COUNT) {
		problem(r, off, "unknown event id %u", id);
		return -1;
	}
	const struct weft__evspec *sp = &weft__events[id];
	ev->ts = ts;
	ev->type = (uint16_t)id;
	ev->flags = 0;
	ev->id = ev->id2 = 0;
	ev->name = ev->name2 = 0;
	ev->value = 0;
	ev->text = NULL;
	ev->text_len = 0;
	int nid = 0, nname = 0;
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
			ev->value = (int64_t)weft__ld64(p);
			p += 8;
			break;
		case WEFT_FT_TRUNC:
			if (end - p < 1)
				goto short_event;
			if (*p > 1) {
				problem(r, off, "%s: bad truncation flag",
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
				problem(r, off, "%s: unterminated text",
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
	if (id == WEFT_EV_RUN || id == WEFT_EV_RESOLVE_RUN ||
	    id == WEFT_EV_FIRE)
		s->cur = ev->id;
	s->clock = ts;
	ev->offset = off;
	s->pos = (uint32_t)(p - s->data);
	return 1;

short_event:
	problem(r, off, "event cut short by the end of the packet");
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
	while (decode(&tmp, &s, &ev) == 1)
		valid = s.pos;
	*last_ts = s.clock;
	return valid;
}

/* Opens the stream's next packet.  Returns 1, or 0 if it has none left. */
static int open_next_packet(struct weft_reader *r, struct rstream *s)
{
	const struct weft__fhdr *h = &r->rh.h;
	while (s->next_pk < s->npk) {
		struct rpacket *p = &s->pk[s->next_pk++];
		const uint8_t *pk = r->base + r->rh.packets_off +
				    (uint64_t)p->slot * h->packet_size;
		uint64_t content;
		if (r->live) {
			uint64_t gen;
			long c = weft__packet_copy(r->base, &r->rh, p->slot,
						   s->copy, &gen);
			if (c < 0 || gen != p->gen) {
				/* Overwritten since it was indexed. */
				r->info.losses.packets_torn++;
				r->sinfo[p->stream].losses.packets_torn++;
				s->loss = 1;
				s->loss_packets++;
				s->loss_ts = s->clock ? s->clock : p->ts_begin;
				s->expect_seq = p->seq + 1;
				continue;
			}
			pk = s->copy;
			content = (uint64_t)c;
		} else {
			content = weft__ld64(pk + WEFT_PK_CONTENT) / 8;
		}
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
		s->data = pk;
		s->pos = WEFT_PK_EVENTS;
		s->end = (uint32_t)content;
		s->pk_off = r->rh.packets_off + (uint64_t)p->slot * h->packet_size;
		s->pk_gen = p->gen;
		s->pk_seq = p->seq;
		s->pk_slot = p->slot;
		s->pk_discarded = p->discarded;
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
		const uint8_t *pk = r->base + s->pk_off;
		uint64_t now = weft__ld64(pk + WEFT_PK_DISCARDED);
		if (weft__ld64(pk + WEFT_PK_GEN) == s->pk_gen && now > disc)
			disc = now;
	} else {
		disc = weft__ld64(s->data + WEFT_PK_DISCARDED);
	}
	if (disc > s->last_discarded) {
		s->loss = 1;
		s->loss_events += disc - s->last_discarded;
		s->loss_ts = s->clock;
		s->last_discarded = disc;
	}
	s->in_packet = 0;
}

static void corrupt_packet(struct weft_reader *r, struct rstream *s,
			   uint32_t idx)
{
	r->info.losses.packets_corrupt++;
	r->sinfo[idx].losses.packets_corrupt++;
	s->loss = 1;
	s->loss_ts = s->clock;
	s->pos = s->end;
}

/* Finds what the stream gives next and its time, without decoding it:
 * the merge only needs the time, and the event is then decoded straight
 * into the caller's struct.  Returns 1 (s->pending: 1 an event at s->pos,
 * 2 a loss; s->next_ts its time) or 0 (nothing more for now). */
static int peek_slow(struct weft_reader *r, uint32_t idx);

/* The common case inline: the next event of the current packet. */
static inline __attribute__((always_inline)) int
peek(struct weft_reader *r, uint32_t idx)
{
	struct rstream *s = &r->st[idx];
	if (__builtin_expect(!s->loss && s->in_packet && s->pos + 4 <= s->end,
			     1)) {
		const uint8_t *p = s->data + s->pos;
		uint32_t w = weft__ld32(p);
		if ((w & 31) != WEFT_EH_EXTENDED) {
			uint64_t ts = (s->clock & ~MASK27) | (w >> 5);
			if (ts < s->clock)
				ts += 1ull << WEFT_EH_COMPACT_BITS;
			s->next_ts = ts;
			s->next_id = w & 31;
			s->next_hdr = 4;
			s->pending = 1;
			return 1;
		}
	}
	return peek_slow(r, idx);
}

static int peek_slow(struct weft_reader *r, uint32_t idx)
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
					uint64_t ts = (s->clock & ~MASK27) | (w >> 5);
					if (ts < s->clock)
						ts += 1ull << WEFT_EH_COMPACT_BITS;
					s->next_ts = ts;
					s->next_id = w & 31;
					s->next_hdr = 4;
					s->pending = 1;
					return 1;
				}
				problem(r, s->pk_off + s->pos,
					"event cut short by the end of the "
					"packet");
				corrupt_packet(r, s, idx);
				continue;
			}
			if ((r->flags & WEFT_READ_FOLLOW) && s->next_pk >= s->npk)
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

/* Produces the stream's pending item into ev.  Returns 1, or 0 if the
 * event turned out corrupt (the rest of its packet is skipped). */
/* Decodes the event at s->pos (whose time peek() found) if its shape is a
 * simple one and it is complete; returns 0 to let decode() do it (and
 * report what is wrong). */
static inline __attribute__((always_inline)) int
fast_decode(struct weft_reader *r, struct rstream *s, struct weft_event *ev)
{
	const uint8_t *p = s->data + s->pos + s->next_hdr;
	const uint8_t *end = s->data + s->end;
	unsigned id = s->next_id;
	if (id >= WEFT_EV_COUNT)
		return 0;
	uint64_t a = 0, b = 0;
	uint32_t name = 0, name2 = 0;
	switch (r->shape[id]) {
	case SH_NONE:
		break;
	case SH_ID:
		if (end - p < 8)
			return 0;
		a = weft__ld64(p);
		p += 8;
		break;
	case SH_NAME:
		if (end - p < 2)
			return 0;
		name = weft__ld16(p);
		p += 2;
		break;
	case SH_ID_NAME:
		if (end - p < 10)
			return 0;
		a = weft__ld64(p);
		name = weft__ld16(p + 8);
		p += 10;
		break;
	case SH_ID_NAME_NAME:
		if (end - p < 12)
			return 0;
		a = weft__ld64(p);
		name = weft__ld16(p + 8);
		name2 = weft__ld16(p + 10);
		p += 12;
		break;
	case SH_NAME_VAL:
		if (end - p < 10)
			return 0;
		name = weft__ld16(p);
		b = weft__ld64(p + 2);
		p += 10;
		break;
	case SH_ID_ID:
		if (end - p < 16)
			return 0;
		a = weft__ld64(p);
		b = weft__ld64(p + 8);
		p += 16;
		break;
	default:
		return 0;
	}
	ev->ts = s->next_ts;
	ev->type = (uint16_t)id;
	ev->flags = 0;
	ev->id = a;
	ev->id2 = r->shape[id] == SH_ID_ID ? b : 0;
	ev->value = r->shape[id] == SH_NAME_VAL ? (int64_t)b : 0;
	ev->name = name;
	ev->name2 = name2;
	ev->text = NULL;
	ev->text_len = 0;
	ev->actor = s->cur;
	ev->offset = s->pk_off + s->pos;
	if (id == WEFT_EV_RUN || id == WEFT_EV_RESOLVE_RUN ||
	    id == WEFT_EV_FIRE)
		s->cur = a;
	s->clock = ev->ts;
	s->pos = (uint32_t)(p - s->data);
	return 1;
}

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
	} else if (!fast_decode(r, s, ev) && decode(r, s, ev) != 1) {
		corrupt_packet(r, s, idx);
		s->pending = 0;
		return 0;
	}
	s->pending = 0;
	ev->stream = idx;
	ev->ns = weft_reader_ns(r, ev->ts);
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

static uint32_t heap_pop(struct weft_reader *r)
{
	uint32_t top = r->heap[0];
	uint32_t last = r->heap[--r->nheap];
	uint32_t i = 0, n = r->nheap;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && before(r, r->heap[c + 1], r->heap[c]))
			c++;
		if (!before(r, r->heap[c], last))
			break;
		r->heap[i] = r->heap[c];
		i = c;
	}
	if (n)
		r->heap[i] = last;
	return top;
}

/* Follow mode: looks for what the writer committed since the last look.
 * Returns the number of streams that have something new. */
static int refresh(struct weft_reader *r)
{
	const struct weft__fhdr *fh = (const void *)r->base;
	/* Streams registered since we opened. */
	uint32_t ns = __atomic_load_n(&fh->nstreams, __ATOMIC_ACQUIRE);
	if (ns > r->rh.h.streams_cap)
		ns = r->rh.h.streams_cap;
	if (ns > r->nst) {
		struct rstream *st = realloc(r->st, ns * sizeof *st);
		struct weft_stream_info *si =
			st ? realloc(r->sinfo, ns * sizeof *si) : NULL;
		uint32_t *hp = si ? realloc(r->heap, ns * sizeof *hp) : NULL;
		if (st)
			r->st = st;
		if (si)
			r->sinfo = si;
		if (hp)
			r->heap = hp;
		if (hp) {
			const struct weft__fstream *fs =
				(const void *)(r->base + r->rh.h.streams_off);
			for (uint32_t i = r->nst; i < ns; i++) {
				memset(&r->st[i], 0, sizeof r->st[i]);
				memset(&r->sinfo[i], 0, sizeof r->sinfo[i]);
				r->sinfo[i].index = i;
				r->sinfo[i].first_ts = UINT64_MAX;
				if (__atomic_load_n(&fs[i].valid,
						    __ATOMIC_ACQUIRE)) {
					r->sinfo[i].tid = fs[i].tid;
					memcpy(r->sinfo[i].name, fs[i].name,
					       16);
				}
				r->st[i].copy = malloc(r->rh.h.packet_size);
			}
			r->nst = ns;
			r->info.nstreams = ns;
			r->info.streams = r->sinfo;
		}
	}
	/* Names interned since. */
	if (load_names(r))
		return 0;
	int got = 0;
	/* Packets being decoded may have grown. */
	for (uint32_t i = 0; i < r->nst; i++) {
		struct rstream *s = &r->st[i];
		if (!s->in_packet || s->pos < s->end || s->pending)
			continue;
		uint64_t gen;
		long c = weft__packet_copy(r->base, &r->rh, s->pk_slot,
					   s->copy, &gen);
		if (c > 0 && gen == s->pk_gen) {
			if ((uint32_t)c > s->end) {
				s->data = s->copy;
				s->end = (uint32_t)c;
				got++;
			}
		}
	}
	index_ring(r, 1);
	for (uint32_t i = 0; i < r->nst; i++) {
		struct rstream *s = &r->st[i];
		if (!s->pending && peek(r, i)) {
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

/* Live rings: the stream's packet copy is reused when the stream moves to
 * its next packet, so the text of the event returned is kept here, valid
 * until the next call. */
static int keep_text(struct weft_reader *r, struct weft_event *ev)
{
	if (!r->textbuf && !(r->textbuf = malloc(r->rh.h.packet_size)))
		return -ENOMEM;
	memcpy(r->textbuf, ev->text, ev->text_len + 1);
	ev->text = r->textbuf;
	return 0;
}

int weft_reader_next(struct weft_reader *r, struct weft_event *ev)
{
	if (!r->started) {
		r->started = 1;
		for (uint32_t i = 0; i < r->nst; i++)
			if (peek(r, i))
				heap_push(r, i);
	}
again:
	if (!r->nheap) {
		if (!(r->flags & WEFT_READ_FOLLOW))
			goto eof;
#ifndef __wasi__
		int live = r->fd >= 0 && flock(r->fd, LOCK_SH | LOCK_NB) < 0 &&
			   errno == EWOULDBLOCK;
		if (!live)
			flock(r->fd, LOCK_UN);
#else
		int live = 0;
#endif
		r->live = 1; /* copy packets from now on */
		for (uint32_t i = 0; i < r->nst; i++)
			if (!r->st[i].copy)
				r->st[i].copy = malloc(r->rh.h.packet_size);
		if (!refresh(r)) {
			if (live)
				return WEFT_EAGAIN;
			r->info.writer =
				__atomic_load_n(&((const struct weft__fhdr *)
							  (const void *)r->base)
							 ->state,
						__ATOMIC_ACQUIRE) ==
						WEFT_STATE_STOPPED
					? WEFT_WRITER_STOPPED
					: WEFT_WRITER_GONE;
			goto eof;
		}
	}
	uint32_t s;
	int ok;
	if (r->nheap == 1) {
		/* One stream left (or only one): no merge needed. */
		s = r->heap[0];
		ok = take(r, s, ev);
		if (ok && ev->text && r->live && keep_text(r, ev))
			return -ENOMEM;
		if (!peek(r, s))
			r->nheap = 0;
	} else {
		s = heap_pop(r);
		ok = take(r, s, ev);
		if (ok && ev->text && r->live && keep_text(r, ev))
			return -ENOMEM;
		if (peek(r, s))
			heap_push(r, s);
	}
	if (!ok)
		goto again;
	account(r, ev);
	return 0;
eof:
	return WEFT_EEOF;
}

/* ------------------------------------------------------------- table */

const char *weft_event_name(unsigned type)
{
	if (type == WEFT_EV_LOSS)
		return "loss";
	return type < WEFT_EV_COUNT ? weft__events[type].name : NULL;
}

const char *weft_event_doc(unsigned type)
{
	if (type == WEFT_EV_LOSS)
		return "events were lost here";
	return type < WEFT_EV_COUNT ? weft__events[type].doc : NULL;
}

const char *weft_event_field(unsigned type, unsigned i, int *ftype)
{
	if (type >= WEFT_EV_COUNT || i >= 4 || !weft__events[type].f[i].type)
		return NULL;
	if (ftype)
		*ftype = weft__events[type].f[i].type;
	return weft__events[type].f[i].name;
}

const struct rpacket *weft__reader_packets(struct weft_reader *r, uint32_t s,
					   uint32_t *n)
{
	if (s >= r->nst) {
		*n = 0;
		return NULL;
	}
	*n = r->st[s].npk;
	return r->st[s].pk;
}

const uint8_t *weft__reader_base(struct weft_reader *r,
				 const struct rhdr **rh)
{
	*rh = &r->rh;
	return r->base;
}
