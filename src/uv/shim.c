/* SPDX-License-Identifier: MIT */
/*
 * shim.c - libweft-uv.so: traces an unmodified libuv program, preloaded by
 * `weft record` (LD_PRELOAD).  It interposes libuv's public entry points
 * that take callbacks, records each request and each handle activation as
 * an async thread, and calls the real function with a trampoline in place
 * of the user's callback.  The user's pointers and `data` fields are never
 * touched: what the shim needs lives in a side table keyed by the request
 * or handle address.
 *
 * The model (docs/libuv.md):
 *  - each loop is an async thread that runs while uv_run() runs;
 *  - a request (write, connect, shutdown, udp send, fs, getaddrinfo,
 *    getnameinfo, work, random) is created by whatever was current when it
 *    was submitted (the main program before the loop), resolved or failed
 *    (with the libuv error name) by the loop when its result arrives, and
 *    runs while its callback runs;
 *  - a handle activation (timer firing, read, connection, async wake-up,
 *    poll, signal, process exit) is created when it is armed (or, when it
 *    repeats, by the previous activation) and resolved when it fires; a
 *    stop or close cancels it; uv_async_send() from any OS thread is a
 *    signal arrow into the pending activation;
 *  - closing a handle is a request too;
 *  - threadpool work runs on the worker OS thread: the gap between its
 *    creation and its run there is its queue wait;
 *  - the time the loop sits in epoll is an idle period ("poll");
 *  - counters: uv.active_handles, uv.active_requests, uv.loop_busy_us (how
 *    long the loop was away from poll in its last iteration).
 *
 * The shim never changes what the program does: every call is forwarded
 * with the same arguments (a NULL callback of a call that has a
 * synchronous form stays NULL), errno is preserved around the recording,
 * nothing is read from a request after its callback (which may free it).
 */
#define _GNU_SOURCE
#define WEFT_ENABLE 1
#include <arpa/inet.h>
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <time.h>
#include <uv.h>

#include "weft/weft.h"

#define ON() __atomic_load_n(&weft__on, __ATOMIC_RELAXED)

