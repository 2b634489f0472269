/* SPDX-License-Identifier: MIT */
/*
 * bev.c - libevent's bufferevents and connection listeners.
 *
 * A socket bufferevent's reads are activations of one kind: armed while
 * reading is enabled and a read callback is set, fired when the callback
 * comes (labelled with the bytes waiting in the input buffer), failed with
 * EOF, the error or "timeout" when the event callback says so.  Each piece
 * of data added to its output buffer (bufferevent_write, evbuffer_add on
 * bufferevent_get_output...) is a write request of that size, created by
 * whatever is current, resolved by the loop once the buffer has drained
 * past it (seen through a callback of the shim's on the output buffer);
 * the write callback runs as the write that emptied it.  A connect
 * (bufferevent_socket_connect, _connect_hostname) is a request resolved
 * or failed by the event callback, which runs as it.
 *
 * A listener's connections are activations like a libuv listen's.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event-shim.h"
#include "common/grow.h"

struct wreq {
	uint64_t id;
	size_t left; /* of its bytes, still in the buffer */
};

/* What the shim keeps of a bufferevent. */
struct bevx {
	bufferevent_data_cb readcb, writecb; /* the user's */
	bufferevent_event_cb eventcb;
	void *arg;
	struct evbuffer_cb_entry *out_cb;
	uint64_t read_id; /* the pending read activation (atomic) */
	const char *read_label;
	int read_fd;	     /* the descriptor read_label names */
	uint64_t connect_id; /* the pending connect (atomic) */
	uint64_t last_written;
	int fd;		/* its socket, as last seen */
	struct wreq *w; /* pending writes, in order: w[wh .. wn) */
	size_t wh, wn, wcap;
};

static struct bevx *bevx_of(const struct bufferevent *bev)
{
	struct shim_ent e;
	return bev && weft__shim_get(bev, R_BEV, &e, 0) ? e.data : NULL;
}

static const char *active(void)
{
	return weft__shim_ev_active_phase(NULL);
}

/* ------------------------------------------------------------- reads */

static void arm_read(struct bevx *c, struct bufferevent *bev)
{
	if (!ON() || !c->readcb ||
	    __atomic_load_n(&c->read_id, __ATOMIC_RELAXED))
		return;
	struct shim_lb b;
	c->read_fd = c->fd = EV(bufferevent_getfd)(bev);
	const char *kept = weft__shim_cached_label(&b, "read fd ", c->fd, NULL,
						   0, (const void *)c->readcb);
	uint64_t id = weft__shim_new_id();
	weft__shim_create_labelled(id, "bufferevent read", kept, &b);
	c->read_label = kept;
	uint64_t old = __atomic_exchange_n(&c->read_id, id, __ATOMIC_RELAXED);
	if (old)
		weft_cancel(old);
}

static void disarm_read(struct bevx *c)
{
	uint64_t id = __atomic_exchange_n(&c->read_id, 0, __ATOMIC_RELAXED);
	if (id && ON())
		weft_cancel(id);
}

/* The read callback: the pending read resolves, labelled with the bytes
 * it found, and the next one, created by it, takes its place. */
static void tramp_read(struct bufferevent *bev, void *arg)
{
	struct bevx *c = arg;
	bufferevent_data_cb cb = c->readcb;
	void *uarg = c->arg;
	uint64_t id = __atomic_exchange_n(&c->read_id, 0, __ATOMIC_RELAXED);
	if (!id || !ON()) {
		USER_CALL(cb(bev, uarg));
		return;
	}
	int saved = errno;
	int fd = EV(bufferevent_getfd)(bev);
	long long n = (long long)EV(evbuffer_get_length)(
		EV(bufferevent_get_input)(bev));
	uint64_t next = weft__shim_new_id(), none = 0;
	int again = __atomic_compare_exchange_n(&c->read_id, &none, next, 0,
						__ATOMIC_RELAXED,
						__ATOMIC_RELAXED);
	struct shim_lb b, sized;
	/* armed before a connect gave it its descriptor: the next one
	 * names it */
	int relabel = fd != c->read_fd;
	const char *kept = c->read_label && !relabel
				   ? c->read_label
				   : weft__shim_cached_label(&b, "read fd ", fd,
							     NULL, 0, cb);
	if (relabel && kept) {
		c->read_label = kept;
		c->read_fd = fd;
	}
	const char *text = weft__shim_cached_label(&sized, "read ", n,
						   " bytes from fd ", fd, cb);
	uint64_t prev = weft__shim_cur;
	weft_burst_begin(); /* one instant */
	weft__shim_phase_mark(active());
	weft__shim_cur = id;
	if (again && kept == c->read_label && kept && !relabel) {
		weft_fire(id, next); /* next: kind and label of the read */
	} else {
		weft_resolve_run(id);
		if (again)
			weft__shim_create_labelled(next, "bufferevent read",
						   kept, &b);
	}
	weft_label(id, text ? text : sized.s);
	weft_burst_end();
	errno = saved;
	USER_CALL(cb(bev, uarg));
	weft__shim_set_cur(prev);
}

