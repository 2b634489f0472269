/* SPDX-License-Identifier: MIT */
/*
 * fnv.h - FNV-1a 64 of a NUL-terminated text: the one text hash of the
 * hash tables that group by text (weft stats' groups, weft query's
 * computed views).  Not for anything hostile input could target by
 * collision: callers compare the texts themselves.
 */
#ifndef WEFT_COMMON_FNV_H
#define WEFT_COMMON_FNV_H

#include <stdint.h>

#define WEFT_FNV0 0xcbf29ce484222325ull
#define WEFT_FNV_PRIME 0x100000001b3ull

static inline uint64_t weft__fnv_text(const char *s)
{
	uint64_t h = WEFT_FNV0;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * WEFT_FNV_PRIME;
	return h;
}

#endif
