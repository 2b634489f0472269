/* SPDX-License-Identifier: MIT */
/*
 * path.c - a thread's critical path highlighted in a view: what decided
 * when it ended, as weft_path() (weft/path.h, `weft why --path`) walks it,
 * drawn over the rows of the threads it goes through, and its split in
 * words for the viewers' inspector and `weft render --path`.
 *
 * Each segment is a bar along its thread's line, in magenta (a colour no
 * other part of the picture uses): running, a thick bar; ready but not
 * running, a thick pale one; waiting, a thin line under the thread's;
 * unexplained, thinner.
 * Where a wait ended, an arrow goes up from the thread that ended it to
 * the waiter's row.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view-internal.h"
#include "weft/path.h"

/* The path's colour (magenta) and its pale shade (ready). */
#define PATH_RGB 0.85, 0.0, 0.55
#define PATH_PALE 0.95, 0.55, 0.8

uint32_t weft_view_path(struct weft_view *v, uint32_t thread)
{
	weft_path_release(v->crit.path);
	v->crit.thread = WEFT_NONE;
	v->crit.threads = 0;
	if (thread == WEFT_NONE)
		return 0;
	if (!v->crit.path && !(v->crit.path = calloc(1, sizeof *v->crit.path)))
		return 0;
	if (weft_path(v->m, thread, v->crit.path))
		return 0;
	uint32_t nth;
	weft_model_threads(v->m, &nth);
	uint8_t *seen = calloc(nth ? nth : 1, 1);
	if (!seen) {
		weft_path_release(v->crit.path);
		return 0;
	}
	uint32_t n = 0;
	for (uint32_t i = 0; i < v->crit.path->nseg; i++) {
		uint32_t t = v->crit.path->seg[i].thread;
		if (t < nth && !seen[t]) {
			seen[t] = 1;
			n++;
		}
	}
	free(seen);
	v->crit.thread = thread;
	v->crit.threads = n;
	return n;
}

uint32_t weft_view_path_thread(const struct weft_view *v)
{
	return v->crit.thread;
}

uint32_t weft_view_path_size(const struct weft_view *v)
{
	return v->crit.threads;
}

const struct weft_path *weft_view_path_segments(const struct weft_view *v)
{
	return v->crit.thread == WEFT_NONE ? NULL : v->crit.path;
}

/* Time per thread a state's depth-0 segments name (`on`), in the order
 * first met. */
struct share {
	uint32_t on, idle;
	int64_t ns;
};

static size_t shares(const struct weft_path *p, uint32_t state, struct share *s,
		     size_t cap)
{
	size_t n = 0;
	for (uint32_t i = 0; i < p->nseg && !p->seg[i].depth; i++) {
		const struct weft_path_seg *g = &p->seg[i];
		if (g->state != state)
			continue;
		size_t k = 0;
		while (k < n && (s[k].on != g->on || s[k].idle != g->idle))
			k++;
		if (k == n) {
			if (n == cap)
				continue; /* (said as "others" below) */
			s[n++] = (struct share){g->on, g->idle, 0};
		}
		s[k].ns += g->t1 - g->t0;
	}
	return n;
}

/* Appends to buf (at *at, capacity cap; *at counts past cap). */
static void put(char *buf, size_t cap, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t cap, size_t *at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(*at < cap ? buf + *at : NULL,
			  *at < cap ? cap - *at : 0, fmt, ap);
	va_end(ap);
	if (k > 0)
		*at += (size_t)k;
}

#define SHARES 8

/* "waiting 410 us (on SELECT 7 410 us)": a state's time and, for waits
 * and readiness, what it was spent on. */
static void put_state(const struct weft_view *v, char *buf, size_t cap,
		      size_t *at, int *first, uint32_t state, const char *name)
{
	const struct weft_path *p = v->crit.path;
	char d[32], title[128];
	if (!p->total[state])
		return;
	put(buf, cap, at, "%s%s %s", *first ? "" : ", ", name,
	    weft__dur_str(d, sizeof d, (double)p->total[state]));
	*first = 0;
	if (state != WEFT_PATH_WAITING && state != WEFT_PATH_READY)
		return;
	struct share s[SHARES];
	size_t n = shares(p, state, s, SHARES);
	int64_t said = 0;
	put(buf, cap, at, " (%s ",
	    state == WEFT_PATH_WAITING ? "on" : "instead ran");
	for (size_t k = 0; k < n; k++) {
		if (s[k].on == WEFT_NONE && state == WEFT_PATH_WAITING &&
		    s[k].idle)
			/* (its OS thread blocked: it waited for an event) */
			snprintf(title, sizeof title, "an event, idle in %s",
				 weft_model_name(v->m, s[k].idle));
		else if (s[k].on == WEFT_NONE && state == WEFT_PATH_WAITING)
			/* (a thread that never runs, nothing ended its wait) */
			snprintf(title, sizeof title,
				 "nothing: pending, not signalled or "
				 "resolved since");
		else if (s[k].on == WEFT_NONE)
			snprintf(title, sizeof title, "nothing: idle");
		else
			weft_model_title(v->m, s[k].on, title, sizeof title);
		put(buf, cap, at, "%s%s %s", k ? ", " : "", title,
		    weft__dur_str(d, sizeof d, (double)s[k].ns));
		said += s[k].ns;
	}
	if (said < p->total[state])
		put(buf, cap, at, ", others %s",
		    weft__dur_str(d, sizeof d,
				  (double)(p->total[state] - said)));
	put(buf, cap, at, ")");
}

