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
#
# Each figure checks its own work: every read reads the events written
# (bench-record's count; the merged run's also its processes' few events),
# `weft info` and `weft stats` exit 0 and say the processes and rings
# they were given, the 2,000 rings were all made.  A figure whose work
# failed is `failed`, not a number.
set -u
B=$(cd "${1:-build}" && pwd)
REPS=${REPS:-5}
N=${MERGE_N:-4000000}
BR=$B/bench/bench-record
T=$(mktemp -d /tmp/weft-merge.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir "$T/run"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # fig, median, the load check
: >"$T/why.read" >"$T/why.big" >"$T/why.rings" >"$T/one" >"$T/merged" >"$T/big.ms" >"$T/rings.ms"
# the events each writer wrote (bench-record mix: "... N events")
wrote() { awk '$6 == "events" {print $5}'; }
one_n=$("$BR" mix "$N" "$T/one.weft" | wrote)
[ -n "$one_n" ] || { echo "# merge.events_per_s: bench-record failed"; exit 0; }
for k in 1 2 3 4; do
	"$BR" mix $((N / 4)) "$T/run/ring.$k" | wrote >"$T/w.$k" &
done
wait
run_n=$(cat "$T"/w.? | awk '{n += $1; k++} END {if (k == 4) print n}')
[ -n "$run_n" ] || echo "a ring of the run was not written" >>"$T/why.read"
# a read: its rate when it read every event written (the merged run also
# its 4 processes' own few), else a failure
read_n() { # trace, events written, most more
	local out
	out=$("$BR" read "$1") || { echo "bench-record read $1 exited $?" >>"$T/why.read"; return; }
	echo "$out" | awk -v w="$2" -v m="$3" '$4 == "events" && $3 >= w && $3 <= w + m && $1 > 0 {print $1; ok = 1} END {exit !ok}' ||
		echo "reading $(basename "$1"): '$out', not the $2 events written" >>"$T/why.read"
}
for _ in $(seq "$REPS"); do
	read_n "$T/one.weft" "$one_n" 0 >>"$T/one"
	read_n "$T/run" "${run_n:-0}" 64 >>"$T/merged"
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
# a timed command: its milliseconds, when it exited 0 and its output
# says what it must (a pattern)
timed() { # why-file, pattern, command...
	local why=$1 pat=$2 t0 t1
	shift 2
	t0=$(date +%s%N)
	"$@" >"$T/out" 2>&1 || { echo "$* exited $?: $(tail -c 200 "$T/out")" >>"$why"; return; }
	t1=$(date +%s%N)
	grep -Eq "$pat" "$T/out" || { echo "$(basename "$1") ${2:-}: its output does not say /$pat/: $(grep -m1 "^processes" "$T/out")" >>"$why"; return; }
	echo $(((t1 - t0) / 1000000))
}
for _ in $(seq "$REPS"); do
	timed "$T/why.big" "^processes: 200005 \(4 recorded\)" "$B/tools/weft" info "$T/big" >>"$T/big.ms"
done
mkdir "$T/rings"
for k in $(seq 2000); do
	WEFT_FILE="$T/rings/ring.$k" WEFT_SIZE=64K "$B/examples/all-events" >/dev/null 2>&1 ||
		{ echo "examples/all-events failed at ring $k of 2000" >>"$T/why.rings"; break; }
done
for _ in $(seq "$REPS"); do
	timed "$T/why.rings" "" "$B/tools/weft" stats "$T/rings" >>"$T/rings.ms"
done
# (weft stats says nothing of the rings; weft info does: each one's
# process)
"$B/tools/weft" info "$T/rings" 2>/dev/null | grep -Eq "^processes: 2000 " ||
	echo "weft info of the 2,000 rings: $("$B/tools/weft" info "$T/rings" 2>&1 | grep -E '^processes|weft:' | head -1)" >>"$T/why.rings"
out() { # why-file, name, value, unit, how
	if [ -s "$1" ]; then
		fig "$2" failed "" "$(sort -u "$1" | head -1)"
	else
		fig "$2" "$3" "$4" "$5"
	fi
}
one=$(median <"$T/one")
merged=$(median <"$T/merged")
out "$T/why.read" merge.events_per_s "$merged" events/s \
	"a run of 4 processes ($N events, interleaved) read merged in time order, each read counted"
out "$T/why.read" merge.vs_one_ring \
	"$(awk -v a="$merged" -v b="$one" 'BEGIN {printf "%.3f", a / b}')" ratio \
	"merge.events_per_s / one ring of $N events ($one events/s)"
out "$T/why.big" merge.manifest_100k_ms "$(median <"$T/big.ms")" ms \
	"weft info of that run with a build's manifest: 100,000 processes, pids reused (median of $REPS)"
out "$T/why.rings" merge.rings_2000_ms "$(median <"$T/rings.ms")" ms \
	"weft stats of a run of 2,000 rings of 55 events (median of $REPS)"
