/* SPDX-License-Identifier: MIT */
/*
 * made.c - the events the merge makes (multi.h): each process that
 * recorded gets an async thread of its own, which acts on its main OS
 * thread when nothing else runs there (the root of that stream,
 * otherwise), and the events that say where it came from and how it
 * ended are made here, in time order with the rest (`synth`, a heap of
 * its own): its creation by the thread that spawned it, its label, its
 * replacement by an exec'd image (becomes), its end, and the spawn
 * request its exit resolves.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "multi.h"
#include "common/grow.h"

/* ----------------------------------------------------------- made events */

static int syn_before(const struct synth *a, const struct synth *b)
{
	return a->ns < b->ns || (a->ns == b->ns && a->seq < b->seq);
}

int weft__syn_push(struct rmulti *M, int64_t ns, const struct weft_event *ev)
{
	if (weft__grow32(&M->syn, &M->csyn, (size_t)M->nsyn + 1, sizeof *M->syn,
			 64))
		return -ENOMEM;
	struct synth x = {.ns = ns, .seq = M->seq++, .ev = *ev};
	x.ev.ns = ns;
	uint32_t i = M->nsyn++;
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!syn_before(&x, &M->syn[p]))
			break;
		M->syn[i] = M->syn[p];
		i = p;
	}
	M->syn[i] = x;
	return 0;
}

struct synth weft__syn_pop(struct rmulti *M)
{
	struct synth top = M->syn[0], last = M->syn[--M->nsyn];
	uint32_t i = 0, n = M->nsyn;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && syn_before(&M->syn[c + 1], &M->syn[c]))
			c++;
		if (!syn_before(&M->syn[c], &last))
			break;
		M->syn[i] = M->syn[c];
		i = c;
	}
	if (n)
		M->syn[i] = last;
	return top;
}

static void made(struct weft_event *ev, int type, uint32_t stream,
		 uint64_t actor, uint64_t id)
{
	memset(ev, 0, sizeof *ev);
	ev->type = (uint16_t)type;
	ev->flags = WEFT_EVF_MADE;
	ev->stream = stream;
	ev->actor = actor;
	ev->id = id;
}

/* The process thread of the image of process `p` alive at `t`... of
 * process index q (its ring's), or 0. */
uint64_t weft__xid_of(const struct rmulti *M, uint32_t q)
{
	return q == NONE || M->px[q].sub == NONE ? 0 : M->sub[M->px[q].sub].xid;
}

/* The async thread that created process p, as an id of the merge: the
 * creator the manifest names in its parent's ids (a spawn request, or
 * the thread running at fork), else the parent's own process thread. */
uint64_t weft__creator_of(struct rmulti *M, uint32_t p)
{
	const struct weft_process *P = &M->procs[p];
	uint32_t q = P->parent;
	/* the parent's image that forked: the one alive then, with a ring */
	while (q != NONE && M->px[q].sub == NONE &&
	       M->procs[q].prev_image != NONE)
		q = M->procs[q].prev_image;
	if (q == NONE || M->px[q].sub == NONE)
		return 0;
	if (M->px[p].by)
		return map_id(M, M->px[q].sub, M->px[p].by);
	return weft__xid_of(M, q);
}

/* The events of process p's start, made when its ring's first event is
 * at hand (at `first`, its time): its creation (or, after an exec, the
 * image before becomes it) and its label, at its start time or its first
 * event, whichever is earlier. */
int weft__start_events(struct rmulti *M, struct msub *s, int64_t first)
{
	s->started = 1;
	if (!M->synth)
		return 0;
	uint32_t p = s->proc;
	struct weft_process *P = &M->procs[p];
	int64_t t = P->t_start < first ? P->t_start : first;
	uint32_t ms = map_stream(M, s, s->main);
	struct weft_event ev;
	uint64_t before = s->before, by = s->by;
	int err = 0;
	/* (the root process, spawned by no traced thread, is created by
	 * none, as a program's first threads are: it still has its kind) */
	if (by || !before) {
		made(&ev, WEFT_EV_CREATE, ms, by, s->xid);
		ev.name = M->name_process;
		err = weft__syn_push(M, t, &ev);
	}
	if (!err && before) {
		made(&ev, WEFT_EV_BECOMES, ms, s->xid, before);
		ev.id2 = s->xid;
		err = weft__syn_push(M, t, &ev);
	}
	if (!err && M->px[p].label) {
		made(&ev, WEFT_EV_LABEL, ms, by, s->xid);
		ev.text = M->px[p].label;
		ev.text_len = (uint32_t)strlen(ev.text);
		err = weft__syn_push(M, t, &ev);
	}
	return err;
}

