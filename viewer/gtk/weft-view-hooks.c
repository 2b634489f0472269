/* SPDX-License-Identifier: MIT */
/*
 * weft-view-hooks.c - the GTK viewer's test hooks, apart from the
 * product (weft-view.c).  They are linked into the shipped weft-view,
 * since the tests drive the program `weft view` runs, and do nothing
 * unless their environment variables are set.  WEFT_VIEW_SEARCH=text
 * searches at start; WEFT_VIEW_SCREENSHOT=out.png saves the first
 * frame(s) after WEFT_VIEW_DELAY_MS (default 300) and quits;
 * WEFT_VIEW_EVENTS=FILE replays smooth scrolls, touches and keys
 * (replay_line()); WEFT_VIEW_ECHO=1 says on stderr what each action did
 * ("select: TITLE", "chain: N threads", "inspect: TITLE, N entries",
 * "go: TITLE", "connected: on, N rows", "counter NAME: off", "process:
 * NAME (pid P) collapsed, N rows", "measure: T0 T1 DURATION", "path: N
 * threads, TEXT", "help-head: keys" and "help-line: NAMES|TEXT" for the
 * help's lines), the canvas's size when it changes ("canvas: W H") and
 * where the controls are ("button counters at X Y W H", "entry K at X Y
 * W H: TITLE" for the inspector's first entries that name a thread,
 * "check NAME at ..." when the counters menu opens, "header PID at X Y"
 * for a run's processes: a point of its band), and the inspector's times
 * ("inspector times: N, B breakable, K cut; entries: N, B breakable");
 * the query bar's: "query bar: open", "query: N rows, M threads
 * highlighted" or "query: SQL error at character K: ...", "qrow K at X
 * Y W H: TEXT" for its first rows that name a thread.  The product's
 * files call echo() where they act; the rest is here.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"
#include "weft-view.h"
#include "weft/model.h"

void echo(struct app *a, const char *fmt, ...)
{
	if (!a->echo)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

int view_hooks_echo(void)
{
	return getenv("WEFT_VIEW_ECHO") != NULL;
}

/* For tests: where a widget is in the window ("NAME at X Y W H"). */
void echo_place(struct app *a, GtkWidget *w, const char *name)
{
	int x, y;
	if (!a->echo ||
	    !gtk_widget_translate_coordinates(w, a->win, 0, 0, &x, &y))
		return;
	echo(a, "%s at %d %d %d %d", name, x, y,
	     gtk_widget_get_allocated_width(w),
	     gtk_widget_get_allocated_height(w));
}

/* Of the times in text: how many, how many hold a space a line may
 * break at (a plain one), and, laid out by l (or NULL), how many a line
 * break cuts. */
static void count_times(const char *text, PangoLayout *l, int *n,
			int *breakable, int *cut)
{
	GRegex *re = time_re();
	GMatchInfo *mi = NULL;
	if (re && g_regex_match(re, text, 0, &mi)) {
		while (g_match_info_matches(mi)) {
			int from, to, l0 = 0, l1 = 0;
			g_match_info_fetch_pos(mi, 0, &from, &to);
			if (l) {
				pango_layout_index_to_line_x(l, from, FALSE,
							     &l0, NULL);
				pango_layout_index_to_line_x(l, to - 1, FALSE,
							     &l1, NULL);
			}
			(*n)++;
			*cut += l0 != l1;
			*breakable += memchr(text + from, ' ',
					     (size_t)(to - from)) != NULL;
			g_match_info_next(mi, NULL);
		}
	}
	g_match_info_free(mi);
}

/* For tests: the times of the inspector's head as it is laid out, and
 * of its entries ("inspector times: N, B breakable, K cut; entries: N,
 * B breakable"). */
