/* SPDX-License-Identifier: MIT */
/*
 * model.c - events into async threads, runs, arrows, counters, intervals.
 *
 * One pass over the events in time order, with per-OS-thread state (what
 * runs, idle or not, open spans).  Intervals still open when the events
 * stop are added provisionally, ending at the last event (of their
 * process, if it ended), and taken back before the next update, so a
 * live model extends them.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft/model.h"
#include "model-notes.h"
#include "common/grow.h"
#include "common/idtab.h"

/* How many arrows back a read looks for the try-read it answers. */
#define TRY_BACK 4096

/* Room for element n of arr (its capacity cap, a uint32_t), 64 first. */
#define GROW(arr, n, cap)                                                      \
	((n) < (cap) ||                                                        \
	 !weft__grow32(&(arr), &(cap), (size_t)(n) + 1, sizeof *(arr), 64))

struct series {
	uint32_t name;
	uint32_t process; /* whose it is (a counter belongs to its process) */
	uint32_t next;	  /* the next series of its name + 1, 0: none */
	uint32_t n, cap;
	struct weft_sample *s;
	int64_t min, max;
};

/* The model's intervals by kind (weft_model_intervals() maps the public
 * enum weft_interval_kind onto these) */
enum { IV_IDLE, IV_PAUSE, IV_SPAN, IV_PHASE, IV_KINDS };

struct mstream {
	uint32_t cur; /* current async thread, or NONE */
	int running;  /* cur has an open run */
	int64_t run_t0;
	int idle;
	int64_t idle_t0;
	uint32_t idle_reason;
	uint32_t *spans; /* open spans (indexes in span) */
	uint32_t nspans, cspans;
	int phased;	/* the stream has recorded a phase */
	uint32_t phase; /* its loop's phase now (a name), 0: none */
	int64_t phase_t0;
	uint32_t phase_thread; /* the async thread current when it began */
	int64_t t_last;	       /* its last event */
	int64_t fin_t1;	       /* where finalize() ended what was open */
};

struct weft_model {
	struct weft_reader *r;
	struct weft_thread *th;
	uint32_t nth, cth;
	struct weft_run *run;
	uint32_t nrun, crun;
	int finalized; /* the provisional runs and intervals are in */
	struct weft_arrow *arr;
	uint32_t narr, carr;
	/* message arrows: (arrow index, ns written), in arrow order */
	struct msent {
		uint32_t arrow;
		int64_t t;
	} * msent;
	uint32_t nmsent, cmsent;
	struct weft_label *lab;
	uint32_t nlab, clab;
	/* notes by thread (labels are chained by their prev): a thread's
	 * latest note, and each note's previous one (NONE: none), so that
	 * the inspector finds a thread's notes without a scan */
	uint32_t *note, cnote;		 /* per thread */
	uint32_t *note_prev, cnote_prev; /* per label */
	struct series *ser;
	uint32_t nser, cser;
	uint32_t *ser_of_name; /* name id -> series index + 1 */
	uint32_t cser_of_name;
	struct weft_counter *pubctr;
	struct weft_interval *iv[IV_KINDS]; /* idle, pause, span, phase */
	uint32_t niv[IV_KINDS], civ[IV_KINDS], niv_final[IV_KINDS];
	struct weft_loss *loss;
	uint32_t nloss, closs;
	struct weft_model_stream *pst;
	struct mstream *st;
	uint32_t nst;
	struct weft_model_process *proc; /* copied from the reader */
	uint32_t nproc;
	char *str;
	uint32_t nstr, cstr;
	uint32_t *text_of_name; /* name id -> its text in str + 1 (labels) */
	uint32_t ctext_of_name;
	/* id -> latest incarnation, with a memo in front for get()
	 * (common/idtab.h) */
	struct weft__idtab ids;
	/* follow_try_read's index: each thread's latest try-read arrow
	 * (index + 1, 0: none), and each try-read arrow's previous one of
	 * its reader (index + 1), by arrow index mod the distance
	 * follow_try_read looks back: exact within it */
	uint32_t *last_try, clast_try;
	uint32_t try_prev[TRY_BACK];
	/* per-thread run and arrow lists (CSR), built by finalize() */
	uint32_t *run_off, *run_idx, *arr_off, *arr_idx;
	int64_t t0, t1;
	int have_t;
	int loaded;
	/* a lean model (weft_model_set_sink): what ends goes to the sink */
	int lean;
	struct weft_model_sink sink;
	/* a brief model (weft_model_set_brief): of the runs, each OS
	 * thread's latest ending and each async thread's latest started
	 * (entries in brun, referenced by the slots brun_st and brun_th:
	 * index + 1, 0 none; a free entry's r.thread links the free list);
	 * of the idle periods and loop phases, each OS thread's latest
	 * ending (biv_st: index + 1); no spans nor pauses */
	int brief;
	struct brun {
		struct weft_run r;
		uint64_t seq; /* the order it ended in */
		uint32_t ref; /* slots that hold it */
	} * brun;
	uint32_t nbrun, cbrun, bfree;
	uint64_t bseq;
	uint32_t *brun_st, cbrun_st, *brun_th, cbrun_th;
	uint32_t *biv_st[2], cbiv_st[2]; /* idle, phase */
	uint32_t cur_stream; /* the OS thread of the event being applied */
};

/* Times come from the trace: a hostile one saturates, never overflows. */
static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b < 0 ? INT64_MIN : INT64_MAX;
	return r;
}

static int64_t sat_sub(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_sub_overflow(a, b, &r))
		return b > 0 ? INT64_MIN : INT64_MAX;
	return r;
}

/* ------------------------------------------------------------- strings */

static uint32_t intern_text(struct weft_model *m, const char *s, uint32_t len)
{
	if (!s)
		return WEFT_NONE;
	if (weft__grow32(&m->str, &m->cstr, (size_t)m->nstr + len + 1, 1, 4096))
		return WEFT_NONE;
	uint32_t off = m->nstr;
	memcpy(m->str + off, s, len);
	m->str[off + len] = 0;
	m->nstr += len + 1;
	return off;
}

const char *weft_model_string(const struct weft_model *m, uint32_t s)
{
	return s == WEFT_NONE || s >= m->nstr ? "" : m->str + s;
}

const char *weft_model_name(const struct weft_model *m, uint32_t name)
{
	return weft_reader_name(m->r, name);
}

/* ------------------------------------------------------------- threads */

/* id -> v: 0 when the table could not grow. */
static int hput(struct weft_model *m, uint64_t id, uint32_t v)
{
	if (weft__idtab_full(&m->ids)) {
		uint32_t nc = m->ids.cap ? m->ids.cap * 2 : 1024;
		/* (a group of four slots in one cache line) */
		struct weft__idtab_ent *nh =
			aligned_alloc(64, (size_t)nc * sizeof *nh);
		if (!nh)
			return 0;
		memset(nh, 0, (size_t)nc * sizeof *nh);
		free(weft__idtab_move(&m->ids, nh, nc));
	}
	weft__idtab_put(&m->ids, id, v);
	return 1;
}