/* The real function behind an interposed one. */
#define REAL(name)                                                             \
	static __typeof__(name) *real_##name;                                  \
	if (!real_##name)                                                      \
		real_##name = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

/* libuv calls its own public functions (uv_write calls uv_write2, fs-poll
 * starts timers...).  Inside a wrapper, such calls go straight through:
 * the outer wrapper records the operation once. */
static __thread int inside;
static void leave_inside(int *unused)
{
	(void)unused;
	inside--;
}
/* Marks the rest of the wrapper (until it returns) as inside. */
#define SCOPE_INSIDE()                                                         \
	inside++;                                                              \
	int inside_guard__ __attribute__((cleanup(leave_inside), unused)) = 0

/* libuv also calls its public functions from its own internals that are
 * not wrappers of ours (uv__run_timers stops and re-arms timers, loop
 * init creates an async handle...).  Those calls are part of what the
 * traced call already means: they go straight through.  They are told by
 * their return address lying in libuv's code. */
static uintptr_t uv_lo[8], uv_hi[8];
static int uv_nranges, uv_scanned;
static pthread_once_t libuv_once = PTHREAD_ONCE_INIT;

static int find_libuv(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	if (!info->dlpi_name || !strstr(info->dlpi_name, "libuv"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && uv_nranges < 8; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uv_lo[uv_nranges] = info->dlpi_addr + ph->p_vaddr;
		uv_hi[uv_nranges] = uv_lo[uv_nranges] + ph->p_memsz;
		uv_nranges++;
	}
	return 1;
}

static void scan_libuv(void)
{
	dl_iterate_phdr(find_libuv, NULL);
	__atomic_store_n(&uv_scanned, 1, __ATOMIC_RELEASE);
}

static int from_libuv(const void *ret)
{
	/* Pairs with the release store in scan_libuv(). */
	if (__builtin_expect(!__atomic_load_n(&uv_scanned, __ATOMIC_ACQUIRE),
			     0))
		pthread_once(&libuv_once, scan_libuv);
	uintptr_t a = (uintptr_t)ret;
	for (int i = 0; i < uv_nranges; i++)
		if (a >= uv_lo[i] && a < uv_hi[i])
			return 1;
	return 0;
}

#define INTERNAL() (inside || from_libuv(__builtin_return_address(0)))

/* ------------------------------------------------------------ side table */

enum role {
	R_REQ = 1,
	R_LOOP,
	R_TIMER,
	R_READ,
	R_LISTEN,
	R_ASYNC,
	R_POLL,
	R_SIGNAL,
	R_PROCESS,
	R_CLOSE,
	R_UDP_RECV,
	R_IDLE,
	R_PREPARE,
	R_CHECK,
};

struct ent {
	const void *key;
	int role;
	uint64_t id;    /* the async thread; 0: none pending */
	void (*cb)(void);  /* the user's callback */
	void (*cb2)(void); /* work: the after-work callback */
	uv_loop_t *loop;
	uint64_t timer_repeat;
	const char *label; /* a handle's activations: their label, kept */
};

#define TABLE_BITS 16
#define TABLE_SIZE (1u << TABLE_BITS)
static struct ent table[TABLE_SIZE];
static unsigned table_used;
/* A spinlock: the table is held for well under a microsecond, and a
 * pthread mutex costs more than the work it protects here. */
static int table_lock;

static void lock_table(void)
{
	while (__atomic_exchange_n(&table_lock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&table_lock, __ATOMIC_RELAXED))
			sched_yield();
}

static int trylock_table(void)
{
	return !__atomic_exchange_n(&table_lock, 1, __ATOMIC_ACQUIRE);
}

static void unlock_table(void)
{
	/* Pairs with the acquire exchange in lock_table/trylock_table. */
	__atomic_store_n(&table_lock, 0, __ATOMIC_RELEASE);
}

static unsigned slot_of(const void *key, int role)
{
	uint64_t h = ((uint64_t)(uintptr_t)key ^ (uint64_t)role) *
		     0x9E3779B97F4A7C15ull;
	return (unsigned)(h >> (64 - TABLE_BITS));
}

/* Finds (key, role); with `create`, makes the entry if it is missing.
 * Called with table_lock held.  NULL if absent (or the table is full: the
 * activity then goes untraced rather than mis-traced). */
static struct ent *find(const void *key, int role, int create)
{
	unsigned i = slot_of(key, role), tomb = TABLE_SIZE;
	for (unsigned n = 0; n < TABLE_SIZE; n++, i = (i + 1) & (TABLE_SIZE - 1)) {
		struct ent *e = &table[i];
		if (e->key == key && e->role == role)
			return e;
		if (!e->key) {
			if (!e->role) {
				if (!create)
					return NULL;
				if (tomb != TABLE_SIZE)
					e = &table[tomb];
				else if (table_used + 1 >= TABLE_SIZE * 3 / 4)
					return NULL;
				else
					table_used++;
				memset(e, 0, sizeof *e);
				e->key = key;
				e->role = role;
				return e;
			}
			if (tomb == TABLE_SIZE)
				tomb = i; /* a removed entry: reusable */
		}
	}
	return NULL;
}

static void drop(struct ent *e)
{
	e->key = NULL;
	e->role = -1; /* a tombstone keeps probe chains intact */
}

static int put_labelled(const void *key, int role, uint64_t id,
			void (*cb)(void), void (*cb2)(void), uv_loop_t *loop,
			const char *label)
{
	lock_table();
	struct ent *e = find(key, role, 1);
	if (e) {
		e->id = id;
		e->cb = cb;
		e->cb2 = cb2;
		e->loop = loop;
		e->label = label;
	}
	unlock_table();
	return e != NULL;
}

static int put(const void *key, int role, uint64_t id, void (*cb)(void),
	       void (*cb2)(void), uv_loop_t *loop)
{
	return put_labelled(key, role, id, cb, cb2, loop, NULL);
}

/* Copies the entry out; with `remove`, deletes it. */
static int get(const void *key, int role, struct ent *out, int remove)
{
	lock_table();
	struct ent *e = find(key, role, 0);
	if (e) {
		*out = *e;
		if (remove)
			drop(e);
	}
	unlock_table();
	return e != NULL;
}

static void set_id(const void *key, int role, uint64_t id)
{
	lock_table();
	struct ent *e = find(key, role, 0);
	if (e)
		e->id = id;
	unlock_table();
}

/* Requests submitted on the OS thread that runs their loop, inside its
 * uv_run(), complete on that thread (libuv calls a request's callback on
 * its loop's thread): the thread keeps them in a table of its own, with no
 * lock — a write and its completion then take no locked instruction.  When
 * uv_run() returns they move to the shared table (the loop may run on
 * another thread next).  Threadpool work, which a worker thread looks up,
 * always goes to the shared table. */
#define MINE_SIZE 256 /* a power of two */
#define MINE_TOMB ((const void *)1)
struct mine {
	const void *key; /* NULL: never used; MINE_TOMB: removed */
	uint64_t id;
	void (*cb)(void);
	uv_loop_t *loop;
};
static __thread struct mine *mine; /* MINE_SIZE entries, made on first use */
static __thread unsigned mine_used, mine_live; /* used: live + removed */
static __thread uv_loop_t *mine_loop; /* the loop in uv_run() here */

static unsigned mine_slot(const void *key)
{
	return (unsigned)(((uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull) >>
			  56) &
	       (MINE_SIZE - 1);
}

static void mine_reset(void)
{
	memset(mine, 0, MINE_SIZE * sizeof *mine);
	mine_used = mine_live = 0;
}

/* 0 if the request is not for this thread's table (or it is full). */
static int mine_put(const void *key, uint64_t id, void (*cb)(void),
		    uv_loop_t *loop)
{
	if (loop != mine_loop || !loop)
		return 0;
	if (!mine) {
		void *p = mmap(NULL, MINE_SIZE * sizeof *mine,
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 0;
		mine = p;
	}
	if (!mine_live && mine_used > MINE_SIZE / 2)
		mine_reset(); /* only removed entries: start afresh */
	/* The first free slot of the probe: a request cannot be submitted
	 * again before its callback took its entry, so there is no older
	 * entry of the same address further on to look for. */
	struct mine *slot = NULL;
	unsigned i = mine_slot(key);
	for (unsigned n = 0; n < MINE_SIZE; n++, i = (i + 1) & (MINE_SIZE - 1)) {
		struct mine *m = &mine[i];
		if (m->key == MINE_TOMB) {
			slot = m;
			break;
		}
		if (!m->key) {
			if (mine_used + 1 > MINE_SIZE * 3 / 4)
				return 0;
			mine_used++;
			slot = m;
			break;
		}
	}
	if (!slot)
		return 0;
	slot->key = key;
	slot->id = id;
	slot->cb = cb;
	slot->loop = loop;
	mine_live++;
	return 1;
}

/* Takes (removes) the entry of `key` into *out; 0 if absent. */
static int mine_take(const void *key, struct ent *out)
{
	if (!mine_live)
		return 0;
	unsigned i = mine_slot(key);
	for (unsigned n = 0; n < MINE_SIZE; n++, i = (i + 1) & (MINE_SIZE - 1)) {
		struct mine *m = &mine[i];
		if (m->key == key) {
			memset(out, 0, sizeof *out);
			out->key = key;
			out->role = R_REQ;
			out->id = m->id;
			out->cb = m->cb;
			out->loop = m->loop;
			m->key = MINE_TOMB;
			mine_live--;
			return 1;
		}
		if (!m->key)
			return 0;
	}
	return 0;
}

/* uv_run() returns: what is still pending moves to the shared table. */
static void mine_flush(void)
{
	if (!mine || !mine_used)
		return;
	for (unsigned i = 0; i < MINE_SIZE && mine_live; i++) {
		struct mine *m = &mine[i];
		if (m->key && m->key != MINE_TOMB) {
			put(m->key, R_REQ, m->id, m->cb, NULL, m->loop);
			mine_live--;
		}
	}
	mine_reset();
}

/* ------------------------------------------------------------ helpers */

/* Ids of the shim: a counter in a range of its own (bit 62), so they do
 * not meet the small ids hand instrumentation tends to use. */
static uint64_t next_id_counter;
/* Each OS thread takes them in blocks: one atomic operation per
 * ID_BLOCK ids, not one per id. */
#define ID_BLOCK 1024
static __thread uint64_t id_next, id_end;
static uint64_t new_id(void)
{
	if (__builtin_expect(id_next == id_end, 0)) {
		id_end = __atomic_add_fetch(&next_id_counter, ID_BLOCK,
					    __ATOMIC_RELAXED) +
			 1;
		id_next = id_end - ID_BLOCK;
	}
	return (1ull << 62) | id_next++;
}

/* The async thread current on this OS thread, as the shim set it. */
static __thread uint64_t cur;

static void set_cur(uint64_t id)
{
	cur = id;
	weft_run(id);
}

/* "on_read" for a callback that dladdr can name, else its address.
 * dladdr walks symbol tables (microseconds): each OS thread caches the
 * names it has looked up. */
#define NAME_CACHE 16
static __thread struct {
	const void *cb;
	char name[64];
} name_cache[NAME_CACHE];

static const char *cb_name(const void *cb)
{
	if (!cb)
		return "(no callback)";
	unsigned i = (unsigned)(((uintptr_t)cb >> 4) % NAME_CACHE);
	if (name_cache[i].cb != cb) {
		Dl_info di;
		if (dladdr(cb, &di) && di.dli_sname)
			snprintf(name_cache[i].name, sizeof name_cache[i].name,
				 "%s", di.dli_sname);
		else
			snprintf(name_cache[i].name, sizeof name_cache[i].name,
				 "%p", cb);
		name_cache[i].cb = cb;
	}
	return name_cache[i].name;
}

/* Labels are built by appending, not by printf: they are made for every
 * request, so they must be cheap. */
struct lb {
	size_t n;
	char s[512];
};
/* Empty: only the length and the terminator (an initializer would clear
 * all 512 bytes, for every request). */
static void lb_init(struct lb *b)
{
	b->n = 0;
	b->s[0] = 0;
}

static void lb_str(struct lb *b, const char *p)
{
	size_t k = strlen(p);
	if (k > sizeof b->s - 1 - b->n)
		k = sizeof b->s - 1 - b->n;
	memcpy(b->s + b->n, p, k);
	b->n += k;
	b->s[b->n] = 0;
}

static void lb_num(struct lb *b, long long v)
{
	char tmp[24];
	int i = sizeof tmp - 1;
	unsigned long long u = v < 0 ? 0 - (unsigned long long)v
				     : (unsigned long long)v;
	tmp[i] = 0;
	do
		tmp[--i] = (char)('0' + u % 10);
	while ((u /= 10) && i > 1);
	if (v < 0)
		tmp[--i] = '-';
	lb_str(b, tmp + i);
}

/* Labels `id` with b's text, then " -> " and the callback's name. */
static void lb_label(uint64_t id, struct lb *b, const void *cb)
{
	lb_str(b, " -> ");
	lb_str(b, cb_name(cb));
	weft_label(id, b->s);
}

/* Label texts that the trace interns by address (weft_create_label: a
 * two-byte name in the event instead of the text) must never change: they
 * are kept here, in chunks that are never freed, 1 MiB in all (the trace's
 * name table is full long before: 64 KiB of strings).  Past that, labels
 * go as text.  WEFT_UV_LABEL_ARENA=BYTES sets the limit (tests). */
#define LABEL_CHUNK 4096
static unsigned long label_arena_total, label_arena_max;
static pthread_once_t arena_once = PTHREAD_ONCE_INIT;
static __thread char *arena_pos, *arena_end;

static void arena_init(void)
{
	const char *e = getenv("WEFT_UV_LABEL_ARENA");
	label_arena_max = e && *e ? strtoul(e, NULL, 0) : 1ul << 20;
}

static const char *arena_copy(const char *text, size_t n)
{
	if ((size_t)(arena_end - arena_pos) < n + 1) {
		pthread_once(&arena_once, arena_init);
		if (n + 1 > LABEL_CHUNK ||
		    __atomic_add_fetch(&label_arena_total, LABEL_CHUNK,
				       __ATOMIC_RELAXED) > label_arena_max)
			return NULL;
		void *p = mmap(NULL, LABEL_CHUNK, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		arena_pos = p;
		arena_end = arena_pos + LABEL_CHUNK;
	}
	char *r = arena_pos;
	memcpy(r, text, n + 1);
	arena_pos += n + 1;
	return r;
}

/* The labels made over and over — each read activation of a stream, each
 * write of the same size on it — are the same text: each OS thread keeps
 * the last few, keyed by what they are made of ("P1 N1 P2 N2 -> cb", a
 * part absent when its P is NULL, a number absent when NO_NUM), so that making
 * one is a comparison, and its text, kept in the arena, is interned once
 * in the trace. */
#define LCACHE 32
#define LWAYS 4
#define NO_NUM LLONG_MIN
static __thread struct {
	const char *p1, *p2; /* string constants: compared by address */
	long long n1, n2;
	const void *cb;
	const char *s; /* in the arena */
} lcache[LCACHE];
/* per set: the way to replace next (round robin) */
static __thread uint8_t lcache_next[LCACHE / LWAYS];

/* Returns the label's text where it never changes, or NULL (the arena is
 * full) with the text in b. */
static const char *cached_label(struct lb *b, const char *p1, long long n1,
				const char *p2, long long n2, const void *cb)
{
	uint64_t k = ((uint64_t)(uintptr_t)p1 ^ (uint64_t)(uintptr_t)cb ^
		      (uint64_t)(uintptr_t)p2) +
		     (uint64_t)n1 * 0x9E3779B97F4A7C15ull +
		     (uint64_t)n2 * 0xC2B2AE3D27D4EB4Full;
	/* Four ways: the slots set .. set + 3.  With two, three labels of
	 * one set (one chance in twenty for the four labels of an echo
	 * server, depending on where things were loaded) evicted each other
	 * on every call. */
	unsigned set = (unsigned)((k ^ (k >> 31)) * 0x9E3779B97F4A7C15ull >> 61) %
		       (LCACHE / LWAYS) * LWAYS;
	for (unsigned i = set; i < set + LWAYS; i++)
		if (lcache[i].p1 == p1 && lcache[i].p2 == p2 &&
		    lcache[i].n1 == n1 && lcache[i].n2 == n2 &&
		    lcache[i].cb == cb && lcache[i].s)
			return lcache[i].s;
	lb_init(b);
	lb_str(b, p1);
	if (n1 != NO_NUM)
		lb_num(b, n1);
	if (p2) {
		lb_str(b, p2);
		if (n2 != NO_NUM)
			lb_num(b, n2);
	}
	lb_str(b, " -> ");
	lb_str(b, cb_name(cb));
	const char *kept = arena_copy(b->s, b->n);
	if (kept) {
		unsigned i = set + lcache_next[set / LWAYS];
		lcache[i].p1 = p1;
		lcache[i].p2 = p2;
		lcache[i].n1 = n1;
		lcache[i].n2 = n2;
		lcache[i].cb = cb;
		lcache[i].s = kept;
		lcache_next[set / LWAYS] =
			(uint8_t)((lcache_next[set / LWAYS] + 1) % LWAYS);
	}
	return kept;
}

/* Creates `id` labelled with what cached_label() returned. */
static void create_labelled(uint64_t id, const char *kind, const char *kept,
			    const struct lb *b)
{
	if (kept) {
		weft_create_label(id, kind, kept);
	} else {
		weft_create(id, kind);
		weft_label(id, b->s);
	}
}

static void label(uint64_t id, const void *cb, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void label(uint64_t id, const void *cb, const char *fmt, ...)
{
	struct lb b;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b.s, sizeof b.s, fmt, ap);
	va_end(ap);
	b.n = n < 0 ? 0 : (size_t)n < sizeof b.s ? (size_t)n : sizeof b.s - 1;
	lb_label(id, &b, cb);
}

/* The loop's own counts, recorded when they change (per OS thread: a loop
 * runs on one). */
static __thread unsigned last_handles = ~0u, last_reqs = ~0u;

static void counters(uv_loop_t *loop)
{
	if (!loop)
		return;
	if (loop->active_handles != last_handles) {
		last_handles = loop->active_handles;
		weft_counter_set("uv.active_handles", (int64_t)last_handles);
	}
	if (loop->active_reqs.count != last_reqs) {
		last_reqs = loop->active_reqs.count;
		weft_counter_set("uv.active_requests", (int64_t)last_reqs);
	}
}

/* The loop resolves or fails what completed. */
static void complete(uint64_t id, long status)
{
	if (status < 0)
		weft_fail(id, uv_err_name((int)status));
	else
		weft_resolve(id);
}

/* ... and its callback starts at once: it becomes current. */
static void deliver(uint64_t id, long status)
{
	cur = id;
	if (status < 0) {
		weft_fail(id, uv_err_name((int)status));
		weft_run(id);
	} else {
		weft_resolve_run(id);
	}
}

/* A stream's descriptor, read where uv_fileno() reads it (the Unix
 * layout of uv_stream_t is libuv 1.x's ABI): -1 when it has none. */
static int stream_fd(const uv_stream_t *s)
{
	return s->io_watcher.fd;
}

static int fd_of(const uv_handle_t *h)
{
	uv_os_fd_t fd = -1;
	if (uv_fileno(h, &fd) < 0)
		return -1;
	return fd;
}

static const char *addr_str(const struct sockaddr *sa, char *buf, size_t cap)
{
	char host[64] = "?";
	int port = 0;
	if (!sa) {
		snprintf(buf, cap, "?");
		return buf;
	}
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
		port = ntohs(in->sin_port);
		snprintf(buf, cap, "%s:%d", host, port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in = (const void *)sa;
		inet_ntop(AF_INET6, &in->sin6_addr, host, sizeof host);
		port = ntohs(in->sin6_port);
		snprintf(buf, cap, "[%s]:%d", host, port);
	} else
		snprintf(buf, cap, "family %d", sa->sa_family);
	return buf;
}

/* ------------------------------------------------------------ phases */

/* The phases of a libuv loop iteration, in its order; a callback runs in
 * one of them.  The trace marks a phase when the callbacks of another
 * begin (weft_phase), and the loop's wait, recorded as idle "poll", is the
 * poll phase: an iteration of an echo server marks one phase (its write
 * callbacks' "pending") on top of its idle and resume. */
enum { PH_NONE, PH_TIMERS, PH_PENDING, PH_IDLE, PH_PREPARE, PH_POLL,
       PH_CHECK, PH_CLOSING };
/* One string per name: the trace interns names by address, and the idle
 * reason "poll" must be the poll phase's name. */
static const char poll_name[] = "poll";
static const char *const phase_names[] = {
	NULL, "timers", "pending", "idle", "prepare", poll_name, "check",
	"closing"};

/* What the trace says of this OS thread's loop: its phase, and whether it
 * has marked one (from then on, an idle period is its poll phase), for
 * the trace of generation phase_gen (a new trace, or a forked child's,
 * starts afresh). */
static __thread int trace_phase, phased;
static __thread unsigned phase_gen;

static int phase_now(void)
{
	unsigned gen = ON();
	if (gen != phase_gen) {
		phase_gen = gen;
		trace_phase = PH_NONE;
		phased = 0;
	}
	return trace_phase;
}

/* Marks phase ph if the trace is not in it (in an open burst, or not). */
static void phase_mark(int ph)
{
	if (phase_now() == ph || !ON())
		return;
	weft_phase(phase_names[ph]);
	trace_phase = ph;
	phased |= ph != PH_NONE;
}

/* The same, with the events that follow at the same instant: returns 1
 * when it began a burst, for the caller to end after them. */
static int phase_begin(int ph)
{
	if (phase_now() == ph || !ON())
		return 0;
	weft_burst_begin();
	phase_mark(ph);
	return 1;
}

/* Whether the loop is dispatching what epoll returned: libuv's poll
 * keeps the returned events in the slot past the last watcher while it
 * calls their callbacks, and clears it after (every Unix backend of
 * libuv 1.x; uv_loop_t's watchers and nwatchers are in its public
 * layout). */
static int in_io(const uv_loop_t *loop)
{
	return loop && loop->watchers &&
	       loop->watchers[loop->nwatchers] != NULL;
}

/* The phase of a completion outside the I/O callbacks: libuv delivers
 * the requests its writes and connects finished in the pending phase,
 * and cancels those of a closing handle in the closing phase. */
static int completion_phase(const uv_loop_t *loop, long status)
{
	if (in_io(loop))
		return PH_POLL;
	return status == UV_ECANCELED ? PH_CLOSING : PH_PENDING;
}

/* The phase of a handle's I/O activation: poll, unless libuv runs it
 * from its pending queue. */
static int io_phase(const uv_loop_t *loop)
{
	return in_io(loop) ? PH_POLL : PH_PENDING;
}

/* Runs `id` around a user callback, then gives back what was current. */
#define RUN_AS(id, call)                                                       \
	do {                                                                   \
		uint64_t prev_ = cur;                                          \
		set_cur(id);                                                   \
		call;                                                          \
		set_cur(prev_);                                                \
	} while (0)

/* The same for the callback of what completed with `status`, in loop
 * phase ph: it resolves (or fails) and runs in one instant. */
#define DELIVER_RUN(id, status, ph, call)                                      \
	do {                                                                   \
		uint64_t prev_ = cur;                                          \
		int burst_ = phase_begin(ph);                                  \
		deliver((id), (status));                                       \
		if (burst_)                                                    \
			weft_burst_end();                                      \
		call;                                                          \
		set_cur(prev_);                                                \
	} while (0)

/* ... and with no callback to run. */
static void complete_in(uint64_t id, long status, int ph)
{
	int burst = phase_begin(ph);
	complete(id, status);
	if (burst)
		weft_burst_end();
}

/* ------------------------------------------------------------ the loop */

static uint64_t loop_id(uv_loop_t *loop)
{
	struct ent e;
	if (get(loop, R_LOOP, &e, 0))
		return e.id;
	uint64_t id = new_id();
	weft_create(id, "uv_loop_t");
	char text[64];
	snprintf(text, sizeof text, "uv loop %p%s", (void *)loop,
		 loop == uv_default_loop() ? " (default)" : "");
	weft_label(id, text);
	put(loop, R_LOOP, id, NULL, NULL, loop);
	return id;
}

int uv_run(uv_loop_t *loop, uv_run_mode mode)
{
	REAL(uv_run);
	if (!ON())
		return real_uv_run(loop, mode);
	uint64_t id = loop_id(loop);
	uint64_t prev = cur;
	uv_loop_t *prev_loop = mine_loop;
	set_cur(id);
	mine_loop = loop;
	int r = real_uv_run(loop, mode);
	int e = errno;
	phase_mark(PH_NONE); /* out of the loop */
	mine_flush();
	mine_loop = prev_loop;
	set_cur(prev);
	errno = e;
	return r;
}

int uv_loop_close(uv_loop_t *loop)
{
	REAL(uv_loop_close);
	int r = real_uv_loop_close(loop);
	struct ent e;
	if (r == 0 && get(loop, R_LOOP, &e, 1) && ON())
		weft_resolve(e.id);
	return r;
}

/* Idle: the time a thread sits in epoll with a timeout. */

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Busy time of an iteration, cheaply: the times of the idle and resume
 * events themselves (weft_last_time()), turned into microseconds with
 * a rate measured once between two waits at least 10 ms apart. */
static __thread uint64_t resumed_at;
static __thread double us_per_tick;
static __thread uint64_t cal_ticks;
static __thread int64_t cal_ns;
static __thread int64_t last_busy = -1;

static void poll_enter(int timeout)
{
	if (!timeout || !ON())
		return;
	weft_idle(poll_name);
	/* A loop that marks phases waits in its poll phase (the trace
	 * reads the idle period so). */
	phase_now();
	if (phased)
		trace_phase = PH_POLL;
	uint64_t now = weft_last_time(); /* the idle event's */
	if (resumed_at && now > resumed_at) {
		double f = us_per_tick;
		if (f == 0) {
			int64_t ns = mono_ns();
			if (!cal_ticks) {
				cal_ticks = now;
				cal_ns = ns;
			} else if (ns - cal_ns > 10000000 && now > cal_ticks) {
				f = (double)(ns - cal_ns) / 1000.0 /
				    (double)(now - cal_ticks);
				us_per_tick = f;
			}
		}
		/* Recorded when it changes, as the loop's counts are: a
		 * counter is a step plot, so a repeated value adds nothing
		 * (and a busy loop repeats it on most iterations). */
		if (f > 0) {
			int64_t us = (int64_t)((double)(now - resumed_at) * f);
			if (us != last_busy) {
				last_busy = us;
				weft_counter_set("uv.loop_busy_us", us);
			}
		}
	}
}

static void poll_leave(int timeout)
{
	if (!timeout || !ON())
		return;
	weft_resume();
	resumed_at = weft_last_time();
}

int epoll_wait(int epfd, struct epoll_event *events, int maxevents,
	       int timeout)
{
	REAL(epoll_wait);
	int e = errno;
	poll_enter(timeout);
	errno = e;
	int r = real_epoll_wait(epfd, events, maxevents, timeout);
	e = errno;
	poll_leave(timeout);
	errno = e;
	return r;
}

int epoll_pwait(int epfd, struct epoll_event *events, int maxevents,
		int timeout, const sigset_t *sigmask)
{
	REAL(epoll_pwait);
	int e = errno;
	poll_enter(timeout);
	errno = e;
	int r = real_epoll_pwait(epfd, events, maxevents, timeout, sigmask);
	e = errno;
	poll_leave(timeout);
	errno = e;
	return r;
}

/* ------------------------------------------------------------ requests */

/* Keeps a submitted request: in this thread's table when it can (see
 * mine_put), else in the shared one. */
static int req_put(const void *req, uint64_t id, void (*cb)(void),
		   void (*cb2)(void), uv_loop_t *loop, int shared)
{
	if (!shared && !cb2 && mine_put(req, id, cb, loop))
		return 1;
	return put(req, R_REQ, id, cb, cb2, loop);
}

/* Takes a completed request's entry, wherever it is. */
static int req_take(const void *req, struct ent *e)
{
	return mine_take(req, e) || get(req, R_REQ, e, 1);
}

/* A request was submitted: create its async thread.  Returns its id, or
 * 0 when not tracing.  `shared`: looked up from other OS threads. */
static uint64_t req_begin_at(const void *req, const char *kind,
			     void (*cb)(void), void (*cb2)(void),
			     uv_loop_t *loop, int shared)
{
	if (!ON())
		return 0;
	uint64_t id = new_id();
	weft_create(id, kind);
	if (!req_put(req, id, cb, cb2, loop, shared))
		return 0;
	return id;
}

static uint64_t req_begin(const void *req, const char *kind, void (*cb)(void),
			  void (*cb2)(void), uv_loop_t *loop)
{
	return req_begin_at(req, kind, cb, cb2, loop, 0);
}

/* The same, labelled with what cached_label() returned. */
static uint64_t req_begin_labelled(const void *req, const char *kind,
				   const char *kept, const struct lb *b,
				   void (*cb)(void), uv_loop_t *loop)
{
	uint64_t id = new_id();
	create_labelled(id, kind, kept, b);
	if (!req_put(req, id, cb, NULL, loop, 0))
		return 0;
	return id;
}

/* The submission failed at once: no callback will come. */
static int req_submitted(const void *req, uint64_t id, int r)
{
	if (id && r < 0) {
		struct ent e;
		req_take(req, &e);
		weft_fail(id, uv_err_name(r));
	}
	return r;
}

/* In a trampoline: the entry of a completed request (removed). */
static int req_end(const void *req, struct ent *e)
{
	int saved = errno;
	if (!req_take(req, e)) {
		errno = saved;
		return 0;
	}
	counters(e->loop);
	errno = saved;
	return 1;
}

#define TRAMP_REQ(type, cbtype, params, args, statusexpr)                      \
	static void tramp_##type params                                        \
	{                                                                      \
		struct ent e;                                                  \
		long status_ = (statusexpr);                                   \
		if (!req_end(req, &e))                                         \
			return;                                                \
		int ph_ = completion_phase(e.loop, status_);                   \
		if (e.cb) {                                                    \
			DELIVER_RUN(e.id, status_, ph_, ((cbtype)e.cb)args);   \
		} else {                                                       \
			complete_in(e.id, status_, ph_);                       \
		}                                                              \
	}

TRAMP_REQ(write, uv_write_cb, (uv_write_t * req, int status), (req, status),
	  status)
TRAMP_REQ(connect, uv_connect_cb, (uv_connect_t * req, int status),
	  (req, status), status)
TRAMP_REQ(shutdown, uv_shutdown_cb, (uv_shutdown_t * req, int status),
	  (req, status), status)
TRAMP_REQ(udp_send, uv_udp_send_cb, (uv_udp_send_t * req, int status),
	  (req, status), status)
TRAMP_REQ(fs, uv_fs_cb, (uv_fs_t * req), (req), (long)req->result)
TRAMP_REQ(getaddrinfo, uv_getaddrinfo_cb,
	  (uv_getaddrinfo_t * req, int status, struct addrinfo *res),
	  (req, status, res), status)
TRAMP_REQ(getnameinfo, uv_getnameinfo_cb,
	  (uv_getnameinfo_t * req, int status, const char *host,
	   const char *service),
	  (req, status, host, service), status)
TRAMP_REQ(random, uv_random_cb,
	  (uv_random_t * req, int status, void *buf, size_t buflen),
	  (req, status, buf, buflen), status)

int uv_write(uv_write_t *req, uv_stream_t *handle, const uv_buf_t bufs[],
	     unsigned int nbufs, uv_write_cb cb)
{
	REAL(uv_write);
	if (INTERNAL())
		return real_uv_write(req, handle, bufs, nbufs, cb);
	SCOPE_INSIDE();
	if (!ON())
		return real_uv_write(req, handle, bufs, nbufs, cb);
	size_t n = 0;
	for (unsigned i = 0; i < nbufs; i++)
		n += bufs[i].len;
	struct lb b;
	const char *kept = cached_label(&b, "write ", (long long)n,
					" bytes to fd ", stream_fd(handle),
					(const void *)cb);
	uint64_t id = req_begin_labelled(req, "uv_write_t", kept, &b,
					 (void (*)(void))cb, handle->loop);
	if (!id)
		return real_uv_write(req, handle, bufs, nbufs, cb);
	/* libuv's uv_write() is uv_write2() with no handle to send: call
	 * that at once, rather than through our uv_write2 below. */
	REAL(uv_write2);
	return req_submitted(req, id,
			     real_uv_write2(req, handle, bufs, nbufs, NULL,
					    tramp_write));
}

int uv_write2(uv_write_t *req, uv_stream_t *handle, const uv_buf_t bufs[],
	      unsigned int nbufs, uv_stream_t *send_handle, uv_write_cb cb)
{
	REAL(uv_write2);
	if (INTERNAL())
		return real_uv_write2(req, handle, bufs, nbufs, send_handle, cb);
	SCOPE_INSIDE();
	uint64_t id = req_begin(req, "uv_write_t", (void (*)(void))cb, NULL,
				handle->loop);
	if (!id)
		return real_uv_write2(req, handle, bufs, nbufs, send_handle,
				      cb);
	label(id, (const void *)cb, "write (with a handle) to fd %d",
	      fd_of((uv_handle_t *)handle));
	return req_submitted(req, id,
			     real_uv_write2(req, handle, bufs, nbufs,
					    send_handle, tramp_write));
}

int uv_tcp_connect(uv_connect_t *req, uv_tcp_t *handle,
		   const struct sockaddr *addr, uv_connect_cb cb)
{
	REAL(uv_tcp_connect);
	if (INTERNAL())
		return real_uv_tcp_connect(req, handle, addr, cb);
	SCOPE_INSIDE();
	uint64_t id = req_begin(req, "uv_connect_t", (void (*)(void))cb, NULL,
				handle->loop);
	if (!id)
		return real_uv_tcp_connect(req, handle, addr, cb);
	char a[96];
	label(id, (const void *)cb, "connect to %s",
	      addr_str(addr, a, sizeof a));
	return req_submitted(req, id,
			     real_uv_tcp_connect(req, handle, addr,
						 tramp_connect));
}

void uv_pipe_connect(uv_connect_t *req, uv_pipe_t *handle, const char *name,
		     uv_connect_cb cb)
{
	REAL(uv_pipe_connect);
	if (INTERNAL())
		{ real_uv_pipe_connect(req, handle, name, cb); return; };
	SCOPE_INSIDE();
	uint64_t id = req_begin(req, "uv_connect_t", (void (*)(void))cb, NULL,
				handle->loop);
	if (!id) {
		real_uv_pipe_connect(req, handle, name, cb);
		return;
	}
	label(id, (const void *)cb, "connect to pipe %s", name ? name : "?");
	real_uv_pipe_connect(req, handle, name, tramp_connect);
}

int uv_shutdown(uv_shutdown_t *req, uv_stream_t *handle, uv_shutdown_cb cb)
{
	REAL(uv_shutdown);
	if (INTERNAL())
		return real_uv_shutdown(req, handle, cb);
	SCOPE_INSIDE();
	uint64_t id = req_begin(req, "uv_shutdown_t", (void (*)(void))cb, NULL,
				handle->loop);
	if (!id)
		return real_uv_shutdown(req, handle, cb);
	label(id, (const void *)cb, "shutdown fd %d",
	      fd_of((uv_handle_t *)handle));
	return req_submitted(req, id,
			     real_uv_shutdown(req, handle, tramp_shutdown));
}

int uv_udp_send(uv_udp_send_t *req, uv_udp_t *handle, const uv_buf_t bufs[],
		unsigned int nbufs, const struct sockaddr *addr,
		uv_udp_send_cb cb)
{
	REAL(uv_udp_send);
	if (INTERNAL())
		return real_uv_udp_send(req, handle, bufs, nbufs, addr, cb);
	SCOPE_INSIDE();
	uint64_t id = req_begin(req, "uv_udp_send_t", (void (*)(void))cb, NULL,
				handle->loop);
	if (!id)
		return real_uv_udp_send(req, handle, bufs, nbufs, addr, cb);
	char a[96];
	label(id, (const void *)cb, "udp send to %s",
	      addr_str(addr, a, sizeof a));
	return req_submitted(req, id,
			     real_uv_udp_send(req, handle, bufs, nbufs, addr,
					      tramp_udp_send));
}

int uv_getaddrinfo(uv_loop_t *loop, uv_getaddrinfo_t *req,
		   uv_getaddrinfo_cb cb, const char *node, const char *service,
		   const struct addrinfo *hints)
{
	REAL(uv_getaddrinfo);
	if (INTERNAL())
		return real_uv_getaddrinfo(loop, req, cb, node, service, hints);
	SCOPE_INSIDE();
	uint64_t id = req_begin(req, "uv_getaddrinfo_t", (void (*)(void))cb,
				NULL, loop);
	if (!id)
		return real_uv_getaddrinfo(loop, req, cb, node, service, hints);
	label(id, (const void *)cb, "getaddrinfo %s %s", node ? node : "",
	      service ? service : "");
	if (!cb) { /* synchronous */
		int r = real_uv_getaddrinfo(loop, req, NULL, node, service,
					    hints);
		struct ent e;
		req_take(req, &e);
		complete(id, r);
		return r;
	}
	return req_submitted(req, id,
			     real_uv_getaddrinfo(loop, req, tramp_getaddrinfo,
						 node, service, hints));
}

int uv_getnameinfo(uv_loop_t *loop, uv_getnameinfo_t *req,
		   uv_getnameinfo_cb cb, const struct sockaddr *addr,
		   int flags)
{
	REAL(uv_getnameinfo);
	if (INTERNAL())
		return real_uv_getnameinfo(loop, req, cb, addr, flags);
	SCOPE_INSIDE();
	uint64_t id = req_begin(req, "uv_getnameinfo_t", (void (*)(void))cb,
				NULL, loop);
	if (!id)
		return real_uv_getnameinfo(loop, req, cb, addr, flags);
	char a[96];
	label(id, (const void *)cb, "getnameinfo %s",
	      addr_str(addr, a, sizeof a));
	if (!cb) {
		int r = real_uv_getnameinfo(loop, req, NULL, addr, flags);
		struct ent e;
		req_take(req, &e);
		complete(id, r);
		return r;
	}
	return req_submitted(req, id,
			     real_uv_getnameinfo(loop, req, tramp_getnameinfo,
						 addr, flags));
}

int uv_random(uv_loop_t *loop, uv_random_t *req, void *buf, size_t buflen,
	      unsigned flags, uv_random_cb cb)
{
	REAL(uv_random);
	if (INTERNAL())
		return real_uv_random(loop, req, buf, buflen, flags, cb);
	SCOPE_INSIDE();
	if (!cb || !ON()) /* synchronous, or not tracing */
		return real_uv_random(loop, req, buf, buflen, flags, cb);
	uint64_t id = req_begin(req, "uv_random_t", (void (*)(void))cb, NULL,
				loop);
	if (!id)
		return real_uv_random(loop, req, buf, buflen, flags, cb);
	label(id, (const void *)cb, "random %zu bytes", buflen);
	return req_submitted(req, id,
			     real_uv_random(loop, req, buf, buflen, flags,
					    tramp_random));
}

/* Threadpool work: it runs on a worker OS thread. */
static void tramp_work(uv_work_t *req)
{
	struct ent e;
	int saved = errno;
	int known = get(req, R_REQ, &e, 0);
	errno = saved;
	if (!known)
		return;
	RUN_AS(e.id, ((uv_work_cb)e.cb)(req));
}

static void tramp_after_work(uv_work_t *req, int status)
{
	struct ent e;
	if (!req_end(req, &e))
		return;
	int ph = completion_phase(e.loop, status);
	if (e.cb2)
		DELIVER_RUN(e.id, status, ph,
			    ((uv_after_work_cb)e.cb2)(req, status));
	else
		complete_in(e.id, status, ph);
}

int uv_queue_work(uv_loop_t *loop, uv_work_t *req, uv_work_cb work_cb,
		  uv_after_work_cb after_work_cb)
{
	REAL(uv_queue_work);
	if (INTERNAL())
		return real_uv_queue_work(loop, req, work_cb, after_work_cb);
	SCOPE_INSIDE();
	if (!work_cb || !ON())
		return real_uv_queue_work(loop, req, work_cb, after_work_cb);
	/* shared: tramp_work looks it up on a worker thread */
	uint64_t id = req_begin_at(req, "uv_work_t", (void (*)(void))work_cb,
				   (void (*)(void))after_work_cb, loop, 1);
	if (!id)
		return real_uv_queue_work(loop, req, work_cb, after_work_cb);
	label(id, (const void *)work_cb, "threadpool work");
	return req_submitted(req, id,
			     real_uv_queue_work(loop, req, tramp_work,
						tramp_after_work));
}

/* File system requests: asynchronous with a callback, synchronous with
 * NULL (then recorded as created and resolved around the call). */
#define FS_PATH_LABEL(path) "%s", (path) ? (path) : "?"

#define FS_WRAP(name, what, params, args, ...)                                 \
	int uv_fs_##name params                                                \
	{                                                                      \
		REAL(uv_fs_##name);                                            \
		if (INTERNAL())                                                \
			return real_uv_fs_##name args;                         \
		SCOPE_INSIDE();                                                \
		uint64_t id = req_begin(req, "uv_fs_t", (void (*)(void))cb,    \
					NULL, loop);                           \
		if (!id)                                                       \
			return real_uv_fs_##name args;                         \
		char text_[600];                                               \
		snprintf(text_, sizeof text_, __VA_ARGS__);                    \
		label(id, (const void *)cb, "%s %s", what, text_);             \
		if (!cb) {                                                     \
			int r_ = real_uv_fs_##name args;                       \
			struct ent e_;                                         \
			req_take(req, &e_);                                    \
			complete(id, r_);                                      \
			return r_;                                             \
		}                                                              \
		uv_fs_cb user_ = cb;                                           \
		cb = tramp_fs;                                                 \
		int r_ = real_uv_fs_##name args;                               \
		cb = user_;                                                    \
		return req_submitted(req, id, r_);                             \
	}

FS_WRAP(open, "open",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, int flags, int mode,
	 uv_fs_cb cb),
	(loop, req, path, flags, mode, cb), FS_PATH_LABEL(path))
FS_WRAP(close, "close", (uv_loop_t * loop, uv_fs_t *req, uv_file file,
			 uv_fs_cb cb),
	(loop, req, file, cb), "fd %d", file)
FS_WRAP(read, "read",
	(uv_loop_t * loop, uv_fs_t *req, uv_file file, const uv_buf_t bufs[],
	 unsigned int nbufs, int64_t offset, uv_fs_cb cb),
	(loop, req, file, bufs, nbufs, offset, cb), "fd %d", file)
FS_WRAP(write, "write",
	(uv_loop_t * loop, uv_fs_t *req, uv_file file, const uv_buf_t bufs[],
	 unsigned int nbufs, int64_t offset, uv_fs_cb cb),
	(loop, req, file, bufs, nbufs, offset, cb), "fd %d", file)
FS_WRAP(unlink, "unlink",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, uv_fs_cb cb),
	(loop, req, path, cb), FS_PATH_LABEL(path))
FS_WRAP(mkdir, "mkdir",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, int mode,
	 uv_fs_cb cb),
	(loop, req, path, mode, cb), FS_PATH_LABEL(path))
FS_WRAP(rmdir, "rmdir",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, uv_fs_cb cb),
	(loop, req, path, cb), FS_PATH_LABEL(path))
FS_WRAP(scandir, "scandir",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, int flags,
	 uv_fs_cb cb),
	(loop, req, path, flags, cb), FS_PATH_LABEL(path))
FS_WRAP(stat, "stat",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, uv_fs_cb cb),
	(loop, req, path, cb), FS_PATH_LABEL(path))
