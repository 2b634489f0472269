/* SPDX-License-Identifier: MIT */
/*
 * options.c - the parser and the help of every command, from the command's
 * table (options.h); durations as the ruler writes them; the nearest
 * option or command to a mistyped one.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

static const struct opt help_opt = {
	"--help", "-h", NULL, "print this help and exit", OPT_FLAG, NULL, 0, 0,
	0,	  NULL, NULL,
};

/* ----------------------------------------------------------- help */

/* Prints `text` from column `col`, wrapped before column 80, each
 * further line indented to `indent`. */
static void wrap(FILE *f, const char *text, int col, int indent)
{
	const char *p = text;
	while (*p) {
		while (*p == ' ')
			p++;
		size_t w = strcspn(p, " \n");
		if (col > indent && col + 1 + (int)w > 79) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, w, f);
		col += (int)w;
		p += w;
		if (*p == '\n') {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			p++;
		}
	}
	fputc('\n', f);
}

static void print_synopsis(const struct cmd_usage *u, FILE *f, int all)
{
	const char *s = u->synopsis;
	for (int line = 0; *s; line++) {
		size_t n = strcspn(s, "\n");
		fprintf(f, "%s weft %s %.*s\n",
			line ? "   or:" : "usage:", u->name, (int)n, s);
		s += n + (s[n] == '\n');
		if (!all)
			break;
	}
}

