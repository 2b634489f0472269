/* SPDX-License-Identifier: MIT */
/*
 * cmd-why.c - `weft why`: for every should_resolve thread that never
 * resolved (with --all: every thread still pending), the chain of waits to
 * the root blocker and the verdict, with its evidence.  Exit status 1 when
 * something is wrong, 0 when nothing is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "weft-tools.h"
#include "weft/diff.h"
#include "weft/model.h"
#include "weft/path.h"

/* The trace's first event: every time printed counts from it, as the
 * ruler, --start, weft dump and the inspector do (set once the model is
 * loaded). */
static int64_t origin;

static const char *when(char *buf, size_t cap, int64_t ns)
{
	return fmt_ns(buf, cap, ns - origin);
}

static void name(const struct weft_model *m, uint32_t t)
{
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(m, &n);
	char title[256];
	weft_model_title(m, t, title, sizeof title);
	print_escaped(stdout, title, strlen(title));
	if (!(th[t].flags & WEFT_THREAD_ROOT)) {
		printf(" (0x%llx", (unsigned long long)th[t].id);
		if (th[t].kind && th[t].label != WEFT_NONE)
			printf(", %s", weft_model_name(m, th[t].kind));
		/* several processes: whose */
		struct weft_reader *r = weft_model_reader(m);
		uint32_t np;
		const struct weft_process *p = weft_reader_processes(r, &np);
		uint32_t k = weft_reader_stream_process(r, th[t].stream);
		if (np > 1 && k < np)
			printf(", pid %u", p[k].pid);
		putchar(')');
	}
}

/* Whether `from` waits on `to` for a reply of another process. */
static int message_wait(const struct weft_model *m, uint32_t from, uint32_t to)
{
	uint32_t na, n;
	const struct weft_arrow *a = weft_model_arrows(m, &na);
	const uint32_t *idx = weft_model_thread_arrows(m, from, &n);
	for (uint32_t k = 0; k < n; k++)
		if (a[idx[k]].kind == WEFT_ARROW_TRY_READ &&
		    a[idx[k]].from == from && a[idx[k]].to == to &&
		    (a[idx[k]].flags & WEFT_ARROW_MESSAGE))
			return 1;
	return 0;
}

/* The waiter's title, or NULL. */
static const char *waiter_title(const struct weft_model *m,
				const struct weft_why *w, char *buf, size_t cap)
{
	if (w->waiter == WEFT_NONE)
		return NULL;
	return weft_model_title(m, w->waiter, buf, (unsigned)cap);
}

