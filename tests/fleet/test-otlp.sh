#!/bin/bash
# SPDX-License-Identifier: MIT
# test-otlp.sh - OpenTelemetry (docs/otlp.md): weft's protobuf encoder
# read back by protoc; `weft export --otlp` and `weft ship --otlp` read
# back by a receiver and decoder in node with the generated classes of
# @opentelemetry/otlp-transformer 0.203.0 (otlp-check.js), every span,
# link, event and attribute checked against `weft query`'s account of the
# same trace; the span budget and the message limit at their boundaries;
# hostile labels; retries.  TAP output.
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
W=$WEFT_BIN
F=$WEFT_BUILD/tests/fleet
. "$WEFT_SRC/tests/tap.sh"
tap_init otlp "$@"
TAP_TIMEOUT=120
unset WEFT_FILE WEFT_RUN WEFT_SIZE WEFT_MODE WEFT_CLOCK
CHECK="$WEFT_SRC/tests/fleet/otlp-check.js"
export W F CHECK

need() {
	command -v protoc >/dev/null || { echo "no protoc"; exit 77; }
	command -v node >/dev/null || { echo "no node"; exit 77; }
	[ -d "$WEFT_SRC/node_modules/@opentelemetry/otlp-transformer" ] ||
		{ echo "no node_modules/@opentelemetry/otlp-transformer (npm ci)"; exit 77; }
	"$W" query --help >/dev/null 2>&1 || { echo "weft query not built (SQLite)"; exit 77; }
}
# What the trace holds, by weft query: threads, arrows, labels,
# processes, its end (one JSON line each).
facts() { # trace > json
	"$W" query --json "$1" "select thread,id,incarnation,kind,label,title,creator,created,ended,last_seen,end,message,process,root,should_resolve from threads; select arrow,kind,from_thread,to_thread,t,sent,followed,message from arrows; select thread,t,text,kind from labels; select process,pid,comm from processes; select t1 from trace"
}
check() { # source facts budget limit expect...
	node "$CHECK" check "$@"
}
# A receiver on a random loopback port, stopped when the case ends.
start_rx() { # dir fail
	# (the cases share the scratch directory: a fresh one)
	rm -rf "$1" && mkdir "$1" || die "mkdir $1"
	node "$CHECK" receive "$1" "$2" >"$1.out" 2>&1 &
	RX=$!
	RXS="${RXS:-} $RX"
	trap 'kill $RXS 2>/dev/null; wait $RXS 2>/dev/null' EXIT
	for _ in $(seq 100); do [ -f "$1/port" ] && break; sleep 0.05; done
	PORT=$(cat "$1/port") || die "the receiver did not start"
}

t_pb_decode_raw() {
	need
	"$F/pb-sample" >s.pb || die "pb-sample failed"
	protoc --decode_raw <s.pb >got || die "protoc cannot decode the encoder's output"
	a=$(printf 'a%.0s' $(seq 125)) b=$(printf 'b%.0s' $(seq 126)) c=$(printf 'c%.0s' $(seq 19997))
	{
		for v in 0 1 127 128 16383 16384 2097151 2097152 9223372036854775808 18446744073709551615; do
			echo "1: $v"
		done
		printf '%s\n' "2: 18446744073709551615" "3: 1" "3: 2" "3: 127" \
			"4: 0x0102030405060708" "5: 0xdeadbeef" "6: 0x3ff8000000000000" \
			'7: "hello"' '8: "\001\002"' "9: 1" "10 {" "  1: 5" "  2 {" \
			'    1: "in"' "    3 {" "      1: 300" "    }" "  }" "}" \
			"11 {" "  1: \"$a\"" "}" "11 {" "  1: \"$b\"" "}" "11 {" "  1: \"$c\"" "}" \
			'12: ""' "536870911: 7"
	} >want
	diff want got >d || die "protoc --decode_raw differs: $(head -c 600 d)"
	# the lengths' varints: 127 bytes in one, 128 in two, 20,001 in three
	[ "$(stat -c %s s.pb)" = 20388 ] || die "encoded size $(stat -c %s s.pb), not 20416"
}

t_export_small() {
	need
	"$F/otlp-gen" g.weft || die "otlp-gen"
	facts g.weft >facts.json || die "weft query"
	# the OS thread, the loop, 20 connections, 5 requests and steps
	[ "$(sed -n 1p facts.json | grep -o '"thread":' | wc -l)" = 27 ] || die "27 threads expected"
	"$W" export --otlp g.otlp g.weft || die "export --otlp"
	out=$(check g.otlp facts.json 10000 4194304 "hubs=event loop" traces=22 splits=0 messages=1) || die "$out"
	echo "$out" | grep -q "links=[0-9]*+21 " || die "21 parent links expected (the loop, 20 connections): $out"
	# ids are derived, not random: the same trace gives the same bytes
	"$W" export --otlp - g.weft >g2.otlp || die "export --otlp -"
	cmp -s g.otlp g2.otlp || die "two exports of one trace differ"
}

