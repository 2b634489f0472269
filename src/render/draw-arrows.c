/* SPDX-License-Identifier: MIT */
/*
 * draw-arrows.c - arrows, gathered and drawn by kind and opacity.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "view-internal.h"
#include "common/grow.h"

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

/* An arrow to draw: its ends and its colour group (kind and opacity). */
struct adraw {
	float x0, y0, x1, y1, len;
	int32_t from_row;
	uint16_t group;
	uint8_t head, slant;
};

/* Opacities are drawn in steps of 1/ALPHA_STEPS: arrows of one kind and
 * step share a colour, so a frame changes colour a few dozen times rather
 * than once per arrow (a fading arrow's opacity depends on its length). */
#define ALPHA_STEPS 32
#define AGROUPS (WEFT_ARROW_KINDS * (ALPHA_STEPS + 1))

/* Room for n gathered arrows; 0 when memory is short. */
static int arrows_room(struct weft_view *v, size_t n)
{
	/* two arrays of one capacity: it grows when both have */
	size_t c = v->fr.cad, c2 = v->fr.cad;
	if (weft__grow_to(&v->fr.ad, &c, n, sizeof *v->fr.ad, 1024, SIZE_MAX) ||
	    weft__grow_to(&v->fr.ad2, &c2, n, sizeof *v->fr.ad2, 1024,
			  SIZE_MAX))
		return 0;
	v->fr.cad = c;
	return 1;
}

/* The pixels of slanted lines a frame draws at most: an antialiased
 * slanted line costs a back end about its length (cairo: some 30 ns a
 * pixel), so past this budget the longest arrows, also the faintest, are
 * left out.  Upright ones are 1 px boxes: cheap whatever their length. */
#define SLANT_BUDGET 100000.0
#define MAX_HEADS 500	 /* a triangle each: heads of the shortest */
#define ARROW_CROWD 3000 /* arrows in a frame; beyond, all fainter */
#define DENSE 2		 /* arrows in one column out of DENSE: "dense" */
#define LEN_BUCKETS 64

/* The length beyond which slanted arrows are left out (or +inf). */
static double slant_cut(const struct weft_view *v, size_t n)
{
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		if (v->fr.ad[i].slant)
			sum += v->fr.ad[i].len;
	if (sum <= SLANT_BUDGET)
		return 1e300;
	/* lengths by bucket (up to ARROW_FADE), shortest first */
	double per[LEN_BUCKETS] = {0};
	for (size_t i = 0; i < n; i++)
		if (v->fr.ad[i].slant) {
			int b = (int)(v->fr.ad[i].len * LEN_BUCKETS /
				      ARROW_FADE);
			per[b < LEN_BUCKETS ? b : LEN_BUCKETS - 1] +=
				v->fr.ad[i].len;
		}
	double acc = 0;
	for (int b = 0; b < LEN_BUCKETS; b++) {
		if (acc + per[b] > SLANT_BUDGET)
			return b * ARROW_FADE / LEN_BUCKETS;
		acc += per[b];
	}
	return 1e300;
}

/* The length from which arrows get no head (or +inf): MAX_HEADS at
 * most, the shortest arrows' (a long one is seen by its line). */
static double heads_cut(const struct weft_view *v, size_t n)
{
	uint32_t per[LEN_BUCKETS] = {0}, all = 0;
	for (size_t i = 0; i < n; i++)
		if (v->fr.ad[i].head && v->fr.ad[i].len >= 12) {
			int b = (int)(v->fr.ad[i].len * LEN_BUCKETS /
				      ARROW_FADE);
			per[b < LEN_BUCKETS ? b : LEN_BUCKETS - 1]++;
			all++;
		}
	if (all <= MAX_HEADS)
		return 1e300;
	uint32_t acc = 0;
	for (int b = 0; b < LEN_BUCKETS; b++) {
		if (acc + per[b] > MAX_HEADS)
			return b * ARROW_FADE / LEN_BUCKETS;
		acc += per[b];
	}
	return 1e300;
}

/* Draws the gathered arrows group by group: in each, the lines, then
 * their heads (a back end draws a run of lines, or of shapes, at once). */
