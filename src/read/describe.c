/* SPDX-License-Identifier: MIT */
/*
 * describe.c - the model's tables for people: how threads (and
 * processes) end, what each
 * arrow kind is called and its colour (expanded from WEFT_END_MAP and
 * WEFT_ARROW_MAP), and a thread described in lines of text (the
 * viewers' inspector).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "weft/model.h"

#define END_NAME(E, name, says) name,
#define END_SAYS(E, name, says) says,
static const char *const end_names[] = {WEFT_END_MAP(END_NAME)};
static const char *const end_says[] = {WEFT_END_MAP(END_SAYS)};

const char *weft_end_name(int end)
{
	return end >= 0 && end < WEFT_END_KINDS ? end_names[end] : "?";
}

const char *weft_end_says(int end)
{
	return end >= 0 && end < WEFT_END_KINDS ? end_says[end] : "?";
}

const char *weft_process_says(int end, int status, char *buf, size_t cap)
{
	switch (end) {
	case WEFT_PROC_EXITED:
		snprintf(buf, cap, "exited with status %d", status);
		return buf;
	case WEFT_PROC_SIGNALED:
		snprintf(buf, cap, "killed by signal %d", status);
		return buf;
	case WEFT_PROC_EXECED:
		return "exec'd";
	case WEFT_PROC_VANISHED:
		return "vanished (no exit recorded: killed?)";
	case WEFT_PROC_STOPPED:
		return "stopped recording";
	}
	return "running";
}

#define ARROW_NAME(E, name, r, g, b) name,
#define ARROW_RGB(E, name, r, g, b) {r, g, b},
static const char *const arrow_names[] = {WEFT_ARROW_MAP(ARROW_NAME)};
static const double arrow_rgb[][3] = {WEFT_ARROW_MAP(ARROW_RGB)};

const char *weft_arrow_name(int kind)
{
	return kind >= 0 && kind < WEFT_ARROW_KINDS ? arrow_names[kind] : "?";
}

void weft_arrow_color(int kind, double rgb[3])
{
	static const double grey[3] = {0.5, 0.5, 0.5};
	memcpy(rgb,
	       kind >= 0 && kind < WEFT_ARROW_KINDS ? arrow_rgb[kind] : grey,
	       sizeof arrow_rgb[0]);
}

/* ------------------------------------------------------------- describe */

struct out {
	char *buf;
	size_t cap, len;
};

static void put(struct out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *at = o->len < o->cap ? o->buf + o->len : NULL;
	int n = vsnprintf(at, at ? o->cap - o->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

#define MAX_ARROWS 24
#define MAX_LABELS 8

size_t weft_model_describe(const struct weft_model *m, uint32_t t, char *buf,
			   size_t cap)
{
	struct out o = {buf, cap, 0};
	uint32_t n, na, nl;
	const struct weft_thread *th = weft_model_threads(m, &n);
	const struct weft_arrow *ar = weft_model_arrows(m, &na);
	const struct weft_label *lb = weft_model_labels(m, &nl);
	char title[256];
	if (cap)
		buf[0] = 0;
	if (t >= n)
		return 0;
	const struct weft_thread *x = &th[t];
	put(&o, "%s\n", weft_model_title(m, t, title, sizeof title));
	if (x->flags & WEFT_THREAD_ROOT) {
		put(&o, "the OS thread itself, when no async thread runs");
		return o.len;
	}
	put(&o, "id 0x%llx, kind %s", (unsigned long long)x->id,
	    x->kind ? weft_model_name(m, x->kind) : "(none)");
	if (x->incarnation)
		put(&o, ", incarnation %u of its id", x->incarnation + 1);
	put(&o, "\n%s %.6f s, ",
	    x->flags & WEFT_THREAD_NO_CREATE ? "first seen (creation lost)"
					     : "created",
	    (double)x->t_create / 1e9);
	if (x->end == WEFT_END_PENDING)
		put(&o, "%s (last seen %.6f s)",
		    x->flags & WEFT_THREAD_SHOULD_RESOLVE ? "should resolve, "
							    "never did"
							  : "still pending at "
							    "the end",
		    (double)x->t_end / 1e9);
	else
		put(&o, "%s %.6f s (after %.6f s)", weft_end_name(x->end),
		    (double)x->t_end / 1e9,
		    (double)(x->t_end - x->t_create) / 1e9);
	if (x->message != WEFT_NONE)
		put(&o, ": %s", weft_model_string(m, x->message));
	if (x->end == WEFT_END_BECAME && x->became < n)
		put(&o, "\nbecame: %s",
		    weft_model_title(m, x->became, title, sizeof title));
	if (x->parent < n)
		put(&o, "\nparent: %s",
		    weft_model_title(m, x->parent, title, sizeof title));
	/* its labels, latest first, then its first notes */
	uint32_t shown = 0;
	for (uint32_t l = x->label; l < nl && shown < MAX_LABELS;
	     l = lb[l].prev, shown++)
		put(&o, "\nlabel at %.6f s: %s", (double)lb[l].t / 1e9,
		    weft_model_string(m, lb[l].text));
	shown = 0;
	for (uint32_t l = 0; l < nl && shown < MAX_LABELS; l++)
		if (lb[l].kind == WEFT_EV_NOTE && lb[l].thread == t) {
			put(&o, "\nnote at %.6f s: %s", (double)lb[l].t / 1e9,
			    weft_model_string(m, lb[l].text));
			shown++;
		}
	uint32_t k;
	const uint32_t *ai = weft_model_thread_arrows(m, t, &k);
	if (k)
		put(&o, "\narrows: %u", k);
	for (uint32_t i = 0; i < k && i < MAX_ARROWS; i++) {
		const struct weft_arrow *a = &ar[ai[i]];
		uint32_t other = a->from == t ? a->to : a->from;
		put(&o, "\n%s %s %s at %.6f s", a->from == t ? "->" : "<-",
		    weft_arrow_name(a->kind),
		    weft_model_title(m, other, title, sizeof title),
		    (double)a->t / 1e9);
	}
	if (k > MAX_ARROWS)
		put(&o, "\n... and %u more", k - MAX_ARROWS);
	return o.len;
}
