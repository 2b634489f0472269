#!/bin/bash
# SPDX-License-Identifier: MIT
# test-glib.sh - `weft record` on GLib programs: the project's GIO program
# (sources, GTasks, asynchronous file and socket calls, a failing one, a
# cancelled one), weft's own GTK viewer, zenity from Debian, which
# nobody here wrote, and a program with two loops (libuv and GLib).  TAP
# output.
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
W=$WEFT_BIN
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"
EX=$WEFT_BUILD/examples
. "$WEFT_SRC/tests/tap.sh"
tap_init glib "$@"
check() { python3 "$WEFT_SRC/tests/glib/glib_check.py" "$W" "$@"; }
# The biggest trace of a run: the process that did the work.
# the biggest ring of a run directory (weft record -o DIR)
biggest() { ls -S "$1"/ring "$1"/ring.* 2>/dev/null | head -1; }

t_demo() {
	"$EX/gio-demo" | sort >plain.txt || die "gio-demo failed"
	"$W" record -o g.weft --mode discard -- "$EX/gio-demo" >traced.raw 2>rec.txt || die "record: $(cat rec.txt)"
	sort traced.raw >traced.txt
	cmp plain.txt traced.txt || die "output changed: $(diff plain.txt traced.txt)"
	grep -q "traced loops: GLib; preloaded: libuv, libevent, GLib (all of them: --loops chooses)" rec.txt || die "$(cat rec.txt)"
	"$W" info g.weft | grep -q "0 packets lost, 0 torn, 0 corrupt; 0 events discarded" || die "losses"
	check demo g.weft
}

# weft's own viewer, a GTK program: it draws a trace and exits
# (WEFT_VIEW_SCREENSHOT), the same picture traced or not.
t_viewer() {
	[ -x "$WEFT_BUILD/viewer/weft-view" ] || die "no GTK viewer in this build"
	command -v xvfb-run >/dev/null || die "no xvfb-run"
	WEFT_FILE=arp.weft "$EX/arp" bad >/dev/null 2>&1
	WEFT_VIEW_SCREENSHOT=plain.png timeout 60 xvfb-run -a -s "-screen 0 1280x800x24" "$W" view arp.weft >/dev/null 2>&1 || die "viewer failed"
	WEFT_VIEW_SCREENSHOT=traced.png timeout 60 xvfb-run -a -s "-screen 0 1280x800x24" "$W" record -o v.weft -- "$W" view arp.weft >/dev/null 2>rec.txt || die "traced viewer failed: $(cat rec.txt)"
	cmp plain.png traced.png || die "the picture changed"
	grep -q "loops: GLib" rec.txt || die "$(cat rec.txt)"
	check gtk "$(biggest v.weft)"
}

# zenity, from Debian: a dialog that closes itself after a second.
t_zenity() {
	command -v zenity >/dev/null || die "zenity missing"
	timeout 60 xvfb-run -a zenity --info --text=weft --timeout=1 >/dev/null 2>&1; local p=$?
	timeout 60 xvfb-run -a "$W" record -o z.weft -- zenity --info --text=weft --timeout=1 >/dev/null 2>rec.txt; local t=$?
	[ $p = $t ] || die "status $p untraced, $t traced: $(cat rec.txt)"
	grep -q "traced loops: GLib" rec.txt || die "$(cat rec.txt)"
	check zenity "$(biggest z.weft)"
}

# A program with two loops, libuv's and GLib's: weft record preloads both
# shims and traces both; --loops chooses.
t_two_loops() {
	[ -x "$EX/two-loops" ] || die "no two-loops in this build (libuv and GLib)"
	"$EX/two-loops" >plain.txt || die "two-loops failed"
	"$W" record -o two.weft -- "$EX/two-loops" >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
	cmp plain.txt traced.txt || die "output changed: $(diff plain.txt traced.txt)"
	grep -q "loops: libuv, GLib$" rec.txt && grep -q "traced loops: libuv, GLib; preloaded: libuv, libevent, GLib (all of them: --loops chooses)" rec.txt || die "$(cat rec.txt)"
	"$W" dump two.weft >dump.txt || die "dump"
	grep -q 'kind="uv_timer_t"' dump.txt && grep -q 'kind="GSource timeout" label="timeout 1 ms -> on_glib_timeout"' dump.txt || die "$(cat dump.txt)"
	"$W" record --loops uv -o one.weft -- "$EX/two-loops" >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
	cmp plain.txt traced.txt || die "output changed with --loops uv"
	grep -q "traced loops: libuv; preloaded: libuv (chosen with --loops)" rec.txt || die "$(cat rec.txt)"
	"$W" dump one.weft >dump.txt || die "dump"
	grep -q 'kind="uv_timer_t"' dump.txt && ! grep -q 'GSource' dump.txt || die "--loops uv traced GLib: $(cat dump.txt)"
}

