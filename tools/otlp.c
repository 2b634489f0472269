/* SPDX-License-Identifier: MIT */
/*
 * otlp.c - the model as OTLP/protobuf spans (otlp.h, docs/otlp.md).
 *
 * Message and field numbers, from opentelemetry-proto v1
 * (opentelemetry/proto/collector/trace/v1/trace_service.proto,
 * trace/v1/trace.proto, resource/v1/resource.proto,
 * common/v1/common.proto):
 *   ExportTraceServiceRequest: resource_spans 1
 *   ResourceSpans: resource 1, scope_spans 2
 *   Resource: attributes 1
 *   ScopeSpans: scope 1, spans 2;  InstrumentationScope: name 1
 *   Span: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6,
 *     start_time_unix_nano 7 (fixed64), end_time_unix_nano 8 (fixed64),
 *     attributes 9, events 11, dropped_events_count 12, links 13,
 *     dropped_links_count 14, status 15
 *   Span.Event: time_unix_nano 1 (fixed64), name 2, attributes 3
 *   Span.Link: trace_id 1, span_id 2, attributes 4
 *   Status: message 2, code 3 (1 OK, 2 ERROR)
 *   KeyValue: key 1, value 2;  AnyValue: string_value 1, bool_value 2,
 *     int_value 3
 *
 * Traces: a thread joins its creator's trace, except an OS thread, a hub
 * (weft_model_hubs(): a loop, a listener, a pool) and a thread created
 * by one of those or by nothing known, each of which begins a trace of
 * its own (a request, a connection), linked to its creator ("weft.link":
 * "parent"); a trace that reached the span budget is full, and its next
 * thread begins another the same way.  An arrow is a link on one of its
 * two ends' spans: the `from` side's, unless that is an OS thread or a
 * hub and the other is not (a hub's spans would otherwise carry a link
 * per request).
 */
#include "otlp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pb.h"
#include "weft/read.h"

/* splitmix64's finaliser: ids derived from (run, process, weft id). */
static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void put_be64(uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (56 - 8 * i));
}

struct enc {
	const struct weft_model *m;
	const struct otlp_opts *o;
	const struct weft_thread *th;
	uint32_t n;
	const struct weft_arrow *ar;
	uint32_t na;
	uint64_t *key;	 /* per thread: its span id */
	uint32_t *trace; /* per thread: the thread its trace began with */
	uint8_t *split;	 /* per thread: it begins a trace */
	uint8_t *heavy;	 /* per thread: an OS thread or a hub */
	uint32_t *aoff;	 /* per thread: its links, arrows[aoff[t]..] */
	uint32_t *alist;
	uint32_t *loff; /* per thread: its labels and notes */
	uint32_t *llist;
	uint32_t *proc; /* per thread: its process (np: none) */
	uint32_t np;
	int64_t base;	/* unix ns of model time 0 */
	int64_t t_snap; /* the end of the trace: pending threads end there */
	uint64_t run;
};

static void span_id(const struct enc *e, uint32_t t, uint8_t id[8])
{
	put_be64(id, e->key[t]);
}

static void trace_id(const struct enc *e, uint32_t t, uint8_t id[16])
{
	uint64_t k = e->key[e->trace[t]];
	put_be64(id, mix(k ^ 0x7472616365ull));
	put_be64(id + 8, mix(k ^ 0x6964ull) | 1);
}

static uint64_t unix_ns(const struct enc *e, int64_t t)
{
	int64_t u = e->base + t;
	return u > 0 ? (uint64_t)u : 0;
}

/* A string field: protobuf's strings are UTF-8 (collectors refuse
 * others), so an invalid sequence is written as U+FFFD, as every weft
 * export does (weft_utf8_decode()).  (The reader already gives labels
 * and messages so; names of kinds, commands and hosts too come here.) */
static void text(struct pb *p, uint32_t field, const char *s)
{
	size_t n = strlen(s);
	if (weft_utf8_valid(s, n)) {
		pb_bytes(p, field, s, n);
		return;
	}
	struct pb t;
	pb_init(&t);
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k = weft_utf8_decode(s + i, n - i, &cp);
		if (cp == 0xFFFD)
			pb_raw(&t, "\xef\xbf\xbd", 3);
		else
			pb_raw(&t, s + i, k);
		i += k;
	}
	if (t.oom)
		p->oom = 1;
	pb_bytes(p, field, t.b, t.n);
	pb_release(&t);
}

/* KeyValue attributes (`field` of the enclosing message): the key, then
 * the AnyValue the caller writes between attr_open() and attr_close(). */
