#!/bin/bash
# keep-soak.sh BUILD-DIR - the keeper's soak (docs/keep.md; not in bench/run:
# at its full size it takes tens of minutes and a few GB of disk):
# bench/server-gen writes SOAK_N events (default 500 M) at full speed into
# a 256 MiB ring (overwrite mode: it wraps) while `weft keep` keeps it into a directory with
# --max-disk SOAK_DISK (default 1G).  Checks, and prints as figures:
#   keep.soak_max_bytes   the most the chunks ever took (sampled every
#                         0.2 s and after every chunk): never over budget
#   keep.soak_chunks_ok   every chunk left opens alone (1) or not (0)
#   keep.soak_adds_up     weft info DIR: packets kept + deleted + not kept
#                         = the packets the generator wrote (1) or not (0)
# A smaller run: SOAK_N=20000000 SOAK_DISK=64M bench/keep-soak.sh build
# (the SIGKILLs: bench/keep-kills.sh)
set -u
B=$(cd "${1:-build}" && pwd)
N=${SOAK_N:-500000000}
DISK=${SOAK_DISK:-1G}
W=$B/tools/weft
T=$(mktemp -d /tmp/weft-soak.XXXXXX)
trap 'kill $gen $keeper 2>/dev/null; rm -rf "$T"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # fig, median, the load check
budget=$(numfmt --from=iec "$DISK")
"$B/bench/server-gen" -n "$N" --size 268435456 --overwrite -o "$T/ring" >/dev/null &
gen=$!
while [ ! -s "$T/ring" ]; do sleep 0.01; done
"$W" keep "$T/ring" -o "$T/k" --max-disk "$DISK" 2>"$T/keep.txt" &
keeper=$!
max=0
while kill -0 $keeper 2>/dev/null; do
	b=$(cat "$T"/k/*.zst 2>/dev/null | wc -c)
	[ "$b" -gt "$max" ] && max=$b
	sleep 0.2
done
wait $gen
fig keep.soak_max_bytes "$max" bytes "the chunks' most, sampled (budget $budget)"
[ "$max" -le "$budget" ] || echo "# keep.soak: OVER BUDGET"
ok=1
for c in "$T"/k/*.zst; do
	"$W" info "$c" >/dev/null 2>&1 || { ok=0; echo "# $c does not open alone"; }
done
fig keep.soak_chunks_ok "$ok" bool "every chunk left opens alone"
# every packet the generator wrote is kept, deleted or counted as not kept
"$W" info "$T/k" >"$T/info.txt" 2>/dev/null
kept=$(awk '/^kept:/ {for (i = 1; i <= NF; i++) if ($(i + 1) == "packets,") print $i}' "$T/info.txt" | head -1)
deleted=$(awk '/^deleted:/ {print $4}' "$T/info.txt")
notkept=$(awk '/^not kept:/ {print $3}' "$T/info.txt")
lost=$(awk '/^losses:/ {print $2}' "$T/info.txt")
# (the reader's losses are the packets missing from the streams: deleted
# plus not kept; so kept + lost is every packet the streams numbered: the
# ring's own packets plus those it lost, the ring read alone)
"$W" info "$T/ring" >"$T/ring.txt" 2>/dev/null
rused=$(awk '/^ring:/ {for (i = 1; i <= NF; i++) if ($i == "use") print $(i - 3)}' "$T/ring.txt" | head -1)
rlost=$(awk '/^losses:/ {print $2}' "$T/ring.txt")
adds=$([ "$((deleted + notkept))" = "$lost" ] && [ "$((kept + lost))" = "$((rused + rlost))" ] && echo 1 || echo 0)
fig keep.soak_adds_up "$adds" bool "info: $kept kept + $lost lost ($deleted deleted, $notkept not kept) = $((rused + rlost)) packets the generator wrote"
cat "$T/keep.txt" | sed 's/^/# /'
