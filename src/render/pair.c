/* SPDX-License-Identifier: MIT */
/*
 * pair.c - two runs side by side (pair.h): each side's view drawn in its
 * half through a canvas that moves it down, one time scale kept by giving
 * the other side what one side shows at the same offset from its anchor,
 * the selection linked through the alignment, the first divergence
 * marked.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pair.h"
#include "view-internal.h"

struct weft_pair {
	const struct weft_model *m[2];
	struct weft_view *v[2];
	struct weft_align *al;
	struct weft_divergence d;
	char *name[2];
	int64_t anchor[2];
	int anchored; /* 0: at the starts, 1: at the divergence, 2: at a
			 thread */
	double w, h;
};

/* ------------------------------------------------------- a moved canvas */

/* A canvas that draws through another, `dy` pixels lower (a whole
 * number: masks are placed on whole pixels). */
struct moved {
	const struct weft_canvas *c;
	double dy;
};

static void m_color(void *x, double r, double g, double b, double a)
{
	struct moved *m = x;
	m->c->color(m->c->ctx, r, g, b, a);
}

static void m_line_width(void *x, double w)
{
	struct moved *m = x;
	m->c->line_width(m->c->ctx, w);
}

static void m_line(void *x, double x0, double y0, double x1, double y1)
{
	struct moved *m = x;
	m->c->line(m->c->ctx, x0, y0 + m->dy, x1, y1 + m->dy);
}

static void m_rect(void *x, double x0, double y0, double w, double h)
{
	struct moved *m = x;
	m->c->rect(m->c->ctx, x0, y0 + m->dy, w, h);
}

static void m_triangle(void *x, double x0, double y0, double x1, double y1,
		       double x2, double y2)
{
	struct moved *m = x;
	m->c->triangle(m->c->ctx, x0, y0 + m->dy, x1, y1 + m->dy, x2,
		       y2 + m->dy);
}

static void m_text(void *x, double x0, double y, double size, const char *s)
{
	struct moved *m = x;
	m->c->text(m->c->ctx, x0, y + m->dy, size, s);
}

static double m_text_width(void *x, double size, const char *s)
{
	struct moved *m = x;
	return m->c->text_width(m->c->ctx, size, s);
}

static void m_clip(void *x, double x0, double y, double w, double h)
{
	struct moved *m = x;
	m->c->clip(m->c->ctx, x0, y + m->dy, w, h);
}

static void m_unclip(void *x)
{
	struct moved *m = x;
	m->c->unclip(m->c->ctx);
}

static void m_flush(void *x)
{
	struct moved *m = x;
	if (m->c->flush)
		m->c->flush(m->c->ctx);
}

static void m_mask(void *x, int x0, int y, int w, int h,
		   const unsigned char *alpha, int stride)
{
	struct moved *m = x;
	m->c->mask(m->c->ctx, x0, y + (int)m->dy, w, h, alpha, stride);
}

static int m_shades(void *x, int x0, int y, int n, int h,
		    const unsigned char *q, int steps, double r, double g,
		    double b)
{
	struct moved *m = x;
	if (m->dy != (int)m->dy) /* (boxes off whole pixels: not the same) */
		return 0;
	return m->c->shades(m->c->ctx, x0, y + (int)m->dy, n, h, q, steps, r, g,
			    b);
}

/* ------------------------------------------------------------- the pair */

struct weft_pair *weft_pair_new(const struct weft_model *good,
				const struct weft_model *bad, const char *name0,
				const char *name1, double w, double h)
{
	struct weft_pair *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->m[0] = good;
	p->m[1] = bad;
	p->w = w;
	p->h = h;
	p->name[0] = strdup(name0 ? name0 : "");
	p->name[1] = strdup(name1 ? name1 : "");
	p->v[0] = weft_view_new(good, w, h / 2);
	p->v[1] = weft_view_new(bad, w, h / 2);
	if (!p->name[0] || !p->name[1] || !p->v[0] || !p->v[1] ||
	    weft_align_new(&p->al, good, bad, WEFT_DIFF_KEY_LABEL) ||
	    weft_diff_first(p->al, &p->d) < 0) {
		weft_pair_free(p);
		return NULL;
	}
	weft_pair_resize(p, w, h);
	weft_pair_anchor(p, 0, WEFT_NONE);
	weft_pair_fit(p);
	return p;
}

void weft_pair_free(struct weft_pair *p)
{
	if (!p)
		return;
	for (int s = 0; s < 2; s++) {
		weft_view_free(p->v[s]);
		free(p->name[s]);
	}
	weft_align_free(p->al);
	free(p);
}

