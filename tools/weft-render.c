/* SPDX-License-Identifier: MIT */
/*
 * weft-render.c - the program behind `weft render` (cmd-render.c): the
 * one command that draws with cairo, in a program of its own, so that
 * `weft` itself loads no drawing libraries (cairo and its twenty
 * dependencies are a millisecond of every start-up: `weft record` starts
 * with every traced run).  Installed in LIBEXECDIR/weft; `weft render`
 * runs it with its arguments.
 */
#include "weft-tools.h"

int main(int argc, char **argv)
{
	/* argv[0] is "render", as a subcommand's is */
	static char name[] = "render";
	argv[0] = name;
	return cmd_render(argc, argv);
}
