/* SPDX-License-Identifier: MIT */
/*
 * blame.c - many critical paths summed (weft_path_sum_add, path.h): the
 * totals of `weft why --path --all`, for the tools and the viewers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft/diff.h"
#include "weft/path.h"
#include "common/grow.h"

/* The row of `key` in a list, made when missing (NULL: no memory). */
static struct weft_path_blame *row(struct weft_path_blame **b, uint32_t *n,
				   uint32_t *cap, const char *key)
{
	for (uint32_t i = 0; i < *n; i++)
		if (!strcmp((*b)[i].key, key))
			return &(*b)[i];
	if (WEFT_GROW32(*b, *cap, (size_t)*n + 1))
		return NULL;
	struct weft_path_blame *x = &(*b)[(*n)++];
	memset(x, 0, sizeof *x);
	snprintf(x->key, sizeof x->key, "%s", key);
	return x;
}

static int most_first(const void *a, const void *b)
{
	const struct weft_path_blame *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->key, y->key); /* (ties: the same order each time) */
}

int weft_path_sum_add(struct weft_path_sum *s, const struct weft_model *m,
		      const struct weft_path *p)
{
	s->threads++;
	s->life += p->t1 - p->t0;
	for (int k = 0; k < WEFT_PATH_STATES; k++)
		s->total[k] += p->total[k];
	/* the rows this path has touched, to count it once a row */
	size_t *seen = NULL;
	uint32_t nseen = 0, cseen = 0;
	int rc = 0;
	for (uint32_t i = 0; i < p->nseg && !p->seg[i].depth; i++) {
		const struct weft_path_seg *g = &p->seg[i];
		int w = g->state == WEFT_PATH_WAITING;
		if (!w && g->state != WEFT_PATH_READY)
			continue;
		char key[sizeof s->waited_on->key];
		if (g->on == WEFT_NONE)
			snprintf(key, sizeof key, "(idle)");
		else
			weft_diff_key_text(m, g->on, WEFT_DIFF_KEY_LABEL, key,
					   sizeof key);
		struct weft_path_blame *x =
			w ? row(&s->waited_on, &s->nwaited_on, &s->cwaited_on,
				key)
			  : row(&s->ready_while, &s->nready_while,
				&s->cready_while, key);
		if (!x) {
			rc = -ENOMEM;
			break;
		}
		int64_t ns = g->t1 - g->t0;
		x->total += ns;
		if (ns > x->max)
			x->max = ns;
		/* (a list may move when it grows: this path's rows are told
		 * apart by list and index) */
		size_t id =
			(size_t)(x - (w ? s->waited_on : s->ready_while)) * 2 +
			(size_t)w;
		uint32_t j = 0;
		while (j < nseen && seen[j] != id)
			j++;
		if (j == nseen) {
			if (WEFT_GROW32(seen, cseen, (size_t)nseen + 1)) {
				rc = -ENOMEM;
				break;
			}
			seen[nseen++] = id;
			x->threads++;
		}
	}
	free(seen);
	if (s->nwaited_on > 1)
		qsort(s->waited_on, s->nwaited_on, sizeof *s->waited_on,
		      most_first);
	if (s->nready_while > 1)
		qsort(s->ready_while, s->nready_while, sizeof *s->ready_while,
		      most_first);
	return rc;
}

void weft_path_sum_release(struct weft_path_sum *s)
{
	if (!s)
		return;
	free(s->waited_on);
	free(s->ready_while);
	memset(s, 0, sizeof *s);
}