FS_WRAP(lstat, "lstat",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, uv_fs_cb cb),
	(loop, req, path, cb), FS_PATH_LABEL(path))
FS_WRAP(fstat, "fstat", (uv_loop_t * loop, uv_fs_t *req, uv_file file,
			 uv_fs_cb cb),
	(loop, req, file, cb), "fd %d", file)
FS_WRAP(rename, "rename",
	(uv_loop_t * loop, uv_fs_t *req, const char *path,
	 const char *new_path, uv_fs_cb cb),
	(loop, req, path, new_path, cb), "%s to %s", path ? path : "?",
	new_path ? new_path : "?")
FS_WRAP(fsync, "fsync", (uv_loop_t * loop, uv_fs_t *req, uv_file file,
			 uv_fs_cb cb),
	(loop, req, file, cb), "fd %d", file)
FS_WRAP(ftruncate, "ftruncate",
	(uv_loop_t * loop, uv_fs_t *req, uv_file file, int64_t offset,
	 uv_fs_cb cb),
	(loop, req, file, offset, cb), "fd %d", file)
FS_WRAP(access, "access",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, int mode,
	 uv_fs_cb cb),
	(loop, req, path, mode, cb), FS_PATH_LABEL(path))
FS_WRAP(readlink, "readlink",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, uv_fs_cb cb),
	(loop, req, path, cb), FS_PATH_LABEL(path))
