/* SPDX-License-Identifier: MIT */
/*
 * cmd-record.c - `weft record [-o DIR] [--size BYTES] [--mode MODE]
 * [--loops LIST] -- CMD [ARGS...]`: runs CMD with the loop shims
 * preloaded (record-loops.c: every loop's, or those --loops names, on)
 * and the run directory DIR set
 * up through the environment (WEFT_RUN...), forwards SIGINT, SIGTERM and
 * SIGHUP to it, exits with its status, and says what the run holds and
 * which loops were traced.  One run, one trace: DIR holds the ring of
 * each process of the tree that recorded (CMD's is DIR/ring, the others'
 * DIR/ring.PID) and the manifest of the tree (docs/format.md, "Runs"),
 * to which weft record adds the run's first line, CMD's fork, and how
 * each process it reaps ended (it is their subreaper: orphans come to it).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/settings.h"
#include "common/sysfacts.h"
#include "flight.h"
#include "keep.h"
#include "record-loops.h"
#include "weft-tools.h"

static volatile sig_atomic_t child_pid;

static void forward(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

/* The loops the traces showed (record_loop_of_kind's bits). */
static unsigned loops_seen;

/* What the run holds: each process that recorded, indented under its
 * parent, its events, OS threads, how it ended and its loops.  Returns
 * how many recorded, or -1 (unreadable: said). */
/* The recording processes the summary names, at most. */
#define SUMMARY_MAX 20

static int summarize(const char *dir, const char *out)
{
	struct weft_reader *r;
	struct weft_diag d = {0};
	int err = weft_reader_open(&r, dir, 0, &d);
	if (err == WEFT_EEMPTY)
		return 0;
	if (err) {
		fprintf(stderr, "weft:   %s: unreadable (%s)\n", out, d.msg);
		return -1;
	}
	uint32_t np;
	weft_reader_processes(r, &np);
	/* (a followed run grows: room for what the events may add) */
	size_t cap = np + 64;
	unsigned *loops = calloc(cap, sizeof *loops);
	uint64_t *events = calloc(cap, sizeof *events);
	if (!loops || !events) {
		free(loops);
		free(events);
		weft_reader_close(r);
		return -1;
	}
	struct weft_event ev;
	while (weft_reader_next(r, &ev) == 0) {
		uint32_t p = weft_reader_stream_process(r, ev.stream);
		if (p >= cap)
			continue;
		events[p]++;
		if (ev.type == WEFT_EV_CREATE ||
		    ev.type == WEFT_EV_CREATE_LABEL)
			loops[p] |= record_loop_of_kind(
				weft_reader_name(r, ev.name));
	}
	const struct weft_trace_info *in = weft_reader_info(r);
	const struct weft_process *pr = weft_reader_processes(r, &np);
	/* A run of thousands of recording processes (a test suite): the
	 * first SUMMARY_MAX / 2 of them, and as many that did not exit 0
	 * (killed, vanished, still running). */
	int recorded = 0, shown = 0, bad_shown = 0, all = 0;
	for (uint32_t i = 0; i < np && i < cap; i++)
		all += pr[i].ring != NULL;
	for (uint32_t i = 0; i < np && i < cap; i++) {
		if (!pr[i].ring)
			continue;
		recorded++;
		loops_seen |= loops[i];
		int bad = pr[i].end != WEFT_PROC_EXECED &&
			  (pr[i].end != WEFT_PROC_EXITED || pr[i].status);
		if (all > SUMMARY_MAX && recorded > SUMMARY_MAX / 2 &&
		    (!bad || bad_shown >= SUMMARY_MAX / 2))
			continue;
		shown++;
		bad_shown += bad && recorded > SUMMARY_MAX / 2;
		int depth = 0;
		for (uint32_t q = pr[i].parent; q < np && depth < 8;
		     q = pr[q].parent)
			depth++;
		char h[64], names[64];
		fprintf(stderr,
			"weft:   %*spid %u %s%s: %llu events, %u OS thread%s, "
			"%s",
			2 * depth, "", pr[i].pid, pr[i].comm,
			pr[i].image ? " (after exec)" : "",
			(unsigned long long)events[i], pr[i].nstreams,
			pr[i].nstreams == 1 ? "" : "s",
			process_end(&pr[i], h, sizeof h));
		record_loops_names(loops[i], names, sizeof names);
		if (loops[i])
			fprintf(stderr, ", loops: %s", names);
		fputc('\n', stderr);
	}
	if (recorded > shown)
		fprintf(stderr,
			"weft:   (%d more process%s recorded: weft info %s "
			"lists them)\n",
			recorded - shown, recorded - shown == 1 ? "" : "es",
			out);
	if (np > (uint32_t)recorded)
		fprintf(stderr,
			"weft:   (%u more process%s recorded nothing: weft "
			"info "
			"%s lists them)\n",
			np - (uint32_t)recorded,
			np - (uint32_t)recorded == 1 ? "" : "es", out);
	const struct weft_losses *l = &in->losses;
	if (l->packets_lost || l->events_discarded)
		fprintf(stderr, "weft:   lost %llu packets and %llu events\n",
			(unsigned long long)l->packets_lost,
			(unsigned long long)l->events_discarded);
	free(loops);
	free(events);
	weft_reader_close(r);
	return recorded;
}

