/* SPDX-License-Identifier: MIT */
/*
 * dns-http.c - libevent's evdns and evhttp.
 *
 * A DNS lookup (evdns_getaddrinfo, evdns_base_resolve_ipv4/ipv6) is a
 * request created by whatever is current, resolved or failed (with
 * libevent's message for the error) when its callback comes, which runs
 * as it.  An HTTP request the program serves (evhttp_set_cb,
 * evhttp_set_gencb) is a thread created by the loop when its callback
 * is called, running during it, resolved when the program replies
 * (failed with the status line for 4xx and 5xx); one the program makes
 * (evhttp_request_new + evhttp_make_request) is a request resolved when
 * its callback gets the response (failed when there is none, or with the
 * status line for 4xx and 5xx).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "event-shim.h"

/* A request's callback, its argument and its thread. */
struct rx {
	void (*cb)(void);
	void *arg;
	uint64_t id;
};

static struct rx *rx_new(void (*cb)(void), void *arg)
{
	struct rx *c = calloc(1, sizeof *c);
	if (c) {
		c->cb = cb;
		c->arg = arg;
	}
	return c;
}

static const char *active(void)
{
	return weft__shim_ev_active_phase(NULL);
}

/* The request of c completes: it resolves or fails, its callback runs as
 * it, and c goes. */
#define COMPLETE(c, fail, call)                                                \
	do {                                                                   \
		uint64_t id_ = (c)->id;                                        \
		free(c);                                                       \
		if (id_ && ON())                                               \
			DELIVER_RUN(id_, (fail), active(), call);              \
		else                                                           \
			USER_CALL(call);                                       \
	} while (0)

/* ------------------------------------------------------------- evdns */

static void tramp_gai(int err, struct evutil_addrinfo *res, void *arg)
{
	struct rx *c = arg;
	evdns_getaddrinfo_cb cb = (evdns_getaddrinfo_cb)c->cb;
	void *uarg = c->arg;
	const char *fail = err ? EV(evutil_gai_strerror)(err) : NULL;
	COMPLETE(c, fail, cb(err, res, uarg));
}

struct evdns_getaddrinfo_request *
evdns_getaddrinfo(struct evdns_base *dns, const char *node, const char *service,
		  const struct evutil_addrinfo *hints, evdns_getaddrinfo_cb cb,
		  void *arg)
{
	REAL(evdns_getaddrinfo);
	struct rx *c = INTERNAL() || !cb || !ON()
			       ? NULL
			       : rx_new((void (*)(void))cb, arg);
	if (!c)
		return real_evdns_getaddrinfo(dns, node, service, hints, cb,
					      arg);
	SCOPE_INSIDE();
	c->id = weft__shim_new_id();
	weft_create(c->id, "evdns getaddrinfo");
	weft__shim_label(c->id, (const void *)cb, "getaddrinfo %s %s",
			 node ? node : "", service ? service : "");
	/* the callback may come before this returns (a name in the hosts
	 * file, a number): c is not read after */
	return real_evdns_getaddrinfo(dns, node, service, hints, tramp_gai, c);
}

static void tramp_resolve(int result, char type, int count, int ttl,
			  void *addresses, void *arg)
{
	struct rx *c = arg;
	evdns_callback_type cb = (evdns_callback_type)c->cb;
	void *uarg = c->arg;
	const char *fail =
		result != DNS_ERR_NONE ? EV(evdns_err_to_string)(result) : NULL;
	COMPLETE(c, fail, cb(result, type, count, ttl, addresses, uarg));
}

#define RESOLVE(name, what)                                                    \
	struct evdns_request *name(struct evdns_base *dns, const char *host,   \
				   int flags, evdns_callback_type cb,          \
				   void *arg)                                  \
	{                                                                      \
		REAL(name);                                                    \
		struct rx *c = INTERNAL() || !cb || !ON()                      \
				       ? NULL                                  \
				       : rx_new((void (*)(void))cb, arg);      \
		if (!c)                                                        \
			return real_##name(dns, host, flags, cb, arg);         \
		SCOPE_INSIDE();                                                \
		c->id = weft__shim_new_id();                                   \
		weft_create(c->id, "evdns resolve");                           \
		weft__shim_label(c->id, (const void *)cb, what " %s",          \
				 host ? host : "");                            \
		struct evdns_request *r =                                      \
			real_##name(dns, host, flags, tramp_resolve, c);       \
		return r;                                                      \
	}
