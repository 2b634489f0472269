/* SPDX-License-Identifier: MIT */
/*
 * draw-threads.c - thread lines (and their highlights and failures),
 * runs, spans and loop phases.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "view-internal.h"

/* A box, joined to the one before when they touch on the same pixel
 * row: a busy row is one box, not one per thread. */
static void box(struct walk *k, double x0, double x1, double y, double h)
{
	if (k->seg && y == k->sy && h == k->sh && x0 <= k->sx1 + 1 &&
	    x1 >= k->sx0) {
		if (x1 > k->sx1)
			k->sx1 = x1;
		if (x0 < k->sx0)
			k->sx0 = x0;
		return;
	}
	weft__box_flush(k);
	k->seg = 1;
	k->sx0 = x0;
	k->sx1 = x1;
	k->sy = y;
	k->sh = h;
}

void weft__box_flush(struct walk *k)
{
	if (k->seg && k->mp)
		weft__mpen_box(k->mp, k->sx0, k->sy, k->sx1 - k->sx0, k->sh);
	else if (k->seg)
		rect(k->p, k->sx0, k->sy, k->sx1 - k->sx0, k->sh);
	k->seg = 0;
}

/* The busy share of [a, b] on row r: the time its threads cover (the
 * row's prefix sums of lives, from the first thread ending at or after a,
 * searched from `from`, to `j`, the first starting after b). */
static double busy_share(const struct weft_view *v, int r, int64_t a, int64_t b,
			 uint32_t from, uint32_t j)
{
	const int64_t *s0 = v->ix.all.t0 + v->ix.all.off[r];
	const int64_t *s1 = v->ix.all.t1 + v->ix.all.off[r];
	const int64_t *ps = v->ix.psum + v->ix.all.off[r] + (uint32_t)r;
	uint32_t n = v->ix.all.off[r + 1] - v->ix.all.off[r];
	uint32_t i = weft__gallop(s1, from, n, a);
	if (j <= i || b <= a)
		return 0;
	double sum = (double)(ps[j] - ps[i]);
	int64_t e1 = s1[j - 1] == INT64_MAX ? v->time.tmax : s1[j - 1];
	if (s0[i] < a)
		sum -= (double)(a - s0[i]);
	if (e1 > b)
		sum -= (double)(e1 - b);
	double share = sum / (double)(b - a);
	return share < 0 ? 0 : share > 1 ? 1 : share;
}

#define DENSITY_STEPS 8

/* A column of sub-pixel threads on a full row: a box as tall as a span
 * bar, darker the busier the column (at least a faint mark); its threads
 * from `from` to `upto` (the first starting after the column). */
static void density(struct walk *k, int r, int c, uint32_t from, uint32_t upto)
{
	struct weft_view *v = k->v;
	int64_t a = tof(v, c * v->fr.cs), b = tof(v, (c + 1) * v->fr.cs);
	double share = busy_share(v, r, a, b, from, upto);
	int q = (int)ceil(share * DENSITY_STEPS);
	q = q < 1 ? 1 : q > DENSITY_STEPS ? DENSITY_STEPS : q;
	if (k->ncells < MAX_CELLS) {
		k->cells[k->ncells].x = (float)(c * v->fr.cs);
		k->cells[k->ncells].y = (float)round(yof(v, r));
		k->cells[k->ncells++].q = (uint8_t)q;
	}
}

/* The time a thread is drawn until (a should-resolve thread that never
 * resolved: the end of the trace). */
int64_t weft__end_drawn(const struct weft_view *v, uint32_t t)
{
	return v->rows.end[t] == INT64_MAX ? v->time.tmax : v->rows.end[t];
}

