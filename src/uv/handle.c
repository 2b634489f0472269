/* SPDX-License-Identifier: MIT */
/*
 * handle.c - libuv handles: each activation (timer firing, read,
 * connection, async wake-up, poll, signal, UDP datagram, idle, prepare
 * and check run) is an async thread, armed by the call that starts the
 * handle (or, when it repeats, by the activation before it), resolved
 * when it fires and cancelled by a stop or close; a process exit; a
 * close as a request.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "uv-shim.h"

/* The activation of (h, role) fires (see weft__shim_fire), with the
 * loop's counts recorded. */
static int fire(const void *h, int role, struct shim_ent *e, uint64_t *next)
{
	if (!weft__shim_fire(h, role, e, next))
		return 0;
	weft__shim_uv_counters(e->loop);
	return 1;
}

/* One definition per kind of handle whose activations repeat, as libuv's
 * loop-watcher.c defines idle, prepare and check: the trampoline that
 * fires an activation and runs the user's callback as it, and the start
 * function that arms the first one.
 *   tramp, tparams, targs: the trampoline, its parameters (the handle is
 *     `h`), the user callback's arguments;
 *   act: whether this call is an activation (libuv also calls read
 *     callbacks with nothing read), status: < 0 fails it, ph: its phase;
 *   P1, N1: its label, "P1 N1 -> callback" (N1 may use h);
 *   start, sparams: the start function (the handle `h`, the callback
 *     `cb`), loop: its loop, armif: when it is traced at all;
 *   START_ARGS_start: the start function's arguments, WATCH_start: what
 *     it does once started (the descriptor of a read, poll or UDP
 *     handle is watched for the program's own I/O). */
#define HANDLE(ROLE, KIND, cbtype, P1, N1, tramp, tparams, targs, act, status, \
	       ph, start, sparams, loop, armif)                                \
	static void tramp tparams                                              \
	{                                                                      \
		struct shim_ent e;                                             \
		uint64_t next = 0;                                             \
		if ((act) && fire(h, ROLE, &e, &next)) {                       \
			struct shim_lb b;                                      \
			const char *kept =                                     \
				e.label ? e.label                              \
					: weft__shim_cached_label(             \
						  &b, P1, N1, NULL, 0,         \
						  (const void *)e.cb);         \
			FIRE_RUN(e, weft__shim_uv_fail(status), next, KIND,    \
				 kept, b, ph, if (e.cb)((cbtype)e.cb) targs);  \
			return;                                                \
		}                                                              \
		if (weft__shim_get(h, ROLE, &e, 0) && e.cb)                    \
			((cbtype)e.cb) targs;                                  \
	}                                                                      \
                                                                               \
	int start sparams                                                      \
	{                                                                      \
		REAL(start);                                                   \
		/* the call with the user's callback, or with ours */          \
		cbtype user_ = cb;                                             \
		if (INTERNAL() || cb == tramp)                                 \
			return real_##start START_ARGS_##start;                \
		SCOPE_INSIDE();                                                \
		if (!(armif) || !ON())                                         \
			return real_##start START_ARGS_##start;                \
		uint64_t id = weft__shim_arm_named(h, ROLE, KIND, P1, N1,      \
						   (void (*)(void))cb, loop);  \
		if (!id)                                                       \
			return real_##start START_ARGS_##start;                \
		cb = tramp;                                                    \
		int r = real_##start START_ARGS_##start;                       \
		cb = user_;                                                    \
		if (r < 0)                                                     \
			weft__shim_disarm(h, ROLE);                            \
		else                                                           \
			WATCH_##start;                                         \
		return r;                                                      \
	}

/* The stop function of a handle kind: what was armed is cancelled. */
#define HANDLE_STOP(ROLE, stop, type)                                          \
	int stop(type *h)                                                      \
	{                                                                      \
		REAL(stop);                                                    \
		if (INTERNAL())                                                \
			return real_##stop(h);                                 \
		SCOPE_INSIDE();                                                \
		weft__shim_disarm(h, ROLE);                                    \
		return real_##stop(h);                                         \
	}

#define IO_PHASE weft__shim_uv_io_phase(e.loop)
#define STREAM_FD weft__shim_uv_stream_fd((const uv_stream_t *)h)
#define HANDLE_FD weft__shim_uv_fd_of((const uv_handle_t *)h)

/* Reads: nread == 0 is "nothing this time" (EAGAIN), not an activation;
 * EOF and errors fail it. */
/* What a read callback is given is what its activation received (chan.c:
 * the arrows between processes).  That the next activation waits for
 * what comes next, the reader knows from the fire event before it. */
