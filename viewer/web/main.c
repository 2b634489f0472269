/* SPDX-License-Identifier: MIT */
/*
 * main.c - the HTML viewer's C side, compiled to WebAssembly: the same
 * reader, model, layout and renderer as `weft view`, with a canvas whose
 * calls are imports that viewer.js forwards to an HTML canvas.  Two runs
 * to compare (`weft html GOOD BAD`): both models and a pair (pair.h) in
 * the one canvas, as `weft view GOOD BAD` shows them; `view` and `model`
 * are then those of `side`, the half the pointer last acted in, and the
 * exports act on the pair as the GTK viewer does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "pair.h"
#include "view.h"
#include "weft/model.h"
#include "weft/stats.h"
#include "common/grow.h"

#define IMPORT(name) __attribute__((import_module("env"), import_name(#name)))
#define EXPORT(name) __attribute__((export_name(#name)))

IMPORT(c_color) void c_color(double r, double g, double b, double a);
IMPORT(c_line_width) void c_line_width(double w);
IMPORT(c_line) void c_line(double x0, double y0, double x1, double y1);
IMPORT(c_rect) void c_rect(double x, double y, double w, double h);
IMPORT(c_triangle)
void c_triangle(double x0, double y0, double x1, double y1, double x2,
		double y2);
IMPORT(c_text) void c_text(double x, double y, double size, const char *s);
IMPORT(c_text_width) double c_text_width(double size, const char *s);
IMPORT(c_clip) void c_clip(double x, double y, double w, double h);
IMPORT(c_unclip) void c_unclip(void);
IMPORT(c_flush) void c_flush(void);
IMPORT(c_image)
void c_image(int x, int y, int w, int h, const unsigned char *rgba);

static unsigned char rgba_now[4]; /* the colour, for masks */

static void color(void *c, double r, double g, double b, double a)
{
	(void)c;
	rgba_now[0] = (unsigned char)(r * 255 + 0.5);
	rgba_now[1] = (unsigned char)(g * 255 + 0.5);
	rgba_now[2] = (unsigned char)(b * 255 + 0.5);
	rgba_now[3] = (unsigned char)(a * 255 + 0.5);
	c_color(r, g, b, a);
}
static void line_width(void *c, double w)
{
	(void)c;
	c_line_width(w);
}
static void line(void *c, double x0, double y0, double x1, double y1)
{
	(void)c;
	c_line(x0, y0, x1, y1);
}
static void rect(void *c, double x, double y, double w, double h)
{
	(void)c;
	c_rect(x, y, w, h);
}
static void triangle(void *c, double x0, double y0, double x1, double y1,
		     double x2, double y2)
{
	(void)c;
	c_triangle(x0, y0, x1, y1, x2, y2);
}
static void text(void *c, double x, double y, double size, const char *s)
{
	(void)c;
	c_text(x, y, size, s);
}
static double text_width(void *c, double size, const char *s)
{
	(void)c;
	return c_text_width(size, s);
}
static void clip(void *c, double x, double y, double w, double h)
{
	(void)c;
	c_clip(x, y, w, h);
}
static void unclip(void *c)
{
	(void)c;
	c_unclip();
}

static void flush(void *c)
{
	(void)c;
	c_flush();
}

/* A mask: an RGBA image in the current colour, which the page draws
 * over the canvas in one call (putImageData on a scratch canvas, then
 * drawImage: it blends and clips like the rest). */
static unsigned char *img;
static size_t cimg;

static void mask(void *c, int x, int y, int w, int h, const unsigned char *a,
		 int stride)
{
	(void)c;
	size_t need = (size_t)w * (size_t)h * 4;
	if (need > cimg) {
		unsigned char *n = realloc(img, need);
		if (!n)
			return;
		img = n;
		cimg = need;
	}
	for (int j = 0; j < h; j++) {
		const unsigned char *src = a + (size_t)j * (size_t)stride;
		unsigned char *dst = img + (size_t)j * (size_t)w * 4;
		for (int i = 0; i < w; i++, dst += 4) {
			/* (ImageData is not premultiplied) */
			unsigned al = (unsigned)src[i] * rgba_now[3] / 255;
			dst[0] = rgba_now[0];
			dst[1] = rgba_now[1];
			dst[2] = rgba_now[2];
			dst[3] = (unsigned char)al;
		}
	}
	c_image(x, y, w, h, img);
}

static const struct weft_canvas
	canvas =
		{
			NULL,	  color, line_width, line, rect,
			triangle, text,	 text_width, clip, unclip,
			flush,	  mask,	 0, /* (boxes: a mask costs the page every pixel of it) */
};

static struct weft_reader *reader;
static struct weft_model *model;
static struct weft_view *view;
static char *trace;
static char out[8192];

/* Two runs: each side's reader, model and bytes, the pair, the side
 * input last acted in (view, model and reader are its), and whether a
 * press holds it (a drag or a measure stays in its half). */
static struct weft_reader *pr[2];
static struct weft_model *pm[2];
static char *ptrace[2];
static struct weft_pair *pair;
static int side, held;

static void pair_side(int s)
{
	side = s;
	view = weft_pair_view(pair, s);
	model = pm[s];
	reader = pr[s];
}

/* The other half shows the same time as this one. */
static void sync(void)
{
	if (pair)
		weft_pair_sync(pair, side);
}

/* A picture's y in the view of its half (which becomes the side), or
 * as it is with one run. */
static double at_y(double y)
{
	if (!pair)
		return y;
	pair_side(weft_pair_side_at(pair, y));
	return y - weft_pair_top(pair, side);
}

EXPORT(w_alloc) void *w_alloc(size_t n)
{
	return malloc(n);
}

EXPORT(w_free) void w_free(void *p)
{
	free(p);
}

/* Decodes the base64 text of `len` bytes at `p` in place; returns the
 * bytes decoded, or -1 on a byte that is not base64.  (The page carries
 * the trace as base64: decoding here is several times faster than atob
 * and a loop in JavaScript, and needs no second copy.) */
EXPORT(w_unbase64) long w_unbase64(unsigned char *p, size_t len)
{
	static signed char val[256];
	if (!val['B']) {
		memset(val, -1, sizeof val);
		for (int i = 0; i < 64; i++)
			val[(unsigned char)"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghi"
					   "jklmnopqrstuvwxyz0123456789+/"[i]] =
				(signed char)i;
	}
	size_t o = 0;
	uint32_t acc = 0;
	int bits = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = p[i];
		if (c == '=' || c == '\n' || c == '\r' || c == ' ')
			continue;
		if (val[c] < 0)
			return -1;
		acc = acc << 6 | (uint32_t)val[c];
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			p[o++] = (unsigned char)(acc >> bits);
		}
	}
	return (long)o;
}

