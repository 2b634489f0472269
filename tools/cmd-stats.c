/* SPDX-License-Identifier: MIT */
/*
 * cmd-stats.c - `weft stats`: prints, as text or JSON, what the library
 * computes (weft/stats.h): per kind and per label, how many async
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
#include "weft/stats.h"

/* A duration in the one format (fmt_time), "-" for none. */
static const char *dur(char *buf, size_t cap, int64_t ns)
{
	if (ns < 0)
		snprintf(buf, cap, "-");
	else
		fmt_time(buf, cap, ns);
	return buf;
}

/* p50/p90/p99/max in one unit, the largest's, written once at the
 * end (a tcol of four, to at most a tenth of the largest's precision):
 * "0.088/0.334/2.992/4.184 ms"; "-/-/-/-" for none. */
static const char *quantiles(char *buf, size_t cap, const int64_t v[4])
{
	struct tcol c = {0};
	int64_t unit, prec;
	size_t n = 0;
	for (int k = 0; k < 4; k++)
		tcol_add(&c, v[k] < 0 ? 0 : v[k]);
	tcol_unit(&c, &unit, &prec);
	/* (four or five digits at most for the largest: a cell stays
	 * short) */
	int64_t p = 1;
	for (uint64_t x = c.max; x >= 10000; x /= 10)
		p *= 10;
	if (prec < p)
		prec = p;
	buf[0] = 0;
	for (int k = 0; k < 4 && n < cap; k++) {
		char t[48];
		if (v[k] < 0)
			snprintf(t, sizeof t, "-");
		else {
			weft_time_fmt_in(v[k], prec, unit, t, sizeof t);
			if (k < 3) /* (the unit once, at the end) */
				*strrchr(t, ' ') = 0;
		}
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", k ? "/" : "",
				      t);
	}
	return buf;
}

#define KEY_CHARS 28

/* A kind or label in KEY_CHARS characters: a longer one is cut at a
 * character and ends in "…", so that a cut is never silent.  Returns the
 * characters kept; *len the bytes. */
static int key_cut(char *key, size_t *len)
{
	int chars = 0;
	for (size_t i = 0; i < *len; i++) {
		if (((unsigned char)key[i] & 0xc0) == 0x80)
			continue; /* (inside a character) */
		if (chars == KEY_CHARS - 1) {
			size_t rest = i;
			int more = 0;
			for (size_t j = i; j < *len; j++)
				more += ((unsigned char)key[j] & 0xc0) != 0x80;
			if (more > 1) { /* (more than the last one) */
				memcpy(key + rest, "\xe2\x80\xa6", 4);
				*len = rest + 3;
				return KEY_CHARS;
			}
		}
		chars++;
	}
	return chars;
}

static void text_groups(const char *title, const struct weft_stats_group *g,
			uint32_t n, uint32_t top)
{
	printf("\n%s%s:\n  %-28s %7s %7s %6s  %-34s %s\n", title,
	       n > top ? " (most frequent first)" : "", "", "count", "pending",
	       "failed", "lifetime p50/p90/p99/max", "running p50/p90/p99/max");
	for (uint32_t i = 0; i < n && i < top; i++) {
		char key[1024], life[100], ran[100];
		const char *kt = *g[i].key ? g[i].key : "(none)";
		size_t kl = weft_utf8_fix(key, sizeof key, kt, strlen(kt));
		int chars = key_cut(key, &kl);
		quantiles(life, sizeof life, g[i].life);
		quantiles(ran, sizeof ran, g[i].run);
		printf("  ");
		print_escaped(stdout, key, kl);
		printf("%*s %7u %7u %6u  %-34s %s\n", 28 - chars, "",
		       g[i].count, g[i].pending, g[i].failed, life, ran);
	}
	if (n > top)
		printf("  ... %u more\n", n - top);
}

static void json_groups(const char *name, const struct weft_stats_group *g,
			uint32_t n)
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

/* A counter summed over the processes that keep one of its name. */
struct sum_line {
	uint32_t processes, n;
	int64_t min, max, last;
};

