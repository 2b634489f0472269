/* SPDX-License-Identifier: MIT */
/*
 * cmd-render.c - `weft render TRACE... -o OUT.png|OUT.svg [--start T]
 * [--duration D] [--width W] [--height H] [--search TEXT] [--select ID]
 * [--depth N|all] [--connected] [--focus ID] [--no-counters]
 * [--hide-counter NAME]...`: draws the trace with the renderer the viewers
 * use, with no display.  --select outlines a thread and highlights its
 * causal chain (a double click in the viewers; weft_chain() in model.h),
 * to --depth arrows from it (default all), and says its size;
 * --connected then shows only that chain, --focus centres the full rows
 * on a thread when the rows do not all fit.  Times take a unit: s, ms,
 * us, ns (default s), and are counted from the start of the trace.
 */
#include <cairo-svg.h>
#include <cairo.h>
#include <stdlib.h>
#include <string.h>

#include "cairo-canvas.h"
#include "view.h"
#include "weft-tools.h"
#include "weft/model.h"

#define USAGE                                                                  \
	"weft render " TRACES_USAGE " -o OUT.png|OUT.svg [--start T] [--duration D] "    \
	"[--width W] [--height H] [--search TEXT] [--select ID] "             \
	"[--depth N|all] [--connected] [--focus ID] [--no-counters] "          \
	"[--hide-counter NAME]... [--collapse PID]..."

/* "1.5ms" -> 1500000; -1 if not a time. */
static int64_t parse_time(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || v < 0)
		return -1;
	double mul = !*end || !strcmp(end, "s")	? 1e9
		     : !strcmp(end, "ms")		? 1e6
		     : !strcmp(end, "us")		? 1e3
		     : !strcmp(end, "ns")		? 1
						: -1;
	return mul < 0 ? -1 : (int64_t)(v * mul);
}

