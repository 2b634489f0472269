#!/bin/bash
# html-size.sh BUILD-DIR - prints `html.bytes_per_event`: the size of the
# self-contained HTML viewer of a 100,000-event trace / its events.
set -u
B=$(cd "${1:-build}" && pwd)
T=$(mktemp -d /tmp/weft-html.XXXXXX)
trap 'rm -rf "$T"' EXIT
"$B/bench/bench-record" mix 100000 "$T/m.weft" >/dev/null || exit 0
"$B/tools/weft" html "$T/m.weft" -o "$T/m.html" 2>/dev/null || { echo "# html.bytes_per_event: weft html not built"; exit 0; }
ev=$("$B/tools/weft" info "$T/m.weft" | awk '/^events:/ {print $2}')
sz=$(stat -c %s "$T/m.html")
printf '%-26s %14s %-9s # %s\n' html.bytes_per_event "$(awk -v s="$sz" -v e="$ev" 'BEGIN {printf "%.2f", s / e}')" bytes "weft html of a $ev-event mix trace: $sz bytes (wasm, JS and the used packets, base64)"