/* The sum of counter i's name, said once (at its first series) and only
 * when several processes keep it: 1, else 0.  From S's sums where it has
 * them (a lean model keeps no samples), else from the model's samples. */
static int sum_of(const struct weft_model *m, const struct weft_stats *S,
		  const struct weft_counter *ctr, uint32_t i,
		  struct sum_line *x)
{
	for (uint32_t k = 0; k < i; k++)
		if (ctr[k].name == ctr[i].name)
			return 0;
	if (S->sums) {
		for (uint32_t k = 0; k < S->nsums; k++) {
			const struct weft_stats_sum *y = &S->sums[k];
			if (y->name != ctr[i].name)
				continue;
			if (y->processes < 2 || !y->n)
				return 0;
			x->processes = y->processes;
			x->n = y->n;
			x->min = y->min;
			x->max = y->max;
			x->last = y->last;
			return 1;
		}
		return 0;
	}
	struct weft_sample *s;
	if (weft_model_counter_sum(m, ctr[i].name, &s, &x->n, &x->processes))
		die("out of memory");
	if (x->processes < 2 || !x->n) {
		free(s);
		return 0;
	}
	x->min = x->max = s[0].value;
	for (uint32_t k = 1; k < x->n; k++) {
		x->min = s[k].value < x->min ? s[k].value : x->min;
		x->max = s[k].value > x->max ? s[k].value : x->max;
	}
	x->last = s[x->n - 1].value;
	free(s);
	return 1;
}

/* `--from`/`--to`: the summary of a range (stats.h), as the viewers'
 * summary panel shows it; the JSON is the library's. */
/* d[48] */
static const char *tfmt(char *d, int64_t ns, int64_t prec)
{
	weft_time_fmt(ns, prec, d, 48);
	return d;
}

static int range_summary(const struct weft_model *m, const char *path,
			 int64_t from, int64_t to, int json, uint32_t top)
{
	int64_t origin, end;
	weft_model_range(m, &origin, &end);
	int64_t a = from >= 0 ? origin + from : origin;
	/* (a --to past the end is the end: the trace holds nothing after) */
	int64_t b = to >= 0 && to < end - origin ? origin + to : end;
	if (from >= 0 && a > end)
		return error("--from %s is past the end of the trace (%s)",
			     fmt_time((char[32]){0}, 32, from),
			     fmt_time((char[32]){0}, 32, end - origin));
	if (b < a)
		return error("--to is before --from");
	struct weft_summary *s;
	if (weft_summary_compute(&s, m, a, b))
		return error("out of memory");
	if (json) {
		size_t n = weft_summary_json(s, m, origin, NULL, 0);
		char *buf = malloc(n + 1);
		if (!buf) {
			weft_summary_free(s);
			return error("out of memory");
		}
		weft_summary_json(s, m, origin, buf, n + 1);
		printf("%s\n", buf);
		free(buf);
		weft_summary_free(s);
		return 0;
	}
	char d[4][48];
	int64_t q = s->prec; /* (times as the viewers' summary writes them) */
	printf("trace %s from %s to %s (%s): %u async threads, %u began, "
	       "%u ended, %u failed\n",
	       path, tfmt(d[0], a - origin, q), tfmt(d[1], b - origin, q),
	       tfmt(d[2], b - a, q), s->threads, s->began, s->ended, s->failed);
	for (int by = 0; by < 2; by++) {
		const struct weft_summary_group *gs = by ? s->labels
							 : s->groups;
		uint32_t ng = by ? s->nlabels : s->ngroups;
		printf("\nby %s%s:\n  %-28s %7s %6s %6s %6s  %-14s %-14s "
		       "%-14s  %s\n",
		       by ? "label" : "kind",
		       ng > top ? " (most threads first)" : "", "", "threads",
		       "began", "ended", "failed", "total", "p50", "p99",
		       "running/waiting");
		for (uint32_t i = 0; i < ng && i < top; i++) {
			const struct weft_summary_group *g = &gs[i];
			char key[1024], r[2][48];
			const char *kt = by ? g->label : g->kind_name;
			kt = *kt ? kt : "(none)";
			size_t kl =
				weft_utf8_fix(key, sizeof key, kt, strlen(kt));
			int chars = key_cut(key, &kl);
			printf("  ");
			print_escaped(stdout, key, kl);
			printf("%*s %7u %6u %6u %6u  %-14s %-14s %-14s  "
			       "%s/%s\n",
			       28 - chars, "", g->threads, g->began, g->ended,
			       g->failed,
			       g->ended ? tfmt(d[0], g->total, q) : "-",
			       g->ended ? tfmt(d[1], g->p50, q) : "-",
			       g->ended ? tfmt(d[2], g->p99, q) : "-",
			       tfmt(r[0], g->running, q),
			       tfmt(r[1], g->waiting, q));
		}
		if (ng > top)
			printf("  ... %u more\n", ng - top);
	}
	uint32_t nst, npr;
	const struct weft_model_stream *st = weft_model_streams(m, &nst);
	const struct weft_model_process *pr = weft_model_processes(m, &npr);
	printf("\nprocesses:\n");
	for (uint32_t i = 0; i < s->nprocs; i++) {
		const struct weft_summary_process *x = &s->procs[i];
		int known = x->process < npr;
		printf("  pid %-8u %-16s running %s  idle %s  other %s\n",
		       known ? pr[x->process].pid : 0,
		       known ? pr[x->process].comm : "(unknown)",
		       tfmt(d[0], x->running, q), tfmt(d[1], x->idle, q),
		       tfmt(d[2], x->other, q));
	}
	printf("\nOS threads:\n");
	for (uint32_t i = 0; i < s->nos; i++) {
		const struct weft_summary_os *x = &s->os[i];
		printf("  tid %-8u %-16s running %s  idle %s  other %s\n",
		       x->stream < nst ? st[x->stream].tid : 0,
		       x->stream < nst ? st[x->stream].name : "",
		       tfmt(d[0], x->running, q), tfmt(d[1], x->idle, q),
		       tfmt(d[2], x->other, q));
	}
	printf("\narrows:\n");
	for (int k = 0; k < WEFT_ARROW_KINDS; k++)
		if (s->arrows[k])
			printf("  %-24s %u\n", weft_arrow_name(k),
			       s->arrows[k]);
	weft_summary_free(s);
	return 0;
}

