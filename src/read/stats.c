/* SPDX-License-Identifier: MIT */
/*
 * stats.c - what `weft stats` shows, computed from a model (stats.h):
 * groups by kind and by label with percentiles, the longest runs, and an
 * event loop's phases.  Front ends only print it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weft/stats.h"

struct item {
	const char *key;
	uint32_t thread;
	int64_t life; /* -1: still pending */
	int64_t run;
};

static int by_key(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	return strcmp(x->key, y->key);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int by_count(const void *a, const void *b)
{
	const struct weft_stats_group *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->key, y->key);
}

static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t s;
	if (__builtin_add_overflow(a, b, &s))
		return b > 0 ? INT64_MAX : INT64_MIN; /* a corrupt trace */
	return s;
}

/* p50, p90, p99 (nearest rank) and max of n sorted values. */
static void pct(const int64_t *v, uint32_t n, int64_t out[4])
{
	static const double q[3] = {0.50, 0.90, 0.99};
	if (!n) {
		out[0] = out[1] = out[2] = out[3] = -1;
		return;
	}
	for (int i = 0; i < 3; i++) {
		uint32_t k = (uint32_t)(q[i] * n + 0.999999);
		out[i] = v[(k ? k : 1) - 1];
	}
	out[3] = v[n - 1];
}

/* Groups n items (sorted by key) into g; returns how many groups, or -1
 * out of memory. */
static long group(const struct weft_model *m, const struct item *it, uint32_t n,
		  struct weft_stats_group *g)
{
	uint32_t nth, ng = 0;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	int64_t *life = malloc(((size_t)n + 1) * sizeof *life);
	int64_t *run = malloc(((size_t)n + 1) * sizeof *run);
	if (!life || !run) {
		free(life);
		free(run);
		return -1;
	}
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i, nl = 0, nr = 0;
		struct weft_stats_group *x = &g[ng++];
		memset(x, 0, sizeof *x);
		x->key = it[i].key;
		for (; j < n && !strcmp(it[j].key, it[i].key); j++) {
			x->count++;
			if (it[j].life < 0)
				x->pending++;
			else
				life[nl++] = it[j].life;
			if (th[it[j].thread].end == WEFT_END_FAILED)
				x->failed++;
			run[nr++] = it[j].run;
		}
		qsort(life, nl, sizeof *life, cmp_i64);
		qsort(run, nr, sizeof *run, cmp_i64);
		pct(life, nl, x->life);
		pct(run, nr, x->run);
		i = j;
	}
	free(life);
	free(run);
	qsort(g, ng, sizeof *g, by_count);
	return ng;
}

/* The phases' sort: by OS thread, then by name (its text: names are
 * interned by address, so two ids may say the same). */
struct phase_sort {
	const struct weft_model *m;
	const struct weft_interval *v;
};

static int by_stream_name(const void *a, const void *b, void *ctx)
{
	const struct phase_sort *c = ctx;
	const struct weft_interval *x = &c->v[*(const uint32_t *)a];
	const struct weft_interval *y = &c->v[*(const uint32_t *)b];
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return strcmp(weft_model_name(c->m, x->name),
		      weft_model_name(c->m, y->name));
}

/* By OS thread, then in the order the loop first entered them (its
 * iteration's order). */
