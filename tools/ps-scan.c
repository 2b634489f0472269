/* SPDX-License-Identifier: MIT */
/*
 * ps-scan.c - weft ps's pass over a trace (ps-scan.h): the events applied
 * as src/read/model.c applies them to a brief model, keeping of each
 * thread what weft_why_at() reads of the present, so that ps need not
 * keep every arrow, run and label and index them all.  Each step below
 * names the model's or why.c's step it follows: a change there changes
 * what ps prints, and tests/flight's ps cases compare the two.
 */
#define _GNU_SOURCE /* mremap */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ps-scan.h"
#include "common/grow.h"

#define LABEL_NAME 0x80000000u /* a label that is a name id */

static int64_t clamp(int64_t t)
{
	return t > WEFT_MODEL_T_MAX    ? WEFT_MODEL_T_MAX
	       : t < -WEFT_MODEL_T_MAX ? -WEFT_MODEL_T_MAX
				       : t;
}

/* ---------------------------------------------------------- big tables */

/* The tables with an entry per thread are mapped, in huge pages where
 * the kernel gives them (a 64 MiB ring makes half a million threads: in
 * pages of 4 KiB, their faults were a quarter of ps's time). */
#define BIG_ROUND ((size_t)2 << 20)

static size_t big_bytes(size_t n)
{
	return (n + BIG_ROUND - 1) / BIG_ROUND * BIG_ROUND;
}

/* Room for `need` elements of `size` bytes at *p (capacity *cap,
 * doubling; new bytes zero).  0 or -ENOMEM, the old table kept. */
