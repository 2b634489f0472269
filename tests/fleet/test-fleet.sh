#!/bin/bash
# SPDX-License-Identifier: MIT
# test-fleet.sh - a fleet's traces in ClickHouse (weft ship, weft query
# --clickhouse; docs/fleet.md), against the clickhouse-server installed
# (Debian 12's is 18.16): two shards started here from generated config
# files on random loopback ports, Distributed tables over both; three
# simulated hosts' runs (and the ARP hang) shipped concurrently while a
# shard is stopped and restarted and a shipper is killed and restarted:
# every table's rows exactly once (counts and sums against weft query on
# each trace); the fleet's standard queries equal weft query's over the
# same traces (one by one, and merged); hostile labels and names
# round-trip byte for byte; a queue over its budget loses rows counted
# exactly; a backend down at the start: queued, then delivered by a
# restarted shipper; a kept directory followed while it grows; weft
# fetch across processes and hosts (connections of one port pair at
# different times told apart, the waits of a hang kept).  TAP.
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
W=$WEFT_BIN
. "$WEFT_SRC/tests/tap.sh"
if ! command -v clickhouse-server >/dev/null; then
	echo "1..0 # SKIP clickhouse-server is not installed (.ci/install-deps.sh installs it)"
	exit 0
fi
tap_init fleet "$@"
TAP_TIMEOUT=150
export W T

