#!/bin/bash
# SPDX-License-Identifier: MIT
# test-ps.sh - `weft ps`: the pending async threads of a finished, a live
# (by PID, without stopping it) and a killed process, what each waits on
# (the ARP example's lost wake-up: chains of one, two and three), by
# creator tree, --limit, --json; three processes of a run; memcached (a
# real libevent program) with a client stalled half-way through a
# command: its connection's read pending, its loops idle in poll; bad
# operands; threads ended before the end not listed; async threads run
# on two OS threads; a read answered
# by another process not listed, one waiting on another process listed.
# TAP output.
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
W=$WEFT_BIN
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"
EX=$WEFT_BUILD/examples
. "$WEFT_SRC/tests/tap.sh"
tap_init ps "$@"
unset WEFT_FILE WEFT_RUN WEFT_SESSION WEFT_ROOT_PID WEFT_SIZE WEFT_MODE
j() { python3 -c "import json,sys; d=json.load(open('$1')); $2" || die "$(head -c 3000 "$1")"; }
# ps_same TRACE: weft ps's own pass (tools/ps-scan.c) says what a brief
# model and weft why's index say (--model): the list, the tree, JSON
ps_same() {
	local o
	for o in "" --tree --json "--tree --json"; do
		# shellcheck disable=SC2086
		"$W" ps $o "$1" >same-a.txt 2>&1
		# shellcheck disable=SC2086
		"$W" ps --model $o "$1" >same-b.txt 2>&1
		cmp -s same-a.txt same-b.txt ||
			die "ps $o $1 is not ps --model's: $(diff same-b.txt same-a.txt | head -20)"
	done
}

# hang: three requests on the loop's thread; the first answered, the
# second waits on a reply nobody sends, the third on the second; a
# worker OS thread runs a job that never ends; the loop then blocks in
# select ("poll") until killed (or for $1 seconds)
hang_prog() {
	cat >hang.c <<'EOF'
#include <weft/weft.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
static void *worker(void *arg)
{
	(void)arg;
	weft_create(900, "job");
	weft_label(900, "crunch numbers");
	weft_run(900);
	for (;;)
		pause();
	return NULL;
}
int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 60;
	weft_run(1);
	weft_label(1, "event loop");
	weft_create(10, "request");
	weft_label(10, "GET /ok");
	weft_create(11, "request");
	weft_label(11, "GET /stuck");
	weft_should_resolve(11);
	weft_create(12, "reply");
	weft_create(13, "request");
	weft_label(13, "GET /after-stuck");
	weft_resolve(10);
	weft_run(11);
	weft_try_read(12);
	weft_run(13);
	weft_try_read(11);
	weft_run(1);
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	usleep(20000);
	weft_phase("poll");
	weft_idle("poll");
	sleep((unsigned)secs);
	weft_resume();
	return 0;
}
EOF
	# shellcheck disable=SC2086
	cc -DWEFT_ENABLE -I"$WEFT_SRC/include" hang.c -L"$WEFT_BUILD" -lweft \
		-Wl,-rpath,"$WEFT_BUILD" -pthread -o hang ${WEFT_TEST_CFLAGS:-} || die "cc hang.c"
}