struct weft_view *weft_pair_view(struct weft_pair *p, int side)
{
	return p->v[side != 0];
}

const struct weft_model *weft_pair_model(const struct weft_pair *p, int side)
{
	return p->m[side != 0];
}

const struct weft_align *weft_pair_align(const struct weft_pair *p)
{
	return p->al;
}

const struct weft_divergence *weft_pair_divergence(const struct weft_pair *p)
{
	return &p->d;
}

/* ------------------------------------------------------------- geometry */

double weft_pair_half(const struct weft_pair *p, int side)
{
	return side ? floor(p->h / 2) : 0;
}

double weft_pair_top(const struct weft_pair *p, int side)
{
	return weft_pair_half(p, side) + WEFT_PAIR_STRIP_H;
}

int weft_pair_side_at(const struct weft_pair *p, double y)
{
	return y >= weft_pair_half(p, 1);
}

void weft_pair_resize(struct weft_pair *p, double w, double h)
{
	p->w = w;
	p->h = h;
	double mid = weft_pair_half(p, 1);
	weft_view_resize(p->v[0], w, mid - WEFT_PAIR_STRIP_H);
	weft_view_resize(p->v[1], w, h - mid - WEFT_PAIR_STRIP_H);
}

/* ----------------------------------------------------------------- time */

int64_t weft_pair_anchor_t(const struct weft_pair *p, int side)
{
	return p->anchor[side != 0];
}

int weft_pair_anchor(struct weft_pair *p, int side, uint32_t thread)
{
	side = side != 0;
	if (thread == WEFT_NONE) {
		/* the first divergence, where both runs have a time for it;
		 * else the starts */
		int at = p->d.kind != WEFT_DIV_NONE && p->d.t[0] != INT64_MIN &&
			 p->d.t[1] != INT64_MIN;
		for (int s = 0; s < 2; s++) {
			int64_t t1;
			weft_model_range(p->m[s], &p->anchor[s], &t1);
			if (at)
				p->anchor[s] = p->d.t[s];
		}
		p->anchored = at;
		return 0;
	}
	uint32_t o = weft_pair_partner(p, side, thread), n[2];
	if (o == WEFT_NONE)
		return -1;
	const struct weft_thread *th[2] = {weft_model_threads(p->m[0], &n[0]),
					   weft_model_threads(p->m[1], &n[1])};
	p->anchor[side] = th[side][thread].t_create;
	p->anchor[!side] = th[!side][o].t_create;
	p->anchored = 2;
	weft_pair_sync(p, side);
	return 0;
}

void weft_pair_sync(struct weft_pair *p, int from)
{
	from = from != 0;
	int64_t t0, t1;
	weft_view_range(p->v[from], &t0, &t1);
	int64_t shift = p->anchor[!from] - p->anchor[from];
	weft_view_set_range(p->v[!from], t0 + shift, t1 + shift);
}

int weft_pair_anchored(const struct weft_pair *p)
{
	return p->anchored;
}

void weft_pair_show(struct weft_pair *p, int64_t t0, int64_t t1)
{
	int64_t a, b;
	weft_model_range(p->m[0], &a, &b);
	weft_view_set_range(p->v[0], a + t0, a + t1);
	weft_pair_sync(p, 0);
}

void weft_pair_set_range(struct weft_pair *p, int64_t t0, int64_t t1)
{
	weft_view_set_range(p->v[0], p->anchor[0] + t0, p->anchor[0] + t1);
	weft_pair_sync(p, 0);
}

void weft_pair_fit(struct weft_pair *p)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (int s = 0; s < 2; s++) {
		int64_t a, b;
		weft_view_fit(p->v[s]); /* (the view's own idea of the
					   trace's range, for its ruler) */
		weft_model_range(p->m[s], &a, &b);
		lo = a - p->anchor[s] < lo ? a - p->anchor[s] : lo;
		hi = b - p->anchor[s] > hi ? b - p->anchor[s] : hi;
	}
	int64_t pad = (hi - lo) / 50 + 1;
	weft_pair_set_range(p, lo, hi + pad); /* (as weft_view_fit) */
}

void weft_pair_zoom(struct weft_pair *p, double factor, double x)
{
	weft_view_zoom(p->v[0], factor, x);
	weft_pair_sync(p, 0);
}

