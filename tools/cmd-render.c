/* SPDX-License-Identifier: MIT */
/*
 * cmd-render.c - `weft render TRACE... -o OUT.png|OUT.svg [OPTIONS]`: draws
 * the trace with the renderer the viewers use, with no display (the
 * options: the table in cmd_render); two runs to compare (traces_pair),
 * one above the other (pair.h).
 */
#include <cairo-svg.h>
#include <cairo.h>
#include <stdlib.h>
#include <string.h>

#include "cairo-canvas.h"
#include "pair.h"
#include "view.h"
#include "weft-tools.h"
#include "weft/model.h"

/* Writes the picture of what `draw` draws: 0, or 1 (said). */
static int write_picture(const char *out, int svg, int w, int h,
			 long (*draw)(void *, const struct weft_canvas *),
			 void *what)
{
	cairo_surface_t *s =
		svg ? cairo_svg_surface_create(out, w, h)
		    : cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
	cairo_t *cr = cairo_create(s);
	struct weft_canvas c = weft_cairo_canvas(cr);
	draw(what, &c);
	cairo_destroy(cr);
	int bad = 0;
	if (!svg)
		bad = cairo_surface_write_to_png(s, out) !=
		      CAIRO_STATUS_SUCCESS;
	cairo_surface_finish(s);
	bad |= cairo_surface_status(s) != CAIRO_STATUS_SUCCESS;
	cairo_surface_destroy(s);
	return bad ? error("cannot write '%s'", out) : 0;
}

static long draw_view(void *v, const struct weft_canvas *c)
{
	return weft_view_render(v, c);
}

static long draw_pair(void *p, const struct weft_canvas *c)
{
	return weft_pair_render(p, c);
}

/* Two runs, one above the other: the options that make sense of both
 * (the time range from each run's start, the size, the search in both,
 * the selection in GOOD with its partner in BAD). */
/* --theme: 0 light, 1 dark (weft_view_set_dark). */
static int theme_dark;
/* --view: a view's state (weft_view_state()), or NULL. */
static const char *view_state;

static int render_pair(struct traces *tr, const char *out, int svg,
		       int64_t start, int64_t duration, int w, int h,
		       const char *search, const char *sel, int depth,
		       int counters, const char *align)
{
	struct weft_reader *r[2] = {0};
	struct weft_model *m[2] = {0};
	struct weft_pair *p = NULL;
	int rc = 1;
	for (unsigned i = 0; i < 2; i++)
		if (!(m[i] = traces_model_one(tr, i, &r[i])))
			goto out;
	if (!(p = weft_pair_new(m[0], m[1], tr->path[0], tr->path[1], w,
				h ? h : 600)))
		die("out of memory");
	for (int s = 0; s < 2; s++)
		weft_view_set_dark(weft_pair_view(p, s), theme_dark);
	int64_t t0, t1, longest = 0;
	for (int s = 0; s < 2; s++) {
		weft_model_range(m[s], &t0, &t1);
		longest = t1 - t0 > longest ? t1 - t0 : longest;
	}
	if (start > longest) {
		char a[40], b[40];
		progress_clear();
		fprintf(stderr,
			"weft render: --start %s is past the end of both runs "
			"(%s long at most)\n",
			fmt_time(a, sizeof a, start),
			fmt_time(b, sizeof b, longest));
		goto out;
	}
	char what[600];
	weft_pair_divergence_str(p, what, sizeof what);
	progress_clear();
	fprintf(stderr, "weft: %s\n", what);
	if (align) { /* GOOD's thread and its partner at one x */
		uint32_t t = find_thread(m[0], align, "render");
		if (t == WEFT_NONE)
			goto out;
		char a[256];
		weft_model_title(m[0], t, a, sizeof a);
		if (weft_pair_anchor(p, 0, t)) {
			fprintf(stderr,
				"weft render: --align: %s has no partner in "
				"%s\n",
				a, tr->path[1]);
			goto out;
		}
		fprintf(stderr, "weft: times from the creation of %s\n", a);
		weft_pair_fit(p);
	}
	if (sel) {
		uint32_t t = find_thread(m[0], sel, "render");
		if (t == WEFT_NONE)
			goto out;
		uint32_t o = weft_pair_select(p, 0, t);
		char a[256], b[256];
		weft_model_title(m[0], t, a, sizeof a);
		if (o == WEFT_NONE)
			fprintf(stderr,
				"weft: selected %s in %s, no partner "
				"in %s\n",
				a, tr->path[0], tr->path[1]);
		else
			fprintf(stderr,
				"weft: selected %s in %s, its partner %s in "
				"%s\n",
				a, tr->path[0],
				weft_model_title(m[1], o, b, sizeof b),
				tr->path[1]);
		for (int s = 0; s < 2; s++) {
			struct weft_view *v = weft_pair_view(p, s);
			weft_view_set_chain_depth(v, depth);
			weft_view_chain(v, s ? o : t);
		}
	}
	for (int s = 0; s < 2; s++) {
		struct weft_view *v = weft_pair_view(p, s);
		weft_view_show_counters(v, counters);
		if (search)
			fprintf(stderr, "weft: '%s' matches %u threads in %s\n",
				search, weft_view_search(v, search),
				tr->path[s]);
	}
	if (!h) { /* each half as tall as its rows need (render's rule) */
		for (int s = 0; s < 2; s++) {
			int rows = weft_view_rows(weft_pair_view(p, s));
			int hh = 18 + 26 * rows + 16 + 70 + 10;
			h += hh < 200 ? 200 : hh > 2000 ? 2000 : hh;
		}
		h += 2 * (int)WEFT_PAIR_STRIP_H;
		weft_pair_resize(p, w, h);
	}
	if (start >= 0 || duration > 0) {
		int64_t a = start >= 0 ? start : 0;
		weft_pair_show(p, a, duration > 0 ? a + duration : longest);
	}
	if (write_picture(out, svg, w, h, draw_pair, p))
		goto out;
	rc = 0;
	for (int s = 0; s < 2; s++)
		rc |= report_losses(r[s], tr->path[s]);
out:
	weft_pair_free(p);
	for (int s = 0; s < 2; s++) {
		weft_model_free(m[s]);
		weft_reader_close(r[s]);
	}
	return rc;
}

