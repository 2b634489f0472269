/* SPDX-License-Identifier: MIT */
/*
 * runs-open.c - the parts of a merge (multi.h): each ring a sub-reader,
 * found by path and by uuid (the same ring twice is read once, said);
 * the runs (a directory's, or a bundle's); a bundle's parts read in
 * place; the rings that cannot be read or are missing, kept to be said
 * while the others are read.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "multi.h"
#include "common/grow.h"

static uint64_t path_hash(const char *p)
{
	uint64_t h = 0xCBF29CE484222325ull; /* FNV-1a */
	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001B3ull;
	return weft__mix64(h);
}

static uint64_t uuid_hash(const uint8_t u[16])
{
	return weft__mix64(weft__ld64(u) ^ weft__ld64(u + 8));
}

/* Sub k in the two tables (they have room). */
static void index_sub(struct rmulti *M, uint32_t k)
{
	uint32_t mask = M->bycap - 1;
	uint32_t i = (uint32_t)path_hash(M->sub[k].path) & mask;
	while (M->by_path[i])
		i = (i + 1) & mask;
	M->by_path[i] = k + 1;
	i = (uint32_t)uuid_hash(M->sub[k].r->info.uuid) & mask;
	while (M->by_uuid[i])
		i = (i + 1) & mask;
	M->by_uuid[i] = k + 1;
}

/* Room in the tables for one sub more.  -ENOMEM, or 0. */
static int index_room(struct rmulti *M)
{
	if ((M->nsub + 1) * 2 <= M->bycap)
		return 0;
	uint32_t cap = M->bycap ? M->bycap * 2 : 64;
	uint32_t *p = calloc(cap, sizeof *p), *u = calloc(cap, sizeof *u);
	if (!p || !u) {
		free(p);
		free(u);
		return -ENOMEM;
	}
	free(M->by_path);
	free(M->by_uuid);
	M->by_path = p;
	M->by_uuid = u;
	M->bycap = cap;
	for (uint32_t k = 0; k < M->nsub; k++)
		index_sub(M, k);
	return 0;
}

/* The sub whose ring has this uuid, or NONE. */
static uint32_t sub_of_uuid(const struct rmulti *M, const uint8_t u[16])
{
	if (!M->bycap)
		return NONE;
	uint32_t mask = M->bycap - 1;
	for (uint32_t i = (uint32_t)uuid_hash(u) & mask; M->by_uuid[i];
	     i = (i + 1) & mask)
		if (!memcmp(M->sub[M->by_uuid[i] - 1].r->info.uuid, u, 16))
			return M->by_uuid[i] - 1;
	return NONE;
}

int weft__add_sub(struct rmulti *M, struct weft_reader *r, const char *path,
		  uint32_t run)
{
	if (weft__grow32(&M->sub, &M->csub, (size_t)M->nsub + 1, sizeof *M->sub,
			 8))
		return -ENOMEM;
	if (index_room(M))
		return -ENOMEM;
	/* The same ring twice (a file given twice, a run and one of its
	 * rings, a ring copied over another's name): read once, said. */
	uint32_t k = sub_of_uuid(M, r->info.uuid);
	if (k != NONE) {
		const char *a = strrchr(path, '/');
		const char *b = strrchr(M->sub[k].path, '/');
		unsigned i = 0;
		while (i < M->ndups && strcmp(M->dups[i], path))
			i++;
		if (i == M->ndups && i < DUPS_MAX &&
		    (M->dups[i] = strdup(path))) {
			M->ndups++;
			snprintf(M->dupwhat[i], sizeof M->dupwhat[i],
				 "'%.36s' is the ring '%.36s' again "
				 "(its uuid): read once",
				 a ? a + 1 : path, b ? b + 1 : M->sub[k].path);
		}
		return 1;
	}
	struct msub *s = &M->sub[M->nsub];
	memset(s, 0, sizeof *s);
	s->r = r;
	s->run = run;
	s->proc = NONE;
	s->host = NONE;
	s->main = 0;
	if (!(s->path = strdup(path)))
		return -ENOMEM;
	/* one worker reads ahead for every ring (none yet: a ring's packets
	 * are read from the first event on) */
	if (!M->pf)
		M->pf = weft__pf_new();
	if (!r->pf && M->pf) {
		r->pf = M->pf;
		r->pf_own = 0;
	}
	M->nsub++;
	index_sub(M, M->nsub - 1);
	return 0;
}

