/* SPDX-License-Identifier: MIT */
/*
 * base.c - a libevent base as an async thread that runs while its loop
 * runs (event_base_loop, event_base_dispatch, event_dispatch,
 * event_loop); its wait in the kernel as idle time (the common part);
 * the phases of its iterations.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "event-shim.h"

const char *const weft__shim_event_libs[] = {"libevent-2.1.so.7",
					     "libevent_core-2.1.so.7", NULL};
static const char *const names[] = {WEFT_LOOP_LIBS_EVENT, NULL};
struct shim_lib weft__shim_libevent = SHIM_LIB(names, SHIM_LIB_EVENT);

const char *weft__shim_ev_errname(int err)
{
	const char *n = strerrorname_np(err);
	return n ? n : "error";
}

/* ------------------------------------------------------------ phases */

/* libevent's iteration: the wait (the backend's dispatch, which only
 * marks events active), the timeouts made active, then the callbacks of
 * the active queues by priority; a queue runs the callbacks of what the
 * wait returned before those of the timers.  So the phases told apart
 * are "poll" (the wait), "active" (a queue's I/O, signal and manual
 * activations) and "timers" (its timers). */
const char weft__shim_ev_timers[] = "timers";
static const char active[] = "active";
static const char *const actives[] = {"active 0", "active 1", "active 2",
				      "active 3", "active 4", "active 5",
				      "active 6", "active 7"};
static const char active_more[] = "active 8+";

const char *weft__shim_ev_active_phase(const struct event *ev)
{
	struct event_base *base = ev ? EV(event_get_base)(ev) : NULL;
	if (!base || EV(event_base_get_npriorities)(base) <= 1)
		return active;
	int p = EV(event_get_priority)(ev);
	return p >= 0 && p < 8 ? actives[p] : active_more;
}

/* ---------------------------------------------------------- the loop */

uint64_t weft__shim_ev_base_id(struct event_base *base)
{
	struct shim_ent e;
	if (weft__shim_get(base, R_BASE, &e, 0))
		return e.id;
	uint64_t id = weft__shim_new_id();
	weft_create(id, "event_base");
	char text[80];
	snprintf(text, sizeof text, "event_base %p (%s)", (void *)base,
		 EV(event_base_get_method)(base));
	weft_label(id, text);
	weft__shim_put(base, R_BASE, id, NULL, NULL, base);
	return id;
}

/* Runs the loop as its base's thread. */
#define RUN_LOOP(base, call)                                                   \
	do {                                                                   \
		uint64_t id_;                                                  \
		if (!ON() || !(base) ||                                        \
		    weft__shim_loop_running(                                   \
			    id_ = weft__shim_ev_base_id(base)))                \
			return call;                                           \
		struct shim_loop_frame f_;                                     \
		weft__shim_loop_enter(&f_, id_, base, "event.loop_busy_us");   \
		int r_ = call;                                                 \
		weft__shim_loop_leave(&f_);                                    \
		return r_;                                                     \
	} while (0)

int event_base_loop(struct event_base *base, int flags)
{
	REAL(event_base_loop);
	if (INTERNAL())
		return real_event_base_loop(base, flags);
	RUN_LOOP(base, real_event_base_loop(base, flags));
}

int event_base_dispatch(struct event_base *base)
{
	REAL(event_base_dispatch);
	if (INTERNAL())
		return real_event_base_dispatch(base);
	RUN_LOOP(base, real_event_base_dispatch(base));
}

/* The 1.x API runs the "current base", the one event_init() made. */
static struct event_base *current;

struct event_base *event_init(void)
{
	REAL(event_init);
	struct event_base *base = real_event_init();
	__atomic_store_n(&current, base, __ATOMIC_RELAXED);
	return base;
}

int event_loop(int flags)
{
	REAL(event_loop);
	if (INTERNAL())
		return real_event_loop(flags);
	struct event_base *base = __atomic_load_n(&current, __ATOMIC_RELAXED);
	RUN_LOOP(base, real_event_loop(flags));
}

int event_dispatch(void)
{
	REAL(event_dispatch);
	if (INTERNAL())
		return real_event_dispatch();
	struct event_base *base = __atomic_load_n(&current, __ATOMIC_RELAXED);
	RUN_LOOP(base, real_event_dispatch());
}

void event_base_free(struct event_base *base)
{
	REAL(event_base_free);
	struct shim_ent e;
	if (base && weft__shim_get(base, R_BASE, &e, 1) && ON())
		weft_resolve(e.id);
	struct event_base *was = base;
	__atomic_compare_exchange_n(&current, &was, NULL, 0, __ATOMIC_RELAXED,
				    __ATOMIC_RELAXED);
	real_event_base_free(base);
}