static void unload(void)
{
	if (pair || pm[0]) {
		weft_pair_free(pair);
		pair = NULL;
		if (!pm[1]) {
			/* (the second run, not yet paired: its own) */
			weft_model_free(model);
			weft_reader_close(reader);
			free(trace);
		}
		for (int s = 0; s < 2; s++) {
			weft_model_free(pm[s]);
			weft_reader_close(pr[s]);
			free(ptrace[s]);
			pm[s] = NULL;
			pr[s] = NULL;
			ptrace[s] = NULL;
		}
		view = NULL;
		model = NULL;
		reader = NULL;
		trace = NULL;
		side = held = 0;
		return;
	}
	weft_view_free(view);
	weft_model_free(model);
	weft_reader_close(reader);
	free(trace);
	view = NULL;
	model = NULL;
	reader = NULL;
	trace = NULL;
}

/* Opens the `len` bytes at `bytes` (from w_alloc; the viewer keeps them)
 * and makes an empty model; w_step() then reads it in steps, w_view()
 * shows it.  Returns 0 or a negative code; w_error() says why. */
static int open_run(char *bytes, size_t len)
{
	trace = bytes;
	struct weft_diag d = {0};
	int err = weft_reader_open_mem(&reader, bytes, len, 0, &d);
	if (err) {
		snprintf(out, sizeof out, "not a readable weft trace: %s",
			 d.msg[0] ? d.msg : weft_strerror(err));
		return err;
	}
	if ((err = weft_model_new(&model, reader))) {
		snprintf(out, sizeof out, "cannot model it: %s",
			 weft_strerror(err));
		return err;
	}
	return 0;
}

EXPORT(w_open) int w_open(char *bytes, size_t len)
{
	unload();
	return open_run(bytes, len);
}

/* Two runs: the run w_open opened and w_step read is the good one; this
 * opens the bad one, which w_step then reads and w_view_pair shows with
 * it.  0 or a negative code. */
EXPORT(w_open2) int w_open2(char *bytes, size_t len)
{
	if (!model || pm[0])
		return -22;
	pm[0] = model;
	pr[0] = reader;
	ptrace[0] = trace;
	model = NULL;
	reader = NULL;
	trace = NULL;
	return open_run(bytes, len);
}

/* Both runs read: the pair, GOOD above BAD, named by name0 and name1.  0
 * or a negative code. */
EXPORT(w_view_pair)
int w_view_pair(double w, double h, const char *name0, const char *name1)
{
	if (!model || !pm[0] || pair)
		return -22;
	pm[1] = model;
	pr[1] = reader;
	ptrace[1] = trace;
	pair = weft_pair_new(pm[0], pm[1], name0, name1, w, h);
	if (!pair) {
		snprintf(out, sizeof out, "out of memory");
		return -12;
	}
	pair_side(0);
	return 0;
}

/* 1 when two runs are shown. */
EXPORT(w_paired) int w_paired(void)
{
	return pair != NULL;
}

/* Two runs: lines them up at the selected thread of the half last acted
 * in and its partner (none selected: at the first divergence, or their
 * starts), as the GTK viewer's L.  Returns what it did: "align: TITLE",
 * "align: the first divergence", "align: the starts",
 * "align: TITLE has no partner", or "" with one run. */
EXPORT(w_align) const char *w_align(void)
{
	out[0] = 0;
	if (!pair)
		return out;
	char title[256];
	uint32_t t = weft_view_selected(view);
	if (t != WEFT_NONE)
		weft_model_title(model, t, title, sizeof title);
	if (weft_pair_anchor(pair, side, t)) {
		snprintf(out, sizeof out, "align: %s has no partner", title);
		return out;
	}
	weft_pair_sync(pair, side);
	snprintf(out, sizeof out, "align: %s",
		 t != WEFT_NONE		    ? title
		 : weft_pair_anchored(pair) ? "the first divergence"
					    : "the starts");
	return out;
}

/* The first divergence in the words of `weft diff` ("same structure":
 * none), or "" with one run. */
EXPORT(w_divergence) const char *w_divergence(void)
{
	out[0] = 0;
	if (pair)
		weft_pair_divergence_str(pair, out, sizeof out);
	return out;
}

/* Reads up to `max` more events: returns how many (fewer than max: all
 * read), or a negative code. */
EXPORT(w_step) long w_step(long max)
{
	if (!model)
		return -22;
	long n = weft_model_step(model, max);
	if (n < 0)
		snprintf(out, sizeof out, "cannot model it: %s",
			 weft_strerror((int)n));
	return n;
}

/* The view of the model read: its layout.  0 or a negative code. */
EXPORT(w_view) int w_view(double w, double h)
{
	if (!model || pm[0])
		return -22;
	view = weft_view_new(model, w, h);
	if (!view)
		snprintf(out, sizeof out, "out of memory");
	return view ? 0 : -12;
}

/* All at once (tests, small traces). */
EXPORT(w_load) int w_load(char *bytes, size_t len, double w, double h)
{
	int err = w_open(bytes, len);
	long n = err ? err : w_step(0);
	return n < 0 ? (int)n : w_view(w, h);
}

EXPORT(w_error) const char *w_error(void)
{
	return out;
}

/* The view's state (weft_view_state()): what the page keeps in its
 * address after '#'. */
EXPORT(w_state) const char *w_state(void)
{
	if (!view || pair)
		return "";
	sync();
	weft_view_state(view, out, sizeof out);
	return out;
}

/* Sets the view to a state: "" when done, else why not. */
EXPORT(w_set_state) const char *w_set_state(const char *s)
{
	if (!view || pair)
		return "one run only";
	out[0] = 0;
	if (weft_view_set_state(view, s, out, sizeof out) == 0)
		out[0] = 0;
	sync();
	return out;
}

/* The theme (weft_view_set_dark), kept for views made later. */
static int theme_dark;

EXPORT(w_dark) void w_dark(int on)
{
	theme_dark = !!on;
}

EXPORT(w_render) long w_render(double w, double h)
{
	if (pair) {
		sync();
		for (int s = 0; s < 2; s++)
			weft_view_set_dark(weft_pair_view(pair, s), theme_dark);
		weft_pair_resize(pair, w, h);
		return weft_pair_render(pair, &canvas);
	}
	if (!view)
		return 0;
	weft_view_set_dark(view, theme_dark);
	weft_view_resize(view, w, h);
	return weft_view_render(view, &canvas);
}

