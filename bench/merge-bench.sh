#!/bin/bash
# merge-bench.sh BUILD-DIR - prints `merge.events_per_s`: reading a run of
# four processes merged (their rings in one run directory, recorded at
# the same time, so that their events interleave), and
# `merge.vs_one_ring`: that speed over reading one ring of the same
# number of events.  Both traces are bench-record's libuv-style mix; the
# figure is the median of $REPS reads of each, alternated.
set -u
B=$(cd "${1:-build}" && pwd)
REPS=${REPS:-5}
N=${MERGE_N:-4000000}
BR=$B/bench/bench-record
T=$(mktemp -d /tmp/weft-merge.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir "$T/run"
"$BR" mix "$N" "$T/one.weft" >/dev/null || { echo "# merge.events_per_s: bench-record failed"; exit 0; }
for k in 1 2 3 4; do
	"$BR" mix $((N / 4)) "$T/run/ring.$k" >/dev/null &
done
wait
median() { sort -g | awk '{v[NR]=$1} END {print (NR ? v[int((NR+1)/2)] : 0)}'; }
for _ in $(seq "$REPS"); do
	"$BR" read "$T/one.weft" | awk '{print $1}' >>"$T/one"
	"$BR" read "$T/run" | awk '{print $1}' >>"$T/merged"
done
one=$(median <"$T/one")
merged=$(median <"$T/merged")
printf '%-26s %14s %-9s # %s\n' merge.events_per_s "$merged" events/s \
	"a run of 4 processes ($N events, interleaved) read merged in time order"
printf '%-26s %14s %-9s # %s\n' merge.vs_one_ring \
	"$(awk -v a="$merged" -v b="$one" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}')" ratio \
	"merge.events_per_s / one ring of $N events ($one events/s)"