FS_WRAP(realpath, "realpath",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, uv_fs_cb cb),
	(loop, req, path, cb), FS_PATH_LABEL(path))
FS_WRAP(copyfile, "copyfile",
	(uv_loop_t * loop, uv_fs_t *req, const char *path,
	 const char *new_path, int flags, uv_fs_cb cb),
	(loop, req, path, new_path, flags, cb), "%s to %s",
	path ? path : "?", new_path ? new_path : "?")
FS_WRAP(chmod, "chmod",
	(uv_loop_t * loop, uv_fs_t *req, const char *path, int mode,
	 uv_fs_cb cb),
	(loop, req, path, mode, cb), FS_PATH_LABEL(path))

/* ------------------------------------------------------------ handles */

/* Arms a handle's next activation, created by the current thread;
 * labelled with what cached_label() returned when b is not NULL (the
 * label is then kept for the activations that follow). */
static uint64_t arm_labelled(const void *h, int role, const char *kind,
			     const char *kept, const struct lb *b,
			     void (*cb)(void), uv_loop_t *loop)
{
	if (!ON())
		return 0;
	struct ent old;
	if (get(h, role, &old, 0) && old.id)
		weft_cancel(old.id); /* re-armed before it fired */
	uint64_t id = new_id();
	if (b)
		create_labelled(id, kind, kept, b);
	else
		weft_create(id, kind);
	return put_labelled(h, role, id, cb, NULL, loop, kept) ? id : 0;
}

