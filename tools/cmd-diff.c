/* SPDX-License-Identifier: MIT */
/*
 * cmd-diff.c - `weft diff GOOD BAD`: where two runs first went different
 * ways, with the context in both, and what took longer beyond the noise.
 * With several runs a side (`GOOD... -- BAD...`) the timing is a rank test
 * over the runs; the structure is that of the first run of each side.
 * Exit status 1 when the structure differs (with --strict, also when a
 * timing difference is reported), 0 when it does not.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "weft-tools.h"
#include "weft/diff.h"
#include "weft/model.h"

static const char *side_name[2] = {"good", "bad"};

/* The thread an interaction is on (diff.h), and its actor. */
static void ends(const struct weft_arrow *a, uint32_t *on, uint32_t *actor)
{
	if (a->kind == WEFT_ARROW_READ || a->kind == WEFT_ARROW_READ_FAILED ||
	    a->kind == WEFT_ARROW_BECOME) {
		*on = a->from;
		*actor = a->to;
	} else {
		*on = a->to;
		*actor = a->from;
	}
}

/* What an interaction did to the thread it is on, as a verb phrase. */
static const char *done_to(int kind)
{
	switch (kind) {
	case WEFT_ARROW_CREATE:
		return "created by";
	case WEFT_ARROW_READ:
		return "read by";
	case WEFT_ARROW_READ_FAILED:
		return "its failure read by";
	case WEFT_ARROW_TRY_READ:
		return "waited on by";
	case WEFT_ARROW_RESOLVE:
		return "resolved by";
	case WEFT_ARROW_FAIL:
		return "failed by";
	case WEFT_ARROW_SIGNAL:
		return "signalled by";
	case WEFT_ARROW_BECOME:
		return "became";
	case WEFT_ARROW_CANCEL:
		return "cancelled by";
	}
	return "touched by";
}

/* How a thread ended, in a sentence (the model's table; "at the end"
 * says of the trace). */
static const char *end_word(int end)
{
	return end == WEFT_END_PENDING ? "is still pending at the end"
				       : weft_end_says(end);
}

static void title(const struct weft_model *m, uint32_t t)
{
	char buf[256];
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	weft_model_title(m, t, buf, sizeof buf);
	print_escaped(stdout, buf, strlen(buf));
	if (t < nth && !(th[t].flags & WEFT_THREAD_ROOT) && th[t].kind &&
	    th[t].label != WEFT_NONE)
		printf(" (%s)", weft_model_name(m, th[t].kind));
}

/* Seconds since the trace's first event. */
static const char *at(const struct weft_model *m, char *buf, size_t cap,
		      int64_t t)
{
	int64_t t0, t1;
	weft_model_range(m, &t0, &t1);
	return fmt_ns(buf, cap, t - t0);
}

/* The causal identity: creators from the top, " > " between. */
static void path(const struct weft_model *m, uint32_t t)
{
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	uint32_t up[8], n = 0, x = t;
	int more = 0;
	while (x < nth && !(th[x].flags & WEFT_THREAD_ROOT)) {
		if (n == 8) {
			more = 1;
			break;
		}
		up[n++] = x;
		x = th[x].parent;
	}
	if (more)
		printf("... > ");
	while (n-- > 0) {
		char buf[256];
		weft_model_title(m, up[n], buf, sizeof buf);
		print_escaped(stdout, buf, strlen(buf));
		if (n)
			printf(" > ");
	}
}

/* The interactions on thread `on` around arrow `mark` (and `mark2`),
 * one a line, the marked ones with '>'. */
