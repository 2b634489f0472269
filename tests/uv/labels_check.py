#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reads `weft dump` of `uv-labels 3000` on standard input: every write has
exactly its label ("write K bytes to fd F -> on_written", K = 1, 2, ...),
given as a name (create_label) or as text (create + label).  Argument:
`names` (the trace's name table fills: both forms) or `arena` (the shim's
label arena is limited to 4 KiB: few names).  For test-uv.sh."""
import re
import sys

mode = sys.argv[1]
labels = {}   # write id -> its labels
fused = split = 0
order = []
for line in sys.stdin:
    m = re.search(r' create_label child=(0x[0-9a-f]+) kind="uv_write_t" label="([^"]*)"', line)
    if m:
        labels.setdefault(m[1], []).append(m[2]); order.append(m[1]); fused += 1
        continue
    m = re.search(r' create child=(0x[0-9a-f]+) kind="uv_write_t"', line)
    if m:
        labels.setdefault(m[1], []); order.append(m[1]); split += 1
        continue
    m = re.search(r' label thread=(0x[0-9a-f]+) truncated=0 text="([^"]*)"', line)
    if m and m[1] in labels:
        labels[m[1]].append(m[2])
assert len(order) == 3000, len(order)
for k, i in enumerate(order, 1):
    l = labels[i]
    assert len(l) == 1 and re.fullmatch(r'write %d bytes to fd \d+ -> on_written' % k, l[0]), (k, l)
if mode == 'names':   # the name table filled: both forms are there
    assert fused > 1000 and split > 1000, (fused, split)
else:                 # 4 KiB of labels: about a hundred as names
    assert fused < 200 and split > 2800, (fused, split)
print('labels_check %s: %d as names, %d as text: ok' % (mode, fused, split))
