/* SPDX-License-Identifier: MIT */
/* usage.c - messages and small helpers shared by the subcommands. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "weft-tools.h"
#include "weft/model.h"
#include "weft/stats.h"

static void report(const char *prefix, const char *fmt, va_list ap)
{
	progress_clear();
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("weft: ", fmt, ap);
	va_end(ap);
	return 1;
}

int error_errno(const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	progress_clear();
	fputs("weft: ", stderr);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, ": %s\n", strerror(e));
	va_end(ap);
	return 1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("weft: warning: ", fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("weft: ", fmt, ap);
	va_end(ap);
	exit(1);
}

int usage(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report("usage: ", fmt, ap);
	va_end(ap);
	return 2;
}

struct weft_reader *open_trace(const char *path, unsigned flags)
{
	struct weft_reader *r;
	struct weft_diag d = {0};
	int err = weft_reader_open(&r, path, flags, &d);
	if (!err)
		progress_attach(r, path);
	if (err) {
		if (d.msg[0])
			error("cannot read '%s': %s (at byte offset %llu)",
			      path, d.msg, (unsigned long long)d.offset);
		else
			error("cannot read '%s': %s", path, weft_strerror(err));
		return NULL;
	}
	return r;
}

struct weft_model *open_model(const char *path, struct weft_reader **r)
{
	struct weft_model *m;
	if (!(*r = open_trace(path, 0)))
		return NULL;
	int err = weft_model_load(&m, *r);
	if (err) {
		error("cannot model '%s': %s", path, weft_strerror(err));
		weft_reader_close(*r);
		*r = NULL;
		return NULL;
	}
	return m;
}

int report_losses(struct weft_reader *r, const char *path)
{
	progress_clear();
	const struct weft_trace_info *in = weft_reader_info(r);
	const struct weft_losses *l = &in->losses;
	if (l->packets_lost || l->packets_torn || l->events_discarded ||
	    l->events_nested || in->lost_no_stream || l->texts_truncated ||
	    in->lost_names)
		warning("'%s': lost %llu packets (%llu overwritten or dropped, "
			"%llu torn) and %llu events (%llu discarded, %llu from "
			"signal handlers, %llu with no stream); %llu texts "
			"truncated, %llu names not interned",
			path,
			(unsigned long long)(l->packets_lost + l->packets_torn),
			(unsigned long long)l->packets_lost,
			(unsigned long long)l->packets_torn,
			(unsigned long long)(l->events_discarded +
					     l->events_nested +
					     in->lost_no_stream),
			(unsigned long long)l->events_discarded,
			(unsigned long long)l->events_nested,
			(unsigned long long)in->lost_no_stream,
			(unsigned long long)l->texts_truncated,
			(unsigned long long)in->lost_names);
	unsigned n;
	const struct weft_problem *p = weft_reader_problems(r, &n);
	for (unsigned i = 0; i < n; i++)
		if (p[i].offset == WEFT_PROBLEM_NOTE)
			warning("'%s': %s", path, p[i].what);
		else if (p[i].offset == WEFT_PROBLEM_NO_OFFSET)
			error("'%s': %s", path, p[i].what);
		else
			error("'%s': corrupt at byte offset %llu: %s", path,
			      (unsigned long long)p[i].offset, p[i].what);
	if (in->problems > n)
		error("'%s': %llu more problems", path,
		      (unsigned long long)(in->problems - n));
	if (l->packets_corrupt)
		error("'%s': %llu corrupt packets skipped", path,
		      (unsigned long long)l->packets_corrupt);
	return in->problems || l->packets_corrupt ? 1 : 0;
}

void print_escaped(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < len; i++) {
		unsigned c = p[i];
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else if (c < 0x80)
			fputc((int)c, f);
		else {
			/* One routine decides what is valid (utf8.c). */
			uint32_t cp;
			size_t k = weft_utf8_decode(s + i, len - i, &cp);
			fwrite(cp == 0xFFFD ? "\xEF\xBF\xBD" : s + i, 1,
			       cp == 0xFFFD ? 3 : k, f);
			i += k - 1;
		}
	}
}

const char *fmt_ns(char *buf, size_t cap, int64_t ns)
{
	/* the one formatter, to the ns, in seconds, its unit left to the
	 * caller's sentence ("at %s s") */
	size_t n = weft_time_fmt_in(ns, 1, 1000000000, buf, cap);
	if (n < cap && n >= 2 && !strcmp(buf + n - 2, " s"))
		buf[n - 2] = 0;
	return buf;
}

const char *fmt_ns_raw(char *buf, size_t cap, int64_t ns)
{
	const char *sign = ns < 0 ? "-" : "";
	uint64_t a = ns < 0 ? (uint64_t)-ns : (uint64_t)ns;
	snprintf(buf, cap, "%s%llu.%09llu", sign,
		 (unsigned long long)(a / 1000000000u),
		 (unsigned long long)(a % 1000000000u));
	return buf;
}

