#!/bin/bash
# keep-bench.sh BUILD-DIR - the keeper's figures (docs/keep.md), each
# checking its own work (the events read back from the kept directory are
# the events written, else the figure is `failed`):
#
#   keep.events_per_s           events a second the keeper copies,
#                               validates, compresses and writes on one
#                               CPU: `weft keep` of a full ring of
#                               bench-record's mix (KEEP_N events), over
#                               the command's CPU time; the highest
#                               steady rate it keeps with no loss
#   keep.disk_bytes_per_event   chunk bytes on disk per event of
#                               bench/server-gen's server-shaped mix
#                               (KEEP_N events), default zstd level
#   keep.overhead               uv-bench recorded / recorded with
#                               `weft record --keep` (rates), median of
#                               KEEP_REPS alternated pairs, each kept run
#                               checked (bench/keep-overhead.sh)
#   keep.idle_cpu               the keeper's CPU share (user + system over
#                               wall time) following a run whose program
#                               is idle (3 events in 6 s)
# KEEP_ARGS: more options of `weft keep` for the first two (KEEP_ARGS=--plain:
# the plain layout's figures).
set -u
B=$(cd "${1:-build}" && pwd)
N=${KEEP_N:-2000000}
REPS=${KEEP_REPS:-5}
CPU=${CPU:-1}
W=$B/tools/weft
BR=$B/bench/bench-record
T=$(mktemp -d /tmp/weft-keepb.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # fig, median, the load check
median() { sort -g | awk '{v[NR]=$1} END {print (NR ? v[int((NR+1)/2)] : 0)}'; }
events() { "$W" info "$1" 2>/dev/null | awk '/^events:/ {print $2; exit}'; }
[ -x "$BR" ] || { echo "# keep: bench-record not built"; exit 0; }

# keep.events_per_s
"$BR" mix "$N" "$T/mix.weft" >/dev/null
want=$(events "$T/mix.weft")
for _ in $(seq "$REPS"); do
	rm -rf "$T/k"
	# its CPU time (user + system): the machine may be shared
	/usr/bin/time -f "%U %S" -o "$T/time" taskset -c "$CPU" "$W" keep "$T/mix.weft" -o "$T/k" ${KEEP_ARGS:-} 2>/dev/null
	awk '{printf "%.0f\n", ($1 + $2) * 1e6}' "$T/time" >>"$T/us"
done
got=$(events "$T/k")
if [ -n "$want" ] && [ "$got" = "$want" ]; then
	fig keep.events_per_s "$(awk -v n="$want" -v us="$(median <"$T/us")" 'BEGIN {printf "%.0f", n / us * 1e6}')" events/s \
		"weft keep of a full ring ($want events of bench-record's mix): events / its CPU time, median of $REPS (target >= 20 M)"
else
	fig keep.events_per_s failed - "kept $got events of $want"
fi

# keep.disk_bytes_per_event
if [ -x "$B/bench/server-gen" ]; then
	"$B/bench/server-gen" -n "$N" --size 1073741824 -o "$T/server.weft" >/dev/null
	want=$(events "$T/server.weft")
	rm -rf "$T/k"
	"$W" keep "$T/server.weft" -o "$T/k" ${KEEP_ARGS:-} 2>/dev/null
	got=$(events "$T/k")
	bytes=$(cat "$T"/k/*.zst | wc -c)
	ring=$("$W" info "$T/server.weft" 2>/dev/null | awk '/^ring:/ {print $7 * $11; exit}')
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		fig keep.disk_bytes_per_event "$(awk -v b="$bytes" -v n="$want" 'BEGIN {printf "%.2f", b / n}')" bytes \
			"chunks of server-gen's mix ($want events; its packets: $(awk -v b="$ring" -v n="$want" 'BEGIN {printf "%.2f", b / n}') bytes/event), zstd level 3${KEEP_ARGS:+ $KEEP_ARGS} (target <= 3)"
	else
		fig keep.disk_bytes_per_event failed - "kept $got events of $want"
	fi
else
	echo "# keep.disk_bytes_per_event: no server-gen"
fi

# keep.overhead (its own script: alternated pairs, each kept run checked)
KEEP_REPS=$REPS "$(dirname "${BASH_SOURCE[0]}")/keep-overhead.sh" "$B"

# keep.idle_cpu
NUM=$B/tests/keep/keep-numbered
if [ -x "$NUM" ]; then
	rm -rf "$T/r" "$T/k"
	"$W" record -o "$T/r" --size 1M -- "$NUM" 1 0.5 3 >/dev/null 2>&1 &
	rec=$!
	while [ ! -f "$T/r/manifest" ]; do sleep 0.01; done
	/usr/bin/time -f "%U %S %e" -o "$T/time" "$W" keep "$T/r" -o "$T/k" 2>/dev/null
	wait $rec
	got=$("$W" dump "$T/k" 2>/dev/null | grep -c counter_set)
	if [ "$got" = 3 ]; then
		fig keep.idle_cpu "$(awk '{printf "%.5f", ($1 + $2) / $3}' "$T/time")" share \
			"CPU time / wall time of weft keep following an idle program ($(awk '{print $3}' "$T/time") s; target ~0)"
	else
		fig keep.idle_cpu failed - "kept $got of 3 events"
	fi
fi
exit 0
