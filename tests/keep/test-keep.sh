#!/bin/bash
# SPDX-License-Identifier: MIT
# test-keep.sh - keeping (weft keep, weft record --keep; docs/keep.md):
# numbered events written at a steady rate through several rotations come
# back once each, in order; a budget deletes the oldest chunks, counted
# exactly; SIGKILL of the keeper, of the program, of both, at random
# moments: every chunk readable, no duplicate, every loss reported; a
# full disk: one message, counted losses, no torn chunk, the program
# unchanged; every reading command takes the kept directory.  TAP output.
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
W=$WEFT_BIN
NUM=$WEFT_BUILD/tests/keep/keep-numbered
CHECK=$WEFT_SRC/tests/keep/keep_check.py
# A sanitizer's keeper is several times slower and may fall behind a
# writer at full speed: there every loss must be reported (keep_check.py)
case " ${WEFT_TEST_CFLAGS:-} " in *sanitize*) export WEFT_KEEP_LOSSY=1 ;; esac
. "$WEFT_SRC/tests/tap.sh"
tap_init keep "$@"
TAP_TIMEOUT=300
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"

# Waits (5 s at most) for a file to appear.
wait_for() { # file
	local i
	for i in $(seq 500); do
		[ -e "$1" ] && return 0
		sleep 0.01
	done
	die "$1 never came"
}

# Waits (20 s at most) until each of the THREADS counters of the
# numbered program recording into RUN has a value in the ring: a program
# killed before a thread of it ran leaves nothing of that thread to keep
# (seen on a loaded CI machine).
wait_started() { # run threads
	local i k
	for i in $(seq 200); do
		[ $i = 1 ] || sleep 0.1
		"$W" dump "$1" >started.txt 2>/dev/null
		for k in $(seq 0 $(($2 - 1))); do
			grep -q "counter=\"n$k\"" started.txt || continue 2
		done
		return 0
	done
	die "the program's threads never all wrote"
}

