/* SPDX-License-Identifier: MIT */
/*
 * uv-bench.c - a libuv TCP echo benchmark on loopback, with no tracing
 * code: a client keeps one 64-byte message in flight to an echo server in
 * the same loop for SECONDS (or until TRIPS round trips, when given:
 * bench/loop-overhead.sh counts instructions per round trip under
 * callgrind), then prints the round trips per second and how many.
 * bench/uv-overhead.sh runs it with and without `weft record`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

static uv_loop_t *loop;
static uv_tcp_t server, client, conn;
static uv_connect_t creq;
static uv_timer_t stop;
static char sbuf[4096], cbuf[4096], msg[64];
static long trips, max_trips;
static size_t got;
static int done;

static void alloc_s(uv_handle_t *h, size_t n, uv_buf_t *b)
{
	(void)h;
	(void)n;
	*b = uv_buf_init(sbuf, sizeof sbuf);
}

static void alloc_c(uv_handle_t *h, size_t n, uv_buf_t *b)
{
	(void)h;
	(void)n;
	*b = uv_buf_init(cbuf, sizeof cbuf);
}

static void after_write(uv_write_t *w, int status)
{
	(void)status;
	free(w);
}

static void send_msg(uv_stream_t *s, const char *p, size_t n)
{
	uv_write_t *w = malloc(sizeof *w);
	uv_buf_t b = uv_buf_init((char *)p, (unsigned)n);
	uv_write(w, s, &b, 1, after_write);
}

static void on_srv_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	if (n > 0)
		send_msg(s, b->base, (size_t)n);
	else if (n < 0)
		uv_close((uv_handle_t *)s, NULL);
}

static void on_stop(uv_timer_t *t);

static void on_cli_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
	(void)b;
	if (n <= 0)
		return;
	got += (size_t)n;
	while (got >= sizeof msg) {
		got -= sizeof msg;
		trips++;
		if (max_trips && trips >= max_trips && !done)
			on_stop(&stop);
		if (!done)
			send_msg(s, msg, sizeof msg);
	}
}

static void on_conn(uv_stream_t *s, int status)
{
	if (status)
		return;
	uv_tcp_init(loop, &conn);
	uv_accept(s, (uv_stream_t *)&conn);
	uv_read_start((uv_stream_t *)&conn, alloc_s, on_srv_read);
}

static void on_connect(uv_connect_t *r, int status)
{
	if (status)
		exit(1);
	uv_read_start(r->handle, alloc_c, on_cli_read);
	send_msg(r->handle, msg, sizeof msg);
}

static void on_stop(uv_timer_t *t)
{
	done = 1;
	uv_close((uv_handle_t *)t, NULL);
	uv_close((uv_handle_t *)&client, NULL);
	uv_close((uv_handle_t *)&server, NULL);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2;
	max_trips = argc > 2 ? atol(argv[2]) : 0;
	loop = uv_default_loop();
	memset(msg, 'x', sizeof msg);
	struct sockaddr_in a;
	uv_ip4_addr("127.0.0.1", 0, &a);
	uv_tcp_init(loop, &server);
	uv_tcp_bind(&server, (struct sockaddr *)&a, 0);
	uv_listen((uv_stream_t *)&server, 8, on_conn);
	struct sockaddr_storage name;
	int len = sizeof name;
	uv_tcp_getsockname(&server, (struct sockaddr *)&name, &len);
	uv_tcp_init(loop, &client);
	uv_tcp_connect(&creq, &client, (struct sockaddr *)&name, on_connect);
	uv_timer_init(loop, &stop);
	uv_timer_start(&stop, on_stop, (uint64_t)(secs * 1000), 0);
	uv_run(loop, UV_RUN_DEFAULT);
	printf("%.0f round trips/s, %ld round trips\n", (double)trips / secs,
	       trips);
	return 0;
}
