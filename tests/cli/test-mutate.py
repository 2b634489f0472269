#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test-mutate.py - a bounded mutation run: damaged copies of real traces
through every reading command, as a user's damaged files would come.

Each mutant (bit flips, bytes set to boundary values, fields of the file
and packet headers set to extremes, cuts, zeroed or duplicated ranges,
packets swapped) goes through info, dump, why, stats (text and JSON),
export, ctf, snapshot, html and render.  Each must give a result or a
clean error: exit 0 or 1, no signal, no sanitizer report, no hang (10 s),
and JSON output that loads.  Runs for MUTATE_SECONDS (default 60 under
the sanitizers, 30 otherwise) from MUTATE_SEED (default fixed, so a CI
failure repeats); a failing mutant is kept in tests/last-mutants/ with
the command that failed.  TAP output.
"""
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time

W = os.environ['WEFT_BIN']
SRC = os.environ['WEFT_SRC']
BUILD = os.environ['WEFT_BUILD']
SANITIZED = bool(os.environ.get('WEFT_TEST_CFLAGS'))
SECONDS = float(os.environ.get('MUTATE_SECONDS', 60 if SANITIZED else 30))
SEED = int(os.environ.get('MUTATE_SEED', 20261123))

env = dict(os.environ)
env['LSAN_OPTIONS'] = ':'.join(filter(None, [
    env.get('LSAN_OPTIONS'),
    'suppressions=' + os.path.join(SRC, 'tests/render/lsan.supp'),
    'print_suppressions=0']))

help_text = subprocess.run([W, '--help'], capture_output=True, text=True).stdout
COMMANDS = [['info'], ['dump'], ['dump', '--cycles'], ['why', '--all'],
            ['stats'], ['stats', '--json'],
            ['export', '--format', 'chrome', '-o', 'out.json'],
            ['ctf', '-o', 'ctfdir'], ['snapshot', '-o', 'snap.weft'],
            ['html', '-o', 'out.html']]
if '\n  render ' in help_text:
    COMMANDS.append(['render', '-o', 'out.png'])
# weft query: the standard views over each mutant (tests/cli/test-query.py)
if '\n  query ' in help_text:
    COMMANDS.append(['query', 'SELECT count(*) FROM runs; SELECT * FROM '
                     'latency_by_kind; SELECT * FROM faults; SELECT * FROM '
                     'loop_iterations; SELECT count(*) FROM waits_by_target'])


def seeds(tmp):
    """Small real traces: the corpus's, and a few recorded now."""
    out = []
    corpus = os.path.join(SRC, 'tests/fuzz/corpus')
    for name in sorted(os.listdir(corpus)):
        if name.startswith('seed-') and 'flip' not in name:
            data = open(os.path.join(corpus, name), 'rb').read()
            if data.startswith(b'WEFTRING') and len(data) > 4096:
                out.append((name, data))
    ex = os.path.join(BUILD, 'examples')
    for name, argv, extra in [('arp', ['arp', 'bad'], {}),
                              ('verdicts', ['verdicts'], {}),
                              ('ticker', ['ticker', '0.1'],
                               {'WEFT_SIZE': '48K'})]:
        path = os.path.join(tmp, name + '.weft')
        e = dict(env, WEFT_FILE=path, **extra)
        prog = os.path.join(ex, argv[0])
        if not os.path.exists(prog):
            continue
        subprocess.run([prog] + argv[1:], env=e, capture_output=True,
                       timeout=60)
        if os.path.exists(path):
            out.append((name, open(path, 'rb').read()))
    return out


