/* SPDX-License-Identifier: MIT */
/*
 * req.c - libuv requests (write, connect, shutdown, UDP send,
 * getaddrinfo, getnameinfo, random, threadpool work) as async threads:
 * created by whatever is current when submitted, resolved or failed (with
 * the libuv error name) by the loop when the result arrives, running
 * while their callback runs.
 */
#define _GNU_SOURCE
#include <string.h>

#include "uv-shim.h"

/* Keeps a submitted request: in this thread's table when it can, else
 * in the shared one (`shared`: looked up from other OS threads). */
static int req_put(const void *req, uint64_t id, void (*cb)(void),
		   void (*cb2)(void), uv_loop_t *loop, int shared)
{
	if (!shared && !cb2 && weft__shim_mine_put(req, R_REQ, id, cb, loop))
		return 1;
	return weft__shim_put(req, R_REQ, id, cb, cb2, loop);
}

/* Takes a completed request's entry, wherever it is. */
int weft__shim_uv_req_take(const void *req, struct shim_ent *e)
{
	return weft__shim_mine_take(req, R_REQ, e) ||
	       weft__shim_get(req, R_REQ, e, 1);
}

/* A request was submitted: create its async thread.  Returns its id, or
 * 0 when not tracing. */
uint64_t weft__shim_uv_req_begin(const void *req, const char *kind,
				 void (*cb)(void), void (*cb2)(void),
				 uv_loop_t *loop, int shared)
{
	if (!ON())
		return 0;
	uint64_t id = weft__shim_new_id();
	weft_create(id, kind);
	if (!req_put(req, id, cb, cb2, loop, shared))
		return 0;
	return id;
}

static uint64_t req_begin(const void *req, const char *kind, void (*cb)(void),
			  uv_loop_t *loop)
{
	return weft__shim_uv_req_begin(req, kind, cb, NULL, loop, 0);
}

/* The same, labelled with what weft__shim_cached_label() returned. */
static uint64_t req_begin_labelled(const void *req, const char *kind,
				   const char *kept, const struct shim_lb *b,
				   void (*cb)(void), uv_loop_t *loop)
{
	uint64_t id = weft__shim_new_id();
	weft__shim_create_labelled(id, kind, kept, b);
	if (!req_put(req, id, cb, NULL, loop, 0))
		return 0;
	return id;
}

/* The submission failed at once: no callback will come. */
void weft__shim_uv_req_refused(const void *req, uint64_t id, int r)
{
	struct shim_ent e;
	weft__shim_uv_req_take(req, &e);
	weft_fail(id, UV(uv_err_name)(r));
}

/* A synchronous call (no callback) completed with r. */
static int req_sync(const void *req, uint64_t id, int r)
{
	struct shim_ent e;
	weft__shim_uv_req_take(req, &e);
	weft__shim_complete(id, weft__shim_uv_fail(r));
	return r;
}

/* In a trampoline: the entry of a completed request (removed). */
static int req_end(const void *req, struct shim_ent *e)
{
	/* (no system call in either: errno stays the program's) */
	if (!weft__shim_uv_req_take(req, e))
		return 0;
	weft__shim_uv_counters(e->loop);
	return 1;
}

/* The trampoline of a request type: its completion, in the phase it
 * comes in, then the user's callback as the request. */
#define TRAMP_REQ(name, type, cbtype, params, args, statusexpr, cbfield)       \
	type params                                                            \
	{                                                                      \
		struct shim_ent e;                                             \
		long status_ = (statusexpr);                                   \
		if (!req_end(req, &e))                                         \
			return;                                                \
		const char *ph_ =                                              \
			weft__shim_uv_completion_phase(e.loop, status_);       \
		const char *fail_ = weft__shim_uv_fail(status_);               \
		if (e.cbfield)                                                 \
			DELIVER_RUN(e.id, fail_, ph_,                          \
				    ((cbtype)e.cbfield)args);                  \
		else                                                           \
			weft__shim_complete_in(e.id, fail_, ph_);              \
	}
