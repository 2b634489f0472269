#!/bin/bash
# SPDX-License-Identifier: MIT
# test-diff.sh - `weft diff` on real recordings: the ARP example's good and
# bad runs (the flipped order of the signal and the wait is the first
# divergence), two good runs (the same structure), examples/regress.c's
# known regression on the manual clock (reported with its ratio, one run a
# side and ten with jitter), ten runs against ten of the same program with
# jitter (no false report), each kind of divergence, --key (and the hint
# of --key kind where labels tell runs apart), rings of programs that
# started tracing themselves (no session: compared, or merged when one
# process wrote both), --json, usage and bad input.  TAP output.
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
W=$WEFT_BIN
EX=$WEFT_BUILD/examples
T=$(mktemp -d "${TMPDIR:-/tmp}/weft-diff.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
unset WEFT_FILE WEFT_SIZE WEFT_MODE WEFT_CLOCK
# (weft render's fontconfig keeps memory until exit by design)
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$WEFT_SRC/tests/render/lsan.supp"
n=0 failn=0
die() { echo "# $*" | head -40; exit 1; }
run() { # name, function (exit 77: skipped, the reason its last line)
	n=$((n + 1))
	local rc=0 # (a condition: set -e stays off inside, as the cases expect)
	if (set -e; "$2") >"$T/log" 2>&1; then :; else rc=$?; fi
	case $rc in
	0) echo "ok $n - $1" ;;
	77) echo "ok $n - $1 # SKIP $(tail -1 "$T/log")" ;;
	*) failn=$((failn + 1)); echo "not ok $n - $1"; sed 's/^/# /' "$T/log" | head -40 ;;
	esac
}
j() { python3 -c "import json,sys; d=json.load(open('$1')); $2" || die "$(cat "$1")"; }

t_arp() {
	WEFT_FILE=good.weft "$EX/arp" good >/dev/null
	WEFT_FILE=good2.weft "$EX/arp" good >/dev/null
	WEFT_FILE=bad.weft "$EX/arp" bad >/dev/null
	"$W" diff good.weft bad.weft >out.txt; [ $? = 1 ] || die "good/bad: exit $?: $(cat out.txt)"
	grep -q "^first divergence: a wait on ARP response (condition) and a wake-up of it came in opposite orders$" out.txt || die "$(cat out.txt)"
	grep -q "^  good: TCP connect (task) waits on it at .* s, then port-4: ARP response (event) signals it at .* s$" out.txt || die "$(cat out.txt)"
	grep -q "^  bad:  port-4: ARP response (event) signals it at .* s, then TCP connect (task) waits on it at .* s$" out.txt || die "$(cat out.txt)"
	grep -q "^  ARP response (condition): event loop > main > TCP connect > ARP response$" out.txt || die "$(cat out.txt)"
	grep -q "^      (weft why: lost wake-up)$" out.txt || die "$(cat out.txt)"
	"$W" diff --json good.weft bad.weft >out.json; [ $? = 1 ] || die "--json exit"
	j out.json "v=d['divergence']; assert d['structure']=='different' and v['kind']=='order', v
assert v['good']['wait']['actor']=='TCP connect' and v['good']['wake']['actor']=='port-4: ARP response', v
assert v['bad']['wait']['actor']=='TCP connect' and v['bad']['wake']['actor']=='port-4: ARP response', v
assert v['good']['wait']['t_ns'] < v['good']['wake']['t_ns'] and v['bad']['wake']['t_ns'] < v['bad']['wait']['t_ns'], v
assert d['aligned']==7 and d['only_good']==0 and d['only_bad']==0, d"
	"$W" diff good.weft good2.weft >out.txt || die "good/good: exit $?: $(cat out.txt)"
	grep -q "^same structure" out.txt || die "$(cat out.txt)"
	grep -q "^  no difference beyond the threshold" out.txt || die "$(cat out.txt)"
}

t_regression() {
	WEFT_FILE=a.weft "$EX/regress" good >/dev/null
	WEFT_FILE=b.weft "$EX/regress" slow >/dev/null
	"$W" diff a.weft b.weft >out.txt || die "exit $?: $(cat out.txt)"
	grep -q "^same structure" out.txt || die "$(cat out.txt)"
	grep -q "^  request: GET /item/#  running: p50 300 us -> 600 us, p95 300 us -> 600 us, max 300 us -> 600 us (p50 x2.00), n 20 -> 20$" out.txt || die "$(cat out.txt)"
	! grep -q "GET /user" out.txt || die "the unchanged label reported: $(cat out.txt)"
	"$W" diff --strict a.weft b.weft >/dev/null; [ $? = 1 ] || die "--strict: a timing difference exits 1"
	"$W" diff --json a.weft b.weft >out.json || die "--json"
	j out.json "t=d['timing']; r=[x for x in t['differences'] if x['metric']=='running']
assert d['structure']=='same' and t['test']=='ratio' and len(r)==1 and r[0]['key']=='request: GET /item/#' and r[0]['ratio']==2 and r[0]['p50_ns']==[300000,600000], t"
	# a higher threshold hides it, a lower one shows the lifetime too
	"$W" diff --ratio 2.5 a.weft b.weft | grep -q "no difference beyond" || die "--ratio 2.5"
	"$W" diff --min 400us a.weft b.weft | grep -q "no difference beyond" || die "--min 400us"
}

