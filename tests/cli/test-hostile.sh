#!/bin/bash
# SPDX-License-Identifier: MIT
# test-hostile.sh - every reading command used carelessly or with hostile
# input: a trace truncated while it is read, endless input, the same
# losses reported the same way with the same exit status, text that is
# not UTF-8 (valid UTF-8 out of every writer, JSON that loads, a picture
# that keeps its labels and counters).  TAP output.
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
W=$WEFT_BIN
EX=$WEFT_BUILD/examples
. "$WEFT_SRC/tests/tap.sh"
tap_init hostile "$@"
TAP_TIMEOUT=600
# (fontconfig's memory, kept until exit by design, is not ours)
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$WEFT_SRC/tests/render/lsan.supp:print_suppressions=0"


# Every reading command, with the arguments it needs besides the trace.
commands() {
	printf '%s\n' "info" "dump" "why --all" "stats" "stats --json" \
		"export --format chrome -o out.json" "ctf -o ctfdir" \
		"snapshot -o snap.weft" "html -o out.html"
	printf '%s\n' "export --otlp out.otlp" "export --format perfetto -o out.pftrace"
	"$W" --help 2>&1 | grep -q "^  render " && echo "render -o out.png"
}

# cc against the build's libweft, as a user's program would be.
build_prog() { # name (source on stdin)
	cat >"$1.c"
	cc ${WEFT_TEST_CFLAGS:-} -DWEFT_ENABLE -I"$WEFT_SRC/include" "$1.c" \
		-L"$WEFT_BUILD" -lweft -Wl,-rpath,"$WEFT_BUILD" -o "$1" || die "cc $1 failed"
}

# A file truncated while a command reads it (a reader that maps it dies
# of SIGBUS): one message, exit 1, never a signal.  The command is stopped
# as soon as it has the file open, the file cut to 1 MiB, and the command
# let go.
t_truncated_while_read() {
	build_prog big <<'EOF'
#include <stdlib.h>
#include <weft/weft.h>
int main(int argc, char **argv)
{
	long n = atol(argv[2]);
	if (weft_start(argv[1], 256u << 20, WEFT_DISCARD))
		return 1;
	for (long i = 1; i <= n; i++) {
		weft_create((uint64_t)i, "request");
		weft_run((uint64_t)i);
		if (i % 16 == 0)
			weft_label((uint64_t)i, "GET /index.html");
		weft_resolve((uint64_t)i);
		weft_run(0);
	}
	return weft_stop();
}
EOF
	# fewer events under the sanitizers: every command is slower there
	local nev=3000000
	[ -n "${WEFT_TEST_CFLAGS:-}" ] && nev=600000
	./big orig.weft $nev || die "big failed"
	local c pid rc
	while read -r c; do
		cp orig.weft t.weft
		rm -rf ctfdir
		# shellcheck disable=SC2086
		"$W" $c t.weft >/dev/null 2>err.txt &
		pid=$!
		for _ in $(seq 5000); do
			ls -l /proc/$pid/fd 2>/dev/null | grep -q 't\.weft$' && break
			sleep 0.001
		done
		kill -STOP $pid
		truncate -s 1M t.weft
		kill -CONT $pid
		wait $pid
		rc=$?
		[ $rc = 1 ] || die "weft $c: exit $rc, want 1: $(head -c 600 err.txt)"
		grep -qE "shrank while|truncated" err.txt || die "weft $c: $(head -c 600 err.txt)"
		grep -qE "runtime error|Sanitizer" err.txt && die "weft $c: $(head -c 600 err.txt)"
	done < <(commands)
	true
}

# Endless input: a non-weft one is refused after its first bytes; a trace
# followed by endless bytes is read to the end its header declares.
t_endless_input() {
	WEFT_FILE=a.weft "$EX/all-events" 3 >/dev/null || die "example failed"
	"$W" dump a.weft >want.txt || die "dump failed"
	local c rc
	while read -r c; do
		# shellcheck disable=SC2086
		timeout 20 "$W" $c /dev/zero >/dev/null 2>err.txt
		rc=$?
		[ $rc = 1 ] || die "weft $c /dev/zero: exit $rc: $(head -c 300 err.txt)"
		grep -q "not a weft trace" err.txt || die "weft $c /dev/zero: $(cat err.txt)"
		case $c in snapshot*) continue ;; esac # takes a file or a pid
		rm -rf ctfdir
		# shellcheck disable=SC2086
		(cat a.weft; cat /dev/zero) | timeout 20 "$W" $c - >out.txt 2>err.txt
		rc=${PIPESTATUS[1]}
		# why --all: the example leaves threads pending on purpose
		[ $rc = 0 ] || { [ $rc = 1 ] && [ "$c" = "why --all" ]; } ||
			die "weft $c - (trace, then zeros): exit $rc: $(head -c 300 err.txt)"
		[ -s err.txt ] && die "weft $c -: $(head -c 300 err.txt)"
	done < <(commands)
	(cat a.weft; cat /dev/zero) | timeout 20 "$W" dump - >got.txt || die "dump -"
	cmp want.txt got.txt || die "dump of the trace followed by zeros differs"
}