int64_t weft_model_arrow_sent(const struct weft_model *m, uint32_t arrow)
{
	if (arrow >= m->narr)
		return 0;
	if (m->arr[arrow].flags & WEFT_ARROW_MESSAGE) {
		uint32_t lo = 0, hi = m->nmsent;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (m->msent[mid].arrow < arrow)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < m->nmsent && m->msent[lo].arrow == arrow)
			return m->msent[lo].t;
	}
	return m->arr[arrow].t;
}

uint32_t weft_model_find(const struct weft_model *m, uint64_t id)
{
	return id ? weft__idtab_find(&m->ids, id) : WEFT_NONE;
}

static uint32_t new_thread(struct weft_model *m, uint64_t id, int64_t t,
			   uint32_t stream, uint32_t parent, uint32_t kind,
			   uint8_t flags, uint32_t incarnation)
{
	if (!GROW(m->th, m->nth, m->cth) || !GROW(m->note, m->nth, m->cnote))
		return WEFT_NONE;
	m->note[m->nth] = WEFT_NONE;
	uint32_t i = m->nth++;
	struct weft_thread *th = &m->th[i];
	memset(th, 0, sizeof *th);
	th->id = id;
	th->t_create = th->t_end = t;
	th->parent = parent;
	th->stream = stream;
	th->kind = kind;
	th->label = th->message = th->became = WEFT_NONE;
	th->incarnation = incarnation;
	th->flags = flags;
	if (id && !hput(m, id, i))
		return WEFT_NONE;
	return i;
}

static int ensure_stream(struct weft_model *m, uint32_t s, int64_t t)
{
	if (s < m->nst)
		return 1;
	uint32_t n = s + 1;
	struct mstream *st = realloc(m->st, n * sizeof *st);
	if (!st)
		return 0;
	m->st = st;
	struct weft_model_stream *pst = realloc(m->pst, n * sizeof *pst);
	if (!pst)
		return 0;
	m->pst = pst;
	const struct weft_trace_info *in = weft_reader_info(m->r);
	for (uint32_t i = m->nst; i < n; i++) {
		memset(&m->st[i], 0, sizeof m->st[i]);
		m->st[i].cur = WEFT_NONE;
		m->st[i].t_last = t;
		memset(&m->pst[i], 0, sizeof m->pst[i]);
		if (i < in->nstreams) {
			m->pst[i].tid = in->streams[i].tid;
			memcpy(m->pst[i].name, in->streams[i].name, 17);
		}
		m->pst[i].process = weft_reader_stream_process(m->r, i);
		if (m->pst[i].process == WEFT_NO_PROCESS)
			m->pst[i].process = WEFT_NONE;
		m->nst = i + 1; /* new_thread may look at streams */
		m->pst[i].root = new_thread(m, 0, t, i, WEFT_NONE, 0,
					    WEFT_THREAD_ROOT, 0);
		if (m->pst[i].root == WEFT_NONE)
			return 0;
	}
	return 1;
}

/* The thread an event names: id 0 is the OS thread's root; an id never
 * created is a thread whose creation was not seen. */
static uint32_t get(struct weft_model *m, uint64_t id, int64_t t,
		    uint32_t stream)
{
	if (!id)
		return m->pst[stream].root;
	struct weft__idtab_ent *mo = weft__idtab_memo(&m->ids, id);
	uint32_t i;
	if (mo->key == id)
		i = mo->val;
	else {
		i = weft_model_find(m, id);
		if (i == WEFT_NONE)
			return new_thread(m, id, t, stream, WEFT_NONE, 0,
					  WEFT_THREAD_NO_CREATE, 0);
		mo->key = id;
		mo->val = i;
	}
	struct weft_thread *th = &m->th[i];
	if (th->end == WEFT_END_PENDING && t > th->t_end)
		th->t_end = t;
	return i;
}

static void arrow(struct weft_model *m, int kind, uint32_t from, uint32_t to,
		  int64_t t, uint32_t stream)
{
	if (from != WEFT_NONE && to != WEFT_NONE && m->lean && m->sink.arrow) {
		struct weft_arrow x = {.t = t,
				       .from = from,
				       .to = to,
				       .kind = (uint8_t)kind,
				       .stream = stream};
		m->sink.arrow(m->sink.ctx, &x);
	}
	if (from == WEFT_NONE || to == WEFT_NONE || m->lean ||
	    !GROW(m->arr, m->narr, m->carr))
		return;
	struct weft_arrow *a = &m->arr[m->narr++];
	a->t = t;
	a->from = from;
	a->to = to;
	a->kind = (uint8_t)kind;
	a->flags = 0;
	a->pad = 0;
	a->stream = stream;
}

static void end_thread(struct weft_model *m, uint32_t i, int how, int64_t t)
{
	struct weft_thread *th = &m->th[i];
	if (th->end != WEFT_END_PENDING || (th->flags & WEFT_THREAD_ROOT))
		return;
	th->end = (uint8_t)how;
	th->t_end = t;
}

/* Makes room in a table indexed by name id (zero-filled) for `name`. */
static int by_name_room(uint32_t **a, uint32_t *cap, uint32_t name)
{
	if (name < *cap)
		return 1;
	uint32_t was = *cap;
	if (weft__grow32(a, cap, (size_t)name + 1, sizeof **a, 64))
		return 0;
	memset(*a + was, 0, (size_t)(*cap - was) * sizeof **a);
	return 1;
}

static void brief_unref(struct weft_model *m, uint32_t e)
{
	if (--m->brun[e].ref == 0) {
		m->brun[e].r.thread = m->bfree;
		m->bfree = e;
	}
}

/* A brief model keeps run x if it is its OS thread's latest ending (the
 * last, in the order of start and then of ending, of those ending
 * latest) or its async thread's latest started (the last in that order):
 * what weft ps and weft_why_at read of the runs. */
static void brief_run(struct weft_model *m, const struct weft_run *x)
{
	uint64_t seq = m->bseq++;
	if (!by_name_room(&m->brun_st, &m->cbrun_st, x->stream) ||
	    !by_name_room(&m->brun_th, &m->cbrun_th, x->thread))
		return;
	uint32_t s = m->brun_st[x->stream], t = m->brun_th[x->thread];
	int win_s =
		!s || x->t1 > m->brun[s - 1].r.t1 ||
		(x->t1 == m->brun[s - 1].r.t1 && x->t0 >= m->brun[s - 1].r.t0);
	int win_t = !t || x->t0 >= m->brun[t - 1].r.t0;
	if (!win_s && !win_t)
		return;
	uint32_t e;
	if (m->bfree != WEFT_NONE) {
		e = m->bfree;
		m->bfree = m->brun[e].r.thread;
	} else if (GROW(m->brun, m->nbrun, m->cbrun))
		e = m->nbrun++;
	else
		return;
	m->brun[e] = (struct brun){*x, seq, 0};
	if (win_s) {
		if (s)
			brief_unref(m, s - 1);
		m->brun_st[x->stream] = e + 1;
		m->brun[e].ref++;
	}
	if (win_t) {
		if (t)
			brief_unref(m, t - 1);
		m->brun_th[x->thread] = e + 1;
		m->brun[e].ref++;
	}
}

