/* SPDX-License-Identifier: MIT */
/* cmd-import.c - `weft import --otlp FILE -o OUT`: checks the arguments
 * by the table, then runs weft-import (weft-import.c), which records the
 * spans back into a ring with libweft (that weft itself never loads). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "weft-tools.h"

#ifndef WEFT_IMPORT_BUILD
#define WEFT_IMPORT_BUILD ""
#endif
#ifndef WEFT_IMPORT_INSTALL
#define WEFT_IMPORT_INSTALL ""
#endif

/* weft-import: the build tree's while weft runs from it, else the
 * installed one. */
const char *weft_import_exe(void)
{
	return *WEFT_IMPORT_BUILD && access(WEFT_IMPORT_BUILD, X_OK) == 0
		       ? WEFT_IMPORT_BUILD
		       : WEFT_IMPORT_INSTALL;
}

int cmd_import(int argc, char **argv)
{
	const char *otlp = NULL, *out = NULL;
	const struct opt opts[] = {
		{"--otlp", NULL, "FILE",
		 "the spans to read: a file weft export --otlp wrote (- for "
		 "standard input)",
		 OPT_STRING, &otlp},
		{"-o", NULL, "OUT", "the trace to write (a ring file)",
		 OPT_STRING, &out},
		OPT_END,
	};
	const struct cmd_usage u = {"import", "--otlp FILE -o OUT.weft",
				    "Reads back the OpenTelemetry spans weft "
				    "export --otlp wrote "
				    "into a trace every command and viewer "
				    "opens: the same async "
				    "threads (ids, kinds, labels, notes, "
				    "creators, ends, failure "
				    "messages) and arrows (kinds included), on "
				    "the one OS thread "
				    "of a process of its own (docs/otlp.md).",
				    opts, 0};
	const char **ops = calloc((size_t)argc + 1, sizeof *ops);
	int nops = 0, dd;
	if (!ops)
		return error("out of memory");
	int rc = opts_parse(&u, argc, argv, ops, &nops, &dd);
	free(ops);
	if (rc >= 0)
		return rc;
	if (nops)
		return opts_error(&u, "no operands: --otlp FILE -o OUT");
	if (!otlp || !out)
		return opts_error(&u, "--otlp FILE and -o OUT are required");
	const char *exe = weft_import_exe();
	char *args[] = {(char *)exe, (char *)otlp, (char *)out, NULL};
	/* the helper records: it must not inherit a recording of ours */
	unsetenv("WEFT_FILE");
	unsetenv("WEFT_RUN");
	execv(exe, args);
	return error("cannot run '%s': %s", exe, strerror(errno));
}
