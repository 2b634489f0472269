/* SPDX-License-Identifier: MIT */
/*
 * view.c - a view's state: the visible time range (zoom, pan, fit), the
 * vertical focus and the frame's geometry, search, selection, counters
 * shown.
 *
 * Vertical focus + context: when the rows do not all fit, a band of full
 * rows around the focus row is drawn, and the rows above and below it are
 * squeezed into the rest of the height (see view.h).  Squeezed rows are
 * drawn as thin lines: no runs, labels, spans or notes.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view-internal.h"
#include "weft/stats.h"
#include "weft/path.h"
#include "common/grow.h"

static int contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < n && hay[i] &&
		       tolower((unsigned char)hay[i]) ==
			       tolower((unsigned char)needle[i]))
			i++;
		if (i == n)
			return 1;
	}
	return !n;
}

/* Marks the matches of the search among threads [from, nthreads): its
 * title, its kind, its failure message, any label it had and any note on
 * it. */
uint32_t weft__match(struct weft_view *v, uint32_t from)
{
	uint32_t hits = 0;
	char title[256];
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(v->m, &nth);
	for (uint32_t i = from; i < v->rows.nthreads; i++) {
		v->search.hlm[i] = 0;
		if (!v->search.query || v->rows.row[i] < 0)
			continue;
		weft_model_title(v->m, i, title, sizeof title);
		if (contains_ci(title, v->search.query) ||
		    (th[i].kind &&
		     contains_ci(weft_model_name(v->m, th[i].kind),
				 v->search.query)) ||
		    (th[i].message != WEFT_NONE &&
		     contains_ci(weft_model_string(v->m, th[i].message),
				 v->search.query))) {
			v->search.hlm[i] = 1;
			hits++;
		}
	}
	uint32_t nl;
	const struct weft_label *l = weft_model_labels(v->m, &nl);
	for (uint32_t k = 0; v->search.query && k < nl; k++) {
		uint32_t i = l[k].thread;
		if (i < from || i >= v->rows.nthreads || v->search.hlm[i] ||
		    v->rows.row[i] < 0)
			continue;
		if (contains_ci(weft_model_string(v->m, l[k].text),
				v->search.query)) {
			v->search.hlm[i] = 1;
			hits++;
		}
	}
	v->search.nhits = hits + (from ? v->search.nhits : 0);
	return hits;
}

struct weft_view *weft_view_new(const struct weft_model *m, double w, double h)
{
	struct weft_view *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->m = m;
	v->ctr.shown = 1;
	v->ptr.x = -1;
	v->sel.selected = WEFT_NONE;
	v->sel.chained = WEFT_NONE;
	v->crit.thread = WEFT_NONE;
	v->sel.depth = WEFT_CHAIN_ALL;
	v->ruler.pointer_x = -1;
	weft_view_resize(v, w, h);
	weft__relayout(v, 1);
	if (!v->rows.row || !v->search.hlm || !v->sel.chm || !v->ix.all.off ||
	    !v->ix.rroff || !v->ix.notes) {
		weft_view_free(v);
		return NULL;
	}
	weft_view_fit(v);
	return v;
}

