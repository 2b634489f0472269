/* SPDX-License-Identifier: MIT */
/* test-render.c - the renderer through cairo: pixels of each arrow colour
 * where the trace has those arrows, the should-resolve line to the right
 * edge, search highlight, selection, counters, level of detail, a
 * frame's primitives bounded on a large trace, and two runs side by side
 * (pair.h). */
#include <cairo.h>
#include <math.h>
#include <pthread.h>
#include <time.h>

#include "../harness.h"
#include "../unit/util.h"
#include "cairo-canvas.h"
#include "pair.h"
#include "view-internal.h" /* (the coverage rows: zoom_at_changing_sizes) */
#include "view.h"
#include "weft/model.h"
#include "weft/weft.h"

struct pic {
	struct weft_reader *r;
	struct weft_model *m;
	struct weft_view *v;
	cairo_surface_t *s;
	long prims;
};

static void draw(struct pic *p, int w, int h)
{
	if (p->s)
		cairo_surface_destroy(p->s);
	p->s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	cairo_t *cr = cairo_create(p->s);
	struct weft_canvas c = weft_cairo_canvas(cr);
	p->prims = weft_view_render(p->v, &c);
	cairo_destroy(cr);
	cairo_surface_flush(p->s);
}

static void load(struct pic *p, const char *path, int w, int h)
{
	memset(p, 0, sizeof *p);
	CHECK_OK(weft_reader_open(&p->r, path, 0, NULL));
	CHECK_OK(weft_model_load(&p->m, p->r));
	p->v = weft_view_new(p->m, w, h);
	CHECK(p->v != NULL);
	draw(p, w, h);
}

/* Pixels within 16/255 of (r, g, b) in a rectangle (whole image: w=0). */
static long count(struct pic *p, int r, int g, int b, int x0, int y0, int w,
		  int h)
{
	int W = cairo_image_surface_get_width(p->s);
	int H = cairo_image_surface_get_height(p->s);
	int stride = cairo_image_surface_get_stride(p->s);
	const unsigned char *d = cairo_image_surface_get_data(p->s);
	if (!w) {
		w = W;
		h = H;
	}
	long n = 0;
	for (int y = y0; y < y0 + h && y < H; y++)
		for (int x = x0; x < x0 + w && x < W; x++) {
			const unsigned char *px = d + y * stride + x * 4;
			if (abs(px[2] - r) < 16 && abs(px[1] - g) < 16 &&
			    abs(px[0] - b) < 16)
				n++;
		}
	return n;
}

/* Most traces here run on the manual clock (WEFT_CLOCK_MANUAL): each
 * step takes the time the test says, so the picture is the same on any
 * machine, however loaded (a preemption of the test, or a page fault,
 * would otherwise squeeze or stretch what is drawn). */
static uint64_t clock_ns;

static void start_manual(const char *path, size_t bytes, unsigned flags)
{
	CHECK_OK(weft_start(path, bytes, flags | WEFT_CLOCK_MANUAL));
	clock_ns = 0;
}

static void tick_ns(uint64_t ns)
{
	clock_ns += ns;
	weft_clock_set(clock_ns);
}

static long count_arrow_in(struct pic *p, int r, int g, int b, int x0, int x1);

/* Pixels of an arrow of colour (r, g, b), drawn at any opacity from 1/2 to
 * 1 over the background (0.9 grey): long arrows fade with their length
 * (ARROW_FADE), so how long one is on screen, which depends on the
 * machine's timing, must not decide whether it is found. */
static long count_arrow(struct pic *p, int r, int g, int b)
{
	return count_arrow_in(p, r, g, b, 0, 1 << 30);
}

static long count_arrow_in_box(struct pic *p, int r, int g, int b, int x0,
			       int y0, int w, int h);

/* The same in the columns [x0, x1). */
static long count_arrow_in(struct pic *p, int r, int g, int b, int x0, int x1)
{
	return count_arrow_in_box(p, r, g, b, x0, 0, x1 - x0, 1 << 30);
}

/* The same in a box. */
static long count_arrow_in_box(struct pic *p, int r, int g, int b, int x0,
			       int y0, int w, int h)
{
	int x1 = x0 + w;
	const double bg = 0.9 * 255, c[3] = {b, g, r};
	int W = cairo_image_surface_get_width(p->s);
	int H = cairo_image_surface_get_height(p->s);
	int stride = cairo_image_surface_get_stride(p->s);
	const unsigned char *d = cairo_image_surface_get_data(p->s);
	double den = 0;
	for (int k = 0; k < 3; k++)
		den += (c[k] - bg) * (c[k] - bg);
	long n = 0;
	for (int y = y0 < 0 ? 0 : y0; y < H && y - y0 < h; y++)
		for (int x = x0 < 0 ? 0 : x0; x < W && x < x1; x++) {
			const unsigned char *px = d + y * stride + x * 4;
			/* the opacity that explains the pixel best */
			double a = 0;
			for (int k = 0; k < 3; k++)
				a += (px[k] - bg) * (c[k] - bg);
			a /= den;
			if (a < 0.5 || a > 1.05)
				continue;
			int ok = 1;
			for (int k = 0; k < 3; k++)
				ok &= fabs(px[k] - (a * c[k] + (1 - a) * bg)) <
				      16;
			n += ok;
		}
	return n;
}

/* The seed's ARP hang, by hand: every arrow colour.  Each event is
 * followed by a millisecond of the manual clock. */
#define E(ev)                                                                  \
	do {                                                                   \
		ev;                                                            \
		tick_ns(1000000);                                              \
	} while (0)
static void arp(const char *path)
{
	start_manual(path, 1 << 20, 0);
	E(weft_run(1));
	E(weft_create(2, "task"));
	weft_label(2, "main");
	E(weft_should_resolve(2));
	E(weft_run(2));
	E(weft_create(3, "task"));
	weft_label(3, "TCP connect");
	E(weft_try_read(3)); /* yellow: never followed by a read */
	E(weft_run(3));
	E(weft_create(4, "condition"));
	weft_label(4, "ARP response");
	E(weft_create(5, "wait"));
	weft_label(5, "ring.write");
	E(weft_try_read(5));
	E(weft_run(1));
	E(weft_create(6, "event"));
	E(weft_run(6));
	E(weft_signal(4));  /* orange */
	E(weft_resolve(5)); /* green */
	E(weft_create(7, "task"));
	E(weft_fail(7, "boom"));
	E(weft_run(3));
	E(weft_read(5)); /* blue */
	E(weft_read(7)); /* red: read of a failure */
	E(weft_try_read(4));
	E(weft_run(0));
	CHECK_OK(weft_stop());
}
#undef E

TEST(arrow_colours)
{
	const char *p = tpath("arp.weft");
	arp(p);
	struct pic pic;
	load(&pic, p, 900, 300);
	CHECK(count_arrow(&pic, 0, 128, 0) > 10);    /* resolve */
	CHECK(count_arrow(&pic, 0, 0, 255) > 10);    /* read */
	CHECK(count_arrow(&pic, 255, 153, 0) > 10);  /* signal */
	CHECK(count_arrow(&pic, 204, 204, 102) > 5); /* try_read */
	CHECK(count_arrow(&pic, 255, 0, 0) > 10);    /* failed read */
	CHECK_EQ(count_arrow(&pic, 0, 255, 255), 0); /* no arrow is cyan */
	/* main should resolve and did not: red to the right edge */
	int row = weft_view_row(pic.v, weft_model_find(pic.m, 2));
	CHECK(row >= 0);
	int y = (int)weft_view_row_y(pic.v, row, NULL);
	CHECK(count(&pic, 204, 0, 0, 800, y - 1, 90, 3) > 60);
	/* no highlight yet */
	CHECK_EQ(count(&pic, 255, 255, 0, 0, 0, 0, 0), 0);
	CHECK_EQ(weft_view_search(pic.v, "tcp CONNECT"), 1);
	draw(&pic, 900, 300);
	CHECK(count(&pic, 255, 255, 0, 0, 0, 0, 0) > 100);
	CHECK_EQ(weft_view_search(pic.v, NULL), 0);
	/* picking: the thread under its own line */
	uint32_t t3 = weft_model_find(pic.m, 3), nth;
	int r3 = weft_view_row(pic.v, t3);
	const struct weft_thread *th3 = weft_model_threads(pic.m, &nth) + t3;
	int64_t a0, a1;
	weft_view_range(pic.v, &a0, &a1);
	double xm = 8 + (double)((th3->t_create + th3->t_end) / 2 - a0) *
				(900 - 16) / (double)(a1 - a0);
	CHECK_EQ(weft_view_pick(pic.v, xm, weft_view_row_y(pic.v, r3, NULL)),
		 t3);
	/* (rows are laid out under the ruler: the pick counts from there) */
	CHECK_EQ(weft_view_pick(pic.v, xm,
				weft_view_row_y(pic.v, r3, NULL) - 26),
		 weft_model_find(pic.m, 2));
	CHECK_EQ(weft_view_pick(pic.v, xm,
				18 + 26 * weft_view_rows(pic.v) + 46),
		 WEFT_NONE);
	weft_view_free(pic.v);
	weft_model_free(pic.m);
	weft_reader_close(pic.r);
}

/* A canvas that counts colour changes, lines and the texts equal to
 * counted_text on the way to cairo. */
static struct weft_canvas counted_inner;
static long counted_colors, counted_lines, counted_rects, counted_texts;
static const char *counted_text;
static double counted_text_x; /* where the last one was drawn */
/* texts starting with counted_prefix, and the last of them */
static const char *counted_prefix;
static long counted_prefixed;
static char counted_last[256];
static void counted_color(void *c, double r, double g, double b, double a)
{
	counted_colors++;
	counted_inner.color(c, r, g, b, a);
}
static void counted_rect(void *c, double x, double y, double w, double h)
{
	counted_rects++;
	counted_inner.rect(c, x, y, w, h);
}
static void counted_line(void *c, double x0, double y0, double x1, double y1)
{
	counted_lines++;
	counted_inner.line(c, x0, y0, x1, y1);
}
static void counted_text_fn(void *c, double x, double y, double size,
			    const char *s)
{
	if (counted_text && !strcmp(s, counted_text)) {
		counted_texts++;
		counted_text_x = x;
	}
	if (counted_prefix &&
	    !strncmp(s, counted_prefix, strlen(counted_prefix))) {
		counted_prefixed++;
		snprintf(counted_last, sizeof counted_last, "%s", s);
	}
	counted_inner.text(c, x, y, size, s);
}

/* Draws pic's view through the counting canvas; returns the primitives. */
static long draw_counted(struct pic *p)
{
	cairo_t *cr = cairo_create(p->s);
	counted_inner = weft_cairo_canvas(cr);
	struct weft_canvas c = counted_inner;
	c.color = counted_color;
	c.line = counted_line;
	c.rect = counted_rect;
	c.text = counted_text_fn;
	counted_colors = counted_lines = counted_rects = counted_texts = 0;
	counted_prefixed = 0;
	long prims = weft_view_render(p->v, &c);
	cairo_destroy(cr);
	return prims;
}

/* Labels appear when there is room: zoomed out over many short threads
 * they do not; zoomed in on one, its label does. */
TEST(level_of_detail)
{
	const char *p = tpath("many.weft");
	start_manual(p, 64 << 20, WEFT_DISCARD);
	for (uint64_t i = 1; i <= 200000; i++) {
		weft_run(0);
		weft_create(i, "req");
		weft_label(i, "a long label for a short thread");
		tick_ns(20);
		weft_run(i);
		weft_resolve(i);
		tick_ns(20);
	}
	weft_run(0);
	CHECK_OK(weft_stop());
	struct pic pic;
	load(&pic, p, 1000, 400);
	/* a frame draws at most a few primitives per pixel column and row,
	 * however many events there are */
	CHECK(pic.prims < 20000);
	counted_text = "a long label for a short thread";
	draw_counted(&pic);
	CHECK_EQ(counted_texts, 0);
	/* zooming narrows the range around the pointer */
	int64_t a, b, c0, c1;
	weft_view_range(pic.v, &a, &b);
	weft_view_zoom(pic.v, 2, 500);
	weft_view_range(pic.v, &c0, &c1);
	CHECK(c1 - c0 < b - a);
	CHECK(c0 > a && c1 < b);
	int64_t t0, t1;
	weft_model_range(pic.m, &t0, &t1);
	uint32_t th = weft_model_find(pic.m, 1000);
	const struct weft_thread *x =
		weft_model_threads(pic.m, &(uint32_t){0}) + th;
	weft_view_set_range(pic.v, x->t_create - 5, x->t_end + 60);
	draw_counted(&pic);
	/* its label appears when zoomed in */
	CHECK(counted_texts >= 1);
	weft_view_free(pic.v);
	weft_model_free(pic.m);
	weft_reader_close(pic.r);
}

static void unload(struct pic *p)
{
	weft_view_free(p->v);
	weft_model_free(p->m);
	weft_reader_close(p->r);
	cairo_surface_destroy(p->s);
}

/* Many rows: a band of full rows around the focus, the others squeezed
 * so that every row stays on screen; moving the focus moves the band. */
TEST(focus_and_context)
{
	const char *p = tpath("rows.weft");
	/* (the program's clock: a preemption between two resolves put the
	 * threads that ended after it in rows above the others) */
	start_manual(p, 16 << 20, WEFT_DISCARD);
	weft_run(1);
	for (uint64_t i = 0; i < 300; i++) {
		tick_ns(100);
		weft_create(100 + i, "conn");
		weft_label(100 + i, "connection");
	}
	for (uint64_t i = 0; i < 300; i++) {
		tick_ns(100);
		weft_resolve(100 + i);
	}
	weft_run(0);
	CHECK_OK(weft_stop());
	struct pic pic;
	load(&pic, p, 900, 400);
	CHECK(weft_view_rows(pic.v) >= 300);
	double h0, h1, hl;
	uint32_t first = weft_model_find(pic.m, 100),
		 mid = weft_model_find(pic.m, 250),
		 last = weft_model_find(pic.m, 399);
	double y0 = weft_view_thread_y(pic.v, first, &h0);
	double y1 = weft_view_thread_y(pic.v, mid, &h1);
	double yl = weft_view_thread_y(pic.v, last, &hl);
	/* focus at the top: the first rows full, the others squeezed, the
	 * last one still on screen above the grid and counters */
	CHECK(h0 == 26);
	CHECK(h1 < 2 && hl < 2);
	CHECK(y0 < y1 && y1 < yl && yl < 400 - 16);
	CHECK(pic.prims < 20000);
	/* the focus on row 250: it is full, row 0 is squeezed */
	weft_view_set_focus(pic.v, weft_view_row(pic.v, mid));
	y1 = weft_view_thread_y(pic.v, mid, &h1);
	weft_view_thread_y(pic.v, first, &h0);
	CHECK(h1 == 26 && h0 < 2);
	/* a full row shows its label (black), and picking finds it */
	draw(&pic, 900, 400);
	CHECK(count(&pic, 0, 0, 0, 0, (int)y1 - 14, 900, 12) > 20);
	const struct weft_thread *tm =
		weft_model_threads(pic.m, &(uint32_t){0}) + mid;
	int64_t a0, a1;
	weft_view_range(pic.v, &a0, &a1);
	double xm = 8 + (double)((tm->t_create + tm->t_end) / 2 - a0) *
				(900 - 16) / (double)(a1 - a0);
	CHECK_EQ(weft_view_pick(pic.v, xm, y1), mid);
	/* dragging down by two rows brings the rows above into focus */
	int f = weft_view_focus(pic.v);
	weft_view_pan(pic.v, 0, 52);
	CHECK_EQ(weft_view_focus(pic.v), f - 2);
	unload(&pic);
}

