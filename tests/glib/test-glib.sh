#!/bin/bash
# SPDX-License-Identifier: MIT
# test-glib.sh - `weft record` on GLib programs: the project's GIO program
# (sources, GTasks, asynchronous file and socket calls, a failing one, a
# cancelled one), weft's own GTK viewer, zenity from Debian, which
# nobody here wrote, and a program with two loops (libuv and GLib).  TAP
# output.
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
W=$WEFT_BIN
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"
EX=$WEFT_BUILD/examples
. "$WEFT_SRC/tests/tap.sh"
tap_init glib "$@"
check() { python3 "$WEFT_SRC/tests/glib/glib_check.py" "$W" "$@"; }
# The biggest trace of a run: the process that did the work.
# the biggest ring of a run directory (weft record -o DIR)
biggest() { ls -S "$1"/ring "$1"/ring.* 2>/dev/null | head -1; }

t_demo() {
	"$EX/gio-demo" | sort >plain.txt || die "gio-demo failed"
	"$W" record -o g.weft --mode discard -- "$EX/gio-demo" >traced.raw 2>rec.txt || die "record: $(cat rec.txt)"
	sort traced.raw >traced.txt
	cmp plain.txt traced.txt || die "output changed: $(diff plain.txt traced.txt)"
	grep -q "traced loops: GLib; preloaded: libuv, libevent, GLib (all of them: --loops chooses)" rec.txt || die "$(cat rec.txt)"
	"$W" info g.weft | grep -q "0 packets lost, 0 torn, 0 corrupt; 0 events discarded" || die "losses"
	check demo g.weft
}

# weft's own viewer, a GTK program: it draws a trace and exits
# (WEFT_VIEW_SCREENSHOT), the same picture traced or not.
t_viewer() {
	[ -x "$WEFT_BUILD/viewer/weft-view" ] || die "no GTK viewer in this build"
	command -v xvfb-run >/dev/null || die "no xvfb-run"
	WEFT_FILE=arp.weft "$EX/arp" bad >/dev/null 2>&1
	WEFT_VIEW_SCREENSHOT=plain.png timeout 60 xvfb-run -a -s "-screen 0 1280x800x24" "$W" view arp.weft >/dev/null 2>&1 || die "viewer failed"
	WEFT_VIEW_SCREENSHOT=traced.png timeout 60 xvfb-run -a -s "-screen 0 1280x800x24" "$W" record -o v.weft -- "$W" view arp.weft >/dev/null 2>rec.txt || die "traced viewer failed: $(cat rec.txt)"
	cmp plain.png traced.png || die "the picture changed"
	grep -q "loops: GLib" rec.txt || die "$(cat rec.txt)"
	check gtk "$(biggest v.weft)"
}

# zenity, from Debian: a dialog that closes itself after a second.
t_zenity() {
	command -v zenity >/dev/null || die "zenity missing"
	timeout 60 xvfb-run -a zenity --info --text=weft --timeout=1 >/dev/null 2>&1; local p=$?
	timeout 60 xvfb-run -a "$W" record -o z.weft -- zenity --info --text=weft --timeout=1 >/dev/null 2>rec.txt; local t=$?
	[ $p = $t ] || die "status $p untraced, $t traced: $(cat rec.txt)"
	grep -q "traced loops: GLib" rec.txt || die "$(cat rec.txt)"
	check zenity "$(biggest z.weft)"
}

# A program with two loops, libuv's and GLib's: weft record preloads both
# shims and traces both; --loops chooses.
t_two_loops() {
	[ -x "$EX/two-loops" ] || die "no two-loops in this build (libuv and GLib)"
	"$EX/two-loops" >plain.txt || die "two-loops failed"
	"$W" record -o two.weft -- "$EX/two-loops" >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
	cmp plain.txt traced.txt || die "output changed: $(diff plain.txt traced.txt)"
	grep -q "loops: libuv, GLib$" rec.txt && grep -q "traced loops: libuv, GLib; preloaded: libuv, libevent, GLib (all of them: --loops chooses)" rec.txt || die "$(cat rec.txt)"
	"$W" dump two.weft >dump.txt || die "dump"
	grep -q 'kind="uv_timer_t"' dump.txt && grep -q 'kind="GSource timeout" label="timeout 1 ms -> on_glib_timeout"' dump.txt || die "$(cat dump.txt)"
	"$W" record --loops uv -o one.weft -- "$EX/two-loops" >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
	cmp plain.txt traced.txt || die "output changed with --loops uv"
	grep -q "traced loops: libuv; preloaded: libuv (chosen with --loops)" rec.txt || die "$(cat rec.txt)"
	"$W" dump one.weft >dump.txt || die "dump"
	grep -q 'kind="uv_timer_t"' dump.txt && ! grep -q 'GSource' dump.txt || die "--loops uv traced GLib: $(cat dump.txt)"
}

export W EX T WEFT_SRC WEFT_BUILD
run gio_sources_tasks_calls t_demo
run weft_view_traced t_viewer
run zenity_from_debian t_zenity
run two_loops_one_program t_two_loops
tap_done
