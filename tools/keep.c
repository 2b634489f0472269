/* SPDX-License-Identifier: MIT */
/*
 * keep.c - the keeper: follows a live ring (or every ring of a run, new
 * ones as their processes start) with no cooperation from the program,
 * and copies every finished packet, by the commit protocol, into chunk
 * files of a directory before the ring can overwrite it.
 *
 * A generation handed out by the ring's header (next_gen) names a packet
 * in slot (gen - 1) % npackets.  Each generation the keeper has not
 * settled stays on a list until its slot says what became of it: the
 * packet there, closed (copied, validated: gen, timestamp_end and
 * content_size, the bytes, then the trailer), or a newer generation (it
 * is gone: overwritten before it could be kept, or never opened because
 * its writer found the slot held; readers count what is missing from a
 * stream's packet sequence, so nothing needs counting here).  A packet
 * still open waits until it closes, or until its writer is gone (then
 * its committed part is kept).
 *
 * Nothing the keeper knows lives only in its memory: a restarted keeper
 * reads the generations the directory's chunks hold (their indexes), and
 * keeps every packet still in the ring that is not among them.
 *
 * Chunks: see src/common/keep-format.h and docs/keep.md.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "common/format.h"
#include "common/keep-format.h"
#include "common/settings.h"
#include "keep.h"
#include "weft-tools.h"
#include "common/grow.h"

#define FRAME_RAW (128u << 10) /* packets per zstd frame: this many bytes */
#define SLEEP_MIN_NS 1000000ll
#define SLEEP_MAX_NS 20000000ll
#define SCAN_EVERY_NS 250000000ll /* a run directory: new rings */

