/* SPDX-License-Identifier: MIT */
/* cmd-ctf.c - `weft ctf`: a CTF 1.8 directory for babeltrace2. */
#include <string.h>

#include "weft-tools.h"

int cmd_ctf(int argc, char **argv)
{
	const char *path = NULL, *dir = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			dir = argv[++i];
		else if ((argv[i][0] != '-' || !argv[i][1]) && !path)
			path = argv[i];
		else
			return usage("weft ctf FILE|- -o DIR");
	}
	if (!path || !dir)
		return usage("weft ctf FILE|- -o DIR");
	struct weft_reader *r = open_trace(path, 0);
	if (!r)
		return 1;
	struct weft_diag d = {0};
	int err = weft_ctf_write(r, dir, &d);
	if (err) {
		weft_reader_close(r);
		return error("cannot write '%s': %s", dir, weft_strerror(err));
	}
	/* Read it all once, to report losses and corruption. */
	struct weft_event ev;
	while (weft_reader_next(r, &ev) == 0)
		;
	int rc = report_losses(r, path);
	weft_reader_close(r);
	return rc;
}