static void around(const struct weft_model *m, uint32_t on, uint32_t mark,
		   uint32_t mark2)
{
	uint32_t na, n;
	const struct weft_arrow *a = weft_model_arrows(m, &na);
	const uint32_t *ix = weft_model_thread_arrows(m, on, &n);
	uint32_t *mine = malloc(((size_t)n + 1) * sizeof *mine), k = 0;
	if (!mine)
		die("out of memory");
	for (uint32_t i = 0; i < n; i++) {
		uint32_t o, act;
		ends(&a[ix[i]], &o, &act);
		if (o == on)
			mine[k++] = ix[i];
	}
	uint32_t pos = k;
	for (uint32_t i = 0; i < k; i++)
		if (mine[i] == mark || mine[i] == mark2) {
			pos = i;
			break;
		}
	uint32_t from = pos == k ? (k > 8 ? k - 8 : 0)
				 : (pos > 4 ? pos - 4 : 0);
	uint32_t to = pos == k ? k : (pos + 6 < k ? pos + 6 : k);
	if (from)
		printf("      ... %u before\n", from);
	for (uint32_t i = from; i < to; i++) {
		const struct weft_arrow *x = &a[mine[i]];
		uint32_t o, act;
		ends(x, &o, &act);
		char t[40];
		printf("    %c %s s  %s ",
		       mine[i] == mark || mine[i] == mark2 ? '>' : ' ',
		       at(m, t, sizeof t, x->t), done_to(x->kind));
		title(m, act);
		putchar('\n');
	}
	if (to < k)
		printf("      ... %u after\n", k - to);
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	if (th[on].end != WEFT_END_PENDING) {
		char t[40];
		printf("      %s %s at %s s\n", "it", end_word(th[on].end),
		       at(m, t, sizeof t, th[on].t_end));
	} else
		printf("      it is still pending at the end of the trace\n");
	free(mine);
}

/* A pending thread: the chain of waits weft why finds. */
static void waits(const struct weft_model *m, uint32_t t)
{
	struct weft_why w;
	if (weft_why(m, t, &w) || w.verdict == WEFT_VERDICT_OK)
		return;
	for (uint32_t k = 0; k + 1 < w.nchain; k++) {
		printf("      %s ", k ? "which waits on" : "it waits on");
		title(m, w.chain[k + 1].thread);
		putchar('\n');
	}
	printf("      (weft why: %s)\n", weft_verdict_name(w.verdict));
}

static void context(const struct weft_align *al,
		    const struct weft_divergence *d, const char *const *files)
{
	for (int s = 0; s < 2; s++) {
		const struct weft_model *m = weft_align_model(al, s);
		printf("in %s (%s):\n", side_name[s], files[s]);
		uint32_t t = d->thread[s];
		if (t == WEFT_NONE) {
			/* The thread is not in this run: where it would be. */
			const struct weft_model *o = weft_align_model(al, !s);
			uint32_t nth, n;
			const struct weft_thread *th =
				weft_model_threads(o, &nth);
			const uint32_t *map = weft_align_map(al, !s, &n);
			uint32_t p = th[d->thread[!s]].parent;
			if (p != WEFT_NONE && p < n && map[p] != WEFT_NONE) {
				printf("  no such thread among what ");
				title(m, map[p]);
				printf(" created\n  ");
				path(m, map[p]);
				putchar('\n');
			} else
				printf("  no such thread at the top level\n");
			continue;
		}
		printf("  ");
		title(m, t);
		printf(": ");
		path(m, t);
		putchar('\n');
		if (d->kind == WEFT_DIV_ONLY || d->kind == WEFT_DIV_END) {
			around(m, t, WEFT_NONE, WEFT_NONE);
			uint32_t nth;
			const struct weft_thread *th =
				weft_model_threads(m, &nth);
			if (th[t].end == WEFT_END_PENDING)
				waits(m, t);
		} else {
			around(m, t, d->arrow[s], d->other[s]);
			uint32_t nth;
			const struct weft_thread *th =
				weft_model_threads(m, &nth);
			if (th[t].end == WEFT_END_PENDING)
				waits(m, t);
		}
	}
}

