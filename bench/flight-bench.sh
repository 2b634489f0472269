#!/bin/bash
# flight-bench.sh BUILD-DIR - the flight recorder's figures and weft ps's
# (docs/flight.md), each checking its own work (else the figure is
# `failed`):
#
#   flight.overhead    uv-bench under `weft record` / under `weft record
#                      --flight` with three triggers armed (round trips a
#                      second), median of FLIGHT_REPS adjacent pairs; the
#                      watcher must have followed the run (its log's
#                      summary line)
#   flight.trigger_ms  from a request's pending-longer-than-T becoming true
#                      in the program (its creation, CLOCK_REALTIME, + T)
#                      to its snapshot renamed into place (CLOCK_REALTIME
#                      then, in flight.log), tests/flight's `pending`
#                      scene, median
#   flight.cause_kept  the share of the request's upstream chain (the
#                      creation and label of its connection, listener and
#                      pool: six events, overwritten in the 64 KiB ring
#                      when it fires) present in its snapshot, over
#                      FLIGHT_REPS runs; the chain is read from a run of
#                      the same scene into a ring that loses nothing
#   ps.ms              weft ps of a full 64 MiB ring of bench/server-gen's
#                      server-shaped trace, median of FLIGHT_REPS; its
#                      output (pid and tids aside) must be what it was
#                      (the generator is deterministic: its sha256), and
#                      the same at every repetition; ps's own pass
#                      (tools/ps-scan.c), not a model (ps --model: the
#                      reference, the same output)
set -u
B=$(cd "${1:-build}" && pwd)
REPS=${FLIGHT_REPS:-5}
W=$B/tools/weft
P=$B/tests/flight/flight-scenes
T=$(mktemp -d /tmp/weft-flightb.XXXXXX)
trap 'rm -rf "$T"' EXIT
fig() { printf '%-26s %14s %-9s # %s\n' "$1" "$2" "$3" "$4"; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR ? v[int((NR+1)/2)] : 0)}'; }
[ -x "$W" ] || { echo "# flight: weft not built"; exit 0; }

# flight.overhead
UV=$B/bench/uv-bench
if [ -x "$UV" ]; then
	ok=1
	for i in $(seq "$REPS"); do
		rm -rf "$T/r" "$T/f"
		plain() { "$W" record -o "$T/r" --size 64M -- "$UV" 1 2>/dev/null | awk '{print $1}'; }
		flight() {
			"$W" record --flight -o "$T/f" --size 64M \
				--trigger 'pending(kind=uv_write_t) > 1s' \
				--trigger 'callback > 100ms' \
				--trigger 'failed(message="*refused*")' -- "$UV" 1 2>/dev/null | awk '{print $1}'
		}
		if [ $((i % 2)) = 1 ]; then p=$(plain); f=$(flight); else f=$(flight); p=$(plain); fi
		grep -q '^summary fired=' "$T/f/flight.log" 2>/dev/null || ok=0
		awk -v a="$p" -v b="$f" 'BEGIN {printf "%.4f\n", (b > 0 ? a / b : 0)}' >>"$T/ratio"
	done
	if [ $ok = 1 ]; then
		fig flight.overhead "$(median <"$T/ratio" | awk '{printf "%.3f", $1}')" ratio \
			"uv-bench under weft record / under weft record --flight, 3 triggers armed, median of $REPS adjacent pairs (target <= 1.02)"
	else
		fig flight.overhead failed - "the watcher did not follow the run"
	fi
else
	echo "# flight.overhead: no uv-bench"
fi

