/* SPDX-License-Identifier: MIT */
/*
 * merge.c - several rings read as one trace: the merge (multi.h lists
 * the other rooms of the merged reader).
 *
 * Each ring has a reader of its own (a sub-reader); their events are
 * merged in time order on one axis (a heap of rings, and the heap of
 * made events, made.c), each made one of the merge's (remap.c).  The
 * ring whose event went last is asked first: its next event goes at once
 * when it comes before every other (multi_next's fast path); the
 * rest is out of line.  Also the totals, names and problems of the whole,
 * the merged reader freed, and the merge's source table (internal.h,
 * struct weft__reader_ops) that the public calls go through.
 * The text of an event stays valid until the next call: a sub-reader is
 * asked for its next event only when the caller comes back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "multi.h"
#include "kept.h"

/* --------------------------------------------------------- the heap */

static int sub_before(const struct rmulti *M, uint32_t a, uint32_t b)
{
	int64_t x = M->sub[a].ev.ns, y = M->sub[b].ev.ns;
	return x != y ? x < y : a < b;
}

static void heap_push(struct rmulti *M, uint32_t s)
{
	uint32_t i = M->nheap++;
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!sub_before(M, s, M->heap[p]))
			break;
		M->heap[i] = M->heap[p];
		i = p;
	}
	M->heap[i] = s;
}

static uint32_t heap_pop(struct rmulti *M)
{
	uint32_t top = M->heap[0], last = M->heap[--M->nheap];
	uint32_t i = 0, n = M->nheap;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && sub_before(M, M->heap[c + 1], M->heap[c]))
			c++;
		if (!sub_before(M, M->heap[c], last))
			break;
		M->heap[i] = M->heap[c];
		i = c;
	}
	if (n)
		M->heap[i] = last;
	return top;
}

/* The main OS thread's stand-in actor of ring s, for its OS thread
 * `local`: the process thread where the main OS thread runs nothing. */
static inline uint64_t root_of(const struct msub *s, uint32_t local)
{
	return local == s->main && s->remap ? s->xid : 0;
}

/* The fields of event `ev` of ring k (on its OS thread `local`) made the
 * merge's, all but its time: its OS thread is the merge's `stream`, ids
 * take the ring's `tag`. */
static inline __attribute__((always_inline)) void
translate_fields(struct rmulti *M, uint32_t k, struct msub *s,
		 struct weft_event *ev, uint32_t local, uint32_t stream,
		 uint64_t tag)
{
	ev->stream = stream;
	ev->actor = ev->actor ? map_id_tagged(M, k, tag, ev->actor)
			      : root_of(s, local);
	if (ev->type >= WEFT_EV_COUNT)
		return; /* a loss: id is a count */
	uint8_t f = M->idfields[ev->type];
	if (f & 1)
		ev->id = map_id_tagged(M, k, tag, ev->id);
	if (f & 2)
		ev->id2 = map_id_tagged(M, k, tag, ev->id2);
	if (f & 4)
		ev->name = map_name(M, s, ev->name);
	if (f & 8)
		ev->name2 = map_name(M, s, ev->name2);
}

/* An event of ring k, made one of the merge's. */
static inline __attribute__((always_inline)) void
translate(struct rmulti *M, uint32_t k, struct weft_event *ev)
{
	struct msub *s = &M->sub[k];
	uint32_t local = ev->stream;
	ev->ns += s->shift;
	translate_fields(M, k, s, ev, local, map_stream(M, s, local), s->tag);
}

/* Ring k's next event into *ev, made the merge's.  0, WEFT_EAGAIN,
 * WEFT_EEOF (also past a snapshot's cut), or a negative code. */
static inline __attribute__((always_inline)) int
fetch(struct rmulti *M, uint32_t k, struct weft_event *ev)
{
	struct msub *s = &M->sub[k];
	int rc = weft_reader_next(s->r, ev);
	if (rc == 0) {
		translate(M, k, ev);
		if (ev->ns > s->cut)
			rc = WEFT_EEOF; /* the ring ends at the cut */
	}
	return rc;
}

