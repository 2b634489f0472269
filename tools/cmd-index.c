/* SPDX-License-Identifier: MIT */
/*
 * cmd-index.c - `weft index`: build (or check) the index beside a trace
 * (include/weft/index.h, docs/huge.md "The index").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft-tools.h"
#include "weft/index.h"

static int index_one(const char *trace, int check, int quiet)
{
	if (check) {
		char path[4096], why[200];
		int rc = weft_index_check(trace, path, why, sizeof why);
		if (rc == WEFT_ESTALE)
			return error("index of '%s'%s%s: %s", trace,
				     path[0] ? " at " : "", path, why);
		if (rc)
			return error("cannot check the index of '%s': %s",
				     trace, weft_strerror(rc));
		if (!quiet)
			printf("%s: up to date\n", path);
		return 0;
	}
	struct weft_index_built b;
	int rc = weft_index_build(trace, &b);
	if (rc == -EEXIST)
		return error("cannot index '%s': a file that is not a weft "
			     "index is where its index goes, beside it and in "
			     "the cache (weft never replaces it)",
			     trace);
	if (rc)
		return error("cannot index '%s': %s", trace, weft_strerror(rc));
	if (!quiet)
		printf("%s: %llu events, %llu bytes, %.2f s (%.0f "
		       "events/s)%s\n",
		       b.path, (unsigned long long)b.events,
		       (unsigned long long)b.bytes, b.seconds,
		       b.seconds > 0 ? (double)b.events / b.seconds : 0.0,
		       b.in_cache == 2 ? " (in the cache: beside the trace is "
					 "a file that is not a weft index, "
					 "which weft never replaces)"
		       : b.in_cache ? " (in the cache: the trace's directory "
				      "is not writable)"
				    : "");
	return 0;
}

int cmd_index(int argc, char **argv)
{
	int check = 0, quiet = 0;
	const struct opt opts[] = {
		{"--check", NULL, NULL,
		 "check the index instead: there, current (the trace's "
		 "uuid, size, packets and modification time), undamaged and "
		 "equal to what the trace gives now; exit status 1 if not",
		 OPT_FLAG, &check},
		{"--quiet", "-q", NULL, "print nothing but errors", OPT_FLAG,
		 &quiet},
		OPT_END,
	};
	const struct cmd_usage u = {"index", "[--check] TRACE...",
				    "Reads each trace once and writes its "
				    "index beside it "
				    "(TRACE.weftidx), or in "
				    "$XDG_CACHE_HOME/weft when the "
				    "trace's directory is not writable: per OS "
				    "thread a pyramid "
				    "of time buckets (running, waiting and "
				    "idle time, async "
				    "threads created, arrows, marks), per "
				    "counter its minimum "
				    "and maximum by bucket, and the table of "
				    "async threads "
				    "(docs/huge.md).  Prints where it went, "
				    "the events and "
				    "bytes, and the time it took.",
				    opts, 0};
	const char **ops = calloc((size_t)argc + 1, sizeof *ops);
	if (!ops)
		die("out of memory");
	int nops, rc = opts_parse(&u, argc, argv, ops, &nops, NULL);
	if (rc < 0 && !nops)
		rc = opts_usage(&u);
	for (int i = 0; rc < 0 && i < nops; i++)
		if (!strcmp(ops[i], "-"))
			rc = opts_error(&u, "a trace file or directory, not "
					    "standard input");
	if (rc >= 0) {
		free(ops);
		return rc;
	}
	rc = 0;
	for (int i = 0; i < nops; i++)
		rc |= index_one(ops[i], check, quiet);
	free(ops);
	return rc;
}
