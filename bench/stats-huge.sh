#!/bin/bash
# bench/stats-huge.sh BUILD-DIR - `weft stats` of a 10^8-event
# server-shaped trace (bench/server-gen; $HUGE_EVENTS to change it) in one
# pass (docs/huge.md): stats.huge_s, the whole command's seconds, and
# stats.huge_rss_mb, its peak resident memory.  It checks its own work:
# weft stats exits 0 having read the events server-gen wrote (to 1 %), and
# on a 10^6-event trace of the same shape its output is byte for byte
# that of `weft stats --in-memory`; else the figures are `failed`.  The
# trace (1.6 GB) is deleted at exit.
set -uo pipefail
B=$(cd "${1:-build}" && pwd)
N=${HUGE_EVENTS:-100000000}
W=$B/tools/weft
G=$B/bench/server-gen
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # fig, median, the load check
[ -x "$G" ] || { echo "# stats.huge_s: no server-gen"; exit 0; }
T=$(mktemp -d /tmp/weft-stats-huge.XXXXXX)
trap 'rm -rf "$T"' EXIT
why=
# the same output both ways on a small trace of the shape
"$G" -n 1000000 -s 3 -o "$T/small.weft" >/dev/null || why="server-gen failed"
if [ -z "$why" ]; then
	"$W" stats "$T/small.weft" >"$T/one.txt" 2>&1 &&
		"$W" stats --in-memory "$T/small.weft" >"$T/whole.txt" 2>&1 &&
		cmp -s "$T/one.txt" "$T/whole.txt" || why="one pass and --in-memory differ on 10^6 events"
fi
rm -f "$T/small.weft"
written=
if [ -z "$why" ]; then
	written=$("$G" -n "$N" -o "$T/big.weft" | awk '{print $1}')
	[ -n "$written" ] || why="server-gen -n $N failed"
fi
s=nan rss=nan
if [ -z "$why" ]; then
	/usr/bin/time -f "%e %M" -o "$T/time" "$W" stats "$T/big.weft" >"$T/out" 2>"$T/err"
	rc=$?
	read -r s kb <"$T/time" 2>/dev/null
	n=$(sed -n 's/^trace .*: \([0-9]*\) events.*/\1/p' "$T/out")
	if [ $rc != 0 ]; then
		why="weft stats exited $rc: $(tail -c 200 "$T/err")"
	elif ! awk -v n="${n:-0}" -v w="$written" 'BEGIN {exit !(n > 0.99 * w && n < 1.01 * w)}'; then
		why="weft stats read ${n:-no} events of $written written"
	else
		rss=$((kb / 1024))
	fi
fi
[ -n "$why" ] && s=failed rss=failed
fig stats.huge_s "$s" s "weft stats of $N server-shaped events in one pass${why:+ ($why)}"
fig stats.huge_rss_mb "$rss" MB "its peak resident memory${why:+ ($why)}"
