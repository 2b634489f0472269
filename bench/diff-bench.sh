#!/bin/bash
# bench/diff-bench.sh BUILD-DIR - `weft diff` on two server-shaped traces of
# about 1 M events each (bench/server-gen, two seeds): events of both traces
# per second of the whole command (reading, models, alignment, the first
# divergence, timing), median of $REPS, against `weft stats` of the same
# two traces (which reads and models them too) as a baseline.  Each run
# checks its own work: weft diff exits 0 or 1 (the same structure or not)
# having aligned threads, weft stats exits 0 having read the events
# server-gen wrote (to 1 %); else the figures are `failed`.
set -uo pipefail
B=$(cd "${1:-build}" && pwd)
REPS=${REPS:-5}
CPU=${CPU:-1}
W=$B/tools/weft
G=$B/bench/server-gen
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # fig, median, the load check
[ -x "$G" ] || { echo "# diff.events_per_s: no server-gen"; exit 0; }
T=$(mktemp -d /tmp/weft-diff-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
ea=$("$G" -n 1000000 -s 1 -o "$T/a.weft" | awk '{print $1}')
eb=$("$G" -n 1000000 -s 2 -o "$T/b.weft" | awk '{print $1}')
: >"$T/why"
[ -n "$ea" ] && [ -n "$eb" ] || echo "server-gen failed" >>"$T/why"
# a timed command: its seconds, when it exited with one of `ok` and its
# output matched `pat`
secs() { # ok-statuses, pattern, command...
	local ok=$1 pat=$2 t0 t1 rc
	shift 2
	t0=$(date +%s.%N)
	"$@" >"$T/out" 2>&1
	rc=$?
	t1=$(date +%s.%N)
	case " $ok " in *" $rc "*) ;; *) echo "$(basename "$4") exited $rc: $(tail -c 200 "$T/out")" >>"$T/why"; return ;; esac
	grep -Eq "$pat" "$T/out" || { echo "$(basename "$4"): no /$pat/ in its output: $(head -c 200 "$T/out")" >>"$T/why"; return; }
	awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'
}
# weft stats read every event server-gen wrote (to 1 %)
stats_of() { # trace, events written
	local t
	t=$(secs 0 "^trace .*: [0-9]+ events" taskset -c "$CPU" "$W" stats "$1") || return
	awk -v n="$(sed -n 's/^trace .*: \([0-9]*\) events.*/\1/p' "$T/out")" -v w="$2" 'BEGIN {exit !(n > 0.99 * w && n < 1.01 * w)}' ||
		{ echo "weft stats $(basename "$1"): $(head -1 "$T/out"), $2 written" >>"$T/why"; return; }
	echo "$t"
}
d=$(for _ in $(seq "$REPS"); do secs "0 1" "^aligned [1-9][0-9]* async threads" taskset -c "$CPU" "$W" diff "$T/a.weft" "$T/b.weft"; done | median)
s=$(for _ in $(seq "$REPS"); do
	a=$(stats_of "$T/a.weft" "$ea")
	b=$(stats_of "$T/b.weft" "$eb")
	[ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN {print a + b}'
done | median)
# (no time at all: every run failed, said above; or none ran)
[ -s "$T/why" ] || case "$d $s" in *[0-9]*" "*[0-9]*) ;; *) echo "no timing: diff '$d', stats '$s'" >>"$T/why" ;; esac
if [ -s "$T/why" ]; then
	fig diff.events_per_s failed "" "$(sort -u "$T/why" | head -1)"
	fig diff.vs_stats failed "" "$(sort -u "$T/why" | head -1)"
	exit 0
fi
fig diff.events_per_s "$(awk -v n=$((ea + eb)) -v t="$d" 'BEGIN {printf "%.0f", n / t}')" events/s "weft diff of two server-gen traces ($ea + $eb events), the whole command"
fig diff.vs_stats "$(awk -v a="$d" -v b="$s" 'BEGIN {printf "%.3f", a / b}')" ratio "weft diff time / weft stats of both traces (read + model + stats)"
