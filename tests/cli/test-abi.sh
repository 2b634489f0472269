#!/bin/bash
# SPDX-License-Identifier: MIT
# test-abi.sh - the libraries' boundary: each public header compiles alone
# as C and as C++ (warnings are errors), and libweft and libweft-read
# export exactly the symbols listed in abi-weft.txt and abi-weft-read.txt
# (a change of the API updates the list in the same commit).  TAP output.
set -u
: "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/weft-abi.XXXXXX")
trap 'rm -rf "$T"' EXIT
n=0 failn=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); failn=$((failn + 1)); echo "not ok $n - $1"; sed 's/^/# /' "$T/log" | head -30; }

for h in "$WEFT_SRC"/include/weft/*.h; do
	name=weft/$(basename "$h")
	printf '#include <%s>\nint main(void) { return 0; }\n' "$name" >"$T/t.c"
	if cc -std=c11 -Wall -Wextra -Wpedantic -Werror -I"$WEFT_SRC/include" \
		-c "$T/t.c" -o "$T/t.o" >"$T/log" 2>&1; then
		ok "$name alone, as C11"
	else
		notok "$name alone, as C11"
	fi
	if c++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -I"$WEFT_SRC/include" \
		-x c++ -c "$T/t.c" -o "$T/t.o" >"$T/log" 2>&1; then
		ok "$name alone, as C++11"
	else
		notok "$name alone, as C++11"
	fi
done

# Only weft's own names: a sanitizer build adds symbols of its own.
for lib in weft:libweft.so weft-read:src/read/libweft-read.so; do
	list=$WEFT_SRC/tests/cli/abi-${lib%%:*}.txt
	so=$WEFT_BUILD/${lib#*:}
	nm -D --defined-only "$so" 2>"$T/log" | awk '{print $3}' | grep '^weft' |
		sed 's/@.*//' | sort -u >"$T/got"
	if [ -s "$T/got" ] && diff -u "$list" "$T/got" >"$T/log" 2>&1; then
		ok "lib${lib%%:*} exports what abi-${lib%%:*}.txt lists"
	else
		notok "lib${lib%%:*} exports what abi-${lib%%:*}.txt lists (- listed, + exported)"
	fi
done
echo "1..$n"
echo "# $((n - failn)) passed, $failn failed, 0 skipped"
[ $failn = 0 ]
