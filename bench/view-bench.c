/* SPDX-License-Identifier: MIT */
/*
 * view-bench.c - `view-bench FILE [WIDE]`: the native renderer's speed on FILE
 * (bench/run gives it a trace of about 1 M events):
 *   view.open_ms   open + model + layout + first frame (1280 x 800, cairo)
 *   view.frame_ms  the worst frame over a zoom sweep from the whole trace
 *                  down to microseconds, focus at the top, middle, bottom
 *   view.frame_ms_rows  the same on a second trace with many rows (bench/run
 *                  gives it 20,000 connections open at once)
 * Targets: open <= 1000 ms, frame <= 16 ms.
 *
 * `view-bench server FILE [UV]`: on a server-shaped trace (bench/run gives
 * it server-gen's 10 M events):
 *   view.server_open_ms   open + model + layout + first frame
 *   view.server_frame_ms  the worst frame of the zoom sweep
 *   view.rows_per_peak    rows used / the most threads alive at once
 *   view.chain_threads    the causal chain of one request (the one
 *                         created nearest the middle), all the way
 * and on UV, a libuv echo bench recorded with `weft record`:
 *   view.uv_rows_per_peak the same ratio (the staircase case)
 * Targets: open <= 2000 ms, frame <= 16 ms, rows <= 2 x peak + the
 * long-lived ones, a chain of tens of threads.
 *
 * Times are the CPU time the program used (now()): on a machine shared
 * with other work the wall-clock time says more of the others than of
 * weft.  A reader waiting on a cold file would add its wait.
 */
#include <string.h>
#include <cairo.h>
#include <stdio.h>
#include <time.h>

#include "cairo-canvas.h"
#include "view.h"
#include "weft/model.h"

/* The CPU time this (single-threaded) program has used, in ms: what a
 * frame or an open costs, whatever else the machine runs.  On the shared
 * VM of the figures, three or more processes wanting each CPU made the
 * wall-clock time of the same frame two to four times its CPU time. */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Worst frame over a zoom sweep from the whole trace down to
 * microseconds, with the vertical focus at the top, middle and bottom.
 * Each frame is drawn three times and counts its fastest (in CPU time,
 * now()): what the frame costs, not what the other processes of a shared
 * machine took from it. */
static double sweep(struct weft_view *v, const struct weft_canvas *c)
{
	double worst = 0;
	int rows = weft_view_rows(v);
	for (int f = 0; f < 3; f++) {
		weft_view_fit(v);
		weft_view_set_focus(v, f * rows / 2);
		for (int i = 0; i < 40; i++) {
			double d = 1e9;
			for (int k = 0; k < 3; k++) {
				double f0 = now();
				weft_view_render(v, c);
				double dk = now() - f0;
				d = dk < d ? dk : d;
			}
			if (d > worst)
				worst = d;
			weft_view_zoom(v, 1.6, 640);
		}
	}
	return worst;
}

/* rows / peak of FILE's layout; *top gets the long-lived rows. */
static double rows_per_peak(struct weft_model *m, uint32_t *rows,
			    uint32_t *peak, uint32_t *top)
{
	struct weft_layout *l;
	struct weft_layout_info in;
	if (weft_layout_new(&l, m, NULL))
		return -1;
	weft_layout_info(l, &in);
	*rows = in.rows;
	*top = in.top;
	if (weft_layout_peak(l, peak) || !*peak)
		*peak = 1;
	weft_layout_free(l);
	return (double)in.rows / *peak;
}

/* A trace opened, its model and a view of it drawn once on a 1280 x 800
 * cairo surface, and when that took (ms). */
struct opened {
	struct weft_reader *r;
	struct weft_model *m;
	struct weft_view *v;
	cairo_surface_t *s;
	cairo_t *cr;
	struct weft_canvas c;
	double open_ms;
};

static int open_view(const char *path, struct opened *o)
{
	double t0 = now();
	if (weft_reader_open(&o->r, path, 0, NULL) ||
	    weft_model_load(&o->m, o->r))
		return -1;
	o->v = weft_view_new(o->m, 1280, 800);
	o->s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1280, 800);
	o->cr = cairo_create(o->s);
	o->c = weft_cairo_canvas(o->cr);
	weft_view_render(o->v, &o->c);
	o->open_ms = now() - t0;
	return 0;
}