static void help_line(FILE *f, const struct opt *o)
{
	char left[128];
	int n = snprintf(left, sizeof left, "  %s%s%s%s%s",
			 o->alias ? o->alias : "", o->alias ? ", " : "",
			 o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	/* an integer's range where the text says %R, else after it */
	char help[600], range[64] = "";
	const char *at = strstr(o->help, "%R");
	if (o->kind == OPT_INT)
		snprintf(range, sizeof range, "%lld..%lld", o->min, o->max);
	if (at)
		snprintf(help, sizeof help, "%.*s%s%s", (int)(at - o->help),
			 o->help, range, at + 2);
	else if (*range)
		snprintf(help, sizeof help, "%s (%s)", o->help, range);
	else
		snprintf(help, sizeof help, "%s", o->help);
	if (n > 24) {
		fprintf(f, "%s\n%*s", left, 26, "");
		wrap(f, help, 26, 26);
	} else {
		fprintf(f, "%-26s", left);
		wrap(f, help, 26, 26);
	}
}

void opts_help(const struct cmd_usage *u, FILE *f)
{
	print_synopsis(u, f, 1);
	fputc('\n', f);
	wrap(f, u->about, 0, 0);
	fprintf(f, "\noptions:\n");
	for (const struct opt *o = u->opts; o && o->name; o++)
		help_line(f, o);
	help_line(f, &help_opt);
	fprintf(f, "\nSee weft(1) for the exit statuses and the "
		   "environment.\n");
}

int opts_usage(const struct cmd_usage *u)
{
	print_synopsis(u, stderr, 1);
	fprintf(stderr, "see 'weft %s --help'\n", u->name);
	return 2;
}

static void say(const struct cmd_usage *u, const char *fmt, va_list ap)
{
	fprintf(stderr, "weft %s: ", u->name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int opts_error(const struct cmd_usage *u, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(u, fmt, ap);
	va_end(ap);
	print_synopsis(u, stderr, 0);
	return 2;
}

/* A bad value: the line says all (the option, the value, what it must
 * be), with no usage after it. */
__attribute__((format(printf, 2, 3))) static int
bad_value(const struct cmd_usage *u, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(u, fmt, ap);
	va_end(ap);
	return 2;
}

/* ------------------------------------------------------- durations */

int parse_duration(const char *s, double unit, int sign, int64_t *ns)
{
	static const struct {
		const char *name;
		double ns;
	} units[] = {
		{"ns", 1},	    {"us", 1e3}, {"\xc2\xb5s", 1e3}, /* µ */
		{"\xce\xbcs", 1e3}, /* μ (Greek mu) */
		{"ms", 1e6},	    {"s", 1e9},	 {"min", 60e9},
	};
	/* a no-break space (U+00A0: a time copied from the GTK inspector)
	 * is a space */
	char sp[128];
	size_t m = 0;
	for (const char *c = s; *c && m + 1 < sizeof sp; c++) {
		if ((unsigned char)c[0] == 0xc2 && (unsigned char)c[1] == 0xa0)
			c++, sp[m++] = ' ';
		else
			sp[m++] = *c;
	}
	sp[m] = 0;
	if (strlen(s) >= sizeof sp)
		return -1;
	s = sp;
	while (*s == ' ')
		s++;
	/* digits in groups, as the viewers write times ("17.094 992 s"):
	 * a space between two digits goes */
	char flat[128];
	size_t n = 0;
	for (const char *c = s; *c && n + 1 < sizeof flat; c++)
		if (!(*c == ' ' && c > s && c[-1] >= '0' && c[-1] <= '9' &&
		      c[1] >= '0' && c[1] <= '9'))
			flat[n++] = *c;
	flat[n] = 0;
	if (strlen(s) >= sizeof flat)
		return -1;
	s = flat;
	int neg = 0;
	if (sign && (*s == '+' || *s == '-'))
		neg = *s++ == '-';
	/* digits first: strtod would take "inf", "nan", hex and signs */
	if (!((*s >= '0' && *s <= '9') ||
	      (*s == '.' && s[1] >= '0' && s[1] <= '9')))
		return -1;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || !isfinite(v) || v < 0)
		return -1;
	while (*end == ' ')
		end++;
	double mul = unit;
	if (*end) {
		size_t k;
		for (k = 0; k < sizeof units / sizeof *units; k++)
			if (!strcmp(end, units[k].name))
				break;
		if (k == sizeof units / sizeof *units)
			return -1;
		mul = units[k].ns;
	}
	v = v * mul + 0.5;
	if (v >= 9.2e18)
		return -1;
	*ns = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* --------------------------------------------------- nearest words */

/* Optimal string alignment distance (Levenshtein with transpositions),
 * on the first 63 bytes. */
static int distance(const char *a, const char *b)
{
	int la = (int)strnlen(a, 63), lb = (int)strnlen(b, 63);
	int d[64][64];
	for (int i = 0; i <= la; i++)
		d[i][0] = i;
	for (int j = 0; j <= lb; j++)
		d[0][j] = j;
	for (int i = 1; i <= la; i++)
		for (int j = 1; j <= lb; j++) {
			int c = a[i - 1] != b[j - 1];
			int x = d[i - 1][j] + 1, y = d[i][j - 1] + 1,
			    z = d[i - 1][j - 1] + c;
			int m = x < y ? x : y;
			m = m < z ? m : z;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < m)
				m = d[i - 2][j - 2] + 1;
			d[i][j] = m;
		}
	return d[la][lb];
}

int nearest(const char *typed, const char *const *cand, int n, const char **out,
	    int max)
{
	size_t lt = strlen(typed);
	int limit = lt < 4 ? 1 : lt < 8 ? 2 : 3, best = limit + 1, k = 0;
	for (int i = 0; i < n; i++) {
		int d = distance(typed, cand[i]);
		/* a beginning of it counts as near */
		if (lt >= 2 && !strncmp(cand[i], typed, lt))
			d = d < 1 ? d : 1;
		if (d < best) {
			best = d;
			k = 0;
		}
		if (d == best && k < max)
			out[k++] = cand[i];
	}
	return best <= limit ? k : 0;
}

/* ---------------------------------------------------------- parser */

static const struct opt *find_opt(const struct cmd_usage *u, const char *a,
				  size_t len)
{
	for (const struct opt *o = u->opts; o && o->name; o++)
		if ((strlen(o->name) == len && !strncmp(o->name, a, len)) ||
		    (o->alias && strlen(o->alias) == len &&
		     !strncmp(o->alias, a, len)))
			return o;
	return NULL;
}

static int unknown(const struct cmd_usage *u, const char *a, size_t len)
{
	const char *names[130], *near[3];
	int n = 0;
	for (const struct opt *o = u->opts; o && o->name && n < 128; o++)
		names[n++] = o->name;
	names[n++] = "--help";
	char typed[64];
	snprintf(typed, sizeof typed, "%.*s", (int)(len < 63 ? len : 63), a);
	int k = nearest(typed, names, n, near, 3);
	if (k == 1)
		return opts_error(u, "unknown option '%s'; did you mean '%s'?",
				  typed, near[0]);
	if (k > 1)
		return opts_error(u,
				  "unknown option '%s'; did you mean '%s' or "
				  "'%s'?",
				  typed, near[0], near[1]);
	return opts_error(u, "unknown option '%s' (see 'weft %s --help')",
			  typed, u->name);
}

static int take(const struct cmd_usage *u, const struct opt *o, const char *v)
{
	char why[200] = "";
	switch (o->kind) {
	case OPT_FLAG:
		*(int *)o->var = 1;
		return -1;
	case OPT_STRING:
		*(const char **)o->var = v;
		return -1;
	case OPT_INT: {
		char *end;
		errno = 0;
		long long x = strtoll(v, &end, 10);
		if (end == v || *end || errno || x < o->min || x > o->max)
			return bad_value(u, "%s must be %lld..%lld (not '%s')",
					 o->name, o->min, o->max, v);
		*(int *)o->var = (int)x;
		return -1;
	}
	case OPT_DURATION: {
		int64_t ns;
		if (parse_duration(v, o->unit, o->min < 0, &ns))
			return bad_value(u,
					 "%s must be a time such as 2.5ms, "
					 "120us, 1.2s or 300ns (not '%s')",
					 o->name, v);
		if (ns < o->min || (o->max && ns > o->max))
			return bad_value(
				u, "%s must be %s (not '%s')", o->name,
				o->min > 0 ? "more than 0" : "in range", v);
		*(int64_t *)o->var = ns;
		return -1;
	}
	case OPT_LIST: {
		struct opt_list *l = o->var;
		if (l->n == l->cap) {
			int cap = l->cap ? 2 * l->cap : 8;
			const char **nv =
				realloc(l->v, (size_t)cap * sizeof *nv);
			if (!nv)
				return opts_error(u, "out of memory");
			l->v = nv;
			l->cap = cap;
		}
		l->v[l->n++] = v;
		return -1;
	}
	case OPT_CHOICE: {
		const char *c = o->choices;
		for (int k = 0; *c; k++) {
			size_t n = strcspn(c, "|");
			if (strlen(v) == n && !strncmp(c, v, n)) {
				*(int *)o->var = k;
				return -1;
			}
			c += n + (c[n] == '|');
		}
		/* "a, b, c" */
		char pretty[300];
		size_t k = 0;
		for (c = o->choices; *c && k + 3 < sizeof pretty; c++) {
			if (*c == '|') {
				pretty[k++] = ',';
				pretty[k++] = ' ';
			} else
				pretty[k++] = *c;
		}
		pretty[k] = 0;
		return bad_value(u, "%s must be one of %s (not '%s')", o->name,
				 pretty, v);
	}
	case OPT_FUNC:
		if (o->fn(o->ctx, v, why, sizeof why))
			return bad_value(u, "%s %s", o->name, why);
		return -1;
	}
	return -1;
}

int opts_parse(const struct cmd_usage *u, int argc, char **argv,
	       const char **ops, int *nops, int *dashdash)
{
	*nops = 0;
	if (dashdash)
		*dashdash = -1;
	int i;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			if (!dashdash) { /* the rest: operands */
				for (i++; i < argc; i++)
					ops[(*nops)++] = argv[i];
				break;
			}
			if (*dashdash >= 0)
				return opts_error(u, "'--' given twice");
			*dashdash = *nops;
			continue;
		}
		if (a[0] != '-' || !a[1]) {
			ops[(*nops)++] = a;
			if (u->flags & OPTS_STOP_AT_ARG) {
				for (i++; i < argc; i++)
					ops[(*nops)++] = argv[i];
				break;
			}
			continue;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			opts_help(u, stdout);
			return fflush(stdout) ? 1 : 0;
		}
		const char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
		size_t len = eq ? (size_t)(eq - a) : strlen(a);
		const struct opt *o = find_opt(u, a, len);
		if (!o)
			return unknown(u, a, len);
		const char *v = NULL;
		if (o->arg) {
			if (eq)
				v = eq + 1;
			else if (i + 1 < argc)
				v = argv[++i];
			else
				return opts_error(u, "%s needs a value (%s)",
						  o->name, o->arg);
		} else if (eq)
			return opts_error(u, "%s takes no value", o->name);
		int rc = take(u, o, v);
		if (rc >= 0)
			return rc;
	}
	return -1;
}
