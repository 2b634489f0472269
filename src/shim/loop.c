/* SPDX-License-Identifier: MIT */
/*
 * loop.c - what every traced loop does: async-thread ids, the thread
 * current on each OS thread, the phases of an iteration, and the wait in
 * the kernel as idle time.
 */
#define _GNU_SOURCE
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
 * the trace of generation phase_gen (a new trace, or a forked child's,
 * starts afresh). */
static __thread const char *trace_phase;
static __thread int phased;
static __thread unsigned phase_gen;

static const char *phase_now(void)
{
	unsigned gen = ON();
	if (gen != phase_gen) {
		phase_gen = gen;
		trace_phase = NULL;
		phased = 0;
	}
	return trace_phase;
}

void weft__shim_phase_mark(const char *ph)
{
	if (phase_now() == ph || !ON())
		return;
	weft_phase(ph); /* NULL: name 0, out of any phase */
	trace_phase = ph;
	phased |= ph != NULL;
}

int weft__shim_phase_begin(const char *ph)
{
	if (phase_now() == ph || !ON())
		return 0;
	weft_burst_begin();
	weft__shim_phase_mark(ph);
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

/* Busy time of an iteration, cheaply: the times of the idle and resume
 * events themselves (weft_last_time()), turned into microseconds with
 * a rate measured once between two waits at least 10 ms apart. */
static __thread uint64_t resumed_at;
static __thread double us_per_tick;
static __thread uint64_t cal_ticks;
static __thread int64_t cal_ns;
static __thread int64_t last_busy = -1;

void weft__shim_wait_enter(int timeout, const char *busy)
{
	if (!timeout || !ON())
		return;
	weft_idle(weft__shim_poll);
	/* A loop that marks phases waits in its poll phase (the trace
	 * reads the idle period so). */
	phase_now();
	if (phased)
		trace_phase = weft__shim_poll;
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
				weft_counter_set(busy, us);
			}
		}
	}
}

void weft__shim_wait_leave(int timeout)
{
	if (!timeout || !ON())
		return;
	weft_resume();
	resumed_at = weft_last_time();
}
