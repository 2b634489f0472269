#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares `babeltrace2 --clock-cycles DIR` with `weft dump --cycles
--no-actor FILE`: the same events, with the same times, OS threads, names
and field values.  Prints one line per difference; exit 0 when equal
and not empty."""
import re
import sys


def split_top(s):
    """Splits 'a = 1, b = ( "x" : container = 2 ), c = "p, q"' at top-level
    commas."""
    out, depth, cur, i, q = [], 0, '', 0, False
    while i < len(s):
        c = s[i]
        if q:
            cur += c
            if c == '\\':
                cur += s[i + 1]
                i += 1
            elif c == '"':
                q = False
        elif c == '"':
            q = True
            cur += c
        elif c in '({[':
            depth += 1
            cur += c
        elif c in ')}]':
            depth -= 1
            cur += c
        elif c == ',' and depth == 0:
            out.append(cur.strip())
            cur = ''
        else:
            cur += c
        i += 1
    if cur.strip():
        out.append(cur.strip())
    return out


BT = re.compile(r'^\[(\d+)\] \([^)]*\) (?:\S+ )?(\w+): \{ (.*?) \}, \{ ?(.*?) ?\}$')
ENUM = re.compile(r'^\( "(.*)" : container = (\d+) \)$')


def bt_events(path):
    evs = []
    for line in open(path, encoding='utf-8', errors='surrogateescape'):
        line = line.rstrip('\n')
        m = BT.match(line)
        if not m:
            raise SystemExit('unparsed babeltrace2 line: ' + line)
        cycles, name, ctx, payload = m.groups()
        ctxd = dict(kv.split(' = ', 1) for kv in split_top(ctx))
        fields = []
        for kv in split_top(payload):
            k, v = kv.split(' = ', 1)
            e = ENUM.match(v)
            if e:
                # name 0 is "(none)" in the CTF metadata, "" in the dump
                v = '""' if e.group(2) == '0' else '"%s"' % e.group(1)
            if re.match(r'^0x[0-9A-Fa-f]+$', v):
                v = v.lower()  # babeltrace2 prints hex in upper case
            fields.append((k, v))
        evs.append((int(cycles), ctxd['os_tid'], name, tuple(fields)))
    return evs


DUMP = re.compile(r'^(\d+) #\d+/(\d+) (\w+)(.*)$')
KV = re.compile(r' (\w+)=("(?:[^"\\]|\\.)*"|\S+)')


def dump_events(path):
    evs = []
    for line in open(path, encoding='utf-8', errors='surrogateescape'):
        m = DUMP.match(line.rstrip('\n'))
        if not m:
            raise SystemExit('unparsed dump line: ' + line)
        cycles, tid, name, rest = m.groups()
        if name == 'loss':
            continue
        evs.append((int(cycles), tid, name, tuple(KV.findall(rest))))
    return evs


def main():
    bt, dump = bt_events(sys.argv[1]), dump_events(sys.argv[2])
    # Both merge streams by time; ties may be broken differently, so
    # compare as sorted lists.
    bt.sort()
    dump.sort()
    bad = 0
    if not bt or not dump:
        # (two empty outputs are equal, and prove nothing)
        print('no events: babeltrace2 %d, weft dump %d' % (len(bt), len(dump)))
        return 1
    if len(bt) != len(dump):
        print('babeltrace2 has %d events, weft dump %d' % (len(bt), len(dump)))
        bad += 1
    for a, b in zip(bt, dump):
        if a != b:
            print('babeltrace2: %r\nweft dump:   %r' % (a, b))
            bad += 1
            if bad > 10:
                break
    print('%d events compared, %d differences' % (len(bt), bad))
    return 1 if bad else 0


sys.exit(main())