/* Draws it, once the options are read. */
static int render(const struct cmd_usage *u, struct traces *tr, const char *out,
		  int64_t start, int64_t duration, int w, int h,
		  const char *search, const char *sel, int connected, int depth,
		  const char *focus, int counters, const struct opt_list *hide,
		  const struct opt_list *fold, const char *crit, int compare,
		  const char *align)
{
	size_t ol = strlen(out);
	int svg = ol > 4 && !strcmp(out + ol - 4, ".svg");
	int png = ol > 4 && !strcmp(out + ol - 4, ".png");
	if (!svg && !png)
		return opts_error(u, "-o must end in .png or .svg (not '%s')",
				  out);
	if (connected && !sel)
		return opts_error(u, "--connected needs --select");
	if (align && !compare)
		return opts_error(u, "--align needs two runs to compare");
	if (compare) {
		const char *one = view_state  ? "--view"
				  : focus     ? "--focus"
				  : crit      ? "--path"
				  : connected ? "--connected"
				  : hide->n   ? "--hide-counter"
				  : fold->n   ? "--collapse"
					      : NULL;
		if (one)
			return opts_error(u,
					  "%s draws one run (not two to "
					  "compare: --merge reads them as one)",
					  one);
		return render_pair(tr, out, svg, start, duration, w, h, search,
				   sel, depth, counters, align);
	}
	const char *path = traces_name(tr);
	struct weft_reader *r;
	struct weft_model *m = traces_model(tr, &r);
	if (!m)
		return 1;
	int64_t t0, t1;
	weft_model_range(m, &t0, &t1);
	struct weft_view *v = NULL;
	/* what the range and the threads asked for are in this trace */
	if (start > t1 - t0) {
		char a[40], b[40];
		progress_clear();
		fprintf(stderr,
			"weft render: --start %s is past the end of the trace "
			"(%s long)\n",
			fmt_time(a, sizeof a, start),
			fmt_time(b, sizeof b, t1 - t0));
		goto fail;
	}
	if (!(v = weft_view_new(m, w, h ? h : 600)))
		die("out of memory");
	if (sel) {
		uint32_t t = find_thread(m, sel, "render");
		if (t == WEFT_NONE)
			goto fail;
		weft_view_set_chain_depth(v, depth);
		uint32_t size = weft_view_chain(v, t);
		weft_view_select(v, t);
		weft_view_only_chain(v, connected);
		char title[256];
		fprintf(stderr, "weft: causal chain of %s: %u threads\n",
			weft_model_title(m, t, title, sizeof title), size);
	}
	if (crit) { /* its critical path, drawn and said */
		uint32_t t = find_thread(m, crit, "render");
		if (t == WEFT_NONE)
			goto fail;
		if (!weft_view_path(v, t)) {
			fprintf(stderr,
				"weft render: %s has no critical path "
				"(an OS thread?)\n",
				crit);
			goto fail;
		}
		char said[4096];
		weft_view_path_text(v, said, sizeof said);
		fprintf(stderr, "weft: %s\n", said);
	}
	if (focus) {
		uint32_t t = find_thread(m, focus, "render");
		if (t == WEFT_NONE)
			goto fail;
		if (weft_view_row(v, t) < 0) {
			fprintf(stderr,
				"weft render: %s is not laid out (not "
				"in the chain shown?)\n",
				focus);
			goto fail;
		}
		weft_view_set_focus(v, weft_view_row(v, t));
	}
	/* a run's processes: --collapse PID shows one as its header */
	uint32_t np;
	const struct weft_model_process *pr = weft_model_processes(m, &np);
	for (int i = 0; i < fold->n; i++) {
		char *end;
		unsigned long pid = strtoul(fold->v[i], &end, 10);
		uint32_t k = 0;
		while (k < np &&
		       (*end || end == fold->v[i] || pr[k].pid != pid ||
			weft_view_header_row(v, k) < 0))
			k++;
		if (k == np) {
			fprintf(stderr,
				"weft render: --collapse: no process %s among "
				"the groups of rows\n",
				fold->v[i]);
			goto fail;
		}
		weft_view_collapse(v, k, 1);
	}
	uint32_t nc;
	const struct weft_counter *ctr = weft_model_counters(m, &nc);
	for (int i = 0; i < hide->n; i++) {
		/* a name hides it in every process; a title ("ticks (pid
		 * 42)") that process's */
		int found = 0;
		for (uint32_t k = 0; k < nc; k++) {
			char title[300];
			weft_model_counter_title(m, k, title, sizeof title);
			if (strcmp(weft_model_name(m, ctr[k].name),
				   hide->v[i]) &&
			    strcmp(title, hide->v[i]))
				continue;
			weft_view_show_counter(v, k, 0);
			found = 1;
		}
		if (!found) {
			fprintf(stderr, "weft render: no counter '%s'\n",
				hide->v[i]);
			goto fail;
		}
	}
	if (!h) { /* tall enough for every row, within reason (beyond, the
		     rows around the focus are full and the others squeezed) */
		int rows = weft_view_rows(v);
		h = 18 + 26 * rows + 16 + 70 + 10;
		h = h < 200 ? 200 : h > 4000 ? 4000 : h;
		weft_view_resize(v, w, h);
	}
	if (start >= 0 || duration > 0) {
		int64_t a = start >= 0 ? t0 + start : t0;
		int64_t b = duration > 0 ? a + duration : t1;
		weft_view_set_range(v, a, b);
	}
	weft_view_show_counters(v, counters);
	weft_view_set_dark(v, theme_dark);
	if (search)
		fprintf(stderr, "weft: '%s' matches %u threads\n", search,
			weft_view_search(v, search));
	if (view_state) { /* (over every option above) */
		char why[400];
		if (weft_view_set_state(v, view_state, why, sizeof why)) {
			progress_clear();
			fprintf(stderr, "weft render: --view: %s\n", why);
			weft_view_free(v);
			weft_model_free(m);
			weft_reader_close(r);
			return 2;
		}
	}
	int bad = write_picture(out, svg, w, h, draw_view, v);
	weft_view_free(v);
	weft_model_free(m);
	int rc = report_losses(r, path);
	weft_reader_close(r);
	return bad ? 1 : rc;
fail:
	weft_view_free(v);
	weft_model_free(m);
	weft_reader_close(r);
	return 1;
}