#define TRAMP(name, cbtype, params, args, statusexpr)                          \
	TRAMP_REQ(name, static void tramp_##name, cbtype, params, args,        \
		  statusexpr, cb)

TRAMP(write, uv_write_cb, (uv_write_t * req, int status), (req, status), status)
TRAMP(connect, uv_connect_cb, (uv_connect_t * req, int status), (req, status),
      status)
TRAMP(shutdown, uv_shutdown_cb, (uv_shutdown_t * req, int status),
      (req, status), status)
TRAMP(udp_send, uv_udp_send_cb, (uv_udp_send_t * req, int status),
      (req, status), status)
TRAMP(getaddrinfo, uv_getaddrinfo_cb,
      (uv_getaddrinfo_t * req, int status, struct addrinfo *res),
      (req, status, res), status)
TRAMP(getnameinfo, uv_getnameinfo_cb,
      (uv_getnameinfo_t * req, int status, const char *host,
       const char *service),
      (req, status, host, service), status)
TRAMP(random, uv_random_cb,
      (uv_random_t * req, int status, void *buf, size_t buflen),
      (req, status, buf, buflen), status)
TRAMP_REQ(fs, void weft__shim_uv_tramp_fs, uv_fs_cb, (uv_fs_t * req), (req),
	  (long)req->result, cb)
/* Threadpool work: the after-work callback, on the loop's thread. */
TRAMP_REQ(after_work, static void tramp_after_work, uv_after_work_cb,
	  (uv_work_t * req, int status), (req, status), status, cb2)

/* The labels of this OS thread's last writes, one per descriptor modulo
 * WMEMO: a program writes the same size to the same descriptor with the
 * same callback over and over (an echo, a protocol's fixed-size
 * messages), and a comparison here saves the label cache's hash and
 * probe.  Only texts the cache kept (never changed, never freed). */
#define WMEMO 4 /* a power of two */
static __thread struct {
	size_t n;
	int fd;
	uv_write_cb cb;
	const char *kept;
} wmemo[WMEMO];

/* "write N bytes to fd F -> cb" (see weft__shim_cached_label). */
static inline const char *write_label(struct shim_lb *b, size_t n, int fd,
				      uv_write_cb cb)
{
	unsigned i = (unsigned)fd & (WMEMO - 1);
	if (wmemo[i].kept && wmemo[i].n == n && wmemo[i].fd == fd &&
	    wmemo[i].cb == cb)
		return wmemo[i].kept;
	const char *kept = weft__shim_cached_label(b, "write ", (long long)n,
						   " bytes to fd ", fd,
						   (const void *)cb);
	if (kept) {
		wmemo[i].n = n;
		wmemo[i].fd = fd;
		wmemo[i].cb = cb;
		wmemo[i].kept = kept;
	}
	return kept;
}

int uv_write(uv_write_t *req, uv_stream_t *handle, const uv_buf_t bufs[],
	     unsigned int nbufs, uv_write_cb cb)
{
	REAL(uv_write);
	if (INTERNAL())
		return real_uv_write(req, handle, bufs, nbufs, cb);
	SCOPE_INSIDE();
	if (!ON())
		return real_uv_write(req, handle, bufs, nbufs, cb);
	size_t n = weft__shim_uv_bytes(bufs, nbufs);
	int fd = weft__shim_uv_stream_fd(handle);
	struct shim_lb b;
	const char *kept = write_label(&b, n, fd, cb);
	uint64_t id = req_begin_labelled(req, "uv_write_t", kept, &b,
					 (void (*)(void))cb, handle->loop);
	if (!id)
		return real_uv_write(req, handle, bufs, nbufs, cb);
	/* its bytes, in the order libuv writes requests (chan.c), before
	 * libuv may write them (their reader may read them at once) */
	weft__shim_chan_sent(fd, id, n, NULL);
	/* libuv's uv_write() is uv_write2() with no handle to send: call
	 * that at once, rather than through our uv_write2 below. */
	REAL(uv_write2);
	int r = weft__shim_uv_req_submitted(
		req, id,
		real_uv_write2(req, handle, bufs, nbufs, NULL, tramp_write));
	if (r < 0)
		weft__shim_chan_unsent(fd, n);
	return r;
}

