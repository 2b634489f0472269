/* SPDX-License-Identifier: MIT */
/*
 * pick.c - the thread drawn nearest a pixel.
 */
#include <math.h>

#include "gallop.h"
#include "view-internal.h"

uint32_t weft__gallop(const int64_t *a, uint32_t lo, uint32_t n, int64_t t)
{
	uint32_t i = weft__gallop_s(a, sizeof *a, lo, n, t);
	weft__ahead(a, sizeof *a, lo, i, n);
	return i;
}

uint32_t weft__gallop_near(const int64_t *a, uint32_t lo, uint32_t n, int64_t t,
			   uint32_t *d)
{
	return weft__gallop_near_s(a, sizeof *a, lo, n, t, d);
}

uint32_t weft__gallop_gt(const int64_t *a, uint32_t lo, uint32_t n, int64_t t)
{
	return t == INT64_MAX ? n : weft__gallop(a, lo, n, t + 1);
}

uint32_t weft_view_pick(struct weft_view *v, double x, double y)
{
	if (!v->rows.nrows || y < TOP - 8)
		return WEFT_NONE;
	weft__geometry(v);
	if (y > v->geo.bottom + 8)
		return WEFT_NONE;
	uint32_t best = WEFT_NONE;
	double bestd = 8;
	int r0 = row_at(v, y - 8), r1 = row_at(v, y + 8);
	int64_t ta = tof(v, x - 8), tb = tof(v, x + 8);
	for (int r = r0; r <= r1; r++) {
		double dy = fabs(yof(v, r) - y);
		if (dy > bestd)
			continue;
		const uint32_t *ix = v->ix.all.ix + v->ix.all.off[r];
		const int64_t *s0 = v->ix.all.t0 + v->ix.all.off[r];
		const int64_t *s1 = v->ix.all.t1 + v->ix.all.off[r];
		uint32_t n = v->ix.all.off[r + 1] - v->ix.all.off[r];
		for (uint32_t i = weft__gallop(s1, 0, n, ta);
		     i < n && s0[i] <= tb; i++) {
			double x0 = xof(v, s0[i]);
			double x1 = s1[i] == INT64_MAX ? xof(v, v->time.tmax)
						       : xof(v, s1[i]);
			double dx = x < x0 ? x0 - x : x > x1 ? x - x1 : 0;
			double d = dx > dy ? dx : dy;
			if (d < bestd) {
				bestd = d;
				best = ix[i];
			}
		}
	}
	return best;
}