/* Ring k has nothing now (WEFT_EAGAIN), or no more (WEFT_EEOF): its
 * state, and at its end the events of its process's end.  0, or a
 * negative code (`rc` when it is one). */
static int settle(struct rmulti *M, uint32_t k, int rc)
{
	struct msub *s = &M->sub[k];
	if (rc == WEFT_EAGAIN) {
		s->state = S_WAIT;
		return 0;
	}
	if (rc == WEFT_EEOF) {
		s->state = S_DONE;
		return weft__end_events(M, s);
	}
	return rc;
}

/* Asks ring k for its next event, into the heap.  0, or a negative
 * code. */
int weft__merge_fill(struct rmulti *M, uint32_t k)
{
	struct msub *s = &M->sub[k];
	int rc = fetch(M, k, &s->ev);
	if (rc)
		return settle(M, k, rc);
	s->state = S_HAS;
	heap_push(M, k);
	return 0;
}

/* ------------------------------------------------------------ next */

/* Event `ev` of ring k goes to the caller: what the merge keeps of it. */
static inline int give(struct weft_reader *R, uint32_t k,
		       const struct weft_event *ev)
{
	struct rmulti *M = R->multi;
	struct msub *s = &M->sub[k];
	s->last_ns = ev->ns;
	s->returned++;
	M->refill = k;
	/* messages, in time order: a read matches the writes returned
	 * before it */
	if (M->synth &&
	    (ev->type == WEFT_EV_SENT || ev->type == WEFT_EV_RECEIVED)) {
		int err = weft__msgs_event(M, k, ev);
		if (err)
			return err;
	}
	if (M->synth && ev->type == WEFT_EV_FIRE)
		return weft__msgs_fire(M, ev);
	return 0;
}

/* What every event returned counts. */
static inline void count(struct weft_reader *R, const struct weft_event *ev)
{
	struct rmulti *M = R->multi;
	M->returned++;
	if (ev->type < WEFT_EV_COUNT)
		R->info.counts[ev->type]++;
	else
		R->info.losses.events_discarded += ev->id;
	if (ev->stream < M->nst) {
		struct weft_stream_info *si = &M->sinfo[ev->stream];
		if (ev->type < WEFT_EV_COUNT && !si->events++)
			si->first_ts = (uint64_t)ev->ns;
		si->last_ts = (uint64_t)ev->ns;
	}
}

/* ------------------------------------------------------- batches */

/* A merge's batches, returned one by one by weft_reader_next() with no
 * call into the merge, as a ring's are.  After an event of ring k went,
 * the events ring k's reader has already decoded ahead (its own batch,
 * of one OS thread) that go at once too are made the merge's where they
 * are, and the merge's batch (R->batch) is that part of the ring's.  An
 * event goes at once when it comes before the next of every other ring
 * (the top of the heap: times, then ring indices), before the next made
 * event and not past the ring's cut: what multi_next() checks of each,
 * checked here before the event is taken.  The first that comes after
 * another ring's next stays where it is, in the heap by its time
 * (msub.inbatch): when it comes first, multi_next_rest() takes it from
 * there, with the rest of that ring's batch, and no event is copied out
 * and back.  Events whose going makes events (a message's `sent`,
 * `received` and `fire`, when the merge makes messages) are left to
 * multi_next().  Nothing asks a ring's reader for more while an event of
 * its batch waits or is to be returned, so the events (and their texts)
 * stay where they are until then.  The events are counted as they are
 * returned (settle_batch()); what is counted of the ring (`last_ns`,
 * `returned`) as they are taken. */

