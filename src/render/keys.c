/* SPDX-License-Identifier: MIT */
/*
 * keys.c - the viewers' one key table (keys.h): read by GTK's dispatch
 * and help, and by the web viewer through the wasm exports w_key and
 * w_keys_help.  Its order is the help's.
 */
#include <string.h>

#include "keys.h"

#define ALL WEFT_KEYS_ALL
#define GTK WEFT_KEYS_GTK

/* clang-format off */
const struct weft_key weft_keys[] = {
	{"w", WEFT_DO_ZOOM, 1, "W  +", "zoom in", ALL},
	{"+", WEFT_DO_ZOOM, 1, NULL, NULL, ALL},
	{"s", WEFT_DO_ZOOM, -1, "S  -", "zoom out", ALL},
	{"-", WEFT_DO_ZOOM, -1, NULL, NULL, ALL},
	{"a", WEFT_DO_PAN, -1, "A  Left", "pan to earlier times", ALL},
	{"ArrowLeft", WEFT_DO_PAN, -1, NULL, NULL, ALL},
	{"d", WEFT_DO_PAN, 1, "D  Right", "pan to later times", ALL},
	{"ArrowRight", WEFT_DO_PAN, 1, NULL, NULL, ALL},
	{"f", WEFT_DO_FIT, 0, "F", "fit the whole trace", ALL},
	{"ArrowUp", WEFT_DO_FOCUS, -1, "Up  Down", "move the rows in focus", ALL},
	{"ArrowDown", WEFT_DO_FOCUS, 1, NULL, NULL, ALL},
	{"PageUp", WEFT_DO_FOCUS, -10, "PgUp  PgDn", "move the focus by ten rows", ALL},
	{"PageDown", WEFT_DO_FOCUS, 10, NULL, NULL, ALL},
	{"c", WEFT_DO_CONNECTED, 0, "C", "only the causal chain, and back", ALL},
	{"1", WEFT_DO_DEPTH, 1, "1 2 3 0", "the chain's depth: 1, 2, 3 arrows, all", ALL},
	{"2", WEFT_DO_DEPTH, 2, NULL, NULL, ALL},
	{"3", WEFT_DO_DEPTH, 3, NULL, NULL, ALL},
	{"0", WEFT_DO_DEPTH, 0, NULL, NULL, ALL},
	{"n", WEFT_DO_MATCH, 1, "n  Enter", "the next match of the search", ALL},
	{"N", WEFT_DO_MATCH, -1, "N  Shift+Enter", "the previous match", ALL},
	{"z", WEFT_DO_ZOOM_MEASURE, 0, "Z", "zoom to the measured range", ALL},
	{"p", WEFT_DO_PATH, 0, "P", "the selected thread's critical path, and back", ALL},
	{"l", WEFT_DO_ALIGN, 0, "L", "two runs: line them up at the selected thread (none: the first divergence)", ALL},
	{"Escape", WEFT_DO_CLEAR, 0, "Esc", "clear the selection, the search and the measure", ALL},
	{"?", WEFT_DO_HELP, 0, "?", "show or hide these keys", ALL},
	/* (a page has no SQLite: its standard views are a panel) */
	{":", WEFT_DO_QUERY, 0, ":", "the query bar: SQL over the trace (weft query's tables)", GTK},
	{"t", WEFT_DO_THEME, 0, "T", "dark or light colours (first: the desktop's)", ALL},
	{"v", WEFT_DO_STATE, 0, "V", "say the view's state (for weft render --view, or a page's address after #)", ALL},
	{"b", WEFT_DO_BOOKMARK, 0, "B", "drop a bookmark at the pointer (asks for a note)", ALL},
	{"]", WEFT_DO_MARK, 1, "]  [", "the next, the previous bookmark", ALL},
	{"[", WEFT_DO_MARK, -1, NULL, NULL, ALL},
};
/* clang-format on */
const size_t weft_nkeys = sizeof weft_keys / sizeof *weft_keys;

const struct weft_pointer_help weft_pointer_help[] = {
	{"wheel", "zoom", ALL},
	{"drag", "pan (never selects)", ALL},
	{"touch", "a finger pans, two pinch (zoom)", ALL},
	{"click", "select a thread", ALL},
	{"double-click", "its causal chain", ALL},
	{"drag the ruler", "measure a range (or shift+drag)", ALL},
};
const size_t weft_npointer_help =
	sizeof weft_pointer_help / sizeof *weft_pointer_help;

static const struct weft_key *find(const char *key, unsigned viewer)
{
	for (size_t i = 0; i < weft_nkeys; i++)
		if ((weft_keys[i].in & viewer) &&
		    !strcmp(weft_keys[i].key, key))
			return &weft_keys[i];
	return NULL;
}

const struct weft_key *weft_key_find(const char *key, unsigned viewer)
{
	if (!key)
		return NULL;
	const struct weft_key *k = find(key, viewer);
	if (!k && key[0] >= 'A' && key[0] <= 'Z' && !key[1]) {
		char small[2] = {(char)(key[0] - 'A' + 'a'), 0};
		k = find(small, viewer);
	}
	return k;
}

const char *weft_key_do_name(enum weft_key_do what)
{
	static const char *const names[WEFT_DO_N] = {
		[WEFT_DO_ZOOM] = "zoom",
		[WEFT_DO_PAN] = "pan",
		[WEFT_DO_FIT] = "fit",
		[WEFT_DO_FOCUS] = "focus",
		[WEFT_DO_CONNECTED] = "connected",
		[WEFT_DO_DEPTH] = "depth",
		[WEFT_DO_MATCH] = "match",
		[WEFT_DO_ZOOM_MEASURE] = "zoom-measure",
		[WEFT_DO_PATH] = "path",
		[WEFT_DO_ALIGN] = "align",
		[WEFT_DO_CLEAR] = "clear",
		[WEFT_DO_HELP] = "help",
		[WEFT_DO_QUERY] = "query",
		[WEFT_DO_THEME] = "theme",
		[WEFT_DO_STATE] = "state",
		[WEFT_DO_BOOKMARK] = "bookmark",
		[WEFT_DO_MARK] = "mark",
	};
	return (unsigned)what < WEFT_DO_N ? names[what] : NULL;
}