static void flush_arrows(struct weft_view *v, struct pen *p, size_t n)
{
	uint32_t start[AGROUPS + 1] = {0};
	double cut = slant_cut(v, n), head_cut = heads_cut(v, n);
	/* a row whose arrows leave in most columns (a loop resolving
	 * everything): they say "all the time" and hide the rows they
	 * cross; drawn faint, headless */
	if (n > (size_t)v->fr.covw / DENSE && v->rows.nrows > 0) {
		uint32_t *per = calloc((size_t)v->rows.nrows, sizeof *per);
		for (size_t i = 0; per && i < n; i++)
			if (v->fr.ad[i].from_row >= 0 &&
			    v->fr.ad[i].from_row < v->rows.nrows)
				per[v->fr.ad[i].from_row]++;
		for (size_t i = 0; per && i < n; i++) {
			struct adraw *d = &v->fr.ad[i];
			if (d->from_row < 0 || d->from_row >= v->rows.nrows ||
			    per[d->from_row] * DENSE <= (uint32_t)v->fr.covw)
				continue;
			int q = d->group % (ALPHA_STEPS + 1);
			int nq = q / 4 > 1 ? q / 4 : 1;
			d->group = (uint16_t)(d->group - q + nq);
			d->head = 0;
		}
		free(per);
	}
	if (n > ARROW_CROWD) {
		/* a crowd of arrows (zoomed out) is a texture: each in
		 * proportion fainter, so that what they cross shows */
		double f = (double)ARROW_CROWD / (double)n;
		for (size_t i = 0; i < n; i++) {
			struct adraw *d = &v->fr.ad[i];
			int q = d->group % (ALPHA_STEPS + 1);
			int nq = (int)lround(q * f);
			nq = nq < 1 ? 1 : nq;
			d->group = (uint16_t)(d->group - q + nq);
		}
	}
	for (size_t i = 0; i < n; i++)
		start[v->fr.ad[i].group + 1]++;
	for (int g = 0; g < AGROUPS; g++)
		start[g + 1] += start[g];
	uint32_t at[AGROUPS];
	memcpy(at, start, sizeof at);
	for (size_t i = 0; i < n; i++)
		v->fr.ad2[at[v->fr.ad[i].group]++] = v->fr.ad[i];
	p->c->line_width(p->c->ctx, 1);
	for (int g = 0; g < AGROUPS; g++) {
		if (start[g] == start[g + 1])
			continue;
		int kind = g / (ALPHA_STEPS + 1), q = g % (ALPHA_STEPS + 1);
		double rgb[3];
		weft_arrow_color(kind, rgb); /* (WEFT_ARROW_MAP's) */
		color(p, rgb[0], rgb[1], rgb[2], (double)q / ALPHA_STEPS);
		for (uint32_t i = start[g]; i < start[g + 1]; i++) {
			const struct adraw *d = &v->fr.ad2[i];
			if (!d->slant) { /* upright: a 1 px box */
				double x = floor(d->x1);
				rect(p, x, d->y0 < d->y1 ? d->y0 : d->y1, 1,
				     fabs(d->y1 - d->y0));
			} else if (d->len < cut)
				line(p, d->x0, d->y0, d->x1, d->y1);
		}
		for (uint32_t i = start[g]; i < start[g + 1]; i++) {
			const struct adraw *d = &v->fr.ad2[i];
			if (d->head && d->len >= 12 && d->len < head_cut &&
			    (!d->slant || d->len < cut))
				arrowhead(p, d->x0, d->y0, d->x1, d->y1);
		}
	}
}

/* One arrow, if it shows: from time tf on row rf to time t on row rt,
 * into the frame's batch (or, for a become, a vertical line at once).
 * `faint`: an end is on a squeezed row. */
