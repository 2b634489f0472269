/* SPDX-License-Identifier: MIT */
/*
 * record.c - libweft's recorder: the ring file, per-OS-thread streams,
 * the event encoders, interning, fork and start-up from the environment.
 *
 * Hot path (per event, after the first event of an OS thread): one
 * relaxed load of weft__on (in the caller), a thread-local pointer, a
 * re-entrancy flag, the clock read, a bounds check, the stores of the
 * event, and a release store of the packet's content_size, which commits
 * it.  No lock, no allocation, no system call; a new packet (every few
 * hundred events) costs one atomic add and one compare-and-swap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WEFT_ENABLE 1
#include "weft/events.h"
#include "weft/weft.h"

#include "../common/settings.h"
#include "record.h"

/* ------------------------------------------------------------------ state */

WEFT_API unsigned weft__on; /* generation while tracing, 0 when stopped */

/* Per OS thread, the names it used last, by address: kinds, reasons,
 * counters and the labels an integration interns (a few per handle).
 * Two-way set associative. */
#define NAME_CACHE 64

struct thr {
	unsigned gen;  /* generation this state belongs to */
	unsigned busy; /* inside an event: a re-entrant call is dropped */
	uint8_t *pk;   /* current packet, or NULL */
	uint8_t *pos;  /* next event */
	uint8_t *end;  /* packet end, trailer excluded */
	uint64_t last; /* timestamp of the last event (or packet begin) */
	int burst; /* 0: none; 1: begun (weft_burst_begin), its first event
		      is still to come; 2: events reuse `last` */
	uint64_t cur;  /* current async thread */
	uint64_t seq;  /* next packet_seq_num */
	uint64_t dropped; /* events dropped by this thread, outside signals */
	uint64_t nested;  /* events dropped by re-entry (signal handlers) */
	uint32_t pkidx;
	uint32_t stream;
	struct weft__fstream *fs;
	struct {
		const char *p;
		uint32_t id;
	} nc[NAME_CACHE]; /* name cache: address -> id */
};

struct nslot {
	const char *key; /* (atomic) */
	uint32_t id;     /* (atomic) 0 while being interned */
};

static struct {
	struct weft__fhdr *hdr;
	uint8_t *base;
	size_t size;
	uint8_t *packets;
	uint32_t psize, npk;
	uint8_t *owner;     /* per packet, 1 while a stream writes it */
	struct thr *thrs;   /* per stream slot */
	struct nslot *nhash; /* address -> name id, 2 * names_cap slots */
	uint32_t nhash_cap;
	size_t priv_size;
	void *priv;
	int fd;
	unsigned gen;
	unsigned flags;
	uint32_t text_cap;
	int state;    /* (atomic) RING_* */
	int from_env; /* tracing comes from WEFT_FILE */
	char env_path[4096];
	size_t env_size;
	unsigned env_flags;
	int env_root;         /* WEFT_ROOT_PID */
	uint64_t env_session; /* WEFT_SESSION */
} g = {.fd = -1};

/* g.state: is there a ring?  Started from the environment, a process
 * makes its ring when it records its first event: a child that never
 * records (a shell, `sleep`) costs no file and no time. */
enum {
	RING_NONE,     /* not tracing */
	RING_PENDING,  /* tracing from the environment, no event yet */
	RING_CREATING, /* an OS thread is making the ring */
	RING_READY,    /* g's ring fields are valid */
};
/* Set on the OS thread making the ring: a signal handler that
 * interrupts it and records finds the ring half made, and drops its
 * events (counted in early_nested, then in the stream's losses). */
static __thread int creating;
static __thread uint64_t early_nested;

static __thread struct thr *tls __attribute__((tls_model("initial-exec")));
static pthread_key_t thr_key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned gen_counter;

/* ------------------------------------------------------- fault injection */

#ifdef WEFT_TEST_HOOKS
/* Test builds only (the static library weft-test): when a hook is set to
 * N > 0, the Nth next call of that system call in start-up fails with
 * weft__fault_errno, and the hook drops to 0 (so a test sees it fired).
 * Only start-up reads them, so they cost nothing while recording. */
WEFT_API int weft__fault_tmpfile, weft__fault_open, weft__fault_ftruncate,
	weft__fault_fallocate, weft__fault_mmap, weft__fault_link,
	weft__fault_rename, weft__fault_errno = ENOSPC;
static int fault(int *n)
{
	if (*n > 0 && --*n == 0) {
		errno = weft__fault_errno;
		return 1;
	}
	return 0;
}
#define FAULT(name) fault(&weft__fault_##name)
#else
#define FAULT(name) 0
#endif

/* ------------------------------------------------------------- helpers */

static inline void st64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}
static inline void st32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}
static inline void st16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2);
}
static inline uint64_t *pk64(uint8_t *pk, unsigned off)
{
	return (uint64_t *)(void *)(pk + off);
}

static void refresh_anchor(void)
{
	struct weft__fhdr *h = g.hdr;
	uint64_t s = __atomic_load_n(&h->a1_seq, __ATOMIC_RELAXED);
	/* A try-lock: whoever makes the sequence odd writes; others skip
	 * (another writer is refreshing it right now anyway). */
	if ((s & 1) || !__atomic_compare_exchange_n(&h->a1_seq, &s, s + 1, 0,
						    __ATOMIC_ACQUIRE,
						    __ATOMIC_RELAXED))
		return;
	/* Pairs with the reader's acquire fence before its second load of
	 * a1_seq: the odd value is visible before the data changes. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	struct weft__anchor a;
	weft__anchor_take(&a);
	h->a1 = a;
	/* Pairs with the reader's acquire load of a1_seq. */
	__atomic_store_n(&h->a1_seq, s + 2, __ATOMIC_RELEASE);
}

static void close_packet(struct thr *t)
{
	uint8_t *pk = t->pk;
	if (!pk)
		return;
	__atomic_store_n(pk64(pk, WEFT_PK_DISCARDED), t->dropped + t->nested,
			 __ATOMIC_RELAXED);
	/* Pairs with the reader's acquire load of timestamp_end, which it
	 * reads before content_size: a packet seen closed is complete. */
	__atomic_store_n(pk64(pk, WEFT_PK_TS_END), t->last, __ATOMIC_RELEASE);
	/* Pairs with the CAS in open_packet(): our last writes to the packet
	 * happen before another stream takes the slot. */
	__atomic_store_n(&g.owner[t->pkidx], 0, __ATOMIC_RELEASE);
	t->pk = t->pos = t->end = NULL;
}

/* Takes a free packet slot; returns its index, or -1 if none (discard
 * mode full, or every packet is held by a stream). */
