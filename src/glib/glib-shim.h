/* SPDX-License-Identifier: MIT */
/*
 * glib-shim.h - what the parts of the GLib shim share (loop.c, source.c,
 * task.c).  See docs/glib.md.
 */
#ifndef WEFT_GLIB_SHIM_H
#define WEFT_GLIB_SHIM_H

/* GLib's headers declare its functions plain extern: the shim's
 * definitions of them must be exported (it is built with
 * -fvisibility=hidden).  Include this before any GLib header. */
#define _GLIB_EXTERN __attribute__((visibility("default"))) extern
#include <gio/gio.h>
#include <glib-unix.h>

/* Where GLib's functions are when it was loaded with dlopen(RTLD_LOCAL). */
extern const char *const weft__shim_glib_libs[];
#define SHIM_LIBS weft__shim_glib_libs
#include "shim/shim.h"

/* A GLib function the shim calls (it does not link GLib). */
#define GL(name)                                                               \
	({                                                                     \
		REAL(name);                                                    \
		real_##name;                                                   \
	})

enum gl_role {
	R_CONTEXT = SHIM_ROLE_GLIB, /* a GMainContext: its loop's thread */
	R_CALLBACK, /* a source whose callback the program set: cb */
	R_TASK,	    /* a GTask the program made: struct tx (data) */
	R_ASYNC,    /* a GAsyncResult a traced GIO call completed with: id */
	R_CANCEL,   /* a GCancellable: the calls that use it (data) */
};

/* A call GLib, GIO or GObject make of themselves (their own calls do not
 * even go through the PLT: -Bsymbolic-functions), or from inside one of
 * our wrappers. */
extern struct shim_lib weft__shim_libglib;
#define INTERNAL()                                                             \
	(!(weft__shim_loops_on & SHIM_LOOP_GLIB) || weft__shim_inside ||       \
	 weft__shim_from_lib(&weft__shim_libglib,                              \
			     __builtin_return_address(0)))
#undef ON
#define ON() LOOP_ON(SHIM_LOOP_GLIB)

/* The phase a dispatch runs in (the wait is weft__shim_poll). */
extern const char weft__shim_glib_dispatch[];

/* A traced GIO call or GTask uses cancellable c: its cancellation is a
 * cancel arrow into id (until forgotten). */
void weft__shim_glib_cancellable_add(GCancellable *c, uint64_t *id);
void weft__shim_glib_cancellable_forget(GCancellable *c, uint64_t *id);

#endif
