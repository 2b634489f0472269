/* SPDX-License-Identifier: MIT */
/*
 * describe.c - a thread for the inspectors: its entries (arrows, waits,
 * labels, notes) as data, and described in lines of text (in the words
 * of words.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/out.h"
#include "weft/model.h"
#include "weft/stats.h"
#include "model-notes.h"

/* ------------------------------------------------------------- describe */

/* A duration for people ("850 ns", "12.5 us", "3.2 ms"), as the
 * renderer writes them. */
static const char *dur_str(char *buf, size_t cap, double ns)
{
	static const char *const unit[] = {"ns", "us", "ms", "s"};
	int u = 0;
	while (u < 3 && ns >= 1e3) {
		ns /= 1e3;
		u++;
	}
	snprintf(buf, cap, u ? "%.3g %s" : "%.0f %s", ns, unit[u]);
	return buf;
}

static int64_t life_end(const struct weft_model *m, uint32_t t);

/* The time a thread ran within its life (a thread that resolves itself
 * runs on to its yield: not a part of its life). */
static int64_t run_sum(const struct weft_model *m, uint32_t t)
{
	uint32_t k, n, nth;
	const uint32_t *ri = weft_model_thread_runs(m, t, &k);
	const struct weft_run *r = weft_model_runs(m, &n);
	int64_t lo = weft_model_threads(m, &nth)[t].t_create;
	int64_t hi = life_end(m, t);
	int64_t sum = 0;
	for (uint32_t i = 0; i < k; i++) {
		int64_t a = r[ri[i]].t0 < lo ? lo : r[ri[i]].t0;
		int64_t b = r[ri[i]].t1 > hi ? hi : r[ri[i]].t1;
		sum += b > a ? b - a : 0;
	}
	return sum;
}

/* When a wait by `waiter` on `on` that began at t0 ended: at the first
 * of the awaited thread's end and the waiter's next run (it was woken);
 * neither: at the end of the trace. */
static int64_t wait_end(const struct weft_model *m, uint32_t waiter,
			uint32_t on, int64_t t0, uint8_t *how)
{
	uint32_t nth, k, nr;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const uint32_t *ri = weft_model_thread_runs(m, waiter, &k);
	const struct weft_run *r = weft_model_runs(m, &nr);
	int64_t end, lo;
	weft_model_range(m, &lo, &end);
	*how = WEFT_WAIT_AT_END;
	if (on < nth && th[on].end != WEFT_END_PENDING && th[on].t_end >= t0) {
		end = th[on].t_end;
		*how = WEFT_WAIT_ENDED;
	}
	for (uint32_t i = 0; i < k; i++)
		if (r[ri[i]].t0 > t0) {
			if (r[ri[i]].t0 < end) {
				end = r[ri[i]].t0;
				*how = WEFT_WAIT_WOKEN;
			}
			break;
		}
	return end > t0 ? end : t0;
}

static struct weft_entry arrow_entry(const struct weft_model *m, uint32_t t,
				     uint32_t i)
{
	uint32_t na;
	const struct weft_arrow *a = &weft_model_arrows(m, &na)[i];
	struct weft_entry e = {.t = a->t,
			       .dur = -1,
			       .arrow = i,
			       .text = WEFT_NONE,
			       .kind = WEFT_ENTRY_ARROW,
			       .out = a->from == t};
	e.other = a->from == t ? a->to : a->from;
	if (a->kind == WEFT_ARROW_TRY_READ) {
		/* (a wait on another process: since when it waits) */
		e.t = weft_model_arrow_sent(m, i);
		e.dur = wait_end(m, a->from, a->to, e.t, &e.wait) - e.t;
	}
	return e;
}

static int by_time(const void *pa, const void *pb)
{
	const struct weft_entry *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	/* then in the order they were recorded */
	uint32_t x = a->kind == WEFT_ENTRY_ARROW ? a->arrow : a->text;
	uint32_t y = b->kind == WEFT_ENTRY_ARROW ? b->arrow : b->text;
	return (x > y) - (x < y);
}

/* Its labels and notes, in the model's order (labels chained from the
 * latest by prev, notes by model-notes.h: no scan of the trace's). */
