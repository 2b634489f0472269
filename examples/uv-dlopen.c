/* SPDX-License-Identifier: MIT */
/*
 * uv-dlopen.c - a program that loads libuv with dlopen() after it
 * started, as a program with plugins does, and has no tracing code.
 * `uv-dlopen global` loads it RTLD_GLOBAL and finds its functions by name
 * in the process (dlsym(RTLD_DEFAULT), as code linked against it would
 * bind): the shim's come first, and the timer is traced.  `uv-dlopen`
 * alone asks the library's handle for them (dlsym(handle)): that reaches
 * libuv's own functions, which no preloaded shim can intercept.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

void on_timer(uv_timer_t *t);

void on_timer(uv_timer_t *t)
{
	(void)t;
	puts("timer");
}

int main(int argc, char **argv)
{
	int global = argc > 1 && !strcmp(argv[1], "global");
	void *h = dlopen("libuv.so.1", RTLD_NOW | (global ? RTLD_GLOBAL : 0));
	if (!h) {
		fprintf(stderr, "uv-dlopen: %s\n", dlerror());
		return 1;
	}
	void *from = global ? RTLD_DEFAULT : h;
	uv_loop_t *(*default_loop)(void) = (uv_loop_t * (*)(void))
		dlsym(from, "uv_default_loop");
	int (*timer_init)(uv_loop_t *, uv_timer_t *) =
		(int (*)(uv_loop_t *, uv_timer_t *))dlsym(from, "uv_timer_"
								"init");
	int (*timer_start)(uv_timer_t *, uv_timer_cb, uint64_t, uint64_t) =
		(int (*)(uv_timer_t *, uv_timer_cb, uint64_t,
			 uint64_t))dlsym(from, "uv_timer_start");
	int (*run)(uv_loop_t *, uv_run_mode) =
		(int (*)(uv_loop_t *, uv_run_mode))dlsym(from, "uv_run");
	if (!default_loop || !timer_init || !timer_start || !run)
		return 1;
	uv_loop_t *loop = default_loop();
	uv_timer_t t;
	timer_init(loop, &t);
	timer_start(&t, on_timer, 1, 0);
	run(loop, UV_RUN_DEFAULT);
	return 0;
}
