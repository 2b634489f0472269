/* SPDX-License-Identifier: MIT */
/* cmd-ctf.c - `weft ctf`: a CTF 1.8 directory for babeltrace2. */
#include <string.h>

#include "weft-tools.h"

int cmd_ctf(int argc, char **argv)
{
	const char *dir = NULL;
	struct traces tr = {0};
	int bad = 0;
	for (int i = 1; i < argc && !bad; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			dir = argv[++i];
		else
			bad = traces_arg(&tr, argc, argv, &i, 0) != 1;
	}
	if (bad || !tr.n || !dir) {
		traces_release(&tr);
		return usage("weft ctf " TRACES_USAGE " -o DIR");
	}
	const char *path = traces_name(&tr);
	struct weft_reader *r = traces_open(&tr, 0);
	traces_release(&tr);
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
