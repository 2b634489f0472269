/* SPDX-License-Identifier: MIT */
/*
 * event-shim.h - what the parts of the libevent shim share (base.c,
 * event.c, bev.c, dns-http.c).  See docs/libevent.md.
 */
#ifndef WEFT_EVENT_SHIM_H
#define WEFT_EVENT_SHIM_H

/* libevent's headers give its functions default visibility only when
 * libevent itself is built: so do the shim's definitions of them (the
 * shim is built with -fvisibility=hidden, and what it interposes must be
 * exported).  Include this before any libevent header. */
#define event_shared_EXPORTS 1
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_compat.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/event_compat.h>
#include <event2/http.h>
#include <event2/listener.h>

/* Where libevent's functions are when it was loaded with
 * dlopen(RTLD_LOCAL): the whole library, or its core and extra parts. */
extern const char *const weft__shim_event_libs[];
#define SHIM_LIBS weft__shim_event_libs
#include "shim/shim.h"

/* A libevent function the shim calls (it does not link libevent). */
#define EV(name)                                                               \
	({                                                                     \
		REAL(name);                                                    \
		real_##name;                                                   \
	})

/* What an entry of the side table is. */
enum ev_role {
	R_BASE = SHIM_ROLE_EVENT, /* a base: its loop's thread */
	R_ASSIGNED, /* an event_assign()ed event: its struct evx (data) */
	R_BEV,	    /* a bufferevent: its struct bevx (data) */
	R_HTTP,	    /* an evhttp request the program is answering */
	R_HTTP_OUT, /* an evhttp request the program made: its ctx (data) */
	R_LISTENER, /* an evconnlistener: its struct lx (data) */
};

/* A call libevent makes of itself, or from inside one of our wrappers. */
extern struct shim_lib weft__shim_libevent;
#define INTERNAL()                                                             \
	(!(weft__shim_loops_on & SHIM_LOOP_EVENT) || weft__shim_inside ||      \
	 weft__shim_from_lib(&weft__shim_libevent,                             \
			     __builtin_return_address(0)))
#undef ON
#define ON() LOOP_ON(SHIM_LOOP_EVENT)

/* The phases a callback runs in: "timers" (a timeout fired it), or the
 * active queue it runs from ("active", or "active N" on a base with
 * several priorities). */
extern const char weft__shim_ev_timers[];
const char *weft__shim_ev_active_phase(const struct event *ev);

/* The loop's thread of a base (made on first use). */
uint64_t weft__shim_ev_base_id(struct event_base *base);

/* What an error number is called ("ECONNREFUSED"). */
const char *weft__shim_ev_errname(int err);

#endif
