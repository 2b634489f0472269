#!/bin/bash
# SPDX-License-Identifier: MIT
# test-render-cli.sh - `weft render` with no display: the picture's
# colours, search, selection with its causal chain, only the connected
# threads, focus, counters hidden by name, SVG, and its errors.  TAP.
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}"
W=$WEFT_BIN
# Under the sanitizer build: fontconfig's memory, kept until exit by
# design, is not a leak of ours (weft's own still are).
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp"
EX=$WEFT_BUILD/examples
PC=$WEFT_BUILD/tests/render/pixcount
T=$(mktemp -d "${TMPDIR:-/tmp}/weft-render.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; echo "# $2"; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "$3"; fi; }

WEFT_FILE=bad.weft "$EX/arp" bad >/dev/null
WEFT_FILE=all.weft "$EX/all-events" >/dev/null

"$W" render bad.weft -o plain.png 2>err
g=$("$PC" plain.png 0 128 0) b=$("$PC" plain.png 0 0 255) r=$("$PC" plain.png 204 0 0) o=$("$PC" plain.png 255 153 0)
check "arrows in their colours, the red never-resolved line" \
	'[ "$g" -gt 5 ] && [ "$b" -gt 5 ] && [ "$o" -gt 5 ] && [ "$r" -gt 100 ]' "green $g blue $b orange $o red $r"
read -r w h < <("$PC" plain.png)
check "the default size fits every row" '[ "$w" = 1280 ] && [ "$h" -ge 200 ]' "$w x $h"

"$W" render bad.weft -o s.png --search "tcp CONNECT" 2>err
y=$("$PC" s.png 255 255 0)
check "--search highlights and counts" '[ "$y" -gt 100 ] && grep -q "matches 1 threads" err' "yellow $y: $(cat err)"

"$W" render bad.weft -o sel.png --select 0x4 2>err
c=$("$PC" sel.png 176 222 207) s=$("$PC" sel.png 255 115 0)
check "--select outlines the thread and highlights its causal chain" \
	'[ "$c" -gt 200 ] && [ "$s" -gt 20 ]' "chain $c outline $s: $(cat err)"

"$W" render bad.weft -o conn.png --select 0x4 --connected 2>err
read -r w2 h2 < <("$PC" conn.png)
o2=$("$PC" conn.png 255 153 0)
# (the plain picture is taller than the 200-px minimum, so leaving out a
# row must show; the chain's orange signal arrow, port-4 -> ARP response,
# stays)
check "--connected shows only the chain (fewer rows, a shorter picture)" \
	'[ "$h" -gt 200 ] && [ "$h2" -lt "$h" ] && [ "$h2" -ge 200 ] && [ "$o2" -gt 5 ]' "$h -> $h2, orange $o2"
"$W" render bad.weft -o x.png --connected 2>err; e=$?
check "--connected without --select is an error" '[ $e = 1 ] && grep -q "needs --select" err' "exit $e: $(cat err)"

"$W" render all.weft -o ctr.png 2>err
c0=$("$PC" ctr.png 255 102 102)
"$W" render all.weft -o noctr.png --hide-counter busy-workers 2>err
c1=$("$PC" noctr.png 255 102 102)
# (what is left of the colour: the antialiased edges of a red arrow)
check "--hide-counter hides that counter" '[ "$c0" -gt 500 ] && [ "$c1" -lt $((c0 / 10)) ]' "before $c0 after $c1"
"$W" render all.weft -o x.png --hide-counter nosuch 2>err; e=$?
check "an unknown counter is an error" '[ $e = 1 ] && grep -q "no counter .nosuch." err' "exit $e: $(cat err)"

"$W" render bad.weft -o f.png --focus 0x5 --height 200 2>err; e=$?
"$W" render bad.weft -o x.png --focus 0xdead 2>err2; e2=$?
check "--focus takes a thread, and says when there is none" \
	'[ $e = 0 ] && [ -s f.png ] && [ $e2 = 1 ] && grep -q "no thread 0xdead" err2' "exit $e/$e2: $(cat err err2)"

"$W" render bad.weft -o v.svg 2>err
check "SVG" 'grep -q "<svg" v.svg' "$(head -c 200 v.svg)"

"$W" render bad.weft -o v.jpg 2>/dev/null; e=$?
"$W" render 2>/dev/null; e2=$?
check "usage errors exit 2" '[ $e = 2 ] && [ $e2 = 2 ]' "exit $e, $e2"

echo "1..$n"
echo "# $((n - fails)) passed, $fails failed, 0 skipped"
[ $fails = 0 ]