static void explain(const struct weft_model *m, uint32_t subject,
		    const struct weft_why *w)
{
	uint32_t nth, na;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_arrow *a = weft_model_arrows(m, &na);
	char t1[40], t2[40], d1[32], d2[32];
	int64_t end0, end1;
	weft_model_range(m, &end0, &end1);

	name(m, subject);
	if (th[subject].flags & WEFT_THREAD_SHOULD_RESOLVE)
		printf(" should resolve, but");
	printf(" is still pending at the end of the trace (%s s)\n",
	       when(t1, sizeof t1, end1));
	if (w->thread != subject) {
		printf("  it became ");
		name(m, w->thread);
		putchar('\n');
	}
	for (uint32_t k = 0; k + 1 < w->nchain; k++) {
		uint32_t x = w->chain[k].thread, y = w->chain[k + 1].thread;
		if (th[x].end != WEFT_END_PENDING) {
			/* a peer that read the request: its work goes on */
			printf("  which read the request, and started at %s s ",
			       when(t1, sizeof t1, w->chain[k].t_wait));
		} else if (message_wait(m, x, y)) {
			printf("  %s since %s s for the reply to the request "
			       "read by ",
			       k ? "which waits" : "waits",
			       when(t1, sizeof t1, w->chain[k].t_wait));
		} else {
			printf("  %s since %s s on ",
			       k ? "which waits" : "waits",
			       when(t1, sizeof t1, w->chain[k].t_wait));
		}
		name(m, y);
		putchar('\n');
	}
	if (w->awaited_by != WEFT_NONE) {
		printf("  ");
		name(m, w->awaited_by);
		printf(" waits on it since %s s\n",
		       when(t1, sizeof t1, w->t_wait));
	}
	uint32_t b = w->chain[w->nchain ? w->nchain - 1 : 0].thread;
	char wbuf[256];
	const char *waiter = waiter_title(m, w, wbuf, sizeof wbuf);
	printf("verdict: %s", weft_verdict_name(w->verdict));
	const struct weft_arrow *e = w->evidence != WEFT_NONE ? &a[w->evidence]
							      : NULL;
	switch (w->verdict) {
	case WEFT_VERDICT_LOST_WAKEUP:
		printf(": ");
		name(m, b);
		printf(" was %s at %s s by ",
		       e->kind == WEFT_ARROW_SIGNAL ? "signalled"
						    : weft_end_says(th[b].end),
		       when(t1, sizeof t1, e->t));
		name(m, e->from);
		if (waiter && e->t < w->t_wait)
			printf(", before %s began waiting on it at %s s; "
			       "nothing signalled or resolved it after",
			       waiter, when(t2, sizeof t2, w->t_wait));
		else if (waiter)
			printf(", but %s, waiting on it since %s s, never "
			       "read it",
			       waiter, when(t2, sizeof t2, w->t_wait));
		break;
	case WEFT_VERDICT_NEVER_RESOLVED:
		if (e) {
			printf(": ");
			name(m, b);
			printf(" was signalled at %s s by ",
			       when(t1, sizeof t1, e->t));
			name(m, e->from);
			printf(", but nothing resolved, failed or cancelled "
			       "it");
			break;
		}
		if (th[b].end != WEFT_END_PENDING) {
			/* the peer read the request, and nothing of it is
			 * pending */
			printf(": ");
			name(m, b);
			printf(" read the request and %s at %s s, with "
			       "nothing it started still pending: the reply "
			       "never came",
			       weft_end_says(th[b].end),
			       when(t1, sizeof t1, th[b].t_end));
			break;
		}
		printf(": nothing signalled, resolved or failed ");
		name(m, b);
		if (waiter && th[w->waiter].end != WEFT_END_PENDING)
			printf(" after %s started it at %s s", waiter,
			       when(t1, sizeof t1, w->t_wait));
		else if (waiter)
			printf(" after %s began waiting on it at %s s", waiter,
			       when(t1, sizeof t1, w->t_wait));
		break;
	case WEFT_VERDICT_DEADLOCK:
		printf(": ");
		name(m, b);
		printf(" waits since %s s on ", when(t1, sizeof t1, w->t_wait));
		name(m, w->cycle);
		printf(", which closes a cycle of waits");
		break;
	case WEFT_VERDICT_FAILED_UPSTREAM:
		printf(": ");
		name(m, b);
		printf(" failed at %s s (\"", when(t1, sizeof t1, th[b].t_end));
		const char *msg = weft_model_string(m, th[b].message);
		print_escaped(stdout, msg, strlen(msg));
		printf("\")");
		if (waiter)
			printf(" and %s, waiting on it, never read the failure",
			       waiter);
		break;
	case WEFT_VERDICT_TRUNCATED:
		printf(": events about ");
		name(m, b);
		printf(" were lost (its creation, or packets before the "
		       "wait), so the cause cannot be told");
		break;
	case WEFT_VERDICT_IN_FLIGHT:
		printf(": ");
		if (e && waiter) {
			name(m, b);
			printf(" was %s at %s s by ",
			       e->kind == WEFT_ARROW_SIGNAL
				       ? "signalled"
				       : weft_end_says(th[b].end),
			       when(t1, sizeof t1, e->t));
			name(m, e->from);
			if (e->t > w->horizon)
				printf(", after the trace of %s's OS thread "
				       "ended (%s s)",
				       waiter, when(t2, sizeof t2, w->horizon));
			else
				printf("; %s had been ready to read it for %s "
				       "when the trace of its OS thread ended, "
				       "no longer than a woken waiter took in "
				       "this trace (%s)",
				       waiter,
				       fmt_time(d1, sizeof d1,
						w->horizon - e->t),
				       fmt_time(d2, sizeof d2, w->longest));
		} else {
			name(m, b);
			printf(" had been pending for %s when the trace of its "
			       "OS thread ended, no longer than a finished %s "
			       "lived in this trace (%s)",
			       fmt_time(d1, sizeof d1,
					w->horizon - th[b].t_create),
			       weft_model_name(m, th[b].kind),
			       fmt_time(d2, sizeof d2, w->longest));
		}
		break;
	case WEFT_VERDICT_UNAWAITED:
		printf(": ");
		name(m, b);
		printf(" waits on nothing, nothing waits on it and nothing "
		       "says it should resolve");
		break;
	}
	printf("\n\n");
}

