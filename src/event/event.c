/* SPDX-License-Identifier: MIT */
/*
 * event.c - libevent events as async threads.  Each activation of an
 * event is a thread: armed by event_add() (created by whatever is
 * current), fired by the loop (resolved, or failed "timeout" when an I/O
 * event's timeout ran out; its callback runs as it), cancelled by
 * event_del() or event_free().  A persistent event's next activation is
 * created by the one that fired; event_active() is a signal arrow into
 * the pending activation (or, with none, creates one).
 *
 * The shim gives libevent its own callback and, as its argument, what it
 * keeps of the event (struct evx): the trampoline finds the user's
 * callback and argument there, with no look-up.  The getters
 * (event_get_callback, event_get_callback_arg, event_get_assignment)
 * still return the user's.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "event-shim.h"

#include <event2/event_struct.h>

/* What the shim keeps of an event. */
struct evx {
	event_callback_fn cb; /* the user's callback and argument */
	void *arg;
	uint64_t id;	   /* the pending activation (atomic); 0: none */
	const char *label; /* its label, kept (in the arena), or NULL */
	const char *kind;
	const char *phase;   /* the phase its callback runs in, bar timeouts */
	const char *p1, *p2; /* the label's parts (weft__shim_cached_label) */
	long long n1, n2;
	short events;
	int once;     /* event_base_once: freed once it has fired */
	int manual;   /* event_active() made it active (atomic) */
	int owned;    /* event_new: freed with the event */
	unsigned gen; /* the trace its activation was created in */
};

static void tramp(evutil_socket_t fd, short what, void *arg);

/* The shim's record of an event that carries our trampoline, or NULL.
 * Read in struct event's public layout (libevent 2.1's ABI,
 * event_struct.h), as event_get_callback() reads it, without a call. */
static struct evx *evx_of(const struct event *ev)
{
	if (!ev || ev->ev_evcallback.evcb_cb_union.evcb_callback != tramp)
		return NULL;
	return ev->ev_evcallback.evcb_arg;
}

/* What an event waits for: its kind and the parts of its label, for a
 * timeout tv (NULL: none). */
static void describe(struct evx *c, evutil_socket_t fd,
		     const struct timeval *tv)
{
	short io = c->events & (EV_READ | EV_WRITE | EV_CLOSED);
	c->p2 = NULL;
	c->n1 = c->n2 = NO_NUM;
	if (c->events & EV_SIGNAL) {
		c->kind = "event signal";
		c->p1 = "signal ";
		c->n1 = fd;
	} else if (io) {
		c->kind = io == EV_READ	   ? "event read"
			  : io == EV_WRITE ? "event write"
			  : io & EV_CLOSED ? "event close"
					   : "event read/write";
		c->p1 = io == EV_READ	 ? "read fd "
			: io == EV_WRITE ? "write fd "
			: io & EV_CLOSED ? "close fd "
					 : "read/write fd ";
		c->n1 = fd;
	} else if (tv) {
		c->kind = "event timer";
		c->p1 = c->events & EV_PERSIST ? "timer, every " : "timer ";
		c->n1 = (long long)tv->tv_sec * 1000 + tv->tv_usec / 1000;
		c->p2 = " ms";
	} else { /* a user event: only event_active() runs it */
		c->kind = "event";
		c->p1 = "event";
	}
}

/* Arms the event's activation, created by the current thread, unless
 * one is pending (a new timeout for the same wait is not a new one). */
static void arm(struct evx *c, const struct event *ev, evutil_socket_t fd,
		const struct timeval *tv)
{
	if (!ON() || __atomic_load_n(&c->id, __ATOMIC_RELAXED))
		return;
	describe(c, fd, tv);
	c->phase = weft__shim_ev_active_phase(ev);
	struct shim_lb b;
	const char *kept = weft__shim_cached_label(&b, c->p1, c->n1, c->p2,
						   c->n2, (const void *)c->cb);
	uint64_t id = weft__shim_new_id();
	weft__shim_create_labelled(id, c->kind, kept, &b);
	c->label = kept;
	c->gen = ON();
	/* Two threads arming at once: the one left over is cancelled. */
	uint64_t old = __atomic_exchange_n(&c->id, id, __ATOMIC_RELAXED);
	if (old)
		weft_cancel(old);
}

static void disarm(struct evx *c)
{
	uint64_t id = __atomic_exchange_n(&c->id, 0, __ATOMIC_RELAXED);
	/* (one armed before a fork is not in this trace) */
	if (id && ON() && c->gen == ON())
		weft_cancel(id);
}