static int one_arrow(struct weft_view *v, struct pen *p, int kind, int64_t tf,
		     int64_t t, int rf, int rt, size_t *n, int faint)
{
	double x0 = xof(v, tf), x1 = xof(v, t);
	double y0 = yof(v, rf), y1 = yof(v, rt);
	if ((x0 < 0 && x1 < 0) || (x0 > v->geo.w && x1 > v->geo.w))
		return 0;
	if (kind == WEFT_ARROW_BECOME || kind == WEFT_ARROW_CREATE) {
		/* a merge: a vertical line, like a creation (and a
		 * creation into a collapsed process, to its header) */
		color(p, 0.2, 0.2, 0.2, faint ? 0.4 : 1);
		x1 = round(x1);
		rect(p, x1 - 1, y0 < y1 ? y0 : y1, 2, fabs(y1 - y0));
		return 1;
	}
	double len = hypot(x1 - x0, y1 - y0);
	double alpha = 1 - len / ARROW_FADE;
	if (faint)
		alpha *= 0.35;
	int q = (int)lround(alpha * ALPHA_STEPS);
	if (alpha <= 0.01 || q <= 0)
		return 0;
	if (*n == v->fr.cad && !arrows_room(v, *n + 1)) {
		/* short of memory: draw what was gathered */
		flush_arrows(v, p, *n);
		*n = 0;
		if (!v->fr.cad)
			return 0;
	}
	struct adraw *d = &v->fr.ad[(*n)++];
	d->x0 = (float)x0;
	d->y0 = (float)y0;
	d->x1 = (float)x1;
	d->y1 = (float)y1;
	d->group = (uint16_t)(kind * (ALPHA_STEPS + 1) +
			      (q > ALPHA_STEPS ? ALPHA_STEPS : q));
	d->head = !faint;
	d->len = (float)len;
	d->slant = fabs(x1 - x0) >= 1;
	d->from_row = rf;
	return 1;
}

#define TRIES 8	     /* arrows from squeezed rows looked at per column */
#define PER_COLUMN 2 /* arrows landing in one pixel column, at most */

/* Arrows between full rows, found by the row they land on and their
 * kind, in time order: a frame looks at one per pixel column for each
 * (a few more where the first ones come from squeezed rows), however
 * many the window holds.  Arrows with an end on a squeezed row are
 * context: drawn faint, for the selection and its chain only. */
