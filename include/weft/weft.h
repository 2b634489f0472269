/* SPDX-License-Identifier: MIT */
/*
 * weft.h - the recording API of weft, a tracer for asynchronous C programs.
 *
 * This is the only header an instrumented program needs.  It describes the
 * program as a web of *async threads* (promises, requests, timers,
 * callbacks, coroutines): which one created which, when each ran, which one
 * read, waited on, resolved, failed or signalled which other.
 *
 * Compiling in and out
 * --------------------
 * Unless WEFT_ENABLE is defined (its value is ignored) before this header is
 * included, every call below expands to an expression that type-checks its
 * arguments with sizeof() and generates no code: no weft symbol is
 * referenced, and the program needs no library at link time.
 *
 * With WEFT_ENABLE, link with libweft (`pkg-config --cflags --libs weft`).
 * Tracing starts with weft_start(), or by itself when the environment sets
 * WEFT_FILE (with WEFT_SIZE, WEFT_MODE and WEFT_CLOCK, checked when the
 * program loads): the ring is then made at the program's first event, so
 * a process that records nothing makes no file (see weft(1)).
 * While tracing is stopped each call costs one relaxed load and one
 * predictable branch.
 *
 * The current async thread
 * ------------------------
 * Every OS thread has a *current* async thread: the one weft_run() last
 * made run there (0, "none", until then).  Interactions are performed by
 * the current async thread: weft_create(child, kind) is "current creates
 * child", weft_resolve(target) is "current resolves target", and so on.
 * That keeps events small and matches how async code works: an async
 * thread acts while it runs.
 *
 * Async thread ids are 64-bit values chosen by the caller (an address is
 * fine).  Id 0 means "no async thread": the OS thread itself.  A create of
 * an id that is still alive starts a new incarnation of that id.
 *
 * Names
 * -----
 * Kinds, idle reasons, counter, span and pause names are *interned*: the
 * trace stores each distinct name once and events carry a small number.
 * They are interned by address, so they must be string constants (or at
 * least never change or be freed while tracing).  NULL means "unnamed".
 *
 * Thread safety
 * -------------
 * Every call may be made from any number of OS threads at once; each OS
 * thread records into a stream of its own, with no lock.  A call made from
 * a signal handler that interrupted a call on the same OS thread is dropped
 * and counted (never corrupts the trace).  After fork() the child stops
 * tracing into the parent's file; if tracing was started from the
 * environment it continues in a file of its own (see weft(1)).
 *
 * Text (labels, notes, failure messages) is copied into the trace.  Text
 * that does not fit in one packet is cut at a UTF-8 boundary and the event
 * is marked truncated.
 */
#ifndef WEFT_WEFT_H
#define WEFT_WEFT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* WEFT_VERSION_MAJOR, _MINOR, _PATCH and _STRING, made from the build's
 * version where weft was built or installed. */
#if defined(__has_include)
#if __has_include("weft/version.h")
#include "weft/version.h"
#endif
#endif

#if defined(__GNUC__)
#define WEFT_API __attribute__((visibility("default")))
#define WEFT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define WEFT_API
#define WEFT_UNLIKELY(x) (x)
#endif

/*
 * Error codes.  Fallible calls return 0 or a negative code: -errno for a
 * failure of the operating system, or one of these (all below -4000, so
 * they never collide with an errno value).
 */
