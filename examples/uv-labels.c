/* SPDX-License-Identifier: MIT */
/*
 * uv-labels.c - N writes, each of a different size (1, 2, ... N bytes),
 * one after the other over a socketpair, read at the other end: as many
 * different labels ("write K bytes to fd F"), enough to fill a trace's
 * name table.  No tracing code: `weft record -- build/examples/uv-labels N`.
 * Prints the bytes read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <uv.h>

static uv_loop_t *loop;
static uv_pipe_t out, in;
static uv_write_t wreq;
static char data[1 << 16], inbuf[1 << 16];
static int n, k;
static long total;

void on_written(uv_write_t *req, int status);
void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf);

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
	(void)h;
	(void)suggested;
	*buf = uv_buf_init(inbuf, sizeof inbuf);
}

static void write_next(void)
{
	if (++k > n) {
		uv_close((uv_handle_t *)&out, NULL);
		return;
	}
	uv_buf_t b = uv_buf_init(data, (unsigned)k);
	uv_write(&wreq, (uv_stream_t *)&out, &b, 1, on_written);
}

void on_written(uv_write_t *req, int status)
{
	(void)req;
	if (status < 0) {
		fprintf(stderr, "write: %s\n", uv_strerror(status));
		exit(1);
	}
	write_next();
}

void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	(void)buf;
	if (nread > 0)
		total += nread;
	else if (nread < 0)
		uv_close((uv_handle_t *)s, NULL);
}

int main(int argc, char **argv)
{
	n = argc > 1 ? atoi(argv[1]) : 3000;
	if (n < 1 || n > (int)sizeof data)
		n = 3000;
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
		perror("socketpair");
		return 1;
	}
	loop = uv_default_loop();
	uv_pipe_init(loop, &out, 0);
	uv_pipe_init(loop, &in, 0);
	uv_pipe_open(&out, sv[0]);
	uv_pipe_open(&in, sv[1]);
	uv_read_start((uv_stream_t *)&in, on_alloc, on_read);
	write_next();
	uv_run(loop, UV_RUN_DEFAULT);
	uv_loop_close(loop);
	printf("%ld bytes read\n", total);
	return 0;
}