static int64_t take_slot(uint64_t *gen_out)
{
	struct weft__fhdr *h = g.hdr;
	for (uint32_t tries = 0; tries < g.npk; tries++) {
		uint64_t n = __atomic_fetch_add(&h->next_gen, 1,
						__ATOMIC_RELAXED);
		if ((g.flags & WEFT_DISCARD) && n >= g.npk) {
			/* Undo is not needed: next_gen only grows and
			 * readers use it as "packets ever opened", capped. */
			return -1;
		}
		uint32_t slot = (uint32_t)(n % g.npk);
		uint8_t expect = 0;
		/* Pairs with the release store in close_packet(). */
		if (__atomic_compare_exchange_n(&g.owner[slot], &expect, 1, 0,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			*gen_out = n + 1;
			return slot;
		}
	}
	return -1;
}

static void count_drop(struct thr *t)
{
	t->dropped++;
	__atomic_store_n(&t->fs->dropped_full, t->fs->dropped_full + 1,
			 __ATOMIC_RELAXED);
	if (t->pk)
		__atomic_store_n(pk64(t->pk, WEFT_PK_DISCARDED),
				 t->dropped + t->nested, __ATOMIC_RELAXED);
}

/* Opens a new packet for `t` starting at time `now`.  Returns the first
 * event position, or NULL (event dropped and counted). */
static uint8_t *open_packet(struct thr *t, uint64_t now)
{
	uint64_t gen;
	int64_t slot = take_slot(&gen);
	if (slot < 0) {
		count_drop(t);
		return NULL;
	}
	close_packet(t);
	uint8_t *pk = g.packets + (size_t)slot * g.psize;
	uint64_t *trailer = pk64(pk, g.psize - WEFT_PK_TRAILER);

	/* Invalidate the trailer before any other byte changes, so that a
	 * reader copying the old contents sees gen != trailer.  The release
	 * fence orders it before the writes below (reader: acquire fence
	 * before reading the trailer). */
	__atomic_store_n(trailer, 0, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	st32(pk + WEFT_PK_MAGIC, WEFT_CTF_MAGIC);
	memcpy(pk + WEFT_PK_UUID, g.hdr->uuid, 16);
	st32(pk + WEFT_PK_VERSION, WEFT_FORMAT_MAJOR << 16 | WEFT_FORMAT_MINOR);
	__atomic_store_n(pk64(pk, WEFT_PK_STREAM), t->stream, __ATOMIC_RELAXED);
	__atomic_store_n(pk64(pk, WEFT_PK_TS_BEGIN), now, __ATOMIC_RELAXED);
	__atomic_store_n(pk64(pk, WEFT_PK_TS_END), 0, __ATOMIC_RELAXED);
	__atomic_store_n(pk64(pk, WEFT_PK_CONTENT), WEFT_PK_EVENTS * 8,
			 __ATOMIC_RELAXED);
	__atomic_store_n(pk64(pk, WEFT_PK_SIZE), (uint64_t)g.psize * 8,
			 __ATOMIC_RELAXED);
	__atomic_store_n(pk64(pk, WEFT_PK_SEQ), t->seq++, __ATOMIC_RELAXED);
	__atomic_store_n(pk64(pk, WEFT_PK_DISCARDED), t->dropped + t->nested,
			 __ATOMIC_RELAXED);
	__atomic_store_n(pk64(pk, WEFT_PK_CURRENT), t->cur, __ATOMIC_RELAXED);
	st32(pk + WEFT_PK_TID, t->fs->tid);
	/* Pairs with the reader's acquire load of gen: the fields above are
	 * visible to whoever sees the new generation. */
	__atomic_store_n(pk64(pk, WEFT_PK_GEN), gen, __ATOMIC_RELEASE);
	/* Pairs with the reader's acquire fence before reading the trailer. */
	__atomic_store_n(trailer, gen, __ATOMIC_RELEASE);

	t->pk = pk;
	t->pkidx = (uint32_t)slot;
	t->pos = pk + WEFT_PK_EVENTS;
	t->end = pk + g.psize - WEFT_PK_TRAILER;
	t->last = now;
	__atomic_store_n(&t->fs->packets, t->fs->packets + 1, __ATOMIC_RELAXED);
	refresh_anchor();
	return t->pos;
}

static void thr_exit(void *arg)
{
	struct thr *t = arg;
	/* Only close a packet of the generation that is still tracing. */
	if (t && t->gen == __atomic_load_n(&weft__on, __ATOMIC_RELAXED) &&
	    t->gen) {
		t->busy = 1;
		close_packet(t);
	}
	tls = NULL;
}

static void make_key(void)
{
	pthread_key_create(&thr_key, thr_exit);
}

static int ring_from_env(void);

/* First event of an OS thread in generation `gen`: take a stream slot
 * (and, started from the environment, make the ring if no event did). */
static struct thr *attach(unsigned gen)
{
	if (!gen)
		return NULL;
	/* Pairs with the release store of g.state in weft_start() and
	 * ring_from_env(): the ring's state is visible before this thread
	 * uses it. */
	if (__atomic_load_n(&g.state, __ATOMIC_ACQUIRE) != RING_READY &&
	    !ring_from_env())
		return NULL;
	struct weft__fhdr *h = g.hdr;
	uint32_t idx = __atomic_fetch_add(&h->nstreams, 1, __ATOMIC_RELAXED);
	if (idx >= h->streams_cap) {
		__atomic_store_n(&h->nstreams, h->streams_cap,
				 __ATOMIC_RELAXED);
		__atomic_fetch_add(&h->lost_no_stream, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	struct thr *t = &g.thrs[idx];
	memset(t, 0, sizeof *t);
	t->gen = gen;
	t->stream = idx;
	t->fs = (struct weft__fstream *)(void *)(g.base + h->streams_off) + idx;
	/* Events a signal handler recorded while this thread made the
	 * ring: dropped, counted now. */
	t->nested = early_nested;
	t->fs->dropped_nested = early_nested;
	early_nested = 0;
	t->fs->tid = (uint32_t)syscall(SYS_gettid);
	t->fs->start_ticks = weft__clock_now();
	prctl(PR_GET_NAME, t->fs->name, 0, 0, 0);
	/* Pairs with the reader's acquire load of `valid`. */
	__atomic_store_n(&t->fs->valid, 1, __ATOMIC_RELEASE);
	tls = t;
	pthread_setspecific(thr_key, t);
	return t;
}

/* ------------------------------------------------------------- hot path */

static inline struct thr *enter(void)
{
	struct thr *t = tls;
	unsigned gen = __atomic_load_n(&weft__on, __ATOMIC_RELAXED);
	if (__builtin_expect(!t || t->gen != gen, 0)) {
		t = attach(gen);
		if (!t)
			return NULL;
	}
	if (__builtin_expect(t->busy, 0)) {
		t->nested++;
		if (t->fs)
			__atomic_fetch_add(&t->fs->dropped_nested, 1,
					   __ATOMIC_RELAXED);
		return NULL;
	}
	t->busy = 1;
	/* Keep the event's stores after the flag, as seen by a signal
	 * handler on this thread. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return t;
}

static inline void leave(struct thr *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
}

/* Reserves room for an event of `payload` bytes and writes its header;
 * returns where the payload goes, or NULL (dropped and counted). */
static inline uint8_t *ev_open(struct thr *t, unsigned id, size_t payload)
{
	uint64_t now;
	if (__builtin_expect(t->burst == 2, 0)) {
		now = t->last; /* in a burst: the time of its first event */
	} else {
		now = weft__clock_now();
		if (__builtin_expect(t->burst, 0))
			t->burst = 2; /* the burst's first event: its time */
		if (__builtin_expect(now < t->last, 0))
			now = t->last; /* keep each stream monotonic */
	}
	uint8_t *p = t->pos;
	if (__builtin_expect((size_t)(t->end - p) < payload + WEFT_EH_EXT_SIZE,
			     0)) {
		p = open_packet(t, now);
		if (!p)
			return NULL;
	}
	if (__builtin_expect(now - t->last < (1u << WEFT_EH_COMPACT_BITS), 1)) {
		st32(p, (uint32_t)(now << 5) | id);
		p += 4;
	} else {
		p[0] = WEFT_EH_EXTENDED;
		st32(p + 1, id);
		st64(p + 5, now);
		p += WEFT_EH_EXT_SIZE;
	}
	t->last = now;
	return p;
}

static inline void ev_commit(struct thr *t, uint8_t *end)
{
	t->pos = end;
	/* The commit.  Pairs with the reader's acquire load of
	 * content_size: the event's bytes are visible before the size that
	 * covers them. */
	__atomic_store_n(pk64(t->pk, WEFT_PK_CONTENT),
			 (uint64_t)(end - t->pk) * 8, __ATOMIC_RELEASE);
}

static void ev_id(unsigned id, uint64_t a)
{
	struct thr *t = enter();
	if (!t)
		return;
	uint8_t *p = ev_open(t, id, 8);
	if (p) {
		st64(p, a);
		ev_commit(t, p + 8);
	}
	leave(t);
}

/* ------------------------------------------------------------- names */

/* Length of the longest prefix of s, at most cap bytes, that does not cut
 * a UTF-8 sequence. */
static size_t utf8_cut(const char *s, size_t cap)
{
	size_t n = cap;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

/* Interns s by its address.  0 when the table is full: counted as a lost
 * name, unless `quiet` (the caller records the text some other way). */
static uint32_t intern_slow(struct thr *t, const char *s, int quiet)
{
	struct weft__fhdr *h = g.hdr;
	/* Longer than a name may be: a label (quiet) goes as a text, whole;
	 * any other name is cut at a character boundary, and counted as a
	 * truncated text. */
	size_t len = strnlen(s, WEFT_NAME_MAX + 1);
	int cut = len > WEFT_NAME_MAX;
	if (cut) {
		if (quiet)
			return 0;
		len = utf8_cut(s, WEFT_NAME_MAX);
	}
	/* Full: say so at once, rather than probe a table that names
	 * which are never interned keep filling. */
	if (quiet && (__atomic_load_n(&h->nnames, __ATOMIC_RELAXED) >=
			      h->names_cap ||
		      __atomic_load_n(&h->strings_used, __ATOMIC_RELAXED) +
				      WEFT_NAME_MAX + 1 >
			      h->strings_cap))
		return 0;
	uint64_t k = (uint64_t)(uintptr_t)s;
	uint32_t mask = g.nhash_cap - 1;
	uint32_t i = (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 40) & mask;
	int claimed = 0;
	struct nslot *slot = NULL;

	for (uint32_t n = 0; n < g.nhash_cap; n++, i = (i + 1) & mask) {
		struct nslot *e = &g.nhash[i];
		const char *key = __atomic_load_n(&e->key, __ATOMIC_ACQUIRE);
		if (key == s) {
			/* Pairs with the release store of e->id below. */
			uint32_t id = __atomic_load_n(&e->id, __ATOMIC_ACQUIRE);
			if (id)
				return id == UINT32_MAX ? 0 : id;
			break; /* being interned: take a name of our own */
		}
		if (!key) {
			const char *none = NULL;
			if (__atomic_compare_exchange_n(&e->key, &none, s, 0,
							__ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE)) {
				claimed = 1;
				slot = e;
				break;
			}
			if (none == s)
				break;
		}
	}

	uint32_t id = __atomic_fetch_add(&h->nnames, 1, __ATOMIC_RELAXED);
	uint32_t off = 0;
	if (id >= h->names_cap ||
	    (off = __atomic_fetch_add(&h->strings_used, (uint32_t)len + 1,
				      __ATOMIC_RELAXED)) +
			    len + 1 >
		    h->strings_cap) {
		if (!quiet)
			__atomic_fetch_add(&h->lost_names, 1,
					   __ATOMIC_RELAXED);
		if (claimed)
			__atomic_store_n(&slot->id, UINT32_MAX,
					 __ATOMIC_RELEASE);
		return 0;
	}
	uint8_t *str = g.base + h->strings_off + off;
	memcpy(str, s, len);
	str[len] = 0;
	struct weft__fname *fn =
		(struct weft__fname *)(void *)(g.base + h->names_off) + id;
	fn->off = off;
	if (cut)
		__atomic_store_n(&t->fs->truncated, t->fs->truncated + 1,
				 __ATOMIC_RELAXED);
	/* Pairs with the reader's acquire load of len. */
	__atomic_store_n(&fn->len, (uint32_t)len | WEFT_NAME_VALID,
			 __ATOMIC_RELEASE);
	if (claimed)
		__atomic_store_n(&slot->id, id, __ATOMIC_RELEASE);
	return id;
}

static inline uint16_t intern_q(struct thr *t, const char *s, int quiet)
{
	if (!s)
		return 0;
	/* Two ways per set: the name just used goes first, the one it
	 * displaces second (a kind and a label that hash alike would
	 * otherwise evict each other at every event). */
	_Static_assert(NAME_CACHE == 2 << 5, "the hash below takes 5 bits");
	unsigned i = (unsigned)(((uintptr_t)s * 0x9E3779B97F4A7C15ull) >> 59) * 2;
	if (__builtin_expect(t->nc[i].p == s, 1))
		return (uint16_t)t->nc[i].id;
	if (t->nc[i + 1].p == s)
		return (uint16_t)t->nc[i + 1].id;
	uint32_t id = intern_slow(t, s, quiet);
	t->nc[i + 1] = t->nc[i];
	t->nc[i].p = s;
	t->nc[i].id = id;
	return (uint16_t)id;
}

static inline uint16_t intern(struct thr *t, const char *s)
{
	return intern_q(t, s, 0);
}

static void ev_name(unsigned id, const char *name)
{
	struct thr *t = enter();
	if (!t)
		return;
	uint16_t n = intern(t, name);
	uint8_t *p = ev_open(t, id, 2);
	if (p) {
		st16(p, n);
		ev_commit(t, p + 2);
	}
	leave(t);
}

static void ev_name_val(unsigned id, const char *name, uint64_t v)
{
	struct thr *t = enter();
	if (!t)
		return;
	uint16_t n = intern(t, name);
	uint8_t *p = ev_open(t, id, 10);
	if (p) {
		st16(p, n);
		st64(p + 2, v);
		ev_commit(t, p + 10);
	}
	leave(t);
}

static void ev_text(unsigned id, uint64_t a, const char *text)
{
	struct thr *t = enter();
	if (!t)
		return;
	if (!text)
		text = "";
	size_t len = strnlen(text, (size_t)g.text_cap + 1);
	uint8_t trunc = 0;
	if (len > g.text_cap) {
		len = utf8_cut(text, g.text_cap);
		trunc = 1;
		__atomic_store_n(&t->fs->truncated, t->fs->truncated + 1,
				 __ATOMIC_RELAXED);
	}
	uint8_t *p = ev_open(t, id, 8 + 1 + len + 1);
	if (p) {
		st64(p, a);
		p[8] = trunc;
		memcpy(p + 9, text, len);
		p[9 + len] = 0;
		ev_commit(t, p + 10 + len);
	}
	leave(t);
}

/* ------------------------------------------------------------- events */

WEFT_API void weft__create(uint64_t child, const char *kind)
{
	struct thr *t = enter();
	if (!t)
		return;
	uint16_t k = intern(t, kind);
	uint8_t *p = ev_open(t, WEFT_EV_CREATE, 10);
	if (p) {
		st64(p, child);
		st16(p + 8, k);
		ev_commit(t, p + 10);
	}
	leave(t);
}

/* An event whose first id becomes the current thread (run, resolve_run,
 * fire): `second`, when n is 16, follows it. */
static inline void ev_switch(unsigned id, uint64_t thread, uint64_t second,
			     size_t n)
{
	struct thr *t = enter();
	if (!t)
		return;
	uint8_t *p = ev_open(t, id, n);
	/* The current thread changes even if the event was dropped, so the
	 * next packet's context names the right one. */
	t->cur = thread;
	if (p) {
		st64(p, thread);
		if (n == 16)
			st64(p + 8, second);
		ev_commit(t, p + n);
	}
	leave(t);
}

WEFT_API void weft__run(uint64_t thread)
{
	ev_switch(WEFT_EV_RUN, thread, 0, 8);
}

/* resolve + run in one event: the target's continuation starts at the
 * instant it resolves. */
WEFT_API void weft__resolve_run(uint64_t target)
{
	ev_switch(WEFT_EV_RESOLVE_RUN, target, 0, 8);
}

/* resolve_run + the creation of the next activation of the same source
 * (its kind and label are target's), in one event. */
WEFT_API void weft__fire(uint64_t target, uint64_t next)
{
	ev_switch(WEFT_EV_FIRE, target, next, 16);
}

/* create + label in one event, the label interned like the kind.  With
 * the name table full, the label goes as text in a label event of its
 * own: never lost. */
WEFT_API void weft__create_label(uint64_t child, const char *kind,
				 const char *label)
{
	struct thr *t = enter();
	if (!t)
		return;
	uint16_t k = intern(t, kind);
	uint16_t l = intern_q(t, label, 1);
	if (__builtin_expect(!l && label, 0)) {
		leave(t);
		weft__create(child, kind);
		weft__label(child, label);
		return;
	}
	uint8_t *p = ev_open(t, WEFT_EV_CREATE_LABEL, 12);
	if (p) {
		st64(p, child);
		st16(p + 8, k);
		st16(p + 10, l);
		ev_commit(t, p + 12);
	}
	leave(t);
}

WEFT_API void weft__idle(const char *reason)
{
	ev_name(WEFT_EV_IDLE, reason);
}

WEFT_API void weft__resume(void)
{
	struct thr *t = enter();
	if (!t)
		return;
	uint8_t *p = ev_open(t, WEFT_EV_RESUME, 0);
	if (p)
		ev_commit(t, p);
	leave(t);
}

WEFT_API void weft__read(uint64_t source)
{
	ev_id(WEFT_EV_READ, source);
}
WEFT_API void weft__try_read(uint64_t source)
{
	ev_id(WEFT_EV_TRY_READ, source);
}
WEFT_API void weft__resolve(uint64_t target)
{
	ev_id(WEFT_EV_RESOLVE, target);
}
WEFT_API void weft__fail(uint64_t target, const char *message)
{
	ev_text(WEFT_EV_FAIL, target, message);
}

WEFT_API void weft__becomes(uint64_t from, uint64_t to)
{
	struct thr *t = enter();
	if (!t)
		return;
	uint8_t *p = ev_open(t, WEFT_EV_BECOMES, 16);
	if (p) {
		st64(p, from);
		st64(p + 8, to);
		ev_commit(t, p + 16);
	}
	leave(t);
}

WEFT_API void weft__signal(uint64_t receiver)
{
	ev_id(WEFT_EV_SIGNAL, receiver);
}
WEFT_API void weft__cancel(uint64_t target)
{
	ev_id(WEFT_EV_CANCEL, target);
}
WEFT_API void weft__label(uint64_t thread, const char *text)
{
	ev_text(WEFT_EV_LABEL, thread, text);
}
WEFT_API void weft__should_resolve(uint64_t thread)
{
	ev_id(WEFT_EV_SHOULD_RESOLVE, thread);
}
WEFT_API void weft__counter_set(const char *counter, int64_t value)
{
	ev_name_val(WEFT_EV_COUNTER_SET, counter, (uint64_t)value);
}
WEFT_API void weft__counter_add(const char *counter, int64_t delta)
{
	ev_name_val(WEFT_EV_COUNTER_ADD, counter, (uint64_t)delta);
}
WEFT_API void weft__note(uint64_t thread, const char *text)
{
	ev_text(WEFT_EV_NOTE, thread, text);
}
WEFT_API void weft__span_begin(const char *name)
{
	ev_name(WEFT_EV_SPAN_BEGIN, name);
}
WEFT_API void weft__span_end(const char *name)
{
	ev_name(WEFT_EV_SPAN_END, name);
}
/* Read by the events of every thread (weft__mono_ticks): relaxed, as a
 * clock read is; an event stamped a little before a store from another
 * thread is stamped as it would be on a real clock. */
WEFT_API void weft__clock_set(uint64_t ns)
{
	__atomic_store_n(&weft__manual_ns, ns, __ATOMIC_RELAXED);
}

WEFT_API void weft__phase(const char *phase)
{
	ev_name(WEFT_EV_PHASE, phase);
}
WEFT_API void weft__pause(const char *kind, uint64_t duration_ns)
{
	ev_name_val(WEFT_EV_PAUSE, kind, duration_ns);
}

/* Bursts: the next event reads the clock, the following ones reuse its
 * time until the end (an event a signal handler records meanwhile gets
 * that time too). */
WEFT_API void weft__burst_begin(void)
{
	struct thr *t = enter();
	if (!t)
		return;
	t->burst = 1;
	leave(t);
}

/* A burst at this instant: the clock is read now, and its reading (in
 * trace clock ticks) returned, for an integration that measures with it
 * (0 when not recording). */
WEFT_API uint64_t weft__burst_now(void)
{
	struct thr *t = enter();
	if (!t)
		return 0;
	uint64_t now = weft__clock_now();
	if (now < t->last)
		now = t->last;
	t->last = now;
	t->burst = 2;
	leave(t);
	return now;
}

WEFT_API void weft__burst_end(void)
{
	struct thr *t = tls;
	if (t)
		t->burst = 0;
}

/* The time of the last event this OS thread recorded, in trace clock
 * ticks (0 when none, or not recording). */
WEFT_API uint64_t weft__last_time(void)
{
	struct thr *t = tls;
	return t && t->gen == __atomic_load_n(&weft__on, __ATOMIC_RELAXED)
		       ? t->last
		       : 0;
}

WEFT_API uint64_t weft__current(void)
{
	struct thr *t = tls;
	return t && t->gen == __atomic_load_n(&weft__on, __ATOMIC_RELAXED)
		       ? t->cur
		       : 0;
}

/* ------------------------------------------------------------- start/stop */

static uint32_t pow2_floor(uint64_t v)
{
	uint32_t p = 1;
	while ((uint64_t)p * 2 <= v && p < (1u << 30))
		p *= 2;
	return p;
}

/* Where each part of a ring of `bytes` bytes goes. */
struct layout {
	uint32_t psize, npk, hsize;
	uint32_t streams_cap, names_cap, strings_cap, meta_cap;
	uint32_t meta_off, streams_off, names_off, strings_off;
	size_t size; /* <= bytes: the header and whole packets */
};

static int layout(uint64_t bytes, struct layout *l)
{
	if (!bytes)
		bytes = WEFT_DEFAULT_SIZE;
	if (bytes < WEFT_MIN_SIZE)
		return WEFT_ETOOSMALL;
	if (bytes > WEFT_MAX_SIZE || bytes > SIZE_MAX / 2)
		return WEFT_ETOOBIG;
	uint32_t psize = pow2_floor(bytes / 256);
	if (psize < WEFT_MIN_PACKET)
		psize = WEFT_MIN_PACKET;
	if (psize > 32768)
		psize = 32768;
	int big = bytes >= (1u << 20);
	l->psize = psize;
	l->streams_cap = big ? 1024 : 64;
	l->names_cap = big ? 4096 : 256;
	l->strings_cap = big ? 65536 : 8192;
	l->meta_cap = 16384;
	uint32_t off = 4096; /* header page */
	l->meta_off = off;
	off += l->meta_cap;
	l->streams_off = off;
	off += l->streams_cap * (uint32_t)sizeof(struct weft__fstream);
	l->names_off = off;
	off += l->names_cap * (uint32_t)sizeof(struct weft__fname);
	l->strings_off = off;
	off += l->strings_cap;
	uint32_t align = psize > 4096 ? psize : 4096;
	l->hsize = (off + align - 1) / align * align;
	if (bytes < (uint64_t)l->hsize + 4 * (uint64_t)psize)
		return WEFT_ETOOSMALL;
	uint64_t npk = (bytes - l->hsize) / psize;
	l->npk = npk > (1u << 30) ? (1u << 30) : (uint32_t)npk;
	l->size = (size_t)l->hsize + (size_t)l->npk * psize;
	return 0;
}

static void random_bytes(void *buf, size_t n)
{
	if (getrandom(buf, n, GRND_NONBLOCK) == (ssize_t)n)
		return;
	/* No entropy yet (early boot): the clock, the pid, a counter. */
	static uint64_t count;
	uint8_t *b = buf;
	for (size_t i = 0; i < n; i += 8) {
		uint64_t x = (weft__mono_ticks() ^ ((uint64_t)getpid() << 32) ^
			      __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED)) *
			     0x9E3779B97F4A7C15ull;
		memcpy(b + i, &x, n - i < 8 ? n - i : 8);
	}
}

static void random_uuid(uint8_t u[16])
{
	random_bytes(u, 16);
	u[6] = (u[6] & 0x0f) | 0x40; /* version 4 */
	u[8] = (u[8] & 0x3f) | 0x80; /* variant */
}

/* Where a ring named `path` goes: `path` itself, or, when it is a
 * symbolic link, the file it names (followed to the end of the chain, so
 * the temporary file is made in the directory of the file it replaces).
 * Refuses anything that exists and is not a regular file: a device, a
 * FIFO, a socket or a directory is never replaced.  Stack buffers only:
 * this may run in a child after fork. */
static int resolve_target(const char *path, char *out, size_t cap)
{
	if (strlen(path) >= cap)
		return -ENAMETOOLONG;
	strcpy(out, path);
	for (int hops = 0; hops < 40; hops++) {
		struct stat sb;
		if (lstat(out, &sb) < 0)
			return errno == ENOENT ? 0 : -errno;
		if (S_ISREG(sb.st_mode))
			return 0;
		if (!S_ISLNK(sb.st_mode))
			return WEFT_ENOTREG;
		char link[4096];
		ssize_t n = readlink(out, link, sizeof link - 1);
		if (n < 0)
			return -errno;
		link[n] = 0;
		char *slash = strrchr(out, '/');
		size_t dir = link[0] == '/' || !slash ? 0 : (size_t)(slash - out) + 1;
		if (dir + (size_t)n >= cap)
			return -ENAMETOOLONG;
		memcpy(out + dir, link, (size_t)n + 1);
	}
	return -ELOOP;
}

/* What is at `path` (already resolved): a ring, whose, and whether a live
 * writer holds it (writers keep an exclusive flock(2) on their file while
 * tracing). */
struct ring_id {
	int exists, held;
	uint32_t pid;
	uint64_t session;
};

static void ring_id(const char *path, struct ring_id *r)
{
	memset(r, 0, sizeof *r);
	/* O_NONBLOCK: resolve_target() refused FIFOs already, but the
	 * environment's FILE is looked at before it runs. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return;
	struct weft__fhdr h;
	r->exists = pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h &&
		    !memcmp(h.magic, WEFT_FILE_MAGIC, 8);
	if (r->exists) {
		r->pid = h.pid;
		r->session = h.session;
	}
	r->held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
}

static int held_by_writer(const char *path)
{
	struct ring_id r;
	ring_id(path, &r);
	return r.held;
}

/* `target`.RANDOM.tmp into tmp. */
static int tmp_name(const char *target, char *tmp, size_t cap)
{
	uint64_t r;
	random_bytes(&r, sizeof r);
	int n = snprintf(tmp, cap, "%s.%016llx.tmp", target,
			 (unsigned long long)r);
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* Opens the ring's new file in the directory of `target`: an unnamed
 * file (O_TMPFILE), which nobody else can have made or opened and which a
 * kill during start-up leaves nowhere.  Where the file system has no
 * O_TMPFILE (or there is no /proc to name it from), a new file of a
 * random name made with O_EXCL, named in tmp (tmp is "" otherwise).
 * Returns the descriptor or a negative code. */
static int open_file(const char *target, char *tmp, size_t cap)
{
	tmp[0] = 0;
	char dir[4096];
	const char *slash = strrchr(target, '/');
	size_t dl = slash ? (size_t)(slash - target) : 0;
	if (dl >= sizeof dir)
		return -ENAMETOOLONG;
	memcpy(dir, target, dl);
	strcpy(dir + dl, slash ? (dl ? "" : "/") : ".");
	int fd = -1;
	errno = EOPNOTSUPP;
	if (access("/proc/self/fd", X_OK) == 0 && !FAULT(tmpfile))
		fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	for (int tries = 0; tries < 100; tries++) {
		int err = tmp_name(target, tmp, cap);
		if (err)
			return err;
		fd = FAULT(open) ? -1
				 : open(tmp,
					O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC |
						O_NOFOLLOW | O_NOCTTY,
					0600);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			break;
	}
	int err = -errno;
	tmp[0] = 0;
	return err;
}

/* Puts the finished ring at `target`: a reader never sees a half-made
 * ring.  An unnamed file is linked there directly (linkat never replaces:
 * what is there, a trace of an earlier run, is removed first; a ring that
 * another process started meanwhile is never replaced), so no moment of
 * start-up leaves a file under another name.  A named temporary file is
 * renamed over the target. */
static int publish(int fd, const char *target, char *tmp)
{
	if (tmp[0]) {
		int err = 0;
		if (FAULT(rename) || rename(tmp, target) < 0) {
			err = -errno;
			unlink(tmp);
		}
		tmp[0] = 0;
		return err;
	}
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	for (int tries = 0; tries < 100; tries++) {
		if (FAULT(link))
			return -errno;
		if (linkat(AT_FDCWD, proc, AT_FDCWD, target,
			   AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
		struct stat sb;
		if (lstat(target, &sb) == 0 && !S_ISREG(sb.st_mode))
			return WEFT_ENOTREG; /* replaced meanwhile */
		if (held_by_writer(target))
			return -EBUSY;
		if (unlink(target) < 0 && errno != ENOENT)
			return -errno;
	}
	return -EEXIST;
}

/* Makes a ring at `name` (following a symbolic link) and sets up g for
 * it; tracing is not on yet.  Writes nothing but the header: the file's
 * blocks are reserved (fallocate), its pages untouched until a packet
 * uses them. */
static int create(const char *name, size_t bytes, unsigned flags)
{
	struct layout L;
	int err = layout(bytes, &L);
	if (err)
		return err;
	char path[4096];
	err = resolve_target(name, path, sizeof path);
	if (err)
		return err;
	/* Never replace a ring another process is writing. */
	if (held_by_writer(path))
		return -EBUSY;
	pthread_once(&once, make_key);

	char tmp[4200];
	int fd = open_file(path, tmp, sizeof tmp);
	if (fd < 0)
		return fd;
	/* Reserve the disk blocks now, so that a full disk is this error
	 * and never a SIGBUS at the first write of a page.  fallocate(2)
	 * is fast where the file system keeps unwritten extents (ext4, xfs,
	 * btrfs, tmpfs): nothing is written.  Not glibc's posix_fallocate,
	 * which writes every block where fallocate is missing.  Where it is
	 * (EOPNOTSUPP), the file is sparse: see docs/format.md. */
	if (FAULT(fallocate) || fallocate(fd, 0, 0, (off_t)L.size) < 0) {
		if (errno != EOPNOTSUPP && errno != ENOSYS) {
			err = errno == ENOSPC ? WEFT_ENOSPC : -errno;
			goto fail_fd;
		}
		if (FAULT(ftruncate) || ftruncate(fd, (off_t)L.size) < 0) {
			err = -errno;
			goto fail_fd;
		}
	}
	uint8_t *base = FAULT(mmap) ? MAP_FAILED
				    : mmap(NULL, L.size, PROT_READ | PROT_WRITE,
					   MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		err = -errno;
		goto fail_fd;
	}
	/* Process-private state: packet owners, per-stream state, the name
	 * hash.  One anonymous mapping, no malloc (start may run in a child
	 * after fork, or in a signal handler's first event). */
	uint32_t nhash_cap = 1;
	while (nhash_cap < L.names_cap * 2)
		nhash_cap *= 2;
	size_t priv_size = (size_t)L.npk + L.streams_cap * sizeof(struct thr) +
			   nhash_cap * sizeof(struct nslot) + 64;
	uint8_t *priv = FAULT(mmap) ? MAP_FAILED
				    : mmap(NULL, priv_size,
					   PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (priv == MAP_FAILED) {
		err = -errno;
		munmap(base, L.size);
		goto fail_fd;
	}

	/* A new file reads as zeros: only the header is written. */
	struct weft__fhdr *h = (struct weft__fhdr *)(void *)base;
	memcpy(h->magic, WEFT_FILE_MAGIC, 8);
	h->major = WEFT_FORMAT_MAJOR;
	h->minor = WEFT_FORMAT_MINOR;
	h->header_size = L.hsize;
	h->file_size = L.size;
	h->packet_size = L.psize;
	h->npackets = L.npk;
	h->mode = (flags & WEFT_DISCARD) ? 1 : 0;
	random_uuid(h->uuid);
	h->freq = weft__clock_init((flags & WEFT_CLOCK_MANUAL)
					   ? WEFT_CLOCK_PROGRAM
				   : (flags & WEFT_CLOCK_MONOTONIC) ? WEFT_CLOCK_MONO
								   : WEFT_CLOCK_TSC,
				   &h->a0);
	h->clock_kind = (uint32_t)weft__clock_kind;
	h->a1 = h->a0;
	h->pid = (uint32_t)getpid();
	h->ppid = (uint32_t)getppid();
	prctl(PR_GET_NAME, h->comm, 0, 0, 0);
	h->session = g.env_session;
	h->metadata_off = L.meta_off;
	h->streams_off = L.streams_off;
	h->streams_cap = L.streams_cap;
	h->names_off = L.names_off;
	h->names_cap = L.names_cap;
	h->strings_off = L.strings_off;
	h->strings_cap = L.strings_cap;
	h->nnames = 1; /* id 0 is "no name" */
	h->state = WEFT_STATE_RUNNING;

	char host[256] = "";
	gethostname(host, sizeof host - 1);
	struct weft__meta_params mp = {
		.uuid = h->uuid,
		.freq = h->freq,
		.origin_real_ns = h->a0.real_ns,
		.origin_ticks = h->a0.ticks,
		.clock_kind = (int)h->clock_kind,
		.hostname = host,
		.comm = h->comm,
		.pid = h->pid,
	};
	int mlen = weft__metadata((char *)base + L.meta_off, L.meta_cap, &mp);
	h->metadata_len = mlen > 0 && (uint32_t)mlen < L.meta_cap
				  ? (uint32_t)mlen
				  : 0;

	/* Locked before it has a name: no one ever sees it unheld. */
	flock(fd, LOCK_EX | LOCK_NB);
	err = publish(fd, path, tmp);
	if (err) {
		munmap(priv, priv_size);
		munmap(base, L.size);
		goto fail_fd;
	}

	g.hdr = h;
	g.base = base;
	g.size = L.size;
	g.packets = base + L.hsize;
	g.psize = L.psize;
	g.npk = L.npk;
	g.priv = priv;
	g.priv_size = priv_size;
	g.owner = priv;
	g.thrs = (struct thr *)(void *)(priv +
					(((size_t)L.npk + 63) & ~(size_t)63));
	g.nhash = (struct nslot *)(void *)(g.thrs + L.streams_cap);
	g.nhash_cap = nhash_cap;
	g.fd = fd;
	g.flags = flags;
	g.text_cap = L.psize - WEFT_PK_EVENTS - WEFT_PK_TRAILER -
		     WEFT_EH_EXT_SIZE - 8 - 1 - 1;
	return 0;

fail_fd:
	close(fd);
	if (tmp[0])
		unlink(tmp);
	return err;
}

static unsigned next_gen(void)
{
	unsigned gen = ++gen_counter;
	return gen ? gen : ++gen_counter;
}

/* The session of the environment (weft record's, or the one the first
 * traced process of a tree chose), or 0. */
static uint64_t session_of_env(void)
{
	const char *s = getenv("WEFT_SESSION");
	char *end;
	uint64_t v = s && *s ? strtoull(s, &end, 16) : 0;
	return v && !*end ? v : 0;
}

WEFT_API int weft_start(const char *path, size_t bytes, unsigned flags)
{
	if (!path || !*path || (flags & ~7u) ||
	    ((flags & WEFT_CLOCK_MONOTONIC) && (flags & WEFT_CLOCK_MANUAL)))
		return WEFT_EINVAL;
	if (__atomic_load_n(&weft__on, __ATOMIC_RELAXED))
		return WEFT_EBUSY;
	g.env_session = session_of_env();
	int err = create(path, bytes, flags);
	if (err)
		return err;
	g.from_env = 0;
	g.gen = next_gen();
	/* Pairs with the acquire load of g.state in attach(). */
	__atomic_store_n(&g.state, RING_READY, __ATOMIC_RELEASE);
	__atomic_store_n(&weft__on, g.gen, __ATOMIC_RELEASE);
	return 0;
}

WEFT_API int weft_stop(void)
{
	unsigned gen = __atomic_load_n(&weft__on, __ATOMIC_RELAXED);
	if (!gen)
		return WEFT_ENOTSTARTED;
	__atomic_store_n(&weft__on, 0, __ATOMIC_RELEASE);
	if (__atomic_load_n(&g.state, __ATOMIC_ACQUIRE) != RING_READY) {
		/* From the environment, and nothing recorded: no ring. */
		int pending = RING_PENDING;
		__atomic_compare_exchange_n(&g.state, &pending, RING_NONE, 0,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		return 0;
	}
	__atomic_store_n(&g.state, RING_NONE, __ATOMIC_RELAXED);
	struct thr *t = tls;
	if (t && t->gen == gen && !t->busy)
		close_packet(t);
	struct weft__fhdr *h = g.hdr;
	refresh_anchor();
	h->stop_ticks = weft__clock_now();
	__atomic_store_n(&h->state, WEFT_STATE_STOPPED, __ATOMIC_RELEASE);
	/* The mapping stays: a thread that read weft__on just before may
	 * still be writing its last event.  Dropping the lock tells readers
	 * that the writer is done (explicitly: the mapping keeps the open
	 * file description, and so the lock, alive after close). */
	if (g.fd >= 0) {
		flock(g.fd, LOCK_UN);
		close(g.fd);
		g.fd = -1;
	}
	return 0;
}

/* ------------------------------------------------- environment and fork */

/* One line on standard error, in one write(2): no stdio (the first event,
 * which makes a ring started from the environment, may be in a signal
 * handler), and whole even when several processes of a tree say it. */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof buf) {
		n = sizeof buf;
		buf[n - 1] = '\n';
	}
	ssize_t w = write(2, buf, (size_t)n);
	(void)w;
}

/* The file a process started from the environment records into:
 *  - FILE for the process `weft record` started (WEFT_ROOT_PID; without
 *    it, the first process of the tree that loads libweft), unless a live
 *    writer holds FILE: then FILE.PID;
 *  - FILE.PID for any other (a child that inherited the environment);
 *  - after exec, FILE.PID.N for the Nth new image of a process whose
 *    earlier image recorded: a ring at the name above with this pid and
 *    this session says so.  An exec never rewrites what came before. */
static int env_name(char *name, size_t cap)
{
	int pid = (int)getpid(), n;
	char path[4096];
	struct ring_id r = {0};
	if (pid == g.env_root) {
		n = snprintf(name, cap, "%s", g.env_path);
		if (!resolve_target(name, path, sizeof path))
			ring_id(path, &r);
	}
	if (pid != g.env_root || r.held) {
		n = snprintf(name, cap, "%s.%d", g.env_path, pid);
		if (n < 0 || (size_t)n >= cap)
			return -ENAMETOOLONG;
		if (!resolve_target(name, path, sizeof path))
			ring_id(path, &r);
	}
	for (int k = 1; r.exists && !r.held && r.pid == (uint32_t)pid &&
			r.session == g.env_session;
	     k++) {
		n = snprintf(name, cap, "%s.%d.%d", g.env_path, pid, k);
		if (n < 0 || (size_t)n >= cap)
			return -ENAMETOOLONG;
		memset(&r, 0, sizeof r);
		if (!resolve_target(name, path, sizeof path))
			ring_id(path, &r);
	}
	return 0;
}

/* The first event of a process started from the environment: make its
 * ring.  One OS thread makes it; the others wait (it takes a few
 * milliseconds); a signal handler interrupting the maker drops its
 * events (counted).  Returns 1 when the ring is ready. */
static int ring_from_env(void)
{
	int s = RING_PENDING;
	if (__atomic_compare_exchange_n(&g.state, &s, RING_CREATING, 0,
					__ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
		char name[4200];
		creating = 1;
		int err = env_name(name, sizeof name);
		if (!err)
			err = create(name, g.env_size, g.env_flags);
		creating = 0;
		if (err) {
			say("weft: cannot trace into '%s': %s; running "
				"untraced\n",
				name, weft_strerror(err));
			__atomic_store_n(&weft__on, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&g.state, RING_NONE, __ATOMIC_RELEASE);
			return 0;
		}
		/* Pairs with the acquire loads of g.state in attach() and
		 * below. */
		__atomic_store_n(&g.state, RING_READY, __ATOMIC_RELEASE);
		return 1;
	}
	if (s == RING_CREATING) {
		if (creating) {
			early_nested++;
			return 0;
		}
		struct timespec pause = {0, 200000};
		while ((s = __atomic_load_n(&g.state, __ATOMIC_ACQUIRE)) ==
		       RING_CREATING)
			nanosleep(&pause, NULL);
	}
	return s == RING_READY;
}

static void after_fork_child(void)
{
	unsigned on = __atomic_load_n(&weft__on, __ATOMIC_RELAXED);
	int state = __atomic_load_n(&g.state, __ATOMIC_RELAXED);
	/* The child must never write into its parent's ring. */
	__atomic_store_n(&weft__on, 0, __ATOMIC_RELAXED);
	tls = NULL;
	early_nested = 0;
	if (g.fd >= 0) {
		/* close(), not LOCK_UN: the lock belongs to the open file
		 * description that the parent still uses. */
		close(g.fd);
		g.fd = -1;
	}
	if (on && state == RING_READY) {
		munmap(g.base, g.size);
		munmap(g.priv, g.priv_size);
	}
	g.hdr = NULL;
	g.state = RING_NONE;
	if (on && g.from_env) {
		/* Started from the environment: the child records into a
		 * file of its own, made at its first event (env_name()). */
		g.state = RING_PENDING;
		g.gen = next_gen();
		__atomic_store_n(&weft__on, g.gen, __ATOMIC_RELAXED);
	}
}

/* Reads one WEFT_* setting; 0 when it is unset or empty. */
static int env_setting(const char *var, int (*parse)(const char *, void *),
		       void *out, const char *help)
{
	const char *v = getenv(var);
	if (!v || !*v)
		return 0;
	int err = parse(v, out);
	if (err)
		say("weft: %s='%s': %s; expected %s; running untraced\n",
			var, v,
			err == WEFT_ETOOSMALL ? "too small"
			: err == WEFT_ETOOBIG ? "too large"
					      : "not valid",
			help);
	return err;
}

static int parse_size_v(const char *s, void *out)
{
	return weft__parse_size(s, out);
}
static int parse_mode_v(const char *s, void *out)
{
	return weft__parse_mode(s, out);
}
static int parse_clock_v(const char *s, void *out)
{
	return weft__parse_clock(s, out);
}
static int parse_pid_v(const char *s, void *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || v <= 0 || v > INT32_MAX)
		return WEFT_EINVAL;
	*(int *)out = (int)v;
	return 0;
}
static int parse_session_v(const char *s, void *out)
{
	char *end;
	if (strlen(s) > 16)
		return WEFT_EINVAL;
	uint64_t v = strtoull(s, &end, 16);
	if (*end || !v)
		return WEFT_EINVAL;
	*(uint64_t *)out = v;
	return 0;
}

/* Started with WEFT_FILE in the environment: check every setting now (a
 * bad one is said once, and the program runs untraced), and record from
 * the first event on. */
__attribute__((constructor)) static void weft_autostart(void)
{
	pthread_atfork(NULL, NULL, after_fork_child);
	/* Now rather than in a first event that a signal handler records. */
	pthread_once(&once, make_key);
	const char *path = getenv("WEFT_FILE");
	if (!path || !*path)
		return;
	uint64_t size = 0;
	unsigned flags = 0;
	int root = 0;
	uint64_t session = 0;
	if (env_setting("WEFT_SIZE", parse_size_v, &size, WEFT__SIZE_HELP) ||
	    env_setting("WEFT_MODE", parse_mode_v, &flags, WEFT__MODE_HELP) ||
	    env_setting("WEFT_CLOCK", parse_clock_v, &flags,
			WEFT__CLOCK_HELP) ||
	    env_setting("WEFT_ROOT_PID", parse_pid_v, &root,
			"the process id of the process that writes WEFT_FILE") ||
	    env_setting("WEFT_SESSION", parse_session_v, &session,
			"1 to 16 hexadecimal digits, not all 0"))
		return;
	char target[4096];
	int err = strlen(path) + 32 > sizeof g.env_path
			  ? -ENAMETOOLONG
			  : resolve_target(path, target, sizeof target);
	if (err) {
		say("weft: cannot trace into '%s': %s; running untraced\n",
			path, weft_strerror(err));
		return;
	}
	/* The first traced process of a tree tells its descendants (they
	 * inherit the environment) that it writes FILE, and which run they
	 * belong to; weft record sets both itself. */
	char num[32];
	if (!root) {
		root = (int)getpid();
		snprintf(num, sizeof num, "%d", root);
		setenv("WEFT_ROOT_PID", num, 1);
	}
	if (!session) {
		while (!session)
			random_bytes(&session, sizeof session);
		snprintf(num, sizeof num, "%llx", (unsigned long long)session);
		setenv("WEFT_SESSION", num, 1);
	}
	snprintf(g.env_path, sizeof g.env_path, "%s", path);
	g.env_size = (size_t)size;
	g.env_flags = flags;
	g.env_root = root;
	g.env_session = session;
	g.from_env = 1;
	g.gen = next_gen();
	__atomic_store_n(&g.state, RING_PENDING, __ATOMIC_RELAXED);
	/* Pairs with the acquire load of g.state in attach(). */
	__atomic_store_n(&weft__on, g.gen, __ATOMIC_RELEASE);
}

__attribute__((destructor)) static void weft_autostop(void)
{
	if (__atomic_load_n(&weft__on, __ATOMIC_RELAXED))
		weft_stop();
}
