/* SPDX-License-Identifier: MIT */
/*
 * cmd-ps.c - `weft ps`: what a live, hung or killed process is doing, as
 * its event loop sees it, at the last event its trace holds: each OS
 * thread (running which async thread, or idle and why, in which loop
 * phase), and each pending async thread: how long it has been pending,
 * whether it runs, what it waits on (the chain of waits of `weft why`,
 * with that verdict), longest pending first or by creator tree.
 */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/sorted.h"
#include "ps-scan.h"
#include "weft-tools.h"
#include "weft/model.h"

/* An OS thread at the end of its trace. */
struct os_now {
	int64_t end;  /* its last run's or idle period's end */
	int64_t pend; /* the same, the latest of its process's OS threads:
			     what it does at its end goes on until then */
	int has_run, has_idle, has_phase;
	struct weft_run run;	    /* its last run */
	struct weft_interval idle;  /* its last idle period */
	struct weft_interval phase; /* its last loop phase */
	int idle_now;		    /* idle at its end */
	uint32_t running; /* the async thread running at its end, or NONE */
};

/* What ps shows comes from its own pass over the trace (ps-scan.h), or
 * with --model from a brief model and weft why's index (the reference
 * the scan is checked against). */
struct ps {
	const struct weft_model *m; /* --model, else NULL */
	struct ps_scan *sc;	    /* else */
	struct weft_reader *r;
	const struct weft_thread *th;
	uint32_t nth;
	const struct weft_model_stream *st;
	const struct weft_model_process *pr;
	uint32_t np;
	struct os_now *os;
	uint32_t nos;
	int64_t t0, t1; /* the trace's first and last event */
	int64_t now;	/* a live writer's present on the model's axis (the
			   clock reads no event while a process blocks), or
			   INT64_MIN: not live */
	uint32_t *pend; /* the pending threads shown */
	uint32_t npend;
	uint32_t proc; /* the process asked for (PID), or NONE: all */
	struct weft_why_index *ix;
	int json;
	struct tcol pcol; /* the pending times' column (every pending) */
};

/* Each OS thread's last run, idle period and loop phase: the latest
 * ending (of those, the last a model lists). */
static void os_last(struct ps *p)
{
	if (!p->m) {
		for (uint32_t s = 0; s < p->nos; s++) {
			struct os_now *o = &p->os[s];
			const struct ps_stream *x = &p->sc->st[s];
			o->has_run = x->have_run;
			o->run = x->run;
			o->has_idle = x->have_idle;
			o->idle = x->idle_iv;
			o->has_phase = x->have_phase;
			o->phase = x->phase_iv;
		}
		return;
	}
	uint32_t nruns, nidle, nphase;
	const struct weft_run *runs = weft_model_runs(p->m, &nruns);
	const struct weft_interval *idle =
		weft_model_intervals(p->m, WEFT_INTERVAL_IDLE, &nidle);
	const struct weft_interval *phase =
		weft_model_intervals(p->m, WEFT_INTERVAL_PHASE, &nphase);
	for (uint32_t k = 0; k < nruns; k++) {
		struct os_now *o = &p->os[runs[k].stream];
		if (!o->has_run || runs[k].t1 >= o->run.t1) {
			o->run = runs[k];
			o->has_run = 1;
		}
	}
	for (uint32_t k = 0; k < nidle; k++) {
		struct os_now *o = &p->os[idle[k].stream];
		if (!o->has_idle || idle[k].t1 >= o->idle.t1) {
			o->idle = idle[k];
			o->has_idle = 1;
		}
	}
	for (uint32_t k = 0; k < nphase; k++) {
		struct os_now *o = &p->os[phase[k].stream];
		if (!o->has_phase || phase[k].t1 >= o->phase.t1) {
			o->phase = phase[k];
			o->has_phase = 1;
		}
	}
}