/* ------------------------------------------------------------ writes */

static int push_write(struct bevx *c, uint64_t id, size_t n)
{
	if (c->wh == c->wn)
		c->wh = c->wn = 0;
	if (c->wn == c->wcap) {
		if (c->wh) { /* room at the front: close the gap */
			memmove(c->w, c->w + c->wh,
				(c->wn - c->wh) * sizeof *c->w);
			c->wn -= c->wh;
			c->wh = 0;
		} else if (WEFT_GROW(c->w, c->wcap, c->wn + 1))
			return -1;
	}
	c->w[c->wn].id = id;
	c->w[c->wn].left = n;
	c->wn++;
	return 0;
}

/* The output buffer changed: data added is a write request, data drained
 * (written to the socket) resolves the requests it finishes. */
static void out_cb(struct evbuffer *buf, const struct evbuffer_cb_info *info,
		   void *arg)
{
	struct bevx *c = arg;
	(void)buf;
	if (!ON())
		return;
	int saved = errno;
	if (info->n_added) {
		struct shim_lb b;
		const char *kept = weft__shim_cached_label(
			&b, "write ", (long long)info->n_added, " bytes to fd ",
			c->fd,
			c->writecb ? (const void *)c->writecb : SHIM_NO_CB);
		uint64_t id = weft__shim_new_id();
		weft__shim_create_labelled(id, "bufferevent write", kept, &b);
		if (push_write(c, id, info->n_added) < 0)
			weft_fail(id, "untraced: no memory");
	}
	size_t d = info->n_deleted;
	if (d && c->wh < c->wn) {
		weft_burst_begin();
		while (d && c->wh < c->wn) {
			struct wreq *w = &c->w[c->wh];
			if (w->left > d) {
				w->left -= d;
				break;
			}
			d -= w->left;
			weft_resolve(w->id);
			c->last_written = w->id;
			c->wh++;
		}
		weft_burst_end();
	}
	errno = saved;
}

/* Pending writes fail (or are cancelled, with fail NULL). */
static uint64_t end_writes(struct bevx *c, const char *fail)
{
	uint64_t first = c->wh < c->wn ? c->w[c->wh].id : 0;
	for (; c->wh < c->wn; c->wh++)
		if (fail)
			weft_fail(c->w[c->wh].id, fail);
		else
			weft_cancel(c->w[c->wh].id);
	return first;
}

/* The write callback: the buffer drained; it runs as the write that
 * emptied it. */
static void tramp_write(struct bufferevent *bev, void *arg)
{
	struct bevx *c = arg;
	if (c->last_written && ON()) {
		int burst = weft__shim_phase_begin(active());
		if (burst)
			weft_burst_end();
		RUN_AS(c->last_written, c->writecb(bev, c->arg));
	} else
		USER_CALL(c->writecb(bev, c->arg));
}

/* ------------------------------------------------------------ events */

static void tramp_event(struct bufferevent *bev, short what, void *arg)
{
	struct bevx *c = arg;
	bufferevent_event_cb cb = c->eventcb;
	void *uarg = c->arg;
	int err = EVUTIL_SOCKET_ERROR();
	if (!ON()) {
		USER_CALL(cb(bev, what, uarg));
		return;
	}
	const char *fail = what & BEV_EVENT_EOF	      ? "EOF"
			   : what & BEV_EVENT_TIMEOUT ? "timeout"
			   : what & BEV_EVENT_ERROR ? weft__shim_ev_errname(err)
						    : NULL;
	uint64_t id = 0;
	if (what & BEV_EVENT_CONNECTED) {
		id = __atomic_exchange_n(&c->connect_id, 0, __ATOMIC_RELAXED);
		fail = NULL;
	} else if (fail) {
		id = __atomic_exchange_n(&c->connect_id, 0, __ATOMIC_RELAXED);
		if (!id && (what & BEV_EVENT_READING)) /* reading stopped */
			id = __atomic_exchange_n(&c->read_id, 0,
						 __ATOMIC_RELAXED);
		if (!id && (what & BEV_EVENT_WRITING)) {
			uint64_t first = c->wh < c->wn ? c->w[c->wh].id : 0;
			c->wh++; /* the first one runs the callback */
			end_writes(c, fail);
			id = first;
		}
	}
	EVUTIL_SET_SOCKET_ERROR(err);
	if (id)
		DELIVER_RUN(id, fail, active(), cb(bev, what, uarg));
	else
		USER_CALL(cb(bev, what, uarg));
}