static int64_t now_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int pread_all(int fd, void *dst, size_t n, uint64_t off)
{
	uint8_t *d = dst;
	while (n) {
		ssize_t k = pread(fd, d, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -EIO; /* the file shrank */
		d += k;
		off += (uint64_t)k;
		n -= (size_t)k;
	}
	return 0;
}

/* ------------------------------------------------------------- the disk */

/* Test only (docs/weft.1, WEFT_KEEP_TEST_ENOSPC=SIZE[,COUNT]): once
 * SIZE bytes of chunks have been written, a write past it writes what
 * fits and fails with ENOSPC, as a full disk does (a chunk torn midway);
 * with COUNT, only COUNT chunk writes fail, then the disk has room
 * again. */
static uint64_t test_enospc = UINT64_MAX, test_enospc_count, written_total;

static int write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	int full = 0;
	if (written_total + n > test_enospc) {
		n = written_total < test_enospc
			    ? (size_t)(test_enospc - written_total)
			    : 0;
		full = 1;
		if (test_enospc_count && !--test_enospc_count)
			test_enospc = UINT64_MAX;
	}
	while (n) {
		ssize_t k = write(fd, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		b += k;
		n -= (size_t)k;
		written_total += (uint64_t)k;
	}
	return full ? -ENOSPC : 0;
}

struct kfile {
	uint64_t number;
	char ring[WEFT_KEEP_NAME];
	uint64_t bytes, npk, gen_min, gen_max;
};

struct keeper {
	const struct keep_opts *o;
	int dirfd;
	char dir[PATH_MAX];
	ZSTD_CCtx *cctx;
	struct kfile *files; /* the chunks in the directory, by number */
	size_t nfiles, cfiles;
	uint64_t disk;	      /* their bytes */
	uint64_t next_number; /* of the next chunk */
	/* what this keeper did */
	uint64_t chunks, packets, packets_open, deleted, deleted_packets;
	uint64_t unwritten_packets, unwritten_chunks;
	uint64_t unlogged; /* unwritten packets the log could not take */
	double peak;	   /* packets/ns: the fastest pace seen lately */
	int64_t peak_at;
	int nospace_said;     /* in an episode of refused chunks */
	int64_t nospace_told; /* when stderr last heard of one (0: never) */
	/* the run, if a run directory is kept */
	int run;
	char man_src[PATH_MAX];
	uint64_t man_copied;
	uint32_t root_pid; /* the manifest's first fork line */
	int root_reaped;
	struct kring **rings;
	size_t nrings, crings;
};

/* A line of the directory's log (one write, O_APPEND). */
__attribute__((format(printf, 2, 3))) static void klog(struct keeper *K,
						       const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	int fd = openat(K->dirfd, WEFT_KEEP_LOG,
			O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
			0644);
	if (fd < 0)
		return;
	int ok = write(fd, line, (size_t)n) == (ssize_t)n;
	close(fd);
	if (!ok && !strncmp(line, "unwritten ", 10)) {
		/* a full disk refuses the log too: said with the next line
		 * it takes (and on stderr at the end) */
		unsigned long long p;
		if (sscanf(line, "unwritten ring=%*s packets=%llu", &p) == 1)
			K->unlogged += p;
	} else if (ok && K->unlogged) {
		uint64_t p = K->unlogged;
		K->unlogged = 0;
		klog(K, "unwritten ring=- packets=%" PRIu64 " late=1", p);
	}
}

static int files_add(struct keeper *K, const struct kfile *f)
{
	if (weft__grow_to(&K->files, &K->cfiles, K->nfiles + 1,
			  sizeof *K->files, 64, SIZE_MAX))
		return -ENOMEM;
	/* by number (a restart lists them in any order) */
	size_t i = K->nfiles;
	while (i && K->files[i - 1].number > f->number) {
		K->files[i] = K->files[i - 1];
		i--;
	}
	K->files[i] = *f;
	K->nfiles++;
	K->disk += f->bytes;
	if (f->number >= K->next_number)
		K->next_number = f->number + 1;
	return 0;
}

/* The oldest chunks deleted until the directory is within its budget
 * (the newest one always stays). */
static void enforce_budget(struct keeper *K)
{
	if (!K->o->max_disk)
		return;
	while (K->disk > K->o->max_disk && K->nfiles > 1) {
		struct kfile f = K->files[0];
		char name[WEFT_KEEP_NAME + 32];
		snprintf(name, sizeof name, "%08" PRIu64 ".%s" WEFT_KEEP_SUFFIX,
			 f.number, f.ring);
		if (unlinkat(K->dirfd, name, 0) < 0 && errno != ENOENT) {
			warning("%s/%s: cannot delete: %s", K->dir, name,
				strerror(errno));
			return;
		}
		memmove(K->files, K->files + 1,
			(K->nfiles - 1) * sizeof *K->files);
		K->nfiles--;
		K->disk -= f.bytes;
		K->deleted++;
		K->deleted_packets += f.npk;
		klog(K,
		     "deleted chunk=%" PRIu64 " ring=%s packets=%" PRIu64
		     " bytes=%" PRIu64 " gen_min=%" PRIu64 " gen_max=%" PRIu64
		     " real=%lld",
		     f.number, f.ring, f.npk, f.bytes, f.gen_min, f.gen_max,
		     (long long)now_ns(CLOCK_REALTIME));
	}
}

/* ------------------------------------------------------------ the chunk */

struct kchunk {
	uint8_t *raw; /* the frame being filled */
	size_t rawlen;
	uint8_t *cbuf; /* compressed frames so far */
	size_t clen, ccap;
	struct weft__kframe *fr;
	uint32_t nfr, cfr;
	struct weft__kpk *pk;
	uint32_t npk, cpk;
	uint32_t frame_first; /* first packet of the frame being filled */
	int64_t opened;	      /* CLOCK_MONOTONIC when its first packet came */
	uint64_t raw_bytes;
	uint64_t *thr; /* the async threads its events name (the index by
			  async thread), sorted and unique up to nthr_sorted */
	uint32_t nthr, cthr, nthr_sorted;
};

static int cmp_u64(const void *a, const void *b);

/* Sorts the chunk's async threads and drops the repeats. */
static void thr_settle(struct kchunk *c)
{
	if (c->nthr == c->nthr_sorted)
		return;
	qsort(c->thr, c->nthr, sizeof *c->thr, cmp_u64);
	uint32_t w = 0;
	for (uint32_t i = 0; i < c->nthr; i++)
		if (!w || c->thr[w - 1] != c->thr[i])
			c->thr[w++] = c->thr[i];
	c->nthr = c->nthr_sorted = w;
}

/* Notes that the chunk holds an event of async thread `id` (not 0: the
 * OS thread itself).  Memory stays the chunk's distinct threads, twice
 * at most. */
static void thr_note(struct kchunk *c, uint64_t id)
{
	if (!c || !id)
		return;
	if (c->nthr && c->thr[c->nthr - 1] == id)
		return;
	if (c->nthr == c->cthr) {
		thr_settle(c);
		/* (doubled: a reader then reads all when it cannot) */
		if ((!c->cthr || c->nthr * 2 > c->cthr) &&
		    weft__grow32(&c->thr, &c->cthr, (size_t)c->cthr + 1,
				 sizeof *c->thr, 256))
			return;
	}
	c->thr[c->nthr++] = id;
}

struct kthr {
	uint64_t id, creator, source, created;
	uint32_t stream;
	uint16_t kind, lname;
	uint8_t ran, ltrunc;
	char label[WEFT_KEEP_LABEL];
};

struct ktrack {
	struct kthr *t;
	uint32_t cap, n; /* cap: a power of two, or 0 */
	uint64_t *cur;	 /* per stream: its current async thread */
	uint32_t ncur;
	uint32_t untracked; /* creations not tracked (over the maximum) */
};

/* ------------------------------------------------------------- the ring */

struct kring {
	char path[PATH_MAX];
	char name[WEFT_KEEP_NAME];
	int fd;
	struct weft__fhdr h; /* as first read: the geometry */
	uint64_t scanned;    /* generations up to this one are listed */
	uint64_t *todo;	     /* generations not settled, ascending */
	size_t ntodo, ctodo;
	uint64_t *had; /* generations the directory held at the start */
	size_t nhad;
	uint8_t *pkt;
	struct kchunk ch;
	int done; /* its writer is gone and everything is kept */
	uint64_t kept;
	struct ktrack tr;	    /* the async threads alive, for the carry */
	struct weft__kcarry *carry; /* those alive at the chunk's start */
	uint32_t ncarry, ccarry, carry_untracked;
};

/* ------------------------------------------------ carried async threads */

/* The async threads alive in a ring (created, not yet resolved, failed,
 * cancelled or become another), from the events of the packets kept, in
 * the order kept: each chunk carries those alive at its start, so that it
 * stands alone (docs/keep.md, "Carried threads").  Open addressing by id
 * (0 is free: the OS thread itself is never created), deletion by
 * backward shift (no tombstones: a server creates and resolves millions). */
static uint32_t kt_hash(const struct ktrack *T, uint64_t id)
{
	return (uint32_t)((id * 0x9E3779B97F4A7C15ull) >> 32) & (T->cap - 1);
}

static struct kthr *kt_find(struct ktrack *T, uint64_t id)
{
	if (!T->cap || !id)
		return NULL;
	for (uint32_t i = kt_hash(T, id);; i = (i + 1) & (T->cap - 1)) {
		if (T->t[i].id == id)
			return &T->t[i];
		if (!T->t[i].id)
			return NULL;
	}
}

static void kt_del(struct ktrack *T, uint64_t id)
{
	struct kthr *e = kt_find(T, id);
	if (!e)
		return;
	uint32_t m = T->cap - 1, i = (uint32_t)(e - T->t), j = i;
	T->t[i].id = 0;
	T->n--;
	for (;;) {
		j = (j + 1) & m;
		if (!T->t[j].id)
			return;
		uint32_t k = kt_hash(T, T->t[j].id);
		/* j's entry may move to i if its home is not in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		T->t[i] = T->t[j];
		T->t[j].id = 0;
		i = j;
	}
}

/* The entry of a thread just created (a creation of an id alive replaces
 * it), or NULL: out of memory, or WEFT_KEEP_CARRY_MAX alive already. */
static struct kthr *kt_put(struct ktrack *T, uint64_t id)
{
	if (!id)
		return NULL;
	struct kthr *e = kt_find(T, id);
	if (!e && (T->n + 1) * 4 > T->cap * 3) {
		if (T->n >= WEFT_KEEP_CARRY_MAX) {
			T->untracked++;
			return NULL;
		}
		uint32_t cap = T->cap ? T->cap * 2 : 256;
		struct kthr *n = calloc(cap, sizeof *n), *old = T->t;
		if (!n)
			return NULL;
		uint32_t ocap = T->cap;
		T->t = n;
		T->cap = cap;
		for (uint32_t i = 0; i < ocap; i++) {
			if (!old[i].id)
				continue;
			uint32_t k = kt_hash(T, old[i].id);
			while (n[k].id)
				k = (k + 1) & (cap - 1);
			n[k] = old[i];
		}
		free(old);
	}
	if (!e) {
		uint32_t k = kt_hash(T, id);
		while (T->t[k].id)
			k = (k + 1) & (T->cap - 1);
		e = &T->t[k];
		T->n++;
	}
	memset(e, 0, sizeof *e);
	e->id = id;
	return e;
}

static void kt_created(struct ktrack *T, uint64_t id, uint64_t creator,
		       uint32_t stream, uint64_t ts, uint16_t kind,
		       uint16_t lname, const struct kthr *like)
{
	struct kthr *e = kt_put(T, id);
	if (!e)
		return;
	e->creator = creator;
	e->stream = stream;
	e->created = ts;
	e->kind = kind;
	e->lname = lname;
	if (like) { /* fire: of its target's kind and label */
		e->kind = like->kind;
		e->lname = like->lname;
		e->ltrunc = like->ltrunc;
		memcpy(e->label, like->label, sizeof e->label);
	}
}

/* The current thread of each stream up to `stream`: 0 or -1. */
static int kt_stream(struct ktrack *T, uint32_t stream)
{
	if (stream < T->ncur)
		return 0;
	uint32_t was = T->ncur; /* (16 past the stream: some 0 slots stay) */
	if (weft__grow32(&T->cur, &T->ncur, (size_t)stream + 16, sizeof *T->cur,
			 16))
		return -1;
	memset(T->cur + was, 0, (size_t)(T->ncur - was) * sizeof *T->cur);
	return 0;
}

/* What an event (id, its ID and NAME fields, its text) does to the
 * threads alive; `cur`: its actor, on `stream`, at `clock`. */
static void kt_apply(struct ktrack *T, unsigned id, const uint64_t ids[2],
		     const uint16_t names[2], const char *text, int trunc,
		     uint64_t cur, uint32_t stream, uint64_t clock)
{
	struct kthr *e;
	switch (id) {
	case WEFT_EV_CREATE:
		kt_created(T, ids[0], cur, stream, clock, names[0], 0, NULL);
		break;
	case WEFT_EV_CREATE_LABEL:
		kt_created(T, ids[0], cur, stream, clock, names[0], names[1],
			   NULL);
		break;
	case WEFT_EV_LABEL:
		if ((e = kt_find(T, ids[0])) && text) {
			size_t l = strlen(text);
			e->ltrunc = trunc || l >= sizeof e->label;
			if (l >= sizeof e->label) {
				l = sizeof e->label - 1;
				/* (not in the middle of a character) */
				while (l && ((uint8_t)text[l] & 0xC0) == 0x80)
					l--;
			}
			memcpy(e->label, text, l);
			e->label[l] = 0;
			e->lname = 0;
		}
		break;
	case WEFT_EV_RUN:
		if ((e = kt_find(T, ids[0])))
			e->ran = 1, e->source = 0;
		break;
	case WEFT_EV_TRY_READ:
		if ((e = kt_find(T, cur)))
			e->source = ids[0];
		break;
	case WEFT_EV_READ:
		if ((e = kt_find(T, cur)))
			e->source = 0;
		break;
	case WEFT_EV_RESOLVE:
	case WEFT_EV_FAIL:
	case WEFT_EV_CANCEL:
	case WEFT_EV_RESOLVE_RUN:
	case WEFT_EV_BECOMES:
		kt_del(T, ids[0]);
		break;
	case WEFT_EV_FIRE: {
		struct kthr like, *t = kt_find(T, ids[0]);
		if (t)
			like = *t;
		kt_del(T, ids[0]);
		kt_created(T, ids[1], ids[0], stream, clock, 0, 0,
			   t ? &like : NULL);
		break;
	}
	default:
		break;
	}
}

/* Follows the events of a kept packet (its committed part); with c,
 * notes in c the async threads they name. */
static void kt_scan(struct ktrack *T, const uint8_t *pk, uint64_t content,
		    struct kchunk *c)
{
	uint64_t sid = weft__ld64(pk + WEFT_PK_STREAM);
	if (sid >= (1u << 20))
		return; /* (not a stream a ring can have) */
	uint32_t stream = (uint32_t)sid;
	if (kt_stream(T, stream))
		return;
	uint64_t cur = weft__ld64(pk + WEFT_PK_CURRENT);
	uint64_t clock = weft__ld64(pk + WEFT_PK_TS_BEGIN);
	const uint8_t *p = pk + WEFT_PK_EVENTS, *end = pk + content;
	while (p < end) {
		unsigned id;
		if ((p[0] & 31) == WEFT_EH_EXTENDED) {
			if (end - p < WEFT_EH_EXT_SIZE)
				break;
			id = weft__ld32(p + 1);
			clock = weft__ld64(p + 5);
			p += WEFT_EH_EXT_SIZE;
		} else {
			if (end - p < 4)
				break;
			uint32_t w = weft__ld32(p);
			id = w & 31;
			uint64_t ts = (clock & ~((1ull << 27) - 1)) | (w >> 5);
			if (ts < clock)
				ts += 1ull << 27;
			clock = ts;
			p += 4;
		}
		if (id >= WEFT_EV_COUNT)
			break; /* (a reader reports it) */
		const struct weft__evspec *sp = &weft__events[id];
		uint64_t ids[2] = {0, 0};
		uint16_t names[2] = {0, 0};
		const char *text = NULL;
		int trunc = 0, nid = 0, nname = 0;
		for (int i = 0; i < 4 && sp->f[i].type; i++) {
			switch (sp->f[i].type) {
			case WEFT_FT_ID:
				if (end - p < 8)
					return;
				ids[nid++ & 1] = weft__ld64(p);
				thr_note(c, weft__ld64(p));
				p += 8;
				break;
			case WEFT_FT_NAME:
				if (end - p < 2)
					return;
				names[nname++ & 1] = weft__ld16(p);
				p += 2;
				break;
			case WEFT_FT_I64:
			case WEFT_FT_U64:
				if (end - p < 8)
					return;
				p += 8;
				break;
			case WEFT_FT_TRUNC:
				if (end - p < 1)
					return;
				trunc = *p++ == 1;
				break;
			case WEFT_FT_STR: {
				const uint8_t *z =
					memchr(p, 0, (size_t)(end - p));
				if (!z)
					return;
				text = (const char *)p;
				p = z + 1;
				break;
			}
			}
		}
		kt_apply(T, id, ids, names, text, trunc, cur, stream, clock);
		thr_note(c, cur); /* (its actor) */
		if (sp->sets_current)
			cur = ids[0];
	}
	T->cur[stream] = cur;
}

/* The threads alive now, into R->carry: those a chunk starting now
 * carries. */
static int kt_snapshot(struct kring *R)
{
	struct ktrack *T = &R->tr;
	R->ncarry = 0;
	R->carry_untracked = T->untracked;
	if (T->n > R->ccarry) {
		struct weft__kcarry *c = realloc(R->carry, T->n * sizeof *c);
		if (!c)
			return -ENOMEM;
		R->carry = c;
		R->ccarry = T->n;
	}
	for (uint32_t i = 0; i < T->cap; i++) {
		const struct kthr *e = &T->t[i];
		if (!e->id)
			continue;
		struct weft__kcarry *c = &R->carry[R->ncarry++];
		memset(c, 0, sizeof *c);
		c->id = e->id;
		c->creator = e->creator;
		c->source = e->source;
		c->created = e->created;
		c->stream = e->stream;
		c->kind = e->kind;
		c->lname = e->lname;
		c->ltrunc = e->ltrunc;
		memcpy(c->label, e->label, sizeof c->label);
		c->state = e->ran ? WEFT_KEEP_WAITING : WEFT_KEEP_CREATED;
		for (uint32_t s = 0; s < T->ncur; s++)
			if (T->cur[s] == e->id)
				c->state = WEFT_KEEP_RUNNING;
	}
	return 0;
}

static int ch_room(struct kchunk *c, size_t need)
{
	return weft__grow_to(&c->cbuf, &c->ccap, c->clen + need, 1, 1 << 20,
			     SIZE_MAX);
}

/* ------------------------------------------------------ packed layout */

/* The columns of a packed block being made (keep-format.h). */
struct kpack {
	uint8_t *col[WEFT_KEEP_PACK_COLS];
	size_t len[WEFT_KEEP_PACK_COLS], cap[WEFT_KEEP_PACK_COLS];
};

static int kp_room(struct kpack *P, int c, size_t n)
{
	return weft__grow_to(&P->col[c], &P->cap[c], P->len[c] + n, 1, 4096,
			     SIZE_MAX);
}

static void kp_put(struct kpack *P, int c, const void *p, size_t n)
{
	memcpy(P->col[c] + P->len[c], p, n);
	P->len[c] += n;
}

static void kp_var(struct kpack *P, int c, uint64_t v)
{
	uint8_t *o = P->col[c] + P->len[c];
	while (v >= 0x80) {
		*o++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*o++ = (uint8_t)v;
	P->len[c] = (size_t)(o - P->col[c]);
}

/* One packet into the columns, packed; 0, 1 (it cannot be: the caller
 * stores it raw; the columns are as before), or -ENOMEM. */
static int kp_packet(struct kpack *P, const uint8_t *pk, uint32_t ps)
{
	size_t mark[WEFT_KEEP_PACK_COLS];
	memcpy(mark, P->len, sizeof mark);
	uint64_t content = weft__ld64(pk + WEFT_PK_CONTENT) / 8;
	if (content < WEFT_PK_EVENTS || content > ps - WEFT_PK_TRAILER ||
	    weft__ld64(pk + ps - WEFT_PK_TRAILER) !=
		    weft__ld64(pk + WEFT_PK_GEN))
		return 1;
	for (uint64_t i = content; i < ps - WEFT_PK_TRAILER; i++)
		if (pk[i])
			return 1;
	/* (room for the worst: each byte of events a byte in two columns,
	 * plus a varint each) */
	size_t ev = (size_t)content - WEFT_PK_EVENTS;
	for (int c = 0; c < WEFT_KEEP_PACK_COLS; c++)
		if (kp_room(P, c, ev * 2 + WEFT_PK_EVENTS + 16))
			return -ENOMEM;
	uint8_t mode = 1;
	kp_put(P, 0, &mode, 1);
	kp_put(P, 0, pk, WEFT_PK_EVENTS);
	uint32_t c32 = (uint32_t)content, nev = 0;
	kp_put(P, 0, &c32, 4);
	size_t nev_at = P->len[0];
	kp_put(P, 0, &nev, 4);
	uint64_t clock = weft__ld64(pk + WEFT_PK_TS_BEGIN), previd = 0;
	const uint8_t *p = pk + WEFT_PK_EVENTS, *end = pk + content;
	while (p < end) {
		unsigned id;
		if ((p[0] & 31) == WEFT_EH_EXTENDED) {
			if (end - p < WEFT_EH_EXT_SIZE ||
			    p[0] != WEFT_EH_EXTENDED)
				goto raw;
			id = weft__ld32(p + 1);
			if (id >= WEFT_EV_COUNT)
				goto raw;
			uint8_t b = WEFT_EH_EXTENDED;
			kp_put(P, 1, &b, 1);
			kp_put(P, 4, p + 1, 12);
			clock = weft__ld64(p + 5);
			p += WEFT_EH_EXT_SIZE;
		} else {
			if (end - p < 4)
				goto raw;
			uint32_t w = weft__ld32(p);
			id = w & 31;
			if (id >= WEFT_EV_COUNT)
				goto raw;
			uint64_t ts = (clock & ~((1ull << 27) - 1)) | (w >> 5);
			if (ts < clock)
				ts += 1ull << 27;
			uint8_t b = (uint8_t)id;
			kp_put(P, 1, &b, 1);
			kp_var(P, 2, ts - clock);
			clock = ts;
			p += 4;
		}
		const struct weft__evspec *sp = &weft__events[id];
		for (int i = 0; i < 4 && sp->f[i].type; i++) {
			switch (sp->f[i].type) {
			case WEFT_FT_ID: {
				if (end - p < 8)
					goto raw;
				uint64_t v = weft__ld64(p), d = v - previd;
				kp_var(P, 3,
				       (d << 1) ^ (uint64_t)((int64_t)d >> 63));
				previd = v;
				p += 8;
				break;
			}
			case WEFT_FT_NAME:
				if (end - p < 2)
					goto raw;
				kp_put(P, 4, p, 2);
				p += 2;
				break;
			case WEFT_FT_I64:
			case WEFT_FT_U64:
				if (end - p < 8)
					goto raw;
				kp_put(P, 4, p, 8);
				p += 8;
				break;
			case WEFT_FT_TRUNC:
				if (end - p < 1)
					goto raw;
				kp_put(P, 4, p, 1);
				p++;
				break;
			case WEFT_FT_STR: {
				const uint8_t *z =
					memchr(p, 0, (size_t)(end - p));
				if (!z)
					goto raw;
				kp_put(P, 4, p, (size_t)(z - p) + 1);
				p = z + 1;
				break;
			}
			}
		}
		nev++;
	}
	memcpy(P->col[0] + nev_at, &nev, 4);
	return 0;
raw:
	memcpy(P->len, mark, sizeof mark);
	return 1;
}

/* The packets raw[0..n) (ps bytes each) as a packed block, into *out
 * (malloc'ed).  0 or -ENOMEM. */
static int kp_block(const uint8_t *raw, uint32_t n, uint32_t ps, uint8_t **out,
		    size_t *len)
{
	struct kpack P;
	memset(&P, 0, sizeof P);
	int err = 0;
	for (uint32_t i = 0; i < n && !err; i++) {
		const uint8_t *pk = raw + (size_t)i * ps;
		int r = kp_packet(&P, pk, ps);
		if (r == 1) {
			uint8_t mode = 0;
			if (kp_room(&P, 0, 1) || kp_room(&P, 5, ps)) {
				err = -ENOMEM;
				break;
			}
			kp_put(&P, 0, &mode, 1);
			kp_put(&P, 5, pk, ps);
		} else if (r)
			err = r;
	}
	size_t total = 8 + 4 * WEFT_KEEP_PACK_COLS;
	for (int c = 0; c < WEFT_KEEP_PACK_COLS; c++)
		total += P.len[c];
	uint8_t *b = err ? NULL : malloc(total);
	if (b) {
		memcpy(b, WEFT_KEEP_PACK_MAGIC, 4);
		memcpy(b + 4, &n, 4);
		size_t at = 8 + 4 * WEFT_KEEP_PACK_COLS;
		for (int c = 0; c < WEFT_KEEP_PACK_COLS; c++) {
			uint32_t l = (uint32_t)P.len[c];
			memcpy(b + 8 + 4 * c, &l, 4);
			if (l)
				memcpy(b + at, P.col[c], l);
			at += l;
		}
	} else if (!err)
		err = -ENOMEM;
	for (int c = 0; c < WEFT_KEEP_PACK_COLS; c++)
		free(P.col[c]);
	*out = b;
	*len = total;
	return err;
}

/* Compresses the packets gathered into one frame. */
static int flush_frame(struct keeper *K, struct kring *R)
{
	struct kchunk *c = &R->ch;
	if (!c->rawlen)
		return 0;
	const uint8_t *in = c->raw;
	size_t inlen = c->rawlen;
	uint8_t *packed = NULL;
	if (K->o->layout == WEFT_KEEP_PACKED) {
		int err = kp_block(c->raw, c->npk - c->frame_first,
				   R->h.packet_size, &packed, &inlen);
		if (err)
			return err;
		in = packed;
	}
	size_t bound = ZSTD_compressBound(inlen);
	if (ch_room(c, bound)) {
		free(packed);
		return -ENOMEM;
	}
	size_t n = ZSTD_compress2(K->cctx, c->cbuf + c->clen, bound, in, inlen);
	free(packed);
	if (ZSTD_isError(n))
		return -EIO;
	if (weft__grow32(&c->fr, &c->cfr, (size_t)c->nfr + 1, sizeof *c->fr,
			 64))
		return -ENOMEM;
	struct weft__kframe *f = &c->fr[c->nfr++];
	memset(f, 0, sizeof *f);
	f->off = c->clen; /* (made absolute when the chunk is written) */
	f->csize = n;
	f->first = c->frame_first;
	f->npk = c->npk - c->frame_first;
	f->gen_min = UINT64_MAX;
	f->ts_min = UINT64_MAX;
	for (uint32_t i = f->first; i < c->npk; i++) {
		const struct weft__kpk *p = &c->pk[i];
		if (p->gen < f->gen_min)
			f->gen_min = p->gen;
		if (p->gen > f->gen_max)
			f->gen_max = p->gen;
		if (p->ts_begin < f->ts_min)
			f->ts_min = p->ts_begin;
		uint64_t end = p->ts_end ? p->ts_end : p->ts_begin;
		if (end > f->ts_max)
			f->ts_max = end;
	}
	c->clen += n;
	c->rawlen = 0;
	c->frame_first = c->npk;
	return 0;
}

static void ch_reset(struct kchunk *c)
{
	c->rawlen = c->clen = 0;
	c->nfr = c->npk = c->frame_first = 0;
	c->opened = 0;
	c->raw_bytes = 0;
	c->nthr = c->nthr_sorted = 0;
}

/* Adds a validated packet copy (R->pkt) to the ring's chunk. */
static int add_packet(struct keeper *K, struct kring *R, uint64_t gen, int open)
{
	struct kchunk *c = &R->ch;
	uint32_t ps = R->h.packet_size;
	if (!c->raw && !(c->raw = malloc(FRAME_RAW + ps)))
		return -ENOMEM;
	if (weft__grow32(&c->pk, &c->cpk, (size_t)c->npk + 1, sizeof *c->pk,
			 256))
		return -ENOMEM;
	if (!c->npk) {
		c->opened = now_ns(CLOCK_MONOTONIC);
		/* the threads alive at its start */
		int err = kt_snapshot(R);
		if (err)
			return err;
	}
	struct weft__kpk *p = &c->pk[c->npk++];
	memset(p, 0, sizeof *p);
	p->gen = gen;
	p->seq = weft__ld64(R->pkt + WEFT_PK_SEQ);
	p->stream = (uint32_t)weft__ld64(R->pkt + WEFT_PK_STREAM);
	p->open = (uint32_t)open;
	p->ts_begin = weft__ld64(R->pkt + WEFT_PK_TS_BEGIN);
	p->ts_end = weft__ld64(R->pkt + WEFT_PK_TS_END);
	memcpy(c->raw + c->rawlen, R->pkt, ps);
	kt_scan(&R->tr, R->pkt, weft__ld64(R->pkt + WEFT_PK_CONTENT) / 8, c);
	c->rawlen += ps;
	c->raw_bytes += ps;
	R->kept++;
	K->packets++;
	K->packets_open += (uint64_t)open;
	if (c->rawlen + ps > FRAME_RAW)
		return flush_frame(K, R);
	return 0;
}

/* Writes the ring's chunk: its header region as it is now (names and
 * streams are published before a packet uses them, so a header read
 * after the packets knows all theirs), to a temporary file renamed into
 * place when complete. */
static int close_chunk(struct keeper *K, struct kring *R)
{
	struct kchunk *c = &R->ch;
	if (!c->npk)
		return 0;
	int err = flush_frame(K, R);
	if (err)
		return err;
	uint32_t hs = R->h.header_size, ps = R->h.packet_size;
	uint8_t *hdr = malloc(hs);
	size_t hbound = ZSTD_compressBound(hs);
	uint8_t *hz = malloc(hbound);
	if (!hdr || !hz) {
		free(hdr);
		free(hz);
		return -ENOMEM;
	}
	if ((err = pread_all(R->fd, hdr, hs, 0))) {
		/* (the file is there: we hold it open) */
		free(hdr);
		free(hz);
		return err;
	}
	struct weft__fhdr *h = (struct weft__fhdr *)(void *)hdr;
	h->npackets = c->npk;
	h->file_size = (uint64_t)hs + (uint64_t)c->npk * ps;
	size_t hzlen = ZSTD_compress2(K->cctx, hz, hbound, hdr, hs);
	free(hdr);
	if (ZSTD_isError(hzlen)) {
		free(hz);
		return -EIO;
	}
	/* the index */
	struct weft__kidx ix;
	memset(&ix, 0, sizeof ix);
	memcpy(ix.magic, WEFT_KEEP_IDX_MAGIC, 8);
	ix.version = WEFT_KEEP_VERSION;
	ix.nframes = c->nfr;
	ix.npackets = c->npk;
	ix.packet_size = ps;
	ix.header_size = hs;
	ix.level = K->o->level;
	memcpy(ix.uuid, R->h.uuid, 16);
	snprintf(ix.ring, sizeof ix.ring, "%s", R->name);
	ix.number = K->next_number;
	ix.gen_min = ix.ts_min = UINT64_MAX;
	for (uint32_t i = 0; i < c->nfr; i++) {
		struct weft__kframe *f = &c->fr[i];
		f->off += hzlen; /* past frame 0 (written first) */
		if (f->gen_min < ix.gen_min)
			ix.gen_min = f->gen_min;
		if (f->gen_max > ix.gen_max)
			ix.gen_max = f->gen_max;
		if (f->ts_min < ix.ts_min)
			ix.ts_min = f->ts_min;
		if (f->ts_max > ix.ts_max)
			ix.ts_max = f->ts_max;
	}
	ix.raw_bytes = hs + c->raw_bytes;
	ix.real_closed = now_ns(CLOCK_REALTIME);
	ix.ncarry = R->ncarry;
	ix.layout = (uint32_t)K->o->layout;
	ix.carry_untracked = R->carry_untracked;
	/* the index by async thread: varints of the differences */
	thr_settle(c);
	uint8_t *tv = malloc((size_t)c->nthr * 10 + 1);
	size_t tvlen = 0;
	if (!tv) {
		free(hz);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < c->nthr; i++) {
		uint64_t v = c->thr[i] - (i ? c->thr[i - 1] : 0);
		for (; v >= 0x80; v >>= 7)
			tv[tvlen++] = (uint8_t)(v | 0x80);
		tv[tvlen++] = (uint8_t)v;
	}
	ix.nthreads = c->nthr;
	ix.thr_bytes = tvlen;
	struct weft__ktail tail;
	size_t plen =
		sizeof ix + c->nfr * sizeof *c->fr + c->npk * sizeof *c->pk +
		(size_t)R->ncarry * sizeof *R->carry + tvlen + sizeof tail;
	tail.index_len = plen;
	memcpy(tail.magic, WEFT_KEEP_END_MAGIC, 8);
	uint32_t skip[2] = {WEFT_KEEP_SKIPPABLE, (uint32_t)plen};

	char name[WEFT_KEEP_NAME + 32], tmp[WEFT_KEEP_NAME + 40];
	snprintf(name, sizeof name, "%08" PRIu64 ".%s" WEFT_KEEP_SUFFIX,
		 K->next_number, R->name);
	snprintf(tmp, sizeof tmp, WEFT_KEEP_TMP "%s", name);
	int fd = openat(K->dirfd, tmp,
			O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
			0644);
	if (fd < 0)
		err = -errno;
	if (!err)
		err = write_all(fd, hz, hzlen);
	if (!err)
		err = write_all(fd, c->cbuf, c->clen);
	if (!err)
		err = write_all(fd, skip, sizeof skip);
	if (!err)
		err = write_all(fd, &ix, sizeof ix);
	if (!err)
		err = write_all(fd, c->fr, c->nfr * sizeof *c->fr);
	if (!err)
		err = write_all(fd, c->pk, c->npk * sizeof *c->pk);
	if (!err && R->ncarry)
		err = write_all(fd, R->carry,
				(size_t)R->ncarry * sizeof *R->carry);
	if (!err && tvlen)
		err = write_all(fd, tv, tvlen);
	if (!err)
		err = write_all(fd, &tail, sizeof tail);
	if (fd >= 0 && close(fd) < 0 && !err)
		err = -errno;
	if (!err && renameat(K->dirfd, tmp, K->dirfd, name) < 0)
		err = -errno;
	free(hz);
	free(tv);
	uint64_t bytes = hzlen + c->clen + sizeof skip + plen;
	if (err) {
		unlinkat(K->dirfd, tmp, 0);
		/* Its packets are lost (readers count them: gaps in their
		 * streams); the keeper goes on, and says it once. */
		K->unwritten_chunks++;
		K->unwritten_packets += c->npk;
		/* Said at the first refusal; a disk that takes a small chunk
		 * between refusals (nearly full) starts a new episode in
		 * keep.log each time, but stderr hears of one a minute at
		 * most: the end's count says how many packets in all. */
		int64_t t = now_ns(CLOCK_MONOTONIC);
		if (!K->nospace_said++ &&
		    (!K->nospace_told || t - K->nospace_told >= 60000000000)) {
			K->nospace_told = t;
			error("%s: cannot write a chunk: %s; its packets are "
			      "lost (counted in %s/" WEFT_KEEP_LOG
			      "); the program is not affected, and keeping "
			      "goes on",
			      K->dir, strerror(-err), K->dir);
		}
		klog(K,
		     "unwritten ring=%s packets=%u gen_min=%" PRIu64
		     " gen_max=%" PRIu64 " error=%s real=%lld",
		     R->name, c->npk, ix.gen_min, ix.gen_max, strerror(-err),
		     (long long)now_ns(CLOCK_REALTIME));
		ch_reset(c);
		return 0;
	}
	if (K->nospace_said) {
		klog(K, "writing again real=%lld",
		     (long long)now_ns(CLOCK_REALTIME));
		K->nospace_said = 0;
	}
	struct kfile f = {.number = K->next_number,
			  .bytes = bytes,
			  .npk = c->npk,
			  .gen_min = ix.gen_min,
			  .gen_max = ix.gen_max};
	snprintf(f.ring, sizeof f.ring, "%s", R->name);
	K->chunks++;
	ch_reset(c);
	if ((err = files_add(K, &f)))
		return err;
	enforce_budget(K);
	return 0;
}

/* ------------------------------------------------------ chunk indexes */

/* Reads the index of the chunk `name` in the directory: *ix, and (if
 * pks) its packets (malloc'ed).  0 or -1 (not a chunk, or damaged). */
static int read_index(int dirfd, const char *name, struct weft__kidx *ix,
		      struct weft__kpk **pks, uint64_t *size)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	struct stat sb;
	struct weft__ktail tail;
	int rc = -1;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) ||
	    (uint64_t)sb.st_size < sizeof tail + sizeof *ix + 8 ||
	    pread_all(fd, &tail, sizeof tail,
		      (uint64_t)sb.st_size - sizeof tail) ||
	    memcmp(tail.magic, WEFT_KEEP_END_MAGIC, 8) ||
	    tail.index_len > (uint64_t)sb.st_size - 8 ||
	    tail.index_len < sizeof *ix + sizeof tail)
		goto out;
	uint64_t at = (uint64_t)sb.st_size - tail.index_len;
	if (pread_all(fd, ix, sizeof *ix, at) ||
	    memcmp(ix->magic, WEFT_KEEP_IDX_MAGIC, 8) ||
	    ix->version < WEFT_KEEP_VERSION_MIN ||
	    ix->version > WEFT_KEEP_VERSION ||
	    (ix->version >= 3 && ix->thr_bytes > tail.index_len) ||
	    sizeof *ix + (uint64_t)ix->nframes * sizeof(struct weft__kframe) +
			    (uint64_t)ix->npackets * sizeof(struct weft__kpk) +
			    (uint64_t)(ix->version >= 2 ? ix->ncarry : 0) *
				    sizeof(struct weft__kcarry) +
			    (ix->version >= 3 ? ix->thr_bytes : 0) +
			    sizeof tail !=
		    tail.index_len)
		goto out;
	if (ix->version < 3)
		ix->nthreads = ix->thr_bytes = 0;
	ix->ring[sizeof ix->ring - 1] = 0;
	*size = (uint64_t)sb.st_size;
	if (pks) {
		size_t n = (size_t)ix->npackets * sizeof **pks;
		*pks = malloc(n ? n : 1);
		if (!*pks ||
		    pread_all(fd, *pks, n,
			      at + sizeof *ix +
				      ix->nframes *
					      sizeof(struct weft__kframe))) {
			free(*pks);
			*pks = NULL;
			goto out;
		}
	}
	rc = 0;
out:
	close(fd);
	return rc;
}

/* "NNNNNNNN.RING.zst": the number and the ring's name, or -1. */
static int chunk_name(const char *nm, uint64_t *number, char *ring)
{
	size_t l = strlen(nm), sl = strlen(WEFT_KEEP_SUFFIX);
	if (l < 10 + sl || strspn(nm, "0123456789") != 8 || nm[8] != '.' ||
	    strcmp(nm + l - sl, WEFT_KEEP_SUFFIX) ||
	    l - 9 - sl >= WEFT_KEEP_NAME)
		return -1;
	*number = strtoull(nm, NULL, 10);
	memcpy(ring, nm + 9, l - 9 - sl);
	ring[l - 9 - sl] = 0;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* What the directory holds of ring R already: the generations of the
 * chunks that may still share packets with the ring now (next_gen at
 * `g`: a chunk whose newest generation is older than the ring's
 * oldest slot can hold none). */
static int load_had(struct keeper *K, struct kring *R, uint64_t g)
{
	uint64_t span = 4ull * R->h.npackets;
	size_t cap = 0;
	for (size_t i = 0; i < K->nfiles; i++) {
		const struct kfile *f = &K->files[i];
		if (strcmp(f->ring, R->name) || f->gen_max + span < g)
			continue;
		char name[WEFT_KEEP_NAME + 32];
		snprintf(name, sizeof name, "%08" PRIu64 ".%s" WEFT_KEEP_SUFFIX,
			 f->number, f->ring);
		struct weft__kidx ix;
		struct weft__kpk *pk = NULL;
		uint64_t size;
		if (read_index(K->dirfd, name, &ix, &pk, &size))
			continue;
		if (memcmp(ix.uuid, R->h.uuid, 16)) {
			free(pk);
			return error("%s: it keeps another trace's ring '%s' "
				     "(another run, or a ring made again): "
				     "keep this one into another directory",
				     K->dir, R->name),
			       -1;
		}
		if (WEFT_GROW(R->had, cap, R->nhad + ix.npackets)) {
			free(pk);
			return -1;
		}
		for (uint32_t k = 0; k < ix.npackets; k++)
			R->had[R->nhad++] = pk[k].gen;
		free(pk);
	}
	if (R->nhad)
		qsort(R->had, R->nhad, sizeof *R->had, cmp_u64);
	return 0;
}

static int had(const struct kring *R, uint64_t g)
{
	return R->nhad &&
	       bsearch(&g, R->had, R->nhad, sizeof g, cmp_u64) != NULL;
}

/* --------------------------------------------------- following a ring */

static int writer_live(int fd)
{
	if (flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK)
		return 1;
	flock(fd, LOCK_UN);
	return 0;
}

static int todo_add(struct kring *R, uint64_t g)
{
	if (weft__grow_to(&R->todo, &R->ctodo, R->ntodo + 1, sizeof *R->todo,
			  256, SIZE_MAX))
		return -ENOMEM;
	R->todo[R->ntodo++] = g;
	return 0;
}

static uint64_t slot_off(const struct kring *R, uint64_t g)
{
	return (uint64_t)R->h.header_size +
	       ((g - 1) % R->h.npackets) * (uint64_t)R->h.packet_size;
}

enum { SETTLED, WAIT };

/* What became of generation g: kept (copied now), gone, or still to
 * wait for.  `final`: the writer is gone, so an open packet is kept as
 * far as it was committed, and a generation never opened is gone. */
static int settle(struct keeper *K, struct kring *R, uint64_t g, uint64_t G,
		  int final, int *err)
{
	uint32_t ps = R->h.packet_size;
	uint64_t off = slot_off(R, g), gen, w[2], trailer;
	if (had(R, g))
		return SETTLED; /* a restarted keeper: kept already */
	if (pread_all(R->fd, &gen, 8, off + WEFT_PK_GEN))
		return SETTLED; /* unreadable: gone */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (gen > g)
		return SETTLED;
	if (gen < g)
		/* not opened yet, or never (its slot was held): a writer
		 * takes a slot within nanoseconds, so two rounds of the ring
		 * later it never will */
		return final || g + 2ull * R->h.npackets < G ? SETTLED : WAIT;
	if (pread_all(R->fd, w, 16, off + WEFT_PK_TS_END))
		return SETTLED;
	if (!w[0] && !final)
		return WAIT; /* open */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (pread_all(R->fd, R->pkt, ps, off))
		return SETTLED;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (pread_all(R->fd, &trailer, 8, off + ps - WEFT_PK_TRAILER))
		return SETTLED;
	if (trailer != g || weft__ld64(R->pkt + WEFT_PK_GEN) != g)
		/* reused while copied: it is gone (or, open, try again) */
		return w[0] || final ? SETTLED : WAIT;
	uint64_t content = w[1] / 8;
	if (weft__ld32(R->pkt + WEFT_PK_MAGIC) != WEFT_CTF_MAGIC ||
	    content < WEFT_PK_EVENTS || content > ps - WEFT_PK_TRAILER)
		return SETTLED; /* not a packet we can vouch for */
	/* what we read first, and nothing past the commit */
	memcpy(R->pkt + WEFT_PK_TS_END, &w[0], 8);
	memcpy(R->pkt + WEFT_PK_CONTENT, &(uint64_t){content * 8}, 8);
	memset(R->pkt + content, 0, ps - WEFT_PK_TRAILER - content);
	*err = add_packet(K, R, g, !w[0]);
	return SETTLED;
}

static uint64_t read_next_gen(const struct kring *R)
{
	uint64_t G = 0;
	if (pread_all(R->fd, &G, 8, offsetof(struct weft__fhdr, next_gen)))
		return 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	/* (a clean stop sets the top bit: no packet opens after it) */
	return G & ~WEFT_GEN_STOPPED;
}

/* One look at the ring: the generations handed out since the last one
 * listed, and every unsettled one tried.  Returns the packets kept, or a
 * negative code. */
static long poll_ring(struct keeper *K, struct kring *R, int final)
{
	uint64_t G = read_next_gen(R);
	/* (a keeper far behind: what is two rounds of the ring old is
	 * overwritten) */
	uint64_t from = R->scanned + 1, span = 2ull * R->h.npackets;
	if (G > span && from < G - span)
		from = G - span;
	for (uint64_t g = from; g <= G; g++)
		if (todo_add(R, g))
			return -ENOMEM;
	if (G > R->scanned)
		R->scanned = G;
	uint64_t before = R->kept;
	size_t w = 0;
	int err = 0;
	for (size_t i = 0; i < R->ntodo; i++) {
		uint64_t g = R->todo[i];
		if (err || settle(K, R, g, G, final, &err) == WAIT)
			R->todo[w++] = g;
	}
	R->ntodo = w;
	if (err)
		return err;
	return (long)(R->kept - before);
}

/* A restarted keeper's threads alive: those at the end of the ring's
 * newest chunk (its carried threads, then its events, read back), so
 * that the chunks it writes carry them too (nothing of it lives only in
 * a keeper's memory). */
static void kt_rebuild(struct keeper *K, struct kring *R)
{
	const struct kfile *f = NULL;
	for (size_t i = 0; i < K->nfiles; i++)
		if (!strcmp(K->files[i].ring, R->name) &&
		    (!f || K->files[i].gen_max > f->gen_max))
			f = &K->files[i];
	if (!f)
		return;
	char path[PATH_MAX + WEFT_KEEP_NAME + 32];
	snprintf(path, sizeof path, "%s/%08" PRIu64 ".%s" WEFT_KEEP_SUFFIX,
		 K->dir, f->number, f->ring);
	struct weft_reader *r;
	struct weft_diag d = {0};
	if (weft_reader_open(&r, path, 0, &d))
		return; /* (deleted meanwhile, or damaged: said by readers) */
	struct weft_event ev;
	while (weft_reader_next(r, &ev) == 0) {
		if (ev.type >= WEFT_EV_COUNT || kt_stream(&R->tr, ev.stream))
			continue; /* (a loss) */
		uint64_t ids[2] = {ev.id, ev.id2};
		uint16_t names[2] = {(uint16_t)ev.name, (uint16_t)ev.name2};
		R->tr.cur[ev.stream] = ev.actor;
		kt_apply(&R->tr, ev.type, ids, names, ev.text,
			 !!(ev.flags & WEFT_EVF_TRUNCATED), ev.actor, ev.stream,
			 ev.ts);
		if (weft__events[ev.type].sets_current)
			R->tr.cur[ev.stream] = ev.id;
	}
	weft_reader_close(r);
}

/* Opens a ring to keep.  Returns it, or NULL (not a ring yet: retried;
 * *fatal set for an error the keeper stops on). */
static struct kring *ring_open(struct keeper *K, const char *path,
			       const char *name, int *fatal)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct weft__fhdr h;
	struct stat sb;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) ||
	    pread_all(fd, &h, sizeof h, 0) ||
	    memcmp(h.magic, WEFT_FILE_MAGIC, 8) ||
	    h.major != WEFT_FORMAT_MAJOR || h.packet_size < WEFT_MIN_PACKET ||
	    h.packet_size > WEFT_MAX_PACKET ||
	    (h.packet_size & (h.packet_size - 1)) || !h.npackets ||
	    h.header_size < sizeof h ||
	    (uint64_t)h.header_size + (uint64_t)h.npackets * h.packet_size >
		    (uint64_t)sb.st_size) {
		close(fd);
		return NULL;
	}
	struct kring *R = calloc(1, sizeof *R);
	if (!R || !(R->pkt = malloc(h.packet_size))) {
		free(R);
		close(fd);
		*fatal = 1;
		return NULL;
	}
	snprintf(R->path, sizeof R->path, "%s", path);
	snprintf(R->name, sizeof R->name, "%s", name);
	R->fd = fd;
	R->h = h;
	/* Every slot, once: what the ring holds now (its past, for a keeper
	 * started late) and not in the directory already (a restart). */
	uint64_t G = read_next_gen(R);
	if (load_had(K, R, G)) {
		*fatal = 1;
		free(R->pkt);
		free(R);
		close(fd);
		return NULL;
	}
	kt_rebuild(K, R);
	/* Every generation of the last round (npackets of them) too: one
	 * handed out whose writer has not yet written it into its slot (a
	 * packet being opened as the keeper starts: a process's first
	 * packets, under weft record --keep) is not in any slot yet, and
	 * must wait for it (settle() says when it is gone). */
	uint64_t from = G > h.npackets ? G - h.npackets + 1 : 1;
	uint64_t *gens = malloc((2 * (size_t)h.npackets) * sizeof *gens);
	size_t n = 0;
	for (uint32_t s = 0; gens && s < h.npackets; s++) {
		uint64_t g = 0;
		uint64_t off =
			(uint64_t)h.header_size + (uint64_t)s * h.packet_size;
		if (!pread_all(fd, &g, 8, off + WEFT_PK_GEN) && g && g < from &&
		    !had(R, g))
			gens[n++] = g;
	}
	for (uint64_t g = from; gens && G && g <= G; g++)
		if (!had(R, g))
			gens[n++] = g;
	if (gens)
		qsort(gens, n, sizeof *gens, cmp_u64);
	for (size_t i = 0; gens && i < n; i++)
		todo_add(R, gens[i]);
	free(gens);
	R->scanned = G;
	return R;
}

