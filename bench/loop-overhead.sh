#!/bin/bash
# loop-overhead.sh BUILD-DIR NAME BENCH WHAT - prints NAME.overhead: the
# throughput of an event-loop benchmark (BUILD-DIR/bench/BENCH SECONDS,
# which prints "N round trips/s") without weft ÷ under `weft record`,
# with NAME.plain_trips_per_s and NAME.traced_trips_per_s.  WHAT says
# what the benchmark is and the target.
#
# LOOP_REPS pairs of runs of LOOP_SECONDS each: one plain run and one
# traced run next to each other, in the order plain-traced, traced-plain,
# ...  The figure is the median of the pairs' ratios: this VM's speed
# drifts by 5-10 % over tens of seconds, which moves both runs of a pair
# alike (a ratio of medians taken over all the runs moved by +-2 %).
set -u
B=$(cd "${1:-build}" && pwd)
NAME=$2 EXE=$B/bench/$3 WHAT=$4
REPS=${LOOP_REPS:-${UV_REPS:-9}}
SECONDS_EACH=${LOOP_SECONDS:-${UV_SECONDS:-1}}
[ -x "$EXE" ] || { echo "# $NAME.overhead: bench/$3 not built"; exit 0; }
T=$(mktemp -d /tmp/weft-loopb.XXXXXX)
trap 'rm -rf "$T"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {print (NR ? v[int((NR+1)/2)] : 0)}'; }
plain() { "$EXE" "$SECONDS_EACH" | awk '{print $1}'; }
traced() { "$B/tools/weft" record -o "$T/b.weft" --size 256M -- "$EXE" "$SECONDS_EACH" 2>/dev/null | awk '{print $1}'; }
for i in $(seq "$REPS"); do
	if [ $((i % 2)) = 1 ]; then
		p=$(plain)
		t=$(traced)
	else
		t=$(traced)
		p=$(plain)
	fi
	echo "$p" >>"$T/plain"
	echo "$t" >>"$T/traced"
	awk -v a="$p" -v b="$t" 'BEGIN {printf "%.4f\n", (b > 0 ? a / b : 0)}' >>"$T/ratio"
done
fig() { printf '%-26s %14s %-9s # %s\n' "$1" "$2" "$3" "$4"; }
fig "$NAME.plain_trips_per_s" "$(median <"$T/plain")" trips/s "$WHAT (median)"
fig "$NAME.traced_trips_per_s" "$(median <"$T/traced")" trips/s "the same under weft record (median)"
fig "$NAME.overhead" "$(median <"$T/ratio" | awk '{printf "%.3f", $1}')" ratio "plain / traced, median of $REPS adjacent pairs"
