/* SPDX-License-Identifier: MIT */
/*
 * uv-edge.c - the corners the libuv shim must get right, in one program
 * with no tracing code:
 *   - a request freed inside its own callback;
 *   - synchronous fs calls (NULL callback);
 *   - a handle closed with a write still in flight (UV_ECANCELED);
 *   - two loops;
 *   - fork(): the child runs a loop of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

static int canceled, freed;

void on_timer_free(uv_timer_t *t);
void on_fs_free(uv_fs_t *req);
void on_write_canceled(uv_write_t *req, int status);
void on_second_loop_timer(uv_timer_t *t);

void on_fs_free(uv_fs_t *req)
{
	uv_fs_req_cleanup(req);
	free(req); /* the shim must not touch it after this */
	freed++;
}

void on_write_canceled(uv_write_t *req, int status)
{
	canceled += status == UV_ECANCELED;
	free(req);
}

void on_second_loop_timer(uv_timer_t *t)
{
	uv_close((uv_handle_t *)t, NULL);
}

static void second_loop(void)
{
	uv_loop_t loop;
	uv_timer_t t;
	uv_loop_init(&loop);
	uv_timer_init(&loop, &t);
	uv_timer_start(&t, on_second_loop_timer, 1, 0);
	uv_run(&loop, UV_RUN_DEFAULT);
	uv_loop_close(&loop);
}

int main(void)
{
	uv_loop_t *loop = uv_default_loop();

	/* synchronous fs */
	uv_fs_t sync;
	int r = uv_fs_stat(loop, &sync, "/", NULL);
	uv_fs_req_cleanup(&sync);

	/* freed in its callback */
	uv_fs_t *req = malloc(sizeof *req);
	uv_fs_stat(loop, req, "/", on_fs_free);

	/* a write canceled by closing its pipe while it waits: the other
	 * end is never read, so a big write cannot finish */
	int fds[2];
	if (pipe(fds))
		return 1;
	uv_pipe_t p;
	uv_pipe_init(loop, &p, 0);
	uv_pipe_open(&p, fds[1]);
	static char big[1 << 20];
	uv_buf_t b = uv_buf_init(big, sizeof big);
	uv_write_t *w = malloc(sizeof *w);
	uv_write(w, (uv_stream_t *)&p, &b, 1, on_write_canceled);
	uv_run(loop, UV_RUN_NOWAIT);
	uv_close((uv_handle_t *)&p, NULL);
	uv_run(loop, UV_RUN_DEFAULT);
	close(fds[0]);

	second_loop();

	pid_t pid = fork();
	if (pid == 0) {
		second_loop();
		printf("child: second loop done\n");
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	uv_loop_close(loop);
	printf("stat %d, freed %d, canceled %d\n", r, freed, canceled);
	return 0;
}
