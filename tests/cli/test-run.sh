#!/bin/bash
# SPDX-License-Identifier: MIT
# test-run.sh - whole programs: `weft record` keeps one run directory (each
# process's ring and the manifest of the tree); every reading command reads
# it, bundles and several rings merged; the process tree with how each
# process ended; process creation arrows; snapshots of a running tree;
# CTF of a run for babeltrace2; what weft record refuses.  TAP output.
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
W=$WEFT_BIN
EX=$WEFT_BUILD/examples
. "$WEFT_SRC/tests/tap.sh"
tap_init run "$@"
# (a sanitizer build's shim brings its runtime into sh: let it load late)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"


# The manifest's words come from one table (src/common/manifest.h): a
# run of every kind of line (weft record's fork, libweft's proc, ring,
# exit and fork lines, the shims' spawn and reaped lines, weft record's
# reaped) uses no other word, and docs/format.md's table of the lines
# names every line and key of it.
t_manifest_table() {
	"$W" record -o xm -- sh -c "'$EX/forker' >/dev/null; '$EX/all-events' >/dev/null; (exit 4); exit 3" 2>rec.txt
	[ $? = 3 ] || die "$(cat rec.txt)"
	python3 - "$WEFT_SRC" xm/manifest <<'PY' || exit 1
import re, sys
src, man = sys.argv[1], sys.argv[2]
h = open(src + '/src/common/manifest.h').read()
lines = re.findall(r'X\([A-Z]+, "([a-z-]+)"\)', h)
keys = re.findall(r'X\([A-Z]+, "([a-z]+)", -?[0-9]+\)', h)
assert len(lines) >= 7 and len(keys) >= 18, (lines, keys)
seen = set()
for l in open(man):
    f = l.split()
    assert f[0] in lines, 'a line the table does not have: ' + l
    seen.add(f[0])
    for kv in f[1:]:
        k = kv.split('=', 1)[0]
        assert k in keys, 'a key the table does not have: %s in %s' % (k, l)
assert seen == set(lines), 'lines of the table the run did not write: %s' % (set(lines) - seen)
doc = open(src + '/docs/format.md').read()
runs = doc[doc.index('## Runs'):doc.index('## Header region')]
for w in lines:
    assert '| `%s` |' % w in runs, 'docs/format.md does not describe the %s line' % w
for k in keys:
    assert '`%s=' % k in runs, 'docs/format.md does not name %s=' % k
PY
}

# The loops come from one table (src/common/loops.h): each word --loops
# takes (as its error lists them) chooses one loop of its own, and the man
# page's --loops lists every word.
t_loops_table() {
	"$W" record --loops nosuch -- true 2>err.txt && die "--loops nosuch accepted"
	local words
	words=$(sed -n "s/.*--loops must be \(.*\) (comma-separated), all or none (not 'nosuch')$/\1/p" err.txt | tr -d ,)
	[ "$(echo $words | wc -w)" -ge 3 ] || die "the words: $(cat err.txt)"
	local man w names=
	man=$(sed -n '/^\.BI \\-\\-loops " LIST"/,/^\.TP/p' "$WEFT_SRC/docs/weft.1")
	for w in $words; do
		echo "$man" | grep -qE "(^|[ \"])$w([ \",]|\$)" || die "the man page's --loops does not say $w: $man"
		"$W" record --loops "$w" -o "x$w" -- true 2>rec.txt || die "--loops $w: $(cat rec.txt)"
		grep -q "no shim for" rec.txt && continue # (a build without it)
		local n
		n=$(sed -n 's/.*; preloaded: \(.*\) (chosen with --loops)$/\1/p' rec.txt)
		[ -n "$n" ] && [ "${n#*,}" = "$n" ] || die "--loops $w: $(cat rec.txt)"
		case " $names " in *" $n "*) die "$w chooses $n again" ;; esac
		names="$names $n"
	done
	echo "words: $words; loops:$names"
}

# A tree: sh runs forker (which forks a child that records) and
# all-events, and exits 3.  One directory holds it all.
t_tree() {
	"$W" record -o r -- sh -c "'$EX/forker' >child.pid; '$EX/all-events' >/dev/null; exit 3" 2>rec.txt
	[ $? = 3 ] || die "status not passed through: $(cat rec.txt)"
	[ -d r ] && [ -f r/manifest ] || die "no run directory: $(ls -la)"
	local child; child=$(cat child.pid)
	[ -f "r/ring.$child" ] || die "no ring of the forked child: $(ls r)"
	[ "$(ls r | grep -c '^ring')" = 3 ] || die "rings: $(ls r)"
	grep -q "the run is in 'r':" rec.txt || die "$(cat rec.txt)"
	grep -qE "^weft: +pid $child forker: [0-9]+ events, 1 OS thread, exited with status 0" rec.txt ||
		die "the child in the summary: $(cat rec.txt)"
	grep -q "more process.* recorded nothing" rec.txt || die "$(cat rec.txt)"
	"$W" info r >info.txt || die "info: $(cat info.txt)"
	grep -q "^processes: 4 (3 recorded)$" info.txt || die "$(cat info.txt)"
	grep -qE "^  [0-9]+ sh: exited with status 3" info.txt || die "$(cat info.txt)"
	grep -qE "^      $child forker: exited with status 0" info.txt || die "$(cat info.txt)"
	grep -qE "^    [0-9]+ all-events: exited with status 0" info.txt || die "$(cat info.txt)"
	# the arguments, from the manifest
	grep -qF "exit 3" info.txt || die "no arguments: $(cat info.txt)"
	# one trace: every event of the three rings, merged in time order
	"$W" dump r >d.txt || die "dump"
	local sum=0 k
	for k in r/ring r/ring.*; do
		[ -f "$k" ] || continue
		sum=$((sum + $("$W" dump "$k" | wc -l)))
	done
	local made; made=$(grep -c 'x3ffe0000000000' d.txt)
	[ "$(wc -l <d.txt)" -gt "$sum" ] || die "merged $(wc -l <d.txt), rings $sum"
	awk 'NR > 1 && $1 < last { print "out of order: " $0; exit 1 } { last = $1 }' d.txt || die "not in time order"
	python3 - "$child" <<'PY' || exit 1
import re, sys
child = sys.argv[1]
lines = open('d.txt').read().splitlines()
# the child's process thread: labelled with its pid, created by the thread
# that ran in its parent when it forked (forker's thread 1, in the
# parent's ring's ids), and resolved when it exited 0
lab = [l for l in lines if ' label ' in l and f'(pid {child})' in l]
assert lab, 'no label of the child'
x = re.search(r'thread=(0x3ffe[0-9a-f]+)', lab[0]).group(1)
cr = [l for l in lines if f' create child={x} kind="process"' in l]
assert cr, 'no creation of ' + x
by = re.search(r'by=(0x[0-9a-f]+)', cr[0]).group(1)
assert int(by, 16) & 0xffffffffffff == 1 and not by.startswith('0x3ffe'), cr[0]
# the parent's thread 1 is the one that ran "parent before fork"
assert any(f'label thread={by} ' in l and 'parent before fork' in l for l in lines), by
assert any(f' resolve target={x} by={x}' in l for l in lines), 'its exit'
# what the child's main thread did outside async threads, its process
# thread did: it ran its thread 2 ("child")
run2 = [l for l in lines if ' run thread=' in l and f' by={x}' in l]
assert run2, 'the process thread did not act'
PY
}

# A test suite whose every test records: the summary names the first ten
# recording processes and those that did not exit 0 (ten at most), then how
# many more recorded; weft info lists them all.
t_many_recorders() {
	"$W" record -o mr -- sh -c "for i in \$(seq 30); do '$EX/all-events' >/dev/null; done;
		timeout -s KILL 0.3 '$EX/ticker' >/dev/null; true" 2>rec.txt || die "$(cat rec.txt)"
	[ "$(grep -cE '^weft: +pid [0-9]+ all-events: 55 events, 3 OS threads, exited with status 0$' rec.txt)" = 10 ] ||
		die "$(cat rec.txt)"
	grep -qE '^weft: +pid [0-9]+ ticker: [0-9]+ events, 1 OS thread, ' rec.txt || die "$(cat rec.txt)"
	grep -q "^weft:   (20 more processes recorded: weft info mr lists them)$" rec.txt || die "$(cat rec.txt)"
	"$W" info mr >info.txt || die "$(cat info.txt)"
	[ "$(grep -cE '^ +[0-9]+ all-events: exited with status 0, .* in mr/ring\.' info.txt)" = 30 ] ||
		die "$(cat info.txt)"
}

# Two servers started together, each starting its client: weft info
# lists each process right under its parent, whatever order they began.
t_tree_order() {
	[ -x "$EX/uv-echo-split" ] || die "no uv-echo-split (built without libuv)"
	"$W" record -o to -- sh -c "'$EX/uv-echo-split' tcp 50 >/dev/null & '$EX/uv-echo-split' pipe 50 >/dev/null; wait" 2>rec.txt ||
		die "$(cat rec.txt)"
	"$W" info to >info.txt || die "$(cat info.txt)"
	python3 - <<'PY' || exit 1
import re
ppid = {}
for l in open('to/manifest'):
    m = re.match(r'(fork|proc) pid=(\d+) ppid=(\d+)', l)
    if m:
        ppid.setdefault(m.group(2), m.group(3))
lines = open('info.txt').read().split('processes:')[1].split('\nevents:')[0].splitlines()[1:]
stack, n = [], 0
for l in lines:
    m = re.match(r'( +)(\d+) ', l)
    if not m or not re.match(r' +\d+ \S+: ', l):
        continue
    depth = (len(m.group(1)) - 2) // 2
    del stack[depth:]
    if depth:
        assert stack and ppid.get(m.group(2)) == stack[-1], ('not under its parent', l, stack)
        n += 1
    stack.append(m.group(2))
assert n >= 4, n
PY
}

