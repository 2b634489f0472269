#!/bin/bash
# demo.sh - the main job: install what is missing, build weft, record the
# example programs, and show what happened (text, and the viewers where
# they are built).  Everything lands in ./demo/.
set -euo pipefail
cd "$(dirname "$0")"
bash .ci/install-deps.sh
[ -f build/build.ninja ] || meson setup build --auto-features=auto >/dev/null
ninja -C build >/dev/null
W=build/tools/weft
mkdir -p demo
rm -rf demo/*.weft demo/*.weft.*
CMDS=$($W --help)
has() { printf "%s\n" "$CMDS" | grep -q "^  $1 "; }

echo "== recording build/examples/all-events (every event type, 4 OS threads)"
WEFT_FILE=demo/all-events.weft build/examples/all-events 3
echo
echo "== weft info demo/all-events.weft"
$W info demo/all-events.weft
echo
echo "== weft dump demo/all-events.weft (first 25 events)"
$W dump demo/all-events.weft | head -25 || true
echo
echo "== weft ctf: a CTF 1.8 directory, read by babeltrace2"
rm -rf demo/all-events.ctf
$W ctf demo/all-events.weft -o demo/all-events.ctf
babeltrace2 demo/all-events.ctf | head -5 || true
echo; echo "== weft stats demo/all-events.weft"
$W stats demo/all-events.weft
echo; echo "== a hang: build/examples/arp bad, then weft why"
WEFT_FILE=demo/arp-bad.weft build/examples/arp bad
WEFT_FILE=demo/arp-good.weft build/examples/arp good >/dev/null
$W why demo/arp-bad.weft || true
echo "== weft export --format chrome: demo/arp-bad.json (open it in ui.perfetto.dev or chrome://tracing)"
$W export --format chrome demo/arp-bad.weft -o demo/arp-bad.json
if has html; then
	$W html demo/all-events.weft -o demo/all-events.html &&
		echo && echo "== viewer: open demo/all-events.html in a browser"
fi
if has render; then
	$W render demo/all-events.weft -o demo/all-events.png &&
		echo "== picture: demo/all-events.png"
	$W render demo/arp-bad.weft -o demo/arp-bad.png --search "ARP" &&
		echo "== picture of the hang: demo/arp-bad.png"
fi
if has record; then
	# unmodified libuv programs: an echo over loopback, and one callback
	# in each phase of a loop iteration
	for ex in uv-echo uv-phases; do
		[ -x "build/examples/$ex" ] || continue
		echo; echo "== weft record -o demo/$ex.weft -- build/examples/$ex"
		$W record -o "demo/$ex.weft" -- "build/examples/$ex" || true
	done
	# a whole program: a server that starts its client (uv_spawn) and
	# echoes its messages; one run, both processes on one clock, the
	# messages as arrows between them
	if [ -x build/examples/uv-echo-split ]; then
		echo; echo "== weft record -o demo/echo-split.weft -- build/examples/uv-echo-split (a server and the client it starts)"
		$W record -o demo/echo-split.weft -- build/examples/uv-echo-split || true
		echo; echo "== weft info demo/echo-split.weft (the process tree)"
		$W info demo/echo-split.weft | sed -n '/^processes/,/^events/p' | sed '$d'
		echo; echo "== the messages between them: weft dump demo/echo-split.weft (writes, reads, and the arrows the merge makes)"
		$W dump demo/echo-split.weft | grep -E ' (sent|read source|received)=| sent | read | received ' | grep -v 'bytes=0 ' | head -12
		if has render; then
			$W render demo/echo-split.weft -o demo/echo-split.png &&
				echo "== picture of both processes: demo/echo-split.png"
		fi
		if has html; then
			$W html demo/echo-split.weft -o demo/echo-split.html &&
				echo "== viewer: demo/echo-split.html"
		fi
	fi
	if [ -s demo/uv-phases.weft ]; then
		echo; echo "== where the loop's time went: weft stats demo/uv-phases.weft (loop phases)"
		$W stats demo/uv-phases.weft | sed -n '/^loop phases/,/^$/p'
		if has render; then
			$W render demo/uv-phases.weft -o demo/uv-phases.png &&
				echo "== picture: demo/uv-phases.png (the phases are the coloured bars under the loop)"
		fi
		if has html; then
			$W html demo/uv-phases.weft -o demo/uv-phases.html &&
				echo "== viewer: demo/uv-phases.html"
		fi
	fi
fi
echo
echo "== what to open now"
if has view && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
	echo "   $W view demo/arp-bad.weft        the hang, in a window: '?' lists the keys;"
	echo "                                          double-click main's red line for its causal chain"
	[ -s demo/echo-split.weft ] && echo "   $W view demo/echo-split.weft     a server and its client, one clock"
	echo "   $W view demo/arp-good.weft demo/arp-bad.weft   the two runs compared"
elif has view; then
	echo "   $W view demo/arp-bad.weft        (on a machine with a display) the hang in a window"
fi
for f in demo/*.html; do
	[ -e "$f" ] && echo "   $f    in any browser, nothing to install"
done
for f in demo/*.png; do
	[ -e "$f" ] && echo "   $f"
done
echo "   $W ps PID                        what a running traced program is doing now"
echo "   $W dump --follow FILE            the events of a program while it records"
echo "Traces are in demo/."
