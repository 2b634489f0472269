/* SPDX-License-Identifier: MIT */
/* cmd-export.c - `weft export [--format chrome] TRACE... -o OUT.json
 * [--select ID|LABEL [--depth N|all]]`. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "otlp.h"
#include "pb.h"
#include "perfetto.h"
#include "weft-tools.h"
#include "weft/model.h"

/* --otlp FILE: each message after its length (a varint), as protobuf's
 * writeDelimitedTo() writes them. */
static int write_delimited(void *ctx, const uint8_t *msg, size_t len)
{
	FILE *f = ctx;
	uint8_t pre[10];
	size_t k = 0;
	for (uint64_t v = len; v >= 0x80; v >>= 7)
		pre[k++] = (uint8_t)(v | 0x80);
	pre[k] = (uint8_t)(len >> (7 * k));
	k++;
	return fwrite(pre, 1, k, f) == k && fwrite(msg, 1, len, f) == len
		       ? 0
		       : -5 /* EIO */;
}

static const char dropped_says[] = "left out of spans too big for one message "
				   "(counted in their "
				   "dropped_links_count and "
				   "dropped_events_count)";

static int export_otlp(const struct weft_model *m, const char *out,
		       const struct otlp_opts *o)
{
	FILE *f = strcmp(out, "-") ? fopen(out, "wb") : stdout;
	if (!f)
		return error_errno("cannot create '%s'", out);
	struct otlp_stats st;
	int err = otlp_encode(m, o, write_delimited, f, &st);
	if ((f != stdout ? fclose(f) : fflush(f)) != 0 && !err)
		err = -5;
	if (err == -E2BIG)
		return error("cannot write '%s': a span's attributes alone "
			     "exceed --message-limit %zu",
			     out, o->message_limit);
	if (err)
		return error("cannot write '%s'%s", out,
			     err == -ENOMEM ? ": out of memory" : "");
	if (st.links_dropped || st.events_dropped)
		warning("%" PRIu64 " links and %" PRIu64 " events %s",
			st.links_dropped, st.events_dropped, dropped_says);
	return 0;
}

int cmd_export(int argc, char **argv)
{
	const char *out = NULL, *sel = NULL, *otlp = NULL, *service = NULL;
	int budget = OTLP_SPAN_BUDGET, limit = (int)OTLP_MESSAGE_LIMIT;
	int format = 0, depth = WEFT_CHAIN_ALL;
	struct traces tr = {0};
	const struct opt opts[] = {
		{"--format", NULL, "FORMAT",
		 "chrome (the default): Chrome trace-event JSON; perfetto: "
		 "Perfetto's native protobuf (a .pftrace, a fraction of the "
		 "JSON's bytes)",
		 OPT_CHOICE, &format, .choices = "chrome|perfetto"},
		{"-o", NULL, "OUT", "the file to write (- for standard output)",
		 OPT_STRING, &out},
		{"--select", NULL, "ID|LABEL",
		 "only this thread's causal chain (as weft render --select and "
		 "the viewers show it)",
		 OPT_STRING, &sel},
		{"--depth", NULL, "N|all",
		 "with --select: the chain to N arrows from the thread "
		 "(default "
		 "all)",
		 OPT_FUNC, .fn = chain_depth_opt, .ctx = &depth},
		{"--otlp", NULL, "FILE",
		 "write OpenTelemetry spans instead (OTLP/protobuf "
		 "ExportTraceServiceRequest messages, each after its length "
		 "as a varint; - for standard output)",
		 OPT_STRING, &otlp},
		{"--span-budget", NULL, "N",
		 "with --otlp: the most spans a trace may hold (default "
		 "10000)",
		 OPT_INT, &budget, .min = 1, .max = 100000000},
		{"--message-limit", NULL, "BYTES",
		 "with --otlp: the most bytes a message may take (default "
		 "4194304, 4 MiB)",
		 OPT_INT, &limit, .min = OTLP_MESSAGE_MIN, .max = 1 << 30},
		{"--service", NULL, "NAME",
		 "with --otlp: the spans' service.name (default: each "
		 "process's command name)",
		 OPT_STRING, &service},
		TRACES_OPT(&tr),
		OPT_END,
	};
	const struct cmd_usage u = {"export",
				    "[OPTIONS] TRACE... -o OUT.json|-\n"
				    "[OPTIONS] TRACE... --otlp FILE|-",
				    "Exports the trace for other viewers: "
				    "Chrome trace-event JSON, "
				    "which Perfetto's UI and chrome://tracing "
				    "open (async threads "
				    "as tracks, their runs as slices, arrows "
				    "as flows, counters).",
				    opts, 0};
	int rc = parse_traces(&u, argc, argv, &tr);
	if (rc >= 0)
		return rc;
	if (otlp && (out || sel)) {
		traces_release(&tr);
		return opts_error(&u, "--otlp FILE writes every thread: "
				      "it takes neither -o nor --select");
	}
	if (!out && !otlp) {
		traces_release(&tr);
		return opts_error(&u, "-o OUT is required: the file to write "
				      "(- for standard output)");
	}
	const char *path = traces_name(&tr);
	struct weft_reader *r;
	struct weft_model *m = traces_model(&tr, &r);
	traces_release(&tr);
	if (!m)
		return 1;
	if (otlp) {
		struct otlp_opts o = {(uint32_t)budget, (size_t)limit, service};
		int err = export_otlp(m, otlp, &o);
		weft_model_free(m);
		rc = report_losses(r, path);
		weft_reader_close(r);
		return err ? 1 : rc;
	}
	/* --select: only a thread's causal chain (weft_chain(), as the
	 * viewers and weft render show it) */
	struct weft_chain ch = {0};
	if (sel) {
		uint32_t t = find_thread(m, sel, "export");
		if (t == WEFT_NONE || weft_chain(m, t, depth, &ch)) {
			if (t != WEFT_NONE)
				error("out of memory");
			weft_model_free(m);
			weft_reader_close(r);
			return 1;
		}
	}
	FILE *f = strcmp(out, "-") ? fopen(out, "wb") : stdout;
	if (!f) {
		error_errno("cannot create '%s'", out);
		weft_chain_release(&ch);
		weft_model_free(m);
		weft_reader_close(r);
		return 1;
	}
	int err = format == 1
			  ? perfetto_write(m, f, sel ? ch.in : NULL)
			  : weft_export_chrome_only(m, f, sel ? ch.in : NULL);
	weft_chain_release(&ch);
	if ((f != stdout ? fclose(f) : fflush(f)) != 0 || err) {
		error("cannot write '%s'", out);
		err = 1;
	}
	weft_model_free(m);
	rc = report_losses(r, path);
	weft_reader_close(r);
	return err ? 1 : rc;
}
