/* SPDX-License-Identifier: MIT */
/*
 * run.c - the manifest of a run (docs/format.md, "Runs").
 *
 * With WEFT_RUN=DIR in its environment (`weft record` sets it), every
 * process that loads libweft records into DIR (its ring is DIR/ring, or
 * DIR/ring.PID...: env.c) and appends what the process tree needs to
 * DIR/manifest, one line per fact, each line one write(2) on a file
 * opened with O_APPEND, so that lines of different processes never mix:
 *   proc    when an image loads: pid, parent, start token, exe, arguments
 *   fork    in a child, at fork: its parent's OS thread and the async
 *           thread that created it (a spawn request, or the one running)
 *   spawn   in a parent, when posix_spawn started a child (no fork
 *           handler runs in it), or when the preloaded shim's fork()
 *           returned (the parent says it while the child goes on to
 *           exec, rather than the child before it): the same, for that
 *           child
 *   ring    when its ring is made
 *   exit    at exit(), or _exit() in the preloaded shim: its status
 *   reaped  in a parent, when its wait returned a child's end
 * Times are CLOCK_MONOTONIC of the machine (out of the writer's time
 * namespace) and CLOCK_REALTIME, in ns.
 *
 * A process that records nothing pays a few system calls when it loads
 * and when it exits; nothing else.  The fork line is written by the
 * child between fork and whatever it does next (exec, usually), with
 * only async-signal-safe calls: open, write, close, clock_gettime.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WEFT_ENABLE 1
#include "weft/weft.h"

#include "record.h"
#include "common/manifest.h"
#include "common/sysfacts.h"
#include "record/exec-env.h"

#define LINE_MAX_ 16384

static char manifest[4200]; /* DIR/manifest; "" when not in a run */
static int64_t timens;	    /* the machine's CLOCK_MONOTONIC minus ours */
/* WEFT_FORKED's value in this process's environment: FORKED_DIGITS
 * digits, the pid of the last process that wrote its fork line (weft
 * record writes the first).  A forked child writes its pid there in place
 * (no allocation: between fork and exec), and the image it execs finds
 * it: a fork line already started that process, so its proc line needs
 * no start token (read from /proc, the dearest part of a process's start
 * under weft record).  NULL when the environment has none. */
#define FORKED_DIGITS 10
static char *forked;
/* This process's pid when it is a forked child whose fork line was
 * written (its exec may have to carry WEFT_FORKED itself: weft__exec_env),
 * else 0. */
static pid_t fork_line;

/* The thread that forks, as its prepare handler saw it (the child is a
 * copy of that thread). */
static __thread uint32_t fork_tid;
/* ... and its process: the child's parent, which getppid() no longer
 * names once the parent has gone (glibc's daemon(): the parent leaves at
 * once, and the child is some subreaper's before it says its line). */
static __thread int fork_ppid;
static __thread uint64_t fork_by;
static __thread int fork_spawn;
/* Set around a fork of the preloaded shim's fork(), whose parent writes
 * the child's line (weft__fork_end): the child inherits it and writes
 * none.  The fork's time is taken before the fork (every fork: the
 * prepare handler), so that it comes before anything the child says,
 * and before its parent's end. */
static __thread int parent_writes;
static __thread int64_t fork_t, fork_real;
/* weft_spawning(): the spawn request this OS thread is carrying out. */
static __thread uint64_t spawner;

/* A line built with no stdio (async-signal-safe), in its caller's
 * buffer: a process's first line (its arguments) may be long, the others
 * are short and built on the stack (a static buffer each would be a page
 * touched, a page fault, in every process of a traced tree). */
struct line {
	char *b;
	size_t cap, n;
	int full;
};
#define SHORT_LINE 512

static void put(struct line *l, const char *s, size_t n)
{
	if (l->n + n + 2 > l->cap) {
		l->full = 1;
		return;
	}
	memcpy(l->b + l->n, s, n);
	l->n += n;
}

static void puts_(struct line *l, const char *s)
{
	put(l, s, strlen(s));
}

static void putu(struct line *l, uint64_t v, int base)
{
	char d[24];
	int k = sizeof d;
	do {
		d[--k] = "0123456789abcdef"[v % (unsigned)base];
		v /= (unsigned)base;
	} while (v);
	put(l, d + k, sizeof d - (size_t)k);
}

static void puti(struct line *l, int64_t v)
{
	if (v < 0) {
		put(l, "-", 1);
		putu(l, (uint64_t)0 - (uint64_t)v, 10);
	} else
		putu(l, (uint64_t)v, 10);
}