static void echo_times(struct app *a)
{
	PangoLayout *l = gtk_label_get_layout(GTK_LABEL(a->inspector));
	int n = 0, b = 0, cut = 0, en = 0, eb = 0, ecut = 0;
	count_times(pango_layout_get_text(l), l, &n, &b, &cut);
	GtkTreeModel *tm = GTK_TREE_MODEL(a->store);
	GtkTreeIter it;
	for (gboolean ok = gtk_tree_model_get_iter_first(tm, &it); ok;
	     ok = gtk_tree_model_iter_next(tm, &it)) {
		gchar *text = NULL;
		gtk_tree_model_get(tm, &it, E_TEXT, &text, -1);
		if (text)
			count_times(text, NULL, &en, &eb, &ecut);
		g_free(text);
	}
	echo(a,
	     "inspector times: %d, %d breakable, %d cut; entries: %d, %d "
	     "breakable",
	     n, b, cut, en, eb);
}

/* For tests: where the inspector's first entries that name a thread
 * are in the window ("entry K at X Y W H: TITLE"), and the canvas's
 * size when it changes ("canvas: W H"); the inspector's times
 * (echo_times). */
gboolean echo_entries(gpointer data)
{
	struct app *a = data;
	echo_times(a);
	GtkTreeView *tv = GTK_TREE_VIEW(a->entries);
	GtkTreeModel *tm = GTK_TREE_MODEL(a->store);
	GtkTreeIter it;
	char title[256];
	int k = 0, shown = 0;
	for (gboolean ok = gtk_tree_model_get_iter_first(tm, &it);
	     ok && shown < 20; ok = gtk_tree_model_iter_next(tm, &it), k++) {
		guint t;
		gtk_tree_model_get(tm, &it, E_THREAD, &t, -1);
		if (t == WEFT_NONE)
			continue;
		GtkTreePath *path = gtk_tree_model_get_path(tm, &it);
		GdkRectangle r;
		int x, y;
		gtk_tree_view_get_cell_area(tv, path, NULL, &r);
		gtk_tree_path_free(path);
		gtk_tree_view_convert_bin_window_to_widget_coords(tv, r.x, r.y,
								  &x, &y);
		if (r.height <= 0 || !gtk_widget_translate_coordinates(
					     a->entries, a->win, x, y, &x, &y))
			continue;
		echo(a, "entry %d at %d %d %d %d: %s", k, x, y,
		     gtk_widget_get_allocated_width(a->entries), r.height,
		     weft_model_title(a->m, t, title, sizeof title));
		shown++;
	}
	return FALSE;
}

void on_area_size(GtkWidget *w, GdkRectangle *r, gpointer data)
{
	struct app *a = data;
	static int was_w = -1, was_h = -1;
	(void)w;
	if (r->width != was_w || r->height != was_h)
		echo(a, "canvas: %d %d", r->width, r->height);
	was_w = r->width;
	was_h = r->height;
}

static gboolean echo_checks(gpointer data)
{
	struct app *a = data;
	GList *kids = gtk_container_get_children(GTK_CONTAINER(a->counter_box));
	for (GList *l = kids; l; l = l->next) {
		char name[300];
		snprintf(name, sizeof name, "check %s",
			 gtk_button_get_label(GTK_BUTTON(l->data)));
		echo_place(a, l->data, name);
	}
	g_list_free(kids);
	return FALSE;
}

void on_popover_shown(GtkWidget *pop, gpointer data)
{
	(void)pop;
	if (((struct app *)data)->echo)
		g_timeout_add(200, echo_checks, data); /* once laid out */
}

static gboolean on_mapped(gpointer data)
{
	struct app *a = data;
	echo_place(a, a->counters, "button counters");
	echo_place(a, a->png, "button PNG");
	echo_place(a, a->connected, "button connected");
	echo_place(a, a->depth, "combo depth");
	if (a->slowest)
		echo_place(a, a->slowest, "button slowest");
	echo_place(a, a->keysb, "button ?");
	/* a run's processes: where each header is */
	uint32_t np;
	const struct weft_model_process *pr = weft_model_processes(a->m, &np);
	for (uint32_t k = 0; a->echo && k < np; k++) {
		double y = weft_view_row_y(a->v, weft_view_header_row(a->v, k),
					   NULL);
		double x = weft_view_header_x(a->v, k);
		int wx, wy;
		if (y >= 0 && x >= 0 &&
		    gtk_widget_translate_coordinates(a->area, a->win, (int)x,
						     (int)y, &wx, &wy))
			echo(a, "header %u at %d %d", pr[k].pid, wx, wy);
	}
	return FALSE;
}

