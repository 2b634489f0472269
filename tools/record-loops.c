/* SPDX-License-Identifier: MIT */
/*
 * record-loops.c - which loop shims `weft record` turns on, and which
 * loops a trace shows were traced.
 *
 * Every shim is in one library, libweft-preload.so (with libweft), which
 * `weft record` preloads into the tree it runs; WEFT_LOOPS names the
 * loops whose shims are on: all of them unless --loops chooses.  A shim
 * whose library a process does not load is never called there, and
 * what a process starts may use any loop (a shell, a test runner, a
 * build), so every shim is on unless the user says otherwise; no shim
 * links its loop library.  With none on (--loops none, a build with no
 * shim) the library is still preloaded, for the process tree.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/loops.h"
#include "record-loops.h"

#ifndef WEFT_PRELOAD_BUILD
#define WEFT_PRELOAD_BUILD ""
#endif
#ifndef WEFT_PRELOAD_INSTALL_DIR
#define WEFT_PRELOAD_INSTALL_DIR ""
#endif
/* Which shims the build put in libweft-preload.so (meson's
 * -DWEFT_PRELOAD_ID, by the table's IDs) */
#ifdef WEFT_PRELOAD_UV
#define BUILT_UV 1
#else
#define BUILT_UV 0
#endif
#ifdef WEFT_PRELOAD_EVENT
#define BUILT_EVENT 1
#else
#define BUILT_EVENT 0
#endif
#ifdef WEFT_PRELOAD_GLIB
#define BUILT_GLIB 1
#else
#define BUILT_GLIB 0
#endif

static const struct loop {
	const char *name; /* as said to the user */
	const char *opt;  /* in --loops and WEFT_LOOPS */
	const char *kind; /* the kind of a loop's thread in a trace */
	int built;	  /* its shim is in libweft-preload.so */
} loops[] = {
#define X(ID, name, word, kind) {name, word, kind, BUILT_##ID},
	WEFT_LOOP_MAP(X)
#undef X
};
#define NLOOPS WEFT_LOOP_COUNT

/* The library with every shim: $WEFT_SHIM_DIR/libweft-preload.so, else
 * the build's, else the installed one; NULL when there is none. */
static const char *preload_path(char *buf, size_t cap)
{
	const char *dir = getenv("WEFT_SHIM_DIR");
	if (dir && *dir) {
		snprintf(buf, cap, "%s/libweft-preload.so", dir);
		return access(buf, R_OK) == 0 ? buf : NULL;
	}
	if (*WEFT_PRELOAD_BUILD && access(WEFT_PRELOAD_BUILD, R_OK) == 0)
		return WEFT_PRELOAD_BUILD;
	if (!*WEFT_PRELOAD_INSTALL_DIR)
		return NULL;
	snprintf(buf, cap, "%s/libweft-preload.so", WEFT_PRELOAD_INSTALL_DIR);
	return access(buf, R_OK) == 0 ? buf : NULL;
}

static void add(char *s, size_t cap, const char *sep, const char *part)
{
	size_t n = strlen(s);
	snprintf(s + n, cap - n, "%s%s", n ? sep : "", part);
}

int record_loops_choose(const char *choice, struct record_loops *out)
{
	memset(out, 0, sizeof *out);
	unsigned mask = 0;
	const char *why;
	int all = 0; /* not chosen: a missing shim is not worth a word */
	if (choice) {
		char buf[256];
		snprintf(buf, sizeof buf, "%s", choice);
		for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
			unsigned i = 0;
			if (!strcmp(t, "all"))
				mask |= (1u << NLOOPS) - 1;
			else if (strcmp(t, "none")) {
				while (i < NLOOPS && strcmp(t, loops[i].opt))
					i++;
				if (i == NLOOPS)
					return -1;
				mask |= 1u << i;
			}
		}
		why = "chosen with --loops";
	} else {
		mask = (1u << NLOOPS) - 1;
		all = 1;
		why = "all of them: --loops chooses";
	}
	char buf[PATH_MAX];
	const char *lib = preload_path(buf, sizeof buf);
	for (unsigned i = 0; i < NLOOPS; i++) {
		if (!(mask & (1u << i)))
			continue;
		if (!lib || !loops[i].built) {
			if (!all)
				add(out->missing, sizeof out->missing, ", ",
				    loops[i].name);
			continue;
		}
		add(out->loops, sizeof out->loops, ",", loops[i].opt);
		add(out->what, sizeof out->what, ", ", loops[i].name);
	}
	/* Preloaded even with no loop shim on (WEFT_LOOPS empty): libweft
	 * in every process of the tree says how it started and ended
	 * (exec, fork, _exit, wait: docs/runs.md) */
	if (lib)
		snprintf(out->preload, sizeof out->preload, "%s", lib);
	size_t n = strlen(out->what);
	if (n)
		snprintf(out->what + n, sizeof out->what - n, " (%s)", why);
	else if (lib)
		snprintf(out->what, sizeof out->what,
			 "no loop shim (the process tree only)");
	return 0;
}

unsigned record_loop_of_kind(const char *kind)
{
	for (unsigned i = 0; kind && i < NLOOPS; i++)
		if (!strcmp(kind, loops[i].kind))
			return 1u << i;
	return 0;
}

void record_loops_words(char *buf, size_t cap)
{
	buf[0] = 0;
	for (unsigned i = 0; i < NLOOPS; i++)
		add(buf, cap, ", ", loops[i].opt);
}

void record_loops_names(unsigned mask, char *buf, size_t cap)
{
	buf[0] = 0;
	for (unsigned i = 0; i < NLOOPS; i++)
		if (mask & (1u << i))
			add(buf, cap, ", ", loops[i].name);
}
