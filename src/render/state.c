/* SPDX-License-Identifier: MIT */
/*
 * state.c - a view's state as one line of text (weft_view_state()) and
 * back (weft_view_set_state()): what the HTML viewer keeps in its URL's
 * fragment, GTK and `weft render` take as --view STATE, and both viewers
 * print with V.  One format for the three, so that a PNG, a GTK window
 * and a web page show the same view.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view-internal.h"

struct out {
	char *buf;
	size_t cap, len;
};

static void put(struct out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++, o->len++)
		if (o->len + 1 < o->cap)
			o->buf[o->len] = s[i];
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* A number in base 10. */
static void putn(struct out *o, long long x)
{
	char t[24];
	int n = snprintf(t, sizeof t, "%lld", x);
	put(o, t, n > 0 ? (size_t)n : 0);
}

/* Text as it may stand in a URL's fragment: letters, digits and -._~
 * as they are, every other byte %XX. */
static void put_escaped(struct out *o, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~", c))
			put(o, (const char *)&c, 1);
		else {
			char e[3] = {'%', hex[c >> 4], hex[c & 15]};
			put(o, e, 3);
		}
	}
}

/* A list of indexes where flags[i] (n of them), "1,4,7": 0 when none. */
static int put_list(struct out *o, const char *key, const uint8_t *flags,
		    uint32_t n, int want)
{
	int any = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!!flags[i] == want) {
			puts_(o, any ? "," : key);
			putn(o, (long long)i);
			any = 1;
		}
	return any;
}

size_t weft_view_state(const struct weft_view *v, char *buf, size_t cap)
{
	struct out o = {buf, cap, 0};
	if (cap)
		buf[0] = 0;
	puts_(&o, "r=");
	putn(&o, (long long)(v->time.t0 - v->time.tmin));
	puts_(&o, ",");
	putn(&o, (long long)(v->time.t1 - v->time.tmin));
	if (v->ruler.meas0 != v->ruler.meas1) {
		puts_(&o, "&m=");
		putn(&o, (long long)(v->ruler.meas0 - v->time.tmin));
		puts_(&o, ",");
		putn(&o, (long long)(v->ruler.meas1 - v->time.tmin));
	}
	if (v->sel.selected < v->rows.nthreads) {
		puts_(&o, "&sel=");
		putn(&o, (long long)v->sel.selected);
	}
	if (v->sel.chained < v->rows.nthreads) {
		puts_(&o, "&chain=");
		putn(&o, (long long)v->sel.chained);
	}
	if (v->sel.depth != WEFT_CHAIN_ALL) {
		puts_(&o, "&depth=");
		putn(&o, (long long)v->sel.depth);
	}
	if (v->sel.only_chain)
		puts_(&o, "&only=1");
	if (v->crit.thread != WEFT_NONE) {
		puts_(&o, "&path=");
		putn(&o, (long long)v->crit.thread);
	}
	if (v->search.query && *v->search.query) {
		puts_(&o, "&q=");
		put_escaped(&o, v->search.query);
	}
	if (v->rows.ncollapsed)
		put_list(&o, "&fold=", v->rows.collapsed, v->rows.ncollapsed,
			 1);
	for (uint32_t i = 0; i < v->bm.n; i++) {
		puts_(&o, i ? "," : "&b=");
		putn(&o, (long long)(v->bm.at[i].t - v->time.tmin));
		puts_(&o, ":");
		put_escaped(&o, v->bm.at[i].note);
	}
	uint32_t nctr;
	weft_model_counters(v->m, &nctr);
	if (nctr && !v->ctr.shown)
		puts_(&o, "&counters=0");
	else if (nctr)
		put_list(&o, "&hide=", v->ctr.off,
			 nctr < v->ctr.noff ? nctr : v->ctr.noff, 1);
	if (o.len < cap)
		buf[o.len] = 0;
	else if (cap)
		buf[cap - 1] = 0;
	return o.len;
}

/* ------------------------------------------------------------- reading */

