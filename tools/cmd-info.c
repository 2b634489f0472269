/* SPDX-License-Identifier: MIT */
/* cmd-info.c - `weft info`: what a trace holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/stat.h>

#include "flight.h"
#include "keep.h"
#include "weft-tools.h"
#include "common/grow.h"

static const char *writer_str(int w)
{
	switch (w) {
	case WEFT_WRITER_LIVE:
		return "live (a process is recording)";
	case WEFT_WRITER_STOPPED:
		return "stopped cleanly";
	case WEFT_WRITER_GONE:
		return "gone without stopping (killed or crashed, or a copy "
		       "of a live ring)";
	}
	return "unknown";
}

/* Each process of a run, indented under its parent. */
static void print_processes(struct weft_reader *r, int64_t origin)
{
	uint32_t n, nh;
	const struct weft_process *p = weft_reader_processes(r, &n);
	const struct weft_host *h = weft_reader_hosts(r, &nh);
	uint32_t rings = 0, unread = 0;
	for (uint32_t i = 0; i < n; i++) {
		rings += p[i].ring != NULL;
		unread += p[i].ring_unread != NULL;
	}
	printf("processes: %u (%u recorded", n, rings);
	if (unread) /* (each one below, and on standard error) */
		printf(", %u of them not read", unread);
	printf(")\n");
	/* depth first: each process right under its parent, its children
	 * in the order they started (the table's) */
	uint32_t *kid = malloc(((size_t)n + 1) * sizeof *kid);
	uint32_t *next = malloc(((size_t)n + 1) * sizeof *next);
	uint32_t *order = malloc(((size_t)n + 1) * sizeof *order);
	uint32_t *stack = malloc(((size_t)n + 1) * sizeof *stack);
	if (!kid || !next || !order || !stack)
		die("out of memory");
	for (uint32_t i = 0; i < n; i++)
		kid[i] = next[i] = WEFT_NO_PROCESS;
	for (uint32_t i = n; i-- > 0;) {
		uint32_t q = p[i].parent;
		if (q < n && q != i) {
			next[i] = kid[q];
			kid[q] = i;
		}
	}
	uint32_t no = 0;
	for (uint32_t root = 0; root < n; root++) {
		if (p[root].parent < n && p[root].parent != root)
			continue;
		uint32_t sp = 0;
		stack[sp++] = root;
		while (sp && no < n) {
			uint32_t x = stack[--sp];
			order[no++] = x;
			/* (pushed last first, so they come out in order) */
			uint32_t c0 = sp;
			for (uint32_t c = kid[x];
			     c != WEFT_NO_PROCESS && sp < n; c = next[c])
				stack[sp++] = c;
			for (uint32_t a = c0, b = sp; a + 1 < b; a++, b--) {
				uint32_t t = stack[a];
				stack[a] = stack[b - 1];
				stack[b - 1] = t;
			}
		}
	}
	/* (a parent table that loops, from a damaged manifest: what no
	 * root reaches, after) */
	uint8_t *seen = calloc((size_t)n + 1, 1);
	if (!seen)
		die("out of memory");
	for (uint32_t k = 0; k < no; k++)
		seen[order[k]] = 1;
	for (uint32_t i = 0; i < n && no < n; i++)
		if (!seen[i])
			order[no++] = i;
	free(seen);
	free(kid);
	free(next);
	free(stack);
	for (uint32_t k = 0; k < no; k++) {
		uint32_t i = order[k];
		int depth = 0;
		for (uint32_t q = p[i].parent;
		     q != WEFT_NO_PROCESS && depth < 8; q = p[q].parent)
			depth++;
		char e[64], t0[40], t1[40];
		printf("  %*s%u%s %s: %s", 2 * depth, "", p[i].pid,
		       p[i].image ? " (exec)" : "", p[i].comm,
		       process_end(&p[i], e, sizeof e));
		printf(", %s", fmt_ns(t0, sizeof t0, p[i].t_start - origin));
		if (p[i].t_end != INT64_MAX)
			printf(" .. %s",
			       fmt_ns(t1, sizeof t1, p[i].t_end - origin));
		printf(" s");
		if (nh > 1)
			printf(", on %s", h[p[i].host].name[0]
						  ? h[p[i].host].name
						  : h[p[i].host].boot_id);
		if (p[i].ring_unread)
			printf(", its ring %s not read: %s", p[i].ring,
			       p[i].ring_unread);
		else if (p[i].ring)
			printf(", %u OS threads in %s", p[i].nstreams,
			       p[i].ring);
		putchar('\n');
		if (p[i].argc) {
			printf("  %*s  ", 2 * depth, "");
			for (uint32_t a = 0; a < p[i].argc; a++) {
				if (a)
					putchar(' ');
				print_escaped(stdout, p[i].argv[a],
					      strlen(p[i].argv[a]));
			}
			putchar('\n');
		}
	}
	free(order);
}

