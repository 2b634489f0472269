/* SPDX-License-Identifier: MIT */
/*
 * diff-timing.c - which kinds of work took longer in one set of runs than
 * in another, beyond the noise (diff.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff-internal.h"
#include "common/grow.h"

const char *weft_diff_metric_name(int metric)
{
	switch (metric) {
	case WEFT_DIFF_LIFETIME:
		return "lifetime";
	case WEFT_DIFF_RUNNING:
		return "running";
	case WEFT_DIFF_WAITED:
		return "waited";
	}
	return "?";
}

/* ------------------------------------------------------------- the test */

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double weft_mann_whitney(const double *x, uint32_t n, const double *y,
			 uint32_t m)
{
	if (!n || !m)
		return 1;
	uint32_t N = n + m;
	struct {
		double v;
		int side;
	} *all = malloc((size_t)N * sizeof *all);
	double *rank = malloc((size_t)N * sizeof *rank);
	if (!all || !rank) {
		free(all);
		free(rank);
		return 1;
	}
	for (uint32_t i = 0; i < n; i++) {
		all[i].v = x[i];
		all[i].side = 0;
	}
	for (uint32_t j = 0; j < m; j++) {
		all[n + j].v = y[j];
		all[n + j].side = 1;
	}
	qsort(all, N, sizeof *all, cmp_d); /* v first: compares doubles */
	/* Mid-ranks; the ties' correction term. */
	double rx = 0, tie = 0;
	for (uint32_t i = 0; i < N;) {
		uint32_t j = i;
		while (j < N && all[j].v == all[i].v)
			j++;
		double r = (i + 1 + j) / 2.0, t = j - i;
		tie += t * t * t - t;
		for (uint32_t k = i; k < j; k++)
			if (!all[k].side)
				rx += r;
		i = j;
	}
	free(all);
	free(rank);
	double U = rx - (double)n * (n + 1) / 2; /* pairs x > y */
	double mu = (double)n * m / 2;
	if (tie == 0 && N <= 40) {
		/* Exact: arrangements of n x's among N by U. */
		uint32_t nm = n * m;
		size_t W = (size_t)nm + 1;
		double *f = calloc((size_t)(n + 1) * (m + 1) * W, sizeof *f);
		if (f) {
#define F(i, j, u) f[((size_t)(i) * (m + 1) + (j)) * W + (u)]
			for (uint32_t i = 0; i <= n; i++)
				for (uint32_t j = 0; j <= m; j++) {
					if (!i || !j) {
						F(i, j, 0) = 1;
						continue;
					}
					for (uint32_t u = 0; u <= i * j; u++)
						F(i, j,
						  u) = (u >= j ? F(i - 1, j,
								   u - j)
							       : 0) +
						       (u <= i * (j - 1)
								? F(i, j - 1, u)
								: 0);
				}
			double total = 0, lo = 0, hi = 0;
			uint32_t u0 = (uint32_t)llround(U);
			for (uint32_t u = 0; u <= nm; u++) {
				double c = F(n, m, u);
				total += c;
				if (u <= u0)
					lo += c;
				if (u >= u0)
					hi += c;
			}
#undef F
			free(f);
			double p = 2 * (lo < hi ? lo : hi) / total;
			return p > 1 ? 1 : p;
		}
	}
	double var =
		(double)n * m / 12 * ((N + 1) - tie / ((double)N * (N - 1)));
	if (var <= 0)
		return 1;
	double z = (fabs(U - mu) - 0.5) / sqrt(var);
	if (z < 0)
		z = 0;
	double p = erfc(z / sqrt(2.0));
	return p > 1 ? 1 : p;
}

/* ------------------------------------------------------------- figures */

struct fig {
	uint32_t count;
	int64_t p50, p95, max;
};

