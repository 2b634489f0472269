/* SPDX-License-Identifier: MIT */
/*
 * draw-counters.c - counters as step plots at the bottom, each named
 * (with its latest value) on a box of its own drawn after every plot,
 * and, under the pointer, each one's value at that time.
 */
#include <math.h>
#include <stdio.h>

#include "gallop.h"
#include "view-internal.h"

/* A counter's level from x0 to x1: a 2 px box on whole pixels. */
static void step(struct mpen *mp, double x0, double x1, double y)
{
	x0 = round(x0);
	x1 = round(x1);
	if (x1 > x0)
		weft__mpen_box(mp, x0, round(y) - 1, x1 - x0, 2);
}

_Static_assert(offsetof(struct weft_sample, t) == 0, "gallop.h reads a "
						     "sample's time at its "
						     "start");

/* The first sample of [lo, nsamples) at or after t.  A column's samples
 * are near the last column's, and about as many (*d, which it sets): as
 * weft__gallop_near, it looks there first, then gallops from there,
 * ahead or back (a binary search over all the rest touched memory far
 * away for each column). */
_Static_assert(offsetof(struct weft_sample, t) == 0, "gallop.h reads a "
						     "sample's time at its "
						     "start");
static uint32_t first_at(const struct weft_counter *q, uint32_t lo, int64_t t,
			 uint32_t *d)
{
	return weft__gallop_near_s(q->samples, sizeof *q->samples, lo,
				   q->nsamples, t, d);
}

static const double cc[4][3] = {
	{1, .4, .4}, {1, .5, 0}, {.4, .8, .8}, {.8, .4, 1}};

