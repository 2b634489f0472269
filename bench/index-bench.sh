#!/bin/bash
# bench/index-bench.sh BUILD-DIR - `weft index` of a server-shaped trace
# of 10^8 events (bench/server-gen; $HUGE_EVENTS to change it): the index
# beside the trace in one pass (docs/huge.md, "The index").
# index.events_per_s: the events the command says it read over its wall
# time; index.rss_mb its peak resident memory; index.bytes_per_event the
# index's size.  It checks its own work: on a 10^6-event trace of the same
# shape `weft index --check` finds the index current and equal to a
# rebuild, and every bucket's sums equal the whole model there
# (tests/unit/test-index.c does that part); on the big trace the command
# exits 0, reads the events server-gen wrote (to 1 %) and the index file
# is the size it says; else the figures are `failed`.  The trace is
# deleted at exit.
set -uo pipefail
B=$(cd "${1:-build}" && pwd)
N=${HUGE_EVENTS:-100000000}
W=$B/tools/weft
G=$B/bench/server-gen
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # fig, median, the load check
[ -x "$G" ] || { echo "# index.events_per_s: no server-gen"; exit 0; }
T=$(mktemp -d /tmp/weft-index-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
why=
"$G" -n 1000000 -s 3 -o "$T/small.weft" >/dev/null || why="server-gen failed"
if [ -z "$why" ]; then
	"$W" index -q "$T/small.weft" &&
		"$W" index --check "$T/small.weft" >"$T/check" 2>&1 ||
		why="weft index --check failed on 10^6 events: $(tail -c 200 "$T/check")"
fi
rm -f "$T/small.weft" "$T/small.weft.weftidx"
written=
if [ -z "$why" ]; then
	written=$("$G" -n "$N" -o "$T/big.weft" | awk '{print $1}')
	[ -n "$written" ] || why="server-gen -n $N failed"
fi
eps=nan rss=nan bpe=nan
if [ -z "$why" ]; then
	/usr/bin/time -f "%e %M" -o "$T/time" "$W" index "$T/big.weft" >"$T/out" 2>"$T/err"
	rc=$?
	read -r s kb <"$T/time" 2>/dev/null
	# "PATH: N events, B bytes, S s (E events/s)"
	n=$(sed -n 's/.*: \([0-9]*\) events, \([0-9]*\) bytes.*/\1/p' "$T/out")
	bytes=$(sed -n 's/.*: \([0-9]*\) events, \([0-9]*\) bytes.*/\2/p' "$T/out")
	if [ $rc != 0 ]; then
		why="weft index exited $rc: $(tail -c 200 "$T/err")"
	elif ! awk -v n="${n:-0}" -v w="$written" 'BEGIN {exit !(n > 0.99 * w && n < 1.01 * w)}'; then
		why="weft index read ${n:-no} events of $written written"
	elif [ "$(stat -c %s "$T/big.weft.weftidx" 2>/dev/null)" != "$bytes" ]; then
		why="the index is not the $bytes bytes it says"
	else
		eps=$(awk -v n="$n" -v s="$s" 'BEGIN {printf "%.0f", (s > 0 ? n / s : 0)}')
		rss=$((kb / 1024))
		bpe=$(awk -v n="$n" -v b="$bytes" 'BEGIN {printf "%.2f", b / n}')
	fi
fi
[ -n "$why" ] && eps=failed rss=failed bpe=failed
fig index.events_per_s "$eps" ev/s "weft index of $N server-shaped events, wall time (target 5e7)${why:+ ($why)}"
fig index.rss_mb "$rss" MB "its peak resident memory${why:+ ($why)}"
fig index.bytes_per_event "$bpe" B "the index's size per event${why:+ ($why)}"