void weft_pair_pan(struct weft_pair *p, double dx, double dy)
{
	weft_view_pan(p->v[0], dx, dy);
	weft_pair_sync(p, 0);
	if (dy)
		weft_view_pan(p->v[1], 0, dy);
}

/* ------------------------------------------------------------ selection */

uint32_t weft_pair_partner(const struct weft_pair *p, int side, uint32_t thread)
{
	uint32_t n;
	const uint32_t *map = weft_align_map(p->al, side != 0, &n);
	return thread < n ? map[thread] : WEFT_NONE;
}

uint32_t weft_pair_pick(struct weft_pair *p, double x, double y, int *side)
{
	int s = weft_pair_side_at(p, y);
	if (side)
		*side = s;
	double vy = y - weft_pair_top(p, s);
	return vy < 0 ? WEFT_NONE : weft_view_pick(p->v[s], x, vy);
}

uint32_t weft_pair_select(struct weft_pair *p, int side, uint32_t thread)
{
	side = side != 0;
	uint32_t o = thread == WEFT_NONE ? WEFT_NONE
					 : weft_pair_partner(p, side, thread);
	weft_view_select(p->v[side], thread);
	weft_view_select(p->v[!side], o);
	int row = o == WEFT_NONE ? -1 : weft_view_row(p->v[!side], o);
	if (row >= 0)
		weft_view_set_focus(p->v[!side], row);
	return o;
}

/* ----------------------------------------------------------- divergence */

/* A thread's title, with its kind when the title is its label. */
static const char *title(const struct weft_model *m, uint32_t t, char *buf,
			 size_t cap)
{
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(m, &n);
	weft_model_title(m, t, buf, cap);
	size_t l = strlen(buf);
	if (t < n && !(th[t].flags & WEFT_THREAD_ROOT) && th[t].kind &&
	    th[t].label != WEFT_NONE && l + 4 < cap)
		snprintf(buf + l, cap - l, " (%s)",
			 weft_model_name(m, th[t].kind));
	return buf;
}

static const char *end_word(int end)
{
	return end == WEFT_END_PENDING ? "is still pending at the end"
				       : weft_end_says(end);
}

size_t weft_pair_divergence_str(const struct weft_pair *p, char *buf,
				size_t cap)
{
	const struct weft_divergence *d = &p->d;
	static const char *side[2] = {"good", "bad"};
	char a[300], b[300];
	int n = 0;
	switch (d->kind) {
	case WEFT_DIV_NONE:
		n = snprintf(buf, cap, "same structure");
		break;
	case WEFT_DIV_ONLY: {
		int s = d->thread[0] == WEFT_NONE;
		n = snprintf(buf, cap,
			     "first divergence: %s exists in the %s run only",
			     title(p->m[s], d->thread[s], a, sizeof a),
			     side[s]);
		break;
	}
	case WEFT_DIV_END: {
		uint32_t n0, n1;
		const struct weft_thread *x = weft_model_threads(p->m[0], &n0),
					 *y = weft_model_threads(p->m[1], &n1);
		n = snprintf(buf, cap,
			     "first divergence: %s %s in good, and %s in bad",
			     title(p->m[0], d->thread[0], a, sizeof a),
			     end_word(x[d->thread[0]].end),
			     end_word(y[d->thread[1]].end));
		break;
	}
	case WEFT_DIV_ARROW: {
		int s = d->arrow[0] == WEFT_NONE;
		uint32_t na;
		const struct weft_arrow *x =
			&weft_model_arrows(p->m[s], &na)[d->arrow[s]];
		int rev = x->kind == WEFT_ARROW_READ ||
			  x->kind == WEFT_ARROW_READ_FAILED ||
			  x->kind == WEFT_ARROW_BECOME;
		uint32_t on = rev ? x->from : x->to,
			 act = rev ? x->to : x->from;
		n = snprintf(buf, cap,
			     "first divergence: in the %s run only, %s %s %s",
			     side[s], title(p->m[s], act, a, sizeof a),
			     weft_arrow_verb(x->kind),
			     title(p->m[s], on, b, sizeof b));
		break;
	}
	case WEFT_DIV_ORDER:
		n = snprintf(buf, cap,
			     "first divergence: a wait on %s and a wake-up of "
			     "it came in opposite orders",
			     title(p->m[0], d->thread[0], a, sizeof a));
		break;
	}
	return n > 0 ? (size_t)n : 0;
}