static uint64_t arm(const void *h, int role, const char *kind,
		    void (*cb)(void), uv_loop_t *loop)
{
	return arm_labelled(h, role, kind, NULL, NULL, cb, loop);
}

/* Arms a handle's activations labelled "P1 N1 -> cb" (see cached_label;
 * no number when NO_NUM); the label is kept for those that follow. */
static uint64_t arm_named(const void *h, int role, const char *kind,
			  const char *p1, long long n1, void (*cb)(void),
			  uv_loop_t *loop)
{
	struct lb b;
	const char *kept = cached_label(&b, p1, n1, NULL, 0, (const void *)cb);
	return arm_labelled(h, role, kind, kept, &b, cb, loop);
}

/* Disarms: the pending activation is cancelled. */
static void disarm(const void *h, int role)
{
	struct ent e;
	if (get(h, role, &e, 1) && e.id && ON())
		weft_cancel(e.id);
}

/* In a trampoline: the activation fires.  It is resolved (or failed), and
 * the next one takes its place in the table; arm_next() creates that one
 * once the callback's activation runs, so it is created by it, and a stop
 * inside the callback cancels it. */
static int fire(const void *h, int role, struct ent *e, uint64_t *next)
{
	int saved = errno;
	*next = new_id();
	/* One look-up: the activation that fires, and the next in its place. */
	lock_table();
	struct ent *p = find(h, role, 0);
	if (p && p->id) {
		*e = *p;
		p->id = *next;
	}
	unlock_table();
	if (!p || !e->id) {
		errno = saved;
		return 0;
	}
	counters(e->loop);
	errno = saved;
	return 1;
}

