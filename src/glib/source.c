/* SPDX-License-Identifier: MIT */
/*
 * source.c - GLib sources as async threads.  Each dispatch of a source
 * is a thread: created when the source is added (g_idle_add,
 * g_timeout_add, g_io_add_watch, g_child_watch_add, g_unix_fd_add,
 * g_unix_signal_add and their _full and _seconds forms, or
 * g_source_attach of a source whose callback the program set), resolved
 * when the context dispatches it (its callback runs as it); when the
 * callback keeps the source, the next dispatch is created by it.
 * g_source_remove and g_source_destroy cancel the pending one.
 *
 * The shim wraps the source's dispatch function, not its callback: the
 * source's GSourceFuncs is swapped for a copy whose dispatch and finalize
 * are the shim's, so that the callback and its data stay as the program
 * set them (g_source_remove_by_user_data...).  Sources with closures
 * (g_source_set_closure: GLib marshals them by their funcs) are not
 * traced.
 * The sources GLib adds for the program are made here with the same
 * public calls GLib makes (a source, its priority, its callback, attach),
 * so that the copy is in place before the source can run.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "glib-shim.h"

/* ------------------------------------------------ a traced source */

/* What the shim keeps of a traced source: a copy of its GSourceFuncs
 * whose dispatch and finalize are the shim's, first, so that the source's
 * funcs pointer leads to it with no look-up; freed when GLib finalizes
 * the source (GLib reads a source's funcs for the last time to call its
 * finalize).  A few are kept per OS thread for the next sources. */
struct sx {
	GSourceFuncs funcs;
	const GSourceFuncs *orig;
	uint64_t id; /* the pending dispatch (atomic); 0: none */
	const char *label, *kind;
	struct sx *next; /* in the free list */
};

static gboolean dispatch_wrap(GSource *s, GSourceFunc cb, gpointer data);
static void finalize_wrap(GSource *s);

#define SPARE 64
static __thread struct sx *spare;
static __thread int nspare;

static struct sx *sx_of(const GSource *s)
{
	return s && s->source_funcs &&
			       s->source_funcs->dispatch == dispatch_wrap
		       ? (struct sx *)(void *)s->source_funcs
		       : NULL;
}

/* GLib's own callback functions for a plain g_source_set_callback: the
 * shim traces only sources with such callbacks (a closure's marshalling
 * compares the source's funcs with GLib's). */
static GSourceCallbackFuncs *plain; /* (release-stored once found) */
static pthread_once_t plain_once = PTHREAD_ONCE_INIT;

static gboolean nothing(gpointer data)
{
	(void)data;
	return FALSE;
}

static void find_plain(void)
{
	GSource *s = GL(g_idle_source_new)();
	GL(g_source_set_callback)(s, nothing, NULL, NULL);
	__atomic_store_n(&plain, s->callback_funcs, __ATOMIC_RELEASE);
	GL(g_source_unref)(s);
}

/* ------------------------------------------------------ activations */

/* A program adds the same sources over and over ("idle -> ping"): each
 * OS thread keeps the labels of the last few in front of the shim's
 * label cache, found with one hash and one comparison per part. */
#define MEMO 8 /* a power of two */
static __thread struct {
	const char *p1, *p2; /* string constants: compared by address */
	long long n1;
	const void *cb;
	const char *label; /* from weft__shim_cached_label: never NULL */
} memo[MEMO];

static const char *__attribute__((noinline))
label_made(struct shim_lb *b, unsigned i, const char *p1, long long n1,
	   const char *p2, const void *cb)
{
	const char *label = weft__shim_cached_label(b, p1, n1, p2, NO_NUM, cb);
	if (label) {
		memo[i].cb = cb;
		memo[i].p1 = p1;
		memo[i].n1 = n1;
		memo[i].p2 = p2;
		memo[i].label = label;
	}
	return label;
}

static inline __attribute__((always_inline)) const char *
label_of(struct shim_lb *b, const char *p1, long long n1, const char *p2,
	 const void *cb)
{
	unsigned i = (unsigned)(((uintptr_t)cb >> 4) ^ ((uintptr_t)p1 >> 3) ^
				(unsigned long long)n1) &
		     (MEMO - 1);
	if (__builtin_expect(memo[i].cb == cb && memo[i].p1 == p1 &&
				     memo[i].n1 == n1 && memo[i].p2 == p2,
			     1))
		return memo[i].label;
	return label_made(b, i, p1, n1, p2, cb);
}

/* Traces source s, not yet attached: its first dispatch is created by
 * the current thread, labelled "P1 N1 P2 -> cb".  `fresh`: the shim just
 * made s and gave it its callback (not traced yet, plain callback). */
