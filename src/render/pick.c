/* SPDX-License-Identifier: MIT */
/*
 * pick.c - the thread drawn nearest a pixel.
 */
#include <math.h>

#include "view-internal.h"

/* First i in [lo, n) of a row's threads whose end is >= t. */
uint32_t weft__first_end(const struct weft_view *v, const uint32_t *ix,
			  uint32_t lo, uint32_t n, int64_t t)
{
	while (lo < n) {
		uint32_t mid = lo + (n - lo) / 2;
		if (v->end[ix[mid]] < t)
			lo = mid + 1;
		else
			n = mid;
	}
	return lo;
}

uint32_t weft_view_pick(struct weft_view *v, double x, double y)
{
	const struct weft_thread *th = weft_model_threads(v->m, &(uint32_t){0});
	if (!v->nrows || y < TOP - 8)
		return WEFT_NONE;
	weft__geometry(v);
	if (y > v->bottom + 8)
		return WEFT_NONE;
	uint32_t best = WEFT_NONE;
	double bestd = 8;
	int r0 = row_at(v, y - 8), r1 = row_at(v, y + 8);
	int64_t ta = tof(v, x - 8), tb = tof(v, x + 8);
	for (int r = r0; r <= r1; r++) {
		double dy = fabs(yof(v, r) - y);
		if (dy > bestd)
			continue;
		const uint32_t *ix = v->all.ix + v->all.off[r];
		uint32_t n = v->all.off[r + 1] - v->all.off[r];
		for (uint32_t i = weft__first_end(v, ix, 0, n, ta);
		     i < n && th[ix[i]].t_create <= tb; i++) {
			double x0 = xof(v, th[ix[i]].t_create);
			double x1 = v->end[ix[i]] == INT64_MAX
					    ? xof(v, v->tmax)
					    : xof(v, v->end[ix[i]]);
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