/* Runs the user's callback as the activation that fired (resolved, or
 * failed with `status`) in loop phase ph, after creating the next one,
 * labelled with what cached_label() returned in kept and b: one `fire`
 * event when it resolved and the next one's label is its own (kept at arm
 * time). */
#define FIRE_RUN(e, status, next, kind, kept, b, ph, call)                     \
	do {                                                                   \
		uint64_t prev_ = cur;                                          \
		int saved_ = errno;                                            \
		if ((status) >= 0 && (kept) && (kept) == (e).label) {          \
			int burst_ = phase_begin(ph);                          \
			cur = (e).id;                                          \
			weft_fire((e).id, (next));                             \
			if (burst_)                                            \
				weft_burst_end();                              \
		} else { /* one instant: one clock read */                     \
			weft_burst_begin();                                    \
			phase_mark(ph);                                        \
			deliver((e).id, (status));                             \
			create_labelled((next), (kind), (kept), &(b));         \
			weft_burst_end();                                      \
		}                                                              \
		errno = saved_;                                                \
		call;                                                          \
		set_cur(prev_);                                                \
	} while (0)

static void tramp_timer(uv_timer_t *h)
{
	struct ent e;
	int saved = errno;
	if (!get(h, R_TIMER, &e, 0) || !e.id) {
		errno = saved;
		return;
	}
	uint64_t prev = cur;
	weft_burst_begin(); /* until the callback */
	phase_mark(PH_TIMERS);
	counters(e.loop);
	deliver(e.id, 0);
	uint64_t repeat = uv_timer_get_repeat(h);
	if (repeat) {
		/* The next firing, created by this one. */
		uint64_t next = new_id();
		struct lb b;
		const char *kept = cached_label(&b, "timer, repeat ",
						(long long)repeat, " ms", NO_NUM,
						(const void *)e.cb);
		create_labelled(next, "uv_timer_t", kept, &b);
		set_id(h, R_TIMER, next);
	} else
		set_id(h, R_TIMER, 0);
	errno = saved;
	weft_burst_end();
	((uv_timer_cb)e.cb)(h);
	set_cur(prev);
}

int uv_timer_start(uv_timer_t *handle, uv_timer_cb cb, uint64_t timeout,
		   uint64_t repeat)
{
	REAL(uv_timer_start);
	/* libuv re-arms a repeating timer with the callback it holds: ours.
	 * The next activation already exists (tramp_timer made it). */
	if (INTERNAL() || cb == tramp_timer)
		return real_uv_timer_start(handle, cb, timeout, repeat);
	SCOPE_INSIDE();
	uint64_t id = cb ? arm(handle, R_TIMER, "uv_timer_t",
			       (void (*)(void))cb, handle->loop)
			 : 0;
	if (!id)
		return real_uv_timer_start(handle, cb, timeout, repeat);
	if (repeat)
		label(id, (const void *)cb, "timer %llu ms, repeat %llu ms",
		      (unsigned long long)timeout, (unsigned long long)repeat);
	else
		label(id, (const void *)cb, "timer %llu ms",
		      (unsigned long long)timeout);
	int r = real_uv_timer_start(handle, tramp_timer, timeout, repeat);
	if (r < 0)
		disarm(handle, R_TIMER);
	return r;
}

