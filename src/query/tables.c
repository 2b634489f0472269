/* SPDX-License-Identifier: MIT */
/*
 * tables.c - the virtual tables of `weft query` (docs/query.md): each a
 * view of one of the model's arrays (or the reader's), its rows numbered
 * as the model numbers them, read in place.
 *
 * One engine serves them all.  A table says how many rows it has, how to
 * give a column of a row, which column is its time key (and, for an
 * interval, its end) and which columns refer to other rows (a thread, an
 * OS thread, a counter).  xBestIndex picks one plan: a row by its number;
 * the rows that refer to one thing (an index built on first use, in one
 * pass); a time range (a binary search in the rows sorted by key, the
 * order the model keeps them in, or a permutation sorted once when it
 * does not); else every row.  SQLite checks every constraint again
 * (nothing is omitted), so a plan only has to keep every row that may
 * match: pushdown can make a query faster, never different.
 *
 * The table-valued functions (chain, critical_path, pending_at,
 * why_chain) compute their rows in xFilter with the library's analysis.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "common/fnv.h"
#include "common/grow.h"

/* ---- helpers ---- */

static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t s;
	if (__builtin_add_overflow(a, b, &s))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return s;
}

static int64_t sat_sub(int64_t a, int64_t b)
{
	int64_t s;
	if (__builtin_sub_overflow(a, b, &s))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return s;
}

static void res_ref(sqlite3_context *c, uint32_t v)
{
	if (v == WEFT_NONE)
		sqlite3_result_null(c);
	else
		sqlite3_result_int64(c, v);
}

static void res_text(sqlite3_context *c, const char *s)
{
	sqlite3_result_text(c, s, -1, SQLITE_STATIC);
}

/* A time of the model's axis as the tables show it: from the trace's
 * first event (struct weft_query.origin). */
static int64_t qt(const struct weft_query *q, int64_t t)
{
	return t - q->origin; /* (model times are clamped: no overflow) */
}

static void res_time(struct weft_query *q, sqlite3_context *c, int64_t t)
{
	sqlite3_result_int64(c, qt(q, t));
}

/* The arrow kinds as SQL spells them: the enum's names in lower case
 * ("try_read"), from the one table (WEFT_ARROW_MAP). */
#define ARROW_TOKEN(E, name, verb, r, g, b) #E,
static const char *const arrow_enum[] = {WEFT_ARROW_MAP(ARROW_TOKEN)};
static char arrow_tok[WEFT_ARROW_KINDS][16];

static const char *arrow_token(int k)
{
	if (k < 0 || k >= WEFT_ARROW_KINDS)
		return "?";
	if (!arrow_tok[k][0]) {
		const char *s = arrow_enum[k];
		size_t i = 0;
		for (; s[i] && i + 1 < sizeof arrow_tok[k]; i++)
			arrow_tok[k][i] = (char)(s[i] >= 'A' && s[i] <= 'Z'
							 ? s[i] - 'A' + 'a'
							 : s[i]);
		arrow_tok[k][i] = 0;
	}
	return arrow_tok[k];
}

static const char *wait_how(int w)
{
	switch (w) {
	case WEFT_WAIT_ENDED:
		return "ended";
	case WEFT_WAIT_WOKEN:
		return "woken";
	case WEFT_WAIT_AT_END:
		return "at_end";
	}
	return NULL;
}

static const char *proc_end(int e)
{
	switch (e) {
	case WEFT_PROC_RUNNING:
		return "running";
	case WEFT_PROC_EXITED:
		return "exited";
	case WEFT_PROC_SIGNALED:
		return "signaled";
	case WEFT_PROC_EXECED:
		return "execed";
	case WEFT_PROC_VANISHED:
		return "vanished";
	case WEFT_PROC_STOPPED:
		return "stopped";
	}
	return "?";
}

/* ---- the tables ---- */

struct tdef {
	const char *name;
	const char *cols; /* the columns, as CREATE TABLE declares them */
	uint32_t (*count)(struct weft_query *q);
	void (*col)(struct weft_query *q, uint32_t row, int c,
		    sqlite3_context *ctx);
	int key; /* time key's column, or -1 */
	int64_t (*t)(struct weft_query *q, uint32_t row);
	int end; /* an interval's end column, or -1 */
	int64_t (*t1)(struct weft_query *q, uint32_t row);
	int ref[WQ_MAX_REFS]; /* columns that refer to other rows, or -1 */
	uint32_t (*refv)(struct weft_query *q, uint32_t row, int which);
	int (*prepare)(struct weft_query *q); /* before the first use */
	int idcol; /* a column of 64-bit ids to find by equality (0: none) */
	/* a column of interned names (the model's name numbers) whose
	 * order, and GROUP BY, needs no sort (0: none) */
	int namecol;
	uint32_t (*namev)(struct weft_query *q, uint32_t row);
	/* a name's text (NULL: weft_model_name()) */
	const char *(*namet)(struct weft_query *q, uint32_t name);
};

/* threads: from the model, or from the index's thread table (q->ix: the
 * same rows in the same order, its texts the model's; what it lacks,
 * incarnation, title, message and became, from the model, loaded then) */
static const struct weft_index_thread *ix_thread(struct weft_query *q,
						 uint32_t row)
{
	return &q->ixth[row];
}

static uint32_t ix_thread_process(struct weft_query *q, uint32_t row)
{
	uint32_t ns;
	const struct weft_index_stream *st = weft_index_streams(q->ix, &ns);
	uint32_t s = ix_thread(q, row)->stream;
	return s < ns ? st[s].process : WEFT_NONE;
}

static int prep_threads(struct weft_query *q)
{
	if (q->running || q->ix)
		return 0;
	uint32_t nth, nrun;
	weft_model_threads(q->m, &nth);
	const struct weft_run *run = weft_model_runs(q->m, &nrun);
	q->running = calloc((size_t)nth + 1, sizeof *q->running);
	if (!q->running)
		return -ENOMEM;
	for (uint32_t t = 0; t < nth; t++) {
		uint32_t nr;
		const uint32_t *ri = weft_model_thread_runs(q->m, t, &nr);
		int64_t ran = 0;
		for (uint32_t k = 0; k < nr; k++)
			ran = sat_add(ran, run[ri[k]].t1 - run[ri[k]].t0);
		q->running[t] = ran;
	}
	return 0;
}

static uint32_t n_threads(struct weft_query *q)
{
	uint32_t n;
	if (q->ix)
		weft_index_threads(q->ix, &n);
	else
		weft_model_threads(q->m, &n);
	return n;
}

/* What a thread's row says alike from the index and from the model. */
struct thread_facts {
	uint32_t parent, stream, flags;
	int64_t t_create, t_end;
	int end;
};

/* Column c of a thread's row when it is one of those facts: 1, else 0
 * (the id, the texts and the running time: each source's own). */
static int col_thread_facts(struct weft_query *q, const struct thread_facts *t,
			    int c, sqlite3_context *x)
{
	int pending = t->end == WEFT_END_PENDING;
	switch (c) {
	case 6:
		res_ref(x, t->parent);
		break;
	case 7:
		res_time(q, x, t->t_create);
		break;
	case 8:
		if (pending)
			sqlite3_result_null(x);
		else
			res_time(q, x, t->t_end);
		break;
	case 9:
		res_time(q, x, t->t_end);
		break;
	case 10:
		res_text(x, weft_end_name(t->end));
		break;
	case 14:
		res_ref(x, t->stream);
		break;
	case 15:
		sqlite3_result_int(x, !!(t->flags & WEFT_THREAD_ROOT));
		break;
	case 16:
		sqlite3_result_int(x, !!(t->flags & WEFT_THREAD_NO_CREATE));
		break;
	case 17:
		sqlite3_result_int(x,
				   !!(t->flags & WEFT_THREAD_SHOULD_RESOLVE));
		break;
	case 18:
		if (pending)
			sqlite3_result_null(x);
		else
			sqlite3_result_int64(x, t->t_end - t->t_create);
		break;
	default:
		return 0;
	}
	return 1;
}

/* A column of threads from the index: 1, or 0 when the index lacks it
 * (the model has it). */
static int col_threads_ix(struct weft_query *q, uint32_t row, int c,
			  sqlite3_context *x)
{
	const struct weft_index_thread *t = ix_thread(q, row);
	struct thread_facts f = {
		.parent = t->parent,
		.stream = t->stream,
		.flags = t->flags,
		.t_create = t->t_create,
		.t_end = t->t_end,
		.end = t->end,
	};
	if (col_thread_facts(q, &f, c, x))
		return 1;
	uint32_t n;
	switch (c) {
	case 0:
		sqlite3_result_int64(x, row);
		break;
	case 1:
		sqlite3_result_int64(x, (int64_t)t->id);
		break;
	case 3:
		res_text(x, weft_index_string(q->ix, t->kind));
		break;
	case 4:
		if (t->label == WEFT_NONE)
			sqlite3_result_null(x);
		else
			res_text(x, weft_index_string(q->ix, t->label));
		break;
	case 13:
		res_ref(x, ix_thread_process(q, row));
		break;
	case 19:
		sqlite3_result_int64(x,
				     weft_index_thread_running(q->ix, &n)[row]);
		break;
	default:
		return 0;
	}
	return 1;
}

static const char *label_text(struct weft_query *q, uint32_t l)
{
	uint32_t nl;
	const struct weft_label *lab = weft_model_labels(q->m, &nl);
	if (l == WEFT_NONE || l >= nl)
		return NULL;
	return weft_model_string(q->m, lab[l].text);
}

static void col_threads(struct weft_query *q, uint32_t row, int c,
			sqlite3_context *x)
{
	if (q->ix && col_threads_ix(q, row, c, x))
		return;
	int err = wq_need_model(q);
	if (err) {
		sqlite3_result_error(x, "cannot read the trace", -1);
		return;
	}
	uint32_t n;
	const struct weft_thread *t = &weft_model_threads(q->m, &n)[row];
	struct thread_facts f = {
		.parent = t->parent,
		.stream = t->stream,
		.flags = t->flags,
		.t_create = t->t_create,
		.t_end = t->t_end,
		.end = t->end,
	};
	if (col_thread_facts(q, &f, c, x))
		return;
	char buf[256];
	switch (c) {
	case 0:
		sqlite3_result_int64(x, row);
		break;
	case 1:
		sqlite3_result_int64(x, (int64_t)t->id);
		break;
	case 2:
		sqlite3_result_int64(x, t->incarnation);
		break;
	case 3:
		res_text(x, weft_model_name(q->m, t->kind));
		break;
	case 4: {
		const char *s = label_text(q, t->label);
		if (s)
			res_text(x, s);
		else
			sqlite3_result_null(x);
		break;
	}
	case 5:
		weft_model_title(q->m, row, buf, sizeof buf);
		sqlite3_result_text(x, buf, -1, SQLITE_TRANSIENT);
		break;
	case 11:
		if (t->message == WEFT_NONE)
			sqlite3_result_null(x);
		else
			res_text(x, weft_model_string(q->m, t->message));
		break;
	case 12:
		res_ref(x, t->became);
		break;
	case 13:
		res_ref(x, weft_model_thread_process(q->m, row));
		break;
	case 19:
		sqlite3_result_int64(x, q->running[row]);
		break;
	}
}

static int64_t t_threads(struct weft_query *q, uint32_t row)
{
	uint32_t n;
	if (q->ix)
		return qt(q, ix_thread(q, row)->t_create);
	return qt(q, weft_model_threads(q->m, &n)[row].t_create);
}

static uint32_t ref_threads(struct weft_query *q, uint32_t row, int w)
{
	uint32_t n;
	if (q->ix)
		return w == 0 ? ix_thread(q, row)->parent
			      : ix_thread_process(q, row);
	const struct weft_thread *t = &weft_model_threads(q->m, &n)[row];
	return w == 0 ? t->parent : weft_model_thread_process(q->m, row);
}

static uint32_t kind_threads(struct weft_query *q, uint32_t row)
{
	uint32_t n;
	if (q->ix)
		return ix_thread(q, row)->kind;
	return weft_model_threads(q->m, &n)[row].kind;
}

static const char *kind_text(struct weft_query *q, uint32_t name)
{
	if (q->ix)
		return weft_index_string(q->ix, name);
	return weft_model_name(q->m, name);
}

/* runs */
static uint32_t n_runs(struct weft_query *q)
{
	uint32_t n;
	weft_model_runs(q->m, &n);
	return n;
}

