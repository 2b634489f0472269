#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a Chrome trace-event JSON file as Perfetto and chrome://tracing
read it: structure, b/e pairing and nesting, flows with both ends and ids
used once, counters with values.  Usage: chrome_check.py FILE
[--threads N] [--flows N] [--counters N].  Exit 0 when it is sound."""
import json
import sys


def fail(msg):
    print('chrome_check: ' + msg)
    sys.exit(1)


args = sys.argv[1:]
path = args.pop(0)
want = {}
while args:
    k = args.pop(0).lstrip('-')
    want[k] = int(args.pop(0))

doc = json.load(open(path, encoding='utf-8'))
evs = doc['traceEvents'] if isinstance(doc, dict) else doc
for i, e in enumerate(evs):
    if 'ph' not in e or 'pid' not in e:
        fail('event %d lacks ph or pid: %r' % (i, e))
    if e['ph'] != 'M' and not isinstance(e.get('ts'), (int, float)):
        fail('event %d has no numeric ts: %r' % (i, e))
    if e['ph'] in 'bne' and ('id' not in e or 'cat' not in e or 'name' not in e):
        fail('async event %d lacks id/cat/name: %r' % (i, e))

# b/e: per (pid, cat, id), in time order (file order breaks ties), an e
# closes the innermost open b of the same name; runs nest in their slice.
order = sorted(range(len(evs)), key=lambda i: (evs[i].get('ts', 0), i))
stacks, slices, outer = {}, 0, {}
for i in order:
    e = evs[i]
    if e['ph'] not in 'bne':
        continue
    key = (e['pid'], e['cat'], e['id'])
    st = stacks.setdefault(key, [])
    if e['ph'] == 'b':
        if e['name'] != 'run' and st:
            fail('slice %r begins inside another with the same id' % (key,))
        if e['name'] == 'run' and not st:
            fail('run outside its thread slice: %r' % e)
        st.append(e['name'])
        if e['name'] != 'run':
            slices += 1
    elif e['ph'] == 'e':
        if not st or st[-1] != e['name']:
            fail('unmatched e %r (open: %r)' % (e, st))
        st.pop()
    elif e['ph'] == 'n' and not st:
        fail('instant outside its slice: %r' % e)
for key, st in stacks.items():
    if st:
        fail('unclosed %r: %r' % (key, st))

# flows: each bind_id once out, once in
flows = {}
for e in evs:
    if 'bind_id' in e:
        d = flows.setdefault(e['bind_id'], [0, 0])
        if e.get('flow_out') is True:
            d[0] += 1
        elif e.get('flow_in') is True:
            d[1] += 1
        else:
            fail('bind_id without a direction: %r' % e)
for fid, (o, i) in flows.items():
    if (o, i) != (1, 1):
        fail('flow %s has %d out and %d in ends' % (fid, o, i))

counters = set()
for e in evs:
    if e['ph'] == 'C':
        if not e.get('args'):
            fail('counter without args: %r' % e)
        counters.add(e['name'])

names = [e for e in evs if e['ph'] == 'M']
if not any(e['name'] == 'process_name' for e in names):
    fail('no process_name')
got = {'threads': slices, 'flows': len(flows), 'counters': len(counters)}
for k, v in want.items():
    if got[k] != v:
        fail('%s: %d, expected %d' % (k, got[k], v))
print('chrome_check: %d events, %d async slices, %d flows, %d counters: ok'
      % (len(evs), slices, len(flows), len(counters)))
