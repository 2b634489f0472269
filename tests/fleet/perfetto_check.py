#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""perfetto_check.py RAW FACTS - checks `weft export --format perfetto`,
as `protoc --decode_raw` reads it (RAW: its output; Perfetto's .proto
files are not at hand offline, so fields are checked by number: see
tools/perfetto.c), against `weft query --json`'s account of the trace
(FACTS: threads, arrows, labels, counters and samples, processes: one
JSON array a line).  Prints 'ok' and counts, or the differences (exit 1).
"""
import json
import re
import sys


def parse(text):
    """protoc's text as nested lists of (field, value | [children])."""
    root, stack = [], []
    cur = root
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line == '}':
            cur = stack.pop()
            continue
        m = re.match(r'^(\d+) \{$', line)
        if m:
            node = []
            cur.append((int(m.group(1)), node))
            stack.append(cur)
            cur = node
            continue
        m = re.match(r'^(\d+): (.*)$', line)
        if not m:
            raise ValueError('unexpected line: ' + line)
        v = m.group(2)
        if v.startswith('"'):
            v = bytes(v[1:-1], 'latin-1').decode('unicode_escape').encode('latin-1').decode('utf-8', 'replace')
        elif v.startswith('0x'):
            v = int(v, 16)
        else:
            v = int(v)
        cur.append((int(m.group(1)), v))
    return root


class Text(str):
    """A string protoc printed as a message (its bytes happened to
    parse as one: --decode_raw cannot tell): equal to any string."""
    def __eq__(self, other):
        return isinstance(other, str)

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = str.__hash__


# the string fields this checks: TrackDescriptor name, TrackEvent name
# and categories, ProcessDescriptor process_name
STRINGS = {2, 23, 22, 6}


def get(node, f, default=None):
    for k, v in node:
        if k == f:
            return Text('') if isinstance(v, list) and f in STRINGS else v
    return default


def all_of(node, f):
    return [v for k, v in node if k == f]


