#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a trace of examples/node/http.js.  node_check.py WEFT FILE."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'uv'))
from threads import Checks, load  # noqa: E402

W, FILE = sys.argv[1:3]
threads, events = load(W, FILE)
_c = Checks(threads)
find, one, first, check = _c.find, _c.one, _c.first, _c.check
main_tid = events[0][3]


def kind(k, pattern=''):
    return [i for i, x in threads.items() if x['kind'] == k and
            any(re.search(pattern, l) for l in x['labels'] or [''])]


labels = [l for x in threads.values() for l in x['labels']]
check(not [l for l in labels if '_Z' in l], 'a mangled name: %r' % [l for l in labels if '_Z' in l][:3])
check(any('-> node::' in l for l in labels), 'names of node:: callbacks')
timers = [i for i in kind('uv_timer_t') if threads[i]['end'] == 'resolve']
check(timers, 'a timer fired')
reads = [i for i in kind('uv_fs_t', r'^open .*/examples/node/http\.js ') if threads[i]['end'] == 'resolve']
check(reads, 'the file opened by fs.readFile: %r' % [threads[i]['labels'] for i in kind('uv_fs_t')][:5])
work = [i for i in kind('uv_work_t') if threads[i]['end'] == 'resolve']
check(work and any(main_tid in threads[i]['runs'] and len(threads[i]['runs']) == 2 for i in work),
      'threadpool work on a worker, then its callback on the loop: %r' % [threads[i] for i in work][:2])
conn = [i for i in kind('connection') if threads[i]['end'] == 'resolve']
check(conn, 'a connection accepted')
sreads = [i for i in kind('uv_stream_t read') if threads[i]['end'] == 'resolve']
check(len(sreads) >= 6, 'the requests and responses read, three each way: %d' % len(sreads))
writes = [i for i in kind('uv_try_write') + kind('uv_write_t') if threads[i]['end'] == 'resolve']
check(len(writes) >= 6, 'the requests and responses written: %d' % len(writes))
check(any(threads[w]['creator'] in sreads for w in writes),
      'a response written by the read of its request')
print('node: %d threads checked' % len(threads))
