/* SPDX-License-Identifier: MIT */
/*
 * ev-echo.c - a libevent TCP echo server and client over loopback with
 * bufferevents, in a program with no tracing code: `weft record --
 * build/examples/ev-echo`.
 *
 * The server listens (evconnlistener) and echoes what it reads; the client
 * connects, sends "hello world" three times, one after the other's echo,
 * and closes; the server then reads EOF.  A second client connects to a
 * port nobody listens on and is refused.
 */
#include <arpa/inet.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct event_base *base;
static struct evconnlistener *lev;
static int echoes;

void on_server_read(struct bufferevent *bev, void *arg);
void on_server_event(struct bufferevent *bev, short what, void *arg);
void on_accept(struct evconnlistener *l, evutil_socket_t fd,
	       struct sockaddr *sa, int len, void *arg);
void on_client_read(struct bufferevent *bev, void *arg);
void on_client_written(struct bufferevent *bev, void *arg);
void on_client_event(struct bufferevent *bev, short what, void *arg);
void on_refused(struct bufferevent *bev, short what, void *arg);

void on_server_read(struct bufferevent *bev, void *arg)
{
	(void)arg;
	evbuffer_add_buffer(bufferevent_get_output(bev),
			    bufferevent_get_input(bev));
}

void on_server_event(struct bufferevent *bev, short what, void *arg)
{
	(void)arg;
	if (what & BEV_EVENT_EOF)
		puts("server: the client closed");
	bufferevent_free(bev);
	evconnlistener_free(lev);
}

void on_accept(struct evconnlistener *l, evutil_socket_t fd,
	       struct sockaddr *sa, int len, void *arg)
{
	(void)l;
	(void)sa;
	(void)len;
	(void)arg;
	struct bufferevent *bev =
		bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	bufferevent_setcb(bev, on_server_read, NULL, on_server_event, NULL);
	bufferevent_enable(bev, EV_READ | EV_WRITE);
}

void on_client_read(struct bufferevent *bev, void *arg)
{
	char buf[64];
	(void)arg;
	size_t n = bufferevent_read(bev, buf, sizeof buf);
	printf("client: echo %zu bytes: %.*s\n", n, (int)n, buf);
	if (++echoes < 3)
		bufferevent_write(bev, "hello world", 11);
	else
		bufferevent_free(bev);
}

void on_client_written(struct bufferevent *bev, void *arg)
{
	(void)bev;
	(void)arg;
}

void on_client_event(struct bufferevent *bev, short what, void *arg)
{
	(void)arg;
	if (what & BEV_EVENT_CONNECTED) {
		puts("client: connected");
		bufferevent_write(bev, "hello world", 11);
	}
}

void on_refused(struct bufferevent *bev, short what, void *arg)
{
	(void)arg;
	printf("refused client: %s\n",
	       what & BEV_EVENT_ERROR ? "connection refused" : "?");
	bufferevent_free(bev);
}

int main(void)
{
	base = event_base_new();
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lev = evconnlistener_new_bind(base, on_accept, NULL,
				      LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_FREE,
				      8, (struct sockaddr *)&a, sizeof a);
	if (!lev)
		return 1;
	struct sockaddr_in at;
	socklen_t len = sizeof at;
	getsockname(evconnlistener_get_fd(lev), (struct sockaddr *)&at, &len);

	struct bufferevent *c =
		bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	bufferevent_setcb(c, on_client_read, on_client_written, on_client_event,
			  NULL);
	bufferevent_enable(c, EV_READ | EV_WRITE);
	bufferevent_socket_connect(c, (struct sockaddr *)&at, sizeof at);

	/* a port nobody listens on: bound, then closed */
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in dead = a;
	len = sizeof dead;
	bind(s, (struct sockaddr *)&dead, sizeof dead);
	getsockname(s, (struct sockaddr *)&dead, &len);
	close(s);
	struct bufferevent *r =
		bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	bufferevent_setcb(r, NULL, NULL, on_refused, NULL);
	bufferevent_socket_connect(r, (struct sockaddr *)&dead, sizeof dead);

	event_base_dispatch(base);
	event_base_free(base);
	return 0;
}
