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
#include "common/fnv.h"
#include "common/grow.h"

/* A key's text and its number (the keys sorted by text). */
struct keyed {
	const char *text;
	uint32_t k;
};

static int by_text(const void *a, const void *b)
{
	return strcmp(((const struct keyed *)a)->text,
		      ((const struct keyed *)b)->text);
}

/* Ranks the n texts that are not NULL in text order, equal texts one
 * key: rank[i] becomes the rank of text[i]'s key (UINT32_MAX for a
 * NULL), key[r] (allocated into *keyp) the first text seen of rank r.
 * Each different text is looked up once in a table, the few keys sorted.
 * Returns how many keys, or -1 (out of memory). */
static long rank_texts(const char *const *text, uint32_t n, uint32_t *rank,
		       const char ***keyp)
{
	uint32_t cap = 1024, nk = 0;
	const char **key = NULL;
	struct tslot {
		uint32_t k, h; /* key number + 1 (0: free), its text's hash */
	} *slot = calloc(cap, sizeof *slot);
	uint32_t ckey = 0;
	uint32_t *num = NULL;
	struct keyed *sorted = NULL;
	/* Before the texts, their addresses: the model keeps one copy of
	 * each kind's text, so most texts repeat an address seen lately,
	 * found in a memo without reading the text.  A memo of fixed size:
	 * labels' texts are each a copy of their own, and a table of every
	 * address grew by 160 MB at 10^8 events. */
	enum { PMEMO = 4096 };
	struct pslot {
		const char *p;
		uint32_t k;
	} *ps = calloc(PMEMO, sizeof *ps);
	long rc = -1;
	if (!slot || !ps)
		goto done;
	for (uint32_t i = 0; i < n; i++) {
		if (!text[i]) {
			rank[i] = UINT32_MAX;
			continue;
		}
		uintptr_t pa = (uintptr_t)text[i];
		uint32_t ph = (uint32_t)((pa * 0x9E3779B97F4A7C15ull) >> 52);
		if (ps[ph].p == text[i]) {
			rank[i] = ps[ph].k;
			continue;
		}
		if ((nk + 1) * 2 > cap) { /* (load <= 1/2) */
			uint32_t nc = cap * 2;
			struct tslot *ns = calloc(nc, sizeof *ns);
			if (!ns)
				goto done;
			for (uint32_t k = 0; k < cap; k++) {
				if (!slot[k].k)
					continue;
				uint32_t h = slot[k].h & (nc - 1);
				while (ns[h].k)
					h = (h + 1) & (nc - 1);
				ns[h] = slot[k];
			}
			free(slot);
			slot = ns;
			cap = nc;
		}
		/* (each slot keeps its text's hash: a text is compared only
		 * with those of its own hash) */
		uint32_t th = (uint32_t)weft__fnv_text(text[i]);
		uint32_t h = th & (cap - 1);
		while (slot[h].k &&
		       (slot[h].h != th || strcmp(key[slot[h].k - 1], text[i])))
			h = (h + 1) & (cap - 1);
		if (!slot[h].k) {
			if (weft__grow32(&key, &ckey, (size_t)nk + 1,
					 sizeof *key, 64))
				goto done;
			key[nk++] = text[i];
			slot[h].k = nk;
			slot[h].h = th;
		}
		rank[i] = slot[h].k - 1; /* (the key's number, for now) */
		ps[ph].p = text[i];
		ps[ph].k = rank[i];
	}
	/* the keys in order: each key's number to its rank */
	sorted = malloc(((size_t)nk + 1) * sizeof *sorted);
	num = malloc(((size_t)nk + 1) * sizeof *num);
	if (!sorted || !num)
		goto done;
	for (uint32_t k = 0; k < nk; k++) {
		sorted[k].text = key[k];
		sorted[k].k = k;
	}
	if (nk) /* (no key: key may be NULL) */
		qsort(sorted, nk, sizeof *sorted, by_text);
	for (uint32_t r = 0; r < nk; r++) {
		num[sorted[r].k] = r;
		key[r] = sorted[r].text;
	}
	for (uint32_t i = 0; i < n; i++)
		if (rank[i] != UINT32_MAX)
			rank[i] = num[rank[i]];
	*keyp = key;
	key = NULL;
	rc = nk;
done:
	free(ps);
	free(slot);
	free(key);
	free(num);
	free(sorted);
	return rc;
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

/* Puts v's k-th smallest at v[k], the smaller ones before it and the
 * larger after (a selection: O(n), not a sort). */
static void select_k(int64_t *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (hi > lo) {
		/* the median of three as the pivot, at lo */
		size_t mid = lo + (hi - lo) / 2;
		int64_t a = v[lo], b = v[mid], c = v[hi], t;
		size_t pi = (a < b) == (b < c)	 ? mid
			    : (b < a) == (a < c) ? lo
						 : hi;
		t = v[lo], v[lo] = v[pi], v[pi] = t;
		int64_t p = v[lo];
		size_t i = lo, j = hi + 1;
		for (;;) {
			while (++i <= hi && v[i] < p)
				;
			while (v[--j] > p)
				;
			if (i >= j)
				break;
			t = v[i], v[i] = v[j], v[j] = t;
		}
		t = v[lo], v[lo] = v[j], v[j] = t;
		if (j == k)
			return;
		if (j < k)
			lo = j + 1;
		else
			hi = j - 1;
	}
}

/* p50, p90, p99 (nearest rank) and max of n values (reordered), as a
 * sort would give them. */
static void pct(int64_t *v, uint32_t n, int64_t out[4])
{
	static const double q[3] = {0.50, 0.90, 0.99};
	if (!n) {
		out[0] = out[1] = out[2] = out[3] = -1;
		return;
	}
	int64_t max = v[0];
	for (uint32_t i = 1; i < n; i++)
		max = v[i] > max ? v[i] : max;
	/* from the highest rank down: each selection leaves the ranks below
	 * it in front, where the next one looks */
	uint32_t end = n;
	for (int i = 2; i >= 0; i--) {
		uint32_t k = (uint32_t)(q[i] * n + 0.999999);
		k = (k ? k : 1) - 1;
		select_k(v, end, k);
		out[i] = v[k];
		end = k + 1;
	}
	out[3] = max;
}

/* What threads_grouped() reads of each async thread. */
struct tview {
	const struct weft_thread *th;
	uint32_t nlab;
	int by_label;
	int64_t (*ran_of)(const void *, uint32_t);
	const void *ctx;
};

/* The text a thread is grouped under: its kind's (by name id), or its
 * latest label's (by label index; nlab: none). */
static uint32_t source_of(const struct tview *v, uint32_t t)
{
	if (!v->by_label)
		return v->th[t].kind;
	uint32_t l = v->th[t].label;
	return l == WEFT_NONE || l >= v->nlab ? v->nlab : l;
}

/* Groups the async threads (not the roots) by the key of their source:
 * rank[source] (nk keys, key[r] the text of rank r) into *gp; returns
 * how many groups (by count, then text), or -1 out of memory.  The
 * threads of a key are found by a counting sort of the thread numbers
 * (4 bytes a thread, in thread order), their lifetimes and running
 * times gathered one key at a time. */
static long group(const struct tview *v, uint32_t nth, const uint32_t *rank,
		  const char *const *key, uint32_t nk,
		  struct weft_stats_group **gp)
{
	long ng = -1;
	uint32_t *at = calloc((size_t)nk + 2, sizeof *at);
	uint32_t *ord = NULL, most = 0, n = 0;
	int64_t *life = NULL, *run = NULL;
	struct weft_stats_group *g = calloc((size_t)nk + 1, sizeof *g);
	if (!at || !g)
		goto done;
	for (uint32_t t = 0; t < nth; t++)
		if (!(v->th[t].flags & WEFT_THREAD_ROOT)) {
			at[rank[source_of(v, t)] + 2]++;
			n++;
		}
	for (uint32_t r = 0; r < nk; r++)
		most = at[r + 2] > most ? at[r + 2] : most;
	for (uint32_t r = 2; r <= nk; r++)
		at[r] += at[r - 1];
	ord = malloc(((size_t)n + 1) * sizeof *ord);
	life = malloc(((size_t)most + 1) * sizeof *life);
	run = malloc(((size_t)most + 1) * sizeof *run);
	if (!ord || !life || !run)
		goto done;
	/* (at[r + 1]: where rank r's threads go) */
	for (uint32_t t = 0; t < nth; t++)
		if (!(v->th[t].flags & WEFT_THREAD_ROOT))
			ord[at[rank[source_of(v, t)] + 1]++] = t;
	ng = 0;
	for (uint32_t r = 0, i = 0; r < nk; r++) {
		uint32_t end = at[r + 1], nl = 0, nr = 0;
		if (i == end)
			continue;
		struct weft_stats_group *x = &g[ng++];
		x->key = key[r];
		for (; i < end; i++) {
			const struct weft_thread *b = &v->th[ord[i]];
			x->count++;
			if (b->end == WEFT_END_PENDING)
				x->pending++;
			else
				life[nl++] = b->t_end - b->t_create;
			x->failed += b->end == WEFT_END_FAILED;
			run[nr++] = v->ran_of(v->ctx, ord[i]);
		}
		pct(life, nl, x->life);
		pct(run, nr, x->run);
	}
	qsort(g, (size_t)ng, sizeof *g, by_count);
	*gp = g;
	g = NULL;
done:
	free(at);
	free(ord);
	free(life);
	free(run);
	free(g);
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

/* By OS thread, then by name (its text). */
static int by_stream_text(const void *a, const void *b, void *ctx)
{
	const struct weft_stats_phase *x = a, *y = b;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return strcmp(weft_model_name(ctx, x->name),
		      weft_model_name(ctx, y->name));
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
		pct(d, nd, x->d);
		x->run = longest_run_in(run, nrun, x->stream, v[x->longest].t0,
					v[x->longest].t1);
		x->longest_t0 = v[x->longest].t0;
		x->longest_t1 = v[x->longest].t1;
		if (x->run != WEFT_NONE)
			x->longest_run = run[x->run];
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
	for (uint32_t i = 0; i < k; i++)
		st->longest_runs[i] = run[st->longest[i]];
}

void weft_stats_free(struct weft_stats *s)
{
	if (!s)
		return;
	free(s->kinds);
	free(s->labels);
	free(s->phases);
	free(s->sums);
	free(s);
}

/* The groups by kind and by label into st, each thread's running time
 * ran(t). */
static int threads_grouped(struct weft_stats *st, const struct weft_model *m,
			   int64_t (*ran_of)(const void *, uint32_t),
			   const void *ctx)
{
	uint32_t nth, nlab;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_label *lab = weft_model_labels(m, &nlab);
	weft_model_range(m, &st->t0, &st->t1);
	struct tview v = {th, nlab, 0, ran_of, ctx};
	int rc = -ENOMEM;

	/* the sources' texts: the kinds' (a name id's: 16 bits in a ring,
	 * numbered among a run's names in a merge, so a table by name id
	 * stays small whatever a trace says) and the labels' (a label
	 * index's, nlab: none), each source used by a thread */
	uint32_t nsrc = nlab + 1, n = 0;
	for (uint32_t t = 0; t < nth; t++)
		if (!(th[t].flags & WEFT_THREAD_ROOT)) {
			nsrc = th[t].kind >= nsrc ? th[t].kind + 1 : nsrc;
			n++;
		}
	st->threads = n;
	const char **text = calloc(nsrc, sizeof *text);
	const char **key = NULL;
	uint32_t *rank = malloc((size_t)nsrc * sizeof *rank);
	if (!text || !rank)
		goto done;
	for (v.by_label = 0; v.by_label < 2; v.by_label++) {
		memset(text, 0, (size_t)nsrc * sizeof *text);
		for (uint32_t t = 0; t < nth; t++) {
			if (th[t].flags & WEFT_THREAD_ROOT)
				continue;
			uint32_t s = source_of(&v, t);
			if (text[s])
				continue;
			const char *x =
				!v.by_label ? weft_model_name(m, s)
				: s == nlab ? ""
					    : weft_model_string(m, lab[s].text);
			text[s] = x ? x : ""; /* (NULL: a source not used) */
		}
		long nk = rank_texts(text, nsrc, rank, &key);
		if (nk < 0)
			goto done;
		struct weft_stats_group *g = NULL;
		long ng = group(&v, nth, rank, key, (uint32_t)nk, &g);
		free(key);
		key = NULL;
		if (ng < 0)
			goto done;
		if (!v.by_label) {
			st->kinds = g;
			st->nkinds = (uint32_t)ng;
		} else {
			st->labels = g;
			st->nlabels = (uint32_t)ng;
		}
	}
	rc = 0;
done:
	free(text);
	free(rank);
	return rc;
}

/* A thread's running time in a whole model: the sum of its runs. */
static int64_t model_ran(const void *ctx, uint32_t t)
{
	const struct weft_model *m = ctx;
	uint32_t nr, nrun;
	const struct weft_run *run = weft_model_runs(m, &nrun);
	const uint32_t *ri = weft_model_thread_runs(m, t, &nr);
	int64_t ran = 0;
	for (uint32_t k = 0; k < nr; k++)
		ran = sat_add(ran, run[ri[k]].t1 - run[ri[k]].t0);
	return ran;
}

int weft_stats_compute(struct weft_stats **out, const struct weft_model *m)
{
	*out = NULL;
	struct weft_stats *st = calloc(1, sizeof *st);
	if (!st)
		return -ENOMEM;
	if (threads_grouped(st, m, model_ran, m))
		goto oom;
	longest_runs(st, m);
	if (phases(st, m))
		goto oom;
	*out = st;
	return 0;
oom:
	weft_stats_free(st);
	return -ENOMEM;
}

/* ------------------------------------------------ in one pass (lean) */

/* Durations: exact up to WEFT_STATS_EXACT, then a log-linear histogram:
 * 0..255 exactly, above that 128 buckets a power of two (a bucket says
 * its lowest value: within 1/128 below the exact one); negative ones
 * (only a corrupt trace's) count as the least of them. */
#define H_LIN 256
#define H_SUB 128
#define H_BUCKETS (H_LIN + (63 - 8) * H_SUB)

struct durations {
	int64_t *v;
	uint32_t nv, cv;
	uint64_t *hist; /* once there are too many for v */
	uint64_t nneg;
	int64_t negmin, max;
	uint64_t n;
	uint32_t exact; /* how many are kept exactly */
};

static uint32_t h_bucket(int64_t v)
{
	if (v < H_LIN)
		return (uint32_t)v;
	int e = 63 - __builtin_clzll((uint64_t)v); /* >= 8 */
	uint32_t sub = (uint32_t)((uint64_t)v >> (e - 7)) & (H_SUB - 1);
	return H_LIN + (uint32_t)(e - 8) * H_SUB + sub;
}

static int64_t h_value(uint32_t b)
{
	if (b < H_LIN)
		return b;
	uint32_t e = (b - H_LIN) / H_SUB + 8, sub = (b - H_LIN) % H_SUB;
	return (int64_t)((uint64_t)(H_SUB + sub) << (e - 7));
}

static void h_add(struct durations *d, int64_t v)
{
	if (v < 0) {
		if (!d->nneg++ || v < d->negmin)
			d->negmin = v;
	} else
		d->hist[h_bucket(v)]++;
}

static int dur_add(struct durations *d, int64_t v)
{
	if (!d->n++ || v > d->max)
		d->max = v;
	if (d->hist) {
		h_add(d, v);
		return 0;
	}
	if (d->nv < d->exact) {
		if (WEFT_GROW32(d->v, d->cv, (size_t)d->nv + 1))
			return -ENOMEM;
		d->v[d->nv++] = v;
		return 0;
	}
	if (!(d->hist = calloc(H_BUCKETS, sizeof *d->hist)))
		return -ENOMEM;
	for (uint32_t i = 0; i < d->nv; i++)
		h_add(d, d->v[i]);
	h_add(d, v);
	free(d->v);
	d->v = NULL;
	d->nv = d->cv = 0;
	return 0;
}

/* p50, p90, p99 (nearest rank) and max, as pct() of them all. */
static void dur_pct(struct durations *d, int64_t out[4])
{
	if (!d->hist) {
		pct(d->v, d->nv, out);
		return;
	}
	static const double q[3] = {0.50, 0.90, 0.99};
	for (int i = 0; i < 3; i++) {
		uint64_t k = (uint64_t)(q[i] * (double)d->n + 0.999999);
		k = k ? k : 1;
		if (k <= d->nneg) {
			out[i] = d->negmin;
			continue;
		}
		uint64_t c = d->nneg;
		uint32_t b = 0;
		while (b < H_BUCKETS - 1 && c + d->hist[b] < k)
			c += d->hist[b++];
		out[i] = h_value(b) < d->max ? h_value(b) : d->max;
	}
	out[3] = d->max;
}

/* The phases of one name (its text) of one OS thread's loop. */
struct pgroup {
	uint32_t stream, name;
	const char *text;
	uint32_t count;
	int64_t total, first, lt0, lt1;
	uint64_t lseq; /* the longest's number (phases in their order) */
	int has_run;
	struct weft_run run;
	struct durations d;
};

/* Per OS thread: the longest run of the loop's current phase so far, and
 * an ended phase whose run still open may be the longest of it. */
struct sstate {
	int has_best;
	struct weft_run best;
	int pending;
	uint32_t pgroup;
	uint64_t pseq;
	int64_t p_t0, p_t1;
	/* the groups of the names seen last (name id + 1, group) */
	uint32_t seen_name[8], seen_group[8];
};

struct csum {
	uint32_t name;
	uint32_t nproc, cproc;
	struct {
		uint32_t process;
		int64_t last;
	} * proc;
	int64_t sum, cur_t;
	struct weft_stats_sum out;
};

struct weft_stats_stream {
	struct weft_model *m;
	int64_t *ran; /* by thread */
	uint32_t cran;
	struct weft_run top[WEFT_STATS_LONGEST];
	uint32_t ntop;
	struct pgroup *g;
	uint32_t ng, cg;
	struct sstate *ss;
	uint32_t css;
	uint64_t phase_seq;
	struct csum *cs;
	uint32_t ncs, ccs;
	uint32_t exact; /* WEFT_STATS_EXACT, or as set */
	int err;
};

static int grow_to(void *p, uint32_t *cap, size_t size, uint32_t need)
{
	uint32_t was = *cap;
	if (weft__grow32(p, cap, (size_t)need + 1, size, 16))
		return -ENOMEM;
	char *b;
	memcpy(&b, p, sizeof b);
	memset(b + (size_t)was * size, 0, (size_t)(*cap - was) * size);
	return 0;
}

static int64_t rlen(const struct weft_run *r)
{
	return r->t1 - r->t0;
}

/* Whether a comes before b among the longest runs, a ending after b:
 * longer (one as long started later: in a sort by start, b stays first;
 * at the same start, the one added first stays first, as qsort keeps). */
static int longer(const struct weft_run *a, const struct weft_run *b)
{
	return rlen(a) > rlen(b);
}

static void on_run(void *ctx, const struct weft_run *r, int64_t phase_t0)
{
	struct weft_stats_stream *S = ctx;
	if (grow_to((void **)&S->ran, &S->cran, sizeof *S->ran, r->thread) ||
	    grow_to((void **)&S->ss, &S->css, sizeof *S->ss, r->stream)) {
		S->err = -ENOMEM;
		return;
	}
	int64_t len = rlen(r);
	S->ran[r->thread] = sat_add(S->ran[r->thread], len);
	/* the longest (ties: the earlier start, then the earlier end), as
	 * longest_runs() over runs sorted by start */
	uint32_t k = S->ntop;
	if (k < WEFT_STATS_LONGEST || longer(r, &S->top[k - 1])) {
		if (k == WEFT_STATS_LONGEST)
			k--;
		uint32_t j = k++;
		while (j > 0 && longer(r, &S->top[j - 1])) {
			S->top[j] = S->top[j - 1];
			j--;
		}
		S->top[j] = *r;
		S->ntop = k;
	}
	struct sstate *ss = &S->ss[r->stream];
	if (ss->pending) {
		/* the run that was open when a phase ended */
		ss->pending = 0;
		struct pgroup *g = &S->g[ss->pgroup];
		if (r->t0 >= ss->p_t0 && r->t0 < ss->p_t1 &&
		    g->lseq == ss->pseq &&
		    (!g->has_run || len > rlen(&g->run))) {
			g->has_run = 1;
			g->run = *r;
		}
	}
	if (r->t0 >= phase_t0 && (!ss->has_best || longer(r, &ss->best))) {
		ss->has_best = 1;
		ss->best = *r;
	}
}

static uint32_t pgroup_of(struct weft_stats_stream *S, uint32_t stream,
			  uint32_t name)
{
	struct sstate *ss = &S->ss[stream];
	for (int k = 0; k < 8; k++)
		if (ss->seen_name[k] == name + 1)
			return ss->seen_group[k];
	const char *text = weft_model_name(S->m, name);
	uint32_t i;
	for (i = 0; i < S->ng; i++)
		if (S->g[i].stream == stream && !strcmp(S->g[i].text, text))
			break;
	if (i == S->ng) {
		if (grow_to((void **)&S->g, &S->cg, sizeof *S->g, S->ng))
			return WEFT_NONE;
		struct pgroup *g = &S->g[S->ng++];
		memset(g, 0, sizeof *g);
		g->stream = stream;
		g->name = name;
		g->text = text;
		g->d.exact = S->exact;
	}
	memmove(ss->seen_name + 1, ss->seen_name, 7 * sizeof *ss->seen_name);
	memmove(ss->seen_group + 1, ss->seen_group, 7 * sizeof *ss->seen_group);
	ss->seen_name[0] = name + 1;
	ss->seen_group[0] = i;
	return i;
}

static void on_phase(void *ctx, const struct weft_interval *v,
		     int64_t open_run_t0)
{
	struct weft_stats_stream *S = ctx;
	if (grow_to((void **)&S->ss, &S->css, sizeof *S->ss, v->stream)) {
		S->err = -ENOMEM;
		return;
	}
	uint32_t gi = pgroup_of(S, v->stream, v->name);
	if (gi == WEFT_NONE) {
		S->err = -ENOMEM;
		return;
	}
	struct pgroup *g = &S->g[gi];
	struct sstate *ss = &S->ss[v->stream];
	int64_t len = v->t1 - v->t0;
	uint64_t seq = ++S->phase_seq;
	if (dur_add(&g->d, len))
		S->err = -ENOMEM;
	g->total = sat_add(g->total, len);
	if (!g->count || v->t0 < g->first)
		g->first = v->t0;
	int in = ss->has_best && ss->best.t0 >= v->t0 && ss->best.t0 < v->t1;
	if (!g->count++ || len > g->lt1 - g->lt0) {
		g->lt0 = v->t0;
		g->lt1 = v->t1;
		g->lseq = seq;
		g->has_run = in;
		if (in)
			g->run = ss->best;
	}
	if (open_run_t0 != INT64_MIN && open_run_t0 >= v->t0 &&
	    open_run_t0 < v->t1) {
		ss->pending = 1;
		ss->pgroup = gi;
		ss->pseq = seq;
		ss->p_t0 = v->t0;
		ss->p_t1 = v->t1;
	}
	if (ss->has_best && ss->best.t0 < v->t1)
		ss->has_best = 0; /* (it was this phase's) */
}

static void on_sample(void *ctx, uint32_t name, uint32_t process, int64_t t,
		      int64_t value)
{
	struct weft_stats_stream *S = ctx;
	uint32_t i;
	for (i = 0; i < S->ncs && S->cs[i].name != name; i++)
		;
	if (i == S->ncs) {
		if (grow_to((void **)&S->cs, &S->ccs, sizeof *S->cs, S->ncs)) {
			S->err = -ENOMEM;
			return;
		}
		memset(&S->cs[S->ncs], 0, sizeof *S->cs);
		S->cs[S->ncs].name = name;
		S->cs[S->ncs++].out.name = name;
	}
	struct csum *c = &S->cs[i];
	uint32_t p;
	for (p = 0; p < c->nproc && c->proc[p].process != process; p++)
		;
	if (p == c->nproc) {
		if (grow_to((void **)&c->proc, &c->cproc, sizeof *c->proc,
			    c->nproc)) {
			S->err = -ENOMEM;
			return;
		}
		c->proc[c->nproc].process = process;
		c->proc[c->nproc++].last = 0;
	}
	/* as weft_model_counter_sum: the sum moves by the sample's step
	 * from its series' last value (hostile values saturate) */
	int64_t d;
	if (__builtin_sub_overflow(value, c->proc[p].last, &d) ||
	    __builtin_add_overflow(c->sum, d, &c->sum))
		c->sum = d < 0 ? INT64_MIN : INT64_MAX;
	c->proc[p].last = value;
	struct weft_stats_sum *o = &c->out;
	if (o->n && c->cur_t == t) {
		o->last = c->sum; /* (one instant, one sample) */
		return;
	}
	/* the instant before is done: it counts for min and max */
	if (o->n) {
		o->min = o->last < o->min || o->n == 1 ? o->last : o->min;
		o->max = o->last > o->max || o->n == 1 ? o->last : o->max;
	}
	o->n++;
	c->cur_t = t;
	o->last = c->sum;
}

int weft_stats_stream_new(struct weft_stats_stream **out, struct weft_model *m)
{
	*out = calloc(1, sizeof **out);
	if (!*out)
		return -ENOMEM;
	(*out)->m = m;
	(*out)->exact = WEFT_STATS_EXACT;
	struct weft_model_sink sink = {*out, on_run, on_phase, on_sample};
	int rc = weft_model_set_sink(m, &sink);
	if (rc) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

void weft_stats_stream_set_exact(struct weft_stats_stream *S, uint32_t n)
{
	S->exact = n;
}

void weft_stats_stream_free(struct weft_stats_stream *S)
{
	if (!S)
		return;
	free(S->ran);
	for (uint32_t i = 0; i < S->ng; i++) {
		free(S->g[i].d.v);
		free(S->g[i].d.hist);
	}
	free(S->g);
	free(S->ss);
	for (uint32_t i = 0; i < S->ncs; i++)
		free(S->cs[i].proc);
	free(S->cs);
	free(S);
}

static int64_t stream_ran(const void *ctx, uint32_t t)
{
	const struct weft_stats_stream *S = ctx;
	return t < S->cran ? S->ran[t] : 0;
}

int weft_stats_stream_finish(struct weft_stats_stream *S,
			     struct weft_stats **out)
{
	*out = NULL;
	if (S->err)
		return S->err;
	struct weft_stats *st = calloc(1, sizeof *st);
	if (!st)
		return -ENOMEM;
	if (threads_grouped(st, S->m, stream_ran, S))
		goto oom;
	st->nlongest = S->ntop;
	memcpy(st->longest_runs, S->top, sizeof S->top);
	if (S->ng && !(st->phases = calloc(S->ng, sizeof *st->phases)))
		goto oom;
	for (uint32_t i = 0; i < S->ng; i++) {
		struct pgroup *g = &S->g[i];
		struct weft_stats_phase *x = &st->phases[i];
		x->stream = g->stream;
		x->name = g->name;
		x->count = g->count;
		x->total = g->total;
		x->first = g->first;
		x->longest_t0 = g->lt0;
		x->longest_t1 = g->lt1;
		x->run = g->has_run ? 0 : WEFT_NONE;
		if (g->has_run)
			x->longest_run = g->run;
		st->approximate += g->d.hist != NULL;
		dur_pct(&g->d, x->d);
	}
	st->nphases = S->ng;
	/* (as phases(): by name first, so that ties keep that order) */
	if (st->nphases) { /* (none: phases is NULL) */
		qsort_r(st->phases, st->nphases, sizeof *st->phases,
			by_stream_text, S->m);
		qsort(st->phases, st->nphases, sizeof *st->phases, by_first);
	}
	if (S->ncs && !(st->sums = calloc(S->ncs, sizeof *st->sums)))
		goto oom;
	for (uint32_t i = 0; i < S->ncs; i++) {
		struct weft_stats_sum o = S->cs[i].out;
		if (o.n) { /* (the last instant counts too) */
			o.min = o.last < o.min || o.n == 1 ? o.last : o.min;
			o.max = o.last > o.max || o.n == 1 ? o.last : o.max;
		}
		o.processes = S->cs[i].nproc;
		st->sums[st->nsums++] = o;
	}
	*out = st;
	return 0;
oom:
	weft_stats_free(st);
	return -ENOMEM;
}
