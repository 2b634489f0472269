#!/bin/bash
# SPDX-License-Identifier: MIT
# test-render-cli.sh - `weft render` with no display: the picture's
# colours, search, selection with its causal chain, a critical path, only
# the connected threads, focus, counters hidden by name, SVG, and its
# errors; two runs to compare, one above the other, and the rule that
# tells them from parts of one run.  TAP.
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

# The time ruler along the top (its pale yellow band), and no row under
# it: the picture's first rows of pixels are the ruler's alone
rb=$("$PC" plain.png 224 219 189)
# (its 20 rows, less what its labels, ticks and corner cover: the times
# of a trace, so its labels, differ between builds)
check "a time ruler along the top" '[ "$rb" -gt $((1280 * 11)) ] && [ "$rb" -lt $((1280 * 21)) ]' "ruler pixels $rb"

# --start and --duration read the times the ruler writes ("2.5ms",
# "120us", "1.2s", "0"): spelt in other units, the same picture
"$W" render bad.weft -o u1.png --start 2us --duration 10us 2>err; e1=$?
"$W" render bad.weft -o u2.png --start 2000ns --duration 0.01ms 2>>err; e2=$?
"$W" render bad.weft -o u3.png --start 0.000002s --duration "10 us" 2>>err; e3=$?
"$W" render bad.weft -o u4.png --start 3us --duration 10us 2>>err
check "--start and --duration take the ruler's units" \
	'[ $e1 = 0 ] && [ $e2 = 0 ] && [ $e3 = 0 ] && cmp -s u1.png u2.png && cmp -s u1.png u3.png && ! cmp -s u1.png u4.png' \
	"exit $e1 $e2 $e3: $(cat err)"
"$W" render bad.weft -o z.png --start 0 --duration 1.25us 2>err; e1=$?
"$W" render bad.weft -o x.png --start 2.5 --duration 1.2 2>/dev/null; e2=$?
"$W" render bad.weft -o x.png --duration 2.5msec 2>err2; e3=$?
check "0, a bare number (seconds) and a bad unit" \
	'[ $e1 = 0 ] && [ $e2 = 1 ] && [ $e3 = 2 ] && grep -q "must be a time such as 2.5ms" err2' \
	"exit $e1 $e2 $e3: $(cat err err2)"

"$W" render bad.weft -o s.png --search "tcp CONNECT" 2>err
y=$("$PC" s.png 255 255 0)
check "--search highlights and counts" '[ "$y" -gt 100 ] && grep -q "matches 1 threads" err' "yellow $y: $(cat err)"

"$W" render bad.weft -o sel.png --select 0x4 2>err
c=$("$PC" sel.png 176 222 207) s=$("$PC" sel.png 255 115 0)
check "--select outlines the thread and highlights its causal chain" \
	'[ "$c" -gt 200 ] && [ "$s" -gt 20 ]' "chain $c outline $s: $(cat err)"

