/* SPDX-License-Identifier: MIT */
/*
 * weft-view.c - the GTK viewer (`weft view FILE|-`): the renderer of
 * src/render in a window.
 *
 *   wheel, + / - buttons, W/S   zoom around the pointer (or the centre);
 *                               a trackpad's smooth deltas by as little
 *   touch: one finger, two      drag pans; a pinch zooms around the
 *                               fingers' middle
 *   drag, A/D, Left/Right       pan in time (a drag never selects)
 *   drag, Up/Down, PgUp/PgDn    move the vertical focus
 *   pointer                     the ruler marks its time
 *   drag on the ruler,          measure a range: drawn over the whole
 *   shift+drag                  height with its duration
 *   Z                           zoom to the measured range
 *   F, "fit"                    the whole trace
 *   ?                           the keys (src/render/keys.c's table)
 *   Esc                         clear the selection, chain, search and
 *                               measure
 *   hover                       a thread's tooltip: kind, lifetime,
 *                               running time, how it ended; each counter's
 *                               value at the pointer's time
 *   the inspector (right)       the selected thread: what it is, how long
 *                               it lived, ran and waited, then every
 *                               arrow, wait, label and note; a click on
 *                               an entry that names a thread goes there
 *   click                       select a thread (on release, if the
 *                               pointer did not move): the inspector
 *                               shows it
 *                               (a click in the squeezed rows also brings
 *                               them into focus)
 *   double-click                highlight its causal chain
 *   click a process's header    collapse or open its group of rows (a
 *                               run of several processes)
 *   C, "connected"              show only the chain
 *   P                           the selected thread's critical path:
 *                               drawn, its split in the inspector
 *   0-3, depth menu              the chain's depth: all, direct, 2, 3
 *   search box                  highlights matches as you type
 *   :, "slowest"                the query bar: SQL over the trace (weft
 *                               query's tables and views), the first
 *                               statement run on Enter; its rows listed,
 *                               the threads of its `thread` column
 *                               highlighted as matches (n, N); a click on
 *                               a row goes to its thread; "slowest" lists
 *                               the slowest requests in one click; Esc
 *                               closes it
 *   counters menu, PNG, SVG     each counter on or off; save the view (a
 *                               file chooser asks where, confirms before
 *                               replacing a file; the toolbar says where
 *                               it went)
 * A trace that is still being written is followed: new events are drawn
 * as the program commits them.
 *
 * The test hooks (WEFT_VIEW_ECHO and the others: what echo() says, input
 * replayed, screenshots) are in weft-view-hooks.c.
 *
 * Two runs to compare (--compare GOOD BAD, which `weft view` passes when
 * its rule says so): one picture of both (src/render/pair.h), GOOD above
 * BAD on one time scale; input acts in the half it falls in and the
 * other half follows in time; a click selects there and the aligned
 * thread in the other half (echo "select: TITLE (partner: TITLE)"), and
 * the inspector names the partner; F and "fit" show both runs whole;
 * the echo starts with "compare: GOOD BAD, first divergence at T0 and
 * T1: WHAT".  Compared runs are read as they are, not followed.
 */
#include <cairo-svg.h>
#include <gtk/gtk.h>
#include <math.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cairo-canvas.h"
#include "keys.h"
#include "weft-view.h"
#include "pair.h"
#ifdef WEFT_VIEW_QUERY
#include "query.h"
#endif
#include "view.h"
#include "weft/model.h"

static void pair_fit(struct app *a);
static void pair_align(struct app *a);
static const char *partner_note(struct app *a, uint32_t t, char *buf,
				size_t cap);

static void redraw(struct app *a)
{
	/* (two runs: the other half shows the same time as this one) */
	if (a->pair)
		weft_pair_sync(a->pair, a->side);
	gtk_widget_queue_draw(a->area);
}

static gboolean on_draw(GtkWidget *w, cairo_t *cr, gpointer data)
{
	struct app *a = data;
	int width = gtk_widget_get_allocated_width(w);
	int height = gtk_widget_get_allocated_height(w);
	if (width != a->w || height != a->h) {
		a->w = width;
		a->h = height;
		if (a->pair)
			weft_pair_resize(a->pair, width, height);
		else
			weft_view_resize(a->v, width, height);
	}
	struct weft_canvas c = weft_cairo_canvas(cr);
	if (a->pair)
		weft_pair_render(a->pair, &c);
	else
		weft_view_render(a->v, &c);
	return TRUE;
}

/* A time as the CLI and the viewers write it ("0.000 064 150 s", "30.9
 * us", "-12 ms"): the web viewer's TIME (viewer.js), its spaces also
 * no-break ones (U+00A0) */
#define TIME_RE                                                                \
	"-?\\d+(?:\\.\\d{1,3}(?:[ \\x{a0}]\\d{1,3})*)?[ "                      \
	"\\x{a0}](?:ns|us|ms|s)\\b"

GRegex *time_re(void)
{
	static GRegex *re;
	if (!re)
		re = g_regex_new(TIME_RE, G_REGEX_OPTIMIZE, 0, NULL);
	return re;
}

static gboolean unbreak_time(const GMatchInfo *mi, GString *out, gpointer p)
{
	(void)p;
	gchar *m = g_match_info_fetch(mi, 0);
	for (const char *c = m; *c; c++)
		if (*c == ' ')
			g_string_append(out, "\xc2\xa0");
		else
			g_string_append_c(out, *c);
	g_free(m);
	return FALSE;
}

/* s (valid UTF-8) with the spaces inside its times made no-break
 * spaces: a wrapped label breaks between words, never inside a number's
 * groups or between a number and its unit (the web viewer keeps each
 * time in a nowrap span). */
static gchar *times_unbroken(const gchar *s)
{
	GRegex *re = time_re();
	gchar *r = re ? g_regex_replace_eval(re, s, -1, 0, 0, unbreak_time,
					     NULL, NULL)
		      : NULL;
	return r ? r : g_strdup(s);
}

static void set_text(GtkWidget *label, const char *s)
{
	/* (a trace's texts are bytes; a label wants UTF-8) */
	gchar *text = g_utf8_make_valid(s, -1);
	gchar *kept = times_unbroken(text);
	gtk_label_set_text(GTK_LABEL(label), kept);
	g_free(kept);
	g_free(text);
}

/* Every entry of thread t, one a row: those that name a thread in the
 * colour of links (a click goes there). */
static uint32_t fill_entries(struct app *a, uint32_t t)
{
	struct weft_inspect in = {0};
	char line[1024];
	GtkTreeView *tv = GTK_TREE_VIEW(a->entries);
	/* (filled apart from the view: a loop's hundred thousand rows,
	 * each announced to an attached view, would take seconds) */
	gtk_tree_view_set_model(tv, NULL);
	gtk_list_store_clear(a->store);
	if (t == WEFT_NONE || weft_model_inspect(a->m, t, &in)) {
		gtk_tree_view_set_model(tv, GTK_TREE_MODEL(a->store));
		return 0;
	}
	for (uint32_t i = 0; i < in.n; i++) {
		const struct weft_entry *e = &in.entries[i];
		weft_entry_text(a->m, t, e, line, sizeof line);
		gchar *valid = g_utf8_make_valid(line, -1);
		gchar *text = times_unbroken(valid);
		gtk_list_store_insert_with_values(
			a->store, NULL, -1, E_TEXT, text, E_THREAD, e->other,
			E_COLOR, e->other == WEFT_NONE ? "#222" : "#1a4a9a",
			-1);
		g_free(text);
		g_free(valid);
	}
	uint32_t n = in.n;
	weft_inspect_release(&in);
	gtk_tree_view_set_model(tv, GTK_TREE_MODEL(a->store));
	return n;
}

static void inspect(struct app *a, uint32_t t)
{
	char buf[8192];
	if (t == WEFT_NONE)
		snprintf(buf, sizeof buf, "click a thread to inspect it");
	else
		weft_view_describe(a->v, t, buf, sizeof buf);
	if (t != WEFT_NONE && weft_view_path_thread(a->v) == t) {
		size_t k = strlen(buf);
		if (k + 2 < sizeof buf) {
			strcpy(buf + k, "\n\n");
			weft_view_path_text(a->v, buf + k + 2,
					    sizeof buf - k - 2);
		}
	}
	if (a->pair && t != WEFT_NONE) {
		size_t l = strlen(buf);
		partner_note(a, t, buf + l, sizeof buf - l);
	}
	set_text(a->inspector, buf);
	uint32_t n = fill_entries(a, t);
	if (t != WEFT_NONE) {
		char title[256];
		echo(a, "inspect: %s, %u entries",
		     weft_model_title(a->m, t, title, sizeof title), n);
		if (a->echo)
			g_timeout_add(300, echo_entries, a); /* once laid out */
	}
}

/* A click on an entry that names a thread: go there (selected, zoomed
 * to, in focus), inspected. */
static void on_entry(GtkTreeView *tv, GtkTreePath *path, GtkTreeViewColumn *c,
		     gpointer data)
{
	struct app *a = data;
	GtkTreeIter it;
	guint t;
	(void)c;
	if (!gtk_tree_model_get_iter(gtk_tree_view_get_model(tv), &it, path))
		return;
	gtk_tree_model_get(gtk_tree_view_get_model(tv), &it, E_THREAD, &t, -1);
	if (t == WEFT_NONE)
		return;
	weft_view_go_to(a->v, t);
	inspect(a, weft_view_selected(a->v));
	char title[256];
	echo(a, "go: %s", weft_model_title(a->m, t, title, sizeof title));
	gtk_widget_queue_draw(a->area);
}

static gboolean on_scroll(GtkWidget *w, GdkEventScroll *e, gpointer data)
{
	struct app *a = data;
	(void)w;
	/* The zoom follows the size of the scroll: a wheel's notch (1.0)
	 * zooms by 1.25, a trackpad's small smooth deltas by as little;
	 * horizontal scrolling (or shift+wheel) pans, 60 px a notch. */
	double dx = 0, dy = 0;
	switch (e->direction) {
	case GDK_SCROLL_UP:
		dy = -1;
		break;
	case GDK_SCROLL_DOWN:
		dy = 1;
		break;
	case GDK_SCROLL_LEFT:
		dx = -1;
		break;
	case GDK_SCROLL_RIGHT:
		dx = 1;
		break;
	case GDK_SCROLL_SMOOTH:
		dx = e->delta_x;
		dy = e->delta_y;
		break;
	}
	if ((e->state & GDK_SHIFT_MASK) && !dx) {
		dx = dy;
		dy = 0;
	}
	if (fabs(dx) > fabs(dy)) {
		weft_view_pan(a->v, -dx * 60, 0);
	} else if (dy) {
		dy = dy > 5 ? 5 : dy < -5 ? -5 : dy;
		weft_view_zoom(a->v, pow(1.25, -dy), e->x);
	}
	int64_t t0, t1;
	weft_view_range(a->v, &t0, &t1);
	echo(a, "range: %lld %lld, focus %d", (long long)t0, (long long)t1,
	     weft_view_focus(a->v));
	redraw(a);
	return TRUE;
}