double weft_pair_divergence_x(const struct weft_pair *p, int side)
{
	side = side != 0;
	if (p->d.kind == WEFT_DIV_NONE || p->d.t[side] == INT64_MIN)
		return -1;
	double x = round(weft_view_x_of(p->v[side], p->d.t[side]));
	return x < 1 || x > p->w - 1 ? -1 : x;
}

/* -------------------------------------------------------------- drawing */

#define STRIP_FONT 12.0

/* The divergence in a half: its thread outlined, a line at its time. */
static void draw_divergence(struct weft_pair *p, const struct weft_canvas *c,
			    int s, double x)
{
	uint32_t t = p->d.thread[s], n;
	const struct weft_thread *th = weft_model_threads(p->m[s], &n);
	double top = weft_pair_top(p, s), rh;
	double bottom = s ? p->h : weft_pair_half(p, 1);
	c->color(c->ctx, 0.8, 0, 0.8, 1);
	double y = t < n ? weft_view_thread_y(p->v[s], t, &rh) : -1;
	if (y >= 0) {
		double x0 = weft_view_x_of(p->v[s], th[t].t_create) - 4;
		double x1 = weft_view_x_of(p->v[s], th[t].t_end) + 4;
		c->line_width(c->ctx, 2);
		c->line(c->ctx, x0, top + y - 8, x1, top + y - 8);
		c->line(c->ctx, x0, top + y + 8, x1, top + y + 8);
		c->line(c->ctx, x0, top + y - 8, x0, top + y + 8);
		c->line(c->ctx, x1, top + y - 8, x1, top + y + 8);
	}
	if (x >= 0)
		c->rect(c->ctx, x - 1, top - WEFT_PAIR_STRIP_H + 4, 2,
			bottom - top + WEFT_PAIR_STRIP_H - 4);
}

/* A half's strip: the side and its run's name, and the divergence's
 * words by its line (or after the name). */
static void draw_strip(struct weft_pair *p, const struct weft_canvas *c, int s,
		       double x, const char *what)
{
	double y = weft_pair_half(p, s);
	char buf[600];
	c->color(c->ctx, 0.25, 0.3, 0.45, 1);
	c->rect(c->ctx, 0, y, p->w, WEFT_PAIR_STRIP_H);
	snprintf(buf, sizeof buf, "%s: %s", s ? "bad" : "good", p->name[s]);
	c->color(c->ctx, 1, 1, 1, 1);
	c->text(c->ctx, 8, y + 13, STRIP_FONT, buf);
	if (p->d.kind == WEFT_DIV_NONE && s)
		return;
	double at = 8 + c->text_width(c->ctx, STRIP_FONT, buf) + 20;
	double tw = c->text_width(c->ctx, STRIP_FONT, what);
	if (x >= 0 && x + 6 + tw <= p->w)
		at = x + 6 > at ? x + 6 : at;
	else if (x >= 0 && x - 6 - tw > at)
		at = x - 6 - tw;
	c->color(c->ctx, 1, 0.75, 1, 1);
	c->text(c->ctx, at, y + 13, STRIP_FONT, what);
}

long weft_pair_render(struct weft_pair *p, const struct weft_canvas *c)
{
	long prims = 0;
	char what[600];
	weft_pair_divergence_str(p, what, sizeof what);
	/* a counters' band in one half only: kept, empty, in the other,
	 * so that the rows of both stand where they would */
	int band = weft__any_counter(p->v[0]) || weft__any_counter(p->v[1]);
	for (int s = 0; s < 2; s++)
		weft_view_keep_counter_band(p->v[s], band);
	for (int s = 0; s < 2; s++) {
		double half = weft_pair_half(p, s);
		double end = s ? p->h : weft_pair_half(p, 1);
		struct moved mv = {c, weft_pair_top(p, s)};
		struct weft_canvas mc = {
			&mv,
			m_color,
			m_line_width,
			m_line,
			m_rect,
			m_triangle,
			m_text,
			m_text_width,
			m_clip,
			m_unclip,
			m_flush,
			c->mask ? m_mask : NULL,
			c->masks_for_boxes,
			c->shades ? m_shades : NULL,
		};
		c->clip(c->ctx, 0, half, p->w, end - half);
		prims += weft_view_render(p->v[s], &mc);
		double x = weft_pair_divergence_x(p, s);
		if (p->d.kind != WEFT_DIV_NONE)
			draw_divergence(p, c, s, x);
		draw_strip(p, c, s, x, what);
		if (c->flush)
			c->flush(c->ctx);
		c->unclip(c->ctx);
		prims += 8;
	}
	return prims;
}
