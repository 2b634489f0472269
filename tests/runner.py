#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""runner.py - tests/run's bookkeeping, in one place that its self-test
(tests/meta/test-runner.sh) exercises on a project broken on purpose.

  runner.py setup NAME DIR [--cc CC] [--source SRC] -Dkey=value...
      Configures the build directory DIR with these options and builds it.
      A DIR that exists is reconfigured where its options differ (with
      -Dauto_features, every feature option must follow it: be "auto"), and
      made anew when its compiler is not CC.
  runner.py test NAME DIR PROGRAMS
      Runs, in DIR, the test programs that PROGRAMS registers for the build
      NAME, and prints one TAP line per case:
        ok - NAME/PROGRAM: CASE
        ok - NAME/PROGRAM: CASE # SKIP why
        not ok - NAME/PROGRAM: CASE
      A program's ok lines stand only as far as meson's verdict on the
      whole program allows: a crash, a time-out, a non-zero exit, no plan
      or a plan the cases do not match adds a failure of the program,
      whatever came before.  A program registered for NAME that did not
      run fails; so does a test meson knows that PROGRAMS does not name,
      and a name meson has for two tests (in two suites).
      The log of an earlier run is never read as this one's, and meson's
      exit status is checked.
  runner.py total FILE...
      Explains every skip, then prints the closing line
      "N passed, N failed, N skipped"; exit status 1 when anything failed
      or nothing passed.

Both setup and test print "not ok - NAME # why" lines when they fail, so
that a broken build is counted, and details on stderr.

PROGRAMS (tests/programs): one test program a line, its meson test name
and then the builds that must run it; '#' starts a comment.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

CASE = re.compile(r'^(not )?ok\b\s*(\d+)?\s*(?:-\s*)?(.*)$')
PLAN = re.compile(r'^1\.\.(\d+)\s*(?:#\s*(.*))?$')
SKIP = re.compile(r'\s#\s*SKIP\b\s*(.*)$', re.I)
FEATURE = ['auto', 'disabled', 'enabled']
# meson's verdicts that let a program's own lines stand
GOOD = ('OK', 'SKIP')


def err(*lines):
    for l in lines:
        sys.stderr.write(l.rstrip('\n') + '\n')


def registered(path, build=None):
    """The programs PROGRAMS registers for BUILD (None: for any)."""
    names, seen = [], set()
    for n, line in enumerate(open(path), 1):
        f = line.split('#', 1)[0].split()
        if not f:
            continue
        if len(f) < 2:
            raise SystemExit('%s:%d: %s has no build' % (path, n, f[0]))
        if f[0] in seen:
            raise SystemExit('%s:%d: %s is named twice' % (path, n, f[0]))
        seen.add(f[0])
        if build is None or build in f[1:]:
            names.append(f[0])
    return names


# ---------------------------------------------------------------- setup

def intro(d, what):
    name = 'meson-info.json' if what == 'info' else 'intro-%s.json' % what
    with open(os.path.join(d, 'meson-info', name)) as f:
        return json.load(f)


def differing(d, want):
    """The -D arguments that would give DIR the options `want`."""
    opts = intro(d, 'buildoptions')
    have = {o['name']: o['value'] for o in opts}
    want = dict(want)
    if 'auto_features' in want:
        for o in opts:
            # (meson shows a feature option as a combo of these three)
            if o['section'] == 'user' and o['type'] in ('feature', 'combo') \
                    and sorted(o.get('choices') or []) == FEATURE:
                want.setdefault(o['name'], 'auto')
    out = []
    for k, v in want.items():
        h = have.get(k)
        h = ('true' if h else 'false') if isinstance(h, bool) else str(h)
        if h != v:
            out.append('-D%s=%s' % (k, v))
    return out


def logpath(name):
    """A fresh log file in $WEFT_RUN_LOGS (tests/run's scratch)."""
    d = os.environ.get('WEFT_RUN_LOGS') or tempfile.gettempdir()
    p = os.path.join(d, name)
    if os.path.exists(p):
        os.unlink(p)
    return p


def compiler_id(d):
    """'gcc', 'clang' or None: the C compiler DIR's build.ninja runs (meson
    1.0 has no introspection of it)."""
    try:
        with open(os.path.join(d, 'build.ninja')) as f:
            m = re.search(r'^rule c_COMPILER\n\s*command\s*=\s*(\S+)',
                          f.read(), re.M)
        v = subprocess.run([m.group(1), '--version'], capture_output=True,
                           text=True).stdout
    except (OSError, AttributeError):
        return None
    return 'clang' if 'clang' in v else 'gcc' if 'Free Software' in v else v


