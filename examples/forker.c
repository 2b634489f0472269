/* SPDX-License-Identifier: MIT */
/*
 * forker.c - fork() under tracing: the parent and its child each record
 * into a file of their own (with WEFT_FILE=F: the parent into F, the child
 * into F.PID), and never into each other's.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <weft/weft.h>

int main(void)
{
	weft_run(1);
	weft_label(1, "parent before fork");
	pid_t pid = fork();
	if (pid == 0) {
		weft_run(2);
		weft_label(2, "child");
		weft_run(0);
		return 0;
	}
	waitpid(pid, NULL, 0);
	weft_label(1, "parent after fork");
	weft_run(0);
	printf("%d\n", (int)pid);
	return 0;
}
