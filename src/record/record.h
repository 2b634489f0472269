/* SPDX-License-Identifier: MIT */
/* record.h - internals of libweft's recorder shared between its files. */
#ifndef WEFT_RECORD_H
#define WEFT_RECORD_H

#include <stdint.h>

#include "../common/format.h"

extern int weft__clock_kind;

uint64_t weft__mono_ticks(void);

static inline uint64_t weft__clock_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (__builtin_expect(weft__clock_kind == WEFT_CLOCK_TSC, 1))
		return __builtin_ia32_rdtsc();
#endif
	return weft__mono_ticks();
}

void weft__anchor_take(struct weft__anchor *a);
/* clock: WEFT_CLOCK_TSC (if usable), _MONO or _PROGRAM wanted. */
uint64_t weft__clock_init(int clock, struct weft__anchor *a0);
extern uint64_t weft__manual_ns;

#ifdef WEFT_TEST_HOOKS
/* Test-build fault injection: when non-zero, the Nth call of the named
 * system call (counted from 1) fails with `weft__fault_errno`. */
extern int weft__fault_tmpfile, weft__fault_open, weft__fault_ftruncate,
	weft__fault_fallocate, weft__fault_mmap, weft__fault_link,
	weft__fault_rename, weft__fault_errno;
#endif

#endif
