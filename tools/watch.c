/* SPDX-License-Identifier: MIT */
/*
 * watch.c - the flight recorder's watcher (docs/flight.md): follows a
 * live ring or run from outside the program, keeps what the ring will
 * overwrite about each live async thread (its creation, labels and the
 * arrows into it), evaluates the triggers within a poll of their
 * becoming true (a timer for "longer than T"), and saves a snapshot: a
 * consistent copy of the ring (the window before the trigger and what
 * came until --after), to which it adds, on an OS thread of its own
 * named "weft-flight", what it kept of the threads causally upstream of
 * the one that fired and a note saying which trigger fired, when, and
 * where the window begins.  Written atomically; rate-limited; every
 * fire and every skip logged in DIR/flight.log.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/format.h"
#include "flight.h"
#include "weft-tools.h"
#include "weft/model.h"
#include "weft/why.h"
#include "common/grow.h"

/* What the watcher keeps of one async thread. */
#define KEEP_LABELS 4  /* its first labels */
#define KEEP_ARROWS 24 /* the last arrows into it */
#define HUB_TOUCH 16   /* a thread in touch with this many is a hub */

struct rec { /* one event kept */
	uint64_t ts;
	int64_t ns;
	uint32_t stream;
	uint16_t type;
	uint64_t actor, id, id2;
	char *name;  /* kind of a creation */
	char *text;  /* a label's, a failure's */
	char *label; /* create_label's label */
};

struct ath {
	uint64_t id;
	int64_t created; /* ns, INT64_MIN: not seen */
	uint64_t creator;
	char *kind, *label;
	unsigned ended : 1, should : 1, mark : 1;
	uint32_t fired; /* pending triggers that fired for it (bits) */
	uint32_t touch; /* arrows and creations it took part in */
	struct rec create;
	int have_create;
	struct rec labels[KEEP_LABELS];
	int nlabels;
	struct rec *arrows; /* a ring of the last ones, grown as needed: most
			       threads have few (memory follows the live set) */
	int narrows;	    /* ever (index: % KEEP_ARROWS) */
	int arrows_cap;
};

struct ostream {	  /* one OS thread: its callback and its busy stretch */
	uint64_t running; /* async thread, 0: none */
	int64_t run_since, busy_since; /* ns, INT64_MIN: not busy */
	int idle;		       /* between an idle and a resume */
	uint32_t fired_cb, fired_it;   /* (bits per trigger) */
	uint32_t fired_ph;
	int phased;	     /* it has recorded a loop phase */
	char phase[64];	     /* its loop's phase now, "": none */
	int64_t phase_since; /* its busy time in it began (the phase's
				beginning, or the wake-up of a wait that
				began it), INT64_MIN: waiting */
	uint64_t ts;	     /* its last event: ticks and ns */
	int64_t ns;
};

struct counter {
	char *name;
	double v;
	uint32_t was; /* per trigger: the condition held */
};

struct heapent {
	int64_t at;
	uint64_t id;
};

struct fire {
	int trig;
	int64_t ns;	 /* when the condition became true */
	uint64_t *roots; /* the threads that fired */
	int nroots;
	char what[300];
};

struct watcher {
	struct watch_opts *o;
	struct weft_reader *r;
	int manual;
	int64_t offset; /* trace ns minus CLOCK_MONOTONIC, at most */
	int have_offset;
	int64_t last_ns; /* of the last event */
	struct ath **th; /* by id: open addressing, no deletion */
	size_t cap, n, live_at_gc;
	struct ostream *os;
	size_t nos;
	struct counter *ctr;
	size_t nctr;
	struct heapent *heap;
	size_t nheap, heapcap;
	int64_t tmin;	  /* the least T of the pending triggers */
	struct fire pend; /* a fire waiting for --after */
	int pending;
	int64_t *last_save; /* per trigger, trace ns */
	int64_t *hour;	    /* wall ns of the saves of the last hour */
	int nhour;
	uint64_t disk; /* bytes of snapshots in dir */
	int seq;       /* the next snapshot's number */
	char markdir[4200];
	FILE *log;
	/* lost_wakeup: a model of what it follows, read by a reader of its
	 * own, judged by weft why */
	struct weft_reader *mr;
	struct weft_model *model;
	int64_t lw_last; /* CLOCK_MONOTONIC of the last judgement */
	int lw_again;	 /* a verdict to judge again when it has held */
	int lw_off;	 /* it could not be made: said once */
};

static int64_t mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static char *sdup(const char *s)
{
	char *d = strdup(s ? s : "");
	if (!d)
		die("out of memory");
	return d;
}

static void rec_free(struct rec *e)
{
	free(e->name);
	free(e->text);
	free(e->label);
	memset(e, 0, sizeof *e);
}

static void ath_free(struct ath *t)
{
	if (!t)
		return;
	rec_free(&t->create);
	for (int i = 0; i < t->nlabels; i++)
		rec_free(&t->labels[i]);
	for (int i = 0; i < KEEP_ARROWS && i < t->narrows; i++)
		rec_free(&t->arrows[i]);
	free(t->arrows);
	free(t->kind);
	free(t->label);
	free(t);
}

/* ---- the table of async threads ---- */

static size_t slot_of(struct watcher *w, uint64_t id)
{
	size_t h = (size_t)(id * 0x9E3779B97F4A7C15ull >> 17) & (w->cap - 1);
	while (w->th[h] && w->th[h]->id != id)
		h = (h + 1) & (w->cap - 1);
	return h;
}

static void rehash(struct watcher *w, size_t cap)
{
	struct ath **old = w->th;
	size_t oc = w->cap;
	w->th = calloc(cap, sizeof *w->th);
	if (!w->th)
		die("out of memory");
	w->cap = cap;
	for (size_t i = 0; i < oc; i++)
		if (old[i])
			w->th[slot_of(w, old[i]->id)] = old[i];
	free(old);
}

static struct ath *find(struct watcher *w, uint64_t id)
{
	if (!id || !w->cap)
		return NULL;
	return w->th[slot_of(w, id)];
}

static struct ath *get(struct watcher *w, uint64_t id)
{
	if (!id)
		return NULL;
	if ((w->n + 1) * 2 > w->cap)
		rehash(w, w->cap ? w->cap * 2 : 1024);
	size_t s = slot_of(w, id);
	if (!w->th[s]) {
		struct ath *t = calloc(1, sizeof *t);
		if (!t)
			die("out of memory");
		t->id = id;
		t->created = INT64_MIN;
		w->th[s] = t;
		w->n++;
	}
	return w->th[s];
}

/* The threads upstream of t (the causal chain's edges, inward): its
 * creator, the actors of the arrows into it, what it read or waited on. */
static int upstream(const struct ath *t, uint64_t *out, int cap)
{
	int n = 0;
	if (t->creator && n < cap)
		out[n++] = t->creator;
	for (int i = 0; i < KEEP_ARROWS && i < t->narrows; i++) {
		const struct rec *e = &t->arrows[i];
		uint64_t u = e->type == WEFT_EV_READ ||
					     e->type == WEFT_EV_TRY_READ
				     ? e->id
			     : e->type == WEFT_EV_BECOMES ? e->id
							  : e->actor;
		if (u && u != t->id && n < cap)
			out[n++] = u;
	}
	return n;
}

static int is_hub(const struct ath *t)
{
	return t->touch >= HUB_TOUCH;
}

/* Marks what is upstream of the marked threads (transitively, through
 * no hub); returns the marked. */
static size_t closure(struct watcher *w, uint64_t *stack, size_t n)
{
	size_t marked = 0;
	uint64_t up[KEEP_ARROWS + 1];
	size_t cap = n;
	while (n) {
		struct ath *t = find(w, stack[--n]);
		if (!t || t->mark)
			continue;
		t->mark = 1;
		marked++;
		if (is_hub(t))
			continue;
		int k = upstream(t, up, KEEP_ARROWS + 1);
		for (int i = 0; i < k; i++) {
			if (WEFT_GROW(stack, cap, n + 1))
				die("out of memory");
			stack[n++] = up[i];
		}
	}
	free(stack);
	return marked;
}