static void ring_free(struct kring *R)
{
	if (!R)
		return;
	if (R->fd >= 0)
		close(R->fd);
	free(R->todo);
	free(R->had);
	free(R->pkt);
	free(R->ch.raw);
	free(R->ch.cbuf);
	free(R->ch.fr);
	free(R->ch.pk);
	free(R->ch.thr);
	free(R->tr.t);
	free(R->tr.cur);
	free(R->carry);
	free(R);
}

static int rings_add(struct keeper *K, struct kring *R)
{
	if (WEFT_GROW(K->rings, K->crings, K->nrings + 1))
		return -ENOMEM;
	K->rings[K->nrings++] = R;
	return 0;
}

/* ------------------------------------------------------------- the run */

/* The manifest's new bytes appended to the directory's copy (whole
 * lines); the root process and whether it was reaped. */
static void copy_manifest(struct keeper *K)
{
	int in = open(K->man_src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return;
	char buf[65536];
	for (;;) {
		ssize_t n = pread(in, buf, sizeof buf, (off_t)K->man_copied);
		if (n <= 0)
			break;
		size_t whole = (size_t)n;
		while (whole && buf[whole - 1] != '\n')
			whole--;
		if (!whole)
			break;
		int out = openat(K->dirfd, "manifest",
				 O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
					 O_NOFOLLOW,
				 0644);
		if (out < 0 || write_all(out, buf, whole)) {
			if (out >= 0)
				close(out);
			break;
		}
		close(out);
		/* the root: the first fork line (weft record's command) */
		for (char *p = buf, *e; p < buf + whole; p = e + 1) {
			e = memchr(p, '\n', (size_t)(buf + whole - p));
			*e = 0;
			unsigned pid;
			if (!K->root_pid && !strncmp(p, "fork ", 5) &&
			    sscanf(p, "fork pid=%u", &pid) == 1)
				K->root_pid = pid;
			if (K->root_pid && !strncmp(p, "reaped ", 7) &&
			    sscanf(p, "reaped pid=%u", &pid) == 1 &&
			    pid == K->root_pid)
				K->root_reaped = 1;
		}
		K->man_copied += whole;
	}
	close(in);
}

static int is_ring_name(const char *nm)
{
	return !strncmp(nm, "ring", 4) &&
	       (!nm[4] || (nm[4] == '.' &&
			   strspn(nm + 5, "0123456789.") == strlen(nm + 5)));
}

/* Rings of the run not followed yet. */
static int scan_run(struct keeper *K)
{
	DIR *d = opendir(K->o->src);
	if (!d)
		return 0;
	struct dirent *de;
	int fatal = 0;
	while ((de = readdir(d))) {
		if (!is_ring_name(de->d_name) ||
		    strlen(de->d_name) >= WEFT_KEEP_NAME)
			continue;
		int known = 0;
		for (size_t i = 0; i < K->nrings && !known; i++)
			known = !strcmp(K->rings[i]->name, de->d_name);
		if (known)
			continue;
		char path[PATH_MAX];
		snprintf(path, sizeof path, "%s/%s", K->o->src, de->d_name);
		struct kring *R = ring_open(K, path, de->d_name, &fatal);
		if (fatal)
			break;
		if (R && rings_add(K, R)) {
			ring_free(R);
			fatal = 1;
			break;
		}
	}
	closedir(d);
	return fatal ? -1 : 0;
}

/* Whether the run is over: its command reaped (weft record says so in
 * the manifest), or gone without that. */
static int run_over(struct keeper *K)
{
	if (K->root_reaped)
		return 1;
	if (!K->root_pid)
		return 0;
	return kill((pid_t)K->root_pid, 0) < 0 && errno == ESRCH;
}

/* ----------------------------------------------------------- the keeper */

int keep_dir_target(const char *dir, char *out, size_t cap)
{
	if (strlen(dir) >= cap)
		return -ENAMETOOLONG;
	strcpy(out, dir);
	uid_t me = geteuid();
	for (int hops = 0; hops < 40; hops++) {
		struct stat sb;
		if (lstat(out, &sb) < 0)
			return errno == ENOENT ? 0 : -errno;
		if (!S_ISLNK(sb.st_mode))
			return 0;
		if (sb.st_uid != me)
			return -EPERM;
		char link[PATH_MAX];
		ssize_t n = readlink(out, link, sizeof link - 1);
		if (n < 0)
			return -errno;
		link[n] = 0;
		char *slash = strrchr(out, '/');
		size_t at = link[0] == '/' || !slash
				    ? 0
				    : (size_t)(slash - out) + 1;
		if (at + (size_t)n >= cap)
			return -ENAMETOOLONG;
		memcpy(out + at, link, (size_t)n + 1);
	}
	return -ELOOP;
}

int keep_dir_refused(const char *dir)
{
	char real[PATH_MAX];
	int e = keep_dir_target(dir, real, sizeof real);
	struct stat sb;
	if (e == -EPERM && lstat(dir, &sb) == 0 && sb.st_uid != geteuid())
		return error("'%s' is a symbolic link its caller does not "
			     "own: weft never follows it",
			     dir),
		       2;
	if (e == -EPERM)
		return error("'%s' leads through a symbolic link its caller "
			     "does not own: weft never follows it",
			     dir),
		       2;
	if (e)
		return error("%s: %s", dir, strerror(-e));
	return 0;
}

static int open_dir(struct keeper *K)
{
	const char *dir = K->o->dir;
	/* a link another user planted (in /tmp, say) is never followed,
	 * at any step of its chain: the rule of WEFT_FILE (WEFT_ELINK) */
	char real[PATH_MAX];
	if (keep_dir_target(dir, real, sizeof real))
		return keep_dir_refused(dir);
	if (mkdir(real, 0755) < 0 && errno != EEXIST)
		return error("%s: cannot make it: %s", dir, strerror(errno));
	K->dirfd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (K->dirfd < 0)
		return error("%s: %s", dir, strerror(errno));
	snprintf(K->dir, sizeof K->dir, "%s", dir);
	DIR *d = fdopendir(dup(K->dirfd));
	if (!d)
		return error("%s: %s", dir, strerror(errno));
	struct dirent *de;
	int others = 0, logged = 0;
	K->next_number = 1;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		uint64_t number;
		char ring[WEFT_KEEP_NAME];
		if (!strcmp(nm, ".") || !strcmp(nm, ".."))
			continue;
		if (!strcmp(nm, WEFT_KEEP_LOG)) {
			logged = 1;
			continue;
		}
		if (!strcmp(nm, "manifest"))
			continue;
		if (!strncmp(nm, WEFT_KEEP_TMP, strlen(WEFT_KEEP_TMP))) {
			/* a chunk a killed keeper was writing: its packets
			 * are kept again, if the ring still has them */
			unlinkat(K->dirfd, nm, 0);
			continue;
		}
		if (chunk_name(nm, &number, ring)) {
			others++;
			continue;
		}
		struct weft__kidx ix;
		uint64_t size;
		if (read_index(K->dirfd, nm, &ix, NULL, &size)) {
			warning("%s/%s: not a readable chunk; left as it is",
				dir, nm);
			if (number >= K->next_number)
				K->next_number = number + 1;
			continue;
		}
		struct kfile f = {.number = number,
				  .bytes = size,
				  .npk = ix.npackets,
				  .gen_min = ix.gen_min,
				  .gen_max = ix.gen_max};
		snprintf(f.ring, sizeof f.ring, "%s", ring);
		if (files_add(K, &f)) {
			closedir(d);
			return error("out of memory");
		}
	}
	closedir(d);
	if (others && !logged)
		return error("%s: holds files that are not a kept trace; keep "
			     "into a new or empty directory",
			     dir);
	/* numbers of deleted chunks are not used again */
	FILE *lf = fdopen(openat(K->dirfd, WEFT_KEEP_LOG, O_RDONLY | O_CLOEXEC),
			  "r");
	if (lf) {
		char line[1024];
		while (fgets(line, sizeof line, lf)) {
			unsigned long long n;
			if (sscanf(line, "deleted chunk=%llu", &n) == 1 &&
			    n >= K->next_number)
				K->next_number = n + 1;
		}
		fclose(lf);
	}
	return 0;
}

