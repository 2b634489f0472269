/* SPDX-License-Identifier: MIT */
/*
 * idtab.h - async-thread id -> a number (the index of its latest
 * incarnation): the model's table (src/read/model.c) and weft ps's scan's
 * (tools/ps-scan.c).  Open addressing with linear probing, at most 3/4
 * full; the slot is a Fibonacci hash of the id's group of four (id / 4):
 * the product's top bits, which every bit of the id reaches (a merged
 * run's ids differ in their top 16 bits: each ring's tag) and which
 * spread consecutive groups evenly, the group's four ids in one cache line
 * of four slots (ids counted up, as a generator's, are made and looked up
 * together).  In front of it, a memo direct-mapped by the id's hash for
 * the hot lookups (most events name the thread running, or one just
 * named), never stale: weft__idtab_put sets it after the table.
 *
 * The table's memory is its owner's (the model: aligned_alloc; ps: huge
 * pages): when weft__idtab_full says so, the owner gives a zeroed table
 * twice as big to weft__idtab_move and frees what it returns.
 * Header-only: each library has its own copy.
 */
#ifndef WEFT_IDTAB_H
#define WEFT_IDTAB_H

#include <stdint.h>

struct weft__idtab_ent {
	uint64_t key; /* 0: free */
	uint32_t val;
	uint32_t pad; /* (a key beside its value: one cache line a probe) */
};

struct weft__idtab {
	struct weft__idtab_ent *h;
	uint32_t cap, used; /* cap: a power of two, or 0 */
	struct weft__idtab_ent memo[256];
};

#define WEFT__IDTAB_NONE UINT32_MAX

static inline uint32_t weft__idtab_slot(const struct weft__idtab *t,
					uint64_t id)
{
	uint32_t g = (uint32_t)(((id >> 2) * 0x9E3779B97F4A7C15ull) >>
				(64 - __builtin_ctz(t->cap) + 2));
	return (g << 2 | (uint32_t)(id & 3)) & (t->cap - 1);
}

/* The memo's entry for id (its key is id only if it holds id). */
static inline struct weft__idtab_ent *weft__idtab_memo(struct weft__idtab *t,
						       uint64_t id)
{
	return &t->memo[(uint32_t)((id * 0x9E3779B97F4A7C15ull) >> 56)];
}

/* id -> v into the table, which has room (no growth, no memo). */
static inline void weft__idtab_set(struct weft__idtab *t, uint64_t id,
				   uint32_t v)
{
	uint32_t i = weft__idtab_slot(t, id);
	while (t->h[i].key && t->h[i].key != id)
		i = (i + 1) & (t->cap - 1);
	if (!t->h[i].key) {
		t->h[i].key = id;
		t->used++;
	}
	t->h[i].val = v;
}

/* Whether one more id needs a bigger table (load <= 3/4). */
static inline int weft__idtab_full(const struct weft__idtab *t)
{
	return (uint64_t)(t->used + 1) * 4 > (uint64_t)t->cap * 3;
}

/* The entries moved into nh (cap slots, zeroed, a power of two larger
 * than the table's); the old table returned, for its owner to free.  (The
 * entries as they are: the memo, equal to them, stays.) */
static inline struct weft__idtab_ent *
weft__idtab_move(struct weft__idtab *t, struct weft__idtab_ent *nh,
		 uint32_t cap)
{
	struct weft__idtab_ent *oh = t->h;
	uint32_t oc = t->cap;
	t->h = nh;
	t->cap = cap;
	t->used = 0;
	for (uint32_t i = 0; i < oc; i++)
		if (oh[i].key)
			weft__idtab_set(t, oh[i].key, oh[i].val);
	return oh;
}

/* id -> v, the table having room (weft__idtab_full said no, or it was
 * moved); the memo, if it holds id, too: set after the table, which a
 * move rewrote, it never holds a stale value. */
static inline void weft__idtab_put(struct weft__idtab *t, uint64_t id,
				   uint32_t v)
{
	weft__idtab_set(t, id, v);
	struct weft__idtab_ent *mo = weft__idtab_memo(t, id);
	if (mo->key == id)
		mo->val = v;
}

/* The number of id, or WEFT__IDTAB_NONE. */
static inline uint32_t weft__idtab_find(const struct weft__idtab *t,
					uint64_t id)
{
	if (!t->cap)
		return WEFT__IDTAB_NONE;
	uint32_t i = weft__idtab_slot(t, id);
	while (t->h[i].key) {
		if (t->h[i].key == id)
			return t->h[i].val;
		i = (i + 1) & (t->cap - 1);
	}
	return WEFT__IDTAB_NONE;
}

#endif
