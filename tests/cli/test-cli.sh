#!/bin/bash
# SPDX-License-Identifier: MIT
# test-cli.sh - the `weft` commands on real traces: babeltrace2 round trip,
# stdin, snapshots (by file and by pid), follow, bad input, usage errors,
# compile-out, and start-up from the environment.  TAP output.
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
W=$WEFT_BIN
EX=$WEFT_BUILD/examples
. "$WEFT_SRC/tests/tap.sh"
tap_init cli "$@"


t_babeltrace_roundtrip() {
	WEFT_FILE=all.weft "$EX/all-events" 3 >/dev/null || die "example failed"
	"$W" ctf all.weft -o ctf || die "weft ctf failed"
	babeltrace2 --clock-cycles ctf >bt.txt 2>bt.err || die "babeltrace2 failed: $(cat bt.err)"
	[ -s bt.err ] && die "babeltrace2 warned: $(cat bt.err)"
	"$W" dump --cycles --no-actor all.weft >dump.txt || die "dump failed"
	python3 "$WEFT_SRC/tests/cli/bt_compare.py" bt.txt dump.txt || exit 1
	# every event type of the event table (all-events records each one),
	# from several OS threads
	local e types
	types=$(sed -n 's/.*X([A-Z_]*, [0-9]*, \([a-z_]*\),.*/\1/p' "$WEFT_SRC/include/weft/events.h")
	[ "$(echo $types | wc -w)" -ge 23 ] || die "cannot read the event table: $types"
	for e in $types; do
		grep -q "[0-9]) $e: " bt.txt || die "no $e event in babeltrace2 output"
	done
	# and no other
	[ "$(awk '{print $4}' bt.txt | sort -u)" = "$(printf '%s:\n' $types | sort)" ] ||
		die "babeltrace2 shows other event types: $(awk '{print $4}' bt.txt | sort -u | tr '\n' ' ')"
	[ "$(grep -o 'os_tid = [0-9]*' bt.txt | sort -u | wc -l)" -ge 3 ] || die "fewer than 3 OS threads"
}

t_babeltrace_losses() {
	# A wrapped ring: babeltrace2 reads the export without error and
	# reports the gaps as discarded packets only between packets it has.
	WEFT_FILE=small.weft WEFT_SIZE=64K "$EX/ticker" 1 >/dev/null
	"$W" ctf small.weft -o sctf 2>err.txt
	grep -q "lost" err.txt || die "weft ctf did not report the wrap: $(cat err.txt)"
	babeltrace2 sctf >/dev/null 2>bt.err || die "babeltrace2 failed: $(cat bt.err)"
	"$W" dump --cycles --no-actor small.weft >d.txt 2>dump.err || die "dump failed: $(cat dump.err)"
	babeltrace2 --clock-cycles sctf >b.txt 2>bt.err || die "babeltrace2 failed: $(cat bt.err)"
	# (a second's ticks in a 64 KiB ring: more than fit, fewer than wrote)
	[ "$(grep -c . b.txt)" -gt 100 ] || die "babeltrace2 read $(grep -c . b.txt) events"
	python3 "$WEFT_SRC/tests/cli/bt_compare.py" b.txt d.txt || die "babeltrace2 and weft dump differ"
}

t_stdin() {
	WEFT_FILE=a.weft "$EX/all-events" >/dev/null
	"$W" dump a.weft >1.txt && "$W" dump - <a.weft >2.txt || exit 1
	cmp 1.txt 2.txt || die "dump - differs"
	cat a.weft | "$W" info - | grep -q "^events:    52$" || die "info - wrong"
}

t_info() {
	WEFT_FILE=a.weft "$EX/all-events" 2 >/dev/null
	"$W" info a.weft >info.txt || exit 1
	grep -q "^writer:    stopped cleanly" info.txt || die "$(cat info.txt)"
	grep -q "^events:    52$" info.txt || die "$(cat info.txt)"
	grep -q "^streams:   3$" info.txt || die "$(cat info.txt)"
	grep -qE "^  create +6$" info.txt || die "$(cat info.txt)"
	grep -q "0 packets lost" info.txt
}

t_snapshot_file_and_pipe() {
	WEFT_FILE=a.weft "$EX/all-events" >/dev/null
	"$W" snapshot a.weft -o b.weft || exit 1
	"$W" dump a.weft >1.txt && "$W" dump b.weft >2.txt && cmp 1.txt 2.txt || die "copy differs"
	"$W" snapshot a.weft -o - | "$W" dump - >3.txt && cmp 1.txt 3.txt || die "pipe differs"
}

t_snapshot_pid() {
	WEFT_FILE=live.weft "$EX/ticker" 3 >/dev/null &
	local pid=$!
	sleep 1
	"$W" snapshot --pid $pid -o - >snap.weft || die "snapshot --pid failed"
	kill $pid; wait $pid 2>/dev/null
	"$W" info snap.weft >i.txt || die "$(cat i.txt)"
	grep -q "gone without stopping" i.txt || die "$(cat i.txt)"
	local ticks; ticks=$("$W" dump snap.weft | grep -c ' create child=')
	[ "$ticks" -gt 50 ] || die "only $ticks ticks in the snapshot"
	sleep 10 &
	local other=$!
	"$W" snapshot --pid $other -o x.weft 2>e.txt; local rc=$?
	kill $other
	[ $rc = 1 ] || die "a process with no ring should fail"
	grep -q "has no weft ring" e.txt || die "$(cat e.txt)"
}

t_follow() {
	WEFT_FILE=f.weft "$EX/ticker" 1.5 >/dev/null &
	local pid=$!
	sleep 0.3
	timeout 20 "$W" dump --follow f.weft >follow.txt || die "follow did not end with the writer ($?)"
	wait $pid
	grep -q 'text="done"' follow.txt || die "follow missed the last event"
	"$W" dump f.weft >all.txt
	[ "$(grep -c ' create ' follow.txt)" = "$(grep -c ' create ' all.txt)" ] || die "follow: $(grep -c ' create ' follow.txt) creates, dump: $(grep -c ' create ' all.txt)"
}