# --path: main's critical path in magenta, its four threads (known
# from the example), its split said; none in the plain picture; no such
# thread: an error
"$W" render bad.weft -o path.png --path main 2>err; e=$?
# (known from the example: main waits on TCP connect, which waits on the
# ring's write, acked by port-4's event, then on the ARP response: four
# threads, not what weft why says, which is the same code)
want=4
"$W" why bad.weft --path main --json >path.json
on=$(python3 -c "
import json, sys
j = json.load(open('path.json'))
print(' '.join(sorted({hex(s['thread']['id']) for s in j['segments']})))")
[ "$on" = "0x2 0x3 0x4 0x65" ] || want="weft why --path's threads are $on, not main, TCP connect, ARP response and port-4's ack"
mg=$("$PC" path.png 217 0 140) mg0=$("$PC" plain.png 217 0 140)
"$W" render bad.weft -o x.png --path 0x99 2>err2; e2=$?
check "--path highlights a thread's critical path and says its split" \
	'[ $e = 0 ] && [ "$mg" -gt 200 ] && [ "$mg0" = 0 ] && grep -Eq "^weft: critical path of main \($want threads, [0-9.]+ [num]?s\): running [0-9.]+ [num]?s, waiting [0-9.]+ [num]?s \(on TCP connect [0-9.]+ [num]?s\)" err && [ $e2 = 1 ] && grep -q "no thread 0x99" err2' \
	"exit $e $e2, magenta $mg (plain $mg0), want $want threads: $(cat err err2)"

"$W" render bad.weft -o conn.png --select 0x4 --connected 2>err
read -r w2 h2 < <("$PC" conn.png)
o2=$("$PC" conn.png 255 153 0)
# (the plain picture is taller than the 200-px minimum, so leaving out a
# row must show; the chain's orange signal arrow, port-4 -> ARP response,
# stays)
check "--connected shows only the chain (fewer rows, a shorter picture)" \
	'[ "$h" -gt 200 ] && [ "$h2" -lt "$h" ] && [ "$h2" -ge 200 ] && [ "$o2" -gt 5 ]' "$h -> $h2, orange $o2"
"$W" render bad.weft -o x.png --connected 2>err; e=$?
check "--connected without --select is a usage error" '[ $e = 2 ] && grep -q "needs --select" err' "exit $e: $(cat err)"

"$W" render all.weft -o ctr.png 2>err
c0=$("$PC" ctr.png 255 102 102)
"$W" render all.weft -o noctr.png --hide-counter busy-workers 2>err
c1=$("$PC" noctr.png 255 102 102)
# (what is left of the colour: the antialiased edges of a long red arrow;
# the plot is crisp 2 px boxes, a few hundred pixels on a loaded machine,
# where all-events runs longer and its counter steps less often)
check "--hide-counter hides that counter" '[ "$c0" -gt 150 ] && [ "$c1" -lt $((c0 / 4)) ]' "before $c0 after $c1"
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

# The causal chain is the library's (weft_chain): ARP response's is the
# five threads of the hang, its direct arrows three; --connected lays out
# exactly the chain's threads (26 px rows: the picture's height says how
# many).
"$W" render bad.weft -o c5.png --select 0x4 --connected 2>err
read -r _ hc < <("$PC" c5.png)
check "--select prints the chain's size: arp's five threads" \
	'grep -q "^weft: causal chain of ARP response: 5 threads$" err' "$(cat err)"
# (114 px of axis and margins, 26 px a row: the chain's five rows make
# 244 px, always -- main, TCP connect and the condition never end, the
# probe's write and the ARP response's event overlap. The whole trace
# adds the loop and the ack's event: six rows (270 px) when the ack's
# event comes late enough after the response's to share its row (the
# layout's gap rule, an eighth of a life), seven (296 px) when the
# machine was busy between them: more than the chain's either way.)
check "--connected: the chain's five rows, the whole trace's six or seven" \
	'[ "$hc" = 244 ] && { [ "$h" = 270 ] || [ "$h" = 296 ]; }' "heights $h (all) and $hc (the chain)"
"$W" render bad.weft -o c1.png --select 0x4 --depth 1 2>err
check "--depth 1: its direct arrows only" \
	'grep -q "^weft: causal chain of ARP response: 3 threads$" err' "$(cat err)"
"$W" render bad.weft -o x.png --select 0x4 --depth 0 2>/dev/null; e=$?
"$W" render bad.weft -o x.png --select 0x4 --depth two 2>/dev/null; e2=$?
check "--depth takes 1, 2, 3... or all" '[ $e = 2 ] && [ $e2 = 2 ]' "exit $e, $e2"

# A server-shaped trace: one request's chain is tens of threads, not the
# whole trace, and --connected lays out those only (packed: in as many
# rows or fewer; test-render checks the set itself).
"$WEFT_BUILD/bench/server-gen" -n 100000 -c 30 -o server.weft >/dev/null
req=$("$W" dump server.weft | sed -n 's/.* create child=\(0x[0-9a-f]*\) kind="http request".*/\1/p' | sed -n 200p)
"$W" render server.weft -o sc.png --select "$req" --connected --no-counters 2>err
size=$(sed -n 's/^weft: causal chain of .*: \([0-9]*\) threads$/\1/p' err)
read -r _ hs < <("$PC" sc.png)
check "a request's chain: tens of threads, and only they laid out" \
	'[ -n "$size" ] && [ "$size" -ge 5 ] && [ "$size" -le 40 ] && [ "$hs" -ge 200 ] && [ "$hs" -le $(( 18 + 26 * size + 16 + 80 )) ]' \
	"request $req: '$(cat err)', height $hs"

# A server whose connections mostly close soon but some live most of the
# trace: a 2 ms view shows its request (highlighted in yellow) on the
# full row right under the loop's, listener's, pool's and timer's (row
# 4: y 100..200 with its label and highlight), not squeezed under rows
# of connections waiting (the same arguments give the same trace)
"$WEFT_BUILD/bench/server-gen" -n 30000 -c 50 -o longconn.weft >/dev/null
"$W" render longconn.weft --start 500ms --duration 2ms --height 900 \
	--search "GET /api" -o lc.png 2>err
yt=$("$PC" lc.png 255 255 0 100 200) ya=$("$PC" lc.png 255 255 0)
check "long-lived connections: a zoomed view's requests on the rows under the top ones" \
	'[ "$yt" -gt 200 ] && [ "$yt" = "$ya" ]' "yellow $yt under the top rows, $ya in all: $(cat err)"

# A run of two processes: a header band each; --collapse PID leaves the
# child's header alone (the picture shrinks by its rows); a pid that heads
# no group is an error.
if [ -x "$EX/uv-echo-split" ]; then
	# (under ASan the preloaded shim comes before the runtime, as in
	# tests/uv)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0" \
		"$W" record -o sp -- "$EX/uv-echo-split" >/dev/null 2>&1
	child=$("$W" info sp | sed -n 's/^    \([0-9]*\) uv-echo-split: .*/\1/p' | head -1)
	# (header lines: the lines of the picture that cross a header's
	# band, 20 px high across the time its process's group spans; two
	# headers, the client's in a lane of its own while the server runs)
	hlines() {
		local h y n=0
		read -r _ h < <("$PC" "$1")
		for ((y = 0; y < h; y++)); do
			[ "$("$PC" "$1" 204 214 237 $y $((y + 1)))" -ge 8 ] && n=$((n + 1))
		done
		echo $n
	}
	"$W" render sp -o g.png 2>err
	read -r _ hg < <("$PC" g.png)
	bg=$(hlines g.png)
	"$W" render sp -o gc.png --collapse "$child" 2>err
	read -r _ hgc < <("$PC" gc.png)
	bgc=$(hlines gc.png)
	check "a run: a header per process, --collapse PID folds one" \
		'[ -n "$child" ] && [ "$bg" -ge 38 ] && [ "$bgc" -ge 38 ] && [ "$hgc" -lt "$hg" ]' \
		"child '$child', header lines $bg -> $bgc, height $hg -> $hgc: $(cat err)"
	"$W" render sp -o x.png --collapse 1 2>err; e=$?
	check "--collapse of no such process is an error" \
		'[ $e = 1 ] && grep -q "no process 1 among the groups of rows" err' "exit $e: $(cat err)"
fi

# Two runs to compare: the ARP example's good and bad runs (two whole
# runs of one program) are drawn one above the other, each half under its
# strip (dark blue) with its ruler, the first divergence's line (magenta)
# in both; --merge reads them as one run; rings of one run, or runs of two
# programs, are merged, and the note says how to get the other.
WEFT_FILE=good.weft "$EX/arp" good >/dev/null
"$W" render good.weft bad.weft -o pair.png 2>err; e=$?
read -r pw ph < <("$PC" pair.png)
half=$((ph / 2))
s0=$("$PC" pair.png 64 77 115 0 18) s1=$("$PC" pair.png 64 77 115 "$half" $((half + 18)))
m0=$("$PC" pair.png 204 0 204 18 "$half") m1=$("$PC" pair.png 204 0 204 $((half + 18)) "$ph")
r0=$("$PC" pair.png 224 219 189 0 "$half") r1=$("$PC" pair.png 224 219 189 "$half" "$ph")
check "two runs of one program: compared, one above the other" \
	'[ $e = 0 ] && grep -qx "weft: comparing good.weft with bad.weft: two runs of arp (--merge reads them as one run)" err &&
	 grep -qx "weft: first divergence: a wait on ARP response (condition) and a wake-up of it came in opposite orders" err &&
	 [ "$s0" -gt $((pw * 10)) ] && [ "$s1" -gt $((pw * 10)) ] && [ "$r0" -gt $((pw * 12)) ] && [ "$r1" -gt $((pw * 12)) ]' \
	"exit $e, strips $s0 $s1, rulers $r0 $r1: $(cat err)"
check "the first divergence marked in both halves" \
	'[ "$m0" -gt 200 ] && [ "$m1" -gt 200 ]' "magenta $m0 $m1"
"$W" render good.weft bad.weft -o merged.png --merge 2>err; e=$?
sm=$("$PC" merged.png 64 77 115) mm=$("$PC" merged.png 204 0 204)
read -r _ hm < <("$PC" merged.png)
check "--merge reads them as one run" \
	'[ $e = 0 ] && grep -qx "weft: merging good.weft and bad.weft as one run: as asked (--compare compares them)" err &&
	 [ "$sm" -lt $((pw * 2)) ] && [ "$mm" = 0 ] && [ "$hm" -gt 200 ]' "exit $e, strip $sm magenta $mm: $(cat err)"
"$W" render good.weft bad.weft -o ps.png --select "TCP connect" 2>err; e=$?
o0=$("$PC" ps.png 255 115 0 0 "$half") o1=$("$PC" ps.png 255 115 0 "$half" "$ph")
check "--select selects in GOOD and the aligned thread in BAD" \
	'[ $e = 0 ] && grep -qx "weft: selected TCP connect in good.weft, its partner TCP connect in bad.weft" err &&
	 [ "$o0" -gt 20 ] && [ "$o1" -gt 20 ]' "exit $e, outlines $o0 $o1: $(cat err)"
"$W" render good.weft bad.weft -o pa.png --align "ARP response" 2>err; e=$?
"$W" render good.weft -o x.png --align "ARP response" 2>err2; e2=$?
check "--align: times from the creation of a thread and its partner" \
	'[ $e = 0 ] && grep -qx "weft: times from the creation of ARP response" err && ! cmp -s pa.png pair.png &&
	 [ $e2 = 2 ] && grep -q "align needs two runs to compare" err2' "exit $e $e2: $(cat err err2)"
# whole runs: run directories (weft record), and bundles of one run (weft
# snapshot of a run)
for r in good bad; do
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0" \
		"$W" record -o "r$r" -- "$EX/arp" "$r" >/dev/null 2>&1
	"$W" snapshot "r$r" -o "b$r.weft" 2>/dev/null
done
"$W" render rgood rbad -o x.png 2>err; e=$?
"$W" render bgood.weft bbad.weft -o x.png 2>err2; e2=$?
check "run directories and bundles of one run are whole runs" \
	'[ $e = 0 ] && grep -qx "weft: comparing rgood with rbad: two runs of arp (--merge reads them as one run)" err &&
	 [ $e2 = 0 ] && grep -qx "weft: comparing bgood.weft with bbad.weft: two runs of arp (--merge reads them as one run)" err2' \
	"exit $e $e2: $(cat err err2)"
WEFT_FILE=f.weft "$EX/forker" >/dev/null
"$W" render f.weft f.weft.* -o f.png 2>err; e=$?
sf=$("$PC" f.png 64 77 115)
check "the rings of one run are merged" \
	'[ $e = 0 ] && grep -Eqx "weft: merging f.weft and f.weft.[0-9]+ as one run: parts of one run \(session [0-9a-f]+\) \(--compare compares them\)" err && [ "$sf" -lt $((pw * 2)) ]' \
	"exit $e, strip $sf: $(cat err)"
"$W" render good.weft all.weft -o x.png 2>err; e=$?
check "runs of two programs are merged" \
	'[ $e = 0 ] && grep -qx "weft: merging good.weft and all.weft as one run: runs of different programs (arp, all-events) (--compare compares them)" err' \
	"exit $e: $(cat err)"
mkdir -p rd && cp bad.weft rd/ring && : >rd/manifest
"$W" render good.weft rd/ring -o x.png 2>err; e=$?
check "a ring of a run directory is not a whole run" \
	'[ $e = 0 ] && grep -qx "weft: merging good.weft and rd/ring as one run: .rd/ring. is a ring of a run directory (--compare compares them)" err' \
	"exit $e: $(cat err)"
WEFT_FILE=t1.weft "$EX/ticker" 0.01 >/dev/null
WEFT_FILE=t2.weft "$EX/ticker" 20 >/dev/null &
tp=$!
for _ in $(seq 50); do [ -s t2.weft ] && break; sleep 0.1; done
"$W" render t1.weft t2.weft -o x.png 2>err; e=$?
kill $tp 2>/dev/null; wait $tp 2>/dev/null
check "a trace still being written is merged (followed, in the viewer)" \
	'[ $e = 0 ] && grep -qx "weft: merging t1.weft and t2.weft as one run: .t2.weft. is still being written (--compare compares them)" err' \
	"exit $e: $(cat err)"
"$W" render good.weft rd/ring -o x.png --compare 2>err; e=$?
"$W" render good.weft bad.weft bad.weft -o x.png --compare 2>err2; e2=$?
"$W" render good.weft bad.weft -o x.png --compare --merge 2>err3; e3=$?
"$W" render good.weft bad.weft -o x.png --focus 0x4 2>err4; e4=$?
check "--compare forces it; usage errors" \
	'[ $e = 0 ] && grep -qx "weft: comparing good.weft with rd/ring: as asked (--merge reads them as one run)" err &&
	 [ $e2 = 2 ] && grep -q "needs two traces (not 3)" err2 && [ $e3 = 2 ] && grep -q "exclude each other" err3 &&
	 [ $e4 = 2 ] && grep -q "focus draws one run" err4' \
	"exit $e $e2 $e3 $e4: $(cat err err2 err3 err4)"

# --view STATE (what a viewer's V prints, a page's address after #):
# the same picture, byte for byte, as the options it stands for; the
# thread's index found by trying them: exactly one is thread 0x4
WEFT_FILE=vs.weft "$EX/arp" bad >/dev/null
"$W" render vs.weft -o opts.png --start 0 --duration 100ms --search "tcp connect" --select 0x4 2>/dev/null
hits=0 idx= tried=0
for i in $(seq 0 20); do
	"$W" render vs.weft -o v.png --view "r=0,100000000&sel=$i&chain=$i&q=tcp%20connect" 2>/dev/null || break
	tried=$((tried + 1))
	if cmp -s opts.png v.png; then hits=$((hits + 1)); idx=$i; fi
done
check "--view draws what the options it stands for draw" '[ $hits = 1 ] && [ $tried -gt 5 ]' "$hits of the $tried indexes matched"
# over the options: --view's range and search win
"$W" render vs.weft -o v2.png --start 5us --search ring --view "r=0,100000000&sel=$idx&chain=$idx&q=tcp%20connect" 2>/dev/null
check "--view goes over the options" 'cmp -s opts.png v2.png' "differs"
# the dark theme: the same view, another picture; a bad state is a
# usage error that says where
"$W" render bad.weft -o vd.png --theme dark --view "r=2000,32000" 2>/dev/null
dk=$("$PC" vd.png 26 26 26)
"$W" render bad.weft -o y.png --view "r=2000,32000&sel=99999" 2>err; e=$?
"$W" render bad.weft -o y.png --view "r=1&q=a" 2>err2; e2=$?
"$W" render bad.weft -o y.png --theme grey 2>err3; e3=$?
"$W" render good.weft bad.weft -o y.png --compare --view "r=0,1000" 2>err4; e4=$?
check "--theme dark, and the errors of --view and --theme" \
	'[ "$dk" -gt 100000 ] && [ $e = 2 ] && grep -q "bad view state at .sel." err && [ $e2 = 2 ] && grep -q "at .r." err2 &&
	 [ $e3 = 2 ] && [ $e4 = 2 ] && grep -q "view draws one run" err4 && [ ! -e y.png ]' \
	"dark $dk, exit $e $e2 $e3 $e4: $(cat err err2 err3 err4 | tr '\n' ' ')"

echo "1..$n"
echo "# $((n - fails)) passed, $fails failed, 0 skipped"
[ $fails = 0 ]
