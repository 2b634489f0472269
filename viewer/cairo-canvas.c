/* SPDX-License-Identifier: MIT */
/* cairo-canvas.c - the renderer's canvas on a cairo context (PNG, SVG,
 * and the GTK viewer). */
#include <cairo.h>

#include "cairo-canvas.h"

static void color(void *c, double r, double g, double b, double a)
{
	cairo_set_source_rgba(c, r, g, b, a);
}

static void line_width(void *c, double w)
{
	cairo_set_line_width(c, w);
}

static void line(void *c, double x0, double y0, double x1, double y1)
{
	cairo_move_to(c, x0, y0);
	cairo_line_to(c, x1, y1);
	cairo_stroke(c);
}

static void rect(void *c, double x, double y, double w, double h)
{
	cairo_rectangle(c, x, y, w, h);
	cairo_fill(c);
}

static void triangle(void *c, double x0, double y0, double x1, double y1,
		     double x2, double y2)
{
	cairo_move_to(c, x0, y0);
	cairo_line_to(c, x1, y1);
	cairo_line_to(c, x2, y2);
	cairo_close_path(c);
	cairo_fill(c);
}

static void text(void *c, double x, double y, double size, const char *s)
{
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
	cairo_save(c);
	cairo_rectangle(c, x, y, w, h);
	cairo_clip(c);
}

static void unclip(void *c)
{
	cairo_restore(c);
}

struct weft_canvas weft_cairo_canvas(cairo_t *cr)
{
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
	struct weft_canvas c = {cr,   color, line_width, line,   rect,
				triangle, text,  text_width, clip,   unclip};
	return c;
}
