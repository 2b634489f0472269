/* SPDX-License-Identifier: MIT */
/*
 * canvas.h - what the renderer draws through.  A front end fills this
 * with its drawing calls: cairo (PNG, SVG, the GTK window) or, compiled to
 * WebAssembly, an HTML canvas.  Coordinates are pixels, origin top left.
 * The renderer batches by colour, because switching colours is what some
 * back ends (HTML canvas) do slowly; a back end may gather the shapes of
 * one colour and draw them together when the colour, the line width or
 * the clip changes, at text, and at flush() (the end of a frame).
 */
#ifndef WEFT_CANVAS_H
#define WEFT_CANVAS_H

struct weft_canvas {
	void *ctx;
	void (*color)(void *ctx, double r, double g, double b, double a);
	void (*line_width)(void *ctx, double w);
	void (*line)(void *ctx, double x0, double y0, double x1, double y1);
	void (*rect)(void *ctx, double x, double y, double w, double h);
	void (*triangle)(void *ctx, double x0, double y0, double x1, double y1,
			 double x2, double y2);
	/* text with its baseline at y, `size` pixels high */
	void (*text)(void *ctx, double x, double y, double size, const char *s);
	double (*text_width)(void *ctx, double size, const char *s);
	void (*clip)(void *ctx, double x, double y, double w, double h);
	void (*unclip)(void *ctx);
	void (*flush)(void *ctx); /* may be NULL */
	/* A mask drawn in the current colour: `h` rows of `w` alpha bytes
	 * (0 transparent .. 255 opaque), `stride` bytes apart (a multiple
	 * of 4), its top left pixel at (x, y).  May be NULL: the renderer
	 * then draws the same as boxes (more of them: a mask is how a
	 * dense picture, the squeezed rows, costs one call). */
	void (*mask)(void *ctx, int x, int y, int w, int h,
		     const unsigned char *alpha, int stride);
	/* Non-zero: a mask costs this back end less than the boxes it
	 * replaces, so the renderer sends a pass's boxes of one colour as
	 * one mask over what they cover (cairo: a mask is composited
	 * straight, a box is a path to fill).  Zero: boxes (an HTML canvas
	 * pays for every pixel of a mask in WebAssembly and JavaScript). */
	int masks_for_boxes;
	/* Columns of shades, at once (may be NULL): `n` columns 1 px wide
	 * from x, each from y to y + h, column i in (r, g, b) at opacity
	 * q[i] / steps (0: none), the same pixels as a box per column;
	 * the colour is left as it was.  Returns 0 when it cannot (then
	 * the renderer draws the boxes).  (cairo: one picture across,
	 * where the boxes of each opacity were a pass over the surface.) */
	int (*shades)(void *ctx, int x, int y, int n, int h,
		      const unsigned char *q, int steps, double r, double g,
		      double b);
};

#endif