/* ---------------------------------------------------------- wrappers */

static void setcb(struct bevx *c, struct bufferevent *bev,
		  bufferevent_data_cb readcb, bufferevent_data_cb writecb,
		  bufferevent_event_cb eventcb, void *cbarg);

/* A new socket bufferevent: its record, and the shim's callback on its
 * output buffer. */
static struct bevx *traced(struct bufferevent *bev, evutil_socket_t fd)
{
	struct bevx *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	if (!weft__shim_put_data(bev, R_BEV, c)) {
		free(c);
		return NULL;
	}
	c->fd = fd;
	c->out_cb =
		EV(evbuffer_add_cb)(EV(bufferevent_get_output)(bev), out_cb, c);
	return c;
}

struct bufferevent *bufferevent_socket_new(struct event_base *base,
					   evutil_socket_t fd, int options)
{
	REAL(bufferevent_socket_new);
	struct bufferevent *bev =
		real_bufferevent_socket_new(base, fd, options);
	if (bev && !INTERNAL() && ON())
		traced(bev, fd);
	return bev;
}

/* The 1.x form (tmux's panes): a socket bufferevent on the current base,
 * its callbacks set at once. */
struct bufferevent *bufferevent_new(evutil_socket_t fd,
				    bufferevent_data_cb readcb,
				    bufferevent_data_cb writecb,
				    bufferevent_event_cb eventcb, void *cbarg)
{
	REAL(bufferevent_new);
	struct bufferevent *bev =
		real_bufferevent_new(fd, readcb, writecb, eventcb, cbarg);
	if (!bev || INTERNAL() || !ON())
		return bev;
	SCOPE_INSIDE();
	struct bevx *c = traced(bev, fd);
	if (c)
		setcb(c, bev, readcb, writecb, eventcb, cbarg);
	return bev;
}

/* The user's callbacks go to c; libevent gets ours, with c. */
static void setcb(struct bevx *c, struct bufferevent *bev,
		  bufferevent_data_cb readcb, bufferevent_data_cb writecb,
		  bufferevent_event_cb eventcb, void *cbarg)
{
	REAL(bufferevent_setcb);
	c->readcb = readcb;
	c->writecb = writecb;
	c->eventcb = eventcb;
	c->arg = cbarg;
	real_bufferevent_setcb(bev, readcb ? tramp_read : NULL,
			       writecb ? tramp_write : NULL,
			       eventcb ? tramp_event : NULL, c);
	if (!readcb)
		disarm_read(c);
	else if (EV(bufferevent_get_enabled)(bev) & EV_READ)
		arm_read(c, bev);
}

void bufferevent_setcb(struct bufferevent *bev, bufferevent_data_cb readcb,
		       bufferevent_data_cb writecb,
		       bufferevent_event_cb eventcb, void *cbarg)
{
	REAL(bufferevent_setcb);
	struct bevx *c = INTERNAL() ? NULL : bevx_of(bev);
	if (!c) {
		real_bufferevent_setcb(bev, readcb, writecb, eventcb, cbarg);
		return;
	}
	SCOPE_INSIDE();
	setcb(c, bev, readcb, writecb, eventcb, cbarg);
}

void bufferevent_getcb(struct bufferevent *bev, bufferevent_data_cb *readcb,
		       bufferevent_data_cb *writecb,
		       bufferevent_event_cb *eventcb, void **cbarg)
{
	REAL(bufferevent_getcb);
	real_bufferevent_getcb(bev, readcb, writecb, eventcb, cbarg);
	struct bevx *c = INTERNAL() ? NULL : bevx_of(bev);
	if (!c)
		return;
	if (readcb)
		*readcb = c->readcb;
	if (writecb)
		*writecb = c->writecb;
	if (eventcb)
		*eventcb = c->eventcb;
	if (cbarg)
		*cbarg = c->arg;
}

int bufferevent_enable(struct bufferevent *bev, short event)
{
	REAL(bufferevent_enable);
	struct bevx *c = INTERNAL() ? NULL : bevx_of(bev);
	int r = real_bufferevent_enable(bev, event);
	if (c && r == 0 && (event & EV_READ))
		arm_read(c, bev);
	return r;
}

int bufferevent_disable(struct bufferevent *bev, short event)
{
	REAL(bufferevent_disable);
	struct bevx *c = INTERNAL() ? NULL : bevx_of(bev);
	if (c && (event & EV_READ))
		disarm_read(c);
	return real_bufferevent_disable(bev, event);
}