/* The causal chain of ring.write in the ARP trace: its creator (TCP
 * connect) and theirs, the event that resolved it, the reader; not the
 * ARP condition nor the failed task it never touched. */
TEST(causal_chain)
{
	const char *p = tpath("arp2.weft");
	arp(p);
	struct pic pic;
	load(&pic, p, 900, 300);
	uint32_t t[8];
	for (int i = 1; i < 8; i++)
		t[i] = weft_model_find(pic.m, (uint64_t)i);
	CHECK_EQ(weft_view_chain(pic.v, t[5]), 5);
	CHECK(weft_view_in_chain(pic.v, t[5]) &&
	      weft_view_in_chain(pic.v, t[3]) &&
	      weft_view_in_chain(pic.v, t[6]) &&
	      weft_view_in_chain(pic.v, t[2]) &&
	      weft_view_in_chain(pic.v, t[1]));
	CHECK(!weft_view_in_chain(pic.v, t[4]) &&
	      !weft_view_in_chain(pic.v, t[7]));
	/* highlighted (light teal behind the lines) */
	draw(&pic, 900, 300);
	CHECK(count(&pic, 176, 222, 207, 0, 0, 0, 0) > 200);
	/* a selection is outlined in orange */
	CHECK_EQ(count(&pic, 255, 115, 0, 0, 0, 0, 0), 0);
	weft_view_select(pic.v, t[5]);
	draw(&pic, 900, 300);
	CHECK(count(&pic, 255, 115, 0, 0, 0, 0, 0) > 50);
	/* only the chain: five rows, the others not laid out */
	int rows = weft_view_rows(pic.v);
	weft_view_only_chain(pic.v, 1);
	CHECK_EQ(weft_view_rows(pic.v), 5);
	CHECK(weft_view_rows(pic.v) < rows);
	CHECK_EQ(weft_view_row(pic.v, t[4]), -1);
	CHECK_EQ(weft_view_row(pic.v, t[7]), -1);
	CHECK(weft_view_row(pic.v, t[6]) >= 0);
	draw(&pic, 900, 300);
	CHECK_EQ(count(&pic, 255, 153, 0, 0, 0, 0, 0), 0); /* signal to 4 */
	CHECK(count(&pic, 0, 128, 0, 0, 0, 0, 0) > 10);	   /* 6 resolved 5 */
	weft_view_only_chain(pic.v, 0);
	CHECK_EQ(weft_view_rows(pic.v), rows);
	CHECK(weft_view_chain(pic.v, WEFT_NONE) == 0);
	CHECK(!weft_view_in_chain(pic.v, t[5]));
	/* with nothing highlighted, "connected" takes the selection's */
	weft_view_select(pic.v, t[5]);
	weft_view_only_chain(pic.v, 1);
	CHECK_EQ(weft_view_chain_size(pic.v), 5);
	CHECK_EQ(weft_view_rows(pic.v), 5);
	weft_view_only_chain(pic.v, 0);
	unload(&pic);
}

/* Counters toggled one by one and all together. */
TEST(counter_toggles)
{
	const char *p = tpath("ctr.weft");
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_run(1);
	for (int i = 0; i < 50; i++) {
		weft_counter_set("first", i % 7);
		weft_counter_set("second", (i * 3) % 11);
	}
	weft_run(0);
	CHECK_OK(weft_stop());
	struct pic pic;
	load(&pic, p, 600, 300);
	CHECK(count(&pic, 255, 102, 102, 0, 0, 0, 0) > 50); /* first */
	CHECK(count(&pic, 255, 127, 0, 0, 0, 0, 0) > 50);   /* second */
	weft_view_show_counter(pic.v, 0, 0);
	CHECK(!weft_view_counter_shown(pic.v, 0));
	CHECK(weft_view_counter_shown(pic.v, 1));
	draw(&pic, 600, 300);
	CHECK_EQ(count(&pic, 255, 102, 102, 0, 0, 0, 0), 0);
	CHECK(count(&pic, 255, 127, 0, 0, 0, 0, 0) > 50);
	weft_view_show_counter(pic.v, 1, 0);
	draw(&pic, 600, 300);
	CHECK_EQ(count(&pic, 255, 127, 0, 0, 0, 0, 0), 0);
	weft_view_show_counter(pic.v, 0, 1);
	weft_view_show_counters(pic.v, 0);
	draw(&pic, 600, 300);
	CHECK_EQ(count(&pic, 255, 102, 102, 0, 0, 0, 0), 0);
	weft_view_show_counters(pic.v, 1);
	draw(&pic, 600, 300);
	CHECK(count(&pic, 255, 102, 102, 0, 0, 0, 0) > 50);
	unload(&pic);
}

/* Spans (teal under the line), notes (purple flags), becomes (a
 * vertical line between the two rows) and the mark of a thread still
 * pending at the end (grey, where it was last seen). */
/* Pixels of [x0, x0 + w) x [y0, y0 + h) that are not a blend of colours
 * a and b (text antialiased on its box), within 24/255. */
static long off_blend(struct pic *p, const int a[3], const int b[3], int x0,
		      int y0, int w, int h)
{
	int stride = cairo_image_surface_get_stride(p->s);
	const unsigned char *d = cairo_image_surface_get_data(p->s);
	long n = 0;
	for (int y = y0; y < y0 + h; y++)
		for (int x = x0; x < x0 + w; x++) {
			const unsigned char *px = d + y * stride + x * 4;
			int c[3] = {px[2], px[1], px[0]};
			/* the share of b that explains the pixel best */
			double num = 0, den = 0, err = 0;
			for (int k = 0; k < 3; k++) {
				num += (double)(c[k] - a[k]) * (b[k] - a[k]);
				den += (double)(b[k] - a[k]) * (b[k] - a[k]);
			}
			double f = num / den;
			f = f < 0 ? 0 : f > 1 ? 1 : f;
			for (int k = 0; k < 3; k++) {
				double e = c[k] - (a[k] + f * (b[k] - a[k]));
				err = fabs(e) > err ? fabs(e) : err;
			}
			n += err > 24;
		}
	return n;
}

/* Under the pointer each counter writes its value at that time; a
 * counter's name is on a box no plot paints over (here the second
 * counter's plot runs at its top, through the first one's name). */
TEST(counter_values_at_pointer_names_on_top)
{
	const char *path = tpath("cp.weft");
	start_manual(path, 1 << 20, 0);
	weft_run(1);
	for (int i = 1; i <= 100; i++) {
		weft_clock_set((uint64_t)i * 1000);
		weft_counter_set("first", i);
		/* (its line: 9/10 up, through the first one's name) */
		weft_counter_set("second", i < 50 ? 0 : i == 50 ? 1000 : 900);
	}
	weft_run(0);
	CHECK_OK(weft_stop());
	struct pic pic;
	const int W = 800, H = 400;
	load(&pic, path, W, H);
	/* the first counter's name, right-aligned on the band's first line
	 * (the band's top is H - 16 - 70, the line's box 4 px below it):
	 * only its box and its text, no orange of the second one's plot */
	int band = H - 16 - 70;
	const int box[3] = {247, 247, 247}, ink[3] = {153, 61, 61};
	CHECK(count(&pic, 255, 127, 0, W - 8 - 60, band + 5, 50, 10) == 0);
	CHECK(count(&pic, 255, 127, 0, 100, band + 5, 500, 10) > 400);
	CHECK_EQ(off_blend(&pic, box, ink, W - 8 - 24, band + 5, 22, 10), 0);
	/* 1000 ns a pixel from x = 8 (LEFT) */
	weft_view_set_range(pic.v, 0, (W - 16) * 1000);
	int64_t val;
	CHECK(!weft_view_counter_at_pointer(pic.v, 0, &val));
	CHECK(weft_view_set_pointer(pic.v, 8 + 50.5, 100));
	CHECK(weft_view_counter_at_pointer(pic.v, 0, &val));
	CHECK_EQ(val, 50);
	CHECK(weft_view_counter_at_pointer(pic.v, 1, &val));
	CHECK_EQ(val, 1000);
	draw(&pic, W, H);
	/* its box right of the pointer on the first counter's line */
	CHECK(count(&pic, 247, 247, 247, 8 + 50 + 4, band + 5, 10, 10) > 20);
	/* the pointer leaves: the values go */
	CHECK(weft_view_set_pointer(pic.v, -1, -1));
	CHECK(!weft_view_set_pointer(pic.v, -1, -1));
	draw(&pic, W, H);
	CHECK_EQ(count(&pic, 247, 247, 247, 8 + 50 + 4, band + 5, 10, 10), 0);
	cairo_surface_destroy(pic.s);
	weft_view_free(pic.v);
	weft_model_free(pic.m);
	weft_reader_close(pic.r);
}

TEST(spans_notes_becomes_pending)
{
	const char *p = tpath("marks.weft");
	start_manual(p, 1 << 20, 0);
	weft_run(1);
	weft_create(2, "task");
	tick_ns(20000);
	weft_run(2);
	weft_span_begin("parse");
	tick_ns(20000);
	weft_note(2, "half way");
	tick_ns(20000);
	weft_span_end("parse");
	tick_ns(20000);
	weft_create(3, "task");
	tick_ns(20000);
	weft_run(1);
	weft_create(4, "promise");
	tick_ns(20000);
	weft_becomes(3, 4);
	tick_ns(20000);
	weft_resolve(2);
	tick_ns(20000);
	weft_create(5, "pending one");
	tick_ns(20000);
	weft_run(1);
	weft_resolve(4);
	tick_ns(20000);
	weft_run(0);
	CHECK_OK(weft_stop());
	struct pic pic;
	load(&pic, p, 800, 300);
	CHECK(count(&pic, 0, 140, 140, 0, 0, 0, 0) > 20);   /* span */
	CHECK(count(&pic, 115, 64, 153, 0, 0, 0, 0) > 8);   /* note */
	CHECK(count(&pic, 115, 115, 115, 0, 0, 0, 0) > 10); /* pending */
	/* the become: dark pixels in the column of its time between the
	 * rows of 3 and 4 */
	uint32_t nth, na;
	const struct weft_arrow *a = weft_model_arrows(pic.m, &na);
	int64_t tb = -1;
	for (uint32_t i = 0; i < na; i++)
		if (a[i].kind == WEFT_ARROW_BECOME)
			tb = a[i].t;
	CHECK(tb >= 0);
	weft_model_threads(pic.m, &nth);
	int64_t r0, r1;
	weft_view_range(pic.v, &r0, &r1);
	int x = (int)(8 + (double)(tb - r0) * (800 - 16) / (double)(r1 - r0));
	double ya = weft_view_thread_y(pic.v, weft_model_find(pic.m, 3), NULL);
	double yb = weft_view_thread_y(pic.v, weft_model_find(pic.m, 4), NULL);
	double lo = ya < yb ? ya : yb, hi = ya < yb ? yb : ya;
	CHECK(hi - lo >= 20);
	/* (dark grey; black where a label crosses it) */
	long dark =
		count(&pic, 51, 51, 51, x - 1, (int)lo + 4, 3,
		      (int)(hi - lo) - 8) +
		count(&pic, 0, 0, 0, x - 1, (int)lo + 4, 3, (int)(hi - lo) - 8);
	CHECK(dark >= (long)(hi - lo) - 10);
	unload(&pic);
}

/* The x of time t in a picture w pixels wide, as the renderer places it
 * (8 pixels of margin each side). */
static int xat(struct pic *p, int64_t t, int w)
{
	int64_t r0, r1;
	weft_view_range(p->v, &r0, &r1);
	return (int)(8 + (double)(t - r0) * (w - 16) / (double)(r1 - r0));
}

/* The grey of the pixel at (x, y): its red, green and blue are equal. */
static int grey_at(struct pic *p, int x, int y)
{
	const unsigned char *d = cairo_image_surface_get_data(p->s);
	const unsigned char *px =
		d + y * cairo_image_surface_get_stride(p->s) + x * 4;
	CHECK(px[0] == px[1] && px[1] == px[2]);
	return px[0];
}

/* Idle bands are shaded by how much of each pixel column they cover: a
 * stretch of the loop idle throughout is band grey (0.8), one idle half
 * the time in slices far thinner than a pixel is half way to the
 * background (0.9), a busy one is background. */
TEST(idle_band_coverage)
{
	const char *p = tpath("idle.weft");
	start_manual(p, 1 << 20, 0);
	weft_run(1);
	tick_ns(1000000);
	weft_idle("poll");
	tick_ns(2000000);
	weft_resume();
	tick_ns(1000000);
	for (int i = 0; i < 200; i++) {
		weft_idle("poll");
		tick_ns(5000);
		weft_resume();
		tick_ns(5000);
	}
	tick_ns(2000000);
	weft_run(0);
	CHECK_OK(weft_stop());
	struct pic pic;
	load(&pic, p, 800, 300);
	uint32_t n;
	const struct weft_interval *iv =
		weft_model_intervals(pic.m, WEFT_INTERVAL_IDLE, &n);
	CHECK_EQ(n, 201);
	int y = 250; /* under the one row, above the time scale */
	/* (off the grid lines, which fall on round times) */
	int full = xat(&pic, iv[0].t0 + (iv[0].t1 - iv[0].t0) * 37 / 100, 800);
	int half =
		xat(&pic, iv[1].t0 + (iv[n - 1].t1 - iv[1].t0) * 37 / 100, 800);
	int busy = xat(&pic, iv[n - 1].t1 + 730000, 800);
	CHECK(xat(&pic, iv[n - 1].t1, 800) - xat(&pic, iv[1].t0, 800) > 20);
	int g_full = grey_at(&pic, full, y), g_half = grey_at(&pic, half, y),
	    g_busy = grey_at(&pic, busy, y);
	CHECK(abs(g_full - 204) <= 2);
	CHECK(abs(g_busy - 230) <= 2);
	/* half of 204..230 */
	CHECK(abs(g_half - 217) <= 2);
	/* the long idle is labelled, at the top of the rows */
	double rh, top = weft_view_row_y(pic.v, 0, &rh) - rh / 2;
	CHECK(count(&pic, 255, 255, 255, xat(&pic, iv[0].t0, 800), (int)top, 60,
		    12) > 10);
	unload(&pic);
}

