/* SPDX-License-Identifier: MIT */
/*
 * uv-shim.h - what the parts of the libuv shim share (loop.c, req.c,
 * fs.c, handle.c): roles of its side-table entries, libuv's phases, and
 * small helpers over libuv's public layout.  See docs/libuv.md.
 */
#ifndef WEFT_UV_SHIM_H
#define WEFT_UV_SHIM_H

#include <uv.h>

/* Where libuv's functions are when it was loaded with dlopen(RTLD_LOCAL). */
extern const char *const weft__shim_uv_libs[];
#define SHIM_LIBS weft__shim_uv_libs
#include "shim/shim.h"

/* A libuv function the shim calls: looked up once (the shim does not
 * link libuv). */
#define UV(name)                                                               \
	({                                                                     \
		REAL(name);                                                    \
		real_##name;                                                   \
	})

/* What an entry of the side table is (one handle may have several). */
enum role {
	R_REQ = SHIM_ROLE_UV,
	R_LOOP,
	R_TIMER,
	R_READ,
	R_LISTEN,
	R_ASYNC,
	R_POLL,
	R_SIGNAL,
	R_PROCESS,
	R_CLOSE,
	R_UDP_RECV,
	R_IDLE,
	R_PREPARE,
	R_CHECK,
};

/* A call libuv makes of itself, or from inside one of our wrappers. */
extern struct shim_lib weft__shim_libuv;
#define INTERNAL()                                                             \
	(!(weft__shim_loops_on & SHIM_LOOP_UV) || weft__shim_inside ||         \
	 weft__shim_from_lib(&weft__shim_libuv, __builtin_return_address(0)))
#undef ON
#define ON() LOOP_ON(SHIM_LOOP_UV)

/* The phases of a libuv iteration, in its order (poll is the shared
 * weft__shim_poll: the wait's idle reason is its name). */
extern const char weft__shim_uv_timers[], weft__shim_uv_pending[],
	weft__shim_uv_idle[], weft__shim_uv_prepare[], weft__shim_uv_check[],
	weft__shim_uv_closing[];
#define PH_TIMERS weft__shim_uv_timers
#define PH_PENDING weft__shim_uv_pending
#define PH_IDLE weft__shim_uv_idle
#define PH_PREPARE weft__shim_uv_prepare
#define PH_POLL weft__shim_poll
#define PH_CHECK weft__shim_uv_check
#define PH_CLOSING weft__shim_uv_closing

/* Whether the loop is dispatching what epoll returned: libuv's poll
 * keeps the returned events in the slot past the last watcher while it
 * calls their callbacks, and clears it after (every Unix backend of
 * libuv 1.x; uv_loop_t's watchers and nwatchers are in its public
 * layout).  (Inline: asked at every callback.) */
static inline int weft__shim_uv_in_io(const uv_loop_t *loop)
{
	return loop && loop->watchers &&
	       loop->watchers[loop->nwatchers] != NULL;
}

/* libuv delivers the requests its writes and connects finished in the
 * pending phase, and cancels those of a closing handle in the closing
 * phase. */
static inline const char *weft__shim_uv_completion_phase(const uv_loop_t *loop,
							 long status)
{
	if (weft__shim_uv_in_io(loop))
		return PH_POLL;
	return status == UV_ECANCELED ? PH_CLOSING : PH_PENDING;
}

/* A handle's I/O activation: poll, unless libuv runs it from its
 * pending queue. */
static inline const char *weft__shim_uv_io_phase(const uv_loop_t *loop)
{
	return weft__shim_uv_in_io(loop) ? PH_POLL : PH_PENDING;
}

/* The loop's own counts, recorded when they change (errno kept).  The
 * last values recorded are per OS thread (a loop runs on one): compared
 * inline, as they rarely change between two callbacks. */
extern __thread unsigned weft__shim_uv_last_handles, weft__shim_uv_last_reqs;
void weft__shim_uv_counters_changed(uv_loop_t *loop);
static inline void weft__shim_uv_counters(uv_loop_t *loop)
{
	if (loop && (loop->active_handles != weft__shim_uv_last_handles ||
		     loop->active_reqs.count != weft__shim_uv_last_reqs))
		weft__shim_uv_counters_changed(loop);
}

/* What a failed status is called: NULL when it did not fail. */
static inline const char *weft__shim_uv_fail(long status)
{
	return status < 0 ? UV(uv_err_name)((int)status) : NULL;
}

/* A stream's descriptor, read where uv_fileno() reads it (the Unix
 * layout of uv_stream_t is libuv 1.x's ABI): -1 when it has none. */
static inline int weft__shim_uv_stream_fd(const uv_stream_t *s)
{
	return s->io_watcher.fd;
}
int weft__shim_uv_fd_of(const uv_handle_t *h);
/* "127.0.0.1:80", "[::1]:80", "?" into buf. */
const char *weft__shim_uv_addr(const struct sockaddr *sa, char *buf,
			       size_t cap);

/* The bytes of a write's buffers. */
static inline size_t weft__shim_uv_bytes(const uv_buf_t *bufs, unsigned n)
{
	size_t t = 0;
	for (unsigned i = 0; i < n; i++)
		t += bufs[i].len;
	return t;
}

/* What a read or UDP receive callback is given, recorded as received on
 * its descriptor fd (chan.c) while the activation runs; returns nread. */
ssize_t weft__shim_uv_got(int fd, ssize_t nread, const struct sockaddr *from);

/* Requests (req.c): a submitted request's thread and its completion. */
uint64_t weft__shim_uv_req_begin(const void *req, const char *kind,
				 void (*cb)(void), void (*cb2)(void),
				 uv_loop_t *loop, int shared);
int weft__shim_uv_req_take(const void *req, struct shim_ent *e);
void weft__shim_uv_req_refused(const void *req, uint64_t id, int r);
/* The submission of `id` returned r: failed at once when r < 0, with
 * no callback to come.  Returns r. */
static inline int weft__shim_uv_req_submitted(const void *req, uint64_t id,
					      int r)
{
	if (__builtin_expect(id && r < 0, 0))
		weft__shim_uv_req_refused(req, id, r);
	return r;
}
void weft__shim_uv_tramp_fs(uv_fs_t *req);

#endif