/* The loop runs an event's callback. */
static void tramp(evutil_socket_t fd, short what, void *arg)
{
	struct evx *c = arg;
	/* Everything from c before the callback: it may free the event. */
	event_callback_fn cb = c->cb;
	void *uarg = c->arg;
	int once = c->once;
	uint64_t id = __atomic_exchange_n(&c->id, 0, __ATOMIC_RELAXED);
	if (!id || !ON()) {
		cb(fd, what, uarg);
		if (once)
			free(c);
		return;
	}
	int saved = errno;
	/* An I/O event whose timeout ran out waited in vain; event_active()
	 * says what the program wants, from the active queue. */
	int timeout = what == EV_TIMEOUT && !(c->events & EV_SIGNAL) &&
		      !__atomic_exchange_n(&c->manual, 0, __ATOMIC_RELAXED);
	const char *fail =
		timeout && (c->events & (EV_READ | EV_WRITE | EV_CLOSED))
			? "timeout"
			: NULL;
	const char *ph = timeout ? weft__shim_ev_timers : c->phase;
	errno = saved;
	struct shim_ent e = {.id = id, .label = c->label};
	if (c->gen != ON()) {
		/* armed before a fork: this trace has never seen it */
		struct shim_lb b;
		const char *kept = weft__shim_cached_label(
			&b, c->p1, c->n1, c->p2, c->n2, (const void *)cb);
		weft__shim_create_labelled(id, c->kind, kept, &b);
		c->gen = ON();
	}
	if (c->events & EV_PERSIST) {
		/* the next activation, unless it was re-armed meanwhile */
		uint64_t next = weft__shim_new_id(), none = 0;
		if (__atomic_compare_exchange_n(&c->id, &none, next, 0,
						__ATOMIC_RELAXED,
						__ATOMIC_RELAXED)) {
			struct shim_lb b;
			const char *kept = e.label ? e.label
						   : weft__shim_cached_label(
							     &b, c->p1, c->n1,
							     c->p2, c->n2,
							     (const void *)cb);
			FIRE_RUN(e, fail, next, c->kind, kept, b, ph,
				 cb(fd, what, uarg));
			return;
		}
	}
	DELIVER_RUN(id, fail, ph, cb(fd, what, uarg));
	if (once)
		free(c);
}

/* ------------------------------------------------------ the wrappers */

/* The user's callback and argument go to c; the real call gets ours. */
static void keep(struct evx *c, struct event *ev, evutil_socket_t fd,
		 short events, event_callback_fn cb, void *arg)
{
	c->cb = cb;
	/* libevent puts the event itself for event_self_cbarg() */
	c->arg = arg == EV(event_self_cbarg)() ? (void *)ev : arg;
	c->events = events;
	if (fd >= 0 && (events & (EV_READ | EV_WRITE)))
		weft__shim_fd_watch(fd);
}

struct event *event_new(struct event_base *base, evutil_socket_t fd,
			short events, event_callback_fn cb, void *arg)
{
	REAL(event_new);
	if (INTERNAL() || !cb || !ON())
		return real_event_new(base, fd, events, cb, arg);
	SCOPE_INSIDE();
	struct evx *c = calloc(1, sizeof *c);
	if (!c)
		return real_event_new(base, fd, events, cb, arg);
	struct event *ev = real_event_new(base, fd, events, tramp, c);
	if (!ev) {
		free(c);
		return NULL;
	}
	keep(c, ev, fd, events, cb, arg);
	c->owned = 1;
	return ev;
}

/* An event in the caller's memory keeps its record by address: the same
 * struct assigned again takes it again. */
static struct evx *assigned(struct event *ev)
{
	struct shim_ent e;
	if (weft__shim_get(ev, R_ASSIGNED, &e, 0) && e.data) {
		struct evx *c = e.data;
		disarm(c); /* assigned again while pending */
		return c;
	}
	struct evx *c = calloc(1, sizeof *c);
	if (c && !weft__shim_put_data(ev, R_ASSIGNED, c)) {
		free(c);
		return NULL;
	}
	return c;
}

int event_assign(struct event *ev, struct event_base *base, evutil_socket_t fd,
		 short events, event_callback_fn cb, void *arg)
{
	REAL(event_assign);
	if (INTERNAL() || !cb || !ON())
		return real_event_assign(ev, base, fd, events, cb, arg);
	SCOPE_INSIDE();
	struct evx *c = assigned(ev);
	if (!c)
		return real_event_assign(ev, base, fd, events, cb, arg);
	keep(c, ev, fd, events, cb, arg);
	return real_event_assign(ev, base, fd, events, tramp, c);
}

