/* SPDX-License-Identifier: MIT */
/* weft-tools.h - shared by the `weft` command and its subcommands. */
#ifndef WEFT_TOOLS_H
#define WEFT_TOOLS_H

#include <stdio.h>

#include "options.h"
#include "weft/read.h"

/* Each subcommand: weft NAME ARGS... -> cmd_NAME(argc, argv) with argv[0]
 * = NAME.  Returns the exit status: 0 ok, 1 data error, 2 usage error. */
#ifdef WEFT_HAVE_CAIRO
#define WEFT__CAIRO_COMMANDS(X)                                                \
	X(view, "look at a trace (GTK), following it while it grows")          \
	X(render, "draw the trace to PNG or SVG, with no display")
#else
#define WEFT__CAIRO_COMMANDS(X)
#endif

#ifdef WEFT_HAVE_SQLITE
#define WEFT__QUERY_COMMANDS(X)                                                \
	X(query, "ask the trace anything: SQL over async threads")
#else
#define WEFT__QUERY_COMMANDS(X)
#endif

#define WEFT_COMMANDS(X)                                                       \
	WEFT__CAIRO_COMMANDS(X)                                                \
	WEFT__QUERY_COMMANDS(X)                                                \
	X(record, "run a program with tracing (libuv traced unmodified)")      \
	X(info, "describe a trace: header, clock, streams, counts, losses")    \
	X(dump, "print every event in time order")                             \
	X(snapshot, "take a consistent copy of a live ring")                   \
	X(compact, "give back the blocks a ring whose writer died never used") \
	X(index, "write (or check) the index beside a trace: its levels of "   \
		 "detail and its async threads")                               \
	X(keep, "keep every packet of a live ring or run in compressed "       \
		"chunks")                                                      \
	X(ctf, "write a CTF 1.8 directory that babeltrace2 reads")             \
	X(html, "write a self-contained HTML viewer of a trace")               \
	X(stats, "async threads by kind and label, OS threads, counters")      \
	X(why, "explain why threads that should resolve did not")              \
	X(ps, "what a live or hung process's async threads are doing now")     \
	X(watch, "flight recorder: save a snapshot when a trigger fires")      \
	X(mark, "fire the trigger 'mark' of a watched process by hand")        \
	X(diff, "where a good run and a bad one first differ; what got "       \
		"slower")                                                      \
	X(export, "export for other viewers (Chrome JSON for Perfetto)")       \
	X(ship, "send a trace to a fleet's store: ClickHouse, or an "          \
		"OpenTelemetry collector (OTLP/HTTP)")                         \
	X(import, "read OpenTelemetry spans weft exported back into a trace")  \
	X(fetch, "bring one request's causal chain back from a fleet's "       \
		 "ClickHouse as a trace")

#define WEFT__CMD_DECL(name, help) int cmd_##name(int argc, char **argv);
WEFT_COMMANDS(WEFT__CMD_DECL)
#undef WEFT__CMD_DECL

/* git-style messages on stderr.  error() prints "weft: <msg>" and returns
 * 1, the exit status of a data error, so that a command can end with
 * `return error(...)`; error_errno() appends ": <strerror(errno)>";
 * warning() prints "weft: warning: <msg>"; die() exits 1. */
