/* SPDX-License-Identifier: MIT */
/*
 * index.c - the index beside a trace (include/weft/index.h,
 * docs/huge.md "The index"): built in one pass from a lean model, written
 * atomically, checked against the trace before it is trusted.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/mman.h>
#include <sys/stat.h>

#include "weft/index.h"
#include "weft/read.h"

#define MAGIC "WEFTIDX\n"

/* The file: this header, then the body (all little-endian as the
 * machine writes it; docs/huge.md lists the sections). */
struct ihead {
	char magic[8];
	uint32_t version, head_size;
	uint8_t uuid[16];
	uint64_t trace_size, trace_packets;
	uint32_t trace_writer, nstreams;
	uint64_t events;
	int64_t t0, t1;
	int64_t k0;	/* level 0's first bucket number */
	uint32_t shift; /* level 0's width is 1 << shift ns */
	uint32_t nleaf; /* level 0's buckets */
	uint32_t nlevels, nseries;
	uint64_t nthreads;
	uint32_t nstrings, pad;
	uint64_t string_bytes;
	uint64_t trace_stamp; /* the trace's modification times (stamp()) */
	uint64_t body_size;
	uint64_t body_sum; /* FNV-1a 64 of the body's words (fnv_words) */
	uint64_t head_sum; /* FNV-1a 64 of the header before this field */
};

/* (docs/huge.md gives the sizes: a change is a new version) */
_Static_assert(sizeof(struct ihead) == 160, "the header's size");
_Static_assert(sizeof(struct weft_index_bucket) == 40, "a bucket's size");
_Static_assert(sizeof(struct weft_index_thread) == 48, "a thread's size");

struct weft_index {
	unsigned char *buf; /* the whole file */
	size_t size;
	size_t mapped; /* buf's length when buf_alloc()'s, else 0 (malloc) */
	struct ihead h;
	const struct weft_index_stream *st;
	const struct weft_index_series *ser;
	const struct weft_index_bucket *bk; /* per stream, levels in turn */
	const struct weft_index_range *rg;  /* per series, levels in turn */
	const struct weft_index_thread *th;
	const int64_t *running; /* per thread: the sum of its runs */
	const uint64_t *soff;
	const char *sblob;
	uint64_t per_level_total; /* buckets over all levels */
	uint32_t lvl_off[64], lvl_n[64];
};

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ull;
	}
	return h;
}
#define FNV0 0xcbf29ce484222325ull

/* The body's checksum: FNV-1a's step over 8-byte words (the bytes left
 * over one by one), eight times faster than over bytes, so that opening
 * an index of 10^8 events (430 MB) costs a tenth of a second, not half
 * a second.  Any one byte changed changes it (each step is a bijection
 * of the sum). */
static uint64_t fnv_words(const void *p, size_t n, uint64_t h)
{
	const unsigned char *c = p;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, c + i, 8);
		h ^= w;
		h *= 0x100000001b3ull;
	}
	return fnv(c + i, n - i, h);
}

static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b < 0 ? INT64_MIN : INT64_MAX;
	return r;
}

