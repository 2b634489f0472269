/* SPDX-License-Identifier: MIT */
/*
 * view.h - a view of a model: layout (rows), the visible time range, the
 * vertical focus, the interaction state (search, selection, causal chain,
 * counters shown), and drawing it.  One renderer for every front end
 * (render.c); no GTK, no cairo here.
 */
#ifndef WEFT_VIEW_H
#define WEFT_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "canvas.h"
#include "weft/model.h"

struct weft_view;

/* A view of `m` (which must outlive it), `w` x `h` pixels, showing the
 * whole trace.  NULL when out of memory. */
struct weft_view *weft_view_new(const struct weft_model *m, double w, double h);
void weft_view_free(struct weft_view *v);

/* After the model grew (live): lays the new threads out. */
void weft_view_model_changed(struct weft_view *v);

void weft_view_resize(struct weft_view *v, double w, double h);
/* The whole trace. */
void weft_view_fit(struct weft_view *v);
/* Zoom by `factor` (> 1 in) keeping the time under pixel x in place. */
void weft_view_zoom(struct weft_view *v, double factor, double x);
/* Pan by pixels (drag): dx moves time, dy moves the vertical focus. */
void weft_view_pan(struct weft_view *v, double dx, double dy);
void weft_view_set_range(struct weft_view *v, int64_t t0, int64_t t1);
void weft_view_range(const struct weft_view *v, int64_t *t0, int64_t *t1);

/*
 * Vertical focus + context: when every row fits at full height, rows are
 * stacked at full height.  Otherwise a band of rows around the focus row
 * is drawn at full height and the rows above and below it are compressed
 * into the rest of the height, so the whole trace stays in sight (a
 * piecewise-linear fisheye).  The focus row is centred in the band when
 * it can be.
 */
void weft_view_set_focus(struct weft_view *v, int row);
int weft_view_focus(const struct weft_view *v);
/* Centre of a thread's row on screen and its height in pixels (full:
 * 26), or -1 if it is not laid out. */
double weft_view_thread_y(struct weft_view *v, uint32_t thread, double *row_h);
/* The same of a row (-1: no such row). */
double weft_view_row_y(struct weft_view *v, int row, double *row_h);

/*
 * A run of several processes (weft_model_processes()): each process is a
 * group of rows under a header with its name and pid, parents before
 * children, its threads laid out within it; a collapsed process shows its
 * header alone.  Groups that do not overlap in time share rows, one after
 * the other (a lane: its first row holds their headers, each a band
 * across the time its group spans), so that a run of many short
 * processes is as tall as the most that ran at once.  A single process
 * has no headers.
 */
/* The process whose header is drawn at pixel (x, y), or WEFT_NONE. */
uint32_t weft_view_header_at(struct weft_view *v, double x, double y);
/* The row of a process's header, or -1 (no group: one process, or none
 * of its threads shown). */
int weft_view_header_row(const struct weft_view *v, uint32_t process);
/* A pixel x within a process's header band (where its triangle is), or
 * -1 when it has none or it is out of sight. */
double weft_view_header_x(struct weft_view *v, uint32_t process);
/* Collapses (on) or expands (!on) a process's group. */
void weft_view_collapse(struct weft_view *v, uint32_t process, int on);
int weft_view_collapsed(const struct weft_view *v, uint32_t process);

/* Highlights every thread whose title, kind, failure message, any label
 * or any note contains `text` (case-insensitive; NULL or "" clears).
 * Returns how many match. */
uint32_t weft_view_search(struct weft_view *v, const char *text);
/* Highlights the threads given, as the search does its matches (the
 * search is cleared; n and N go through them): a query's result (the
 * viewers' query bar).  Threads not laid out, or no thread, are
 * skipped; a thread given twice counts once.  Returns how many are
 * highlighted; none given clears. */
uint32_t weft_view_mark(struct weft_view *v, const uint32_t *threads,
			uint32_t n);
/* How many threads the search matches now (a live trace adds some). */
uint32_t weft_view_matches(const struct weft_view *v);
/* Goes to the next match (dir > 0) or the previous one (dir < 0), in
 * creation order from the selected thread, round: selects it, zooms to
 * its lifetime and brings its row into focus.  Returns it, or WEFT_NONE
 * when nothing matches. */
uint32_t weft_view_next_match(struct weft_view *v, int dir);
/* Goes to a thread (the search's matches, the inspectors' entries):
 * selects it, zooms to its lifetime (a fifth of it either side) and
 * brings its row into focus.  No such thread: nothing changes. */