__attribute__((format(printf, 1, 2))) int error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) int error_errno(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void warning(const char *fmt, ...);
__attribute__((format(printf, 1, 2), noreturn)) void die(const char *fmt, ...);
/* Prints "usage: ..." and returns 2. */
__attribute__((format(printf, 1, 2))) int usage(const char *fmt, ...);

/* Opens a trace for a command, printing a clear error on failure. */
struct weft_reader *open_trace(const char *path, unsigned flags);

/*
 * What every reading command says about a trace when it is done with it,
 * the same way: losses the writer or a live ring explain (overwritten or
 * dropped packets, packets rewritten while read, discarded events, events
 * from signal handlers, truncated texts, names not interned) are one
 * warning line, exit status 0; corruption (bytes that fail validation,
 * a file that shrank while read) is one line per problem with its byte
 * offset, and the returned exit status 1.  Returns 0 or 1.
 */
int report_losses(struct weft_reader *r, const char *path);

/* Opens a trace and loads its model, printing a clear error on failure
 * (NULL).  Free with weft_model_free, then weft_reader_close(*r). */
struct weft_model;
struct weft_model *open_model(const char *path, struct weft_reader **r);

/* What a reading command reads (traces.c): one or more rings, run
 * directories and bundles, read merged as one trace, and the clock
 * offsets forced on machines. */
#define TRACES_MAX 256
#define TRACES_MAX_OFFSETS 64
struct traces {
	const char *path[TRACES_MAX];
	unsigned n;
	const char *host[TRACES_MAX_OFFSETS];
	int64_t ns[TRACES_MAX_OFFSETS];
	unsigned noff;
	char what[300];
};
/* The option --offset HOST=+-NS of every command that reads traces
 * (options.h), and an operand: 0, or -1 (too many). */
int traces_offset(void *t, const char *v, char *why, size_t cap);
#define TRACES_OPT(t)                                                          \
	{                                                                      \
		"--offset", NULL, "HOST=+-NS",                                 \
			"force the offset added to the "                       \
			"clock of machine HOST (a host name or boot id) when " \
			"rings of "                                            \
			"several machines are read together; repeatable",      \
			OPT_FUNC, .fn = traces_offset, .ctx = (t)              \
	}
int traces_add(struct traces *t, const char *path);
/* Parses a command's arguments by its table, every operand a trace (none
 * is fine): -1 to go on, else the exit status. */
int parse_operands(const struct cmd_usage *u, int argc, char **argv,
		   struct traces *t);
/* The same for a reading command: one trace at least.  -1 to go on, else
 * the exit status (traces released). */
int parse_traces(const struct cmd_usage *u, int argc, char **argv,
		 struct traces *t);
/* Opens them (a clear error, and NULL, on failure). */
struct weft_reader *traces_open(struct traces *t, unsigned flags);
struct weft_model *traces_model(struct traces *t, struct weft_reader **r);
/* The same, of kept directories only the chunks whose index names the
 * async thread id (weft_reader_open_thread; id 0: every chunk, as
 * traces_open). */
struct weft_reader *traces_open_thread(struct traces *t, uint64_t id);
struct weft_model *traces_model_thread(struct traces *t, uint64_t id,
				       struct weft_reader **r);
/* How a process ended, for a person: "exited with status 3", "killed by
 * signal 9", "exec'd", "running"... (in buf, or a constant). */
const char *process_end(const struct weft_process *p, char *buf, size_t cap);
/*
 * Two runs to compare, or parts of one run to merge (render, view): with
 * exactly two traces, they are compared when each is a whole run (a run
 * directory with its manifest, a bundle of one run, or a ring that is not
 * in a run directory; not still being written), they are not of one run
 * (their sessions differ),
 * and their root processes ran the same program (the same command name);
 * anything else is merged.  `compare` or `merge` (the options) force it.
 * Says which on stderr in one line (with two traces), and how to get the
 * other.  Returns 1 (compare), 0 (merge) or 2 (a usage error, said).
 */
#define TRACES_PAIR_OPTS(compare, merge)                                       \
	{"--compare",                                                          \
	 NULL,                                                                 \
	 NULL,                                                                 \
	 "read two traces as two runs to compare, "                            \
	 "one above the other on one time scale (the default for two whole "   \
	 "runs of one program)",                                               \
	 OPT_FLAG,                                                             \
	 (compare)},                                                           \
	{                                                                      \
		"--merge", NULL, NULL,                                         \
			"read the traces as parts of one run, merged "         \
			"(the default but for two whole runs of one program)", \
			OPT_FLAG, (merge)                                      \
	}
int traces_pair(const struct cmd_usage *u, struct traces *t, int compare,
		int merge);
/* Trace i alone (with the offsets), modelled: as traces_model. */
struct weft_model *traces_model_one(struct traces *t, unsigned i,
				    struct weft_reader **r);
/* "PATH", or "PATH (and N more)", for messages. */
const char *traces_name(struct traces *t);
void traces_release(struct traces *t);

/* Prints a string with C-style escapes for quotes, backslashes, control
 * and non-UTF-8 bytes. */
void print_escaped(FILE *f, const char *s, size_t len);

/* A causal chain's --depth (weft render, weft export): 1, 2, 3... or
 * "all" (WEFT_CHAIN_ALL) into *depth; -1 for anything else. */
int chain_depth_arg(const char *s, int *depth);
/* The same as an option's parser (options.h: OPT_FUNC, ctx an int *). */
int chain_depth_opt(void *ctx, const char *v, char *why, size_t cap);

/* The trace of a running process (weft snapshot --pid, weft ps PID): the
 * run it or one of its descendants records into (WEFT_RUN in its
 * environment), else the ring one of them has mapped (breadth first, a
 * bounded walk of /proc/PID/task/TID/children), into buf.  0, or
 * WEFT_ENOTFOUND or -errno. */
int trace_of_pid(int pid, char *buf, size_t cap);

/* The weft-import helper's path (cmd-import.c): it records spans back
 * into a ring with libweft, which weft itself never loads. */
const char *weft_import_exe(void);

/* An instant (ns from the trace's first event) in seconds to the ns, as
 * the viewers write it and --from/--start read it: "1.234 567 89"
 * (weft_time_fmt_in: digits in groups of three, whole zero groups at the
 * end left out), without its unit: the sentence adds " s". */
const char *fmt_ns(char *buf, size_t cap, int64_t ns);
/* The same as one token, "1.234567890": weft dump's column, which
 * scripts split on blanks. */
const char *fmt_ns_raw(char *buf, size_t cap, int64_t ns);

/* A time or a duration for a person, in the one format of the viewers
 * and the library (weft_time_fmt): "850 ns", "12.3 us", "4.56 ms",
 * "1.234 s", "17.09 s": rounded to three significant digits (four from a
 * second up), the unit chosen after rounding. */
const char *fmt_time(char *buf, size_t cap, int64_t ns);

/* A column of times in a table: one unit for all its values, the one
 * fmt_time chooses for its largest (in magnitude); one precision, the
 * one that leaves its smallest (not 0) three significant digits, but
 * not finer than a thousandth of the largest's; the digits lined up on
 * the point: "12.340 ms", " 0.057 ms", " 4 ms    " (every value of a
 * column has the same width).  Zero it, add every value it will show
 * (tcol_add), then write them (tcol_fmt). */
struct tcol {
	uint64_t max, min; /* |largest|, |smallest| not 0 (0: none) */
	int neg;
};
void tcol_add(struct tcol *c, int64_t ns);
const char *tcol_fmt(const struct tcol *c, char *buf, size_t cap, int64_t ns);
/* The column's unit and precision (weft_time_fmt_in's). */
void tcol_unit(const struct tcol *c, int64_t *unit_ns, int64_t *prec_ns);

/* A long read (a million events or more) says how far it got on stderr
 * when stderr is a terminal (open_trace attaches it); the line is
 * cleared at the end of the input and before any other message. */
void progress_attach(struct weft_reader *r, const char *path);
void progress_clear(void);

/* A thread named on the command line: an id (decimal or 0x hex), else
 * the thread whose label is `q`, else the one whose label holds it.
 * None, or several ("weft CMD: 'q' matches 3 threads: a (0x1, kind),
 * ..."): said on stderr, and WEFT_NONE. */
struct weft_model;
uint32_t find_thread(const struct weft_model *m, const char *q,
		     const char *cmd);
/* "title (0xID, kind)" into buf. */
const char *thread_name(const struct weft_model *m, uint32_t t, char *buf,
			size_t cap);

#endif
