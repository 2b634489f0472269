#!/bin/bash
# loop-overhead.sh BUILD-DIR NAME BENCH WHAT - prints NAME.overhead: the
# throughput of an event-loop benchmark (BUILD-DIR/bench/BENCH SECONDS
# [TRIPS], which prints "N round trips/s, M round trips") without weft ÷
# under `weft record`, with NAME.plain_trips_per_s and
# NAME.traced_trips_per_s, the spread of the pairs' ratios, and the
# instructions a round trip takes, plain and traced.  WHAT says what the
# benchmark is and the target.
#
# LOOP_REPS pairs of runs of LOOP_SECONDS each: one plain run and one
# traced run next to each other, in the order plain-traced, traced-plain,
# ...  The figure is the median of the pairs' ratios: this VM's speed
# drifts by 5-10 % over tens of seconds, which moves both runs of a pair
# alike (a ratio of medians taken over all the runs moved by +-2 %).
#
# Each run checks its own work: it exits 0 and prints its round trips;
# a traced run's trace is read back (`weft info`) and must hold at least
# 4 events a round trip (a libuv echo records some 20, a GLib ping-pong
# 6), none lost.  A run that fails any of these makes every figure
# `failed` (and says why), never a ratio of 0 or nan that sorts first.
#
# Instructions (callgrind, LOOP_INSTR_TRIPS and three times as many
# round trips, the difference over the difference: start-up cancels) are
# a companion this VM's noise does not move: user-space instructions
# only, so the kernel's share of a round trip (the system calls) is not
# in them, and their ratio is larger than the time's.
set -u
B=$(cd "${1:-build}" && pwd)
NAME=$2 EXE=$B/bench/$3 WHAT=$4
REPS=${LOOP_REPS:-${UV_REPS:-9}}
SECONDS_EACH=${LOOP_SECONDS:-${UV_SECONDS:-1}}
ITRIPS=${LOOP_INSTR_TRIPS:-1000}
W=$B/tools/weft
[ -x "$EXE" ] || { echo "# $NAME.overhead: bench/$3 not built"; exit 0; }
T=$(mktemp -d /tmp/weft-loopb.XXXXXX)
trap 'rm -rf "$T"' EXIT
: >"$T/why" >"$T/plain" >"$T/traced" >"$T/ratio"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # fig, median, the load check
fail() { echo "$*" >>"$T/why"; }
# "RATE TRIPS" of a run's output, or a failure
parse() { # output, what[, the least rate: 0 for a run that counts round trips]
	echo "$1" | awk -v min="${3:-1}" '$2 == "round" && $4 + 0 > 0 && $1 + 0 >= min {print $1, $4; ok = 1} END {exit !ok}' ||
		{ fail "$2 printed '$(echo "$1" | head -c 100)'"; return 1; }
}
# The trace of a traced run holds its work: 4 events a round trip or more,
# none lost.
check_trace() { # trace, round trips, what
	local info ev
	info=$("$W" info "$1" 2>&1) || { fail "$3: weft info: $(echo "$info" | tail -1)"; return 1; }
	ev=$(echo "$info" | awk '/^events:/ {print $2}')
	[ -n "$ev" ] && [ "$ev" -ge $(($2 * 4)) ] ||
		{ fail "$3: its trace holds ${ev:-no} events for $2 round trips"; return 1; }
	echo "$info" | grep -q "^losses: *0 packets lost, 0 torn, 0 corrupt; 0 events discarded" ||
		{ fail "$3: its trace lost events: $(echo "$info" | grep '^losses')"; return 1; }
}
plain() {
	local out
	out=$("$EXE" "$SECONDS_EACH" 2>"$T/err") || { fail "a plain run exited $?: $(head -c 200 "$T/err")"; return; }
	parse "$out" "a plain run"
}
traced() {
	local out v
	rm -rf "$T/b.weft"
	out=$("$W" record -o "$T/b.weft" --size 256M -- "$EXE" "$SECONDS_EACH" 2>"$T/err") ||
		{ fail "a traced run exited $?: $(tail -c 200 "$T/err")"; return; }
	v=$(parse "$out" "a traced run") || return
	check_trace "$T/b.weft" "${v#* }" "a traced run" && echo "$v"
}
for i in $(seq "$REPS"); do
	if [ $((i % 2)) = 1 ]; then
		p=$(plain)
		t=$(traced)
	else
		t=$(traced)
		p=$(plain)
	fi
	[ -n "$p" ] && [ -n "$t" ] || continue
	echo "${p% *}" >>"$T/plain"
	echo "${t% *}" >>"$T/traced"
	awk -v a="${p% *}" -v b="${t% *}" 'BEGIN {printf "%.4f\n", a / b}' >>"$T/ratio"
