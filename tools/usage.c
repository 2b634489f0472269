/* SPDX-License-Identifier: MIT */
/* usage.c - messages and small helpers shared by the subcommands. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "weft-tools.h"
#include "weft/model.h"

static void report(const char *prefix, const char *fmt, va_list ap)
{
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
	if (err) {
		if (d.msg[0])
			error("cannot read '%s': %s (at byte offset %llu)", path,
			      d.msg, (unsigned long long)d.offset);
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
	const char *sign = ns < 0 ? "-" : "";
	uint64_t a = ns < 0 ? (uint64_t)-ns : (uint64_t)ns;
	snprintf(buf, cap, "%s%llu.%09llu", sign,
		 (unsigned long long)(a / 1000000000u),
		 (unsigned long long)(a % 1000000000u));
	return buf;
}

const char *fmt_dur(char *buf, size_t cap, int64_t ns)
{
	double a = (double)(ns < 0 ? -ns : ns);
	const char *sign = ns < 0 ? "-" : "";
	if (a < 1e3)
		snprintf(buf, cap, "%s%.0f ns", sign, a);
	else if (a < 1e6)
		snprintf(buf, cap, "%s%.3g us", sign, a / 1e3);
	else if (a < 1e9)
		snprintf(buf, cap, "%s%.3g ms", sign, a / 1e6);
	else
		snprintf(buf, cap, "%s%.4g s", sign, a / 1e9);
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