static gboolean on_press(GtkWidget *w, GdkEventButton *e, gpointer data)
{
	struct app *a = data;
	gtk_widget_grab_focus(w);
	a->dragging = 1;
	a->drag_x = e->x;
	a->drag_y = e->y;
	int measure = (e->state & GDK_SHIFT_MASK) ||
		      e->y < weft_view_ruler_h(a->v);
	if (measure && e->type != GDK_BUTTON_PRESS)
		return TRUE; /* (a double click there measures, twice) */
	if (e->type == GDK_BUTTON_PRESS && e->button == 1 && measure) {
		/* a measure, never a pan or a selection */
		a->measuring = 1;
		a->moved = 1;
		weft_view_measure_from(a->v, e->x);
		redraw(a);
		return TRUE;
	}
	char title[256];
	uint32_t proc = weft_view_header_at(a->v, e->x, e->y);
	if (e->type == GDK_BUTTON_PRESS && proc != WEFT_NONE) {
		/* a process's header: its group collapses or opens */
		int on = !weft_view_collapsed(a->v, proc);
		uint32_t np;
		const struct weft_model_process *pr =
			weft_model_processes(a->m, &np);
		weft_view_collapse(a->v, proc, on);
		echo(a, "process: %s (pid %u) %s, %d rows", pr[proc].comm,
		     pr[proc].pid, on ? "collapsed" : "expanded",
		     weft_view_rows(a->v));
		redraw(a);
		return TRUE;
	}
	if (e->type == GDK_2BUTTON_PRESS && proc != WEFT_NONE)
		return TRUE; /* (the second click of a toggle) */
	if (e->type == GDK_BUTTON_PRESS) {
		/* a click selects when the button comes up where it went
		 * down (on_release); a drag only pans */
		a->press_x = e->x;
		a->press_y = e->y;
		a->moved = 0;
	} else if (e->type == GDK_2BUTTON_PRESS) {
		uint32_t t = weft_view_pick(a->v, e->x, e->y);
		uint32_t n = weft_view_chain(a->v, t);
		weft_view_select(a->v, t);
		inspect(a, t);
		echo(a, "chain: %s, %u threads",
		     t == WEFT_NONE
			     ? "none"
			     : weft_model_title(a->m, t, title, sizeof title),
		     n);
		redraw(a);
	}
	return TRUE;
}

/* How far the pointer may wander between press and release for a click
 * (hands shake): beyond, it was a drag. */
#define CLICK_SLOP 4

/* The measured range, for tests. */
static void summary_show(struct app *a);
static void said_measure(struct app *a)
{
	int64_t t0, t1;
	char d[48];
	summary_show(a);
	if (!weft_view_measure(a->v, &t0, &t1)) {
		echo(a, "measure: none");
		return;
	}
	weft_view_dur_str(t1 - t0, d, sizeof d);
	echo(a, "measure: %lld %lld %s", (long long)t0, (long long)t1, d);
}

static gboolean on_release(GtkWidget *w, GdkEventButton *e, gpointer data)
{
	struct app *a = data;
	(void)w;
	int click = a->dragging && !a->moved;
	a->dragging = 0;
	if (a->measuring) {
		a->measuring = 0;
		said_measure(a);
		return TRUE;
	}
	if (!click || e->button != 1 ||
	    weft_view_header_at(a->v, a->press_x, a->press_y) != WEFT_NONE)
		return TRUE;
	char title[256];
	uint32_t t = weft_view_pick(a->v, a->press_x, a->press_y);
	weft_view_select(a->v, t);
	if (a->pair) /* and its partner in the other half */
		weft_pair_select(a->pair, a->side, t);
	double rh;
	if (weft_view_thread_y(a->v, t, &rh) >= 0 && rh < 26)
		weft_view_set_focus(a->v, weft_view_row(a->v, t));
	inspect(a, t);
	char said[300] = "";
	if (a->pair && t != WEFT_NONE) {
		char who[256];
		uint32_t o = weft_pair_partner(a->pair, a->side, t);
		snprintf(said, sizeof said, " (partner: %s)",
			 o == WEFT_NONE ? "none"
					: weft_model_title(a->pm[!a->side], o,
							   who, sizeof who));
	}
	echo(a, "select: %s%s",
	     t == WEFT_NONE ? "none"
			    : weft_model_title(a->m, t, title, sizeof title),
	     said);
	redraw(a);
	return TRUE;
}

static gboolean on_motion(GtkWidget *w, GdkEventMotion *e, gpointer data)
{
	struct app *a = data;
	(void)w;
	/* the ruler marks the pointer's time, the counters write their
	 * values at it */
	if (weft_view_set_pointer(a->v, e->x, e->y))
		redraw(a);
	if (a->measuring) {
		weft_view_measure_to(a->v, e->x);
		redraw(a);
		return TRUE;
	}
	if (!a->dragging)
		return FALSE;
	if (fabs(e->x - a->press_x) > CLICK_SLOP ||
	    fabs(e->y - a->press_y) > CLICK_SLOP)
		a->moved = 1;
	weft_view_pan(a->v, e->x - a->drag_x, e->y - a->drag_y);
	a->drag_x = e->x;
	a->drag_y = e->y;
	redraw(a);
	return TRUE;
}

static gboolean on_leave(GtkWidget *w, GdkEventCrossing *e, gpointer data)
{
	struct app *a = data;
	(void)w;
	(void)e;
	if (weft_view_set_pointer(a->v, -1, -1))
		redraw(a);
	return FALSE;
}

/* Touch, as the HTML viewer does it: one finger drags (pans in time and
 * moves the focus), two pinch: the zoom follows the distance between
 * them, around their middle, and the time under the middle follows the
 * middle as it moves (the time the fingers hold stays under them).  A
 * third finger is ignored.  Handled here (TRUE), a touch is not also
 * turned into pointer events (GTK emulates a mouse for widgets that do
 * not take touch). */
static gboolean on_touch(GtkWidget *w, GdkEvent *ev, gpointer data)
{
	struct app *a = data;
	GdkEventTouch *e = &ev->touch;
	(void)w;
	int k = -1;
	for (int i = 0; i < a->fingers; i++)
		if (a->finger[i].seq == e->sequence)
			k = i;
	switch (e->type) {
	case GDK_TOUCH_BEGIN:
		if (k < 0 && a->fingers < 2) {
			a->finger[a->fingers].seq = e->sequence;
			a->finger[a->fingers].x = e->x;
			a->finger[a->fingers].y = e->y;
			a->fingers++;
		}
		return TRUE;
	case GDK_TOUCH_UPDATE:
		break;
	case GDK_TOUCH_END:
	case GDK_TOUCH_CANCEL:
		if (k >= 0) {
			a->finger[k] = a->finger[--a->fingers];
			memset(&a->finger[a->fingers], 0, sizeof *a->finger);
		}
		return TRUE;
	default:
		return FALSE;
	}
	if (k < 0)
		return TRUE;
	struct finger *f = a->finger;
	if (a->fingers == 1) {
		weft_view_pan(a->v, e->x - f->x, e->y - f->y);
		f->x = e->x;
		f->y = e->y;
	} else {
		double cx = (f[0].x + f[1].x) / 2;
		double d = hypot(f[1].x - f[0].x, f[1].y - f[0].y);
		f[k].x = e->x;
		f[k].y = e->y;
		double ncx = (f[0].x + f[1].x) / 2;
		double nd = hypot(f[1].x - f[0].x, f[1].y - f[0].y);
		weft_view_pan(a->v, ncx - cx, 0);
		if (d > 0 && nd > 0)
			weft_view_zoom(a->v, nd / d, ncx);
	}
	int64_t t0, t1;
	weft_view_range(a->v, &t0, &t1);
	echo(a, "range: %lld %lld, focus %d", (long long)t0, (long long)t1,
	     weft_view_focus(a->v));
	redraw(a);
	return TRUE;
}

/* The keys: src/render/keys.c's table, read by the dispatch and by the
 * help (?).  A key symbol's name there (KeyboardEvent.key's): its
 * character, or the name of a key that has none; NULL when the table
 * cannot have it. */
static const char *key_name(guint keyval, char buf[8])
{
	switch (keyval) {
	case GDK_KEY_Left:
		return "ArrowLeft";
	case GDK_KEY_Right:
		return "ArrowRight";
	case GDK_KEY_Up:
		return "ArrowUp";
	case GDK_KEY_Down:
		return "ArrowDown";
	case GDK_KEY_Page_Up:
		return "PageUp";
	case GDK_KEY_Page_Down:
		return "PageDown";
	case GDK_KEY_Escape:
		return "Escape";
	}
	gunichar c = gdk_keyval_to_unicode(keyval); /* (keypad + is '+') */
	if (c < 0x20 || c == 0x7f)
		return NULL;
	buf[g_unichar_to_utf8(c, buf)] = 0;
	return buf;
}

/* The bookmarks' menu: one button a bookmark ("2. 1.25ms note"), a
 * click centres the view on it; insensitive when there is none. */
static void on_mark_clicked(GtkButton *b, gpointer data)
{
	struct app *a = data;
	int i = GPOINTER_TO_INT(g_object_get_data(G_OBJECT(b), "mark"));
	weft_view_go_to_bookmark(a->v, (uint32_t)i);
	echo(a, "bookmark: go %d", i + 1);
	redraw(a);
}

static void marks_list(struct app *a)
{
	GList *old = gtk_container_get_children(GTK_CONTAINER(a->marks_box));
	for (GList *l = old; l; l = l->next)
		gtk_widget_destroy(l->data);
	g_list_free(old);
	uint32_t n = weft_view_bookmarks(a->v);
	int64_t t0, t1, r0, r1;
	weft_model_range(a->m, &t0, &t1);
	weft_view_range(a->v, &r0, &r1);
	int64_t step = weft_view_tick_step((double)(r1 - r0) / 1000);
	for (uint32_t i = 0; i < n; i++) {
		const char *note;
		int64_t t = weft_view_bookmark(a->v, i, &note);
		char ts[48], line[400];
		weft_view_time_str(t - t0, step, ts, sizeof ts);
		snprintf(line, sizeof line, "%u. %s%s%s", i + 1, ts,
			 *note ? "  " : "", note);
		GtkWidget *b = gtk_button_new_with_label(line);
		gtk_button_set_relief(GTK_BUTTON(b), GTK_RELIEF_NONE);
		g_object_set_data(G_OBJECT(b), "mark", GINT_TO_POINTER((int)i));
		g_signal_connect(b, "clicked", G_CALLBACK(on_mark_clicked), a);
		gtk_box_pack_start(GTK_BOX(a->marks_box), b, FALSE, FALSE, 0);
		gtk_widget_show(b);
	}
	gtk_widget_set_sensitive(a->marks, n > 0);
}

