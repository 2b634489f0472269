/* SPDX-License-Identifier: MIT */
/* cmd-export.c - `weft export [--format chrome] TRACE... -o OUT.json
 * [--select ID|LABEL [--depth N|all]]`. */
#include <stdlib.h>
#include <string.h>

#include "weft-tools.h"
#include "weft/model.h"

int cmd_export(int argc, char **argv)
{
	const char *out = NULL, *sel = NULL;
	int format = 0, depth = WEFT_CHAIN_ALL;
	struct traces tr = {0};
	const struct opt opts[] = {
		{"--format", NULL, "FORMAT",
		 "chrome (also spelt perfetto, the default): "
		 "Chrome trace-event JSON",
		 OPT_CHOICE, &format, .choices = "chrome|perfetto"},
		{"-o", NULL, "OUT", "the file to write (- for standard output)",
		 OPT_STRING, &out},
		{"--select", NULL, "ID|LABEL",
		 "only this thread's causal chain (as weft render --select and "
		 "the viewers show it)",
		 OPT_STRING, &sel},
		{"--depth", NULL, "N|all",
		 "with --select: the chain to N arrows from the thread "
		 "(default "
		 "all)",
		 OPT_FUNC, .fn = chain_depth_opt, .ctx = &depth},
		TRACES_OPT(&tr),
		OPT_END,
	};
	const struct cmd_usage u = {"export",
				    "[OPTIONS] TRACE... -o OUT.json|-",
				    "Exports the trace for other viewers: "
				    "Chrome trace-event JSON, "
				    "which Perfetto's UI and chrome://tracing "
				    "open (async threads "
				    "as tracks, their runs as slices, arrows "
				    "as flows, counters).",
				    opts, 0};
	int rc = parse_traces(&u, argc, argv, &tr);
	if (rc >= 0)
		return rc;
	if (!out) {
		traces_release(&tr);
		return opts_error(&u, "-o OUT is required: the file to write "
				      "(- for standard output)");
	}
	const char *path = traces_name(&tr);
	struct weft_reader *r;
	struct weft_model *m = traces_model(&tr, &r);
	traces_release(&tr);
	if (!m)
		return 1;
	/* --select: only a thread's causal chain (weft_chain(), as the
	 * viewers and weft render show it) */
	struct weft_chain ch = {0};
	if (sel) {
		uint32_t t = find_thread(m, sel, "export");
		if (t == WEFT_NONE || weft_chain(m, t, depth, &ch)) {
			if (t != WEFT_NONE)
				error("out of memory");
			weft_model_free(m);
			weft_reader_close(r);
			return 1;
		}
	}
	FILE *f = strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!f) {
		error_errno("cannot create '%s'", out);
		weft_chain_release(&ch);
		weft_model_free(m);
		weft_reader_close(r);
		return 1;
	}
	int err = weft_export_chrome_only(m, f, sel ? ch.in : NULL);
	weft_chain_release(&ch);
	if ((f != stdout ? fclose(f) : fflush(f)) != 0 || err) {
		error("cannot write '%s'", out);
		err = 1;
	}
	weft_model_free(m);
	rc = report_losses(r, path);
	weft_reader_close(r);
	return err ? 1 : rc;
}
