/* SPDX-License-Identifier: MIT */
/*
 * shim.h - what the preloaded loop shims (src/uv/, and the others built on
 * this part) share: interposition, async-thread ids and the current
 * thread, the side table of armed handles and pending requests, labels
 * and their cache, a loop's phases, its wait as idle time, and the runs
 * of callbacks.  Private to the shims.
 *
 * Every name a shim makes non-static begins with weft__shim_: a preloaded
 * library's symbols come first in the process's lookup order, so a short
 * name could take the place of one of the program's own.
 *
 * All of it runs inside someone else's program: it never changes what a
 * call does, preserves errno around what it records, and never reads a
 * request after its callback (which may free it).
 */
#ifndef WEFT_SHIM_H
#define WEFT_SHIM_H

#define WEFT_ENABLE 1
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "common/loops.h"
#include "weft/weft.h"

/* The functions a shim interposes are exported; everything else is
 * hidden (the shims are built with -fvisibility=hidden): WEFT_SHIM_API
 * marks what the common part gives the loop shims, all of them in the
 * one library. */
#define WEFT_SHIM_EXPORT __attribute__((visibility("default")))
#define WEFT_SHIM_API __attribute__((visibility("hidden")))

/* A call that may not return to this frame (exec, _exit), maybe in a
 * vfork child on its parent's stack: in a build with AddressSanitizer,
 * the redzones this child's frames poisoned (exec's copy of the
 * environment, execl's arguments) would stay in the parent's stack after
 * the exec, and the parent's next frames there would be reported (or
 * trip the runtime's own check).  libasan's vfork would clean up after
 * the child, but a program's vfork binds to libc's, before the
 * preload's libasan.  Unpoison the stack as the compiler does before a
 * call that does not return. */
#if defined(__SANITIZE_ADDRESS__)
#define WEFT_SHIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WEFT_SHIM_ASAN 1
#endif
#endif
#ifdef WEFT_SHIM_ASAN
void __asan_handle_no_return(void);
#define LEAVING_STACK() __asan_handle_no_return()
#else
#define LEAVING_STACK() ((void)0)
#endif

/* Whether tracing is on: the trace's generation (a new trace, or a
 * forked child's, is another), 0 when off. */
#define ON() __atomic_load_n(&weft__on, __ATOMIC_RELAXED)

/* Every loop's shim is in the one preloaded library (libweft-preload.so);
 * those `weft record` did not choose stay off: WEFT_LOOPS in the
 * environment ("uv,event,glib"; unset: all) sets these bits when the
 * library loads.  An off loop's wrappers call the real function and do
 * nothing else (its INTERNAL() is true, its ON() false). */
#define X(ID, name, word, kind) SHIM_LOOP_##ID = 1u << WEFT_LOOP_##ID,
enum { WEFT_LOOP_MAP(X) SHIM_LOOP_ALL = (1u << WEFT_LOOP_COUNT) - 1 };
#undef X
WEFT_SHIM_API extern unsigned weft__shim_loops_on;
/* ON() in a loop's shim: the generation, as ON(), when that loop is on,
 * else 0. */
#define LOOP_ON(bit)                                                           \
	((weft__shim_loops_on & (bit))                                         \
		 ? __atomic_load_n(&weft__on, __ATOMIC_RELAXED)                \
		 : 0u)

/* The real function behind an interposed one, or a function of the loop
 * library the shim calls (the shims do not link their loop library: a
 * process that does not use it must not load it).  The next definition
 * after the calling shim in the lookup order; when the library was loaded
 * with dlopen(RTLD_LOCAL) and is not in that order, the one in the
 * library itself (`libs`: its file names, NULL-terminated, or NULL).
 * dlsym(RTLD_NEXT) must be called from the shim's own code: this is a
 * macro. */
