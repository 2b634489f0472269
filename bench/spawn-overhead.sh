#!/bin/bash
# spawn-overhead.sh BUILD-DIR - prints `record.spawn_overhead`: how much
# longer a process-spawning workload takes under `weft record` (a 64 MiB
# ring) than plain (target <= 1.15).  The workload is ctest running 48
# trivial tests (echo, sh, ls; about 0.1-0.2 s plain, as in the issue that
# set the target): ctest itself uses libuv, so it records; its children
# inherit the environment and the preloaded shim but record nothing, so
# they make no ring (a ring is made at a process's first event).
#
# SPAWN_REPS adjacent pairs, alternating which runs first; the figure is
# the median of the pairs' ratios (this VM drifts between runs).
set -u
B=$(cd "${1:-build}" && pwd)
REPS=${SPAWN_REPS:-21}
command -v ctest >/dev/null || { echo "# record.spawn_overhead: no ctest (cmake)"; exit 0; }
T=$(mktemp -d /tmp/weft-spawn.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir "$T/ct"
for i in $(seq 16); do
	printf 'add_test(echo%d "/bin/echo" "hello")\n' "$i"
	printf 'add_test(sh%d "/bin/sh" "-c" "echo two; true")\n' "$i"
	printf 'add_test(ls%d "/bin/sh" "-c" "ls / >/dev/null")\n' "$i"
done >"$T/ct/CTestTestfile.cmake"
median() { sort -g | awk '{v[NR]=$1} END {print (NR ? v[int((NR+1)/2)] : 0)}'; }
secs() { # command...: wall-clock seconds
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || { echo "spawn-overhead: $* failed" >&2; echo nan; return; }
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.6f\n", b - a}'
}
cd "$T/ct"
plain() { secs ctest; }
traced() { secs "$B/tools/weft" record -o "$T/ct.weft" --size 64M -- ctest; }
plain >/dev/null; traced >/dev/null # warm the caches
for i in $(seq "$REPS"); do
	if [ $((i % 2)) = 1 ]; then p=$(plain); t=$(traced); else t=$(traced); p=$(plain); fi
	echo "$p" >>"$T/plain"
	echo "$t" >>"$T/traced"
	awk -v a="$p" -v b="$t" 'BEGIN {printf "%.4f\n", (a > 0 ? b / a : 0)}' >>"$T/ratio"
done
printf '%-26s %14s %-9s # %s\n' record.spawn_plain_ms "$(median <"$T/plain" | awk '{printf "%.1f", $1 * 1000}')" ms "ctest, 48 trivial tests (median)"
printf '%-26s %14s %-9s # %s\n' record.spawn_traced_ms "$(median <"$T/traced" | awk '{printf "%.1f", $1 * 1000}')" ms "the same under weft record --size 64M (median)"
printf '%-26s %14s %-9s # %s\n' record.spawn_overhead "$(median <"$T/ratio" | awk '{printf "%.3f", $1}')" ratio "traced / plain, median of $REPS adjacent pairs (target <= 1.15)"
