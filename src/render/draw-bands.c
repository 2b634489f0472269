/* SPDX-License-Identifier: MIT */
/*
 * draw-bands.c - idle periods and pauses, shaded by coverage.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "view-internal.h"

/* Idle periods and pauses as bands, drawn per pixel column (per cell
 * across, on a huge picture): each column is shaded by the share of its
 * time the band covers, in BAND_STEPS steps, all the columns of one step
 * at once.  A frame draws a few aligned boxes per column at most, not an
 * antialiased sliver per interval, and a column half idle still looks
 * half idle. */
#define BAND_STEPS 16
#define BAND_LABELS 64

/* The shade of column c: 0 (none) to BAND_STEPS (covered). */
static int band_step(const struct weft_view *v, int c)
{
	int q = px_round(v->fr.bcov[c] * BAND_STEPS);
	return q > BAND_STEPS ? BAND_STEPS : q;
}

void weft__draw_bands(struct weft_view *v, struct pen *p)
{
	int ncol = v->fr.covw;
	double bot = round(v->geo.bottom);
	for (int k = 0; k < 2; k++) {
		uint32_t n;
		const struct weft_interval *iv = weft_model_intervals(
			v->m, k ? WEFT_INTERVAL_PAUSE : WEFT_INTERVAL_IDLE, &n);
		const struct ivindex *x = &v->ix.iv[k];
		double band[3] = {0.8, 0.8, 0.8};
		if (k) {
			band[0] = 0.7;
			band[1] = band[2] = 0.6;
		}
		struct {
			double x;
			uint32_t name;
		} lab[BAND_LABELS];
		int nlab = 0, any = 0;
		/* each column's share, exactly: the time the bands cover
		 * up to its right edge less that up to its left edge (a
		 * pause of 3.8 % of a column shades it 3.8 %, however
		 * many slices it is in, however thin) */
		uint32_t ci = 0;
		int64_t ta = tof(v, 0);
		int64_t ua = weft__ivindex_covered(x, ta, &ci);
		for (int c = 0; c < ncol; c++) {
			int64_t tb = tof(v, (c + 1) * v->fr.cs);
			int64_t ub = weft__ivindex_covered(x, tb, &ci);
			float s = tb > ta ? (float)(ub - ua) / (float)(tb - ta)
					  : 0;
			v->fr.bcov[c] = s > 1 ? 1 : s;
			any |= band_step(v, c) > 0;
			ta = tb;
			ua = ub;
		}
		/* the bands wide enough to be named, in order of start; a
		 * band less than half a pixel past the ones before is
		 * skipped, with all it hides */
		double last = -1e9;
		uint32_t i = weft__ivindex_from(x, 0, v->time.t0), gd = 0;
		while (nlab < BAND_LABELS && i < x->n &&
		       x->t0[i] <= v->time.t1) {
			double x0 = xof(v, x->t0[i]), x1 = xof(v, x->t1[i]);
			if (x1 - last < 0.5) {
				i = weft__gallop_near(x->pmax, i + 1, x->n,
						      tof(v, last + 0.5), &gd);
				continue;
			}
			if (x1 - x0 > 60) {
				lab[nlab].x = x0 < 0 ? 0 : x0;
				lab[nlab++].name = iv[x->ord[i]].name;
			}
			i++;
			last = x1;
		}
		/* the columns' shades at once where the canvas can (one
		 * pass over the picture), else each step's columns, runs of
		 * them as one box */
		if (any && v->fr.cs == 1 && p->c->shades && bot > TOP) {
			for (int c = 0; c < ncol; c++)
				v->fr.bq[c] = (uint8_t)band_step(v, c);
			double rgb[3];
			weft_view_theme_rgb(v->dark, band, rgb);
			if (p->c->shades(p->c->ctx, 0, (int)TOP, ncol,
					 (int)(bot - TOP), v->fr.bq, BAND_STEPS,
					 rgb[0], rgb[1], rgb[2])) {
				p->prims++;
				any = 0;
			}
		}
		for (int q = any ? BAND_STEPS : 0; q > 0; q--) {
			int drawn = 0;
			for (int c = 0; c < ncol; c++) {
				if (band_step(v, c) != q)
					continue;
				int e = c + 1;
				while (e < ncol && band_step(v, e) == q)
					e++;
				if (!drawn)
					color(p, band[0], band[1], band[2],
					      (double)q / BAND_STEPS);
				drawn = 1;
				rect(p, c * v->fr.cs, TOP, (e - c) * v->fr.cs,
				     bot - TOP);
				c = e - 1;
			}
		}
		color(p, 1, 1, 1, 1);
		for (int j = 0; j < nlab; j++) {
			char buf[300];
			snprintf(buf, sizeof buf, "%s: %s",
				 k ? "pause" : "idle",
				 weft_model_name(v->m, lab[j].name));
			text(p, lab[j].x + 3, TOP + 11, buf);
		}
	}
}
