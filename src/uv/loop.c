/* SPDX-License-Identifier: MIT */
/*
 * loop.c - a libuv loop as an async thread that runs while uv_run()
 * runs; the phase each of its callbacks runs in; its wait in epoll as
 * idle time; its own counts as counters.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>

#include "uv-shim.h"

const char *const weft__shim_uv_libs[] = {"libuv.so.1", NULL};
static const char *const names[] = {WEFT_LOOP_LIBS_UV, NULL};
struct shim_lib weft__shim_libuv = SHIM_LIB(names, SHIM_LIB_UV);

/* ------------------------------------------------------------ phases */

/* An iteration of an echo server marks one phase (its write callbacks'
 * "pending") on top of its idle and resume: the wait, recorded as idle
 * "poll", is the poll phase. */
const char weft__shim_uv_timers[] = "timers";
const char weft__shim_uv_pending[] = "pending";
const char weft__shim_uv_idle[] = "idle";
const char weft__shim_uv_prepare[] = "prepare";
const char weft__shim_uv_check[] = "check";
const char weft__shim_uv_closing[] = "closing";

/* ---------------------------------------------------------- helpers */

/* Per OS thread: a loop runs on one. */
__thread unsigned weft__shim_uv_last_handles = ~0u,
		  weft__shim_uv_last_reqs = ~0u;

void weft__shim_uv_counters_changed(uv_loop_t *loop)
{
	int saved = errno;
	if (loop->active_handles != weft__shim_uv_last_handles) {
		weft__shim_uv_last_handles = loop->active_handles;
		weft_counter_set("uv.active_handles",
				 (int64_t)weft__shim_uv_last_handles);
	}
	if (loop->active_reqs.count != weft__shim_uv_last_reqs) {
		weft__shim_uv_last_reqs = loop->active_reqs.count;
		weft_counter_set("uv.active_requests",
				 (int64_t)weft__shim_uv_last_reqs);
	}
	errno = saved;
}

int weft__shim_uv_fd_of(const uv_handle_t *h)
{
	uv_os_fd_t fd = -1;
	if (UV(uv_fileno)(h, &fd) < 0)
		return -1;
	return fd;
}

const char *weft__shim_uv_addr(const struct sockaddr *sa, char *buf, size_t cap)
{
	char host[64] = "?";
	int port = 0;
	if (!sa) {
		snprintf(buf, cap, "?");
		return buf;
	}
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
		port = ntohs(in->sin_port);
		snprintf(buf, cap, "%s:%d", host, port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in = (const void *)sa;
		inet_ntop(AF_INET6, &in->sin6_addr, host, sizeof host);
		port = ntohs(in->sin6_port);
		snprintf(buf, cap, "[%s]:%d", host, port);
	} else
		snprintf(buf, cap, "family %d", sa->sa_family);
	return buf;
}

/* ---------------------------------------------------------- the loop */

static uint64_t loop_id(uv_loop_t *loop)
{
	struct shim_ent e;
	if (weft__shim_get(loop, R_LOOP, &e, 0))
		return e.id;
	uint64_t id = weft__shim_new_id();
	weft_create(id, "uv_loop_t");
	char text[64];
	snprintf(text, sizeof text, "uv loop %p%s", (void *)loop,
		 loop == UV(uv_default_loop)() ? " (default)" : "");
	weft_label(id, text);
	weft__shim_put(loop, R_LOOP, id, NULL, NULL, loop);
	return id;
}

int uv_run(uv_loop_t *loop, uv_run_mode mode)
{
	REAL(uv_run);
	if (!ON())
		return real_uv_run(loop, mode);
	struct shim_loop_frame f;
	weft__shim_loop_enter(&f, loop_id(loop), loop, "uv.loop_busy_us");
	int r = real_uv_run(loop, mode);
	weft__shim_loop_leave(&f);
	return r;
}

int uv_loop_close(uv_loop_t *loop)
{
	REAL(uv_loop_close);
	int r = real_uv_loop_close(loop);
	struct shim_ent e;
	if (r == 0 && weft__shim_get(loop, R_LOOP, &e, 1) && ON())
		weft_resolve(e.id);
	return r;
}
