/* SPDX-License-Identifier: MIT */
/* settings.c - strict parsing of sizes, modes and clocks (settings.h). */
#include <stdlib.h>
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

const struct weft__setting_info weft__setting_info[] = {
#define WEFT__SETTING_INFO(name, var, opt, help) {var, opt, help},
	WEFT__SETTINGS(WEFT__SETTING_INFO)
#undef WEFT__SETTING_INFO
};

int weft__parse_setting(enum weft__setting which, const char *s,
			struct weft__settings *out)
{
	char *end;
	switch (which) {
	case WEFT__SET_SIZE:
		return weft__parse_size(s, &out->size);
	case WEFT__SET_MODE:
		return weft__parse_mode(s, &out->flags);
	case WEFT__SET_CLOCK:
		return weft__parse_clock(s, &out->flags);
	case WEFT__SET_ROOT_PID: {
		long v = *s >= '0' && *s <= '9' ? strtol(s, &end, 10) : 0;
		if (v <= 0 || *end || v > INT32_MAX)
			return WEFT_EINVAL;
		out->root_pid = (int)v;
		return 0;
	}
	case WEFT__SET_SESSION: {
		int hex = strlen(s) <= 16 && strspn(s, "0123456789abcdefABCDE"
						       "F") == strlen(s);
		uint64_t v = hex && *s ? strtoull(s, &end, 16) : 0;
		if (!v)
			return WEFT_EINVAL;
		out->session = v;
		return 0;
	}
	case WEFT__NSETTINGS:
		break;
	}
	return WEFT_EINVAL;
}

const char *weft__setting_problem(int err)
{
	return err == WEFT_ETOOSMALL ? "too small"
	       : err == WEFT_ETOOBIG ? "too large"
				     : "not valid";
}
