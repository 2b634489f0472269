/* SPDX-License-Identifier: MIT */
/*
 * glib-bench.c - a GLib main loop ping-pong, with no tracing code: an idle
 * callback adds a 0 ms timeout, whose callback adds the idle again, for
 * SECONDS (or until TRIPS round trips, when given); prints the round trips per
 * second and how many.  bench/loop-overhead.sh runs
 * it with and without `weft record` (glib.overhead).
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

static long trips, max_trips;
static int done;
static GMainLoop *loop;

static gboolean ping(gpointer data);

static gboolean pong(gpointer data)
{
	(void)data;
	trips++;
	if (max_trips && trips >= max_trips && !done) {
		done = 1;
		g_main_loop_quit(loop);
	}
	if (!done)
		g_idle_add(ping, NULL);
	return G_SOURCE_REMOVE;
}

static gboolean ping(gpointer data)
{
	(void)data;
	g_timeout_add(0, pong, NULL);
	return G_SOURCE_REMOVE;
}

static gboolean stop(gpointer data)
{
	(void)data;
	done = 1;
	g_main_loop_quit(loop);
	return G_SOURCE_REMOVE;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2;
	max_trips = argc > 2 ? atol(argv[2]) : 0;
	loop = g_main_loop_new(NULL, FALSE);
	g_idle_add(ping, NULL);
	g_timeout_add((guint)(secs * 1000), stop, NULL);
	g_main_loop_run(loop);
	printf("%.0f round trips/s, %ld round trips\n", (double)trips / secs,
	       trips);
	g_main_loop_unref(loop);
	return 0;
}