int uv_write2(uv_write_t *req, uv_stream_t *handle, const uv_buf_t bufs[],
	      unsigned int nbufs, uv_stream_t *send_handle, uv_write_cb cb)
{
	REAL(uv_write2);
	if (INTERNAL())
		return real_uv_write2(req, handle, bufs, nbufs, send_handle,
				      cb);
	SCOPE_INSIDE();
	uint64_t id =
		req_begin(req, "uv_write_t", (void (*)(void))cb, handle->loop);
	if (!id)
		return real_uv_write2(req, handle, bufs, nbufs, send_handle,
				      cb);
	weft__shim_label(id, (const void *)cb, "write (with a handle) to fd %d",
			 weft__shim_uv_fd_of((uv_handle_t *)handle));
	int fd = weft__shim_uv_stream_fd(handle);
	size_t n = weft__shim_uv_bytes(bufs, nbufs);
	weft__shim_chan_sent(fd, id, n, NULL);
	int r = weft__shim_uv_req_submitted(req, id,
					    real_uv_write2(req, handle, bufs,
							   nbufs, send_handle,
							   tramp_write));
	if (r < 0)
		weft__shim_chan_unsent(fd, n);
	return r;
}

int uv_udp_try_send(uv_udp_t *handle, const uv_buf_t bufs[], unsigned int nbufs,
		    const struct sockaddr *addr)
{
	REAL(uv_udp_try_send);
	int r = real_uv_udp_try_send(handle, bufs, nbufs, addr);
	if (r > 0 && !INTERNAL())
		weft__shim_chan_sent(weft__shim_uv_fd_of((uv_handle_t *)handle),
				     0, (size_t)r, addr);
	return r;
}

int uv_tcp_connect(uv_connect_t *req, uv_tcp_t *handle,
		   const struct sockaddr *addr, uv_connect_cb cb)
{
	REAL(uv_tcp_connect);
	if (INTERNAL())
		return real_uv_tcp_connect(req, handle, addr, cb);
	SCOPE_INSIDE();
	uint64_t id = req_begin(req, "uv_connect_t", (void (*)(void))cb,
				handle->loop);
	if (!id)
		return real_uv_tcp_connect(req, handle, addr, cb);
	char a[96];
	weft__shim_label(id, (const void *)cb, "connect to %s",
			 weft__shim_uv_addr(addr, a, sizeof a));
	return weft__shim_uv_req_submitted(
		req, id, real_uv_tcp_connect(req, handle, addr, tramp_connect));
}

void uv_pipe_connect(uv_connect_t *req, uv_pipe_t *handle, const char *name,
		     uv_connect_cb cb)
{
	REAL(uv_pipe_connect);
	if (INTERNAL()) {
		real_uv_pipe_connect(req, handle, name, cb);
		return;
	}
	SCOPE_INSIDE();
	uint64_t id = req_begin(req, "uv_connect_t", (void (*)(void))cb,
				handle->loop);
	if (!id) {
		real_uv_pipe_connect(req, handle, name, cb);
		return;
	}
	weft__shim_label(id, (const void *)cb, "connect to pipe %s",
			 name ? name : "?");
	real_uv_pipe_connect(req, handle, name, tramp_connect);
}

int uv_shutdown(uv_shutdown_t *req, uv_stream_t *handle, uv_shutdown_cb cb)
{
	REAL(uv_shutdown);
	if (INTERNAL())
		return real_uv_shutdown(req, handle, cb);
	SCOPE_INSIDE();
	uint64_t id = req_begin(req, "uv_shutdown_t", (void (*)(void))cb,
				handle->loop);
	if (!id)
		return real_uv_shutdown(req, handle, cb);
	weft__shim_label(id, (const void *)cb, "shutdown fd %d",
			 weft__shim_uv_fd_of((uv_handle_t *)handle));
	return weft__shim_uv_req_submitted(
		req, id, real_uv_shutdown(req, handle, tramp_shutdown));
}

