#!/bin/bash
# SPDX-License-Identifier: MIT
# test-event.sh - `weft record` on libevent programs: the project's
# examples (every kind of event; a bufferevent echo with a listener and a
# refused connect), and memcached and tmux from Debian, which nobody here
# wrote.  TAP output.
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
W=$WEFT_BIN
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"
EX=$WEFT_BUILD/examples
. "$WEFT_SRC/tests/tap.sh"
tap_init event "$@"
# Servers a case starts are stopped whatever happens.
PIDS=
trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; rm -rf "$T"' EXIT
check() { python3 "$WEFT_SRC/tests/event/event_check.py" "$W" "$@"; }
# A free TCP port on 127.0.0.1.
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# Waits until something listens on 127.0.0.1:$1.
listening() {
	for _ in $(seq 100); do
		python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])),1)' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

t_misc() {
	"$EX/ev-misc" | sort >plain.txt || die "ev-misc failed"
	"$W" record -o m.weft --mode discard -- "$EX/ev-misc" >traced.raw 2>rec.txt || die "record: $(cat rec.txt)"
	sort traced.raw >traced.txt
	cmp plain.txt traced.txt || die "output changed: $(diff plain.txt traced.txt)"
	grep -q "traced loops: libevent; preloaded: libuv, libevent, GLib (all of them: --loops chooses)" rec.txt || die "$(cat rec.txt)"
	"$W" info m.weft | grep -q "0 packets lost, 0 torn, 0 corrupt; 0 events discarded" || die "losses"
	check misc m.weft
}

t_echo() {
	"$EX/ev-echo" >plain.txt || die "ev-echo failed"
	"$W" record -o e.weft --mode discard -- "$EX/ev-echo" >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
	cmp plain.txt traced.txt || die "output changed: $(diff plain.txt traced.txt)"
	check echo e.weft
}

t_http() {
	"$EX/ev-http" >plain.txt || die "ev-http failed"
	"$W" record -o h.weft --mode discard -- "$EX/ev-http" >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
	cmp plain.txt traced.txt || die "output changed: $(diff plain.txt traced.txt)"
	check http h.weft
}

# memcached: its answers to a client of ours are the same traced, and
# under memcslap's load each client request is an activation of its
# connection's event with its read and its sendmsg.
mc_client() { # port: a fixed conversation, the answers printed
	python3 - "$1" <<'PY'
import socket, sys
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])), 5)
def ask(q, end):
    s.sendall(q)
    b = b''
    while not b.endswith(end):
        c = s.recv(4096)
        if not c:
            break
        b += c
    print(repr(b))
ask(b'set weft 0 0 5\r\nhello\r\n', b'\r\n')
ask(b'get weft\r\n', b'END\r\n')
ask(b'incr n 1\r\n', b'\r\n')
ask(b'set n 0 0 1\r\n7\r\n', b'\r\n')
ask(b'incr n 5\r\n', b'\r\n')
ask(b'append weft 0 0 6\r\n world\r\n', b'\r\n')
ask(b'get weft n\r\n', b'END\r\n')
ask(b'delete weft\r\n', b'\r\n')
ask(b'get weft\r\n', b'END\r\n')
PY
}
t_memcached() {
	command -v memcached >/dev/null && command -v memcslap >/dev/null || die "memcached or memcslap missing"
	local p; p=$(port)
	timeout 60 memcached -u root -l 127.0.0.1 -p "$p" -U 0 -t 2 & PIDS="$PIDS $!"; local mp=$!
	listening "$p" || die "memcached did not start"
	mc_client "$p" >plain.txt
	kill $mp; wait $mp
	p=$(port)
	timeout 60 "$W" record -o mc.weft --mode discard --size 64M -- memcached -u root -l 127.0.0.1 -p "$p" -U 0 -t 2 2>rec.txt & PIDS="$PIDS $!"; local rp=$!
	listening "$p" || die "traced memcached did not start: $(cat rec.txt)"
	mc_client "$p" >traced.txt
	cmp plain.txt traced.txt || die "answers changed: $(diff plain.txt traced.txt)"
	timeout 60 memcslap -s "127.0.0.1:$p" -c 2 -e 200 -t set >slap.txt 2>&1 || die "memcslap: $(cat slap.txt)"
	timeout 60 memcslap -s "127.0.0.1:$p" -c 2 -e 200 -t get >>slap.txt 2>&1 || die "memcslap: $(cat slap.txt)"
	kill -TERM $rp; wait $rp
	grep -q "loops: libevent" rec.txt || die "$(cat rec.txt)"
	"$W" info mc.weft | grep -q "0 packets lost, 0 torn, 0 corrupt; 0 events discarded" || die "losses: $("$W" info mc.weft)"
	# memcslap's 400 sets, then 200 sets to load and 400 gets: each
	# answered in an activation of its own
	check memcached mc.weft 1000
}

