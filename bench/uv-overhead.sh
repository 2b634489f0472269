#!/bin/bash
# uv-overhead.sh BUILD-DIR - prints `uv.overhead`: the throughput of a libuv
# TCP echo benchmark on loopback without weft ÷ under `weft record`
# (target <= 1.10).
#
# UV_REPS pairs of runs of UV_SECONDS each: one plain run and one traced
# run next to each other, in the order plain-traced, traced-plain, ...
# The figure is the median of the pairs' ratios: this VM's speed drifts
# by 5-10 % over tens of seconds, which moves both runs of a pair alike
# (a ratio of medians taken over all the runs moved by +-2 %).
set -u
B=$(cd "${1:-build}" && pwd)
REPS=${UV_REPS:-9}
SECONDS_EACH=${UV_SECONDS:-1}
UB=$B/bench/uv-bench
[ -x "$UB" ] || { echo "# uv.overhead: bench/uv-bench not built (no libuv)"; exit 0; }
T=$(mktemp -d /tmp/weft-uvb.XXXXXX)
trap 'rm -rf "$T"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {print (NR ? v[int((NR+1)/2)] : 0)}'; }
plain() { "$UB" "$SECONDS_EACH" | awk '{print $1}'; }
traced() { "$B/tools/weft" record -o "$T/b.weft" --size 256M -- "$UB" "$SECONDS_EACH" 2>/dev/null | awk '{print $1}'; }
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
printf '%-26s %14s %-9s # %s\n' uv.plain_trips_per_s "$(median <"$T/plain")" trips/s "libuv TCP echo on loopback, one 64-byte message in flight (median)"
printf '%-26s %14s %-9s # %s\n' uv.traced_trips_per_s "$(median <"$T/traced")" trips/s "the same under weft record (median)"
printf '%-26s %14s %-9s # %s\n' uv.overhead "$(median <"$T/ratio" | awk '{printf "%.3f", $1}')" ratio "plain / traced, median of $REPS adjacent pairs (target <= 1.10)"
