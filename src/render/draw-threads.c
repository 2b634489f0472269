/* SPDX-License-Identifier: MIT */
/*
 * draw-threads.c - thread lines (and their highlights and failures),
 * runs, spans and loop phases.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "view-internal.h"


static void seg_flush(struct walk *k)
{
	if (k->seg)
		line(k->p, k->sx0, k->sy, k->sx1, k->sy);
	k->seg = 0;
}

/* A horizontal line, joined to the previous one when they touch. */
static void segment(struct walk *k, double x0, double x1, double y)
{
	if (k->seg && y == k->sy && x0 <= k->sx1 + 1 && x0 >= k->sx0) {
		if (x1 > k->sx1)
			k->sx1 = x1;
		return;
	}
	seg_flush(k);
	k->seg = 1;
	k->sx0 = x0;
	k->sx1 = x1;
	k->sy = y;
}

static void draw_thread(struct walk *k, uint32_t t, int r, double x0,
			double x1)
{
	struct weft_view *v = k->v;
	struct pen *p = k->p;
	const struct weft_thread *th = &k->th[t];
	double y = yof(v, r), rh = row_h(v, r);
	switch (k->kind) {
	case P_HIGHLIGHT: {
		double hh = rh >= FULL ? 10 : rh < 2 ? 2 : rh;
		double a = x0 - k->pad, b = x1 + k->pad;
		if (b - a < 8) {
			a -= 4;
			b += 4;
		}
		rect(p, a, y - hh / 2, b - a, hh);
		break;
	}
	case P_LINE: {
		uint32_t par = th->parent;
		int pr = par < v->nthreads ? v->row[par] : -1;
		if (pr >= 0 && x0 >= 0 && x0 <= v->w &&
		    !(th->flags & WEFT_THREAD_NO_CREATE) &&
		    (k->full || row_h(v, pr) < FULL))
			line(p, x0, yof(v, pr), x0, y);
		segment(k, x0, x1, y);
		if (k->full && th->end == WEFT_END_PENDING && !is_never(th) &&
		    x1 >= 0 && x1 <= v->w && k->nmarks < MAX_MARKS) {
			/* pending at the end: a grey mark where it was
			 * last seen (drawn after the lines) */
			k->marks[k->nmarks][0] = x1;
			k->marks[k->nmarks++][1] = y;
		}
		break;
	}
	case P_BAD: {
		int never = is_never(th);
		line(p, x0, y, x1, y);
		if (!k->full)
			break;
		rect(p, x1 - 1, y - 8, 2, 16);
		const char *msg = never ? "should-resolve thread never resolved"
					: weft_model_string(v->m, th->message);
		double tw = p->c->text_width(p->c->ctx, FONT, msg);
		text(p, x1 - tw - 4 > x0 ? x1 - tw - 4 : x1 + 4, y - 5, msg);
		break;
	}
	}
}

/* Draws the threads of set `s` on row r that show in the window, skipping
 * those that land only on columns this pass has drawn. */
static void walk_row(struct walk *k, const struct tset *s, int r)
{
	struct weft_view *v = k->v;
	const uint32_t *ix = s->ix + s->off[r];
	uint32_t n = s->off[r + 1] - s->off[r];
	if (!n)
		return;
	double y = yof(v, r);
	int *cr = weft__cov_row(v, y);
	uint32_t i = weft__first_end(v, ix, 0, n, v->t0);
	while (i < n) {
		uint32_t t = ix[i];
		if (k->th[t].t_create > v->t1)
			break;
		double x0 = xof(v, k->th[t].t_create);
		double x1 = v->end[t] == INT64_MAX
				    ? (k->right > v->w ? v->w : k->right)
				    : xof(v, v->end[t]);
		if (x1 - x0 < 1)
			x1 = x0 + 1;
		int next;
		if (weft__cov_full(cr, col(v, x0), col(v, x1), &next)) {
			i = weft__first_end(v, ix, i + 1, n, tof(v, next * v->cs));
			continue;
		}
		weft__cov_take(cr, col(v, x0), col(v, x1));
		draw_thread(k, t, r, x0, x1);
		i++;
	}
	seg_flush(k);
}

