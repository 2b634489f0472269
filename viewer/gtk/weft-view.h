/* SPDX-License-Identifier: MIT */
/*
 * weft-view.h - what the GTK viewer's two files share: the window's
 * state (struct app) and the columns of its lists, for weft-view.c (the
 * product) and weft-view-hooks.c (what the tests drive and read).
 */
#ifndef WEFT_VIEW_GTK_H
#define WEFT_VIEW_GTK_H

#include <gtk/gtk.h>
#include <stdint.h>

struct weft_reader;
struct weft_model;
struct weft_view;
struct weft_pair;
struct weft_merge_opts;

/* The columns of the inspector's entries, the summary's and the query
 * bar's rows. */
enum { E_TEXT, E_THREAD, E_COLOR, E_COLUMNS };
enum { S_TEXT, S_LINE, S_COLUMNS };
enum { Q_TEXT, Q_THREAD, Q_COLUMNS };

struct app {
	const char *path;
	struct weft_reader *r;
	struct weft_model *m;
	struct weft_view *v;
	GtkWidget *win, *area, *search, *inspector, *counters, *counter_box;
	GtkWidget *entries;  /* the inspector's entries (a GtkTreeView) */
	GtkListStore *store; /* its rows: text, thread named, colour */
	GtkWidget *connected, *depth, *png, *status, *matches;
	uint32_t ncounters; /* in the counters menu */
	double drag_x, drag_y, press_x, press_y;
	int dragging, moved, live, echo;
	int measuring;	  /* a drag that measures (on the ruler, or shift) */
	GtkWidget *help;  /* the keys, shown by ? */
	GtkWidget *keysb; /* the "?" button: shows them too */
	GtkWidget *marks, *marks_box; /* the bookmarks' menu and its list */
	/* the measured range's summary (a GtkTreeView over the inspector)
	 * and its rows: text, line number */
	GtkWidget *sum_list;
	GtkListStore *sum_store;
	int w, h;
	/* fingers on the picture (a touch screen): one pans, two pinch */
	struct finger {
		GdkEventSequence *seq;
		double x, y;
	} finger[2];
	int fingers;
	/* Two runs to compare (`weft view --compare GOOD BAD`): the pair,
	 * each side's trace and model; v, m and r are those of `side`, the
	 * half the pointer last acted in. */
	struct weft_pair *pair;
	struct weft_reader *pr[2];
	struct weft_model *pm[2];
	const char *names[2];
	int side;
	/* the query bar (':', "slowest"): SQL over the trace */
	GtkWidget *qbar, *qentry, *qstatus, *qlist, *qhead, *slowest;
	GtkListStore *qstore; /* its rows: text, thread (or WEFT_NONE) */
	/* A kept directory (docs/keep.md) followed: read again, whole, each
	 * time its keeper adds a chunk, until the keeper has ended. */
	const char *const *paths;
	unsigned npaths;
	const struct weft_merge_opts *mo;
	int kept, kept_over;
	unsigned long long kept_sig;
};

/* weft-view.c's, that the hooks use */
GRegex *time_re(void);
int save(struct app *a, const char *out);

/* weft-view-hooks.c: the test hooks (WEFT_VIEW_ECHO, _SEARCH, _EVENTS,
 * _SCREENSHOT, _DELAY_MS).  echo() says a line on stderr under
 * WEFT_VIEW_ECHO (view_hooks_echo()); view_hooks_start() starts the
 * others once the window is shown; the rest say where widgets are once
 * laid out. */
void echo(struct app *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int view_hooks_echo(void);
void view_hooks_start(struct app *a);
void echo_place(struct app *a, GtkWidget *w, const char *name);
gboolean echo_entries(gpointer data);
gboolean echo_summary(gpointer data);
gboolean echo_qrows(gpointer data);
void on_area_size(GtkWidget *w, GdkRectangle *r, gpointer data);
void on_popover_shown(GtkWidget *pop, gpointer data);

#endif