# tmux: a detached server, keys sent, the pane shows them, killed.  The
# server is a child of the client weft record runs: its trace is the
# biggest FILE.PID.
t_tmux() {
	command -v tmux >/dev/null || die "tmux missing"
	local s base=weft-$$-$RANDOM
	for mode in plain traced; do
		# a server of its own each (a kill-server returns before its
		# server is gone: a client started at once on the same socket
		# met the dying one, "server exited unexpectedly", under load)
		s=$base-$mode
		if [ $mode = plain ]; then
			timeout 20 tmux -L $s -f /dev/null new-session -d -x 80 -y 24 cat || die "tmux"
		else
			timeout 20 "$W" record -o t.weft -- tmux -L $s -f /dev/null new-session -d -x 80 -y 24 cat 2>rec.txt || die "record: $(cat rec.txt)"
		fi
		sleep 0.5
		tmux -L $s send-keys -t 0 'hello weft' Enter
		for _ in $(seq 50); do
			tmux -L $s capture-pane -p -t 0 | grep -c 'hello weft' | grep -q 2 && break
			sleep 0.1
		done
		tmux -L $s capture-pane -p -t 0 | grep -v '^$' >$mode.txt
		tmux -L $s kill-server
	done
	cmp plain.txt traced.txt || die "pane changed: $(diff plain.txt traced.txt)"
	grep -q "traced loops: libevent; preloaded: libuv, libevent, GLib (all of them: --loops chooses)" rec.txt || die "$(cat rec.txt)"
	sleep 0.3
	local server; server=$(ls -S t.weft/ring.* | head -1)
	[ -n "$server" ] || die "no server trace: $(ls)"
	check tmux "$server"
}

# The library of the shims links no loop library (a process that does
# not use a loop must not load it), and exports only what it interposes
# and libweft's own API (its soname is libweft's).
t_shims() {
	local d so=$WEFT_BUILD/libweft-preload.so
	[ -f "$so" ] || die "no $so"
	readelf -d "$so" | grep -q 'SONAME.*\[libweft\.so\.0\]' || die "soname: $(readelf -d "$so" | grep SONAME)"
	d=$(readelf -d "$so" | grep NEEDED)
	echo "$d" | grep -Eq 'libuv|libevent|libglib|libgio|libgobject' && die "$so links a loop library: $d"
	nm -D --defined-only "$so" | awk '{print $3}' | grep -Ev '^(__odr_asan|__asan|__ubsan|__sanitizer|uv_|event_|evbuffer_|bufferevent_|evconnlistener_|evdns_|evhttp_|g_|weft_|weft__|epoll_|poll$|ppoll$|select$|read$|write$|readv$|writev$|recv|send|close$|posix_spawnp?$|fork$|exec(l|le|lp|v|ve|vp|vpe)$|_exit$|_Exit$|wait(|3|4|id|pid)$)' && die "$so exports more"
	nm -D --defined-only "$so" | grep -q ' weft__shim_' && die "$so exports the shims' internals"
	# what libweft exports, it exports (a program linking libweft runs
	# with it)
	for f in $(nm -D --defined-only "$WEFT_BUILD/libweft.so" | awk '$2 ~ /[TDB]/ {print $3}'); do
		nm -D --defined-only "$so" | awk '{print $3}' | grep -qx "$f" || die "$so lacks libweft's $f"
	done
	# none on a program that does not use one: sh gets every shim (it
	# links none) and loads no loop library
	"$W" record -o s.weft -- sh -c 'grep -E "libuv|libevent|libglib" /proc/$$/maps | wc -l' >maps.txt 2>rec.txt
	[ "$(cat maps.txt)" = 0 ] || die "a loop library in sh: $(cat maps.txt)"
	grep -q "preloaded: libuv, libevent, GLib (all of them: --loops chooses)" rec.txt || die "$(cat rec.txt)"
	"$W" record --loops nosuch -o s.weft -- true 2>/dev/null; [ $? = 2 ] || die "--loops nosuch"
}

export W EX T WEFT_SRC WEFT_BUILD
run event_kinds t_misc
run bufferevent_echo t_echo
run evhttp_evdns t_http
run memcached_from_debian t_memcached
run tmux_from_debian t_tmux
run shims_link_no_loop_library t_shims
tap_done
