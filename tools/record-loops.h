/* SPDX-License-Identifier: MIT */
/* record-loops.h - the loop shims `weft record` turns on (record-loops.c). */
#ifndef WEFT_RECORD_LOOPS_H
#define WEFT_RECORD_LOOPS_H

#include <limits.h>
#include <stddef.h>

struct record_loops {
	char preload[PATH_MAX]; /* libweft-preload.so, "" for none */
	char loops[64];		/* WEFT_LOOPS: "uv,glib", "" for none */
	/* "libuv, GLib (chosen with --loops)", "no loop shim (...)", or ""
	 * when there is no library to preload */
	char what[256];
	char missing[256]; /* chosen but not built or installed */
};

/* Chooses the shims that are on: `choice` is --loops' value
 * ("uv,event,glib", "all", "none") or NULL (all of them).  Returns 0, or
 * -1 for a choice that names no loop. */
int record_loops_choose(const char *choice, struct record_loops *out);

/* The loop (a bit) whose loops' threads are of kind `kind`, or 0. */
unsigned record_loop_of_kind(const char *kind);
/* What --loops takes: "uv, event, glib". */
void record_loops_words(char *buf, size_t cap);
/* "libuv, GLib" for a mask of loops. */
void record_loops_names(unsigned mask, char *buf, size_t cap);

#endif