static void unmark(struct watcher *w)
{
	for (size_t i = 0; i < w->cap; i++)
		if (w->th[i])
			w->th[i]->mark = 0;
}

/* Forgets the threads that ended and are upstream of no live one. */
static void gc(struct watcher *w)
{
	uint64_t *stack = malloc((w->n + 1) * sizeof *stack);
	if (!stack)
		die("out of memory");
	size_t n = 0, live = 0;
	for (size_t i = 0; i < w->cap; i++)
		if (w->th[i] && !w->th[i]->ended)
			stack[n++] = w->th[i]->id, live++;
	closure(w, stack, n);
	size_t keep = 0;
	for (size_t i = 0; i < w->cap; i++) {
		struct ath *t = w->th[i];
		if (t && !t->mark) {
			ath_free(t);
			w->th[i] = NULL;
		} else if (t)
			keep++;
	}
	w->n = keep;
	w->live_at_gc = live;
	unmark(w);
	size_t cap = 1024;
	while (cap < keep * 2 + 2)
		cap *= 2;
	rehash(w, cap);
}

/* ---- timers: pending threads, by when the least T passes ---- */

static void push(struct watcher *w, int64_t at, uint64_t id)
{
	if (weft__grow_to(&w->heap, &w->heapcap, w->nheap + 1, sizeof *w->heap,
			  256, SIZE_MAX))
		die("out of memory");
	size_t i = w->nheap++;
	while (i && w->heap[(i - 1) / 2].at > at) {
		w->heap[i] = w->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	w->heap[i] = (struct heapent){at, id};
}

static struct heapent pop(struct watcher *w)
{
	struct heapent top = w->heap[0], last = w->heap[--w->nheap];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= w->nheap)
			break;
		if (c + 1 < w->nheap && w->heap[c + 1].at < w->heap[c].at)
			c++;
		if (w->heap[c].at >= last.at)
			break;
		w->heap[i] = w->heap[c];
		i = c;
	}
	if (w->nheap)
		w->heap[i] = last;
	return top;
}

/* ---- firing and saving ---- */