/* B: a bookmark at the pointer (else the middle), with the note a small
 * dialog asks for (Escape: none dropped). */
static void bookmark_drop(struct app *a)
{
	if (a->pair)
		return;
	double x = a->w / 2.0;
	GdkWindow *win = gtk_widget_get_window(a->area);
	GdkSeat *seat = gdk_display_get_default_seat(gdk_display_get_default());
	if (win && seat) {
		int px, py;
		gdk_window_get_device_position(win, gdk_seat_get_pointer(seat),
					       &px, &py, NULL);
		if (px >= 0 && px < a->w && py >= 0 && py < a->h)
			x = px;
	}
	int64_t t = weft_view_time_at(a->v, x);
	GtkWidget *d = gtk_dialog_new_with_buttons("Bookmark - weft",
						   GTK_WINDOW(a->win),
						   GTK_DIALOG_MODAL, "_Cancel",
						   GTK_RESPONSE_CANCEL, "_Add",
						   GTK_RESPONSE_ACCEPT, NULL);
	gtk_dialog_set_default_response(GTK_DIALOG(d), GTK_RESPONSE_ACCEPT);
	GtkWidget *e = gtk_entry_new();
	gtk_entry_set_placeholder_text(GTK_ENTRY(e), "a note (optional)");
	gtk_entry_set_activates_default(GTK_ENTRY(e), TRUE);
	gtk_container_add(
		GTK_CONTAINER(gtk_dialog_get_content_area(GTK_DIALOG(d))), e);
	gtk_widget_show_all(d);
	if (gtk_dialog_run(GTK_DIALOG(d)) == GTK_RESPONSE_ACCEPT) {
		const char *note = gtk_entry_get_text(GTK_ENTRY(e));
		int i = weft_view_add_bookmark(a->v, t, note);
		int64_t t0, t1;
		weft_model_range(a->m, &t0, &t1);
		echo(a, "bookmark: %d at %lld: %s", i + 1, (long long)(t - t0),
		     note);
		marks_list(a);
		redraw(a);
	} else
		echo(a, "bookmark: cancelled");
	gtk_widget_destroy(d);
}

/* ] and [: the next or previous bookmark, round. */
static void bookmark_step(struct app *a, int dir)
{
	if (a->pair)
		return;
	int k = weft_view_next_bookmark(a->v, dir);
	if (k >= 0)
		echo(a, "bookmark: go %d", k + 1);
	redraw(a);
}

/* V: the view's state, on standard output and in the status line, for
 * `weft view --view STATE`, `weft render --view STATE` or a page's
 * address after '#'. */
static void state_say(struct app *a)
{
	char st[4096];
	weft_view_state(a->v, st, sizeof st);
	printf("view: %s\n", st);
	fflush(stdout);
	char said[4200];
	snprintf(said, sizeof said, "view: %s", st);
	set_text(a->status, said);
	echo(a, "view: %s", st);
}

/* The picture's colours: dark or light (both halves of a pair). */
static void theme_set(struct app *a, int dark)
{
	if (a->pair)
		for (int s = 0; s < 2; s++)
			weft_view_set_dark(weft_pair_view(a->pair, s), dark);
	else
		weft_view_set_dark(a->v, dark);
	echo(a, "theme: %s", dark ? "dark" : "light");
	redraw(a);
}

/* Whether the desktop is dark: its preference
 * (gtk-application-prefer-dark-theme), or a dark theme by name (the
 * settings' gtk-theme-name, or GTK_THEME=Adwaita:dark). */
static int desktop_dark(void)
{
	GtkSettings *st = gtk_settings_get_default();
	gboolean pref = FALSE;
	char *name = NULL;
	if (st)
		g_object_get(st, "gtk-application-prefer-dark-theme", &pref,
			     "gtk-theme-name", &name, NULL);
	const char *env = getenv("GTK_THEME");
	int dark = pref || (name && g_strrstr(name, "-dark")) ||
		   (name && g_strrstr(name, ":dark")) ||
		   (env && g_strrstr(env, "dark"));
	g_free(name);
	return dark;
}

/* The desktop changed its theme: the picture follows (T overrides it
 * until the next change). */
static void on_theme_changed(GObject *o, GParamSpec *ps, gpointer data)
{
	(void)o;
	(void)ps;
	theme_set(data, desktop_dark());
}

/* n, N, Enter in the search box: the next or previous match, selected,
 * zoomed to and in focus. */
static void go_match(struct app *a, int dir)
{
	uint32_t t = weft_view_next_match(a->v, dir);
	if (t == WEFT_NONE)
		return;
	inspect(a, t);
	char title[256];
	int64_t t0, t1;
	weft_view_range(a->v, &t0, &t1);
	echo(a, "match: %s, range: %lld %lld",
	     weft_model_title(a->m, t, title, sizeof title), (long long)t0,
	     (long long)t1);
	redraw(a);
}

/* P: the selected thread's critical path highlighted, its split (running,
 * waiting on each thread, ready but not running) under the inspector's
 * head and in the toolbar; again (or with nothing selected), off. */
static void path_toggle(struct app *a)
{
	uint32_t t = weft_view_selected(a->v);
	uint32_t n = 0;
	if (t != WEFT_NONE && weft_view_path_thread(a->v) != t)
		n = weft_view_path(a->v, t);
	else
		weft_view_path(a->v, WEFT_NONE);
	char said[2048];
	if (n)
		weft_view_path_text(a->v, said, sizeof said);
	else
		snprintf(said, sizeof said, "%s",
			 t == WEFT_NONE ? "select a thread for its critical "
					  "path"
					: "");
	set_text(a->status, said);
	if (t != WEFT_NONE)
		inspect(a, t); /* (the head says the path) */
	echo(a, "path: %u threads%s%s", n, n ? ", " : "", n ? said : "");
	redraw(a);
}

/* One line of the help: the name padded to `w` in monospace, so that
 * every description starts in one column; said to the echo too. */
static void help_line(struct app *a, GString *t, int w, const char *name,
		      const char *what)
{
	char *n = g_markup_escape_text(name, -1);
	char *d = g_markup_escape_text(what, -1);
	/* (two spaces in monospace: one proportional space after the
	 * longest name read as part of it) */
	g_string_append_printf(t, "<tt>%-*s  </tt>%s\n", w, n, d);
	echo(a, "help-line: %-*s|%s", w, name, what);
	g_free(n);
	g_free(d);
}

/* The help: the table's actions, one a line, and the pointer's. */
static void help_toggle(struct app *a)
{
	if (!a->help) {
		int w = 0;
		for (size_t i = 0; i < weft_nkeys; i++)
			if (weft_keys[i].names &&
			    (weft_keys[i].in & WEFT_KEYS_GTK) &&
			    (int)strlen(weft_keys[i].names) > w)
				w = (int)strlen(weft_keys[i].names);
		for (size_t i = 0; i < weft_npointer_help; i++)
			if ((weft_pointer_help[i].in & WEFT_KEYS_GTK) &&
			    (int)strlen(weft_pointer_help[i].names) > w)
				w = (int)strlen(weft_pointer_help[i].names);
		GString *t = g_string_new("<b>keys</b>\n");
		echo(a, "help-head: keys");
		for (size_t i = 0; i < weft_nkeys; i++)
			if (weft_keys[i].names &&
			    (weft_keys[i].in & WEFT_KEYS_GTK))
				help_line(a, t, w, weft_keys[i].names,
					  weft_keys[i].help);
		g_string_append(t, "\n<b>pointer</b>\n");
		echo(a, "help-head: pointer");
		for (size_t i = 0; i < weft_npointer_help; i++)
			if (weft_pointer_help[i].in & WEFT_KEYS_GTK)
				help_line(a, t, w, weft_pointer_help[i].names,
					  weft_pointer_help[i].help);
		g_string_truncate(t, t->len - 1); /* (the last newline) */
		GtkWidget *l = gtk_label_new(NULL);
		gtk_label_set_markup(GTK_LABEL(l), t->str);
		g_string_free(t, TRUE);
		a->help = gtk_popover_new(a->area);
		gtk_container_set_border_width(GTK_CONTAINER(a->help), 8);
		gtk_popover_set_modal(GTK_POPOVER(a->help), FALSE);
		gtk_container_add(GTK_CONTAINER(a->help), l);
		gtk_widget_show(l);
	}
	int on = !gtk_widget_get_visible(a->help);
	if (on) {
		/* under the top of the picture, in its middle: inside the
		 * window whatever its size */
		GdkRectangle r = {gtk_widget_get_allocated_width(a->area) / 2,
				  8, 1, 1};
		gtk_popover_set_pointing_to(GTK_POPOVER(a->help), &r);
		gtk_popover_set_position(GTK_POPOVER(a->help), GTK_POS_BOTTOM);
		gtk_popover_popup(GTK_POPOVER(a->help));
	} else
		gtk_popover_popdown(GTK_POPOVER(a->help));
	echo(a, "help: %s", on ? "shown" : "hidden");
}

/* On the window, so that keys work wherever the focus is (a toolbar
 * button has it at start) -- but in the search box, which takes text,
 * only Esc. */
/* Hovering a thread: its tooltip (kind, lifetime, running, how it
 * ended). */
static gboolean on_tooltip(GtkWidget *w, gint x, gint y, gboolean kb,
			   GtkTooltip *tip, gpointer data)
{
	struct app *a = data;
	(void)w;
	if (kb || a->dragging)
		return FALSE;
	uint32_t t = weft_view_pick(a->v, x, y);
	if (t == WEFT_NONE)
		return FALSE;
	char buf[600];
	weft_view_tooltip(a->v, t, buf, sizeof buf);
	gchar *text = g_utf8_make_valid(buf, -1);
	gtk_tooltip_set_text(tip, text);
	char *nl = strchr(text, '\n');
	echo(a, "tooltip: %s", nl ? nl + 1 : text);
	g_free(text);
	return TRUE;
}

static void query_show(struct app *a, int on);

