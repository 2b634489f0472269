#!/bin/bash
# keep-overhead.sh BUILD-DIR - keep.overhead (docs/keep.md): what keeping
# adds to recording.  uv-bench (the libuv echo bench, KEEP_SECONDS of
# round trips, default 1) recorded with `weft record --keep` and without,
# in KEEP_REPS pairs (default 7) whose order alternates (record then
# keep, keep then record: a drift of the machine's pace falls on both);
# the figure is the median of the pairs' ratios, rate recorded / rate
# recorded and kept (1.10: keeping costs the program 10 % of its pace);
# and keep.vs_plain, the issue's own definition: the program alone / the
# program recorded and kept, from a third run in each round.
# Each kept run checks its work: the kept directory holds every event the
# run's ring holds (the ring, 64 MiB, never wraps in a second) and reports
# nothing not kept; else the figure is `failed`.  Prints the machine's
# load average at start and end beside it.
set -u
B=$(cd "${1:-build}" && pwd)
REPS=${KEEP_REPS:-7}
S=${KEEP_SECONDS:-1}
W=$B/tools/weft
UV=$B/bench/uv-bench
T=$(mktemp -d /tmp/weft-keepo.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # fig, median
events() { "$W" info "$1" 2>/dev/null | awk '/^events:/ {print $2; exit}'; }
[ -x "$UV" ] || { echo "# keep.overhead: no uv-bench"; exit 0; }
load0=$(cut -d' ' -f1 /proc/loadavg)
bad=""
rec() { # the rate recorded alone
	rm -rf "$T/r0"
	"$W" record -o "$T/r0" --size 64M -- "$UV" "$S" 2>/dev/null | awk '{print $1}'
}
kept() { # the rate recorded and kept; checks what was kept
	rm -rf "$T/r" "$T/k"
	local rate want got notkept
	rate=$("$W" record -o "$T/r" --size 64M --keep "$T/k" -- "$UV" "$S" 2>/dev/null | awk '{print $1}')
	want=$(events "$T/r") got=$(events "$T/k")
	notkept=$("$W" info "$T/k" 2>/dev/null | awk '/^not kept:/ {print $3; exit}')
	if [ -z "$want" ] || [ "$want" != "$got" ] || [ "$notkept" != 0 ]; then
		echo "kept $got of $want events ($notkept packets not kept)" >"$T/bad"
	fi
	echo "$rate"
}
plain() { # the rate of the program alone
	"$UV" "$S" 2>/dev/null | awk '{print $1}'
}
# three runs a round, their order turned each round (plain, recorded,
# kept; recorded, kept, plain; kept, plain, recorded): a drift of the
# machine's pace falls on all three
for i in $(seq "$REPS"); do
	case $((i % 3)) in
	1) p=$(plain) a=$(rec) b=$(kept) ;;
	2) a=$(rec) b=$(kept) p=$(plain) ;;
	0) b=$(kept) p=$(plain) a=$(rec) ;;
	esac
	[ -s "$T/bad" ] && { bad=$(cat "$T/bad"); break; }
	echo "$p $a $b" >>"$T/rounds"
	awk -v a="$a" -v b="$b" 'BEGIN {printf "%.4f\n", (b > 0 ? a / b : 0)}' >>"$T/ratio"
	awk -v a="$p" -v b="$b" 'BEGIN {printf "%.4f\n", (b > 0 ? a / b : 0)}' >>"$T/vsplain"
	awk -v a="$p" -v b="$a" 'BEGIN {printf "%.4f\n", (b > 0 ? a / b : 0)}' >>"$T/recplain"
done
load1=$(cut -d' ' -f1 /proc/loadavg)
if [ -n "$bad" ]; then
	fig keep.overhead failed - "$bad"
	fig keep.vs_plain failed - "$bad"
else
	fig keep.overhead "$(median <"$T/ratio" | awk '{printf "%.3f", $1}')" ratio \
		"uv-bench recorded / recorded with --keep (rates): what keeping adds to recording, median of $REPS rounds, ratios $(sort -g "$T/ratio" | tr '\n' ' ')(load average $load0 at start, $load1 at end)"
	fig keep.vs_plain "$(median <"$T/vsplain" | awk '{printf "%.3f", $1}')" ratio \
		"uv-bench alone / recorded with --keep (rates), the issue's keep.overhead, median of $REPS rounds, ratios $(sort -g "$T/vsplain" | tr '\n' ' ')(recorded alone: median $(median <"$T/recplain" | awk '{printf "%.3f", $1}'); target <= 1.10)"
fi
exit 0