t_budget_boundary() {
	need
	"$F/otlp-gen" g.weft && facts g.weft >facts.json || die setup
	# connection 0's trace holds 6 spans: a budget of 6 keeps it, 5
	# splits its last request off, 1 makes every span a trace
	"$W" export --otlp b6 --span-budget 6 g.weft || die "budget 6"
	out=$(check b6 facts.json 6 4194304 traces=22 splits=0) || die "budget 6: $out"
	"$W" export --otlp b5 --span-budget 5 g.weft || die "budget 5"
	out=$(check b5 facts.json 5 4194304 traces=23 splits=1) || die "budget 5: $out"
	"$W" export --otlp b1 --span-budget 1 g.weft || die "budget 1"
	out=$(check b1 facts.json 1 4194304 traces=27 splits=5) || die "budget 1: $out"
	"$W" export --otlp b0 --span-budget 0 g.weft 2>err; [ $? = 2 ] || die "budget 0 accepted"
	grep -q -- "--span-budget" err || die "budget 0: $(cat err)"
}

t_hostile_labels() {
	need
	"$F/otlp-gen" g.weft && "$W" export --otlp g.otlp g.weft || die setup
	node "$CHECK" texts g.otlp >texts || die "texts"
	grep -qxF '["label","quote \" back\\slash\nnewline\t<script>x</script>"]' texts || die "quotes, controls, markup: $(cat texts)"
	grep -qxF "[\"weft.label\",\"bad $(printf '\xef\xbf\xbd\xef\xbf\xbd') utf-8 $(printf '\xef\xbf\xbd')\"]" texts || die "invalid UTF-8 not U+FFFD: $(cat texts)"
	grep -qxF "[\"weft.label\",\"$(printf 'x%.0s' $(seq 3000))\"]" texts || die "3000-byte label"
	# the bytes on the wire are UTF-8 (protobuf.js would hide invalid
	# bytes: protoc shows them, C-escaped)
	read -r k len < <(od -An -tu1 -N10 g.otlp | awk '{v = 0; m = 1; for (i = 1; i <= NF; i++) { v += ($i % 128) * m; m *= 128; if ($i < 128) { print i, v; exit } } }')
	[ "$((k + len))" = "$(stat -c %s g.otlp)" ] || die "not one message after its length ($k $len)"
	tail -c +$((k + 1)) g.otlp | protoc --decode_raw >raw || die "protoc --decode_raw"
	grep -qF 'bad \357\277\275\357\277\275 utf-8 \357\277\275' raw || die "no U+FFFD on the wire: $(grep -a 'bad' raw)"
	grep -F 'utf-8' raw | grep -qF '\377' && die "an invalid byte on the wire: $(grep -aF 'utf-8' raw)"
	grep -qxF "[\"weft.note\",\"slow: 5 ms $(printf '\xf0\x9f\xa7\xb5 \xc3\xbcnic\xc3\xb6de')\"]" texts || die "emoji note"
	grep -qxF '["status","ECONNRESET \"peer\""]' texts || die "failure status"
	grep -qxF '["exception","ECONNRESET \"peer\""]' texts || die "failure event"
	[ "$(wc -l <texts)" = 10 ] || die "$(wc -l <texts) texts, expected 10: $(cat texts)"
}

t_server_budgets() {
	need
	"$WEFT_BUILD/bench/server-gen" -n 60000 -c 60 -o s.weft >/dev/null || die "server-gen"
	facts s.weft >facts.json || die "weft query"
	"$W" export --otlp s.otlp s.weft || die "export"
	out=$(check s.otlp facts.json 10000 4194304 "hubs=db pool,event loop,tcp listener" splits=0) || die "default: $out"
	# a small budget and message limit: requests split, many messages,
	# spans too big for one message cut (and counted)
	"$W" export --otlp small.otlp --span-budget 4 --message-limit 8192 s.weft 2>err || die "small"
	grep -q "links and 0 events left out" err || die "no dropped links said: $(cat err)"
	out=$(check small.otlp facts.json 4 8192 splits=100 messages=100) || die "small: $out"
	echo "$out" | grep -q "dropped=[1-9]" || die "nothing dropped: $out"
}