expect_fail() { # expected-exit pattern cmd...
	local want=$1 pat=$2; shift 2
	"$@" >/dev/null 2>err.txt
	local rc=$?
	[ $rc = "$want" ] || die "'$*' exited $rc, want $want: $(cat err.txt)"
	grep -q -- "$pat" err.txt || die "'$*': message '$(cat err.txt)' lacks '$pat'"
	[ "$(wc -l <err.txt)" -le 3 ] || die "too many messages: $(cat err.txt)"
}

t_bad_input() {
	WEFT_FILE=good.weft "$EX/all-events" >/dev/null
	: >empty.weft
	expect_fail 1 "empty input" "$W" dump empty.weft
	head -c 5000 /dev/urandom >random.weft
	expect_fail 1 "not a weft trace" "$W" dump random.weft
	head -c 300 good.weft >short.weft
	expect_fail 1 "truncated.*at byte offset 300" "$W" dump short.weft
	head -c 100000 good.weft >trunc.weft
	expect_fail 1 "truncated.*at byte offset 100000" "$W" info trunc.weft
	cp good.weft ver.weft
	printf '\x07\x00' | dd of=ver.weft bs=1 seek=8 conv=notrunc 2>/dev/null
	expect_fail 1 "format version 7\.[0-9]*; .*at byte offset 8" "$W" dump ver.weft
	# flip bytes in the first packet's magic: reported with its offset
	local hs; hs=$(python3 -c "import struct;d=open('good.weft','rb').read(24);print(struct.unpack('<I',d[12:16])[0])")
	cp good.weft flip.weft
	printf '\xde\xad' | dd of=flip.weft bs=1 seek="$hs" conv=notrunc 2>/dev/null
	"$W" dump flip.weft >/dev/null 2>err.txt; [ $? = 1 ] || die "corrupt packet not an error"
	grep -q "corrupt at byte offset $hs: packet 0: bad magic" err.txt || die "$(cat err.txt)"
	expect_fail 1 "No such file" "$W" dump nonexistent.weft
	mkdir -p adir
	expect_fail 1 "a directory" "$W" dump adir
	expect_fail 2 "usage" "$W" dump
	expect_fail 2 "usage" "$W" ctf good.weft
	expect_fail 2 "not a weft command" "$W" frobnicate
	expect_fail 2 "usage" "$W" snapshot good.weft
}

t_compile_out() {
	local cc=${CC:-cc}
	command -v objcopy >/dev/null || { echo "no objcopy"; exit 77; }
	cat >prog.c <<'EOF'
#include <weft/events.h>
#include <weft/weft.h>
/* every event of the table, by its fields' types: each has its function
 * compiled in, and its compiled-out form, of the same arguments */
#define T_ID , (uint64_t)x
#define T_NAME , "n"
#define T_I64 , (int64_t)x
#define T_U64 , (uint64_t)x
#define T_TRUNC
#define T_STR , "s"
#define F(t, n) T_##t
#ifdef WEFT_ENABLE
#define CALL(fn, ...) fn(__VA_ARGS__);
#else
#define CALL(fn, ...) (void)sizeof(fn(__VA_ARGS__));
#endif
#define X(E, id, name, cur, doc, fields) CALL(weft__##name fields)
int work(int x);
int work(int x)
{
#ifndef DELETED
	weft_create((uint64_t)x, "kind");
	weft_run((uint64_t)x);
	weft_label((uint64_t)x, "label");
	weft_counter_add("c", x);
	weft_pause("gc", 10);
	weft_becomes(1, 2);
	weft_create_label(3, "k", "l");
	weft_resolve_run(3);
	weft_fire(3, 4);
	weft_phase("timers");
	weft_clock_set((uint64_t)x);
	WEFT_EVENT_MAP(X, F)
	if (weft_start("x", 0, WEFT_CLOCK_MANUAL))
		return -1;
#endif
	return x * 3;
}
EOF
	$cc -O2 -Wall -Werror -I"$WEFT_SRC/include" -c prog.c -o out.o || die "compiled out: $($cc -O2 -Wall -I"$WEFT_SRC/include" -c prog.c -o out.o 2>&1 | head -5)"
	$cc -O2 -I"$WEFT_SRC/include" -DDELETED -c prog.c -o del.o || exit 1
	$cc -O2 -Wall -Werror -I"$WEFT_SRC/include" -DWEFT_ENABLE -c prog.c -o in.o || die "compiled in: $($cc -O2 -Wall -I"$WEFT_SRC/include" -DWEFT_ENABLE -c prog.c -o in.o 2>&1 | head -5)"
	# every event's function called, compiled in
	local ev evs
	evs=$(grep -oE "^\s*X\([A-Z_0-9]+, [0-9]+, [a-z_]+," "$WEFT_SRC/include/weft/events.h" | sed 's/.*, //; s/,$//')
	[ "$(echo $evs | wc -w)" -ge 25 ] || die "the events of events.h: $evs"
	for ev in $evs; do
		nm -u in.o | grep -qE " weft__$ev\$" || die "compiled in, weft__$ev not called: $(nm -u in.o)"
	done
	nm -u out.o | grep -q weft && die "compiled-out object references weft: $(nm -u out.o)"
	nm -u in.o | grep -q weft__create || die "compiled-in object does not call weft"
	objcopy -O binary --only-section=.text out.o out.bin
	objcopy -O binary --only-section=.text del.o del.bin
	cmp out.bin del.bin || die "compiled-out code differs from the code without the calls"
	# and it type-checks: a wrong argument type is a compile error
	printf '#include <weft/weft.h>\nvoid f(void);\nvoid f(void){ weft_label(1, 42); }\n' >bad.c
	$cc -Werror -I"$WEFT_SRC/include" -c bad.c -o bad.o 2>/dev/null && die "type error not caught"
	true
}

