/* SPDX-License-Identifier: MIT */
/*
 * loop.c - a GMainContext as an async thread that runs while a loop runs
 * it (g_main_loop_run, g_main_context_iteration; GTK's and GApplication's
 * loops come through them), its wait in poll() as idle time (the common
 * part), dispatches in the phase "dispatch".
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "glib-shim.h"

const char *const weft__shim_glib_libs[] = {
	"libglib-2.0.so.0", "libgio-2.0.so.0", "libgobject-2.0.so.0", NULL};
static const char *const names[] = {WEFT_LOOP_LIBS_GLIB, NULL};
struct shim_lib weft__shim_libglib = SHIM_LIB(names, SHIM_LIB_GLIB);

const char weft__shim_glib_dispatch[] = "dispatch";

static uint64_t context_id(GMainContext *ctx)
{
	GMainContext *def = GL(g_main_context_default)();
	if (!ctx)
		ctx = def;
	struct shim_ent e;
	if (weft__shim_get(ctx, R_CONTEXT, &e, 0))
		return e.id;
	uint64_t id = weft__shim_new_id();
	weft_create(id, "GMainContext");
	char text[80];
	snprintf(text, sizeof text, "GMainContext %p%s", (void *)ctx,
		 ctx == def ? " (default)" : "");
	weft_label(id, text);
	weft__shim_put(ctx, R_CONTEXT, id, NULL, NULL, ctx);
	return id;
}

/* Runs a loop as its context's thread.  A loop nested in a dispatch (a
 * modal dialog's) runs as the context's thread too: the callback that
 * started it waits meanwhile. */
#define RUN_LOOP(ctx, call)                                                    \
	do {                                                                   \
		if (!ON()) {                                                   \
			call;                                                  \
			break;                                                 \
		}                                                              \
		struct shim_loop_frame f_;                                     \
		weft__shim_loop_enter(&f_, context_id(ctx), NULL,              \
				      "glib.loop_busy_us");                    \
		call;                                                          \
		weft__shim_loop_leave(&f_);                                    \
	} while (0)

void g_main_loop_run(GMainLoop *loop)
{
	REAL(g_main_loop_run);
	RUN_LOOP(GL(g_main_loop_get_context)(loop), real_g_main_loop_run(loop));
}

gboolean g_main_context_iteration(GMainContext *ctx, gboolean may_block)
{
	REAL(g_main_context_iteration);
	gboolean r;
	RUN_LOOP(ctx, r = real_g_main_context_iteration(ctx, may_block));
	return r;
}
