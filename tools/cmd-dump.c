/* SPDX-License-Identifier: MIT */
/* cmd-dump.c - `weft dump`: one line per event, in time order. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "keep.h"
#include "weft-tools.h"

/* Times count from the trace's first event (the first printed), as
 * every time weft shows and accepts (the ruler, --start, why). */
static void print_event(struct weft_reader *r, const struct weft_event *ev,
			int cycles, int actor, int64_t origin)
{
	const struct weft_trace_info *in = weft_reader_info(r);
	char t[40];
	if (cycles && (ev->flags & WEFT_EVF_MADE))
		fputs("-", stdout); /* no ring's clock: no ticks to show */
	else if (cycles)
		printf("%llu", (unsigned long long)ev->ts);
	else
		fputs(fmt_ns_raw(t, sizeof t, ev->ns - origin), stdout);
	uint32_t tid = ev->stream < in->nstreams ? in->streams[ev->stream].tid
						 : 0;
	printf(" #%u/%u %s", ev->stream, tid, weft_event_name(ev->type));
	if (ev->type == WEFT_EV_LOSS) {
		printf(" packets=%lld events=%llu\n", (long long)ev->value,
		       (unsigned long long)ev->id);
		return;
	}
	int nid = 0, nname = 0, nval = 0, ft;
	const char *f;
	for (unsigned i = 0; (f = weft_event_field(ev->type, i, &ft)); i++) {
		switch (ft) {
		case WEFT_FT_ID:
			printf(" %s=0x%llx", f,
			       (unsigned long long)(nid++ ? ev->id2 : ev->id));
			break;
		case WEFT_FT_NAME:
			printf(" %s=\"", f);
			const char *n = weft_reader_name(r, nname++ ? ev->name2
								    : ev->name);
			print_escaped(stdout, n, strlen(n));
			putchar('"');
			break;
		case WEFT_FT_I64:
		case WEFT_FT_U64: {
			int64_t v = nval == 0	? ev->value
				    : nval == 1 ? ev->value2
						: ev->value3;
			nval++;
			if (ft == WEFT_FT_I64)
				printf(" %s=%lld", f, (long long)v);
			else
				printf(" %s=%llu", f, (unsigned long long)v);
			break;
		}
		case WEFT_FT_TRUNC:
			printf(" %s=%d", f, !!(ev->flags & WEFT_EVF_TRUNCATED));
			break;
		case WEFT_FT_STR:
			printf(" %s=\"", f);
			print_escaped(stdout, ev->text, ev->text_len);
			putchar('"');
			break;
		}
	}
	if (actor)
		printf(" by=0x%llx", (unsigned long long)ev->actor);
	if (ev->flags & WEFT_EVF_CARRIED)
		fputs(" carried=1", stdout); /* (a kept chunk read alone) */
	putchar('\n');
}

/* Whether the event names the async thread id: as its actor or in an ID
 * field (what a kept chunk's index by async thread lists). */
static int names_thread(const struct weft_event *ev, uint64_t id)
{
	return ev->type != WEFT_EV_LOSS &&
	       (ev->actor == id || ev->id == id || ev->id2 == id);
}

struct dump_args {
	int cycles, actor;
	int first;	/* no event yet */
	int64_t origin; /* the first event's time: times count from it */
};

static void dump_one(struct weft_reader *r, const struct weft_event *ev,
		     void *arg)
{
	struct dump_args *a = arg;
	if (a->first)
		a->origin = ev->ns;
	a->first = 0;
	print_event(r, ev, a->cycles, a->actor, a->origin);
}

int cmd_dump(int argc, char **argv)
{
	int cycles = 0, follow = 0, no_actor = 0;
	const char *thread = NULL;
	struct traces tr = {0};
	const struct opt opts[] = {
		{"--follow", "-f", NULL,
		 "go on printing events as the writer "
		 "commits them, until it stops",
		 OPT_FLAG, &follow},
		{"--cycles", NULL, NULL,
		 "raw clock ticks of each event's own "
		 "ring instead of seconds since the trace's first event (- for "
		 "what a merge of traces made)",
		 OPT_FLAG, &cycles},
		{"--no-actor", NULL, NULL,
		 "leave out the acting async thread "
		 "(by=)",
		 OPT_FLAG, &no_actor},
		{"--thread", NULL, "ID",
		 "only the events that name the async thread ID (0x200): as "
		 "their actor or in a field; of a kept directory, only the "
		 "chunks whose index names it are read (docs/keep.md)",
		 OPT_STRING, &thread},
		TRACES_OPT(&tr),
		OPT_END,
	};
	const struct cmd_usage u = {"dump", "[OPTIONS] TRACE...",
				    "Prints one line per event in time order "
				    "across OS threads: "
				    "time, stream and OS thread id, event, its "
				    "fields by name, and "
				    "the acting async thread.  Texts are "
				    "escaped.",
				    opts, 0};
	int rc = parse_traces(&u, argc, argv, &tr);
	if (rc >= 0)
		return rc;
	int actor = !no_actor;
	const char *path = traces_name(&tr);
	unsigned long long tid = 0;
	if (thread) {
		char *end;
		errno = 0;
		tid = strtoull(thread, &end, 0);
		if (errno || end == thread || *end || !tid || follow) {
			traces_release(&tr);
			error(follow ? "--thread: not with --follow"
				     : "--thread: an async thread's id "
				       "(0x200), "
				       "not '%s'",
			      thread);
			return 2;
		}
	}
	if (follow && tr.n == 1 && keep_is_dir(tr.path[0])) {
		/* a kept directory grows by chunks (keep.c) */
		struct dump_args da = {cycles, actor, 1, 0};
		char dir[4096];
		snprintf(dir, sizeof dir, "%s", tr.path[0]);
		traces_release(&tr);
		return keep_follow(dir, dump_one, &da);
	}
	int kept = 0;
	for (unsigned i = 0; tid && i < tr.n; i++)
		kept |= keep_is_dir(tr.path[i]);
	struct weft_reader *r =
		tid ? traces_open_thread(&tr, tid)
		    : traces_open(&tr, follow ? WEFT_READ_FOLLOW : 0);
	traces_release(&tr);
	if (!r)
		return 1;
	/* events printed on the terminal say how far it got; progress
	 * would only break their lines (and a followed ring has no end) */
	if (follow || isatty(1))
		weft_reader_on_progress(r, NULL, NULL);
	struct weft_event ev;
	int64_t origin = 0;
	int first = 1;
	while ((rc = weft_reader_next(r, &ev)) != WEFT_EEOF) {
		if (rc == WEFT_EAGAIN) {
			fflush(stdout);
			usleep(50000);
			continue;
		}
		if (first)
			origin = ev.ns;
		first = 0;
		if (!tid || names_thread(&ev, tid))
			print_event(r, &ev, cycles, actor, origin);
	}
	if (fflush(stdout) != 0) {
		weft_reader_close(r);
		return error("cannot write the dump");
	}
	if (kept)
		warning("'%s': of its kept directories, only the chunks whose "
			"events name 0x%llx were read: the packets of the "
			"others count as lost",
			path, tid);
	rc = report_losses(r, path);
	weft_reader_close(r);
	return rc;
}