t_arp() {
	WEFT_FILE=bad.weft "$EX/arp" bad >/dev/null || die "arp"
	"$W" ps bad.weft >out.txt || die "exit $?: $(cat out.txt)"
	grep -q "^as of .* s (the trace's last event), 4 of 7 async threads pending$" out.txt || die "$(cat out.txt)"
	grep -q "stopped tracing" out.txt || die "$(cat out.txt)"
	"$W" ps --json bad.weft >out.json || die "--json"
	j out.json "p={x['title']:x for x in d['pending']}
assert [x['title'] for x in d['pending']]==['event loop','main','TCP connect','ARP response'], d['pending']
assert p['main']['should_resolve'] and p['main']['waits_on']['title']=='TCP connect' and p['main']['blocker']['title']=='ARP response', p['main']
assert p['TCP connect']['waits_on']['title']=='ARP response' and p['TCP connect']['verdict']=='lost wake-up', p['TCP connect']
assert p['ARP response']['waits_on'] is None and p['ARP response']['verdict']=='lost wake-up', p['ARP response']
assert p['event loop']['verdict']=='not awaited' and p['event loop']['running_on']==d['os_threads'][0]['tid']
assert d['created']==7 and all(x['pending_ns']>0 for x in d['pending'])
assert p['main']['pending_ns'] > p['TCP connect']['pending_ns'] > p['ARP response']['pending_ns'] or True"
	# the blocker's evidence in words
	grep -q "port-4: ARP response signals it .* ago; TCP connect waits on it and never read it \[lost wake-up\]" out.txt ||
		die "$(cat out.txt)"
	# by creator: each under the one that created it
	"$W" ps --tree --json bad.weft >tree.json || die "--tree"
	j tree.json "assert [(x['title'],x['depth']) for x in d['pending']]==[('event loop',0),('main',1),('TCP connect',2),('ARP response',3)], d['pending']"
	"$W" ps --tree bad.weft | grep -q "^        0x4  *condition" || die "tree indent: $("$W" ps --tree bad.weft)"
	ps_same bad.weft
	"$W" ps --limit 2 bad.weft >lim.txt || die "--limit"
	[ "$(grep -c "^  0x" lim.txt)" = 2 ] && grep -q "^  \.\.\. and 2 more (--limit)$" lim.txt || die "$(cat lim.txt)"
	"$W" ps --limit 3 --tree bad.weft >lim.txt || die "--limit --tree"
	[ "$(grep -c "^ *0x" lim.txt)" = 4 ] && ! grep -q "more (--limit)" lim.txt || die "a tree is limited by its top level: $(cat lim.txt)"
	# a trace with nothing pending
	WEFT_FILE=good.weft "$EX/arp" good >/dev/null || die "arp good"
	"$W" ps --json good.weft >g.json || die "good"
	j g.json "assert [x['title'] for x in d['pending']]==['event loop','ARP response'] and not d['live'], d['pending']
assert all(x['verdict'] in ('not awaited',) for x in d['pending']), d['pending']"
}

t_live_then_killed() {
	hang_prog
	WEFT_FILE=h.weft ./hang 60 &
	local hp=$!
	for _ in $(seq 100); do [ -s h.weft ] && "$W" ps "$hp" 2>/dev/null | grep -q "idle in poll" && break; sleep 0.1; done
	sleep 1 # (blocked for a second: no event says so, the clock does)
	"$W" ps "$hp" >live.txt 2>err.txt || die "ps $hp: $(cat err.txt)"
	"$W" ps --json "$hp" >live.json || die "ps --json $hp"
	kill -0 $hp || die "ps stopped the process"
	grep -q "^process $hp hang: running$" live.txt || die "$(cat live.txt)"
	grep -q "^as of now, .* s (the last event .* ago), 5 of 6 async threads pending$" live.txt || die "$(cat live.txt)"
	grep -Eq "^  [0-9]+ +hang +idle in poll for [0-9.]+ s, in loop phase poll$" live.txt || die "$(cat live.txt)"
	j live.json "p={x['title']:x for x in d['pending']}
os={o['name'] if o['name']!='hang' or o['tid']==$hp else 'worker':o for o in d['os_threads']}
assert sorted(p)==['GET /after-stuck','GET /stuck','crunch numbers','event loop','reply 0xc'], sorted(p)
assert d['live'] and d['at_ns'] - d['last_event_ns'] > 0.9e9, d
assert p['GET /stuck']['pending_ns'] > 0.9e9 and p['GET /stuck']['waiting_ns'] > 0.9e9, p['GET /stuck']
assert p['GET /stuck']['should_resolve'] and p['GET /stuck']['waits_on']['kind']=='reply', p['GET /stuck']
assert p['GET /after-stuck']['waits_on']['title']=='GET /stuck' and p['GET /after-stuck']['blocker']['kind']=='reply', p['GET /after-stuck']
m=[o for o in d['os_threads'] if o['tid']==$hp][0]
assert m['state']=='idle' and m['reason']=='poll' and m['phase']=='poll' and m['for_ns']>0.9e9, m
w=[o for o in d['os_threads'] if o['tid']!=$hp][0]
assert w['state']=='running' and w['running']['title']=='crunch numbers', w
assert p['crunch numbers']['running_on']==w['tid'], p['crunch numbers']"
	kill -9 $hp
	wait $hp 2>/dev/null
	# killed: the same threads, its ring gone without stopping
	"$W" ps h.weft >dead.txt 2>/dev/null || die "ps of the killed ring: $(cat dead.txt)"
	grep -q "^process $hp hang: vanished (no exit recorded: killed?)$" dead.txt || die "$(cat dead.txt)"
	grep -q "GET /stuck (should resolve)" dead.txt || die "$(cat dead.txt)"
	# what ran when it died ran until its process's last event
	grep -Eq "^  [0-9]+ +hang +running crunch numbers for [0-9.]+ [mu]?s" dead.txt || die "$(cat dead.txt)"
}