static void logf_(struct watcher *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void logf_(struct watcher *w, const char *fmt, ...)
{
	if (!w->log)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(w->log, fmt, ap);
	va_end(ap);
	fflush(w->log);
}

static void skip(struct watcher *w, int trig, int64_t ns, const char *why)
{
	w->o->skipped++;
	logf_(w, "skipped trigger=%d at_ns=%" PRId64 " reason=%s expr=%s\n",
	      trig + 1, ns, why, w->o->trig[trig].expr);
	if (!w->o->quiet)
		fprintf(stderr, "weft watch: trigger %d (%s) skipped: %s\n",
			trig + 1, w->o->trig[trig].expr, why);
}

static int64_t now_ns(struct watcher *w)
{
	if (w->manual || !w->have_offset)
		return w->last_ns;
	int64_t t = mono() + w->offset;
	return t > w->last_ns ? t : w->last_ns;
}

static void fire(struct watcher *w, int trig, int64_t ns, const uint64_t *roots,
		 int nroots, const char *what)
{
	struct watch_opts *o = w->o;
	o->fired++;
	if (o->max_snapshots && (int)o->saved >= o->max_snapshots)
		return skip(w, trig, ns, "max-snapshots");
	if (w->pending) {
		/* a snapshot is being taken (its copy comes after this
		 * moment): the cause of what fired now is kept there too
		 * (said, and counted apart) */
		w->pend.roots = realloc(w->pend.roots,
					(size_t)(w->pend.nroots + nroots + 1) *
						sizeof *w->pend.roots);
		if (!w->pend.roots)
			die("out of memory");
		memcpy(w->pend.roots + w->pend.nroots, roots,
		       (size_t)nroots * sizeof *roots);
		w->pend.nroots += nroots;
		return skip(w, trig, ns,
			    "merged (into the snapshot being taken)");
	}
	if (w->last_save[trig] != INT64_MIN && o->cooldown_ns &&
	    ns - w->last_save[trig] < o->cooldown_ns)
		return skip(w, trig, ns, "cooldown");
	int64_t wall = mono();
	int k = 0;
	for (int i = 0; i < w->nhour; i++)
		if (wall - w->hour[i] < 3600000000000)
			w->hour[k++] = w->hour[i];
	w->nhour = k;
	if (o->max_per_hour && w->nhour >= o->max_per_hour)
		return skip(w, trig, ns, "max-per-hour");
	w->pending = 1;
	w->pend.trig = trig;
	w->pend.ns = ns;
	w->pend.nroots = nroots;
	w->pend.roots = malloc((size_t)(nroots + 1) * sizeof *w->pend.roots);
	if (!w->pend.roots)
		die("out of memory");
	memcpy(w->pend.roots, roots, (size_t)nroots * sizeof *roots);
	snprintf(w->pend.what, sizeof w->pend.what, "%s", what);
}

/* A ring being built: its bytes, and appending to them. */
struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (weft__grow_to(&b->p, &b->cap, b->n + n, 1, 65536, SIZE_MAX))
		die("out of memory");
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

/* The id of name `s` in the ring's name table, or 0. */
static uint16_t name_in(const uint8_t *ring, const char *s)
{
	const struct weft__fhdr *h = (const void *)ring;
	const struct weft__fname *fn = (const void *)(ring + h->names_off);
	size_t len = strlen(s);
	for (uint32_t i = 1; i < h->nnames && i < h->names_cap && i < 65536;
	     i++) {
		uint32_t l = fn[i].len & ~WEFT_NAME_VALID;
		if ((fn[i].len & WEFT_NAME_VALID) && l == len &&
		    fn[i].off + (uint64_t)l <= h->strings_cap &&
		    !memcmp(ring + h->strings_off + fn[i].off, s, len))
			return (uint16_t)i;
	}
	return 0;
}

/* One event, encoded as the writer does (the extended header always). */
static void encode(struct buf *b, const uint8_t *ring, unsigned type,
		   uint64_t ts, const struct rec *e, uint64_t id)
{
	uint8_t x = WEFT_EH_EXTENDED;
	uint32_t t32 = type;
	put(b, &x, 1);
	put(b, &t32, 4);
	put(b, &ts, 8);
	const struct weft__evspec *sp = &weft__events[type];
	int nid = 0, nname = 0;
	for (int f = 0; f < 4 && sp->f[f].type != WEFT_FT_END; f++) {
		switch (sp->f[f].type) {
		case WEFT_FT_ID: {
			uint64_t v = nid++ == 0 ? id : e->id2;
			put(b, &v, 8);
			break;
		}
		case WEFT_FT_NAME: {
			const char *s = nname++ == 0 ? e->name : e->label;
			uint16_t v = s ? name_in(ring, s) : 0;
			put(b, &v, 2);
			break;
		}
		case WEFT_FT_I64:
		case WEFT_FT_U64: {
			uint64_t v = 0;
			put(b, &v, 8);
			break;
		}
		case WEFT_FT_TRUNC: {
			uint8_t v = 0;
			put(b, &v, 1);
			break;
		}
		case WEFT_FT_STR: {
			const char *s = e->text ? e->text : "";
			put(b, s, strlen(s) + 1);
			break;
		}
		}
	}
}

struct out { /* an event of the flight stream */
	uint64_t ts;
	const struct rec *e;
};

static int cmp_out(const void *a, const void *b)
{
	const struct out *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Id bits a merge of several rings adds (read.h, "Runs"). */
#define RING_BITS (0x3fffull << 48)

/*
 * The ring `ring` (`len` bytes, a consistent compact copy) with packets
 * that ended before `cut` (ticks) left out, and a stream "weft-flight"
 * added that holds the kept events `ev` no packet left holds (ordered by
 * time, each as its actor's: a run of no length around it) and the note.
 * `note` may be NULL.  Returns a new buffer (*olen), or NULL with the
 * ring unchanged to use (no room for a stream: counted in *why).
 */
static uint8_t *augment(const uint8_t *ring, size_t len, uint64_t cut,
			struct rec **ev, size_t nev, const struct rec *note,
			uint64_t note_ts, uint64_t note_id, int multi,
			size_t *olen, size_t *kept_out, const char **why)
{
	const struct weft__fhdr *h = (const void *)ring;
	uint32_t ps = h->packet_size, np = h->npackets;
	size_t off = h->header_size;
	*why = NULL;
	if (len < off + (size_t)np * ps || h->nstreams >= h->streams_cap) {
		*why = "no room for a stream in the ring's header";
		return NULL;
	}
	/* the first tick each stream still holds, after the cut */
	uint64_t *first = malloc((h->streams_cap + 1) * sizeof *first);
	if (!first)
		die("out of memory");
	for (uint32_t i = 0; i <= h->streams_cap; i++)
		first[i] = UINT64_MAX;
	struct buf b = {0};
	put(&b, ring, off);
	uint64_t maxgen = 0;
	for (uint32_t s = 0; s < np; s++) {
		const uint8_t *pk = ring + off + (size_t)s * ps;
		uint64_t gen = weft__ld64(pk + WEFT_PK_GEN),
			 end = weft__ld64(pk + WEFT_PK_TS_END),
			 st = weft__ld64(pk + WEFT_PK_STREAM);
		if (!gen || (end && end < cut))
			continue;
		if (st < h->streams_cap &&
		    weft__ld64(pk + WEFT_PK_TS_BEGIN) < first[st])
			first[st] = weft__ld64(pk + WEFT_PK_TS_BEGIN);
		if (gen > maxgen)
			maxgen = gen;
		put(&b, pk, ps);
	}
	/* what no packet left holds: before its stream's first tick (the
	 * stream found by its OS thread's id) */
	const struct weft__fstream *fs = (const void *)(ring + h->streams_off);
	struct out *o = malloc((nev + 1) * sizeof *o);
	if (!o)
		die("out of memory");
	size_t k = 0;
	for (size_t i = 0; i < nev; i++) {
		uint32_t tid = (uint32_t)(ev[i]->stream);
		uint64_t f = UINT64_MAX;
		for (uint32_t s = 0; s < h->nstreams; s++)
			if (fs[s].valid && fs[s].tid == tid)
				f = first[s];
		if (ev[i]->ts < f)
			o[k++] = (struct out){ev[i]->ts, ev[i]};
	}
	*kept_out = k;
	qsort(o, k, sizeof *o, cmp_out);
	/* the packets of the new stream */
	uint32_t sid = h->nstreams;
	uint64_t seq = 0;
	struct buf pk = {0};
	uint64_t start = k ? o[0].ts : note_ts;
	size_t i = 0;
	int noted = !note;
	while (i < k || !noted) {
		pk.n = 0;
		uint8_t hdr[WEFT_PK_EVENTS] = {0};
		put(&pk, hdr, sizeof hdr);
		uint64_t t0 = UINT64_MAX, t1 = 0;
		/* events while they fit (with room for the trailer) */
		while (i < k || !noted) {
			struct buf one = {0};
			uint64_t ts;
			if (i < k) {
				const struct rec *e = o[i].e;
				struct rec run = {0};
				ts = o[i].ts;
				uint64_t a = multi ? e->actor & ~RING_BITS
						   : e->actor;
				uint64_t id = multi ? e->id & ~RING_BITS
						    : e->id;
				/* as its actor's: a run of no length */
				if (a)
					encode(&one, ring, WEFT_EV_RUN, ts,
					       &run, a);
				struct rec c = *e;
				if (multi)
					c.id2 &= ~RING_BITS;
				encode(&one, ring, e->type, ts, &c, id);
				if (a)
					encode(&one, ring, WEFT_EV_RUN, ts,
					       &run, 0);
			} else {
				ts = note_ts;
				encode(&one, ring, WEFT_EV_NOTE, ts, note,
				       note_id);
			}
			if (pk.n + one.n + WEFT_PK_TRAILER > ps) {
				free(one.p);
				if (pk.n ==
				    WEFT_PK_EVENTS) { /* too big: left out */
					if (i < k)
						i++;
					else
						noted = 1;
					continue;
				}
				break;
			}
			put(&pk, one.p, one.n);
			free(one.p);
			if (ts < t0)
				t0 = ts;
			if (ts > t1)
				t1 = ts;
			if (i < k)
				i++;
			else
				noted = 1;
		}
		if (pk.n == WEFT_PK_EVENTS)
			break;
		uint8_t *p = calloc(1, ps);
		if (!p)
			die("out of memory");
		memcpy(p, pk.p, pk.n);
		uint32_t magic = WEFT_CTF_MAGIC;
		uint32_t ver = (uint32_t)h->major << 16 | h->minor;
		uint64_t gen = ++maxgen, v;
		memcpy(p + WEFT_PK_MAGIC, &magic, 4);
		memcpy(p + WEFT_PK_UUID, h->uuid, 16);
		memcpy(p + WEFT_PK_VERSION, &ver, 4);
		memcpy(p + WEFT_PK_GEN, &gen, 8);
		v = sid;
		memcpy(p + WEFT_PK_STREAM, &v, 8);
		memcpy(p + WEFT_PK_TS_BEGIN, &t0, 8);
		memcpy(p + WEFT_PK_TS_END, &t1, 8);
		v = (uint64_t)pk.n * 8;
		memcpy(p + WEFT_PK_CONTENT, &v, 8);
		v = (uint64_t)ps * 8;
		memcpy(p + WEFT_PK_SIZE, &v, 8);
		memcpy(p + WEFT_PK_SEQ, &seq, 8);
		seq++;
		memcpy(p + ps - WEFT_PK_TRAILER, &gen, 8);
		put(&b, p, ps);
		free(p);
	}
	free(pk.p);
	free(o);
	free(first);
	/* the header: the stream, the geometry */
	struct weft__fhdr *nh = (void *)b.p;
	struct weft__fstream *ns = (void *)(b.p + nh->streams_off);
	memset(&ns[sid], 0, sizeof ns[sid]);
	ns[sid].tid = 0;
	ns[sid].start_ticks = start;
	memcpy(ns[sid].name, "weft-flight", 11);
	ns[sid].packets = seq;
	ns[sid].valid = 1;
	nh->nstreams = sid + 1;
	nh->npackets = (uint32_t)((b.n - off) / ps);
	if (!nh->npackets) { /* a ring has one slot at least */
		uint8_t *z = calloc(1, ps);
		if (!z)
			die("out of memory");
		put(&b, z, ps);
		free(z);
		nh = (void *)b.p;
		nh->npackets = 1;
	}
	nh->file_size = b.n;
	if ((nh->next_gen & ~WEFT_GEN_STOPPED) < maxgen)
		nh->next_gen = (nh->next_gen & WEFT_GEN_STOPPED) | maxgen;
	*olen = b.n;
	return b.p;
}

/* Bundles (docs/format.md, "Runs"): its parts. */
struct bpart {
	uint64_t off, len;
	uint32_t kind, run;
	int64_t cut;
	char name[48];
};

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t k = write(fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		c += k, n -= (size_t)k;
	}
	return 0;
}

/* The ticks of ring-process `proc` at trace ns `ns`, from an event seen
 * of one of its streams (and the ring's clock rate); 0 if none. */
static uint64_t ticks_at(struct watcher *w, uint32_t proc, int64_t ns,
			 uint64_t freq)
{
	for (size_t s = 0; s < w->nos; s++) {
		if (!w->os[s].ts ||
		    weft_reader_stream_process(w->r, (uint32_t)s) != proc)
			continue;
		double d = (double)(ns - w->os[s].ns) * (double)freq / 1e9;
		double t = (double)w->os[s].ts + d;
		return t <= 0 ? 0 : (uint64_t)t;
	}
	return 0;
}

static void save(struct watcher *w)
{
	struct watch_opts *o = w->o;
	struct fire *f = &w->pend;
	w->pending = 0;
	/* the threads upstream of those that fired */
	uint64_t *stack = malloc((size_t)(f->nroots + 1) * sizeof *stack);
	if (!stack)
		die("out of memory");
	memcpy(stack, f->roots, (size_t)f->nroots * sizeof *stack);
	size_t nthreads = closure(w, stack, (size_t)f->nroots);
	size_t nev = 0, cap = 64;
	struct rec **ev = malloc(cap * sizeof *ev);
	if (!ev)
		die("out of memory");
	for (size_t i = 0; i < w->cap; i++) {
		struct ath *t = w->th[i];
		if (!t || !t->mark)
			continue;
		if (WEFT_GROW(ev, cap, nev + 2 + KEEP_LABELS + KEEP_ARROWS))
			die("out of memory");
		if (t->have_create)
			ev[nev++] = &t->create;
		for (int j = 0; j < t->nlabels; j++)
			ev[nev++] = &t->labels[j];
		for (int j = 0; j < KEEP_ARROWS && j < t->narrows; j++)
			ev[nev++] = &t->arrows[j];
	}
	unmark(w);
	/* a consistent copy */
	void *copy = NULL;
	size_t len = 0;
	uint64_t torn = 0;
	int err = weft_reader_copy(w->r, WEFT_COPY_COMPACT, &copy, &len, &torn);
	if (err) {
		warning("cannot copy '%s': %s", o->src, weft_strerror(err));
		skip(w, f->trig, f->ns, "copy failed");
		free(ev);
		free(f->roots);
		return;
	}
	char dur[3][40], win[80];
	int64_t wstart = o->window_ns ? f->ns - o->window_ns : INT64_MIN;
	struct rec note = {0};
	char text[900];
	snprintf(win, sizeof win, "begins %s before it",
		 fmt_time(dur[1], sizeof dur[1], o->window_ns));
	snprintf(text, sizeof text,
		 "weft flight: trigger %d '%s' fired at %s since the trace "
		 "began%s%s; the window %s; kept from before it: the %zu "
		 "threads upstream",
		 f->trig + 1, o->trig[f->trig].expr,
		 fmt_time(dur[0], sizeof dur[0], f->ns), f->what[0] ? ": " : "",
		 f->what, wstart == INT64_MIN ? "is all the ring held" : win,
		 nthreads);
	note.text = text;
	uint64_t note_id = f->nroots ? f->roots[0] : 0;
	/* the snapshot: a ring, or a bundle whose rings each get their
	 * part of what was kept */
	uint8_t *snap = NULL;
	size_t slen = 0, added = 0;
	const char *why = NULL;
	uint32_t nproc = 0;
	const struct weft_process *procs = weft_reader_processes(w->r, &nproc);
	if (len >= 8 && !memcmp(copy, WEFT_FILE_MAGIC, 8)) {
		const struct weft__fhdr *h = copy;
		uint64_t cut = wstart == INT64_MIN
				       ? 0
				       : ticks_at(w, 0, wstart, h->freq);
		/* a ring's events: stream holds the OS thread's id (for
		 * the copy: the events stay the watcher's) */
		uint32_t *saved = malloc((nev + 1) * 4);
		if (!saved)
			die("out of memory");
		for (size_t i = 0; i < nev; i++) {
			saved[i] = ev[i]->stream;
			ev[i]->stream =
				weft_reader_info(w->r)->streams[saved[i]].tid;
		}
		snap = augment(copy, len, cut, ev, nev, &note,
			       ticks_at(w, 0, f->ns, h->freq), note_id, 0,
			       &slen, &added, &why);
		for (size_t i = 0; i < nev; i++)
			ev[i]->stream = saved[i];
		free(saved);
		free(ev);
		ev = NULL;
	} else if (len >= 32 && !memcmp(copy, "WEFTBNDL", 8)) {
		const uint8_t *c = copy;
		uint32_t count = weft__ld32(c + 12);
		struct buf b = {0};
		struct bpart *parts = calloc(count + 1, sizeof *parts);
		if (!parts)
			die("out of memory");
		size_t data = 32 + (size_t)count * 80;
		data = (data + 63) & ~(size_t)63;
		uint8_t *zero = calloc(1, data);
		if (!zero)
			die("out of memory");
		put(&b, zero, data);
		free(zero);
		int noted = 0;
		for (uint32_t p = 0; p < count && 32 + (p + 1) * 80 <= len;
		     p++) {
			const uint8_t *e = c + 32 + (size_t)p * 80;
			struct bpart *bp = &parts[p];
			bp->off = weft__ld64(e);
			bp->len = weft__ld64(e + 8);
			bp->kind = weft__ld32(e + 16);
			bp->run = weft__ld32(e + 20);
			memcpy(&bp->cut, e + 24, 8);
			memcpy(bp->name, e + 32, 48);
			if (bp->off > len || bp->len > len - bp->off)
				continue;
			const uint8_t *part = c + bp->off;
			uint8_t *aug = NULL;
			size_t alen = 0, ad = 0;
			/* the process of this ring: by its file's name */
			uint32_t proc = UINT32_MAX;
			for (uint32_t q = 0; bp->kind == 1 && q < nproc; q++) {
				const char *rn = procs[q].ring;
				const char *base = rn ? strrchr(rn, '/') : NULL;
				base = base ? base + 1 : rn;
				if (base && !strncmp(base, bp->name, 48))
					proc = q;
			}
			if (bp->kind == 1 && proc != UINT32_MAX &&
			    bp->len >= sizeof(struct weft__fhdr)) {
				const struct weft__fhdr *h = (const void *)part;
				struct rec **mine =
					malloc((nev + 1) * sizeof *mine);
				if (!mine)
					die("out of memory");
				size_t nm = 0;
				for (size_t i = 0; i < nev; i++)
					if (weft_reader_stream_process(
						    w->r, ev[i]->stream) ==
					    proc)
						mine[nm++] = ev[i];
				/* the note in the ring of the thread that
				 * fired (else the first) */
				int here = !noted && (!f->nroots || proc == 0);
				for (size_t i = 0; i < nm && !noted; i++)
					if (mine[i]->id == note_id ||
					    mine[i]->actor == note_id)
						here = 1;
				uint64_t cut = wstart == INT64_MIN
						       ? 0
						       : ticks_at(w, proc,
								  wstart,
								  h->freq);
				/* streams, as OS thread ids of this ring */
				uint32_t *saved = malloc((nm + 1) * 4);
				if (!saved)
					die("out of memory");
				for (size_t i = 0; i < nm; i++) {
					saved[i] = mine[i]->stream;
					mine[i]->stream =
						weft_reader_info(w->r)
							->streams[saved[i]]
							.tid;
				}
				aug = augment(part, bp->len, cut, mine, nm,
					      here ? &note : NULL,
					      ticks_at(w, proc, f->ns, h->freq),
					      note_id & ~RING_BITS, 1, &alen,
					      &ad, &why);
				for (size_t i = 0; i < nm; i++)
					mine[i]->stream = saved[i];
				free(saved);
				free(mine);
				if (aug && here)
					noted = 1;
				added += ad;
			}
			bp->off = b.n;
			if (aug) {
				put(&b, aug, alen);
				bp->len = alen;
				free(aug);
			} else
				put(&b, part, bp->len);
			static const uint8_t pad[64];
			put(&b, pad, (64 - b.n % 64) % 64);
		}
		/* the header and the entries */
		memcpy(b.p, c, 16);
		uint64_t total = b.n, zero64 = 0;
		memcpy(b.p + 16, &total, 8);
		memcpy(b.p + 24, &zero64, 8);
		for (uint32_t p = 0; p < count; p++) {
			uint8_t *e = b.p + 32 + (size_t)p * 80;
			memcpy(e, &parts[p].off, 8);
			memcpy(e + 8, &parts[p].len, 8);
			memcpy(e + 16, &parts[p].kind, 4);
			memcpy(e + 20, &parts[p].run, 4);
			memcpy(e + 24, &parts[p].cut, 8);
			memcpy(e + 32, parts[p].name, 48);
		}
		free(parts);
		snap = b.p;
		slen = b.n;
		free(ev);
		ev = NULL;
	}
	free(ev);
	if (!snap) {
		if (why)
			warning("snapshot without what was kept: %s", why);
		snap = copy, slen = len, copy = NULL;
	}
	free(copy);
	/* the disk budget */
	if (o->max_disk && w->disk + slen > o->max_disk) {
		skip(w, f->trig, f->ns, "max-disk");
		free(snap);
		free(f->roots);
		return;
	}
	/* temp, then rename: a snapshot is there whole or not at all */
	char tmp[4400], final[4400], base[64];
	int fd = -1;
	for (;; w->seq++) {
		snprintf(base, sizeof base, "flight-%04d.weft", w->seq);
		snprintf(final, sizeof final, "%s/%s", o->dir, base);
		struct stat sb;
		if (stat(final, &sb) < 0)
			break;
	}
	snprintf(tmp, sizeof tmp, "%s/.%s.tmp", o->dir, base);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0644);
	err = fd < 0 ? -errno : write_all(fd, snap, slen);
	if (!err && fsync(fd) < 0)
		err = -errno;
	if (fd >= 0 && close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, final) < 0)
		err = -errno;
	free(snap);
	if (err) {
		unlink(tmp);
		warning("cannot write '%s': %s", final, strerror(-err));
		skip(w, f->trig, f->ns, "write failed");
		free(f->roots);
		return;
	}
	/* when it was on disk (CLOCK_REALTIME: bench/flight-bench.sh) */
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	int64_t real_now = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;
	w->seq++;
	w->disk += slen;
	o->saved++;
	w->last_save[f->trig] = f->ns;
	w->hour = realloc(w->hour, (size_t)(w->nhour + 1) * sizeof *w->hour);
	if (!w->hour)
		die("out of memory");
	w->hour[w->nhour++] = mono();
	logf_(w,
	      "saved trigger=%d at_ns=%" PRId64 " snapshot=%s bytes=%zu "
	      "threads=%zu kept=%zu real_ns=%lld expr=%s\n",
	      f->trig + 1, f->ns, base, slen, nthreads, added,
	      (long long)real_now, o->trig[f->trig].expr);
	if (!o->quiet)
		fprintf(stderr,
			"weft watch: trigger %d (%s) fired at %s%s%s: '%s' "
			"(%zu events kept from before the window)\n",
			f->trig + 1, o->trig[f->trig].expr,
			fmt_time(dur[0], sizeof dur[0], f->ns),
			f->what[0] ? ", " : "", f->what, final, added);
	free(f->roots);
}

