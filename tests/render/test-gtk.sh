#!/bin/bash
# SPDX-License-Identifier: MIT
# test-gtk.sh - the GTK viewer under Xvfb: it draws the trace with each
# arrow colour, search highlights in yellow, and it follows a trace that is
# still being written (the newest events appear in the open window); then,
# driven with real X input events (XTest) and
# checked on screenshots of the X server: a click selects, a double click
# highlights the causal chain, C shows only the chain, keys zoom and fit,
# the counters menu hides a counter, a click on a process's header (a run
# of two) collapses its rows, the inspector lists every entry and a click
# on one goes to its thread (the canvas keeping its width), P draws the
# selected thread's critical path; a resized window zooms a big trace
# notch by notch; smooth scroll
# deltas and touch (drag, pinch), which XTest cannot make, replayed
# through the viewer's handlers (WEFT_VIEW_EVENTS); two runs to compare
# in one window, a click selecting a thread and its partner; the query
# bar: "slowest" in one click, rows that go to their threads, SQL typed
# after the colon key, errors with their position.
# TAP output.  Arguments, if any, are words: only the cases whose names
# hold one of them run, and only what they need (a viewer's session that
# has none of them is not started; tests/meta/mutants names a case this
# way).
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
W=$WEFT_BIN
XD=$WEFT_BUILD/tests/render/xdrive

