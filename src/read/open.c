/* SPDX-License-Identifier: MIT */
/*
 * open.c - opening a trace: the public calls that open a reader choose
 * its source (internal.h): what a path or a buffer is (a ring, a run
 * directory, a bundle, a kept directory or chunk, a pipe), a ring read
 * as it is (reader.c), the others as a merge.  Opening a merge (multi.h):
 * the parts (rings, run directories, bundles, kept directories, "-":
 * runs-disk.c; or a bundle in memory), then the merge set up: the rings
 * in order, the machines' clocks, the process table, the first ring's
 * names, each ring joining; one ring and nothing else is opened as it
 * is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "multi.h"
#include "sys.h"

/* Rings in the order of their runs, then of their start: the first ring
 * keeps its ids, names and streams (a run's root, usually). */
static int cmp_sub(const void *a, const void *b)
{
	const struct msub *x = a, *y = b;
	int64_t tx = weft__ring_mono0(x->r), ty = weft__ring_mono0(y->r);
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	if (tx != ty)
		return tx < ty ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Opening step: which fields of each event type are ids and names (what
 * the merge remaps). */
static void id_fields(struct rmulti *M)
{
	for (int t = 0; t < WEFT_EV_COUNT; t++) {
		uint8_t f = 0;
		int nid = 0, nname = 0;
		for (int i = 0; i < 4 && weft__events[t].f[i].type; i++) {
			if (weft__events[t].f[i].type == WEFT_FT_ID)
				f |= nid++ ? 2 : 1;
			if (weft__events[t].f[i].type == WEFT_FT_NAME)
				f |= nname++ ? 8 : 4;
		}
		M->idfields[t] = f;
	}
}

/* Opening step: the machines, their clocks' offsets and the axis's
 * origin.  0 or a negative code. */
static int align_clocks(struct rmulti *M, const struct weft_merge_opts *opts)
{
	/* the machines, and where each one's clock goes (what the caller
	 * forces, then what the bundles' makers forced) */
	unsigned no = opts ? opts->noffsets : 0, nf = no + M->nbforced;
	const char **oh = calloc(nf ? nf : 1, sizeof *oh);
	int64_t *ons = calloc(nf ? nf : 1, sizeof *ons);
	int err = oh && ons ? 0 : -ENOMEM;
	for (unsigned i = 0; i < nf && !err; i++) {
		oh[i] = i < no ? opts->offset_host[i] : M->bforced[i - no];
		ons[i] = i < no ? opts->offset_ns[i] : M->bforced_ns[i - no];
	}
	struct weft_merge_opts all = {nf, oh, ons};
	if (!err)
		err = weft__clocks_align(M, &all);
	free(oh);
	free(ons);
	M->origin_mono = INT64_MAX;
	for (uint32_t k = 0; k < M->nsub && !err; k++) {
		int64_t t = weft__ring_mono0(M->sub[k].r) +
			    M->hosts[M->sub[k].host].offset_ns;
		if (t < M->origin_mono)
			M->origin_mono = t;
	}
	return err;
}

/* Opening step: the process table, from the runs' manifests.  0 or
 * -ENOMEM. */
static int process_table(struct rmulti *M)
{
	int err = 0;
	for (uint32_t r = 0; r < M->nruns && !err; r++)
		err = weft__procs_of_manifest(M, r, 0);
	for (uint32_t p = 0; p < M->nprocs; p++)
		weft__proc_sync(M, p);
	/* a process whose ring could not be read: said in its entry */
	for (uint32_t i = 0; i < M->nbad; i++) {
		struct mbad *b = &M->bad[i];
		const struct mrun *r = &M->runs[b->run];
		const char *sep = strrchr(b->path, r->dir ? '/' : ':');
		const char *base = sep ? sep + 1 : b->path;
		for (uint32_t e = 0; e < r->man.n && b->proc == NONE; e++)
			if (r->man.p[e].ring && !strcmp(r->man.p[e].ring, base))
				b->proc = r->first + e;
		if (b->proc != NONE && b->proc < M->nprocs) {
			M->procs[b->proc].ring = b->path;
			M->procs[b->proc].ring_unread = b->what;
		}
	}
	return err;
}

/* Opening step: the merge's names (the first ring's keep their ids).  0
 * or -ENOMEM. */
static int first_names(struct rmulti *M)
{
	int err = 0;
	/* the first ring's names keep their ids */
	if (!err && !weft__name_append(M, "") && M->nnames != 1)
		err = -ENOMEM;
	const struct weft_trace_info *in0 = &M->sub[0].r->info;
	for (uint32_t i = 1; i < in0->nnames && !err; i++) {
		if (weft__name_append(M, in0->names[i]) != i)
			err = -ENOMEM;
		else if (!M->sub[0].nnmap || i >= M->sub[0].nnmap) {
			/* filled below */
		}
	}
	if (!err && in0->nnames) {
		struct msub *s0 = &M->sub[0];
		s0->nmap = calloc(in0->nnames, sizeof *s0->nmap);
		if (!s0->nmap)
			err = -ENOMEM;
		else {
			s0->nnmap = in0->nnames;
			for (uint32_t i = 1; i < in0->nnames; i++)
				s0->nmap[i] = strcmp(in0->names[i], "?") ? i
									 : 0;
		}
	}
	if (!err)
		M->name_process = weft__name_of(M, "process");
	return err;
}

/* Opening step: each ring's process, then each ring joins.  0 or a
 * negative code. */
static int join_rings(struct rmulti *M)
{
	int err = 0;
	/* Processes are threads of their own when there are several, and
	 * when a run is followed: more may come, and the first one's start
	 * is not to be missed (a run read whole with one process reads as
	 * its ring alone). */
	M->synth = M->nsub > 1;
	for (uint32_t r = 0; r < M->nruns; r++)
		if (M->runs[r].dir && (M->flags & WEFT_READ_FOLLOW))
			M->synth = 1;
	for (uint32_t k = 0; k < M->nsub && !err; k++)
		err = weft__ring_proc(M, k);
	for (uint32_t k = 0; k < M->nsub && !err; k++) {
		weft__creation(M, k);
		err = weft__join(M, k);
	}
	return err;
}

/* Opening step: the trace's description, the first ring's on the merged
 * axis. */
static void trace_info(struct weft_reader *R)
{
	struct rmulti *M = R->multi;
	struct weft_trace_info *in = &R->info;
	const struct weft_trace_info *f = &M->sub[0].r->info;
	*in = *f;
	memset(in->counts, 0, sizeof in->counts);
	memset(&in->losses, 0, sizeof in->losses);
	in->clock_kind = WEFT_CLOCK_MONO;
	in->freq = 1000000000u;
	in->origin_ticks = 0;
	in->origin_real_ns = f->origin_real_ns - M->sub[0].shift;
	if (M->nprocs) {
		const struct weft_process *P = &M->procs[0];
		in->pid = P->pid;
		in->ppid = P->ppid;
		memcpy(in->comm, P->comm, sizeof in->comm);
	}
	R->mult = 1ull << 32;
	weft__multi_info(R);
}

static int multi_open(struct weft_reader **out, const char *const *paths,
		      unsigned n, const void *mem, size_t memlen, int own,
		      unsigned flags, const struct weft_merge_opts *opts,
		      uint64_t thread, struct weft_diag *d)
{
	*out = NULL;
	struct rmulti *M = calloc(1, sizeof *M);
	if (!M) {
		if (own)
			free((void *)mem);
		return -ENOMEM;
	}
	M->kept_thread = thread;
	M->flags = flags;
	M->refill = NONE;
	int err = 0;
	int plain = 1; /* one ring and nothing else: no merge */
	if (mem) {
		if (own)
			err = weft__keep_owned(M, (uint8_t *)mem);
		if (!err)
			err = weft__add_bundle(M, mem, memlen, "bundle", d);
		plain = 0;
		M->flags &= ~(unsigned)WEFT_READ_FOLLOW;
	}
	if (!err)
		err = weft__add_paths(M, paths, n, flags, &plain, d);
	if (!err)
		err = weft__wait_first_ring(M, d);
	if (!err && M->nsub == 0 && M->nbad)
		err = weft__diag(d, WEFT_ECORRUPT, 0,
				 "no ring can be read: %s: %s (and %u more)",
				 M->bad[0].path, M->bad[0].what, M->nbad - 1);
	if (!err && M->nsub == 0)
		err = weft__diag(d, WEFT_EEMPTY, 0,
				 "no ring: no process of the run recorded "
				 "anything");
	if (!err && plain && M->nsub == 1 && !M->nruns && !M->nowned &&
	    !M->ndups) {
		/* one ring as it always was (its reading ahead its own) */
		*out = M->sub[0].r;
		M->sub[0].r = NULL;
		(*out)->pf_own = (*out)->pf != NULL;
		M->pf = NULL;
		weft__multi_free(M);
		return 0;
	}
	struct weft_reader *R = NULL;
	if (!err && !(R = calloc(1, sizeof *R)))
		err = -ENOMEM;
	if (err) {
		weft__multi_free(M);
		return err;
	}
	R->ops = &weft__merge_ops;
	R->src.fd = -1;
	R->flags = M->flags;
	R->multi = M;
	M->grow = (M->flags & WEFT_READ_FOLLOW) ? &weft__follow : NULL;
	id_fields(M);
	/* Rings in the order their processes started (a run's root first:
	 * the first ring keeps its ids, names and streams). */
	qsort(M->sub, M->nsub, sizeof *M->sub, cmp_sub);
	err = align_clocks(M, opts);
	if (!err)
		err = process_table(M);
	if (!err)
		err = first_names(M);
	if (!err)
		err = join_rings(M);
	/* The trace's description: the first ring's, on the merged axis. */
	if (!err)
		trace_info(R);
	if (err) {
		weft_reader_close(R);
		return err;
	}
	*out = R;
	return 0;
}

/* --------------------------------------------------------- public */

int weft__multi_open(struct weft_reader **out, const char *const *paths,
		     unsigned n, const void *mem, size_t memlen, int own,
		     unsigned flags, const struct weft_merge_opts *opts,
		     struct weft_diag *d)
{
	return multi_open(out, paths, n, mem, memlen, own, flags, opts, 0, d);
}

int weft_reader_open_many(struct weft_reader **out, const char *const *paths,
			  unsigned n, unsigned flags,
			  const struct weft_merge_opts *opts,
			  struct weft_diag *d)
{
	*out = NULL;
	if (!paths || !n)
		return WEFT_EINVAL;
	return weft__multi_open(out, paths, n, NULL, 0, 0, flags, opts, d);
}

int weft_reader_open_thread(struct weft_reader **out, const char *const *paths,
			    unsigned n, unsigned flags,
			    const struct weft_merge_opts *opts, uint64_t thread,
			    struct weft_diag *d)
{
	*out = NULL;
	if (!paths || !n || !thread)
		return WEFT_EINVAL;
	return multi_open(out, paths, n, NULL, 0, 0, flags, opts, thread, d);
}

/* Input that is not a regular file ("-", a pipe): read whole, a ring's
 * or a bundle's; a pipe's copy cannot grow. */
static int open_pipe(struct weft_reader **out, const char *path, unsigned flags,
		     struct weft_diag *d)
{
	flags &= ~(unsigned)WEFT_READ_FOLLOW;
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	uint8_t *b = NULL;
	size_t n = 0;
	int bundle = 0, err;
	if (fd < 0)
		return weft__diag(d, -errno, 0, "%s", strerror(errno));
	err = weft__slurp(fd, &b, &n, &bundle, d);
	if (fd > 0)
		close(fd);
	if (err)
		return err;
	if (bundle)
		return weft__multi_open(out, NULL, 0, b, n, 1, flags, NULL, d);
	return weft__ring_open_mem(out, b, n, 1, flags, d);
}

int weft_reader_open(struct weft_reader **out, const char *path, unsigned flags,
		     struct weft_diag *d)
{
	*out = NULL;
	if (!path)
		return WEFT_EINVAL;
	struct stat sb;
	int isdir = strcmp(path, "-") && stat(path, &sb) == 0 &&
		    S_ISDIR(sb.st_mode);
	if (isdir || weft__file_begins(path, WEFT_BUNDLE_MAGIC, 8, 0))
		/* a run: its rings merged (merge.c) */
		return weft__multi_open(out, &path, 1, NULL, 0, 0, flags, NULL,
					d);
	if (!strcmp(path, "-") ||
	    (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)))
		return open_pipe(out, path, flags, d);
	return weft__file_open(out, path, flags, d);
}

int weft_reader_open_mem(struct weft_reader **out, const void *data, size_t len,
			 unsigned flags, struct weft_diag *d)
{
	*out = NULL;
	if (weft__bundle_size(data, len))
		return weft__multi_open(out, NULL, 0, data, len, 0, flags, NULL,
					d);
	return weft__ring_open_mem(out, data, len, 0, flags, d);
}