struct run {
	uint32_t *group; /* per thread: its group, or NONE */
	struct fig *fig; /* [group * METRICS + metric] */
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* Nearest rank. */
static int64_t rank_of(const int64_t *v, uint32_t n, double q)
{
	uint32_t r = (uint32_t)ceil(q * n);
	return v[r ? r - 1 : 0];
}

static int is_read(int kind)
{
	return kind == WEFT_ARROW_READ || kind == WEFT_ARROW_READ_FAILED;
}

/* The three metrics of one ended thread. */
static void measure(const struct weft_model *m, uint32_t t, int64_t out[3])
{
	uint32_t nth, nrun, na;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_run *run = weft_model_runs(m, &nrun);
	const struct weft_arrow *a = weft_model_arrows(m, &na);
	out[WEFT_DIFF_LIFETIME] = th[t].t_end - th[t].t_create;
	uint32_t n;
	const uint32_t *ix = weft_model_thread_runs(m, t, &n);
	int64_t r = 0;
	for (uint32_t k = 0; k < n; k++)
		r += run[ix[k]].t1 - run[ix[k]].t0;
	out[WEFT_DIFF_RUNNING] = r;
	ix = weft_model_thread_arrows(m, t, &n);
	uint32_t target = WEFT_NONE;
	int64_t tw = 0, w = 0;
	for (uint32_t k = 0; k < n; k++) {
		const struct weft_arrow *x = &a[ix[k]];
		if (x->kind == WEFT_ARROW_TRY_READ && x->from == t) {
			if (target != WEFT_NONE)
				w += x->t - tw;
			target = x->to;
			tw = x->t;
		} else if (is_read(x->kind) && x->to == t &&
			   x->from == target) {
			w += x->t - tw;
			target = WEFT_NONE;
		}
	}
	if (target != WEFT_NONE && th[t].t_end > tw)
		w += th[t].t_end - tw;
	out[WEFT_DIFF_WAITED] = w;
}

static int run_figures(struct run *R, const struct weft_model *m,
		       uint32_t ngroups)
{
	uint32_t nth;
	weft_model_threads(m, &nth);
	R->fig =
		calloc((size_t)ngroups * WEFT_DIFF_METRICS + 1, sizeof *R->fig);
	uint32_t *off = calloc((size_t)ngroups + 1, sizeof *off);
	int64_t *val =
		malloc(((size_t)nth * WEFT_DIFF_METRICS + 1) * sizeof *val);
	uint32_t *fill = calloc((size_t)ngroups + 1, sizeof *fill);
	if (!R->fig || !off || !val || !fill) {
		free(off);
		free(val);
		free(fill);
		return -ENOMEM;
	}
	for (uint32_t t = 0; t < nth; t++)
		if (R->group[t] != WEFT_NONE)
			off[R->group[t] + 1]++;
	for (uint32_t g = 0; g < ngroups; g++)
		off[g + 1] += off[g];
	for (uint32_t t = 0; t < nth; t++) {
		uint32_t g = R->group[t];
		if (g == WEFT_NONE)
			continue;
		int64_t v[3];
		measure(m, t, v);
		uint32_t at = off[g] + fill[g]++;
		for (int k = 0; k < WEFT_DIFF_METRICS; k++)
			val[(size_t)k * nth + at] = v[k];
	}
	for (uint32_t g = 0; g < ngroups; g++) {
		uint32_t n = off[g + 1] - off[g];
		if (!n)
			continue;
		for (int k = 0; k < WEFT_DIFF_METRICS; k++) {
			int64_t *v = val + (size_t)k * nth + off[g];
			qsort(v, n, sizeof *v, cmp_i64);
			struct fig *f =
				&R->fig[(size_t)g * WEFT_DIFF_METRICS + k];
			f->count = n;
			f->p50 = rank_of(v, n, 0.5);
			f->p95 = rank_of(v, n, 0.95);
			f->max = v[n - 1];
		}
	}
	free(off);
	free(val);
	free(fill);
	return 0;
}

void weft_diff_timing_free(struct weft_diff_timing *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->nrows; i++)
		free(t->rows[i].key);
	free(t->rows);
	free(t);
}

struct test {
	uint32_t group;
	int metric, stat;
	double p;
	double med[2];
};

static int cmp_test(const void *a, const void *b)
{
	const struct test *x = a, *y = b;
	return x->p < y->p ? -1 : x->p > y->p;
}

static double change(double a, double b)
{
	if (a <= 0 && b <= 0)
		return 0;
	if (a <= 0 || b <= 0)
		return INFINITY;
	return fabs(log(b / a));
}

static int cmp_row(const void *a, const void *b)
{
	const struct weft_diff_row *x = a, *y = b;
	double cx = fabs(log(x->ratio > 0 ? x->ratio : 1e-300)),
	       cy = fabs(log(y->ratio > 0 ? y->ratio : 1e-300));
	if (cx != cy)
		return cx > cy ? -1 : 1;
	int k = strcmp(x->key, y->key);
	return k ? k : x->metric - y->metric;
}

static const struct weft_model *model_of(const struct weft_model *const *a,
					 const struct weft_model *const *b,
					 uint32_t na, uint32_t r)
{
	return r < na ? a[r] : b[r - na];
}

static int64_t median_i64(int64_t *v, uint32_t n)
{
	qsort(v, n, sizeof *v, cmp_i64);
	return n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
}

/* Side s's figures of group g and metric k into *row, from runs r0..r1-1:
 * with one run its own, with several the median over the runs that have
 * the group (and its mean count).  vals: room for r1 - r0 values. */
