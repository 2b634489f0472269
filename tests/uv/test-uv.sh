#!/bin/bash
# SPDX-License-Identifier: MIT
# test-uv.sh - `weft record` on real libuv programs: the project's examples
# (a TCP echo over loopback; timers, fs, threadpool work and async sends;
# a callback in each phase of a loop iteration)
# and ctest, from Debian's cmake, which nobody here wrote.  TAP output.
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
W=$WEFT_BIN
# Under the sanitizer build the preloaded shim brings the ASan runtime into
# programs not built with it (sh, ctest): let it load late, and do not
# report those programs' own leaks.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"
EX=$WEFT_BUILD/examples
. "$WEFT_SRC/tests/tap.sh"
tap_init uv "$@"
check() { python3 "$WEFT_SRC/tests/uv/uv_check.py" "$W" "$@"; }

t_echo() {
	"$EX/uv-echo" >plain.txt || die "uv-echo failed"
	"$W" record -o e.weft --mode discard --size 64M -- "$EX/uv-echo" >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
	cmp plain.txt traced.txt || die "output changed: $(diff plain.txt traced.txt)"
	grep -q "the run is in 'e.weft':" rec.txt && grep -q "^weft:   pid [0-9]* uv-echo: [0-9]* events" rec.txt ||
		die "record did not say where the trace went: $(cat rec.txt)"
	"$W" info e.weft | grep -q "0 packets lost, 0 torn, 0 corrupt; 0 events discarded" || die "losses"
	check echo e.weft
}

# uv.loop_busy_us: how long the loop was away from its wait, recorded at
# the wait (after its idle event) when it changed: the time from the
# resume before to that idle, in microseconds (the shim's rate is its
# own measure of the clock: within 5 % and 2 us of the reader's).
t_busy_counter() {
	local b=$WEFT_BUILD/bench/uv-bench
	[ -x "$b" ] || { echo "no bench/uv-bench"; exit 77; }
	"$W" record -o b.weft -- "$b" 0.3 3000 >out.txt 2>rec.txt || die "record: $(cat rec.txt)"
	grep -q " round trips" out.txt || die "uv-bench: $(cat out.txt)"
	"$W" dump b.weft >d.txt || die "dump"
	awk '
		/ resume by=/ { res = $1 + 0; seen = 1 }
		/ idle reason="poll"/ { idle = $1 + 0; gap = seen ? (idle - res) * 1e6 : -1 }
		/ counter_set counter="uv.loop_busy_us"/ {
			v = $0; sub(/.* value=/, "", v); v = v + 0
			n++
			if (gap < 0) { print "a busy value with no resume before: " $0; bad = 1; exit }
			d = v - gap; if (d < 0) d = -d
			if (d > 2 + gap * 0.05) { printf "busy %d us, the trace says %.2f: %s\n", v, gap, $0; bad = 1; exit }
		}
		END { if (!bad && n < 100) { print "only " n " busy values"; bad = 1 } exit bad }' d.txt >awk.txt ||
		die "$(cat awk.txt)"
}

t_misc() {
	"$EX/uv-misc" >plain.txt || die "uv-misc failed"
	"$W" record -o m.weft --mode discard --size 64M -- "$EX/uv-misc" >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
	cmp plain.txt traced.txt || die "output changed"
	check misc m.weft
}

t_edge() {
	"$EX/uv-edge" >plain.txt || die "uv-edge failed"
	"$W" record -o ed.weft --mode discard -- "$EX/uv-edge" >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
	cmp plain.txt traced.txt || die "output changed"
	check edge ed.weft/ring
	# the forked child traced its own loop into a ring of its own
	local child; child=$(ls ed.weft/ring.* | head -1)
	[ -n "$child" ] || die "no child trace: $(cat rec.txt)"
	grep -q "^weft:     pid ${child##*.} uv-edge: " rec.txt || die "$(cat rec.txt)"
	"$W" dump "$child" | grep -q 'text="timer 1 ms -> on_second_loop_timer"' || die "child trace"
	"$W" dump "$child" | grep -q 'stat /' && die "the child's trace has the parent's events"
	true
}