int uv_timer_stop(uv_timer_t *handle)
{
	REAL(uv_timer_stop);
	if (INTERNAL())
		return real_uv_timer_stop(handle);
	SCOPE_INSIDE();
	disarm(handle, R_TIMER);
	return real_uv_timer_stop(handle);
}

static void tramp_read(uv_stream_t *h, ssize_t nread, const uv_buf_t *buf)
{
	struct ent e;
	uint64_t next;
	/* nread == 0 is "nothing this time" (EAGAIN): not an activation. */
	if (nread != 0 && fire(h, R_READ, &e, &next)) {
		struct lb b;
		const char *kept =
			e.label ? e.label
				: cached_label(&b, "read fd ", stream_fd(h),
					       NULL, 0, (const void *)e.cb);
		FIRE_RUN(e, nread < 0 ? (long)nread : 0, next,
			 "uv_stream_t read", kept, b, io_phase(e.loop),
			 ((uv_read_cb)e.cb)(h, nread, buf));
		return;
	}
	if (get(h, R_READ, &e, 0))
		((uv_read_cb)e.cb)(h, nread, buf);
}

int uv_read_start(uv_stream_t *stream, uv_alloc_cb alloc_cb,
		  uv_read_cb read_cb)
{
	REAL(uv_read_start);
	if (INTERNAL() || read_cb == tramp_read)
		return real_uv_read_start(stream, alloc_cb, read_cb);
	SCOPE_INSIDE();
	if (!read_cb || !ON())
		return real_uv_read_start(stream, alloc_cb, read_cb);
	uint64_t id = arm_named(stream, R_READ, "uv_stream_t read", "read fd ",
				stream_fd(stream), (void (*)(void))read_cb,
				stream->loop);
	if (!id)
		return real_uv_read_start(stream, alloc_cb, read_cb);
	int r = real_uv_read_start(stream, alloc_cb, tramp_read);
	if (r < 0)
		disarm(stream, R_READ);
	return r;
}

int uv_read_stop(uv_stream_t *stream)
{
	REAL(uv_read_stop);
	if (INTERNAL())
		return real_uv_read_stop(stream);
	SCOPE_INSIDE();
	disarm(stream, R_READ);
	return real_uv_read_stop(stream);
}

static void tramp_connection(uv_stream_t *server, int status)
{
	struct ent e;
	uint64_t next;
	if (!fire(server, R_LISTEN, &e, &next)) {
		if (get(server, R_LISTEN, &e, 0))
			((uv_connection_cb)e.cb)(server, status);
		return;
	}
	struct lb b;
	const char *kept = e.label ? e.label
				   : cached_label(&b, "connections on fd ",
						  stream_fd(server), NULL, 0,
						  (const void *)e.cb);
	FIRE_RUN(e, status, next, "connection", kept, b, io_phase(e.loop),
		 ((uv_connection_cb)e.cb)(server, status));
}

int uv_listen(uv_stream_t *stream, int backlog, uv_connection_cb cb)
{
	REAL(uv_listen);
	if (INTERNAL() || cb == tramp_connection)
		return real_uv_listen(stream, backlog, cb);
	SCOPE_INSIDE();
	if (!cb || !ON())
		return real_uv_listen(stream, backlog, cb);
	uint64_t id = arm_named(stream, R_LISTEN, "connection",
				"connections on fd ", stream_fd(stream),
				(void (*)(void))cb, stream->loop);
	if (!id)
		return real_uv_listen(stream, backlog, cb);
	int r = real_uv_listen(stream, backlog, tramp_connection);
	if (r < 0)
		disarm(stream, R_LISTEN);
	return r;
}

static void tramp_async(uv_async_t *h)
{
	struct ent e;
	uint64_t next;
	if (!fire(h, R_ASYNC, &e, &next)) {
		if (get(h, R_ASYNC, &e, 0) && e.cb)
			((uv_async_cb)e.cb)(h);
		return;
	}
	struct lb b;
	const char *kept = e.label ? e.label
				   : cached_label(&b, "async wake-up", NO_NUM,
						  NULL, 0, (const void *)e.cb);
	if (e.cb)
		FIRE_RUN(e, 0, next, "uv_async_t", kept, b, io_phase(e.loop),
			 ((uv_async_cb)e.cb)(h));
	else
		FIRE_RUN(e, 0, next, "uv_async_t", kept, b, io_phase(e.loop),
			 (void)0);
}

int uv_async_init(uv_loop_t *loop, uv_async_t *async, uv_async_cb cb)
{
	REAL(uv_async_init);
	if (INTERNAL() || cb == tramp_async)
		return real_uv_async_init(loop, async, cb);
	SCOPE_INSIDE();
	if (!ON())
		return real_uv_async_init(loop, async, cb);
	uint64_t id = arm_named(async, R_ASYNC, "uv_async_t", "async wake-up",
				NO_NUM, (void (*)(void))cb, loop);
	if (!id)
		return real_uv_async_init(loop, async, cb);
	int r = real_uv_async_init(loop, async, tramp_async);
	if (r < 0)
		disarm(async, R_ASYNC);
	return r;
}

/* From any OS thread (and async-signal-safe in libuv): a signal arrow
 * into the pending wake-up; several sends before it runs coalesce into
 * one callback, and show as several arrows into it. */
int uv_async_send(uv_async_t *async)
{
	REAL(uv_async_send);
	if (inside)
		return real_uv_async_send(async);
	if (ON()) {
		int saved = errno;
		struct ent e;
		/* Bounded: never block for long, and never deadlock when
		 * called from a signal handler that interrupted the lock's
		 * holder on this thread (libuv allows that); the table is
		 * only held for a few hundred nanoseconds at a time. */
		int locked = 0;
		for (int tries = 0; tries < 1000 && !locked; tries++) {
			locked = trylock_table();
			if (!locked)
				sched_yield();
		}
		if (locked) {
			struct ent *p = find(async, R_ASYNC, 0);
			e.id = p ? p->id : 0;
			unlock_table();
			if (e.id)
				weft_signal(e.id);
		}
		errno = saved;
	}
	return real_uv_async_send(async);
}

static void tramp_poll(uv_poll_t *h, int status, int events)
{
	struct ent e;
	uint64_t next;
	if (!fire(h, R_POLL, &e, &next)) {
		if (get(h, R_POLL, &e, 0))
			((uv_poll_cb)e.cb)(h, status, events);
		return;
	}
	struct lb b;
	const char *kept = e.label ? e.label
				   : cached_label(&b, "poll fd ",
						  fd_of((uv_handle_t *)h), NULL,
						  0, (const void *)e.cb);
	FIRE_RUN(e, status, next, "uv_poll_t", kept, b, io_phase(e.loop),
		 ((uv_poll_cb)e.cb)(h, status, events));
}

int uv_poll_start(uv_poll_t *handle, int events, uv_poll_cb cb)
{
	REAL(uv_poll_start);
	if (INTERNAL() || cb == tramp_poll)
		return real_uv_poll_start(handle, events, cb);
	SCOPE_INSIDE();
	if (!cb || !ON())
		return real_uv_poll_start(handle, events, cb);
	uint64_t id = arm_named(handle, R_POLL, "uv_poll_t", "poll fd ",
				fd_of((uv_handle_t *)handle), (void (*)(void))cb,
				handle->loop);
	if (!id)
		return real_uv_poll_start(handle, events, cb);
	int r = real_uv_poll_start(handle, events, tramp_poll);
	if (r < 0)
		disarm(handle, R_POLL);
	return r;
}

int uv_poll_stop(uv_poll_t *handle)
{
	REAL(uv_poll_stop);
	if (INTERNAL())
		return real_uv_poll_stop(handle);
	SCOPE_INSIDE();
	disarm(handle, R_POLL);
	return real_uv_poll_stop(handle);
}

static void tramp_signal(uv_signal_t *h, int signum)
{
	struct ent e;
	uint64_t next;
	if (!fire(h, R_SIGNAL, &e, &next)) {
		if (get(h, R_SIGNAL, &e, 0))
			((uv_signal_cb)e.cb)(h, signum);
		return;
	}
	struct lb b;
	const char *kept = e.label ? e.label
				   : cached_label(&b, "signal ", signum, NULL,
						  0, (const void *)e.cb);
	FIRE_RUN(e, 0, next, "uv_signal_t", kept, b, io_phase(e.loop),
		 ((uv_signal_cb)e.cb)(h, signum));
}

int uv_signal_start(uv_signal_t *handle, uv_signal_cb cb, int signum)
{
	REAL(uv_signal_start);
	if (INTERNAL() || cb == tramp_signal)
		return real_uv_signal_start(handle, cb, signum);
	SCOPE_INSIDE();
	if (!cb || !ON())
		return real_uv_signal_start(handle, cb, signum);
	uint64_t id = arm_named(handle, R_SIGNAL, "uv_signal_t", "signal ",
				signum, (void (*)(void))cb, handle->loop);
	if (!id)
		return real_uv_signal_start(handle, cb, signum);
	int r = real_uv_signal_start(handle, tramp_signal, signum);
	if (r < 0)
		disarm(handle, R_SIGNAL);
	return r;
}

