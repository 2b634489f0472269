/* SPDX-License-Identifier: MIT */
/*
 * chain.c - the causal chain highlighted in a view, and showing only it.
 * What the chain holds is the library's definition (weft_chain(),
 * model.h): the CLI, both viewers and the exports show the same set.
 */
#include <string.h>

#include "view-internal.h"

uint32_t weft_view_chain(struct weft_view *v, uint32_t t)
{
	uint32_t n;
	weft_model_threads(v->m, &n);
	if (n > v->rows.nthreads)
		weft__relayout(v, 0);
	memset(v->sel.chm, 0, v->rows.nthreads);
	v->sel.chained = WEFT_NONE;
	v->sel.nchain = 0;
	if (t < v->rows.nthreads) {
		struct weft_chain c = {0};
		if (weft_chain(v->m, t, v->sel.depth, &c) == 0) {
			uint32_t k = c.nthreads < v->rows.nthreads
					     ? c.nthreads
					     : v->rows.nthreads;
			memcpy(v->sel.chm, c.in, k);
			v->sel.chained = t;
			v->sel.nchain = c.size;
		}
		weft_chain_release(&c);
	}
	if (v->sel.only_chain)
		weft__relayout(v, 1);
	else
		weft__tset_build(v, &v->ix.chain, v->sel.chm, NULL);
	return v->sel.nchain;
}

uint32_t weft_view_chain_size(const struct weft_view *v)
{
	return v->sel.nchain;
}

int weft_view_in_chain(const struct weft_view *v, uint32_t t)
{
	return t < v->rows.nthreads && v->sel.chm[t];
}

void weft_view_set_chain_depth(struct weft_view *v, int depth)
{
	v->sel.depth = depth < 0 ? WEFT_CHAIN_ALL : depth;
	if (v->sel.chained != WEFT_NONE)
		weft_view_chain(v, v->sel.chained);
}

int weft_view_chain_depth(const struct weft_view *v)
{
	return v->sel.depth;
}

void weft_view_only_chain(struct weft_view *v, int on)
{
	if (!!on == v->sel.only_chain)
		return;
	v->sel.only_chain = !!on;
	if (on && !v->sel.nchain && v->sel.selected < v->rows.nthreads)
		weft_view_chain(v, v->sel.selected); /* lays out again */
	else
		weft__relayout(v, 1);
	v->geo.focus = 0;
	if (v->sel.selected < v->rows.nthreads &&
	    v->rows.row[v->sel.selected] >= 0)
		v->geo.focus = v->rows.row[v->sel.selected];
}
