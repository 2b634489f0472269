/* SPDX-License-Identifier: MIT */
/*
 * view-internal.h - the renderer's private parts: the view's state, the
 * frame's geometry, the pen the draw passes share, and what each file of
 * src/render gives the others.  Not installed; front ends use view.h.
 *
 *   view.c           view state: zoom, pan, focus, geometry, search
 *   rows.c           layout: rows, and the per-row indexes frames use
 *   pick.c           the thread under a pixel
 *   chain.c          the causal chain and "only connected"
 *   path.c           a thread's critical path, drawn and said
 *   coverage.c       which pixel columns a pass has drawn (level of detail)
 *   draw.c           a frame: the passes back to front, the grid
 *   draw-bands.c     idle periods and pauses
 *   draw-threads.c   thread lines, runs, spans, loop phases
 *   draw-arrows.c    arrows by kind
 *   draw-text.c      labels and notes
 *   draw-counters.c  counters
 *   hover.c          what the pointer is over: a thread's tooltip
 *   draw-ruler.c     the time ruler, the pointer's time, a measured range
 *   range.c          the measured range's summary (the summary panel)
 *   pair.c           two runs side by side (pair.h): two views, one time
 *                    scale, linked selection, the first divergence
 *   keys.c           the viewers' one key table and its help (keys.h)
 */
#ifndef WEFT_VIEW_INTERNAL_H
#define WEFT_VIEW_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "view.h"

#define ROW_H 26.0
#define RULER_H 20.0 /* the time ruler, along the top */
/* the top of the rows: under the ruler, with room for the highlights
 * above the first */
#define TOP (RULER_H + 14.0)
#define LEFT 8.0
#define COUNTERS_H 70.0
#define COUNTER_BG 0.85	 /* grey of the counters' band */
#define COUNTER_BOX 0.97 /* of the box under a counter's text */
#define GRID_H 16.0
#define FONT 11.0
#define FOCUS_SHARE 0.7 /* of the height, for full rows, when all do not fit */
#define HDR_MIN 3.0	/* the narrowest a process's header band is drawn */
#define FULL 12.0	/* rows at least this tall are drawn in full */
#define ARROW_FADE 6000.0 /* px: arrows this long are invisible */
#define MAX_MARKS 8192	  /* pending-at-end marks per frame */
#define MAX_CELLS 65536	  /* density columns per frame */
#define MAX_CLINES 32768  /* creation lines per pass */
#define OCC_BUCKETS 8192  /* of a row's occupancy bitmap */
#define OCC_WORDS (OCC_BUCKETS / 64)
#define OCC_MAX_BYTES (32u << 20) /* beyond (many rows): no bitmaps */
#define MAX_CONTEXT 4096 /* a chain this big: no arrows to squeezed rows */

/* Threads grouped by row, in time order within a row, with their
 * starts and ends (as drawn: a should-resolve thread that never resolved
 * ends at INT64_MAX) side by side, for searches that stay in cache. */
struct tset {
	uint32_t *ix;
	int64_t *t0, *t1;
	int32_t *prow; /* `all` only: the creator's row for a creation line
			    (-1: none), and whether it is pending at the end
			    (a mark where it was last seen) */
	uint8_t *pend;
	uint32_t *off; /* nrows + 1 */
	uint32_t n;
};

/* Intervals by start, with the running maximum of their ends. */
struct ivindex {
	uint32_t *ord;
	int64_t *pmax;
	int64_t *t0, *t1; /* in that order, side by side */
	int64_t *cum;	  /* cum[i]: the time intervals 0..i-1 cover, once
			     where they overlap (n + 1 of them) */
	uint32_t n;
};

struct adraw;
struct pbar;

struct bookmark { /* bookmarks.c */
	int64_t t;
	char *note; /* "" when none */
};

/* The view's state, grouped by the code that owns each part: the file
 * named over a group is the one that sets it (others only read it, but
 * where said).  Each group's struct names what it holds; HACKING.md
 * ("Add to the view's state") lists them. */
struct weft_view {
	const struct weft_model *m;
	int dark; /* the dark theme (weft_view_set_dark) */

	/* view.c: the time axis (zoom, pan, fit) */
	struct view_time {
		int64_t t0, t1;		     /* visible range */
		double px_per_ns, ns_per_px; /* its scale (weft__scale()) */
		int64_t tmin, tmax;	     /* the trace */
	} time;

