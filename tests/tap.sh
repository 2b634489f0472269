# SPDX-License-Identifier: MIT
# tests/tap.sh - what the shell test programs share: a scratch directory
# removed at exit, each case run in a shell of its own with a time limit,
# its TAP line, and the closing plan and count.
#
#   set -u
#   . "$WEFT_SRC/tests/tap.sh"
#   tap_init NAME            # T: the scratch directory (cases run in it)
#   TAP_TIMEOUT=300          # seconds a case may take (default 120)
#   t_case() { ...; die "what went wrong"; }
#   run "what it shows" t_case
#   TAP_CASES="$*"           # (before the runs) only the cases named, if any
#   tap_done                 # the plan, the count; the script's status
#
# A case passes when it exits 0 and is skipped when it exits 77 (its output
# says why); anything else fails, its last lines of output quoted.  Cases
# run in `bash -c`, so the script's functions are exported to them.

tap_init() { # name
	T=$(mktemp -d "${TMPDIR:-/tmp}/weft-$1.XXXXXX") || exit 1
	trap 'rm -rf "$T"' EXIT
	n=0 pass=0 failn=0 skipn=0
	TAP_TIMEOUT=${TAP_TIMEOUT:-120}
}

die() { echo "$*"; exit 1; }

run() { # name function
	# TAP_CASES="a b" (a script passes its arguments: `meson test
	# --test-args`, the mutants' NAME:CASE): only those cases run
	if [ -n "${TAP_CASES:-}" ] && [[ " $TAP_CASES " != *" $1 "* ]]; then
		return 0
	fi
	n=$((n + 1))
	local out rc
	export -f $(compgen -A function)
	out=$(cd "$T" && timeout "$TAP_TIMEOUT" bash -c "$2" 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		echo "ok $n - $1"; pass=$((pass + 1))
	elif [ $rc = 77 ]; then
		echo "ok $n - $1 # SKIP $out"; skipn=$((skipn + 1))
	else
		[ $rc = 124 ] && out="$out
timed out after $TAP_TIMEOUT s"
		echo "not ok $n - $1"; failn=$((failn + 1))
		printf '%s\n' "$out" | sed 's/^/# /' | tail -25
	fi
}

tap_done() {
	echo "1..$n"
	echo "# $pass passed, $failn failed, $skipn skipped"
	[ $failn = 0 ]
}
