/* SPDX-License-Identifier: MIT */
/*
 * cmd-record.c - `weft record [-o FILE] [--size BYTES] [--mode MODE]
 * [--loops LIST] -- CMD [ARGS...]`: runs CMD with the shims of the event
 * loops it needs preloaded (record-loops.c) and the ring set up through
 * the environment (WEFT_FILE...), forwards SIGINT, SIGTERM and SIGHUP to
 * it, exits with its status, and says where every trace went and which
 * loops were traced: CMD writes FILE; any process it starts that records
 * (a child that inherits the environment) writes FILE.PID.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/settings.h"
#include "record-loops.h"
#include "weft-tools.h"

#define USAGE                                                                  \
	"weft record [-o FILE] [--size BYTES] [--mode overwrite|discard] "     \
	"[--clock auto|monotonic] [--loops uv,event,glib|all|none] -- "        \
	"CMD [ARGS...]"

static volatile sig_atomic_t child_pid;

static void forward(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

/* The loops the traces showed (record_loop_of_kind's bits). */
static unsigned loops_seen;

/* Prints what a trace of this run (its session) holds; returns its event
 * count, -1 when unreadable, -2 when it is no trace of this run (a file
 * of another run, or no weft trace at all: not printed). */
static long summarize(const char *path, int pid_main, uint64_t session,
		      int exec_image)
{
	unsigned loops = 0;
	struct weft_reader *r;
	struct weft_diag d;
	int err = weft_reader_open(&r, path, 0, &d);
	if (err == WEFT_ENOTTRACE || err == WEFT_EEMPTY)
		return -2;
	if (err) {
		fprintf(stderr, "weft:   %s: unreadable (%s)\n", path, d.msg);
		return -1;
	}
	const struct weft_trace_info *in = weft_reader_info(r);
	if (in->session != session) {
		weft_reader_close(r);
		return -2;
	}
	struct weft_event ev;
	while (weft_reader_next(r, &ev) == 0)
		if (ev.type == WEFT_EV_CREATE || ev.type == WEFT_EV_CREATE_LABEL)
			loops |= record_loop_of_kind(
				weft_reader_name(r, ev.name));
	in = weft_reader_info(r); /* the counts, now complete */
	const struct weft_losses *l = &in->losses;
	long n = (long)in->events;
	fprintf(stderr, "weft:   %s: %s pid %u%s%s, %llu events, %u OS threads",
		path, in->comm, in->pid,
		(int)in->pid != pid_main ? " (a child)" : "",
		exec_image ? " (after exec)" : "",
		(unsigned long long)in->events, in->nstreams);
	if (l->packets_lost || l->events_discarded)
		fprintf(stderr, ", lost %llu packets and %llu events",
			(unsigned long long)l->packets_lost,
			(unsigned long long)l->events_discarded);
	char names[64];
	record_loops_names(loops, names, sizeof names);
	if (loops)
		fprintf(stderr, ", loops: %s", names);
	loops_seen |= loops;
	fputc('\n', stderr);
	weft_reader_close(r);
	return n;
}

/* Refuses an output the recorder would refuse too, before running the
 * program: anything that exists and is not a regular file (a device, a
 * FIFO, a socket, a directory: weft never replaces one; a symbolic link
 * is followed, as the recorder follows it), or a ring another process is
 * writing.  Then removes a trace of an earlier run at FILE (a weft ring,
 * nothing else), so that what FILE holds afterwards is this run's. */
