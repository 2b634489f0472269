#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""why_check.py WEFT TRACE... - no verdict of `weft why --all` that the
trace does not support.

For each trace: rebuilds from `weft dump` (its own reading of every event,
sharing no code with the library) the async threads, their incarnations,
ends, arrows and the losses, then checks every thread `weft why --all
--json` reports against what its verdict claims:

  lost wake-up     the blocker was signalled, resolved or cancelled (the
                   evidence named), a pending thread waits on it, and it
                   never read it; if woken while it waited, it had been
                   ready for longer than any woken waiter of this trace
                   took to read;
  never resolved   the blocker is pending, nothing resolved, failed or
                   cancelled it, nothing signalled it after its waiter
                   began waiting (if it has a waiter), the subject should
                   resolve or is awaited, and the blocker has been pending
                   longer than any finished thread of its kind lived;
  deadlock         the waits from the subject come back to a thread;
  failed upstream  the blocker failed and its waiter never read it;
  truncated        the reader counted a loss;
  in flight        pending no longer than a finished thread of its kind
                   lived, or woken no longer ago than woken waiters took;
  not awaited      waits on nothing, nothing waits on it, not
                   should-resolve;
and that the chain it prints is the chain of unanswered waits, that every
pending should-resolve thread is reported, that nothing resolved is, and
that no verdict of a trace with no losses is "truncated".  TAP output.
"""
import json
import re
import subprocess
import sys

WAKE = ('signal', 'resolve', 'fail', 'cancel')


class Thread:
    def __init__(self, id_, inc, t, kind, created, stream=None):
        self.id, self.inc, self.t_create, self.kind = id_, inc, t, kind
        self.streams = {stream}
        self.created = created
        self.end, self.t_end = 'pending', None
        self.should = False
        self.became = None
        self.arrows = []  # (t, kind, frm, to) touching it, in order


class Trace:
    def __init__(self, weft, path):
        out = subprocess.run([weft, 'dump', path], capture_output=True,
                             text=True, errors='replace').stdout
        self.threads = []
        self.live = {}  # id -> latest incarnation
        self.losses = []
        self.t1 = None
        self.stream_end = {}
        for line in out.splitlines():
            self.event(line)

    def get(self, id_, t):
        if id_ == 0:
            return None  # an OS thread's root
        x = self.live.get(id_)
        if x is None:
            x = Thread(id_, 0, t, None, False, self.stream)
            self.threads.append(x)
            self.live[id_] = x
        return x

    def arrow(self, t, kind, frm, to):
        a = (t, kind, frm, to)
        for x in {id(frm): frm, id(to): to}.values():
            if x is not None:
                x.arrows.append(a)

    def end(self, x, how, t):
        if x is not None and x.end == 'pending':
            x.end, x.t_end = how, t

    def event(self, line):
        m = re.match(r'^(-?\d+)\.(\d{9}) #(\d+)/\d+ (\w+) ?(.*)$', line)
        if not m:
            return
        t = int(m.group(1)) * 10**9 + (int(m.group(2)) if m.group(1)[0] != '-' else -int(m.group(2)))
        stream, ev, rest = int(m.group(3)), m.group(4), m.group(5)
        self.stream = stream
        self.t1 = t if self.t1 is None else max(self.t1, t)
        self.stream_end[stream] = max(self.stream_end.get(stream, t), t)
        f = dict(re.findall(r'(\w+)=(0x[0-9a-f]+|\d+|"(?:[^"\\]|\\.)*")', rest))
        num = lambda k: int(f[k], 0)
        if ev == 'loss':
            self.losses.append((t, num('packets'), num('events')))
            return
        actor = self.get(num('by'), t) if 'by' in f else None
        if ev in ('create', 'create_label'):
            old = self.live.get(num('child'))
            inc = 0
            if old is not None:
                self.end(old, 'replaced', t)
                inc = old.inc + 1
            x = Thread(num('child'), inc, t, f['kind'], True, stream)
            self.threads.append(x)
            self.live[x.id] = x
            self.arrow(t, 'create', actor, x)
        elif ev in ('resolve', 'resolve_run', 'fire'):
            x = self.get(num('target'), t)
            self.end(x, 'resolved', t)
            self.arrow(t, 'resolve', actor, x)
            if ev == 'fire':
                old = self.live.get(num('next'))
                inc = 0
                if old is not None:
                    self.end(old, 'replaced', t)
                    inc = old.inc + 1
                y = Thread(num('next'), inc, t, x.kind, True, stream)
                self.threads.append(y)
                self.live[y.id] = y
                self.arrow(t, 'create', x, y)
        elif ev == 'fail':
            x = self.get(num('target'), t)
            self.end(x, 'failed', t)
            self.arrow(t, 'fail', actor, x)
        elif ev == 'cancel':
            x = self.get(num('target'), t)
            self.end(x, 'cancelled', t)
            self.arrow(t, 'cancel', actor, x)
        elif ev == 'signal':
            self.arrow(t, 'signal', actor, self.get(num('receiver'), t))
        elif ev == 'try_read':
            self.arrow(t, 'try_read', actor, self.get(num('source'), t))
        elif ev == 'read':
            self.arrow(t, 'read', self.get(num('source'), t), actor)
        elif ev == 'becomes':
            a, b = self.get(num('from'), t), self.get(num('to'), t)
            if a is not None and a.end == 'pending' and a is not b:
                a.became = b
            self.end(a, 'became', t)
        elif ev == 'should_resolve':
            x = self.get(num('thread'), t)
            if x is not None:
                x.should = True
        elif ev in ('run', 'label', 'note'):
            x = self.get(num('thread'), t) if 'thread' in f else None
            if ev == 'run' and x is not None:
                x.last_stream = stream
        if ev in ('resolve_run', 'fire'):
            x = self.live.get(num('target'))
            if x is not None:
                x.last_stream = stream

    # --- what the trace shows
    def succ(self, x):
        for _ in range(1000):
            if x.end == 'became' and x.became is not None:
                x = x.became
            else:
                break
        return x

    def waits_on(self, x):
        target, since = None, None
        for (t, k, frm, to) in x.arrows:
            if k == 'try_read' and frm is x:
                target, since = to, t
            elif k == 'read' and to is x and frm is target:
                target = None
        return target, since

    def prepare(self):
        self.longest = {}
        for x in self.threads:
            if x.created and x.kind and x.end in ('resolved', 'failed', 'cancelled'):
                self.longest[x.kind] = max(self.longest.get(x.kind, -1), x.t_end - x.t_create)
        self.awaited = {}
        self.ready_max = -1
        for x in self.threads:
            target, tw = None, None
            for (t, k, frm, to) in x.arrows:
                if k == 'try_read' and frm is x:
                    target, tw = to, t
                elif k == 'read' and to is x and frm is target:
                    woke = -1
                    if target.end != 'pending' and target.t_end <= t:
                        woke = target.t_end
                    sigs = [a[0] for a in target.arrows
                            if a[1] == 'signal' and a[3] is target and tw <= a[0] <= t]
                    if sigs:
                        woke = max(woke, max(sigs))
                    woke = max(woke, tw)
                    self.ready_max = max(self.ready_max, t - woke)
                    target = None
            if x.end == 'pending' and target is not None:
                self.awaited.setdefault(id(self.succ(target)), (x, tw))

    def horizon(self, x):
        """Where the trace of the OS thread x lives on ends: that of its
        creation, or of its last run, the later."""
        ss = {s for s in x.streams | {getattr(x, 'last_stream', None)} if s is not None}
        return max((self.stream_end[s] for s in ss), default=self.t1)

    def find(self, id_, inc):
        for x in self.threads:
            if x.id == id_ and x.inc == inc:
                return x
        return None


def woken_in_flight(tr, wakes, waiter, tw):
    """The waiter was woken while it waited, and its OS thread's trace
    ended before it could have read, as long as this trace shows woken
    waiters taking to read."""
    t = wakes[-1][0]
    h = tr.horizon(waiter)
    return t >= tw and (t > h or (tr.ready_max >= 0 and h - t <= tr.ready_max))


def check(weft, path):
    tr = Trace(weft, path)
    tr.prepare()
    res = subprocess.run([weft, 'why', '--all', '--json', path],
                         capture_output=True, text=True)
    try:
        rep = json.loads(res.stdout)
    except ValueError:
        return (['%s: weft why --all --json printed no JSON (exit %d): %s'
                 % (path, res.returncode, res.stderr.strip()[:2000])],
                {'threads': []})
    errors = []
    seen = set()
    for e in rep['threads']:
        err = lambda msg: errors.append('%s 0x%x: %s: %s' % (path, e['id'], e['verdict'], msg))
        x = tr.find(e['id'], e['incarnation'])
        if x is None:
            err('no such thread in the dump')
            continue
        seen.add(id(x))
        s = tr.succ(x)
        if s.end != 'pending':
            err('reported, but it %s' % s.end)
            continue
        # The chain: unanswered waits from the subject.
        chain, cycle = [s], False
        while len(chain) < 64 and chain[-1].end == 'pending':
            nxt, _ = tr.waits_on(chain[-1])
            if nxt is None:
                break
            nxt = tr.succ(nxt)
            if nxt in chain:
                cycle = True
                break
            chain.append(nxt)
        got = [(c['id'], c['incarnation']) for c in e['chain']]
        if e['verdict'] != 'not awaited' and got != [(c.id, c.inc) for c in chain]:
            err('chain %s, the trace says %s' % (got, [(c.id, c.inc) for c in chain]))
            continue
        b = chain[-1]
        waiter, tw = (chain[-2], tr.waits_on(chain[-2])[1]) if len(chain) > 1 else tr.awaited.get(id(b), (None, None))
        wakes = [a for a in b.arrows if a[1] in WAKE and a[3] is b]
        v = e['verdict']
        if v == 'truncated':
            if not tr.losses:
                err('no loss in the trace')
        elif v == 'deadlock':
            if not cycle:
                err('the waits form no cycle')
        elif v == 'failed upstream':
            if b.end != 'failed' or waiter is None:
                err('the blocker did not fail, or nobody waits on it')
            elif any(a[1] == 'read' and a[2] is b and a[3] is waiter and a[0] >= tw for a in b.arrows):
                err('the waiter read the failure')
            elif woken_in_flight(tr, wakes, waiter, tw):
                err('woken too late in its OS thread\'s trace to read')
        elif v == 'lost wake-up':
            if not wakes or waiter is None:
                err('nothing woke the blocker, or nobody waits on it')
            else:
                if woken_in_flight(tr, wakes, waiter, tw):
                    err('woken too late in its OS thread\'s trace to read')
        elif v == 'never resolved':
            if len(chain) == 64:
                pass  # cut: the walk goes on beyond what is shown
            elif b.end != 'pending':
                err('the blocker %s' % b.end)
            elif waiter is not None and any(a[0] >= tw for a in wakes):
                err('the blocker was signalled after the wait')
            elif waiter is None and not (x.should or s.should):
                err('nothing waits on it and it need not resolve')
            elif b.created and b.kind in tr.longest and tr.horizon(b) - b.t_create <= tr.longest[b.kind]:
                err('pending %d ns; a finished %s lived %d' % (tr.horizon(b) - b.t_create, b.kind, tr.longest[b.kind]))
        elif v == 'in flight':
            ok = False
            if wakes and waiter is not None and wakes[-1][0] >= tw:
                ok = woken_in_flight(tr, wakes, waiter, tw)
            elif b.created and b.kind in tr.longest:
                ok = tr.horizon(b) - b.t_create <= tr.longest[b.kind]
            if not ok:
                err('nothing in the trace takes this long')
        elif v == 'not awaited':
            if tr.waits_on(s)[0] is not None or id(s) in tr.awaited or x.should or s.should:
                err('it waits, is awaited or should resolve')
        else:
            err('unknown verdict')
    for x in tr.threads:
        if x.should and tr.succ(x).end == 'pending' and id(x) not in seen:
            errors.append('%s 0x%x: should resolve, pending, not reported' % (path, x.id))
    return errors, rep


def main():
    weft, paths = sys.argv[1], sys.argv[2:]
    n = fails = 0
    for p in paths:
        n += 1
        errors, rep = check(weft, p)
        verdicts = {}
        for e in rep['threads']:
            verdicts[e['verdict']] = verdicts.get(e['verdict'], 0) + 1
        summary = ', '.join('%d %s' % (c, v) for v, c in sorted(verdicts.items())) or 'nothing pending'
        if errors:
            fails += 1
            print('not ok %d - %s: %s' % (n, p, summary))
            for e in errors[:20]:
                print('# ' + e)
        else:
            print('ok %d - %s: %s' % (n, p, summary))
    print('1..%d' % n)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
