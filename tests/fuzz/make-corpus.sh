#!/bin/bash
# make-corpus.sh BUILD-DIR - (re)generates the seed corpus of fuzz-reader:
# small valid traces of every event type, and damaged copies of them, and
# a run as a bundle.  The ring seeds are kept as they are (format 1.2: old
# traces must still read, and test-run reads one) unless RINGS=1.
set -eu
B=$1
C=$(cd "$(dirname "$0")" && pwd)/corpus
W=$B/tools/weft
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -f "$C"/seed-bundle*
if [ "${RINGS:-0}" = 1 ]; then
rm -f "$C"/seed-*
WEFT_FILE=$tmp/a WEFT_SIZE=48K "$B/examples/all-events" 3 >/dev/null
WEFT_FILE=$tmp/t WEFT_SIZE=48K "$B/examples/ticker" 0.2 >/dev/null
WEFT_FILE=$tmp/d WEFT_SIZE=48K WEFT_MODE=discard "$B/examples/ticker" 0.2 >/dev/null
cp "$tmp/a" "$C/seed-all-events"
cp "$tmp/t" "$C/seed-ticker-wrapped"
cp "$tmp/d" "$C/seed-ticker-discard"
head -c 200 "$tmp/a" >"$C/seed-short-header"
head -c 40000 "$tmp/a" >"$C/seed-truncated"
: >"$C/seed-empty"
# damage: flip bytes across header, tables and packets (deterministic)
python3 - "$tmp/a" "$C" <<'PY'
import sys, random
data = open(sys.argv[1], 'rb').read()
rnd = random.Random(42)
hs = int.from_bytes(data[12:16], 'little')
for k in range(12):
    b = bytearray(data)
    if k < 4:
        pos = rnd.randrange(0, 256)            # file header
    elif k < 8:
        pos = hs + rnd.randrange(0, 100)       # packet header
    else:
        pos = hs + 100 + rnd.randrange(0, 300) # events
    b[pos] ^= 1 << rnd.randrange(8)
    b[pos + 1] ^= 0xff
    open('%s/seed-flip-%02d' % (sys.argv[2], k), 'wb').write(bytes(b))
PY
fi
# a run (two processes that talk, and its manifest) as a bundle, and
# damaged copies of its own bytes: header, entries, manifest
if [ -x "$B/examples/uv-echo-split" ]; then
	WEFT_SIZE=48K "$W" record -o "$tmp/run" -- "$B/examples/uv-echo-split" >/dev/null 2>&1
	"$W" snapshot "$tmp/run" -o "$C/seed-bundle" 2>/dev/null
	python3 - "$C/seed-bundle" "$C" <<'PY'
import sys, random
data = open(sys.argv[1], 'rb').read()
rnd = random.Random(7)
n = int.from_bytes(data[12:16], 'little')
man = [i for i in range(n) if int.from_bytes(data[32 + 80 * i + 16:32 + 80 * i + 20], 'little') == 2]
moff = int.from_bytes(data[32 + 80 * man[0]:32 + 80 * man[0] + 8], 'little') if man else 32
for k in range(6):
    b = bytearray(data)
    pos = (rnd.randrange(0, 32) if k < 2 else
           32 + rnd.randrange(0, 80 * n) if k < 4 else
           moff + rnd.randrange(0, 200))
    b[pos] ^= 1 << rnd.randrange(8)
    b[pos + 1] ^= 0xff
    open('%s/seed-bundle-flip-%02d' % (sys.argv[2], k), 'wb').write(bytes(b))
PY
fi
ls "$C" | wc -l