#define WEFT_ERRNO_MAP(X)                                                      \
	X(EINVAL, -4001, "invalid argument")                                   \
	X(EBUSY, -4002, "tracing is already started")                          \
	X(ENOTSTARTED, -4003, "tracing is not started")                        \
	X(ECORRUPT, -4004, "corrupt trace")                                    \
	X(ETRUNC, -4005, "truncated trace")                                    \
	X(EVERSION, -4006, "unsupported trace format version")                 \
	X(ENOTTRACE, -4007, "not a weft trace")                                \
	X(EEMPTY, -4008, "empty input")                                        \
	X(EEOF, -4009, "end of trace")                                         \
	X(ETOOSMALL, -4010, "trace size too small")                            \
	X(ENOSPC, -4011, "no space left for the trace file")                   \
	X(EAGAIN, -4012, "no new events yet")                                  \
	X(ENOTFOUND, -4013, "not found")                                       \
	X(ENOTREG, -4014, "not a regular file (never replaced)")               \
	X(ETOOBIG, -4015, "trace size too large")                              \
	X(ENOTRING, -4016, "exists and is not a weft ring (never replaced)")   \
	X(ELINK, -4017,                                                        \
	  "a symbolic link its caller does not own (never followed)")          \
	X(ESTALE, -4018, "no index that matches the trace (stale or damaged)")

enum weft_error {
#define WEFT__ERR_ENUM(name, val, msg) WEFT_##name = (val),
	WEFT_ERRNO_MAP(WEFT__ERR_ENUM)
#undef WEFT__ERR_ENUM
};

/* Tracing modes (the `flags` of weft_start). */
enum weft_start_flags {
	/* Flight recorder (the default): when the ring is full, the oldest
	 * packets are overwritten; the loss is counted per stream. */
	WEFT_OVERWRITE = 0,
	/* Keep the oldest events: when the ring is full, new events are
	 * dropped and counted. */
	WEFT_DISCARD = 1 << 0,
	/* Use clock_gettime(CLOCK_MONOTONIC) even when the TSC is usable. */
	WEFT_CLOCK_MONOTONIC = 1 << 1,
	/* The program says what time it is, with weft_clock_set(): a
	 * simulation's virtual time, or a test that wants the same trace on
	 * any machine.  Times are nanoseconds from 0 at weft_start(). */
	WEFT_CLOCK_MANUAL = 1 << 2,
};

/* Default ring size when none is given (bytes), and the accepted range:
 * 40 KiB (a header and four packets of 1 KiB) to 1 TiB. */
#define WEFT_DEFAULT_SIZE (16u << 20)
#define WEFT_MIN_SIZE (40u << 10)
#define WEFT_MAX_SIZE ((uint64_t)1 << 40)

/* weft_strerror - a static English message for a code of this header
 * (or a -errno value).  In libweft and libweft-read; unlike the calls
 * below it is a real function even without WEFT_ENABLE. */
WEFT_API const char *weft_strerror(int err);

/* weft_version - "MAJOR.MINOR.PATCH" of the library (meson's project
 * version, as in weft/version.h). */
WEFT_API const char *weft_version(void);

#if defined(WEFT_ENABLE)

/*
 * weft_start - start tracing into the ring file `path`.
 *
 * Creates (or replaces) `path` with mode 0600, reserves `bytes` bytes of
 * disk for it (0 means WEFT_DEFAULT_SIZE; from WEFT_MIN_SIZE to
 * WEFT_MAX_SIZE; a full disk is reported here, never as a SIGBUS later)
 * without writing them, and maps it.  Only the header is written now;
 * each packet's pages come into memory when a stream first uses it.  `flags` is WEFT_OVERWRITE or
 * WEFT_DISCARD, optionally | WEFT_CLOCK_MONOTONIC or WEFT_CLOCK_MANUAL.
 *
 * What is at `path` is replaced only if it is a weft ring (a trace of an
 * earlier run, whose writer is gone).  A symbolic link is followed only if
 * the caller (its effective user) owns it, every link of a chain: then
 * the ring replaces the ring it names (or is created there), and the link
 * stays; a link owned by anyone else (say, planted in /tmp by another
 * user) is WEFT_ELINK.  Anything else that exists is never replaced: a
 * regular file that is not a ring (an empty one too), WEFT_ENOTRING; a
 * device, a FIFO, a socket or a directory, WEFT_ENOTREG.
 *
 * Returns 0, WEFT_EBUSY if tracing is already started (or is set up from
 * the environment), WEFT_ETOOSMALL or WEFT_ETOOBIG, WEFT_ENOTREG,
 * WEFT_ENOTRING, WEFT_ELINK, WEFT_ENOSPC, -EBUSY if another process is
 * writing a ring at `path`, or -errno.
 * Not async-signal-safe; call it from one thread.
 */