# posix_spawn (no fork handler runs in the child): the parent's thread
# that called it creates the child, as a fork's does.
t_posix_spawn() {
	"$W" record -o ps -- "$EX/forker" spawn >child.pid 2>rec.txt || die "$(cat rec.txt)"
	local child; child=$(cat child.pid)
	grep -q "^spawn pid=[0-9]* child=$child " ps/manifest || die "$(cat ps/manifest)"
	"$W" info ps >info.txt || die "$(cat info.txt)"
	grep -qE "^    $child forker: exited with status 0" info.txt || die "$(cat info.txt)"
	"$W" dump ps >d.txt || die "dump"
	local x by
	x=$(sed -n "s/.* label thread=\(0x3ffe[0-9a-f]*\) .*(pid $child).*/\1/p" d.txt)
	[ -n "$x" ] || die "no process thread of the child: $(cat d.txt)"
	by=$(sed -n "s/.* create child=$x kind=\"process\" by=\(0x[0-9a-f]*\)$/\1/p" d.txt)
	[ "$by" = 0x1 ] || die "created by '$by', not the thread that called posix_spawn: $(cat d.txt)"
	grep -q "label thread=0x1 .*parent before fork" d.txt || die "$(cat d.txt)"
}

# An exec: sh replaced by the program; both images in the tree.
t_exec() {
	"$W" record -o x -- sh -c "exec '$EX/all-events' >/dev/null" 2>rec.txt || die "$(cat rec.txt)"
	"$W" info x >info.txt || die "$(cat info.txt)"
	grep -qE "^  [0-9]+ sh: exec'd" info.txt || die "$(cat info.txt)"
	grep -qE "^  [0-9]+ \(exec\) all-events: exited with status 0" info.txt || die "$(cat info.txt)"
}

# What a process that records nothing pays at start-up (record.spawn_
# overhead): a forked child's image takes no start token from /proc (its
# fork line, or its parent's spawn line when the preloaded fork() forked
# it, started it: start=0), one started without either (dash runs a lone
# command through vfork) does; and a process that shares weft
# record's time namespace takes the offset from WEFT_TIMENS, one in another
# namespace reads its own: every time in the manifest is the machine's.
t_start_and_timens() {
	# (and the executable from exec's own name when it is no script: a
	# script's is its interpreter's, /proc/self/exe's, as before)
	printf '#!/bin/sh\nexit 0\n' >s.sh && chmod +x s.sh
	"$W" record -o st -- sh -c "env | cat >/dev/null; /bin/true; ./s.sh" 2>rec.txt || die "$(cat rec.txt)"
	python3 - st/manifest "$(readlink -f /bin/sh)" "$(readlink -f /bin/true)" <<'PY' || exit 1
import re, sys
lines = open(sys.argv[1]).read().splitlines()
exes = [re.search(r' exe=(\S+)', l).group(1) for l in lines if l.startswith('proc ')]
assert exes.count(sys.argv[2]) == 2, exes  # sh, and the script's interpreter
assert sys.argv[3] in exes, exes
forked = {m.group(1) for m in (re.match(r'fork pid=(\d+)', l) for l in lines) if m}
forked |= {m.group(1) for m in (re.match(r'spawn pid=\d+ child=(\d+)', l) for l in lines) if m}
procs = {}
for l in lines:
    m = re.match(r'proc pid=(\d+) .*start=(\d+) .*exe=(\S+)', l)
    if m:
        procs[m.group(3).rsplit('/', 1)[-1]] = (m.group(1), int(m.group(2)))
assert procs['env'][0] in forked and procs['env'][1] == 0, procs
assert procs['true'][0] not in forked and procs['true'][1] > 0, procs
PY
	command -v unshare >/dev/null || die "no unshare (util-linux)"
	# (the offset: 3 days ahead)
	"$W" record -o tn -- unshare --time --monotonic 259200 sh -c "env | cat >/dev/null; /bin/true" 2>rec.txt ||
		die "$(cat rec.txt)"
	python3 - tn/manifest <<'PY' || exit 1
import re, sys
lines = open(sys.argv[1]).read().splitlines()
t = [int(re.search(r' t=(-?\d+)', l).group(1)) for l in lines]
lo, hi = t[0], t[-1]
assert lines[-1].startswith('reaped '), lines[-1]
for l, x in zip(lines, t):
    assert lo <= x <= hi, ('not the machine\'s time', l, lo, hi)
procs = [l for l in lines if l.startswith('proc ')]
assert len(procs) >= 4, procs  # unshare, sh, env, cat, true
PY
}

# A forked child that execs with an environment of its own (a copy made
# before the fork, as uv_spawn's and a shell's are) still tells its image
# that its fork line was written: the exec functions pass WEFT_FORKED
# naming the child (each of the seven), and nothing else changes; an
# environment without WEFT_FORKED is passed as it is.  The line is its
# parent's (the preloaded fork() returned there), timed before the fork:
# before anything of the child.
t_exec_env() {
	"$W" record -o ee -- "$EX/forker" exec >pids.txt 2>rec.txt || die "$(cat rec.txt)"
	[ "$(wc -l <pids.txt)" = 7 ] || die "$(cat pids.txt rec.txt)"
	python3 - ee/manifest pids.txt <<'PY' || exit 1
import re, sys
lines = open(sys.argv[1]).read().splitlines()
pids = open(sys.argv[2]).read().split()
forks = {re.match(r'fork pid=(\d+)', l).group(1) for l in lines if l.startswith('fork ')}
parent = re.match(r'proc pid=(\d+) .* arg=exec$', lines[2]).group(1)
said = {}
for l in lines:
    m = re.match(r'spawn pid=(\d+) child=(\d+) tid=(\d+) by=0 spawn=0 fork=1 t=(\d+) real=\d+$', l)
    if m:
        assert m.group(1) == parent and m.group(3) == parent, l
        said[m.group(2)] = int(m.group(4))
procs = {}
for l in lines:
    m = re.match(r'proc pid=(\d+) .*start=(\d+) t=(\d+) .*exe=\S+ arg=\S+ arg=child$', l)
    if m:
        procs[m.group(1)] = (int(m.group(2)), int(m.group(3)))
for p in pids:
    assert p not in forks, ('a fork line of the child', p, lines)
    assert p in said, ('no spawn line of its parent', p, lines)
    assert procs.get(p, (1,))[0] == 0, ('start token read', p, procs, lines)
    assert said[p] < procs[p][1], ('spawn line timed after the child loaded', p, lines)
PY
	for p in $(cat pids.txt); do
		[ -s "ee/ring.$p" ] || die "child $p recorded nothing: $(ls ee)"
	done
	"$W" info ee >info.txt || die "$(cat info.txt)"
	[ "$(grep -cE '^    [0-9]+ forker: exited with status 0, .* in ee/ring\.' info.txt)" = 7 ] ||
		die "$(cat info.txt)"
	# (python's os.execve: an environment without the variable)
	"$W" record -o en -- python3 -c '
import os
env = {k: v for k, v in os.environ.items() if k != "WEFT_FORKED"}
env["ONLY"] = "1"
pid = os.fork()
if pid == 0:
    os.execve("/usr/bin/env", ["env"], env)
os.waitpid(pid, 0)' >env.txt 2>rec.txt || die "$(cat rec.txt)"
	grep -qx ONLY=1 env.txt || die "$(cat env.txt)"
	! grep -q '^WEFT_FORKED=' env.txt || die "WEFT_FORKED added: $(cat env.txt)"
}

# WEFT_TIMENS is believed only when this process's clocks agree with it:
# a value claiming an offset of -7 s is used when its clocks agree (the
# proc line's time is 7 s behind), not when its clocks are 10 s off
# (the offset is then read from /proc: 0 here).
t_timens_env() {
	local pre=$WEFT_BUILD/libweft-preload.so
	[ -f "$pre" ] || die "no $pre"
	mkdir -p te1 te2
	python3 - "$pre" <<'PY' || exit 1
import os, re, subprocess, sys, time
def clocks():
    r = time.clock_gettime_ns(time.CLOCK_REALTIME)
    m = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    return r, m
def run(d, boot_shift):
    r, m = clocks()
    env = dict(os.environ, WEFT_RUN=os.path.abspath(d), LD_PRELOAD=sys.argv[1],
               WEFT_TIMENS=f'{r - m + boot_shift}:-7000000000:{r}')
    for k in ('WEFT_FILE', 'WEFT_ROOT_PID', 'WEFT_SESSION', 'WEFT_FORKED'):
        env.pop(k, None)
    subprocess.run(['/bin/true'], env=env, check=True)
    _, after = clocks()
    t = [int(re.search(r' t=(-?\d+)', l).group(1)) for l in open(d + '/manifest') if l.startswith('proc ')]
    assert len(t) == 1, t
    return m, t[0], after
m, t, after = run('te1', 0)
assert m - 7000000000 <= t <= after - 7000000000, ('not the offset said', m, t, after)
m, t, after = run('te2', 10000000000)
assert m <= t <= after, ('the offset said, though the clocks disagree', m, t, after)
PY
}

