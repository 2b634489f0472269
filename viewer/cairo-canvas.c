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
#include <stdlib.h>

#include "cairo-canvas.h"

enum { NONE, STROKE, FILL };

static const cairo_user_data_key_t key;

static int *pending(cairo_t *c)
{
	return cairo_get_user_data(c, &key);
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

struct weft_canvas weft_cairo_canvas(cairo_t *cr)
{
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
	/* Without its state (out of memory) it draws each shape at once. */
	if (!pending(cr)) {
		int *p = calloc(1, sizeof *p);
		if (p && cairo_set_user_data(cr, &key, p, free))
			free(p);
	}
	struct weft_canvas c = {cr,	  color, line_width, line, rect,
				triangle, text,	 text_width, clip, unclip,
				flush,	  mask,	 1};
	return c;
}