t_runs() {
	local s
	for s in $(seq 1 20); do
		WEFT_FILE=g$s.weft "$EX/regress" good $s >/dev/null
		WEFT_FILE=s$s.weft "$EX/regress" slow $((s + 100)) >/dev/null
	done
	# ten good runs against ten other good runs: jitter is not a change
	"$W" diff --json g{1..10}.weft -- g{11..20}.weft >out.json || die "good/good exit $?"
	j out.json "t=d['timing']; assert t['test']=='mann-whitney' and t['differences']==[] and t['tests']==18, t"
	# and one run against one, at the ratio threshold
	for s in $(seq 1 9); do
		"$W" diff g$s.weft g$((s + 10)).weft | grep -q "no difference beyond" || die "g$s g$((s + 10))"
	done
	# ten against ten slow ones: found, with its ratio and p
	"$W" diff --json g{1..10}.weft -- s{11..20}.weft >out.json || die "good/slow exit $?"
	j out.json "r={(x['key'],x['metric']):x for x in d['timing']['differences']}
x=r[('request: GET /item/#','running')]; assert 1.9 < x['ratio'] < 2.1 and x['p'] < 1e-4, x
assert set(r) <= {('request: GET /item/#','running'),('request: GET /item/#','lifetime')}, r"
	"$W" diff g1.weft g2.weft -- s1.weft >/dev/null 2>&1; [ $? = 0 ] || die "2 runs against 1"
}

t_runs_minimum() {
	# 18 tests (3 groups, 3 metrics, p50 and p95) at alpha 0.01: Holm
	# needs a p of 0.01/18 = 0.00056; runs apart give 2/C(2n, n): 0.00058
	# at 7 a side, 0.00016 at 8 (docs/diff.md: the minimum is 8)
	local s
	for s in $(seq 1 8); do
		WEFT_FILE=g$s.weft "$EX/regress" good $s >/dev/null
		WEFT_FILE=s$s.weft "$EX/regress" slow $((s + 100)) >/dev/null
	done
	"$W" diff --json g{1..8}.weft -- s{1..8}.weft >out.json || die "8/8 exit $?"
	j out.json "t=d['timing']; r={(x['key'],x['metric']):x for x in t['differences']}
assert t['test']=='mann-whitney' and t['tests']==18, t
x=r[('request: GET /item/#','running')]; assert abs(x['p'] / (2/12870) - 1) < 1e-3 and 1.9 < x['ratio'] < 2.1 and x['count']==[20,20], x"
	"$W" diff --json g{1..7}.weft -- s{1..7}.weft >out.json || die "7/7 exit $?"
	j out.json "t=d['timing']; assert t['test']=='mann-whitney' and t['tests']==18 and t['differences']==[], t"
	# a looser alpha finds it at 7: the runs were apart, only too few
	"$W" diff --json --alpha 0.02 g{1..7}.weft -- s{1..7}.weft >out.json || die "7/7 alpha exit $?"
	j out.json "r={(x['key'],x['metric']):x for x in d['timing']['differences']}
x=r[('request: GET /item/#','running')]; assert abs(x['p'] / (2/3432) - 1) < 1e-3, x"
	# three a side, the fewest tested at all: 6 tests of a group whose
	# runs are apart give p 0.1, never below 0.01
	"$W" diff --json g{1..3}.weft -- s{1..3}.weft >out.json || die "3/3 exit $?"
	j out.json "t=d['timing']; assert t['test']=='mann-whitney' and t['differences']==[], t"
}