static __attribute__((noinline)) void gather(struct weft_reader *R, uint32_t k)
{
	struct rmulti *M = R->multi;
	struct msub *s = &M->sub[k];
	struct weft_reader *r = s->r;
	uint32_t i = r->bi, end = r->bn;
	if (i >= end || r->progress)
		return;
	int64_t bound = INT64_MAX, syn = INT64_MAX, cut = s->cut;
	int64_t shift = s->shift;
	uint32_t bk = 0;
	if (M->nheap) {
		bk = M->heap[0];
		bound = M->sub[bk].ev.ns;
	}
	if (M->nsyn)
		syn = M->syn[0].ns;
	struct weft_event *b = r->batch;
	/* (a ring's batch is of one OS thread) */
	uint32_t local = b[i].stream;
	uint32_t stream = map_stream(M, s, local);
	uint64_t tag = s->tag;
	int synth = M->synth;
	uint32_t first = i;
	for (; i < end; i++) {
		struct weft_event *e = &b[i];
		int64_t ns = e->ns + shift;
		if (ns > cut || ns >= syn)
			break;
		if (ns > bound || (ns == bound && k > bk)) {
			/* another ring's comes first: this one waits in the
			 * heap where it is */
			s->ev.ns = ns;
			s->inbatch = 1;
			s->state = S_HAS;
			heap_push(M, k);
			M->refill = NONE;
			break;
		}
		unsigned type = e->type;
		if (type >= WEFT_EV_COUNT ||
		    (synth &&
		     (type == WEFT_EV_SENT || type == WEFT_EV_RECEIVED ||
		      type == WEFT_EV_FIRE)))
			break;
		e->ns = ns;
		translate_fields(M, k, s, e, local, stream, tag);
	}
	r->bi = i;
	if (i == first)
		return;
	s->last_ns = b[i - 1].ns;
	s->returned += i - first;
	R->batch = b + first;
	R->bi = R->bu = 0;
	R->bn = i - first;
}

/* The batch's events returned so far, counted: what count() counts of
 * each, at once for the batch's one OS thread (a ring's batch holds no
 * loss). */
static void settle_batch(struct weft_reader *R)
{
	struct rmulti *M = R->multi;
	const struct weft_event *b = R->batch;
	uint32_t i = R->bu, n = R->bi;
	if (i >= n)
		return;
	R->bu = n;
	M->returned += n - i;
	for (uint32_t j = i; j < n; j++)
		R->info.counts[b[j].type]++;
	if (b[i].stream < M->nst) {
		struct weft_stream_info *si = &M->sinfo[b[i].stream];
		if (!si->events)
			si->first_ts = (uint64_t)b[i].ns;
		si->events += n - i;
		si->last_ts = (uint64_t)b[n - 1].ns;
	}
}

/* The rest of multi_next(): ring k's next event (rc: what
 * fetching it gave), which does not go at once, settled or put in the
 * heap (last: NONE, none was fetched); then the next event of the heap or
 * the made ones. */
static __attribute__((noinline)) int multi_next_rest(struct weft_reader *R,
						     struct weft_event *ev,
						     uint32_t last, int rc)
{
	struct rmulti *M = R->multi;
	int err;
	if (last != NONE) {
		struct msub *s = &M->sub[last];
		if (rc) {
			if ((err = settle(M, last, rc)))
				return err;
		} else {
			s->ev = *ev;
			s->state = S_HAS;
			heap_push(M, last);
		}
	}
	if (!M->started) {
		M->started = 1;
		for (uint32_t k = 0; k < M->nsub; k++)
			if ((err = weft__merge_fill(M, k)))
				return err;
		/* every process's start, in time order with the rest */
		for (uint32_t k = 0; k < M->nsub; k++) {
			struct msub *s = &M->sub[k];
			if (s->state == S_HAS &&
			    (err = weft__start_events(M, s, s->ev.ns)))
				return err;
		}
	}
	for (;;) {
		if (!M->nheap && !M->nsyn && M->grow) {
			int more = M->grow->more(R);
			if (more < 0)
				return more;
			if (!M->nheap && !M->nsyn) {
				for (uint32_t k = 0; k < M->nsub; k++)
					if (M->sub[k].state == S_WAIT)
						return WEFT_EAGAIN;
				/* a run goes on while a process of it lives:
				 * its next ring may come */
				if (M->grow->live(M))
					return WEFT_EAGAIN;
			}
		}
		if (!M->nheap && !M->nsyn && M->synth && !M->waits_done) {
			/* the end (also of a followed run, once it is
			 * over): who still waits for a reply */
			M->waits_done = 1;
			int64_t end = INT64_MIN;
			for (uint32_t k = 0; k < M->nsub; k++)
				if (M->sub[k].returned &&
				    M->sub[k].last_ns > end)
					end = M->sub[k].last_ns;
			if ((err = weft__msgs_end(M, end)))
				return err;
		}
		if (!M->nheap && !M->nsyn)
			return WEFT_EEOF;
		if (M->nheap) {
			struct msub *s = &M->sub[M->heap[0]];
			if (!s->started) {
				/* its process's start comes first */
				if ((err = weft__start_events(M, s, s->ev.ns)))
					return err;
			}
			if (!M->nsyn || s->ev.ns < M->syn[0].ns) {
				uint32_t k = heap_pop(M);
				if (s->inbatch) {
					/* the next of its reader's batch */
					s->inbatch = 0;
					struct weft_reader *r = s->r;
					*ev = r->batch[r->bi++];
					translate(M, k, ev);
				} else
					*ev = s->ev;
				if ((err = give(R, k, ev)))
					return err;
				count(R, ev);
				gather(R, k);
				return 0;
			}
		}
		M->cur_syn = weft__syn_pop(M);
		*ev = M->cur_syn.ev;
		break;
	}
	count(R, ev);
	return 0;
}

