/* SPDX-License-Identifier: MIT */
/*
 * cmd-keep.c - `weft keep RING|RUNDIR -o DIR`: every finished packet of a
 * live ring, or of every ring of a run, kept in compressed chunk files
 * (keep.c; docs/keep.md).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "keep.h"
#include "weft-tools.h"

static volatile int stop_asked;

static void on_signal(int sig)
{
	(void)sig;
	stop_asked = 1;
}

int cmd_keep(int argc, char **argv)
{
	struct keep_opts o = {.chunk_bytes = KEEP_DEFAULT_CHUNK,
			      .chunk_ns = KEEP_DEFAULT_CHUNK_NS,
			      .level = KEEP_DEFAULT_LEVEL};
	const char *dir = NULL, *thread = NULL;
	int level = KEEP_DEFAULT_LEVEL, plain = 0;
	const struct opt opts[] = {
		{"-o", NULL, "DIR",
		 "the kept directory: made if missing; a "
		 "directory a keeper wrote before is continued (no packet "
		 "twice)",
		 OPT_STRING, &dir},
		{"--max-disk", NULL, "SIZE",
		 "keep the chunks under SIZE (64M, "
		 "10G) by deleting the oldest (each deletion counted in "
		 "DIR/keep.log; weft info DIR shows them)",
		 OPT_FUNC, .fn = keep_disk_arg, .ctx = &o},
		{"--chunk", NULL, "SIZE|DURATION",
		 "close a chunk at this size "
		 "on disk (default 16M) or after this long (default 60s); "
		 "give either or both",
		 OPT_FUNC, .fn = keep_chunk_arg, .ctx = &o},
		{"--level", NULL, "N", "the zstd level (default 3; 1 to 19)",
		 OPT_INT, &level, 1, 19},
		{"--plain", NULL, NULL,
		 "chunks whose frames are the packets as they are (zstd -d "
		 "of a chunk gives a ring; about 1.7x the disk of the "
		 "default packed layout)",
		 OPT_FLAG, &plain},
		{"--thread", NULL, "ID",
		 "keep nothing: list the chunks of the kept directory (the "
		 "operand) whose events name the async thread ID (0x200), "
		 "from their indexes alone; status 1 if none",
		 OPT_STRING, &thread},
		OPT_END,
	};
	const struct cmd_usage u = {"keep",
				    "RING|RUNDIR -o DIR [OPTIONS] | --thread "
				    "ID DIR",
				    "Follows a live ring, or every ring of a "
				    "run (new ones as their "
				    "processes start), with no cooperation "
				    "from the program, and "
				    "copies every finished packet into "
				    "zstd-compressed chunks of "
				    "DIR before the ring can overwrite it.  "
				    "Ends when every writer "
				    "has stopped (a run: when its command has "
				    "ended) and "
				    "everything is copied; SIGINT or SIGTERM "
				    "end it early, after "
				    "what is there is copied.  Every reading "
				    "command reads DIR as "
				    "one trace.",
				    opts, 0};
	const char **ops = calloc((size_t)argc + 1, sizeof *ops);
	if (!ops)
		die("out of memory");
	int nops, rc = opts_parse(&u, argc, argv, ops, &nops, NULL);
	const char *src = nops == 1 ? ops[0] : NULL;
	free(ops);
	if (rc >= 0)
		return rc;
	if (thread && src && !dir) {
		char *end;
		errno = 0;
		unsigned long long id = strtoull(thread, &end, 0);
		if (errno || end == thread || *end || !id) {
			error("--thread: an async thread's id (0x200), not "
			      "'%s'",
			      thread);
			return 2;
		}
		return keep_find_thread(src, id, stdout);
	}
	if (!src || !dir || thread)
		return opts_usage(&u);
	o.src = src;
	o.dir = dir;
	o.level = level;
	o.layout = plain ? 0 : KEEP_DEFAULT_LAYOUT; /* (WEFT_KEEP_PLAIN) */
	if (o.max_disk && o.chunk_bytes > o.max_disk / 4)
		o.chunk_bytes = o.max_disk / 4; /* deletions in small steps */
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	o.stop = &stop_asked;
	return keep_run(&o);
}
