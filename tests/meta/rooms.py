#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""rooms.py LIBWEFT_READ_A - the rooms of src/read, as the linker sees
them: each object of the static library a room, a call of a name that
another room defines an arrow (`nm`: what each object defines and what it
leaves undefined).  TAP.

Rules (src/read/internal.h, struct weft__reader_ops; HACKING.md):
  - no circle: rooms that call each other in a loop are one design, not
    several;
  - api.c, the public calls on a reader, calls no room of the reader: it
    goes through the source's table;
  - the ring's rooms reach no room of the merge: a merge reads its rings
    through their table, never the other way round.
"""
import collections
import os
import subprocess
import sys

RING = ['api', 'diag', 'reader', 'header', 'packets', 'decode', 'prefetch',
        'kept', 'sys-posix', 'utf8', 'compact']
MERGE = ['merge', 'made', 'remap', 'msgs', 'procs', 'clocks', 'follow',
         'open', 'runs-open', 'runs-disk', 'copy']


def rooms(lib):
    out = subprocess.run(['nm', '-A', lib], capture_output=True, text=True,
                         check=True).stdout
    defs, uses = {}, collections.defaultdict(set)
    for line in out.splitlines():
        # LIB:MEMBER:VALUE TYPE NAME, or LIB:MEMBER:        U NAME
        try:
            _, member, rest = line.split(':', 2)
        except ValueError:
            continue
        if not member.endswith('.c.o') or member.startswith('src_'):
            continue  # (src/common, linked whole: not a room of src/read)
        room = member[:-len('.c.o')]
        f = rest.split()
        if len(f) == 2 and f[0] == 'U':
            uses[room].add(f[1])
        elif len(f) == 3 and f[1] in 'TDBRVW':
            defs[f[2]] = room
        uses.setdefault(room, set())
    g = {r: collections.defaultdict(set) for r in uses}
    for r, names in uses.items():
        for n in names:
            d = defs.get(n)
            if d is not None and d != r:
                g[r][d].add(n)
    return g


def circles(g):
    """Tarjan's strongly connected components of more than one room."""
    index, low, stack, on, out = {}, {}, [], set(), []
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            c = []
            while True:
                w = stack.pop()
                on.discard(w)
                c.append(w)
                if w == v:
                    break
            if len(c) > 1:
                out.append(sorted(c))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def reach(g, start):
    """Rooms reachable from `start`, each with the path that reaches it."""
    seen = {start: [start]}
    work = [start]
    while work:
        v = work.pop()
        for w in sorted(g[v]):
            if w not in seen:
                seen[w] = seen[v] + [w]
                work.append(w)
    return seen


def main():
    lib = sys.argv[1]
    if not os.path.exists(lib):
        # (meson builds it before the test: its absence is a fault)
        print('not ok 1 - %s was built\n1..1' % lib)
        return 1
    g = rooms(lib)
    n = fails = 0

    def t(ok, what, detail=()):
        nonlocal n, fails
        n += 1
        print('%s %d - %s' % ('ok' if ok else 'not ok', n, what))
        if not ok:
            fails += 1
            for d in detail:
                print('# ' + d)

    for r in RING + MERGE:
        t(r in g, 'room %s.c is in the library' % r,
          ['the rule names a room that is gone: update tests/meta/rooms.py'])
    cs = circles(g)
    detail = []
    for c in cs:
        detail.append('circle: ' + ', '.join(c))
        for a in c:
            for b in c:
                if b in g[a]:
                    detail.append('  %s -> %s: %s' %
                                  (a, b, ' '.join(sorted(g[a][b]))))
    t(not cs, 'the rooms of src/read call each other in no loop', detail)
    api = g.get('api', {})
    t(not api, 'api.c calls no room of the reader (only the tables)',
      ['api -> %s: %s' % (b, ' '.join(sorted(api[b]))) for b in api])
    bad = []
    for r in RING:
        if r not in g:
            continue
        for m, path in reach(g, r).items():
            if m in MERGE:
                bad.append(' -> '.join(path) + ': ' + ' '.join(
                    sorted(g[path[-2]][m])))
    more = ['... and %d more' % (len(bad) - 20)] if len(bad) > 20 else []
    t(not bad, "the ring's rooms reach no room of the merge",
      bad[:20] + more)
    print('1..%d' % n)
    print('# %d passed, %d failed, 0 skipped' % (n - fails, fails))
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