static int by_first(const void *a, const void *b)
{
	const struct weft_stats_phase *x = a, *y = b;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* The longest run on `stream` that starts within [t0, t1) (runs are
 * sorted by start), or WEFT_NONE. */
static uint32_t longest_run_in(const struct weft_run *run, uint32_t nrun,
			       uint32_t stream, int64_t t0, int64_t t1)
{
	uint32_t lo = 0, hi = nrun, best = WEFT_NONE;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (run[mid].t0 < t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t i = lo; i < nrun && run[i].t0 < t1; i++)
		if (run[i].stream == stream &&
		    (best == WEFT_NONE ||
		     run[i].t1 - run[i].t0 > run[best].t1 - run[best].t0))
			best = i;
	return best;
}

/* The loop phases grouped by OS thread and name.  Returns 0 or -ENOMEM. */
static int phases(struct weft_stats *st, const struct weft_model *m)
{
	uint32_t n, nrun, ng = 0;
	const struct weft_interval *v =
		weft_model_intervals(m, WEFT_INTERVAL_PHASE, &n);
	const struct weft_run *run = weft_model_runs(m, &nrun);
	if (!n)
		return 0;
	uint32_t *ix = malloc(n * sizeof *ix);
	int64_t *d = malloc(n * sizeof *d);
	struct weft_stats_phase *g = calloc(n, sizeof *g);
	if (!ix || !d || !g) {
		free(ix);
		free(d);
		free(g);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		ix[i] = i;
	struct phase_sort ctx = {m, v};
	qsort_r(ix, n, sizeof *ix, by_stream_name, &ctx);
	for (uint32_t i = 0; i < n;) {
		struct weft_stats_phase *x = &g[ng++];
		x->stream = v[ix[i]].stream;
		x->name = v[ix[i]].name;
		x->longest = ix[i];
		x->first = v[ix[i]].t0;
		uint32_t j = i, nd = 0;
		for (; j < n && !by_stream_name(&ix[i], &ix[j], &ctx); j++) {
			const struct weft_interval *y = &v[ix[j]];
			int64_t len = y->t1 - y->t0;
			d[nd++] = len;
			x->total = sat_add(x->total, len);
			if (len > v[x->longest].t1 - v[x->longest].t0)
				x->longest = ix[j];
			if (y->t0 < x->first)
				x->first = y->t0;
		}
		x->count = nd;
		qsort(d, nd, sizeof *d, cmp_i64);
		pct(d, nd, x->d);
		x->run = longest_run_in(run, nrun, x->stream, v[x->longest].t0,
					v[x->longest].t1);
		i = j;
	}
	free(ix);
	free(d);
	qsort(g, ng, sizeof *g, by_first);
	st->phases = g;
	st->nphases = ng;
	return 0;
}

/* The longest runs, longest first (ties: the earlier first): a running
 * selection of the top few, not a sort of every run. */
static void longest_runs(struct weft_stats *st, const struct weft_model *m)
{
	uint32_t nrun, k = 0;
	const struct weft_run *run = weft_model_runs(m, &nrun);
	for (uint32_t i = 0; i < nrun; i++) {
		int64_t len = run[i].t1 - run[i].t0;
		if (k == WEFT_STATS_LONGEST) {
			uint32_t last = st->longest[k - 1];
			if (len <= run[last].t1 - run[last].t0)
				continue;
			k--;
		}
		uint32_t j = k++;
		while (j > 0 &&
		       run[st->longest[j - 1]].t1 - run[st->longest[j - 1]].t0 <
			       len) {
			st->longest[j] = st->longest[j - 1];
			j--;
		}
		st->longest[j] = i;
	}
	st->nlongest = k;
}

void weft_stats_free(struct weft_stats *s)
{
	if (!s)
		return;
	free(s->kinds);
	free(s->labels);
	free(s->phases);
	free(s);
}

int weft_stats_compute(struct weft_stats **out, const struct weft_model *m)
{
	*out = NULL;
	struct weft_stats *st = calloc(1, sizeof *st);
	if (!st)
		return -ENOMEM;
	uint32_t nth, nrun, nlab;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_run *run = weft_model_runs(m, &nrun);
	const struct weft_label *lab = weft_model_labels(m, &nlab);
	weft_model_range(m, &st->t0, &st->t1);

	/* One item per async thread, keyed by kind, then by label. */
	struct item *it = calloc((size_t)nth + 1, sizeof *it);
	st->kinds = calloc((size_t)nth + 1, sizeof *st->kinds);
	st->labels = calloc((size_t)nth + 1, sizeof *st->labels);
	if (!it || !st->kinds || !st->labels)
		goto oom;
	uint32_t n = 0;
	for (uint32_t t = 0; t < nth; t++) {
		if (th[t].flags & WEFT_THREAD_ROOT)
			continue;
		uint32_t nr;
		const uint32_t *ri = weft_model_thread_runs(m, t, &nr);
		int64_t ran = 0;
		for (uint32_t k = 0; k < nr; k++)
			ran = sat_add(ran, run[ri[k]].t1 - run[ri[k]].t0);
		it[n].thread = t;
		it[n].run = ran;
		it[n].life = th[t].end == WEFT_END_PENDING
				     ? -1
				     : th[t].t_end - th[t].t_create;
		it[n].key = weft_model_name(m, th[t].kind);
		n++;
	}
	st->threads = n;
	qsort(it, n, sizeof *it, by_key);
	long ng = group(m, it, n, st->kinds);
	if (ng < 0)
		goto oom;
	st->nkinds = (uint32_t)ng;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t l = th[it[i].thread].label;
		it[i].key = l == WEFT_NONE || l >= nlab
				    ? ""
				    : weft_model_string(m, lab[l].text);
	}
	qsort(it, n, sizeof *it, by_key);
	if ((ng = group(m, it, n, st->labels)) < 0)
		goto oom;
	st->nlabels = (uint32_t)ng;
	free(it);
	it = NULL;
	longest_runs(st, m);
	if (phases(st, m))
		goto oom;
	*out = st;
	return 0;
oom:
	free(it);
	weft_stats_free(st);
	return -ENOMEM;
}
