/* SPDX-License-Identifier: MIT */
/*
 * layout.h - a row for each async thread, for pictures where time runs left to right (part of libweft-read).
 */
#ifndef WEFT_LAYOUT_H
#define WEFT_LAYOUT_H

#include <stdint.h>

#include "weft/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Layout: a row for each async thread, for a picture where time runs left
 * to right.  Rows are packed and stable:
 *   - a thread that continues its creator takes its creator's row;
 *   - long-lived threads and sources (spanning half of the trace or
 *     more when the layout is made: loops, listeners, timers) take the
 *     top rows;
 *   - any other thread takes the free row nearest its creator's, below
 *     first; a row is free once what it holds ended, plus an eighth of
 *     that one's life (a gap that keeps neighbours apart at any zoom);
 *     a new row only when none is free.
 * So the rows used stay within about twice the most threads alive at
 * once, plus the long-lived ones.  Threads are placed once, in creation
 * order, looking only at what ended before they began: a live trace's new
 * threads are placed by weft_layout_update() without moving any other.
 * OS threads (roots) get no row.
 *
 * `only` (NULL: every thread) restricts the layout to the threads i with
 * only[i] != 0 (it must cover the model's threads at each call).
 * Returns 0 or -ENOMEM.  The layout reads the model, which must outlive
 * it; one thread at a time.
 */
struct weft_layout;

struct weft_layout_info {
	uint32_t rows;	  /* rows used */
	uint32_t top;	  /* of which the top rows (long-lived threads) */
	uint32_t threads; /* threads laid out */
};

WEFT_API int weft_layout_new(struct weft_layout **out,
			     const struct weft_model *m, const uint8_t *only);
/* After weft_model_update(): places the new threads (-EINVAL for a
 * group's layout). */
WEFT_API int weft_layout_update(struct weft_layout *l, const uint8_t *only);
WEFT_API void weft_layout_free(struct weft_layout *l);
/* Per thread, its row (-1: none); *n gets the threads covered. */
WEFT_API const int32_t *weft_layout_rows(const struct weft_layout *l,
					 uint32_t *n);
/* Layouts of groups of threads at once (a run's processes, each apart):
 * group[i], for each of the model's threads, is thread i's group, or
 * WEFT_NONE: in none.  out[g] (g < ngroups) is group g's layout, as
 * weft_layout_new() with `only` its threads would make it, or NULL when
 * it has none; in time O(threads + groups), where a weft_layout_new() per
 * group passes over every thread each (a run of 10,000 processes).  Each
 * is freed with weft_layout_free(); its rows are weft_layout_members()'s,
 * and weft_layout_update_groups() places the model's new threads. */
WEFT_API int weft_layout_new_groups(struct weft_layout **out, uint32_t ngroups,
				    const struct weft_model *m,
				    const uint32_t *group);
/* After weft_model_update(): the threads from `from` on (the model's
 * threads at the last call) placed in their groups' layouts, a layout made
 * for a group that had none.  0 or -ENOMEM. */
WEFT_API int weft_layout_update_groups(struct weft_layout **out,
				       uint32_t ngroups,
				       const struct weft_model *m,
				       const uint32_t *group, uint32_t from);
/* A group's layout: its threads, ascending (*n of them), and in *rows
 * their rows.  NULL for a layout of weft_layout_new(), whose rows are
 * weft_layout_rows()'s (which gives NULL for a group's). */
WEFT_API const uint32_t *weft_layout_members(const struct weft_layout *l,
					     const int32_t **rows, uint32_t *n);
/* Counts. */
WEFT_API void weft_layout_info(const struct weft_layout *l,
			       struct weft_layout_info *info);
/* The most threads laid out alive at once (a thread pending at the end
 * is alive to the end): what the rows used compare with.  A sweep, in
 * O(n log n).  0 or -ENOMEM. */
WEFT_API int weft_layout_peak(const struct weft_layout *l, uint32_t *peak);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_LAYOUT_H */