static gboolean on_key(GtkWidget *w, GdkEventKey *e, gpointer data)
{
	struct app *a = data;
	(void)w;
	if (e->state & (GDK_CONTROL_MASK | GDK_MOD1_MASK))
		return FALSE;
	if ((e->keyval == GDK_KEY_Return || e->keyval == GDK_KEY_KP_Enter) &&
	    gtk_widget_has_focus(a->search)) {
		/* in the search box: the next match, or the previous one */
		go_match(a, e->state & GDK_SHIFT_MASK ? -1 : 1);
		return TRUE;
	}
	if (a->qentry && gtk_widget_has_focus(a->qentry)) {
		/* typing SQL: every key is the entry's; Esc closes the bar */
		if (e->keyval != GDK_KEY_Escape)
			return FALSE;
		query_show(a, 0);
		return TRUE;
	}
	char buf[8];
	const struct weft_key *k =
		weft_key_find(key_name(e->keyval, buf), WEFT_KEYS_GTK);
	if (!k || (gtk_widget_has_focus(a->search) && k->what != WEFT_DO_CLEAR))
		return FALSE;
	switch (k->what) {
	case WEFT_DO_ZOOM:
		weft_view_zoom(a->v,
			       k->arg > 0 ? WEFT_KEY_ZOOM_STEP
					  : 1 / WEFT_KEY_ZOOM_STEP,
			       a->w / 2.0);
		break;
	case WEFT_DO_PAN:
		weft_view_pan(a->v,
			      -k->arg * (a->w / (double)WEFT_KEY_PAN_PARTS), 0);
		break;
	case WEFT_DO_FIT:
		pair_fit(a);
		break;
	case WEFT_DO_ZOOM_MEASURE:
		weft_view_zoom_measure(a->v);
		break;
	case WEFT_DO_ALIGN:
		pair_align(a);
		break;
	case WEFT_DO_FOCUS:
		weft_view_set_focus(a->v, weft_view_focus(a->v) + k->arg);
		break;
	case WEFT_DO_DEPTH: /* the combo's handler redraws */
		gtk_combo_box_set_active(GTK_COMBO_BOX(a->depth), k->arg);
		return TRUE;
	case WEFT_DO_CONNECTED: /* the button's handler redraws and says it */
		gtk_toggle_button_set_active(
			GTK_TOGGLE_BUTTON(a->connected),
			!gtk_toggle_button_get_active(
				GTK_TOGGLE_BUTTON(a->connected)));
		return TRUE;
	case WEFT_DO_CLEAR:
		if (a->help && gtk_widget_get_visible(a->help))
			help_toggle(a);
		if (a->qbar && gtk_widget_get_visible(a->qbar))
			query_show(a, 0);
		weft_view_chain(a->v, WEFT_NONE);
		weft_view_path(a->v, WEFT_NONE);
		weft_view_select(a->v, WEFT_NONE);
		weft_view_clear_measure(a->v);
		summary_show(a);
		inspect(a, WEFT_NONE);
		/* (the entry's handler searches for nothing, and redraws) */
		gtk_entry_set_text(GTK_ENTRY(a->search), "");
		gtk_widget_grab_focus(a->area);
		echo(a, "clear: no selection, no search");
		redraw(a);
		return TRUE;
	case WEFT_DO_HELP:
		help_toggle(a);
		return TRUE;
	case WEFT_DO_THEME:
		theme_set(a, !weft_view_dark(a->v));
		return TRUE;
	case WEFT_DO_STATE:
		state_say(a);
		return TRUE;
	case WEFT_DO_BOOKMARK:
		bookmark_drop(a);
		return TRUE;
	case WEFT_DO_MARK:
		bookmark_step(a, k->arg);
		return TRUE;
	case WEFT_DO_PATH:
		path_toggle(a);
		return TRUE;
	case WEFT_DO_QUERY:
		query_show(a, 1);
		return TRUE;
	case WEFT_DO_MATCH:
		go_match(a, k->arg);
		return TRUE;
	case WEFT_DO_N:
		return FALSE;
	}
	int64_t t0, t1;
	weft_view_range(a->v, &t0, &t1);
	echo(a, "range: %lld %lld, focus %d", (long long)t0, (long long)t1,
	     weft_view_focus(a->v));
	redraw(a);
	return TRUE;
}

static void on_search(GtkSearchEntry *e, gpointer data)
{
	struct app *a = data;
	const char *q = gtk_entry_get_text(GTK_ENTRY(e));
	uint32_t n = weft_view_search(a->v, q);
	char said[64] = "";
	if (*q)
		snprintf(said, sizeof said, "%u match%s", n,
			 n == 1 ? "" : "es");
	gtk_label_set_text(GTK_LABEL(a->matches), said);
	echo(a, "search: %s", *q ? said : "none");
	redraw(a);
}

static void on_zoom_in(GtkButton *b, gpointer data)
{
	struct app *a = data;
	(void)b;
	weft_view_zoom(a->v, 1.25, a->w / 2.0);
	redraw(a);
}

static void on_zoom_out(GtkButton *b, gpointer data)
{
	struct app *a = data;
	(void)b;
	weft_view_zoom(a->v, 0.8, a->w / 2.0);
	redraw(a);
}

static void help_toggle(struct app *a);

/* The "?" button: the keys, as ? shows them (a hint that they exist). */
static void on_keys(GtkButton *b, gpointer data)
{
	(void)b;
	help_toggle(data);
}

static void on_fit(GtkButton *b, gpointer data)
{
	struct app *a = data;
	(void)b;
	pair_fit(a);
	redraw(a);
}

static void on_connected(GtkToggleButton *b, gpointer data)
{
	struct app *a = data;
	int on = gtk_toggle_button_get_active(b);
	weft_view_only_chain(a->v, on);
	echo(a, "connected: %s, %d rows", on ? "on" : "off",
	     weft_view_rows(a->v));
	redraw(a);
}

/* The chain's depth: "all", "direct", "2", "3" (combo box order). */
static void on_depth(GtkComboBox *c, gpointer data)
{
	struct app *a = data;
	static const int depths[] = {WEFT_CHAIN_ALL, 1, 2, 3};
	int k = gtk_combo_box_get_active(c);
	if (k < 0 || k > 3)
		return;
	weft_view_set_chain_depth(a->v, depths[k]);
	uint32_t sel = weft_view_selected(a->v);
	if (sel != WEFT_NONE)
		inspect(a, sel);
	echo(a, "depth: %s, chain %u threads, %d rows",
	     gtk_combo_box_text_get_active_text(GTK_COMBO_BOX_TEXT(c)),
	     weft_view_chain_size(a->v), weft_view_rows(a->v));
	redraw(a);
}

static void on_counter(GtkToggleButton *b, gpointer data)
{
	struct app *a = data;
	uint32_t k = GPOINTER_TO_UINT(g_object_get_data(G_OBJECT(b), "k"));
	int on = gtk_toggle_button_get_active(b);
	uint32_t n;
	const struct weft_counter *c = weft_model_counters(a->m, &n);
	if (k == UINT32_MAX)
		weft_view_show_counters(a->v, on);
	else
		weft_view_show_counter(a->v, k, on);
	echo(a, "counter %s: %s",
	     k == UINT32_MAX ? "*"
	     : k < n	     ? weft_model_name(a->m, c[k].name)
			     : "?",
	     on ? "on" : "off");
	redraw(a);
}

static GtkWidget *counter_check(struct app *a, const char *label, uint32_t k)
{
	GtkWidget *b = gtk_check_button_new_with_label(label);
	gtk_toggle_button_set_active(
		GTK_TOGGLE_BUTTON(b),
		k == UINT32_MAX ? 1 : weft_view_counter_shown(a->v, k));
	g_object_set_data(G_OBJECT(b), "k", GUINT_TO_POINTER(k));
	g_signal_connect(b, "toggled", G_CALLBACK(on_counter), a);
	gtk_box_pack_start(GTK_BOX(a->counter_box), b, FALSE, FALSE, 0);
	gtk_widget_show(b);
	return b;
}

/* The counters menu: "all", then one check per counter (new counters of
 * a live trace are added as they appear). */
static void counters_menu(struct app *a)
{
	uint32_t n;
	weft_model_counters(a->m, &n);
	if (!a->ncounters && n)
		counter_check(a, "all counters", UINT32_MAX);
	char title[300];
	for (; a->ncounters < n; a->ncounters++) {
		/* (with its process, in a trace of several) */
		weft_model_counter_title(a->m, a->ncounters, title,
					 sizeof title);
		counter_check(a, title, a->ncounters);
	}
	gtk_widget_set_sensitive(a->counters, n > 0);
}

/* Saves what is on screen as PNG or SVG (by the name's ending). */
int save(struct app *a, const char *out)
{
	size_t n = strlen(out);
	int svg = n > 4 && !strcmp(out + n - 4, ".svg");
	/* a PNG has the screen's pixels: on a high-DPI screen (scale 2),
	 * twice the window's size in logical pixels, drawn as sharp */
	int scale = svg ? 1 : gtk_widget_get_scale_factor(a->area);
	cairo_surface_t *s =
		svg ? cairo_svg_surface_create(out, a->w, a->h)
		    : cairo_image_surface_create(CAIRO_FORMAT_ARGB32,
						 a->w * scale, a->h * scale);
	cairo_surface_set_device_scale(s, scale, scale);
	cairo_t *cr = cairo_create(s);
	struct weft_canvas c = weft_cairo_canvas(cr);
	if (a->pair)
		weft_pair_render(a->pair, &c);
	else
		weft_view_render(a->v, &c);
	cairo_destroy(cr);
	int ok = svg ||
		 cairo_surface_write_to_png(s, out) == CAIRO_STATUS_SUCCESS;
	cairo_surface_finish(s);
	cairo_surface_destroy(s);
	fprintf(stderr, "weft: %s %s\n", ok ? "saved" : "cannot write", out);
	return ok;
}

/* PNG, SVG: asks where (a file chooser that confirms before replacing a
 * file), then says where it went, in the toolbar. */
static void on_export(GtkButton *b, gpointer data)
{
	struct app *a = data;
	const char *ext = gtk_button_get_label(b)[0] == 'S' ? "svg" : "png";
	/* suggested: the trace's name with the picture's ending, beside it */
	char *base =
		g_path_get_basename(strcmp(a->path, "-") ? a->path : "stdin");
	char *dot = strrchr(base, '.');
	if (dot && dot != base && !strcmp(dot, ".weft"))
		*dot = 0;
	char *name = g_strdup_printf("%s.%s", base, ext);
	char *rel = strcmp(a->path, "-") ? g_path_get_dirname(a->path)
					 : g_get_current_dir();
	char *dir = g_canonicalize_filename(rel, NULL);
	g_free(rel);
	char title[64];
	snprintf(title, sizeof title, "Save the picture as %s", ext);
	GtkWidget *d = gtk_file_chooser_dialog_new(title, GTK_WINDOW(a->win),
						   GTK_FILE_CHOOSER_ACTION_SAVE,
						   "_Cancel",
						   GTK_RESPONSE_CANCEL, "_Save",
						   GTK_RESPONSE_ACCEPT, NULL);
	GtkFileChooser *fc = GTK_FILE_CHOOSER(d);
	gtk_file_chooser_set_do_overwrite_confirmation(fc, TRUE);
	gtk_file_chooser_set_current_folder(fc, dir);
	gtk_file_chooser_set_current_name(fc, name);
	if (gtk_dialog_run(GTK_DIALOG(d)) == GTK_RESPONSE_ACCEPT) {
		char *out = gtk_file_chooser_get_filename(fc);
		char *said = g_strdup_printf(
			save(a, out) ? "saved %s" : "cannot write %s", out);
		gtk_label_set_text(GTK_LABEL(a->status), said);
		echo(a, "%s", said);
		g_free(said);
		g_free(out);
	} else {
		echo(a, "save: cancelled");
	}
	gtk_widget_destroy(d);
	g_free(dir);
	g_free(name);
	g_free(base);
}