# Every chunk of DIR opens alone (no problem: exit 0), and no chunk is
# half written.
chunks_ok() { # dir
	local c n=0
	for c in "$1"/*.zst; do
		[ -e "$c" ] || continue
		n=$((n + 1))
		"$W" info "$c" >/dev/null 2>ci.txt || die "$c does not open alone: $(cat ci.txt)"
		if command -v zstd >/dev/null; then
			zstd -q -t "$c" || die "$c: zstd -t fails"
		fi
	done
	ls -a "$1" | grep -q '^\.tmp-' && die "a temporary chunk left: $(ls -a "$1")"
	echo $n
}

# The packets the log says were deleted.
deleted_packets() { # dir
	awk '/^deleted /{for(i=1;i<=NF;i++) if ($i ~ /^packets=/) {sub("packets=","",$i); s+=$i}} END{print s+0}' "$1/keep.log"
}

# 3 OS threads x 100,000 numbered events over about 5 s into a 1 MiB ring
# (it wraps about 8 times), kept in 64 KiB chunks: every event comes back,
# once, in order, with no loss; chunks rotated; each opens alone.
t_all() {
	rm -rf r k r2 r3 ran
	"$W" record -o r --size 1M --keep k --chunk 64K -- "$NUM" 100000 60000 3 >out.txt 2>rec.txt ||
		die "record: $(cat rec.txt)"
	[ "$(cat out.txt)" = done ] || die "the program's output: $(cat out.txt)"
	grep -q "^weft: kept [0-9]* packets of 1 ring in [0-9]* chunks into 'k'" rec.txt || die "$(cat rec.txt)"
	local n; n=$(chunks_ok k) || die "$n"
	[ "$n" -ge 8 ] || die "only $n chunks: not rotated by size"
	"$W" dump k >d.txt 2>dump.err || die "dump: $(cat dump.err)"
	python3 "$CHECK" d.txt 100000 3 all || die "the kept events"
	# the ring alone lost most of them: the directory holds the past
	"$W" info r 2>/dev/null | grep -qE "^losses: +[1-9][0-9]* packets lost" || die "the ring did not wrap"
	"$W" info k >i.txt 2>&1 || die "info: $(cat i.txt)"
	grep -qE "^kept: +$n chunks" i.txt || die "$(cat i.txt)"
	grep -qE "^deleted: +0 chunks, 0 packets" i.txt || die "$(cat i.txt)"
	grep -qE "^not kept: +0 packets" i.txt || die "$(cat i.txt)"
	grep -q "^processes: 1 (1 recorded)" i.txt || die "$(cat i.txt)"
	# a chunk of the plain layout decompressed by zstd is a ring
	if command -v zstd >/dev/null; then
		"$W" keep r -o kplain --plain --chunk 64K 2>/dev/null || die "keep --plain"
		zstd -q -d -c "$(ls kplain/*.zst | head -1)" >c3.ring && "$W" info c3.ring >/dev/null 2>&1 ||
			die "zstd -d of a chunk is not a ring"
		rm -rf kplain
	fi
	# a restart on a finished directory: nothing twice
	"$W" keep r -o k 2>k2.txt || die "keep again: $(cat k2.txt)"
	grep -q "^weft: kept 0 packets" k2.txt || die "kept again: $(cat k2.txt)"
	"$W" dump k >d2.txt 2>/dev/null && cmp -s d.txt d2.txt || die "the directory changed"
	# weft record --keep into it: refused before the program runs
	"$W" record -o r3 --keep k -- touch ran 2>k4.txt
	[ $? = 2 ] && [ ! -e ran ] || die "record --keep into a kept directory"
	grep -q "not empty" k4.txt || die "$(cat k4.txt)"
	# another run into it: refused, nothing written
	"$W" record -o r2 --size 1M -- "$NUM" 100 1000 1 >/dev/null 2>&1 || die "record r2"
	"$W" keep r2 -o k 2>k3.txt && die "another run kept into k"
	grep -q "k: it keeps another run than r2" k3.txt || die "$(cat k3.txt)"
	"$W" dump k >d2.txt 2>/dev/null && cmp -s d.txt d2.txt || die "the directory changed"
	# a chunk found twice (copied under another number) is read once
	cp "$(ls k/*.zst | sed -n 2p)" k/00000099.ring.zst
	"$W" dump k >d3.txt 2>/dev/null && cmp -s d.txt d3.txt || die "a chunk twice is read twice"
	rm k/00000099.ring.zst
	# a damaged chunk: a byte changed in a frame (its checksum fails:
	# that frame's packets are left out, lost where they were, and said),
	# another cut short (no index: left out, said); the rest is read
	python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[len(b)//2]^=0x55; open(p,'wb').write(b)" k/00000004.ring.zst
	head -c 20000 k/00000006.ring.zst >cut && mv cut k/00000006.ring.zst
	"$W" dump k >d4.txt 2>dump.err
	[ $? = 1 ] || die "damage not a problem: $(cat dump.err)"
	grep -q "k: 2 damaged chunks, left out where unreadable (0000000[46].ring.zst: " dump.err || die "not said: $(cat dump.err)"
	python3 "$CHECK" d4.txt 100000 3 gaps >c.txt || die "damaged: $(cat c.txt)"
	grep -qE "lost [1-9][0-9]* packets" c.txt || die "no loss: $(cat c.txt)"
	"$W" info k/00000004.ring.zst >/dev/null 2>ci.txt && die "a damaged chunk opens without a word"
	grep -q "does not decompress" ci.txt || die "$(cat ci.txt)"
}
export W NUM CHECK T WEFT_SRC WEFT_BUILD
run "every event kept once, in order, through rotations; chunks alone" t_all

# The same with a budget: the oldest chunks are deleted; the events that
# stay are each stream's last ones, in order; the packets the reader
# reports lost are exactly those deleted; the directory stays within it.
t_budget() {
	rm -rf r k
	"$W" record -o r --size 1M --keep k --max-disk 300K --chunk 64K -- "$NUM" 100000 60000 3 >out.txt 2>rec.txt ||
		die "record: $(cat rec.txt)"
	grep -qE "^weft: [0-9]+ oldest chunks \([0-9]+ packets\) deleted" rec.txt || die "none deleted: $(cat rec.txt)"
	chunks_ok k >/dev/null || die "chunks"
	local del size
	del=$(deleted_packets k)
	[ "$del" -gt 0 ] || die "no deletion logged"
	size=$(cat k/*.zst | wc -c)
	[ "$size" -le $((300 * 1024)) ] || die "$size bytes of chunks: over the budget"
	"$W" dump k >d.txt 2>/dev/null || die "dump"
	python3 "$CHECK" d.txt 100000 3 suffix "$del" || die "the kept events"
	"$W" info k >i.txt 2>&1
	grep -qE "^deleted: +[0-9]+ chunks, $del packets" i.txt || die "$(cat i.txt)"
	# per async thread: where its events are missing (one gap a stream)
	[ "$(grep -cE "^  thread 0x[0-9a-f]+ \(OS thread [0-9]+\) has no events between its start and [0-9][0-9. ]* s \([0-9]+ packets lost\)" i.txt)" = 3 ] ||
		die "gaps: $(cat i.txt)"
	grep -qE "^not kept: +0 packets" i.txt || die "$(cat i.txt)"
}
run "a budget deletes the oldest chunks, each counted; the rest exact" t_budget

# The keeper SIGKILLed at random moments (about 25 times) beside a run
# and started again: every event once, in order (the 8 MiB ring holds
# more than the keeper misses).  A keeper killed before it logged its
# start (a slow machine: a sanitizer build under load) is a kill all the
# same, but not a start the log can show.
nstarts() { # the keepers' starts that k/keep.log shows
	local n
	n=$(grep -c '^keep ' k/keep.log 2>/dev/null)
	echo "${n:-0}"
}

t_kill_keeper() {
	rm -rf r k
	"$W" record -o r --size 8M -- "$NUM" 120000 60000 3 >out.txt 2>rec.txt &
	local rec=$! kills=0 started=0
	wait_for r/manifest
	while kill -0 $rec 2>/dev/null; do
		local was
		was=$(nstarts)
		"$W" keep r -o k --chunk 64K 2>>keep.txt &
		local kp=$!
		sleep "0.$((RANDOM % 3 + 1))$((RANDOM % 10))"
		if kill -9 $kp 2>/dev/null; then
			kills=$((kills + 1))
			[ "$(nstarts)" -gt "$was" ] && started=$((started + 1))
		fi
		wait $kp 2>/dev/null
	done
	wait $rec || die "record: $(cat rec.txt)"
	"$W" keep r -o k --chunk 64K 2>>keep.txt || die "the last keeper: $(cat keep.txt)"
	[ $kills -ge 10 ] || die "only $kills kills"
	[ $started -ge 5 ] || die "only $started of $kills keepers killed had started"
	chunks_ok k >/dev/null || die "chunks"
	[ "$(nstarts)" -ge $((started + 1)) ] || die "starts: $(nstarts), $started killed after their start"
	"$W" dump k >d.txt 2>/dev/null || die "dump"
	python3 "$CHECK" d.txt 120000 3 all || die "the kept events ($kills kills)"
	echo "$kills kills"
}
run "the keeper killed (SIGKILL) and restarted: nothing lost, nothing twice" t_kill_keeper

# The program SIGKILLed at a random moment, a dozen times: what it wrote
# up to then is kept (the packets still open, as far as committed), from
# the first event on, with no loss and no duplicate.
t_kill_program() {
	local i
	for i in $(seq 12); do
		rm -rf r k
		"$W" record -o r --size 4M --keep k --chunk 64K -- "$NUM" 1000000 90000 3 >out.txt 2>rec.txt &
		local rec=$!
		wait_for r/ring
		wait_started r 3
		sleep "0.$((RANDOM % 6 + 1))$((RANDOM % 10))"
		local p; p=$(pgrep -P $rec -f keep-numbered)
		[ -n "$p" ] || die "no program"
		kill -9 "$p"
		wait $rec
		[ $? = 137 ] || die "record's status: $(cat rec.txt)"
		chunks_ok k >/dev/null || die "run $i: chunks"
		"$W" dump k >d.txt 2>/dev/null || die "run $i: dump"
		python3 "$CHECK" d.txt 1000000 3 prefix >c.txt || die "run $i: $(cat c.txt)"
		"$W" info k 2>/dev/null | grep -q "killed by signal 9" || die "run $i: how it ended"
	done
}
run "the program killed (SIGKILL): everything it wrote is kept" t_kill_program

# Both killed at random moments, the keeper started again afterwards:
# it keeps what the ring still holds (its writer gone); nothing twice,
# and a gap only after a loss that says so.
t_kill_both() {
	local i
	for i in $(seq 10); do
		rm -rf r k
		"$W" record -o r --size 4M -- "$NUM" 1000000 90000 3 >out.txt 2>rec.txt &
		local rec=$!
		wait_for r/ring
		"$W" keep r -o k --chunk 64K 2>keep.txt &
		local kp=$!
		sleep "0.$((RANDOM % 5 + 1))$((RANDOM % 10))"
		local p; p=$(pgrep -P $rec -f keep-numbered)
		if [ $((RANDOM % 2)) = 0 ]; then
			kill -9 $kp; sleep 0.0$((RANDOM % 10)); kill -9 "$p"
		else
			kill -9 "$p"; sleep 0.0$((RANDOM % 10)); kill -9 $kp
		fi
		wait $rec $kp 2>/dev/null
		"$W" keep r -o k --chunk 64K 2>keep2.txt || die "run $i: the keeper again: $(cat keep2.txt)"
		chunks_ok k >/dev/null || die "run $i: chunks"
		"$W" dump k >d.txt 2>/dev/null || die "run $i: dump"
		python3 "$CHECK" d.txt 1000000 3 gaps >c.txt || die "run $i: $(cat c.txt)"
		# the 4 MiB ring held everything the keepers missed
		python3 "$CHECK" d.txt 1000000 3 prefix >c.txt || die "run $i: $(cat c.txt)"
	done
}
run "program and keeper both killed, the keeper restarted: nothing twice or lost" t_kill_both

# A full disk: a 256 KiB tmpfs (or, where none can be mounted, the
# test-only WEFT_KEEP_TEST_ENOSPC): one message, the chunks that could
# not be written counted (log, info) and reported as losses where they
# were; no torn chunk; the program's output and status unchanged.
t_full_disk() {
	rm -rf r k
	mkdir -p m
	local how=tmpfs
	# (packed, the run's 300,000 events take about 360 KiB of chunks)
	if ! mount -t tmpfs -o size=256K weft-keep-test m 2>/dev/null; then
		how=fault
		export WEFT_KEEP_TEST_ENOSPC=200K
	fi
	"$W" record -o r --size 1M --keep m/k --chunk 64K -- "$NUM" 100000 60000 3 >out.txt 2>rec.txt
	local st=$?
	cp -a m/k k 2>/dev/null
	[ $how = tmpfs ] && umount m
	[ $st = 0 ] || die "the program's status changed: $st: $(cat rec.txt)"
	[ "$(cat out.txt)" = done ] || die "the program's output changed"
	[ "$(grep -c 'cannot write a chunk' rec.txt)" = 1 ] || die "not one message ($how): $(cat rec.txt)"
	grep -qE "^weft: [0-9]+ packets could not be written" rec.txt || die "no count: $(cat rec.txt)"
	chunks_ok k >/dev/null || die "chunks"
	# readers say what the disk refused (a problem: status 1), and the
	# gaps it left in the streams are losses where they were
	"$W" dump k >d.txt 2>dump.err
	[ $? = 1 ] || die "dump's status"
	grep -qE "k: [1-9][0-9]* packets lost: the disk refused their chunks" dump.err || die "not said: $(cat dump.err)"
	python3 "$CHECK" d.txt 100000 3 gaps >c.txt || die "$(cat c.txt)"
	"$W" info k >i.txt 2>&1
	grep -qE "^unwritten: +[1-9][0-9]* chunks?, [1-9][0-9]* packets" i.txt || die "info: $(cat i.txt)"
	echo "$how: $(cat c.txt)"
}
run "a full disk: one message, counted losses, no torn chunk, program unchanged" t_full_disk

# A chunk write that fails midway (WEFT_KEEP_TEST_ENOSPC: the write that
# crosses SIZE writes what fits, then ENOSPC, as a full disk does).
# Once for good (the disk stays full: every chunk after it fails too, the
# last one at the keeper's end), then once only (the disk has room again:
# the chunks after it are written): no temporary file left either way,
# the refused packets counted alike in the message, keep.log and weft
# info, every gap they leave reported where it is, and the chunks
# written plus the packets refused are every packet the ring numbered.
t_torn_chunk() {
	local mode
	for mode in 150K 150K,1; do
		rm -rf r k
		WEFT_KEEP_TEST_ENOSPC=$mode "$W" record -o r --size 1M --keep k --chunk 64K -- "$NUM" 100000 60000 3 >out.txt 2>rec.txt ||
			die "$mode: record: $(cat rec.txt)"
		[ "$(cat out.txt)" = done ] || die "$mode: the program's output changed"
		ls -a k | grep -q '^\.tmp-' && die "$mode: a torn chunk left: $(ls -a k)"
		[ "$(grep -c 'cannot write a chunk' rec.txt)" = 1 ] || die "$mode: not one message: $(cat rec.txt)"
		local said logged lines info
		said=$(sed -nE 's/^weft: ([0-9]+) packets could not be written.*/\1/p' rec.txt)
		logged=$(awk '/^unwritten /{for(i=1;i<=NF;i++) if ($i ~ /^packets=/) {sub("packets=","",$i); s+=$i}} END{print s+0}' k/keep.log)
		lines=$(grep -c '^unwritten ' k/keep.log)
		[ -n "$said" ] && [ "$said" -gt 0 ] && [ "$said" = "$logged" ] || die "$mode: said '$said', logged $logged"
		"$W" info k >i.txt 2>&1
		info=$(sed -nE 's/^unwritten: +([0-9]+) chunks?, ([0-9]+) packets.*/\1 \2/p' i.txt)
		[ "$info" = "$lines $logged" ] || die "$mode: info says '$info', the log $lines chunks, $logged packets"
		local n; n=$(chunks_ok k) || die "$mode: $n"
		local kept; kept=$(sed -nE 's/^kept: .* chunks?( \([0-9]+ to [0-9]+\))?, ([0-9]+) packets.*/\2/p' i.txt)
		# every packet the ring numbered (those it holds, those it
		# lost) is kept or refused, and readers count the refused
		# ones, no more, as lost
		local inuse rlost klost
		"$W" info r >ri.txt 2>/dev/null
		inuse=$(sed -nE 's/^ring: .*, ([0-9]+) packets in use.*/\1/p' ri.txt)
		rlost=$(sed -nE 's/^losses: +([0-9]+) packets lost.*/\1/p' ri.txt)
		klost=$(sed -nE 's/^losses: +([0-9]+) packets lost.*/\1/p' i.txt)
		[ -n "$kept" ] && [ -n "$inuse" ] && [ -n "$rlost" ] && [ -n "$klost" ] ||
			die "$mode: info: $(cat i.txt ri.txt)"
		grep -q "^weft: kept $kept packets of 1 ring in $n chunks into 'k'" rec.txt ||
			die "$mode: not $kept packets kept in $n chunks: $(cat rec.txt)"
		# (the disk full for good, the refused packets are the run's
		# end: no later packet makes them a gap readers can count)
		local gap=$logged
		[ $mode = 150K ] && gap=0
		if [ -z "${WEFT_KEEP_LOSSY:-}" ]; then
			[ $((kept + logged)) = $((inuse + rlost)) ] ||
				die "$mode: $kept kept + $logged refused, the ring numbered $((inuse + rlost))"
			[ "$klost" = "$gap" ] || die "$mode: readers count $klost lost, $gap refused before the end"
		else
			[ $((kept + logged)) -le $((inuse + rlost)) ] && [ "$klost" -ge "$gap" ] ||
				die "$mode: $kept kept, $logged refused, $klost lost of $((inuse + rlost))"
		fi
		if [ $mode = 150K,1 ]; then
			[ "$lines" = 1 ] || die "$mode: $lines chunks refused, not one"
			grep -q '^writing again ' k/keep.log || die "$mode: no 'writing again'"
			# chunks were written after the refused one
			local after; after=$(awk '/^unwritten /{u=1; next} u && /^writing again/{print "yes"; exit}' k/keep.log)
			[ "$after" = yes ] || die "$mode: the log's order"
		else
			[ "$lines" -ge 2 ] || die "$mode: $lines chunks refused"
			! grep -q '^writing again ' k/keep.log || die "$mode: wrote again"
		fi
		"$W" dump k >d.txt 2>dump.err
		[ $? = 1 ] || die "$mode: dump's status"
		grep -qE "k: $logged packets lost: the disk refused their chunks" dump.err || die "$mode: not said: $(cat dump.err)"
		python3 "$CHECK" d.txt 100000 3 gaps >c.txt || die "$mode: $(cat c.txt)"
		echo "$mode: $n chunks, $kept packets kept, $logged refused in $lines chunks; $(cat c.txt)"
	done
}
run "a chunk write torn midway: no temporary file, the loss counted" t_torn_chunk

