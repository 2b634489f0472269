/* SPDX-License-Identifier: MIT */
/*
 * draw-arrows.c - arrows, gathered and drawn by kind and opacity.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view-internal.h"

static void arrowhead(struct pen *p, double x0, double y0, double x1, double y1)
{
	double dx = x1 - x0, dy = y1 - y0, len = sqrt(dx * dx + dy * dy);
	if (len < 1)
		return;
	dx /= len;
	dy /= len;
	double hl = len < 10 ? len : 10, hw = 4;
	double bx = x1 - dx * hl, by = y1 - dy * hl;
	triangle(p, x1, y1, bx - dy * hw, by + dx * hw, bx + dy * hw,
		 by - dx * hw);
}

static const double arrow_rgb[WEFT_ARROW_KINDS][3] = {
	[WEFT_ARROW_CREATE] = {0.2, 0.2, 0.2},
	[WEFT_ARROW_READ] = {0, 0, 1},
	[WEFT_ARROW_READ_FAILED] = {1, 0, 0},
	[WEFT_ARROW_TRY_READ] = {0.8, 0.8, 0.4},
	[WEFT_ARROW_RESOLVE] = {0, 0.5, 0},
	[WEFT_ARROW_FAIL] = {1, 0, 0},
	[WEFT_ARROW_SIGNAL] = {1, 0.6, 0},
	[WEFT_ARROW_BECOME] = {0.2, 0.2, 0.2},
	[WEFT_ARROW_CANCEL] = {0.5, 0.5, 0.5},
};

/* An arrow to draw: its ends and its colour group (kind and opacity). */
struct adraw {
	float x0, y0, x1, y1;
	uint16_t group;
	uint8_t head;
};

/* Opacities are drawn in steps of 1/ALPHA_STEPS: arrows of one kind and
 * step share a colour, so a frame changes colour a few dozen times rather
 * than once per arrow (a fading arrow's opacity depends on its length). */
#define ALPHA_STEPS 32
#define AGROUPS (WEFT_ARROW_KINDS * (ALPHA_STEPS + 1))

/* Room for n gathered arrows; 0 when memory is short. */
static int arrows_room(struct weft_view *v, size_t n)
{
	if (n <= v->cad)
		return 1;
	size_t c = v->cad ? v->cad * 2 : 1024;
	while (c < n)
		c *= 2;
	struct adraw *a = realloc(v->ad, c * sizeof *a);
	if (a)
		v->ad = a;
	struct adraw *b = a ? realloc(v->ad2, c * sizeof *b) : NULL;
	if (b)
		v->ad2 = b;
	if (!a || !b)
		return 0;
	v->cad = c;
	return 1;
}

/* Draws the gathered arrows group by group: in each, the lines, then
 * their heads (a back end draws a run of lines, or of shapes, at once). */
static void flush_arrows(struct weft_view *v, struct pen *p, size_t n)
{
	uint32_t start[AGROUPS + 1] = {0};
	for (size_t i = 0; i < n; i++)
		start[v->ad[i].group + 1]++;
	for (int g = 0; g < AGROUPS; g++)
		start[g + 1] += start[g];
	uint32_t at[AGROUPS];
	memcpy(at, start, sizeof at);
	for (size_t i = 0; i < n; i++)
		v->ad2[at[v->ad[i].group]++] = v->ad[i];
	p->c->line_width(p->c->ctx, 1);
	for (int g = 0; g < AGROUPS; g++) {
		if (start[g] == start[g + 1])
			continue;
		int kind = g / (ALPHA_STEPS + 1), q = g % (ALPHA_STEPS + 1);
		color(p, arrow_rgb[kind][0], arrow_rgb[kind][1],
		      arrow_rgb[kind][2], (double)q / ALPHA_STEPS);
		for (uint32_t i = start[g]; i < start[g + 1]; i++) {
			const struct adraw *d = &v->ad2[i];
			line(p, d->x0, d->y0, d->x1, d->y1);
		}
		for (uint32_t i = start[g]; i < start[g + 1]; i++) {
			const struct adraw *d = &v->ad2[i];
			if (d->head)
				arrowhead(p, d->x0, d->y0, d->x1, d->y1);
		}
	}
}