/* ---- what the events mean ---- */

static int cmp(double a, int op, double b)
{
	switch (op) {
	case OP_GT:
		return a > b;
	case OP_GE:
		return a >= b;
	case OP_LT:
		return a < b;
	case OP_LE:
		return a <= b;
	default:
		return a == b;
	}
}

static struct rec keep_of(struct watcher *w, const struct weft_event *ev)
{
	struct rec e = {.ts = ev->ts,
			.ns = ev->ns,
			.stream = ev->stream,
			.type = ev->type,
			.actor = ev->actor,
			.id = ev->id,
			.id2 = ev->id2};
	if (ev->type == WEFT_EV_CREATE || ev->type == WEFT_EV_CREATE_LABEL)
		e.name = sdup(weft_reader_name(w->r, ev->name));
	if (ev->type == WEFT_EV_CREATE_LABEL)
		e.label = sdup(weft_reader_name(w->r, ev->name2));
	if (ev->text)
		e.text = sdup(ev->text);
	return e;
}

static void arrow(struct watcher *w, struct ath *t, const struct weft_event *ev)
{
	if (t->narrows < KEEP_ARROWS && t->narrows == t->arrows_cap) {
		int cap = t->arrows_cap ? t->arrows_cap * 2 : 2;
		if (cap > KEEP_ARROWS)
			cap = KEEP_ARROWS;
		t->arrows = realloc(t->arrows, (size_t)cap * sizeof *t->arrows);
		if (!t->arrows)
			die("out of memory");
		memset(t->arrows + t->arrows_cap, 0,
		       (size_t)(cap - t->arrows_cap) * sizeof *t->arrows);
		t->arrows_cap = cap;
	}
	struct rec *slot = &t->arrows[t->narrows % KEEP_ARROWS];
	rec_free(slot);
	*slot = keep_of(w, ev);
	t->narrows++;
}

