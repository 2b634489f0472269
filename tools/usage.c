/* SPDX-License-Identifier: MIT */
/* usage.c - messages and small helpers shared by the subcommands. */
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
	return -1;
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
			/* Copy a valid UTF-8 sequence, escape anything else. */
			size_t n = c >= 0xF0 && c < 0xF5   ? 4
				   : c >= 0xE0             ? 3
				   : c >= 0xC2 && c < 0xE0 ? 2
							   : 0;
			size_t k = 1;
			while (n && k < n && i + k < len &&
			       (p[i + k] & 0xC0) == 0x80)
				k++;
			if (n && k == n) {
				fwrite(p + i, 1, n, f);
				i += n - 1;
			} else
				fprintf(f, "\\x%02x", c);
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