	/* view.c: the window, the vertical focus (chain.c centres it on a
	 * selection), and this frame's geometry (weft__geometry()) */
	struct view_geo {
		double w, h;
		int focus;	    /* row at the centre of the full band */
		double drag_rows;   /* vertical drag not yet a whole row */
		double bottom;	    /* of the rows */
		int fa, fk;	    /* first full row, number of full rows */
		double hup, hu, hd; /* height above the band, row heights
				       above/below */
	} geo;

	/* rows.c: the layout, threads to rows */
	struct view_rows {
		struct weft_layout *lay;
		uint32_t nthreads;  /* threads known to the layout */
		const int32_t *row; /* per thread, -1: not laid out (the
				       layout's) */
		int64_t *end; /* per thread: end as drawn (never: INT64_MAX) */
		int nrows, top_rows;
		/* a run of several processes: each a group of rows under a
		 * header row, laid out apart (its own packed layout),
		 * collapsible; groups that do not overlap in time share
		 * rows, one after the other in a lane, whose first row
		 * holds their headers */
		int grouped;
		struct weft_layout **glay; /* per process, NULL: collapsed or
					      none */
		uint32_t nglay;
		int32_t *grow;	    /* per thread: its row */
		int32_t *hdr_lane;  /* per row: the lane whose headers it
				      holds, or -1 */
		uint8_t *rtop;	    /* per row: long-lived (top of a group
				      there) */
		uint8_t *collapsed; /* per process (set by view.c, state.c) */
		uint32_t ncollapsed;
		int32_t *plane; /* per process: its lane, or -1 (no group) */
		uint32_t nplane;
		int64_t *pt0, *pt1;	/* per process: the time its group spans
				       (pt1 INT64_MAX: it may go on, to the
				       right edge) */
		uint32_t *lproc, *loff; /* the processes of lane l, in time
					   order: lproc[loff[l] .. loff[l + 1]) */
		int32_t *ltop;		/* per lane: its header row */
		float *hdr_tw; /* per process: its header's text width, as
				  last drawn by draw.c (0: not yet) */
		uint32_t nlanes;
	} rows;

	/* rows.c: the per-row indexes the draw passes search, built with
	 * the layout (chain.c rebuilds `chain` when the chain changes) */
	struct view_index {
		struct tset all, bad, hl, chain;
		uint64_t *occ; /* per row, OCC_BUCKETS bits over [occ_t0,
				  +occ_span]: a thread there (squeezed rows,
				  zoomed out) */
		int64_t occ_t0, occ_span;
		int64_t *psum; /* per row of `all`: prefix sums of lives drawn
				  (all.off[r] + r .. all.off[r + 1] + r) */
		uint32_t *rruns, *rroff;    /* runs by row, in time order */
		int64_t *rrun_t0, *rrun_t1; /* their times, side by side */
		uint32_t *notes, nnotes;    /* indexes of notes in the labels */
		struct ivindex iv[2];	    /* idle, pause */
		uint32_t *rsp, *rspoff;	    /* spans by row, by start */
		uint32_t *arr_ix, *arr_off; /* arrows by the row they land on
					       and kind (row * KINDS + kind),
					       by time */
		int64_t *arr_t;		    /* their times */
		int64_t *arr_tf;	    /* where each is drawn from (a read:
					       when its source ended) */
		int32_t *arr_rf;	    /* the row it comes from */
		int64_t *rsp_max;	    /* along each row: the latest end so
					       far */
		int64_t *rsp_t0, *rsp_t1;   /* the spans' times, side by side */
		uint8_t *rsp_d;		    /* their depths (past 3: 3) */
		uint32_t *ph_ix, *ph_off;   /* loop phases by stream, in time
					       order */
		int64_t *ph_t1;		    /* their ends, side by side */
		uint32_t ph_nst;
	} ix;

	/* view.c: the search (weft_view_search, weft_view_mark; rows.c
	 * grows hlm with the threads) */
	struct view_search {
		uint8_t *hlm;	/* search matches */
		uint32_t nhits; /* how many */
		char *query;	/* the search, re-applied to new threads */
		int marked;	/* hlm holds a set given (weft_view_mark), no
				   search */
	} search;

	/* chain.c: the selection (view.c's weft_view_select) and its
	 * causal chain (rows.c grows chm with the threads) */
	struct view_sel {
		uint32_t selected, chained, nchain;
		uint8_t *chm; /* the causal chain: enum weft_chain_flags */
		int depth;    /* of the chain: 1, 2, 3... WEFT_CHAIN_ALL */
		int only_chain;
	} sel;

	/* path.c: the critical path highlighted */
	struct view_crit {
		struct weft_path *path;
		uint32_t thread, threads; /* its thread (WEFT_NONE: none), how
					     many it goes through */
	} crit;

