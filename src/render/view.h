/* SPDX-License-Identifier: MIT */
/*
 * view.h - a view of a model: layout (rows), the visible time range, the
 * interaction state (search, selection), and drawing it.  One renderer for
 * every front end (render.c); no GTK, no cairo here.
 */
#ifndef WEFT_VIEW_H
#define WEFT_VIEW_H

#include <stdint.h>

#include "canvas.h"
#include "weft/model.h"

struct weft_view;

/* A view of `m` (which must outlive it), `w` x `h` pixels, showing the
 * whole trace.  NULL when out of memory. */
struct weft_view *weft_view_new(const struct weft_model *m, double w,
				double h);
void weft_view_free(struct weft_view *v);

/* After the model grew (live): lays the new threads out. */
void weft_view_model_changed(struct weft_view *v);

void weft_view_resize(struct weft_view *v, double w, double h);
/* The whole trace. */
void weft_view_fit(struct weft_view *v);
/* Zoom by `factor` (> 1 in) keeping the time under pixel x in place. */
void weft_view_zoom(struct weft_view *v, double factor, double x);
/* Pan by pixels (drag). */
void weft_view_pan(struct weft_view *v, double dx, double dy);
void weft_view_set_range(struct weft_view *v, int64_t t0, int64_t t1);
void weft_view_range(const struct weft_view *v, int64_t *t0, int64_t *t1);

/* Highlights every thread whose title contains `text` (case-insensitive;
 * NULL or "" clears).  Returns how many match. */
uint32_t weft_view_search(struct weft_view *v, const char *text);
/* The thread drawn nearest pixel (x, y), within a few pixels, or
 * WEFT_NONE. */
uint32_t weft_view_pick(const struct weft_view *v, double x, double y);
/* Selects a thread (WEFT_NONE: none): it and its causal chain are
 * highlighted. */
void weft_view_select(struct weft_view *v, uint32_t thread);
void weft_view_show_counters(struct weft_view *v, int on);

/* Draws the view.  Returns how many primitives it drew. */
long weft_view_render(struct weft_view *v, const struct weft_canvas *c);

/* Row of a thread (for tests), or -1 if not laid out. */
int weft_view_row(const struct weft_view *v, uint32_t thread);

#endif