t_env_children() {
	# The process `weft record` starts writes FILE; any other process that
	# inherits the environment writes FILE.PID.
	WEFT_FILE=e.weft WEFT_ROOT_PID=1 "$EX/all-events" >/dev/null
	[ -e e.weft ] && die "non-root process wrote the root file"
	ls e.weft.* >/dev/null 2>&1 || die "no e.weft.PID"
	"$W" info "$(ls e.weft.* | head -1)" | grep -q "^events:    52$" || die "child trace wrong"
	# a live writer's file is never taken over
	WEFT_FILE=h.weft "$EX/ticker" 2 >/dev/null &
	local pid=$!
	sleep 0.5
	WEFT_FILE=h.weft "$EX/all-events" >/dev/null
	kill $pid; wait $pid 2>/dev/null
	"$W" dump h.weft | grep -q 'kind="tick"' || die "live file replaced"
	ls h.weft.* >/dev/null 2>&1 || die "second process did not get its own file"
	# sizes and modes from the environment
	# (long enough to fill it: a ring that did not fill is cut at its
	# stop to the slots it used)
	WEFT_FILE=d.weft WEFT_SIZE=128K WEFT_MODE=discard "$EX/ticker" 1.5 >/dev/null
	"$W" info d.weft >i.txt
	grep -q "discard mode" i.txt || die "$(cat i.txt)"
	grep -q "^ring:      1[0-9][0-9][0-9][0-9][0-9] bytes" i.txt || die "$(cat i.txt)"
	grep -q "[1-9][0-9]* events discarded" i.txt || die "$(cat i.txt)"
	# fork without exec: the child continues into FILE.PID
	local child; child=$(WEFT_FILE=fk.weft "$EX/forker") || die "forker failed"
	"$W" dump fk.weft >p.txt && "$W" dump "fk.weft.$child" >c.txt || die "no fk.weft.$child"
	grep -q 'text="parent after fork"' p.txt || die "parent trace: $(cat p.txt)"
	grep -q 'text="child"' p.txt && die "the child wrote into the parent's ring"
	grep -q 'text="child"' c.txt || die "child trace: $(cat c.txt)"
	grep -q 'parent' c.txt && die "child trace has parent events"
	WEFT_FILE=m.weft WEFT_CLOCK=monotonic "$EX/all-events" >/dev/null
	"$W" info m.weft | grep -q "CLOCK_MONOTONIC, 1000000000 Hz" || die "monotonic clock not used"
}

t_install() {
	local D=$PWD/inst
	meson install -C "$WEFT_BUILD" --no-rebuild --destdir "$D" >inst.log 2>&1 || die "$(tail inst.log)"
	local pc; pc=$(find "$D" -name weft.pc | head -1)
	[ -n "$pc" ] || die "no weft.pc installed"
	for f in bin/weft include/weft/weft.h include/weft/read.h include/weft/events.h share/man/man1/weft.1; do
		[ -e "$D/usr/local/$f" ] || die "missing $f"
	done
	local lib; lib=$(dirname "$pc")/..
	ls "$lib"/libweft.so.0 "$lib"/libweft.a "$lib"/libweft-read.so.0 >/dev/null || die "libraries missing"
	objdump -p "$lib"/libweft.so.0 | grep -q "SONAME *libweft.so.0" || die "no SONAME"
	printf '#include <weft/weft.h>\nint main(void)\n{\n\tweft_run(1);\n\tweft_resolve(1);\n\treturn 0;\n}\n' >p.c
	local flags; flags=$(PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$D pkg-config --cflags --libs weft) || die "pkg-config failed"
	# (sanitizer builds pass their flags in WEFT_TEST_CFLAGS)
	cc ${WEFT_TEST_CFLAGS:-} p.c $flags -DWEFT_ENABLE -o p || die "cc $flags failed"
	WEFT_FILE=p.weft LD_LIBRARY_PATH=$lib ./p || die "program failed"
	"$W" dump --no-actor p.weft >d.txt
	[ "$(cut -d' ' -f3- d.txt)" = "$(printf 'run thread=0x1\nresolve target=0x1')" ] || die "$(cat d.txt)"
}

t_why() {
	WEFT_FILE=bad.weft "$EX/arp" bad >/dev/null
	"$W" why bad.weft >out.txt; [ $? = 1 ] || die "bad ARP: exit 0: $(cat out.txt)"
	grep -q "^main (0x2, task) should resolve, but is still pending" out.txt || die "$(cat out.txt)"
	grep -q "^  waits since .* on TCP connect (0x3, task)$" out.txt || die "$(cat out.txt)"
	grep -q "^  which waits since .* on ARP response (0x4, condition)$" out.txt || die "$(cat out.txt)"
	grep -q "^verdict: lost wake-up: ARP response (0x4, condition) was signalled at .* by port-4: ARP response (0x64, event), before TCP connect began waiting on it" out.txt || die "$(cat out.txt)"
	WEFT_FILE=good.weft "$EX/arp" good >/dev/null
	"$W" why good.weft >out.txt || die "good ARP: $(cat out.txt)"
	grep -q "^nothing is wrong: 1 should-resolve thread checked" out.txt || die "$(cat out.txt)"
	local m
	for m in deadlock never failed truncated ok; do
		rm -f v.weft
		if [ $m = truncated ]; then export WEFT_SIZE=64K; else unset WEFT_SIZE; fi
		WEFT_FILE=v.weft "$EX/verdicts" $m >/dev/null
		"$W" why v.weft >out.txt 2>err.txt; local rc=$?
		case $m in
		deadlock) grep -q "^verdict: deadlock: helper B (0xb, task) waits since .* on request A (0xa, task), which closes a cycle" out.txt ;;
		never) grep -q "^verdict: never resolved: nothing signalled, resolved or failed helper B (0xb, task) after request A began waiting" out.txt ;;
		failed) grep -q '^verdict: failed upstream: disk read C (0xc, task) failed at .* ("EIO") and helper B, waiting on it, never read the failure' out.txt &&
			grep -q "^  which waits since .* on disk read C" out.txt ;;
		truncated) grep -q "^verdict: truncated: events about 0xa (0xa) were lost" out.txt && grep -q "lost [0-9]* packets" err.txt ;;
		ok) grep -q "^nothing is wrong" out.txt ;;
		esac || die "$m: $(cat out.txt)"
		if [ $m = ok ]; then [ $rc = 0 ] || die "ok: exit $rc"; else [ $rc = 1 ] || die "$m: exit $rc"; fi
	done
	unset WEFT_SIZE
	# asking about one thread, by id or by label
	"$W" why bad.weft 0x3 >out.txt; [ $? = 1 ] || die "by id"
	grep -q "^TCP connect (0x3, task) is still pending" out.txt || die "$(cat out.txt)"
	"$W" why good.weft "TCP connect" >out.txt || die "by label: $(cat out.txt)"
	grep -q "resolved: nothing to explain" out.txt || die "$(cat out.txt)"
	# the loop and the condition are pending, but nothing waits on them
	# and nothing says they should resolve: no fault (they were once
	# called "truncated" although nothing was lost)
	"$W" why --all good.weft >out.txt || die "--all: $(cat out.txt)"
	grep -q "^not awaited (waiting on nothing, nothing waits on them, nothing says they should resolve): 2: event loop (0x1), ARP response (0x4, condition)$" out.txt || die "$(cat out.txt)"
	grep -q "^nothing is wrong: 7 pending-or-not threads checked, 2 still pending with no fault the trace shows$" out.txt || die "$(cat out.txt)"
	"$W" why good.weft 0x1 >out.txt || die "one not awaited: $(cat out.txt)"
	grep -q "^verdict: not awaited: event loop (0x1) waits on nothing, nothing waits on it and nothing says it should resolve$" out.txt || die "$(cat out.txt)"
	"$W" why --all --json bad.weft >out.json; [ $? = 1 ] || die "--json: exit 0"
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v={(t["title"],t["verdict"],t["fault"]) for t in d["threads"]}; assert v=={("main","lost wake-up",True),("TCP connect","lost wake-up",True),("ARP response","lost wake-up",True),("event loop","not awaited",False)} and d["faults"]==3, v' out.json || die "$(cat out.json)"
}

