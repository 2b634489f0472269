/* SPDX-License-Identifier: MIT */
/*
 * diag.c - how the reader says what is wrong: a problem of a ring (kept
 * in its list, counted past it) and an error's message for the caller
 * (struct weft_diag).  Every room of the reader says through these; they
 * call nothing of the reader.
 */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

void weft__problem(struct weft_reader *r, uint64_t off, const char *fmt, ...)
{
	r->info.problems++;
	if (r->nprob >= MAX_PROBLEMS)
		return;
	struct weft_problem *p = &r->prob[r->nprob++];
	p->offset = off;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->what, sizeof p->what, fmt, ap);
	va_end(ap);
}

int weft__diag(struct weft_diag *d, int err, uint64_t off, const char *fmt, ...)
{
	if (d) {
		d->offset = off;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(d->msg, sizeof d->msg, fmt, ap);
		va_end(ap);
	}
	return err;
}
