#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks what a libevent trace must show.  For test-event.sh:
event_check.py WEFT CHECK FILE."""
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
bases = [i for i, x in threads.items() if x['kind'] == 'event_base']
check(bases, 'a base: %r' % threads)
base = min(bases, key=lambda i: int(i, 16))
main_tid = events[0][3]


def chain(pattern):
    """A persistent event's activations, in order: each created by the one
    before."""
    acts = sorted(find(pattern), key=lambda i: int(i, 16))
    for a, b in zip(acts, acts[1:]):
        check(threads[b]['creator'] == a, '%s: %r not created by %r' % (pattern, b, a))
    return acts


def children(parent, kind):
    return [i for i, x in threads.items() if x['creator'] == parent and x['kind'] == kind]


if CHECK == 'misc':
    ticks = chain(r'^timer, every 2 ms -> on_tick$')
    check(len(ticks) == 4 and [threads[t]['end'] for t in ticks] ==
          ['resolve'] * 3 + ['cancel'], 'three ticks, the next cancelled: %r' %
          [threads[t] for t in ticks])
    check(threads[ticks[3]]['by'] == ticks[2], 'event_del in the third tick cancels the fourth')
    check(all(threads[t]['phase'] == 'timers' and threads[t]['by'] == base
              for t in ticks[:3]), 'ticks fired by the base in the timers phase')
    once = one(r'^timer 20 ms -> on_once$')
    check(threads[once]['end'] == 'resolve' and threads[once]['creator'] == '0x0'
          and threads[once]['kind'] == 'event timer', 'once: %r' % threads[once])
    rd = chain(r'^read fd \d+ -> on_read$')
    check(threads[rd[0]]['end'] == 'resolve' and threads[rd[0]]['phase'] == 'active'
          and threads[rd[0]]['kind'] == 'event read', 'read: %r' % threads[rd[0]])
    check(threads[rd[1]]['end'] == 'cancel' and threads[rd[1]]['by'] == rd[0],
          'the read removes itself: %r' % threads[rd[1]])
    io = children(rd[0], 'read')
    check(len(io) == 1 and re.match(r'^read 5 bytes from fd \d+$', threads[io[0]]['labels'][-1])
          and threads[io[0]]['end'] == 'resolve' and threads[io[0]]['by'] == rd[0],
          "the callback's read() is a request of its activation: %r" % [threads[i] for i in io])
    sig = chain(r'^signal 10 -> on_signal$')
    check(threads[sig[0]]['end'] == 'resolve' and threads[sig[1]]['end'] == 'cancel', 'signal')
    quiet = one(r'^read fd \d+ -> on_quiet$')
    check(threads[quiet]['end'] == 'fail:timeout' and threads[quiet]['phase'] == 'timers',
          'a read that times out fails: %r' % threads[quiet])
    users = chain(r'^event -> on_user$')
    sig_in = [s for u in users for s in threads[u]['signals_from']]
    check(len(sig_in) == 3 and all(t != main_tid for _, t in sig_in),
          'three event_active() from another OS thread: %r' % sig_in)
    check([threads[u]['end'] for u in users].count('resolve') == 3 and
          threads[users[-1]]['end'] == 'cancel', 'user event: %r' % [threads[u] for u in users])
    check(all(threads[u]['phase'] == 'active' for u in users[:3]), 'manual activations are active')
    bo = one(r'^event -> on_base_once$')
    check(threads[bo]['end'] == 'resolve' and threads[bo]['phase'] == 'timers', 'base once')
    se = one(r'^event -> on_self$')
    check(threads[se]['end'] == 'resolve' and threads[se]['phase'] == 'active', 'self')
    check(threads[base]['end'] == 'resolve', 'the base ends when freed')
    prio = find(r'^event -> on_prio$')
    check(sorted(threads[p]['phase'] for p in prio) == ['active 0', 'active 1'] and
          all(threads[p]['end'] == 'resolve' and threads[p]['by'] != base for p in prio),
          'a base with two priorities: a phase per queue: %r' % [threads[p] for p in prio])
    check(any(e == 'idle' for e, _, _, _ in events), 'the wait')
elif CHECK == 'echo':
    lst = chain(r'^connections on fd \d+ -> on_accept$')
    check(threads[lst[0]]['end'] == 'resolve' and threads[lst[0]]['creator'] == '0x0'
          and threads[lst[-1]]['end'] == 'cancel', 'listener: %r' % [threads[i] for i in lst])
    con = one(r'^connect to 127\.0\.0\.1:\d+ -> on_client_event$')
    check(threads[con]['end'] == 'resolve' and threads[con]['by'] == base
          and threads[con]['kind'] == 'bufferevent connect', 'connect: %r' % threads[con])
    ref = one(r'^connect to 127\.0\.0\.1:\d+ -> on_refused$')
    check(threads[ref]['end'] == 'fail:ECONNREFUSED', 'refused: %r' % threads[ref])
    sr = chain(r'read fd \d+ -> on_server_read$')
    check(threads[sr[0]]['creator'] == lst[0], 'the server reads are created by the accept')
    sized = [i for i in sr if re.match(r'^read 11 bytes from fd \d+ -> on_server_read$',
                                       threads[i]['labels'][-1])]
    check(len(sized) == 3 and all(threads[i]['end'] == 'resolve' for i in sized),
          'three reads of 11 bytes: %r' % [threads[i] for i in sr])
    check(threads[sr[-1]]['end'] == 'fail:EOF', 'then EOF: %r' % threads[sr[-1]])
    for r in sized:
        w = children(r, 'bufferevent write')
        check(len(w) == 1 and re.match(r'^write 11 bytes to fd \d+$', threads[w[0]]['labels'][-1])
              and threads[w[0]]['end'] == 'resolve' and threads[w[0]]['by'] == base,
              'each read writes its echo, resolved by the base once written: %r' % w)
    cw = find(r'^write 11 bytes to fd \d+ -> on_client_written$')
    check(len(cw) == 3 and threads[cw[0]]['creator'] == con and
          all(threads[i]['end'] == 'resolve' for i in cw), 'client writes: %r' % cw)
    check(any(len(threads[i]['runs']) for i in cw), 'the write callback runs as the write')
elif CHECK == 'http':
    served = one(r'^http GET /hello -> on_hello$')
    check(threads[served]['kind'] == 'evhttp request' and threads[served]['creator'] == base
          and threads[served]['end'] == 'resolve' and threads[served]['by'] == served,
          'served: created by the loop, resolved by its own reply: %r' % threads[served])
    other = one(r'^http GET /missing -> on_other$')
    check(threads[other]['end'] == 'fail:404 Not Found', 'a 404 reply fails: %r' % threads[other])
    made = one(r'^http GET /hello -> on_response$')
    check(threads[made]['kind'] == 'evhttp client request' and threads[made]['creator'] == '0x0'
          and threads[made]['end'] == 'resolve' and threads[made]['by'] == base, 'made: %r' % threads[made])
    miss = one(r'^http GET /missing -> on_response$')
    check(threads[miss]['end'] == 'fail:404 Not Found', 'its 404: %r' % threads[miss])
    lk = one(r'^getaddrinfo localhost 80 -> on_lookup$')
    check(threads[lk]['end'] == 'resolve' and threads[lk]['kind'] == 'evdns getaddrinfo', 'lookup')
    bad = one(r'^getaddrinfo localhost no-such-service -> on_lookup$')
    check((threads[bad]['end'] or '').startswith('fail:'), 'failed lookup: %r' % threads[bad])
elif CHECK == 'memcached':
    reads = [i for i, x in threads.items() if x['kind'] == 'event read' and x['end'] == 'resolve']
    served = [r for r in reads if children(r, 'read') and children(r, 'sendmsg')]
    want = int(sys.argv[4])
    check(len(served) >= want, '%d activations with reads and writes, want >= %d' % (len(served), want))
    sent = [i for r in served for i in children(r, 'sendmsg')]
    check(all(re.match(r'^sendmsg \d+ bytes to fd \d+$', threads[i]['labels'][-1]) and
              threads[i]['end'] == 'resolve' for i in sent), 'the answers: %r' % sent[:3])
    tids = {t for r in served for t in threads[r]['runs']}
    check(len(tids) >= 2, 'served by worker threads: %r' % tids)
    check(len(bases) >= 3, 'a base per worker and the main one: %r' % bases)
elif CHECK == 'tmux':
    # the keys reach the pane: a write to its pty, then what cat echoes
    # read back from it
    w = [i for i, x in threads.items() if x['kind'] == 'bufferevent write' and x['end'] == 'resolve']
    r = [i for i, x in threads.items() if x['kind'] == 'bufferevent read' and x['end'] == 'resolve'
         and any(re.match(r'^read \d+ bytes from fd \d+', l) for l in x['labels'])]
    check(w and r, 'pane writes and reads: %r %r' % (w, r))
    fds = {re.search(r'fd (\d+)', threads[i]['labels'][-1]).group(1) for i in w}
    check(any(re.search(r'fd (\d+)', threads[i]['labels'][-1]).group(1) in fds for i in r),
          'read back from the pty written to')
    msgs = [i for i, x in threads.items() if x['kind'] == 'recvmsg' and x['end'] == 'resolve']
    check(msgs, "the clients' messages, read with recvmsg by an event's callback")
    check(any(x['kind'] == 'event signal' for x in threads.values()), 'signal events')
    check(not [i for i, x in threads.items() if x['kind'] is None and i != '0x0'],
          'no thread from before the fork')
else:
    sys.exit('unknown check')
print('%s: %d threads checked' % (CHECK, len(threads)))
