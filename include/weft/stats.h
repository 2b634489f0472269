/* SPDX-License-Identifier: MIT */
/*
 * stats.h - what `weft stats` computes from a model (part of
 * libweft-read), for any front end to present: async threads grouped by
 * kind and by label (count, pending, failed, lifetime and running time
 * p50/p90/p99/max), the runs that went longest without yielding, and an
 * event loop's time by phase with what ran longest in the longest stay.
 * The OS threads' busy and idle shares and the counters are in the model
 * itself (weft_model_streams, weft_model_counters), the losses in the
 * reader (weft_reader_info).
 *
 * Durations are nanoseconds; percentiles are nearest-rank; -1 stands for
 * "none" (no finished thread in a group).  Texts point into the model and
 * stay valid while it does (until weft_model_update or weft_model_free).
 */
#ifndef WEFT_STATS_H
#define WEFT_STATS_H

#include <stdint.h>

#include "weft/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Async threads with the same kind (or the same latest label: "" for
 * none). */
struct weft_stats_group {
	const char *key;
	uint32_t count, pending, failed;
	int64_t life[4]; /* lifetime p50 p90 p99 max (finished ones) */
	int64_t run[4];	 /* running time p50 p90 p99 max */
};

/* The phases with one name of one OS thread's loop. */
struct weft_stats_phase {
	uint32_t stream; /* OS thread (index in weft_model_streams) */
	uint32_t name;	 /* interned name id (weft_model_name) */
	uint32_t count;
	int64_t total;	  /* time spent in it */
	int64_t d[4];	  /* duration p50 p90 p99 max */
	uint32_t longest; /* the longest stay (index in the WEFT_EV_PHASE
			     intervals) */
	uint32_t run;	  /* the longest run within it, or WEFT_NONE */
	int64_t first;	  /* when the loop first entered it */
};

#define WEFT_STATS_LONGEST 10

struct weft_stats {
	uint32_t threads; /* async threads (not counting OS threads) */
	int64_t t0, t1;	  /* the trace's time range */
	/* Most frequent first (ties by key). */
	struct weft_stats_group *kinds, *labels;
	uint32_t nkinds, nlabels;
	/* Indexes in weft_model_runs, longest first. */
	uint32_t longest[WEFT_STATS_LONGEST];
	uint32_t nlongest;
	/* By OS thread, then in the order the loop first entered them. */
	struct weft_stats_phase *phases;
	uint32_t nphases;
};

/*
 * weft_stats_compute - the statistics of model `m` into a new *out (free
 * with weft_stats_free).  Returns 0 or -ENOMEM.  Bounded for any model,
 * including one of a corrupt trace: sums saturate.
 */
WEFT_API int weft_stats_compute(struct weft_stats **out,
				const struct weft_model *m);

WEFT_API void weft_stats_free(struct weft_stats *s);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_STATS_H */
