/* SPDX-License-Identifier: MIT */
/*
 * chain.c - the causal chain of a thread (model.h): what led to it, what
 * it led to, stopping at hubs and treating a repeating source as one.
 *
 * Each direction is a walk in rounds (Bellman-Ford): round k expands the
 * threads whose time limit improved in round k - 1, with the limit they
 * had then, so `depth` counts arrows exactly.  lim[y] is, backwards, the
 * latest time at which what happened to y still matters to the subject
 * (an arrow into y counts if it happened at or before it), forwards the
 * earliest time from which what y did comes from the subject.  A limit
 * only improves, so a thread is expanded again only when it would reach
 * more.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weft/model.h"

#define HUB_MIN 16  /* distinct threads a hub interacts with, at least */
#define HUB_RATIO 8 /* times the median of its neighbours' */

struct walk {
	const struct weft_model *m;
	const struct weft_thread *th;
	const struct weft_arrow *ar;
	uint32_t n;
	uint32_t *deg;	 /* distinct neighbours, lazily (UINT32_MAX: unknown) */
	uint8_t *hub;	 /* 0 unknown, 1 no, 2 yes */
	uint32_t *stamp; /* for counting distinct neighbours: == mark */
	uint32_t mark;
	uint32_t *head; /* first activation of a thread's source, lazily */
	int64_t *lim;
	uint32_t *pos; /* a thread's place in the next frontier, or NONE */
	uint8_t *lane; /* reached as part of its source (forwards) */
};

/* Which way causality flows along an arrow: from `src` to `dst`.  A wait
 * (try_read) makes the waiter depend on what it waits on. */
static void arrow_ends(const struct weft_arrow *a, uint32_t *src, uint32_t *dst)
{
	if (a->kind == WEFT_ARROW_TRY_READ) {
		*src = a->to;
		*dst = a->from;
	} else {
		*src = a->from;
		*dst = a->to;
	}
}

static int is_root(const struct walk *w, uint32_t t)
{
	return w->th[t].flags & WEFT_THREAD_ROOT;
}

/* A fresh mark for stamping threads once each. */
static uint32_t new_mark(struct walk *w)
{
	if (++w->mark == 0) {
		memset(w->stamp, 0, ((size_t)w->n + 1) * sizeof *w->stamp);
		w->mark = 1;
	}
	return w->mark;
}

/* The distinct threads (OS threads aside) t has arrows with; if `nb`,
 * they are stored there too. */
static uint32_t neighbours(struct walk *w, uint32_t t, uint32_t *nb)
{
	uint32_t k, d = 0, mark = new_mark(w);
	const uint32_t *ai = weft_model_thread_arrows(w->m, t, &k);
	for (uint32_t i = 0; i < k; i++) {
		const struct weft_arrow *a = &w->ar[ai[i]];
		uint32_t o = a->from == t ? a->to : a->from;
		if (o >= w->n || o == t || is_root(w, o) || w->stamp[o] == mark)
			continue;
		w->stamp[o] = mark;
		if (nb)
			nb[d] = o;
		d++;
	}
	return d;
}

static uint32_t degree(struct walk *w, uint32_t t)
{
	if (w->deg[t] == UINT32_MAX)
		w->deg[t] = neighbours(w, t, NULL);
	return w->deg[t];
}

