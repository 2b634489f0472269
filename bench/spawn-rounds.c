/* SPDX-License-Identifier: MIT */
/*
 * spawn-rounds.c - what a process costs to start and end, configuration
 * by configuration: `spawn-rounds N ROUNDS -- COMMAND ARG...` runs
 * COMMAND N times (posix_spawn, then wait) in each configuration, the
 * configurations in turn, ROUNDS times (each round starting with the
 * next one, so that a drift of the machine hits each alike), and prints
 * each one's median time per process over the rounds (the command's
 * output goes to /dev/null).  A configuration
 * is environment entries added to this program's: SPAWN_CFG0,
 * SPAWN_CFG1... ("LD_PRELOAD=/path/x.so WEFT_LOOPS=none"; "" or "X=1"
 * for none), at most 16.  docs/bench.md ("Spawning, measured again")
 * says what it measured.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

#define MAX_CFG 16
#define MAX_ENV 512

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 5 || strcmp(argv[3], "--")) {
		fprintf(stderr, "usage: spawn-rounds N ROUNDS -- COMMAND "
				"ARG... (configurations: SPAWN_CFG0...)\n");
		return 2;
	}
	int n = atoi(argv[1]), rounds = atoi(argv[2]);
	char **cmd = argv + 4;
	char *cfg[MAX_CFG];
	int k = 0;
	for (; k < MAX_CFG; k++) {
		char name[32];
		snprintf(name, sizeof name, "SPAWN_CFG%d", k);
		if (!(cfg[k] = getenv(name)))
			break;
	}
	if (!k || n < 1 || rounds < 1) {
		fprintf(stderr, "spawn-rounds: no SPAWN_CFG0, or N or ROUNDS "
				"below 1\n");
		return 2;
	}
	/* each configuration's environment: ours, less SPAWN_*, and its
	 * entries */
	static char *envs[MAX_CFG][MAX_ENV];
	for (int c = 0; c < k; c++) {
		int e = 0;
		for (char **p = environ; *p && e < MAX_ENV - 64; p++)
			if (strncmp(*p, "SPAWN_", 6))
				envs[c][e++] = *p;
		char *s = strdup(cfg[c]), *save = NULL;
		for (char *t = strtok_r(s, " ", &save); t && e < MAX_ENV - 1;
		     t = strtok_r(NULL, " ", &save))
			envs[c][e++] = t;
		envs[c][e] = NULL;
	}
	double *per = calloc((size_t)k * (size_t)rounds, sizeof *per);
	posix_spawn_file_actions_t fa;
	if (!per || posix_spawn_file_actions_init(&fa) ||
	    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0))
		return 1;
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < k; i++) {
			int c = (i + r) % k;
			double t0 = now_us();
			for (int j = 0; j < n; j++) {
				pid_t pid;
				int st;
				if (posix_spawn(&pid, cmd[0], &fa, NULL, cmd,
						envs[c])) {
					perror("spawn-rounds: posix_spawn");
					return 1;
				}
				waitpid(pid, &st, 0);
			}
			per[c * rounds + r] = (now_us() - t0) / n;
		}
	for (int c = 0; c < k; c++) {
		double *v = per + c * rounds;
		qsort(v, (size_t)rounds, sizeof *v, cmp_double);
		printf("%-8.1f us a process (fastest round %.1f)  %s\n",
		       v[rounds / 2], v[0], *cfg[c] ? cfg[c] : "(plain)");
	}
	posix_spawn_file_actions_destroy(&fa);
	free(per);
	return 0;
}