int uv_signal_stop(uv_signal_t *handle)
{
	REAL(uv_signal_stop);
	if (INTERNAL())
		return real_uv_signal_stop(handle);
	SCOPE_INSIDE();
	disarm(handle, R_SIGNAL);
	return real_uv_signal_stop(handle);
}

/* UDP receives: each datagram (or error) is an activation; a call with
 * nothing read and no address is libuv saying there is nothing more. */
static void tramp_udp_recv(uv_udp_t *h, ssize_t nread, const uv_buf_t *buf,
			   const struct sockaddr *addr, unsigned flags)
{
	struct ent e;
	uint64_t next;
	if ((nread != 0 || addr) && fire(h, R_UDP_RECV, &e, &next)) {
		struct lb b;
		const char *kept =
			e.label ? e.label
				: cached_label(&b, "udp recv on fd ",
					       fd_of((uv_handle_t *)h), NULL, 0,
					       (const void *)e.cb);
		FIRE_RUN(e, nread < 0 ? (long)nread : 0, next, "uv_udp_t recv",
			 kept, b, io_phase(e.loop),
			 ((uv_udp_recv_cb)e.cb)(h, nread, buf, addr, flags));
		return;
	}
	if (get(h, R_UDP_RECV, &e, 0))
		((uv_udp_recv_cb)e.cb)(h, nread, buf, addr, flags);
}

int uv_udp_recv_start(uv_udp_t *handle, uv_alloc_cb alloc_cb,
		      uv_udp_recv_cb recv_cb)
{
	REAL(uv_udp_recv_start);
	if (INTERNAL() || recv_cb == tramp_udp_recv)
		return real_uv_udp_recv_start(handle, alloc_cb, recv_cb);
	SCOPE_INSIDE();
	if (!recv_cb || !ON())
		return real_uv_udp_recv_start(handle, alloc_cb, recv_cb);
	uint64_t id = arm_named(handle, R_UDP_RECV, "uv_udp_t recv",
				"udp recv on fd ", fd_of((uv_handle_t *)handle),
				(void (*)(void))recv_cb, handle->loop);
	if (!id)
		return real_uv_udp_recv_start(handle, alloc_cb, recv_cb);
	int r = real_uv_udp_recv_start(handle, alloc_cb, tramp_udp_recv);
	if (r < 0)
		disarm(handle, R_UDP_RECV);
	return r;
}

int uv_udp_recv_stop(uv_udp_t *handle)
{
	REAL(uv_udp_recv_stop);
	if (INTERNAL())
		return real_uv_udp_recv_stop(handle);
	SCOPE_INSIDE();
	disarm(handle, R_UDP_RECV);
	return real_uv_udp_recv_stop(handle);
}

/* Idle, prepare and check handles: their callbacks run once an iteration
 * in a phase of their own, each run an activation that re-arms. */
#define LOOP_HANDLE(type, ROLE, PHASE)                                         \
	static void tramp_##type(uv_##type##_t *h)                             \
	{                                                                      \
		struct ent e;                                                  \
		uint64_t next;                                                 \
		if (!fire(h, ROLE, &e, &next)) {                               \
			if (get(h, ROLE, &e, 0))                               \
				((uv_##type##_cb)e.cb)(h);                     \
			return;                                                \
		}                                                              \
		struct lb b;                                                   \
		const char *kept =                                             \
			e.label ? e.label                                      \
				: cached_label(&b, #type, NO_NUM, NULL, 0,     \
					       (const void *)e.cb);            \
		FIRE_RUN(e, 0, next, "uv_" #type "_t", kept, b, PHASE,         \
			 ((uv_##type##_cb)e.cb)(h));                           \
	}                                                                      \
                                                                               \
	int uv_##type##_start(uv_##type##_t *h, uv_##type##_cb cb)             \
	{                                                                      \
		REAL(uv_##type##_start);                                       \
		if (INTERNAL() || cb == tramp_##type)                          \
			return real_uv_##type##_start(h, cb);                  \
		SCOPE_INSIDE();                                                \
		if (!cb || !ON() || uv_is_active((uv_handle_t *)h))            \
			return real_uv_##type##_start(h, cb);                  \
		uint64_t id = arm_named(h, ROLE, "uv_" #type "_t", #type,      \
					NO_NUM, (void (*)(void))cb, h->loop);  \
		if (!id)                                                       \
			return real_uv_##type##_start(h, cb);                  \
		int r = real_uv_##type##_start(h, tramp_##type);               \
		if (r < 0)                                                     \
			disarm(h, ROLE);                                       \
		return r;                                                      \
	}                                                                      \
                                                                               \
	int uv_##type##_stop(uv_##type##_t *h)                                 \
	{                                                                      \
		REAL(uv_##type##_stop);                                        \
		if (INTERNAL())                                                \
			return real_uv_##type##_stop(h);                       \
		SCOPE_INSIDE();                                                \
		disarm(h, ROLE);                                               \
		return real_uv_##type##_stop(h);                               \
	}

LOOP_HANDLE(idle, R_IDLE, PH_IDLE)
LOOP_HANDLE(prepare, R_PREPARE, PH_PREPARE)
LOOP_HANDLE(check, R_CHECK, PH_CHECK)

static void tramp_exit(uv_process_t *p, int64_t status, int term_signal)
{
	struct ent e;
	int saved = errno;
	if (!get(p, R_PROCESS, &e, 1) || !e.id) {
		errno = saved;
		if (e.cb)
			((uv_exit_cb)e.cb)(p, status, term_signal);
		return;
	}
	char text[64];
	if (term_signal)
		snprintf(text, sizeof text, "killed by signal %d", term_signal);
	else
		snprintf(text, sizeof text, "exited with status %lld",
			 (long long)status);
	weft_note(e.id, text);
	counters(e.loop);
	errno = saved;
	if (e.cb) {
		DELIVER_RUN(e.id, 0, io_phase(e.loop),
			    ((uv_exit_cb)e.cb)(p, status, term_signal));
	} else {
		complete_in(e.id, 0, io_phase(e.loop));
		errno = saved;
	}
}

int uv_spawn(uv_loop_t *loop, uv_process_t *handle,
	     const uv_process_options_t *options)
{
	REAL(uv_spawn);
	if (INTERNAL())
		return real_uv_spawn(loop, handle, options);
	SCOPE_INSIDE();
	if (!ON())
		return real_uv_spawn(loop, handle, options);
	uint64_t id = arm(handle, R_PROCESS, "uv_process_t",
			  (void (*)(void))options->exit_cb, loop);
	if (!id)
		return real_uv_spawn(loop, handle, options);
	/* Our exit callback in a copy of the options; the caller's stay as
	 * they are. */
	uv_process_options_t o = *options;
	o.exit_cb = tramp_exit;
	int r = real_uv_spawn(loop, handle, &o);
	if (r < 0) {
		struct ent e;
		get(handle, R_PROCESS, &e, 1);
		weft_fail(id, uv_err_name(r));
		return r;
	}
	label(id, (const void *)options->exit_cb, "process %s, pid %d",
	      options->file ? options->file : "?", handle->pid);
	return r;
}

static void tramp_close(uv_handle_t *h)
{
	struct ent e;
	int saved = errno;
	if (!get(h, R_CLOSE, &e, 1)) {
		errno = saved;
		return;
	}
	counters(e.loop);
	errno = saved;
	if (e.cb) {
		DELIVER_RUN(e.id, 0, PH_CLOSING, ((uv_close_cb)e.cb)(h));
	} else {
		complete_in(e.id, 0, PH_CLOSING);
		errno = saved;
	}
}

void uv_close(uv_handle_t *handle, uv_close_cb close_cb)
{
	REAL(uv_close);
	if (INTERNAL())
		{ real_uv_close(handle, close_cb); return; };
	SCOPE_INSIDE();
	/* What the handle had armed will not fire. */
	static const int roles[] = {R_TIMER,   R_READ,	   R_LISTEN, R_ASYNC,
				    R_POLL,    R_SIGNAL,   R_PROCESS, R_UDP_RECV,
				    R_IDLE,    R_PREPARE, R_CHECK};
	for (unsigned i = 0; i < sizeof roles / sizeof *roles; i++)
		disarm(handle, roles[i]);
	if (!ON()) {
		real_uv_close(handle, close_cb);
		return;
	}
	uint64_t id = new_id();
	weft_create(id, "uv_close");
	if (!put(handle, R_CLOSE, id, (void (*)(void))close_cb, NULL,
		 handle->loop)) {
		real_uv_close(handle, close_cb);
		return;
	}
	label(id, (const void *)close_cb, "close %s",
	      uv_handle_type_name(uv_handle_get_type(handle)));
	real_uv_close(handle, tramp_close);
}
