#!/bin/bash
# bench/diff-bench.sh BUILD-DIR - `weft diff` on two server-shaped traces of
# about 1 M events each (bench/server-gen, two seeds): events of both traces
# per second of the whole command (reading, models, alignment, the first
# divergence, timing), median of $REPS, against `weft stats` of the same
# two traces (which reads and models them too) as a baseline.
set -uo pipefail
B=$(cd "${1:-build}" && pwd)
REPS=${REPS:-5}
CPU=${CPU:-1}
W=$B/tools/weft
G=$B/bench/server-gen
[ -x "$G" ] || { echo "# diff.events_per_s: no server-gen"; exit 0; }
T=$(mktemp -d /tmp/weft-diff-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
ea=$("$G" -n 1000000 -s 1 -o "$T/a.weft" | awk '{print $1}')
eb=$("$G" -n 1000000 -s 2 -o "$T/b.weft" | awk '{print $1}')
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR ? v[int((NR+1)/2)] : "nan")}'; }
d=$(for _ in $(seq "$REPS"); do secs taskset -c "$CPU" "$W" diff "$T/a.weft" "$T/b.weft"; done | median)
s=$(for _ in $(seq "$REPS"); do
	a=$(secs taskset -c "$CPU" "$W" stats "$T/a.weft")
	b=$(secs taskset -c "$CPU" "$W" stats "$T/b.weft")
	awk -v a="$a" -v b="$b" 'BEGIN {print a + b}'
done | median)
fig() { printf '%-26s %14s %-9s # %s\n' "$1" "$2" "$3" "$4"; }
fig diff.events_per_s "$(awk -v n=$((ea + eb)) -v t="$d" 'BEGIN {printf "%.0f", n / t}')" events/s "weft diff of two server-gen traces ($ea + $eb events), the whole command"
fig diff.vs_stats "$(awk -v a="$d" -v b="$s" 'BEGIN {printf "%.3f", a / b}')" ratio "weft diff time / weft stats of both traces (read + model + stats)"