/* The pixel (r, g, b) at (x, y). */
static void rgb_at(struct pic *p, int x, int y, int *r, int *g, int *b)
{
	const unsigned char *d = cairo_image_surface_get_data(p->s);
	const unsigned char *px =
		d + y * cairo_image_surface_get_stride(p->s) + x * 4;
	*r = px[2];
	*g = px[1];
	*b = px[0];
}

/* Pauses are shaded by the share of each column they cover, exactly: a
 * server paused 3.8 % of the time in slices far thinner than a pixel is
 * one step of 16 from the background (pale), not a band; a stretch
 * paused throughout is the band's full colour (0.7, 0.6, 0.6); two
 * pauses over the same time count once (50 %, half way), and a stretch
 * with none is background.  (The first renderer drew each sliver at
 * least half a pixel wide: the 3.8 % stretch came out solid.) */
TEST(pause_band_share)
{
	const char *p = tpath("pause.weft");
	start_manual(p, 4 << 20, 0);
	weft_run(1);
	tick_ns(1000000);
	for (int i = 0; i < 4000; i++) { /* 400 ms, 3.8 % paused */
		tick_ns(100000);
		weft_pause("gc", 3800);
	}
	tick_ns(200000000); /* 200 ms paused */
	weft_pause("gc", 200000000);
	for (int i = 0; i < 2000; i++) { /* 200 ms, twice the same 50 % */
		tick_ns(100000);
		weft_pause("gc", 50000);
		weft_pause("gc", 50000);
	}
	tick_ns(200000000); /* 200 ms busy */
	weft_run(0);
	CHECK_OK(weft_stop());
	struct pic pic;
	load(&pic, p, 1016, 300);
	uint32_t n;
	weft_model_intervals(pic.m, WEFT_INTERVAL_PAUSE, &n);
	CHECK_EQ(n, 4000 + 1 + 4000);
	/* 1001 ms over 1000 px: about 1 ms a column, ten slices each */
	int y = 250, r, g, b;
	int64_t ms = 1000000;
	for (int k = 0; k < 5; k++) { /* 3.8 %: one step of 16 (away
					* from the grid's lines, 10 ms apart at
					* most) */
		rgb_at(&pic, xat(&pic, 65 * ms + 70 * k * ms, 1016), y, &r, &g,
		       &b);
		CHECK(r >= 225 && r <= 228 && g >= 223 && g <= 227 && g == b);
	}
	rgb_at(&pic, xat(&pic, 503 * ms, 1016), y, &r, &g, &b);
	CHECK(abs(r - 178) <= 2 && abs(g - 153) <= 2 && g == b);
	rgb_at(&pic, xat(&pic, 677 * ms, 1016), y, &r, &g, &b);
	CHECK(abs(r - 204) <= 2 && abs(g - 191) <= 2 && g == b);
	rgb_at(&pic, xat(&pic, 903 * ms, 1016), y, &r, &g, &b);
	CHECK(r == 230 && g == 230 && b == 230);
	unload(&pic);
}

/* Pixels of colour (r, g, b) at opacity 1/2 to 1 over a background of
 * grey `bg` (0..255): count_arrow over another background. */
static long count_over(struct pic *p, int r, int g, int b, double bg)
{
	const double c[3] = {b, g, r};
	int W = cairo_image_surface_get_width(p->s);
	int H = cairo_image_surface_get_height(p->s);
	int stride = cairo_image_surface_get_stride(p->s);
	const unsigned char *d = cairo_image_surface_get_data(p->s);
	double den = 0;
	for (int k = 0; k < 3; k++)
		den += (c[k] - bg) * (c[k] - bg);
	long n = 0;
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			const unsigned char *px = d + y * stride + x * 4;
			double a = 0;
			for (int k = 0; k < 3; k++)
				a += (px[k] - bg) * (c[k] - bg);
			a /= den;
			if (a < 0.5 || a > 1.05)
				continue;
			int ok = 1;
			for (int k = 0; k < 3; k++)
				ok &= fabs(px[k] - (a * c[k] + (1 - a) * bg)) <
				      16;
			n += ok;
		}
	return n;
}

/* WCAG's relative luminance and contrast ratio. */
static double lum(const double c[3])
{
	double l[3];
	for (int k = 0; k < 3; k++)
		l[k] = c[k] <= 0.03928 ? c[k] / 12.92
				       : pow((c[k] + 0.055) / 1.055, 2.4);
	return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
}

static double contrast(const double a[3], const double b[3])
{
	double x = lum(a) + 0.05, y = lum(b) + 0.05;
	return x > y ? x / y : y / x;
}

static double hue(const double c[3])
{
	double mx = fmax(c[0], fmax(c[1], c[2])),
	       mn = fmin(c[0], fmin(c[1], c[2])), d = mx - mn;
	if (d < 1e-9)
		return -1;
	double h = mx == c[0]	? fmod((c[1] - c[2]) / d + 6, 6)
		   : mx == c[1] ? (c[2] - c[0]) / d + 2
				: (c[0] - c[1]) / d + 4;
	return h * 60;
}

/* The dark theme: the background dark, text and lines light; every arrow
 * colour keeps its hue (its meaning), stands out on the dark background
 * (contrast 3:1 at least) and stays apart from the others; the light
 * theme unchanged; the ARP trace drawn dark with each arrow colour. */
TEST(dark_theme)
{
	double bg[3] = {0.9, 0.9, 0.9}, dbg[3], out[3];
	weft_view_theme_rgb(1, bg, dbg);
	CHECK(fabs(dbg[0] - 0.1) < 1e-9 && dbg[0] == dbg[1] &&
	      dbg[1] == dbg[2]);
	double ink[3] = {0, 0, 0};
	weft_view_theme_rgb(1, ink, out);
	CHECK(out[0] == 1 && out[1] == 1 && out[2] == 1);
	double mapped[WEFT_ARROW_KINDS][3];
	for (int k = 0; k < WEFT_ARROW_KINDS; k++) {
		double c[3];
		weft_arrow_color(k, c);
		weft_view_theme_rgb(0, c, out);
		CHECK(out[0] == c[0] && out[1] == c[1] && out[2] == c[2]);
		weft_view_theme_rgb(1, c, mapped[k]);
		if (contrast(mapped[k], dbg) < 3)
			FAIL("%s: contrast %.2f on the dark background",
			     weft_arrow_name(k), contrast(mapped[k], dbg));
		if (hue(c) >= 0 && fabs(hue(c) - hue(mapped[k])) > 0.5)
			FAIL("%s: hue %.1f became %.1f", weft_arrow_name(k),
			     hue(c), hue(mapped[k]));
	}
	for (int a = 0; a < WEFT_ARROW_KINDS; a++)
		for (int b = a + 1; b < WEFT_ARROW_KINDS; b++) {
			double c0[3], c1[3], d = 0;
			weft_arrow_color(a, c0);
			weft_arrow_color(b, c1);
			if (c0[0] == c1[0] && c0[1] == c1[1] && c0[2] == c1[2])
				continue; /* (one colour in both themes) */
			for (int k = 0; k < 3; k++)
				d += fabs(mapped[a][k] - mapped[b][k]);
			if (d < 0.25)
				FAIL("%s and %s look alike in the dark",
				     weft_arrow_name(a), weft_arrow_name(b));
		}

	const char *p = tpath("arp.weft");
	arp(p);
	struct pic pic;
	load(&pic, p, 900, 300);
	CHECK_EQ(weft_view_dark(pic.v), 0);
	/* (under the rows: background and grid lines) */
	long light_bg = count(&pic, 230, 230, 230, 0, 200, 900, 80);
	CHECK(light_bg > 900 * 80 * 9 / 10);
	weft_view_set_dark(pic.v, 1);
	CHECK_EQ(weft_view_dark(pic.v), 1);
	draw(&pic, 900, 300);
	CHECK_EQ(count(&pic, 230, 230, 230, 0, 200, 900, 80), 0);
	CHECK(count(&pic, 26, 26, 26, 0, 200, 900, 80) >= light_bg);
	static const int kinds[] = {WEFT_ARROW_RESOLVE, WEFT_ARROW_READ,
				    WEFT_ARROW_SIGNAL, WEFT_ARROW_READ_FAILED,
				    WEFT_ARROW_TRY_READ};
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
		const double *c = mapped[kinds[i]];
		long n = count_over(&pic, (int)(c[0] * 255 + 0.5),
				    (int)(c[1] * 255 + 0.5),
				    (int)(c[2] * 255 + 0.5), 0.1 * 255);
		if (n <= 5)
			FAIL("%s: %ld pixels of its dark colour",
			     weft_arrow_name(kinds[i]), n);
	}
	/* the light colours are gone: no pure blue or light-theme green */
	CHECK_EQ(count_over(&pic, 0, 0, 255, 0.1 * 255), 0);
	weft_view_set_dark(pic.v, 0);
	draw(&pic, 900, 300);
	CHECK_EQ(count(&pic, 230, 230, 230, 0, 200, 900, 80), light_bg);
	unload(&pic);
}

/* Two pictures the same, pixel for pixel. */
static int same_pixels(cairo_surface_t *a, cairo_surface_t *b)
{
	int h = cairo_image_surface_get_height(a);
	int stride = cairo_image_surface_get_stride(a);
	return h == cairo_image_surface_get_height(b) &&
	       stride == cairo_image_surface_get_stride(b) &&
	       !memcmp(cairo_image_surface_get_data(a),
		       cairo_image_surface_get_data(b), (size_t)h * stride);
}

/* The view's state as a line (weft_view_state) and back: a second view
 * of the same trace set to it says the same line and draws the same
 * pixels (range, measure, selection, chain and its depth, only the
 * chain, path, search with characters a URL escapes, hidden counters);
 * what a state leaves out is reset; a state it cannot read is refused
 * with why, and changes nothing. */
TEST(view_state_round_trip)
{
	const char *p = tpath("arp.weft");
	arp(p);
	struct pic a, b;
	load(&a, p, 900, 300);
	load(&b, p, 900, 300);
	char s[1024], s2[1024], err[300];
	int64_t lo, hi;
	weft_model_range(a.m, &lo, &hi);
	weft_view_state(a.v, s, sizeof s);
	/* fit: from the start (no negative time), a little past the end */
	snprintf(s2, sizeof s2, "r=0,%lld",
		 (long long)(hi - lo + (hi - lo) / 50 + 1));
	CHECK_STR(s, s2);
	CHECK(!strchr(s, '&'));
	uint32_t t3 = weft_model_find(a.m, 3), t5 = weft_model_find(a.m, 5);
	weft_view_set_range(a.v, lo + 1000000, lo + 9000000);
	weft_view_set_measure(a.v, lo + 2000000, lo + 3500000);
	weft_view_set_chain_depth(a.v, 2);
	weft_view_chain(a.v, t5);
	weft_view_select(a.v, t3);
	weft_view_search(a.v, "ring.write & co=1%");
	weft_view_path(a.v, t5);
	weft_view_state(a.v, s, sizeof s);
	char want[400];
	snprintf(want, sizeof want,
		 "r=1000000,9000000&m=2000000,3500000&sel=%u&chain=%u&depth=2"
		 "&path=%u&q=ring.write%%20%%26%%20co%%3D1%%25",
		 t3, t5, t5);
	CHECK_STR(s, want);
	CHECK_OK(weft_view_set_state(b.v, s, err, sizeof err));
	weft_view_state(b.v, s2, sizeof s2);
	CHECK_STR(s2, s);
	draw(&a, 900, 300);
	draw(&b, 900, 300);
	CHECK(same_pixels(a.s, b.s));
	/* only the chain, counters off: the same again */
	weft_view_only_chain(a.v, 1);
	weft_view_show_counters(a.v, 0);
	weft_view_state(a.v, s, sizeof s);
	CHECK(strstr(s, "&only=1") && !strstr(s, "counters")); /* (none) */
	CHECK_OK(weft_view_set_state(b.v, s, err, sizeof err));
	weft_view_state(b.v, s2, sizeof s2);
	CHECK_STR(s2, s);
	draw(&a, 900, 300);
	draw(&b, 900, 300);
	CHECK(same_pixels(a.s, b.s));
	/* a leading '#' (a URL's fragment) is skipped; what the state
	 * leaves out goes back to a new view's */
	CHECK_OK(weft_view_set_state(b.v, "#r=0,5000000", err, sizeof err));
	weft_view_state(b.v, s2, sizeof s2);
	CHECK_STR(s2, "r=0,5000000");
	CHECK_EQ(weft_view_selected(b.v), WEFT_NONE);
	CHECK_EQ(weft_view_matches(b.v), 0);
	CHECK_EQ(weft_view_chain_size(b.v), 0);
	/* refused, with why, changing nothing */
	static const char *const bad[] = {
		"r=5",	      "r=9,3",	      "r=1,2&sel=99999", "r=1,2&q=%G1",
		"r=1,2&q=%4", "r=1,2&zzz=1",  "r=1,2&fold=0,",	 "r=1,2&hide=7",
		"sel",	      "r=1,2&depth=0"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		err[0] = 0;
		if (weft_view_set_state(b.v, bad[i], err, sizeof err) !=
		    -EINVAL)
			FAIL("'%s' accepted", bad[i]);
		CHECK(strstr(err, "bad view state at '"));
		weft_view_state(b.v, s2, sizeof s2);
		CHECK_STR(s2, "r=0,5000000");
	}
	unload(&a);
	unload(&b);

	/* counters: three, the second hidden; then none shown */
	const char *pc = tpath("ctr.weft");
	start_manual(pc, 1 << 20, 0);
	weft_run(1);
	for (int i = 0; i < 30; i++) {
		tick_ns(100000);
		weft_counter_set("alpha", i % 7);
		weft_counter_set("beta", (i * 3) % 11);
		weft_counter_set("gamma", i);
	}
	weft_run(0);
	CHECK_OK(weft_stop());
	load(&a, pc, 600, 300);
	load(&b, pc, 600, 300);
	weft_view_show_counter(a.v, 1, 0);
	weft_view_state(a.v, s, sizeof s);
	CHECK(strstr(s, "&hide=1") && !strstr(s, "&hide=1,"));
	CHECK_OK(weft_view_set_state(b.v, s, err, sizeof err));
	CHECK(weft_view_counter_shown(b.v, 0) &&
	      !weft_view_counter_shown(b.v, 1) &&
	      weft_view_counter_shown(b.v, 2));
	draw(&a, 600, 300);
	draw(&b, 600, 300);
	CHECK(same_pixels(a.s, b.s));
	weft_view_show_counters(a.v, 0);
	weft_view_state(a.v, s, sizeof s);
	CHECK(strstr(s, "&counters=0") && !strstr(s, "hide"));
	CHECK_OK(weft_view_set_state(b.v, s, err, sizeof err));
	CHECK(!weft_view_counter_shown(b.v, 0));
	CHECK_OK(weft_view_set_state(b.v, "r=0,1000", err, sizeof err));
	CHECK(weft_view_counter_shown(b.v, 0) &&
	      weft_view_counter_shown(b.v, 1));
	unload(&a);
	unload(&b);
}

