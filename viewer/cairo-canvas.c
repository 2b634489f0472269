/* SPDX-License-Identifier: MIT */
/*
 * cairo-canvas.c - the renderer's canvas on a cairo context (PNG, SVG,
 * and the GTK viewer).
 *
 * Lines of one colour and width are gathered into one path and stroked
 * together, filled shapes likewise: one cairo_stroke() per thousand
 * segments instead of one each (what a frame costs is mostly cairo's
 * per-operation set-up).  What is pending is kept as user data on the
 * cairo context; every state change and flush() draws it.
 */
#include <cairo.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cairo-canvas.h"

enum { NONE, STROKE, FILL };

#define SHADE_COLOURS 4

/* The canvas's state on the context: what is pending (first: pending()
 * points at it), and for shades(), the pixels of a few colours at each
 * opacity and a row of them. */
struct state {
	int pending;
	struct {
		double rgb[3];
		int steps; /* 0: unused */
		uint32_t px[256];
	} shade[SHADE_COLOURS];
	int next;
	uint32_t *row;
	int nrow;
};

static const cairo_user_data_key_t key;

static int *pending(cairo_t *c)
{
	struct state *s = cairo_get_user_data(c, &key);
	return s ? &s->pending : NULL;
}

static void flush(void *ctx)
{
	cairo_t *c = ctx;
	int *p = pending(c);
	if (!p || *p == NONE)
		return;
	if (*p == STROKE)
		cairo_stroke(c);
	else
		cairo_fill(c);
	*p = NONE;
}

/* Starts or continues a path of kind k. */
static void want(cairo_t *c, int k)
{
	int *p = pending(c);
	if (p && *p != k) {
		flush(c);
		*p = k;
	}
}

static void color(void *c, double r, double g, double b, double a)
{
	flush(c);
	cairo_set_source_rgba(c, r, g, b, a);
}

static void line_width(void *c, double w)
{
	flush(c);
	cairo_set_line_width(c, w);
}

static void line(void *c, double x0, double y0, double x1, double y1)
{
	want(c, STROKE);
	cairo_move_to(c, x0, y0);
	cairo_line_to(c, x1, y1);
	if (!pending(c))
		cairo_stroke(c);
}

static void rect(void *c, double x, double y, double w, double h)
{
	want(c, FILL);
	cairo_rectangle(c, x, y, w, h);
	if (!pending(c))
		cairo_fill(c);
}

static void triangle(void *c, double x0, double y0, double x1, double y1,
		     double x2, double y2)
{
	want(c, FILL);
	cairo_move_to(c, x0, y0);
	cairo_line_to(c, x1, y1);
	cairo_line_to(c, x2, y2);
	cairo_close_path(c);
	if (!pending(c))
		cairo_fill(c);
}

static void text(void *c, double x, double y, double size, const char *s)
{
	flush(c);
	cairo_set_font_size(c, size);
	cairo_move_to(c, x, y);
	cairo_show_text(c, s);
}

static double text_width(void *c, double size, const char *s)
{
	cairo_text_extents_t e;
	cairo_set_font_size(c, size);
	cairo_text_extents(c, s, &e);
	return e.x_advance;
}

static void clip(void *c, double x, double y, double w, double h)
{
	flush(c);
	cairo_save(c);
	cairo_rectangle(c, x, y, w, h);
	cairo_clip(c);
}

static void unclip(void *c)
{
	flush(c);
	cairo_restore(c);
}

static void mask(void *ctx, int x, int y, int w, int h,
		 const unsigned char *alpha, int stride)
{
	cairo_t *c = ctx;
	flush(c);
	cairo_surface_t *s = cairo_image_surface_create_for_data(
		(unsigned char *)alpha, CAIRO_FORMAT_A8, w, h, stride);
	cairo_mask_surface(c, s, x, y);
	cairo_surface_destroy(s);
}

/* The pixels (premultiplied ARGB) of (r, g, b) at each opacity k / steps,
 * as cairo makes them: drawn, not computed, so that they are what a box
 * of that colour would composite. */
