/* SPDX-License-Identifier: MIT */
/*
 * names.c - interning names (kinds, idle reasons, counters, span and pause
 * names, the labels of create_label) into the ring's name table, by their
 * address: an event carries a 16-bit id instead of the text.
 *
 * The hot path looks a name up in its OS thread's small cache first
 * (intern_q in events.c); this is the miss: a lock-free open-addressing
 * hash of addresses (process-private), then an append to the ring's name
 * table and strings, each entry published with a release store.
 */
#include <string.h>

#include "record.h"

#define g weft__g

uint32_t weft__intern_slow(struct weft__thr *t, const char *s, int quiet)
{
	struct weft__fhdr *h = g.hdr;
	/* Longer than a name may be: a label (quiet) goes as a text, whole;
	 * any other name is cut at a character boundary, and counted as a
	 * truncated text. */
	size_t len = strnlen(s, WEFT_NAME_MAX + 1);
	int cut = len > WEFT_NAME_MAX;
	if (cut) {
		if (quiet)
			return 0;
		len = weft__utf8_cut(s, WEFT_NAME_MAX);
	}
	/* Full: say so at once, rather than probe a table that names
	 * which are never interned keep filling. */
	if (quiet &&
	    (__atomic_load_n(&h->nnames, __ATOMIC_RELAXED) >= h->names_cap ||
	     __atomic_load_n(&h->strings_used, __ATOMIC_RELAXED) +
			     WEFT_NAME_MAX + 1 >
		     h->strings_cap))
		return 0;
	uint64_t k = (uint64_t)(uintptr_t)s;
	uint32_t mask = g.nhash_cap - 1;
	uint32_t i = (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 40) & mask;
	int claimed = 0;
	struct weft__nslot *slot = NULL;

	for (uint32_t n = 0; n < g.nhash_cap; n++, i = (i + 1) & mask) {
		struct weft__nslot *e = &g.nhash[i];
		const char *key = __atomic_load_n(&e->key, __ATOMIC_ACQUIRE);
		if (key == s) {
			/* Pairs with the release store of e->id below. */
			uint32_t id = __atomic_load_n(&e->id, __ATOMIC_ACQUIRE);
			if (id)
				return id == UINT32_MAX ? 0 : id;
			break; /* being interned: take a name of our own */
		}
		if (!key) {
			const char *none = NULL;
			if (__atomic_compare_exchange_n(&e->key, &none, s, 0,
							__ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE)) {
				claimed = 1;
				slot = e;
				break;
			}
			if (none == s)
				break;
		}
	}

	uint32_t id = __atomic_fetch_add(&h->nnames, 1, __ATOMIC_RELAXED);
	uint32_t off = 0;
	if (id >= h->names_cap ||
	    (off = __atomic_fetch_add(&h->strings_used, (uint32_t)len + 1,
				      __ATOMIC_RELAXED)) +
			    len + 1 >
		    h->strings_cap) {
		if (!quiet)
			__atomic_fetch_add(&h->lost_names, 1, __ATOMIC_RELAXED);
		if (claimed)
			__atomic_store_n(&slot->id, UINT32_MAX,
					 __ATOMIC_RELEASE);
		return 0;
	}
	uint8_t *str = g.base + h->strings_off + off;
	memcpy(str, s, len);
	str[len] = 0;
	struct weft__fname *fn =
		(struct weft__fname *)(void *)(g.base + h->names_off) + id;
	fn->off = off;
	if (cut)
		__atomic_store_n(&t->fs->truncated, t->fs->truncated + 1,
				 __ATOMIC_RELAXED);
	/* Pairs with the reader's acquire load of len. */
	__atomic_store_n(&fn->len, (uint32_t)len | WEFT_NAME_VALID,
			 __ATOMIC_RELEASE);
	if (claimed)
		__atomic_store_n(&slot->id, id, __ATOMIC_RELEASE);
	return id;
}
