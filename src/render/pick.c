/* SPDX-License-Identifier: MIT */
/*
 * pick.c - the thread drawn nearest a pixel.
 */
#include <math.h>

#include "view-internal.h"

/* The first i of [lo, n) with a[i] >= t.  It gallops from lo (1, 2,
 * 4... ahead, then halves): a frame moves along a row in small steps far
 * more often than in big ones. */
static uint32_t gallop(const int64_t *a, uint32_t lo, uint32_t n, int64_t t)
{
	uint32_t step = 1;
	while (lo < n && a[lo] < t) {
		uint32_t probe = n - lo > step ? lo + step : n;
		if (probe == n || a[probe] >= t) {
			lo++;
			n = probe;
			break;
		}
		lo = probe + 1;
		step *= 2;
	}
	while (lo < n) {
		uint32_t mid = lo + (n - lo) / 2;
		if (a[mid] < t)
			lo = mid + 1;
		else
			n = mid;
	}
	return lo;
}

/* The next search most often starts where this one ended and goes about
 * as far: the memory there is asked for on the way (a frame's searches
 * over a big trace wait mostly on memory). */
static void ahead(const int64_t *a, uint32_t from, uint32_t at, uint32_t n)
{
	if (at - from < n - at)
		__builtin_prefetch(&a[at + (at - from)]);
}

uint32_t weft__gallop(const int64_t *a, uint32_t lo, uint32_t n, int64_t t)
{
	uint32_t i = gallop(a, lo, n, t);
	ahead(a, lo, i, n);
	return i;
}

uint32_t weft__gallop_near(const int64_t *a, uint32_t lo, uint32_t n, int64_t t,
			   uint32_t *d)
{
	uint32_t p = lo + *d, from = lo, hi;
	if (*d < 8 || *d >= n - lo) {
		hi = gallop(a, lo, n, t);
	} else if (a[p] < t) {
		hi = gallop(a, p + 1, n, t);
	} else {
		/* at or before the guess: gallop back from it (a[hi] >= t),
		 * then halve */
		uint32_t step = 1;
		hi = p;
		while (hi > lo) {
			uint32_t q = hi - lo > step ? hi - step : lo;
			if (a[q] < t) {
				lo = q + 1;
				break;
			}
			hi = q;
			step *= 2;
		}
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (a[mid] < t)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	*d = hi - from;
	ahead(a, from, hi, n);
	return hi;
}

uint32_t weft__gallop_gt(const int64_t *a, uint32_t lo, uint32_t n, int64_t t)
{
	return t == INT64_MAX ? n : weft__gallop(a, lo, n, t + 1);
}

uint32_t weft_view_pick(struct weft_view *v, double x, double y)
{
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
		const int64_t *s0 = v->all.t0 + v->all.off[r];
		const int64_t *s1 = v->all.t1 + v->all.off[r];
		uint32_t n = v->all.off[r + 1] - v->all.off[r];
		for (uint32_t i = weft__gallop(s1, 0, n, ta);
		     i < n && s0[i] <= tb; i++) {
			double x0 = xof(v, s0[i]);
			double x1 = s1[i] == INT64_MAX ? xof(v, v->tmax)
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
