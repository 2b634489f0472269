/* SPDX-License-Identifier: MIT */
/*
 * keep.h - the keeper (keep.c): every finished packet of a live ring, or
 * of every ring of a run, copied into chunk files of a directory before
 * the ring can overwrite it.  Used by `weft keep` (cmd-keep.c) and by
 * `weft record --keep` (a thread of weft record).  docs/keep.md.
 */
#ifndef WEFT_TOOLS_KEEP_H
#define WEFT_TOOLS_KEEP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct keep_opts {
	const char *src;      /* a ring file, or a run directory */
	const char *dir;      /* the kept directory (made if missing) */
	uint64_t chunk_bytes; /* a chunk is closed at this size on disk */
	int64_t chunk_ns;     /* ... or when it has been open this long */
	uint64_t max_disk;    /* 0: no budget; else oldest chunks deleted */
	int level;	      /* zstd level */
	/* Set (by another thread): the run is over; copy what is left and
	 * return.  NULL: the keeper decides (every writer gone). */
	volatile int *stop;
	int quiet;  /* no summary on stderr */
	int layout; /* WEFT_KEEP_PACKED (the default) or WEFT_KEEP_PLAIN */
};

#define KEEP_DEFAULT_CHUNK (16ull << 20)
#define KEEP_DEFAULT_CHUNK_NS (60ll * 1000000000)
#define KEEP_DEFAULT_LEVEL 3
#define KEEP_DEFAULT_LAYOUT 1 /* WEFT_KEEP_PACKED */

/* Keeps until the source is over (or *stop).  Returns an exit status: 0,
 * 1 (an error, said on stderr), 2 (DIR is, or leads through, a symbolic
 * link another user owns). */
int keep_run(const struct keep_opts *o);

/* Where the kept directory `dir` is (in out): itself, or the end of the
 * chain of symbolic links it is, each owned by the caller.  0, -EPERM (a
 * link at some step another user owns: never followed), or -errno. */
int keep_dir_target(const char *dir, char *out, size_t cap);
/* keep_dir_target()'s refusal said on stderr: 0, or an exit status (2:
 * another user's link; 1: another error). */
int keep_dir_refused(const char *dir);

/* --chunk SIZE|DURATION, for an option table (OPT_FUNC; ctx: the opts) */
int keep_chunk_arg(void *ctx, const char *v, char *why, size_t cap);
/* --max-disk SIZE (OPT_FUNC; ctx: the opts) */
int keep_disk_arg(void *ctx, const char *v, char *why, size_t cap);

/* Whether `path` is a kept directory (it holds keep.log). */
int keep_is_dir(const char *path);
/* What `weft info DIR` says of a kept directory besides the trace:
 * chunks, bytes, compression, deletions, the keeper's log; *deleted:
 * the packets of deleted chunks.  0, or 1 (damaged chunks). */
int keep_describe(const char *dir, FILE *out, uint64_t *deleted);

/* `weft keep --thread ID DIR`: prints the chunks of DIR whose events name
 * the async thread `id` (their indexes only: nothing decompressed), one
 * name a line, in order.  0 if any, 1 if none, 2 on error. */
int keep_find_thread(const char *dir, uint64_t id, FILE *out);

/* weft dump --follow of a kept directory: prints (print()) every event it
 * holds, then the new ones each time a chunk is added, until its keeper
 * has ended.  Each OS thread's events are printed once, in order; events
 * of a packet kept late (an OS thread's packet open a long time) may
 * come after later events of other threads.  0 or 1. */
struct weft_reader;
struct weft_event;
int keep_follow(const char *dir,
		void (*print)(struct weft_reader *r,
			      const struct weft_event *ev, void *arg),
		void *arg);

#endif