t_kinds() {
	WEFT_FILE=a.weft "$EX/regress" good >/dev/null
	WEFT_FILE=x.weft "$EX/regress" extra >/dev/null
	WEFT_FILE=f.weft "$EX/regress" fail >/dev/null
	"$W" diff a.weft x.weft >out.txt; [ $? = 1 ] || die "extra: exit"
	grep -q '^first divergence: SELECT \* FROM t WHERE id = \$1 (db query) exists in the bad run only (created at 0.004 070 s)$' out.txt || die "$(cat out.txt)"
	grep -q "^  no such thread among what GET /item/1222 (request) created$" out.txt || die "$(cat out.txt)"
	"$W" diff x.weft a.weft | grep -q "exists in the good run only" || die "reversed"
	"$W" diff a.weft f.weft >out.txt; [ $? = 1 ] || die "fail: exit"
	grep -q '^first divergence: SELECT \* FROM t WHERE id = \$1 (db query) resolved at 0.002 850 s in good, and failed at 0.002 850 s in bad$' out.txt || die "$(cat out.txt)"
	# an interaction of one run only
	WEFT_FILE=s.weft "$EX/regress" signal >/dev/null
	"$W" diff a.weft s.weft >out.txt; [ $? = 1 ] || die "signal: exit"
	grep -q "^first divergence: in the bad run only, event loop signals GET /user/1111 (request) (at 0.002 240 s)$" out.txt || die "$(cat out.txt)"
	"$W" diff --json s.weft a.weft >out.json; [ $? = 1 ] || die "signal: exit"
	j out.json "v=d['divergence']; assert v['kind']=='arrow' and v['good']['interaction']=={'arrow':'signalled','actor':'event loop','actor_id':1,'t_ns':2240000} and v['good']['thread']['title']=='GET /user/1111' and 't_ns' not in v['bad'], v"
	# an end, where the other run resolved
	WEFT_FILE=v1.weft "$EX/verdicts" ok >/dev/null
	WEFT_FILE=v2.weft "$EX/verdicts" never >/dev/null
	"$W" diff --json v1.weft v2.weft >out.json; [ $? = 1 ] || die "verdicts: exit"
	j out.json "v=d['divergence']; assert v['kind']=='end' and v['good']['thread']['end']=='resolved' and v['bad']['thread']['end']=='is still pending at the end' and v['good']['thread']['title']=='helper B', v"
}

t_key() {
	# the labels embed numbers: normalised they align, raw they do not
	WEFT_FILE=a.weft "$EX/regress" good >/dev/null
	WEFT_FILE=b.weft "$EX/regress" good 5 >/dev/null
	"$W" diff a.weft b.weft >/dev/null || die "label"
	"$W" diff --key raw a.weft b.weft >/dev/null || die "raw: the same labels"
	"$W" diff --key kind --json a.weft b.weft >out.json || die "kind"
	j out.json "assert d['key']=='kind' and d['aligned']==81, d"
	WEFT_FILE=ae1.weft "$EX/all-events" 3 >/dev/null
	WEFT_FILE=ae2.weft "$EX/all-events" 3 >/dev/null
	"$W" diff --key raw ae1.weft ae2.weft >/dev/null || die "all-events raw: $("$W" diff --key raw ae1.weft ae2.weft)"
}

# users RUN FILE [FILE2]: a program that calls weft_start() itself (no
# session: outside any run) and serves three requests, each labelled with
# the user who asked (RUN 0 and 1 serve other users); with FILE2, its
# tracing stopped and started again into FILE2 for three more
users_prog() {
	cat >users.c <<'EOF'
#include <weft/weft.h>
#include <stdio.h>
#include <stdlib.h>
static void serve(int run, int from)
{
	static const char *users[2][6] = {
		{"alice", "carol", "erin", "gina", "ivan", "kate"},
		{"bob", "dave", "frank", "hank", "judy", "liam"}};
	weft_run(1);
	weft_label(1, "event loop");
	for (int i = from; i < from + 3; i++) {
		char lab[64];
		uint64_t req = 100 + i, q = 200 + i;
		snprintf(lab, sizeof lab, "GET /profile of %s", users[run][i]);
		weft_create(req, "request");
		weft_label(req, lab);
		weft_run(req);
		weft_create(q, "db query");
		weft_run(1);
		weft_resolve(q);
		weft_run(req);
		weft_read(q);
		weft_run(1);
		weft_resolve(req);
	}
	weft_run(0);
}
int main(int argc, char **argv)
{
	int run = atoi(argv[1]);
	if (weft_start(argv[2], 1 << 20, 0))
		return 1;
	serve(run, 0);
	if (argc > 3) {
		weft_stop();
		if (weft_start(argv[3], 1 << 20, 0))
			return 1;
		serve(run, 3);
	}
	return weft_stop() ? 1 : 0;
}
EOF
	# shellcheck disable=SC2086
	cc -DWEFT_ENABLE -I"$WEFT_SRC/include" users.c -L"$WEFT_BUILD" -lweft \
		-Wl,-rpath,"$WEFT_BUILD" -o users ${WEFT_TEST_CFLAGS:-} || die "cc users.c"
}

