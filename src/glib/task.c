/* SPDX-License-Identifier: MIT */
/*
 * task.c - GTask as a promise, GIO's asynchronous calls through the
 * callbacks the program passes, and GCancellable's cancellation.
 *
 * A GTask the program makes (g_task_new) is a thread created by whatever
 * is current; g_task_return_* resolves it, or fails it with the GError's
 * message; its callback runs as it; g_task_propagate_* is a read of it
 * (an arrow from the task to the reader); g_task_run_in_thread's function
 * runs as it on the worker.  A GIO call that takes a callback
 * (g_file_read_async, g_socket_client_connect_to_host_async,
 * g_dbus_connection_call...) is a thread created by its caller, resolved
 * when its callback comes (which runs as it), or failed with the GError's
 * message when the program's *_finish call reports one.  g_cancellable_cancel
 * cancels what uses the cancellable: an arrow from the canceller.
 *
 * GIO's own GTasks and sources (made inside GIO, which calls itself
 * without the PLT) are not seen: an operation is seen where the program
 * starts it and where its callback comes back.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "glib-shim.h"

/* ------------------------------------------------------ cancellables */

struct cnode {
	uint64_t *id;
	struct cnode *next;
};
static pthread_mutex_t cancel_lock = PTHREAD_MUTEX_INITIALIZER;

void weft__shim_glib_cancellable_add(GCancellable *c, uint64_t *id)
{
	if (!c)
		return;
	struct cnode *n = malloc(sizeof *n);
	if (!n)
		return;
	pthread_mutex_lock(&cancel_lock);
	struct shim_ent e;
	n->id = id;
	n->next = weft__shim_get(c, R_CANCEL, &e, 0) ? e.data : NULL;
	if (!weft__shim_put_data(c, R_CANCEL, n)) {
		free(n);
		n = NULL;
	}
	pthread_mutex_unlock(&cancel_lock);
}

void weft__shim_glib_cancellable_forget(GCancellable *c, uint64_t *id)
{
	if (!c)
		return;
	pthread_mutex_lock(&cancel_lock);
	struct shim_ent e;
	if (weft__shim_get(c, R_CANCEL, &e, 0)) {
		struct cnode *head = e.data, **p = &head;
		while (*p && (*p)->id != id)
			p = &(*p)->next;
		if (*p) {
			struct cnode *gone = *p;
			*p = gone->next;
			free(gone);
			weft__shim_put_data(c, R_CANCEL, head);
		}
	}
	pthread_mutex_unlock(&cancel_lock);
}

void g_cancellable_cancel(GCancellable *c)
{
	REAL(g_cancellable_cancel);
	if (c && ON() && !INTERNAL()) {
		int saved = errno;
		pthread_mutex_lock(&cancel_lock);
		struct shim_ent e;
		if (weft__shim_get(c, R_CANCEL, &e, 0))
			for (struct cnode *n = e.data; n; n = n->next) {
				uint64_t id = __atomic_exchange_n(
					n->id, 0, __ATOMIC_RELAXED);
				if (id)
					weft_cancel(id);
			}
		pthread_mutex_unlock(&cancel_lock);
		errno = saved;
	}
	real_g_cancellable_cancel(c);
}

/* ------------------------------------------------------------ GTask */

struct tx {
	GAsyncReadyCallback cb; /* the program's, and its data */
	gpointer data;
	GTaskThreadFunc thread_func;
	GCancellable *cancellable;
	uint64_t thread; /* the task's thread */
	uint64_t id;	 /* the same while it has not ended (atomic) */
};

static struct tx *tx_of(gpointer task)
{
	struct shim_ent e;
	return task && weft__shim_get(task, R_TASK, &e, 0) ? e.data : NULL;
}

/* The task ends: resolved, or failed with msg. */
static void task_end(struct tx *t, const char *msg)
{
	uint64_t id = __atomic_exchange_n(&t->id, 0, __ATOMIC_RELAXED);
	if (!id || !ON())
		return;
	if (msg)
		weft_fail(id, msg);
	else
		weft_resolve(id);
}

/* The task object is finalized: its record goes. */
static void task_gone(gpointer data, GObject *was)
{
	struct tx *t = data;
	struct shim_ent e;
	weft__shim_get(was, R_TASK, &e, 1);
	weft__shim_glib_cancellable_forget(t->cancellable, &t->id);
	free(t);
}

/* The phase of a callback GLib runs: dispatch when the loop runs it (from
 * one of GLib's own sources), none when a call made it at once. */