static void os_states(struct ps *p)
{
	for (uint32_t s = 0; s < p->nos; s++)
		p->os[s] = (struct os_now){.end = INT64_MIN,
					   .pend = INT64_MIN,
					   .running = WEFT_NONE};
	os_last(p);
	for (uint32_t s = 0; s < p->nos; s++) {
		struct os_now *o = &p->os[s];
		int64_t tr = o->has_run ? o->run.t1 : INT64_MIN;
		int64_t ti = o->has_idle ? o->idle.t1 : INT64_MIN;
		o->end = tr > ti ? tr : ti;
		/* an idle period that lasts to the end (a run that ended
		 * there began it): the OS thread blocks now */
		o->idle_now = o->has_idle && ti >= tr;
		if (!o->idle_now && o->has_run &&
		    !(p->th[o->run.thread].flags & WEFT_THREAD_ROOT))
			o->running = o->run.thread;
	}
	const struct weft_model_stream *st = p->st;
	uint32_t np = p->np;
	int64_t *last = malloc(((size_t)np + 1) * sizeof *last);
	for (uint32_t k = 0; last && k <= np; k++)
		last[k] = INT64_MIN;
	for (uint32_t s = 0; s < p->nos; s++) {
		/* (an OS thread of no known process: one of its own) */
		uint32_t k = st[s].process < np ? st[s].process : np;
		if (last && p->os[s].end > last[k])
			last[k] = p->os[s].end;
	}
	for (uint32_t s = 0; s < p->nos; s++)
		p->os[s].pend = !last		     ? p->t1
				: st[s].process < np ? last[st[s].process]
						     : p->os[s].end;
	free(last);
}

/* The thread's title, cut to fit a column. */
static const char *title(const struct ps *p, uint32_t t, char *buf, size_t cap)
{
	if (p->m)
		weft_model_title(p->m, t, buf, (unsigned)cap);
	else
		ps_title(p->sc, t, buf, (unsigned)cap);
	return buf;
}

static const char *kname(const struct ps *p, uint32_t kind)
{
	return weft_reader_name(p->r, kind);
}

static uint32_t thread_process(const struct ps *p, uint32_t t)
{
	return p->m ? weft_model_thread_process(p->m, t)
		    : ps_thread_process(p->sc, t);
}

/* weft why's answer for thread t (zeroes: none). */
static void why(const struct ps *p, uint32_t t, struct weft_why *w)
{
	if (p->m ? weft_why_at(p->ix, t, w) : ps_why(p->sc, t, w))
		memset(w, 0, sizeof *w);
}

/* The evidence of answer w (not NONE): its arrow's kind, from and time. */
static void evidence(const struct ps *p, const struct weft_why *w, int *kind,
		     uint32_t *from, int64_t *t)
{
	if (p->m) {
		uint32_t na;
		const struct weft_arrow *a = weft_model_arrows(p->m, &na);
		const struct weft_arrow *e = &a[w->evidence];
		*kind = e->kind;
		*from = e->kind == WEFT_ARROW_READ ? e->to : e->from;
		*t = e->t;
	} else {
		const struct ps_more *x = &p->sc->mo[w->evidence];
		*kind = x->ev_kind;
		*from = x->ev_from;
		*t = x->ev_t;
	}
}

static int64_t since(const struct ps *p, uint32_t t)
{
	return p->th[t].t_create - p->t0;
}

/* The end of what an OS thread's trace shows: now, for a live writer,
 * else its last event (`horizon`) -- a process that ended early stops
 * the clock there. */
static int64_t upto(const struct ps *p, int64_t horizon)
{
	return p->now > horizon ? p->now : horizon;
}

/* The end of the time since `from` that weft why's answer w measures:
 * its horizon, or (a verdict reached before one was worked out: a chain
 * truncated by a loss) the trace's last event. */
static int64_t why_end(const struct ps *p, const struct weft_why *w,
		       int64_t from)
{
	return upto(p, w->horizon >= from ? w->horizon : p->t1);
}

/* How long thread t has been pending. */
static int64_t pending_for(const struct ps *p, uint32_t t,
			   const struct weft_why *w)
{
	int64_t end = w->horizon > p->th[t].t_create ? w->horizon : p->t1;
	return upto(p, end) - p->th[t].t_create;
}

static int by_creation(const void *a, const void *b, void *ctx)
{
	const struct ps *p = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int64_t cx = p->th[x].t_create, cy = p->th[y].t_create;
	return cx < cy ? -1 : cx > cy ? 1 : x < y ? -1 : x > y;
}

static void json_thread_ref(const struct ps *p, uint32_t t)
{
	char buf[256];
	printf("{\"id\":%llu,\"title\":", (unsigned long long)p->th[t].id);
	weft_json_string(stdout, title(p, t, buf, sizeof buf));
	printf(",\"kind\":");
	weft_json_string(stdout, kname(p, p->th[t].kind));
	printf(",\"end\":\"%s\"}", weft_end_name(p->th[t].end));
}