static gboolean on_screenshot(gpointer data)
{
	struct app *a = data;
	const char *out = getenv("WEFT_VIEW_SCREENSHOT");
	int ok = save(a, out);
	gtk_main_quit();
	if (!ok)
		exit(1);
	return FALSE;
}

/* For tests: WEFT_VIEW_EVENTS=FILE replays input no X server can fake
 * (XTest has no touch screen and no trackpad's smooth deltas): GdkEvents
 * made here go through gtk_main_do_event() to the real handlers, one
 * line each:
 *   scroll X Y DX DY        a smooth scroll (GDK_SCROLL_SMOOTH) at (X, Y)
 *   touch begin|update|end ID X Y   finger ID (1, 2...) at (X, Y)
 *   key NAME                a key press (a GDK key name: f, Escape)
 *   say TEXT                echoes "say TEXT: range T0 T1, focus F"
 * (X, Y in the picture's pixels).  Lines it cannot read are said on
 * stderr and skipped. */
static void replay_line(struct app *a, const char *l)
{
	GdkWindow *win = gtk_widget_get_window(a->area);
	GdkSeat *seat = gdk_display_get_default_seat(gdk_display_get_default());
	GdkEvent *ev = NULL;
	char what[16], name[64];
	double x, y, dx, dy;
	unsigned id;
	if (sscanf(l, "scroll %lf %lf %lf %lf", &x, &y, &dx, &dy) == 4) {
		ev = gdk_event_new(GDK_SCROLL);
		ev->scroll.direction = GDK_SCROLL_SMOOTH;
		ev->scroll.x = x;
		ev->scroll.y = y;
		ev->scroll.delta_x = dx;
		ev->scroll.delta_y = dy;
		gdk_event_set_device(ev, gdk_seat_get_pointer(seat));
	} else if (sscanf(l, "touch %15s %u %lf %lf", what, &id, &x, &y) == 4) {
		GdkEventType t = !strcmp(what, "begin")	   ? GDK_TOUCH_BEGIN
				 : !strcmp(what, "update") ? GDK_TOUCH_UPDATE
							   : GDK_TOUCH_END;
		ev = gdk_event_new(t);
		/* (a sequence is an opaque pointer: any one a finger keeps) */
		ev->touch.sequence = (GdkEventSequence *)(uintptr_t)(id + 1);
		ev->touch.x = x;
		ev->touch.y = y;
		ev->touch.emulating_pointer = id == 1;
		gdk_event_set_device(ev, gdk_seat_get_pointer(seat));
	} else if (sscanf(l, "key %63s", name) == 1) {
		ev = gdk_event_new(GDK_KEY_PRESS);
		ev->key.keyval = gdk_keyval_from_name(name);
		win = gtk_widget_get_window(a->win);
		gdk_event_set_device(ev, gdk_seat_get_keyboard(seat));
	} else if (!strncmp(l, "say ", 4)) {
		int64_t t0, t1;
		weft_view_range(a->v, &t0, &t1);
		echo(a, "say %.*s: range %lld %lld, focus %d",
		     (int)strcspn(l + 4, "\n"), l + 4, (long long)t0,
		     (long long)t1, weft_view_focus(a->v));
		return;
	} else {
		if (l[strspn(l, " \t\n")] && l[0] != '#')
			fprintf(stderr,
				"weft: WEFT_VIEW_EVENTS: cannot read %s", l);
		return;
	}
	ev->any.window = g_object_ref(win);
	ev->any.send_event = TRUE;
	gtk_main_do_event(ev);
	gdk_event_free(ev);
}