static int multi_next(struct weft_reader *R, struct weft_event *ev)
{
	struct rmulti *M = R->multi;
	if (R->bn) {
		/* (the batch is all returned) */
		settle_batch(R);
		R->bi = R->bn = R->bu = 0;
	}
	uint32_t k = M->refill;
	if (k == NONE)
		return multi_next_rest(R, ev, NONE, 0);
	/* The ring whose event went last: its next, read straight into the
	 * caller's event, goes at once when it comes before every other (a
	 * ring's events come in runs); else it waits in the heap.  (This
	 * path is every event of a run: the rest is out of line.) */
	M->refill = NONE;
	struct msub *s = &M->sub[k];
	int rc = fetch(M, k, ev);
	if (rc || !s->started ||
	    (M->nheap &&
	     (ev->ns > M->sub[M->heap[0]].ev.ns ||
	      (ev->ns == M->sub[M->heap[0]].ev.ns && k > M->heap[0]))) ||
	    (M->nsyn && ev->ns >= M->syn[0].ns))
		return multi_next_rest(R, ev, k, rc);
	int err = give(R, k, ev);
	if (err)
		return err;
	count(R, ev);
	gather(R, k);
	return 0;
}

/* ------------------------------------------------------------ info */

static void add_losses(struct weft_losses *a, const struct weft_losses *b)
{
	a->packets_lost += b->packets_lost;
	a->packets_torn += b->packets_torn;
	a->packets_corrupt += b->packets_corrupt;
	a->events_discarded += b->events_discarded;
	a->events_nested += b->events_nested;
	a->texts_truncated += b->texts_truncated;
}