static void col_runs(struct weft_query *q, uint32_t row, int c,
		     sqlite3_context *x)
{
	uint32_t n;
	const struct weft_run *r = &weft_model_runs(q->m, &n)[row];
	int64_t v[] = {row,	     r->thread,	   r->stream,
		       qt(q, r->t0), qt(q, r->t1), r->t1 - r->t0};
	sqlite3_result_int64(x, v[c]);
}

static int64_t t_runs(struct weft_query *q, uint32_t row)
{
	uint32_t n;
	return qt(q, weft_model_runs(q->m, &n)[row].t0);
}

static int64_t t1_runs(struct weft_query *q, uint32_t row)
{
	uint32_t n;
	return qt(q, weft_model_runs(q->m, &n)[row].t1);
}

static uint32_t ref_runs(struct weft_query *q, uint32_t row, int w)
{
	uint32_t n;
	const struct weft_run *r = &weft_model_runs(q->m, &n)[row];
	return w == 0 ? r->thread : r->stream;
}

/* arrows */
static uint32_t n_arrows(struct weft_query *q)
{
	uint32_t n;
	weft_model_arrows(q->m, &n);
	return n;
}

static void col_arrows(struct weft_query *q, uint32_t row, int c,
		       sqlite3_context *x)
{
	uint32_t n;
	const struct weft_arrow *a = &weft_model_arrows(q->m, &n)[row];
	switch (c) {
	case 0:
		sqlite3_result_int64(x, row);
		break;
	case 1:
		res_text(x, arrow_token(a->kind));
		break;
	case 2:
		res_text(x, weft_arrow_name(a->kind));
		break;
	case 3:
		res_ref(x, a->from);
		break;
	case 4:
		res_ref(x, a->to);
		break;
	case 5:
		res_time(q, x, a->t);
		break;
	case 6:
		res_time(q, x, weft_model_arrow_sent(q->m, row));
		break;
	case 7:
		res_ref(x, a->stream);
		break;
	case 8:
		sqlite3_result_int(x, !!(a->flags & WEFT_ARROW_FOLLOWED));
		break;
	case 9:
		sqlite3_result_int(x, !!(a->flags & WEFT_ARROW_MESSAGE));
		break;
	}
}

static int64_t t_arrows(struct weft_query *q, uint32_t row)
{
	uint32_t n;
	return qt(q, weft_model_arrows(q->m, &n)[row].t);
}

static uint32_t ref_arrows(struct weft_query *q, uint32_t row, int w)
{
	uint32_t n;
	const struct weft_arrow *a = &weft_model_arrows(q->m, &n)[row];
	return w == 0 ? a->from : w == 1 ? a->to : a->stream;
}

/* waits: every try-read, as weft_model_inspect() measures it */
static int prep_waits(struct weft_query *q)
{
	if (q->waits_ready)
		return 0;
	uint32_t nth, cap = 0;
	const struct weft_thread *th = weft_model_threads(q->m, &nth);
	for (uint32_t t = 0; t < nth; t++) {
		if (th[t].flags & WEFT_THREAD_ROOT)
			continue;
		struct weft_inspect in = {0};
		if (weft_model_inspect(q->m, t, &in))
			return -ENOMEM;
		for (uint32_t i = 0; i < in.n; i++) {
			const struct weft_entry *e = &in.entries[i];
			if (e->kind != WEFT_ENTRY_ARROW || !e->out ||
			    e->wait == WEFT_WAIT_NONE)
				continue;
			if (weft__grow32(&q->waits, &cap, (size_t)q->nwaits + 1,
					 sizeof *q->waits, 256)) {
				weft_inspect_release(&in);
				return -ENOMEM;
			}
			q->waits[q->nwaits++] = (struct wq_wait){
				e->t, e->dur, t, e->other, e->arrow, e->wait};
		}
		weft_inspect_release(&in);
	}
	q->waits_ready = 1;
	return 0;
}

static uint32_t n_waits(struct weft_query *q)
{
	return q->nwaits;
}

static void col_waits(struct weft_query *q, uint32_t row, int c,
		      sqlite3_context *x)
{
	const struct wq_wait *w = &q->waits[row];
	switch (c) {
	case 0:
		sqlite3_result_int64(x, row);
		break;
	case 1:
		sqlite3_result_int64(x, w->waiter);
		break;
	case 2:
		res_ref(x, w->on);
		break;
	case 3:
		res_time(q, x, w->t0);
		break;
	case 4:
		res_time(q, x, sat_add(w->t0, w->dur));
		break;
	case 5:
		sqlite3_result_int64(x, w->dur);
		break;
	case 6:
		res_text(x, wait_how(w->how));
		break;
	case 7:
		res_ref(x, w->arrow);
		break;
	}
}

static int64_t t_waits(struct weft_query *q, uint32_t row)
{
	return qt(q, q->waits[row].t0);
}

static int64_t t1_waits(struct weft_query *q, uint32_t row)
{
	return qt(q, sat_add(q->waits[row].t0, q->waits[row].dur));
}

static uint32_t ref_waits(struct weft_query *q, uint32_t row, int w)
{
	return w == 0 ? q->waits[row].waiter : q->waits[row].on;
}

/* labels (and notes) */
static uint32_t n_labels(struct weft_query *q)
{
	uint32_t n;
	weft_model_labels(q->m, &n);
	return n;
}

static void col_labels(struct weft_query *q, uint32_t row, int c,
		       sqlite3_context *x)
{
	uint32_t n;
	const struct weft_label *l = &weft_model_labels(q->m, &n)[row];
	switch (c) {
	case 0:
		sqlite3_result_int64(x, row);
		break;
	case 1:
		res_ref(x, l->thread);
		break;
	case 2:
		res_time(q, x, l->t);
		break;
	case 3:
		res_text(x, weft_model_string(q->m, l->text));
		break;
	case 4:
		res_text(x, l->kind == WEFT_EV_NOTE ? "note" : "label");
		break;
	case 5:
		res_ref(x, l->prev);
		break;
	}
}

static int64_t t_labels(struct weft_query *q, uint32_t row)
{
	uint32_t n;
	return qt(q, weft_model_labels(q->m, &n)[row].t);
}

static uint32_t ref_labels(struct weft_query *q, uint32_t row, int w)
{
	uint32_t n;
	(void)w;
	return weft_model_labels(q->m, &n)[row].thread;
}

/* counters, and their samples (numbered counter by counter) */
static int prep_samples(struct weft_query *q)
{
	if (q->samples_at)
		return 0;
	uint32_t n;
	const struct weft_counter *c = weft_model_counters(q->m, &n);
	q->samples_at = calloc((size_t)n + 1, sizeof *q->samples_at);
	if (!q->samples_at)
		return -ENOMEM;
	uint64_t s = 0;
	for (uint32_t i = 0; i < n; i++) {
		q->samples_at[i] = s;
		s += c[i].nsamples;
	}
	q->samples_at[n] = s;
	q->ncounters = n;
	q->nsamples = s > UINT32_MAX - 1 ? UINT32_MAX - 1 : s;
	return 0;
}

static uint32_t n_counters(struct weft_query *q)
{
	uint32_t n;
	weft_model_counters(q->m, &n);
	return n;
}

static void col_counters(struct weft_query *q, uint32_t row, int c,
			 sqlite3_context *x)
{
	uint32_t n;
	const struct weft_counter *k = &weft_model_counters(q->m, &n)[row];
	switch (c) {
	case 0:
		sqlite3_result_int64(x, row);
		break;
	case 1:
		res_text(x, weft_model_name(q->m, k->name));
		break;
	case 2:
		sqlite3_result_int64(x, k->nsamples);
		break;
	case 3:
		sqlite3_result_int64(x, k->min);
		break;
	case 4:
		sqlite3_result_int64(x, k->max);
		break;
	case 5:
		if (k->nsamples)
			sqlite3_result_int64(x,
					     k->samples[k->nsamples - 1].value);
		else
			sqlite3_result_null(x);
		break;
	}
}

static uint32_t n_samples(struct weft_query *q)
{
	return (uint32_t)q->nsamples;
}

/* The counter of sample row `row`. */
static uint32_t sample_counter(struct weft_query *q, uint32_t row)
{
	uint32_t lo = 0, hi = q->ncounters;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (q->samples_at[mid] <= row)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static const struct weft_sample *sample(struct weft_query *q, uint32_t row,
					uint32_t *counter)
{
	uint32_t n;
	const struct weft_counter *c = weft_model_counters(q->m, &n);
	uint32_t k = sample_counter(q, row);
	*counter = k;
	return &c[k].samples[row - q->samples_at[k]];
}

static void col_samples(struct weft_query *q, uint32_t row, int c,
			sqlite3_context *x)
{
	uint32_t k, n;
	const struct weft_sample *s = sample(q, row, &k);
	const struct weft_counter *ctr = weft_model_counters(q->m, &n);
	switch (c) {
	case 0:
		sqlite3_result_int64(x, row);
		break;
	case 1:
		sqlite3_result_int64(x, k);
		break;
	case 2:
		res_text(x, weft_model_name(q->m, ctr[k].name));
		break;
	case 3:
		res_time(q, x, s->t);
		break;
	case 4:
		sqlite3_result_int64(x, s->value);
		break;
	}
}

static int64_t t_samples(struct weft_query *q, uint32_t row)
{
	uint32_t k;
	return qt(q, sample(q, row, &k)->t);
}

static uint32_t ref_samples(struct weft_query *q, uint32_t row, int w)
{
	(void)w;
	return sample_counter(q, row);
}

/* intervals: loop_phases, idle, spans, pauses (one layout) */
static const struct weft_interval *ivs(struct weft_query *q, int kind,
				       uint32_t *n)
{
	return weft_model_intervals(q->m, kind, n);
}

#define IV_TABLE(fn, KIND)                                                     \
	static uint32_t n_##fn(struct weft_query *q)                           \
	{                                                                      \
		uint32_t n;                                                    \
		ivs(q, KIND, &n);                                              \
		return n;                                                      \
	}                                                                      \
	static void col_##fn(struct weft_query *q, uint32_t row, int c,        \
			     sqlite3_context *x)                               \
	{                                                                      \
		uint32_t n;                                                    \
		col_iv(q, &ivs(q, KIND, &n)[row], row, c, x);                  \
	}                                                                      \
	static int64_t t_##fn(struct weft_query *q, uint32_t row)              \
	{                                                                      \
		uint32_t n;                                                    \
		return qt(q, ivs(q, KIND, &n)[row].t0);                        \
	}                                                                      \
	static int64_t t1_##fn(struct weft_query *q, uint32_t row)             \
	{                                                                      \
		uint32_t n;                                                    \
		return qt(q, ivs(q, KIND, &n)[row].t1);                        \
	}                                                                      \
	static uint32_t ref_##fn(struct weft_query *q, uint32_t row, int w)    \
	{                                                                      \
		uint32_t n;                                                    \
		const struct weft_interval *v = &ivs(q, KIND, &n)[row];        \
		return w == 0 ? v->stream : v->thread;                         \
	}

static void col_iv(struct weft_query *q, const struct weft_interval *v,
		   uint32_t row, int c, sqlite3_context *x)
{
	switch (c) {
	case 0:
		sqlite3_result_int64(x, row);
		break;
	case 1:
		res_ref(x, v->stream);
		break;
	case 2:
		res_text(x, weft_model_name(q->m, v->name));
		break;
	case 3:
		res_time(q, x, v->t0);
		break;
	case 4:
		res_time(q, x, v->t1);
		break;
	case 5:
		sqlite3_result_int64(x, v->t1 - v->t0);
		break;
	case 6:
		res_ref(x, v->thread);
		break;
	case 7:
		sqlite3_result_int64(x, v->depth);
		break;
	}
}

IV_TABLE(phases, WEFT_INTERVAL_PHASE)
IV_TABLE(idle, WEFT_INTERVAL_IDLE)
IV_TABLE(spans, WEFT_INTERVAL_SPAN)
IV_TABLE(pauses, WEFT_INTERVAL_PAUSE)

/* losses */
static uint32_t n_losses(struct weft_query *q)
{
	uint32_t n;
	weft_model_losses(q->m, &n);
	return n;
}