static int big_grow(void *p, uint32_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap : BIG_ROUND / size;
	while (c < need)
		c *= 2;
	if (c > UINT32_MAX || c > SIZE_MAX / size / 2)
		return -ENOMEM;
	void *old, *n;
	memcpy(&old, p, sizeof old);
	size_t ob = old ? big_bytes(*cap * size) : 0, nb = big_bytes(c * size);
	if (old)
		n = mremap(old, ob, nb, MREMAP_MAYMOVE);
	else
		n = mmap(NULL, nb, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (n == MAP_FAILED)
		return -ENOMEM;
	madvise(n, nb, MADV_HUGEPAGE); /* (a hint: no huge pages, no harm) */
	memcpy(p, &n, sizeof n);
	*cap = (uint32_t)c;
	return 0;
}

static void big_free(void *p, uint32_t cap, size_t size)
{
	if (p)
		munmap(p, big_bytes(cap * size));
}

/* ------------------------------------- ids (common/idtab.h, as model.c) */

static int hput(struct ps_scan *s, uint64_t id, uint32_t v)
{
	if (id < PS_DIRECT && !s->direct && !s->no_direct) {
		/* (mapped, not touched: a page when its ids come; at the
		 * first id, else never: every id hashed) */
		void *d = mmap(NULL, PS_DIRECT * sizeof *s->direct,
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
			       0);
		s->direct = d == MAP_FAILED ? NULL : d;
		s->no_direct = !s->direct;
		/* (counted ids are dense: in huge pages, half a million
		 * ids are one fault, not 500) */
		if (s->direct)
			madvise(d, PS_DIRECT * sizeof *s->direct,
				MADV_HUGEPAGE);
	}
	if (id < PS_DIRECT && s->direct) {
		s->direct[id] = v + 1;
		return 1;
	}
	if (weft__idtab_full(&s->ids)) {
		uint32_t oc = s->ids.cap, nc = 0;
		struct weft__idtab_ent *nh = NULL;
		if (big_grow(&nh, &nc, oc ? (size_t)oc * 2 : 1, sizeof *nh))
			return 0;
		big_free(weft__idtab_move(&s->ids, nh, nc), oc, sizeof *nh);
	}
	weft__idtab_put(&s->ids, id, v);
	return 1;
}

static uint32_t find(const struct ps_scan *s, uint64_t id)
{
	if (id < PS_DIRECT && s->direct)
		return s->direct[id] ? s->direct[id] - 1 : WEFT_NONE;
	return weft__idtab_find(&s->ids, id);
}

/* ------------------------------------------------------------ threads */

static uint32_t new_thread(struct ps_scan *s, uint64_t id, int64_t t,
			   uint32_t stream, uint32_t parent, uint32_t kind,
			   uint8_t flags, uint32_t incarnation)
{
	if (big_grow(&s->th, &s->cth, (size_t)s->nth + 1, sizeof *s->th) ||
	    big_grow(&s->mo, &s->cmo, (size_t)s->nth + 1, sizeof *s->mo))
		return WEFT_NONE;
	uint32_t i = s->nth++;
	s->th[i] = (struct weft_thread){.id = id,
					.t_create = t,
					.t_end = t,
					.parent = parent,
					.stream = stream,
					.kind = kind,
					.label = WEFT_NONE,
					.message = WEFT_NONE,
					.became = WEFT_NONE,
					.incarnation = incarnation,
					.flags = flags};
	s->mo[i] = (struct ps_more){.wait_t = INT64_MIN,
				    .sig_t = -1,
				    .wait_on = WEFT_NONE,
				    .ev_from = WEFT_NONE,
				    .run_stream = WEFT_NONE};
	if (kind >= s->clongest && kind < (1u << 20)) {
		uint32_t was = s->clongest;
		if (weft__grow32(&s->longest, &s->clongest, (size_t)kind + 1,
				 sizeof *s->longest, 64))
			return WEFT_NONE;
		for (uint32_t k = was; k < s->clongest; k++)
			s->longest[k] = -1;
	}
	if (id && !hput(s, id, i))
		return WEFT_NONE;
	return i;
}

static int ensure_stream(struct ps_scan *s, uint32_t n, int64_t t)
{
	if (n < s->nst)
		return 1;
	uint32_t want = n + 1;
	struct ps_stream *st = realloc(s->st, want * sizeof *st);
	if (!st)
		return 0;
	s->st = st;
	struct weft_model_stream *pst = realloc(s->pst, want * sizeof *pst);
	if (!pst)
		return 0;
	s->pst = pst;
	const struct weft_trace_info *in = weft_reader_info(s->r);
	for (uint32_t i = s->nst; i < want; i++) {
		s->st[i] = (struct ps_stream){.cur = WEFT_NONE, .t_last = t};
		s->st[i].end = INT64_MIN;
		memset(&s->pst[i], 0, sizeof s->pst[i]);
		if (i < in->nstreams) {
			s->pst[i].tid = in->streams[i].tid;
			memcpy(s->pst[i].name, in->streams[i].name, 17);
		}
		s->pst[i].process = weft_reader_stream_process(s->r, i);
		if (s->pst[i].process == WEFT_NO_PROCESS)
			s->pst[i].process = WEFT_NONE;
		s->nst = i + 1;
		s->pst[i].root = new_thread(s, 0, t, i, WEFT_NONE, 0,
					    WEFT_THREAD_ROOT, 0);
		if (s->pst[i].root == WEFT_NONE)
			return 0;
	}
	return 1;
}

/* model.c's get(): id 0 is the OS thread's root; an id never created is
 * a thread whose creation was not seen. */
static uint32_t get(struct ps_scan *s, uint64_t id, int64_t t, uint32_t stream)
{
	if (!id)
		return s->pst[stream].root;
	/* (a memo in front of the hash table; the table by id needs none) */
	struct weft__idtab_ent *mo = id < PS_DIRECT && s->direct
					     ? NULL
					     : weft__idtab_memo(&s->ids, id);
	uint32_t i = mo && mo->key == id ? mo->val : find(s, id);
	if (i == WEFT_NONE)
		return new_thread(s, id, t, stream, WEFT_NONE, 0,
				  WEFT_THREAD_NO_CREATE, 0);
	if (mo) {
		mo->key = id;
		mo->val = i;
	}
	struct weft_thread *th = &s->th[i];
	if (th->end == WEFT_END_PENDING && t > th->t_end)
		th->t_end = t;
	return i;
}

/* model.c's end_thread(), and what why.c's index keeps of a finished
 * thread: its kind's longest life. */
static void end_thread(struct ps_scan *s, uint32_t i, int how, int64_t t)
{
	struct weft_thread *th = &s->th[i];
	if (th->end != WEFT_END_PENDING || (th->flags & WEFT_THREAD_ROOT))
		return;
	th->end = (uint8_t)how;
	th->t_end = t;
	if ((how == WEFT_END_RESOLVED || how == WEFT_END_FAILED ||
	     how == WEFT_END_CANCELLED) &&
	    !(th->flags & WEFT_THREAD_NO_CREATE) && th->kind &&
	    th->kind < s->clongest && t - th->t_create > s->longest[th->kind])
		s->longest[th->kind] = t - th->t_create;
}

/* An arrow of the model, as what it changes of the present: its OS
 * thread's end (why.c's stream_end), the open waits (and how long a
 * woken waiter took to read, why.c's ready_max), what last touched its
 * target. */
static void arrow(struct ps_scan *s, int kind, uint32_t from, uint32_t to,
		  int64_t t, uint32_t stream)
{
	if (from == WEFT_NONE || to == WEFT_NONE)
		return;
	if (t > s->st[stream].end)
		s->st[stream].end = t;
	struct ps_more *x;
	switch (kind) {
	case WEFT_ARROW_TRY_READ:
		x = &s->mo[from];
		x->wait_on = to;
		x->wait_t = x->wait_since = t;
		x->wait_msg = 0;
		break;
	case WEFT_ARROW_READ:
	case WEFT_ARROW_READ_FAILED:
		x = &s->mo[to];
		if ((s->th[to].flags & WEFT_THREAD_ROOT) || x->wait_on != from)
			break;
		/* an answered wait: how long the waiter took once woken
		 * (what why.c's index reads of the whole trace) */
		{
			const struct weft_thread *src = &s->th[from];
			int64_t woke = -1;
			if (src->end != WEFT_END_PENDING && src->t_end <= t)
				woke = src->t_end;
			int64_t sig = s->mo[from].sig_t;
			if (sig >= x->wait_t && sig <= t && sig > woke)
				woke = sig;
			if (woke < x->wait_t)
				woke = x->wait_t;
			if (t - woke > s->ready_max)
				s->ready_max = t - woke;
		}
		x->wait_on = WEFT_NONE;
		break;
	case WEFT_ARROW_SIGNAL:
		s->mo[to].sig_t = t;
		/* fall through */
	case WEFT_ARROW_RESOLVE:
	case WEFT_ARROW_FAIL:
	case WEFT_ARROW_CANCEL:
		s->mo[to].ev_t = t;
		s->mo[to].ev_from = from;
		s->mo[to].ev_kind = (uint8_t)kind;
		break;
	}
}

static uint32_t create_thread(struct ps_scan *s, uint64_t id, int64_t t,
			      uint32_t st, uint32_t actor, uint32_t kind)
{
	uint32_t old = find(s, id), inc = 0;
	if (old != WEFT_NONE) {
		end_thread(s, old, WEFT_END_REPLACED, t);
		inc = s->th[old].incarnation + 1;
	}
	uint32_t x = new_thread(s, id, t, st, actor, kind, 0, inc);
	if (x != WEFT_NONE)
		arrow(s, WEFT_ARROW_CREATE, actor, x, t, st);
	return x;
}

/* A run ended: its OS thread's latest ending, its thread's latest
 * started (the runs a brief model keeps, brief_run()). */
static void add_run(struct ps_scan *s, uint32_t thread, uint32_t stream,
		    int64_t t0, int64_t t1)
{
	if (thread == WEFT_NONE)
		return;
	struct ps_stream *ps = &s->st[stream];
	if (!ps->have_run || t1 > ps->run.t1 ||
	    (t1 == ps->run.t1 && t0 >= ps->run.t0)) {
		ps->run = (struct weft_run){t0, t1, thread, stream};
		ps->have_run = 1;
	}
	struct ps_more *x = &s->mo[thread];
	if (x->run_stream == WEFT_NONE || t0 >= x->run_t0) {
		x->run_t0 = t0;
		x->run_stream = stream;
	}
	if (t1 > ps->end)
		ps->end = t1;
}

/* An idle period or loop phase ended: its OS thread's latest ending. */
static void add_iv(struct ps_scan *s, int phase, int64_t t0, int64_t t1,
		   uint32_t stream, uint32_t name, uint32_t thread)
{
	struct ps_stream *ps = &s->st[stream];
	int *have = phase ? &ps->have_phase : &ps->have_idle;
	struct weft_interval *v = phase ? &ps->phase_iv : &ps->idle_iv;
	if (!phase && t1 > ps->end)
		ps->end = t1;
	if (*have && t1 < v->t1)
		return;
	*have = 1;
	*v = (struct weft_interval){t0, t1, stream, name, thread, 0};
}

static void switch_to(struct ps_scan *s, struct ps_stream *ms, uint32_t st,
		      uint32_t x, int64_t t)
{
	if (ms->running)
		add_run(s, ms->cur, st, ms->run_t0, t);
	ms->running = 0;
	ms->cur = x;
	if (ms->cur != WEFT_NONE && !ms->idle) {
		ms->running = 1;
		ms->run_t0 = t;
	}
}

static void enter_phase(struct ps_scan *s, struct ps_stream *ms, uint32_t st,
			uint32_t phase, int64_t t, uint32_t actor)
{
	if (ms->phase)
		add_iv(s, 1, ms->phase_t0, t, st, ms->phase, ms->phase_thread);
	ms->phase = phase;
	ms->phase_t0 = t;
	ms->phase_thread = actor;
}

/* A label's text, kept (its latest only: the title). */
static uint32_t keep_text(struct ps_scan *s, const char *text, uint32_t len)
{
	if (!text)
		return WEFT_NONE;
	/* (mapped as the tables are: a label per thread is megabytes, and
	 * realloc's copies and small pages were a fifth of ps's faults) */
	if (big_grow(&s->str, &s->cstr, (size_t)s->nstr + len + 1, 1))
		return WEFT_NONE;
	uint32_t off = s->nstr;
	memcpy(s->str + off, text, len);
	s->str[off + len] = 0;
	s->nstr += len + 1;
	return off;
}

/* model.c's add_label_name(): a name read "" (not loaded yet) stays "" */
static int label_name(struct ps_scan *s, uint32_t x, uint32_t name)
{
	if (*weft_reader_name(s->r, name)) {
		s->th[x].label = LABEL_NAME | name;
		return 0;
	}
	uint32_t off = keep_text(s, "", 0);
	if (off == WEFT_NONE)
		return -ENOMEM;
	s->th[x].label = off;
	return 0;
}

/* model.c's apply(). */
static int apply(struct ps_scan *s, const struct weft_event *ev)
{
	int64_t t = clamp(ev->ns);
	uint32_t st = ev->stream;
	if (!ensure_stream(s, st, t))
		return -ENOMEM;
	if (!s->have_t) {
		s->t0 = s->t1 = t;
		s->have_t = 1;
	}
	if (t > s->t1)
		s->t1 = t;
	struct ps_stream *ms = &s->st[st];
	if (t > ms->t_last)
		ms->t_last = t;
	if (ev->type == WEFT_EV_LOSS) {
		if (weft__grow32(&s->loss, &s->closs, (size_t)s->nloss + 1,
				 sizeof *s->loss, 16))
			return -ENOMEM;
		s->loss[s->nloss++] =
			(struct weft_loss){.t = t,
					   .stream = st,
					   .flags = ev->flags,
					   .packets = (uint64_t)ev->value,
					   .events = ev->id};
		return 0;
	}
	uint32_t actor = get(s, ev->actor, t, st);
	uint32_t x;
	if (actor == WEFT_NONE)
		return -ENOMEM;
	switch (ev->type) {
	case WEFT_EV_CREATE:
	case WEFT_EV_CREATE_LABEL:
		x = create_thread(s, ev->id, t, st, actor, ev->name);
		if (x == WEFT_NONE)
			return -ENOMEM;
		if (ev->type == WEFT_EV_CREATE_LABEL && ev->name2 &&
		    label_name(s, x, ev->name2))
			return -ENOMEM;
		break;
	case WEFT_EV_RUN:
		x = ev->id ? get(s, ev->id, t, st) : WEFT_NONE;
		switch_to(s, ms, st, x, t);
		break;
	case WEFT_EV_RESOLVE_RUN:
	case WEFT_EV_FIRE: {
		if ((x = get(s, ev->id, t, st)) == WEFT_NONE)
			return -ENOMEM;
		end_thread(s, x, WEFT_END_RESOLVED, t);
		arrow(s, WEFT_ARROW_RESOLVE, actor, x, t, st);
		switch_to(s, ms, st, x, t);
		if (ev->type == WEFT_EV_RESOLVE_RUN)
			break;
		/* the source's next activation, of its kind and label */
		uint32_t lab = s->th[x].label;
		uint32_t y = create_thread(s, ev->id2, t, st, x, s->th[x].kind);
		if (y == WEFT_NONE)
			return -ENOMEM;
		s->th[y].label = lab;
		break;
	}
	case WEFT_EV_IDLE:
		if (ms->running)
			add_run(s, ms->cur, st, ms->run_t0, t);
		ms->running = 0;
		if (!ms->idle) {
			ms->idle = 1;
			ms->idle_t0 = t;
			ms->idle_reason = ev->name;
			if (ms->phased)
				enter_phase(s, ms, st, ev->name, t, actor);
		}
		break;
	case WEFT_EV_RESUME:
		if (ms->idle)
			add_iv(s, 0, ms->idle_t0, t, st, ms->idle_reason,
			       WEFT_NONE);
		ms->idle = 0;
		if (ms->cur != WEFT_NONE && !ms->running) {
			ms->running = 1;
			ms->run_t0 = t;
		}
		break;
	case WEFT_EV_READ:
		if ((x = get(s, ev->id, t, st)) == WEFT_NONE)
			return -ENOMEM;
		arrow(s,
		      s->th[x].end == WEFT_END_FAILED ? WEFT_ARROW_READ_FAILED
						      : WEFT_ARROW_READ,
		      x, actor, t, st);
		break;
	case WEFT_EV_TRY_READ:
		if ((x = get(s, ev->id, t, st)) == WEFT_NONE)
			return -ENOMEM;
		arrow(s, WEFT_ARROW_TRY_READ, actor, x, t, st);
		/* a wait on the peer process that read our request: since
		 * when it waits (model.c's message()) */
		if (ev->flags & WEFT_EVF_MESSAGE) {
			s->mo[actor].wait_since = clamp(ev->value);
			s->mo[actor].wait_msg = 1;
		}
		break;
	case WEFT_EV_RESOLVE:
	case WEFT_EV_FAIL:
	case WEFT_EV_CANCEL: {
		if ((x = get(s, ev->id, t, st)) == WEFT_NONE)
			return -ENOMEM;
		int end = ev->type == WEFT_EV_RESOLVE ? WEFT_END_RESOLVED
			  : ev->type == WEFT_EV_FAIL  ? WEFT_END_FAILED
						      : WEFT_END_CANCELLED;
		end_thread(s, x, end, t);
		arrow(s,
		      ev->type == WEFT_EV_RESOLVE ? WEFT_ARROW_RESOLVE
		      : ev->type == WEFT_EV_FAIL  ? WEFT_ARROW_FAIL
						  : WEFT_ARROW_CANCEL,
		      actor, x, t, st);
		break;
	}
	case WEFT_EV_BECOMES: {
		uint32_t a = get(s, ev->id, t, st);
		uint32_t b = a == WEFT_NONE ? WEFT_NONE
					    : get(s, ev->id2, t, st);
		if (b == WEFT_NONE)
			return -ENOMEM;
		if (s->th[a].end == WEFT_END_PENDING && a != b)
			s->th[a].became = b;
		end_thread(s, a, WEFT_END_BECAME, t);
		arrow(s, WEFT_ARROW_BECOME, a, b, t, st);
		break;
	}
	case WEFT_EV_SIGNAL:
		if ((x = get(s, ev->id, t, st)) == WEFT_NONE)
			return -ENOMEM;
		arrow(s, WEFT_ARROW_SIGNAL, actor, x, t, st);
		break;
	case WEFT_EV_LABEL:
		if ((x = get(s, ev->id, t, st)) == WEFT_NONE)
			return -ENOMEM;
		/* (no text: an empty one, as the model keeps it) */
		s->th[x].label = keep_text(s, ev->text ? ev->text : "",
					   ev->text ? ev->text_len : 0);
		if (s->th[x].label == WEFT_NONE)
			return -ENOMEM;
		break;
	case WEFT_EV_NOTE:
		if (get(s, ev->id, t, st) == WEFT_NONE)
			return -ENOMEM;
		break;
	case WEFT_EV_SHOULD_RESOLVE:
		if ((x = get(s, ev->id, t, st)) == WEFT_NONE)
			return -ENOMEM;
		s->th[x].flags |= WEFT_THREAD_SHOULD_RESOLVE;
		break;
	case WEFT_EV_PHASE:
		ms->phased = 1;
		if (ev->name != ms->phase &&
		    (!ev->name || !ms->phase ||
		     strcmp(weft_reader_name(s->r, ev->name),
			    weft_reader_name(s->r, ms->phase))))
			enter_phase(s, ms, st, ev->name, t, actor);
		break;
	}
	return 0;
}

/* model.c's copy_processes() and finalize(): what is open ends, for now,
 * at the last event (its process's, if it ended). */
static int finish(struct ps_scan *s)
{
	uint32_t n;
	const struct weft_process *p = weft_reader_processes(s->r, &n);
	free(s->proc);
	s->proc = calloc(n ? n : 1, sizeof *s->proc);
	if (!s->proc)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		struct weft_model_process *q = &s->proc[i];
		q->pid = p[i].pid;
		q->parent = p[i].parent < n ? p[i].parent : WEFT_NONE;
		q->thread = p[i].thread ? find(s, p[i].thread) : WEFT_NONE;
		q->end = p[i].end;
		q->status = p[i].status;
		memcpy(q->comm, p[i].comm, sizeof q->comm);
		q->comm[sizeof q->comm - 1] = 0;
	}
	s->nproc = n;
	for (uint32_t i = 0; i < s->nst; i++) {
		uint32_t k = weft_reader_stream_process(s->r, i);
		s->pst[i].process = k < n ? k : WEFT_NONE;
	}
	for (uint32_t i = 0; i < s->nst; i++) {
		struct ps_stream *ms = &s->st[i];
		uint32_t k = s->pst[i].process;
		int64_t end = k < s->nproc && s->proc[k].end !=
						      WEFT_PROC_RUNNING
				      ? ms->t_last
				      : s->t1;
		if (ms->running)
			add_run(s, ms->cur, i, ms->run_t0, end);
		if (ms->idle)
			add_iv(s, 0, ms->idle_t0, end, i, ms->idle_reason,
			       WEFT_NONE);
		if (ms->phase)
			add_iv(s, 1, ms->phase_t0, end, i, ms->phase,
			       ms->phase_thread);
		/* (why.c: an OS thread's trace ends no earlier than the
		 * trace's first event) */
		if (ms->end < s->t0)
			ms->end = s->t0;
	}
	/* the longest life of each kind, by text (names are interned by
	 * address: two ids may say the same) */
	int64_t *by_text = malloc(((size_t)s->clongest + 1) * sizeof *by_text);
	if (!by_text)
		return -ENOMEM;
	memcpy(by_text, s->longest, (size_t)s->clongest * sizeof *by_text);
	for (uint32_t a = 1; a < s->clongest; a++)
		for (uint32_t b = a + 1; b < s->clongest; b++)
			if (s->longest[b] != s->longest[a] &&
			    !strcmp(weft_reader_name(s->r, a),
				    weft_reader_name(s->r, b))) {
				if (s->longest[b] > by_text[a])
					by_text[a] = s->longest[b];
				if (s->longest[a] > by_text[b])
					by_text[b] = s->longest[a];
			}
	free(s->longest);
	s->longest = by_text;
	return 0;
}