static int64_t sleep_for(int64_t cur, long got, struct keeper *K, int64_t spent)
{
	uint64_t np = UINT32_MAX;
	for (size_t i = 0; i < K->nrings; i++)
		if (!K->rings[i]->done && K->rings[i]->h.npackets < np)
			np = K->rings[i]->h.npackets;
	double per_ns = got > 0 ? (double)got / (double)(cur + spent) : 0;
	/* The fastest pace seen lately (halved after each 10 s of less): a
	 * burst after a calm comes at it, and must find the keeper looking
	 * before a quarter of the smallest ring is full. */
	int64_t now = now_ns(CLOCK_MONOTONIC);
	if (per_ns >= K->peak) {
		K->peak = per_ns;
		K->peak_at = now;
	} else if (now - K->peak_at > 10000000000ll) {
		K->peak /= 2;
		K->peak_at = now;
	}
	/* nothing new: sleep longer; something: look again before a
	 * quarter of the smallest ring can fill at this pace */
	int64_t t = got > 0 ? (int64_t)((double)np / 4 / per_ns) : cur * 2;
	if (K->peak > 0 && (double)t > (double)np / 4 / K->peak)
		t = (int64_t)((double)np / 4 / K->peak);
	if (t > SLEEP_MAX_NS)
		t = SLEEP_MAX_NS;
	if (t < SLEEP_MIN_NS)
		t = SLEEP_MIN_NS;
	return t;
}

