#!/bin/bash
# SPDX-License-Identifier: MIT
# format.sh - every C file of the tree is as clang-format (14, with the
# tree's .clang-format) writes it (the last of the files written before
# the style was checked were converted in November 2026: there is no list
# of exceptions).  TAP, one case per file checked.
set -u
: "${WEFT_SRC:?}"
cd "$WEFT_SRC" || exit 1
CF=${CLANG_FORMAT:-clang-format}
if ! command -v "$CF" >/dev/null; then
	echo "1..1"
	echo "not ok 1 - $CF is not installed (.ci/install-deps.sh installs it)"
	exit 1
fi
ver=$("$CF" --version)
case $ver in
*" version 14."*) ;;
*)
	# another version formats some constructs otherwise
	echo "1..0 # SKIP the style is checked with clang-format 14, this is: $ver"
	exit 0
	;;
esac
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	files=$(git ls-files -co --exclude-standard -- '*.c' '*.h')
else
	files=$(find . -name build\* -prune -o -name node_modules -prune -o \
		\( -name '*.c' -o -name '*.h' \) -print | sed 's|^\./||' | sort)
fi
n=0 fails=0
for f in $files; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	d=$("$CF" --style=file "$f" | diff -u "$f" - | tail -n +3)
	if [ -z "$d" ]; then
		echo "ok $n - $f"
	else
		fails=$((fails + 1))
		echo "not ok $n - $f is not as clang-format writes it (clang-format -i $f):"
		printf '%s\n' "$d" | head -20 | sed 's/^/# /'
	fi
done
echo "1..$n"
echo "# $((n - fails)) passed, $fails failed, 0 skipped"
[ $fails = 0 ]