t_chrome() {
	WEFT_FILE=a.weft "$EX/all-events" 3 >/dev/null
	"$W" export --format chrome a.weft -o a.json || exit 1
	# 11 async threads; 21 interactions between different threads (the
	# reply's creation and resolution, and its re-arming, among them); 1
	# counter
	python3 "$WEFT_SRC/tests/cli/chrome_check.py" a.json --threads 11 --flows 21 --counters 1 || exit 1
	grep -q '"name":"thread_name","args":{"name":"all-events (tid' a.json || die "no thread names"
	grep -q '"error":"disk on fire: \\"EIO\\""' a.json || die "no failure message"
	# the loop's phase: a slice on a track of its own, named after its
	# OS thread, in which the reply was resolved and re-armed (its runs
	# begin there)
	python3 - <<'PY' || die "phase slice wrong"
import json
ev = json.load(open('a.json'))['traceEvents']
ph = [e for e in ev if e.get('cat') == 'weft.phase']
assert len(ph) == 1 and ph[0]['ph'] == 'X' and ph[0]['name'] == 'pending', ph
names = {e['tid']: e['args']['name'] for e in ev if e.get('name') == 'thread_name'}
assert names[ph[0]['tid']].startswith('loop phases, all-events (tid '), names
runs = [e for e in ev if e['ph'] == 'X' and e.get('cat') == 'weft' and
        e.get('name', '').startswith('200 OK')]
assert len(runs) == 2 and all(ph[0]['ts'] <= r['ts'] < ph[0]['ts'] + ph[0]['dur']
                              for r in runs), (ph, runs)
PY
	WEFT_FILE=bad.weft "$EX/arp" bad >/dev/null
	"$W" export --format chrome bad.weft -o - | python3 "$WEFT_SRC/tests/cli/chrome_check.py" /dev/stdin --threads 7 || exit 1
	# hostile text stays text
	printf '#include <weft/weft.h>\nint main(void){weft_create(1,"k");weft_label(1,"</script><img src=x onerror=alert(1)>\\x01\\xff");return 0;}\n' >h.c
	cc ${WEFT_TEST_CFLAGS:-} -DWEFT_ENABLE -I"$WEFT_SRC/include" h.c -L"$WEFT_BUILD" -lweft -Wl,-rpath,"$WEFT_BUILD" -o h || die "cc failed"
	WEFT_FILE=h.weft ./h
	"$W" export --format chrome h.weft -o h.json || exit 1
	python3 "$WEFT_SRC/tests/cli/chrome_check.py" h.json --threads 1 || exit 1
	grep -q '</script>' h.json && die "raw </script> in the JSON"
	python3 -c "import json,sys; d=json.load(open('h.json')); t=[e for e in d['traceEvents'] if e.get('name')=='label']; assert t[0]['args']['text']=='</script><img src=x onerror=alert(1)>\x01\ufffd', t" || die "label text altered"
	expect_fail 2 "weft export: --format must be one of chrome, perfetto (not .svg.)" "$W" export --format svg a.weft -o x
	# chrome is the default format; a missing -o is named, not a bare usage
	"$W" export a.weft -o d.json || die "export without --format"
	cmp -s a.json d.json || die "export without --format differs from --format chrome"
	expect_fail 2 "weft export: -o OUT is required" "$W" export a.weft
	expect_fail 2 "weft ctf: -o DIR is required" "$W" ctf a.weft
}