/* One thread's verdict as a JSON object. */
static void json_thread(const struct weft_model *m, uint32_t subject,
			const struct weft_why *w, int first)
{
	uint32_t nth, na;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_arrow *a = weft_model_arrows(m, &na);
	char title[256];
	printf("%s\n{\"id\":%llu,\"incarnation\":%u,\"title\":",
	       first ? "" : ",", (unsigned long long)th[subject].id,
	       th[subject].incarnation);
	weft_json_string(stdout,
			 weft_model_title(m, subject, title, sizeof title));
	printf(",\"verdict\":\"%s\",\"fault\":%s",
	       weft_verdict_name(w->verdict),
	       WEFT_VERDICT_IS_FAULT(w->verdict) ? "true" : "false");
	printf(",\"should_resolve\":%s",
	       th[subject].flags & WEFT_THREAD_SHOULD_RESOLVE ? "true"
							      : "false");
	if (w->thread != subject)
		printf(",\"became\":%llu",
		       (unsigned long long)th[w->thread].id);
	printf(",\"chain\":[");
	for (uint32_t k = 0; k < w->nchain; k++) {
		uint32_t x = w->chain[k].thread;
		printf("%s{\"id\":%llu,\"incarnation\":%u,\"title\":",
		       k ? "," : "", (unsigned long long)th[x].id,
		       th[x].incarnation);
		weft_json_string(stdout,
				 weft_model_title(m, x, title, sizeof title));
		if (k + 1 < w->nchain)
			printf(",\"waits_since_ns\":%lld",
			       (long long)(w->chain[k].t_wait - origin));
		printf("}");
	}
	printf("]");
	if (w->waiter != WEFT_NONE)
		printf(",\"waiter\":%llu,\"wait_since_ns\":%lld",
		       (unsigned long long)th[w->waiter].id,
		       (long long)(w->t_wait - origin));
	if (w->evidence != WEFT_NONE) {
		const struct weft_arrow *e = &a[w->evidence];
		printf(",\"evidence\":{\"arrow\":\"%s\",\"from\":%llu,"
		       "\"t_ns\":%lld}",
		       weft_arrow_name(e->kind),
		       (unsigned long long)th[e->from].id,
		       (long long)(e->t - origin));
	}
	if (w->verdict == WEFT_VERDICT_DEADLOCK)
		printf(",\"cycle\":%llu", (unsigned long long)th[w->cycle].id);
	if (w->verdict == WEFT_VERDICT_IN_FLIGHT)
		printf(",\"longest_ns\":%lld", (long long)w->longest);
	if (w->loss != WEFT_NONE) {
		uint32_t nl;
		const struct weft_loss *l = weft_model_losses(m, &nl);
		printf(",\"loss\":{\"t_ns\":%lld,\"stream\":%u,"
		       "\"packets\":%llu,\"events\":%llu}",
		       (long long)(l[w->loss].t - origin), l[w->loss].stream,
		       (unsigned long long)l[w->loss].packets,
		       (unsigned long long)l[w->loss].events);
	}
	printf("}");
}

/* "a (0x1), b (0x2, task) and 3 more" */
static void list_some(const struct weft_model *m, const uint32_t *t, uint32_t n)
{
	uint32_t show = n < 5 ? n : 5;
	for (uint32_t i = 0; i < show; i++) {
		printf("%s", i ? ", " : "");
		name(m, t[i]);
	}
	if (n > show)
		printf(" and %u more", n - show);
	putchar('\n');
}

/* ------------------------------------------------------------- --path */

static void pct(int64_t part, int64_t whole)
{
	printf("%3.0f %%",
	       whole > 0 ? 100.0 * (double)part / (double)whole : 0);
}

/* {"id":..,"incarnation":..,"title":..} of a thread, or null. */
static void json_ref(const struct weft_model *m, uint32_t t)
{
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(m, &n);
	char title[256];
	if (t == WEFT_NONE || t >= n) {
		printf("null");
		return;
	}
	printf("{\"id\":%llu,\"incarnation\":%u,\"title\":",
	       (unsigned long long)th[t].id, th[t].incarnation);
	weft_json_string(stdout, weft_model_title(m, t, title, sizeof title));
	printf(",\"kind\":");
	weft_json_string(stdout, weft_model_name(m, th[t].kind));
	printf("}");
}