/* One line saying what the divergence is. */
static void headline(const struct weft_align *al,
		     const struct weft_divergence *d)
{
	const struct weft_model *M[2] = {weft_align_model(al, 0),
					 weft_align_model(al, 1)};
	char t1[40], t2[40];
	printf("first divergence: ");
	switch (d->kind) {
	case WEFT_DIV_ONLY: {
		int s = d->thread[0] == WEFT_NONE;
		title(M[s], d->thread[s]);
		printf(" exists in the %s run only (created at %s s)\n",
		       side_name[s], at(M[s], t1, sizeof t1, d->t[s]));
		break;
	}
	case WEFT_DIV_END: {
		uint32_t n0, n1;
		const struct weft_thread *a = weft_model_threads(M[0], &n0),
					 *b = weft_model_threads(M[1], &n1);
		title(M[0], d->thread[0]);
		printf(" %s", end_word(a[d->thread[0]].end));
		if (a[d->thread[0]].end != WEFT_END_PENDING)
			printf(" at %s s", at(M[0], t1, sizeof t1, d->t[0]));
		printf(" in good, and %s", end_word(b[d->thread[1]].end));
		if (b[d->thread[1]].end != WEFT_END_PENDING)
			printf(" at %s s", at(M[1], t2, sizeof t2, d->t[1]));
		printf(" in bad\n");
		break;
	}
	case WEFT_DIV_ARROW: {
		int s = d->arrow[0] == WEFT_NONE;
		uint32_t na;
		const struct weft_arrow *a = weft_model_arrows(M[s], &na);
		const struct weft_arrow *x = &a[d->arrow[s]];
		uint32_t on, act;
		ends(x, &on, &act);
		printf("in the %s run only, ", side_name[s]);
		title(M[s], act);
		printf(" %s ", weft_arrow_verb(x->kind));
		title(M[s], on);
		printf(" (at %s s)\n", at(M[s], t1, sizeof t1, x->t));
		break;
	}
	case WEFT_DIV_ORDER: {
		printf("a wait on ");
		title(M[0], d->thread[0]);
		printf(" and a wake-up of it came in opposite orders\n");
		for (int s = 0; s < 2; s++) {
			uint32_t na;
			const struct weft_arrow *a =
				weft_model_arrows(M[s], &na);
			const struct weft_arrow *w = &a[d->arrow[s]],
						*k = &a[d->other[s]];
			const struct weft_arrow *first =
							d->arrow[s] < d->other[s]
								? w
								: k,
						*second = first == w ? k : w;
			printf("  %s:%s ", side_name[s], s ? " " : "");
			title(M[s], first->from);
			printf(" %s it at %s s, then ",
			       weft_arrow_verb(first->kind),
			       at(M[s], t1, sizeof t1, first->t));
			title(M[s], second->from);
			printf(" %s it at %s s\n",
			       weft_arrow_verb(second->kind),
			       at(M[s], t2, sizeof t2, second->t));
		}
		break;
	}
	}
}

/* ------------------------------------------------------------- JSON */

static void json_thread(const struct weft_model *m, uint32_t t)
{
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	char buf[256];
	printf("{\"id\":%llu,\"title\":", (unsigned long long)th[t].id);
	weft_json_string(stdout, weft_model_title(m, t, buf, sizeof buf));
	printf(",\"kind\":");
	weft_json_string(stdout,
			 th[t].kind ? weft_model_name(m, th[t].kind) : "");
	printf(",\"end\":\"%s\"}", end_word(th[t].end));
}

static void json_arrow(const struct weft_model *m, uint32_t k)
{
	uint32_t na, nth;
	const struct weft_arrow *a = weft_model_arrows(m, &na);
	const struct weft_thread *th = weft_model_threads(m, &nth);
	int64_t t0, t1;
	weft_model_range(m, &t0, &t1);
	uint32_t on, act;
	ends(&a[k], &on, &act);
	char buf[256];
	printf("{\"arrow\":\"%s\",\"actor\":", weft_arrow_name(a[k].kind));
	weft_json_string(stdout, weft_model_title(m, act, buf, sizeof buf));
	printf(",\"actor_id\":%llu,\"t_ns\":%lld}",
	       (unsigned long long)th[act].id, (long long)(a[k].t - t0));
}

static void json_divergence(const struct weft_align *al,
			    const struct weft_divergence *d)
{
	static const char *kinds[] = {"none", "only", "end", "arrow", "order"};
	printf(",\"divergence\":{\"kind\":\"%s\"", kinds[d->kind]);
	for (int s = 0; s < 2; s++) {
		const struct weft_model *m = weft_align_model(al, s);
		int64_t t0, t1;
		weft_model_range(m, &t0, &t1);
		printf(",\"%s\":{", side_name[s]);
		int c = 0;
		if (d->t[s] != INT64_MIN) {
			printf("\"t_ns\":%lld", (long long)(d->t[s] - t0));
			c = 1;
		}
		if (d->thread[s] != WEFT_NONE) {
			printf("%s\"thread\":", c ? "," : "");
			json_thread(m, d->thread[s]);
			c = 1;
		}
		if (d->arrow[s] != WEFT_NONE) {
			printf("%s\"%s\":", c ? "," : "",
			       d->kind == WEFT_DIV_ORDER ? "wait"
							 : "interaction");
			json_arrow(m, d->arrow[s]);
			c = 1;
		}
		if (d->other[s] != WEFT_NONE) {
			printf(",\"wake\":");
			json_arrow(m, d->other[s]);
		}
		printf("}");
	}
	printf("}");
}