/* " key=", for a key of the manifest's table (common/manifest.h). */
static void putkey(struct line *l, unsigned key)
{
	put(l, " ", 1);
	puts_(l, weft_mkey_word(key));
	put(l, "=", 1);
}

/* " key=value", the value %XX-escaped (bytes up to space, '%', DEL). */
static void putesc(struct line *l, unsigned key, const char *v)
{
	putkey(l, key);
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if (*p <= ' ' || *p == '%' || *p == 0x7f) {
			char e[3] = {'%', "0123456789ABCDEF"[*p >> 4],
				     "0123456789ABCDEF"[*p & 15]};
			put(l, e, 3);
		} else
			put(l, (const char *)p, 1);
		if (l->full)
			return;
	}
}

/* " key=value", in decimal. */
static void putkv(struct line *l, unsigned key, int64_t v)
{
	putkey(l, key);
	puti(l, v);
}

static int64_t now(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void put_times(struct line *l)
{
	putkv(l, WEFT_MK_T, now(CLOCK_MONOTONIC) + timens);
	putkv(l, WEFT_MK_REAL, now(CLOCK_REALTIME));
}

static void emit(struct line *l)
{
	l->b[l->n++] = '\n';
	int fd =
		open(manifest, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	/* (the system calls themselves: a preloaded shim's write() would
	 * take a descriptor number a traced handle once had for the
	 * handle's, and its close() looks the real one up at first use) */
	long w = syscall(SYS_write, fd, l->b, l->n);
	(void)w;
	syscall(SYS_close, fd);
}

static void begin(struct line *l, char *buf, size_t cap)
{
	l->b = buf;
	l->cap = cap;
	l->n = 0;
	l->full = 0;
}

/* A line about process pid (this one: a line written at start-up or
 * fork passes the pid it already has, a system call less). */
static void start(struct line *l, char *buf, size_t cap, unsigned kind, int pid)
{
	begin(l, buf, cap);
	puts_(l, weft_mline_word(kind));
	putkv(l, WEFT_MK_PID, pid);
}

/* Its start time in clock ticks since boot (/proc/self/stat, field 22):
 * the same across exec, another for a pid used again. */
static uint64_t start_token(void)
{
	char b[1024];
	if (weft__read_small("/proc/self/stat", b, sizeof b) <= 0)
		return 0;
	const char *p = strrchr(b, ')');
	if (!p)
		return 0;
	/* fields 3.. follow ") " */
	int field = 2;
	for (p++; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	uint64_t v = 0;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (uint64_t)(*p++ - '0');
	return v;
}

/* The exit line: at exit() (an on_exit handler), or at _exit() (the
 * preloaded shim's wrapper, src/shim/exit.c, maybe in a vfork child or
 * in a child forked by a multithreaded parent: system calls and the
 * stack only).  The status its parent will see: the low 8 bits. */
void weft__run_exit(int status)
{
	if (!manifest[0])
		return;
	char b[SHORT_LINE];
	struct line l;
	start(&l, b, sizeof b, WEFT_ML_EXIT, (int)syscall(SYS_getpid));
	putkv(&l, WEFT_MK_STATUS, status & 0xff);
	/* (a vfork child has no other line: its parent) */
	putkv(&l, WEFT_MK_PPID, syscall(SYS_getppid));
	put_times(&l);
	emit(&l);
}

static void on_exit_(int status, void *arg)
{
	(void)arg;
	weft__run_exit(status);
}

void weft__run_prepare(void)
{
	if (!manifest[0])
		return;
	fork_tid = (uint32_t)syscall(SYS_gettid);
	fork_ppid = (int)syscall(SYS_getpid);
	/* the fork's time, for the child's line: before the parent can end
	 * (the reader finds the parent that was alive then) */
	fork_t = now(CLOCK_MONOTONIC) + timens;
	fork_real = now(CLOCK_REALTIME);
	fork_spawn = spawner != 0;
	fork_by = spawner ? spawner : weft__current();
}

/* pid as WEFT_FORKED's value: FORKED_DIGITS digits, zero-padded. */
static void put_pid(char *d, uint64_t pid)
{
	for (int k = FORKED_DIGITS - 1; k >= 0; k--, pid /= 10)
		d[k] = (char)('0' + pid % 10);
}

void weft__fork_begin(void)
{
	if (!manifest[0])
		return;
	parent_writes = 1;
	fork_t = now(CLOCK_MONOTONIC) + timens;
	fork_real = now(CLOCK_REALTIME);
}

/* The child's line, as `spawn` (it may come after the child's own lines:
 * the reader takes them in either order). */
void weft__fork_end(int pid)
{
	if (!parent_writes)
		return; /* (not in a run, or a fork inside the fork) */
	parent_writes = 0;
	if (pid <= 0)
		return;
	char b[SHORT_LINE];
	struct line l;
	start(&l, b, sizeof b, WEFT_ML_SPAWN, getpid());
	putkv(&l, WEFT_MK_CHILD, pid);
	putkv(&l, WEFT_MK_TID, fork_tid);
	putkey(&l, WEFT_MK_BY);
	putu(&l, fork_by, 16);
	putkv(&l, WEFT_MK_SPAWN, fork_spawn);
	putkv(&l, WEFT_MK_FORK, 1); /* (it runs this program until it execs) */
	putkv(&l, WEFT_MK_T, fork_t);
	putkv(&l, WEFT_MK_REAL, fork_real);
	emit(&l);
}

void weft__run_child(void)
{
	if (!manifest[0])
		return;
	/* (system calls through syscall(), which the proc line has used:
	 * a libc function called here first would be bound here, and
	 * binding looks through every library's symbol tables) */
	fork_line = (pid_t)syscall(SYS_getpid);
	if (parent_writes) {
		/* its parent writes its line, once fork() returned there:
		 * the child goes on to exec meanwhile */
		parent_writes = 0;
		if (forked)
			put_pid(forked, (uint64_t)fork_line);
		spawner = 0;
		return;
	}
	char b[SHORT_LINE];
	struct line l;
	start(&l, b, sizeof b, WEFT_ML_FORK, fork_line);
	putkv(&l, WEFT_MK_PPID, fork_ppid ? fork_ppid : syscall(SYS_getppid));
	putkv(&l, WEFT_MK_TID, fork_tid);
	putkey(&l, WEFT_MK_BY);
	putu(&l, fork_by, 16);
	putkv(&l, WEFT_MK_SPAWN, fork_spawn);
	putkv(&l, WEFT_MK_T, fork_t);
	putkv(&l, WEFT_MK_REAL, fork_real);
	emit(&l);
	if (forked)
		put_pid(forked, (uint64_t)fork_line);
	spawner = 0;
}

/* Whether environment entry e is WEFT_FORKED's (no strncmp: see
 * weft__run_child()). */
static const char forked_key[] = "WEFT_FORKED=";
#define FORKED_KEY (sizeof forked_key - 1)
static int is_forked(const char *e)
{
	for (size_t i = 0; i < FORKED_KEY; i++)
		if (e[i] != forked_key[i])
			return 0;
	return 1;
}

/* An exec in a forked child passes the environment its program chose: a
 * copy made before the fork (ctest's, through uv_spawn), or a shell's
 * own, carries WEFT_FORKED as it was, not as the fork handler wrote it,
 * and the image then reads its start token from /proc.  Only a child
 * whose fork line was written, and only an environment that has the
 * variable (one that left it out keeps it out). */
size_t weft__exec_env_len(char *const envp[])
{
	if (!fork_line || !envp || fork_line != (pid_t)syscall(SYS_getpid))
		return 0; /* (getpid: not in a vfork child of that child) */
	const char *e = NULL;
	size_t n = 0;
	for (; envp[n]; n++)
		if (!e && is_forked(envp[n]))
			e = envp[n] + FORKED_KEY; /* (getenv's: the first) */
	if (!e || n >= WEFT_EXEC_ENV_MAX)
		return 0;
	char mine[FORKED_DIGITS];
	put_pid(mine, (uint64_t)fork_line);
	int k = 0;
	while (k < FORKED_DIGITS && e[k] == mine[k])
		k++;
	return k == FORKED_DIGITS && !e[k] ? 0 : n;
}

void weft__exec_env(char *const envp[], char *env[], char val[WEFT_FORKED_VAR])
{
	for (size_t i = 0; i < FORKED_KEY; i++)
		val[i] = forked_key[i];
	put_pid(val + FORKED_KEY, (uint64_t)fork_line);
	val[FORKED_KEY + FORKED_DIGITS] = 0;
	size_t n = 0;
	for (; envp[n]; n++)
		env[n] = is_forked(envp[n]) ? val : envp[n];
	env[n] = NULL;
}

/* Whether this process's fork line was written (WEFT_FORKED names it).
 * Only a value among the strings exec gave the process (on its stack,
 * after its arguments), which it is free to change: not one of an
 * environment the program built. */
static int fork_written(int pid, char **argv)
{
	const char *v = getenv("WEFT_FORKED");
	if (!v || strlen(v) != FORKED_DIGITS || !argv || !argv[0] ||
	    v <= argv[0] || v - argv[0] > (8 << 20))
		return 0;
	uint64_t named = 0;
	for (int k = 0; k < FORKED_DIGITS; k++) {
		if (v[k] < '0' || v[k] > '9')
			return 0;
		named = named * 10 + (uint64_t)(v[k] - '0');
	}
	forked = (char *)v; /* (the environment's own bytes: writable) */
	return named == (uint64_t)pid;
}

/* The executable's path, as /proc/self/exe says it (symbolic links
 * resolved), without reading /proc when the kernel's AT_EXECFN (the name
 * exec was given) is the executable itself: reading /proc is most of what
 * a process of a traced tree that never records pays at start-up.  Not
 * for a script (or a binfmt_misc program): its interpreter runs, and the
 * script's name is among the interpreter's arguments. */
static void exe_path(char exe[PATH_MAX], int argc, char **argv)
{
	const char *fn = (const char *)getauxval(AT_EXECFN);
	int script = !fn || !*fn;
	for (int i = 1; !script && argv && i < argc && argv[i]; i++)
		script = !strcmp(argv[i], fn);
	if (!script && realpath(fn, exe))
		return;
	ssize_t k = readlink("/proc/self/exe", exe, PATH_MAX - 1);
	exe[k > 0 ? k : 0] = 0;
}

void weft__run_init(const char *dir, int pid, int argc, char **argv)
{
	size_t n = strlen(dir);
	if (n + sizeof "/manifest" > sizeof manifest)
		return;
	memcpy(manifest, dir, n);
	memcpy(manifest + n, "/manifest", sizeof "/manifest");
	timens = weft__timens_inherit(getenv("WEFT_TIMENS"));
	on_exit(on_exit_, NULL);

	static char b[LINE_MAX_]; /* (once, at load) */
	struct line l;
	start(&l, b, sizeof b, WEFT_ML_PROC, pid);
	putkv(&l, WEFT_MK_PPID, getppid());
	/* (a process that wrote a fork line needs no token: the fork line
	 * started it, and a later proc line of its pid is its exec) */
	putkv(&l, WEFT_MK_START,
	      fork_written(pid, argv) ? 0 : (int64_t)start_token());
	put_times(&l);
	char exe[PATH_MAX];
	exe_path(exe, argc, argv);
	putesc(&l, WEFT_MK_EXE, exe);
	for (int i = 0; argv && i < argc && argv[i] && !l.full; i++)
		putesc(&l, WEFT_MK_ARG, argv[i]);
	if (l.full) {
		/* arguments cut to fit a line: said so */
		l.n = l.n < l.cap - 16 ? l.n : l.cap - 16;
		l.full = 0;
		putkv(&l, WEFT_MK_CUT, 1);
	}
	emit(&l);
}

void weft__run_ring(const char *name)
{
	if (!manifest[0])
		return;
	/* (once a process: the ring is made once; maybe in a signal
	 * handler, so no malloc) */
	char b[SHORT_LINE + 256];
	struct line l;
	const char *base = strrchr(name, '/');
	start(&l, b, sizeof b, WEFT_ML_RING, getpid());
	putesc(&l, WEFT_MK_FILE, base ? base + 1 : name);
	put_times(&l);
	emit(&l);
}

WEFT_API void weft__reaped(int pid, int status, int sig)
{
	if (!manifest[0])
		return;
	char b[SHORT_LINE];
	struct line l;
	begin(&l, b, sizeof b);
	puts_(&l, weft_mline_word(WEFT_ML_REAPED));
	putkv(&l, WEFT_MK_PID, pid);
	if (sig > 0)
		putkv(&l, WEFT_MK_SIGNAL, sig);
	else
		putkv(&l, WEFT_MK_STATUS, status);
	putkv(&l, WEFT_MK_BY, getpid());
	put_times(&l);
	emit(&l);
}

WEFT_API void weft__spawning(uint64_t thread)
{
	spawner = thread;
}

WEFT_API void weft__spawned(int pid)
{
	if (!manifest[0] || pid <= 0)
		return;
	/* The parent says it: posix_spawn's child runs no fork handler
	 * (glibc clones it with CLONE_VFORK and it execs at once), so the
	 * line that a forked child writes is written here, after the
	 * child exists, naming it.  (Its own lines may come before or
	 * after this one: the reader takes them in either order.) */
	char b[SHORT_LINE];
	struct line l;
	start(&l, b, sizeof b, WEFT_ML_SPAWN, getpid());
	putkv(&l, WEFT_MK_CHILD, pid);
	putkv(&l, WEFT_MK_TID, (int64_t)syscall(SYS_gettid));
	putkey(&l, WEFT_MK_BY);
	putu(&l, spawner ? spawner : weft__current(), 16);
	putkv(&l, WEFT_MK_SPAWN, spawner != 0);
	put_times(&l);
	emit(&l);
}
