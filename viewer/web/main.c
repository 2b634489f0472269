/* SPDX-License-Identifier: MIT */
/*
 * main.c - the HTML viewer's C side, compiled to WebAssembly: the same
 * reader, model, layout and renderer as `weft view`, with a canvas whose
 * calls are imports that viewer.js forwards to an HTML canvas.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"
#include "weft/model.h"

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
EXPORT(w_open) int w_open(char *bytes, size_t len)
{
	unload();
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
	if (!model)
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

EXPORT(w_render) long w_render(double w, double h)
{
	if (!view)
		return 0;
	weft_view_resize(view, w, h);
	return weft_view_render(view, &canvas);
}

EXPORT(w_zoom) void w_zoom(double factor, double x)
{
	if (view)
		weft_view_zoom(view, factor, x);
}

EXPORT(w_pan) void w_pan(double dx, double dy)
{
	if (view)
		weft_view_pan(view, dx, dy);
}

EXPORT(w_fit) void w_fit(void)
{
	if (view)
		weft_view_fit(view);
}

EXPORT(w_counters) void w_counters(int on)
{
	if (view)
		weft_view_show_counters(view, on);
}

EXPORT(w_counter) void w_counter(int k, int on)
{
	if (view && k >= 0)
		weft_view_show_counter(view, (uint32_t)k, on);
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
	weft_view_only_chain(view, on);
	return weft_view_rows(view);
}

EXPORT(w_rows) int w_rows(void)
{
	return view ? weft_view_rows(view) : 0;
}

EXPORT(w_search) int w_search(const char *s)
{
	return view ? (int)weft_view_search(view, s) : 0;
}

/* "t0 t1" of the visible range, in ns. */
EXPORT(w_range) const char *w_range(void)
{
	int64_t a = 0, b = 0;
	if (view)
		weft_view_range(view, &a, &b);
	snprintf(out, sizeof out, "%lld %lld", (long long)a, (long long)b);
	return out;
}

/* "t0 t1" of the trace (ns): the range the view's times count from. */
EXPORT(w_extent) const char *w_extent(void)
{
	int64_t a = 0, b = 0;
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
	if (!view)
		return;
	weft_model_range(model, &t0, &t1);
	int64_t a = start >= 0 ? t0 + (int64_t)start : t0;
	int64_t b = duration > 0 ? a + (int64_t)duration : t1;
	weft_view_set_range(view, a, b);
}

/* The visible range for people, as the ruler counts and writes times:
 * "2.5ms .. 3.75ms (1.25ms)", from the trace's start. */
