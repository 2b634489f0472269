/* SPDX-License-Identifier: MIT */
/* cmd-info.c - `weft info`: what a trace holds. */
#include <string.h>
#include <time.h>

#include "weft-tools.h"

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

int cmd_info(int argc, char **argv)
{
	if (argc != 2 || (argv[1][0] == '-' && argv[1][1]))
		return usage("weft info FILE|-");
	const char *path = argv[1];
	struct weft_reader *r = open_trace(path, 0);
	if (!r)
		return 1;
	struct weft_event ev;
	while (weft_reader_next(r, &ev) == 0)
		;
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
	       (unsigned long long)in->file_size, in->npackets,
	       in->packet_size, in->mode ? "discard" : "overwrite",
	       (unsigned long long)in->packets_used);
	printf("clock:     %s, %llu Hz; started %s\n",
	       in->clock_kind == 1   ? "TSC"
	       : in->clock_kind == 3 ? "manual (set by the program)"
				     : "CLOCK_MONOTONIC",
	       (unsigned long long)in->freq, when);
	if (in->events) {
		int64_t a = weft_reader_ns(r, in->first_ts);
		int64_t b = weft_reader_ns(r, in->last_ts);
		printf("time:      %s .. %s s (%s s)\n", fmt_ns(t0, sizeof t0, a),
		       fmt_ns(t1, sizeof t1, b),
		       fmt_ns(dur, sizeof dur, b - a));
	}
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
	int rc = report_losses(r, path);
	weft_reader_close(r);
	return rc;
}