static int by_index(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static uint32_t text_entries(const struct weft_model *m, uint32_t t,
			     struct weft_entry *e, uint32_t cap)
{
	uint32_t nl, nth, n = 0, hops;
	const struct weft_label *lb = weft_model_labels(m, &nl);
	const struct weft_thread *th = weft_model_threads(m, &nth);
	if (t >= nth)
		return 0;
	/* (hops: a chain is never longer than the labels) */
	hops = 0;
	for (uint32_t l = th[t].label; l < nl && hops++ < nl; l = lb[l].prev)
		n++;
	hops = 0;
	for (uint32_t l = weft__model_note(m, t); l < nl && hops++ < nl;
	     l = weft__model_note_prev(m, l))
		n++;
	if (!e || !n)
		return n;
	uint32_t *ix = malloc((size_t)n * sizeof *ix), k = 0;
	if (!ix)
		return 0;
	hops = 0;
	for (uint32_t l = th[t].label; l < nl && k < n && hops++ < nl;
	     l = lb[l].prev)
		ix[k++] = l;
	hops = 0;
	for (uint32_t l = weft__model_note(m, t);
	     l < nl && k < n && hops++ < nl; l = weft__model_note_prev(m, l))
		ix[k++] = l;
	qsort(ix, k, sizeof *ix, by_index);
	uint32_t w = 0;
	for (uint32_t i = 0; i < k && w < cap; i++) {
		const struct weft_label *x = &lb[ix[i]];
		e[w++] = (struct weft_entry){
			.t = x->t,
			.dur = -1,
			.other = WEFT_NONE,
			.arrow = WEFT_NONE,
			.text = x->text,
			.kind = x->kind == WEFT_EV_NOTE ? WEFT_ENTRY_NOTE
							: WEFT_ENTRY_LABEL};
	}
	free(ix);
	return w;
}

/* Where a thread's life as the inspectors count it ends: its end, or
 * for one still pending the end of the trace (it is pending all that
 * while, however long ago it was last seen). */
static int64_t life_end(const struct weft_model *m, uint32_t t)
{
	uint32_t n;
	const struct weft_thread *x = &weft_model_threads(m, &n)[t];
	int64_t lo, hi;
	weft_model_range(m, &lo, &hi);
	return x->end == WEFT_END_PENDING && hi > x->t_end ? hi : x->t_end;
}

struct span {
	int64_t t0, t1;
};

static int by_start(const void *pa, const void *pb)
{
	const struct span *a = pa, *b = pb;
	return (a->t0 > b->t0) - (a->t0 < b->t0);
}

/* The time a thread waited, so that its durations add up: the union of
 * its own waits (its try-reads; two at once count once) within its life,
 * less the time it ran (a try-read is made running, and the thread runs
 * on until it yields).  Ran + waited <= its life. */
static int64_t wait_sum(const struct weft_model *m, uint32_t t)
{
	uint32_t k, na, nth, kr, nr;
	const uint32_t *ai = weft_model_thread_arrows(m, t, &k);
	const struct weft_arrow *ar = weft_model_arrows(m, &na);
	const struct weft_thread *x = &weft_model_threads(m, &nth)[t];
	const uint32_t *ri = weft_model_thread_runs(m, t, &kr);
	const struct weft_run *r = weft_model_runs(m, &nr);
	int64_t lo = x->t_create, hi = life_end(m, t);
	struct span *w = malloc(((size_t)k + 1) * sizeof *w);
	if (!w)
		return 0;
	uint32_t n = 0;
	for (uint32_t i = 0; i < k; i++)
		if (ar[ai[i]].kind == WEFT_ARROW_TRY_READ &&
		    ar[ai[i]].from == t) {
			struct weft_entry e = arrow_entry(m, t, ai[i]);
			int64_t a = e.t < lo ? lo : e.t;
			int64_t b = e.t + e.dur > hi ? hi : e.t + e.dur;
			if (b > a)
				w[n++] = (struct span){a, b};
		}
	qsort(w, n, sizeof *w, by_start);
	int64_t sum = 0, cur0 = 0, cur1 = INT64_MIN;
	uint32_t j = 0; /* the runs, in time order, walked along */
	for (uint32_t i = 0; i <= n; i++) {
		if (i < n && w[i].t0 <= cur1) {
			if (w[i].t1 > cur1)
				cur1 = w[i].t1;
			continue;
		}
		if (cur1 > cur0) { /* a stretch of waiting: less the runs */
			int64_t d = cur1 - cur0;
			while (j < kr && r[ri[j]].t1 <= cur0)
				j++;
			for (uint32_t q = j; q < kr && r[ri[q]].t0 < cur1;
			     q++) {
				int64_t a = r[ri[q]].t0 > cur0 ? r[ri[q]].t0
							       : cur0;
				int64_t b = r[ri[q]].t1 < cur1 ? r[ri[q]].t1
							       : cur1;
				d -= b > a ? b - a : 0;
			}
			sum += d;
		}
		if (i < n) {
			cur0 = w[i].t0;
			cur1 = w[i].t1;
		}
	}
	free(w);
	return sum;
}

int weft_model_inspect(const struct weft_model *m, uint32_t t,
		       struct weft_inspect *in)
{
	uint32_t nth, k;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	memset(in, 0, sizeof *in);
	if (t >= nth)
		return WEFT_EINVAL;
	in->lifetime = th[t].t_end - th[t].t_create;
	in->running = run_sum(m, t);
	const uint32_t *ai = weft_model_thread_arrows(m, t, &k);
	uint32_t nt = text_entries(m, t, NULL, 0);
	in->entries = calloc((size_t)k + nt + 1, sizeof *in->entries);
	if (!in->entries)
		return -ENOMEM;
	uint32_t na;
	const struct weft_arrow *ar = weft_model_arrows(m, &na);
	for (uint32_t i = 0; i < k; i++)
		if (ar[ai[i]].from != ar[ai[i]].to) /* (its own resolve) */
			in->entries[in->n++] = arrow_entry(m, t, ai[i]);
	in->waiting = wait_sum(m, t);
	in->n += text_entries(m, t, in->entries + in->n, nt);
	qsort(in->entries, in->n, sizeof *in->entries, by_time);
	return 0;
}

void weft_inspect_release(struct weft_inspect *in)
{
	if (!in)
		return;
	free(in->entries);
	memset(in, 0, sizeof *in);
}

/* Why a wait ended, as words after "until": the awaited thread's end
 * ("it resolved", "this one failed"), a wake, or none. */
static const char *wait_says(const struct weft_model *m, uint32_t t,
			     const struct weft_entry *e, char *buf, size_t cap)
{
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	uint32_t on = e->out ? e->other : t;
	if (e->wait == WEFT_WAIT_WOKEN)
		return "until woken";
	if (e->wait != WEFT_WAIT_ENDED || on >= nth)
		return "still waiting at the end";
	snprintf(buf, cap, "until %s %s", e->out ? "it" : "this one",
		 weft_end_name(th[on].end));
	return buf;
}

/* A time as every time weft shows and accepts: seconds from the trace's
 * first event, to the ns, in weft_time_fmt's groups ("0.000 085 001"),
 * its unit left to the sentence: what `weft why` and the ruler say, and
 * `weft render --start` takes. */
static const char *at_str(char *buf, size_t cap, const struct weft_model *m,
			  int64_t t)
{
	int64_t t0, t1;
	weft_model_range(m, &t0, &t1);
	/* (model times are clamped: no overflow) */
	size_t n = weft_time_fmt_in(t - t0, 1, 1000000000, buf, cap);
	if (n < cap && n >= 2 && !strcmp(buf + n - 2, " s"))
		buf[n - 2] = 0;
	return buf;
}

/* An arrow in words, from the inspected thread's side: what it did to
 * the other (out), or what the other did to it (in). */
static const char *const arrow_out[WEFT_ARROW_KINDS] = {
	[WEFT_ARROW_CREATE] = "created",
	[WEFT_ARROW_READ] = "its result read by",
	[WEFT_ARROW_READ_FAILED] = "its failure read by",
	[WEFT_ARROW_TRY_READ] = "waited on (not ready)",
	[WEFT_ARROW_RESOLVE] = "resolved",
	[WEFT_ARROW_FAIL] = "made fail",
	[WEFT_ARROW_SIGNAL] = "signalled",
	[WEFT_ARROW_BECOME] = "became",
	[WEFT_ARROW_CANCEL] = "cancelled",
};
static const char *const arrow_in[WEFT_ARROW_KINDS] = {
	[WEFT_ARROW_CREATE] = "created by",
	[WEFT_ARROW_READ] = "read the result of",
	[WEFT_ARROW_READ_FAILED] = "read the failure of",
	[WEFT_ARROW_TRY_READ] = "waited on (not ready) by",
	[WEFT_ARROW_RESOLVE] = "resolved by",
	[WEFT_ARROW_FAIL] = "made to fail by",
	[WEFT_ARROW_SIGNAL] = "signalled by",
	[WEFT_ARROW_BECOME] = "replaces",
	[WEFT_ARROW_CANCEL] = "cancelled by",
};

size_t weft_entry_text(const struct weft_model *m, uint32_t t,
		       const struct weft_entry *e, char *buf, size_t cap)
{
	struct weft__out o = {buf, cap, 0};
	char title[256], d[32];
	uint32_t na;
	const struct weft_arrow *ar = weft_model_arrows(m, &na);
	if (cap)
		buf[0] = 0;
	char when[40];
	weft__put(&o, "at %s s: ", at_str(when, sizeof when, m, e->t));
	if (e->kind != WEFT_ENTRY_ARROW) {
		weft__put(&o, "%s: %s",
			  e->kind == WEFT_ENTRY_NOTE ? "note" : "label",
			  weft_model_string(m, e->text));
		return o.n;
	}
	int k = e->arrow < na ? ar[e->arrow].kind : -1;
	weft__put(&o, "%s %s",
		  k < 0	   ? "touched by"
		  : e->out ? arrow_out[k]
			   : arrow_in[k],
		  weft_model_title(m, e->other, title, sizeof title));
	if (e->dur < 0 || e->wait == WEFT_WAIT_NONE)
		return o.n;
	char why[64];
	weft__put(&o, " for %s (%s)", dur_str(d, sizeof d, (double)e->dur),
		  wait_says(m, t, e, why, sizeof why));
	return o.n;
}

/* "lived 2.5 ms: ran 120 us, waited 2 ms, neither 380 us"; pending:
 * "pending for ... (to the end of the trace): ...".  The three add up to
 * the first (run_sum, wait_sum: within its life, apart). */
static void put_durations(struct weft__out *o, const struct weft_model *m,
			  uint32_t t)
{
	uint32_t n;
	const struct weft_thread *x = &weft_model_threads(m, &n)[t];
	char a[32], b[32], c[32], d[32];
	int64_t life = life_end(m, t) - x->t_create;
	int64_t ran = run_sum(m, t), waited = wait_sum(m, t);
	int64_t rest = life - ran - waited;
	weft__put(o, "\n%s %s%s: ran %s, waited %s, neither %s",
		  x->end == WEFT_END_PENDING ? "pending for" : "lived",
		  dur_str(a, sizeof a, (double)life),
		  x->end == WEFT_END_PENDING ? " (to the end of the trace)"
					     : "",
		  dur_str(b, sizeof b, (double)ran),
		  dur_str(c, sizeof c, (double)waited),
		  dur_str(d, sizeof d, (double)(rest > 0 ? rest : 0)));
}

size_t weft_model_describe_head(const struct weft_model *m, uint32_t t,
				char *buf, size_t cap)
{
	struct weft__out o = {buf, cap, 0};
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(m, &n);
	char title[256];
	if (cap)
		buf[0] = 0;
	if (t >= n)
		return 0;
	const struct weft_thread *x = &th[t];
	weft__put(&o, "%s\n", weft_model_title(m, t, title, sizeof title));
	if (x->flags & WEFT_THREAD_ROOT) {
		weft__put(&o, "the OS thread itself, when no async thread "
			      "runs");
		return o.n;
	}
	weft__put(&o, "id 0x%llx, kind %s", (unsigned long long)x->id,
		  x->kind ? weft_model_name(m, x->kind) : "(none)");
	if (x->incarnation)
		weft__put(&o, ", incarnation %u of its id", x->incarnation + 1);
	char when[40];
	weft__put(&o, "\n%s %s s, ",
		  x->flags & WEFT_THREAD_NO_CREATE ? "first seen (creation "
						     "lost)"
						   : "created",
		  at_str(when, sizeof when, m, x->t_create));
	if (x->end == WEFT_END_PENDING)
		weft__put(&o, "%s (last seen %s s)",
			  x->flags & WEFT_THREAD_SHOULD_RESOLVE ? "should "
								  "resolve, "
								  "never did"
								: "still "
								  "pending at "
								  "the end",
			  at_str(when, sizeof when, m, x->t_end));
	else
		weft__put(&o, "%s %s s", weft_end_name(x->end),
			  at_str(when, sizeof when, m, x->t_end));
	if (x->message != WEFT_NONE)
		weft__put(&o, ": %s", weft_model_string(m, x->message));
	put_durations(&o, m, t);
	if (x->end == WEFT_END_BECAME && x->became < n)
		weft__put(&o, "\nbecame: %s",
			  weft_model_title(m, x->became, title, sizeof title));
	if (x->parent < n)
		weft__put(&o, "\nparent: %s",
			  weft_model_title(m, x->parent, title, sizeof title));
	return o.n;
}

size_t weft_model_describe(const struct weft_model *m, uint32_t t, char *buf,
			   size_t cap)
{
	size_t len = weft_model_describe_head(m, t, buf, cap);
	struct weft_inspect in = {0};
	if (weft_model_inspect(m, t, &in))
		return len;
	struct weft__out o = {buf, cap, len};
	if (in.n)
		weft__put(&o, "\nentries: %u", in.n);
	for (uint32_t i = 0; i < in.n; i++) {
		weft__put(&o, "\n");
		size_t k = weft_entry_text(m, t, &in.entries[i],
					   o.n < cap ? buf + o.n : NULL,
					   o.n < cap ? cap - o.n : 0);
		o.n += k;
	}
	weft_inspect_release(&in);
	return o.n;
}