EXPORT(w_zoom) void w_zoom(double factor, double x)
{
	if (pair) {
		sync();
		weft_pair_zoom(pair, factor, x);
	} else if (view)
		weft_view_zoom(view, factor, x);
}

EXPORT(w_pan) void w_pan(double dx, double dy)
{
	if (pair) {
		sync();
		weft_pair_pan(pair, dx, dy);
	} else if (view)
		weft_view_pan(view, dx, dy);
}

EXPORT(w_fit) void w_fit(void)
{
	if (pair)
		weft_pair_fit(pair);
	else if (view)
		weft_view_fit(view);
}

EXPORT(w_counters) void w_counters(int on)
{
	for (int s = 0; pair && s < 2; s++)
		weft_view_show_counters(weft_pair_view(pair, s), on);
	if (view && !pair)
		weft_view_show_counters(view, on);
}

/* Counter `name`'s number in model m, or -1. */
static int counter_of(const struct weft_model *m, const char *name)
{
	uint32_t n = 0;
	const struct weft_counter *c = weft_model_counters(m, &n);
	for (uint32_t k = 0; k < n; k++)
		if (!strcmp(weft_model_name(m, c[k].name), name))
			return (int)k;
	return -1;
}

/* Counter k of w_counter_names: with two runs, the good run's counters
 * then the bad run's others, each shown or hidden in both by name. */
EXPORT(w_counter) void w_counter(int k, int on)
{
	if (!view || k < 0)
		return;
	if (!pair) {
		weft_view_show_counter(view, (uint32_t)k, on);
		return;
	}
	uint32_t n0 = 0, n1 = 0;
	const struct weft_counter *c0 = weft_model_counters(pm[0], &n0);
	const struct weft_counter *c1 = weft_model_counters(pm[1], &n1);
	const char *name = NULL;
	if ((uint32_t)k < n0) {
		name = weft_model_name(pm[0], c0[k].name);
	} else {
		int i = k - (int)n0;
		for (uint32_t j = 0; j < n1 && !name; j++) {
			const char *nm = weft_model_name(pm[1], c1[j].name);
			if (counter_of(pm[0], nm) < 0 && i-- == 0)
				name = nm;
		}
	}
	for (int s = 0; name && s < 2; s++) {
		int i = counter_of(pm[s], name);
		if (i >= 0)
			weft_view_show_counter(weft_pair_view(pair, s),
					       (uint32_t)i, on);
	}
}

/* Moves the vertical focus by `rows`. */
EXPORT(w_focus) void w_focus(int rows)
{
	if (view)
		weft_view_set_focus(view, weft_view_focus(view) + rows);
}

/* Only the threads of the chain (on) or all; returns the rows shown. */
EXPORT(w_only_chain) int w_only_chain(int on)
{
	if (!view)
		return 0;
	for (int s = 0; pair && s < 2; s++)
		weft_view_only_chain(weft_pair_view(pair, s), on);
	weft_view_only_chain(view, on);
	return weft_view_rows(view);
}

/* The row in focus (the picture's data-focus). */
EXPORT(w_focus_row) int w_focus_row(void)
{
	return view ? weft_view_focus(view) : 0;
}

EXPORT(w_rows) int w_rows(void)
{
	return view ? weft_view_rows(view) : 0;
}

/* With two runs, in both: the matches of both. */
EXPORT(w_search) int w_search(const char *s)
{
	if (pair)
		return (int)(weft_view_search(weft_pair_view(pair, 0), s) +
			     weft_view_search(weft_pair_view(pair, 1), s));
	return view ? (int)weft_view_search(view, s) : 0;
}

/* "t0 t1" of the visible range, in ns (two runs: the good one's). */
EXPORT(w_range) const char *w_range(void)
{
	int64_t a = 0, b = 0;
	sync();
	if (pair)
		weft_view_range(weft_pair_view(pair, 0), &a, &b);
	else if (view)
		weft_view_range(view, &a, &b);
	snprintf(out, sizeof out, "%lld %lld", (long long)a, (long long)b);
	return out;
}

/* Two runs: "t0 t1" of the bad run's visible range (ns), or "". */
EXPORT(w_range2) const char *w_range2(void)
{
	int64_t a = 0, b = 0;
	out[0] = 0;
	sync();
	if (pair) {
		weft_view_range(weft_pair_view(pair, 1), &a, &b);
		snprintf(out, sizeof out, "%lld %lld", (long long)a,
			 (long long)b);
	}
	return out;
}

/* "t0 t1" of the trace (ns): the range the view's times count from (two
 * runs: the good one's, side 1: the bad one's). */
static const char *extent(const struct weft_model *m)
{
	int64_t a = 0, b = 0;
	if (m)
		weft_model_range(m, &a, &b);
	snprintf(out, sizeof out, "%lld %lld", (long long)a, (long long)b);
	return out;
}

EXPORT(w_extent2) const char *w_extent2(void)
{
	if (!pair) {
		out[0] = 0;
		return out;
	}
	return extent(pm[1]);
}

EXPORT(w_extent) const char *w_extent(void)
{
	int64_t a = 0, b = 0;
	if (pair)
		return extent(pm[0]);
	if (model)
		weft_model_range(model, &a, &b);
	snprintf(out, sizeof out, "%lld %lld", (long long)a, (long long)b);
	return out;
}

/* Shows `duration` ns (< 0: to the end of the trace) from `start` ns
 * after the trace's start (< 0: its start), as weft render --start and
 * --duration do: an embedded viewer's initial range. */
EXPORT(w_set_range) void w_set_range(double start, double duration)
{
	int64_t t0, t1;
	if (pair) { /* (times from the good run's start; the longer's end) */
		int64_t longest = 0;
		for (int s = 0; s < 2; s++) {
			weft_model_range(pm[s], &t0, &t1);
			longest = t1 - t0 > longest ? t1 - t0 : longest;
		}
		int64_t a = start >= 0 ? (int64_t)start : 0;
		weft_pair_show(pair, a,
			       duration > 0 ? a + (int64_t)duration : longest);
		pair_side(0); /* (the good run's range rules) */
		return;
	}
	if (!view)
		return;
	weft_model_range(model, &t0, &t1);
	int64_t a = start >= 0 ? t0 + (int64_t)start : t0;
	int64_t b = duration > 0 ? a + (int64_t)duration : t1;
	weft_view_set_range(view, a, b);
}

/* The visible range for people, as the ruler counts and writes times:
 * "2.5ms .. 3.75ms (1.25ms)", from the trace's start; with one run, of
 * the part within the trace (whole: "0 .. 10ms (10ms)"). */
