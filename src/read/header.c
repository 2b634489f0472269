/* SPDX-License-Identifier: MIT */
/*
 * header.c - the reader's view of a ring's header region: the file header
 * (checked field by field against the bytes that are really there), the
 * stream and name tables (append-only while a writer lives), and the
 * clock.  Every text that leaves here (names, thread names, the program
 * name) is valid UTF-8 (utf8.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

int weft__hdr_check(const uint8_t *base, uint64_t len, struct rhdr *out,
		    struct weft_diag *d)
{
	const struct weft__fhdr *fh = (const void *)base;
	struct weft__fhdr *h = &out->h;

	if (len == 0)
		return weft__diag(d, WEFT_EEMPTY, 0, "empty input");
	if (len < 8 || memcmp(base, WEFT_FILE_MAGIC, 8)) {
		if (len >= 4 && weft__ld32(base) == WEFT_CTF_MAGIC)
			return weft__diag(d, WEFT_ENOTTRACE, 0,
					  "a bare CTF packet, not a weft ring "
					  "file (read CTF directories with "
					  "babeltrace2)");
		return weft__diag(d, WEFT_ENOTTRACE, 0,
				  "not a weft trace (no WEFTRING magic)");
	}
	if (len < sizeof *fh)
		return weft__diag(d, WEFT_ETRUNC, len,
				  "truncated in the file header (%llu of %zu "
				  "bytes)",
				  (unsigned long long)len, sizeof *fh);
	/* A copy: the atomics of the header are read once.  (From a file,
	 * `base` is already a private copy; in memory, nothing writes.) */
	memcpy(h, fh, sizeof *h);
	if (h->major != WEFT_FORMAT_MAJOR)
		return weft__diag(d, WEFT_EVERSION, 8,
				  "format version %u.%u; this weft reads %u.x",
				  h->major, h->minor, WEFT_FORMAT_MAJOR);
	if (!is_pow2(h->packet_size) || h->packet_size < WEFT_MIN_PACKET ||
	    h->packet_size > WEFT_MAX_PACKET)
		return weft__diag(d, WEFT_ECORRUPT,
				  offsetof(struct weft__fhdr, packet_size),
				  "bad packet size %u", h->packet_size);
	if (h->header_size < sizeof *fh || h->header_size % 4096 ||
	    h->npackets == 0 ||
	    h->file_size != (uint64_t)h->header_size +
				    (uint64_t)h->npackets * h->packet_size)
		return weft__diag(d, WEFT_ECORRUPT,
				  offsetof(struct weft__fhdr, header_size),
				  "inconsistent ring geometry (header %u, %u "
				  "packets of %u, file %llu bytes)",
				  h->header_size, h->npackets, h->packet_size,
				  (unsigned long long)h->file_size);
	if (len < h->file_size)
		return weft__diag(d, WEFT_ETRUNC, len,
				  "truncated: %llu of %llu bytes",
				  (unsigned long long)len,
				  (unsigned long long)h->file_size);
	uint64_t hs = h->header_size;
	if ((uint64_t)h->metadata_off + h->metadata_len > hs ||
	    (uint64_t)h->streams_off + (uint64_t)h->streams_cap *
					       sizeof(struct weft__fstream) >
		    hs ||
	    (uint64_t)h->names_off + (uint64_t)h->names_cap *
					     sizeof(struct weft__fname) >
		    hs ||
	    (uint64_t)h->strings_off + h->strings_cap > hs ||
	    (h->streams_off & 7) || (h->names_off & 3))
		return weft__diag(d, WEFT_ECORRUPT,
				  offsetof(struct weft__fhdr, metadata_off),
				  "header tables lie outside the header");
	if (h->freq == 0)
		return weft__diag(d, WEFT_ECORRUPT,
				  offsetof(struct weft__fhdr, freq),
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

int weft__open_file_header(struct rsrc *src, const char *path, struct rhdr *rh,
			   struct weft_diag *d)
{
	/* (every field: a caller's source on its stack is not zeroed, and
	 * a stray kv sends reads to a kept ring) */
	*src = (struct rsrc){.fd = -1};
	/* (O_NONBLOCK: a FIFO is refused below, not waited on) */
	src->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (src->fd < 0)
		return weft__diag(d, -errno, 0, "%s", strerror(errno));
	struct stat sb;
	int err;
	if (fstat(src->fd, &sb) < 0) {
		err = weft__diag(d, -errno, 0, "%s", strerror(errno));
		goto fail;
	}
	if (S_ISDIR(sb.st_mode)) {
		err = weft__diag(d, WEFT_ENOTTRACE, 0,
				 "a directory (CTF directories are read by "
				 "babeltrace2)");
		goto fail;
	}
	if (!S_ISREG(sb.st_mode)) {
		err = weft__diag(d, WEFT_ENOTTRACE, 0, "not a regular file");
		goto fail;
	}
	src->len = (uint64_t)sb.st_size;
	struct weft__fhdr fh;
	size_t n = src->len < sizeof fh ? (size_t)src->len : sizeof fh;
	if ((err = weft__src_read(src, 0, &fh, n)))
		goto fail;
	if ((err = weft__hdr_check((const uint8_t *)&fh, src->len, rh, d)))
		goto fail;
	return 0;
fail:
	close(src->fd);
	src->fd = -1;
	return err;
}

int weft__hdr_reload(struct weft_reader *r)
{
	if (!r->hdrcopy)
		return 0; /* memory does not change */
	/* One pread copies in ascending address order: the header's counts,
	 * then the stream table (each entry's `valid` word before its
	 * fields), the name table, then the strings, so that what is seen
	 * published in the copy was written before it (the writer publishes
	 * with release stores; see src/common/format.h). */
	int err = weft__src_read(&r->src, 0, r->hdrcopy, r->rh.h.header_size);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return err;
}

/* The clock: the writer refreshes an anchor (a seqlock) as it runs; the
 * frequency measured between the start anchor and the latest one is more
 * precise than the 2 ms calibration done at start. */
void weft__setup_clock(struct weft_reader *r)
{
	const struct weft__fhdr *fh = (const void *)r->hdr;
	struct weft__fhdr *h = &r->rh.h;
	struct weft__anchor a1;
	memcpy(&a1, &fh->a1, sizeof a1);
	if (r->live && r->src.fd >= 0) {
		/* The seqlock, read through the file: seq, anchor, seq. */
		const uint64_t o_seq = offsetof(struct weft__fhdr, a1_seq);
		const uint64_t o_a1 = offsetof(struct weft__fhdr, a1);
		for (int tries = 0; tries < 100; tries++) {
			uint64_t s0, s1;
			struct weft__anchor a;
			if (weft__src_read(&r->src, o_seq, &s0, 8) ||
			    weft__src_read(&r->src, o_a1, &a, sizeof a))
				break;
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (weft__src_read(&r->src, o_seq, &s1, 8))
				break;
			if (!(s0 & 1) && s0 == s1) {
				a1 = a;
				break;
			}
		}
	} else if (fh->a1_seq & 1) {
		a1 = h->a0; /* written when the writer died: not trusted */
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

void weft__load_machine(struct weft_reader *r)
{
	const struct weft__fhdr *h = &r->rh.h;
	if (h->minor < 3 || !h->mach_off)
		return;
	if (h->mach_off % 8 || h->mach_size < sizeof(struct weft__fmach) ||
	    (uint64_t)h->mach_off + sizeof(struct weft__fmach) >
		    h->header_size ||
	    h->mach_off < sizeof(struct weft__fhdr)) {
		weft__problem(r, offsetof(struct weft__fhdr, mach_off),
			      "the machine block lies outside the header");
		return;
	}
	const struct weft__fmach *m = (const void *)(r->hdr + h->mach_off);
	weft_utf8_fix(r->info.host, sizeof r->info.host, m->host,
		      strnlen(m->host, sizeof m->host));
	memcpy(r->boot, m->boot_id, 16);
	static const uint8_t zero[16];
	if (memcmp(r->boot, zero, 16))
		weft__uuid_str(r->boot, r->info.boot_id);
	r->timens = m->timens_mono_ns;
	/* a hostile offset stays within what an int64 ns clock holds */
	if (r->timens > (INT64_C(1) << 62) || r->timens < -(INT64_C(1) << 62))
		r->timens = 0;
	r->have_mach = 1;
}

unsigned weft__ring_tuples(const struct weft_reader *r,
			   struct weft__ctuple *out, unsigned cap)
{
	if (!r->have_mach)
		return 0;
	const struct weft__fmach *m = (const void *)(r->hdr + r->rh.h.mach_off);
	uint32_t n = m->ntuples;
	/* The slot of tuple n may be being rewritten (the header was
	 * copied in one read: its seq alone says nothing): left out. */
	unsigned k = 0;
	const unsigned ring = WEFT_CLOCK_TUPLES - 1;
	uint32_t first = n > ring + 1 ? n - ring : 1;
	if (n && k < cap && !(m->t[0].seq & 1))
		out[k++] = m->t[0];
	for (uint32_t i = first; i < n && k < cap; i++) {
		const struct weft__ctuple *c = &m->t[1 + (i - 1) % ring];
		if (c->seq & 1 || (n > ring && i == n - ring))
			continue;
		out[k++] = *c;
	}
	return k;
}

int64_t weft_reader_ns(struct weft_reader *r, uint64_t t)
{
	return weft__ns(r, t);
}

/* Placeholders: a name not yet published (looked at again on the next
 * load) and one that lies outside the string table (never again). */
static const char name_pending[] = "?", name_bad[] = "?";

static char *name_room(struct weft_reader *r, size_t n)
{
	struct namebuf *nb = malloc(sizeof *nb + n);
	if (!nb)
		return NULL;
	nb->next = r->namebufs;
	r->namebufs = nb;
	return nb->s;
}

/* Loads the names interned since the last call (all of them the first
 * time) from the header region (r->hdr: reload it first for news from a
 * live writer).  Append-only: a name's text, once returned, stays where
 * it is until the reader closes, so a live reader can load more at any
 * time. */
int weft__load_names(struct weft_reader *r)
{
	const struct weft__fhdr *fh = (const void *)r->hdr;
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
	uint32_t nn = r->live ? fh->nnames : h->nnames;
	/* A live writer counts a string's bytes before it publishes the
	 * name; a copy of the header taken mid-way may hold a published name
	 * whose bytes strings_used did not cover yet when it was copied, so
	 * a live ring's names are bounded by the table, not the count. */
	uint32_t used = r->live ? h->strings_cap : h->strings_used;
	if (nn > cap)
		nn = cap;
	const struct weft__fname *fn = (const void *)(r->hdr + h->names_off);
	const uint8_t *strs = r->hdr + h->strings_off;
	/* Room for the texts of what is new or was pending. */
	size_t need = 0, count = 0;
	for (uint32_t i = r->names_missing; i < nn; i++)
		if (i >= r->info.nnames || r->names[i] == name_pending) {
			uint32_t len = fn[i].len;
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
	char *w = NULL, *wend = NULL;
	if (need) {
		if (!(w = name_room(r, need)))
			return -ENOMEM;
		wend = w + need;
	}
	uint32_t missing = nn;
	for (uint32_t i = r->names_missing; i < nn; i++) {
		if (i < r->info.nnames && r->names[i] != name_pending)
			continue;
		uint32_t len = fn[i].len;
		uint32_t off = fn[i].off;
		if (!(len & WEFT_NAME_VALID)) {
			r->names[i] = name_pending;
			if (missing == nn)
				missing = i;
			continue;
		}
		len &= ~WEFT_NAME_VALID;
		if (len > WEFT_NAME_MAX || (uint64_t)off + len > used ||
		    (size_t)(wend - w) < (size_t)len + 1) {
			weft__problem(r,
				      h->names_off + (uint64_t)i * sizeof *fn,
				      "name %u lies outside the string table",
				      i);
			r->names[i] = name_bad;
			continue;
		}
		const char *src = (const char *)strs + off;
		if (weft_utf8_valid(src, len)) {
			memcpy(w, src, len);
			w[len] = 0;
			r->names[i] = w;
			w += len + 1;
			continue;
		}
		/* Invalid UTF-8: U+FFFD in its place, in room of its own. */
		char *fixed = name_room(r, (size_t)len * 3 + 1);
		if (!fixed)
			return -ENOMEM;
		weft_utf8_fix(fixed, (size_t)len * 3 + 1, src, len);
		r->names[i] = fixed;
	}
	r->names_missing = missing;
	if (nn > r->info.nnames)
		r->info.nnames = nn;
	r->info.names = r->names;
	return 0;
}

/* A fixed-size text field of the header (a thread or program name),
 * NUL-terminated and valid UTF-8. */
static void header_text(char *dst, size_t cap, const char *src, size_t max)
{
	weft_utf8_fix(dst, cap, src, strnlen(src, max));
}

int weft__load_tables(struct weft_reader *r)
{
	const struct weft__fhdr *h = &r->rh.h;

	int err = weft__load_names(r);
	if (err)
		return err;

	uint32_t ns = h->nstreams;
	r->sinfo = calloc(ns ? ns : 1, sizeof *r->sinfo);
	r->st = calloc(ns ? ns : 1, sizeof *r->st);
	if (!r->sinfo || !r->st)
		return -ENOMEM;
	r->nst = ns;
	const struct weft__fstream *fs =
		(const void *)(r->hdr + h->streams_off);
	for (uint32_t i = 0; i < ns; i++) {
		struct weft_stream_info *si = &r->sinfo[i];
		si->index = i;
		if (!fs[i].valid)
			continue;
		si->tid = fs[i].tid;
		header_text(si->name, sizeof si->name, fs[i].name, 16);
		si->start_ticks = fs[i].start_ticks;
		si->losses.events_nested = fs[i].dropped_nested;
		si->losses.texts_truncated = fs[i].truncated;
		r->info.losses.events_nested += si->losses.events_nested;
		r->info.losses.texts_truncated += si->losses.texts_truncated;
	}
	r->info.nstreams = ns;
	r->info.streams = r->sinfo;
	return 0;
}

/* Follow mode: a stream registered since the table was read. */
void weft__stream_info(struct weft_reader *r, uint32_t i)
{
	const struct weft__fstream *fs =
		(const void *)(r->hdr + r->rh.h.streams_off);
	memset(&r->sinfo[i], 0, sizeof r->sinfo[i]);
	r->sinfo[i].index = i;
	r->sinfo[i].first_ts = UINT64_MAX;
	if (fs[i].valid) {
		r->sinfo[i].tid = fs[i].tid;
		header_text(r->sinfo[i].name, sizeof r->sinfo[i].name,
			    fs[i].name, 16);
	}
}

const char *weft__ring_name(struct weft_reader *r, uint32_t id)
{
	/* A live ring: the name may have been interned since the last
	 * load (just before the event that uses it). */
	if (r->live && id &&
	    (id >= r->info.nnames || r->names[id] == name_pending) &&
	    weft__hdr_reload(r) == 0)
		weft__load_names(r);
	return id < r->info.nnames && r->names[id] ? r->names[id] : "";
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