# flight.trigger_ms and flight.cause_kept
if [ -x "$P" ]; then
	# the chain, from a ring that loses nothing
	mkdir -p "$T/full"
	(cd "$T/full" && WEFT_FILE=ring.weft WEFT_SIZE=64M FLIGHT_GO=. "$P" pending >/dev/null)
	"$W" dump "$T/full/ring.weft" 2>/dev/null |
		grep -E '(create child|label thread)=0x[123] ' | sed 's/^[0-9.]* #[0-9]*\/[0-9]* //; s/ by=.*//' >"$T/chain"
	nchain=$(wc -l <"$T/chain")
	have=0 want=0 bad=
	for i in $(seq "$REPS"); do
		d=$T/p$i
		mkdir -p "$d"
		(cd "$d" && WEFT_FILE=ring.weft WEFT_SIZE=64K FLIGHT_GO=go FLIGHT_PRINT=1 "$P" pending >created) &
		pp=$!
		while [ ! -e "$d/ring.weft" ]; do sleep 0.01; done
		"$W" watch "$d/ring.weft" -o "$d/s" -q -t 'pending(label="GET /api/*") > 100ms' &
		wp=$!
		while [ ! -e "$d/s/flight.log" ]; do sleep 0.01; done
		touch "$d/go"
		wait $pp
		wait $wp
		s=$d/s/flight-0000.weft
		[ -f "$s" ] || { bad="run $i saved no snapshot"; break; }
		# the watcher's log says when the rename was done (a file's
		# mtime is the kernel's coarse clock: ms off)
		m=$(sed -n 's/^saved .* real_ns=\([0-9]*\) .*/\1/p' "$d/s/flight.log" | head -1)
		awk -v m="$m" '/^created/ {printf "%.3f\n", (m - $2 - 1e8) / 1e6}' "$d/created" >>"$T/ms"
		"$W" dump "$s" 2>/dev/null | sed 's/^[0-9.]* #[0-9]*\/[0-9]* //; s/ by=.*//' >"$d/snap"
		want=$((want + nchain))
		have=$((have + $(grep -cxFf "$d/snap" "$T/chain")))
	done
	if [ -n "$bad" ] || [ "$nchain" != 6 ]; then
		fig flight.trigger_ms failed - "${bad:-the full trace's chain has $nchain events, not 6}"
		fig flight.cause_kept failed - "${bad:-the full trace's chain has $nchain events, not 6}"
	else
		fig flight.trigger_ms "$(median <"$T/ms")" ms \
			"pending(label) > 100ms: creation + 100 ms in the program to the snapshot renamed into place, median of $REPS (target <= 50)"
		fig flight.cause_kept "$(awk -v h="$have" -v w="$want" 'BEGIN {printf "%.3f", h / w}')" share \
			"events of the request's upstream chain (creation, label of 3 threads made long before) in its snapshot, $REPS runs, against a full trace (target 1)"
	fi
else
	echo "# flight.trigger_ms, flight.cause_kept: no flight-scenes"
fi

# ps.ms
if [ -x "$B/bench/server-gen" ]; then
	"$B/bench/server-gen" -n 8000000 --size 67108864 -o "$T/server.weft" >/dev/null
	"$W" ps "$T/server.weft" >"$T/ps.txt" 2>/dev/null
	rc=$?
	for _ in $(seq "$REPS"); do
		s=$(date +%s%N)
		"$W" ps "$T/server.weft" >"$T/ps2.txt" 2>/dev/null
		e=$(date +%s%N)
		cmp -s "$T/ps.txt" "$T/ps2.txt" || rc=9
		echo $(((e - s) / 1000)) >>"$T/psus"
	done
	# (when ps's output changes on purpose: the new sum; an OS thread's
	# id and the padding after it, as wide as the widest id, are one
	# token: the sum must not depend on how many digits the ids have)
	sum=$(sed -E 's/^process [0-9]+ /process PID /; s/^  [0-9]+ +(server-gen )/  TID \1/; s/running on OS thread [0-9]+/running on OS thread TID/' "$T/ps.txt" | sha256sum | cut -c1-64)
	want=65116815454c6192983d84b89b37816d17c427bea2b703a90352a20c8a7891b6
	if [ $rc -le 1 ] && [ "$sum" = "$want" ]; then
		fig ps.ms "$(median <"$T/psus" | awk '{printf "%.1f", $1 / 1000}')" ms \
			"weft ps of a full 64 MiB ring of server-gen's trace, median of $REPS (target <= 100)"
	else
		fig ps.ms failed - "weft ps exited $rc (9: not the same twice) with $(wc -l <"$T/ps.txt") lines, sha256 $sum (not $want): $(head -1 "$T/ps.txt")"
	fi
fi
exit 0
