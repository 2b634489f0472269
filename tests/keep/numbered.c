/* SPDX-License-Identifier: MIT */
/*
 * numbered.c - writes numbered events at a steady rate, for the keeping
 * tests (tests/keep/test-keep.sh): `numbered EVENTS RATE [THREADS]`.
 *
 * THREADS OS threads (default 3) each set their counter "nK" to 0, 1,
 * 2 ... EVENTS-1, RATE events a second in all, in bursts every 2 ms, each
 * inside an async thread of its own ("worker K") that a new one replaces
 * every 10,000 events (so that a loss falls inside some async thread).
 * Traced from the environment (WEFT_FILE, or weft record).  Prints "done"
 * when every event is written.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "weft/weft.h"

static long events, threads;
static double rate;

static void *work(void *arg)
{
	long k = (long)arg;
	char name[16], label[32];
	snprintf(name, sizeof name, "n%ld", k);
	double per = rate / (double)threads; /* events a second here */
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t at = 0;
	for (long i = 0; i < events;) {
		if (i % 10000 == 0) {
			uint64_t th = ((uint64_t)(k + 1) << 32) |
				      (uint64_t)(i / 10000 + 1);
			snprintf(label, sizeof label, "worker %ld.%ld", k,
				 i / 10000);
			weft_create(th, "worker");
			weft_label(th, label);
			if (at)
				weft_resolve(at);
			weft_run(th);
			at = th;
		}
		weft_counter_set(name, i);
		i++;
		if (i % 64 == 0 || i == events) {
			/* where this thread should be by now */
			double due = (double)i / per;
			struct timespec now;
			clock_gettime(CLOCK_MONOTONIC, &now);
			double el = (double)(now.tv_sec - t0.tv_sec) +
				    (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
			if (due > el + 0.002) {
				struct timespec nap = {
					0, (long)((due - el) * 1e9)};
				if (nap.tv_nsec >= 1000000000)
					nap.tv_sec = nap.tv_nsec / 1000000000,
					nap.tv_nsec %= 1000000000;
				nanosleep(&nap, NULL);
			}
		}
	}
	if (at)
		weft_resolve(at);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: numbered EVENTS RATE [THREADS]\n");
		return 2;
	}
	events = atol(argv[1]);
	rate = atof(argv[2]);
	threads = argc > 3 ? atol(argv[3]) : 3;
	if (events <= 0 || rate <= 0 || threads <= 0 || threads > 64)
		return 2;
	pthread_t t[64];
	for (long k = 0; k < threads; k++)
		pthread_create(&t[k], NULL, work, (void *)k);
	for (long k = 0; k < threads; k++)
		pthread_join(t[k], NULL);
	puts("done");
	return 0;
}
