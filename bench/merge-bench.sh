#!/bin/bash
# merge-bench.sh BUILD-DIR - prints `merge.events_per_s`: reading a run of
# four processes merged (their rings in one run directory, recorded at
# the same time, so that their events interleave), and
# `merge.vs_one_ring`: that speed over reading one ring of the same
# number of events.  Both traces are bench-record's libuv-style mix; the
# figure is the median of $REPS reads of each, alternated.  And
# `merge.manifest_100k_ms`: `weft info` of that run with the manifest of
# a large build (100,000 processes, each forked, exec'd and exited, their
# pids used 20 times over), and `merge.rings_2000_ms`: `weft stats` of a
# run of 2,000 small rings (a test suite whose every test records: each
# examples/all-events, 55 events).
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
cp -r "$T/run" "$T/big"
awk 'BEGIN {
	print "weft-run version=1 session=ab"
	print "proc pid=1000 ppid=1 start=7 t=1000 exe=/bin/make arg=make"
	for (i = 0; i < 100000; i++) {
		pid = 2000 + i % 5000; t = 2000 + i * 1000
		printf "fork pid=%d ppid=1000 tid=1000 by=1 spawn=1 t=%d\n", pid, t
		printf "proc pid=%d ppid=1000 start=0 t=%d exe=/bin/sh arg=sh arg=-c arg=cc%%20-c%%20f%d.c\n", pid, t + 100, i
		printf "proc pid=%d ppid=1000 start=0 t=%d exe=/usr/bin/cc arg=cc arg=-c arg=f%d.c\n", pid, t + 200, i
		printf "exit pid=%d status=0 t=%d\n", pid, t + 900
	}
}' >"$T/big/manifest"
for _ in $(seq "$REPS"); do
	t0=$(date +%s%N)
	"$B/tools/weft" info "$T/big" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000)) >>"$T/big.ms"
done
mkdir "$T/rings"
for k in $(seq 2000); do
	WEFT_FILE="$T/rings/ring.$k" WEFT_SIZE=64K "$B/examples/all-events" >/dev/null 2>&1 || break
done
for _ in $(seq "$REPS"); do
	t0=$(date +%s%N)
	"$B/tools/weft" stats "$T/rings" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000)) >>"$T/rings.ms"
done
one=$(median <"$T/one")
merged=$(median <"$T/merged")
printf '%-26s %14s %-9s # %s\n' merge.events_per_s "$merged" events/s \
	"a run of 4 processes ($N events, interleaved) read merged in time order"
printf '%-26s %14s %-9s # %s\n' merge.vs_one_ring \
	"$(awk -v a="$merged" -v b="$one" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}')" ratio \
	"merge.events_per_s / one ring of $N events ($one events/s)"
printf '%-26s %14s %-9s # %s\n' merge.manifest_100k_ms "$(median <"$T/big.ms")" ms \
	"weft info of that run with a build's manifest: 100,000 processes, pids reused (median of $REPS)"
printf '%-26s %14s %-9s # %s\n' merge.rings_2000_ms "$(median <"$T/rings.ms")" ms \
	"weft stats of a run of 2,000 rings of 55 events (median of $REPS)"