WEFT_API int weft_start(const char *path, size_t bytes, unsigned flags);

/*
 * weft_stop - stop tracing.  Every event recorded before it stays in the
 * file, which remains a complete trace; calls made afterwards are one
 * branch each.  Returns 0 or WEFT_ENOTSTARTED.  The mapping is kept (a
 * racing call on another thread may still be finishing an event, in the
 * packet it holds: no packet is opened after the stop).  A ring that never
 * went round is cut to the packet slots it used, so the file is as big as
 * what it holds (docs/format.md, "Giving back what was not used").
 */
WEFT_API int weft_stop(void);

/* Internal: non-zero while tracing.  Read with a relaxed load by the
 * macros below; never write it. */
extern WEFT_API unsigned weft__on;

WEFT_API void weft__create(uint64_t child, const char *kind);
WEFT_API void weft__run(uint64_t thread);
WEFT_API void weft__idle(const char *reason);
WEFT_API void weft__resume(void);
WEFT_API void weft__read(uint64_t source);
WEFT_API void weft__try_read(uint64_t source);
WEFT_API void weft__resolve(uint64_t target);
WEFT_API void weft__fail(uint64_t target, const char *message);
WEFT_API void weft__becomes(uint64_t from, uint64_t to);
WEFT_API void weft__signal(uint64_t receiver);
WEFT_API void weft__cancel(uint64_t target);
WEFT_API void weft__label(uint64_t thread, const char *text);
WEFT_API void weft__should_resolve(uint64_t thread);
WEFT_API void weft__counter_set(const char *counter, int64_t value);
WEFT_API void weft__counter_add(const char *counter, int64_t delta);
WEFT_API void weft__note(uint64_t thread, const char *text);
WEFT_API void weft__span_begin(const char *name);
WEFT_API void weft__span_end(const char *name);
WEFT_API void weft__pause(const char *kind, uint64_t duration_ns);
WEFT_API uint64_t weft__current(void);
WEFT_API uint64_t weft__last_time(void);
WEFT_API void weft__burst_begin(void);
WEFT_API uint64_t weft__burst_now(void);
WEFT_API void weft__burst_end(void);
WEFT_API void weft__resolve_run(uint64_t target);
WEFT_API void weft__fire(uint64_t target, uint64_t next);
WEFT_API void weft__create_label(uint64_t child, const char *kind,
				 const char *label);
WEFT_API void weft__phase(const char *phase);
WEFT_API void weft__clock_set(uint64_t ns);
WEFT_API void weft__sent(uint64_t thread, uint64_t chan, uint64_t offset,
			 uint64_t bytes);
WEFT_API void weft__received(uint64_t thread, uint64_t chan, uint64_t offset,
			     uint64_t bytes);
WEFT_API void weft__spawning(uint64_t thread);
/* For integrations: this thread started child `pid` with no fork (the
 * shims' posix_spawn); in a run, the manifest says who created it. */
WEFT_API void weft__spawned(int pid);
/* For integrations: a child process `pid` ended (exit `status`, or
 * killed by signal `sig` > 0), as its parent learnt (waitpid, libuv's
 * exit callback); in a run, the manifest says so (not an event: works
 * whether or not tracing is on). */
WEFT_API void weft__reaped(int pid, int status, int sig);

#define WEFT__ON() WEFT_UNLIKELY(__atomic_load_n(&weft__on, __ATOMIC_RELAXED))
#define WEFT__CALL(call) (WEFT__ON() ? call : (void)0)
#define weft_current() (WEFT__ON() ? weft__current() : (uint64_t)0)
#define weft_burst_now() (WEFT__ON() ? weft__burst_now() : (uint64_t)0)
#define weft_last_time() (WEFT__ON() ? weft__last_time() : (uint64_t)0)