static uint32_t u32_add(uint32_t a, uint32_t b)
{
	return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

/* floor(t / 2^sh) */
static int64_t key_of(int64_t t, uint32_t sh)
{
	return t >= 0 ? t >> sh : -((-(t + 1)) >> sh) - 1;
}

/* Level j's buckets, from level 0's first bucket and count. */
static void level_span(int64_t k0, uint32_t nleaf, uint32_t j, int64_t *first,
		       uint32_t *n)
{
	*first = key_of(k0, j);
	*n = (uint32_t)(key_of(k0 + nleaf - 1, j) - *first + 1);
}

static uint32_t level_n(int64_t k0, uint32_t nleaf, uint32_t j)
{
	int64_t f;
	uint32_t n;
	level_span(k0, nleaf, j, &f, &n);
	return n;
}

/* Level j is the pyramid's top: one bucket, or two that meet at the
 * origin (a trace with times before it: a run whose first process began
 * before the one it is timed from), which no level above would merge. */
static int is_top(int64_t k0, uint32_t nleaf, uint32_t j)
{
	int64_t f;
	uint32_t n;
	level_span(k0, nleaf, j, &f, &n);
	return n == 1 || (n == 2 && f == -1);
}

static void merge_bucket(struct weft_index_bucket *a,
			 const struct weft_index_bucket *b)
{
	a->running_ns = sat_add(a->running_ns, b->running_ns);
	a->waiting_ns = sat_add(a->waiting_ns, b->waiting_ns);
	a->idle_ns = sat_add(a->idle_ns, b->idle_ns);
	a->threads = u32_add(a->threads, b->threads);
	a->arrows = u32_add(a->arrows, b->arrows);
	a->marks = u32_add(a->marks, b->marks);
}

static void merge_range(struct weft_index_range *a,
			const struct weft_index_range *b)
{
	if (!b->samples)
		return;
	if (!a->samples || b->min < a->min)
		a->min = b->min;
	if (!a->samples || b->max > a->max)
		a->max = b->max;
	a->samples += b->samples;
}

/* ---- building ---------------------------------------------------- */

struct bseries {
	uint32_t name, process;
	struct weft_index_range *b;
};

struct builder {
	struct weft_model *m;
	uint32_t leaves; /* level 0's most buckets */
	int have;
	uint32_t shift, nb;
	int64_t k0;
	uint32_t nst;
	struct weft_index_bucket **st;
	uint32_t nser, cser, last;
	struct bseries *ser;
	int64_t *running; /* per async thread: the sum of its runs */
	size_t nrunning;
	int oom;
	/* level 0's times, [lo_t, end_t) (covered()), for ensure()'s
	 * fast path */
	int64_t lo_t, end_t;
};

static struct weft_index_bucket *__attribute__((noinline))
stream_new(struct builder *b, uint32_t s)
{
	if (s >= b->nst) {
		if (s > 1u << 24) {
			b->oom = 1;
			return NULL;
		}
		struct weft_index_bucket **n =
			realloc(b->st, ((size_t)s + 1) * sizeof *n);
		if (!n) {
			b->oom = 1;
			return NULL;
		}
		for (uint32_t i = b->nst; i <= s; i++)
			n[i] = NULL;
		b->st = n;
		b->nst = s + 1;
	}
	if (!b->st[s]) {
		b->st[s] = calloc(b->leaves, sizeof *b->st[s]);
		if (!b->st[s])
			b->oom = 1;
	}
	return b->st[s];
}

/* OS thread s's level 0, made at its first use (NULL: out of memory). */
static inline struct weft_index_bucket *stream_of(struct builder *b, uint32_t s)
{
	return s < b->nst && b->st[s] ? b->st[s] : stream_new(b, s);
}

/* Level 0 doubles its width: pairs of buckets become one. */
static void coarsen(struct builder *b)
{
	int64_t k0 = key_of(b->k0, 1);
	uint32_t nb = (uint32_t)(key_of(b->k0 + b->nb - 1, 1) - k0 + 1);
	for (uint32_t s = 0; s < b->nst; s++) {
		struct weft_index_bucket *a = b->st[s];
		if (!a)
			continue;
		for (uint32_t i = 0; i < b->nb; i++) {
			struct weft_index_bucket x = a[i];
			uint32_t j = (uint32_t)(key_of(b->k0 + i, 1) - k0);
			if (i == 0 ||
			    j != (uint32_t)(key_of(b->k0 + i - 1, 1) - k0))
				a[j] = x;
			else
				merge_bucket(&a[j], &x);
		}
		memset(a + nb, 0, (b->nb - nb) * sizeof *a);
	}
	for (uint32_t s = 0; s < b->nser; s++) {
		struct weft_index_range *a = b->ser[s].b;
		for (uint32_t i = 0; i < b->nb; i++) {
			struct weft_index_range x = a[i];
			uint32_t j = (uint32_t)(key_of(b->k0 + i, 1) - k0);
			if (i == 0 ||
			    j != (uint32_t)(key_of(b->k0 + i - 1, 1) - k0))
				a[j] = x;
			else
				merge_range(&a[j], &x);
		}
		memset(a + nb, 0, (b->nb - nb) * sizeof *a);
	}
	b->k0 = k0;
	b->nb = nb;
	b->shift++;
}

/* Level 0's times as it is now, [lo_t, end_t) (none where they do not
 * fit in an int64: then ensure() always takes its long way, correct and
 * slower). */
static void covered(struct builder *b)
{
	int64_t w, lo, end;
	b->lo_t = b->end_t = 0;
	if (!b->have || b->shift > 61)
		return;
	w = (int64_t)1 << b->shift;
	if (__builtin_mul_overflow(b->k0, w, &lo) ||
	    __builtin_mul_overflow(b->k0 + b->nb, w, &end))
		return;
	b->lo_t = lo;
	b->end_t = end;
}

/* ensure()'s long way: level 0 grows or coarsens. */
static void __attribute__((noinline))
ensure_slow(struct builder *b, int64_t t0, int64_t t1)
{
	if (t1 < t0)
		t1 = t0;
	if (!b->have) {
		b->have = 1;
		b->k0 = key_of(t0, b->shift);
		b->nb = 1;
	}
	int64_t lo, hi;
	for (;;) {
		lo = key_of(t0, b->shift);
		hi = key_of(t1, b->shift);
		if (lo > b->k0)
			lo = b->k0;
		if (hi < b->k0 + b->nb - 1)
			hi = b->k0 + b->nb - 1;
		if (hi - lo + 1 <= b->leaves)
			break;
		coarsen(b);
	}
	if (lo < b->k0) {
		size_t d = (size_t)(b->k0 - lo);
		for (uint32_t s = 0; s < b->nst; s++)
			if (b->st[s]) {
				memmove(b->st[s] + d, b->st[s],
					b->nb * sizeof *b->st[s]);
				memset(b->st[s], 0, d * sizeof *b->st[s]);
			}
		for (uint32_t s = 0; s < b->nser; s++) {
			memmove(b->ser[s].b + d, b->ser[s].b,
				b->nb * sizeof *b->ser[s].b);
			memset(b->ser[s].b, 0, d * sizeof *b->ser[s].b);
		}
		b->k0 = lo;
		b->nb += (uint32_t)d;
	}
	if (hi > b->k0 + b->nb - 1)
		b->nb = (uint32_t)(hi - b->k0 + 1);
	covered(b);
}

/* Level 0 covers [t0, t1] (t1 >= t0), coarsening as needed. */
static inline void ensure(struct builder *b, int64_t t0, int64_t t1)
{
	/* (most times fall in level 0 as it is: nothing to do; a new
	 * builder's [0, 0) holds none) */
	if (t0 >= b->lo_t && t0 < b->end_t && t1 < b->end_t)
		return;
	ensure_slow(b, t0, t1);
}

/* The level-0 bucket holding t (after ensure). */
static uint32_t slot(const struct builder *b, int64_t t)
{
	return (uint32_t)(key_of(t, b->shift) - b->k0);
}

enum { F_RUN, F_IDLE };

/* Adds [t0, t1) to a field of OS thread s's buckets, split at their
 * bounds (runs and idle periods of one OS thread are disjoint: their
 * bucket pieces sum to at most the buckets plus the intervals). */
static void add_span(struct builder *b, uint32_t s, int which, int64_t t0,
		     int64_t t1)
{
	struct weft_index_bucket *a = stream_of(b, s);
	if (!a || t1 <= t0)
		return;
	ensure(b, t0, t1 - 1);
	int64_t w = (int64_t)1 << b->shift;
	for (uint32_t i = slot(b, t0), e = slot(b, t1 - 1); i <= e; i++) {
		int64_t lo = (b->k0 + i) * w, hi = lo + w;
		int64_t d = (t1 < hi ? t1 : hi) - (t0 > lo ? t0 : lo);
		int64_t *f = which == F_RUN ? &a[i].running_ns : &a[i].idle_ns;
		*f = sat_add(*f, d);
	}
}

static void on_run(void *ctx, const struct weft_run *r, int64_t phase_t0)
{
	(void)phase_t0;
	struct builder *b = ctx;
	add_span(ctx, r->stream, F_RUN, r->t0, r->t1);
	/* the thread's running time, as the model sums its runs */
	if (r->thread == WEFT_NONE)
		return;
	if (r->thread >= b->nrunning) {
		size_t n = b->nrunning ? b->nrunning : 1024;
		while (n <= r->thread)
			n *= 2;
		int64_t *x = realloc(b->running, n * sizeof *x);
		if (!x) {
			b->oom = 1;
			return;
		}
		memset(x + b->nrunning, 0, (n - b->nrunning) * sizeof *x);
		b->running = x;
		b->nrunning = n;
	}
	b->running[r->thread] = sat_add(b->running[r->thread], r->t1 - r->t0);
}

static void on_idle(void *ctx, uint32_t stream, int64_t t0, int64_t t1)
{
	add_span(ctx, stream, F_IDLE, t0, t1);
}

static void on_arrow(void *ctx, const struct weft_arrow *x)
{
	struct builder *b = ctx;
	struct weft_index_bucket *a = stream_of(b, x->stream);
	if (!a)
		return;
	ensure(b, x->t, x->t);
	a[slot(b, x->t)].arrows = u32_add(a[slot(b, x->t)].arrows, 1);
}

static void on_mark(void *ctx, uint32_t stream, int64_t t, uint32_t kind)
{
	(void)kind;
	struct builder *b = ctx;
	struct weft_index_bucket *a = stream_of(b, stream);
	if (!a)
		return;
	ensure(b, t, t);
	a[slot(b, t)].marks = u32_add(a[slot(b, t)].marks, 1);
}

static void on_sample(void *ctx, uint32_t name, uint32_t process, int64_t t,
		      int64_t v)
{
	struct builder *b = ctx;
	uint32_t k = b->last;
	if (k >= b->nser || b->ser[k].name != name ||
	    b->ser[k].process != process) {
		for (k = 0; k < b->nser; k++)
			if (b->ser[k].name == name &&
			    b->ser[k].process == process)
				break;
	}
	if (k == b->nser) {
		if (b->nser == b->cser) {
			uint32_t c = b->cser ? b->cser * 2 : 8;
			struct bseries *n = realloc(b->ser, c * sizeof *n);
			if (!n) {
				b->oom = 1;
				return;
			}
			b->ser = n;
			b->cser = c;
		}
		struct weft_index_range *r = calloc(b->leaves, sizeof *r);
		if (!r) {
			b->oom = 1;
			return;
		}
		b->ser[k] = (struct bseries){name, process, r};
		b->nser++;
	}
	b->last = k;
	ensure(b, t, t);
	struct weft_index_range one = {v, v, 1};
	merge_range(&b->ser[k].b[slot(b, t)], &one);
}

/* Interned texts of the index.  Each slot of the hash holds its text's
 * hash beside its number, so that a probe compares texts only when
 * their hashes agree, and a growth re-places slots without reading a
 * text (the texts, spread over megabytes, were most of what interning
 * cost: a cache miss a probe). */
struct strtab {
	uint32_t n, cap, hcap;
	uint64_t *hash; /* the hash's 32 bits << 32 | index + 1; 0 empty */
	uint64_t *off;
	char *blob;
	uint64_t used, bcap;
};

/* A text's hash for the table (never written: any hash serves): FNV-1a
 * over 8-byte words, then mixed so that its low bits, which pick the
 * slot, depend on every byte (FNV's product carries a word's bits up
 * only). */
static uint32_t text_hash(const char *s, size_t len)
{
	uint64_t h = fnv_words(s, len, FNV0) ^ len;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (uint32_t)h;
}

static uint32_t intern(struct strtab *t, const char *s, int *oom)
{
	size_t len = strlen(s);
	if (t->n + 1 >= t->hcap / 2) {
		uint32_t hc = t->hcap ? t->hcap * 2 : 1024;
		uint64_t *h = calloc(hc, sizeof *h);
		if (!h || hc < t->hcap) {
			free(h);
			*oom = 1;
			return WEFT_NONE;
		}
		for (uint32_t i = 0; i < t->hcap; i++) {
			if (!t->hash[i])
				continue;
			uint32_t k = (uint32_t)(t->hash[i] >> 32) & (hc - 1);
			while (h[k])
				k = (k + 1) & (hc - 1);
			h[k] = t->hash[i];
		}
		free(t->hash);
		t->hash = h;
		t->hcap = hc;
	}
	uint32_t hv = text_hash(s, len);
	uint32_t k = hv & (t->hcap - 1);
	while (t->hash[k]) {
		uint32_t x = (uint32_t)t->hash[k] - 1;
		if ((uint32_t)(t->hash[k] >> 32) == hv &&
		    t->off[x + 1] - t->off[x] == len + 1 &&
		    !memcmp(t->blob + t->off[x], s, len))
			return x;
		k = (k + 1) & (t->hcap - 1);
	}
	if (t->n + 2 > t->cap) {
		uint32_t c = t->cap ? t->cap * 2 : 1024;
		uint64_t *o = realloc(t->off, c * sizeof *o);
		if (!o) {
			*oom = 1;
			return WEFT_NONE;
		}
		t->off = o;
		t->cap = c;
	}
	if (t->used + len + 1 > t->bcap) {
		uint64_t c = t->bcap ? t->bcap : 4096;
		while (c < t->used + len + 1)
			c *= 2;
		char *nb = realloc(t->blob, c);
		if (!nb) {
			*oom = 1;
			return WEFT_NONE;
		}
		t->blob = nb;
		t->bcap = c;
	}
	t->off[t->n] = t->used;
	memcpy(t->blob + t->used, s, len + 1);
	t->used += len + 1;
	t->off[t->n + 1] = t->used;
	t->hash[k] = (uint64_t)hv << 32 | (t->n + 1);
	return t->n++;
}

/* A map of uint32 ids (not WEFT_NONE) to ids: open addressing. */
struct idmap {
	uint32_t n, cap; /* cap a power of two */
	uint64_t *slot;	 /* key + 1 in the high half, value in the low; 0
			    empty */
};

static uint32_t idmap_hash(uint32_t k, uint32_t cap)
{
	return (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

static uint32_t idmap_get(const struct idmap *m, uint32_t k)
{
	if (!m->cap || k == WEFT_NONE)
		return WEFT_NONE;
	for (uint32_t i = idmap_hash(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->slot[i])
			return WEFT_NONE;
		if ((uint32_t)(m->slot[i] >> 32) == k + 1)
			return (uint32_t)m->slot[i];
	}
}

static int idmap_put(struct idmap *m, uint32_t k, uint32_t v)
{
	if (k == WEFT_NONE)
		return 1; /* (not kept: looked up each time) */
	if (2 * (m->n + 1) > m->cap) {
		uint32_t c = m->cap ? m->cap * 2 : 256;
		uint64_t *n = calloc(c, sizeof *n);
		if (!n || c < m->cap) {
			free(n);
			return 0;
		}
		for (uint32_t i = 0; i < m->cap; i++) {
			if (!m->slot[i])
				continue;
			uint32_t j =
				idmap_hash((uint32_t)(m->slot[i] >> 32) - 1, c);
			while (n[j])
				j = (j + 1) & (c - 1);
			n[j] = m->slot[i];
		}
		free(m->slot);
		m->slot = n;
		m->cap = c;
	}
	uint32_t i = idmap_hash(k, m->cap);
	while (m->slot[i])
		i = (i + 1) & (m->cap - 1);
	m->slot[i] = ((uint64_t)(k + 1) << 32) | v;
	m->n++;
	return 1;
}

static void free_builder(struct builder *b)
{
	for (uint32_t s = 0; s < b->nst; s++)
		free(b->st[s]);
	free(b->st);
	for (uint32_t s = 0; s < b->nser; s++)
		free(b->ser[s].b);
	free(b->ser);
	free(b->running);
}

/* The sizes of the body's sections. */
static int layout(const struct ihead *h, uint64_t *sz, uint64_t *levels_total)
{
	uint64_t lt = 0;
	for (uint32_t j = 0; j < h->nlevels; j++) {
		int64_t f;
		uint32_t n;
		level_span(h->k0, h->nleaf, j, &f, &n);
		lt += n;
	}
	*levels_total = lt;
	uint64_t s = 0, x;
	if (__builtin_mul_overflow((uint64_t)h->nstreams,
				   sizeof(struct weft_index_stream), &x) ||
	    __builtin_add_overflow(s, x, &s))
		return 0;
	if (__builtin_mul_overflow((uint64_t)h->nseries,
				   sizeof(struct weft_index_series), &x) ||
	    __builtin_add_overflow(s, x, &s))
		return 0;
	if (__builtin_mul_overflow((uint64_t)h->nstreams, lt, &x) ||
	    __builtin_mul_overflow(x, sizeof(struct weft_index_bucket), &x) ||
	    __builtin_add_overflow(s, x, &s))
		return 0;
	if (__builtin_mul_overflow((uint64_t)h->nseries, lt, &x) ||
	    __builtin_mul_overflow(x, sizeof(struct weft_index_range), &x) ||
	    __builtin_add_overflow(s, x, &s))
		return 0;
	if (__builtin_mul_overflow(h->nthreads,
				   sizeof(struct weft_index_thread), &x) ||
	    __builtin_add_overflow(s, x, &s))
		return 0;
	if (__builtin_mul_overflow(h->nthreads, sizeof(int64_t), &x) ||
	    __builtin_add_overflow(s, x, &s))
		return 0;
	if (__builtin_mul_overflow((uint64_t)h->nstrings + 1, 8, &x) ||
	    __builtin_add_overflow(s, x, &s) ||
	    __builtin_add_overflow(s, h->string_bytes, &s))
		return 0;
	*sz = s;
	return 1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The trace's identity, as its reader sees it once open. */
/* When the trace last changed, as a number: of a file, its modification
 * time; of a directory (a run, a kept directory), its entries' names,
 * sizes and modification times, in any order (a sum of their hashes).
 * A ring in overwrite mode that went round keeps its uuid, size and
 * packet count while its content changes: this tells it. */
static uint64_t stamp(const char *trace)
{
	struct stat sb;
	if (stat(trace, &sb))
		return 0;
	uint64_t t[3] = {(uint64_t)sb.st_size, (uint64_t)sb.st_mtim.tv_sec,
			 (uint64_t)sb.st_mtim.tv_nsec};
	uint64_t h = fnv(t, sizeof t, FNV0);
	if (!S_ISDIR(sb.st_mode))
		return h;
	DIR *d = opendir(trace);
	struct dirent *e;
	char sub[4096];
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' &&
		    (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		struct stat eb;
		if ((size_t)snprintf(sub, sizeof sub, "%s/%s", trace,
				     e->d_name) >= sizeof sub ||
		    lstat(sub, &eb))
			continue;
		uint64_t x[3] = {(uint64_t)eb.st_size,
				 (uint64_t)eb.st_mtim.tv_sec,
				 (uint64_t)eb.st_mtim.tv_nsec};
		h += fnv(x, sizeof x, fnv(e->d_name, strlen(e->d_name), FNV0));
	}
	if (d)
		closedir(d);
	return h;
}

static void identity(struct weft_reader *r, const char *trace, struct ihead *h)
{
	const struct weft_trace_info *in = weft_reader_info(r);
	h->trace_stamp = stamp(trace);
	memcpy(h->uuid, in->uuid, 16);
	h->trace_size = in->file_size;
	h->trace_packets = in->packets_used;
	h->trace_writer = (uint32_t)in->writer;
}

/* The memo of texts' ids in the index (by the model's) */
#define TEXT_MEMO_BITS 12
#define TEXT_MEMO (1u << TEXT_MEMO_BITS)

/* Reads `trace` once and lays its index out in memory (*out, *size:
 * header and body). */
static int build_mem(const char *trace, unsigned char **out, size_t *size,
		     uint64_t *events)
{
	*out = NULL;
	struct weft_reader *r;
	int rc = weft_reader_open(&r, trace, 0, NULL);
	if (rc)
		return rc;
	struct ihead h;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, MAGIC, 8);
	h.version = WEFT_INDEX_VERSION;
	h.head_size = sizeof h;
	identity(r, trace, &h);
	struct builder b;
	memset(&b, 0, sizeof b);
	struct weft_model *m = NULL;
	struct strtab st;
	memset(&st, 0, sizeof st);
	unsigned char *buf = NULL;
	int oom = 0;
	if ((rc = weft_model_new(&m, r)))
		goto out;
	b.m = m;
	/* many OS threads, fewer buckets each: 2^20 over all, at least 64
	 * (the memory and the file grow with OS threads times buckets) */
	b.leaves = WEFT_INDEX_LEAVES;
	uint32_t hint = weft_reader_info(r)->nstreams;
	while (b.leaves > 64 && (uint64_t)hint * b.leaves > (1u << 20))
		b.leaves /= 2;
	struct weft_model_sink sink = {.ctx = &b,
				       .run = on_run,
				       .sample = on_sample,
				       .idle = on_idle,
				       .arrow = on_arrow,
				       .mark = on_mark};
	if ((rc = weft_model_set_sink(m, &sink)))
		goto out;
	long n = weft_model_step(m, 0);
	if (n < 0) {
		rc = (int)n;
		goto out;
	}
	uint32_t nth, nms, nctr;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_model_stream *ms = weft_model_streams(m, &nms);
	weft_model_counters(m, &nctr);
	for (uint32_t s = 0; s < nms; s++) /* (every one has buckets) */
		stream_of(&b, s);
	int64_t t0 = 0, t1 = 0;
	weft_model_range(m, &t0, &t1);
	if (nth || b.have)
		ensure(&b, t0, t1);
	for (uint32_t i = 0; i < nth; i++)
		if (!(th[i].flags & WEFT_THREAD_ROOT))
			ensure(&b, th[i].t_create, th[i].t_end);
	/* what waited: each async thread alive from its creation to its end,
	 * on its OS thread; whole buckets through a difference array per OS
	 * thread, in one pass over the threads */
	size_t row = (size_t)b.nb + 1;
	int64_t *diff = calloc(nms ? nms * row : 1, sizeof *diff);
	if (!diff || b.oom) {
		free(diff);
		rc = -ENOMEM;
		goto out;
	}
	int64_t w = (int64_t)1 << b.shift;
	for (uint32_t i = 0; i < nth; i++) {
		const struct weft_thread *x = &th[i];
		if (x->stream >= nms || (x->flags & WEFT_THREAD_ROOT))
			continue;
		struct weft_index_bucket *a = b.st[x->stream];
		int64_t *d = diff + x->stream * row;
		uint32_t k = slot(&b, x->t_create);
		a[k].threads = u32_add(a[k].threads, 1);
		if (x->t_end <= x->t_create)
			continue;
		uint32_t ka = k, kb = slot(&b, x->t_end - 1);
		if (ka == kb) {
			a[ka].waiting_ns = sat_add(a[ka].waiting_ns,
						   x->t_end - x->t_create);
			continue;
		}
		a[ka].waiting_ns = sat_add(a[ka].waiting_ns,
					   (b.k0 + ka + 1) * w - x->t_create);
		a[kb].waiting_ns =
			sat_add(a[kb].waiting_ns, x->t_end - (b.k0 + kb) * w);
		d[ka + 1]++;
		d[kb]--;
	}
	for (uint32_t s = 0; s < nms; s++) {
		struct weft_index_bucket *a = b.st[s];
		const int64_t *d = diff + s * row;
		int64_t c = 0;
		for (uint32_t i = 0; i < b.nb; i++) {
			c += d[i];
			int64_t x;
			if (__builtin_mul_overflow(c, w, &x))
				x = INT64_MAX;
			a[i].waiting_ns = sat_add(a[i].waiting_ns, x);
		}
	}
	free(diff);
	if (b.oom) {
		rc = -ENOMEM;
		goto out;
	}
	/* the header's counts, then the body in its sections' order */
	h.events = weft_reader_info(r)->events;
	h.t0 = t0;
	h.t1 = t1;
	h.k0 = b.k0;
	h.shift = b.shift;
	h.nleaf = b.have ? b.nb : 0;
	h.nlevels = 0;
	if (h.nleaf)
		while (!is_top(h.k0, h.nleaf, h.nlevels++))
			;
	h.nstreams = nms;
	h.nseries = b.nser;
	h.nthreads = nth;
	/* texts: "" first (id 0) */
	intern(&st, "", &oom);
	uint32_t *sname = calloc((size_t)nms + 1, sizeof *sname);
	uint32_t *sern = calloc((size_t)b.nser + 1, sizeof *sern);
	uint32_t *tkind = calloc((size_t)nth + 1, sizeof *tkind);
	uint32_t *tlab = calloc((size_t)nth + 1, sizeof *tlab);
	if (!sname || !sern || !tkind || !tlab) {
		oom = 1;
	} else {
		for (uint32_t s = 0; s < nms && !oom; s++) {
			char nm[18];
			memcpy(nm, ms[s].name, 17);
			nm[17] = 0;
			sname[s] = intern(&st, nm, &oom);
		}
		for (uint32_t s = 0; s < b.nser && !oom; s++)
			sern[s] = intern(&st, weft_model_name(m, b.ser[s].name),
					 &oom);
		uint32_t nlab;
		const struct weft_label *lab = weft_model_labels(m, &nlab);
		/* each kind once: the model's ids, remembered; a text, by
		 * the model's id, in a small memo (the texts' hashing was an
		 * eighth of the build): a label by name has one id wherever
		 * it is used, but a label's own text (most of them) a new
		 * id each time, which a map of every id only grew with */
		struct idmap km = {0};
		struct {
			uint32_t text, x;
		} tm[TEXT_MEMO];
		for (uint32_t i = 0; i < TEXT_MEMO; i++)
			tm[i].text = tm[i].x = WEFT_NONE;
		for (uint32_t i = 0; i < nth && !oom; i++) {
			uint32_t x = idmap_get(&km, th[i].kind);
			if (x == WEFT_NONE) {
				x = intern(&st, weft_model_name(m, th[i].kind),
					   &oom);
				oom |= !idmap_put(&km, th[i].kind, x);
			}
			tkind[i] = x;
			tlab[i] = WEFT_NONE;
			if (th[i].label >= nlab)
				continue;
			uint32_t text = lab[th[i].label].text;
			uint32_t k = (text * 0x9e3779b1u) >>
				     (32 - TEXT_MEMO_BITS);
			if (tm[k].x == WEFT_NONE || tm[k].text != text) {
				tm[k].text = text;
				tm[k].x = intern(
					&st, weft_model_string(m, text), &oom);
			}
			tlab[i] = tm[k].x;
		}
		free(km.slot);
	}
	h.nstrings = st.n;
	h.string_bytes = st.used;
	uint64_t body, lt;
	if (oom || !layout(&h, &body, &lt) || body > SIZE_MAX - sizeof h) {
		rc = -ENOMEM;
		goto out2;
	}
	h.body_size = body;
	buf = calloc(1, sizeof h + body);
	if (!buf) {
		rc = -ENOMEM;
		goto out2;
	}
	unsigned char *p = buf + sizeof h;
	for (uint32_t s = 0; s < nms; s++) {
		struct weft_index_stream x = {ms[s].tid,     sname[s],
					      ms[s].busy_ns, ms[s].idle_ns,
					      ms[s].process, 0};
		memcpy(p, &x, sizeof x);
		p += sizeof x;
	}
	for (uint32_t s = 0; s < b.nser; s++) {
		struct weft_index_series x = {sern[s], b.ser[s].process};
		memcpy(p, &x, sizeof x);
		p += sizeof x;
	}
	/* each stream's levels: level 0, then each the pairs of the one
	 * before */
	for (uint32_t s = 0; s < nms; s++) {
		struct weft_index_bucket *q = (void *)p, *prev = NULL;
		int64_t pf = 0;
		for (uint32_t j = 0; j < h.nlevels; j++) {
			int64_t f;
			uint32_t nl;
			level_span(h.k0, h.nleaf, j, &f, &nl);
			if (!j)
				memcpy(q, b.st[s], nl * sizeof *q);
			else
				for (int64_t k = pf;
				     k < pf + level_n(h.k0, h.nleaf, j - 1);
				     k++)
					merge_bucket(&q[key_of(k, 1) - f],
						     &prev[k - pf]);
			prev = q;
			pf = f;
			q += nl;
		}
		p = (unsigned char *)q;
	}
	for (uint32_t s = 0; s < b.nser; s++) {
		struct weft_index_range *q = (void *)p, *prev = NULL;
		int64_t pf = 0;
		for (uint32_t j = 0; j < h.nlevels; j++) {
			int64_t f;
			uint32_t nl;
			level_span(h.k0, h.nleaf, j, &f, &nl);
			if (!j)
				memcpy(q, b.ser[s].b, nl * sizeof *q);
			else
				for (int64_t k = pf;
				     k < pf + level_n(h.k0, h.nleaf, j - 1);
				     k++)
					merge_range(&q[key_of(k, 1) - f],
						    &prev[k - pf]);
			prev = q;
			pf = f;
			q += nl;
		}
		p = (unsigned char *)q;
	}
	for (uint32_t i = 0; i < nth; i++) {
		struct weft_index_thread x;
		memset(&x, 0, sizeof x);
		x.id = th[i].id;
		x.t_create = th[i].t_create;
		x.t_end = th[i].t_end;
		x.parent = th[i].parent < nth ? th[i].parent : WEFT_NONE;
		x.stream = th[i].stream;
		x.kind = tkind[i];
		x.label = tlab[i];
		x.end = th[i].end;
		x.flags = th[i].flags;
		memcpy(p, &x, sizeof x);
		p += sizeof x;
	}
	for (uint32_t i = 0; i < nth; i++) {
		int64_t x = i < b.nrunning ? b.running[i] : 0;
		memcpy(p, &x, sizeof x);
		p += sizeof x;
	}
	if (st.n)
		memcpy(p, st.off, st.n * sizeof *st.off);
	p += (size_t)st.n * 8;
	memcpy(p, &st.used, 8);
	p += 8;
	if (st.used)
		memcpy(p, st.blob, st.used);
	h.body_sum = fnv_words(buf + sizeof h, body, FNV0);
	h.head_sum = fnv(&h, offsetof(struct ihead, head_sum), FNV0);
	memcpy(buf, &h, sizeof h);
	*out = buf;
	*size = sizeof h + body;
	*events = h.events;
	buf = NULL;
	rc = 0;
out2:
	free(sname);
	free(sern);
	free(tkind);
	free(tlab);
out:
	free(buf);
	free(st.hash);
	free(st.off);
	free(st.blob);
	free_builder(&b);
	weft_model_free(m);
	weft_reader_close(r);
	return rc;
}

/* ---- where it lives ---------------------------------------------- */

int weft_index_path(const char *trace, struct weft_reader *r, int in_cache,
		    char *buf, size_t cap)
{
	int n;
	if (!in_cache) {
		/* (a directory given as "run/" is indexed as "run") */
		size_t l = strlen(trace);
		while (l > 1 && trace[l - 1] == '/')
			l--;
		n = snprintf(buf, cap, "%.*s.weftidx", (int)l, trace);
	} else {
		if (!r)
			return -EINVAL;
		const struct weft_trace_info *in = weft_reader_info(r);
		const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOM"
									 "E");
		/* (the XDG rule: a relative path is ignored) */
		if (x && x[0] == '/')
			n = snprintf(buf, cap, "%s/weft/%s-%llu-%llu.weftidx",
				     x, in->uuid_str,
				     (unsigned long long)in->file_size,
				     (unsigned long long)in->packets_used);
		else if (home && home[0] == '/')
			n = snprintf(buf, cap,
				     "%s/.cache/weft/%s-%llu-%llu.weftidx",
				     home, in->uuid_str,
				     (unsigned long long)in->file_size,
				     (unsigned long long)in->packets_used);
		else
			return -ENOENT;
	}
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* mkdir -p of the directory part of `path`, 0700 (the cache's). */
static int make_dirs(const char *path)
{
	char d[4096];
	size_t l = strlen(path);
	if (l >= sizeof d)
		return -ENAMETOOLONG;
	memcpy(d, path, l + 1);
	char *slash = strrchr(d, '/');
	if (!slash || slash == d)
		return 0;
	*slash = 0;
	for (char *c = d + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = 0;
		if (mkdir(d, 0700) && errno != EEXIST)
			return -errno;
		*c = '/';
	}
	if (mkdir(d, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Whether something is at `path` that is not a weft index (a file of
 * the user's, a symbolic link, a directory): 1, else 0 (nothing there,
 * or an index, current or not). */
static int not_an_index(const char *path)
{
	struct stat sb;
	if (lstat(path, &sb))
		return errno != ENOENT;
	if (!S_ISREG(sb.st_mode))
		return 1;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 1;
	char m[8];
	ssize_t k = pread(fd, m, sizeof m, 0);
	close(fd);
	return k != (ssize_t)sizeof m || memcmp(m, MAGIC, 8);
}

/* Writes buf to `path` through a new file renamed over it: only over
 * nothing or an index (-EEXIST: something else is there, which weft
 * never replaces). */
static int write_atomic(const char *path, const unsigned char *buf, size_t n,
			mode_t mode)
{
	if (not_an_index(path))
		return -EEXIST;
	char tmp[4200];
	if ((size_t)snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= sizeof tmp)
		return -ENAMETOOLONG;
	int fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	int rc = 0;
	for (size_t o = 0; o < n && !rc;) {
		ssize_t w = write(fd, buf + o, n - o);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			rc = w < 0 ? -errno : -EIO;
		else
			o += (size_t)w;
	}
	if (!rc && fchmod(fd, mode))
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}

/* Builds and writes the index of `trace`; with `keep`, hands back the
 * bytes written (*keep, *keep_n: the caller frees them), so that the one
 * just built is opened without reading the file back. */
static int build_write(const char *trace, struct weft_index_built *out,
		       unsigned char **keep, size_t *keep_n)
{
	double t = now_s();
	unsigned char *buf;
	size_t n;
	uint64_t events;
	int rc = build_mem(trace, &buf, &n, &events);
	if (rc)
		return rc;
	char path[4096];
	int in_cache = 0;
	/* readable by whom may read the trace, no more: it holds its
	 * labels */
	struct stat sb;
	mode_t mode = stat(trace, &sb) ? 0600 : sb.st_mode & 0666;
	rc = weft_index_path(trace, NULL, 0, path, sizeof path);
	if (!rc)
		rc = write_atomic(path, buf, n, mode);
	if (rc == -EACCES || rc == -EPERM || rc == -EROFS || rc == -EEXIST) {
		/* the trace's directory is not ours to write, or its index's
		 * place holds what is not an index: the cache */
		struct weft_reader *r;
		in_cache = rc == -EEXIST ? 2 : 1;
		rc = weft_reader_open(&r, trace, 0, NULL);
		if (!rc) {
			rc = weft_index_path(trace, r, 1, path, sizeof path);
			weft_reader_close(r);
		}
		if (!rc)
			rc = make_dirs(path);
		if (!rc)
			rc = write_atomic(path, buf, n, mode);
	}
	if (!rc && keep) {
		*keep = buf;
		*keep_n = n;
		buf = NULL;
	}
	free(buf);
	if (!rc && out) {
		out->events = events;
		out->bytes = n;
		out->seconds = now_s() - t;
		out->in_cache = in_cache;
		snprintf(out->path, sizeof out->path, "%s", path);
	}
	return rc;
}

int weft_index_build(const char *trace, struct weft_index_built *out)
{
	return build_write(trace, out, NULL, NULL);
}

/* ---- reading and checking ---------------------------------------- */

static int say(char *why, size_t cap, const char *what)
{
	if (why && cap)
		snprintf(why, cap, "%s", what);
	return WEFT_ESTALE;
}

/* Memory for a whole index file read in: anonymous pages populated by
 * the kernel in one call (MAP_POPULATE), not faulted in one by one as
 * the read writes them (on a 484 MB index that was 0.6-1.0 s of system
 * time, 0.26 s populated).  Never a mapping of the file itself: a file
 * truncated under a mapping kills its reader with SIGBUS. */
static unsigned char *buf_alloc(size_t sz)
{
	void *b = mmap(NULL, sz ? sz : 1, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	return b == MAP_FAILED ? NULL : b;
}

/* Reads the file at `path` whole (never through a symbolic link) into
 * buf_alloc()'s memory. */
static int slurp(const char *path, unsigned char **out, size_t *n, size_t *cap)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat sb;
	if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
	    (uint64_t)sb.st_size > SIZE_MAX / 2) {
		close(fd);
		return -EINVAL;
	}
	size_t sz = (size_t)sb.st_size;
	unsigned char *b = buf_alloc(sz);
	if (!b) {
		close(fd);
		return -ENOMEM;
	}
	size_t got = 0;
	while (got < sz) {
		ssize_t r = read(fd, b + got, sz - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	*out = b;
	*cap = sz ? sz : 1;
	*n = got; /* (a file that shrank meanwhile: its checks fail) */
	return 0;
}

/* Checks an index file's bytes against themselves and the trace's
 * identity `id`; fills ix's pointers.  0 or WEFT_ESTALE with why. */
static int verify(struct weft_index *ix, const struct ihead *id, int live_ok,
		  char *why, size_t cap)
{
	struct ihead h;
	if (ix->size < sizeof h)
		return say(why, cap, "truncated (shorter than its header)");
	memcpy(&h, ix->buf, sizeof h);
	if (memcmp(h.magic, MAGIC, 8))
		return say(why, cap, "not a weft index");
	if (h.version != WEFT_INDEX_VERSION || h.head_size != sizeof h)
		return say(why, cap, "written by another version of weft");
	if (h.head_sum != fnv(&h, offsetof(struct ihead, head_sum), FNV0))
		return say(why, cap, "damaged (its header's checksum)");
	if (h.body_size != ix->size - sizeof h)
		return say(why, cap, "truncated or extended (its size)");
	if (h.body_sum != fnv_words(ix->buf + sizeof h, h.body_size, FNV0))
		return say(why, cap, "damaged (its checksum)");
	if (memcmp(h.uuid, id->uuid, 16))
		return say(why, cap, "another trace's (its uuid)");
	if (h.trace_size != id->trace_size)
		return say(why, cap, "the trace changed (its size)");
	if (h.trace_packets != id->trace_packets)
		return say(why, cap, "the trace changed (its packets)");
	if (h.trace_stamp != id->trace_stamp)
		return say(why, cap,
			   "the trace changed (its modification time)");
	if (!live_ok && (h.trace_writer == WEFT_WRITER_LIVE ||
			 id->trace_writer == WEFT_WRITER_LIVE))
		return say(why, cap, "the trace is live (still written)");
	/* the structure, so that what the API hands out is in bounds */
	uint64_t body, lt;
	if (h.shift > 61 || h.nleaf > WEFT_INDEX_LEAVES ||
	    (h.nleaf && (h.k0 < -(INT64_C(1) << 61) >> h.shift ||
			 h.k0 > (INT64_C(1) << 61) >> h.shift)) ||
	    h.nlevels > 64 || (h.nleaf != 0) != (h.nlevels != 0) ||
	    (h.nlevels && !is_top(h.k0, h.nleaf, h.nlevels - 1)) ||
	    (h.nlevels > 1 && is_top(h.k0, h.nleaf, h.nlevels - 2)) ||
	    !layout(&h, &body, &lt) || body != h.body_size)
		return say(why, cap, "damaged (its layout)");
	const unsigned char *p = ix->buf + sizeof h;
	ix->st = (const void *)p;
	p += (size_t)h.nstreams * sizeof *ix->st;
	ix->ser = (const void *)p;
	p += (size_t)h.nseries * sizeof *ix->ser;
	ix->bk = (const void *)p;
	p += (size_t)(h.nstreams * lt) * sizeof *ix->bk;
	ix->rg = (const void *)p;
	p += (size_t)(h.nseries * lt) * sizeof *ix->rg;
	ix->th = (const void *)p;
	p += (size_t)h.nthreads * sizeof *ix->th;
	ix->running = (const void *)p;
	p += (size_t)h.nthreads * sizeof *ix->running;
	ix->soff = (const void *)p;
	p += ((size_t)h.nstrings + 1) * 8;
	ix->sblob = (const char *)p;
	if (ix->soff[h.nstrings] != h.string_bytes)
		return say(why, cap, "damaged (its texts)");
	for (uint32_t i = 0; i < h.nstrings; i++)
		if (ix->soff[i] >= ix->soff[i + 1] ||
		    ix->soff[i + 1] > h.string_bytes ||
		    ix->sblob[ix->soff[i + 1] - 1])
			return say(why, cap, "damaged (its texts)");
	for (uint32_t i = 0; i < h.nstreams; i++)
		if (ix->st[i].name >= h.nstrings)
			return say(why, cap, "damaged (its OS threads)");
	for (uint32_t i = 0; i < h.nseries; i++)
		if (ix->ser[i].name >= h.nstrings)
			return say(why, cap, "damaged (its counters)");
	for (uint64_t i = 0; i < h.nthreads; i++) {
		const struct weft_index_thread *x = &ix->th[i];
		if ((x->parent != WEFT_NONE && x->parent >= h.nthreads) ||
		    (x->stream >= h.nstreams) || x->kind >= h.nstrings ||
		    (x->label != WEFT_NONE && x->label >= h.nstrings))
			return say(why, cap, "damaged (its async threads)");
	}
	ix->h = h;
	ix->per_level_total = lt;
	uint32_t o = 0;
	for (uint32_t j = 0; j < h.nlevels; j++) {
		ix->lvl_off[j] = o;
		ix->lvl_n[j] = level_n(h.k0, h.nleaf, j);
		o += ix->lvl_n[j];
	}
	return 0;
}

/* Opens the index file at `path` if it passes every check. */
static int try_open(struct weft_index **out, const char *path,
		    const struct ihead *id, char *why, size_t cap)
{
	struct weft_index *ix = calloc(1, sizeof *ix);
	if (!ix)
		return -ENOMEM;
	int rc = slurp(path, &ix->buf, &ix->size, &ix->mapped);
	if (rc == -ENOENT) {
		free(ix);
		return -ENOENT;
	}
	if (rc == -ENOMEM) {
		free(ix);
		return rc;
	}
	if (rc == -EINVAL)
		rc = say(why, cap, "not a regular file");
	else if (rc) {
		char w[120];
		snprintf(w, sizeof w, "cannot be read (%s)", strerror(-rc));
		rc = say(why, cap, w);
	} else
		rc = verify(ix, id, 0, why, cap);
	if (rc) {
		weft_index_close(ix);
		return rc;
	}
	*out = ix;
	return 0;
}

/* The trace's identity and its two places. */
static int places(const char *trace, struct ihead *id, char beside[4096],
		  char cache[4096])
{
	struct weft_reader *r;
	int rc = weft_reader_open(&r, trace, 0, NULL);
	if (rc)
		return rc;
	memset(id, 0, sizeof *id);
	identity(r, trace, id);
	rc = weft_index_path(trace, r, 0, beside, 4096);
	if (weft_index_path(trace, r, 1, cache, 4096))
		cache[0] = 0;
	weft_reader_close(r);
	return rc;
}

/* The first index of the two places that passes; WEFT_ESTALE with the
 * first reason one failed, or -ENOENT when there is none. */
static int find(struct weft_index **out, const char *trace, char *path,
		char *why, size_t cap)
{
	struct ihead id;
	char beside[4096], cache[4096];
	int rc = places(trace, &id, beside, cache);
	if (rc)
		return rc;
	char w1[160] = "", w2[160] = "";
	rc = try_open(out, beside, &id, w1, sizeof w1);
	if (!rc && path)
		snprintf(path, 4096, "%s", beside);
	if (rc == -ENOENT || rc == WEFT_ESTALE) {
		int r2 = cache[0] ? try_open(out, cache, &id, w2, sizeof w2)
				  : -ENOENT;
		if (!r2 && path)
			snprintf(path, 4096, "%s", cache);
		if (r2 == -ENOMEM || !r2)
			return r2;
		/* (the one that failed: beside the trace first) */
		if (rc == WEFT_ESTALE && path)
			snprintf(path, 4096, "%s", beside);
		if (rc == WEFT_ESTALE)
			return say(why, cap, w1);
		if (r2 == WEFT_ESTALE && path)
			snprintf(path, 4096, "%s", cache);
		if (r2 == WEFT_ESTALE)
			return say(why, cap, w2);
		say(why, cap, "none, beside the trace or in the cache");
		return -ENOENT;
	}
	return rc;
}

int weft_index_open(struct weft_index **out, const char *trace, unsigned flags,
		    struct weft_index_built *built, char *why, size_t cap)
{
	*out = NULL;
	if (built)
		built->path[0] = 0;
	say(why, cap, "");
	int rc = find(out, trace, NULL, why, cap);
	if (rc != -ENOENT && rc != WEFT_ESTALE)
		return rc;
	if (!(flags & WEFT_INDEX_BUILD))
		return WEFT_ESTALE;
	struct weft_index_built b;
	struct weft_index *ix = calloc(1, sizeof *ix);
	if (!ix)
		return -ENOMEM;
	if ((rc = build_write(trace, &b, &ix->buf, &ix->size))) {
		free(ix);
		return rc;
	}
	if (built)
		*built = b;
	/* the one just written, for the trace as it was read (a live
	 * writer's too: it is used once, as built, never found again): its
	 * bytes as written, kept, not read back (the file is those bytes;
	 * reading 50 MB back was a twentieth of a first query), checked as
	 * any index is */
	struct ihead id;
	memcpy(&id, ix->buf, sizeof id);
	rc = verify(ix, &id, 1, why, cap);
	if (rc)
		weft_index_close(ix);
	else
		*out = ix;
	return rc;
}

int weft_index_check(const char *trace, char *path, char *why, size_t cap)
{
	struct weft_index *ix = NULL;
	char p[4096] = "";
	say(why, cap, "");
	int rc = find(&ix, trace, p, why, cap);
	if (path)
		snprintf(path, 4096, "%s", p);
	if (rc == -ENOENT)
		return WEFT_ESTALE;
	if (rc)
		return rc;
	unsigned char *buf;
	size_t n;
	uint64_t events;
	rc = build_mem(trace, &buf, &n, &events);
	if (!rc) {
		if (n != ix->size || memcmp(buf, ix->buf, n))
			rc = say(why, cap,
				 "differs from what the trace gives now");
		free(buf);
	}
	weft_index_close(ix);
	return rc;
}

void weft_index_close(struct weft_index *ix)
{
	if (!ix)
		return;
	if (ix->buf && ix->mapped)
		munmap(ix->buf, ix->mapped);
	else
		free(ix->buf);
	free(ix);
}

/* ---- queries ----------------------------------------------------- */

void weft_index_range(const struct weft_index *ix, int64_t *t0, int64_t *t1)
{
	*t0 = ix->h.t0;
	*t1 = ix->h.t1;
}

uint64_t weft_index_events(const struct weft_index *ix)
{
	return ix->h.events;
}

uint32_t weft_index_levels(const struct weft_index *ix)
{
	return ix->h.nlevels;
}

int64_t weft_index_bucket_ns(const struct weft_index *ix, uint32_t level)
{
	return level < ix->h.nlevels ? (int64_t)1 << (ix->h.shift + level) : 0;
}

/* Which of a level's buckets meet [t0, t1): *i0 and the count. */
static uint32_t span(const struct weft_index *ix, uint32_t level, int64_t t0,
		     int64_t t1, uint32_t *i0, int64_t *first_t0)
{
	if (level >= ix->h.nlevels || t1 < t0)
		return 0;
	uint32_t sh = ix->h.shift + level;
	int64_t f = key_of(ix->h.k0, level), n = ix->lvl_n[level];
	int64_t a = key_of(t0, sh), b = t1 > t0 ? key_of(t1 - 1, sh) : a;
	if (a < f)
		a = f;
	if (b > f + n - 1)
		b = f + n - 1;
	if (a > b)
		return 0;
	*i0 = (uint32_t)(a - f);
	*first_t0 = a * ((int64_t)1 << sh);
	return (uint32_t)(b - a + 1);
}

uint32_t weft_index_query(const struct weft_index *ix, uint32_t stream,
			  uint32_t level, int64_t t0, int64_t t1,
			  const struct weft_index_bucket **out,
			  int64_t *first_t0)
{
	*out = NULL;
	uint32_t i0 = 0;
	if (stream >= ix->h.nstreams)
		return 0;
	uint32_t n = span(ix, level, t0, t1, &i0, first_t0);
	if (n)
		*out = ix->bk + stream * ix->per_level_total +
		       ix->lvl_off[level] + i0;
	return n;
}

uint32_t weft_index_counter_query(const struct weft_index *ix, uint32_t series,
				  uint32_t level, int64_t t0, int64_t t1,
				  const struct weft_index_range **out,
				  int64_t *first_t0)
{
	*out = NULL;
	uint32_t i0 = 0;
	if (series >= ix->h.nseries)
		return 0;
	uint32_t n = span(ix, level, t0, t1, &i0, first_t0);
	if (n)
		*out = ix->rg + series * ix->per_level_total +
		       ix->lvl_off[level] + i0;
	return n;
}

const struct weft_index_stream *weft_index_streams(const struct weft_index *ix,
						   uint32_t *n)
{
	*n = ix->h.nstreams;
	return ix->st;
}

const struct weft_index_series *weft_index_series(const struct weft_index *ix,
						  uint32_t *n)
{
	*n = ix->h.nseries;
	return ix->ser;
}

const struct weft_index_thread *weft_index_threads(const struct weft_index *ix,
						   uint32_t *n)
{
	*n = (uint32_t)ix->h.nthreads;
	return ix->th;
}

const int64_t *weft_index_thread_running(const struct weft_index *ix,
					 uint32_t *n)
{
	*n = (uint32_t)ix->h.nthreads;
	return ix->running;
}

const char *weft_index_string(const struct weft_index *ix, uint32_t s)
{
	return s < ix->h.nstrings ? ix->sblob + ix->soff[s] : "";
}