/* A connect request, created by the current thread. */
static uint64_t connect_begin(struct bevx *c, const char *to)
{
	if (!ON())
		return 0;
	uint64_t id = weft__shim_new_id();
	weft_create(id, "bufferevent connect");
	weft__shim_label(id, (const void *)c->eventcb, "connect to %s", to);
	uint64_t old =
		__atomic_exchange_n(&c->connect_id, id, __ATOMIC_RELAXED);
	if (old)
		weft_cancel(old);
	return id;
}

static int connect_end(struct bevx *c, int r)
{
	if (r < 0) {
		int err = errno;
		uint64_t id = __atomic_exchange_n(&c->connect_id, 0,
						  __ATOMIC_RELAXED);
		if (id)
			weft_fail(id, weft__shim_ev_errname(err));
		errno = err;
	}
	return r;
}

static const char *addr_str(const struct sockaddr *sa, char *buf, size_t cap)
{
	char host[64] = "?";
	if (sa && sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
		snprintf(buf, cap, "%s:%d", host, ntohs(in->sin_port));
	} else if (sa && sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in = (const void *)sa;
		inet_ntop(AF_INET6, &in->sin6_addr, host, sizeof host);
		snprintf(buf, cap, "[%s]:%d", host, ntohs(in->sin6_port));
	} else
		snprintf(buf, cap, "family %d", sa ? sa->sa_family : -1);
	return buf;
}

int bufferevent_socket_connect(struct bufferevent *bev,
			       const struct sockaddr *sa, int len)
{
	REAL(bufferevent_socket_connect);
	struct bevx *c = INTERNAL() ? NULL : bevx_of(bev);
	if (!c)
		return real_bufferevent_socket_connect(bev, sa, len);
	SCOPE_INSIDE();
	char a[96];
	connect_begin(c, addr_str(sa, a, sizeof a));
	int r = connect_end(c, real_bufferevent_socket_connect(bev, sa, len));
	c->fd = EV(bufferevent_getfd)(bev);
	return r;
}

int bufferevent_socket_connect_hostname(struct bufferevent *bev,
					struct evdns_base *dns, int family,
					const char *hostname, int port)
{
	REAL(bufferevent_socket_connect_hostname);
	struct bevx *c = INTERNAL() ? NULL : bevx_of(bev);
	if (!c)
		return real_bufferevent_socket_connect_hostname(
			bev, dns, family, hostname, port);
	SCOPE_INSIDE();
	char a[300];
	snprintf(a, sizeof a, "%s:%d", hostname ? hostname : "?", port);
	connect_begin(c, a);
	return connect_end(c, real_bufferevent_socket_connect_hostname(
				      bev, dns, family, hostname, port));
}

void bufferevent_free(struct bufferevent *bev)
{
	REAL(bufferevent_free);
	struct shim_ent e;
	struct bevx *c = !INTERNAL() && bev && weft__shim_get(bev, R_BEV, &e, 1)
				 ? e.data
				 : NULL;
	if (c) {
		disarm_read(c);
		uint64_t id = __atomic_exchange_n(&c->connect_id, 0,
						  __ATOMIC_RELAXED);
		if (id && ON())
			weft_cancel(id);
		if (ON())
			end_writes(c, NULL);
		EV(evbuffer_remove_cb_entry)
		(EV(bufferevent_get_output)(bev), c->out_cb);
	}
	real_bufferevent_free(bev);
	if (c) {
		free(c->w);
		free(c);
	}
}

/* --------------------------------------------------------- listeners */

struct lx {
	evconnlistener_cb cb;
	void *arg;
	uint64_t id; /* the pending connection (atomic) */
	const char *label;
	int fd;
};

static void arm_listen(struct lx *c)
{
	if (!ON() || !c->cb || __atomic_load_n(&c->id, __ATOMIC_RELAXED))
		return;
	struct shim_lb b;
	const char *kept = weft__shim_cached_label(
		&b, "connections on fd ", c->fd, NULL, 0, (const void *)c->cb);
	uint64_t id = weft__shim_new_id();
	weft__shim_create_labelled(id, "connection", kept, &b);
	c->label = kept;
	uint64_t old = __atomic_exchange_n(&c->id, id, __ATOMIC_RELAXED);
	if (old)
		weft_cancel(old);
}

static void disarm_listen(struct lx *c)
{
	uint64_t id = __atomic_exchange_n(&c->id, 0, __ATOMIC_RELAXED);
	if (id && ON())
		weft_cancel(id);
}