/* One thread's critical path as JSON: times in ns since the trace's
 * origin, as the other JSON of weft why. */
static void json_path(const struct weft_model *m, uint32_t t,
		      const struct weft_path *p)
{
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(m, &n);
	printf("{\"thread\":");
	json_ref(m, t);
	printf(",\"end\":\"%s\",\"t_create_ns\":%lld,\"t_end_ns\":%lld,"
	       "\"totals_ns\":{",
	       weft_end_name(th[t].end), (long long)(p->t0 - origin),
	       (long long)(p->t1 - origin));
	for (int k = 0; k < WEFT_PATH_STATES; k++)
		printf("%s\"%s\":%lld", k ? "," : "", weft_path_state_name(k),
		       (long long)p->total[k]);
	printf("},\"segments\":[");
	for (uint32_t i = 0; i < p->nseg; i++) {
		const struct weft_path_seg *g = &p->seg[i];
		printf("%s\n{\"depth\":%u,\"t0_ns\":%lld,\"t1_ns\":%lld,"
		       "\"state\":\"%s\",\"thread\":",
		       i ? "," : "", g->depth, (long long)(g->t0 - origin),
		       (long long)(g->t1 - origin),
		       weft_path_state_name((int)g->state));
		json_ref(m, g->thread);
		if (g->state == WEFT_PATH_WAITING ||
		    g->state == WEFT_PATH_READY) {
			int w = g->state == WEFT_PATH_WAITING;
			printf(",\"%s\":", w ? "on" : "ran_instead");
			json_ref(m, g->on);
		}
		if (g->state == WEFT_PATH_WAITING && g->on == WEFT_NONE &&
		    g->idle) {
			printf(",\"idle\":");
			weft_json_string(stdout, weft_model_name(m, g->idle));
		}
		printf("}");
	}
	printf("\n]}\n");
}

/* Segments of depth d within [a, b], and under each wait the deeper
 * ones; *lines bounds the output. */
static void print_segs(const struct weft_model *m, const struct weft_path *p,
		       uint32_t d, int64_t a, int64_t b, int *lines)
{
	char t1[40], d1[40];
	int64_t r0, r1;
	weft_model_range(m, &r0, &r1);
	/* the durations of these siblings: a column, one unit */
	struct tcol col = {0};
	int w = 0; /* and their instants: padded to the widest */
	for (uint32_t i = 0; i < p->nseg; i++) {
		const struct weft_path_seg *g = &p->seg[i];
		if (g->depth == d && g->t0 >= a && g->t1 <= b) {
			tcol_add(&col, g->t1 - g->t0);
			int n = (int)strlen(fmt_ns(t1, sizeof t1, g->t0 - r0));
			w = n > w ? n : w;
		}
	}
	for (uint32_t i = 0; i < p->nseg; i++) {
		const struct weft_path_seg *g = &p->seg[i];
		if (g->depth != d || g->t0 < a || g->t1 > b)
			continue;
		if (--*lines < 0) {
			if (*lines == -1)
				printf("%*s...\n", 2 + 3 * (int)d, "");
			return;
		}
		char at[48];
		snprintf(at, sizeof at, "%s s",
			 fmt_ns(t1, sizeof t1, g->t0 - r0));
		printf("%*s%-*s  %9s  ", 2 + 3 * (int)d, "", w + 2, at,
		       tcol_fmt(&col, d1, sizeof d1, g->t1 - g->t0));
		if (d) {
			name(m, g->thread);
			printf(" ");
		}
		printf("%s", weft_path_state_name((int)g->state));
		if (g->state == WEFT_PATH_WAITING && g->on == WEFT_NONE &&
		    g->idle) {
			printf(" for an event (its OS thread idle: ");
			const char *why = weft_model_name(m, g->idle);
			print_escaped(stdout, why, strlen(why));
			printf(")");
		} else if (g->state == WEFT_PATH_WAITING &&
			   g->on == WEFT_NONE) {
			printf(" (pending: nothing signalled, resolved or "
			       "failed it since)");
		} else if (g->state == WEFT_PATH_WAITING) {
			printf(" on ");
			name(m, g->on);
		} else if (g->state == WEFT_PATH_READY) {
			printf(" (ran instead: ");
			if (g->on == WEFT_NONE)
				printf("nothing, its OS thread was idle)");
			else {
				name(m, g->on);
				printf(")");
			}
		}
		putchar('\n');
		if (g->state == WEFT_PATH_WAITING)
			print_segs(m, p, d + 1, g->t0, g->t1, lines);
	}
}