static void ended(struct watcher *w, uint64_t id)
{
	struct ath *t = find(w, id);
	if (t)
		t->ended = 1;
}

static int pending_match(struct watcher *w, const struct trigger *tr,
			 const struct ath *t)
{
	(void)w;
	if (tr->kind_is[0] && (!t->kind || strcmp(t->kind, tr->kind_is)))
		return 0;
	if (tr->has_label &&
	    (!t->label || fnmatch(tr->label_glob, t->label, 0)))
		return 0;
	return 1;
}

static void counter(struct watcher *w, const struct weft_event *ev)
{
	const char *name = weft_reader_name(w->r, ev->name);
	struct counter *c = NULL;
	for (size_t i = 0; i < w->nctr; i++)
		if (!strcmp(w->ctr[i].name, name))
			c = &w->ctr[i];
	if (!c) {
		w->ctr = realloc(w->ctr, (w->nctr + 1) * sizeof *w->ctr);
		if (!w->ctr)
			die("out of memory");
		c = &w->ctr[w->nctr++];
		*c = (struct counter){.name = sdup(name)};
	}
	c->v = ev->type == WEFT_EV_COUNTER_SET ? (double)ev->value
					       : c->v + (double)ev->value;
	for (int i = 0; i < w->o->ntrig; i++) {
		const struct trigger *tr = &w->o->trig[i];
		if (tr->kind != TRIG_COUNTER || strcmp(tr->counter, name))
			continue;
		int now = cmp(c->v, tr->op, tr->value);
		/* on crossing: true now, and not before */
		if (now && !(c->was & 1u << i)) {
			char what[200];
			snprintf(what, sizeof what, "counter %s = %g", name,
				 c->v);
			fire(w, i, ev->ns, &ev->actor, ev->actor ? 1 : 0, what);
		}
		c->was = now ? c->was | 1u << i : c->was & ~(1u << i);
	}
}

static struct ostream *ostream(struct watcher *w, uint32_t s)
{
	if (s >= w->nos) {
		size_t was = w->nos;
		if (WEFT_GROW(w->os, w->nos, (size_t)s + 1))
			die("out of memory");
		for (size_t i = was; i < w->nos; i++)
			w->os[i] = (struct ostream){.run_since = INT64_MIN,
						    .busy_since = INT64_MIN,
						    .phase_since = INT64_MIN};
	}
	return &w->os[s];
}

