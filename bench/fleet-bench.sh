#!/bin/bash
# bench/fleet-bench.sh BUILD-DIR - a fleet's traces in ClickHouse
# (docs/fleet.md): three hosts' server-gen traces of $N events in all (10 M
# by default, as the issue asks) shipped concurrently by `weft ship` into
# two clickhouse-server shards on loopback (started here, as
# tests/fleet does) behind Distributed tables; then the fleet's p99 by
# host and kind, median of $REPS.
#   ship.events_per_s     the traces' events over the wall time of the
#                         three shippers (read, model, rows, inserts)
#   ship.bytes_per_event  the shards' active parts on disk over the events
#   fleet.p99_query_ms    weft query --clickhouse p99_by_host_kind
# Each checks its work: every table's rows per host equal weft query's on
# that host's trace, and the p99 answer equals weft query's
# latency_by_kind of each trace; else the figures read `failed`.
set -uo pipefail
B=$(cd "${1:-build}" && pwd)
REPS=${REPS:-5}
N=${N:-10000000}
W=$B/tools/weft
G=$B/bench/server-gen
HERE=$(cd "$(dirname "$0")" && pwd)
fig() { printf '%-26s %14s %-9s # %s\n' "$1" "$2" "$3" "$4"; }
[ -x "$G" ] || { echo "# ship.events_per_s: no server-gen"; exit 0; }
command -v clickhouse-server >/dev/null || { echo "# ship.events_per_s: no clickhouse-server"; exit 0; }
"$W" --help 2>&1 | grep -q "^  ship " || { echo "# ship.events_per_s: no weft ship"; exit 0; }
"$W" --help 2>&1 | grep -q "^  query " || { echo "# ship.events_per_s: weft built without SQLite"; exit 0; }
T=$(mktemp -d /tmp/weft-fleet-bench.XXXXXX)
die() { echo "# fleet-bench: $*" >&2; exit 1; }
cleanup() {
	local p
	for p in "$T"/s*/pid; do [ -f "$p" ] && kill -9 "$(cat "$p")" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
. "$HERE/../tests/fleet/shards.sh"
P1H=$(free_port) P1T=$(free_port) P2H=$(free_port) P2T=$(free_port)
gen_config 1 "$P1H" "$P1T"
gen_config 2 "$P2H" "$P2T"
start_shard 1 >&2
start_shard 2 >&2
URL=http://127.0.0.1:$P1H/
for p in "$P1H" "$P2H"; do
	"$W" ship --schema --cluster weft_test | while IFS= read -r l; do
		curl -sS "http://127.0.0.1:$p/" --data-binary "${l%;}"
	done
done
# charlie on the first shard, alpha and bravo on the second
ev=0 s=1
for h in alpha bravo charlie; do
	e=$("$G" -n $((N / 3)) -s $s -o "$T/$h.weft" | awk '{print $1}')
	ev=$((ev + e)) s=$((s + 1))
done
t0=$(date +%s.%N)
for h in alpha bravo charlie; do
	"$W" ship "$T/$h.weft" --clickhouse "$URL" --cluster weft_test --host "$h" \
		--queue "$T/q-$h" >"$T/ship-$h.out" 2>&1 &
	pids="${pids:-} $!"
done
ok=1
for j in $pids; do wait "$j" || ok=0; done
t1=$(date +%s.%N)
TABLES="threads runs arrows waits labels samples loop_phases losses verdicts os_threads processes trace"
for h in alpha bravo charlie; do
	l= f=
	for tb in $TABLES; do
		l="$l${l:+ UNION ALL }SELECT '$tb', count(*) FROM $tb"
		f="$f${f:+ UNION ALL }SELECT '$tb' AS tb_name, count() FROM $tb WHERE host = '$h'"
	done
	"$W" query --tsv "$T/$h.weft" "$l" 2>/dev/null | tail -n +2 | sort >"$T/l"
	"$W" query --clickhouse "$URL" --tsv "SELECT * FROM ($f)" | tail -n +2 | sort >"$T/f"
	[ "$(wc -l <"$T/l")" = 12 ] && cmp -s "$T/l" "$T/f" || ok=0
done
bytes=$(curl -sS "http://127.0.0.1:$P1H/" --data-binary "SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND database = 'weft'")
bytes2=$(curl -sS "http://127.0.0.1:$P2H/" --data-binary "SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND database = 'weft'")
bytes=$((bytes + bytes2))
# the p99 query, and its answer against weft query's on each trace
for h in alpha bravo charlie; do
	"$W" query --tsv "$T/$h.weft" "SELECT '$h', kind, count, pending, failed, p50, p90, p99, max FROM latency_by_kind" 2>/dev/null | tail -n +2
done | sort >"$T/want"
secs() { local a b; a=$(date +%s.%N); "$@" >"$T/out" 2>/dev/null; b=$(date +%s.%N); awk -v a="$a" -v b="$b" 'BEGIN {print b - a}'; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR ? v[int((NR+1)/2)] : "nan")}'; }
qok=1
q=$(for _ in $(seq "$REPS"); do
	secs "$W" query --clickhouse "$URL" --tsv p99_by_host_kind
	tail -n +2 "$T/out" | sed 's/\\N//g' | sort | cmp -s - "$T/want" || echo fail >"$T/qfailed"
done | median)
[ -e "$T/qfailed" ] && qok=0
[ -s "$T/want" ] || qok=0
if [ $ok = 1 ]; then
	fig ship.events_per_s "$(awk -v e="$ev" -v a="$t0" -v b="$t1" 'BEGIN {printf "%.0f", e / (b - a)}')" events/s "three weft ship of server-gen traces ($ev events in all) at once into two clickhouse-server shards on loopback (Distributed tables), wall time; every table's rows per host = weft query's"
	fig ship.bytes_per_event "$(awk -v b="$bytes" -v e="$ev" 'BEGIN {printf "%.2f", b / e}')" bytes "the shards' active parts on disk (system.parts.bytes_on_disk, before merges settle) over the events"
else
	fig ship.events_per_s failed events/s "a shipper failed or rows differ from weft query's (bench/fleet-bench.sh)"
	fig ship.bytes_per_event failed bytes "(the rows were wrong)"
fi
if [ $qok = 1 ] && [ $ok = 1 ]; then
	fig fleet.p99_query_ms "$(awk -v t="$q" 'BEGIN {printf "%.0f", t * 1000}')" ms "weft query --clickhouse p99_by_host_kind over the three hosts ($ev events), median of $REPS; = latency_by_kind of each trace"
else
	fig fleet.p99_query_ms failed ms "the fleet's p99 differs from weft query's (bench/fleet-bench.sh)"
fi
