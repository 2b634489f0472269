/* SPDX-License-Identifier: MIT */
/*
 * uv-echo-split.c - the echo of uv-echo.c in two processes: the server
 * (this program) listens on loopback and starts its client with
 * uv_spawn (this program again, `client PORT`), which sends two messages
 * one after the other, each once the echo of the one before came back;
 * the server echoes them and ends when its client exits.  No tracing
 * code: `weft record -- build/examples/uv-echo-split` records both
 * processes in one run, and shows the messages as arrows between them.
 *
 * `uv-echo-split hang`: the server answers the second message only once
 * a "backend query" (a timer of an hour) is done; after 300 ms it gives
 * up, stops its client and exits 1, leaving the query pending.  `weft
 * why --all` follows the client's wait for the reply into the server.
 *
 * `uv-echo-split unix|pipe|udp`: the same over a Unix socket (a uv_pipe_t
 * bound to a path), two pipes (the client's descriptors 3 and 4), or UDP
 * datagrams on loopback, instead of TCP (over the Unix socket, the server
 * accepts the connection only after the client has written); `MODE
 * ROUNDS`: ROUNDS messages one after the other instead of two (a load).
 * `uv-echo-split udp-mmsg`: UDP, the server answering each datagram with
 * a sendmmsg() of its own on its uv_udp_t's socket (as knot-resolver
 * does): I/O libuv does not see.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

static uv_loop_t *loop;
static char buf[2][256];

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
	(void)h;
	(void)suggested;
	*b = uv_buf_init(buf[h->data != NULL], sizeof buf[0]);
}

static void on_close(uv_handle_t *h)
{
	(void)h;
}

/* ------------------------------------------------------------ server */

enum mode { TCP, UNIX, PIPE, UDP, MMSG };
static enum mode mode;
static const char *const modes[] = {"tcp", "unix", "pipe", "udp", "udp-mmsg"};
#define DGRAM (mode == UDP || mode == MMSG)

static uv_tcp_t server, conn;
static uv_pipe_t userver, uconn, pin, pout; /* unix; pipe: in, out */
static uv_udp_t udp;
static uv_udp_send_t udp_send[2];
static char sock_path[256];
static uv_process_t child;
static uv_write_t echo_write[2];
static uv_timer_t query, watchdog;
static int echoes, hang;
static int rounds = 2; /* messages the client sends */
static char held[256];
static size_t held_len;

static void on_query_done(uv_timer_t *t);

static void on_watchdog(uv_timer_t *t)
{
	(void)t;
	fprintf(stderr, "server: the backend query did not answer; giving "
			"up\n");
	uv_process_kill(&child, SIGTERM);
}

static void on_echo_written(uv_write_t *req, int status)
{
	(void)req;
	if (status)
		fprintf(stderr, "echo write: %s\n", uv_strerror(status));
}

/* Where a stream's answer goes: itself, or the pipe the other way. */
static uv_stream_t *out_of(uv_stream_t *s)
{
	return mode == PIPE ? (s == (uv_stream_t *)&pin ? (uv_stream_t *)&pout
							: (uv_stream_t *)&pin)
			    : s;
}

static void on_server_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	if (n < 0) {
		uv_close((uv_handle_t *)s, on_close);
		if (mode == PIPE)
			uv_close((uv_handle_t *)&pout, on_close);
		return;
	}
	if (hang && echoes == 1) {
		/* the answer waits for a backend that never answers */
		memcpy(held, b->base, (size_t)n);
		held_len = (size_t)n;
		uv_timer_start(&query, on_query_done, 3600 * 1000, 0);
		uv_timer_start(&watchdog, on_watchdog, 300, 0);
		return;
	}
	uv_buf_t e = uv_buf_init(b->base, (unsigned)n);
	uv_write(&echo_write[echoes++ % 2], out_of(s), &e, 1, on_echo_written);
}

static void on_udp_sent(uv_udp_send_t *req, int status)
{
	(void)req;
	if (status)
		fprintf(stderr, "udp send: %s\n", uv_strerror(status));
}

static void on_server_recv(uv_udp_t *u, ssize_t n, const uv_buf_t *b,
			   const struct sockaddr *from, unsigned flags)
{
	(void)flags;
	if (n <= 0 || !from)
		return;
	if (mode == MMSG) {
		uv_os_fd_t fd;
		struct iovec io = {b->base, (size_t)n};
		struct mmsghdr m;
		memset(&m, 0, sizeof m);
		m.msg_hdr.msg_name = (void *)from;
		m.msg_hdr.msg_namelen = sizeof(struct sockaddr_in);
		m.msg_hdr.msg_iov = &io;
		m.msg_hdr.msg_iovlen = 1;
		if (uv_fileno((uv_handle_t *)u, &fd) ||
		    sendmmsg(fd, &m, 1, 0) != 1)
			perror("sendmmsg");
		echoes++;
		return;
	}
	uv_buf_t e = uv_buf_init(b->base, (unsigned)n);
	uv_udp_send(&udp_send[echoes++ % 2], u, &e, 1, from, on_udp_sent);
}

