/* SPDX-License-Identifier: MIT */
/* pixcount.c - `pixcount FILE.png R G B [Y0 Y1]`: how many pixels are
 * within 16/255 of that colour (for the viewer tests), in the rows from Y0
 * to Y1 (excluded) when given; `pixcount FILE.png`: "W H"; `pixcount
 * A.png B.png`: how many pixels differ in colour (alpha aside), or -1
 * when the sizes differ. */
#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>

/* The pixels of s and of the PNG b that differ in red, green or blue
 * (both converted to the same format by cairo). */
static int differ(cairo_surface_t *s, const char *b)
{
	cairo_surface_t *t = cairo_image_surface_create_from_png(b);
	if (cairo_surface_status(t) != CAIRO_STATUS_SUCCESS)
		return 1;
	int w = cairo_image_surface_get_width(s);
	int h = cairo_image_surface_get_height(s);
	long n = 0;
	if (w != cairo_image_surface_get_width(t) ||
	    h != cairo_image_surface_get_height(t))
		n = -1;
	for (int y = 0; n >= 0 && y < h; y++)
		for (int x = 0; x < w; x++) {
			const unsigned char *p =
				cairo_image_surface_get_data(s) +
				y * cairo_image_surface_get_stride(s) + x * 4;
			const unsigned char *q =
				cairo_image_surface_get_data(t) +
				y * cairo_image_surface_get_stride(t) + x * 4;
			n += p[0] != q[0] || p[1] != q[1] || p[2] != q[2];
		}
	printf("%ld\n", n);
	cairo_surface_destroy(s);
	cairo_surface_destroy(t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 7 && argc != 5 && argc != 2 && argc != 3)
		return 2;
	cairo_surface_t *s = cairo_image_surface_create_from_png(argv[1]);
	if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS)
		return 1;
	if (argc == 3)
		return differ(s, argv[2]);
	if (argc == 2) {
		printf("%d %d\n", cairo_image_surface_get_width(s),
		       cairo_image_surface_get_height(s));
		cairo_surface_destroy(s);
		return 0;
	}
	int r = atoi(argv[2]), g = atoi(argv[3]), b = atoi(argv[4]);
	int w = cairo_image_surface_get_width(s);
	int h = cairo_image_surface_get_height(s);
	int stride = cairo_image_surface_get_stride(s);
	const unsigned char *d = cairo_image_surface_get_data(s);
	int y0 = argc == 7 ? atoi(argv[5]) : 0;
	int y1 = argc == 7 ? atoi(argv[6]) : h;
	y0 = y0 < 0 ? 0 : y0;
	y1 = y1 > h ? h : y1;
	long n = 0;
	for (int y = y0; y < y1; y++)
		for (int x = 0; x < w; x++) {
			const unsigned char *p = d + y * stride + x * 4;
			n += abs(p[2] - r) < 16 && abs(p[1] - g) < 16 &&
			     abs(p[0] - b) < 16;
		}
	printf("%ld\n", n);
	fflush(stdout);
	cairo_surface_destroy(s);
	return 0;
}
