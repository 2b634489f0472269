/* SPDX-License-Identifier: MIT */
/*
 * clock.c - the trace clock: the TSC when the CPU says it is invariant (or
 * the kernel itself trusts it), calibrated against CLOCK_MONOTONIC;
 * otherwise CLOCK_MONOTONIC in nanoseconds; or, when the program asks,
 * the time it sets (WEFT_CLOCK_MANUAL).
 */
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

int weft__clock_kind = WEFT_CLOCK_MONO;
uint64_t weft__manual_ns; /* WEFT_CLOCK_MANUAL: the time the program set */

static int64_t ts_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The trace clock when it is not the TSC (off the TSC's fast path). */
uint64_t weft__mono_ticks(void)
{
	if (weft__clock_kind == WEFT_CLOCK_PROGRAM)
		return __atomic_load_n(&weft__manual_ns, __ATOMIC_RELAXED);
	return (uint64_t)ts_ns(CLOCK_MONOTONIC);
}

static int tsc_usable(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000007u &&
	    __get_cpuid(0x80000007u, &a, &b, &c, &d) && (d & (1u << 8)))
		return 1;
	/* Virtual machines often hide the invariant-TSC bit while the kernel
	 * has verified the TSC and uses it as its clocksource. */
	/* open/read, not stdio: a ring started from the environment is
	 * made at the first event, which may be in a signal handler. */
	char buf[32] = {0};
	int fd = open("/sys/devices/system/clocksource/clocksource0/"
		      "current_clocksource",
		      O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (read(fd, buf, sizeof buf - 1) < 0)
			buf[0] = 0;
		close(fd);
	}
	return strncmp(buf, "tsc", 3) == 0;
#else
	return 0;
#endif
}

/* Takes an anchor: ticks bracketed by two CLOCK_MONOTONIC reads, keeping
 * the tightest of a few tries, so the pairing error is tens of ns. */
void weft__anchor_take(struct weft__anchor *a)
{
	int64_t best = -1;
	for (int i = 0; i < 5; i++) {
		int64_t m0 = ts_ns(CLOCK_MONOTONIC);
		uint64_t t = weft__clock_now();
		int64_t m1 = ts_ns(CLOCK_MONOTONIC);
		if (best < 0 || m1 - m0 < best) {
			best = m1 - m0;
			a->ticks = t;
			a->mono_ns = m0 + (m1 - m0) / 2;
		}
	}
	int64_t mono = ts_ns(CLOCK_MONOTONIC);
	a->real_ns = ts_ns(CLOCK_REALTIME) - (mono - a->mono_ns);
}

uint64_t weft__clock_init(int clock, struct weft__anchor *a0)
{
	if (clock == WEFT_CLOCK_PROGRAM) {
		/* Time 0 is now: the origin's wall time is the start's. */
		weft__clock_kind = WEFT_CLOCK_PROGRAM;
		__atomic_store_n(&weft__manual_ns, 0, __ATOMIC_RELAXED);
		weft__anchor_take(a0);
		a0->ticks = 0;
		return 1000000000u;
	}
	weft__clock_kind = (clock == WEFT_CLOCK_TSC && tsc_usable())
				   ? WEFT_CLOCK_TSC
				   : WEFT_CLOCK_MONO;
	weft__anchor_take(a0);
	if (weft__clock_kind == WEFT_CLOCK_MONO)
		return 1000000000u;
	/* About 2 ms of calibration; readers refine the frequency with the
	 * anchor the writer refreshes as it runs. */
	struct weft__anchor b;
	do
		weft__anchor_take(&b);
	while (b.mono_ns - a0->mono_ns < 2000000);
	return (uint64_t)((double)(b.ticks - a0->ticks) * 1e9 /
			  (double)(b.mono_ns - a0->mono_ns));
}
