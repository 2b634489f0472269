/* SPDX-License-Identifier: MIT */
/*
 * keys.h - the viewers' keys: one table for `weft view` (GTK) and the
 * HTML viewer.  Each row is a key (a KeyboardEvent.key name: "w", "+",
 * "ArrowLeft", "Escape"), the action it does with its argument, and, on
 * the first key of a help line, the names and the text the '?' help
 * shows.  GTK translates its key symbols into these names; the web viewer
 * asks the wasm module (w_key, w_keys_help).  Each viewer binds the
 * actions to its widgets; the keys, their help and its order are here
 * only.  A row for one viewer only is absent from the other's lookup and
 * help.
 */
#ifndef WEFT_RENDER_KEYS_H
#define WEFT_RENDER_KEYS_H

#include <stddef.h>

/* The actions, with what their argument means. */
enum weft_key_do {
	WEFT_DO_ZOOM,	      /* 1 in, -1 out, by WEFT_KEY_ZOOM_STEP */
	WEFT_DO_PAN,	      /* -1 earlier, 1 later, by WEFT_KEY_PAN_PARTS */
	WEFT_DO_FIT,	      /* the whole trace */
	WEFT_DO_FOCUS,	      /* move the rows in focus by arg */
	WEFT_DO_CONNECTED,    /* only the causal chain, and back */
	WEFT_DO_DEPTH,	      /* the chain's depth: arg (0: all) */
	WEFT_DO_MATCH,	      /* the next (1) or previous (-1) match */
	WEFT_DO_ZOOM_MEASURE, /* zoom to the measured range */
	WEFT_DO_PATH,	      /* the selected thread's critical path */
	WEFT_DO_ALIGN,	      /* two runs lined up */
	WEFT_DO_CLEAR,	      /* selection, search, measure, help */
	WEFT_DO_HELP,	      /* the help, shown or hidden */
	WEFT_DO_QUERY,	      /* the query bar */
	WEFT_DO_THEME,	      /* dark or light */
	WEFT_DO_STATE,	      /* say the view's state */
	WEFT_DO_BOOKMARK,     /* drop a bookmark at the pointer */
	WEFT_DO_MARK,	      /* the next (1) or previous (-1) bookmark */
	WEFT_DO_N
};

/* The viewers, for a row of one of them only. */
#define WEFT_KEYS_GTK 1u
#define WEFT_KEYS_WEB 2u
#define WEFT_KEYS_ALL (WEFT_KEYS_GTK | WEFT_KEYS_WEB)

/* The keys' steps: a zoom key's factor; a pan key's, the picture's
 * width over WEFT_KEY_PAN_PARTS. */
#define WEFT_KEY_ZOOM_STEP 1.25
#define WEFT_KEY_PAN_PARTS 5

struct weft_key {
	const char *key;       /* KeyboardEvent.key's name */
	enum weft_key_do what; /* the action */
	int arg;	       /* its argument */
	const char *names;     /* the help's line: on its first key, or NULL */
	const char *help;
	unsigned in; /* the viewers that have it (WEFT_KEYS_*) */
};

/* The table, in the help's order. */
extern const struct weft_key weft_keys[];
extern const size_t weft_nkeys;

/* The pointer's actions, in the help after the keys. */
struct weft_pointer_help {
	const char *names, *help;
	unsigned in;
};
extern const struct weft_pointer_help weft_pointer_help[];
extern const size_t weft_npointer_help;

/* The row of `key` in `viewer` (WEFT_KEYS_GTK or _WEB), or NULL.  A
 * capital letter that has no row of its own (Shift, Caps Lock) is its
 * small letter's: "N" has a row (the previous match), "W" is "w". */
const struct weft_key *weft_key_find(const char *key, unsigned viewer);

/* An action's name ("zoom", "zoom-measure"): what the web viewer binds;
 * NULL out of range. */
const char *weft_key_do_name(enum weft_key_do what);

#endif