/* Each machine, and how its clock was placed on the trace's axis. */
static void print_hosts(struct weft_reader *r)
{
	uint32_t nh;
	const struct weft_host *h = weft_reader_hosts(r, &nh);
	if (nh < 2)
		return;
	printf("hosts:     %u\n", nh);
	for (uint32_t i = 0; i < nh; i++) {
		char off[40], unc[40];
		printf("  %s", h[i].name[0] ? h[i].name : "?");
		if (h[i].boot_id[0])
			printf(" (boot %.8s)", h[i].boot_id);
		fmt_ns(off, sizeof off, h[i].offset_ns);
		switch (h[i].method) {
		case WEFT_CLOCK_REFERENCE:
			printf(": the reference\n");
			break;
		case WEFT_CLOCK_SHARED:
			printf(": the same clock\n");
			break;
		case WEFT_CLOCK_REALTIME:
			printf(": %s%s s, by the realtime clocks: only as "
			       "accurate "
			       "as NTP keeps them%s\n",
			       h[i].offset_ns >= 0 ? "+" : "", off,
			       h[i].messages ? " (no offset fits every "
					       "message: "
					       "clocks drifting?)"
					     : "");
			break;
		case WEFT_CLOCK_MESSAGES:
			if (h[i].uncertainty_ns >= 0)
				printf(": %s%s s, bounded by %llu messages to "
				       "+-%s\n",
				       h[i].offset_ns >= 0 ? "+" : "", off,
				       (unsigned long long)h[i].messages,
				       fmt_time(unc, sizeof unc,
						h[i].uncertainty_ns));
			else
				printf(": %s%s s, by the realtime clocks, "
				       "within the bound of %llu messages one "
				       "way\n",
				       h[i].offset_ns >= 0 ? "+" : "", off,
				       (unsigned long long)h[i].messages);
			break;
		case WEFT_CLOCK_FORCED:
			printf(": %s%s s, forced (--offset)\n",
			       h[i].offset_ns >= 0 ? "+" : "", off);
			break;
		}
	}
}

#define KEPT_GAPS 10

