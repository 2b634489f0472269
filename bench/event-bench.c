/* SPDX-License-Identifier: MIT */
/*
 * event-bench.c - a libevent TCP echo benchmark on loopback, with no
 * tracing code: a client keeps one 64-byte message in flight to an echo
 * server in the same loop for SECONDS (or until TRIPS round trips, when
 * given), both with bufferevents, then prints the round trips per second
 * and how many.  bench/loop-overhead.sh runs it with and
 * without `weft record` (event.overhead).
 */
#include <arpa/inet.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct event_base *base;
static struct evconnlistener *lev;
static struct bufferevent *client, *server;
static char msg[64];
static long trips, max_trips;
static size_t got;
static int done;

static void srv_read(struct bufferevent *bev, void *arg)
{
	(void)arg;
	evbuffer_add_buffer(bufferevent_get_output(bev),
			    bufferevent_get_input(bev));
}

static void on_accept(struct evconnlistener *l, evutil_socket_t fd,
		      struct sockaddr *sa, int len, void *arg)
{
	(void)l;
	(void)sa;
	(void)len;
	(void)arg;
	server = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	bufferevent_setcb(server, srv_read, NULL, NULL, NULL);
	bufferevent_enable(server, EV_READ | EV_WRITE);
}

static void cli_read(struct bufferevent *bev, void *arg)
{
	(void)arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t n = evbuffer_get_length(in);
	evbuffer_drain(in, n);
	got += n;
	while (got >= sizeof msg) {
		got -= sizeof msg;
		trips++;
		if (max_trips && trips >= max_trips && !done) {
			done = 1; /* (freed once the loop is left) */
			event_base_loopbreak(base);
		}
		if (!done)
			bufferevent_write(bev, msg, sizeof msg);
	}
}

static void cli_event(struct bufferevent *bev, short what, void *arg)
{
	(void)arg;
	if (what & BEV_EVENT_CONNECTED)
		bufferevent_write(bev, msg, sizeof msg);
	else
		exit(1);
}

static void on_stop(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	done = 2;
	bufferevent_free(client);
	bufferevent_free(server);
	evconnlistener_free(lev);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2;
	max_trips = argc > 2 ? atol(argv[2]) : 0;
	memset(msg, 'x', sizeof msg);
	base = event_base_new();
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lev = evconnlistener_new_bind(base, on_accept, NULL,
				      LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_FREE,
				      8, (struct sockaddr *)&a, sizeof a);
	socklen_t len = sizeof a;
	getsockname(evconnlistener_get_fd(lev), (struct sockaddr *)&a, &len);
	client = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	bufferevent_setcb(client, cli_read, NULL, cli_event, NULL);
	bufferevent_enable(client, EV_READ | EV_WRITE);
	bufferevent_socket_connect(client, (struct sockaddr *)&a, sizeof a);
	struct timeval t = {(long)secs, (long)((secs - (long)secs) * 1e6)};
	event_base_once(base, -1, EV_TIMEOUT, on_stop, NULL, &t);
	event_base_dispatch(base);
	printf("%.0f round trips/s, %ld round trips\n", (double)trips / secs,
	       trips);
	if (done == 1) {
		bufferevent_free(client);
		bufferevent_free(server);
		evconnlistener_free(lev);
	}
	event_base_free(base);
	return 0;
}