static int cmp_brun(const void *a, const void *b)
{
	const struct brun *x = a, *y = b;
	if (x->r.t0 != y->r.t0)
		return x->r.t0 < y->r.t0 ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The runs a brief model keeps, in the whole model's order (by start,
 * then in the order they ended). */
static int brief_runs(struct weft_model *m)
{
	uint32_t w = 0;
	for (uint32_t i = 0; i < m->nbrun; i++)
		if (m->brun[i].ref)
			m->brun[w++] = m->brun[i];
	m->nbrun = w;
	m->bfree = WEFT_NONE;
	if (w > 1)
		qsort(m->brun, w, sizeof *m->brun, cmp_brun);
	free(m->run);
	m->run = malloc((w ? w : 1) * sizeof *m->run);
	if (!m->run) {
		m->nrun = m->crun = 0;
		return 0;
	}
	for (uint32_t i = 0; i < w; i++)
		m->run[i] = m->brun[i].r;
	m->nrun = m->crun = w;
	return 1;
}

static void add_run(struct weft_model *m, uint32_t thread, uint32_t stream,
		    int64_t t0, int64_t t1)
{
	if (thread == WEFT_NONE)
		return;
	if (m->brief) {
		struct weft_run x = {t0, t1, thread, stream};
		struct weft_model_stream *ps = &m->pst[stream];
		ps->busy_ns = sat_add(ps->busy_ns, sat_sub(t1, t0));
		brief_run(m, &x);
		return;
	}
	if (m->lean) {
		struct weft_run x = {t0, t1, thread, stream};
		int64_t *b = &m->pst[stream].busy_ns;
		*b = sat_add(*b, sat_sub(t1, t0));
		const struct mstream *ms = &m->st[stream];
		if (m->sink.run)
			m->sink.run(m->sink.ctx, &x,
				    ms->phase ? ms->phase_t0 : INT64_MAX);
		return;
	}
	if (!GROW(m->run, m->nrun, m->crun))
		return;
	struct weft_run *r = &m->run[m->nrun++];
	r->t0 = t0;
	r->t1 = t1;
	r->thread = thread;
	r->stream = stream;
}

static uint32_t add_iv(struct weft_model *m, int which, int64_t t0, int64_t t1,
		       uint32_t stream, uint32_t name, uint32_t thread,
		       uint32_t depth)
{
	if (m->lean) { /* (a phase goes to the sink in enter_phase) */
		if (which == IV_IDLE) {
			int64_t *d = &m->pst[stream].idle_ns;
			*d = sat_add(*d, sat_sub(t1, t0));
			if (m->sink.idle)
				m->sink.idle(m->sink.ctx, stream, t0, t1);
		}
		return WEFT_NONE;
	}
	uint32_t *slot = NULL;
	if (m->brief) {
		struct weft_model_stream *ps = &m->pst[stream];
		if (which == IV_IDLE)
			ps->idle_ns = sat_add(ps->idle_ns, sat_sub(t1, t0));
		if (which != IV_IDLE && which != IV_PHASE)
			return WEFT_NONE;
		int k = which == IV_PHASE;
		if (!by_name_room(&m->biv_st[k], &m->cbiv_st[k], stream))
			return WEFT_NONE;
		slot = &m->biv_st[k][stream];
		/* (its OS thread's latest ending: the last of those) */
		if (*slot && t1 < m->iv[which][*slot - 1].t1)
			return WEFT_NONE;
	}
	uint32_t i;
	if (slot && *slot)
		i = *slot - 1;
	else if (GROW(m->iv[which], m->niv[which], m->civ[which]))
		i = m->niv[which]++;
	else
		return WEFT_NONE;
	if (slot)
		*slot = i + 1;
	struct weft_interval *v = &m->iv[which][i];
	v->t0 = t0;
	v->t1 = t1;
	v->stream = stream;
	v->name = name;
	v->thread = thread;
	v->depth = depth;
	return i;
}

/* A counter's sample, in the series of its name and process: two
 * processes' counters of one name are two series, not one zig-zag. */
static void sample(struct weft_model *m, uint32_t name, uint32_t process,
		   int64_t t, int64_t v, int add)
{
	if (!by_name_room(&m->ser_of_name, &m->cser_of_name, name))
		return;
	uint32_t k = m->ser_of_name[name], last = 0;
	while (k && m->ser[k - 1].process != process) {
		last = k;
		k = m->ser[k - 1].next;
	}
	if (!k) {
		if (!GROW(m->ser, m->nser, m->cser))
			return;
		struct series *s = &m->ser[m->nser++];
		memset(s, 0, sizeof *s);
		s->name = name;
		s->process = process;
		if (last)
			m->ser[last - 1].next = m->nser;
		else
			m->ser_of_name[name] = m->nser;
		k = m->nser;
	}
	struct series *s = &m->ser[k - 1];
	/* (a lean model keeps the last sample only, at 0) */
	uint32_t at = m->lean ? 0 : s->n;
	int64_t prev = s->n ? s->s[m->lean ? 0 : s->n - 1].value : 0;
	/* Hostile values saturate rather than overflow. */
	if (add && s->n && __builtin_add_overflow(v, prev, &v))
		v = prev < 0 ? INT64_MIN : INT64_MAX;
	if (!GROW(s->s, at, s->cap))
		return;
	s->s[at].t = t;
	s->s[at].value = v;
	if (m->lean && m->sink.sample)
		m->sink.sample(m->sink.ctx, name, process, t, v);
	if (!s->n || v < s->min)
		s->min = v;
	if (!s->n || v > s->max)
		s->max = v;
	s->n++;
}

/* A try_read that a read of the same source by the same reader answers:
 * mark it, so viewers can hide it.  Looks back a bounded distance. */
static void follow_try_read(struct weft_model *m, uint32_t reader,
			    uint32_t source)
{
	/* the reader's try-reads, newest first (what a scan of the last
	 * TRY_BACK arrows for kind, reader and source finds) */
	uint32_t lim = m->narr > TRY_BACK ? m->narr - TRY_BACK : 0;
	uint32_t j = reader < m->clast_try ? m->last_try[reader] : 0;
	while (j && j - 1 >= lim) {
		struct weft_arrow *a = &m->arr[j - 1];
		if (a->to == source) {
			a->flags |= WEFT_ARROW_FOLLOWED;
			return;
		}
		j = m->try_prev[(j - 1) % TRY_BACK];
	}
}

/* The arrow just made (if one was) is reader's try-read: indexed for
 * follow_try_read. */
static int index_try_read(struct weft_model *m, uint32_t narr_before,
			  uint32_t reader)
{
	if (m->narr == narr_before)
		return 0;
	if (!by_name_room(&m->last_try, &m->clast_try, reader))
		return -ENOMEM;
	m->try_prev[(m->narr - 1) % TRY_BACK] = m->last_try[reader];
	m->last_try[reader] = m->narr;
	return 0;
}