int ps_scan_run(struct ps_scan *s, struct weft_reader *r)
{
	memset(s, 0, sizeof *s);
	s->r = r;
	s->ready_max = -1;
	struct weft_event ev;
	int rc;
	while ((rc = weft_reader_next(r, &ev)) == 0)
		if ((rc = apply(s, &ev)))
			return rc;
	if (rc != WEFT_EEOF && rc != WEFT_EAGAIN)
		return rc;
	return finish(s);
}

void ps_scan_release(struct ps_scan *s)
{
	big_free(s->th, s->cth, sizeof *s->th);
	big_free(s->mo, s->cmo, sizeof *s->mo);
	free(s->pst);
	free(s->st);
	free(s->proc);
	free(s->loss);
	big_free(s->str, s->cstr, 1);
	big_free(s->ids.h, s->ids.cap, sizeof *s->ids.h);
	if (s->direct)
		munmap(s->direct, PS_DIRECT * sizeof *s->direct);
	free(s->longest);
	free(s->child_off);
	free(s->child_idx);
	free(s->await);
	memset(s, 0, sizeof *s);
}

/* ---------------------------------------------------------- presenting */

const char *ps_title(const struct ps_scan *s, uint32_t thread, char *buf,
		     unsigned cap)
{
	if (thread >= s->nth) {
		snprintf(buf, cap, "?");
		return buf;
	}
	const struct weft_thread *th = &s->th[thread];
	if (th->flags & WEFT_THREAD_ROOT) {
		const struct weft_model_stream *p = &s->pst[th->stream];
		snprintf(buf, cap, "OS thread %u (%s)", p->tid, p->name);
	} else if (th->label != WEFT_NONE)
		snprintf(buf, cap, "%s",
			 th->label & LABEL_NAME
				 ? weft_reader_name(s->r,
						    th->label & ~LABEL_NAME)
			 : th->label < s->nstr ? s->str + th->label
					       : "");
	else if (th->kind)
		snprintf(buf, cap, "%s 0x%llx",
			 weft_reader_name(s->r, th->kind),
			 (unsigned long long)th->id);
	else
		snprintf(buf, cap, "0x%llx", (unsigned long long)th->id);
	/* cut on a character boundary (model.c's weft_model_title) */
	size_t len = strlen(buf), ok = 0;
	if (cap && len + 1 == cap) {
		while (ok < len) {
			uint32_t cp;
			size_t k = weft_utf8_decode(buf + ok, len - ok, &cp);
			if (cp == 0xFFFD &&
			    !(k == 3 && !memcmp(buf + ok, "\xEF\xBF\xBD", 3)))
				break;
			ok += k;
		}
		buf[ok] = 0;
	}
	return buf;
}

