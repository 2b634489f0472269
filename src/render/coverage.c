/* SPDX-License-Identifier: MIT */
/*
 * coverage.c - level of detail: every pass keeps, per pixel row, which
 * pixel columns it has drawn (a "next free column" union-find): a thread,
 * run or band that lands only on drawn columns is skipped, and the binary
 * search jumps to the first one that reaches past them.  So a frame costs
 * on the order of one primitive per pixel column and pixel row, whatever
 * the trace.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view-internal.h"
#include "common/grow.h"

/* The covered columns of pixel row y in this pass ("next free column":
 * 0 free, d > 0 look at column + d), or NULL off the surface. */
int *weft__cov_row(struct weft_view *v, double y)
{
	int iy = (int)floor(y / v->fr.rs);
	if (iy < 0 || iy >= v->fr.covh)
		return NULL;
	int *r = v->fr.cover + (size_t)iy * (size_t)v->fr.covw;
	if (v->fr.stamp[iy] != v->fr.pass) {
		memset(r, 0, (size_t)v->fr.covw * sizeof *r);
		v->fr.stamp[iy] = v->fr.pass;
	}
	return r;
}

static int cov_find(int *r, int c)
{
	int x = c;
	while (r[x])
		x += r[x];
	while (r[c] && c != x) { /* compress */
		int nx = c + r[c];
		r[c] = x - c;
		c = nx;
	}
	return x;
}

/* Marks columns [c0, c1] drawn; returns 1 if any of them was free. */
int weft__cov_take(int *r, int c0, int c1)
{
	if (!r)
		return 1;
	int c = cov_find(r, c0);
	if (c > c1)
		return 0;
	for (; c <= c1; c = cov_find(r, c + 1))
		r[c] = 1;
	return 1;
}

/* Is [c0, c1] all drawn?  If so, *next is the first free column. */
int weft__cov_full(int *r, int c0, int c1, int *next)
{
	if (!r)
		return 0;
	*next = cov_find(r, c0);
	return *next > c1;
}

/* Scratch sized for the surface.  A pixel row has covw cells: the
 * columns col() gives (0 to covw - 2) and a last one never taken, where
 * every chain of cov_find() ends inside its row. */
int weft__scratch(struct weft_view *v)
{
	/* at most 4096 x 4096 cells: 64 MiB, however big the picture */
	double cs = v->geo.w > 4096 ? v->geo.w / 4096 : 1,
	       rs = v->geo.h > 4096 ? v->geo.h / 4096 : 1;
	int w = (int)(v->geo.w / cs) + 2, h = (int)(v->geo.h / rs) + 1;
	v->fr.cs = cs;
	v->fr.rs = rs;
	if (w == v->fr.covw && h == v->fr.covh)
		return 0;
	free(v->fr.cover);
	free(v->fr.stamp);
	free(v->fr.seen);
	free(v->fr.bcov);
	free(v->fr.bq);
	v->fr.cover = malloc((size_t)w * (size_t)h * sizeof *v->fr.cover);
	v->fr.bcov = malloc((size_t)w * sizeof *v->fr.bcov);
	v->fr.bq = malloc((size_t)w);
	v->fr.stamp = calloc((size_t)h, sizeof *v->fr.stamp);
	free(v->fr.thru);
	v->fr.thru = calloc((size_t)h, sizeof *v->fr.thru);
	v->fr.seen = calloc((size_t)w, sizeof *v->fr.seen);
	free(v->fr.acov);
	free(v->fr.acount);
	v->fr.acov = calloc((size_t)w + 1, sizeof *v->fr.acov);
	v->fr.acount = calloc((size_t)w + 1, 1);
	v->fr.seen_gen = 0;
	v->fr.pass = 1;
	if (!v->fr.marks)
		v->fr.marks = malloc(MAX_MARKS * sizeof *v->fr.marks);
	if (!v->fr.cells)
		v->fr.cells = malloc(MAX_CELLS * sizeof *v->fr.cells);
	if (!v->fr.clines)
		v->fr.clines = malloc(MAX_CLINES * sizeof *v->fr.clines);
	if (!v->fr.cover || !v->fr.stamp || !v->fr.seen || !v->fr.marks ||
	    !v->fr.cells || !v->fr.thru || !v->fr.clines || !v->fr.acov ||
	    !v->fr.acount || !v->fr.bcov || !v->fr.bq) {
		v->fr.covw = v->fr.covh = 0;
		return -1;
	}
	v->fr.covw = w;
	v->fr.covh = h;
	return 0;
}

