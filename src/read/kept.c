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
#include "sys.h"
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

/* (a chunk shorter than its index says is damaged) */
static int pread_all(int fd, void *dst, size_t n, uint64_t off)
{
	int err = weft__file_read(fd, off, dst, n);
	return err == WEFT_ETRUNC ? WEFT_ECORRUPT : err;
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

/* The packets of chunk k's carried threads, for the ring whose header is
 * h, at the time ts (its first packet's): *out (malloc'ed), *n packets.
 * `real`: nreal real packets of the ring, the oldest of each stream (the
 * drops counted so far and the OS thread of the packets made). */
static int carried_packets(const struct kchunk_in *k,
			   const struct weft__fhdr *h, const uint8_t *real,
			   uint32_t nreal, uint32_t ps, uint64_t ts,
			   uint8_t **out, uint32_t *n)
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
			    .ts = ts ? ts : 1};
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

/* ------------------------------------------------ a ring read frame by frame */

/*
 * A ring of a kept directory (or one chunk) is a virtual ring file: the
 * header region of its chunk with the newest packets (its geometry
 * patched to the packets there), then one slot for each packet of its
 * chunks (each generation once: the first copy), then the packets its
 * oldest chunk's carried threads become.  Nothing of a slot is in memory
 * until a reader reads it: its frame is then decompressed into a cache of
 * KCACHE frames of the reader's own (docs/keep.md, "Bounded memory").
 */
struct kslot {
	uint32_t chunk; /* in K->c; KS_CARRIED, KS_EMPTY */
	uint32_t frame;
	uint32_t k; /* the packet in its frame, or the carried packet */
};
#define KS_CARRIED UINT32_MAX
#define KS_EMPTY (UINT32_MAX - 1)

struct weft__kring {
	int refs;
	int dfd; /* the directory (owned), or AT_FDCWD for a chunk alone */
	struct kchunk_in *c;
	uint32_t n;
	uint8_t *hdr; /* the header region, patched */
	uint32_t hs, ps, nslots;
	uint64_t size; /* the virtual file's */
	struct kslot *slot;
	uint8_t *carried;	 /* the carried packets */
	struct kept_notes notes; /* damaged frames found while read */
};

#define KCACHE 8
struct kframe_buf {
	uint32_t chunk, frame; /* what it holds (chunk KS_EMPTY: nothing) */
	int bad;	       /* it did not decompress: zeros */
	uint64_t used;
	uint8_t *b;
	size_t cap;
};

struct weft__kread {
	struct weft__kring *K;
	ZSTD_DCtx *dz;
	struct kframe_buf fb[KCACHE];
	uint64_t tick;
	int fd; /* the chunk open (fd_chunk), or -1 */
	uint32_t fd_chunk;
	uint8_t *zb; /* one frame's compressed bytes */
	size_t zcap;
};

/* What every reader of kept chunks held and did, for tests
 * (WEFT_KEPT_STATS): decompressed bytes of packets held in frame caches
 * now and at most, and frames decompressed. */
static uint64_t st_held, st_peak, st_frames;