/* Bookmarks: kept in time order (two at one time in the order dropped),
 * listed with their notes, gone to (centred, the zoom kept), next and
 * previous round from the view's centre, drawn (a line down the picture
 * and a flag on the ruler, in their brown), kept in the view's state
 * with notes escaped and given back by it; a bad one refused. */
TEST(bookmarks)
{
	const char *p = tpath("arp.weft");
	arp(p);
	struct pic a, b;
	load(&a, p, 900, 300);
	load(&b, p, 900, 300);
	int64_t lo, hi;
	weft_model_range(a.m, &lo, &hi);
	long brown0 = count(&a, 115, 64, 0, 0, 0, 0, 0);
	CHECK_EQ(weft_view_add_bookmark(a.v, lo + 9000000, "later, 50%"), 0);
	CHECK_EQ(weft_view_add_bookmark(a.v, lo + 3000000, NULL), 0);
	CHECK_EQ(weft_view_add_bookmark(a.v, lo + 9000000, "same time"), 2);
	CHECK_EQ(weft_view_bookmarks(a.v), 3);
	const char *note;
	CHECK_EQ(weft_view_bookmark(a.v, 0, &note), lo + 3000000);
	CHECK_STR(note, "");
	CHECK_EQ(weft_view_bookmark(a.v, 1, &note), lo + 9000000);
	CHECK_STR(note, "later, 50%");
	CHECK_EQ(weft_view_bookmark(a.v, 2, &note), lo + 9000000);
	CHECK_STR(note, "same time");
	CHECK_EQ(weft_view_bookmark(a.v, 3, &note), 0);
	CHECK(note == NULL);
	/* drawn: a line down the picture and a flag */
	draw(&a, 900, 300);
	int x = xat(&a, lo + 3000000, 900);
	CHECK(count(&a, 115, 64, 0, x - 1, 40, 3, 200) > 150);
	CHECK(count(&a, 115, 64, 0, 0, 0, 0, 0) > brown0 + 300);
	/* gone to: centred, the span kept; next and previous, round */
	int64_t t0, t1;
	weft_view_set_range(a.v, lo, lo + 2000000);
	weft_view_go_to_bookmark(a.v, 0);
	weft_view_range(a.v, &t0, &t1);
	CHECK_EQ(t1 - t0, 2000000);
	CHECK_EQ(t0 + (t1 - t0) / 2, lo + 3000000);
	CHECK_EQ(weft_view_next_bookmark(a.v, 1), 1);
	CHECK_EQ(weft_view_next_bookmark(a.v, 1), 0); /* round */
	CHECK_EQ(weft_view_next_bookmark(a.v, -1), 2);
	CHECK_EQ(weft_view_next_bookmark(a.v, -1), 0);
	/* in the state, and back */
	char s[1024], s2[1024], err[300];
	weft_view_set_range(a.v, lo + 1000000, lo + 11000000);
	weft_view_state(a.v, s, sizeof s);
	CHECK(strstr(s, "&b=3000000:,9000000:later%2C%2050%25,9000000:same%20"
			"time"));
	CHECK_OK(weft_view_set_state(b.v, s, err, sizeof err));
	weft_view_state(b.v, s2, sizeof s2);
	CHECK_STR(s2, s);
	CHECK_EQ(weft_view_bookmarks(b.v), 3);
	CHECK_EQ(weft_view_bookmark(b.v, 1, &note), lo + 9000000);
	CHECK_STR(note, "later, 50%");
	draw(&a, 900, 300);
	draw(&b, 900, 300);
	CHECK(same_pixels(a.s, b.s));
	weft_view_remove_bookmark(a.v, 0);
	CHECK_EQ(weft_view_bookmarks(a.v), 2);
	CHECK_EQ(weft_view_bookmark(a.v, 0, NULL), lo + 9000000);
	/* a state without b= has none; bad ones are refused */
	CHECK_OK(weft_view_set_state(b.v, "r=0,1000", err, sizeof err));
	CHECK_EQ(weft_view_bookmarks(b.v), 0);
	static const char *const bad[] = {"r=0,1000&b=5", "r=0,1000&b=x:a",
					  "r=0,1000&b=5:%ZZ",
					  "r=0,1000&b=5:a,"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		if (weft_view_set_state(b.v, bad[i], err, sizeof err) !=
		    -EINVAL)
			FAIL("'%s' accepted", bad[i]);
	CHECK_OK(weft_view_set_state(b.v, "r=0,1000&b=5:", err, sizeof err));
	CHECK_EQ(weft_view_bookmarks(b.v), 1);
	unload(&a);
	unload(&b);
}

/* Arrows of many lengths fade by as many opacities; a frame still
 * changes colour a few dozen times, not once per arrow (each change is a
 * stroke of its own in cairo, a state change in a browser). */
TEST(arrows_batched_by_colour)
{
	const char *p = tpath("fan.weft");
	start_manual(p, 1 << 20, 0);
	weft_run(1);
	for (uint64_t w = 2; w < 12; w++)
		weft_create(w, "worker");
	/* promise 1000 + k is made and resolved by one worker, and read
	 * by another 1 to 60 steps later: read arrows of many lengths */
	for (uint64_t k = 0; k < 1000; k++) {
		weft_run(2 + k % 10);
		weft_create(1000 + k, "promise");
		weft_resolve(1000 + k);
		uint64_t d = 1 + (k * 7919) % 60;
		if (k >= d) {
			weft_run(2 + (k + 3) % 10);
			weft_read(1000 + k - d);
		}
		tick_ns(1000);
	}
	weft_run(0);
	CHECK_OK(weft_stop());
	struct pic pic;
	/* (wide enough that the promises' row does not send an arrow in
	 * most columns: it would be faint, a texture) */
	load(&pic, p, 2400, 800);
	draw_counted(&pic);
	/* (an upright arrow is a 1 px box, a slanted one a line) */
	CHECK(counted_lines + counted_rects > 1000);
	CHECK(counted_colors < 80);
	CHECK(count_arrow(&pic, 0, 0, 255) > 1000);
	unload(&pic);
}

/* An event loop's phases: coloured bars under the loop's line, each in
 * its phase's colour; a frame of many tiny phases stays bounded. */
TEST(loop_phases)
{
	const char *p = tpath("phases.weft");
	static const char poll[] = "poll";
	start_manual(p, 16 << 20, 0);
	weft_run(1);
	tick_ns(500000);
	weft_phase("timers");
	tick_ns(1000000);
	weft_idle(poll); /* the wait: the poll phase */
	tick_ns(1000000);
	weft_resume();
	tick_ns(1000000);
	weft_phase("closing");
	tick_ns(1000000);
	weft_phase(NULL);
	tick_ns(500000);
	weft_run(0);
	CHECK_OK(weft_stop());
	struct pic pic;
	load(&pic, p, 800, 200);
	double y = weft_view_thread_y(pic.v, weft_model_find(pic.m, 1), NULL);
	CHECK(y > 0);
	int yb = (int)y + 3;
	/* each bar 3 px high and as wide as its phase lasted (1, 2 and 1
	 * ms of 5), to a pixel at each end */
	uint32_t n;
	const struct weft_interval *ph =
		weft_model_intervals(pic.m, WEFT_INTERVAL_PHASE, &n);
	CHECK_EQ(n, 3);
	static const int rgb[3][3] = {
		{217, 140, 26}, {64, 115, 191}, {115, 77, 38}};
	int64_t r0, r1;
	weft_view_range(pic.v, &r0, &r1);
	for (uint32_t i = 0; i < n; i++) {
		double w = (double)(ph[i].t1 - ph[i].t0) * (800 - 16) /
			   (double)(r1 - r0);
		long got = count(&pic, rgb[i][0], rgb[i][1], rgb[i][2], 0, yb,
				 800, 3);
		if (fabs((double)got - 3 * w) > 3 * 2 + 1)
			FAIL("phase %u: %ld pixels, want 3 x %.1f", i, got, w);
		/* and none above the bar */
		CHECK_EQ(count(&pic, rgb[i][0], rgb[i][1], rgb[i][2], 0, 0, 800,
			       yb),
			 0);
	}
	unload(&pic);

	/* 100,000 phases: at most a bar per pixel column */
	p = tpath("many-phases.weft");
	start_manual(p, 16 << 20, WEFT_DISCARD);
	weft_run(1);
	for (int i = 0; i < 50000; i++) {
		weft_phase("timers");
		tick_ns(10);
		weft_phase("pending");
		tick_ns(10);
	}
	weft_phase(NULL);
	weft_run(0);
	CHECK_OK(weft_stop());
	load(&pic, p, 800, 200);
	weft_model_intervals(pic.m, WEFT_INTERVAL_PHASE, &n);
	CHECK_EQ(n, 100000);
	CHECK(pic.prims < 3000);
	y = weft_view_thread_y(pic.v, weft_model_find(pic.m, 1), NULL);
	CHECK(count(&pic, 217, 140, 26, 0, (int)y + 3, 800, 3) +
		      count(&pic, 191, 77, 77, 0, (int)y + 3, 800, 3) >
	      3 * 700);
	unload(&pic);
}

/* How many of the threads of `kind` alive in the view's window sit on
 * full rows with their line drawn there (dark grey pixels on the row,
 * within the thread's span); *alive gets how many are alive. */
static int drawn_in_full(struct pic *p, const char *kind, int w, int *alive)
{
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(p->m, &n);
	int64_t a, b;
	weft_view_range(p->v, &a, &b);
	int full = 0;
	*alive = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (strcmp(weft_model_name(p->m, th[i].kind), kind) ||
		    th[i].t_create > b ||
		    (th[i].end != WEFT_END_PENDING && th[i].t_end < a))
			continue;
		++*alive;
		double rh, y = weft_view_thread_y(p->v, i, &rh);
		if (y < 0 || rh < 26)
			continue;
		int x0 = xat(p, th[i].t_create > a ? th[i].t_create : a, w);
		int x1 = xat(p,
			     th[i].end != WEFT_END_PENDING && th[i].t_end < b
				     ? th[i].t_end
				     : b,
			     w);
		if (x1 <= x0)
			x1 = x0 + 1;
		/* the thread's line: dark grey (0.2), or white where it ran,
		 * or red if it failed */
		long dark =
			count(p, 51, 51, 51, x0, (int)y - 1, x1 - x0, 3) +
			count(p, 255, 255, 255, x0, (int)y - 2, x1 - x0, 5) +
			count(p, 204, 0, 0, x0, (int)y - 1, x1 - x0, 3);
		full += dark >= (x1 - x0) / 2;
	}
	return full;
}

/* A server-shaped trace (bench/server-gen: hundreds of connections,
 * requests, queries on a worker thread...) zoomed in to 2 ms: its
 * requests and queries are on full rows, their lines drawn there, with
 * the view as it opens (focus at the top); the old layout (a row below
 * each creator) had them all squeezed. */
TEST(server_zoomed_in)
{
	const char *b = getenv("WEFT_BUILD");
	char cmd[1024];
	const char *p = tpath("server.weft");
	snprintf(cmd, sizeof cmd,
		 "%s/bench/server-gen -n 400000 -c 100 -o %s >/dev/null",
		 b ? b : ".", p);
	if (system(cmd))
		FAIL("cannot run %s", cmd);
	struct pic pic;
	load(&pic, p, 1280, 800);
	int64_t t0, t1;
	weft_model_range(pic.m, &t0, &t1);
	int alive_all = 0;
	/* a few windows across the trace: every request alive there is
	 * drawn on a full row (one may be cut at a window's edge) */
	for (int k = 1; k <= 4; k++) {
		int64_t a = t0 + (t1 - t0) * k / 5;
		weft_view_set_range(pic.v, a, a + 2000000);
		draw(&pic, 1280, 800);
		int alive, full = drawn_in_full(&pic, "http request", 1280,
						&alive);
		int qalive,
			qfull = drawn_in_full(&pic, "db query", 1280, &qalive);
		if (getenv("WEFT_TEST_VERBOSE"))
			fprintf(stderr,
				"# window %d: requests %d/%d, queries %d/%d\n",
				k, full, alive, qfull, qalive);
		if (full < alive - 1 || qfull < qalive - 1)
			FAIL("window %d: requests %d of %d, queries %d of %d "
			     "on "
			     "full rows",
			     k, full, alive, qfull, qalive);
		alive_all += alive;
	}
	CHECK(alive_all >= 8);
	/* the whole trace: the boxes of a pass (density, lines, failures,
	 * spans, counters...) go to the canvas as masks, a handful of calls
	 * instead of thousands, and look as the boxes drawn one by one do */
	weft_view_fit(pic.v);
	for (int f = 0; f < 2; f++) {
		weft_view_set_focus(pic.v, f * weft_view_rows(pic.v) / 2);
		draw(&pic, 1280, 800);
		long masked = pic.prims;
		cairo_surface_t *s = cairo_image_surface_create(
			CAIRO_FORMAT_RGB24, 1280, 800);
		cairo_t *cr = cairo_create(s);
		struct weft_canvas c = weft_cairo_canvas(cr);
		c.mask = NULL;
		long boxes = weft_view_render(pic.v, &c);
		cairo_destroy(cr);
		cairo_surface_flush(s);
		const unsigned char *d0 = cairo_image_surface_get_data(pic.s);
		const unsigned char *d1 = cairo_image_surface_get_data(s);
		int stride = cairo_image_surface_get_stride(s);
		long differ = 0;
		for (int y = 0; y < 800; y++)
			for (int x = 0; x < 1280; x++)
				for (int k = 0; k < 3; k++)
					if (abs(d0[y * stride + x * 4 + k] -
						d1[y * stride + x * 4 + k]) >
					    40) {
						differ++;
						break;
					}
		cairo_surface_destroy(s);
		if (getenv("WEFT_TEST_VERBOSE"))
			fprintf(stderr,
				"# focus %d: %ld primitives with masks, "
				"%ld without, %ld pixels differ\n",
				f, masked, boxes, differ);
		CHECK(masked * 3 < boxes);
		CHECK(differ < 1280 * 800 / 50);
	}
	/* one request's causal chain: tens of threads; "connected" lays
	 * out exactly them */
	uint32_t n, req = WEFT_NONE;
	const struct weft_thread *th = weft_model_threads(pic.m, &n);
	for (uint32_t i = n / 2; i < n && req == WEFT_NONE; i++)
		if (!strcmp(weft_model_name(pic.m, th[i].kind), "http request"))
			req = i;
	CHECK(req != WEFT_NONE);
	uint32_t size = weft_view_chain(pic.v, req);
	CHECK(size >= 5 && size <= 40);
	struct weft_chain ch = {0};
	CHECK_OK(weft_chain(pic.m, req, WEFT_CHAIN_ALL, &ch));
	CHECK_EQ(ch.size, size);
	weft_view_only_chain(pic.v, 1);
	for (uint32_t i = 0; i < n; i++)
		if (!(th[i].flags & WEFT_THREAD_ROOT) &&
		    (weft_view_row(pic.v, i) >= 0) !=
			    !!(ch.in[i] & WEFT_CHAIN_IN))
			FAIL("thread %u: row %d, in the chain: %d", i,
			     weft_view_row(pic.v, i), ch.in[i]);
	weft_chain_release(&ch);
	unload(&pic);
}