/* The stream's current thread becomes x (WEFT_NONE: none); the run of
 * the one before ends. */
static void switch_to(struct weft_model *m, struct mstream *ms, uint32_t s,
		      uint32_t x, int64_t t)
{
	if (ms->running)
		add_run(m, ms->cur, s, ms->run_t0, t);
	ms->running = 0;
	ms->cur = x;
	if (ms->cur != WEFT_NONE && !ms->idle) {
		ms->running = 1;
		ms->run_t0 = t;
	}
}

/* A label (kind WEFT_EV_LABEL: the thread's name from now on) or a note
 * on thread x, its text at `text` in the model's strings. */
static int add_label_at(struct weft_model *m, uint32_t x, int64_t t,
			uint32_t kind, uint32_t text)
{
	if (!GROW(m->lab, m->nlab, m->clab) ||
	    !GROW(m->note_prev, m->nlab, m->cnote_prev))
		return -ENOMEM;
	m->note_prev[m->nlab] = WEFT_NONE;
	if (m->lean && m->sink.mark)
		m->sink.mark(m->sink.ctx, m->cur_stream, t, kind);
	struct weft_label *l = &m->lab[m->nlab];
	l->t = t;
	l->thread = x;
	l->text = text;
	l->kind = kind;
	l->prev = WEFT_NONE;
	if (kind == WEFT_EV_LABEL) {
		l->prev = m->th[x].label;
		m->th[x].label = m->nlab;
	} else if (kind == WEFT_EV_NOTE) {
		m->note_prev[m->nlab] = m->note[x];
		m->note[x] = m->nlab;
	}
	m->nlab++;
	return 0;
}

static int add_label(struct weft_model *m, uint32_t x, int64_t t, uint32_t kind,
		     const char *text, uint32_t len)
{
	return add_label_at(m, x, t, kind, intern_text(m, text, len));
}

/* A label given as a name (create_label): its text is copied into the
 * model once per name. */
static int add_label_name(struct weft_model *m, uint32_t x, int64_t t,
			  uint32_t name)
{
	if (!by_name_room(&m->text_of_name, &m->ctext_of_name, name))
		return -ENOMEM;
	if (!m->text_of_name[name]) {
		const char *l = weft_reader_name(m->r, name);
		uint32_t off = intern_text(m, l, (uint32_t)strlen(l));
		if (off == WEFT_NONE)
			return -ENOMEM;
		/* A name not loaded yet reads "": not kept, looked up
		 * again next time. */
		if (!*l)
			return add_label_at(m, x, t, WEFT_EV_LABEL, off);
		m->text_of_name[name] = off + 1;
	}
	return add_label_at(m, x, t, WEFT_EV_LABEL, m->text_of_name[name] - 1);
}

/* current creates `id`, of kind `kind`: a new incarnation if id lives. */
static uint32_t create_thread(struct weft_model *m, uint64_t id, int64_t t,
			      uint32_t s, uint32_t actor, uint32_t kind)
{
	uint32_t old = weft_model_find(m, id);
	uint32_t inc = 0;
	if (old != WEFT_NONE) {
		end_thread(m, old, WEFT_END_REPLACED, t);
		inc = m->th[old].incarnation + 1;
	}
	uint32_t x = new_thread(m, id, t, s, actor, kind, 0, inc);
	if (x != WEFT_NONE)
		arrow(m, WEFT_ARROW_CREATE, actor, x, t, s);
	return x;
}

/* The stream's loop leaves its phase at t and enters `phase` (0: none),
 * with `actor` current (its loop, usually). */
static void enter_phase(struct weft_model *m, struct mstream *ms, uint32_t s,
			uint32_t phase, int64_t t, uint32_t actor)
{
	if (ms->phase && m->lean && m->sink.phase) {
		struct weft_interval v = {ms->phase_t0,	    t, s, ms->phase,
					  ms->phase_thread, 0};
		m->sink.phase(m->sink.ctx, &v,
			      ms->running ? ms->run_t0 : INT64_MIN);
	} else if (ms->phase)
		add_iv(m, IV_PHASE, ms->phase_t0, t, s, ms->phase,
		       ms->phase_thread, 0);
	ms->phase = phase;
	ms->phase_t0 = t;
	ms->phase_thread = actor;
}

/* The arrow just made is a message between processes (or a wait for
 * one): flagged, with the time its bytes were written (or since when it
 * waits), clamped as every model time. */
static void message(struct weft_model *m, int64_t t)
{
	if (!m->narr || !GROW(m->msent, m->nmsent, m->cmsent))
		return;
	m->arr[m->narr - 1].flags |= WEFT_ARROW_MESSAGE;
	m->msent[m->nmsent].arrow = m->narr - 1;
	m->msent[m->nmsent++].t = t < -WEFT_MODEL_T_MAX	 ? -WEFT_MODEL_T_MAX
				  : t > WEFT_MODEL_T_MAX ? WEFT_MODEL_T_MAX
							 : t;
}

