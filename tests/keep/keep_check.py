#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# keep_check.py - checks the numbered events (tests/keep/numbered.c) that
# `weft dump` of a kept directory gives back:
#
#   keep_check.py DUMP EVENTS THREADS MODE [LOST]
#
# Every counter nK must come back in order, each value once (no
# duplicate, never backwards).  MODE says what may be missing:
#   all     every value 0..EVENTS-1, and no loss reported;
#   suffix  the values are one run, up to EVENTS-1 (the oldest deleted),
#           and each stream whose values do not start at 0 reports a loss
#           before its first event; LOST, if given, is the packets the
#           reader must report lost in all (the deleted ones);
#   prefix  the values are one run from 0 (a program killed: its end
#           missing), with no loss reported;
#   gaps    values may be missing anywhere, but each gap comes after a
#           loss reported in its stream (nothing lost silently).
# Prints what is wrong and exits 1, or prints a summary and exits 0.
import os
import re
import sys

dump, events, threads, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
# (WEFT_KEEP_LOSSY: a sanitizer build, whose keeper is several times
# slower and may fall behind a writer at full speed: every loss must be
# reported, none need be absent)
if os.environ.get('WEFT_KEEP_LOSSY') and mode in ('all', 'prefix'):
    mode = 'gaps'
want_lost = int(sys.argv[5]) if len(sys.argv) > 5 else None
ctr = re.compile(r'^\S+ #(\d+)/\d+ counter_set counter="n(\d+)" value=(-?\d+)')
loss = re.compile(r'^\S+ #(\d+)/\d+ loss packets=(\d+)')
vals = {k: [] for k in range(threads)}
stream_of = {}
lost_before = {}  # counter -> a loss was reported in its stream since its last value
pending_loss = {}  # stream -> a loss seen, not yet followed by a value
lost_total = 0
bad = []
with open(dump, encoding='utf-8', errors='replace') as f:
    for line in f:
        m = loss.match(line)
        if m:
            s, p = int(m.group(1)), int(m.group(2))
            pending_loss[s] = True
            lost_total += p
            continue
        m = ctr.match(line)
        if not m:
            continue
        s, k, v = int(m.group(1)), int(m.group(2)), int(m.group(3))
        if k not in vals:
            bad.append('unknown counter n%d' % k)
            continue
        if stream_of.setdefault(k, s) != s:
            bad.append('counter n%d on two streams' % k)
        prev = vals[k][-1] if vals[k] else -1
        if v <= prev:
            bad.append('n%d: %d after %d (a duplicate, or backwards)' % (k, v, prev))
        elif v != prev + 1:
            if mode == 'all' or (mode in ('suffix', 'prefix') and prev >= 0):
                bad.append('n%d: %d..%d missing' % (k, prev + 1, v - 1))
            elif not pending_loss.get(s):
                bad.append('n%d: %d..%d missing and no loss reported before' % (k, prev + 1, v - 1))
        pending_loss[s] = False
        vals[k].append(v)
        if len(bad) > 20:
            break
for k in range(threads):
    v = vals[k]
    if not v:
        if mode != 'gaps':
            bad.append('n%d: no value came back' % k)
        continue
    if mode in ('all', 'prefix') and v[0] != 0:
        bad.append('n%d: starts at %d' % (k, v[0]))
    if mode in ('all', 'suffix') and v[-1] != events - 1:
        bad.append('n%d: ends at %d, not %d' % (k, v[-1], events - 1))
if mode in ('all', 'prefix') and lost_total:
    bad.append('%d packets reported lost' % lost_total)
if want_lost is not None and lost_total != want_lost:
    bad.append('%d packets reported lost, %d deleted' % (lost_total, want_lost))
if bad:
    print('\n'.join(bad[:20]))
    sys.exit(1)
print('ok: %s; lost %d packets' % (', '.join('n%d %d..%d (%d)' % (
    k, vals[k][0], vals[k][-1], len(vals[k])) for k in range(threads) if vals[k]), lost_total))
