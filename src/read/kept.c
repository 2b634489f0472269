/* SPDX-License-Identifier: MIT */
/*
 * kept.c - a kept directory read as one trace.  Its chunks
 * (src/common/keep-format.h) are compact rings, zstd-compressed; the
 * chunks of one ring are put back together as one ring in memory (the
 * packets of every chunk, each generation once, behind the header region
 * of the newest chunk: names and streams only ever grow), and the rings
 * of a run, with its manifest, into a bundle, which the merge reads as it
 * reads any bundle.  Packets the directory lost (deleted chunks, packets
 * overwritten before they were kept) are gaps in their streams' packet
 * sequences: the reader counts and reports them where they were.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "../common/keep-format.h"
#include "internal.h"
#include "kept.h"
#include "run.h"
#include "common/grow.h"

int weft__kept_dir(const char *path)
{
	char p[4200];
	struct stat sb;
	if ((size_t)snprintf(p, sizeof p, "%s/" WEFT_KEEP_LOG, path) >=
	    sizeof p)
		return 0;
	return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

struct kchunk_in {
	uint64_t number;
	char name[300];
	struct weft__kidx ix;
	uint8_t *file; /* its index's bytes (the file's last ones): frames
			  are read from the file as they are decompressed */
	size_t idxlen;
	uint64_t size;		 /* the file's */
	struct weft__kframe *fr; /* (copies: the index is not aligned) */
	struct weft__kpk *pk;
	struct weft__kcarry *cr; /* the async threads alive at its start */
};

static void note(struct kept_notes *nt, const char *name, const char *why)
{
	if (!nt->n++)
		snprintf(nt->what, sizeof nt->what, "%.60s: %.50s", name, why);
}

