/* SPDX-License-Identifier: MIT */
/*
 * mintree.h - slots (rows, lanes) that become free at a time, kept in a
 * segment tree of those times, the minimum at each node: leaves at
 * [cap, 2 cap), a slot not in use INT64_MAX.  The first or last slot of
 * a range free before t is two descents, so placing n things on r slots
 * costs O(n log r).  The rows of src/read/layout.c and the process lanes
 * of src/render/rows.c.  Header-only: each library has its own copy.
 */
#ifndef WEFT_MINTREE_H
#define WEFT_MINTREE_H

#include <stdint.h>
#include <stdlib.h>

/* Slot k becomes free at t. */
static inline void weft__mintree_set(int64_t *tree, uint32_t cap, uint32_t k,
				     int64_t t)
{
	uint32_t i = cap + k;
	tree[i] = t;
	for (i /= 2; i; i /= 2) {
		int64_t a = tree[2 * i], b = tree[2 * i + 1];
		tree[i] = a < b ? a : b;
	}
}

/* The leaves a tree of `cap` needs for slot k: it doubles (from
 * `first`). */
static inline uint32_t weft__mintree_cap(uint32_t cap, uint32_t k,
					 uint32_t first)
{
	uint32_t c = cap ? cap : first;
	while (c <= k)
		c *= 2;
	return c;
}

/* Room for slot k (weft__mintree_cap() leaves), slots [0, used) keeping
 * their times.  0, or -1 (no memory: the tree as it was). */
static inline int weft__mintree_room(int64_t **tree, uint32_t *cap, uint32_t k,
				     uint32_t used, uint32_t first)
{
	if (k < *cap)
		return 0;
	uint32_t c = weft__mintree_cap(*cap, k, first);
	int64_t *t = malloc(2 * (size_t)c * sizeof *t);
	if (!t)
		return -1;
	for (uint32_t i = 0; i < c; i++)
		t[c + i] = i < used ? (*tree)[*cap + i] : INT64_MAX;
	for (uint32_t i = c; i-- > 1;)
		t[i] = t[2 * i] < t[2 * i + 1] ? t[2 * i] : t[2 * i + 1];
	free(*tree);
	*tree = t;
	*cap = c;
	return 0;
}

/* The first slot in [lo, hi) free before t, or UINT32_MAX. */
static inline uint32_t weft__mintree_first(const int64_t *tree, uint32_t cap,
					   uint32_t lo, uint32_t hi, int64_t t)
{
	if (lo >= hi)
		return UINT32_MAX;
	/* climb from the leaf lo, then descend into the first subtree
	 * right of it that holds a free slot */
	uint32_t i = cap + lo;
	if (tree[i] < t)
		return lo;
	for (;;) {
		/* right siblings only, as we climb */
		while (i & 1) {
			i /= 2;
			if (i <= 1)
				return UINT32_MAX;
		}
		i++; /* the right sibling */
		if (tree[i] < t)
			break;
	}
	while (i < cap)
		i = tree[2 * i] < t ? 2 * i : 2 * i + 1;
	uint32_t r = i - cap;
	return r < hi ? r : UINT32_MAX;
}

/* The last slot in [lo, hi) free before t, or UINT32_MAX. */
static inline uint32_t weft__mintree_last(const int64_t *tree, uint32_t cap,
					  uint32_t lo, uint32_t hi, int64_t t)
{
	if (lo >= hi)
		return UINT32_MAX;
	uint32_t i = cap + hi - 1;
	if (tree[i] < t)
		return hi - 1;
	for (;;) {
		/* left siblings only */
		while (!(i & 1)) {
			i /= 2;
			if (i <= 1)
				return UINT32_MAX;
		}
		i--;
		if (tree[i] < t)
			break;
	}
	while (i < cap)
		i = tree[2 * i + 1] < t ? 2 * i + 1 : 2 * i;
	uint32_t r = i - cap;
	return r >= lo ? r : UINT32_MAX;
}

#endif
