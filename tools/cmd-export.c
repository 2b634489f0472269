/* SPDX-License-Identifier: MIT */
/* cmd-export.c - `weft export --format chrome FILE -o OUT.json`. */
#include <stdlib.h>
#include <string.h>

#include "weft-tools.h"
#include "weft/model.h"

#define USAGE                                                                  \
	"weft export --format chrome " TRACES_USAGE " -o OUT.json|- "          \
	"[--select ID [--depth N|all]]"

int cmd_export(int argc, char **argv)
{
	const char *out = NULL, *format = NULL, *sel = NULL;
	int depth = WEFT_CHAIN_ALL;
	struct traces tr = {0};
	int bad = 0;
	for (int i = 1; i < argc && !bad; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--format") && i + 1 < argc)
			format = argv[++i];
		else if (!strncmp(argv[i], "--format=", 9))
			format = argv[i] + 9;
		else if (!strcmp(argv[i], "--select") && i + 1 < argc)
			sel = argv[++i];
		else if (!strcmp(argv[i], "--depth") && i + 1 < argc)
			bad = chain_depth_arg(argv[++i], &depth);
		else
			bad = traces_arg(&tr, argc, argv, &i, 0) != 1;
	}
	if (bad || !tr.n || !out || !format) {
		traces_release(&tr);
		return usage(USAGE);
	}
	if (strcmp(format, "chrome") && strcmp(format, "perfetto")) {
		traces_release(&tr);
		return error("unknown format '%s' (known: chrome)", format), 2;
	}
	const char *path = traces_name(&tr);
	struct weft_reader *r;
	struct weft_model *m = traces_model(&tr, &r);
	traces_release(&tr);
	if (!m)
		return 1;
	FILE *f = strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!f) {
		error_errno("cannot create '%s'", out);
		weft_model_free(m);
		weft_reader_close(r);
		return 1;
	}
	/* --select: only a thread's causal chain (weft_chain(), as the
	 * viewers and weft render show it) */
	struct weft_chain ch = {0};
	if (sel) {
		uint32_t t = weft_model_find(m, strtoull(sel, NULL, 0));
		if (t == WEFT_NONE || weft_chain(m, t, depth, &ch)) {
			error("no thread %s", sel);
			if (f != stdout)
				fclose(f);
			weft_model_free(m);
			weft_reader_close(r);
			return 1;
		}
	}
	int err = weft_export_chrome_only(m, f, sel ? ch.in : NULL);
	weft_chain_release(&ch);
	if ((f != stdout ? fclose(f) : fflush(f)) != 0 || err) {
		error("cannot write '%s'", out);
		err = 1;
	}
	weft_model_free(m);
	int rc = report_losses(r, path);
	weft_reader_close(r);
	return err ? 1 : rc;
}