# weft dump --follow of a kept directory while it grows: chunks closed
# every 300 ms; every event printed once, in order, until the keeper
# ends; the same events as a dump of the finished directory.
t_follow() {
	rm -rf r k
	"$W" record -o r --size 1M --keep k --chunk 300ms -- "$NUM" 60000 40000 3 >/dev/null 2>rec.txt &
	local rec=$!
	wait_for k/keep.log
	timeout 60 "$W" dump --follow k >f.txt 2>f.err || die "dump --follow: $(cat f.err)"
	wait $rec || die "record: $(cat rec.txt)"
	[ "$(ls k/*.zst | wc -l)" -ge 5 ] || die "not rotated: $(ls k)"
	python3 "$CHECK" f.txt 60000 3 all || die "what --follow printed"
	"$W" dump k >d.txt 2>/dev/null || die "dump"
	[ "$(grep -c counter_set f.txt)" = "$(grep -c counter_set d.txt)" ] || die "not the same events"
}
run "weft dump --follow DIR follows a kept directory across rotations" t_follow

# Every reading command takes a kept directory of a run as one trace.
t_readers() {
	rm -rf r k
	"$W" record -o r --size 256K --keep k --chunk 64K -- "$NUM" 30000 60000 3 >/dev/null 2>rec.txt || die "record"
	"$W" stats k >s.txt 2>&1 || die "stats: $(cat s.txt)"
	grep -q "worker" s.txt || die "stats: $(cat s.txt)"
	"$W" why k >/dev/null 2>w.txt || die "why: $(cat w.txt)"
	"$W" export k -o k.json 2>e.txt || die "export: $(cat e.txt)"
	# (a build without the HTML viewer says so)
	if ! "$W" html k -o k.html 2>h.txt; then
		grep -q "viewer's files are missing" h.txt || die "html: $(cat h.txt)"
	fi
	"$W" ctf k -o ctf 2>c.txt || die "ctf: $(cat c.txt)"
	if command -v babeltrace2 >/dev/null; then
		# babeltrace2 reads every event weft reads of the directory
		# (all 90000 unless the keeper fell behind a loaded machine's
		# 256 KiB ring: then the losses are counted, and said)
		local n
		n=$("$W" dump k 2>/dev/null | grep -c ' counter_set ')
		"$W" info k >i.txt 2>&1
		[ "$n" = 90000 ] || grep -Eq "not kept: +[1-9]" i.txt ||
			die "weft reads $n of 90000 events, and no loss is said: $(cat i.txt)"
		babeltrace2 ctf >bt.txt 2>bt.err
		[ "$(grep -c 'counter_set' bt.txt)" = "$n" ] ||
			die "babeltrace2: $(grep -c 'counter_set' bt.txt) of the $n events weft reads: $(head -c 600 bt.err)"
	fi
	"$W" diff k r >/dev/null 2>dd.txt
	[ $? -le 1 ] || die "diff: $(cat dd.txt)"
	if "$W" --help 2>&1 | grep -q "^  render "; then
		"$W" render k -o k.png 2>rn.txt || die "render: $(cat rn.txt)"
	fi
	"$W" dump k r >/dev/null 2>m.txt || die "dump of DIR and the run together: $(cat m.txt)"
}
run "every reading command reads the kept directory" t_readers