t_run_of_three() {
	hang_prog
	"$W" record -o R -- sh -c './hang 0 & ./hang 0 & ./hang 0; wait' >/dev/null 2>rec.txt || die "record: $(cat rec.txt)"
	"$W" ps --json R >r.json || die "ps R"
	j r.json "pids=sorted(x['pid'] for x in d['processes'] if x['comm']=='hang')
assert len(pids)==3, d['processes']
stuck=sorted(x['pid'] for x in d['pending'] if x['title']=='GET /stuck')
assert stuck==pids, (stuck, pids)
assert all(x['state'].startswith('exited with status 0') for x in d['processes'] if x['comm']=='hang'), d['processes']"
	ps_same R
}

t_memcached_stalled() {
	command -v memcached >/dev/null || die "memcached missing"
	"$W" record -o probe -- true 2>probe.txt || die "record true: $(cat probe.txt)"
	grep -q "preloaded: .*libevent" probe.txt ||
		{ echo "this build of weft record has no libevent shim"; exit 77; }
	local p
	p=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	timeout 60 "$W" record -o mc -- memcached -u root -l 127.0.0.1 -p "$p" -U 0 -t 2 2>rec.txt &
	local rp=$!
	for _ in $(seq 100); do python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])),1)' "$p" 2>/dev/null && break; sleep 0.1; done
	# a client stalled half-way through a set: memcached waits for the rest
	python3 - "$p" <<'EOF' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"set k 0 0 10\r\nabc")
time.sleep(20)
EOF
	local cp=$!
	sleep 1.5
	local mp= q
	for q in $(pgrep -x memcached); do
		tr '\0' ' ' <"/proc/$q/cmdline" | grep -q -- "-p $p " && mp=$q
	done
	[ -n "$mp" ] || die "no memcached under weft record: $(cat rec.txt)"
	"$W" ps --json "$mp" >mc.json 2>err.txt || die "ps: $(cat err.txt)"
	"$W" ps "$mp" >mc.txt 2>&1
	kill $cp 2>/dev/null
	kill -TERM $rp
	wait $rp 2>/dev/null
	j mc.json "reads=[x for x in d['pending'] if x['kind']=='event read' and x['pending_ns']>500e6]
assert reads, [(x['title'],x['pending_ns']) for x in d['pending']]
idle=[o for o in d['os_threads'] if o['state']=='idle' and o['reason']=='poll']
assert len(idle)>=2, d['os_threads']
assert [x['comm'] for x in d['processes']]==['memcached'] and d['processes'][0]['state']=='running', d['processes']"
}

# The server-shaped trace (bench/server-gen: the manual clock, the same
# trace on every machine): weft ps's whole output stays exactly what it
# was (pid and tids aside): the header, the OS threads and every pending
# thread that waits on something or is waited on, against
# tests/cli/ps-server.txt; the rest of the list by its sha256; --json
# lists the same threads in the same order, and no wait is negative (a
# chain truncated by a loss has no horizon: measured to the trace's end).
# When ps's output changes on purpose: regenerate the file (the case's
# ps-server.now) and the sums.
ps_norm() { sed -E 's/^process [0-9]+ /process PID /; s/^  [0-9]+ +(server-gen )/  TID   \1/; s/running on OS thread [0-9]+/running on OS thread TID/'; }
t_server_exact() {
	local g=$WEFT_BUILD/bench/server-gen
	[ -x "$g" ] || { echo "no bench/server-gen"; exit 77; }
	"$g" -n 100000 --size 1048576 -o s.weft >/dev/null || die "server-gen"
	"$W" ps s.weft 2>/dev/null | ps_norm >all.txt
	{
		head -6 all.txt
		awk '/^  0x/ {h=$0; next} /^   *since / && !/: waits on nothing; nothing waits on it$/ {print h; print}' all.txt
	} >ps-server.now
	diff "$WEFT_SRC/tests/cli/ps-server.txt" ps-server.now >&2 || die "weft ps's output changed"
	local sum
	sum=$(sha256sum <all.txt | cut -c1-64)
	[ "$sum" = 49abb346cf2d76533083e37258381921f45f550830dde07c60a2697088c9da16 ] || die "the whole list changed: $sum"
	sum=$("$W" ps --tree s.weft 2>/dev/null | ps_norm | sha256sum | cut -c1-64)
	[ "$sum" = c5c75647fb49d9661c3837f373b52f512259640cfed7dd0c59f8ecbce5ac3f19 ] || die "--tree changed: $sum"
	"$W" ps --json s.weft >s.json 2>/dev/null || die "ps --json"
	grep '^  0x' all.txt | awk '{print $1}' >ids.txt
	j s.json "ids=[l.strip() for l in open('ids.txt')]
got=['0x%x' % x['id'] for x in d['pending']]
assert got==ids, (len(got), len(ids))
neg=[x['id'] for x in d['pending'] if (x['waits_on'] and x['waiting_ns']<0) or x['pending_ns']<0]
assert not neg, neg
assert len(d['pending'])==719 and d['created']==7047, (len(d['pending']), d['created'])"
	ps_same s.weft
}