uint32_t ps_thread_process(const struct ps_scan *s, uint32_t t)
{
	if (t >= s->nth || s->th[t].stream >= s->nst)
		return WEFT_NONE;
	return s->pst[s->th[t].stream].process;
}

/* why.c's successor(). */
static uint32_t successor(const struct ps_scan *s, uint32_t t)
{
	for (int hops = 0; t < s->nth && s->th[t].end == WEFT_END_BECAME &&
			   s->th[t].became != WEFT_NONE && hops < 1000;
	     hops++)
		t = s->th[t].became;
	return t;
}

/* Each thread's children, in creation order (why.c's walk of creation
 * arrows), made the first time a reply is followed into a peer. */
static int children(struct ps_scan *s)
{
	if (s->child_off)
		return 0;
	uint32_t *off = calloc((size_t)s->nth + 2, sizeof *off);
	uint32_t *idx = malloc(((size_t)s->nth + 1) * sizeof *idx);
	if (!off || !idx) {
		free(off);
		free(idx);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < s->nth; i++)
		if (s->th[i].parent < s->nth)
			off[s->th[i].parent + 2]++;
	for (uint32_t i = 0; i < s->nth; i++)
		off[i + 2] += off[i + 1];
	for (uint32_t i = 0; i < s->nth; i++)
		if (s->th[i].parent < s->nth)
			idx[off[s->th[i].parent + 1]++] = i;
	s->child_off = off;
	s->child_idx = idx;
	return 0;
}