t_hint() {
	users_prog
	unset WEFT_SESSION WEFT_RUN WEFT_ROOT_PID
	./users 0 u0.weft && ./users 1 u1.weft || die "users"
	# the labels name users: no request aligns, and the hint says what
	# --key kind does
	"$W" diff u0.weft u1.weft >out.txt; [ $? = 1 ] || die "exit: $(cat out.txt)"
	# (which of the first two requests came first decides the run named)
	grep -Eq "^first divergence: GET /profile of (alice \(request\) exists in the good|bob \(request\) exists in the bad) run only" out.txt || die "$(cat out.txt)"
	grep -qx "hint: the runs' labels tell their threads apart here; --key kind (a thread known by its kind and place alone) aligns 7 async threads instead of 1, with the same structure" out.txt || die "$(cat out.txt)"
	"$W" diff --json u0.weft u1.weft >out.json; [ $? = 1 ] || die "--json exit"
	j out.json "assert d['aligned']==1 and d['hint']=={'key':'kind','aligned':7,'structure':'same'}, d"
	"$W" diff --key kind u0.weft u1.weft >out.txt || die "--key kind: $(cat out.txt)"
	! grep -q "^hint:" out.txt || die "a hint with --key kind: $(cat out.txt)"
	# no hint where the labels are not what differs: the ARP runs
	WEFT_FILE=good.weft "$EX/arp" good >/dev/null
	WEFT_FILE=bad.weft "$EX/arp" bad >/dev/null
	"$W" diff good.weft bad.weft >out.txt
	! grep -q "^hint:" out.txt || die "a hint on the ARP runs: $(cat out.txt)"
	"$W" diff --json good.weft bad.weft | python3 -c "import json,sys; assert 'hint' not in json.load(sys.stdin)" ||
		die "a JSON hint on the ARP runs"
}

t_no_session() {
	# (what reads two traces as a pair draws them: weft render)
	"$W" render 2>/dev/null; [ $? = 2 ] && "$W" help render >/dev/null 2>&1 ||
		{ echo "weft render is not built (no cairo)"; exit 77; }
	users_prog
	unset WEFT_SESSION WEFT_RUN WEFT_ROOT_PID
	./users 0 a.weft && ./users 0 b.weft && ./users 0 c1.weft c2.weft || die "users"
	# two runs of one program, neither in a run: compared, not merged
	"$W" render a.weft b.weft -o ab.png 2>err.txt || die "render: $(cat err.txt)"
	grep -qx "weft: comparing a.weft with b.weft: two runs of users (--merge reads them as one run)" err.txt || die "$(cat err.txt)"
	# one process that traced into two files: parts of one run
	"$W" render c1.weft c2.weft -o c.png 2>err.txt || die "render: $(cat err.txt)"
	grep -q "^weft: merging c1.weft and c2.weft as one run: parts of one run (the same process of pid [0-9]* and [0-9]*, no session)" err.txt || die "$(cat err.txt)"
	# the regress example stops the environment's tracing and starts its
	# own (manual clock): no session either
	WEFT_FILE=r1.weft "$EX/regress" good >/dev/null
	WEFT_FILE=r2.weft "$EX/regress" good 5 >/dev/null
	"$W" render r1.weft r2.weft -o r.png 2>err.txt || die "render: $(cat err.txt)"
	grep -qx "weft: comparing r1.weft with r2.weft: two runs of regress (--merge reads them as one run)" err.txt || die "$(cat err.txt)"
}

t_usage() {
	WEFT_FILE=a.weft "$EX/arp" good >/dev/null
	"$W" diff a.weft 2>/dev/null; [ $? = 2 ] || die "one file"
	"$W" diff a.weft a.weft a.weft 2>/dev/null; [ $? = 2 ] || die "three files, no --"
	"$W" diff --key nope a.weft a.weft 2>/dev/null; [ $? = 2 ] || die "--key nope"
	"$W" diff --min 5parsecs a.weft a.weft 2>/dev/null; [ $? = 2 ] || die "--min"
	"$W" diff a.weft missing.weft 2>err.txt; [ $? = 1 ] || die "missing file"
	grep -q "^weft: cannot read 'missing.weft'" err.txt || die "$(cat err.txt)"
	head -c 100 a.weft >cut.weft
	"$W" diff a.weft cut.weft 2>/dev/null; [ $? = 1 ] || die "cut file"
	"$W" diff a.weft - <a.weft >/dev/null || die "stdin"
}

run "arp: the flipped signal and wait; two good runs the same" t_arp
run "a known regression on the manual clock, with its ratio" t_regression
run "ten runs a side with jitter: no false report; the regression found" t_runs
run "the fewest runs a side that can show a difference (8), and one fewer" t_runs_minimum
run "a thread of one run, an end, an interaction of one run" t_kinds
run "--key label, raw, kind" t_key
run "labels that tell runs apart: a hint of --key kind" t_hint
run "rings with no session: two runs compared, one process's parts merged" t_no_session
run "usage and bad input" t_usage
echo "1..$n"
echo "# $((n - failn)) passed, $failn failed, 0 skipped"
[ $failn = 0 ]