static int apply(struct weft_model *m, const struct weft_event *ev)
{
	/* Only a corrupt trace has times this far from its origin: clamped,
	 * so that the difference of any two model times fits (readers
	 * subtract them freely). */
	int64_t t = ev->ns > WEFT_MODEL_T_MAX	 ? WEFT_MODEL_T_MAX
		    : ev->ns < -WEFT_MODEL_T_MAX ? -WEFT_MODEL_T_MAX
						 : ev->ns;
	uint32_t s = ev->stream;
	if (!ensure_stream(m, s, t))
		return -ENOMEM;
	m->cur_stream = s;
	if (!m->have_t) {
		m->t0 = m->t1 = t;
		m->have_t = 1;
	}
	if (t > m->t1)
		m->t1 = t;
	struct mstream *ms = &m->st[s];
	if (t > ms->t_last)
		ms->t_last = t;
	if (ev->type == WEFT_EV_LOSS) {
		if (m->lean)
			return 0;
		if (!GROW(m->loss, m->nloss, m->closs))
			return -ENOMEM;
		struct weft_loss *l = &m->loss[m->nloss++];
		l->t = t;
		l->stream = s;
		l->flags = ev->flags;
		l->packets = (uint64_t)ev->value;
		l->events = ev->id;
		return 0;
	}
	uint32_t actor = get(m, ev->actor, t, s);
	uint32_t x;
	switch (ev->type) {
	case WEFT_EV_CREATE:
	case WEFT_EV_CREATE_LABEL:
		x = create_thread(m, ev->id, t, s, actor, ev->name);
		if (x == WEFT_NONE)
			return -ENOMEM;
		if (ev->type == WEFT_EV_CREATE_LABEL && ev->name2 &&
		    add_label_name(m, x, t, ev->name2))
			return -ENOMEM;
		break;
	case WEFT_EV_RUN:
		switch_to(m, ms, s, ev->id ? get(m, ev->id, t, s) : WEFT_NONE,
			  t);
		break;
	case WEFT_EV_RESOLVE_RUN:
	case WEFT_EV_FIRE: {
		x = get(m, ev->id, t, s);
		end_thread(m, x, WEFT_END_RESOLVED, t);
		arrow(m, WEFT_ARROW_RESOLVE, actor, x, t, s);
		switch_to(m, ms, s, x, t);
		if (ev->type == WEFT_EV_RESOLVE_RUN)
			break;
		/* fire: the source's next activation, of target's kind and
		 * with its label */
		uint32_t lab = m->th[x].label;
		uint32_t y = create_thread(m, ev->id2, t, s, x, m->th[x].kind);
		if (y == WEFT_NONE)
			return -ENOMEM;
		if (lab != WEFT_NONE &&
		    add_label_at(m, y, t, WEFT_EV_LABEL, m->lab[lab].text))
			return -ENOMEM;
		break;
	}
	case WEFT_EV_IDLE:
		if (ms->running)
			add_run(m, ms->cur, s, ms->run_t0, t);
		ms->running = 0;
		if (!ms->idle) {
			ms->idle = 1;
			ms->idle_t0 = t;
			ms->idle_reason = ev->name;
			/* A loop waits once an iteration, in the phase its
			 * reason names: each wait begins that phase anew. */
			if (ms->phased)
				enter_phase(m, ms, s, ev->name, t, actor);
		}
		break;
	case WEFT_EV_RESUME:
		if (ms->idle)
			add_iv(m, IV_IDLE, ms->idle_t0, t, s, ms->idle_reason,
			       WEFT_NONE, 0);
		ms->idle = 0;
		if (ms->cur != WEFT_NONE && !ms->running) {
			ms->running = 1;
			ms->run_t0 = t;
		}
		break;
	case WEFT_EV_READ:
		x = get(m, ev->id, t, s);
		arrow(m,
		      m->th[x].end == WEFT_END_FAILED ? WEFT_ARROW_READ_FAILED
						      : WEFT_ARROW_READ,
		      x, actor, t, s);
		follow_try_read(m, actor, x);
		/* a message: drawn from when its bytes were written */
		if ((ev->flags & WEFT_EVF_MESSAGE) && x != WEFT_NONE &&
		    actor != WEFT_NONE)
			message(m, ev->value);
		break;
	case WEFT_EV_TRY_READ: {
		uint32_t before = m->narr;
		arrow(m, WEFT_ARROW_TRY_READ, actor, get(m, ev->id, t, s), t,
		      s);
		if (index_try_read(m, before, actor))
			return -ENOMEM;
		/* a wait on the peer process that read our request, made
		 * at the end of the trace: since when it waits */
		if (ev->flags & WEFT_EVF_MESSAGE)
			message(m, ev->value);
		break;
	}
	case WEFT_EV_RESOLVE:
		x = get(m, ev->id, t, s);
		end_thread(m, x, WEFT_END_RESOLVED, t);
		arrow(m, WEFT_ARROW_RESOLVE, actor, x, t, s);
		break;
	case WEFT_EV_FAIL:
		x = get(m, ev->id, t, s);
		if (m->th[x].end == WEFT_END_PENDING)
			m->th[x].message =
				intern_text(m, ev->text, ev->text_len);
		end_thread(m, x, WEFT_END_FAILED, t);
		arrow(m, WEFT_ARROW_FAIL, actor, x, t, s);
		break;
	case WEFT_EV_BECOMES: {
		uint32_t a = get(m, ev->id, t, s), b = get(m, ev->id2, t, s);
		if (m->th[a].end == WEFT_END_PENDING && a != b)
			m->th[a].became = b;
		end_thread(m, a, WEFT_END_BECAME, t);
		arrow(m, WEFT_ARROW_BECOME, a, b, t, s);
		break;
	}
	case WEFT_EV_SIGNAL:
		arrow(m, WEFT_ARROW_SIGNAL, actor, get(m, ev->id, t, s), t, s);
		break;
	case WEFT_EV_CANCEL:
		x = get(m, ev->id, t, s);
		end_thread(m, x, WEFT_END_CANCELLED, t);
		arrow(m, WEFT_ARROW_CANCEL, actor, x, t, s);
		break;
	case WEFT_EV_LABEL:
	case WEFT_EV_NOTE:
		if (m->lean && ev->type == WEFT_EV_NOTE) {
			get(m, ev->id, t, s); /* (it may name a new thread) */
			if (m->sink.mark)
				m->sink.mark(m->sink.ctx, s, t, WEFT_EV_NOTE);
			break;
		}
		if (add_label(m, get(m, ev->id, t, s), t, ev->type, ev->text,
			      ev->text_len))
			return -ENOMEM;
		break;
	case WEFT_EV_SHOULD_RESOLVE:
		x = get(m, ev->id, t, s);
		m->th[x].flags |= WEFT_THREAD_SHOULD_RESOLVE;
		break;
	case WEFT_EV_COUNTER_SET:
	case WEFT_EV_COUNTER_ADD:
		sample(m, ev->name, m->pst[s].process, t, ev->value,
		       ev->type == WEFT_EV_COUNTER_ADD);
		break;
	case WEFT_EV_SPAN_BEGIN:
		if (m->lean || m->brief)
			break;
		x = add_iv(m, IV_SPAN, t, t, s, ev->name, actor, ms->nspans);
		if (x != WEFT_NONE && GROW(ms->spans, ms->nspans, ms->cspans))
			ms->spans[ms->nspans++] = x;
		break;
	case WEFT_EV_SPAN_END:
		if (m->lean || m->brief)
			break;
		/* The innermost open span of that name; an end with no
		 * begin (lost, or a mistake) closes nothing. */
		for (uint32_t k = ms->nspans; k-- > 0;) {
			struct weft_interval *v = &m->iv[IV_SPAN][ms->spans[k]];
			if (v->name == ev->name) {
				v->t1 = t;
				memmove(ms->spans + k, ms->spans + k + 1,
					(ms->nspans - k - 1) *
						sizeof *ms->spans);
				ms->nspans--;
				break;
			}
		}
		break;
	case WEFT_EV_PHASE:
		ms->phased = 1;
		/* (names are interned by address: two ids may say the
		 * same) */
		if (ev->name != ms->phase &&
		    (!ev->name || !ms->phase ||
		     strcmp(weft_reader_name(m->r, ev->name),
			    weft_reader_name(m->r, ms->phase))))
			enter_phase(m, ms, s, ev->name, t, actor);
		break;
	case WEFT_EV_PAUSE: {
		/* it began d ago, but not before the model's times begin */
		int64_t d = ev->value < 0 ? 0 : ev->value;
		int64_t t0 = d > t + WEFT_MODEL_T_MAX ? -WEFT_MODEL_T_MAX
						      : t - d;
		add_iv(m, IV_PAUSE, t0, t, s, ev->name, WEFT_NONE, 0);
		break;
	}
	}
	return 0;
}