static inline __attribute__((always_inline)) void
install(GSource *s, int fresh, const char *kind, const char *p1, long long n1,
	const char *p2, const void *cb)
{
	if (!ON() || (!fresh && sx_of(s)))
		return;
	if (!fresh) {
		if (!__atomic_load_n(&plain, __ATOMIC_ACQUIRE))
			pthread_once(&plain_once, find_plain);
		if (s->callback_funcs != plain)
			return;
	}
	struct sx *x = spare;
	if (x) {
		spare = x->next;
		nspare--;
	} else if (!(x = malloc(sizeof *x))) {
		return;
	}
	x->funcs = *s->source_funcs;
	x->funcs.dispatch = dispatch_wrap;
	x->funcs.finalize = finalize_wrap;
	x->orig = s->source_funcs;
	x->kind = kind;
	struct shim_lb b;
	x->label = label_of(&b, p1, n1, p2, cb);
	x->id = weft__shim_new_id();
	weft__shim_create_labelled(x->id, kind, x->label, &b);
	s->source_funcs = &x->funcs;
}

static gboolean dispatch_wrap(GSource *s, GSourceFunc cb, gpointer data)
{
	struct sx *x = (struct sx *)(void *)s->source_funcs; /* ours */
	uint64_t id = __atomic_exchange_n(&x->id, 0, __ATOMIC_RELAXED);
	if (!id || !ON())
		return x->orig->dispatch(s, cb, data);
	int saved = errno;
	uint64_t prev = weft__shim_cur;
	int burst = weft__shim_phase_begin(weft__shim_glib_dispatch);
	weft__shim_deliver(id, NULL);
	if (burst)
		weft_burst_end();
	errno = saved;
	gboolean keep;
	USER_CALL(keep = x->orig->dispatch(s, cb, data));
	saved = errno;
	/* Kept: the next dispatch, created by this one (still current). */
	if (keep && ON() && !GL(g_source_is_destroyed)(s)) {
		struct shim_lb b; /* (if the arena was full: the kind) */
		weft__shim_lb_init(&b);
		weft__shim_lb_str(&b, x->kind);
		uint64_t next = weft__shim_new_id();
		weft__shim_create_labelled(next, x->kind, x->label, &b);
		__atomic_store_n(&x->id, next, __ATOMIC_RELAXED);
	}
	weft__shim_set_cur(prev);
	errno = saved;
	return keep;
}

static void finalize_wrap(GSource *s)
{
	struct sx *x = (struct sx *)(void *)s->source_funcs; /* ours */
	/* (mostly dispatched already: nothing pending, no exchange) */
	uint64_t id = __atomic_load_n(&x->id, __ATOMIC_RELAXED)
			      ? __atomic_exchange_n(&x->id, 0, __ATOMIC_RELAXED)
			      : 0;
	if (id && ON())
		weft_cancel(id); /* its context went, or it was destroyed */
	if (x->orig->finalize)
		x->orig->finalize(s);
	if (nspare < SPARE) {
		x->next = spare;
		spare = x;
		nspare++;
	} else {
		free(x);
	}
}

/* Removed: the pending dispatch is cancelled. */
static void cancel(GSource *s)
{
	struct sx *x = sx_of(s);
	uint64_t id = x ? __atomic_exchange_n(&x->id, 0, __ATOMIC_RELAXED) : 0;
	if (id && ON())
		weft_cancel(id);
}

gboolean g_source_remove(guint tag)
{
	REAL(g_source_remove);
	if (!INTERNAL() && ON())
		cancel(GL(g_main_context_find_source_by_id)(NULL, tag));
	return real_g_source_remove(tag);
}

void g_source_destroy(GSource *s)
{
	REAL(g_source_destroy);
	if (!INTERNAL() && ON())
		cancel(s);
	real_g_source_destroy(s);
}

/* ------------------------------------------------ what the program adds */

/* Attaches s as GLib's g_*_add_full does, traced. */
static inline __attribute__((always_inline)) guint
add(GSource *s, gint prio, gint def, GSourceFunc f, gpointer d,
    GDestroyNotify notify, const char *kind, const char *p1, long long n1,
    const char *p2)
{
	REAL(g_source_attach);
	if (prio != def)
		GL(g_source_set_priority)(s, prio);
	GL(g_source_set_callback)(s, f, d, notify);
	install(s, 1, kind, p1, n1, p2, (const void *)f);
	guint id = real_g_source_attach(s, NULL);
	GL(g_source_unref)(s);
	return id;
}

/* Whether an add is traced: the program's, with a callback (GLib's
 * g_return_val_if_fail complains of a NULL one as it would). */
#define TRACED(f) (!INTERNAL() && ON() && (f))

