#!/bin/bash
# bench/index-identical.sh OLD-BUILD NEW-BUILD - the index two builds of
# weft write for the same traces, compared byte for byte (cmp): server-gen
# traces of 10^5 and 10^6 events, a multi-process run (weft record of
# examples/uv-echo-split tcp 3) and a damaged trace (bytes in the middle
# of the 10^6 one overwritten: losses).  For a change to how the index is
# built that must not change what it holds (docs/bench.md); prints one
# line a trace and exits 1 when any differs.
set -uo pipefail
A=$(cd "${1:?old build}" && pwd)
B=$(cd "${2:?new build}" && pwd)
T=$(mktemp -d /tmp/weft-index-identical.XXXXXX)
trap 'rm -rf "$T"' EXIT
"$B/bench/server-gen" -n 100000 -o "$T/s5.weft" >/dev/null
"$B/bench/server-gen" -n 1000000 -o "$T/s6.weft" >/dev/null
cp "$T/s6.weft" "$T/damaged.weft"
# 64 KiB of 0xa5 a third of the way in, 4 KiB at two thirds
sz=$(stat -c %s "$T/damaged.weft")
head -c 65536 /dev/zero | tr '\0' '\245' |
	dd of="$T/damaged.weft" bs=1 seek=$((sz / 3)) conv=notrunc status=none
head -c 4096 /dev/zero | tr '\0' '\245' |
	dd of="$T/damaged.weft" bs=1 seek=$((sz * 2 / 3)) conv=notrunc status=none
(cd "$T" && "$B/tools/weft" record -o run -- "$B/examples/uv-echo-split" tcp 3 >/dev/null 2>&1)
bad=0
for t in s5.weft s6.weft damaged.weft run; do
	[ -e "$T/$t" ] || { echo "$t: missing (not recorded)"; bad=1; continue; }
	for v in A B; do
		rm -f "$T/$t.weftidx"
		eval "w=\$$v/tools/weft"
		"$w" index "$T/$t" >/dev/null 2>"$T/err" || { echo "$t: $v: $(cat "$T/err")"; bad=1; }
		mv "$T/$t.weftidx" "$T/$t.$v" 2>/dev/null
	done
	if cmp -s "$T/$t.A" "$T/$t.B"; then
		echo "$t: identical ($(stat -c %s "$T/$t.B") bytes)"
	else
		echo "$t: DIFFERENT"
		bad=1
	fi
done
exit $bad