void weft_view_free(struct weft_view *v)
{
	if (!v)
		return;
	weft_view_clear_bookmarks(v);
	free(v->bm.at);
	weft_summary_free(v->range.sum);
	weft_layout_free(v->rows.lay);
	for (uint32_t i = 0; i < v->rows.nglay; i++)
		weft_layout_free(v->rows.glay[i]);
	free(v->rows.glay);
	free(v->rows.grow);
	free(v->rows.hdr_lane);
	free(v->rows.rtop);
	free(v->rows.collapsed);
	free(v->rows.plane);
	free(v->rows.pt0);
	free(v->rows.pt1);
	free(v->rows.lproc);
	free(v->rows.loff);
	free(v->rows.ltop);
	free(v->rows.hdr_tw);
	free(v->rows.end);
	weft__tset_free(&v->ix.all);
	weft__tset_free(&v->ix.bad);
	weft__tset_free(&v->ix.hl);
	weft__tset_free(&v->ix.chain);
	free(v->ix.rruns);
	free(v->ix.rrun_t0);
	free(v->ix.rrun_t1);
	free(v->ix.ph_t1);
	free(v->ix.arr_tf);
	free(v->fr.mboxes);
	free(v->ix.arr_rf);
	free(v->ix.rroff);
	free(v->ix.notes);
	free(v->ix.ph_ix);
	free(v->ix.ph_off);
	free(v->ix.rsp);
	free(v->ix.arr_ix);
	free(v->ix.arr_off);
	free(v->ix.arr_t);
	free(v->ix.rspoff);
	free(v->ix.rsp_max);
	free(v->ix.rsp_t0);
	free(v->ix.rsp_t1);
	free(v->ix.rsp_d);
	for (int i = 0; i < 2; i++) {
		free(v->ix.iv[i].ord);
		free(v->ix.iv[i].pmax);
		free(v->ix.iv[i].t0);
		free(v->ix.iv[i].t1);
		free(v->ix.iv[i].cum);
	}
	free(v->search.hlm);
	free(v->sel.chm);
	weft_path_release(v->crit.path);
	free(v->crit.path);
	free(v->search.query);
	free(v->ctr.off);
	free(v->fr.cover);
	free(v->fr.stamp);
	free(v->fr.thru);
	free(v->fr.seen);
	free(v->fr.acov);
	free(v->fr.acount);
	free(v->fr.bcov);
	free(v->fr.bq);
	free(v->fr.marks);
	free(v->fr.cells);
	free(v->fr.clines);
	free(v->fr.pbar);
	free(v->fr.maskbuf);
	free(v->ix.psum);
	free(v->ix.occ);
	free(v->fr.ad);
	free(v->fr.ad2);
	free(v);
}

void weft_view_model_changed(struct weft_view *v)
{
	int64_t a = v->time.t0, b = v->time.t1;
	int fit = v->time.t0 <= v->time.tmin && v->time.t1 >= v->time.tmax;
	weft__relayout(v, 0);
	weft_model_range(v->m, &v->time.tmin, &v->time.tmax);
	if (fit) /* it was showing everything: follow the trace */
		weft_view_fit(v);
	else
		weft_view_set_range(v, a, b);
}

int weft_view_row(const struct weft_view *v, uint32_t t)
{
	return t < v->rows.nthreads ? v->rows.row[t] : -1;
}

int weft_view_rows(const struct weft_view *v)
{
	return v->rows.nrows;
}

/* ------------------------------------------------------------ processes */

int weft_view_header_row(const struct weft_view *v, uint32_t process)
{
	if (!v->rows.hdr_lane || process >= v->rows.nplane ||
	    v->rows.plane[process] < 0 ||
	    (uint32_t)v->rows.plane[process] >= v->rows.nlanes)
		return -1;
	return v->rows.ltop[v->rows.plane[process]];
}

/* Where a process's header band is drawn across, clipped to the picture
 * (at least HDR_MIN wide); 0 when it is out of sight. */
int weft__header_span(const struct weft_view *v, uint32_t p, double *x0,
		      double *x1)
{
	double a = xof(v, v->rows.pt0[p]);
	double b = v->rows.pt1[p] == INT64_MAX ? v->geo.w
					       : xof(v, v->rows.pt1[p]);
	if (a < 0)
		a = 0;
	if (b > v->geo.w)
		b = v->geo.w;
	if (b - a < HDR_MIN)
		b = a + HDR_MIN;
	*x0 = a;
	*x1 = b;
	return b > 0 && a < v->geo.w;
}

double weft_view_header_x(struct weft_view *v, uint32_t process)
{
	if (weft_view_header_row(v, process) < 0)
		return -1;
	weft__geometry(v);
	double x0, x1;
	if (!weft__header_span(v, process, &x0, &x1))
		return -1;
	/* its triangle, or the middle of a band too narrow for one */
	double x = (x0 < LEFT ? LEFT : x0) + 4;
	return x < x1 ? x : (x0 + x1) / 2;
}