/* ------------------------------------------------------------- timing */

static void timing_text(const struct weft_diff_timing *T,
			const struct weft_diff_threshold *th, int several)
{
	if (several)
		printf("timing (%u runs against %u; shown: a rank test over "
		       "the "
		       "runs' p50 or p95 rejects \"no change\" at family-wise "
		       "level %g, and the change is at least %gx and %s):\n",
		       T->runs[0], T->runs[1], th->alpha, th->effect,
		       fmt_time((char[32]){0}, 32, th->min_ns_runs));
	else
		printf("timing (shown: p50 or p95 changed by at least %gx and "
		       "%s):\n",
		       th->ratio, fmt_time((char[32]){0}, 32, th->min_ns));
	if (!T->nrows)
		printf("  no difference beyond the threshold (%u group%s "
		       "compared)\n",
		       T->groups, T->groups == 1 ? "" : "s");
	for (uint32_t i = 0; i < T->nrows; i++) {
		const struct weft_diff_row *r = &T->rows[i];
		char a[32], b[32], c[32], d[32], e[32], f[32];
		printf("  ");
		print_escaped(stdout, r->key, strlen(r->key));
		printf("  %s: p50 %s -> %s, p95 %s -> %s, max %s -> %s",
		       weft_diff_metric_name(r->metric),
		       fmt_time(a, sizeof a, r->p50[0]),
		       fmt_time(b, sizeof b, r->p50[1]),
		       fmt_time(c, sizeof c, r->p95[0]),
		       fmt_time(d, sizeof d, r->p95[1]),
		       fmt_time(e, sizeof e, r->max[0]),
		       fmt_time(f, sizeof f, r->max[1]));
		if (isinf(r->ratio))
			printf(" (%s from none)", r->stat ? "p95" : "p50");
		else
			printf(" (%s x%.2f)", r->stat ? "p95" : "p50",
			       r->ratio);
		printf(", n %.0f -> %.0f", r->count[0], r->count[1]);
		if (r->p >= 0)
			printf(", p %.2g", r->p);
		putchar('\n');
	}
}

static void timing_json(const struct weft_diff_timing *T,
			const struct weft_diff_threshold *th, int several)
{
	printf(",\"timing\":{\"test\":\"%s\",\"threshold\":{",
	       several ? "mann-whitney" : "ratio");
	if (several)
		printf("\"alpha\":%g,\"effect\":%g,\"min_ns\":%lld", th->alpha,
		       th->effect, (long long)th->min_ns_runs);
	else
		printf("\"ratio\":%g,\"min_ns\":%lld", th->ratio,
		       (long long)th->min_ns);
	printf("},\"groups\":%u,\"tests\":%u,\"differences\":[", T->groups,
	       T->tests);
	for (uint32_t i = 0; i < T->nrows; i++) {
		const struct weft_diff_row *r = &T->rows[i];
		printf("%s{\"key\":", i ? "," : "");
		weft_json_string(stdout, r->key);
		printf(",\"metric\":\"%s\",\"stat\":\"%s\",\"ratio\":",
		       weft_diff_metric_name(r->metric),
		       r->stat ? "p95" : "p50");
		if (isinf(r->ratio))
			printf("null");
		else
			printf("%.6g", r->ratio);
		printf(",\"count\":[%.6g,%.6g],\"p50_ns\":[%lld,%lld],"
		       "\"p95_ns\":[%lld,%lld],\"max_ns\":[%lld,%lld]",
		       r->count[0], r->count[1], (long long)r->p50[0],
		       (long long)r->p50[1], (long long)r->p95[0],
		       (long long)r->p95[1], (long long)r->max[0],
		       (long long)r->max[1]);
		if (r->p >= 0)
			printf(",\"p\":%.6g", r->p);
		printf("}");
	}
	printf("]}");
}