# Everything started here is stopped at exit, then the scratch directory
# removed (the servers' data is in it).
cleanup() {
	local p
	for p in "$T"/*.pid "$T"/s*/pid; do
		[ -f "$p" ] && kill -9 "$(cat "$p")" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# free_ports, gen_config, launch_shard, wait_shard, start_shard,
# stop_shard (P1H P1T P2H P2T: the shards' HTTP and TCP ports)
. "$WEFT_SRC/tests/fleet/shards.sh"
read -r P1H P1T P2H P2T < <(free_ports 4)
export P1H P1T P2H P2T

# SQL on shard N's HTTP interface (curl: the test's own client).
sq() { # n sql
	local port
	[ "$1" = 1 ] && port=$P1H || port=$P2H
	curl -sS --fail-with-body "http://127.0.0.1:$port/" --data-binary "$2" 2>&1 ||
		curl -sS "http://127.0.0.1:$port/" --data-binary "$2"
}
URL1=http://127.0.0.1:$P1H/
export URL1

# weft query over the fleet (TSV with a header; NULL as "").
fq() { # [options] sql
	"$W" query --clickhouse "$URL1" --tsv "$@" | sed 's/\\N//g'
}
# weft query over local traces (TSV with a header).
lq() { # traces... sql
	"$W" query --tsv "$@"
}

gen_config 1 "$P1H" "$P1T"
gen_config 2 "$P2H" "$P2T"
launch_shard 1
launch_shard 2
wait_shard 1
wait_shard 2

# ---- the cases ----

# The DDL weft ship --schema prints runs on this server: every shard gets
# the MergeTree tables and the Distributed tables over them.
t_schema() {
	local n s l
	"$W" ship --schema --cluster weft_test >ddl.sql || die "--schema failed"
	grep -q "ENGINE = Distributed(weft_test, weft, threads_local, cityHash64(host))" ddl.sql ||
		die "no Distributed table: $(head -3 ddl.sql)"
	grep -q "threads_local.*ENGINE = MergeTree PARTITION BY day ORDER BY (host, kind, time)" ddl.sql ||
		die "threads_local is not ordered by host, kind, time"
	! grep -qi "DateTime64\|LowCardinality\|CODEC\|Map(" ddl.sql || die "types 18.16 lacks"
	for s in 1 2; do
		while IFS= read -r l; do
			out=$(sq $s "${l%;}")
			[ -z "$out" ] || die "shard $s refused: ${l:0:80}: $out"
		done <ddl.sql
	done
	n=$(sq 1 "SELECT count() FROM system.tables WHERE database = 'weft'")
	[ "$n" = 28 ] || die "shard 1 has $n tables in weft (not 28)"
	# no cluster: MergeTree tables of those names, no Distributed
	"$W" ship --schema --database other >plain.sql
	! grep -q "Distributed\|_local" plain.sql || die "a Distributed table without --cluster"
	grep -q "CREATE TABLE IF NOT EXISTS other.threads (" plain.sql || die "no other.threads"
}
run "the DDL runs on 18.16: MergeTree by day on each shard, Distributed over both" t_schema

# The traces of the fleet: three simulated servers and the ARP hang.
# The shards: alpha, bravo and delta go to the second shard, charlie to
# the first (cityHash64 of the host), checked below.
mk_traces() {
	[ -s "$T/delta.weft" ] && return 0
	"$WEFT_BUILD/bench/server-gen" -n 20000 -s 1 -o "$T/alpha.weft" >/dev/null &&
		"$WEFT_BUILD/bench/server-gen" -n 15000 -s 2 -o "$T/bravo.weft" >/dev/null &&
		"$WEFT_BUILD/bench/server-gen" -n 25000 -s 3 -o "$T/charlie.weft" >/dev/null &&
		WEFT_FILE=$T/delta.weft "$WEFT_BUILD/examples/arp" bad >/dev/null 2>&1
	[ -s "$T/delta.weft" ] || die "no traces made"
}


ship_bg() { # host [more options]
	local h=$1
	shift
	"$W" ship "$T/$h.weft" --clickhouse "$URL1" --cluster weft_test --host "$h" \
		--service "svc-$h" --queue "$T/q-$h" --batch 300 --retry-for 0 "$@" \
		>>"$T/ship-$h.out" 2>&1 &
	echo $! >"$T/ship-$h.pid"
}

t_ship_concurrent() {
	local h st sent
	mk_traces
	for h in alpha bravo charlie delta; do ship_bg $h; done
	# mid-stream: some rows in, not all
	for i in $(seq 200); do
		sent=$(sq 1 "SELECT count() FROM weft.arrows_local")
		[ "${sent:-0}" -gt 0 ] 2>/dev/null && break
		sleep 0.05
	done
	stop_shard 2
	# a shipper killed, and started again on its queue
	kill -9 "$(cat "$T/ship-charlie.pid")"
	wait "$(cat "$T/ship-charlie.pid")" 2>/dev/null
	ls "$T/q-charlie" >"$T/charlie-queue-at-kill.txt"
	sleep 1.5
	ship_bg charlie
	sleep 1
	start_shard 2
	for h in alpha bravo charlie delta; do
		wait "$(cat "$T/ship-$h.pid")"
		st=$?
		[ "$st" = 0 ] || die "weft ship of $h: exit $st: $(tail -5 "$T/ship-$h.out")"
	done
	grep -q "retrying" "$T/ship-alpha.out" "$T/ship-bravo.out" ||
		die "no shipper saw the shard down: $(cat "$T"/ship-alpha.out)"
	# each shard holds its hosts' rows (cityHash64(host) % 2)
	[ "$(sq 1 "SELECT groupUniqArray(host) FROM weft.threads_local")" = "['charlie']" ] ||
		die "shard 1 holds $(sq 1 "SELECT groupUniqArray(host) FROM weft.threads_local")"
	[ "$(sq 2 "SELECT arraySort(groupUniqArray(host)) FROM weft.threads_local")" = "['alpha','bravo','delta']" ] ||
		die "shard 2 holds $(sq 2 "SELECT arraySort(groupUniqArray(host)) FROM weft.threads_local")"
	# the queues are empty
	for h in alpha bravo charlie delta; do
		[ -z "$(ls "$T/q-$h" | grep -v "^enqueued$")" ] || die "q-$h not empty: $(ls "$T/q-$h")"
	done
}
run "four hosts shipped concurrently into two shards; a shard stopped and restarted mid-stream, a shipper killed and restarted" t_ship_concurrent

# Per host and table: the rows' count and a sum of their times (or ids)
# in ClickHouse equal weft query's on the host's trace: nothing lost,
# nothing doubled.
SUMS="threads:created runs:t0 arrows:t waits:t0 labels:t samples:t loop_phases:t0 losses:t verdicts:thread os_threads:tid processes:pid trace:events"
export SUMS
t_counts() {
	local h ts tb c lsql fsql
	for h in alpha bravo charlie delta; do
		lsql= fsql=
		for ts in $SUMS; do
			tb=${ts%%:*} c=${ts#*:}
			lsql="$lsql${lsql:+ UNION ALL }SELECT '$tb', count(*), coalesce(sum($c), 0) FROM $tb"
			fsql="$fsql${fsql:+ UNION ALL }SELECT '$tb' AS tb_name, count(), sum(ifNull($c, 0)) FROM $tb WHERE host = '$h'"
		done
		lq "$T/$h.weft" "$lsql" | tail -n +2 | sort >local-$h.txt || die "weft query $h failed"
		fq "SELECT * FROM ($fsql)" | tail -n +2 | sort >fleet-$h.txt || die "fleet query failed"
		[ "$(wc -l <local-$h.txt)" = 12 ] || die "local-$h: $(cat local-$h.txt)"
		diff local-$h.txt fleet-$h.txt >&2 || die "$h: the fleet's rows differ from weft query's (above)"
		grep -q "^threads	[1-9]" local-$h.txt || die "$h has no threads"
	done
	# the ledger: one row per source, nothing lost
	[ "$(fq "SELECT count(), sum(lost_rows) FROM weft_shipped" | tail -1)" = "4	0" ] ||
		die "ledger: $(fq "SELECT * FROM weft_shipped")"
	# shipping a trace again inserts nothing
	"$W" ship "$T/alpha.weft" --clickhouse "$URL1" --cluster weft_test --host alpha \
		--service svc-alpha --batch 300 2>again.txt || die "again: $(cat again.txt)"
	grep -q "^weft ship: 0 rows in 0 inserts" again.txt || die "shipped again: $(cat again.txt)"
	fq "SELECT * FROM ($fsql)" | tail -n +2 | sort >fleet-again.txt
	h=delta
	diff fleet-delta.txt fleet-again.txt >&2 || die "rows doubled"
	[ "$(fq "SELECT count() FROM threads WHERE host = 'alpha'" | tail -1)" = "$(grep "^threads" local-alpha.txt | cut -f2)" ] ||
		die "alpha's threads doubled"
}
run "every table's rows exactly once per host (counts and sums = weft query's)" t_counts

# The standard fleet queries against weft query's views over the same
# traces: per host, and merged.
t_fleet_queries() {
	local h
	for h in alpha bravo charlie delta; do
		lq "$T/$h.weft" "SELECT '$h', kind, count, pending, failed, p50, p90, p99, max FROM latency_by_kind" |
			tail -n +2 | sort >l.txt
		fq p99_by_host_kind | awk -F'\t' -v h=$h '$1 == h' | sort >f.txt
		[ -s l.txt ] || die "$h: no latency rows"
		diff l.txt f.txt >&2 || die "$h: p99_by_host_kind differs from latency_by_kind"
	done
	# (traces merged gain an async thread per process, kind "process",
	# that no trace alone has)
	lq "$T/alpha.weft" "$T/bravo.weft" "$T/charlie.weft" "$T/delta.weft" \
		"SELECT kind, count, pending, failed, p50, p90, p99, max FROM latency_by_kind WHERE kind <> 'process'" | sort >l.txt
	fq p99_by_kind | sort >f.txt
	diff l.txt f.txt >&2 || die "p99_by_kind differs from latency_by_kind over the traces merged"
	# faults: delta's lost wake-up, the servers' own
	for h in alpha bravo charlie delta; do
		lq "$T/$h.weft" "SELECT count(*), (SELECT group_concat(verdict, ',') FROM (SELECT DISTINCT verdict FROM faults ORDER BY verdict)) FROM faults" |
			tail -1 | awk -v h=$h -F'\t' '$1 > 0 {print h "\t" $0}'
	done >l.txt
	fq unresolved | tail -n +2 >f.txt
	diff l.txt f.txt >&2 || die "unresolved differs from weft query's faults"
	grep -q "^delta	1	lost wake-up$" f.txt || die "delta's lost wake-up missing"
	# the slowest requests of the last hour (these traces are minutes old)
	for h in alpha bravo charlie delta; do
		lq "$T/$h.weft" "SELECT latency FROM slowest_requests LIMIT 20" | tail -n +2
	done | sort -rn | head -20 >l.txt
	fq slowest_last_hour | tail -n +2 | cut -f5 >f.txt
	diff l.txt f.txt >&2 || die "slowest_last_hour differs"
	# any SQL, and its errors
	[ "$(fq "SELECT count(DISTINCT host) FROM threads" | tail -1)" = 4 ] || die "hosts"
	"$W" query --clickhouse "$URL1" "SELECT nope FROM threads" 2>err.txt && die "a bad column passed"
	grep -q "^weft: ClickHouse (HTTP [45]" err.txt || die "error: $(cat err.txt)"
	"$W" query --clickhouse "$URL1" --list | grep -q "^p99_by_host_kind " || die "--list"
}
run "the fleet's standard queries = weft query's views over the same traces" t_fleet_queries

# weft fetch: a request of a run of two processes (uv-echo-split: a
# client and its server on loopback), shipped beside the three servers,
# comes back as a trace whose async threads and arrows are exactly the
# causal chain weft query's chain() makes on the four traces merged
# (times from the request's creation; ends on an OS thread as "root"; a
# creation, end or signal of a chain's thread by a thread outside it
# comes from an OS thread).
chain_threads() { # trace... (SUBJ: the request's id)
	"$W" query --tsv "$@" "WITH c AS (SELECT thread FROM chain((SELECT thread FROM threads WHERE id = $SUBJ), 0)), s AS (SELECT created AS c0 FROM threads WHERE id = $SUBJ) SELECT t.id, t.kind, ifnull(t.label, 'N'), t.created - s.c0, ifnull(t.ended - s.c0, 'N'), t.\"end\", ifnull(t.message, 'N'), t.should_resolve, t.no_create FROM threads t, s WHERE t.thread IN c ORDER BY 1"
}
all_threads() { # trace
	"$W" query --tsv "$1" "WITH s AS (SELECT created AS c0 FROM threads WHERE id = $SUBJ) SELECT t.id, t.kind, ifnull(t.label, 'N'), t.created - s.c0, ifnull(t.ended - s.c0, 'N'), t.\"end\", ifnull(t.message, 'N'), t.should_resolve, t.no_create FROM threads t, s WHERE t.root = 0 ORDER BY 1"
}
chain_arrows() { # IN (an SQL set of threads) trace...
	local in=$1
	shift
	"$W" query --tsv "$@" "WITH c AS ($in), s AS (SELECT created AS c0 FROM threads WHERE id = $SUBJ), e AS (SELECT thread, CASE WHEN root = 1 THEN 'root' ELSE id END AS k, thread IN c AS inc, root FROM threads) SELECT a.kind, a.t - s.c0, CASE WHEN f.inc OR f.root THEN f.k ELSE 'root' END, g.k FROM arrows a JOIN e f ON f.thread = a.from_thread JOIN e g ON g.thread = a.to_thread, s WHERE ((f.inc OR f.root) AND (g.inc OR g.root) AND (f.inc OR g.inc)) OR (NOT f.inc AND NOT f.root AND g.inc AND a.kind IN ('create', 'resolve', 'fail', 'signal', 'cancel')) ORDER BY 2, 1, 3, 4"
}
t_fetch() {
	local EX=$WEFT_BUILD/examples f
	[ -x "$EX/uv-echo-split" ] || { echo "no uv-echo-split (built without libuv)"; exit 77; }
	mk_traces
	"$W" record -o "$T/echo" -- "$EX/uv-echo-split" tcp 3 >/dev/null 2>rec.txt ||
		die "record: $(cat rec.txt)"
	"$W" ship "$T/echo" --clickhouse "$URL1" --cluster weft_test --host echo \
		--service svc-echo --queue q 2>ship.txt || die "ship: $(cat ship.txt)"
	# the request: the client's read of the server's first echo
	sub=$(lq "$T/echo" "SELECT to_thread FROM arrows WHERE message = 1 ORDER BY t LIMIT 1 OFFSET 1" | tail -1)
	SUBJ=$(lq "$T/echo" "SELECT id FROM threads WHERE thread = $sub" | tail -1)
	export SUBJ
	[ -n "$SUBJ" ] || die "no message between the processes"
	"$W" fetch --clickhouse "$URL1" --request "$SUBJ" -o x.weft 2>fetch.txt ||
		die "fetch: $(cat fetch.txt)"
	grep -q "^weft fetch: thread $sub of echo (run .*): [0-9]* async threads and [0-9]* arrows of its causal chain into x.weft$" fetch.txt ||
		die "fetch said: $(cat fetch.txt)"
	# (the echo run alone: a wait still open at the end is dated at the
	# end of what is read, and the fetched trace ends where the run
	# does; merged with the servers, made just before it when this case
	# runs alone, the end could be one of theirs)
	M="$T/echo"
	chain_threads $M >l.txt || die "local chain failed"
	all_threads x.weft >f.txt || die "weft query of the fetched trace failed"
	# the chain crosses the processes: threads of both
	[ "$(lq "$T/echo" "SELECT count(DISTINCT process) FROM threads WHERE thread IN (SELECT thread FROM chain($sub, 0))" | tail -1)" = 2 ] ||
		die "the chain does not cross the two processes"
	[ "$(wc -l <l.txt)" -ge 8 ] || die "a short chain: $(cat l.txt)"
	diff l.txt f.txt >&2 || die "the fetched threads differ from the chain's (above)"
	chain_arrows "SELECT thread FROM chain((SELECT thread FROM threads WHERE id = $SUBJ), 0)" $M >l.txt ||
		die "local arrows failed"
	chain_arrows "SELECT thread FROM threads" x.weft >f.txt || die "fetched arrows failed"
	[ "$(grep -c "^read	" l.txt)" -ge 2 ] || die "too few reads in the chain: $(cat l.txt)"
	diff l.txt f.txt >&2 || die "the fetched arrows differ from the chain's (above)"
	# the numbers said are those of the trace
	grep -q " $(($(wc -l <f.txt) - 1)) arrows " fetch.txt || die "arrows said: $(cat fetch.txt)"
	# every reader opens it
	"$W" info x.weft >/dev/null 2>&1 || die "weft info x.weft failed"
	"$W" export x.weft -o x.json 2>/dev/null && [ -s x.json ] || die "weft export x.weft failed"
	# a label, exactly; a part of one that several threads have: refused,
	# the candidates said; --host narrows; an unknown one
	lab=$(lq "$T/echo" "SELECT label FROM threads WHERE thread = $sub" | tail -1)
	"$W" fetch --clickhouse "$URL1" --request "read fd" --host echo -o y.weft 2>amb.txt
	[ $? = 1 ] && grep -q "^weft fetch: 'read fd' matches \(more than \)\?[0-9]* threads: thread [0-9]* of echo (run .*, pid [0-9]*), thread [0-9]* of echo .*; name one by its id, or its host with --host$" amb.txt ||
		die "ambiguous: $(cat amb.txt)"
	[ ! -e y.weft ] || die "y.weft written"
	"$W" fetch --clickhouse "$URL1" --request "$SUBJ" --host alpha -o y.weft 2>no.txt
	[ $? = 1 ] && grep -q "^weft: fetch: no thread with id or label '$SUBJ' on host alpha$" no.txt ||
		die "--host alpha: $(cat no.txt)"
	# a label all of one server's requests share is one thread per host:
	# --host picks charlie's
	gl=$(lq "$T/charlie.weft" "SELECT text FROM labels GROUP BY text HAVING count(*) = 1 LIMIT 1" | tail -1)
	[ -n "$gl" ] || die "charlie has no label of one thread"
	"$W" fetch --clickhouse "$URL1" --request "$gl" --host charlie -o z.weft 2>z.txt ||
		die "fetch by label: $(cat z.txt)"
	grep -q "of charlie (run " z.txt || die "not charlie's: $(cat z.txt)"
	[ "$(lq z.weft "SELECT count(*) FROM labels WHERE text = '$gl'" | tail -1)" = 1 ] ||
		die "the label is not in z.weft"
	# a file that is not a weft trace is never replaced; a trace is
	echo precious >keep.txt
	"$W" fetch --clickhouse "$URL1" --request "$SUBJ" -o keep.txt 2>r.txt
	[ $? = 2 ] && grep -q "'keep.txt' exists and is not a weft trace: weft never replaces it" r.txt ||
		die "keep.txt: $(cat r.txt)"
	[ "$(cat keep.txt)" = precious ] || die "keep.txt replaced"
	"$W" fetch --clickhouse "$URL1" --request "$SUBJ" -o x.weft 2>again.txt || die "again: $(cat again.txt)"
	all_threads x.weft | diff - <(chain_threads $M) >&2 || die "fetched again: differs"
}
run "weft fetch: a request's causal chain across two processes = chain() on the traces merged" t_fetch

# Two processes of a run whose threads share ids (7 in both, by hand,
# a message between them): the fetched chain is the run's (the reader
# tells the processes' ids apart, and so do the rows).
t_fetch_shared_ids() {
	cat >shared.c <<'EOF'
#include <sys/wait.h>
#include <unistd.h>
#include <weft/weft.h>
int main(void)
{
	int p[2];
	if (pipe(p))
		return 1;
	pid_t c = fork();
	if (c == 0) {
		char b[4];
		weft_create(7, "job");
		weft_label(7, "child job");
		weft_run(7);
		if (read(p[0], b, 4) != 4)
			return 1;
		weft_received(7, 42, 0, 4);
		weft_create(8, "reply");
		weft_resolve(8);
		weft_resolve(7);
		weft_run(0);
		return 0;
	}
	weft_create(7, "job");
	weft_label(7, "parent job");
	weft_run(7);
	weft_create(9, "step");
	weft_resolve(9);
	weft_sent(7, 42, 0, 4);
	if (write(p[1], "ping", 4) != 4)
		return 1;
	weft_resolve(7);
	weft_run(0);
	waitpid(c, NULL, 0);
	return 0;
}
EOF
	cc ${WEFT_TEST_CFLAGS:-} -DWEFT_ENABLE -I"$WEFT_SRC/include" shared.c \
		-L"$WEFT_BUILD" -lweft -Wl,-rpath,"$WEFT_BUILD" -o shared || die "cc failed"
	"$W" record -o "$T/shared-run" -- ./shared >/dev/null 2>rec.txt || die "record: $(cat rec.txt)"
	"$W" ship "$T/shared-run" --clickhouse "$URL1" --database shared --host shared \
		--queue q 2>ship.txt || die "ship: $(cat ship.txt)"
	"$W" fetch --clickhouse "$URL1" --database shared --request "parent job" \
		-o x.weft 2>fetch.txt || die "fetch: $(cat fetch.txt)"
	grep -q ": 4 async threads and [0-9]* arrows of its causal chain into x.weft$" fetch.txt ||
		die "fetch said: $(cat fetch.txt)"
	# (the id the first ring has: 7 in the process whose ring is read
	# first, 7 + 2^48 in the other)
	SUBJ=$(lq "$T/shared-run" "SELECT id FROM threads WHERE label = 'parent job'" | tail -1)
	export SUBJ
	chain_threads "$T/shared-run" >l.txt || die "local chain failed"
	all_threads x.weft >f.txt || die "weft query of the fetched trace failed"
	[ "$(cut -f2 l.txt | sort | uniq -c | tr -s ' ')" = "$(printf ' 2 job\n 1 kind\n 1 reply\n 1 step')" ] ||
		die "the chain is not both jobs, the step and the reply: $(cat l.txt)"
	diff l.txt f.txt >&2 || die "the fetched threads differ (above)"
	chain_arrows "SELECT thread FROM chain((SELECT thread FROM threads WHERE id = $SUBJ), 0)" "$T/shared-run" >l.txt
	chain_arrows "SELECT thread FROM threads" x.weft >f.txt
	grep -q "^read	" l.txt || die "no message in the chain: $(cat l.txt)"
	diff l.txt f.txt >&2 || die "the fetched arrows differ (above)"
}
run "weft fetch: two processes whose threads share ids" t_fetch_shared_ids

# weft fetch across hosts: three programs recorded alone (tests/fleet/
# hop.c: A asks B, which asks C, over TCP on loopback), made three
# machines (host name, boot id) and shipped one by one: A's last read's
# chain comes back with B's and C's threads and the messages between
# them, equal to chain() over the three traces merged locally (threads
# by kind, label, times from the request's creation and ends; arrows by
# kind, time and ends).  Shipped without C: the chain stops at B, and
# the messages whose other end is not in the store are said.
hop_threads() { # c0 trace...
	local c0=$1
	shift
	"$W" query --tsv "$@" "SELECT t.kind, ifnull(t.label, 'N'), t.created - $c0, ifnull(t.ended - $c0, 'N'), t.\"end\", ifnull(t.message, 'N'), t.should_resolve, t.no_create FROM threads t WHERE t.root = 0 AND ($IN) ORDER BY 3, 1, 2" | tail -n +2
}
hop_arrows() { # c0 trace...
	local c0=$1
	shift
	"$W" query --tsv "$@" "WITH e AS (SELECT thread, CASE WHEN root = 1 THEN 'root' ELSE kind || '@' || (created - $c0) END AS k, root, root = 0 AND ($IN) AS inc FROM threads t) SELECT a.kind, a.t - $c0, CASE WHEN f.inc OR f.root THEN f.k ELSE 'root' END, g.k FROM arrows a JOIN e f ON f.thread = a.from_thread JOIN e g ON g.thread = a.to_thread WHERE ((f.inc OR f.root) AND (g.inc OR g.root) AND (f.inc OR g.inc)) OR (NOT f.inc AND NOT f.root AND g.inc AND a.kind IN ('create', 'resolve', 'fail', 'signal', 'cancel')) ORDER BY 2, 1, 3, 4" | tail -n +2
}
t_fetch_hosts() {
	local HOP=$WEFT_BUILD/tests/fleet/hop h i c0 id pb pc
	[ -x "$HOP" ] || { echo "no tests/fleet/hop (built without libuv)"; exit 77; }
	"$W" record -o "$T/hc" -- "$HOP" serve "$PWD/pc" >/dev/null 2>rc.txt &
	pc=$!
	for i in $(seq 100); do [ -s pc ] && break; sleep 0.1; done
	[ -s pc ] || die "C does not listen: $(cat rc.txt)"
	"$W" record -o "$T/hb" -- "$HOP" relay "$PWD/pb" "$(cat pc)" >/dev/null 2>rb.txt &
	pb=$!
	for i in $(seq 100); do [ -s pb ] && break; sleep 0.1; done
	[ -s pb ] || die "B does not listen: $(cat rb.txt)"
	"$W" record -o "$T/ha" -- "$HOP" ask "$(cat pb)" 3 >/dev/null 2>ra.txt || die "A: $(cat ra.txt)"
	wait "$pb" "$pc"
	python3 - "$T" <<'PY' || exit 1
import sys
for h, boot in (('a', 0xa1), ('b', 0xb2), ('c', 0xc3)):
    p = sys.argv[1] + '/h' + h + '/ring'
    b = bytearray(open(p, 'rb').read())
    m = 1024  # WEFT_MACH_OFF: host name (72 bytes), boot id (16)
    assert b[:8] == b'WEFTRING'
    b[m:m + 72] = ('hop' + h).encode().ljust(72, b'\0')
    b[m + 72:m + 88] = bytes([boot]) * 16
    open(p, 'wb').write(b)
PY
	for h in a b c; do
		"$W" ship "$T/h$h" --clickhouse "$URL1" --cluster weft_test --host "hop$h" \
			--queue "q$h" 2>"s$h.txt" || die "ship hop$h: $(cat "s$h.txt")"
	done
	for h in a b; do
		"$W" ship "$T/h$h" --clickhouse "$URL1" --database partial --host "hop$h" \
			--queue "qp$h" 2>"s$h.txt" || die "ship hop$h: $(cat "s$h.txt")"
	done
	# the request: A's read of the last answer (A alone has no read
	# arrow: its answers come from another host)
	sub=$(lq "$T/ha" "SELECT thread FROM threads WHERE kind = 'uv_stream_t read' ORDER BY created DESC LIMIT 1 OFFSET 1" | tail -1)
	id=$(lq "$T/ha" "SELECT id FROM threads WHERE thread = $sub" | tail -1)
	[ -n "$id" ] || die "no read in A"
	"$W" fetch --clickhouse "$URL1" --request "$id" --host hopa -o x.weft 2>fetch.txt ||
		die "fetch: $(cat fetch.txt)"
	grep -q "^weft fetch: the chain crosses 3 traces: hopa (run [0-9a-f]*), hopb (run [0-9a-f]*), hopc (run [0-9a-f]*); their clocks aligned by [1-9][0-9]* messages$" fetch.txt ||
		die "fetch said: $(cat fetch.txt)"
	! grep -q "no other end" fetch.txt || die "one-sided said: $(cat fetch.txt)"
	M="$T/ha $T/hb $T/hc"
	# local: the chain on the three traces merged (A's ids are its own),
	# with the threads that wait at the trace's end on another host's
	# reader (the try_read the merge infers from the loops' fire events)
	IN="thread IN (SELECT thread FROM chain((SELECT thread FROM threads WHERE id = $id), 0))"
	c0=$(lq $M "SELECT created FROM threads WHERE id = $id" | tail -1)
	hop_threads "$c0" $M >l.txt || die "local chain failed"
	[ "$(lq $M "SELECT count(DISTINCT process) FROM threads WHERE $IN" | tail -1)" = 3 ] &&
		[ "$(grep -c . l.txt)" -ge 12 ] ||
		die "the local chain does not cross the three hosts: $(cat l.txt)"
	# fetched: ids are the rows' + 1 (the hosts share ids)
	IN="1"
	c0=$(lq x.weft "SELECT created FROM threads WHERE id = $((sub + 1))" | tail -1)
	[ -n "$c0" ] || die "the request is not in x.weft"
	hop_threads "$c0" x.weft >f.txt || die "fetched threads failed"
	diff l.txt f.txt >&2 || die "the fetched threads differ from the chain's (above)"
	[ "$(grep -c "^uv_stream_t read" f.txt)" -ge 6 ] || die "a short chain: $(cat f.txt)"
	IN="thread IN (SELECT thread FROM chain((SELECT thread FROM threads WHERE id = $id), 0))"
	c0=$(lq $M "SELECT created FROM threads WHERE id = $id" | tail -1)
	hop_arrows "$c0" $M >la.txt || die "local arrows failed"
	IN="1"
	c0=$(lq x.weft "SELECT created FROM threads WHERE id = $((sub + 1))" | tail -1)
	hop_arrows "$c0" x.weft >fa.txt || die "fetched arrows failed"
	diff la.txt fa.txt >&2 || die "the fetched arrows differ from the chain's (above)"
	# B and C not shipped (database partial has A and B): the chain
	# stops at B, C's messages said
	"$W" fetch --clickhouse "$URL1" --database partial --request "$id" --host hopa -o y.weft 2>part.txt ||
		die "fetch partial: $(cat part.txt)"
	grep -q "^weft fetch: the chain crosses 2 traces: hopa (run [0-9a-f]*), hopb (run [0-9a-f]*);" part.txt ||
		die "partial said: $(cat part.txt)"
	grep -q "^weft fetch: [1-9][0-9]* channels of the chain's messages have no other end in the store" part.txt ||
		die "one-sided not said: $(cat part.txt)"
	local nx ny
	nx=$(lq x.weft "SELECT count(*) FROM threads WHERE kind = 'connection'" | tail -1)
	ny=$(lq y.weft "SELECT count(*) FROM threads WHERE kind = 'connection'" | tail -1)
	[ "$nx" = 2 ] && [ "$ny" = 0 ] || die "connections: $nx with C (want 2), $ny without (want 0)"
	nx=$(lq x.weft "SELECT count(*) FROM threads WHERE root = 0" | tail -1)
	ny=$(lq y.weft "SELECT count(*) FROM threads WHERE root = 0" | tail -1)
	[ "$ny" -lt "$nx" ] && [ "$ny" -gt 9 ] || die "threads: $nx with C, $ny without"
}
run "weft fetch: a chain across three hosts (A -> B -> C over TCP) = chain() on the traces merged" t_fetch_hosts

# Connections of one port pair at different times (one channel id): A
# asks B twice over the SAME ports (A from a fixed port, closing with a
# reset), each run recorded and shipped alone (four machines); fetching
# either run's request brings back exactly chain() of that run's two
# traces merged locally, never the other run's (whichever host name
# sorts first).  And B serving both connections in one trace: msg_ends
# tells its two connections apart (conn: each from offset 0), and A2's
# request still joins only B's second connection.
hop_rings() { # dir name boot...: each trace DIR/NAME made a machine
	python3 - "$@" <<'PY' || exit 1
import sys
d = sys.argv[1]
for a in sys.argv[2:]:
    name, boot = a.split(':')
    p = d + '/' + name + '/ring'
    b = bytearray(open(p, 'rb').read())
    m = 1024  # WEFT_MACH_OFF: host name (72 bytes), boot id (16)
    assert b[:8] == b'WEFTRING'
    b[m:m + 72] = name.encode().ljust(72, b'\0')
    b[m + 72:m + 88] = bytes([int(boot, 16)]) * 16
    open(p, 'wb').write(b)
PY
}
hop_pair() { # B-trace A-trace rounds N: B serves N clients on $PB; A asks from $PA
	rm -f pr
	"$W" record -o "$1" -- "$HOP" serve "$PWD/pr" "$PB" "$4" >/dev/null 2>rs.txt &
	local pb=$! i
	for i in $(seq 100); do [ -s pr ] && break; sleep 0.1; done
	[ -s pr ] && [ "$(cat pr)" = "$PB" ] || die "B does not listen on $PB: $(cat rs.txt)"
	"$W" record -o "$2" -- "$HOP" ask "$PB" "$3" "$PA" >/dev/null 2>ra.txt || die "A: $(cat ra.txt)"
	[ "$4" = 1 ] && { wait "$pb" || die "B: $(cat rs.txt)"; }
	return 0
}
fetch_run() { # db host-of-A A-trace B-trace: A's request fetched = chain() of A+B merged
	local db=$1 ha=$2 ta=$3 tb=$4 sub id c0
	sub=$(lq "$ta" "SELECT thread FROM threads WHERE kind = 'uv_stream_t read' ORDER BY created DESC LIMIT 1 OFFSET 1" | tail -1)
	id=$(lq "$ta" "SELECT id FROM threads WHERE thread = $sub" | tail -1)
	[ -n "$id" ] || die "no read in $ta"
	"$W" fetch --clickhouse "$URL1" --database "$db" --request "$id" --host "$ha" -o "f-$ha.weft" 2>"f-$ha.txt" ||
		die "fetch $ha: $(cat "f-$ha.txt")"
	IN="thread IN (SELECT thread FROM chain((SELECT thread FROM threads WHERE id = $id), 0))"
	c0=$(lq "$ta" "$tb" "SELECT created FROM threads WHERE id = $id" | tail -1)
	hop_threads "$c0" "$ta" "$tb" >"l-$ha.txt" || die "local chain failed"
	hop_arrows "$c0" "$ta" "$tb" >"la-$ha.txt" || die "local arrows failed"
	[ "$(lq "$ta" "$tb" "SELECT count(DISTINCT process) FROM threads WHERE $IN" | tail -1)" = 2 ] ||
		die "the local chain of $ha does not cross the two hosts: $(cat "l-$ha.txt")"
	IN="1"
	c0=$(lq "f-$ha.weft" "SELECT created FROM threads WHERE id = $((sub + 1))" | tail -1)
	[ -n "$c0" ] || die "the request is not in f-$ha.weft"
	hop_threads "$c0" "f-$ha.weft" >"f-$ha.th" || die "fetched threads failed"
	hop_arrows "$c0" "f-$ha.weft" >"f-$ha.ar" || die "fetched arrows failed"
	if [ -n "${UNTIMED:-}" ]; then
		# (times dropped, the rest sorted)
		for f in "l-$ha.txt" "f-$ha.th"; do cut -f 1,2,5- "$f" | sort >"$f.u"; done
		for f in "la-$ha.txt" "f-$ha.ar"; do cut -f 1,3,4 "$f" | sed -E 's/@-?[0-9]+//g' | sort >"$f.u"; done
		diff "l-$ha.txt.u" "f-$ha.th.u" >&2 || die "$ha: the fetched threads differ from the chain's (above)"
		diff "la-$ha.txt.u" "f-$ha.ar.u" >&2 || die "$ha: the fetched arrows differ from the chain's (above)"
		return 0
	fi
	diff "l-$ha.txt" "f-$ha.th" >&2 || die "$ha: the fetched threads differ from the chain's (above)"
	diff "la-$ha.txt" "f-$ha.ar" >&2 || die "$ha: the fetched arrows differ from the chain's (above)"
}
t_fetch_reused() {
	HOP=$WEFT_BUILD/tests/fleet/hop
	[ -x "$HOP" ] || { echo "no tests/fleet/hop (built without libuv)"; exit 77; }
	mkdir reuse && cd reuse || exit 1
	read -r PA PB < <(free_ports 2)
	# two runs over ports PA -> PB, B's and A's traces each alone; the
	# second run asks one round more (its chain is longer)
	hop_pair "$PWD/rb1" "$PWD/ra1" 3 1
	local ra1_done
	ra1_done=$(date +%s%N)
	hop_pair "$PWD/rb2" "$PWD/ra2" 4 1
	hop_rings "$PWD" ra1:a1 rb1:b1 ra2:a2 rb2:b2
	local h
	for h in rb1 ra1 rb2 ra2; do
		"$W" ship "$h" --clickhouse "$URL1" --database reuse --host "$h" --retry-for 20s \
			--queue "q$h" 2>"s$h.txt" || die "ship $h: $(cat "s$h.txt")"
	done
	# one channel (each direction) in both runs, two connections at each end
	[ "$(fq --database reuse "SELECT count(DISTINCT chan), count(DISTINCT conn), countIf(conn IS NULL) FROM msg_ends" | tail -1)" = "$(printf '2\t4\t0')" ] ||
		die "not one port pair twice: $(fq --database reuse "SELECT host, chan, conn, count() FROM msg_ends GROUP BY host, chan, conn")"
	fetch_run reuse ra2 ra2 rb2
	grep -q "^weft fetch: the chain crosses 2 traces: ra2 (run [0-9a-f]*), rb2 (run [0-9a-f]*);" f-ra2.txt ||
		die "ra2 fetched: $(cat f-ra2.txt)"
	fetch_run reuse ra1 ra1 rb1
	grep -q "^weft fetch: the chain crosses 2 traces: ra1 (run [0-9a-f]*), rb1 (run [0-9a-f]*);" f-ra1.txt ||
		die "ra1 fetched: $(cat f-ra1.txt)"
	# B serving both connections in one trace (rbb), the second over a
	# second after the first (so that the local merge, whose msgs.c
	# pairs by channel in time order, does not pair the first's reads
	# with the second's writes: the reference).  The local merge's
	# clocks.c still takes the first connection's messages for the
	# second's (an offset by realtime, not by messages: docs/fleet.md),
	# so the chains are compared but for their times.
	rm -f pr
	# (B's first connection at least 3 s after A's first run, whatever
	# the steps between took: "over 1 s apart" below is checked on it,
	# and those steps took 2 s here, less on a faster machine)
	local wait_ns=$((ra1_done + 3000000000 - $(date +%s%N)))
	[ "$wait_ns" -le 0 ] || sleep "$(awk -v n="$wait_ns" 'BEGIN {printf "%.3f", n / 1e9}')"
	"$W" record -o rbb -- "$HOP" serve "$PWD/pr" "$PB" 2 >/dev/null 2>rs.txt &
	local pbb=$! i
	for i in $(seq 100); do [ -s pr ] && break; sleep 0.1; done
	[ "$(cat pr)" = "$PB" ] || die "B does not listen on $PB: $(cat rs.txt)"
	"$W" record -o rx1 -- "$HOP" ask "$PB" 3 "$PA" >/dev/null 2>ra.txt || die "A: $(cat ra.txt)"
	sleep 1.2
	"$W" record -o rx2 -- "$HOP" ask "$PB" 4 "$PA" >/dev/null 2>ra.txt || die "A: $(cat ra.txt)"
	wait "$pbb" || die "B: $(cat rs.txt)"
	hop_rings "$PWD" rbb:bb rx1:c1 rx2:c2
	for h in rbb rx1 rx2; do
		"$W" ship "$h" --clickhouse "$URL1" --database reuse2 --host "$h" --retry-for 20s \
			--queue "q$h" 2>"s$h.txt" || die "ship $h: $(cat "s$h.txt")"
	done
	# B's two connections each from offset 0, with the messages of
	# its client's: 3 rounds (12 ends: 6 each way), then 4 (16)
	fq --database reuse2 "SELECT count(), min(off), max(off) FROM msg_ends WHERE host = 'rbb' AND len > 0 GROUP BY conn ORDER BY conn" >bb.txt
	printf 'count()\tmin(off)\tmax(off)\n6\t0\t18\n8\t0\t27\n' | diff - bb.txt >&2 ||
		die "B's connections (above)"
	UNTIMED=1 fetch_run reuse2 rx2 rx2 rbb
	grep -q "^weft fetch: the chain crosses 2 traces: rx2 (run [0-9a-f]*), rbb (run [0-9a-f]*); their clocks aligned by 8 messages$" f-rx2.txt ||
		die "rx2 fetched: $(cat f-rx2.txt)"
	# A's first run beside B's trace of seconds later only: B's
	# connections of that port pair are not A's (over 1 s apart)
	for h in ra1 rbb; do
		"$W" ship "$h" --clickhouse "$URL1" --database reuse3 --host "$h" --retry-for 20s \
			--queue "q3$h" 2>"s$h.txt" || die "ship $h: $(cat "s$h.txt")"
	done
	sub=$(lq ra1 "SELECT thread FROM threads WHERE kind = 'uv_stream_t read' ORDER BY created DESC LIMIT 1 OFFSET 1" | tail -1)
	id=$(lq ra1 "SELECT id FROM threads WHERE thread = $sub" | tail -1)
	"$W" fetch --clickhouse "$URL1" --database reuse3 --request "$id" --host ra1 -o f3.weft 2>f3.txt ||
		die "fetch ra1 alone: $(cat f3.txt)"
	# (said on failure: each connection's realtime span in the store; it
	# failed once in CI when nothing held the two connections apart but
	# the time the steps between them took, about 2 s here)
	grep -q "^weft fetch: [1-9][0-9]* channels of the chain's messages have no other end in the store" f3.txt &&
		! grep -q "crosses" f3.txt ||
		die "ra1 beside rbb: $(cat f3.txt); the store's connections: $(fq --database reuse3 "SELECT host, chan, conn, count(), min(time), max(time), countIf(len = 0) FROM msg_ends GROUP BY host, chan, conn ORDER BY host, chan, conn" | tr '\n' ';')"
}
run "weft fetch: two connections of one port pair at different times told apart" t_fetch_reused

# A hang across hosts: A asks B, B asks C, C answers the first message
# and never the second (A gives up after 0.5 s); each recorded and
# shipped alone.  The merge infers, at the traces' end, that A's and B's
# next reads wait on the other end's reader (try_read, from the loops'
# fire events): the fetched chain of A's last request (its write) has
# those waits, and is chain() of the three traces merged locally.
t_fetch_hang() {
	local HOP=$WEFT_BUILD/tests/fleet/hop pb pc sub id c0 h
	[ -x "$HOP" ] || { echo "no tests/fleet/hop (built without libuv)"; exit 77; }
	mkdir hang && cd hang || exit 1
	"$W" record -o hc -- "$HOP" sink "$PWD/pc" >/dev/null 2>rc.txt &
	pc=$!
	for i in $(seq 100); do [ -s pc ] && break; sleep 0.1; done
	[ -s pc ] || die "C does not listen: $(cat rc.txt)"
	"$W" record -o hb -- "$HOP" relay "$PWD/pb" "$(cat pc)" >/dev/null 2>rb.txt &
	pb=$!
	for i in $(seq 100); do [ -s pb ] && break; sleep 0.1; done
	[ -s pb ] || die "B does not listen: $(cat rb.txt)"
	"$W" record -o ha -- "$HOP" ask "$(cat pb)" 2 0 500 >/dev/null 2>ra.txt || die "A: $(cat ra.txt)"
	wait "$pb" "$pc"
	hop_rings "$PWD" ha:a1 hb:b2 hc:c3
	for h in ha hb hc; do
		"$W" ship "$h" --clickhouse "$URL1" --database hang --host "$h" --retry-for 20s \
			--queue "q$h" 2>"s$h.txt" || die "ship $h: $(cat "s$h.txt")"
	done
	sub=$(lq ha "SELECT thread FROM threads WHERE kind = 'uv_write_t' ORDER BY created DESC LIMIT 1" | tail -1)
	id=$(lq ha "SELECT id FROM threads WHERE thread = $sub" | tail -1)
	[ -n "$id" ] || die "no write in A"
	"$W" fetch --clickhouse "$URL1" --database hang --request "$id" --host ha -o x.weft 2>fetch.txt ||
		die "fetch: $(cat fetch.txt)"
	grep -q "^weft fetch: the chain crosses 3 traces: ha (run [0-9a-f]*), hb (run [0-9a-f]*), hc (run [0-9a-f]*);" fetch.txt ||
		die "fetch said: $(cat fetch.txt)"
	IN="thread IN (SELECT thread FROM chain((SELECT thread FROM threads WHERE id = $id), 0))"
	c0=$(lq ha hb hc "SELECT created FROM threads WHERE id = $id" | tail -1)
	hop_threads "$c0" ha hb hc >l.txt || die "local chain failed"
	hop_arrows "$c0" ha hb hc >la.txt || die "local arrows failed"
	# the local chain crosses the three hosts, with two waits (A's and
	# B's next reads)
	[ "$(lq ha hb hc "SELECT count(DISTINCT process) FROM threads WHERE $IN" | tail -1)" = 3 ] &&
		[ "$(grep -c "^try_read" la.txt)" = 2 ] ||
		die "the local chain has not the hang: $(cat la.txt)"
	IN="1"
	c0=$(lq x.weft "SELECT created FROM threads WHERE id = $((sub + 1))" | tail -1)
	[ -n "$c0" ] || die "the request is not in x.weft"
	hop_threads "$c0" x.weft >f.txt || die "fetched threads failed"
	hop_arrows "$c0" x.weft >fa.txt || die "fetched arrows failed"
	diff l.txt f.txt >&2 || die "the fetched threads differ from the chain's (above)"
	diff la.txt fa.txt >&2 || die "the fetched arrows differ from the chain's (above)"
	# a store made before msg_ends.conn: its ends of unknown
	# connection, paired by channel alone (one connection each here)
	sq 1 "ALTER TABLE hang.msg_ends DROP COLUMN conn" >/dev/null
	[ "$(fq --database hang "SELECT count() FROM system.columns WHERE database = 'hang' AND table = 'msg_ends' AND name = 'conn'" | tail -1)" = 0 ] ||
		die "conn not dropped"
	"$W" fetch --clickhouse "$URL1" --database hang --request "$id" --host ha -o y.weft 2>fetch.txt ||
		die "fetch without conn: $(cat fetch.txt)"
	c0=$(lq y.weft "SELECT created FROM threads WHERE id = $((sub + 1))" | tail -1)
	hop_threads "$c0" y.weft >f.txt || die "fetched threads failed"
	hop_arrows "$c0" y.weft >fa.txt || die "fetched arrows failed"
	diff l.txt f.txt >&2 || die "without conn: the fetched threads differ from the chain's (above)"
	diff la.txt fa.txt >&2 || die "without conn: the fetched arrows differ from the chain's (above)"
	# a shipper of now gives that store's msg_ends the column back: its
	# rows of before read NULL (unknown), and the fetch is the same
	"$W" ship hc --clickhouse "$URL1" --database hang --host hc --retry-for 20s \
		--queue qhc2 2>shc.txt || die "ship again: $(cat shc.txt)"
	local nn
	nn=$(fq --database hang "SELECT count(), countIf(conn IS NULL) FROM msg_ends" | tail -1)
	[ "${nn%%$'\t'*}" -gt 0 ] && [ "${nn%%$'\t'*}" = "${nn#*$'\t'}" ] || die "conn back: $nn"
	"$W" fetch --clickhouse "$URL1" --database hang --request "$id" --host ha -o z.weft 2>fetch.txt ||
		die "fetch with conn NULL: $(cat fetch.txt)"
	c0=$(lq z.weft "SELECT created FROM threads WHERE id = $((sub + 1))" | tail -1)
	hop_threads "$c0" z.weft >f.txt || die "fetched threads failed"
	hop_arrows "$c0" z.weft >fa.txt || die "fetched arrows failed"
	diff l.txt f.txt >&2 || die "conn NULL: the fetched threads differ from the chain's (above)"
	diff la.txt fa.txt >&2 || die "conn NULL: the fetched arrows differ from the chain's (above)"
}
run "weft fetch: a hang across three hosts: the waits at the traces' end = chain() on the traces merged" t_fetch_hang

t_fetch_usage() {
	rm -f u.weft
	"$W" fetch --clickhouse "$URL1" --request 1 2>e.txt
	[ $? = 2 ] && grep -q "are required" e.txt || die "no -o: $(cat e.txt)"
	"$W" fetch --clickhouse https://x:1/ --request 1 -o u.weft 2>e.txt
	[ $? = 2 ] && grep -q "must be http://HOST:PORT" e.txt || die "https: $(cat e.txt)"
	"$W" fetch --clickhouse "$URL1" --database "a'b" --request 1 -o u.weft 2>e.txt
	[ $? = 2 ] || die "a hostile --database passed: $(cat e.txt)"
	mkdir d
	"$W" fetch --clickhouse "$URL1" --request 1 -o d 2>e.txt
	[ $? = 2 ] && grep -q "'d' is not a regular file: weft never replaces it" e.txt ||
		die "a directory: $(cat e.txt)"
	"$W" fetch --clickhouse "http://127.0.0.1:$(free_port)/" --request 1 -o u.weft 2>e.txt
	[ $? = 1 ] && grep -q "cannot connect to 127.0.0.1:[0-9]*: Connection refused" e.txt ||
		die "no server: $(cat e.txt)"
	[ ! -e u.weft ] || die "u.weft written"
	# a quote in a label is a string, not SQL
	"$W" fetch --clickhouse "$URL1" --request "x' OR 1 = 1 OR '" -o u.weft 2>e.txt
	[ $? = 1 ] && grep -q "^weft: fetch: no thread with id or label 'x' OR 1 = 1 OR ''$" e.txt ||
		die "a quote: $(cat e.txt)"
}
run "weft fetch: usage, a directory, no server, a quote in the label" t_fetch_usage

# Labels and names with tabs, newlines, backslashes, quotes, \N, control
# bytes and bytes that are not UTF-8 come back byte for byte.
t_hostile() {
	cat >hostile.c <<'EOF'
#include <weft/weft.h>
int main(void)
{
	static const char *labels[] = {
		"tab\there", "new\nline", "back\\slash\\", "\\N", "'quote\"s'",
		"cr\rlf\r\n", "\x01\x02\x1f\x7f", "\xff\xfe not utf-8 \xc3",
		"a\tb\tc\td\te\tf\tg\th\ti\tj\tk\tl\tm\tn", "", "\\t\\n literally",
		"; DROP TABLE threads; --"};
	for (unsigned i = 0; i < sizeof labels / sizeof *labels; i++) {
		weft_create_label(100 + i, "hostile\tkind\n", labels[i]);
		weft_resolve(100 + i);
	}
	return 0;
}
EOF
	cc ${WEFT_TEST_CFLAGS:-} -DWEFT_ENABLE -I"$WEFT_SRC/include" hostile.c \
		-L"$WEFT_BUILD" -lweft -Wl,-rpath,"$WEFT_BUILD" -o hostile || die "cc failed"
	WEFT_FILE=$T/hostile.weft ./hostile || die "hostile failed"
	svc=$(printf 'svc\t"q'"'"'\\n\001')
	# (an insert the server refuses is not retried for long: the default,
	# 5 minutes, is past the case's time limit)
	"$W" ship "$T/hostile.weft" --clickhouse "$URL1" --database hostile --host hostile \
		--service "$svc" --retry-for 20s 2>ship.txt || die "ship: $(cat ship.txt)"
	lq "$T/hostile.weft" "SELECT hex(label), hex(kind) FROM threads WHERE label IS NOT NULL ORDER BY thread" >l.txt
	fq --database hostile "SELECT hex(label), hex(kind) FROM threads WHERE label IS NOT NULL ORDER BY thread" >f.txt
	[ "$(wc -l <l.txt)" -ge 12 ] || die "too few labels: $(cat l.txt)"
	diff l.txt f.txt >&2 || die "labels differ"
	want=$(printf '%s' "$svc" | od -An -tx1 | tr -d ' \n' | tr a-f A-F)
	[ "$(fq --database hostile "SELECT DISTINCT hex(service) FROM threads" | tail -1)" = "$want" ] ||
		die "the service differs: $(fq --database hostile "SELECT DISTINCT hex(service) FROM threads")"
	lq "$T/hostile.weft" "SELECT hex(text) FROM labels ORDER BY label" >l.txt
	fq --database hostile "SELECT hex(text) FROM labels ORDER BY label" >f.txt
	diff l.txt f.txt >&2 || die "label texts differ"
	# hostile names where weft builds SQL are refused
	"$W" ship "$T/hostile.weft" --clickhouse "$URL1" --database "x; DROP" 2>e.txt
	[ $? = 2 ] || die "a hostile --database passed"
	"$W" query --clickhouse "$URL1" --database "a'b" threads 2>e.txt
	[ $? = 2 ] || die "a hostile --database passed (query)"
}
run "hostile labels, kinds and service names round-trip byte for byte" t_hostile

# Over the queue's budget: the parts that do not fit are dropped, counted
# on stderr, in the queue's lost.log and in the ledger; the rest arrives.
t_queue_budget() {
	mk_traces
	"$W" ship "$T/alpha.weft" --clickhouse "$URL1" --database lossy --host alpha \
		--queue q --queue-max 40K --batch 200 2>ship.txt
	[ $? = 1 ] || die "over the budget, exit $? (not 1): $(cat ship.txt)"
	lost=$(sed -n 's/^weft ship: \([0-9]*\) rows (\([0-9]*\) inserts) lost: the queue.s budget.*/\1 \2/p' ship.txt)
	[ -n "$lost" ] || die "no loss said: $(cat ship.txt)"
	set -- $lost
	[ "$(wc -l <q/lost.log)" = "$2" ] || die "lost.log has $(wc -l <q/lost.log) lines, not $2"
	[ "$(awk '{sub("rows=", "", $3); s += $3} END {print s}' q/lost.log)" = "$1" ] ||
		die "lost.log's rows differ from $1"
	[ "$(fq --database lossy "SELECT lost_rows FROM weft_shipped" | tail -1)" = "$1" ] ||
		die "the ledger says $(fq --database lossy "SELECT * FROM weft_shipped")"
	total=$(lq "$T/alpha.weft" "SELECT (SELECT count(*) FROM threads) + (SELECT count(*) FROM runs) + (SELECT count(*) FROM arrows) + (SELECT count(*) FROM waits) + (SELECT count(*) FROM labels) + (SELECT count(*) FROM samples) + (SELECT count(*) FROM loop_phases) + (SELECT count(*) FROM losses) + (SELECT count(*) FROM verdicts) + (SELECT count(*) FROM os_threads) + (SELECT count(*) FROM processes) + 1" | tail -1)
	have=$(fq --database lossy "SELECT (SELECT count() FROM threads) + (SELECT count() FROM runs) + (SELECT count() FROM arrows) + (SELECT count() FROM waits) + (SELECT count() FROM labels) + (SELECT count() FROM samples) + (SELECT count() FROM loop_phases) + (SELECT count() FROM losses) + (SELECT count() FROM verdicts) + (SELECT count() FROM os_threads) + (SELECT count() FROM processes) + (SELECT count() FROM trace)" | tail -1)
	[ "$((have + $1))" = "$total" ] || die "$have shipped + $1 lost != $total rows"
	[ "$have" -gt 0 ] || die "nothing shipped"
}
run "a queue over its budget: losses counted exactly (stderr, lost.log, the ledger)" t_queue_budget

# ClickHouse unreachable: weft ship retries, gives up after --retry-for
# with its queue kept; started again with the server up, it delivers.
t_down_then_resume() {
	mk_traces
	dead=http://127.0.0.1:$(free_port)/
	"$W" ship "$T/bravo.weft" --clickhouse "$dead" --database resumed --host bravo \
		--queue q --retry-for 1s 2>ship.txt
	[ $? = 1 ] || die "exit $? with no server"
	grep -q "cannot connect to 127.0.0.1:[0-9]*: Connection refused (retrying" ship.txt ||
		die "no retry said: $(cat ship.txt)"
	grep -q "inserts not delivered (still queued)" ship.txt || die "$(cat ship.txt)"
	n=$(ls q | grep -c '^[0-9]')
	[ "$n" -gt 10 ] || die "only $n files queued"
	"$W" ship "$T/bravo.weft" --clickhouse "$URL1" --database resumed --host bravo \
		--queue q -v 2>ship2.txt || die "resume: $(cat ship2.txt)"
	grep -q "queued before" ship2.txt || die "queued again: $(cat ship2.txt)"
	[ "$(ls q | grep -c '^[0-9]')" = 0 ] || die "the queue is not empty"
	[ "$(fq --database resumed "SELECT count() FROM arrows" | tail -1)" = \
		"$(lq "$T/bravo.weft" "SELECT count(*) FROM arrows" | tail -1)" ] || die "arrows differ"
	# without a queue of its own: a temporary one, said when not delivered
	"$W" ship "$T/bravo.weft" --clickhouse "$dead" --retry-for 0.3s 2>tmp.txt
	[ $? = 1 ] || die "exit $?"
	d=$(sed -n 's/^weft ship: what was not delivered is in //p' tmp.txt)
	[ -d "$d" ] || die "no queue said: $(cat tmp.txt)"
	rm -rf "$d"
}
run "a server down at the start: retried, queued, delivered by a restarted shipper" t_down_then_resume

# A kept directory followed while the program runs: each chunk shipped
# as it completes, until the keeper ends; the rows are those of the
# chunks (weft query on each), once.
t_follow() {
	"$W" record -o run --keep kept --chunk 250ms -- \
		"$WEFT_BUILD/tests/keep/keep-numbered" 30000 15000 2 >rec.txt 2>&1 &
	rec=$!
	for i in $(seq 100); do [ -f kept/keep.log ] && break; sleep 0.05; done
	"$W" ship kept --follow --clickhouse "$URL1" --database follow --host kept \
		--queue q 2>ship.txt || die "follow: $(cat ship.txt)"
	wait $rec || die "record failed: $(cat rec.txt)"
	nch=$(ls kept/*.zst | wc -l)
	[ "$nch" -ge 4 ] || die "only $nch chunks"
	s=0
	for c in kept/*.zst; do
		k=$(lq "$c" "SELECT count(*) FROM samples" | tail -1)
		s=$((s + k))
	done
	[ "$s" -ge 30000 ] || die "only $s samples in the chunks"
	[ "$(fq --database follow "SELECT count() FROM samples" | tail -1)" = "$s" ] ||
		die "ClickHouse has $(fq --database follow "SELECT count() FROM samples" | tail -1) samples, the chunks $s"
	[ "$(fq --database follow "SELECT count() FROM weft_shipped" | tail -1)" = "$nch" ] ||
		die "not one ledger row per chunk"
	# following it again ships nothing more
	"$W" ship kept --follow --clickhouse "$URL1" --database follow --host kept \
		2>again.txt || die "again: $(cat again.txt)"
	grep -q "^weft ship: 0 rows in 0 inserts" again.txt || die "$(cat again.txt)"
}
run "a kept directory followed as it grows: each chunk once" t_follow

t_usage() {
	mk_traces
	"$W" ship "$T/delta.weft" --clickhouse https://x:1/ 2>e.txt
	[ $? = 2 ] && grep -q "must be http://HOST:PORT" e.txt || die "https: $(cat e.txt)"
	"$W" ship "$T/delta.weft" --clickhouse http://u:p@x:1/ 2>e.txt
	[ $? = 2 ] || die "a user passed"
	"$W" ship "$T/delta.weft" --clickhouse http://x:1/path 2>e.txt
	[ $? = 2 ] || die "a path passed"
	"$W" ship "$T/delta.weft" --follow --clickhouse "$URL1" 2>e.txt
	[ $? = 2 ] && grep -q "kept directory" e.txt || die "--follow of a ring: $(cat e.txt)"
	"$W" ship "$T/delta.weft" --otlp http://127.0.0.1:1/ 2>e.txt
	case $? in
	2) grep -q "weft ship --otlp: not in this build" e.txt || die "otlp: $(cat e.txt)" ;;
	*) ;; # the otlp half is in this build
	esac
}
run "usage: URLs weft cannot speak to, --follow of a ring" t_usage

tap_done
