#!/bin/bash
# SPDX-License-Identifier: MIT
# test-runner.sh - tests/run's bookkeeping (tests/runner.py and the C
# harness) on a small meson project broken on purpose: a program that
# crashes after printing ok lines, one that times out, a short plan, a
# non-zero exit after every case passed, no plan, skips (one case, a whole
# program), a registered program that does not run, a test nobody
# registered, a build that no longer configures (the earlier log must not
# be read), a build directory made without the options the suite needs,
# and one made with another compiler.  Each must come out as exactly the
# lines written here.  TAP.
set -u
export LC_ALL=C
: "${WEFT_SRC:?}"
RUNNER=$WEFT_SRC/tests/runner.py
T=$(mktemp -d "${TMPDIR:-/tmp}/weft-runner.XXXXXX")
trap 'rm -rf "$T"' EXIT
export WEFT_RUN_LOGS=$T/logs
mkdir -p "$WEFT_RUN_LOGS" "$T/p"
cd "$T" || exit 1
n=0 fails=0
check() { # name expected-file actual-file
	n=$((n + 1))
	if diff -u "$2" "$3" >"$T/diff"; then
		echo "ok $n - $1"
	else
		fails=$((fails + 1))
		echo "not ok $n - $1"
		sed 's/^/# /' "$T/diff"
	fi
}

cp "$WEFT_SRC/tests/harness.h" p/
cat >p/t.sh <<'EOF'
case $1 in
good) echo 1..2; echo ok 1 - a; echo ok 2 - b ;;
segv) echo 1..3; echo ok 1 - a; echo ok 2 - b; kill -SEGV $$ ;;
hang) echo 1..3; echo ok 1 - a; echo ok 2 - b; exec sleep 30 ;;
short) echo 1..9; echo ok 1 - a ;;
exit3) echo ok 1 - a; echo 1..1; exit 3 ;;
noplan) echo ok 1 - a ;;
skipcase) echo 1..2; echo ok 1 - a; echo "ok 2 - b # SKIP no display here" ;;
skipall) echo "1..0 # SKIP no frobnicator here" ;;
notok) echo 1..2; echo "not ok 1 - a"; echo ok 2 - b; exit 1 ;;
esac
EOF
cat >p/h.c <<'EOF'
#include "harness.h"
TEST(passes) { CHECK_EQ(1 + 1, 2); }
TEST(skips) { SKIP("no frobnicator here"); }
TEST(crashes) { raise(SIGSEGV); }
TEST(hangs) { pause(); }
TEST(fails) { CHECK_EQ(1 + 1, 3); }
TEST_MAIN(T(passes), T(skips), T(crashes), T(hangs), T(fails))
EOF
cat >p/meson_options.txt <<'EOF'
option('opt', type: 'feature', value: 'auto')
EOF
cat >p/meson.build <<'EOF'
project('p', 'c')
sh = find_program('sh')
foreach c : ['good', 'segv', 'hang', 'short', 'exit3', 'noplan', 'skipcase',
             'skipall', 'notok']
  test(c, sh, args: [files('t.sh'), c], protocol: 'tap', timeout: 2)
endforeach
test('harness', executable('h', 'h.c'), protocol: 'tap', suite: 'unit',
  env: ['WEFT_TEST_TIMEOUT=1'])
test('exitskip', sh, args: ['-c', 'echo not here; exit 77'])
# registered only when its "dependency" is found
if find_program('sh', required: get_option('opt')).found() and get_option('opt').enabled()
  test('optional', sh, args: [files('t.sh'), 'good'], protocol: 'tap')
endif
EOF
cat >programs <<'EOF'
# a comment
good      b
segv      b
hang      b
short     b
exit3     b
noplan    b
skipcase  b
skipall   b
notok     b   other
harness   b
exitskip  b
optional  b
gone      b
EOF