void weft_view_go_to(struct weft_view *v, uint32_t thread);
/* The thread drawn nearest pixel (x, y), within a few pixels, or
 * WEFT_NONE. */
uint32_t weft_view_pick(struct weft_view *v, double x, double y);
/* A thread's tooltip: its title; its kind, lifetime and running time;
 * how it ended (with its failure message).  Writes at most `cap` bytes,
 * NUL included; returns the whole length. */
size_t weft_view_tooltip(const struct weft_view *v, uint32_t thread, char *buf,
			 size_t cap);
/* Selects a thread (WEFT_NONE: none): it is outlined. */
void weft_view_select(struct weft_view *v, uint32_t thread);
uint32_t weft_view_selected(const struct weft_view *v);
/* The head of the inspectors of both viewers: the thread described for
 * a person (weft_model_describe_head(): what it is, when it lived, how
 * long it ran and waited), and whether it is in the highlighted chain;
 * its entries come from weft_model_inspect().  Writes at most `cap`
 * bytes, NUL included; returns the whole length. */
size_t weft_view_describe(const struct weft_view *v, uint32_t thread, char *buf,
			  size_t cap);
/*
 * Highlights a thread's causal chain (WEFT_NONE clears): what led to it
 * and what it led to, as weft_chain() defines it (model.h: hubs shown but
 * not walked through, a repeating source as one), to the depth set with
 * weft_view_set_chain_depth().  Returns the chain's size (the thread
 * included).
 */
uint32_t weft_view_chain(struct weft_view *v, uint32_t thread);
/* The chain's depth: 1 (direct arrows), 2, 3..., or WEFT_CHAIN_ALL (the
 * default); a highlighted chain is walked again. */
void weft_view_set_chain_depth(struct weft_view *v, int depth);
int weft_view_chain_depth(const struct weft_view *v);
/* The highlighted chain's size (0: none). */
uint32_t weft_view_chain_size(const struct weft_view *v);
/* Whether `thread` is in the highlighted chain. */
int weft_view_in_chain(const struct weft_view *v, uint32_t thread);
/* Shows only the threads of the chain, laid out again (with no chain
 * highlighted, the selected thread's); off: every thread. */
void weft_view_only_chain(struct weft_view *v, int on);

/*
 * The critical path of a thread (weft/path.h, `weft why --path`: what
 * decided when it ended -- its life split into running, waiting on other
 * threads and ready but not running, each wait explained by the thread
 * that ended it, one level deeper) highlighted over the rows of the
 * threads it goes through, in magenta: running a thick bar, ready a thick
 * pale one, waiting a thin line under its own, and where a wait ended an arrow from the
 * thread that ended it to the waiter.  WEFT_NONE (or an OS thread)
 * clears it.  Returns how many threads the path goes through (0: none).
 */
uint32_t weft_view_path(struct weft_view *v, uint32_t thread);
/* The thread whose path is highlighted, or WEFT_NONE; how many threads
 * the path goes through (0: none). */
uint32_t weft_view_path_thread(const struct weft_view *v);
uint32_t weft_view_path_size(const struct weft_view *v);
/* Its segments (NULL: none), valid until the next weft_view_path(). */
struct weft_path;
const struct weft_path *weft_view_path_segments(const struct weft_view *v);
/* The split in words, one line, for the inspectors and `weft render
 * --path`: "critical path of GET /item/7 (3 threads, 600 us): running
 * 170 us, waiting 410 us (on SELECT 7 410 us), ready but not running
 * 20 us (instead ran event loop 20 us)"; "" when none is highlighted.
 * Writes at most `cap` bytes, NUL included; returns the whole length. */
size_t weft_view_path_text(const struct weft_view *v, char *buf, size_t cap);

/* Counters: all on or off, or one (by its index in the model's
 * counters). */
void weft_view_show_counters(struct weft_view *v, int on);
void weft_view_show_counter(struct weft_view *v, uint32_t counter, int on);
int weft_view_counter_shown(const struct weft_view *v, uint32_t counter);
/* Keep the counters' band (empty) under the rows even with no counter
 * to show: two runs side by side (pair.h), one with counters, stand
 * their rows alike. */
void weft_view_keep_counter_band(struct weft_view *v, int on);

