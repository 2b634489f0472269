#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks what a GLib trace must show.  For test-glib.sh:
glib_check.py WEFT CHECK FILE."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'uv'))
from threads import Checks, load  # noqa: E402

W, CHECK, FILE = sys.argv[1:4]
threads, events = load(W, FILE)
_c = Checks(threads)
find, one, first, check = _c.find, _c.one, _c.first, _c.check
ctxs = [i for i, x in threads.items() if x['kind'] == 'GMainContext']
check(ctxs, 'a context')
ctx = min(ctxs, key=lambda i: int(i, 16))
main_tid = events[0][3]


def reads_of(i):
    return [(by, tid) for e, f, by, tid in events if e == 'read' and f['source'] == i]


def children(parent, kind):
    return [i for i, x in threads.items() if x['creator'] == parent and x['kind'] == kind]


def cancels_of(i):
    return [by for e, f, by, tid in events if e == 'cancel' and f['target'] == i]


if CHECK == 'demo':
    idle = one(r'^idle -> on_idle$')
    check(threads[idle]['kind'] == 'GSource idle' and threads[idle]['end'] == 'resolve'
          and threads[idle]['by'] == ctx and threads[idle]['creator'] == '0x0'
          and threads[idle]['phase'] == 'dispatch', 'idle: %r' % threads[idle])
    ticks = sorted(find(r'^timeout 5 ms -> on_tick$'), key=lambda i: int(i, 16))
    check(len(ticks) == 3 and all(threads[t]['end'] == 'resolve' for t in ticks),
          'three dispatches of the timeout: %r' % [threads[t] for t in ticks])
    for a, b in zip(ticks, ticks[1:]):
        check(threads[b]['creator'] == a, 'each dispatch creates the next')
    cr = one(r'^task -> on_crunched$')
    x = threads[cr]
    check(x['kind'] == 'GTask' and x['end'] == 'resolve' and x['by'] == cr and
          len(x['runs']) == 2 and main_tid in x['runs'],
          'a GTask resolved in its thread function on a worker, its callback on the loop: %r' % x)
    check(reads_of(cr), 'g_task_propagate_int reads it')
    rf = one(r'^task -> on_refused$')
    check(threads[rf]['end'] == 'fail:no such thing: 42' and threads[rf]['creator'] == '0x0',
          'a GTask failed with its message: %r' % threads[rf])
    check(reads_of(rf), 'propagating the error reads it')
    ld = one(r'^load /tmp/weft-gio-demo-\d+\.txt -> on_loaded$')
    check(threads[ld]['kind'] == 'GIO call' and threads[ld]['end'] == 'resolve'
          and threads[ld]['by'] == ctx, 'load: %r' % threads[ld])
    ms = one(r'^load /nonexistent/weft-gio-demo -> on_missing$')
    check(re.match(r'^fail:.*No such file or directory$', threads[ms]['end'] or ''),
          'the missing file fails with the GError message: %r' % threads[ms])
    acc = one(r'^accept -> on_accepted$')
    con = one(r'^connect to 127\.0\.0\.1:\d+ -> on_connected$')
    check(threads[acc]['end'] == 'resolve' and threads[con]['end'] == 'resolve', 'accept, connect')
    sr = one(r'^read 64 bytes -> on_server_read$')
    check(threads[sr]['creator'] == acc and threads[sr]['end'] == 'resolve', 'server read: %r' % threads[sr])
    ew = one(r'^write all 5 bytes -> on_echoed$')
    check(threads[ew]['creator'] == sr, 'the echo is written by the read callback')
    cw = one(r'^write all 5 bytes -> on_written$')
    check(threads[cw]['creator'] == con, 'the client writes in its connect callback')
    cr2 = one(r'^read 64 bytes -> on_echo$')
    check(threads[cr2]['creator'] == cw and threads[cr2]['end'] == 'resolve', 'the echo read')
    nv = one(r'^read 64 bytes -> on_never$')
    give = one(r'^timeout 20 ms -> on_give_up$')
    check(threads[nv]['end'] == 'cancel' and threads[nv]['by'] == give and threads[nv]['creator'] == cr2,
          'the read nobody answers is cancelled by the timeout through its GCancellable: %r' % threads[nv])
    check(main_tid in threads[nv]['runs'], 'its callback still runs (as it)')
    check(any(e == 'idle' and f.get('reason') == 'poll' for e, f, _, _ in events), 'the poll')
    # sources of every kind, each dispatched once by the context
    for pat, kind in ((r'^io fd \d+ -> on_pipe$', 'GSource io'),
                      (r'^fd \d+ -> on_fd$', 'GSource unix fd'),
                      (r'^child pid \d+ -> on_child$', 'GSource child'),
                      (r'^signal 10 -> on_usr1$', 'GSource signal'),
                      (r'^source custom -> on_custom$', 'GSource')):
        s = one(pat)
        check(threads[s]['kind'] == kind and threads[s]['end'] == 'resolve'
              and threads[s]['by'] == ctx and threads[s]['creator'] == '0x0'
              and main_tid in threads[s]['runs'], '%s: %r' % (pat, threads[s]))
    for pat in (r'^io fd \d+ -> on_pipe$', r'^fd \d+ -> on_fd$'):
        rd = children(one(pat), 'read')
        check(len(rd) == 1 and re.match(r'^read 1 bytes from fd \d+$', threads[rd[0]]['labels'][-1])
              and threads[rd[0]]['end'] == 'resolve',
              "the callback's read() of the watched descriptor: %r" % [threads[i] for i in rd])
    rm = one(r'^timeout 10000 ms -> on_removed$')
    check(threads[rm]['end'] == 'cancel' and threads[rm]['by'] == idle
          and threads[rm]['creator'] == idle and not threads[rm]['runs'],
          'g_source_remove in the idle callback cancels the timeout it added: %r' % threads[rm])
    # each other way GLib has to remove a source cancels it too
    for pat, how in ((r'^source \(unnamed\) -> on_destroyed$', 'g_source_destroy'),
                     (r'^timeout 10000 ms -> on_removed_by_data$', 'g_source_remove_by_user_data'),
                     (r'^idle -> on_idle_removed$', 'g_idle_remove_by_data')):
        x = threads[one(pat)]
        check(x['end'] == 'cancel' and x['by'] == idle and x['creator'] == idle
              and not x['runs'], '%s in the idle callback cancels the source it added: %r' % (how, x))
elif CHECK == 'gtk':
    # weft's own viewer: GTK's sources dispatched by the default context
    disp = [i for i, x in threads.items() if (x['kind'] or '').startswith('GSource')
            and x['end'] == 'resolve' and x['phase'] == 'dispatch']
    check(len(disp) >= 3, 'dispatches: %d' % len(disp))
    check(any(e == 'idle' and f.get('reason') == 'poll' for e, f, _, _ in events), 'the poll')
elif CHECK == 'zenity':
    t = [i for i, x in threads.items() if x['kind'] == 'GSource timeout' and x['end'] == 'resolve']
    check(t, 'its --timeout fires: %r' % [x for x in threads.values() if x['kind']])
    disp = [i for i, x in threads.items() if (x['kind'] or '').startswith('GSource')
            and x['end'] == 'resolve']
    check(len(disp) >= 3, 'dispatches: %d' % len(disp))
else:
    sys.exit('unknown check')
print('%s: %d threads checked' % (CHECK, len(threads)))