static void draw_thread(struct walk *k, const struct tset *s, uint32_t i, int r,
			double x0, double x1)
{
	uint32_t t = s->ix[i];
	struct weft_view *v = k->v;
	struct pen *p = k->p;
	double y = yof(v, r), rh = row_h(v, r);
	if (k->kind != P_HIGHLIGHT && !k->full && x1 - x0 < 2)
		return; /* (squeezed outlines: as the pass covered them) */
	switch (k->kind) {
	case P_HIGHLIGHT: {
		double hh = rh >= FULL ? 10 : rh < 2 ? 2 : rh;
		double a = x0 - k->pad, b = x1 + k->pad;
		if (b - a < 8) {
			a -= 4;
			b += 4;
		}
		box(k, a, b, round(y - hh / 2), hh);
		break;
	}
	case P_LINE: {
		/* the creation line: from the creator's row, for a thread
		 * wide enough to tell apart (`all` knows the rows) */
		int pr = x0 >= 0 && x0 <= v->geo.w && x1 - x0 >= 2 ? s->prow[i]
								   : -1;
		/* (between squeezed rows, only where rows can be told
		 * apart: 2 px or more) */
		if (pr >= 0 && pr != r &&
		    (k->full || (row_h(v, pr) < FULL && rh >= 2))) {
			double yp = round(yof(v, pr)), yc = round(y);
			double lw = k->full ? 2 : 1;
			double lx = round(x0) - (k->full ? 1 : 0);
			if (k->clines && k->nclines < MAX_CLINES)
				k->clines[k->nclines++] = (struct cline){
					(float)lx, (float)(yp < yc ? yp : yc),
					(float)fabs(yc - yp), (float)lw, pr};
			else
				rect(p, lx, yp < yc ? yp : yc, lw,
				     fabs(yc - yp));
		}
		if (k->full) /* (squeezed rows: as the pass covered them) */
			box(k, x0, x1, round(y) - 1, 2);
		if (k->full && s->pend[i] && x1 >= 0 && x1 <= v->geo.w &&
		    k->nmarks < MAX_MARKS) {
			/* pending at the end: a grey mark where it was
			 * last seen (drawn after the lines) */
			k->marks[k->nmarks][0] = x1;
			k->marks[k->nmarks++][1] = y;
		}
		break;
	}
	case P_BAD: {
		if (!k->full)
			break; /* (squeezed rows: as the pass covered them) */
		box(k, x0, x1, round(y) - 1, 2);
		if (x1 - x0 >= 8) { /* (its end, where it can be told) */
			weft__box_flush(k);
			k->seg = 1;
			k->sx0 = x1 - 1;
			k->sx1 = x1 + 1;
			k->sy = y - 8;
			k->sh = 16;
			weft__box_flush(k);
		}
		/* its message, where the last one left room, for a failure
		 * long enough to tell apart */
		if (x1 < k->text_x || x1 - x0 < 8)
			break;
		/* (the thread itself only now: zoomed out, a frame draws
		 * thousands of failures, each a miss in the threads) */
		const struct weft_thread *th = &k->th[t];
		const char *msg =
			is_never(th) ? "should-resolve thread never resolved"
				     : weft_model_string(v->m, th->message);
		double tw = p->c->text_width(p->c->ctx, FONT, msg);
		double tx = x1 - tw - 4 > x0 ? x1 - tw - 4 : x1 + 4;
		if (tx < k->text_x)
			break;
		weft__box_flush(k);
		text(p, tx, y - 5, msg);
		k->text_x = tx + tw + 8;
		break;
	}
	}
}

/* Draws the threads of set `s` on row r that show in the window, skipping
 * those that land only on columns this pass has drawn.  A thread thinner
 * than a pixel in a full row's outline pass is a column of density
 * instead, and the walk jumps past that column. */
static void walk_row(struct walk *k, const struct tset *s, int r)
{
	struct weft_view *v = k->v;
	const int64_t *s0 = s->t0 + s->off[r], *s1 = s->t1 + s->off[r];
	uint32_t n = s->off[r + 1] - s->off[r];
	if (!n)
		return;
	double y = yof(v, r);
	int dense = k->kind == P_LINE && k->full && s == &v->ix.all &&
		    v->ix.psum;
	double right = k->right > v->geo.w ? v->geo.w : k->right;
	k->text_x = -1e9;
	uint32_t i = weft__gallop(s1, 0, n, v->time.t0);
	if (k->kind == P_LINE && !k->full && i < n && s0[i] <= v->time.t0 &&
	    (s1[i] >= v->time.t1 ||
	     (s1[i] == INT64_MAX && k->right >= v->geo.w))) {
		/* a squeezed row that one thread crosses from edge to edge
		 * (the threads of a row do not overlap): nothing happens
		 * there in the window, it is drawn light */
		int iy = (int)floor(y / v->fr.rs);
		if (iy >= 0 && iy < v->fr.covh)
			v->fr.thru[iy] = v->fr.pass;
		return;
	}
	int *cr = weft__cov_row(v, y);
	int full_at;
	uint32_t gd = 0; /* (the last column's step, for the next) */
	if (!k->full && weft__cov_full(cr, 0, v->fr.covw - 1, &full_at))
		return; /* (a pixel row drawn across already: rows sharing
			   it add nothing) */
	while (i < n && s0[i] <= v->time.t1) {
		double x0 = xof(v, s0[i]);
		double x1 = s1[i] == INT64_MAX ? right : xof(v, s1[i]);
		int next;
		if (x1 - x0 < 1) {
			x1 = x0 + 1;
			if (dense) {
				int c = col(v, x0);
				int64_t b = tof(v, (c + 1) * v->fr.cs);
				/* the next column's first thread: the first
				 * ending at or after its start; threads of a
				 * row do not overlap, so the first starting
				 * after it is that one or the next */
				uint32_t e =
					weft__gallop_near(s1, i + 1, n, b, &gd);
				/* (the next column's start and sums, likely:
				 * the search asks for its ends) */
				uint32_t ne = e + (e - i);
				if (ne < n) {
					__builtin_prefetch(&s0[ne]);
					__builtin_prefetch(
						&v->ix.psum[s->off[r] +
							    (uint32_t)r + ne]);
				}
				if (!weft__cov_full(cr, c, c, &next)) {
					weft__cov_take(cr, c, c);
					density(k, r, c, i,
						e < n && s0[e] <= b ? e + 1
								    : e);
				}
				i = e;
				continue;
			}
		}
		if (weft__cov_full(cr, col(v, x0), col(v, x1), &next)) {
			i = weft__gallop(s1, i + 1, n, tof(v, next * v->fr.cs));
			continue;
		}
		weft__cov_take(cr, col(v, x0), col(v, x1));
		draw_thread(k, s, s->off[r] + i, r, x0, x1);
		i++;
	}
	weft__box_flush(k);
}