EXPORT(w_range_text) const char *w_range_text(void)
{
	int64_t a, b, t0, t1;
	char x[48], y[48], d[48];
	if (!view)
		return "";
	sync();
	weft_view_range(view, &a, &b);
	weft_model_range(model, &t0, &t1);
	if (pair && weft_pair_anchored(pair) == 2) /* (from the anchor:
						      the same text for both) */
		t0 = weft_pair_anchor_t(pair, side);
	else { /* the trace shown, not the margins: fit says 0, never a
		* negative start */
		a = a < t0 ? t0 : a;
		b = b > t1 ? t1 : b;
		b = b < a ? a : b;
	}
	/* to a hundredth of the range */
	/* both ends in one unit, the farther one's, to the precision of
	 * the length (as weft_view_dur_str and the range summary write
	 * it): "0 ms .. 374.493 ms (374.493 ms)" */
	int64_t q = 1, far = b - t0 > t0 - a ? b - t0 : t0 - a;
	while (q * 10 <= (b - a) / 100000 && q < 1000000000)
		q *= 10;
	int64_t unit = far < 1000	  ? 1
		       : far < 1000000	  ? 1000
		       : far < 1000000000 ? 1000000
					  : 1000000000;
	weft_time_fmt_in(a - t0, q, unit, x, sizeof x);
	weft_time_fmt_in(b - t0, q, unit, y, sizeof y);
	weft_view_dur_str(b - a, d, sizeof d);
	snprintf(out, sizeof out, "%s .. %s (%s)", x, y, d);
	return out;
}

static void jstr(char **p, char *end, const char *s)
{
	char *q = *p;
	if (q < end)
		*q++ = '"';
	for (; *s && q + 8 < end; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			*q++ = '\\';
			*q++ = (char)c;
		} else if (c < 0x20 || c == '<') {
			q += snprintf(q, (size_t)(end - q), "\\u%04x", c);
		} else
			*q++ = (char)c;
	}
	if (q < end)
		*q++ = '"';
	*p = q;
}

/* The counters' names, as a JSON array. */
EXPORT(w_counter_names) const char *w_counter_names(void)
{
	char *p = out, *end = out + sizeof out - 8;
	uint32_t n = 0;
	const struct weft_model *m = pair ? pm[0] : model;
	const struct weft_counter *c = m ? weft_model_counters(m, &n) : NULL;
	*p++ = '[';
	for (uint32_t k = 0; k < n && p < end - 300; k++) {
		if (k)
			*p++ = ',';
		/* one run: with its process, in a trace of several (two
		 * runs pair their counters by name) */
		char title[300];
		if (!pair)
			weft_model_counter_title(m, k, title, sizeof title);
		jstr(&p, end, pair ? weft_model_name(m, c[k].name) : title);
	}
	/* two runs: then the bad run's that the good one has not */
	c = pair ? weft_model_counters(pm[1], &n) : NULL;
	for (uint32_t k = 0; c && k < n && p < end - 300; k++) {
		const char *nm = weft_model_name(pm[1], c[k].name);
		if (counter_of(pm[0], nm) >= 0)
			continue;
		if (p[-1] != '[')
			*p++ = ',';
		jstr(&p, end, nm);
	}
	*p++ = ']';
	*p = 0;
	return out;
}

/* Describes thread t as JSON ("null": none): {"thread": t, "head": the
 * inspector's head (weft_view_describe), "count": how many entries it
 * has (weft_model_inspect: every arrow, label, note), "entries": the
 * first of them, [{"text", "other": the thread it names, -1: none}...]
 * (w_entries gives the others), "chain": the highlighted chain's size if
 * t is in it}. */
static const char *describe(uint32_t t);

/* The selected thread described (for the inspector), or null. */
EXPORT(w_describe_selected) const char *w_describe_selected(void)
{
	return view ? describe(weft_view_selected(view)) : "null";
}

static char about[16384];
static char json[6 * 512 + 64]; /* a process header's */

/* A click: selects the thread at (x, y) (in the squeezed rows, brings
 * it into focus) and describes it. */
/* The time of the last click on the picture (the standard views'
 * cursor: pending at it), INT64_MIN before one. */
static int64_t pending_cursor = INT64_MIN;

EXPORT(w_click) const char *w_click(double x, double y)
{
	if (!view)
		return "null";
	if (!pair)
		pending_cursor = weft_view_time_at(view, x);
	y = at_y(y);
	uint32_t proc = weft_view_header_at(view, x, y);
	if (proc != WEFT_NONE) {
		/* a process's header: its group collapses or opens */
		int on = !weft_view_collapsed(view, proc);
		weft_view_collapse(view, proc, on);
		uint32_t np;
		const struct weft_model_process *procs =
			weft_model_processes(model, &np);
		char *p = json, *end = json + sizeof json - 64;
		p += snprintf(p, (size_t)(end - p), "{\"process\":");
		jstr(&p, end, procs[proc].comm);
		snprintf(p, (size_t)(end - p + 64),
			 ",\"pid\":%u,\"collapsed\":%d}", procs[proc].pid, on);
		return json;
	}
	uint32_t t = y < 0 ? WEFT_NONE : weft_view_pick(view, x, y);
	weft_view_select(view, t);
	if (pair) /* and its partner in the other half */
		weft_pair_select(pair, side, t);
	double rh;
	if (weft_view_thread_y(view, t, &rh) >= 0 && rh < 26)
		weft_view_set_focus(view, weft_view_row(view, t));
	return describe(t);
}

/* A double click: highlights the causal chain of the thread at (x, y)
 * (or clears it) and describes the thread. */
EXPORT(w_dblclick) const char *w_dblclick(double x, double y)
{
	if (!view)
		return "null";
	y = at_y(y);
	uint32_t t = y < 0 ? WEFT_NONE : weft_view_pick(view, x, y);
	weft_view_chain(view, t);
	weft_view_select(view, t);
	if (pair) { /* and its partner's in the other half */
		uint32_t o = weft_pair_select(pair, side, t);
		weft_view_chain(weft_pair_view(pair, !side), o);
	}
	return describe(t);
}

/* n, N, Enter: the next (dir 1) or previous (-1) match of the search,
 * selected and zoomed to; described, or null. */
EXPORT(w_next_match) const char *w_next_match(int dir)
{
	if (!view)
		return "null";
	uint32_t t = weft_view_next_match(view, dir);
	if (pair && t != WEFT_NONE)
		weft_pair_select(pair, side, t);
	sync();
	return describe(t);
}