/* The OS thread running t at the end, or NONE. */
static uint32_t runs_on(const struct ps *p, uint32_t t)
{
	for (uint32_t s = 0; s < p->nos; s++)
		if (p->os[s].running == t)
			return s;
	return WEFT_NONE;
}

/* What thread t is doing, in words (text) or as JSON fields. */
static void state(const struct ps *p, uint32_t t, const struct weft_why *w)
{
	char b1[256], b2[32];
	uint32_t on = runs_on(p, t);
	if (p->json) {
		const struct weft_model_stream *st = p->st;
		printf(",\"running_on\":");
		if (on != WEFT_NONE)
			printf("%u", st[on].tid);
		else
			printf("null");
		printf(",\"waits_on\":");
		if (w->nchain > 1) {
			json_thread_ref(p, w->chain[1].thread);
			printf(",\"waiting_ns\":%lld",
			       (long long)(why_end(p, w, w->chain[0].t_wait) -
					   w->chain[0].t_wait));
			printf(",\"blocker\":");
			json_thread_ref(p, w->chain[w->nchain - 1].thread);
		} else
			printf("null");
		printf(",\"verdict\":\"%s\"", weft_verdict_name(w->verdict));
		return;
	}
	if (on != WEFT_NONE) {
		const struct weft_model_stream *st = p->st;
		printf("running on OS thread %u", st[on].tid);
	} else if (w->nchain > 1) {
		uint32_t x = w->chain[1].thread;
		printf("waits on ");
		title(p, x, b1, sizeof b1);
		print_escaped(stdout, b1, strlen(b1));
		printf(" (0x%llx, %s) for %s", (unsigned long long)p->th[x].id,
		       kname(p, p->th[x].kind),
		       fmt_time(b2, sizeof b2,
				why_end(p, w, w->chain[0].t_wait) -
					w->chain[0].t_wait));
		if (w->nchain > 2) {
			uint32_t y = w->chain[w->nchain - 1].thread;
			printf(", which waits on ... ");
			title(p, y, b1, sizeof b1);
			print_escaped(stdout, b1, strlen(b1));
			printf(" (%u deep)", w->nchain - 1);
		}
	} else if (w->evidence != WEFT_NONE) {
		/* the blocker itself: touched, never read */
		int kind;
		uint32_t by;
		int64_t et;
		evidence(p, w, &kind, &by, &et);
		title(p, by, b1, sizeof b1);
		print_escaped(stdout, b1, strlen(b1));
		printf(" %s it %s ago; ", weft_arrow_verb(kind),
		       fmt_time(b2, sizeof b2, why_end(p, w, et) - et));
		if (w->waiter != WEFT_NONE) {
			title(p, w->waiter, b1, sizeof b1);
			print_escaped(stdout, b1, strlen(b1));
			printf(" waits on it and never read it");
		} else
			printf("nothing read it");
	} else if (w->waiter != WEFT_NONE) {
		title(p, w->waiter, b1, sizeof b1);
		print_escaped(stdout, b1, strlen(b1));
		printf(" waits on it; nothing touched it since");
	} else if (w->verdict == WEFT_VERDICT_UNAWAITED)
		printf("waits on nothing; nothing waits on it");
	else if (w->verdict == WEFT_VERDICT_IN_FLIGHT &&
		 w->ready != INT64_MIN && w->ready > 0)
		printf("ready (woken %s ago), not run since",
		       fmt_time(b2, sizeof b2,
				why_end(p, w, w->ready) - w->ready));
	else
		printf("waits on nothing recorded");
	if (WEFT_VERDICT_IS_FAULT(w->verdict))
		printf(" [%s]", weft_verdict_name(w->verdict));
}