def run_logged(cmd, logf, env=None):
    with open(logf, 'a') as f:
        f.write('$ %s\n' % ' '.join(cmd))
        f.flush()
        return subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT,
                               env=env)


def tail(path, n):
    try:
        with open(path, errors='replace') as f:
            return f.read().splitlines()[-n:]
    except OSError:
        return []


def setup(args):
    name, d = args[0], args[1]
    rest = args[2:]
    cc, src = None, '.'
    while rest[:1] in (['--cc'], ['--source']):
        if rest[0] == '--cc':
            cc = rest[1]
        else:
            src = rest[1]
        rest = rest[2:]
    want = [a[2:].split('=', 1) for a in rest]
    logf = logpath('setup-%s.log' % name)
    if os.path.exists(os.path.join(d, 'build.ninja')) and cc:
        have = compiler_id(d)
        if have != cc:
            err('== %s: %s was configured for %s, not %s: anew' %
                (name, d, have, cc))
            shutil.rmtree(d)
    env = dict(os.environ)
    if cc:
        env['CC'] = cc
    if not os.path.exists(os.path.join(d, 'build.ninja')):
        if run_logged(['meson', 'setup', d, src] + rest, logf, env):
            err(*tail(logf, 30))
            print('not ok - %s # meson setup %s %s failed' %
                  (name, d, ' '.join(rest)))
            return 1
    else:
        try:
            diff = differing(d, want)
        except (OSError, ValueError) as e:
            diff = None
            err('== %s: cannot read the options of %s (%s): anew' %
                (name, d, e))
        if diff is None:
            if run_logged(['meson', 'setup', '--wipe', d, src] + rest, logf,
                          env):
                err(*tail(logf, 30))
                print('not ok - %s # meson setup --wipe %s failed' %
                      (name, d))
                return 1
        elif diff:
            err('== %s: reconfiguring %s: %s' % (name, d, ' '.join(diff)))
            # (setup --reconfigure, not configure: it knows options added
            # to meson_options.txt since the directory was made)
            try:  # (the source it was made from)
                where = intro(d, 'info')['directories']['source']
            except (OSError, KeyError, ValueError):
                where = src
            if run_logged(['meson', 'setup', '--reconfigure', d, where] +
                          diff, logf, env):
                err(*tail(logf, 30))
                print('not ok - %s # reconfiguring %s with %s failed' %
                      (name, d, ' '.join(diff)))
                return 1
    if run_logged(['ninja', '-C', d], logf, env):
        err(*tail(logf, 50))
        print('not ok - %s # the build in %s failed' % (name, d))
        return 1
    return 0


# ---------------------------------------------------------------- test

def status(code):
    if code is None:
        return 'no exit status'
    if code < 0:
        return 'killed by signal %d' % -code
    return 'exit status %d' % code


def program(t, build, proto, out):
    """Appends the lines of one test program (a testlog.json entry)."""
    name = '%s/%s' % (build, t['name'])
    result = t.get('result')
    code = t.get('returncode')
    stdout = t.get('stdout') or ''
    cases, plans, problems = [], [], []
    for line in stdout.splitlines():
        m = PLAN.match(line)
        if m:
            plans.append((int(m.group(1)), m.group(2) or ''))
            continue
        m = CASE.match(line)
        if m:
            cases.append((not m.group(1), m.group(2), m.group(3)))

    if proto != 'tap':
        # one verdict for the whole program
        if result == 'SKIP':
            why = (stdout or t.get('stderr') or '').strip().splitlines()
            out.append('ok - %s # SKIP %s' %
                       (name, why[-1] if why else 'no reason given'))
        elif result == 'OK' and code == 0:
            out.append('ok - %s' % name)
        else:
            problems.append('meson: %s, %s' % (result, status(code)))
    elif len(plans) == 1 and plans[0][0] == 0 and not cases:
        # "1..0 # SKIP why": the whole program skipped itself
        why = re.sub(r'^SKIP\S*\s*', '', plans[0][1], flags=re.I)
        out.append('ok - %s # SKIP %s' % (name, why or 'no reason given'))
        if result not in GOOD or code != 0:
            problems.append('meson: %s, %s' % (result, status(code)))
    else:
        for k, (ok, num, desc) in enumerate(cases, 1):
            m = SKIP.search(desc)
            why = m.group(1) if m else ''
            desc = desc[:m.start()] if m else desc
            label = '%s: %s' % (name, desc.strip() or '#%d' % k)
            if num is not None and int(num) != k:
                problems.append('case %d is numbered %s' % (k, num))
            if re.search(r'\s#\s*TODO\b', desc, re.I):
                problems.append('%s is marked TODO' % label)
            if ok and m:
                out.append('ok - %s # SKIP %s' %
                           (label, why or 'no reason given'))
            elif ok:
                out.append('ok - %s' % label)
            else:
                out.append('not ok - %s' % label)
        failing = any(not ok for ok, _, _ in cases)
        if result in ('FAIL', 'ERROR') and failing and code in (0, 1):
            pass  # meson's verdict is the failing cases, counted above
        elif result not in GOOD:
            problems.append('meson: %s, %s after %d cases' %
                            (result, status(code), len(cases)))
        elif code != 0 and not failing:
            problems.append('%s after %d cases' % (status(code), len(cases)))
        if not plans:
            problems.append('no TAP plan (1..N)')
        elif len(plans) > 1:
            problems.append('%d TAP plans' % len(plans))
        elif plans[0][0] != len(cases):
            problems.append('a plan of %d, %d cases ran' %
                            (plans[0][0], len(cases)))
    # a program that failed in any of these ways fails once more as a
    # whole, whatever its cases said
    if problems:
        out.append('not ok - %s # %s' % (name, '; '.join(problems)))