/* Live: what the writer committed since the last look. */
/* A kept directory's chunks (how many, the newest number) and whether its
 * keeper has ended (an `end` line of keep.log after its last `keep`). */
static unsigned long long kept_sig(const char *dir, int *ended)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	unsigned long long n = 0, newest = 0;
	while (d && (de = readdir(d))) {
		const char *nm = de->d_name;
		size_t l = strlen(nm);
		if (l > 13 && strspn(nm, "0123456789") == 8 && nm[8] == '.' &&
		    !strcmp(nm + l - 4, ".zst")) {
			unsigned long long k = strtoull(nm, NULL, 10);
			n++;
			if (k > newest)
				newest = k;
		}
	}
	if (d)
		closedir(d);
	char p[4200], line[1024];
	snprintf(p, sizeof p, "%s/keep.log", dir);
	FILE *f = fopen(p, "re");
	*ended = 0;
	while (f && fgets(line, sizeof line, f))
		*ended = !strncmp(line, "end ", 4)    ? 1
			 : !strncmp(line, "keep ", 5) ? 0
						      : *ended;
	if (f)
		fclose(f);
	return newest << 20 ^ n;
}

/* Reads the kept directory again if a chunk came (or went): a new
 * reader, model and view, the same range (or all of it, if all of it was
 * shown) and search.  1 if it did. */
static int kept_reload(struct app *a)
{
	int ended;
	unsigned long long sig = kept_sig(a->path, &ended);
	if (sig == a->kept_sig) {
		a->kept_over = ended;
		return 0;
	}
	struct weft_reader *r;
	struct weft_model *m;
	struct weft_diag d = {0};
	if (weft_reader_open_many(&r, a->paths, a->npaths, WEFT_READ_FOLLOW,
				  a->mo, &d))
		return 0; /* (a chunk deleted meanwhile: the next look) */
	if (weft_model_load(&m, r)) {
		weft_reader_close(r);
		return 0;
	}
	a->kept_sig = sig;
	int64_t t0, t1, m0, m1;
	weft_view_range(a->v, &t0, &t1);
	weft_model_range(a->m, &m0, &m1);
	struct weft_view *v = weft_view_new(m, a->w, a->h);
	if (t0 > m0 || t1 < m1)
		weft_view_set_range(v, t0, t1);
	const char *q = gtk_entry_get_text(GTK_ENTRY(a->search));
	uint32_t k = *q ? weft_view_search(v, q) : 0;
	weft_view_free(a->v);
	weft_model_free(a->m);
	weft_reader_close(a->r);
	a->v = v;
	a->m = m;
	a->r = r;
	if (*q) {
		char said[64];
		snprintf(said, sizeof said, "%u match%s", k,
			 k == 1 ? "" : "es");
		gtk_label_set_text(GTK_LABEL(a->matches), said);
	}
	const struct weft_trace_info *in = weft_reader_info(r);
	echo(a, "kept: read again, %llu events\n",
	     (unsigned long long)in->events);
	counters_menu(a);
	redraw(a);
	return 1;
}

static gboolean on_tick(gpointer data)
{
	struct app *a = data;
	if (a->kept && kept_reload(a))
		return TRUE;
	long n = weft_model_update(a->m);
	if (n > 0) {
		weft_view_model_changed(a->v);
		if (*gtk_entry_get_text(GTK_ENTRY(a->search))) {
			uint32_t k = weft_view_matches(a->v);
			char said[64];
			snprintf(said, sizeof said, "%u match%s", k,
				 k == 1 ? "" : "es");
			gtk_label_set_text(GTK_LABEL(a->matches), said);
		}
		counters_menu(a);
		redraw(a);
	}
	return weft_reader_info(a->r)->writer == WEFT_WRITER_LIVE || n > 0 ||
	       (a->kept && !a->kept_over);
}

/* A scrolled window of a fixed width (its content never widens it: the
 * canvas keeps its width whatever the inspector shows). */
static GtkWidget *fixed_scroll(GtkWidget *child, int width)
{
	GtkWidget *sw = gtk_scrolled_window_new(NULL, NULL);
	gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(sw),
				       GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
	gtk_scrolled_window_set_propagate_natural_width(GTK_SCROLLED_WINDOW(sw),
							FALSE);
	gtk_widget_set_size_request(sw, width, -1);
	gtk_container_add(GTK_CONTAINER(sw), child);
	return sw;
}

/* The measured range's summary (view.h, weft_view_summary_lines: the
 * numbers of `weft stats --from --to`) in a list over the inspector,
 * shown while there is a measured range; a click on a kind's or a
 * label's line highlights its threads (n, N go through them).  Echoed for tests:
 * "summary: FROM TO, N lines" (ns from the trace's start), then, once
 * laid out, "sum K at X Y W H: TEXT" for its lines. */
#define INSPECTOR_W 330 /* (the inspector's width: below) */

static void summary_show(struct app *a)
{
	if (!a->sum_store)
		return;
	gtk_list_store_clear(a->sum_store);
	uint32_t n = a->pair ? 0 : weft_view_summary_lines(a->v);
	gtk_widget_set_visible(a->sum_list, n > 0);
	char line[1024];
	for (uint32_t i = 0; i < n; i++) {
		GtkTreeIter it;
		weft_view_summary_line(a->v, i, line, sizeof line);
		gtk_list_store_append(a->sum_store, &it);
		gtk_list_store_set(a->sum_store, &it, S_TEXT, line, S_LINE, i,
				   -1);
	}
	int64_t t0, t1, o0, o1;
	if (!n || !weft_view_measure(a->v, &t0, &t1))
		return;
	weft_model_range(a->m, &o0, &o1);
	echo(a, "summary: %lld %lld, %u lines", (long long)(t0 - o0),
	     (long long)(t1 - o0), n);
	if (a->echo)
		g_timeout_add(300, echo_summary, a); /* once laid out */
}

static void on_summary_row(GtkTreeView *tv, GtkTreePath *path,
			   GtkTreeViewColumn *c, gpointer data)
{
	struct app *a = data;
	GtkTreeIter it;
	guint k;
	(void)c;
	if (!gtk_tree_model_get_iter(gtk_tree_view_get_model(tv), &it, path))
		return;
	gtk_tree_model_get(gtk_tree_view_get_model(tv), &it, S_LINE, &k, -1);
	uint32_t n = weft_view_summary_pick(a->v, k);
	if (!n)
		return;
	char said[64];
	snprintf(said, sizeof said, "%u highlighted", n);
	gtk_label_set_text(GTK_LABEL(a->matches), said);
	echo(a, "summary pick %u: %u threads highlighted", k, n);
	gtk_widget_grab_focus(a->area); /* (the keys act on the picture) */
	redraw(a);
}

/* A list of one text column on store (wrapped within the pane; in the
 * colour of column `color`, when >= 0) whose rows a single click
 * activates: the inspector's entries, the range summary's lines. */
static GtkWidget *text_list(GtkListStore *store, int text, int color,
			    GCallback on_row, struct app *a)
{
	GtkWidget *w = gtk_tree_view_new_with_model(GTK_TREE_MODEL(store));
	GtkTreeView *tv = GTK_TREE_VIEW(w);
	gtk_tree_view_set_headers_visible(tv, FALSE);
	gtk_tree_view_set_activate_on_single_click(tv, TRUE);
	gtk_tree_view_set_enable_search(tv, FALSE);
	GtkCellRenderer *cell = gtk_cell_renderer_text_new();
	/* long lines wrap within the pane */
	g_object_set(cell, "wrap-mode", PANGO_WRAP_WORD_CHAR, "wrap-width",
		     INSPECTOR_W - 20, NULL);
	GtkTreeViewColumn *col = gtk_tree_view_column_new_with_attributes(
		"", cell, "text", text, NULL);
	if (color >= 0)
		gtk_tree_view_column_add_attribute(col, cell, "foreground",
						   color);
	gtk_tree_view_append_column(tv, col);
	g_signal_connect(w, "row-activated", on_row, a);
	return w;
}

static GtkWidget *summary_list(struct app *a)
{
	a->sum_store =
		gtk_list_store_new(S_COLUMNS, G_TYPE_STRING, G_TYPE_UINT);
	a->sum_list = text_list(a->sum_store, S_TEXT, -1,
				G_CALLBACK(on_summary_row), a);
	gtk_widget_set_no_show_all(a->sum_list, TRUE);
	return a->sum_list;
}

/* The inspector: the thread's head (selectable text), then its
 * entries, one a row, in a scrolled list; a click on one that names a
 * thread goes there.  Its width is fixed: the head wraps within it (a
 * narrow natural width: the text never asks for more), the list
 * scrolls. */
static GtkWidget *inspector_pane(struct app *a)
{
	a->inspector = gtk_label_new("click a thread to inspect it");
	gtk_label_set_xalign(GTK_LABEL(a->inspector), 0);
	gtk_label_set_yalign(GTK_LABEL(a->inspector), 0);
	gtk_label_set_selectable(GTK_LABEL(a->inspector), TRUE);
	gtk_label_set_line_wrap(GTK_LABEL(a->inspector), TRUE);
	gtk_label_set_line_wrap_mode(GTK_LABEL(a->inspector),
				     PANGO_WRAP_WORD_CHAR);
	gtk_label_set_max_width_chars(GTK_LABEL(a->inspector), 10);
	gtk_widget_set_margin_start(a->inspector, 6);
	gtk_widget_set_margin_end(a->inspector, 6);
	a->store = gtk_list_store_new(E_COLUMNS, G_TYPE_STRING, G_TYPE_UINT,
				      G_TYPE_STRING);
	/* (the app keeps its reference: the view lets go of the store
	 * while it is filled) */
	a->entries =
		text_list(a->store, E_TEXT, E_COLOR, G_CALLBACK(on_entry), a);
	GtkWidget *col = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4);
	gtk_widget_set_size_request(col, INSPECTOR_W, -1);
	gtk_box_pack_start(GTK_BOX(col), summary_list(a), FALSE, FALSE, 4);
	gtk_box_pack_start(GTK_BOX(col), a->inspector, FALSE, FALSE, 4);
	gtk_box_pack_start(GTK_BOX(col), fixed_scroll(a->entries, INSPECTOR_W),
			   TRUE, TRUE, 0);
	return col;
}

/* ------------------------------------------------------- the query bar */

/* SQL over the open trace through weft query's tables (src/query,
 * docs/query.md), the first statement of the bar: its rows listed as
 * aligned text (the first 1000), the threads of its `thread` column
 * highlighted as search matches are (n and N go through them), a click
 * on a row goes to its thread.  "slowest" runs the slowest requests in
 * one click.  A live trace is asked as far as it is read now. */
