/* SPDX-License-Identifier: MIT */
/*
 * procs.c - the merge's process table (multi.h): a process (image) for
 * each entry of the runs' manifests, brought up to date while a followed
 * run's grows; each ring's process (the entry that names it, else one
 * made from its header); a ring joining the merge (its tag, clock,
 * streams, label); and what weft_reader_processes, _stream_process and
 * _hosts say of a merge (of one ring: reader.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "multi.h"
#include "common/grow.h"

/* ------------------------------------------------- the process table */

static uint32_t proc_add(struct rmulti *M)
{
	if (M->nprocs == M->cprocs) {
		/* two arrays of one capacity: it grows when both have */
		uint32_t c = M->cprocs, c2 = M->cprocs;
		if (WEFT_GROW32(M->procs, c, (size_t)M->nprocs + 1) ||
		    WEFT_GROW32(M->px, c2, (size_t)M->nprocs + 1))
			return NONE;
		M->cprocs = c;
	}
	uint32_t i = M->nprocs++;
	memset(&M->procs[i], 0, sizeof M->procs[i]);
	memset(&M->px[i], 0, sizeof M->px[i]);
	struct weft_process *P = &M->procs[i];
	P->parent = P->prev_image = P->next_image = NONE;
	P->t_end = INT64_MAX;
	P->exe = "";
	M->px[i].run = M->px[i].entry = M->px[i].sub = NONE;
	return i;
}

/* A manifest's time (its run's machine's CLOCK_MONOTONIC) on the axis. */
static int64_t mono_ns(const struct rmulti *M, uint32_t run, int64_t mono)
{
	return mono ? mono + M->hosts[M->runs[run].host].offset_ns -
			       M->origin_mono
		    : 0;
}

/* The processes of run `run`'s manifest entries from `from` on. */
int weft__procs_of_manifest(struct rmulti *M, uint32_t run, uint32_t from)
{
	struct mrun *r = &M->runs[run];
	if (from == 0)
		r->first = M->nprocs;
	for (uint32_t e = from; e < r->man.n; e++) {
		uint32_t i = proc_add(M);
		if (i == NONE)
			return -ENOMEM;
		M->px[i].run = run;
		M->px[i].entry = e;
	}
	return 0;
}

/* Brings process i up to date with its manifest entry (which grows while
 * a followed run goes on). */
void weft__proc_sync(struct rmulti *M, uint32_t i)
{
	struct weft_process *P = &M->procs[i];
	const struct mproc_x *x = &M->px[i];
	if (x->entry == NONE)
		return;
	const struct mrun *r = &M->runs[x->run];
	const struct mproc *e = &r->man.p[x->entry];
	P->pid = e->pid;
	P->ppid = e->ppid;
	P->parent = e->parent == NONE ? NONE : r->first + e->parent;
	P->prev_image = e->prev_image == NONE ? NONE : r->first + e->prev_image;
	P->image = e->image;
	P->end = e->end;
	P->status = e->status;
	/* a process starts when forked; an image after exec, when it loads */
	int64_t t0 = e->t_fork && !e->image ? e->t_fork : e->t_start;
	if (t0)
		P->t_start = mono_ns(M, x->run, t0);
	P->t_end = e->t_end ? mono_ns(M, x->run, e->t_end) : INT64_MAX;
	if (e->comm[0])
		memcpy(P->comm, e->comm, sizeof P->comm);
	P->exe = e->exe ? e->exe : "";
	P->argc = e->argc;
	P->argv = (const char *const *)e->argv;
	M->px[i].by = e->by;
	M->px[i].spawn = e->spawn;
}

static int64_t ring_mono(const struct weft_reader *r)
{
	return weft__ring_mono0(r);
}

int64_t weft__ring_mono0(const struct weft_reader *r)
{
	return r->rh.h.a0.mono_ns + r->timens;
}

/* The process of ring k: the manifest entry that names its file, else the
 * one of its pid alive when it started, else a new one from its header. */
int weft__ring_proc(struct rmulti *M, uint32_t k)
{
	struct msub *s = &M->sub[k];
	const struct weft_trace_info *in = &s->r->info;
	uint32_t found = NONE;
	if (s->run != NONE) {
		const struct mrun *r = &M->runs[s->run];
		const char *base = strrchr(s->path, '/');
		base = base ? base + 1 : s->path;
		const char *colon = strrchr(base, ':');
		if (colon)
			base = colon + 1;
		/* (the entries of its pid, latest first) */
		uint32_t last = weft__manifest_latest(&r->man, in->pid);
		for (uint32_t e = last; e != NONE; e = r->man.p[e].prev_same)
			if (r->man.p[e].ring && !strcmp(r->man.p[e].ring, base))
				found = r->first + e; /* (the first) */
		int64_t t = ring_mono(s->r);
		for (uint32_t e = last; e != NONE && found == NONE;
		     e = r->man.p[e].prev_same) {
			const struct mproc *p = &r->man.p[e];
			int64_t t0 = p->t_fork ? p->t_fork : p->t_start;
			if (p->pid == in->pid &&
			    M->px[r->first + e].sub == NONE && t0 <= t &&
			    (!p->t_end || p->t_end >= t))
				found = r->first + e;
		}
	}
	if (found == NONE) {
		if ((found = proc_add(M)) == NONE)
			return -ENOMEM;
		struct weft_process *P = &M->procs[found];
		P->pid = in->pid;
		P->ppid = in->ppid;
		memcpy(P->comm, in->comm, sizeof P->comm);
		P->t_start = ring_mono(s->r) + M->hosts[s->host].offset_ns -
			     M->origin_mono;
		/* its parent: a ring of its ppid (given together) */
		for (uint32_t q = 0; q < M->nprocs; q++)
			if (q != found && M->procs[q].pid == in->ppid &&
			    M->procs[q].next_image == NONE)
				P->parent = q;
	}
	s->proc = found;
	M->px[found].sub = k;
	/* its ids' tag and its process thread: known before any ring's
	 * creator is looked for (in another ring's ids) */
	s->tag = k == 0		? 0
		 : k <= TAG_MAX ? (uint64_t)k << TAG_SHIFT
				: TAG_FRESH;
	s->xid = TAG_PROC | (k + 1);
	struct weft_process *P = &M->procs[found];
	P->ring = s->path;
	if (!P->comm[0])
		memcpy(P->comm, in->comm, sizeof P->comm);
	return 0;
}

