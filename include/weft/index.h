/* SPDX-License-Identifier: MIT */
/*
 * index.h - the index beside a trace (part of libweft-read; docs/huge.md,
 * "The index").
 *
 * An index is a file that summarises a trace so that a view of any time
 * range at any zoom needs no pass over the events: per OS thread a
 * pyramid of time buckets (running, waiting and idle nanoseconds; how
 * many async threads were created, arrows drawn and marks made), per
 * counter a pyramid of its minimum and maximum, and the table of the
 * trace's async threads.  It is built in one pass over the events (a lean
 * model, model.h), written beside the trace as TRACE.weftidx, or in
 * $XDG_CACHE_HOME/weft (~/.cache/weft) when the trace's directory is not
 * writable, and is keyed by the trace's uuid, size, packet count and
 * modification time (of a directory: its entries').  An
 * index that is stale (another trace's, a trace that changed, a live
 * writer's), damaged (truncated, a byte changed: its checksum) or of
 * another format version is never trusted: it is rebuilt.
 *
 * Level 0 has at most WEFT_INDEX_LEAVES buckets, each bucket_ns wide (a
 * power of two); level j's buckets are 2^j of level 0's, the last level
 * one bucket (two, meeting at 0, for a trace with times before its
 * origin: a run whose first process began before the one it is timed
 * from).  Bucket k of a level covers [k * w, (k + 1) * w) in model
 * time (ns since the trace origin), so a bucket's start is a multiple of
 * its width.  Times are those of the model: a bucket's sums are exactly
 * the model's (tests/unit/test-index.c checks them).
 *
 * An index once open is read-only and may be read by several threads.
 */
#ifndef WEFT_INDEX_H
#define WEFT_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "weft/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The index format's version: an index of another is rebuilt. */
#define WEFT_INDEX_VERSION 2
/* The most buckets of level 0 (a trace of more than 256 OS threads has
 * fewer: 2^20 over all its OS threads, at least 64 each). */
#define WEFT_INDEX_LEAVES 4096

/* An OS thread's activity in one bucket. */
struct weft_index_bucket {
	int64_t running_ns; /* something ran there (its runs, weft_run) */
	int64_t waiting_ns; /* the async threads created there were alive
			       (created and not yet ended), summed over
			       them: how much waited */
	int64_t idle_ns;    /* the OS thread was idle */
	uint32_t threads;   /* async threads created there */
	uint32_t arrows;    /* arrows made there */
	uint32_t marks;	    /* labels and notes made there */
	uint32_t pad;
};

/* A counter's samples in one bucket (samples == 0: none, min and max
 * are 0). */
struct weft_index_range {
	int64_t min, max;
	uint64_t samples;
};

/* An OS thread of the trace (weft_model_streams()). */
struct weft_index_stream {
	uint32_t tid;
	uint32_t name;	 /* weft_index_string() */
	int64_t busy_ns; /* the model's totals */
	int64_t idle_ns;
	uint32_t process; /* weft_model_process index, or WEFT_NONE */
	uint32_t pad;
};

/* A counter series (weft_model_counters(): a name and a process). */
struct weft_index_series {
	uint32_t name; /* weft_index_string() */
	uint32_t process;
};

/* An async thread, as weft_model_threads() has it (the same order, so
 * the same indexes), its texts as index strings. */
struct weft_index_thread {
	uint64_t id;
	int64_t t_create, t_end;
	uint32_t parent; /* its creator (an index in this table), or NONE */
	uint32_t stream; /* the OS thread where it was created */
	uint32_t kind;	 /* weft_index_string() */
	uint32_t label;	 /* its latest label (weft_index_string()), or
			    WEFT_NONE */
	uint8_t end;	 /* enum weft_end */
	uint8_t flags;	 /* enum weft_thread_flags */
	uint16_t pad;
	uint32_t pad2;
};

/* What building cost and where it went. */
struct weft_index_built {
	uint64_t events; /* events read */
	uint64_t bytes;	 /* the index file's size */
	double seconds;	 /* wall time of the build and write */
	char path[4096]; /* where it was written */
	int in_cache;	 /* 1: in the cache directory (trace's directory
			      not writable); 2: there because a file that
			      is not an index is where the trace's would
			      go (weft never replaces it) */
};

struct weft_index;