static int read_whole(int dfd, const char *name, uint8_t **out, size_t *len)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	struct stat sb;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return WEFT_ENOTTRACE;
	}
	size_t n = (size_t)sb.st_size, got = 0;
	uint8_t *b = malloc(n ? n : 1);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	while (got < n) {
		ssize_t k = read(fd, b + got, n - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	*out = b;
	*len = got;
	return 0;
}

static int pread_all(int fd, void *dst, size_t n, uint64_t off)
{
	uint8_t *b = dst;
	while (n) {
		ssize_t k = pread(fd, b, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : WEFT_ECORRUPT;
		b += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

/* The chunk `name` of the directory dfd: its index's bytes (c->file) and
 * its size, nothing else read.  0, -errno (gone), -ENOMEM, or
 * WEFT_ECORRUPT (no index). */
static int read_index_bytes(int dfd, const char *name, struct kchunk_in *c)
{
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	struct stat sb;
	struct weft__ktail tail;
	int err = 0;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode))
		err = WEFT_ENOTTRACE;
	else if ((uint64_t)sb.st_size < sizeof tail + sizeof c->ix + 8 ||
		 pread_all(fd, &tail, sizeof tail,
			   (uint64_t)sb.st_size - sizeof tail) ||
		 memcmp(tail.magic, WEFT_KEEP_END_MAGIC, 8) ||
		 tail.index_len > (uint64_t)sb.st_size - 8 ||
		 tail.index_len < sizeof c->ix + sizeof tail)
		err = WEFT_ECORRUPT;
	else if (!(c->file = malloc((size_t)tail.index_len)))
		err = -ENOMEM;
	else if (pread_all(fd, c->file, (size_t)tail.index_len,
			   (uint64_t)sb.st_size - tail.index_len))
		err = WEFT_ECORRUPT;
	else {
		c->idxlen = (size_t)tail.index_len;
		c->size = (uint64_t)sb.st_size;
	}
	close(fd);
	return err;
}

/* The chunk's index, checked against its size.  0 or -1. */
static int chunk_index(struct kchunk_in *c)
{
	struct weft__ktail tail;
	if (!c->file || c->idxlen < sizeof tail + sizeof c->ix)
		return -1;
	memcpy(&tail, c->file + c->idxlen - sizeof tail, sizeof tail);
	if (memcmp(tail.magic, WEFT_KEEP_END_MAGIC, 8) ||
	    tail.index_len != c->idxlen || tail.index_len > c->size - 8)
		return -1;
	const uint8_t *at = c->file;
	memcpy(&c->ix, at, sizeof c->ix);
	const struct weft__kidx *ix = &c->ix;
	if (memcmp(ix->magic, WEFT_KEEP_IDX_MAGIC, 8) ||
	    ix->version < WEFT_KEEP_VERSION_MIN ||
	    ix->version > WEFT_KEEP_VERSION ||
	    (ix->version >= 3 && ix->thr_bytes > tail.index_len) ||
	    sizeof *ix + (uint64_t)ix->nframes * sizeof(struct weft__kframe) +
			    (uint64_t)ix->npackets * sizeof(struct weft__kpk) +
			    (uint64_t)(ix->version >= 2 ? ix->ncarry : 0) *
				    sizeof(struct weft__kcarry) +
			    (ix->version >= 3 ? ix->thr_bytes : 0) +
			    sizeof tail !=
		    tail.index_len ||
	    ix->packet_size < WEFT_MIN_PACKET ||
	    ix->packet_size > WEFT_MAX_PACKET || !ix->npackets ||
	    ix->header_size < sizeof(struct weft__fhdr) ||
	    ix->header_size > (64u << 20))
		return -1;
	if (ix->version < 2)
		c->ix.ncarry = c->ix.carry_untracked = c->ix.layout = 0;
	if (c->ix.layout > WEFT_KEEP_PACKED)
		return -1;
	size_t fl = ix->nframes * sizeof *c->fr,
	       pl = ix->npackets * sizeof *c->pk,
	       cl = (size_t)ix->ncarry * sizeof *c->cr;
	c->fr = malloc(fl ? fl : 1);
	c->pk = malloc(pl);
	c->cr = malloc(cl ? cl : 1);
	if (!c->fr || !c->pk || !c->cr)
		return -1;
	memcpy(c->fr, at + sizeof *ix, fl);
	memcpy(c->pk, at + sizeof *ix + fl, pl);
	memcpy(c->cr, at + sizeof *ix + fl + pl, cl);
	for (uint32_t i = 0; i < ix->ncarry; i++)
		c->cr[i].label[WEFT_KEEP_LABEL - 1] = 0;
	uint64_t end = c->size - tail.index_len - 8; /* the skip header */
	uint32_t covered = 0;
	for (uint32_t i = 0; i < ix->nframes; i++) {
		const struct weft__kframe *f = &c->fr[i];
		if (f->off > end || f->csize > end - f->off ||
		    f->first != covered || f->npk > ix->npackets - covered)
			return -1;
		covered += f->npk;
	}
	return covered == ix->npackets ? 0 : -1;
}

static int cmp_chunk(const void *a, const void *b)
{
	const struct kchunk_in *x = a, *y = b;
	int c = strcmp(x->ix.ring, y->ix.ring);
	if (c)
		return c;
	return x->number < y->number ? -1 : x->number > y->number;
}

struct genref {
	uint64_t gen;
	uint32_t at; /* its place in the ring being built */
};

static int cmp_gen(const void *a, const void *b)
{
	const struct genref *x = a, *y = b;
	if (x->gen != y->gen)
		return x->gen < y->gen ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* --------------------------------------------------------- packed frames */

struct kcur {
	const uint8_t *p, *end;
};

static int kc_take(struct kcur *c, void *dst, size_t n)
{
	if ((size_t)(c->end - c->p) < n)
		return -1;
	memcpy(dst, c->p, n);
	c->p += n;
	return 0;
}

static int kc_var(struct kcur *c, uint64_t *v)
{
	uint64_t x = 0;
	for (int sh = 0; sh < 64; sh += 7) {
		if (c->p >= c->end)
			return -1;
		uint8_t b = *c->p++;
		x |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

/* A packed block (keep-format.h) of npk packets put back, byte for byte,
 * into out (npk * ps bytes).  0, or -1 (damaged). */
static int unpack_block(const uint8_t *b, size_t len, uint32_t npk, uint32_t ps,
			uint8_t *out)
{
	size_t hl = 8 + 4 * WEFT_KEEP_PACK_COLS;
	uint32_t n;
	if (len < hl || memcmp(b, WEFT_KEEP_PACK_MAGIC, 4))
		return -1;
	memcpy(&n, b + 4, 4);
	if (n != npk)
		return -1;
	struct kcur col[WEFT_KEEP_PACK_COLS];
	size_t at = hl;
	for (int c = 0; c < WEFT_KEEP_PACK_COLS; c++) {
		uint32_t l;
		memcpy(&l, b + 8 + 4 * c, 4);
		if (l > len - at)
			return -1;
		col[c].p = b + at;
		col[c].end = b + at + l;
		at += l;
	}
	if (at != len)
		return -1;
	for (uint32_t k = 0; k < npk; k++) {
		uint8_t *pk = out + (size_t)k * ps, mode;
		if (kc_take(&col[0], &mode, 1))
			return -1;
		if (mode == 0) {
			if (kc_take(&col[5], pk, ps))
				return -1;
			continue;
		}
		uint32_t content, nev;
		memset(pk, 0, ps);
		if (mode != 1 || kc_take(&col[0], pk, WEFT_PK_EVENTS) ||
		    kc_take(&col[0], &content, 4) ||
		    kc_take(&col[0], &nev, 4) || content < WEFT_PK_EVENTS ||
		    content > ps - WEFT_PK_TRAILER)
			return -1;
		uint8_t *p = pk + WEFT_PK_EVENTS, *end = pk + content;
		uint64_t clock = weft__ld64(pk + WEFT_PK_TS_BEGIN), previd = 0;
		for (uint32_t e = 0; e < nev; e++) {
			uint8_t id8;
			unsigned id;
			if (kc_take(&col[1], &id8, 1))
				return -1;
			if (id8 == WEFT_EH_EXTENDED) {
				if (end - p < WEFT_EH_EXT_SIZE ||
				    kc_take(&col[4], p + 1, 12))
					return -1;
				p[0] = WEFT_EH_EXTENDED;
				id = weft__ld32(p + 1);
				clock = weft__ld64(p + 5);
				p += WEFT_EH_EXT_SIZE;
			} else {
				uint64_t d;
				if (end - p < 4 || kc_var(&col[2], &d) ||
				    d >= (1ull << 27))
					return -1;
				id = id8;
				clock += d;
				uint32_t w =
					(uint32_t)id8 |
					(uint32_t)((clock & ((1u << 27) - 1))
						   << 5);
				memcpy(p, &w, 4);
				p += 4;
			}
			if (id >= WEFT_EV_COUNT)
				return -1;
			const struct weft__evspec *sp = &weft__events[id];
			for (int i = 0; i < 4 && sp->f[i].type; i++) {
				size_t fl = 0;
				switch (sp->f[i].type) {
				case WEFT_FT_ID: {
					uint64_t z;
					if (end - p < 8 || kc_var(&col[3], &z))
						return -1;
					previd += (z >> 1) ^ (0 - (z & 1));
					memcpy(p, &previd, 8);
					p += 8;
					continue;
				}
				case WEFT_FT_NAME:
					fl = 2;
					break;
				case WEFT_FT_I64:
				case WEFT_FT_U64:
					fl = 8;
					break;
				case WEFT_FT_TRUNC:
					fl = 1;
					break;
				case WEFT_FT_STR: {
					const uint8_t *z =
						memchr(col[4].p, 0,
						       (size_t)(col[4].end -
								col[4].p));
					if (!z)
						return -1;
					fl = (size_t)(z - col[4].p) + 1;
					break;
				}
				}
				if ((size_t)(end - p) < fl ||
				    kc_take(&col[4], p, fl))
					return -1;
				p += fl;
			}
		}
		if (p != end)
			return -1;
		memcpy(pk + ps - WEFT_PK_TRAILER, pk + WEFT_PK_GEN, 8);
	}
	for (int c = 0; c < WEFT_KEEP_PACK_COLS; c++)
		if (col[c].p != col[c].end)
			return -1;
	return 0;
}

/* Frame f of chunk k decompressed into dst (its npk packets). 0, or -1. */
static int frame_packets(const struct kchunk_in *k,
			 const struct weft__kframe *fr, const uint8_t *src,
			 ZSTD_DCtx *dz, uint8_t *dst, uint32_t ps)
{
	size_t want = (size_t)fr->npk * ps;
	if (k->ix.layout == WEFT_KEEP_PLAIN) {
		size_t got = ZSTD_decompressDCtx(dz, dst, want, src,
						 (size_t)fr->csize);
		return ZSTD_isError(got) || got != want ? -1 : 0;
	}
	unsigned long long cs =
		ZSTD_getFrameContentSize(src, (size_t)fr->csize);
	/* (a packed block is at most its packets, and its columns' heads) */
	if (cs == ZSTD_CONTENTSIZE_UNKNOWN || cs == ZSTD_CONTENTSIZE_ERROR ||
	    cs > 2 * want + 4096)
		return -1;
	uint8_t *b = malloc(cs ? (size_t)cs : 1);
	if (!b)
		return -1;
	size_t got =
		ZSTD_decompressDCtx(dz, b, (size_t)cs, src, (size_t)fr->csize);
	int rc = ZSTD_isError(got) || got != cs ||
				 unpack_block(b, got, fr->npk, ps, dst)
			 ? -1
			 : 0;
	free(b);
	return rc;
}

/* ------------------------------------------------------ carried threads */

/* The packets a chunk's carried threads become (docs/keep.md, "Carried
 * threads"): on the stream that created each thread, at the time `ts`
 * (the ring's first packet), with that thread's creator as the packet's
 * current thread, its `create` or `create_label` and its latest text
 * `label`; then, for each thread that ran and waits on a source, its
 * `run` and unanswered `try_read`, and `run(0)`.  Their generations have
 * WEFT__GEN_CARRIED set: readers take them first in their stream and
 * outside its packet sequence (no loss counted), and mark their events
 * WEFT_EVF_CARRIED. */
struct carrier {
	uint8_t *buf; /* the packets made */
	uint32_t n, cap, ps;
	const uint8_t *real; /* the real packets (nreal), behind the header */
	uint32_t nreal, nstreams;
	uint64_t ts;
	uint8_t *pk; /* the packet being filled, or NULL */
	uint32_t pos, stream;
	uint64_t current;
};

#define CARRY_MAX_BYTES (64u << 20)

static void carry_close(struct carrier *C)
{
	if (!C->pk)
		return;
	uint64_t bits = (uint64_t)C->pos * 8;
	memcpy(C->pk + WEFT_PK_CONTENT, &bits, 8);
	memcpy(C->pk + C->ps - WEFT_PK_TRAILER, C->pk + WEFT_PK_GEN, 8);
	C->pk = NULL;
}

/* Opens a packet on `stream` whose current thread is `current`.  0, or
 * -1 (no room: the rest is not carried). */
static int carry_open(struct carrier *C, uint32_t stream, uint64_t current)
{
	carry_close(C);
	if ((uint64_t)(C->n + 1) * C->ps > CARRY_MAX_BYTES)
		return -1;
	if (weft__grow32(&C->buf, &C->cap, (size_t)C->n + 1, C->ps, 4))
		return -1;
	uint8_t *pk = C->buf + (size_t)C->n++ * C->ps;
	memset(pk, 0, C->ps);
	memcpy(pk, C->real, WEFT_PK_GEN); /* magic, uuid, version */
	uint64_t v = WEFT__GEN_CARRIED | C->n;
	memcpy(pk + WEFT_PK_GEN, &v, 8);
	v = stream;
	memcpy(pk + WEFT_PK_STREAM, &v, 8);
	memcpy(pk + WEFT_PK_TS_BEGIN, &C->ts, 8);
	memcpy(pk + WEFT_PK_TS_END, &C->ts, 8);
	v = (uint64_t)C->ps * 8;
	memcpy(pk + WEFT_PK_SIZE, &v, 8);
	memcpy(pk + WEFT_PK_CURRENT, &current, 8);
	/* the OS thread, and the drops counted so far, of the stream's
	 * oldest real packet (then none is counted twice) */
	uint64_t best = UINT64_MAX;
	for (uint32_t i = 0; i < C->nreal; i++) {
		const uint8_t *r = C->real + (size_t)i * C->ps;
		if (weft__ld64(r + WEFT_PK_STREAM) == stream &&
		    weft__ld64(r + WEFT_PK_SEQ) < best) {
			best = weft__ld64(r + WEFT_PK_SEQ);
			memcpy(pk + WEFT_PK_DISCARDED, r + WEFT_PK_DISCARDED,
			       8);
			memcpy(pk + WEFT_PK_TID, r + WEFT_PK_TID, 4);
		}
	}
	C->pk = pk;
	C->pos = WEFT_PK_EVENTS;
	C->stream = stream;
	C->current = current;
	return 0;
}

/* One event (extended header: its full time) into a packet on `stream`
 * whose current thread is `current`.  0, or -1 (no room). */
static int carry_event(struct carrier *C, uint32_t stream, uint64_t current,
		       unsigned id, const uint8_t *payload, uint32_t len)
{
	uint32_t need = WEFT_EH_EXT_SIZE + len;
	if (need > C->ps - WEFT_PK_TRAILER - WEFT_PK_EVENTS)
		return -1;
	if ((!C->pk || C->stream != stream || C->current != current ||
	     C->pos + need > C->ps - WEFT_PK_TRAILER) &&
	    carry_open(C, stream, current))
		return -1;
	uint8_t *p = C->pk + C->pos;
	uint32_t id32 = id;
	p[0] = WEFT_EH_EXTENDED;
	memcpy(p + 1, &id32, 4);
	memcpy(p + 5, &C->ts, 8);
	memcpy(p + WEFT_EH_EXT_SIZE, payload, len);
	C->pos += need;
	return 0;
}

static int cmp_carry(const void *a, const void *b)
{
	const struct weft__kcarry *x = a, *y = b;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->creator != y->creator)
		return x->creator < y->creator ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The packets of chunk k's carried threads, for the ring of nreal real
 * packets at `real` (its header: h): *out (malloc'ed), *n packets. */
static int carried_packets(const struct kchunk_in *k,
			   const struct weft__fhdr *h, const uint8_t *real,
			   uint32_t nreal, uint32_t ps, uint8_t **out,
			   uint32_t *n)
{
	*out = NULL;
	*n = 0;
	if (!k->ix.ncarry || !nreal ||
	    weft__ld32(real + WEFT_PK_MAGIC) != WEFT_CTF_MAGIC)
		return 0;
	struct carrier C = {.ps = ps,
			    .real = real,
			    .nreal = nreal,
			    .nstreams = h->nstreams,
			    .ts = UINT64_MAX};
	for (uint32_t i = 0; i < nreal; i++) {
		uint64_t t =
			weft__ld64(real + (size_t)i * ps + WEFT_PK_TS_BEGIN);
		if (t && t < C.ts)
			C.ts = t;
	}
	if (C.ts == UINT64_MAX)
		C.ts = 1;
	size_t cl = (size_t)k->ix.ncarry * sizeof *k->cr;
	struct weft__kcarry *cr = malloc(cl);
	if (!cr)
		return -ENOMEM;
	memcpy(cr, k->cr, cl);
	uint32_t nc = k->ix.ncarry;
	uint32_t fallback = (uint32_t)weft__ld64(real + WEFT_PK_STREAM);
	for (uint32_t i = 0; i < nc; i++)
		if (cr[i].stream >= C.nstreams)
			cr[i].stream = fallback; /* (a damaged entry) */
	qsort(cr, nc, sizeof *cr, cmp_carry);
	uint8_t ev[WEFT_KEEP_LABEL + 16];
	int full = 0;
	for (uint32_t i = 0; i < nc && !full; i++) {
		const struct weft__kcarry *e = &cr[i];
		memcpy(ev, &e->id, 8);
		memcpy(ev + 8, &e->kind, 2);
		if (e->lname) {
			memcpy(ev + 10, &e->lname, 2);
			full = carry_event(&C, e->stream, e->creator,
					   WEFT_EV_CREATE_LABEL, ev, 12);
		} else
			full = carry_event(&C, e->stream, e->creator,
					   WEFT_EV_CREATE, ev, 10);
		if (!full && e->label[0]) {
			size_t l = strnlen(e->label, WEFT_KEEP_LABEL - 1);
			ev[8] = e->ltrunc ? 1 : 0;
			memcpy(ev + 9, e->label, l);
			ev[9 + l] = 0;
			full = carry_event(&C, e->stream, e->creator,
					   WEFT_EV_LABEL, ev,
					   (uint32_t)(10 + l));
		}
	}
	/* those that ran and wait: their wait (a packet of no current
	 * thread: run, try_read, ..., run(0)) */
	carry_close(&C);
	for (uint32_t i = 0; i < nc && !full; i++) {
		const struct weft__kcarry *e = &cr[i];
		if (e->state != WEFT_KEEP_WAITING || !e->source)
			continue;
		if (C.pk && (C.stream != e->stream || C.current != 0 ||
			     C.pos + 3 * (WEFT_EH_EXT_SIZE + 8) >
				     ps - WEFT_PK_TRAILER)) {
			uint64_t z = 0;
			if (C.current == 0 && C.pos > WEFT_PK_EVENTS &&
			    C.pos + WEFT_EH_EXT_SIZE + 8 <=
				    ps - WEFT_PK_TRAILER)
				carry_event(&C, C.stream, 0, WEFT_EV_RUN,
					    (const uint8_t *)&z, 8);
			carry_close(&C);
		}
		full = carry_event(&C, e->stream, 0, WEFT_EV_RUN,
				   (const uint8_t *)&e->id, 8) ||
		       carry_event(&C, e->stream, 0, WEFT_EV_TRY_READ,
				   (const uint8_t *)&e->source, 8);
	}
	if (C.pk && C.current == 0 && C.pos > WEFT_PK_EVENTS) {
		uint64_t z = 0;
		carry_event(&C, C.stream, 0, WEFT_EV_RUN, (const uint8_t *)&z,
			    8);
	}
	carry_close(&C);
	free(cr);
	*out = C.buf;
	*n = C.n;
	return 0;
}

/* The ring of chunks c[0..n) (one ring's, by number): built in place at
 * *buf + base (*buf grown as needed: the caller frees it, also on an
 * error), *len its bytes.  In place, so that a directory's rings are put
 * together where the bundle holds them, and not copied (their memory
 * once, not twice). */
/* The compressed bytes [off, off + n) of a chunk's file, into *zb (grown
 * to *zcap): frames are read one at a time as they are decompressed (the
 * reader holds one frame's compressed bytes, not the chunk's).  0 or
 * -1. */
static int read_span(int fd, uint64_t off, uint64_t n, uint8_t **zb,
		     size_t *zcap)
{
	if (n > (64u << 20))
		return -1; /* (a frame is 128 KiB of packets, compressed) */
	if (*zcap < n) {
		uint8_t *z = realloc(*zb, (size_t)n);
		if (!z)
			return -1;
		*zb = z;
		*zcap = (size_t)n;
	}
	return pread_all(fd, *zb, (size_t)n, off) ? -1 : 0;
}

static int build_ring(int dfd, struct kchunk_in *c, uint32_t n, ZSTD_DCtx *dz,
		      uint8_t **buf, size_t base, size_t *len,
		      struct kept_notes *nt)
{
	/* the header of the chunk with the newest packets (a chunk copied
	 * under a later number is not newer) */
	const struct kchunk_in *last = &c[n - 1];
	for (uint32_t i = 0; i < n; i++)
		if (c[i].ix.gen_max > last->ix.gen_max)
			last = &c[i];
	uint32_t ps = last->ix.packet_size, hs = last->ix.header_size;
	uint64_t total = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!memcmp(c[i].ix.uuid, last->ix.uuid, 16) &&
		    c[i].ix.packet_size == ps)
			total += c[i].ix.npackets;
	if ((uint64_t)hs + total * ps > SIZE_MAX - base)
		return -ENOMEM;
	uint8_t *b = realloc(*buf, base + (size_t)hs + (size_t)total * ps);
	if (!b)
		return -ENOMEM;
	*buf = b;
	b += base;
	struct genref *g = malloc((total ? total : 1) * sizeof *g);
	if (!g)
		return -ENOMEM;
	/* the newest chunk's header region: frame 0, before the first
	 * frame of packets */
	uint8_t *zb = NULL;
	size_t zcap = 0;
	int lfd = openat(dfd, last->name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t hn = lfd < 0 || read_span(lfd, 0, last->fr[0].off, &zb, &zcap)
			    ? (size_t)-1
			    : ZSTD_decompressDCtx(dz, b, hs, zb,
						  (size_t)last->fr[0].off);
	if (lfd >= 0)
		close(lfd);
	if (ZSTD_isError(hn) || hn != hs) {
		free(zb);
		free(g);
		return WEFT_ECORRUPT;
	}
	uint32_t at = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct kchunk_in *k = &c[i];
		if (memcmp(k->ix.uuid, last->ix.uuid, 16) ||
		    k->ix.packet_size != ps) {
			note(nt, k->name, "another trace's ring of that name");
			continue;
		}
		int fd =
			openat(dfd, k->name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue; /* (deleted since its index was read: a
				     keeper keeps its budget; its packets are
				     a gap readers count) */
		for (uint32_t f = 0; f < k->ix.nframes; f++) {
			const struct weft__kframe *fr = &k->fr[f];
			if (read_span(fd, fr->off, fr->csize, &zb, &zcap) ||
			    frame_packets(k, fr, zb, dz,
					  b + hs + (size_t)at * ps, ps)) {
				note(nt, k->name,
				     "a frame does not decompress");
				continue;
			}
			for (uint32_t p = 0; p < fr->npk; p++) {
				g[at + p].gen = k->pk[fr->first + p].gen;
				g[at + p].at = at + p;
			}
			at += fr->npk;
		}
		close(fd);
	}
	free(zb);
	/* each generation once (a packet kept twice: the first copy) */
	qsort(g, at, sizeof *g, cmp_gen);
	uint8_t *dup = calloc(at ? at : 1, 1);
	if (!dup) {
		free(g);
		return -ENOMEM;
	}
	for (uint32_t i = 1; i < at; i++)
		if (g[i].gen == g[i - 1].gen)
			dup[g[i].at] = 1;
	uint32_t w = 0;
	for (uint32_t i = 0; i < at; i++) {
		if (dup[i])
			continue;
		if (w != i)
			memmove(b + hs + (size_t)w * ps,
				b + hs + (size_t)i * ps, ps);
		w++;
	}
	free(dup);
	free(g);
	if (!w) { /* a ring has one slot at least */
		memset(b + hs, 0, ps);
		w = 1;
	}
	struct weft__fhdr *h = (struct weft__fhdr *)(void *)b;
	/* the threads alive at the start of the oldest chunk (of the
	 * others: the chunks before them have their creations) */
	const struct kchunk_in *first = NULL;
	for (uint32_t i = 0; i < n; i++)
		if (!memcmp(c[i].ix.uuid, last->ix.uuid, 16) &&
		    c[i].ix.packet_size == ps &&
		    (!first || c[i].ix.gen_min < first->ix.gen_min))
			first = &c[i];
	uint8_t *cp = NULL;
	uint32_t ncp = 0;
	if (first && carried_packets(first, h, b + hs, w, ps, &cp, &ncp))
		return -ENOMEM;
	if (ncp && w + ncp > total) {
		uint8_t *nb = realloc(*buf, base + hs + (size_t)(w + ncp) * ps);
		if (!nb) {
			free(cp);
			return -ENOMEM;
		}
		*buf = nb;
		b = nb + base;
	}
	if (ncp) {
		memcpy(b + hs + (size_t)w * ps, cp, (size_t)ncp * ps);
		w += ncp;
		h = (struct weft__fhdr *)(void *)b;
	}
	free(cp);
	/* (readers look at the slots next_gen says were used) */
	if ((h->next_gen & ~WEFT_GEN_STOPPED) < w)
		h->next_gen = (h->next_gen & WEFT_GEN_STOPPED) | w;
	h->npackets = w;
	h->file_size = (uint64_t)hs + (uint64_t)w * ps;
	*len = (size_t)h->file_size;
	return 0;
}

int weft__kept_load(const char *dir, uint8_t **out, size_t *len, int *bundle,
		    struct kept_notes *nt, struct weft_diag *d)
{
	*out = NULL;
	*bundle = 0;
	memset(nt, 0, sizeof *nt);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return weft__diag(d, -errno, 0, "%s: %s", dir, strerror(errno));
	DIR *dp = fdopendir(dup(dfd));
	struct kchunk_in *c = NULL;
	uint32_t n = 0, cap = 0;
	int err = dp ? 0 : -errno;
	struct dirent *de;
	while (!err && (de = readdir(dp))) {
		const char *nm = de->d_name;
		size_t l = strlen(nm), sl = strlen(WEFT_KEEP_SUFFIX);
		if (l < 10 + sl || strspn(nm, "0123456789") != 8 ||
		    nm[8] != '.' || strcmp(nm + l - sl, WEFT_KEEP_SUFFIX))
			continue;
		if (weft__grow32(&c, &cap, (size_t)n + 1, sizeof *c, 64)) {
			err = -ENOMEM;
			break;
		}
		struct kchunk_in *k = &c[n];
		memset(k, 0, sizeof *k);
		k->number = strtoull(nm, NULL, 10);
		snprintf(k->name, sizeof k->name, "%s", nm);
		int e = read_index_bytes(dfd, nm, k);
		if (e == -ENOMEM) {
			err = e;
			break;
		}
		if (e && e != WEFT_ECORRUPT) /* (deleted meanwhile: a keeper
						keeps its budget) */
			continue;
		if (chunk_index(k)) {
			note(nt, nm, "not a complete chunk (no index)");
			free(k->file);
			free(k->fr);
			free(k->pk);
			free(k->cr);
			continue;
		}
		k->ix.ring[sizeof k->ix.ring - 1] = 0;
		n++;
	}
	if (dp)
		closedir(dp);
	/* packets a keeper could not write (a full disk): lost, said */
	FILE *lf =
		fdopen(openat(dfd, WEFT_KEEP_LOG, O_RDONLY | O_CLOEXEC), "r");
	char line[1024];
	while (lf && fgets(line, sizeof line, lf)) {
		unsigned long long p;
		if (sscanf(line, "unwritten ring=%*s packets=%llu", &p) == 1)
			nt->unwritten += p;
	}
	if (lf)
		fclose(lf);
	uint8_t *man = NULL;
	size_t manlen = 0;
	if (!err) {
		int e = read_whole(dfd, "manifest", &man, &manlen);
		if (e && e != -ENOENT)
			err = e;
	}
	if (!err && !n)
		err = weft__diag(d, WEFT_EEMPTY, 0,
				 "%s: a kept directory with no chunk yet%s%s",
				 dir, nt->n ? " readable: " : "",
				 nt->n ? nt->what : "");
	ZSTD_DCtx *dz = err ? NULL : ZSTD_createDCtx();
	if (!err && !dz)
		err = -ENOMEM;
	uint32_t nrings = 0;
	struct bpart *parts = NULL;
	if (!err) {
		qsort(c, n, sizeof *c, cmp_chunk);
		for (uint32_t i = 0; i < n; i++)
			nrings += !i || strcmp(c[i].ix.ring, c[i - 1].ix.ring);
		parts = calloc(nrings + 1, sizeof *parts);
		if (!parts)
			err = -ENOMEM;
	}
	/* The bundle (or, one ring and no run, the ring itself) built in
	 * place: each part at its offset, the header written last. */
	uint32_t nparts = nrings + (man && manlen ? 1 : 0), np = 0;
	int single = nrings == 1 && nparts == 1;
	size_t off = single ? 0 : (size_t)weft__bundle_first(nparts);
	uint8_t *buf = NULL;
	if (!err && !single && !(buf = malloc(off + manlen)))
		err = -ENOMEM;
	if (!err && man && manlen) {
		parts[np].kind = BUNDLE_MANIFEST;
		parts[np].len = manlen;
		parts[np].off = off;
		snprintf(parts[np].name, sizeof parts[np].name, "manifest");
		memcpy(buf + off, man, manlen);
		off += manlen;
		np++;
	}
	for (uint32_t i = 0; !err && i < n;) {
		uint32_t j = i + 1;
		while (j < n && !strcmp(c[j].ix.ring, c[i].ix.ring))
			j++;
		size_t l, at = single ? 0 : (off + 63) & ~(size_t)63;
		if (at > off) { /* (the padding before it: zeros) */
			uint8_t *nb = realloc(buf, at);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
			memset(buf + off, 0, at - off);
		}
		err = build_ring(dfd, c + i, j - i, dz, &buf, at, &l, nt);
		if (err) {
			err = weft__diag(d, err, 0, "%s: ring %s: %s", dir,
					 c[i].ix.ring,
					 err == WEFT_ECORRUPT
						 ? "its newest chunk's header "
						   "does not decompress"
						 : weft_strerror(err));
			break;
		}
		/* (their compressed bytes are no longer needed) */
		for (uint32_t k = i; k < j; k++) {
			free(c[k].file);
			c[k].file = NULL;
		}
		parts[np].kind = BUNDLE_RING;
		parts[np].len = l;
		parts[np].off = at;
		/* (a run's rings: "ring.PID.N", well within 48 bytes) */
		memcpy(parts[np].name, c[i].ix.ring, sizeof parts[np].name - 1);
		np++;
		off = at + l;
		i = j;
	}
	if (!err && !single) {
		size_t size = (off + 63) & ~(size_t)63;
		uint8_t *nb = realloc(buf, size);
		if (!nb)
			err = -ENOMEM;
		else {
			buf = nb;
			memset(buf + off, 0, size - off);
			weft__bundle_header(buf, parts, np, size);
			off = size;
			*bundle = 1;
		}
	}
	if (!err) {
		/* (a ring built in a bigger buffer: given back) */
		uint8_t *nb = single ? realloc(buf, off) : buf;
		*out = nb ? nb : buf;
		*len = off;
		buf = NULL;
	}
	free(buf);
	free(parts);
	free(man);
	for (uint32_t i = 0; i < n; i++) {
		free(c[i].file);
		free(c[i].fr);
		free(c[i].pk);
		free(c[i].cr);
	}
	free(c);
	ZSTD_freeDCtx(dz);
	close(dfd);
	return err;
}

int weft__kept_chunk(const char *path, uint8_t **out, size_t *len,
		     struct weft_diag *d)
{
	*out = NULL;
	struct kchunk_in c;
	memset(&c, 0, sizeof c);
	if (strlen(path) >= sizeof c.name)
		return weft__diag(d, -ENAMETOOLONG, 0, "%s",
				  strerror(ENAMETOOLONG));
	snprintf(c.name, sizeof c.name, "%s", path);
	int err = read_index_bytes(AT_FDCWD, path, &c);
	if (err && err != WEFT_ECORRUPT) {
		free(c.file);
		return weft__diag(d, err, 0, "%s", weft_strerror(err));
	}
	err = 0;
	ZSTD_DCtx *dz = NULL;
	struct kept_notes nt = {0};
	if (chunk_index(&c))
		err = weft__diag(d, WEFT_ECORRUPT, 0,
				 "a zstd file that is not a complete weft "
				 "chunk (no index: zstd -d gives what it "
				 "holds)");
	else if (!(dz = ZSTD_createDCtx()))
		err = -ENOMEM;
	else if ((err = build_ring(AT_FDCWD, &c, 1, dz, out, 0, len, &nt))) {
		free(*out);
		*out = NULL;
		err = weft__diag(d, err, 0, "%s",
				 err == WEFT_ECORRUPT ? "its header does not "
							"decompress"
						      : weft_strerror(err));
	} else if (nt.n) {
		free(*out);
		*out = NULL;
		err = weft__diag(d, WEFT_ECORRUPT, 0, "%s", nt.what);
	}
	ZSTD_freeDCtx(dz);
	free(c.file);
	free(c.fr);
	free(c.pk);
	free(c.cr);
	return err;
}