static void apply(struct watcher *w, const struct weft_event *ev)
{
	if (ev->type == WEFT_EV_LOSS)
		return;
	if (ev->ns > w->last_ns)
		w->last_ns = ev->ns;
	struct ostream *os = ostream(w, ev->stream);
	if (!(ev->flags & WEFT_EVF_MADE))
		os->ts = ev->ts, os->ns = ev->ns;
	/* busy: from a resume (or the first event of an OS thread not
	 * seen idle) to the next idle; what a loop records while idle (its
	 * busy time, as a counter) does not end the idle period */
	if (ev->type == WEFT_EV_RESUME ||
	    (!os->idle && os->busy_since == INT64_MIN &&
	     ev->type != WEFT_EV_IDLE)) {
		os->idle = 0;
		os->busy_since = ev->ns;
		os->fired_it = 0;
		/* a phase a wait began counts from the wake-up */
		if (os->phase[0] && os->phase_since == INT64_MIN)
			os->phase_since = ev->ns;
	}
	/* loop phases, as the model has them: one lasts until the next
	 * weft_phase(); on an OS thread that records phases, a wait begins
	 * anew the phase its reason names (its time waiting not counted) */
	if (ev->type == WEFT_EV_PHASE) {
		const char *name = ev->name ? weft_reader_name(w->r, ev->name)
					    : "";
		os->phased = 1;
		if (strncmp(name, os->phase, sizeof os->phase - 1)) {
			snprintf(os->phase, sizeof os->phase, "%s", name);
			os->phase_since = os->idle ? INT64_MIN : ev->ns;
			os->fired_ph = 0;
		}
	} else if (ev->type == WEFT_EV_IDLE && os->phased && !os->idle) {
		snprintf(os->phase, sizeof os->phase, "%s",
			 weft_reader_name(w->r, ev->name));
		os->phase_since = INT64_MIN;
		os->fired_ph = 0;
	}
	struct ath *t;
	/* (a thread id 0 is no thread: input that lies) */
	if (!ev->id && ev->type != WEFT_EV_RUN && ev->type != WEFT_EV_IDLE &&
	    ev->type != WEFT_EV_COUNTER_SET &&
	    ev->type != WEFT_EV_COUNTER_ADD && ev->type != WEFT_EV_RESUME)
		return;
	if (ev->type == WEFT_EV_BECOMES && !ev->id2)
		return;
	switch (ev->type) {
	case WEFT_EV_CREATE:
	case WEFT_EV_CREATE_LABEL:
		t = get(w, ev->id);
		t->created = ev->ns;
		t->creator = ev->actor;
		t->ended = 0;
		free(t->kind);
		t->kind = sdup(weft_reader_name(w->r, ev->name));
		if (ev->type == WEFT_EV_CREATE_LABEL) {
			free(t->label);
			t->label = sdup(weft_reader_name(w->r, ev->name2));
		}
		rec_free(&t->create);
		t->create = keep_of(w, ev);
		t->have_create = 1;
		if (ev->actor)
			get(w, ev->actor)->touch++;
		if (w->tmin != INT64_MAX)
			push(w, ev->ns + w->tmin, ev->id);
		break;
	case WEFT_EV_LABEL:
		t = get(w, ev->id);
		if (!t->label) {
			t->label = sdup(ev->text);
		}
		if (t->nlabels < KEEP_LABELS)
			t->labels[t->nlabels++] = keep_of(w, ev);
		break;
	case WEFT_EV_RUN:
	case WEFT_EV_RESOLVE_RUN:
	case WEFT_EV_FIRE:
		if (ev->type != WEFT_EV_RUN) {
			t = get(w, ev->id);
			arrow(w, t, ev);
			ended(w, ev->id);
			if (ev->type == WEFT_EV_FIRE && ev->id2) {
				/* next: of its kind and label, created by
				 * the same */
				struct ath *n = get(w, ev->id2);
				n->created = ev->ns;
				n->creator = ev->actor;
				free(n->kind);
				n->kind = sdup(t->kind);
				free(n->label);
				n->label = t->label ? sdup(t->label) : NULL;
				if (w->tmin != INT64_MAX)
					push(w, ev->ns + w->tmin, ev->id2);
			}
		}
		if (os->running != ev->id) {
			os->running = ev->id;
			os->run_since = ev->id ? ev->ns : INT64_MIN;
			os->fired_cb = 0;
		}
		break;
	case WEFT_EV_IDLE:
		os->idle = 1;
		os->busy_since = INT64_MIN;
		os->running = 0;
		os->run_since = INT64_MIN;
		break;
	case WEFT_EV_READ:
	case WEFT_EV_TRY_READ:
		if (ev->actor) {
			arrow(w, get(w, ev->actor), ev);
			if (ev->id)
				get(w, ev->id)->touch++;
		}
		break;
	case WEFT_EV_SIGNAL:
	case WEFT_EV_RESOLVE:
	case WEFT_EV_CANCEL:
	case WEFT_EV_FAIL:
		t = get(w, ev->id);
		arrow(w, t, ev);
		if (ev->actor)
			get(w, ev->actor)->touch++;
		if (ev->type != WEFT_EV_SIGNAL)
			ended(w, ev->id);
		if (ev->type == WEFT_EV_FAIL)
			for (int i = 0; i < w->o->ntrig; i++) {
				const struct trigger *tr = &w->o->trig[i];
				if (tr->kind != TRIG_FAILED ||
				    (tr->has_label &&
				     fnmatch(tr->label_glob,
					     ev->text ? ev->text : "", 0)))
					continue;
				char what[200];
				snprintf(what, sizeof what,
					 "thread 0x%" PRIx64 " failed: %.150s",
					 ev->id, ev->text ? ev->text : "");
				fire(w, i, ev->ns, &ev->id, 1, what);
			}
		break;
	case WEFT_EV_BECOMES: {
		t = get(w, ev->id2);
		arrow(w, t, ev);
		struct ath *from = find(w, ev->id);
		if (from && from->should)
			t->should = 1;
		ended(w, ev->id);
		break;
	}
	case WEFT_EV_SHOULD_RESOLVE:
		get(w, ev->id)->should = 1;
		break;
	case WEFT_EV_COUNTER_SET:
	case WEFT_EV_COUNTER_ADD:
		counter(w, ev);
		break;
	}
	if ((w->n > 4096 && w->n > 4 * w->live_at_gc + 4096))
		gc(w);
}

/* The timers: pending threads, callbacks and iterations longer than T. */
static void timers(struct watcher *w, int64_t now)
{
	struct watch_opts *o = w->o;
	char what[300], d[40];
	while (w->nheap && w->heap[0].at <= now) {
		struct heapent he = pop(w);
		struct ath *t = find(w, he.id);
		if (!t || t->ended || t->created == INT64_MIN)
			continue;
		int64_t again = INT64_MAX;
		for (int i = 0; i < o->ntrig; i++) {
			const struct trigger *tr = &o->trig[i];
			if (tr->kind != TRIG_PENDING || (t->fired & 1u << i))
				continue;
			if (t->created + tr->ns > now) {
				if (t->created + tr->ns < again)
					again = t->created + tr->ns;
				continue;
			}
			if (!pending_match(w, tr, t))
				continue;
			t->fired |= 1u << i;
			snprintf(what, sizeof what,
				 "thread 0x%" PRIx64 " (%s%s%.100s) pending "
				 "longer than %s",
				 t->id, t->kind ? t->kind : "?",
				 t->label ? " " : "", t->label ? t->label : "",
				 fmt_time(d, sizeof d, tr->ns));
			fire(w, i, t->created + tr->ns, &t->id, 1, what);
		}
		if (again != INT64_MAX)
			push(w, again, t->id);
	}
	for (size_t s = 0; s < w->nos; s++) {
		struct ostream *os = &w->os[s];
		for (int i = 0; i < o->ntrig; i++) {
			const struct trigger *tr = &o->trig[i];
			if (tr->kind == TRIG_CALLBACK && os->running &&
			    os->run_since != INT64_MIN &&
			    !(os->fired_cb & 1u << i) &&
			    now - os->run_since >= tr->ns) {
				os->fired_cb |= 1u << i;
				struct ath *t = find(w, os->running);
				snprintf(what, sizeof what,
					 "a callback of thread 0x%" PRIx64
					 " (%s) longer than %s",
					 os->running,
					 t && t->kind ? t->kind : "?",
					 fmt_time(d, sizeof d, tr->ns));
				fire(w, i, os->run_since + tr->ns, &os->running,
				     1, what);
			}
			if (tr->kind == TRIG_ITERATION &&
			    os->busy_since != INT64_MIN &&
			    !(os->fired_it & 1u << i) &&
			    now - os->busy_since >= tr->ns) {
				os->fired_it |= 1u << i;
				snprintf(what, sizeof what,
					 "OS thread %zu busy longer than %s", s,
					 fmt_time(d, sizeof d, tr->ns));
				fire(w, i, os->busy_since + tr->ns,
				     &os->running, os->running ? 1 : 0, what);
			}
			if (tr->kind == TRIG_PHASE && os->phase[0] &&
			    !os->idle && os->phase_since != INT64_MIN &&
			    !(os->fired_ph & 1u << i) &&
			    now - os->phase_since >= tr->ns &&
			    (!tr->has_label ||
			     !fnmatch(tr->label_glob, os->phase, 0))) {
				os->fired_ph |= 1u << i;
				snprintf(what, sizeof what,
					 "OS thread %zu in loop phase %.60s "
					 "longer than %s",
					 s, os->phase,
					 fmt_time(d, sizeof d, tr->ns));
				fire(w, i, os->phase_since + tr->ns,
				     &os->running, os->running ? 1 : 0, what);
			}
		}
	}
}

