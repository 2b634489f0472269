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
	int fd = 1;
	if (strcmp(out, "-")) {
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0)
			return error("cannot create '%s': %s", out,
				     strerror(errno)),
			       1;
	}
	uint64_t torn = 0;
	struct weft_diag d = {0};
	int err = weft_snapshot(path, fd, &torn, &d);
	if (fd != 1 && close(fd) < 0 && !err)
		err = -errno;
	if (err) {
		if (d.msg[0])
			error("cannot snapshot '%s': %s (at byte offset %llu)",
			      path, d.msg, (unsigned long long)d.offset);
		else
			error("cannot snapshot '%s': %s", path,
			      weft_strerror(err));
		return 1;
	}
	if (torn)
		error("'%s': %llu packets were being rewritten and are left "
		      "out (counted as lost in the copy)",
		      path, (unsigned long long)torn);
	if (fd != 1)
		fprintf(stderr, "weft: snapshot of '%s' written to '%s'\n", path,
			out);
	return 0;
}