guint g_idle_add_full(gint prio, GSourceFunc f, gpointer d,
		      GDestroyNotify notify)
{
	REAL(g_idle_add_full);
	if (!TRACED(f))
		return real_g_idle_add_full(prio, f, d, notify);
	SCOPE_INSIDE();
	return add(GL(g_idle_source_new)(), prio, G_PRIORITY_DEFAULT_IDLE, f, d,
		   notify, "GSource idle", "idle", NO_NUM, NULL);
}

guint g_idle_add(GSourceFunc f, gpointer d)
{
	REAL(g_idle_add);
	if (!TRACED(f))
		return real_g_idle_add(f, d);
	SCOPE_INSIDE();
	return add(GL(g_idle_source_new)(), G_PRIORITY_DEFAULT_IDLE,
		   G_PRIORITY_DEFAULT_IDLE, f, d, NULL, "GSource idle", "idle",
		   NO_NUM, NULL);
}

guint g_timeout_add_full(gint prio, guint ms, GSourceFunc f, gpointer d,
			 GDestroyNotify notify)
{
	REAL(g_timeout_add_full);
	if (!TRACED(f))
		return real_g_timeout_add_full(prio, ms, f, d, notify);
	SCOPE_INSIDE();
	return add(GL(g_timeout_source_new)(ms), prio, G_PRIORITY_DEFAULT, f, d,
		   notify, "GSource timeout", "timeout ", ms, " ms");
}

guint g_timeout_add(guint ms, GSourceFunc f, gpointer d)
{
	REAL(g_timeout_add);
	if (!TRACED(f))
		return real_g_timeout_add(ms, f, d);
	SCOPE_INSIDE();
	return add(GL(g_timeout_source_new)(ms), G_PRIORITY_DEFAULT,
		   G_PRIORITY_DEFAULT, f, d, NULL, "GSource timeout",
		   "timeout ", ms, " ms");
}

guint g_timeout_add_seconds_full(gint prio, guint s, GSourceFunc f, gpointer d,
				 GDestroyNotify notify)
{
	REAL(g_timeout_add_seconds_full);
	if (!TRACED(f))
		return real_g_timeout_add_seconds_full(prio, s, f, d, notify);
	SCOPE_INSIDE();
	return add(GL(g_timeout_source_new_seconds)(s), prio,
		   G_PRIORITY_DEFAULT, f, d, notify, "GSource timeout",
		   "timeout ", s, " s");
}

guint g_timeout_add_seconds(guint s, GSourceFunc f, gpointer d)
{
	REAL(g_timeout_add_seconds);
	if (!TRACED(f))
		return real_g_timeout_add_seconds(s, f, d);
	SCOPE_INSIDE();
	return add(GL(g_timeout_source_new_seconds)(s), G_PRIORITY_DEFAULT,
		   G_PRIORITY_DEFAULT, f, d, NULL, "GSource timeout",
		   "timeout ", s, " s");
}

guint g_io_add_watch_full(GIOChannel *ch, gint prio, GIOCondition cond,
			  GIOFunc f, gpointer d, GDestroyNotify notify)
{
	REAL(g_io_add_watch_full);
	if (!TRACED(f))
		return real_g_io_add_watch_full(ch, prio, cond, f, d, notify);
	SCOPE_INSIDE();
	int fd = GL(g_io_channel_unix_get_fd)(ch);
	weft__shim_fd_watch(fd);
	return add(GL(g_io_create_watch)(ch, cond), prio, G_PRIORITY_DEFAULT,
		   (GSourceFunc)(void (*)(void))f, d, notify, "GSource io",
		   "io fd ", fd, NULL);
}

guint g_io_add_watch(GIOChannel *ch, GIOCondition cond, GIOFunc f, gpointer d)
{
	REAL(g_io_add_watch);
	if (!TRACED(f))
		return real_g_io_add_watch(ch, cond, f, d);
	return g_io_add_watch_full(ch, G_PRIORITY_DEFAULT, cond, f, d, NULL);
}

guint g_child_watch_add_full(gint prio, GPid pid, GChildWatchFunc f, gpointer d,
			     GDestroyNotify notify)
{
	REAL(g_child_watch_add_full);
	if (!TRACED(f))
		return real_g_child_watch_add_full(prio, pid, f, d, notify);
	SCOPE_INSIDE();
	return add(GL(g_child_watch_source_new)(pid), prio, G_PRIORITY_DEFAULT,
		   (GSourceFunc)(void (*)(void))f, d, notify, "GSource child",
		   "child pid ", pid, NULL);
}

guint g_child_watch_add(GPid pid, GChildWatchFunc f, gpointer d)
{
	REAL(g_child_watch_add);
	if (!TRACED(f))
		return real_g_child_watch_add(pid, f, d);
	return g_child_watch_add_full(G_PRIORITY_DEFAULT, pid, f, d, NULL);
}