	/* bookmarks.c: the bookmarks, in time order */
	struct view_bookmarks {
		struct bookmark *at;
		uint32_t n, cap;
	} bm;

	/* view.c: the counters' band, which counters it shows */
	struct view_counters {
		int shown;
		int keep_band; /* (weft_view_keep_counter_band) */
		uint8_t *off;  /* per counter: hidden */
		uint32_t noff;
	} ctr;

	/* draw-ruler.c: the pointer's time and the measured range (set
	 * through view.c's weft_view_set_pointer, weft_view_measure) */
	struct view_ruler {
		double pointer_x;     /* where the pointer is (< 0: away) */
		int64_t meas0, meas1; /* the measured range (equal: none) */
		int64_t meas_anchor;  /* where a measuring drag was pressed */
		int64_t step;	      /* of the last frame's ticks, ns */
	} ruler;

	/* view.c, for draw-counters.c: the pointer (x < 0: away), where
	 * the counters' values are said */
	struct view_ptr {
		double x, y;
	} ptr;

	/* range.c: the measured range's summary, and what it was of (the
	 * range, the model's sizes: a live trace grows) */
	struct view_range {
		struct weft_summary *sum;
		int64_t key[5];
	} range;

	/* coverage.c and the draw passes: per-frame scratch */
	struct view_frame {
		/* covered pixel columns per pixel row */
		int *cover;
		uint32_t *stamp;
		uint32_t *thru; /* per pixel row: == pass if a squeezed row
				   there is crossed from edge to edge by one
				   thread */
		int covw, covh;
		double cs, rs; /* pixels per cell across and down (>= 1: a
				  huge surface is covered in cells of several
				  pixels) */
		uint32_t pass;
		uint8_t *seen; /* arrows beyond the right edge: the columns
				  where one starts, this (row, kind) (==
				  seen_gen) */
		uint8_t seen_gen;
		int *acov;	 /* arrows: columns that have PER_COLUMN
				    (cov_*) */
		uint8_t *acount; /* arrows landed per column */
		float *bcov;	 /* per cell across: the share a band covers */
		uint8_t *bq;	 /* and its shade */
		double (*marks)[2];
		struct cell *cells;
		struct cline *clines;
		unsigned char *maskbuf; /* the frame's masks */
		size_t cmaskbuf;
		struct pbar *pbar; /* the frame's loop phases */
		size_t cpbar;
		struct mbox *mboxes; /* boxes of one colour gathered for a
					mask */
		size_t cmboxes;
		/* the frame's arrows, gathered then drawn by colour */
		struct adraw *ad, *ad2;
		size_t cad;
	} fr;
};

/* The pen: what the draw passes draw with (primitives counted). */
struct pen {
	const struct weft_canvas *c;
	long prims;
	double rgba[4]; /* the canvas's colour, when `known` (as asked,
			   before the theme) */
	int known;
	int dark; /* the dark theme: colours go through weft_view_theme_rgb() */
};

/* Sets the colour, unless it is set already: a back end may draw what it
 * gathered at each colour change.  The code says the light theme's
 * colours; the dark theme maps them here, all at one place. */
static inline void color(struct pen *p, double r, double g, double b, double a)
{
	if (p->known && p->rgba[0] == r && p->rgba[1] == g && p->rgba[2] == b &&
	    p->rgba[3] == a)
		return;
	if (p->dark) {
		double in[3] = {r, g, b}, out[3];
		weft_view_theme_rgb(1, in, out);
		p->c->color(p->c->ctx, out[0], out[1], out[2], a);
	} else
		p->c->color(p->c->ctx, r, g, b, a);
	p->rgba[0] = r;
	p->rgba[1] = g;
	p->rgba[2] = b;
	p->rgba[3] = a;
	p->known = 1;
}

/* A clip and its end; the end may restore an earlier colour (cairo). */
static inline void clip(struct pen *p, double x, double y, double w, double h)
{
	p->c->clip(p->c->ctx, x, y, w, h);
}

static inline void unclip(struct pen *p)
{
	p->c->unclip(p->c->ctx);
	p->known = 0;
}

static inline void line(struct pen *p, double x0, double y0, double x1,
			double y1)
{
	p->c->line(p->c->ctx, x0, y0, x1, y1);
	p->prims++;
}

static inline void rect(struct pen *p, double x, double y, double w, double h)
{
	p->c->rect(p->c->ctx, x, y, w, h);
	p->prims++;
}

static inline void text(struct pen *p, double x, double y, const char *s)
{
	p->c->text(p->c->ctx, x, y, FONT, s);
	p->prims++;
}