/* `weft record -o OUT ARGS` (ARGS: the options and command, shell
 * words), quiet; a failure fails the test.  (Under ASan, the preloaded
 * shim comes before the runtime, as in tests/uv.) */
static void record_run(const char *out, const char *args)
{
	const char *asan = getenv("ASAN_OPTIONS");
	char cmd[4096];
	snprintf(cmd, sizeof cmd,
		 "ASAN_OPTIONS='%s%sverify_asan_link_order=0:detect_leaks=0' "
		 "%s record -o %s %s >/dev/null 2>&1",
		 asan ? asan : "", asan && *asan ? ":" : "", getenv("WEFT_BIN"),
		 out, args);
	if (system(cmd))
		FAIL("cannot run %s", cmd);
}

/* A real libuv program at load (bench/uv-bench: a loopback echo, 80,000
 * requests in 0.3 s) recorded with `weft record`: zoomed in to 200 us,
 * its reads and writes are drawn on full rows, not a staircase. */
TEST(libuv_at_load)
{
	const char *b = getenv("WEFT_BUILD");
	char args[2048], uv[1024];
	snprintf(uv, sizeof uv, "%s/bench/uv-bench", b ? b : ".");
	if (access(uv, X_OK))
		SKIP("no bench/uv-bench (built without libuv)");
	const char *p = tpath("uvb.weft");
	snprintf(args, sizeof args, "--size 64M -- %s 0.3", uv);
	record_run(p, args);
	struct pic pic;
	load(&pic, p, 1280, 800);
	int64_t t0, t1;
	weft_model_range(pic.m, &t0, &t1);
	/* From the first read after a third of the run, 200 us or up to the
	 * twelfth read's creation if that is later: a window chosen by what
	 * it holds, not by time alone (a loaded machine stalls the echo now
	 * and then, and makes fewer requests in 200 us) */
	uint32_t n, seen = 0;
	const struct weft_thread *th = weft_model_threads(pic.m, &n);
	int64_t at = t0 + (t1 - t0) / 3, end = 0;
	for (uint32_t i = 0; i < n && seen < 12; i++)
		if (th[i].t_create >= at &&
		    !strcmp(weft_model_name(pic.m, th[i].kind), "uv_stream_t "
								"read")) {
			if (!seen++)
				at = th[i].t_create;
			end = th[i].t_create + 1;
		}
	if (end < at + 200000)
		end = at + 200000;
	weft_view_set_range(pic.v, at, end);
	draw(&pic, 1280, 800);
	int alive_r, alive_w;
	int reads = drawn_in_full(&pic, "uv_stream_t read", 1280, &alive_r);
	int writes = drawn_in_full(&pic, "uv_write_t", 1280, &alive_w);
	if (alive_r < 10 || reads < alive_r * 9 / 10 ||
	    writes < alive_w * 9 / 10)
		FAIL("reads %d of %d, writes %d of %d on full rows", reads,
		     alive_r, writes, alive_w);
	unload(&pic);
}

/* Labels over time (mtv's): each label of a thread is drawn where it was
 * set, up to where the next one was, not only the latest; one too long
 * for its stretch is cut with an ellipsis. */
TEST(labels_over_time)
{
	const char *p = tpath("labels.weft");
	start_manual(p, 1 << 20, WEFT_DISCARD);
	tick_ns(1000000);
	weft_create(1, "job");
	weft_run(1);
	weft_label(1, "parsing");
	tick_ns(3000000);
	weft_label(1, "fetching");
	tick_ns(3000000);
	weft_label(1, "writing the response of a long request whose label "
		      "goes on and on well past the end of its stretch");
	tick_ns(1000000);
	weft_label(1, "done");
	tick_ns(3000000);
	weft_run(0);
	weft_resolve(1);
	tick_ns(1000000);
	weft_run(0);
	CHECK_OK(weft_stop());
	struct pic pic;
	load(&pic, p, 1000, 200);
	uint32_t t = weft_model_find(pic.m, 1);
	const struct weft_thread *x =
		weft_model_threads(pic.m, &(uint32_t){0}) + t;
	/* 10 ms over about 1000 px: a label at 3 ms is near x = 300 */
	weft_view_set_range(pic.v, x->t_create, x->t_end);
	int64_t t0, t1;
	weft_view_range(pic.v, &t0, &t1);
	double px_per_ms = 984.0 / ((double)(t1 - t0) / 1e6);
	counted_text = "parsing";
	draw_counted(&pic);
	CHECK_EQ(counted_texts, 1);
	CHECK(fabs(counted_text_x - 8 - 0 * px_per_ms) < 12);
	counted_text = "fetching";
	draw_counted(&pic);
	CHECK_EQ(counted_texts, 1);
	CHECK(fabs(counted_text_x - 8 - 3 * px_per_ms) < 12);
	counted_text = "done";
	draw_counted(&pic);
	CHECK_EQ(counted_texts, 1);
	CHECK(fabs(counted_text_x - 8 - 7 * px_per_ms) < 12);
	/* the long one, set at 6 ms, has 1 ms: cut, ending in "…" */
	counted_text = NULL;
	counted_prefix = "writing the";
	draw_counted(&pic);
	counted_prefix = NULL;
	CHECK_EQ(counted_prefixed, 1);
	size_t n = strlen(counted_last);
	CHECK(n > 3 && !strcmp(counted_last + n - 3, "\xe2\x80\xa6"));
	CHECK(n < 60);
	unload(&pic);
}

/* A run of two processes (examples/uv-echo-split: a server and the client
 * it spawns, recorded with `weft record`): each process a group of rows
 * under its header, its threads within it; collapsing one leaves its
 * header alone and the other's rows as they were; opening it again gives
 * the same rows. */
TEST(processes_as_groups)
{
	const char *b = getenv("WEFT_BUILD");
	char args[2048], ex[1024];
	snprintf(ex, sizeof ex, "%s/examples/uv-echo-split", b ? b : ".");
	if (access(ex, X_OK))
		SKIP("no examples/uv-echo-split (built without libuv)");
	const char *p = tpath("sp");
	snprintf(args, sizeof args, "-- %s", ex);
	record_run(p, args);
	struct pic pic;
	load(&pic, p, 1280, 800);
	uint32_t np, n;
	const struct weft_model_process *pr = weft_model_processes(pic.m, &np);
	const struct weft_thread *th = weft_model_threads(pic.m, &n);
	CHECK_EQ(np, 2);
	CHECK(pr[1].parent == 0 && pr[0].pid != pr[1].pid);
	int h0 = weft_view_header_row(pic.v, 0),
	    h1 = weft_view_header_row(pic.v, 1);
	int rows = weft_view_rows(pic.v);
	CHECK_EQ(h0, 0);
	CHECK(h1 > 1 && h1 < rows - 1);
	int32_t *before = malloc(n * sizeof *before);
	CHECK(before != NULL);
	uint32_t in[2] = {0, 0};
	for (uint32_t i = 0; i < n; i++) {
		before[i] = weft_view_row(pic.v, i);
		if (th[i].flags & WEFT_THREAD_ROOT)
			continue;
		uint32_t k = weft_model_thread_process(pic.m, i);
		CHECK(k < 2);
		int lo = k ? h1 : h0, hi = k ? rows : h1;
		if (before[i] <= lo || before[i] >= hi)
			FAIL("thread %u of process %u: row %d, its group "
			     "%d..%d",
			     i, k, before[i], lo, hi);
		in[k]++;
	}
	CHECK(in[0] >= 5 && in[1] >= 5);
	/* no empty rows inside a group: every row but the headers holds a
	 * thread */
	for (int rr = 0; rr < rows; rr++) {
		int held = rr == h0 || rr == h1;
		for (uint32_t i = 0; i < n && !held; i++)
			held = before[i] == rr;
		if (!held)
			FAIL("row %d (headers %d, %d) holds no thread", rr, h0,
			     h1);
	}
	/* the headers: drawn as bands, found under the pointer */
	double y1 = weft_view_row_y(pic.v, h1, NULL);
	CHECK(count(&pic, 204, 214, 237, 0, (int)y1 - 8, 1280, 16) > 5000);
	double x1 = weft_view_header_x(pic.v, 1);
	CHECK(x1 > 0 && x1 < 1280);
	CHECK_EQ(weft_view_header_at(pic.v, x1, y1), 1);
	CHECK_EQ(weft_view_header_at(pic.v, x1,
				     weft_view_row_y(pic.v, h0 + 1, NULL)),
		 WEFT_NONE);
	/* the client collapsed: its header alone */
	weft_view_collapse(pic.v, 1, 1);
	CHECK(weft_view_collapsed(pic.v, 1) && !weft_view_collapsed(pic.v, 0));
	CHECK_EQ(weft_view_rows(pic.v), h1 + 1);
	CHECK_EQ(weft_view_header_row(pic.v, 1), h1);
	for (uint32_t i = 0; i < n; i++) {
		int want = weft_model_thread_process(pic.m, i) == 1 ? -1
								    : before[i];
		if (weft_view_row(pic.v, i) != want)
			FAIL("collapsed: thread %u at row %d, want %d", i,
			     weft_view_row(pic.v, i), want);
	}
	draw(&pic, 1280, 800);
	CHECK(count(&pic, 204, 214, 237, 0, (int)y1 - 8, 1280, 16) > 5000);
	/* the client's creation (by the server's spawn) still drawn: a
	 * creation line from its creator's row down to the header */
	uint32_t kid = WEFT_NONE;
	for (uint32_t i = 0; i < n && kid == WEFT_NONE; i++)
		if (weft_model_thread_process(pic.m, i) == 1 &&
		    !(th[i].flags &
		      (WEFT_THREAD_ROOT | WEFT_THREAD_NO_CREATE)) &&
		    th[i].parent < n &&
		    weft_model_thread_process(pic.m, th[i].parent) == 0 &&
		    before[th[i].parent] >= 0)
			kid = i;
	CHECK(kid != WEFT_NONE);
	{
		int xk = (int)round(weft_view_x_of(pic.v, th[kid].t_create));
		int ya = (int)weft_view_row_y(pic.v, before[th[kid].parent],
					      NULL);
		long dark = count(&pic, 51, 51, 51, xk - 2, ya + 4, 4,
				  (int)y1 - 9 - (ya + 4));
		if (dark < ((int)y1 - 9 - ya - 4) / 2)
			FAIL("collapsed: the creation of %u at x %d, rows %d.."
			     "%.0f: %ld dark pixels",
			     kid, xk, ya, y1, dark);
	}
	/* and open again: the same rows */
	weft_view_collapse(pic.v, 1, 0);
	CHECK_EQ(weft_view_rows(pic.v), rows);
	for (uint32_t i = 0; i < n; i++)
		if (weft_view_row(pic.v, i) != before[i])
			FAIL("opened: thread %u at row %d, was %d", i,
			     weft_view_row(pic.v, i), before[i]);
	/* bytes one process wrote and the other read: an arrow from when
	 * they were written, not from where the writer ended (or, if it
	 * still lived, upright at the read).  The message the writer's end
	 * would draw most wrongly (the run's timing decides which). */
	uint32_t na, msg = WEFT_NONE;
	int64_t worst = -1;
	const struct weft_arrow *ar = weft_model_arrows(pic.m, &na);
	for (uint32_t i = 0; i < na; i++) {
		int64_t w = weft_model_arrow_sent(pic.m, i);
		int64_t old = th[ar[i].from].t_end < ar[i].t
				      ? th[ar[i].from].t_end
				      : ar[i].t;
		if (ar[i].kind == WEFT_ARROW_READ &&
		    (ar[i].flags & WEFT_ARROW_MESSAGE) && w < ar[i].t - 2000 &&
		    old - w > worst) {
			worst = old - w;
			msg = i;
		}
	}
	CHECK(msg != WEFT_NONE);
	int64_t ws = weft_model_arrow_sent(pic.m, msg), rt = ar[msg].t;
	/* written a third of the way across, read at two thirds */
	weft_view_set_range(pic.v, ws - (rt - ws), rt + (rt - ws));
	draw(&pic, 1280, 800);
	long across = count_arrow_in(&pic, 0, 0, 255, 500, 780);
	if (getenv("WEFT_TEST_VERBOSE"))
		fprintf(stderr,
			"# message %u: written %lld, read %lld, %ld "
			"blue pixels between\n",
			msg, (long long)ws, (long long)rt, across);
	CHECK(across > 150);
	/* a process collapsed keeps the arrows into and out of it: they
	 * end at its header (the reader's, the writer's, then both) */
	uint32_t kr = weft_model_thread_process(pic.m, ar[msg].to),
		 kw = weft_model_thread_process(pic.m, ar[msg].from);
	CHECK(kr < 2 && kw < 2 && kr != kw);
	for (int c = 0; c < 3; c++) {
		weft_view_collapse(pic.v, kr, c != 1);
		weft_view_collapse(pic.v, kw, c != 0);
		weft_view_set_range(pic.v, ws - (rt - ws), rt + (rt - ws));
		draw(&pic, 1280, 800);
		long still = count_arrow_in(&pic, 0, 0, 255, 500, 780);
		if (still < 150)
			FAIL("%s collapsed: %ld blue pixels between",
			     c == 0   ? "the reader"
			     : c == 1 ? "the writer"
				      : "both",
			     still);
		/* the end: at the reader's row, or its header */
		int re = weft_view_row(pic.v, ar[msg].to);
		if (c != 1)
			CHECK_EQ(re, -1);
		int ye = (int)weft_view_row_y(
			pic.v, re >= 0 ? re : weft_view_header_row(pic.v, kr),
			NULL);
		int xe = (int)weft_view_x_of(pic.v, rt);
		if (!count_arrow_in_box(&pic, 0, 0, 255, xe - 40, ye - 26, 36,
					52))
			FAIL("%s collapsed: no blue just above the read's "
			     "end (%d, %d)",
			     c == 0   ? "the reader"
			     : c == 1 ? "the writer"
				      : "both",
			     xe, ye);
	}
	weft_view_collapse(pic.v, kr, 0);
	weft_view_collapse(pic.v, kw, 0);
	free(before);
	unload(&pic);
}

