/* SPDX-License-Identifier: MIT */
/*
 * range.c - the measured range's summary panel (view.h): what the range
 * holds, as libweft-read computes it (weft_summary_compute, the numbers
 * of `weft stats --from --to`), in the lines both viewers list; a click
 * on a group's line highlights its threads.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "view-internal.h"
#include "common/out.h"
#include "weft/stats.h"

/* The summary of the measured range, computed again only when the range
 * or the model changed; NULL when there is none. */
static const struct weft_summary *summary(struct weft_view *v)
{
	int64_t t0, t1;
	if (!weft_view_measure(v, &t0, &t1)) {
		weft_summary_free(v->range.sum);
		v->range.sum = NULL;
		return NULL;
	}
	/* within the trace, as `weft stats --from --to` takes it: a measure
	 * may start before the trace or end after it */
	int64_t lo, hi;
	weft_model_range(v->m, &lo, &hi);
	t0 = t0 < lo ? lo : t0 > hi ? hi : t0;
	t1 = t1 > hi ? hi : t1 < lo ? lo : t1;
	uint32_t nth, nrun, nar;
	weft_model_threads(v->m, &nth);
	weft_model_runs(v->m, &nrun);
	weft_model_arrows(v->m, &nar);
	int64_t key[5] = {t0, t1, nth, nrun, nar};
	if (v->range.sum && !memcmp(key, v->range.key, sizeof key))
		return v->range.sum;
	weft_summary_free(v->range.sum);
	v->range.sum = NULL;
	if (weft_summary_compute(&v->range.sum, v->m, t0, t1))
		return NULL;
	memcpy(v->range.key, key, sizeof key);
	return v->range.sum;
}

/* The labels listed: those that several threads in the range share, at
 * most SHOWN_LABELS (a request's own label, one thread each, would list
 * every request). */
#define SHOWN_LABELS 20
static uint32_t shown_labels(const struct weft_summary *s)
{
	uint32_t n = 0;
	while (n < s->nlabels && n < SHOWN_LABELS && s->labels[n].threads > 1)
		n++;
	return n;
}

uint32_t weft_view_summary_lines(struct weft_view *v)
{
	const struct weft_summary *s = summary(v);
	return s ? 1 + s->ngroups + shown_labels(s) + s->nprocs + 1 : 0;
}

/* The group of line i (and its threads), or NULL. */
static const struct weft_summary_group *
line_group(const struct weft_summary *s, uint32_t i, const uint32_t **members)
{
	if (i >= 1 && i <= s->ngroups) {
		*members = s->members;
		return &s->groups[i - 1];
	}
	if (i > s->ngroups && i <= s->ngroups + shown_labels(s)) {
		*members = s->lmembers;
		return &s->labels[i - 1 - s->ngroups];
	}
	return NULL;
}

/* (times as `weft stats --from --to` writes them: "1.500 ms") */
static int64_t prec;
static const char *dur(char *buf, size_t cap, int64_t ns)
{
	weft_time_fmt(ns, prec, buf, cap);
	return buf;
}

static void group_line(struct weft__out *o, const struct weft_summary_group *g)
{
	char d[5][48];
	if (*g->label)
		weft__put(o, "label %s", g->label);
	else
		weft__put(o, "%s", *g->kind_name ? g->kind_name : "(no kind)");
	weft__put(o, ": %u in range, %u began, %u ended, %u failed", g->threads,
		  g->began, g->ended, g->failed);
	if (g->ended)
		weft__put(o, "; lifetime total %s, p50 %s, p99 %s",
			  dur(d[0], sizeof d[0], g->total),
			  dur(d[1], sizeof d[1], g->p50),
			  dur(d[2], sizeof d[2], g->p99));
	weft__put(o, "; ran %s, waited %s", dur(d[3], sizeof d[3], g->running),
		  dur(d[4], sizeof d[4], g->waiting));
}

size_t weft_view_summary_line(struct weft_view *v, uint32_t i, char *buf,
			      size_t cap)
{
	struct weft__out o = {buf, cap, 0};
	if (cap)
		*buf = 0;
	const struct weft_summary *s = summary(v);
	if (!s)
		return 0;
	char d[3][48];
	prec = s->prec;
	if (i == 0) {
		weft__put(&o,
			  "%s: %u async threads, %u began, %u ended, %u failed",
			  dur(d[0], sizeof d[0], s->t1 - s->t0), s->threads,
			  s->began, s->ended, s->failed);
		return o.n;
	}
	const uint32_t *mem;
	const struct weft_summary_group *g = line_group(s, i, &mem);
	if (g) {
		group_line(&o, g);
		return o.n;
	}
	i -= 1 + s->ngroups + shown_labels(s);
	if (i < s->nprocs) {
		uint32_t npr;
		const struct weft_model_process *pr =
			weft_model_processes(v->m, &npr);
		const struct weft_summary_process *x = &s->procs[i];
		if (x->process < npr)
			weft__put(&o, "pid %u %s", pr[x->process].pid,
				  pr[x->process].comm);
		else
			weft__put(&o, "no process");
		weft__put(&o, ": running %s, idle %s, other %s",
			  dur(d[0], sizeof d[0], x->running),
			  dur(d[1], sizeof d[1], x->idle),
			  dur(d[2], sizeof d[2], x->other));
		return o.n;
	}
	if (i > s->nprocs)
		return 0;
	weft__put(&o, "arrows:");
	int any = 0;
	for (int k = 0; k < WEFT_ARROW_KINDS; k++)
		if (s->arrows[k])
			weft__put(&o, "%s %s %u", any++ ? "," : "",
				  weft_arrow_name(k), s->arrows[k]);
	if (!any)
		weft__put(&o, " none");
	return o.n;
}

uint32_t weft_view_summary_pick(struct weft_view *v, uint32_t i)
{
	const struct weft_summary *s = summary(v);
	const uint32_t *mem;
	const struct weft_summary_group *g = s ? line_group(s, i, &mem) : NULL;
	return g ? weft_view_mark(v, mem + g->first, g->threads) : 0;
}

size_t weft_view_summary_json(struct weft_view *v, char *buf, size_t cap)
{
	const struct weft_summary *s = summary(v);
	if (!s) {
		if (cap)
			*buf = 0;
		return 0;
	}
	return weft_summary_json(s, v->m, v->time.tmin, buf, cap);
}
