/* SPDX-License-Identifier: MIT */
/*
 * query.c - the database of `weft query` (query.h): SQLite in memory, the
 * virtual tables (tables.c), a few functions, the standard views, and
 * the guards that keep it read-only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "common/grow.h"

/* ---- functions ---- */

/* percentile_nr(x, q): the nearest-rank percentile of the non-null x
 * (q in 0..1), as `weft stats` computes its p50, p90, p99: the value of
 * rank ceil(q * n) (at least 1) in ascending order.  p50(x), p90(x),
 * p99(x) are the same with q fixed. */
struct pct {
	int64_t *v;
	uint32_t n, cap;
	double q;
	int bad;
};

static void pct_step(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	struct pct *p = sqlite3_aggregate_context(c, sizeof *p);
	if (!p)
		return;
	if (argc > 1) {
		double q = sqlite3_value_double(argv[1]);
		if (sqlite3_value_numeric_type(argv[1]) != SQLITE_INTEGER &&
		    sqlite3_value_numeric_type(argv[1]) != SQLITE_FLOAT)
			q = -1;
		if (!(q >= 0 && q <= 1))
			p->bad = 1;
		p->q = q;
	} else {
		p->q = *(const double *)sqlite3_user_data(c);
	}
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (weft__grow32(&p->v, &p->cap, (size_t)p->n + 1, sizeof *p->v, 64)) {
		sqlite3_result_error_nomem(c);
		return;
	}
	p->v[p->n++] = sqlite3_value_int64(argv[0]);
}

/* The k-th smallest of v[0..n) (k from 0), found without sorting:
 * quickselect, pivots from a fixed sequence of pseudo-random positions
 * (no input makes it quadratic but by chance), three-way partitions (a
 * column of equal values is one step).  Reorders v. */
int64_t wq_select_kth(int64_t *v, uint32_t n, uint32_t k)
{
	uint32_t lo = 0, hi = n; /* k within [lo, hi) */
	uint64_t x = 0x9e3779b97f4a7c15u;
	while (hi - lo > 1) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		int64_t p = v[lo + x % (hi - lo)];
		/* [lo, a): < p; [a, i): == p; [b, hi): > p */
		uint32_t a = lo, i = lo, b = hi;
		while (i < b) {
			int64_t e = v[i];
			if (e < p) {
				v[i++] = v[a];
				v[a++] = e;
			} else if (e > p) {
				v[i] = v[--b];
				v[b] = e;
			} else {
				i++;
			}
		}
		if (k < a)
			hi = a;
		else if (k >= b)
			lo = b;
		else
			return p;
	}
	return v[k];
}

/* The rank (from 0) of quantile q of n values, as weft_stats_compute
 * takes it. */
static uint32_t rank_of(uint32_t n, double q)
{
	uint32_t k = (uint32_t)(q * n + 0.999999);
	if (k > n)
		k = n;
	return (k ? k : 1) - 1;
}

int64_t wq_percentile(int64_t *v, uint32_t n, double q)
{
	return wq_select_kth(v, n, rank_of(n, q));
}

void wq_quantiles(int64_t *v, uint32_t n, int64_t out[4])
{
	/* A selection leaves v partitioned at its rank: each smaller rank
	 * is found among the values before it, the largest after it. */
	uint32_t k99 = rank_of(n, 0.99), k90 = rank_of(n, 0.90),
		 k50 = rank_of(n, 0.50);
	out[2] = wq_select_kth(v, n, k99);
	out[1] = wq_select_kth(v, k99 + 1, k90);
	out[0] = wq_select_kth(v, k90 + 1, k50);
	int64_t max = out[2];
	for (uint32_t i = k99 + 1; i < n; i++)
		if (v[i] > max)
			max = v[i];
	out[3] = max;
}

static void pct_final(sqlite3_context *c)
{
	struct pct *p = sqlite3_aggregate_context(c, 0);
	if (!p) {
		sqlite3_result_null(c);
		return;
	}
	if (p->bad) {
		sqlite3_result_error(c,
				     "percentile_nr: the fraction must be "
				     "within 0 and 1 (0.99 for p99)",
				     -1);
	} else if (!p->n) {
		sqlite3_result_null(c);
	} else {
		sqlite3_result_int64(c, wq_percentile(p->v, p->n, p->q));
	}
	free(p->v);
}

static const double q50 = 0.50, q90 = 0.90, q99 = 0.99;

