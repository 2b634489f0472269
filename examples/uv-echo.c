/* SPDX-License-Identifier: MIT */
/*
 * uv-echo.c - a TCP echo server and its client on loopback, one libuv
 * loop, no tracing code at all: `weft record -- build/examples/uv-echo`
 * traces it.  The client sends one message, the server echoes it, the
 * client checks it, and everything closes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

static uv_loop_t *loop;
static uv_tcp_t server, client, conn;
static uv_connect_t connect_req;
static uv_write_t client_write, echo_write;
static uv_shutdown_t shutdown_req;
static char msg[] = "hello, weft";
static char inbuf[256], echobuf[256];
static size_t echolen;

void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf);
void on_close(uv_handle_t *h);
void on_echo_written(uv_write_t *req, int status);
void on_server_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);
void on_connection(uv_stream_t *s, int status);
void on_client_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);
void on_client_written(uv_write_t *req, int status);
void on_connect(uv_connect_t *req, int status);
void on_shutdown(uv_shutdown_t *req, int status);

void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	(void)suggested;
	*buf = uv_buf_init(h == (uv_handle_t *)&conn ? echobuf : inbuf, 256);
}

void on_close(uv_handle_t *h)
{
	(void)h;
}

void on_echo_written(uv_write_t *req, int status)
{
	(void)req;
	if (status)
		fprintf(stderr, "echo write: %s\n", uv_strerror(status));
}

void on_server_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	if (n < 0) { /* the client is done */
		uv_close((uv_handle_t *)s, on_close);
		uv_close((uv_handle_t *)&server, on_close);
		return;
	}
	echolen = (size_t)n;
	uv_buf_t b = uv_buf_init(buf->base, (unsigned)n);
	uv_write(&echo_write, s, &b, 1, on_echo_written);
}

void on_connection(uv_stream_t *s, int status)
{
	if (status < 0)
		return;
	uv_tcp_init(loop, &conn);
	if (uv_accept(s, (uv_stream_t *)&conn) == 0)
		uv_read_start((uv_stream_t *)&conn, on_alloc, on_server_read);
}

void on_shutdown(uv_shutdown_t *req, int status)
{
	(void)status;
	uv_close((uv_handle_t *)req->handle, on_close);
}

void on_client_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	if (n <= 0)
		return;
	printf("client got back: %.*s\n", (int)n, buf->base);
	uv_read_stop(s);
	uv_shutdown(&shutdown_req, s, on_shutdown);
}

void on_client_written(uv_write_t *req, int status)
{
	(void)req;
	if (status)
		fprintf(stderr, "client write: %s\n", uv_strerror(status));
}

void on_connect(uv_connect_t *req, int status)
{
	if (status < 0) {
		fprintf(stderr, "connect: %s\n", uv_strerror(status));
		exit(1);
	}
	uv_buf_t b = uv_buf_init(msg, (unsigned)strlen(msg));
	uv_write(&client_write, req->handle, &b, 1, on_client_written);
	uv_read_start(req->handle, on_alloc, on_client_read);
}

int main(void)
{
	loop = uv_default_loop();
	struct sockaddr_in addr;
	uv_ip4_addr("127.0.0.1", 0, &addr);
	uv_tcp_init(loop, &server);
	uv_tcp_bind(&server, (const struct sockaddr *)&addr, 0);
	if (uv_listen((uv_stream_t *)&server, 16, on_connection)) {
		fprintf(stderr, "listen failed\n");
		return 1;
	}
	struct sockaddr_storage name;
	int len = sizeof name;
	uv_tcp_getsockname(&server, (struct sockaddr *)&name, &len);
	uv_tcp_init(loop, &client);
	uv_tcp_connect(&connect_req, &client, (const struct sockaddr *)&name,
		       on_connect);
	uv_run(loop, UV_RUN_DEFAULT);
	uv_loop_close(loop);
	printf("echoed %zu bytes\n", echolen);
	return 0;
}