int cmd_render(int argc, char **argv)
{
	struct traces tr = {0};
	const char *out = NULL, *search = NULL, *sel = NULL;
	const char *focus = NULL, *hide[32], *fold[32];
	int64_t start = -1, duration = -1;
	int w = 1280, h = 0, counters = 1, connected = 0, nhide = 0, nfold = 0;
	int depth = WEFT_CHAIN_ALL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-o") && next)
			out = argv[++i];
		else if (!strcmp(a, "--start") && next) {
			if ((start = parse_time(argv[++i])) < 0)
				return usage(USAGE);
		} else if (!strcmp(a, "--duration") && next) {
			if ((duration = parse_time(argv[++i])) <= 0)
				return usage(USAGE);
		} else if (!strcmp(a, "--width") && next)
			w = atoi(argv[++i]);
		else if (!strcmp(a, "--height") && next)
			h = atoi(argv[++i]);
		else if (!strcmp(a, "--search") && next)
			search = argv[++i];
		else if (!strcmp(a, "--select") && next)
			sel = argv[++i];
		else if (!strcmp(a, "--depth") && next) {
			if (chain_depth_arg(argv[++i], &depth))
				return usage(USAGE);
		} else if (!strcmp(a, "--no-counters"))
			counters = 0;
		else if (!strcmp(a, "--connected"))
			connected = 1;
		else if (!strcmp(a, "--focus") && next)
			focus = argv[++i];
		else if (!strcmp(a, "--hide-counter") && next && nhide < 32)
			hide[nhide++] = argv[++i];
		else if (!strcmp(a, "--collapse") && next && nfold < 32)
			fold[nfold++] = argv[++i];
		else if (traces_arg(&tr, argc, argv, &i, 0) != 1) {
			traces_release(&tr);
			return usage(USAGE);
		}
	}
	size_t ol = out ? strlen(out) : 0;
	int svg = ol > 4 && !strcmp(out + ol - 4, ".svg");
	int png = ol > 4 && !strcmp(out + ol - 4, ".png");
	if (!tr.n || !out || (!svg && !png) || w < 100 || w > 20000 ||
	    (h && (h < 100 || h > 20000))) {
		traces_release(&tr);
		return usage(USAGE);
	}
	const char *path = traces_name(&tr);
	struct weft_reader *r;
	struct weft_model *m = traces_model(&tr, &r);
	traces_release(&tr);
	if (!m)
		return 1;
	struct weft_view *v = weft_view_new(m, w, h ? h : 600);
	if (!v)
		die("out of memory");
	if (sel) {
		uint32_t t = weft_model_find(m, strtoull(sel, NULL, 0));
		if (t == WEFT_NONE)
			die("no thread %s", sel);
		weft_view_set_chain_depth(v, depth);
		uint32_t size = weft_view_chain(v, t);
		weft_view_select(v, t);
		weft_view_only_chain(v, connected);
		char title[256];
		fprintf(stderr, "weft: causal chain of %s: %u threads\n",
			weft_model_title(m, t, title, sizeof title), size);
	} else if (connected)
		die("--connected needs --select ID");
	if (focus) {
		uint32_t t = weft_model_find(m, strtoull(focus, NULL, 0));
		if (t == WEFT_NONE || weft_view_row(v, t) < 0)
			die("no thread %s to focus on", focus);
		weft_view_set_focus(v, weft_view_row(v, t));
	}
	/* a run's processes: --collapse PID shows one as its header */
	uint32_t np;
	const struct weft_model_process *pr = weft_model_processes(m, &np);
	for (int i = 0; i < nfold; i++) {
		char *end;
		unsigned long pid = strtoul(fold[i], &end, 10);
		uint32_t k = 0;
		while (k < np && (*end || end == fold[i] || pr[k].pid != pid ||
				  weft_view_header_row(v, k) < 0))
			k++;
		if (k == np)
			die("no process %s among the groups of rows", fold[i]);
		weft_view_collapse(v, k, 1);
	}
	uint32_t nc;
	const struct weft_counter *ctr = weft_model_counters(m, &nc);
	for (int i = 0; i < nhide; i++) {
		uint32_t k = 0;
		while (k < nc && strcmp(weft_model_name(m, ctr[k].name), hide[i]))
			k++;
		if (k == nc)
			die("no counter '%s'", hide[i]);
		weft_view_show_counter(v, k, 0);
	}
	if (!h) { /* tall enough for every row, within reason (beyond, the
		     rows around the focus are full and the others squeezed) */
		int rows = weft_view_rows(v);
		h = 18 + 26 * rows + 16 + 70 + 10;
		h = h < 200 ? 200 : h > 4000 ? 4000 : h;
		weft_view_resize(v, w, h);
	}
	int64_t t0, t1;
	weft_model_range(m, &t0, &t1);
	if (start >= 0 || duration > 0) {
		int64_t a = start >= 0 ? t0 + start : t0;
		int64_t b = duration > 0 ? a + duration : t1;
		weft_view_set_range(v, a, b);
	}
	weft_view_show_counters(v, counters);
	if (search)
		fprintf(stderr, "weft: '%s' matches %u threads\n", search,
			weft_view_search(v, search));
	cairo_surface_t *s =
		svg ? cairo_svg_surface_create(out, w, h)
		    : cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
	cairo_t *cr = cairo_create(s);
	struct weft_canvas c = weft_cairo_canvas(cr);
	weft_view_render(v, &c);
	cairo_destroy(cr);
	int bad = 0;
	if (png)
		bad = cairo_surface_write_to_png(s, out) != CAIRO_STATUS_SUCCESS;
	cairo_surface_finish(s);
	bad |= cairo_surface_status(s) != CAIRO_STATUS_SUCCESS;
	cairo_surface_destroy(s);
	weft_view_free(v);
	weft_model_free(m);
	int rc = report_losses(r, path);
	weft_reader_close(r);
	if (bad)
		return error("cannot write '%s'", out);
	return rc;
}
