/* SPDX-License-Identifier: MIT */
/*
 * summary.c - what a range of time holds (stats.h, "A range summary"):
 * async threads by kind and label, OS threads' and processes' running,
 * idle and other time, arrows by kind.  Computed once here for `weft
 * stats --from/--to` and both viewers' summary panels (the HTML viewer's
 * WebAssembly compiles this file too), so that their numbers agree.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/out.h"
#include "weft/stats.h"

static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t s;
	if (__builtin_add_overflow(a, b, &s))
		return b > 0 ? INT64_MAX : INT64_MIN; /* a corrupt trace */
	return s;
}

/* The length of [a0, a1] within [t0, t1] (0 when they do not meet). */
static int64_t clip(int64_t a0, int64_t a1, int64_t t0, int64_t t1)
{
	int64_t lo = a0 > t0 ? a0 : t0, hi = a1 < t1 ? a1 : t1;
	return hi > lo ? hi - lo : 0;
}

struct item {
	const char *kind, *label;
	uint32_t thread;
};

/* by kind (by label: its kind is "") */
static int by_group(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int c = strcmp(x->kind, y->kind);
	if (!c)
		c = strcmp(x->label, y->label);
	if (!c)
		c = x->thread < y->thread ? -1 : x->thread > y->thread;
	return c;
}