static int ratio_arg(void *ctx, const char *v, char *why, size_t cap)
{
	char *end;
	double x = strtod(v, &end);
	if (end == v || *end || !(x >= 1 && x < 1e9)) {
		snprintf(why, cap, "must be a ratio of 1 or more (not '%s')",
			 v);
		return -1;
	}
	*(double *)ctx = x;
	return 0;
}

static int alpha_arg(void *ctx, const char *v, char *why, size_t cap)
{
	char *end;
	double x = strtod(v, &end);
	if (end == v || *end || !(x > 0 && x < 1)) {
		snprintf(why, cap,
			 "must be a level between 0 and 1, such as "
			 "0.01 (not '%s')",
			 v);
		return -1;
	}
	*(double *)ctx = x;
	return 0;
}

/* When the first divergence is a thread of one run only and threads were
 * known by their labels, whether knowing them by kind alone aligns more:
 * labels that name a request (a user, a path, a token) tell runs apart
 * that do the same work.  Returns 1 and fills *kai (and *kfound: 1 when
 * the runs still differ in structure) when it does. */
static int kind_hint(const struct weft_model *a, const struct weft_model *b,
		     int key, int found, const struct weft_divergence *d,
		     const struct weft_align_info *ai,
		     struct weft_align_info *kai, int *kfound)
{
	if (key == WEFT_DIFF_KEY_KIND || found != 1 || d->kind != WEFT_DIV_ONLY)
		return 0;
	struct weft_align *k = NULL;
	struct weft_divergence kd;
	if (weft_align_new(&k, a, b, WEFT_DIFF_KEY_KIND))
		return 0;
	*kfound = weft_diff_first(k, &kd);
	weft_align_info(k, kai);
	weft_align_free(k);
	return *kfound >= 0 && kai->matched > ai->matched;
}

