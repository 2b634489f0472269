/* SPDX-License-Identifier: MIT */
/*
 * draw.c - a frame, back to front (mirage-trace-viewer's rules and
 * colours): background; idle periods and pauses as bands; the time grid;
 * search, chain and selection highlights; thread lines (dark grey), with a
 * vertical line from the creator; a grey mark where a thread still
 * pending at the end was last seen; white where running; spans; failed
 * threads and should-resolve threads that never resolved in red (the
 * latter to the right edge, with a message); arrows by kind (green
 * resolve, blue read, red read of a failure, yellow wait not followed by
 * a read, orange signal, grey cancel), fading with their length, becomes
 * as vertical lines; labels where they fit (the id otherwise), kinds in
 * grey; notes; counters as step plots in a band at the bottom.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view-internal.h"

const char *weft__dur_str(char *buf, size_t cap, double ns)
{
	weft_view_dur_str((int64_t)llround(ns), buf, cap);
	return buf;
}

/* ------------------------------------------------------------ the theme */

void weft_view_set_dark(struct weft_view *v, int on)
{
	v->dark = !!on;
}

int weft_view_dark(const struct weft_view *v)
{
	return v->dark;
}

static double hue2rgb(double p, double q, double t)
{
	t = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
	return t < 1.0 / 6   ? p + (q - p) * 6 * t
	       : t < 0.5     ? q
	       : t < 2.0 / 3 ? p + (q - p) * (2.0 / 3 - t) * 6
			     : p;
}

/* In HSL: a light colour (lightness over 0.7: a background, a pale
 * band), a dark one (under 0.3: text, the resolve arrows' green) or a
 * grey (saturation under 0.2: lines, shading) has its lightness
 * inverted; a saturated one between keeps hue and saturation and goes to
 * 0.45 + 0.4 L (the read arrows' blue 0.5 -> 0.65), light on the dark
 * background without turning pale.  Hue and saturation always stay. */
void weft_view_theme_rgb(int dark, const double in[3], double out[3])
{
	double r = in[0], g = in[1], b = in[2];
	if (!dark) {
		out[0] = r;
		out[1] = g;
		out[2] = b;
		return;
	}
	double mx = fmax(r, fmax(g, b)), mn = fmin(r, fmin(g, b));
	double l = (mx + mn) / 2, h = 0, s = 0, d = mx - mn;
	if (d > 1e-9) {
		s = l > 0.5 ? d / (2 - mx - mn) : d / (mx + mn);
		h = mx == r   ? (g - b) / d + (g < b ? 6 : 0)
		    : mx == g ? (b - r) / d + 2
			      : (r - g) / d + 4;
		h /= 6;
	}
	l = l > 0.7 || l < 0.3 || s < 0.2 ? 1 - l : 0.45 + 0.4 * l;
	if (s < 1e-9) {
		out[0] = out[1] = out[2] = l;
		return;
	}
	double q = l < 0.5 ? l * (1 + s) : l + s - l * s, p = 2 * l - q;
	out[0] = hue2rgb(p, q, h + 1.0 / 3);
	out[1] = hue2rgb(p, q, h);
	out[2] = hue2rgb(p, q, h - 1.0 / 3);
}

/* The grid: a line down from each of the ruler's ticks. */
static void draw_grid(struct weft_view *v, struct pen *p, double step)
{
	color(p, 0.7, 0.7, 0.7, 1);
	p->c->line_width(p->c->ctx, 1);
	/* (the ruler counts from the trace's start) */
	double first = (double)v->time.tmin +
		       ceil((double)(v->time.t0 - v->time.tmin) / step) * step;
	for (double t = first; t < (double)v->time.t1; t += step) {
		double x = xof(v, (int64_t)t);
		line(p, x, TOP - 4, x, v->geo.bottom);
	}
	char d[32], buf[64];
	snprintf(buf, sizeof buf, "each grid division: %s",
		 weft__dur_str(d, sizeof d, step));
	color(p, 0.35, 0.35, 0.35, 1);
	text(p, LEFT, v->geo.h - 4, buf);
	if (v->geo.fk < v->rows.nrows) {
		/* where the squeezed rows are: a rule on each side of the
		 * full band */
		color(p, 0.55, 0.55, 0.65, 1);
		if (v->geo.fa > 0)
			line(p, 0, TOP + v->geo.hup, 4, TOP + v->geo.hup);
		if (v->geo.fa + v->geo.fk < v->rows.nrows)
			line(p, 0, TOP + v->geo.hup + ROW_H * v->geo.fk, 4,
			     TOP + v->geo.hup + ROW_H * v->geo.fk);
		rect(p, 0, TOP + v->geo.hup, 2, ROW_H * v->geo.fk);
	}
}

