/* SPDX-License-Identifier: MIT */
/* cmd-ctf.c - `weft ctf`: a CTF 1.8 directory for babeltrace2. */
#include <string.h>

#include "weft-tools.h"

int cmd_ctf(int argc, char **argv)
{
	const char *dir = NULL;
	struct traces tr = {0};
	const struct opt opts[] = {
		{"-o", NULL, "DIR", "the directory to write (made if missing)",
		 OPT_STRING, &dir},
		TRACES_OPT(&tr),
		OPT_END,
	};
	const struct cmd_usage u = {"ctf", "[OPTIONS] TRACE... -o DIR",
				    "Writes a CTF 1.8 directory that "
				    "babeltrace2 reads; of a run, "
				    "one per process (DIR/PID-comm), their "
				    "clocks on one axis.",
				    opts, 0};
	int rc = parse_traces(&u, argc, argv, &tr);
	if (rc >= 0)
		return rc;
	if (!dir) {
		traces_release(&tr);
		return opts_error(&u, "-o DIR is required: the directory to "
				      "write");
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
	rc = report_losses(r, path);
	weft_reader_close(r);
	return rc;
}
