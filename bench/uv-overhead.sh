#!/bin/bash
# uv-overhead.sh BUILD-DIR - prints `uv.overhead`: the throughput of a libuv
# TCP echo benchmark on loopback without weft ÷ under `weft record`
# (medians of REPS runs of SECONDS each, alternated; target <= 1.10).
set -u
B=$(cd "${1:-build}" && pwd)
REPS=${REPS:-5}
SECONDS_EACH=${UV_SECONDS:-1}
UB=$B/bench/uv-bench
[ -x "$UB" ] || { echo "# uv.overhead: bench/uv-bench not built (no libuv)"; exit 0; }
T=$(mktemp -d /tmp/weft-uvb.XXXXXX)
trap 'rm -rf "$T"' EXIT
median() { sort -g | awk '{v[NR]=$1} END {print (NR ? v[int((NR+1)/2)] : 0)}'; }
for _ in $(seq "$REPS"); do
	"$UB" "$SECONDS_EACH" | awk '{print $1}' >>"$T/plain"
	"$B/tools/weft" record -o "$T/b.weft" --size 256M -- "$UB" "$SECONDS_EACH" 2>/dev/null | awk '{print $1}' >>"$T/traced"
done
p=$(median <"$T/plain")
t=$(median <"$T/traced")
printf '%-26s %14s %-9s # %s\n' uv.plain_trips_per_s "$p" trips/s "libuv TCP echo on loopback, one 64-byte message in flight"
printf '%-26s %14s %-9s # %s\n' uv.traced_trips_per_s "$t" trips/s "the same under weft record"
printf '%-26s %14s %-9s # %s\n' uv.overhead "$(awk -v a="$p" -v b="$t" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}')" ratio "plain / traced throughput (target <= 1.10)"
