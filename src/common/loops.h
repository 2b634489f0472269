/* SPDX-License-Identifier: MIT */
/*
 * loops.h - the event loops weft's shims trace: one table.
 *
 * Everything that names the loops comes from WEFT_LOOP_MAP: the shims'
 * bits and library slots (src/shim/shim.h), WEFT_LOOPS in the environment
 * (src/shim/interpose.c), each shim's library lookup (src/uv/loop.c,
 * src/event/base.c, src/glib/loop.c), the loop libraries' own I/O left
 * to their shims (src/shim/fdio.c), and `weft record`'s --loops, its
 * summary of the loops a run showed and its error messages
 * (tools/record-loops.c).  run-cli's loops_table checks that each word
 * --loops takes chooses a loop of its own and that the man page lists
 * it.  A new loop: HACKING.md, "Add a loop shim".
 *
 *   X(ID, name said to the user, the word of --loops and WEFT_LOOPS,
 *     the kind of a loop's own async thread in a trace)
 */
#ifndef WEFT_COMMON_LOOPS_H
#define WEFT_COMMON_LOOPS_H

#define WEFT_LOOP_MAP(X)                                                       \
	X(UV, "libuv", "uv", "uv_loop_t")                                      \
	X(EVENT, "libevent", "event", "event_base")                            \
	X(GLIB, "GLib", "glib", "GMainContext")

/* Parts of the file names of each loop's libraries (libevent comes as
 * libevent-2.1, libevent_core...; GLib's loop also runs GIO's I/O and
 * GObject's signals). */
#define WEFT_LOOP_LIBS_UV "libuv"
#define WEFT_LOOP_LIBS_EVENT "libevent"
#define WEFT_LOOP_LIBS_GLIB "libglib-2.0", "libgio-2.0", "libgobject-2.0"

#define WEFT_X_(ID, name, word, kind) WEFT_LOOP_##ID,
enum weft_loop { WEFT_LOOP_MAP(WEFT_X_) WEFT_LOOP_COUNT };
#undef WEFT_X_

#endif