/* Whether `path` begins with a weft ring's magic; 2 when a live writer
 * holds it. */
static int ring_at(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return 0;
	char magic[8] = "";
	int ring = read(fd, magic, 8) == 8 && !memcmp(magic, "WEFTRING", 8);
	int live = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return ring ? 1 + live : 0;
}

/* Makes the run directory at `abs` (-o `out`), or empties a run's that
 * is there, before running anything.  Refused: anything that is not a
 * directory (a device, FIFO or socket is never replaced; a symbolic link
 * is followed only when its caller owns it), a directory holding files of its own, a run a live
 * process is writing.  A ring file there (a trace of an earlier weft) is
 * replaced by the directory; a run's rings are set aside, and removed
 * once CMD runs, when the disk has room for two rings of `bytes`
 * meanwhile.  Returns 0 or an exit status. */
static int set_aside(const char *path, const char *abs, const char *name);

static int prepare_run(const char *abs, const char *out, uint64_t bytes)
{
	struct stat sb;
	/* a link another user planted (in /tmp, say) is never followed:
	 * the rule of WEFT_FILE (docs/format.md) */
	if (lstat(abs, &sb) == 0 && S_ISLNK(sb.st_mode) &&
	    sb.st_uid != geteuid())
		return error("'%s' is a symbolic link its caller does not own: "
			     "weft never follows it",
			     out),
		       2;
	if (stat(abs, &sb) == 0 && S_ISREG(sb.st_mode)) {
		int ring = ring_at(abs);
		if (ring == 2)
			return error("'%s' is being written by another process",
				     out),
			       2;
		if (!ring)
			return error("'%s' exists and is not a weft run: weft "
				     "never replaces it",
				     out),
			       2;
		char real[PATH_MAX];
		if (!realpath(abs, real) || unlink(real) < 0)
			return error_errno("cannot replace '%s'", out), 1;
	} else if (stat(abs, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
		return error("'%s' is not a regular file nor a directory: weft "
			     "never replaces a device, FIFO or socket",
			     out),
		       2;
	}
	if (stat(abs, &sb) < 0) {
		if (mkdir(abs, 0755) < 0)
			return error_errno("cannot make the run directory '%s'",
					   out),
			       1;
		return 0;
	}
	/* A directory: empty, or a run's (its manifest and rings). */
	struct statvfs vs;
	int defer = statvfs(abs, &vs) == 0 &&
		    (uint64_t)vs.f_bavail * vs.f_frsize / 2 >= bytes;
	DIR *dp = opendir(abs);
	if (!dp)
		return error_errno("cannot read '%s'", out), 1;
	struct dirent *de;
	int rc = 0;
	char p[PATH_MAX * 2 + 300];
	for (int pass = 0; pass < 2 && !rc; pass++) {
		rewinddir(dp);
		while ((de = readdir(dp)) && !rc) {
			const char *n = de->d_name;
			if (!strcmp(n, ".") || !strcmp(n, ".."))
				continue;
			snprintf(p, sizeof p, "%s/%s", abs, n);
			int ring = ring_at(p);
			int tmp = !strncmp(n, "ring.", 5) && strstr(n, ".tmp");
			int ours = ring || !strcmp(n, "manifest") || tmp;
			if (pass == 0 && ring == 2) {
				error("'%s' is being written by another "
				      "process (%s)",
				      out, n);
				rc = 2;
			} else if (pass == 0 && !ours) {
				error("'%s' holds files that are not a weft "
				      "run's (%s): weft never deletes them; "
				      "choose another -o",
				      out, n);
				rc = 2;
			} else if (pass == 1 && !strncmp(n, ".old.", 5)) {
				/* (set aside: removed once CMD runs) */
			} else if (pass == 1 && ring && defer &&
				   set_aside(p, abs, n)) {
			} else if (pass == 1 && unlink(p) < 0)
				rc = error_errno("cannot remove '%s'", p);
		}
	}
	closedir(dp);
	return rc;
}

/* The earlier run's rings are renamed .old.NAME (readers skip names
 * that begin with a dot) and removed once CMD runs, while weft record
 * waits for it: freeing a large file's blocks takes ext4 0.1-4 ms, which
 * CMD's start need not wait for.  One left over (weft record killed
 * meanwhile) is a ring: the next weft record removes it. */
static int set_aside(const char *path, const char *abs, const char *name)
{
	char to[PATH_MAX * 2 + 300];
	int n = snprintf(to, sizeof to, "%s/.old.%s", abs, name);
	return n > 0 && (size_t)n < sizeof to && rename(path, to) == 0;
}

static void remove_set_aside(const char *abs)
{
	DIR *dp = opendir(abs);
	if (!dp)
		return;
	struct dirent *de;
	char p[PATH_MAX * 2 + 300];
	while ((de = readdir(dp)))
		if (!strncmp(de->d_name, ".old.", 5)) {
			snprintf(p, sizeof p, "%s/%s", abs, de->d_name);
			if (ring_at(p) == 1)
				unlink(p);
		}
	closedir(dp);
}

/* A line of the manifest, from weft record (one write each). */
__attribute__((format(printf, 2, 3))) static void manifest(const char *dir,
							   const char *fmt, ...)
{
	char line[8192], path[PATH_MAX * 2 + 16];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof line - 1)
		return;
	line[n++] = '\n';
	snprintf(path, sizeof path, "%s/manifest", dir);
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	ssize_t w = write(fd, line, (size_t)n);
	(void)w;
	close(fd);
}

