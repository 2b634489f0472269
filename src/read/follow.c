/* SPDX-License-Identifier: MIT */
/*
 * follow.c - a followed run (multi.h, WEFT_READ_FOLLOW): when the merge
 * has nothing, the manifests that grew and the rings that appeared join
 * it; whether the run may still grow (a process of it lives); a run that
 * has recorded nothing yet waited for.  Not in the WebAssembly build
 * (wasi.c: nothing there grows).
 */
#include <errno.h>
#include <signal.h>
#include <time.h>

#include "multi.h"

/* Whether process `pid` of this machine lives (a number above a pid's
 * range would name a process group, or every process: not asked). */
static int process_alive(uint32_t pid)
{
	if (!pid || pid > INT32_MAX)
		return 0;
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* Whether a followed run directory may still grow: a process its manifest
 * started and did not see end is alive. */
static int run_live(struct rmulti *M)
{
	for (uint32_t r = 0; r < M->nruns; r++) {
		const struct manifest *man = &M->runs[r].man;
		if (!M->runs[r].dir)
			continue;
		for (uint32_t i = 0; i < man->n; i++) {
			const struct mproc *p = &man->p[i];
			if (p->end == WEFT_PROC_RUNNING &&
			    process_alive(p->pid))
				return 1;
		}
	}
	return 0;
}

/* A followed run: manifests that grew, rings that appeared.  Returns the
 * rings that have something new, or a negative code. */
static int follow_more(struct weft_reader *R)
{
	struct rmulti *M = R->multi;
	int got = 0;
	for (uint32_t run = 0; run < M->nruns; run++) {
		struct mrun *r = &M->runs[run];
		if (!r->dir)
			continue;
		uint32_t had = r->man.n;
		int err = weft__read_manifest(M, run);
		if (!err && r->man.n > had)
			err = weft__procs_of_manifest(M, run, had);
		if (err)
			return err;
		uint32_t before = M->nsub;
		if ((err = weft__scan_dir(M, run, 0, NULL)))
			return err;
		for (uint32_t p = 0; p < M->nprocs; p++)
			weft__proc_sync(M, p);
		if (M->nsub > 1 && !M->synth) {
			/* (from now on: the rings before made none) */
			M->synth = 1;
			for (uint32_t k = 0; k < before; k++)
				M->sub[k].started = 1;
		}
		for (uint32_t k = before; k < M->nsub && !err; k++)
			err = weft__ring_proc(M, k);
		for (uint32_t k = before; k < M->nsub && !err; k++) {
			weft__creation(M, k);
			err = weft__join(M, k);
		}
		if (err)
			return err;
	}
	for (uint32_t k = 0; k < M->nsub; k++) {
		struct msub *s = &M->sub[k];
		if (s->state != S_WAIT && s->state != S_IDLE)
			continue;
		int err = weft__merge_fill(M, k);
		if (err)
			return err;
		got += s->state == S_HAS;
	}
	return got;
}

/* Opening step: a followed run that has recorded nothing yet waited
 * for.  0 or a negative code. */
int weft__wait_first_ring(struct rmulti *M, struct weft_diag *d)
{
	int err = 0;
	/* A followed run that has recorded nothing yet (a reader started
	 * with it): its first ring is waited for while a process of it
	 * lives. */
	while (!err && M->nsub == 0 && (M->flags & WEFT_READ_FOLLOW) &&
	       M->nruns && run_live(M)) {
		struct timespec nap = {0, 50 * 1000 * 1000};
		nanosleep(&nap, NULL);
		for (uint32_t r = 0; r < M->nruns && !err; r++)
			if (M->runs[r].dir &&
			    !(err = weft__read_manifest(M, r)))
				err = weft__scan_dir(M, r, 1, d);
	}
	return err;
}

const struct weft__growth weft__follow = {.more = follow_more,
					  .live = run_live};
