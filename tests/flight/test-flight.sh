#!/bin/bash
# SPDX-License-Identifier: MIT
# test-flight.sh - the flight recorder (weft watch, weft mark, weft record
# --flight; docs/flight.md): each trigger kind on a small program
# (scenes.c) fires once where it should and nowhere else; the snapshot's
# exact contents (what fired, the note, the threads upstream kept after
# the ring overwrote their creation, nothing unrelated); the cool-down,
# the hourly limit and the disk budget, each skip counted; a grammar error
# names the token; SIGKILL of the watcher leaves no torn snapshot.  TAP.
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
export W=$WEFT_BIN
export P=$WEFT_BUILD/tests/flight/flight-scenes
. "$WEFT_SRC/tests/tap.sh"
tap_init flight "$@"
TAP_TIMEOUT=120
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"

wait_for() { # file
	local i
	for i in $(seq 1000); do
		[ -e "$1" ] && return 0
		sleep 0.01
	done
	die "$1 never came"
}

# Runs SCENE recording into D/ring.weft (a 64 KiB ring) with weft watch
# following it into D/snaps with the options given; returns when both
# are done (the watcher stops when the program does).
scene() { # scene dir watch-options...
	local s=$1 d=$2 pp wp
	shift 2
	mkdir -p "$d"
	WEFT_FILE=$d/ring.weft WEFT_SIZE=64K FLIGHT_GO=$d/go \
		FLIGHT_DONE=$d/done "$P" "$s" &
	pp=$!
	wait_for "$d/ring.weft"
	"$W" watch "$d/ring.weft" -o "$d/snaps" "$@" 2>"$d/watch.err" &
	wp=$!
	wait_for "$d/snaps/flight.log"
	touch "$d/go"
	[ -n "${SCENE_DURING:-}" ] && eval "$SCENE_DURING"
	wait $pp || die "the program failed"
	wait $wp || die "the watcher failed: $(cat "$d/watch.err")"
}

# The lines of flight.log that say a snapshot was saved (or skipped).
saved() { grep -c '^saved ' "$1/snaps/flight.log"; }
skipped() { grep -c "^skipped .*reason=$2" "$1/snaps/flight.log"; }