uint32_t weft_view_header_at(struct weft_view *v, double x, double y)
{
	if (!v->rows.hdr_lane || !v->rows.nrows || y < TOP)
		return WEFT_NONE;
	weft__geometry(v);
	int r = row_at(v, y);
	double h = row_h(v, r);
	if (y < yof(v, r) - h / 2 - 1 || y > yof(v, r) + h / 2 + 1)
		return WEFT_NONE;
	int32_t l = v->rows.hdr_lane[r];
	if (l < 0)
		return WEFT_NONE;
	/* the last group of the lane that starts at or left of x (they
	 * are in time order), if its band reaches x, or its text as last
	 * drawn (on past the band, up to the next one's) */
	uint32_t lo = v->rows.loff[l], hi = v->rows.loff[l + 1];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		double x0, x1;
		weft__header_span(v, v->rows.lproc[mid], &x0, &x1);
		if (x0 <= x + 1)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == v->rows.loff[l])
		return WEFT_NONE;
	uint32_t p = v->rows.lproc[lo - 1];
	double x0, x1, n0 = v->geo.w, n1;
	weft__header_span(v, p, &x0, &x1);
	if (lo < v->rows.loff[l + 1])
		weft__header_span(v, v->rows.lproc[lo], &n0, &n1);
	double text = (x0 < LEFT ? LEFT : x0) + 12 + v->rows.hdr_tw[p];
	if (text > n0 - 2)
		text = n0 - 2;
	return x <= x1 + 1 || x <= text ? p : WEFT_NONE;
}

int weft_view_collapsed(const struct weft_view *v, uint32_t process)
{
	return process < v->rows.nglay && v->rows.collapsed[process];
}

void weft_view_collapse(struct weft_view *v, uint32_t process, int on)
{
	if (process >= v->rows.nglay || !v->rows.collapsed[process] == !on)
		return;
	v->rows.collapsed[process] = on != 0;
	weft__relayout(v, 1);
}

/* ------------------------------------------------------------- geometry */

/* The pixels a nanosecond takes, and back, for the range and width. */
void weft__scale(struct weft_view *v)
{
	double span = (double)(v->time.t1 - v->time.t0);
	v->time.px_per_ns = span > 0 ? plot_w(v) / span : 0;
	v->time.ns_per_px = span / plot_w(v);
}

void weft_view_resize(struct weft_view *v, double w, double h)
{
	v->geo.w = w > 50 ? w : 50;
	v->geo.h = h > 50 ? h : 50;
	if (v->geo.w > 16384)
		v->geo.w = 16384;
	if (v->geo.h > 16384)
		v->geo.h = 16384;
	weft__scale(v);
}

void weft_view_set_range(struct weft_view *v, int64_t t0, int64_t t1)
{
	/* Within twice the model's range of times: any two still subtract
	 * without overflow, however far one pans or zooms out. */
	const int64_t lim = 2 * WEFT_MODEL_T_MAX;
	t0 = t0 < -lim ? -lim : t0 > lim - 1000 ? lim - 1000 : t0;
	t1 = t1 > lim ? lim : t1;
	if (t1 <= t0)
		t1 = t0 + 1000;
	v->time.t0 = t0;
	v->time.t1 = t1;
	weft__scale(v);
}

/* From the trace's start (never a negative time at the left: the
 * picture's margin keeps the first event off the edge) to a little past
 * its end (where pending threads' marks and a never-resolved line's
 * words go). */
void weft_view_fit(struct weft_view *v)
{
	weft_model_range(v->m, &v->time.tmin, &v->time.tmax);
	int64_t span = v->time.tmax - v->time.tmin;
	int64_t pad = span / 50 + 1;
	weft_view_set_range(v, v->time.tmin, v->time.tmax + pad);
}

void weft_view_range(const struct weft_view *v, int64_t *t0, int64_t *t1)
{
	*t0 = v->time.t0;
	*t1 = v->time.t1;
}

int weft__any_counter(const struct weft_view *v)
{
	uint32_t n;
	weft_model_counters(v->m, &n);
	if (!v->ctr.shown)
		return 0;
	for (uint32_t k = 0; k < n; k++)
		if (k >= v->ctr.noff || !v->ctr.off[k])
			return 1;
	return 0;
}

void weft_view_keep_counter_band(struct weft_view *v, int on)
{
	v->ctr.keep_band = on != 0;
}