t_ctest() {
	command -v ctest >/dev/null || { echo "no ctest"; exit 1; }
	mkdir -p ct && cd ct
	printf 'add_test(hello "/bin/echo" "hello world")\nadd_test(two "/bin/sh" "-c" "sleep 0.05; echo second")\n' >CTestTestfile.cmake
	ctest -V 2>&1 | grep -E "^[0-9]+: (hello world|second)$|tests passed" | sort >plain.txt
	# (in sanitizer builds the shim carries the ASan runtime into ctest,
	# which is not built with it: let it load late, and ignore ctest's
	# own leaks)
	"$W" record -o ct.weft --mode discard --size 64M -- ctest -V >traced.raw 2>rec.txt || die "record: $(cat rec.txt)"
	grep -E "^[0-9]+: (hello world|second)$|tests passed" traced.raw | sort >traced.txt
	[ -s plain.txt ] && cmp plain.txt traced.txt || die "ctest output changed: $(cat traced.txt)"
	"$W" info ct.weft | grep -q "0 packets lost, 0 torn, 0 corrupt; 0 events discarded" || die "losses"
	# every request and handle activation of a program that exits
	# cleanly ended: nothing is left pending
	"$W" why --all ct.weft >why.txt 2>&1 || die "why --all: $(head -20 why.txt)"
	grep -qE "^nothing is wrong: [1-9][0-9]* pending-or-not threads checked, all resolved$" why.txt || die "$(head -20 why.txt)"
	check ctest ct.weft
}

t_lost_wakeup() {
	"$W" record -o bad.weft -- "$EX/lost-wakeup" bad >out.txt 2>/dev/null; [ $? = 1 ] || die "bad run should exit 1 (status passed through)"
	"$W" why bad.weft >why.txt; [ $? = 1 ] || die "why should find the hang"
	grep -q "^verdict: lost wake-up: ARP response (0x4, condition) was signalled at .* by timer 1 ms -> on_response (0x[0-9a-f]*, uv_timer_t), before TCP connect began waiting on it" why.txt || die "$(cat why.txt)"
	"$W" record -o good.weft -- "$EX/lost-wakeup" good >/dev/null 2>&1 || die "good run failed"
	"$W" why good.weft >why.txt || die "good: $(cat why.txt)"
}

# weft why --path says what weft why and the picture say: on the lost
# wake-up the condition was pending, nothing woke it (not "ready" while
# the loop sat in poll); no segment is "ready" while the loop sat idle in
# poll (whether the timers fire after a poll depends on the machine's
# load: tests/unit/test-path.c pins that on the manual clock).  The ARP hang (by hand, no libuv) says the same
# of its condition.  A request the loop resolves waited on the loop, held
# up by the callback that made it.
t_path_words() {
	"$W" record -o bad.weft -- "$EX/lost-wakeup" bad >/dev/null 2>&1; [ $? = 1 ] || die "bad run should exit 1"
	"$W" why bad.weft --path "TCP connect" >p.txt 2>&1 || die "why --path: $(cat p.txt)"
	grep -qE "^     [0-9][0-9. ]* s +[0-9][0-9. ]* [num]?s  ARP response \(0x4, condition\) waiting \(pending: nothing signalled, resolved or failed it since\)$" p.txt ||
		die "the condition: $(cat p.txt)"
	grep -q "condition) ready" p.txt && die "the condition ready: $(cat p.txt)"
	"$W" why bad.weft --path "TCP connect" --json >p.json || die "--json"
	"$W" dump bad.weft >d.txt || die "dump"
	python3 - <<'PY' || exit 1
import json
p = json.load(open('p.json'))
# the loop's idle times: from an idle event to its OS thread's next event
idle, start = [], {}
for l in open('d.txt'):
    f = l.split()
    t, s = round(float(f[0]) * 1e9), f[1]
    if s in start:
        idle.append((start.pop(s), t))
    if f[2] == 'idle':
        start[s] = t
assert idle, "no idle time in the trace"
ready = [g for g in p['segments'] if g['state'] == 'ready']
assert ready, 'no ready segment'
for g in ready:
    for a, b in idle:
        # (the dump's times are rounded to the ns: one of slack)
        assert g['t1_ns'] <= a + 1 or g['t0_ns'] >= b - 1, ('ready while idle', g, (a, b))
waits = [g for g in p['segments'] if g['state'] == 'waiting' and g['on'] is None]
assert any('idle' not in g and g['thread']['kind'] == 'condition' for g in waits), waits
PY
	WEFT_FILE=arp.weft "$EX/arp" bad >/dev/null 2>&1
	"$W" why arp.weft --path "TCP connect" >a.txt 2>&1 || die "arp: $(cat a.txt)"
	grep -qE "^  [0-9][0-9. ]* s +[0-9][0-9. ]* [nu]s  waiting on ARP response \(0x4, condition\)$" a.txt || die "arp: $(cat a.txt)"
	grep -qE "^     [0-9][0-9. ]* s +[0-9][0-9. ]* [nu]s  ARP response \(0x4, condition\) waiting \(pending: nothing signalled, resolved or failed it since\)$" a.txt ||
		die "arp: $(cat a.txt)"
	grep -q "condition) ready" a.txt && die "arp: the condition ready: $(cat a.txt)"
	"$W" record -o m.weft -- "$EX/uv-misc" >/dev/null 2>&1 || die "uv-misc"
	"$W" why m.weft --path "write fd" >w.txt 2>&1 || die "write: $(cat w.txt)"
	grep -qE "^  [0-9][0-9. ]* s +[0-9][0-9. ]* [num]?s  waiting on uv loop .*uv_loop_t\)$" w.txt || die "write: $(cat w.txt)"
	sed -n 8p w.txt | grep -qE "^     [0-9][0-9. ]* s +[0-9][0-9. ]* [num]?s  uv loop .*uv_loop_t\) ready \(ran instead: open .* -> on_open \(0x[0-9a-f]+, uv_fs_t\)\)$" ||
		die "write: not held up by on_open: $(cat w.txt)"
}