/* " (SIGKILL)" for the usual signals of Linux, else "". */
static const char *sig_name(int sig)
{
	static const char *const n[] = {
		[1] = " (SIGHUP)",   [2] = " (SIGINT)",	  [3] = " (SIGQUIT)",
		[4] = " (SIGILL)",   [5] = " (SIGTRAP)",  [6] = " (SIGABRT)",
		[7] = " (SIGBUS)",   [8] = " (SIGFPE)",	  [9] = " (SIGKILL)",
		[10] = " (SIGUSR1)", [11] = " (SIGSEGV)", [12] = " (SIGUSR2)",
		[13] = " (SIGPIPE)", [14] = " (SIGALRM)", [15] = " (SIGTERM)",
	};
	return sig > 0 && sig < (int)(sizeof n / sizeof *n) && n[sig] ? n[sig]
								      : "";
}

/* How process p ended, with what its ring says: a writer gone without a
 * stop, and no end in the manifest, vanished. */
int weft__end_of(const struct rmulti *M, uint32_t p)
{
	const struct weft_process *P = &M->procs[p];
	uint32_t k = M->px[p].sub;
	/* (a snapshot's copy of a ring that was being written: the process
	 * was running when it was cut) */
	if (P->end == WEFT_PROC_RUNNING && k != NONE &&
	    M->sub[k].r->info.writer == WEFT_WRITER_GONE && !M->sub[k].cut_mono)
		return WEFT_PROC_VANISHED;
	if (P->end == WEFT_PROC_RUNNING && k != NONE &&
	    M->sub[k].r->info.writer == WEFT_WRITER_STOPPED)
		return WEFT_PROC_STOPPED;
	return P->end;
}

/* The events of process p's end, when its ring has no more: the spawn
 * request it was created for is resolved, and its thread ends (failing
 * with how, if not with status 0).  An image that exec'd ends in the
 * next one's start (becomes); a process still running does not end. */
int weft__end_events(struct rmulti *M, struct msub *s)
{
	uint32_t p = s->proc;
	struct weft_process *P = &M->procs[p];
	P->end = weft__end_of(M, p);
	if (P->end == WEFT_PROC_RUNNING || P->end == WEFT_PROC_EXECED ||
	    !s->started || !M->synth)
		return 0;
	int64_t t = P->t_end != INT64_MAX && P->t_end > s->last_ns ? P->t_end
								   : s->last_ns;
	uint32_t ms = map_stream(M, s, s->main);
	struct weft_event ev;
	int err = 0;
	uint32_t first = p;
	while (M->procs[first].prev_image != NONE)
		first = M->procs[first].prev_image;
	uint64_t req = M->px[first].spawn ? weft__creator_of(M, first) : 0;
	if (req) {
		made(&ev, WEFT_EV_RESOLVE, ms, s->xid, req);
		err = weft__syn_push(M, t, &ev);
	}
	if (err)
		return err;
	char text[96];
	if ((P->end == WEFT_PROC_EXITED && P->status == 0) ||
	    P->end == WEFT_PROC_STOPPED) {
		made(&ev, WEFT_EV_RESOLVE, ms, s->xid, s->xid);
		return weft__syn_push(M, t, &ev);
	}
	if (P->end == WEFT_PROC_EXITED)
		snprintf(text, sizeof text, "exited with status %d", P->status);
	else if (P->end == WEFT_PROC_SIGNALED)
		snprintf(text, sizeof text, "killed by signal %d%s", P->status,
			 sig_name(P->status));
	else
		snprintf(text, sizeof text,
			 "vanished: its ring was left without a stop and no "
			 "exit was recorded (killed?)");
	free(M->px[p].end_text);
	if (!(M->px[p].end_text = strdup(text)))
		return -ENOMEM;
	made(&ev, WEFT_EV_FAIL, ms, s->xid, s->xid);
	ev.text = M->px[p].end_text;
	ev.text_len = (uint32_t)strlen(text);
	return weft__syn_push(M, t, &ev);
}