int cmd_diff(int argc, char **argv)
{
	int json = 0, strict = 0, key = WEFT_DIFF_KEY_LABEL, sep;
	int64_t min = -1;
	struct weft_diff_threshold th = WEFT_DIFF_THRESHOLD_DEFAULT;
	const struct opt opts[] = {
		{"--json", NULL, NULL, "one JSON object, for CI", OPT_FLAG,
		 &json},
		{"--strict", NULL, NULL,
		 "exit 1 also when a timing difference "
		 "is listed",
		 OPT_FLAG, &strict},
		{"--key", NULL, "KEY",
		 "what identifies a thread among its "
		 "siblings: label (its kind and label, numbers normalised; the "
		 "default), raw (the label as it is) or kind",
		 OPT_CHOICE, &key, .choices = "label|raw|kind"},
		{"--ratio", NULL, "R",
		 "one run a side: the change a p50 or p95 "
		 "must reach, either way (default 1.5)",
		 OPT_FUNC, .fn = ratio_arg, .ctx = &th.ratio},
		{"--min", NULL, "DURATION",
		 "the least change in time listed "
		 "(default 100us; several runs a side: 1us; a bare number is "
		 "nanoseconds)",
		 OPT_DURATION, &min, 0, 0, 1},
		{"--alpha", NULL, "A",
		 "several runs a side: the family-wise "
		 "level of the rank tests (default 0.01)",
		 OPT_FUNC, .fn = alpha_arg, .ctx = &th.alpha},
		OPT_END,
	};
	const struct cmd_usage u = {"diff",
				    "[OPTIONS] GOOD BAD\n[OPTIONS] GOOD... -- "
				    "BAD...",
				    "Where a good run and a bad one first went "
				    "different ways (a "
				    "thread of one run only, an end, an "
				    "interaction, a wait and a "
				    "wake-up in opposite orders), with the "
				    "context in both, and what "
				    "took longer beyond the noise.  Exit "
				    "status 1 when the structure "
				    "differs.  See docs/diff.md.",
				    opts, 0};
	const char **ops = calloc((size_t)argc + 1, sizeof *ops);
	int nops, rc = ops ? opts_parse(&u, argc, argv, ops, &nops, &sep) : 1;
	if (rc >= 0) {
		free(ops);
		return rc;
	}
	if (min >= 0)
		th.min_ns = th.min_ns_runs = min;
	/* GOOD BAD, or GOOD... -- BAD... */
	const char **files[2] = {ops, ops + (sep < 0 ? 1 : sep)};
	uint32_t nf[2] = {sep < 0 ? 1 : (uint32_t)sep,
			  sep < 0 ? (uint32_t)nops - 1
				  : (uint32_t)(nops - sep)};
	if ((sep < 0 && nops != 2) || !nf[0] || !nf[1]) {
		free(ops);
		return opts_usage(&u);
	}
	uint32_t nr = nf[0] + nf[1];
	struct weft_reader **R = calloc(nr, sizeof *R);
	struct weft_model **M = calloc(nr, sizeof *M);
	if (!R || !M)
		die("out of memory");
	rc = 0;
	for (uint32_t i = 0; i < nr && !rc; i++) {
		const char *f = i < nf[0] ? files[0][i] : files[1][i - nf[0]];
		if (!(M[i] = open_model(f, &R[i])))
			rc = 1;
	}
	struct weft_align *al = NULL;
	struct weft_diff_timing *T = NULL;
	struct weft_divergence d;
	int found = 0;
	if (!rc && weft_align_new(&al, M[0], M[nf[0]], key))
		rc = error("out of memory");
	if (!rc && (found = weft_diff_first(al, &d)) < 0)
		rc = error("out of memory");
	if (!rc && weft_diff_timing((const struct weft_model *const *)M, nf[0],
				    (const struct weft_model *const *)M + nf[0],
				    nf[1], key, &th, &T))
		rc = error("out of memory");
	int several = nf[0] >= 3 && nf[1] >= 3;
	if (!rc) {
		struct weft_align_info ai;
		weft_align_info(al, &ai);
		const char *pair[2] = {files[0][0], files[1][0]};
		static const char *keys[] = {"label", "raw", "kind"};
		struct weft_align_info kai;
		int kfound = 0;
		int hint = kind_hint(M[0], M[nf[0]], key, found, &d, &ai, &kai,
				     &kfound);
		if (json) {
			printf("{\"runs\":[[");
			for (uint32_t s = 0; s < 2; s++) {
				for (uint32_t i = 0; i < nf[s]; i++) {
					printf("%s", i ? "," : "");
					weft_json_string(stdout, files[s][i]);
				}
				printf(s ? "]]" : "],[");
			}
			printf(",\"key\":\"%s\",\"aligned\":%u,\"only_good\":%"
			       "u,"
			       "\"only_bad\":%u,\"reordered\":%u,\"structure\":"
			       "\"%s\"",
			       keys[key], ai.matched, ai.only[0], ai.only[1],
			       ai.reordered, found ? "different" : "same");
			if (found)
				json_divergence(al, &d);
			if (hint)
				printf(",\"hint\":{\"key\":\"kind\","
				       "\"aligned\":%u,"
				       "\"structure\":\"%s\"}",
				       kai.matched,
				       kfound ? "different" : "same");
			timing_json(T, &th, several);
			printf("}\n");
		} else {
			if (nr > 2)
				printf("structure: %s against %s\n", pair[0],
				       pair[1]);
			printf("aligned %u async threads (%u only in good, %u "
			       "only "
			       "in bad; %u out of their siblings' order)\n",
			       ai.matched, ai.only[0], ai.only[1],
			       ai.reordered);
			if (found) {
				headline(al, &d);
				context(al, &d, pair);
				if (hint)
					printf("hint: the runs' labels tell "
					       "their threads apart here; "
					       "--key kind (a thread known by "
					       "its kind and place alone) "
					       "aligns %u async threads "
					       "instead of %u%s\n",
					       kai.matched, ai.matched,
					       kfound ? ""
						      : ", with the same "
							"structure");
			} else
				printf("same structure: the same threads, "
				       "ending "
				       "the same way, with the same "
				       "interactions "
				       "in an order that makes no "
				       "difference\n");
			timing_text(T, &th, several);
		}
	}
	uint32_t rows = T ? T->nrows : 0;
	weft_diff_timing_free(T);
	weft_align_free(al);
	for (uint32_t i = 0; i < nr; i++) {
		weft_model_free(M[i]);
		if (R[i]) {
			const char *f = i < nf[0] ? files[0][i]
						  : files[1][i - nf[0]];
			rc |= report_losses(R[i], f);
			weft_reader_close(R[i]);
		}
	}
	free(R);
	free(M);
	free(ops);
	if (rc)
		return 1;
	return found || (strict && rows) ? 1 : 0;
}