#else /* !WEFT_ENABLE: every call type-checks its arguments, emits nothing */

/* Declarations used only inside sizeof(): never called, never linked. */
int weft__chk_start(const char *path, size_t bytes, unsigned flags);
int weft__chk_id(uint64_t id);
int weft__chk_id_str(uint64_t id, const char *s);
int weft__chk_id_id(uint64_t a, uint64_t b);
int weft__chk_str(const char *s);
int weft__chk_str_i64(const char *s, int64_t v);
int weft__chk_str_u64(const char *s, uint64_t v);
int weft__chk_void(void);
int weft__chk_id_str_str(uint64_t id, const char *a, const char *b);
int weft__chk_id_u64_3(uint64_t id, uint64_t a, uint64_t b, uint64_t c);

#define weft_start(path, bytes, flags)                                         \
	((void)sizeof(weft__chk_start((path), (bytes), (flags))), 0)
#define weft_stop() ((void)sizeof(weft__chk_void()), 0)
#define WEFT__CALL(call) ((void)sizeof(call))

#define weft__create(c, k) weft__chk_id_str((c), (k))
#define weft__run(t) weft__chk_id((t))
#define weft__idle(r) weft__chk_str((r))
#define weft__resume() weft__chk_void()
#define weft__read(s) weft__chk_id((s))
#define weft__try_read(s) weft__chk_id((s))
#define weft__resolve(t) weft__chk_id((t))
#define weft__fail(t, m) weft__chk_id_str((t), (m))
#define weft__becomes(a, b) weft__chk_id_id((a), (b))
#define weft__signal(r) weft__chk_id((r))
#define weft__cancel(t) weft__chk_id((t))
#define weft__label(t, s) weft__chk_id_str((t), (s))
#define weft__should_resolve(t) weft__chk_id((t))
#define weft__counter_set(c, v) weft__chk_str_i64((c), (v))
#define weft__counter_add(c, v) weft__chk_str_i64((c), (v))
#define weft__note(t, s) weft__chk_id_str((t), (s))
#define weft__span_begin(n) weft__chk_str((n))
#define weft__span_end(n) weft__chk_str((n))
#define weft__pause(k, d) weft__chk_str_u64((k), (d))
#define weft__burst_begin() weft__chk_void()
#define weft__burst_end() weft__chk_void()
#define weft__resolve_run(t) weft__chk_id((t))
#define weft__fire(t, n) weft__chk_id_id((t), (n))
#define weft__create_label(c, k, l) weft__chk_id_str_str((c), (k), (l))
#define weft__phase(p) weft__chk_str((p))
#define weft__clock_set(ns) weft__chk_id((ns))
#define weft__sent(t, c, o, n) weft__chk_id_u64_3((t), (c), (o), (n))
#define weft__received(t, c, o, n) weft__chk_id_u64_3((t), (c), (o), (n))
#define weft__spawning(t) weft__chk_id((t))
#define weft__spawned(p) ((void)sizeof(p))
#define weft__reaped(p, s, g) ((void)sizeof((p) + (s) + (g)))
#define weft_current() ((uint64_t)0)
#define weft_burst_now() ((uint64_t)0)
#define weft_last_time() ((uint64_t)0)

#endif /* WEFT_ENABLE */

/*
 * The events.  Each is a macro: compiled out it vanishes, compiled in and
 * stopped it is one branch, compiled in and started it records one event
 * stamped with the time and the OS thread.  "current" is the async thread
 * running on the calling OS thread (see above).
 */

/* current creates async thread `child`, of kind `kind` (an interned name,
 * e.g. "uv_write_t"; may be NULL).  Creating a live id starts a new
 * incarnation. */
#define weft_create(child, kind) WEFT__CALL(weft__create((child), (kind)))

