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
 */
#define _GNU_SOURCE
#include <spawn.h>

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

SPAWN(posix_spawn)
SPAWN(posix_spawnp)
