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
	if (n > v->nthreads)
		weft__relayout(v, 0);
	memset(v->chm, 0, v->nthreads);
	v->chained = WEFT_NONE;
	v->nchain = 0;
	if (t < v->nthreads) {
		struct weft_chain c = {0};
		if (weft_chain(v->m, t, v->depth, &c) == 0) {
			uint32_t k = c.nthreads < v->nthreads ? c.nthreads
							      : v->nthreads;
			memcpy(v->chm, c.in, k);
			v->chained = t;
			v->nchain = c.size;
		}
		weft_chain_release(&c);
	}
	if (v->only_chain)
		weft__relayout(v, 1);
	else
		weft__tset_build(v, &v->chain, v->chm, NULL);
	return v->nchain;
}

uint32_t weft_view_chain_size(const struct weft_view *v)
{
	return v->nchain;
}

int weft_view_in_chain(const struct weft_view *v, uint32_t t)
{
	return t < v->nthreads && v->chm[t];
}

void weft_view_set_chain_depth(struct weft_view *v, int depth)
{
	v->depth = depth < 0 ? WEFT_CHAIN_ALL : depth;
	if (v->chained != WEFT_NONE)
		weft_view_chain(v, v->chained);
}

int weft_view_chain_depth(const struct weft_view *v)
{
	return v->depth;
}

void weft_view_only_chain(struct weft_view *v, int on)
{
	if (!!on == v->only_chain)
		return;
	v->only_chain = !!on;
	if (on && !v->nchain && v->selected < v->nthreads)
		weft_view_chain(v, v->selected); /* lays out again */
	else
		weft__relayout(v, 1);
	v->focus = 0;
	if (v->selected < v->nthreads && v->row[v->selected] >= 0)
		v->focus = v->row[v->selected];
}
