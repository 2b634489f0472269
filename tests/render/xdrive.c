/* SPDX-License-Identifier: MIT */
/*
 * xdrive.c - drives an X display for the GTK viewer's test, the way a
 * person would: real input events through the XTest extension, and
 * screenshots of what the X server shows.
 *
 *   xdrive wait TITLE SECONDS   until a window whose name contains TITLE
 *                               is mapped (exit 1 on time-out)
 *   xdrive shot OUT.png         the whole screen, as the server has it
 *   xdrive find R G B           "X Y" of a pixel of that colour (within
 *                               16) on screen, the middle one of the
 *                               matches; exit 1 if none
 *   xdrive click X Y            a left click at (X, Y)
 *   xdrive dblclick X Y         a double click
 *   xdrive drag X0 Y0 X1 Y1 [KEY]
 *                               press at (X0, Y0), move in steps, release at
 *                               (X1, Y1); KEY (Shift_L) held all along
 *   xdrive move X Y             the pointer to (X, Y)
 *   xdrive button N COUNT       COUNT clicks of button N where the pointer
 *                               is (4, 5: wheel up, down; 6, 7: left, right)
 *   xdrive key NAME             a key press and release (X keysym name)
 *   xdrive resize TITLE W H     the window whose name contains TITLE to
 *                               W x H pixels, as a window manager would
 */
#include <X11/XKBlib.h>
#include <X11/Xlib.h>
#include <X11/keysym.h>
#include <X11/Xutil.h>
#include <X11/extensions/XTest.h>
#include <cairo-xlib.h>
#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The viewable window under w whose name contains title, or 0. */
static Window find_window(Display *d, Window w, const char *title)
{
	char *name = NULL;
	XWindowAttributes a;
	if (XFetchName(d, w, &name) && name) {
		int hit = strstr(name, title) != NULL;
		XFree(name);
		if (hit && XGetWindowAttributes(d, w, &a) &&
		    a.map_state == IsViewable)
			return w;
	}
	Window root, parent, *kids = NULL;
	unsigned n = 0;
	if (!XQueryTree(d, w, &root, &parent, &kids, &n))
		return 0;
	Window found = 0;
	for (unsigned i = 0; i < n && !found; i++)
		found = find_window(d, kids[i], title);
	if (kids)
		XFree(kids);
	return found;
}

static cairo_surface_t *grab(Display *d)
{
	int s = DefaultScreen(d);
	int w = DisplayWidth(d, s), h = DisplayHeight(d, s);
	cairo_surface_t *x = cairo_xlib_surface_create(
		d, RootWindow(d, s), DefaultVisual(d, s), w, h);
	cairo_surface_t *img =
		cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	cairo_t *cr = cairo_create(img);
	cairo_set_source_surface(cr, x, 0, 0);
	cairo_paint(cr);
	cairo_destroy(cr);
	cairo_surface_destroy(x);
	cairo_surface_flush(img);
	return img;
}

static void pause_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

static void click(Display *d, int x, int y, int times)
{
	XTestFakeMotionEvent(d, DefaultScreen(d), x, y, 0);
	XSync(d, False);
	pause_ms(50);
	for (int i = 0; i < times; i++) {
		XTestFakeButtonEvent(d, 1, True, 0);
		XTestFakeButtonEvent(d, 1, False, 0);
		XSync(d, False);
		pause_ms(40);
	}
}

/* Press at (x0, y0), move to (x1, y1) in steps, release there; the key
 * `held` (0: none) down from before the press to after the release. */
static void drag(Display *d, int x0, int y0, int x1, int y1, KeyCode held)
{
	if (held)
		XTestFakeKeyEvent(d, held, True, 0);
	XTestFakeMotionEvent(d, DefaultScreen(d), x0, y0, 0);
	XSync(d, False);
	pause_ms(50);
	XTestFakeButtonEvent(d, 1, True, 0);
	XSync(d, False);
	for (int i = 1; i <= 10; i++) {
		pause_ms(20);
		XTestFakeMotionEvent(d, DefaultScreen(d),
				     x0 + (x1 - x0) * i / 10,
				     y0 + (y1 - y0) * i / 10, 0);
		XSync(d, False);
	}
	pause_ms(40);
	XTestFakeButtonEvent(d, 1, False, 0);
	if (held)
		XTestFakeKeyEvent(d, held, False, 0);
	XSync(d, False);
}