/* How many threads the search matches now. */
EXPORT(w_matches) int w_matches(void)
{
	if (pair)
		return (int)(weft_view_matches(weft_pair_view(pair, 0)) +
			     weft_view_matches(weft_pair_view(pair, 1)));
	return view ? (int)weft_view_matches(view) : 0;
}

/* The tooltip of the thread at (x, y), or "". */
EXPORT(w_tooltip) const char *w_tooltip(double x, double y)
{
	if (!view)
		return "";
	y = at_y(y);
	uint32_t t = y < 0 ? WEFT_NONE : weft_view_pick(view, x, y);
	if (t == WEFT_NONE)
		return "";
	weft_view_tooltip(view, t, about, sizeof about);
	return about;
}

/* Esc: no selection, no chain, no path, no measure (the page clears its search
 * box). */
EXPORT(w_clear) void w_clear(void)
{
	if (!view)
		return;
	for (int s = 0; s < (pair ? 2 : 1); s++) {
		struct weft_view *v = pair ? weft_pair_view(pair, s) : view;
		weft_view_chain(v, WEFT_NONE);
		weft_view_path(v, WEFT_NONE);
		weft_view_select(v, WEFT_NONE);
		weft_view_clear_measure(v);
	}
}

/* Time: the ruler's height (a press there measures), the pointer (x < 0:
 * away) and its time as the ruler shows it. */
EXPORT(w_ruler_h) double w_ruler_h(void)
{
	return view ? weft_view_ruler_h(view) : 0;
}

/* Whether picture y is on a ruler (its half's, with two runs). */
EXPORT(w_on_ruler) int w_on_ruler(double y)
{
	if (!view)
		return 0;
	if (!pair)
		return y < weft_view_ruler_h(view);
	int s = weft_pair_side_at(pair, y);
	double vy = y - weft_pair_top(pair, s);
	return vy >= 0 && vy < weft_view_ruler_h(weft_pair_view(pair, s));
}

/* A press at y: with two runs, its half is the side until w_release (a
 * drag or a measure stays there).  Returns w_on_ruler(y). */
EXPORT(w_press) int w_press(double y)
{
	if (pair) {
		at_y(y);
		held = 1;
	}
	return w_on_ruler(y);
}

EXPORT(w_release) void w_release(void)
{
	held = 0;
}

static char when[64];

EXPORT(w_pointer_str) const char *w_pointer_str(void)
{
	when[0] = 0;
	if (view)
		weft_view_pointer_str(view, when, sizeof when);
	return when;
}

/* A time or duration of `ns` as every time of the viewers is written
 * (weft_time_fmt_in): rounded to `prec` ns, in the unit `unit` ns (1,
 * 1000, 10^6, 10^9; 0: its own), "12.345 us" -- the standard views'
 * columns, one unit a column. */
EXPORT(w_time_fmt) const char *w_time_fmt(double ns, double prec, double unit)
{
	static char t[64];
	weft_time_fmt_in((int64_t)ns, (int64_t)prec, (int64_t)unit, t,
			 sizeof t);
	return t;
}

/* A model time as the pointer's is written: from the trace's start, to
 * the precision of the view's ticks ("2.500 ms"). */
EXPORT(w_time_at) const char *w_time_at(double t)
{
	static char s[64];
	int64_t t0, t1, a = 0, b = 1;
	if (!model)
		return "";
	weft_model_range(model, &t0, &t1);
	if (view)
		weft_view_range(view, &a, &b);
	weft_view_time_str((int64_t)t - t0,
			   weft_view_tick_step((double)(b - a) / 1000), s,
			   sizeof s);
	return s;
}

/* A measure: from x, then to x (a drag); "t0 t1 duration" of it, or "". */
EXPORT(w_measure) const char *w_measure(void)
{
	int64_t a, b;
	char d[48];
	when[0] = 0;
	if (view && weft_view_measure(view, &a, &b)) {
		weft_view_dur_str(b - a, d, sizeof d);
		snprintf(when, sizeof when, "%lld %lld %s", (long long)a,
			 (long long)b, d);
	}
	return when;
}

/* (two runs: in the half of the press) */
EXPORT(w_measure_from) void w_measure_from(double x)
{
	if (view)
		weft_view_measure_from(view, x);
}

EXPORT(w_measure_to) const char *w_measure_to(double x)
{
	if (view)
		weft_view_measure_to(view, x);
	return w_measure();
}

/* z: the measured range fills the view; -1 when there is none. */
EXPORT(w_zoom_measure) int w_zoom_measure(void)
{
	int r = view ? weft_view_zoom_measure(view) : -1;
	sync();
	return r;
}

/* The JSON of describe(), grown as the thread's entries need (every
 * one: a loop's may be thousands). */
static char *djson;
static size_t cdjson, dlen;

static int droom(size_t more)
{
	return !weft__grow_to(&djson, &cdjson, dlen + more + 1, 1, 4096,
			      SIZE_MAX);
}

/* Appends text as it is (JSON punctuation, numbers). */
static int dput(const char *s)
{
	size_t n = strlen(s);
	if (!droom(n))
		return 0;
	memcpy(djson + dlen, s, n + 1);
	dlen += n;
	return 1;
}

/* Appends a string literal (6 bytes a byte at worst, escaped). */
static int dstr(const char *s)
{
	if (!droom(6 * strlen(s) + 8))
		return 0;
	char *p = djson + dlen;
	jstr(&p, djson + cdjson - 1, s);
	*p = 0;
	dlen = (size_t)(p - djson);
	return 1;
}

/* The inspected thread's entries (every one: a loop's may be a hundred
 * thousand, which the page shows a page at a time as it scrolls). */
static struct weft_inspect cur;
static uint32_t cur_t = WEFT_NONE;
static int cur_side; /* (two runs: the side of cur_t) */

/* Entries [from, from + count) as a JSON array of {"text", "other" (-1:
 * none)}. */
static int entries_json(uint32_t from, uint32_t count)
{
	char line[1024], num[48];
	int ok = dput("[");
	for (uint32_t i = from; i < cur.n && i - from < count && ok; i++) {
		const struct weft_entry *e = &cur.entries[i];
		weft_entry_text(pair ? pm[cur_side] : model, cur_t, e, line,
				sizeof line);
		snprintf(num, sizeof num, ",\"other\":%d}",
			 e->other == WEFT_NONE ? -1 : (int)e->other);
		ok = dput(i > from ? ",{\"text\":" : "{\"text\":") &&
		     dstr(line) && dput(num);
	}
	return ok && dput("]");
}

