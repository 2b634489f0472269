/* SPDX-License-Identifier: MIT */
/*
 * perfetto.c - the model as Perfetto's native protobuf trace
 * (`weft export --format perfetto`), which ui.perfetto.dev and
 * trace_processor open, in a fraction of the Chrome JSON's bytes:
 *   - a process track per process, and under it a track per async thread
 *     (OS threads too: the tracks arrows from them start on);
 *   - each async thread a slice from its creation to its end (a pending
 *     one: to the trace's end), its runs slices nested in it;
 *   - each arrow a flow: an instant where it happened on the acting
 *     thread's track, with the flow's id, to an instant on the other's
 *     that terminates it;
 *   - labels and notes as instants; counters as counter tracks.
 *
 * The messages and fields used, from perfetto's protos
 * (protos/perfetto/trace/trace.proto, trace_packet.proto,
 * track_event/track_descriptor.proto, track_event/track_event.proto,
 * track_event/process_descriptor.proto, thread_descriptor.proto,
 * counter_descriptor.proto):
 *   Trace: packet 1
 *   TracePacket: timestamp 8, trusted_packet_sequence_id 10,
 *     track_event 11, sequence_flags 13 (1: incremental state cleared),
 *     track_descriptor 60
 *   TrackDescriptor: uuid 1, name 2, process 3, thread 4, parent_uuid 5,
 *     counter 8
 *   ProcessDescriptor: pid 1, process_name 6
 *   ThreadDescriptor: pid 1, tid 2, thread_name 5
 *   TrackEvent: categories 22, name 23, type 9 (1 SLICE_BEGIN, 2
 *     SLICE_END, 3 INSTANT, 4 COUNTER), track_uuid 11, counter_value 30,
 *     flow_ids 47 (fixed64), terminating_flow_ids 48 (fixed64)
 */
#include "perfetto.h"

#include <stdlib.h>
#include <string.h>

#include "pb.h"

#define PROC_UUID(pid) ((1ull << 40) | (uint64_t)(pid))
#define THREAD_UUID(t) ((2ull << 40) + (uint64_t)(t) + 1)
#define COUNTER_UUID(c) ((3ull << 40) + (uint64_t)(c) + 1)

enum { SLICE_BEGIN = 1, SLICE_END = 2, INSTANT = 3, COUNTER = 4 };

struct out {
	FILE *f;
	struct pb pkt, wrap;
	int first;
	int64_t o0; /* model time of timestamp 0... made positive */
	int err;
};

/* Writes the packet in o->pkt as field 1 of the Trace. */
static void flush(struct out *o)
{
	if (o->pkt.oom) {
		o->err = -12;
		return;
	}
	pb_reset(&o->wrap);
	pb_bytes(&o->wrap, 1, o->pkt.b, o->pkt.n);
	if (o->wrap.oom || fwrite(o->wrap.b, 1, o->wrap.n, o->f) != o->wrap.n)
		o->err = o->wrap.oom ? -12 : -5;
	pb_reset(&o->pkt);
}

static void packet(struct out *o, int64_t t)
{
	pb_reset(&o->pkt);
	if (t != INT64_MIN)
		pb_uint(&o->pkt, 8, (uint64_t)(t - o->o0));
	pb_uint(&o->pkt, 10, 1);
	if (o->first) {
		pb_uint(&o->pkt, 13, 1);
		o->first = 0;
	}
}

static void track(struct out *o, uint64_t uuid, uint64_t parent,
		  const char *name)
{
	packet(o, INT64_MIN);
	pb_begin(&o->pkt, 60);
	pb_uint(&o->pkt, 1, uuid);
	if (name)
		pb_string(&o->pkt, 2, name);
	if (parent)
		pb_uint(&o->pkt, 5, parent);
}

/* A track event's packet, left open for more fields. */
static void event(struct out *o, int64_t t, int type, uint64_t uuid,
		  const char *name)
{
	packet(o, t);
	pb_begin(&o->pkt, 11);
	pb_uint(&o->pkt, 9, (uint64_t)type);
	pb_uint(&o->pkt, 11, uuid);
	if (name)
		pb_string(&o->pkt, 23, name);
}

static void done(struct out *o)
{
	pb_end(&o->pkt);
	flush(o);
}

static int64_t clamp(int64_t t, int64_t lo, int64_t hi)
{
	return t < lo ? lo : t > hi ? hi : t;
}

