/* SPDX-License-Identifier: MIT */
/*
 * exit.c - how each process of a run ended, where exit() is not how.
 *
 * libweft writes a process's exit line from an on_exit() handler
 * (src/record/run.c), which exit() runs and _exit() does not: dash (every
 * `sh -c`) ends with _exit, and so do Python's os._exit, a forked child
 * whose exec failed, tmux's job children.  Such a process stayed
 * "running" (or "vanished") in the manifest after the run.  Two wrappers
 * close the gap:
 *
 *   _exit, _Exit   the exit line, then the real call.  They may run in a
 *                  child forked by a multithreaded parent, or in a vfork
 *                  child on its parent's memory: only system calls and
 *                  the stack (run.c's line writer is so), and the real
 *                  function found when the library loaded, never in the
 *                  call (dlsym may wait for a lock a thread of the
 *                  parent held at the fork).
 *   wait family    what the parent learnt as it reaped a child (a
 *                  `reaped` line, as weft record writes for its own):
 *                  the status of a process that ends in a way no
 *                  wrapper of its own sees — glibc's daemon() leaves
 *                  through an internal _exit, a static or set-uid
 *                  program loads no preload, a signal kills.
 *
 * glibc's own calls of these (exit() ending in _exit, system() waiting)
 * are internal and do not come here.  A pid reaped is free for the
 * kernel to give again: the line is written at once after the call, and
 * the reader takes a reaped line for the live process of that pid.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record/exec-env.h"
#include "shim.h"

typedef void exit_fn(int);
static exit_fn *real_exit_, *real_Exit_;
static __typeof__(wait4) *real_wait4;
static __typeof__(waitpid) *real_waitpid;
static __typeof__(waitid) *real_waitid;

/* At load, while the process has one thread (see above; a forked child
 * may wait for its own children too). */
__attribute__((constructor)) static void exit_prepare(void)
{
	real_exit_ = (exit_fn *)dlsym(RTLD_NEXT, "_exit");
	real_Exit_ = (exit_fn *)dlsym(RTLD_NEXT, "_Exit");
	real_wait4 = (__typeof__(wait4) *)dlsym(RTLD_NEXT, "wait4");
	real_waitpid = (__typeof__(waitpid) *)dlsym(RTLD_NEXT, "waitpid");
	real_waitid = (__typeof__(waitid) *)dlsym(RTLD_NEXT, "waitid");
}

static __attribute__((noreturn)) void leave(exit_fn *fn, int status)
{
	weft__run_exit(status);
	LEAVING_STACK();
	if (fn)
		fn(status);
	for (;;) /* (no next definition: libc's is this system call) */
		syscall(SYS_exit_group, status);
}

WEFT_SHIM_EXPORT void _exit(int status)
{
	leave(real_exit_, status);
}

WEFT_SHIM_EXPORT void _Exit(int status)
{
	leave(real_Exit_ ? real_Exit_ : real_exit_, status);
}

/* A wait that returned pid with status st reaped it: the line, errno
 * kept.  (Not a stopped or continued child: it is still there.) */
static void reaped(pid_t pid, int st)
{
	if (pid <= 0 || !(WIFEXITED(st) || WIFSIGNALED(st)))
		return;
	int e = errno;
	weft__reaped(pid, WIFEXITED(st) ? WEXITSTATUS(st) : 0,
		     WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	errno = e;
}

WEFT_SHIM_EXPORT pid_t wait4(pid_t pid, int *status, int options,
			     struct rusage *ru)
{
	if (!real_wait4) /* (called before the constructor ran) */
		exit_prepare();
	int st = 0;
	pid_t got = real_wait4(pid, &st, options, ru);
	reaped(got, st);
	if (status && got > 0)
		*status = st;
	return got;
}

WEFT_SHIM_EXPORT pid_t waitpid(pid_t pid, int *status, int options)
{
	if (!real_waitpid) /* (called before the constructor ran) */
		exit_prepare();
	int st = 0;
	pid_t got = real_waitpid(pid, &st, options);
	reaped(got, st);
	if (status && got > 0)
		*status = st;
	return got;
}

WEFT_SHIM_EXPORT pid_t wait(int *status)
{
	return waitpid(-1, status, 0);
}

WEFT_SHIM_EXPORT pid_t wait3(int *status, int options, struct rusage *ru)
{
	return wait4(-1, status, options, ru);
}

WEFT_SHIM_EXPORT int waitid(idtype_t idtype, id_t id, siginfo_t *info,
			    int options)
{
	if (!real_waitid) /* (called before the constructor ran) */
		exit_prepare();
	int r = real_waitid(idtype, id, info, options);
	if (r == 0 && info && info->si_pid > 0 && !(options & WNOWAIT) &&
	    (info->si_code == CLD_EXITED || info->si_code == CLD_KILLED ||
	     info->si_code == CLD_DUMPED)) {
		int e = errno;
		weft__reaped(info->si_pid,
			     info->si_code == CLD_EXITED ? info->si_status : 0,
			     info->si_code == CLD_EXITED ? 0 : info->si_status);
		errno = e;
	}
	return r;
}
