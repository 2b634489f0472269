/* SPDX-License-Identifier: MIT */
/*
 * uv-misc.c - timers, file system requests, threadpool work and async
 * sends from another OS thread, in one libuv program with no tracing
 * code: `weft record -- build/examples/uv-misc`.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

static uv_loop_t *loop;
static uv_timer_t ticker, once;
static uv_async_t wakeup;
static uv_fs_t open_req, write_req, close_req, unlink_req;
static uv_work_t work[2];
static pthread_t sender;
static char path[256];
static int ticks, wakeups, works;
static char data[] = "written by uv-misc\n";

void on_tick(uv_timer_t *t);
void on_once(uv_timer_t *t);
void on_wakeup(uv_async_t *a);
void on_open(uv_fs_t *req);
void on_write(uv_fs_t *req);
void on_closed(uv_fs_t *req);
void on_unlink(uv_fs_t *req);
void crunch(uv_work_t *w);
void crunched(uv_work_t *w, int status);
static void *send_three(void *arg);

void on_tick(uv_timer_t *t)
{
	if (++ticks == 3)
		uv_close((uv_handle_t *)t, NULL);
}

void on_once(uv_timer_t *t)
{
	uv_close((uv_handle_t *)t, NULL);
}

void on_wakeup(uv_async_t *a)
{
	/* several sends may coalesce into one call */
	wakeups++;
	if (wakeups == 1) {
		pthread_join(sender, NULL);
		uv_close((uv_handle_t *)a, NULL);
	}
}

static void *send_three(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++)
		uv_async_send(&wakeup);
	return NULL;
}

void on_unlink(uv_fs_t *req)
{
	uv_fs_req_cleanup(req);
}

void on_closed(uv_fs_t *req)
{
	uv_fs_req_cleanup(req);
	uv_fs_unlink(loop, &unlink_req, path, on_unlink);
}

void on_write(uv_fs_t *req)
{
	uv_fs_req_cleanup(req);
	uv_fs_close(loop, &close_req, (uv_file)open_req.result, on_closed);
}

void on_open(uv_fs_t *req)
{
	if (req->result < 0) {
		fprintf(stderr, "open: %s\n", uv_strerror((int)req->result));
		return;
	}
	uv_buf_t b = uv_buf_init(data, (unsigned)strlen(data));
	uv_fs_write(loop, &write_req, (uv_file)req->result, &b, 1, 0, on_write);
}

void crunch(uv_work_t *w)
{
	(void)w;
	usleep(2000);
}

void crunched(uv_work_t *w, int status)
{
	(void)w;
	if (status == 0)
		works++;
}

int main(void)
{
	loop = uv_default_loop();
	snprintf(path, sizeof path, "/tmp/weft-uv-misc-%d.txt", (int)getpid());
	uv_timer_init(loop, &ticker);
	uv_timer_start(&ticker, on_tick, 1, 1);
	uv_timer_init(loop, &once);
	uv_timer_start(&once, on_once, 5, 0);
	uv_fs_open(loop, &open_req, path, UV_FS_O_CREAT | UV_FS_O_WRONLY, 0600,
		   on_open);
	for (int i = 0; i < 2; i++)
		uv_queue_work(loop, &work[i], crunch, crunched);
	uv_async_init(loop, &wakeup, on_wakeup);
	pthread_create(&sender, NULL, send_three, NULL);
	uv_run(loop, UV_RUN_DEFAULT);
	uv_fs_req_cleanup(&open_req);
	uv_loop_close(loop);
	printf("ticks %d, wakeups %d, works %d\n", ticks, wakeups ? 1 : 0,
	       works);
	return 0;
}