# A Python program on GLib through PyGObject (docs/glib.md, "Bindings"):
# introspection finds each GLib function with g_module_symbol on
# libglib's handle, past the preload; the preload hands out its wrapper
# instead.  Timeouts, an idle, the main loop and a GIO call made from
# Python are recorded as a C program's are: each timeout activation
# created by the one before, the file load created by the third and
# resolved by the loop.
t_pygobject() {
	local py
	for py in python3 /usr/bin/python3; do
		"$py" -c 'import gi; gi.require_version("Gio", "2.0")' 2>/dev/null && break
		py=
	done
	[ -n "$py" ] || { echo "no python3 with PyGObject (python3-gi)"; exit 77; }
	cat >pyg.py <<'EOF'
import sys
import gi
gi.require_version("Gio", "2.0")
from gi.repository import GLib, Gio
loop = GLib.MainLoop()
n = [0]
def tick():
    n[0] += 1
    print("tick", n[0])
    if n[0] == 3:
        Gio.File.new_for_path(sys.argv[1]).load_contents_async(None, loaded)
        return False
    return True
def loaded(f, res):
    ok, data, etag = f.load_contents_finish(res)
    print("loaded", len(data))
    loop.quit()
def idle():
    print("idle")
    return False
GLib.timeout_add(50, tick)
GLib.idle_add(idle)
loop.run()
print("done", n[0])
EOF
	printf 'twelve bytes' >data.txt
	"$py" pyg.py "$PWD/data.txt" >plain.txt 2>plain.err || die "alone: $(cat plain.err)"
	"$W" record -o py.weft -- "$py" pyg.py "$PWD/data.txt" >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
	cmp plain.txt traced.txt || die "output changed: $(diff plain.txt traced.txt)"
	grep -q "^loaded 12$" traced.txt || die "$(cat traced.txt)"
	grep -qE "^weft: +pid [0-9]+ python3[.0-9]*: [0-9]+ events, [0-9]+ OS threads?, exited with status 0, loops: GLib$" rec.txt ||
		die "$(cat rec.txt)"
	"$W" dump py.weft >d.txt || die "dump"
	python3 - "$PWD/data.txt" <<'PY' || exit 1
import re, sys
ev = []
for l in open('d.txt'):
    f = l.split()
    kv = dict(re.findall(r'(\w+)=("[^"]*"|\S+)', l))
    ev.append((f[2], kv))
def created(kind):
    return [kv for e, kv in ev if e in ('create', 'create_label') and kv.get('kind') == '"%s"' % kind]
ctx = created('GMainContext')
assert len(ctx) == 1, ('one loop', ctx)
loop = ctx[0]['child']
assert any(e == 'label' and kv['thread'] == loop and '(default)' in kv['text'] for e, kv in ev), 'the default context'
resolved = {kv['target']: kv['by'] for e, kv in ev if e in ('resolve_run', 'resolve')}
t = created('GSource timeout')
assert len(t) == 3, ('three timeout activations', t)
assert t[0]['by'] == '0x0', t[0]
for k in range(3):
    assert t[k]['label'].startswith('"timeout 50 ms -> '), t[k]
    assert resolved.get(t[k]['child']) == loop, ('fired by the loop', t[k], resolved)
    if k:
        assert t[k]['by'] == t[k - 1]['child'], ('each made by the one before', t)
i = created('GSource idle')
assert len(i) == 1 and resolved.get(i[0]['child']) == loop, ('the idle', i)
g = created('GIO call')
assert len(g) == 1 and g[0]['by'] == t[2]['child'], ('the load, by the third tick', g, t)
lab = [kv['text'] for e, kv in ev if e == 'label' and kv['thread'] == g[0]['child']]
assert lab and lab[0].startswith('"load %s -> ' % sys.argv[1]), lab
assert resolved.get(g[0]['child']) == loop, ('the load resolved by the loop', resolved)
PY
}

# The same route from JavaScript: GJS (docs/glib.md, "Bindings").
t_gjs() {
	command -v gjs >/dev/null || { echo "no gjs"; exit 77; }
	cat >t.js <<'EOF'
const GLib = imports.gi.GLib;
let loop = new GLib.MainLoop(null, false);
let n = 0;
GLib.timeout_add(GLib.PRIORITY_DEFAULT, 50, () => {
	n++;
	print("tick " + n);
	if (n == 3) {
		loop.quit();
		return false;
	}
	return true;
});
GLib.idle_add(GLib.PRIORITY_DEFAULT_IDLE, () => { print("idle"); return false; });
loop.run();
print("done " + n);
EOF
	gjs t.js >plain.txt 2>plain.err || die "alone: $(cat plain.err)"
	"$W" record -o js.weft -- gjs t.js >traced.txt 2>rec.txt || die "record: $(cat rec.txt)"
	cmp plain.txt traced.txt || die "output changed: $(diff plain.txt traced.txt)"
	grep -qE "^weft: +pid [0-9]+ gjs: [0-9]+ events, [0-9]+ OS threads?, exited with status 0, loops: GLib$" rec.txt ||
		die "$(cat rec.txt)"
	"$W" dump js.weft >d.txt || die "dump"
	python3 - <<'PY' || exit 1
import re
ev = []
for l in open('d.txt'):
    f = l.split()
    ev.append((f[2], dict(re.findall(r'(\w+)=("[^"]*"|\S+)', l))))
loop = [kv['child'] for e, kv in ev if e == 'create' and kv.get('kind') == '"GMainContext"']
assert len(loop) == 1, loop
resolved = {kv['target']: kv['by'] for e, kv in ev if e in ('resolve_run', 'resolve')}
# (gjs arms timeouts of its own, in its library: not these)
t = [kv for e, kv in ev if e == 'create_label' and kv['label'].startswith('"timeout 50 ms -> ')]
assert len(t) == 3, t
for k in range(3):
    assert resolved.get(t[k]['child']) == loop[0], (t[k], resolved)
    if k:
        assert t[k]['by'] == t[k - 1]['child'], t
i = [kv for e, kv in ev if e == 'create_label' and kv.get('kind') == '"GSource idle"']
assert len(i) == 1 and resolved.get(i[0]['child']) == loop[0], i
PY
}

export W EX T WEFT_SRC WEFT_BUILD
run gio_sources_tasks_calls t_demo
run weft_view_traced t_viewer
run zenity_from_debian t_zenity
run two_loops_one_program t_two_loops
run pygobject t_pygobject
run gjs t_gjs
tap_done