/* The frame's vertical geometry: full band and squeezed rows. */
void weft__geometry(struct weft_view *v)
{
	v->geo.bottom =
		v->geo.h - GRID_H -
		(weft__any_counter(v) || v->ctr.keep_band ? COUNTERS_H : 0);
	double a = v->geo.bottom - TOP;
	int n = v->rows.nrows;
	if (a < ROW_H)
		a = ROW_H;
	if (n * ROW_H <= a) {
		v->geo.fa = 0;
		v->geo.fk = n;
		v->geo.hup = v->geo.hu = v->geo.hd = 0;
		return;
	}
	int k = (int)(a * FOCUS_SHARE / ROW_H);
	k = k < 1 ? 1 : k > n ? n : k;
	int fa = v->geo.focus - k / 2;
	fa = fa < 0 ? 0 : fa > n - k ? n - k : fa;
	int above = fa, below = n - fa - k;
	double ctx = a - k * ROW_H;
	v->geo.fa = fa;
	v->geo.fk = k;
	v->geo.hup = above + below ? ctx * above / (above + below) : 0;
	v->geo.hu = above ? v->geo.hup / above : 0;
	v->geo.hd = below ? (ctx - v->geo.hup) / below : 0;
}

void weft_view_set_focus(struct weft_view *v, int row)
{
	v->geo.focus = row < 0		      ? 0
		       : row >= v->rows.nrows ? v->rows.nrows - 1
					      : row;
	if (v->geo.focus < 0)
		v->geo.focus = 0;
}

int weft_view_focus(const struct weft_view *v)
{
	return v->geo.focus;
}

double weft_view_thread_y(struct weft_view *v, uint32_t t, double *rh)
{
	return weft_view_row_y(v, weft_view_row(v, t), rh);
}

double weft_view_row_y(struct weft_view *v, int r, double *rh)
{
	if (r < 0 || r >= v->rows.nrows)
		return -1;
	weft__geometry(v);
	if (rh)
		*rh = row_h(v, r);
	return yof(v, r);
}

void weft_view_zoom(struct weft_view *v, double factor, double x)
{
	if (factor <= 0)
		return;
	double span = (double)(v->time.t1 - v->time.t0);
	double at = (double)v->time.t0 + (x - LEFT) / plot_w(v) * span;
	double ns = span / factor;
	if (ns < 100)
		ns = 100; /* 100 ns across the window at most */
	if (ns > 4e18)
		ns = 4e18;
	double left = at - (x - LEFT) / plot_w(v) * ns;
	weft_view_set_range(v, clamp_time(left), clamp_time(left + ns));
}

void weft_view_pan(struct weft_view *v, double dx, double dy)
{
	double d = dx * (double)(v->time.t1 - v->time.t0) / plot_w(v);
	weft_view_set_range(v, clamp_time((double)v->time.t0 - d),
			    clamp_time((double)v->time.t1 - d));
	if (dy) {
		/* dragging down brings the rows above into focus */
		v->geo.drag_rows -= dy / ROW_H;
		int rows = (int)v->geo.drag_rows;
		v->geo.drag_rows -= rows;
		weft_view_set_focus(v, v->geo.focus + rows);
	}
}

/* ------------------------------------------------------------- interaction */

uint32_t weft_view_search(struct weft_view *v, const char *text)
{
	free(v->search.query);
	v->search.query = text && *text ? strdup(text) : NULL;
	v->search.marked = 0;
	uint32_t hits = weft__match(v, 0);
	weft__tset_build(v, &v->ix.hl, v->search.hlm, NULL);
	return hits;
}

uint32_t weft_view_matches(const struct weft_view *v)
{
	return v->search.query || v->search.marked ? v->search.nhits : 0;
}

uint32_t weft_view_mark(struct weft_view *v, const uint32_t *threads,
			uint32_t n)
{
	free(v->search.query);
	v->search.query = NULL;
	memset(v->search.hlm, 0, v->rows.nthreads);
	uint32_t hits = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t t = threads[i];
		if (t < v->rows.nthreads && v->rows.row[t] >= 0 &&
		    !v->search.hlm[t]) {
			v->search.hlm[t] = 1;
			hits++;
		}
	}
	v->search.nhits = hits;
	v->search.marked = hits > 0;
	weft__tset_build(v, &v->ix.hl, v->search.hlm, NULL);
	return hits;
}

/* The matches in the order of their creation (then their index): the
 * next one after the selected thread, or the previous one, round. */