/* Takes back the provisional intervals of the last finalize(). */
static void unfinalize(struct weft_model *m)
{
	if (!m->finalized)
		return;
	m->niv[IV_IDLE] = m->niv_final[IV_IDLE];
	m->niv[IV_PHASE] = m->niv_final[IV_PHASE];
	m->finalized = 0;
}

static int build_csr(uint32_t nth, uint32_t n, const void *items, size_t size,
		     size_t off_a, size_t off_b, uint32_t **offp,
		     uint32_t **idxp)
{
	uint32_t *off = calloc((size_t)nth + 1, sizeof *off);
	uint32_t *idx = malloc(((size_t)n * (off_b ? 2 : 1) + 1) * sizeof *idx);
	if (!off || !idx) {
		free(off);
		free(idx);
		return 0;
	}
	const char *p = items;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t a, b;
		memcpy(&a, p + (size_t)i * size + off_a, 4);
		if (a < nth)
			off[a + 1]++;
		if (off_b) {
			memcpy(&b, p + (size_t)i * size + off_b, 4);
			if (b < nth && b != a)
				off[b + 1]++;
		}
	}
	for (uint32_t i = 0; i < nth; i++)
		off[i + 1] += off[i];
	uint32_t *fill = calloc((size_t)nth + 1, sizeof *fill);
	if (!fill) {
		free(off);
		free(idx);
		return 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t a, b;
		memcpy(&a, p + (size_t)i * size + off_a, 4);
		if (a < nth)
			idx[off[a] + fill[a]++] = i;
		if (off_b) {
			memcpy(&b, p + (size_t)i * size + off_b, 4);
			if (b < nth && b != a)
				idx[off[b] + fill[b]++] = i;
		}
	}
	free(fill);
	free(*offp);
	free(*idxp);
	*offp = off;
	*idxp = idx;
	return 1;
}

static int cmp_run(const void *a, const void *b)
{
	const struct weft_run *x = a, *y = b;
	return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* Gives back what doubling over-allocated (a finished model keeps what it
 * holds, and a live one regrows). */
#define SHRINK(arr, n, cap)                                                    \
	do {                                                                   \
		if ((n) && (n) < (cap)) {                                      \
			void *p_ =                                             \
				realloc((arr), (size_t)(n) * sizeof *(arr));   \
			if (p_) {                                              \
				(arr) = p_;                                    \
				(cap) = (n);                                   \
			}                                                      \
		}                                                              \
	} while (0)

/* The reader's processes, as the model keeps them (the reader's list
 * lives until its next event; a followed run's grows). */
static int copy_processes(struct weft_model *m)
{
	uint32_t n;
	const struct weft_process *p = weft_reader_processes(m->r, &n);
	if (n > m->nproc) {
		struct weft_model_process *q =
			realloc(m->proc, (size_t)n * sizeof *q);
		if (!q)
			return 0;
		m->proc = q;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct weft_model_process *q = &m->proc[i];
		q->pid = p[i].pid;
		q->parent = p[i].parent < n ? p[i].parent : WEFT_NONE;
		q->thread = p[i].thread ? weft_model_find(m, p[i].thread)
					: WEFT_NONE;
		q->end = p[i].end;
		q->status = p[i].status;
		memcpy(q->comm, p[i].comm, sizeof q->comm);
		q->comm[sizeof q->comm - 1] = 0;
	}
	m->nproc = n;
	/* (a stream's process may be known only once its ring's manifest
	 * lines are read) */
	for (uint32_t s = 0; s < m->nst; s++) {
		uint32_t k = weft_reader_stream_process(m->r, s);
		m->pst[s].process = k < n ? k : WEFT_NONE;
	}
	return 1;
}

static int finalize(struct weft_model *m, int shrink)
{
	/* Open runs, idle periods and phases end, for now, at the last
	 * event; those of a process that ended, at its last event (a
	 * program that exits in a callback ran until then, not until the
	 * others of its run stopped). */
	m->finalized = 1;
	if (!copy_processes(m))
		return -ENOMEM;
	m->niv_final[IV_IDLE] = m->niv[IV_IDLE];
	m->niv_final[IV_PHASE] = m->niv[IV_PHASE];
	for (uint32_t s = 0; s < m->nst; s++) {
		struct mstream *ms = &m->st[s];
		uint32_t k = m->pst[s].process;
		int64_t end = k < m->nproc && m->proc[k].end !=
						      WEFT_PROC_RUNNING
				      ? ms->t_last
				      : m->t1;
		ms->fin_t1 = end;
		if (ms->running)
			add_run(m, ms->cur, s, ms->run_t0, end);
		if (ms->idle)
			add_iv(m, IV_IDLE, ms->idle_t0, end, s, ms->idle_reason,
			       WEFT_NONE, 0);
		if (ms->phase && m->lean && m->sink.phase) {
			struct weft_interval v = {
				ms->phase_t0,	  end, s, ms->phase,
				ms->phase_thread, 0};
			m->sink.phase(m->sink.ctx, &v, INT64_MIN);
		} else if (ms->phase)
			add_iv(m, IV_PHASE, ms->phase_t0, end, s, ms->phase,
			       ms->phase_thread, 0);
		for (uint32_t j = 0; j < ms->nspans; j++) {
			struct weft_interval *v = &m->iv[IV_SPAN][ms->spans[j]];
			if (v->t1 < end)
				v->t1 = end;
		}
	}
	if (shrink) {
		SHRINK(m->th, m->nth, m->cth);
		SHRINK(m->run, m->nrun, m->crun);
		SHRINK(m->arr, m->narr, m->carr);
		SHRINK(m->lab, m->nlab, m->clab);
		SHRINK(m->str, m->nstr, m->cstr);
		for (uint32_t i = 0; i < m->nser && !m->lean; i++)
			SHRINK(m->ser[i].s, m->ser[i].n, m->ser[i].cap);
	}
	/* Runs are added when they end: sort by start for readers. */
	if (m->brief && !brief_runs(m))
		return -ENOMEM;
	if (m->nrun > 1 && !m->brief)
		qsort(m->run, m->nrun, sizeof *m->run, cmp_run);
	for (uint32_t s = 0; s < m->nst && !m->lean && !m->brief; s++)
		m->pst[s].busy_ns = m->pst[s].idle_ns = 0;
	for (uint32_t i = 0; i < m->nrun && !m->brief; i++)
		if (m->run[i].stream < m->nst) {
			int64_t *b = &m->pst[m->run[i].stream].busy_ns;
			*b = sat_add(*b, sat_sub(m->run[i].t1, m->run[i].t0));
		}
	for (uint32_t i = 0; i < m->niv[IV_IDLE] && !m->brief; i++) {
		const struct weft_interval *v = &m->iv[IV_IDLE][i];
		if (v->stream < m->nst) {
			int64_t *d = &m->pst[v->stream].idle_ns;
			*d = sat_add(*d, sat_sub(v->t1, v->t0));
		}
	}
	if (!build_csr(m->nth, m->nrun, m->run, sizeof *m->run,
		       offsetof(struct weft_run, thread), 0, &m->run_off,
		       &m->run_idx) ||
	    !build_csr(m->nth, m->narr, m->arr, sizeof *m->arr,
		       offsetof(struct weft_arrow, from),
		       offsetof(struct weft_arrow, to), &m->arr_off,
		       &m->arr_idx))
		return -ENOMEM;
	free(m->pubctr);
	m->pubctr = calloc(m->nser ? m->nser : 1, sizeof *m->pubctr);
	if (!m->pubctr)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->nser; i++) {
		m->pubctr[i].name = m->ser[i].name;
		m->pubctr[i].nsamples = m->ser[i].n;
		m->pubctr[i].samples = m->ser[i].s;
		m->pubctr[i].min = m->ser[i].min;
		m->pubctr[i].max = m->ser[i].max;
		m->pubctr[i].process = m->ser[i].process;
	}
	return 0;
}