static int by_threads(const void *a, const void *b)
{
	const struct weft_summary_group *x = a, *y = b;
	if (x->threads != y->threads)
		return x->threads < y->threads ? 1 : -1;
	int c = strcmp(x->kind_name, y->kind_name);
	return c ? c : strcmp(x->label, y->label);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* Nearest rank. */
static int64_t rank(const int64_t *v, uint32_t n, double q)
{
	if (!n)
		return -1;
	uint32_t k = (uint32_t)(q * n + 0.999999);
	return v[(k ? k : 1) - 1];
}

void weft_summary_free(struct weft_summary *s)
{
	if (!s)
		return;
	free(s->groups);
	free(s->members);
	free(s->labels);
	free(s->lmembers);
	free(s->os);
	free(s->procs);
	free(s);
}

/* The groups of the n items (sorted by group), counts and durations,
 * into *out and *members; returns how many, or -ENOMEM.  The totals are
 * the kinds' (`total`). */
static long groups(struct weft_summary *s, const struct weft_model *m,
		   const struct item *it, uint32_t n, const int64_t *ran,
		   int64_t end_of_trace, struct weft_summary_group **out,
		   uint32_t **members, int total)
{
	const struct weft_thread *th = weft_model_threads(m, &(uint32_t){0});
	int64_t *life = malloc(((size_t)n + 1) * sizeof *life);
	*out = calloc((size_t)n + 1, sizeof **out);
	*members = malloc(((size_t)n + 1) * sizeof **members);
	if (!life || !*out || !*members) {
		free(life);
		return -ENOMEM;
	}
	uint32_t ng = 0;
	for (uint32_t i = 0; i < n;) {
		struct weft_summary_group *g = &(*out)[ng++];
		g->kind = th[it[i].thread].kind;
		g->kind_name = it[i].kind;
		g->label = it[i].label;
		g->first = i;
		uint32_t j = i, nl = 0;
		for (; j < n && !strcmp(it[j].kind, it[i].kind) &&
		       !strcmp(it[j].label, it[i].label);
		     j++) {
			const struct weft_thread *t = &th[it[j].thread];
			int pending = t->end == WEFT_END_PENDING;
			int64_t e = pending ? end_of_trace : t->t_end;
			(*members)[j] = it[j].thread;
			g->threads++;
			g->began += t->t_create >= s->t0 &&
				    t->t_create <= s->t1;
			if (!pending && t->t_end >= s->t0 &&
			    t->t_end <= s->t1) {
				g->ended++;
				g->failed += t->end == WEFT_END_FAILED;
				life[nl] = t->t_end - t->t_create;
				g->total = sat_add(g->total, life[nl]);
				nl++;
			}
			int64_t alive = clip(t->t_create, e, s->t0, s->t1);
			int64_t r = ran[it[j].thread];
			g->running = sat_add(g->running, r);
			g->waiting =
				sat_add(g->waiting, alive > r ? alive - r : 0);
		}
		qsort(life, nl, sizeof *life, cmp_i64);
		g->p50 = rank(life, nl, 0.50);
		g->p99 = rank(life, nl, 0.99);
		if (total) {
			s->threads += g->threads;
			s->began += g->began;
			s->ended += g->ended;
			s->failed += g->failed;
		}
		i = j;
	}
	free(life);
	/* (each group keeps its `first`: the members stay put) */
	qsort(*out, ng, sizeof **out, by_threads);
	return ng;
}

/* OS threads and processes: running, idle, other. */
static int places(struct weft_summary *s, const struct weft_model *m)
{
	uint32_t nst, nrun, nidle, npr;
	const struct weft_model_stream *st = weft_model_streams(m, &nst);
	const struct weft_run *run = weft_model_runs(m, &nrun);
	const struct weft_interval *idle =
		weft_model_intervals(m, WEFT_INTERVAL_IDLE, &nidle);
	weft_model_processes(m, &npr);
	s->os = calloc((size_t)nst + 1, sizeof *s->os);
	s->procs = calloc((size_t)npr + 2, sizeof *s->procs);
	if (!s->os || !s->procs)
		return -ENOMEM;
	s->nos = nst;
	for (uint32_t i = 0; i < nst; i++) {
		s->os[i].stream = i;
		s->os[i].process = st[i].process < npr ? st[i].process
						       : WEFT_NONE;
	}
	for (uint32_t i = 0; i < nrun; i++)
		if (run[i].stream < nst)
			s->os[run[i].stream].running = sat_add(
				s->os[run[i].stream].running,
				clip(run[i].t0, run[i].t1, s->t0, s->t1));
	for (uint32_t i = 0; i < nidle; i++)
		if (idle[i].stream < nst)
			s->os[idle[i].stream].idle = sat_add(
				s->os[idle[i].stream].idle,
				clip(idle[i].t0, idle[i].t1, s->t0, s->t1));
	int64_t span = s->t1 - s->t0;
	for (uint32_t i = 0; i < nst; i++) {
		struct weft_summary_os *o = &s->os[i];
		int64_t used = sat_add(o->running, o->idle);
		o->other = span > used ? span - used : 0;
	}
	/* processes in their order, then the OS threads of none */
	for (uint32_t p = 0; p <= npr; p++) {
		uint32_t want = p < npr ? p : WEFT_NONE;
		struct weft_summary_process *x = &s->procs[s->nprocs];
		memset(x, 0, sizeof *x);
		x->process = want;
		for (uint32_t i = 0; i < nst; i++) {
			if (s->os[i].process != want)
				continue;
			x->streams++;
			x->running = sat_add(x->running, s->os[i].running);
			x->idle = sat_add(x->idle, s->os[i].idle);
			x->other = sat_add(x->other, s->os[i].other);
		}
		s->nprocs += x->streams > 0;
	}
	return 0;
}

int weft_summary_compute(struct weft_summary **out, const struct weft_model *m,
			 int64_t t0, int64_t t1)
{
	*out = NULL;
	struct weft_summary *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	s->t0 = t0 < t1 ? t0 : t1;
	s->t1 = t0 < t1 ? t1 : t0;
	s->prec = 1;
	while (s->prec * 10 <= (s->t1 - s->t0) / 100000 && s->prec < 1000000000)
		s->prec *= 10;
	uint32_t nth, nrun, nlab, nar;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_run *run = weft_model_runs(m, &nrun);
	const struct weft_label *lab = weft_model_labels(m, &nlab);
	const struct weft_arrow *ar = weft_model_arrows(m, &nar);
	int64_t first, last;
	weft_model_range(m, &first, &last);

	struct item *it = malloc(((size_t)nth + 1) * sizeof *it);
	int64_t *ran = calloc((size_t)nth + 1, sizeof *ran);
	if (!it || !ran)
		goto oom;
	for (uint32_t i = 0; i < nrun; i++)
		if (run[i].thread < nth)
			ran[run[i].thread] = sat_add(ran[run[i].thread],
						     clip(run[i].t0, run[i].t1,
							  s->t0, s->t1));
	uint32_t n = 0;
	for (uint32_t t = 0; t < nth; t++) {
		if (th[t].flags & WEFT_THREAD_ROOT)
			continue;
		int64_t e = th[t].end == WEFT_END_PENDING ? last : th[t].t_end;
		if (th[t].t_create > s->t1 || e < s->t0)
			continue;
		it[n].kind = weft_model_name(m, th[t].kind);
		it[n].label = "";
		it[n].thread = t;
		n++;
	}
	qsort(it, n, sizeof *it, by_group);
	long ng = groups(s, m, it, n, ran, last, &s->groups, &s->members, 1);
	if (ng < 0)
		goto oom;
	s->ngroups = (uint32_t)ng;
	/* then by label, of those that have one */
	uint32_t nl = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t l = th[it[i].thread].label;
		if (l == WEFT_NONE || l >= nlab)
			continue;
		it[nl].kind = "";
		it[nl].label = weft_model_string(m, lab[l].text);
		it[nl++].thread = it[i].thread;
	}
	qsort(it, nl, sizeof *it, by_group);
	ng = groups(s, m, it, nl, ran, last, &s->labels, &s->lmembers, 0);
	if (ng < 0 || places(s, m))
		goto oom;
	s->nlabels = (uint32_t)ng;
	for (uint32_t i = 0; i < nar; i++)
		if (ar[i].t >= s->t0 && ar[i].t <= s->t1 &&
		    ar[i].kind < WEFT_ARROW_KINDS &&
		    !(ar[i].flags & WEFT_ARROW_FOLLOWED))
			s->arrows[ar[i].kind]++;
	free(it);
	free(ran);
	*out = s;
	return 0;
oom:
	free(it);
	free(ran);
	weft_summary_free(s);
	return -ENOMEM;
}