static void col_losses(struct weft_query *q, uint32_t row, int c,
		       sqlite3_context *x)
{
	uint32_t n;
	const struct weft_loss *l = &weft_model_losses(q->m, &n)[row];
	switch (c) {
	case 0:
		sqlite3_result_int64(x, row);
		break;
	case 1:
		res_ref(x, l->stream);
		break;
	case 2:
		res_time(q, x, l->t);
		break;
	case 3:
		sqlite3_result_int64(x, (int64_t)l->packets);
		break;
	case 4:
		sqlite3_result_int64(x, (int64_t)l->events);
		break;
	case 5:
		sqlite3_result_int(x, !!(l->flags & WEFT_EVF_PARTIAL));
		break;
	}
}

static int64_t t_losses(struct weft_query *q, uint32_t row)
{
	uint32_t n;
	return qt(q, weft_model_losses(q->m, &n)[row].t);
}

static uint32_t ref_losses(struct weft_query *q, uint32_t row, int w)
{
	uint32_t n;
	(void)w;
	return weft_model_losses(q->m, &n)[row].stream;
}

/* os_threads */
static uint32_t n_streams(struct weft_query *q)
{
	uint32_t n;
	weft_model_streams(q->m, &n);
	return n;
}

static void col_streams(struct weft_query *q, uint32_t row, int c,
			sqlite3_context *x)
{
	uint32_t n;
	const struct weft_model_stream *s = &weft_model_streams(q->m, &n)[row];
	switch (c) {
	case 0:
		sqlite3_result_int64(x, row);
		break;
	case 1:
		sqlite3_result_int64(x, s->tid);
		break;
	case 2:
		sqlite3_result_text(x, s->name, -1, SQLITE_TRANSIENT);
		break;
	case 3:
		res_ref(x, s->process);
		break;
	case 4:
		res_ref(x, s->root);
		break;
	case 5:
		sqlite3_result_int64(x, s->busy_ns);
		break;
	case 6:
		sqlite3_result_int64(x, s->idle_ns);
		break;
	}
}

static uint32_t ref_streams(struct weft_query *q, uint32_t row, int w)
{
	uint32_t n;
	(void)w;
	return weft_model_streams(q->m, &n)[row].process;
}

/* processes: the reader's list (the model's numbering is the same) */
static uint32_t n_procs(struct weft_query *q)
{
	uint32_t n, nm;
	weft_reader_processes(q->r, &n);
	weft_model_processes(q->m, &nm);
	return n < nm ? n : nm;
}

static void col_procs(struct weft_query *q, uint32_t row, int c,
		      sqlite3_context *x)
{
	uint32_t n, nh;
	const struct weft_process *p = &weft_reader_processes(q->r, &n)[row];
	const struct weft_host *h = weft_reader_hosts(q->r, &nh);
	char buf[64];
	switch (c) {
	case 0:
		sqlite3_result_int64(x, row);
		break;
	case 1:
		sqlite3_result_int64(x, p->pid);
		break;
	case 2:
		sqlite3_result_int64(x, p->ppid);
		break;
	case 3:
		res_ref(x, p->parent);
		break;
	case 4:
		sqlite3_result_int64(x, p->image);
		break;
	case 5:
		sqlite3_result_text(x, p->comm, -1, SQLITE_TRANSIENT);
		break;
	case 6:
		sqlite3_result_text(x, p->exe ? p->exe : "", -1,
				    SQLITE_TRANSIENT);
		break;
	case 7: {
		sqlite3_str *s = sqlite3_str_new(NULL);
		for (uint32_t i = 0; i < p->argc; i++)
			sqlite3_str_appendf(s, "%s%s", i ? " " : "",
					    p->argv[i]);
		int len = sqlite3_str_length(s);
		char *v = sqlite3_str_finish(s);
		if (v)
			sqlite3_result_text(x, v, len, sqlite3_free);
		else if (len)
			sqlite3_result_error_nomem(x);
		else
			res_text(x, "");
		break;
	}
	case 8:
		if (p->host < nh)
			sqlite3_result_text(x, h[p->host].name, -1,
					    SQLITE_TRANSIENT);
		else
			sqlite3_result_null(x);
		break;
	case 9:
		res_time(q, x, p->t_start);
		break;
	case 10:
		if (p->t_end == INT64_MAX)
			sqlite3_result_null(x);
		else
			res_time(q, x, p->t_end);
		break;
	case 11:
		res_text(x, proc_end(p->end));
		break;
	case 12:
		sqlite3_result_text(x,
				    weft_process_says(p->end, p->status, buf,
						      sizeof buf),
				    -1, SQLITE_TRANSIENT);
		break;
	case 13:
		sqlite3_result_int64(x, p->status);
		break;
	case 14:
		res_ref(x, p->thread ? weft_model_find(q->m, p->thread)
				     : WEFT_NONE);
		break;
	case 15:
		res_ref(x, p->creator ? weft_model_find(q->m, p->creator)
				      : WEFT_NONE);
		break;
	case 16:
		if (p->ring)
			sqlite3_result_text(x, p->ring, -1, SQLITE_TRANSIENT);
		else
			sqlite3_result_null(x);
		break;
	case 17:
		sqlite3_result_int64(x, p->nstreams);
		break;
	}
}

static uint32_t ref_procs(struct weft_query *q, uint32_t row, int w)
{
	uint32_t n;
	(void)w;
	uint32_t p = weft_reader_processes(q->r, &n)[row].parent;
	return p == WEFT_NO_PROCESS ? WEFT_NONE : p;
}

/* verdicts: weft_why() of each async thread (not the OS threads) */
static int prep_verdicts(struct weft_query *q)
{
	if (q->nonroot)
		return 0;
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(q->m, &nth);
	if (!q->why && weft_why_index_new(&q->why, q->m))
		return -ENOMEM;
	q->nonroot = malloc(((size_t)nth + 1) * sizeof *q->nonroot);
	if (!q->nonroot)
		return -ENOMEM;
	for (uint32_t t = 0; t < nth; t++)
		if (!(th[t].flags & WEFT_THREAD_ROOT))
			q->nonroot[q->nnonroot++] = t;
	q->why_thread = WEFT_NONE;
	return 0;
}

static uint32_t n_verdicts(struct weft_query *q)
{
	return q->nnonroot;
}

static const struct weft_why *why_of(struct weft_query *q, uint32_t t)
{
	if (q->why_thread != t) {
		weft_why_at(q->why, t, &q->why_last);
		q->why_thread = t;
	}
	return &q->why_last;
}

static void col_verdicts(struct weft_query *q, uint32_t row, int c,
			 sqlite3_context *x)
{
	uint32_t t = q->nonroot[row], nth;
	const struct weft_thread *th = weft_model_threads(q->m, &nth);
	const struct weft_why *w = why_of(q, t);
	switch (c) {
	case 0:
		sqlite3_result_int64(x, t);
		break;
	case 1:
		res_text(x, weft_verdict_name(w->verdict));
		break;
	case 2:
		sqlite3_result_int(x, WEFT_VERDICT_IS_FAULT(w->verdict));
		break;
	case 3:
		sqlite3_result_int(x, !!(th[t].flags &
					 WEFT_THREAD_SHOULD_RESOLVE));
		break;
	case 4:
		res_ref(x, w->thread);
		break;
	case 5:
		res_ref(x,
			w->nchain ? w->chain[w->nchain - 1].thread : WEFT_NONE);
		break;
	case 6:
		sqlite3_result_int64(x, w->nchain);
		break;
	case 7:
		res_ref(x, w->waiter);
		break;
	case 8:
		if (w->waiter == WEFT_NONE)
			sqlite3_result_null(x);
		else
			res_time(q, x, w->t_wait);
		break;
	case 9:
		res_ref(x, w->evidence);
		break;
	case 10:
		res_ref(x, w->verdict == WEFT_VERDICT_DEADLOCK ? w->cycle
							       : WEFT_NONE);
		break;
	case 11:
		res_ref(x, w->verdict == WEFT_VERDICT_TRUNCATED ? w->loss
								: WEFT_NONE);
		break;
	}
}

static uint32_t ref_verdicts(struct weft_query *q, uint32_t row, int w)
{
	(void)w;
	return q->nonroot[row];
}

/* trace: one row, the reader's description and counts */
static uint32_t n_one(struct weft_query *q)
{
	(void)q;
	return 1;
}

static void col_trace(struct weft_query *q, uint32_t row, int c,
		      sqlite3_context *x)
{
	const struct weft_trace_info *in = weft_reader_info(q->r);
	int64_t t0, t1;
	uint32_t nst, np, nth;
	(void)row;
	weft_model_range(q->m, &t0, &t1);
	weft_model_streams(q->m, &nst);
	const struct weft_thread *th = weft_model_threads(q->m, &nth);
	switch (c) {
	case 0:
		sqlite3_result_int64(x, (int64_t)in->events);
		break;
	case 1:
		res_time(q, x, t0);
		break;
	case 2:
		res_time(q, x, t1);
		break;
	case 3:
		sqlite3_result_int64(x, t1 - t0);
		break;
	case 4: {
		uint32_t k = 0;
		for (uint32_t t = 0; t < nth; t++)
			k += !(th[t].flags & WEFT_THREAD_ROOT);
		sqlite3_result_int64(x, k);
		break;
	}
	case 5:
		sqlite3_result_int64(x, nst);
		break;
	case 6:
		weft_model_processes(q->m, &np);
		sqlite3_result_int64(x, np);
		break;
	case 7:
		sqlite3_result_int64(x, (int64_t)in->losses.packets_lost);
		break;
	case 8:
		sqlite3_result_int64(x, (int64_t)in->losses.packets_torn);
		break;
	case 9:
		sqlite3_result_int64(x, (int64_t)in->losses.packets_corrupt);
		break;
	case 10:
		sqlite3_result_int64(x, (int64_t)in->losses.events_discarded);
		break;
	case 11:
		sqlite3_result_int64(x, (int64_t)in->losses.events_nested);
		break;
	case 12:
		sqlite3_result_int64(x, (int64_t)in->losses.texts_truncated);
		break;
	case 13:
		sqlite3_result_int64(x, (int64_t)in->problems);
		break;
	case 14:
		res_text(x, in->writer == WEFT_WRITER_LIVE	? "live"
			    : in->writer == WEFT_WRITER_STOPPED ? "stopped"
			    : in->writer == WEFT_WRITER_GONE	? "gone"
								: "?");
		break;
	case 15:
		sqlite3_result_text(x, in->uuid_str, -1, SQLITE_TRANSIENT);
		break;
	}
}

/* Each table: .key and .end are column numbers (-1: none), .ref the
 * columns that refer to other rows (-1: none). */
