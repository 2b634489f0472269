#!/bin/bash
# keep-real.sh BUILD-DIR - real programs kept for minutes (docs/keep.md,
# "Real programs"; not in bench/run: REAL_S seconds each, default 150):
#   uv        the libuv echo bench (build/bench/uv-bench)
#   memcached 2 worker threads under memcslap (Debian's memcached and
#             libmemcached-tools), if installed
#   node      a Node.js HTTP server and a keep-alive client of the same
#             process asking without pause (REAL_NODE: a node that links
#             libuv dynamically, e.g. tests/node's build/node18/node)
# each recorded with `weft record --size REAL_RING (default 4M) --keep`.
# For each it prints: events in the ring alone and in the directory, the
# span each covers, the chunks and their bytes, whether every chunk opens
# alone (`weft info CHUNK`), and whether `weft info DIR` adds up (packets
# kept + deleted + not kept + unwritten = the packets the ring numbered:
# those it holds and those it lost); with REAL_PNG=DIR, the pictures of
# the ring and of the directory (weft render) go there.
set -u
B=$(cd "${1:-build}" && pwd)
S=${REAL_S:-150}
RING=${REAL_RING:-4M}
W=$B/tools/weft
T=$(mktemp -d /tmp/weft-real.XXXXXX)
pids=""
trap 'kill $pids 2>/dev/null; rm -rf "$T"' EXIT
want() { case " ${REAL_ONLY:-uv mc node} " in *" $1 "*) return 0 ;; esac; return 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# The numbers of the run in $T/NAME and its kept directory $T/NAME.k.
report() { # name
	local r=$T/$1 k=$T/$1.k c ok=1 n=0
	for c in "$k"/*.zst; do
		n=$((n + 1))
		"$W" info "$c" >/dev/null 2>&1 || { ok=0; echo "# $1: $c does not open alone"; }
	done
	"$W" info "$r" >"$T/ri.txt" 2>/dev/null
	"$W" info "$k" >"$T/ki.txt" 2>/dev/null
	local inuse rlost kept del notk unw rev kev rtime ktime bytes
	inuse=$(sed -nE 's/^ring: .*, ([0-9]+) packets in use.*/\1/p' "$T/ri.txt" | awk '{s+=$1} END{print s+0}')
	rlost=$(sed -nE 's/^losses: +([0-9]+) packets lost.*/\1/p' "$T/ri.txt")
	kept=$(sed -nE 's/^kept: .*, ([0-9]+) packets, .*/\1/p' "$T/ki.txt")
	del=$(sed -nE 's/^deleted: +[0-9]+ chunks?, ([0-9]+) packets.*/\1/p' "$T/ki.txt")
	notk=$(sed -nE 's/^not kept: +([0-9]+) packets.*/\1/p' "$T/ki.txt")
	unw=$(sed -nE 's/^unwritten: +[0-9]+ chunks?, ([0-9]+) packets.*/\1/p' "$T/ki.txt")
	rev=$(sed -nE 's/^events: +([0-9]+).*/\1/p' "$T/ri.txt")
	kev=$(sed -nE 's/^events: +([0-9]+).*/\1/p' "$T/ki.txt")
	rtime=$(sed -nE 's/^time: .*\(([0-9.]+) s\).*/\1/p' "$T/ri.txt")
	ktime=$(sed -nE 's/^time: .*\(([0-9.]+) s\).*/\1/p' "$T/ki.txt")
	bytes=$(cat "$k"/*.zst | wc -c)
	local adds=0
	[ $((kept + ${del:-0} + ${notk:-0} + ${unw:-0})) = $((inuse + rlost)) ] && adds=1
	echo "$1: ring alone: $rev events, ${rtime} s; directory: $kev events, ${ktime} s," \
		"$n chunks, $bytes bytes ($(grep -E '^kept:' "$T/ki.txt" | sed -E 's/.*\(([0-9.]+ MiB of packets: [0-9.]+x)\)/\1/'))"
	echo "$1: packets: kept $kept, deleted ${del:-0}, not kept ${notk:-0}, unwritten ${unw:-0};" \
		"the ring numbered $((inuse + rlost)) ($inuse held, $rlost lost); adds up: $adds;" \
		"every chunk opens alone: $ok"
	if [ -n "${REAL_PNG:-}" ]; then
		mkdir -p "$REAL_PNG"
		"$W" render "$r" -o "$REAL_PNG/$1-ring.png" 2>/dev/null
		"$W" render "$k" -o "$REAL_PNG/$1-kept.png" 2>/dev/null
	fi
}

# the libuv echo bench
if want uv; then
	"$W" record -o "$T/uv" --size "$RING" --keep "$T/uv.k" -- "$B/bench/uv-bench" "$S" >/dev/null 2>"$T/uv.rec" ||
		echo "# uv: $(tail -3 "$T/uv.rec")"
	report uv
fi

# memcached under memcslap
if ! want mc; then
	:
elif command -v memcached >/dev/null && command -v memcslap >/dev/null; then
	p=$(free_port)
	"$W" record -o "$T/mc" --size "$RING" --keep "$T/mc.k" -- memcached -u root -l 127.0.0.1 -p "$p" -U 0 -t 2 2>"$T/mc.rec" &
	rp=$!
	pids="$pids $rp"
	for i in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && break; sleep 0.1; done
	sleep 2 # (its idle start)
	# (memcslap runs a number of requests: rounds of sets and gets until
	# the time is up)
	end=$((SECONDS + S))
	while [ $SECONDS -lt $end ]; do
		for t in set get; do
			memcslap -s "127.0.0.1:$p" -c 4 -e 20000 -t $t >"$T/slap.txt" 2>&1 || echo "# memcslap: $(tail -3 "$T/slap.txt")"
		done
	done
	sleep 2
	kill -TERM "$(pgrep -P $rp -x memcached)" 2>/dev/null
	wait $rp
	report mc
else
	echo "mc: memcached or memcslap not installed"
fi

# a Node.js HTTP server and client
if ! want node; then
	:
elif [ -n "${REAL_NODE:-}" ]; then
	cat >"$T/serve.js" <<JS
'use strict';
const http = require('http');
let n = 0;
const server = http.createServer((req, res) => res.end('hello ' + req.url));
const tick = setInterval(() => console.log('requests', n), 1000);
server.listen(0, '127.0.0.1', () => {
	const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
	const port = server.address().port;
	const end = Date.now() + $S * 1000;
	const ask = () => {
		if (Date.now() > end) {
			if (--left === 0) { clearInterval(tick); agent.destroy(); server.close(); }
			return;
		}
		http.get({ host: '127.0.0.1', port, path: '/' + n++, agent }, (res) => {
			res.resume();
			res.on('end', ask);
		});
	};
	let left = 4;
	for (let i = 0; i < 4; i++) ask();
});
JS
	"$W" record -o "$T/node" --size "$RING" --keep "$T/node.k" -- "$REAL_NODE" "$T/serve.js" >"$T/node.out" 2>"$T/node.rec" ||
		echo "# node: $(tail -3 "$T/node.rec")"
	echo "node: $(tail -1 "$T/node.out")"
	report node
else
	echo "node: REAL_NODE not given"
fi