/* CLOCK_REALTIME, or CLOCK_MONOTONIC of the machine (the manifest's
 * times: ours plus our time namespace's offset), in ns. */
static int64_t clock_ns(clockid_t id)
{
	static int64_t timens;
	static int have_timens;
	if (id == CLOCK_MONOTONIC && !have_timens) {
		timens = weft__timens_read();
		have_timens = 1;
	}
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec +
	       (id == CLOCK_MONOTONIC ? timens : 0);
}

/* " key=value", %XX-escaped as the manifest wants. */
static size_t esc(char *b, size_t cap, const char *key, const char *v)
{
	size_t n = (size_t)snprintf(b, cap, " %s=", key);
	for (const unsigned char *p = (const unsigned char *)v;
	     *p && n + 4 < cap; p++) {
		if (*p <= ' ' || *p == '%' || *p == 0x7f)
			n += (size_t)snprintf(b + n, cap - n, "%%%02X", *p);
		else
			b[n++] = (char)*p;
	}
	n = n < cap ? n : cap - 1;
	b[n] = 0;
	return n;
}

/* How a process weft record reaped ended. */
static void reaped(const char *dir, pid_t pid, int st)
{
	if (WIFSIGNALED(st))
		manifest(dir, "reaped pid=%d signal=%d t=%lld real=%lld",
			 (int)pid, WTERMSIG(st),
			 (long long)clock_ns(CLOCK_MONOTONIC),
			 (long long)clock_ns(CLOCK_REALTIME));
	else if (WIFEXITED(st))
		manifest(dir, "reaped pid=%d status=%d t=%lld real=%lld",
			 (int)pid, WEXITSTATUS(st),
			 (long long)clock_ns(CLOCK_MONOTONIC),
			 (long long)clock_ns(CLOCK_REALTIME));
}

