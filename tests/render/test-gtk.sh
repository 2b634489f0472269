#!/bin/bash
# SPDX-License-Identifier: MIT
# test-gtk.sh - the GTK viewer under Xvfb: it draws the trace with each
# arrow colour, search highlights in yellow, and it follows a trace that is
# still being written.  TAP output.
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}"
W=$WEFT_BIN
# GTK and fontconfig keep memory until exit by design: under the
# sanitizer build, do not report their leaks.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
EX=$WEFT_BUILD/examples
PC=$WEFT_BUILD/tests/render/pixcount
T=$(mktemp -d "${TMPDIR:-/tmp}/weft-gtk.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; echo "# $2"; }
shot() { # out trace [env...]
	local out=$1 trace=$2; shift 2
	env "$@" WEFT_VIEW_SCREENSHOT="$out" timeout 60 xvfb-run -a -s "-screen 0 1400x900x24" "$W" view "$trace" >/dev/null 2>&1
}

WEFT_FILE=bad.weft "$EX/arp" bad >/dev/null
shot plain.png bad.weft
if [ -s plain.png ]; then
	g=$("$PC" plain.png 0 128 0) b=$("$PC" plain.png 0 0 255) o=$("$PC" plain.png 255 153 0) r=$("$PC" plain.png 204 0 0)
	y=$("$PC" plain.png 255 255 0)
	if [ "$g" -gt 5 ] && [ "$b" -gt 5 ] && [ "$o" -gt 5 ] && [ "$r" -gt 100 ] && [ "$y" = 0 ]; then
		ok "window draws green, blue, orange arrows and the red never-resolved line"
	else nok "arrow colours" "green $g blue $b orange $o red $r yellow $y"; fi
else nok "window draws" "no screenshot"; fi

shot search.png bad.weft WEFT_VIEW_SEARCH="tcp connect"
y=$("$PC" search.png 255 255 0)
if [ "${y:-0}" -gt 200 ]; then ok "search highlights in yellow"; else nok "search" "yellow $y"; fi

WEFT_FILE=live.weft "$EX/ticker" 4 >/dev/null &
tp=$!
sleep 0.5
shot early.png live.weft WEFT_VIEW_DELAY_MS=100 &
shot late.png live.weft WEFT_VIEW_DELAY_MS=2500
wait
kill $tp 2>/dev/null
e=$("$PC" early.png 255 255 255) l=$("$PC" late.png 255 255 255)
# the view follows the trace: more ticks drawn (white: running) later,
# and the counter plot grows
if [ -s early.png ] && [ -s late.png ] && ! cmp -s early.png late.png; then
	ok "follows a live trace (the picture changes as it grows)"
else nok "live" "early $e late $l"; fi

"$W" view 2>/dev/null; [ $? = 2 ] && ok "usage" || nok "usage" "exit not 2"
echo "1..$n"
echo "# $((n - fails)) passed, $fails failed, 0 skipped"
[ $fails = 0 ]