# picked NAME: the case NAME is asked for (no words given, or it holds one
# of the words in ONLY)
picked() {
	local w
	[ ${#ONLY[@]} = 0 ] && return 0
	for w in "${ONLY[@]}"; do
		case $1 in *"$w"*) return 0 ;; esac
	done
	return 1
}

# --session DIR [WORD...]: run inside the X server; prints PASS/FAIL lines
# (of the cases asked for), then "DONE" when it got to its end.
if [ "${1:-}" = --session ]; then
	cd "$2" || exit 1
	shift 2
	ONLY=("$@")
	PC=$WEFT_BUILD/tests/render/pixcount
	# part NAME...: the cases of the part that follows (a viewer's session,
	# as a rule): true, and the part is run, when one of them is asked for
	PART=()
	part() {
		local c=
		PART=("$@")
		for c; do picked "$c" && return 0; done
		return 1
	}
	# res STATUS NAME WHY: a case's verdict, said when it is asked for (a
	# part runs all of its steps: later cases need the earlier's).  NAME
	# must be one of its part's, or a word would not find it.
	res() {
		local c=
		for c in "${PART[@]}"; do [ "$c" = "$2" ] && break; done
		if [ "$c" != "$2" ]; then
			echo "FAIL $2: not a case of its part (test-gtk.sh: add it to its part line)"
		elif picked "$2"; then
			if [ "$1" = 0 ]; then echo "PASS $2"; else echo "FAIL $2: $3"; fi
		fi
	}
	# logged FILE REGEX [N]: waits (10 s at most) until FILE has N lines
	# (1) matching REGEX: what the viewer echoes once it has done a
	# thing, rather than a guess of how long it takes under load
	logged() {
		local k=0
		while [ "$(grep -cE "$2" "$1")" -lt "${3:-1}" ] && [ $k -lt 100 ]; do
			sleep 0.1
			k=$((k + 1))
		done
	}
	if part \
		"the window appears" \
		"screenshot of the X window: green, blue arrows, red never-resolved line" \
		"a key works before any click" \
		"a wheel notch zooms by 1.25, five by 3; a horizontal scroll pans" \
		"? shows the keys, Esc hides them" \
		"the help's columns are aligned" \
		"the help lists the key table's lines (tests/render/keys-help.txt)" \
		"the ? button shows the keys and hides them" \
		"a drag pans and does not select" \
		"hovering a thread shows its tooltip" \
		"a click on the red line selects main and outlines it" \
		"P highlights the selected thread's critical path and says its split; P again clears it" \
		"a double click highlights its causal chain" \
		"keys 1 and 0 set the chain's depth" \
		"keys 3, 2, 1, 0 set the chain's depth" \
		"C shows only the connected threads, and back" \
		"W zooms in, F fits" \
		"W + keypad-+ zoom in, S - keypad-- out; D Right A Left pan; Down Up PgDn PgUp move the focus" \
		"Esc clears the selection and the chain" \
		"shift+drag measures a range, drawn over the whole height" \
		"the measured range's summary says what weft stats --from --to says" \
		"a click on a group's line of the summary highlights its threads" \
		"Z zooms to the measured range" \
		"Esc clears the measure" \
		"PNG asks where, saves there and says so" \
		"saving over a file asks first; cancelled, the file stays" \
		"a light desktop gets a light picture"; then
		WEFT_VIEW_ECHO=1 "$W" view bad.weft 2>ui.log &
		vp=$!
		"$XD" wait "bad.weft - weft" 20; res $? "the window appears" "no window"
		sleep 1
		"$XD" shot s1.png
		g=$("$PC" s1.png 0 128 0) b=$("$PC" s1.png 0 0 255) r=$("$PC" s1.png 204 0 0)
		[ "$g" -gt 5 ] && [ "$b" -gt 5 ] && [ "$r" -gt 100 ]
		res $? "screenshot of the X window: green, blue arrows, red never-resolved line" "green $g blue $b red $r"
		# Keys work as soon as the window has focus: no click first (the
		# pointer over the window gives it the focus, as a window manager
		# would)
		"$XD" move 600 400
		sleep 0.3
		"$XD" key w
		sleep 0.4
		grep -q "^range: " ui.log
		res $? "a key works before any click" "$(tail -2 ui.log)"
		"$XD" key f
		sleep 0.4
		# The wheel: a notch zooms by 1.25 around the pointer, five by about
		# 3 (not a fixed step per event); a horizontal scroll pans
		sp() { grep '^range:' ui.log | tail -1 | awk '{print $3 - $2, $2}'; }
		read -r s0 l0 < <(sp)
		"$XD" button 4 1
		sleep 0.4
		read -r s1 _ < <(sp)
		"$XD" button 4 5
		sleep 0.6
		read -r s2 _ < <(sp)
		"$XD" key f
		sleep 0.4
		read -r s3 l3 < <(sp)
		"$XD" button 7 3
		sleep 0.5
		read -r s4 l4 < <(sp)
		"$XD" key f
		sleep 0.4
		python3 -c "
import sys; s0,s1,s2,s3,s4,l3,l4 = map(float, sys.argv[1:])
r1, r2 = s0 / s1, s1 / s2
assert 1.2 < r1 < 1.3 and 2.7 < r2 < 3.4, (r1, r2)
assert s4 == s3 and l4 > l3, (s3, s4, l3, l4)" "$s0" "$s1" "$s2" "$s3" "$s4" "$l3" "$l4"
		res $? "a wheel notch zooms by 1.25, five by 3; a horizontal scroll pans" "spans $s0 $s1 $s2, pan $s3 $l3 -> $s4 $l4"
		# ? shows the keys, Esc hides them
		"$XD" shot h0.png
		"$XD" key question
		sleep 0.5
		"$XD" shot h1.png
		"$XD" key Escape
		sleep 0.5
		"$XD" shot h2.png
		! cmp -s h0.png h1.png && grep -q "^help: shown$" ui.log && grep -q "^help: hidden$" ui.log
		res $? "? shows the keys, Esc hides them" "$(grep '^help' ui.log | tr '\n' ' ')"
		# the help's columns aligned: every name padded to the longest (the
		# pointer's "drag the ruler" as the keys'), none cut
		grep '^help-line: ' ui.log | python3 -c "
import sys
ls = [l.rstrip('\n')[len('help-line: '):] for l in sys.stdin]
names = [l.split('|')[0] for l in ls]
assert len(ls) >= 20, ls
assert len(set(map(len, names))) == 1, names
assert 'drag the ruler' in [n.strip() for n in names] and 'PgUp  PgDn' in [n.strip() for n in names], names
assert max(len(n.rstrip()) for n in names) == len(names[0]), names"
		res $? "the help's columns are aligned" "$(grep '^help-line' ui.log | head -3 | tr '\n' ' ')"
		# the help is the key table's, line by line, in its order (the
		# lines both viewers show, and those of GTK only)
		grep -E '^help-(head|line): ' ui.log | python3 -c "
import sys
got = []
for l in sys.stdin:
    l = l.rstrip('\n')
    if l.startswith('help-head: '):
        sec = l[len('help-head: '):]
    else:
        n, t = l[len('help-line: '):].split('|', 1)
        got.append((sec, n.rstrip(), t))
want = [tuple(f.split('\t')[:3]) for f in open(sys.argv[1]).read().splitlines()
        if f and not f.startswith('#') and f.split('\t')[3:] in ([], ['gtk'])]
assert got == want, [(g, w) for g, w in zip(got + [None] * len(want), want + [None] * len(got)) if g != w][:3]" "$WEFT_SRC/tests/render/keys-help.txt"
		res $? "the help lists the key table's lines (tests/render/keys-help.txt)" "$(grep -E '^help-(head|line)' ui.log | head -3 | tr '\n' ' ')"
		# a "?" button says that the keys exist, and shows them as ? does
		read -r _ _ _ x y w h < <(grep "^button ? at" ui.log)
		n0=$(grep -c "^help: shown$" ui.log)
		"$XD" click $((x + w / 2)) $((y + h / 2))
		logged ui.log "^help: shown$" $((n0 + 1))
		"$XD" click $((x + w / 2)) $((y + h / 2))
		logged ui.log "^help: hidden$" 2
		[ -n "$x" ] && [ "$(grep -c "^help: shown$" ui.log)" = $((n0 + 1)) ] && [ "$(grep -c "^help: hidden$" ui.log)" = 2 ]
		res $? "the ? button shows the keys and hides them" "$(grep -E '^(help|button \?)' ui.log | tr '\n' ' ')"
		"$XD" move 600 400
		sleep 0.3
		# A drag pans and never selects, even starting on a thread's line
		xy=$("$XD" find 204 0 0)
		set -- $xy
		"$XD" shot d0.png
		"$XD" drag "$1" "$2" $(($1 - 150)) "$2"
		sleep 0.5
		"$XD" shot d1.png
		! grep -q "^select: " ui.log && ! cmp -s d0.png d1.png
		res $? "a drag pans and does not select" "$(grep '^select' ui.log)"
		"$XD" key f
		sleep 0.4
		xy=$("$XD" find 204 0 0)
		# hovering main's red line: its tooltip
		"$XD" move $xy
		sleep 1.5
		"$XD" shot t1.png
		grep -Eq "^tooltip: task, pending for [0-9.]+ [num]?s, ran [0-9.]+ [num]?s$" ui.log && ! cmp -s d1.png t1.png
		res $? "hovering a thread shows its tooltip" "$(grep '^tooltip' ui.log | tail -2)"
		"$XD" click $xy
		sleep 0.5
		"$XD" shot s2.png
		o=$("$PC" s2.png 255 115 0)
		grep -q "^select: main$" ui.log && [ "$o" -gt 20 ]
		res $? "a click on the red line selects main and outlines it" "at $xy: $(tail -1 ui.log), orange $o"
		# P: main's critical path, drawn in magenta, its four threads, its
		# split in the inspector; P again (shift+p, the capital) clears it
		"$XD" key p
		sleep 0.5
		"$XD" shot pa1.png
		"$XD" key P
		sleep 0.5
		"$XD" shot pa2.png
		# (known from the example: main, TCP connect, port-4's ack of the
		# ring's write, ARP response; not what weft why says, the same code)
		want=4
		m1=$("$PC" pa1.png 217 0 140) m2=$("$PC" pa2.png 217 0 140)
		got=$(sed -n 's/^path: \([0-9]*\) threads, critical path of main (\1 threads, [0-9.]* [num]*s): running [0-9.]* [num]*s, .*waiting [0-9.]* [num]*s (on TCP connect .*/\1/p' ui.log)
		[ -n "$got" ] && [ "$got" = "$want" ] && [ "$m1" -gt 100 ] && [ "$m2" = 0 ] && grep -q "^path: 0 threads$" ui.log
		res $? "P highlights the selected thread's critical path and says its split; P again clears it" \
			"want ${want:-} threads, magenta $m1 -> $m2: $(grep '^path' ui.log | tr '\n' ' ')"
		# ARP response, two rows (52 px) below main: its chain is not the
		# whole trace
		set -- $xy
		sleep 0.6
		"$XD" dblclick "$1" $(($2 + 52))
		sleep 0.5
		"$XD" shot s3.png
		ch=$("$PC" s3.png 176 222 207)
		n=$(sed -n 's/^chain: ARP response, \([0-9]*\) threads$/\1/p' ui.log | tail -1)
		[ "${n:-0}" -ge 2 ] && [ "$ch" -gt 100 ]
		res $? "a double click highlights its causal chain" "chain '${n:-}', chain colour $ch, $(tail -2 ui.log)"
		# 1: the chain's direct arrows only (three threads), 0: all again
		"$XD" key 1
		sleep 0.4
		"$XD" key 0
		sleep 0.4
		d1=$(sed -n 's/^depth: direct, chain \([0-9]*\) threads.*/\1/p' ui.log | tail -1)
		d0=$(sed -n 's/^depth: all, chain \([0-9]*\) threads.*/\1/p' ui.log | tail -1)
		[ "${d1:-0}" = 3 ] && [ "${d0:-0}" = "${n:-x}" ]
		res $? "keys 1 and 0 set the chain's depth" "direct '${d1:-}' all '${d0:-}' (chain '${n:-}')"
		# 3, 2, 1: the depths in the menu, in the order pressed
		nd=$(grep -c '^depth: ' ui.log)
		for k in 3 2 1 0; do
			"$XD" key $k
			nd=$((nd + 1))
			logged ui.log '^depth: ' $nd
		done
		ds=$(grep '^depth: ' ui.log | tail -4 | cut -d, -f1 | tr '\n' '|')
		[ "$ds" = "depth: 3|depth: 2|depth: direct|depth: all|" ]
		res $? "keys 3, 2, 1, 0 set the chain's depth" "$ds"
		"$XD" key c
		sleep 0.4
		"$XD" key c
		sleep 0.4
		on=$(sed -n 's/^connected: on, \([0-9]*\) rows$/\1/p' ui.log | tail -1)
		off=$(sed -n 's/^connected: off, \([0-9]*\) rows$/\1/p' ui.log | tail -1)
		[ -n "$on" ] && [ -n "$off" ] && [ "$on" -lt "$off" ]
		res $? "C shows only the connected threads, and back" "on '$on' off '$off'"
		"$XD" key w
		sleep 0.3
		"$XD" key f
		sleep 0.3
		z=$(grep '^range:' ui.log | awk '{print $3 - $2}' | tr '\n' ' ')
		set -- $z
		[ $# -ge 2 ] && [ "$1" -lt "$2" ]
		res $? "W zooms in, F fits" "spans $z"
		# every zoom, pan and focus key of the table: W + keypad-+ zoom in
		# by 1.25, S - keypad-- out; D Right pan to later times by the same
		# step, A Left back; Down Up move the focus by a row, PgDn PgUp by
		# ten (within the rows: the connected test's count)
		nr=$(grep -c '^range:' ui.log)
		ks="w w w w s minus KP_Subtract w plus KP_Add d Right a Left Down Down Up Next Prior"
		for k in $ks; do
			"$XD" key $k
			nr=$((nr + 1))
			logged ui.log '^range:' $nr
		done
		grep '^range:' ui.log | tail -20 | tr -d , | python3 -c "
import sys
rows = int(sys.argv[1])
r = [(int(l.split()[1]), int(l.split()[2]), int(l.split()[4])) for l in sys.stdin]
assert len(r) == 20, r
span = [b - a for a, b, _ in r]
z = lambda i, f: abs(span[i] / span[i - 1] - f) < 0.005
for i, f in zip(range(1, 11), [0.8] * 4 + [1.25] * 3 + [0.8] * 3):
    assert z(i, f), ('zoom', i, span[i - 1], span[i])
s = span[10]
assert span[10:15] == [s] * 5, ('pan keeps the span', span[10:15])
st = [r[i][0] - r[i - 1][0] for i in range(11, 15)]
assert 0.15 * s < st[0] < 0.25 * s and abs(st[1] - st[0]) <= 2, ('later', st)
assert abs(st[2] + st[0]) <= 2 and abs(st[3] + st[1]) <= 2, ('earlier', st)
f = r[14][2]
want = []
for d in (1, 1, -1, 10, -10):
    f = min(max(f + d, 0), rows - 1)
    want.append(f)
assert rows > 3 and [x[2] for x in r[15:]] == want, ('focus', rows, r[14:], want)" "${off:-0}"
		res $? "W + keypad-+ zoom in, S - keypad-- out; D Right A Left pan; Down Up PgDn PgUp move the focus" "$(grep '^range:' ui.log | tail -20 | tr '\n' ' ')"
		"$XD" key f
		sleep 0.3
		# Esc clears the selection, the chain and the search
		"$XD" click 300 200
		sleep 0.3
		"$XD" key Escape
		sleep 0.5
		"$XD" shot s4.png
		o=$("$PC" s4.png 255 115 0) ch=$("$PC" s4.png 176 222 207)
		grep -q "^clear: no selection, no search$" ui.log && [ "$o" -lt 5 ] && [ "$ch" -lt 5 ]
		res $? "Esc clears the selection and the chain" "orange $o, chain $ch: $(tail -1 ui.log)"
		# Shift+drag measures a range: a band over the whole height (its
		# dark blue edges), never a selection; Z zooms to exactly it; Esc
		# clears it
		"$XD" key f
		sleep 0.4
		"$XD" shot m0.png
		sel=$(grep -c '^select: ' ui.log)
		"$XD" drag 300 300 600 320 Shift_L
		sleep 0.5
		"$XD" shot m1.png
		e0=$("$PC" m0.png 38 77 204) e1=$("$PC" m1.png 38 77 204)
		read -r _ m0 m1 md < <(grep '^measure: -*[0-9]' ui.log | tail -1)
		[ "$e0" = 0 ] && [ "$e1" -gt 400 ] && [ -n "${md:-}" ] && [ "$m1" -gt "$m0" ] &&
			[ "$(grep -c '^select: ' ui.log)" = "$sel" ]
		res $? "shift+drag measures a range, drawn over the whole height" "edges $e0 -> $e1, $(grep '^measure' ui.log | tail -1)"
		# its summary over the inspector: the numbers `weft stats --from
		# --to` gives for the same range, line by line; a click on a group's
		# line highlights that group's threads
		logged ui.log '^sum [0-9]+ at ' 3
		read -r s0 s1 < <(sed -n 's/^summary: \(-*[0-9]*\) \(-*[0-9]*\), [0-9]* lines$/\1 \2/p' ui.log | tail -1)
		"$W" stats --json --from "${s0:-x}ns" --to "${s1:-x}ns" bad.weft >sum.json 2>&1
		why=$(python3 - <<'PY' 2>&1
import json, re
s = json.load(open('sum.json'))
said = {}
for l in open('ui.log'):
    m = re.match(r'sum (\d+) at \d+ \d+ \d+ \d+: (.*)', l.rstrip('\n'))
    if m:
        said[int(m.group(1))] = m.group(2)
want = {0: ': %d async threads, %d began, %d ended, %d failed' % (s['threads'], s['began'], s['ended'], s['failed'])}
assert said.get(0, '').endswith(want[0]), (said.get(0), want[0])
for i, g in enumerate(s['groups']):
    w = '%s%s: %d in range, %d began, %d ended, %d failed' % (g['kind'] or '(no kind)', ' ' + g['label'] if g['label'] else '', g['threads'], g['began'], g['ended'], g['failed'])
    assert said.get(i + 1, '').startswith(w), (i + 1, said.get(i + 1), w)
nl = 0  # the labels listed: those several threads share, 20 at most
while nl < min(20, len(s['labels'])) and s['labels'][nl]['threads'] > 1:
    nl += 1
for i, g in enumerate(s['labels'][:nl]):
    w = 'label %s: %d in range' % (g['label'], g['threads'])
    assert said.get(1 + len(s['groups']) + i, '').startswith(w), (i, said, w)
assert len(said) == 1 + len(s['groups']) + nl + len(s['processes']) + 1, (len(said), s)
assert said[len(said) - 1].startswith('arrows: '), said
print(s['groups'][0]['threads'])
PY
)
		[ "$?" = 0 ]
		res $? "the measured range's summary says what weft stats --from --to says" "${why##*$'\n'}"
		# (an empty number would end the session: never one)
		read -r _ _ _ x y w h _ < <(grep "^sum 1 at" ui.log | tail -1)
		h=${h%:}
		"$XD" click $((${x:-0} + ${w:-0} / 2)) $((${y:-0} + ${h:-0} / 2))
		logged ui.log '^summary pick 1: '
		grep -q "^summary pick 1: ${why##*$'\n'} threads highlighted$" ui.log
		res $? "a click on a group's line of the summary highlights its threads" "want ${why##*$'\n'}: $(grep '^summary pick' ui.log)"
		"$XD" key z
		sleep 0.4
		grep '^range: ' ui.log | tail -1 | grep -q "^range: ${m0:-x} ${m1:-x},"
		res $? "Z zooms to the measured range" "measured ${m0:-} ${m1:-}, $(grep '^range' ui.log | tail -1)"
		"$XD" key Escape
		sleep 0.5
		"$XD" shot m2.png
		e2=$("$PC" m2.png 38 77 204)
		[ "$e2" = 0 ]
		res $? "Esc clears the measure" "edges $e2"
		# PNG asks where (the trace's name suggested, beside it), says where
		# it went; asked again, it never replaces the file unasked
		read -r _ _ _ x y w h < <(grep "^button PNG at" ui.log)
		"$XD" click $((x + w / 2)) $((y + h / 2))
		"$XD" wait "Save the picture as png" 10
		sleep 0.8
		"$XD" key Return
		sleep 1
		grep -qx "saved $PWD/bad.png" ui.log && [ "$(head -c 4 bad.png | tail -c 3)" = PNG ]
		res $? "PNG asks where, saves there and says so" "$(grep -E '^(saved|save|cannot)' ui.log)"
		before=$(stat -c %y bad.png 2>/dev/null)
		"$XD" click $((x + w / 2)) $((y + h / 2))
		"$XD" wait "Save the picture as png" 10
		sleep 0.8
		"$XD" key Return
		sleep 0.8
		"$XD" shot ow.png
		"$XD" key Escape
		sleep 0.5
		"$XD" key Escape
		sleep 0.8
		[ "$(stat -c %y bad.png)" = "$before" ] && [ "$(grep -c '^saved ' ui.log)" = 1 ] && grep -q "^save: cancelled$" ui.log
		res $? "saving over a file asks first; cancelled, the file stays" "$(grep -E '^(saved|save|cannot)' ui.log | tr '\n' ' ')"
		kill $vp 2>/dev/null
		wait $vp 2>/dev/null
		grep -q "^theme: light$" ui.log
		res $? "a light desktop gets a light picture" "$(grep '^theme' ui.log)"
	fi
	if part "a dark desktop gets a dark picture; T switches to light and back"; then
		# A dark desktop (GTK_THEME=Adwaita:dark): the picture is dark from
		# the start (its background 0.1 grey, none of the light 0.9); T
		# switches to light and back
		GTK_THEME=Adwaita:dark WEFT_VIEW_ECHO=1 "$W" view bad.weft 2>ui9.log &
		vp=$!
		"$XD" wait "bad.weft - weft" 20
		logged ui9.log "^button counters at"
		sleep 0.5
		"$XD" shot k1.png
		"$XD" move 600 400
		sleep 0.3
		"$XD" key t
		logged ui9.log "^theme: light$"
		sleep 0.5
		"$XD" shot k2.png
		"$XD" key t
		logged ui9.log "^theme: dark$" 2
		sleep 0.5
		"$XD" shot k3.png
		d1=$("$PC" k1.png 26 26 26) l1=$("$PC" k1.png 230 230 230)
		d2=$("$PC" k2.png 26 26 26) l2=$("$PC" k2.png 230 230 230)
		d3=$("$PC" k3.png 26 26 26)
		[ "$(grep -m1 '^theme: ' ui9.log)" = "theme: dark" ] && [ "$d1" -gt 100000 ] && [ "$l1" -lt 5000 ] &&
			[ "$l2" -gt 100000 ] && [ "$d2" -lt 5000 ] && [ "$d3" -gt 100000 ]
		res $? "a dark desktop gets a dark picture; T switches to light and back" "dark $d1 light $l1, after T dark $d2 light $l2, again dark $d3: $(grep '^theme' ui9.log | tr '\n' ' ')"
		kill $vp 2>/dev/null
		wait $vp 2>/dev/null
	fi
	# --view STATE: the window opens on the view (V says it back), and
	# its picture is weft render --view's at the same size, pixel for
	# pixel
	S="r=2000,32000&m=5000,9000&q=tcp%20connect"
	if part "--view: the window's picture is weft render --view's"; then
		WEFT_VIEW_SCREENSHOT=vs.png "$W" view --view "$S" bad.weft 2>/dev/null
		read -r sw sh < <("$PC" vs.png)
		"$W" render bad.weft --view "$S" --width "$sw" --height "$sh" -o vr.png 2>/dev/null
		dv=$("$PC" vs.png vr.png)
		[ -n "$sw" ] && [ "$sw" -gt 300 ] && [ "$dv" = 0 ]
		res $? "--view: the window's picture is weft render --view's" "size $sw x $sh, $dv pixels differ"
	fi
	if part \
		"V says the view's state" \
		"B drops a bookmark with a note, kept in the state; ] goes to it"; then
		WEFT_VIEW_ECHO=1 "$W" view --view "$S" bad.weft 2>ui10.log &
		vp=$!
		"$XD" wait "bad.weft - weft" 20
		logged ui10.log "^button counters at"
		"$XD" move 600 400
		sleep 0.3
		"$XD" key v
		logged ui10.log "^view: "
		grep -qxF "view: $S" ui10.log
		res $? "V says the view's state" "$(grep '^view' ui10.log)"
		# B: a bookmark at the pointer, its note asked for ("ok"); listed
		# in the state; ] goes to it; Escape in the dialog drops none
		"$XD" move 500 400
		sleep 0.3
		"$XD" key b
		"$XD" wait "Bookmark - weft" 10
		sleep 0.5
		"$XD" key o
		"$XD" key k
		"$XD" key Return
		logged ui10.log "^bookmark: 1 at "
		"$XD" move 600 400
		sleep 0.3
		"$XD" key b
		"$XD" wait "Bookmark - weft" 10
		sleep 0.5
		"$XD" key Escape
		logged ui10.log "^bookmark: cancelled"
		"$XD" key bracketright
		logged ui10.log "^bookmark: go 1"
		"$XD" key v
		logged ui10.log "^view: " 2
		bt=$(grep -m1 "^bookmark: 1 at " ui10.log | sed 's/^bookmark: 1 at \([0-9]*\): ok$/\1/')
		[ -n "$bt" ] && grep -q "^bookmark: 1 at $bt: ok$" ui10.log && grep -q "^view: .*&b=$bt:ok$" ui10.log &&
			grep -q "^bookmark: cancelled$" ui10.log && grep -q "^bookmark: go 1$" ui10.log
		res $? "B drops a bookmark with a note, kept in the state; ] goes to it" "$(grep -E '^(bookmark|view)' ui10.log | tr '\n' ' ')"
		kill $vp 2>/dev/null
		wait $vp 2>/dev/null
	fi
	if part "--view with a bad state says so"; then
		"$W" view --view "r=1" bad.weft 2>err10; e=$?
		[ $e = 2 ] && grep -q "bad view state at 'r'" err10
		res $? "--view with a bad state says so" "exit $e: $(cat err10)"
	fi
	if part \
		"the counters menu hides a counter" \
		"search matches notes, says how many; n and N go through the matches"; then
		# the counters menu: one check per counter
		WEFT_VIEW_ECHO=1 WEFT_VIEW_SEARCH="working hard" "$W" view all.weft 2>ui2.log &
		vp=$!
		"$XD" wait "all.weft - weft" 20
		logged ui2.log "^button counters at"
		sleep 1
		read -r _ _ _ x y w h < <(grep "^button counters at" ui2.log)
		"$XD" click $((x + w / 2)) $((y + h / 2))
		logged ui2.log "^check busy-workers at"
		sleep 0.8
		"$XD" shot c1.png
		read -r _ _ _ x y w h < <(grep "^check busy-workers at" ui2.log)
		"$XD" click $((x + 8)) $((y + h / 2))
		logged ui2.log "^counter busy-workers: off$"
		sleep 0.5
		"$XD" shot c2.png
		a=$("$PC" c1.png 255 102 102) b=$("$PC" c2.png 255 102 102)
		grep -q "^counter busy-workers: off$" ui2.log && [ "$a" -gt 500 ] && [ "$b" -lt $((a / 4)) ]
		res $? "the counters menu hides a counter" "plot $a -> $b: $(tail -3 ui2.log)"
		# the search matches notes ("working hard": two workers'), with its
		# count; n, N go to the next and previous match (Esc closes the
		# counters menu, still open)
		"$XD" key Escape
		sleep 0.3
		logged ui2.log "^search: "
		"$XD" key n
		logged ui2.log "^match: " 1
		"$XD" key n
		logged ui2.log "^match: " 2
		"$XD" key N
		logged ui2.log "^match: " 3
		m=$(grep "^match: " ui2.log | cut -d, -f1 | tr '\n' '|')
		IFS='|' read -r m1 m2 m3 <<<"$m"
		grep -q "^search: 2 matches$" ui2.log && [ -n "$m1" ] && [ "$m1" != "$m2" ] && [ "$m3" = "$m1" ]
		res $? "search matches notes, says how many; n and N go through the matches" "$(grep -E '^(search|match)' ui2.log | tr '\n' ' ')"
		kill $vp 2>/dev/null
		wait $vp 2>/dev/null
	fi
	if part \
		"the inspector lists every entry; a click on one goes to its thread; the canvas keeps its width" \
		"the inspector's times never break inside a number"; then
		# The inspector lists every entry of the thread (busy: 35 creations,
		# 11 labels, a note as long as a paragraph); a click on one that names
		# a thread goes there; whatever it shows, the canvas keeps its width
		WEFT_VIEW_ECHO=1 WEFT_VIEW_SEARCH="busy 10" "$W" view ins.weft 2>ui5.log &
		vp=$!
		"$XD" wait "ins.weft - weft" 20
		sleep 1
		"$XD" move 300 300
		"$XD" key n
		sleep 1
		"$XD" shot i1.png
		read -r _ _ _ x y w h < <(grep "^entry " ui5.log | head -1 | cut -d: -f1)
		to=$(grep "^entry " ui5.log | head -1 | cut -d: -f2- | sed 's/^ //')
		"$XD" click $((x + 40)) $((y + h / 2))
		sleep 1
		"$XD" shot i2.png
		cw=$(sed -n 's/^canvas: \([0-9]*\) .*/\1/p' ui5.log | sort -u | tr '\n' ' ')
		grep -qx "inspect: busy 10, 47 entries" ui5.log && [ "$to" = "job 0x64" ] &&
			grep -qx "go: job 0x64" ui5.log && grep -qx "inspect: job 0x64, 1 entries" ui5.log &&
			[ "$(echo $cw | wc -w)" = 1 ] && ! cmp -s i1.png i2.png
		res $? "the inspector lists every entry; a click on one goes to its thread; the canvas keeps its width" \
			"canvas widths '$cw', entry '$to': $(grep -E '^(inspect|go|canvas|match)' ui5.log | tr '\n' ' ')"
		# every time the inspector shows ("0.000 022 041 s", "25.9 us") is
		# written with no-break spaces: a wrapped line never cuts a number's
		# groups or its unit (as the web viewer's nowrap spans)
		it=$(grep "^inspector times: " ui5.log | head -1)
		n=$(echo "$it" | sed -n 's/^inspector times: \([0-9]*\),.*/\1/p')
		[ "${n:-0}" -ge 3 ] && [ "$it" = "inspector times: $n, 0 breakable, 0 cut; entries: 47, 0 breakable" ]
		res $? "the inspector's times never break inside a number" "$it"
		kill $vp 2>/dev/null
		wait $vp 2>/dev/null
	fi
	if part "smooth scroll, twenty 0.1 deltas zoom by 1.25^2; a touch drag pans by its distance; a pinch 100 -> 200 px zooms 2x around its middle"; then
		# What XTest cannot send -- a trackpad's smooth scroll deltas, a
		# touch screen -- replayed through the real handlers
		# (WEFT_VIEW_EVENTS): twenty deltas of 0.1 zoom by 1.25^2 (not
		# 1.25^20 = 87x) around the pointer; a finger dragged 100 px left pans
		# by 100 px of time; two fingers from 100 to 200 px apart, around x =
		# 500, zoom 2x there
		{
			echo "say start"
			for _ in $(seq 20); do echo "scroll 300 200 0 -0.1"; done
			echo "say scrolled"
			echo "touch begin 1 500 300"
			for x in 480 460 440 420 400; do echo "touch update 1 $x 300"; done
			echo "touch end 1 400 300"
			echo "say dragged"
			echo "touch begin 1 450 300"
			echo "touch begin 2 550 300"
			for d in 10 20 30 40 50; do
				echo "touch update 1 $((450 - d)) 300"
				echo "touch update 2 $((550 + d)) 300"
			done
			echo "touch end 1 400 300"
			echo "touch end 2 600 300"
			echo "say pinched"
		} >touch.ev
		WEFT_VIEW_ECHO=1 WEFT_VIEW_EVENTS=touch.ev "$W" view bad.weft 2>ui6.log &
		vp=$!
		"$XD" wait "bad.weft - weft" 20
		for _ in $(seq 40); do grep -q "^events: done" ui6.log && break; sleep 0.25; done
		kill $vp 2>/dev/null
		wait $vp 2>/dev/null
		cw=$(sed -n 's/^canvas: \([0-9]*\) .*/\1/p' ui6.log | tail -1)
		rg() { sed -n "s/^say $1: range \([-0-9]*\) \([-0-9]*\),.*/\1 \2/p" ui6.log; }
		why=$(python3 -c "
import sys
w = float(sys.argv[1]) - 16  # the plot's width (LEFT on each side)
a0, b0, a1, b1, a2, b2, a3, b3 = map(float, sys.argv[2:])
s0, s1, s2, s3 = b0 - a0, b1 - a1, b2 - a2, b3 - a3
at = lambda a, s, x: a + (x - 8) / w * s  # the time at pixel x
assert abs(s0 / s1 - 1.25 ** 2) < 1e-3, ('scroll', s0 / s1)
assert abs(at(a0, s0, 300) - at(a1, s1, 300)) < 1e-4 * s0 + 25, 'scroll: not around the pointer'
assert abs(s2 - s1) <= 2 and abs((a2 - a1) - 100 / w * s1) < 1e-4 * s1 + 5, ('drag', a2 - a1, 100 / w * s1)
assert abs(s2 / s3 - 2) < 1e-3, ('pinch', s2 / s3)
assert abs(at(a2, s2, 500) - at(a3, s3, 500)) < 1e-4 * s2 + 25, ('pinch: not around its middle', at(a2, s2, 500), at(a3, s3, 500))
" "${cw:-0}" $(rg start) $(rg scrolled) $(rg dragged) $(rg pinched) 2>&1)
		rc=$?
		res $rc "smooth scroll, twenty 0.1 deltas zoom by 1.25^2; a touch drag pans by its distance; a pinch 100 -> 200 px zooms 2x around its middle" \
			"${why##*$'\n'}; canvas ${cw:-}: $(grep '^say' ui6.log | tr '\n' ' ')"
	fi
	# follow NAME TITLE MIN TRACE...: a viewer of the traces the tickers
	# $tickers write, searching for "done" (the label of the thread a
	# ticker creates last): no yellow while the last ticker runs, more
	# than MIN pixels of it in the same window once they all ended.  Says
	# what it saw in $why.
	follow() {
		local name=$1 title=$2 min=$3 y1 y2=0 alive vp
		shift 3
		WEFT_VIEW_SEARCH=done "$W" view "$@" 2>"$name.log" &
		vp=$!
		"$XD" wait "$title" 20
		sleep 0.6
		"$XD" shot "${name}1.png"
		kill -0 "${tickers[-1]}" 2>/dev/null
		alive=$?
		y1=$("$PC" "${name}1.png" 255 255 0)
		wait "${tickers[@]}"
		for _ in $(seq 20); do
			sleep 0.5
			"$XD" shot "${name}2.png"
			y2=$("$PC" "${name}2.png" 255 255 0)
			[ "$y2" -gt "$min" ] && break
		done
		kill $vp 2>/dev/null
		wait $vp 2>/dev/null
		why="ticker alive at the first look: $([ $alive = 0 ] && echo yes || echo no), yellow $y1 -> $y2: $(cat "$name.log")"
		[ $alive = 0 ] && [ "$y1" = 0 ] && [ "$y2" -gt "$min" ]
	}
	if part "follows a live trace: the thread written last appears in the same window"; then
		# Following a trace still being written: one viewer, opened while
		# the ticker runs.
		WEFT_FILE=live.weft "$WEFT_BUILD/examples/ticker" 6 >/dev/null &
		tickers=($!)
		sleep 0.3
		follow f "live.weft - weft" 20 live.weft
		res $? "follows a live trace: the thread written last appears in the same window" "$why"
	fi
	if part "follows two live traces in one window"; then
		# Several traces followed together: two tickers, each its own ring,
		# one viewer of both (not a copy made at the start).
		WEFT_FILE=live1.weft "$WEFT_BUILD/examples/ticker" 4 >/dev/null &
		tickers=($!)
		WEFT_FILE=live2.weft "$WEFT_BUILD/examples/ticker" 5 >/dev/null &
		tickers+=($!)
		sleep 0.3
		follow g "live1.weft (and 1 more) - weft" 40 live1.weft live2.weft
		res $? "follows two live traces in one window" "$why"
	fi
	if part "a run: a header per process; a click on one collapses its rows, another opens them"; then
		# A run of two processes (uv-echo-split: a server and the client it
		# spawns): a header each; a click on the client's collapses its rows
		# (the band stays), another opens them again
		if [ -d sp ]; then
			WEFT_VIEW_ECHO=1 "$W" view sp 2>ui4.log &
			vp=$!
			"$XD" wait "sp - weft" 20
			sleep 1
			"$XD" shot p1.png
			hb=$("$PC" p1.png 204 214 237)
			nh=$(grep -c "^header [0-9]* at " ui4.log)
			read -r _ pid _ x y < <(grep "^header [0-9]* at " ui4.log | tail -1)
			"$XD" click "$x" "$y"
			sleep 0.6
			"$XD" shot p2.png
			sleep 0.6
			"$XD" click "$x" "$y"
			sleep 0.6
			n1=$(sed -n "s/^process: .* (pid $pid) collapsed, \([0-9]*\) rows$/\1/p" ui4.log)
			n2=$(sed -n "s/^process: .* (pid $pid) expanded, \([0-9]*\) rows$/\1/p" ui4.log)
			[ "$nh" = 2 ] && [ "$hb" -gt 2000 ] && [ -n "$n1" ] && [ -n "$n2" ] && [ "$n1" -lt "$n2" ]
			res $? "a run: a header per process; a click on one collapses its rows, another opens them" \
				"headers $nh, band $hb px, rows $n1 -> $n2: $(tail -4 ui4.log)"
			kill $vp 2>/dev/null
			wait $vp 2>/dev/null
		fi
	fi
	if part \
		"two runs: compared in one window, the first divergence marked in both" \
		"two runs: a click selects the thread and its partner in the other run" \
		"two runs: L lines them up at the selected thread"; then
		# Two runs to compare: the ARP example's good and bad runs in one
		# picture, the first divergence said and marked (magenta) in both
		# halves; a click on main's red line in the bad half selects it and
		# its partner in the good half (orange outlines in both)
		WEFT_VIEW_ECHO=1 "$W" view good.weft bad.weft 2>ui5.log &
		vp=$!
		"$XD" wait "good.weft and bad.weft - weft" 20
		# (drawn once it said what it compares: a loaded machine is slow)
		for _ in $(seq 100); do grep -q "^compare: " ui5.log && break; sleep 0.1; done
		sleep 1
		"$XD" shot c1.png
		mg=$("$PC" c1.png 204 0 204)
		grep -qx "weft: comparing good.weft with bad.weft: two runs of arp (--merge reads them as one run)" ui5.log &&
			grep -Eqx "compare: good.weft bad.weft, first divergence at [0-9]+(\.[0-9]{1,3}( [0-9]{1,3})*)? [num]?s and [0-9]+(\.[0-9]{1,3}( [0-9]{1,3})*)? [num]?s: a wait on ARP response \(condition\) and a wake-up of it came in opposite orders" ui5.log &&
			[ "$mg" -gt 400 ]
		res $? "two runs: compared in one window, the first divergence marked in both" "magenta $mg: $(head -3 ui5.log)"
		xy=$("$XD" find 204 0 0)
		set -- $xy
		"$XD" click "$1" "$2"
		for _ in $(seq 50); do grep -q "^select: " ui5.log && break; sleep 0.1; done
		sleep 0.6
		"$XD" shot c2.png
		og=$("$PC" c2.png 255 115 0 0 $(($2 - 150))) ob=$("$PC" c2.png 255 115 0 $(($2 - 20)) $(($2 + 20)))
		grep -qx "select: main (partner: main)" ui5.log && grep -q "^inspect: main, " ui5.log &&
			[ "$og" -gt 20 ] && [ "$ob" -gt 20 ]
		res $? "two runs: a click selects the thread and its partner in the other run" \
			"at $xy, outlines good $og bad $ob: $(grep -E '^(select|inspect)' ui5.log)"
		# L lines the runs up at the selected thread: the picture moves
		"$XD" key l
		sleep 0.5
		"$XD" shot c3.png
		grep -qx "align: main" ui5.log && ! cmp -s c2.png c3.png
		res $? "two runs: L lines them up at the selected thread" "$(grep '^align' ui5.log)"
		kill $vp 2>/dev/null
		wait $vp 2>/dev/null
	fi
	if part \
		"slowest: one click lists the slowest requests and highlights them" \
		"a click on a result row goes to its thread" \
		"the colon key opens the bar, SQL typed there lists its rows and highlights their threads, Esc closes it" \
		"a wrong statement is said with its position"; then
		# The query bar (issue 34): "slowest" lists the slowest requests in
		# one click (as weft query lists them) and highlights their threads
		# in yellow, as search matches; a click on a row goes to its thread;
		# the colon key opens the bar for SQL typed in it; a wrong statement
		# is said with its position; Esc closes the bar
		typ() {
			local s=$1 i c k
			for ((i = 0; i < ${#s}; i++)); do
				c=${s:i:1}
				case $c in
				" ") k=space ;; "'") k=apostrophe ;; "=") k=equal ;;
				",") k=comma ;; "_") k=underscore ;; "*") k=asterisk ;;
				*) k=$c ;;
				esac
				"$XD" key "$k"
			done
		}
		# qrow K: "X Y W H" of the query bar's row K, as the viewer says it
		qrow() { sed -n "s/^qrow $1 at \([0-9]*\) \([0-9]*\) \([0-9]*\) \([0-9]*\):.*/\1 \2 \3 \4/p" ui8.log | tail -1; }
		want=$("$W" query --tsv bad.weft "SELECT title FROM slowest_requests LIMIT 100" | tail -n +2)
		nwant=$(printf '%s\n' "$want" | grep -c .)
		WEFT_VIEW_ECHO=1 "$W" view bad.weft 2>ui8.log &
		vp=$!
		"$XD" wait "bad.weft - weft" 20
		logged ui8.log "^button slowest at "
		read -r bx by bw bh < <(sed -n 's/^button slowest at \([0-9]*\) \([0-9]*\) \([0-9]*\) \([0-9]*\)$/\1 \2 \3 \4/p' ui8.log | head -1)
		"$XD" move 600 500
		sleep 0.3
		"$XD" shot q0.png
		"$XD" click $((${bx:-0} + ${bw:-0} / 2)) $((${by:-0} + ${bh:-0} / 2))
		logged ui8.log "^qrow 0 at "
		"$XD" move 600 500
		sleep 0.5
		"$XD" shot q1.png
		y0=$("$PC" q0.png 255 255 0) y1=$("$PC" q1.png 255 255 0)
		[ "$nwant" -ge 3 ] && grep -qx "query: $nwant rows, $nwant threads highlighted" ui8.log &&
			[ "$y0" -lt 5 ] && [ "$y1" -gt 100 ]
		res $? "slowest: one click lists the slowest requests and highlights them" \
			"want $nwant, yellow $y0 -> $y1: $(grep '^query' ui8.log | tr '\n' ' ')"
		# the third row: its thread is the third slowest
		third=$(printf '%s\n' "$want" | sed -n 3p)
		read -r rx ry rw rh < <(qrow 2)
		"$XD" click $((${rx:-0} + 40)) $((${ry:-0} + ${rh:-0} / 2))
		logged ui8.log "^go: "
		grep -qx "go: $third" ui8.log && grep -q "^inspect: $third, " ui8.log
		res $? "a click on a result row goes to its thread" "want go: $third, $(grep -E '^(go|qrow)' ui8.log | tr '\n' ' ')"
		# Esc closes the bar; the colon key opens it, SQL typed, Enter
		pend=$("$W" query --tsv bad.weft "SELECT count(*) FROM requests WHERE latency IS NULL" | sed -n 2p)
		"$XD" key Escape
		logged ui8.log "^query bar. closed"
		"$XD" move 600 500
		"$XD" key colon
		logged ui8.log "^query bar. open" 2
		typ "select thread, title from requests where latency is null"
		"$XD" key Return
		logged ui8.log "^query. $pend rows"
		grep -qx "query: $pend rows, $pend threads highlighted" ui8.log && [ "$pend" -ge 3 ] &&
			grep -qx "query bar: closed" ui8.log
		res $? "the colon key opens the bar, SQL typed there lists its rows and highlights their threads, Esc closes it" \
			"want $pend, $(grep '^query' ui8.log | tail -3 | tr '\n' ' ')"
		"$XD" key Escape
		logged ui8.log "^query bar. closed" 2
		"$XD" key colon
		logged ui8.log "^query bar. open" 3
		typ "select nope from threads"
		"$XD" key Return
		logged ui8.log "^query. SQL error"
		grep -qx "query: SQL error at character 8: no such column: nope" ui8.log
		res $? "a wrong statement is said with its position" "$(grep '^query' ui8.log | tail -1)"
		kill $vp 2>/dev/null
		wait $vp 2>/dev/null
	fi
	if part "a resized window zoomed notch by notch on a big trace keeps drawing"; then
		# A window resized, then zoomed notch by notch on a server-shaped
		# trace whose squeezed rows are drawn from their bitmaps (it crashed
		# after a notch or two once resized to 1280x800)
		if [ -s srv.weft ]; then
			WEFT_VIEW_ECHO=1 "$W" view srv.weft 2>ui7.log &
			vp=$!
			"$XD" wait "srv.weft - weft" 30
			logged ui7.log "^canvas: "
			"$XD" resize "srv.weft - weft" 1280 800
			logged ui7.log "^canvas: " 2
			"$XD" move 640 400
			z=0
			for _ in $(seq 25); do
				"$XD" button 4 1
				sleep 0.15
				kill -0 $vp 2>/dev/null || break
				z=$((z + 1))
			done
			logged ui7.log "^range: " 5
			sleep 0.5
			kill -0 $vp 2>/dev/null
			alive=$?
			nc=$(grep -c "^canvas: " ui7.log) nr=$(grep -c "^range: " ui7.log)
			[ $alive = 0 ] && [ $z = 25 ] && [ "$nc" -ge 2 ] && [ "$nr" -ge 5 ]
			res $? "a resized window zoomed notch by notch on a big trace keeps drawing" \
				"alive $alive after $z notches, canvases $nc, ranges $nr: $(tail -3 ui7.log)"
			kill $vp 2>/dev/null
			wait $vp 2>/dev/null
		fi
	fi
	echo DONE
	exit 0
