/* SPDX-License-Identifier: MIT */
/*
 * view-bench.c - `view-bench FILE`: the native renderer's speed on FILE
 * (bench/run gives it a trace of about 1 M events):
 *   view.open_ms   open + model + layout + first frame (1280 x 800, cairo)
 *   view.frame_ms  the worst frame over a zoom sweep from the whole trace
 *                  down to microseconds
 * Targets: open <= 1000 ms, frame <= 16 ms.
 */
#include <cairo.h>
#include <stdio.h>
#include <time.h>

#include "cairo-canvas.h"
#include "view.h"
#include "weft/model.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	double t0 = now();
	struct weft_reader *r;
	struct weft_model *m;
	if (weft_reader_open(&r, argv[1], 0, NULL) || weft_model_load(&m, r))
		return 1;
	struct weft_view *v = weft_view_new(m, 1280, 800);
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1280, 800);
	cairo_t *cr = cairo_create(s);
	struct weft_canvas c = weft_cairo_canvas(cr);
	weft_view_render(v, &c);
	double open = now() - t0;
	double worst = 0;
	for (int i = 0; i < 40; i++) {
		double f0 = now();
		weft_view_render(v, &c);
		double f = now() - f0;
		if (f > worst)
			worst = f;
		weft_view_zoom(v, 1.6, 640);
	}
	printf("%-26s %14.1f %-9s # open, model, layout, first frame of %llu events (target <= 1000)\n",
	       "view.open_ms", open, "ms",
	       (unsigned long long)weft_reader_info(r)->events);
	printf("%-26s %14.2f %-9s # worst frame over a zoom sweep, 1280x800, cairo (target <= 16)\n",
	       "view.frame_ms", worst, "ms");
	cairo_destroy(cr);
	cairo_surface_destroy(s);
	weft_view_free(v);
	weft_model_free(m);
	weft_reader_close(r);
	return 0;
}
