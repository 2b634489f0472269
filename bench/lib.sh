# SPDX-License-Identifier: MIT
# bench/lib.sh - what every bench script shares (sourced, not run): the
# figure line, the median, and the load check.
#
# A figure measured beside other work means little on a 2-vCPU VM (one
# busy neighbour halves a rate): before its first figure a script looks at
# the 1-minute load average; above $WEFT_BENCH_MAX_LOAD (default 1) it
# waits for it to fall, up to $WEFT_BENCH_WAIT seconds (default 120), and
# when it has not, every figure line it prints says so ("[load 1.87 at
# start]" at the head of its comment): the figure is printed, marked.
# bench/run checks once for all the scripts it runs (WEFT_BENCH_LOAD
# carries the verdict to them).

# fig NAME VALUE UNIT HOW: one figure line.
fig() {
	local how=$4
	[ -n "${WEFT_BENCH_LOAD:-}" ] && how="[load $WEFT_BENCH_LOAD at start] $how"
	printf '%-26s %14s %-9s # %s\n' "$1" "$2" "$3" "$how"
}

# median of the numbers on standard input ("nan" for none: a figure
# that checks its work says failed before it gets here)
median() { sort -g | awk '{v[NR]=$1} END {print (NR ? v[int((NR+1)/2)] : "nan")}'; }

# The load check (once: bench/run's verdict is inherited).
bench_load_check() {
	[ -n "${WEFT_BENCH_LOAD_CHECKED:-}" ] && return 0
	export WEFT_BENCH_LOAD_CHECKED=1 WEFT_BENCH_LOAD=
	local max=${WEFT_BENCH_MAX_LOAD:-1} wait=${WEFT_BENCH_WAIT:-120} i l
	for ((i = 0; ; i += 5)); do
		l=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null) || return 0
		awk -v l="$l" -v m="$max" 'BEGIN {exit !(l > m)}' || return 0
		[ "$i" -ge "$wait" ] && break
		[ "$i" = 0 ] && echo "# load average $l (above $max): waiting up to ${wait}s for it to fall" >&2
		sleep 5
	done
	export WEFT_BENCH_LOAD=$l
	echo "# load average $l before the first figure (above $max after ${wait}s): every figure below is marked"
}
bench_load_check