int weft__add_run(struct rmulti *M, const char *dir)
{
	struct mrun *n = realloc(M->runs, (M->nruns + 1) * sizeof *n);
	if (!n)
		return -ENOMEM;
	M->runs = n;
	struct mrun *r = &M->runs[M->nruns];
	memset(r, 0, sizeof *r);
	if (dir && !(r->dir = strdup(dir)))
		return -ENOMEM;
	M->nruns++;
	return 0;
}

int weft__keep_owned(struct rmulti *M, uint8_t *p)
{
	if (M->nowned == sizeof M->owned / sizeof *M->owned) {
		free(p);
		return WEFT_EINVAL;
	}
	M->owned[M->nowned++] = p;
	return 0;
}

/* A bundle's forced offsets: "HOST NS" lines (a host name or a boot id,
 * signed ns); a line that does not parse is skipped. */
static int bundle_offsets(struct rmulti *M, const char *t, size_t len)
{
	const char *end = t + len;
	while (t < end && M->nbforced < BUNDLE_MAX_OFFSETS) {
		const char *nl = memchr(t, '\n', (size_t)(end - t));
		const char *le = nl ? nl : end;
		const char *sp = memchr(t, ' ', (size_t)(le - t));
		char num[24];
		size_t hn = sp ? (size_t)(sp - t) : 0;
		size_t nn = sp ? (size_t)(le - sp - 1) : 0;
		if (hn && hn <= 64 && nn && nn < sizeof num) {
			memcpy(num, sp + 1, nn);
			num[nn] = 0;
			char *e;
			errno = 0;
			long long v = strtoll(num, &e, 10);
			char *h = !*e && !errno ? strndup(t, hn) : NULL;
			if (!*e && !errno && !h)
				return -ENOMEM;
			if (h) {
				M->bforced[M->nbforced] = h;
				M->bforced_ns[M->nbforced++] = v;
			}
		}
		t = le + 1;
	}
	return 0;
}

/* Whether a sub-reader reads `path`, or read it already by another
 * name (a ring given twice). */
static int read_path(const struct rmulti *M, const char *path)
{
	if (M->bycap) {
		uint32_t mask = M->bycap - 1;
		for (uint32_t i = (uint32_t)path_hash(path) & mask;
		     M->by_path[i]; i = (i + 1) & mask)
			if (!strcmp(M->sub[M->by_path[i] - 1].path, path))
				return 1;
	}
	for (unsigned i = 0; i < M->ndups; i++)
		if (!strcmp(M->dups[i], path))
			return 1;
	return 0;
}

static uint32_t bad_of(const struct rmulti *M, const char *path)
{
	for (uint32_t i = 0; i < M->nbad; i++)
		if (!strcmp(M->bad[i].path, path))
			return i;
	return NONE;
}

/* Ring `path` of run `run` cannot be read (err, and the reader's
 * message, or NULL): kept to be said, the other rings read on. */
int weft__bad_ring(struct rmulti *M, uint32_t run, const char *path, int err,
		   const char *msg)
{
	if (bad_of(M, path) != NONE)
		return 0;
	if (weft__grow32(&M->bad, &M->cbad, (size_t)M->nbad + 1, sizeof *M->bad,
			 8))
		return -ENOMEM;
	struct mbad *b = &M->bad[M->nbad];
	memset(b, 0, sizeof *b);
	b->run = run;
	b->proc = NONE;
	if (!(b->path = strdup(path)))
		return -ENOMEM;
	if (err == WEFT_EEMPTY)
		snprintf(b->what, sizeof b->what, "empty (0 bytes)");
	else if (err == -ENOENT)
		snprintf(b->what, sizeof b->what,
			 "missing (the manifest names it)");
	else if (msg && msg[0])
		snprintf(b->what, sizeof b->what, "%s", msg);
	else
		snprintf(b->what, sizeof b->what, "%s", weft_strerror(err));
	M->nbad++;
	return 0;
}

/* The rings run `run`'s manifest names that no sub-reader reads and that
 * were not found bad: missing (a directory's are looked at: a file that is
 * there but no ring is bad; a bundle's part named `prefix`:NAME). */
