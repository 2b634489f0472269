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

#include <stddef.h>
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

/*
 * weft_time_fmt - a time or a duration of `ns` nanoseconds for people, as
 * the range summary (`weft stats --from --to`, the viewers' summary
 * panel) writes them: rounded to `prec` ns (a power of ten, at least 1;
 * half away from zero), in the unit that keeps the whole part from 1 to
 * 999 once rounded (ns, us, ms, s; 999 500 ns to the us is 1 ms, not
 * 1000 us), its decimals to `prec` in groups of three after the point
 * with whole groups of zeros left out: "17.094 992 s", "3.5 us" at prec
 * 100, "3 us", "0 ns", "-1.500 ms".  Writes at most `cap` bytes, NUL
 * included; returns the whole length.
 */
WEFT_API size_t weft_time_fmt(int64_t ns, int64_t prec, char *buf, size_t cap);
/*
 * weft_time_fmt_in - the same in a unit chosen by the caller (`unit_ns`
 * 1, 1000, 1000000 or 1000000000: ns, us, ms, s; 0: as weft_time_fmt),
 * so that several times share one: a ruler's labels "0.8 s", "1 s",
 * "1.2 s", a deep zoom's "17.094 992 s".
 */
WEFT_API size_t weft_time_fmt_in(int64_t ns, int64_t prec, int64_t unit_ns,
				 char *buf, size_t cap);

/*
 * A range summary: what a measured range of time holds (the viewers'
 * summary panel, `weft stats --from T --to T`), as Perfetto's area
 * selection.  The range [t0, t1] is closed at both ends (model times).
 *
 * Async threads (not OS threads) are grouped by kind, and those with a
 * label by their latest label (as `weft stats` groups them).
 * A thread is "in" the range when its life, from its creation to its end
 * (a pending thread: to the trace's end), meets the range; it "began"
 * when it was created within it, "ended" when it ended (resolved,
 * failed, became, was cancelled or replaced) within it, "failed" when it
 * ended failing within it.  The durations (total, p50, p99: nearest
 * rank, -1 for none) are the whole lifetimes of those that ended within
 * it.  "running" is the time its threads ran within the range,
 * "waiting" the rest of their lives within it (alive, not running), both
 * summed over its threads.
 *
 * Each OS thread (and each process, summing its OS threads) splits the
 * range into running (some async thread ran there), idle (its loop
 * waited for events, WEFT_INTERVAL_IDLE) and other (neither: time not
 * accounted for, or before it started and after it stopped).  Arrows are
 * counted by kind where they happen within the range; a waiting arrow
 * that a read followed (WEFT_ARROW_FOLLOWED, hidden by the viewers) is
 * not counted.
 */
struct weft_summary_group {
	uint32_t kind;	       /* interned name id (weft_model_name) */
	const char *kind_name; /* its text ("" in a group by label) */
	const char *label;     /* latest label ("" in a group by kind) */
	uint32_t threads;      /* in the range */
	uint32_t began, ended, failed;
	int64_t total, p50, p99; /* lifetimes of those ended in it */
	int64_t running, waiting;
	uint32_t first; /* its threads: members[first .. first + threads) */
};

struct weft_summary_os {
	uint32_t stream;  /* index in weft_model_streams */
	uint32_t process; /* weft_model_processes index, or WEFT_NONE */
	int64_t running, idle, other;
};

struct weft_summary_process {
	uint32_t process; /* weft_model_processes index, or WEFT_NONE */
	uint32_t streams; /* its OS threads */
	int64_t running, idle, other;
};

struct weft_summary {
	int64_t t0, t1;
	/* The precision its times are written to (weft_time_fmt): the
	 * largest power of ten ns at most a 100 000th of the range, so
	 * that any time in it shows five significant digits or more. */
	int64_t prec;
	/* Totals over every group. */
	uint32_t threads, began, ended, failed;
	/* By kind, most threads first (ties by kind). */
	struct weft_summary_group *groups;
	uint32_t ngroups;
	/* The groups' threads (weft_model_threads indexes), group after
	 * group, each group's in creation order. */
	uint32_t *members;
	/* By label, most threads first (ties by label), and their threads
	 * (the first of each group is in lmembers). */
	struct weft_summary_group *labels;
	uint32_t nlabels;
	uint32_t *lmembers;
	/* Every OS thread, in weft_model_streams order. */
	struct weft_summary_os *os;
	uint32_t nos;
	/* Every process with an OS thread, in weft_model_processes order
	 * (those of no known process last, as WEFT_NONE). */
	struct weft_summary_process *procs;
	uint32_t nprocs;
	uint32_t arrows[WEFT_ARROW_KINDS];
};

/*
 * weft_summary_compute - the summary of [t0, t1] (swapped when t1 < t0)
 * of model `m` into a new *out (free with weft_summary_free).  Returns 0
 * or -ENOMEM.  Linear in the model's threads, runs, idle intervals and
 * arrows; bounded for a corrupt trace (sums saturate).
 */
WEFT_API int weft_summary_compute(struct weft_summary **out,
				  const struct weft_model *m, int64_t t0,
				  int64_t t1);
WEFT_API void weft_summary_free(struct weft_summary *s);

/*
 * weft_summary_json - the summary as one JSON object: "from_ns",
 * "to_ns" (from `origin`: the trace's start as every front end counts),
 * "threads", "began", "ended", "failed", "groups" (by kind) and "labels"
 * (by label) (each "kind", "label",
 * "threads", "began", "ended", "failed", "total_ns", "p50_ns", "p99_ns",
 * "running_ns", "waiting_ns"), "os_threads" (each "tid", "name",
 * "running_ns", "idle_ns", "other_ns"), "processes" (each "pid" -- 0 for
 * none known --, "name", "running_ns", "idle_ns", "other_ns"), "arrows"
 * (each kind's weft_arrow_name and its count, those with none left out).
 * Writes at most `cap` bytes, NUL included; returns the whole length.
 */
WEFT_API size_t weft_summary_json(const struct weft_summary *s,
				  const struct weft_model *m, int64_t origin,
				  char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_STATS_H */