/* why.c's pending_work(). */
static uint32_t pending_work(struct ps_scan *s, uint32_t t)
{
	if (children(s))
		return WEFT_NONE;
	const struct weft_thread *th = s->th;
	uint32_t queue[4096], head = 0, tail = 0, best = WEFT_NONE;
	queue[tail++] = t;
	while (head < tail) {
		uint32_t x = queue[head++];
		for (uint32_t k = s->child_off[x]; k < s->child_off[x + 1];
		     k++) {
			uint32_t y = s->child_idx[k];
			if (th[y].end == WEFT_END_PENDING &&
			    th[y].kind != th[t].kind &&
			    (best == WEFT_NONE ||
			     th[y].t_create >= th[best].t_create))
				best = y;
			if (th[y].kind != th[t].kind &&
			    tail < sizeof queue / sizeof *queue)
				queue[tail++] = y;
		}
	}
	return best;
}

/* The longest life of a thread of t's kind (by its text), or -1. */
static int64_t kind_longest(const struct ps_scan *s, uint32_t t)
{
	uint32_t k = s->th[t].kind;
	if (!k || k >= s->clongest)
		return -1;
	return s->longest[k];
}

static int by_target(const void *a, const void *b)
{
	const struct ps_await *x = a, *y = b;
	if (x->target != y->target)
		return x->target < y->target ? -1 : 1;
	return x->waiter < y->waiter ? -1 : x->waiter > y->waiter;
}

