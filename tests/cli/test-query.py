#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test-query.py - `weft query`: SQL over a trace (docs/query.md).

The tables against `weft dump`, the standard views against `weft stats
--json` and `weft why --json` (exact counts and durations) on the example
traces, a multi-process run, a server-shaped trace and a damaged one
(losses as rows); pushdown (the rows a one-range query visits, counted);
the output formats; hostile SQL (syntax errors with a caret, writes,
ATTACH, extensions, VACUUM INTO, pragmas, a statement that never ends
stopped by --timeout and by Ctrl-C: clear errors, nothing written); a
live ring; the prompt and its history.  TAP output.
"""
import json
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

W = os.environ['WEFT_BIN']
BUILD = os.environ['WEFT_BUILD']
EX = os.path.join(BUILD, 'examples')
GEN = os.path.join(BUILD, 'bench', 'server-gen')
T = tempfile.mkdtemp(prefix='weft-query.')
ENV = dict(os.environ)
for k in ('WEFT_FILE', 'WEFT_SIZE', 'WEFT_MODE', 'WEFT_CLOCK'):
    ENV.pop(k, None)
ENV['HOME'] = T
REC_ASAN = ((os.environ.get('ASAN_OPTIONS', '') + ':')
            if os.environ.get('ASAN_OPTIONS') else '') + \
    'verify_asan_link_order=0:detect_leaks=0'


class Fail(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Fail(what)


def eq(a, b, what):
    if a != b:
        raise Fail('%s: %r != %r' % (what, a, b))


def run(args, timeout=120, **kw):
    return subprocess.run(args, capture_output=True, text=True,
                          timeout=timeout, env=kw.pop('env', ENV), **kw)


def query(trace, sql, *opts, status=0):
    """Rows of each statement (--json), as lists of dicts."""
    traces = trace if isinstance(trace, list) else [trace]
    p = run([W, 'query', '--json', *opts, *traces, sql])
    if p.returncode != status:
        raise Fail('weft query %s %r: exit %d\n%s' %
                   (traces, sql, p.returncode, p.stderr))
    return [json.loads(line) for line in p.stdout.splitlines() if line]


def one(trace, sql):
    return query(trace, sql)[0]


def rec(name, *cmd, size=None):
    env = dict(ENV)
    env['WEFT_FILE'] = os.path.join(T, name + '.weft')
    if size:
        env['WEFT_SIZE'] = size
    subprocess.run(list(cmd), env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=120)
    path = os.path.join(T, name + '.weft')
    check(os.path.getsize(path) > 0, 'no trace ' + name)
    return path


TRACES = {}


def traces():
    """The traces the comparisons run on (made once)."""
    if TRACES:
        return TRACES
    TRACES['arp-bad'] = rec('arp-bad', EX + '/arp', 'bad')
    TRACES['arp-good'] = rec('arp-good', EX + '/arp', 'good')
    for m in ('deadlock', 'never', 'failed'):
        TRACES['verdicts-' + m] = rec('verdicts-' + m, EX + '/verdicts', m)
    TRACES['all-events'] = rec('all-events', EX + '/all-events', '3')
    # damaged: a ring too small for what was written (discard mode)
    TRACES['truncated'] = rec('truncated', EX + '/verdicts', 'truncated',
                              size='64K')
    if os.access(GEN, os.X_OK):
        p = os.path.join(T, 'server.weft')
        subprocess.run([GEN, '-n', '30000', '-o', p], check=True,
                       stdout=subprocess.DEVNULL, timeout=120)
        TRACES['server'] = p
    # a run of several processes, read as one trace
    d = os.path.join(T, 'run')
    env = dict(ENV)
    env['ASAN_OPTIONS'] = REC_ASAN
    p = subprocess.run([W, 'record', '-o', d, '--', 'sh', '-c',
                        "'%s' >/dev/null; '%s' 2 >/dev/null; "
                        "'%s' bad >/dev/null" %
                        (EX + '/forker', EX + '/all-events', EX + '/arp')],
                       env=env, capture_output=True, text=True, timeout=120)
    check(os.path.isdir(d), 'weft record: ' + p.stderr)
    TRACES['run'] = d
    # a kept directory (docs/keep.md) of a ring that rotated: three chunks
    # or more (a chunk a second: a chunk's size in bytes depends on how
    # well the packed layout compresses); and a copy with a middle chunk
    # gone (a gap between chunks)
    TRACES['kept'], TRACES['kept-gap'] = kept()
    return TRACES


def kept():
    d = os.path.join(T, 'keeprun')
    k = os.path.join(T, 'kept')
    env = dict(ENV)
    env['ASAN_OPTIONS'] = REC_ASAN
    p = subprocess.run([W, 'record', '-o', d, '--keep', k, '--size', '256K',
                        '--chunk', '1s', '--', EX + '/ticker', '5'],
                       env=env, capture_output=True, text=True, timeout=120)
    chunks = sorted(f for f in os.listdir(k) if f.endswith('.ring.zst')) \
        if os.path.isdir(k) else []
    check(len(chunks) >= 3, 'weft record --keep: %d chunks: %s' %
          (len(chunks), p.stderr))
    # the ring itself overwrote its start: the directory holds more
    ring = one(d, 'SELECT events FROM trace')[0]['events']
    whole = one(k, 'SELECT events, packets_lost FROM trace')[0]
    check(whole['events'] > ring and whole['packets_lost'] == 0,
          'the kept directory holds what the ring lost (setup): %d, %s' %
          (ring, whole))
    g = os.path.join(T, 'kept-gap')
    shutil.copytree(k, g)
    os.unlink(os.path.join(g, chunks[len(chunks) // 2]))
    return k, g


def stats(trace):
    t = trace if isinstance(trace, list) else [trace]
    p = run([W, 'stats', '--json', *t])
    check(p.returncode in (0, 1), 'stats: ' + p.stderr)
    return json.loads(p.stdout)


def none(v):
    """stats says -1 where SQL says NULL."""
    return -1 if v is None else v


def groups_equal(sql_rows, groups, keyname, what):
    got = {}
    for r in sql_rows:
        got[r[keyname]] = (r['count'], r['pending'], r['failed'],
                           none(r['p50']), none(r['p90']), none(r['p99']),
                           none(r['max']), r['run_p50'], r['run_p90'],
                           r['run_p99'], r['run_max'])
    want = {}
    for g in groups:
        L, R = g['lifetime_ns'], g['run_ns']
        want[g['key']] = (g['count'], g['pending'], g['failed'], L['p50'],
                          L['p90'], L['p99'], L['max'], R['p50'], R['p90'],
                          R['p99'], R['max'])
    eq(got, want, what)
    # the same order: most frequent first, ties by key
    eq([r[keyname] for r in sql_rows], [g['key'] for g in groups],
       what + ' (order)')


# ---- the cases ----

def t_views_vs_stats():
    n = 0
    for name, tr in traces().items():
        s = stats(tr)
        rows = query(tr, 'SELECT * FROM latency_by_kind; '
                     'SELECT * FROM latency_by_label; '
                     'SELECT * FROM trace; '
                     'SELECT o.tid, o.name, o.busy, o.idle FROM '
                     'os_threads o ORDER BY o.os_thread; '
                     'SELECT o.tid AS tid, p.name AS phase, p.count, '
                     'p.total, p.p50, p.p90, p.p99, p.max FROM phase_stats '
                     'p JOIN os_threads o USING (os_thread); '
                     'SELECT * FROM counters ORDER BY counter')
        kinds, labels, trace, ost, ph, ctr = rows
        check(len(s['kinds']) > 0, name + ': no kinds (setup)')
        groups_equal(kinds, s['kinds'], 'kind', name + ' kinds')
        groups_equal(labels, s['labels'], 'label', name + ' labels')
        eq(trace[0]['threads'], s['threads'], name + ' threads')
        eq(trace[0]['events'], s['events'], name + ' events')
        eq(trace[0]['duration'], s['duration_ns'], name + ' duration')
        eq([(o['tid'], o['name'], o['busy'], o['idle']) for o in ost],
           [(o['tid'], o['name'], o['busy_ns'], o['idle_ns'])
            for o in s['os_threads']], name + ' os_threads')
        eq(sorted((p['tid'], p['phase'], p['count'], p['total'], p['p50'],
                   p['p90'], p['p99'], p['max']) for p in ph),
           sorted((p['tid'], p['phase'], p['count'], p['total_ns'],
                   p['duration_ns']['p50'], p['duration_ns']['p90'],
                   p['duration_ns']['p99'], p['duration_ns']['max'])
                  for p in s['loop_phases']), name + ' phases')
        eq([(c['name'], c['samples'], c['min'], c['max'], c['last'])
            for c in ctr],
           [(c['name'], c['samples'], c['min'], c['max'], c['last'])
            for c in s['counters']], name + ' counters')
        for k in ('packets_lost', 'packets_torn', 'packets_corrupt',
                  'events_discarded', 'events_nested', 'texts_truncated'):
            eq(trace[0][k], s['losses'][k], name + ' ' + k)
        n += 1
    check('server' not in traces() or
          len(stats(traces()['server'])['loop_phases']) == 4,
          'the server trace has a loop (setup)')


def t_slowest_vs_stats():
    """The slowest request of each kind is stats' max; requests' latency
    is ended - created, NULL while pending."""
    for name, tr in traces().items():
        s = stats(tr)
        rows = one(tr, 'SELECT kind, max(latency) AS m, '
                   'sum(latency IS NULL) AS pend, '
                   'sum(latency != ended - created) AS bad FROM requests '
                   'GROUP BY kind')
        want = {g['key']: (none(g['lifetime_ns']['max']), g['pending'])
                for g in s['kinds']}
        eq({r['kind']: (none(r['m']), r['pend']) for r in rows}, want,
           name + ' slowest')
        check(all(not r['bad'] for r in rows), name + ': latency')
        top = one(tr, 'SELECT latency FROM slowest_requests LIMIT 1')
        lives = [g['lifetime_ns']['max'] for g in s['kinds']]
        eq(top[0]['latency'] if top else -1, max(lives + [-1]),
           name + ' top')


def why_json(tr, *args):
    t = tr if isinstance(tr, list) else [tr]
    p = run([W, 'why', '--json', *args, *t])
    check(p.returncode in (0, 1), 'why: ' + p.stderr)
    return json.loads(p.stdout)


def t_verdicts_vs_why():
    seen = set()
    for name, tr in traces().items():
        for all_ in ((), ('--all',)):
            w = why_json(tr, *all_)
            cond = '' if all_ else 'AND v.should_resolve'
            rows = one(tr, 'SELECT t.id, t.incarnation, v.verdict, v.fault, '
                       'v.chain_length FROM verdicts v JOIN threads t USING '
                       '(thread) WHERE v.verdict != \'ok\' %s' % cond)
            eq(sorted((r['id'], r['incarnation'], r['verdict'],
                       bool(r['fault']), r['chain_length']) for r in rows),
               sorted((x['id'], x['incarnation'], x['verdict'], x['fault'],
                       len(x['chain'])) for x in w['threads']),
               name + ' verdicts' + ' '.join(all_))
            cnt = one(tr, 'SELECT count(*) AS n FROM verdicts v WHERE 1 %s'
                      % cond)[0]['n']
            eq(cnt, w['checked'], name + ' checked')
            f = one(tr, 'SELECT count(*) AS n FROM faults')[0]['n']
            if not all_:
                eq(f, w['faults'], name + ' faults')
            seen.update(x['verdict'] for x in w['threads'])
    check({'lost wake-up', 'deadlock', 'truncated'} <= seen,
          'verdicts seen (setup): %s' % seen)


def t_why_chain_and_path():
    tr = traces()['arp-bad']
    w = why_json(tr)['threads'][0]
    rows = one(tr, "SELECT c.step, t.id, c.waits_since, c.verdict FROM "
               "why_chain((SELECT thread FROM threads WHERE label = 'main')) "
               "c JOIN threads t USING (thread) ORDER BY c.step")
    eq([(r['id'], r['waits_since']) for r in rows],
       [(x['id'], x.get('waits_since_ns')) for x in w['chain']], 'chain')
    eq(rows[0]['verdict'], 'lost wake-up', 'verdict')
    # the critical path: weft why --path --json's segments, row by row
    p = run([W, 'why', '--json', '--path', 'main', tr])
    pj = json.loads(p.stdout)
    segs = one(tr, "SELECT c.depth, c.t0, c.t1, c.state, t.id FROM "
               "critical_path((SELECT thread FROM threads WHERE label = "
               "'main')) c JOIN threads t USING (thread)")
    check(len(segs) > 3, 'segments (setup)')
    eq([(x['depth'], x['t0'], x['t1'], x['state'], x['id']) for x in segs],
       [(x['depth'], x['t0_ns'], x['t1_ns'], x['state'], x['thread']['id'])
        for x in pj['segments']], 'path segments')
    tot = one(tr, "SELECT state, sum(dur) AS d FROM critical_path((SELECT "
              "thread FROM threads WHERE label = 'main')) WHERE depth = 0 "
              "GROUP BY state")
    want = {k: v for k, v in pj['totals_ns'].items() if v}
    eq({r['state']: r['d'] for r in tot}, want, 'path totals')


def t_chain_function():
    tr = traces()['arp-bad']
    rows = one(tr, "SELECT t.label, c.subject, c.before, c.after FROM "
               "chain((SELECT thread FROM threads WHERE label = "
               "'TCP connect'), 1) c JOIN threads t USING (thread) ORDER BY "
               "c.thread")
    eq([(r['label'], r['subject'], r['before'], r['after']) for r in rows],
       [('main', 0, 1, 1), ('TCP connect', 1, 0, 0),
        ('ARP response', 0, 1, 1), ('ring.write', 0, 1, 1)], 'chain depth 1')
    # depth 0 (all) reaches further than depth 1
    n1 = one(tr, "SELECT count(*) AS n FROM chain(3, 1)")[0]['n']
    n0 = one(tr, "SELECT count(*) AS n FROM chain(3, 0)")[0]['n']
    check(n0 > n1, 'chain(3, 0) %d <= chain(3, 1) %d' % (n0, n1))
    p = run([W, 'query', tr, 'SELECT * FROM chain(99999, 1)'])
    eq(p.returncode, 1, 'bad thread status')
    check('chain: the first argument must be a thread' in p.stderr,
          p.stderr)


def t_pending_at():
    """pending_at(t): created at or before t, not ended by then; checked
    against the threads table at every distinct moment of the trace."""
    for name in ('arp-bad', 'verdicts-deadlock', 'server'):
        tr = traces().get(name)
        if not tr:
            continue
        moments = one(tr, 'SELECT DISTINCT created AS t FROM threads UNION '
                      'SELECT ended FROM threads WHERE ended IS NOT NULL '
                      'ORDER BY 1')
        ts = [m['t'] for m in moments]
        if len(ts) > 40:
            ts = ts[::len(ts) // 40]
        for t in ts + [ts[-1] + 1, -10**15]:
            a = one(tr, 'SELECT thread FROM pending_at(%d) ORDER BY 1' % t)
            b = one(tr, 'SELECT thread FROM threads WHERE NOT root AND '
                    'created <= %d AND (ended IS NULL OR ended > %d) ORDER '
                    'BY 1' % (t, t))
            eq(a, b, '%s pending_at(%d)' % (name, t))


def t_tables_vs_dump():
    """Rows against the events weft dump prints: a label row per label
    and note event, a run per switch, a loss row per loss."""
    for name in ('all-events', 'truncated', 'arp-bad', 'kept', 'kept-gap'):
        tr = traces()[name]
        d = run([W, 'dump', tr]).stdout.splitlines()
        ev = []
        for l in d:
            f = l.split(' ', 3)
            if len(f) > 2 and f[2] in ('label', 'note'):
                text = l.split(' text="', 1)[1].rsplit('" by=', 1)[0]
                ev.append((round(float(f[0]) * 1e9), f[2], text))
        losses = sum(1 for l in d if ' loss ' in l)
        r = query(tr, "SELECT t, kind, text FROM labels; "
                  "SELECT count(*) AS n FROM losses")
        rows = [(x['t'], x['kind'], x['text']) for x in r[0]]
        check(len(ev) > 0 or name == 'truncated', name + ': labels (setup)')
        # every label and note event is a row at its time (a row more
        # for a create_label); notes one to one
        for e in ev:
            check(any(abs(x[0] - e[0]) <= 1 and x[1:] == e[1:]
                      for x in rows), '%s: %s not a row' % (name, e))
        eq(sum(1 for x in rows if x[1] == 'note'),
           sum(1 for e in ev if e[1] == 'note'), name + ' notes')
        eq(r[1][0]['n'], losses, name + ' losses')
    # the damaged trace's losses are rows, with their packets
    tr = traces()['truncated']
    r = one(tr, 'SELECT count(*) AS n, sum(events) AS ev, sum(packets) AS '
            'pk FROM losses')[0]
    t = one(tr, 'SELECT * FROM trace')[0]
    check(r['n'] > 0, 'the damaged trace has losses (setup)')
    eq(r['ev'], t['events_discarded'], 'losses: events')
    eq(r['pk'], t['packets_lost'] + t['packets_torn'] + t['packets_corrupt'],
       'losses: packets')


def t_counts_vs_dump():
    """Each table's rows against the events weft dump prints: an arrow per
    interaction event, a sample per counter event, an interval per span,
    idle period and pause."""
    for name in ('all-events', 'server', 'verdicts-deadlock', 'arp-bad',
                 'kept', 'kept-gap'):
        tr = traces().get(name)
        if not tr:
            continue
        ev = {}
        idle_now = {}  # stream -> idle (its resume not seen yet)
        for l in run([W, 'dump', tr]).stdout.splitlines():
            f = l.split(' ', 3)
            if len(f) > 2:
                ev[f[2]] = ev.get(f[2], 0) + 1
                # an idle period begins at an idle of a stream that is
                # not idle already (its resume lost in a gap: one period)
                if f[2] == 'idle' and not idle_now.get(f[1]):
                    ev['idle-begins'] = ev.get('idle-begins', 0) + 1
                if f[2] in ('idle', 'resume'):
                    idle_now[f[1]] = f[2] == 'idle'
        r = query(tr, "SELECT kind, count(*) AS n FROM arrows GROUP BY kind; "
                  "SELECT count(*) AS n FROM samples; SELECT count(*) AS n "
                  "FROM spans; SELECT count(*) AS n FROM idle; SELECT "
                  "count(*) AS n FROM pauses")
        arrows = {x['kind']: x['n'] for x in r[0]}
        e = lambda *k: sum(ev.get(x, 0) for x in k)
        check(e('create') > 0, name + ': events (setup)')
        for kind, events in (('signal', ('signal',)),
                             ('try_read', ('try_read',)),
                             ('fail', ('fail',)), ('cancel', ('cancel',)),
                             ('become', ('becomes',)),
                             ('create', ('create', 'create_label', 'fire'))):
            eq(arrows.get(kind, 0), e(*events), '%s: %s arrows' %
               (name, kind))
        eq(arrows.get('read', 0) + arrows.get('read_failed', 0), e('read'),
           name + ': reads')
        eq(r[1][0]['n'], e('counter_add', 'counter_set'), name + ' samples')
        eq(r[2][0]['n'], e('span_begin'), name + ' spans')
        eq(r[3][0]['n'], e('idle-begins'), name + ' idle')
        eq(r[4][0]['n'], e('pause'), name + ' pauses')


def t_processes_run():
    """A run of three programs (and a shell): every process a row, its
    OS threads and threads summed per process."""
    tr = traces()['run']
    p = one(tr, 'SELECT * FROM processes ORDER BY process')
    comms = [x['comm'] for x in p]
    for c in ('forker', 'all-events', 'arp'):
        check(c in comms, '%s not in %s' % (c, comms))
    s = one(tr, 'SELECT * FROM process_summary')
    t = one(tr, 'SELECT count(*) AS n FROM requests')[0]['n']
    nothread = one(tr, 'SELECT count(*) AS n FROM requests WHERE process '
                   'IS NULL')[0]['n']
    eq(sum(x['threads'] for x in s) + nothread, t, 'threads per process')
    st = stats(tr)
    eq(sum(x['os_threads'] for x in s), len(st['os_threads']), 'os threads')
    arp = [x for x in s if x['comm'] == 'arp']
    eq(len(arp), 1, 'one arp')
    eq(arp[0]['pending'], 4, 'arp pending')
    # a process's thread and its ring
    r = one(tr, "SELECT t.kind FROM processes p JOIN threads t ON t.thread "
            "= p.thread WHERE p.comm = 'arp'")
    eq(r, [{'kind': 'process'}], 'process thread')


def t_pushdown():
    """A range query visits the rows in the range (a binary search), an
    id query the rows of that thread: counted by rows_visited()."""
    tr = traces().get('server')
    if not tr:
        return 'skip: no bench/server-gen'
    total = one(tr, 'SELECT count(*) AS n, min(t0) AS a, max(t0) AS b FROM '
                'runs')[0]
    lo = total['a'] + (total['b'] - total['a']) // 3
    hi = lo + (total['b'] - total['a']) // 50
    busy = one(tr, 'SELECT thread FROM runs GROUP BY thread HAVING count(*) '
               'BETWEEN 3 AND 100 ORDER BY count(*) DESC, thread LIMIT 1')[0]['thread']
    waiter = one(tr, 'SELECT waiter FROM waits GROUP BY waiter ORDER BY '
                 'count(*) DESC, waiter LIMIT 1')[0]['waiter']
    creator = one(tr, 'SELECT creator FROM threads WHERE creator IS NOT '
                  'NULL GROUP BY creator HAVING count(*) < 50 ORDER BY '
                  'count(*) DESC LIMIT 1')[0]['creator']
    cases = [
        ('runs', 't0 >= %d AND t0 < %d' % (lo, hi)),
        ('runs', 't0 BETWEEN %d AND %d' % (lo, hi)),
        ('runs', 'thread = %d' % busy),
        ('arrows', 't > %d AND t <= %d' % (lo, hi)),
        ('arrows', 'from_thread = %d' % busy),
        ('labels', 't >= %d AND t < %d' % (lo, hi)),
        ('samples', 't >= %d AND t < %d' % (lo, hi)),
        ('samples', 'counter = 0'),
        ('loop_phases', 't0 >= %d AND t0 < %d' % (lo, hi)),
        ('threads', 'created >= %d AND created < %d' % (lo, hi)),
        ('threads', 'creator = %d' % creator),
        ('threads', 'thread = 42'),
        ('threads', 'id = %d' % one(tr, 'SELECT id FROM threads WHERE '
                                  'thread = 77')[0]['id']),
        ('threads', 'id = %d' % one(tr, 'SELECT id FROM threads WHERE id '
                                  '!= 0 GROUP BY id ORDER BY count(*) DESC '
                                  'LIMIT 1')[0]['id']),
        ('waits', 'waiter = %d' % waiter),
    ]
    for tab, where in cases:
        r = query(tr, 'SELECT count(*) AS n FROM %s WHERE %s; '
                  'SELECT rows_visited(\'%s\') AS v; '
                  'SELECT count(*) AS n FROM %s' % (tab, where, tab, tab))
        n, v, all_ = r[0][0]['n'], r[1][0]['v'], r[2][0]['n']
        check(n > 0, '%s WHERE %s: no rows (setup)' % (tab, where))
        check(all_ > 5 * n, '%s: %d of %d rows (setup)' % (tab, n, all_))
        eq(v, n, 'rows visited by %s WHERE %s' % (tab, where))
        # the same rows as a scan (+column: nothing SQLite can push down)
        scan = re.sub(r'\b(t0|t1|t|created|thread|from_thread|counter|'
                      r'creator|id|waiter)\b', r'+\1', where)
        eq(one(tr, 'SELECT count(*) AS n FROM %s WHERE %s' % (tab, scan)),
           [{'n': n}], 'a scan of %s WHERE %s' % (tab, scan))
    # rows come in time order: an ORDER BY the time needs no sort, and
    # its answer is the sorted one (tables sorted by a permutation too)
    for tab, key in (('runs', 't0'), ('threads', 'created'), ('idle', 't0'),
                     ('loop_phases', 't0'), ('samples', 't'),
                     ('labels', 't'), ('arrows', 't'), ('waits', 't0')):
        a = [x[key] for x in one(tr, 'SELECT %s FROM %s ORDER BY %s' %
                                 (key, tab, key))]
        b = [x[key] for x in one(tr, 'SELECT %s FROM %s ORDER BY +%s' %
                                 (key, tab, key))]
        check(len(a) > 0 or tab == 'idle', tab + ': rows (setup)')
        eq(a, sorted(b), tab + ' in time order')
        w = one(tr, 'SELECT count(*) AS n FROM %s WHERE %s >= %d' %
                (tab, key, lo))
        eq(w, [{'n': sum(1 for x in b if x >= lo)}], tab + ' from lo')
    # an interval's end bounds its start by the longest interval
    r = query(tr, 'SELECT count(*) AS n FROM runs WHERE t1 > %d AND t1 <= '
              '%d; SELECT rows_visited(\'runs\') AS v; SELECT count(*) AS n '
              'FROM runs WHERE t0 > %d - (SELECT max(dur) FROM runs) AND t0 '
              '<= %d' % (lo, hi, lo, hi))
    check(r[0][0]['n'] > 0, 'runs by end (setup)')
    check(r[1][0]['v'] <= r[2][0]['n'] + 1,
          'runs by end visited %d > %d' % (r[1][0]['v'], r[2][0]['n']))
    # pushdown never changes an answer: against a scan SQLite cannot push
    # down (+t0 hides the column); a range of ends that the longest run
    # ends in, starting after its start
    lr = one(tr, 'SELECT run, t0, dur FROM runs ORDER BY dur DESC LIMIT 1')[0]
    mid = lr['t0'] + lr['dur'] // 2
    check(lr['dur'] > 2, 'a run of some length (setup)')
    inside = one(tr, 'SELECT run FROM runs WHERE t1 >= %d AND t1 < %d' %
                 (mid, mid + lr['dur']))
    check({'run': lr['run']} in inside, 'the longest run, by its end')
    for where in ('t1 >= %d AND t1 < %d' % (mid, mid + lr['dur']),
                  't1 > %d AND t1 <= %d' % (mid, mid + lr['dur']),'t0 >= %d AND t0 < %d' % (lo, hi),
                  't1 >= %d AND t1 < %d' % (lo, hi), 't0 = %d' % lo,
                  't0 > %d.5 AND t0 < %d.5' % (lo, hi),
                  't0 < -5', 't1 > 9223372036854775807',
                  't0 >= %d AND t0 <= %d AND t1 > %d' % (lo, hi, hi),
                  't0 = 1e300', 't0 > -1e300 AND t1 < %d' % lo):
        a = one(tr, 'SELECT run FROM runs WHERE %s ORDER BY run' % where)
        b = one(tr, 'SELECT run FROM runs WHERE %s ORDER BY run' %
                where.replace('t0', '+t0').replace('t1', '+t1'))
        eq(len(a), len(b), 'pushdown of ' + where)
        eq(a, b, 'pushdown of ' + where)


def t_formats():
    tr = traces()['arp-bad']
    sql = "SELECT 1 AS a, 'x,\"y' AS bb, NULL AS c, 2.5 AS d, 'tab\there' " \
          "AS e"
    p = run([W, 'query', '--csv', tr, sql])
    eq(p.stdout, 'a,bb,c,d,e\n1,"x,""y",,2.5,tab\there\n', 'csv')
    p = run([W, 'query', '--csv', tr, "SELECT 'a\nb' AS x"])
    eq(p.stdout, 'x\n"a\nb"\n', 'csv newline')
    p = run([W, 'query', '--tsv', tr, sql])
    eq(p.stdout, 'a\tbb\tc\td\te\n1\tx,"y\t\t2.5\ttab\\there\n', 'tsv')
    p = run([W, 'query', '--json', tr, sql])
    eq(json.loads(p.stdout), [{'a': 1, 'bb': 'x,"y', 'c': None, 'd': 2.5,
                               'e': 'tab\there'}], 'json')
    p = run([W, 'query', tr, "SELECT 7 AS n, 'ab' AS name UNION ALL "
             "SELECT 123456, 'é' ORDER BY 1"])
    eq(p.stdout, '     n  name\n------  ----\n     7  ab\n123456  é\n'
       '(2 rows)\n', 'text')
    # a big result streams: widths from the first 1000 rows
    p = run([W, 'query', tr, 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL '
             'SELECT x + 1 FROM c WHERE x < 1500) SELECT CASE WHEN x = 1500 '
             "THEN 123456 ELSE x END AS n, 'a' AS s FROM c"])
    lines = p.stdout.splitlines()
    eq(lines[:3], ['   n  s', '----  -', '   1  a'], 'big: head')
    eq(lines[1002:], ['1001  a'] + ['%4d  a' % x for x in range(1002, 1500)]
       + ['123456  a', '(1500 rows)'], 'big: tail')
    p = run([W, 'query', tr, 'SELECT 1 AS a; SELECT 2 AS b'])
    eq(p.stdout, 'a\n-\n1\n(1 row)\n\nb\n-\n2\n(1 row)\n', 'two statements')
    # SQL from a file and from standard input
    with open(os.path.join(T, 'q.sql'), 'w') as f:
        f.write('-- a comment\nSELECT count(*) AS n\nFROM threads;\n')
    p = run([W, 'query', '--csv', '-f', os.path.join(T, 'q.sql'), tr])
    eq(p.stdout, 'n\n8\n', 'file')
    p = run([W, 'query', '--csv', tr], input='SELECT 3 AS x;')
    eq(p.stdout, 'x\n3\n', 'stdin')
    p = run([W, 'query', '--csv', '--json', tr, 'SELECT 1'])
    eq(p.returncode, 2, 'two formats')


def unchanged(before):
    after = {}
    for root, dirs, files in os.walk(T):
        for f in files:
            st = os.stat(os.path.join(root, f))
            after[os.path.join(root, f)] = (st.st_size, st.st_mtime_ns)
    return before is None and after or eq(after, before, 'files changed')


def t_hostile():
    tr = traces()['arp-bad']
    before = unchanged(None)
    p = run([W, 'query', tr, 'SELECT kind,\n  label FRM threads'])
    eq(p.returncode, 1, 'syntax status')
    eq(p.stderr, 'weft: SQL error: near "threads": syntax error\n'
       '  at line 2, column 13:\n    label FRM threads\n'
       '              ^\n', 'syntax error')
    eq(p.stdout, '', 'no output')
    # in the third statement: its line in the whole text, the results
    # of the statements before it printed
    p = run([W, 'query', '--csv', tr, 'SELECT 1 AS a;\nSELECT 2 AS b; '
             'SELECT nope\n  FROM threads;'])
    eq(p.returncode, 1, 'third statement status')
    eq(p.stdout, 'a\n1\n\nb\n2\n', 'the first two statements')
    eq(p.stderr, 'weft: SQL error: no such column: nope\n'
       '  at line 2, column 23:\n  SELECT 2 AS b; SELECT nope\n'
       '                        ^\n', 'third statement error')
    denied = ["CREATE TABLE t(a)", "CREATE TEMP TABLE t(a)",
              "CREATE VIEW v AS SELECT 1", "DROP VIEW requests",
              "INSERT INTO threads(thread) VALUES (1)",
              "DELETE FROM runs", "UPDATE threads SET kind = 'x'",
              "ATTACH '%s/x.db' AS x" % T, "ATTACH ':memory:' AS m",
              "SELECT load_extension('%s/x.so')" % T,
              "VACUUM INTO '%s/v.db'" % T, "PRAGMA writable_schema = 1",
              "PRAGMA temp_store_directory = '%s'" % T,
              "SELECT * FROM pragma_writable_schema",
              "SELECT 1; CREATE TABLE t(a)",
              "UPDATE sqlite_master SET type = 'x'",
              "PRAGMA main.journal_mode = WAL", "ANALYZE",
              "BEGIN; SELECT 1; COMMIT", "SAVEPOINT a", "VACUUM"]
    for sql in denied:
        p = run([W, 'query', tr, sql])
        eq(p.returncode, 1, sql + ': status')
        check(p.stderr.startswith('weft: SQL error: ') and
              ('only reads' in p.stderr or 'not authorized' in p.stderr or
               'may not be modified' in p.stderr or
               'too many attached' in p.stderr), sql + ': ' + p.stderr)
        check('Traceback' not in p.stderr and 'Sanitizer' not in p.stderr,
              p.stderr)
    unchanged(before)
    # the views and the tables are still there for the next statement
    r = query(tr, "SELECT 1 AS x; SELECT count(*) AS n FROM requests")
    eq(r[1][0]['n'], 7, 'requests after')
    # a statement that never ends: --timeout
    t0 = time.monotonic()
    forever = ('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 '
               'FROM c) SELECT count(*) FROM c')
    p = run([W, 'query', '--timeout', '0.5', tr, forever], timeout=60)
    eq(p.returncode, 1, 'timeout status')
    eq(p.stderr, 'weft: stopped: the statement ran longer than --timeout '
       '500 ms\n', 'timeout message')
    check(time.monotonic() - t0 < 30, 'timeout took too long')
    # over the tables too (a cross join of runs)
    p = run([W, 'query', '--timeout', '300ms', tr, 'SELECT count(*) FROM '
             'runs a, runs b, runs c, runs d, runs e, runs f, runs g, runs '
             'h, runs i'], timeout=60)
    eq(p.returncode, 1, 'timeout over tables')
    check('--timeout' in p.stderr, p.stderr)
    # Ctrl-C
    pr = subprocess.Popen([W, 'query', tr, forever], env=ENV,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    time.sleep(1)
    check(pr.poll() is None, 'ended before Ctrl-C')
    pr.send_signal(signal.SIGINT)
    out, err = pr.communicate(timeout=30)
    eq(pr.returncode, 1, 'interrupted status')
    eq(err, 'weft: interrupted\n', 'interrupted message')
    unchanged(before)


def t_bad_arguments():
    tr = traces()['arp-bad']
    for sql, msg in (
            ('SELECT * FROM chain', 'chain() needs its arguments'),
            ("SELECT * FROM chain('x', 1)", 'must be a thread'),
            ('SELECT * FROM chain(1, -1)', 'depth must be'),
            ('SELECT * FROM critical_path(0)', 'OS thread'),
            ("SELECT * FROM pending_at('soon')", 'must be a time'),
            ('SELECT percentile_nr(dur, 2) FROM runs', 'within 0 and 1'),
            ("SELECT rows_visited('nope')", 'no such table')):
        p = run([W, 'query', tr, sql])
        eq(p.returncode, 1, sql)
        check(msg in p.stderr, '%s: %s' % (sql, p.stderr))
        eq(p.stdout, '', sql + ': no rows printed')


def t_percentiles():
    """percentile_nr (found without sorting) against the nearest rank of
    the sorted values: sets of 1, 2, 3 values and more, duplicates, all
    equal, ascending, descending, negative, shuffled; q of 0 and 1."""
    import random
    rnd = random.Random(34)
    sets = [[5], [2, 1], [3, 1, 2], [7] * 9, list(range(50)),
            list(range(50, 0, -1)), [-3, 10**15, -10**15, 0, 0, 4]]
    for n in (10, 101, 1000, 2500):
        sets.append([rnd.randint(-5, 5) for _ in range(n)])
        sets.append([rnd.randint(-10**12, 10**12) for _ in range(n)])
    qs = (0, 0.01, 0.25, 0.5, 0.9, 0.99, 0.999, 1)
    sql, want = [], []
    for v in sets:
        vals = ','.join('(%d)' % x for x in v)
        sql.append('WITH v(x) AS (VALUES %s) SELECT %s, p50(x) AS m, '
                   'p90(x) AS n, p99(x) AS o FROM v' %
                   (vals, ', '.join('percentile_nr(x, %r) AS q%d' % (q, i)
                                    for i, q in enumerate(qs))))
        o = sorted(v)
        # the rank as weft stats takes it: ceil(q n), within 1..n
        rank = lambda q: o[max(1, min(len(o), int(q * len(o) + 0.999999)))
                           - 1]
        want.append([rank(q) for q in qs] +
                    [rank(0.5), rank(0.9), rank(0.99)])
    tr = traces()['arp-bad']
    got = query(tr, '; '.join(sql))
    for g, w, v in zip(got, want, sets):
        r = g[0]
        eq([r['q%d' % i] for i in range(len(qs))] + [r['m'], r['n'], r['o']],
           w, 'percentiles of %d values %s' % (len(v), v[:6]))
    eq(len(got), len(sets), 'statements')


def t_kind_order():
    """ORDER BY kind and GROUP BY kind read the threads in kind order (no
    sort: the plan is checked): the same rows as SQLite's own sort (+kind
    is not pushed down), on one ring, a run of several processes and two
    rings merged (the same kinds interned by each)."""
    tr = traces()
    for name, t in (('all-events', tr['all-events']), ('run', tr['run']),
                    ('server', tr.get('server')),
                    ('two rings', [tr['arp-bad'], tr['arp-good'],
                                   tr['verdicts-deadlock']])):
        if not t:
            continue
        r = query(t, 'SELECT kind FROM threads ORDER BY kind; '
                  'SELECT kind FROM threads ORDER BY kind DESC; '
                  'SELECT kind FROM threads ORDER BY +kind; '
                  'SELECT kind, count(*) AS n, min(thread) AS m, '
                  'max(thread) AS x FROM threads GROUP BY kind; '
                  'SELECT kind, count(*) AS n, min(thread) AS m, '
                  'max(thread) AS x FROM threads GROUP BY +kind; '
                  'SELECT kind, count, p99 FROM latency_by_kind; '
                  "SELECT kind, count(*) AS count, p99(lifetime) AS p99 FROM "
                  "threads WHERE NOT root GROUP BY +kind ORDER BY count "
                  "DESC, +kind")
        asc, desc, base, grp, gbase, view, vbase = r
        kinds = [x['kind'] for x in base]
        check(len(set(kinds)) >= 3, name + ': kinds (setup): %s' %
              set(kinds))
        eq([x['kind'] for x in asc], kinds, name + ' ORDER BY kind')
        eq([x['kind'] for x in desc], kinds[::-1], name + ' DESC')
        eq(kinds, sorted(kinds, key=lambda k: k.encode()), name + ' bytes')
        eq(grp, gbase, name + ' GROUP BY kind')
        eq(view, vbase, name + ' latency_by_kind')
        plan = query(t, 'EXPLAIN QUERY PLAN SELECT kind, count(*) FROM '
                     'threads GROUP BY kind; EXPLAIN QUERY PLAN SELECT kind '
                     'FROM threads ORDER BY kind DESC')
        eq([p[0]['detail'] for p in plan],
           ['SCAN threads VIRTUAL TABLE INDEX 32:',
            'SCAN threads VIRTUAL TABLE INDEX 33:'], name + ' plans')


def t_loop_iterations():
    tr = traces().get('server')
    if not tr:
        return 'skip: no bench/server-gen'
    r = query(tr, 'SELECT * FROM loop_iterations ORDER BY iteration; '
              'SELECT * FROM loop_phases ORDER BY t0, phase; '
              'SELECT * FROM runs ORDER BY t0')
    its, ph, runs = r
    check(len(its) > 100, 'iterations (setup)')
    first = ph[0]['name']
    eq(len(its), sum(1 for p in ph if p['name'] == first), 'iterations')
    eq([i['iteration'] for i in its], list(range(1, len(its) + 1)), 'order')
    eq(sum(i['phases'] for i in its), len(ph), 'phases in iterations')
    for i in its[:50] + its[-50:]:
        inside = [x for x in runs if x['os_thread'] == i['os_thread'] and
                  i['t0'] <= x['t0'] < i['t1']]
        best = max((x['dur'] for x in inside), default=None)
        eq(i['longest_dur'], best, 'longest callback of %d' % i['iteration'])
        check(best is None or any(x['run'] == i['longest_run'] and
                                  x['dur'] == best for x in inside),
              'longest run')


def t_waits_by_target():
    tr = traces()['arp-bad']
    r = one(tr, 'SELECT w.title, w.waits, w.total, w.longest, w.at_end FROM '
            'waits_by_target w')
    eq(r, [{'title': 'TCP connect', 'waits': 1, 'total': r[0]['total'],
            'longest': r[0]['total'], 'at_end': 1},
           {'title': 'ring.write', 'waits': 1, 'total': r[1]['total'],
            'longest': r[1]['total'], 'at_end': 0},
           {'title': 'ARP response', 'waits': 1, 'total': r[2]['total'],
            'longest': r[2]['total'], 'at_end': 1}], 'waits by target')
    # each wait as weft_model_inspect measures it: the inspector's text
    tot = one(tr, "SELECT sum(w.dur) AS d FROM waits w JOIN threads t ON "
              "t.thread = w.waiter WHERE t.label = 'TCP connect'")[0]['d']
    eq(tot, r[1]['total'] + r[2]['total'], 'waits of TCP connect')
    t = one(tr, "SELECT max(last_seen) AS e FROM threads")[0]['e']
    x = one(tr, "SELECT t1 FROM waits WHERE how = 'at_end'")
    eq([w['t1'] for w in x], [t, t], 'a wait at the end lasts to the end')


def t_live():
    """A live ring: the answer is what was committed when it started."""
    path = os.path.join(T, 'live.weft')
    env = dict(ENV)
    env['WEFT_FILE'] = path
    pr = subprocess.Popen([EX + '/ticker', '30'], env=env,
                          stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        n1 = 0
        while time.monotonic() < deadline:
            if os.path.exists(path):
                r = query(path, "SELECT writer, (SELECT count(*) FROM "
                          "threads) AS n FROM trace")[0][0]
                if r['n'] > 3:
                    eq(r['writer'], 'live', 'writer')
                    n1 = r['n']
                    break
            time.sleep(0.1)
        check(n1 > 3, 'the ticker wrote nothing')
        n2 = n1
        while time.monotonic() < deadline and n2 <= n1:
            time.sleep(0.2)
            n2 = one(path, 'SELECT count(*) AS n FROM threads')[0]['n']
        check(n2 > n1, 'the second query saw no more (%d, %d)' % (n1, n2))
        # one statement sees one model: counts agree within a query
        r = query(path, 'SELECT count(*) AS n FROM threads; '
                  'SELECT count(*) AS n FROM requests')
        eq(r[0][0]['n'] - 1, r[1][0]['n'], 'one model per query')
    finally:
        pr.terminate()
        pr.wait()
    # a run directory still being written: its processes and threads
    d = os.path.join(T, 'liverun')
    env = dict(ENV)
    env['ASAN_OPTIONS'] = REC_ASAN
    pr = subprocess.Popen([W, 'record', '-o', d, '--', EX + '/ticker', '30'],
                          env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        seen = []
        while time.monotonic() < deadline and len(seen) < 2:
            time.sleep(0.3)
            if not os.path.isdir(d):
                continue
            p = run([W, 'query', '--json', d, "SELECT (SELECT count(*) FROM "
                     "threads WHERE kind = 'tick') AS ticks, (SELECT \"end\" "
                     "FROM processes WHERE comm = 'ticker') AS e"])
            if p.returncode != 0:
                continue
            r = json.loads(p.stdout)[0]
            if r['ticks'] and (not seen or r['ticks'] > seen[-1]['ticks']):
                seen.append(r)
        check(len(seen) == 2, 'the live run did not grow: %s' % seen)
        eq(seen[-1]['e'], 'running', 'the process runs')
    finally:
        os.killpg(pr.pid, signal.SIGTERM)  # weft record and the ticker
        pr.wait()


def dump_ns(field):
    """A time weft dump prints (seconds, 9 decimals), in ns, exactly."""
    neg = field.startswith('-')
    a, b = field.lstrip('-').split('.')
    v = int(a) * 10**9 + int(b.ljust(9, '0'))
    return -v if neg else v


def t_kept():
    """A kept directory of a ring that rotated reads as one trace (the
    views against weft stats in the cases above); with a middle chunk
    gone, the gap is a row of losses where weft dump says it is, and the
    rows on either side of it are those of the whole directory."""
    k, g = traces()['kept'], traces()['kept-gap']
    d = run([W, 'dump', g]).stdout.splitlines()
    lines = [l.split(' ') for l in d]
    want = [(dump_ns(f[0]), int(f[3].split('=')[1]), int(f[4].split('=')[1]))
            for f in lines if len(f) > 4 and f[2] == 'loss']
    got = one(g, 'SELECT t, packets, events FROM losses ORDER BY t')
    eq([(r['t'], r['packets'], r['events']) for r in got], want,
       'the gap: losses against weft dump')
    eq(len(want), 1, 'one gap (setup)')
    eq(one(k, 'SELECT count(*) AS n FROM losses')[0]['n'], 0,
       'no loss in the whole directory')
    lost = want[0][1]
    check(lost > 10, 'a chunk of packets lost: %d' % lost)
    eq(one(g, 'SELECT packets_lost FROM trace')[0]['packets_lost'], lost,
       'trace.packets_lost')
    # before the gap: the last event before the loss; after: the loss
    i = [j for j, f in enumerate(lines) if len(f) > 2 and f[2] == 'loss'][0]
    before, after = dump_ns(lines[i - 1][0]), want[0][0]
    check(0 < before < after, 'the gap in time (setup)')
    sql = ("SELECT r.t0, r.t1, t.id FROM runs r JOIN threads t USING "
           "(thread) WHERE r.t1 <= %d ORDER BY r.t0; SELECT r.t0, r.t1, t.id "
           "FROM runs r JOIN threads t USING (thread) WHERE r.t0 > %d ORDER BY "
           "r.t0; SELECT id, kind, created, ended FROM threads WHERE ended <= "
           "%d ORDER BY id; SELECT t, value FROM samples WHERE t <= %d OR t > "
           "%d ORDER BY t" % (before, after, before, before, after))
    a, b = query(k, sql), query(g, sql)
    for x, y, what in zip(a, b, ('runs before', 'runs after',
                                 'threads before', 'samples')):
        check(len(x) > 100, what + ' (setup): %d rows' % len(x))
        eq(y, x, 'the gap: ' + what)
    # the threads whose creation is in the gap: not rows; those created
    # before and ended after: pending in the copy with the gap? no: their
    # ends are after it; the rows that differ are within the gap only
    n_k = one(k, 'SELECT count(*) AS n FROM threads WHERE created > %d AND '
              'created < %d' % (before, after))[0]['n']
    n_g = one(g, 'SELECT count(*) AS n FROM threads WHERE created > %d AND '
              'created < %d' % (before, after))[0]['n']
    check(n_k > 100 and n_g == 0, 'created in the gap: %d, %d' % (n_k, n_g))


def t_kept_live():
    """A kept directory still being written (weft record --keep running):
    each query answers what was kept when it started, and grows; what it
    saw is what the finished directory holds up to then."""
    d = os.path.join(T, 'livekeep')
    k = os.path.join(T, 'livekept')
    env = dict(ENV)
    env['ASAN_OPTIONS'] = REC_ASAN
    pr = subprocess.Popen([W, 'record', '-o', d, '--keep', k, '--size',
                           '256K', '--chunk', '1s', '--', EX + '/ticker',
                           '4'], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, start_new_session=True)
    seen = []
    try:
        deadline = time.monotonic() + 30
        while pr.poll() is None and time.monotonic() < deadline:
            time.sleep(0.3)
            if not os.path.isdir(k):
                continue
            p = run([W, 'query', '--json', k, "SELECT (SELECT count(*) FROM "
                     "threads WHERE kind = 'tick') AS ticks, (SELECT max(t1) "
                     "FROM runs) AS t, (SELECT writer FROM trace) AS w"])
            if p.returncode != 0:
                continue
            r = json.loads(p.stdout)[0]
            if r['ticks']:
                seen.append(r)
    finally:
        if pr.poll() is None:
            pr.wait(timeout=60)
    eq(pr.returncode, 0, 'weft record --keep')
    grew = [r for r in seen if r['ticks'] > seen[0]['ticks']]
    check(len(seen) >= 2 and grew, 'the live directory did not grow: %s' % seen)
    # (while it is written, a kept directory holds its finished chunks
    # only: the answers grow a chunk at a time; docs/query.md)
    for r in seen:
        n = one(k, "SELECT count(*) AS n FROM threads WHERE kind = 'tick' "
                "AND created <= %d" % r['t'])[0]['n']
        check(r['ticks'] <= n, 'saw %d ticks, the directory holds %d up to '
              '%d' % (r['ticks'], n, r['t']))


def t_prompt():
    """The prompt: statements over several lines, dot commands, Ctrl-D;
    each statement appended to ~/.weft_history."""
    tr = traces()['arp-bad']
    hist = os.path.join(T, '.weft_history')
    if os.path.exists(hist):
        os.unlink(hist)
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(W, [W, 'query', tr], ENV)
    out = b''

    def expect(what, secs=20):
        nonlocal out
        end = time.monotonic() + secs
        while what.encode() not in out:
            left = end - time.monotonic()
            check(left > 0, 'no %r in %r' % (what, out.decode()))
            r, _, _ = select.select([fd], [], [], left)
            if r:
                try:
                    out += os.read(fd, 4096)
                except OSError:
                    break

    expect('weft> ')
    os.write(fd, b'SELECT count(*) AS n\n')
    expect('   ...> ')
    os.write(fd, b'FROM threads;\n')
    expect('8\r\n(1 row)')
    os.write(fd, b'.mode csv\n')
    os.write(fd, b"SELECT label FROM threads WHERE thread = 2;\n")
    expect('label\r\nmain\r\n')
    os.write(fd, b'SELEC 1;\n')
    expect('syntax error')
    os.write(fd, b'.history\n')
    expect('SELECT count(*) AS n\nFROM threads;'.replace('\n', '\r\n')
           if False else 'FROM threads;')
    # Ctrl-C stops the statement, not the prompt
    os.write(fd, b'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 '
             b'FROM c) SELECT count(*) FROM c;\n')
    time.sleep(1)
    out = b''
    os.write(fd, b'\x03')
    expect('weft: interrupted')
    expect('weft> ')
    os.write(fd, b'SELECT 41 + 1 AS answer;\n')
    expect('answer\r\n42\r\n')
    os.write(fd, b'\x04')
    _, status = os.waitpid(pid, 0)
    eq(os.waitstatus_to_exitcode(status), 0, 'prompt status')
    os.close(fd)
    with open(hist) as f:
        h = f.read()
    eq(h, 'SELECT count(*) AS n\nFROM threads;\n'
       'SELECT label FROM threads WHERE thread = 2;\nSELEC 1;\n'
       'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) '
       'SELECT count(*) FROM c;\nSELECT 41 + 1 AS answer;\n', 'history')
    eq(os.stat(hist).st_mode & 0o777, 0o600, 'history mode')
    # a link where the history goes is not followed
    os.unlink(hist)
    os.symlink(os.path.join(T, 'elsewhere'), hist)
    env = dict(ENV)
    pid, fd = pty.fork()
    if pid == 0:
        os.execve(W, [W, 'query', tr], env)
    out = b''
    expect('weft> ')
    os.write(fd, b'SELECT 1;\n')
    expect('(1 row)')
    os.write(fd, b'.quit\n')
    os.waitpid(pid, 0)
    os.close(fd)
    check(not os.path.exists(os.path.join(T, 'elsewhere')),
          'the history followed a link')
    os.unlink(hist)


def t_hostile_traces():
    """Damaged input: a clear error or an answer, never a crash."""
    tr = traces()['arp-bad']
    data = open(tr, 'rb').read()
    bad = os.path.join(T, 'flipped.weft')
    n = 0
    for off in range(0, min(len(data), 4096 * 6), 97):
        b = bytearray(data)
        b[off] ^= 0xff
        open(bad, 'wb').write(b)
        p = run([W, 'query', bad, 'SELECT count(*) FROM threads; SELECT '
                 'count(*) FROM runs; SELECT * FROM latency_by_kind; '
                 'SELECT * FROM verdicts'], timeout=30)
        check(p.returncode in (0, 1), 'offset %d: status %d %s' %
              (off, p.returncode, p.stderr))
        check('Sanitizer' not in p.stderr and 'runtime error' not in
              p.stderr, p.stderr)
        n += 1
    p = run([W, 'query', os.path.join(T, 'nope.weft'), 'SELECT 1'])
    eq(p.returncode, 1, 'missing trace')
    check("cannot open" in p.stderr or "No such file" in p.stderr, p.stderr)


def qstats(trace, sql, *opts):
    """Rows of each statement (--json) and what the query read
    (WEFT_QUERY_STATS, its key=value pairs)."""
    env = dict(ENV)
    env['WEFT_QUERY_STATS'] = '1'
    p = run([W, 'query', '--json', *opts, trace, sql], env=env)
    if p.returncode != 0:
        raise Fail('weft query %s %r: exit %d\n%s' %
                   (trace, sql, p.returncode, p.stderr))
    m = re.search(r'^weft query stats: (.*)$', p.stderr, re.M)
    check(m, 'no stats line: %r' % p.stderr)
    st = dict(kv.split('=', 1) for kv in m.group(1).split())
    return [json.loads(line) for line in p.stdout.splitlines() if line], st


# latency_by_kind is computed in C: its view's SQL, as a query
LATENCY_BY_KIND_SQL = (
    'SELECT kind, count(*) AS count, sum("end" = \'pending\') AS pending, '
    'sum("end" = \'failed\') AS failed, p50(latency) AS p50, p90(latency) '
    'AS p90, p99(latency) AS p99, max(latency) AS max, p50(running) AS '
    'run_p50, p90(running) AS run_p90, p99(running) AS run_p99, '
    'max(running) AS run_max FROM requests GROUP BY kind ORDER BY count '
    'DESC, kind')

# latency_by_label likewise (no label and the label '' are one group)
LATENCY_BY_LABEL_SQL = (
    'SELECT coalesce(label, \'\') AS label, count(*) AS count, '
    'sum("end" = \'pending\') AS pending, sum("end" = \'failed\') AS '
    'failed, p50(latency) AS p50, p90(latency) AS p90, p99(latency) AS '
    'p99, max(latency) AS max, p50(running) AS run_p50, p90(running) AS '
    'run_p90, p99(running) AS run_p99, max(running) AS run_max FROM '
    'requests GROUP BY coalesce(label, \'\') ORDER BY count DESC, 1')

# what the index holds: answered from it, the trace not read
FROM_INDEX = [
    'SELECT thread, id, kind, label, creator, created, ended, last_seen, '
    '"end", process, os_thread, root, no_create, should_resolve, lifetime, '
    'running FROM threads',
    'SELECT * FROM latency_by_kind',
    LATENCY_BY_KIND_SQL,
    'SELECT * FROM latency_by_label',
    LATENCY_BY_LABEL_SQL,
    'SELECT kind, count(*) AS n FROM threads GROUP BY kind ORDER BY kind '
    'DESC',
    'SELECT creator, count(*) AS n, max(running) AS r FROM threads WHERE '
    'creator IS NOT NULL GROUP BY creator ORDER BY creator',
    'SELECT process, count(*) AS n, sum(lifetime) AS l FROM threads GROUP '
    'BY process',
    'SELECT thread, created FROM threads WHERE id = (SELECT id FROM '
    'threads WHERE thread = 3)',
]
# what it lacks: the model is loaded too
WITH_MODEL = [
    'SELECT thread, incarnation, title, message, became FROM threads',
    'SELECT * FROM requests',
    'SELECT t.kind AS kind, count(*) AS n, sum(r.dur) AS d FROM threads t '
    'JOIN runs r ON r.thread = t.thread GROUP BY t.kind ORDER BY t.kind',
]


def same_from_index(tr, what):
    """Every query gives the model's rows from the index of tr."""
    p = run([W, 'index', tr])
    eq(p.returncode, 0, 'weft index %s: %s' % (what, p.stderr))
    for sql in FROM_INDEX + WITH_MODEL:
        want, ms = qstats(tr, sql, '--index', 'no')
        got, st = qstats(tr, sql)
        check(len(want[0]) > 0 or sql not in FROM_INDEX[:2],
              '%s: %s: no rows (setup)' % (what, sql))
        eq(got, want, '%s: %s from the index' % (what, sql))
        eq((ms['threads'], ms['model']), ('model', '1'),
           '%s: %s with --index no' % (what, sql))
        check(int(ms['events_read']) > 0, '%s: the model read' % what)
        eq(st['threads'], 'index', '%s: %s: threads from' % (what, sql))
        eq(st['built'], '0', '%s: nothing built' % what)
        if sql in FROM_INDEX:
            eq((st['model'], st['events_read']), ('0', '0'),
               '%s: %s: the trace read' % (what, sql))
        else:
            eq(st['model'], '1', '%s: %s: the model loaded' % (what, sql))
    # latency_by_kind (computed in C) is its view's SQL, from either
    for opts in ((), ('--index', 'no')):
        c, _ = qstats(tr, 'SELECT * FROM latency_by_kind', *opts)
        v, _ = qstats(tr, LATENCY_BY_KIND_SQL, *opts)
        eq(c, v, '%s: latency_by_kind against its SQL %s' % (what, opts))
        c, _ = qstats(tr, 'SELECT * FROM latency_by_label', *opts)
        v, _ = qstats(tr, LATENCY_BY_LABEL_SQL, *opts)
        check(len(c[0]) > 100 or what != 'server',
              '%s: latency_by_label: %d rows (setup)' % (what, len(c[0])))
        eq(c, v, '%s: latency_by_label against its SQL %s' % (what, opts))


