#!/bin/bash
# SPDX-License-Identifier: MIT
# test-usage.sh - a CLI that explains itself: every command's --help (and
# `weft help CMD`) from the same table its parser reads, the nearest
# command or option to a mistyped one, the man page (renders without
# warnings; every command of every build, every option, every variable),
# errors that name the option and the value, times in the ruler's units,
# threads named by label (ambiguous: the candidates), weft record's
# closing lines, `weft why --path --json`, and progress on a terminal
# only.  TAP output.
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
W=$WEFT_BIN
EX=$WEFT_BUILD/examples
. "$WEFT_SRC/tests/tap.sh"
tap_init usage "$@"
TAP_TIMEOUT=600
# fontconfig's memory, kept until exit by design, is not a leak of ours
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$WEFT_SRC/tests/render/lsan.supp"
unset WEFT_FILE WEFT_RUN WEFT_SIZE WEFT_MODE WEFT_CLOCK

# The commands of every build (the table in weft-tools.h), and of this one.
all_cmds() {
	sed -n 's/^[[:space:]]*X(\([a-z]*\), ".*/\1/p' "$WEFT_SRC/tools/weft-tools.h"
}
built_cmds() {
	"$W" --help | sed -n 's/^  \([a-z]*\)  .*/\1/p'
}
# The options a command's help lists ("  -f, --follow", "  --width W").
help_opts() {
	"$W" "$1" --help | sed -n '/^options:/,/^$/p' |
		grep -oE '^  (-[a-zA-Z], )?--?[a-z][a-z-]*' | grep -oE -- '--?[a-z][a-z-]*$'
	"$W" "$1" --help | sed -n '/^options:/,/^$/p' |
		grep -oE '^  -[a-zA-Z],' | grep -oE -- '-[a-zA-Z]'
}
# A section of the man page, options unescaped.
man_section() {
	awk -v c="$1" '/^\.SS /{on = ($2 == c)} /^\.SH /{if (on) exit} on' "$WEFT_SRC/docs/weft.1" |
		sed 's/\\-/-/g; s/\\f[BIRP]//g'
}

t_help_each_command() {
	local c cmds
	cmds=$(built_cmds)
	[ "$(echo $cmds | wc -w)" -ge 10 ] || die "weft --help lists too few commands: $cmds"
	for c in $cmds; do
		"$W" "$c" --help >h1 2>e1; [ $? = 0 ] || die "weft $c --help: exit $?: $(cat e1)"
		[ -s e1 ] && die "weft $c --help wrote on stderr: $(cat e1)"
		head -1 h1 | grep -q "^usage: weft $c " || die "weft $c --help: $(head -3 h1)"
		grep -q "^options:" h1 || die "weft $c --help has no options: $(cat h1)"
		grep -qE "^  -h, --help +print this help" h1 || die "weft $c --help: no -h: $(cat h1)"
		# a paragraph on what it does, after the synopsis
		[ "$(awk 'NF == 0 {p++; next} p == 1' h1 | wc -w)" -ge 10 ] || die "weft $c --help: no description: $(cat h1)"
		"$W" help "$c" >h2 2>e2; [ $? = 0 ] || die "weft help $c: exit $?"
		cmp -s h1 h2 || die "weft help $c differs from weft $c --help"
		"$W" "$c" -h >h3 2>/dev/null; cmp -s h1 h3 || die "weft $c -h differs"
		# every option described: a word or more after each name
		awk '/^options:/{on=1; next} on && /^$/{exit}
		     on && /^  -/ { line=$0; sub(/^  [^ ]+( [A-Z|=+-]+)?(, [^ ]+( [A-Z|.=+-]+)?)?/, "", line);
			 if (line !~ /[a-z]/) { getline nxt; if (nxt !~ /[a-z]/) { print "undescribed: " $0; bad=1 } } }
		     END {exit bad}' h1 || die "weft $c --help: $(cat h1)"
		# within 80 columns
		awk 'length > 79 {print; bad=1} END {exit bad}' h1 >long || die "weft $c --help: lines over 79: $(cat long)"
	done
}

t_help_lists_commands() {
	"$W" help >a 2>ea || die "weft help: exit $?"
	"$W" --help >b 2>eb || die "weft --help: exit $?"
	cmp -s a b || die "weft help and weft --help differ"
	[ -s ea ] || [ -s eb ] && die "help on stderr"
	local c
	for c in $(built_cmds); do grep -q "^  $c " a || die "no $c"; done
	grep -q "weft help COMMAND" a || die "the help does not say how to get a command's"
	"$W" >/dev/null 2>e; [ $? = 2 ] || die "weft alone: exit $?"
	grep -q "^usage: weft COMMAND" e || die "weft alone: $(cat e)"
}

