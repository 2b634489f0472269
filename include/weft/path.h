/* SPDX-License-Identifier: MIT */
/*
 * path.h - the critical path of an async thread (part of libweft-read):
 * what decided when it ended (`weft why --path`).
 *
 * Walking back from its end, each moment of its life is one of:
 *   RUNNING   it ran (on some OS thread);
 *   READY     what it waited for had happened (the thread it waited on
 *             resolved, failed or was signalled, or it was signalled, or
 *             it was just created), but it did not run yet: its OS thread
 *             ran something else (`on`: what ran longest meanwhile) or
 *             sat idle (`on` NONE);
 *   WAITING   it waited on another thread (`on`: the thread of its
 *             unanswered try_read, or what signalled it, or for a thread
 *             that never runs, what resolved it).  The path goes on
 *             into the thread that did the waking: its own time over the
 *             wait is explained the same way, one level deeper.
 *             `on` NONE: on nothing recorded: either its OS thread sat
 *             idle (blocked in poll: `idle` names why) before it ran,
 *             so it waited for an event (a timer not due, bytes not
 *             there: had it been ready, its loop would not have
 *             blocked); or (`idle` 0) it is a thread that never runs
 *             (a condition, a promise, a request) and nothing
 *             signalled, resolved or failed it: it is not READY, which
 *             only what runs can be;
 *   OTHER     not running and no recorded wait explains why.
 * Segments cover the subject's life [t_create, t_end] exactly at depth 0;
 * each WAITING segment is covered again by the segments of the thread
 * that woke it at depth + 1 (as far as that thread's own life goes back),
 * up to WEFT_PATH_MAX_DEPTH levels.  A subject still pending is explained
 * up to the end of the trace.
 */
#ifndef WEFT_PATH_H
#define WEFT_PATH_H

#include <stdint.h>

#include "weft/model.h"

#ifdef __cplusplus
extern "C" {
#endif

enum weft_path_state {
	WEFT_PATH_RUNNING,
	WEFT_PATH_READY,
	WEFT_PATH_WAITING,
	WEFT_PATH_OTHER,
	WEFT_PATH_STATES
};

#define WEFT_PATH_MAX_DEPTH 16

struct weft_path_seg {
	int64_t t0, t1;
	uint32_t thread; /* whose time it is */
	uint32_t on;	 /* WAITING: on what; READY: what ran instead */
	uint32_t depth;	 /* 0: the subject's own */
	uint32_t state;	 /* enum weft_path_state */
	uint32_t idle;	 /* WAITING on NONE: its OS thread's idle reason (a
			    name: weft_model_name), 0: none */
};

struct weft_path {
	uint32_t subject;
	int64_t t0, t1;			 /* its life (t1: its end, or the
					trace's) */
	int64_t total[WEFT_PATH_STATES]; /* its life split (depth 0) */
	struct weft_path_seg *seg;	 /* by depth, then in time order */
	uint32_t nseg;
};

/* The work for many paths in one model, done once (per OS thread, its
 * runs in time order). */
struct weft_path_index;
WEFT_API int weft_path_index_new(struct weft_path_index **out,
				 const struct weft_model *m);
WEFT_API void weft_path_index_free(struct weft_path_index *ix);

/* Fills *p (release it with weft_path_release).  0, WEFT_EINVAL (no such
 * thread, or an OS thread) or -ENOMEM. */
WEFT_API int weft_path_at(const struct weft_path_index *ix, uint32_t thread,
			  struct weft_path *p);
WEFT_API int weft_path(const struct weft_model *m, uint32_t thread,
		       struct weft_path *p);
WEFT_API void weft_path_release(struct weft_path *p);

/* "running", "ready", "waiting", "other". */
WEFT_API const char *weft_path_state_name(int state);

/* The critical paths of many threads summed (`weft why --path --all`):
 * their lives split by state, and what their own waits were on and what
 * ran while they were ready, by key -- the label key of that thread
 * (weft_diff_key_text, WEFT_DIFF_KEY_LABEL), or "(idle)" when nothing
 * ran or nothing recorded was waited on -- with the time in all, the
 * longest, and how many of the threads had any (each counted once a
 * key).  Zero it, add paths, read it (each list sorted, most time first,
 * after every add), release it. */
struct weft_path_blame {
	char key[200];
	uint32_t threads;
	int64_t total, max;
};
struct weft_path_sum {
	uint32_t threads;
	int64_t life;
	int64_t total[WEFT_PATH_STATES];
	struct weft_path_blame *waited_on, *ready_while;
	uint32_t nwaited_on, nready_while;
	uint32_t cwaited_on, cready_while; /* (allocated) */
};
/* 0 or -ENOMEM. */
WEFT_API int weft_path_sum_add(struct weft_path_sum *s,
			       const struct weft_model *m,
			       const struct weft_path *p);
WEFT_API void weft_path_sum_release(struct weft_path_sum *s);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_PATH_H */