# A build directory made without the options the suite needs (as
# `meson setup build` would, here with the optional part off by hand):
# reconfigured, so the optional program runs.
meson setup p/b p -Dopt=disabled -Dbuildtype=release >setup0.log 2>&1 || { cat setup0.log; exit 1; }
python3 "$RUNNER" setup b p/b -Dauto_features=enabled -Dbuildtype=debug >setup.tap 2>setup.err
python3 - p/b >opts.txt <<'EOF'
import json, sys
o = {x['name']: x['value'] for x in json.load(open(sys.argv[1] + '/meson-info/intro-buildoptions.json'))}
print(o['auto_features'], o['opt'], o['buildtype'])
EOF
echo "enabled auto debug" >want
check "a build directory with other options is reconfigured" want opts.txt
echo "== b: reconfiguring p/b: -Dauto_features=enabled -Dbuildtype=debug -Dopt=auto" >want
grep '^==' setup.err >got
check "... and says what it changed" want got
: >want
check "... and counts nothing when it builds" want setup.tap

# an option added to the project since the directory was made
echo "option('newer', type: 'boolean', value: false)" >>p/meson_options.txt
python3 "$RUNNER" setup b p/b -Dauto_features=enabled -Dbuildtype=debug -Dnewer=true >setup.tap 2>setup.err
python3 - p/b >opts.txt <<'EOF'
import json, sys
o = {x['name']: x['value'] for x in json.load(open(sys.argv[1] + '/meson-info/intro-buildoptions.json'))}
print(o['newer'])
EOF
echo "True" >want
check "an option added since the directory was made is set" want opts.txt

python3 "$RUNNER" test b p/b programs >test.tap 2>test.err
cat >want <<'EOF'
not ok - b/exit3 # meson: ERROR, exit status 3 after 1 cases
not ok - b/gone # registered for b in tests/programs, but meson did not run it (its dependency missing? its test() gone?)
not ok - b/hang # meson: TIMEOUT, killed by signal 15 after 2 cases; a plan of 3, 2 cases ran
not ok - b/harness: crashes # killed by signal 11
not ok - b/harness: fails
not ok - b/harness: hangs # timed out after 1s
not ok - b/noplan # no TAP plan (1..N)
not ok - b/notok: a
not ok - b/segv # meson: ERROR, killed by signal 11 after 2 cases; a plan of 3, 2 cases ran
not ok - b/short # meson: ERROR, exit status 0 after 1 cases; a plan of 9, 1 cases ran
ok - b/exit3: a
ok - b/exitskip # SKIP not here
ok - b/good: a
ok - b/good: b
ok - b/harness: passes
ok - b/harness: skips # SKIP no frobnicator here
ok - b/hang: a
ok - b/hang: b
ok - b/noplan: a
ok - b/notok: b
ok - b/optional: a
ok - b/optional: b
ok - b/segv: a
ok - b/segv: b
ok - b/short: a
ok - b/skipall # SKIP no frobnicator here
ok - b/skipcase: a
ok - b/skipcase: b # SKIP no display here
EOF
LC_ALL=C sort test.tap >got
LC_ALL=C sort -o want want
check "crashes, time-outs, short plans, exits, skips and missing programs counted" want got

python3 "$RUNNER" total test.tap >total.txt; rc=$?
cat >want <<'EOF'
skipped: b/exitskip # SKIP not here
skipped: b/harness: skips # SKIP no frobnicator here
skipped: b/skipall # SKIP no frobnicator here
skipped: b/skipcase: b # SKIP no display here
14 passed, 10 failed, 4 skipped
exit 1
EOF
{ grep "^skipped:" total.txt | LC_ALL=C sort; grep passed total.txt; echo "exit $rc"; } >got
check "the closing line counts skips apart and explains them" want got

# a test meson has that tests/programs does not name
sed -i '/^exitskip/d' programs
python3 "$RUNNER" test b p/b programs 2>/dev/null | grep exitskip >got
echo "not ok - b/exitskip # meson has this test, but tests/programs does not name it: add it there" >want
check "an unregistered test fails" want got