static void print_blame(const struct weft_path_blame *b, uint32_t n,
			const char *what)
{
	char d1[32], d2[32];
	if (!n)
		return;
	printf("  %s (most time first):\n", what);
	for (uint32_t i = 0; i < n && i < 10; i++) {
		printf("    ");
		print_escaped(stdout, b[i].key, strlen(b[i].key));
		printf("  %u thread%s, %s in all, at most %s\n", b[i].threads,
		       b[i].threads == 1 ? "" : "s",
		       fmt_time(d1, sizeof d1, b[i].total),
		       fmt_time(d2, sizeof d2, b[i].max));
	}
	if (n > 10)
		printf("    ... %u more\n", n - 10);
}

/* The same, as JSON: every key, most time first. */
static void json_blame(const struct weft_path_blame *b, uint32_t n,
		       const char *what)
{
	printf(",\"%s\":[", what);
	for (uint32_t i = 0; i < n; i++) {
		printf("%s{\"key\":", i ? "," : "");
		weft_json_string(stdout, b[i].key);
		printf(",\"threads\":%u,\"total_ns\":%lld,\"max_ns\":%lld}",
		       b[i].threads, (long long)b[i].total,
		       (long long)b[i].max);
	}
	printf("]");
}

static int path_cmd(const struct weft_model *m, const char *query, int all,
		    int json)
{
	uint32_t nth, nl;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_label *l = weft_model_labels(m, &nl);
	struct weft_path_index *ix;
	if (weft_path_index_new(&ix, m))
		return error("out of memory");
	struct weft_path p;
	char t1[40], t2[40], d1[40];
	int64_t r0, r1;
	weft_model_range(m, &r0, &r1);
	if (!all) {
		uint32_t t = find_thread(m, query, "why");
		if (t != WEFT_NONE && (th[t].flags & WEFT_THREAD_ROOT)) {
			fprintf(stderr,
				"weft why: %s is an OS thread: it has no "
				"critical path\n",
				query);
			t = WEFT_NONE;
		}
		if (t == WEFT_NONE) {
			weft_path_index_free(ix);
			return 1;
		}
		if (weft_path_at(ix, t, &p)) {
			weft_path_index_free(ix);
			return error("out of memory");
		}
		if (json) {
			json_path(m, t, &p);
			weft_path_release(&p);
			weft_path_index_free(ix);
			return 0;
		}
		int64_t life = p.t1 - p.t0;
		name(m, t);
		printf(": created at %s s, %s",
		       fmt_ns(t1, sizeof t1, p.t0 - r0),
		       weft_end_says(th[t].end));
		if (th[t].end != WEFT_END_PENDING)
			printf(" at %s s", fmt_ns(t2, sizeof t2, p.t1 - r0));
		else
			printf(" at the end of the trace (%s s)",
			       fmt_ns(t2, sizeof t2, p.t1 - r0));
		printf(": %s\n", fmt_time(d1, sizeof d1, life));
		struct tcol col = {0};
		for (int k = 0; k < WEFT_PATH_STATES; k++)
			tcol_add(&col, p.total[k]);
		for (int k = 0; k < WEFT_PATH_STATES; k++) {
			printf("  %-8s %9s ", weft_path_state_name(k),
			       tcol_fmt(&col, d1, sizeof d1, p.total[k]));
			pct(p.total[k], life);
			putchar('\n');
		}
		printf("critical path:\n");
		int lines = 200;
		print_segs(m, &p, 0, p.t0, p.t1, &lines);
		weft_path_release(&p);
		weft_path_index_free(ix);
		return 0;
	}
	/* --all: every thread that ended whose latest label holds it. */
	struct weft_path_sum sum = {0};
	for (uint32_t t = 0; t < nth; t++) {
		if ((th[t].flags & WEFT_THREAD_ROOT) ||
		    th[t].end == WEFT_END_PENDING || th[t].label >= nl ||
		    !strstr(weft_model_string(m, l[th[t].label].text), query))
			continue;
		if (weft_path_at(ix, t, &p) || weft_path_sum_add(&sum, m, &p))
			die("out of memory");
		weft_path_release(&p);
	}
	weft_path_index_free(ix);
	uint32_t n = sum.threads;
	int64_t life = sum.life;
	const int64_t *tot = sum.total;
	if (!n) {
		weft_path_sum_release(&sum);
		return error("no thread that ended has a label with '%s'",
			     query);
	}
	if (json) {
		printf("{\"label\":");
		weft_json_string(stdout, query);
		printf(",\"threads\":%u,\"life_ns\":%lld,\"totals_ns\":{", n,
		       (long long)life);
		for (int k = 0; k < WEFT_PATH_STATES; k++)
			printf("%s\"%s\":%lld", k ? "," : "",
			       weft_path_state_name(k), (long long)tot[k]);
		printf("}");
		json_blame(sum.waited_on, sum.nwaited_on, "waited_on");
		json_blame(sum.ready_while, sum.nready_while, "ready_while");
		printf("}\n");
		weft_path_sum_release(&sum);
		return 0;
	}
	printf("\"");
	print_escaped(stdout, query, strlen(query));
	printf("\": %u thread%s that ended, %s of life on average\n", n,
	       n == 1 ? "" : "s", fmt_time(d1, sizeof d1, life / n));
	struct tcol col = {0};
	for (int k = 0; k < WEFT_PATH_STATES; k++)
		tcol_add(&col, tot[k] / n);
	for (int k = 0; k < WEFT_PATH_STATES; k++) {
		printf("  %-8s %9s on average, ", weft_path_state_name(k),
		       tcol_fmt(&col, d1, sizeof d1, tot[k] / n));
		pct(tot[k], life);
		putchar('\n');
	}
	print_blame(sum.waited_on, sum.nwaited_on, "what they waited on");
	print_blame(sum.ready_while, sum.nready_while,
		    "what ran while they were ready");
	weft_path_sum_release(&sum);
	return 0;
}

