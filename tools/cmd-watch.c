/* SPDX-License-Identifier: MIT */
/*
 * cmd-watch.c - `weft watch RING|RUNDIR --trigger EXPR... -o DIR`: the
 * flight recorder's watcher beside a running program (watch.c), and
 * `weft mark PID|RUNDIR|RING [TEXT]`, a trigger by hand.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/settings.h"
#include "flight.h"
#include "weft-tools.h"

static volatile int stop_watch;

static void on_signal(int sig)
{
	(void)sig;
	stop_watch = 1;
}

int flight_triggers(struct watch_opts *o, const struct opt_list *l)
{
	char err[1200];
	for (int i = 0; i < l->n; i++) {
		if (o->ntrig >= WATCH_MAX_TRIGGERS - 1)
			return error("at most %d triggers",
				     WATCH_MAX_TRIGGERS - 1),
			       2;
		if (trigger_parse(l->v[i], &o->trig[o->ntrig], err,
				  sizeof err)) {
			fprintf(stderr, "weft: bad trigger: %s\n", err);
			return 2;
		}
		o->ntrig++;
	}
	return 0;
}

int flight_size_arg(void *ctx, const char *v, char *why, size_t cap)
{
	if (weft__parse_size(v, ctx)) {
		snprintf(why, cap, "must be a size (100M, 2G; not '%s')", v);
		return -1;
	}
	return 0;
}

/* The trace process `pid` records into, as weft watch and weft mark
 * both name it (so that they agree on its marks directory): its run, or
 * its ring by the name it has now.  0, or an error said (1). */
static int trace_by_pid(int pid, char *found, size_t cap)
{
	struct stat sb;
	int err = trace_of_pid(pid, found, cap);
	if (err)
		return error("process %d: %s", pid,
			     err == WEFT_ENOTFOUND ? "no weft ring mapped, nor "
						     "in any of its "
						     "descendants"
						   : weft_strerror(err));
	/* a ring reached through /proc: its name */
	char link[4200];
	ssize_t ln;
	if (!strncmp(found, "/proc/", 6) &&
	    (ln = readlink(found, link, sizeof link - 1)) > 0 &&
	    link[0] == '/' && stat(found, &sb) == 0) {
		/* the name it had when mapped (libweft renames a new ring
		 * into place): the file of its directory with its inode */
		link[ln] = 0;
		char *sl = strrchr(link, '/');
		*sl = 0;
		DIR *dp = opendir(*link ? link : "/");
		struct dirent *de;
		struct stat s2;
		char cand[4600];
		while (dp && (de = readdir(dp))) {
			snprintf(cand, sizeof cand, "%s/%.255s", link,
				 de->d_name);
			if (stat(cand, &s2) == 0 && s2.st_ino == sb.st_ino &&
			    s2.st_dev == sb.st_dev && strlen(cand) < cap) {
				memcpy(found, cand, strlen(cand) + 1);
				break;
			}
		}
		if (dp)
			closedir(dp);
	}
	/* a ring of a run directory: the run's */
	char man[4300], *slash = strrchr(found, '/');
	if (slash && stat(found, &sb) == 0 && S_ISREG(sb.st_mode)) {
		snprintf(man, sizeof man, "%.*s/manifest", (int)(slash - found),
			 found);
		if (stat(man, &sb) == 0)
			*slash = 0;
	}
	return 0;
}