long weft_model_update(struct weft_model *m)
{
	return weft_model_step(m, 0);
}

long weft_model_step(struct weft_model *m, long max)
{
	struct weft_event ev;
	long n = 0;
	int rc = 0;
	if ((m->lean || m->brief) && m->finalized)
		return -EINVAL; /* (what ended went to the sink, or away) */
	/* Runs were sorted by start in finalize(); the open ones were the
	 * provisional tail before sorting, so re-derive them from state. */
	if (m->finalized) {
		/* drop provisional runs: they are the runs whose thread is
		 * still running with the same start */
		uint32_t w = 0;
		for (uint32_t i = 0; i < m->nrun; i++) {
			const struct weft_run *r = &m->run[i];
			int provisional = 0;
			if (r->stream < m->nst) {
				const struct mstream *ms = &m->st[r->stream];
				provisional = ms->running &&
					      ms->cur == r->thread &&
					      ms->run_t0 == r->t0 &&
					      r->t1 == ms->fin_t1;
			}
			if (!provisional)
				m->run[w++] = *r;
		}
		m->nrun = w;
	}
	unfinalize(m);
	while ((max <= 0 || n < max) &&
	       (rc = weft_reader_next(m->r, &ev)) == 0) {
		if ((rc = apply(m, &ev)))
			return rc;
		n++;
	}
	if (max > 0 && n == max)
		return n; /* (more to come: not finalized yet) */
	if (rc != WEFT_EEOF && rc != WEFT_EAGAIN)
		return rc;
	/* A first load is usually all there is: give back the slack. */
	rc = finalize(m, !m->loaded);
	m->loaded = 1;
	return rc ? rc : n;
}

int weft_model_new(struct weft_model **out, struct weft_reader *r)
{
	*out = calloc(1, sizeof **out);
	if (!*out)
		return -ENOMEM;
	(*out)->r = r;
	return 0;
}

int weft_model_load(struct weft_model **out, struct weft_reader *r)
{
	*out = NULL;
	struct weft_model *m = calloc(1, sizeof *m);
	if (!m)
		return -ENOMEM;
	m->r = r;
	long rc = weft_model_update(m);
	if (rc < 0) {
		weft_model_free(m);
		return (int)rc;
	}
	*out = m;
	return 0;
}

int weft_model_set_brief(struct weft_model *m)
{
	if (m->have_t || m->finalized || m->lean)
		return -EINVAL;
	m->brief = 1;
	m->bfree = WEFT_NONE;
	return 0;
}

int weft_model_set_sink(struct weft_model *m,
			const struct weft_model_sink *sink)
{
	if (m->have_t || m->finalized || m->brief)
		return -EINVAL;
	m->lean = 1;
	m->sink = *sink;
	return 0;
}

int64_t weft_model_counter_last(const struct weft_model *m, uint32_t i)
{
	if (i >= m->nser || !m->ser[i].n)
		return 0;
	return m->ser[i].s[m->lean ? 0 : m->ser[i].n - 1].value;
}

void weft_model_free(struct weft_model *m)
{
	if (!m)
		return;
	free(m->th);
	free(m->run);
	free(m->brun);
	free(m->brun_st);
	free(m->brun_th);
	free(m->biv_st[0]);
	free(m->biv_st[1]);
	free(m->arr);
	free(m->last_try);
	free(m->msent);
	free(m->lab);
	free(m->note);
	free(m->note_prev);
	for (uint32_t i = 0; i < m->nser; i++)
		free(m->ser[i].s);
	free(m->ser);
	free(m->ser_of_name);
	free(m->pubctr);
	for (int i = 0; i < IV_KINDS; i++)
		free(m->iv[i]);
	free(m->loss);
	free(m->pst);
	free(m->proc);
	for (uint32_t i = 0; i < m->nst; i++)
		free(m->st[i].spans);
	free(m->st);
	free(m->str);
	free(m->text_of_name);
	free(m->ids.h);
	free(m->run_off);
	free(m->run_idx);
	free(m->arr_off);
	free(m->arr_idx);
	free(m);
}

/* ------------------------------------------------------------- access */

const struct weft_thread *weft_model_threads(const struct weft_model *m,
					     uint32_t *n)
{
	*n = m->nth;
	return m->th;
}
const struct weft_run *weft_model_runs(const struct weft_model *m, uint32_t *n)
{
	*n = m->nrun;
	return m->run;
}
const struct weft_arrow *weft_model_arrows(const struct weft_model *m,
					   uint32_t *n)
{
	*n = m->narr;
	return m->arr;
}
const struct weft_label *weft_model_labels(const struct weft_model *m,
					   uint32_t *n)
{
	*n = m->nlab;
	return m->lab;
}
const struct weft_counter *weft_model_counters(const struct weft_model *m,
					       uint32_t *n)
{
	*n = m->nser;
	return m->pubctr;
}
const struct weft_interval *weft_model_intervals(const struct weft_model *m,
						 int kind, uint32_t *n)
{
	int k = kind == WEFT_INTERVAL_IDLE    ? IV_IDLE
		: kind == WEFT_INTERVAL_PAUSE ? IV_PAUSE
		: kind == WEFT_INTERVAL_SPAN  ? IV_SPAN
		: kind == WEFT_INTERVAL_PHASE ? IV_PHASE
					      : -1;
	*n = k >= 0 ? m->niv[k] : 0;
	return k >= 0 ? m->iv[k] : NULL;
}
const struct weft_loss *weft_model_losses(const struct weft_model *m,
					  uint32_t *n)
{
	*n = m->nloss;
	return m->loss;
}
const struct weft_model_process *
weft_model_processes(const struct weft_model *m, uint32_t *n)
{
	*n = m->nproc;
	return m->proc;
}

uint32_t weft_model_thread_process(const struct weft_model *m, uint32_t thread)
{
	if (thread >= m->nth || m->th[thread].stream >= m->nst)
		return WEFT_NONE;
	return m->pst[m->th[thread].stream].process;
}

const struct weft_model_stream *weft_model_streams(const struct weft_model *m,
						   uint32_t *n)
{
	*n = m->nst;
	return m->pst;
}