static void f_hex(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
		sqlite3_result_null(c);
		return;
	}
	char buf[24];
	snprintf(buf, sizeof buf, "0x%" PRIx64,
		 (uint64_t)sqlite3_value_int64(argv[0]));
	sqlite3_result_text(c, buf, -1, SQLITE_TRANSIENT);
}

static void f_ms(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		sqlite3_result_null(c);
	else
		sqlite3_result_double(c, sqlite3_value_double(argv[0]) / 1e6);
}

static void f_visited(sqlite3_context *c, int argc, sqlite3_value **argv)
{
	(void)argc;
	struct weft_query *q = sqlite3_user_data(c);
	const char *t = (const char *)sqlite3_value_text(argv[0]);
	int64_t v = t ? wq_visited(q, t) : -1;
	if (v < 0)
		sqlite3_result_error(c, "rows_visited: no such table", -1);
	else
		sqlite3_result_int64(c, v);
}

/* ---- the standard views (docs/query.md) ---- */

const char *const weft_query_views[] = {
	/* every async thread but the OS threads, with its latency */
	"CREATE VIEW requests AS SELECT thread, id, kind, label, title, "
	"created, ended, lifetime AS latency, running, \"end\", message, "
	"creator, process FROM threads WHERE NOT root",

	"CREATE VIEW slowest_requests AS SELECT * FROM requests WHERE "
	"latency IS NOT NULL ORDER BY latency DESC, thread",

	/* what `weft stats` shows by kind and by label */
	"CREATE VIEW latency_by_kind AS SELECT kind, count(*) AS count, "
	"sum(\"end\" = 'pending') AS pending, sum(\"end\" = 'failed') AS "
	"failed, p50(latency) AS p50, p90(latency) AS p90, p99(latency) AS "
	"p99, max(latency) AS max, p50(running) AS run_p50, p90(running) AS "
	"run_p90, p99(running) AS run_p99, max(running) AS run_max FROM "
	"requests GROUP BY kind ORDER BY count DESC, kind",

	"CREATE VIEW latency_by_label AS SELECT coalesce(label, '') AS label, "
	"count(*) AS count, sum(\"end\" = 'pending') AS pending, "
	"sum(\"end\" = 'failed') AS failed, p50(latency) AS p50, "
	"p90(latency) AS p90, p99(latency) AS p99, max(latency) AS max, "
	"p50(running) AS run_p50, p90(running) AS run_p90, p99(running) AS "
	"run_p99, max(running) AS run_max FROM requests GROUP BY "
	"coalesce(label, '') ORDER BY count DESC, 1",

	/* waits, by the thread waited on and by its kind */
	"CREATE VIEW waits_by_target AS SELECT w.on_thread AS thread, t.kind "
	"AS kind, t.title AS title, count(*) AS waits, sum(w.dur) AS total, "
	"max(w.dur) AS longest, sum(w.how = 'at_end') AS at_end FROM waits w "
	"JOIN threads t ON t.thread = w.on_thread GROUP BY w.on_thread ORDER "
	"BY total DESC, w.on_thread",

	"CREATE VIEW waits_by_kind AS SELECT t.kind AS kind, count(*) AS "
	"waits, sum(w.dur) AS total, p50(w.dur) AS p50, p99(w.dur) AS p99, "
	"max(w.dur) AS longest FROM waits w JOIN threads t ON t.thread = "
	"w.on_thread GROUP BY t.kind ORDER BY total DESC, kind",

	/* a loop's phases as `weft stats` groups them */
	"CREATE VIEW phase_stats AS SELECT os_thread, name, count(*) AS "
	"count, sum(dur) AS total, p50(dur) AS p50, p90(dur) AS p90, "
	"p99(dur) AS p99, max(dur) AS max, min(t0) AS first FROM loop_phases "
	"GROUP BY os_thread, name ORDER BY os_thread, first",

	/* an iteration begins each time a loop enters the phase it entered
	 * first */
	"CREATE VIEW loop_iterations AS WITH f AS (SELECT os_thread, name "
	"FROM (SELECT os_thread, name, row_number() OVER (PARTITION BY "
	"os_thread ORDER BY t0, phase) AS k FROM loop_phases) WHERE k = 1), "
	"p AS (SELECT ph.os_thread AS os_thread, ph.t0 AS t0, ph.t1 AS t1, "
	"sum(ph.name = f.name) OVER (PARTITION BY ph.os_thread ORDER BY "
	"ph.t0, ph.phase ROWS UNBOUNDED PRECEDING) AS iteration FROM "
	"loop_phases ph JOIN f ON f.os_thread = ph.os_thread), i AS (SELECT "
	"os_thread, iteration, min(t0) AS t0, max(t1) AS t1, count(*) AS "
	"phases FROM p GROUP BY os_thread, iteration) SELECT i.os_thread AS "
	"os_thread, i.iteration AS iteration, i.t0 AS t0, i.t1 AS t1, i.t1 - "
	"i.t0 AS dur, i.phases AS phases, r.run AS longest_run, r.thread AS "
	"longest_thread, r.dur AS longest_dur FROM i LEFT JOIN runs r ON "
	"r.run = (SELECT x.run FROM runs x WHERE x.os_thread = i.os_thread "
	"AND x.t0 >= i.t0 AND x.t0 < i.t1 ORDER BY x.dur DESC, x.t0 LIMIT 1)",

	/* per process: its threads, its OS threads, how it ended */
	"CREATE VIEW process_summary AS SELECT p.process AS process, p.pid AS "
	"pid, p.comm AS comm, p.\"end\" AS \"end\", p.status AS status, "
	"(SELECT count(*) FROM os_threads o WHERE o.process = p.process) AS "
	"os_threads, (SELECT count(*) FROM requests r WHERE r.process = "
	"p.process) AS threads, (SELECT count(*) FROM requests r WHERE "
	"r.process = p.process AND r.\"end\" = 'pending') AS pending, "
	"(SELECT count(*) FROM requests r WHERE r.process = p.process AND "
	"r.\"end\" = 'failed') AS failed, (SELECT sum(busy) FROM os_threads o "
	"WHERE o.process = p.process) AS busy, (SELECT sum(idle) FROM "
	"os_threads o WHERE o.process = p.process) AS idle FROM processes p",

	/* the faults `weft why` reports */
	"CREATE VIEW faults AS SELECT v.thread AS thread, t.title AS title, "
	"v.verdict AS verdict, v.blocker AS blocker, b.title AS "
	"blocker_title, v.chain_length AS chain_length FROM verdicts v JOIN "
	"threads t ON t.thread = v.thread LEFT JOIN threads b ON b.thread = "
	"v.blocker WHERE v.fault AND v.should_resolve",
	NULL,
};