static const struct tdef tables[] = {
	{.name = "threads",
	 .cols = "thread INTEGER, id INTEGER, incarnation INTEGER, kind "
		 "TEXT, label TEXT, title TEXT, creator INTEGER, created "
		 "INTEGER, ended INTEGER, last_seen INTEGER, \"end\" TEXT, "
		 "message TEXT, became INTEGER, process INTEGER, os_thread "
		 "INTEGER, root INTEGER, no_create INTEGER, should_resolve "
		 "INTEGER, lifetime INTEGER, running INTEGER",
	 .count = n_threads,
	 .col = col_threads,
	 .key = 7,
	 .t = t_threads,
	 .end = -1,
	 .ref = {6, 13, -1},
	 .refv = ref_threads,
	 .prepare = prep_threads,
	 .idcol = 1,
	 .namecol = 3,
	 .namev = kind_threads,
	 .namet = kind_text},
	{.name = "runs",
	 .cols = "run INTEGER, thread INTEGER, os_thread INTEGER, t0 "
		 "INTEGER, t1 INTEGER, dur INTEGER",
	 .count = n_runs,
	 .col = col_runs,
	 .key = 3,
	 .t = t_runs,
	 .end = 4,
	 .t1 = t1_runs,
	 .ref = {1, 2, -1},
	 .refv = ref_runs},
	{.name = "arrows",
	 .cols = "arrow INTEGER, kind TEXT, says TEXT, from_thread "
		 "INTEGER, to_thread INTEGER, t INTEGER, sent INTEGER, "
		 "os_thread INTEGER, followed INTEGER, message INTEGER",
	 .count = n_arrows,
	 .col = col_arrows,
	 .key = 5,
	 .t = t_arrows,
	 .end = -1,
	 .ref = {3, 4, 7},
	 .refv = ref_arrows},
	{.name = "waits",
	 .cols = "wait INTEGER, waiter INTEGER, on_thread INTEGER, t0 "
		 "INTEGER, t1 INTEGER, dur INTEGER, how TEXT, arrow "
		 "INTEGER",
	 .count = n_waits,
	 .col = col_waits,
	 .key = 3,
	 .t = t_waits,
	 .end = 4,
	 .t1 = t1_waits,
	 .ref = {1, 2, -1},
	 .refv = ref_waits,
	 .prepare = prep_waits},
	{.name = "labels",
	 .cols = "label INTEGER, thread INTEGER, t INTEGER, text TEXT, "
		 "kind TEXT, prev INTEGER",
	 .count = n_labels,
	 .col = col_labels,
	 .key = 2,
	 .t = t_labels,
	 .end = -1,
	 .ref = {1, -1, -1},
	 .refv = ref_labels},
	{.name = "counters",
	 .cols = "counter INTEGER, name TEXT, samples INTEGER, min "
		 "INTEGER, max INTEGER, last INTEGER",
	 .count = n_counters,
	 .col = col_counters,
	 .key = -1,
	 .end = -1,
	 .ref = {-1, -1, -1}},
	{.name = "samples",
	 .cols = "sample INTEGER, counter INTEGER, name TEXT, t INTEGER, "
		 "value INTEGER",
	 .count = n_samples,
	 .col = col_samples,
	 .key = 3,
	 .t = t_samples,
	 .end = -1,
	 .ref = {1, -1, -1},
	 .refv = ref_samples,
	 .prepare = prep_samples},
	{.name = "loop_phases",
	 .cols = "phase INTEGER, os_thread INTEGER, name TEXT, t0 INTEGER, "
		 "t1 INTEGER, dur INTEGER, loop INTEGER, depth INTEGER "
		 "HIDDEN",
	 .count = n_phases,
	 .col = col_phases,
	 .key = 3,
	 .t = t_phases,
	 .end = 4,
	 .t1 = t1_phases,
	 .ref = {1, 6, -1},
	 .refv = ref_phases},
	{.name = "idle",
	 .cols = "idle INTEGER, os_thread INTEGER, reason TEXT, t0 "
		 "INTEGER, t1 INTEGER, dur INTEGER, thread INTEGER HIDDEN, "
		 "depth INTEGER HIDDEN",
	 .count = n_idle,
	 .col = col_idle,
	 .key = 3,
	 .t = t_idle,
	 .end = 4,
	 .t1 = t1_idle,
	 .ref = {1, -1, -1},
	 .refv = ref_idle},
	{.name = "spans",
	 .cols = "span INTEGER, os_thread INTEGER, name TEXT, t0 INTEGER, "
		 "t1 INTEGER, dur INTEGER, thread INTEGER, depth INTEGER",
	 .count = n_spans,
	 .col = col_spans,
	 .key = 3,
	 .t = t_spans,
	 .end = 4,
	 .t1 = t1_spans,
	 .ref = {1, 6, -1},
	 .refv = ref_spans},
	{.name = "pauses",
	 .cols = "pause INTEGER, os_thread INTEGER, kind TEXT, t0 INTEGER, "
		 "t1 INTEGER, dur INTEGER, thread INTEGER HIDDEN, depth "
		 "INTEGER HIDDEN",
	 .count = n_pauses,
	 .col = col_pauses,
	 .key = 3,
	 .t = t_pauses,
	 .end = 4,
	 .t1 = t1_pauses,
	 .ref = {1, -1, -1},
	 .refv = ref_pauses},
	{.name = "losses",
	 .cols = "loss INTEGER, os_thread INTEGER, t INTEGER, packets "
		 "INTEGER, events INTEGER, partial INTEGER",
	 .count = n_losses,
	 .col = col_losses,
	 .key = 2,
	 .t = t_losses,
	 .end = -1,
	 .ref = {1, -1, -1},
	 .refv = ref_losses},
	{.name = "os_threads",
	 .cols = "os_thread INTEGER, tid INTEGER, name TEXT, process "
		 "INTEGER, root INTEGER, busy INTEGER, idle INTEGER",
	 .count = n_streams,
	 .col = col_streams,
	 .key = -1,
	 .end = -1,
	 .ref = {3, -1, -1},
	 .refv = ref_streams},
	{.name = "processes",
	 .cols = "process INTEGER, pid INTEGER, ppid INTEGER, parent "
		 "INTEGER, image INTEGER, comm TEXT, exe TEXT, args TEXT, "
		 "host TEXT, t_start INTEGER, t_end INTEGER, \"end\" TEXT, "
		 "says TEXT, status INTEGER, thread INTEGER, creator "
		 "INTEGER, ring TEXT, os_threads INTEGER",
	 .count = n_procs,
	 .col = col_procs,
	 .key = -1,
	 .end = -1,
	 .ref = {3, -1, -1},
	 .refv = ref_procs},
	{.name = "verdicts",
	 .cols = "thread INTEGER, verdict TEXT, fault INTEGER, "
		 "should_resolve INTEGER, subject INTEGER, blocker "
		 "INTEGER, chain_length INTEGER, waiter INTEGER, "
		 "waits_since INTEGER, evidence INTEGER, cycle INTEGER, "
		 "loss INTEGER",
	 .count = n_verdicts,
	 .col = col_verdicts,
	 .key = -1,
	 .end = -1,
	 .ref = {0, -1, -1},
	 .refv = ref_verdicts,
	 .prepare = prep_verdicts},
	{.name = "trace",
	 .cols = "events INTEGER, t0 INTEGER, t1 INTEGER, duration "
		 "INTEGER, threads INTEGER, os_threads INTEGER, processes "
		 "INTEGER, packets_lost INTEGER, packets_torn INTEGER, "
		 "packets_corrupt INTEGER, events_discarded INTEGER, "
		 "events_nested INTEGER, texts_truncated INTEGER, problems "
		 "INTEGER, writer TEXT, uuid TEXT",
	 .count = n_one,
	 .col = col_trace,
	 .key = -1,
	 .end = -1,
	 .ref = {-1, -1, -1}},
};
#define NTABLES (sizeof tables / sizeof tables[0])
_Static_assert(NTABLES <= WQ_MAX_TABLES, "WQ_MAX_TABLES");

/* ---- the engine ---- */

struct vt {
	sqlite3_vtab base;
	struct weft_query *q;
	const struct tdef *d;
	struct wq_table *tb;
};

struct cur {
	sqlite3_vtab_cursor base;
	const uint32_t *list; /* rows to visit (NULL: pos itself) */
	uint32_t pos, end;
	int desc; /* list read from its end */
};

static struct vt *vt_of(sqlite3_vtab_cursor *c)
{
	return (struct vt *)c->pVtab;
}

static int64_t key_of(struct vt *v, uint32_t row)
{
	return v->d->t(v->q, row);
}

static int64_t end_of(struct vt *v, uint32_t row)
{
	return v->d->t1 ? v->d->t1(v->q, row) : v->d->t(v->q, row);
}

int wq_need_model(struct weft_query *q)
{
	if (q->m)
		return 0;
	if (q->model_err)
		return q->model_err;
	if (!q->src.load_model)
		return q->model_err = -EINVAL;
	const struct weft_model *m = NULL;
	struct weft_reader *r = NULL;
	int err = q->src.load_model(q->src.ctx, &m, &r);
	if (!err && !m)
		err = -EINVAL;
	if (err)
		return q->model_err = err;
	q->m = m;
	q->r = r;
	if (!q->have_origin) {
		int64_t t1;
		weft_model_range(m, &q->origin, &t1);
		q->have_origin = 1;
	}
	return 0;
}

/* Where threads is read from: the model when it is loaded, else a fresh
 * index when the source gives one (asked once), else the model. */
static int threads_source(struct weft_query *q)
{
	if (q->m || q->ix)
		return 0;
	if (q->src.load_index && !q->index_tried) {
		q->index_tried = 1;
		const struct weft_index *ix = NULL;
		if (!q->src.load_index(q->src.ctx, &ix) && ix) {
			uint32_t n;
			q->ix = ix;
			q->ixth = weft_index_threads(ix, &n);
			if (!q->have_origin) {
				int64_t t1;
				weft_index_range(ix, &q->origin, &t1);
				q->have_origin = 1;
			}
			return 0;
		}
	}
	return wq_need_model(q);
}

/* Rows sorted by key (a permutation when the model's order is not), the
 * spread of durations; on first use. */
static int table_ready(struct vt *v)
{
	struct wq_table *tb = v->tb;
	if (tb->ready)
		return 0;
	int err = v->d == &tables[0] ? threads_source(v->q)
				     : wq_need_model(v->q);
	if (err)
		return err;
	if (v->d->prepare && (err = v->d->prepare(v->q)))
		return err;
	tb->n = v->d->count(v->q);
	tb->mindur = tb->maxdur = 0;
	if (v->d->t) {
		int sorted = 1;
		for (uint32_t i = 0; i < tb->n; i++) {
			int64_t k = key_of(v, i), d = end_of(v, i) - k;
			if (!i || d < tb->mindur)
				tb->mindur = d;
			if (!i || d > tb->maxdur)
				tb->maxdur = d;
			if (i && k < key_of(v, i - 1))
				sorted = 0;
		}
		if (!sorted) {
			tb->perm =
				malloc(((size_t)tb->n + 1) * sizeof *tb->perm);
			int64_t *k = malloc(((size_t)tb->n + 1) * sizeof *k);
			if (!tb->perm || !k) {
				free(k);
				free(tb->perm);
				tb->perm = NULL;
				return -ENOMEM;
			}
			/* a stable counting of keys is overkill: sort pairs */
			for (uint32_t i = 0; i < tb->n; i++) {
				tb->perm[i] = i;
				k[i] = key_of(v, i);
			}
			/* merge sort of perm by k (stable, no qsort_r state) */
			uint32_t *tmp =
				malloc(((size_t)tb->n + 1) * sizeof *tmp);
			if (!tmp) {
				free(k);
				free(tb->perm);
				tb->perm = NULL;
				return -ENOMEM;
			}
			for (uint32_t w = 1; w < tb->n; w *= 2) {
				for (uint32_t lo = 0; lo < tb->n; lo += 2 * w) {
					uint32_t mid = lo + w < tb->n ? lo + w
								      : tb->n;
					uint32_t hi = mid + w < tb->n ? mid + w
								      : tb->n;
					uint32_t a = lo, b = mid, o = lo;
					while (a < mid && b < hi)
						tmp[o++] =
							k[tb->perm[b]] <
									k[tb->perm[a]]
								? tb->perm[b++]
								: tb->perm[a++];
					while (a < mid)
						tmp[o++] = tb->perm[a++];
					while (b < hi)
						tmp[o++] = tb->perm[b++];
				}
				memcpy(tb->perm, tmp,
				       (size_t)tb->n * sizeof *tmp);
			}
			free(tmp);
			free(k);
		}
	}
	tb->ready = 1;
	return 0;
}

/* table_ready as SQLite hears it: a trace that cannot be read (its
 * reader said why on standard error) is an error, not "out of memory". */
static int ready_rc(struct vt *v)
{
	int err = table_ready(v);
	if (!err)
		return SQLITE_OK;
	if (err == -ENOMEM)
		return SQLITE_NOMEM;
	sqlite3_free(v->base.zErrMsg);
	v->base.zErrMsg = sqlite3_mprintf("cannot read the trace (%s)",
					  weft_strerror(err));
	return SQLITE_ERROR;
}

/* The rows referring to each index by reference column w (CSR), on first
 * use. */
static int refs_ready(struct vt *v, int w)
{
	struct wq_table *tb = v->tb;
	if (tb->ref_off[w])
		return 0;
	uint32_t max = 0;
	for (uint32_t i = 0; i < tb->n; i++) {
		uint32_t r = v->d->refv(v->q, i, w);
		if (r != WEFT_NONE && r + 1 > max)
			max = r + 1;
	}
	uint32_t *off = calloc((size_t)max + 2, sizeof *off);
	uint32_t *rows = malloc(((size_t)tb->n + 1) * sizeof *rows);
	if (!off || !rows) {
		free(off);
		free(rows);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < tb->n; i++) {
		uint32_t r = v->d->refv(v->q, i, w);
		if (r != WEFT_NONE)
			off[r + 2]++;
	}
	for (uint32_t r = 2; r < max + 2; r++)
		off[r] += off[r - 1];
	/* rows in their own order (time order for most tables) */
	for (uint32_t i = 0; i < tb->n; i++) {
		uint32_t r = v->d->refv(v->q, i, w);
		if (r != WEFT_NONE)
			rows[off[r + 1]++] = i;
	}
	tb->ref_off[w] = off;
	tb->ref_rows[w] = rows;
	tb->ref_n[w] = max;
	return 0;
}