int keep_run(const struct keep_opts *o)
{
	struct keeper K0 = {.o = o, .dirfd = -1}, *K = &K0;
	const char *e = getenv("WEFT_KEEP_TEST_ENOSPC");
	if (e && *e) {
		uint64_t v;
		char sz[64];
		const char *comma = strchr(e, ',');
		snprintf(sz, sizeof sz, "%.*s",
			 (int)(comma ? (size_t)(comma - e) : strlen(e)), e);
		char *end = NULL;
		unsigned long long cnt = 0;
		if (comma) {
			errno = 0;
			cnt = strtoull(comma + 1, &end, 10);
		}
		if ((comma ? (size_t)(comma - e) : strlen(e)) >= sizeof sz ||
		    weft__parse_size(sz, &v) ||
		    (comma && (errno || end == comma + 1 || *end || !cnt)))
			return error("WEFT_KEEP_TEST_ENOSPC: SIZE[,COUNT] (not "
				     "'%s')",
				     e);
		test_enospc = v;
		test_enospc_count = cnt;
	}
	struct stat sb;
	if (stat(o->src, &sb) < 0)
		return error("%s: %s", o->src, strerror(errno));
	K->run = S_ISDIR(sb.st_mode);
	if (K->run) {
		snprintf(K->man_src, sizeof K->man_src, "%s/manifest", o->src);
		if (access(K->man_src, R_OK) < 0)
			return error("%s: not a run directory (no manifest)",
				     o->src);
	}
	int rc = open_dir(K);
	if (rc)
		goto out;
	/* each frame with its checksum: a damaged frame is found (and
	 * left out by readers) rather than read as packets */
	if (!(K->cctx = ZSTD_createCCtx()) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(
		    K->cctx, ZSTD_c_compressionLevel, o->level)) ||
	    ZSTD_isError(
		    ZSTD_CCtx_setParameter(K->cctx, ZSTD_c_checksumFlag, 1))) {
		rc = error("out of memory");
		goto out;
	}
	if (K->run) {
		/* the directory's manifest is a copy of the run's first
		 * bytes: a restart goes on from where it ends */
		struct stat ms;
		if (fstatat(K->dirfd, "manifest", &ms, AT_SYMLINK_NOFOLLOW) ==
		    0)
			K->man_copied = (uint64_t)ms.st_size;
		/* (the root pid, from what was copied already) */
		uint64_t had_man = K->man_copied;
		K->man_copied = 0;
		int mfd = openat(K->dirfd, "manifest", O_RDONLY | O_CLOEXEC);
		char buf[4096];
		ssize_t n = mfd >= 0 ? read(mfd, buf, sizeof buf - 1) : 0;
		if (mfd >= 0)
			close(mfd);
		if (n > 0) {
			buf[n] = 0;
			unsigned pid;
			char *f = strstr(buf, "\nfork pid=");
			if (f && sscanf(f, "\nfork pid=%u", &pid) == 1)
				K->root_pid = pid;
			/* the same run: its first line (weft-run session=...)
			 * is the source's */
			char src[4096];
			int sfd = open(K->man_src, O_RDONLY | O_CLOEXEC);
			ssize_t sn = sfd >= 0 ? read(sfd, src, sizeof src - 1)
					      : 0;
			if (sfd >= 0)
				close(sfd);
			src[sn > 0 ? sn : 0] = 0;
			size_t l = strcspn(buf, "\n");
			if (sn < (ssize_t)l || memcmp(buf, src, l) ||
			    src[l] != '\n') {
				rc = error("%s: it keeps another run than %s: "
					   "keep this one into another "
					   "directory",
					   K->dir, o->src);
				goto out;
			}
		}
		K->man_copied = had_man;
	}
	klog(K, "keep version=1 source=%s pid=%d chunks=%zu real=%lld", o->src,
	     (int)getpid(), K->nfiles, (long long)now_ns(CLOCK_REALTIME));
	int fatal = 0;
	if (!K->run) {
		const char *base = strrchr(o->src, '/');
		base = base ? base + 1 : o->src;
		char name[WEFT_KEEP_NAME];
		snprintf(name, sizeof name, "%s", base);
		/* (a name a chunk's file name can hold: no dot first) */
		if (name[0] == '.')
			name[0] = '_';
		struct kring *R = ring_open(K, o->src, name, &fatal);
		if (!R) {
			rc = fatal ? 1 : error("%s: not a weft ring", o->src);
			goto out;
		}
		if (rings_add(K, R)) {
			ring_free(R);
			rc = error("out of memory");
			goto out;
		}
	}
	int64_t nap = SLEEP_MIN_NS, last_scan = 0;
	int ending = 0;
	for (;;) {
		int64_t t0 = now_ns(CLOCK_MONOTONIC);
		int stop = o->stop && *o->stop;
		/* a new process's ring: its `ring` line grows the manifest,
		 * so a new ring is looked for at once */
		struct stat ms;
		int grew = K->run && stat(K->man_src, &ms) == 0 &&
			   (uint64_t)ms.st_size > K->man_copied;
		if (K->run && (grew || t0 - last_scan >= SCAN_EVERY_NS ||
			       stop || ending)) {
			copy_manifest(K);
			if (scan_run(K)) {
				rc = 1;
				break;
			}
			last_scan = t0;
		}
		long got = 0;
		int live = 0;
		for (size_t i = 0; i < K->nrings; i++) {
			struct kring *R = K->rings[i];
			if (R->done)
				continue;
			/* liveness before the look: a writer seen gone has
			 * committed everything we are about to read */
			int gone = !writer_live(R->fd) || (stop && ending);
			long k = poll_ring(K, R, gone);
			if (k < 0) {
				rc = error("%s", strerror((int)-k));
				goto out;
			}
			got += k;
			struct kchunk *c = &R->ch;
			int64_t now = now_ns(CLOCK_MONOTONIC);
			if (c->npk &&
			    (c->clen + c->rawlen / 4 >= o->chunk_bytes ||
			     now - c->opened >= o->chunk_ns || gone)) {
				int err = close_chunk(K, R);
				if (err) {
					rc = error("%s", strerror(-err));
					goto out;
				}
			}
			if (gone && !R->ntodo)
				R->done = 1;
			else
				live = 1;
			if (gone && R->ntodo)
				R->ntodo = 0, R->done = 1;
		}
		/* Over: a ring's writer gone (a run: its command, too), and
		 * one more look after that (rings that came meanwhile). */
		int over = K->run ? run_over(K) || stop : !live;
		if (over && !live && K->nrings) {
			if (ending)
				break;
			ending = 1;
			continue;
		}
		if (over && K->run && !K->nrings) {
			if (ending)
				break; /* a run that recorded nothing */
			ending = 1;
			continue;
		}
		if (stop && ending)
			break;
		if (stop)
			ending = 1;
		int64_t spent = now_ns(CLOCK_MONOTONIC) - t0;
		nap = sleep_for(nap, got, K, spent);
		struct timespec ts = {nap / 1000000000, nap % 1000000000};
		nanosleep(&ts, NULL);
	}
	if (!rc) {
		klog(K,
		     "end packets=%" PRIu64 " open=%" PRIu64 " chunks=%" PRIu64
		     " deleted=%" PRIu64 " unwritten=%" PRIu64 " real=%lld",
		     K->packets, K->packets_open, K->chunks, K->deleted,
		     K->unwritten_packets, (long long)now_ns(CLOCK_REALTIME));
		/* (kept: in chunks written; the disk's refusals are said
		 * below) */
		if (!o->quiet)
			fprintf(stderr,
				"weft: kept %" PRIu64 " packets of %zu ring%s "
				"in %" PRIu64 " chunk%s into '%s'%s\n",
				K->packets - K->unwritten_packets, K->nrings,
				K->nrings == 1 ? "" : "s", K->chunks,
				K->chunks == 1 ? "" : "s", K->dir,
				K->deleted ? "" : "");
		if (K->deleted && !o->quiet)
			fprintf(stderr,
				"weft: %" PRIu64 " oldest chunk%s (%" PRIu64
				" packets) deleted to stay within --max-disk\n",
				K->deleted, K->deleted == 1 ? "" : "s",
				K->deleted_packets);
		if (K->unwritten_packets) {
			error("%" PRIu64 " packets could not be written (%s)",
			      K->unwritten_packets, K->dir);
			rc = 1;
		}
	}