/* A run of several processes: each group's header, a band across the
 * time the group spans in its lane's first row, with the process's name,
 * pid and how it ended, open (a down triangle) or collapsed (a right
 * one), the text running on past the band as far as `room_to` (where the
 * lane's next band starts) and cut there; squeezed, a rule. */
static void draw_header(struct weft_view *v, struct pen *p, uint32_t k,
			double y, double h, double room_to)
{
	uint32_t np;
	const struct weft_model_process *pr = weft_model_processes(v->m, &np);
	double x0, x1;
	if (k >= np || !weft__header_span(v, k, &x0, &x1))
		return;
	v->rows.hdr_tw[k] = 0;
	if (h < FULL) {
		color(p, 0.45, 0.5, 0.7, 1);
		rect(p, x0, y, x1 - x0, 1);
		return;
	}
	color(p, 0.8, 0.84, 0.93, 1);
	rect(p, x0, y - 10, x1 - x0, 20);
	double x = x0 < LEFT ? LEFT : x0;
	if (x1 - x < 8)
		return;
	color(p, 0.1, 0.15, 0.4, 1);
	if (weft_view_collapsed(v, k))
		triangle(p, x, y - 5, x + 7, y, x, y + 5);
	else
		triangle(p, x, y - 4, x + 8, y - 4, x + 4, y + 3);
	const struct weft_model_process *q = &pr[k];
	char comm[sizeof q->comm * 3], e[64], buf[200];
	weft_utf8_fix(comm, sizeof comm, q->comm, strlen(q->comm));
	snprintf(buf, sizeof buf, "%s (pid %u), %s", comm, q->pid,
		 weft_process_says(q->end, q->status, e, sizeof e));
	double tw = weft__label_at(p, x + 12, y + 4,
				   (room_to > x1 ? room_to : x1) - x - 16, buf);
	v->rows.hdr_tw[k] = (float)tw; /* (where a click finds it) */
}

static void draw_headers(struct weft_view *v, struct pen *p)
{
	for (uint32_t l = 0; v->rows.hdr_lane && l < v->rows.nlanes; l++) {
		int r = v->rows.ltop[l];
		double y = round(yof(v, r)), h = row_h(v, r);
		if (y < TOP - 10 || y > v->geo.h + 10)
			continue;
		/* the lane's groups in sight: in time order, disjoint, so
		 * their ends are in order too */
		uint32_t lo = v->rows.loff[l], hi = v->rows.loff[l + 1];
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (v->rows.pt1[v->rows.lproc[mid]] < v->time.t0)
				lo = mid + 1;
			else
				hi = mid;
		}
		double last = -1;
		for (uint32_t j = lo; j < v->rows.loff[l + 1]; j++) {
			uint32_t k = v->rows.lproc[j];
			if (v->rows.pt0[k] > v->time.t1)
				break;
			double x0, x1, n0 = v->geo.w, n1;
			if (!weft__header_span(v, k, &x0, &x1) || x1 <= last)
				continue; /* (within a pixel of the one before) */
			if (j + 1 < v->rows.loff[l + 1])
				weft__header_span(v, v->rows.lproc[j + 1], &n0,
						  &n1);
			draw_header(v, p, k, y, h, n0);
			last = x1;
		}
	}
}