t_signals_and_status() {
	"$W" record -o x.weft -- sh -c 'exit 3' 2>/dev/null; [ $? = 3 ] || die "exit status not passed through"
	"$W" record -o s.weft -- "$EX/ticker" 30 >/dev/null 2>rec.txt &
	local rp=$!
	sleep 1
	kill -TERM $rp
	wait $rp; local rc=$?
	[ $rc = 143 ] || die "SIGTERM: exit $rc, want 143"
	grep -q "on signal 15" rec.txt || die "$(cat rec.txt)"
	"$W" info s.weft >i.txt || die "trace unreadable after SIGTERM: $(cat i.txt)"
	grep -q "0 corrupt" i.txt || die "$(cat i.txt)"
	[ "$("$W" dump s.weft | grep -c 'kind="tick"')" -gt 100 ] || die "too few ticks"
	"$W" record -o y.weft -- /nonexistent/prog 2>e.txt; [ $? = 127 ] || die "missing program"
	grep -q "cannot run '/nonexistent/prog'" e.txt || die "$(cat e.txt)"
}

# Each write's label is made once and interned in the trace's name table;
# 3000 different labels fill it (64 KiB of strings), and the shim's label
# arena is limited here to 4 KiB: every label must still be right, whether
# it went as a name or as text.
t_many_labels() {
	"$EX/uv-labels" 3000 >plain.txt || die "uv-labels failed"
	local mode
	for mode in names arena; do
		local env=""
		[ $mode = arena ] && env="WEFT_UV_LABEL_ARENA=4096"
		env $env "$W" record -o l.weft --mode discard --size 64M -- "$EX/uv-labels" 3000 >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
		cmp plain.txt traced.txt || die "output changed"
		"$W" info l.weft >info.txt
		grep -q "0 events discarded.*0 names not interned" info.txt || die "$(cat info.txt)"
		"$W" dump l.weft | python3 "$WEFT_SRC/tests/uv/labels_check.py" $mode || exit 1
	done
}

# One callback in each phase of a loop iteration (timers, pending, idle,
# prepare, poll, check, closing), with idle/prepare/check handles and UDP:
# each runs in its phase, and weft stats breaks the loop's time down by
# phase.
t_phases() {
	"$EX/uv-phases" >plain.txt || die "uv-phases failed"
	"$W" record -o p.weft --mode discard -- "$EX/uv-phases" >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
	cmp plain.txt traced.txt || die "output changed: $(diff plain.txt traced.txt)"
	check phases p.weft
	"$W" stats --json p.weft | python3 -c '
import json, sys
ph = json.load(sys.stdin)["loop_phases"]
names = [p["phase"] for p in ph]
assert names == ["timers", "pending", "idle", "prepare", "poll", "check", "closing"], names
assert all(p["count"] >= 1 and p["total_ns"] > 0 for p in ph), ph
poll = ph[4]
assert poll["longest"]["longest_run"]["thread"].endswith("-> on_read") or \
    poll["longest"]["longest_run"]["thread"].startswith("uv loop"), poll
' || die "stats: $("$W" stats p.weft)"
}

