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

#define WEFT__HIDDEN_API __attribute__((visibility("hidden")))

/* The settings: X(NAME, "variable", "option of weft record" or NULL,
 * "what it accepts", for messages). */
#define WEFT__SETTINGS(X)                                                      \
	X(SIZE, "WEFT_SIZE", "--size",                                         \
	  "a number of bytes with an optional K, M, G or T suffix (powers "    \
	  "of 1024) from 40K to 1T")                                           \
	X(MODE, "WEFT_MODE", "--mode", "overwrite or discard")                 \
	X(CLOCK, "WEFT_CLOCK", "--clock",                                      \
	  "auto (the TSC when usable) or monotonic")                           \
	X(ROOT_PID, "WEFT_ROOT_PID", NULL,                                     \
	  "the process id of the process that writes WEFT_FILE")               \
	X(SESSION, "WEFT_SESSION", NULL,                                       \
	  "1 to 16 hexadecimal digits, not all 0")

enum weft__setting {
#define WEFT__SETTING_ENUM(name, var, opt, help) WEFT__SET_##name,
	WEFT__SETTINGS(WEFT__SETTING_ENUM)
#undef WEFT__SETTING_ENUM
		WEFT__NSETTINGS
};

struct weft__setting_info {
	const char *var, *option, *help;
};
extern WEFT__HIDDEN_API const struct weft__setting_info weft__setting_info[];

/* What the settings say (0 for one that is not set). */
struct weft__settings {
	uint64_t size;	/* bytes */
	unsigned flags; /* WEFT_DISCARD, WEFT_CLOCK_MONOTONIC */
	int root_pid;
	uint64_t session;
};

/* Parses `s`, a value of setting `which`, into *out.  Returns 0, or
 * WEFT_EINVAL (not a value of the setting), WEFT_ETOOSMALL or
 * WEFT_ETOOBIG (sizes). */
WEFT__HIDDEN_API int weft__parse_setting(enum weft__setting which,
					 const char *s,
					 struct weft__settings *out);

/* What is wrong, for a code weft__parse_setting() returned: "too small",
 * "too large" or "not valid". */
WEFT__HIDDEN_API const char *weft__setting_problem(int err);

/* The parsers of the first three, alone. */
WEFT__HIDDEN_API int weft__parse_size(const char *s, uint64_t *bytes);
/* Sets WEFT_DISCARD in *flags or not. */
WEFT__HIDDEN_API int weft__parse_mode(const char *s, unsigned *flags);
/* Sets WEFT_CLOCK_MONOTONIC in *flags or not. */
WEFT__HIDDEN_API int weft__parse_clock(const char *s, unsigned *flags);

#endif
