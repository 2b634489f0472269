/* SPDX-License-Identifier: MIT */
/* weft.c - the `weft` command: dispatches to one cmd-NAME.c per command. */
#include <stdio.h>
#include <string.h>

#include "weft-tools.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} cmds[] = {
#define WEFT__CMD_ENTRY(name, help) {#name, cmd_##name, help},
	WEFT_COMMANDS(WEFT__CMD_ENTRY)
#undef WEFT__CMD_ENTRY
};

static int help(FILE *f)
{
	fprintf(f, "usage: weft COMMAND [ARGS...]\n\n"
		   "weft traces asynchronous C programs.  Commands:\n");
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\nEvery command that reads a trace takes '-' for standard "
		   "input.  See weft(1).\n");
	return f == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return help(stderr);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help"))
		return help(stdout);
	if (!strcmp(argv[1], "--version")) {
		printf("weft %s\n", weft_version());
		return 0;
	}
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	error("'%s' is not a weft command; see 'weft --help'", argv[1]);
	return 2;
}