/* why.c's awaited_by: the first pending thread (in the model's order)
 * waiting on b, from a table of the pending waits made at the first
 * question.  NONE, or the waiter and *since when it waits. */
static uint32_t awaited_by(struct ps_scan *s, uint32_t b, int64_t *since)
{
	if (!s->await) {
		uint32_t n = 0;
		for (int pass = 0; pass < 2; pass++) {
			for (uint32_t i = 0; i < s->nth; i++) {
				if (s->th[i].flags & WEFT_THREAD_ROOT ||
				    s->th[i].end != WEFT_END_PENDING ||
				    s->mo[i].wait_on == WEFT_NONE)
					continue;
				if (pass)
					s->await[n] = (struct ps_await){
						successor(s, s->mo[i].wait_on),
						i, s->mo[i].wait_t};
				n++;
			}
			if (!pass && !(s->await = malloc(((size_t)n + 1) *
							 sizeof *s->await)))
				return WEFT_NONE;
			if (!pass)
				n = 0;
		}
		s->nawait = n;
		qsort(s->await, n, sizeof *s->await, by_target);
	}
	uint32_t lo = 0, hi = s->nawait;
	while (lo < hi) { /* the first for b */
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->await[mid].target < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == s->nawait || s->await[lo].target != b)
		return WEFT_NONE;
	*since = s->await[lo].since;
	return s->await[lo].waiter;
}