# C++ callbacks are named as people read them: demangled, without their
# parameter lists (a C program here, which has no C++ runtime loaded).
t_mangled() {
	"$EX/uv-mangled" >plain.txt || die "uv-mangled failed"
	"$W" record -o cx.weft -- "$EX/uv-mangled" >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
	cmp plain.txt traced.txt || die "output changed"
	check mangled cx.weft
	# the two names cut to 95 bytes are counted, once each (the 95-byte
	# one is not): one label each
	"$W" info cx.weft | grep -q "; 2 texts truncated;" || die "truncations: $("$W" info cx.weft | grep losses)"
}

# knot-resolver, from Debian, answers UDP queries on 127.0.0.1 from a
# local rule (a hint) with its own sendmmsg on the socket of a uv_udp_t:
# I/O libuv does not see, recorded as requests of the callback that made
# them.  Its answers are the same traced.
kr_ask() { # port name: one A query, the answer's code and address
	python3 - "$1" "$2" <<'PY'
import socket, struct, sys
port, name = int(sys.argv[1]), sys.argv[2]
q = struct.pack('>HHHHHH', 0x1234, 0x0100, 1, 0, 0, 0)
for part in name.strip('.').split('.'):
    q += bytes([len(part)]) + part.encode()
q += b'\0' + struct.pack('>HH', 1, 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
for _ in range(10):
    try:
        s.sendto(q, ('127.0.0.1', port))
        r, _ = s.recvfrom(4096)
        break
    except socket.timeout:
        continue
else:
    sys.exit('no answer')
flags, qd, an = struct.unpack('>HHH', r[2:8])
print(name, 'rcode', flags & 15, 'answers', an, '.'.join(str(b) for b in r[-4:]) if an else '-')
PY
}
t_knot() {
	command -v kresd >/dev/null || die "kresd missing (knot-resolver)"
	local p pid mode
	p=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	mkdir -p kr && cd kr || die "kr"
	cat >config.lua <<LUA
net.listen('127.0.0.1', $p, { kind = 'dns' })
modules = { 'hints > iterate' }
hints['test.weft.'] = '192.0.2.7'
hints['other.weft.'] = '192.0.2.8'
cache.size = 10 * MB
LUA
	for mode in plain traced; do
		if [ $mode = plain ]; then
			timeout 60 kresd -n -c config.lua . >kresd.log 2>&1 &
		else
			timeout 60 "$W" record -o k.weft --mode discard -- kresd -n -c config.lua . >kresd.log 2>rec.txt &
		fi
		pid=$!
		{ kr_ask $p test.weft && kr_ask $p other.weft && kr_ask $p test.weft; } >$mode.txt 2>&1
		kill -TERM $pid; wait $pid
	done
	grep -q "test.weft rcode 0 answers 1 192.0.2.7" plain.txt || die "kresd: $(cat plain.txt kresd.log)"
	cmp plain.txt traced.txt || die "answers changed: $(diff plain.txt traced.txt)"
	grep -q "loops: libuv" rec.txt || die "$(cat rec.txt)"
	check knot "$(ls -S k.weft/ring k.weft/ring.* 2>/dev/null | head -1)" 3
}

# Handles that come and go, as a server's connections do: 100,000 timers
# at 100,000 addresses one after another are every one traced (the side
# table once ran out of room after some 35,000 in a process's life), and
# with 60,000 armed at once, those the table has no room for are counted
# (the counter weft.untraced_handles) and end at once, none left pending.
t_churn() {
	"$W" record -o ch.weft --size 256M -- "$EX/uv-churn" seq 100000 >out.txt 2>rec.txt || die "record: $(cat rec.txt)"
	[ "$(cat out.txt)" = "100000 timers" ] || die "output: $(cat out.txt)"
	"$W" stats ch.weft >st.txt || die "stats"
	grep -Eq "^  uv_timer_t +100000 +0 +0 " st.txt || die "$(grep uv_timer_t st.txt)"
	"$W" dump ch.weft | grep -q untraced && die "a handle untraced"
	"$W" record -o li.weft --size 256M -- "$EX/uv-churn" live 60000 >out.txt 2>rec.txt || die "record: $(cat rec.txt)"
	[ "$(cat out.txt)" = "60000 timers" ] || die "output: $(cat out.txt)"
	"$W" stats li.weft >st.txt || die "stats"
	grep -Eq "^  uv_timer_t +60000 +0 +0 " st.txt || die "$(grep uv_timer_t st.txt)"
	local n
	n=$("$W" dump li.weft | grep -c 'counter_add counter="weft.untraced_handles" delta=1')
	# (timers beyond the table's 49,152, and closes while it is full: how
	# many depends on the order they fire in, slower under ASan)
	[ "$n" -gt 5000 ] && [ "$n" -lt 60000 ] || die "untraced: $n"
}

# libuv loaded with dlopen() after start: traced when the program finds
# its functions in the process (RTLD_GLOBAL, dlsym(RTLD_DEFAULT): what
# code linked against it binds to); not when it asks the handle, which
# reaches libuv's own functions (the limit docs/libuv.md states).
t_dlopen() {
	"$EX/uv-dlopen" global >plain.txt || die "uv-dlopen failed"
	"$W" record -o dg.weft -- "$EX/uv-dlopen" global >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
	cmp plain.txt traced.txt || die "output changed"
	grep -q "traced loops: libuv;" rec.txt || die "$(cat rec.txt)"
	"$W" dump dg.weft | grep -q 'resolve_run target=.* by=' || die "no timer fired: $("$W" dump dg.weft)"
	"$W" dump dg.weft | grep -q 'kind="uv_timer_t"' || die "no timer"
	"$W" record -o dh.weft -- "$EX/uv-dlopen" >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
	cmp plain.txt traced.txt || die "output changed (handle)"
	grep -q "traced loops: none;" rec.txt || die "through the handle, traced: $(cat rec.txt)"
}

# Programs built with sanitizers (docs/libuv.md, "Sanitizers"), built
# here: uv-misc with gcc's or clang's AddressSanitizer, UBSan or
# ThreadSanitizer runs under weft record as it runs alone (its output and
# status), and its libuv activity is recorded (the same exact check as
# t_misc).  gcc's ASan runtime is a shared library that insists on coming
# first: weft record lets it come after the preload (the ASAN_OPTIONS this
# script exports for its own build is left out here, so that weft record
# must set it).
san_env() { # the environment for a sanitized program here
	if [ -n "$(preload_sans)" ]; then
		# (this build's preload brings its own runtime into every
		# process: not their leaks)
		echo ASAN_OPTIONS=detect_leaks=0
	else
		echo ASAN_OPTIONS=
	fi
}
preload_sans() { # the sanitizer runtimes this build's preload needs
	readelf -d "$WEFT_BUILD/libweft-preload.so" 2>/dev/null |
		sed -n 's/.*(NEEDED).*\[\(lib[a-z]*san\)\..*/\1/p' | tr '\n' ' '
}
# Exits 77 when this build's preload (built with a sanitizer: the suite's
# asan build) cannot share a process with cc's runtime for san.
san_skip() { # cc san
	local p; p=$(preload_sans)
	[ -z "$p" ] && return 0
	case "$1 $2" in
	"gcc address" | "gcc undefined") return 0 ;;
	esac
	echo "this build's preload is itself built with $p: $1's -fsanitize=$2 runtime cannot join it in one process"
	exit 77
}
san_build() { # cc san source out
	command -v "$1" >/dev/null || { echo "no $1"; exit 77; }
	"$1" -fsanitize="$2" -g -rdynamic "$3" -o "$4" $(pkg-config --cflags --libs libuv) -lpthread 2>cc.txt ||
		die "$1 -fsanitize=$2: $(cat cc.txt)"
}
t_san() { # cc san
	san_skip "$1" "$2"
	local b=misc-$1-$2 pid
	san_build "$1" "$2" "$WEFT_SRC/examples/uv-misc.c" $b
	env $(san_env) ./$b >plain.txt 2>plain.err; local prc=$?
	[ $prc = 0 ] && [ -s plain.txt ] || die "$b alone: status $prc: $(cat plain.err)"
	env $(san_env) "$W" record -o s.weft -- ./$b >traced.txt 2>rec.txt; local trc=$?
	[ $trc = $prc ] || die "status $trc under weft record, $prc alone: $(cat rec.txt)"
	cmp plain.txt traced.txt || die "output changed: $(diff plain.txt traced.txt)"
	! grep -q "Sanitizer" rec.txt || die "the sanitizer spoke: $(cat rec.txt)"
	grep -qE "^weft:   pid [0-9]+ $b: [0-9]+ events, 4 OS threads, exited with status 0, loops: libuv$" rec.txt ||
		die "$(cat rec.txt)"
	check misc s.weft
}
t_san_gcc_address() { t_san gcc address; }
t_san_clang_address() { t_san clang address; }
t_san_gcc_undefined() { t_san gcc undefined; }
t_san_clang_undefined() { t_san clang undefined; }
t_san_gcc_thread() { t_san gcc thread; }
t_san_clang_thread() { t_san clang thread; }

