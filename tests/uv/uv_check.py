#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reads `weft dump FILE` into threads (threads.py) and checks what a
test asks.  Library for test-uv.sh:  uv_check.py WEFT CHECK FILE."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from threads import Checks, load  # noqa: E402

W = sys.argv[1]
CHECK = sys.argv[2]
FILE = sys.argv[3]

threads, events = load(W, FILE)
_c = Checks(threads)
find, one, first, check = _c.find, _c.one, _c.first, _c.check


loops = find(r'^uv loop ')
loop = min(loops, key=lambda i: int(i, 16)) if CHECK != 'edge' else \
    [l for l in loops if any('(default)' in x for x in threads[l]['labels'])][0]
main_tid = events[0][3]

if CHECK == 'echo':
    lst = first(r'^connections on fd \d+ -> on_connection$')
    con = one(r'^connect to 127\.0\.0\.1:\d+ -> on_connect$')
    check(threads[lst]['kind'] == 'connection' and threads[lst]['end'] == 'resolve'
          and threads[lst]['by'] == loop, 'listen: %r' % threads[lst])
    check(threads[con]['kind'] == 'uv_connect_t' and threads[con]['end'] == 'resolve'
          and threads[con]['by'] == loop and threads[con]['creator'] == '0x0',
          'connect: %r' % threads[con])
    cw = one(r'^write 11 bytes to fd \d+ -> on_client_written$')
    check(threads[cw]['creator'] == con and threads[cw]['end'] == 'resolve',
          'the client write is created by the connect callback: %r' % threads[cw])
    sr = first(r'^read fd \d+ -> on_server_read$')
    check(threads[sr]['creator'] == lst and threads[sr]['end'] == 'resolve',
          'server read: %r' % threads[sr])
    ew = one(r'^write 11 bytes to fd \d+ -> on_echo_written$')
    check(threads[ew]['creator'] == sr and threads[ew]['end'] == 'resolve', 'echo write')
    # a write that finished at once is delivered in the next iteration's
    # pending phase; what epoll returned, in the poll phase
    check(threads[cw]['phase'] == 'pending' and threads[ew]['phase'] == 'pending',
          'writes delivered in the pending phase: %r' % [threads[cw], threads[ew]])
    check(threads[sr]['phase'] == 'poll', 'reads in the poll phase: %r' % threads[sr])
    cr = first(r'^read fd \d+ -> on_client_read$')
    check(threads[cr]['end'] == 'resolve' and threads[cr]['creator'] == con, 'client read')
    sd = one(r'^shutdown fd \d+ -> on_shutdown$')
    check(threads[sd]['creator'] == cr and threads[sd]['end'] == 'resolve', 'shutdown')
    closes = find(r'^close tcp -> on_close$')
    check(len(closes) == 3 and all(threads[c]['end'] == 'resolve' for c in closes), 'closes')
    # the server's next read sees the client's EOF
    eofs = [i for i, x in threads.items() if x['end'] == 'fail:EOF']
    check(len(eofs) == 1 and threads[eofs[0]]['kind'] == 'uv_stream_t read'
          and threads[eofs[0]]['creator'] == sr, 'EOF: %r' % eofs)
    # what was still armed at the end was cancelled by close or read_stop
    nxt = [i for i in find(r'-> on_connection$') + find(r'-> on_client_read$') if i not in (lst, cr)]
    check(nxt and all(threads[i]['end'] == 'cancel' for i in nxt), 'pending activations cancelled: %r' % nxt)
    check(any(re.search(r'\(default\)$', l) for l in threads[loop]['labels']), 'default loop')
    check(threads[loop]['end'] == 'resolve', 'the loop ends when closed')
