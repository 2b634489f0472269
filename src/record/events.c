/* SPDX-License-Identifier: MIT */
/*
 * events.c - the hot path: each OS thread's stream, its packets, and the
 * event encoders, generated from the event table (include/weft/events.h).
 *
 * Per event, after the first event of an OS thread: one relaxed load of
 * weft__on (in the caller), a thread-local pointer, a re-entrancy flag,
 * the clock read, a bounds check, the stores of the event, and a release
 * store of the packet's content_size, which commits it.  No lock, no
 * allocation, no system call; a new packet (every few hundred events)
 * costs one atomic add and one compare-and-swap.  Every helper of that
 * path is static inline here, so each encoder is compiled with them.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WEFT_ENABLE 1
#include "weft/events.h"
#include "weft/weft.h"

#include "record.h"

WEFT_API unsigned weft__on; /* generation while tracing, 0 when stopped */

static __thread struct weft__thr *tls __attribute__((tls_model("initial-"
							       "exec")));
static pthread_key_t thr_key;

#define g weft__g

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

/* ------------------------------------------------------------- packets */

static void close_packet(struct weft__thr *t)
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
		uint64_t n =
			__atomic_fetch_add(&h->next_gen, 1, __ATOMIC_RELAXED);
		if ((g.flags & WEFT_DISCARD) && n >= g.npk) {
			/* Undo is not needed: next_gen only grows and
			 * readers use it as "packets ever opened", capped. */
			return -1;
		}
		/* Stopped (weft_stop() set the bit): the slots past those
		 * in use may be gone from the file. */
		if (__builtin_expect(n >= WEFT_GEN_STOPPED, 0))
			return -1;
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

static void count_drop(struct weft__thr *t)
{
	t->dropped++;
	__atomic_store_n(&t->fs->dropped_full, t->fs->dropped_full + 1,
			 __ATOMIC_RELAXED);
	if (t->pk)
		__atomic_store_n(pk64(t->pk, WEFT_PK_DISCARDED),
				 t->dropped + t->nested, __ATOMIC_RELAXED);
}

/* Opens a new packet for `t` starting at time `now`.  Returns the first
 * event position, or NULL (event dropped and counted).  A packet's pages
 * come into memory at its first use (the file is not written at start):
 * a page fault each, on the ring's first pass only. */
static uint8_t *open_packet(struct weft__thr *t, uint64_t now)
{
	uint64_t gen;
	int64_t slot = take_slot(&gen);
	if (slot < 0) {
		/* The event is dropped, and nothing later of this stream
		 * may be written before the loss is marked (at the end of
		 * this packet, by its events_discarded): a smaller event
		 * would still fit in the packet's rest, and be read before
		 * the loss, a hole with no mark at its place.  So the
		 * packet takes no more events: each later event needs a
		 * new packet (then the loss lands between the two), or is
		 * dropped and counted here in turn. */
		count_drop(t);
		if (t->pk)
			t->end = t->pos; /* (no room left: a new packet) */
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
	weft__refresh_anchor();
	return t->pos;
}

/* ------------------------------------------------------------- streams */

static void thr_exit(void *arg)
{
	struct weft__thr *t = arg;
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

void weft__streams_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, make_key);
}

void weft__stream_close_own(unsigned gen)
{
	struct weft__thr *t = tls;
	if (t && t->gen == gen && !t->busy)
		close_packet(t);
}

void weft__stream_forget(void)
{
	tls = NULL;
}

/* First event of an OS thread in generation `gen`: take a stream slot
 * (and, started from the environment, make the ring if no event did). */