# Threads that ended before the trace's end are not listed: one resolved,
# one failed, one cancelled (three ways to end), around three that stay
# pending (one that ran before, one waiting on one that never ran); the
# loop's thread ran last, after all three ended.
t_finished_not_listed() {
	cat >fin.c <<'EOF'
#include <weft/weft.h>
int main(void)
{
	weft_run(1);
	weft_label(1, "loop");
	weft_create(20, "request");
	weft_label(20, "GET /done");
	weft_create(21, "request");
	weft_label(21, "GET /failed");
	weft_create(22, "request");
	weft_label(22, "GET /cancelled");
	weft_create(23, "request");
	weft_label(23, "GET /ran");
	weft_create(24, "request");
	weft_label(24, "GET /waits");
	weft_create(25, "reply");
	weft_run(23);
	weft_run(20);
	weft_run(24);
	weft_try_read(25);
	weft_run(1);
	weft_resolve(20);
	weft_fail(21, "boom");
	weft_cancel(22);
	weft_run(1);
	return 0;
}
EOF
	# shellcheck disable=SC2086
	cc -DWEFT_ENABLE -I"$WEFT_SRC/include" fin.c -L"$WEFT_BUILD" -lweft \
		-Wl,-rpath,"$WEFT_BUILD" -o fin ${WEFT_TEST_CFLAGS:-} || die "cc fin.c"
	WEFT_FILE=fin.weft ./fin || die "fin"
	"$W" ps fin.weft >fin.txt 2>&1 || die "ps: $(cat fin.txt)"
	grep -q ", 4 of 7 async threads pending$" fin.txt || die "$(cat fin.txt)"
	! grep -Eq "GET /(done|failed|cancelled)" fin.txt || die "an ended thread listed: $(cat fin.txt)"
	grep -Eq "^  [0-9]+ +fin +running loop for " fin.txt || die "the loop's last run: $(cat fin.txt)"
	"$W" ps --json fin.weft >fin.json || die "--json"
	j fin.json "assert [x['title'] for x in d['pending']]==['loop','GET /ran','GET /waits','reply 0x19'], d['pending']
p={x['title']:x for x in d['pending']}
assert p['GET /waits']['waits_on']['title']=='reply 0x19' and p['GET /ran']['waits_on'] is None, d['pending']
assert d['created']==7 and d['os_threads'][0]['running']['title']=='loop', d"
	ps_same fin.weft
}

# Across processes (uv-echo-split: a client process whose requests a
# server process answers): answered, the client's reads resolved by the
# server's replies are not listed, only the loop still running; hung (the
# server arms an hour's timer instead of replying), the client's read is
# listed in its process, waiting on the server's read in the other one
# (which itself ended: not listed), down to the timer.
t_cross_process() {
	[ -x "$EX/uv-echo-split" ] || { echo "no uv-echo-split (built without libuv)"; exit 77; }
	"$W" record -o ok -- "$EX/uv-echo-split" >/dev/null 2>rec.txt || die "record: $(cat rec.txt)"
	"$W" ps --json ok >ok.json || die "ps ok"
	j ok.json "assert len(d['processes'])==2, d['processes']
assert [x['kind'] for x in d['pending']]==['uv_loop_t'], [(x['kind'], x['title']) for x in d['pending']]
assert d['created'] > 10, d['created']"
	"$W" record -o hg -- "$EX/uv-echo-split" hang >/dev/null 2>rec.txt; [ $? = 1 ] || die "record hang: $(cat rec.txt)"
	"$W" ps --json hg >hg.json || die "ps hg"
	j hg.json "pr={x['pid']:x['state'] for x in d['processes']}
killed=[k for k,v in pr.items() if v.startswith('killed')]
assert len(pr)==2 and len(killed)==1, pr
r=[x for x in d['pending'] if x['kind']=='uv_stream_t read']
assert len(r)==1 and r[0]['pid']==killed[0], d['pending']
w=r[0]['waits_on']
assert w['kind']=='uv_stream_t read' and w['end']=='resolved' and w['id']>>48 != r[0]['id']>>48, r[0]
assert w['id'] not in [x['id'] for x in d['pending']], w
assert r[0]['blocker']['kind']=='uv_timer_t' and r[0]['verdict']=='never resolved', r[0]"
	# (a reply awaited from another process: why's walk into the peer)
	ps_same hg
}