done
if [ -s "$T/why" ]; then
	for f in plain_trips_per_s traced_trips_per_s overhead overhead_spread; do
		fig "$NAME.$f" failed "" "$(sort -u "$T/why" | head -1)"
	done
	sort -u "$T/why" | sed "s/^/# $NAME: /" | head -5
else
	fig "$NAME.plain_trips_per_s" "$(median <"$T/plain")" trips/s "$WHAT (median)"
	fig "$NAME.traced_trips_per_s" "$(median <"$T/traced")" trips/s "the same under weft record (median)"
	fig "$NAME.overhead" "$(median <"$T/ratio" | awk '{printf "%.3f", $1}')" ratio "plain / traced, median of $REPS adjacent pairs"
	fig "$NAME.overhead_spread" "$(sort -g "$T/ratio" | awk '{v[NR] = $1} END {printf "%.3f-%.3f", v[1], v[NR]}')" ratio \
		"the pairs' ratios, least to most (middle half $(sort -g "$T/ratio" | awk '{v[NR] = $1} END {printf "%.3f-%.3f", v[int((NR + 3) / 4)], v[int((3 * NR + 3) / 4)]}'))"
fi

# Instructions a round trip, plain and traced (callgrind).
command -v valgrind >/dev/null || { echo "# $NAME.instr_per_trip: valgrind not installed"; exit 0; }
: >"$T/why"
instr() { # plain|traced, round trips: the run's instructions
	local f=$T/cg.$1.$2 out v
	rm -rf "$T/cg.weft"
	if [ "$1" = plain ]; then
		out=$(timeout 300 valgrind --tool=callgrind --callgrind-out-file="$f" "$EXE" 600 "$2" 2>"$T/err")
	else
		out=$(timeout 300 "$W" record -o "$T/cg.weft" --size 256M -- \
			valgrind --tool=callgrind --callgrind-out-file="$f" "$EXE" 600 "$2" 2>"$T/err")
	fi || { fail "callgrind, $1, $2 round trips: exit $?: $(tail -c 200 "$T/err")"; return; }
	v=$(parse "$out" "callgrind, $1" 0) || return
	[ "${v#* }" = "$2" ] || { fail "callgrind, $1: ${v#* } round trips of $2"; return; }
	[ "$1" = plain ] || check_trace "$T/cg.weft" "$2" "callgrind, traced" || return
	awk '/^totals:/ {print $2; ok = 1} END {exit !ok}' "$f" || fail "callgrind, $1: no totals in its output"
}
per_trip() { # plain|traced
	local a b
	a=$(instr "$1" "$ITRIPS") && b=$(instr "$1" $((3 * ITRIPS))) && [ -n "$a" ] && [ -n "$b" ] || return
	awk -v a="$a" -v b="$b" -v n=$((2 * ITRIPS)) 'BEGIN {printf "%.0f\n", (b - a) / n}'
}
ip=$(per_trip plain)
it=$(per_trip traced)
if [ -s "$T/why" ] || [ -z "$ip" ] || [ -z "$it" ] || [ "$ip" -le 0 ]; then
	for f in plain_instr_per_trip traced_instr_per_trip instr_overhead; do
		fig "$NAME.$f" failed "" "$(sort -u "$T/why" | head -1)"
	done
else
	fig "$NAME.plain_instr_per_trip" "$ip" instr "user-space instructions a round trip (callgrind: $((3 * ITRIPS)) less $ITRIPS round trips)"
	fig "$NAME.traced_instr_per_trip" "$it" instr "the same under weft record, its trace read back"
	fig "$NAME.instr_overhead" "$(awk -v a="$ip" -v b="$it" 'BEGIN {printf "%.3f", b / a}')" ratio "traced / plain instructions (not the time: the kernel's share is not counted)"
fi
