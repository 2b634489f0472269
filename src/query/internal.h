/* SPDX-License-Identifier: MIT */
/* internal.h - what query.c and tables.c share. */
#ifndef WEFT_QUERY_INTERNAL_H
#define WEFT_QUERY_INTERNAL_H

#include <signal.h>

#include "query.h"
#include "weft/index.h"
#include "weft/path.h"

#define WQ_MAX_TABLES 24
#define WQ_MAX_REFS 3

/* What a table built on first use: its rows in key order, the spread of
 * its intervals, its per-reference indexes; and what its cursors
 * visited. */
struct wq_table {
	int ready;
	uint32_t n;
	uint32_t *perm; /* rows by key (NULL: already in key order) */
	int64_t mindur, maxdur;
	uint32_t *ref_off[WQ_MAX_REFS]; /* CSR by referenced index */
	uint32_t *ref_rows[WQ_MAX_REFS];
	uint32_t ref_n[WQ_MAX_REFS];
	uint32_t *idperm;   /* rows by id (tables with one) */
	uint32_t *nameperm; /* rows by name (tables with one: .namecol) */
	int64_t visited;
};

struct wq_wait {
	int64_t t0, dur;
	uint32_t waiter, on, arrow;
	uint8_t how; /* enum weft_wait_end */
};

struct weft_query {
	sqlite3 *db;
	const struct weft_model *m;
	struct weft_reader *r;
	/* lazy sources (weft_query_open_lazy): the model and reader are
	 * loaded on first need; threads may be read from an index */
	struct weft_query_source src;
	const struct weft_index *ix;	      /* threads from it when set */
	const struct weft_index_thread *ixth; /* ix's threads */
	int threads_read; /* threads' rows read without its table's order */
	int index_tried, model_err, have_origin;
	/* the trace's first event on the model's axis: every time a table
	 * shows or a constraint gives counts from it, as every time weft
	 * prints does (docs/weft.1, TIMES) */
	int64_t origin;
	struct wq_table tab[WQ_MAX_TABLES];
	/* built on first use */
	int64_t *running; /* per thread: the sum of its runs */
	uint32_t *nonroot, nnonroot;
	uint64_t *samples_at; /* per counter: its first sample's row */
	uint32_t ncounters;
	uint64_t nsamples;
	struct wq_wait *waits;
	uint32_t nwaits;
	int waits_ready;
	struct weft_why_index *why;
	uint32_t why_thread; /* the verdict cached */
	struct weft_why why_last;
	struct weft_path_index *path;
	int declaring; /* a table declares its columns */
	/* stopping */
	volatile sig_atomic_t interrupted;
	int64_t deadline;
	int stopped;
};

int wq_register_tables(struct weft_query *q);
/* The model (and reader), loaded now if it was not: 0 or a negative
 * code. */
int wq_need_model(struct weft_query *q);
/* The k-th smallest of v[0..n) (reorders v); the nearest-rank
 * percentile q (0..1) of v as percentile_nr() and `weft stats` take it
 * (n > 0). */
int64_t wq_select_kth(int64_t *v, uint32_t n, uint32_t k);
int64_t wq_percentile(int64_t *v, uint32_t n, double q);
/* p50, p90, p99 and the largest of v[0..n) (n > 0), as wq_percentile
 * gives each, in one partition of v (reordered). */
void wq_quantiles(int64_t *v, uint32_t n, int64_t out[4]);
void wq_free_tables(struct weft_query *q);
int64_t wq_visited(struct weft_query *q, const char *name);

#endif
