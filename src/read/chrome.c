/* SPDX-License-Identifier: MIT */
/*
 * chrome.c - the model as Chrome trace-event JSON, for Perfetto's UI and
 * chrome://tracing (ecosystem.md §1.2-1.3):
 *   - process and thread names (M);
 *   - each async thread: an async slice b/e (cat "weft", id its weft id
 *     in hex, as its args.id: the incarnations of an id follow each other
 *     in time, so they never nest; the same name on both ends), with its
 *     run intervals
 *     nested in it as "run" slices, and each run also an X slice on the
 *     OS thread that ran it;
 *   - each interaction: a flow with a fresh id, from an X anchor on the OS
 *     thread where it happened to an instant (n) on the other thread's
 *     async track (or an X anchor when that is an OS thread itself);
 *   - counters as C, idle periods and pauses as X, labels and notes as n,
 *     losses as process-wide instants;
 *   - a loop's phases as X on a track of their own per OS thread.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weft/model.h"

/* A JSON string: escapes quotes, backslashes, control bytes, '<' (so the
 * file can sit inside HTML) and replaces invalid UTF-8 with U+FFFD. */
void weft_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	fputc('"', f);
	while (*p) {
		unsigned c = *p;
		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
			p++;
		} else if (c < 0x20 || c == '<' || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			p++;
		} else if (c < 0x80) {
			fputc((int)c, f);
			p++;
		} else {
			/* One routine decides what is valid (utf8.c); it
			 * stops at the terminating NUL, which cannot
			 * continue a sequence. */
			uint32_t cp;
			size_t k = weft_utf8_decode((const char *)p, 4, &cp);
			if (cp == 0xFFFD)
				fputs("\\ufffd", f);
			else
				fwrite(p, 1, k, f);
			p += k;
		}
	}
	fputc('"', f);
}

/* Microseconds with nanosecond precision. */
static void jts(FILE *f, const char *key, int64_t ns)
{
	const char *sign = ns < 0 ? "-" : "";
	uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
	fprintf(f, ",\"%s\":%s%" PRIu64 ".%03" PRIu64, key, sign, a / 1000,
		a % 1000);
}

struct ctx {
	FILE *f;
	const struct weft_model *m;
	uint32_t pid;
	int first;
	uint32_t *spid, nspid; /* each stream's pid */
};

/* The pid of a stream's process (a run's processes are processes of
 * their own in the viewer), else the trace's. */
static uint32_t pid_of(const struct ctx *c, uint32_t stream)
{
	return c->spid && stream < c->nspid ? c->spid[stream] : c->pid;
}

static void begin_pid(struct ctx *c, const char *ph, uint32_t pid)
{
	fputs(c->first ? "\n" : ",\n", c->f);
	c->first = 0;
	fprintf(c->f, "{\"ph\":\"%s\",\"pid\":%u", ph, pid);
}

/* An event of `stream`'s (UINT32_MAX: of the trace). */
static void begin(struct ctx *c, const char *ph, uint32_t stream)
{
	begin_pid(c, ph, stream == UINT32_MAX ? c->pid : pid_of(c, stream));
}

static uint32_t tid_of(const struct ctx *c, uint32_t stream)
{
	uint32_t n;
	const struct weft_model_stream *s = weft_model_streams(c->m, &n);
	return stream < n && s[stream].tid ? s[stream].tid : 1000000 + stream;
}

/* The track of a stream's loop phases. */
static uint32_t phase_tid(const struct ctx *c, uint32_t stream)
{
	return 2000000000u + tid_of(c, stream) % 100000000u;
}

static int is_root(const struct weft_model *m, uint32_t t)
{
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(m, &n);
	return t >= n || (th[t].flags & WEFT_THREAD_ROOT);
}

/* When thread t's async slice ends (pending ones: at the trace end). */
static int64_t slice_end(const struct weft_model *m, uint32_t t)
{
	uint32_t n;
	const struct weft_thread *th = weft_model_threads(m, &n);
	int64_t t0, t1;
	weft_model_range(m, &t0, &t1);
	return th[t].end == WEFT_END_PENDING ? t1 : th[t].t_end;
}

/* The end of an arrow that is not where it happened: the thread read
 * (for reads) or acted upon. */
static uint32_t other_end(const struct weft_arrow *a)
{
	return a->kind == WEFT_ARROW_READ || a->kind == WEFT_ARROW_READ_FAILED
		       ? a->from
		       : a->to;
}

static int64_t clamp(int64_t t, int64_t lo, int64_t hi)
{
	return t < lo ? lo : t > hi ? hi : t;
}

int weft_export_chrome(const struct weft_model *m, FILE *f)
{
	return weft_export_chrome_only(m, f, NULL);
}