void weft__multi_info(struct weft_reader *R)
{
	struct rmulti *M = R->multi;
	settle_batch(R);
	struct weft_trace_info *in = &R->info;
	in->nstreams = M->nst;
	in->streams = M->sinfo;
	in->nnames = M->nnames;
	in->names = M->names;
	in->events = 0;
	for (unsigned t = 0; t < WEFT_EV_COUNT; t++)
		in->events += in->counts[t];
	/* The rest is summed over the rings, now and then (weft dump asks
	 * at every event, the model at every new stream): always once they
	 * are all read.  (Less often with more rings: each sum reads them
	 * all.) */
	if (M->info_at &&
	    M->returned - M->info_at < 4096 + 64 * (uint64_t)M->nsub &&
	    M->nheap)
		return;
	M->info_at = M->returned ? M->returned : 1;
	uint64_t discarded = in->losses.events_discarded;
	memset(&in->losses, 0, sizeof in->losses);
	in->losses.events_discarded = discarded;
	in->lost_no_stream = in->lost_names = in->packets_used = 0;
	in->problems = 0;
	in->file_size = 0;
	in->npackets = 0;
	int live = 0, gone = 0;
	for (uint32_t k = 0; k < M->nsub; k++) {
		struct msub *s = &M->sub[k];
		const struct weft_trace_info *si = weft_reader_info(s->r);
		struct weft_losses l = si->losses;
		l.events_discarded = 0; /* counted as they pass */
		add_losses(&in->losses, &l);
		in->lost_no_stream += si->lost_no_stream;
		in->lost_names += si->lost_names;
		in->packets_used += si->packets_used;
		in->problems += si->problems;
		in->file_size += si->file_size;
		in->npackets += si->npackets;
		live |= si->writer == WEFT_WRITER_LIVE;
		gone |= si->writer == WEFT_WRITER_GONE;
		for (uint32_t i = 0; i < si->nstreams && i < s->nsmap; i++) {
			uint32_t g = s->smap[i];
			if (g == NONE || g >= M->nst)
				continue;
			struct weft_losses *gl = &M->sinfo[g].losses;
			uint64_t d = gl->events_discarded;
			*gl = si->streams[i].losses;
			gl->events_discarded = d;
			M->sinfo[g].tid = si->streams[i].tid;
			memcpy(M->sinfo[g].name, si->streams[i].name,
			       sizeof M->sinfo[g].name);
		}
	}
	for (uint32_t r = 0; r < M->nruns; r++)
		in->problems += M->runs[r].man.bad_lines ? 1 : 0;
	in->problems += M->nbad;
	in->problems += M->nkept;
	in->writer = live   ? WEFT_WRITER_LIVE
		     : gone ? WEFT_WRITER_GONE
			    : WEFT_WRITER_STOPPED;
	in->first_ts = UINT64_MAX;
	in->last_ts = 0;
	for (uint32_t i = 0; i < M->nst; i++) {
		const struct weft_stream_info *si = &M->sinfo[i];
		if (!si->events)
			continue;
		if ((int64_t)si->first_ts < (int64_t)in->first_ts ||
		    in->first_ts == UINT64_MAX)
			in->first_ts = si->first_ts;
		if ((int64_t)si->last_ts > (int64_t)in->last_ts)
			in->last_ts = si->last_ts;
	}
}

static const char *multi_name(struct weft_reader *R, uint32_t id)
{
	struct rmulti *M = R->multi;
	return id < M->nnames ? M->names[id] : "";
}

static const struct weft_problem *multi_problems(struct weft_reader *R,
						 unsigned *n)
{
	struct rmulti *M = R->multi;
	M->nprob = 0;
	for (uint32_t i = 0; i < M->nbad && M->nprob < MAX_PROBLEMS; i++) {
		const struct mbad *b = &M->bad[i];
		/* its name in the run (the run or bundle is said before) */
		const char *base = strrchr(b->path, '/');
		base = base ? base + 1 : b->path;
		if (!M->runs[b->run].dir && strrchr(base, ':'))
			base = strrchr(base, ':') + 1;
		struct weft_problem *p = &M->prob[M->nprob++];
		p->offset = WEFT_PROBLEM_NO_OFFSET;
		if (b->proc < M->nprocs)
			snprintf(p->what, sizeof p->what,
				 "%.20s (pid %u %.15s) not read: %.55s", base,
				 M->procs[b->proc].pid, M->procs[b->proc].comm,
				 b->what);
		else
			snprintf(p->what, sizeof p->what,
				 "%.50s not read: %.58s", base, b->what);
	}
	for (uint32_t r = 0; r < M->nruns && M->nprob < MAX_PROBLEMS; r++) {
		const struct manifest *man = &M->runs[r].man;
		if (!man->bad_lines)
			continue;
		struct weft_problem *p = &M->prob[M->nprob++];
		p->offset = WEFT_PROBLEM_NO_OFFSET;
		snprintf(p->what, sizeof p->what,
			 "%.30s/manifest: %llu bad line%s (first: %.50s)",
			 M->runs[r].dir ? M->runs[r].dir : "(bundle)",
			 (unsigned long long)man->bad_lines,
			 man->bad_lines == 1 ? "" : "s", man->first_bad);
	}
	for (unsigned i = 0; i < M->nkept && M->nprob < MAX_PROBLEMS; i++) {
		struct weft_problem *p = &M->prob[M->nprob++];
		p->offset = WEFT_PROBLEM_NO_OFFSET;
		memcpy(p->what, M->kept[i], sizeof p->what);
	}
	for (unsigned i = 0; i < M->ndups && M->nprob < MAX_PROBLEMS; i++) {
		struct weft_problem *p = &M->prob[M->nprob++];
		p->offset = WEFT_PROBLEM_NOTE;
		memcpy(p->what, M->dupwhat[i], sizeof p->what);
	}
	for (uint32_t k = 0; k < M->nsub && M->nprob < MAX_PROBLEMS; k++) {
		unsigned m;
		const struct weft_problem *sp =
			weft_reader_problems(M->sub[k].r, &m);
		const char *base = strrchr(M->sub[k].path, '/');
		base = base ? base + 1 : M->sub[k].path;
		for (unsigned i = 0; i < m && M->nprob < MAX_PROBLEMS; i++) {
			struct weft_problem *p = &M->prob[M->nprob++];
			p->offset = sp[i].offset;
			snprintf(p->what, sizeof p->what, "%.30s: %.80s", base,
				 sp[i].what);
		}
	}
	*n = M->nprob;
	return M->prob;
}

