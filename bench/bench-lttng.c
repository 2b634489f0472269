/* SPDX-License-Identifier: MIT */
/*
 * bench-lttng.c - LTTng-UST recording cost, measured the way bench-record
 * measures weft: `bench-lttng N` prints ns per event for N events of a
 * two-u64 tracepoint, after a warm-up, timed around the loop only.  Whether
 * it records depends on the session bench/run sets up around it.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "lttng-tp.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void loop(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		lttng_ust_tracepoint(weftpeer, resolve, i, i >> 1);
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
	loop(1000);
	double t0 = now();
	loop(n);
	double t = now() - t0;
	printf("%.3f ns/event\n", t * 1e9 / (double)n);
	return 0;
}
