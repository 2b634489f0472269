/* SPDX-License-Identifier: MIT */
/*
 * gmodule.c - functions found by name through GModule: GObject
 * introspection, and so PyGObject and GJS.
 *
 * Preloading interposes the calls that are bound by the dynamic linker
 * (a program's or a library's calls of another library).  A binding
 * calls GLib differently: libgirepository finds each function it
 * invokes with g_module_symbol() on the handle of the library that the
 * typelib names (g_typelib_symbol), which is dlsym() on that handle, and
 * that reaches libglib's own definition: a Python program's
 * GLib.timeout_add and MainLoop.run were never seen, and it recorded
 * nothing.  This wrapper hands out, in place of the library's own
 * definition, the wrapper this library exports under the same name, if
 * any (a loop's function the shims trace: g_timeout_add_full,
 * g_main_loop_run...): a call through the binding is then what the
 * same call made by a C program is.  Everything else is left as found.
 *
 * libgirepository calls g_module_symbol through the dynamic linker (it
 * is in libgmodule), so the preloaded definition comes first, also when
 * the binding was loaded with dlopen(RTLD_LOCAL), as Python loads its
 * extension modules: the global scope, where the preload is, is searched
 * before the loaded library's own.  The real g_module_symbol is then not
 * in the global scope: it is found in libgmodule itself (REAL_IN).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "shim.h"

/* GLib's types, without its headers (the shims do not depend on them):
 * gboolean is an int. */
int g_module_symbol(void *module, const char *name, void **symbol);

static const char *const gmodule_libs[] = {"libgmodule-2.0.so.0",
					   "libgmodule-2.0.so", NULL};

/* This library, to look its exports up in: a handle, and its base
 * address (a definition found through the handle is this library's only
 * if it lies here, not in a dependency). */
static void *self;
static void *self_base;
static pthread_once_t self_once = PTHREAD_ONCE_INIT;

static void find_self(void)
{
	Dl_info di;
	if (!dladdr((void *)find_self, &di) || !di.dli_fname)
		return;
	self_base = di.dli_fbase;
	/* (NOLOAD: a reference to what is loaded, kept for the process's
	 * life) */
	self = dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
}

/* This library's wrapper named `name`, or NULL. */
static void *own_export(const char *name)
{
	pthread_once(&self_once, find_self);
	if (!self || !name)
		return NULL;
	void *f = dlsym(self, name);
	if (!f) /* (the error it left pending is ours: not the caller's to
		 * find at its next dlerror()) */
		(void)dlerror();
	Dl_info di;
	if (!f || !dladdr(f, &di) || di.dli_fbase != self_base)
		return NULL;
	return f;
}

WEFT_SHIM_EXPORT int g_module_symbol(void *module, const char *name,
				     void **symbol)
{
	REAL_IN(g_module_symbol, gmodule_libs);
	if (!real_g_module_symbol)
		return 0;
	int found = real_g_module_symbol(module, name, symbol);
	if (!found || !symbol || !*symbol)
		return found;
	int e = errno;
	void *own = own_export(name);
	if (own && own != *symbol)
		*symbol = own;
	errno = e;
	return found;
}