#define QUERY_ROWS_MAX 1000
static const char slowest_sql[] = "SELECT thread, title, kind, ms(latency) AS "
				  "latency_ms FROM "
				  "slowest_requests LIMIT 100";

static void query_say(struct app *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void query_say(struct app *a, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	gtk_label_set_text(GTK_LABEL(a->qstatus), buf);
	echo(a, "query: %s", buf);
}

#ifdef WEFT_VIEW_QUERY
/* Runs the first statement of sql; the rows listed, the threads
 * highlighted.  0, or -1 with the error said in the bar. */
static int query_run(struct app *a, const char *sql)
{
	GtkTreeView *tv = GTK_TREE_VIEW(a->qlist);
	gtk_tree_view_set_model(tv, NULL);
	gtk_list_store_clear(a->qstore);
	gtk_tree_view_set_model(tv, GTK_TREE_MODEL(a->qstore));
	gtk_label_set_text(GTK_LABEL(a->qhead), "");
	struct weft_query *q;
	char err[512];
	if (weft_query_open(&q, a->m, a->r, err, sizeof err)) {
		query_say(a, "error: %s", err);
		return -1;
	}
	/* (a query that never ends must not hang the window) */
	weft_query_deadline(q, g_get_monotonic_time() * 1000 +
				       (int64_t)10 * 1000000000);
	sqlite3 *db = weft_query_db(q);
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK || !st) {
		int off = rc != SQLITE_OK ? sqlite3_error_offset(db) : -1;
		if (rc != SQLITE_OK && off >= 0)
			query_say(a, "SQL error at character %d: %s", off + 1,
				  sqlite3_errmsg(db));
		else if (rc != SQLITE_OK)
			query_say(a, "SQL error: %s", sqlite3_errmsg(db));
		else
			query_say(a, "no statement");
		weft_query_close(q);
		return -1;
	}
	int nc = sqlite3_column_count(st), tc = -1;
	for (int c = 0; c < nc && tc < 0; c++)
		if (!g_ascii_strcasecmp(sqlite3_column_name(st, c), "thread"))
			tc = c;
	/* the cells of the rows shown, then each column's width */
	GPtrArray *cells = g_ptr_array_new_with_free_func(g_free);
	GArray *rows_t = g_array_new(FALSE, FALSE, sizeof(guint));
	GArray *marks = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	int *width = g_new0(int, (gsize)(nc > 0 ? nc : 1));
	for (int c = 0; c < nc; c++)
		width[c] = (int)g_utf8_strlen(sqlite3_column_name(st, c), -1);
	uint32_t nth;
	weft_model_threads(a->m, &nth);
	long rows = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		guint t = WEFT_NONE;
		if (tc >= 0 && sqlite3_column_type(st, tc) == SQLITE_INTEGER) {
			sqlite3_int64 x = sqlite3_column_int64(st, tc);
			if (x >= 0 && x < nth)
				t = (guint)x;
		}
		if (t != WEFT_NONE)
			g_array_append_val(marks, t);
		if (rows < QUERY_ROWS_MAX) {
			for (int c = 0; c < nc; c++) {
				const char *v =
					(const char *)sqlite3_column_text(st,
									  c);
				gchar *cell =
					g_utf8_make_valid(v ? v : "NULL", -1);
				int w = (int)g_utf8_strlen(cell, -1);
				if (w > width[c])
					width[c] = w < 60 ? w : 60;
				g_ptr_array_add(cells, cell);
			}
			g_array_append_val(rows_t, t);
		}
		rows++;
	}
	/* the header: the columns' names, aligned as the rows */
	GString *line = g_string_new("");
	for (int c = 0; c < nc; c++)
		g_string_append_printf(line, "%s%-*s", c ? "  " : "",
				       c + 1 < nc ? width[c] : 0,
				       sqlite3_column_name(st, c));
	gtk_label_set_text(GTK_LABEL(a->qhead), line->str);
	int stopped = weft_query_stopped(q);
	if (rc != SQLITE_DONE) {
		if (stopped == 2)
			query_say(a, "stopped after 10 s (the query took too "
				     "long)");
		else
			query_say(a, "SQL error: %s", sqlite3_errmsg(db));
	}
	sqlite3_finalize(st);
	weft_query_close(q);
	/* each row, aligned */
	gtk_tree_view_set_model(tv, NULL);
	for (guint r = 0; r < rows_t->len; r++) {
		g_string_truncate(line, 0);
		for (int c = 0; c < nc; c++) {
			const char *cell =
				g_ptr_array_index(cells, r * (guint)nc + c);
			int pad = width[c] - (int)g_utf8_strlen(cell, -1);
			if (c)
				g_string_append(line, "  ");
			g_string_append(line, cell);
			for (int k = 0; k < pad && c + 1 < nc; k++)
				g_string_append_c(line, ' ');
		}
		gtk_list_store_insert_with_values(
			a->qstore, NULL, -1, Q_TEXT, line->str, Q_THREAD,
			g_array_index(rows_t, guint, r), -1);
	}
	gtk_tree_view_set_model(tv, GTK_TREE_MODEL(a->qstore));
	g_string_free(line, TRUE);
	uint32_t lit =
		weft_view_mark(a->v, (const uint32_t *)marks->data, marks->len);
	if (rc == SQLITE_DONE)
		query_say(a, "%ld row%s%s, %u thread%s highlighted", rows,
			  rows == 1 ? "" : "s",
			  rows > QUERY_ROWS_MAX ? " (the first 1000 listed)"
						: "",
			  lit, lit == 1 ? "" : "s");
	char said[64] = "";
	if (lit)
		snprintf(said, sizeof said, "%u match%s", lit,
			 lit == 1 ? "" : "es");
	gtk_label_set_text(GTK_LABEL(a->matches), said);
	g_free(width);
	g_array_free(marks, TRUE);
	g_array_free(rows_t, TRUE);
	g_ptr_array_free(cells, TRUE);
	redraw(a);
	if (a->echo)
		g_timeout_add(300, echo_qrows, a); /* once laid out */
	return rc == SQLITE_DONE ? 0 : -1;
}
#else
static int query_run(struct app *a, const char *sql)
{
	(void)sql;
	query_say(a, "error: this viewer was built without SQLite (weft "
		     "query): no queries");
	return -1;
}
#endif

static void query_show(struct app *a, int on)
{
	if (!a->qbar || a->pair)
		return;
	if (on) {
		/* (kept out of the window's show_all until asked for) */
		gtk_widget_set_no_show_all(a->qbar, FALSE);
		gtk_widget_show_all(a->qbar);
		gtk_widget_set_no_show_all(a->qbar, TRUE);
		gtk_widget_grab_focus(a->qentry);
		echo(a, "query bar: open");
		if (a->echo)
			g_timeout_add(300, echo_qrows, a);
	} else {
		gtk_widget_hide(a->qbar);
		gtk_widget_grab_focus(a->area);
		echo(a, "query bar: closed");
	}
}

static void on_query(GtkEntry *e, gpointer data)
{
	struct app *a = data;
	query_run(a, gtk_entry_get_text(e));
}

static void on_slowest(GtkButton *b, gpointer data)
{
	struct app *a = data;
	(void)b;
	query_show(a, 1);
	gtk_entry_set_text(GTK_ENTRY(a->qentry), slowest_sql);
	query_run(a, slowest_sql);
}

/* A click on a result row that names a thread: go there (selected,
 * zoomed to, in focus), inspected. */
static void on_qrow(GtkTreeView *tv, GtkTreePath *path, GtkTreeViewColumn *c,
		    gpointer data)
{
	struct app *a = data;
	GtkTreeIter it;
	guint t;
	(void)c;
	if (!gtk_tree_model_get_iter(gtk_tree_view_get_model(tv), &it, path))
		return;
	gtk_tree_model_get(gtk_tree_view_get_model(tv), &it, Q_THREAD, &t, -1);
	if (t == WEFT_NONE)
		return;
	weft_view_go_to(a->v, t);
	inspect(a, weft_view_selected(a->v));
	char title[256];
	echo(a, "go: %s", weft_model_title(a->m, t, title, sizeof title));
	gtk_widget_queue_draw(a->area);
}

/* The bar, hidden until ':' or "slowest": the SQL, its status, its
 * rows. */
static GtkWidget *query_bar(struct app *a)
{
	a->qbar = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
	GtkWidget *row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
	gtk_box_pack_start(GTK_BOX(row), gtk_label_new("SQL"), FALSE, FALSE, 4);
	a->qentry = gtk_entry_new();
	const char *hint = "SELECT thread, title, latency FROM "
			   "slowest_requests (Enter runs it; weft query's "
			   "tables)";
	gtk_entry_set_placeholder_text(GTK_ENTRY(a->qentry), hint);
	g_signal_connect(a->qentry, "activate", G_CALLBACK(on_query), a);
	gtk_box_pack_start(GTK_BOX(row), a->qentry, TRUE, TRUE, 0);
	a->qstatus = gtk_label_new("");
	gtk_label_set_ellipsize(GTK_LABEL(a->qstatus), PANGO_ELLIPSIZE_END);
	gtk_label_set_max_width_chars(GTK_LABEL(a->qstatus), 60);
	gtk_box_pack_start(GTK_BOX(row), a->qstatus, FALSE, FALSE, 4);
	gtk_box_pack_start(GTK_BOX(a->qbar), row, FALSE, FALSE, 0);
	a->qhead = gtk_label_new("");
	gtk_label_set_xalign(GTK_LABEL(a->qhead), 0);
	gtk_label_set_selectable(GTK_LABEL(a->qhead), TRUE);
	PangoAttrList *mono = pango_attr_list_new();
	pango_attr_list_insert(mono, pango_attr_family_new("monospace"));
	gtk_label_set_attributes(GTK_LABEL(a->qhead), mono);
	pango_attr_list_unref(mono);
	gtk_widget_set_margin_start(a->qhead, 6);
	gtk_box_pack_start(GTK_BOX(a->qbar), a->qhead, FALSE, FALSE, 0);
	a->qstore = gtk_list_store_new(Q_COLUMNS, G_TYPE_STRING, G_TYPE_UINT);
	a->qlist = gtk_tree_view_new_with_model(GTK_TREE_MODEL(a->qstore));
	GtkTreeView *tv = GTK_TREE_VIEW(a->qlist);
	gtk_tree_view_set_headers_visible(tv, FALSE);
	gtk_tree_view_set_activate_on_single_click(tv, TRUE);
	gtk_tree_view_set_enable_search(tv, FALSE);
	GtkCellRenderer *cell = gtk_cell_renderer_text_new();
	g_object_set(cell, "family", "monospace", NULL);
	gtk_tree_view_insert_column_with_attributes(tv, -1, "row", cell, "text",
						    Q_TEXT, NULL);
	g_signal_connect(a->qlist, "row-activated", G_CALLBACK(on_qrow), a);
	GtkWidget *sw = gtk_scrolled_window_new(NULL, NULL);
	gtk_scrolled_window_set_policy(GTK_SCROLLED_WINDOW(sw),
				       GTK_POLICY_AUTOMATIC,
				       GTK_POLICY_AUTOMATIC);
	gtk_widget_set_size_request(sw, -1, 150);
	gtk_container_add(GTK_CONTAINER(sw), a->qlist);
	gtk_box_pack_start(GTK_BOX(a->qbar), sw, FALSE, FALSE, 0);
	gtk_widget_set_no_show_all(a->qbar, TRUE);
	return a->qbar;
}