t_did_you_mean() {
	local typed want
	while read -r typed want; do
		"$W" "$typed" x.weft >/dev/null 2>e; [ $? = 2 ] || die "weft $typed: exit $?"
		grep -q "'$typed' is not a weft command" e || die "weft $typed: $(cat e)"
		grep -q "did you mean 'weft $want'" e || die "weft $typed: no suggestion of $want: $(cat e)"
	done <<-EOF
		stauts stats
		snpashot snapshot
		dupm dump
		wyh why
		inof info
		exprot export
		recrod record
		dif diff
	EOF
	"$W" help stauts >/dev/null 2>e; [ $? = 2 ] || die "weft help stauts: exit $?"
	grep -q "did you mean 'weft stats'" e || die "weft help stauts: $(cat e)"
	"$W" zzzzzzzz >/dev/null 2>e; [ $? = 2 ] || die "exit $?"
	grep -q "did you mean" e && die "a suggestion for nonsense: $(cat e)"
	# options too
	"$W" dump --folow x.weft >/dev/null 2>e; [ $? = 2 ] || die "dump --folow: exit $?"
	grep -q "weft dump: unknown option '--folow'; did you mean '--follow'?" e || die "$(cat e)"
	"$W" stats --jsno x.weft >/dev/null 2>e
	grep -q "did you mean '--json'" e || die "$(cat e)"
	"$W" why --xyzzy-plugh x.weft >/dev/null 2>e; [ $? = 2 ] || die "exit $?"
	grep -q "unknown option '--xyzzy-plugh'" e || die "$(cat e)"
	grep -q "did you mean" e && die "a suggestion for nonsense: $(cat e)"
	[ "$(wc -l <e)" -le 3 ] || die "too many lines: $(cat e)"
}

t_options_parser_help_man() {
	local c o src opts
	for c in $(built_cmds); do
		opts=$(help_opts "$c" | sort -u)
		[ -n "$opts" ] || die "weft $c --help lists no option"
		# every option spelt in the command's source is in its help:
		# an option parsed outside the table would not be
		src="$WEFT_SRC/tools/cmd-$c.c"
		for o in $(grep -oE '"--?[a-z][a-z-]*[" =]' "$src" | tr -d '"= ' | sort -u); do
			echo "$opts" | grep -qx -- "$o" || die "weft $c: '$o' in $src is not in its --help"
		done
		for o in $opts; do
			# (-h and --help: every command's, in the man page's
			# COMMANDS once)
			case $o in -h|--help) continue ;; esac
			# the parser accepts each (alone: a value missing, or
			# operands, but never an unknown option)
			"$W" "$c" "$o" </dev/null >/dev/null 2>e
			grep -q "unknown option" e && die "weft $c $o: $(cat e)"
			# and the man page documents it, in the command's section
			man_section "$c" | grep -qE -- "(^|[^a-z-])$o([^a-z-]|$)" ||
				die "docs/weft.1: '$o' of weft $c is not in its section"
		done
		# and documents no option the command does not have
		for o in $(man_section "$c" | awk 'tp {print; tp = 0} /^\.T[PQ]/ {tp = 1} /^\.RB \[/' | grep -oE -- '(^|[ [])--?[a-z][a-z-]*' | tr -d ' [' | sort -u); do
			[ "$o" = "--" ] && continue
			echo "$opts" | grep -qx -- "$o" || die "docs/weft.1: $c documents '$o', which it does not take"
		done
	done
}