# Killed by a signal: weft record reaps it and says how it ended.
t_killed() {
	"$W" record -o k -- "$EX/ticker" 30 >/dev/null 2>rec.txt &
	local rp=$! c=
	for _ in $(seq 50); do
		c=$(pgrep -P $rp)
		[ -n "$c" ] && [ -f k/ring ] && break
		sleep 0.1
	done
	[ -n "$c" ] || die "no child"
	sleep 0.3
	kill -KILL "$c"
	wait $rp; local rc=$?
	[ $rc = 137 ] || die "exit $rc, want 137"
	"$W" info k >info.txt 2>&1 || die "$(cat info.txt)"
	grep -qE "^  $c ticker: killed by signal 9" info.txt || die "$(cat info.txt)"
	grep -q "^writer:    gone without stopping" info.txt || die "$(cat info.txt)"
}

# Ends that exit() does not see (docs/runs.md, "How each process ended"):
# the preloaded _exit() writes the exit line, a traced parent's wait the
# reaped line.  After each run no process is left running or vanished.
procs() { sed -n '/^processes/,/^events/p' info.txt; }
ended_all() {
	"$W" info "$1" >info.txt 2>&1 || die "info: $(cat info.txt)"
	grep -q "^processes: " info.txt || die "no processes: $(cat info.txt)"
	! grep -qE "^ +[0-9]+ .*: (running|vanished|stopped recording)" info.txt ||
		die "a process without its end: $(procs)"
}
# The pid of the process of run $1 with an image whose executable's name
# matches $2 (a regular expression) and which has the argument $3 (as the
# manifest escapes it, whole); one only (else its message on stderr: it
# runs in $(...)).
pid_of_arg() {
	local p
	p=$(awk -v re="$2" -v a="arg=$3" '$1 == "proc" {
		ok = ex = 0
		for (i = 2; i <= NF; i++) {
			ok = ok || $i == a
			ex = ex || $i ~ ("^exe=.*/" re "$")
		}
		if (ok && ex) { sub("pid=", "", $2); print $2 }
	}' "$1/manifest" | sort -u)
	[ -n "$p" ] && [ "$(echo "$p" | wc -l)" = 1 ] ||
		die "pid of $2 '$3': '$p' in $(cat "$1/manifest")" >&2
	echo "$p"
}