/* ---- guards ---- */

/* After the setup, reading only: SELECT, and the pragmas that describe
 * the schema.  No ATTACH (a file on disk), no writes (none could reach
 * a file, but a query that tries is said to be wrong), no functions but
 * SQLite's own and ours (load_extension is off anyway). */
static int authorize(void *ctx, int action, const char *a, const char *b,
		     const char *db, const char *trigger)
{
	struct weft_query *q = ctx;
	(void)b;
	(void)db;
	(void)trigger;
	if (q->declaring) /* a table declaring its columns (tables.c) */
		return SQLITE_OK;
	switch (action) {
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_FUNCTION:
	case SQLITE_RECURSIVE:
		return SQLITE_OK;
	case SQLITE_UPDATE:
		/* what sqlite3_declare_vtab() asks when an eponymous table
		 * (pragma_table_xinfo) declares its columns; a statement that
		 * tries it is refused anyway: sqlite_master is read-only
		 * (SQLITE_DBCONFIG_DEFENSIVE) and weft query runs read-only
		 * statements only */
		return a && !strcmp(a, "sqlite_master") ? SQLITE_OK
							: SQLITE_DENY;
	case SQLITE_PRAGMA:
		if (a &&
		    (!strcmp(a, "table_info") || !strcmp(a, "table_xinfo") ||
		     !strcmp(a, "table_list") || !strcmp(a, "function_list") ||
		     !strcmp(a, "module_list")))
			return SQLITE_OK;
		return SQLITE_DENY;
	}
	return SQLITE_DENY;
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Every few thousand instructions of a statement: stop it when asked
 * (Ctrl-C) or past the deadline. */
static int progress(void *ctx)
{
	struct weft_query *q = ctx;
	if (q->interrupted) {
		q->stopped = 1;
		return 1;
	}
	if (q->deadline && mono_ns() > q->deadline) {
		q->stopped = 2;
		return 1;
	}
	return 0;
}

void weft_query_interrupt(struct weft_query *q)
{
	q->interrupted = 1;
	sqlite3_interrupt(q->db);
}

void weft_query_deadline(struct weft_query *q, int64_t ns)
{
	q->interrupted = 0;
	q->stopped = 0;
	q->deadline = ns;
}

int weft_query_stopped(struct weft_query *q)
{
	if (q->interrupted)
		return 1;
	return q->stopped;
}

/* ---- open, close ---- */

sqlite3 *weft_query_db(struct weft_query *q)
{
	return q->db;
}

int64_t weft_query_visited(struct weft_query *q, const char *table)
{
	return wq_visited(q, table);
}

static int open_db(struct weft_query *q, char *err, size_t cap);

int weft_query_open(struct weft_query **out, const struct weft_model *m,
		    struct weft_reader *r, char *err, size_t cap)
{
	*out = NULL;
	struct weft_query *q = calloc(1, sizeof *q);
	if (!q)
		return -ENOMEM;
	q->m = m;
	int64_t t1;
	weft_model_range(m, &q->origin, &t1);
	q->have_origin = 1;
	q->r = r;
	int rc = open_db(q, err, cap);
	if (!rc)
		*out = q;
	return rc;
}

int weft_query_open_lazy(struct weft_query **out,
			 const struct weft_query_source *src, char *err,
			 size_t cap)
{
	*out = NULL;
	if (!src || !src->load_model) {
		snprintf(err, cap, "no way to read the trace");
		return -EINVAL;
	}
	struct weft_query *q = calloc(1, sizeof *q);
	if (!q)
		return -ENOMEM;
	q->src = *src;
	int rc = open_db(q, err, cap);
	if (!rc)
		*out = q;
	return rc;
}

int weft_query_threads_source(struct weft_query *q)
{
	if (q->ix)
		return 2;
	return q->tab[0].ready || q->threads_read ? 1 : 0;
}

int weft_query_model_loaded(struct weft_query *q)
{
	return q->m != NULL;
}

/* The database, its functions and views (q freed on an error). */
static int open_db(struct weft_query *q, char *err, size_t cap)
{
	int rc = sqlite3_open_v2(":memory:", &q->db,
				 SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY |
					 SQLITE_OPEN_NOMUTEX,
				 NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, cap, "cannot open SQLite: %s",
			 q->db ? sqlite3_errmsg(q->db) : sqlite3_errstr(rc));
		weft_query_close(q);
		return -ENOMEM;
	}
	/* No extensions, no writing the schema, temporary tables in
	 * memory, no ATTACH at all. */
	sqlite3_db_config(q->db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0,
			  NULL);
	sqlite3_db_config(q->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(q->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_limit(q->db, SQLITE_LIMIT_ATTACHED, 0);
	static const struct {
		const char *name;
		int n;
		const double *q;
	} pf[] = {{"percentile_nr", 2, NULL},
		  {"p50", 1, &q50},
		  {"p90", 1, &q90},
		  {"p99", 1, &q99}};
	rc = sqlite3_exec(q->db, "PRAGMA temp_store = MEMORY", NULL, NULL,
			  NULL);
	if (rc == SQLITE_OK)
		rc = wq_register_tables(q);
	for (size_t i = 0; rc == SQLITE_OK && i < sizeof pf / sizeof pf[0]; i++)
		rc = sqlite3_create_function(q->db, pf[i].name, pf[i].n,
					     SQLITE_UTF8 | SQLITE_INNOCUOUS,
					     (void *)pf[i].q, NULL, pct_step,
					     pct_final);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(
			q->db, "hex_id", 1,
			SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
			NULL, f_hex, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(
			q->db, "ms", 1,
			SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
			NULL, f_ms, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_create_function(q->db, "rows_visited", 1,
					     SQLITE_UTF8, q, f_visited, NULL,
					     NULL);
	/* (latency_by_kind and latency_by_label are tables computed in C:
	 * their views' rows, tables.c) */
	for (int i = 0; rc == SQLITE_OK && weft_query_views[i]; i++)
		if (strncmp(weft_query_views[i], "CREATE VIEW latency_by_kind ",
			    28) &&
		    strncmp(weft_query_views[i],
			    "CREATE VIEW latency_by_label ", 29))
			rc = sqlite3_exec(q->db, weft_query_views[i], NULL,
					  NULL, NULL);
	if (rc != SQLITE_OK) {
		snprintf(err, cap, "cannot set up the tables: %s",
			 sqlite3_errmsg(q->db));
		weft_query_close(q);
		return -EINVAL;
	}
	sqlite3_set_authorizer(q->db, authorize, q);
	sqlite3_progress_handler(q->db, 1000, progress, q);
	return 0;
}

void weft_query_close(struct weft_query *q)
{
	if (!q)
		return;
	sqlite3_close(q->db);
	wq_free_tables(q);
	free(q);
}