def mutate(rnd, data):
    b = bytearray(data)
    hs = struct.unpack_from('<I', b, 12)[0] if len(b) >= 16 else 4096
    ps = struct.unpack_from('<I', b, 24)[0] if len(b) >= 28 else 1024
    if not (1024 <= ps <= 65536) or hs <= 0 or hs > len(b):
        hs, ps = 4096, 1024
    npk = max(1, (len(b) - hs) // ps)
    used = [k for k in range(npk)
            if hs + k * ps + 32 <= len(b) and
            struct.unpack_from('<Q', b, hs + k * ps + 24)[0]]
    for _ in range(rnd.choice([1, 1, 2, 3, 8])):
        op = rnd.randrange(9)
        if op == 0:                                   # a bit anywhere
            p = rnd.randrange(len(b))
            b[p] ^= 1 << rnd.randrange(8)
        elif op == 1:                                 # a header field
            off = rnd.randrange(0, min(hs, 400)) & ~3
            size = rnd.choice([1, 2, 4, 8])
            v = rnd.choice([0, 1, 0x7f, 0x80, 0xff, 0xffff, 0xffffffff,
                            2 ** 63, 2 ** 64 - 1, rnd.getrandbits(64)])
            b[off:off + size] = (v % 2 ** (8 * size)).to_bytes(size, 'little')
        elif op == 2 and used:                        # a packet header field
            pk = hs + rnd.choice(used) * ps
            off = pk + rnd.choice([0, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96])
            v = rnd.choice([0, 1, 2 ** 63, 2 ** 64 - 1, ps * 8, ps * 8 + 8,
                            rnd.getrandbits(64)])
            b[off:off + 8] = (v % 2 ** 64).to_bytes(8, 'little')
        elif op == 3 and used:                        # event bytes
            pk = hs + rnd.choice(used) * ps
            p = pk + 100 + rnd.randrange(max(1, ps - 108))
            for k in range(rnd.randrange(1, 16)):
                if p + k < len(b):
                    b[p + k] = rnd.choice([0, 0x1f, 0x3f, 0x80, 0xff,
                                           rnd.randrange(256)])
        elif op == 4:                                 # cut short
            del b[rnd.randrange(len(b)):]
            if not b:
                b = bytearray(data[:8])
        elif op == 5:                                 # a range zeroed
            p = rnd.randrange(len(b))
            n = rnd.choice([8, 100, 4096, ps])
            b[p:p + n] = bytes(len(b[p:p + n]))
        elif op == 6 and len(used) > 1:               # packets swapped
            x, y = rnd.sample(used, 2)
            px, py = hs + x * ps, hs + y * ps
            b[px:px + ps], b[py:py + ps] = b[py:py + ps], b[px:px + ps]
        elif op == 7 and used:                        # a packet copied over
            x = rnd.choice(used)
            y = rnd.randrange(npk)
            px, py = hs + x * ps, hs + y * ps
            b[py:py + ps] = b[px:px + ps]
        elif op == 8 and len(b) >= 212:               # text not UTF-8
            bad = rnd.choice([b'\xe9', b'\xed\xa0\x80', b'\xf4\x90\x80\x80',
                              b'\xc0\x80', b'\xe0\x80\x80', b'\xff\xfe'])
            soff, sused = struct.unpack_from('<I', b, 192)[0], \
                struct.unpack_from('<I', b, 208)[0]
            if used and rnd.randrange(2):   # in the events (texts)
                pk = hs + rnd.choice(used) * ps
                p = pk + 100 + rnd.randrange(max(1, ps - 112))
            elif sused:                     # in the interned names
                p = soff + rnd.randrange(sused)
            else:
                continue
            if p + len(bad) <= len(b):
                b[p:p + len(bad)] = bad
    return bytes(b)


def check(cmd, tmp, path):
    """None if fine, else what went wrong."""
    for junk in ('ctfdir',):
        shutil.rmtree(os.path.join(tmp, junk), ignore_errors=True)
    try:
        p = subprocess.run([W] + cmd[:1] + [path] + cmd[1:], cwd=tmp, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=10)
    except subprocess.TimeoutExpired:
        return 'hang (10 s)'
    err = p.stderr.decode('utf-8', 'replace')
    if p.returncode not in (0, 1):
        return 'exit %d: %s' % (p.returncode, err[-800:])
    if 'runtime error' in err or 'Sanitizer' in err:
        return 'sanitizer: ' + err[-1500:]
    try:
        if cmd == ['stats', '--json'] and p.returncode == 0:
            json.loads(p.stdout)
        if cmd[0] == 'export' and p.returncode == 0:
            json.load(open(os.path.join(tmp, 'out.json')))
        if cmd[0] in ('dump', 'info', 'stats', 'why'):
            p.stdout.decode('utf-8')
    except (ValueError, UnicodeDecodeError) as e:
        return 'bad output: %s' % e
    return None


def main():
    tmp = tempfile.mkdtemp(prefix='weft-mutate.')
    try:
        base = seeds(tmp)
        rnd = random.Random(SEED)
        t_end = time.monotonic() + SECONDS
        n = runs = 0
        failures = []
        while time.monotonic() < t_end and len(failures) < 5:
            name, data = rnd.choice(base)
            m = mutate(rnd, data)
            path = os.path.join(tmp, 'm.weft')
            open(path, 'wb').write(m)
            n += 1
            for cmd in COMMANDS:
                runs += 1
                what = check(cmd, tmp, path)
                if what:
                    keep = os.path.join(SRC, 'tests/last-mutants')
                    os.makedirs(keep, exist_ok=True)
                    kept = os.path.join(keep, 'mutant-%d-%s' % (n, name))
                    open(kept, 'wb').write(m)
                    failures.append('weft %s %s: %s' % (
                        cmd[0], kept, what))
                    break
        print('1..2')
        print('ok 1 - %d seed traces' % len(base) if base else
              'not ok 1 - no seed traces')
        if failures:
            print('not ok 2 - mutants through every reading command')
            for f in failures:
                print('# ' + f.replace('\n', '\n# '))
        else:
            print('ok 2 - %d mutants through every reading command '
                  '(%d runs, seed %d)' % (n, runs, SEED))
        return 1 if failures or not base else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