elif CHECK == 'misc':
    ticks = find(r'-> on_tick$')
    fired = [t for t in ticks if threads[t]['end'] == 'resolve']
    check(len(fired) == 3, '3 timer firings: %r' % [threads[t] for t in ticks])
    check(threads[one(r'^timer 5 ms -> on_once$')]['end'] == 'resolve', 'once')
    chain = [one(r'^open /tmp/weft-uv-misc-\d+\.txt -> on_open$'),
             one(r'^write fd \d+ -> on_write$'), one(r'^close fd \d+ -> on_closed$'),
             one(r'^unlink /tmp/weft-uv-misc-\d+\.txt -> on_unlink$')]
    for a, b in zip(chain, chain[1:]):
        check(threads[b]['creator'] == a, 'fs chain: %r created by %r' % (b, a))
    check(all(threads[c]['end'] == 'resolve' and threads[c]['kind'] == 'uv_fs_t' for c in chain), 'fs ends')
    works = find(r'^threadpool work -> crunch$')
    check(len(works) == 2, 'two work items')
    for w in works:
        x = threads[w]
        check(x['end'] == 'resolve' and x['kind'] == 'uv_work_t', 'work: %r' % x)
        # the work function on a worker thread, its after-work callback
        # on the loop's thread
        check(main_tid in x['runs'] and len(x['runs']) == 2,
              'work runs on a worker thread and then the loop: %r' % x['runs'])
    wk = [i for i in find(r'^async wake-up -> on_wakeup$')]
    sig = [s for i in wk for s in threads[i]['signals_from']]
    check(len(sig) == 3 and all(t != main_tid for _, t in sig),
          'three async sends from another OS thread: %r' % sig)
    fired = [i for i in wk if threads[i]['end'] == 'resolve']
    check(1 <= len(fired) <= 3, 'sends coalesce into at most 3 callbacks: %r' % fired)
    check(any(threads[i]['end'] == 'resolve' and threads[i]['signals_from'] for i in wk),
          'the signalled wake-up fires')
    evs = {e for e, _, _, _ in events}
    check('idle' in evs and 'resume' in evs, 'poll idle periods')
    ctrs = {f.get('counter') for e, f, _, _ in events if e == 'counter_set'}
    check({'uv.active_handles', 'uv.active_requests'} <= ctrs, 'counters: %r' % ctrs)
elif CHECK == 'ctest':
    procs = [i for i, x in threads.items() if x['kind'] == 'uv_process_t']
    check(len(procs) == 2, 'two test processes: %r' % procs)
    check(any(re.search(r'^process /bin/echo, pid \d+ -> ', l) for p in procs for l in threads[p]['labels']), 'echo')
    check(all(threads[p]['end'] == 'resolve' for p in procs), 'processes exit')
    reads = [i for i, x in threads.items() if x['kind'] == 'uv_stream_t read' and x['end'] == 'resolve']
    check(len(reads) >= 2, 'output read from the pipes')
elif CHECK == 'edge':
    sync = one(r'^stat / -> \(no callback\)$')
    check(threads[sync]['end'] == 'resolve' and threads[sync]['by'] == '0x0',
          'a synchronous fs call resolves at once, in its caller: %r' % threads[sync])
    freed = one(r'^stat / -> on_fs_free$')
    check(threads[freed]['end'] == 'resolve', 'freed in its callback')
    w = one(r'^write 1048576 bytes to fd \d+ -> on_write_canceled$')
    check(threads[w]['end'] == 'fail:ECANCELED', 'canceled write: %r' % threads[w])
    check(len(loops) == 2 and all(threads[l]['end'] == 'resolve' for l in loops), 'two loops')
    t2 = one(r'^timer 1 ms -> on_second_loop_timer$')
    check(threads[t2]['by'] in loops and threads[t2]['by'] != loop, 'second loop fires its timer')