# only the programs registered for this build run
cat >programs2 <<'EOF'
good     b
skipcase other
EOF
python3 "$RUNNER" test b p/b programs2 2>/dev/null | grep -v "does not name it" >got
printf 'ok - b/good: a\nok - b/good: b\n' >want
check "a build runs what is registered for it" want got
python3 "$RUNNER" total got >total.txt; rc=$?
printf '2 passed, 0 failed, 0 skipped\n0\n' >want
{ cat total.txt; echo $rc; } >got
check "nothing failed: exit 0" want got

# two tests of one name (in two suites): `meson test good` runs both, so
# the registration of either could go unnoticed
cp p/meson.build meson.build.keep
echo "test('good', sh, args: [files('t.sh'), 'good'], protocol: 'tap', suite: 'other')" >>p/meson.build
python3 "$RUNNER" test b p/b programs2 2>/dev/null | grep "^not ok.*good" >got
echo "not ok - b/good # meson has 2 tests of this name: give each test a name of its own" >want
check "two tests of one name fail" want got
cp meson.build.keep p/meson.build
# meson's own exit status counts, when every case passed (an error of
# meson's after the tests ran): a meson that runs them, then exits 3
mkdir -p wrap
printf '#!/bin/sh\n"%s" "$@" || exit $?\n[ "$1" = test ] && exit 3\nexit 0\n' "$(command -v meson)" >wrap/meson
chmod +x wrap/meson
{ echo "good b"; for x in segv hang short exit3 noplan skipcase skipall notok harness exitskip optional; do echo "$x other"; done; } >programs4
PATH=$T/wrap:$PATH python3 "$RUNNER" test b p/b programs4 >got 2>/dev/null
printf 'ok - b/good: a\nok - b/good: b\nnot ok - b # meson test exited 3\n' >want
check "meson's non-zero exit fails the build's run" want got
# and a program named twice in tests/programs
printf 'good b\ngood other\n' >programs3
python3 "$RUNNER" test b p/b programs3 >got 2>&1
echo "programs3:2: good is named twice" >want
check "a program registered twice fails" want got

# The project no longer configures: meson runs nothing and writes no
# log; the previous run's must not be counted.
echo "syntax error here" >>p/meson.build
python3 "$RUNNER" test b p/b programs2 >got 2>/dev/null
echo "not ok - b # no test log from meson ([Errno 2] No such file or directory: 'p/b/meson-logs/testlog.json')" >want
check "an earlier run's log is not read as this one's" want got
python3 "$RUNNER" setup b p/b -Dauto_features=enabled >got 2>/dev/null; rc=$?
echo "not ok - b # the build in p/b failed" >want
check "a build that fails is counted" want got

# A dependency the suite needs is missing: with -Dauto_features=enabled
# the build fails instead of dropping its tests.
sed -i '$d' p/meson.build
sed -i "s/find_program('sh', required/find_program('weft-no-such-program', required/" p/meson.build
rm -rf p/b
python3 "$RUNNER" setup b p/b --source p -Dauto_features=enabled >got 2>/dev/null
echo "not ok - b # meson setup p/b -Dauto_features=enabled failed" >want
check "a missing dependency fails the setup" want got

# made with another compiler: made anew
if command -v clang >/dev/null; then
	sed -i "s/weft-no-such-program/sh/" p/meson.build
	rm -rf p/b
	CC=gcc meson setup p/b p >/dev/null 2>&1
	python3 "$RUNNER" setup b p/b --cc clang --source p >setup.tap 2>setup.err || cat setup.err setup.tap
	grep -A1 "^rule c_COMPILER" p/b/build.ninja | grep -o "command = [a-z]*" >got
	echo "command = clang" >want
	check "a build directory made with another compiler is made anew" want got
fi

echo "1..$n"
echo "# $((n - fails)) passed, $fails failed, 0 skipped"
[ $fails = 0 ]
