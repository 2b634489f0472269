/* SPDX-License-Identifier: MIT */
/*
 * two-loops.c - a program with two event loops, libuv's and GLib's, and
 * no tracing code: `weft record` preloads the shims of both and traces
 * both.  A libuv timer fires in uv_run, then a GLib timeout in
 * g_main_loop_run.
 */
#include <glib.h>
#include <stdio.h>
#include <uv.h>

void on_uv_timer(uv_timer_t *t);
gboolean on_glib_timeout(gpointer data);

void on_uv_timer(uv_timer_t *t)
{
	puts("uv timer");
	uv_close((uv_handle_t *)t, NULL);
}

gboolean on_glib_timeout(gpointer data)
{
	puts("glib timeout");
	g_main_loop_quit(data);
	return G_SOURCE_REMOVE;
}

int main(void)
{
	uv_loop_t *loop = uv_default_loop();
	uv_timer_t t;
	uv_timer_init(loop, &t);
	uv_timer_start(&t, on_uv_timer, 1, 0);
	uv_run(loop, UV_RUN_DEFAULT);

	GMainLoop *gl = g_main_loop_new(NULL, FALSE);
	g_timeout_add(1, on_glib_timeout, gl);
	g_main_loop_run(gl);
	g_main_loop_unref(gl);
	return uv_loop_close(loop) ? 1 : 0;
}