size_t weft_view_path_text(const struct weft_view *v, char *buf, size_t cap)
{
	size_t at = 0;
	char title[128], d[32];
	if (cap)
		*buf = 0;
	if (v->crit.thread == WEFT_NONE)
		return 0;
	const struct weft_path *p = v->crit.path;
	weft_model_title(v->m, v->crit.thread, title, sizeof title);
	put(buf, cap, &at, "critical path of %s (%u thread%s, %s): ", title,
	    v->crit.threads, v->crit.threads == 1 ? "" : "s",
	    weft__dur_str(d, sizeof d, (double)(p->t1 - p->t0)));
	int first = 1;
	put_state(v, buf, cap, &at, &first, WEFT_PATH_RUNNING, "running");
	put_state(v, buf, cap, &at, &first, WEFT_PATH_WAITING, "waiting");
	put_state(v, buf, cap, &at, &first, WEFT_PATH_READY,
		  "ready but not running");
	put_state(v, buf, cap, &at, &first, WEFT_PATH_OTHER, "unexplained");
	return at;
}

/* A segment's bar: its thickness by state (0: a line). */
static void seg_bar(struct weft_view *v, struct pen *p,
		    const struct weft_path_seg *g, double y, double h)
{
	double x0 = xof(v, g->t0), x1 = xof(v, g->t1);
	if (x1 < 0 || x0 > v->geo.w)
		return;
	if (x1 - x0 < 1)
		x1 = x0 + 1;
	if (g->state == WEFT_PATH_RUNNING || g->state == WEFT_PATH_READY) {
		double th = h < 8 ? (h < 1 ? 1 : h) : 8;
		rect(p, x0, y - th / 2, x1 - x0, th);
		return;
	}
	/* a wait: a line under the thread's own (which keeps its colour: a
	 * failure's red) */
	double th = g->state == WEFT_PATH_WAITING ? 2 : 1;
	rect(p, x0, h < 12 ? y : y + 3, x1 - x0, th);
}

/* The thread that ended wait g: the one whose segment one level deeper
 * ends where g ends (segments are by depth, then time: a search), else
 * what g waited on. */
static uint32_t woken_by(const struct weft_path *pa,
			 const struct weft_path_seg *g)
{
	uint32_t lo = 0, hi = pa->nseg;
	while (lo < hi) { /* the first segment past (depth + 1, before t1) */
		uint32_t mid = lo + (hi - lo) / 2;
		const struct weft_path_seg *e = &pa->seg[mid];
		if (e->depth < g->depth + 1 ||
		    (e->depth == g->depth + 1 && e->t0 < g->t1))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0) {
		const struct weft_path_seg *e = &pa->seg[lo - 1];
		if (e->depth == g->depth + 1 && e->t1 == g->t1 &&
		    e->t0 >= g->t0)
			return e->thread;
	}
	return g->on;
}

/* Over the thread lines (after the runs and arrows): the segments by
 * state, then where each wait ended, an arrow from the thread that ended
 * it up to the waiter. */
void weft__draw_path(struct weft_view *v, struct pen *p)
{
	const struct weft_path *pa = weft_view_path_segments(v);
	if (!pa)
		return;
	for (int pale = 1; pale >= 0; pale--) {
		if (pale)
			color(p, PATH_PALE, 1);
		else
			color(p, PATH_RGB, 1);
		for (uint32_t i = 0; i < pa->nseg; i++) {
			const struct weft_path_seg *g = &pa->seg[i];
			if ((g->state == WEFT_PATH_READY) != pale ||
			    g->thread >= v->rows.nthreads ||
			    v->rows.row[g->thread] < 0)
				continue;
			int r = v->rows.row[g->thread];
			seg_bar(v, p, g, yof(v, r), row_h(v, r));
		}
	}
	/* the arrows: a wait of depth d ends where a segment of depth d + 1
	 * within it ends; that one's thread woke the waiter */
	p->c->line_width(p->c->ctx, 2);
	for (uint32_t i = 0; i < pa->nseg; i++) {
		const struct weft_path_seg *g = &pa->seg[i];
		if (g->state != WEFT_PATH_WAITING ||
		    g->thread >= v->rows.nthreads || v->rows.row[g->thread] < 0)
			continue;
		uint32_t by = woken_by(pa, g);
		if (by >= v->rows.nthreads || v->rows.row[by] < 0 ||
		    by == g->thread)
			continue;
		double x = xof(v, g->t1);
		if (x < -10 || x > v->geo.w + 10)
			continue;
		double y0 = yof(v, v->rows.row[by]),
		       y1 = yof(v, v->rows.row[g->thread]);
		double s = y1 > y0 ? 1 : -1;
		line(p, x, y0, x, y1 - s * 6);
		triangle(p, x - 4, y1 - s * 7, x + 4, y1 - s * 7, x, y1);
	}
}