static gboolean on_replay(gpointer data)
{
	struct app *a = data;
	FILE *f = fopen(getenv("WEFT_VIEW_EVENTS"), "r");
	if (!f) {
		fprintf(stderr, "weft: cannot open WEFT_VIEW_EVENTS\n");
		return FALSE;
	}
	/* the picture's size, as the handlers see it once drawn */
	a->w = gtk_widget_get_allocated_width(a->area);
	a->h = gtk_widget_get_allocated_height(a->area);
	weft_view_resize(a->v, a->w, a->h);
	char l[256];
	while (fgets(l, sizeof l, f))
		replay_line(a, l);
	fclose(f);
	echo(a, "events: done");
	return FALSE;
}

gboolean echo_summary(gpointer data)
{
	struct app *a = data;
	GtkTreeView *tv = GTK_TREE_VIEW(a->sum_list);
	GtkTreeModel *tm = GTK_TREE_MODEL(a->sum_store);
	GtkTreeIter it;
	int k = 0;
	for (gboolean ok = gtk_tree_model_get_iter_first(tm, &it); ok && k < 40;
	     ok = gtk_tree_model_iter_next(tm, &it), k++) {
		gchar *text;
		gtk_tree_model_get(tm, &it, S_TEXT, &text, -1);
		GtkTreePath *path = gtk_tree_model_get_path(tm, &it);
		GdkRectangle r;
		int x, y;
		gtk_tree_view_get_cell_area(tv, path, NULL, &r);
		gtk_tree_path_free(path);
		gtk_tree_view_convert_bin_window_to_widget_coords(tv, r.x, r.y,
								  &x, &y);
		if (r.height > 0 && gtk_widget_translate_coordinates(
					    a->sum_list, a->win, x, y, &x, &y))
			echo(a, "sum %d at %d %d %d %d: %s", k, x, y,
			     gtk_widget_get_allocated_width(a->sum_list),
			     r.height, text);
		g_free(text);
	}
	return FALSE;
}

/* For tests: where the first result rows that name a thread are
 * ("qrow K at X Y W H: TEXT"), and the entry ("query entry at ..."). */
gboolean echo_qrows(gpointer data)
{
	struct app *a = data;
	GtkTreeView *tv = GTK_TREE_VIEW(a->qlist);
	GtkTreeModel *tm = GTK_TREE_MODEL(a->qstore);
	GtkTreeIter it;
	int k = 0, shown = 0;
	if (!gtk_widget_get_realized(a->qlist))
		return FALSE;
	echo_place(a, a->qentry, "query entry");
	for (gboolean ok = gtk_tree_model_get_iter_first(tm, &it);
	     ok && shown < 5; ok = gtk_tree_model_iter_next(tm, &it), k++) {
		guint t;
		gchar *text;
		gtk_tree_model_get(tm, &it, Q_THREAD, &t, Q_TEXT, &text, -1);
		GtkTreePath *path = gtk_tree_model_get_path(tm, &it);
		GdkRectangle r;
		int x, y;
		gtk_tree_view_get_cell_area(tv, path, NULL, &r);
		gtk_tree_path_free(path);
		gtk_tree_view_convert_bin_window_to_widget_coords(tv, r.x, r.y,
								  &x, &y);
		if (t != WEFT_NONE && r.height > 0 &&
		    gtk_widget_translate_coordinates(a->qlist, a->win, x, y, &x,
						     &y)) {
			echo(a, "qrow %d at %d %d %d %d: %s", k, x, y,
			     gtk_widget_get_allocated_width(a->qlist), r.height,
			     text);
			shown++;
		}
		g_free(text);
	}
	return FALSE;
}

void view_hooks_start(struct app *a)
{
	if (a->echo)
		g_timeout_add(300, on_mapped, a);
	const char *q = getenv("WEFT_VIEW_SEARCH");
	if (q)
		gtk_entry_set_text(GTK_ENTRY(a->search), q);
	if (getenv("WEFT_VIEW_EVENTS"))
		g_timeout_add(600, on_replay, a); /* once drawn */
	if (getenv("WEFT_VIEW_SCREENSHOT")) {
		const char *delay = getenv("WEFT_VIEW_DELAY_MS");
		g_timeout_add(delay ? (guint)atoi(delay) : 300, on_screenshot,
			      a);
	}
}