# Times in the text outputs (issue 37 point 4): stats (whole and a
# range), why (verdicts, --path, --all --path), ps, diff, info and the
# messages write the viewers' one format ("24.1 ms", never "24.1ms" nor
# "1e+03 us"); a table's column of times (ps's pending, why --path's
# states, stats's longest runs and busy/idle) is in one unit, its
# largest value's, the digits lined up on the point, each value within
# half the column's precision of the --json's nanoseconds; stats's
# p50/p90/p99/max cells are in one unit each ("0.088/0.334/2.992/4.184
# ms").  The
# server-shaped trace (bench/server-gen: the manual clock, the same trace
# on every machine) has pending times from 287 ms down to 2.3 us and
# longest runs from 5.1 ms down to 472 us (one unit each: ms).
t_times() {
	local g=$WEFT_BUILD/bench/server-gen
	[ -x "$g" ] || { echo "no bench/server-gen"; exit 77; }
	"$g" -n 20000 --size 1048576 -o s.weft >/dev/null || die "server-gen"
	WEFT_FILE=a.weft "$EX/all-events" >/dev/null || die "all-events"
	WEFT_FILE=r.weft "$EX/arp" >/dev/null || die "arp"
	for t in s a r; do
		"$W" stats $t.weft >stats-$t.txt || die "stats $t"
		"$W" stats --from 10us --to 20ms $t.weft >range-$t.txt || die "stats range $t"
		"$W" why --all $t.weft >why-$t.txt
		"$W" ps $t.weft >ps-$t.txt || die "ps $t"
		"$W" info $t.weft >info-$t.txt || die "info $t"
		"$W" diff $t.weft r.weft >diff-$t.txt
		"$W" stats --from 100s $t.weft 2>>err.txt
	done
	"$W" why --path main r.weft >path.txt || die "why --path"
	"$W" why --all --path main r.weft >pathall.txt || die "why --all --path"
	"$W" stats --json s.weft >stats.json && "$W" ps --json s.weft >ps.json || die "json"
	grep -q "^weft: --from 100 s is past the end of the trace (288 ms)$" err.txt || die "no --from message: $(cat err.txt)"
	# the old style: a unit glued to its number, %g's exponent, an
	# instant's nine decimals in one block (weft dump's, of other
	# cases' files here, are one token on purpose)
	local mine="stats-?.txt range-?.txt why-?.txt ps-?.txt info-?.txt diff-?.txt path.txt pathall.txt err.txt"
	# shellcheck disable=SC2086
	if grep -nE '[0-9](ns|us|ms|s)\b|[0-9]e\+[0-9]|[0-9]\.[0-9]{4,}' $mine; then
		die "a time in the old style (above)"
	fi
	# instants in groups (every output here has some)
	for f in stats-s ps-s info-s diff-a path; do
		grep -qE '[0-9]\.[0-9]{3} [0-9]{3}' $f.txt || die "no grouped instant in $f.txt: $(head -3 $f.txt)"
	done
	grep -qx "trace s.weft: 22777 events over 288 ms, 1996 async threads, 2 OS threads" stats-s.txt &&
		grep -q "^    5.127 ms  postgres pool (0x3) on tid [0-9]* at 0.276 238 773 s$" stats-s.txt &&
		grep -q "^    0.472 ms  postgres pool (0x3) on tid " stats-s.txt &&
		grep -qx "  0x1          event loop     287.525 ms  server loop (epoll)" ps-s.txt &&
		grep -qx "  0xa17        http request     0.002 ms  GET /api/items/91713 (should resolve)" ps-s.txt ||
		die "server-gen's times changed: $(head -1 stats-s.txt; grep -E '^  0x(1|a17) ' ps-s.txt)"
	python3 - <<'EOF' || exit 1
import json, re, sys
U = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
T = re.compile(r"^( *)(-?\d+(?:\.\d+(?: \d+)*)?) (ns|us|ms|s)( *)$")
def column(what, cells, want=None):
    # cells: the column's strings, as printed (padding included)
    got = [T.match(c) for c in cells]
    assert all(got), (what, [c for c, g in zip(cells, got) if not g])
    units = {g.group(3) for g in got}
    assert len(units) == 1, (what, "units mixed", cells)
    assert len({len(c) for c in cells}) == 1, (what, "widths", cells)
    # the digits lined up: the whole part ends at one offset
    ends = {len(g.group(1)) + len(g.group(2).split(".")[0]) for g in got}
    assert len(ends) == 1, (what, "not lined up", cells)
    vals = [float(g.group(2).replace(" ", "")) for g in got]
    assert 1 <= max(vals) < 1000, (what, "not the largest's unit", cells)
    if want is not None:
        dec = max(len(g.group(2).split(".")[1].replace(" ", "")) if "." in g.group(2) else 0 for g in got)
        prec = U[got[0].group(3)] / 10 ** dec
        for c, v, w in zip(cells, vals, want):
            assert abs(v * U[got[0].group(3)] - w) <= prec / 2 + 1e-6, (what, c, w, prec)
    return got[0].group(3)
E = re.compile(r" *-?\d[\d. ]* (?:ns|us|ms|s)\b")
def cells_at(lines, start):
    ends = [E.match(l, start) for l in lines]
    assert all(ends), ("no time at", start, lines)
    w = max(m.end() for m in ends) - start
    return [l[start:start + w] for l in lines]
st = open("stats-s.txt").read().split("\n")
i = st.index("longest runs without yielding:")
rows = []
for l in st[i + 1:]:
    if not l.startswith("  "):
        break
    rows.append(l)
j = json.load(open("stats.json"))
runs = [r["duration_ns"] for r in j["longest_runs"]]
assert len(rows) == len(runs) >= 3, (rows, runs)
# runs of ms and of hundreds of us: one column, in ms
assert max(runs) > 10**6 > min(runs), runs
assert column("longest runs", cells_at(rows, 2), runs) == "ms"
# the by-kind table's p50/p90/p99/max: one unit a cell, the largest's
i = st.index("by kind:")
kinds = {k["key"]: k for k in j["kinds"]}
seen = 0
for l in st[i + 2:]:
    if not l.startswith("  "):
        break
    m = re.match(r"  (.+?) +(\d+) +\d+ +\d+  (.*)$", l)
    assert m and m.group(1) in kinds, l
    cells = re.findall(r"(-/-/-/-|(?:[\d.]+/){3}[\d.]+ (?:ns|us|ms|s))", m.group(3))
    assert len(cells) == 2, l
    for cell, q in zip(cells, ("lifetime_ns", "run_ns")):
        want = [kinds[m.group(1)][q][x] for x in ("p50", "p90", "p99", "max")]
        if cell == "-/-/-/-":
            assert max(want) < 0, (l, want)
            continue
        nums, unit = cell.split(" ")
        v = [float(x) for x in nums.split("/")]
        dec = max(len(x.split(".")[1]) if "." in x else 0 for x in nums.split("/"))
        assert 1 <= max(v) < 1000 or max(v) == 0, (l, cell)
        for a, w in zip(v, want):
            assert abs(a * U[unit] - w) <= U[unit] / 10 ** dec / 2 + 1e-6, (l, cell, want)
        seen += 1
assert seen >= 15, seen
os_ = [l for l in st if l.startswith("  tid ")]
assert len(os_) == 2, os_
busy = [re.search(r"busy +[\d.]+% \((.*?)\)  idle", l).group(1) for l in os_]
column("busy", busy, [o["busy_ns"] for o in j["os_threads"]])
ps = [l for l in open("ps-s.txt").read().split("\n") if l.startswith("  0x")]
pj = json.load(open("ps.json"))["pending"]
assert len(ps) == len(pj) == 283, (len(ps), len(pj))
want = [p["pending_ns"] for p in pj]
assert max(want) > 10**8 and min(want) < 10**4, want
assert column("ps pending", cells_at(ps, 30), want) == "ms"
pa = open("path.txt").read().split("\n")
states = [l for l in pa if re.match(r"  (running|ready|waiting|other) ", l)]
assert len(states) == 4, pa
column("why --path states", cells_at(states, 11))
# (an instant: seconds to the ns, in groups, whole zero groups left out;
# the column padded to its widest, then two spaces and the durations)
INST = r"  (\d+(?:\.\d{3}(?: \d{3})*)? s)  "
segs = [l for l in pa if re.match(INST, l)]
assert len(segs) >= 3, pa
at = [re.match(INST, l).group(1) for l in segs]
assert any(" " in a.rstrip(" s") for a in at), at  # grouped digits
column("why --path's critical path",
       cells_at(segs, 2 + max(len(a) for a in at) + 2))
pa = open("pathall.txt").read().split("\n")
states = [l for l in pa if re.match(r"  (running|ready|waiting|other) ", l)]
assert len(states) == 4, pa
column("why --all --path averages", cells_at(states, 11))
EOF
}