int cmd_info(int argc, char **argv)
{
	struct traces tr = {0};
	const struct opt opts[] = {TRACES_OPT(&tr), OPT_END};
	const struct cmd_usage u = {"info", "[OPTIONS] TRACE...",
				    "Describes a trace: its header, clock, "
				    "streams (OS threads), "
				    "event counts by type, losses and time "
				    "range; of a run, its "
				    "process tree and its machines.",
				    opts, 0};
	int rc = parse_traces(&u, argc, argv, &tr);
	if (rc >= 0)
		return rc;
	/* a directory of flight snapshots (weft watch): its log */
	char man[4200];
	struct stat sb;
	snprintf(man, sizeof man, "%s/manifest", tr.path[0]);
	if (tr.n == 1 && stat(man, &sb) < 0 &&
	    flight_info(tr.path[0], stdout) == 0) {
		traces_release(&tr);
		return 0;
	}
	const char *path = traces_name(&tr);
	/* a kept directory (weft keep): its chunks and deletions too */
	char kept[4096] = "";
	if (tr.n == 1 && keep_is_dir(tr.path[0]))
		snprintf(kept, sizeof kept, "%s", tr.path[0]);
	struct weft_reader *r = traces_open(&tr, 0);
	traces_release(&tr);
	if (!r)
		return 1;
	struct weft_event ev;
	/* a kept directory: where each loss is, per OS thread, and the
	 * async thread running there (the first KEPT_GAPS said) */
	struct gap {
		uint32_t stream;
		uint64_t thread, packets;
		int64_t from, to;
	} gaps[KEPT_GAPS];
	unsigned ngaps = 0;
	uint64_t allgaps = 0;
	int64_t *last = NULL;
	uint32_t nlast = 0;
	int64_t origin = 0; /* the first event's: times count from it */
	int first = 1;
	/* the notes of a flight snapshot (weft watch): which trigger
	 * fired, when, where the window begins */
	char flight[4][600];
	unsigned nflight = 0;
	while (weft_reader_next(r, &ev) == 0) {
		if (first)
			origin = ev.ns;
		first = 0;
		if (ev.type == WEFT_EV_NOTE && ev.text && nflight < 4 &&
		    !strncmp(ev.text, "weft flight: ", 13))
			snprintf(flight[nflight++], sizeof flight[0], "%s",
				 ev.text + 13);
		/* (the carried threads of a directory whose oldest chunks
		 * were deleted are not the program's events) */
		if (!kept[0] || (ev.flags & (WEFT_EVF_MADE | WEFT_EVF_CARRIED)))
			continue;
		if (ev.stream >= nlast) {
			uint32_t was = nlast;
			if (WEFT_GROW32(last, nlast, (size_t)ev.stream + 1))
				continue;
			for (uint32_t i = was; i < nlast; i++)
				last[i] = INT64_MIN;
		}
		if (ev.type == WEFT_EV_LOSS) {
			allgaps++;
			if (ngaps < KEPT_GAPS)
				gaps[ngaps++] = (struct gap){
					ev.stream, ev.actor, (uint64_t)ev.value,
					last[ev.stream], ev.ns};
		}
		last[ev.stream] = ev.ns;
	}
	free(last);
	const struct weft_trace_info *in = weft_reader_info(r);
	char t0[40], t1[40], dur[40];
	time_t secs = (time_t)(in->origin_real_ns / 1000000000);
	struct tm tm;
	char when[64] = "?";
	if (gmtime_r(&secs, &tm))
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);

	printf("trace:     %s\n", path);
	printf("format:    weft ring %u.%u, uuid %s\n", in->major, in->minor,
	       in->uuid_str);
	printf("program:   %s (pid %u, parent %u)\n", in->comm, in->pid,
	       in->ppid);
	printf("writer:    %s\n", writer_str(in->writer));
	printf("ring:      %llu bytes, %u packets of %u bytes, %s mode, %llu "
	       "packets in use\n",
	       (unsigned long long)in->file_size, in->npackets, in->packet_size,
	       in->mode ? "discard" : "overwrite",
	       (unsigned long long)in->packets_used);
	printf("clock:     %s, %llu Hz; started %s\n",
	       in->clock_kind == 1   ? "TSC"
	       : in->clock_kind == 3 ? "manual (set by the program)"
				     : "CLOCK_MONOTONIC",
	       (unsigned long long)in->freq, when);
	if (in->events) {
		int64_t a = weft_reader_ns(r, in->first_ts) - origin;
		int64_t b = weft_reader_ns(r, in->last_ts) - origin;
		printf("time:      %s .. %s s (%s)\n", fmt_ns(t0, sizeof t0, a),
		       fmt_ns(t1, sizeof t1, b),
		       fmt_time(dur, sizeof dur, b - a));
	}
	for (unsigned i = 0; i < nflight; i++)
		printf("flight:    %s\n", flight[i]);
	uint32_t np;
	const struct weft_process *pr = weft_reader_processes(r, &np);
	if (np > 1 || pr[0].ring)
		print_processes(r, origin);
	print_hosts(r);
	printf("events:    %llu\n", (unsigned long long)in->events);
	for (unsigned t = 0; t < WEFT_EV_COUNT; t++)
		if (in->counts[t])
			printf("  %-16s %llu\n", weft_event_name(t),
			       (unsigned long long)in->counts[t]);
	printf("streams:   %u\n", in->nstreams);
	for (uint32_t i = 0; i < in->nstreams; i++) {
		const struct weft_stream_info *s = &in->streams[i];
		printf("  #%-3u tid %-7u %-16s %10llu events", s->index, s->tid,
		       s->name, (unsigned long long)s->events);
		uint32_t sp = weft_reader_stream_process(r, i);
		if (np > 1 && sp < np)
			printf("  pid %u", pr[sp].pid);
		const struct weft_losses *l = &s->losses;
		if (l->packets_lost || l->packets_torn || l->packets_corrupt ||
		    l->events_discarded || l->events_nested)
			printf("  lost: %llu packets, %llu events",
			       (unsigned long long)(l->packets_lost +
						    l->packets_torn +
						    l->packets_corrupt),
			       (unsigned long long)(l->events_discarded +
						    l->events_nested));
		putchar('\n');
	}
	printf("names:     %u\n", in->nnames ? in->nnames - 1 : 0);
	const struct weft_losses *l = &in->losses;
	printf("losses:    %llu packets lost, %llu torn, %llu corrupt; %llu "
	       "events discarded, %llu from signal handlers, %llu with no "
	       "stream; %llu texts truncated; %llu names not interned\n",
	       (unsigned long long)l->packets_lost,
	       (unsigned long long)l->packets_torn,
	       (unsigned long long)l->packets_corrupt,
	       (unsigned long long)l->events_discarded,
	       (unsigned long long)l->events_nested,
	       (unsigned long long)in->lost_no_stream,
	       (unsigned long long)l->texts_truncated,
	       (unsigned long long)in->lost_names);
	int krc = 0;
	if (kept[0]) {
		uint64_t deleted = 0;
		krc = keep_describe(kept, stdout, &deleted);
		uint64_t lost = l->packets_lost;
		printf("not kept:   %llu packets (overwritten before they were "
		       "kept, or before the keeper started)\n",
		       (unsigned long long)(lost > deleted ? lost - deleted
							   : 0));
		if (allgaps)
			printf("gaps:       %llu (each OS thread's events "
			       "missing between two times)\n",
			       (unsigned long long)allgaps);
		for (unsigned i = 0; i < ngaps; i++) {
			const struct gap *g = &gaps[i];
			char a[40], b[40];
			const char *tid = "?";
			char tb[16];
			if (g->stream < in->nstreams) {
				snprintf(tb, sizeof tb, "%u",
					 in->streams[g->stream].tid);
				tid = tb;
			}
			printf("  thread 0x%llx (OS thread %s) has no events "
			       "between %s and %s s (%llu packets lost)\n",
			       (unsigned long long)g->thread, tid,
			       g->from == INT64_MIN
				       ? "its start"
				       : fmt_ns(a, sizeof a, g->from - origin),
			       fmt_ns(b, sizeof b, g->to - origin),
			       (unsigned long long)g->packets);
		}
		if (allgaps > ngaps)
			printf("  ... and %llu more\n",
			       (unsigned long long)(allgaps - ngaps));
	}
	rc = report_losses(r, path);
	weft_reader_close(r);
	return rc ? rc : krc;
}
