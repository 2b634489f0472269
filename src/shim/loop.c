/* SPDX-License-Identifier: MIT */
/*
 * loop.c - what every traced loop does: async-thread ids, the thread
 * current on each OS thread, the phases of an iteration, and the wait in
 * the kernel as idle time.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>

#include "shim.h"

/* ------------------------------------------------ ids, current thread */

#define ID_BLOCK 1024
static uint64_t next_id_counter;
__thread uint64_t weft__shim_id_next, weft__shim_id_end;
__thread uint64_t weft__shim_cur;

void weft__shim_id_refill(void)
{
	weft__shim_id_end = __atomic_add_fetch(&next_id_counter, ID_BLOCK,
					       __ATOMIC_RELAXED) +
			    1;
	weft__shim_id_next = weft__shim_id_end - ID_BLOCK;
}

/* ------------------------------------------------------------ phases */

const char weft__shim_poll[] = "poll";

/* What the trace says of this OS thread's loop: its phase, and whether it
 * has marked one (from then on, an idle period is its poll phase), for
 * the trace of generation weft__shim_phase_gen (a new trace, or a forked
 * child's, starts afresh). */
__thread const char *weft__shim_trace_phase;
static __thread int phased;
__thread unsigned weft__shim_phase_gen;

static const char *phase_now(void)
{
	unsigned gen = ON();
	if (gen != weft__shim_phase_gen) {
		weft__shim_phase_gen = gen;
		weft__shim_trace_phase = NULL;
		phased = 0;
	}
	return weft__shim_trace_phase;
}

void weft__shim_phase_mark(const char *ph)
{
	if (phase_now() == ph || !ON())
		return;
	weft_phase(ph); /* NULL: name 0, out of any phase */
	weft__shim_trace_phase = ph;
	phased |= ph != NULL;
}

int weft__shim_phase_begin_slow(const char *ph)
{
	/* (weft__shim_phase_mark, with the burst begun before its event) */
	if (phase_now() == ph || !ON())
		return 0;
	weft_burst_begin();
	weft_phase(ph);
	weft__shim_trace_phase = ph;
	phased |= ph != NULL;
	return 1;
}

void weft__shim_complete_in(uint64_t id, const char *fail, const char *ph)
{
	int burst = weft__shim_phase_begin(ph);
	weft__shim_complete(id, fail);
	if (burst)
		weft_burst_end();
}

/* -------------------------------------------------------- the wait */

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The loop running on this OS thread, innermost: its thread and its busy
 * counter. */
static __thread uint64_t weft__shim_loop_thread;
static __thread const char *weft__shim_loop_busy;

/* A wait in the kernel is the loop's when the loop itself waits, not a
 * callback of it. */
static int weft__shim_loop_waits(void)
{
	return weft__shim_loop_thread &&
	       weft__shim_cur == weft__shim_loop_thread;
}

void weft__shim_loop_enter(struct shim_loop_frame *f, uint64_t thread,
			   void *mine_loop, const char *busy)
{
	f->cur = weft__shim_cur;
	f->thread = weft__shim_loop_thread;
	f->mine_loop = weft__shim_mine_loop;
	f->busy = weft__shim_loop_busy;
	weft__shim_set_cur(thread);
	weft__shim_loop_thread = thread;
	weft__shim_mine_loop = mine_loop;
	weft__shim_loop_busy = busy;
}

int weft__shim_loop_running(uint64_t thread)
{
	return thread && weft__shim_loop_thread == thread;
}

void weft__shim_loop_leave(const struct shim_loop_frame *f)
{
	int e = errno;
	weft__shim_phase_mark(NULL); /* out of the loop */
	weft__shim_mine_flush();
	weft__shim_mine_loop = f->mine_loop;
	weft__shim_loop_thread = f->thread;
	weft__shim_loop_busy = f->busy;
	weft__shim_set_cur(f->cur);
	errno = e;
}

/* Busy time of an iteration, cheaply: the times of the idle and resume
 * events themselves (weft_last_time()), turned into microseconds with
 * a rate measured once between two waits at least 10 ms apart. */
static __thread uint64_t resumed_at;
static __thread double us_per_tick;
static __thread uint64_t cal_ticks;
static __thread int64_t cal_ns;
static __thread int64_t last_busy = -1;