/* "comm (pid N): exe args..." */
static int make_label(struct rmulti *M, uint32_t p)
{
	const struct weft_process *P = &M->procs[p];
	size_t cap = 64 + strlen(P->comm) + strlen(P->exe);
	for (uint32_t i = 0; i < P->argc; i++)
		cap += strlen(P->argv[i]) + 1;
	if (cap > 1024)
		cap = 1024;
	char *b = malloc(cap);
	if (!b)
		return -ENOMEM;
	int n = snprintf(b, cap, "%s (pid %u)", P->comm, P->pid);
	for (uint32_t i = 0; i < P->argc && n > 0 && (size_t)n < cap; i++)
		n += snprintf(b + n, cap - (size_t)n, "%s%s", i ? " " : ": ",
			      P->argv[i]);
	free(M->px[p].label);
	M->px[p].label = b;
	return 0;
}

/* The stream of ring k's main OS thread (tid == pid), else its first. */
static uint32_t main_stream(const struct msub *s)
{
	const struct weft_trace_info *in = &s->r->info;
	for (uint32_t i = 0; i < in->nstreams; i++)
		if (in->streams[i].tid == in->pid)
			return i;
	return 0;
}

/* What creates ring k's process thread: the image before (exec), or
 * the process's creator; and whether it acts on the main OS thread. */
void weft__creation(struct rmulti *M, uint32_t k)
{
	struct msub *s = &M->sub[k];
	struct weft_process *P = &M->procs[s->proc];
	uint64_t before = 0;
	for (uint32_t prev = P->prev_image; prev != NONE && !before;
	     prev = M->procs[prev].prev_image)
		before = weft__xid_of(M, prev);
	P->creator = weft__creator_of(M, s->proc);
	s->before = before;
	s->by = before ? before : P->creator;
	/* Created by a thread of another process: what its main OS thread
	 * does outside async threads, its process thread does (the first
	 * thread of a process of the run that was not its root). */
	s->remap = M->synth && s->by;
}

/* Ring k joins the merge: its tag, clock and streams (its process is
 * known: ring_proc). */
int weft__join(struct rmulti *M, uint32_t k)
{
	struct msub *s = &M->sub[k];
	s->mono0 = ring_mono(s->r);
	if (s->host == MNONE) {
		/* a ring that appeared since: its machine, by its boot id */
		s->host = 0;
		for (uint32_t j = 0; j < k; j++)
			if (!memcmp(M->sub[j].r->boot, s->r->boot, 16))
				s->host = M->sub[j].host;
	}
	s->shift = s->mono0 + M->hosts[s->host].offset_ns - M->origin_mono;
	s->cut = s->cut_mono ? s->cut_mono - s->mono0 + s->shift : INT64_MAX;
	s->main = main_stream(s);
	s->state = S_IDLE;
	uint32_t ns = s->r->info.nstreams;
	for (uint32_t i = 0; i < ns; i++)
		map_stream(M, s, i);
	M->procs[s->proc].nstreams = ns;
	M->procs[s->proc].thread = M->synth ? s->xid : 0;
	uint32_t *h = realloc(M->heap, M->nsub * sizeof *h);
	if (!h)
		return -ENOMEM;
	M->heap = h;
	return make_label(M, s->proc);
}

/* ------------------------------------------------- the merge's source */

const struct weft_process *weft__multi_processes(struct weft_reader *r,
						 uint32_t *n)
{
	struct rmulti *M = r->multi;
	for (uint32_t p = 0; p < M->nprocs; p++) {
		struct weft_process *P = &M->procs[p];
		P->next_image = NONE;
		P->end = weft__end_of(M, p);
	}
	for (uint32_t p = 0; p < M->nprocs; p++)
		if (M->procs[p].prev_image != NONE)
			M->procs[M->procs[p].prev_image].next_image = p;
	*n = M->nprocs;
	return M->procs;
}

uint32_t weft__multi_stream_process(struct weft_reader *r, uint32_t stream)
{
	return stream < r->multi->nst ? r->multi->sproc[stream]
				      : WEFT_NO_PROCESS;
}

const struct weft_host *weft__multi_hosts(struct weft_reader *r, uint32_t *n)
{
	*n = r->multi->nhosts;
	return r->multi->hosts;
}