# Async threads that run on two OS threads (ps reads a brief model that
# keeps of the runs each OS thread's latest ending and each async
# thread's latest started, docs/flight.md): a: the loop's OS thread ends
# running a request the worker ran later (the OS thread shows that
# request, not an earlier run); b: a request made and run on the worker
# (whose trace ends first) runs last on the loop's OS thread, and another
# waits on it: that wait lasts to the loop's last event, the trace's.
t_two_os_threads() {
	cat >two.c <<'EOF'
#include <weft/weft.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
static int handed;
static void *worker(void *arg)
{
	(void)arg;
	usleep(2000);
	if (handed) {
		weft_create(40, "request");
		weft_label(40, "GET /handed");
		weft_run(40);
		usleep(2000);
	} else
		weft_run(30);
	usleep(2000);
	weft_run(31);
	return NULL;
}
int main(int argc, char **argv)
{
	handed = argc > 1 && !strcmp(argv[1], "b");
	weft_run(1);
	weft_label(1, "loop");
	weft_create(30, "request");
	weft_label(30, "GET /moved");
	weft_create(31, "request");
	weft_label(31, "GET /worker");
	if (handed) {
		weft_create(41, "request");
		weft_label(41, "GET /waits");
	} else
		weft_run(30);
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	if (handed) {
		usleep(3000);
		weft_run(40);
		usleep(1000);
		weft_run(41);
		weft_try_read(40);
		weft_run(1);
	}
	return 0;
}
EOF
	# shellcheck disable=SC2086
	cc -DWEFT_ENABLE -I"$WEFT_SRC/include" two.c -L"$WEFT_BUILD" -lweft \
		-Wl,-rpath,"$WEFT_BUILD" -pthread -o two ${WEFT_TEST_CFLAGS:-} || die "cc two.c"
	"$W" record -o A -- ./two a >/dev/null 2>rec.txt || die "record a: $(cat rec.txt)"
	"$W" ps --json A >a.json || die "ps a"
	j a.json "pid=d['processes'][0]['pid']
os={('loop' if o['tid']==pid else 'worker'):o for o in d['os_threads']}
assert len(os)==2 and os['loop']['running']['title']=='GET /moved' and os['worker']['running']['title']=='GET /worker', d['os_threads']"
	ps_same A
	"$W" record -o B -- ./two b >/dev/null 2>rec.txt || die "record b: $(cat rec.txt)"
	"$W" ps --json B >b.json || die "ps b"
	j b.json "p={x['title']:x for x in d['pending']}
assert sorted(p)==['GET /handed','GET /moved','GET /waits','GET /worker','loop'], sorted(p)
w=p['GET /waits']
assert w['waits_on']['title']=='GET /handed' and w['verdict']=='never resolved', w
assert w['pending_ns']==d['last_event_ns']-w['created_ns'], (w, d['last_event_ns'])
assert w['waiting_ns'] > 0 and w['created_ns'] + w['pending_ns'] - w['waiting_ns'] > p['GET /handed']['created_ns'], w"
	ps_same B
}