static void stat_held(int64_t d)
{
	uint64_t now =
		__atomic_add_fetch(&st_held, (uint64_t)d, __ATOMIC_RELAXED);
	uint64_t pk = __atomic_load_n(&st_peak, __ATOMIC_RELAXED);
	while (now > pk &&
	       !__atomic_compare_exchange_n(&st_peak, &pk, now, 1,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static void kring_unref(struct weft__kring *K)
{
	if (!K || --K->refs > 0)
		return;
	for (uint32_t i = 0; i < K->n; i++) {
		free(K->c[i].file);
		free(K->c[i].fr);
		free(K->c[i].pk);
		free(K->c[i].cr);
	}
	free(K->c);
	free(K->hdr);
	free(K->slot);
	free(K->carried);
	if (K->dfd >= 0 && K->dfd != AT_FDCWD)
		close(K->dfd);
	free(K);
	const char *e = getenv("WEFT_KEPT_STATS");
	if (e && *e)
		fprintf(stderr,
			"weft: kept: %llu frames decompressed, at most %llu "
			"bytes of packets held\n",
			(unsigned long long)__atomic_load_n(&st_frames,
							    __ATOMIC_RELAXED),
			(unsigned long long)__atomic_load_n(&st_peak,
							    __ATOMIC_RELAXED));
}

/* The compressed bytes [off, off + n) of a chunk's file, into *zb (grown
 * to *zcap).  0 or -1. */
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

struct weft__kread *weft__kread_new(struct weft__kring *K)
{
	struct weft__kread *R = calloc(1, sizeof *R);
	if (!R || !(R->dz = ZSTD_createDCtx())) {
		free(R);
		return NULL;
	}
	R->K = K;
	K->refs++;
	R->fd = -1;
	for (int i = 0; i < KCACHE; i++)
		R->fb[i].chunk = KS_EMPTY;
	return R;
}

void weft__kread_free(struct weft__kread *R)
{
	if (!R)
		return;
	for (int i = 0; i < KCACHE; i++) {
		stat_held(-(int64_t)R->fb[i].cap);
		free(R->fb[i].b);
	}
	free(R->zb);
	if (R->fd >= 0)
		close(R->fd);
	ZSTD_freeDCtx(R->dz);
	kring_unref(R->K);
	free(R);
}

/* The bytes of frame f of chunk ci, from the cache or decompressed into
 * it (a frame that does not: zeros, said once in K->notes). */
static const uint8_t *kread_frame(struct weft__kread *R, uint32_t ci,
				  uint32_t f)
{
	struct weft__kring *K = R->K;
	struct kframe_buf *v = NULL;
	for (int i = 0; i < KCACHE; i++)
		if (R->fb[i].chunk == ci && R->fb[i].frame == f) {
			R->fb[i].used = ++R->tick;
			return R->fb[i].b;
		}
	for (int i = 0; i < KCACHE; i++)
		if (!v || R->fb[i].used < v->used)
			v = &R->fb[i];
	const struct kchunk_in *k = &K->c[ci];
	const struct weft__kframe *fr = &k->fr[f];
	size_t want = (size_t)fr->npk * K->ps;
	v->chunk = KS_EMPTY;
	if (v->cap < want) {
		uint8_t *nb = realloc(v->b, want);
		if (!nb)
			return NULL;
		stat_held((int64_t)(want - v->cap));
		v->b = nb;
		v->cap = want;
	}
	if (R->fd < 0 || R->fd_chunk != ci) {
		if (R->fd >= 0)
			close(R->fd);
		R->fd = openat(K->dfd, k->name,
			       O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		R->fd_chunk = ci;
	}
	__atomic_add_fetch(&st_frames, 1, __ATOMIC_RELAXED);
	v->bad = R->fd < 0 ||
		 read_span(R->fd, fr->off, fr->csize, &R->zb, &R->zcap) ||
		 frame_packets(k, fr, R->zb, R->dz, v->b, K->ps);
	if (v->bad) {
		/* (a chunk deleted since its index was read, by a keeper
		 * keeping its budget, or a damaged frame: its packets are a
		 * gap readers count) */
		memset(v->b, 0, want);
		if (R->fd >= 0)
			note(&K->notes, k->name, "a frame does not decompress");
	}
	v->chunk = ci;
	v->frame = f;
	v->used = ++R->tick;
	return v->b;
}

int weft__kread_read(struct weft__kread *R, uint64_t off, void *dst, size_t n)
{
	struct weft__kring *K = R->K;
	uint8_t *d = dst;
	if (off > K->size || n > K->size - off)
		return WEFT_ETRUNC;
	while (n) {
		size_t take;
		if (off < K->hs) {
			take = K->hs - off < n ? (size_t)(K->hs - off) : n;
			memcpy(d, K->hdr + off, take);
		} else {
			uint64_t rel = off - K->hs;
			uint32_t si = (uint32_t)(rel / K->ps),
				 in = (uint32_t)(rel % K->ps);
			take = K->ps - in < n ? K->ps - in : n;
			const struct kslot *s = &K->slot[si];
			const uint8_t *pk = NULL;
			if (s->chunk == KS_CARRIED)
				pk = K->carried + (size_t)s->k * K->ps;
			else if (s->chunk != KS_EMPTY) {
				const uint8_t *fb =
					kread_frame(R, s->chunk, s->frame);
				if (!fb)
					return -ENOMEM;
				pk = fb + (size_t)s->k * K->ps;
			}
			if (pk)
				memcpy(d, pk + in, take);
			else
				memset(d, 0, take);
		}
		d += take;
		off += take;
		n -= take;
	}
	return 0;
}

const uint8_t *weft__kring_header(const struct weft__kring *K, uint64_t *size)
{
	*size = K->size;
	return K->hdr;
}

void weft__kring_ref(struct weft__kring *K)
{
	K->refs++;
}

void weft__kring_free(struct weft__kring *K)
{
	kring_unref(K);
}

const struct kept_notes *weft__kring_notes(const struct weft__kring *K)
{
	return &K->notes;
}

/* The oldest packet (lowest sequence number) of each stream among the
 * slots, as (slot) list: *out (malloc'ed), *n. */
static int oldest_of_streams(const struct weft__kring *K, uint32_t nstreams,
			     uint32_t **out, uint32_t *n)
{
	uint32_t *best = malloc((nstreams ? nstreams : 1) * sizeof *best);
	uint64_t *seq = malloc((nstreams ? nstreams : 1) * sizeof *seq);
	*out = best;
	*n = 0;
	if (!best || !seq) {
		free(seq);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < nstreams; i++)
		best[i] = UINT32_MAX;
	for (uint32_t i = 0; i < K->nslots; i++) {
		const struct kslot *s = &K->slot[i];
		if (s->chunk >= KS_EMPTY)
			continue;
		const struct weft__kpk *p =
			&K->c[s->chunk]
				 .pk[K->c[s->chunk].fr[s->frame].first + s->k];
		if (p->stream >= nstreams)
			continue;
		if (best[p->stream] == UINT32_MAX || p->seq < seq[p->stream]) {
			best[p->stream] = i;
			seq[p->stream] = p->seq;
		}
	}
	uint32_t w = 0;
	for (uint32_t i = 0; i < nstreams; i++)
		if (best[i] != UINT32_MAX)
			best[w++] = best[i];
	*n = w;
	free(seq);
	return 0;
}

/* The ring of chunks c[0..n) (one ring's, by number; K->c owns them
 * after, also on an error) made into K.  0 or a negative code
 * (WEFT_ECORRUPT: the newest chunk's header does not decompress). */
static int kring_build(struct weft__kring *K, struct kept_notes *nt)
{
	struct kchunk_in *c = K->c;
	uint32_t n = K->n;
	/* the header of the chunk with the newest packets (a chunk copied
	 * under a later number is not newer) */
	const struct kchunk_in *last = &c[n - 1];
	for (uint32_t i = 0; i < n; i++)
		if (c[i].ix.gen_max > last->ix.gen_max)
			last = &c[i];
	uint32_t ps = last->ix.packet_size, hs = last->ix.header_size;
	K->ps = ps;
	K->hs = hs;
	uint64_t total = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!memcmp(c[i].ix.uuid, last->ix.uuid, 16) &&
		    c[i].ix.packet_size == ps)
			total += c[i].ix.npackets;
	if (total >= UINT32_MAX - 1)
		return -ENOMEM;
	if (!(K->hdr = malloc(hs)))
		return -ENOMEM;
	/* the newest chunk's header region: frame 0, before the first
	 * frame of packets */
	ZSTD_DCtx *dz = ZSTD_createDCtx();
	if (!dz)
		return -ENOMEM;
	uint8_t *zb = NULL;
	size_t zcap = 0;
	int lfd = openat(K->dfd, last->name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	size_t hn = lfd < 0 || read_span(lfd, 0, last->fr[0].off, &zb, &zcap)
			    ? (size_t)-1
			    : ZSTD_decompressDCtx(dz, K->hdr, hs, zb,
						  (size_t)last->fr[0].off);
	if (lfd >= 0)
		close(lfd);
	free(zb);
	ZSTD_freeDCtx(dz);
	if (ZSTD_isError(hn) || hn != hs)
		return WEFT_ECORRUPT;
	/* the slots: every packet of the indexes, each generation once (a
	 * packet kept twice: the first copy) */
	struct genref *g = malloc((total ? total : 1) * sizeof *g);
	K->slot = malloc((total + 1) * sizeof *K->slot);
	if (!g || !K->slot) {
		free(g);
		return -ENOMEM;
	}
	uint32_t at = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct kchunk_in *k = &c[i];
		if (memcmp(k->ix.uuid, last->ix.uuid, 16) ||
		    k->ix.packet_size != ps) {
			note(nt, k->name, "another trace's ring of that name");
			continue;
		}
		for (uint32_t f = 0; f < k->ix.nframes; f++)
			for (uint32_t p = 0; p < k->fr[f].npk; p++) {
				g[at].gen = k->pk[k->fr[f].first + p].gen;
				g[at].at = at;
				K->slot[at++] = (struct kslot){
					.chunk = i, .frame = f, .k = p};
			}
	}
	if (at > 1)
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
	for (uint32_t i = 0; i < at; i++)
		if (!dup[i])
			K->slot[w++] = K->slot[i];
	free(dup);
	free(g);
	if (!w) /* a ring has one slot at least */
		K->slot[w++] = (struct kslot){.chunk = KS_EMPTY};
	K->nslots = w;
	struct weft__fhdr *h = (struct weft__fhdr *)(void *)K->hdr;
	K->size = (uint64_t)hs + (uint64_t)w * ps;
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
	if (first && first->ix.ncarry && K->slot[0].chunk != KS_EMPTY) {
		/* at the time of the ring's first packet, with the drops
		 * and OS thread of each stream's oldest packet */
		uint64_t ts = UINT64_MAX;
		for (uint32_t i = 0; i < w; i++) {
			const struct kslot *s = &K->slot[i];
			uint64_t t =
				c[s->chunk]
					.pk[c[s->chunk].fr[s->frame].first +
					    s->k]
					.ts_begin;
			if (t && t < ts)
				ts = t;
		}
		uint32_t *old, nold;
		int err = oldest_of_streams(K, h->nstreams, &old, &nold);
		uint8_t *real = err ? NULL
				    : malloc((size_t)(nold ? nold : 1) * ps);
		struct weft__kread *R = real ? weft__kread_new(K) : NULL;
		if (!err && !R)
			err = -ENOMEM;
		for (uint32_t i = 0; !err && i < nold; i++)
			err = weft__kread_read(R, hs + (uint64_t)old[i] * ps,
					       real + (size_t)i * ps, ps);
		weft__kread_free(R); /* (K stays: it had a reference) */
		if (!err)
			err = carried_packets(first, h, real, nold, ps,
					      ts == UINT64_MAX ? 1 : ts, &cp,
					      &ncp);
		free(old);
		free(real);
		if (err)
			return err;
	}
	if (ncp) {
		struct kslot *ns =
			realloc(K->slot, (size_t)(w + ncp) * sizeof *ns);
		if (!ns) {
			free(cp);
			return -ENOMEM;
		}
		K->slot = ns;
		for (uint32_t i = 0; i < ncp; i++)
			K->slot[w + i] =
				(struct kslot){.chunk = KS_CARRIED, .k = i};
		w += ncp;
		K->carried = cp;
	}
	K->nslots = w;
	/* (readers look at the slots next_gen says were used) */
	if ((h->next_gen & ~WEFT_GEN_STOPPED) < w)
		h->next_gen = (h->next_gen & WEFT_GEN_STOPPED) | w;
	h->npackets = w;
	h->file_size = (uint64_t)hs + (uint64_t)w * ps;
	K->size = h->file_size;
	/* (what is not read again: the packets' index, the carried
	 * threads, the index's bytes) */
	for (uint32_t i = 0; i < n; i++) {
		free(c[i].pk);
		free(c[i].cr);
		free(c[i].file);
		c[i].pk = NULL;
		c[i].cr = NULL;
		c[i].file = NULL;
	}
	return 0;
}

static void kchunks_free(struct kchunk_in *c, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		free(c[i].file);
		free(c[i].fr);
		free(c[i].pk);
		free(c[i].cr);
	}
	free(c);
}

void weft__kept_set_free(struct weft__kset *S)
{
	if (!S)
		return;
	for (uint32_t i = 0; i < S->nrings; i++)
		kring_unref(S->ring[i].K);
	free(S->ring);
	free(S->man);
	free(S);
}

/* Whether chunk k's events name the async thread id (version 3: its
 * index by async thread, ascending varint differences; a chunk written
 * before it may). */
static int chunk_names(const struct kchunk_in *k, uint64_t id)
{
	if (k->ix.version < 3)
		return 1;
	const uint8_t *tv = k->file + k->idxlen - sizeof(struct weft__ktail) -
			    k->ix.thr_bytes;
	return weft__kthreads_has(tv, k->ix.thr_bytes, k->ix.nthreads, id);
}

/* The ids a merged reader's `id` may be in a ring: itself, and, tagged
 * with a ring's number (multi.h: TAG_SHIFT 48, 14 bits; rings 1 to
 * 0x3FFD), the ring's own. */
static int chunk_names_merged(const struct kchunk_in *k, uint64_t id)
{
	uint64_t tag = id >> 48 & 0x3FFF;
	return chunk_names(k, id) || (tag >= 1 && tag <= 0x3FFD &&
				      chunk_names(k, id & ~(0x3FFFull << 48)));
}

int weft__kept_open(const char *dir, uint64_t thread, struct weft__kset **out,
		    struct weft_diag *d)
{
	*out = NULL;
	struct weft__kset *S = calloc(1, sizeof *S);
	if (!S)
		return -ENOMEM;
	struct kept_notes *nt = &S->notes;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		free(S);
		return weft__diag(d, -errno, 0, "%s: %s", dir, strerror(errno));
	}
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
		if (thread && !chunk_names_merged(k, thread)) {
			/* (not read: its events do not name the thread) */
			S->skipped++;
			free(k->file);
			free(k->fr);
			free(k->pk);
			free(k->cr);
			continue;
		}
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
	if (!err) {
		int e = read_whole(dfd, "manifest", &S->man, &S->manlen);
		if (e && e != -ENOENT)
			err = e;
		if (!S->manlen) {
			free(S->man);
			S->man = NULL;
		}
	}
	if (!err && !n && S->skipped)
		err = weft__diag(d, WEFT_EEMPTY, 0,
				 "%s: none of its %u chunks names the async "
				 "thread 0x%llx",
				 dir, S->skipped, (unsigned long long)thread);
	else if (!err && !n)
		err = weft__diag(d, WEFT_EEMPTY, 0,
				 "%s: a kept directory with no chunk yet%s%s",
				 dir, nt->n ? " readable: " : "",
				 nt->n ? nt->what : "");
	uint32_t nrings = 0;
	if (!err) {
		qsort(c, n, sizeof *c, cmp_chunk);
		for (uint32_t i = 0; i < n; i++)
			nrings += !i || strcmp(c[i].ix.ring, c[i - 1].ix.ring);
		if (!(S->ring = calloc(nrings, sizeof *S->ring)))
			err = -ENOMEM;
	}
	for (uint32_t i = 0; !err && i < n;) {
		uint32_t j = i + 1;
		while (j < n && !strcmp(c[j].ix.ring, c[i].ix.ring))
			j++;
		struct weft__kring *K = calloc(1, sizeof *K);
		struct kchunk_in *kc = malloc((j - i) * sizeof *kc);
		if (!K || !kc || (K->dfd = dup(dfd)) < 0) {
			free(K);
			free(kc);
			err = -ENOMEM;
			break;
		}
		memcpy(kc, c + i, (j - i) * sizeof *kc);
		memset(c + i, 0, (j - i) * sizeof *kc); /* (K's now) */
		K->c = kc;
		K->n = j - i;
		K->refs = 1;
		snprintf(S->ring[S->nrings].name, sizeof S->ring[0].name,
			 "%.63s", kc[0].ix.ring);
		S->ring[S->nrings++].K = K;
		err = kring_build(K, nt);
		if (err) {
			err = weft__diag(d, err, 0, "%s: ring %s: %s", dir,
					 kc[0].ix.ring,
					 err == WEFT_ECORRUPT
						 ? "its newest chunk's header "
						   "does not decompress"
						 : weft_strerror(err));
			break;
		}
		i = j;
	}
	kchunks_free(c, n);
	close(dfd);
	if (err) {
		weft__kept_set_free(S);
		return err;
	}
	*out = S;
	return 0;
}

int weft__kept_chunk(const char *path, struct weft__kring **out,
		     struct weft_diag *d)
{
	*out = NULL;
	struct weft__kring *K = calloc(1, sizeof *K);
	struct kchunk_in *c = calloc(1, sizeof *c);
	if (!K || !c) {
		free(K);
		free(c);
		return -ENOMEM;
	}
	K->c = c;
	K->n = 1;
	K->refs = 1;
	K->dfd = AT_FDCWD;
	if (strlen(path) >= sizeof c->name) {
		kring_unref(K);
		return weft__diag(d, -ENAMETOOLONG, 0, "%s",
				  strerror(ENAMETOOLONG));
	}
	snprintf(c->name, sizeof c->name, "%s", path);
	int err = read_index_bytes(AT_FDCWD, path, c);
	if (err && err != WEFT_ECORRUPT) {
		kring_unref(K);
		return weft__diag(d, err, 0, "%s", weft_strerror(err));
	}
	struct kept_notes nt = {0};
	if (chunk_index(c))
		err = weft__diag(d, WEFT_ECORRUPT, 0,
				 "a zstd file that is not a complete weft "
				 "chunk (no index: zstd -d gives what it "
				 "holds)");
	else if ((err = kring_build(K, &nt)))
		err = weft__diag(d, err, 0, "%s",
				 err == WEFT_ECORRUPT ? "its header does not "
							"decompress"
						      : weft_strerror(err));
	if (err) {
		kring_unref(K);
		return err;
	}
	*out = K;
	return 0;
}