int cmd_watch(int argc, char **argv)
{
	struct watch_opts o = {.cooldown_ns = 10000000000,
			       .max_per_hour = 60,
			       .poll_ns = 2000000};
	struct opt_list trig = {0};
	const char *dir = NULL;
	int pid = 0;
	const struct opt opts[] = {
		{"--trigger", "-t", "EXPR",
		 "save a snapshot when EXPR becomes "
		 "true (see TRIGGERS in weft(1)); repeatable",
		 OPT_LIST, &trig},
		{"-o", NULL, "DIR",
		 "where the snapshots (flight-NNNN.weft) and "
		 "flight.log go",
		 OPT_STRING, &dir},
		{"--pid", NULL, "PID",
		 "watch the run or ring of this running "
		 "process",
		 OPT_INT, &pid, 1, 0x7fffffff},
		{"--window", NULL, "DURATION",
		 "keep this much before the "
		 "trigger (default: all the ring holds)",
		 OPT_DURATION, &o.window_ns, 0, 0, 1e9},
		{"--after", NULL, "DURATION",
		 "and this much after it (default "
		 "0)",
		 OPT_DURATION, &o.after_ns, 0, 0, 1e9},
		{"--cooldown", NULL, "DURATION",
		 "at least this long between "
		 "two snapshots of one trigger (default 10s)",
		 OPT_DURATION, &o.cooldown_ns, 0, 0, 1e9},
		{"--max-per-hour", NULL, "N",
		 "at most N snapshots in any hour "
		 "(default 60; 0: no limit)",
		 OPT_INT, &o.max_per_hour, 0, 1000000},
		{"--max-disk", NULL, "SIZE",
		 "at most SIZE bytes of snapshots in "
		 "DIR (default: no limit)",
		 OPT_FUNC, .fn = flight_size_arg, .ctx = &o.max_disk},
		{"--max-snapshots", NULL, "N",
		 "stop saving after N snapshots "
		 "(default: no limit)",
		 OPT_INT, &o.max_snapshots, 0, 1000000},
		{"--poll", NULL, "DURATION",
		 "how often the ring is looked at "
		 "(default 2ms)",
		 OPT_DURATION, &o.poll_ns, 100000, 1000000000, 1e9},
		{"--quiet", "-q", NULL, "say nothing but errors", OPT_FLAG,
		 &o.quiet},
		OPT_END,
	};
	const struct cmd_usage u = {"watch",
				    "[OPTIONS] RING|RUNDIR --trigger EXPR... "
				    "-o DIR\n"
				    "--pid PID --trigger EXPR... -o DIR",
				    "The flight recorder: follows a live ring "
				    "or run from outside "
				    "the program and, when a trigger fires, "
				    "saves a snapshot into "
				    "DIR: the window before the trigger, what "
				    "came --after it, and "
				    "beyond the window what the watcher kept "
				    "of the threads "
				    "causally upstream of the one that fired.  "
				    "Stops when the "
				    "program ends (or on SIGINT, SIGTERM).  "
				    "weft mark fires the "
				    "trigger 'mark' by hand.  See "
				    "docs/flight.md.",
				    opts, 0};
	const char **ops = calloc((size_t)argc + 1, sizeof *ops);
	if (!ops)
		die("out of memory");
	int nops, rc = opts_parse(&u, argc, argv, ops, &nops, NULL);
	char found[4200];
	if (rc < 0 && (!dir || nops + !!pid != 1 || !trig.n))
		rc = opts_error(&u, "%s",
				!dir	  ? "-o DIR is needed"
				: !trig.n ? "at least one --trigger is needed"
					  : "one RING, RUNDIR or --pid PID");
	if (rc < 0 && flight_triggers(&o, &trig))
		rc = 2;
	if (rc >= 0) {
		free(ops);
		free(trig.v);
		return rc;
	}
	if (pid) {
		if (trace_by_pid(pid, found, sizeof found)) {
			free(ops);
			free(trig.v);
			return 1;
		}
		o.src = found;
	} else
		o.src = ops[0];
	o.dir = dir;
	o.stop = &stop_watch;
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc = watch_run(&o);
	free(ops);
	free(trig.v);
	return rc;
}

int cmd_mark(int argc, char **argv)
{
	const struct opt opts[] = {OPT_END};
	const struct cmd_usage u = {"mark", "PID|RUNDIR|RING [TEXT]",
				    "Fires the trigger 'mark' of the watchers "
				    "of a process, run or "
				    "ring (weft watch, weft record --flight) "
				    "by hand: a file in the "
				    "run's marks/ directory (RING.marks/ for a "
				    "ring), which the "
				    "watcher reads and removes within a poll.  "
				    "TEXT goes into the "
				    "snapshot's note.",
				    opts, 0};
	const char **ops = calloc((size_t)argc + 1, sizeof *ops);
	if (!ops)
		die("out of memory");
	int nops, rc = opts_parse(&u, argc, argv, ops, &nops, NULL);
	if (rc < 0 && (nops < 1 || nops > 2))
		rc = opts_usage(&u);
	if (rc >= 0) {
		free(ops);
		return rc;
	}
	char found[4200];
	const char *src = ops[0];
	char *end;
	long pid = strtol(src, &end, 10);
	struct stat sb;
	if (!*end && pid > 0 && stat(src, &sb) < 0) {
		if (trace_by_pid((int)pid, found, sizeof found)) {
			free(ops);
			return 1;
		}
		src = found;
	} else if (stat(src, &sb) < 0) {
		free(ops);
		return error_errno("cannot mark '%s'", src);
	}
	char dir[4400], tmp[4600], final[4600];
	mark_dir(src, dir, sizeof dir);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		free(ops);
		return error_errno("cannot make '%s'", dir);
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(final, sizeof final, "%s/%lld.%09ld-%d", dir,
		 (long long)ts.tv_sec, ts.tv_nsec, (int)getpid());
	snprintf(tmp, sizeof tmp, "%s/.%d.tmp", dir, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	const char *text = nops > 1 ? ops[1] : "";
	int err = fd < 0;
	if (!err && (write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
		     write(fd, "\n", 1) != 1))
		err = 1;
	if (fd >= 0 && close(fd) < 0)
		err = 1;
	if (err || rename(tmp, final) < 0) {
		int e = errno;
		unlink(tmp);
		free(ops);
		errno = e;
		return error_errno("cannot write '%s'", final);
	}
	fprintf(stderr, "weft: marked '%s'\n", src);
	free(ops);
	return 0;
}