const uint32_t *weft_model_thread_runs(const struct weft_model *m,
				       uint32_t thread, uint32_t *n)
{
	if (thread >= m->nth || !m->run_off) {
		*n = 0;
		return NULL;
	}
	*n = m->run_off[thread + 1] - m->run_off[thread];
	return m->run_idx + m->run_off[thread];
}

const uint32_t *weft_model_thread_arrows(const struct weft_model *m,
					 uint32_t thread, uint32_t *n)
{
	if (thread >= m->nth || !m->arr_off) {
		*n = 0;
		return NULL;
	}
	*n = m->arr_off[thread + 1] - m->arr_off[thread];
	return m->arr_idx + m->arr_off[thread];
}

const char *weft_model_title(const struct weft_model *m, uint32_t thread,
			     char *buf, unsigned cap)
{
	if (thread >= m->nth) {
		snprintf(buf, cap, "?");
		return buf;
	}
	const struct weft_thread *th = &m->th[thread];
	if (th->flags & WEFT_THREAD_ROOT) {
		const struct weft_model_stream *s = &m->pst[th->stream];
		snprintf(buf, cap, "OS thread %u (%s)", s->tid, s->name);
	} else if (th->label != WEFT_NONE)
		snprintf(buf, cap, "%s",
			 weft_model_string(m, m->lab[th->label].text));
	else if (th->kind)
		snprintf(buf, cap, "%s 0x%llx", weft_model_name(m, th->kind),
			 (unsigned long long)th->id);
	else
		snprintf(buf, cap, "0x%llx", (unsigned long long)th->id);
	/* A title cut to fit ends on a character boundary: every text the
	 * model hands out is valid UTF-8 (its parts are). */
	size_t len = strlen(buf), ok = 0;
	if (cap && len + 1 == cap) {
		while (ok < len) {
			uint32_t cp;
			size_t k = weft_utf8_decode(buf + ok, len - ok, &cp);
			if (cp == 0xFFFD &&
			    !(k == 3 && !memcmp(buf + ok, "\xEF\xBF\xBD", 3)))
				break; /* the character cut in two */
			ok += k;
		}
		buf[ok] = 0;
	}
	return buf;
}

void weft_model_range(const struct weft_model *m, int64_t *t0, int64_t *t1)
{
	*t0 = m->t0;
	*t1 = m->t1;
}

struct weft_reader *weft_model_reader(const struct weft_model *m)
{
	return m->r;
}

uint64_t weft_model_bytes(const struct weft_model *m)
{
	uint64_t b = sizeof *m;
	b += (uint64_t)m->cth * sizeof *m->th;
	b += (uint64_t)m->crun * sizeof *m->run;
	b += (uint64_t)m->carr * sizeof *m->arr;
	b += (uint64_t)m->cmsent * sizeof *m->msent;
	b += (uint64_t)m->clab * sizeof *m->lab;
	b += (uint64_t)m->cser * sizeof *m->ser + (uint64_t)m->cser_of_name * 4;
	for (uint32_t i = 0; i < m->nser; i++)
		b += (uint64_t)m->ser[i].cap * sizeof(struct weft_sample);
	for (int i = 0; i < IV_KINDS; i++)
		b += (uint64_t)m->civ[i] * sizeof(struct weft_interval);
	b += (uint64_t)m->closs * sizeof *m->loss;
	b += (uint64_t)m->nst * (sizeof *m->st + sizeof *m->pst);
	b += m->cstr;
	b += (uint64_t)m->ids.cap * 12;
	b += ((uint64_t)m->nth + 1) * 8 + (uint64_t)m->nrun * 4 +
	     (uint64_t)m->narr * 8;
	return b;
}

size_t weft_model_counter_title(const struct weft_model *m, uint32_t i,
				char *buf, size_t cap)
{
	if (i >= m->nser) {
		if (cap)
			*buf = 0;
		return 0;
	}
	const struct series *c = &m->ser[i];
	const char *name = weft_model_name(m, c->name);
	int n;
	if (m->nproc > 1 && c->process < m->nproc)
		n = snprintf(buf, cap, "%s (pid %u)", name,
			     m->proc[c->process].pid);
	else
		n = snprintf(buf, cap, "%s", name);
	return n < 0 ? 0 : (size_t)n;
}

int weft_model_counter_sum(const struct weft_model *m, uint32_t name,
			   struct weft_sample **out, uint32_t *n,
			   uint32_t *processes)
{
	*out = NULL;
	*n = 0;
	*processes = 0;
	if (m->lean)
		return -EINVAL; /* (it keeps no samples) */
	uint32_t k0 = name < m->cser_of_name ? m->ser_of_name[name] : 0;
	uint32_t total = 0, ns = 0;
	for (uint32_t k = k0; k; k = m->ser[k - 1].next) {
		total += m->ser[k - 1].n;
		ns++;
	}
	*processes = ns;
	if (!total)
		return 0;
	/* each series is in time order: merged, the sum changes by each
	 * sample's step from its series' previous value */
	uint32_t *at = calloc(ns, sizeof *at), *ix = malloc(ns * sizeof *ix);
	int64_t *last = calloc(ns, sizeof *last);
	struct weft_sample *o = malloc((size_t)total * sizeof *o);
	if (!at || !ix || !last || !o) {
		free(at);
		free(ix);
		free(last);
		free(o);
		return -ENOMEM;
	}
	uint32_t j = 0;
	for (uint32_t k = k0; k; k = m->ser[k - 1].next)
		ix[j++] = k - 1;
	int64_t sum = 0;
	for (uint32_t w = 0; w < total; w++) {
		uint32_t best = UINT32_MAX;
		for (uint32_t q = 0; q < ns; q++) {
			const struct series *sq = &m->ser[ix[q]];
			if (at[q] < sq->n &&
			    (best == UINT32_MAX ||
			     sq->s[at[q]].t < m->ser[ix[best]].s[at[best]].t))
				best = q;
		}
		const struct weft_sample *x = &m->ser[ix[best]].s[at[best]++];
		/* (hostile values saturate) */
		int64_t d;
		if (__builtin_sub_overflow(x->value, last[best], &d) ||
		    __builtin_add_overflow(sum, d, &sum))
			sum = d < 0 ? INT64_MIN : INT64_MAX;
		last[best] = x->value;
		if (*n && o[*n - 1].t == x->t)
			o[*n - 1].value = sum; /* (one instant, one sample) */
		else
			o[(*n)++] = (struct weft_sample){x->t, sum};
	}
	free(at);
	free(ix);
	free(last);
	*out = o;
	return 0;
}

uint32_t weft__model_note(const struct weft_model *m, uint32_t thread)
{
	return thread < m->nth && m->note ? m->note[thread] : WEFT_NONE;
}

uint32_t weft__model_note_prev(const struct weft_model *m, uint32_t label)
{
	return label < m->nlab && m->note_prev ? m->note_prev[label]
					       : WEFT_NONE;
}