t_man_page() {
	local M=$WEFT_SRC/docs/weft.1 c v
	# groff's warnings, all of them; and man(1) as a user runs it
	groff -man -ww -z -Tutf8 "$M" 2>w || die "groff failed"
	[ -s w ] && die "groff warns: $(cat w)"
	MANWIDTH=80 man --warnings=w -E UTF-8 -l "$M" >page.txt 2>w || die "man -l failed: $(cat w)"
	[ -s w ] && die "man warns: $(cat w)"
	for s in NAME SYNOPSIS DESCRIPTION COMMANDS RUNS ENVIRONMENT "EXIT STATUS" EXAMPLES "SEE ALSO"; do
		grep -q "^$s" page.txt || die "no section $s"
	done
	# every command of every build, each with its own subsection
	for c in $(all_cmds); do
		grep -q "^\.SS $c$" "$M" || die "docs/weft.1 has no section for $c"
		grep -q "^   $c$" page.txt || die "the rendered page has no $c"
	done
	# view's keys
	for k in W S A D F C Up Down; do
		man_section view | grep -qE "^\.(B|BR) .*\<$k\>" || die "view's key $k is not documented"
	done
	# every environment variable weft or its libraries read
	for v in $(grep -rhoE 'getenv\("WEFT_[A-Z_]+"\)' "$WEFT_SRC/src" "$WEFT_SRC/tools" "$WEFT_SRC/viewer" | grep -oE 'WEFT_[A-Z_]+' | sort -u) WEFT_SIZE WEFT_MODE WEFT_CLOCK; do
		awk '/^\.SH ENVIRONMENT/{on=1; next} /^\.SH /{on=0} on' "$M" | grep -q "$v" ||
			die "docs/weft.1: $v is not in ENVIRONMENT"
	done
	# the exit statuses
	awk '/^\.SH EXIT STATUS/{on=1; next} /^\.SH /{on=0} on' "$M" >es
	for s in 0 1 2 127; do grep -qw "$s" es || die "EXIT STATUS does not say $s"; done
}

t_errors_name_option_and_value() {
	WEFT_FILE=bad.weft "$EX/arp" bad >/dev/null || die "arp"
	# expected-exit, message, command...
	chk() {
		local want=$1 pat=$2; shift 2
		"$@" >/dev/null 2>e; local rc=$?
		[ $rc = "$want" ] || die "'$*': exit $rc, want $want: $(cat e)"
		grep -qF -- "$pat" e || die "'$*': '$(cat e)' lacks '$pat'"
		[ "$(wc -l <e)" -le 3 ] || die "'$*': too many lines: $(cat e)"
	}
	chk 2 "weft stats: --top must be 1..1000000 (not '0')" "$W" stats --top 0 bad.weft
	chk 2 "weft stats: --top must be 1..1000000 (not 'ten')" "$W" stats --top ten bad.weft
	chk 2 "weft stats: --top needs a value (N)" "$W" stats bad.weft --top
	chk 2 "weft stats: --json takes no value" "$W" stats --json=yes bad.weft
	chk 2 "weft diff: --ratio must be" "$W" diff --ratio 0.5 bad.weft bad.weft
	chk 2 "weft diff: --min must be a time such as 2.5ms, 120us, 1.2s or 300ns (not '5 parsecs')" "$W" diff --min "5 parsecs" bad.weft bad.weft
	chk 2 "weft diff: --key must be one of label, raw, kind (not 'colour')" "$W" diff --key colour bad.weft bad.weft
	chk 2 "weft snapshot: --pid must be" "$W" snapshot --pid -3 -o x
	chk 2 "weft record: --mode 'circular': not valid; expected overwrite or discard" "$W" record --mode circular -- true
	chk 2 "weft info: --offset" "$W" info --offset nohost bad.weft
	chk 2 "weft export: --format must be one of chrome, perfetto (not 'svg')" "$W" export --format svg bad.weft -o x.json
	"$W" --help | grep -q "^  render " || exit 0
	chk 2 "weft render: --width must be 16..16384 (not '100000')" "$W" render bad.weft -o x.png --width 100000
	chk 2 "weft render: --height must be 16..16384 (not '3')" "$W" render bad.weft -o x.png --height 3
	chk 2 "weft render: --start must be a time such as 2.5ms, 120us, 1.2s or 300ns (not '5x')" "$W" render bad.weft -o x.png --start 5x
	chk 2 "weft render: --duration must be more than 0 (not '0ms')" "$W" render bad.weft -o x.png --duration 0ms
	chk 2 "weft render: -o must end in .png or .svg (not 'x.jpg')" "$W" render bad.weft -o x.jpg
	chk 2 "weft render: --connected needs --select" "$W" render bad.weft -o x.png --connected
	[ -e x.png ] && die "a picture after an error"
	# past the end of the trace: an error, not a blank picture
	chk 1 "weft render: --start 1 s is past the end of the trace (" "$W" render bad.weft -o x.png --start 1s
	[ -e x.png ] && die "a picture from past the end"
	true
}

