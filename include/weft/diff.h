/* SPDX-License-Identifier: MIT */
/*
 * diff.h - comparing runs (part of libweft-read): which async threads of
 * two runs are the same, where the runs first went different ways, and
 * which kinds of work took longer (docs/diff.md, `weft diff`).
 *
 * Alignment.  Ids and addresses differ between runs, so a thread is known
 * by its causal identity: the path of keys from the root along create
 * arrows, and its place among its siblings.  A thread's key is its kind
 * and its first label, normalised (WEFT_DIFF_KEY_LABEL: every run of
 * decimal digits, and every 0x followed by hex digits, becomes '#', so
 * that ports, addresses, descriptors and sizes do not tell runs apart),
 * exact (WEFT_DIFF_KEY_RAW), or its kind alone (WEFT_DIFF_KEY_KIND).
 * Threads created by an OS thread, or whose creator is not in the trace,
 * are the top level.  Two sibling lists (in creation order) are aligned by
 * a longest common subsequence of their keys; what it leaves unmatched is
 * matched by key and ordinal among what is left (siblings that came in
 * another order, as a loop's events do); matched threads' children are
 * aligned in turn.  OS threads are not aligned: as the other end of an
 * interaction, all OS threads are one.
 *
 * Everything here reads models, which must outlive what is made from
 * them; one thread at a time per object.  Fallible calls return 0 or a
 * negative code (-ENOMEM, WEFT_EINVAL).
 */
#ifndef WEFT_DIFF_H
#define WEFT_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "weft/model.h"