elif CHECK == 'phases':
    # each callback in the phase libuv runs it in, in its order
    want = [(r'^timer 0 ms -> on_timer$', 'timers', 'resolve'),
            (r'^write 4 bytes to fd \d+ -> on_written$', 'pending', 'resolve'),
            (r'^udp send to 127\.0\.0\.1:\d+ -> on_udp_sent$', 'pending', 'resolve'),
            (r'^idle -> on_idle$', 'idle', 'resolve'),
            (r'^prepare -> on_prepare$', 'prepare', 'resolve'),
            (r'^read fd \d+ -> on_read$', 'poll', 'resolve'),
            (r'^udp recv on fd \d+ -> on_udp$', 'poll', 'resolve'),
            (r'^check -> on_check$', 'check', 'resolve'),
            (r'^close pipe -> on_close_b$', 'closing', 'resolve'),
            (r'^write 8388608 bytes to fd \d+ -> on_big_written$', 'closing',
             'fail:ECANCELED'),
            (r'^close pipe -> on_close_c$', 'closing', 'resolve')]
    for pat, ph, end in want:
        x = threads[first(pat)]
        check(x['phase'] == ph and x['end'] == end and x['by'] == loop,
              '/%s/ in phase %r, ended %r by %r: %r' % (pat, ph, end, loop, x))
    # the phases of the first iteration, marked in that order (the poll
    # phase by the loop's wait)
    seq = []
    for e, f, _, tid in events:
        name = f.get('phase') if e == 'phase' else \
            f.get('reason') if e == 'idle' and seq else None
        if name is not None and (not seq or seq[-1] != name):
            seq.append(name)
    check(seq[:8] == ['timers', 'pending', 'idle', 'prepare', 'poll', 'check',
                      'closing', ''], 'phase order: %r' % seq)
    # the idle, prepare and check handles' next activations were
    # cancelled by their stops
    for pat in (r'^idle -> on_idle$', r'^prepare -> on_prepare$',
                r'^check -> on_check$'):
        acts = find(pat)
        check(len(acts) == 2 and threads[max(acts, key=lambda i: int(i, 16))]['end']
              == 'cancel', '%s: %r' % (pat, [threads[i] for i in acts]))
elif CHECK == 'mangled':
    # C++ callback names, demangled and without their parameter lists
    for pat in (r'^timer 1 ms -> node::Environment::CheckImmediate$',
                r'^timer 2 ms -> node::\(anonymous namespace\)::T::OnTimer$',
                r'^timer 3 ms -> node::Environment::Reg::\{lambda#1\}$'):
        x = threads[one(pat)]
        check(x['end'] == 'resolve' and x['kind'] == 'uv_timer_t', '%s: %r' % (pat, x))
    check(not [l for x in threads.values() for l in x['labels'] if '_Z' in l],
          'no mangled name left')
    # names longer than a label keeps (95 bytes) are cut there, exactly;
    # one of exactly 95 bytes is kept whole (test-uv.sh checks the count)
    n95 = 'on_timer_whose_name_is_exactly_ninety_five_bytes_long_so_that_the_label_keeps_all_of_it_xxxxxxx'
    n96 = 'on_timer_whose_name_is_ninety_six_bytes_long_one_more_than_a_label_keeps_so_it_is_cut_x_yzwvutsr'
    cxx = ('node::a_namespace_with_a_rather_long_name::AClassWhoseNameIsLongEnoughToMatter::'
           'OnTimerCallbackThatFiresOnce')
    check(len(n95) == 95 and len(n96) == 96 and len(cxx) > 95, 'the names are what they claim')
    for ms, name in ((4, cxx[:95]), (5, n95), (6, n96[:95])):
        x = threads[one('^timer %d ms -> %s$' % (ms, re.escape(name)))]
        check(x['end'] == 'resolve', 'timer %d ms: %r' % (ms, x))
elif CHECK == 'knot':
    # knot-resolver answers the queries of a uv_udp_t with its own
    # sendmmsg (or sendmsg) on the handle's socket, from a callback
    want = int(sys.argv[4])
    recv = [i for i, x in threads.items() if x['kind'] == 'uv_udp_t recv' and x['end'] == 'resolve']
    fds = {re.search(r'fd (\d+)', threads[i]['labels'][-1]).group(1) for i in recv}
    sent = [i for i, x in threads.items() if x['kind'] in ('sendmmsg', 'sendmsg', 'sendto')
            and x['end'] == 'resolve'
            and re.search(r'to fd (\d+)$', x['labels'][-1]).group(1) in fds]
    check(len(sent) >= want, '%d answers sent on the handles\' sockets (%r), want %d' % (len(sent), fds, want))
    check(all(threads[i]['creator'] in threads and threads[i]['creator'] != '0x0'
              and threads[threads[i]['creator']]['kind'] for i in sent),
          'each a request of the callback that sent it: %r' % [threads[i] for i in sent][:3])
else:
    sys.exit('unknown check')
print('%s: %d threads checked' % (CHECK, len(threads)))