def main():
    tree = parse(open(sys.argv[1], encoding='latin-1').read())
    lines = [json.loads(l) for l in open(sys.argv[2]) if l.startswith('[')]
    threads, arrows, labels, counters, samples, procs = lines
    errs = []
    packets = [v for k, v in tree if k == 1]
    if len(packets) != len(tree):
        errs.append('a top-level field other than packet (1)')
    tracks, events = {}, []
    for i, p in enumerate(packets):
        if get(p, 10) != 1:
            errs.append('packet %d without trusted_packet_sequence_id 1' % i)
        if (get(p, 13) == 1) != (i == 0):
            errs.append('sequence_flags on packet %d' % i)
        td, te = get(p, 60), get(p, 11)
        if td is not None:
            tracks[get(td, 1)] = td
        elif te is not None:
            events.append((get(p, 8), te))
        else:
            errs.append('packet %d is neither a track nor an event' % i)
    # process tracks, one per process
    ptracks = {get(get(t, 3), 1): u for u, t in tracks.items() if get(t, 3)}
    if sorted(ptracks) != sorted(p['pid'] for p in procs):
        errs.append('process tracks %s for pids %s' % (sorted(ptracks), [p['pid'] for p in procs]))
    pid_of = {p['process']: p['pid'] for p in procs}
    # a track per thread under its process, named by its title
    by_name = {}
    for th in threads:
        u = (2 << 40) + th['thread'] + 1
        t = tracks.get(u)
        if t is None:
            errs.append('no track for %s' % th['title'])
            continue
        if get(t, 5) != ptracks.get(pid_of.get(th['process'])):
            errs.append('track of %s not under its process' % th['title'])
        if not th['root'] and get(t, 2) != th['title']:
            errs.append('track name %r for %r' % (get(t, 2), th['title']))
        if th['root'] and get(get(t, 4) or [], 2) is None:
            errs.append('OS thread %s without its tid' % th['title'])
    if len(tracks) != len(threads) + len(procs) + len(counters):
        errs.append('%d tracks for %d threads, %d processes, %d counters' % (len(tracks), len(threads), len(procs), len(counters)))
    # slices: each async thread's from its creation to its end, runs in it
    t1 = max(e[0] for e in events) if events else 0
    per = {}
    for ts, e in events:
        per.setdefault(get(e, 11), []).append((ts, e))
    base = None
    nflow = nterm = 0
    flows, terms = {}, {}
    for ts, e in events:
        for fid in all_of(e, 47):
            flows[fid] = (get(e, 11), ts, get(e, 23))
        for fid in all_of(e, 48):
            terms[fid] = (get(e, 11), ts, get(e, 23))
    for th in threads:
        if th['root']:
            continue
        u = (2 << 40) + th['thread'] + 1
        ev = per.get(u, [])
        begins = [(ts, e) for ts, e in ev if get(e, 9) == 1 and get(e, 23) == th['title']]
        if len(begins) != 1:
            errs.append('%d slices for %s' % (len(begins), th['title']))
            continue
        b = begins[0][0]
        if base is None:
            base = b - th['created']
        if b - base != th['created']:
            errs.append('slice of %s begins at %d, not %d' % (th['title'], b - base, th['created']))
        if get(begins[0][1], 22) != th['kind']:
            errs.append('category of %s' % th['title'])
        nb = sum(1 for _, e in ev if get(e, 9) == 1)
        ne = sum(1 for _, e in ev if get(e, 9) == 2)
        if nb != ne:
            errs.append('%s: %d begins, %d ends' % (th['title'], nb, ne))
        ends = [ts for ts, e in ev if get(e, 9) == 2]
        # a pending thread's slice ends at the trace's end: the last
        # timestamp of all
        want = th['ended'] if th['end'] != 'pending' else t1 - base
        if max(ends) - base != want:
            errs.append('slice of %s ends at %d, not %d' % (th['title'], max(ends) - base, want))
    # arrows: one flow each (self-arrows aside), from the actor's track
    names = {'create': 'created', 'read': 'read', 'read_failed': 'read failure', 'try_read': 'waited on (not ready)',
             'resolve': 'resolved', 'fail': 'failed', 'signal': 'signalled', 'become': 'became', 'cancel': 'cancelled'}
    want_flows = 0
    for a in arrows:
        if a['from_thread'] == a['to_thread']:
            continue
        want_flows += 1
        fid = a['arrow'] + 1
        by_to = a['kind'] in ('read', 'read_failed')
        actor = a['to_thread'] if by_to else a['from_thread']
        other = a['from_thread'] if by_to else a['to_thread']
        f, t = flows.get(fid), terms.get(fid)
        if not f or not t:
            errs.append('arrow %d has no flow' % a['arrow'])
            continue
        if f[0] != (2 << 40) + actor + 1 or t[0] != (2 << 40) + other + 1:
            errs.append('flow of arrow %d on the wrong tracks' % a['arrow'])
        if f[1] - base != a['t'] or t[1] - base != a['t'] or f[2] != names[a['kind']]:
            errs.append('flow of arrow %d: %s at %d' % (a['arrow'], f[2], f[1] - base))
    if len(flows) != want_flows or len(terms) != want_flows:
        errs.append('%d flows, %d ends for %d arrows' % (len(flows), len(terms), want_flows))
    # labels and notes as instants
    inst = [(get(e, 11), ts - base, get(e, 23), get(e, 22)) for ts, e in events
            if get(e, 9) == 3 and get(e, 22) in ('label', 'note')]
    want = [((2 << 40) + l['thread'] + 1, l['t'], l['text'], l['kind']) for l in labels]
    inst.sort(key=lambda x: (x[0], x[1], x[3]))
    want.sort(key=lambda x: (x[0], x[1], x[3]))
    if len(inst) != len(want) or any(a[0] != b[0] or a[1] != b[1] or a[3] != b[3] or not (a[2] == b[2])
                                     for a, b in zip(inst, want)):
        errs.append('labels differ: %s vs %s' % (inst[:3], want[:3]))
    # counters: their samples, on their tracks
    got = sorted((get(e, 11), ts - base, get(e, 30)) for ts, e in events if get(e, 9) == 4)
    want = sorted(((3 << 40) + s['counter'] + 1, s['t'], s['value']) for s in samples)
    if got != want:
        errs.append('%d counter values for %d samples' % (len(got), len(want)))
    if errs:
        for e in errs[:30]:
            print('#', e)
        return 1
    print('ok tracks=%d events=%d flows=%d labels=%d samples=%d' % (len(tracks), len(events), len(flows), len(inst), len(got)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