#ifdef __cplusplus
extern "C" {
#endif

enum weft_diff_key {
	WEFT_DIFF_KEY_LABEL, /* kind and normalised first label (default) */
	WEFT_DIFF_KEY_RAW,   /* kind and first label as it is */
	WEFT_DIFF_KEY_KIND,  /* kind alone */
};

/* Writes `label` normalised (digits and 0x-hex runs to '#') into `out`
 * (at most `cap` bytes, NUL included; cut on a character boundary).
 * Returns the length of the whole result (like snprintf). */
WEFT_API size_t weft_diff_normalise(const char *label, char *out, size_t cap);

/* A thread's key as text, "kind: label" ("kind" alone with no label or
 * with WEFT_DIFF_KEY_KIND), like weft_diff_normalise. */
WEFT_API size_t weft_diff_key_text(const struct weft_model *m, uint32_t thread,
				   int key, char *out, size_t cap);

struct weft_align;

struct weft_align_info {
	uint32_t matched;   /* threads aligned */
	uint32_t only[2];   /* threads of run 0 (1) with no partner */
	uint32_t reordered; /* matched out of their siblings' order */
};

/* Aligns the threads of runs `a` (side 0) and `b` (side 1). */
WEFT_API int weft_align_new(struct weft_align **out, const struct weft_model *a,
			    const struct weft_model *b, int key);
WEFT_API void weft_align_free(struct weft_align *al);
/* Per thread of side 0 or 1: its partner in the other run, or WEFT_NONE
 * (OS threads: NONE); *n gets the threads covered. */
WEFT_API const uint32_t *weft_align_map(const struct weft_align *al, int side,
					uint32_t *n);
WEFT_API void weft_align_info(const struct weft_align *al,
			      struct weft_align_info *info);
WEFT_API const struct weft_model *weft_align_model(const struct weft_align *al,
						   int side);

/*
 * The first divergence: the earliest point where the aligned runs differ
 * in kind, not in timing.  Candidates:
 *   ONLY        a thread exists in one run only (when it was created);
 *   END         an aligned thread ended differently (resolved, failed,
 *               cancelled, became another, still pending at the end);
 *   ARROW       an interaction in one run has no counterpart in the
 *               other: the same kind, on the aligned thread, by the
 *               aligned actor, the same number of times (an interaction
 *               is "on" the thread it waits on, reads, resolves, fails,
 *               signals, cancels, or that became another);
 *   ORDER       a wait on a thread (try_read) and a wake-up of it
 *               (signal, resolution, failure, cancellation) came in one
 *               order in one run and in the other order in the other:
 *               whether the waiter is woken depends on it (a signal
 *               before the wait is lost).  Interactions that commute —
 *               two signals, two waits, the creations of one parent —
 *               may come in either order.
 * "Earliest" is by the traces' clocks, which respect happens-before
 * within a run (an OS thread's events are in order; a cause comes before
 * its effect): a candidate's time is, in each run where it is, its time
 * since that trace's first event, and candidates are ordered by the
 * earlier of their two times.
 */
enum weft_divergence_kind {
	WEFT_DIV_NONE,
	WEFT_DIV_ONLY,
	WEFT_DIV_END,
	WEFT_DIV_ARROW,
	WEFT_DIV_ORDER,
};

struct weft_divergence {
	int kind; /* enum weft_divergence_kind */
	/* Per side (0, 1): */
	uint32_t thread[2]; /* ONLY, END: the thread; ARROW, ORDER: the
			       thread the interactions are on; NONE where
			       it is not */
	uint32_t arrow[2];  /* ARROW: the interaction (weft_model_arrows) in
			       the run that has it; ORDER: the wait */
	uint32_t other[2];  /* ORDER: the wake-up */
	int64_t t[2];	    /* its time in each run (model time), or
			       INT64_MIN where it is not */
};

/* Finds the first divergence into *d.  Returns 1 (found), 0 (the runs
 * have the same structure: d->kind WEFT_DIV_NONE) or a negative code. */
WEFT_API int weft_diff_first(const struct weft_align *al,
			     struct weft_divergence *d);

/*
 * Timing.  Threads are grouped by key (as above); per group and metric —
 * lifetime (ended threads), running time (the sum of their runs), time
 * waited (the sum of their waits: from a try_read to the read that
 * answered it, or to their end) — each run gives count, p50, p95 and max
 * (nearest rank).  A group's metric is a difference when:
 *   one run a side: its p50 or p95 differs by at least `ratio` (either
 *     way) and by at least `min_ns`;
 *   several runs a side: a Mann-Whitney rank test of the runs' p50s (and
 *     of their p95s) rejects "the same distribution" at family-wise
 *     level `alpha` (Holm's correction over every test made), the
 *     medians of the runs' values differ by at least `effect` (either
 *     way) and by at least `min_ns_runs`.  A group needs 3 runs a side.
 */
enum weft_diff_metric {
	WEFT_DIFF_LIFETIME,
	WEFT_DIFF_RUNNING,
	WEFT_DIFF_WAITED,
	WEFT_DIFF_METRICS
};

struct weft_diff_threshold {
	double ratio;	     /* one run a side (1.5) */
	int64_t min_ns;	     /* one run a side (100 us) */
	double alpha;	     /* several runs a side (0.01) */
	double effect;	     /* several runs a side (1.1) */
	int64_t min_ns_runs; /* several runs a side (1 us) */
};

#define WEFT_DIFF_THRESHOLD_DEFAULT                                            \
	{                                                                      \
		1.5, 100000, 0.01, 1.1, 1000                                   \
	}

struct weft_diff_row {
	char *key;  /* the group's key text */
	int metric; /* enum weft_diff_metric */
	/* Per side: with one run, the run's figures; with several, the
	 * median over the runs of each run's figure (count: the mean). */
	double count[2];
	int64_t p50[2], p95[2], max[2];
	int stat;	  /* what differs: 0 p50, 1 p95 */
	double ratio;	  /* side 1 / side 0 of that statistic */
	double p;	  /* several runs: the test's p (before Holm's
			       correction); one run: -1 */
	uint32_t runs[2]; /* runs a side in which the group has a value */
};

struct weft_diff_timing {
	struct weft_diff_row *rows; /* the differences, largest change
				       first */
	uint32_t nrows;
	uint32_t groups; /* groups found in both sides */
	uint32_t tests;	 /* comparisons made */
	uint32_t runs[2];
};

/* Compares the runs a[0..na) with b[0..nb) (na, nb >= 1; `th` NULL: the
 * defaults).  *out is freed with weft_diff_timing_free. */
WEFT_API int weft_diff_timing(const struct weft_model *const *a, uint32_t na,
			      const struct weft_model *const *b, uint32_t nb,
			      int key, const struct weft_diff_threshold *th,
			      struct weft_diff_timing **out);
WEFT_API void weft_diff_timing_free(struct weft_diff_timing *t);

/* "lifetime", "running", "waited". */
WEFT_API const char *weft_diff_metric_name(int metric);

/* The two-sided p of the Mann-Whitney U test of x[0..n) against
 * y[0..m) (exact with no ties and n + m <= 40, else the normal
 * approximation with a continuity and a ties correction); 1 when n or m
 * is 0. */
WEFT_API double weft_mann_whitney(const double *x, uint32_t n, const double *y,
				  uint32_t m);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_DIFF_H */