/* Each row's threads, in creation order, never overlap in time as they
 * are drawn (one that should have resolved and never did: to the right
 * edge; one pending at its process's end: to where it was last seen). */
static void rows_disjoint(struct pic *pic)
{
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(pic->m, &n);
	int rows = weft_view_rows(pic->v);
	int64_t *last = malloc(((size_t)rows + 1) * sizeof *last);
	CHECK(last != NULL);
	for (int r = 0; r < rows; r++)
		last[r] = INT64_MIN;
	for (uint32_t i = 0; i < n; i++) {
		int r = weft_view_row(pic->v, i);
		if (r < 0)
			continue;
		CHECK(r < rows);
		if (th[i].t_create <= last[r])
			FAIL("row %d: thread %u created at %lld, before the "
			     "one "
			     "there ended (%lld)",
			     r, i, (long long)th[i].t_create,
			     (long long)last[r]);
		last[r] = th[i].end == WEFT_END_PENDING &&
					  (th[i].flags &
					   WEFT_THREAD_SHOULD_RESOLVE)
				  ? INT64_MAX
				  : th[i].t_end;
	}
	free(last);
}

/* A run of many short processes (a shell script running one after the
 * other, then two at once): groups that do not overlap in time share
 * rows (a lane: one header row, the tallest group's rows), so the run is
 * as tall as the most that ran at once, not a staircase of all of them;
 * each header is found where its band is drawn; a row's threads still
 * never overlap; collapsing one group leaves every other row and header
 * where it was. */
/* (0.05 s between them: under ASan and load a process lives 20 ms or
 * more, and its band must stay narrower than its name for the header
 * checks below) */
TEST(short_processes_share_rows)
{
	const char *b = getenv("WEFT_BUILD");
	char args[4096], ex[1024];
	snprintf(ex, sizeof ex, "%s/examples/all-events", b ? b : ".");
	if (access(ex, X_OK))
		FAIL("no examples/all-events");
	const char *p = tpath("seq");
	snprintf(args, sizeof args,
		 "-- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do %s; "
		 "sleep 0.05; done; %s & %s & wait'",
		 ex, ex, ex);
	record_run(p, args);
	struct pic pic;
	load(&pic, p, 4000, 800);
	uint32_t np, n;
	weft_model_processes(pic.m, &np);
	weft_model_threads(pic.m, &n);
	int rows = weft_view_rows(pic.v), groups = 0, lanes = 0;
	int *hr = malloc(np * sizeof *hr);
	CHECK(hr != NULL);
	for (uint32_t k = 0; k < np; k++) {
		hr[k] = weft_view_header_row(pic.v, k);
		if (hr[k] < 0)
			continue;
		groups++;
		int first = 1;
		for (uint32_t j = 0; j < k; j++)
			first &= hr[j] != hr[k];
		lanes += first;
	}
	if (getenv("WEFT_TEST_VERBOSE"))
		fprintf(stderr,
			"# %u processes, %d groups in %d lanes, %d rows\n", np,
			groups, lanes, rows);
	CHECK(groups >= 14);
	/* the twelve one after the other share a lane or two (a group
	 * needs a gap after the one before of an eighth of its life), the
	 * last two are side by side */
	CHECK(lanes >= 2 && lanes <= 5);
	CHECK(rows < groups * 3);
	rows_disjoint(&pic);
	/* each header where its band is: found there, its colour there */
	for (uint32_t k = 0; k < np; k++) {
		if (hr[k] < 0)
			continue;
		double x = weft_view_header_x(pic.v, k);
		double y = weft_view_row_y(pic.v, hr[k], NULL);
		if (x < 0 || weft_view_header_at(pic.v, x, y) != k)
			FAIL("process %u: header at %.0f %.0f finds %u", k, x,
			     y, weft_view_header_at(pic.v, x, y));
		CHECK(count(&pic, 204, 214, 237, (int)x - 3, (int)y - 9, 2,
			    2) == 4);
	}
	/* a header's text runs on past its band (a short process's name):
	 * a click on it, past the band's end (its colour in the picture),
	 * finds the process; in the empty row after the text, none */
	int texts = 0;
	for (uint32_t k = 0; k < np; k++)
		for (uint32_t j = k + 1; j < np && hr[k] >= 0; j++) {
			double xk = weft_view_header_x(pic.v, k);
			double xj = weft_view_header_x(pic.v, j);
			double y = weft_view_row_y(pic.v, hr[k], NULL);
			if (hr[j] != hr[k] || xj < xk + 300)
				continue;
			int later = 0; /* (j the next one in the lane) */
			for (uint32_t q = 0; q < np; q++) {
				double xq = weft_view_header_x(pic.v, q);
				later |= hr[q] == hr[k] && xq > xk && xq < xj;
			}
			int xe = (int)xk;
			while (xe < (int)xj &&
			       count(&pic, 204, 214, 237, xe, (int)y - 9, 1, 1))
				xe++;
			if (later || xe + 10 > xk + 150)
				continue; /* (a band wider than its text) */
			CHECK_EQ(weft_view_header_at(pic.v, xe + 10, y), k);
			if (xj > xk + 420)
				CHECK_EQ(weft_view_header_at(pic.v, xj - 7, y),
					 WEFT_NONE);
			texts++;
		}
	CHECK(texts >= 3);
	/* a lane's threads are those of its groups (under its header row,
	 * above the next lane's) */
	const struct weft_thread *th = weft_model_threads(pic.m, &n);
	for (uint32_t i = 0; i < n; i++) {
		int r = weft_view_row(pic.v, i);
		uint32_t k = weft_model_thread_process(pic.m, i);
		if (r < 0 || (th[i].flags & WEFT_THREAD_ROOT) || k >= np)
			continue;
		int below = rows;
		for (uint32_t j = 0; j < np; j++)
			if (hr[j] > hr[k] && hr[j] < below)
				below = hr[j];
		if (r <= hr[k] || r >= below)
			FAIL("thread %u of process %u: row %d, its lane %d..%d",
			     i, k, r, hr[k], below);
	}
	/* one of a shared lane collapsed: its rows gone, the rest kept */
	uint32_t c = WEFT_NONE;
	for (uint32_t k = 0; k < np && c == WEFT_NONE; k++)
		for (uint32_t j = k + 1; j < np && hr[k] >= 0; j++)
			if (hr[j] == hr[k])
				c = j;
	CHECK(c != WEFT_NONE);
	int32_t *before = malloc(n * sizeof *before);
	CHECK(before != NULL);
	for (uint32_t i = 0; i < n; i++)
		before[i] = weft_view_row(pic.v, i);
	weft_view_collapse(pic.v, c, 1);
	for (uint32_t k = 0; k < np; k++)
		CHECK_EQ(weft_view_header_row(pic.v, k), hr[k]);
	for (uint32_t i = 0; i < n; i++) {
		int want = weft_model_thread_process(pic.m, i) == c ? -1
								    : before[i];
		if (weft_view_row(pic.v, i) != want)
			FAIL("collapsed %u: thread %u at row %d, want %d", c, i,
			     weft_view_row(pic.v, i), want);
	}
	draw(&pic, 4000, 800);
	double x = weft_view_header_x(pic.v, c);
	CHECK_EQ(weft_view_header_at(pic.v, x,
				     weft_view_row_y(pic.v, hr[c], NULL)),
		 c);
	free(before);
	free(hr);
	unload(&pic);
}

/* The ruler's numbers, exactly: steps of 1, 2, 5 x 10^k, times in the
 * unit the step calls for (what `weft render --start` reads back),
 * durations to three digits, and pixels to times and back. */
TEST(ruler_numbers)
{
	CHECK_EQ(weft_view_tick_step(0), 1);
	CHECK_EQ(weft_view_tick_step(1), 1);
	CHECK_EQ(weft_view_tick_step(3), 5);
	CHECK_EQ(weft_view_tick_step(7), 10);
	CHECK_EQ(weft_view_tick_step(101), 200);
	CHECK_EQ(weft_view_tick_step(2.5e6), 5000000);
	CHECK_EQ(weft_view_tick_step(1e9), 1000000000);
	char b[48];
	static const struct {
		int64_t ns, step;
		const char *s;
	} ts[] = {
		{2500000, 500000, "2.5 ms"},
		{120000, 10000, "120 us"},
		{0, 1000, "0 ns"},
		{1200000000, 100000000, "1.2 s"},
		{-500000, 100000, "-500 us"},
		{3000, 1000, "3 us"},
		{850, 10, "850 ns"},
		{4000000, 200000, "4 ms"},
		{12345678, 100000, "12.3 ms"},
		{12345678, 50000, "12.35 ms"},
		{2000000000, 1000000000, "2 s"},
		{17094992000, 1000, "17.094 992 s"},
		{17094992000, 2000, "17.094 992 s"},
		{999500, 1000, "1 ms"},
	};
	for (size_t i = 0; i < sizeof ts / sizeof *ts; i++) {
		weft_view_time_str(ts[i].ns, ts[i].step, b, sizeof b);
		CHECK_STR(b, ts[i].s);
	}
	static const struct {
		int64_t ns;
		const char *s;
	} ds[] = {{1250000, "1.250 ms"},     {850, "850 ns"},
		  {12500000000, "12.500 s"}, {2000000, "2 ms"},
		  {999, "999 ns"},	     {123456, "123.456 us"},
		  {1500000000, "1.500 s"},   {463622000, "463.622 ms"},
		  {463621500, "463.622 ms"}, {-2000000, "-2 ms"}};
	for (size_t i = 0; i < sizeof ds / sizeof *ds; i++) {
		weft_view_dur_str(ds[i].ns, b, sizeof b);
		CHECK_STR(b, ds[i].s);
	}
}

/* A trace of 10 ms, on the manual clock. */
static void ten_ms(const char *path)
{
	start_manual(path, 1 << 20, 0);
	weft_run(1);
	tick_ns(1000000);
	weft_create(2, "task");
	tick_ns(8000000);
	weft_resolve(2);
	tick_ns(1000000);
	weft_run(0);
	CHECK_OK(weft_stop());
}

/* A canvas that keeps the texts drawn on the ruler (above y `ruler_y`):
 * where each starts and ends. */
static struct weft_canvas ruler_inner;
static double ruler_y, ruler_x0[256], ruler_x1[256];
static int ruler_n;
static void ruler_text(void *c, double x, double y, double size, const char *s)
{
	if (y < ruler_y && ruler_n < 256) {
		ruler_x0[ruler_n] = x;
		ruler_x1[ruler_n++] = x + ruler_inner.text_width(c, size, s);
	}
	ruler_inner.text(c, x, y, size, s);
}

/* Draws pic's view; returns how many texts its ruler has, after checking
 * that no two overlap. */
static int ruler_texts(struct pic *p)
{
	cairo_t *cr = cairo_create(p->s);
	ruler_inner = weft_cairo_canvas(cr);
	struct weft_canvas c = ruler_inner;
	c.text = ruler_text;
	ruler_y = weft_view_ruler_h(p->v);
	ruler_n = 0;
	weft_view_render(p->v, &c);
	cairo_destroy(cr);
	for (int i = 0; i < ruler_n; i++)
		for (int j = 0; j < ruler_n; j++)
			if (i != j && ruler_x0[i] < ruler_x1[j] &&
			    ruler_x0[j] < ruler_x1[i])
				return -1;
	return ruler_n;
}

/* The ruler along the top: its band, ticks labelled with times from the
 * start ("2 ms" where 2 ms is, all in one unit), no row under it; the pointer's time; a
 * measured range drawn as a band with its duration, zoomed to. */
