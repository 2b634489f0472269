/* SPDX-License-Identifier: MIT */
/*
 * pair.h - two runs side by side (`weft render GOOD BAD`, `weft view GOOD
 * BAD`): a view of each (view.h), the good one in the upper half of the
 * picture and the bad one in the lower, under a strip naming the run; one
 * time scale (the same duration, and the same offset from each run's
 * anchor: its start, or an aligned thread's creation); zoom, pan and fit
 * acting on both; a selection in one half selects the aligned thread
 * (weft_align_map) in the other and brings it into focus; the first
 * divergence (weft_diff_first) marked in both halves by a line at its
 * time in that run, a label saying what it is, and its thread outlined.
 * Times are the models' (ns); one thread at a time.
 */
#ifndef WEFT_PAIR_H
#define WEFT_PAIR_H

#include <stddef.h>
#include <stdint.h>

#include "canvas.h"
#include "view.h"
#include "weft/diff.h"

struct weft_pair;

/* Side 0 shows `good`, side 1 `bad` (which must outlive the pair), named
 * by `name` (a file name: copied) in their strips, in `w` x `h` pixels,
 * aligned by their keys (WEFT_DIFF_KEY_LABEL) and showing the whole of
 * the longer run.  NULL when out of memory. */
struct weft_pair *weft_pair_new(const struct weft_model *good,
				const struct weft_model *bad, const char *name0,
				const char *name1, double w, double h);
void weft_pair_free(struct weft_pair *p);

/* A side's view, its model, the alignment, the first divergence (kind
 * WEFT_DIV_NONE: the same structure). */
struct weft_view *weft_pair_view(struct weft_pair *p, int side);
const struct weft_model *weft_pair_model(const struct weft_pair *p, int side);
const struct weft_align *weft_pair_align(const struct weft_pair *p);
const struct weft_divergence *weft_pair_divergence(const struct weft_pair *p);
/* The divergence in the words of `weft diff`'s headline ("first
 * divergence: a wait on ARP response (condition) and a wake-up of it
 * came in opposite orders"; "same structure" when there is none).
 * Writes at most `cap` bytes, NUL included; returns the whole length. */
size_t weft_pair_divergence_str(const struct weft_pair *p, char *buf,
				size_t cap);

void weft_pair_resize(struct weft_pair *p, double w, double h);
/* The strip over each half is this tall. */
#define WEFT_PAIR_STRIP_H 18.0
/* The top of a side's half (its strip), and of its view (its ruler): a
 * view's pixel y is the picture's y - weft_pair_top(). */
double weft_pair_half(const struct weft_pair *p, int side);
double weft_pair_top(const struct weft_pair *p, int side);
/* The side whose half holds pixel y. */
int weft_pair_side_at(const struct weft_pair *p, double y);

/* Time: what one side's view shows (after any weft_view_* call on it),
 * given to the other at the same offset from its anchor. */
void weft_pair_sync(struct weft_pair *p, int from);
/* Both runs whole (the longer decides). */
void weft_pair_fit(struct weft_pair *p);
void weft_pair_zoom(struct weft_pair *p, double factor, double x);
/* A drag: dx moves both in time, dy the focus of both. */
void weft_pair_pan(struct weft_pair *p, double dx, double dy);
/* From t0 to t1 ns after the anchors. */
void weft_pair_set_range(struct weft_pair *p, int64_t t0, int64_t t1);
/* The anchors: the first divergence's time in each run, or each run's
 * start where one has none (thread WEFT_NONE: the default), or the
 * creation of `thread` of `side` and of its partner.  Returns -1
 * (nothing changes) when the thread has no partner. */
int weft_pair_anchor(struct weft_pair *p, int side, uint32_t thread);
int64_t weft_pair_anchor_t(const struct weft_pair *p, int side);
/* What the anchors are: 0 the starts, 1 the divergence, 2 a thread. */
int weft_pair_anchored(const struct weft_pair *p);
/* From t0 to t1 ns after the good run's start, the bad one lined up at
 * the anchors (`--start`, `--duration`). */
void weft_pair_show(struct weft_pair *p, int64_t t0, int64_t t1);

/* The partner of a thread of `side` in the other run, or WEFT_NONE. */
uint32_t weft_pair_partner(const struct weft_pair *p, int side,
			   uint32_t thread);
/* The thread drawn nearest pixel (x, y) and its side (*side, when not
 * NULL), or WEFT_NONE. */
uint32_t weft_pair_pick(struct weft_pair *p, double x, double y, int *side);
/* Selects a thread of `side` (WEFT_NONE: none) and its partner in the
 * other, brought into focus there (its row, and its lifetime in time
 * when it is out of sight).  Returns the partner, or WEFT_NONE. */
uint32_t weft_pair_select(struct weft_pair *p, int side, uint32_t thread);

/* Draws both halves.  Returns how many primitives it drew. */
long weft_pair_render(struct weft_pair *p, const struct weft_canvas *c);
/* Where the divergence's line is drawn in a side's half (the picture's
 * x), or -1 where it has none (not in that run, or out of sight). */
double weft_pair_divergence_x(const struct weft_pair *p, int side);

#endif