guint g_unix_fd_add_full(gint prio, gint fd, GIOCondition cond,
			 GUnixFDSourceFunc f, gpointer d, GDestroyNotify notify)
{
	REAL(g_unix_fd_add_full);
	if (!TRACED(f))
		return real_g_unix_fd_add_full(prio, fd, cond, f, d, notify);
	SCOPE_INSIDE();
	weft__shim_fd_watch(fd);
	return add(GL(g_unix_fd_source_new)(fd, cond), prio, G_PRIORITY_DEFAULT,
		   (GSourceFunc)(void (*)(void))f, d, notify, "GSource unix fd",
		   "fd ", fd, NULL);
}

guint g_unix_fd_add(gint fd, GIOCondition cond, GUnixFDSourceFunc f, gpointer d)
{
	REAL(g_unix_fd_add);
	if (!TRACED(f))
		return real_g_unix_fd_add(fd, cond, f, d);
	return g_unix_fd_add_full(G_PRIORITY_DEFAULT, fd, cond, f, d, NULL);
}

guint g_unix_signal_add_full(gint prio, gint sig, GSourceFunc f, gpointer d,
			     GDestroyNotify notify)
{
	REAL(g_unix_signal_add_full);
	if (!TRACED(f))
		return real_g_unix_signal_add_full(prio, sig, f, d, notify);
	SCOPE_INSIDE();
	return add(GL(g_unix_signal_source_new)(sig), prio, G_PRIORITY_DEFAULT,
		   f, d, notify, "GSource signal", "signal ", sig, NULL);
}

guint g_unix_signal_add(gint sig, GSourceFunc f, gpointer d)
{
	REAL(g_unix_signal_add);
	if (!TRACED(f))
		return real_g_unix_signal_add(sig, f, d);
	return g_unix_signal_add_full(G_PRIORITY_DEFAULT, sig, f, d, NULL);
}

/* A source the program made and gave a callback: traced when it attaches
 * it, named by its name ("source NAME -> cb"). */
void g_source_set_callback(GSource *s, GSourceFunc f, gpointer d,
			   GDestroyNotify notify)
{
	REAL(g_source_set_callback);
	if (!INTERNAL() && ON() && f)
		weft__shim_put(s, R_CALLBACK, 0, (void (*)(void))f, NULL, NULL);
	real_g_source_set_callback(s, f, d, notify);
}

guint g_source_attach(GSource *s, GMainContext *ctx)
{
	REAL(g_source_attach);
	struct shim_ent e;
	if (!INTERNAL() && ON() && weft__shim_get(s, R_CALLBACK, &e, 1)) {
		const char *name = GL(g_source_get_name)(s);
		install(s, 0, "GSource", "source ", NO_NUM,
			name ? name : "(unnamed)", (const void *)e.cb);
	}
	return real_g_source_attach(s, ctx);
}

/* ------------------------------------- finding sources by their funcs */

/* GLib finds sources by their GSourceFuncs: a traced one has its copy,
 * found by its data and then its original funcs. */
GSource *g_main_context_find_source_by_funcs_user_data(GMainContext *ctx,
						       GSourceFuncs *funcs,
						       gpointer d)
{
	REAL(g_main_context_find_source_by_funcs_user_data);
	GSource *s = real_g_main_context_find_source_by_funcs_user_data(
		ctx, funcs, d);
	if (!s) {
		GSource *o =
			GL(g_main_context_find_source_by_user_data)(ctx, d);
		struct sx *x = sx_of(o);
		if (x && x->orig == funcs)
			s = o;
	}
	return s;
}

gboolean g_source_remove_by_funcs_user_data(GSourceFuncs *funcs, gpointer d)
{
	GSource *s =
		g_main_context_find_source_by_funcs_user_data(NULL, funcs, d);
	if (!s)
		return FALSE;
	if (ON())
		cancel(s);
	GL(g_source_destroy)(s);
	return TRUE;
}

/* GLib's idle funcs, as the idle sources the shim makes have them. */
gboolean g_idle_remove_by_data(gpointer d)
{
	REAL(g_idle_remove_by_data);
	GSource *probe = GL(g_idle_source_new)();
	const GSourceFuncs *idle = probe->source_funcs;
	GL(g_source_unref)(probe);
	if (g_source_remove_by_funcs_user_data((GSourceFuncs *)idle, d))
		return TRUE;
	return real_g_idle_remove_by_data(d);
}

gboolean g_source_remove_by_user_data(gpointer d)
{
	REAL(g_source_remove_by_user_data);
	if (!INTERNAL() && ON())
		cancel(GL(g_main_context_find_source_by_user_data)(NULL, d));
	return real_g_source_remove_by_user_data(d);
}
