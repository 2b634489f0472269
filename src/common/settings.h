/* SPDX-License-Identifier: MIT */
/*
 * settings.h - strict parsing of the recorder's settings, shared by
 * libweft (WEFT_SIZE, WEFT_MODE, WEFT_CLOCK) and `weft record` (--size,
 * --mode, --clock), so both accept exactly the same values and say the
 * same thing about the others.
 */
#ifndef WEFT_SETTINGS_H
#define WEFT_SETTINGS_H

#include <stdint.h>

/* What each setting accepts, for messages. */
#define WEFT__SIZE_HELP                                                      \
	"a number of bytes with an optional K, M, G or T suffix (powers of " \
	"1024) from 40K to 1T"
#define WEFT__MODE_HELP "overwrite or discard"
#define WEFT__CLOCK_HELP "auto (the TSC when usable) or monotonic"

/* Each returns 0, or WEFT_EINVAL (not a value of the setting),
 * WEFT_ETOOSMALL or WEFT_ETOOBIG (sizes). */
__attribute__((visibility("hidden"))) int weft__parse_size(const char *s,
							   uint64_t *bytes);
/* Sets WEFT_DISCARD in *flags or not. */
__attribute__((visibility("hidden"))) int weft__parse_mode(const char *s,
							   unsigned *flags);
/* Sets WEFT_CLOCK_MONOTONIC in *flags or not. */
__attribute__((visibility("hidden"))) int weft__parse_clock(const char *s,
							    unsigned *flags);

#endif