t_stats() {
	WEFT_FILE=a.weft "$EX/all-events" 3 >/dev/null
	"$W" stats --json a.weft >s.json || exit 1
	python3 - <<'PY' || exit 1
import json
d = json.load(open('s.json'))
k = {g['key']: (g['count'], g['pending'], g['failed']) for g in d['kinds']}
assert k == {'task': (3, 0, 2), '': (2, 1, 0), 'condition': (1, 1, 0),
             'promise': (1, 0, 0), 'reply': (2, 1, 0), 'request': (1, 0, 0),
             'timer': (1, 0, 0)}, k
t = [g for g in d['kinds'] if g['key'] == 'task'][0]
l = t['lifetime_ns']
assert 0 < l['p50'] <= l['p90'] <= l['p99'] <= l['max'], l
lab = {g['key']: g['count'] for g in d['labels']}
assert lab['GET /index.html'] == 1 and lab['workers done'] == 1, lab
assert lab['200 OK to the client'] == 2, lab  # create_label, then fire
assert len(d['os_threads']) == 4
assert all(0 <= o['busy_share'] <= 1 for o in d['os_threads'])
assert d['os_threads'][0]['idle_ns'] > 0          # the main thread's join
c = d['counters'][0]
assert c['name'] == 'busy-workers' and c['min'] == 0 and c['last'] == 0 and c['samples'] == 7, c
assert 1 <= len(d['longest_runs']) <= 10
r = [x['duration_ns'] for x in d['longest_runs']]
assert r == sorted(r, reverse=True), r
assert d['losses']['packets_lost'] == 0
assert d['events'] == 64 and d['threads'] == 11, (d['events'], d['threads'])
ph = d['loop_phases']
assert len(ph) == 1 and ph[0]['phase'] == 'pending' and ph[0]['count'] == 1, ph
assert ph[0]['tid'] == d['os_threads'][0]['tid'], ph
assert ph[0]['total_ns'] == ph[0]['longest']['duration_ns'] > 0, ph
# what ran longest in it: the reply, between its resolution and its firing
assert ph[0]['longest']['longest_run']['thread'] == '200 OK to the client', ph
PY
	"$W" stats a.weft >s.txt || exit 1
	grep -q "^by kind:" s.txt && grep -q "^  task  *3  *0  *2 " s.txt && grep -q "^longest runs without yielding:" s.txt &&
		grep -q "^  busy-workers " s.txt || die "$(cat s.txt)"
	grep -q "^loop phases, tid [0-9]* all-events:" s.txt &&
		grep -qE "^  pending +1 .* 200 OK to the client \(0x190\)" s.txt || die "$(cat s.txt)"
}