/* The pixel rows a squeezed pass covered: however many rows share a
 * pixel row, it is drawn once, as one mask where the canvas has masks
 * (one call for the whole squeezed picture), else one box per run of
 * columns. */
static void emit_cover(struct walk *k)
{
	struct weft_view *v = k->v;
	int y0 = -1, y1 = -1;
	for (int iy = 0; iy < v->fr.covh; iy++)
		if (v->fr.stamp[iy] == v->fr.pass) {
			y0 = y0 < 0 ? iy : y0;
			y1 = iy;
		}
	if (y0 < 0)
		return;
	int w = v->fr.covw, stride = (w + 3) & ~3, h = y1 - y0 + 1;
	int masked = k->p->c->mask && v->fr.cs == 1 && v->fr.rs == 1;
	if (masked && (size_t)stride * (size_t)h > v->fr.cmaskbuf) {
		unsigned char *b =
			realloc(v->fr.maskbuf, (size_t)stride * (size_t)h);
		if (b) {
			v->fr.maskbuf = b;
			v->fr.cmaskbuf = (size_t)stride * (size_t)h;
		} else
			masked = 0;
	}
	for (int iy = y0; iy <= y1; iy++) {
		const int *row = v->fr.cover + (size_t)iy * (size_t)v->fr.covw;
		int on = v->fr.stamp[iy] == v->fr.pass;
		if (masked) {
			unsigned char *m =
				v->fr.maskbuf + (size_t)(iy - y0) * stride;
			for (int c = 0; c < w; c++)
				m[c] = on && row[c] ? 255 : 0;
			continue;
		}
		for (int c = 0; on && c < w; c++) {
			if (!row[c])
				continue;
			int e = c + 1;
			while (e < w && row[e])
				e++;
			rect(k->p, c * v->fr.cs, iy * v->fr.rs,
			     (e - c) * v->fr.cs, v->fr.rs);
			c = e;
		}
	}
	if (masked) {
		k->p->c->mask(k->p->c->ctx, 0, y0, w, h, v->fr.maskbuf, stride);
		k->p->prims++;
	}
}

/* The pass's creation lines: those of a row that creates in most
 * columns (a listener, a loop arming everything) or, on full rows, from
 * a squeezed one faint, the others in the pass's colour. */
static void draw_clines(struct walk *k)
{
	struct weft_view *v = k->v;
	uint32_t *per = calloc((size_t)v->rows.nrows + 1, sizeof *per);
	double rgba[4];
	memcpy(rgba, k->p->rgba, sizeof rgba);
	for (int i = 0; per && i < k->nclines; i++)
		per[k->clines[i].prow]++;
	for (int faint = 0; faint < 2; faint++) {
		if (faint)
			color(k->p, rgba[0], rgba[1], rgba[2], rgba[3] * 0.25);
		for (int i = 0; i < k->nclines; i++) {
			const struct cline *c = &k->clines[i];
			/* (from a squeezed row: context, like its arrows) */
			int dense = (per &&
				     per[c->prow] * 8 > (uint32_t)v->fr.covw) ||
				    (k->full && row_h(v, c->prow) < FULL);
			if (dense == faint)
				rect(k->p, c->x, c->y, c->w, c->h);
		}
	}
	color(k->p, rgba[0], rgba[1], rgba[2], rgba[3]);
	free(per);
	k->nclines = 0;
}