def t_index_vs_model():
    """The same rows from the index as from the model: a server trace,
    a run of three processes, a damaged trace, a trace of every event."""
    d = os.path.join(T, 'indexed')
    os.mkdir(d)
    if os.access(GEN, os.X_OK):
        p = os.path.join(d, 'server.weft')
        subprocess.run([GEN, '-n', '300000', '-o', p], check=True,
                       stdout=subprocess.DEVNULL, timeout=120)
        same_from_index(p, 'server')
    for name in ('run', 'truncated', 'all-events', 'verdicts-never'):
        src = traces()[name]
        dst = os.path.join(d, name)
        if os.path.isdir(src):
            shutil.copytree(src, dst)
        else:
            shutil.copy(src, dst)
        same_from_index(dst, name)
    # the run's three processes, each its threads
    r = one(os.path.join(d, 'run'), 'SELECT count(DISTINCT process) AS n '
            'FROM threads')
    check(r[0]['n'] >= 3, 'three processes (setup): %r' % r)


def t_index_stale():
    """An index that does not match the trace is not used: the trace
    rewritten with the same bytes (its modification time), another
    trace copied over it; --index build builds it again, --index auto
    does not for a small trace, --index no never reads it."""
    if not os.access(GEN, os.X_OK):
        return 'skip: no bench/server-gen'
    d = os.path.join(T, 'stale')
    os.mkdir(d)
    a, b = os.path.join(d, 'a.weft'), os.path.join(d, 'b.weft')
    subprocess.run([GEN, '-n', '60000', '-o', a], check=True,
                   stdout=subprocess.DEVNULL, timeout=120)
    subprocess.run([GEN, '-n', '90000', '-o', b], check=True,
                   stdout=subprocess.DEVNULL, timeout=120)
    sql = 'SELECT * FROM latency_by_kind'
    want_a, _ = qstats(a, sql, '--index', 'no')
    want_b, _ = qstats(b, sql, '--index', 'no')
    check(want_a != want_b, 'two traces, two answers (setup)')
    eq(run([W, 'index', a]).returncode, 0, 'weft index a')
    ix = a + '.weftidx'
    got, st = qstats(a, sql)
    eq((got, st['threads']), (want_a, 'index'), 'fresh')
    # the same bytes written again: its modification time changed
    with open(a, 'r+b') as f:
        data = f.read()
        f.seek(0)
        f.write(data)
    os.utime(a, ns=(os.stat(ix).st_mtime_ns + 10**9,) * 2)
    before = os.stat(ix).st_mtime_ns
    got, st = qstats(a, sql)
    eq((got, st['threads'], st['built']), (want_a, 'model', '0'),
       'rewritten: the model')
    eq(os.stat(ix).st_mtime_ns, before, 'auto builds no small index')
    got, st = qstats(a, sql, '--index', 'build')
    eq((got, st['threads'], st['built']), (want_a, 'index', '1'),
       'rewritten, --index build')
    got, st = qstats(a, sql)
    eq((got, st['threads'], st['built']), (want_a, 'index', '0'),
       'the index built, used')
    # another trace in its place: b's answer, never a's
    shutil.copy(b, a)
    got, st = qstats(a, sql)
    eq((got, st['threads']), (want_b, 'model'), 'another trace')
    got, st = qstats(a, sql, '--index', 'build')
    eq((got, st['threads'], st['built']), (want_b, 'index', '1'),
       'another trace, --index build')
    got, st = qstats(a, sql, '--index', 'no')
    eq((got, st['threads']), (want_b, 'model'), '--index no')
    p = run([W, 'query', '--index', 'sometimes', a, 'SELECT 1'])
    eq(p.returncode, 2, '--index sometimes: status (%s)' % p.stderr)
    check('auto, build or no' in p.stderr, '--index sometimes: ' + p.stderr)