static int64_t horizon(const struct ps_scan *s, uint32_t x)
{
	int64_t h = INT64_MIN;
	uint32_t st[2] = {s->th[x].stream, s->mo[x].run_stream != WEFT_NONE
						   ? s->mo[x].run_stream
						   : s->th[x].stream};
	for (int k = 0; k < 2; k++)
		if (st[k] < s->nst && s->st[st[k]].end > h)
			h = s->st[st[k]].end;
	return h == INT64_MIN ? s->t1 : h;
}

static int hides(const struct ps_scan *s, const struct weft_loss *l, int64_t ws)
{
	const struct weft_trace_info *in = weft_reader_info(s->r);
	int before = l->t > ws;
	if ((l->packets || (l->flags & WEFT_EVF_PARTIAL)) && before)
		return 1;
	if (l->events) {
		if (l->t < s->t1)
			return 1;
		if (l->stream < s->nst && l->stream < in->nstreams &&
		    in->streams[l->stream].losses.events_nested > 0 && before)
			return 1;
	}
	return 0;
}

int ps_why(struct ps_scan *s, uint32_t thread, struct weft_why *w)
{
	const struct weft_thread *th = s->th;
	memset(w, 0, sizeof *w);
	w->evidence = w->waiter = w->awaited_by = w->loss = WEFT_NONE;
	w->cycle = WEFT_NONE;
	w->longest = -1;
	if (thread >= s->nth)
		return WEFT_EINVAL;
	uint32_t t = successor(s, thread);
	w->thread = t;
	if (th[t].end != WEFT_END_PENDING) {
		w->verdict = WEFT_VERDICT_OK;
		return 0;
	}
	int cycle = 0, cut = 0, message_hop = 0;
	for (;;) {
		for (uint32_t k = 0; k < w->nchain; k++)
			if (w->chain[k].thread == t) {
				cycle = 1;
				w->cycle = t;
			}
		if (cycle)
			break;
		if (w->nchain == WEFT_WHY_MAX_CHAIN) {
			cut = 1;
			break;
		}
		w->chain[w->nchain].thread = t;
		w->chain[w->nchain].t_wait = 0;
		w->nchain++;
		if (th[t].end != WEFT_END_PENDING) {
			uint32_t p = message_hop ? pending_work(s, t)
						 : WEFT_NONE;
			message_hop = 0;
			if (p == WEFT_NONE)
				break;
			w->chain[w->nchain - 1].t_wait = th[p].t_create;
			w->t_wait = th[p].t_create;
			t = p;
			continue;
		}
		const struct ps_more *x = &s->mo[t];
		message_hop = x->wait_t != INT64_MIN && x->wait_msg;
		if (x->wait_on == WEFT_NONE)
			break;
		w->chain[w->nchain - 1].t_wait = x->wait_since;
		w->t_wait = x->wait_since;
		t = successor(s, x->wait_on);
	}
	uint32_t b = w->chain[w->nchain - 1].thread;
	if (message_hop && th[b].end != WEFT_END_PENDING && !cycle && !cut) {
		w->waiter = w->nchain > 1 ? w->chain[w->nchain - 2].thread
					  : WEFT_NONE;
		w->verdict = WEFT_VERDICT_NEVER_RESOLVED;
		return 0;
	}
	if (w->nchain > 1)
		w->waiter = w->chain[w->nchain - 2].thread;
	else {
		int64_t since = 0;
		uint32_t a = awaited_by(s, b, &since);
		if (a != WEFT_NONE) {
			w->awaited_by = w->waiter = a;
			w->t_wait = since;
		}
	}
	int should = (th[thread].flags | th[w->thread].flags) &
		     WEFT_THREAD_SHOULD_RESOLVE;
	if (w->nchain == 1 && w->waiter == WEFT_NONE && !should) {
		w->verdict = WEFT_VERDICT_UNAWAITED;
		return 0;
	}
	if (s->mo[b].ev_from != WEFT_NONE)
		w->evidence = b;
	int64_t ws = INT64_MAX;
	for (uint32_t k = 0; k <= w->nchain; k++) {
		uint32_t x = k < w->nchain ? w->chain[k].thread : w->waiter;
		if (x == WEFT_NONE || x >= s->nth)
			continue;
		if (th[x].flags & WEFT_THREAD_NO_CREATE)
			ws = INT64_MIN;
		else if (th[x].t_create < ws)
			ws = th[x].t_create;
	}
	for (uint32_t i = 0; i < s->nloss; i++)
		if (hides(s, &s->loss[i], ws)) {
			w->loss = i;
			w->verdict = WEFT_VERDICT_TRUNCATED;
			return 0;
		}
	if (cycle) {
		w->verdict = WEFT_VERDICT_DEADLOCK;
		return 0;
	}
	if (cut) {
		w->verdict = WEFT_VERDICT_NEVER_RESOLVED;
		return 0;
	}
	if (w->evidence != WEFT_NONE && w->waiter != WEFT_NONE) {
		int64_t et = s->mo[b].ev_t;
		w->horizon = horizon(s, w->waiter);
		if (et >= w->t_wait &&
		    (et > w->horizon ||
		     (s->ready_max >= 0 && w->horizon - et <= s->ready_max))) {
			w->verdict = WEFT_VERDICT_IN_FLIGHT;
			w->longest = s->ready_max;
			w->ready = et;
			return 0;
		}
		w->verdict = th[b].end == WEFT_END_FAILED
				     ? WEFT_VERDICT_FAILED_UPSTREAM
				     : WEFT_VERDICT_LOST_WAKEUP;
		return 0;
	}
	if (th[b].end == WEFT_END_FAILED) {
		w->verdict = WEFT_VERDICT_FAILED_UPSTREAM;
		return 0;
	}
	w->horizon = horizon(s, b);
	if (th[b].end == WEFT_END_PENDING && w->evidence == WEFT_NONE &&
	    !(th[b].flags & WEFT_THREAD_NO_CREATE)) {
		int64_t longest = kind_longest(s, b);
		if (longest >= 0 && w->horizon - th[b].t_create <= longest) {
			w->verdict = WEFT_VERDICT_IN_FLIGHT;
			w->longest = longest;
			return 0;
		}
	}
	w->verdict = WEFT_VERDICT_NEVER_RESOLVED;
	return 0;
}