static void attr_open(struct pb *p, uint32_t field, const char *k)
{
	pb_begin(p, field);
	pb_string(p, 1, k);
	pb_begin(p, 2);
}

static void attr_close(struct pb *p)
{
	pb_end(p);
	pb_end(p);
}

static void attr_str(struct pb *p, uint32_t field, const char *k, const char *v)
{
	attr_open(p, field, k);
	text(p, 1, v);
	attr_close(p);
}

static void attr_int(struct pb *p, uint32_t field, const char *k, int64_t v)
{
	attr_open(p, field, k);
	pb_int(p, 3, v);
	attr_close(p);
}

static void attr_bool(struct pb *p, uint32_t field, const char *k, int v)
{
	attr_open(p, field, k);
	pb_bool(p, 2, v);
	attr_close(p);
}

/* Counting sort of items into per-thread lists: off[t]..off[t+1]. */
static int bucket(uint32_t n, uint32_t nitems, const uint32_t *owner,
		  uint32_t **off, uint32_t **list)
{
	*off = calloc((size_t)n + 2, sizeof **off);
	*list = malloc(((size_t)nitems + 1) * sizeof **list);
	if (!*off || !*list)
		return -ENOMEM;
	for (uint32_t i = 0; i < nitems; i++)
		if (owner[i] < n)
			(*off)[owner[i] + 2]++;
	for (uint32_t t = 0; t < n; t++)
		(*off)[t + 2] += (*off)[t + 1];
	for (uint32_t i = 0; i < nitems; i++)
		if (owner[i] < n)
			(*list)[(*off)[owner[i] + 1]++] = i;
	return 0;
}

static const char *kind_of(const struct enc *e, uint32_t t)
{
	return weft_model_name(e->m, e->th[t].kind);
}

/* Resource (field 1 of ResourceSpans) of process p (np: not known). */
static void resource(const struct enc *e, struct pb *p, uint32_t pi)
{
	uint32_t np;
	const struct weft_model_process *P = weft_model_processes(e->m, &np);
	const struct weft_trace_info *in =
		weft_reader_info(weft_model_reader(e->m));
	const char *comm = pi < np ? P[pi].comm : in->comm;
	char run[17];
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < 16; i++)
		run[i] = hex[(e->run >> (60 - 4 * i)) & 15];
	run[16] = 0;
	pb_begin(p, 1);
	attr_str(p, 1, "service.name",
		 e->o->service ? e->o->service : (comm[0] ? comm : "weft"));
	if (pi < np) {
		attr_int(p, 1, "process.pid", P[pi].pid);
		attr_str(p, 1, "process.command", P[pi].comm);
	}
	if (in->host[0])
		attr_str(p, 1, "host.name", in->host);
	attr_str(p, 1, "weft.run", run);
	pb_end(p);
}

/* A link (Span field 13) to thread o, with its attributes. */
static void link_to(const struct enc *e, struct pb *p, uint32_t o)
{
	uint8_t tid[16], sid[8];
	trace_id(e, o, tid);
	span_id(e, o, sid);
	pb_begin(p, 13);
	pb_bytes(p, 1, tid, 16);
	pb_bytes(p, 2, sid, 8);
}

/*
 * Span t's body into p (empty on entry): everything but its links and
 * events first, then its events, then its links, each item's end in
 * cut[] (*ncut of them; cut[0] the end of the fixed part) so that a span
 * too big alone can be cut at an item's end.
 */