static void side_figures(const struct run *R, uint32_t r0, uint32_t r1,
			 uint32_t g, int k, int s, int64_t *vals,
			 struct weft_diff_row *row)
{
	uint32_t n = 0;
	double cnt = 0;
	for (int q = 0; q < 3; q++) {
		n = 0;
		cnt = 0;
		for (uint32_t r = r0; r < r1; r++) {
			const struct fig *f =
				&R[r].fig[(size_t)g * WEFT_DIFF_METRICS + k];
			if (!f->count)
				continue;
			cnt += f->count;
			vals[n++] = q == 0 ? f->p50 : q == 1 ? f->p95 : f->max;
		}
		int64_t med = median_i64(vals, n);
		if (q == 0)
			row->p50[s] = med;
		else if (q == 1)
			row->p95[s] = med;
		else
			row->max[s] = med;
	}
	row->count[s] = n ? cnt / (r1 - r0) : 0;
	row->runs[s] = n;
}

int weft_diff_timing(const struct weft_model *const *a, uint32_t na,
		     const struct weft_model *const *b, uint32_t nb, int key,
		     const struct weft_diff_threshold *th,
		     struct weft_diff_timing **out)
{
	*out = NULL;
	static const struct weft_diff_threshold dflt =
		WEFT_DIFF_THRESHOLD_DEFAULT;
	if (!th)
		th = &dflt;
	if (!na || !nb || key < WEFT_DIFF_KEY_LABEL || key > WEFT_DIFF_KEY_KIND)
		return WEFT_EINVAL;
	uint32_t nr = na + nb;
	struct run *R = calloc(nr, sizeof *R);
	struct weft__hmap groups = {0};
	/* per group: a model and a thread to name it by */
	uint32_t *rep_run = NULL, *rep_thread = NULL, ngroups = 0, cgroups = 0;
	struct test *tests = NULL;
	struct weft_diff_timing *T = calloc(1, sizeof *T);
	int64_t *vals = NULL;
	double *dx = NULL, *dy = NULL;
	uint8_t *done = NULL;
	int rc = -ENOMEM;
	if (!R || !T || weft__hmap_init(&groups, 1024))
		goto out;
	T->runs[0] = na;
	T->runs[1] = nb;
	char scratch[512];
	for (uint32_t r = 0; r < nr; r++) {
		const struct weft_model *m = r < na ? a[r] : b[r - na];
		uint32_t nth;
		const struct weft_thread *tt = weft_model_threads(m, &nth);
		R[r].group = malloc(((size_t)nth + 1) * sizeof *R[r].group);
		if (!R[r].group)
			goto out;
		for (uint32_t t = 0; t < nth; t++) {
			R[r].group[t] = WEFT_NONE;
			if ((tt[t].flags &
			     (WEFT_THREAD_ROOT | WEFT_THREAD_NO_CREATE)) ||
			    tt[t].end == WEFT_END_PENDING)
				continue;
			uint64_t k = weft__diff_key(m, t, key, scratch,
						    sizeof scratch);
			uint32_t *g = weft__hmap_get(&groups, k, WEFT_NONE);
			if (!g)
				goto out;
			if (*g == WEFT_NONE) {
				/* two arrays of one capacity */
				uint32_t c = cgroups, c2 = cgroups;
				if (weft__grow32(&rep_run, &c,
						 (size_t)ngroups + 1,
						 sizeof *rep_run, 256) ||
				    weft__grow32(&rep_thread, &c2,
						 (size_t)ngroups + 1,
						 sizeof *rep_thread, 256))
					goto out;
				cgroups = c;
				rep_run[ngroups] = r;
				rep_thread[ngroups] = t;
				*g = ngroups++;
			}
			R[r].group[t] = *g;
		}
	}
	for (uint32_t r = 0; r < nr; r++)
		if (run_figures(&R[r], r < na ? a[r] : b[r - na], ngroups))
			goto out;