/* (out of line: a wrapper's look with no timeout saves no registers) */
static __attribute__((noinline)) void wait_enter(int timeout)
{
	if (!timeout || !weft__shim_loop_waits() || !ON())
		return;
	const char *busy = weft__shim_loop_busy;
	uint64_t now = weft__idle_at(weft__shim_poll); /* its time */
	/* A loop that marks phases waits in its poll phase (the trace
	 * reads the idle period so). */
	phase_now();
	if (phased)
		weft__shim_trace_phase = weft__shim_poll;
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
				weft_counter_set(busy, us);
			}
		}
	}
}

static __attribute__((noinline)) void wait_leave(int timeout)
{
	if (!timeout || !weft__shim_loop_waits() || !ON())
		return;
	resumed_at = weft__resume_at();
}

/* The waits of the loops: libuv's and libevent's epoll, GLib's poll,
 * libevent's poll and select backends.  A timeout of 0 is a look, not a
 * wait: straight through (a busy GLib loop looks at every iteration). */
#define WAIT(ms, call)                                                         \
	do {                                                                   \
		if (!(ms)) {                                                   \
			r = call;                                              \
			break;                                                 \
		}                                                              \
		int e_ = errno;                                                \
		wait_enter(ms);                                                \
		errno = e_;                                                    \
		r = call;                                                      \
		e_ = errno;                                                    \
		wait_leave(ms);                                                \
		errno = e_;                                                    \
	} while (0)

/* A timeout as an int: 0 for none, 1 for any other (the waits only need
 * to know whether there is one). */
static int ts_wait(const struct timespec *ts)
{
	return !ts || ts->tv_sec || ts->tv_nsec;
}

static int tv_wait(const struct timeval *tv)
{
	return !tv || tv->tv_sec || tv->tv_usec;
}

/* A busy loop looks at every iteration (GLib's poll with a timeout of 0,
 * libuv's epoll_wait when callbacks are pending): a look goes to the real
 * function found before with a tail call, no frame; the rest (the first
 * call, the waits) to the wrapper proper, WAIT_FN. */
#define LOOK(name, timeout, ...)                                               \
	do {                                                                   \
		__typeof__(name) *f_ =                                         \
			__atomic_load_n(&look_##name, __ATOMIC_RELAXED);       \
		if (__builtin_expect(f_ && !(timeout), 1))                     \
			return f_(__VA_ARGS__);                                \
		return wait_##name(__VA_ARGS__);                               \
	} while (0)
#define WAIT_FN(name, timeout, params, ...)                                    \
	static __typeof__(name) *look_##name;                                  \
	static __attribute__((noinline)) int wait_##name params                \
	{                                                                      \
		REAL(name);                                                    \
		__atomic_store_n(&look_##name, real_##name, __ATOMIC_RELAXED); \
		int r;                                                         \
		WAIT(timeout, real_##name(__VA_ARGS__));                       \
		return r;                                                      \
	}

WAIT_FN(epoll_wait, timeout,
	(int epfd, struct epoll_event *events, int maxevents, int timeout),
	epfd, events, maxevents, timeout)
WEFT_SHIM_EXPORT int epoll_wait(int epfd, struct epoll_event *events,
				int maxevents, int timeout)
{
	LOOK(epoll_wait, timeout, epfd, events, maxevents, timeout);
}

WEFT_SHIM_EXPORT int epoll_pwait(int epfd, struct epoll_event *events,
				 int maxevents, int timeout,
				 const sigset_t *sigmask)
{
	REAL(epoll_pwait);
	int r;
	WAIT(timeout,
	     real_epoll_pwait(epfd, events, maxevents, timeout, sigmask));
	return r;
}

WAIT_FN(poll, timeout, (struct pollfd * fds, nfds_t nfds, int timeout), fds,
	nfds, timeout)
WEFT_SHIM_EXPORT int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	LOOK(poll, timeout, fds, nfds, timeout);
}

WEFT_SHIM_EXPORT int ppoll(struct pollfd *fds, nfds_t nfds,
			   const struct timespec *tmo, const sigset_t *sigmask)
{
	REAL(ppoll);
	int r;
	WAIT(ts_wait(tmo), real_ppoll(fds, nfds, tmo, sigmask));
	return r;
}

WEFT_SHIM_EXPORT int select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex,
			    struct timeval *tv)
{
	REAL(select);
	int r;
	WAIT(tv_wait(tv), real_select(nfds, rd, wr, ex, tv));
	return r;
}
