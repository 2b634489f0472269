/* SPDX-License-Identifier: MIT */
/*
 * uv-phases.c - one callback in each phase of a libuv loop iteration, in
 * a program with no tracing code: `weft record -- build/examples/uv-phases`
 * shows them in their phases.
 *
 * Before the loop runs: a 0 ms timer (timers phase), a write on one end of
 * a socket pair and a UDP datagram sent to ourselves (both complete at
 * once: their callbacks come in the pending phase), idle, prepare and check
 * handles (their own phases), reads on the other end and on the UDP socket
 * (poll phase).  The read callback closes its pipe (closing phase) and
 * starts a write too big to finish on a second pair, then closes that
 * pipe: libuv cancels the write in the closing phase.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <uv.h>

static uv_loop_t *loop;
static uv_timer_t timer;
static uv_idle_t idle;
static uv_prepare_t prepare;
static uv_check_t check;
static uv_pipe_t a, b, c, d;
static uv_udp_t udp;
static uv_write_t ping_req, big_req;
static uv_udp_send_t dgram_req;
static char ping[] = "ping", dgram[] = "datagram";
static char *big;
enum { BIG = 8 << 20 };
static char rbuf[64], ubuf[64];
static int calls[16];

enum {
	TIMER,
	WRITTEN,
	IDLE,
	PREPARE,
	READ,
	CHECK,
	CLOSED_B,
	BIG_CANCELED,
	CLOSED_C,
	UDP_SENT,
	UDP_RECV,
	CLOSED_OTHERS
};

void on_timer(uv_timer_t *t);
void on_written(uv_write_t *req, int status);
void on_idle(uv_idle_t *h);
void on_prepare(uv_prepare_t *h);
void on_check(uv_check_t *h);
void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);
void on_close_b(uv_handle_t *h);
void on_big_written(uv_write_t *req, int status);
void on_close_c(uv_handle_t *h);
void on_udp_sent(uv_udp_send_t *req, int status);
void on_udp(uv_udp_t *h, ssize_t n, const uv_buf_t *buf,
	    const struct sockaddr *addr, unsigned flags);
void on_close_other(uv_handle_t *h);

void on_timer(uv_timer_t *t)
{
	(void)t;
	calls[TIMER]++;
}

void on_written(uv_write_t *req, int status)
{
	(void)req;
	if (status == 0)
		calls[WRITTEN]++;
}

void on_idle(uv_idle_t *h)
{
	calls[IDLE]++;
	uv_idle_stop(h);
}

void on_prepare(uv_prepare_t *h)
{
	calls[PREPARE]++;
	uv_prepare_stop(h);
}

void on_check(uv_check_t *h)
{
	calls[CHECK]++;
	uv_check_stop(h);
}

static void alloc_r(uv_handle_t *h, size_t size, uv_buf_t *buf)
{
	(void)h;
	(void)size;
	*buf = uv_buf_init(rbuf, sizeof rbuf);
}

static void alloc_u(uv_handle_t *h, size_t size, uv_buf_t *buf)
{
	(void)h;
	(void)size;
	*buf = uv_buf_init(ubuf, sizeof ubuf);
}

void on_close_b(uv_handle_t *h)
{
	(void)h;
	calls[CLOSED_B]++;
}

void on_big_written(uv_write_t *req, int status)
{
	(void)req;
	if (status == UV_ECANCELED)
		calls[BIG_CANCELED]++;
}

void on_close_c(uv_handle_t *h)
{
	(void)h;
	calls[CLOSED_C]++;
}

void on_close_other(uv_handle_t *h)
{
	(void)h;
	calls[CLOSED_OTHERS]++;
}

void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
	(void)buf;
	if (n <= 0)
		return;
	calls[READ]++;
	uv_close((uv_handle_t *)s, on_close_b);
	/* too big for the socket buffer: still queued when c closes */
	uv_buf_t w = uv_buf_init(big, BIG);
	uv_write(&big_req, (uv_stream_t *)&c, &w, 1, on_big_written);
	uv_close((uv_handle_t *)&c, on_close_c);
	uv_close((uv_handle_t *)&a, on_close_other);
	uv_close((uv_handle_t *)&d, on_close_other);
}

void on_udp_sent(uv_udp_send_t *req, int status)
{
	(void)req;
	if (status == 0)
		calls[UDP_SENT]++;
}

void on_udp(uv_udp_t *h, ssize_t n, const uv_buf_t *buf,
	    const struct sockaddr *addr, unsigned flags)
{
	(void)buf;
	(void)flags;
	if (n <= 0 || !addr)
		return;
	calls[UDP_RECV]++;
	uv_close((uv_handle_t *)h, on_close_other);
}

static void pipe_pair(uv_pipe_t *x, uv_pipe_t *y)
{
	int fds[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds)) {
		perror("socketpair");
		exit(1);
	}
	uv_pipe_init(loop, x, 0);
	uv_pipe_init(loop, y, 0);
	uv_pipe_open(x, fds[0]);
	uv_pipe_open(y, fds[1]);
}

int main(void)
{
	loop = uv_default_loop();
	big = calloc(1, BIG);
	uv_timer_init(loop, &timer);
	uv_timer_start(&timer, on_timer, 0, 0);
	uv_idle_init(loop, &idle);
	uv_idle_start(&idle, on_idle);
	uv_prepare_init(loop, &prepare);
	uv_prepare_start(&prepare, on_prepare);
	uv_check_init(loop, &check);
	uv_check_start(&check, on_check);

	pipe_pair(&a, &b);
	pipe_pair(&c, &d);
	uv_read_start((uv_stream_t *)&b, alloc_r, on_read);
	uv_buf_t p = uv_buf_init(ping, sizeof ping - 1);
	uv_write(&ping_req, (uv_stream_t *)&a, &p, 1, on_written);

	struct sockaddr_in any, self;
	int len = sizeof self;
	uv_ip4_addr("127.0.0.1", 0, &any);
	uv_udp_init(loop, &udp);
	uv_udp_bind(&udp, (const struct sockaddr *)&any, 0);
	uv_udp_getsockname(&udp, (struct sockaddr *)&self, &len);
	uv_udp_recv_start(&udp, alloc_u, on_udp);
	uv_buf_t u = uv_buf_init(dgram, sizeof dgram - 1);
	uv_udp_send(&dgram_req, &udp, &u, 1, (const struct sockaddr *)&self,
		    on_udp_sent);

	uv_run(loop, UV_RUN_DEFAULT);
	uv_close((uv_handle_t *)&timer, NULL);
	uv_close((uv_handle_t *)&idle, NULL);
	uv_close((uv_handle_t *)&prepare, NULL);
	uv_close((uv_handle_t *)&check, NULL);
	uv_run(loop, UV_RUN_DEFAULT);
	int r = uv_loop_close(loop);
	free(big);
	printf("timer %d, written %d, idle %d, prepare %d, read %d, check %d, "
	       "closed %d, canceled %d, closed %d, udp sent %d, udp recv %d, "
	       "others closed %d, loop closed %d\n",
	       calls[TIMER], calls[WRITTEN], calls[IDLE], calls[PREPARE],
	       calls[READ], calls[CHECK], calls[CLOSED_B], calls[BIG_CANCELED],
	       calls[CLOSED_C], calls[UDP_SENT], calls[UDP_RECV],
	       calls[CLOSED_OTHERS], r == 0);
	return 0;
}
