/* SPDX-License-Identifier: MIT */
/*
 * hover.c - what the pointer is over: a thread's tooltip, in a few lines
 * (the inspector has the rest).
 */
#include <stdio.h>

#include "view-internal.h"
#include "weft/model.h"

size_t weft_view_tooltip(const struct weft_view *v, uint32_t t, char *buf,
			 size_t cap)
{
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(v->m, &n);
	if (cap)
		buf[0] = 0;
	if (t >= n)
		return 0;
	const struct weft_thread *x = &th[t];
	char title[200], life[32], ran[32];
	weft_model_title(v->m, t, title, sizeof title);
	if (x->flags & WEFT_THREAD_ROOT)
		return (size_t)snprintf(buf, cap, "%s\nthe OS thread itself",
					title);
	/* its life as the inspector counts it (pending: to the end of the
	 * trace), and the time it ran within it */
	int64_t lo = x->t_create, hi = x->t_end, t0, t1;
	weft_model_range(v->m, &t0, &t1);
	if (x->end == WEFT_END_PENDING && t1 > hi)
		hi = t1;
	uint32_t k;
	const uint32_t *ri = weft_model_thread_runs(v->m, t, &k);
	const struct weft_run *r = weft_model_runs(v->m, &n);
	double running = 0;
	for (uint32_t i = 0; i < k; i++) {
		int64_t a = r[ri[i]].t0 < lo ? lo : r[ri[i]].t0;
		int64_t b = r[ri[i]].t1 > hi ? hi : r[ri[i]].t1;
		running += b > a ? (double)(b - a) : 0;
	}
	const char *how = x->end != WEFT_END_PENDING ? weft_end_name(x->end)
			  : x->flags & WEFT_THREAD_SHOULD_RESOLVE
				  ? "should resolve, never did"
				  : "still pending at the end";
	int len = snprintf(
		buf, cap, "%s\n%s, %s %s, ran %s\n%s%s%s", title,
		x->kind ? weft_model_name(v->m, x->kind) : "(no kind)",
		x->end == WEFT_END_PENDING ? "pending for" : "lived",
		weft__dur_str(life, sizeof life, (double)(hi - lo)),
		weft__dur_str(ran, sizeof ran, running), how,
		x->message != WEFT_NONE ? ": " : "",
		x->message != WEFT_NONE ? weft_model_string(v->m, x->message)
					: "");
	return len > 0 ? (size_t)len : 0;
}
