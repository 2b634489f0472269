/* SPDX-License-Identifier: MIT */
/*
 * timens.h - the offset of a process's time namespace (CLOCK_MONOTONIC of
 * the machine minus the process's), and a cheaper way to learn it for the
 * processes of a run: `weft record` says its own in the environment
 * (WEFT_TIMENS), and a process whose clocks agree with it shares it.
 */
#ifndef WEFT_TIMENS_H
#define WEFT_TIMENS_H

#include <stddef.h>
#include <stdint.h>

#define WEFT__HIDDEN_API __attribute__((visibility("hidden")))

/* Reads up to cap - 1 bytes of a small file, NUL-terminated: its length,
 * or -1. */
WEFT__HIDDEN_API int weft__read_small(const char *path, char *buf, size_t cap);

/* The machine's CLOCK_MONOTONIC minus ours, from /proc/self/timens_offsets
 * (Linux 5.6 on); 0 without it. */
WEFT__HIDDEN_API int64_t weft__timens_read(void);

/* WEFT_TIMENS's value for this process: "BOOT:OFFSET:REAL", where BOOT is
 * CLOCK_REALTIME - CLOCK_MONOTONIC, OFFSET its namespace's offset, REAL
 * the time of the reading (ns).  Returns its length, or 0 if it did not
 * fit. */
WEFT__HIDDEN_API size_t weft__timens_env(char *out, size_t cap);

/* This process's offset: the one `v` (WEFT_TIMENS, or NULL) says when this
 * process's clocks agree with the ones it was read from (the same
 * namespace, but for NTP's slewing since, at most 500 ppm, and 1 ms),
 * else read from /proc.  Reading /proc is most of what a process of a
 * traced tree that never records pays at start-up. */
WEFT__HIDDEN_API int64_t weft__timens_inherit(const char *v);

#endif