/* A row's id (column idcol: only threads has one), as SQLite sees it. */
static int64_t id_of(struct vt *v, uint32_t row)
{
	uint32_t n;
	if (v->q->ix)
		return (int64_t)ix_thread(v->q, row)->id;
	return (int64_t)weft_model_threads(v->q->m, &n)[row].id;
}

static int cmp_id(const void *a, const void *b, void *ctx)
{
	struct vt *v = ctx;
	int64_t x = id_of(v, *(const uint32_t *)a),
		y = id_of(v, *(const uint32_t *)b);
	if (x != y)
		return x < y ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* The rows by id (then by row: incarnations in order), on first use. */
static int ids_ready(struct vt *v)
{
	struct wq_table *tb = v->tb;
	if (tb->idperm)
		return 0;
	tb->idperm = malloc(((size_t)tb->n + 1) * sizeof *tb->idperm);
	if (!tb->idperm)
		return -ENOMEM;
	for (uint32_t i = 0; i < tb->n; i++)
		tb->idperm[i] = i;
	qsort_r(tb->idperm, tb->n, sizeof *tb->idperm, cmp_id, v);
	return 0;
}

/* The rows by the text of their name column, as SQLite orders text
 * (BINARY: bytes, then length), ties by row; on first use.  Without
 * sorting the rows: a table's names are few (a trace's kinds), so the
 * distinct names are sorted, each given its rank (one rank for equal
 * texts under different numbers: the reader names 0 and a number it
 * does not know both "", and a merge is not bound to intern once), and the rows counted out by rank. */
struct name_rank {
	uint32_t name, rank;
	const char *text;
};

static int cmp_name_text(const void *a, const void *b)
{
	const struct name_rank *x = a, *y = b;
	int c = strcmp(x->text, y->text);
	if (c)
		return c;
	return x->name < y->name ? -1 : x->name > y->name;
}

static int cmp_name_num(const void *a, const void *b)
{
	const struct name_rank *x = a, *y = b;
	return x->name < y->name ? -1 : x->name > y->name;
}

static int names_ready(struct vt *v)
{
	struct wq_table *tb = v->tb;
	if (tb->nameperm)
		return 0;
	uint32_t n = tb->n, nd = 0;
	uint32_t *name = malloc(((size_t)n + 1) * sizeof *name);
	struct name_rank *d = malloc(((size_t)n + 1) * sizeof *d);
	uint32_t *rank = malloc(((size_t)n + 1) * sizeof *rank);
	uint32_t *cnt = calloc((size_t)n + 2, sizeof *cnt);
	uint32_t *perm = malloc(((size_t)n + 1) * sizeof *perm);
	int err = -ENOMEM;
	if (!name || !d || !rank || !cnt || !perm)
		goto out;
	/* the distinct names: the rows' names sorted by number, once each
	 * (a row's name is found again by binary search) */
	for (uint32_t i = 0; i < n; i++) {
		name[i] = v->d->namev(v->q, i);
		d[i].name = name[i];
	}
	qsort(d, n, sizeof *d, cmp_name_num);
	for (uint32_t i = 0; i < n; i++)
		if (!nd || d[nd - 1].name != d[i].name)
			d[nd++].name = d[i].name;
	for (uint32_t i = 0; i < nd; i++) {
		const char *t = v->d->namet
					? v->d->namet(v->q, d[i].name)
					: weft_model_name(v->q->m, d[i].name);
		d[i].text = t ? t : "";
	}
	/* their ranks by text */
	qsort(d, nd, sizeof *d, cmp_name_text);
	struct name_rank *byname = malloc(((size_t)nd + 1) * sizeof *byname);
	if (!byname)
		goto out;
	uint32_t r = 0;
	for (uint32_t i = 0; i < nd; i++) {
		if (i && strcmp(d[i].text, d[i - 1].text))
			r++;
		byname[i] = d[i];
		byname[i].rank = r;
	}
	qsort(byname, nd, sizeof *byname, cmp_name_num);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t lo = 0, hi = nd;
		while (hi - lo > 1) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (byname[mid].name <= name[i])
				lo = mid;
			else
				hi = mid;
		}
		rank[i] = byname[lo].rank;
		cnt[rank[i] + 1]++;
	}
	free(byname);
	for (uint32_t k = 1; k <= nd; k++)
		cnt[k] += cnt[k - 1];
	for (uint32_t i = 0; i < n; i++) /* stable: ties by row */
		perm[cnt[rank[i]]++] = i;
	tb->nameperm = perm;
	perm = NULL;
	err = 0;
out:
	free(name);
	free(d);
	free(rank);
	free(cnt);
	free(perm);
	return err;
}

/* Declares a table's columns (the authorizer lets this CREATE TABLE
 * through, and no other), innocuous: reading it has no side effect, so
 * the views may use it. */
static int declare(struct weft_query *q, sqlite3 *db, const char *cols)
{
	char *sql = sqlite3_mprintf("CREATE TABLE x(%s)", cols);
	if (!sql)
		return SQLITE_NOMEM;
	q->declaring = 1;
	int rc = sqlite3_declare_vtab(db, sql);
	q->declaring = 0;
	sqlite3_free(sql);
	if (rc == SQLITE_OK)
		sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	return rc;
}

static int x_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		     sqlite3_vtab **out, char **err)
{
	struct weft_query *q = aux;
	(void)argc;
	const struct tdef *d = NULL;
	for (size_t i = 0; i < NTABLES; i++)
		if (!strcmp(tables[i].name, argv[0]))
			d = &tables[i];
	if (!d) {
		*err = sqlite3_mprintf("no table %s", argv[0]);
		return SQLITE_ERROR;
	}
	int rc = declare(q, db, d->cols);
	if (rc != SQLITE_OK)
		return rc;
	struct vt *v = sqlite3_malloc(sizeof *v);
	if (!v)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof *v);
	v->q = q;
	v->d = d;
	v->tb = &q->tab[d - tables];
	*out = &v->base;
	return SQLITE_OK;
}

static int x_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* Plans (idxNum): 0 every row; 1 the row argv[0]; 2 + w the rows that
 * refer to argv[0] by reference column w; 8 a time range, idxStr naming
 * each argument: 'k' or 'e' (key, end) then the operator. */
enum {
	PLAN_ALL,
	PLAN_ROW,
	PLAN_REF,
	PLAN_RANGE = 8,
	PLAN_ID = 16,
	PLAN_NAMES = 32, /* every row, by name; + 1: descending */
};

static int usable_op(int op)
{
	return op == SQLITE_INDEX_CONSTRAINT_EQ ||
	       op == SQLITE_INDEX_CONSTRAINT_GT ||
	       op == SQLITE_INDEX_CONSTRAINT_GE ||
	       op == SQLITE_INDEX_CONSTRAINT_LT ||
	       op == SQLITE_INDEX_CONSTRAINT_LE;
}

static char op_char(int op)
{
	switch (op) {
	case SQLITE_INDEX_CONSTRAINT_EQ:
		return '=';
	case SQLITE_INDEX_CONSTRAINT_GT:
		return '>';
	case SQLITE_INDEX_CONSTRAINT_GE:
		return 'G';
	case SQLITE_INDEX_CONSTRAINT_LT:
		return '<';
	}
	return 'L';
}

static int x_best_index(sqlite3_vtab *vt, sqlite3_index_info *ix)
{
	struct vt *v = (struct vt *)vt;
	int rc = ready_rc(v);
	if (rc != SQLITE_OK)
		return rc;
	double n = v->tb->n + 1.0;
	int row = -1, ref = -1, refw = -1, id = -1;
	for (int i = 0; i < ix->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &ix->aConstraint[i];
		if (!c->usable || c->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		if (c->iColumn == -1 || c->iColumn == 0) {
			if (v->d->refv && v->d->ref[0] == 0 &&
			    c->iColumn == 0) {
				/* (verdicts: column 0 is a reference) */
				ref = i;
				refw = 0;
			} else {
				row = i;
			}
		}
		for (int w = 0; w < WQ_MAX_REFS; w++)
			if (v->d->ref[w] >= 0 && c->iColumn == v->d->ref[w] &&
			    ref < 0) {
				ref = i;
				refw = w;
			}
	}
	for (int i = 0; v->d->idcol && i < ix->nConstraint; i++)
		if (ix->aConstraint[i].usable &&
		    ix->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_EQ &&
		    ix->aConstraint[i].iColumn == v->d->idcol)
			id = i;
	if (row >= 0) {
		ix->idxNum = PLAN_ROW;
		ix->aConstraintUsage[row].argvIndex = 1;
		ix->estimatedCost = 1;
		ix->estimatedRows = 1;
		ix->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
		return SQLITE_OK;
	}
	if (id >= 0) { /* the incarnations of one id */
		ix->idxNum = PLAN_ID;
		ix->aConstraintUsage[id].argvIndex = 1;
		ix->estimatedCost = 5;
		ix->estimatedRows = 2;
		return SQLITE_OK;
	}
	if (ref >= 0) {
		ix->idxNum = PLAN_REF + refw;
		ix->aConstraintUsage[ref].argvIndex = 1;
		ix->estimatedCost = 10 + n / 100;
		ix->estimatedRows = (sqlite3_int64)(n / 100) + 1;
		return SQLITE_OK;
	}
	char *s = NULL;
	int na = 0, lo = 0, hi = 0;
	if (v->d->key >= 0) {
		s = sqlite3_malloc(2 * ix->nConstraint + 1);
		if (!s)
			return SQLITE_NOMEM;
		for (int i = 0; i < ix->nConstraint; i++) {
			const struct sqlite3_index_constraint *c =
				&ix->aConstraint[i];
			if (!c->usable || !usable_op(c->op))
				continue;
			char which;
			if (c->iColumn == v->d->key)
				which = 'k';
			else if (v->d->end >= 0 && c->iColumn == v->d->end)
				which = 'e';
			else
				continue;
			s[2 * na] = which;
			s[2 * na + 1] = op_char(c->op);
			ix->aConstraintUsage[i].argvIndex = ++na;
			lo |= c->op != SQLITE_INDEX_CONSTRAINT_LT &&
			      c->op != SQLITE_INDEX_CONSTRAINT_LE;
			hi |= c->op != SQLITE_INDEX_CONSTRAINT_GT &&
			      c->op != SQLITE_INDEX_CONSTRAINT_GE;
		}
		s[2 * na] = 0;
	}
	if (na) {
		ix->idxNum = PLAN_RANGE;
		ix->idxStr = s;
		ix->needToFreeIdxStr = 1;
		double share = lo && hi ? 0.05 : 0.4;
		ix->estimatedCost = 20 + n * share;
		ix->estimatedRows = (sqlite3_int64)(n * share) + 1;
	} else {
		sqlite3_free(s);
		ix->idxNum = PLAN_ALL;
		ix->estimatedCost = 100 + n;
		ix->estimatedRows = (sqlite3_int64)n;
	}
	/* Rows come in key order: an ORDER BY the key needs no sort. */
	if (v->d->key >= 0 && ix->idxNum != PLAN_REF && ix->nOrderBy == 1 &&
	    ix->aOrderBy[0].iColumn == v->d->key && !ix->aOrderBy[0].desc &&
	    ix->idxNum != PLAN_ROW)
		ix->orderByConsumed = 1;
	/* Every row by its name column: an ORDER BY or GROUP BY the name
	 * (the views by kind) needs no sort (a GROUP BY only needs equal
	 * names together: sqlite3_vtab_distinct() says 1 or 2; then the
	 * direction does not matter) */
	if (v->d->namecol && ix->idxNum == PLAN_ALL && ix->nOrderBy == 1 &&
	    ix->aOrderBy[0].iColumn == v->d->namecol) {
		ix->idxNum = PLAN_NAMES + (ix->aOrderBy[0].desc &&
					   sqlite3_vtab_distinct(ix) == 0);
		ix->orderByConsumed = 1;
	}
	return SQLITE_OK;
}

static int x_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	(void)vt;
	struct cur *c = sqlite3_malloc(sizeof *c);
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof *c);
	*out = &c->base;
	return SQLITE_OK;
}