/* k-th smallest of a[0..n) (quickselect; a is reordered). */
static uint32_t select_k(uint32_t *a, uint32_t n, uint32_t k)
{
	uint32_t lo = 0, hi = n - 1;
	while (lo < hi) {
		uint32_t pivot = a[lo + (hi - lo) / 2], i = lo, j = hi;
		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				uint32_t x = a[i];
				a[i] = a[j];
				a[j] = x;
				i++;
				if (!j)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return a[k];
}

/* A hub interacts with at least HUB_MIN threads and HUB_RATIO times as
 * many as the median of those it interacts with. */
static int hub(struct walk *w, uint32_t t)
{
	if (w->hub[t])
		return w->hub[t] == 2;
	w->hub[t] = 1;
	uint32_t d = degree(w, t);
	if (d < HUB_MIN)
		return 0;
	uint32_t *nb = malloc((size_t)d * sizeof *nb);
	if (!nb)
		return 0;
	uint32_t c = neighbours(w, t, nb);
	for (uint32_t i = 0; i < c; i++)
		nb[i] = degree(w, nb[i]);
	uint32_t med = c ? select_k(nb, c, c / 2) : 0;
	free(nb);
	if ((uint64_t)d >= (uint64_t)HUB_RATIO * med)
		w->hub[t] = 2;
	return w->hub[t] == 2;
}

/* The first activation of t's source (t itself if it continues nothing). */
static uint32_t head(struct walk *w, uint32_t t)
{
	uint32_t x = t;
	while (w->head[x] == WEFT_NONE && weft_model_continues(w->m, x))
		x = w->th[x].parent;
	uint32_t h = w->head[x] != WEFT_NONE ? w->head[x] : x;
	/* remember it along the way */
	for (x = t; w->head[x] == WEFT_NONE && x != h; x = w->th[x].parent)
		w->head[x] = h;
	w->head[h] = h;
	return h;
}

struct front {
	uint32_t t;
	int64_t lim;
};

struct fronts {
	struct front *a, *b; /* this round's, the next round's */
	uint32_t na, nb;
};

/* y's limit improves to l in this round: into the next frontier. */
static void reach(struct walk *w, struct fronts *f, struct weft_chain *c,
		  uint32_t y, int64_t l, uint8_t flag)
{
	w->lim[y] = l;
	if (!c->in[y])
		c->size++;
	c->in[y] |= WEFT_CHAIN_IN | flag;
	if (w->pos[y] != WEFT_NONE)
		f->b[w->pos[y]].lim = l;
	else {
		w->pos[y] = f->nb;
		f->b[f->nb++] = (struct front){y, l};
	}
}

/* One direction from the subject s: back (dir < 0) or forward. */
static void walk_dir(struct walk *w, struct weft_chain *c, uint32_t s, int dir,
		     int depth, struct fronts *f)
{
	const int64_t none = dir < 0 ? INT64_MIN : INT64_MAX;
	const struct weft_thread *th = w->th;
	const uint8_t flag = dir < 0 ? WEFT_CHAIN_BEFORE : WEFT_CHAIN_AFTER;
	for (uint32_t i = 0; i < w->n; i++) {
		w->lim[i] = none;
		w->pos[i] = WEFT_NONE;
	}
	memset(w->lane, 0, w->n);
	int never = th[s].end == WEFT_END_PENDING &&
		    (th[s].flags & WEFT_THREAD_SHOULD_RESOLVE);
	w->lim[s] = dir < 0 ? (never ? INT64_MAX : th[s].t_end)
			    : th[s].t_create;
	f->na = 1;
	f->a[0] = (struct front){s, w->lim[s]};
	for (int round = 0; f->na && (depth == WEFT_CHAIN_ALL || round < depth);
	     round++) {
		f->nb = 0;
		for (uint32_t q = 0; q < f->na; q++) {
			uint32_t x = f->a[q].t, k;
			int64_t lx = f->a[q].lim;
			if (x != s && hub(w, x))
				continue; /* shown, not walked through */
			const uint32_t *ai =
				weft_model_thread_arrows(w->m, x, &k);
			for (uint32_t j = 0; j < k; j++) {
				const struct weft_arrow *e = &w->ar[ai[j]];
				uint32_t src, dst, y;
				int64_t l;
				int lane = 0;
				arrow_ends(e, &src, &dst);
				if (src >= w->n || dst >= w->n || src == dst)
					continue;
				if (dir < 0) {
					if (dst != x || e->t > lx)
						continue;
					y = src;
					l = e->kind == WEFT_ARROW_TRY_READ
						    ? lx
						    : e->t;
					if (e->kind == WEFT_ARROW_CREATE &&
					    th[x].parent == y &&
					    weft_model_continues(w->m, x))
						y = head(w, y); /* the source */
					if (l <= w->lim[y])
						continue;
				} else {
					if (src != x || e->t < lx)
						continue;
					y = dst;
					l = e->t;
					if (e->kind == WEFT_ARROW_CREATE &&
					    th[y].parent == x &&
					    weft_model_continues(w->m, y)) {
						/* the next activation: the
						 * subject's source armed it,
						 * not the subject */
						if (x == s || !w->lane[x])
							continue;
						lane = 1;
					} else if (e->kind == WEFT_ARROW_CREATE)
						lane = 1; /* a source, from
							     what armed it */
					if (l >= w->lim[y])
						continue;
				}
				if (is_root(w, y))
					continue; /* OS threads carry none */
				if (lane)
					w->lane[y] = 1;
				reach(w, f, c, y, l, flag);
			}
		}
		for (uint32_t q = 0; q < f->nb; q++)
			w->pos[f->b[q].t] = WEFT_NONE;
		struct front *t = f->a;
		f->a = f->b;
		f->b = t;
		f->na = f->nb;
	}
}

static int walk_init(struct walk *w, const struct weft_model *m)
{
	memset(w, 0, sizeof *w);
	w->m = m;
	w->th = weft_model_threads(m, &w->n);
	uint32_t na;
	w->ar = weft_model_arrows(m, &na);
	size_t n = (size_t)w->n + 1;
	w->deg = malloc(n * sizeof *w->deg);
	w->hub = calloc(n, 1);
	w->stamp = calloc(n, sizeof *w->stamp);
	w->head = malloc(n * sizeof *w->head);
	if (!w->deg || !w->hub || !w->stamp || !w->head)
		return -ENOMEM;
	memset(w->deg, 0xff, n * sizeof *w->deg);
	memset(w->head, 0xff, n * sizeof *w->head);
	return 0;
}

static void walk_release(struct walk *w)
{
	free(w->deg);
	free(w->hub);
	free(w->stamp);
	free(w->head);
	free(w->lim);
	free(w->pos);
	free(w->lane);
}

int weft_model_is_hub(const struct weft_model *m, uint32_t t)
{
	struct walk w;
	int rc = walk_init(&w, m), is = 0;
	if (!rc && t < w.n && !is_root(&w, t))
		is = hub(&w, t);
	walk_release(&w);
	return is;
}

int weft_model_hubs(const struct weft_model *m, uint8_t *is)
{
	struct walk w;
	int rc = walk_init(&w, m);
	for (uint32_t t = 0; !rc && t < w.n; t++)
		is[t] = !is_root(&w, t) && hub(&w, t);
	walk_release(&w);
	return rc;
}

void weft_chain_release(struct weft_chain *c)
{
	if (!c)
		return;
	free(c->in);
	memset(c, 0, sizeof *c);
	c->subject = WEFT_NONE;
}

int weft_chain(const struct weft_model *m, uint32_t s, int depth,
	       struct weft_chain *c)
{
	weft_chain_release(c);
	struct walk w;
	struct fronts f = {0};
	int rc = walk_init(&w, m);
	if (rc)
		goto out;
	if (s >= w.n) {
		rc = WEFT_EINVAL;
		goto out;
	}
	size_t n = (size_t)w.n + 1;
	c->in = calloc(n, 1);
	w.lim = malloc(n * sizeof *w.lim);
	w.pos = malloc(n * sizeof *w.pos);
	w.lane = malloc(n);
	f.a = malloc(n * sizeof *f.a);
	f.b = malloc(n * sizeof *f.b);
	if (!c->in || !w.lim || !w.pos || !w.lane || !f.a || !f.b) {
		rc = -ENOMEM;
		goto out;
	}
	c->nthreads = w.n;
	c->subject = s;
	c->depth = depth < 0 ? WEFT_CHAIN_ALL : depth;
	c->in[s] = WEFT_CHAIN_IN | WEFT_CHAIN_SUBJECT;
	c->size = 1;
	walk_dir(&w, c, s, -1, c->depth, &f);
	walk_dir(&w, c, s, 1, c->depth, &f);
	for (uint32_t i = 0; i < w.n; i++)
		if (c->in[i] && i != s && hub(&w, i)) {
			c->in[i] |= WEFT_CHAIN_HUB;
			c->hubs++;
		}
out:
	walk_release(&w);
	free(f.a);
	free(f.b);
	if (rc)
		weft_chain_release(c);
	return rc;
}
