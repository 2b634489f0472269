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

/* Ticks bracketed by two CLOCK_MONOTONIC reads, keeping the tightest of
 * a few tries, so the pairing error is tens of ns.  `tsc`: the TSC itself,
 * whichever the trace clock is (before it is chosen). */
static void sandwich(struct weft__anchor *a, int tsc)
{
	int64_t best = -1;
	for (int i = 0; i < 5; i++) {
		int64_t m0 = ts_ns(CLOCK_MONOTONIC);
#if defined(__x86_64__) || defined(__i386__)
		uint64_t t = tsc ? __builtin_ia32_rdtsc() : weft__clock_now();
#else
		uint64_t t = ((void)tsc, weft__clock_now());
#endif
		int64_t m1 = ts_ns(CLOCK_MONOTONIC);
		if (best < 0 || m1 - m0 < best) {
			best = m1 - m0;
			a->ticks = t;
			a->mono_ns = m0 + (m1 - m0) / 2;
		}
	}
}

/* Takes an anchor: the trace clock and CLOCK_MONOTONIC, and
 * CLOCK_REALTIME at the same instant. */
void weft__anchor_take(struct weft__anchor *a)
{
	sandwich(a, 0);
	int64_t mono = ts_ns(CLOCK_MONOTONIC);
	a->real_ns = ts_ns(CLOCK_REALTIME) - (mono - a->mono_ns);
}

/* The TSC and CLOCK_MONOTONIC read together when the process loaded
 * (weft__clock_early): the start of the calibration, taken long before a
 * process started from the environment records its first event. */
static struct weft__anchor early;
static int have_early;
/* CLOCK_BOOTTIME - CLOCK_MONOTONIC then: the time the machine spent
 * suspended so far.  If it changes before the ring is made, the TSC may
 * have stopped or been reset meanwhile: the early reading is not used. */
static int64_t early_slept;

void weft__clock_early(void)
{
#if defined(__x86_64__) || defined(__i386__)
	early_slept = ts_ns(CLOCK_BOOTTIME) - ts_ns(CLOCK_MONOTONIC);
	sandwich(&early, 1);
	have_early = 1;
#endif
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
	/* The frequency over at least 2 ms, from the reading taken when the
	 * process loaded (or its parent did, before a fork) to now: a
	 * program started from the environment makes its ring at its first
	 * event, usually more than 2 ms after it loaded, and then waits for
	 * nothing (this wait was 2 ms of every recording process's start).
	 * Without that reading, or when it is too recent, the rest of the
	 * 2 ms is waited here.  Readers refine the frequency with the anchor
	 * the writer refreshes as it runs. */
	const struct weft__anchor *from = a0;
	int64_t slept = ts_ns(CLOCK_BOOTTIME) - ts_ns(CLOCK_MONOTONIC);
	if (have_early && early.mono_ns < a0->mono_ns &&
	    early.ticks < a0->ticks && slept - early_slept < 1000000 &&
	    early_slept - slept < 1000000)
		from = &early;
	struct weft__anchor b = *a0;
	while (b.mono_ns - from->mono_ns < 2000000)
		weft__anchor_take(&b);
	return (uint64_t)((double)(b.ticks - from->ticks) * 1e9 /
			  (double)(b.mono_ns - from->mono_ns));
}
