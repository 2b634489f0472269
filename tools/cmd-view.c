/* SPDX-License-Identifier: MIT */
/* cmd-view.c - `weft view TRACE...`: runs the GTK viewer (a program of its
 * own, so that `weft` itself needs no display libraries).  One trace is
 * the viewer's to open and follow; several (or --offset) are merged here
 * into a bundle (as `weft snapshot` writes it: the rings as they are now,
 * the offsets forced), which the viewer reads from its standard input. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "weft-tools.h"

#ifndef WEFT_VIEW_BUILD
#define WEFT_VIEW_BUILD ""
#endif
#ifndef WEFT_VIEW_INSTALL
#define WEFT_VIEW_INSTALL ""
#endif

/* The merged traces as a bundle on standard input. */
static int bundle_to_stdin(struct traces *t)
{
	const char *path = traces_name(t);
	struct weft_reader *r = traces_open(t, 0);
	if (!r)
		return 1;
	void *copy;
	size_t len;
	int err = weft_reader_copy(r, 0, &copy, &len, NULL);
	weft_reader_close(r);
	if (err)
		return error("cannot copy %s: %s", path, weft_strerror(err));
	int fd = memfd_create("weft-view", MFD_CLOEXEC);
	const char *p = copy;
	size_t left = len;
	while (fd >= 0 && left) {
		ssize_t k = write(fd, p, left);
		if (k < 0 && errno != EINTR)
			break;
		if (k > 0)
			p += k, left -= (size_t)k;
	}
	free(copy);
	if (fd < 0 || left || lseek(fd, 0, SEEK_SET) < 0 || dup2(fd, 0) < 0)
		return error_errno("cannot hand %s to the viewer", path);
	close(fd);
	return 0;
}

int cmd_view(int argc, char **argv)
{
	struct traces tr = {0};
	const struct opt opts[] = {TRACES_OPT(&tr), OPT_END};
	const struct cmd_usage u = {
		"view", "[OPTIONS] TRACE...",
		"Opens the trace in a window (GTK): the picture with its "
		"toolbar, search and inspector, following a trace that is still "
		"being written.  Keys: W/S zoom, A/D pan, Up/Down/PgUp/PgDn move "
		"the focus, F fits, C shows only the causal chain; a click "
		"selects, a double click highlights the causal chain, a drag "
		"pans.",
		opts, 0};
	int rc = parse_traces(&u, argc, argv, &tr);
	if (rc >= 0)
		return rc;
	const char *env = getenv("WEFT_VIEW");
	const char *exe = env && *env ? env
			  : access(WEFT_VIEW_BUILD, X_OK) == 0 ? WEFT_VIEW_BUILD
							       : WEFT_VIEW_INSTALL;
	char *arg = (char *)tr.path[0];
	if (tr.n > 1 || tr.noff) {
		rc = bundle_to_stdin(&tr);
		traces_release(&tr);
		if (rc)
			return rc;
		static char stdin_arg[] = "-";
		arg = stdin_arg;
	}
	traces_release(&tr);
	char *args[] = {(char *)exe, arg, NULL};
	execv(exe, args);
	return error("cannot run the viewer '%s': %s (built without GTK?)", exe,
		     strerror(errno)),
	       1;
}