static int unhex(int c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/* A value: %XX decoded, '+' a space (as a form writes it); NULL if a
 * % is not followed by two hex digits. */
static char *unescape(const char *s, size_t n)
{
	char *r = malloc(n + 1), *w = r;
	if (!r)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%') {
			int hi = i + 2 < n ? unhex(s[i + 1]) : -1;
			int lo = i + 2 < n ? unhex(s[i + 2]) : -1;
			if (hi < 0 || lo < 0) {
				free(r);
				return NULL;
			}
			*w++ = (char)(hi * 16 + lo);
			i += 2;
			continue;
		}
		*w++ = s[i] == '+' ? ' ' : s[i];
	}
	*w = 0;
	return r;
}

/* A number, whole (base 10), within [lo, hi]. */
static int num(const char *s, long long lo, long long hi, long long *x)
{
	char *e;
	errno = 0;
	long long n = strtoll(s, &e, 10);
	if (e == s || *e || errno || n < lo || n > hi)
		return -1;
	*x = n;
	return 0;
}

/* "a,b" of two numbers. */
static int pair_of(const char *s, long long lo, long long hi, long long *a,
		   long long *b)
{
	const char *c = strchr(s, ',');
	if (!c)
		return -1;
	char first[32];
	size_t n = (size_t)(c - s);
	if (n >= sizeof first)
		return -1;
	memcpy(first, s, n);
	first[n] = 0;
	return num(first, lo, hi, a) || num(c + 1, lo, hi, b) ? -1 : 0;
}

/* A list "1,4,7" of indexes below n into flags (n of them, zeroed):
 * -1 when it is not one. */
static int list_of(const char *s, uint32_t n, uint8_t *flags)
{
	while (*s) {
		char *e;
		if (*s < '0' || *s > '9')
			return -1;
		errno = 0;
		long long x = strtoll(s, &e, 10);
		if (errno || x < 0 || x >= (long long)n || (*e && *e != ','))
			return -1;
		flags[x] = 1;
		s = *e ? e + 1 : e;
		if (*e && !*s)
			return -1; /* (a trailing comma) */
	}
	return 0;
}

/* b=T:NOTE,T:NOTE: each a time (ns from the start) and a note that
 * unescapes; at most 1000. */
static int check_marks(const char *s)
{
	int n = 0;
	while (*s) {
		const char *c = strchr(s, ',');
		size_t k = c ? (size_t)(c - s) : strlen(s);
		const char *colon = memchr(s, ':', k);
		char t[32];
		long long x;
		if (!colon || (size_t)(colon - s) >= sizeof t || ++n > 1000)
			return -1;
		memcpy(t, s, (size_t)(colon - s));
		t[colon - s] = 0;
		char *note = unescape(colon + 1, k - (size_t)(colon + 1 - s));
		if (num(t, -4000000000000000000LL, 4000000000000000000LL, &x) ||
		    !note) {
			free(note);
			return -1;
		}
		free(note);
		s += k;
		if (*s == ',' && !*++s)
			return -1; /* (a trailing comma) */
	}
	return 0;
}

