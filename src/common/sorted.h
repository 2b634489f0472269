/* SPDX-License-Identifier: MIT */
/*
 * sorted.h - where a value is in an ascending array of uint32_t: the one
 * binary search of the layout's members (src/read/layout.c) and of weft
 * ps's pending threads (tools/cmd-ps.c).
 *
 * Header-only (static inline), for libweft-read, the tools and the
 * WebAssembly viewer alike: no library.
 */
#ifndef WEFT_SORTED_H
#define WEFT_SORTED_H

#include <stdint.h>

/* The index of x in a[0..n) (ascending, no repeats), or UINT32_MAX. */
static inline uint32_t weft__sorted_find(const uint32_t *a, uint32_t n,
					 uint32_t x)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && a[lo] == x ? lo : UINT32_MAX;
}

#endif