# dash ends with _exit (every sh -c): the inner sh's status 7, said by
# itself and by the outer sh that reaped it.
t_exit_dash() {
	"$W" record -o xdash -- sh -c "'$EX/ticker' 0.01 >/dev/null; sh -c 'exit 7'; echo \$?; sh -c 'exit 300'; echo \$?" >out.txt 2>rec.txt ||
		die "record: $(cat rec.txt)"
	[ "$(cat out.txt)" = "7
44" ] || die "the statuses sh saw: $(cat out.txt)"
	local outer inner inner2
	outer=$(sed -n 's/^fork pid=\([0-9]*\) ppid=[0-9]* tid=0 by=0 .*/\1/p' xdash/manifest)
	inner=$(pid_of_arg xdash dash 'exit%207') || exit 1
	inner2=$(pid_of_arg xdash dash 'exit%20300') || exit 1
	grep -q "^exit pid=$inner status=7 " xdash/manifest || die "no exit line: $(cat xdash/manifest)"
	grep -q "^reaped pid=$inner status=7 by=$outer " xdash/manifest || die "no reaped line: $(cat xdash/manifest)"
	# the status the parent sees: the low 8 bits
	grep -q "^exit pid=$inner2 status=44 " xdash/manifest || die "status 300: $(cat xdash/manifest)"
	ended_all xdash
	grep -qE "^    $inner sh: exited with status 7, " info.txt || die "$(procs)"
	grep -qE "^    $inner2 sh: exited with status 44, " info.txt || die "$(procs)"
	grep -qE "^  $outer sh: exited with status 0, " info.txt || die "$(procs)"
	grep -q "^processes: 4 (1 recorded)$" info.txt || die "$(procs)"
	# with no loop shim on, the library is preloaded all the same
	"$W" record --loops none -o xnone -- sh -c "sh -c 'exit 7'" 2>rec.txt; [ $? = 7 ] || die "$(cat rec.txt)"
	grep -q "preloaded: no loop shim (the process tree only)$" rec.txt || die "$(cat rec.txt)"
	inner=$(pid_of_arg xnone dash 'exit%207') || exit 1
	grep -q "^exit pid=$inner status=7 " xnone/manifest || die "--loops none: $(cat xnone/manifest)"
}

# Processes the manifest knows only by their end: dash's vfork child
# whose exec failed (no fork handler runs in a vfork child; it leaves
# through the preloaded _exit, running its parent's program) and a
# statically linked program (no preload: the parent's wait says it).
# Each sits under the sh that started it, from its end on.
t_exit_unloaded() {
	printf 'int main(void) { return 5; }\n' >st.c
	cc -static st.c -o static5 2>cc.txt || { echo "no static libc: $(cat cc.txt)"; exit 77; }
	"$W" record -o xunl -- sh -c "'$EX/ticker' 0.01 >/dev/null; ./none-such 2>/dev/null; echo \$?; ./static5; echo \$?" >out.txt 2>rec.txt ||
		die "record: $(cat rec.txt)"
	[ "$(cat out.txt)" = "127
5" ] || die "the statuses sh saw: $(cat out.txt)"
	local outer vf st
	outer=$(sed -n 's/^fork pid=\([0-9]*\) ppid=[0-9]* tid=0 by=0 .*/\1/p' xunl/manifest)
	vf=$(sed -n "s/^exit pid=\([0-9]*\) status=127 ppid=$outer .*/\1/p" xunl/manifest)
	[ -n "$vf" ] || die "the vfork child's exit line: $(cat xunl/manifest)"
	grep -q "^reaped pid=$vf status=127 by=$outer " xunl/manifest || die "$(cat xunl/manifest)"
	st=$(sed -n "s/^reaped pid=\([0-9]*\) status=5 by=$outer .*/\1/p" xunl/manifest)
	[ -n "$st" ] || die "the static program's end: $(cat xunl/manifest)"
	! grep -q "^[a-z]* pid=$st " <(grep -v '^reaped' xunl/manifest) || die "a line from the static program? $(cat xunl/manifest)"
	ended_all xunl
	grep -qE "^    $vf sh: exited with status 127, " info.txt || die "$(procs)"
	grep -qE "^    $st : exited with status 5, " info.txt || die "$(procs)"
	grep -q "^processes: 4 (1 recorded)$" info.txt || die "$(procs)"
}

# Python's os._exit(6) in a child of sh, after its children ended: one
# through subprocess (waitpid), one forked that leaves with os._exit(5)
# (reaped with waitid), one that kills itself (reaped with wait4).
t_exit_python() {
	command -v python3 >/dev/null || exit 77
	cat >ex.py <<'EOF'
import os, signal, subprocess, sys
subprocess.run([sys.argv[1], "0.01"], stdout=subprocess.DEVNULL)
pid = os.fork()
if pid == 0:
    os._exit(5)
r = os.waitid(os.P_PID, pid, os.WEXITED)
print("waitid", r.si_pid == pid, r.si_status)
pid = os.fork()
if pid == 0:
    os.kill(os.getpid(), signal.SIGKILL)
p, st, ru = os.wait4(pid, 0)
print("wait4", p == pid, os.WTERMSIG(st))
sys.stdout.flush()
os._exit(6)
EOF
	"$W" record -o xpy -- sh -c "python3 ex.py '$EX/ticker'; echo \$?" >out.txt 2>rec.txt ||
		die "record: $(cat rec.txt)"
	[ "$(cat out.txt)" = "waitid True 5
wait4 True 9
6" ] || die "status: $(cat out.txt)"
	local py tk c1 c2
	py=$(pid_of_arg xpy 'python3[.0-9]*' ex.py) || exit 1
	tk=$(pid_of_arg xpy ticker 0.01) || exit 1
	grep -q "^exit pid=$py status=6 " xpy/manifest || die "no exit line: $(cat xpy/manifest)"
	grep -q "^reaped pid=$tk status=0 by=$py " xpy/manifest || die "python's waitpid: $(cat xpy/manifest)"
	c1=$(sed -n "s/^reaped pid=\([0-9]*\) status=5 by=$py .*/\1/p" xpy/manifest)
	[ -n "$c1" ] || die "python's waitid: $(cat xpy/manifest)"
	grep -q "^exit pid=$c1 status=5 " xpy/manifest || die "the child's os._exit: $(cat xpy/manifest)"
	c2=$(sed -n "s/^reaped pid=\([0-9]*\) signal=9 by=$py .*/\1/p" xpy/manifest)
	[ -n "$c2" ] || die "python's wait4: $(cat xpy/manifest)"
	ended_all xpy
	# (python3 may be a wrapper that execs the interpreter: pyenv's)
	grep -qE "^ +$py (\(exec\) )?python3[.0-9]*: exited with status 6, " info.txt || die "$(procs)"
	grep -qE "^ +$tk ticker: exited with status 0, " info.txt || die "$(procs)"
	grep -qE "^ +$c1 python3[.0-9]*: exited with status 5, " info.txt || die "$(procs)"
	grep -qE "^ +$c2 python3[.0-9]*: killed by signal 9, " info.txt || die "$(procs)"
}

# glibc's daemon() forks and its first process leaves through an
# internal _exit(0), which no wrapper sees: its parent's wait says it.
# The daemon, reparented at once, is still its child in the tree (its
# fork line names the parent that forked it) and ends with _exit(5).
t_exit_daemon() {
	"$W" record -o xdmn -- "$EX/forker" daemon >pids.txt 2>rec.txt || die "record: $(cat rec.txt)"
	local first dmn top
	first=$(sed -n 1p pids.txt) dmn=$(sed -n 2p pids.txt)
	[ -n "$first" ] && [ -n "$dmn" ] || die "pids: $(cat pids.txt)"
	top=$(sed -n 's/^proc pid=\([0-9]*\) .*/\1/p' xdmn/manifest)
	grep -q "^reaped pid=$first status=0 by=$top " xdmn/manifest || die "$(cat xdmn/manifest)"
	! grep -q "^exit pid=$first " xdmn/manifest || die "an exit line from glibc's own _exit? $(cat xdmn/manifest)"
	grep -q "^fork pid=$dmn ppid=$first " xdmn/manifest || die "the daemon's parent: $(cat xdmn/manifest)"
	grep -q "^exit pid=$dmn status=5 " xdmn/manifest || die "$(cat xdmn/manifest)"
	ended_all xdmn
	grep -qE "^  $top forker: exited with status 0, " info.txt || die "$(procs)"
	grep -qE "^    $first forker: exited with status 0, " info.txt || die "$(procs)"
	grep -qE "^      $dmn forker: exited with status 5, " info.txt || die "$(procs)"
	grep -q "^processes: 3 (1 recorded)$" info.txt || die "$(procs)"
	# the daemon's fork line may come before its parent's spawn line
	# (written by forker once fork() returned there): the same tree,
	# the daemon running forker's program, read in that order too
	cp -r xdmn xdmn2
	{
		grep "^fork pid=$dmn " xdmn/manifest
		grep -v "^fork pid=$dmn " xdmn/manifest
	} >xdmn2/manifest
	[ "$(sed -n 1p xdmn2/manifest | cut -d' ' -f1-2)" = "fork pid=$dmn" ] || die "$(cat xdmn2/manifest)"
	ended_all xdmn2
	grep -qE "^    $first forker: exited with status 0, " info.txt || die "$(procs)"
	grep -qE "^      $dmn forker: exited with status 5, " info.txt || die "$(procs)"
}

# tmux: its server (started through fork and daemon()) runs a job with
# run-shell (sh -c, ending with _exit(3)) and reaps it; the pane's cat is
# killed by the server's SIGHUP.  The script waits until every tmux
# process has gone.
t_exit_tmux() {
	command -v tmux >/dev/null || exit 77
	export TMUX_TMPDIR=$T
	# (a socket name of its own: the wait below looks for its processes)
	local s=weft-run-$$
	trap 'tmux -L '$s' kill-server 2>/dev/null' EXIT
	cat >tm.sh <<EOF
tmux -L $s -f /dev/null new-session -d -s s cat
tmux -L $s run-shell "'$EX/ticker' 0.01 >/dev/null; exit 3"; echo run-shell \$?
tmux -L $s kill-server
for i in \$(seq 200); do pgrep -f "tmux -L $s" >/dev/null || break; sleep 0.05; done
EOF
	"$W" record -o xtmux -- sh tm.sh >out.txt 2>rec.txt || die "record: $(cat rec.txt)"
	[ "$(cat out.txt)" = "run-shell 3" ] || die "run-shell: $(cat out.txt)"
	local job server
	job=$(pid_of_arg xtmux dash "'$EX/ticker'%200.01%20>/dev/null;%20exit%203") || exit 1
	server=$(sed -n "s/^reaped pid=$job status=3 by=\([0-9]*\) .*/\1/p" xtmux/manifest)
	[ -n "$server" ] || die "the job's end, from the server: $(cat xtmux/manifest)"
	grep -q "^exit pid=$job status=3 " xtmux/manifest || die "the job's exit line: $(cat xtmux/manifest)"
	ended_all xtmux
	grep -qE "^ +$job sh: exited with status 3, " info.txt || die "$(procs)"
	# (the server names itself "tmux: server" once it runs)
	grep -qE "^ +$server tmux(: server)?: exited with status 0, " info.txt || die "$(procs)"
	grep -qE "^ +[0-9]+ \(exec\) cat: killed by signal 1, " info.txt || die "$(procs)"
}

# A program built with gcc's AddressSanitizer (its runtime a shared
# library that insists on coming first) runs under weft record, though
# the preload comes first, and records (docs/libuv.md, "Sanitizers"):
# ticker, instrumented, built here against this build's libweft, alone and
# under sh -c.  The script's ASAN_OPTIONS is left out: weft record must
# set what the runtime needs.
t_asan_instrumented() {
	command -v gcc >/dev/null || exit 77
	gcc -fsanitize=address -g -DWEFT_ENABLE -I"$WEFT_SRC/include" "$WEFT_SRC/examples/ticker.c" \
		-o ticker-asan -L"$WEFT_BUILD" -lweft -Wl,-rpath,"$WEFT_BUILD" 2>cc.txt || die "gcc: $(cat cc.txt)"
	local opts=
	# (this build's preload, built with ASan, loads it into sh: not sh's leaks)
	readelf -d "$WEFT_BUILD/libweft-preload.so" | grep -q 'NEEDED.*libasan' && opts=detect_leaks=0
	ASAN_OPTIONS=$opts ./ticker-asan 0.01 >plain.txt 2>plain.err || die "alone: $(cat plain.err)"
	grep -qE "^ticker: [0-9]+ ticks$" plain.txt || die "alone: $(cat plain.txt)"
	local n
	ASAN_OPTIONS=$opts "$W" record -o xasan -- ./ticker-asan 0.05 >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
	n=$(sed -n 's/^ticker: \([0-9]*\) ticks$/\1/p' traced.txt)
	[ -n "$n" ] && [ "$n" -gt 0 ] || die "traced: $(cat traced.txt) $(cat rec.txt)"
	! grep -q "Sanitizer" rec.txt || die "$(cat rec.txt)"
	grep -qE "^weft:   pid [0-9]+ ticker-asan: [0-9]+ events, 1 OS thread, exited with status 0$" rec.txt || die "$(cat rec.txt)"
	[ "$("$W" dump xasan | grep -c ' create .*kind="tick"')" = $((n + 1)) ] || die "ticks: $n, events: $("$W" dump xasan | grep -c 'kind="tick"')"
	ASAN_OPTIONS=$opts "$W" record -o xasan2 -- sh -c "./ticker-asan 0.01 >/dev/null; echo \$?" >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
	[ "$(cat traced.txt)" = 0 ] || die "under sh: $(cat traced.txt) $(cat rec.txt)"
	grep -qE "^weft:     pid [0-9]+ ticker-asan: [0-9]+ events, 1 OS thread, exited with status 0$" rec.txt || die "$(cat rec.txt)"
}

# Any function found through GModule is the preload's when it exports
# one of that name: a program that finds _exit with g_module_symbol on
# libc's own handle calls the preload's, which writes the exit line.
# (Needs no loop shim: the mutants' build has none.)
t_gmodule_symbol() {
	pkg-config --exists gmodule-2.0 || { echo "no gmodule-2.0"; exit 77; }
	cat >gm.c <<'EOF'
#include <dlfcn.h>
#include <gmodule.h>
int main(void)
{
	/* a name the preload does not export: found as it is, and no
	 * error left pending for dlerror() */
	GModule *lm = g_module_open("libm.so.6", G_MODULE_BIND_LOCAL);
	double (*c)(double);
	if (!lm || !g_module_symbol(lm, "cos", (gpointer *)&c) || dlerror() ||
	    c != dlsym(RTLD_DEFAULT, "cos") || c(0) != 1)
		return 4;
	GModule *m = g_module_open("libc.so.6", G_MODULE_BIND_LOCAL);
	void (*ex)(int);
	if (!m || !g_module_symbol(m, "_exit", (gpointer *)&ex))
		return 2;
	ex(9);
	return 3;
}
EOF
	cc gm.c -o gm $(pkg-config --cflags --libs gmodule-2.0) -ldl -lm 2>cc.txt || die "cc: $(cat cc.txt)"
	"$W" record -o gmr -- ./gm 2>rec.txt; [ $? = 9 ] || die "$(cat rec.txt)"
	local p
	p=$(pid_of_arg gmr gm ./gm) || exit 1
	grep -q "^exit pid=$p status=9 " gmr/manifest || die "libc's _exit, not the preload's: $(cat gmr/manifest)"
}

# A snapshot of a running tree: one bundle, every ring, cut at one instant.
t_snapshot_tree() {
	# tickers that outlive the wait below on a loaded machine (4 s did not)
	"$W" record -o s -- sh -c "'$EX/ticker' 10 >/dev/null & '$EX/ticker' 10 >/dev/null; wait" 2>rec.txt &
	local rp=$! root= rings=0
	for _ in $(seq 50); do
		root=$(pgrep -P $rp)
		rings=$(ls s 2>/dev/null | grep -c '^ring')
		[ -n "$root" ] && [ "$rings" = 2 ] && break
		sleep 0.1
	done
	[ -n "$root" ] && [ "$rings" = 2 ] || die "the tree did not start: root '$root', $rings rings"
	sleep 0.5
	"$W" snapshot --pid "$root" -o snap.weft 2>snap.txt || die "snapshot: $(cat snap.txt)"
	wait $rp
	[ -f snap.weft ] && head -c 8 snap.weft | grep -q WEFTBNDL || die "not a bundle"
	"$W" info snap.weft >info.txt || die "$(cat info.txt)"
	grep -q "^processes: 3 (2 recorded)$" info.txt || die "$(cat info.txt)"
	[ "$(grep -c " ticker: running" info.txt)" = 2 ] || die "$(cat info.txt)"
	# both rings end at the same instant: the last event of each is
	# within the time the copy took of the other's
	"$W" dump snap.weft >d.txt || die "dump"
	python3 - <<'PY' || exit 1
last = {}
for l in open('d.txt'):
    f = l.split()
    last[f[1].split('/')[0]] = float(f[0])
assert len(last) == 2, last
a, b = sorted(last.values())
assert b - a < 0.05, (a, b)
PY
	# the bundle reads from a pipe too, and is the same
	"$W" dump - <snap.weft >p.txt && cmp d.txt p.txt || die "bundle from a pipe"
}

# Rings given together; a bundle; CTF of a run.
t_together() {
	WEFT_FILE=a.weft "$EX/all-events" >/dev/null
	WEFT_FILE=b.weft "$EX/ticker" 0.2 >/dev/null
	"$W" info a.weft b.weft >info.txt || die "$(cat info.txt)"
	grep -q "^processes: 2 (2 recorded)$" info.txt || die "$(cat info.txt)"
	local na nb nab
	na=$("$W" dump a.weft | wc -l)
	nb=$("$W" dump b.weft | wc -l)
	nab=$("$W" dump a.weft b.weft | grep -vc 'x3ffe0000000000')
	[ "$nab" = $((na + nb)) ] || die "merged $nab of $na + $nb"
	# the same ring twice (a file given twice, a copy): read once, said
	cp b.weft b2.weft
	[ "$("$W" dump a.weft b.weft b2.weft 2>e.txt | grep -vc 'x3ffe0000000000')" = $((na + nb)) ] ||
		die "a ring given twice read twice"
	grep -q "^weft: warning: .*'b2.weft' is the ring 'b.weft' again (its uuid): read once$" e.txt || die "$(cat e.txt)"
	grep -q "corrupt" e.txt && die "a ring given twice called corrupt: $(cat e.txt)"
	"$W" stats a.weft b.weft >/dev/null || die "stats"
	"$W" why a.weft b.weft >/dev/null; [ $? -le 1 ] || die "why"
	"$W" export --format chrome a.weft b.weft -o c.json && python3 -c "import json; json.load(open('c.json'))" || die "export"
	"$W" ctf a.weft b.weft -o ctf || die "ctf"
	[ "$(ls ctf | wc -l)" = 2 ] || die "ctf: $(ls ctf)"
	babeltrace2 ctf >bt.txt 2>bt.err || die "babeltrace2: $(cat bt.err)"
	[ "$(wc -l <bt.txt)" = $((na + nb)) ] || die "babeltrace2: $(wc -l <bt.txt) events"
	grep -q "all-events:" bt.txt && grep -q "ticker:" bt.txt || die "babeltrace2 lost a process"
	# babeltrace2 puts them in one time order (its own timestamps)
	sed -n 's/^\[\([0-9:.]*\)\].*/\1/p' bt.txt | sort -c || die "babeltrace2 order"
}

# Every reading command takes a run directory, and its rings given
# together: both processes are in what each one shows.
t_every_command() {
	[ -x "$EX/uv-echo-split" ] || die "no uv-echo-split (built without libuv)"
	"$W" record -o ec -- "$EX/uv-echo-split" >/dev/null 2>rec.txt || die "record: $(cat rec.txt)"
	local rings; rings=$(ls ec/ring*)
	[ "$(echo $rings | wc -w)" = 2 ] || die "rings: $rings"
	local t
	for t in "ec" "$rings"; do
		# shellcheck disable=SC2086
		set -- $t
		"$W" info "$@" | grep -q "^processes: 2 (2 recorded)$" || die "info $t"
		[ "$("$W" dump "$@" | awk '{print $2}' | cut -d/ -f2 | sort -u | wc -l)" = 2 ] || die "dump $t"
		"$W" stats "$@" >st.txt || die "stats $t"
		grep -q '^trace .*, 2 OS threads$' st.txt && grep -q '^  process  *2 ' st.txt && ! grep -q '(none)' st.txt && grep -q '^  uv_process_t  *1 ' st.txt ||
			die "stats $t: $(cat st.txt)"
		"$W" why "$@" >/dev/null; [ $? -le 1 ] || die "why $t"
		"$W" export --format chrome "$@" -o c.json || die "export $t"
		python3 -c "import json,sys; e=json.load(open('c.json')); e=e.get('traceEvents', e); assert len({x.get('pid') for x in e if 'pid' in x}) == 2, 'pids'" || die "export $t: one process"
		rm -rf ctf; "$W" ctf "$@" -o ctf && [ "$(ls ctf | wc -l)" = 2 ] || die "ctf $t"
		"$W" render "$@" -o r.png --search "uv-echo-split (pid" 2>s.txt || die "render $t: $(cat s.txt)"
		grep -q "matches 2 threads" s.txt || die "render $t: $(cat s.txt)"
		"$W" html "$@" -o h.html || die "html $t"
		"$W" snapshot "$@" -o b.weft 2>/dev/null || die "snapshot $t"
		"$W" info b.weft | grep -q "^processes: 2 (2 recorded)$" || die "html: the bundle of $t"
	done
	# the viewer: several traces merged, the same picture as their bundle
	command -v xvfb-run >/dev/null || { echo "no xvfb-run"; exit 77; }
	"$W" snapshot $rings -o both.weft 2>/dev/null || die "snapshot"
	local s
	for s in both.weft "$rings"; do
		# shellcheck disable=SC2086
		WEFT_VIEW_SCREENSHOT="$PWD/v$(echo $s | wc -w).png" timeout 60 xvfb-run -a -s "-screen 0 1280x800x24" "$W" view $s >/dev/null 2>v.err ||
			die "view $s: $(cat v.err)"
	done
	cmp v1.png v2.png || die "weft view of two rings is not the picture of their bundle"
}

# Two machines, simulated: the client/server pair's rings made the rings
# of two hosts, beta's CLOCK_MONOTONIC 1234.5 s ahead of alpha's and its
# realtime clock 2 ms off (NTP's error).  Read together: the offset from
# the realtime clocks, said to be only as good as NTP; then bounded by
# the messages; the known offset lies within the bound printed, and no
# message is read before it was sent; raw timestamps stay; --offset.
t_two_machines() {
	[ -x "$EX/uv-echo-split" ] || die "no uv-echo-split (built without libuv)"
	"$W" record -o tm -- "$EX/uv-echo-split" >/dev/null 2>rec.txt || die "record: $(cat rec.txt)"
	cp tm/ring a.weft && cp tm/ring.[0-9]* b.weft || die "rings: $(ls tm)"
	WEFT_FILE=c.weft "$EX/ticker" 0.1 >/dev/null || die "ticker"
	python3 - <<'PY' || exit 1
import struct
D, E = 1234500000000, 2000000
def machine(path, host, boot, d, e):
    b = bytearray(open(path, 'rb').read())
    mach = 1024  # WEFT_MACH_OFF
    assert b[:8] == b'WEFTRING'
    b[mach:mach + 72] = host.encode().ljust(72, b'\0')
    b[mach + 72:mach + 88] = bytes([boot]) * 16
    struct.pack_into('<q', b, mach + 88, d)           # its time namespace: the machine's clock
    for off in (80, 112):                             # a0, a1 realtime
        struct.pack_into('<q', b, off, struct.unpack_from('<q', b, off)[0] + e)
    n = min(struct.unpack_from('<I', b, mach + 96)[0], 64)
    for i in range(n):                                # every clock reading's realtime
        o = mach + 112 + 40 * i + 24
        struct.pack_into('<q', b, o, struct.unpack_from('<q', b, o)[0] + e)
    open(path, 'wb').write(b)
machine('a.weft', 'alpha', 0xaa, 0, 0)
machine('b.weft', 'beta', 0xbb, D, E)
machine('c.weft', 'beta', 0xbb, D, E)
PY
	"$W" info a.weft b.weft >info.txt || die "info: $(cat info.txt)"
	"$W" info a.weft c.weft >info2.txt || die "info: $(cat info2.txt)"
	"$W" info --offset beta=-1234.5s a.weft b.weft >info3.txt || die "info: $(cat info3.txt)"
	grep -q "^  alpha (boot aaaaaaaa): the reference$" info.txt || die "$(cat info.txt)"
	grep -q "^  beta (boot bbbbbbbb): .* s, bounded by [0-9]* messages to +-" info.txt || die "$(cat info.txt)"
	grep -q "^  beta (boot bbbbbbbb): -1234.49[0-9 ]* s, by the realtime clocks: only as accurate as NTP keeps them$" info2.txt || die "$(cat info2.txt)"
	grep -q "^  beta (boot bbbbbbbb): -1234.500 s, forced (--offset)$" info3.txt || die "$(cat info3.txt)"
	python3 - <<'PY' || exit 1
import re
D = 1234500000000
l = [x for x in open('info.txt') if x.startswith('  beta')][0]
m = re.search(r': (-?[0-9. ]+) s, bounded by (\d+) messages to \+-([0-9.]+) (ns|us|ms)', l)
assert m, l
off = round(float(m.group(1).replace(' ', '')) * 1e9)
unc = float(m.group(3)) * {'ns': 1, 'us': 1e3, 'ms': 1e6}[m.group(4)]
assert int(m.group(2)) >= 4, l
# the truth (-D) within the bound printed (how tight depends on the
# messages' delays: a sanitizer build's are long)
assert abs(off + D) <= unc * 1.01 + 1, (off, unc)
PY
	"$W" dump a.weft b.weft >d.txt || die "dump"
	python3 - <<'PY' || exit 1
import re
sent, n = {}, 0
for l in open('d.txt'):
    f = l.split()
    kv = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', l))
    if f[2] == 'sent':
        sent[(kv['chan'], kv['offset'])] = float(f[0])
    if f[2] == 'received' and kv['bytes'] != '0':
        assert sent[(kv['chan'], kv['offset'])] <= float(f[0]), ('read before sent', l)
        n += 1
assert n == 4, n
PY
	# the raw timestamps of beta's ring, unchanged in the merge
	local tid; tid=$("$W" dump b.weft | head -1 | awk '{print $2}' | cut -d/ -f2)
	# (ids are the merge's: the ticks and the events compared)
	"$W" dump --cycles b.weft | awk '{ print $1, $3 }' | sort >raw1.txt
	# (but for what the merge made: process threads, message arrows)
	"$W" dump --cycles a.weft b.weft |
		awk -v t="$tid" '$2 ~ "/" t "$" && $1 != "-" { print $1, $3 }' | sort >raw2.txt
	[ -s raw1.txt ] && cmp raw1.txt raw2.txt || die "raw timestamps changed: $(diff raw1.txt raw2.txt | head)"
	# what the merge made has no ticks, and says so (never a 0)
	"$W" dump --cycles a.weft b.weft >all.txt
	awk '$1 == "-"' all.txt | grep -q " create child=.* kind=\"process\"" || die "no '-' for a made event"
	awk '$1 !~ /^([1-9][0-9]*|-)$/ { exit 1 }' all.txt || die "a tick that is not one: $(awk '$1 !~ /^([1-9][0-9]*|-)$/' all.txt | head -3)"
}

# What weft record refuses, and what it replaces.
t_refusals() {
	mkdir own && touch own/mine
	"$W" record -o own -- true 2>e.txt; [ $? = 2 ] || die "a directory of other files: exit $?"
	grep -q "holds files that are not a weft run's (mine)" e.txt || die "$(cat e.txt)"
	[ -f own/mine ] || die "a file was removed"
	WEFT_FILE=old.weft "$EX/ticker" 0.1 >/dev/null
	"$W" record -o old.weft -- "$EX/ticker" 0.1 >/dev/null 2>e.txt || die "an old ring: $(cat e.txt)"
	[ -d old.weft ] || die "not replaced by a run"
	"$W" record -o old.weft -- "$EX/ticker" 0.1 >/dev/null 2>e.txt || die "a run again: $(cat e.txt)"
	[ "$(grep -c '^weft-run' old.weft/manifest)" = 1 ] || die "the earlier run was not cleared"
	# (its rings set aside while the program starts, then removed; one
	# left over by a killed weft record is skipped by readers and removed
	# by the next record)
	[ "$(ls -A old.weft | tr '\n' ' ')" = "manifest ring " ] || die "$(ls -A old.weft)"
	"$W" info old.weft >i1.txt 2>&1 || die "$(cat i1.txt)"
	cp old.weft/ring old.weft/.old.ring.99
	"$W" info old.weft >i2.txt 2>&1 || die "$(cat i2.txt)"
	cmp -s i1.txt i2.txt || die "a set-aside ring was read: $(diff i1.txt i2.txt)"
	"$W" record -o old.weft -- "$EX/ticker" 0.1 >/dev/null 2>e.txt || die "a run again: $(cat e.txt)"
	[ "$(ls -A old.weft | tr '\n' ' ')" = "manifest ring " ] || die "$(ls -A old.weft)"
	echo text >plain
	"$W" record -o plain -- true 2>e.txt; [ $? = 2 ] || die "a file: exit $?"
	grep -q "exists and is not a weft run" e.txt || die "$(cat e.txt)"
	# a link: followed when its caller owns it, never when another user
	# planted it (root's recorder in a world-writable directory)
	mkdir target && ln -s target mylink
	"$W" record -o mylink -- "$EX/ticker" 0.05 >/dev/null 2>e.txt || die "my own link: $(cat e.txt)"
	[ -f target/manifest ] || die "my own link was not followed"
	if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
		mkdir victim && echo precious >victim/keep && ln -s victim planted && chown -h nobody planted
		"$W" record -o planted -- true 2>e.txt; [ $? = 2 ] || die "another user's link: exit $?"
		grep -qx "weft: 'planted' is a symbolic link its caller does not own: weft never follows it" e.txt || die "$(cat e.txt)"
		[ "$(ls -A victim)" = keep ] || die "the link was followed: $(ls -A victim)"
	fi
	"$W" dump --offset nonsense a.weft 2>/dev/null; [ $? = 2 ] || die "--offset nonsense"
	"$W" dump --offset host=12xs a.weft 2>/dev/null; [ $? = 2 ] || die "--offset bad number"
}

# A bad line in a run's manifest: named with its line, not as a byte
# offset, and a data error (exit 1); the rings are still read.
t_bad_manifest() {
	"$W" record -o bm -- "$EX/ticker" 0.1 >/dev/null 2>&1 || die "record"
	sed -i '3s/.*/garbage line here/' bm/manifest
	"$W" info bm >info.txt 2>e.txt; [ $? = 1 ] || die "info: exit $?"
	grep -qx "weft: 'bm': bm/manifest: 1 bad line (first: line 3: a field without '=')" e.txt || die "$(cat e.txt)"
	grep -q "^events: *[1-9]" info.txt || die "the ring was not read: $(cat info.txt)"
	"$W" stats bm >/dev/null 2>&1; [ $? = 1 ] || die "stats: exit $?"
}

# A damaged ring in a run of six processes: flipped magic, emptied,
# removed, cut to 100 bytes (one ring, then three), and damaged parts of a
# bundle.  Every reading command reads the other rings whole, names each
# damaged one with what is wrong, and exits 1 (docs/runs.md).
t_damaged_rings() {
	"$W" record -o r6 -- sh -c "for i in 1 2 3 4 5 6; do '$EX/all-events' >/dev/null; done" 2>rec.txt ||
		die "record: $(cat rec.txt)"
	local rings; rings=$(cd r6 && ls ring.* | sort)
	[ "$(echo $rings | wc -w)" = 6 ] || die "rings: $rings"
	local all; all=$("$W" dump --no-actor r6 | grep -vc 0x3ffe)
	local r n=0
	declare -A ev
	for r in $rings; do
		ev[$r]=$("$W" dump "r6/$r" | wc -l)
		n=$((n + ${ev[$r]}))
	done
	[ "$n" = "$all" ] && [ "$n" -gt 300 ] || die "the intact run: $all events, its rings $n"
	"$W" snapshot r6 -o b.weft 2>/dev/null || die "snapshot"
	# which: the second ring; three: the first, the fourth, the sixth
	local one three v set
	one=$(echo $rings | cut -d' ' -f2)
	three=$(echo $rings | cut -d' ' -f1,4,6)
	for v in flip empty rm cut part; do
		for set in "$one" "$three"; do
			local t=v.$v.$(echo $set | wc -w) what want=0 k
			if [ $v = part ]; then
				t=$t.weft
				python3 - b.weft "$t" $set <<'PY' || exit 1
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
n = struct.unpack_from('<I', b, 12)[0]
hit = 0
for k in range(n):
    off, ln, kind, run = struct.unpack_from('<QQII', b, 32 + 80 * k)
    name = b[32 + 80 * k + 32:32 + 80 * k + 80].rstrip(b'\0').decode()
    if name in sys.argv[3:]:
        b[off] ^= 0xff
        hit += 1
assert hit == len(sys.argv[3:]), hit
open(sys.argv[2], 'wb').write(b)
PY
			else
				cp -r r6 "$t"
			fi
			rm -f want.txt
			for r in $set; do
				local pid=${r#ring.}
				case $v in
				flip) printf 'X' | dd of="$t/$r" bs=1 count=1 conv=notrunc 2>/dev/null
					what="not a weft trace (no WEFTRING magic)" ;;
				empty) : >"$t/$r"; what="empty (0 bytes)" ;;
				rm) rm "$t/$r"; what="missing (the manifest names it)" ;;
				cut) truncate -s 100 "$t/$r"
					what="truncated in the file header (100 of 312 bytes)" ;;
				part) what="not a weft trace (no WEFTRING magic)" ;;
				esac
				echo "weft: '$t': $r (pid $pid all-events) not read: $what" >>want.txt
				want=$((want + ${ev[$r]}))
			done
			sort want.txt >want.s
			want=$((n - want))
			# every command: the others read, the damaged named, exit 1
			local c
			for c in info dump stats why render ctf; do
				local args=()
				case $c in
				dump) args=(--no-actor) ;;
				render) args=(-o "$t.png") ;;
				ctf) rm -rf ctf; args=(-o ctf) ;;
				esac
				"$W" $c "${args[@]}" "$t" >out.txt 2>err.txt
				k=$?
				[ $k = 1 ] || die "$c $t: exit $k: $(cat err.txt)"
				sort err.txt | diff want.s - || die "$c $t said"
				case $c in
				info)
					local nset; nset=$(echo $set | wc -w)
					grep -qx "processes: 7 (6 recorded, $nset of them not read)" out.txt ||
						die "$t: $(cat out.txt)"
					for r in $set; do
						grep -qE "^ +${r#ring.} all-events: exited with status 0, .*, its ring $t[/:]$r not read: " out.txt ||
							die "$t: $r: $(cat out.txt)"
					done
					[ "$(grep -c ' 3 OS threads in ' out.txt)" = $((6 - nset)) ] ||
						die "$t: the rings read: $(cat out.txt)" ;;
				dump)
					[ "$(grep -vc 0x3ffe out.txt)" = "$want" ] ||
						die "$c $t: $(grep -vc 0x3ffe out.txt) events, not $want" ;;
				stats)
					grep -q "^trace $t: $("$W" dump "$t" 2>/dev/null | wc -l) events" out.txt ||
						die "$c $t: $(head -1 out.txt)" ;;
				render)
					[ -s "$t.png" ] || die "$c $t: no picture" ;;
				ctf)
					[ "$(ls ctf | wc -l)" = $((6 - $(echo $set | wc -w))) ] ||
						die "$c $t: $(ls ctf)" ;;
				esac
			done
		done
	done
	# no ring readable at all: a clear error naming the first
	mkdir none && cp r6/manifest none/ && : >"none/$one"
	"$W" dump none >/dev/null 2>err.txt; [ $? = 1 ] || die "none: exit"
	grep -qx "weft: cannot read 'none': no ring can be read: none/$one: empty (0 bytes) (and 5 more) (at byte offset 0)" err.txt ||
		die "none: $(cat err.txt)"
}

