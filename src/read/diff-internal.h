/* SPDX-License-Identifier: MIT */
/* diff-internal.h - what diff.c, diff-timing.c and path.c share. */
#ifndef WEFT_DIFF_INTERNAL_H
#define WEFT_DIFF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "weft/diff.h"

/* An open-addressing map from non-zero 64-bit keys to 32-bit values. */
struct weft__hmap {
	uint64_t *key;
	uint32_t *val;
	uint32_t cap, used;
};

int weft__hmap_init(struct weft__hmap *h, uint32_t n);
void weft__hmap_release(struct weft__hmap *h);
/* The value of key k (!= 0), inserted as `dflt` if new; NULL: -ENOMEM. */
uint32_t *weft__hmap_get(struct weft__hmap *h, uint64_t k, uint32_t dflt);
/* The value of key k, or WEFT_NONE. */
uint32_t weft__hmap_find(const struct weft__hmap *h, uint64_t k);

/* A thread's key (enum weft_diff_key) as a non-zero hash; `scratch` of
 * `cap` bytes is used to normalise. */
uint64_t weft__diff_key(const struct weft_model *m, uint32_t t, int key,
			char *scratch, size_t cap);

#endif
