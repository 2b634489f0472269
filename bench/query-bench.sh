#!/bin/bash
# bench/query-bench.sh BUILD-DIR - `weft query` on a server-shaped trace of
# $N events (bench/server-gen; 10 M by default, as bench/run): p99 latency
# by kind in SQL (the latency_by_kind view), the whole command, median of
# $REPS with the trace's index built (the first query, which builds it,
# and --index no, the model, once each); and the same figures from `weft stats
# --json` as a baseline.  Each run checks its work: the p99 of every kind
# must be the one `weft stats` gives, or the figures read `failed`.
set -uo pipefail
B=$(cd "${1:-build}" && pwd)
REPS=${REPS:-5}
CPU=${CPU:-1}
N=${N:-10000000}
W=$B/tools/weft
G=$B/bench/server-gen
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # fig, median, the load check
[ -x "$G" ] || { echo "# query.p99_by_kind_ms: no server-gen"; exit 0; }
"$W" --help 2>&1 | grep -q "^  query " || { echo "# query.p99_by_kind_ms: weft built without SQLite"; exit 0; }
T=$(mktemp -d /tmp/weft-query-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
ev=$("$G" -n "$N" -o "$T/s.weft" | awk '{print $1}')
SQL="SELECT kind, p99 FROM latency_by_kind ORDER BY kind"
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >"$T/out" 2>/dev/null; t1=$(date +%s.%N); awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'; }
# what weft stats says, as "kind<TAB>p99" lines (-1: no finished thread)
"$W" stats --json "$T/s.weft" >"$T/stats.json" 2>/dev/null
python3 -c '
import json, sys
for g in sorted(json.load(open(sys.argv[1]))["kinds"], key=lambda g: g["key"].encode()):
    print("%s\t%d" % (g["key"], g["lifetime_ns"]["p99"]))' "$T/stats.json" >"$T/want"
ok=1
got() { tail -n +2 "$T/out" | awk -F'\t' '{print $1 "\t" ($2 == "" ? -1 : $2)}'; }
# the first query builds the trace's index (--index build; auto does it
# too for a trace of 32 MiB or more), the later ones read it
# (median of $REPS: the index is removed before each, so that each builds it)
first=$(for _ in $(seq "$REPS"); do
	rm -f "$T/s.weft.weftidx"
	secs taskset -c "$CPU" "$W" query --index build --tsv "$T/s.weft" "$SQL"
	got >"$T/got"
	cmp -s "$T/got" "$T/want" || echo fail >"$T/failed"
	[ -s "$T/s.weft.weftidx" ] || echo "no index built" >"$T/failed"
done | median)
model=$(secs taskset -c "$CPU" "$W" query --index no --tsv "$T/s.weft" "$SQL")
got >"$T/got"
cmp -s "$T/got" "$T/want" || echo fail >"$T/failed"
q=$(for _ in $(seq "$REPS"); do
	secs taskset -c "$CPU" "$W" query --tsv "$T/s.weft" "$SQL"
	tail -n +2 "$T/out" | awk -F'\t' '{print $1 "\t" ($2 == "" ? -1 : $2)}' >"$T/got"
	cmp -s "$T/got" "$T/want" || echo fail >"$T/failed"
done | median)
s=$(for _ in $(seq "$REPS"); do secs taskset -c "$CPU" "$W" stats --json "$T/s.weft"; done | median)
[ -s "$T/want" ] || ok=0
[ -e "$T/failed" ] && ok=0
if [ $ok = 1 ]; then
	fig query.p99_by_kind_ms "$(awk -v t="$q" 'BEGIN {printf "%.0f", t * 1000}')" ms "weft query 'SELECT kind, p99 FROM latency_by_kind' on a server-gen trace of $ev events, with its index built, the whole command; p99 of every kind equal to weft stats' (target <= 1000 at 10 M)"
	fig query.first_p99_ms "$(awk -v t="$first" 'BEGIN {printf "%.0f", t * 1000}')" ms "the same, the first time: --index build (one pass over the trace, the index written beside it), median of $REPS each from no index"
	fig query.model_p99_ms "$(awk -v t="$model" 'BEGIN {printf "%.0f", t * 1000}')" ms "the same with --index no (read, model, SQL)"
	fig query.vs_stats "$(awk -v a="$q" -v b="$s" 'BEGIN {printf "%.3f", a / b}')" ratio "query.p99_by_kind_ms / weft stats --json of the same trace"
else
	fig query.p99_by_kind_ms failed ms "the SQL p99 by kind differs from weft stats' (bench/query-bench.sh)"
	fig query.vs_stats failed ratio "(the answer was wrong)"
fi
# HUGE_N (e.g. 100000000, 1.6 GB in /tmp): the same with the index over
# that many events, checked against weft stats (minutes, GBs of memory)
if [ -n "${HUGE_N:-}" ]; then
	rm -f "$T/s.weft" "$T/s.weft.weftidx"
	"$G" -n "$HUGE_N" -o "$T/h.weft" >/dev/null
	"$W" index "$T/h.weft" >/dev/null 2>&1
	"$W" stats --json "$T/h.weft" >"$T/stats.json" 2>/dev/null
	python3 -c '
import json, sys
for g in sorted(json.load(open(sys.argv[1]))["kinds"], key=lambda g: g["key"].encode()):
    print("%s\t%d" % (g["key"], g["lifetime_ns"]["p99"]))' "$T/stats.json" >"$T/want"
	rm -f "$T/failed"
	[ -s "$T/h.weft.weftidx" ] || echo "no index" >"$T/failed"
	h=$(for _ in $(seq "$REPS"); do
		secs taskset -c "$CPU" "$W" query --tsv "$T/h.weft" "$SQL"
		got >"$T/got"
		cmp -s "$T/got" "$T/want" || echo fail >"$T/failed"
	done | median)
	if [ -s "$T/want" ] && [ ! -e "$T/failed" ]; then
		fig query.huge_p99_ms "$(awk -v t="$h" 'BEGIN {printf "%.0f", t * 1000}')" ms "weft query 'SELECT kind, p99 FROM latency_by_kind' over $HUGE_N server-gen events with the index, the whole command; equal to weft stats' (target <= 2000 at 10^8)"
	else
		fig query.huge_p99_ms failed ms "the SQL p99 by kind over $HUGE_N events differs from weft stats'"
	fi
fi