static int dispatch_phase(void)
{
	if (!weft__shim_loop_running(weft__shim_cur))
		return 0;
	int burst = weft__shim_phase_begin(weft__shim_glib_dispatch);
	if (burst)
		weft_burst_end();
	return 1;
}

static void tramp_task(GObject *src, GAsyncResult *res, gpointer data)
{
	struct tx *t = data;
	dispatch_phase();
	RUN_AS(t->thread, t->cb(src, res, t->data));
}

GTask *g_task_new(gpointer src, GCancellable *c, GAsyncReadyCallback cb,
		  gpointer data)
{
	REAL(g_task_new);
	struct tx *t = INTERNAL() || !ON() ? NULL : calloc(1, sizeof *t);
	if (!t)
		return real_g_task_new(src, c, cb, data);
	SCOPE_INSIDE();
	t->cb = cb;
	t->data = data;
	t->cancellable = c;
	GTask *task = real_g_task_new(src, c, cb ? tramp_task : NULL,
				      cb ? (gpointer)t : data);
	if (!weft__shim_put_data(task, R_TASK, t)) {
		free(t); /* untraced: with no callback of ours */
		return task;
	}
	GL(g_object_weak_ref)((GObject *)task, task_gone, t);
	t->thread = t->id = weft__shim_new_id();
	weft_create(t->id, "GTask");
	weft__shim_label(t->id, (const void *)cb, "task");
	weft__shim_glib_cancellable_add(c, &t->id);
	return task;
}

/* The program's data for a task's result, not the shim's. */
gpointer g_async_result_get_user_data(GAsyncResult *res)
{
	REAL(g_async_result_get_user_data);
	struct tx *t = tx_of(res);
	return t && t->cb ? t->data : real_g_async_result_get_user_data(res);
}

#define RETURN(name, params, args, task)                                       \
	void name params                                                       \
	{                                                                      \
		REAL(name);                                                    \
		struct tx *t = INTERNAL() ? NULL : tx_of(task);                \
		if (t)                                                         \
			task_end(t, NULL);                                     \
		real_##name args;                                              \
	}
RETURN(g_task_return_pointer,
       (GTask * task, gpointer result, GDestroyNotify notify),
       (task, result, notify), task)
RETURN(g_task_return_boolean, (GTask * task, gboolean result), (task, result),
       task)
RETURN(g_task_return_int, (GTask * task, gssize result), (task, result), task)
RETURN(g_task_return_value, (GTask * task, GValue *result), (task, result),
       task)

void g_task_return_error(GTask *task, GError *error)
{
	REAL(g_task_return_error);
	struct tx *t = INTERNAL() ? NULL : tx_of(task);
	if (t)
		task_end(t, error ? error->message : "error");
	real_g_task_return_error(task, error);
}

/* As GLib does it: the error, then g_task_return_error. */
void g_task_return_new_error(GTask *task, GQuark domain, gint code,
			     const char *format, ...)
{
	REAL(g_task_return_error);
	va_list ap;
	va_start(ap, format);
	GError *error = GL(g_error_new_valist)(domain, code, format, ap);
	va_end(ap);
	struct tx *t = INTERNAL() ? NULL : tx_of(task);
	if (t)
		task_end(t, error->message);
	real_g_task_return_error(task, error);
}

gboolean g_task_return_error_if_cancelled(GTask *task)
{
	REAL(g_task_return_error_if_cancelled);
	gboolean r = real_g_task_return_error_if_cancelled(task);
	struct tx *t = r && !INTERNAL() ? tx_of(task) : NULL;
	if (t) /* (already cancelled by g_cancellable_cancel, usually) */
		task_end(t, "Operation was cancelled");
	return r;
}

/* The result is read: an arrow from the task to the reader. */
#define PROPAGATE(ret_t, name, params, args)                                   \
	ret_t name params                                                      \
	{                                                                      \
		REAL(name);                                                    \
		struct tx *t = INTERNAL() || !ON() ? NULL : tx_of(task);       \
		if (t)                                                         \
			weft_read(t->thread);                                  \
		return real_##name args;                                       \
	}
PROPAGATE(gpointer, g_task_propagate_pointer, (GTask * task, GError **error),
	  (task, error))
PROPAGATE(gboolean, g_task_propagate_boolean, (GTask * task, GError **error),
	  (task, error))
PROPAGATE(gssize, g_task_propagate_int, (GTask * task, GError **error),
	  (task, error))
