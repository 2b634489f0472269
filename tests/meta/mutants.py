#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mutants.py SRC MUTANTS - the mutation check: every seeded mutant of
MUTANTS (tests/meta/mutants) must be killed by the tests it names.

Builds scratch copies of the source tree SRC (no optional parts but
those a mutant `needs`, -O0; $WEFT_MUTANT_JOBS of them, default the
cores up to 2, run side by side, and one of their own for the mutants
that need a part slow to rebuild, see APART), checks that the named tests
pass on them unchanged, then for each mutant, in one of the copies:
patches its line, rebuilds (incrementally), runs its tests, and puts the
line back.  A mutant whose line is not found exactly once, that does not
compile, or that every one of its tests lets pass, fails the check.  TAP,
one case per mutant.  $WEFT_MUTANT_TIMEOUT (seconds, default 300) bounds
each test run.
"""
import fnmatch
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

TIMEOUT = int(os.environ.get('WEFT_MUTANT_TIMEOUT', '300'))


def parse(path):
    muts, cur = [], None
    for n, line in enumerate(open(path), 1):
        s = line.strip()
        if not s or s.startswith('#'):
            continue
        if s.startswith('[') and s.endswith(']'):
            cur = {'name': s[1:-1], 'find': [], 'replace': [], 'line': n}
            muts.append(cur)
            continue
        key, _, val = s.partition(':')
        if cur is None or key not in ('file', 'find', 'replace', 'tests',
                                      'needs'):
            raise SystemExit('%s:%d: cannot parse "%s"' % (path, n, s))
        val = val.strip()
        if key in ('find', 'replace'):
            cur[key].append(val)
        else:
            cur[key] = val
    for m in muts:
        for k in ('file', 'find', 'replace', 'tests'):
            if not m.get(k):
                raise SystemExit('%s:%d: mutant %s has no %s' %
                                 (path, m['line'], m['name'], k))
    return muts


def sources(src):
    """The files of the tree: git's list when it is a clone, else a walk
    that leaves out build directories."""
    try:
        out = subprocess.run(['git', '-C', src, 'ls-files', '-co',
                              '--exclude-standard', '-z'],
                             capture_output=True, check=True).stdout
        return [f for f in out.decode().split('\0') if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(src):
            rel = os.path.relpath(d, src)
            dirs[:] = [x for x in dirs if not (
                x.startswith('build') or x in ('.git', 'node_modules',
                                               'demo'))]
            files += [os.path.normpath(os.path.join(rel, x)) for x in names]
        return files


def locate(root, files, m):
    """(file, index) of the mutant's lines in the scratch copy, or an
    error message."""
    hits = []
    want = m['find']
    for f in files:
        if not fnmatch.fnmatch(f, m['file']):
            continue
        lines = open(os.path.join(root, f), errors='replace').read() \
            .split('\n')
        strip = [l.strip() for l in lines]
        for i in range(len(strip) - len(want) + 1):
            if strip[i:i + len(want)] == want:
                hits.append((f, i))
    if len(hits) != 1:
        return None, ('its line "%s" is %s in %s: update tests/meta/'
                      'mutants where the code moved' %
                      (' / '.join(want),
                       'nowhere' if not hits else 'in %d places' % len(hits),
                       m['file']))
    return hits[0], None


def run(cmd, cwd, timeout=None):
    """(status or 'timeout', output).  In a session of its own: at the
    timeout its whole process group goes (a mutant that keeps a test's
    background process alive must not leave it running, polling, while
    the check goes on)."""
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True,
                         start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, _ = p.communicate()
        return 'timeout', out


def test_runs(spec):
    """'model:a,b cli' -> [('model', ['a', 'b']), ('cli', [])]"""
    out = []
    for t in spec.split():
        name, _, cases = t.partition(':')
        out.append((name, [c for c in cases.split(',') if c]))
    return out


def tests_pass(build, name, cases):
    cmd = ['meson', 'test', '-C', build, '--no-rebuild', '--num-processes',
           '1', name]
    if cases:
        cmd += ['--test-args', ' '.join(cases)]
    rc, out = run(cmd, build, TIMEOUT)
    return rc == 0, out


def where(src, muts):
    """--where: only that every mutant's line is found once (seconds, so
    that a moved line fails the quick suite, not half an hour into the
    check)."""
    files = sources(src)
    print('1..%d' % len(muts))
    bad = 0
    for n, m in enumerate(muts, 1):
        _, err = locate(src, files, m)
        if err:
            bad += 1
            print('not ok %d - mutant %s: %s' % (n, m['name'], err))
        else:
            print('ok %d - mutant %s' % (n, m['name']))
    return 1 if bad else 0


def main():
    if sys.argv[1] == '--where':
        return where(sys.argv[2], parse(sys.argv[3]))
    src, mutfile = sys.argv[1], sys.argv[2]
    muts = parse(mutfile)
    print('1..%d' % len(muts))
    sys.stdout.flush()
    tmp = tempfile.mkdtemp(prefix='weft-mutants.',
                           dir=os.environ.get('TMPDIR'))
    try:
        return Check(src, muts, tmp).run()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# Optional parts whose build is slow to redo: a mutant that needs one gets
# a scratch build of its own with it, so that the other mutants' rebuilds
# (of the reader, the renderer) do not recompile it (the WebAssembly
# viewer: 17 minutes of check became 51 with it in the one build).
APART = ('wasm',)


class Check:
    """Scratch builds, each a copy of the tree of its own: JOBS of the
    plain kind (every optional part a mutant needs but those APART), one
    more per part APART that a mutant needs.  A thread per build sets it
    up, runs its share of its kind's unchanged tests (the builds of a
    kind take them in turn) and, once all have passed, takes its kind's
    mutants one at a time."""

    def __init__(self, src, muts, tmp):
        self.src, self.tmp = src, tmp
        self.files = sources(src)
        needs = sorted({f for m in muts for f in m.get('needs', '').split()})
        self.common = [f for f in needs if f not in APART]
        jobs = int(os.environ.get('WEFT_MUTANT_JOBS', '0')) or \
            min(2, os.cpu_count() or 1)
        self.queues = {}
        for m in muts:
            self.queues.setdefault(self.kind(m), []).append(m)
        self.builds = []
        for kind in sorted(self.queues, key=lambda k: (k != '', k)):
            n = jobs if kind == '' else 1
            n = min(n, len(self.queues[kind]))
            for i in range(n):
                self.builds.append((kind, i))
        self.lock = threading.Lock()
        self.ready = {k: threading.Event() for k in self.queues}
        # each kind's unchanged tests, once each, for its builds to share
        self.base, self.base_left = {}, {}
        for kind, q in self.queues.items():
            needed = []
            for m in q:
                for t in test_runs(m['tests']):
                    if t not in needed:
                        needed.append(t)
            self.base[kind], self.base_left[kind] = needed, len(needed)
        self.t0 = time.time()
        self.bad = None
        self.k = 0
        self.failed = 0

    @staticmethod
    def kind(m):
        return ' '.join(f for f in m.get('needs', '').split() if f in APART)

    def say(self, line):
        with self.lock:
            if self.bad is None:
                print(line)
                sys.stdout.flush()

    def bail(self, why):
        with self.lock:
            if self.bad is None:
                self.bad = why
                print('Bail out! ' + why)
                sys.stdout.flush()
        for e in self.ready.values():
            e.set()

    def setup(self, kind, i):
        name = 'b%d%s' % (i, '-' + kind.replace(' ', '-') if kind else '')
        root = os.path.join(self.tmp, name, 'src')
        for f in self.files:
            s = os.path.join(self.src, f)
            if os.path.isfile(s) and not os.path.islink(s):
                os.makedirs(os.path.dirname(os.path.join(root, f)),
                            exist_ok=True)
                shutil.copy2(s, os.path.join(root, f))
        # the node modules (package-lock.json's) that node tests require,
        # as the source tree has them: linked, not copied
        nm = os.path.join(os.path.abspath(self.src), 'node_modules')
        if os.path.isdir(nm):
            os.symlink(os.path.realpath(nm),
                       os.path.join(root, 'node_modules'))
        build = os.path.join(self.tmp, name, 'build')
        on = self.common + kind.split()
        rc, out = run(['meson', 'setup', build, root,
                       '-Dauto_features=disabled', '-Dbuildtype=debug',
                       '-Dwerror=false', '-Db_sanitize=none',
                       '-Dlibfuzzer=false', '-Dquery=enabled'] +
                      ['-D%s=enabled' % f for f in on], self.tmp)
        if rc == 0:
            rc, out = run(['ninja', '-C', build], self.tmp)
        if rc != 0:
            self.bail('the scratch copy%s does not build:\n# %s' %
                      (' with ' + kind if kind else '',
                       '\n# '.join(out.splitlines()[-20:])))
            return None
        return root, build

    def baseline(self, kind, build):
        """The tests must pass on the code as it is, or a kill means
        nothing.  The builds of a kind share them out: each takes the
        next test not yet run until none is left.  (A test that fails is
        run again once: the other builds compile meanwhile, and a test
        sensitive to load is not what this check is about.)  True once
        this build has no more to run and none of its tests failed."""
        while True:
            with self.lock:
                if self.bad is not None:
                    return False
                if not self.base[kind]:
                    return True
                name, cases = self.base[kind].pop(0)
            ok, out = tests_pass(build, name, cases)
            if not ok:
                ok, out = tests_pass(build, name, cases)
            if not ok:
                self.bail('%s %s fails on the unchanged copy:\n# %s' %
                          (name, ' '.join(cases),
                           '\n# '.join(out.splitlines()[-20:])))
                return False
            with self.lock:
                self.base_left[kind] -= 1
                last = self.base_left[kind] == 0
            if last:
                self.say('# scratch build%s and unchanged tests: %.0f s' %
                         (' with ' + kind if kind else '',
                          time.time() - self.t0))
                self.ready[kind].set()

    def worker(self, kind, i):
        got = self.setup(kind, i)
        if not got:
            return
        root, build = got
        if not self.baseline(kind, build):
            return
        self.ready[kind].wait()
        while True:
            with self.lock:
                if self.bad is not None or not self.queues[kind]:
                    return
                m = self.queues[kind].pop(0)
            t0 = time.time()
            verdict, why = mutate(root, build, self.files, m)
            with self.lock:
                if self.bad is not None:
                    return
                self.k += 1
                if verdict:
                    print('ok %d - mutant %s killed by %s (%.0f s)' %
                          (self.k, m['name'], why, time.time() - t0))
                else:
                    self.failed += 1
                    print('not ok %d - mutant %s: %s' %
                          (self.k, m['name'], why))
                sys.stdout.flush()

    def run(self):
        threads = [threading.Thread(target=self.worker, args=b)
                   for b in self.builds]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return 1 if self.bad is not None or self.failed else 0


def mutate(root, build, files, m):
    hit, err = locate(root, files, m)
    if err:
        return False, err
    f, i = hit
    path = os.path.join(root, f)
    orig = open(path).read()
    lines = orig.split('\n')
    indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
    lines[i:i + len(m['find'])] = [indent + r for r in m['replace']]
    # a new mtime, so that ninja sees the change however fast we are
    with open(path, 'w') as fh:
        fh.write('\n'.join(lines))
    try:
        rc, out = run(['ninja', '-C', build], root)
        if rc != 0:
            return False, ('does not compile (%s:%d): fix its replace:\n# %s'
                           % (f, i + 1, '\n# '.join(out.splitlines()[-8:])))
        skipped = []
        for name, cases in test_runs(m['tests']):
            ok, out = tests_pass(build, name, cases)
            if not ok:
                return True, '%s %s' % (name, ' '.join(cases))
            if re.search(r'# SKIP|\bSKIP\b|[1-9][0-9]* skipped', out):
                skipped.append(name)
        # (a case that skips in the scratch copy, for want of an optional
        # part the mutant does not name in `needs:`, cannot fail there)
        why = (': %s skipped something there (a part missing from its '
               '`needs:`?)' % ', '.join(skipped)) if skipped else ''
        return False, ('survived %s: a test that should catch it cannot '
                       'fail (%s:%d)%s' % (m['tests'], f, i + 1, why))
    finally:
        with open(path, 'w') as fh:
            fh.write(orig)
        st = os.stat(path)
        os.utime(path, (st.st_atime, st.st_mtime + 1))


if __name__ == '__main__':
    sys.exit(main())