static int x_close(sqlite3_vtab_cursor *c)
{
	sqlite3_free(c);
	return SQLITE_OK;
}

/* An integer argument: 1 and *v, or 0 when it is not one (then no plan
 * narrows on it).  A real is rounded outwards by the caller's `up`. */
static int int_arg(sqlite3_value *a, int up, int64_t *v)
{
	int t = sqlite3_value_numeric_type(a);
	if (t == SQLITE_INTEGER) {
		*v = sqlite3_value_int64(a);
		return 1;
	}
	if (t == SQLITE_FLOAT) {
		double d = sqlite3_value_double(a);
		if (isnan(d))
			return 0;
		d = up ? ceil(d) : floor(d);
		if (d >= 9.2e18)
			*v = INT64_MAX;
		else if (d <= -9.2e18)
			*v = INT64_MIN;
		else
			*v = (int64_t)d;
		return 1;
	}
	return 0;
}

/* First position (in key order) whose key is >= k. */
static uint32_t lower(struct vt *v, int64_t k)
{
	uint32_t lo = 0, hi = v->tb->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		uint32_t row = v->tb->perm ? v->tb->perm[mid] : mid;
		if (key_of(v, row) < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int x_filter(sqlite3_vtab_cursor *cc, int plan, const char *s, int argc,
		    sqlite3_value **argv)
{
	struct cur *c = (struct cur *)cc;
	struct vt *v = vt_of(cc);
	struct wq_table *tb = v->tb;
	int rc = ready_rc(v);
	if (rc != SQLITE_OK)
		return rc;
	c->list = tb->perm;
	c->pos = 0;
	c->end = tb->n;
	c->desc = 0;
	if (plan == PLAN_NAMES || plan == PLAN_NAMES + 1) {
		if (names_ready(v))
			return SQLITE_NOMEM;
		c->list = tb->nameperm;
		c->desc = plan == PLAN_NAMES + 1;
		return SQLITE_OK;
	}
	if (plan == PLAN_ID) {
		if (argc < 1 ||
		    sqlite3_value_numeric_type(argv[0]) != SQLITE_INTEGER) {
			c->list = NULL;
			return SQLITE_OK;
		}
		if (ids_ready(v))
			return SQLITE_NOMEM;
		int64_t x = sqlite3_value_int64(argv[0]);
		uint32_t lo = 0, hi = tb->n;
		while (lo < hi) { /* the first id >= x */
			uint32_t mid = lo + (hi - lo) / 2;
			if (id_of(v, tb->idperm[mid]) < x)
				lo = mid + 1;
			else
				hi = mid;
		}
		c->list = tb->idperm;
		c->pos = c->end = lo;
		while (c->end < tb->n && id_of(v, tb->idperm[c->end]) == x)
			c->end++;
		return SQLITE_OK;
	}
	if (plan == PLAN_ROW || (plan >= PLAN_REF && plan < PLAN_RANGE)) {
		int64_t x;
		if (argc < 1 ||
		    sqlite3_value_numeric_type(argv[0]) != SQLITE_INTEGER) {
			/* not an integer: every row, SQLite compares */
			c->list = NULL;
			return SQLITE_OK;
		}
		x = sqlite3_value_int64(argv[0]);
		if (plan == PLAN_ROW) {
			c->list = NULL;
			if (x < 0 || x >= tb->n)
				c->end = 0;
			else
				c->pos = (uint32_t)x, c->end = (uint32_t)x + 1;
			return SQLITE_OK;
		}
		int w = plan - PLAN_REF;
		if (refs_ready(v, w))
			return SQLITE_NOMEM;
		c->list = tb->ref_rows[w];
		if (x < 0 || x >= tb->ref_n[w]) {
			c->end = 0;
		} else {
			c->pos = tb->ref_off[w][x];
			c->end = tb->ref_off[w][x + 1];
		}
		return SQLITE_OK;
	}
	if (plan == PLAN_RANGE) {
		int64_t lo = INT64_MIN, hi = INT64_MAX, x;
		for (int i = 0; i < argc && s[2 * i]; i++) {
			char which = s[2 * i], op = s[2 * i + 1];
			int isend = which == 'e';
			/* an end bound E bounds the key within
			 * [E - maxdur, E - mindur] */
			int64_t dl = isend ? tb->maxdur : 0;
			int64_t dh = isend ? tb->mindur : 0;
			if ((op == '>' || op == 'G' || op == '=') &&
			    int_arg(argv[i], 0, &x)) {
				if (op == '>' && x < INT64_MAX)
					x++;
				x = sat_sub(x, dl);
				if (x > lo)
					lo = x;
			}
			if ((op == '<' || op == 'L' || op == '=') &&
			    int_arg(argv[i], 1, &x)) {
				if (op == '<' && x > INT64_MIN)
					x--;
				x = sat_sub(x, dh);
				if (x < hi)
					hi = x;
			}
		}
		if (lo > hi) {
			c->end = 0;
			return SQLITE_OK;
		}
		c->pos = lower(v, lo);
		c->end = hi == INT64_MAX ? tb->n : lower(v, hi + 1);
		if (c->end < c->pos)
			c->end = c->pos;
	}
	return SQLITE_OK;
}

static int x_next(sqlite3_vtab_cursor *cc)
{
	struct cur *c = (struct cur *)cc;
	c->pos++;
	vt_of(cc)->tb->visited++;
	return SQLITE_OK;
}

static int x_eof(sqlite3_vtab_cursor *cc)
{
	struct cur *c = (struct cur *)cc;
	return c->pos >= c->end;
}

static uint32_t cur_row(struct cur *c)
{
	if (c->desc)
		return c->list[c->end - 1 - c->pos];
	return c->list ? c->list[c->pos] : c->pos;
}

static int x_column(sqlite3_vtab_cursor *cc, sqlite3_context *ctx, int col)
{
	struct cur *c = (struct cur *)cc;
	struct vt *v = vt_of(cc);
	v->d->col(v->q, cur_row(c), col, ctx);
	return SQLITE_OK;
}

static int x_rowid(sqlite3_vtab_cursor *cc, sqlite3_int64 *rowid)
{
	*rowid = cur_row((struct cur *)cc);
	return SQLITE_OK;
}

static const sqlite3_module table_module = {
	.iVersion = 0,
	.xCreate = x_connect,
	.xConnect = x_connect,
	.xBestIndex = x_best_index,
	.xDisconnect = x_disconnect,
	.xDestroy = x_disconnect,
	.xOpen = x_open,
	.xClose = x_close,
	.xFilter = x_filter,
	.xNext = x_next,
	.xEof = x_eof,
	.xColumn = x_column,
	.xRowid = x_rowid,
};

int64_t wq_visited(struct weft_query *q, const char *name)
{
	for (size_t i = 0; i < NTABLES; i++)
		if (!strcmp(tables[i].name, name))
			return q->tab[i].visited;
	if (!strcmp(name, "pending_at") || !strcmp(name, "chain") ||
	    !strcmp(name, "critical_path") || !strcmp(name, "why_chain"))
		return q->tab[NTABLES].visited;
	return -1;
}

/* ---- table-valued functions ---- */

/* Their rows, computed in xFilter: cells of integers or static texts. */
struct cell {
	int64_t i;
	const char *s; /* a text, or NULL: the integer, or NULL if null */
	int null;
};

struct fdef {
	const char *name;
	const char *cols; /* result columns, then HIDDEN arguments */
	int ncols, nargs;
	int (*fill)(struct weft_query *q, sqlite3_value **args, int nargs,
		    struct cell **rows, uint32_t *n, char **err);
};

struct fvt {
	sqlite3_vtab base;
	struct weft_query *q;
	const struct fdef *d;
};

struct fcur {
	sqlite3_vtab_cursor base;
	struct cell *rows;
	uint32_t n, pos;
	sqlite3_value *args[2];
};

/* Appends a row of `ncols` cells; NULL out of memory. */
static struct cell *add_row(struct cell **rows, uint32_t *n, uint32_t *cap,
			    int ncols)
{
	/* (an element: a row of ncols cells) */
	if (weft__grow32(rows, cap, (size_t)*n + 1,
			 (size_t)ncols * sizeof **rows, 64))
		return NULL;
	struct cell *c = *rows + (size_t)(*n)++ * ncols;
	memset(c, 0, (size_t)ncols * sizeof *c);
	return c;
}

static void set_ref(struct cell *c, uint32_t v)
{
	c->i = v;
	c->null = v == WEFT_NONE;
}

/* A thread argument: its index in threads, or a message. */
static int thread_arg(struct weft_query *q, sqlite3_value *a, uint32_t *t,
		      char **err, const char *fn)
{
	uint32_t nth;
	weft_model_threads(q->m, &nth);
	if (!a || sqlite3_value_numeric_type(a) != SQLITE_INTEGER ||
	    sqlite3_value_int64(a) < 0 || sqlite3_value_int64(a) >= nth) {
		*err = sqlite3_mprintf("%s: the first argument must be a "
				       "thread (a number "
				       "from threads.thread, 0 to %u)",
				       fn, nth ? nth - 1 : 0);
		return -1;
	}
	*t = (uint32_t)sqlite3_value_int64(a);
	return 0;
}

static int fill_chain(struct weft_query *q, sqlite3_value **a, int na,
		      struct cell **rows, uint32_t *n, char **err)
{
	uint32_t t, cap = 0;
	int depth = WEFT_CHAIN_ALL;
	if (thread_arg(q, a[0], &t, err, "chain"))
		return SQLITE_ERROR;
	if (na > 1 && a[1] && sqlite3_value_type(a[1]) != SQLITE_NULL) {
		if (sqlite3_value_numeric_type(a[1]) != SQLITE_INTEGER ||
		    sqlite3_value_int64(a[1]) < 0 ||
		    sqlite3_value_int64(a[1]) > 1000000) {
			*err = sqlite3_mprintf("chain: depth must be 1, 2, "
					       "3... or 0 (all)");
			return SQLITE_ERROR;
		}
		depth = (int)sqlite3_value_int64(a[1]);
	}
	struct weft_chain c = {0};
	if (weft_chain(q->m, t, depth, &c))
		return SQLITE_NOMEM;
	for (uint32_t i = 0; i < c.nthreads; i++) {
		if (!c.in[i])
			continue;
		struct cell *r = add_row(rows, n, &cap, 5);
		if (!r) {
			weft_chain_release(&c);
			return SQLITE_NOMEM;
		}
		r[0].i = i;
		r[1].i = !!(c.in[i] & WEFT_CHAIN_SUBJECT);
		r[2].i = !!(c.in[i] & WEFT_CHAIN_BEFORE);
		r[3].i = !!(c.in[i] & WEFT_CHAIN_AFTER);
		r[4].i = !!(c.in[i] & WEFT_CHAIN_HUB);
	}
	weft_chain_release(&c);
	return SQLITE_OK;
}

static int fill_path(struct weft_query *q, sqlite3_value **a, int na,
		     struct cell **rows, uint32_t *n, char **err)
{
	uint32_t t, cap = 0;
	(void)na;
	if (thread_arg(q, a[0], &t, err, "critical_path"))
		return SQLITE_ERROR;
	if (!q->path && weft_path_index_new(&q->path, q->m))
		return SQLITE_NOMEM;
	struct weft_path p = {0};
	int rc = weft_path_at(q->path, t, &p);
	if (rc == -ENOMEM)
		return SQLITE_NOMEM;
	if (rc) {
		*err = sqlite3_mprintf("critical_path: thread %u is an OS "
				       "thread: it has no path",
				       t);
		return SQLITE_ERROR;
	}
	for (uint32_t i = 0; i < p.nseg; i++) {
		const struct weft_path_seg *s = &p.seg[i];
		struct cell *r = add_row(rows, n, &cap, 7);
		if (!r) {
			weft_path_release(&p);
			return SQLITE_NOMEM;
		}
		r[0].i = s->depth;
		r[1].i = s->thread;
		r[2].s = weft_path_state_name((int)s->state);
		set_ref(&r[3], s->on);
		r[4].i = qt(q, s->t0);
		r[5].i = qt(q, s->t1);
		r[6].i = s->t1 - s->t0;
	}
	weft_path_release(&p);
	return SQLITE_OK;
}

/* Pending at t: created at or before t, and not ended by then (ended
 * after t, or never). */
static int fill_pending(struct weft_query *q, sqlite3_value **a, int na,
			struct cell **rows, uint32_t *n, char **err)
{
	uint32_t nth, cap = 0;
	const struct weft_thread *th = weft_model_threads(q->m, &nth);
	int64_t t;
	(void)na;
	if (!a[0] || !int_arg(a[0], 0, &t)) {
		*err = sqlite3_mprintf("pending_at: the argument must be a "
				       "time (ns from the trace's first "
				       "event)");
		return SQLITE_ERROR;
	}
	/* the threads in creation order: the threads table's key */
	struct wq_table *tb = &q->tab[0];
	struct vt v = {.q = q, .d = &tables[0], .tb = tb};
	if (table_ready(&v))
		return SQLITE_NOMEM;
	uint32_t end = lower(&v, t == INT64_MAX ? t : t + 1);
	for (uint32_t i = 0; i < end; i++) {
		uint32_t k = tb->perm ? tb->perm[i] : i;
		q->tab[NTABLES].visited++;
		if (th[k].flags & WEFT_THREAD_ROOT)
			continue;
		if (th[k].end != WEFT_END_PENDING && qt(q, th[k].t_end) <= t)
			continue;
		struct cell *r = add_row(rows, n, &cap, 1);
		if (!r)
			return SQLITE_NOMEM;
		r[0].i = k;
	}
	return SQLITE_OK;
}

static int fill_why(struct weft_query *q, sqlite3_value **a, int na,
		    struct cell **rows, uint32_t *n, char **err)
{
	uint32_t t, cap = 0;
	(void)na;
	if (thread_arg(q, a[0], &t, err, "why_chain"))
		return SQLITE_ERROR;
	if (!q->why && weft_why_index_new(&q->why, q->m))
		return SQLITE_NOMEM;
	struct weft_why w;
	weft_why_at(q->why, t, &w);
	for (uint32_t i = 0; i < w.nchain; i++) {
		struct cell *r = add_row(rows, n, &cap, 4);
		if (!r)
			return SQLITE_NOMEM;
		r[0].i = i;
		r[1].i = w.chain[i].thread;
		r[2].i = qt(q, w.chain[i].t_wait);
		r[2].null = i + 1 == w.nchain;
		r[3].s = weft_verdict_name(w.verdict);
	}
	return SQLITE_OK;
}

static const struct fdef funcs[] = {
	{"chain",
	 "thread INTEGER, subject INTEGER, before INTEGER, after INTEGER, hub "
	 "INTEGER, of HIDDEN, depth HIDDEN",
	 5, 2, fill_chain},
	{"critical_path",
	 "depth INTEGER, thread INTEGER, state TEXT, on_thread INTEGER, t0 "
	 "INTEGER, t1 INTEGER, dur INTEGER, of HIDDEN",
	 7, 1, fill_path},
	{"pending_at", "thread INTEGER, at HIDDEN", 1, 1, fill_pending},
	{"why_chain",
	 "step INTEGER, thread INTEGER, waits_since INTEGER, verdict TEXT, of "
	 "HIDDEN",
	 4, 1, fill_why},
};
#define NFUNCS (sizeof funcs / sizeof funcs[0])

static int f_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		     sqlite3_vtab **out, char **err)
{
	struct weft_query *q = aux;
	(void)argc;
	const struct fdef *d = NULL;
	for (size_t i = 0; i < NFUNCS; i++)
		if (!strcmp(funcs[i].name, argv[0]))
			d = &funcs[i];
	if (!d) {
		*err = sqlite3_mprintf("no function %s", argv[0]);
		return SQLITE_ERROR;
	}
	int rc = declare(q, db, d->cols);
	if (rc != SQLITE_OK)
		return rc;
	struct fvt *v = sqlite3_malloc(sizeof *v);
	if (!v)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof *v);
	v->q = q;
	v->d = d;
	*out = &v->base;
	return SQLITE_OK;
}