/* lost_wakeup > T: weft why's verdict (src/read/why.c, not copied), on a
 * model of what the watcher follows, updated and judged at most every
 * LW_EVERY_NS (and once when the program ends): a pending waiter whose
 * blocker was signalled or resolved and which never read it, as `weft
 * why` says, the verdict still so T after it became true (the later of
 * the wake-up and the wait's beginning): a growing trace is a prefix, and
 * a waiter woken a moment ago may read yet.  When the program has ended,
 * the verdict is final.  Once per waiter. */
#define LW_EVERY_NS 20000000
static void lost_wakeups(struct watcher *w, int force)
{
	const struct watch_opts *o = w->o;
	int any = 0;
	for (int i = 0; i < o->ntrig; i++)
		any |= o->trig[i].kind == TRIG_LOST_WAKEUP;
	if (!any || w->lw_off)
		return;
	if (!w->model) {
		const char *p = o->src;
		if (weft_reader_open_many(&w->mr, &p, 1,
					  WEFT_READ_FOLLOW |
						  WEFT_READ_ONE_THREAD,
					  NULL, NULL) ||
		    weft_model_new(&w->model, w->mr)) {
			if (w->mr)
				weft_reader_close(w->mr);
			w->mr = NULL;
			w->lw_off = 1;
			warning("lost_wakeup: cannot read '%s' a second time",
				o->src);
			return;
		}
	}
	int64_t t = mono();
	if (!force && t - w->lw_last < LW_EVERY_NS)
		return;
	w->lw_last = t;
	long n = weft_model_update(w->model);
	if (n < 0)
		die("out of memory");
	if (!n && !force && !w->lw_again)
		return; /* (the verdicts read the model only) */
	w->lw_again = 0;
	int64_t now = now_ns(w);
	struct weft_why_index *ix;
	if (weft_why_index_new(&ix, w->model))
		die("out of memory");
	uint32_t nth, na;
	const struct weft_thread *th = weft_model_threads(w->model, &nth);
	const struct weft_arrow *a = weft_model_arrows(w->model, &na);
	for (uint32_t k = 0; k < nth; k++) {
		struct weft_why y;
		if (th[k].end != WEFT_END_PENDING ||
		    (th[k].flags & WEFT_THREAD_ROOT) ||
		    weft_why_at(ix, k, &y) ||
		    y.verdict != WEFT_VERDICT_LOST_WAKEUP ||
		    y.waiter == WEFT_NONE || y.evidence >= na || !y.nchain)
			continue;
		uint32_t b = y.chain[y.nchain - 1].thread;
		const struct weft_arrow *e = &a[y.evidence];
		struct ath *wt = get(w, th[y.waiter].id);
		for (int i = 0; i < o->ntrig; i++) {
			if (o->trig[i].kind != TRIG_LOST_WAKEUP ||
			    (wt->fired & 1u << i))
				continue;
			/* true from the later of the wake-up and the wait */
			int64_t at = e->t > y.t_wait ? e->t : y.t_wait;
			if (!force && now < at + o->trig[i].ns) {
				w->lw_again = 1;
				continue;
			}
			wt->fired |= 1u << i;
			char what[300], b1[96], b2[96], d[40];
			weft_model_title(w->model, y.waiter, b1, sizeof b1);
			weft_model_title(w->model, b, b2, sizeof b2);
			snprintf(what, sizeof what,
				 "a lost wake-up: thread 0x%" PRIx64 " (%s) "
				 "waits on "
				 "thread "
				 "0x"
				 "%" PRIx64 " (%s), %s %s it began waiting, "
				 "and never "
				 "read it in %s",
				 th[y.waiter].id, b1, th[b].id, b2,
				 weft_arrow_name(e->kind),
				 e->t < y.t_wait ? "before" : "after",
				 fmt_time(d, sizeof d, o->trig[i].ns));
			uint64_t roots[3] = {th[y.waiter].id, th[b].id,
					     th[y.thread].id};
			int nr = y.thread != y.waiter && y.thread != b ? 3 : 2;
			fire(w, i,
			     force && w->last_ns < at + o->trig[i].ns
				     ? w->last_ns
				     : at + o->trig[i].ns,
			     roots, nr, what);
		}
	}
	weft_why_index_free(ix);
}

/* Every live thread (the roots of a mark's or an exit's snapshot). */
static int live_threads(struct watcher *w, uint64_t **out, int should)
{
	int n = 0;
	*out = malloc((w->n + 1) * sizeof **out);
	if (!*out)
		die("out of memory");
	for (size_t i = 0; i < w->cap; i++)
		if (w->th[i] && !w->th[i]->ended &&
		    (!should || w->th[i]->should))
			(*out)[n++] = w->th[i]->id;
	return n;
}

static int mark_trigger(struct watcher *w)
{
	for (int i = 0; i < w->o->ntrig; i++)
		if (w->o->trig[i].kind == TRIG_MARK)
			return i;
	return -1;
}

/* Marks `weft mark` left: each fires the mark trigger once. */
static void marks(struct watcher *w)
{
	DIR *d = opendir(w->markdir);
	if (!d)
		return;
	struct dirent *de;
	char names[64][256];
	int n = 0;
	while ((de = readdir(d)) && n < 64)
		if (de->d_name[0] != '.')
			snprintf(names[n++], sizeof names[0], "%s", de->d_name);
	closedir(d);
	qsort(names, (size_t)n, sizeof names[0],
	      (int (*)(const void *, const void *))strcmp);
	for (int i = 0; i < n; i++) {
		char path[4600 + 256], text[200] = "";
		snprintf(path, sizeof path, "%.4200s/%.255s", w->markdir,
			 names[i]);
		FILE *f = fopen(path, "re");
		if (f) {
			size_t k = fread(text, 1, sizeof text - 1, f);
			text[k] = 0;
			text[strcspn(text, "\n")] = 0;
			fclose(f);
		}
		unlink(path);
		int trig = mark_trigger(w);
		uint64_t *roots;
		int nr = live_threads(w, &roots, 0);
		char what[300];
		snprintf(what, sizeof what, "marked by hand%s%.200s",
			 text[0] ? ": " : "", text);
		fire(w, trig, now_ns(w), roots, nr, what);
		free(roots);
	}
}

void mark_dir(const char *src, char *buf, size_t cap)
{
	struct stat sb;
	if (stat(src, &sb) == 0 && S_ISDIR(sb.st_mode))
		snprintf(buf, cap, "%s/marks", src);
	else
		snprintf(buf, cap, "%s.marks", src);
}