void weft__draw_arrows(struct weft_view *v, struct pen *p,
		       const struct weft_thread *th)
{
	uint32_t narr;
	const struct weft_arrow *ar = weft_model_arrows(v->m, &narr);
	/* an arrow is drawn from its source's time (reads: when the source
	 * ended) to its time: a read may end far right of the window and
	 * still show, up to ARROW_FADE px */
	int64_t last_read = tof(v, v->geo.w + ARROW_FADE);
	size_t n = 0;
	memset(v->fr.acov, 0, (size_t)v->fr.covw * sizeof *v->fr.acov);
	memset(v->fr.acount, 0, (size_t)v->fr.covw);
	int r0 = v->geo.hu >= FULL ? 0 : v->geo.fa;
	int r1 = v->geo.hd >= FULL ? v->rows.nrows : v->geo.fa + v->geo.fk;
	for (int r = r0; r < r1; r++) {
		if (row_h(v, r) < FULL)
			continue;
		for (int kind = 0; kind < WEFT_ARROW_KINDS; kind++) {
			uint32_t key =
				(uint32_t)r * WEFT_ARROW_KINDS + (uint32_t)kind;
			uint32_t end = v->ix.arr_off[key + 1];
			int read = kind == WEFT_ARROW_READ ||
				   kind == WEFT_ARROW_READ_FAILED;
			int64_t last = read ? last_read : v->time.t1;
			uint32_t gd = 0, i = weft__gallop(v->ix.arr_t,
							  v->ix.arr_off[key],
							  end, v->time.t0);
			int lastcol = -1, tries = 0;
			size_t batch = n;
			if (!++v->fr.seen_gen) { /* (a fresh mark, or clear) */
				memset(v->fr.seen, 0, (size_t)v->fr.covw);
				v->fr.seen_gen = 1;
			}
			while (i < end && v->ix.arr_t[i] <= last) {
				double x1 = xof(v, v->ix.arr_t[i]);
				int c = x1 <= v->geo.w ? col(v, x1) : -1;
				int next;
				if (c >= 0 &&
				    (c == lastcol ||
				     weft__cov_full(v->fr.acov, c, c, &next))) {
					/* one per column for this row and kind,
					 * PER_COLUMN in all: on to the next
					 * column with room */
					if (c == lastcol)
						next = c + 1;
					next = next > c ? next : c + 1;
					int free_c;
					if (weft__cov_full(v->fr.acov, next,
							   v->fr.covw - 1,
							   &free_c))
						next = v->fr.covw; /* none left */
					else
						next = free_c;
					i = weft__gallop_near(
						v->ix.arr_t, i + 1, end,
						tof(v, next * v->fr.cs), &gd);
					if (gd < end - i) { /* (the next's) */
						__builtin_prefetch(
							&v->ix.arr_rf[i + gd]);
						__builtin_prefetch(
							&v->ix.arr_tf[i + gd]);
					}
					tries = 0;
					continue;
				}
				uint32_t k = i++;
				int rf = v->ix.arr_rf[k];
				if (row_h(v, rf) < FULL) {
					if (c >= 0 && ++tries >= TRIES)
						lastcol = c;
					continue;
				}
				if (c < 0) {
					/* beyond the right edge: once per
					 * column where one starts */
					double x0 = xof(v, v->ix.arr_tf[k]);
					if (x0 < 0 || x0 > v->geo.w)
						continue;
					uint8_t *cell = &v->fr.seen[col(v, x0)];
					if (*cell == v->fr.seen_gen)
						continue;
					*cell = v->fr.seen_gen;
				}
				if (one_arrow(v, p, kind, v->ix.arr_tf[k],
					      v->ix.arr_t[k], rf, r, &n, 0)) {
					lastcol = c;
					if (c >= 0 &&
					    ++v->fr.acount[c] >= PER_COLUMN)
						weft__cov_take(v->fr.acov, c,
							       c);
				}
				tries = 0;
			}
			/* an arrow of this kind into this row in most
			 * columns: a texture that says "all the time" and
			 * hides the rows it crosses; drawn faint, headless */
			if (n > batch &&
			    (n - batch) * DENSE > (size_t)v->fr.covw)
				for (size_t j = batch; j < n; j++) {
					struct adraw *d = &v->fr.ad[j];
					int q = d->group % (ALPHA_STEPS + 1);
					q = q / 4 > 1 ? q / 4 : 1;
					d->group =
						(uint16_t)(d->group -
							   d->group %
								   (ALPHA_STEPS +
								    1) +
							   q);
					d->head = 0;
				}
		}
	}
	/* the selection's and the chain's arrows with an end squeezed */
	uint32_t nsel = 0;
	if (v->ix.chain.n <= MAX_CONTEXT)
		nsel = v->ix.chain.n;
	for (uint32_t k = 0; k <= nsel; k++) {
		uint32_t t = k < nsel ? v->ix.chain.ix[k] : v->sel.selected;
		if (t >= v->rows.nthreads || v->rows.row[t] < 0 ||
		    (k == nsel && v->sel.chm[t]))
			continue;
		uint32_t na;
		const uint32_t *ai = weft_model_thread_arrows(v->m, t, &na);
		for (uint32_t j = 0; j < na; j++) {
			const struct weft_arrow *a = &ar[ai[j]];
			if (a->to != t &&
			    !(a->from == t && !v->sel.chm[a->to] &&
			      a->to != v->sel.selected))
				continue; /* (each arrow once: at its end) */
			if (a->kind == WEFT_ARROW_CREATE || a->from == a->to ||
			    (a->flags & WEFT_ARROW_FOLLOWED) ||
			    a->from >= v->rows.nthreads ||
			    a->to >= v->rows.nthreads ||
			    v->rows.row[a->from] < 0 || v->rows.row[a->to] < 0)
				continue;
			if (a->t < v->time.t0 || a->t > last_read)
				continue;
			if (row_h(v, v->rows.row[a->from]) >= FULL &&
			    row_h(v, v->rows.row[a->to]) >= FULL)
				continue; /* (drawn above) */
			int64_t tf = a->t;
			if ((a->kind == WEFT_ARROW_READ ||
			     a->kind == WEFT_ARROW_READ_FAILED) &&
			    th[a->from].t_end < a->t)
				tf = th[a->from].t_end;
			one_arrow(v, p, a->kind, tf, a->t, v->rows.row[a->from],
				  v->rows.row[a->to], &n, 1);
		}
	}
	flush_arrows(v, p, n);
}
