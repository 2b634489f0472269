/* SPDX-License-Identifier: MIT */
/*
 * otlp.h - a trace as OpenTelemetry spans (OTLP/protobuf
 * ExportTraceServiceRequest messages), for `weft export --otlp` and
 * `weft ship --otlp`; docs/otlp.md says what each span holds.
 */
#ifndef WEFT_OTLP_H
#define WEFT_OTLP_H

#include <stddef.h>
#include <stdint.h>

#include "weft/model.h"

#define OTLP_SPAN_BUDGET 10000
#define OTLP_MESSAGE_LIMIT (4u << 20) /* bytes a message may take */
#define OTLP_MESSAGE_MIN 4096

struct otlp_opts {
	uint32_t span_budget; /* spans a trace may hold (>= 1) */
	size_t message_limit; /* bytes a message may take */
	const char *service;  /* service.name, or NULL: the process's name */
};

struct otlp_stats {
	uint64_t spans, traces, messages, links, events, bytes;
	uint64_t links_dropped, events_dropped; /* spans too big alone */
	uint32_t biggest_trace;			/* spans in it */
	size_t biggest_message;			/* bytes */
};

/* Each message, in order: 0 to go on, else stop with that code. */
typedef int (*otlp_emit)(void *ctx, const uint8_t *msg, size_t len);

/* Encodes the model's threads as spans, in messages of at most
 * o->message_limit bytes each handed to emit().  0, -ENOMEM, the emit
 * callback's code, or -E2BIG when one span alone (its attributes) cannot
 * fit a message. */
int otlp_encode(const struct weft_model *m, const struct otlp_opts *o,
		otlp_emit emit, void *ctx, struct otlp_stats *st);

/* An arrow kind as weft query and the OTLP attributes spell it
 * ("create", "try_read"): the enum's names in lower case, from the one
 * table (WEFT_ARROW_MAP), in buf; "?" out of range.  (Inline: weft-import
 * uses it without libweft-read.) */
#define OTLP__ARROW_TOKEN(E, name, verb, r, g, b) #E,
static inline const char *otlp_arrow_token(int k, char buf[16])
{
	static const char *const names[] = {WEFT_ARROW_MAP(OTLP__ARROW_TOKEN)};
	if (k < 0 || k >= WEFT_ARROW_KINDS)
		return "?";
	size_t i = 0;
	for (; names[k][i] && i + 1 < 16; i++)
		buf[i] = (char)(names[k][i] >= 'A' && names[k][i] <= 'Z'
					? names[k][i] - 'A' + 'a'
					: names[k][i]);
	buf[i] = 0;
	return buf;
}

/* `weft ship --otlp URL TRACE...` (ship-otlp.c): weft ship's dispatch
 * calls it when --otlp is given; argv[0] is "ship". */
int cmd_ship_otlp(int argc, char **argv);

#endif