	int several = na >= 3 && nb >= 3;
	uint32_t ntests = 0, crows = 0;
	tests = malloc(((size_t)ngroups * WEFT_DIFF_METRICS * 2 + 1) *
		       sizeof *tests);
	vals = malloc(((size_t)nr + 1) * sizeof *vals);
	dx = malloc(((size_t)nr + 1) * sizeof *dx);
	dy = malloc(((size_t)nr + 1) * sizeof *dy);
	if (!tests || !vals || !dx || !dy)
		goto out;
		/* The figure of one side: its run's, or the median over its runs. */
#define FIG(r, g, k) (&R[r].fig[(size_t)(g)*WEFT_DIFF_METRICS + (k)])
	for (uint32_t g = 0; g < ngroups; g++) {
		uint32_t present[2] = {0, 0};
		for (uint32_t r = 0; r < nr; r++)
			present[r >= na] += FIG(r, g, 0)->count > 0;
		if (!present[0] || !present[1])
			continue;
		T->groups++;
		for (int k = 0; k < WEFT_DIFF_METRICS; k++) {
			struct weft_diff_row row;
			memset(&row, 0, sizeof row);
			row.metric = k;
			row.p = -1;
			for (int s = 0; s < 2; s++)
				side_figures(R, s ? na : 0, s ? nr : na, g, k,
					     s, vals, &row);
			if (several && row.runs[0] >= 3 && row.runs[1] >= 3) {
				for (int st = 0; st < 2; st++) {
					uint32_t n0 = 0, n1 = 0;
					for (uint32_t r = 0; r < nr; r++) {
						const struct fig *f =
							FIG(r, g, k);
						if (!f->count)
							continue;
						double v =
							(double)(st ? f->p95
								    : f->p50);
						if (r < na)
							dx[n0++] = v;
						else
							dy[n1++] = v;
					}
					struct test *t = &tests[ntests++];
					t->group = g;
					t->metric = k;
					t->stat = st;
					t->p = weft_mann_whitney(dx, n0, dy,
								 n1);
					t->med[0] = (double)(st ? row.p95[0]
								: row.p50[0]);
					t->med[1] = (double)(st ? row.p95[1]
								: row.p50[1]);
				}
				continue;
			}
			/* One run a side (or too few): ratio and minimum. */
			double best = 0;
			int which = -1;
			for (int st = 0; st < 2; st++) {
				double x = (double)(st ? row.p95[0]
						       : row.p50[0]),
				       y = (double)(st ? row.p95[1]
						       : row.p50[1]);
				T->tests++;
				double c = change(x, y);
				if (c >= log(th->ratio) - 1e-9 &&
				    fabs(y - x) >= (double)th->min_ns &&
				    c > best) {
					best = c;
					which = st;
				}
			}
			if (which < 0)
				continue;
			row.stat = which;
			double x = (double)(which ? row.p95[0] : row.p50[0]),
			       y = (double)(which ? row.p95[1] : row.p50[1]);
			row.ratio = x > 0 ? y / x : INFINITY;
			if (WEFT_GROW32(T->rows, crows, (size_t)T->nrows + 1))
				goto out;
			size_t need = weft_diff_key_text(
					      model_of(a, b, na, rep_run[g]),
					      rep_thread[g], key, NULL, 0) +
				      1;
			row.key = malloc(need);
			if (!row.key)
				goto out;
			weft_diff_key_text(model_of(a, b, na, rep_run[g]),
					   rep_thread[g], key, row.key, need);
			T->rows[T->nrows++] = row;
		}
	}
	if (ntests) {
		/* Holm: the i-th smallest p against alpha / (m - i). */
		T->tests += ntests;
		qsort(tests, ntests, sizeof *tests, cmp_test);
		done = calloc((size_t)ngroups * WEFT_DIFF_METRICS + 1, 1);
		if (!done)
			goto out;
		for (uint32_t i = 0; i < ntests; i++) {
			struct test *t = &tests[i];
			if (t->p > th->alpha / (double)(ntests - i))
				break;
			double eff = change(t->med[0], t->med[1]);
			if (eff < log(th->effect) ||
			    fabs(t->med[1] - t->med[0]) <
				    (double)th->min_ns_runs)
				continue;
			/* one row per group and metric: its smallest p */
			size_t id = (size_t)t->group * WEFT_DIFF_METRICS +
				    (size_t)t->metric;
			if (done[id])
				continue;
			done[id] = 1;
			struct weft_diff_row row;
			memset(&row, 0, sizeof row);
			row.metric = t->metric;
			row.stat = t->stat;
			row.p = t->p;
			for (int s = 0; s < 2; s++)
				side_figures(R, s ? na : 0, s ? nr : na,
					     t->group, t->metric, s, vals,
					     &row);
			row.ratio = t->med[0] > 0 ? t->med[1] / t->med[0]
						  : INFINITY;
			if (WEFT_GROW32(T->rows, crows, (size_t)T->nrows + 1))
				goto out;
			const struct weft_model *km =
				model_of(a, b, na, rep_run[t->group]);
			size_t need = weft_diff_key_text(km,
							 rep_thread[t->group],
							 key, NULL, 0) +
				      1;
			row.key = malloc(need);
			if (!row.key)
				goto out;
			weft_diff_key_text(km, rep_thread[t->group], key,
					   row.key, need);
			T->rows[T->nrows++] = row;
		}
	}
#undef FIG
	if (T->nrows > 1)
		qsort(T->rows, T->nrows, sizeof *T->rows, cmp_row);
	*out = T;
	T = NULL;
	rc = 0;
out:
	weft_diff_timing_free(T);
	if (R)
		for (uint32_t r = 0; r < nr; r++) {
			free(R[r].group);
			free(R[r].fig);
		}
	free(R);
	weft__hmap_release(&groups);
	free(rep_run);
	free(rep_thread);
	free(tests);
	free(vals);
	free(dx);
	free(dy);
	free(done);
	return rc;
}
