/* SPDX-License-Identifier: MIT */
/*
 * ticker.c - a long-running instrumented program, to watch live:
 * every millisecond a "tick" async thread is created, runs, and resolves;
 * a counter follows the tick number.  Runs for SECONDS (default 2), then
 * labels a last thread "done".
 *
 *   WEFT_FILE=t.weft build/examples/ticker 10 &
 *   weft dump --follow t.weft
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <weft/weft.h>

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	struct timespec t0, now, ms = {0, 1000000};
	clock_gettime(CLOCK_MONOTONIC, &t0);
	weft_run(1);
	weft_label(1, "ticker");
	uint64_t id = 100;
	do {
		weft_create(id, "tick");
		weft_idle("sleep");
		nanosleep(&ms, NULL);
		weft_resume();
		weft_run(id);
		weft_counter_set("ticks", (int64_t)(id - 99));
		weft_resolve(id);
		weft_run(1);
		weft_read(id);
		id++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - t0.tv_sec) +
			 (double)(now.tv_nsec - t0.tv_nsec) / 1e9 <
		 secs);
	weft_create(id, "tick");
	weft_label(id, "done");
	weft_run(0);
	printf("ticker: %llu ticks\n", (unsigned long long)(id - 100));
	return 0;
}