# Three tickers in one run each keep their own "ticks": three series (not
# one zig-zag), each counting up in its own process, in stats (text and
# JSON), the dump, the export's counter tracks and the picture's bands;
# the total over processes only with --sum-counters.
t_counters_per_process() {
	"$W" record -o t3 -- sh -c "'$EX/ticker' 0.3 >/dev/null & '$EX/ticker' 0.3 >/dev/null & '$EX/ticker' 0.3 >/dev/null; wait" 2>rec.txt ||
		die "record: $(cat rec.txt)"
	"$W" dump t3 >d.txt || die "dump"
	"$W" stats t3 >s.txt || die "stats"
	"$W" stats t3 --sum-counters >ss.txt || die "stats --sum-counters"
	"$W" stats t3 --json --sum-counters >s.json || die "stats --json"
	"$W" export --format chrome t3 -o c.json || die "export"
	python3 - <<'PY' || exit 1
import json, re
# the dump: each process's ticks count 1, 2, 3... (its pid on each line)
per = {}
for l in open('d.txt'):
    m = re.match(r'\S+ #\d+/(\d+) counter_set counter="ticks" value=(-?\d+)', l)
    if m:
        per.setdefault(m.group(1), []).append(int(m.group(2)))
assert len(per) == 3, per.keys()
# (each ticker's tid is its pid: one OS thread each)
for pid, v in per.items():
    assert v == list(range(1, len(v) + 1)), (pid, v[:10])
    assert len(v) > 5, (pid, len(v))
# stats: one line per process, its own min, max, last and samples
lines = [l.split() for l in open('s.txt') if l.startswith('  ticks')]
assert len(lines) == 3, lines
got = {l[2].rstrip(')'): (int(l[3]), int(l[4]), int(l[5]), int(l[6])) for l in lines}
want = {p: (1, len(v), len(v), len(v)) for p, v in per.items()}
assert got == want, (got, want)
assert 'sum of' not in open('s.txt').read()
# the total, only where asked: the sum of each one's latest value
tot = [l for l in open('ss.txt') if 'ticks (sum of 3 processes)' in l]
assert len(tot) == 1, open('ss.txt').read()
f = tot[0].split()
assert int(f[-2]) == sum(len(v) for v in per.values()), tot
assert int(f[-3]) == int(f[-2]) and int(f[-4]) == 1, tot
j = json.load(open('s.json'))
cs = [c for c in j['counters'] if c['name'] == 'ticks']
assert sorted((str(c['pid']), c['samples'], c['max'], c['last']) for c in cs) == \
    sorted((p, len(v), len(v), len(v)) for p, v in per.items()), cs
assert j['counter_sums'] == [{'name': 'ticks', 'processes': 3,
    'samples': sum(len(v) for v in per.values()), 'min': 1,
    'max': sum(len(v) for v in per.values()),
    'last': sum(len(v) for v in per.values())}], j['counter_sums']
# the export: a counter track per process, counting up in each
e = json.load(open('c.json'))
e = e.get('traceEvents', e)
tr = {}
for x in e:
    if x.get('ph') == 'C' and x.get('name') == 'ticks':
        tr.setdefault(str(x['pid']), []).append((x['ts'], x['args']['value']))
assert sorted(tr) == sorted(per), (tr.keys(), per.keys())
for p, v in tr.items():
    assert [b for a, b in sorted(v)] == per[p], p
PY
	# the picture: a band per process, each named by its title; hiding
	# the name hides the three
	local pids; pids=$(grep -o 'ticks (pid [0-9]*)' s.txt | grep -o '[0-9]*')
	"$W" render t3 -o all.png 2>/dev/null || die "render"
	"$W" render t3 -o none.png --no-counters 2>/dev/null || die "render --no-counters"
	"$W" render t3 -o name.png --hide-counter ticks 2>/dev/null || die "render --hide-counter ticks"
	cmp -s name.png none.png || die "hiding 'ticks' left a band"
	local p prev=all.png
	for p in $pids; do
		"$W" render t3 -o "h$p.png" --hide-counter "ticks (pid $p)" 2>e.txt || die "hide $p: $(cat e.txt)"
		! cmp -s "h$p.png" all.png && ! cmp -s "h$p.png" none.png && ! cmp -s "h$p.png" "$prev" ||
			die "the band of $p is not a band of its own"
		prev=h$p.png
	done
	"$W" render t3 -o x.png --hide-counter "ticks (pid 1)" 2>e.txt; [ $? = 1 ] || die "an unknown title"
	grep -q "no counter 'ticks (pid 1)'" e.txt || die "$(cat e.txt)"
}