ssize_t weft__shim_uv_got(int fd, ssize_t nread, const struct sockaddr *from)
{
	if (nread > 0 && ON()) {
		int saved = errno;
		weft__shim_chan_received(fd, 0, (size_t)nread, from);
		errno = saved;
	}
	return nread;
}
/* (the descriptor read where uv_fileno() reads it, without the call) */
#define GOT(fd, nread, from) weft__shim_uv_got(fd, nread, from)
#define UDP_FD (((const uv_udp_t *)h)->io_watcher.fd)

#define START_ARGS_uv_read_start (h, alloc_cb, cb)
#define WATCH_uv_read_start weft__shim_fd_watch(STREAM_FD)
HANDLE(R_READ, "uv_stream_t read", uv_read_cb, "read fd ", STREAM_FD,
       tramp_read, (uv_stream_t * h, ssize_t nread, const uv_buf_t *buf),
       (h, GOT(STREAM_FD, nread, NULL), buf), nread != 0,
       nread < 0 ? (long)nread : 0, IO_PHASE, uv_read_start,
       (uv_stream_t * h, uv_alloc_cb alloc_cb, uv_read_cb cb), h->loop, cb)
HANDLE_STOP(R_READ, uv_read_stop, uv_stream_t)

#define START_ARGS_uv_listen (h, backlog, cb)
#define WATCH_uv_listen (void)0
HANDLE(R_LISTEN, "connection", uv_connection_cb, "connections on fd ",
       STREAM_FD, tramp_connection, (uv_stream_t * h, int status), (h, status),
       1, status, IO_PHASE, uv_listen,
       (uv_stream_t * h, int backlog, uv_connection_cb cb), h->loop, cb)

/* An async handle may have no callback; it is armed before libuv
 * initialises it (its loop is the argument). */
#define START_ARGS_uv_async_init (loop, h, cb)
#define WATCH_uv_async_init (void)0
HANDLE(R_ASYNC, "uv_async_t", uv_async_cb, "async wake-up", NO_NUM, tramp_async,
       (uv_async_t * h), (h), 1, 0, IO_PHASE, uv_async_init,
       (uv_loop_t * loop, uv_async_t *h, uv_async_cb cb), loop, 1)

#define START_ARGS_uv_poll_start (h, events, cb)
#define WATCH_uv_poll_start weft__shim_fd_watch(HANDLE_FD)
HANDLE(R_POLL, "uv_poll_t", uv_poll_cb, "poll fd ", HANDLE_FD, tramp_poll,
       (uv_poll_t * h, int status, int events), (h, status, events), 1, status,
       IO_PHASE, uv_poll_start, (uv_poll_t * h, int events, uv_poll_cb cb),
       h->loop, cb)
HANDLE_STOP(R_POLL, uv_poll_stop, uv_poll_t)

#define START_ARGS_uv_signal_start (h, cb, signum)
#define WATCH_uv_signal_start (void)0
HANDLE(R_SIGNAL, "uv_signal_t", uv_signal_cb, "signal ", signum, tramp_signal,
       (uv_signal_t * h, int signum), (h, signum), 1, 0, IO_PHASE,
       uv_signal_start, (uv_signal_t * h, uv_signal_cb cb, int signum), h->loop,
       cb)
HANDLE_STOP(R_SIGNAL, uv_signal_stop, uv_signal_t)

/* UDP receives: each datagram (or error) is an activation; a call with
 * nothing read and no address is libuv saying there is nothing more. */
#define START_ARGS_uv_udp_recv_start (h, alloc_cb, cb)
#define WATCH_uv_udp_recv_start weft__shim_fd_watch(HANDLE_FD)
HANDLE(R_UDP_RECV, "uv_udp_t recv", uv_udp_recv_cb, "udp recv on fd ",
       HANDLE_FD, tramp_udp_recv,
       (uv_udp_t * h, ssize_t nread, const uv_buf_t *buf,
	const struct sockaddr *addr, unsigned flags),
       (h, GOT(UDP_FD, nread, addr), buf, addr, flags), nread != 0 || addr,
       nread < 0 ? (long)nread : 0, IO_PHASE, uv_udp_recv_start,
       (uv_udp_t * h, uv_alloc_cb alloc_cb, uv_udp_recv_cb cb), h->loop, cb)
HANDLE_STOP(R_UDP_RECV, uv_udp_recv_stop, uv_udp_t)

/* Idle, prepare and check handles: their callbacks run once an iteration
 * in a phase of their own, each run an activation that re-arms.  A start
 * of an active one changes nothing in libuv: not a new activation. */
