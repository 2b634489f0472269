#!/bin/bash
# SPDX-License-Identifier: MIT
# test-node.sh - `weft record` on Debian's Node.js 18, which links libuv
# dynamically: a small HTTP server and client (examples/node/http.js).
#
# These machines carry another node (v20, for the browser tests) that
# must stay: Debian's nodejs, libnode108 and the node-* packages whose
# files Node 18 loads from /usr/share/nodejs are downloaded (apt-get
# download) and unpacked (dpkg-deb -x) into build/node18/, once; node runs
# in a private mount namespace where they lie over /usr/share.  TAP.
set -u
: "${WEFT_BIN:?}" "${WEFT_BUILD:?}" "${WEFT_SRC:?}"
W=$WEFT_BIN
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:detect_leaks=0"
N=$WEFT_BUILD/node18
. "$WEFT_SRC/tests/tap.sh"
tap_init node "$@"
TAP_TIMEOUT=300

# Debian's Node.js 18, unpacked into $N/root, and $N/node: a node that
# runs it.
fetch() {
	[ -x "$N/node" ] && return 0
	rm -rf "$N" && mkdir -p "$N/debs" || return 1
	local v
	v=$(apt-cache madison nodejs | awk -F'|' '$2 ~ /^ *18\./ {gsub(/ /, "", $2); print $2; exit}')
	[ -n "$v" ] || { echo "no Debian nodejs 18 in apt's lists (apt-get update?)"; return 1; }
	(cd "$N/debs" && apt-get download -q "nodejs=$v" "libnode108=$v" node-acorn \
		node-cjs-module-lexer node-undici node-xtend node-busboy >download.log 2>&1) ||
		{ cat "$N/debs/download.log"; return 1; }
	for d in "$N"/debs/*.deb; do dpkg-deb -x "$d" "$N/root" || return 1; done
	cat >"$N/node" <<SH
#!/bin/sh
# Debian's node 18 as unpacked here: its files over /usr/share, in a
# mount namespace of its own.
exec unshare -m sh -c 'mount -t overlay overlay -o lowerdir=$N/root/usr/share:/usr/share /usr/share &&
	LD_LIBRARY_PATH=$N/root/usr/lib/x86_64-linux-gnu exec $N/root/usr/bin/node "\$@"' node "\$@"
SH
	chmod +x "$N/node"
}

t_http() {
	fetch || die "cannot get Debian's node 18"
	"$N/node" -e 'console.log(process.version)' | grep -q '^v18\.' || die "not node 18: $("$N/node" -e 'console.log(process.version)' 2>&1)"
	# libuv is a library of its: what makes it traceable
	LD_LIBRARY_PATH=$N/root/usr/lib/x86_64-linux-gnu ldd "$N/root/usr/lib/x86_64-linux-gnu/libnode.so.108" | grep -q 'libuv.so.1' || die "libnode without libuv.so.1"
	local js=$WEFT_SRC/examples/node/http.js
	"$N/node" "$js" | sort >plain.txt || die "node failed"
	"$W" record -o n.weft --mode discard --size 64M -- "$N/node" "$js" >traced.raw 2>rec.txt || die "record: $(cat rec.txt)"
	sort traced.raw >traced.txt
	cmp plain.txt traced.txt || die "output changed: $(diff plain.txt traced.txt)"
	grep -q "loops: libuv" rec.txt || die "$(cat rec.txt)"
	local f; f=$(ls -S n.weft/ring n.weft/ring.* 2>/dev/null | head -1)
	"$W" info "$f" | grep -q "0 packets lost, 0 torn, 0 corrupt; 0 events discarded" || die "losses"
	python3 "$WEFT_SRC/tests/node/node_check.py" "$W" "$f"
}

export W N T WEFT_SRC WEFT_BUILD
run node18_http_server_and_client t_http
tap_done
