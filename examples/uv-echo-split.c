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
 */
#include <signal.h>
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

static uv_tcp_t server, conn;
static uv_process_t child;
static uv_write_t echo_write[2];
static uv_timer_t query, watchdog;
static int echoes, hang;
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

static void on_server_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	if (n < 0) {
		uv_close((uv_handle_t *)s, on_close);
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
	uv_write(&echo_write[echoes++ % 2], s, &e, 1, on_echo_written);
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
	uv_tcp_init(loop, &conn);
	conn.data = &conn;
	if (uv_accept(s, (uv_stream_t *)&conn) == 0)
		uv_read_start((uv_stream_t *)&conn, on_alloc, on_server_read);
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
	uv_close((uv_handle_t *)&server, on_close);
}

static int serve(const char *self)
{
	uv_timer_init(loop, &query);
	uv_timer_init(loop, &watchdog);
	struct sockaddr_in addr;
	uv_ip4_addr("127.0.0.1", 0, &addr);
	uv_tcp_init(loop, &server);
	uv_tcp_bind(&server, (const struct sockaddr *)&addr, 0);
	if (uv_listen((uv_stream_t *)&server, 16, on_connection)) {
		fprintf(stderr, "listen failed\n");
		return 1;
	}
	struct sockaddr_in name;
	int len = sizeof name;
	uv_tcp_getsockname(&server, (struct sockaddr *)&name, &len);
	char port[16];
	snprintf(port, sizeof port, "%d", ntohs(name.sin_port));
	static char client_arg[] = "client";
	char *args[] = {(char *)self, client_arg, port, NULL};
	uv_stdio_container_t io[3] = {
		{.flags = UV_IGNORE},
		{.flags = UV_INHERIT_FD, .data.fd = 1},
		{.flags = UV_INHERIT_FD, .data.fd = 2},
	};
	uv_process_options_t o = {
		.exit_cb = on_child_exit,
		.file = self,
		.args = args,
		.stdio_count = 3,
		.stdio = io,
	};
	int r = uv_spawn(loop, &child, &o);
	if (r) {
		fprintf(stderr, "spawn: %s\n", uv_strerror(r));
		return 1;
	}
	uv_run(loop, UV_RUN_DEFAULT);
	uv_loop_close(loop);
	printf("server echoed %d messages\n", echoes);
	return 0;
}

/* ------------------------------------------------------------ client */

static uv_tcp_t client;
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
	uv_buf_t b = uv_buf_init(msgs[sent], (unsigned)strlen(msgs[sent]));
	uv_write(&client_write[sent], s, &b, 1, on_written);
	sent++;
}

static void on_client_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	if (n <= 0)
		return;
	printf("client got back: %.*s\n", (int)n, b->base);
	if (sent < 2) {
		send_next(s);
		return;
	}
	uv_read_stop(s);
	uv_shutdown(&shutdown_req, s, on_shutdown);
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

static int connect_to(int port)
{
	struct sockaddr_in addr;
	uv_ip4_addr("127.0.0.1", port, &addr);
	uv_tcp_init(loop, &client);
	uv_tcp_connect(&connect_req, &client, (const struct sockaddr *)&addr,
		       on_connect);
	uv_run(loop, UV_RUN_DEFAULT);
	uv_loop_close(loop);
	return sent == 2 ? 0 : 1;
}

int main(int argc, char **argv)
{
	loop = uv_default_loop();
	if (argc == 3 && !strcmp(argv[1], "client"))
		return connect_to(atoi(argv[2]));
	hang = argc == 2 && !strcmp(argv[1], "hang");
	return serve(argv[0]);
}
