#!/bin/bash
# SPDX-License-Identifier: MIT
# test-stats-stream.sh - `weft stats` in one pass (a lean model feeding the
# statistics, docs/huge.md) says byte for byte what `weft stats
# --in-memory` (the whole model) says: on the examples, server-shaped
# traces, a run directory of several processes, a kept directory, and a
# live ring stopped at three points as it grows; and `weft ctf` of a
# stream of many packets, written as it goes.  TAP output.
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
W=$WEFT_BIN
EX=$WEFT_BUILD/examples
export W EX
. "$WEFT_SRC/tests/tap.sh"
tap_init stats-stream "$@"
unset WEFT_FILE WEFT_SIZE WEFT_MODE WEFT_CLOCK
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"

# Both paths, every form of the output: identical.  $1: what it is (for
# the message), then the traces.
same() {
	local what=$1; shift
	local o
	for o in "" "--json" "--sum-counters" "--json --sum-counters" "--top 3"; do
		"$W" stats $o "$@" >one.txt 2>one.err; local a=$?
		"$W" stats --in-memory $o "$@" >whole.txt 2>whole.err; local b=$?
		[ $a = $b ] || die "$what ($o): exit $a in one pass, $b in memory: $(cat one.err whole.err)"
		cmp -s one.txt whole.txt || die "$what ($o) differs: $(diff one.txt whole.txt | head -20)"
		cmp -s one.err whole.err || die "$what ($o): stderr differs: $(diff one.err whole.err | head)"
	done
	# (something was said: a test that compares two empty outputs could
	# not fail)
	grep -q '"loop_phases"' <("$W" stats --json "$@") || die "$what: no JSON"
}

t_examples() {
	local n=0
	WEFT_FILE=all.weft "$EX/all-events" 3 >/dev/null 2>&1 || die "all-events"
	same all-events all.weft
	WEFT_FILE=tick.weft "$EX/ticker" 0.05 >/dev/null 2>&1 || die "ticker"
	same ticker tick.weft
	WEFT_FILE=sel.weft "$EX/select-loop" >/dev/null 2>&1 || die "select-loop"
	same select-loop sel.weft
	n=3
	for m in deadlock failed ok; do
		WEFT_FILE=v-$m.weft "$EX/verdicts" $m >/dev/null 2>&1
		same "verdicts $m" v-$m.weft && n=$((n + 1))
	done
	if [ -x "$EX/uv-phases" ]; then
		# (libuv's loop phases: the phase groups and their runs)
		for e in uv-phases uv-labels uv-misc; do
			"$W" record -o $e.weft -- "$EX/$e" >/dev/null 2>&1 || die "$e did not record"
			same $e $e.weft
			n=$((n + 1))
		done
		"$W" stats uv-phases.weft | grep -q '^loop phases' || die "uv-phases: no loop phases"
	fi
	[ $n -ge 6 ] || die "only $n examples recorded"
}

t_server() {
	local G=$WEFT_BUILD/bench/server-gen
	"$G" -n 200000 -o s1.weft >/dev/null || die "server-gen"
	same server s1.weft
	"$G" -n 200000 -c 3000 -s 7 -o s2.weft >/dev/null || die "server-gen"
	same "busy server" s2.weft
	# three traces merged, one of them twice over (ids of several rings)
	same "three merged" s1.weft s2.weft s1.weft
	# the longest runs and the phases' runs are there to compare
	"$W" stats s1.weft >s.txt
	grep -q 'postgres pool' s.txt && grep -q '^loop phases, tid' s.txt || die "$(cat s.txt)"
}

# weft ctf writes a stream's packets as it goes (a few at a time, not the
# whole stream in memory): more packets than it holds at once, every
# event there for babeltrace2.
t_ctf_streams() {
	command -v babeltrace2 >/dev/null || { echo "no babeltrace2"; exit 77; }
	"$WEFT_BUILD/bench/server-gen" -n 600000 -o s.weft >/dev/null || die "server-gen"
	"$W" ctf s.weft -o c || die "weft ctf"
	local size ev bt
	size=$(wc -c c/stream-* | sort -n | tail -2 | head -1 | awk '{print $1}')
	[ "$size" -gt $((100 * 32768)) ] || die "$size bytes in the largest stream: fewer than 100 packets"
	ev=$("$W" stats --json s.weft | sed 's/^{"events":\([0-9]*\),.*/\1/')
	bt=$(babeltrace2 c | wc -l)
	[ "$bt" = "$ev" ] || die "babeltrace2 reads $bt events, weft $ev"
}

# A run directory of several processes, each with its ring: counters of
# one name in several processes (--sum-counters), phases of several loops.
t_run_dir() {
	"$W" record -o r -- sh -c "'$EX/forker' >/dev/null; '$EX/ticker' 0.05 >/dev/null; '$EX/ticker' 0.05 >/dev/null; '$EX/all-events' 3 >/dev/null" 2>rec.txt ||
		die "record: $(cat rec.txt)"
	[ "$(ls r/ring.* | wc -l)" -ge 4 ] || die "rings: $(ls r)"
	same "run directory" r
	"$W" stats --sum-counters r | grep -q '(sum of [0-9]* processes)' || die "no counter summed: $("$W" stats --sum-counters r)"
}

t_kept() {
	local NUM=$WEFT_BUILD/tests/keep/keep-numbered
	[ -x "$NUM" ] || { echo "no keep-numbered"; exit 77; }
	"$W" record -o r --size 1M --keep k --chunk 64K -- "$NUM" 100000 60000 3 >out.txt 2>rec.txt ||
		die "record --keep: $(cat rec.txt)"
	[ -d k ] || die "nothing kept"
	same "kept directory" k
}

# A live ring, stopped as it grows: both paths read the same events at
# each stop, and one more at the next (the model's provisional ends).
t_live() {
	WEFT_FILE=live.weft "$EX/ticker" 3 >/dev/null &
	local pid=$! i last=0 ev
	for i in 1 2 3; do
		sleep 0.4
		kill -STOP $pid
		same "live, stop $i" live.weft
		ev=$("$W" stats --json live.weft | sed 's/^{"events":\([0-9]*\),.*/\1/')
		[ "$ev" -gt "$last" ] || die "stop $i: $ev events, $last before"
		last=$ev
		kill -CONT $pid
	done
	kill $pid
	wait $pid 2>/dev/null
	same "live, ended" live.weft
}

TAP_TIMEOUT=300
run examples t_examples
run server t_server
run ctf_streams t_ctf_streams
run run_dir t_run_dir
run kept t_kept
run live t_live
tap_done
