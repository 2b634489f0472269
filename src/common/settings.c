/* SPDX-License-Identifier: MIT */
/* settings.c - strict parsing of sizes, modes and clocks (settings.h). */
#include <string.h>
#include <strings.h>

#include "settings.h"
#include "weft/weft.h"

int weft__parse_size(const char *s, uint64_t *bytes)
{
	if (!s || *s < '0' || *s > '9')
		return WEFT_EINVAL;
	uint64_t v = 0;
	int big = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - 9) / 10)
			big = 1;
		else
			v = v * 10 + (uint64_t)(*s - '0');
	}
	unsigned shift = 0;
	switch (*s) {
	case 'T':
	case 't':
		shift += 10; /* fall through */
	case 'G':
	case 'g':
		shift += 10; /* fall through */
	case 'M':
	case 'm':
		shift += 10; /* fall through */
	case 'K':
	case 'k':
		shift += 10;
		s++;
		/* 64M, 64MB and 64MiB mean the same */
		if (*s && strcasecmp(s, "B") && strcasecmp(s, "iB"))
			return WEFT_EINVAL;
		break;
	case 0:
		break;
	default:
		return WEFT_EINVAL;
	}
	if (big || v > (WEFT_MAX_SIZE >> shift))
		return WEFT_ETOOBIG;
	v <<= shift;
	if (v < WEFT_MIN_SIZE)
		return WEFT_ETOOSMALL;
	*bytes = v;
	return 0;
}

int weft__parse_mode(const char *s, unsigned *flags)
{
	if (s && !strcmp(s, "overwrite"))
		*flags &= ~(unsigned)WEFT_DISCARD;
	else if (s && !strcmp(s, "discard"))
		*flags |= WEFT_DISCARD;
	else
		return WEFT_EINVAL;
	return 0;
}

int weft__parse_clock(const char *s, unsigned *flags)
{
	if (s && !strcmp(s, "auto"))
		*flags &= ~(unsigned)WEFT_CLOCK_MONOTONIC;
	else if (s && !strcmp(s, "monotonic"))
		*flags |= WEFT_CLOCK_MONOTONIC;
	else
		return WEFT_EINVAL;
	return 0;
}