/* ------------------------------------------------------------ free */

void weft__multi_free(struct rmulti *M)
{
	if (!M)
		return;
	for (uint32_t k = 0; k < M->nsub; k++) {
		weft_reader_close(M->sub[k].r);
		if (M->sub[k].kring)
			weft__kring_free(M->sub[k].kring);
		free(M->sub[k].path);
		free(M->sub[k].smap);
		free(M->sub[k].nmap);
	}
	weft__pf_free(M->pf); /* (after the rings: none reads ahead now) */
	free(M->sub);
	free(M->by_path);
	free(M->by_uuid);
	for (uint32_t r = 0; r < M->nruns; r++) {
		free(M->runs[r].dir);
		weft__manifest_free(&M->runs[r].man);
	}
	free(M->runs);
	for (uint32_t p = 0; p < M->nprocs; p++) {
		free(M->px[p].label);
		free(M->px[p].end_text);
	}
	free(M->procs);
	free(M->px);
	free(M->hosts);
	for (unsigned i = 0; i < M->nbforced; i++)
		free(M->bforced[i]);
	for (unsigned i = 0; i < M->ndups; i++)
		free(M->dups[i]);
	for (uint32_t i = 0; i < M->nbad; i++)
		free(M->bad[i].path);
	free(M->bad);
	weft__msgs_free(M);
	free(M->heap);
	free(M->syn);
	free(M->sproc);
	free(M->sinfo);
	free(M->names);
	free(M->nhash);
	free(M->ids);
	for (struct namebuf *nb = M->bufs, *next; nb; nb = next) {
		next = nb->next;
		free(nb);
	}
	for (unsigned i = 0; i < M->nowned; i++)
		free(M->owned[i]);
	free(M);
}

/* ----------------------------------------------------------- source */

/* The packets of every ring. */
static void multi_packets(const struct weft_reader *R, uint64_t *done,
			  uint64_t *all)
{
	const struct rmulti *M = R->multi;
	for (uint32_t k = 0; k < M->nsub; k++)
		if (M->sub[k].r)
			M->sub[k].r->ops->packets(M->sub[k].r, done, all);
}

static void multi_close(struct weft_reader *R)
{
	R->batch = NULL; /* (a ring's: gather()) */
	weft__multi_free(R->multi);
	R->multi = NULL;
	weft__ring_free(R);
}

const struct weft__reader_ops weft__merge_ops = {
	.next = multi_next,
	.info = weft__multi_info,
	.problems = multi_problems,
	.name = multi_name,
	.copy = weft__multi_copy,
	.ctf = weft__run_ctf,
	.processes = weft__multi_processes,
	.stream_process = weft__multi_stream_process,
	.hosts = weft__multi_hosts,
	.packets = multi_packets,
	.close = multi_close,
};
