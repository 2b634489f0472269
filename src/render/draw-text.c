/* SPDX-License-Identifier: MIT */
/*
 * draw-text.c - labels and notes.
 */
#include "view-internal.h"

/* Notes: a small flag above the line; their text when zoomed in. */
void weft__draw_notes(struct weft_view *v, struct pen *p)
{
	uint32_t nl;
	const struct weft_label *lb = weft_model_labels(v->m, &nl);
	uint32_t lo = 0, hi = v->nnotes;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (lb[v->notes[mid]].t < v->t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	v->pass++;
	double lastx = -1e9;
	for (uint32_t i = lo; i < v->nnotes; i++) {
		const struct weft_label *n = &lb[v->notes[i]];
		if (n->t > v->t1)
			break;
		int r = n->thread < v->nthreads ? v->row[n->thread] : -1;
		if (r < 0 || row_h(v, r) < FULL)
			continue;
		double x = xof(v, n->t), y = yof(v, r);
		if (!weft__cov_take(weft__cov_row(v, y - 8), col(v, x), col(v, x)))
			continue;
		color(p, 0.45, 0.25, 0.6, 1);
		line(p, x, y - 2, x, y - 13);
		triangle(p, x, y - 13, x + 8, y - 10, x, y - 7);
		const char *s = weft_model_string(v->m, n->text);
		/* the text only where the next note leaves room */
		double room = 1e9;
		if (i + 1 < v->nnotes && lb[v->notes[i + 1]].t <= v->t1)
			room = xof(v, lb[v->notes[i + 1]].t) - x;
		double tw = p->c->text_width(p->c->ctx, FONT * 0.8, s);
		if (room > tw + 10 && x > lastx) {
			p->c->text(p->c->ctx, x + 9, y - 9, FONT * 0.8, s);
			p->prims++;
			lastx = x + tw + 6;
		}
	}
}

/* Labels where there is room on full rows; kinds in grey below. */
void weft__draw_labels(struct weft_view *v, struct pen *p,
			const struct weft_thread *th, double right)
{
	const struct weft_canvas *c = p->c;
	char title[256];
	for (int r = v->fa; r < v->fa + v->fk; r++) {
		const uint32_t *ix = v->all.ix + v->all.off[r];
		uint32_t n = v->all.off[r + 1] - v->all.off[r];
		double y = yof(v, r);
		uint32_t i = weft__first_end(v, ix, 0, n, v->t0);
		while (i < n) {
			uint32_t t = ix[i];
			if (th[t].t_create > v->t1)
				break;
			double x0 = xof(v, th[t].t_create);
			double x1 = v->end[t] == INT64_MAX ? right
							   : xof(v, v->end[t]);
			if (x0 < LEFT)
				x0 = LEFT;
			if (x1 - x0 < 24) {
				/* the threads that end before x0 + 24 are
				 * all too short */
				i = weft__first_end(v, ix, i + 1, n,
					      tof(v, (x0 > LEFT ? x0 : LEFT) + 24));
				continue;
			}
			i++;
			weft_model_title(v->m, t, title, sizeof title);
			double tw = c->text_width(c->ctx, FONT, title);
			color(p, 0, 0, 0, 1);
			clip(p, x0, y - 16, x1 - x0, 30);
			text(p, x0 + 2, y - 4, title);
			if (th[t].kind && th[t].label != WEFT_NONE &&
			    x1 - x0 > tw) {
				color(p, 0.5, 0.5, 0.5, 1);
				text(p, x0 + 2, y + 11,
				     weft_model_name(v->m, th[t].kind));
			}
			unclip(p); /* back to the plot's clip */
		}
	}
}
