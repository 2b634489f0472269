/* SPDX-License-Identifier: MIT */
/*
 * bookmarks.c - flags a person drops at moments of the trace (B in the
 * viewers), each with an optional note: kept in time order, drawn as a
 * flag on the ruler and a line down the picture, listed and jumped to by
 * the viewers, kept in the view's state (state.c: "&b=").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view-internal.h"
#include "common/grow.h"

#define BOOKMARK_MAX 1000

static double width(struct pen *p, const char *s)
{
	return p->c->text_width(p->c->ctx, FONT, s);
}

int weft_view_add_bookmark(struct weft_view *v, int64_t t, const char *note)
{
	if (v->bm.n == BOOKMARK_MAX)
		return -ENOSPC;
	if (weft__grow32(&v->bm.at, &v->bm.cap, (size_t)v->bm.n + 1,
			 sizeof *v->bm.at, 8))
		return -ENOMEM;
	char *n = strdup(note ? note : "");
	if (!n)
		return -ENOMEM;
	/* after those at or before t: two at one time stay in the order
	 * they were dropped */
	uint32_t i = v->bm.n;
	while (i > 0 && v->bm.at[i - 1].t > t)
		i--;
	memmove(v->bm.at + i + 1, v->bm.at + i,
		(v->bm.n - i) * sizeof *v->bm.at);
	v->bm.at[i] = (struct bookmark){t, n};
	v->bm.n++;
	return (int)i;
}

uint32_t weft_view_bookmarks(const struct weft_view *v)
{
	return v->bm.n;
}

int64_t weft_view_bookmark(const struct weft_view *v, uint32_t i,
			   const char **note)
{
	if (i >= v->bm.n) {
		if (note)
			*note = NULL;
		return 0;
	}
	if (note)
		*note = v->bm.at[i].note;
	return v->bm.at[i].t;
}

void weft_view_remove_bookmark(struct weft_view *v, uint32_t i)
{
	if (i >= v->bm.n)
		return;
	free(v->bm.at[i].note);
	memmove(v->bm.at + i, v->bm.at + i + 1,
		(v->bm.n - i - 1) * sizeof *v->bm.at);
	v->bm.n--;
}

void weft_view_clear_bookmarks(struct weft_view *v)
{
	for (uint32_t i = 0; i < v->bm.n; i++)
		free(v->bm.at[i].note);
	v->bm.n = 0;
}

void weft_view_go_to_bookmark(struct weft_view *v, uint32_t i)
{
	if (i >= v->bm.n)
		return;
	int64_t half = (v->time.t1 - v->time.t0) / 2;
	weft_view_set_range(v, v->bm.at[i].t - half,
			    v->bm.at[i].t - half + (v->time.t1 - v->time.t0));
}

int weft_view_next_bookmark(struct weft_view *v, int dir)
{
	if (!v->bm.n)
		return -1;
	int64_t mid = v->time.t0 + (v->time.t1 - v->time.t0) / 2;
	int k = -1;
	if (dir > 0) {
		for (uint32_t i = 0; i < v->bm.n && k < 0; i++)
			if (v->bm.at[i].t > mid)
				k = (int)i;
		if (k < 0)
			k = 0; /* round */
	} else {
		for (uint32_t i = v->bm.n; i-- > 0 && k < 0;)
			if (v->bm.at[i].t < mid)
				k = (int)i;
		if (k < 0)
			k = (int)v->bm.n - 1;
	}
	weft_view_go_to_bookmark(v, (uint32_t)k);
	return k;
}

/* Each bookmark in sight: a line down the picture, a flag on the ruler,
 * and under it its number and note (cut where the next flag begins). */
void weft__draw_bookmarks(struct weft_view *v, struct pen *p)
{
	p->c->line_width(p->c->ctx, 1);
	for (uint32_t i = 0; i < v->bm.n; i++) {
		double x = xof(v, v->bm.at[i].t);
		if (x < -1 || x > v->geo.w + 1)
			continue;
		x = (double)(long long)x + 0.5;
		color(p, 0.45, 0.25, 0.0, 1);
		line(p, x, RULER_H, x, v->geo.bottom);
		triangle(p, x, 1, x + 9, 5, x, 9);
		char buf[300];
		snprintf(buf, sizeof buf, "%u%s%s", i + 1,
			 *v->bm.at[i].note ? " " : "", v->bm.at[i].note);
		/* up to the next flag in sight */
		double room = v->geo.w - x - 12;
		if (i + 1 < v->bm.n) {
			double nx = xof(v, v->bm.at[i + 1].t);
			if (nx - x - 14 < room)
				room = nx - x - 14;
		}
		if (room < 8)
			continue;
		size_t n = strlen(buf);
		while (n > 1 && width(p, buf) + 6 > room)
			buf[--n] = 0;
		/* on a box of its own, under the ruler: over the rows'
		 * labels, not the ruler's times */
		double tw = width(p, buf);
		color(p, 1, 0.93, 0.8, 0.9);
		rect(p, x + 1, RULER_H, tw + 6, 14);
		color(p, 0.45, 0.25, 0.0, 1);
		text(p, x + 4, RULER_H + 11, buf);
	}
}
