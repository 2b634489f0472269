/* SPDX-License-Identifier: MIT */
/*
 * cmd-stats.c - `weft stats`: per kind and per label, how many async
 * threads, how long they lived and ran (p50, p90, p99, max), how many
 * failed or are still pending; per OS thread the busy and idle shares;
 * the runs that went longest without yielding; an event loop's phases
 * (how often, how long, and what ran longest in the longest of each);
 * counters; losses.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "weft-tools.h"
#include "weft/model.h"

#define USAGE "weft stats [--json] [--top N] FILE|-"

struct item {
	const char *key;
	uint32_t thread;
	int64_t life; /* -1: still pending */
	int64_t run;
};

struct group {
	const char *key;
	uint32_t count, pending, failed;
	int64_t life[4], run[4]; /* p50 p90 p99 max */
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
	const struct group *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->key, y->key);
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

/* Groups items (sorted by key) into groups; returns how many. */
static uint32_t group(const struct weft_model *m, struct item *it, uint32_t n,
		      struct group *g)
{
	uint32_t nth, ng = 0;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	int64_t *life = malloc((n + 1) * sizeof *life);
	int64_t *run = malloc((n + 1) * sizeof *run);
	for (uint32_t i = 0; i < n;) {
		uint32_t j = i, nl = 0, nr = 0;
		struct group *x = &g[ng++];
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

static const char *dur(char *buf, size_t cap, int64_t ns)
{
	if (ns < 0)
		snprintf(buf, cap, "-");
	else if (ns < 10000)
		snprintf(buf, cap, "%" PRId64 "ns", ns);
	else if (ns < 10000000)
		snprintf(buf, cap, "%.1fus", (double)ns / 1e3);
	else if (ns < 10000000000)
		snprintf(buf, cap, "%.1fms", (double)ns / 1e6);
	else
		snprintf(buf, cap, "%.2fs", (double)ns / 1e9);
	return buf;
}

static void text_groups(const char *title, const struct group *g, uint32_t n,
			uint32_t top)
{
	printf("\n%s%s:\n  %-28s %7s %7s %6s  %-34s %s\n", title,
	       n > top ? " (most frequent first)" : "", "", "count",
	       "pending", "failed", "lifetime p50/p90/p99/max",
	       "running p50/p90/p99/max");
	for (uint32_t i = 0; i < n && i < top; i++) {
		char key[29], a[4][24], b[4][24], life[100], ran[100];
		snprintf(key, sizeof key, "%s", *g[i].key ? g[i].key : "(none)");
		for (int k = 0; k < 4; k++) {
			dur(a[k], sizeof a[k], g[i].life[k]);
			dur(b[k], sizeof b[k], g[i].run[k]);
		}
		snprintf(life, sizeof life, "%s/%s/%s/%s", a[0], a[1], a[2],
			 a[3]);
		snprintf(ran, sizeof ran, "%s/%s/%s/%s", b[0], b[1], b[2], b[3]);
		printf("  ");
		print_escaped(stdout, key, strlen(key));
		printf("%*s %7u %7u %6u  %-34s %s\n",
		       (int)(28 - (strlen(key) < 28 ? strlen(key) : 28)), "",
		       g[i].count, g[i].pending, g[i].failed, life, ran);
	}
	if (n > top)
		printf("  ... %u more\n", n - top);
}

static void json_groups(const char *name, const struct group *g, uint32_t n)
{
	printf(",\"%s\":[", name);
	for (uint32_t i = 0; i < n; i++) {
		printf("%s{\"key\":", i ? "," : "");
		weft_json_string(stdout, g[i].key);
		printf(",\"count\":%u,\"pending\":%u,\"failed\":%u", g[i].count,
		       g[i].pending, g[i].failed);
		static const char *q[4] = {"p50", "p90", "p99", "max"};
		printf(",\"lifetime_ns\":{");
		for (int k = 0; k < 4; k++)
			printf("%s\"%s\":%" PRId64, k ? "," : "", q[k],
			       g[i].life[k]);
		printf("},\"run_ns\":{");
		for (int k = 0; k < 4; k++)
			printf("%s\"%s\":%" PRId64, k ? "," : "", q[k],
			       g[i].run[k]);
		printf("}}");
	}
	printf("]");
}

/* The phases of one OS thread's loop with one name. */
struct phase_group {
	uint32_t stream, name;
	uint32_t count;
	int64_t total;
	int64_t d[4];     /* duration p50 p90 p99 max */
	uint32_t longest; /* index of the longest interval */
	uint32_t run;     /* the longest run inside it, or WEFT_NONE */
	int64_t first;    /* when the first began */
};

/* By OS thread, then in the order the loop first entered them (its
 * iteration's order). */
static int by_first(const void *a, const void *b)
{
	const struct phase_group *x = a, *y = b;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

static const struct weft_model *sort_model;

/* By OS thread, then by name (its text: names are interned by address,
 * so two ids may say the same). */
static int by_stream_name(const void *a, const void *b, void *ctx)
{
	const struct weft_interval *v = ctx;
	const struct weft_interval *x = &v[*(const uint32_t *)a];
	const struct weft_interval *y = &v[*(const uint32_t *)b];
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return strcmp(weft_model_name(sort_model, x->name),
		      weft_model_name(sort_model, y->name));
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

/* Groups the loop phases by OS thread and name; returns how many groups
 * (*out, malloc'd; NULL when there are none). */
static uint32_t phase_groups(const struct weft_model *m,
			     struct phase_group **out)
{
	uint32_t n, nrun, ng = 0;
	const struct weft_interval *v =
		weft_model_intervals(m, WEFT_EV_PHASE, &n);
	const struct weft_run *run = weft_model_runs(m, &nrun);
	*out = NULL;
	if (!n)
		return 0;
	uint32_t *ix = malloc(n * sizeof *ix);
	int64_t *d = malloc(n * sizeof *d);
	struct phase_group *g = calloc(n, sizeof *g);
	if (!ix || !d || !g) {
		free(ix);
		free(d);
		free(g);
		return 0;
	}
	for (uint32_t i = 0; i < n; i++)
		ix[i] = i;
	sort_model = m;
	qsort_r(ix, n, sizeof *ix, by_stream_name, (void *)v);
	for (uint32_t i = 0; i < n;) {
		struct phase_group *x = &g[ng++];
		x->stream = v[ix[i]].stream;
		x->name = v[ix[i]].name;
		x->longest = ix[i];
		x->first = v[ix[i]].t0;
		uint32_t j = i, nd = 0;
		for (; j < n && !by_stream_name(&ix[i], &ix[j], (void *)v);
		     j++) {
			const struct weft_interval *y = &v[ix[j]];
			int64_t len = y->t1 - y->t0;
			d[nd++] = len;
			if (__builtin_add_overflow(x->total, len, &x->total))
				x->total = INT64_MAX; /* a corrupt trace */
			if (len > v[x->longest].t1 - v[x->longest].t0)
				x->longest = ix[j];
			if (y->t0 < x->first)
				x->first = y->t0;
		}
		x->count = nd;
		qsort(d, nd, sizeof *d, cmp_i64);
		pct(d, nd, x->d);
		x->run = longest_run_in(run, nrun, x->stream,
					v[x->longest].t0, v[x->longest].t1);
		i = j;
	}
	free(ix);
	free(d);
	qsort(g, ng, sizeof *g, by_first);
	*out = g;
	return ng;
}

static int by_run_len(const void *a, const void *b, void *ctx)
{
	const struct weft_run *r = ctx;
	int64_t x = r[*(const uint32_t *)a].t1 - r[*(const uint32_t *)a].t0;
	int64_t y = r[*(const uint32_t *)b].t1 - r[*(const uint32_t *)b].t0;
	return x < y ? 1 : x > y ? -1 : 0;
}

int cmd_stats(int argc, char **argv)
{
	int json = 0;
	uint32_t top = 20;
	const char *path = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if (!strcmp(argv[i], "--top") && i + 1 < argc)
			top = (uint32_t)atoi(argv[++i]);
		else if ((argv[i][0] != '-' || !argv[i][1]) && !path)
			path = argv[i];
		else
			return usage(USAGE);
	}
	if (!path || !top)
		return usage(USAGE);
	struct weft_reader *r;
	struct weft_model *m = open_model(path, &r);
	if (!m)
		return 1;
	const struct weft_trace_info *in = weft_reader_info(r);
	uint32_t nth, nrun, nst, nctr;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_run *run = weft_model_runs(m, &nrun);
	const struct weft_model_stream *st = weft_model_streams(m, &nst);
	const struct weft_counter *ctr = weft_model_counters(m, &nctr);
	int64_t t0, t1;
	weft_model_range(m, &t0, &t1);

	/* One item per async thread, keyed by kind, then by label. */
	struct item *it = calloc(nth + 1, sizeof *it);
	struct group *g = calloc(nth + 1, sizeof *g);
	uint32_t n = 0;
	for (uint32_t t = 0; t < nth; t++) {
		if (th[t].flags & WEFT_THREAD_ROOT)
			continue;
		uint32_t nr;
		const uint32_t *ri = weft_model_thread_runs(m, t, &nr);
		int64_t ran = 0;
		for (uint32_t k = 0; k < nr; k++)
			if (__builtin_add_overflow(ran,
						   run[ri[k]].t1 - run[ri[k]].t0,
						   &ran))
				ran = INT64_MAX; /* a corrupt trace */
		it[n].thread = t;
		it[n].run = ran;
		it[n].life = th[t].end == WEFT_END_PENDING
				     ? -1
				     : th[t].t_end - th[t].t_create;
		it[n].key = weft_model_name(m, th[t].kind);
		n++;
	}
	qsort(it, n, sizeof *it, by_key);
	uint32_t nk = group(m, it, n, g);
	struct group *gk = g;
	struct group *gl = calloc(nth + 1, sizeof *gl);
	uint32_t nlab;
	const struct weft_label *lab = weft_model_labels(m, &nlab);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t l = th[it[i].thread].label;
		it[i].key = l == WEFT_NONE ? ""
					   : weft_model_string(m, lab[l].text);
	}
	qsort(it, n, sizeof *it, by_key);
	uint32_t nl = group(m, it, n, gl);

	uint32_t *order = malloc((nrun + 1) * sizeof *order);
	for (uint32_t i = 0; i < nrun; i++)
		order[i] = i;
	qsort_r(order, nrun, sizeof *order, by_run_len, (void *)run);
	uint32_t nlong = nrun < 10 ? nrun : 10;
	const struct weft_losses *lo = &in->losses;
	struct phase_group *pg;
	uint32_t npg = phase_groups(m, &pg), nph;
	const struct weft_interval *ph =
		weft_model_intervals(m, WEFT_EV_PHASE, &nph);
	double span = t1 > t0 ? (double)(t1 - t0) : 1;

	if (json) {
		printf("{\"events\":%" PRIu64 ",\"duration_ns\":%" PRId64
		       ",\"threads\":%u",
		       in->events, t1 - t0, n);
		json_groups("kinds", gk, nk);
		json_groups("labels", gl, nl);
		printf(",\"os_threads\":[");
		for (uint32_t s = 0; s < nst; s++) {
			printf("%s{\"tid\":%u,\"name\":", s ? "," : "",
			       st[s].tid);
			weft_json_string(stdout, st[s].name);
			printf(",\"busy_ns\":%" PRId64 ",\"idle_ns\":%" PRId64
			       ",\"busy_share\":%.4f,\"idle_share\":%.4f}",
			       st[s].busy_ns, st[s].idle_ns,
			       t1 > t0 ? (double)st[s].busy_ns / (double)(t1 - t0)
				       : 0.0,
			       t1 > t0 ? (double)st[s].idle_ns / (double)(t1 - t0)
				       : 0.0);
		}
		printf("],\"longest_runs\":[");
		for (uint32_t i = 0; i < nlong; i++) {
			const struct weft_run *x = &run[order[i]];
			char title[256];
			weft_model_title(m, x->thread, title, sizeof title);
			printf("%s{\"thread\":", i ? "," : "");
			weft_json_string(stdout, title);
			printf(",\"id\":\"0x%" PRIx64 "\",\"tid\":%u,\"start_ns\":%" PRId64
			       ",\"duration_ns\":%" PRId64 "}",
			       th[x->thread].id,
			       x->stream < nst ? st[x->stream].tid : 0, x->t0,
			       x->t1 - x->t0);
		}
		printf("],\"loop_phases\":[");
		for (uint32_t i = 0; i < npg; i++) {
			const struct phase_group *x = &pg[i];
			const struct weft_interval *l = &ph[x->longest];
			static const char *q[4] = {"p50", "p90", "p99", "max"};
			printf("%s{\"tid\":%u,\"phase\":", i ? "," : "",
			       x->stream < nst ? st[x->stream].tid : 0);
			weft_json_string(stdout, weft_model_name(m, x->name));
			printf(",\"count\":%u,\"total_ns\":%" PRId64
			       ",\"share\":%.4f,\"duration_ns\":{",
			       x->count, x->total, (double)x->total / span);
			for (int k = 0; k < 4; k++)
				printf("%s\"%s\":%" PRId64, k ? "," : "", q[k],
				       x->d[k]);
			printf("},\"longest\":{\"start_ns\":%" PRId64
			       ",\"duration_ns\":%" PRId64,
			       l->t0, l->t1 - l->t0);
			if (x->run != WEFT_NONE) {
				const struct weft_run *y = &run[x->run];
				char title[256];
				weft_model_title(m, y->thread, title,
						 sizeof title);
				printf(",\"longest_run\":{\"thread\":");
				weft_json_string(stdout, title);
				printf(",\"id\":\"0x%" PRIx64
				       "\",\"duration_ns\":%" PRId64 "}",
				       th[y->thread].id, y->t1 - y->t0);
			}
			printf("}}");
		}
		printf("],\"counters\":[");
		for (uint32_t i = 0; i < nctr; i++) {
			printf("%s{\"name\":", i ? "," : "");
			weft_json_string(stdout, weft_model_name(m, ctr[i].name));
			printf(",\"samples\":%u,\"min\":%" PRId64 ",\"max\":%" PRId64
			       ",\"last\":%" PRId64 "}",
			       ctr[i].nsamples, ctr[i].min, ctr[i].max,
			       ctr[i].samples[ctr[i].nsamples - 1].value);
		}
		printf("],\"losses\":{\"packets_lost\":%" PRIu64
		       ",\"packets_torn\":%" PRIu64 ",\"packets_corrupt\":%" PRIu64
		       ",\"events_discarded\":%" PRIu64 ",\"events_nested\":%" PRIu64
		       ",\"texts_truncated\":%" PRIu64 "}}\n",
		       lo->packets_lost, lo->packets_torn, lo->packets_corrupt,
		       lo->events_discarded, lo->events_nested,
		       lo->texts_truncated);
	} else {
		char d[32];
		printf("trace %s: %" PRIu64 " events over %s, %u async threads, "
		       "%u OS threads\n",
		       path, in->events, dur(d, sizeof d, t1 - t0), n, nst);
		text_groups("by kind", gk, nk, top);
		text_groups("by label", gl, nl, top);
		printf("\nOS threads:\n");
		for (uint32_t s = 0; s < nst; s++) {
			char b1[24], b2[24];
			printf("  tid %-8u %-16s busy %5.1f%% (%s)  idle %5.1f%% "
			       "(%s)\n",
			       st[s].tid, st[s].name,
			       100.0 * (double)st[s].busy_ns / span,
			       dur(b1, sizeof b1, st[s].busy_ns),
			       100.0 * (double)st[s].idle_ns / span,
			       dur(b2, sizeof b2, st[s].idle_ns));
		}
		printf("\nlongest runs without yielding:\n");
		for (uint32_t i = 0; i < nlong; i++) {
			const struct weft_run *x = &run[order[i]];
			char title[256], b1[24], b2[40];
			weft_model_title(m, x->thread, title, sizeof title);
			printf("  %10s  ", dur(b1, sizeof b1, x->t1 - x->t0));
			print_escaped(stdout, title, strlen(title));
			printf(" (0x%" PRIx64 ") on tid %u at %s s\n",
			       th[x->thread].id,
			       x->stream < nst ? st[x->stream].tid : 0,
			       fmt_ns(b2, sizeof b2, x->t0));
		}
		for (uint32_t i = 0; i < npg; i++) {
			const struct phase_group *x = &pg[i];
			const struct weft_interval *l = &ph[x->longest];
			if (!i || x->stream != pg[i - 1].stream)
				printf("\nloop phases, tid %u %s:\n  %-12s %8s "
				       "%10s %6s  %-36s %s\n",
				       x->stream < nst ? st[x->stream].tid : 0,
				       x->stream < nst ? st[x->stream].name : "",
				       "", "count", "total", "share",
				       "p50/p90/p99/max",
				       "longest: at, and what ran longest in it");
			char a[4][24], tot[24], b[100], at[40], rl[24];
			for (int k = 0; k < 4; k++)
				dur(a[k], sizeof a[k], x->d[k]);
			snprintf(b, sizeof b, "%s/%s/%s/%s", a[0], a[1], a[2],
				 a[3]);
			const char *name = weft_model_name(m, x->name);
			printf("  ");
			print_escaped(stdout, name, strlen(name));
			printf("%*s %8u %10s %5.1f%%  %-36s %s s",
			       (int)(12 - (strlen(name) < 12 ? strlen(name) : 12)),
			       "", x->count, dur(tot, sizeof tot, x->total),
			       100.0 * (double)x->total / span, b,
			       fmt_ns(at, sizeof at, l->t0));
			if (x->run != WEFT_NONE) {
				const struct weft_run *y = &run[x->run];
				char title[256];
				weft_model_title(m, y->thread, title,
						 sizeof title);
				printf(", ");
				print_escaped(stdout, title, strlen(title));
				printf(" (0x%" PRIx64 ") %s", th[y->thread].id,
				       dur(rl, sizeof rl, y->t1 - y->t0));
			}
			printf("\n");
		}
		if (nctr) {
			printf("\ncounters:\n  %-24s %12s %12s %12s %8s\n", "",
			       "min", "max", "last", "samples");
			for (uint32_t i = 0; i < nctr; i++)
				printf("  %-24s %12" PRId64 " %12" PRId64
				       " %12" PRId64 " %8u\n",
				       weft_model_name(m, ctr[i].name),
				       ctr[i].min, ctr[i].max,
				       ctr[i].samples[ctr[i].nsamples - 1].value,
				       ctr[i].nsamples);
		}
		printf("\nlosses: %" PRIu64 " packets lost, %" PRIu64
		       " torn, %" PRIu64 " corrupt; %" PRIu64
		       " events discarded (%" PRIu64
		       " from signal handlers); %" PRIu64 " texts truncated\n",
		       lo->packets_lost, lo->packets_torn, lo->packets_corrupt,
		       lo->events_discarded, lo->events_nested,
		       lo->texts_truncated);
	}
	free(pg);
	free(order);
	free(it);
	free(gk);
	free(gl);
	weft_model_free(m);
	int rc = report_losses(r, path);
	weft_reader_close(r);
	return rc;
}