RESOLVE(evdns_base_resolve_ipv4, "resolve IPv4")
RESOLVE(evdns_base_resolve_ipv6, "resolve IPv6")

/* ---------------------------------------------------- evhttp: served */

static const char *method(struct evhttp_request *req)
{
	switch (EV(evhttp_request_get_command)(req)) {
	case EVHTTP_REQ_GET:
		return "GET";
	case EVHTTP_REQ_POST:
		return "POST";
	case EVHTTP_REQ_HEAD:
		return "HEAD";
	case EVHTTP_REQ_PUT:
		return "PUT";
	case EVHTTP_REQ_DELETE:
		return "DELETE";
	case EVHTTP_REQ_OPTIONS:
		return "OPTIONS";
	case EVHTTP_REQ_TRACE:
		return "TRACE";
	case EVHTTP_REQ_CONNECT:
		return "CONNECT";
	case EVHTTP_REQ_PATCH:
		return "PATCH";
	}
	return "?";
}

/* A request arrives: a thread, created by the loop, running its
 * callback, pending until the reply. */
static void tramp_serve(struct evhttp_request *req, void *arg)
{
	struct rx *c = arg;
	void (*cb)(struct evhttp_request *, void *) =
		(void (*)(struct evhttp_request *, void *))c->cb;
	if (!ON()) {
		USER_CALL(cb(req, c->arg));
		return;
	}
	uint64_t id = weft__shim_new_id();
	weft_create(id, "evhttp request");
	const char *uri = EV(evhttp_request_get_uri)(req);
	weft__shim_label(id, (const void *)cb, "http %s %s", method(req),
			 uri ? uri : "");
	weft__shim_put(req, R_HTTP, id, NULL, NULL, NULL);
	int burst = weft__shim_phase_begin(active());
	if (burst)
		weft_burst_end();
	RUN_AS(id, cb(req, c->arg));
}

/* Registrations keep their record for the server's life. */
int evhttp_set_cb(struct evhttp *http, const char *path,
		  void (*cb)(struct evhttp_request *, void *), void *arg)
{
	REAL(evhttp_set_cb);
	struct rx *c = INTERNAL() || !cb || !ON()
			       ? NULL
			       : rx_new((void (*)(void))cb, arg);
	if (!c)
		return real_evhttp_set_cb(http, path, cb, arg);
	int r = real_evhttp_set_cb(http, path, tramp_serve, c);
	if (r != 0)
		free(c);
	return r;
}

void evhttp_set_gencb(struct evhttp *http,
		      void (*cb)(struct evhttp_request *, void *), void *arg)
{
	REAL(evhttp_set_gencb);
	struct rx *c = INTERNAL() || !cb || !ON()
			       ? NULL
			       : rx_new((void (*)(void))cb, arg);
	real_evhttp_set_gencb(http, c ? tramp_serve : cb, c ? (void *)c : arg);
}

/* The program replies: the request ends, failed for an error status. */
static void replied(struct evhttp_request *req, int code, const char *reason)
{
	struct shim_ent e;
	if (!ON() || !weft__shim_get(req, R_HTTP, &e, 1))
		return;
	if (code >= 400) {
		char text[128];
		snprintf(text, sizeof text, "%d %s", code,
			 reason ? reason : "");
		weft_fail(e.id, text);
	} else
		weft_resolve(e.id);
}

void evhttp_send_reply(struct evhttp_request *req, int code, const char *reason,
		       struct evbuffer *body)
{
	REAL(evhttp_send_reply);
	if (!INTERNAL())
		replied(req, code, reason);
	real_evhttp_send_reply(req, code, reason, body);
}

void evhttp_send_error(struct evhttp_request *req, int code, const char *reason)
{
	REAL(evhttp_send_error);
	if (!INTERNAL())
		replied(req, code, reason ? reason : "error");
	real_evhttp_send_error(req, code, reason);
}

