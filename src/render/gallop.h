/* SPDX-License-Identifier: MIT */
/*
 * gallop.h - searches in a sorted array of records that begin with an
 * int64_t time (stride bytes each: the view's time arrays, a counter's
 * samples), inline so that each caller's stride is a constant.
 */
#ifndef WEFT_RENDER_GALLOP_H
#define WEFT_RENDER_GALLOP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline int64_t weft__key(const void *a, size_t stride, uint32_t i)
{
	int64_t k;
	memcpy(&k, (const char *)a + (size_t)i * stride, sizeof k);
	return k;
}

/* The first i of [lo, n) whose key is >= t, by halving. */
static inline uint32_t weft__halve_s(const void *a, size_t stride, uint32_t lo,
				     uint32_t n, int64_t t)
{
	while (lo < n) {
		uint32_t mid = lo + (n - lo) / 2;
		if (weft__key(a, stride, mid) < t)
			lo = mid + 1;
		else
			n = mid;
	}
	return lo;
}

/* The first i of [lo, n) whose key is >= t.  It gallops from lo (1, 2,
 * 4... ahead, then halves): a frame moves along a row in small steps far
 * more often than in big ones. */
static inline uint32_t weft__gallop_s(const void *a, size_t stride, uint32_t lo,
				      uint32_t n, int64_t t)
{
	uint32_t step = 1;
	while (lo < n && weft__key(a, stride, lo) < t) {
		uint32_t probe = n - lo > step ? lo + step : n;
		if (probe == n || weft__key(a, stride, probe) >= t) {
			lo++;
			n = probe;
			break;
		}
		lo = probe + 1;
		step *= 2;
	}
	return weft__halve_s(a, stride, lo, n, t);
}

/* The next search most often starts where this one ended and goes about
 * as far: the memory there is asked for on the way (a frame's searches
 * over a big trace wait mostly on memory). */
static inline void weft__ahead(const void *a, size_t stride, uint32_t from,
			       uint32_t at, uint32_t n)
{
	if (at - from < n - at)
		__builtin_prefetch((const char *)a +
				   (size_t)(at + (at - from)) * stride);
}

/* The same, from a guess: the answer is most often about *d past lo (the
 * last search's distance, on a row walked column by column), which it
 * then sets.  It looks there first, then gallops from there, ahead or
 * back (a search over all the rest touched memory far away for each
 * column). */
static inline uint32_t weft__gallop_near_s(const void *a, size_t stride,
					   uint32_t lo, uint32_t n, int64_t t,
					   uint32_t *d)
{
	uint32_t p = lo + *d, from = lo, hi;
	if (*d < 8 || *d >= n - lo) {
		hi = weft__gallop_s(a, stride, lo, n, t);
	} else if (weft__key(a, stride, p) < t) {
		hi = weft__gallop_s(a, stride, p + 1, n, t);
	} else {
		/* at or before the guess: gallop back from it (key(hi) >=
		 * t), then halve */
		uint32_t step = 1;
		hi = p;
		while (hi > lo) {
			uint32_t q = hi - lo > step ? hi - step : lo;
			if (weft__key(a, stride, q) < t) {
				lo = q + 1;
				break;
			}
			hi = q;
			step *= 2;
		}
		hi = weft__halve_s(a, stride, lo, hi, t);
	}
	*d = hi - from;
	weft__ahead(a, stride, from, hi, n);
	return hi;
}

#endif