/* Each argument (a HIDDEN column) must be given as an equality: idxNum
 * says which were, in order. */
static int f_best_index(sqlite3_vtab *vt, sqlite3_index_info *ix)
{
	struct fvt *v = (struct fvt *)vt;
	int seen = 0, at[2] = {-1, -1};
	for (int i = 0; i < ix->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &ix->aConstraint[i];
		int a = c->iColumn - v->d->ncols;
		if (a < 0 || a >= v->d->nargs)
			continue;
		if (!c->usable || c->op != SQLITE_INDEX_CONSTRAINT_EQ)
			return SQLITE_CONSTRAINT;
		at[a] = i;
	}
	int na = 0;
	for (int a = 0; a < v->d->nargs; a++) {
		if (at[a] < 0)
			continue;
		ix->aConstraintUsage[at[a]].argvIndex = ++na;
		ix->aConstraintUsage[at[a]].omit = 1;
		seen |= 1 << a;
	}
	ix->idxNum = seen;
	ix->estimatedCost = 100;
	ix->estimatedRows = 100;
	return SQLITE_OK;
}

static int f_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	(void)vt;
	struct fcur *c = sqlite3_malloc(sizeof *c);
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof *c);
	*out = &c->base;
	return SQLITE_OK;
}

static int f_close(sqlite3_vtab_cursor *cc)
{
	struct fcur *c = (struct fcur *)cc;
	free(c->rows);
	sqlite3_free(c);
	return SQLITE_OK;
}

static int f_filter(sqlite3_vtab_cursor *cc, int seen, const char *s, int argc,
		    sqlite3_value **argv)
{
	struct fcur *c = (struct fcur *)cc;
	struct fvt *v = (struct fvt *)cc->pVtab;
	(void)s;
	free(c->rows);
	c->rows = NULL;
	c->n = c->pos = 0;
	sqlite3_value *args[2] = {NULL, NULL};
	int k = 0;
	for (int a = 0; a < v->d->nargs; a++)
		if (seen & (1 << a) && k < argc)
			args[a] = argv[k++];
	if (!args[0]) {
		sqlite3_free(v->base.zErrMsg);
		v->base.zErrMsg = sqlite3_mprintf(
			"%s() needs its argument%s: %s(...)", v->d->name,
			v->d->nargs > 1 ? "s" : "", v->d->name);
		return SQLITE_ERROR;
	}
	char *err = NULL;
	int merr = wq_need_model(v->q);
	if (merr) {
		sqlite3_free(v->base.zErrMsg);
		v->base.zErrMsg =
			sqlite3_mprintf("%s(): cannot read the trace (%s)",
					v->d->name, weft_strerror(merr));
		return merr == -ENOMEM ? SQLITE_NOMEM : SQLITE_ERROR;
	}
	int rc = v->d->fill(v->q, args, v->d->nargs, &c->rows, &c->n, &err);
	if (rc != SQLITE_OK) {
		free(c->rows);
		c->rows = NULL;
		c->n = 0;
		if (err) {
			sqlite3_free(v->base.zErrMsg);
			v->base.zErrMsg = err;
		}
		return rc;
	}
	for (int a = 0; a < 2; a++)
		c->args[a] = args[a];
	return SQLITE_OK;
}

static int f_next(sqlite3_vtab_cursor *cc)
{
	((struct fcur *)cc)->pos++;
	return SQLITE_OK;
}

static int f_eof(sqlite3_vtab_cursor *cc)
{
	struct fcur *c = (struct fcur *)cc;
	return c->pos >= c->n;
}

static int f_column(sqlite3_vtab_cursor *cc, sqlite3_context *ctx, int col)
{
	struct fcur *c = (struct fcur *)cc;
	struct fvt *v = (struct fvt *)cc->pVtab;
	if (col >= v->d->ncols) {
		sqlite3_value *a = c->args[col - v->d->ncols];
		if (a)
			sqlite3_result_value(ctx, a);
		return SQLITE_OK;
	}
	const struct cell *x = &c->rows[(size_t)c->pos * v->d->ncols + col];
	if (x->null)
		sqlite3_result_null(ctx);
	else if (x->s)
		sqlite3_result_text(ctx, x->s, -1, SQLITE_STATIC);
	else
		sqlite3_result_int64(ctx, x->i);
	return SQLITE_OK;
}

static int f_rowid(sqlite3_vtab_cursor *cc, sqlite3_int64 *rowid)
{
	*rowid = ((struct fcur *)cc)->pos;
	return SQLITE_OK;
}

static const sqlite3_module func_module = {
	.iVersion = 0,
	.xCreate = NULL, /* eponymous only */
	.xConnect = f_connect,
	.xBestIndex = f_best_index,
	.xDisconnect = x_disconnect,
	.xDestroy = x_disconnect,
	.xOpen = f_open,
	.xClose = f_close,
	.xFilter = f_filter,
	.xNext = f_next,
	.xEof = f_eof,
	.xColumn = f_column,
	.xRowid = f_rowid,
};

const char *weft_query_table(int i)
{
	return i >= 0 && (size_t)i < NTABLES ? tables[i].name : NULL;
}

const char *weft_query_function(int i)
{
	return i >= 0 && (size_t)i < NFUNCS ? funcs[i].name : NULL;
}

/* ---- latency_by_kind and latency_by_label, computed ---- */

/* The views latency_by_kind and latency_by_label (query.c's SQL)
 * computed in two passes over threads, from whichever source threads
 * reads (the index: no row goes through SQLite): the rows their SQL
 * gives, in its order (count descending, then the key as BINARY orders
 * text), every group's percentiles by quickselect as percentile_nr takes
 * them.  Grouped by the key's text (two name numbers of one text are one
 * kind, two labels of one text one label, as GROUP BY has it; no label
 * is the label ''). */
#define GROUP_COLS                                                             \
	" TEXT, count INTEGER, pending INTEGER, failed INTEGER, p50 "          \
	"INTEGER, p90 INTEGER, p99 INTEGER, max INTEGER, run_p50 INTEGER, "    \
	"run_p90 INTEGER, run_p99 INTEGER, run_max INTEGER"
static const struct fdef kinds_def = {"latency_by_kind", "kind" GROUP_COLS, 12,
				      0, NULL};
static const struct fdef labels_def = {"latency_by_label", "label" GROUP_COLS,
				       12, 0, NULL};

struct kgroup {
	const char *text;
	uint32_t n, pending, failed, nlat; /* rows, by end, finished */
	uint32_t off;			   /* its rows' first slot */
	uint32_t at, atl; /* its next slots: running times, latencies */
	uint32_t up;	  /* the group of its text (key groups) */
};

/* Where a thread's facts come from, looked up once per table rather than
 * per row (a view over 10^8 rows reads each row once). */
struct kfacts {
	const struct weft_index_thread *it; /* the index's rows, or */
	const struct weft_thread *mt;	    /* the model's */
	const struct weft_label *lab;	    /* (the model's labels) */
	uint32_t nlab;
	const int64_t *ran; /* per row, its running time */
	int by_label;
};

/* A thread's facts: 0 for a root (not a request).  *key: its kind's name
 * number, or its label's text number (the index's text, the model's
 * text offset), WEFT_NONE without a label. */
static inline int kind_facts(const struct kfacts *f, uint32_t row,
			     uint32_t *key, int *end, int64_t *lat,
			     int64_t *ran)
{
	if (f->it) {
		const struct weft_index_thread *t = &f->it[row];
		if (t->flags & WEFT_THREAD_ROOT)
			return 0;
		*key = f->by_label ? t->label : t->kind;
		*end = t->end;
		*lat = t->t_end - t->t_create;
	} else {
		const struct weft_thread *t = &f->mt[row];
		if (t->flags & WEFT_THREAD_ROOT)
			return 0;
		if (!f->by_label)
			*key = t->kind;
		else
			*key = t->label < f->nlab ? f->lab[t->label].text
						  : WEFT_NONE;
		*end = t->end;
		*lat = t->t_end - t->t_create;
	}
	*ran = f->ran[row];
	return 1;
}

static const char *key_text(struct weft_query *q, const struct kfacts *f,
			    uint32_t key)
{
	if (f->by_label) {
		if (key == WEFT_NONE)
			return "";
		return q->ix ? weft_index_string(q->ix, key)
			     : weft_model_string(q->m, key);
	}
	const char *t = kind_text(q, key);
	return t ? t : "";
}

static int cmp_kgroup_order(const void *a, const void *b)
{
	const struct kgroup *x = a, *y = b;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->text, y->text);
}