def tally(d, build, programs, mstatus, out):
    """Appends the lines of the run meson just made in D."""
    want = registered(programs, build)
    known = registered(programs)
    path = os.path.join(d, 'meson-logs', 'testlog.json')
    try:
        # how meson runs each program (the log does not say)
        proto = {t['name']: t.get('protocol', 'exitcode')
                 for t in intro(d, 'tests')}
        with open(path) as f:
            entries = [json.loads(l) for l in f if l.strip()]
    except (OSError, ValueError) as e:
        out.append('not ok - %s # no test log from meson (%s)' % (build, e))
        return
    # a name meson has twice: `meson test NAME` runs both, and either
    # could go (its registration deleted) unnoticed
    names = [t['name'] for t in intro(d, 'tests')]
    for n in sorted(set(names)):
        if names.count(n) > 1:
            out.append('not ok - %s/%s # meson has %d tests of this name: '
                       'give each test a name of its own' %
                       (build, n, names.count(n)))
    for n in sorted(proto):
        if n not in known:
            out.append('not ok - %s/%s # meson has this test, but '
                       'tests/programs does not name it: add it there' %
                       (build, n))
    ran = set()
    for t in entries:
        # ("project:suite / name" when meson shows suites)
        t['name'] = t['name'].split(' / ', 1)[-1]
        ran.add(t['name'])
        program(t, build, proto.get(t['name'], 'exitcode'), out)
    for n in want:
        if n not in ran:
            out.append('not ok - %s/%s # registered for %s in tests/'
                       'programs, but meson did not run it (its dependency '
                       'missing? its test() gone?)' % (build, n, build))
    if mstatus and not any(l.startswith('not ok') for l in out):
        out.append('not ok - %s # meson test exited %d' % (build, mstatus))


def test(args):
    name, d, programs = args[:3]
    want = registered(programs, name)
    log = os.path.join(d, 'meson-logs', 'testlog.json')
    if os.path.exists(log):
        os.unlink(log)  # never read an earlier run's log as this one's
    outf = logpath('test-%s.log' % name)
    with open(outf, 'w') as f:
        mstatus = subprocess.call(
            ['meson', 'test', '-C', d, '--print-errorlogs',
             '--num-processes', '1'] + want,
            stdout=f, stderr=subprocess.STDOUT)
    out = []
    tally(d, name, programs, mstatus, out)
    print('\n'.join(out))
    bad = [l for l in out if l.startswith('not ok')]
    if bad:
        err(*bad)
        err(*[l for l in tail(outf, 400)
              if re.match(r'^(#|not ok)|.*(FAIL|ERROR|TIMEOUT|rror)', l)][-40:])
    return 0


# ---------------------------------------------------------------- total

def total(files):
    passed = failed = skipped = 0
    skips = []
    for path in files:
        with open(path) as f:
            for line in f:
                line = line.rstrip('\n')
                if line.startswith('not ok'):
                    failed += 1
                elif line.startswith('ok'):
                    m = SKIP.search(line)
                    if m:
                        skipped += 1
                        skips.append(line[len('ok - '):])
                    else:
                        passed += 1
    for s in skips:
        print('skipped: ' + s)
    print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))
    return 0 if failed == 0 and passed > 0 else 1


def main():
    a = sys.argv[1:]
    if len(a) >= 3 and a[0] == 'setup':
        return setup(a[1:])
    if len(a) == 4 and a[0] == 'test':
        return test(a[1:])
    if len(a) >= 2 and a[0] == 'total':
        return total(a[1:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main())