static int check_output(const char *abs, const char *out)
{
	struct stat sb;
	if (stat(abs, &sb) < 0)
		return 0; /* nothing there (or a link to nothing): created */
	if (!S_ISREG(sb.st_mode))
		return error("'%s' is not a regular file: weft never replaces "
			     "a device, FIFO, socket or directory",
			     out),
		       2;
	int fd = open(abs, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return 0; /* the recorder will say why */
	char magic[8] = "";
	int ring = read(fd, magic, 8) == 8 && !memcmp(magic, "WEFTRING", 8);
	int live = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	if (live)
		return error("'%s' is being written by another process", out),
		       2;
	if (ring) {
		/* Through a symbolic link: the file it names. */
		char real[PATH_MAX];
		if (realpath(abs, real))
			unlink(real);
	}
	return 0;
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
	error("%s '%s': %s; expected %s", what, v,
	      weft__setting_problem(err), si->help);
	return 2;
}

/* The ring of CMD itself must fit on the disk (each child that records
 * takes another: those may still fail, and say so). */
static int check_space(const char *abs, const char *out, uint64_t bytes)
{
	char dir[PATH_MAX * 2];
	snprintf(dir, sizeof dir, "%s", abs);
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = 0;
	else
		*slash = 0;
	struct statvfs vs;
	if (statvfs(dir, &vs) < 0)
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

int cmd_record(int argc, char **argv)
{
	const char *out = "weft.trace", *size = NULL, *mode = NULL,
		   *clock = NULL, *loops_opt = NULL;
	int i = 1;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "--size") && i + 1 < argc)
			size = argv[++i];
		else if (!strcmp(argv[i], "--mode") && i + 1 < argc)
			mode = argv[++i];
		else if (!strcmp(argv[i], "--clock") && i + 1 < argc)
			clock = argv[++i];
		else if (!strcmp(argv[i], "--loops") && i + 1 < argc)
			loops_opt = argv[++i];
		else if (argv[i][0] == '-')
			return usage(USAGE);
		else
			break;
	}
	if (i >= argc)
		return usage(USAGE);
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
	int err = check_output(abs, out);
	if (!err)
		err = check_space(abs, out, set.size);
	if (err)
		return err;

	static struct record_loops shims;
	if (record_loops_choose(argv[i], loops_opt, &shims) < 0)
		return usage(USAGE);
	if (shims.missing[0])
		fprintf(stderr, "weft: no shim for %s (not built, or not found; "
				"WEFT_SHIM_DIR names their directory)\n",
			shims.missing);
	char session[32];
	snprintf(session, sizeof session, "%llx",
		 (unsigned long long)time(NULL) << 20 ^ (unsigned)getpid());

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
		setenv("WEFT_FILE", abs, 1);
		setenv("WEFT_ROOT_PID", pidstr, 1);
		setenv("WEFT_SESSION", session, 1);
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
	if (read(errpipe[0], &e, sizeof e) == (ssize_t)sizeof e) {
		waitpid(pid, NULL, 0);
		return error("cannot run '%s': %s", argv[i], strerror(e)), 127;
	}
	close(errpipe[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	int rc = WIFEXITED(st) ? WEXITSTATUS(st)
		 : WIFSIGNALED(st) ? 128 + WTERMSIG(st)
				   : 1;

	/* Where the traces went: FILE, FILE.PID of the other processes,
	 * FILE.PID.N of the images a process exec'd (docs/format.md), of
	 * this run only (its session).  A process makes its ring at its
	 * first event: one that recorded nothing left no file. */
	fprintf(stderr, "weft: %s exited %s %d; traces:\n", argv[i],
		WIFSIGNALED(st) ? "on signal" : "with status",
		WIFSIGNALED(st) ? WTERMSIG(st) : rc);
	uint64_t sess = strtoull(session, NULL, 16);
	int found = 0, older = 0;
	const char *first = NULL;
	char firstbuf[PATH_MAX * 2 + 300];
	if (access(abs, F_OK) == 0 && summarize(abs, pid, sess, 0) >= 0) {
		found++;
		first = out;
	}
	char dir[PATH_MAX * 2];
	snprintf(dir, sizeof dir, "%s", abs);
	char *slash = strrchr(dir, '/');
	*slash = 0;
	const char *base = slash + 1 - dir + abs;
	size_t blen = strlen(base);
	DIR *dp = opendir(dir[0] ? dir : "/");
	struct dirent *de;
	while (dp && (de = readdir(dp))) {
		/* FILE.PID or FILE.PID.N */
		const char *x = de->d_name + blen;
		size_t d1 = strncmp(de->d_name, base, blen) || *x != '.'
				    ? 0
				    : strspn(x + 1, "0123456789");
		if (!d1 || (x[1 + d1] &&
			    (x[1 + d1] != '.' || !x[2 + d1] ||
			     strspn(x + 2 + d1, "0123456789") !=
				     strlen(x + 2 + d1))))
			continue;
		char p[PATH_MAX * 2 + 300];
		snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
		long n = summarize(p, pid, sess, x[1 + d1] == '.');
		if (n == -2) {
			older++;
			continue;
		}
		found++;
		if (!first) {
			snprintf(firstbuf, sizeof firstbuf, "%s", p);
			first = firstbuf;
		}
	}
	if (dp)
		closedir(dp);
	if (older)
		fprintf(stderr, "weft:   (%d more file%s named like these, "
				"not of this run: left as they are)\n",
			older, older == 1 ? "" : "s");
	char names[64];
	record_loops_names(loops_seen, names, sizeof names);
	fprintf(stderr, "weft: traced loops: %s; preloaded: %s\n",
		loops_seen ? names : "none",
		shims.what[0] ? shims.what : "no shim");
	if (!found)
		fprintf(stderr, "weft:   none: %s recorded nothing (no traced "
				"loop and no instrumentation?)\n",
			argv[i]);
	else
		fprintf(stderr, "weft: look with: weft dump %s | weft why %s | "
				"weft stats %s\n",
			first, first, first);
	return rc;
}