/* Checks one setting, given as an option or else inherited from the
 * environment: weft record refuses to run with one the recorder would
 * refuse (the program would run untraced).  Returns 0 or 2. */
static int check_setting(enum weft__setting which, const char **val,
			 struct weft__settings *set)
{
	const struct weft__setting_info *si = &weft__setting_info[which];
	const char *v = *val, *what = si->option;
	if (!v) {
		v = getenv(si->var);
		if (!v || !*v)
			return 0;
		what = si->var;
	}
	int err = weft__parse_setting(which, v, set);
	if (!err) {
		*val = v;
		return 0;
	}
	error("%s '%s': %s; expected %s", what, v, weft__setting_problem(err),
	      si->help);
	return 2;
}

/* The ring of CMD itself must fit on the disk (each child that records
 * takes another: those may still fail, and say so). */
static int check_space(const char *abs, const char *out, uint64_t bytes)
{
	struct statvfs vs;
	if (statvfs(abs, &vs) < 0)
		return 0; /* the recorder will say why */
	uint64_t avail = (uint64_t)vs.f_bavail * vs.f_frsize;
	if (avail >= bytes)
		return 0;
	error("no room for a ring of %llu MiB in '%s' (%llu MiB free): "
	      "choose a smaller --size or another -o",
	      (unsigned long long)(bytes >> 20), out,
	      (unsigned long long)(avail >> 20));
	return 2;
}

/* A path as a shell reads it back: as it is, or in single quotes. */
static void shell_word(char *buf, size_t cap, const char *s)
{
	static const char plain[] = "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789._/+-=:,@%";
	if (*s && strspn(s, plain) == strlen(s)) {
		snprintf(buf, cap, "%s", s);
		return;
	}
	size_t n = 0;
	buf[n++] = '\'';
	for (; *s && n + 6 < cap; s++) {
		if (*s == '\'') {
			memcpy(buf + n, "'\\''", 4);
			n += 4;
		} else
			buf[n++] = *s;
	}
	buf[n++] = '\'';
	buf[n] = 0;
}

/* The commands that read the run, one a line (a line joined with '|'
 * reads as a pipeline), ready to copy. */
static void suggest(const char *out)
{
	char w[PATH_MAX * 4 + 8], page[PATH_MAX + 16];
	shell_word(w, sizeof w, out);
	/* the page beside the run: DIR.html (a DIR.trace's ending dropped) */
	size_t n = strlen(out);
	while (n > 1 && out[n - 1] == '/')
		n--;
	if (n > 6 && !strncmp(out + n - 6, ".trace", 6))
		n -= 6;
	snprintf(page, sizeof page, "%.*s.html", (int)n, out);
	char pw[sizeof w];
	shell_word(pw, sizeof pw, page);
	fprintf(stderr, "weft: look at it with:\n");
#ifdef WEFT_HAVE_CAIRO
	fprintf(stderr, "weft:   weft view %s\n", w);
#endif
	fprintf(stderr, "weft:   weft why %s\n", w);
	fprintf(stderr, "weft:   weft stats %s\n", w);
	fprintf(stderr, "weft:   weft html %s -o %s\n", w, pw);
	fprintf(stderr, "weft:   weft dump %s\n", w);
}