# ASan still checks what goes through a function the preload also wraps
# (write: the preload's wrapper comes first and passes it to ASan's): a
# write of 16 bytes from an 8-byte block is reported, with the status, as
# without weft.
t_san_asan_still_checks() {
	local cc
	cat >over.c <<'EOF'
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(void)
{
	char *p = malloc(8);
	memcpy(p, "12345678", 8);
	return write(1, p, 16) == 16 ? 0 : 2;
}
EOF
	for cc in gcc clang; do
		if [ -n "$(preload_sans)" ] && [ $cc = clang ]; then
			continue # (san_skip's reason)
		fi
		san_build $cc address over.c over-$cc
		env $(san_env) ./over-$cc >/dev/null 2>plain.err; local prc=$?
		[ $prc = 1 ] && grep -q "ERROR: AddressSanitizer: heap-buffer-overflow" plain.err &&
			grep -q "READ of size 16 at" plain.err || die "$cc alone: status $prc: $(cat plain.err)"
		env $(san_env) "$W" record -o o.weft -- ./over-$cc >/dev/null 2>traced.err; local trc=$?
		[ $trc = 1 ] || die "$cc traced: status $trc: $(cat traced.err)"
		grep -q "ERROR: AddressSanitizer: heap-buffer-overflow" traced.err &&
			grep -q "READ of size 16 at" traced.err || die "$cc traced: $(cat traced.err)"
		grep -qE "^weft: ./over-$cc exited with status 1;" traced.err || die "$(cat traced.err)"
	done
}