#define REAL_IN(name, libs)                                                    \
	static __typeof__(name) *real_##name;                                  \
	if (!real_##name)                                                      \
	real_##name = (__typeof__(name) *)weft__shim_sym(                      \
		dlsym(RTLD_NEXT, #name), #name, (libs))
#ifndef SHIM_LIBS
#define SHIM_LIBS NULL
#endif
#define REAL(name) REAL_IN(name, SHIM_LIBS)
WEFT_SHIM_API void *weft__shim_sym(void *next, const char *name,
				   const char *const *libs);

/* ------------------------------------------------------ interposition */

/* A loop library calls its own public functions (uv_write calls
 * uv_write2, fs-poll starts timers...).  Inside a wrapper such calls go
 * straight through: the outer wrapper records the operation once. */
WEFT_SHIM_API extern __thread int weft__shim_inside;
static inline void weft__shim_leave_inside(int *unused)
{
	(void)unused;
	weft__shim_inside--;
}
/* Marks the rest of the wrapper (until it returns) as inside. */
#define SCOPE_INSIDE()                                                         \
	weft__shim_inside++;                                                   \
	int inside_guard__                                                     \
		__attribute__((cleanup(weft__shim_leave_inside), unused)) = 0

/* A loop library also calls its public functions from internals that are
 * not wrappers of ours (libuv's timers re-arm themselves, loop
 * initialisation creates an async handle...): those calls are part of
 * what the traced call already means and go straight through.  They are
 * told by their return address lying in the library's code. */
struct shim_lib {
	const char *const *names; /* parts of file names: "libuv", NULL */
	int slot;		  /* SHIM_LIB_* */
	uintptr_t lo[8], hi[8];
	int n;
	int scanned; /* release-stored once the ranges are set */
	pthread_once_t once;
};
/* The libraries told apart so: each shim's, and every loop library at
 * once (fdio.c). */
#define X(ID, name, word, kind) SHIM_LIB_##ID = WEFT_LOOP_##ID,
enum { WEFT_LOOP_MAP(X) SHIM_LIB_LOOPS, SHIM_LIBS_N };
#undef X
#define SHIM_LIB(libnames, libslot)                                            \
	{                                                                      \
		.names = (libnames), .slot = (libslot),                        \
		.once = PTHREAD_ONCE_INIT                                      \
	}
WEFT_SHIM_API int weft__shim_from_lib_scan(struct shim_lib *lib,
					   const void *ret);
/* Each OS thread remembers, for each library, the last few return
 * addresses it found outside it (the program's call sites, over and
 * over): a library's ranges never change once scanned, so an address
 * outside stays outside.  Two ways per set (two call sites whose
 * addresses have the same set, as a ping and a pong 0x80 bytes apart,
 * took each other's place at every call): the address just found
 * first.  One word each: a signal handler that interrupts an update on
 * the same OS thread sees the old addresses or the new ones, each of
 * them outside (or inside) as remembered. */
#define SHIM_OUTSIDE 8 /* a power of two: SHIM_OUTSIDE / 2 sets */
WEFT_SHIM_API extern __thread const void
	*weft__shim_outside[SHIM_LIBS_N][SHIM_OUTSIDE];
/* ... and the last few it found inside (the library's own call sites of
 * what the shims wrap: libuv's read() and write() of every stream). */
WEFT_SHIM_API extern __thread const void
	*weft__shim_within[SHIM_LIBS_N][SHIM_OUTSIDE];
/* The first way of ret's set. */
static inline unsigned weft__shim_way(const void *ret)
{
	return (unsigned)(((uintptr_t)ret >> 4) & (SHIM_OUTSIDE / 2 - 1)) * 2;
}
static inline int weft__shim_from_lib(struct shim_lib *lib, const void *ret)
{
	unsigned i = weft__shim_way(ret);
	const void **out = weft__shim_outside[lib->slot];
	if (__builtin_expect(out[i] == ret || out[i + 1] == ret, 1))
		return 0;
	const void **in = weft__shim_within[lib->slot];
	if (in[i] == ret || in[i + 1] == ret)
		return 1;
	return weft__shim_from_lib_scan(lib, ret);
}

/* ------------------------------------------------ ids, current thread */

/* Ids of the shims: a counter in a range of its own (bit 62), so they do
 * not meet the small ids hand instrumentation tends to use.  Each OS
 * thread takes them in blocks: one atomic operation per block. */
WEFT_SHIM_API extern __thread uint64_t weft__shim_id_next, weft__shim_id_end;
WEFT_SHIM_API void weft__shim_id_refill(void);
static inline uint64_t weft__shim_new_id(void)
{
	if (__builtin_expect(weft__shim_id_next == weft__shim_id_end, 0))
		weft__shim_id_refill();
	return (1ull << 62) | weft__shim_id_next++;
}

/* The async thread current on this OS thread, as the shims set it. */
WEFT_SHIM_API extern __thread uint64_t weft__shim_cur;
static inline void weft__shim_set_cur(uint64_t id)
{
	weft__shim_cur = id;
	weft_run(id);
}

/* Calls a user callback: what it calls is the program's, even when a
 * library runs it from inside one of our wrappers (a callback some calls
 * make at once). */
#define USER_CALL(call)                                                        \
	do {                                                                   \
		int inside_ = weft__shim_inside;                               \
		weft__shim_inside = 0;                                         \
		call;                                                          \
		weft__shim_inside = inside_;                                   \
	} while (0)

/* Runs `id` around a callback, then gives back what was current. */
#define RUN_AS(id, call)                                                       \
	do {                                                                   \
		uint64_t prev_ = weft__shim_cur;                               \
		weft__shim_set_cur(id);                                        \
		USER_CALL(call);                                               \
		weft__shim_set_cur(prev_);                                     \
	} while (0)

/* ------------------------------------------------------- side table */

/* What a shim keeps of a request or handle, keyed by (address, role):
 * the user's pointers and data fields are never touched. */
struct shim_ent {
	const void *key;
	int role;	   /* SHIM_ROLE_* of the shim; 0 and -1 are taken */
	uint64_t id;	   /* the async thread; 0: none pending */
	void (*cb)(void);  /* the user's callback */
	void (*cb2)(void); /* a second one (libuv work: the after-work cb) */
	void *loop;
	void *data;	   /* the shim's */
	const char *label; /* a handle's activations: their label, kept */
};
/* Each shim numbers its roles from its base: they share the table. */
#define SHIM_ROLE_UV 1
#define SHIM_ROLE_EVENT 64
#define SHIM_ROLE_GLIB 128

/* Keeps (key, role): its thread, callbacks, loop and label.  0 when the
 * table is full (the activity then goes untraced rather than
 * mis-traced). */
WEFT_SHIM_API int weft__shim_put_labelled(const void *key, int role,
					  uint64_t id, void (*cb)(void),
					  void (*cb2)(void), void *loop,
					  const char *label);
static inline int weft__shim_put(const void *key, int role, uint64_t id,
				 void (*cb)(void), void (*cb2)(void),
				 void *loop)
{
	return weft__shim_put_labelled(key, role, id, cb, cb2, loop, NULL);
}
/* Keeps `data` for (key, role) (the rest of the entry as it was). */
WEFT_SHIM_API int weft__shim_put_data(const void *key, int role, void *data);
/* Copies the entry of (key, role) out; with `remove`, deletes it. */
WEFT_SHIM_API int weft__shim_get(const void *key, int role,
				 struct shim_ent *out, int remove);
/* Sets the pending thread of (key, role), if it is kept. */
WEFT_SHIM_API void weft__shim_set_id(const void *key, int role, uint64_t id);
/* Copies the entry out and puts `next` in its place as its pending
 * thread, in one look-up; 0 when absent or with nothing pending. */
WEFT_SHIM_API int weft__shim_swap_id(const void *key, int role,
				     struct shim_ent *out, uint64_t next);
/* The pending thread of (key, role), without ever blocking for long:
 * for callers that may run in a signal handler which interrupted the
 * table's holder.  0 when absent or the table stayed busy. */
WEFT_SHIM_API uint64_t weft__shim_peek_id(const void *key, int role);

/* Requests submitted on the OS thread that runs their loop complete on
 * that thread (a loop calls a request's callback on its own thread): the
 * thread keeps them in a table of its own, with no lock.  When the loop
 * returns they move to the shared table (it may run on another thread
 * next).  weft__shim_mine_loop is the loop running on this thread. */
WEFT_SHIM_API extern __thread void *weft__shim_mine_loop;
WEFT_SHIM_API int weft__shim_mine_put(const void *key, int role, uint64_t id,
				      void (*cb)(void), void *loop);
/* Takes (removes) the entry of (key, role) into *out. */
WEFT_SHIM_API int weft__shim_mine_take(const void *key, int role,
				       struct shim_ent *out);
/* The loop returns: what is pending moves to the shared table. */
WEFT_SHIM_API void weft__shim_mine_flush(void);

/* ------------------------------------------------------------ labels */

/* Labels are built by appending, not by printf: they are made for every
 * request, so they must be cheap. */
struct shim_lb {
	size_t n;
	char s[512];
};
/* Empty: only the length and the terminator (an initializer would clear
 * all 512 bytes, for every request). */
static inline void weft__shim_lb_init(struct shim_lb *b)
{
	b->n = 0;
	b->s[0] = 0;
}
WEFT_SHIM_API void weft__shim_lb_str(struct shim_lb *b, const char *p);
WEFT_SHIM_API void weft__shim_lb_num(struct shim_lb *b, long long v);

/* "on_read" for a callback that dladdr can name, else its address. */
WEFT_SHIM_API const char *weft__shim_cb_name(const void *cb);

/* Counts a text the shim cut (a callback name longer than its cache, a
 * label longer than its builder) in the calling OS thread's stream, as
 * the recorder counts the texts it cuts: the reader's texts_truncated.
 * In libweft, linked into the same preloaded library (src/record/). */
WEFT_SHIM_API void weft__count_truncated(void);
/* weft_idle(reason) and weft_resume(), each followed by weft_last_time(),
 * in one call (when tracing: the callers check ON()).  In libweft. */
WEFT_SHIM_API uint64_t weft__idle_at(const char *reason);
WEFT_SHIM_API uint64_t weft__resume_at(void);

/* No number in a cached label's part. */
#define NO_NUM LLONG_MIN
/* No callback: a cached label with no " -> name". */
#define SHIM_NO_CB ((const void *)1)
/* The label "P1 N1 P2 N2 -> cb" (a part absent when its P is NULL, a
 * number absent when NO_NUM), from a per-thread cache: its text where it
 * never changes (interned once by the trace), or NULL (the arena is full)
 * with the text in b. */
WEFT_SHIM_API const char *weft__shim_cached_label(struct shim_lb *b,
						  const char *p1, long long n1,
						  const char *p2, long long n2,
						  const void *cb);
/* Creates `id` labelled with what weft__shim_cached_label() returned. */
WEFT_SHIM_API void weft__shim_create_text(uint64_t id, const char *kind,
					  const struct shim_lb *b);
static inline void weft__shim_create_labelled(uint64_t id, const char *kind,
					      const char *kept,
					      const struct shim_lb *b)
{
	if (__builtin_expect(kept != NULL, 1))
		weft_create_label(id, kind, kept);
	else
		weft__shim_create_text(id, kind, b);
}
/* Labels `id` with a printf text, then " -> " and the callback's name. */
WEFT_SHIM_API void weft__shim_label(uint64_t id, const void *cb,
				    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------ phases */

/* A loop iteration's phases.  A phase is a name (a string constant: the
 * trace interns names by address); the trace marks one when the
 * callbacks of another begin (weft_phase), and the loop's wait, recorded
 * as idle "poll", is its poll phase.  NULL: out of any phase. */
WEFT_SHIM_API extern const char
	weft__shim_poll[]; /* "poll": the wait's phase and reason */
/* Marks phase ph if the trace is not in it. */
WEFT_SHIM_API void weft__shim_phase_mark(const char *ph);
/* The same, with the events that follow at the same instant: returns 1
 * when it began a burst, for the caller to end after them.  (The phase the
 * trace is in, for the trace of generation weft__shim_phase_gen: checked
 * here, as most callbacks run in the phase of the one before.) */
WEFT_SHIM_API extern __thread const char *weft__shim_trace_phase;
WEFT_SHIM_API extern __thread unsigned weft__shim_phase_gen;
WEFT_SHIM_API int weft__shim_phase_begin_slow(const char *ph);
static inline int weft__shim_phase_begin(const char *ph)
{
	if (__builtin_expect(weft__shim_trace_phase == ph &&
				     weft__shim_phase_gen == ON(),
			     1))
		return 0;
	return weft__shim_phase_begin_slow(ph);
}

/* A traced loop runs on this OS thread (uv_run, event_base_loop,
 * g_main_context_iteration...): its thread is current, requests it is
 * given may go to this thread's table, and its waits in the kernel
 * (epoll_wait, poll, select... while no callback of it runs) are idle
 * periods "poll" in its poll phase, with how long it was away from the
 * wait before in the counter `busy` (microseconds, recorded when it
 * changes).  Loops nest: each enter has its leave. */
struct shim_loop_frame {
	uint64_t cur, thread;
	void *mine_loop;
	const char *busy;
};
WEFT_SHIM_API void weft__shim_loop_enter(struct shim_loop_frame *f,
					 uint64_t thread, void *mine_loop,
					 const char *busy);
/* Whether the innermost loop running on this OS thread is `thread` (a
 * loop that calls itself, as event_base_dispatch calls event_base_loop
 * by a tail call that hides its return address, is entered once). */
WEFT_SHIM_API int weft__shim_loop_running(uint64_t thread);
/* ... and returns: out of any phase; what is pending in this thread's
 * table goes to the shared one. */
WEFT_SHIM_API void weft__shim_loop_leave(const struct shim_loop_frame *f);

/* ------------------------------------------------------- descriptors */

/* The descriptors of traced handles (a libuv stream, UDP or poll handle,
 * a libevent event, a GLib fd source).  What the program reads and writes
 * on them with plain system calls (read, write, readv, writev, recv*,
 * send*) — not what a loop library does, which its shim records — is
 * recorded as a request of the current thread, created and resolved (or
 * failed with the errno name) around the call.  close() forgets a
 * descriptor; other descriptors cost a bit test. */
WEFT_SHIM_API void weft__shim_fd_watch(int fd);
struct sockaddr;
/* Messages between processes (chan.c): `n` bytes (or a datagram of n,
 * to or from a socket address, or NULL: the connected peer) written by
 * `thread` (0: the current one) / read on `fd`, recorded as sent or
 * received on the channel of fd's direction, with their byte offset.
 * Call after the bytes moved (a request: when it is submitted, since
 * libuv writes requests in order). */
WEFT_SHIM_API void weft__shim_chan_sent(int fd, uint64_t thread, size_t n,
					const struct sockaddr *to);
WEFT_SHIM_API void weft__shim_chan_received(int fd, uint64_t thread, size_t n,
					    const struct sockaddr *from);
/* A write recorded as sent (before its call, to come before its reads)
 * failed: its n bytes were not written. */
WEFT_SHIM_API void weft__shim_chan_unsent(int fd, size_t n);
/* fd is closed: what it was connected to is forgotten. */
WEFT_SHIM_API void weft__shim_chan_forget(int fd);
/* Whether socket fd has a port of its own (bound, or bound by a send). */
WEFT_SHIM_API int weft__shim_bound(int fd);
WEFT_SHIM_API void weft__shim_fd_forget(int fd);

/* -------------------------------------------------------------- runs */

/* The loop resolves `id`, or fails it with `fail` when not NULL. */
static inline void weft__shim_complete(uint64_t id, const char *fail)
{
	if (fail)
		weft_fail(id, fail);
	else
		weft_resolve(id);
}

/* ... and its callback starts at once: it becomes current. */
static inline void weft__shim_deliver(uint64_t id, const char *fail)
{
	weft__shim_cur = id;
	if (fail) {
		weft_fail(id, fail);
		weft_run(id);
	} else {
		weft_resolve_run(id);
	}
}

/* Runs the callback of `id`, which completed (failed with `fail` when
 * not NULL), in loop phase ph: it resolves (or fails) and runs in one
 * instant. */
#define DELIVER_RUN(id, fail, ph, call)                                        \
	do {                                                                   \
		uint64_t prev_ = weft__shim_cur;                               \
		int burst_ = weft__shim_phase_begin(ph);                       \
		weft__shim_deliver((id), (fail));                              \
		if (burst_)                                                    \
			weft_burst_end();                                      \
		USER_CALL(call);                                               \
		weft__shim_set_cur(prev_);                                     \
	} while (0)

/* ... and with no callback to run. */
WEFT_SHIM_API void weft__shim_complete_in(uint64_t id, const char *fail,
					  const char *ph);

/* ------------------------------------------------------------ handles */

/* A handle's activations: each is an async thread, armed (created by the
 * current thread), fired (resolved, the callback runs as it, and the next
 * activation takes its place, created by it) and disarmed (cancelled). */

/* Arms the next activation of (h, role); labelled with what
 * weft__shim_cached_label() returned when b is not NULL (the label is
 * then kept for the activations that follow).  0 when not tracing. */
WEFT_SHIM_API uint64_t weft__shim_arm_labelled(const void *h, int role,
					       const char *kind,
					       const char *kept,
					       const struct shim_lb *b,
					       void (*cb)(void), void *loop);
static inline uint64_t weft__shim_arm(const void *h, int role, const char *kind,
				      void (*cb)(void), void *loop)
{
	return weft__shim_arm_labelled(h, role, kind, NULL, NULL, cb, loop);
}
/* Arms with the label "P1 N1 -> cb" (see weft__shim_cached_label). */
WEFT_SHIM_API uint64_t weft__shim_arm_named(const void *h, int role,
					    const char *kind, const char *p1,
					    long long n1, void (*cb)(void),
					    void *loop);
/* Disarms: the pending activation is cancelled. */
WEFT_SHIM_API void weft__shim_disarm(const void *h, int role);
/* In a trampoline: the activation fires.  Its entry is copied to *e, and
 * the next activation (*next, a new id) takes its place in the table;
 * FIRE_RUN creates it once the firing one runs, so it is created by it,
 * and a stop inside the callback cancels it.  0: nothing was armed. */
WEFT_SHIM_API int weft__shim_fire(const void *h, int role, struct shim_ent *e,
				  uint64_t *next);

/* Runs the user's callback as the activation that fired (resolved, or
 * failed with `fail` when not NULL) in loop phase ph, after creating the
 * next one, labelled with what weft__shim_cached_label() returned in kept
 * and b: one `fire` event when it resolved and the next one's label is
 * its own (kept at arm time). */
#define FIRE_RUN(e, fail, next, kind, kept, b, ph, call)                       \
	do {                                                                   \
		uint64_t prev_ = weft__shim_cur;                               \
		int saved_ = errno;                                            \
		if (!(fail) && (kept) && (kept) == (e).label) {                \
			int burst_ = weft__shim_phase_begin(ph);               \
			weft__shim_cur = (e).id;                               \
			weft_fire((e).id, (next));                             \
			if (burst_)                                            \
				weft_burst_end();                              \
		} else { /* one instant: one clock read */                     \
			weft_burst_begin();                                    \
			weft__shim_phase_mark(ph);                             \
			weft__shim_deliver((e).id, (fail));                    \
			weft__shim_create_labelled((next), (kind), (kept),     \
						   &(b));                      \
			weft_burst_end();                                      \
		}                                                              \
		errno = saved_;                                                \
		USER_CALL(call);                                               \
		weft__shim_set_cur(prev_);                                     \
	} while (0)

#endif