static void on_query_done(uv_timer_t *t)
{
	(void)t;
	uv_buf_t e = uv_buf_init(held, (unsigned)held_len);
	uv_write(&echo_write[echoes++ % 2], (uv_stream_t *)&conn, &e, 1,
		 on_echo_written);
}

static void on_connection(uv_stream_t *s, int status)
{
	if (status < 0)
		return;
	uv_stream_t *c = (uv_stream_t *)&conn;
	if (mode == UNIX) {
		/* a busy server: the client has written before the
		 * connection is accepted */
		usleep(20 * 1000);
		uv_pipe_init(loop, &uconn, 0);
		c = (uv_stream_t *)&uconn;
	} else
		uv_tcp_init(loop, &conn);
	c->data = c;
	if (uv_accept(s, c) == 0)
		uv_read_start(c, on_alloc, on_server_read);
}

static void on_child_exit(uv_process_t *p, int64_t status, int sig)
{
	printf("client exited with status %lld%s\n", (long long)status,
	       sig ? " (signal)" : "");
	if (hang) {
		/* gives up: the query is left pending */
		printf("server echoed %d messages\n", echoes);
		fflush(stdout);
		exit(1);
	}
	uv_close((uv_handle_t *)p, on_close);
	if (mode == TCP)
		uv_close((uv_handle_t *)&server, on_close);
	else if (mode == UNIX) {
		uv_close((uv_handle_t *)&userver, on_close);
		unlink(sock_path);
	} else if (DGRAM)
		uv_close((uv_handle_t *)&udp, on_close);
}

/* Where the client finds the server: a port, a path, or its fds. */
static int listen_on(char *where, size_t cap, uv_stdio_container_t *io)
{
	if (mode == UNIX) {
		snprintf(sock_path, sizeof sock_path, "%s/weft-echo-%d.sock",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
			 (int)getpid());
		unlink(sock_path);
		uv_pipe_init(loop, &userver, 0);
		if (uv_pipe_bind(&userver, sock_path) ||
		    uv_listen((uv_stream_t *)&userver, 16, on_connection))
			return -1;
		snprintf(where, cap, "%s", sock_path);
		return 0;
	}
	if (mode == PIPE) {
		/* the client writes into c2s and reads s2c */
		uv_file c2s[2], s2c[2];
		if (uv_pipe(c2s, 0, 0) || uv_pipe(s2c, 0, 0))
			return -1;
		uv_pipe_init(loop, &pin, 0);
		uv_pipe_init(loop, &pout, 0);
		pin.data = &pin;
		uv_pipe_open(&pin, c2s[0]);
		uv_pipe_open(&pout, s2c[1]);
		io[3] = (uv_stdio_container_t){.flags = UV_INHERIT_FD,
					       .data.fd = s2c[0]};
		io[4] = (uv_stdio_container_t){.flags = UV_INHERIT_FD,
					       .data.fd = c2s[1]};
		snprintf(where, cap, "3,4");
		return uv_read_start((uv_stream_t *)&pin, on_alloc,
				     on_server_read);
	}
	struct sockaddr_in addr;
	uv_ip4_addr("127.0.0.1", 0, &addr);
	struct sockaddr_in name;
	int len = sizeof name;
	if (DGRAM) {
		uv_udp_init(loop, &udp);
		udp.data = &udp;
		if (uv_udp_bind(&udp, (const struct sockaddr *)&addr, 0) ||
		    uv_udp_recv_start(&udp, on_alloc, on_server_recv))
			return -1;
		uv_udp_getsockname(&udp, (struct sockaddr *)&name, &len);
	} else {
		uv_tcp_init(loop, &server);
		uv_tcp_bind(&server, (const struct sockaddr *)&addr, 0);
		if (uv_listen((uv_stream_t *)&server, 16, on_connection))
			return -1;
		uv_tcp_getsockname(&server, (struct sockaddr *)&name, &len);
	}
	snprintf(where, cap, "%d", ntohs(name.sin_port));
	return 0;
}

static int serve(const char *self)
{
	uv_timer_init(loop, &query);
	uv_timer_init(loop, &watchdog);
	char where[300];
	uv_stdio_container_t io[5] = {
		{.flags = UV_IGNORE},
		{.flags = UV_INHERIT_FD, .data.fd = 1},
		{.flags = UV_INHERIT_FD, .data.fd = 2},
	};
	if (listen_on(where, sizeof where, io)) {
		fprintf(stderr, "listen failed\n");
		return 1;
	}
	static char client_arg[] = "client";
	char n[16];
	snprintf(n, sizeof n, "%d", rounds);
	char *args[] = {(char *)self, client_arg, (char *)modes[mode],
			where,	      n,	  NULL};
	uv_process_options_t o = {
		.exit_cb = on_child_exit,
		.file = self,
		.args = args,
		.stdio_count = mode == PIPE ? 5 : 3,
		.stdio = io,
	};
	int r = uv_spawn(loop, &child, &o);
	if (r) {
		fprintf(stderr, "spawn: %s\n", uv_strerror(r));
		return 1;
	}
	if (mode == PIPE) { /* the client's ends are the client's */
		close(io[3].data.fd);
		close(io[4].data.fd);
	}
	uv_run(loop, UV_RUN_DEFAULT);
	uv_loop_close(loop);
	printf("server echoed %d messages\n", echoes);
	return 0;
}