EXPORT(w_range_text) const char *w_range_text(void)
{
	int64_t a, b, t0, t1;
	char x[48], y[48], d[48];
	if (!view)
		return "";
	weft_view_range(view, &a, &b);
	weft_model_range(model, &t0, &t1);
	/* to a hundredth of the range */
	int64_t step = weft_view_tick_step((double)(b - a) / 100);
	weft_view_time_str(a - t0, step, x, sizeof x);
	weft_view_time_str(b - t0, step, y, sizeof y);
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
	const struct weft_counter *c = model ? weft_model_counters(model, &n)
					     : NULL;
	*p++ = '[';
	for (uint32_t k = 0; k < n && p < end - 300; k++) {
		if (k)
			*p++ = ',';
		jstr(&p, end, weft_model_name(model, c[k].name));
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

static char about[16384];
static char json[6 * 512 + 64]; /* a process header's */

/* A click: selects the thread at (x, y) (in the squeezed rows, brings
 * it into focus) and describes it. */
EXPORT(w_click) const char *w_click(double x, double y)
{
	if (!view)
		return "null";
	uint32_t proc = weft_view_header_at(view, y);
	if (proc != WEFT_NONE) {
		/* a process's header: its group collapses or opens */
		int on = !weft_view_collapsed(view, proc);
		weft_view_collapse(view, proc, on);
		uint32_t np;
		const struct weft_model_process *pr =
			weft_model_processes(model, &np);
		char *p = json, *end = json + sizeof json - 64;
		p += snprintf(p, (size_t)(end - p), "{\"process\":");
		jstr(&p, end, pr[proc].comm);
		snprintf(p, (size_t)(end - p + 64),
			 ",\"pid\":%u,\"collapsed\":%d}", pr[proc].pid, on);
		return json;
	}
	uint32_t t = weft_view_pick(view, x, y);
	weft_view_select(view, t);
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
	uint32_t t = weft_view_pick(view, x, y);
	weft_view_chain(view, t);
	weft_view_select(view, t);
	return describe(t);
}

/* n, N, Enter: the next (dir 1) or previous (-1) match of the search,
 * selected and zoomed to; described, or null. */
EXPORT(w_next_match) const char *w_next_match(int dir)
{
	if (!view)
		return "null";
	return describe(weft_view_next_match(view, dir));
}

/* How many threads the search matches now. */
EXPORT(w_matches) int w_matches(void)
{
	return view ? (int)weft_view_matches(view) : 0;
}

/* The tooltip of the thread at (x, y), or "". */
EXPORT(w_tooltip) const char *w_tooltip(double x, double y)
{
	if (!view)
		return "";
	uint32_t t = weft_view_pick(view, x, y);
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
	weft_view_chain(view, WEFT_NONE);
	weft_view_path(view, WEFT_NONE);
	weft_view_select(view, WEFT_NONE);
	weft_view_clear_measure(view);
}

/* Time: the ruler's height (a press there measures), the pointer (x < 0:
 * away) and its time as the ruler shows it. */
EXPORT(w_ruler_h) double w_ruler_h(void)
{
	return view ? weft_view_ruler_h(view) : 0;
}

static char when[64];

EXPORT(w_pointer_str) const char *w_pointer_str(void)
{
	when[0] = 0;
	if (view)
		weft_view_pointer_str(view, when, sizeof when);
	return when;
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
	return view ? weft_view_zoom_measure(view) : -1;
}

/* The JSON of describe(), grown as the thread's entries need (every
 * one: a loop's may be thousands). */
static char *djson;
static size_t cdjson, dlen;

static int droom(size_t more)
{
	size_t need = dlen + more + 1;
	if (need <= cdjson)
		return 1;
	size_t cap = cdjson ? cdjson : 4096;
	while (cap < need)
		cap *= 2;
	char *n = realloc(djson, cap);
	if (!n)
		return 0;
	djson = n;
	cdjson = cap;
	return 1;
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

/* Entries [from, from + count) as a JSON array of {"text", "other" (-1:
 * none)}. */
static int entries_json(uint32_t from, uint32_t count)
{
	char line[1024], num[48];
	int ok = dput("[");
	for (uint32_t i = from; i < cur.n && i - from < count && ok; i++) {
		const struct weft_entry *e = &cur.entries[i];
		weft_entry_text(model, cur_t, e, line, sizeof line);
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
	weft_view_describe(view, t, about, sizeof about);
	size_t k = strlen(about);
	int path = weft_view_path_thread(view) == t && k + 2 < sizeof about;
	if (path) { /* its critical path, after the head */
		memcpy(about + k, "\n\n", 3);
		weft_view_path_text(view, about + k + 2, sizeof about - k - 2);
	}
	dlen = 0;
	snprintf(num, sizeof num, "{\"thread\":%u,\"count\":%u,\"head\":", t,
		 cur.n);
	int ok = dput(num) && dstr(about) && dput(",\"entries\":") &&
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
	weft_view_go_to(view, (uint32_t)t);
	return describe(weft_view_selected(view));
}

/* The pointer moved to (x, y) (x < 0: it left): returns 1 when the
 * picture changed (the ruler's mark, the counters' values under it). */
EXPORT(w_pointer) int w_pointer(double x, double y)
{
	return view ? weft_view_set_pointer(view, x, y) : 0;
}

/* A run's process headers as the picture has them: "PID Y C" each
 * (C: 1 collapsed), space-separated, one per line. */
EXPORT(w_headers) const char *w_headers(void)
{
	char *p = about, *end = about + sizeof about - 64;
	*p = 0;
	uint32_t np;
	if (!view)
		return about;
	const struct weft_model_process *pr = weft_model_processes(model, &np);
	for (uint32_t k = 0; k < np && p < end; k++) {
		double y = weft_view_row_y(view, weft_view_header_row(view, k),
					   NULL);
		if (y >= 0)
			p += snprintf(p, (size_t)(end - p), "%u %.0f %d\n",
				      pr[k].pid, y,
				      weft_view_collapsed(view, k));
	}
	return about;
}

/* The chain's depth (0: all, 1 direct...); returns the chain's size. */
EXPORT(w_depth) int w_depth(int depth)
{
	if (!view)
		return 0;
	weft_view_set_chain_depth(view, depth);
	return (int)weft_view_chain_size(view);
}