out:
	for (size_t i = 0; i < K->nrings; i++)
		ring_free(K->rings[i]);
	free(K->rings);
	free(K->files);
	if (K->cctx)
		ZSTD_freeCCtx(K->cctx);
	if (K->dirfd >= 0)
		close(K->dirfd);
	return rc;
}

/* ------------------------------------------------------------- options */

int keep_chunk_arg(void *ctx, const char *v, char *why, size_t cap)
{
	struct keep_opts *o = ctx;
	uint64_t b;
	int64_t ns;
	if (!weft__parse_size(v, &b) && strspn(v, "0123456789") != strlen(v)) {
		if (b < (64u << 10)) {
			snprintf(why, cap, "at least 64K (not '%s')", v);
			return -1;
		}
		o->chunk_bytes = b;
		return 0;
	}
	if (!parse_duration(v, 1e9, 0, &ns) && ns >= 1000000) {
		o->chunk_ns = ns;
		return 0;
	}
	snprintf(why, cap,
		 "a size with its unit (64M) or a duration (30s, 10min; at "
		 "least 1ms), not '%s'",
		 v);
	return -1;
}

int keep_disk_arg(void *ctx, const char *v, char *why, size_t cap)
{
	struct keep_opts *o = ctx;
	uint64_t b;
	if (weft__parse_size(v, &b) || b < (256u << 10)) {
		snprintf(why, cap, "a size of 256K or more (not '%s')", v);
		return -1;
	}
	o->max_disk = b;
	return 0;
}

