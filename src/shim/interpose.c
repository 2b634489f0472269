/* SPDX-License-Identifier: MIT */
/*
 * interpose.c - telling the program's calls of a loop library from the
 * library's calls of itself: the wrappers' depth on this OS thread, and
 * the code ranges of a loaded library.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

__thread int weft__shim_inside;

unsigned weft__shim_loops_on = SHIM_LOOP_ALL;

/* WEFT_LOOPS="uv,event,glib" (weft record sets it; a process it starts
 * inherits it): the loops traced; unset, all. */
__attribute__((constructor)) static void loops_from_env(void)
{
	const char *v = getenv("WEFT_LOOPS");
	if (!v)
		return;
	static const char *const words[] = {
#define X(ID, name, word, kind) word,
		WEFT_LOOP_MAP(X)
#undef X
	};
	unsigned on = 0;
	while (*v) {
		size_t n = strcspn(v, ",");
		for (unsigned i = 0; i < WEFT_LOOP_COUNT; i++)
			if (strlen(words[i]) == n && !strncmp(v, words[i], n))
				on |= 1u << i;
		v += n + (v[n] == ',');
	}
	weft__shim_loops_on = on;
}

/* dl_iterate_phdr's callback: the executable segments of every object
 * whose file name contains one of lib->names (libevent comes as
 * libevent-2.1, libevent_core, libevent_extra...). */
static int find_lib(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct shim_lib *lib = arg;
	(void)size;
	if (!info->dlpi_name)
		return 0;
	int match = 0;
	for (const char *const *n = lib->names; *n && !match; n++)
		match = strstr(info->dlpi_name, *n) != NULL;
	if (!match)
		return 0;
	for (int i = 0; i < info->dlpi_phnum && lib->n < 8; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		lib->lo[lib->n] = info->dlpi_addr + ph->p_vaddr;
		lib->hi[lib->n] = lib->lo[lib->n] + ph->p_memsz;
		lib->n++;
	}
	return 0;
}

/* pthread_once() takes no argument: one scanner per library, chosen by
 * the lib pointer through a thread-local (pthread_once runs the routine
 * on the calling thread). */
static __thread struct shim_lib *scanning;
static void scan(void)
{
	dl_iterate_phdr(find_lib, scanning);
	/* Pairs with the acquire load in weft__shim_from_lib(). */
	__atomic_store_n(&scanning->scanned, 1, __ATOMIC_RELEASE);
}

__thread const void *weft__shim_outside[SHIM_LIBS_N][SHIM_OUTSIDE];
__thread const void *weft__shim_within[SHIM_LIBS_N][SHIM_OUTSIDE];

/* weft__shim_from_lib() when ret is not one of those remembered. */
int weft__shim_from_lib_scan(struct shim_lib *lib, const void *ret)
{
	/* Pairs with the release store in scan(). */
	if (__builtin_expect(!__atomic_load_n(&lib->scanned, __ATOMIC_ACQUIRE),
			     0)) {
		scanning = lib;
		pthread_once(&lib->once, scan);
	}
	uintptr_t a = (uintptr_t)ret;
	unsigned w = weft__shim_way(ret);
	int inside = 0;
	for (int i = 0; i < lib->n; i++)
		if (a >= lib->lo[i] && a < lib->hi[i])
			inside = 1;
	/* first in its set; the one it displaces, second */
	const void **set = inside ? weft__shim_within[lib->slot]
				  : weft__shim_outside[lib->slot];
	set[w + 1] = set[w];
	set[w] = ret;
	return inside;
}

void *weft__shim_sym(void *next, const char *name, const char *const *libs)
{
	for (; !next && libs && *libs; libs++) {
		void *h = dlopen(*libs, RTLD_LAZY | RTLD_NOLOAD);
		if (h) {
			next = dlsym(h, name);
			dlclose(h); /* NOLOAD took a reference: give it back */
		}
	}
	return next;
}
