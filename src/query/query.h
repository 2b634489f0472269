/* SPDX-License-Identifier: MIT */
/*
 * query.h - SQL over a weft model (`weft query`; docs/query.md): an
 * in-memory SQLite database whose tables are virtual tables over the
 * model and the reader (no copy: each table walks the model's arrays, and
 * constraints on time and on ids are pushed down to binary searches and
 * per-thread indexes built on first use), table-valued functions over the
 * library's analyses (chain, critical path, why), and a standard library
 * of views.  Read-only: an authorizer admits reading statements only, no
 * ATTACH, no extension loading, temporary storage in memory.
 *
 * Not part of libweft-read (which does not depend on SQLite): a static
 * library that the weft command and the tests link.
 */
#ifndef WEFT_QUERY_H
#define WEFT_QUERY_H

#include <sqlite3.h>
#include <stdint.h>

#include "weft/model.h"

struct weft_query;

/* A database over model `m` (loaded from reader `r`; both must outlive
 * it).  0, or a negative code with a message in err. */
int weft_query_open(struct weft_query **out, const struct weft_model *m,
		    struct weft_reader *r, char *err, size_t cap);
void weft_query_close(struct weft_query *q);
/*
 * Where the tables come from when no model is given up front
 * (weft_query_open_lazy): load_model() gives the model and its reader
 * on first need (every table but threads, a column of threads the index
 * lacks, a table-valued function); load_index() (optional) is asked
 * once, when threads is first needed and no model is loaded yet, for an
 * index of the trace checked fresh (weft_index_open()), or NULL: with
 * one, threads and the views over it only (requests, latency_by_kind,
 * ...) are read from the index's thread table (the same rows in the
 * same order) and the trace is not read at all.  Both return 0 or a
 * negative code; what they give must outlive the query.
 */
struct weft_index;
struct weft_query_source {
	int (*load_model)(void *ctx, const struct weft_model **m,
			  struct weft_reader **r);
	int (*load_index)(void *ctx, const struct weft_index **ix);
	void *ctx;
};
int weft_query_open_lazy(struct weft_query **out,
			 const struct weft_query_source *src, char *err,
			 size_t cap);
/* Where threads' rows came from so far: 0 nowhere yet, 1 the model, 2
 * the index; and whether the model was loaded. */
int weft_query_threads_source(struct weft_query *q);
int weft_query_model_loaded(struct weft_query *q);

sqlite3 *weft_query_db(struct weft_query *q);

/* Rows a table's cursors stepped over so far (the test of pushdown), -1
 * for no such table. */
int64_t weft_query_visited(struct weft_query *q, const char *table);

/* Stops the statement running now and any later one (async-signal-safe:
 * a flag and sqlite3_interrupt()); and, before a statement, its deadline
 * in ns of CLOCK_MONOTONIC (0: none; this also forgets an earlier
 * interruption). */
void weft_query_interrupt(struct weft_query *q);
void weft_query_deadline(struct weft_query *q, int64_t mono_ns);
/* Whether the last statement was stopped: 1 interrupted, 2 timed out. */
int weft_query_stopped(struct weft_query *q);

/* The names of the tables (i = 0, 1, ...; NULL after the last), then
 * of the table-valued functions (`.schema`). */
const char *weft_query_table(int i);
const char *weft_query_function(int i);

/* The standard views, as SQL (for the docs and `.views`). */
extern const char *const weft_query_views[];

#endif
