/* SPDX-License-Identifier: MIT */
/* cmd-snapshot.c - `weft snapshot`: a consistent copy of a live ring. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "weft-tools.h"

#define USAGE "weft snapshot FILE|--pid PID -o OUT|-"

int cmd_snapshot(int argc, char **argv)
{
	const char *path = NULL, *out = NULL;
	int pid = 0;
	char found[4200];
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--pid") && i + 1 < argc)
			pid = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (argv[i][0] != '-' && !path)
			path = argv[i];
		else
			return usage(USAGE);
	}
	if (!out || (!path == !pid) || (pid && pid <= 0))
		return usage(USAGE);
	if (pid) {
		int err = weft_find_ring(pid, found, sizeof found);
		if (err == WEFT_ENOTFOUND)
			return error("process %d has no weft ring mapped", pid),
			       1;
		if (err)
			return error("cannot inspect process %d: %s", pid,
				     weft_strerror(err)),
			       1;
		path = found;
	}
	/* The copy through a reader of the ring, and what it holds read
	 * back, so that its losses are reported as every command does. */
	struct weft_reader *r = open_trace(path, 0);
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
	int rc = 0;
	if (weft_reader_open_mem(&r, copy, len, 0, NULL) == 0) {
		struct weft_event ev;
		while (weft_reader_next(r, &ev) == 0)
			;
		rc = report_losses(r, path);
		weft_reader_close(r);
	}
	free(copy);
	if (fd != 1)
		fprintf(stderr, "weft: snapshot of '%s' written to '%s'\n", path,
			out);
	return rc;
}
