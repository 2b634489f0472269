/* SPDX-License-Identifier: MIT */
/* cmd-view.c - `weft view FILE|-`: runs the GTK viewer (a program of its
 * own, so that `weft` itself needs no display libraries). */
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
	if (argc != 2 || (argv[1][0] == '-' && argv[1][1]))
		return usage("weft view FILE|-");
	const char *env = getenv("WEFT_VIEW");
	const char *exe = env && *env ? env
			  : access(WEFT_VIEW_BUILD, X_OK) == 0 ? WEFT_VIEW_BUILD
							       : WEFT_VIEW_INSTALL;
	char *args[] = {(char *)exe, argv[1], NULL};
	execv(exe, args);
	return error("cannot run the viewer '%s': %s (built without GTK?)", exe,
		     strerror(errno)),
	       1;
}