#define FIRST_ENTRIES 400 /* with the head; the rest on request */

static const char *describe(uint32_t t)
{
	uint32_t n;
	char num[64];
	weft_model_threads(model, &n);
	weft_inspect_release(&cur);
	cur_t = WEFT_NONE;
	if (t >= n || weft_model_inspect(model, t, &cur))
		return "null";
	cur_t = t;
	cur_side = side;
	weft_view_describe(view, t, about, sizeof about);
	uint32_t o = WEFT_NONE;
	if (pair) { /* its partner in the other run */
		char who[256];
		size_t l = strlen(about);
		const char *run = side ? "good" : "bad";
		o = weft_pair_partner(pair, side, t);
		if (o == WEFT_NONE)
			snprintf(about + l, sizeof about - l,
				 "\n\nno partner in the %s run", run);
		else
			snprintf(about + l, sizeof about - l,
				 "\n\nits partner in the %s run: %s", run,
				 weft_model_title(pm[!side], o, who,
						  sizeof who));
	}
	size_t k = strlen(about);
	int path = weft_view_path_thread(view) == t && k + 2 < sizeof about;
	if (path) { /* its critical path, after the head */
		memcpy(about + k, "\n\n", 3);
		weft_view_path_text(view, about + k + 2, sizeof about - k - 2);
	}
	dlen = 0;
	int ok = 1;
	if (pair) {
		snprintf(num, sizeof num, "{\"side\":%d,\"partner\":%d,", side,
			 o == WEFT_NONE ? -1 : (int)o);
		ok = dput(num);
	} else {
		ok = dput("{");
	}
	snprintf(num, sizeof num, "\"thread\":%u,\"count\":%u,\"head\":", t,
		 cur.n);
	ok = ok && dput(num) && dstr(about) && dput(",\"entries\":") &&
	     entries_json(0, FIRST_ENTRIES);
	if (ok && weft_view_in_chain(view, t)) {
		snprintf(num, sizeof num, ",\"chain\":%u",
			 weft_view_chain_size(view));
		ok = dput(num);
	}
	if (ok && path) {
		/* its critical path, highlighted: its size and split */
		snprintf(num, sizeof num, ",\"path_threads\":%u,\"path\":",
			 weft_view_path_size(view));
		ok = dput(num) && dstr(about + k + 2);
	}
	ok = ok && dput("}");
	return ok ? djson : "null";
}

/* P: the selected thread's critical path highlighted, or off (again, or
 * nothing selected); describes the selected thread (with "path": the
 * split in words, and "path_threads", while it is on), or null. */
EXPORT(w_path) const char *w_path(void)
{
	if (!view)
		return "null";
	uint32_t t = weft_view_selected(view);
	if (t != WEFT_NONE && weft_view_path_thread(view) != t)
		weft_view_path(view, t);
	else
		weft_view_path(view, WEFT_NONE);
	return describe(t);
}

/* More of the inspected thread's entries, from `from`: a JSON array
 * (empty past the end). */
EXPORT(w_entries) const char *w_entries(int from, int count)
{
	dlen = 0;
	if (!view || from < 0 || count < 0 ||
	    !entries_json((uint32_t)from, (uint32_t)count))
		return "[]";
	return djson;
}

/* An inspector's entry clicked: goes to its thread (selected, zoomed
 * to, in focus) and describes it. */
EXPORT(w_go) const char *w_go(int t)
{
	if (!view || t < 0)
		return "null";
	if (pair) /* (a thread of the inspected one's run) */
		pair_side(cur_side);
	weft_view_go_to(view, (uint32_t)t);
	if (pair)
		weft_pair_select(pair, side, weft_view_selected(view));
	sync();
	return describe(weft_view_selected(view));
}

/* The pointer moved to (x, y) (x < 0: it left): returns 1 when the
 * picture changed (the ruler's mark, the counters' values under it). */
EXPORT(w_pointer) int w_pointer(double x, double y)
{
	if (!view)
		return 0;
	if (!pair)
		return weft_view_set_pointer(view, x, y);
	int s = held ? side : weft_pair_side_at(pair, y), changed = 0;
	if (s != side) /* (the pointer's time leaves the other half) */
		changed = weft_view_set_pointer(view, -1, -1);
	pair_side(s);
	if (x < 0)
		return weft_view_set_pointer(view, -1, -1) | changed;
	return weft_view_set_pointer(view, x, y - weft_pair_top(pair, s)) |
	       changed;
}

/* A run's process headers as the picture has them: "PID Y C X" each
 * (C: 1 collapsed; X: a point of its band, -1 out of sight),
 * space-separated, one per line. */
EXPORT(w_headers) const char *w_headers(void)
{
	char *p = about, *end = about + sizeof about - 64;
	*p = 0;
	uint32_t np;
	if (!view)
		return about;
	/* (two runs: both halves', in the picture's y) */
	for (int s = 0; s < (pair ? 2 : 1); s++) {
		struct weft_view *v = pair ? weft_pair_view(pair, s) : view;
		const struct weft_model *m = pair ? pm[s] : model;
		double top = pair ? weft_pair_top(pair, s) : 0;
		const struct weft_model_process *procs =
			weft_model_processes(m, &np);
		for (uint32_t k = 0; k < np && p < end; k++) {
			double y = weft_view_row_y(
				v, weft_view_header_row(v, k), NULL);
			if (y >= 0)
				p += snprintf(p, (size_t)(end - p),
					      "%u %.0f %d %.0f\n", procs[k].pid,
					      y + top,
					      weft_view_collapsed(v, k),
					      weft_view_header_x(v, k));
		}
	}
	return about;
}

/* The chain's depth (0: all, 1 direct...); returns the chain's size. */
EXPORT(w_depth) int w_depth(int depth)
{
	if (!view)
		return 0;
	for (int s = 0; pair && s < 2; s++)
		weft_view_set_chain_depth(weft_pair_view(pair, s), depth);
	weft_view_set_chain_depth(view, depth);
	return (int)weft_view_chain_size(view);
}

/* ---- the standard views (issue 34), without SQLite ----
 *
 * A page has no SQLite: a fixed few of weft query's standard views
 * (docs/query.md), computed here over the model as the views define
 * them, each row naming a thread to go to; their threads highlighted as
 * search matches (weft_view_mark()):
 *   0 slowest requests: the async threads (not OS threads) that ended,
 *     slowest first (ties by thread), the first 100;
 *   1 p99 latency by kind: per kind, count, pending, failed, p50, p99,
 *     max latency (nearest rank, as weft stats), most frequent first,
 *     ties by kind; a row goes to the thread of its p99;
 *   2 pending at the cursor: the async threads created at or before the
 *     time of the last click on the picture (none yet: the middle of the
 *     visible range) and not ended by then.
 * JSON: {"view", "title", "at" (2: the time, from the trace's start),
 * "columns": [...], "rows": [{"thread": N or -1, "cells": [...]}],
 * "count" (rows before the first 100), "marked"}. */
