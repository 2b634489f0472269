/* SPDX-License-Identifier: MIT */
/*
 * copy.c - a merged reader copied (multi.h): its runs into one bundle
 * (weft_reader_copy of a run, weft snapshot).  (Written as CTF, one trace
 * per process on the run's axis: ctf.c.)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "multi.h"

/* A run (or several) copied into a bundle: each ring by the commit
 * protocol (weft_reader_copy), the manifests as they are now.  Rings that
 * are being written are cut at one instant taken before the first copy
 * begins: a reader of the bundle reads none of their events after it, so
 * the copy shows every process up to the same moment (a message received
 * before the cut was sent before it). */
int weft__multi_copy(struct weft_reader *R, unsigned flags, void **out,
		     size_t *len, uint64_t *torn)
{
	struct rmulti *M = R->multi;
	*out = NULL;
	if (torn)
		*torn = 0;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int64_t now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	for (uint32_t r = 0; r < M->nruns; r++)
		if (M->runs[r].dir)
			weft__read_manifest(M, r);
	uint32_t n = M->nsub + M->nruns + 1;
	struct bpart *parts = calloc(n ? n : 1, sizeof *parts);
	void **data = calloc(n ? n : 1, sizeof *data);
	int err = parts && data ? 0 : -ENOMEM;
	uint32_t np = 0;
	for (uint32_t r = 0; r < M->nruns && !err; r++) {
		const struct manifest *man = &M->runs[r].man;
		if (!man->rawlen)
			continue;
		struct bpart *p = &parts[np];
		p->kind = BUNDLE_MANIFEST;
		p->run = r;
		p->len = man->rawlen;
		snprintf(p->name, sizeof p->name, "manifest");
		data[np] = malloc(man->rawlen);
		if (!data[np]) {
			err = -ENOMEM;
			break;
		}
		memcpy(data[np++], man->raw, man->rawlen);
	}
	/* offsets forced on machines: the bundle's readers force them too
	 * (by boot id: one machine's, whatever its name) */
	char ft[BUNDLE_MAX_OFFSETS * 64];
	size_t fl = 0;
	for (uint32_t h = 0; h < M->nhosts && !err; h++) {
		const struct weft_host *H = &M->hosts[h];
		if (H->method == WEFT_CLOCK_FORCED && fl + 128 < sizeof ft)
			fl += (size_t)snprintf(
				ft + fl, sizeof ft - fl, "%s %lld\n",
				H->boot_id[0] ? H->boot_id : H->name,
				(long long)H->offset_ns);
	}
	if (fl && !err) {
		struct bpart *p = &parts[np];
		p->kind = BUNDLE_OFFSETS;
		p->len = fl;
		snprintf(p->name, sizeof p->name, "offsets");
		if (!(data[np] = malloc(fl)))
			err = -ENOMEM;
		else
			memcpy(data[np++], ft, fl);
	}
	for (uint32_t k = 0; k < M->nsub && !err; k++) {
		struct msub *s = &M->sub[k];
		struct bpart *p = &parts[np];
		uint64_t t = 0;
		size_t l;
		int live = s->r->info.writer == WEFT_WRITER_LIVE;
		/* (only the packets in use: a bundle is a copy to keep) */
		err = weft_reader_copy(s->r, flags | WEFT_COPY_COMPACT,
				       &data[np], &l, &t);
		if (err)
			break;
		if (torn)
			*torn += t;
		p->kind = BUNDLE_RING;
		p->run = s->run != NONE ? s->run : M->nruns + k;
		p->len = l;
		p->cut = live ? now : s->cut_mono;
		const char *base = strrchr(s->path, '/');
		base = base ? base + 1 : s->path;
		const char *colon = strrchr(base, ':');
		snprintf(p->name, sizeof p->name, "%s",
			 colon ? colon + 1 : base);
		np++;
	}
	uint8_t *b = NULL;
	if (!err)
		err = weft__bundle_write(parts, (const void *const *)data, np,
					 &b, len);
	for (uint32_t i = 0; i < np; i++)
		free(data[i]);
	free(parts);
	free(data);
	if (!err)
		*out = b;
	return err;
}