int uv_udp_send(uv_udp_send_t *req, uv_udp_t *handle, const uv_buf_t bufs[],
		unsigned int nbufs, const struct sockaddr *addr,
		uv_udp_send_cb cb)
{
	REAL(uv_udp_send);
	if (INTERNAL())
		return real_uv_udp_send(req, handle, bufs, nbufs, addr, cb);
	SCOPE_INSIDE();
	uint64_t id = req_begin(req, "uv_udp_send_t", (void (*)(void))cb,
				handle->loop);
	if (!id)
		return real_uv_udp_send(req, handle, bufs, nbufs, addr, cb);
	char a[96];
	weft__shim_label(id, (const void *)cb, "udp send to %s",
			 weft__shim_uv_addr(addr, a, sizeof a));
	/* libuv sends at once when nothing is queued: recorded before, so
	 * that no receive is recorded before its send; a socket not bound
	 * yet (libuv binds it in the call) has no port to name the channel
	 * by until after the call.  (A datagram that then fails to go is
	 * one the receiver never gets: a loss the matching skips.) */
	int fd = weft__shim_uv_fd_of((uv_handle_t *)handle);
	int before = fd >= 0 && weft__shim_bound(fd);
	size_t n = weft__shim_uv_bytes(bufs, nbufs);
	if (before)
		weft__shim_chan_sent(fd, id, n, addr);
	int r = weft__shim_uv_req_submitted(req, id,
					    real_uv_udp_send(req, handle, bufs,
							     nbufs, addr,
							     tramp_udp_send));
	if (r >= 0 && !before)
		weft__shim_chan_sent(weft__shim_uv_fd_of((uv_handle_t *)handle),
				     id, n, addr);
	return r;
}

int uv_getaddrinfo(uv_loop_t *loop, uv_getaddrinfo_t *req, uv_getaddrinfo_cb cb,
		   const char *node, const char *service,
		   const struct addrinfo *hints)
{
	REAL(uv_getaddrinfo);
	if (INTERNAL())
		return real_uv_getaddrinfo(loop, req, cb, node, service, hints);
	SCOPE_INSIDE();
	uint64_t id =
		req_begin(req, "uv_getaddrinfo_t", (void (*)(void))cb, loop);
	if (!id)
		return real_uv_getaddrinfo(loop, req, cb, node, service, hints);
	weft__shim_label(id, (const void *)cb, "getaddrinfo %s %s",
			 node ? node : "", service ? service : "");
	if (!cb) /* synchronous */
		return req_sync(req, id,
				real_uv_getaddrinfo(loop, req, NULL, node,
						    service, hints));
	return weft__shim_uv_req_submitted(
		req, id,
		real_uv_getaddrinfo(loop, req, tramp_getaddrinfo, node, service,
				    hints));
}

int uv_getnameinfo(uv_loop_t *loop, uv_getnameinfo_t *req, uv_getnameinfo_cb cb,
		   const struct sockaddr *addr, int flags)
{
	REAL(uv_getnameinfo);
	if (INTERNAL())
		return real_uv_getnameinfo(loop, req, cb, addr, flags);
	SCOPE_INSIDE();
	uint64_t id =
		req_begin(req, "uv_getnameinfo_t", (void (*)(void))cb, loop);
	if (!id)
		return real_uv_getnameinfo(loop, req, cb, addr, flags);
	char a[96];
	weft__shim_label(id, (const void *)cb, "getnameinfo %s",
			 weft__shim_uv_addr(addr, a, sizeof a));
	if (!cb)
		return req_sync(req, id,
				real_uv_getnameinfo(loop, req, NULL, addr,
						    flags));
	return weft__shim_uv_req_submitted(
		req, id,
		real_uv_getnameinfo(loop, req, tramp_getnameinfo, addr, flags));
}

