/* SPDX-License-Identifier: MIT */
/*
 * out.h - text written into a caller's buffer of fixed size, printf by
 * printf: what does not fit is cut, and counted, so that n ends as the
 * length the whole text needed (snprintf's answer, for several calls).
 * buf may be NULL when cap is 0 (a caller measuring first).
 */
#ifndef WEFT_COMMON_OUT_H
#define WEFT_COMMON_OUT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

struct weft__out {
	char *buf;
	size_t cap, n;
};

__attribute__((format(printf, 2, 3))) static inline void
weft__put(struct weft__out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(o->n < o->cap ? o->buf + o->n : NULL,
			  o->n < o->cap ? o->cap - o->n : 0, fmt, ap);
	va_end(ap);
	if (k > 0)
		o->n += (size_t)k;
}

#endif