static inline void triangle(struct pen *p, double x0, double y0, double x1,
			    double y1, double x2, double y2)
{
	p->c->triangle(p->c->ctx, x0, y0, x1, y1, x2, y2);
	p->prims++;
}

/* lround() of a pixel coordinate, inline: the mask of a frame rounds
 * hundreds of thousands of box edges (half away from zero, as lround). */
static inline int px_round(double x)
{
	return x >= 0 ? (int)(x + 0.5) : -(int)(0.5 - x);
}

static inline int is_never(const struct weft_thread *t)
{
	return t->end == WEFT_END_PENDING &&
	       (t->flags & WEFT_THREAD_SHOULD_RESOLVE);
}

/* A time computed in floating point, as a time set_range() accepts. */
static inline int64_t clamp_time(double t)
{
	const double lim = 2.0 * (double)WEFT_MODEL_T_MAX;
	if (!(t > -lim)) /* and NaN */
		return -2 * WEFT_MODEL_T_MAX;
	if (t > lim)
		return 2 * WEFT_MODEL_T_MAX;
	return (int64_t)t;
}

static inline double plot_w(const struct weft_view *v)
{
	return v->geo.w - 2 * LEFT;
}

/* The pixel of time t (within +-1e6: off the surface either way). */
static inline double xof(const struct weft_view *v, int64_t t)
{
	double x = LEFT + (double)(t - v->time.t0) * v->time.px_per_ns;
	return x < -1e6 ? -1e6 : x > 1e6 ? 1e6 : x;
}

/* The time at pixel x. */
static inline int64_t tof(const struct weft_view *v, double x)
{
	return clamp_time((double)v->time.t0 + (x - LEFT) * v->time.ns_per_px);
}

static inline double yof(const struct weft_view *v, int row)
{
	if (row < v->geo.fa)
		return TOP + v->geo.hu * (row + 0.5);
	if (row < v->geo.fa + v->geo.fk)
		return TOP + v->geo.hup + ROW_H * (row - v->geo.fa + 0.5);
	return TOP + v->geo.hup + ROW_H * v->geo.fk +
	       v->geo.hd * (row - v->geo.fa - v->geo.fk + 0.5);
}

/* Whether row r holds long-lived threads (the top of the layout, or of
 * its process's group). */
static inline int is_top(const struct weft_view *v, int r)
{
	return v->rows.rtop ? v->rows.rtop[r] : r < v->rows.top_rows;
}

static inline double row_h(const struct weft_view *v, int row)
{
	return row < v->geo.fa		     ? v->geo.hu
	       : row < v->geo.fa + v->geo.fk ? ROW_H
					     : v->geo.hd;
}

/* The row drawn at pixel y (clamped to the rows). */
static inline int row_at(const struct weft_view *v, double y)
{
	double d = y - TOP;
	int r;
	if (d < v->geo.hup)
		r = v->geo.hu > 0 ? (int)(d / v->geo.hu) : 0;
	else if (d < v->geo.hup + ROW_H * v->geo.fk)
		r = v->geo.fa + (int)((d - v->geo.hup) / ROW_H);
	else
		r = v->geo.fa + v->geo.fk +
		    (v->geo.hd > 0
			     ? (int)((d - v->geo.hup - ROW_H * v->geo.fk) /
				     v->geo.hd)
			     : 0);
	return r < 0 ? 0 : r >= v->rows.nrows ? v->rows.nrows - 1 : r;
}

static inline int col(const struct weft_view *v, double x)
{
	return x < 0	      ? 0
	       : x > v->geo.w ? (int)(v->geo.w / v->fr.cs)
			      : (int)(x / v->fr.cs);
}

struct mpen;

enum pass_kind { P_HIGHLIGHT, P_LINE, P_BAD };

struct walk {
	struct weft_view *v;
	struct pen *p;
	const struct weft_thread *th;
	enum pass_kind kind;
	int full;     /* draw the rows in full (1) or the squeezed ones (0) */
	double right; /* x of the end of the trace */
	double pad;   /* highlights: margin */
	/* a box not drawn yet, that the next one may extend */
	double sx0, sx1, sy, sh;
	int seg;
	double (*marks)[2];
	int nmarks;
	double text_x;	    /* failures' messages: room from here on */
	struct cell *cells; /* density columns of full rows */
	int ncells;
	struct cline *clines; /* creation lines of the pass */
	struct mpen *mp;      /* where boxes go (NULL: the canvas) */
	int nclines;
};

/* A creation line, drawn once the pass knows how many its row sends. */
struct cline {
	float x, y, h, w;
	int32_t prow;
};

/* A pixel column of sub-pixel threads on a full row: its shade. */
struct cell {
	float x, y;
	uint8_t q;
};

