/* SPDX-License-Identifier: MIT */
/*
 * handle.c - a handle's activations as async threads: armed by whatever
 * is current, fired by the loop (resolved, run, the next one created by
 * it), disarmed (cancelled) by a stop or close.
 */
#include "shim.h"

uint64_t weft__shim_arm_labelled(const void *h, int role, const char *kind,
				 const char *kept, const struct shim_lb *b,
				 void (*cb)(void), void *loop)
{
	if (!ON())
		return 0;
	struct shim_ent old;
	if (weft__shim_get(h, role, &old, 0) && old.id)
		weft_cancel(old.id); /* re-armed before it fired */
	uint64_t id = weft__shim_new_id();
	if (b)
		weft__shim_create_labelled(id, kind, kept, b);
	else
		weft_create(id, kind);
	if (weft__shim_put_labelled(h, role, id, cb, NULL, loop, kept))
		return id;
	/* no room in the side table to follow it (counted there): ended
	 * at once rather than left pending forever */
	weft_cancel(id);
	return 0;
}

uint64_t weft__shim_arm_named(const void *h, int role, const char *kind,
			      const char *p1, long long n1, void (*cb)(void),
			      void *loop)
{
	struct shim_lb b;
	const char *kept =
		weft__shim_cached_label(&b, p1, n1, NULL, 0, (const void *)cb);
	return weft__shim_arm_labelled(h, role, kind, kept, &b, cb, loop);
}

void weft__shim_disarm(const void *h, int role)
{
	struct shim_ent e;
	if (weft__shim_get(h, role, &e, 1) && e.id && ON())
		weft_cancel(e.id);
}

int weft__shim_fire(const void *h, int role, struct shim_ent *e, uint64_t *next)
{
	*next = weft__shim_new_id();
	/* One look-up: the activation that fires, and the next in its
	 * place (neither makes a system call that could set errno). */
	return weft__shim_swap_id(h, role, e, *next);
}