/* ------------------------------------------------- two runs to compare */

/* Input acts in the half it falls in: that side's view, model and trace
 * become the app's, and the event reaches the single view's handler in
 * the view's pixels; redraw() gives the other half the same time. */
static void pair_side(struct app *a, int side)
{
	a->side = side;
	a->v = weft_pair_view(a->pair, side);
	a->m = a->pm[side];
	a->r = a->pr[side];
}

static double pair_y(struct app *a, double y)
{
	return y - weft_pair_top(a->pair, a->side);
}

static void pair_fit(struct app *a)
{
	if (a->pair)
		weft_pair_fit(a->pair);
	else
		weft_view_fit(a->v);
}

/* L: the runs lined up at the selected thread and its partner (their
 * creations at one x), or with none selected as at first: at the first
 * divergence (its line at one x), or at their starts where a run has
 * none. */
static void pair_align(struct app *a)
{
	if (!a->pair)
		return;
	char title[256];
	uint32_t t = weft_view_selected(a->v);
	if (weft_pair_anchor(a->pair, a->side, t)) {
		echo(a, "align: %s has no partner",
		     weft_model_title(a->m, t, title, sizeof title));
		return;
	}
	weft_pair_sync(a->pair, a->side);
	echo(a, "align: %s",
	     t != WEFT_NONE ? weft_model_title(a->m, t, title, sizeof title)
	     : weft_pair_anchored(a->pair) ? "the first divergence"
					   : "the starts");
}

/* The inspector's and the echo's word on a thread's partner. */
static const char *partner_note(struct app *a, uint32_t t, char *buf,
				size_t cap)
{
	char who[256];
	uint32_t o = weft_pair_partner(a->pair, a->side, t);
	const char *run = a->side ? "good" : "bad";
	if (o == WEFT_NONE)
		snprintf(buf, cap, "\n\nno partner in the %s run (%s)", run,
			 a->names[!a->side]);
	else
		snprintf(buf, cap, "\n\nits partner in the %s run (%s): %s",
			 run, a->names[!a->side],
			 weft_model_title(a->pm[!a->side], o, who, sizeof who));
	return buf;
}

static gboolean pair_press(GtkWidget *w, GdkEventButton *e, gpointer data)
{
	struct app *a = data;
	pair_side(a, weft_pair_side_at(a->pair, e->y));
	GdkEventButton b = *e;
	b.y = pair_y(a, e->y);
	return on_press(w, &b, data);
}

static gboolean pair_release(GtkWidget *w, GdkEventButton *e, gpointer data)
{
	struct app *a = data; /* (the half of the press) */
	GdkEventButton b = *e;
	b.y = pair_y(a, e->y);
	return on_release(w, &b, data);
}

static gboolean pair_motion(GtkWidget *w, GdkEventMotion *e, gpointer data)
{
	struct app *a = data;
	if (!a->dragging && !a->measuring) {
		int s = weft_pair_side_at(a->pair, e->y);
		if (s != a->side) /* the pointer's time leaves the other */
			weft_view_set_pointer(a->v, -1, -1);
		pair_side(a, s);
	}
	GdkEventMotion m = *e;
	m.y = pair_y(a, e->y);
	return on_motion(w, &m, data);
}

static gboolean pair_scroll(GtkWidget *w, GdkEventScroll *e, gpointer data)
{
	struct app *a = data;
	pair_side(a, weft_pair_side_at(a->pair, e->y));
	GdkEventScroll k = *e;
	k.y = pair_y(a, e->y);
	return on_scroll(w, &k, data);
}

static gboolean pair_tooltip(GtkWidget *w, gint x, gint y, gboolean kb,
			     GtkTooltip *tip, gpointer data)
{
	struct app *a = data;
	pair_side(a, weft_pair_side_at(a->pair, y));
	return on_tooltip(w, x, (gint)pair_y(a, y), kb, tip, data);
}

static gboolean pair_key(GtkWidget *w, GdkEventKey *e, gpointer data)
{
	struct app *a = data;
	/* Esc clears both halves (the handler clears this one) */
	if (e->keyval == GDK_KEY_Escape) {
		struct weft_view *o = weft_pair_view(a->pair, !a->side);
		weft_view_chain(o, WEFT_NONE);
		weft_view_select(o, WEFT_NONE);
		weft_view_clear_measure(o);
	}
	return on_key(w, e, data);
}

/* Opens both runs (as they are: not followed) and pairs them.  0, or 1
 * (said). */
static int pair_open(struct app *a, const char **paths,
		     const struct weft_merge_opts *o)
{
	for (int s = 0; s < 2; s++) {
		struct weft_diag d = {0};
		int err = weft_reader_open_many(&a->pr[s], &paths[s], 1, 0, o,
						&d);
		if (!err && (err = weft_model_load(&a->pm[s], a->pr[s])))
			d.msg[0] = 0;
		if (err) {
			fprintf(stderr, "weft: cannot read '%s': %s\n",
				paths[s],
				d.msg[0] ? d.msg : weft_strerror(err));
			return 1;
		}
		a->names[s] = paths[s];
	}
	a->pair = weft_pair_new(a->pm[0], a->pm[1], paths[0], paths[1], a->w,
				a->h);
	if (!a->pair) {
		fprintf(stderr, "weft: out of memory\n");
		return 1;
	}
	pair_side(a, 0);
	return 0;
}

/* For tests: the runs and their first divergence, at its time in each. */
static void pair_said(struct app *a)
{
	char what[600], t[2][40];
	const struct weft_divergence *d = weft_pair_divergence(a->pair);
	weft_pair_divergence_str(a->pair, what, sizeof what);
	if (d->kind == WEFT_DIV_NONE) {
		echo(a, "compare: %s %s, %s", a->names[0], a->names[1], what);
		return;
	}
	for (int s = 0; s < 2; s++) {
		int64_t t0, t1;
		weft_model_range(a->pm[s], &t0, &t1);
		if (d->t[s] == INT64_MIN)
			snprintf(t[s], sizeof t[s], "none");
		else
			weft_view_dur_str(d->t[s] - t0, t[s], sizeof t[s]);
	}
	echo(a, "compare: %s %s, first divergence at %s and %s: %s",
	     a->names[0], a->names[1], t[0], t[1],
	     what + strlen("first divergence: "));
}

/* The search highlights in both halves (after on_search, which searches
 * the side the pointer was last in and says its count). */
static void pair_search(GtkSearchEntry *e, gpointer data)
{
	struct app *a = data;
	const char *q = gtk_entry_get_text(GTK_ENTRY(e));
	weft_view_search(weft_pair_view(a->pair, !a->side), q);
	gtk_widget_queue_draw(a->area);
}

/* Two runs: the input handlers that place an event in its half. */
static void pair_connect(struct app *a)
{
	static const struct {
		const char *signal;
		gpointer one;
		GCallback pair;
	} h[] = {
		{"query-tooltip", on_tooltip, G_CALLBACK(pair_tooltip)},
		{"scroll-event", on_scroll, G_CALLBACK(pair_scroll)},
		{"button-press-event", on_press, G_CALLBACK(pair_press)},
		{"button-release-event", on_release, G_CALLBACK(pair_release)},
		{"motion-notify-event", on_motion, G_CALLBACK(pair_motion)},
	};
	for (size_t i = 0; i < sizeof h / sizeof *h; i++) {
		g_signal_handlers_disconnect_by_func(a->area, h[i].one, a);
		g_signal_connect(a->area, h[i].signal, h[i].pair, a);
	}
	g_signal_connect_after(a->search, "search-changed",
			       G_CALLBACK(pair_search), a);
	g_signal_handlers_disconnect_by_func(a->win, on_key, a);
	g_signal_connect(a->win, "key-press-event", G_CALLBACK(pair_key), a);
}

/* The command line `weft view` hands over: [--compare] [--offset
 * HOST=NS]... TRACE... (NS in nanoseconds, already checked; --compare:
 * two runs to compare); "-" reads a bundle on standard input.  Returns the number of traces, or 0 if it is wrong. */
#define VIEW_MAX_OFFSETS 64
static const char *view_state; /* --view STATE (weft_view_state()) */

static unsigned view_args(int argc, char **argv, const char **paths,
			  struct weft_merge_opts *o, const char **host,
			  int64_t *ns, int *compare)
{
	unsigned n = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--compare")) {
			*compare = 1;
			continue;
		}
		if (!strcmp(argv[i], "--view")) {
			if (i + 1 >= argc)
				return 0;
			view_state = argv[++i];
			continue;
		}
		if (strcmp(argv[i], "--offset")) {
			paths[n++] = argv[i];
			continue;
		}
		const char *v = i + 1 < argc ? argv[++i] : "";
		const char *eq = strrchr(v, '=');
		char *end;
		if (!eq || o->noffsets == VIEW_MAX_OFFSETS)
			return 0;
		long long x = strtoll(eq + 1, &end, 10);
		if (*end || end == eq + 1)
			return 0;
		char *h = g_strndup(v, (gsize)(eq - v));
		host[o->noffsets] = h;
		ns[o->noffsets++] = x;
	}
	return n;
}