void weft_view_go_to(struct weft_view *v, uint32_t t)
{
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(v->m, &nth);
	if (t >= v->rows.nthreads || t >= nth)
		return;
	weft_view_select(v, t);
	/* zoomed to its lifetime (of a pending one: to its last mention),
	 * with a fifth of it either side */
	int64_t t0 = th[t].t_create, t1 = th[t].t_end;
	if (t1 <= t0)
		t1 = t0 + 1000;
	int64_t pad = (t1 - t0) / 5 + 100;
	weft_view_set_range(v, t0 - pad, t1 + pad);
	/* (a thread not laid out, "only the chain" hiding it: row -1, the
	 * focus stays) */
	int row = weft_view_row(v, t);
	if (row >= 0)
		weft_view_set_focus(v, row);
}

uint32_t weft_view_next_match(struct weft_view *v, int dir)
{
	if (!v->search.query && !v->search.marked)
		return WEFT_NONE;
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(v->m, &nth);
	uint32_t cur = v->sel.selected;
	uint32_t best = WEFT_NONE, wrap = WEFT_NONE;
#define BEFORE(a, b)                                                           \
	(th[a].t_create < th[b].t_create ||                                    \
	 (th[a].t_create == th[b].t_create && (a) < (b)))
	for (uint32_t i = 0; i < v->rows.nthreads; i++) {
		if (!v->search.hlm[i] || i == cur)
			continue;
		/* the first beyond the current one, and the first of all
		 * (to go round) */
		int beyond = cur == WEFT_NONE ||
			     (dir > 0 ? BEFORE(cur, i) : BEFORE(i, cur));
		if (beyond && (best == WEFT_NONE ||
			       (dir > 0 ? BEFORE(i, best) : BEFORE(best, i))))
			best = i;
		if (wrap == WEFT_NONE ||
		    (dir > 0 ? BEFORE(i, wrap) : BEFORE(wrap, i)))
			wrap = i;
	}
#undef BEFORE
	uint32_t t = best != WEFT_NONE ? best : wrap;
	if (t == WEFT_NONE)
		return cur != WEFT_NONE && v->search.hlm[cur] ? cur : WEFT_NONE;
	weft_view_go_to(v, t);
	return t;
}

void weft_view_select(struct weft_view *v, uint32_t t)
{
	v->sel.selected = t < v->rows.nthreads ? t : WEFT_NONE;
}

uint32_t weft_view_selected(const struct weft_view *v)
{
	return v->sel.selected;
}

size_t weft_view_describe(const struct weft_view *v, uint32_t t, char *buf,
			  size_t cap)
{
	size_t n = weft_model_describe_head(v->m, t, buf, cap);
	if (!weft_view_in_chain(v, t))
		return n;
	const char *what = v->sel.chm[t] & WEFT_CHAIN_SUBJECT ? "its"
			   : v->sel.chm[t] & WEFT_CHAIN_HUB   ? "a hub of the"
							      : "in the";
	int k = snprintf(n < cap ? buf + n : NULL, n < cap ? cap - n : 0,
			 "\n%s causal chain: %u threads (highlighted)", what,
			 v->sel.nchain);
	return n + (k > 0 ? (size_t)k : 0);
}

int weft_view_set_pointer(struct weft_view *v, double x, double y)
{
	/* the ruler: anywhere over the picture (NaN: away) */
	double rx = x >= 0 && x <= v->geo.w ? x : -1;
	int ruler = rx != v->ruler.pointer_x;
	v->ruler.pointer_x = rx;
	/* the counters: over the plot */
	if (!(x >= LEFT && x <= v->geo.w - LEFT))
		x = -1;
	int was = v->ptr.x >= 0, is = x >= 0;
	int moved = x != v->ptr.x;
	v->ptr.x = x;
	v->ptr.y = y;
	return ruler || ((was || is) && moved && weft__any_counter(v));
}

void weft_view_show_counters(struct weft_view *v, int on)
{
	v->ctr.shown = on;
}

void weft_view_show_counter(struct weft_view *v, uint32_t k, int on)
{
	if (k >= v->ctr.noff) {
		uint32_t was = v->ctr.noff;
		if (weft__grow32(&v->ctr.off, &v->ctr.noff, (size_t)k + 1, 1,
				 16))
			return;
		memset(v->ctr.off + was, 0, v->ctr.noff - was);
	}
	v->ctr.off[k] = !on;
}

int weft_view_counter_shown(const struct weft_view *v, uint32_t k)
{
	return v->ctr.shown && (k >= v->ctr.noff || !v->ctr.off[k]);
}