PROPAGATE(gboolean, g_task_propagate_value,
	  (GTask * task, GValue *value, GError **error), (task, value, error))

/* The task's function runs on a worker thread, as the task. */
static void tramp_thread(GTask *task, gpointer src, gpointer task_data,
			 GCancellable *c)
{
	struct tx *t = tx_of(task);
	RUN_AS(t->thread, t->thread_func(task, src, task_data, c));
}

#define RUN_IN_THREAD(name)                                                    \
	void name(GTask *task, GTaskThreadFunc func)                           \
	{                                                                      \
		REAL(name);                                                    \
		struct tx *t = INTERNAL() || !func ? NULL : tx_of(task);       \
		if (t) {                                                       \
			t->thread_func = func;                                 \
			func = tramp_thread;                                   \
		}                                                              \
		real_##name(task, func);                                       \
	}
RUN_IN_THREAD(g_task_run_in_thread)
RUN_IN_THREAD(g_task_run_in_thread_sync)

/* ------------------------------------------------------ GIO's calls */

struct ax {
	GAsyncReadyCallback cb;
	gpointer data;
	GCancellable *cancellable;
	uint64_t thread; /* the call's thread */
	uint64_t id;	 /* the same while it has not ended (atomic) */
};

/* A result a traced call completed with, while its callback runs: its
 * *_finish call gives the error's message. */
static void finished(GAsyncResult *res, GError **error)
{
	struct shim_ent e;
	if (!res || !ON() || !weft__shim_get(res, R_ASYNC, &e, 0))
		return;
	struct ax *a = e.data;
	uint64_t id = __atomic_exchange_n(&a->id, 0, __ATOMIC_RELAXED);
	if (!id)
		return;
	if (error && *error)
		weft_fail(id, (*error)->message);
	else
		weft_resolve(id);
}

static void tramp_async(GObject *src, GAsyncResult *res, gpointer data)
{
	struct ax *a = data;
	int saved = errno;
	weft__shim_glib_cancellable_forget(a->cancellable, &a->id);
	GType task = GL(g_task_get_type)();
	int failed =
		res &&
		GL(g_type_check_instance_is_a)((GTypeInstance *)res, task) &&
		GL(g_task_had_error)((GTask *)res);
	uint64_t prev = weft__shim_cur;
	dispatch_phase();
	if (!failed) {
		/* resolved when it comes back */
		uint64_t id = __atomic_exchange_n(&a->id, 0, __ATOMIC_RELAXED);
		if (id && ON())
			weft__shim_deliver(id, NULL);
		else
			weft__shim_set_cur(a->thread);
	} else {
		/* failed with the message *_finish gives */
		weft__shim_set_cur(a->thread);
	}
	weft__shim_put_data(res, R_ASYNC, a);
	errno = saved;
	USER_CALL(a->cb(src, res, a->data));
	struct shim_ent e;
	weft__shim_get(res, R_ASYNC, &e, 1);
	uint64_t id = __atomic_exchange_n(&a->id, 0, __ATOMIC_RELAXED);
	if (id && ON()) /* its *_finish was not called, or not seen */
		weft_fail(id, "error");
	weft__shim_set_cur(prev);
	free(a);
}

/* A GIO call with a callback: (..., cancellable, callback, data) last. */
static struct ax *async_begin(GCancellable *c, GAsyncReadyCallback cb,
			      gpointer data)
{
	struct ax *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->cb = cb;
	a->data = data;
	a->cancellable = c;
	a->thread = a->id = weft__shim_new_id();
	weft_create(a->id, "GIO call");
	weft__shim_glib_cancellable_add(c, &a->id);
	return a;
}

#define ASYNC(name, params, before, ...)                                       \
	void name params                                                       \
	{                                                                      \
		REAL(name);                                                    \
		struct ax *a = INTERNAL() || !callback || !ON()                \
				       ? NULL                                  \
				       : async_begin(cancellable, callback,    \
						     user_data);               \
		if (!a) {                                                      \
			real_##name(ESC before, cancellable, callback,         \
				    user_data);                                \
			return;                                                \
		}                                                              \
		SCOPE_INSIDE();                                                \
		weft__shim_label(a->id, (const void *)callback, __VA_ARGS__);  \
		real_##name(ESC before, cancellable, tramp_async, a);          \
	}
#define ESC(...) __VA_ARGS__

/* Where a GFile is, for a label. */
static const char *path_of(GFile *f)
{
	const char *p = f ? GL(g_file_peek_path)(f) : NULL;
	return p ? p : "(not local)";
}