/* A table of uint32 keys (open addressing, load <= 1/2) to numbers. */
struct umap {
	uint32_t *key, *val, cap, n;
};

static uint32_t umap_hash(uint64_t k)
{
	return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 32);
}

/* The number of `k`, or WEFT_NONE; *slot: where it is or would go. */
static uint32_t umap_get(const struct umap *u, uint32_t k, uint32_t *slot)
{
	uint32_t h = umap_hash(k) & (u->cap - 1);
	while (u->val[h] != WEFT_NONE && u->key[h] != k)
		h = (h + 1) & (u->cap - 1);
	*slot = h;
	return u->val[h];
}

static int umap_init(struct umap *u, uint32_t cap)
{
	u->cap = cap;
	u->n = 0;
	u->key = malloc((size_t)cap * sizeof *u->key);
	u->val = malloc((size_t)cap * sizeof *u->val);
	if (!u->key || !u->val)
		return -ENOMEM;
	memset(u->val, 0xff, (size_t)cap * sizeof *u->val); /* WEFT_NONE */
	return 0;
}

/* Puts k -> v at the slot umap_get gave; grows (the slot is then
 * stale).  0 or -ENOMEM. */
static int umap_put(struct umap *u, uint32_t slot, uint32_t k, uint32_t v)
{
	u->key[slot] = k;
	u->val[slot] = v;
	if (++u->n * 2 <= u->cap)
		return 0;
	struct umap w;
	if (u->cap > UINT32_MAX / 2 || umap_init(&w, u->cap * 2)) {
		free(w.key);
		free(w.val);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < u->cap; i++)
		if (u->val[i] != WEFT_NONE) {
			uint32_t h;
			umap_get(&w, u->key[i], &h);
			w.key[h] = u->key[i];
			w.val[h] = u->val[i];
		}
	w.n = u->n;
	free(u->key);
	free(u->val);
	*u = w;
	return 0;
}

/* Each key group's group of its text (g[i].up), the first group of each
 * text its text's: returns how many texts, or -ENOMEM. */
static long merge_texts(struct kgroup *g, uint32_t ng)
{
	uint32_t cap = 64;
	while (cap < (uint64_t)ng * 2)
		cap *= 2;
	uint32_t *slot = malloc((size_t)cap * sizeof *slot);
	if (!slot)
		return -ENOMEM;
	memset(slot, 0xff, (size_t)cap * sizeof *slot);
	uint32_t m = 0;
	for (uint32_t i = 0; i < ng; i++) {
		uint32_t h = (uint32_t)weft__fnv_text(g[i].text) & (cap - 1);
		while (slot[h] != WEFT_NONE &&
		       strcmp(g[slot[h]].text, g[i].text))
			h = (h + 1) & (cap - 1);
		if (slot[h] == WEFT_NONE) {
			slot[h] = i;
			g[i].up = m++;
		} else {
			g[i].up = g[slot[h]].up;
		}
	}
	free(slot);
	return m;
}

static int fill_groups(struct weft_query *q, int by_label, struct cell **rows,
		       uint32_t *nrows)
{
	/* threads' source and rows, not its order by time (table_ready's
	 * pass over every row, which this view does not need) */
	int err = threads_source(q);
	if (!err && tables[0].prepare)
		err = tables[0].prepare(q);
	if (err)
		return err;
	q->threads_read = 1;
	struct kfacts f = {.by_label = by_label};
	uint32_t n = tables[0].count(q), nk = 0, cnt;
	if (q->ix) {
		f.it = weft_index_threads(q->ix, &cnt);
		f.ran = weft_index_thread_running(q->ix, &cnt);
	} else {
		f.mt = weft_model_threads(q->m, &cnt);
		f.lab = weft_model_labels(q->m, &f.nlab);
		f.ran = q->running;
	}
	/* which ends are failures, by the end table's names */
	unsigned char failed[256];
	for (int e = 0; e < 256; e++)
		failed[e] = !strcmp(weft_end_name(e), "failed");
	uint32_t key = 0, ckg = 0, last_key = WEFT_NONE, last_g = WEFT_NONE;
	int end = 0;
	int64_t lat = 0, ran = 0;
	struct umap um = {0};
	struct kgroup *kg = NULL, *g = NULL; /* by key, by text */
	uint32_t *rowg = malloc(((size_t)n + 1) * sizeof *rowg);
	int64_t *lv = NULL, *rv = NULL;
	err = -ENOMEM;
	if (!rowg || umap_init(&um, 64))
		goto out;
	/* the first pass: each row's key group, each key group's rows by
	 * end */
	for (uint32_t i = 0; i < n; i++) {
		if (!kind_facts(&f, i, &key, &end, &lat, &ran)) {
			rowg[i] = WEFT_NONE;
			continue;
		}
		uint32_t x = last_g;
		if (key != last_key || x == WEFT_NONE) {
			uint32_t slot;
			x = umap_get(&um, key, &slot);
			if (x == WEFT_NONE) {
				if (weft__grow32(&kg, &ckg, (size_t)nk + 1,
						 sizeof *kg, 64))
					goto out;
				x = nk++;
				memset(&kg[x], 0, sizeof kg[x]);
				kg[x].text = key_text(q, &f, key);
				if (umap_put(&um, slot, key, x))
					goto out;
			}
			last_key = key;
			last_g = x;
		}
		rowg[i] = x;
		struct kgroup *c = &kg[x];
		c->n++;
		c->pending += end == WEFT_END_PENDING;
		c->failed += failed[end & 0xff];
		c->nlat += end != WEFT_END_PENDING;
	}
	/* the groups by text */
	long m = merge_texts(kg, nk);
	if (m < 0 || !(g = calloc((size_t)m + 1, sizeof *g)))
		goto out;
	uint32_t ng = (uint32_t)m;
	for (uint32_t k = 0; k < nk; k++) {
		struct kgroup *x = &g[kg[k].up];
		x->text = x->n ? x->text : kg[k].text;
		x->n += kg[k].n;
		x->pending += kg[k].pending;
		x->failed += kg[k].failed;
		x->nlat += kg[k].nlat;
	}
	/* each group's rows in one block, its key groups' side by side:
	 * running times from the block's start, latencies likewise */
	uint32_t total = 0;
	for (uint32_t i = 0; i < ng; i++) {
		g[i].off = total;
		total += g[i].n;
	}
	for (uint32_t k = 0; k < nk; k++) {
		struct kgroup *x = &g[kg[k].up];
		kg[k].at = x->off + x->at;
		kg[k].atl = x->off + x->atl;
		x->at += kg[k].n;
		x->atl += kg[k].nlat;
	}
	lv = malloc(((size_t)total + 1) * sizeof *lv);
	rv = malloc(((size_t)total + 1) * sizeof *rv);
	if (!lv || !rv)
		goto out;
	/* the second pass: each row's values in its key group's slots */
	for (uint32_t i = 0; i < n; i++) {
		if (rowg[i] == WEFT_NONE)
			continue;
		kind_facts(&f, i, &key, &end, &lat, &ran);
		struct kgroup *c = &kg[rowg[i]];
		if (end != WEFT_END_PENDING)
			lv[c->atl++] = lat;
		rv[c->at++] = ran;
	}
	/* the view's order: count descending, then the key */
	qsort(g, ng, sizeof *g, cmp_kgroup_order);
	uint32_t cap = 0;
	for (uint32_t i = 0; i < ng; i++) {
		struct cell *r = add_row(rows, nrows, &cap, 12);
		if (!r)
			goto out;
		int64_t *l = lv + g[i].off, *u = rv + g[i].off;
		r[0].s = g[i].text;
		r[1].i = g[i].n;
		r[2].i = g[i].pending;
		r[3].i = g[i].failed;
		int64_t qv[4];
		if (g[i].nlat) {
			wq_quantiles(l, g[i].nlat, qv);
			for (int j = 0; j < 4; j++)
				r[4 + j].i = qv[j];
		} else {
			for (int j = 0; j < 4; j++)
				r[4 + j].null = 1;
		}
		wq_quantiles(u, g[i].n, qv);
		for (int j = 0; j < 4; j++)
			r[8 + j].i = qv[j];
	}
	q->tab[0].visited += n; /* (every row of threads, read once) */
	err = 0;
out:
	free(um.key);
	free(um.val);
	free(kg);
	free(g);
	free(rowg);
	free(lv);
	free(rv);
	return err;
}

static int k_connect_def(sqlite3 *db, void *aux, const struct fdef *d,
			 sqlite3_vtab **out)
{
	struct weft_query *q = aux;
	int rc = declare(q, db, d->cols);
	if (rc != SQLITE_OK)
		return rc;
	struct fvt *v = sqlite3_malloc(sizeof *v);
	if (!v)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof *v);
	v->q = q;
	v->d = d;
	*out = &v->base;
	return SQLITE_OK;
}

static int k_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		     sqlite3_vtab **out, char **err)
{
	(void)argc;
	(void)argv;
	(void)err;
	return k_connect_def(db, aux, &kinds_def, out);
}

static int l_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		     sqlite3_vtab **out, char **err)
{
	(void)argc;
	(void)argv;
	(void)err;
	return k_connect_def(db, aux, &labels_def, out);
}

static int k_best_index(sqlite3_vtab *vt, sqlite3_index_info *ix)
{
	struct fvt *v = (struct fvt *)vt;
	ix->idxNum = 0;
	ix->estimatedCost = v->d == &labels_def ? 10000 : 100;
	ix->estimatedRows = v->d == &labels_def ? 1000 : 20;
	return SQLITE_OK;
}

static int k_filter(sqlite3_vtab_cursor *cc, int plan, const char *s, int argc,
		    sqlite3_value **argv)
{
	struct fcur *c = (struct fcur *)cc;
	struct fvt *v = (struct fvt *)cc->pVtab;
	(void)plan;
	(void)s;
	(void)argc;
	(void)argv;
	free(c->rows);
	c->rows = NULL;
	c->n = c->pos = 0;
	int err = fill_groups(v->q, v->d == &labels_def, &c->rows, &c->n);
	if (!err)
		return SQLITE_OK;
	free(c->rows);
	c->rows = NULL;
	c->n = 0;
	if (err == -ENOMEM)
		return SQLITE_NOMEM;
	sqlite3_free(v->base.zErrMsg);
	v->base.zErrMsg = sqlite3_mprintf("cannot read the trace (%s)",
					  weft_strerror(err));
	return SQLITE_ERROR;
}

int wq_register_tables(struct weft_query *q)
{
	static sqlite3_module kinds_module, labels_module;
	kinds_module = func_module;
	kinds_module.xCreate = NULL;
	kinds_module.xConnect = k_connect;
	kinds_module.xBestIndex = k_best_index;
	kinds_module.xFilter = k_filter;
	labels_module = kinds_module;
	labels_module.xConnect = l_connect;
	int krc =
		sqlite3_create_module(q->db, kinds_def.name, &kinds_module, q);
	if (krc == SQLITE_OK)
		krc = sqlite3_create_module(q->db, labels_def.name,
					    &labels_module, q);
	if (krc != SQLITE_OK)
		return krc;
	/* Eponymous-only modules: each table is there by its name, in
	 * "main", with nothing to create (and nothing DROP TABLE could
	 * remove). */
	static sqlite3_module mods[NTABLES];
	for (size_t i = 0; i < NTABLES; i++) {
		mods[i] = table_module;
		mods[i].xCreate = NULL;
		int rc = sqlite3_create_module(q->db, tables[i].name, &mods[i],
					       q);
		if (rc != SQLITE_OK)
			return rc;
	}
	for (size_t i = 0; i < NFUNCS; i++) {
		int rc = sqlite3_create_module(q->db, funcs[i].name,
					       &func_module, q);
		if (rc != SQLITE_OK)
			return rc;
	}
	return SQLITE_OK;
}

void wq_free_tables(struct weft_query *q)
{
	for (size_t i = 0; i < WQ_MAX_TABLES; i++) {
		free(q->tab[i].perm);
		free(q->tab[i].idperm);
		free(q->tab[i].nameperm);
		for (int w = 0; w < WQ_MAX_REFS; w++) {
			free(q->tab[i].ref_off[w]);
			free(q->tab[i].ref_rows[w]);
		}
	}
	free(q->running);
	free(q->nonroot);
	free(q->samples_at);
	free(q->waits);
	weft_why_index_free(q->why);
	weft_path_index_free(q->path);
}
