/* SPDX-License-Identifier: MIT */
/*
 * hop.c - three programs of a chain over TCP on loopback, each recorded
 * alone (`weft record` of each: three traces, made three hosts by the
 * test), for `weft fetch` across hosts (tests/fleet/test-fleet.sh):
 *
 *   hop serve PORTFILE [PORT [N]]
 *                               answers each message (its bytes back),
 *                               ends when its client closes (its N
 *                               clients, one after the other); on PORT
 *                               (else one the system chooses)
 *   hop relay PORTFILE UPPORT   passes each message to the server at
 *                               UPPORT and its answer back, ends when
 *                               its client closes
 *   hop sink PORTFILE           answers the first message, reads the
 *                               others and never answers them (a hang),
 *                               ends when its client closes
 *   hop ask PORT ROUNDS [FROM [WAIT]]
 *                               sends ROUNDS messages one after the
 *                               other, each once the answer of the one
 *                               before came back; from port FROM (then
 *                               it closes with a reset, leaving no
 *                               TIME_WAIT: the same port pair can be
 *                               used again at once; 0: any port); with
 *                               WAIT, gives up (closes) when an answer
 *                               does not come within WAIT ms
 *
 * A listener writes its port into PORTFILE (renamed into place) once it
 * listens.  No tracing code: libuv's calls are what weft records.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

static uv_loop_t *loop;
static uv_tcp_t server, down, up; /* down: the client; up: the server */
static char buf[2][256];
static int rounds, sent, from, clients = 1, sink, wait_ms;
static uv_timer_t giveup;

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
	(void)suggested;
	*b = uv_buf_init(buf[h == (uv_handle_t *)&up], sizeof buf[0]);
}

static void on_written(uv_write_t *req, int status)
{
	if (status)
		fprintf(stderr, "hop: write: %s\n", uv_strerror(status));
	free(req);
}

static void send_to(uv_stream_t *s, const char *p, size_t n)
{
	uv_write_t *w = malloc(sizeof *w + n);
	if (!w)
		exit(1);
	memcpy(w + 1, p, n);
	uv_buf_t b = uv_buf_init((char *)(w + 1), (unsigned)n);
	uv_write(w, s, &b, 1, on_written);
}

/* serve: the bytes back; relay: up, then the answer down. */
static void on_down_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	if (n < 0) {
		uv_close((uv_handle_t *)s, NULL);
		if (--clients > 0)
			return; /* the next client */
		if (up.data)
			uv_close((uv_handle_t *)&up, NULL);
		uv_close((uv_handle_t *)&server, NULL);
		return;
	}
	if (!sink || sink++ == 1)
		send_to(up.data ? (uv_stream_t *)&up : s, b->base, (size_t)n);
}

static void on_up_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	(void)s;
	if (n < 0)
		return;
	send_to((uv_stream_t *)&down, b->base, (size_t)n);
}

static void on_connection(uv_stream_t *l, int status)
{
	if (status)
		return;
	uv_tcp_init(loop, &down);
	if (uv_accept(l, (uv_stream_t *)&down))
		return;
	uv_read_start((uv_stream_t *)&down, on_alloc, on_down_read);
}

/* ask with WAIT: no answer came in time */
static void on_giveup(uv_timer_t *t)
{
	uv_close((uv_handle_t *)t, NULL);
	uv_close((uv_handle_t *)&up, NULL);
}

/* ask: the next message once the answer came */
static void next(void)
{
	char m[64];
	int n = snprintf(m, sizeof m, "request %d", ++sent);
	send_to((uv_stream_t *)&up, m, (size_t)n);
	if (wait_ms)
		uv_timer_start(&giveup, on_giveup, (uint64_t)wait_ms, 0);
}

static void on_answer(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	(void)b;
	if (n < 0 || sent >= rounds) {
		if (wait_ms)
			uv_close((uv_handle_t *)&giveup, NULL);
		if (from)
			uv_tcp_close_reset((uv_tcp_t *)s, NULL);
		else
			uv_close((uv_handle_t *)s, NULL);
		return;
	}
	next();
}

static void on_up(uv_connect_t *c, int status)
{
	if (status) {
		fprintf(stderr, "hop: connect: %s\n", uv_strerror(status));
		exit(1);
	}
	up.data = &up;
	uv_read_start(c->handle, on_alloc, rounds ? on_answer : on_up_read);
	if (rounds)
		next();
}

static void connect_up(int port)
{
	static uv_connect_t c;
	struct sockaddr_in a;
	uv_ip4_addr("127.0.0.1", port, &a);
	uv_tcp_init(loop, &up);
	if (from) {
		struct sockaddr_in me;
		uv_ip4_addr("127.0.0.1", from, &me);
		if (uv_tcp_bind(&up, (const struct sockaddr *)&me, 0)) {
			fprintf(stderr, "hop: cannot bind port %d\n", from);
			exit(1);
		}
	}
	uv_tcp_connect(&c, &up, (const struct sockaddr *)&a, on_up);
}

static void listen_on(const char *portfile, int port)
{
	struct sockaddr_in a;
	uv_ip4_addr("127.0.0.1", port, &a);
	uv_tcp_init(loop, &server);
	struct sockaddr_in name;
	int len = sizeof name;
	if (uv_tcp_bind(&server, (const struct sockaddr *)&a, 0) ||
	    uv_listen((uv_stream_t *)&server, 4, on_connection) ||
	    uv_tcp_getsockname(&server, (struct sockaddr *)&name, &len)) {
		fprintf(stderr, "hop: cannot listen\n");
		exit(1);
	}
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.tmp", portfile);
	FILE *f = fopen(tmp, "w");
	if (!f || fprintf(f, "%d\n", ntohs(name.sin_port)) < 0 || fclose(f) ||
	    rename(tmp, portfile)) {
		fprintf(stderr, "hop: cannot write %s\n", portfile);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	loop = uv_default_loop();
	if (argc >= 3 && argc <= 5 && !strcmp(argv[1], "serve")) {
		if (argc == 5)
			clients = atoi(argv[4]);
		listen_on(argv[2], argc >= 4 ? atoi(argv[3]) : 0);
	} else if (argc == 3 && !strcmp(argv[1], "sink")) {
		sink = 1;
		listen_on(argv[2], 0);
	} else if (argc == 4 && !strcmp(argv[1], "relay")) {
		connect_up(atoi(argv[3]));
		listen_on(argv[2], 0);
	} else if (argc >= 4 && argc <= 6 && !strcmp(argv[1], "ask")) {
		if (argc >= 5)
			from = atoi(argv[4]);
		if (argc == 6 && (wait_ms = atoi(argv[5])) > 0)
			uv_timer_init(loop, &giveup);
		rounds = atoi(argv[3]);
		if (rounds < 1)
			rounds = 1;
		connect_up(atoi(argv[2]));
	} else {
		fprintf(stderr, "usage: hop serve PORTFILE [PORT [N]] | hop "
				"sink "
				"PORTFILE | hop relay PORTFILE UPPORT | hop "
				"ask PORT ROUNDS [FROM [WAIT]]\n");
		return 2;
	}
	uv_run(loop, UV_RUN_DEFAULT);
	uv_loop_close(loop);
	return 0;
}