t_grammar() {
	local e
	e=$("$W" watch x.weft -o s --trigger 'pending(kind=uv_write_t > 100ms' 2>&1)
	[ $? = 2 ] || die "a bad trigger: not a usage error"
	[ "$e" = "weft: bad trigger: expected ')' after the selector
  pending(kind=uv_write_t > 100ms
                          ^" ] || die "wrong message: $e"
	e=$("$W" watch x.weft -o s --trigger 'pending(label=GET) > 1s' 2>&1)
	[ "$e" = "weft: bad trigger: expected a quoted glob (label=\"GET /api/*\"), not GET
  pending(label=GET) > 1s
                ^^^" ] || die "wrong message: $e"
	e=$("$W" watch x.weft -o s --trigger 'callback > 100' 2>&1)
	[ "$e" = "weft: bad trigger: the duration needs its unit (ns, us, ms, s)
  callback > 100
             ^^^" ] || die "wrong message: $e"
	e=$("$W" watch x.weft -o s --trigger 'counter(queue) => 3' 2>&1)
	[ "$e" = "weft: bad trigger: expected >, >=, <, <= or ==, not =
  counter(queue) => 3
                 ^" ] || die "wrong message: $e"
	e=$("$W" watch x.weft -o s --trigger 'pendng(kind=x) > 1s' 2>&1)
	[ "$e" = "weft: bad trigger: unknown trigger 'pendng' (pending, callback, iteration, phase, failed, counter, unresolved_at_exit, lost_wakeup, mark)
  pendng(kind=x) > 1s
  ^^^^^^" ] || die "wrong message: $e"
	e=$("$W" watch x.weft -o s --trigger 'failed(message="x' 2>&1)
	[ "$e" = "weft: bad trigger: a string that does not end (a '\"' is missing)
  failed(message=\"x
                 ^^" ] || die "wrong message: $e"
	e=$("$W" watch x.weft -o s --trigger 'phase(nam=poll) > 1s' 2>&1)
	[ "$e" = "weft: bad trigger: expected name=, not nam
  phase(nam=poll) > 1s
        ^^^" ] || die "wrong message: $e"
	e=$("$W" watch x.weft -o s --trigger 'lost_wakeup 1s' 2>&1)
	[ "$e" = "weft: bad trigger: unexpected 1s after the trigger
  lost_wakeup 1s
              ^^" ] || die "wrong message: $e"
	e=$("$W" watch x.weft -o s --trigger 'mark extra' 2>&1)
	[ "$e" = "weft: bad trigger: unexpected extra after the trigger
  mark extra
       ^^^^^" ] || die "wrong message: $e"
	# every kind parses (a file that is not there: the error is then
	# about the file, after the triggers were accepted)
	e=$("$W" watch nothere.weft -o s -t 'pending(kind=a, label="b*") > 1ms' \
		-t 'callback > 2s' -t 'iteration > 1.5ms' -t failed \
		-t 'phase > 3ms' -t 'phase(name="p*") > 1s' -t lost_wakeup -t 'lost_wakeup > 1s' \
		-t 'failed(message="*")' -t 'counter(q) >= -3' \
		-t 'counter("a b") == 1e3' -t unresolved_at_exit -t mark 2>&1)
	[ $? = 1 ] || die "good triggers refused: $e"
	case "$e" in *"cannot watch 'nothere.weft'"*) ;; *) die "$e" ;; esac
}

# The cause kept: a request pending 400 ms whose connection, listener and
# pool were created long before, their creation overwritten in the small
# ring by the time it fires.
# What the pending scene's snapshot keeps on its weft-flight OS thread:
# the creation and label of the connection, the pool and the listener
# (a hub: not walked through to main), each as its creator's.
want_kept() {
	printf '%s\n' \
		'#1/0 run thread=0x5 by=0x0' \
		'#1/0 create child=0x1 kind="server" by=0x5' \
		'#1/0 run thread=0x0 by=0x5' \
		'#1/0 run thread=0x5 by=0x0' \
		'#1/0 label thread=0x1 truncated=0 text="listener" by=0x5' \
		'#1/0 run thread=0x0 by=0x5' \
		'#1/0 run thread=0x1 by=0x0' \
		'#1/0 create child=0x2 kind="db" by=0x1' \
		'#1/0 run thread=0x0 by=0x1' \
		'#1/0 run thread=0x1 by=0x0' \
		'#1/0 label thread=0x2 truncated=0 text="db pool" by=0x1' \
		'#1/0 run thread=0x0 by=0x1' \
		'#1/0 run thread=0x1 by=0x0' \
		'#1/0 create child=0x3 kind="conn" by=0x1' \
		'#1/0 run thread=0x0 by=0x1' \
		'#1/0 run thread=0x1 by=0x0' \
		'#1/0 label thread=0x3 truncated=0 text="conn 7" by=0x1' \
		'#1/0 run thread=0x0 by=0x1'
}

t_pending() {
	scene pending p -t 'pending(label="GET /api/*") > 100ms' \
		-t 'pending(kind=conn) > 10s'
	[ "$(saved p)" = 1 ] || die "saved $(saved p) snapshots, not 1"
	grep -q '^saved trigger=1 .*snapshot=flight-0000.weft .*threads=4 kept=6 ' \
		p/snaps/flight.log || die "$(cat p/snaps/flight.log)"
	# precondition: the ring lost the old threads' creation
	"$W" dump p/ring.weft >ring.txt 2>/dev/null
	grep -q 'create child=0x3 ' ring.txt && die "the ring still holds conn's creation: the test shows nothing"
	grep -q 'create child=0xa kind="req" by=0x3' ring.txt || die "no request in the ring"
	"$W" dump p/snaps/flight-0000.weft >snap.txt 2>/dev/null || die "the snapshot does not read"
	# kept: the creation and label of each thread upstream, by its
	# creator, on the weft-flight OS thread (tid 0)
	grep -v filler snap.txt | grep ' #1/0 ' | grep -v ' note ' | sed 's/^[0-9.]* //' >kept.txt
	want_kept >want.txt
	diff want.txt kept.txt >&2 || die "kept events differ"
	# no window: all the ring holds (the flood's last thousands)
	[ "$(grep -c 'counter="filler"' snap.txt)" -gt 1000 ] || die "a window where none was asked"
	# the listener is a hub (200 threads): kept, not walked through to
	# main, which made it
	grep -q 'create child=0x5 ' snap.txt && die "walked through the hub to main"
	# nothing unrelated kept: the noise threads' creation was overwritten
	grep -q 'kind="noise"' snap.txt && die "an unrelated thread kept"
	# fired by the timer, at creation + 100 ms, while still pending
	grep -q 'resolve target=0xa' snap.txt && die "fired after the request resolved: not by the timer"
	grep -q 'note thread=0xa truncated=0 text="weft flight: trigger 1 '"'"'pending(label=\\"GET /api/\*\\") > 100ms'"'"' fired at .* since the trace began: thread 0xa (req GET /api/users) pending longer than 100 ms; the window is all the ring held; kept from before it: the 4 threads upstream"' snap.txt ||
		die "no note: $(grep note snap.txt)"
	"$W" info p/snaps/flight-0000.weft >info.txt 2>/dev/null
	grep -q "^flight:    trigger 1 'pending(label=\"GET /api/\*\") > 100ms' fired at" info.txt ||
		die "weft info does not say it: $(head -12 info.txt)"
	# the model sees the old connection with its kind, label and creator
	"$W" stats p/snaps/flight-0000.weft >stats.txt 2>/dev/null
	grep -q 'conn' stats.txt || die "stats: no conn: $(cat stats.txt)"
}

# --window: the packets that ended before the trigger's time minus the
# window are left out (the flood's, all but the last); what is upstream
# is kept all the same.
t_window() {
	scene pending w -t 'pending(label="GET /api/*") > 100ms' --window 50ms
	"$W" dump w/snaps/flight-0000.weft >snap.txt 2>/dev/null || die "the snapshot does not read"
	n=$(grep -c 'counter="filler"' snap.txt)
	[ "$n" -gt 0 ] && [ "$n" -lt 100 ] || die "$n filler events in a 50 ms window (one packet's at most)"
	grep -v filler snap.txt | grep ' #1/0 ' | grep -v ' note ' | sed 's/^[0-9.]* //' >kept.txt
	want_kept >want.txt
	diff want.txt kept.txt >&2 || die "kept events differ"
	grep -q "fired at .* since the trace began: .*; the window begins 50 ms before it; kept from before it: the 4 threads upstream" snap.txt ||
		die "$(grep note snap.txt)"
}

# The same through weft record --flight: a run, its snapshot a bundle.
t_pending_run() {
	FLIGHT_GO=/ "$W" record --flight --size 64K -o pr \
		--trigger 'pending(label="GET /api/*") > 100ms' -- "$P" pending >out.txt 2>&1 ||
		die "$(cat out.txt)"
	"$W" dump pr/run >ring.txt 2>/dev/null
	grep -q 'create child=0x3 ' ring.txt && die "the ring still holds conn's creation: the test shows nothing"
	[ "$(grep -c '^saved ' pr/flight.log)" = 1 ] || die "$(cat pr/flight.log)"
	"$W" dump pr/flight-0000.weft >snap.txt 2>/dev/null || die "the snapshot does not read"
	grep -v filler snap.txt | grep ' #1/0 ' | grep -v ' note ' | sed 's/^[0-9.]* //' >kept.txt
	want_kept >want.txt
	diff want.txt kept.txt >&2 || die "kept events differ"
	grep -q 'note thread=0xa .*pending longer than 100 ms' snap.txt || die "$(grep note snap.txt)"
}

t_callback() {
	scene callback c -t 'callback > 100ms'
	[ "$(saved c)" = 1 ] || die "saved $(saved c), not 1"
	# once per run: not again at each look while it runs (cooled down)
	[ "$(grep -c '^skipped' c/snaps/flight.log)" = 0 ] || die "fired again: $(cat c/snaps/flight.log)"
	"$W" dump c/snaps/flight-0000.weft >snap.txt 2>/dev/null
	grep -q 'note thread=0x20 .*a callback of thread 0x20 (slow) longer than 100 ms' snap.txt ||
		die "$(grep note snap.txt)"
	grep -q 'resolve target=0x20' snap.txt && die "fired after the callback ended: not by the timer"
	true
}

t_iteration() {
	scene iteration i -t 'callback > 100ms' -t 'iteration > 100ms'
	[ "$(saved i)" = 1 ] || die "saved $(saved i), not 1: $(cat i/snaps/flight.log)"
	grep -q '^saved trigger=2 ' i/snaps/flight.log || die "not the iteration's"
	# once: not while idle (a counter set then is no work)
	[ "$(grep -c '^skipped' i/snaps/flight.log)" = 0 ] || die "fired again: $(cat i/snaps/flight.log)"
	"$W" dump i/snaps/flight-0000.weft >snap.txt 2>/dev/null
	grep -q "text=\"weft flight: trigger 2 'iteration > 100ms' fired at .*: OS thread 0 busy longer than 100 ms" snap.txt ||
		die "$(grep note snap.txt)"
}

t_phase() {
	# a poll phase waits 150 ms three times (no work: not counted); one
	# timers phase runs a callback of 300 ms
	scene phase ph -t 'phase(name=poll) > 100ms' -t 'phase(name="tim*") > 100ms' \
		-t 'phase(name=closing) > 100ms'
	[ "$(saved ph)" = 1 ] || die "saved $(saved ph), not 1: $(cat ph/snaps/flight.log)"
	grep -q '^saved trigger=2 ' ph/snaps/flight.log || die "not the timers phase's: $(cat ph/snaps/flight.log)"
	[ "$(grep -c '^skipped' ph/snaps/flight.log)" = 0 ] || die "fired again: $(cat ph/snaps/flight.log)"
	"$W" dump ph/snaps/flight-0000.weft >snap.txt 2>/dev/null
	grep "note thread=0x72 " snap.txt | grep -q "trigger 2 'phase(name=.*tim\*.*) > 100ms' fired at .*: OS thread 0 in loop phase timers longer than 100 ms" ||
		die "$(grep note snap.txt)"
	grep -q 'resolve target=0x72' snap.txt && die "fired after the phase ended: not by the timer"
	# any phase, its name left out: the same one
	scene phase pa -t 'phase > 100ms'
	[ "$(saved pa)" = 1 ] || die "phase > T: saved $(saved pa), not 1: $(cat pa/snaps/flight.log)"
	"$W" dump pa/snaps/flight-0000.weft 2>/dev/null | grep -q "note thread=0x72 .*in loop phase timers longer than 100 ms" ||
		die "phase > T: $("$W" dump pa/snaps/flight-0000.weft 2>/dev/null | grep note)"
}

t_lost() {
	# 0x81 waits on 0x80, signalled before: weft why's lost wake-up;
	# 0x82's reply is read 20 ms after its resolution (less than T: not
	# a fault), 0x84 waits on what nothing touched (a fault, not this one)
	scene lost l -t lost_wakeup
	grep -q '^summary fired=1 saved=1 skipped=0$' l/snaps/flight.log || die "$(cat l/snaps/flight.log)"
	"$W" dump l/snaps/flight-0000.weft >snap.txt 2>/dev/null
	grep -q "note thread=0x81 .*text=\"weft flight: trigger 1 'lost_wakeup' fired at .*: a lost wake-up: thread 0x81 (consumer) waits on thread 0x80 (ready), signalled before it began waiting, and never read it in 100 ms;" snap.txt ||
		die "$(grep note snap.txt)"
	# what weft why says of the snapshot
	"$W" why l/snaps/flight-0000.weft 0x81 >why.txt 2>&1
	grep -q '^verdict: lost wake-up: ready (0x80, cond) was signalled' why.txt || die "$(cat why.txt)"
	# T longer than the program lives: the verdict is final when it ends
	scene lost l2 -t 'lost_wakeup > 5s'
	grep -q '^summary fired=1 saved=1 skipped=0$' l2/snaps/flight.log || die "at exit: $(cat l2/snaps/flight.log)"
	"$W" dump l2/snaps/flight-0000.weft 2>/dev/null | grep -q "note thread=0x81 .*never read it in 5 s" ||
		die "at exit: $("$W" dump l2/snaps/flight-0000.weft 2>/dev/null | grep note)"
}

t_failed() {
	scene failed f -t 'failed(message="*timeout*")' -t 'failed(message="nothing")'
	[ "$(saved f)" = 1 ] || die "saved $(saved f), not 1"
	grep -q '^saved trigger=1 ' f/snaps/flight.log || die "$(cat f/snaps/flight.log)"
	"$W" dump f/snaps/flight-0000.weft >snap.txt 2>/dev/null
	grep -q 'note thread=0x51 .*thread 0x51 failed: timeout talking to db' snap.txt ||
		die "$(grep note snap.txt)"
	# a trigger that fires while a snapshot is being taken (--after):
	# merged into it, its thread one of its roots, counted
	scene failed g -t failed --after 200ms
	[ "$(saved g)" = 1 ] || die "saved $(saved g), not 1: $(cat g/snaps/flight.log)"
	[ "$(skipped g merged)" = 1 ] || die "not merged: $(cat g/snaps/flight.log)"
	grep -q '^saved trigger=1 .* threads=2 ' g/snaps/flight.log || die "the merged thread is not a root: $(cat g/snaps/flight.log)"
}

# A counter crossing 5 twice: two snapshots with no cool-down; with the
# default one (10 s) the second is skipped, counted, and weft info says so.
t_counter() {
	scene counter a -t 'counter(queue) > 5' --cooldown 0
	[ "$(saved a)" = 2 ] || die "saved $(saved a), not 2: $(cat a/snaps/flight.log)"
	"$W" dump a/snaps/flight-0001.weft >snap.txt 2>/dev/null
	grep -q "fired at .*: counter queue = 6;" snap.txt || die "$(grep note snap.txt)"
	scene counter b -t 'counter(queue) > 5'
	[ "$(saved b)" = 1 ] || die "saved $(saved b), not 1"
	[ "$(skipped b cooldown)" = 1 ] || die "no cooldown skip counted"
	"$W" info b/snaps >info.txt || die "weft info of the directory fails"
	grep -q '^snapshots saved: 1; triggers skipped: 1 (cooldown 1)$' info.txt ||
		die "$(cat info.txt)"
}

t_limits() {
	scene counter h -t 'counter(queue) > 5' --cooldown 0 --max-per-hour 1
	[ "$(saved h)" = 1 ] || die "saved $(saved h), not 1"
	[ "$(skipped h max-per-hour)" = 1 ] || die "no hourly skip counted"
	# a snapshot of this scene is 38 KiB: one fits in 64K, not two
	scene counter d -t 'counter(queue) > 5' --cooldown 0 --max-disk 64K
	[ "$(saved d)" = 1 ] || die "saved $(saved d), not 1: $(cat d/snaps/flight.log)"
	[ "$(skipped d max-disk)" = 1 ] || die "not one budget skip: $(cat d/snaps/flight.log)"
	[ "$(ls d/snaps | grep -c weft)" = 1 ] || die "snapshots over the budget: $(ls d/snaps)"
}

# unresolved_at_exit, by weft record --flight: the snapshot of a run.
t_unresolved() {
	"$W" record --flight --trigger unresolved_at_exit -o r -- "$P" unresolved \
		>out.txt 2>&1 || die "$(cat out.txt)"
	[ -f r/run/manifest ] || die "no run in r/run"
	[ "$(grep -c '^saved ' r/flight.log)" = 1 ] || die "$(cat r/flight.log)"
	"$W" dump r/flight-0000.weft >snap.txt 2>/dev/null || die "the snapshot does not read"
	grep -q "note thread=0x40 .*'unresolved_at_exit' fired at .*: 1 threads that should resolve did not" snap.txt ||
		die "$(grep note snap.txt)"
	"$W" why r/flight-0000.weft >why.txt 2>&1
	grep -q '0x40' why.txt || die "why does not name it: $(cat why.txt)"
}

# weft mark, by ring and by pid: each is one snapshot with its text.
t_mark() {
	SCENE_DURING='
		"$W" mark "$d/ring.weft" "first one" || die "mark failed"
		for i in $(seq 500); do [ "$(ls "$d/snaps" | grep -c "^flight-")" = 1 ] && break; sleep 0.01; done
		"$W" mark $pp "second" 2>/dev/null || die "mark by pid failed"
		for i in $(seq 500); do [ "$(ls "$d/snaps" | grep -c "^flight-")" = 2 ] && break; sleep 0.01; done
		touch "$d/done"' scene mark m -t mark --cooldown 0
	[ "$(saved m)" = 2 ] || die "saved $(saved m), not 2: $(cat m/snaps/flight.log)"
	"$W" dump m/snaps/flight-0000.weft >snap.txt 2>/dev/null
	grep -q "text=\"weft flight: trigger 1 'mark' fired at .*: marked by hand: first one;" snap.txt ||
		die "$(grep note snap.txt)"
	"$W" dump m/snaps/flight-0001.weft >snap.txt 2>/dev/null
	grep -q "marked by hand: second;" snap.txt || die "$(grep note snap.txt)"
	[ -z "$(ls m/ring.weft.marks)" ] || die "marks left: $(ls m/ring.weft.marks)"
}

# weft watch --pid and weft mark PID name the same trace (the ring by the
# name it has now: libweft renames a new ring into place).
t_watch_pid() {
	local pp wp i
	mkdir -p q
	WEFT_FILE=q/ring.weft FLIGHT_GO=q/go FLIGHT_DONE=q/done "$P" mark &
	pp=$!
	wait_for q/ring.weft
	"$W" watch --pid $pp -o q/snaps -t mark -q 2>q/watch.err &
	wp=$!
	wait_for q/snaps/flight.log
	touch q/go
	"$W" mark $pp "by pid" 2>/dev/null || die "mark by pid failed"
	for i in $(seq 500); do [ -e q/snaps/flight-0000.weft ] && break; sleep 0.01; done
	touch q/done
	wait $pp
	wait $wp || die "the watcher failed: $(cat q/watch.err)"
	[ "$(grep -c '^saved ' q/snaps/flight.log)" = 1 ] || die "$(cat q/snaps/flight.log)"
	"$W" dump q/snaps/flight-0000.weft 2>/dev/null | grep -q "marked by hand: by pid;" ||
		die "no mark's note"
}

# SIGKILL of the watcher while it saves: every snapshot there reads
# whole; a temporary file is never a snapshot, and the next watcher
# removes it.
t_kill_watcher() {
	local k pp wp
	for k in 1 2 3; do
		mkdir -p k$k
		WEFT_FILE=k$k/ring.weft WEFT_SIZE=4M FLIGHT_GO=k$k/go "$P" counter &
		pp=$!
		wait_for k$k/ring.weft
		"$W" watch k$k/ring.weft -o k$k/snaps -t 'counter(queue) > 0' \
			-t 'counter(queue) > 2' -t 'counter(queue) > 4' --cooldown 0 \
			--max-per-hour 0 -q 2>/dev/null &
		wp=$!
		wait_for k$k/snaps/flight.log
		touch k$k/go
		sleep 0.0$((RANDOM % 9 + 1))
		kill -9 $wp
		wait $pp
		wait $wp 2>/dev/null
		for s in k$k/snaps/flight-*.weft; do
			[ -e "$s" ] || continue
			"$W" info "$s" >/dev/null 2>err.txt || die "$s: $(cat err.txt)"
		done
		touch k$k/snaps/.flight-0099.weft.tmp
		"$W" watch k$k/ring.weft -o k$k/snaps -t mark -q 2>/dev/null ||
			die "a second watcher failed"
		[ -e k$k/snaps/.flight-0099.weft.tmp ] && die "temporary file left"
	done
	true
}

# Hostile input: the fuzz corpus watched with every trigger armed (one
# that fires at each thread) gives a result or a clean error, never a
# crash or a hang; each snapshot it saves reads.
t_hostile() {
	local f rc s n=0
	for f in "$WEFT_SRC"/tests/fuzz/corpus/*; do
		rm -rf h
		timeout 20 "$W" watch "$f" -o h -q --cooldown 0 --max-per-hour 0 \
			-t 'pending(label="*") > 1ns' -t 'pending(kind=x) > 1ms' \
			-t 'counter(a) > 1' -t failed -t unresolved_at_exit \
			-t 'callback > 1us' -t 'iteration > 1us' -t 'phase > 1us' \
			-t 'lost_wakeup > 1ns' >/dev/null 2>err.txt
		rc=$?
		[ $rc -le 1 ] || die "$f: exit $rc: $(tail -3 err.txt)"
		for s in h/flight-*.weft; do
			[ -e "$s" ] || continue
			n=$((n + 1))
			"$W" info "$s" >/dev/null 2>err.txt
			[ $? -le 1 ] || die "$s of $f: $(tail -3 err.txt)"
		done
	done
	[ $n -gt 0 ] || die "no snapshot saved from the corpus: the test shows nothing"
}

run "a bad trigger names its token with a caret" t_grammar
run "hostile input: a result or a clean error" t_hostile
run "pending(label) > T fires by its timer; the snapshot keeps the upstream threads the ring lost, nothing else" t_pending
run "--window leaves out the packets before it, keeps the cause" t_window
run "the same in a run (weft record --flight): the snapshot is a bundle" t_pending_run
run "callback > T fires once, while it runs" t_callback
run "iteration > T: busy without idle, made of short callbacks" t_iteration
run "phase(name=G) > T: a slow callback in its phase fires; waiting in poll does not" t_phase
run "lost_wakeup: weft why's verdict, once per waiter, not a late read nor another fault" t_lost
run "failed(message=GLOB) fires on the matching failure only" t_failed
run "counter crossing: once per crossing; the cool-down skips, counted" t_counter
run "the hourly limit and the disk budget skip, counted" t_limits
run "unresolved_at_exit with weft record --flight" t_unresolved
run "weft mark by ring and by pid" t_mark
run "weft watch --pid and weft mark PID agree" t_watch_pid
run "SIGKILL of the watcher: no torn snapshot" t_kill_watcher
tap_done