/* The 1.x form, on the current base. */
void event_set(struct event *ev, evutil_socket_t fd, short events,
	       event_callback_fn cb, void *arg)
{
	REAL(event_set);
	if (INTERNAL() || !cb || !ON()) {
		real_event_set(ev, fd, events, cb, arg);
		return;
	}
	SCOPE_INSIDE();
	struct evx *c = assigned(ev);
	if (!c) {
		real_event_set(ev, fd, events, cb, arg);
		return;
	}
	keep(c, ev, fd, events, cb, arg);
	real_event_set(ev, fd, events, tramp, c);
}

/* One activation, armed at once; its record goes when it has fired. */
static struct evx *once(evutil_socket_t fd, short events, event_callback_fn cb,
			void *arg, const struct timeval *tv)
{
	struct evx *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	keep(c, NULL, fd, events, cb, arg);
	c->once = 1;
	arm(c, NULL, fd, tv);
	return c;
}

static int once_armed(struct evx *c, int r)
{
	if (r < 0) {
		disarm(c);
		free(c);
	}
	return r;
}

int event_base_once(struct event_base *base, evutil_socket_t fd, short events,
		    event_callback_fn cb, void *arg, const struct timeval *tv)
{
	REAL(event_base_once);
	if (INTERNAL() || !cb || !ON())
		return real_event_base_once(base, fd, events, cb, arg, tv);
	SCOPE_INSIDE();
	struct evx *c = once(fd, events, cb, arg, tv);
	if (!c)
		return real_event_base_once(base, fd, events, cb, arg, tv);
	return once_armed(c,
			  real_event_base_once(base, fd, events, tramp, c, tv));
}

int event_once(evutil_socket_t fd, short events, event_callback_fn cb,
	       void *arg, const struct timeval *tv)
{
	REAL(event_once);
	if (INTERNAL() || !cb || !ON())
		return real_event_once(fd, events, cb, arg, tv);
	SCOPE_INSIDE();
	struct evx *c = once(fd, events, cb, arg, tv);
	if (!c)
		return real_event_once(fd, events, cb, arg, tv);
	return once_armed(c, real_event_once(fd, events, tramp, c, tv));
}

int event_add(struct event *ev, const struct timeval *tv)
{
	REAL(event_add);
	struct evx *c = evx_of(ev);
	if (!c || INTERNAL())
		return real_event_add(ev, tv);
	SCOPE_INSIDE();
	arm(c, ev, ev->ev_fd, tv);
	int r = real_event_add(ev, tv);
	if (r < 0)
		disarm(c);
	return r;
}

#define DEL(name)                                                              \
	int name(struct event *ev)                                             \
	{                                                                      \
		REAL(name);                                                    \
		struct evx *c = evx_of(ev);                                    \
		if (c && !INTERNAL())                                          \
			disarm(c);                                             \
		return real_##name(ev);                                        \
	}
DEL(event_del)
DEL(event_del_block)
DEL(event_del_noblock)

/* From any OS thread: a signal arrow into the pending activation; with
 * none pending, libevent runs the callback all the same: an activation
 * created here. */
void event_active(struct event *ev, int res, short ncalls)
{
	REAL(event_active);
	struct evx *c = evx_of(ev);
	if (c && !INTERNAL() && ON()) {
		int saved = errno;
		uint64_t id = __atomic_load_n(&c->id, __ATOMIC_RELAXED);
		__atomic_store_n(&c->manual, 1, __ATOMIC_RELAXED);
		if (id)
			weft_signal(id);
		else
			arm(c, ev, ev->ev_fd, NULL);
		errno = saved;
	}
	real_event_active(ev, res, ncalls);
}

void event_free(struct event *ev)
{
	REAL(event_free);
	struct evx *c = evx_of(ev);
	if (c)
		disarm(c);
	real_event_free(ev);
	if (c && c->owned)
		free(c);
}

/* The getters give the user's callback and argument. */
event_callback_fn event_get_callback(const struct event *ev)
{
	REAL(event_get_callback);
	struct evx *c = evx_of(ev);
	return c ? c->cb : real_event_get_callback(ev);
}

void *event_get_callback_arg(const struct event *ev)
{
	REAL(event_get_callback_arg);
	struct evx *c = evx_of(ev);
	return c ? c->arg : real_event_get_callback_arg(ev);
}

void event_get_assignment(const struct event *ev, struct event_base **base,
			  evutil_socket_t *fd, short *events,
			  event_callback_fn *cb, void **arg)
{
	REAL(event_get_assignment);
	real_event_get_assignment(ev, base, fd, events, cb, arg);
	struct evx *c = evx_of(ev);
	if (c && cb)
		*cb = c->cb;
	if (c && arg)
		*arg = c->arg;
}
