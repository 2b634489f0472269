/* SPDX-License-Identifier: MIT */
/*
 * model-bench.c - `model-bench FILE`: loads FILE into the model and prints
 *   model.events_per_s    events per second, reader included
 *   model.bytes_per_event the model's memory (weft_model_bytes) / events
 * bench/run gives it the 10M-event mix trace.  Targets: 10 M events in
 * under 2 s (>= 5 M/s), <= 64 bytes per event.
 */
#include <stdio.h>
#include <time.h>

#include <weft/model.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: model-bench FILE\n");
		return 2;
	}
	double t0 = now();
	struct weft_reader *r;
	struct weft_model *m;
	int err = weft_reader_open(&r, argv[1], 0, NULL);
	if (!err)
		err = weft_model_load(&m, r);
	if (err) {
		fprintf(stderr, "%s: %s\n", argv[1], weft_strerror(err));
		return 1;
	}
	double t = now() - t0;
	double ev = (double)weft_reader_info(r)->events;
	printf("%-26s %14.0f %-9s # %.0f events loaded into the model in "
	       "%.3f s (target: 10 M in < 2 s)\n",
	       "model.events_per_s", ev / t, "events/s", ev, t);
	printf("%-26s %14.2f %-9s # weft_model_bytes / events (target <= "
	       "64)\n",
	       "model.bytes_per_event", (double)weft_model_bytes(m) / ev,
	       "bytes");
	weft_model_free(m);
	weft_reader_close(r);
	return 0;
}