TEST(ruler_and_measure)
{
	const char *p = tpath("ten.weft");
	ten_ms(p);
	struct pic pic;
	load(&pic, p, 900, 300);
	int64_t t0, t1;
	weft_model_range(pic.m, &t0, &t1);
	CHECK_EQ(t1 - t0, 10000000);
	/* 884 px over 8.84 ms: 10 us a pixel, exactly */
	weft_view_set_range(pic.v, t0 - 500000, t0 + 8340000);
	CHECK_EQ(weft_view_time_at(pic.v, 8), t0 - 500000);
	CHECK_EQ(weft_view_time_at(pic.v, 258), t0 + 2000000);
	CHECK(fabs(weft_view_x_of(pic.v, t0 + 2000000) - 258) < 1e-9);
	int rh = (int)weft_view_ruler_h(pic.v);
	CHECK(rh >= 14);
	/* rows start under the ruler */
	double row_h, y0 = weft_view_row_y(pic.v, 0, &row_h);
	CHECK(y0 - row_h / 2 >= rh);
	counted_text = "2 ms";
	draw_counted(&pic);
	cairo_surface_flush(pic.s);
	CHECK_EQ(counted_texts, 1);
	CHECK(fabs(counted_text_x - 261) < 1);
	/* the ruler's band across the top, nothing of it below */
	CHECK(count(&pic, 224, 219, 189, 0, 0, 900, rh) > 900 * rh / 2);
	CHECK_EQ(count(&pic, 224, 219, 189, 0, rh, 900, 300 - rh), 0);
	/* the thread lines (dark grey) never under it */
	CHECK(count(&pic, 51, 51, 51, 0, rh, 900, 300 - rh) > 100);
	CHECK_EQ(count(&pic, 51, 51, 51, 300, 0, 600, rh), 0); /* (the corner's
								text is dark) */
	/* labels as close as they can be without overlapping, at every zoom
	 * (a tick a 1, 2 or 5 x 10^k ns apart: from 1 ns to minutes) */
	for (int64_t span = 1000; span < 400000000000; span = span * 7 / 3) {
		weft_view_set_range(pic.v, t0 + span / 3, t0 + span / 3 + span);
		int k = ruler_texts(&pic);
		CHECK(k >= 5);
	}
	/* the widest range a view takes: a frame still ends (steps past
	 * 2^53 ns, where a double has no room for step + 1) */
	weft_view_set_range(pic.v, -(INT64_C(1) << 62), INT64_C(1) << 62);
	CHECK(ruler_texts(&pic) >= 1);
	weft_view_set_range(pic.v, t0 - 500000, t0 + 8340000);
	/* the corner, and 2 ms .. 8 ms (1 ms is under the corner) */
	CHECK_EQ(ruler_texts(&pic), 8);
	/* one unit on a screen: from 0.1 to 1.3 ms the ticks say "0.4 ms",
	 * never "400 us" beside "1 ms"; the pointer too */
	weft_view_set_range(pic.v, t0 + 100000, t0 + 1300000);
	counted_text = "0.4 ms";
	draw_counted(&pic);
	CHECK_EQ(counted_texts, 1);
	counted_text = "400 us";
	draw_counted(&pic);
	CHECK_EQ(counted_texts, 0);
	weft_view_set_pointer(pic.v, 8 + 884 / 4, 100); /* at 0.4 ms */
	draw_counted(&pic);
	char pt[48];
	weft_view_pointer_str(pic.v, pt, sizeof pt);
	CHECK_STR(pt, "0.40 ms");
	weft_view_set_pointer(pic.v, -1, -1);
	/* under 1 ms throughout: in us */
	weft_view_set_range(pic.v, t0 + 100000, t0 + 900000);
	counted_text = "400 us";
	draw_counted(&pic);
	CHECK_EQ(counted_texts, 1);
	weft_view_set_range(pic.v, t0 - 500000, t0 + 8340000);
	/* the corner: the start's wall-clock time, UTC, as gmtime says */
	int64_t real = weft_reader_info(pic.r)->origin_real_ns + t0;
	CHECK(real > 0);
	time_t secs = (time_t)(real / 1000000000);
	struct tm tm;
	CHECK(gmtime_r(&secs, &tm) != NULL);
	char want[64], hms[32];
	strftime(hms, sizeof hms, "%Y-%m-%d %H:%M:%S", &tm);
	snprintf(want, sizeof want, "start %s.%03d UTC", hms,
		 (int)(real / 1000000 % 1000));
	counted_prefix = "start ";
	draw_counted(&pic);
	counted_prefix = NULL;
	CHECK_EQ(counted_prefixed, 1);
	CHECK_STR(counted_last, want);
	/* no pointer, no measure: neither is drawn */
	CHECK_EQ(count(&pic, 38, 77, 204, 0, 0, 0, 0), 0);
	/* the pointer at 2.5 ms: its time, to a tenth of a tick */
	weft_view_set_pointer(pic.v, 308, 100);
	counted_text = "2.5 ms";
	draw_counted(&pic);
	CHECK_EQ(counted_texts, 1);
	weft_view_set_pointer(pic.v, -1, -1);
	draw_counted(&pic);
	CHECK_EQ(counted_texts, 0);
	/* a measure from 1 ms to 2.25 ms: a band from x 158 to 283, its
	 * duration at the top */
	int64_t m0, m1;
	CHECK_EQ(weft_view_measure(pic.v, &m0, &m1), 0);
	weft_view_measure_from(pic.v, 283);
	weft_view_measure_to(pic.v, 100); /* (the drag goes on: from 283) */
	weft_view_measure_to(pic.v, 158);
	CHECK_EQ(weft_view_measure(pic.v, &m0, &m1), 1);
	CHECK_EQ(m0, t0 + 1000000);
	CHECK_EQ(m1, t0 + 2250000);
	/* (as the range summary writes 1.25 ms: "1.250 ms") */
	counted_text = "1.250 ms";
	draw_counted(&pic);
	cairo_surface_flush(pic.s);
	CHECK_EQ(counted_texts, 1);
	char ms[48];
	weft_view_dur_str(m1 - m0, ms, sizeof ms);
	CHECK_STR(ms, "1.250 ms");
	/* its edges (dark blue, full height) at 158 and 282 */
	int y = 290;
	CHECK_EQ(count(&pic, 38, 77, 204, 158, y, 1, 1), 1);
	CHECK_EQ(count(&pic, 38, 77, 204, 282, y, 1, 1), 1);
	CHECK_EQ(count(&pic, 38, 77, 204, 0, y, 900, 1), 2);
	/* tinted inside, not outside (the background, 0.9 grey) */
	CHECK(count(&pic, 202, 211, 234, 160, y, 120, 1) > 100);
	CHECK_EQ(count(&pic, 202, 211, 234, 0, y, 150, 1), 0);
	CHECK_EQ(count(&pic, 202, 211, 234, 290, y, 610, 1), 0);
	/* zoomed to: the range is the measure */
	CHECK_EQ(weft_view_zoom_measure(pic.v), 0);
	weft_view_range(pic.v, &m0, &m1);
	CHECK_EQ(m0, t0 + 1000000);
	CHECK_EQ(m1, t0 + 2250000);
	weft_view_clear_measure(pic.v);
	CHECK_EQ(weft_view_measure(pic.v, &m0, &m1), 0);
	CHECK_EQ(weft_view_zoom_measure(pic.v), -1);
	unload(&pic);
}

/* The critical path of a request (as tests/unit/test-path.c records it,
 * on the manual clock): R (0x10) runs 10-110 us, waits on query Q (0x11)
 * until 520, Q waited on the db worker W (0x13, another OS thread) until
 * 300, then was ready behind callback C (0x12) until 500; R runs again
 * 530-600.  The path goes through R, Q and W; the loop (1) and C are
 * not on it. */
static void *path_worker(void *arg)
{
	(void)arg;
	weft_clock_set(300000);
	weft_run(0x13);
	weft_signal(0x11);
	weft_run(0);
	return NULL;
}

static void path_trace(const char *p)
{
	start_manual(p, 1 << 20, 0);
	weft_clock_set(0);
	weft_run(1);
	weft_label(1, "event loop");
	weft_create(0x13, "worker");
	weft_label(0x13, "db worker");
	weft_create(0x10, "request");
	weft_label(0x10, "GET /item/7");
	weft_clock_set(10000);
	weft_run(0x10);
	weft_clock_set(110000);
	weft_create(0x11, "db query");
	weft_label(0x11, "SELECT 7");
	weft_try_read(0x11);
	weft_run(1);
	weft_clock_set(240000);
	weft_create(0x12, "callback");
	weft_label(0x12, "callback C");
	weft_clock_set(250000);
	weft_run(0x12);
	pthread_t t;
	CHECK(!pthread_create(&t, NULL, path_worker, NULL));
	CHECK(!pthread_join(t, NULL));
	weft_clock_set(500000);
	weft_resolve(0x12);
	weft_run(0x11);
	weft_clock_set(520000);
	weft_resolve(0x11);
	weft_run(1);
	weft_clock_set(530000);
	weft_run(0x10);
	weft_read(0x11);
	weft_clock_set(600000);
	weft_resolve(0x10);
	weft_run(1);
	weft_clock_set(610000);
	weft_run(0);
	CHECK_OK(weft_stop());
}

/* Magenta (the path; running, waiting) and its pale shade (ready) in a
 * band of rows around y, over columns [x0, x1). */
static long path_px(struct pic *p, double y, int x0, int x1, int pale)
{
	return pale ? count(p, 242, 140, 204, x0, (int)y - 6, x1 - x0, 13)
		    : count(p, 217, 0, 140, x0, (int)y - 6, x1 - x0, 13);
}

TEST(critical_path)
{
	const char *p = tpath("path.weft");
	path_trace(p);
	struct pic pic;
	load(&pic, p, 900, 400);
	uint32_t r = weft_model_find(pic.m, 0x10),
		 q = weft_model_find(pic.m, 0x11);
	uint32_t w = weft_model_find(pic.m, 0x13),
		 c = weft_model_find(pic.m, 0x12);
	uint32_t loop = weft_model_find(pic.m, 1);
	CHECK(r != WEFT_NONE && q != WEFT_NONE && w != WEFT_NONE &&
	      c != WEFT_NONE && loop != WEFT_NONE);
	/* 0..610 us over 884 px */
	weft_view_set_range(pic.v, 0, 610000);
	double yr = weft_view_thread_y(pic.v, r, NULL);
	double yq = weft_view_thread_y(pic.v, q, NULL);
	double yw = weft_view_thread_y(pic.v, w, NULL);
	double yc = weft_view_thread_y(pic.v, c, NULL);
	double yl = weft_view_thread_y(pic.v, loop, NULL);
	/* (every one on a row of its own, apart enough to tell) */
	double ys[5] = {yr, yq, yw, yc, yl};
	for (int i = 0; i < 5; i++)
		for (int j = i + 1; j < 5; j++)
			CHECK(ys[i] > 0 && fabs(ys[i] - ys[j]) >= 20);
	int x = (int)weft_view_x_of(pic.v, 0),
	    xe = (int)weft_view_x_of(pic.v, 610000);
	draw(&pic, 900, 400);
	CHECK_EQ(count(&pic, 217, 0, 140, 0, 0, 0, 0), 0);
	CHECK_EQ(count(&pic, 242, 140, 204, 0, 0, 0, 0), 0);
	CHECK_EQ(weft_view_path(pic.v, r), 3);
	CHECK_EQ(weft_view_path_thread(pic.v), r);
	char buf[512];
	weft_view_path_text(pic.v, buf, sizeof buf);
	CHECK_STR(buf, "critical path of GET /item/7 (3 threads, 600 us): "
		       "running 170 us, waiting 410 us (on SELECT 7 410 us), "
		       "ready but not running 20 us (instead ran event loop "
		       "20 us)");
	draw(&pic, 900, 400);
	/* R: running 10-110 and 530-600 (a thick bar: 8 px high), waiting
	 * 110-520 (a line), ready 0-10 and 520-530 (pale) */
	int r0 = (int)weft_view_x_of(pic.v, 10000),
	    r1 = (int)weft_view_x_of(pic.v, 110000);
	CHECK(path_px(&pic, yr, r0 + 2, r1 - 2, 0) >= 7 * (r1 - r0 - 4));
	int w0 = (int)weft_view_x_of(pic.v, 150000),
	    w1 = (int)weft_view_x_of(pic.v, 480000);
	long wait = path_px(&pic, yr, w0, w1, 0);
	CHECK(wait >= 2 * (w1 - w0) && wait <= 4 * (w1 - w0));
	/* Q: waiting 110-300 on W, ready 300-500 (C ran), running 500-520 */
	int q0 = (int)weft_view_x_of(pic.v, 310000),
	    q1 = (int)weft_view_x_of(pic.v, 490000);
	CHECK(path_px(&pic, yq, q0, q1, 1) >= 7 * (q1 - q0));
	int a0 = (int)weft_view_x_of(pic.v, 120000),
	    a1 = (int)weft_view_x_of(pic.v, 290000);
	long qw = path_px(&pic, yq, a0, a1, 0);
	CHECK(qw >= 2 * (a1 - a0) && qw <= 4 * (a1 - a0));
	/* W (ready 110-300: its OS thread idle) */
	CHECK(path_px(&pic, yw, a0, a1, 1) >= 7 * (a1 - a0));
	/* nothing on the loop's row or C's, but the arrows that cross them
	 * (at 300 us, where W woke Q; at 520, where Q woke R) */
	int s1 = (int)weft_view_x_of(pic.v, 300000),
	    s2 = (int)weft_view_x_of(pic.v, 520000);
	long on_c = path_px(&pic, yc, x, xe, 0) + path_px(&pic, yc, x, xe, 1);
	long on_l = path_px(&pic, yl, x, xe, 0) + path_px(&pic, yl, x, xe, 1);
	long off_arrows = 0;
	double ycl[2] = {yc, yl};
	for (int i = 0; i < 2; i++)
		off_arrows += path_px(&pic, ycl[i], x, s1 - 4, 0) +
			      path_px(&pic, ycl[i], s1 + 5, s2 - 4, 0) +
			      path_px(&pic, ycl[i], s2 + 5, xe, 0) +
			      path_px(&pic, ycl[i], x, xe, 1);
	CHECK_EQ(off_arrows, 0);
	CHECK(on_c + on_l <= 4 * 13 * 2);
	/* the arrow where Q woke R: magenta between their rows at 520 us */
	double ylo = yq < yr ? yq : yr, yhi = yq < yr ? yr : yq;
	CHECK(count(&pic, 217, 0, 140, s2 - 3, (int)ylo + 8, 7,
		    (int)(yhi - ylo) - 16) >= (yhi - ylo - 16));
	/* cleared */
	CHECK_EQ(weft_view_path(pic.v, WEFT_NONE), 0);
	weft_view_path_text(pic.v, buf, sizeof buf);
	CHECK_STR(buf, "");
	draw(&pic, 900, 400);
	CHECK_EQ(count(&pic, 217, 0, 140, 0, 0, 0, 0), 0);
	/* an OS thread has no path */
	CHECK_EQ(weft_view_path(pic.v, weft_model_find(pic.m, 0)), 0);
	unload(&pic);
}

/* Two runs side by side: the ARP example's good and bad runs (the wait
 * and the signal on "ARP response" in opposite orders).  Both halves are
 * drawn, each under its strip; they show the same time from each run's
 * start; the first divergence is a magenta line at its time in each half
 * (the earlier of the wait and the wake-up, as weft diff says) and its
 * thread is outlined; a zoom acts on both; a selection in one half selects
 * the aligned thread in the other. */
static void pair_draw(struct pic *p, struct weft_pair *pr, int w, int h)
{
	if (p->s)
		cairo_surface_destroy(p->s);
	p->s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	cairo_t *cr = cairo_create(p->s);
	struct weft_canvas c = weft_cairo_canvas(cr);
	p->prims = weft_pair_render(pr, &c);
	cairo_destroy(cr);
	cairo_surface_flush(p->s);
}