/* The first bucket at or after b of a bitmap that is set (`set`) or
 * clear (!set), or OCC_BUCKETS. */
static int next_bit(const uint64_t *bits, int b, int set)
{
	if (b >= OCC_BUCKETS)
		return OCC_BUCKETS;
	uint64_t flip = set ? 0 : ~0ull;
	int w = b >> 6;
	uint64_t m = (bits[w] ^ flip) & (~0ull << (b & 63));
	while (!m) {
		if (++w == OCC_WORDS)
			return OCC_BUCKETS;
		m = bits[w] ^ flip;
	}
	return w * 64 + __builtin_ctzll(m);
}

/* The columns that show the buckets of the bitmaps, zoomed out (a
 * column spans a bucket or more): a run of buckets [b, e] is shown by
 * the columns [lo[b], hi[e]] (empty when lo[b] > hi[e]).  lo[b] is the
 * first column that ends at or after bucket b, hi[b] the last that
 * starts at or before it: both grow with b, as the columns do. */
struct bucket_cols {
	int16_t lo[OCC_BUCKETS], hi[OCC_BUCKETS];
	int16_t c0[16384], c1[16384]; /* each column's buckets */
};

static void bucket_cols(const struct weft_view *v, int ncol,
			struct bucket_cols *bc)
{
	double per = (double)OCC_BUCKETS / (double)v->ix.occ_span;
	int first = -1, last = -1;
	for (int c = 0; c < ncol; c++) {
		double ta = (double)(tof(v, c * v->fr.cs) - v->ix.occ_t0) * per;
		double tb =
			(double)(tof(v, (c + 1) * v->fr.cs) - v->ix.occ_t0) *
			per;
		if (tb < 0 || ta >= OCC_BUCKETS)
			continue; /* outside the trace */
		bc->c0[c] = (int16_t)(ta < 0 ? 0 : (int)ta);
		bc->c1[c] = (int16_t)(tb >= OCC_BUCKETS ? OCC_BUCKETS - 1
							: (int)tb);
		first = first < 0 ? c : first;
		last = c;
	}
	int b = 0;
	for (int c = first; c >= 0 && c <= last; c++)
		while (b <= bc->c1[c])
			bc->lo[b++] = (int16_t)c;
	while (b < OCC_BUCKETS)
		bc->lo[b++] = (int16_t)ncol;
	b = OCC_BUCKETS - 1;
	for (int c = last; c >= 0 && c >= first; c--)
		while (b >= 0 && b >= bc->c0[c])
			bc->hi[b--] = (int16_t)c;
	while (b >= 0)
		bc->hi[b--] = -1;
}

/* The squeezed rows' outlines zoomed out, from the rows' occupancy
 * bitmaps: the rows that share a pixel row ORed together, then each run
 * of set buckets covers the columns that show it. */
static void squeezed_from_bitmaps(struct walk *k)
{
	struct weft_view *v = k->v;
	uint64_t acc[OCC_WORDS];
	/* the columns col() gives, 0 to covw - 2: the row's last column is
	 * the sentinel that ends its "next free column" chains (coverage.c) */
	int iy_acc = -1, ncol = v->fr.covw - 1 < 16384 ? v->fr.covw - 1 : 16384;
	static struct bucket_cols bc;
	bucket_cols(v, ncol, &bc);
	for (int r = 0; r <= v->rows.nrows; r++) {
		int iy = -2;
		if (r < v->rows.nrows) {
			if (row_h(v, r) >= FULL)
				continue;
			iy = (int)floor(yof(v, r) / v->fr.rs);
		}
		if (iy != iy_acc && iy_acc >= 0 && iy_acc < v->fr.covh) {
			/* the pixel row gathered: its columns */
			int *cr = weft__cov_row(v, iy_acc * v->fr.rs);
			for (int b = next_bit(acc, 0, 1); b < OCC_BUCKETS;) {
				int e = next_bit(acc, b, 0);
				if (bc.lo[b] <= bc.hi[e - 1])
					weft__cov_take(cr, bc.lo[b],
						       bc.hi[e - 1]);
				b = next_bit(acc, e, 1);
			}
		}
		if (r == v->rows.nrows)
			break;
		if (iy != iy_acc) {
			memset(acc, 0, sizeof acc);
			iy_acc = iy;
		}
		const uint64_t *bits = v->ix.occ + (size_t)r * OCC_WORDS;
		for (int w = 0; w < OCC_WORDS; w++)
			acc[w] |= bits[w];
	}
}

