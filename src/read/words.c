/* SPDX-License-Identifier: MIT */
/*
 * words.c - the words weft writes for people, one table each: how threads
 * and processes end, what each arrow kind is called, its verb and colour
 * (expanded from WEFT_END_MAP and WEFT_ARROW_MAP), and a time (in groups
 * of three digits, in a unit chosen or given).  The inspectors, summaries,
 * exports and both viewers take them from here.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "weft/model.h"
#include "weft/stats.h"

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

#define ARROW_NAME(E, name, verb, r, g, b) name,
#define ARROW_VERB(E, name, verb, r, g, b) verb,
#define ARROW_RGB(E, name, verb, r, g, b) {r, g, b},
static const char *const arrow_names[] = {WEFT_ARROW_MAP(ARROW_NAME)};
static const char *const arrow_verbs[] = {WEFT_ARROW_MAP(ARROW_VERB)};
static const double arrow_rgb[][3] = {WEFT_ARROW_MAP(ARROW_RGB)};

const char *weft_arrow_name(int kind)
{
	return kind >= 0 && kind < WEFT_ARROW_KINDS ? arrow_names[kind] : "?";
}

const char *weft_arrow_verb(int kind)
{
	return kind >= 0 && kind < WEFT_ARROW_KINDS ? arrow_verbs[kind]
						    : "touches";
}

void weft_arrow_color(int kind, double rgb[3])
{
	static const double grey[3] = {0.5, 0.5, 0.5};
	memcpy(rgb,
	       kind >= 0 && kind < WEFT_ARROW_KINDS ? arrow_rgb[kind] : grey,
	       sizeof arrow_rgb[0]);
}

/* ------------------------------------------------------------ times */

size_t weft_time_fmt(int64_t ns, int64_t prec, char *buf, size_t cap)
{
	return weft_time_fmt_in(ns, prec, 0, buf, cap);
}

size_t weft_time_fmt_in(int64_t ns, int64_t prec, int64_t unit_ns, char *buf,
			size_t cap)
{
	/* prec: a power of ten from 1 ns to 1 s */
	uint64_t p = 1;
	int pd = 0; /* its digits */
	while (pd < 9 && p * 10 <= (uint64_t)(prec > 0 ? prec : 1)) {
		p *= 10;
		pd++;
	}
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	uint64_t r = (a / p + (a % p >= (p + 1) / 2 && p > 1)) * p;
	static const char *names[] = {"ns", "us", "ms", "s"};
	int k = r < 1000 ? 0 : r < 1000000 ? 1 : r < 1000000000 ? 2 : 3;
	if (unit_ns > 0) /* the unit asked for */
		k = unit_ns < 1000	   ? 0
		    : unit_ns < 1000000	   ? 1
		    : unit_ns < 1000000000 ? 2
					   : 3;
	uint64_t unit = 1;
	for (int i = 0; i < k; i++)
		unit *= 1000;
	char frac[16] = "";
	int nd = 3 * k - pd; /* decimals down to prec */
	if (nd > 0) {
		char all[16];
		snprintf(all, sizeof all, "%0*llu", 3 * k,
			 (unsigned long long)(r % unit));
		/* in groups of three, the whole zero ones at the end left out */
		int n = 0;
		for (int i = 0; i < nd; i++) {
			if (i && i % 3 == 0)
				frac[n++] = ' ';
			frac[n++] = all[i];
		}
		frac[n] = 0;
		while (n > 0) {
			int g = n; /* the last group: after its space */
			while (g > 0 && frac[g - 1] != ' ')
				g--;
			if (strspn(frac + g, "0") != (size_t)(n - g))
				break;
			n = g > 0 ? g - 1 : 0;
			frac[n] = 0;
		}
	}
	int len = snprintf(buf, cap, "%s%llu%s%s %s", ns < 0 && r ? "-" : "",
			   (unsigned long long)(r / unit), *frac ? "." : "",
			   frac, names[k]);
	return len > 0 ? (size_t)len : 0;
}