/* ------------------------------------------------------------ describe */

int keep_is_dir(const char *path)
{
	char p[PATH_MAX];
	struct stat sb;
	if (snprintf(p, sizeof p, "%s/" WEFT_KEEP_LOG, path) >= (int)sizeof p)
		return 0;
	return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode) &&
	       stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

int keep_describe(const char *dir, FILE *out, uint64_t *deleted)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return error("%s: %s", dir, strerror(errno));
	DIR *d = fdopendir(dup(dfd));
	struct dirent *de;
	uint64_t n = 0, disk = 0, raw = 0, pk = 0, bad = 0, nmin = UINT64_MAX,
		 nmax = 0;
	while (d && (de = readdir(d))) {
		uint64_t number, size;
		char ring[WEFT_KEEP_NAME];
		struct weft__kidx ix;
		if (chunk_name(de->d_name, &number, ring))
			continue;
		if (read_index(dfd, de->d_name, &ix, NULL, &size)) {
			bad++;
			continue;
		}
		n++;
		disk += size;
		raw += ix.raw_bytes;
		pk += ix.npackets;
		if (number < nmin)
			nmin = number;
		if (number > nmax)
			nmax = number;
	}
	if (d)
		closedir(d);
	uint64_t del = 0, delpk = 0, delbytes = 0, unw = 0, unwpk = 0,
		 starts = 0;
	FILE *lf =
		fdopen(openat(dfd, WEFT_KEEP_LOG, O_RDONLY | O_CLOEXEC), "r");
	char line[1024];
	while (lf && fgets(line, sizeof line, lf)) {
		unsigned long long c, p, b;
		char r[WEFT_KEEP_NAME + 1];
		if (sscanf(line,
			   "deleted chunk=%llu ring=%64s packets=%llu "
			   "bytes=%llu",
			   &c, r, &p, &b) == 4) {
			del++;
			delpk += p;
			delbytes += b;
		} else if (sscanf(line, "unwritten ring=%64s packets=%llu", r,
				  &p) == 2) {
			unw++;
			unwpk += p;
		} else if (!strncmp(line, "keep ", 5))
			starts++;
	}
	if (lf)
		fclose(lf);
	close(dfd);
	*deleted = delpk;
	fprintf(out, "kept:       %" PRIu64 " chunk%s", n, n == 1 ? "" : "s");
	if (n)
		fprintf(out, " (%08" PRIu64 " to %08" PRIu64 ")", nmin, nmax);
	fprintf(out,
		", %" PRIu64 " packets, %.1f MiB on disk (%.1f MiB of "
		"packets: %.1fx)\n",
		pk, (double)disk / 1048576, (double)raw / 1048576,
		disk ? (double)raw / (double)disk : 0.0);
	fprintf(out,
		"deleted:    %" PRIu64 " chunk%s, %" PRIu64 " packets, %.1f "
		"MiB "
		"(the oldest, to stay within --max-disk)\n",
		del, del == 1 ? "" : "s", delpk, (double)delbytes / 1048576);
	if (unw)
		fprintf(out,
			"unwritten:  %" PRIu64 " chunk%s, %" PRIu64 " packets "
			"(the disk "
			"refused "
			"them)\n",
			unw, unw == 1 ? "" : "s", unwpk);
	fprintf(out, "keepers:    %" PRIu64 " start%s (%s/" WEFT_KEEP_LOG ")\n",
		starts, starts == 1 ? "" : "s", dir);
	if (bad)
		fprintf(out, "damaged:    %" PRIu64 " chunk%s not readable\n",
			bad, bad == 1 ? "" : "s");
	return bad ? 1 : 0;
}