t_render_units() {
	"$W" --help | grep -q "^  render " || { echo "no render in this build"; exit 77; }
	WEFT_FILE=bad.weft "$EX/arp" bad >/dev/null || die "arp"
	# the arp trace lasts about 30 us: the same range, as the ruler
	# writes it and as today's seconds
	"$W" render bad.weft -o s.png --start 0.00001 --duration 0.000012 || die "seconds"
	"$W" render bad.weft -o us.png --start 10us --duration 12us || die "us"
	"$W" render bad.weft -o mu.png --start "10 µs" --duration=0.012ms || die "µs"
	"$W" render bad.weft -o ns.png --start=10000ns --duration 12000ns || die "ns"
	# digits in groups, as the viewers write times now
	"$W" render bad.weft -o grp.png --start "0.000 010 s" --duration "12 000 ns" || die "grouped"
	# as copied from the GTK inspector: its spaces are no-break ones
	nb=$(printf '\302\240')
	"$W" render bad.weft -o nbsp.png --start "0.000${nb}010${nb}s" --duration "12${nb}000 ns" || die "no-break spaces"
	"$W" render bad.weft -o all.png || die "all"
	cmp -s s.png us.png && cmp -s s.png mu.png && cmp -s s.png ns.png && cmp -s s.png grp.png && cmp -s s.png nbsp.png || die "the same range in other units draws another picture"
	cmp -s s.png all.png && die "the range made no difference"
	true
}

t_select_by_label() {
	WEFT_FILE=bad.weft "$EX/arp" bad >/dev/null || die "arp"
	# weft why: a label, exact or contained; ambiguous: the candidates
	"$W" why bad.weft "TCP connect" >a 2>&1; [ $? = 1 ] || die "why 'TCP connect': exit $?: $(cat a)"
	grep -q "^TCP connect (0x3, task) is still pending" a || die "$(cat a)"
	"$W" why bad.weft "ARP response" >a 2>&1
	grep -q "^ARP response (0x4, condition) is still pending" a || die "exact label: $(cat a)"
	"$W" why bad.weft ARP >a 2>e; [ $? = 1 ] || die "why ARP: exit $?"
	grep -q "weft why: 'ARP' matches 2 threads: " e || die "ambiguous: $(cat e)"
	grep -q "ARP response (0x4, condition)" e && grep -q "port-4: ARP response (0x64, event)" e ||
		die "the candidates are not listed: $(cat e)"
	[ -s a ] && die "an ambiguous label explained a thread: $(cat a)"
	"$W" why bad.weft --path ARP >a 2>e; [ $? = 1 ] || die "why --path ARP: exit $?"
	grep -q "matches 2 threads" e || die "--path ambiguous: $(cat e)"
	"$W" why bad.weft "no such label" >/dev/null 2>e; [ $? = 1 ] || die "exit $?"
	grep -q "no thread with id or label 'no such label'" e || die "$(cat e)"
	"$W" --help | grep -q "^  render " || exit 0
	"$W" render bad.weft -o id.png --select 0x3 2>/dev/null || die "render --select 0x3"
	"$W" render bad.weft -o label.png --select "TCP connect" 2>/dev/null || die "render --select label"
	cmp -s id.png label.png || die "--select by label draws another picture than by id"
	"$W" render bad.weft -o f.png --focus "TCP connect" 2>/dev/null || die "render --focus label"
	"$W" render bad.weft -o amb.png --select ARP 2>e; [ $? = 1 ] || die "render --select ARP: exit $?"
	grep -q "weft render: 'ARP' matches 2 threads: " e || die "render ambiguous: $(cat e)"
	[ -e amb.png ] && die "a picture for an ambiguous selection"
	true
}

t_record_closing_lines() {
	# (under the sanitizer build the preloaded shims come before the
	# ASan runtime, as in tests/uv/test-uv.sh)
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0" \
		"$W" record -o r.trace -- "$EX/all-events" >/dev/null 2>e || die "record: $(cat e)"
	grep -q ' | ' e && die "commands joined with '|': $(cat e)"
	local c
	for c in "weft view r.trace" "weft why r.trace" "weft stats r.trace" \
		"weft html r.trace -o r.html" "weft dump r.trace"; do
		grep -qx "weft:   $c" e || die "no line '$c': $(cat e)"
	done
}

