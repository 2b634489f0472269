/* SPDX-License-Identifier: MIT */
/*
 * remap.c - ids, names and streams of the rings made the merge's (multi.h):
 *   - streams get numbers across the rings (the first ring's keep theirs);
 *   - async thread ids of ring k > 0 carry k in bits 48..61 (TAG); an id
 *     that uses those bits already is given a fresh one (a table), so no
 *     two processes share an id and the first ring's stay as they were;
 *   - names are merged by their text (the first ring's keep their ids).
 * The fast paths (a name, id or stream met before) are multi.h's inline
 * map_name, map_id and map_stream; the rest is here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "multi.h"
#include "common/grow.h"

/* ----------------------------------------------------------- names */

static uint32_t strhash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static char *keep(struct rmulti *M, const char *s)
{
	size_t n = strlen(s) + 1;
	struct namebuf *nb = malloc(sizeof *nb + n);
	if (!nb)
		return NULL;
	nb->next = M->bufs;
	M->bufs = nb;
	memcpy(nb->s, s, n);
	return nb->s;
}

static int nhash_put(struct rmulti *M, uint32_t id)
{
	if ((M->nnames + 1) * 2 > M->nhcap) {
		uint32_t c = M->nhcap ? M->nhcap * 2 : 1024;
		uint32_t *h = calloc(c, sizeof *h);
		if (!h)
			return -ENOMEM;
		free(M->nhash);
		M->nhash = h;
		M->nhcap = c;
		for (uint32_t i = 1; i < M->nnames; i++) {
			uint32_t k = strhash(M->names[i]) & (c - 1);
			while (h[k])
				k = (k + 1) & (c - 1);
			h[k] = i + 1;
		}
		if (id < M->nnames)
			return 0; /* (it was among them) */
	}
	uint32_t k = strhash(M->names[id]) & (M->nhcap - 1);
	while (M->nhash[k])
		k = (k + 1) & (M->nhcap - 1);
	M->nhash[k] = id + 1;
	return 0;
}

/* Appends a name (kept as it is: the first ring's names keep their ids,
 * duplicates included). */
uint32_t weft__name_append(struct rmulti *M, const char *s)
{
	if (weft__grow32(&M->names, &M->cnames, (size_t)M->nnames + 1,
			 sizeof *M->names, 256))
		return 0;
	const char *k = M->nnames ? keep(M, s) : "";
	if (!k)
		return 0;
	M->names[M->nnames++] = k;
	if (M->nnames > 1 && nhash_put(M, M->nnames - 1)) {
		M->nnames--;
		return 0;
	}
	return M->nnames - 1;
}

/* The merged id of a name's text (0 for "", or when memory is short). */
uint32_t weft__name_of(struct rmulti *M, const char *s)
{
	if (!*s)
		return 0;
	if (M->nhcap) {
		uint32_t k = strhash(s) & (M->nhcap - 1);
		for (; M->nhash[k]; k = (k + 1) & (M->nhcap - 1))
			if (!strcmp(M->names[M->nhash[k] - 1], s))
				return M->nhash[k] - 1;
	}
	return weft__name_append(M, s);
}

/* A name met for the first time (or not published yet): looked up. */
__attribute__((noinline)) uint32_t
weft__map_name_new(struct rmulti *M, struct msub *s, uint32_t local)
{
	const char *t = weft_reader_name(s->r, local);
	uint32_t id = weft__name_of(M, t);
	/* A name not published yet reads "?" or "": looked up again. */
	if (!id || !strcmp(t, "?"))
		return id;
	if (local >= s->nnmap) {
		uint32_t was = s->nnmap;
		if (weft__grow32(&s->nmap, &s->nnmap, (size_t)local + 1,
				 sizeof *s->nmap, 64))
			return id;
		memset(s->nmap + was, 0,
		       (size_t)(s->nnmap - was) * sizeof *s->nmap);
	}
	s->nmap[local] = id;
	return id;
}

/* ------------------------------------------------------------- ids */

static uint64_t idhash(uint32_t sub, uint64_t id)
{
	return (id ^ ((uint64_t)sub * 0x9E3779B97F4A7C15ull)) *
		       0xC2B2AE3D27D4EB4Full |
	       1;
}

uint64_t weft__fresh_id(struct rmulti *M, uint32_t sub, uint64_t id)
{
	if ((M->idused + 1) * 2 > M->idcap) {
		uint32_t c = M->idcap ? M->idcap * 2 : 256;
		struct idmap *n = calloc(c, sizeof *n);
		if (!n)
			return id; /* (short of memory: shared, not lost) */
		for (uint32_t i = 0; i < M->idcap; i++) {
			if (!M->ids[i].key)
				continue;
			uint32_t k = (uint32_t)(M->ids[i].key >> 32) & (c - 1);
			while (n[k].key)
				k = (k + 1) & (c - 1);
			n[k] = M->ids[i];
		}
		free(M->ids);
		M->ids = n;
		M->idcap = c;
	}
	uint64_t h = idhash(sub, id);
	uint32_t k = (uint32_t)(h >> 32) & (M->idcap - 1);
	for (; M->ids[k].key; k = (k + 1) & (M->idcap - 1))
		if (M->ids[k].key == h && M->ids[k].sub == sub &&
		    M->ids[k].id == id)
			return M->ids[k].fresh;
	M->ids[k].key = h;
	M->ids[k].sub = sub;
	M->ids[k].id = id;
	M->ids[k].fresh = TAG_FRESH | ++M->fresh_next;
	M->idused++;
	return M->ids[k].fresh;
}

/* --------------------------------------------------------- streams */

static uint32_t new_stream(struct rmulti *M, struct msub *s, uint32_t local)
{
	if (M->nst == M->cst) {
		/* two arrays of one capacity: it grows when both have */
		uint32_t c = M->cst, c2 = M->cst;
		if (weft__grow32(&M->sinfo, &c, (size_t)M->nst + 1,
				 sizeof *M->sinfo, 64) ||
		    weft__grow32(&M->sproc, &c2, (size_t)M->nst + 1,
				 sizeof *M->sproc, 64))
			return NONE;
		M->cst = c;
	}
	uint32_t g = M->nst++;
	const struct weft_trace_info *in = &s->r->info;
	memset(&M->sinfo[g], 0, sizeof M->sinfo[g]);
	if (local < in->nstreams)
		M->sinfo[g] = in->streams[local];
	M->sinfo[g].index = g;
	M->sinfo[g].first_ts = UINT64_MAX;
	M->sproc[g] = s->proc;
	return g;
}

/* A stream met for the first time: a merged stream made for it. */
__attribute__((noinline)) uint32_t
weft__map_stream_new(struct rmulti *M, struct msub *s, uint32_t local)
{
	if (local >= s->nsmap) {
		uint32_t was = s->nsmap;
		if (weft__grow32(&s->smap, &s->nsmap, (size_t)local + 1,
				 sizeof *s->smap, 8))
			return 0;
		for (uint32_t i = was; i < s->nsmap; i++)
			s->smap[i] = NONE;
	}
	uint32_t g = new_stream(M, s, local);
	if (g == NONE)
		return 0;
	s->smap[local] = g;
	return g;
}