long weft_view_render(struct weft_view *v, const struct weft_canvas *c)
{
	struct pen pn = {c, 0}, *p = &pn;
	pn.dark = v->dark;
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(v->m, &nth);
	if (nth > v->rows.nthreads)
		weft_view_model_changed(v);
	if (weft__scratch(v))
		return 0;
	weft__geometry(v);
	double right = xof(v, v->time.tmax);
	struct walk k = {v, p, th, P_HIGHLIGHT, 1, right, 3};
	k.cells = v->fr.cells;
	k.clines = v->fr.clines;

	color(p, 0.9, 0.9, 0.9, 1);
	rect(p, 0, 0, v->geo.w, v->geo.h);
	weft__draw_bands(v, p);
	draw_grid(v, p, weft__draw_ruler(v, p));
	draw_headers(v, p); /* (over the grid: a group's rule) */
	clip(p, 0, TOP - 6, v->geo.w, v->geo.bottom - TOP + 6);

	/* Highlights behind the lines: search (yellow), chain (light
	 * teal), the selection (orange, around its line). */
	for (k.full = 0; k.full < 2; k.full++) {
		color(p, 1, 1, 0, 1);
		weft__walk_rows(&k, &v->ix.hl);
		color(p, 0.55, 0.85, 0.75, 0.6);
		weft__walk_rows(&k, &v->ix.chain);
	}
	if (v->sel.selected < v->rows.nthreads &&
	    v->rows.row[v->sel.selected] >= 0) {
		uint32_t t = v->sel.selected;
		double x0 = xof(v, th[t].t_create);
		double x1 = v->rows.end[t] == INT64_MAX
				    ? right
				    : xof(v, v->rows.end[t]);
		double y = yof(v, v->rows.row[t]);
		color(p, 1, 0.45, 0, 1);
		c->line_width(c->ctx, 2);
		for (int s = -1; s <= 1; s += 2)
			line(p, x0 - 4, y + s * 6, x1 + 4, y + s * 6);
	}

	/* Thread lines and creation lines; squeezed rows thin and light. */
	k.kind = P_LINE;
	k.full = 0;
	color(p, 0.5, 0.5, 0.5, 1);
	c->line_width(c->ctx, 1);
	weft__walk_rows(&k, &v->ix.all);
	k.full = 1;
	color(p, 0.2, 0.2, 0.2, 1);
	c->line_width(c->ctx, 2);
	k.marks = v->fr.marks;
	weft__walk_rows(&k, &v->ix.all);
	color(p, 0.45, 0.45, 0.45, 1);
	for (int i = 0; i < k.nmarks; i++)
		triangle(p, v->fr.marks[i][0], v->fr.marks[i][1] - 5,
			 v->fr.marks[i][0] + 7, v->fr.marks[i][1],
			 v->fr.marks[i][0], v->fr.marks[i][1] + 5);

	weft__draw_runs(v, p);
	weft__draw_spans(v, p);
	weft__draw_phases(v, p);

	/* Failed threads and should-resolve threads that never resolved. */
	k.kind = P_BAD;
	color(p, 0.8, 0, 0, 1);
	for (k.full = 0; k.full < 2; k.full++) {
		c->line_width(c->ctx, k.full ? 2 : 1);
		weft__walk_rows(&k, &v->ix.bad);
	}

	weft__draw_arrows(v, p, th);
	weft__draw_path(v, p); /* (over the lines and arrows it follows) */
	weft__draw_labels(v, p, th, right);
	weft__draw_notes(v, p); /* over the labels: they are rarer */
	unclip(p);

	if (weft__any_counter(v)) {
		weft__draw_counters(v, p, right);
	} else if (v->ctr.keep_band) { /* (empty: as another's) */
		color(p, COUNTER_BG, COUNTER_BG, COUNTER_BG, 1);
		rect(p, 0, v->geo.bottom, v->geo.w, COUNTERS_H);
	}
	weft__draw_bookmarks(v, p);
	weft__draw_measure(v, p); /* over everything */
	if (c->flush)
		c->flush(c->ctx);
	return p->prims;
}
