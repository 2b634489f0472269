#!/bin/bash
# keep-kills.sh BUILD-DIR - SIGKILL at random moments, KILLS_N times each
# (default 100; docs/keep.md, "Guarantees"; not in bench/run nor tests/run:
# it takes tens of minutes).  The numbered program (tests/keep/numbered.c)
# writes events at a steady rate; keep_check.py checks what comes back.
#   keep.kills_keeper   one run, the keeper SIGKILLed KILLS_N times and
#                       started again each time: every chunk opens alone,
#                       every event back once, in order (no loss)
#   keep.kills_program  KILLS_N runs under weft record --keep, the program
#                       SIGKILLed at a random moment: what it wrote is
#                       kept, from its first event, with no loss
#   keep.kills_both     KILLS_N runs, program and keeper SIGKILLed (in a
#                       random order, a random moment apart), the keeper
#                       started again: no event twice, every gap after a
#                       loss that says it
# Each figure is the runs (or kills) that passed, out of KILLS_N; a
# failure prints what keep_check.py said.  KILLS_N=10 for a short run;
# KILLS_ONLY=keeper|program|both for one of them.
set -u
B=$(cd "${1:-build}" && pwd)
S=$(cd "$(dirname "$0")/.." && pwd)
N=${KILLS_N:-100}
W=$B/tools/weft
NUM=$B/tests/keep/keep-numbered
CHECK=$S/tests/keep/keep_check.py
T=$(mktemp -d /tmp/weft-kills.XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fig() { printf '%-26s %14s %-9s # %s\n' "$1" "$2" "$3" "$4"; }
[ -x "$NUM" ] || { echo "# keep-kills: $NUM not built"; exit 0; }
wait_for() { local i; for i in $(seq 500); do [ -e "$1" ] && return 0; sleep 0.01; done; return 1; }
rnd() { echo "0.$((RANDOM % ${1:-5} + 1))$((RANDOM % 10))"; } # 0.10 .. 0.59 s
chunks_ok() {
	local c
	for c in "$1"/*.zst; do
		[ -e "$c" ] || continue
		"$W" info "$c" >/dev/null 2>&1 || { echo "$c does not open alone"; return 1; }
	done
}

only() { [ -z "${KILLS_ONLY:-}" ] || [ "$KILLS_ONLY" = "$1" ]; }

# the keeper: one run long enough for N kills (about 0.35 s apart)
if only keeper; then
events=$((N * 7000)) # each of 3 threads, 60,000 events/s in all: N * 0.35 s
rm -rf r k
"$W" record -o r --size 16M -- "$NUM" "$events" 60000 3 >/dev/null 2>rec.txt &
rec=$!
wait_for r/manifest
kills=0
while kill -0 $rec 2>/dev/null && [ $kills -lt "$N" ]; do
	"$W" keep r -o k --chunk 64K 2>>keep.txt &
	kp=$!
	sleep "$(rnd)"
	kill -9 $kp 2>/dev/null && kills=$((kills + 1))
	wait $kp 2>/dev/null
done
# (the last keeper at once: it ends with the run)
"$W" keep r -o k --chunk 64K 2>>keep.txt
wait $rec
ok=0
if chunks_ok k && "$W" dump k >d.txt 2>/dev/null && python3 "$CHECK" d.txt "$events" 3 all >c.txt; then
	ok=$kills
else
	echo "# keeper: $(tail -3 c.txt 2>/dev/null)"
fi
fig keep.kills_keeper "$ok" kills "of $kills keeper SIGKILLs, $events events: all back once, in order"
fi

# the program
if only program; then
ok=0
for i in $(seq "$N"); do
	rm -rf r k
	"$W" record -o r --size 4M --keep k --chunk 64K -- "$NUM" 1000000 90000 3 >/dev/null 2>rec.txt &
	rec=$!
	wait_for r/ring
	sleep "$(rnd 6)"
	p=$(pgrep -P $rec -f keep-numbered)
	[ -n "$p" ] && kill -9 "$p"
	wait $rec
	if chunks_ok k >c.txt && "$W" dump k >d.txt 2>/dev/null &&
		python3 "$CHECK" d.txt 1000000 3 prefix >c.txt; then
		ok=$((ok + 1))
	else
		echo "# program run $i: $(tail -2 c.txt)"
	fi
done
fig keep.kills_program "$ok" runs "of $N runs, the program SIGKILLed: all it wrote kept"
fi

# both
if only both; then
ok=0
for i in $(seq "$N"); do
	rm -rf r k
	"$W" record -o r --size 4M -- "$NUM" 1000000 90000 3 >/dev/null 2>rec.txt &
	rec=$!
	wait_for r/ring
	"$W" keep r -o k --chunk 64K 2>keep.txt &
	kp=$!
	sleep "$(rnd)"
	p=$(pgrep -P $rec -f keep-numbered)
	if [ $((RANDOM % 2)) = 0 ]; then
		kill -9 $kp; sleep 0.0$((RANDOM % 10)); [ -n "$p" ] && kill -9 "$p"
	else
		[ -n "$p" ] && kill -9 "$p"; sleep 0.0$((RANDOM % 10)); kill -9 $kp
	fi
	wait $rec $kp 2>/dev/null
	if "$W" keep r -o k --chunk 64K 2>keep2.txt && chunks_ok k >c.txt &&
		"$W" dump k >d.txt 2>/dev/null &&
		python3 "$CHECK" d.txt 1000000 3 gaps >c.txt; then
		ok=$((ok + 1))
	else
		echo "# both run $i: $(tail -2 c.txt) $(tail -1 keep2.txt)"
	fi
done
fig keep.kills_both "$ok" runs "of $N runs, both SIGKILLed, the keeper again: nothing twice, no silent gap"
fi
