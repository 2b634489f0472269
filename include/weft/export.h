/* SPDX-License-Identifier: MIT */
/*
 * export.h - the model as Chrome trace-event JSON, and JSON strings (part of libweft-read).
 */
#ifndef WEFT_EXPORT_H
#define WEFT_EXPORT_H

#include <stdio.h>
#include <stdint.h>

#include "weft/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * weft_export_chrome - the model as Chrome trace-event JSON (Perfetto,
 * chrome://tracing): async slices for async threads with their runs
 * nested, X slices for what each OS thread ran, a flow with a fresh id
 * per interaction, counters, idle periods, pauses, labels, losses.
 * Returns 0 or a negative code if writing failed.
 */
WEFT_API int weft_export_chrome(const struct weft_model *m, FILE *f);
/* The same, of only the threads i with only[i] (NULL: all; a causal
 * chain's weft_chain.in, say): their slices, their runs, the arrows
 * between them (or an OS thread); counters, idle periods, pauses,
 * phases and losses as they are. */
WEFT_API int weft_export_chrome_only(const struct weft_model *m, FILE *f,
				     const uint8_t *only);

/* Writes `s` as a JSON string literal: quotes, backslashes, control
 * bytes and '<' escaped, invalid UTF-8 replaced by U+FFFD. */
WEFT_API void weft_json_string(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_EXPORT_H */