# A followed run stays open while a process its manifest started lives
# (asked of kill(pid, 0)); a hostile manifest's pid above a pid's range
# is no process: 4294967295 would be kill(-1, 0), "every process", and
# the follow would never end.
t_follow_hostile_pid() {
	WEFT_FILE= "$W" record -o r -- "$EX/ticker" 0.05 >/dev/null 2>&1 || die "record failed"
	local p
	p=$(sed -n 's/^proc pid=\([0-9]*\) .*/\1/p' r/manifest)
	[ -n "$p" ] || die "no proc line: $(cat r/manifest)"
	sed -i -e '/^exit /d' -e '/^reaped /d' -e "s/pid=$p /pid=4294967295 /" r/manifest
	grep -q "^proc pid=4294967295 " r/manifest || die "$(cat r/manifest)"
	timeout 20 "$W" dump -f r >out.txt 2>err.txt
	local rc=$?
	[ $rc = 0 ] || die "weft dump -f of the run: exit $rc (124: it never ended): $(cat err.txt)"
	grep -q " resolve " out.txt || die "the ring was not read: $(head -3 out.txt)"
}

# Following a run while it records: a process that starts later joins,
# and the follow ends when the run does.
t_follow_run() {
	# (the first ring comes after the follow began: it waits for it)
	"$W" record -o fo -- sh -c "sleep 0.5; '$EX/ticker' 0.5 >/dev/null; sleep 0.3; '$EX/ticker' 0.5 >/dev/null" 2>/dev/null &
	local rp=$!
	# (a loaded machine may take seconds to start it)
	for _ in $(seq 400); do [ -f fo/manifest ] && break; sleep 0.05; done
	[ -f fo/manifest ] || die "weft record made no manifest in 20 s"
	timeout 30 "$W" dump --follow fo >follow.txt || die "follow did not end with the run ($?)"
	wait $rp
	"$W" dump fo >all.txt
	[ "$(awk '{print $2}' follow.txt | cut -d/ -f2 | sort -u | wc -l)" = 2 ] || die "follow saw $(awk '{print $2}' follow.txt | cut -d/ -f2 | sort -u | wc -l) processes"
	[ "$(grep -c ' create ' follow.txt)" = "$(grep -c ' create ' all.txt)" ] || die "follow: $(grep -c ' create ' follow.txt) creates, dump: $(grep -c ' create ' all.txt)"
}