# The same losses, reported the same way, with the same exit status, by
# every command: corruption is exit 1 with its byte offset; losses the
# writer explains (an overwritten ring) are one warning, exit 0.
t_same_report_everywhere() {
	WEFT_FILE=good.weft "$EX/all-events" >/dev/null
	local hs; hs=$(python3 -c "import struct;d=open('good.weft','rb').read(24);print(struct.unpack('<I',d[12:16])[0])")
	cp good.weft flip.weft
	printf '\xde\xad' | dd of=flip.weft bs=1 seek="$hs" conv=notrunc 2>/dev/null
	# a flight recorder's ring that went round: packets overwritten
	build_prog wrap <<'EOF'
#include <weft/weft.h>
int main(void)
{
	if (weft_start("wrap.weft", 48 << 10, 0))
		return 1;
	for (uint64_t i = 1; i <= 20000; i++) {
		weft_create(i, "request");
		weft_resolve(i);
	}
	return weft_stop();
}
EOF
	./wrap || die "wrap failed"
	local c rc
	while read -r c; do
		rm -rf ctfdir
		# shellcheck disable=SC2086
		"$W" $c flip.weft >/dev/null 2>err.txt
		rc=$?
		[ $rc = 1 ] || die "weft $c on a corrupt packet: exit $rc, want 1: $(cat err.txt)"
		grep -q "^weft: 'flip.weft': corrupt at byte offset $hs: packet 0: bad magic$" err.txt ||
			die "weft $c: $(cat err.txt)"
		rm -rf ctfdir
		# shellcheck disable=SC2086
		"$W" $c wrap.weft >/dev/null 2>err.txt
		rc=$?
		# (why exits 1 for what it finds pending: its own verdict)
		[ $rc = 0 ] || [ "${c%% *}" = why ] ||
			die "weft $c on an overwritten ring: exit $rc, want 0: $(cat err.txt)"
		grep -q "^weft: warning: 'wrap.weft': lost [1-9][0-9]* packets ([1-9][0-9]* overwritten or dropped" err.txt ||
			die "weft $c: $(cat err.txt)"
		[ "$(wc -l <err.txt)" = 1 ] || [ "${c%% *}" = snapshot ] || die "weft $c: $(cat err.txt)"
	done < <(commands)
	true
}

# Text that is not UTF-8 (Latin-1, a UTF-16 surrogate, a code point past
# U+10FFFF, an overlong form) in labels, kinds, notes, failures and
# counters: every writer gives valid UTF-8 with U+FFFD in its place, and
# the JSON loads.
t_invalid_utf8_out() {
	build_prog h <<'EOF'
#include <weft/weft.h>
int main(void)
{
	weft_create(1, "task");
	weft_label(1, "caf\xe9");
	weft_create(2, "k\xed\xa0\x80");
	weft_note(2, "\xf4\x90\x80\x80 note");
	weft_counter_set("q\xc0\x80", 3);
	weft_fail(2, "caf\xe9 failed");
	weft_should_resolve(1);
	weft_try_read(2);
	return 0;
}
EOF
	WEFT_FILE=h.weft ./h || die "h failed"
	"$W" stats --json h.weft >s.json || die "stats --json"
	"$W" export --format chrome h.weft -o c.json || die "export"
	"$W" dump h.weft >d.txt || die "dump"
	"$W" stats h.weft >s.txt || die "stats"
	"$W" why h.weft >w.txt
	"$W" info h.weft >i.txt || die "info"
	"$W" ctf h.weft -o ctf || die "ctf"
	python3 - <<'PY' || exit 1
import json
for f in ['d.txt', 's.txt', 'w.txt', 'i.txt', 'ctf/metadata']:
    open(f, 'rb').read().decode('utf-8')      # strict: raises if invalid
s = json.load(open('s.json'))
assert {g['key'] for g in s['labels']} >= {'caf\ufffd'}, s['labels']
assert {g['key'] for g in s['kinds']} >= {'k\ufffd\ufffd\ufffd'}, s['kinds']
assert s['counters'][0]['name'] == 'q\ufffd\ufffd', s['counters']
c = json.load(open('c.json'))
texts = json.dumps(c, ensure_ascii=False)
assert 'caf\ufffd' in texts and '\ufffd\ufffd\ufffd\ufffd note' in texts, texts[:2000]
d = open('d.txt', encoding='utf-8').read()
assert 'text="caf\ufffd"' in d and 'kind="k\ufffd\ufffd\ufffd"' in d, d
PY
	if command -v babeltrace2 >/dev/null; then
		babeltrace2 ctf >/dev/null 2>bt.err || die "babeltrace2: $(cat bt.err)"
	fi
	true
}

