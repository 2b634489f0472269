/* SPDX-License-Identifier: MIT */
/*
 * cmd-snapshot.c - `weft snapshot`: a consistent copy of a live ring, or
 * of every ring of a run (a bundle: one file, cut at one instant), or of
 * the run a running process records into.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "weft-tools.h"

/* The run directory a process records into (WEFT_RUN in its
 * environment, a directory with a manifest), into buf; 0 or -1. */
static int run_of(int pid, char *buf, size_t cap)
{
	char path[64], env[1 << 16];
	snprintf(path, sizeof path, "/proc/%d/environ", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, env, sizeof env - 1);
	close(fd);
	if (n <= 0)
		return -1;
	env[n] = 0;
	for (char *p = env; p < env + n; p += strlen(p) + 1) {
		struct stat sb;
		char man[4300];
		if (strncmp(p, "WEFT_RUN=", 9) || !p[9])
			continue;
		snprintf(man, sizeof man, "%s/manifest", p + 9);
		if (strlen(p + 9) >= cap || stat(man, &sb) < 0)
			return -1;
		memcpy(buf, p + 9, strlen(p + 9) + 1);
		return 0;
	}
	return -1;
}

/* (weft-tools.h) */
int trace_of_pid(int pid, char *buf, size_t cap)
{
	int queue[4096], head = 0, tail = 0, err = WEFT_ENOTFOUND;
	queue[tail++] = pid;
	while (head < tail) {
		int p = queue[head++];
		if (!run_of(p, buf, cap))
			return 0;
		int e = weft_find_ring(p, buf, cap);
		if (!e)
			return 0;
		if (p == pid && e != WEFT_ENOTFOUND)
			err = e;
		char dir[64];
		snprintf(dir, sizeof dir, "/proc/%d/task", p);
		DIR *dp = opendir(dir);
		struct dirent *de;
		while (dp && (de = readdir(dp))) {
			if (de->d_name[0] == '.')
				continue;
			char path[128];
			snprintf(path, sizeof path, "%s/%.20s/children", dir,
				 de->d_name);
			FILE *f = fopen(path, "re");
			int c;
			while (f && fscanf(f, "%d", &c) == 1)
				if (tail < (int)(sizeof queue / sizeof *queue))
					queue[tail++] = c;
			if (f)
				fclose(f);
		}
		if (dp)
			closedir(dp);
	}
	return err;
}

int cmd_snapshot(int argc, char **argv)
{
	const char *out = NULL;
	int pid = 0;
	char found[4200];
	struct traces tr = {0};
	const struct opt opts[] = {
		{"-o", NULL, "OUT", "the copy (- for standard output)",
		 OPT_STRING, &out},
		{"--pid", NULL, "PID",
		 "the run this process or one of its "
		 "descendants records into, else the ring one maps",
		 OPT_INT, &pid, 1, 0x7fffffff},
		TRACES_OPT(&tr),
		OPT_END,
	};
	const struct cmd_usage u = {"snapshot",
				    "[OPTIONS] TRACE... -o OUT|-\n--pid PID -o "
				    "OUT|-",
				    "A consistent copy of a live ring, or of "
				    "every ring of a run (a "
				    "bundle: one file, cut at one instant), "
				    "found by file or in a "
				    "running process's tree.  Every reading "
				    "command reads a "
				    "bundle as it reads the run.",
				    opts, 0};
	int rc = parse_operands(&u, argc, argv, &tr);
	if (rc < 0 && (!out || !tr.n == !pid))
		rc = opts_usage(&u);
	if (rc >= 0) {
		traces_release(&tr);
		return rc;
	}
	if (pid) {
		int err = trace_of_pid(pid, found, sizeof found);
		if (err == WEFT_ENOTFOUND)
			return error("process %d has no weft ring mapped, "
				     "nor has any of its descendants",
				     pid),
			       1;
		if (err)
			return error("cannot inspect process %d: %s", pid,
				     weft_strerror(err)),
			       1;
		/* a ring of a run directory: the whole run */
		char man[4300];
		char *slash = strrchr(found, '/');
		struct stat sb;
		if (slash && stat(found, &sb) == 0 && S_ISREG(sb.st_mode)) {
			snprintf(man, sizeof man, "%.*s/manifest",
				 (int)(slash - found), found);
			if (stat(man, &sb) == 0)
				*slash = 0;
		}
		tr.path[tr.n++] = found;
	}
	const char *path = traces_name(&tr);
	/* The copy through a reader of the ring, and what it holds read
	 * back, so that its losses are reported as every command does. */
	struct weft_reader *r = traces_open(&tr, 0);
	traces_release(&tr);
	if (!r)
		return 1;
	void *copy;
	size_t len;
	uint64_t torn = 0;
	int err = weft_reader_copy(r, 0, &copy, &len, &torn);
	weft_reader_close(r);
	if (err == WEFT_ETRUNC)
		return error("cannot snapshot '%s': the file shrank while it "
			     "was copied (truncated or replaced)",
			     path);
	if (err)
		return error("cannot snapshot '%s': %s", path,
			     weft_strerror(err));
	int fd = 1;
	if (strcmp(out, "-")) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0) {
			free(copy);
			return error_errno("cannot create '%s'", out);
		}
	}
	const char *p = copy;
	size_t left = len;
	while (left && err == 0) {
		ssize_t k = write(fd, p, left);
		if (k < 0 && errno != EINTR)
			err = -errno;
		else if (k > 0)
			p += k, left -= (size_t)k;
	}
	if (fd != 1 && close(fd) < 0 && !err)
		err = -errno;
	if (err) {
		free(copy);
		return error("cannot write '%s': %s", out, strerror(-err));
	}
	if (torn)
		warning("'%s': %llu packets were being rewritten and are left "
			"out (counted as lost in the copy)",
			path, (unsigned long long)torn);
	rc = 0;
	if (weft_reader_open_mem(&r, copy, len, 0, NULL) == 0) {
		progress_attach(r, path);
		struct weft_event ev;
		while (weft_reader_next(r, &ev) == 0)
			;
		rc = report_losses(r, path);
		weft_reader_close(r);
	}
	free(copy);
	if (fd != 1)
		fprintf(stderr, "weft: snapshot of '%s' written to '%s'\n",
			path, out);
	return rc;
}