/* One counter's step plot, in its colour, between y0 and y0 + hgt. */
static void plot(struct weft_view *v, struct pen *p,
		 const struct weft_counter *q, double y0, double hgt,
		 double right)
{
	/* in floating point: counter values are any int64 */
	double span = q->max > q->min ? (double)q->max - (double)q->min : 1;
	/* (crisp boxes of one colour, a few a pixel column: a mask) */
	struct mpen pl;
	weft__mpen_begin(&pl, v, p);
#define YV(s)                                                                  \
	(y0 + hgt - ((double)q->samples[s].value - (double)q->min) / span * hgt)
	/* the sample in force at the left edge, then one step per
	 * pixel column: the last sample of each column */
	uint32_t lo = 0, hi = q->nsamples, gd = 0;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (q->samples[mid].t <= v->time.t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	uint32_t s = lo ? lo - 1 : 0;
	double px = s < q->nsamples ? xof(v, q->samples[s].t) : 0;
	if (px < 0)
		px = 0;
	double py = q->nsamples ? YV(s) : y0 + hgt;
	while (q->nsamples && s + 1 < q->nsamples) {
		/* the last sample before the next pixel column */
		double xn = xof(v, q->samples[s + 1].t);
		if (xn > v->geo.w)
			break;
		int64_t tn = tof(v, floor(xn) + 1);
		lo = first_at(q, s + 1, tn, &gd);
		uint32_t e = lo > s + 1 ? lo - 1 : s + 1;
		double x = xof(v, q->samples[e].t), y = YV(e);
		/* the range the column went through */
		double ymin = py, ymax = py;
		for (uint32_t j = s + 1; j <= e && j < s + 8; j++) {
			double yy = YV(j);
			ymin = yy < ymin ? yy : ymin;
			ymax = yy > ymax ? yy : ymax;
		}
		/* crisp 2 px boxes: the step, then the rise (from
		 * the level before: one box where they meet) */
		if (round(x) - 1 > round(px))
			step(&pl, px, round(x) - 1, py);
		double ya = round(ymin < y ? ymin : y);
		double yb = round(ymax > y ? ymax : y);
		ya = round(py) < ya ? round(py) : ya;
		yb = round(py) > yb ? round(py) : yb;
		weft__mpen_box(&pl, round(x) - 1, ya - 1, 2, yb - ya + 2);
		px = x;
		py = y;
		s = e;
	}
#undef YV
	if (px < v->geo.w)
		step(&pl, px, right < v->geo.w ? right : v->geo.w, py);
	weft__mpen_end(&pl);
}

/* The value in force at time t (the last sample at or before it); 0
 * when there is none yet. */
static int value_at(const struct weft_counter *q, int64_t t, int64_t *out)
{
	uint32_t lo = 0, hi = q->nsamples;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (q->samples[mid].t <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	*out = lo ? q->samples[lo - 1].value : 0;
	return lo > 0;
}

int weft_view_counter_at_pointer(const struct weft_view *v, uint32_t k,
				 int64_t *value)
{
	uint32_t nctr;
	const struct weft_counter *ctr = weft_model_counters(v->m, &nctr);
	*value = 0;
	if (v->ptr.x < 0 || k >= nctr || !weft_view_counter_shown(v, k))
		return 0;
	return value_at(&ctr[k], tof(v, v->ptr.x), value);
}

/* Text on a box of the band's lighter shade, in a darker shade of
 * counter k's colour: drawn after every plot, so that no plot paints
 * over it, the boxes (pass 0) before the texts (pass 1), so that no box
 * paints over the text of the line above. */
static void boxed(struct pen *p, double x, double y, const char *s, int k,
		  int pass)
{
	if (pass == 0) {
		double w = p->c->text_width(p->c->ctx, FONT, s);
		color(p, COUNTER_BOX, COUNTER_BOX, COUNTER_BOX, 1);
		rect(p, x - 2, y - 10, w + 4, 12);
		return;
	}
	color(p, cc[k % 4][0] * 0.6, cc[k % 4][1] * 0.6, cc[k % 4][2] * 0.6, 1);
	text(p, x, y, s);
}

/* Where a counter's name goes: its line among five. */
static double name_y(const struct weft_view *v, int shown)
{
	return v->geo.bottom + 4 + 10 + 12 * (shown % 5);
}

/* Each counter's name and latest value, right-aligned; returns the
 * leftmost x they reach. */
static double names(struct weft_view *v, struct pen *p, int pass)
{
	uint32_t nctr;
	const struct weft_counter *ctr = weft_model_counters(v->m, &nctr);
	double left = v->geo.w;
	int shown = 0;
	for (uint32_t k = 0; k < nctr; k++) {
		if (!weft_view_counter_shown(v, k))
			continue;
		const struct weft_counter *q = &ctr[k];
		char buf[300], title[200];
		/* (its process's too, when the trace has several: one band
		 * per process) */
		weft_model_counter_title(v->m, k, title, sizeof title);
		snprintf(buf, sizeof buf, "%s = %lld", title,
			 (long long)(q->nsamples
					     ? q->samples[q->nsamples - 1].value
					     : 0));
		double x = v->geo.w - LEFT -
			   p->c->text_width(p->c->ctx, FONT, buf);
		boxed(p, x, name_y(v, shown++), buf, (int)k, pass);
		left = x < left ? x : left;
	}
	return left;
}

/* Under the pointer: a rule across the band, and each counter's value
 * at that time beside it (on the left when it would reach the names). */
static void at_pointer(struct weft_view *v, struct pen *p, double names_x,
		       int pass)
{
	uint32_t nctr;
	weft_model_counters(v->m, &nctr);
	double x = v->ptr.x;
	if (x < 0)
		return;
	if (pass == 0) {
		color(p, 0.3, 0.3, 0.3, 1);
		rect(p, round(x), v->geo.bottom, 1, COUNTERS_H);
	}
	int shown = 0;
	for (uint32_t k = 0; k < nctr; k++) {
		if (!weft_view_counter_shown(v, k))
			continue;
		int64_t val;
		char buf[32];
		if (weft_view_counter_at_pointer(v, k, &val))
			snprintf(buf, sizeof buf, "%lld", (long long)val);
		else
			snprintf(buf, sizeof buf, "-");
		double w = p->c->text_width(p->c->ctx, FONT, buf);
		double tx = x + 5 + w + 2 < names_x ? x + 5 : x - 5 - w;
		boxed(p, tx, name_y(v, shown++), buf, (int)k, pass);
	}
}

void weft__draw_counters(struct weft_view *v, struct pen *p, double right)
{
	uint32_t nctr;
	const struct weft_counter *ctr = weft_model_counters(v->m, &nctr);
	double y0 = v->geo.bottom + 4, hgt = COUNTERS_H - 10;
	color(p, COUNTER_BG, COUNTER_BG, COUNTER_BG, 1);
	rect(p, 0, v->geo.bottom, v->geo.w, COUNTERS_H);
	for (uint32_t k = 0; k < nctr; k++) {
		if (!weft_view_counter_shown(v, k))
			continue;
		color(p, cc[k % 4][0], cc[k % 4][1], cc[k % 4][2], 1);
		plot(v, p, &ctr[k], y0, hgt, right);
	}
	/* the texts last: no plot paints over them */
	for (int pass = 0; pass < 2; pass++)
		at_pointer(v, p, names(v, p, pass), pass);
}
