/* SPDX-License-Identifier: MIT */
/* lttng-tp.h - the LTTng-UST peer of bench-record: one tracepoint with two
 * 64-bit fields, the shape of weft's create/resolve events. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER weftpeer

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./lttng-tp.h"

#if !defined(WEFT_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define WEFT_LTTNG_TP_H

#include <lttng/tracepoint.h>
#include <stdint.h>

LTTNG_UST_TRACEPOINT_EVENT(
	weftpeer, resolve, LTTNG_UST_TP_ARGS(uint64_t, target, uint64_t, actor),
	LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint64_t, target, target)
				    lttng_ust_field_integer(uint64_t, actor,
							    actor)))

#endif

#include <lttng/tracepoint-event.h>
