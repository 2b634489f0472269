/* SPDX-License-Identifier: MIT */
/*
 * forker.c - fork() under tracing: the parent and its child each record
 * into a file of their own (with WEFT_FILE=F: the parent into F, the child
 * into F.PID), and never into each other's.  `forker spawn`: the child is
 * started with posix_spawn instead (this program again, as `forker
 * child`), as a shell or a test runner starts its children.  `forker
 * exec`: seven children, forked, each execs `forker child` through
 * another of the exec functions, with a copy of the environment made
 * before the fork (as libuv's uv_spawn does, and a shell's exported
 * variables are); they print their pids, one a line.  `forker daemon`:
 * a forked child calls daemon(), whose first process (the child) leaves
 * through glibc's internal _exit(0), reaped here; the daemon writes both
 * pids (the child's, then its own) into a pipe and ends with _exit(5);
 * this process prints them once the pipe is closed (the daemon exited).
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Exec `self child` through exec function k (0..6), environment env. */
static void exec_child(int k, const char *self, char **env)
{
	char child_arg[] = "child";
	char *args[] = {(char *)self, child_arg, NULL};
	environ = env; /* (for those that take no environment) */
	switch (k) {
	case 0:
		execv(self, args);
		break;
	case 1:
		execve(self, args, env);
		break;
	case 2:
		execvp(self, args);
		break;
	case 3:
		execvpe(self, args, env);
		break;
	case 4:
		execl(self, self, "child", (char *)NULL);
		break;
	case 5:
		execle(self, self, "child", (char *)NULL, env);
		break;
	default:
		execlp(self, self, "child", (char *)NULL);
		break;
	}
	perror("forker: exec");
	_exit(127);
}

static int exec_children(const char *self)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 1, sizeof *env);
	for (size_t i = 0; env && i < n; i++)
		if (!(env[i] = strdup(environ[i])))
			return 1;
	for (int k = 0; env && k < 7; k++) {
		pid_t pid = fork();
		if (pid == 0)
			exec_child(k, self, env);
		if (pid < 0 || waitpid(pid, NULL, 0) != pid)
			return 1;
		printf("%d\n", (int)pid);
	}
	return !env;
}

static int daemon_child(void)
{
	int fds[2];
	if (pipe(fds) < 0)
		return 1;
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		int first = (int)getpid();
		if (daemon(1, 1) < 0)
			_exit(127);
		char b[48];
		int n = snprintf(b, sizeof b, "%d\n%d\n", first, (int)getpid());
		if (write(fds[1], b, (size_t)n) != n)
			_exit(1);
		_exit(5);
	}
	close(fds[1]);
	if (pid < 0 || waitpid(pid, NULL, 0) != pid)
		return 1;
	char b[96];
	size_t n = 0;
	ssize_t k;
	while ((k = read(fds[0], b + n, sizeof b - 1 - n)) > 0)
		n += (size_t)k;
	fwrite(b, 1, n, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();
	if (argc > 1 && !strcmp(argv[1], "exec"))
		return exec_children(argv[0]);
	if (argc > 1 && !strcmp(argv[1], "daemon")) {
		weft_run(1);
		weft_label(1, "parent of a daemon");
		int rc = daemon_child();
		weft_run(0);
		return rc;
	}
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