int weft_view_set_state(struct weft_view *v, const char *state, char *err,
			size_t errcap)
{
	uint32_t nth, nproc, nctr;
	weft_model_threads(v->m, &nth);
	weft_model_processes(v->m, &nproc);
	weft_model_counters(v->m, &nctr);
	const long long big = 4000000000000000000LL;
	if (state && *state == '#')
		state++;
	/* first everything read and checked, then applied: a bad state
	 * changes nothing */
	long long r0 = 0, r1 = 0, m0 = 0, m1 = 0, sel = -1, chain = -1;
	long long depth = WEFT_CHAIN_ALL, path = -1, only = 0, ctr = 1;
	char *marks = NULL; /* b=: checked, applied last */
	int has_r = 0, has_m = 0;
	char *q = NULL;
	uint8_t *fold = calloc((size_t)nproc + 1, 1);
	uint8_t *hide = calloc((size_t)nctr + 1, 1);
	char *copy = strdup(state ? state : "");
	if (!copy || !fold || !hide) {
		free(copy);
		free(fold);
		free(hide);
		return -ENOMEM;
	}
	int bad = 0;
	const char *what = "";
	for (char *s = copy, *next; s && *s && !bad; s = next) {
		next = strchr(s, '&');
		if (next)
			*next++ = 0;
		char *val = strchr(s, '=');
		if (!val) {
			bad = 1, what = s;
			break;
		}
		*val++ = 0;
		what = s;
		if (!strcmp(s, "r"))
			bad = pair_of(val, -big, big, &r0, &r1) || r1 <= r0,
			has_r = 1;
		else if (!strcmp(s, "m"))
			bad = pair_of(val, -big, big, &m0, &m1), has_m = 1;
		else if (!strcmp(s, "sel"))
			bad = num(val, 0, (long long)nth - 1, &sel);
		else if (!strcmp(s, "chain"))
			bad = num(val, 0, (long long)nth - 1, &chain);
		else if (!strcmp(s, "depth"))
			bad = num(val, 1, 1000, &depth);
		else if (!strcmp(s, "only"))
			bad = num(val, 0, 1, &only);
		else if (!strcmp(s, "path"))
			bad = num(val, 0, (long long)nth - 1, &path);
		else if (!strcmp(s, "q")) {
			free(q);
			bad = !(q = unescape(val, strlen(val)));
		} else if (!strcmp(s, "fold"))
			bad = list_of(val, nproc, fold);
		else if (!strcmp(s, "hide"))
			bad = list_of(val, nctr, hide);
		else if (!strcmp(s, "counters"))
			bad = num(val, 0, 1, &ctr);
		else if (!strcmp(s, "b")) {
			free(marks);
			bad = !(marks = strdup(val)) || check_marks(marks);
		} else
			bad = 1;
	}
	if (bad) {
		if (err && errcap)
			snprintf(err, errcap,
				 "bad view state at '%s' (r=T0,T1 ns from the "
				 "trace's start, m=T0,T1, sel=N, chain=N, "
				 "depth=N, only=1, path=N, q=TEXT, fold=P,P, "
				 "hide=K,K, counters=0, b=T:NOTE,T:NOTE, "
				 "joined by &)",
				 what);
		free(copy);
		free(q);
		free(fold);
		free(hide);
		free(marks);
		return -EINVAL;
	}
	free(copy);
	/* what the state leaves out is as a new view has it */
	for (uint32_t p = 0; p < nproc; p++)
		if (weft_view_collapsed(v, p) != fold[p])
			weft_view_collapse(v, p, fold[p]);
	for (uint32_t k = 0; k < nctr; k++)
		weft_view_show_counter(v, k, !hide[k]);
	weft_view_show_counters(v, (int)ctr);
	free(fold);
	free(hide);
	weft_view_search(v, q);
	free(q);
	weft_view_set_chain_depth(v, (int)depth);
	weft_view_chain(v, chain >= 0 ? (uint32_t)chain : WEFT_NONE);
	weft_view_select(v, sel >= 0 ? (uint32_t)sel : WEFT_NONE);
	weft_view_only_chain(v, (int)only);
	weft_view_path(v, path >= 0 ? (uint32_t)path : WEFT_NONE);
	if (has_m)
		weft_view_set_measure(v, v->time.tmin + m0, v->time.tmin + m1);
	else
		weft_view_clear_measure(v);
	weft_view_clear_bookmarks(v);
	for (char *m = marks, *next; m && *m; m = next) {
		next = strchr(m, ',');
		if (next)
			*next++ = 0;
		char *colon = strchr(m, ':');
		*colon = 0;
		char *note = unescape(colon + 1, strlen(colon + 1));
		weft_view_add_bookmark(v, v->time.tmin + strtoll(m, NULL, 10),
				       note);
		free(note);
	}
	free(marks);
	if (has_r)
		weft_view_set_range(v, v->time.tmin + r0, v->time.tmin + r1);
	return 0;
}