/* Each row of set `s`, full ones or squeezed ones. */
void weft__walk_rows(struct walk *k, const struct tset *s)
{
	k->v->pass++;
	for (int r = 0; r < k->v->nrows; r++)
		if ((row_h(k->v, r) >= FULL) == k->full)
			walk_row(k, s, r);
}

/* Runs, white, on the full rows. */
void weft__draw_runs(struct weft_view *v, struct pen *p)
{
	const struct weft_run *run = weft_model_runs(v->m, &(uint32_t){0});
	color(p, 1, 1, 1, 1);
	p->c->line_width(p->c->ctx, 4);
	v->pass++;
	/* the rows drawn in full: the focus band, and the squeezed rows
	 * above or below it when they are still FULL px tall */
	int r0 = v->hu >= FULL ? 0 : v->fa;
	int r1 = v->hd >= FULL ? v->nrows : v->fa + v->fk;
	for (int r = r0; r < r1; r++) {
		if (row_h(v, r) < FULL)
			continue;
		const uint32_t *ix = v->rruns + v->rroff[r];
		uint32_t n = v->rroff[r + 1] - v->rroff[r], lo = 0, hi = n;
		double y = yof(v, r);
		int *cr = weft__cov_row(v, y);
		int64_t from = v->t0;
		int have = 0;
		double sx0 = 0, sx1 = 0;
		for (;;) {
			hi = n;
			while (lo < hi) {
				uint32_t mid = lo + (hi - lo) / 2;
				if (run[ix[mid]].t1 < from)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo >= n || run[ix[lo]].t0 > v->t1)
				break;
			const struct weft_run *u = &run[ix[lo]];
			double x0 = xof(v, u->t0), x1 = xof(v, u->t1);
			if (x1 - x0 < 1)
				x1 = x0 + 1;
			int next;
			if (weft__cov_full(cr, col(v, x0), col(v, x1), &next)) {
				from = tof(v, next * v->cs);
				lo++;
				continue;
			}
			weft__cov_take(cr, col(v, x0), col(v, x1));
			if (have && x0 <= sx1 + 1 && x0 >= sx0) {
				sx1 = x1 > sx1 ? x1 : sx1;
			} else {
				if (have)
					line(p, sx0, y, sx1, y);
				have = 1;
				sx0 = x0;
				sx1 = x1;
			}
			lo++;
		}
		if (have)
			line(p, sx0, y, sx1, y);
	}
}

/* Spans: thin teal bars under the line (nested ones lower), with their
 * name where it fits. */
void weft__draw_spans(struct weft_view *v, struct pen *p)
{
	uint32_t n;
	const struct weft_interval *iv =
		weft_model_intervals(v->m, WEFT_INTERVAL_SPAN, &n);
	const struct ivindex *x = &v->iv[2];
	for (uint32_t i = weft__ivindex_from(x, 0, v->t0); i < x->n; i++) {
		const struct weft_interval *s = &iv[x->ord[i]];
		if (s->t0 > v->t1)
			break;
		if (s->t1 < v->t0 || s->thread >= v->nthreads)
			continue;
		int r = v->row[s->thread];
		if (r < 0 || row_h(v, r) < FULL)
			continue;
		double x0 = xof(v, s->t0), x1 = xof(v, s->t1);
		if (x1 - x0 < 1)
			x1 = x0 + 1;
		double y = yof(v, r) + 3 + 2.5 * (s->depth > 3 ? 3 : s->depth);
		color(p, 0, 0.55, 0.55, 1);
		rect(p, x0, y, x1 - x0, 2);
		const char *name = weft_model_name(v->m, s->name);
		double tw = p->c->text_width(p->c->ctx, FONT * 0.8, name);
		if (x1 - x0 > tw + 6 && !s->depth) {
			p->c->text(p->c->ctx, (x0 < LEFT ? LEFT : x0) + 2,
				   yof(v, r) + 12, FONT * 0.8, name);
			p->prims++;
		}
	}
}