static void print_thread(struct ps *p, uint32_t t, int depth)
{
	char b1[256], b2[40], b3[40];
	struct weft_why w;
	why(p, t, &w);
	if (p->json) {
		printf("{\"id\":%llu,\"depth\":%d,\"kind\":",
		       (unsigned long long)p->th[t].id, depth);
		weft_json_string(stdout, kname(p, p->th[t].kind));
		printf(",\"title\":");
		weft_json_string(stdout, title(p, t, b1, sizeof b1));
		uint32_t k = thread_process(p, t);
		printf(",\"pid\":");
		if (k < p->np)
			printf("%u", p->pr[k].pid);
		else
			printf("null");
		printf(",\"creator\":");
		if (p->th[t].parent != WEFT_NONE)
			json_thread_ref(p, p->th[t].parent);
		else
			printf("null");
		printf(",\"created_ns\":%lld,\"pending_ns\":%lld,"
		       "\"should_resolve\":%s",
		       (long long)since(p, t), (long long)pending_for(p, t, &w),
		       p->th[t].flags & WEFT_THREAD_SHOULD_RESOLVE ? "true"
								   : "false");
		state(p, t, &w);
		printf("}");
		return;
	}
	printf("%*s0x%-10llx %-14s %10s  ", 2 + 2 * depth, "",
	       (unsigned long long)p->th[t].id,
	       kname(p, p->th[t].kind)[0] ? kname(p, p->th[t].kind) : "-",
	       tcol_fmt(&p->pcol, b2, sizeof b2, pending_for(p, t, &w)));
	title(p, t, b1, sizeof b1);
	print_escaped(stdout, b1, strlen(b1));
	if (p->th[t].flags & WEFT_THREAD_SHOULD_RESOLVE)
		printf(" (should resolve)");
	printf("\n%*s  since %s s: ", 2 + 2 * depth + 12, "",
	       fmt_ns(b3, sizeof b3, since(p, t)));
	state(p, t, &w);
	putchar('\n');
}

/* The pending threads under their pending creators: for each of p->pend
 * in the model's order (byidx), its first child and next sibling by
 * creation, as places in byidx.  Sized by the pending threads, not by
 * every thread the trace made: arrays as long as the trace's threads
 * were half of ps's page faults. */
struct ps_tree {
	const uint32_t *byidx;
	uint32_t *first, *next, n;
};

/* t's place in byidx, or NONE (UINT32_MAX): not there. */
static uint32_t tree_slot(const struct ps_tree *tr, uint32_t t)
{
	return weft__sorted_find(tr->byidx, tr->n, t);
}

/* Pending thread t and, under it, its pending children, by creation;
 * returns how many it printed. */
static uint32_t print_tree(struct ps *p, uint32_t t, int depth,
			   const struct ps_tree *tr)
{
	print_thread(p, t, depth);
	uint32_t n = 1, k = tree_slot(tr, t);
	for (uint32_t c = k == WEFT_NONE ? WEFT_NONE : tr->first[k];
	     c != WEFT_NONE; c = tr->next[c]) {
		if (p->json)
			putchar(',');
		/* (deeper than 200: shown at that depth) */
		n += print_tree(p, tr->byidx[c],
				depth < 200 ? depth + 1 : depth, tr);
	}
	return n;
}

static void print_os(const struct ps *p)
{
	uint32_t ns = p->nos, np = p->np;
	const struct weft_model_stream *st = p->st;
	const struct weft_model_process *pr = p->pr;
	char b1[256], b2[32];
	int first = 1;
	for (uint32_t s = 0; s < ns; s++) {
		const struct os_now *o = &p->os[s];
		if (p->proc != WEFT_NONE && st[s].process != p->proc)
			continue;
		if (p->json) {
			printf("%s{\"tid\":%u,\"name\":", first ? "" : ",",
			       st[s].tid);
			weft_json_string(stdout, st[s].name);
			printf(",\"pid\":");
			if (st[s].process < np)
				printf("%u", pr[st[s].process].pid);
			else
				printf("null");
			printf(",\"state\":\"%s\"", o->idle_now ? "idle"
						    : o->running != WEFT_NONE
							    ? "running"
							    : "between");
			if (o->idle_now) {
				printf(",\"reason\":");
				weft_json_string(stdout,
						 kname(p, o->idle.name));
				printf(",\"for_ns\":%lld",
				       (long long)(upto(p, o->pend) -
						   o->idle.t0));
			}
			printf(",\"running\":");
			if (o->running != WEFT_NONE)
				json_thread_ref(p, o->running);
			else
				printf("null");
			printf(",\"phase\":");
			if (o->has_phase && o->phase.t1 >= o->end)
				weft_json_string(stdout,
						 kname(p, o->phase.name));
			else
				printf("null");
			printf("}");
			first = 0;
			continue;
		}
		printf("  %-7u %-16s ", st[s].tid, st[s].name);
		if (o->idle_now && upto(p, o->pend) == o->idle.t0)
			printf("idle in %s since its process's last event",
			       kname(p, o->idle.name));
		else if (o->idle_now)
			printf("idle in %s for %s", kname(p, o->idle.name),
			       fmt_time(b2, sizeof b2,
					upto(p, o->pend) - o->idle.t0));
		else if (o->running != WEFT_NONE) {
			printf("running ");
			title(p, o->running, b1, sizeof b1);
			print_escaped(stdout, b1, strlen(b1));
			printf(" for %s",
			       fmt_time(b2, sizeof b2,
					upto(p, o->pend) - o->run.t0));
		} else
			printf("between async threads");
		if (o->has_phase && o->phase.t1 >= o->end)
			printf(", in loop phase %s", kname(p, o->phase.name));
		if (o->end < p->t1 && o->end != INT64_MIN)
			printf(" (its last event %s before the trace's)",
			       fmt_time(b2, sizeof b2, p->t1 - o->end));
		putchar('\n');
	}
}