t_ship() {
	need
	"$F/otlp-gen" g.weft && facts g.weft >facts.json || die setup
	"$WEFT_BUILD/bench/server-gen" -n 30000 -o s.weft >/dev/null && facts s.weft >sfacts.json || die setup
	start_rx rx 0
	"$W" ship --otlp "http://127.0.0.1:$PORT" g.weft 2>err || die "ship: $(cat err)"
	grep -q "shipped 27 spans in 22 traces, 1 requests" err || die "$(cat err)"
	out=$(check rx facts.json 10000 4194304 traces=22) || die "$out"
	# a collector that refuses (503, 429, 503) before accepting: each
	# message arrives once
	start_rx rx2 3
	"$W" ship --otlp "http://127.0.0.1:$PORT/v1/traces" --message-limit 16384 s.weft 2>err || die "ship: $(cat err)"
	grep -q ", 3 retries" err || die "$(cat err)"
	[ "$(cut -d' ' -f4 rx2/log | head -3 | tr '\n' ' ')" = "503 429 503 " ] || die "$(cat rx2/log)"
	ok=$(grep -c ' 200$' rx2/log)
	[ "$ok" -ge 5 ] && [ "$ok" = "$(ls rx2/*.pb | wc -l)" ] || die "$ok accepted: $(cat rx2/log)"
	out=$(check rx2 sfacts.json 10000 16384 "messages=$ok") || die "$out"
}

t_ship_errors() {
	need
	"$F/otlp-gen" g.weft || die setup
	# nothing listens there (a port the receiver had, closed)
	start_rx rx 0; p=$PORT; kill $RX; wait $RX 2>/dev/null
	"$W" ship --otlp "http://127.0.0.1:$p" --retries 1 g.weft 2>err; [ $? = 1 ] || die "refused: exit $?"
	grep -q "cannot ship to http://127.0.0.1:$p: cannot connect" err || die "$(cat err)"
	start_rx rx2 0
	"$W" ship --otlp "http://127.0.0.1:$PORT/v1/wrong" g.weft 2>err; [ $? = 1 ] || die "400: exit $?"
	grep -q "answered" err || die "$(cat err) rx2: $(cat rx2.out; ls rx2)"
	grep -q "answered 'HTTP/1.1 400 Bad Request'" err || die "$(cat err)"
	"$W" ship --otlp "https://127.0.0.1:$PORT" g.weft 2>err; [ $? = 2 ] || die "https: exit $?"
	grep -q "https is not supported" err || die "$(cat err)"
	"$W" ship --otlp "http://127.0.0.1:99999" g.weft 2>err; [ $? = 2 ] || die "bad port: exit $?"
	"$W" ship g.weft 2>err; [ $? = 2 ] || die "no url: exit $?"
	grep -q -- "--clickhouse URL or --otlp URL is needed" err || die "$(cat err)"
	"$W" export --otlp x -o y g.weft 2>err; [ $? = 2 ] || die "--otlp and -o: exit $?"
	"$W" export --otlp nodir/x g.weft 2>err; [ $? = 1 ] || die "unwritable: exit $?"
	grep -q "cannot create 'nodir/x'" err || die "$(cat err)"
}

# The trace as the round trip must keep it: threads (id, incarnation,
# kind, latest label, creator, end, message, flags, creation time),
# arrows (kind, ends, time, followed) and labels and notes, all in order;
# times from the first arrow.  OS threads aside: an import has one.
roundtrip_facts() { # trace
	"$W" query --csv "$1" "select t.id, t.incarnation, t.kind, t.label, c.id as creator_id, t.end, t.message, t.should_resolve, t.no_create, t.created - (select min(t) from arrows) as created from threads t left join threads c on c.thread = t.creator where not t.root order by t.id, t.incarnation;
		select a.kind, f.id as f, f.incarnation as fi, t.id as t, t.incarnation as ti, a.t - (select min(t) from arrows) as at, a.followed from arrows a join threads f on f.thread = a.from_thread join threads t on t.thread = a.to_thread order by a.t, a.arrow;
		select l.kind, th.id, th.incarnation, l.t - (select min(t) from arrows), l.text from labels l join threads th on th.thread = l.thread order by l.t, l.label"
}