/* Each row of set `s`, full ones or squeezed ones. */
void weft__walk_rows(struct walk *k, const struct tset *s)
{
	struct weft_view *v = k->v;
	v->fr.pass++;
	k->nclines = 0;
	/* the boxes of the pass, of its one colour, as one mask */
	struct mpen mp;
	weft__mpen_begin(&mp, v, k->p);
	k->mp = &mp;
	/* zoomed out (a pixel column spans a bucket or more), the squeezed
	 * outlines come from the rows' bitmaps */
	if (!k->full && k->kind == P_LINE && s == &v->ix.all && v->ix.occ &&
	    v->time.ns_per_px * v->fr.cs * OCC_BUCKETS >=
		    (double)v->ix.occ_span)
		squeezed_from_bitmaps(k);
	else
		for (int r = 0; r < v->rows.nrows; r++)
			if ((row_h(v, r) >= FULL) == k->full)
				walk_row(k, s, r);
	weft__mpen_end(&mp);
	k->mp = NULL;
	if (k->nclines)
		draw_clines(k);
	/* squeezed outlines and failures: what the rows covered */
	if (!k->full && k->kind == P_LINE) {
		/* rows crossed from edge to edge, light; the others over
		 * them, darker: what happens in the window stands out */
		double rgb[4];
		memcpy(rgb, k->p->rgba, sizeof rgb);
		color(k->p, 0.76, 0.76, 0.76, 1);
		for (int iy = 0; iy < v->fr.covh; iy++) {
			if (v->fr.thru[iy] != v->fr.pass)
				continue;
			int e = iy + 1;
			while (e < v->fr.covh && v->fr.thru[e] == v->fr.pass)
				e++;
			rect(k->p, 0, iy * v->fr.rs, v->geo.w,
			     (e - iy) * v->fr.rs);
			iy = e;
		}
		color(k->p, rgb[0], rgb[1], rgb[2], rgb[3]);
		emit_cover(k);
	} else if (!k->full && k->kind != P_HIGHLIGHT)
		emit_cover(k);
	if (k->full && k->ncells)
		weft__draw_density(k);
}

/* The density columns of the full rows: one colour, darker the busier,
 * so one mask of their shades where the canvas has masks (zoomed out, a
 * box a column and row: thousands of them a frame), else one box per
 * run of columns of one shade, shade by shade. */
void weft__draw_density(struct walk *k)
{
	struct weft_view *v = k->v;
	float y0 = 1e30f, y1 = -1e30f;
	for (int i = 0; i < k->ncells; i++) {
		y0 = k->cells[i].y < y0 ? k->cells[i].y : y0;
		y1 = k->cells[i].y > y1 ? k->cells[i].y : y1;
	}
	int w = (int)ceil(v->geo.w), stride = (w + 3) & ~3;
	int top = (int)y0 - 4, h = (int)y1 + 4 - top;
	unsigned char *m = NULL;
	if (k->p->c->mask && k->p->c->masks_for_boxes && v->fr.cs == 1 &&
	    k->ncells && top >= 0 && w > 0)
		m = weft__mask_room(v, (size_t)stride * (size_t)h);
	if (m) {
		memset(m, 0, (size_t)stride * (size_t)h);
		for (int i = 0; i < k->ncells; i++) {
			const struct cell *c = &k->cells[i];
			int x = (int)c->x;
			if (x < 0 || x >= w)
				continue;
			/* (the alpha of the boxes below, 0.2 to 1) */
			unsigned char a = (unsigned char)lround(
				255 * (0.2 + 0.8 * c->q / DENSITY_STEPS));
			for (int y = (int)c->y - 4 - top;
			     y < (int)c->y + 4 - top; y++) {
				unsigned char *px = m + (size_t)y * stride + x;
				*px = a > *px ? a : *px;
			}
		}
		color(k->p, 0.2, 0.2, 0.2, 1);
		k->p->c->mask(k->p->c->ctx, 0, top, w, h, m, stride);
		k->p->prims++;
		k->ncells = 0;
		return;
	}
	for (int q = 1; q <= DENSITY_STEPS; q++) {
		int any = 0;
		for (int i = 0; i < k->ncells; i++) {
			if (k->cells[i].q != q)
				continue;
			if (!any)
				color(k->p, 0.2, 0.2, 0.2,
				      0.2 + 0.8 * q / DENSITY_STEPS);
			any = 1;
			/* (a run of columns of one shade: one box; cells are
			 * in column order along each row) */
			int e = i + 1;
			while (e < k->ncells && k->cells[e].q == q &&
			       k->cells[e].y == k->cells[i].y &&
			       k->cells[e].x - k->cells[e - 1].x <=
				       k->v->fr.cs + 0.5)
				e++;
			rect(k->p, k->cells[i].x, k->cells[i].y - 4,
			     k->cells[e - 1].x - k->cells[i].x + k->v->fr.cs,
			     8);
			i = e - 1;
		}
	}
	k->ncells = 0;
}