int perfetto_write(const struct weft_model *m, FILE *f, const uint8_t *only)
{
	struct out o = {.f = f, .first = 1};
	pb_init(&o.pkt);
	pb_init(&o.wrap);
	uint32_t nth, narr, nlab, nctr, nrun;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_arrow *ar = weft_model_arrows(m, &narr);
	const struct weft_label *lab = weft_model_labels(m, &nlab);
	const struct weft_counter *ctr = weft_model_counters(m, &nctr);
	const struct weft_run *run = weft_model_runs(m, &nrun);
	int64_t t0, t1;
	weft_model_range(m, &t0, &t1);
	o.o0 = t0 < 0 ? t0 : 0;
	uint32_t np, ns;
	const struct weft_model_process *P = weft_model_processes(m, &np);
	const struct weft_model_stream *S = weft_model_streams(m, &ns);
	const struct weft_trace_info *in =
		weft_reader_info(weft_model_reader(m));
	char title[256], buf[300];
	/* processes (one, the ring's, when the model knows none) */
	for (uint32_t p = 0; p < (np ? np : 1); p++) {
		uint32_t pid = np ? P[p].pid : (in->pid ? in->pid : 1);
		track(&o, PROC_UUID(pid), 0, NULL);
		pb_begin(&o.pkt, 3);
		pb_uint(&o.pkt, 1, pid);
		pb_string(&o.pkt, 6, np ? P[p].comm : in->comm);
		pb_end(&o.pkt);
		done(&o);
	}
	/* a track per thread, under its process */
	for (uint32_t t = 0; t < nth; t++) {
		if (only && !only[t] && !(th[t].flags & WEFT_THREAD_ROOT))
			continue;
		uint32_t p = weft_model_thread_process(m, t);
		uint32_t pid = p < np ? P[p].pid : (in->pid ? in->pid : 1);
		if (th[t].flags & WEFT_THREAD_ROOT) {
			uint32_t s = th[t].stream;
			snprintf(buf, sizeof buf, "OS thread %s",
				 s < ns ? S[s].name : "");
			track(&o, THREAD_UUID(t), PROC_UUID(pid), buf);
			pb_begin(&o.pkt, 4);
			pb_uint(&o.pkt, 1, pid);
			pb_uint(&o.pkt, 2, s < ns ? S[s].tid : 0);
			pb_string(&o.pkt, 5, s < ns ? S[s].name : "");
			pb_end(&o.pkt);
			done(&o);
			continue;
		}
		weft_model_title(m, t, title, sizeof title);
		track(&o, THREAD_UUID(t), PROC_UUID(pid), title);
		done(&o);
	}
	/* each async thread's slice, its runs, labels and notes */
	for (uint32_t t = 0; t < nth && !o.err; t++) {
		if ((th[t].flags & WEFT_THREAD_ROOT) || (only && !only[t]))
			continue;
		int64_t a = th[t].t_create;
		int64_t b = th[t].end == WEFT_END_PENDING ? t1 : th[t].t_end;
		if (b < a)
			b = a;
		weft_model_title(m, t, title, sizeof title);
		event(&o, a, SLICE_BEGIN, THREAD_UUID(t), title);
		pb_string(&o.pkt, 22, weft_model_name(m, th[t].kind));
		done(&o);
		uint32_t nr;
		const uint32_t *ri = weft_model_thread_runs(m, t, &nr);
		for (uint32_t k = 0; k < nr; k++) {
			int64_t r0 = clamp(run[ri[k]].t0, a, b);
			int64_t r1 = clamp(run[ri[k]].t1, a, b);
			event(&o, r0, SLICE_BEGIN, THREAD_UUID(t), "run");
			done(&o);
			event(&o, r1, SLICE_END, THREAD_UUID(t), NULL);
			done(&o);
		}
		event(&o, b, SLICE_END, THREAD_UUID(t), NULL);
		done(&o);
	}
	for (uint32_t i = 0; i < nlab && !o.err; i++) {
		const struct weft_label *l = &lab[i];
		if (l->thread >= nth || (only && !only[l->thread]))
			continue;
		event(&o, l->t, INSTANT, THREAD_UUID(l->thread),
		      weft_model_string(m, l->text));
		pb_string(&o.pkt, 22,
			  l->kind == WEFT_EV_NOTE ? "note" : "label");
		done(&o);
	}
	/* arrows: a flow from the thread that acted to the other */
	for (uint32_t i = 0; i < narr && !o.err; i++) {
		const struct weft_arrow *x = &ar[i];
		if (x->from >= nth || x->to >= nth || x->from == x->to)
			continue;
		if (only &&
		    !((only[x->from] ||
		       (th[x->from].flags & WEFT_THREAD_ROOT)) &&
		      (only[x->to] || (th[x->to].flags & WEFT_THREAD_ROOT))))
			continue;
		int by_to = x->kind == WEFT_ARROW_READ ||
			    x->kind == WEFT_ARROW_READ_FAILED;
		uint32_t actor = by_to ? x->to : x->from;
		uint32_t other = by_to ? x->from : x->to;
		const char *name = weft_arrow_name(x->kind);
		event(&o, x->t, INSTANT, THREAD_UUID(actor), name);
		pb_string(&o.pkt, 22, "arrow");
		pb_fixed64(&o.pkt, 47, (uint64_t)i + 1);
		done(&o);
		event(&o, x->t, INSTANT, THREAD_UUID(other), name);
		pb_string(&o.pkt, 22, "arrow");
		pb_fixed64(&o.pkt, 48, (uint64_t)i + 1);
		done(&o);
	}
	/* counters: a counter track each, under its process */
	for (uint32_t c = 0; c < nctr && !o.err; c++) {
		uint32_t p = ctr[c].process;
		uint32_t pid = p < np ? P[p].pid : (in->pid ? in->pid : 1);
		weft_model_counter_title(m, c, buf, sizeof buf);
		track(&o, COUNTER_UUID(c), PROC_UUID(pid), buf);
		pb_begin(&o.pkt, 8);
		pb_end(&o.pkt);
		done(&o);
		for (uint32_t k = 0; k < ctr[c].nsamples; k++) {
			event(&o, ctr[c].samples[k].t, COUNTER, COUNTER_UUID(c),
			      NULL);
			pb_int(&o.pkt, 30, ctr[c].samples[k].value);
			done(&o);
		}
	}
	int err = o.err ? o.err : ferror(f) ? -5 : 0;
	pb_release(&o.pkt);
	pb_release(&o.wrap);
	return err;
}
