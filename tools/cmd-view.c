/* SPDX-License-Identifier: MIT */
/* cmd-view.c - `weft view TRACE...`: runs the GTK viewer (a program of its
 * own, so that `weft` itself needs no display libraries), which opens the
 * traces (merged, --offset forced) and follows them while they are
 * written; or, two runs to compare (traces_pair), shows them one above the
 * other (the viewer's --compare). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "weft-tools.h"

#ifndef WEFT_VIEW_BUILD
#define WEFT_VIEW_BUILD ""
#endif
#ifndef WEFT_VIEW_INSTALL
#define WEFT_VIEW_INSTALL ""
#endif

int cmd_view(int argc, char **argv)
{
	struct traces tr = {0};
	int compare = 0, merge = 0;
	const char *state = NULL;
	const struct opt opts[] = {TRACES_OPT(&tr),
				   TRACES_PAIR_OPTS(&compare, &merge),
				   {"--view", NULL, "STATE",
				    "open on this view: what V printed, or a "
				    "page's address "
				    "after '#' (as weft render --view takes "
				    "it); one run",
				    OPT_STRING, &state},
				   OPT_END};
	const struct cmd_usage u = {
		"view", "[OPTIONS] TRACE...\n[OPTIONS] GOOD BAD",
		"Opens the trace in a window (GTK): the picture with its "
		"toolbar, search and inspector, following a trace that is "
		"still being written.  Keys: W/S zoom, A/D pan, "
		"Up/Down/PgUp/PgDn move the focus, F fits, C shows only the "
		"causal chain, ? lists the keys, Esc clears the selection and "
		"the search; a click selects, a double click highlights the "
		"causal chain, a drag pans (and never selects).  Two whole "
		"runs of one program are shown one above the other on one "
		"time scale, zooming and panning together, a selection linked "
		"to the aligned thread, the first divergence marked "
		"(--compare, --merge: the rule in weft(1)).",
		opts, 0};
	int rc = parse_traces(&u, argc, argv, &tr);
	if (rc >= 0)
		return rc;
	if ((compare = traces_pair(&u, &tr, compare, merge)) == 2) {
		traces_release(&tr);
		return 2;
	}
	const char *env = getenv("WEFT_VIEW");
	const char *exe = env && *env ? env
			  : access(WEFT_VIEW_BUILD, X_OK) == 0
				  ? WEFT_VIEW_BUILD
				  : WEFT_VIEW_INSTALL;
	/* the viewer's command line: the offsets (in nanoseconds), then
	 * the traces */
	char **args = calloc(2 * tr.noff + tr.n + 5, sizeof *args);
	char(*off)[300] = calloc(tr.noff ? tr.noff : 1, sizeof *off);
	if (!args || !off)
		return error("out of memory");
	unsigned k = 0;
	args[k++] = (char *)exe;
	if (compare) {
		static char cmp[] = "--compare";
		args[k++] = cmp;
	}
	if (state) {
		static char vopt[] = "--view";
		args[k++] = vopt;
		args[k++] = (char *)state;
	}
	for (unsigned i = 0; i < tr.noff; i++) {
		static char opt[] = "--offset";
		snprintf(off[i], sizeof off[i], "%s=%lld", tr.host[i],
			 (long long)tr.ns[i]);
		args[k++] = opt;
		args[k++] = off[i];
	}
	for (unsigned i = 0; i < tr.n; i++) {
		/* a file named as an option of the viewer */
		static char dotted[] = "./--offset", dotcmp[] = "./--compare";
		static char dotview[] = "./--view";
		args[k++] = !strcmp(tr.path[i], "--offset")    ? dotted
			    : !strcmp(tr.path[i], "--compare") ? dotcmp
			    : !strcmp(tr.path[i], "--view")
				    ? dotview
				    : (char *)tr.path[i];
	}
	traces_release(&tr);
	execv(exe, args);
	return error("cannot run the viewer '%s': %s (built without GTK?)", exe,
		     strerror(errno)),
	       1;
}
