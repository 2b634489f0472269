#!/bin/bash
# bench/otlp-bench.sh BUILD-DIR - `weft export --otlp` on a server-shaped
# trace of $N events (bench/server-gen; 10 M by default, as bench/run):
# events a second through the whole command (read, model, hubs, spans,
# messages written), median of $REPS.  It checks its work: the spans
# decoded (node, @opentelemetry/otlp-transformer's classes) must be the
# trace's async threads, no trace above the span budget (10,000), no
# message above 4 MiB, or the figure reads `failed`.
set -uo pipefail
B=$(cd "${1:-build}" && pwd)
SRC=$(cd "$(dirname "$0")/.." && pwd)
REPS=${REPS:-3}
CPU=${CPU:-1}
N=${N:-10000000}
W=$B/tools/weft
G=$B/bench/server-gen
fig() { printf '%-26s %14s %-9s # %s\n' "$1" "$2" "$3" "$4"; }
[ -x "$G" ] || { echo "# otlp.events_per_s: no server-gen"; exit 0; }
T=$(mktemp -d /tmp/weft-otlp-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
ev=$("$G" -n "$N" -o "$T/s.weft" | awk '{print $1}')
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR ? v[int((NR+1)/2)] : "nan")}'; }
s=$(for _ in $(seq "$REPS"); do secs taskset -c "$CPU" "$W" export --otlp "$T/s.otlp" "$T/s.weft"; done | median)
why=""
if ! command -v node >/dev/null || [ ! -d "$SRC/node_modules/@opentelemetry/otlp-transformer" ]; then
	why="no node or node_modules (npm ci): spans not decoded"
elif ! "$W" --help 2>&1 | grep -q "^  query "; then
	why="weft built without SQLite: threads not counted"
else
	read -r spans traces most big msgs < <(WEFT_SRC="$SRC" node --max-old-space-size=4096 "$SRC/tests/fleet/otlp-check.js" count "$T/s.otlp")
	threads=$("$W" query --csv "$T/s.weft" "select count(*) from threads" | tail -1)
	[ "${spans:-x}" = "$threads" ] || why="$spans spans decoded for $threads async threads"
	[ "${most:-99999}" -le 10000 ] || why="$why; a trace of $most spans"
	[ "${big:-99999999}" -le 4194304 ] || why="$why; a message of $big bytes"
fi
bytes=$(stat -c %s "$T/s.otlp")
if [ -z "$why" ]; then
	fig otlp.events_per_s "$(awk -v e="$ev" -v t="$s" 'BEGIN {printf "%.0f", e / t}')" ev/s "weft export --otlp of a server-gen trace of $ev events: $spans spans (= async threads) in $traces traces (largest $most spans, budget 10000), $msgs messages (largest $big bytes <= 4 MiB)"
	fig otlp.bytes_per_event "$(awk -v e="$ev" -v b="$bytes" 'BEGIN {printf "%.1f", b / e}')" B "the OTLP file's bytes per event of the trace"
else
	case $why in no*|weft*) echo "# otlp.events_per_s: $why";; *)
	fig otlp.events_per_s failed ev/s "$why (bench/otlp-bench.sh)";; esac
fi