fi
# GTK and fontconfig keep memory until exit by design: under the
# sanitizer build, do not report their leaks.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
EX=$WEFT_BUILD/examples
PC=$WEFT_BUILD/tests/render/pixcount
T=$(mktemp -d "${TMPDIR:-/tmp}/weft-gtk.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
ONLY=("$@")
n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; echo "# $2"; }
shot() { # out trace [env...]
	local out=$1 trace=$2; shift 2
	env "$@" WEFT_VIEW_SCREENSHOT="$out" timeout 60 xvfb-run -a -s "-screen 0 1400x900x24" "$W" view "$trace" >/dev/null 2>&1
}

WEFT_FILE=bad.weft "$EX/arp" bad >/dev/null
WEFT_FILE=good.weft "$EX/arp" good >/dev/null
WEFT_FILE=all.weft "$EX/all-events" >/dev/null
"$WEFT_BUILD/bench/server-gen" -n 300000 -c 100 -o srv.weft >/dev/null
# a thread with 35 arrows, 11 labels and a long note (the inspector)
cat >ins.c <<'EOF'
#include <weft/weft.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	char b[400];
	weft_run(1);
	for (int i = 0; i < 35; i++)
		weft_create(100 + i, "job");
	for (int i = 0; i < 11; i++) {
		snprintf(b, sizeof b, "busy %d", i);
		weft_label(1, b);
	}
	memset(b, 'x', 300);
	b[300] = 0;
	weft_note(1, b);
	weft_run(0);
	return 0;
}
EOF
# shellcheck disable=SC2086
cc -DWEFT_ENABLE -I"$WEFT_SRC/include" ins.c -L"$WEFT_BUILD" -lweft \
	-Wl,-rpath,"$WEFT_BUILD" -o ins ${WEFT_TEST_CFLAGS:-} && WEFT_FILE=ins.weft ./ins