int cmd_stats(int argc, char **argv)
{
	int json = 0, top_arg = 20, sum_counters = 0, in_memory = 0;
	int64_t from = -1, to = -1;
	struct traces tr = {0};
	const struct opt opts[] = {
		{"--json", NULL, NULL,
		 "one JSON object instead of text (every "
		 "group, not only the top ones)",
		 OPT_FLAG, &json},
		{"--top", NULL, "N",
		 "how many kinds and labels to list, most "
		 "frequent first, %R (default 20)",
		 OPT_INT, &top_arg, 1, 1000000},
		{"--sum-counters", NULL, NULL,
		 "also each counter that several "
		 "processes keep summed over them (a counter belongs to its "
		 "process)",
		 OPT_FLAG, &sum_counters},
		{"--in-memory", NULL, NULL,
		 "build the whole model first (as "
		 "the viewers do) instead of one pass in bounded memory: "
		 "exact percentiles of loop phases at any size",
		 OPT_FLAG, &in_memory},
		{"--from", NULL, "T",
		 "summarise only the range from T, counted "
		 "from the start of the trace (2.5ms, 120us; a bare number is "
		 "seconds): what the viewers' range summary shows",
		 OPT_DURATION, &from, 0, 0, 1e9},
		{"--to", NULL, "T",
		 "summarise only the range to T (default with "
		 "--from: the end of the trace)",
		 OPT_DURATION, &to, 0, 0, 1e9},
		TRACES_OPT(&tr),
		OPT_END,
	};
	const struct cmd_usage u = {"stats", "[OPTIONS] TRACE...",
				    "Per kind and per label of async threads: "
				    "counts, lifetime and "
				    "running time (p50/p90/p99/max), failures, "
				    "pending; OS threads' "
				    "busy and idle shares; the longest runs; "
				    "an event loop's time "
				    "by phase; counters; losses.",
				    opts, 0};
	int rc = parse_traces(&u, argc, argv, &tr);
	if (rc >= 0)
		return rc;
	uint32_t top = (uint32_t)top_arg;
	const char *path = traces_name(&tr);
	struct weft_reader *r;
	struct weft_model *m;
	if (from >= 0 || to >= 0) {
		/* (a range's summary is of the whole model) */
		m = traces_model(&tr, &r);
		traces_release(&tr);
		if (!m)
			return 1;
		rc = range_summary(m, path, from, to, json, top);
		weft_model_free(m);
		weft_reader_close(r);
		return rc;
	}
	struct weft_stats *S;
	if (in_memory) {
		m = traces_model(&tr, &r);
		traces_release(&tr);
		if (!m)
			return 1;
		if (weft_stats_compute(&S, m)) {
			weft_model_free(m);
			weft_reader_close(r);
			return error("out of memory");
		}
	} else {
		/* one pass: a lean model feeds the statistics (huge.md) */
		r = traces_open(&tr, 0);
		traces_release(&tr);
		if (!r)
			return 1;
		struct weft_stats_stream *ss = NULL;
		long err = weft_model_new(&m, r);
		if (!err)
			err = weft_stats_stream_new(&ss, m);
		if (!err && (err = weft_model_update(m)) >= 0)
			err = weft_stats_stream_finish(ss, &S);
		weft_stats_stream_free(ss);
		if (err < 0) {
			weft_model_free(m);
			weft_reader_close(r);
			return error("cannot model %s: %s", path,
				     weft_strerror((int)err));
		}
	}
	const struct weft_trace_info *in = weft_reader_info(r);
	uint32_t nth, nst, nctr;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_model_stream *st = weft_model_streams(m, &nst);
	const struct weft_counter *ctr = weft_model_counters(m, &nctr);
	const struct weft_losses *lo = &in->losses;
	int64_t t0 = S->t0, t1 = S->t1;
	/* times shown count from the trace's first event, as everywhere */
	int64_t origin, o1;
	weft_model_range(m, &origin, &o1);
	double span = t1 > t0 ? (double)(t1 - t0) : 1;
	uint32_t n = S->threads, nlong = S->nlongest, npg = S->nphases;
	const struct weft_stats_phase *pg = S->phases;

	if (json) {
		printf("{\"events\":%" PRIu64, in->events);
		printf(",\"duration_ns\":%" PRId64, t1 - t0);
		printf(",\"threads\":%u", n);
		json_groups("kinds", S->kinds, S->nkinds);
		json_groups("labels", S->labels, S->nlabels);
		printf(",\"os_threads\":[");
		for (uint32_t s = 0; s < nst; s++) {
			printf("%s{\"tid\":%u,\"name\":", s ? "," : "",
			       st[s].tid);
			weft_json_string(stdout, st[s].name);
			printf(",\"busy_ns\":%" PRId64 ",\"idle_ns\":%" PRId64
			       ",\"busy_share\":%.4f,\"idle_share\":%.4f}",
			       st[s].busy_ns, st[s].idle_ns,
			       t1 > t0 ? (double)st[s].busy_ns /
						 (double)(t1 - t0)
				       : 0.0,
			       t1 > t0 ? (double)st[s].idle_ns /
						 (double)(t1 - t0)
				       : 0.0);
		}
		printf("],\"longest_runs\":[");
		for (uint32_t i = 0; i < nlong; i++) {
			const struct weft_run *x = &S->longest_runs[i];
			char title[256];
			weft_model_title(m, x->thread, title, sizeof title);
			printf("%s{\"thread\":", i ? "," : "");
			weft_json_string(stdout, title);
			printf(",\"id\":\"0x%" PRIx64 "\"", th[x->thread].id);
			printf(",\"tid\":%u",
			       x->stream < nst ? st[x->stream].tid : 0);
			printf(",\"start_ns\":%" PRId64, x->t0 - origin);
			printf(",\"duration_ns\":%" PRId64 "}", x->t1 - x->t0);
		}
		printf("],\"loop_phases\":[");
		for (uint32_t i = 0; i < npg; i++) {
			const struct weft_stats_phase *x = &pg[i];
			static const char *q[4] = {"p50", "p90", "p99", "max"};
			printf("%s{\"tid\":%u,\"phase\":", i ? "," : "",
			       x->stream < nst ? st[x->stream].tid : 0);
			weft_json_string(stdout, weft_model_name(m, x->name));
			printf(",\"count\":%u", x->count);
			printf(",\"total_ns\":%" PRId64, x->total);
			printf(",\"share\":%.4f", (double)x->total / span);
			printf(",\"duration_ns\":{");
			for (int k = 0; k < 4; k++)
				printf("%s\"%s\":%" PRId64, k ? "," : "", q[k],
				       x->d[k]);
			printf("},\"longest\":{\"start_ns\":%" PRId64
			       ",\"duration_ns\":%" PRId64,
			       x->longest_t0 - origin,
			       x->longest_t1 - x->longest_t0);
			if (x->run != WEFT_NONE) {
				const struct weft_run *y = &x->longest_run;
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
		uint32_t nmp;
		const struct weft_model_process *mp =
			weft_model_processes(m, &nmp);
		for (uint32_t i = 0; i < nctr; i++) {
			printf("%s{\"name\":", i ? "," : "");
			weft_json_string(stdout,
					 weft_model_name(m, ctr[i].name));
			/* (whose: a counter belongs to its process) */
			if (nmp > 1 && ctr[i].process < nmp)
				printf(",\"pid\":%u", mp[ctr[i].process].pid);
			printf(",\"samples\":%u,\"min\":%" PRId64
			       ",\"max\":%" PRId64 ",\"last\":%" PRId64 "}",
			       ctr[i].nsamples, ctr[i].min, ctr[i].max,
			       weft_model_counter_last(m, i));
		}
		if (sum_counters) {
			printf("],\"counter_sums\":[");
			int any = 0;
			for (uint32_t i = 0; i < nctr; i++) {
				struct sum_line x;
				if (!sum_of(m, S, ctr, i, &x))
					continue;
				printf("%s{\"name\":", any++ ? "," : "");
				weft_json_string(stdout,
						 weft_model_name(m,
								 ctr[i].name));
				printf(",\"processes\":%u,\"samples\":%u,"
				       "\"min\":%" PRId64 ",\"max\":%" PRId64
				       ",\"last\":%" PRId64 "}",
				       x.processes, x.n, x.min, x.max, x.last);
			}
		}
		printf("],\"losses\":{\"packets_lost\":%" PRIu64,
		       lo->packets_lost);
		printf(",\"packets_torn\":%" PRIu64, lo->packets_torn);
		printf(",\"packets_corrupt\":%" PRIu64, lo->packets_corrupt);
		printf(",\"events_discarded\":%" PRIu64, lo->events_discarded);
		printf(",\"events_nested\":%" PRIu64, lo->events_nested);
		printf(",\"texts_truncated\":%" PRIu64 "}}\n",
		       lo->texts_truncated);
	} else {
		char d[32];
		printf("trace %s: %" PRIu64 " events over %s", path, in->events,
		       dur(d, sizeof d, t1 - t0));
		printf(", %u async threads, %u OS threads\n", n, nst);
		text_groups("by kind", S->kinds, S->nkinds, top);
		text_groups("by label", S->labels, S->nlabels, top);
		printf("\nOS threads:\n");
		struct tcol cb = {0}, ci = {0};
		for (uint32_t s = 0; s < nst; s++) {
			tcol_add(&cb, st[s].busy_ns);
			tcol_add(&ci, st[s].idle_ns);
		}
		for (uint32_t s = 0; s < nst; s++) {
			char b1[40], b2[40];
			printf("  tid %-8u %-16s busy %5.1f%% (%s)  idle "
			       "%5.1f%% "
			       "(%s)\n",
			       st[s].tid, st[s].name,
			       100.0 * (double)st[s].busy_ns / span,
			       tcol_fmt(&cb, b1, sizeof b1, st[s].busy_ns),
			       100.0 * (double)st[s].idle_ns / span,
			       tcol_fmt(&ci, b2, sizeof b2, st[s].idle_ns));
		}
		printf("\nlongest runs without yielding:\n");
		struct tcol cl = {0};
		for (uint32_t i = 0; i < nlong; i++)
			tcol_add(&cl,
				 S->longest_runs[i].t1 - S->longest_runs[i].t0);
		for (uint32_t i = 0; i < nlong; i++) {
			const struct weft_run *x = &S->longest_runs[i];
			char title[256], b1[40], b2[40];
			weft_model_title(m, x->thread, title, sizeof title);
			printf("  %10s  ",
			       tcol_fmt(&cl, b1, sizeof b1, x->t1 - x->t0));
			print_escaped(stdout, title, strlen(title));
			printf(" (0x%" PRIx64 ") on tid %u at %s s\n",
			       th[x->thread].id,
			       x->stream < nst ? st[x->stream].tid : 0,
			       fmt_ns(b2, sizeof b2, x->t0 - origin));
		}
		struct tcol ct = {0};
		for (uint32_t i = 0; i < npg; i++) {
			const struct weft_stats_phase *x = &pg[i];
			if (!i || x->stream != pg[i - 1].stream) {
				/* a table a thread: its totals' column */
				ct = (struct tcol){0};
				for (uint32_t j = i;
				     j < npg && pg[j].stream == x->stream; j++)
					tcol_add(&ct, pg[j].total);
			}
			if (!i || x->stream != pg[i - 1].stream)
				printf("\nloop phases, tid %u %s:\n  %-12s %8s "
				       "%10s %6s  %-36s %s\n",
				       x->stream < nst ? st[x->stream].tid : 0,
				       x->stream < nst ? st[x->stream].name
						       : "",
				       "", "count", "total", "share",
				       "p50/p90/p99/max",
				       "longest: at, and what ran longest in "
				       "it");
			char tot[40], b[100], at[40], rl[24];
			quantiles(b, sizeof b, x->d);
			const char *name = weft_model_name(m, x->name);
			printf("  ");
			print_escaped(stdout, name, strlen(name));
			printf("%*s %8u %10s %5.1f%%  %-36s %s s",
			       (int)(12 -
				     (strlen(name) < 12 ? strlen(name) : 12)),
			       "", x->count,
			       tcol_fmt(&ct, tot, sizeof tot, x->total),
			       100.0 * (double)x->total / span, b,
			       fmt_ns(at, sizeof at, x->longest_t0 - origin));
			if (x->run != WEFT_NONE) {
				const struct weft_run *y = &x->longest_run;
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
			for (uint32_t i = 0; i < nctr; i++) {
				/* each process's its own ("ticks (pid 42)") */
				char title[300];
				weft_model_counter_title(m, i, title,
							 sizeof title);
				printf("  %-24s %12" PRId64 " %12" PRId64
				       " %12" PRId64 " %8u\n",
				       title, ctr[i].min, ctr[i].max,
				       weft_model_counter_last(m, i),
				       ctr[i].nsamples);
			}
			for (uint32_t i = 0; sum_counters && i < nctr; i++) {
				struct sum_line x;
				if (!sum_of(m, S, ctr, i, &x))
					continue;
				char title[300];
				snprintf(title, sizeof title,
					 "%s (sum of %u processes)",
					 weft_model_name(m, ctr[i].name),
					 x.processes);
				printf("  %-24s %12" PRId64 " %12" PRId64
				       " %12" PRId64 " %8u\n",
				       title, x.min, x.max, x.last, x.n);
			}
		}
		printf("\nlosses: %" PRIu64 " packets lost", lo->packets_lost);
		printf(", %" PRIu64 " torn", lo->packets_torn);
		printf(", %" PRIu64 " corrupt", lo->packets_corrupt);
		printf("; %" PRIu64 " events discarded", lo->events_discarded);
		printf(" (%" PRIu64 " from signal handlers)",
		       lo->events_nested);
		printf("; %" PRIu64 " texts truncated\n", lo->texts_truncated);
	}
	weft_stats_free(S);
	weft_model_free(m);
	rc = report_losses(r, path);
	weft_reader_close(r);
	return rc;
}
