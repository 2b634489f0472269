/* SPDX-License-Identifier: MIT */
/* weft.c - the `weft` command: dispatches to one cmd-NAME.c per command. */
#include <stdio.h>
#include <string.h>

#include "options.h"
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
	fprintf(f, "usage: weft COMMAND [ARGS...]\n"
		   "       weft help COMMAND   (or weft COMMAND --help)\n\n"
		   "weft traces asynchronous C programs.  Commands:\n");
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\nEvery command that reads a trace takes '-' for standard "
		   "input.  See weft(1).\n");
	return f == stdout ? 0 : 2;
}

/* "'rendr' is not a weft command", and the nearest ones. */
static int not_a_command(const char *typed)
{
	const char *names[sizeof cmds / sizeof *cmds], *near[3];
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
		names[i] = cmds[i].name;
	int k = nearest(typed, names, (int)(sizeof cmds / sizeof *cmds), near,
			3);
	error("'%s' is not a weft command; see 'weft --help'", typed);
	if (k == 1)
		fprintf(stderr, "did you mean 'weft %s'?\n", near[0]);
	else if (k > 1)
		fprintf(stderr, "did you mean 'weft %s' or 'weft %s'?\n",
			near[0], near[1]);
	return 2;
}

static int run(const char *name, int argc, char **argv)
{
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++)
		if (!strcmp(name, cmds[i].name))
			return cmds[i].fn(argc, argv);
	return not_a_command(name);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return help(stderr);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return help(stdout);
	if (!strcmp(argv[1], "help")) {
		if (argc == 2)
			return help(stdout);
		if (argc > 3)
			return usage("weft help [COMMAND]"), 2;
		/* weft help CMD: CMD's own --help */
		static char help_arg[] = "--help";
		char *args[] = {argv[2], help_arg, NULL};
		return run(argv[2], 2, args);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("weft %s\n", weft_version());
		return 0;
	}
	return run(argv[1], argc - 1, argv + 1);
}