/*
 * weft_index_path - where the index of `trace` lives: beside it
 * (in_cache 0: TRACE.weftidx) or in the cache directory (in_cache 1:
 * $XDG_CACHE_HOME/weft/UUID-SIZE-PACKETS.weftidx, the trace's identity;
 * `r` is the trace's reader, required there).  0, or -ENAMETOOLONG,
 * -ENOENT (no HOME), -EINVAL (no reader for the cache's name).
 */
WEFT_API int weft_index_path(const char *trace, struct weft_reader *r,
			     int in_cache, char *buf, size_t cap);

/*
 * weft_index_build - reads every event of `trace` once and writes its
 * index, atomically (a new file renamed into place, never through a
 * symbolic link): beside the trace, or in the cache directory when the
 * trace's directory is not writable.  `out` (optional) says where and
 * what it cost.  0 or a negative code (the reader's, -errno).
 */
WEFT_API int weft_index_build(const char *trace, struct weft_index_built *out);

/* weft_index_open flags */
enum weft_index_flags {
	/* build the index when there is none or it cannot be trusted */
	WEFT_INDEX_BUILD = 1 << 0,
};

/*
 * weft_index_open - opens the index of `trace` (beside it, else in the
 * cache directory), after checking it against the trace: its format
 * version, its checksum and size, the trace's uuid, size, packet count
 * and modification time, and a writer that is not live.  With WEFT_INDEX_BUILD an index
 * missing or failing a check is built (`built`, optional, says so:
 * built->path[0] is 0 when nothing was built), and opened from the
 * bytes just written (not read back: the same checks).  `why` (optional, cap
 * bytes) gets the reason an index was not trusted ("" if it was).
 * Returns 0, WEFT_ESTALE (no usable index and no WEFT_INDEX_BUILD), or
 * a negative code.
 */
WEFT_API int weft_index_open(struct weft_index **out, const char *trace,
			     unsigned flags, struct weft_index_built *built,
			     char *why, size_t cap);

/*
 * weft_index_check - checks the index of `trace` as weft_index_open()
 * does, then builds it again in memory and compares: 0 when it is there,
 * current and equal to what the trace gives; WEFT_ESTALE with the reason
 * in `why` otherwise; a negative code on an error.  `path` (optional,
 * cap 4096) gets the index's path.
 */
WEFT_API int weft_index_check(const char *trace, char *path, char *why,
			      size_t cap);

WEFT_API void weft_index_close(struct weft_index *ix);

/* The trace's time range (model time) and events. */
WEFT_API void weft_index_range(const struct weft_index *ix, int64_t *t0,
			       int64_t *t1);
WEFT_API uint64_t weft_index_events(const struct weft_index *ix);
/* Levels (>= 1 when the trace has an event) and a level's bucket width
 * in ns (0 out of range). */
WEFT_API uint32_t weft_index_levels(const struct weft_index *ix);
WEFT_API int64_t weft_index_bucket_ns(const struct weft_index *ix,
				      uint32_t level);

/*
 * weft_index_query - OS thread `stream`'s buckets at `level` that meet
 * [t0, t1) (t0 == t1: the bucket holding t0): returns how many and
 * *out, the first of them (contiguous, valid until close), *first_t0
 * the first one's start.  0 (*out NULL) when none: a stream or level out
 * of range, a range outside the trace.
 */
WEFT_API uint32_t weft_index_query(const struct weft_index *ix, uint32_t stream,
				   uint32_t level, int64_t t0, int64_t t1,
				   const struct weft_index_bucket **out,
				   int64_t *first_t0);
/* The same for counter series `series`. */
WEFT_API uint32_t weft_index_counter_query(const struct weft_index *ix,
					   uint32_t series, uint32_t level,
					   int64_t t0, int64_t t1,
					   const struct weft_index_range **out,
					   int64_t *first_t0);

WEFT_API const struct weft_index_stream *
weft_index_streams(const struct weft_index *ix, uint32_t *n);
WEFT_API const struct weft_index_series *
weft_index_series(const struct weft_index *ix, uint32_t *n);
WEFT_API const struct weft_index_thread *
weft_index_threads(const struct weft_index *ix, uint32_t *n);
/* Per async thread (weft_index_threads()' order), the sum of its runs'
 * lengths in ns, as the model's runs give it (weft_model_thread_runs()):
 * how long it ran.  Added in version 2. */
WEFT_API const int64_t *weft_index_thread_running(const struct weft_index *ix,
						  uint32_t *n);
/* A text of the index ("" out of range or WEFT_NONE). */
WEFT_API const char *weft_index_string(const struct weft_index *ix, uint32_t s);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_INDEX_H */
