/* SPDX-License-Identifier: MIT */
/* cmd-export.c - `weft export --format chrome FILE -o OUT.json`. */
#include <string.h>

#include "weft-tools.h"
#include "weft/model.h"

#define USAGE "weft export --format chrome " TRACES_USAGE " -o OUT.json|-"

int cmd_export(int argc, char **argv)
{
	const char *out = NULL, *format = NULL;
	struct traces tr = {0};
	int bad = 0;
	for (int i = 1; i < argc && !bad; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--format") && i + 1 < argc)
			format = argv[++i];
		else if (!strncmp(argv[i], "--format=", 9))
			format = argv[i] + 9;
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
	int err = weft_export_chrome(m, f);
	if ((f != stdout ? fclose(f) : fflush(f)) != 0 || err) {
		error("cannot write '%s'", out);
		err = 1;
	}
	weft_model_free(m);
	int rc = report_losses(r, path);
	weft_reader_close(r);
	return err ? 1 : rc;
}
