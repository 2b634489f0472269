#!/bin/bash
# SPDX-License-Identifier: MIT
# layout.sh - README.md's "Layout" section names every directory of the
# tree (one line each, starting with DIR/), and only directories that
# exist.  TAP.
set -u
: "${WEFT_SRC:?}"
cd "$WEFT_SRC" || exit 1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	dirs=$(git ls-files -co --exclude-standard | grep / | sed 's|/[^/]*$||' | sort -u)
else
	dirs=$(find . -name 'build*' -prune -o -name node_modules -prune -o -name .git -prune \
		-o -name demo -prune -o -type f -print | grep '^\./.*/' | sed 's|^\./||; s|/[^/]*$||' | sort -u)
fi
# a directory with only directories in it (include/) is named by those
named=$(awk '/^## Layout/ { on = 1; next } on && /^## / { on = 0 } on && /^```/ { block = !block; next }
	on && block { print $1 }' README.md | sed -n 's|/$||p' | sort -u)
n=0 fails=0
t() { # verdict description [detail]
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else fails=$((fails + 1)); echo "not ok $n - $2"; echo "# $3"; fi
}
missing=$(comm -23 <(printf '%s\n' "$dirs") <(printf '%s\n' "$named") | tr '\n' ' ')
t "$([ -z "$missing" ]; echo $?)" "README's layout names every directory" "not named: $missing"
gone=$(for d in $named; do [ -d "$d" ] || printf '%s ' "$d"; done)
t "$([ -z "$gone" ]; echo $?)" "README's layout names only directories that exist" "gone: $gone"
echo "1..$n"
echo "# $((n - fails)) passed, $fails failed, 0 skipped"
[ $fails = 0 ]
