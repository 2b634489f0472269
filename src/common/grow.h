/* SPDX-License-Identifier: MIT */
/*
 * grow.h - the one way an array grows: room for `need` elements, the
 * capacity doubled (from a floor) until it holds them, the byte count
 * checked for overflow before realloc, and on failure the old block
 * and capacity left as they were (the caller still owns and frees it).
 *
 * Header-only (static inline), for libweft-read, the renderer, the
 * tools and the WebAssembly viewer alike: libc only.
 *
 *   if (WEFT_GROW(v->item, v->cap, v->n + 1))
 *           return -ENOMEM;
 *   v->item[v->n++] = x;
 *
 * Only for growth (append one, ensure a capacity): shrinking, an exact
 * resize and a buffer of a computed size call realloc themselves.
 */
#ifndef WEFT_GROW_H
#define WEFT_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The capacity an empty array gets first (when `need` is smaller). */
#define WEFT_GROW_FLOOR 16

/*
 * Makes the array *p (of elements of `size` bytes, room for *cap) hold
 * at least `need` elements.  Nothing happens while need <= *cap;
 * otherwise the capacity becomes the first of c, 2c, 4c... that holds
 * `need` (c: *cap, or `first` for an empty array), or `max` (the largest
 * the capacity's type holds, or the caller's limit) when that doubling
 * would pass it (`need` itself when that many bytes would not fit in a
 * size_t), and *p is realloc'd to it.
 * Returns 0, or -ENOMEM (need > max, need * size overflowing size_t,
 * or realloc failing) with *p and *cap unchanged.  Elements past the
 * old capacity are uninitialised.
 *
 * p is the address of any object pointer (read and written as bytes, so
 * no aliasing rule is broken by callers passing a `struct x **`).
 */
static inline int weft__grow_to(void *p, size_t *cap, size_t need, size_t size,
				size_t first, size_t max)
{
	if (need <= *cap)
		return 0;
	if (need > max || size == 0 || need > SIZE_MAX / size)
		return -ENOMEM;
	size_t c = *cap ? *cap : (first ? first : 1);
	while (c < need)
		c = c > max / 2 ? max : c * 2; /* the doubling stops at max */
	if (c > SIZE_MAX / size)
		c = need; /* (which fits: checked above) */
	void *old;
	memcpy(&old, p, sizeof old);
	void *n = realloc(old, c * size);
	if (!n)
		return -ENOMEM;
	memcpy(p, &n, sizeof n);
	*cap = c;
	return 0;
}

/* weft__grow_to for a size_t capacity and the usual floor. */
static inline int weft__grow(void *p, size_t *cap, size_t need, size_t size)
{
	return weft__grow_to(p, cap, need, size, WEFT_GROW_FLOOR, SIZE_MAX);
}

/* weft__grow_to for a uint32_t capacity (counts of the model, the
 * reader, the layout): a need over UINT32_MAX is -ENOMEM. */
static inline int weft__grow32(void *p, uint32_t *cap, size_t need, size_t size,
			       size_t first)
{
	size_t c = *cap;
	int err = weft__grow_to(p, &c, need, size, first, UINT32_MAX);
	*cap = (uint32_t)c;
	return err;
}

/*
 * The typed forms: arr an object pointer lvalue, cap its capacity (a
 * size_t, or a uint32_t for WEFT_GROW32), need how many elements it must
 * hold.  0 or -ENOMEM, as weft__grow_to.
 */
#define WEFT_GROW(arr, cap, need)                                              \
	weft__grow(&(arr), &(cap), (need), sizeof *(arr))
#define WEFT_GROW32(arr, cap, need)                                            \
	weft__grow32(&(arr), &(cap), (need), sizeof *(arr), WEFT_GROW_FLOOR)

#endif
