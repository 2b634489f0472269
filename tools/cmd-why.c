/* SPDX-License-Identifier: MIT */
/*
 * cmd-why.c - `weft why`: for every should_resolve thread that never
 * resolved (with --all: every thread still pending), the chain of waits to
 * the root blocker and the verdict, with its evidence.  Exit status 1 when
 * something is wrong, 0 when nothing is.
 */
#include <stdlib.h>
#include <string.h>

#include "weft-tools.h"
#include "weft/model.h"

#define USAGE "weft why [--all] FILE|- [THREAD-ID|LABEL]"

static const char *when(char *buf, size_t cap, int64_t ns)
{
	return fmt_ns(buf, cap, ns);
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
		putchar(')');
	}
}

static const char *end_str(int end)
{
	switch (end) {
	case WEFT_END_RESOLVED:
		return "resolved";
	case WEFT_END_FAILED:
		return "failed";
	case WEFT_END_BECAME:
		return "became another";
	case WEFT_END_CANCELLED:
		return "was cancelled";
	case WEFT_END_REPLACED:
		return "was replaced by a new thread with its id";
	}
	return "is still pending";
}

static void explain(const struct weft_model *m, uint32_t subject,
		    const struct weft_why *w)
{
	uint32_t nth, na;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_arrow *a = weft_model_arrows(m, &na);
	char t1[40], t2[40];
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
		printf("  %s since %s s on ", k ? "which waits" : "waits",
		       when(t1, sizeof t1, w->chain[k].t_wait));
		name(m, w->chain[k + 1].thread);
		putchar('\n');
	}
	uint32_t b = w->chain[w->nchain - 1].thread;
	const char *waiter = NULL;
	char wbuf[256];
	if (w->nchain > 1) {
		weft_model_title(m, w->chain[w->nchain - 2].thread, wbuf,
				 sizeof wbuf);
		waiter = wbuf;
	}
	printf("verdict: %s", weft_verdict_name(w->verdict));
	switch (w->verdict) {
	case WEFT_VERDICT_LOST_WAKEUP: {
		const struct weft_arrow *e = &a[w->evidence];
		printf(": ");
		name(m, b);
		printf(" was %s at %s s by ",
		       e->kind == WEFT_ARROW_SIGNAL ? "signalled"
						    : end_str(th[b].end),
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
	}
	case WEFT_VERDICT_NEVER_RESOLVED:
		printf(": nothing signalled, resolved or failed ");
		name(m, b);
		if (waiter)
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
	}
	printf("\n\n");
}

static uint32_t select_thread(const struct weft_model *m, const char *q)
{
	char *end;
	unsigned long long id = strtoull(q, &end, 0);
	if (*q && !*end) {
		uint32_t t = weft_model_find(m, id);
		if (t != WEFT_NONE)
			return t;
	}
	uint32_t n, nl;
	weft_model_threads(m, &n);
	const struct weft_label *l = weft_model_labels(m, &nl);
	for (uint32_t i = nl; i-- > 0;)
		if (l[i].kind == WEFT_EV_LABEL &&
		    strstr(weft_model_string(m, l[i].text), q))
			return l[i].thread;
	return WEFT_NONE;
}

int cmd_why(int argc, char **argv)
{
	int all = 0;
	const char *path = NULL, *query = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--all"))
			all = 1;
		else if ((argv[i][0] != '-' || !argv[i][1]) && !path)
			path = argv[i];
		else if (!query && path)
			query = argv[i];
		else
			return usage(USAGE);
	}
	if (!path)
		return usage(USAGE);
	struct weft_reader *r;
	struct weft_model *m = open_model(path, &r);
	if (!m)
		return 1;
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	int problems = 0, looked = 0;
	struct weft_why w;
	if (query) {
		uint32_t t = select_thread(m, query);
		if (t == WEFT_NONE) {
			error("no thread with id or label '%s'", query);
			problems = -1;
		} else {
			looked = 1;
			weft_why(m, t, &w);
			if (w.verdict != WEFT_VERDICT_OK) {
				explain(m, t, &w);
				problems++;
			} else {
				name(m, t);
				printf(" %s: nothing to explain\n",
				       end_str(th[w.thread].end));
			}
		}
	} else {
		for (uint32_t t = 0; t < nth; t++) {
			if (th[t].flags & WEFT_THREAD_ROOT)
				continue;
			if (!all && !(th[t].flags & WEFT_THREAD_SHOULD_RESOLVE))
				continue;
			looked++;
			weft_why(m, t, &w);
			if (w.verdict == WEFT_VERDICT_OK)
				continue;
			explain(m, t, &w);
			problems++;
		}
		if (!problems)
			printf("nothing is wrong: %d %s thread%s checked, all "
			       "resolved\n",
			       looked, all ? "pending-or-not" : "should-resolve",
			       looked == 1 ? "" : "s");
	}
	weft_model_free(m);
	int rc = report_losses(r, path);
	weft_reader_close(r);
	return problems || rc ? 1 : 0;
}