# The echo example in two processes: the server starts its client with
# uv_spawn; their messages are arrows between them, a chain across both;
# over TCP on loopback, a Unix socket, two pipes, and UDP datagrams, the
# server's answered with libuv's send or with a sendmmsg() of its own (as
# knot-resolver does: each of its datagrams an arrow from that request to
# the client's read).
t_echo_split() {
	[ -x "$EX/uv-echo-split" ] || die "no uv-echo-split (built without libuv)"
	local m
	for m in tcp unix pipe udp udp-mmsg; do
		"$EX/uv-echo-split" $m >plain.txt || die "uv-echo-split $m failed"
		rm -rf sp
		"$W" record -o sp -- "$EX/uv-echo-split" $m >traced.txt 2>rec.txt || die "record $m: $(cat rec.txt)"
		cmp plain.txt traced.txt || die "$m: output changed: $(diff plain.txt traced.txt)"
		"$W" info sp >info.txt || die "$(cat info.txt)"
		grep -q "^processes: 2 (2 recorded)$" info.txt || die "$m: $(cat info.txt)"
		grep -qE "^    [0-9]+ uv-echo-split: exited with status 0" info.txt || die "$m: $(cat info.txt)"
		"$W" dump sp >d.txt || die "dump"
		python3 - $m <<'PY' || die "over $m"
import re, sys
ev = []
for l in open('d.txt'):
    f = l.split()
    t, tid, e = float(f[0]), f[1].split('/')[1], f[2]
    kv = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', l))
    ev.append((t, tid, e, kv))
tids = sorted({x[1] for x in ev})
assert len(tids) == 2, tids
# the client's process thread: created by the server's uv_process_t (the
# spawn request), which its exit resolves
spawn = [kv['child'] for t, tid, e, kv in ev if e == 'create' and kv.get('kind') == '"uv_process_t"']
assert len(spawn) == 1, spawn
mk = [kv for t, tid, e, kv in ev if e == 'create' and kv.get('kind') == '"process"']
# (the server's own, spawned by no traced thread, is created by none)
assert len(mk) == 2 and mk[0]['by'] == '0x0' and mk[1]['by'] == spawn[0], mk
mk = mk[1:]
x = mk[0]['child']
assert any(e == 'resolve' and kv['target'] == spawn[0] and kv['by'] == x for t, tid, e, kv in ev), 'exit resolves the spawn'
# four messages, and nothing else sent (no file the tools write, no
# descriptor number a closed handle had)
sends = [(t, tid, kv) for t, tid, e, kv in ev if e == 'sent']
assert [kv['bytes'] for t, tid, kv in sends] == ['11'] * 4, sends
# every read of bytes is an arrow from the write of the other process:
# by byte offset on a stream, by order on datagrams
dgram = sys.argv[1] in ('udp', 'udp-mmsg')
queue = {}
for t, tid, kv in sends:
    queue.setdefault(kv['chan'], []).append((kv['offset'], tid, kv['thread'], t))
reads = [(t, tid, kv) for t, tid, e, kv in ev if e == 'received' and kv['bytes'] != '0']
assert len(reads) == 4, reads
arrows = [(t, tid, kv) for t, tid, e, kv in ev if e == 'read']
first = set()
for t, tid, kv in reads:
    q = queue[kv['chan']]
    w = q.pop(0) if dgram else [s for s in q if s[0] == kv['offset']][0]
    assert w[1] != tid, 'a message within one process'
    # recorded before it can be read, but for a datagram from a socket
    # that its first send binds, or from the program's own sendmmsg (both
    # recorded after the call returns: the peer may read it first): the
    # arrow is drawn from the send, at the read or no earlier than the send
    late = w[3] > t
    assert not late or (dgram and (kv['chan'] not in first or sys.argv[1] == 'udp-mmsg')), ('read before written', kv)
    first.add(kv['chan'])
    a = [x for x in arrows if x[1] == tid and x[2]['source'] == w[2] and abs(x[0] - max(t, w[3])) < 1e-9]
    assert a, ('no arrow for', kv)
# the chain: client write -> server read ... server write -> client read
srv = tids[0] if any(e == 'create' and kv.get('kind') == '"uv_process_t"' and tid == tids[0] for t, tid, e, kv in ev) else tids[1]
order = [tid == srv for t, tid, kv in reads]
assert order == [True, False, True, False], order
# the server's answers: with sendmmsg, each sent by a request of that kind
kinds = {kv['child']: kv.get('kind') for t, tid, e, kv in ev if e in ('create', 'create_label')}
by = [kinds.get(kv['thread']) for t, tid, kv in sends if tid == srv]
assert len(by) == 2 and all((k == '"sendmmsg"') == (sys.argv[1] == 'udp-mmsg') for k in by), by
PY
	done
}

