/* SPDX-License-Identifier: MIT */
/*
 * gio-demo.c - GLib's main loop and GIO's asynchronous calls, in a
 * program with no tracing code: `weft record -- build/examples/gio-demo`.
 *
 * An idle callback, a timeout that fires three times, a GTask whose work
 * runs in GLib's thread pool and one that fails; a file loaded
 * asynchronously and a missing one; a TCP echo over loopback with
 * GSocketListener and GSocketClient (accept, connect, write, read); a
 * read nobody answers, cancelled by a timeout through its GCancellable.
 * Sources of every kind: an I/O watch on a pipe (its callback read()s),
 * a Unix fd source, a child watch, a Unix signal, a source the program
 * makes and attaches, and sources removed before they fire, each a way
 * GLib has: g_source_remove, g_source_destroy, g_source_remove_by_user_data
 * and g_idle_remove_by_data.
 * The loop quits when everything has come back.
 */
#include <gio/gio.h>
#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static GMainLoop *loop;
static int pending = 13;
static int pipe1[2], pipe2[2];
static GSocketListener *listener;
static GSocketConnection *client_conn, *server_conn;
static GCancellable *cancellable;
static char server_buf[64], client_buf[64], never_buf[64];
static char path[64];
static int ticks;

gboolean on_idle(gpointer data);
gboolean on_tick(gpointer data);
void crunch(GTask *task, gpointer src, gpointer task_data, GCancellable *c);
void on_crunched(GObject *src, GAsyncResult *res, gpointer data);
void on_refused(GObject *src, GAsyncResult *res, gpointer data);
void on_loaded(GObject *src, GAsyncResult *res, gpointer data);
void on_missing(GObject *src, GAsyncResult *res, gpointer data);
void on_accepted(GObject *src, GAsyncResult *res, gpointer data);
void on_server_read(GObject *src, GAsyncResult *res, gpointer data);
void on_echoed(GObject *src, GAsyncResult *res, gpointer data);
void on_connected(GObject *src, GAsyncResult *res, gpointer data);
void on_written(GObject *src, GAsyncResult *res, gpointer data);
void on_echo(GObject *src, GAsyncResult *res, gpointer data);
void on_never(GObject *src, GAsyncResult *res, gpointer data);
gboolean on_give_up(gpointer data);
gboolean on_pipe(GIOChannel *ch, GIOCondition cond, gpointer data);
gboolean on_fd(gint fd, GIOCondition cond, gpointer data);
void on_child(GPid pid, gint status, gpointer data);
gboolean on_usr1(gpointer data);
gboolean on_custom(gpointer data);
gboolean on_removed(gpointer data);
gboolean on_destroyed(gpointer data);
gboolean on_removed_by_data(gpointer data);
gboolean on_idle_removed(gpointer data);
static int by_data, idle_data; /* (the data they are removed by) */
/* Two of them held until the loop is done: removed, they are finalized
 * only then (the removal, not the finalization, cancels them). */
static GSource *held[2];

static void done(void)
{
	if (--pending == 0)
		g_main_loop_quit(loop);
}

gboolean on_idle(gpointer data)
{
	(void)data;
	puts("idle");
	/* a timeout removed before it fires; a signal to ourselves */
	g_source_remove(g_timeout_add(10000, on_removed, NULL));
	GSource *s = g_timeout_source_new(10000);
	g_source_set_callback(s, on_destroyed, NULL, NULL);
	g_source_attach(s, NULL);
	g_source_destroy(s);
	held[0] = s;
	g_timeout_add(10000, on_removed_by_data, &by_data);
	held[1] = g_source_ref(
		g_main_context_find_source_by_user_data(NULL, &by_data));
	g_source_remove_by_user_data(&by_data);
	g_idle_add(on_idle_removed, &idle_data);
	g_idle_remove_by_data(&idle_data);
	raise(SIGUSR1);
	done();
	return G_SOURCE_REMOVE;
}

gboolean on_removed(gpointer data)
{
	(void)data;
	puts("removed timeout fired");
	return G_SOURCE_REMOVE;
}

gboolean on_destroyed(gpointer data)
{
	(void)data;
	puts("destroyed timeout fired");
	return G_SOURCE_REMOVE;
}

gboolean on_removed_by_data(gpointer data)
{
	(void)data;
	puts("timeout removed by its data fired");
	return G_SOURCE_REMOVE;
}

gboolean on_idle_removed(gpointer data)
{
	(void)data;
	puts("idle removed by its data fired");
	return G_SOURCE_REMOVE;
}