static void tramp_accept(struct evconnlistener *lev, evutil_socket_t fd,
			 struct sockaddr *sa, int len, void *arg)
{
	struct lx *c = arg;
	evconnlistener_cb cb = c->cb;
	void *uarg = c->arg;
	uint64_t id = __atomic_exchange_n(&c->id, 0, __ATOMIC_RELAXED);
	if (!id || !ON()) {
		USER_CALL(cb(lev, fd, sa, len, uarg));
		return;
	}
	uint64_t next = weft__shim_new_id(), none = 0;
	struct shim_ent e = {.id = id, .label = c->label};
	if (!__atomic_compare_exchange_n(&c->id, &none, next, 0,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		DELIVER_RUN(id, NULL, active(), cb(lev, fd, sa, len, uarg));
		return;
	}
	struct shim_lb b;
	const char *kept = e.label ? e.label
				   : weft__shim_cached_label(
					     &b, "connections on fd ", c->fd,
					     NULL, 0, (const void *)cb);
	FIRE_RUN(e, NULL, next, "connection", kept, b, active(),
		 cb(lev, fd, sa, len, uarg));
}

static struct evconnlistener *listening(struct evconnlistener *lev,
					struct lx *c)
{
	if (!lev) {
		free(c);
		return NULL;
	}
	if (!weft__shim_put_data(lev, R_LISTENER, c))
		return lev; /* untraced: c stays its argument */
	c->fd = EV(evconnlistener_get_fd)(lev);
	arm_listen(c);
	return lev;
}

struct evconnlistener *evconnlistener_new(struct event_base *base,
					  evconnlistener_cb cb, void *arg,
					  unsigned flags, int backlog,
					  evutil_socket_t fd)
{
	REAL(evconnlistener_new);
	struct lx *c = INTERNAL() || !ON() ? NULL : calloc(1, sizeof *c);
	if (!c)
		return real_evconnlistener_new(base, cb, arg, flags, backlog,
					       fd);
	SCOPE_INSIDE();
	c->cb = cb;
	c->arg = arg;
	return listening(real_evconnlistener_new(base, cb ? tramp_accept : NULL,
						 c, flags, backlog, fd),
			 c);
}

struct evconnlistener *evconnlistener_new_bind(struct event_base *base,
					       evconnlistener_cb cb, void *arg,
					       unsigned flags, int backlog,
					       const struct sockaddr *sa,
					       int len)
{
	REAL(evconnlistener_new_bind);
	struct lx *c = INTERNAL() || !ON() ? NULL : calloc(1, sizeof *c);
	if (!c)
		return real_evconnlistener_new_bind(base, cb, arg, flags,
						    backlog, sa, len);
	SCOPE_INSIDE();
	c->cb = cb;
	c->arg = arg;
	return listening(
		real_evconnlistener_new_bind(base, cb ? tramp_accept : NULL, c,
					     flags, backlog, sa, len),
		c);
}

static struct lx *lx_of(struct evconnlistener *lev, int remove)
{
	struct shim_ent e;
	return lev && weft__shim_get(lev, R_LISTENER, &e, remove) ? e.data
								  : NULL;
}

void evconnlistener_set_cb(struct evconnlistener *lev, evconnlistener_cb cb,
			   void *arg)
{
	REAL(evconnlistener_set_cb);
	struct lx *c = INTERNAL() ? NULL : lx_of(lev, 0);
	if (!c) {
		real_evconnlistener_set_cb(lev, cb, arg);
		return;
	}
	int was = c->cb != NULL;
	c->cb = cb;
	c->arg = arg;
	real_evconnlistener_set_cb(lev, cb ? tramp_accept : NULL, c);
	if (!cb)
		disarm_listen(c);
	else if (!was)
		arm_listen(c);
}

int evconnlistener_disable(struct evconnlistener *lev)
{
	REAL(evconnlistener_disable);
	struct lx *c = INTERNAL() ? NULL : lx_of(lev, 0);
	if (c)
		disarm_listen(c);
	return real_evconnlistener_disable(lev);
}

int evconnlistener_enable(struct evconnlistener *lev)
{
	REAL(evconnlistener_enable);
	struct lx *c = INTERNAL() ? NULL : lx_of(lev, 0);
	int r = real_evconnlistener_enable(lev);
	if (c && r == 0)
		arm_listen(c);
	return r;
}

void evconnlistener_free(struct evconnlistener *lev)
{
	REAL(evconnlistener_free);
	struct lx *c = INTERNAL() ? NULL : lx_of(lev, 1);
	if (c)
		disarm_listen(c);
	real_evconnlistener_free(lev);
	free(c);
}
