/* SPDX-License-Identifier: MIT */
/*
 * forker.c - fork() under tracing: the parent and its child each record
 * into a file of their own (with WEFT_FILE=F: the parent into F, the child
 * into F.PID), and never into each other's.  `forker spawn`: the child is
 * started with posix_spawn instead (this program again, as `forker
 * child`), as a shell or a test runner starts its children.
 */
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <weft/weft.h>

extern char **environ;

static int child(void)
{
	weft_run(2);
	weft_label(2, "child");
	weft_run(0);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();
	int spawn = argc > 1 && !strcmp(argv[1], "spawn");
	weft_run(1);
	weft_label(1, "parent before fork");
	pid_t pid;
	if (spawn) {
		char child_arg[] = "child";
		char *args[] = {argv[0], child_arg, NULL};
		int err = posix_spawn(&pid, argv[0], NULL, NULL, args, environ);
		if (err) {
			fprintf(stderr, "forker: posix_spawn: %s\n",
				strerror(err));
			return 1;
		}
	} else if ((pid = fork()) == 0)
		return child();
	waitpid(pid, NULL, 0);
	weft_label(1, "parent after fork");
	weft_run(0);
	printf("%d\n", (int)pid);
	return 0;
}
