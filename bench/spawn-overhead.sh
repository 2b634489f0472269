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
# the median of the pairs' ratios (this VM drifts between runs), with
# their spread.  A run that fails (ctest's exit, a traced run whose trace
# does not hold ctest's work) makes the figures `failed`.
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
fail() { echo "$*" >>"$T/why"; }
: >"$T/why" >"$T/plain" >"$T/traced" >"$T/ratio"
secs() { # command...: wall-clock seconds, or nothing (a failure said)
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >"$T/out" 2>&1 || { fail "$* exited $?: $(tail -c 200 "$T/out")"; return; }
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.6f\n", b - a}'
}
cd "$T/ct"
plain() { secs ctest; }
# A traced run counts only if its trace holds ctest's work: ctest's own
# ring, its loop's events (libuv: hundreds for 48 tests), none lost.
traced() {
	local s info ev
	rm -rf "$T/ct.weft"
	s=$(secs "$B/tools/weft" record -o "$T/ct.weft" --size 64M -- ctest) && [ -n "$s" ] || return
	info=$("$B/tools/weft" info "$T/ct.weft" 2>&1) || { fail "weft info: $(echo "$info" | tail -1)"; return; }
	ev=$(echo "$info" | awk '/^events:/ {print $2}')
	[ -n "$ev" ] && [ "$ev" -ge 480 ] || { fail "the traced ctest's trace holds ${ev:-no} events (48 tests: 480 or more)"; return; }
	echo "$info" | grep -q "^losses: *0 packets lost, 0 torn, 0 corrupt; 0 events discarded" ||
		{ fail "the traced ctest's trace lost events: $(echo "$info" | grep '^losses')"; return; }
	echo "$s"
}
plain >/dev/null; traced >/dev/null # warm the caches
: >"$T/why"
for i in $(seq "$REPS"); do
	if [ $((i % 2)) = 1 ]; then p=$(plain); t=$(traced); else t=$(traced); p=$(plain); fi
	[ -n "$p" ] && [ -n "$t" ] || continue
	echo "$p" >>"$T/plain"
	echo "$t" >>"$T/traced"
	awk -v a="$p" -v b="$t" 'BEGIN {printf "%.4f\n", b / a}' >>"$T/ratio"
done
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # fig, median, the load check
if [ -s "$T/why" ]; then
	# (a failed run is no figure: never a nan or a 0 that sorts first)
	for f in spawn_plain_ms spawn_traced_ms spawn_overhead spawn_overhead_spread; do
		fig "record.$f" failed "" "$(sort -u "$T/why" | head -1)"
	done
	sort -u "$T/why" | sed 's/^/# record.spawn_overhead: /' | head -5
	exit 0
fi
fig record.spawn_plain_ms "$(median <"$T/plain" | awk '{printf "%.1f", $1 * 1000}')" ms "ctest, 48 trivial tests (median)"
fig record.spawn_traced_ms "$(median <"$T/traced" | awk '{printf "%.1f", $1 * 1000}')" ms "the same under weft record --size 64M, its trace read back (median)"
fig record.spawn_overhead "$(median <"$T/ratio" | awk '{printf "%.3f", $1}')" ratio "traced / plain, median of $REPS adjacent pairs (target <= 1.15)"
fig record.spawn_overhead_spread "$(sort -g "$T/ratio" | awk '{v[NR] = $1} END {printf "%.3f-%.3f", v[1], v[NR]}')" ratio \
	"the pairs' ratios, least to most (middle half $(sort -g "$T/ratio" | awk '{v[NR] = $1} END {printf "%.3f-%.3f", v[int((NR + 3) / 4)], v[int((3 * NR + 3) / 4)]}'))"