static const uint32_t *shade_pixels(struct state *st, int steps, double r,
				    double g, double b)
{
	for (int i = 0; i < SHADE_COLOURS; i++)
		if (st->shade[i].steps == steps && st->shade[i].rgb[0] == r &&
		    st->shade[i].rgb[1] == g && st->shade[i].rgb[2] == b)
			return st->shade[i].px;
	int i = st->next;
	cairo_surface_t *s = cairo_image_surface_create_for_data(
		(unsigned char *)st->shade[i].px, CAIRO_FORMAT_ARGB32,
		steps + 1, 1, (int)sizeof st->shade[i].px);
	cairo_t *c = cairo_create(s);
	cairo_set_operator(c, CAIRO_OPERATOR_SOURCE);
	for (int k = 0; k <= steps; k++) {
		cairo_set_source_rgba(c, r, g, b, (double)k / steps);
		cairo_rectangle(c, k, 0, 1, 1);
		cairo_fill(c);
	}
	int ok = cairo_status(c) == CAIRO_STATUS_SUCCESS;
	cairo_destroy(c);
	cairo_surface_finish(s);
	cairo_surface_destroy(s);
	if (!ok)
		return NULL;
	st->shade[i].steps = steps;
	memcpy(st->shade[i].rgb, (double[3]){r, g, b}, sizeof st->shade[i].rgb);
	st->next = (i + 1) % SHADE_COLOURS;
	return st->shade[i].px;
}

/* Columns of shades (canvas.h): a row of the columns' pixels, repeated
 * down, composited once.  On an image surface drawn 1:1 only, where it
 * is the same pixels as the boxes (elsewhere, e.g. SVG or a scaled
 * surface, the boxes say it better). */
static int shades(void *ctx, int x, int y, int n, int h, const unsigned char *q,
		  int steps, double r, double g, double b)
{
	cairo_t *c = ctx;
	struct state *st = cairo_get_user_data(c, &key);
	cairo_surface_t *t = cairo_get_target(c);
	cairo_matrix_t m;
	double sx, sy, ox, oy;
	cairo_get_matrix(c, &m);
	cairo_surface_get_device_scale(t, &sx, &sy);
	cairo_surface_get_device_offset(t, &ox, &oy);
	if (!st || n <= 0 || h <= 0 || steps < 1 || steps > 255 ||
	    cairo_surface_get_type(t) != CAIRO_SURFACE_TYPE_IMAGE ||
	    m.xx != 1 || m.yx != 0 || m.xy != 0 || m.yy != 1 ||
	    m.x0 != (int)m.x0 || m.y0 != (int)m.y0 || sx != 1 || sy != 1 ||
	    ox != (int)ox || oy != (int)oy)
		return 0;
	if (n > st->nrow) {
		uint32_t *row = realloc(st->row, (size_t)n * sizeof *row);
		if (!row)
			return 0;
		st->row = row;
		st->nrow = n;
	}
	const uint32_t *px = shade_pixels(st, steps, r, g, b);
	if (!px)
		return 0;
	for (int i = 0; i < n; i++)
		st->row[i] = px[q[i] > steps ? steps : q[i]];
	cairo_surface_t *s = cairo_image_surface_create_for_data(
		(unsigned char *)st->row, CAIRO_FORMAT_ARGB32, n, 1,
		n * (int)sizeof *st->row);
	flush(c);
	cairo_save(c);
	cairo_set_source_surface(c, s, x, y);
	cairo_pattern_set_extend(cairo_get_source(c), CAIRO_EXTEND_REPEAT);
	cairo_pattern_set_filter(cairo_get_source(c), CAIRO_FILTER_NEAREST);
	cairo_rectangle(c, x, y, n, h);
	cairo_fill(c);
	cairo_restore(c);
	cairo_surface_finish(s);
	cairo_surface_destroy(s);
	return 1;
}

static void free_state(void *p)
{
	struct state *s = p;
	free(s->row);
	free(s);
}

struct weft_canvas weft_cairo_canvas(cairo_t *cr)
{
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
	/* Without its state (out of memory) it draws each shape at once. */
	if (!pending(cr)) {
		struct state *p = calloc(1, sizeof *p);
		if (p && cairo_set_user_data(cr, &key, p, free_state))
			free(p);
	}
	struct weft_canvas c = {cr,	  color, line_width, line,  rect,
				triangle, text,	 text_width, clip,  unclip,
				flush,	  mask,	 1,	     shades};
	return c;
}