/* `thread` now runs on this OS thread (it becomes current); 0 = none.
 * A run interval lasts until the next weft_run() or weft_idle() here. */
#define weft_run(thread) WEFT__CALL(weft__run((thread)))

/* This OS thread blocks waiting for work (e.g. in poll), for `reason` (an
 * interned name).  Nothing runs here until weft_resume(). */
#define weft_idle(reason) WEFT__CALL(weft__idle((reason)))

/* This OS thread is back from idle; the current async thread is again the
 * one that was current before weft_idle(). */
#define weft_resume() WEFT__CALL(weft__resume())

/* current read the result of `source` (which had resolved or failed). */
#define weft_read(source) WEFT__CALL(weft__read((source)))

/* current tried to read `source`, which was not ready: current now waits
 * on it. */
#define weft_try_read(source) WEFT__CALL(weft__try_read((source)))

/* current resolved `target` successfully. */
#define weft_resolve(target) WEFT__CALL(weft__resolve((target)))

/* current made `target` fail, with a message (copied; may be NULL). */
#define weft_fail(target, message) WEFT__CALL(weft__fail((target), (message)))

/* Async thread `from` is replaced by `to`: whoever waits on `from` now
 * waits on `to` (promise forwarding). */
#define weft_becomes(from, to) WEFT__CALL(weft__becomes((from), (to)))

/* current woke or sent a message to `receiver` (a condition signal, an
 * async send from another OS thread...). */
#define weft_signal(receiver) WEFT__CALL(weft__signal((receiver)))

/* current cancelled `target`. */
#define weft_cancel(target) WEFT__CALL(weft__cancel((target)))

/* Attach a label to `thread` (copied).  A thread may have several, each at
 * its time; the last one names it. */
#define weft_label(thread, text) WEFT__CALL(weft__label((thread), (text)))

/* Events in one, for integrations that record them at every turn of a
 * loop (each costs about what one event does):
 *
 * weft_resolve_run(target): weft_resolve(target) then weft_run(target) —
 * current resolves `target`, whose continuation (the request's callback)
 * starts at once on this OS thread and becomes current.
 *
 * weft_create_label(child, kind, label): weft_create(child, kind) then
 * weft_label(child, label), with the label interned like `kind`, by its
 * address: pass a string that does not change while tracing (a constant,
 * or one you keep; a stack buffer you reuse would give wrong labels).
 * When the trace's name table is full, the label is recorded as text, as
 * weft_label() does: it is never lost.
 *
 * weft_fire(target, next): a repeating source (a timer, the reads of a
 * stream) fires and re-arms — weft_resolve_run(target), then target
 * creates `next`, of target's kind and with its label. */
#define weft_resolve_run(target) WEFT__CALL(weft__resolve_run((target)))
#define weft_create_label(child, kind, label)                                  \
	WEFT__CALL(weft__create_label((child), (kind), (label)))
#define weft_fire(target, next) WEFT__CALL(weft__fire((target), (next)))

/* The event loop on this OS thread enters phase `phase` (an interned
 * name, e.g. "timers"; NULL: it leaves its phases, e.g. on returning from
 * its run function).  A phase lasts until the next weft_phase() here; on
 * an OS thread that records phases, each weft_idle() begins anew the phase
 * its reason names (a loop waits once an iteration, in its poll phase),
 * which goes on after weft_resume() until the next weft_phase().  Pass
 * the same string as the idle reason and the phase name: names are
 * interned by address.  So a loop that records its wait as
 * weft_idle("poll") marks only the phases where it runs work:
 *     weft_phase("timers"); ...timer callbacks...
 *     weft_idle("poll"); weft_resume(); ...I/O callbacks, phase "poll"...
 *     weft_phase("closing"); ...close callbacks... */
#define weft_phase(phase) WEFT__CALL(weft__phase((phase)))

/* With WEFT_CLOCK_MANUAL: the events recorded from now on, on every OS
 * thread, are stamped `ns` nanoseconds after weft_start() (one relaxed
 * store; a stream's times never go back: an earlier time stamps its
 * events with the stream's last).  With another clock, nothing. */