[ -x "$EX/uv-echo-split" ] &&
	ASAN_OPTIONS="$ASAN_OPTIONS:verify_asan_link_order=0" \
		"$W" record -o sp -- "$EX/uv-echo-split" >/dev/null 2>&1
C_PLAIN="window draws green, blue, orange arrows and the red never-resolved line"
C_HIDPI="high DPI: drawn at the window's scale factor"
if picked "$C_PLAIN" || picked "$C_HIDPI"; then
	shot plain.png bad.weft
fi
if ! picked "$C_PLAIN"; then
	: # (not asked for)
elif [ -s plain.png ]; then
	g=$("$PC" plain.png 0 128 0) b=$("$PC" plain.png 0 0 255) o=$("$PC" plain.png 255 153 0) r=$("$PC" plain.png 204 0 0)
	y=$("$PC" plain.png 255 255 0)
	if [ "$g" -gt 5 ] && [ "$b" -gt 5 ] && [ "$o" -gt 5 ] && [ "$r" -gt 100 ] && [ "$y" = 0 ]; then
		ok "$C_PLAIN"
	else nok "arrow colours" "green $g blue $b orange $o red $r yellow $y"; fi
else nok "window draws" "no screenshot"; fi

# High DPI (GDK_SCALE=2): the picture saved has the screen's pixels, twice
# the window's logical size each way, the same picture drawn sharp
if picked "$C_HIDPI"; then
	shot hidpi.png bad.weft GDK_SCALE=2
	dims() { python3 -c "import struct,sys; d=open(sys.argv[1],'rb').read(24); print(*struct.unpack('>II', d[16:24]))" "$1"; }
	read -r w1 h1 < <(dims plain.png)
	read -r w2 h2 < <(dims hidpi.png 2>/dev/null || echo 0 0)
	r1=$("$PC" plain.png 204 0 0) r2=$("$PC" hidpi.png 204 0 0)
	if [ "$w2" = $((2 * w1)) ] && [ "$h2" = $((2 * h1)) ] && [ "$r2" -gt $((2 * r1)) ] && [ "$r2" -lt $((5 * r1)) ]; then
		ok "$C_HIDPI"
	else nok "high DPI" "${w1}x$h1 -> ${w2}x$h2, red $r1 -> $r2"; fi