int weft__rings_missing(struct rmulti *M, uint32_t run, const char *prefix,
			int (*appeared)(const char *path, struct weft_diag *sd))
{
	const struct mrun *r = &M->runs[run];
	int err = 0;
	for (uint32_t e = 0; e < r->man.n && !err; e++) {
		const char *ring = r->man.p[e].ring;
		/* (a name a ring of the directory can have: a hostile
		 * manifest's "../../etc/passwd" is not looked at) */
		if (!ring || !ring[0] || ring[0] == '.' || strchr(ring, '/') ||
		    !strcmp(ring, "manifest"))
			continue;
		char path[4400];
		snprintf(path, sizeof path, r->dir ? "%s/%s" : "%s:%s",
			 r->dir ? r->dir : prefix, ring);
		if (read_path(M, path) || bad_of(M, path) != NONE)
			continue;
		int e2 = -ENOENT;
		struct weft_diag sd = {0};
		/* (a ring after all: appeared meanwhile) */
		if (appeared && !(e2 = appeared(path, &sd)))
			continue;
		err = weft__bad_ring(M, run, path, e2, sd.msg);
	}
	return err;
}

/* A bundle's parts: its rings, read in place, and its manifest. */
int weft__add_bundle(struct rmulti *M, const uint8_t *base, size_t len,
		     const char *what, struct weft_diag *d)
{
	struct bundle b;
	int err = weft__bundle_parse(base, len, &b, d);
	if (err)
		return err;
	uint32_t runs0 = M->nruns;
	for (uint32_t i = 0; i < b.n && !err; i++) {
		const struct bpart *p = &b.part[i];
		if (p->kind == BUNDLE_OFFSETS) {
			err = bundle_offsets(M, (const char *)base + p->off,
					     (size_t)p->len);
			continue;
		}
		char name[600];
		snprintf(name, sizeof name, "%s:%s", what, p->name);
		/* the run of this part (parts of one run share a number) */
		uint32_t run = NONE;
		for (uint32_t r = runs0; r < M->nruns && run == NONE; r++)
			if (M->runs[r].bundle_run == p->run)
				run = r;
		if (run == NONE) {
			if ((err = weft__add_run(M, NULL)))
				break;
			run = M->nruns - 1;
			M->runs[run].in_bundle = 1;
			M->runs[run].bundle_run = p->run;
		}
		if (p->kind == BUNDLE_MANIFEST) {
			err = weft__manifest_parse(&M->runs[run].man,
						   (const char *)base + p->off,
						   (size_t)p->len);
		} else if (p->kind == BUNDLE_RING) {
			struct weft_reader *sr;
			struct weft_diag sd = {0};
			err = weft__ring_open_mem(&sr, base + p->off,
						  (size_t)p->len, 0, 0, &sd);
			if (err) {
				/* (the bundle's other rings are read) */
				err = weft__bad_ring(M, run, name, err, sd.msg);
				continue;
			}
			if ((err = weft__add_sub(M, sr, name, run))) {
				weft_reader_close(sr);
				err = err > 0 ? 0 : err;
			} else {
				struct msub *s = &M->sub[M->nsub - 1];
				s->cut_mono = p->cut;
				s->mem = base + p->off;
				s->memlen = (size_t)p->len;
			}
		}
	}
	free(b.part);
	for (uint32_t r = runs0; r < M->nruns && !err; r++)
		err = weft__rings_missing(M, r, what, NULL);
	return err;
}

/* A ring or a bundle in memory that M owns (keep_owned) read as part of
 * the trace, `p` naming it: 0 or a negative code (said in d). */
int weft__add_owned(struct rmulti *M, uint8_t *b, size_t len, int bundle,
		    const char *p, struct weft_diag *d)
{
	if (bundle)
		return weft__add_bundle(M, b, len, p, d);
	struct weft_reader *sr;
	struct weft_diag sd = {0};
	int err = weft__ring_open_mem(&sr, b, len, 0, 0, &sd);
	if (err)
		return weft__diag(d, err, sd.offset, "%s: %s", p, sd.msg);
	if ((err = weft__add_sub(M, sr, p, NONE))) {
		weft_reader_close(sr);
		return err > 0 ? 0 : err;
	}
	M->sub[M->nsub - 1].mem = b;
	M->sub[M->nsub - 1].memlen = len;
	return 0;
}

/* Whether sub-reader already reads `path`. */
int weft__have_path(const struct rmulti *M, const char *path)
{
	if (!M->bycap)
		return 0;
	uint32_t mask = M->bycap - 1;
	for (uint32_t i = (uint32_t)path_hash(path) & mask; M->by_path[i];
	     i = (i + 1) & mask)
		if (!strcmp(M->sub[M->by_path[i] - 1].path, path))
			return 1;
	return 0;
}