# A tree of both: sh runs a gcc ASan program, which runs (system: sh -c)
# a clang UBSan uv-misc and exits with 4: each sees the environment the
# others inherit, and runs as it does alone.
t_san_tree() {
	san_skip clang undefined
	cat >sys.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
int main(int argc, char **argv)
{
	int s = system(argv[1]);
	printf("child status %d\n", WEXITSTATUS(s));
	fflush(stdout);
	return 3;
}
EOF
	san_build gcc address sys.c sys-asan
	san_build clang undefined "$WEFT_SRC/examples/uv-misc.c" misc-ubsan
	local cmd="./sys-asan './misc-ubsan | tail -1; exit 4'; echo sys \$?"
	env $(san_env) sh -c "$cmd" >plain.txt 2>plain.err || die "alone: $(cat plain.err)"
	[ "$(sed -n 2,3p plain.txt)" = "child status 4
sys 3" ] || die "alone: $(cat plain.txt)"
	env $(san_env) "$W" record -o t.weft -- sh -c "$cmd" >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
	cmp plain.txt traced.txt || die "output changed: $(diff plain.txt traced.txt)"
	grep -qE "^weft: +pid [0-9]+ misc-ubsan: [0-9]+ events, 4 OS threads, exited with status 0, loops: libuv$" rec.txt ||
		die "$(cat rec.txt)"
	"$W" info t.weft >info.txt || die "info"
	grep -qE "^ +[0-9]+ sys-asan: exited with status 3, " info.txt || die "$(cat info.txt)"
	grep -qE "^ +[0-9]+ sh: exited with status 4, " info.txt || die "$(cat info.txt)"
}

export W EX T WEFT_SRC WEFT_BUILD
run echo_server_and_client t_echo
run timers_fs_work_async t_misc
run edge_cases t_edge
run busy_counter t_busy_counter
run ctest_from_debian t_ctest
run lost_wakeup t_lost_wakeup
run path_words t_path_words
run signals_and_status t_signals_and_status
run many_labels t_many_labels
run loop_phases t_phases
run cxx_names_demangled t_mangled
run knot_resolver_own_sendmmsg t_knot
run libuv_loaded_with_dlopen t_dlopen
run handles_come_and_go t_churn
run san_gcc_address t_san_gcc_address
run san_clang_address t_san_clang_address
run san_gcc_undefined t_san_gcc_undefined
run san_clang_undefined t_san_clang_undefined
run san_gcc_thread t_san_gcc_thread
run san_clang_thread t_san_clang_thread
run san_asan_still_checks t_san_asan_still_checks
run san_tree t_san_tree
tap_done