static void span(const struct enc *e, struct pb *p, uint32_t t, size_t *cut,
		 uint32_t *ncut, uint32_t *nev, uint32_t *nlink)
{
	const struct weft_thread *x = &e->th[t];
	uint8_t tid[16], sid[8];
	char buf[64];
	trace_id(e, t, tid);
	span_id(e, t, sid);
	pb_bytes(p, 1, tid, 16);
	pb_bytes(p, 2, sid, 8);
	int root = x->flags & WEFT_THREAD_ROOT;
	uint32_t par = x->parent;
	int has_par = par < e->n && par != t;
	if (has_par && !e->split[t]) {
		uint8_t pid[8];
		span_id(e, par, pid);
		pb_bytes(p, 4, pid, 8);
	}
	const char *kind = kind_of(e, t);
	if (root) {
		uint32_t ns;
		const struct weft_model_stream *s =
			weft_model_streams(e->m, &ns);
		snprintf(buf, sizeof buf, "os thread %s",
			 x->stream < ns ? s[x->stream].name : "");
		text(p, 5, buf);
	} else
		text(p, 5, kind[0] ? kind : "async thread");
	pb_uint(p, 6, 1); /* SPAN_KIND_INTERNAL */
	int pending = x->end == WEFT_END_PENDING;
	int64_t end = pending ? e->t_snap : x->t_end;
	if (end < x->t_create)
		end = x->t_create;
	pb_fixed64(p, 7, unix_ns(e, x->t_create));
	pb_fixed64(p, 8, unix_ns(e, end));
	attr_int(p, 9, "weft.id", (int64_t)x->id);
	if (x->incarnation)
		attr_int(p, 9, "weft.incarnation", x->incarnation);
	attr_str(p, 9, "weft.kind", kind);
	if (x->label != WEFT_NONE) {
		uint32_t nl;
		const struct weft_label *L = weft_model_labels(e->m, &nl);
		if (x->label < nl)
			attr_str(p, 9, "weft.label",
				 weft_model_string(e->m, L[x->label].text));
	}
	attr_str(p, 9, "weft.end", weft_end_name(x->end));
	if (pending)
		attr_bool(p, 9, "weft.pending", 1);
	if (root) {
		uint32_t ns;
		const struct weft_model_stream *s =
			weft_model_streams(e->m, &ns);
		attr_bool(p, 9, "weft.os_thread", 1);
		if (x->stream < ns)
			attr_int(p, 9, "thread.id", s[x->stream].tid);
	}
	if (e->heavy[t] && !root)
		attr_bool(p, 9, "weft.hub", 1);
	if (x->flags & WEFT_THREAD_SHOULD_RESOLVE)
		attr_bool(p, 9, "weft.should_resolve", 1);
	if (x->flags & WEFT_THREAD_NO_CREATE)
		attr_bool(p, 9, "weft.no_create", 1);
	if (has_par) {
		attr_int(p, 9, "weft.parent_id", (int64_t)e->th[par].id);
		if (e->th[par].incarnation)
			attr_int(p, 9, "weft.parent_incarnation",
				 e->th[par].incarnation);
	}
	if (x->end == WEFT_END_BECAME && x->became < e->n)
		attr_int(p, 9, "weft.became_id", (int64_t)e->th[x->became].id);
	if (e->proc[t] < e->np) {
		uint32_t np;
		const struct weft_model_process *P =
			weft_model_processes(e->m, &np);
		attr_int(p, 9, "process.pid", P[e->proc[t]].pid);
	}
	/* status: resolved OK, failed ERROR with its message */
	if (x->end == WEFT_END_RESOLVED || x->end == WEFT_END_FAILED) {
		pb_begin(p, 15);
		if (x->end == WEFT_END_FAILED && x->message != WEFT_NONE)
			text(p, 2, weft_model_string(e->m, x->message));
		pb_uint(p, 3, x->end == WEFT_END_FAILED ? 2 : 1);
		pb_end(p);
	}
	*ncut = 0;
	cut[(*ncut)++] = p->n;
	/* events: labels, notes and the failure, in time order */
	*nev = 0;
	uint32_t nl;
	const struct weft_label *L = weft_model_labels(e->m, &nl);
	for (uint32_t k = e->loff[t]; k < e->loff[t + 1]; k++) {
		const struct weft_label *l = &L[e->llist[k]];
		pb_begin(p, 11);
		pb_fixed64(p, 1, unix_ns(e, l->t));
		pb_string(p, 2,
			  l->kind == WEFT_EV_NOTE ? "weft.note" : "weft.label");
		attr_str(p, 3, "weft.text", weft_model_string(e->m, l->text));
		pb_end(p);
		cut[(*ncut)++] = p->n;
		(*nev)++;
	}
	if (x->end == WEFT_END_FAILED) {
		pb_begin(p, 11);
		pb_fixed64(p, 1, unix_ns(e, x->t_end));
		pb_string(p, 2, "exception");
		attr_str(p, 3, "exception.message",
			 x->message != WEFT_NONE
				 ? weft_model_string(e->m, x->message)
				 : "");
		pb_end(p);
		cut[(*ncut)++] = p->n;
		(*nev)++;
	}
	/* links: its creator's span when it begins a trace, then arrows */
	*nlink = 0;
	if (has_par && e->split[t]) {
		link_to(e, p, par);
		attr_str(p, 4, "weft.link", "parent");
		pb_end(p);
		cut[(*ncut)++] = p->n;
		(*nlink)++;
	}
	for (uint32_t k = e->aoff[t]; k < e->aoff[t + 1]; k++) {
		const struct weft_arrow *a = &e->ar[e->alist[k]];
		int out = a->from == t;
		link_to(e, p, out ? a->to : a->from);
		attr_str(p, 4, "weft.link", "arrow");
		char tok[16];
		attr_str(p, 4, "weft.arrow", otlp_arrow_token(a->kind, tok));
		attr_bool(p, 4, "weft.arrow.out", out);
		attr_int(p, 4, "weft.arrow.time", (int64_t)unix_ns(e, a->t));
		/* its place among the trace's arrows: what weft import
		 * replays in order, arrows of one instant included */
		attr_int(p, 4, "weft.arrow.seq", (int64_t)e->alist[k]);
		if (a->flags)
			attr_int(p, 4, "weft.arrow.flags", a->flags);
		if (a->flags & WEFT_ARROW_MESSAGE)
			attr_int(p, 4, "weft.arrow.sent",
				 (int64_t)unix_ns(
					 e,
					 weft_model_arrow_sent(
						 e->m, (uint32_t)(a - e->ar))));
		pb_end(p);
		cut[(*ncut)++] = p->n;
		(*nlink)++;
	}
}