/* How process k ended, for a person: a single ring's process knows only
 * what its ring's writer says. */
static const char *proc_state(const struct ps *p, uint32_t k, char *buf,
			      size_t cap)
{
	uint32_t np = p->np;
	const struct weft_model_process *pr = p->pr;
	if (pr[k].end == WEFT_PROC_RUNNING && np == 1) {
		int wr = weft_reader_info(p->r)->writer;
		if (wr == WEFT_WRITER_STOPPED)
			return "stopped tracing (it exited, or called "
			       "weft_stop)";
		if (wr == WEFT_WRITER_GONE)
			return "gone without stopping its tracing (killed, "
			       "or crashed)";
	}
	return weft_process_says(pr[k].end, pr[k].status, buf, cap);
}

/* Whether thread t is one ps counts (not an OS thread's root; of the
 * process asked for, if one was), and (*pending) one it lists. */
static int counted(const struct ps *p, uint32_t t, int *pending)
{
	*pending = 0;
	if (p->th[t].flags & WEFT_THREAD_ROOT)
		return 0;
	if (p->proc != WEFT_NONE && thread_process(p, t) != p->proc)
		return 0;
	*pending = p->th[t].end == WEFT_END_PENDING;
	return 1;
}

static int ps_show(struct ps *p, int tree, uint32_t limit)
{
	uint32_t np = p->np;
	const struct weft_model_process *pr = p->pr;
	uint32_t created = 0, npend = 0;
	int pending;
	for (uint32_t t = 0; t < p->nth; t++) {
		created += counted(p, t, &pending);
		npend += pending;
	}
	size_t n = (size_t)npend + 1;
	p->pend = malloc(n * sizeof *p->pend);
	uint32_t *byidx = malloc(n * sizeof *byidx);
	struct ps_tree tr = {byidx, malloc(n * sizeof *tr.first),
			     malloc(n * sizeof *tr.next), npend};
	if (!p->pend || !byidx || !tr.first || !tr.next) {
		free(byidx);
		free(tr.first);
		free(tr.next);
		return error("out of memory");
	}
	p->npend = 0;
	for (uint32_t t = 0; t < p->nth && p->npend < npend; t++)
		if (counted(p, t, &pending) && pending)
			byidx[p->npend++] = t;
	memcpy(p->pend, byidx, (size_t)p->npend * sizeof *byidx);
	for (uint32_t k = 0; k < npend; k++)
		tr.first[k] = tr.next[k] = WEFT_NONE;
	qsort_r(p->pend, p->npend, sizeof *p->pend, by_creation, p);
	/* the tree: a pending thread under its pending creator, in
	 * creation order (pend is sorted so) */
	for (uint32_t k = p->npend; k-- > 0;) {
		uint32_t t = p->pend[k], c = p->th[t].parent;
		if (c != WEFT_NONE && p->th[c].end == WEFT_END_PENDING &&
		    !(p->th[c].flags & WEFT_THREAD_ROOT)) {
			uint32_t ct = tree_slot(&tr, c), tt = tree_slot(&tr, t);
			if (ct == WEFT_NONE) /* (another process's, left out) */
				continue;
			tr.next[tt] = tr.first[ct];
			tr.first[ct] = tt;
		}
	}
	char b1[40], b2[32];
	if (p->json) {
		printf("{\"at_ns\":%lld,\"last_event_ns\":%lld,\"live\":%s,"
		       "\"processes\":[",
		       (long long)(upto(p, p->t1) - p->t0),
		       (long long)(p->t1 - p->t0),
		       p->now != INT64_MIN ? "true" : "false");
		int f = 1;
		for (uint32_t k = 0; k < np; k++) {
			if (p->proc != WEFT_NONE && k != p->proc)
				continue;
			char says[64];
			printf("%s{\"pid\":%u,\"comm\":", f ? "" : ",",
			       pr[k].pid);
			weft_json_string(stdout, pr[k].comm);
			printf(",\"state\":");
			weft_json_string(stdout,
					 proc_state(p, k, says, sizeof says));
			printf("}");
			f = 0;
		}
		printf("],\"os_threads\":[");
		print_os(p);
		printf("],\"created\":%u,\"pending\":[", created);
	} else {
		if (p->now > p->t1)
			printf("as of now, %s s (the last event %s ago)",
			       fmt_ns(b1, sizeof b1, p->now - p->t0),
			       fmt_time(b2, sizeof b2, p->now - p->t1));
		else
			printf("as of %s s (the trace's last event)",
			       fmt_ns(b1, sizeof b1, p->t1 - p->t0));
		printf(", %u of %u async threads pending\n", p->npend, created);
		for (uint32_t k = 0; k < np; k++) {
			if (p->proc != WEFT_NONE && k != p->proc)
				continue;
			char says[64];
			printf("process %u %s: %s\n", pr[k].pid, pr[k].comm,
			       proc_state(p, k, says, sizeof says));
		}
		printf("OS threads:\n");
		print_os(p);
		/* one unit for the column: the longest pending's */
		for (uint32_t k = 0; k < p->npend; k++) {
			struct weft_why w;
			why(p, p->pend[k], &w);
			tcol_add(&p->pcol, pending_for(p, p->pend[k], &w));
		}
		printf("pending async threads (%s):\n", tree ? "by creator, in "
							       "creation order"
							     : "longest "
							       "pending first");
	}
	uint32_t shown = 0;
	if (tree) {
		for (uint32_t k = 0; k < p->npend && shown < limit; k++) {
			uint32_t t = p->pend[k], c = p->th[t].parent;
			if (c != WEFT_NONE &&
			    p->th[c].end == WEFT_END_PENDING &&
			    !(p->th[c].flags & WEFT_THREAD_ROOT))
				continue; /* (under its creator) */
			if (p->json && shown)
				putchar(',');
			shown += print_tree(p, t, 0, &tr);
		}
	} else {
		/* longest pending first: created first (stable) */
		for (uint32_t k = 0; k < p->npend && shown < limit; k++) {
			if (p->json && shown)
				putchar(',');
			print_thread(p, p->pend[k], 0);
			shown++;
		}
	}
	if (p->json)
		printf("]}\n");
	else if (shown < p->npend)
		printf("  ... and %u more (--limit)\n", p->npend - shown);
	else if (!p->npend)
		printf("  none\n");
	free(byidx);
	free(tr.first);
	free(tr.next);
	return 0;
}

