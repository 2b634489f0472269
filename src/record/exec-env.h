/* SPDX-License-Identifier: MIT */
/*
 * exec-env.h - the environment an exec passes in a process of a run
 * (src/record/run.c), for the preloaded shim's exec wrappers, and the
 * line its fork wrapper's parent writes (src/shim/spawn.c).  Hidden:
 * neither is part of libweft's ABI.
 */
#ifndef WEFT_EXEC_ENV_H
#define WEFT_EXEC_ENV_H

#include <stddef.h>

/* "WEFT_FORKED=" and ten digits, with its NUL. */
#define WEFT_FORKED_VAR 24
/* Environments longer than this go as they are (the copy is on the
 * caller's stack). */
#define WEFT_EXEC_ENV_MAX 1024

/* 0 when an exec in this process may pass envp as it is; else envp's
 * length: this is a forked child whose fork line the run's manifest has,
 * and envp's WEFT_FORKED names another process (a copy of an environment
 * made before the fork). */
__attribute__((visibility("hidden"))) size_t
weft__exec_env_len(char *const envp[]);
/* A hook the layer above registers (the preloaded library's exec wrappers,
 * src/shim/spawn.c, at load): called before every fork, in the parent, so
 * that their real functions are found then, not in the child.  libweft
 * alone has none. */
__attribute__((visibility("hidden"))) void
weft__on_before_fork(void (*hook)(void));
/* Around the real fork() of the preloaded shim's wrapper, in the
 * parent: the child writes no fork line, and weft__fork_end(its pid)
 * writes its line in the parent (nothing when pid <= 0: the fork failed,
 * or this is the child). */
__attribute__((visibility("hidden"))) void weft__fork_begin(void);
__attribute__((visibility("hidden"))) void weft__fork_end(int pid);
/* The process ends with exit status `status` (the exit line, in a run;
 * async-signal-safe: called by the preloaded shim's _exit(), maybe in a
 * vfork child). */
__attribute__((visibility("hidden"))) void weft__run_exit(int status);
/* envp into env (its length and a NULL), with WEFT_FORKED's entries
 * pointing at val, which names this process. */
__attribute__((visibility("hidden"))) void
weft__exec_env(char *const envp[], char *env[], char val[WEFT_FORKED_VAR]);

#endif