/* The thread an arrow's link goes on (see the top). */
static uint32_t holder(const struct enc *e, const struct weft_arrow *a)
{
	if (a->from >= e->n || a->to >= e->n)
		return WEFT_NONE;
	if (e->heavy[a->from] && !e->heavy[a->to])
		return a->to;
	return a->from;
}

static int prepare(struct enc *e)
{
	const struct weft_model *m = e->m;
	e->th = weft_model_threads(m, &e->n);
	e->ar = weft_model_arrows(m, &e->na);
	size_t n = (size_t)e->n + 1;
	e->key = malloc(n * sizeof *e->key);
	e->trace = malloc(n * sizeof *e->trace);
	e->split = calloc(n, 1);
	e->heavy = calloc(n, 1);
	e->proc = malloc(n * sizeof *e->proc);
	uint32_t *count = calloc(n, sizeof *count);
	uint32_t nl;
	const struct weft_label *L = weft_model_labels(m, &nl);
	size_t big = (size_t)(e->na > nl ? e->na : nl) + 1;
	uint32_t *owner = malloc(big * sizeof *owner);
	int rc = -ENOMEM;
	if (!e->key || !e->trace || !e->split || !e->heavy || !e->proc ||
	    !count || !owner)
		goto out;
	if ((rc = weft_model_hubs(m, e->heavy)))
		goto out;
	struct weft_reader *r = weft_model_reader(m);
	const struct weft_trace_info *in = weft_reader_info(r);
	uint64_t u0 = 0, u1 = 0;
	memcpy(&u0, in->uuid, 8);
	memcpy(&u1, in->uuid + 8, 8);
	e->run = in->session ? mix(in->session) : mix(u0 ^ mix(u1));
	e->base = in->origin_real_ns > 0 ? in->origin_real_ns : 0;
	int64_t t0;
	weft_model_range(m, &t0, &e->t_snap);
	const struct weft_model_process *P = weft_model_processes(m, &e->np);
	uint32_t ns;
	const struct weft_model_stream *S = weft_model_streams(m, &ns);
	for (uint32_t t = 0; t < e->n; t++) {
		const struct weft_thread *x = &e->th[t];
		int root = x->flags & WEFT_THREAD_ROOT;
		if (root)
			e->heavy[t] = 1;
		uint32_t pi = weft_model_thread_process(m, t);
		e->proc[t] = pi < e->np ? pi : e->np;
		uint64_t pid = pi < e->np ? P[pi].pid : 0;
		/* an OS thread's id is 0: its tid tells it apart */
		uint64_t id = x->id;
		if (root)
			id = (x->stream < ns ? S[x->stream].tid : x->stream) |
			     1ull << 63;
		uint64_t k = mix(mix(mix(e->run ^ pid) ^ id) ^ x->incarnation);
		e->key[t] = k ? k : 1;
	}
	/* traces, in the threads' order (a creator comes before what it
	 * created) */
	for (uint32_t t = 0; t < e->n; t++) {
		uint32_t p = e->th[t].parent;
		int alone = e->heavy[t] || p >= t || e->heavy[p] ||
			    count[e->trace[p]] >= e->o->span_budget;
		e->split[t] = (uint8_t)alone;
		e->trace[t] = alone ? t : e->trace[p];
		count[e->trace[t]]++;
	}
	for (uint32_t i = 0; i < e->na; i++)
		owner[i] = holder(e, &e->ar[i]);
	if ((rc = bucket(e->n, e->na, owner, &e->aoff, &e->alist)))
		goto out;
	for (uint32_t i = 0; i < nl; i++)
		owner[i] = L[i].thread;
	rc = bucket(e->n, nl, owner, &e->loff, &e->llist);
out:
	free(count);
	free(owner);
	return rc;
}