#define CB_PARAMS                                                              \
	GCancellable *cancellable, GAsyncReadyCallback callback,               \
		gpointer user_data

ASYNC(g_file_read_async, (GFile * file, int prio, CB_PARAMS), (file, prio),
      "read %s", path_of(file))
ASYNC(g_file_load_contents_async, (GFile * file, CB_PARAMS), (file), "load %s",
      path_of(file))
ASYNC(g_file_replace_contents_async,
      (GFile * file, const char *contents, gsize length, const char *etag,
       gboolean backup, GFileCreateFlags flags, CB_PARAMS),
      (file, contents, length, etag, backup, flags), "replace %s, %zu bytes",
      path_of(file), length)
ASYNC(g_file_query_info_async,
      (GFile * file, const char *attributes, GFileQueryInfoFlags flags,
       int prio, CB_PARAMS),
      (file, attributes, flags, prio), "query info %s", path_of(file))
ASYNC(g_file_delete_async, (GFile * file, int prio, CB_PARAMS), (file, prio),
      "delete %s", path_of(file))
ASYNC(g_file_create_async,
      (GFile * file, GFileCreateFlags flags, int prio, CB_PARAMS),
      (file, flags, prio), "create %s", path_of(file))
ASYNC(g_file_replace_async,
      (GFile * file, const char *etag, gboolean backup, GFileCreateFlags flags,
       int prio, CB_PARAMS),
      (file, etag, backup, flags, prio), "replace %s", path_of(file))
ASYNC(g_file_enumerate_children_async,
      (GFile * file, const char *attributes, GFileQueryInfoFlags flags,
       int prio, CB_PARAMS),
      (file, attributes, flags, prio), "enumerate %s", path_of(file))
ASYNC(g_input_stream_read_async,
      (GInputStream * stream, void *buffer, gsize count, int prio, CB_PARAMS),
      (stream, buffer, count, prio), "read %zu bytes", count)
ASYNC(g_input_stream_read_all_async,
      (GInputStream * stream, void *buffer, gsize count, int prio, CB_PARAMS),
      (stream, buffer, count, prio), "read all %zu bytes", count)
ASYNC(g_input_stream_read_bytes_async,
      (GInputStream * stream, gsize count, int prio, CB_PARAMS),
      (stream, count, prio), "read %zu bytes", count)
ASYNC(g_input_stream_close_async, (GInputStream * stream, int prio, CB_PARAMS),
      (stream, prio), "close input stream")
ASYNC(g_output_stream_write_async,
      (GOutputStream * stream, const void *buffer, gsize count, int prio,
       CB_PARAMS),
      (stream, buffer, count, prio), "write %zu bytes", count)
ASYNC(g_output_stream_write_all_async,
      (GOutputStream * stream, const void *buffer, gsize count, int prio,
       CB_PARAMS),
      (stream, buffer, count, prio), "write all %zu bytes", count)
ASYNC(g_output_stream_close_async,
      (GOutputStream * stream, int prio, CB_PARAMS), (stream, prio),
      "close output stream")
ASYNC(g_io_stream_close_async, (GIOStream * stream, int prio, CB_PARAMS),
      (stream, prio), "close stream")
ASYNC(g_socket_client_connect_to_host_async,
      (GSocketClient * client, const char *host, guint16 port, CB_PARAMS),
      (client, host, port), "connect to %s", host ? host : "?")
ASYNC(g_socket_client_connect_async,
      (GSocketClient * client, GSocketConnectable *to, CB_PARAMS), (client, to),
      "connect")
ASYNC(g_socket_listener_accept_async, (GSocketListener * listener, CB_PARAMS),
      (listener), "accept")
ASYNC(g_resolver_lookup_by_name_async,
      (GResolver * resolver, const char *host, CB_PARAMS), (resolver, host),
      "resolve %s", host ? host : "?")
ASYNC(g_dbus_connection_call,
      (GDBusConnection * conn, const char *bus, const char *path,
       const char *iface, const char *method, GVariant *params,
       const GVariantType *reply, GDBusCallFlags flags, int timeout, CB_PARAMS),
      (conn, bus, path, iface, method, params, reply, flags, timeout),
      "dbus call %s.%s", iface ? iface : "?", method ? method : "?")
ASYNC(g_dbus_proxy_call,
      (GDBusProxy * proxy, const char *method, GVariant *params,
       GDBusCallFlags flags, int timeout, CB_PARAMS),
      (proxy, method, params, flags, timeout), "dbus call %s",
      method ? method : "?")
