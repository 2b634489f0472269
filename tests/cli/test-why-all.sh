#!/bin/bash
# SPDX-License-Identifier: MIT
# test-why-all.sh - `weft why --all` states only what the trace shows:
# every example program's trace (recorded by hand, or through `weft
# record` for the libuv ones) and server-shaped traces of bench/server-gen
# (whole, and cut short by a full ring in discard mode) are checked by
# why_check.py, which reads each trace's events itself and checks every
# verdict against them.  TAP output (one case per trace).
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
W=$WEFT_BIN
EX=$WEFT_BUILD/examples
T=$(mktemp -d "${TMPDIR:-/tmp}/weft-why-all.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
unset WEFT_FILE WEFT_SIZE WEFT_MODE WEFT_CLOCK
# Under the sanitizer build the preloaded shim brings the ASan runtime into
# programs not built with it (as in tests/uv/test-uv.sh): for weft record
# only, weft why keeps the leak checks.
REC_ASAN="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"
traces=()
rec() { # name, command...
	local name=$1; shift
	WEFT_FILE=$T/$name.weft "$@" >/dev/null 2>&1
	[ -s "$name.weft" ] && traces+=("$name.weft")
}
rec all-events "$EX/all-events" 3
rec ticker "$EX/ticker" 0.05
rec select-loop "$EX/select-loop"
rec forker "$EX/forker"
for f in forker.weft.*; do [ -s "$f" ] && traces+=("$f"); done
rec arp-good "$EX/arp" good
rec arp-bad "$EX/arp" bad
for m in deadlock never failed ok; do rec "verdicts-$m" "$EX/verdicts" $m; done
WEFT_SIZE=64K rec verdicts-truncated "$EX/verdicts" truncated
if [ -x "$EX/uv-echo" ]; then
	for e in uv-echo uv-misc uv-edge uv-labels uv-phases uv-mangled; do
		ASAN_OPTIONS=$REC_ASAN "$W" record -o "$e.weft" -- "$EX/$e" >/dev/null 2>&1
		[ -s "$e.weft" ] && traces+=("$e.weft")
	done
	for m in good bad; do
		ASAN_OPTIONS=$REC_ASAN "$W" record -o "lost-wakeup-$m.weft" -- "$EX/lost-wakeup" $m >/dev/null 2>&1
		traces+=("lost-wakeup-$m.weft")
	done
fi
G=$WEFT_BUILD/bench/server-gen
"$G" -n 300000 -o server.weft >/dev/null && traces+=(server.weft)
"$G" -n 300000 -c 2000 -s 7 -o server-busy.weft >/dev/null && traces+=(server-busy.weft)
# a ring too small for the run: discarded at the end
"$G" -n 300000 -s 3 --size 3000000 -o server-cut.weft >/dev/null 2>&1 && traces+=(server-cut.weft)
echo "# ${#traces[@]} traces"
# (not exec: the trap above removes the traces once it is done)
python3 "$WEFT_SRC/tests/cli/why_check.py" "$W" "${traces[@]}"