# One label that is not UTF-8 must not blank the picture: the other
# labels and the counter band are drawn as they are with valid text.
t_render_keeps_labels() {
	"$W" --help 2>&1 | grep -q "^  render " || { echo "no render"; exit 77; }
	build_prog r <<'EOF'
#include <string.h>
#include <weft/weft.h>
int main(int argc, char **argv)
{
	int good = !strcmp(argv[2], "good");
	if (weft_start(argv[1], 1 << 20, WEFT_CLOCK_MANUAL))
		return 1;
	weft_create(1, "task");
	weft_label(1, good ? "cafe" : "caf\xe9");
	for (int i = 2; i < 8; i++) {
		weft_clock_set((uint64_t)i * 1000);
		weft_create((uint64_t)i, "request");
		/* a surrogate, a code point past U+10FFFF */
		weft_label((uint64_t)i, i == 3	 ? (good ? "abcx" : "\xed\xa0\x80x")
					: i == 5 ? (good ? "abcd" : "\xf4\x90\x80\x80")
						 : "GET /index.html");
		weft_counter_set("queue", i);
		weft_run((uint64_t)i);
		weft_clock_set((uint64_t)i * 1000 + 500);
		weft_resolve((uint64_t)i);
		weft_run(0);
	}
	weft_clock_set(20000);
	return weft_stop();
}
EOF
	./r bad.weft bad && ./r good.weft good || die "r failed"
	local pc=$WEFT_BUILD/tests/render/pixcount f
	for f in bad good; do
		"$W" render $f.weft -o $f.png 2>err.txt || die "render $f: $(cat err.txt)"
		"$W" render $f.weft -o $f.svg 2>err.txt || die "render $f svg: $(cat err.txt)"
	done
	local bk gk br gr
	bk=$("$pc" bad.png 0 0 0) gk=$("$pc" good.png 0 0 0)
	br=$("$pc" bad.png 255 96 96) gr=$("$pc" good.png 255 96 96)
	[ "$gk" -gt 50 ] && [ "$gr" -gt 500 ] || die "the valid picture has no text ($gk) or counter ($gr)"
	[ $((bk * 10)) -ge $((gk * 9)) ] || die "text lost: $bk dark pixels, $gk with valid text"
	[ "$br" -ge $((gr * 9 / 10)) ] || die "counter band lost: $br pixels, $gr with valid text"
	grep -c "<path\|<use" bad.svg >/dev/null || die "empty SVG"
	python3 -c "open('bad.svg','rb').read().decode('utf-8')" || die "SVG not UTF-8"
	[ "$(grep -c '<use' bad.svg)" -ge "$(($(grep -c '<use' good.svg) * 9 / 10))" ] ||
		die "SVG glyphs lost: $(grep -c '<use' bad.svg) vs $(grep -c '<use' good.svg)"
}

# weft stats keeps a kind or label to 28 characters in its table: a
# longer one is cut at a character (never inside one) and ends in "…";
# one of exactly 28 is whole; --json keeps them whole.
t_stats_cut_labels() {
	build_prog l <<'EOF'
#include <weft/weft.h>
int main(void)
{
	weft_create(1, "task");
	weft_label(1, "GET /api/v1/items/12345?page=2&sort=asc");
	weft_create(2, "task");
	weft_label(2, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
		      "\xc3\xa9\xc3\xa9");
	weft_create(3, "task");
	weft_label(3, "exactly twenty-eight chars!!");
	return 0;
}
EOF
	WEFT_FILE=l.weft ./l || die "l failed"
	"$W" stats l.weft >s.txt || die "stats"
	"$W" stats --json l.weft >s.json || die "stats --json"
	python3 - <<'PY' || exit 1
import json
rows = open('s.txt', encoding='utf-8').read().split('\n')
def row(start):
    r = [l for l in rows if l.startswith('  ' + start)]
    assert len(r) == 1, (start, rows)
    return r[0]
assert row('GET /api/v1/items/12345?pag\u2026 ')
assert row('\u00e9' * 27 + '\u2026 ')
assert row('exactly twenty-eight chars!! ')
# the counts line up whatever the cut: the same column in every row
cols = {row(k).index(' 1 ') for k in ('GET', '\u00e9', 'exactly')}
assert len(cols) == 1, cols
lab = {g['key'] for g in json.load(open('s.json'))['labels']}
assert 'GET /api/v1/items/12345?page=2&sort=asc' in lab, lab
assert '\u00e9' * 30 in lab, lab
PY
}

export W EX T WEFT_SRC WEFT_BUILD
run truncated_while_read t_truncated_while_read
run endless_input t_endless_input
run same_report_everywhere t_same_report_everywhere
run invalid_utf8_out t_invalid_utf8_out
run render_keeps_labels t_render_keeps_labels
run stats_cut_labels t_stats_cut_labels
tap_done