static struct weft__thr *attach(unsigned gen)
{
	if (!gen)
		return NULL;
	/* Pairs with the release store of g.state in weft_start() and
	 * weft__ring_from_env(): the ring's state is visible before this
	 * thread uses it. */
	if (__atomic_load_n(&g.state, __ATOMIC_ACQUIRE) != RING_READY &&
	    !weft__ring_from_env())
		return NULL;
	struct weft__fhdr *h = g.hdr;
	uint32_t idx = __atomic_fetch_add(&h->nstreams, 1, __ATOMIC_RELAXED);
	if (idx >= h->streams_cap) {
		__atomic_store_n(&h->nstreams, h->streams_cap,
				 __ATOMIC_RELAXED);
		__atomic_fetch_add(&h->lost_no_stream, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	struct weft__thr *t = &g.thrs[idx];
	memset(t, 0, sizeof *t);
	t->gen = gen;
	t->stream = idx;
	t->fs = (struct weft__fstream *)(void *)(g.base + h->streams_off) + idx;
	/* Events a signal handler recorded while this thread made the
	 * ring: dropped, counted now. */
	t->nested = weft__early_nested;
	t->fs->dropped_nested = weft__early_nested;
	weft__early_nested = 0;
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

static inline struct weft__thr *enter(void)
{
	struct weft__thr *t = tls;
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
		/* The packet ends after the interrupted event (below). */
		t->close_pending = 1;
		return NULL;
	}
	t->busy = 1;
	/* Keep the event's stores after the flag, as seen by a signal
	 * handler on this thread. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	/* A signal handler's event was dropped since this stream's last
	 * event: its packet takes no more (open_packet() says why), so this
	 * event goes after the loss.  (Checked here, with busy set, and not
	 * when the interrupted event leaves: a handler coming between that
	 * check and the end of its event would record before the mark.) */
	if (__builtin_expect(t->close_pending, 0)) {
		t->close_pending = 0;
		if (t->pk)
			t->end = t->pos;
	}
	return t;
}

static inline void leave(struct weft__thr *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
}

/* Reserves room for an event of `payload` bytes and writes its header;
 * returns where the payload goes, or NULL (dropped and counted). */
static inline uint8_t *ev_open(struct weft__thr *t, unsigned id, size_t payload)
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

static inline void ev_commit(struct weft__thr *t, uint8_t *end)
{
	t->pos = end;
	/* The commit.  Pairs with the reader's acquire load of
	 * content_size: the event's bytes are visible before the size that
	 * covers them. */
	__atomic_store_n(pk64(t->pk, WEFT_PK_CONTENT),
			 (uint64_t)(end - t->pk) * 8, __ATOMIC_RELEASE);
}

static inline uint16_t intern_q(struct weft__thr *t, const char *s, int quiet)
{
	if (!s)
		return 0;
	/* Two ways per set: the name just used goes first, the one it
	 * displaces second (a kind and a label that hash alike would
	 * otherwise evict each other at every event). */
	_Static_assert(WEFT__NAME_CACHE == 2 << 5, "the hash below takes 5 "
						   "bits");
	unsigned i =
		(unsigned)(((uintptr_t)s * 0x9E3779B97F4A7C15ull) >> 59) * 2;
	if (__builtin_expect(t->nc[i].p == s, 1))
		return (uint16_t)t->nc[i].id;
	if (t->nc[i + 1].p == s)
		return (uint16_t)t->nc[i + 1].id;
	uint32_t id = weft__intern_slow(t, s, quiet);
	t->nc[i + 1] = t->nc[i];
	t->nc[i].p = s;
	t->nc[i].id = id;
	return (uint16_t)id;
}

static inline uint16_t intern(struct weft__thr *t, const char *s)
{
	return intern_q(t, s, 0);
}

/* ------------------------------------------------------ the fast path */

/* Most events need none of the hot path's rarer branches: the calling OS
 * thread's stream is of the generation tracing, no event of it is under
 * way, no loss is to be marked, the clock is the TSC, the packet has room
 * and the last event is within the compact header's reach, and a name is
 * in the name cache.  Each encoder tries that path first, inline and as
 * a leaf (its caller's registers stay where they are: no frame, no
 * saves), and otherwise calls its general form (enter(), ev_open()), which
 * does the same and more.  An event written either way is the same
 * bytes. */

/* The stream of the calling OS thread is free for an event: set busy, as
 * enter() does, or 0 (nothing changed). */
static inline __attribute__((always_inline)) int fast_enter(struct weft__thr *t)
{
	if (__builtin_expect(
		    !t ||
			    t->gen != __atomic_load_n(&weft__on,
						      __ATOMIC_RELAXED) ||
			    t->busy || t->close_pending,
		    0))
		return 0;
	t->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return 1;
}

/* ev_open() for an event that takes none of its rare branches: its
 * header written, where its payload goes; NULL (nothing changed, busy
 * still set: leave() it) when it would take one. */
static inline __attribute__((always_inline)) uint8_t *
fast_open(struct weft__thr *t, unsigned id, size_t payload)
{
	uint64_t now;
	if (t->burst == 2) {
		now = t->last;
	} else {
#if defined(__x86_64__) || defined(__i386__)
		if (__builtin_expect(weft__clock_kind != WEFT_CLOCK_TSC, 0))
			return NULL;
		now = __builtin_ia32_rdtsc();
#else
		return NULL;
#endif
		if (now < t->last)
			now = t->last;
	}
	uint8_t *p = t->pos;
	if (__builtin_expect(
		    (size_t)(t->end - p) < payload + WEFT_EH_EXT_SIZE ||
			    now - t->last >= (1u << WEFT_EH_COMPACT_BITS),
		    0))
		return NULL;
	if (t->burst)
		t->burst = 2; /* (1: the burst's first event, its time) */
	st32(p, (uint32_t)(now << 5) | id);
	t->last = now;
	return p + 4;
}

/* intern() when the name is in the cache (or NULL): 1 and its id. */
static inline __attribute__((always_inline)) int
fast_name(struct weft__thr *t, const char *s, uint16_t *out)
{
	if (!s) {
		*out = 0;
		return 1;
	}
	unsigned i =
		(unsigned)(((uintptr_t)s * 0x9E3779B97F4A7C15ull) >> 59) * 2;
	/* (an id of 0 is a name the table had no room for: the general
	 * form records what that means) */
	if (__builtin_expect(t->nc[i].p == s && t->nc[i].id, 1)) {
		*out = (uint16_t)t->nc[i].id;
		return 1;
	}
	if (t->nc[i + 1].p == s && t->nc[i + 1].id) {
		*out = (uint16_t)t->nc[i + 1].id;
		return 1;
	}
	return 0;
}

/* An encoder's fast path: `prep` (a condition, may set the payload's
 * values), then the header and `write` (stores at p), committed; else
 * busy is cleared and `slow` (the general form, a tail call) records
 * the event. */
#define FAST_OR(id, payload, prep, write, slow)                                \
	do {                                                                   \
		struct weft__thr *t = tls;                                     \
		if (fast_enter(t)) {                                           \
			uint8_t *p;                                            \
			if ((prep) && (p = fast_open(t, (id), (payload)))) {   \
				write;                                         \
				ev_commit(t, p + (payload));                   \
				leave(t);                                      \
				return;                                        \
			}                                                      \
			leave(t);                                              \
		}                                                              \
		slow;                                                          \
	} while (0)

/* ------------------------------------------------ encoders, by payload */

/* id: an async thread id. */
static __attribute__((noinline)) void ev_id_slow(unsigned id, uint64_t a)
{
	struct weft__thr *t = enter();
	if (!t)
		return;
	uint8_t *p = ev_open(t, id, 8);
	if (p) {
		st64(p, a);
		ev_commit(t, p + 8);
	}
	leave(t);
}

/* An event whose first id becomes the current thread (the table's `cur`
 * column: run, resolve_run, fire): `second`, when n is 16, follows it. */
static __attribute__((noinline)) void
ev_switch_slow(unsigned id, uint64_t thread, uint64_t second, size_t n)
{
	struct weft__thr *t = enter();
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

/* id, id */
static __attribute__((noinline)) void ev_id_id_slow(unsigned id, uint64_t a,
						    uint64_t b)
{
	struct weft__thr *t = enter();
	if (!t)
		return;
	uint8_t *p = ev_open(t, id, 16);
	if (p) {
		st64(p, a);
		st64(p + 8, b);
		ev_commit(t, p + 16);
	}
	leave(t);
}

/* nothing */
static __attribute__((noinline)) void ev_void_slow(unsigned id)
{
	struct weft__thr *t = enter();
	if (!t)
		return;
	uint8_t *p = ev_open(t, id, 0);
	if (p)
		ev_commit(t, p);
	leave(t);
}

/* id, name */
static __attribute__((noinline)) void ev_id_name_slow(unsigned id, uint64_t a,
						      const char *name)
{
	struct weft__thr *t = enter();
	if (!t)
		return;
	uint16_t k = intern(t, name);
	uint8_t *p = ev_open(t, id, 10);
	if (p) {
		st64(p, a);
		st16(p + 8, k);
		ev_commit(t, p + 10);
	}
	leave(t);
}

/* name */
static __attribute__((noinline)) void ev_name_slow(unsigned id,
						   const char *name)
{
	struct weft__thr *t = enter();
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

/* name, 64-bit value */
static __attribute__((noinline)) void
ev_name_val_slow(unsigned id, const char *name, uint64_t v)
{
	struct weft__thr *t = enter();
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

/* A text the preloaded shims cut before it came here (src/shim/shim.h):
 * counted in the stream like the texts cut below. */
void weft__count_truncated(void)
{
	struct weft__thr *t = enter();
	if (!t)
		return;
	__atomic_store_n(&t->fs->truncated, t->fs->truncated + 1,
			 __ATOMIC_RELAXED);
	leave(t);
}

/* id, truncated flag, text: a text that does not fit in a packet is cut
 * at a UTF-8 boundary, marked and counted. */
static void ev_text(unsigned id, uint64_t a, const char *text)
{
	struct weft__thr *t = enter();
	if (!t)
		return;
	if (!text)
		text = "";
	size_t len = strnlen(text, (size_t)g.text_cap + 1);
	uint8_t trunc = 0;
	if (len > g.text_cap) {
		len = weft__utf8_cut(text, g.text_cap);
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

/* id, name, name: create_label, the label interned like the kind.  With
 * the name table full (or a label longer than a name may be), the label
 * goes as text in a label event of its own: never lost. */
static __attribute__((noinline)) void ev_create_label_slow(unsigned id,
							   uint64_t child,
							   const char *kind,
							   const char *label)
{
	struct weft__thr *t = enter();
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
	uint8_t *p = ev_open(t, id, 12);
	if (p) {
		st64(p, child);
		st16(p + 8, k);
		st16(p + 10, l);
		ev_commit(t, p + 12);
	}
	leave(t);
}

/* ------------------------------------- encoders: fast path, then general */

static __attribute__((noinline)) void
ev_id_u64_3_slow(unsigned id, uint64_t a, uint64_t b, uint64_t c, uint64_t d);

static inline __attribute__((always_inline)) void ev_id(unsigned id, uint64_t a)
{
	FAST_OR(id, 8, 1, st64(p, a), ev_id_slow(id, a));
}

/* (the current thread changes with the event written) */
static inline __attribute__((always_inline)) void
ev_switch(unsigned id, uint64_t thread, uint64_t second, size_t n)
{
	FAST_OR(
		id, n, 1,
		{
			t->cur = thread;
			st64(p, thread);
			if (n == 16)
				st64(p + 8, second);
		},
		ev_switch_slow(id, thread, second, n));
}

static inline __attribute__((always_inline)) void
ev_id_id(unsigned id, uint64_t a, uint64_t b)
{
	FAST_OR(
		id, 16, 1,
		{
			st64(p, a);
			st64(p + 8, b);
		},
		ev_id_id_slow(id, a, b));
}

static inline __attribute__((always_inline)) void ev_void(unsigned id)
{
	FAST_OR(id, 0, 1, (void)p, ev_void_slow(id));
}

static inline __attribute__((always_inline)) void
ev_id_name(unsigned id, uint64_t a, const char *name)
{
	uint16_t k;
	FAST_OR(
		id, 10, fast_name(t, name, &k),
		{
			st64(p, a);
			st16(p + 8, k);
		},
		ev_id_name_slow(id, a, name));
}

static inline __attribute__((always_inline)) void ev_name(unsigned id,
							  const char *name)
{
	uint16_t n;
	FAST_OR(id, 2, fast_name(t, name, &n), st16(p, n),
		ev_name_slow(id, name));
}

static inline __attribute__((always_inline)) void
ev_name_val(unsigned id, const char *name, uint64_t v)
{
	uint16_t n;
	FAST_OR(
		id, 10, fast_name(t, name, &n),
		{
			st16(p, n);
			st64(p + 2, v);
		},
		ev_name_val_slow(id, name, v));
}

/* (a label that is not a name goes the general way: its fallback) */
static inline __attribute__((always_inline)) void
ev_create_label(unsigned id, uint64_t child, const char *kind,
		const char *label)
{
	uint16_t k, l;
	FAST_OR(
		id, 12,
		label && fast_name(t, kind, &k) && fast_name(t, label, &l),
		{
			st64(p, child);
			st16(p + 8, k);
			st16(p + 10, l);
		},
		ev_create_label_slow(id, child, kind, label));
}

static inline __attribute__((always_inline)) void
ev_id_u64_3(unsigned id, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	FAST_OR(
		id, 32, 1,
		{
			st64(p, a);
			st64(p + 8, b);
			st64(p + 16, c);
			st64(p + 24, d);
		},
		ev_id_u64_3_slow(id, a, b, c, d));
}

/* ---------------------------------------------- one encoder per event */

/* Each event's fixed payload size (a text counts its NUL), from the
 * table: each shape's encoder above writes exactly that many bytes, which
 * the generated functions check at compile time. */
enum {
#define SIZE_ID 8
#define SIZE_NAME 2
#define SIZE_I64 8
#define SIZE_U64 8
#define SIZE_TRUNC 1
#define SIZE_STR 1
#define F(t, n) +SIZE_##t
#define X(E, id, name, cur, doc, fields) PAYLOAD_##E = 0 fields,
	WEFT_EVENT_MAP(X, F)
#undef X
#undef F
};

/* The public function of each event, weft__NAME, by the shape of its
 * payload: the list of its field types, padded with END, names the
 * generator below (ENC_ID_NAME_END_END for create...).  An event whose
 * shape has no generator is a compile error here; one whose encoder does
 * not write the table's size fails a static assertion. */
#define SHAPE(...) SHAPE_(__VA_ARGS__, END, END, END, END)
#define SHAPE_(a, b, c, d, ...) ENC_##a##_##b##_##c##_##d
#define CHECK_SIZE(E, n)                                                       \
	_Static_assert(PAYLOAD_##E == (n), #E ": the encoder writes " #n       \
					      " bytes, the event table says "  \
					      "otherwise")

#define ENC_END_END_END_END(E, name, cur)                                      \
	WEFT_API void weft__##name(void)                                       \
	{                                                                      \
		CHECK_SIZE(E, 0);                                              \
		_Static_assert(!(cur), #E ": no thread to make current");      \
		ev_void(WEFT_EV_##E);                                          \
	}
#define ENC_ID_END_END_END(E, name, cur)                                       \
	WEFT_API void weft__##name(uint64_t a)                                 \
	{                                                                      \
		CHECK_SIZE(E, 8);                                              \
		if (cur)                                                       \
			ev_switch(WEFT_EV_##E, a, 0, 8);                       \
		else                                                           \
			ev_id(WEFT_EV_##E, a);                                 \
	}
#define ENC_ID_ID_END_END(E, name, cur)                                        \
	WEFT_API void weft__##name(uint64_t a, uint64_t b)                     \
	{                                                                      \
		CHECK_SIZE(E, 16);                                             \
		if (cur)                                                       \
			ev_switch(WEFT_EV_##E, a, b, 16);                      \
		else                                                           \
			ev_id_id(WEFT_EV_##E, a, b);                           \
	}
#define ENC_ID_NAME_END_END(E, name, cur)                                      \
	WEFT_API void weft__##name(uint64_t a, const char *n)                  \
	{                                                                      \
		CHECK_SIZE(E, 10);                                             \
		_Static_assert(!(cur), #E ": not an encoder that switches");   \
		ev_id_name(WEFT_EV_##E, a, n);                                 \
	}
#define ENC_NAME_END_END_END(E, name, cur)                                     \
	WEFT_API void weft__##name(const char *n)                              \
	{                                                                      \
		CHECK_SIZE(E, 2);                                              \
		_Static_assert(!(cur), #E ": no thread to make current");      \
		ev_name(WEFT_EV_##E, n);                                       \
	}
#define ENC_NAME_I64_END_END(E, name, cur)                                     \
	WEFT_API void weft__##name(const char *n, int64_t v)                   \
	{                                                                      \
		CHECK_SIZE(E, 10);                                             \
		_Static_assert(!(cur), #E ": no thread to make current");      \
		ev_name_val(WEFT_EV_##E, n, (uint64_t)v);                      \
	}
#define ENC_NAME_U64_END_END(E, name, cur)                                     \
	WEFT_API void weft__##name(const char *n, uint64_t v)                  \
	{                                                                      \
		CHECK_SIZE(E, 10);                                             \
		_Static_assert(!(cur), #E ": no thread to make current");      \
		ev_name_val(WEFT_EV_##E, n, v);                                \
	}
#define ENC_ID_TRUNC_STR_END(E, name, cur)                                     \
	WEFT_API void weft__##name(uint64_t a, const char *text)               \
	{                                                                      \
		CHECK_SIZE(E, 10);                                             \
		_Static_assert(!(cur), #E ": not an encoder that switches");   \
		ev_text(WEFT_EV_##E, a, text);                                 \
	}
#define ENC_ID_NAME_NAME_END(E, name, cur)                                     \
	WEFT_API void weft__##name(uint64_t a, const char *kind,               \
				   const char *label)                          \
	{                                                                      \
		CHECK_SIZE(E, 12);                                             \
		_Static_assert(WEFT_EV_##E == WEFT_EV_CREATE_LABEL,            \
			       #E ": the fallback records create and label");  \
		ev_create_label(WEFT_EV_##E, a, kind, label);                  \
	}

/* id, u64, u64, u64 (sent, received) */
static __attribute__((noinline)) void
ev_id_u64_3_slow(unsigned id, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	struct weft__thr *t = enter();
	if (!t)
		return;
	uint8_t *p = ev_open(t, id, 32);
	if (p) {
		st64(p, a);
		st64(p + 8, b);
		st64(p + 16, c);
		st64(p + 24, d);
		ev_commit(t, p + 32);
	}
	leave(t);
}
#define ENC_ID_U64_U64_U64(E, name, cur)                                       \
	WEFT_API void weft__##name(uint64_t a, uint64_t b, uint64_t c,         \
				   uint64_t d)                                 \
	{                                                                      \
		CHECK_SIZE(E, 32);                                             \
		_Static_assert(!(cur), #E ": not an encoder that switches");   \
		ev_id_u64_3(WEFT_EV_##E, a, b, c, d);                          \
	}

#define F(t, n) t,
#define X(E, id, name, cur, doc, fields) SHAPE(fields END)(E, name, cur)
WEFT_EVENT_MAP(X, F)
#undef X
#undef F

/* ------------------------------------------------- not events */

/* Read by the events of every thread (weft__mono_ticks): relaxed, as a
 * clock read is; an event stamped a little before a store from another
 * thread is stamped as it would be on a real clock. */
WEFT_API void weft__clock_set(uint64_t ns)
{
	__atomic_store_n(&weft__manual_ns, ns, __ATOMIC_RELAXED);
}

/* Bursts: the next event reads the clock, the following ones reuse its
 * time until the end (an event a signal handler records meanwhile gets
 * that time too). */
static __attribute__((noinline)) void burst_begin_slow(void)
{
	struct weft__thr *t = enter();
	if (!t)
		return;
	t->burst = 1;
	leave(t);
}

WEFT_API void weft__burst_begin(void)
{
	/* (one store: no event under way to keep it from, when free) */
	struct weft__thr *t = tls;
	if (__builtin_expect(
		    t &&
			    t->gen == __atomic_load_n(&weft__on,
						      __ATOMIC_RELAXED) &&
			    !t->busy && !t->close_pending,
		    1)) {
		t->burst = 1;
		return;
	}
	burst_begin_slow();
}

/* A burst at this instant: the clock is read now, and its reading (in
 * trace clock ticks) returned, for an integration that measures with it
 * (0 when not recording). */
WEFT_API uint64_t weft__burst_now(void)
{
	struct weft__thr *t = enter();
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
	struct weft__thr *t = tls;
	if (t)
		t->burst = 0;
}

/* The time of the last event this OS thread recorded, in trace clock
 * ticks (0 when none, or not recording). */
WEFT_API uint64_t weft__last_time(void)
{
	struct weft__thr *t = tls;
	return t && t->gen == __atomic_load_n(&weft__on, __ATOMIC_RELAXED)
		       ? t->last
		       : 0;
}

/* For the preloaded shims (src/shim/loop.c, linked into the same
 * library): an idle or resume event, and then weft__last_time(), in one
 * call (a loop's wait measures its busy time with them). */
WEFT__HIDDEN uint64_t weft__idle_at(const char *reason);
WEFT__HIDDEN uint64_t weft__resume_at(void);
static inline uint64_t last_time(void)
{
	struct weft__thr *t = tls;
	return t && t->gen == __atomic_load_n(&weft__on, __ATOMIC_RELAXED)
		       ? t->last
		       : 0;
}
uint64_t weft__idle_at(const char *reason)
{
	ev_name(WEFT_EV_IDLE, reason);
	return last_time();
}
uint64_t weft__resume_at(void)
{
	ev_void(WEFT_EV_RESUME);
	return last_time();
}

WEFT_API uint64_t weft__current(void)
{
	struct weft__thr *t = tls;
	return t && t->gen == __atomic_load_n(&weft__on, __ATOMIC_RELAXED)
		       ? t->cur
		       : 0;
}