# A chunk alone knows the async threads alive at its start: created
# (with their kind, labels and creator) in chunks before it, resolved in
# it; the whole directory sees each creation once; with the oldest chunks
# deleted, the directory's oldest chunk carries them.
export CARRY=$WEFT_BUILD/tests/keep/keep-carry
carried_lines() { # file: the carried events, without their times
	grep ' carried=1$' "$1" | cut -d' ' -f2- | sort
}
t_carry() {
	rm -rf r k
	# (a keeper of its own, of the plain layout: zstd -d of a chunk below)
	# (the worker's flood waits for the keeper: its copy of the manifest)
	"$W" record -o r --size 256K -- "$CARRY" 200000 go >out.txt 2>rec.txt &
	local rec=$! kp
	wait_for r/manifest
	"$W" keep r -o k --plain --chunk 64K 2>keep.txt &
	kp=$!
	wait_for k/manifest
	touch go
	wait $kp || die "keep: $(cat keep.txt)"
	wait $rec || die "record: $(cat rec.txt)"
	[ "$(cat out.txt)" = done ] || die "the program's output: $(cat out.txt)"
	local c last="" n=0 tid
	for c in k/*.zst; do
		n=$((n + 1))
		"$W" dump "$c" >c.txt 2>/dev/null
		grep -q 'resolve target=0x200 ' c.txt && last=$c
	done
	[ -n "$last" ] && [ "$n" -ge 3 ] || die "$n chunks; 0x200 resolved in '$last'"
	[ "$last" != "$(ls k/*.zst | head -1)" ] || die "0x200 resolved in the first chunk"
	"$W" dump "$last" >c.txt 2>c.err
	tid=$(grep ' resolve target=0x200 ' c.txt | cut -d' ' -f2)
	# exactly these, on the OS thread that created them; not the thread
	# resolved at the start (0x600); the worker's own OS thread's creation
	cat >want.txt <<-EOF
	$tid create child=0x100 kind="listener" by=0x0 carried=1
	$tid label thread=0x100 truncated=0 text="listener one" by=0x0 carried=1
	$tid create child=0x400 kind="request" by=0x0 carried=1
	$tid label thread=0x400 truncated=0 text="GET /slow" by=0x0 carried=1
	$tid create child=0x200 kind="conn" by=0x100 carried=1
	$tid label thread=0x200 truncated=0 text="conn from 10.0.0.7" by=0x100 carried=1
	$tid create_label child=0x300 kind="timer" label="every second" by=0x100 carried=1
	$tid create child=0x500 kind="query" by=0x400 carried=1
	$tid run thread=0x400 by=0x0 carried=1
	$tid try_read source=0x500 by=0x400 carried=1
	$tid run thread=0x0 by=0x400 carried=1
	EOF
	grep ' carried=1$' c.txt | grep -v 'child=0x700' | cut -d' ' -f2- >got.txt
	diff want.txt got.txt >&2 || die "$last: not the threads alive at its start"
	# at the chunk's start (its first time: 0), before its own events
	[ "$(grep ' carried=1$' c.txt | grep -vc '^0.000000000 ')" = 0 ] || die "carried later: $(grep -m3 ' carried=1$' c.txt)"
	head -1 c.txt | grep -q ' carried=1$' || die "not first: $(head -3 c.txt)"
	grep -vq ' carried=1$' c.txt || die "no events of its own"
	# outside the packet sequences: the losses are those of the chunk's
	# packets alone (zstd -d: the ring without the carried threads)
	if command -v zstd >/dev/null; then
		zstd -q -d -c "$last" >c.ring || die "zstd -d"
		"$W" info c.ring 2>/dev/null | grep '^losses:' >l1.txt
		"$W" info "$last" 2>/dev/null | grep '^losses:' >l2.txt
		grep -q ' [1-9][0-9]* packets lost' l1.txt && cmp -s l1.txt l2.txt ||
			die "losses: $(cat l1.txt) alone, $(cat l2.txt) with the carried threads"
	fi
	# explained alone: the request waits on its query since the start
	"$W" why "$last" --path "GET /slow" >w.txt 2>/dev/null || die "why --path"
	grep -q "^GET /slow (0x400, request): created at 0 s, resolved at" w.txt || die "$(cat w.txt)"
	grep -q "waiting on query 0x500 (0x500)" w.txt || die "$(cat w.txt)"
	# the whole directory: each creation once, none carried
	"$W" dump k >d.txt 2>/dev/null || die "dump k"
	! grep -q ' carried=1$' d.txt || die "the directory read carried events"
	[ "$(grep -c ' create child=0x200 ' d.txt)" = 1 ] || die "0x200 created $(grep -c ' create child=0x200 ' d.txt) times"
	# the same with a budget: the oldest chunk left carries them once
	rm -rf r k
	"$W" record -o r --size 256K --keep k --max-disk 256K --chunk 64K -- "$CARRY" 300000 >out.txt 2>rec.txt ||
		die "record: $(cat rec.txt)"
	grep -q "deleted to stay within" rec.txt || die "nothing deleted: $(cat rec.txt)"
	"$W" dump k >d.txt 2>/dev/null
	[ "$(grep -c ' create child=0x200 kind="conn" by=0x100 carried=1$' d.txt)" = 1 ] ||
		die "0x200 not carried once: $(grep 0x200 d.txt)"
	[ "$(grep -c 'child=0x' d.txt)" = "$(grep 'child=0x' d.txt | sort -u | wc -l)" ] || die "a creation twice"
	! grep -q 'child=0x600' d.txt || die "a resolved thread carried"
}
run "a chunk alone has the async threads alive at its start; the directory once" t_carry

# weft ctf of a kept directory whose oldest chunks were deleted, and of
# its oldest chunk alone, gives babeltrace2 what weft reads, the carried
# threads too (their creations, labels, waits: first in their streams,
# numbered just before the stream's first packet, so babeltrace2 reports
# no discarded packets that are not there).
t_ctf_carried() {
	command -v babeltrace2 >/dev/null || { echo "no babeltrace2"; exit 77; }
	rm -rf r k
	"$W" record -o r --size 256K --keep k --max-disk 256K --chunk 64K -- "$CARRY" 300000 >out.txt 2>rec.txt ||
		die "record: $(cat rec.txt)"
	grep -q "deleted to stay within" rec.txt || die "nothing deleted: $(cat rec.txt)"
	local first t ncar
	first=$(ls k/*.zst | head -1)
	for t in k "$first"; do
		rm -rf ctf
		"$W" ctf "$t" -o ctf 2>c.txt || die "ctf $t: $(cat c.txt)"
		babeltrace2 --clock-cycles ctf >bt.txt 2>bt.err || die "babeltrace2 $t: $(cat bt.err)"
		# (a keeper that fell behind a loaded machine's 256 KiB ring
		# leaves gaps babeltrace2 rightly reports: only then, the
		# directory saying so)
		"$W" info k >i.txt 2>&1
		grep -Eq "^not kept: +[1-9]" i.txt && sed -i '/^WARNING: Tracer discarded [0-9]* packets /d' bt.err
		[ -s bt.err ] && die "babeltrace2 warned ($t): $(head -c 600 bt.err)"
		"$W" dump --cycles --no-actor "$t" >d0.txt 2>/dev/null
		ncar=$(grep -c ' carried=1$' d0.txt)
		# (the listener, the request, 0x200, the timer, the query...)
		[ "$ncar" -ge 8 ] || die "$t: $ncar carried events"
		grep -q ' create child=0x200 kind="conn" carried=1$' d0.txt || die "$t: 0x200 not carried"
		sed 's/ carried=1$//' d0.txt >d.txt
		python3 "$WEFT_SRC/tests/cli/bt_compare.py" bt.txt d.txt >cmp.txt || die "$t: $(cat cmp.txt)"
		grep -q 'create: .*child = 0x200, kind = ( "conn"' bt.txt || die "$t: babeltrace2 has no creation of 0x200"
	done
}
run "weft ctf of a kept directory: babeltrace2 gets the carried threads" t_ctf_carried

# The index by async thread: weft keep --thread ID DIR lists, from the
# chunks' indexes alone, exactly the chunks whose own events (not the
# carried ones) name ID, as actor or in a field: for every async thread
# of the run (a listener in several chunks, a connection created in one
# and resolved chunks later, a thread in every chunk, ...), checked
# against each chunk's dump; an id no event names: nothing, status 1.
t_thread_index() {
	rm -rf r k
	"$W" record -o r --size 256K --keep k --chunk 64K -- "$CARRY" 200000 >out.txt 2>rec.txt ||
		die "record: $(cat rec.txt)"
	local c id ids n=0
	for c in k/*.zst; do
		"$W" dump "$c" 2>/dev/null | grep -v ' carried=1$' >"$c.txt"
	done
	ids=$(cat k/*.zst.txt | grep -oE '=0x[0-9a-f]+' | sort -u | grep -v '^=0x0$' | cut -c2-)
	[ "$(echo "$ids" | wc -w)" -ge 6 ] || die "only these threads: $ids"
	for id in $ids; do
		: >want.txt
		for c in k/*.zst; do
			grep -qE "=$id( |\$)" "$c.txt" && basename "$c" >>want.txt
		done
		"$W" keep --thread "$id" k >got.txt 2>err.txt || die "$id: status $?: $(cat err.txt)"
		diff want.txt got.txt >&2 || die "$id: not the chunks its events are in"
		[ -s err.txt ] && die "$id: $(cat err.txt)"
		n=$((n + $(wc -l <got.txt)))
	done
	[ "$(ls k/*.zst | wc -l)" -ge 3 ] && [ $n -gt "$(echo "$ids" | wc -w)" ] || die "too few chunks to tell"
	"$W" keep --thread 0xdead0 k >got.txt 2>err.txt
	[ $? = 1 ] && [ ! -s got.txt ] || die "an id no event names: $(cat got.txt err.txt)"
	"$W" keep --thread nothing k >/dev/null 2>err.txt
	[ $? = 2 ] && grep -q "an async thread's id" err.txt || die "a bad id: $(cat err.txt)"
	echo "$(echo "$ids" | wc -w) threads, $n chunk lists"
}
run "the index by async thread: weft keep --thread lists the chunks holding its events" t_thread_index

# weft dump --thread ID DIR reads only the chunks whose index names the
# async thread: its events are exactly those of the whole directory's
# read that name it (by= or a field), and the other chunks are never
# decompressed (damaged, they go unnoticed; read whole, the damage is said).
t_thread_read() {
	rm -rf r k
	"$W" record -o r --size 256K --keep k --chunk 64K -- "$CARRY" 200000 >out.txt 2>rec.txt ||
		die "record: $(cat rec.txt)"
	local id ids total n picked=0 c
	total=$(ls k/*.zst | wc -l)
	[ "$total" -ge 3 ] || die "$total chunks"
	"$W" dump --cycles k >full.txt 2>/dev/null || die "dump k"
	ids=$(grep -oE '=0x[0-9a-f]+' full.txt | sort -u | grep -v '^=0x0$' | cut -c2-)
	for id in $ids; do
		"$W" keep --thread "$id" k >list.txt 2>/dev/null || continue
		n=$(wc -l <list.txt)
		[ "$n" -lt "$total" ] || continue
		grep -E "=$id( |\$)" full.txt | grep -v ' carried=1$' >want.txt
		WEFT_KEPT_STATS=1 "$W" dump --cycles --thread "$id" k >got.txt 2>err.txt ||
			die "$id: status $?: $(cat err.txt)"
		grep -q "only the chunks whose events name $id were read" err.txt || die "$id: not said: $(cat err.txt)"
		grep -v ' carried=1$' got.txt | cmp -s - want.txt ||
			die "$id: not the events of a whole read that name it: $(grep -v ' carried=1$' got.txt | diff - want.txt | head -5)"
		[ -s want.txt ] || die "$id: no event"
		picked=$((picked + 1))
		[ $picked = 3 ] && break
	done
	[ $picked = 3 ] || die "$picked threads in fewer chunks than all"
	# the chunks the last one is not in, damaged: never read
	for c in k/*.zst; do
		grep -qx "$(basename "$c")" list.txt && continue
		python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[len(b)//2]^=0x55; open(p,'wb').write(b)" "$c"
	done
	"$W" dump --cycles --thread "$id" k >got2.txt 2>err.txt || die "$id: a chunk not named was read: $(cat err.txt)"
	grep -q "damaged" err.txt && die "$id: damage said: $(cat err.txt)"
	cmp -s got.txt got2.txt || die "$id: another result"
	"$W" dump k >/dev/null 2>err.txt && die "the damage unseen by a whole read"
	grep -q "damaged chunk" err.txt || die "the whole read: $(cat err.txt)"
	"$W" dump --thread 0xdead0 k >got.txt 2>err.txt
	[ $? = 1 ] && [ ! -s got.txt ] && grep -q "none of its $total chunks names the async thread 0xdead0" err.txt ||
		die "an id no event names: $(cat got.txt err.txt)"
	"$W" dump --thread nothing k >/dev/null 2>err.txt
	[ $? = 2 ] && grep -q "an async thread's id" err.txt || die "a bad id: $(cat err.txt)"
	echo "3 threads of $total chunks; the last in $n"
}
run "weft dump --thread ID DIR reads only the chunks naming the thread" t_thread_read

# weft why DIR ID --thread-chunks (and --path ID) reads only the chunks
# naming the thread: the same verdict as a whole read for every thread;
# the same text, time for time, for a thread whose chunks reach the
# directory's last (the trace then ends where it does); the others'
# chunks damaged go unnoticed.
t_thread_why() {
	rm -rf r k
	"$W" record -o r --size 256K --keep k --chunk 64K -- "$CARRY" 200000 >out.txt 2>rec.txt ||
		die "record: $(cat rec.txt)"
	local id last n full=0 c
	last=$(ls k/*.zst | tail -1)
	for id in 0x100 0x200 0x300 0x400 0x500 0x600 0x700; do
		"$W" keep --thread "$id" k >list.txt 2>/dev/null || die "$id: no chunk"
		n=$(wc -l <list.txt)
		"$W" why k "$id" >a.txt 2>/dev/null
		"$W" why k "$id" --thread-chunks >b.txt 2>/dev/null
		[ -s a.txt ] && [ "$(grep '^verdict:' a.txt)" = "$(grep '^verdict:' b.txt)" ] ||
			die "$id: $(cat a.txt b.txt)"
		grep -qx "$(basename "$last")" list.txt || continue
		[ "$n" -lt "$(ls k/*.zst | wc -l)" ] || continue
		"$W" why k --path "$id" >c.txt 2>/dev/null
		"$W" why k --path "$id" --thread-chunks >d.txt 2>/dev/null
		cmp -s a.txt b.txt && cmp -s c.txt d.txt || die "$id: $(diff a.txt b.txt; diff c.txt d.txt)"
		full=$((full + 1)) c=$id
	done
	[ $full -ge 2 ] || die "$full threads to compare whole"
	"$W" keep --thread "$c" k >list.txt
	for f in k/*.zst; do
		grep -qx "$(basename "$f")" list.txt && continue
		python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[len(b)//2]^=0x55; open(p,'wb').write(b)" "$f"
	done
	"$W" why k --path "$c" --thread-chunks >e.txt 2>err.txt || die "$c: $(cat err.txt)"
	cmp -s c.txt e.txt && ! grep -q damaged err.txt || die "$c: a chunk not named was read: $(cat err.txt)"
	"$W" why k "GET /slow" --thread-chunks >/dev/null 2>err.txt
	[ $? = 2 ] && grep -q "must be named by its id" err.txt || die "a label: $(cat err.txt)"
	echo "$full threads read whole from their chunks alone"
}
run "weft why --thread-chunks reads only the chunks naming the thread" t_thread_why

# The packed layout (the default) gives back every event of every type
# byte for byte, as the plain one does, in less than half its disk.
t_packed() {
	local G=$WEFT_BUILD/bench/server-gen bp bq
	[ -x "$G" ] || { echo "no bench/server-gen in this build"; exit 77; }
	rm -rf kp kq
	"$G" -n 300000 --size 67108864 -o s.weft >/dev/null || die "server-gen"
	"$W" keep s.weft -o kp --chunk 64K 2>e.txt || die "keep: $(cat e.txt)"
	"$W" keep s.weft -o kq --chunk 64K --plain 2>e.txt || die "keep --plain: $(cat e.txt)"
	"$W" dump --cycles s.weft >a.txt 2>/dev/null || die "dump"
	"$W" dump --cycles kp >b.txt 2>/dev/null || die "dump kp"
	"$W" dump --cycles kq >c.txt 2>/dev/null || die "dump kq"
	[ "$(awk '{print $3}' a.txt | sort -u | wc -l)" -ge 20 ] || die "event types: $(awk '{print $3}' a.txt | sort -u)"
	cmp -s a.txt b.txt || die "packed: not the ring's events: $(diff a.txt b.txt | head -5)"
	cmp -s a.txt c.txt || die "plain: not the ring's events"
	bp=$(cat kp/*.zst | wc -c) bq=$(cat kq/*.zst | wc -c)
	[ $((bp * 2)) -lt "$bq" ] || die "packed $bp bytes, plain $bq"
	echo "packed $bp bytes, plain $bq"
}
run "the packed layout: every event back byte for byte, in less disk" t_packed

# Reading a kept directory holds a few frames, not its rings: a reader
# decompresses a frame when it reads one of its packets, into a cache of
# 8 frames (docs/keep.md, "Bounded memory").  A directory of 25 times the
# events holds the same bytes of packets at most (WEFT_KEPT_STATS: 8
# frames of 128 KiB), decompresses each frame of the chunk about twice (the
# index, then the events), and (outside sanitizers, whose allocators keep
# what is freed) takes no more memory to read: the whole ring in memory
# took 20 MiB more for the bigger one.
t_bounded() {
	local G=$WEFT_BUILD/bench/server-gen n s f h sf sh rss big=0 small=0
	[ -x "$G" ] || { echo "no bench/server-gen in this build"; exit 77; }
	for n in 100000 2500000; do
		rm -rf kb$n
		"$G" -n $n --size 67108864 -o s$n.weft >/dev/null || die "server-gen"
		"$W" keep s$n.weft -o kb$n --chunk 64M 2>e.txt || die "keep: $(cat e.txt)"
		WEFT_KEPT_STATS=1 "$W" info kb$n >i.txt 2>e.txt || die "info: $(cat e.txt)"
		"$W" info s$n.weft >j.txt 2>/dev/null || die "info of the ring"
		[ "$(grep '^events:' i.txt)" = "$(grep '^events:' j.txt)" ] ||
			die "$n: $(grep '^events:' i.txt) of $(grep '^events:' j.txt)"
		s=$(sed -nE 's/^weft: kept: ([0-9]+) frames decompressed, at most ([0-9]+) bytes of packets held$/\1 \2/p' e.txt | tail -1)
		f=${s% *} h=${s#* }
		[ -n "$s" ] && [ "$h" -le $((8 * 131072)) ] ||
			die "$n: ${h:-?} bytes held: $(cat e.txt)"
		rss=$(python3 -c '
import os, sys
pid = os.posix_spawn(sys.argv[1], [sys.argv[1], "info", sys.argv[2]], os.environ,
                     file_actions=[(os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0)])
print(os.wait4(pid, 0)[2].ru_maxrss)' "$W" kb$n)
		[ $n = 100000 ] && small=$rss || big=$rss
		echo "$n events: $f frames decompressed, at most $h bytes held, $rss KiB"
		[ $n = 100000 ] && { sf=$f; sh=$h; }
	done
	[ "$h" = "$sh" ] || die "held $sh, then $h bytes for 25 times the events"
	[ "$f" -gt $((sf * 10)) ] || die "frames: $sf, then $f"
	case " ${WEFT_TEST_CFLAGS:-} " in *sanitize*) return 0 ;; esac
	[ $((big - small)) -lt 6144 ] || die "$small KiB, then $big KiB for 25 times the events"
}
run "reading a kept directory holds a few frames, not its rings" t_bounded

# weft keep -o DIR and weft record --keep DIR follow a symbolic link the
# caller owns, never one another user owns, at any step of its chain.
t_link() {
	rm -rf r r2 target victim mine planted via ran
	"$W" record -o r --size 256K -- "$NUM" 2000 20000 1 >/dev/null 2>rec.txt || die "record: $(cat rec.txt)"
	mkdir target && ln -s target mine
	"$W" keep r -o mine 2>e.txt || die "my own link: $(cat e.txt)"
	[ -f target/keep.log ] && [ "$(ls target/*.zst | wc -l)" -ge 1 ] || die "my own link not followed: $(ls -A target)"
	[ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 || { echo "not root, or no user nobody"; exit 77; }
	mkdir victim && ln -s victim planted && chown -h nobody planted
	"$W" keep r -o planted 2>e.txt
	[ $? = 2 ] || die "another user's link: exit $?: $(cat e.txt)"
	grep -qx "weft: 'planted' is a symbolic link its caller does not own: weft never follows it" e.txt || die "$(cat e.txt)"
	[ -z "$(ls -A victim)" ] || die "the link was followed: $(ls -A victim)"
	# a link of the caller's to it: the next step is refused
	ln -s planted via
	"$W" keep r -o via 2>e.txt
	[ $? = 2 ] || die "through another user's link: exit $?: $(cat e.txt)"
	grep -qx "weft: 'via' leads through a symbolic link its caller does not own: weft never follows it" e.txt || die "$(cat e.txt)"
	[ -z "$(ls -A victim)" ] || die "the chain was followed: $(ls -A victim)"
	# weft record --keep: refused before the command runs
	"$W" record -o r2 --keep planted -- touch ran 2>e.txt
	[ $? = 2 ] && [ ! -e ran ] || die "record --keep through another user's link: $(cat e.txt)"
	grep -q "'planted' is a symbolic link its caller does not own" e.txt || die "$(cat e.txt)"
	[ -z "$(ls -A victim)" ] || die "record --keep followed it: $(ls -A victim)"
}
run "keep -o DIR: a link another user owns is never followed" t_link

# weft view DIR follows a growing kept directory across rotations: read
# again at each new chunk, the last time with every event the keeper
# wrote (events written after rotations).
t_view_follow() {
	command -v xvfb-run >/dev/null || { echo "no xvfb-run"; exit 77; }
	"$W" --help 2>&1 | grep -q "^  view " || { echo "no viewer in this build"; exit 77; }
	rm -rf r k
	"$W" record -o r --size 1M --keep k --chunk 200ms -- "$NUM" 36000 30000 3 >/dev/null 2>rec.txt &
	local rec=$! i
	wait_for k/keep.log
	for i in $(seq 200); do ls k/*.zst >/dev/null 2>&1 && break; sleep 0.05; done
	WEFT_VIEW_ECHO=1 WEFT_VIEW_SCREENSHOT="$PWD/v.png" WEFT_VIEW_DELAY_MS=10000 \
		timeout 60 xvfb-run -a -s "-screen 0 1280x800x24" "$W" view k >/dev/null 2>v.err ||
		die "view: $(tail -5 v.err)"
	wait $rec || die "record: $(cat rec.txt)"
	[ "$(ls k/*.zst | wc -l)" -ge 4 ] || die "not rotated: $(ls k)"
	grep '^kept: read again, ' v.err | awk '{print $4}' >n.txt
	[ "$(wc -l <n.txt)" -ge 3 ] || die "read again $(wc -l <n.txt) times: $(grep kept v.err)"
	sort -n -c n.txt || die "fewer events after: $(cat n.txt)"
	local all
	all=$("$W" info k 2>/dev/null | awk '/^events:/ {print $2}')
	[ "$(tail -1 n.txt)" = "$all" ] || die "the last read: $(tail -1 n.txt) events of $all"
	[ "$(head -1 n.txt)" -lt "$all" ] || die "nothing came after the first read: $(cat n.txt)"
}
run "weft view DIR follows a kept directory across rotations" t_view_follow

# A keeper killed and started again rebuilds the threads alive from the
# directory (its newest chunk, read back): the chunks it writes carry the
# threads the first keeper saw created.
t_carry_restart() {
	rm -rf r k
	"$W" record -o r --size 1M -- "$CARRY" 600000 go >out.txt 2>rec.txt &
	local rec=$! kp i c ready="" n1
	wait_for r/manifest
	"$W" keep r -o k --chunk 64K 2>k1.txt &
	kp=$!
	wait_for k/manifest
	touch go
	for i in $(seq 500); do
		for c in k/*.zst; do
			[ -e "$c" ] || continue
			"$W" dump "$c" 2>/dev/null | grep -v ' carried=1$' | grep -q ' create child=0x200 ' && ready=$c
		done
		[ -n "$ready" ] && break
		sleep 0.02
	done
	kill -9 $kp
	wait $kp 2>/dev/null
	[ -n "$ready" ] || die "the first keeper never kept 0x200's creation"
	n1=$(ls k/*.zst | tail -1)
	"$W" keep r -o k --chunk 64K 2>k2.txt || die "the second keeper: $(cat k2.txt)"
	wait $rec || die "record: $(cat rec.txt)"
	local last=""
	for c in k/*.zst; do
		"$W" dump "$c" >c.txt 2>/dev/null
		grep -q ' resolve target=0x200 ' c.txt && last=$c
	done
	[ -n "$last" ] && [[ "$last" > "$n1" ]] || die "0x200 resolved in '$last', the first keeper's last chunk: $n1"
	"$W" dump "$last" >c.txt 2>/dev/null
	grep -q ' create child=0x200 kind="conn" by=0x100 carried=1$' c.txt || die "$last: 0x200 not carried: $(grep -m5 carried c.txt)"
	grep -q ' label thread=0x200 truncated=0 text="conn from 10.0.0.7" by=0x100 carried=1$' c.txt || die "$last: its label"
	grep -q ' try_read source=0x500 by=0x400 carried=1$' c.txt || die "$last: the request's wait"
	! grep -q 'child=0x600' c.txt || die "a resolved thread carried"
}
run "a keeper started again carries the threads alive the first one saw" t_carry_restart

tap_done