ASYNC(g_subprocess_wait_async, (GSubprocess * p, CB_PARAMS), (p),
      "wait for subprocess")

/* Their *_finish calls: the error's message fails the call. */
#define FINISH(ret_t, name, params, args)                                      \
	ret_t name params                                                      \
	{                                                                      \
		REAL(name);                                                    \
		GError *mine_ = NULL, **user_ = error;                         \
		int track_ = !INTERNAL() && ON();                              \
		if (track_ && !error)                                          \
			error = &mine_;                                        \
		ret_t r_ = real_##name args;                                   \
		if (track_)                                                    \
			finished(res, error);                                  \
		if (mine_)                                                     \
			GL(g_error_free)(mine_);                               \
		error = user_;                                                 \
		return r_;                                                     \
	}
FINISH(GFileInputStream *, g_file_read_finish,
       (GFile * f, GAsyncResult *res, GError **error), (f, res, error))
FINISH(gboolean, g_file_load_contents_finish,
       (GFile * f, GAsyncResult *res, char **contents, gsize *length,
	char **etag, GError **error),
       (f, res, contents, length, etag, error))
FINISH(gboolean, g_file_replace_contents_finish,
       (GFile * f, GAsyncResult *res, char **new_etag, GError **error),
       (f, res, new_etag, error))
FINISH(GFileInfo *, g_file_query_info_finish,
       (GFile * f, GAsyncResult *res, GError **error), (f, res, error))
FINISH(gboolean, g_file_delete_finish,
       (GFile * f, GAsyncResult *res, GError **error), (f, res, error))
FINISH(GFileOutputStream *, g_file_create_finish,
       (GFile * f, GAsyncResult *res, GError **error), (f, res, error))
FINISH(GFileOutputStream *, g_file_replace_finish,
       (GFile * f, GAsyncResult *res, GError **error), (f, res, error))
FINISH(GFileEnumerator *, g_file_enumerate_children_finish,
       (GFile * f, GAsyncResult *res, GError **error), (f, res, error))
FINISH(gssize, g_input_stream_read_finish,
       (GInputStream * s, GAsyncResult *res, GError **error), (s, res, error))
FINISH(gboolean, g_input_stream_read_all_finish,
       (GInputStream * s, GAsyncResult *res, gsize *bytes_read, GError **error),
       (s, res, bytes_read, error))
FINISH(GBytes *, g_input_stream_read_bytes_finish,
       (GInputStream * s, GAsyncResult *res, GError **error), (s, res, error))
FINISH(gboolean, g_input_stream_close_finish,
       (GInputStream * s, GAsyncResult *res, GError **error), (s, res, error))
FINISH(gssize, g_output_stream_write_finish,
       (GOutputStream * s, GAsyncResult *res, GError **error), (s, res, error))
FINISH(gboolean, g_output_stream_write_all_finish,
       (GOutputStream * s, GAsyncResult *res, gsize *bytes_written,
	GError **error),
       (s, res, bytes_written, error))
FINISH(gboolean, g_output_stream_close_finish,
       (GOutputStream * s, GAsyncResult *res, GError **error), (s, res, error))
FINISH(gboolean, g_io_stream_close_finish,
       (GIOStream * s, GAsyncResult *res, GError **error), (s, res, error))
FINISH(GSocketConnection *, g_socket_client_connect_to_host_finish,
       (GSocketClient * c, GAsyncResult *res, GError **error), (c, res, error))
FINISH(GSocketConnection *, g_socket_client_connect_finish,
       (GSocketClient * c, GAsyncResult *res, GError **error), (c, res, error))
FINISH(GSocketConnection *, g_socket_listener_accept_finish,
       (GSocketListener * l, GAsyncResult *res, GObject **source_object,
	GError **error),
       (l, res, source_object, error))
FINISH(GList *, g_resolver_lookup_by_name_finish,
       (GResolver * r, GAsyncResult *res, GError **error), (r, res, error))
FINISH(GVariant *, g_dbus_connection_call_finish,
       (GDBusConnection * c, GAsyncResult *res, GError **error),
       (c, res, error))
FINISH(GVariant *, g_dbus_proxy_call_finish,
       (GDBusProxy * p, GAsyncResult *res, GError **error), (p, res, error))
FINISH(gboolean, g_subprocess_wait_finish,
       (GSubprocess * p, GAsyncResult *res, GError **error), (p, res, error))
