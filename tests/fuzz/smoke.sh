#!/bin/bash
# SPDX-License-Identifier: MIT
# smoke.sh FUZZER CORPUS - a bounded libFuzzer run (FUZZ_SECONDS, default
# 60) from a copy of the corpus: fresh coverage in every run of tests/run.
# What it finds outlives the run in tests/last-fuzz/ (not committed); add
# it to the corpus once fixed.  TAP.
set -u
: "${WEFT_SRC:?}"
fuzzer=$(realpath "$1") corpus=$2 secs=${FUZZ_SECONDS:-60}
T=$(mktemp -d "${TMPDIR:-/tmp}/weft-fuzz.XXXXXX")
trap 'rm -rf "$T"' EXIT
mkdir "$T/corpus"
cp "$corpus"/* "$T/corpus/"
n0=$(ls "$T/corpus" | wc -l)
echo "1..1"
# (bounded three ways: the whole run, each input, and from outside)
if (cd "$T" && timeout $((secs + 120)) "$fuzzer" -max_total_time="$secs" \
	-timeout=30 -max_len=70000 corpus >run.log 2>&1); then
	runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$T/run.log")
	if [ -n "$runs" ] && [ "$runs" -gt 0 ]; then
		echo "ok 1 - ${secs}s of libFuzzer on the reader: $runs inputs, corpus $n0 -> $(ls "$T/corpus" | wc -l)"
		exit 0
	fi
	echo "not ok 1 - libFuzzer ran no input"
else
	echo "not ok 1 - libFuzzer found a failure (kept in tests/last-fuzz/)"
	rm -rf "$WEFT_SRC/tests/last-fuzz"
	mkdir -p "$WEFT_SRC/tests/last-fuzz"
	cp "$T"/crash-* "$T"/leak-* "$T"/timeout-* "$T"/oom-* "$WEFT_SRC/tests/last-fuzz/" 2>/dev/null
fi
tail -n 40 "$T/run.log" | sed 's/^/# /'
exit 1