# A range's summary (weft stats --from/--to: the viewers' summary panel):
# the whole trace counts what weft stats counts; a range cut in two at any
# nanosecond splits what began, ended and failed, and the arrows, exactly;
# one-sided ranges; a range past the end is an error.
t_stats_range() {
	WEFT_FILE=a.weft "$EX/all-events" 3 >/dev/null
	"$W" stats --json a.weft >s.json || exit 1
	"$W" stats --json --from 0 a.weft >all.json || exit 1
	"$W" stats --json --to 1000s a.weft >all2.json || exit 1
	cmp -s all.json all2.json || die "--from 0 and --to 1000s differ"
	python3 - "$W" <<'PY' || exit 1
import json, subprocess, sys
W = sys.argv[1]
s = json.load(open('s.json'))
a = json.load(open('all.json'))
assert a['from_ns'] == 0 and a['to_ns'] == s['duration_ns'], a
assert a['threads'] == s['threads'] == 11, a
assert a['began'] == 11, a
assert a['ended'] == s['threads'] - sum(g['pending'] for g in s['kinds']), a
assert a['failed'] == sum(g['failed'] for g in s['kinds']) == 2, a
kinds = {}
for g in a['groups']:
    kinds[g['kind']] = kinds.get(g['kind'], 0) + g['threads']
assert kinds == {g['key']: g['count'] for g in s['kinds']}, kinds
n = [g['threads'] for g in a['groups']]
assert n == sorted(n, reverse=True), n
assert all(g['label'] == '' for g in a['groups']), a['groups']
lab = {g['label']: g['threads'] for g in a['labels']}
assert all(g['kind'] == '' for g in a['labels']), a['labels']
assert lab == {g['key']: g['count'] for g in s['labels'] if g['key']}, (lab, s['labels'])
assert len(a['os_threads']) == 4 and len(a['processes']) == 1, a
busy = {o['tid']: o['busy_ns'] for o in s['os_threads']}
for o in a['os_threads']:
    assert o['running_ns'] == busy[o['tid']], (o, busy)
    assert o['running_ns'] + o['idle_ns'] + o['other_ns'] == s['duration_ns'], o
p = a['processes'][0]
assert p['running_ns'] == sum(o['running_ns'] for o in a['os_threads']), p
assert a['arrows']['created'] == 9 and a['arrows']['failed'] == 2, a
# cut in two at three places: what began, ended and failed, and the
# arrows, add up (the halves share no nanosecond)
end = s['duration_ns']
for cut in (end // 3, end // 2, 2 * end // 3):
    l = json.loads(subprocess.check_output([W, 'stats', '--json', '--to', '%dns' % cut, 'a.weft']))
    r = json.loads(subprocess.check_output([W, 'stats', '--json', '--from', '%dns' % (cut + 1), 'a.weft']))
    assert l['from_ns'] == 0 and r['to_ns'] == end, (l, r)
    for k in ('began', 'ended', 'failed'):
        assert l[k] + r[k] == a[k], (cut, k, l[k], r[k], a[k])
    for k, v in a['arrows'].items():
        assert l['arrows'].get(k, 0) + r['arrows'].get(k, 0) == v, (cut, k)
    for i, o in enumerate(a['os_threads']):
        lo, ro = l['os_threads'][i], r['os_threads'][i]
        assert abs(lo['running_ns'] + ro['running_ns'] - o['running_ns']) <= 1, (cut, o)
PY
	"$W" stats --from 0 a.weft >r.txt || exit 1
	grep -q "^trace a.weft from 0 ns to .*: 11 async threads, 11 began, .* 2 failed$" r.txt &&
		grep -q "^by kind:" r.txt && grep -q "^by label:" r.txt && grep -q "^processes:" r.txt &&
		grep -qE "^  created +[0-9]+$" r.txt || die "$(cat r.txt)"
	expect_fail 1 "weft: --from 1000 s is past the end of the trace" "$W" stats --from 1000s a.weft
	expect_fail 1 "weft: --to is before --from" "$W" stats --from 2ns --to 1ns a.weft
}

# Hostile traces (the fuzz corpus: damaged copies and what libFuzzer found)
# through every reading command: a result or a clean error (exit 0 or 1),
# never a crash, a hang or, in the sanitizer build, a sanitizer report.
t_hostile_traces() {
	# (fontconfig's memory, kept until exit by design, is not ours)
	export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$WEFT_SRC/tests/render/lsan.supp"
	local f c rc cmds=("info" "dump" "stats" "stats --json" "why --all"
		"stats --from 0" "stats --json --to 1ms"
		"export --format chrome -o out.json" "ctf -o ctfdir")
	# OpenTelemetry and Perfetto's protobuf (docs/otlp.md)
	cmds+=("export --otlp out.otlp" "export --format perfetto -o out.pftrace")
	"$W" --help 2>&1 | grep -q "^  render " && cmds+=("render -o out.png")
	"$W" --help 2>&1 | grep -q "^  html " && cmds+=("html -o out.html")
	# weft query: every table and view once (tests/cli/test-query.py)
	if "$W" --help 2>&1 | grep -q "^  query "; then
		"$W" query --schema "$WEFT_SRC/tests/fuzz/corpus/$(ls "$WEFT_SRC/tests/fuzz/corpus" | head -1)" 2>/dev/null |
			awk '$1 == "table" || $1 == "view" { sub(/\(.*/, "", $2); print "SELECT count(*) FROM " $2 ";" }' >all.sql
		[ -s all.sql ] || die "weft query --schema listed nothing"
		cmds+=("query -f all.sql")
	fi
	for f in "$WEFT_SRC"/tests/fuzz/corpus/*; do
		for c in "${cmds[@]}"; do
			rm -rf ctfdir
			# shellcheck disable=SC2086
			timeout 60 "$W" $c "$f" >/dev/null 2>err.txt
			rc=$?
			if [ $rc -gt 1 ] || grep -qE "runtime error|Sanitizer" err.txt; then
				die "weft $c $(basename "$f"): exit $rc: $(head -c 600 err.txt)"
			fi
		done
		# (compact replaces what it is given: a copy)
		cp "$f" copy.weft
		timeout 60 "$W" compact copy.weft >/dev/null 2>err.txt
		rc=$?
		if [ $rc -gt 1 ] || grep -qE "runtime error|Sanitizer" err.txt; then
			die "weft compact $(basename "$f"): exit $rc: $(head -c 600 err.txt)"
		fi
		# weft index writes beside what it is given: a copy; an index
		# it wrote is one its --check finds current
		cp "$f" copy.weft
		rm -f copy.weft.weftidx
		timeout 60 "$W" index -q copy.weft 2>err.txt
		rc=$?
		if [ $rc -gt 1 ] || grep -qE "runtime error|Sanitizer" err.txt; then
			die "weft index $(basename "$f"): exit $rc: $(head -c 600 err.txt)"
		fi
		if [ $rc = 0 ] && ! timeout 60 "$W" index --check -q copy.weft 2>err.txt; then
			die "weft index --check $(basename "$f"): $(head -c 600 err.txt)"
		fi
		rm -f copy.weft.weftidx
		rm -f copy.weft
	done
}

# A ring stopped cleanly keeps only the slots it used; one whose writer
# was killed keeps its size until `weft compact` gives the rest back, into
# a file that reads the same (dump and CTF export alike); refused: a live
# ring, a link, what is not a ring; nothing to give in a ring that went
# round; a run directory's rings each.
t_compact() {
	# (16 MiB, the default: a header region of 196608 bytes, 506 slots
	# of 32 KiB)
	WEFT_FILE=clean.weft "$EX/ticker" 0.05 >/dev/null || die "ticker failed"
	local size i p
	size=$(stat -c %s clean.weft)
	[ $(( (size - 196608) % 32768 )) = 0 ] && [ "$size" -lt $((196608 + 8 * 32768)) ] ||
		die "a clean stop kept $size bytes"
	"$W" info clean.weft | grep -qx "ring:      $size bytes, $(( (size - 196608) / 32768 )) packets of 32768 bytes, overwrite mode, $(( (size - 196608) / 32768 )) packets in use" ||
		die "$("$W" info clean.weft | grep ring:)"
	WEFT_FILE=k.weft "$EX/ticker" 30 >/dev/null &
	p=$!
	for i in $(seq 200); do
		"$W" info k.weft 2>/dev/null | grep -q "^events: *[1-9][0-9][0-9]" && break
		sleep 0.05
	done
	"$W" compact k.weft >out.txt 2>err.txt; [ $? = 1 ] || die "compacted a live ring: $(cat out.txt)"
	[ "$(cat err.txt)" = "weft: cannot compact 'k.weft': a live writer holds it (compact it once it is done)" ] || die "$(cat err.txt)"
	kill -9 $p; wait $p 2>/dev/null
	[ "$(stat -c %s k.weft)" = 16777216 ] || die "a killed writer's ring is $(stat -c %s k.weft) bytes"
	cp k.weft k0.weft
	"$W" dump k.weft >before.txt || die "dump"
	"$W" ctf k.weft -o ctf1 2>/dev/null || die "ctf"
	"$W" compact k.weft >out.txt 2>err.txt || die "compact: $(cat err.txt)"
	size=$(stat -c %s k.weft)
	[ "$(cat out.txt)" = "k.weft: 16777216 -> $size bytes ($(( (size - 196608) / 32768 )) of 506 packet slots in use)" ] ||
		die "$(cat out.txt)"
	[ "$size" -lt 1000000 ] && [ "$(du -k k.weft | cut -f1)" -le $((size / 1024)) ] || die "du: $(du -k k.weft)"
	[ "$(stat -c %a k.weft)" = 600 ] || die "mode $(stat -c %a k.weft)"
	"$W" dump k.weft >after.txt && cmp before.txt after.txt || die "dump differs"
	"$W" ctf k.weft -o ctf2 2>/dev/null && diff -r ctf1 ctf2 >/dev/null || die "ctf export differs"
	"$W" compact k.weft >out.txt || die "again"
	[ "$(cat out.txt)" = "k.weft: $(( (size - 196608) / 32768 )) of $(( (size - 196608) / 32768 )) packet slots in use: nothing to give back" ] ||
		die "$(cat out.txt)"
	# refused, untouched
	ln -s k0.weft link.weft
	printf 'precious\n' >data.weft
	md5sum k0.weft data.weft >sums
	"$W" compact link.weft 2>err.txt; [ $? = 1 ] || die "followed a link"
	[ "$(cat err.txt)" = "weft: cannot compact 'link.weft': a symbolic link: weft compact never follows one (name the ring itself)" ] || die "$(cat err.txt)"
	"$W" compact data.weft 2>err.txt; [ $? = 1 ] || die "compacted data"
	[ "$(cat err.txt)" = "weft: cannot compact 'data.weft': not a weft ring (never replaced)" ] || die "$(cat err.txt)"
	md5sum -c --quiet sums && [ -L link.weft ] || die "touched"
	# gone round: nothing to give
	WEFT_FILE=w.weft WEFT_SIZE=64K "$EX/ticker" 1 >/dev/null
	"$W" compact w.weft >out.txt || die "wrapped"
	[ "$(cat out.txt)" = "w.weft: 28 of 28 packet slots in use: nothing to give back" ] || die "$(cat out.txt)"
	# a run: the ring of the ticker killed is compacted, the other's
	# stopped cleanly (sh records nothing); the manifest stays
	"$W" record -o run -- sh -c "\"$EX/ticker\" 30 & p=\$!; \"$EX/ticker\" 0.05; sleep 1; kill -9 \$p" >/dev/null 2>&1
	ls run | grep -c '^ring' | grep -qx 2 || die "run: $(ls run)"
	cp run/manifest manifest.before
	"$W" compact run >out.txt || die "run: $(cat out.txt)"
	[ "$(grep -c 'nothing to give back$' out.txt)" = 1 ] && [ "$(grep -c ' -> ' out.txt)" = 1 ] &&
		grep -q "^run/ring\.[0-9]*: 16777216 -> " out.txt || die "run: $(cat out.txt)"
	cmp run/manifest manifest.before || die "the manifest changed"
	[ -z "$(ls -A run | grep -v '^ring\|^manifest$')" ] || die "left behind: $(ls -A run)"
}

export W EX T WEFT_SRC WEFT_BUILD
run install_and_pkg_config t_install
run babeltrace_roundtrip t_babeltrace_roundtrip
run babeltrace_losses t_babeltrace_losses
run stdin t_stdin
run info t_info
run snapshot_file_and_pipe t_snapshot_file_and_pipe
run snapshot_pid t_snapshot_pid
run follow t_follow
run bad_input t_bad_input
run compile_out t_compile_out
run env_children t_env_children
run why t_why
run chrome_export t_chrome
run stats t_stats
run times t_times
run stats_range t_stats_range
# (about 600 command runs over the corpus: a sanitizer build on a loaded
# machine needs more than the default 120 s)
TAP_TIMEOUT=360 run hostile_traces t_hostile_traces
run compact t_compact
tap_done