/* Pixels of grey `g` (within 2) in a rectangle. */
static long count_exact(struct pic *p, int g, int x0, int y0, int w, int h)
{
	int stride = cairo_image_surface_get_stride(p->s);
	int H = cairo_image_surface_get_height(p->s);
	const unsigned char *d = cairo_image_surface_get_data(p->s);
	long n = 0;
	for (int y = y0 < 0 ? 0 : y0; y < y0 + h && y < H; y++)
		for (int x = x0; x < x0 + w; x++) {
			const unsigned char *px = d + y * stride + x * 4;
			n += abs(px[0] - g) <= 2 && abs(px[1] - g) <= 2 &&
			     abs(px[2] - g) <= 2;
		}
	return n;
}

/* The columns of a half [y0, y1) that hold at least `min` magenta pixels
 * (the divergence's line; its label and outline are shorter): the first
 * in *x0 and the last in *x1, or -1. */
static void magenta_columns(struct pic *p, int y0, int y1, int min, int *x0,
			    int *x1)
{
	*x0 = *x1 = -1;
	for (int x = 0; x < cairo_image_surface_get_width(p->s); x++)
		if (count(p, 204, 0, 204, x, y0, 1, y1 - y0) >= min) {
			if (*x0 < 0)
				*x0 = x;
			*x1 = x;
		}
}

/* The time each half shows, from its run's anchor. */
static void pair_ranges(struct weft_pair *pr, int64_t r[2][2])
{
	for (int s = 0; s < 2; s++) {
		int64_t a = weft_pair_anchor_t(pr, s);
		weft_view_range(weft_pair_view(pr, s), &r[s][0], &r[s][1]);
		r[s][0] -= a;
		r[s][1] -= a;
	}
}

TEST(pair_side_by_side)
{
	const char *b = getenv("WEFT_BUILD");
	char cmd[2048], ex[1024];
	snprintf(ex, sizeof ex, "%s/examples/arp", b ? b : ".");
	struct weft_reader *r[2];
	struct weft_model *m[2];
	static const char *how[2] = {"good", "bad"};
	for (int s = 0; s < 2; s++) {
		snprintf(cmd, sizeof cmd, "WEFT_FILE=%s %s %s >/dev/null",
			 tpath(how[s]), ex, how[s]);
		if (system(cmd))
			FAIL("cannot run %s", cmd);
		CHECK_OK(weft_reader_open(&r[s], tpath(how[s]), 0, NULL));
		CHECK_OK(weft_model_load(&m[s], r[s]));
	}
	const int W = 1280, H = 800, mid = H / 2;
	struct weft_pair *pr =
		weft_pair_new(m[0], m[1], "good.weft", "bad.weft", W, H);
	CHECK(pr != NULL);
	const struct weft_divergence *d = weft_pair_divergence(pr);
	CHECK_EQ(d->kind, WEFT_DIV_ORDER);
	char what[600];
	weft_pair_divergence_str(pr, what, sizeof what);
	CHECK_STR(what, "first divergence: a wait on ARP response (condition) "
			"and a wake-up of it came in opposite orders");
	/* its time in each run: the earlier of the wait and the wake-up */
	for (int s = 0; s < 2; s++) {
		uint32_t na;
		const struct weft_arrow *a = weft_model_arrows(m[s], &na);
		int64_t w = a[d->arrow[s]].t, k = a[d->other[s]].t;
		CHECK_EQ(d->t[s], w < k ? w : k);
	}
	/* one time scale: the same span from each run's anchor, by
	 * default the divergence (its time in each run) */
	CHECK_EQ(weft_pair_anchored(pr), 1);
	for (int s = 0; s < 2; s++)
		CHECK_EQ(weft_pair_anchor_t(pr, s), d->t[s]);
	int64_t rg[2][2];
	pair_ranges(pr, rg);
	CHECK_EQ(rg[0][0], rg[1][0]);
	CHECK_EQ(rg[0][1], rg[1][1]);

	struct pic p = {0};
	pair_draw(&p, pr, W, H);
	/* both halves drawn: a ruler (its pale band) and a strip each,
	 * where pair.h puts them */
	CHECK_EQ(weft_pair_half(pr, 1), mid);
	for (int s = 0; s < 2; s++) {
		int top = (int)weft_pair_top(pr, s);
		CHECK_EQ(top, s * mid + (int)WEFT_PAIR_STRIP_H);
		long strip = count(&p, 64, 77, 115, 0, s * mid, W,
				   (int)WEFT_PAIR_STRIP_H);
		long ruler = count(&p, 224, 219, 189, 0, top, W, 20);
		if (strip < W * 10 || ruler < W * 12)
			FAIL("half %d: strip %ld, ruler %ld pixels", s, strip,
			     ruler);
		/* and the rows: the thread lines (dark grey) under it */
		long lines = count(&p, 51, 51, 51, 0, top + 20, W, mid - 40);
		if (lines < 100)
			FAIL("half %d: %ld pixels of thread lines", s, lines);
	}
	/* the divergence's line at its time in each half, nowhere else */
	int x0, x1, lx[2];
	for (int s = 0; s < 2; s++) {
		int y0 = (int)weft_pair_top(pr, s);
		magenta_columns(&p, y0, s ? H : mid, 200, &x0, &x1);
		double x = weft_view_x_of(weft_pair_view(pr, s), d->t[s]);
		if (x0 < 0 || fabs(x0 + 1 - x) > 1.01 || x1 != x0 + 1)
			FAIL("half %d: line in columns %d..%d, its time at "
			     "%.1f",
			     s, x0, x1, x);
		CHECK_EQ(weft_pair_divergence_x(pr, s), round(x));
		lx[s] = x0;
	}
	/* lined up there: its line at one x in both halves */
	if (lx[0] != lx[1])
		FAIL("the divergence's lines at x %d and %d", lx[0], lx[1]);
	/* the good run has a counter, the bad one none: the bad half
	 * keeps the band, empty, where the good one has it, so that the
	 * rows above stand alike (the band's grey, 0.85, in the same
	 * pixel rows of each half; none where the rows are) */
	uint32_t nc[2];
	for (int s = 0; s < 2; s++)
		weft_model_counters(m[s], &nc[s]);
	CHECK(nc[0] >= 1 && nc[1] == 0);
	for (int s = 0; s < 2; s++) {
		int end = s ? H : mid, y = end - 16 - 70;
		long band = count_exact(&p, 217, 0, y + 2, W, 66);
		long above = count_exact(&p, 217, 0, y - 40, W, 36);
		if (band < W * 30 || above > W)
			FAIL("half %d: the counters' band: %ld pixels, %ld "
			     "above it",
			     s, band, above);
	}
	/* each half's lines stay in its half: a search in the good run
	 * only, its yellow in the good half only; then in the bad one */
	for (int s = 0; s < 2; s++) {
		weft_view_search(weft_pair_view(pr, s), "a");
		weft_view_search(weft_pair_view(pr, !s), "");
		pair_draw(&p, pr, W, H);
		long in = count(&p, 255, 255, 0, 0, s ? mid : 0, W, mid);
		long out = count(&p, 255, 255, 0, 0, s ? 0 : mid, W, mid);
		if (in < 200 || out)
			FAIL("search in half %d: %ld yellow pixels there, %ld "
			     "in the other",
			     s, in, out);
	}
	weft_view_search(weft_pair_view(pr, 1), "");
	pair_draw(&p, pr, W, H);
	/* its thread outlined in each half: magenta above and below its
	 * row */
	for (int s = 0; s < 2; s++) {
		double rh, y = weft_view_thread_y(weft_pair_view(pr, s),
						  d->thread[s], &rh);
		CHECK(y >= 0);
		y += weft_pair_top(pr, s);
		CHECK(count(&p, 204, 0, 204, 0, (int)y - 10, W, 4) > 40);
		CHECK(count(&p, 204, 0, 204, 0, (int)y + 6, W, 4) > 40);
	}

	/* zoom on both: out by 2 around the middle of the picture, each
	 * line coming twice as near it (the same scale in both; in sight
	 * however far apart the runs' timings put them) */
	double c = W / 2.0;
	weft_pair_zoom(pr, 0.5, c);
	int64_t zg[2][2];
	pair_ranges(pr, zg);
	CHECK_EQ(zg[0][0], zg[1][0]);
	CHECK_EQ(zg[0][1], zg[1][1]);
	CHECK(llabs(zg[0][1] - zg[0][0] - (rg[0][1] - rg[0][0]) * 2) < 10);
	pair_draw(&p, pr, W, H);
	for (int s = 0; s < 2; s++) {
		magenta_columns(&p, (int)weft_pair_top(pr, s), s ? H : mid, 200,
				&x0, &x1);
		double want = c + (lx[s] + 1 - c) / 2;
		if (x0 < 0 || fabs(x0 + 1 - want) > 1.01)
			FAIL("zoomed: half %d's line at %d, not %.1f", s,
			     x0 + 1, want);
	}
	weft_pair_fit(pr);

	/* a selection in the bad half selects the aligned thread in the
	 * good one: TCP connect, both outlined in orange */
	uint32_t n, tcp = WEFT_NONE;
	const struct weft_thread *th = weft_model_threads(m[1], &n);
	char t[256];
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(weft_model_title(m[1], i, t, sizeof t), "TCP "
								    "connect"))
			tcp = i;
	CHECK(tcp != WEFT_NONE);
	(void)th;
	/* picked where it is drawn in the lower half */
	double rh, ty = weft_view_thread_y(weft_pair_view(pr, 1), tcp, &rh);
	double tx = weft_view_x_of(weft_pair_view(pr, 1), th[tcp].t_create);
	int side = -1;
	CHECK_EQ(weft_pair_pick(pr, tx + 20, ty + weft_pair_top(pr, 1), &side),
		 tcp);
	CHECK_EQ(side, 1);
	uint32_t o = weft_pair_select(pr, 1, tcp);
	CHECK(o != WEFT_NONE);
	CHECK_STR(weft_model_title(m[0], o, t, sizeof t), "TCP connect");
	CHECK_EQ(weft_view_selected(weft_pair_view(pr, 0)), o);
	CHECK_EQ(weft_view_selected(weft_pair_view(pr, 1)), tcp);
	CHECK_EQ(weft_pair_partner(pr, 0, o), tcp);
	pair_draw(&p, pr, W, H);
	long og = count(&p, 255, 115, 0, 0, 0, W, mid);
	long ob = count(&p, 255, 115, 0, 0, mid, W, H - mid);
	if (og < 40 || ob < 40)
		FAIL("selection outlines: good %ld, bad %ld", og, ob);
	/* lined up at the divergence's thread: its creation at one x in
	 * both halves; an OS thread (no partner) changes nothing */
	CHECK_EQ(weft_pair_anchor(pr, 0, d->thread[0]), 0);
	double c0 = weft_view_x_of(
		weft_pair_view(pr, 0),
		weft_model_threads(m[0], &n)[d->thread[0]].t_create);
	double c1 = weft_view_x_of(weft_pair_view(pr, 1),
				   th[d->thread[1]].t_create);
	if (fabs(c0 - c1) > 0.5)
		FAIL("lined up at %u/%u: x %.1f and %.1f", d->thread[0],
		     d->thread[1], c0, c1);
	uint32_t os = WEFT_NONE;
	for (uint32_t i = 0; i < n && os == WEFT_NONE; i++)
		if (th[i].flags & WEFT_THREAD_ROOT)
			os = i;
	CHECK(os != WEFT_NONE);
	CHECK_EQ(weft_pair_anchor(pr, 1, os), -1);
	CHECK_EQ(weft_pair_anchor_t(pr, 1), th[d->thread[1]].t_create);
	/* and nothing selected clears both */
	weft_pair_select(pr, 0, WEFT_NONE);
	CHECK_EQ(weft_view_selected(weft_pair_view(pr, 1)), WEFT_NONE);

	cairo_surface_destroy(p.s);
	weft_pair_free(pr);
	for (int s = 0; s < 2; s++) {
		weft_model_free(m[s]);
		weft_reader_close(r[s]);
	}
}

/* The renderer at the sizes a window goes through, zoomed notch by notch
 * around the pointer, as a user of `weft view` does after resizing it: a
 * pass's coverage of pixel columns (coverage.c) never reaches its rows'
 * last column, the sentinel that ends a row's "next free column" chain
 * (taking it let the chain run into the next row, and past the last
 * one: the GTK viewer crashed zooming a 10 M-event trace at 1280x800). */
TEST(zoom_at_changing_sizes)
{
	const char *b = getenv("WEFT_BUILD");
	char cmd[1024];
	const char *p = tpath("server.weft");
	snprintf(cmd, sizeof cmd,
		 "%s/bench/server-gen -n 300000 -c 100 -o %s >/dev/null",
		 b ? b : ".", p);
	if (system(cmd))
		FAIL("cannot run %s", cmd);
	static const int sizes[][2] = {{950, 762},  {1280, 800}, {801, 601},
				       {1400, 900}, {640, 480},	 {1, 1},
				       {3, 2000}};
	struct pic pic;
	load(&pic, p, 1000, 700);
	int frames = 0, squeezed = 0;
	for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
		int w = sizes[z][0], h = sizes[z][1];
		weft_view_resize(pic.v, w, h);
		weft_view_fit(pic.v);
		for (int n = 0; n < 30; n++) {
			/* a notch of the wheel (1.25) at three places */
			weft_view_zoom(pic.v, 1.25,
				       (double)w * (n % 3 + 1) / 4);
			draw(&pic, w, h);
			frames++;
			struct weft_view *v = pic.v;
			CHECK(v->fr.covw >= 2);
			for (int iy = 0; iy < v->fr.covh; iy++) {
				int last =
					v->fr.cover[(size_t)iy *
							    (size_t)v->fr.covw +
						    (size_t)v->fr.covw - 1];
				if (v->fr.stamp[iy] == v->fr.pass && last)
					FAIL("%dx%d, notch %d: pixel row %d "
					     "took its sentinel column (%d)",
					     w, h, n + 1, iy, last);
			}
			squeezed += weft_view_rows(v) > 0;
		}
	}
	CHECK_EQ(frames, 30 * (int)(sizeof sizes / sizeof *sizes));
	CHECK(squeezed > 0);
	unload(&pic);
}

TEST_MAIN(T(arrow_colours), T(ruler_numbers), T(ruler_and_measure),
	  T(level_of_detail), T(labels_over_time), T(focus_and_context),
	  T(causal_chain), T(counter_toggles),
	  T(counter_values_at_pointer_names_on_top),
	  T(spans_notes_becomes_pending), T(idle_band_coverage),
	  T(pause_band_share), T(dark_theme), T(view_state_round_trip),
	  T(bookmarks), T(arrows_batched_by_colour), T(loop_phases),
	  T(server_zoomed_in), T(libuv_at_load), T(processes_as_groups),
	  T(short_processes_share_rows), T(critical_path), T(pair_side_by_side),
	  T(zoom_at_changing_sizes))