/*
 * Time.  A ruler along the top (weft_view_ruler_h() pixels: the rows are
 * laid out under it) gives times counted from the trace's start, in units
 * that follow the zoom ("2.5ms", "120us": what `weft render --start`
 * reads), with the wall-clock time of the start in its left corner when
 * the trace knows it.  It marks the time under the pointer, and a measured
 * range is drawn over the whole height with its duration.
 */
double weft_view_ruler_h(const struct weft_view *v);
/* The time (ns, the model's) at pixel x, and the pixel of time t. */
int64_t weft_view_time_at(const struct weft_view *v, double x);
double weft_view_x_of(const struct weft_view *v, int64_t t);
/* The smallest step of 1, 2 or 5 x 10^k ns that is at least `ns` (at
 * least 1): the ruler's ticks. */
int64_t weft_view_tick_step(double ns);
/* `ns` (from the trace's start) to the precision `step` needs (the power
 * of ten at most the step), as weft_time_fmt writes it: "0 ns",
 * "2.500 ms", "-120 us", "17.094 992 s".  Writes at most `cap` bytes,
 * NUL included; returns the whole length. */
size_t weft_view_time_str(int64_t ns, int64_t step, char *buf, size_t cap);
/* A duration as the range summary writes a range's (weft_time_fmt, to
 * the largest power of ten at most a 100 000th of it): "463.622 ms",
 * "850 ns", "12.500 0 s". */
size_t weft_view_dur_str(int64_t ns, char *buf, size_t cap);
/* The pointer's time as the ruler shows it (from the trace's start, to a
 * tenth of the last frame's tick, in the ruler's unit), 0 and "" when it
 * is away.  Writes at
 * most `cap` bytes, NUL included; returns the whole length. */
size_t weft_view_pointer_str(const struct weft_view *v, char *buf, size_t cap);
/* Measuring: a range from the time at pixel x (a press on the ruler, or
 * with shift), then to the time at pixel x (as the pointer drags). */
void weft_view_measure_from(struct weft_view *v, double x);
void weft_view_measure_to(struct weft_view *v, double x);
/* The same in times (t1 < t0 is swapped; t0 == t1: none). */
void weft_view_set_measure(struct weft_view *v, int64_t t0, int64_t t1);
void weft_view_clear_measure(struct weft_view *v);
/* The measured range: 1 and its times, or 0 when there is none. */
int weft_view_measure(const struct weft_view *v, int64_t *t0, int64_t *t1);
/*
 * The measured range's summary (weft/stats.h, weft_summary_compute: the
 * numbers `weft stats --from --to` prints), as both viewers' summary
 * panel shows it, in lines: line 0 the range's length and the totals
 * ("4 us: 12 async threads, 4 began, 3 ended, 1 failed"), then one per
 * kind ("req: 3 in range, 2 began, 2 ended, 1 failed; lifetime total
 * 3.500 us, p50 500 ns, p99 3 us; ran 500 ns, waited 1 us"), one per
 * label that several threads share ("label GET: ...", the 20 most
 * shared), one per process ("pid 832 server: running 1 ms, idle
 * 2 ms, other 1 ms"), and the arrows ("arrows: created 4, failed 1";
 * "arrows: none").  Times as weft_time_fmt() writes them, to the
 * summary's precision.  Of the measured range within
 * the trace (the part of it before the trace's start or after its end
 * holds nothing).  Computed once for a range (and
 * again when a live model grows).  Returns how many lines (0: no
 * measured range, or out of memory).
 */
uint32_t weft_view_summary_lines(struct weft_view *v);
/* Line i of the summary ("" past the last).  Writes at most `cap`
 * bytes, NUL included; returns the whole length. */
size_t weft_view_summary_line(struct weft_view *v, uint32_t i, char *buf,
			      size_t cap);
/* Clicking line i: a kind's or a label's line highlights its threads
 * (those in the range) as weft_view_mark() does (n, N go through them) and returns how
 * many; any other line: 0, nothing changes. */
uint32_t weft_view_summary_pick(struct weft_view *v, uint32_t i);
/* The summary as weft_summary_json() writes it (times from the trace's
 * start), "" when there is no measured range: the HTML viewer's panel
 * and the tests that compare it with `weft stats --json --from --to`.
 * Writes at most `cap` bytes, NUL included; returns the whole length. */