static void close_view(struct opened *o)
{
	weft_view_free(o->v);
	weft_model_free(o->m);
	weft_reader_close(o->r);
	cairo_destroy(o->cr);
	cairo_surface_destroy(o->s);
}

static int server(int argc, char **argv)
{
	struct opened o;
	if (open_view(argv[2], &o))
		return 1;
	struct weft_reader *r = o.r;
	struct weft_model *m = o.m;
	double worst = sweep(o.v, &o.c);
	printf("%-26s %14.1f %-9s # open, model, layout, first frame of "
	       "server-gen's %llu events (CPU time; target <= 2000)\n",
	       "view.server_open_ms", o.open_ms, "ms",
	       (unsigned long long)weft_reader_info(r)->events);
	printf("%-26s %14.2f %-9s # worst frame of a zoom sweep on it, "
	       "1280x800, cairo, CPU time (target <= 16)\n",
	       "view.server_frame_ms", worst, "ms");
	uint32_t rows, peak, top;
	double rp = rows_per_peak(m, &rows, &peak, &top);
	printf("%-26s %14.2f %-9s # %u rows, at most %u threads alive at once, "
	       "%u long-lived (target <= 2 + long-lived / peak)\n",
	       "view.rows_per_peak", rp, "ratio", rows, peak, top);
	/* one request's chain: the one created nearest the middle */
	uint32_t n, req = WEFT_NONE;
	const struct weft_thread *th = weft_model_threads(m, &n);
	for (uint32_t i = n / 2; i < n && req == WEFT_NONE; i++)
		if (!strcmp(weft_model_name(m, th[i].kind), "http request"))
			req = i;
	struct weft_chain ch = {0};
	if (req != WEFT_NONE && !weft_chain(m, req, WEFT_CHAIN_ALL, &ch))
		printf("%-26s %14u %-9s # the causal chain of one request of "
		       "%u threads, %u of them hubs (target: tens)\n",
		       "view.chain_threads", ch.size, "threads", n, ch.hubs);
	weft_chain_release(&ch);
	close_view(&o);
	if (argc > 3) {
		if (weft_reader_open(&r, argv[3], 0, NULL) ||
		    weft_model_load(&m, r))
			return 1;
		rp = rows_per_peak(m, &rows, &peak, &top);
		printf("%-26s %14.2f %-9s # the same on a libuv echo bench: %u "
		       "rows, peak %u, %u long-lived (target <= 2 + long-lived "
		       "/ peak)\n",
		       "view.uv_rows_per_peak", rp, "ratio", rows, peak, top);
		weft_model_free(m);
		weft_reader_close(r);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "server"))
		return server(argc, argv);
	if (argc != 2 && argc != 3)
		return 2;
	struct opened o;
	if (open_view(argv[1], &o))
		return 1;
	struct weft_reader *r = o.r;
	struct weft_model *m = o.m;
	struct weft_view *v;
	double worst = sweep(o.v, &o.c);
	printf("%-26s %14.1f %-9s # open, model, layout, first frame of %llu "
	       "events (CPU time; target <= 1000)\n",
	       "view.open_ms", o.open_ms, "ms",
	       (unsigned long long)weft_reader_info(r)->events);
	printf("%-26s %14.2f %-9s # worst frame over a zoom sweep, 1280x800, "
	       "cairo, CPU time (target <= 16)\n",
	       "view.frame_ms", worst, "ms");
	weft_view_free(o.v);
	weft_model_free(m);
	weft_reader_close(r);
	if (argc == 3) {
		if (weft_reader_open(&r, argv[2], 0, NULL) ||
		    weft_model_load(&m, r))
			return 1;
		v = weft_view_new(m, 1280, 800);
		worst = sweep(v, &o.c);
		printf("%-26s %14.2f %-9s # the same over %d rows (%llu "
		       "events; focus + context)\n",
		       "view.frame_ms_rows", worst, "ms", weft_view_rows(v),
		       (unsigned long long)weft_reader_info(r)->events);
		weft_view_free(v);
		weft_model_free(m);
		weft_reader_close(r);
	}
	cairo_destroy(o.cr);
	cairo_surface_destroy(o.s);
	return 0;
}