static const struct weft_thread *vth;

static int cmp_slowest(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int64_t lx = vth[x].t_end - vth[x].t_create,
		ly = vth[y].t_end - vth[y].t_create;
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return x < y ? -1 : x > y;
}

static int cmp_kind_latency(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(weft_model_name(model, vth[x].kind),
		       weft_model_name(model, vth[y].kind));
	if (c)
		return c;
	int px = vth[x].end == WEFT_END_PENDING,
	    py = vth[y].end == WEFT_END_PENDING;
	if (px != py)
		return px - py; /* (the ended first, by latency) */
	int64_t lx = vth[x].t_end - vth[x].t_create,
		ly = vth[y].t_end - vth[y].t_create;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return x < y ? -1 : x > y;
}

struct kind_row {
	uint32_t first, n, pending, failed, p99_at; /* into the sorted */
	int64_t p50, p99, max;
};

static int cmp_kind_rows(const void *a, const void *b)
{
	const struct kind_row *x = a, *y = b;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(weft_model_name(model, vth[x->first].kind),
		      weft_model_name(model, vth[y->first].kind));
}

/* The rank weft stats takes: ceil(q n), within 1..n (0-based here). */
static uint32_t nearest_rank(double q, uint32_t n)
{
	uint32_t k = (uint32_t)(q * n + 0.999999);
	if (k > n)
		k = n;
	return (k ? k : 1) - 1;
}

static int vnum(int64_t v)
{
	char num[32];
	snprintf(num, sizeof num, "%lld", (long long)v);
	return dput(num);
}

static int vrow(uint32_t thread, int first)
{
	char num[48];
	snprintf(num, sizeof num, "%s{\"thread\":%d,\"cells\":[",
		 first ? "" : ",", thread == WEFT_NONE ? -1 : (int)thread);
	return dput(num);
}

EXPORT(w_std_view) const char *w_std_view(int which)
{
	dlen = 0;
	if (!view || pair || which < 0 || which > 2)
		return "null";
	uint32_t nth;
	vth = weft_model_threads(model, &nth);
	int64_t t0, t1;
	weft_model_range(model, &t0, &t1);
	uint32_t *ix = malloc(((size_t)nth + 1) * sizeof *ix);
	uint32_t *marks = malloc(((size_t)nth + 1) * sizeof *marks);
	if (!ix || !marks) {
		free(ix);
		free(marks);
		return "null";
	}
	uint32_t n = 0, nm = 0, count = 0;
	char title[256];
	int ok = 1;
	int64_t at = 0;
	if (which == 2) {
		at = pending_cursor != INT64_MIN ? pending_cursor : 0;
		if (pending_cursor == INT64_MIN) {
			int64_t r0, r1;
			weft_view_range(view, &r0, &r1);
			at = r0 + (r1 - r0) / 2;
		}
	}
	for (uint32_t i = 0; i < nth; i++) {
		const struct weft_thread *t = &vth[i];
		if (t->flags & WEFT_THREAD_ROOT)
			continue;
		int pending = t->end == WEFT_END_PENDING;
		if (which == 0 && pending)
			continue;
		if (which == 2 &&
		    (t->t_create > at || (!pending && t->t_end <= at)))
			continue;
		ix[n++] = i;
	}
	static const char *const names[] = {"slowest", "kinds", "pending"};
	ok = dput("{\"view\":") && dstr(names[which]);
	if (which == 0) {
		qsort(ix, n, sizeof *ix, cmp_slowest);
		ok = ok && dput(",\"title\":\"slowest requests\","
				"\"columns\":[\"thread\",\"title\",\"kind\","
				"\"latency_ns\"],\"rows\":[");
		for (uint32_t k = 0; ok && k < n && k < 100; k++) {
			uint32_t i = ix[k];
			ok = vrow(i, !k) && vnum(i) && dput(",") &&
			     dstr(weft_model_title(model, i, title,
						   sizeof title)) &&
			     dput(",") &&
			     dstr(weft_model_name(model, vth[i].kind)) &&
			     dput(",") &&
			     vnum(vth[i].t_end - vth[i].t_create) && dput("]}");
			marks[nm++] = i;
		}
		count = n;
	} else if (which == 1) {
		qsort(ix, n, sizeof *ix, cmp_kind_latency);
		struct kind_row *g = calloc((size_t)n + 1, sizeof *g);
		uint32_t ng = 0;
		for (uint32_t k = 0; g && k < n;) {
			uint32_t e = k;
			const char *kind =
				weft_model_name(model, vth[ix[k]].kind);
			while (e < n &&
			       !strcmp(weft_model_name(model, vth[ix[e]].kind),
				       kind))
				e++;
			struct kind_row *r = &g[ng++];
			r->first = ix[k];
			r->n = e - k;
			uint32_t ended = 0;
			for (uint32_t j = k; j < e; j++) {
				const struct weft_thread *t = &vth[ix[j]];
				if (t->end == WEFT_END_PENDING)
					r->pending++;
				else
					ended++;
				if (t->end == WEFT_END_FAILED)
					r->failed++;
			}
			r->p99_at = WEFT_NONE;
			r->p50 = r->p99 = r->max = -1;
			if (ended) { /* the ended come first, by latency */
#define LAT(j) (vth[ix[k + (j)]].t_end - vth[ix[k + (j)]].t_create)
				r->p50 = LAT(nearest_rank(0.50, ended));
				r->p99 = LAT(nearest_rank(0.99, ended));
				r->max = LAT(ended - 1);
#undef LAT
				r->p99_at = ix[k + nearest_rank(0.99, ended)];
			}
			k = e;
		}
		if (g)
			qsort(g, ng, sizeof *g, cmp_kind_rows);
		ok = ok && g &&
		     dput(",\"title\":\"p99 latency by kind\","
			  "\"columns\":[\"kind\",\"count\",\"pending\","
			  "\"failed\",\"p50_ns\",\"p99_ns\",\"max_ns\"],"
			  "\"rows\":[");
		for (uint32_t k = 0; ok && k < ng; k++) {
			const struct kind_row *r = &g[k];
			ok = vrow(r->p99_at, !k) &&
			     dstr(weft_model_name(model, vth[r->first].kind)) &&
			     dput(",") && vnum(r->n) && dput(",") &&
			     vnum(r->pending) && dput(",") && vnum(r->failed);
			const int64_t v[3] = {r->p50, r->p99, r->max};
			for (int j = 0; ok && j < 3; j++)
				ok = dput(",") &&
				     (v[j] < 0 ? dput("null") : vnum(v[j]));
			ok = ok && dput("]}");
			if (r->p99_at != WEFT_NONE)
				marks[nm++] = r->p99_at;
		}
		count = ng;
		free(g);
	} else {
		ok = ok &&
		     dput(",\"title\":\"pending at the cursor\",\"at\":") &&
		     vnum(at - t0) &&
		     dput(",\"columns\":[\"thread\",\"title\",\"kind\","
			  "\"created_ns\",\"pending_for_ns\"],\"rows\":[");
		for (uint32_t k = 0; ok && k < n; k++) {
			uint32_t i = ix[k];
			if (k < 100)
				ok = vrow(i, !k) && vnum(i) && dput(",") &&
				     dstr(weft_model_title(model, i, title,
							   sizeof title)) &&
				     dput(",") &&
				     dstr(weft_model_name(model,
							  vth[i].kind)) &&
				     dput(",") && vnum(vth[i].t_create - t0) &&
				     dput(",") && vnum(at - vth[i].t_create) &&
				     dput("]}");
			marks[nm++] = i;
		}
		count = n;
	}
	uint32_t lit = weft_view_mark(view, marks, nm);
	char tail[64];
	snprintf(tail, sizeof tail, "],\"count\":%u,\"marked\":%u}", count,
		 lit);
	ok = ok && dput(tail);
	free(ix);
	free(marks);
	return ok ? djson : "null";
}