/* The colour of a loop phase: libuv's by meaning (the wait in poll is
 * blue like idle time, callbacks warm), others by their name's hash. */
static void phase_rgb(const char *name, double rgb[3])
{
	static const struct {
		const char *name;
		double rgb[3];
	} known[] = {
		{"timers", {0.85, 0.55, 0.1}},  {"pending", {0.75, 0.3, 0.3}},
		{"idle", {0.55, 0.55, 0.55}},   {"prepare", {0.5, 0.4, 0.7}},
		{"poll", {0.25, 0.45, 0.75}},   {"check", {0.3, 0.6, 0.35}},
		{"closing", {0.45, 0.3, 0.15}},
	};
	static const double hashed[6][3] = {
		{0.6, 0.3, 0.6}, {0.3, 0.55, 0.55}, {0.65, 0.5, 0.2},
		{0.4, 0.4, 0.75}, {0.55, 0.35, 0.3}, {0.35, 0.6, 0.3}};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (!strcmp(name, known[i].name)) {
			memcpy(rgb, known[i].rgb, sizeof known[i].rgb);
			return;
		}
	uint32_t h = 2166136261u;
	for (const char *c = name; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	memcpy(rgb, hashed[h % 6], sizeof hashed[0]);
}

/* First phase of [lo, hi) in a stream's list that ends at or after t. */
static uint32_t phase_from(const struct weft_view *v,
			   const struct weft_interval *iv, uint32_t lo,
			   uint32_t hi, int64_t t)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (iv[v->ph_ix[mid]].t1 < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* An event loop's phases: a coloured bar under the line of the thread
 * current when each began (the loop), its name where it fits.  Phases of
 * one OS thread are disjoint and in order: once a pixel is drawn, the
 * search jumps to the first phase that reaches past it, so a frame draws
 * at most one bar per pixel column and loop. */
void weft__draw_phases(struct weft_view *v, struct pen *p)
{
	uint32_t n;
	const struct weft_interval *iv =
		weft_model_intervals(v->m, WEFT_INTERVAL_PHASE, &n);
	for (uint32_t s = 0; s < v->ph_nst; s++) {
		uint32_t end = v->ph_off[s + 1];
		double last = -1e9;
		uint32_t i = phase_from(v, iv, v->ph_off[s], end, v->t0);
		while (i < end) {
			const struct weft_interval *ph = &iv[v->ph_ix[i]];
			if (ph->t0 > v->t1)
				break;
			double x0 = xof(v, ph->t0), x1 = xof(v, ph->t1);
			if (x1 < last + 0.5) {
				/* under what is drawn: jump past it */
				i = phase_from(v, iv, i + 1, end,
					       tof(v, last + 0.5));
				continue;
			}
			i++;
			int r = ph->thread < v->nthreads ? v->row[ph->thread]
							  : -1;
			if (r < 0 || row_h(v, r) < FULL)
				continue;
			/* whole pixels: crisp bars, one colour per column */
			x0 = round(x0 < last ? last : x0 < LEFT - 1 ? LEFT - 1
								     : x0);
			x1 = round(x1 > v->w + 1 ? v->w + 1 : x1);
			if (x1 - x0 < 1)
				x1 = x0 + 1;
			last = x1;
			const char *name = weft_model_name(v->m, ph->name);
			double rgb[3];
			phase_rgb(name, rgb);
			color(p, rgb[0], rgb[1], rgb[2], 1);
			double y = round(yof(v, r));
			rect(p, x0, y + 3, x1 - x0, 3);
			if (x1 - x0 > 30) {
				double tw = p->c->text_width(p->c->ctx,
							     FONT * 0.8, name);
				if (x1 - x0 > tw + 6) {
					p->c->text(p->c->ctx, x0 + 2, y + 14,
						   FONT * 0.8, name);
					p->prims++;
				}
			}
		}
	}
}