int uv_random(uv_loop_t *loop, uv_random_t *req, void *buf, size_t buflen,
	      unsigned flags, uv_random_cb cb)
{
	REAL(uv_random);
	if (INTERNAL())
		return real_uv_random(loop, req, buf, buflen, flags, cb);
	SCOPE_INSIDE();
	if (!cb || !ON()) /* synchronous, or not tracing */
		return real_uv_random(loop, req, buf, buflen, flags, cb);
	uint64_t id = req_begin(req, "uv_random_t", (void (*)(void))cb, loop);
	if (!id)
		return real_uv_random(loop, req, buf, buflen, flags, cb);
	weft__shim_label(id, (const void *)cb, "random %zu bytes", buflen);
	return weft__shim_uv_req_submitted(
		req, id,
		real_uv_random(loop, req, buf, buflen, flags, tramp_random));
}

/* Threadpool work: it runs on a worker OS thread; the gap between its
 * creation and its run there is its queue wait. */
static void tramp_work(uv_work_t *req)
{
	struct shim_ent e;
	int saved = errno;
	int known = weft__shim_get(req, R_REQ, &e, 0);
	errno = saved;
	if (!known)
		return;
	RUN_AS(e.id, ((uv_work_cb)e.cb)(req));
}

int uv_queue_work(uv_loop_t *loop, uv_work_t *req, uv_work_cb work_cb,
		  uv_after_work_cb after_work_cb)
{
	REAL(uv_queue_work);
	if (INTERNAL())
		return real_uv_queue_work(loop, req, work_cb, after_work_cb);
	SCOPE_INSIDE();
	if (!work_cb || !ON())
		return real_uv_queue_work(loop, req, work_cb, after_work_cb);
	/* shared: tramp_work looks it up on a worker thread */
	uint64_t id = weft__shim_uv_req_begin(req, "uv_work_t",
					      (void (*)(void))work_cb,
					      (void (*)(void))after_work_cb,
					      loop, 1);
	if (!id)
		return real_uv_queue_work(loop, req, work_cb, after_work_cb);
	weft__shim_label(id, (const void *)work_cb, "threadpool work");
	return weft__shim_uv_req_submitted(
		req, id,
		real_uv_queue_work(loop, req, tramp_work, tramp_after_work));
}

/* A write libuv tries at once (uv_try_write: Node.js writes small
 * responses so): a request of the current thread, resolved at once with
 * what it wrote.  "Nothing could be written now" (EAGAIN), which the
 * program follows with uv_write, is not recorded. */
static int tried(uv_stream_t *handle, int r)
{
	if (r == UV_EAGAIN || !ON())
		return r;
	int saved = errno;
	struct shim_lb b;
	uint64_t id = weft__shim_new_id();
	int fd = weft__shim_uv_stream_fd(handle);
	const char *kept = r >= 0 ? weft__shim_cached_label(&b, "write ", r,
							    " bytes to fd ", fd,
							    SHIM_NO_CB)
				  : weft__shim_cached_label(&b, "write to fd ",
							    fd, NULL, 0,
							    SHIM_NO_CB);
	weft_burst_begin();
	weft__shim_create_labelled(id, "uv_try_write", kept, &b);
	weft__shim_complete(id, weft__shim_uv_fail(r));
	weft_burst_end();
	/* its bytes (libuv tries only with nothing queued before) */
	if (r > 0)
		weft__shim_chan_sent(fd, id, (size_t)r, NULL);
	errno = saved;
	return r;
}

int uv_try_write(uv_stream_t *handle, const uv_buf_t bufs[], unsigned int nbufs)
{
	REAL(uv_try_write);
	if (INTERNAL())
		return real_uv_try_write(handle, bufs, nbufs);
	SCOPE_INSIDE();
	return tried(handle, real_uv_try_write(handle, bufs, nbufs));
}

int uv_try_write2(uv_stream_t *handle, const uv_buf_t bufs[],
		  unsigned int nbufs, uv_stream_t *send_handle)
{
	REAL(uv_try_write2);
	if (INTERNAL())
		return real_uv_try_write2(handle, bufs, nbufs, send_handle);
	SCOPE_INSIDE();
	return tried(handle,
		     real_uv_try_write2(handle, bufs, nbufs, send_handle));
}