# The client waits for a reply the server never sends: weft why follows
# the wait into the server, to what it started and left pending.
t_echo_hang() {
	[ -x "$EX/uv-echo-split" ] || die "no uv-echo-split (built without libuv)"
	"$W" record -o hg -- "$EX/uv-echo-split" hang >/dev/null 2>rec.txt; [ $? = 1 ] || die "hang: $(cat rec.txt)"
	"$W" info hg >info.txt || die "$(cat info.txt)"
	grep -qE "^    [0-9]+ uv-echo-split: killed by signal 15" info.txt || die "$(cat info.txt)"
	"$W" why --all hg >why.txt; [ $? = 1 ] || die "why: $(cat why.txt)"
	local s c
	s=$(sed -n 's/^ *\([0-9]*\) uv-echo-split: exited.*/\1/p' info.txt)
	c=$(sed -n 's/^ *\([0-9]*\) uv-echo-split: killed.*/\1/p' info.txt)
	grep -q "^read fd [0-9]* -> .*uv_stream_t read, pid $c) is still pending" why.txt || die "$(cat why.txt)"
	grep -q "^  waits since .* for the reply to the request read by read fd .*pid $s)$" why.txt || die "$(cat why.txt)"
	grep -q "^  which read the request, and started at .* timer 3600000 ms -> .*uv_timer_t, pid $s)$" why.txt || die "$(cat why.txt)"
	grep -q "^verdict: never resolved: nothing signalled, resolved or failed timer 3600000 ms" why.txt || die "$(cat why.txt)"
	# followed (as weft view reads), the ended run is the same trace:
	# the client's wait on the server is made at its end too
	"$W" dump hg >d.txt && timeout 30 "$W" dump --follow hg >f.txt || die "dump --follow"
	grep -q ' try_read ' d.txt && cmp d.txt f.txt || die "followed, not the same: $(diff d.txt f.txt)"
}

# A real pair nobody here wrote, both on libuv (Debian 12's BIND 9.18):
# dig asks named over UDP on loopback; the query and the answer are
# arrows between them, the answer sent by what named's receive started.
t_dig_named() {
	command -v named >/dev/null && command -v dig >/dev/null || { echo "no named or dig (bind9, bind9-dnsutils)"; exit 77; }
	local port=$((20000 + $$ % 20000))
	cat >named.conf <<EOF
options {
	directory "$PWD";
	listen-on port $port { 127.0.0.1; };
	listen-on-v6 { none; };
	pid-file "$PWD/named.pid";
	recursion no;
	dnssec-validation no;
};
zone "weft.test" { type master; file "$PWD/db"; };
EOF
	printf '$TTL 60\n@ IN SOA ns.weft.test. admin.weft.test. 1 60 60 60 60\n@ IN NS ns.weft.test.\nns IN A 127.0.0.1\nwww IN A 10.1.2.3\n' >db
	"$W" record -o dn -- sh -c "named -g -c '$PWD/named.conf' -n 1 >named.log 2>&1 & n=\$!
		for i in \$(seq 100); do dig @127.0.0.1 -p $port www.weft.test +short +tries=1 +time=1 >dig.out 2>&1 && [ -s dig.out ] && break; sleep 0.1; done
		kill \$n; wait \$n" 2>rec.txt || die "record: $(cat rec.txt) $(cat named.log)"
	[ "$(cat dig.out)" = 10.1.2.3 ] || die "dig: $(cat dig.out) $(cat named.log)"
	grep -qE "pid [0-9]+ named: .*loops: libuv" rec.txt && grep -qE "pid [0-9]+ dig: .*loops: libuv" rec.txt || die "$(cat rec.txt)"
	"$W" dump dn >d.txt || die "dump"
	python3 - <<'PY' || exit 1
import re
par, ev = {}, []
for l in open('d.txt'):
    f = l.split()
    kv = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', l))
    ev.append((f[1].split('/')[1], f[2], kv))
    if f[2] in ('create', 'create_label'):
        par[kv['child']] = kv['by']
    if f[2] == 'fire':
        par[kv['next']] = kv['target']
sent = {kv['thread']: (tid, kv) for tid, e, kv in ev if e == 'sent'}
# reads of another process's writes: the query one way, the answer back
q = [(tid, kv) for tid, e, kv in ev
     if e == 'read' and kv.get('source') in sent and sent[kv['source']][0] != tid]
assert len({sent[kv['source']][0] for tid, kv in q}) == 2, ('both ways', q)
# the answer was sent by what named's receive of the query started
ok = False
for tid, kv in q:
    w = kv['source']
    up, x = [], w
    while x in par and len(up) < 50:
        x = par[x]
        up.append(x)
    readers = [k['by'] for t2, k in q if t2 == sent[w][0]]
    ok |= any(r in up for r in readers)
assert ok, 'no answer caused by its query'
PY
	# the picture: named and dig, each a group of rows under its header,
	# a band 20 px high across the time it spans: named's and dig's, so
	# 40 lines of the picture cross a band (overlapping in time, the
	# two are in lanes of their own)
	local pc=$WEFT_BUILD/tests/render/pixcount
	if [ -x "$pc" ] && "$W" --help 2>&1 | grep -q "^  render "; then
		"$W" render dn -o dn.png 2>/dev/null || die "render"
		local h y lines=0
		read -r _ h < <("$pc" dn.png)
		for ((y = 0; y < h; y++)); do
			[ "$("$pc" dn.png 204 214 237 $y $((y + 1)))" -ge 8 ] && lines=$((lines + 1))
		done
		[ "$lines" -ge 38 ] || die "process headers: $lines lines of the picture cross one"
	fi
}

export W EX T WEFT_SRC
run tree t_tree
run many_recorders t_many_recorders
run tree_order t_tree_order
run posix_spawn t_posix_spawn
run exec t_exec
run start_and_timens t_start_and_timens
run exec_env t_exec_env
run timens_env t_timens_env
run killed t_killed
run exit_dash t_exit_dash
run exit_unloaded t_exit_unloaded
run exit_python t_exit_python
run exit_daemon t_exit_daemon
run exit_tmux t_exit_tmux
run asan_instrumented t_asan_instrumented
run gmodule_symbol t_gmodule_symbol
run snapshot_tree t_snapshot_tree
run together t_together
run every_command t_every_command
run two_machines t_two_machines
run refusals t_refusals
run bad_manifest t_bad_manifest
run loops_table t_loops_table
run manifest_table t_manifest_table
run damaged_rings t_damaged_rings
run counters_per_process t_counters_per_process
run follow_run t_follow_run
run follow_hostile_pid t_follow_hostile_pid
run echo_split t_echo_split
run echo_hang t_echo_hang
run dig_named t_dig_named
tap_done