int main(int argc, char **argv)
{
	if (!gtk_init_check(&argc, &argv)) {
		fprintf(stderr, "weft: cannot open a display (try weft render "
				"FILE -o OUT.png)\n");
		return 1;
	}
	const char **paths = g_new0(const char *, (gsize)argc);
	const char *host[VIEW_MAX_OFFSETS];
	int64_t ns[VIEW_MAX_OFFSETS];
	struct weft_merge_opts o = {.offset_host = host, .offset_ns = ns};
	int compare = 0;
	unsigned n = view_args(argc, argv, paths, &o, host, ns, &compare);
	if (!n || (compare && n != 2)) {
		fprintf(stderr, "usage: weft view [--offset HOST=NS]... "
				"TRACE...|-\n"
				"       weft view --compare GOOD BAD\n");
		return 2;
	}
	struct app a = {.path = paths[0], .w = 1200, .h = 600};
	if (compare && pair_open(&a, paths, &o))
		return 1;
	struct weft_diag d = {0};
	/* Several traces (rings, runs) are followed together, as one run:
	 * rings that appear later join (docs/runs.md, "Following"). */
	int err = a.pair ? 0
			 : weft_reader_open_many(&a.r, paths, n,
						 WEFT_READ_FOLLOW, &o, &d);
	if (err) {
		fprintf(stderr, "weft: cannot read '%s': %s\n", a.path,
			d.msg[0] ? d.msg : weft_strerror(err));
		return 1;
	}
	if (!a.pair && (err = weft_model_load(&a.m, a.r))) {
		fprintf(stderr, "weft: cannot model '%s': %s\n", a.path,
			weft_strerror(err));
		return 1;
	}
	if (!a.pair)
		a.v = weft_view_new(a.m, a.w, a.h);
	/* a kept directory alone: followed as its keeper adds chunks */
	char klog[4200];
	struct stat ksb;
	snprintf(klog, sizeof klog, "%s/keep.log", a.path);
	if (!a.pair && n == 1 && stat(klog, &ksb) == 0 &&
	    S_ISREG(ksb.st_mode)) {
		a.kept = 1;
		a.paths = paths;
		a.npaths = n;
		a.mo = &o;
		int ended;
		a.kept_sig = kept_sig(a.path, &ended);
		a.kept_over = ended;
	}

	a.win = gtk_window_new(GTK_WINDOW_TOPLEVEL);
	char title[4300];
	if (a.pair)
		snprintf(title, sizeof title, "%s and %s - weft", paths[0],
			 paths[1]);
	else if (n > 1)
		snprintf(title, sizeof title, "%s (and %u more) - weft", a.path,
			 n - 1);
	else
		snprintf(title, sizeof title, "%s - weft", a.path);
	gtk_window_set_title(GTK_WINDOW(a.win), title);
	gtk_window_set_default_size(GTK_WINDOW(a.win), 1200, 700);
	g_signal_connect(a.win, "destroy", G_CALLBACK(gtk_main_quit), NULL);

	GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
	GtkWidget *bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 4);
	struct {
		const char *label;
		GCallback cb;
	} buttons[] = {{"-", G_CALLBACK(on_zoom_out)},
		       {"+", G_CALLBACK(on_zoom_in)},
		       {"fit", G_CALLBACK(on_fit)},
		       {"PNG", G_CALLBACK(on_export)},
		       {"SVG", G_CALLBACK(on_export)}};
	for (size_t i = 0; i < sizeof buttons / sizeof *buttons; i++) {
		GtkWidget *b = gtk_button_new_with_label(buttons[i].label);
		g_signal_connect(b, "clicked", buttons[i].cb, &a);
		gtk_box_pack_start(GTK_BOX(bar), b, FALSE, FALSE, 0);
		if (!strcmp(buttons[i].label, "PNG"))
			a.png = b;
	}
	a.marks = gtk_menu_button_new();
	gtk_button_set_label(GTK_BUTTON(a.marks), "bookmarks");
	gtk_widget_set_tooltip_text(a.marks, "the bookmarks (B drops one at "
					     "the pointer; ] and [ go to the "
					     "next and previous)");
	GtkWidget *mpop = gtk_popover_new(a.marks);
	a.marks_box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
	gtk_container_add(GTK_CONTAINER(mpop), a.marks_box);
	gtk_widget_show(a.marks_box);
	gtk_menu_button_set_popover(GTK_MENU_BUTTON(a.marks), mpop);
	gtk_widget_set_sensitive(a.marks, FALSE);
	gtk_box_pack_start(GTK_BOX(bar), a.marks, FALSE, FALSE, 0);
	a.keysb = gtk_button_new_with_label("?");
	gtk_widget_set_tooltip_text(a.keysb, "the keys, and what the pointer "
					     "does (?)");
	g_signal_connect(a.keysb, "clicked", G_CALLBACK(on_keys), &a);
	gtk_box_pack_start(GTK_BOX(bar), a.keysb, FALSE, FALSE, 0);
	a.connected = gtk_toggle_button_new_with_label("connected");
	gtk_widget_set_tooltip_text(a.connected, "only the threads causally "
						 "connected to "
						 "the double-clicked one (C)");
	g_signal_connect(a.connected, "toggled", G_CALLBACK(on_connected), &a);
	gtk_box_pack_start(GTK_BOX(bar), a.connected, FALSE, FALSE, 0);
	a.depth = gtk_combo_box_text_new();
	static const char *depth_names[] = {"all", "direct", "2", "3"};
	for (int i = 0; i < 4; i++)
		gtk_combo_box_text_append_text(GTK_COMBO_BOX_TEXT(a.depth),
					       depth_names[i]);
	gtk_combo_box_set_active(GTK_COMBO_BOX(a.depth), 0);
	gtk_widget_set_tooltip_text(a.depth, "how many arrows from the thread "
					     "the causal "
					     "chain goes (1-3 keys: direct, 2, "
					     "3; 0: all)");
	g_signal_connect(a.depth, "changed", G_CALLBACK(on_depth), &a);
	gtk_box_pack_start(GTK_BOX(bar), a.depth, FALSE, FALSE, 0);
	a.counters = gtk_menu_button_new();
	gtk_button_set_label(GTK_BUTTON(a.counters), "counters");
	GtkWidget *pop = gtk_popover_new(a.counters);
	a.counter_box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
	gtk_container_set_border_width(GTK_CONTAINER(a.counter_box), 6);
	gtk_container_add(GTK_CONTAINER(pop), a.counter_box);
	gtk_widget_show(a.counter_box);
	gtk_menu_button_set_popover(GTK_MENU_BUTTON(a.counters), pop);
	g_signal_connect_after(pop, "show", G_CALLBACK(on_popover_shown), &a);
	gtk_box_pack_start(GTK_BOX(bar), a.counters, FALSE, FALSE, 0);
	if (!a.pair) { /* the query bar's one-click view */
		a.slowest = gtk_button_new_with_label("slowest");
		gtk_widget_set_tooltip_text(a.slowest, "the slowest requests, "
						       "in the "
						       "query bar (: opens it "
						       "for SQL)");
		g_signal_connect(a.slowest, "clicked", G_CALLBACK(on_slowest),
				 &a);
		gtk_box_pack_start(GTK_BOX(bar), a.slowest, FALSE, FALSE, 0);
	}
	a.search = gtk_search_entry_new();
	g_signal_connect(a.search, "search-changed", G_CALLBACK(on_search), &a);
	a.matches = gtk_label_new("");
	gtk_box_pack_end(GTK_BOX(bar), a.matches, FALSE, FALSE, 4);
	gtk_box_pack_end(GTK_BOX(bar), a.search, FALSE, FALSE, 0);
	/* where the last picture went */
	a.status = gtk_label_new("");
	gtk_label_set_ellipsize(GTK_LABEL(a.status), PANGO_ELLIPSIZE_START);
	gtk_box_pack_end(GTK_BOX(bar), a.status, TRUE, TRUE, 4);
	gtk_box_pack_start(GTK_BOX(box), bar, FALSE, FALSE, 2);
	if (!a.pair)
		gtk_box_pack_start(GTK_BOX(box), query_bar(&a), FALSE, FALSE,
				   2);

	/* the picture, and the inspector beside it at a fixed width */
	GtkWidget *pane = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0);
	a.area = gtk_drawing_area_new();
	gtk_widget_set_can_focus(a.area, TRUE);
	gtk_widget_add_events(a.area, GDK_SCROLL_MASK | GDK_SMOOTH_SCROLL_MASK |
					      GDK_BUTTON_PRESS_MASK |
					      GDK_BUTTON_RELEASE_MASK |
					      GDK_POINTER_MOTION_MASK |
					      GDK_LEAVE_NOTIFY_MASK |
					      GDK_TOUCH_MASK |
					      GDK_KEY_PRESS_MASK);
	g_signal_connect(a.area, "draw", G_CALLBACK(on_draw), &a);
	gtk_widget_set_has_tooltip(a.area, TRUE);
	g_signal_connect(a.area, "query-tooltip", G_CALLBACK(on_tooltip), &a);
	g_signal_connect(a.area, "scroll-event", G_CALLBACK(on_scroll), &a);
	g_signal_connect(a.area, "touch-event", G_CALLBACK(on_touch), &a);
	g_signal_connect(a.area, "button-press-event", G_CALLBACK(on_press),
			 &a);
	g_signal_connect(a.area, "button-release-event", G_CALLBACK(on_release),
			 &a);
	g_signal_connect(a.area, "motion-notify-event", G_CALLBACK(on_motion),
			 &a);
	g_signal_connect(a.area, "leave-notify-event", G_CALLBACK(on_leave),
			 &a);
	g_signal_connect(a.win, "key-press-event", G_CALLBACK(on_key), &a);
	g_signal_connect(a.area, "leave-notify-event", G_CALLBACK(on_leave),
			 &a);
	g_signal_connect(a.area, "size-allocate", G_CALLBACK(on_area_size), &a);
	gtk_box_pack_start(GTK_BOX(pane), a.area, TRUE, TRUE, 0);
	gtk_box_pack_start(GTK_BOX(pane), inspector_pane(&a), FALSE, FALSE, 0);
	gtk_box_pack_start(GTK_BOX(box), pane, TRUE, TRUE, 0);
	gtk_container_add(GTK_CONTAINER(a.win), box);
	counters_menu(&a);
	a.echo = view_hooks_echo();
	if (view_state && !a.pair) {
		char why[400];
		if (weft_view_set_state(a.v, view_state, why, sizeof why)) {
			fprintf(stderr, "weft view: --view: %s\n", why);
			return 2;
		}
		marks_list(&a);
	}
	theme_set(&a, desktop_dark());
	if (gtk_settings_get_default()) {
		g_signal_connect(gtk_settings_get_default(),
				 "notify::gtk-application-prefer-dark-theme",
				 G_CALLBACK(on_theme_changed), &a);
		g_signal_connect(gtk_settings_get_default(),
				 "notify::gtk-theme-name",
				 G_CALLBACK(on_theme_changed), &a);
	}
	if (a.pair) {
		pair_connect(&a);
		pair_said(&a);
	}
	gtk_widget_show_all(a.win);
	gtk_widget_grab_focus(a.area); /* (not the first button) */
	view_hooks_start(&a);
	if (!a.pair) /* (compared runs are read as they are) */
		g_timeout_add(200, on_tick, &a);
	gtk_main();
	if (a.pair) {
		weft_pair_free(a.pair);
		for (int s = 0; s < 2; s++) {
			weft_model_free(a.pm[s]);
			weft_reader_close(a.pr[s]);
		}
	} else {
		weft_view_free(a.v);
		weft_model_free(a.m);
		weft_reader_close(a.r);
	}
	for (unsigned i = 0; i < o.noffsets; i++)
		g_free((char *)host[i]);
	g_free(paths);
	return 0;
}
