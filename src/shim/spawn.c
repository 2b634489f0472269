/* SPDX-License-Identifier: MIT */
/*
 * spawn.c - processes started with posix_spawn.  A forked child says in
 * the run's manifest which async thread of its parent created it (a fork
 * handler: src/record/run.c); posix_spawn's child runs no fork handler
 * (glibc clones it with CLONE_VFORK and it execs at once), so its parent
 * says it, once the call has returned the child's pid: the async thread
 * running on the OS thread that called posix_spawn, or the spawn request
 * weft_spawning() named.
 *
 * Out of reach (their child is created by the parent's process thread):
 * glibc's own uses of posix_spawn (system, popen: internal calls, not
 * through the PLT), and vfork (a wrapper cannot return twice).
 *
 * And fork: a forked child writes its own line (the fork handler,
 * src/record/run.c), between fork and exec, where the program that forks
 * usually waits for it (uv_spawn reads a pipe until the child has
 * exec'd).  A fork through this wrapper has its parent write the line
 * instead, as for posix_spawn, once fork() has returned there: while the
 * child goes on to exec.  A fork the wrapper does not see (glibc's
 * daemon(), a program's own clone) still has the child write it.
 *
 * And exec, in a forked child: the fork handler wrote the child's pid
 * into WEFT_FORKED (src/record/run.c), so that the image it execs knows
 * its process was started by a fork line and reads no start token from
 * /proc; but a program that execs with an environment of its own (a copy
 * made before the fork: ctest's, through uv_spawn; a shell's exported
 * variables) passes the old value.  The exec family's wrappers pass a
 * copy whose WEFT_FORKED names the child, built on the stack (between
 * fork and exec: no allocation), and nothing else changes.  glibc's
 * exec functions call each other inside libc, not through the PLT: each
 * the program can call is wrapped (but fexecve and execveat: their
 * image reads its start token, as before).
 */
#define _GNU_SOURCE
#include <alloca.h>
#include <spawn.h>
#include <stdarg.h>
#include <unistd.h>

#include "record/exec-env.h"
#include "shim.h"

/* The call, and on success the manifest's line (errno kept). */
#define SPAWN(name)                                                            \
	WEFT_SHIM_EXPORT int name(pid_t *pid, const char *path,                \
				  const posix_spawn_file_actions_t *fa,        \
				  const posix_spawnattr_t *attr,               \
				  char *const argv[], char *const envp[])      \
	{                                                                      \
		REAL(name);                                                    \
		pid_t got;                                                     \
		int err = real_##name(&got, path, fa, attr, argv, envp);       \
		if (err == 0) {                                                \
			int e = errno;                                         \
			weft__spawned(got);                                    \
			errno = e;                                             \
			if (pid)                                               \
				*pid = got;                                    \
		}                                                              \
		return err;                                                    \
	}

WEFT_SHIM_EXPORT pid_t fork(void)
{
	REAL(fork);
	weft__fork_begin();
	pid_t pid = real_fork();
	int e = errno;
	weft__fork_end(pid);
	errno = e;
	return pid;
}

SPAWN(posix_spawn)
SPAWN(posix_spawnp)

/* The exec family: fn (the real execve or execvpe) with envp as it is,
 * or with the copy that names this child. */
typedef int exec_fn(const char *, char *const[], char *const[]);

/* Found before the process's first fork (exec_prepare), or at the
 * first call. */
static exec_fn *real_execve_, *real_execvpe_;

static void exec_prepare(void)
{
	if (__atomic_load_n(&real_execve_, __ATOMIC_ACQUIRE))
		return;
	exec_fn *vpe = (exec_fn *)dlsym(RTLD_NEXT, "execvpe");
	exec_fn *ve = (exec_fn *)dlsym(RTLD_NEXT, "execve");
	__atomic_store_n(&real_execvpe_, vpe, __ATOMIC_RELAXED);
	__atomic_store_n(&real_execve_, ve, __ATOMIC_RELEASE);
}

/* libweft calls it before every fork (weft__on_before_fork) */
__attribute__((constructor)) static void exec_hook(void)
{
	weft__on_before_fork(exec_prepare);
}

static exec_fn *real_exec(int search)
{
	exec_prepare();
	return search ? __atomic_load_n(&real_execvpe_, __ATOMIC_RELAXED)
		      : __atomic_load_n(&real_execve_, __ATOMIC_RELAXED);
}

/* search: look file up in PATH (execvp). */
static int exec_(int search, const char *file, char *const argv[],
		 char *const envp[])
{
	exec_fn *fn = real_exec(search);
	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	size_t n = weft__exec_env_len(envp);
	if (!n) {
		LEAVING_STACK();
		return fn(file, argv, envp);
	}
	/* (on the stack, its own length: a fixed array of the largest
	 * would touch pages of stack the parent never used, each a page
	 * fault in the child) */
	char **env = alloca((n + 1) * sizeof *env);
	char val[WEFT_FORKED_VAR];
	weft__exec_env(envp, env, val);
	LEAVING_STACK();
	return fn(file, argv, env);
}

WEFT_SHIM_EXPORT int execve(const char *path, char *const argv[],
			    char *const envp[])
{
	return exec_(0, path, argv, envp);
}

WEFT_SHIM_EXPORT int execv(const char *path, char *const argv[])
{
	return exec_(0, path, argv, environ);
}

WEFT_SHIM_EXPORT int execvpe(const char *file, char *const argv[],
			     char *const envp[])
{
	return exec_(1, file, argv, envp);
}

WEFT_SHIM_EXPORT int execvp(const char *file, char *const argv[])
{
	return exec_(1, file, argv, environ);
}

/* execl's arguments as execv's, in argv_ (on the stack, as glibc's execl
 * has them: their number is the call's); the list stays open (execle's
 * environment comes after its NULL): END_ARGS closes it. */
#define EXECL_ARGS(arg)                                                        \
	size_t argc_ = 1;                                                      \
	va_list ap_;                                                           \
	va_start(ap_, arg);                                                    \
	while (va_arg(ap_, char *))                                            \
		argc_++;                                                       \
	va_end(ap_);                                                           \
	char **argv_ = alloca((argc_ + 1) * sizeof *argv_);                    \
	argv_[0] = (char *)(arg);                                              \
	va_start(ap_, arg);                                                    \
	for (size_t i_ = 1; i_ <= argc_; i_++)                                 \
	argv_[i_] = va_arg(ap_, char *)
#define END_ARGS() va_end(ap_)

WEFT_SHIM_EXPORT int execl(const char *path, const char *arg, ...)
{
	EXECL_ARGS(arg);
	END_ARGS();
	return execv(path, argv_);
}

WEFT_SHIM_EXPORT int execlp(const char *file, const char *arg, ...)
{
	EXECL_ARGS(arg);
	END_ARGS();
	return execvp(file, argv_);
}

WEFT_SHIM_EXPORT int execle(const char *path, const char *arg, ...)
{
	EXECL_ARGS(arg);
	char *const *envp = va_arg(ap_, char *const *);
	END_ARGS();
	return execve(path, argv_, envp);
}
