/* SPDX-License-Identifier: MIT */
/*
 * ev-http.c - libevent's evhttp and evdns, in a program with no tracing
 * code: `weft record -- build/examples/ev-http`.
 *
 * An HTTP server on loopback answers /hello with 200 and anything else
 * with 404; a client of the same loop asks for /hello and /missing.  Two
 * DNS lookups: "localhost" (from the hosts file), and a service that
 * does not exist.
 */
#include <arpa/inet.h>
#include <event2/buffer.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/http.h>
#include <stdio.h>
#include <string.h>

static struct event_base *base;
static struct evhttp *http;
static struct evhttp_connection *conn;
static struct evdns_base *dns;
static int pending = 4;
static char hello[] = "/hello", missing[] = "/missing", local[] = "localhost",
	    nothing[] = "no-such-service";

void on_hello(struct evhttp_request *req, void *arg);
void on_other(struct evhttp_request *req, void *arg);
void on_response(struct evhttp_request *req, void *arg);
void on_lookup(int err, struct evutil_addrinfo *res, void *arg);

static void one_done(void)
{
	if (--pending == 0) {
		evhttp_connection_free(conn);
		evhttp_free(http);
		evdns_base_free(dns, 0);
	}
}

void on_hello(struct evhttp_request *req, void *arg)
{
	(void)arg;
	struct evbuffer *b = evbuffer_new();
	evbuffer_add_printf(b, "hello\n");
	evhttp_send_reply(req, 200, "OK", b);
	evbuffer_free(b);
}

void on_other(struct evhttp_request *req, void *arg)
{
	(void)arg;
	evhttp_send_error(req, 404, "Not Found");
}

void on_response(struct evhttp_request *req, void *arg)
{
	printf("%s: %d\n", (const char *)arg,
	       req ? evhttp_request_get_response_code(req) : 0);
	one_done();
}

void on_lookup(int err, struct evutil_addrinfo *res, void *arg)
{
	printf("lookup %s: %s\n", (const char *)arg,
	       err   ? "failed"
	       : res ? "found"
		     : "nothing");
	if (res)
		evutil_freeaddrinfo(res);
	one_done();
}

int main(void)
{
	base = event_base_new();
	http = evhttp_new(base);
	evhttp_set_cb(http, "/hello", on_hello, NULL);
	evhttp_set_gencb(http, on_other, NULL);
	struct evhttp_bound_socket *s =
		evhttp_bind_socket_with_handle(http, "127.0.0.1", 0);
	if (!s)
		return 1;
	struct sockaddr_in a;
	socklen_t len = sizeof a;
	getsockname(evhttp_bound_socket_get_fd(s), (struct sockaddr *)&a, &len);
	conn = evhttp_connection_base_new(base, NULL, "127.0.0.1",
					  ntohs(a.sin_port));
	struct evhttp_request *r1 = evhttp_request_new(on_response, hello);
	evhttp_add_header(evhttp_request_get_output_headers(r1), "Host",
			  "localhost");
	evhttp_make_request(conn, r1, EVHTTP_REQ_GET, "/hello");
	struct evhttp_request *r2 = evhttp_request_new(on_response, missing);
	evhttp_add_header(evhttp_request_get_output_headers(r2), "Host",
			  "localhost");
	evhttp_make_request(conn, r2, EVHTTP_REQ_GET, "/missing");

	dns = evdns_base_new(base, 0);
	evdns_base_load_hosts(dns, NULL);
	struct evutil_addrinfo hints;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	evdns_getaddrinfo(dns, local, "80", &hints, on_lookup, local);
	evdns_getaddrinfo(dns, local, nothing, &hints, on_lookup, nothing);
	event_base_dispatch(base);
	event_base_free(base);
	return 0;
}
