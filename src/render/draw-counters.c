/* SPDX-License-Identifier: MIT */
/*
 * draw-counters.c - counters as step plots at the bottom.
 */
#include <math.h>
#include <stdio.h>

#include "view-internal.h"

/* A counter's level from x0 to x1: a 2 px box on whole pixels. */
static void step(struct mpen *mp, double x0, double x1, double y)
{
	x0 = round(x0);
	x1 = round(x1);
	if (x1 > x0)
		weft__mpen_box(mp, x0, round(y) - 1, x1 - x0, 2);
}

void weft__draw_counters(struct weft_view *v, struct pen *p, double right)
{
	uint32_t nctr;
	const struct weft_counter *ctr = weft_model_counters(v->m, &nctr);
	static const double cc[4][3] = {
		{1, .4, .4}, {1, .5, 0}, {.4, .8, .8}, {.8, .4, 1}};
	double y0 = v->bottom + 4, hgt = COUNTERS_H - 10;
	color(p, 0.85, 0.85, 0.85, 1);
	rect(p, 0, v->bottom, v->w, COUNTERS_H);
	int shown = 0;
	for (uint32_t k = 0; k < nctr; k++) {
		if (!weft_view_counter_shown(v, k))
			continue;
		const struct weft_counter *q = &ctr[k];
		/* in floating point: counter values are any int64 */
		double span = q->max > q->min ? (double)q->max - (double)q->min
					      : 1;
		color(p, cc[k % 4][0], cc[k % 4][1], cc[k % 4][2], 1);
		/* (crisp boxes of one colour, a few a pixel column: a mask) */
		struct mpen pl;
		weft__mpen_begin(&pl, v, p);
#define YV(s)                                                                  \
	(y0 + hgt - ((double)q->samples[s].value - (double)q->min) / span * hgt)
		/* the sample in force at the left edge, then one step per
		 * pixel column: the last sample of each column */
		uint32_t lo = 0, hi = q->nsamples;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (q->samples[mid].t <= v->t0)
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
			if (xn > v->w)
				break;
			int64_t tn = tof(v, floor(xn) + 1);
			lo = s + 1;
			hi = q->nsamples;
			while (lo < hi) {
				uint32_t mid = lo + (hi - lo) / 2;
				if (q->samples[mid].t < tn)
					lo = mid + 1;
				else
					hi = mid;
			}
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
			weft__mpen_box(&pl, round(x) - 1, ya - 1, 2,
				       yb - ya + 2);
			px = x;
			py = y;
			s = e;
		}
#undef YV
		if (px < v->w)
			step(&pl, px, right < v->w ? right : v->w, py);
		weft__mpen_end(&pl);
		char buf[300];
		snprintf(buf, sizeof buf, "%s = %lld",
			 weft_model_name(v->m, q->name),
			 (long long)(q->nsamples
					     ? q->samples[q->nsamples - 1].value
					     : 0));
		text(p, v->w - LEFT - p->c->text_width(p->c->ctx, FONT, buf),
		     y0 + 10 + 12 * (shown % 5), buf);
		shown++;
	}
}
