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
	/* the longest stay and the longest run within it (valid when run
	 * is not WEFT_NONE), as copies: a lean model keeps neither */
	int64_t longest_t0, longest_t1;
	struct weft_run longest_run;
};

/* A counter summed over the processes that keep one of its name, as
 * weft_model_counter_sum() would make it: how many samples, their min,
 * max and last. */
struct weft_stats_sum {
	uint32_t name; /* interned name id */
	uint32_t processes, n;
	int64_t min, max, last;
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
	/* The longest runs themselves (a lean model keeps no runs: then
	 * longest[] is not set). */
	struct weft_run longest_runs[WEFT_STATS_LONGEST];
	/* From weft_stats_stream_finish() only: every counter name's sum
	 * (weft_stats_sum), in the order of first samples. */
	struct weft_stats_sum *sums;
	uint32_t nsums;
	/* Loop phase groups whose percentiles come from a histogram
	 * (more than WEFT_STATS_EXACT stays: docs/huge.md) */
	uint32_t approximate;
};

/*
 * The same statistics in one pass over the events, with a lean model
 * (weft_model_set_sink; docs/huge.md): weft_stats_stream_new() sets `m`
 * (new, not stepped yet) to feed it; step or update m to the end; then
 * weft_stats_stream_finish() makes *out as weft_stats_compute() would
 * have from a whole model.  Loop phases' percentiles are exact up to
 * WEFT_STATS_EXACT stays of a group, and from a log-linear histogram
 * beyond (within 1/128 below the exact value).  0 or -ENOMEM.
 */
#define WEFT_STATS_EXACT (1u << 20)
struct weft_stats_stream;
WEFT_API int weft_stats_stream_new(struct weft_stats_stream **out,
				   struct weft_model *m);
WEFT_API int weft_stats_stream_finish(struct weft_stats_stream *s,
				      struct weft_stats **out);
WEFT_API void weft_stats_stream_free(struct weft_stats_stream *s);
/* How many stays of a loop phase are kept exactly before the histogram
 * takes over (default WEFT_STATS_EXACT; before the first step). */
WEFT_API void weft_stats_stream_set_exact(struct weft_stats_stream *s,
					  uint32_t n);

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