gboolean on_pipe(GIOChannel *ch, GIOCondition cond, gpointer data)
{
	(void)data;
	char c = 0;
	if ((cond & G_IO_IN) && read(g_io_channel_unix_get_fd(ch), &c, 1) == 1)
		printf("pipe: %c\n", c);
	done();
	return G_SOURCE_REMOVE;
}

gboolean on_fd(gint fd, GIOCondition cond, gpointer data)
{
	(void)data;
	char c = 0;
	if ((cond & G_IO_IN) && read(fd, &c, 1) == 1)
		printf("fd: %c\n", c);
	done();
	return G_SOURCE_REMOVE;
}

void on_child(GPid pid, gint status, gpointer data)
{
	(void)pid;
	(void)data;
	printf("child exited %d\n",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	g_spawn_close_pid(pid);
	done();
}

gboolean on_usr1(gpointer data)
{
	(void)data;
	puts("SIGUSR1");
	done();
	return G_SOURCE_REMOVE;
}

gboolean on_custom(gpointer data)
{
	(void)data;
	puts("custom source");
	done();
	return G_SOURCE_REMOVE;
}

gboolean on_tick(gpointer data)
{
	(void)data;
	printf("tick %d\n", ++ticks);
	if (ticks < 3)
		return G_SOURCE_CONTINUE;
	done();
	return G_SOURCE_REMOVE;
}

void crunch(GTask *task, gpointer src, gpointer task_data, GCancellable *c)
{
	(void)src;
	(void)task_data;
	(void)c;
	g_task_return_int(task, 6 * 7);
}

void on_crunched(GObject *src, GAsyncResult *res, gpointer data)
{
	(void)src;
	(void)data;
	printf("crunched: %d\n", (int)g_task_propagate_int(G_TASK(res), NULL));
	done();
}

void on_refused(GObject *src, GAsyncResult *res, gpointer data)
{
	GError *err = NULL;
	(void)src;
	(void)data;
	if (!g_task_propagate_boolean(G_TASK(res), &err)) {
		printf("task failed: %s\n", err->message);
		g_error_free(err);
	}
	done();
}

void on_loaded(GObject *src, GAsyncResult *res, gpointer data)
{
	char *contents;
	gsize len;
	(void)data;
	if (g_file_load_contents_finish(G_FILE(src), res, &contents, &len, NULL,
					NULL)) {
		printf("loaded %zu bytes: %s", len, contents);
		g_free(contents);
	}
	done();
}

void on_missing(GObject *src, GAsyncResult *res, gpointer data)
{
	GError *err = NULL;
	char *contents = NULL;
	(void)data;
	if (!g_file_load_contents_finish(G_FILE(src), res, &contents, NULL,
					 NULL, &err)) {
		printf("missing: %s\n",
		       g_error_matches(err, G_IO_ERROR, G_IO_ERROR_NOT_FOUND)
			       ? "not found"
			       : err->message);
		g_error_free(err);
	}
	done();
}

void on_accepted(GObject *src, GAsyncResult *res, gpointer data)
{
	(void)data;
	server_conn = g_socket_listener_accept_finish(G_SOCKET_LISTENER(src),
						      res, NULL, NULL);
	g_input_stream_read_async(
		g_io_stream_get_input_stream(G_IO_STREAM(server_conn)),
		server_buf, sizeof server_buf, G_PRIORITY_DEFAULT, NULL,
		on_server_read, NULL);
}

void on_server_read(GObject *src, GAsyncResult *res, gpointer data)
{
	(void)data;
	gssize n = g_input_stream_read_finish(G_INPUT_STREAM(src), res, NULL);
	g_output_stream_write_all_async(
		g_io_stream_get_output_stream(G_IO_STREAM(server_conn)),
		server_buf, (gsize)n, G_PRIORITY_DEFAULT, NULL, on_echoed,
		NULL);
}

void on_echoed(GObject *src, GAsyncResult *res, gpointer data)
{
	(void)data;
	g_output_stream_write_all_finish(G_OUTPUT_STREAM(src), res, NULL, NULL);
}

void on_connected(GObject *src, GAsyncResult *res, gpointer data)
{
	(void)data;
	client_conn = g_socket_client_connect_to_host_finish(
		G_SOCKET_CLIENT(src), res, NULL);
	g_output_stream_write_all_async(
		g_io_stream_get_output_stream(G_IO_STREAM(client_conn)),
		"hello", 5, G_PRIORITY_DEFAULT, NULL, on_written, NULL);
}

void on_written(GObject *src, GAsyncResult *res, gpointer data)
{
	(void)data;
	g_output_stream_write_all_finish(G_OUTPUT_STREAM(src), res, NULL, NULL);
	g_input_stream_read_async(
		g_io_stream_get_input_stream(G_IO_STREAM(client_conn)),
		client_buf, sizeof client_buf, G_PRIORITY_DEFAULT, NULL,
		on_echo, NULL);
}

void on_echo(GObject *src, GAsyncResult *res, gpointer data)
{
	(void)data;
	gssize n = g_input_stream_read_finish(G_INPUT_STREAM(src), res, NULL);
	printf("echo: %.*s\n", (int)n, client_buf);
	done();
	/* a read of the server's side that nothing answers */
	cancellable = g_cancellable_new();
	g_input_stream_read_async(
		g_io_stream_get_input_stream(G_IO_STREAM(server_conn)),
		never_buf, sizeof never_buf, G_PRIORITY_DEFAULT, cancellable,
		on_never, NULL);
	g_timeout_add(20, on_give_up, NULL);
}

gboolean on_give_up(gpointer data)
{
	(void)data;
	g_cancellable_cancel(cancellable);
	return G_SOURCE_REMOVE;
}

void on_never(GObject *src, GAsyncResult *res, gpointer data)
{
	GError *err = NULL;
	(void)data;
	if (g_input_stream_read_finish(G_INPUT_STREAM(src), res, &err) < 0) {
		printf("read: %s\n",
		       g_error_matches(err, G_IO_ERROR, G_IO_ERROR_CANCELLED)
			       ? "cancelled"
			       : err->message);
		g_error_free(err);
	}
	done();
}

int main(void)
{
	loop = g_main_loop_new(NULL, FALSE);
	g_idle_add(on_idle, NULL);
	g_timeout_add(5, on_tick, NULL);

	GTask *t = g_task_new(NULL, NULL, on_crunched, NULL);
	g_task_run_in_thread(t, crunch);
	g_object_unref(t);
	t = g_task_new(NULL, NULL, on_refused, NULL);
	g_task_return_new_error(t, G_IO_ERROR, G_IO_ERROR_FAILED,
				"no such thing: %d", 42);
	g_object_unref(t);

	snprintf(path, sizeof path, "/tmp/weft-gio-demo-%d.txt", (int)getpid());
	g_file_set_contents(path, "some contents\n", -1, NULL);
	GFile *f = g_file_new_for_path(path);
	g_file_load_contents_async(f, NULL, on_loaded, NULL);
	g_object_unref(f);
	f = g_file_new_for_path("/nonexistent/weft-gio-demo");
	g_file_load_contents_async(f, NULL, on_missing, NULL);
	g_object_unref(f);

	listener = g_socket_listener_new();
	GInetAddress *lo = g_inet_address_new_loopback(G_SOCKET_FAMILY_IPV4);
	GSocketAddress *a = g_inet_socket_address_new(lo, 0);
	GSocketAddress *bound = NULL;
	g_socket_listener_add_address(listener, a, G_SOCKET_TYPE_STREAM,
				      G_SOCKET_PROTOCOL_TCP, NULL, &bound,
				      NULL);
	guint16 port =
		g_inet_socket_address_get_port(G_INET_SOCKET_ADDRESS(bound));
	g_socket_listener_accept_async(listener, NULL, on_accepted, NULL);
	GSocketClient *client = g_socket_client_new();
	char host[32];
	snprintf(host, sizeof host, "127.0.0.1:%u", port);
	g_socket_client_connect_to_host_async(client, host, 0, NULL,
					      on_connected, NULL);

	/* sources of every kind */
	if (pipe(pipe1) < 0 || pipe(pipe2) < 0)
		return 1;
	GIOChannel *ch = g_io_channel_unix_new(pipe1[0]);
	g_io_add_watch(ch, G_IO_IN, on_pipe, NULL);
	g_io_channel_unref(ch);
	g_unix_fd_add(pipe2[0], G_IO_IN, on_fd, NULL);
	if (write(pipe1[1], "x", 1) != 1 || write(pipe2[1], "y", 1) != 1)
		return 1;
	g_unix_signal_add(SIGUSR1, on_usr1, NULL);
	pid_t child = fork();
	if (child == 0)
		_exit(3);
	g_child_watch_add(child, on_child, NULL);
	GSource *custom = g_timeout_source_new(1);
	g_source_set_name(custom, "custom");
	g_source_set_callback(custom, on_custom, NULL, NULL);
	g_source_attach(custom, NULL);
	g_source_unref(custom);

	g_main_loop_run(loop);
	g_source_unref(held[0]);
	g_source_unref(held[1]);

	unlink(path);
	g_object_unref(client);
	g_object_unref(client_conn);
	g_object_unref(server_conn);
	g_object_unref(listener);
	g_object_unref(cancellable);
	g_object_unref(bound);
	g_object_unref(a);
	g_object_unref(lo);
	g_main_loop_unref(loop);
	return 0;
}