int main(int argc, char **argv)
{
	Display *d = XOpenDisplay(NULL);
	if (!d || argc < 2) {
		fprintf(stderr, "xdrive: %s\n", d ? "usage" : "no display");
		return 2;
	}
	int ev, er, maj, min;
	if (!XTestQueryExtension(d, &ev, &er, &maj, &min)) {
		fprintf(stderr, "xdrive: no XTest on this display\n");
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "wait") && argc == 4) {
		for (int i = 0; i < atoi(argv[3]) * 10; i++) {
			if (find_window(d, DefaultRootWindow(d), argv[2]))
				return 0;
			pause_ms(100);
		}
		return 1;
	}
	if (!strcmp(cmd, "resize") && argc == 5) {
		Window w = find_window(d, DefaultRootWindow(d), argv[2]);
		if (!w)
			return 1;
		XResizeWindow(d, w, (unsigned)atoi(argv[3]),
			      (unsigned)atoi(argv[4]));
		XSync(d, False);
		pause_ms(300);
		return 0;
	}
	if (!strcmp(cmd, "shot") && argc == 3) {
		cairo_surface_t *img = grab(d);
		int bad = cairo_surface_write_to_png(img, argv[2]);
		cairo_surface_destroy(img);
		return bad != CAIRO_STATUS_SUCCESS;
	}
	if (!strcmp(cmd, "find") && argc == 5) {
		int r = atoi(argv[2]), g = atoi(argv[3]), b = atoi(argv[4]);
		cairo_surface_t *img = grab(d);
		int w = cairo_image_surface_get_width(img);
		int h = cairo_image_surface_get_height(img);
		int stride = cairo_image_surface_get_stride(img);
		const unsigned char *px = cairo_image_surface_get_data(img);
		long n = 0;
		for (int pass = 0; pass < 2; pass++) {
			long k = 0;
			for (int y = 0; y < h; y++)
				for (int x = 0; x < w; x++) {
					const unsigned char *p =
						px + y * stride + x * 4;
					if (abs(p[2] - r) >= 16 ||
					    abs(p[1] - g) >= 16 ||
					    abs(p[0] - b) >= 16)
						continue;
					if (pass && k == n / 2) {
						printf("%d %d\n", x, y);
						cairo_surface_destroy(img);
						return 0;
					}
					k++;
				}
			n = k;
			if (!n)
				break;
		}
		cairo_surface_destroy(img);
		return 1;
	}
	if ((!strcmp(cmd, "click") || !strcmp(cmd, "dblclick")) && argc == 4) {
		click(d, atoi(argv[2]), atoi(argv[3]), cmd[0] == 'd' ? 2 : 1);
		return 0;
	}
	if (!strcmp(cmd, "drag") && (argc == 6 || argc == 7)) {
		KeySym ks = argc == 7 ? XStringToKeysym(argv[6]) : NoSymbol;
		KeyCode held = ks != NoSymbol ? XKeysymToKeycode(d, ks) : 0;
		if (argc == 7 && !held) {
			fprintf(stderr, "xdrive: no key '%s'\n", argv[6]);
			return 2;
		}
		drag(d, atoi(argv[2]), atoi(argv[3]), atoi(argv[4]),
		     atoi(argv[5]), held);
		return 0;
	}
	if (!strcmp(cmd, "button") && argc == 4) {
		/* 4, 5: wheel up, down; 6, 7: left, right -- COUNT notches */
		for (int i = 0; i < atoi(argv[3]); i++) {
			XTestFakeButtonEvent(d, (unsigned)atoi(argv[2]), True,
					     0);
			XTestFakeButtonEvent(d, (unsigned)atoi(argv[2]), False,
					     0);
			XSync(d, False);
			pause_ms(30);
		}
		return 0;
	}
	if (!strcmp(cmd, "move") && argc == 4) {
		XTestFakeMotionEvent(d, DefaultScreen(d), atoi(argv[2]),
				     atoi(argv[3]), 0);
		XSync(d, False);
		return 0;
	}
	if (!strcmp(cmd, "key") && argc == 3) {
		KeySym ks = XStringToKeysym(argv[2]);
		KeyCode kc = ks ? XKeysymToKeycode(d, ks) : 0;
		if (!kc) {
			fprintf(stderr, "xdrive: no key '%s'\n", argv[2]);
			return 2;
		}
		/* ("question" is shift+slash on a US keyboard) */
		KeyCode shift = XkbKeycodeToKeysym(d, kc, 0, 0) != ks
					? XKeysymToKeycode(d, XK_Shift_L)
					: 0;
		if (shift)
			XTestFakeKeyEvent(d, shift, True, 0);
		XTestFakeKeyEvent(d, kc, True, 0);
		XTestFakeKeyEvent(d, kc, False, 0);
		if (shift)
			XTestFakeKeyEvent(d, shift, False, 0);
		XSync(d, False);
		return 0;
	}
	fprintf(stderr, "xdrive: usage\n");
	return 2;
}