fi

if picked "search highlights in yellow"; then
	shot search.png bad.weft WEFT_VIEW_SEARCH="tcp connect"
	y=$("$PC" search.png 255 255 0)
	if [ "${y:-0}" -gt 200 ]; then ok "search highlights in yellow"; else nok "search" "yellow $y"; fi
fi

# two runs: the search highlights in both halves (the picture saved is
# the pair's: its halves are its two halves)
if picked "two runs: the search highlights in both"; then
	env WEFT_VIEW_SEARCH="tcp connect" WEFT_VIEW_SCREENSHOT=cs.png timeout 60 \
		xvfb-run -a -s "-screen 0 1400x900x24" "$W" view good.weft bad.weft >/dev/null 2>&1
	read -r _ ch < <("$PC" cs.png 2>/dev/null || echo 0 0)
	y0=$("$PC" cs.png 255 255 0 0 $((ch / 2))) y1=$("$PC" cs.png 255 255 0 $((ch / 2)) "$ch")
	if [ "${y0:-0}" -gt 100 ] && [ "${y1:-0}" -gt 100 ]; then ok "two runs: the search highlights in both"
	else nok "two runs: search" "yellow $y0 and $y1 in ${ch}px"; fi
fi

if [ -x "$XD" ]; then
	xvfb-run -a -s "-screen 0 1400x900x24" "$0" --session "$T" "${ONLY[@]}" >session.log 2>&1
	while read -r verdict rest; do
		case $verdict in
		PASS) ok "$rest" ;;
		FAIL) nok "${rest%%:*}" "${rest#*: }" ;;
		esac
	done <session.log
	# (it got to its end; and, every case asked for, said some)
	grep -qx DONE session.log && { [ ${#ONLY[@]} != 0 ] || grep -q PASS session.log; } ||
		nok "interactive session" "$(head -5 session.log)"
fi

if picked usage; then
	"$W" view 2>/dev/null; [ $? = 2 ] && ok "usage" || nok "usage" "exit not 2"
fi
# words that name no case: said (a mutant named so would never be killed)
[ $n = 0 ] && nok "cases named by '${ONLY[*]}'" "no case's name holds one of these words"
echo "1..$n"
echo "# $((n - fails)) passed, $fails failed, 0 skipped"
[ $fails = 0 ]