/* ------------------------------------------------- the index by thread */

static int cmp_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

int keep_find_thread(const char *dir, uint64_t id, FILE *out)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		error("%s: %s", dir, strerror(errno));
		return 2;
	}
	struct dirent **de = NULL;
	int n = scandir(dir, &de, NULL, cmp_name);
	if (n < 0) {
		error("%s: %s", dir, strerror(errno));
		close(dfd);
		return 2;
	}
	uint64_t found = 0, unindexed = 0, bad = 0;
	for (int i = 0; i < n; i++) {
		const char *nm = de[i]->d_name;
		uint64_t number, size;
		char ring[WEFT_KEEP_NAME];
		struct weft__kidx ix;
		if (chunk_name(nm, &number, ring))
			continue;
		if (read_index(dfd, nm, &ix, NULL, &size)) {
			bad++;
			continue;
		}
		if (ix.version < 3) {
			/* (written before the index: it may hold it) */
			unindexed++;
			found++;
			fprintf(out, "%s\n", nm);
			continue;
		}
		/* the threads, last in the index: read as they are on
		 * disk, nothing decompressed */
		int hit = 0, fd = -1;
		uint8_t *tv = ix.thr_bytes ? malloc(ix.thr_bytes) : NULL;
		if (ix.thr_bytes &&
		    (!tv ||
		     (fd = openat(dfd, nm, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) <
			     0 ||
		     pread_all(fd, tv, ix.thr_bytes,
			       size - sizeof(struct weft__ktail) -
				       ix.thr_bytes))) {
			bad++;
		} else {
			hit = weft__kthreads_has(tv, ix.thr_bytes, ix.nthreads,
						 id);
		}
		free(tv);
		if (fd >= 0)
			close(fd);
		if (hit) {
			found++;
			fprintf(out, "%s\n", nm);
		}
	}
	for (int i = 0; i < n; i++)
		free(de[i]);
	free(de);
	close(dfd);
	if (unindexed)
		warning("%s: %" PRIu64 " chunk%s written before the index by "
			"async thread (listed: they may hold 0x%" PRIx64 ")",
			dir, unindexed, unindexed == 1 ? "" : "s", id);
	if (bad)
		warning("%s: %" PRIu64 " chunk%s not readable", dir, bad,
			bad == 1 ? "" : "s");
	return found ? 0 : 1;
}

/* -------------------------------------------------------------- follow */

/* What was printed of one OS thread (a process's pid and tid): up to
 * which tick, and how many events at that tick. */
struct fstream {
	uint64_t key;
	uint64_t last_ts, n_at, seen_at;
};

/* The directory's chunks as they are: how many, and the newest number
 * (a new chunk changes one or the other; a deletion alone need not be
 * read again). */
static uint64_t chunks_sig(const char *dir, int *ended)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	uint64_t newest = 0, n = 0;
	while (d && (de = readdir(d))) {
		uint64_t number;
		char ring[WEFT_KEEP_NAME];
		if (!chunk_name(de->d_name, &number, ring)) {
			n++;
			if (number > newest)
				newest = number;
		}
	}
	if (d)
		closedir(d);
	/* the keeper's last word: "end" after its last start */
	char p[PATH_MAX], line[1024];
	snprintf(p, sizeof p, "%s/" WEFT_KEEP_LOG, dir);
	FILE *f = fopen(p, "re");
	*ended = 0;
	while (f && fgets(line, sizeof line, f))
		*ended = !strncmp(line, "end ", 4)    ? 1
			 : !strncmp(line, "keep ", 5) ? 0
						      : *ended;
	if (f)
		fclose(f);
	return newest << 20 ^ n;
}

int keep_follow(const char *dir,
		void (*print)(struct weft_reader *r,
			      const struct weft_event *ev, void *arg),
		void *arg)
{
	struct fstream *st = NULL;
	size_t nst = 0, cst = 0;
	int64_t made_max = INT64_MIN;
	uint64_t sig = UINT64_MAX;
	int ended = 0, rc = 0;
	for (;;) {
		int was_ended = ended;
		uint64_t now = chunks_sig(dir, &ended);
		if (now == sig) {
			if (was_ended && ended)
				break; /* read once more after the end */
			fflush(stdout);
			usleep(200000);
			continue;
		}
		sig = now;
		struct weft_reader *r;
		struct weft_diag dg = {0};
		int err = weft_reader_open(&r, dir, 0, &dg);
		if (err == WEFT_EEMPTY) {
			sig = UINT64_MAX - 1; /* (no chunk yet: look again) */
			if (ended)
				break;
			usleep(200000);
			continue;
		}
		if (err) {
			rc = error("%s: %s", dir,
				   dg.msg[0] ? dg.msg : weft_strerror(err));
			break;
		}
		for (size_t i = 0; i < nst; i++)
			st[i].seen_at = 0;
		int64_t made_now = made_max;
		struct weft_event ev;
		uint32_t np;
		while (weft_reader_next(r, &ev) == 0) {
			if (ev.flags & WEFT_EVF_MADE) {
				if (ev.ns > made_max) {
					print(r, &ev, arg);
					if (ev.ns > made_now)
						made_now = ev.ns;
				}
				continue;
			}
			const struct weft_process *pr =
				weft_reader_processes(r, &np);
			uint32_t p = weft_reader_stream_process(r, ev.stream);
			const struct weft_trace_info *in = weft_reader_info(r);
			uint64_t key = (uint64_t)(p < np ? pr[p].pid : 0)
					       << 32 |
				       (ev.stream < in->nstreams
						? in->streams[ev.stream].tid
						: 0);
			size_t i = 0;
			while (i < nst && st[i].key != key)
				i++;
			if (i == nst) {
				if (WEFT_GROW(st, cst, nst + 1)) {
					weft_reader_close(r);
					free(st);
					return error("out of memory");
				}
				memset(&st[nst], 0, sizeof *st);
				st[nst++].key = key;
			}
			struct fstream *s = &st[i];
			if (s->n_at &&
			    (ev.ts < s->last_ts ||
			     (ev.ts == s->last_ts && s->seen_at++ < s->n_at)))
				continue; /* printed before */
			print(r, &ev, arg);
			if (!s->n_at || ev.ts > s->last_ts) {
				s->last_ts = ev.ts;
				s->n_at = 0;
				s->seen_at = 0;
			}
			s->n_at++;
			s->seen_at++;
		}
		made_max = made_now;
		weft_reader_close(r);
		if (fflush(stdout) != 0) {
			rc = error("cannot write the dump");
			break;
		}
	}
	free(st);
	return rc;
}