#define LOOP_WATCHER(type, ROLE, PHASE)                                        \
	HANDLE(ROLE, "uv_" #type "_t", uv_##type##_cb, #type, NO_NUM,          \
	       tramp_##type, (uv_##type##_t * h), (h), 1, 0, PHASE,            \
	       uv_##type##_start, (uv_##type##_t * h, uv_##type##_cb cb),      \
	       h->loop, cb && !UV(uv_is_active)((uv_handle_t *)h))             \
	HANDLE_STOP(ROLE, uv_##type##_stop, uv_##type##_t)
#define START_ARGS_uv_idle_start (h, cb)
#define WATCH_uv_idle_start (void)0
#define START_ARGS_uv_prepare_start (h, cb)
#define WATCH_uv_prepare_start (void)0
#define START_ARGS_uv_check_start (h, cb)
#define WATCH_uv_check_start (void)0
LOOP_WATCHER(idle, R_IDLE, PH_IDLE)
LOOP_WATCHER(prepare, R_PREPARE, PH_PREPARE)
LOOP_WATCHER(check, R_CHECK, PH_CHECK)

/* From any OS thread (and async-signal-safe in libuv): a signal arrow
 * into the pending wake-up; several sends before it runs coalesce into
 * one callback, and show as several arrows into it. */
int uv_async_send(uv_async_t *async)
{
	REAL(uv_async_send);
	if (weft__shim_inside)
		return real_uv_async_send(async);
	if (ON()) {
		int saved = errno;
		uint64_t id = weft__shim_peek_id(async, R_ASYNC);
		if (id)
			weft_signal(id);
		errno = saved;
	}
	return real_uv_async_send(async);
}

/* ------------------------------------------------------------ timers */

/* A timer's firing; a repeating timer's next firing is created by it. */
static void tramp_timer(uv_timer_t *h)
{
	struct shim_ent e;
	int saved = errno;
	if (!weft__shim_get(h, R_TIMER, &e, 0) || !e.id) {
		errno = saved;
		return;
	}
	uint64_t prev = weft__shim_cur;
	weft_burst_begin(); /* until the callback */
	weft__shim_phase_mark(PH_TIMERS);
	weft__shim_uv_counters(e.loop);
	weft__shim_deliver(e.id, NULL);
	uint64_t repeat = UV(uv_timer_get_repeat)(h);
	if (repeat) {
		uint64_t next = weft__shim_new_id();
		struct shim_lb b;
		const char *kept = weft__shim_cached_label(&b, "timer, repeat ",
							   (long long)repeat,
							   " ms", NO_NUM,
							   (const void *)e.cb);
		weft__shim_create_labelled(next, "uv_timer_t", kept, &b);
		weft__shim_set_id(h, R_TIMER, next);
	} else
		weft__shim_set_id(h, R_TIMER, 0);
	errno = saved;
	weft_burst_end();
	USER_CALL(((uv_timer_cb)e.cb)(h));
	weft__shim_set_cur(prev);
}

int uv_timer_start(uv_timer_t *handle, uv_timer_cb cb, uint64_t timeout,
		   uint64_t repeat)
{
	REAL(uv_timer_start);
	/* libuv re-arms a repeating timer with the callback it holds: ours.
	 * The next activation already exists (tramp_timer made it). */
	if (INTERNAL() || cb == tramp_timer)
		return real_uv_timer_start(handle, cb, timeout, repeat);
	SCOPE_INSIDE();
	uint64_t id = cb ? weft__shim_arm(handle, R_TIMER, "uv_timer_t",
					  (void (*)(void))cb, handle->loop)
			 : 0;
	if (!id)
		return real_uv_timer_start(handle, cb, timeout, repeat);
	if (repeat)
		weft__shim_label(id, (const void *)cb,
				 "timer %llu ms, repeat %llu ms",
				 (unsigned long long)timeout,
				 (unsigned long long)repeat);
	else
		weft__shim_label(id, (const void *)cb, "timer %llu ms",
				 (unsigned long long)timeout);
	int r = real_uv_timer_start(handle, tramp_timer, timeout, repeat);
	if (r < 0)
		weft__shim_disarm(handle, R_TIMER);
	return r;
}

HANDLE_STOP(R_TIMER, uv_timer_stop, uv_timer_t)

/* --------------------------------------------------------- processes */

static void tramp_exit(uv_process_t *p, int64_t status, int term_signal)
{
	struct shim_ent e = {0};
	int saved = errno;
	if (!weft__shim_get(p, R_PROCESS, &e, 1) || !e.id) {
		errno = saved;
		if (e.cb)
			((uv_exit_cb)e.cb)(p, status, term_signal);
		return;
	}
	/* the run's manifest learns how it ended */
	weft__reaped(p->pid, (int)status, term_signal);
	char text[64];
	if (term_signal)
		snprintf(text, sizeof text, "killed by signal %d", term_signal);
	else
		snprintf(text, sizeof text, "exited with status %lld",
			 (long long)status);
	weft_note(e.id, text);
	weft__shim_uv_counters(e.loop);
	errno = saved;
	const char *ph = weft__shim_uv_io_phase(e.loop);
	if (e.cb) {
		DELIVER_RUN(e.id, NULL, ph,
			    ((uv_exit_cb)e.cb)(p, status, term_signal));
	} else {
		weft__shim_complete_in(e.id, NULL, ph);
		errno = saved;
	}
}

int uv_spawn(uv_loop_t *loop, uv_process_t *handle,
	     const uv_process_options_t *options)
{
	REAL(uv_spawn);
	if (INTERNAL())
		return real_uv_spawn(loop, handle, options);
	SCOPE_INSIDE();
	if (!ON())
		return real_uv_spawn(loop, handle, options);
	uint64_t id = weft__shim_arm(handle, R_PROCESS, "uv_process_t",
				     (void (*)(void))options->exit_cb, loop);
	if (!id)
		return real_uv_spawn(loop, handle, options);
	/* Our exit callback in a copy of the options; the caller's stay as
	 * they are. */
	uv_process_options_t o = *options;
	o.exit_cb = tramp_exit;
	/* the child it forks is this request's (its fork line says so, for
	 * the process creation arrow of a run: docs/runs.md) */
	weft_spawning(id);
	int r = real_uv_spawn(loop, handle, &o);
	weft_spawning(0);
	if (r < 0) {
		struct shim_ent e;
		weft__shim_get(handle, R_PROCESS, &e, 1);
		weft_fail(id, UV(uv_err_name)(r));
		return r;
	}
	weft__shim_label(id, (const void *)options->exit_cb,
			 "process %s, pid %d",
			 options->file ? options->file : "?", handle->pid);
	return r;
}

/* ------------------------------------------------------------ closes */

static void tramp_close(uv_handle_t *h)
{
	struct shim_ent e;
	int saved = errno;
	if (!weft__shim_get(h, R_CLOSE, &e, 1)) {
		errno = saved;
		return;
	}
	weft__shim_uv_counters(e.loop);
	errno = saved;
	if (e.cb) {
		DELIVER_RUN(e.id, NULL, PH_CLOSING, ((uv_close_cb)e.cb)(h));
	} else {
		weft__shim_complete_in(e.id, NULL, PH_CLOSING);
		errno = saved;
	}
}

void uv_close(uv_handle_t *handle, uv_close_cb close_cb)
{
	REAL(uv_close);
	/* libuv closes the handle's descriptor with a raw system call, past
	 * the shim's close(): forgotten here, or its number, used again
	 * (by a file the program or libweft opens), would still count as a
	 * traced handle's, its writes as messages on the old channel.  (A
	 * uv_poll_t's descriptor is the program's: it stays open.) */
	if (UV(uv_handle_get_type)(handle) != UV_POLL) {
		int fd = weft__shim_uv_fd_of(handle);
		if (fd >= 0) {
			weft__shim_fd_forget(fd);
			weft__shim_chan_forget(fd);
		}
	}
	if (INTERNAL()) {
		real_uv_close(handle, close_cb);
		return;
	}
	SCOPE_INSIDE();
	/* What the handle had armed will not fire. */
	static const int roles[] = {R_TIMER, R_READ,	R_LISTEN,  R_ASYNC,
				    R_POLL,  R_SIGNAL,	R_PROCESS, R_UDP_RECV,
				    R_IDLE,  R_PREPARE, R_CHECK};
	for (unsigned i = 0; i < sizeof roles / sizeof *roles; i++)
		weft__shim_disarm(handle, roles[i]);
	if (!ON()) {
		real_uv_close(handle, close_cb);
		return;
	}
	uint64_t id = weft__shim_new_id();
	weft_create(id, "uv_close");
	if (!weft__shim_put(handle, R_CLOSE, id, (void (*)(void))close_cb, NULL,
			    handle->loop)) {
		real_uv_close(handle, close_cb);
		return;
	}
	weft__shim_label(
		id, (const void *)close_cb, "close %s",
		UV(uv_handle_type_name)(UV(uv_handle_get_type)(handle)));
	real_uv_close(handle, tramp_close);
}