def t_index_pushdown():
    """From the index, a range of creation times steps over the rows in
    it and reads no event; a whole query steps over every row; the
    model reads every event."""
    if not os.access(GEN, os.X_OK):
        return 'skip: no bench/server-gen'
    tr = os.path.join(T, 'indexed', 'server.weft')
    if not os.path.exists(tr):
        t_index_vs_model()
    total = one(tr, 'SELECT count(*) AS n, min(created) AS a, '
                'max(created) AS b FROM threads')[0]
    events = one(tr, 'SELECT events FROM trace')[0]['events']
    for k in (3, 7, 50):
        lo = total['a'] + (total['b'] - total['a']) * k // 100
        hi = lo + (total['b'] - total['a']) // 200
        sql = ('SELECT count(*) AS n FROM threads WHERE created >= %d AND '
               'created < %d; SELECT rows_visited(\'threads\') AS v' %
               (lo, hi))
        r, st = qstats(tr, sql)
        n = r[0][0]['n']
        check(0 < n < total['n'] // 50, 'a range of %d (setup)' % n)
        eq((r[1][0]['v'], int(st['threads_visited'])), (n, n),
           'rows stepped over for %d..%d' % (lo, hi))
        eq((st['threads'], st['events_read']), ('index', '0'),
           'the trace not read')
        r2, ms = qstats(tr, sql, '--index', 'no')
        eq(r2, r, 'the model\'s answer')
        eq((ms['threads'], int(ms['events_read'])), ('model', events),
           'the model read every event')
    r, st = qstats(tr, 'SELECT count(*) AS n FROM threads')
    eq(int(st['threads_visited']), total['n'], 'a whole query')
    r, st = qstats(tr, 'SELECT p99 FROM latency_by_kind')
    eq(int(st['threads_visited']), total['n'], 'latency_by_kind')


CASES = [
    ('the views against weft stats --json (kinds, labels, OS threads, '
     'phases, counters, losses)', t_views_vs_stats),
    ('slowest requests and latency against weft stats', t_slowest_vs_stats),
    ('verdicts and faults against weft why --json', t_verdicts_vs_why),
    ('why_chain and critical_path against weft why', t_why_chain_and_path),
    ('chain(thread, depth)', t_chain_function),
    ('pending_at(t)', t_pending_at),
    ('tables against weft dump; losses as rows', t_tables_vs_dump),
    ('arrows, samples and intervals against weft dump', t_counts_vs_dump),
    ('a run of several processes', t_processes_run),
    ('pushdown: rows visited', t_pushdown),
    ('output: text, CSV, TSV, JSON, files, stdin', t_formats),
    ('hostile SQL: errors, read-only, --timeout, Ctrl-C', t_hostile),
    ('bad arguments to the functions', t_bad_arguments),
    ('percentile_nr against the sorted values', t_percentiles),
    ('ORDER BY and GROUP BY kind without a sort', t_kind_order),
    ('loop iterations and their longest callbacks', t_loop_iterations),
    ('waits by target', t_waits_by_target),
    ('a live ring', t_live),
    ('a kept directory: a gap between chunks as losses', t_kept),
    ('a kept directory being written', t_kept_live),
    ('the prompt and its history', t_prompt),
    ('damaged traces', t_hostile_traces),
    ('threads from the index: the model\'s rows', t_index_vs_model),
    ('a stale index is not used', t_index_stale),
    ('pushdown from the index: rows stepped over, events read',
     t_index_pushdown),
]


def main():
    only = sys.argv[1:]
    failed = 0
    try:
        for i, (what, fn) in enumerate(CASES, 1):
            if only and fn.__name__ not in only:
                print('ok %d - %s # SKIP not asked' % (i, what))
                continue
            try:
                r = fn()
                if isinstance(r, str) and r.startswith('skip:'):
                    print('ok %d - %s # SKIP %s' % (i, what, r[5:].strip()))
                else:
                    print('ok %d - %s' % (i, what))
            except Exception as e:  # a failure, said
                failed += 1
                print('not ok %d - %s' % (i, what))
                for line in str(e).splitlines()[:30]:
                    print('# ' + line)
            sys.stdout.flush()
    finally:
        print('1..%d' % len(CASES))
        if os.environ.get('WEFT_TEST_KEEP'):
            print('# kept ' + T)
        else:
            shutil.rmtree(T, ignore_errors=True)
    sys.exit(1 if failed else 0)


main()