/* ------------------------------------------------------------ client */

static uv_tcp_t client;
static uv_pipe_t cpipe, cin, cout; /* unix; pipe: from, to the server */
static uv_udp_t cudp;
static struct sockaddr_in server_addr;
static uv_connect_t connect_req;
static uv_write_t client_write[2];
static uv_shutdown_t shutdown_req;
static char msg0[] = "hello, weft", msg1[] = "and goodbye";
static char *msgs[] = {msg0, msg1};
static int sent;

static void on_shutdown(uv_shutdown_t *req, int status)
{
	(void)status;
	uv_close((uv_handle_t *)req->handle, on_close);
}

static void on_written(uv_write_t *req, int status)
{
	(void)req;
	if (status)
		fprintf(stderr, "client write: %s\n", uv_strerror(status));
}

static void send_next(uv_stream_t *s)
{
	char *msg = msgs[sent % 2];
	uv_buf_t b = uv_buf_init(msg, (unsigned)strlen(msg));
	if (DGRAM)
		uv_udp_send(&udp_send[sent % 2], &cudp, &b, 1,
			    (const struct sockaddr *)&server_addr, on_udp_sent);
	else
		uv_write(&client_write[sent % 2],
			 mode == PIPE ? (uv_stream_t *)&cout : s, &b, 1,
			 on_written);
	sent++;
}

/* An echo came back: the next message, if any is left (1). */
static int got_back(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	if (rounds == 2)
		printf("client got back: %.*s\n", (int)n, b->base);
	if (sent == rounds)
		return 0;
	send_next(s);
	return 1;
}

static void on_client_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	if (n <= 0 || got_back(s, n, b))
		return;
	uv_read_stop(s);
	if (mode == PIPE) {
		uv_close((uv_handle_t *)s, on_close);
		uv_shutdown(&shutdown_req, (uv_stream_t *)&cout, on_shutdown);
	} else
		uv_shutdown(&shutdown_req, s, on_shutdown);
}

static void on_client_recv(uv_udp_t *u, ssize_t n, const uv_buf_t *b,
			   const struct sockaddr *from, unsigned flags)
{
	(void)flags;
	if (n <= 0 || !from || got_back(NULL, n, b))
		return;
	uv_close((uv_handle_t *)u, on_close);
}

static void on_connect(uv_connect_t *req, int status)
{
	if (status < 0) {
		fprintf(stderr, "connect: %s\n", uv_strerror(status));
		exit(1);
	}
	send_next(req->handle);
	uv_read_start(req->handle, on_alloc, on_client_read);
}

static int connect_to(const char *where)
{
	if (mode == UNIX) {
		uv_pipe_init(loop, &cpipe, 0);
		uv_pipe_connect(&connect_req, &cpipe, where, on_connect);
	} else if (mode == PIPE) {
		uv_pipe_init(loop, &cin, 0);
		uv_pipe_init(loop, &cout, 0);
		if (uv_pipe_open(&cin, 3) || uv_pipe_open(&cout, 4))
			return 1;
		send_next(NULL);
		uv_read_start((uv_stream_t *)&cin, on_alloc, on_client_read);
	} else if (DGRAM) {
		uv_ip4_addr("127.0.0.1", atoi(where), &server_addr);
		uv_udp_init(loop, &cudp);
		send_next(NULL); /* (binds it) */
		uv_udp_recv_start(&cudp, on_alloc, on_client_recv);
	} else {
		uv_ip4_addr("127.0.0.1", atoi(where), &server_addr);
		uv_tcp_init(loop, &client);
		uv_tcp_connect(&connect_req, &client,
			       (const struct sockaddr *)&server_addr,
			       on_connect);
	}
	uv_run(loop, UV_RUN_DEFAULT);
	uv_loop_close(loop);
	if (rounds != 2)
		printf("client: %d round trips\n", sent);
	return sent == rounds ? 0 : 1;
}

int main(int argc, char **argv)
{
	loop = uv_default_loop();
	int is_client = argc == 5 && !strcmp(argv[1], "client");
	const char *m = argc >= 2 ? argv[is_client ? 2 : 1] : "tcp";
	for (int i = 0; i < 5; i++)
		if (!strcmp(m, modes[i]))
			mode = (enum mode)i;
	if (is_client) {
		rounds = atoi(argv[4]);
		return connect_to(argv[3]);
	}
	hang = argc == 2 && !strcmp(argv[1], "hang");
	if (argc == 3)
		rounds = atoi(argv[2]);
	if (argc > 3 || rounds < 1 ||
	    (argc == 2 && !hang && mode == TCP && strcmp(m, "tcp"))) {
		fprintf(stderr, "usage: uv-echo-split "
				"[hang|tcp|unix|pipe|udp|udp-mmsg [ROUNDS]]\n");
		return 2;
	}
	return serve(argv[0]);
}