/* B: a bookmark at pixel x with a note; returns its index (< 0: none). */
EXPORT(w_bookmark) int w_bookmark(double x, const char *note)
{
	if (!view || pair)
		return -1;
	return weft_view_add_bookmark(view, weft_view_time_at(view, x), note);
}

/* ] and [: the next or previous bookmark, centred on; its index or -1. */
EXPORT(w_next_bookmark) int w_next_bookmark(int dir)
{
	if (!view || pair)
		return -1;
	int k = weft_view_next_bookmark(view, dir);
	sync();
	return k;
}

/* A bookmark of the list clicked: centred on. */
EXPORT(w_go_bookmark) void w_go_bookmark(int i)
{
	if (!view || pair || i < 0)
		return;
	weft_view_go_to_bookmark(view, (uint32_t)i);
	sync();
}

/* The bookmarks as JSON: [[time as the ruler writes it, note], ...]. */
EXPORT(w_bookmarks) const char *w_bookmarks(void)
{
	dlen = 0;
	int ok = dput("[");
	uint32_t n = view && !pair ? weft_view_bookmarks(view) : 0;
	int64_t t0, t1, a, b;
	if (view)
		weft_view_range(view, &a, &b);
	weft_model_range(model, &t0, &t1);
	int64_t step = view ? weft_view_tick_step((double)(b - a) / 1000) : 1;
	for (uint32_t i = 0; ok && i < n; i++) {
		const char *note;
		int64_t t = weft_view_bookmark(view, i, &note);
		char ts[48];
		weft_view_time_str(t - t0, step, ts, sizeof ts);
		ok = dput(i ? ",[" : "[") && dstr(ts) && dput(",") &&
		     dstr(note) && dput("]");
	}
	ok = ok && dput("]");
	return ok ? djson : "[]";
}

/* The measured range's summary (view.h, weft_view_summary_lines): {"lines":
 * [its lines], "summary": weft_summary_json's object}, or "" when there
 * is no measured range (or two runs). */
EXPORT(w_summary) const char *w_summary(void)
{
	dlen = 0;
	uint32_t n = view && !pair ? weft_view_summary_lines(view) : 0;
	if (!n)
		return "";
	char line[1024];
	int ok = dput("{\"lines\":[");
	for (uint32_t i = 0; ok && i < n; i++) {
		weft_view_summary_line(view, i, line, sizeof line);
		ok = dput(i ? "," : "") && dstr(line);
	}
	size_t k = weft_view_summary_json(view, NULL, 0);
	ok = ok && dput("],\"summary\":") && droom(k + 2);
	if (ok) {
		weft_view_summary_json(view, djson + dlen, k + 1);
		dlen += k;
	}
	ok = ok && dput("}");
	return ok ? djson : "";
}

/* A click on line i of the summary: a group's threads highlighted, as a
 * query's are; how many. */
EXPORT(w_summary_pick) int w_summary_pick(int i)
{
	if (!view || pair || i < 0)
		return 0;
	return (int)weft_view_summary_pick(view, (uint32_t)i);
}

/* The keys (src/render/keys.c's table, the web viewer's rows): the
 * action of the key named `key` (KeyboardEvent.key) as
 * {"do":"zoom","arg":1}, or null; viewer.js binds the actions' names. */
EXPORT(w_key) const char *w_key(const char *key)
{
	const struct weft_key *k = weft_key_find(key, WEFT_KEYS_WEB);
	if (!k)
		return "null";
	snprintf(out, sizeof out, "{\"do\":\"%s\",\"arg\":%d}",
		 weft_key_do_name(k->what), k->arg);
	return out;
}

/* The help (?): {"keys":[[names,text],...],"pointer":[...]}, in the
 * table's order. */
EXPORT(w_keys_help) const char *w_keys_help(void)
{
	dlen = 0;
	int ok = dput("{\"keys\":[");
	int first = 1;
	for (size_t i = 0; ok && i < weft_nkeys; i++) {
		const struct weft_key *k = &weft_keys[i];
		if (!k->names || !(k->in & WEFT_KEYS_WEB))
			continue;
		ok = dput(first ? "[" : ",[") && dstr(k->names) && dput(",") &&
		     dstr(k->help) && dput("]");
		first = 0;
	}
	ok = ok && dput("],\"pointer\":[");
	first = 1;
	for (size_t i = 0; ok && i < weft_npointer_help; i++) {
		const struct weft_pointer_help *p = &weft_pointer_help[i];
		if (!(p->in & WEFT_KEYS_WEB))
			continue;
		ok = dput(first ? "[" : ",[") && dstr(p->names) && dput(",") &&
		     dstr(p->help) && dput("]");
		first = 0;
	}
	ok = ok && dput("]}");
	return ok ? djson : "null";
}