/* ------------------------------------------------------------ JSON */

static void str(struct weft__out *o, const char *s)
{
	weft__put(o, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			weft__put(o, "\\%c", *p);
		else if (*p < 0x20)
			weft__put(o, "\\u%04x", *p);
		else
			weft__put(o, "%c", *p);
	}
	weft__put(o, "\"");
}

static void share(struct weft__out *o, int64_t running, int64_t idle,
		  int64_t other)
{
	weft__put(o, ",\"running_ns\":%lld,\"idle_ns\":%lld,\"other_ns\":%lld}",
		  (long long)running, (long long)idle, (long long)other);
}

size_t weft_summary_json(const struct weft_summary *s,
			 const struct weft_model *m, int64_t origin, char *buf,
			 size_t cap)
{
	struct weft__out o = {buf, cap, 0};
	if (cap)
		*buf = 0;
	uint32_t nst, npr;
	const struct weft_model_stream *st = weft_model_streams(m, &nst);
	const struct weft_model_process *pr = weft_model_processes(m, &npr);
	weft__put(&o,
		  "{\"from_ns\":%lld,\"to_ns\":%lld,\"threads\":%u,\"began\":%"
		  "u,"
		  "\"ended\":%u,\"failed\":%u,\"groups\":[",
		  (long long)(s->t0 - origin), (long long)(s->t1 - origin),
		  s->threads, s->began, s->ended, s->failed);
	for (uint32_t i = 0; i < s->ngroups + s->nlabels; i++) {
		const struct weft_summary_group *g =
			i < s->ngroups ? &s->groups[i]
				       : &s->labels[i - s->ngroups];
		if (i == s->ngroups)
			weft__put(&o, "],\"labels\":[");
		weft__put(&o, "%s{\"kind\":", i && i != s->ngroups ? "," : "");
		str(&o, g->kind_name);
		weft__put(&o, ",\"label\":");
		str(&o, g->label);
		weft__put(&o,
			  ",\"threads\":%u,\"began\":%u,\"ended\":%u,"
			  "\"failed\":%u,"
			  "\"total_ns\":%lld,\"p50_ns\":%lld,\"p99_ns\":%lld,"
			  "\"running_ns\":%lld,\"waiting_ns\":%lld}",
			  g->threads, g->began, g->ended, g->failed,
			  (long long)g->total, (long long)g->p50,
			  (long long)g->p99, (long long)g->running,
			  (long long)g->waiting);
	}
	if (!s->nlabels)
		weft__put(&o, "],\"labels\":[");
	weft__put(&o, "],\"os_threads\":[");
	for (uint32_t i = 0; i < s->nos; i++) {
		const struct weft_summary_os *x = &s->os[i];
		weft__put(&o, "%s{\"tid\":%u,\"name\":", i ? "," : "",
			  x->stream < nst ? st[x->stream].tid : 0);
		str(&o, x->stream < nst ? st[x->stream].name : "");
		share(&o, x->running, x->idle, x->other);
	}
	weft__put(&o, "],\"processes\":[");
	for (uint32_t i = 0; i < s->nprocs; i++) {
		const struct weft_summary_process *x = &s->procs[i];
		int known = x->process < npr;
		weft__put(&o, "%s{\"pid\":%u,\"name\":", i ? "," : "",
			  known ? pr[x->process].pid : 0);
		str(&o, known ? pr[x->process].comm : "");
		share(&o, x->running, x->idle, x->other);
	}
	weft__put(&o, "],\"arrows\":{");
	for (int k = 0, c = 0; k < WEFT_ARROW_KINDS; k++) {
		if (!s->arrows[k])
			continue;
		weft__put(&o, "%s", c++ ? "," : "");
		str(&o, weft_arrow_name(k));
		weft__put(&o, ":%u", s->arrows[k]);
	}
	weft__put(&o, "}}");
	return o.n;
}