static void release(struct enc *e)
{
	free(e->key);
	free(e->trace);
	free(e->split);
	free(e->heavy);
	free(e->proc);
	free(e->aoff);
	free(e->alist);
	free(e->loff);
	free(e->llist);
}

/* Closes the open group (ScopeSpans in ResourceSpans) and hands the
 * message over. */
static int flush(struct pb *msg, otlp_emit emit, void *ctx,
		 struct otlp_stats *st)
{
	pb_end(msg);
	pb_end(msg);
	if (msg->oom)
		return -ENOMEM;
	int rc = emit(ctx, msg->b, msg->n);
	if (rc)
		return rc;
	st->messages++;
	st->bytes += msg->n;
	if (msg->n > st->biggest_message)
		st->biggest_message = msg->n;
	pb_reset(msg);
	return 0;
}

int otlp_encode(const struct weft_model *m, const struct otlp_opts *o,
		otlp_emit emit, void *ctx, struct otlp_stats *st)
{
	struct enc e = {.m = m, .o = o};
	struct pb msg, sp, res;
	pb_init(&msg);
	pb_init(&sp);
	pb_init(&res);
	memset(st, 0, sizeof *st);
	size_t *cut = NULL;
	uint32_t *tcount = NULL;
	int rc = prepare(&e);
	if (rc)
		goto out;
	/* the most items a span has: for its cut points */
	uint32_t nl, most = 0;
	weft_model_labels(m, &nl);
	for (uint32_t t = 0; t < e.n; t++) {
		uint32_t k =
			e.aoff[t + 1] - e.aoff[t] + e.loff[t + 1] - e.loff[t];
		if (k > most)
			most = k;
	}
	cut = malloc(((size_t)most + 4) * sizeof *cut);
	tcount = calloc((size_t)e.n + 1, sizeof *tcount);
	rc = -ENOMEM;
	if (!cut || !tcount)
		goto out;
	uint32_t open = UINT32_MAX; /* the process whose group is open */
	for (uint32_t pi = 0; pi <= e.np; pi++) {
		for (uint32_t t = 0; t < e.n; t++) {
			if (e.proc[t] != pi)
				continue;
			pb_reset(&sp);
			uint32_t ncut, nev, nlink;
			span(&e, &sp, t, cut, &ncut, &nev, &nlink);
			pb_reset(&res);
			resource(&e, &res, pi);
			/* room for the span's and the groups' tags and
			 * lengths */
			size_t frame = res.n + 64;
			size_t room = o->message_limit - frame;
			if (sp.oom || res.oom)
				goto out;
			if (sp.n > room) {
				/* too big alone: cut at an item's end,
				 * events before links */
				uint32_t k = ncut;
				while (k > 1 && cut[k - 1] + 16 > room)
					k--;
				if (cut[k - 1] + 16 > room) {
					rc = -E2BIG;
					goto out;
				}
				uint32_t kept = k - 1;
				uint32_t kev = kept < nev ? kept : nev;
				uint32_t kl = kept - kev;
				sp.n = cut[k - 1];
				if (nev - kev)
					pb_uint(&sp, 12, nev - kev);
				if (nlink - kl)
					pb_uint(&sp, 14, nlink - kl);
				st->events_dropped += nev - kev;
				st->links_dropped += nlink - kl;
				nev = kev;
				nlink = kl;
			}
			if (msg.n && msg.n + sp.n + frame > o->message_limit) {
				if ((rc = flush(&msg, emit, ctx, st)))
					goto out;
				rc = -ENOMEM;
				open = UINT32_MAX;
			}
			if (open != pi) {
				if (open != UINT32_MAX) {
					pb_end(&msg); /* ScopeSpans */
					pb_end(&msg); /* ResourceSpans */
				}
				pb_begin(&msg, 1); /* ResourceSpans */
				pb_raw(&msg, res.b, res.n);
				pb_begin(&msg, 2); /* ScopeSpans */
				pb_begin(&msg, 1); /* InstrumentationScope */
				pb_string(&msg, 1, "weft");
				pb_end(&msg);
				open = pi;
			}
			st->spans++;
			st->links += nlink;
			st->events += nev;
			if (e.split[t])
				st->traces++;
			if (++tcount[e.trace[t]] > st->biggest_trace)
				st->biggest_trace = tcount[e.trace[t]];
			pb_bytes(&msg, 2, sp.b, sp.n);
		}
	}
	rc = msg.n ? flush(&msg, emit, ctx, st) : 0;
out:
	free(cut);
	free(tcount);
	release(&e);
	pb_release(&msg);
	pb_release(&sp);
	pb_release(&res);
	return rc;
}