unsigned char *weft__mask_room(struct weft_view *v, size_t bytes)
{
	if (bytes > v->fr.cmaskbuf) {
		unsigned char *b = realloc(v->fr.maskbuf, bytes);
		if (!b)
			return NULL;
		v->fr.maskbuf = b;
		v->fr.cmaskbuf = bytes;
	}
	return v->fr.maskbuf;
}

void weft__mpen_begin(struct mpen *mp, struct weft_view *v, struct pen *p)
{
	mp->v = v;
	mp->p = p;
	mp->n = 0;
	mp->on = p->c->mask && p->c->masks_for_boxes && v->fr.cs == 1 &&
		 v->fr.rs == 1;
}

void weft__mpen_box(struct mpen *mp, double x, double y, double w, double h)
{
	struct weft_view *v = mp->v;
	if (mp->on && weft__grow_to(&v->fr.mboxes, &v->fr.cmboxes, mp->n + 1,
				    sizeof *v->fr.mboxes, 4096, SIZE_MAX)) {
		weft__mpen_end(mp); /* (what it has, then at once) */
		mp->on = 0;
	}
	if (!mp->on) {
		rect(mp->p, x, y, w, h);
		return;
	}
	v->fr.mboxes[mp->n++] = (struct mbox){(float)x, (float)y,
					      (float)(x + w), (float)(y + h)};
}

void weft__mpen_end(struct mpen *mp)
{
	struct weft_view *v = mp->v;
	if (!mp->on || !mp->n)
		return;
	/* the pixels the boxes cover, on the surface */
	int W = (int)ceil(v->geo.w), H = (int)ceil(v->geo.h);
	int bx0 = W, by0 = H, bx1 = 0, by1 = 0;
	for (size_t i = 0; i < mp->n; i++) {
		struct mbox *b = &v->fr.mboxes[i];
		int x0 = px_round(b->x0), x1 = px_round(b->x1);
		int y0 = px_round(b->y0), y1 = px_round(b->y1);
		x1 = x1 > x0 ? x1 : x0 + 1;
		y1 = y1 > y0 ? y1 : y0 + 1;
		x0 = x0 < 0 ? 0 : x0;
		y0 = y0 < 0 ? 0 : y0;
		x1 = x1 > W ? W : x1;
		y1 = y1 > H ? H : y1;
		/* (kept rounded and clipped, for the second sweep) */
		*b = (struct mbox){(float)x0, (float)y0, (float)x1, (float)y1};
		if (x1 <= x0 || y1 <= y0)
			continue;
		bx0 = x0 < bx0 ? x0 : bx0;
		by0 = y0 < by0 ? y0 : by0;
		bx1 = x1 > bx1 ? x1 : bx1;
		by1 = y1 > by1 ? y1 : by1;
	}
	size_t n = mp->n;
	mp->n = 0;
	if (bx1 <= bx0 || by1 <= by0)
		return;
	int w = bx1 - bx0, h = by1 - by0, stride = (w + 3) & ~3;
	unsigned char *m = weft__mask_room(v, (size_t)stride * (size_t)h);
	if (m)
		memset(m, 0, (size_t)stride * (size_t)h);
	for (size_t i = 0; i < n; i++) {
		const struct mbox *b = &v->fr.mboxes[i];
		if (!m) { /* (short of memory: box by box) */
			if (b->x1 > b->x0 && b->y1 > b->y0)
				rect(mp->p, b->x0, b->y0, b->x1 - b->x0,
				     b->y1 - b->y0);
			continue;
		}
		for (int y = (int)b->y0; y < (int)b->y1; y++)
			if (b->x1 > b->x0)
				memset(m + (size_t)(y - by0) * stride +
					       ((int)b->x0 - bx0),
				       255, (size_t)(b->x1 - b->x0));
	}
	if (m) {
		mp->p->c->mask(mp->p->c->ctx, bx0, by0, w, h, m, stride);
		mp->p->prims++;
	}
}