/* The precision that leaves |ns| three significant digits, four from a
 * second up (a power of ten ns). */
static int64_t sig_prec(int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	int digits = 0;
	for (uint64_t x = a; x; x /= 10)
		digits++;
	int64_t p = 1;
	for (int i = a >= 1000000000u ? 4 : 3; i < digits; i++)
		p *= 10;
	return p;
}

const char *fmt_time(char *buf, size_t cap, int64_t ns)
{
	weft_time_fmt(ns, sig_prec(ns), buf, cap);
	return buf;
}

void tcol_add(struct tcol *c, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	if (a > c->max)
		c->max = a;
	if (a && (!c->min || a < c->min))
		c->min = a;
	if (ns < 0)
		c->neg = 1;
}

/* "12.3" of "12.3 ms": the whole part's length and the decimals' (with
 * the point); returns where the unit begins (at its space). */
static const char *split_time(const char *s, int *il, int *fl)
{
	const char *sp = strrchr(s, ' ');
	const char *dot = strchr(s, '.');
	const char *e = dot && dot < sp ? dot : sp;
	*il = (int)(e - s);
	*fl = (int)(sp - e);
	return sp;
}

void tcol_unit(const struct tcol *c, int64_t *unit_ns, int64_t *prec_ns)
{
	/* the column's largest value chooses the unit, as fmt_time would
	 * for it alone */
	int64_t max = c->max > INT64_MAX ? INT64_MAX : (int64_t)c->max;
	int64_t prec = sig_prec(max);
	uint64_t r =
		((uint64_t)max / (uint64_t)prec +
		 ((uint64_t)max % (uint64_t)prec >= (uint64_t)(prec + 1) / 2 &&
		  prec > 1)) *
		(uint64_t)prec;
	int64_t unit = r < 1000u	 ? 1
		       : r < 1000000u	 ? 1000
		       : r < 1000000000u ? 1000000
					 : 1000000000;
	/* and the precision: the smallest keeps its three digits, down to
	 * a thousandth of the largest's precision (smaller ones show as 0) */
	int64_t fine = c->min ? sig_prec(c->min > INT64_MAX ? INT64_MAX
							    : (int64_t)c->min)
			      : prec;
	if (fine < prec / 1000)
		fine = prec / 1000;
	prec = fine < prec ? fine : prec;
	if (prec > unit)
		prec = unit;
	*unit_ns = unit;
	*prec_ns = prec;
}

const char *tcol_fmt(const struct tcol *c, char *buf, size_t cap, int64_t ns)
{
	int64_t unit, prec;
	tcol_unit(c, &unit, &prec);
	int64_t max = c->max > INT64_MAX ? INT64_MAX : (int64_t)c->max;
	int nd = 0; /* decimals */
	for (int64_t u = unit; u > prec; u /= 10)
		nd++;
	int fw = nd ? 1 + nd + (nd - 1) / 3 : 0, iw, il, fl;
	char t[64];
	weft_time_fmt_in(max, prec, unit, t, sizeof t);
	split_time(t, &iw, &fl);
	iw += c->neg;
	weft_time_fmt_in(ns, prec, unit, t, sizeof t);
	const char *u = split_time(t, &il, &fl);
	/* the digits lined up on the point: a value whose last decimals
	 * are whole zero groups (left out) is padded after its unit */
	snprintf(buf, cap, "%*s%.*s%s%*s", iw > il ? iw - il : 0, "", il + fl,
		 t, u, fw > fl ? fw - fl : 0, "");
	return buf;
}

int chain_depth_arg(const char *s, int *depth)
{
	char *end;
	long k = strtol(s, &end, 10);
	if (!strcmp(s, "all"))
		*depth = WEFT_CHAIN_ALL;
	else if (*end || end == s || k < 1 || k > 1000000)
		return -1;
	else
		*depth = (int)k;
	return 0;
}

int chain_depth_opt(void *ctx, const char *v, char *why, size_t cap)
{
	if (!chain_depth_arg(v, ctx))
		return 0;
	snprintf(why, cap,
		 "must be a number of arrows, 1 to 1000000, or "
		 "all (not '%s')",
		 v);
	return -1;
}

/* ------------------------------------------------------ progress */

/* A long read on a terminal says how far it got, on one line of stderr
 * that it rewrites and clears when the input ends (or when the command
 * says anything else through report_losses): only when stderr is a
 * terminal, and only for a trace of a million events or more. */
#define PROGRESS_FROM 1000000.0

