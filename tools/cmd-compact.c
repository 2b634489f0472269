/* SPDX-License-Identifier: MIT */
/*
 * cmd-compact.c - `weft compact`: rings whose writer did not stop cleanly
 * give back the disk blocks of the packet slots they never used
 * (weft_compact() does it; a clean stop does it itself).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "weft-tools.h"
#include "common/grow.h"

/* One ring: what was done, on standard output; 0 or 1. */
static int compact_one(const char *path)
{
	struct weft_compact_result res;
	struct weft_diag d = {0};
	int err = weft_compact(path, &res, &d);
	if (err)
		return error("cannot compact '%s': %s", path,
			     d.msg[0] ? d.msg : weft_strerror(err));
	if (res.size_after == res.size_before)
		printf("%s: %u of %u packet slots in use: nothing to give "
		       "back\n",
		       path, res.slots_after, res.slots_before);
	else
		printf("%s: %llu -> %llu bytes (%u of %u packet slots in "
		       "use)\n",
		       path, (unsigned long long)res.size_before,
		       (unsigned long long)res.size_after, res.slots_after,
		       res.slots_before);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every ring of a run directory (its files but the manifest and those
 * whose name begins with a dot), in name order. */
static int compact_run(const char *dir)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return error_errno("cannot read '%s'", dir);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int rc = 0;
	while ((de = readdir(dp))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "manifest"))
			continue;
		if (WEFT_GROW(names, cap, n + 1))
			die("out of memory");
		size_t len = strlen(dir) + strlen(de->d_name) + 2;
		if (!(names[n] = malloc(len)))
			die("out of memory");
		snprintf(names[n++], len, "%s/%s", dir, de->d_name);
	}
	closedir(dp);
	if (n)
		qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		rc |= compact_one(names[i]);
		free(names[i]);
	}
	free(names);
	if (!n)
		return error("'%s' holds no ring", dir);
	return rc;
}

int cmd_compact(int argc, char **argv)
{
	const struct opt opts[] = {OPT_END};
	const struct cmd_usage u = {"compact", "FILE|RUNDIR...",
				    "Gives back the disk blocks of the packet "
				    "slots a ring never "
				    "used, when its writer did not stop "
				    "cleanly (killed, or gone "
				    "through exec): a clean stop does it "
				    "itself.  Each ring is "
				    "replaced atomically by a file holding the "
				    "same events; a "
				    "ring that went round is left as it is.  "
				    "Refused: a ring a "
				    "live writer holds, a symbolic link (never "
				    "followed), what is "
				    "not a ring.  Exit status 1 when one was "
				    "refused.",
				    opts, 0};
	const char **ops = calloc((size_t)argc + 1, sizeof *ops);
	if (!ops)
		die("out of memory");
	int nops, rc = opts_parse(&u, argc, argv, ops, &nops, NULL);
	if (rc < 0 && !nops)
		rc = opts_usage(&u);
	for (int i = 0; rc < 0 && i < nops; i++)
		if (!strcmp(ops[i], "-"))
			rc = opts_error(&u, "a file or run directory, not "
					    "standard input");
	if (rc >= 0) {
		free(ops);
		return rc;
	}
	rc = 0;
	for (int i = 0; i < nops; i++) {
		struct stat sb;
		if (lstat(ops[i], &sb) == 0 && S_ISDIR(sb.st_mode))
			rc |= compact_run(ops[i]);
		else
			rc |= compact_one(ops[i]);
	}
	free(ops);
	return rc;
}