/* A program built with AddressSanitizer (gcc's, whose runtime is a
 * shared library it needs) refuses to start when a preloaded library
 * comes before that runtime ("ASan runtime does not come first", exit 1
 * before main).  Putting the runtime first in LD_PRELOAD would load it
 * into every process of the tree, with its leak checks, whether built
 * with ASan or not (sh, a test runner): instead the check is turned off
 * for the tree (ASAN_OPTIONS, appended to what the caller set, so it
 * wins).  That is safe with this preload: it defines no allocation
 * function (ASan's allocator serves every allocation), and what it wraps
 * that ASan also intercepts (read, write, fork, poll, _exit, waitpid...)
 * it passes to the next definition, ASan's, which checks and calls libc
 * (docs/libuv.md, "Sanitizers").  ThreadSanitizer, UBSan and LSan builds,
 * and clang's (their runtime linked into the program, which comes
 * first), need nothing. */
static void asan_late(void)
{
	static const char opt[] = "verify_asan_link_order=0";
	const char *old = getenv("ASAN_OPTIONS");
	size_t n = old ? strlen(old) : 0;
	char *v = malloc(n + sizeof opt + 1);
	if (!v)
		return;
	snprintf(v, n + sizeof opt + 1, "%s%s%s", n ? old : "", n ? ":" : "",
		 opt);
	setenv("ASAN_OPTIONS", v, 1);
	free(v);
}

/* --size, --mode, --clock: what the recorder accepts (settings.h). */
struct setting_arg {
	enum weft__setting which;
	const char **val;
};

static int setting_arg(void *ctx, const char *v, char *why, size_t cap)
{
	const struct setting_arg *a = ctx;
	struct weft__settings set = {0};
	int err = weft__parse_setting(a->which, v, &set);
	if (err)
		snprintf(why, cap, "'%s': %s; expected %s", v,
			 weft__setting_problem(err),
			 weft__setting_info[a->which].help);
	else
		*a->val = v;
	return err ? -1 : 0;
}

static volatile int keep_stop;

/* --flight: the watcher (watch.c) on a thread of its own */
static volatile int flight_stop;

static void *flight_thread(void *arg)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	watch_run(arg);
	return NULL;
}

static void *keep_thread(void *arg)
{
	/* (signals go to the main thread, which forwards them to CMD) */
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	keep_run(arg);
	return NULL;
}