/* Runs, white, on the full rows: 4 px boxes over the line, joined where
 * they touch, one per pixel column at most. */
void weft__draw_runs(struct weft_view *v, struct pen *p)
{
	struct walk k = {.v = v, .p = p};
	struct mpen mp;
	color(p, 1, 1, 1, 1);
	weft__mpen_begin(&mp, v, p);
	k.mp = &mp;
	v->fr.pass++;
	/* the rows drawn in full: the focus band, and the squeezed rows
	 * above or below it when they are still FULL px tall */
	int r0 = v->geo.hu >= FULL ? 0 : v->geo.fa;
	int r1 = v->geo.hd >= FULL ? v->rows.nrows : v->geo.fa + v->geo.fk;
	for (int r = r0; r < r1; r++) {
		if (row_h(v, r) < FULL)
			continue;
		const int64_t *u0 = v->ix.rrun_t0 + v->ix.rroff[r];
		const int64_t *u1 = v->ix.rrun_t1 + v->ix.rroff[r];
		uint32_t n = v->ix.rroff[r + 1] - v->ix.rroff[r];
		double y = round(yof(v, r)) - 2;
		int *cr = weft__cov_row(v, y + 2);
		uint32_t i = weft__gallop(u1, 0, n, v->time.t0), gd = 0;
		while (i < n && u0[i] <= v->time.t1) {
			double x0 = xof(v, u0[i]), x1 = xof(v, u1[i]);
			int next;
			if (x1 - x0 < 1 && !is_top(v, r)) {
				/* (runs thinner than a pixel, below the
				 * long-lived rows: the density shading says
				 * how busy; the loop's runs are drawn) */
				i = weft__gallop_near(
					u1, i + 1, n,
					tof(v, (col(v, x0) + 1) * v->fr.cs),
					&gd);
				if (gd < n - i) /* (the next one's start) */
					__builtin_prefetch(&u0[i + gd]);
				continue;
			}
			if (x1 - x0 < 1)
				x1 = x0 + 1;
			if (weft__cov_full(cr, col(v, x0), col(v, x1), &next)) {
				i = weft__gallop_near(u1, i + 1, n,
						      tof(v, next * v->fr.cs),
						      &gd);
				if (gd < n - i)
					__builtin_prefetch(&u0[i + gd]);
				continue;
			}
			weft__cov_take(cr, col(v, x0), col(v, x1));
			box(&k, x0, x1, y, 4);
			i++;
		}
		weft__box_flush(&k);
	}
	weft__mpen_end(&mp);
}

/* First span in [lo, hi) of a row's list whose latest end so far is at
 * or after t (galloping from lo). */
static uint32_t span_from(const struct weft_view *v, uint32_t lo, uint32_t hi,
			  int64_t t, uint32_t *d)
{
	uint32_t i = weft__gallop_near(v->ix.rsp_max, lo, hi, t, d),
		 nx = i + *d;
	if (nx < hi) { /* (the next search's span, likely: its times) */
		__builtin_prefetch(&v->ix.rsp_t0[nx]);
		__builtin_prefetch(&v->ix.rsp_t1[nx]);
	}
	return i;
}

/* A span's name, where it fits: a span 30 px wide or more, at depth 0. */
struct sname {
	double x0, x1, yr;
	uint32_t si;
};

static void span_name(struct weft_view *v, struct pen *p,
		      const struct weft_interval *iv, const struct sname *s)
{
	const char *name = weft_model_name(v->m, iv[s->si].name);
	double tw = p->c->text_width(p->c->ctx, FONT * 0.8, name);
	if (s->x1 - s->x0 > tw + 6) {
		p->c->text(p->c->ctx, (s->x0 < LEFT ? LEFT : s->x0) + 2,
			   s->yr + 12, FONT * 0.8, name);
		p->prims++;
	}
}