/* A chunked reply ends with its last chunk. */
void evhttp_send_reply_end(struct evhttp_request *req)
{
	REAL(evhttp_send_reply_end);
	if (!INTERNAL())
		replied(req, 200, NULL);
	real_evhttp_send_reply_end(req);
}

/* ------------------------------------------------------ evhttp: made */

/* A request the program made is kept both ways: request -> record, and
 * record -> request (its callback may get none). */
static struct rx *made_take(struct evhttp_request *req, struct rx *c)
{
	struct shim_ent e;
	if (!c && req && weft__shim_get(req, R_HTTP_OUT, &e, 1))
		c = e.data;
	if (c && weft__shim_get(c, R_HTTP_OUT, &e, 1) && e.data)
		weft__shim_get(e.data, R_HTTP_OUT, &e, 1);
	return c;
}

static void tramp_made(struct evhttp_request *req, void *arg)
{
	struct rx *c = made_take(NULL, arg);
	void (*cb)(struct evhttp_request *, void *) =
		(void (*)(struct evhttp_request *, void *))c->cb;
	void *uarg = c->arg;
	char text[128];
	const char *fail = NULL;
	int code = req ? EV(evhttp_request_get_response_code)(req) : 0;
	if (!code) {
		fail = "no response";
	} else if (code >= 400) {
		const char *line =
			EV(evhttp_request_get_response_code_line)(req);
		snprintf(text, sizeof text, "%d %s", code, line ? line : "");
		fail = text;
	}
	COMPLETE(c, fail, if (cb) cb(req, uarg));
}

struct evhttp_request *
evhttp_request_new(void (*cb)(struct evhttp_request *, void *), void *arg)
{
	REAL(evhttp_request_new);
	struct rx *c = INTERNAL() || !ON() ? NULL
					   : rx_new((void (*)(void))cb, arg);
	if (!c)
		return real_evhttp_request_new(cb, arg);
	struct evhttp_request *req = real_evhttp_request_new(tramp_made, c);
	if (!req) {
		free(c);
		return NULL;
	}
	if (!weft__shim_put_data(req, R_HTTP_OUT, c) ||
	    !weft__shim_put_data(c, R_HTTP_OUT, req)) {
		/* untraced: c stays its argument, with no thread */
		made_take(req, NULL);
	}
	return req;
}

int evhttp_make_request(struct evhttp_connection *conn,
			struct evhttp_request *req, enum evhttp_cmd_type type,
			const char *uri)
{
	REAL(evhttp_make_request);
	struct shim_ent e;
	struct rx *c = !INTERNAL() && ON() &&
				       weft__shim_get(req, R_HTTP_OUT, &e, 0)
			       ? e.data
			       : NULL;
	if (!c)
		return real_evhttp_make_request(conn, req, type, uri);
	SCOPE_INSIDE();
	uint64_t id = weft__shim_new_id();
	weft_create(id, "evhttp client request");
	weft__shim_label(id, (const void *)c->cb, "http %s %s",
			 type == EVHTTP_REQ_GET	   ? "GET"
			 : type == EVHTTP_REQ_POST ? "POST"
			 : type == EVHTTP_REQ_HEAD ? "HEAD"
						   : "request",
			 uri ? uri : "");
	c->id = id;
	int r = real_evhttp_make_request(conn, req, type, uri);
	if (r != 0 && made_take(NULL, c)) {
		/* libevent freed the request: its callback will not come */
		weft_fail(id, "not sent");
		free(c);
	}
	return r;
}

/* Cancelled: its callback will not come. */
void evhttp_cancel_request(struct evhttp_request *req)
{
	REAL(evhttp_cancel_request);
	struct rx *c = INTERNAL() ? NULL : made_take(req, NULL);
	if (c && c->id && ON())
		weft_cancel(c->id);
	real_evhttp_cancel_request(req);
	free(c);
}

/* Freed by the program before it was made. */
void evhttp_request_free(struct evhttp_request *req)
{
	REAL(evhttp_request_free);
	struct rx *c = INTERNAL() ? NULL : made_take(req, NULL);
	real_evhttp_request_free(req);
	free(c);
}