/* rows.c: the layout and the per-row indexes */
void weft__tset_free(struct tset *s);
int weft__tset_build(struct weft_view *v, struct tset *s, const uint8_t *mark,
		     int (*pred)(const struct weft_thread *));
uint32_t weft__ivindex_from(const struct ivindex *x, uint32_t lo, int64_t t);
/* bookmarks.c: their lines and flags, over the picture */
void weft__draw_bookmarks(struct weft_view *v, struct pen *p);
/* The time the index's intervals cover up to t (their union before t):
 * exact, in O(log n) from *i, the index of the last call (0 at first; a
 * walk to the right moves it little). */
int64_t weft__ivindex_covered(const struct ivindex *x, int64_t t, uint32_t *i);
void weft__relayout(struct weft_view *v, int again);

/* view.c: view state, the frame's geometry, search */
uint32_t weft__match(struct weft_view *v, uint32_t from);
int weft__any_counter(const struct weft_view *v);
void weft__geometry(struct weft_view *v);
void weft__scale(struct weft_view *v);

/* pick.c: in a sorted array a, the first i of [lo, n) with a[i] >= t
 * (ge) or a[i] > t (gt), galloping from lo */
uint32_t weft__gallop(const int64_t *a, uint32_t lo, uint32_t n, int64_t t);
uint32_t weft__gallop_gt(const int64_t *a, uint32_t lo, uint32_t n, int64_t t);
/* the same, from a guess: the answer is most often about *d past lo (the
 * last search's distance, on a row walked column by column), which it
 * then sets */
uint32_t weft__gallop_near(const int64_t *a, uint32_t lo, uint32_t n, int64_t t,
			   uint32_t *d);

/* coverage.c: which pixel columns a pass has drawn */
int *weft__cov_row(struct weft_view *v, double y);
int weft__cov_take(int *r, int c0, int c1);
int weft__cov_full(int *r, int c0, int c1, int *next);
int weft__scratch(struct weft_view *v);
/* coverage.c: the frame's buffer for masks (canvas.h), at least `bytes`;
 * NULL when out of memory */
unsigned char *weft__mask_room(struct weft_view *v, size_t bytes);

/* Boxes of the current colour on whole pixels, gathered and drawn as one
 * mask where the canvas has masks (thousands of small boxes a frame cost
 * a canvas far more than one mask over what they cover), else drawn at
 * once.  A box is rounded to whole pixels (at least one). */
struct mbox {
	float x0, y0, x1, y1;
};
struct mpen {
	struct weft_view *v;
	struct pen *p;
	size_t n;
	int on;
};
void weft__mpen_begin(struct mpen *mp, struct weft_view *v, struct pen *p);
void weft__mpen_box(struct mpen *mp, double x, double y, double w, double h);
void weft__mpen_end(struct mpen *mp);

/* the draw passes, back to front (draw.c calls them) */
void weft__draw_bands(struct weft_view *v, struct pen *p);
void weft__walk_rows(struct walk *k, const struct tset *s);
void weft__box_flush(struct walk *k);
void weft__draw_density(struct walk *k);
int64_t weft__end_drawn(const struct weft_view *v, uint32_t t);
void weft__draw_runs(struct weft_view *v, struct pen *p);
void weft__draw_spans(struct weft_view *v, struct pen *p);
void weft__draw_phases(struct weft_view *v, struct pen *p);
void weft__draw_arrows(struct weft_view *v, struct pen *p,
		       const struct weft_thread *th);
void weft__draw_labels(struct weft_view *v, struct pen *p,
		       const struct weft_thread *th, double right);
void weft__draw_notes(struct weft_view *v, struct pen *p);
/* view.c: where process p's header band is drawn across (0: not in
 * sight) */
int weft__header_span(const struct weft_view *v, uint32_t p, double *x0,
		      double *x1);
/* A text from x, its baseline at y, cut to `room` pixels (with an
 * ellipsis); the width drawn, 0: none (no room for it). */
double weft__label_at(struct pen *p, double x, double y, double room,
		      const char *s);
void weft__draw_counters(struct weft_view *v, struct pen *p, double right);

/* path.c: the critical path, over the threads' lines */
void weft__draw_path(struct weft_view *v, struct pen *p);

/* draw-ruler.c: the ruler and its grid step; a measured range */
double weft__draw_ruler(struct weft_view *v, struct pen *p);
void weft__draw_measure(struct weft_view *v, struct pen *p);

/* draw.c: a duration for people ("850 ns", "12.5 us", "3.2 ms"). */
const char *weft__dur_str(char *buf, size_t cap, double ns);

#endif