#define SPAN_NAMES 1024 /* names a walk keeps for after the bars */

/* Spans: thin teal bars under the line (nested ones lower), with their
 * name where it fits; on the full rows, one bar per pixel column and
 * depth at most.  The bars first, as one mask (a few boxes a pixel
 * column), then the names, of the spans the bars' walk kept (a second
 * walk, the same, when there were more than it keeps). */
void weft__draw_spans(struct weft_view *v, struct pen *p)
{
	uint32_t n;
	const struct weft_interval *iv =
		weft_model_intervals(v->m, WEFT_INTERVAL_SPAN, &n);
	struct walk k = {.v = v, .p = p};
	int r0 = v->geo.hu >= FULL ? 0 : v->geo.fa;
	int r1 = v->geo.hd >= FULL ? v->rows.nrows : v->geo.fa + v->geo.fk;
	struct mpen mp;
	struct sname kept[SPAN_NAMES];
	int nkept = 0, over = 0;
	for (int names = 0; names < 2; names++) {
		if (names && !over) {
			for (int j = 0; j < nkept; j++)
				span_name(v, p, iv, &kept[j]);
			break;
		}
		v->fr.pass++;
		color(p, 0, 0.55, 0.55, 1);
		weft__mpen_begin(&mp, v, p);
		for (int r = r0; r < r1; r++) {
			if (row_h(v, r) < FULL)
				continue;
			uint32_t end = v->ix.rspoff[r + 1];
			uint32_t gd = 0, i = span_from(v, v->ix.rspoff[r], end,
						       v->time.t0, &gd);
			double yr = round(yof(v, r));
			while (i < end && v->ix.rsp_t0[i] <= v->time.t1) {
				int64_t a = v->ix.rsp_t0[i],
					b = v->ix.rsp_t1[i];
				uint32_t d = v->ix.rsp_d[i];
				double x0 = xof(v, a), x1 = xof(v, b);
				if (x1 - x0 < 1)
					x1 = x0 + 1;
				double y = yr + 3 + (d * 5 + 1) / 2;
				int *cr = weft__cov_row(v, y);
				int next;
				if (b < v->time.t0) {
					i++;
					continue;
				}
				if (weft__cov_full(cr, col(v, x0), col(v, x1),
						   &next)) {
					i = span_from(v, i + 1, end,
						      tof(v, next * v->fr.cs),
						      &gd);
					continue;
				}
				weft__cov_take(cr, col(v, x0), col(v, x1));
				uint32_t si = v->ix.rsp[i++];
				struct sname sn = {x0, x1, yr, si};
				if (names) {
					if (x1 - x0 >= 30 && !d)
						span_name(v, p, iv, &sn);
					continue;
				}
				if (x1 - x0 >= 30 && !d) {
					if (nkept < SPAN_NAMES)
						kept[nkept++] = sn;
					else
						over = 1;
				}
				if (mp.on)
					weft__mpen_box(&mp, x0, y, x1 - x0, 2);
				else
					box(&k, x0, x1, y, 2);
			}
			weft__box_flush(&k);
		}
		weft__mpen_end(&mp);
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
		{"timers", {0.85, 0.55, 0.1}},	{"pending", {0.75, 0.3, 0.3}},
		{"idle", {0.55, 0.55, 0.55}},	{"prepare", {0.5, 0.4, 0.7}},
		{"poll", {0.25, 0.45, 0.75}},	{"check", {0.3, 0.6, 0.35}},
		{"closing", {0.45, 0.3, 0.15}},
	};
	static const double hashed[6][3] = {
		{0.6, 0.3, 0.6},  {0.3, 0.55, 0.55}, {0.65, 0.5, 0.2},
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

/* First phase of [lo, hi) in a stream's list that ends at or after t.
 * The next search's phase, likely, is asked for (in two steps: its index
 * was asked for the search before). */
static uint32_t phase_from(const struct weft_view *v,
			   const struct weft_interval *iv, uint32_t lo,
			   uint32_t hi, int64_t t, uint32_t *d)
{
	uint32_t i = weft__gallop_near(v->ix.ph_t1, lo, hi, t, d), nx = i + *d;
	if (nx < hi) {
		__builtin_prefetch(&iv[v->ix.ph_ix[nx]]);
		if (*d < hi - nx)
			__builtin_prefetch(&v->ix.ph_ix[nx + *d]);
	}
	return i;
}

/* An event loop's phases: a coloured bar under the line of the thread
 * current when each began (the loop), its name where it fits.  Phases of
 * one OS thread are disjoint and in order: once a pixel is drawn, the
 * search jumps to the first phase that reaches past it, so a frame draws
 * at most one bar per pixel column and loop.  Bars are gathered and drawn
 * colour by colour (phases alternate: a colour change per bar would be a
 * stroke per bar), names last. */
#define PHASE_COLOURS 16

struct pbar {
	float x0, x1, y;
	uint32_t name;
	uint8_t colour;
};

void weft__draw_phases(struct weft_view *v, struct pen *p)
{
	uint32_t n;
	const struct weft_interval *iv =
		weft_model_intervals(v->m, WEFT_INTERVAL_PHASE, &n);
	/* the colours of the names seen in this frame */
	uint32_t names[PHASE_COLOURS];
	double rgb[PHASE_COLOURS][3];
	int ncol = 0, nbar = 0;
	size_t cap = (size_t)v->ix.ph_nst * ((size_t)v->fr.covw + 2) + 1;
	if (cap > v->fr.cpbar) {
		struct pbar *b = realloc(v->fr.pbar, cap * sizeof *b);
		if (!b)
			return;
		v->fr.pbar = b;
		v->fr.cpbar = cap;
	}
	struct pbar *bar = v->fr.pbar;
	for (uint32_t s = 0; s < v->ix.ph_nst; s++) {
		uint32_t end = v->ix.ph_off[s + 1];
		double last = -1e9;
		uint32_t gd = 0, i = phase_from(v, iv, v->ix.ph_off[s], end,
						v->time.t0, &gd);
		while (i < end && (size_t)nbar < cap) {
			const struct weft_interval *ph = &iv[v->ix.ph_ix[i]];
			if (ph->t0 > v->time.t1)
				break;
			double x0 = xof(v, ph->t0), x1 = xof(v, ph->t1);
			if (x1 < last + 0.5) {
				/* under what is drawn: jump past it */
				i = phase_from(v, iv, i + 1, end,
					       tof(v, last + 0.5), &gd);
				continue;
			}
			i++;
			/* whole pixels: crisp bars, one colour per column */
			x0 = round(x0 < last	   ? last
				   : x0 < LEFT - 1 ? LEFT - 1
						   : x0);
			x1 = round(x1 > v->geo.w + 1 ? v->geo.w + 1 : x1);
			if (x1 - x0 < 1)
				x1 = x0 + 1;
			last = x1; /* (drawn or not: a loop on a squeezed row
				      is skipped as fast) */
			int r = ph->thread < v->rows.nthreads
					? v->rows.row[ph->thread]
					: -1;
			if (r < 0 || row_h(v, r) < FULL)
				continue;
			int c = 0;
			while (c < ncol && names[c] != ph->name)
				c++;
			if (c == ncol && ncol < PHASE_COLOURS) {
				names[ncol] = ph->name;
				phase_rgb(weft_model_name(v->m, ph->name),
					  rgb[ncol++]);
			}
			if (c == PHASE_COLOURS)
				c = 0; /* (more names than colours) */
			bar[nbar++] = (struct pbar){(float)x0, (float)x1,
						    (float)round(yof(v, r)),
						    ph->name, (uint8_t)c};
		}
	}
	for (int c = 0; c < ncol; c++) {
		struct mpen mp; /* (a colour's bars, one a column: a mask) */
		color(p, rgb[c][0], rgb[c][1], rgb[c][2], 1);
		weft__mpen_begin(&mp, v, p);
		for (int b = 0; b < nbar; b++)
			if (bar[b].colour == c)
				weft__mpen_box(&mp, bar[b].x0, bar[b].y + 3,
					       bar[b].x1 - bar[b].x0, 3);
		weft__mpen_end(&mp);
	}
	for (int b = 0; b < nbar; b++) {
		if (bar[b].x1 - bar[b].x0 <= 30)
			continue;
		const char *name = weft_model_name(v->m, bar[b].name);
		double tw = p->c->text_width(p->c->ctx, FONT * 0.8, name);
		if (bar[b].x1 - bar[b].x0 > tw + 6) {
			const double *c = rgb[bar[b].colour];
			color(p, c[0], c[1], c[2], 1);
			p->c->text(p->c->ctx, bar[b].x0 + 2, bar[b].y + 14,
				   FONT * 0.8, name);
			p->prims++;
		}
	}
}
