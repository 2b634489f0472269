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
traces=() failed=()
keep() { # exit status, trace: kept when it recorded, else a failure
	if [ "$1" = 0 ] && [ -s "$2" ]; then traces+=("$2"); else failed+=("$2 (exit $1)"); fi
}
rec() { # name, command...
	local name=$1; shift
	WEFT_FILE=$T/$name.weft "$@" >/dev/null 2>&1
	keep $? "$name.weft"
}
rec all-events "$EX/all-events" 3
rec ticker "$EX/ticker" 0.05
rec select-loop "$EX/select-loop"
rec forker "$EX/forker"
children=0
for f in forker.weft.*; do [ -s "$f" ] && traces+=("$f") && children=$((children + 1)); done
[ $children -gt 0 ] || failed+=("forker's children (no forker.weft.PID)")
rec arp-good "$EX/arp" good
rec arp-bad "$EX/arp" bad
for m in deadlock never failed ok; do rec "verdicts-$m" "$EX/verdicts" $m; done
WEFT_SIZE=64K rec verdicts-truncated "$EX/verdicts" truncated
want=$((14 + children)) # (with the three server-gen traces below)
if [ -x "$EX/uv-echo" ]; then
	for e in uv-echo uv-misc uv-edge uv-labels uv-phases uv-mangled; do
		ASAN_OPTIONS=$REC_ASAN "$W" record -o "$e.weft" -- "$EX/$e" >/dev/null 2>&1
		keep $? "$e.weft"
	done
	for m in good bad; do
		ASAN_OPTIONS=$REC_ASAN "$W" record -o "lost-wakeup-$m.weft" -- "$EX/lost-wakeup" $m >/dev/null 2>&1
		st=$?
		# (the bad run loses its wake-up and says so: exit 1)
		[ $m = bad ] && [ $st = 1 ] && st=0
		keep $st "lost-wakeup-$m.weft"
	done
	want=$((want + 8))
fi
G=$WEFT_BUILD/bench/server-gen
"$G" -n 300000 -o server.weft >/dev/null
keep $? server.weft
"$G" -n 300000 -c 2000 -s 7 -o server-busy.weft >/dev/null
keep $? server-busy.weft
# a ring too small for the run: discarded at the end
"$G" -n 300000 -s 3 --size 3000000 -o server-cut.weft >/dev/null 2>&1
keep $? server-cut.weft
# every recording made its trace: one that failed is a failure, not a
# trace left out
if [ ${#failed[@]} -gt 0 ] || [ ${#traces[@]} != $want ]; then
	echo "1..1"
	echo "not ok 1 - every example recorded its trace: ${#traces[@]} of $want; failed: ${failed[*]}"
	exit 1
fi
echo "# ${#traces[@]} traces"
# (not exec: the trap above removes the traces once it is done)
python3 "$WEFT_SRC/tests/cli/why_check.py" "$W" "${traces[@]}"
