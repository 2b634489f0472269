/* SPDX-License-Identifier: MIT */
/*
 * env.c - start-up from the environment, fork and exec.
 *
 * A program linked with libweft (or preloading an integration that is)
 * with WEFT_FILE in its environment checks its settings when it loads and
 * makes its ring at its first event (docs/format.md, "Which file a process
 * writes"): every process of a tree inherits the environment, most of
 * them record nothing, and those cost next to nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#define WEFT_ENABLE 1
#include "weft/weft.h"

#include "../common/settings.h"
#include "record.h"
#include "record/exec-env.h"

#define g weft__g

/* Set on the OS thread making the ring: a signal handler that
 * interrupts it and records finds the ring half made, and drops its
 * events (counted in weft__early_nested, then in the stream's losses). */
static __thread int creating;
__thread uint64_t weft__early_nested;

/* One line on standard error, in one write(2): no stdio (the first event,
 * which makes a ring started from the environment, may be in a signal
 * handler), and whole even when several processes of a tree say it. */
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof buf) {
		n = sizeof buf;
		buf[n - 1] = '\n';
	}
	ssize_t w = write(2, buf, (size_t)n);
	(void)w;
}

/* The file a process started from the environment records into:
 *  - FILE for the process `weft record` started (WEFT_ROOT_PID; without
 *    it, the first process of the tree that loads libweft), unless a live
 *    writer holds FILE: then FILE.PID;
 *  - FILE.PID for any other (a child that inherited the environment);
 *  - after exec, FILE.PID.N for the Nth new image of a process whose
 *    earlier image recorded: a ring at the name above with this pid and
 *    this session says so.  An exec never rewrites what came before. */
static int env_name(char *name, size_t cap)
{
	int pid = (int)getpid(), n;
	char path[4096];
	struct weft__ring_id r = {0};
	if (pid == g.env_root) {
		n = snprintf(name, cap, "%s", g.env_path);
		if (!weft__resolve_target(name, path, sizeof path))
			weft__ring_id(path, &r);
	}
	if (pid != g.env_root || r.held) {
		n = snprintf(name, cap, "%s.%d", g.env_path, pid);
		if (n < 0 || (size_t)n >= cap)
			return -ENAMETOOLONG;
		if (!weft__resolve_target(name, path, sizeof path))
			weft__ring_id(path, &r);
	}
	for (int k = 1; r.exists && !r.held && r.pid == (uint32_t)pid &&
			r.session == g.env_session;
	     k++) {
		n = snprintf(name, cap, "%s.%d.%d", g.env_path, pid, k);
		if (n < 0 || (size_t)n >= cap)
			return -ENAMETOOLONG;
		memset(&r, 0, sizeof r);
		if (!weft__resolve_target(name, path, sizeof path))
			weft__ring_id(path, &r);
	}
	return 0;
}

/* The first event of a process started from the environment: make its
 * ring.  One OS thread makes it; the others wait (it takes a few
 * milliseconds); a signal handler interrupting the maker drops its
 * events (counted).  Returns 1 when the ring is ready. */
int weft__ring_from_env(void)
{
	int s = RING_PENDING;
	if (__atomic_compare_exchange_n(&g.state, &s, RING_CREATING, 0,
					__ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE)) {
		char name[4200];
		creating = 1;
		int err = env_name(name, sizeof name);
		if (!err)
			err = weft__ring_create(name, g.env_size, g.env_flags,
						g.env_session);
		if (!err)
			weft__run_ring(name);
		creating = 0;
		if (err) {
			say("weft: cannot trace into '%s': %s; running "
			    "untraced\n",
			    name, weft_strerror(err));
			__atomic_store_n(&weft__on, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&g.state, RING_NONE, __ATOMIC_RELEASE);
			return 0;
		}
		/* Pairs with the acquire loads of g.state in attach() and
		 * below. */
		__atomic_store_n(&g.state, RING_READY, __ATOMIC_RELEASE);
		return 1;
	}
	if (s == RING_CREATING) {
		if (creating) {
			weft__early_nested++;
			return 0;
		}
		struct timespec pause = {0, 200000};
		while ((s = __atomic_load_n(&g.state, __ATOMIC_ACQUIRE)) ==
		       RING_CREATING)
			nanosleep(&pause, NULL);
	}
	return s == RING_READY;
}

static void (*before_fork_hook)(void);

void weft__on_before_fork(void (*hook)(void))
{
	__atomic_store_n(&before_fork_hook, hook, __ATOMIC_RELEASE);
}

/* Before every fork (the parent, in any process that loaded libweft). */
static void before_fork(void)
{
	/* (the preloaded shim's exec wrappers find their real functions
	 * now, in the parent: a lookup in the child would page in every
	 * library's symbol tables again, a dozen page faults) */
	void (*hook)(void) =
		__atomic_load_n(&before_fork_hook, __ATOMIC_ACQUIRE);
	if (hook)
		hook();
	weft__run_prepare();
}