int cmd_ps(int argc, char **argv)
{
	int tree = 0, json = 0, limit = 0, model = 0;
	struct traces tr = {0};
	const struct opt opts[] = {
		{"--tree", NULL, NULL,
		 "pending threads under their pending creators, in creation "
		 "order (default: a list, longest pending first)",
		 OPT_FLAG, &tree},
		{"--json", NULL, NULL, "one JSON object", OPT_FLAG, &json},
		{"--limit", NULL, "N",
		 "show at most N pending threads (trees: N top-level ones)",
		 OPT_INT, &limit, 1, 0x7fffffff},
		{"--model", NULL, NULL,
		 "build a brief model of the trace and weft why's index, as "
		 "weft why does, rather than ps's own lean pass (slower; the "
		 "same output: what the pass is checked against)",
		 OPT_FLAG, &model},
		TRACES_OPT(&tr),
		OPT_END,
	};
	const struct cmd_usage u = {"ps", "[OPTIONS] PID|TRACE...",
				    "What a live, hung or killed process is "
				    "doing, at the last "
				    "event its trace holds: each OS thread "
				    "(running which async "
				    "thread, or idle and why, in which loop "
				    "phase) and each "
				    "pending async thread (how long it has "
				    "been pending, whether "
				    "it runs, what it waits on, and weft why's "
				    "verdict).  PID: "
				    "the run that process records into (only "
				    "its threads shown), "
				    "else the ring it has mapped; read without "
				    "stopping it.",
				    opts, 0};
	const char **ops = calloc((size_t)argc + 1, sizeof *ops);
	if (!ops)
		die("out of memory");
	int nops, rc = opts_parse(&u, argc, argv, ops, &nops, NULL);
	int pid = 0;
	char found[4200];
	for (int i = 0; rc < 0 && i < nops; i++) {
		struct stat sb;
		char *end;
		long v = strtol(ops[i], &end, 10);
		if (*ops[i] && !*end && stat(ops[i], &sb) < 0) {
			/* a process */
			if (v <= 0 || v > 0x7fffffff || nops != 1) {
				rc = opts_error(&u,
						"'%s' is neither a trace "
						"nor a single process id",
						ops[i]);
				break;
			}
			pid = (int)v;
			int err = trace_of_pid(pid, found, sizeof found);
			if (err) {
				free(ops);
				return error("process %d: %s", pid,
					     err == WEFT_ENOTFOUND
						     ? "not traced (no weft "
						       "ring mapped, no "
						       "WEFT_RUN in its "
						       "environment)"
						     : weft_strerror(err));
			}
			if (traces_add(&tr, found))
				rc = opts_error(&u, "too many traces");
		} else if (traces_add(&tr, ops[i]))
			rc = opts_error(&u, "more than %d traces", TRACES_MAX);
	}
	free(ops);
	if (rc < 0 && !tr.n)
		rc = opts_usage(&u);
	if (rc >= 0) {
		traces_release(&tr);
		return rc;
	}
	const char *path = traces_name(&tr);
	char name[4300];
	snprintf(name, sizeof name, "%s", path);
	/* ps's own pass (ps-scan.h): the present only, in one pass; or
	 * a brief model */
	struct weft_reader *r = traces_open(&tr, 0);
	traces_release(&tr);
	if (!r)
		return 1;
	struct weft_model *m = NULL;
	struct ps_scan sc;
	memset(&sc, 0, sizeof sc);
	long lrc;
	if (model) {
		lrc = weft_model_new(&m, r);
		if (!lrc)
			lrc = weft_model_set_brief(m);
		if (!lrc)
			lrc = weft_model_step(m, 0);
	} else
		lrc = ps_scan_run(&sc, r);
	if (lrc < 0) {
		weft_model_free(m);
		ps_scan_release(&sc);
		weft_reader_close(r);
		return error("cannot model %s: %s", name,
			     weft_strerror((int)lrc));
	}
	struct ps p = {
		.m = m, .sc = &sc, .r = r, .json = json, .proc = WEFT_NONE};
	if (m) {
		p.th = weft_model_threads(m, &p.nth);
		p.st = weft_model_streams(m, &p.nos);
		p.pr = weft_model_processes(m, &p.np);
		weft_model_range(m, &p.t0, &p.t1);
	} else {
		p.th = sc.th;
		p.nth = sc.nth;
		p.st = sc.pst;
		p.nos = sc.nst;
		p.pr = sc.proc;
		p.np = sc.nproc;
		p.t0 = sc.t0;
		p.t1 = sc.t1;
	}
	p.now = INT64_MIN;
	const struct weft_trace_info *in = weft_reader_info(r);
	if (in->writer == WEFT_WRITER_LIVE) {
		/* model times count from the origin, whose wall-clock time
		 * the trace keeps */
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		int64_t real = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
		p.now = real - in->origin_real_ns;
		if (p.now < p.t1)
			p.now = p.t1;
	}
	if (pid) {
		/* its latest image */
		for (uint32_t k = 0; k < p.np; k++)
			if (p.pr[k].pid == (uint32_t)pid)
				p.proc = k;
		/* (not there: a process whose descendants record, such as
		 * weft record itself: all of them) */
	}
	p.os = calloc(p.nos ? p.nos : 1, sizeof *p.os);
	if (!p.os || (m && weft_why_index_new(&p.ix, m))) {
		free(p.os);
		weft_model_free(m);
		ps_scan_release(&sc);
		weft_reader_close(r);
		return error("out of memory");
	}
	os_states(&p);
	rc = ps_show(&p, tree, limit ? (uint32_t)limit : UINT32_MAX);
	weft_why_index_free(p.ix);
	free(p.os);
	free(p.pend);
	weft_model_free(m);
	ps_scan_release(&sc);
	rc |= report_losses(r, name);
	weft_reader_close(r);
	return rc ? 1 : 0;
}