void weft__draw_arrows(struct weft_view *v, struct pen *p,
			const struct weft_thread *th)
{
	uint32_t narr;
	const struct weft_arrow *ar = weft_model_arrows(v->m, &narr);
	/* Arrows are in time order; an arrow is drawn from its source's
	 * time (reads: when the source ended) to its time, so those that
	 * show end in the window or at most ARROW_FADE px right of it. */
	int64_t last = tof(v, v->w + ARROW_FADE);
	uint32_t lo = 0, hi = narr;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (ar[mid].t < v->t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t cols = (size_t)v->covw;
	memset(v->seen, 0, cols * (size_t)v->covh * sizeof *v->seen);
	size_t n = 0;
	for (uint32_t i = lo; i < narr && ar[i].t <= last; i++) {
		const struct weft_arrow *a = &ar[i];
		int kind = a->kind;
		if (kind == WEFT_ARROW_CREATE || a->from == a->to ||
		    (a->flags & WEFT_ARROW_FOLLOWED))
			continue;
		int r0 = a->from < v->nthreads ? v->row[a->from] : -1;
		int r1 = a->to < v->nthreads ? v->row[a->to] : -1;
		if (r0 < 0 || r1 < 0)
			continue;
		int64_t tf = a->t;
		if (kind == WEFT_ARROW_READ || kind == WEFT_ARROW_READ_FAILED)
			tf = th[a->from].t_end < a->t ? th[a->from].t_end
						      : a->t;
		double x0 = xof(v, tf), x1 = xof(v, a->t);
		double y0 = yof(v, r0), y1 = yof(v, r1);
		if ((x0 < 0 && x1 < 0) || (x0 > v->w && x1 > v->w))
			continue;
		/* one per kind per pixel where it lands (or, beyond the
		 * right edge, where it starts) */
		double cx = x1 <= v->w ? x1 : x0;
		int cy = (int)floor((x1 <= v->w ? y1 : y0) / v->rs);
		if (cy < 0 || cy >= v->covh)
			continue;
		/* squeezed rows are context: their arrows are drawn only
		 * for the selection and its chain */
		int squeezed = row_h(v, r0) < FULL || row_h(v, r1) < FULL;
		if (squeezed && !v->chm[a->from] && !v->chm[a->to] &&
		    a->from != v->selected && a->to != v->selected)
			continue;
		uint16_t *cell =
			&v->seen[(size_t)cy * cols + (size_t)col(v, cx)];
		if (*cell & (1u << kind))
			continue;
		*cell |= (uint16_t)(1u << kind);
		if (kind == WEFT_ARROW_BECOME) {
			/* a merge: a vertical line, like a creation */
			color(p, 0.2, 0.2, 0.2, squeezed ? 0.4 : 1);
			p->c->line_width(p->c->ctx, 2);
			line(p, x1, y0, x1, y1);
			p->c->line_width(p->c->ctx, 1);
			continue;
		}
		double len = hypot(x1 - x0, y1 - y0);
		double alpha = 1 - len / ARROW_FADE;
		if (squeezed)
			alpha *= 0.35;
		int q = (int)lround(alpha * ALPHA_STEPS);
		if (alpha <= 0.01 || q <= 0)
			continue;
		if (n == v->cad && !arrows_room(v, n + 1)) {
			/* short of memory: draw what was gathered */
			flush_arrows(v, p, n);
			n = 0;
			if (!v->cad)
				return;
		}
		struct adraw *d = &v->ad[n++];
		d->x0 = (float)x0;
		d->y0 = (float)y0;
		d->x1 = (float)x1;
		d->y1 = (float)y1;
		d->group = (uint16_t)(kind * (ALPHA_STEPS + 1) +
				      (q > ALPHA_STEPS ? ALPHA_STEPS : q));
		d->head = !squeezed;
	}
	flush_arrows(v, p, n);
}