int cmd_record(int argc, char **argv)
{
	const char *out = "weft.trace", *size = NULL, *mode = NULL,
		   *clock = NULL, *loops_opt = NULL;
	const char *keep_dir = NULL;
	int flight = 0;
	struct opt_list ftrig = {0};
	static struct watch_opts fo = {.cooldown_ns = 10000000000,
				       .max_per_hour = 60,
				       .poll_ns = 2000000};
	struct keep_opts ko = {.chunk_bytes = KEEP_DEFAULT_CHUNK,
			       .chunk_ns = KEEP_DEFAULT_CHUNK_NS,
			       .level = KEEP_DEFAULT_LEVEL,
			       .layout = KEEP_DEFAULT_LAYOUT};
	struct setting_arg setv[] = {{WEFT__SET_SIZE, &size},
				     {WEFT__SET_MODE, &mode},
				     {WEFT__SET_CLOCK, &clock}};
	char hs[3][300];
	static const char *const what[] = {"the ring size of each process "
					   "(default 16M; as WEFT_SIZE)",
					   "which events a full ring keeps: "
					   "overwrite (the newest, the "
					   "default) or discard (the oldest; "
					   "as WEFT_MODE)",
					   "the clock: auto (the TSC when "
					   "usable, the default) or "
					   "monotonic (as WEFT_CLOCK)"};
	for (int k = 0; k < 3; k++)
		snprintf(hs[k], sizeof hs[k], "%s%s%s", what[k], k ? "" : ": ",
			 k ? "" : weft__setting_info[setv[k].which].help);
	const struct opt opts[] = {
		{"-o", NULL, "DIR",
		 "the run directory (default weft.trace): "
		 "made, or emptied if it holds an earlier run",
		 OPT_STRING, &out},
		{"--size", NULL, "BYTES", hs[0], OPT_FUNC, .fn = setting_arg,
		 .ctx = &setv[0]},
		{"--mode", NULL, "MODE", hs[1], OPT_FUNC, .fn = setting_arg,
		 .ctx = &setv[1]},
		{"--clock", NULL, "CLOCK", hs[2], OPT_FUNC, .fn = setting_arg,
		 .ctx = &setv[2]},
		{"--loops", NULL, "LIST",
		 "the loops whose shims are on (default: "
		 "all): uv, event, glib (comma-separated), all or none",
		 OPT_STRING, &loops_opt},
		/* keeping (keep.c, docs/keep.md) */
		{"--keep", NULL, "DIR",
		 "also keep every packet of every ring "
		 "of the run in compressed chunks of DIR (as weft keep does, "
		 "beside the run)",
		 OPT_STRING, &keep_dir},
		{"--max-disk", NULL, "SIZE",
		 "with --keep: keep DIR under SIZE "
		 "by deleting its oldest chunks (counted)",
		 OPT_FUNC, .fn = keep_disk_arg, .ctx = &ko},
		{"--chunk", NULL, "SIZE|DURATION",
		 "with --keep: close a chunk "
		 "at this size on disk (default 16M) or after this long "
		 "(default 60s)",
		 OPT_FUNC, .fn = keep_chunk_arg, .ctx = &ko},
		/* flight recording (watch.c, docs/flight.md) */
		{"--flight", NULL, NULL,
		 "flight recording: DIR (-o) holds the "
		 "snapshots the triggers save and flight.log, the rings go in "
		 "DIR/run",
		 OPT_FLAG, &flight},
		{"--trigger", NULL, "EXPR",
		 "with --flight: save a snapshot "
		 "when EXPR becomes true (TRIGGERS in weft(1)); repeatable",
		 OPT_LIST, &ftrig},
		{"--window", NULL, "DURATION",
		 "with --flight: keep this much "
		 "before the trigger (default: all the ring holds)",
		 OPT_DURATION, &fo.window_ns, 0, 0, 1e9},
		{"--after", NULL, "DURATION",
		 "with --flight: and this much "
		 "after it (default 0)",
		 OPT_DURATION, &fo.after_ns, 0, 0, 1e9},
		{"--cooldown", NULL, "DURATION",
		 "with --flight: at least this "
		 "long between two snapshots of one trigger (default 10s)",
		 OPT_DURATION, &fo.cooldown_ns, 0, 0, 1e9},
		{"--max-per-hour", NULL, "N",
		 "with --flight: at most N "
		 "snapshots in any hour (default 60; 0: no limit)",
		 OPT_INT, &fo.max_per_hour, 0, 1000000},
		OPT_END,
	};
	const struct cmd_usage u = {"record", "[OPTIONS] [--] CMD [ARGS...]",
				    "Runs CMD traced: the shims of the event "
				    "loops (libuv, libevent, "
				    "GLib) are preloaded into every process of "
				    "its tree, and each "
				    "process "
				    "that records writes its ring into the run "
				    "directory.  Says "
				    "what each process recorded and how it "
				    "ended, and exits with "
				    "CMD's status.",
				    opts, OPTS_STOP_AT_ARG};
	const char **ops = calloc((size_t)argc + 1, sizeof *ops);
	if (!ops)
		die("out of memory");
	int nops, prc = opts_parse(&u, argc, argv, ops, &nops, NULL);
	/* CMD and its arguments: argv from i on */
	int i = argc - nops;
	free(ops);
	if (prc >= 0)
		return prc;
	if (i >= argc)
		return opts_usage(&u);
	if (flight != !!ftrig.n)
		return opts_error(&u, "--flight and --trigger go together");
	if (flight && flight_triggers(&fo, &ftrig))
		return 2;
	free(ftrig.v);
	char fdir[PATH_MAX];
	if (flight) {
		/* the snapshots in DIR, the run in DIR/run */
		if (mkdir(out, 0755) < 0 && errno != EEXIST)
			return error_errno("cannot make '%s'", out);
		snprintf(fdir, sizeof fdir, "%s", out);
		static char runp[PATH_MAX + 8];
		snprintf(runp, sizeof runp, "%s/run", fdir);
		out = runp;
	}
	struct weft__settings set = {.size = WEFT_DEFAULT_SIZE};
	int bad = check_setting(WEFT__SET_SIZE, &size, &set);
	if (!bad)
		bad = check_setting(WEFT__SET_MODE, &mode, &set);
	if (!bad)
		bad = check_setting(WEFT__SET_CLOCK, &clock, &set);
	if (bad)
		return bad;
	char abs[PATH_MAX * 2];
	if (out[0] != '/') {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof cwd))
			return error("cannot get the current directory"), 1;
		if ((size_t)snprintf(abs, sizeof abs, "%s/%s", cwd, out) >=
		    sizeof abs)
			return error("'%s': name too long", out), 1;
	} else
		snprintf(abs, sizeof abs, "%s", out);
	if (keep_dir) {
		/* a new run is kept into a new (or empty) directory: a
		 * directory that holds anything is refused before CMD runs */
		if (keep_dir_refused(keep_dir))
			return 2; /* (another user's link: never followed) */
		DIR *kd = opendir(keep_dir);
		struct dirent *de;
		int full = 0;
		while (kd && (de = readdir(kd)))
			full |= strcmp(de->d_name, ".") &&
				strcmp(de->d_name, "..");
		if (kd)
			closedir(kd);
		if (full)
			return opts_error(&u,
					  "--keep %s: not empty (a new run is "
					  "kept into a new directory)",
					  keep_dir);
	}
	int err = prepare_run(abs, out, set.size);
	if (!err)
		err = check_space(abs, out, set.size);
	if (err)
		return err;

	static struct record_loops shims;
	if (record_loops_choose(loops_opt, &shims) < 0) {
		char words[128];
		record_loops_words(words, sizeof words);
		return opts_error(&u,
				  "--loops must be %s (comma-separated), "
				  "all or none (not '%s')",
				  words, loops_opt);
	}
	if (shims.missing[0])
		fprintf(stderr,
			"weft: no shim for %s (not built, or not found; "
			"WEFT_SHIM_DIR names their directory)\n",
			shims.missing);
	char session[32];
	snprintf(session, sizeof session, "%llx",
		 (unsigned long long)time(NULL) << 20 ^ (unsigned)getpid());

	manifest(abs, "weft-run version=1 session=%s t=%lld real=%lld", session,
		 (long long)clock_ns(CLOCK_MONOTONIC),
		 (long long)clock_ns(CLOCK_REALTIME));
	pthread_t keeper;
	int keeping = 0;
	/* Orphans of the tree come to weft record, which says how they
	 * ended. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	struct sigaction sa = {.sa_handler = forward};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	int errpipe[2];
	if (pipe2(errpipe, O_CLOEXEC) < 0)
		return error("pipe: %s", strerror(errno)), 1;
	pid_t pid = fork();
	if (pid < 0)
		return error("fork: %s", strerror(errno)), 1;
	if (pid == 0) {
		char pidstr[16];
		snprintf(pidstr, sizeof pidstr, "%d", (int)getpid());
		/* its fork line, before it runs anything: what it runs */
		char line[8192];
		size_t n = esc(line, sizeof line, "exe", argv[i]);
		for (int a = i; a < argc && n < sizeof line - 64; a++)
			n += esc(line + n, sizeof line - n, "arg", argv[a]);
		manifest(abs,
			 "fork pid=%d ppid=%d tid=0 by=0 spawn=0 t=%lld "
			 "real=%lld%s",
			 (int)getpid(), (int)getppid(),
			 (long long)clock_ns(CLOCK_MONOTONIC),
			 (long long)clock_ns(CLOCK_REALTIME), line);
		unsetenv("WEFT_FILE"); /* (it would take precedence) */
		setenv("WEFT_RUN", abs, 1);
		setenv("WEFT_ROOT_PID", pidstr, 1);
		setenv("WEFT_SESSION", session, 1);
		/* the pid whose fork line was written last: libweft (run.c)
		 * updates it in place, 10 digits */
		char forked[16];
		snprintf(forked, sizeof forked, "%010d", (int)getpid());
		setenv("WEFT_FORKED", forked, 1);
		/* its clocks: a process whose clocks agree shares its time
		 * namespace, and need not read /proc to learn the offset */
		char clocks[80];
		if (weft__timens_env(clocks, sizeof clocks))
			setenv("WEFT_TIMENS", clocks, 1);
		if (size)
			setenv("WEFT_SIZE", size, 1);
		if (mode)
			setenv("WEFT_MODE", mode, 1);
		if (clock)
			setenv("WEFT_CLOCK", clock, 1);
		if (shims.preload[0]) {
			const char *old = getenv("LD_PRELOAD");
			char pre[sizeof shims.preload + PATH_MAX * 4];
			snprintf(pre, sizeof pre, "%s%s%s", shims.preload,
				 old && *old ? ":" : "", old ? old : "");
			setenv("LD_PRELOAD", pre, 1);
			setenv("WEFT_LOOPS", shims.loops, 1);
			asan_late();
		}
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execvp(argv[i], argv + i);
		int e = errno;
		if (write(errpipe[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	child_pid = pid;
	close(errpipe[1]);
	int e = 0;
	int failed = read(errpipe[0], &e, sizeof e) == (ssize_t)sizeof e;
	close(errpipe[0]);
	remove_set_aside(abs);
	if (failed) {
		waitpid(pid, NULL, 0);
		return error("cannot run '%s': %s", argv[i], strerror(e)), 127;
	}
	/* (after the fork: the child of a process with one thread) */
	/* --keep: the keeper follows the run on a thread of its own */
	if (keep_dir) {
		ko.src = abs;
		ko.dir = keep_dir;
		ko.stop = &keep_stop;
		if (ko.max_disk && ko.chunk_bytes > ko.max_disk / 4)
			ko.chunk_bytes = ko.max_disk / 4;
		keeping = !pthread_create(&keeper, NULL, keep_thread, &ko);
		if (!keeping)
			warning("--keep: cannot start the keeper; recording "
				"without it");
	}
	/* --flight: the watcher follows the run on a thread of its own */
	pthread_t watcher;
	int watching = 0;
	if (flight) {
		fo.src = abs;
		fo.dir = fdir;
		fo.stop = &flight_stop;
		watching = !pthread_create(&watcher, NULL, flight_thread, &fo);
		if (!watching)
			warning("--flight: cannot start the watcher; recording "
				"without it");
	}
	/* CMD, and every orphan of the tree that ends meanwhile */
	int st = 0, ost;
	for (;;) {
		pid_t p = waitpid(-1, &ost, 0);
		if (p < 0 && errno == EINTR)
			continue;
		if (p < 0)
			break;
		reaped(abs, p, ost);
		if (p == pid) {
			st = ost;
			break;
		}
	}
	for (pid_t p; (p = waitpid(-1, &ost, WNOHANG)) > 0;)
		reaped(abs, p, ost);
	int rc = WIFEXITED(st)	   ? WEXITSTATUS(st)
		 : WIFSIGNALED(st) ? 128 + WTERMSIG(st)
				   : 1;
	if (watching) {
		/* the triggers on what is left, and at the exit */
		flight_stop = 2;
		pthread_join(watcher, NULL);
	}
	if (keeping) {
		/* what is left copied; a failed keeper changes nothing of
		 * the run or its status (it said why) */
		keep_stop = 1;
		pthread_join(keeper, NULL);
	}

	/* What the run holds (docs/format.md, "Runs"). */
	fprintf(stderr, "weft: %s %s %d; the run is in '%s':\n", argv[i],
		WIFSIGNALED(st) ? "exited on signal" : "exited with status",
		WIFSIGNALED(st) ? WTERMSIG(st) : rc, out);
	int found = summarize(abs, out);
	char names[64];
	record_loops_names(loops_seen, names, sizeof names);
	fprintf(stderr, "weft: traced loops: %s; preloaded: %s\n",
		loops_seen ? names : "none",
		shims.what[0] ? shims.what : "no shim");
	if (!found)
		fprintf(stderr,
			"weft:   none: %s recorded nothing (no traced "
			"loop and no instrumentation?)\n",
			argv[i]);
	else
		suggest(out);
	return rc;
}