static struct {
	char name[80];
	int shown;
	double last;
} prog;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_clear(void)
{
	if (prog.shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	prog.shown = 0;
}

static void on_progress(void *arg, uint64_t events, double fraction)
{
	(void)arg;
	if (fraction >= 1.0) {
		progress_clear();
		return;
	}
	/* the whole, estimated from the share of the packets read so far */
	double total = fraction > 0 ? (double)events / fraction
				    : (double)events;
	double t = now_s();
	if (total < PROGRESS_FROM || (prog.shown && t - prog.last < 0.1))
		return;
	if (fraction > 0)
		fprintf(stderr,
			"\rweft: reading %s: %.1f M events, %d %%\033[K",
			prog.name, (double)events / 1e6, (int)(100 * fraction));
	else
		fprintf(stderr, "\rweft: reading %s: %.1f M events\033[K",
			prog.name, (double)events / 1e6);
	fflush(stderr);
	prog.shown = 1;
	prog.last = t;
}

void progress_attach(struct weft_reader *r, const char *path)
{
	if (!isatty(2))
		return;
	size_t n = strlen(path);
	/* the end of a long path says more */
	snprintf(prog.name, sizeof prog.name, "%s%s", n > 60 ? "..." : "",
		 n > 60 ? path + n - 57 : path);
	weft_reader_on_progress(r, on_progress, NULL);
}

/* ------------------------------------------------ naming threads */

const char *thread_name(const struct weft_model *m, uint32_t t, char *buf,
			size_t cap)
{
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(m, &n);
	char title[256];
	weft_model_title(m, t, title, sizeof title);
	if (th[t].flags & WEFT_THREAD_ROOT)
		snprintf(buf, cap, "%s", title);
	else if (th[t].kind && th[t].label != WEFT_NONE)
		snprintf(buf, cap, "%s (0x%llx, %s)", title,
			 (unsigned long long)th[t].id,
			 weft_model_name(m, th[t].kind));
	else
		snprintf(buf, cap, "%s (0x%llx)", title,
			 (unsigned long long)th[t].id);
	return buf;
}

/* The threads with a label that `q` is (exact) or that holds `q`. */
static uint32_t label_matches(const struct weft_model *m, const char *q,
			      int exact, uint32_t *out, uint32_t max)
{
	uint32_t n, nl, k = 0, total = 0;
	const struct weft_thread *th = weft_model_threads(m, &n);
	const struct weft_label *l = weft_model_labels(m, &nl);
	uint8_t *seen = calloc(n ? n : 1, 1);
	if (!seen)
		die("out of memory");
	for (uint32_t i = 0; i < nl; i++) {
		uint32_t t = l[i].thread;
		if (l[i].kind != WEFT_EV_LABEL || t >= n || seen[t] ||
		    (th[t].flags & WEFT_THREAD_ROOT))
			continue;
		const char *s = weft_model_string(m, l[i].text);
		if (exact ? strcmp(s, q) : !strstr(s, q))
			continue;
		seen[t] = 1;
		if (k < max)
			out[k++] = t;
		total++;
	}
	free(seen);
	return total;
}

uint32_t find_thread(const struct weft_model *m, const char *q, const char *cmd)
{
	char *end;
	errno = 0;
	unsigned long long id = strtoull(q, &end, 0);
	if (*q && !*end && !errno) {
		uint32_t t = weft_model_find(m, id);
		if (t != WEFT_NONE)
			return t;
	}
	uint32_t c[8];
	uint32_t k = label_matches(m, q, 1, c, 8);
	if (!k)
		k = label_matches(m, q, 0, c, 8);
	if (k == 1)
		return c[0];
	if (!k) {
		if (*q && !*end)
			fprintf(stderr, "weft %s: no thread %s\n", cmd, q);
		else
			fprintf(stderr,
				"weft %s: no thread with id or label '%s'\n",
				cmd, q);
		return WEFT_NONE;
	}
	fprintf(stderr, "weft %s: '%s' matches %u threads: ", cmd, q, k);
	for (uint32_t i = 0; i < k && i < 8; i++) {
		char b[300];
		fprintf(stderr, "%s%s", i ? ", " : "",
			thread_name(m, c[i], b, sizeof b));
	}
	if (k > 8)
		fprintf(stderr, " and %u more", k - 8);
	fprintf(stderr, "; name one by its id\n");
	return WEFT_NONE;
}

int parse_operands(const struct cmd_usage *u, int argc, char **argv,
		   struct traces *t)
{
	const char **ops = calloc((size_t)argc + 1, sizeof *ops);
	if (!ops)
		die("out of memory");
	int nops, rc = opts_parse(u, argc, argv, ops, &nops, NULL);
	for (int i = 0; rc < 0 && i < nops; i++)
		if (traces_add(t, ops[i]))
			rc = opts_error(u, "more than %d traces", TRACES_MAX);
	free(ops);
	return rc;
}

int parse_traces(const struct cmd_usage *u, int argc, char **argv,
		 struct traces *t)
{
	int rc = parse_operands(u, argc, argv, t);
	if (rc < 0 && !t->n)
		rc = opts_usage(u);
	if (rc >= 0)
		traces_release(t);
	return rc;
}