size_t weft_view_summary_json(struct weft_view *v, char *buf, size_t cap);
/* Shows exactly the measured range.  Returns -1 when there is none. */
int weft_view_zoom_measure(struct weft_view *v);
/* The pointer is at pixel (x, y) (x < 0: it left the picture): the ruler
 * marks its time, and each counter shown writes its value at that time by
 * the plot.  Returns whether the picture changed (a redraw is due). */
int weft_view_set_pointer(struct weft_view *v, double x, double y);
/* The value a shown counter writes at the pointer (the sample in force at
 * its time): 1, or 0 (and 0) when it writes none: no sample yet, the
 * pointer away, the counter hidden. */
int weft_view_counter_at_pointer(const struct weft_view *v, uint32_t counter,
				 int64_t *value);

/*
 * The theme: light (0, the default) or dark (1), for a dark desktop or
 * browser (the viewers follow its preference; T switches).  The drawing
 * code says the light theme's colours; the dark theme maps each
 * (weft_view_theme_rgb()): light and grey colours (backgrounds, text,
 * lines) have their lightness inverted, the saturated ones (arrows,
 * highlights, failures) keep their hue and saturation -- their meaning --
 * and are made light enough to stand out on the dark background (each
 * arrow colour at least 3:1 against it, as against the light one).
 */
void weft_view_set_dark(struct weft_view *v, int on);
int weft_view_dark(const struct weft_view *v);
/* A light-theme colour in theme `dark` (0: unchanged). */
void weft_view_theme_rgb(int dark, const double in[3], double out[3]);

/*
 * Bookmarks: flags a person drops at moments (B in the viewers), each
 * with a note ("" or NULL: none), kept in time order (two at one time in
 * the order they came), at most 1000; drawn as a line down the picture
 * and a flag on the ruler with its number and note; kept in the view's
 * state.  Add returns the bookmark's index, or -ENOMEM, -ENOSPC.
 */
int weft_view_add_bookmark(struct weft_view *v, int64_t t, const char *note);
uint32_t weft_view_bookmarks(const struct weft_view *v);
/* Bookmark i's time (and its note in *note, when note is not NULL). */
int64_t weft_view_bookmark(const struct weft_view *v, uint32_t i,
			   const char **note);
void weft_view_remove_bookmark(struct weft_view *v, uint32_t i);
void weft_view_clear_bookmarks(struct weft_view *v);
/* Centres the view on bookmark i, keeping the zoom. */
void weft_view_go_to_bookmark(struct weft_view *v, uint32_t i);
/* The next bookmark after the view's centre (dir > 0) or the previous
 * one before it (dir < 0), round; centred on.  Returns its index, or -1
 * when there is none. */
int weft_view_next_bookmark(struct weft_view *v, int dir);

/*
 * The view's state as one line, for a person to hand on (the HTML
 * viewer's URL fragment, `--view STATE` of GTK and `weft render`, V in
 * both viewers): "r=T0,T1" the visible range in ns from the trace's
 * start, then as they apply "&m=T0,T1" the measured range, "&sel=N" the
 * selected thread, "&chain=N" the thread whose causal chain is
 * highlighted, "&depth=N", "&only=1" only the chain laid out, "&path=N"
 * the critical path's thread, "&q=TEXT" the search (%XX-escaped),
 * "&fold=P,P" the collapsed processes, "&hide=K,K" the hidden counters
 * or "&counters=0" none shown, "&b=T:NOTE,T:NOTE" the bookmarks (T in
 * ns from the trace's start, NOTE %XX-escaped, maybe empty).  N is a thread's index in
 * weft_model_threads() (the same for the same trace), P a process's in
 * weft_model_processes(), K a counter's.  Writes at most `cap` bytes,
 * NUL included; returns the whole length.
 */
size_t weft_view_state(const struct weft_view *v, char *buf, size_t cap);
/* Sets the view to a state (a leading '#' skipped): what it leaves out
 * as a new view has it (nothing selected, every group open, every
 * counter shown, no bookmark; the range as it is).  Returns 0, or -EINVAL for a state
 * it cannot read, with why in `err` (and the view unchanged). */
int weft_view_set_state(struct weft_view *v, const char *state, char *err,
			size_t errcap);

/* Draws the view.  Returns how many primitives it drew. */
long weft_view_render(struct weft_view *v, const struct weft_canvas *c);

/* Row of a thread (for tests), or -1 if not laid out. */
int weft_view_row(const struct weft_view *v, uint32_t thread);
/* Number of rows laid out. */
int weft_view_rows(const struct weft_view *v);

#endif
