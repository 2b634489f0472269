# SPDX-License-Identifier: MIT
"""Reads `weft dump FILE` into async threads: kind, labels, creator, how
and by whom each ended, the OS threads it ran on, the phase of its first
run, the signals into it; and the events in order.  Shared by the loop
shims' checks (uv_check.py here, tests/event/, tests/glib/)."""
import re
import subprocess
import sys

LINE = re.compile(r'^(\S+) #(\d+)/(\d+) (\w+)(.*?)(?: by=(0x[0-9a-f]+))?$')
KV = re.compile(r' (\w+)=("(?:[^"\\]|\\.)*"|\S+)')


def load(weft, path):
    """(threads, events): threads by id, events as (name, fields, by, tid)."""
    out = subprocess.run([weft, 'dump', path], capture_output=True,
                         text=True, check=True).stdout
    threads = {}
    events = []
    phase = {}      # OS thread -> its loop's phase now, as the model reads it
    phased = set()  # OS threads that have marked a phase

    def th(i):
        return threads.setdefault(i, {'kind': None, 'labels': [],
                                      'creator': None, 'end': None,
                                      'by': None, 'runs': set(),
                                      'signals_from': [], 'phase': None})

    def ran(x, tid):
        """x begins a run on OS thread tid: the phase of its first run."""
        x['runs'].add(tid)
        if x['phase'] is None:
            x['phase'] = phase.get(tid, '')

    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        t, stream, tid, ev, rest, by = m.groups()
        f = {k: v.strip('"') for k, v in KV.findall(rest)}
        events.append((ev, f, by, tid))
        if ev == 'phase':
            phase[tid] = f['phase']
            phased.add(tid)
        elif ev == 'idle' and tid in phased:
            phase[tid] = f['reason']  # a loop waits in its poll phase
        if ev in ('create', 'create_label'):
            x = th(f['child'])
            x['kind'] = f['kind']
            x['creator'] = by
            if ev == 'create_label':
                x['labels'].append(f['label'])
        elif ev == 'fire':
            # target resolves and runs; it creates next, of its kind and label
            x = th(f['target'])
            if x['end'] is None:
                x['end'] = 'resolve'
                x['by'] = by
            ran(x, tid)
            y = th(f['next'])
            y['kind'] = x['kind']
            y['creator'] = f['target']
            y['labels'].append(x['labels'][-1] if x['labels'] else '')
        elif ev == 'label':
            th(f['thread'])['labels'].append(f['text'])
        elif ev in ('resolve', 'resolve_run', 'fail', 'cancel'):
            x = th(f['target'])
            if x['end'] is None:
                x['end'] = 'fail:' + f['message'] if ev == 'fail' else \
                    'resolve' if ev == 'resolve_run' else ev
                x['by'] = by
            if ev == 'resolve_run':
                ran(x, tid)
        elif ev == 'run':
            ran(th(f['thread']), tid)
        elif ev == 'signal':
            th(f['receiver'])['signals_from'].append((by, tid))
    return threads, events


class Checks:
    """Finding threads by label, and failing with a message."""

    def __init__(self, threads):
        self.threads = threads

    def find(self, pattern):
        r = [i for i, x in self.threads.items()
             if any(re.search(pattern, l) for l in x['labels'])]
        if not r:
            sys.exit('no thread labelled /%s/' % pattern)
        return r

    def one(self, pattern):
        r = self.find(pattern)
        if len(r) != 1:
            sys.exit('%d threads labelled /%s/' % (len(r), pattern))
        return r[0]

    def first(self, pattern):
        """The first activation of a handle (later ones are created by it)."""
        return min(self.find(pattern), key=lambda i: int(i, 16))

    @staticmethod
    def check(cond, msg):
        if not cond:
            sys.exit('check failed: ' + msg)
