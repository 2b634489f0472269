/* SPDX-License-Identifier: MIT */
/* cmd-render-exec.c - `weft render ...`: runs weft-render (weft-render.c),
 * the program that draws with cairo, with the same arguments. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "weft-tools.h"

#ifndef WEFT_RENDER_BUILD
#define WEFT_RENDER_BUILD ""
#endif
#ifndef WEFT_RENDER_INSTALL
#define WEFT_RENDER_INSTALL ""
#endif

int cmd_render(int argc, char **argv)
{
	const char *env = getenv("WEFT_RENDER");
	const char *exe = env && *env ? env
			  : *WEFT_RENDER_BUILD &&
					  access(WEFT_RENDER_BUILD, X_OK) == 0
				  ? WEFT_RENDER_BUILD
				  : WEFT_RENDER_INSTALL;
	(void)argc;
	argv[0] = (char *)exe;
	execv(exe, argv);
	return error("cannot run '%s': %s", exe, strerror(errno)), 1;
}