#define weft_clock_set(ns) WEFT__CALL(weft__clock_set((ns)))

/* Messages between processes (and machines): async thread `thread` (0:
 * the current one) wrote / read `bytes` bytes at byte `offset` of the
 * channel `chan`, a 64-bit identity of one direction of a pipe or socket
 * that both ends compute alike (the loop shims use the pipe's inode, the
 * pair of Unix sockets, or the TCP or UDP addresses and ports); `offset`
 * counts the bytes of that direction from its start, or is
 * WEFT_DATAGRAM for a datagram (matched by order and size).  A reader
 * of several processes' traces draws an arrow from each write to the
 * reads of its bytes, and aligns machines' clocks with them. */
#define WEFT_DATAGRAM UINT64_MAX
#define weft_sent(thread, chan, offset, bytes)                                 \
	WEFT__CALL(weft__sent((thread), (chan), (offset), (bytes)))
#define weft_received(thread, chan, offset, bytes)                             \
	WEFT__CALL(weft__received((thread), (chan), (offset), (bytes)))

/* The processes this OS thread creates (fork) until weft_spawning(0)
 * are `thread`'s, a spawn request: in a run (weft record), a process's
 * own async thread is created by it, and its exit resolves it.  Without
 * it, the async thread current at fork creates the child's. */
#define weft_spawning(thread) WEFT__CALL(weft__spawning((thread)))

/* Hint: `thread` should resolve.  If it never does, readers report it
 * (weft why) and viewers draw it red to the end of the trace. */
#define weft_should_resolve(thread) WEFT__CALL(weft__should_resolve((thread)))

/* Set the counter named `counter` (interned) to `value`. */
#define weft_counter_set(counter, value)                                       \
	WEFT__CALL(weft__counter_set((counter), (value)))

/* Add `delta` (may be negative) to the counter named `counter`. */
#define weft_counter_add(counter, delta)                                       \
	WEFT__CALL(weft__counter_add((counter), (delta)))

/* A free-form note (copied) on `thread` at this time (a log line). */
#define weft_note(thread, text) WEFT__CALL(weft__note((thread), (text)))

/* A named span (interned name) begins / ends on the current async thread.
 * Spans nest. */
#define weft_span_begin(name) WEFT__CALL(weft__span_begin((name)))
#define weft_span_end(name) WEFT__CALL(weft__span_end((name)))

/* weft_current() - the async thread current on this OS thread (0 when none,
 * or when tracing is stopped or compiled out): what an integration
 * restores after running another async thread, e.g.
 *     uint64_t prev = weft_current(); weft_run(t); ...; weft_run(prev); */

/* Events recorded on this OS thread between weft_burst_begin() and
 * weft_burst_end() share one clock reading, taken at the first of them:
 * for an integration that records several events for one instant (an
 * activation resolves, its callback starts, the next activation is
 * created) and would otherwise pay a clock read for each.  Nothing that
 * takes time (user code, a system call) belongs inside.  A burst left
 * open ends at the next weft_burst_end(); bursts do not nest.
 * weft_burst_now() begins one at once and returns its time in trace clock
 * ticks (0 when not recording), for an integration that measures
 * intervals with the same clock read; weft_last_time() returns the time
 * of the last event this OS thread recorded (0 when none or not
 * recording), for one that measures between its own events. */
#define weft_burst_begin() WEFT__CALL(weft__burst_begin())
#define weft_burst_end() WEFT__CALL(weft__burst_end())

/* The runtime itself stopped everything for `duration_ns` nanoseconds,
 * ending now (a GC pause, a stop-the-world); `kind` is an interned name. */
#define weft_pause(kind, duration_ns)                                          \
	WEFT__CALL(weft__pause((kind), (duration_ns)))

#ifdef __cplusplus
}
#endif

#endif /* WEFT_WEFT_H */