int cmd_why(int argc, char **argv)
{
	int all = 0, json = 0, chunks = 0;
	const char *query = NULL, *crit = NULL;
	struct traces tr = {0};
	const struct opt opts[] = {
		{"--all", NULL, NULL,
		 "every pending thread, not only those "
		 "that should resolve; with --path, every thread that ended "
		 "with the label",
		 OPT_FLAG, &all},
		{"--json", NULL, NULL,
		 "one JSON object: the verdicts, chains "
		 "and evidence; with --path, the path's segments (with --all, "
		 "the aggregate)",
		 OPT_FLAG, &json},
		{"--path", NULL, "ID|LABEL",
		 "the critical path of that thread: "
		 "its life split into running, waiting on each other thread, "
		 "and ready but not running (naming what ran instead)",
		 OPT_STRING, &crit},
		{"--thread-chunks", NULL, NULL,
		 "of a kept directory, read only the chunks whose index names "
		 "the thread asked about (an ID, operand or --path): those its "
		 "events are in (docs/keep.md)",
		 OPT_FLAG, &chunks},
		TRACES_OPT(&tr),
		OPT_END,
	};
	const struct cmd_usage u = {"why",
				    "[OPTIONS] TRACE... [ID|LABEL]\n"
				    "[OPTIONS] TRACE... --path ID|LABEL",
				    "Why threads that should resolve did not: "
				    "for each (or the one "
				    "named by id, or by a label: the one whose "
				    "label is it, else "
				    "the one whose label holds it; several are "
				    "listed, none chosen) "
				    "the chain of waits to the root blocker "
				    "and a verdict with its "
				    "evidence.  Exit status 1 when a fault is "
				    "found.",
				    opts, 0};
	const char **ops = calloc((size_t)argc + 1, sizeof *ops);
	if (!ops)
		die("out of memory");
	int nops, rc = opts_parse(&u, argc, argv, ops, &nops, NULL);
	/* the first operand a trace whatever it is; then traces as long
	 * as they exist, and the thread asked about last */
	for (int i = 0; rc < 0 && i < nops; i++) {
		struct stat sb;
		if (i && i == nops - 1 && strcmp(ops[i], "-") &&
		    stat(ops[i], &sb) < 0)
			query = ops[i];
		else if (traces_add(&tr, ops[i]))
			rc = opts_error(&u, "more than %d traces", TRACES_MAX);
	}
	free(ops);
	if (rc < 0 && !tr.n)
		rc = opts_usage(&u);
	if (rc < 0 && crit && query)
		rc = opts_error(&u,
				"--path names the thread: '%s' is not a "
				"trace",
				query);
	unsigned long long tid = 0;
	if (rc < 0 && chunks) {
		const char *q = crit ? crit : query;
		char *end = NULL;
		errno = 0;
		tid = q ? strtoull(q, &end, 0) : 0;
		if (!q || errno || end == q || *end || !tid)
			rc = opts_error(&u,
					"--thread-chunks: the thread must be "
					"named by its id (0x200), not '%s'",
					q ? q : "");
	}
	if (rc >= 0) {
		traces_release(&tr);
		return rc;
	}
	const char *path = traces_name(&tr);
	struct weft_reader *r;
	struct weft_model *m = traces_model_thread(&tr, tid, &r);
	if (m) {
		int64_t t1;
		weft_model_range(m, &origin, &t1);
	}
	traces_release(&tr);
	if (!m)
		return 1;
	if (crit) {
		int prc = path_cmd(m, crit, all, json);
		weft_model_free(m);
		rc = report_losses(r, path);
		weft_reader_close(r);
		return prc || rc ? 1 : 0;
	}
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	struct weft_why_index *ix;
	if (weft_why_index_new(&ix, m)) {
		weft_model_free(m);
		weft_reader_close(r);
		return error("out of memory");
	}
	int problems = 0, looked = 0;
	struct weft_why w;
	if (json)
		printf("{\"threads\":[");
	if (query) {
		uint32_t t = find_thread(m, query, "why");
		if (t == WEFT_NONE) {
			problems = -1;
		} else {
			looked = 1;
			weft_why_at(ix, t, &w);
			problems += WEFT_VERDICT_IS_FAULT(w.verdict);
			if (json)
				json_thread(m, t, &w, 1);
			else if (w.verdict != WEFT_VERDICT_OK)
				explain(m, t, &w);
			else {
				name(m, t);
				printf(" %s: nothing to explain\n",
				       weft_end_says(th[w.thread].end));
			}
		}
	} else {
		/* Faults in full; what is pending with no fault the trace
		 * shows, in a line per verdict. */
		uint32_t *quiet[2] = {malloc((nth + 1) * sizeof(uint32_t)),
				      malloc((nth + 1) * sizeof(uint32_t))};
		uint32_t nquiet[2] = {0, 0};
		if (!quiet[0] || !quiet[1])
			die("out of memory");
		for (uint32_t t = 0; t < nth; t++) {
			if (th[t].flags & WEFT_THREAD_ROOT)
				continue;
			if (!all && !(th[t].flags & WEFT_THREAD_SHOULD_RESOLVE))
				continue;
			looked++;
			weft_why_at(ix, t, &w);
			if (w.verdict == WEFT_VERDICT_OK)
				continue;
			if (json) {
				json_thread(
					m, t, &w,
					!(problems + nquiet[0] + nquiet[1]));
			}
			if (!WEFT_VERDICT_IS_FAULT(w.verdict)) {
				int q = w.verdict == WEFT_VERDICT_UNAWAITED;
				quiet[q][nquiet[q]++] = t;
				continue;
			}
			if (!json)
				explain(m, t, &w);
			problems++;
		}
		if (!json) {
			if (nquiet[0]) {
				printf("in flight when the trace ended "
				       "(pending "
				       "no longer than the trace shows such "
				       "threads take): %u: ",
				       nquiet[0]);
				list_some(m, quiet[0], nquiet[0]);
			}
			if (nquiet[1]) {
				printf("not awaited (waiting on nothing, "
				       "nothing waits on them, nothing says "
				       "they should resolve): %u: ",
				       nquiet[1]);
				list_some(m, quiet[1], nquiet[1]);
			}
		}
		if (!problems && !json) {
			const char *what = all ? "pending-or-not"
					       : "should-resolve";
			if (nquiet[0] + nquiet[1])
				printf("nothing is wrong: %d %s thread%s "
				       "checked, %u still pending with no "
				       "fault the trace shows\n",
				       looked, what, looked == 1 ? "" : "s",
				       nquiet[0] + nquiet[1]);
			else
				printf("nothing is wrong: %d %s thread%s "
				       "checked, all resolved\n",
				       looked, what, looked == 1 ? "" : "s");
		}
		free(quiet[0]);
		free(quiet[1]);
	}
	if (json)
		printf("\n],\"checked\":%d,\"faults\":%d}\n", looked,
		       problems < 0 ? 0 : problems);
	weft_why_index_free(ix);
	weft_model_free(m);
	rc = report_losses(r, path);
	weft_reader_close(r);
	return problems || rc ? 1 : 0;
}