# What a pass that keeps only the present could get wrong (ps's, weft ps
# --model's: the same), in a 64 KiB ring that overwrote its beginning: a
# connection whose creation the ring lost, named again after; an id
# created again after it ended (the new thread, with the new label); a
# signal to an ended id (no thread made up); a label given long after the
# creation; a request waiting on a reply that had already resolved (the
# chain ends at the reply, which resolved, never read); and the same in
# a run of three processes, each thread with its own process.
t_lean_scan() {
	cat >lean.c <<'EOF'
#include <weft/weft.h>
#include <stdio.h>
int main(void)
{
	weft_run(1);
	weft_label(1, "loop");
	weft_create(60, "conn");
	weft_label(60, "early label");
	for (int i = 0; i < 20000; i++) {
		weft_create(1000 + (uint64_t)i, "tmp");
		weft_resolve(1000 + (uint64_t)i);
	}
	weft_label(1, "loop"); /* (its first label overwritten) */
	weft_create(50, "request");
	weft_label(50, "GET /first");
	weft_resolve(50);
	weft_create(50, "request");
	weft_label(50, "GET /again");
	weft_create(51, "timer");
	weft_resolve(51);
	weft_create(70, "job");
	weft_label(70, "first name");
	weft_create(80, "request");
	weft_label(80, "GET /waits-ended");
	weft_create(81, "reply");
	weft_resolve(81);
	weft_run(80);
	weft_try_read(81);
	weft_run(1);
	weft_signal(51);
	weft_label(70, "relabelled");
	weft_label(60, "late label");
	weft_run(60);
	weft_run(1);
	return 0;
}
EOF
	# shellcheck disable=SC2086
	cc -DWEFT_ENABLE -I"$WEFT_SRC/include" lean.c -L"$WEFT_BUILD" -lweft \
		-Wl,-rpath,"$WEFT_BUILD" -o lean ${WEFT_TEST_CFLAGS:-} || die "cc lean.c"
	WEFT_FILE=l.weft WEFT_SIZE=64K ./lean || die "lean"
	"$W" ps --json l.weft >l.json 2>/dev/null || die "ps l.weft"
	j l.json "p={x['title']:x for x in d['pending']}
assert sorted(p)==['GET /again','GET /waits-ended','late label','loop','relabelled'], sorted(p)
assert p['late label']['kind']=='' and p['late label']['creator'] is None, p['late label']
assert p['GET /again']['kind']=='request' and p['relabelled']['kind']=='job', p
w=p['GET /waits-ended']
assert w['waits_on']['title']=='reply 0x51' and w['waits_on']['end']=='resolved' and w['verdict']=='lost wake-up', w"
	"$W" ps l.weft >l.txt 2>/dev/null || die "ps l.weft"
	grep -q "since .* s: waits on reply 0x51 (0x51, reply) for [0-9.]* [nu]s \[lost wake-up\]$" l.txt || die "$(cat l.txt)"
	ps_same l.weft
	"$W" record -o R3 --size 64K -- sh -c './lean & ./lean & ./lean; wait' >/dev/null 2>rec.txt || die "record: $(cat rec.txt)"
	"$W" ps --json R3 >r3.json 2>/dev/null || die "ps R3"
	j r3.json "pids=sorted(x['pid'] for x in d['processes'] if x['comm']=='lean')
assert len(pids)==3, d['processes']
for t in ('GET /again','late label','relabelled','GET /waits-ended'):
    got=sorted(x['pid'] for x in d['pending'] if x['title']==t)
    assert got==pids, (t, got, pids)"
	ps_same R3
}


t_bad() {
	"$W" ps 2>/dev/null; [ $? = 2 ] || die "no operand: exit not 2"
	"$W" ps 99999999999 2>err.txt; [ $? = 2 ] || die "a pid out of range: exit not 2"
	"$W" ps 0 2>err.txt; [ $? = 2 ] || die "pid 0: exit not 2"
	"$W" ps 1 2 2>err.txt; [ $? = 2 ] || die "two pids: exit not 2"
	sleep 5 &
	local sp=$!
	"$W" ps "$sp" 2>err.txt; local rc=$?
	kill $sp
	[ $rc = 1 ] && grep -q "^weft: process $sp: not traced" err.txt || die "untraced pid: $rc $(cat err.txt)"
	"$W" ps nosuch.weft 2>err.txt; [ $? = 1 ] || die "missing file: exit"
	head -c 100 /dev/urandom >junk.weft
	"$W" ps junk.weft 2>err.txt; [ $? = 1 ] || die "junk: exit"
}

export W EX T WEFT_SRC WEFT_BUILD
run "the ARP hang: pending threads, what each waits on, the tree, --limit, --json" t_arp
run "a live process by PID (not stopped), then killed" t_live_then_killed
run "a run of three processes" t_run_of_three
run "memcached with a stalled client: the read pending, the loops idle in poll" t_memcached_stalled
run "a server-shaped trace: the output exactly as it was" t_server_exact
run "threads that ended before the end are not listed" t_finished_not_listed
run "across processes: a read answered by another process not listed, one waiting on it listed" t_cross_process
run "async threads that run on two OS threads: the OS thread's last run, a wait to the last run's OS thread's end" t_two_os_threads
run "what a lean pass could get wrong: a lost creation, an id made again, a late label, a wait on an ended thread, three processes" t_lean_scan
run "bad operands" t_bad
tap_done
