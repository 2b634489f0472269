#!/bin/bash
# html-size.sh BUILD-DIR - prints `html.bytes_per_event`: the size of the
# self-contained HTML viewer of a 100,000-event trace / its events.  The
# figure checks its own work: the trace the page carries (its
# #weft-trace script, deflated and base64) is taken out and read back,
# and must hold every event written, else the figure is `failed` (a page
# that left packets out would be small).
set -u
B=$(cd "${1:-build}" && pwd)
T=$(mktemp -d /tmp/weft-html.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # fig, median, the load check
written=$("$B/bench/bench-record" mix 100000 "$T/m.weft" | awk '$6 == "events" {print $5}')
[ -n "$written" ] || exit 0
"$B/tools/weft" html "$T/m.weft" -o "$T/m.html" 2>"$T/err" || {
	rc=$?
	grep -q "not built\|no viewer\|weft.wasm" "$T/err" && { echo "# html.bytes_per_event: weft html not built"; exit 0; }
	fig html.bytes_per_event failed "" "weft html exited $rc: $(tail -c 200 "$T/err")"
	exit 0
}
cat >"$T/take.py" <<'PY'
import base64, re, sys, zlib
h = open(sys.argv[1]).read()
m = re.search(r'<script type="application/octet-stream" id="weft-trace"'
              r' data-coding="deflate" data-size="(\d+)">([^<]*)</script>', h)
if not m:
    sys.exit('no #weft-trace script in the page')
d = zlib.decompress(base64.b64decode(m.group(2).strip()))
if len(d) != int(m.group(1)):
    sys.exit('the page says %s bytes of trace, it holds %d' % (m.group(1), len(d)))
open(sys.argv[2], 'wb').write(d)
PY
why=$(python3 "$T/take.py" "$T/m.html" "$T/page.weft" 2>&1) ||
	{ fig html.bytes_per_event failed "" "the page's trace: $(echo "$why" | tail -1)"; exit 0; }
ev=$("$B/tools/weft" info "$T/page.weft" 2>/dev/null | awk '/^events:/ {print $2}')
[ "$ev" = "$written" ] || { fig html.bytes_per_event failed "" "the page's trace holds ${ev:-no} events of the $written written"; exit 0; }
sz=$(stat -c %s "$T/m.html")
fig html.bytes_per_event "$(awk -v s="$sz" -v e="$ev" 'BEGIN {printf "%.2f", s / e}')" bytes "weft html of a $ev-event mix trace: $sz bytes (wasm, JS and the used packets, base64; the page's trace read back: every event)"