static void after_fork_child(void)
{
	unsigned on = __atomic_load_n(&weft__on, __ATOMIC_RELAXED);
	int state = __atomic_load_n(&g.state, __ATOMIC_RELAXED);
	/* The child must never write into its parent's ring. */
	__atomic_store_n(&weft__on, 0, __ATOMIC_RELAXED);
	weft__stream_forget();
	if (weft__early_nested) /* (no write, no copy of its page) */
		weft__early_nested = 0;
	if (g.fd >= 0) {
		/* close, not LOCK_UN: the lock belongs to the open file
		 * description that the parent still uses (the system call:
		 * close() is the shims' wrapper in the preloaded library) */
		syscall(SYS_close, g.fd);
		g.fd = -1;
	}
	if (on && state == RING_READY && !g.stale_base) {
		/* never written again here; unmapped if this process makes
		 * a ring of its own (weft__ring_create) */
		g.stale_base = g.base;
		g.stale_size = g.size;
		g.stale_priv = g.priv;
		g.stale_priv_size = g.priv_size;
	} else if (on && state == RING_READY) {
		munmap(g.base, g.size);
		munmap(g.priv, g.priv_size);
	}
	g.hdr = NULL;
	g.state = RING_NONE;
	if (on && g.from_env) {
		/* Started from the environment: the child records into a
		 * file of its own, made at its first event (env_name()). */
		g.state = RING_PENDING;
		g.gen = weft__next_gen();
		__atomic_store_n(&weft__on, g.gen, __ATOMIC_RELAXED);
	}
	weft__run_child(); /* (in a run: the fork line) */
}

/* Started with WEFT_FILE in the environment: check every setting now (a
 * bad one is said once, and the program runs untraced), and record from
 * the first event on. */
__attribute__((constructor)) static void weft_autostart(int argc, char **argv)
{
	pthread_atfork(before_fork, NULL, after_fork_child);
	/* Now rather than in a first event that a signal handler records. */
	weft__streams_init();
	/* The TSC's calibration starts now and ends when a ring is made
	 * (clock.c): a fraction of a microsecond, not 2 ms at the first
	 * event. */
	weft__clock_early();
	const char *path = getenv("WEFT_FILE");
	/* A run directory (weft record): the ring is DIR/ring (DIR/ring.PID
	 * for the other processes), and a manifest of the tree beside. */
	const char *run = getenv("WEFT_RUN");
	/* (no stdio here: its code would be paged in by every process of a
	 * traced tree, most of which never record) */
	static char in_run[4200];
	size_t rl = run ? strlen(run) : 0;
	if ((!path || !*path) && rl && rl + sizeof "/ring" <= sizeof in_run) {
		memcpy(in_run, run, rl);
		memcpy(in_run + rl, "/ring", sizeof "/ring");
		path = in_run;
	} else
		run = NULL;
	if (!path || !*path)
		return;
	/* Every setting, checked now: a bad one is said once, and the
	 * program runs untraced. */
	struct weft__settings set = {0};
	for (int k = 0; k < WEFT__NSETTINGS; k++) {
		const char *var = weft__setting_info[k].var, *v = getenv(var);
		int err = v && *v ? weft__parse_setting(k, v, &set) : 0;
		if (err) {
			say("weft: %s='%s': %s; expected %s; running "
			    "untraced\n",
			    var, v, weft__setting_problem(err),
			    weft__setting_info[k].help);
			return;
		}
	}
	int root = set.root_pid, pid = (int)getpid();
	uint64_t session = set.session;
	char target[4096];
	/* (in a run, a process other than its first records into a file of
	 * its own, made in the run's directory at its first event: DIR/ring
	 * is not its file, and not worth a look at every start) */
	int err = strlen(path) + 32 > sizeof g.env_path ? -ENAMETOOLONG
		  : run && root && root != pid
			  ? 0
			  : weft__resolve_target(path, target, sizeof target);
	if (err) {
		say("weft: cannot trace into '%s': %s; running untraced\n",
		    path, weft_strerror(err));
		return;
	}
	/* The first traced process of a tree tells its descendants (they
	 * inherit the environment) that it writes FILE, and which run they
	 * belong to; weft record sets both itself. */
	char num[32];
	if (!root) {
		root = pid;
		snprintf(num, sizeof num, "%d", root);
		setenv("WEFT_ROOT_PID", num, 1);
	}
	if (!session) {
		while (!session)
			weft__random_bytes(&session, sizeof session);
		snprintf(num, sizeof num, "%llx", (unsigned long long)session);
		setenv("WEFT_SESSION", num, 1);
	}
	memcpy(g.env_path, path, strlen(path) + 1); /* (it fits: above) */
	g.env_size = (size_t)set.size;
	g.env_flags = set.flags;
	g.env_root = root;
	g.env_session = session;
	g.from_env = 1;
	if (run)
		weft__run_init(run, pid, argc, argv);
	g.gen = weft__next_gen();
	__atomic_store_n(&g.state, RING_PENDING, __ATOMIC_RELAXED);
	/* Pairs with the acquire load of g.state in attach(). */
	__atomic_store_n(&weft__on, g.gen, __ATOMIC_RELEASE);
}

__attribute__((destructor)) static void weft_autostop(void)
{
	if (__atomic_load_n(&weft__on, __ATOMIC_RELAXED))
		weft_stop();
}