int weft_export_chrome_only(const struct weft_model *m, FILE *f,
			    const uint8_t *only)
{
	const struct weft_trace_info *in =
		weft_reader_info(weft_model_reader(m));
	struct ctx c = {f, m, in->pid ? in->pid : 1, 1};
	uint32_t nth, nrun, narr, nlab, nctr, nst, nloss;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_run *run = weft_model_runs(m, &nrun);
	const struct weft_arrow *arr = weft_model_arrows(m, &narr);
	const struct weft_label *lab = weft_model_labels(m, &nlab);
	const struct weft_counter *ctr = weft_model_counters(m, &nctr);
	const struct weft_model_stream *st = weft_model_streams(m, &nst);
	const struct weft_loss *loss = weft_model_losses(m, &nloss);
	char title[256];
	/* "ts" counts from the trace's first event, as every time weft
	 * shows; where that is on the clocks: otherData */
	int64_t o0, o1;
	weft_model_range(m, &o0, &o1);

	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", f);
	uint32_t np;
	struct weft_reader *rd = weft_model_reader(m);
	const struct weft_process *P = weft_reader_processes(rd, &np);
	if (np && (c.spid = malloc(((size_t)nst + 1) * sizeof *c.spid))) {
		c.nspid = nst;
		for (uint32_t s = 0; s < nst; s++) {
			uint32_t k = weft_reader_stream_process(rd, s);
			c.spid[s] = k < np && P[k].pid ? P[k].pid : c.pid;
		}
	}
	for (uint32_t i = 0; i < (np ? np : 1); i++) {
		if (np && (!P[i].pid || (P[i].next_image != WEFT_NO_PROCESS)))
			continue; /* (an image exec replaced: its last names it) */
		char pname[64];
		snprintf(pname, sizeof pname, "%s (pid %u)",
			 np ? P[i].comm : in->comm, np ? P[i].pid : in->pid);
		begin_pid(&c, "M", np ? P[i].pid : c.pid);
		fputs(",\"tid\":0,\"name\":\"process_name\",\"args\":{"
		      "\"name\":",
		      f);
		weft_json_string(f, pname);
		fputs("}}", f);
	}
	for (uint32_t s = 0; s < nst; s++) {
		char nm[64];
		snprintf(nm, sizeof nm, "%s (tid %u)", st[s].name, st[s].tid);
		begin(&c, "M", s);
		fprintf(f,
			",\"tid\":%u,\"name\":\"thread_name\",\"args\":{"
			"\"name\":",
			tid_of(&c, s));
		weft_json_string(f, nm);
		fputs("}}", f);
	}

	/* Labels and notes per thread (a counting sort). */
	uint32_t *lab_off = calloc((size_t)nth + 1, sizeof *lab_off);
	uint32_t *lab_idx = malloc(((size_t)nlab + 1) * sizeof *lab_idx);
	uint32_t *fill = calloc((size_t)nth + 1, sizeof *fill);
	if (!lab_off || !lab_idx || !fill) {
		free(lab_off);
		free(lab_idx);
		free(fill);
		free(c.spid);
		return -12; /* ENOMEM */
	}
	for (uint32_t i = 0; i < nlab; i++)
		if (lab[i].thread < nth)
			lab_off[lab[i].thread + 1]++;
	for (uint32_t i = 0; i < nth; i++)
		lab_off[i + 1] += lab_off[i];
	for (uint32_t i = 0; i < nlab; i++)
		if (lab[i].thread < nth)
			lab_idx[lab_off[lab[i].thread] + fill[lab[i].thread]++] =
				i;
	free(fill);

	/* Async threads with their runs nested in them. */
	for (uint32_t t = 0; t < nth; t++) {
		if ((th[t].flags & WEFT_THREAD_ROOT) || (only && !only[t]))
			continue;
		weft_model_title(m, t, title, sizeof title);
		int64_t t0 = th[t].t_create, t1 = slice_end(m, t);
		uint32_t tid = tid_of(&c, th[t].stream);
		begin(&c, "b", th[t].stream);
		fprintf(f,
			",\"tid\":%u,\"cat\":\"weft\",\"id\":\"0x%" PRIx64 "\"",
			tid, th[t].id);
		fputs(",\"name\":", f);
		weft_json_string(f, title);
		jts(f, "ts", t0 - o0);
		fprintf(f, ",\"args\":{\"id\":\"0x%" PRIx64 "\",\"kind\":",
			th[t].id);
		weft_json_string(f, weft_model_name(m, th[t].kind));
		fprintf(f, ",\"end\":\"%s\"", weft_end_name(th[t].end));
		if (th[t].message != WEFT_NONE) {
			fputs(",\"error\":", f);
			weft_json_string(f,
					 weft_model_string(m, th[t].message));
		}
		if (th[t].flags & WEFT_THREAD_SHOULD_RESOLVE)
			fputs(",\"should_resolve\":true", f);
		fputs("}}", f);
		uint32_t nr;
		const uint32_t *ri = weft_model_thread_runs(m, t, &nr);
		for (uint32_t k = 0; k < nr; k++) {
			const struct weft_run *r = &run[ri[k]];
			int64_t a = r->t0 < t0 ? t0 : r->t0;
			int64_t b = r->t1 > t1 ? t1 : r->t1;
			if (b < a)
				continue;
			begin(&c, "b", th[t].stream);
			fprintf(f,
				",\"tid\":%u,\"cat\":\"weft\",\"id\":"
				"\"0x%" PRIx64 "\","
				"\"name\":\"run\"",
				tid, th[t].id);
			jts(f, "ts", a - o0);
			fputs("}", f);
			begin(&c, "e", th[t].stream);
			fprintf(f,
				",\"tid\":%u,\"cat\":\"weft\",\"id\":"
				"\"0x%" PRIx64 "\","
				"\"name\":\"run\"",
				tid, th[t].id);
			jts(f, "ts", b - o0);
			fputs("}", f);
		}
		/* The instants on this thread (arrow ends, labels) go before
		 * its end in the file, so that one at its last instant is
		 * still inside it for readers that keep file order on ties. */
		uint32_t na;
		const uint32_t *ai = weft_model_thread_arrows(m, t, &na);
		for (uint32_t k = 0; k < na; k++) {
			const struct weft_arrow *a = &arr[ai[k]];
			if (other_end(a) != t || a->from == a->to)
				continue;
			begin(&c, "n", th[t].stream);
			fprintf(f,
				",\"tid\":%u,\"cat\":\"weft\",\"id\":"
				"\"0x%" PRIx64 "\","
				"\"name\":",
				tid, th[t].id);
			weft_json_string(f, weft_arrow_name(a->kind));
			jts(f, "ts", clamp(a->t, t0, t1) - o0);
			fprintf(f, ",\"bind_id\":\"0x%x\",\"flow_in\":true}",
				ai[k] + 1);
		}
		for (uint32_t k = lab_off[t]; k < lab_off[t + 1]; k++) {
			const struct weft_label *l = &lab[lab_idx[k]];
			begin(&c, "n", th[t].stream);
			fprintf(f,
				",\"tid\":%u,\"cat\":\"weft\",\"id\":"
				"\"0x%" PRIx64 "\","
				"\"name\":\"%s\"",
				tid, th[t].id,
				l->kind == WEFT_EV_NOTE ? "note" : "label");
			jts(f, "ts", clamp(l->t, t0, t1) - o0);
			fputs(",\"args\":{\"text\":", f);
			weft_json_string(f, weft_model_string(m, l->text));
			fputs("}}", f);
		}
		begin(&c, "e", th[t].stream);
		fprintf(f,
			",\"tid\":%u,\"cat\":\"weft\",\"id\":\"0x%" PRIx64 "\"",
			tid, th[t].id);
		fputs(",\"name\":", f);
		weft_json_string(f, title);
		jts(f, "ts", t1 - o0);
		fputs("}", f);
	}
	free(lab_off);
	free(lab_idx);

	/* What each OS thread ran. */
	for (uint32_t i = 0; i < nrun; i++) {
		if (only && run[i].thread < nth && !only[run[i].thread])
			continue;
		weft_model_title(m, run[i].thread, title, sizeof title);
		begin(&c, "X", run[i].stream);
		fprintf(f, ",\"tid\":%u,\"cat\":\"weft\",\"name\":",
			tid_of(&c, run[i].stream));
		weft_json_string(f, title);
		jts(f, "ts", run[i].t0 - o0);
		jts(f, "dur", run[i].t1 - run[i].t0);
		fputs("}", f);
	}

	/* Interactions: a fresh flow id per arrow, from an anchor on the OS
	 * thread where it happened; the other end is on the async track
	 * (written above), or on an OS thread track for an OS thread. */
	for (uint32_t i = 0; i < narr; i++) {
		const struct weft_arrow *a = &arr[i];
		uint32_t flow = i + 1, other = other_end(a);
		const char *what = weft_arrow_name(a->kind);
		if (a->from == a->to)
			continue; /* a thread acting on itself: no arrow */
		if (only && ((!is_root(m, a->from) && !only[a->from]) ||
			     (!is_root(m, a->to) && !only[a->to])))
			continue;
		begin(&c, "X", a->stream);
		fprintf(f, ",\"tid\":%u,\"cat\":\"weft.flow\",\"name\":",
			tid_of(&c, a->stream));
		weft_json_string(f, what);
		jts(f, "ts", a->t - o0);
		fprintf(f, ",\"dur\":0,\"bind_id\":\"0x%x\",\"flow_out\":true}",
			flow);
		if (is_root(m, other)) {
			begin(&c, "X", th[other].stream);
			fprintf(f,
				",\"tid\":%u,\"cat\":\"weft.flow\",\"name\":",
				tid_of(&c, th[other].stream));
			weft_json_string(f, what);
			jts(f, "ts", a->t - o0);
			fprintf(f,
				",\"dur\":0,\"bind_id\":\"0x%x\","
				"\"flow_in\":true}",
				flow);
		}
	}

	/* Counters: each in its process (a counter track per pid). */
	uint32_t nmp;
	const struct weft_model_process *mp = weft_model_processes(m, &nmp);
	for (uint32_t i = 0; i < nctr; i++)
		for (uint32_t k = 0; k < ctr[i].nsamples; k++) {
			uint32_t q = ctr[i].process;
			begin_pid(&c, "C",
				  c.spid && q < nmp && mp[q].pid ? mp[q].pid
								 : c.pid);
			fputs(",\"tid\":0,\"name\":", f);
			weft_json_string(f, weft_model_name(m, ctr[i].name));
			jts(f, "ts", ctr[i].samples[k].t - o0);
			fprintf(f, ",\"args\":{\"value\":%" PRId64 "}}",
				ctr[i].samples[k].value);
		}

	/* Idle periods and pauses on the OS thread tracks. */
	static const int kinds[2] = {WEFT_INTERVAL_IDLE, WEFT_INTERVAL_PAUSE};
	for (int k = 0; k < 2; k++) {
		uint32_t n;
		const struct weft_interval *v =
			weft_model_intervals(m, kinds[k], &n);
		for (uint32_t i = 0; i < n; i++) {
			char nm[300];
			snprintf(nm, sizeof nm, "%s: %s", k ? "pause" : "idle",
				 weft_model_name(m, v[i].name));
			begin(&c, "X", v[i].stream);
			fprintf(f, ",\"tid\":%u,\"cat\":\"weft.%s\",\"name\":",
				tid_of(&c, v[i].stream), k ? "pause" : "idle");
			weft_json_string(f, nm);
			jts(f, "ts", v[i].t0 - o0);
			jts(f, "dur", v[i].t1 - v[i].t0);
			fputs("}", f);
		}
	}

	/* A loop's phases, on a track of their own next to its OS thread:
	 * a phase may begin or end inside a run of the OS thread's track,
	 * which a track's slices must not (they must nest). */
	uint32_t nph;
	const struct weft_interval *ph =
		weft_model_intervals(m, WEFT_INTERVAL_PHASE, &nph);
	uint8_t *named = calloc((size_t)nst + 1, 1);
	for (uint32_t i = 0; i < nph; i++) {
		uint32_t s = ph[i].stream;
		if (named && s < nst && !named[s]) {
			char nm[80];
			snprintf(nm, sizeof nm, "loop phases, %s (tid %u)",
				 st[s].name, st[s].tid);
			begin(&c, "M", s);
			fprintf(f,
				",\"tid\":%u,\"name\":\"thread_name\",\"args\":"
				"{"
				"\"name\":",
				phase_tid(&c, s));
			weft_json_string(f, nm);
			fputs("}}", f);
			named[s] = 1;
		}
		begin(&c, "X", s);
		fprintf(f, ",\"tid\":%u,\"cat\":\"weft.phase\",\"name\":",
			phase_tid(&c, s));
		weft_json_string(f, weft_model_name(m, ph[i].name));
		jts(f, "ts", ph[i].t0 - o0);
		jts(f, "dur", ph[i].t1 - ph[i].t0);
		fputs("}", f);
	}
	free(named);

	for (uint32_t i = 0; i < nloss; i++) {
		begin(&c, "i", loss[i].stream);
		fprintf(f, ",\"tid\":%u,\"s\":\"p\",\"name\":\"events lost\"",
			tid_of(&c, loss[i].stream));
		jts(f, "ts", loss[i].t - o0);
		fprintf(f,
			",\"args\":{\"packets\":%" PRIu64 ",\"events\":%" PRIu64
			"}}",
			loss[i].packets, loss[i].events);
	}
	/* the first event (ts 0) on the clocks: ns since the epoch
	 * (CLOCK_REALTIME, when the trace knows it) and on the trace's own
	 * axis (ns since its earliest ring's start, as weft's library and
	 * `weft dump --cycles`'s rings count) */
	fprintf(f,
		"\n],\"otherData\":{\"weft_origin\":\"the trace's first "
		"event\",\"weft_origin_axis_ns\":%" PRId64,
		o0);
	if (in->origin_real_ns > 0)
		fprintf(f, ",\"weft_origin_realtime_ns\":%" PRId64,
			in->origin_real_ns + o0);
	fputs("}}\n", f);
	free(c.spid);
	return ferror(f) ? -5 /* EIO */ : 0;
}