t_round_trip() {
	need
	"$F/otlp-gen" g.weft || die setup
	"$WEFT_BUILD/bench/server-gen" -n 40000 -c 50 -o s.weft >/dev/null || die setup
	for t in g s; do
		"$W" export --otlp $t.otlp --span-budget 7 --message-limit 8192 $t.weft 2>/dev/null || die "export $t"
		"$W" import --otlp $t.otlp -o $t-back.weft 2>err || die "import $t: $(cat err)"
		roundtrip_facts $t.weft >$t.want || die "query $t"
		roundtrip_facts $t-back.weft >$t.got || die "query $t-back"
		# (the server trace's spans are cut at 8 KiB, their links
		# lost: compared below, whole)
		[ $t = s ] || cmp -s $t.want $t.got || die "$t: the round trip differs: $(diff $t.want $t.got | head -c 800)"
	done
	grep -q "^fail,1003,0,1003,0," g.got && grep -q "^read_failed,1003,0,1002,0," g.got ||
		die "no failure in the round trip: $(cat g.got)"
	[ "$(grep -c . g.want)" -ge 70 ] || die "too little to compare: $(wc -l <g.want)"
	"$W" export --otlp s2.otlp s.weft && "$W" import --otlp s2.otlp -o s2-back.weft 2>/dev/null &&
		roundtrip_facts s2-back.weft >s2.got || die "s2"
	cmp -s s.want s2.got || die "server trace: the round trip differs: $(diff s.want s2.got | head -c 800)"
	# the same file read twice gives the same trace
	"$W" import --otlp s2.otlp -o s3-back.weft 2>/dev/null && roundtrip_facts s3-back.weft | cmp -s - s2.got || die "two imports differ"
	# an existing file is not replaced by a ring
	echo keep >precious
	"$W" import --otlp g.otlp -o precious 2>err; [ $? = 1 ] || die "replaced a file: exit $?"
	[ "$(cat precious)" = keep ] || die "precious was written"
	# bad input: a clear error
	head -c 100 g.otlp >cut.otlp
	"$W" import --otlp cut.otlp -o c.weft 2>err; [ $? = 1 ] || die "cut: exit $?"
	grep -q "'cut.otlp' is not an OTLP export of weft: a message's length cut short at byte" err || die "cut: $(cat err)"
	head -c 5000 /dev/urandom >rnd.otlp
	"$W" import --otlp rnd.otlp -o r.weft 2>err; [ $? = 1 ] || die "random bytes: exit $? $(cat err)"
	grep -q "is not an OTLP export of weft" err || die "random: $(cat err)"
	"$W" import --otlp g.otlp 2>err; [ $? = 2 ] || die "no -o: exit $?"
}

t_perfetto() {
	need
	"$F/otlp-gen" g.weft || die setup
	"$WEFT_BUILD/bench/server-gen" -n 15000 -c 30 -o s.weft >/dev/null || die setup
	for t in g s; do
		"$W" query --json $t.weft "select thread,id,incarnation,kind,label,title,creator,created,ended,end,process,root from threads; select arrow,kind,from_thread,to_thread,t from arrows; select thread,t,text,kind from labels; select counter,name from counters; select counter,t,value from samples; select process,pid,comm from processes" >$t.facts || die "query $t"
		"$W" export --format perfetto -o $t.pftrace $t.weft || die "export $t"
		protoc --decode_raw <$t.pftrace >$t.raw || die "protoc cannot read $t.pftrace"
		out=$(python3 "$WEFT_SRC/tests/fleet/perfetto_check.py" $t.raw $t.facts) || die "$t: $out"
	done
	echo "$out" | grep -q "samples=[1-9]" || die "no counter samples checked: $out"
	# a fraction of the JSON's bytes
	"$W" export -o s.json s.weft || die "json"
	[ $(($(stat -c %s s.pftrace) * 3)) -lt "$(stat -c %s s.json)" ] ||
		die "$(stat -c %s s.pftrace) bytes, the JSON $(stat -c %s s.json)"
}

t_chrome_ids() {
	"$WEFT_BUILD/bench/server-gen" -n 40000 -c 50 -o s.weft >/dev/null || die setup
	"$W" export -o s.json s.weft || die "export"
	python3 "$WEFT_SRC/tests/cli/chrome_check.py" s.json >out || die "$(cat out)"
	# (write ids are reused: incarnations of one id follow each other)
	python3 - s.json <<'PY' || exit 1
import json, sys
evs = json.load(open(sys.argv[1]))['traceEvents']
b = [e for e in evs if e['ph'] == 'b' and e['name'] != 'run']
bad = [e for e in b if e['id'] != e['args']['id']]
if bad:
    sys.exit('async id differs from args.id: %r' % bad[0])
ids = [e['id'] for e in b]
if len(ids) - len(set(ids)) < 10:
    sys.exit('only %d reused ids: the check means little' % (len(ids) - len(set(ids))))
PY
}

run "protoc --decode_raw reads weft's encoder: every field shape, lengths at varint boundaries" t_pb_decode_raw
run "export --otlp: a span per thread, parents, hub traces, links, events, status, exact" t_export_small
run "the span budget at its boundary (6 keeps, 5 splits, 1 splits all)" t_budget_boundary
run "hostile labels survive (quotes, controls, invalid UTF-8, 3000 bytes, emoji)" t_hostile_labels
run "a server-shaped trace: budgets and message limits hold, cut spans counted" t_server_budgets
run "ship --otlp to a receiver, with 503/429 retried: each message once" t_ship
run "import --otlp gives back the same threads, arrows and labels; bad input refused" t_round_trip
run "export --format perfetto: tracks, slices, flows, labels, counters decoded field by field" t_perfetto
run "the Chrome JSON's async id is its args.id, incarnations included" t_chrome_ids
run "ship --otlp and export --otlp errors: refused, 400, https, bad values" t_ship_errors
tap_done