static void sleep_ns(int64_t ns)
{
	struct timespec t = {ns / 1000000000, ns % 1000000000};
	while (nanosleep(&t, &t) < 0 && errno == EINTR)
		;
}

/* Leftovers of a watcher killed while it wrote: never a snapshot. */
static void clean_dir(struct watcher *w)
{
	DIR *d = opendir(w->o->dir);
	struct dirent *de;
	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char path[4600];
		snprintf(path, sizeof path, "%.4000s/%.255s", w->o->dir,
			 de->d_name);
		struct stat sb;
		if (de->d_name[0] == '.' && l > 4 &&
		    !strcmp(de->d_name + l - 4, ".tmp"))
			unlink(path);
		else if (!strncmp(de->d_name, "flight-", 7) &&
			 stat(path, &sb) == 0)
			w->disk += (uint64_t)sb.st_size;
	}
	if (d)
		closedir(d);
}

int watch_run(struct watch_opts *o)
{
	struct watcher w = {.o = o, .tmin = INT64_MAX};
	int have_mark = 0;
	for (int i = 0; i < o->ntrig; i++) {
		if (o->trig[i].kind == TRIG_PENDING && o->trig[i].ns < w.tmin)
			w.tmin = o->trig[i].ns;
		have_mark |= o->trig[i].kind == TRIG_MARK;
	}
	/* marks are always armed */
	if (!have_mark && o->ntrig < WATCH_MAX_TRIGGERS) {
		char e[400];
		trigger_parse("mark", &o->trig[o->ntrig++], e, sizeof e);
	}
	if (mkdir(o->dir, 0755) < 0 && errno != EEXIST)
		return error_errno("cannot make '%s'", o->dir);
	mark_dir(o->src, w.markdir, sizeof w.markdir);
	clean_dir(&w);
	char logp[4400];
	snprintf(logp, sizeof logp, "%s/flight.log", o->dir);
	w.log = fopen(logp, "ae");
	if (!w.log)
		return error_errno("cannot open '%s'", logp);
	w.last_save = malloc((size_t)o->ntrig * sizeof *w.last_save);
	if (!w.last_save)
		die("out of memory");
	for (int i = 0; i < o->ntrig; i++) {
		w.last_save[i] = INT64_MIN;
		logf_(&w, "armed trigger=%d expr=%s\n", i + 1, o->trig[i].expr);
	}
	/* the trace: wait for it to appear (weft record --flight starts
	 * before CMD's first ring) */
	struct weft_diag d = {0};
	int err;
	struct stat sb;
	int isdir = stat(o->src, &sb) == 0 && S_ISDIR(sb.st_mode);
	for (;;) {
		const char *p = o->src;
		err = weft_reader_open_many(
			&w.r, &p, 1, WEFT_READ_FOLLOW | WEFT_READ_ONE_THREAD,
			NULL, &d);
		/* a run with no ring yet: wait (libweft renames a ring
		 * into place with its header: a file is there or not) */
		if (!err || !isdir || (o->stop && *o->stop))
			break;
		sleep_ns(o->poll_ns);
	}
	if (err) {
		fclose(w.log);
		free(w.last_save);
		return error("cannot watch '%s': %s", o->src,
			     d.msg[0] ? d.msg : weft_strerror(err));
	}
	w.manual = weft_reader_info(w.r)->clock_kind == WEFT_CLOCK_PROGRAM;
	struct weft_event ev;
	int done = 0;
	while (!done) {
		int rc;
		unsigned k = 0;
		/* (read before the events: all that came before it is read) */
		int stopping = o->stop ? *o->stop : 0;
		while ((rc = weft_reader_next(w.r, &ev)) == 0) {
			apply(&w, &ev);
			if (!(ev.flags & WEFT_EVF_MADE)) {
				int64_t off = ev.ns - mono();
				if (!w.have_offset || off > w.offset)
					w.offset = off, w.have_offset = 1;
			}
			/* timers between batches, so that a flood of
			 * events does not delay them */
			if (++k % 4096 == 0) {
				timers(&w, now_ns(&w));
				/* a snapshot due: now, not after the batch
				 * (what fires meanwhile would be skipped) */
				if (w.pending &&
				    w.last_ns >= w.pend.ns + o->after_ns)
					save(&w);
			}
		}
		if (rc != WEFT_EAGAIN && rc != WEFT_EEOF) {
			warning("'%s': %s", o->src, weft_strerror(rc));
			done = 1;
		}
		int64_t now = now_ns(&w);
		timers(&w, now);
		marks(&w);
		/* the program ended (*o->stop 2: weft record saw it exit) */
		int exited = rc == WEFT_EEOF || stopping == 2;
		lost_wakeups(&w, exited);
		if (w.pending && (now >= w.pend.ns + o->after_ns || exited))
			save(&w);
		if (exited) {
			/* the program ended: what should have resolved
			 * and did not */
			for (int i = 0; i < o->ntrig; i++) {
				if (o->trig[i].kind != TRIG_UNRESOLVED)
					continue;
				uint64_t *roots;
				int nr = live_threads(&w, &roots, 1);
				if (nr) {
					char what[200];
					snprintf(what, sizeof what,
						 "%d threads that should "
						 "resolve did not",
						 nr);
					fire(&w, i, w.last_ns, roots, nr, what);
					if (w.pending)
						save(&w);
				}
				free(roots);
			}
			done = 1;
		}
		if (stopping && !w.pending)
			done = 1;
		if (!done)
			sleep_ns(o->poll_ns);
	}
	if (w.pending)
		save(&w);
	int rc = report_losses(w.r, o->src);
	(void)rc;
	if (!o->quiet)
		fprintf(stderr,
			"weft watch: %" PRIu64 " triggers fired, %" PRIu64
			" snapshots saved in '%s', %" PRIu64 " skipped\n",
			o->fired, o->saved, o->dir, o->skipped);
	logf_(&w,
	      "summary fired=%" PRIu64 " saved=%" PRIu64 " skipped=%" PRIu64
	      "\n",
	      o->fired, o->saved, o->skipped);
	fclose(w.log);
	weft_reader_close(w.r);
	if (w.model)
		weft_model_free(w.model);
	if (w.mr)
		weft_reader_close(w.mr);
	for (size_t i = 0; i < w.cap; i++)
		ath_free(w.th[i]);
	free(w.th);
	free(w.os);
	for (size_t i = 0; i < w.nctr; i++)
		free(w.ctr[i].name);
	free(w.ctr);
	free(w.heap);
	free(w.last_save);
	free(w.hour);
	return 0;
}

int flight_info(const char *dir, FILE *f)
{
	char p[4400];
	snprintf(p, sizeof p, "%s/flight.log", dir);
	FILE *l = fopen(p, "re");
	if (!l)
		return -1;
	char line[1024];
	unsigned long saved = 0, skipped = 0;
	char reasons[8][64] = {{0}};
	unsigned long nreason[8] = {0};
	fprintf(f, "flight log of '%s':\n", dir);
	while (fgets(line, sizeof line, l)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "saved ", 6)) {
			saved++;
			fprintf(f, "  %s\n", line);
		} else if (!strncmp(line, "skipped ", 8)) {
			skipped++;
			char *r = strstr(line, "reason=");
			char why[64] = "";
			if (r)
				sscanf(r + 7, "%63s", why);
			int k = 0;
			while (k < 8 && reasons[k][0] &&
			       strcmp(reasons[k], why))
				k++;
			if (k < 8) {
				snprintf(reasons[k], sizeof reasons[k], "%s",
					 why);
				nreason[k]++;
			}
		}
	}
	fclose(l);
	fprintf(f, "snapshots saved: %lu; triggers skipped: %lu", saved,
		skipped);
	for (int k = 0; k < 8 && reasons[k][0]; k++)
		fprintf(f, "%s%s %lu", k ? ", " : " (", reasons[k], nreason[k]);
	fprintf(f, "%s\n", skipped ? ")" : "");
	return 0;
}