int cmd_render(int argc, char **argv)
{
	struct traces tr = {0};
	const char *out = NULL, *search = NULL, *sel = NULL;
	const char *focus = NULL, *crit = NULL, *align = NULL;
	struct opt_list hide = {0}, fold = {0};
	int64_t start = -1, duration = -1;
	int w = 1280, h = 0, no_counters = 0, connected = 0;
	int compare = 0, merge = 0;
	int depth = WEFT_CHAIN_ALL;
	const struct opt opts[] = {
		{"-o", NULL, "OUT",
		 "the picture to write: PNG or SVG, by the "
		 "name's ending (.png, .svg)",
		 OPT_STRING, &out},
		{"--start", NULL, "T",
		 "the left edge, counted from the start "
		 "of the trace (2.5ms, 120us, 1.2s; a bare number is seconds); "
		 "past the end of the trace is an error",
		 OPT_DURATION, &start, 0, 0, 1e9},
		{"--duration", NULL, "D",
		 "the time shown (default: to the end "
		 "of the trace)",
		 OPT_DURATION, &duration, 1, 0, 1e9},
		{"--width", NULL, "W", "width in pixels, %R (default 1280)",
		 OPT_INT, &w, 16, 16384},
		{"--height", NULL, "H",
		 "height in pixels, %R (default: "
		 "what the rows need, 200 to 4000)",
		 OPT_INT, &h, 16, 16384},
		{"--search", NULL, "TEXT",
		 "highlight the threads whose title "
		 "holds TEXT (any case), and say how many",
		 OPT_STRING, &search},
		{"--select", NULL, "ID|LABEL",
		 "outline a thread and highlight "
		 "its causal chain, as a double click does in the viewers",
		 OPT_STRING, &sel},
		{"--depth", NULL, "N|all",
		 "with --select: the chain to N arrows from the thread "
		 "(default "
		 "all); its size is said on standard error",
		 OPT_FUNC, .fn = chain_depth_opt, .ctx = &depth},
		{"--connected", NULL, NULL,
		 "with --select: lay out only the "
		 "chain",
		 OPT_FLAG, &connected},
		{"--path", NULL, "ID|LABEL",
		 "highlight the thread's critical "
		 "path (what decided when it ended, as weft why --path finds "
		 "it), as P does in the viewers, and say its split on "
		 "standard error",
		 OPT_STRING, &crit},
		{"--focus", NULL, "ID|LABEL",
		 "centre the full-size rows on this "
		 "thread when the rows do not all fit",
		 OPT_STRING, &focus},
		{"--theme", NULL, "light|dark",
		 "the colours: light (the default) or dark, as the viewers "
		 "draw them on a dark desktop",
		 OPT_CHOICE, &theme_dark, .choices = "light|dark"},
		{"--view", NULL, "STATE",
		 "the view a viewer's V printed or its page's address holds "
		 "after '#' (r=T0,T1&sel=N&q=TEXT...: range, selection, "
		 "search, measure, collapsed groups, counters), over the "
		 "options above; one run",
		 OPT_STRING, &view_state},
		{"--no-counters", NULL, NULL, "leave the counters out",
		 OPT_FLAG, &no_counters},
		{"--hide-counter", NULL, "NAME",
		 "leave this counter out "
		 "(repeatable)",
		 OPT_LIST, &hide},
		{"--collapse", NULL, "PID",
		 "in a run of several processes (a "
		 "group of rows each, under a header): draw this one as its "
		 "header alone (repeatable)",
		 OPT_LIST, &fold},
		TRACES_OPT(&tr),
		TRACES_PAIR_OPTS(&compare, &merge),
		{"--align", NULL, "ID|LABEL",
		 "two runs: count times from the "
		 "creation of this thread of GOOD and of its partner in BAD "
		 "(default: from each run's start)",
		 OPT_STRING, &align},
		OPT_END,
	};
	const struct cmd_usage u = {"render",
				    "[OPTIONS] TRACE... -o OUT.png|OUT.svg\n"
				    "[OPTIONS] GOOD BAD -o OUT.png|OUT.svg",
				    "Draws the trace as the viewers do, with "
				    "no display: async "
				    "threads as lines, white where they ran, "
				    "coloured arrows, "
				    "counters.  Times take a unit (ns, us, ms, "
				    "s) as the viewers' "
				    "ruler shows them.  Two whole runs of one "
				    "program are drawn "
				    "one above the other on one time scale, "
				    "the first divergence "
				    "marked (--compare, --merge: the rule in "
				    "weft(1)).",
				    opts, 0};
	int rc = parse_traces(&u, argc, argv, &tr);
	if (rc < 0 && !out) {
		traces_release(&tr);
		rc = opts_usage(&u);
	}
	if (rc < 0 && (compare = traces_pair(&u, &tr, compare, merge)) == 2)
		rc = 2;
	if (rc < 0)
		rc = render(&u, &tr, out, start, duration, w, h, search, sel,
			    connected, depth, focus, !no_counters, &hide, &fold,
			    crit, compare, align);
	traces_release(&tr);
	free(hide.v);
	free(fold.v);
	return rc;
}
