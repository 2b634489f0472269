/* SPDX-License-Identifier: MIT */
/*
 * draw-text.c - labels and notes.
 */
#include <math.h>
#include <string.h>

#include "view-internal.h"

/* Notes: a small flag above the line; their text when zoomed in. */
void weft__draw_notes(struct weft_view *v, struct pen *p)
{
	uint32_t nl;
	const struct weft_label *lb = weft_model_labels(v->m, &nl);
	uint32_t lo = 0, hi = v->ix.nnotes;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (lb[v->ix.notes[mid]].t < v->time.t0)
			lo = mid + 1;
		else
			hi = mid;
	}
	v->fr.pass++;
	double lastx = -1e9;
	for (uint32_t i = lo; i < v->ix.nnotes; i++) {
		const struct weft_label *n = &lb[v->ix.notes[i]];
		if (n->t > v->time.t1)
			break;
		int r = n->thread < v->rows.nthreads ? v->rows.row[n->thread]
						     : -1;
		if (r < 0 || row_h(v, r) < FULL)
			continue;
		/* (on a thread drawn thinner than 2 px, a column of density:
		 * its notes are for when it is drawn) */
		if (!is_top(v, r) &&
		    (double)(v->rows.end[n->thread] == INT64_MAX
				     ? v->time.tmax
				     : v->rows.end[n->thread]) -
				    (double)weft_model_threads(
					    v->m, &(uint32_t){0})[n->thread]
					    .t_create <
			    2 * v->time.ns_per_px)
			continue;
		double x = xof(v, n->t), y = yof(v, r);
		/* (a flag is 8 px wide: one in 4 px at most) */
		if (!weft__cov_take(weft__cov_row(v, y - 8), col(v, x),
				    col(v, x + 3)))
			continue;
		color(p, 0.45, 0.25, 0.6, 1);
		line(p, x, y - 2, x, y - 13);
		triangle(p, x, y - 13, x + 8, y - 10, x, y - 7);
		const char *s = weft_model_string(v->m, n->text);
		/* the text only where the next note leaves room */
		double room = 1e9;
		if (i + 1 < v->ix.nnotes &&
		    lb[v->ix.notes[i + 1]].t <= v->time.t1)
			room = xof(v, lb[v->ix.notes[i + 1]].t) - x;
		double tw = p->c->text_width(p->c->ctx, FONT * 0.8, s);
		if (room > tw + 10 && x > lastx) {
			p->c->text(p->c->ctx, x + 9, y - 9, FONT * 0.8, s);
			p->prims++;
			lastx = x + tw + 6;
		}
	}
}

/* The longest prefix of s (whole UTF-8 characters) that, with "…", fits
 * in `room` pixels, into buf; NULL if not even one character does. */
static const char *fit(const struct weft_canvas *c, const char *s, double tw,
		       double room, char *buf, size_t cap)
{
	static const char dots[] = "\xe2\x80\xa6";
	size_t len = strlen(s);
	if (len + sizeof dots > cap)
		len = cap - sizeof dots;
	/* guess from the average width, then step back while too wide */
	size_t n = (size_t)((double)len * room / (tw > 1 ? tw : 1));
	for (int tries = 0; tries < 8; tries++) {
		if (n >= len)
			n = len - 1;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--; /* (not inside a character) */
		if (!n)
			return NULL;
		memcpy(buf, s, n);
		memcpy(buf + n, dots, sizeof dots);
		if (c->text_width(c->ctx, FONT, buf) <= room)
			return buf;
		n = n * 3 / 4;
	}
	return NULL;
}

/* A text from x, cut to `room` pixels; returns the width drawn (0: none). */
double weft__label_at(struct pen *p, double x, double y, double room,
		      const char *s)
{
	const struct weft_canvas *c = p->c;
	if (room < 16 || !*s)
		return 0;
	double tw = c->text_width(c->ctx, FONT, s);
	char buf[300];
	if (tw > room) {
		if (room < 48)
			return 0; /* (a few letters and "…" say little) */
		s = fit(c, s, tw, room, buf, sizeof buf);
		if (!s)
			return 0;
		tw = room;
	}
	text(p, x, y, s);
	return tw;
}

#define MAX_SHOWN 64 /* labels of one thread in one frame */

/* Labels where there is room on full rows: each label of a thread from
 * where it was set to where the next one was (mtv's labels over time),
 * cut with "…" to fit; a thread with no label, its kind and id; kinds in
 * grey below. */
void weft__draw_labels(struct weft_view *v, struct pen *p,
		       const struct weft_thread *th, double right)
{
	char title[256];
	uint32_t nl;
	const struct weft_label *lb = weft_model_labels(v->m, &nl);
	color(p, 0, 0, 0, 1);
	for (int r = v->geo.fa; r < v->geo.fa + v->geo.fk; r++) {
		const uint32_t *ix = v->ix.all.ix + v->ix.all.off[r];
		const int64_t *s0 = v->ix.all.t0 + v->ix.all.off[r];
		const int64_t *s1 = v->ix.all.t1 + v->ix.all.off[r];
		uint32_t n = v->ix.all.off[r + 1] - v->ix.all.off[r];
		double y = round(yof(v, r));
		double free_x = LEFT; /* where the row has room for text */
		uint32_t i = weft__gallop(s1, 0, n, v->time.t0);
		while (i < n && s0[i] <= v->time.t1) {
			uint32_t t = ix[i];
			double x0 = xof(v, s0[i]);
			double x1 = s1[i] == INT64_MAX ? right : xof(v, s1[i]);
			if (x0 < free_x)
				x0 = free_x;
			if (x1 - x0 < 24) {
				/* the threads that end before x0 + 24 are
				 * all too short */
				i = weft__gallop(s1, i + 1, n, tof(v, x0 + 24));
				continue;
			}
			i++;
			/* its labels in the window, latest first */
			uint32_t shown[MAX_SHOWN], k = 0;
			for (uint32_t l = th[t].label; l < nl && k < MAX_SHOWN;
			     l = lb[l].prev) {
				if (lb[l].t > v->time.t1)
					continue;
				shown[k++] = l;
				if (lb[l].t <= v->time.t0)
					break;
			}
			double end = x1, used = x0;
			color(p, 0, 0, 0, 1);
			if (!k) {
				weft_model_title(v->m, t, title, sizeof title);
				used = x0 + 2 +
				       weft__label_at(p, x0 + 2, y - 4,
						      x1 - x0 - 4, title);
			}
			while (k--) { /* earliest first */
				const struct weft_label *l = &lb[shown[k]];
				double lx = xof(v, l->t);
				double lend = k ? xof(v, lb[shown[k - 1]].t)
						: end;
				if (lx < x0)
					lx = x0;
				if (lx < used)
					lx = used;
				double w = weft__label_at(
					p, lx + 2, y - 4, lend - lx - 4,
					weft_model_string(v->m, l->text));
				if (w > 0) {
					/* a tick where the label was set */
					if (l->t >= s0[i - 1] && lx > x0 + 1)
						rect(p, round(lx), y - 6, 1, 5);
					used = lx + 2 + w + 4;
				}
			}
			if (th[t].kind && th[t].label != WEFT_NONE) {
				color(p, 0.5, 0.5, 0.5, 1);
				const char *kind =
					weft_model_name(v->m, th[t].kind);
				weft__label_at(p, x0 + 2, y + 11, x1 - x0 - 4,
					       kind);
			}
			free_x = used > x0 ? used : x0;
		}
	}
}
