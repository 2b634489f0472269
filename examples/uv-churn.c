/* SPDX-License-Identifier: MIT */
/*
 * uv-churn.c - handles that come and go, as a long-running server's do:
 *   uv-churn seq N    N timers at N addresses, one after another (each
 *                     started when the one before has closed)
 *   uv-churn live N   N timers armed at once, then each closed as it
 *                     fires
 * Prints "N timers".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

static int n, next, fired;
static uv_timer_t *ts;

static void on_timer(uv_timer_t *t);

static void start_next(void)
{
	uv_timer_init(uv_default_loop(), &ts[next]);
	uv_timer_start(&ts[next++], on_timer, 0, 0);
}

static void on_close(uv_handle_t *h)
{
	(void)h;
	if (next < n)
		start_next(); /* (seq: the next one; live: all are started) */
}

static void on_timer(uv_timer_t *t)
{
	fired++;
	uv_close((uv_handle_t *)t, on_close);
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "seq") && strcmp(argv[1], "live")) ||
	    (n = atoi(argv[2])) <= 0) {
		fprintf(stderr, "usage: uv-churn seq|live N\n");
		return 2;
	}
	if (!(ts = calloc((size_t)n, sizeof *ts)))
		return 1;
	if (!strcmp(argv[1], "live"))
		while (next < n)
			start_next();
	else
		start_next();
	uv_run(uv_default_loop(), UV_RUN_DEFAULT);
	printf("%d timers\n", fired);
	free(ts);
	return 0;
}