t_why_path_json() {
	WEFT_FILE=good.weft "$EX/arp" good >/dev/null || die "arp"
	"$W" why good.weft --path "TCP connect" --json >p.json || die "why --path --json: exit $?"
	python3 - p.json <<-'EOF' || exit 1
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert d["thread"]["id"] == 3 and d["thread"]["title"] == "TCP connect", d["thread"]
	assert d["end"] == "resolved", d
	life = d["t_end_ns"] - d["t_create_ns"]
	assert life > 0
	tot = d["totals_ns"]
	assert set(tot) == {"running", "waiting", "ready", "other"}, tot
	assert abs(sum(tot.values()) - life) <= 1, (tot, life)
	segs = d["segments"]
	top = [s for s in segs if s["depth"] == 0]
	assert top and top[0]["t0_ns"] == d["t_create_ns"] and top[-1]["t1_ns"] == d["t_end_ns"], top
	for a, b in zip(top, top[1:]):
	    assert a["t1_ns"] == b["t0_ns"], (a, b)
	waits = [s for s in top if s["state"] == "waiting"]
	assert "ARP response" in [w["on"]["title"] for w in waits], waits
	EOF
	"$W" why good.weft --path "TCP connect" --all --json >q.json || die "--all --json: exit $?"
	python3 -c "
import json,sys
d=json.load(open('q.json'))
assert d['label']=='TCP connect' and d['threads']==1, d
assert sum(d['totals_ns'].values())>0, d
" || exit 1
}

# Progress: a long read on a terminal says how far it got, on stderr,
# and clears its line; not on a terminal, nothing.
t_progress() {
	"$WEFT_BUILD/bench/server-gen" -n 1100000 -o big.weft >/dev/null || die "server-gen"
	local cmds=("info big.weft" "dump big.weft" "stats big.weft" "why big.weft"
		"ctf big.weft -o ctfdir" "export --format chrome big.weft -o big.json"
		"snapshot big.weft -o snap.weft" "diff big.weft big.weft")
	"$W" --help | grep -q "^  render " && cmds+=("render big.weft -o big.png --width 200")
	"$W" --help | grep -q "^  html " && cmds+=("html big.weft -o big.html")
	local c
	for c in "${cmds[@]}"; do
		rm -rf ctfdir
		# shellcheck disable=SC2086
		"$W" $c >/dev/null 2>plain.err
		grep -q "reading" plain.err && die "weft $c: progress with no terminal: $(cat plain.err)"
		rm -rf ctfdir
		python3 - "$W" $c <<-'EOF' || die "weft $c on a terminal"
	import os, pty, subprocess, sys
	# stderr a terminal, stdout not
	m, s = pty.openpty()
	p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=s, stdin=subprocess.DEVNULL)
	os.close(s)
	out = b""
	while True:
	    try:
	        b = os.read(m, 65536)
	    except OSError:
	        break
	    if not b:
	        break
	    out += b
	p.wait()
	text = out.decode("utf-8", "replace")
	if p.returncode not in (0, 1):
	    sys.exit("exit %d: %r" % (p.returncode, text[-500:]))
	name = sys.argv[2]
	if "weft: reading big.weft: " not in text or " M events" not in text or "%" not in text:
	    sys.exit("no progress: %r" % text[-500:])
	# the line is cleared before anything else is said
	last = text.rfind("\r\x1b[K")
	if last < 0 or "reading" in text[last:]:
	    sys.exit("the progress line is left on the terminal: %r" % text[-300:])
		EOF
	done
	# dump's lines on the terminal are its progress: no other line
	# breaks them
	python3 - "$W" dump big.weft <<-'EOF' || die "dump on a terminal"
	import os, pty, subprocess, sys
	m, s = pty.openpty()
	p = subprocess.Popen(sys.argv[1:], stdout=s, stderr=s, stdin=subprocess.DEVNULL)
	os.close(s)
	seen = b""
	while True:
	    try:
	        b = os.read(m, 1 << 20)
	    except OSError:
	        break
	    if not b:
	        break
	    seen = (seen + b)[-4096:] if b"reading" not in b else seen + b
	    if b"weft: reading" in seen:
	        break
	p.kill()
	p.wait()
	if b"weft: reading" in seen:
	    sys.exit("progress among dump's lines")
	EOF
}

export W EX T WEFT_SRC WEFT_BUILD
run help_each_command t_help_each_command
run help_lists_commands t_help_lists_commands
run did_you_mean t_did_you_mean
run options_parser_help_man t_options_parser_help_man
run man_page t_man_page
run errors_name_option_and_value t_errors_name_option_and_value
run render_units t_render_units
run select_by_label t_select_by_label
run record_closing_lines t_record_closing_lines
run why_path_json t_why_path_json
run progress t_progress
tap_done
