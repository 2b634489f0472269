#!/bin/bash
# install-deps.sh - the Debian packages weft needs to build, test, bench
# and view.  Idempotent: installs only what is missing.  One package per
# line; add yours where it belongs.
set -euo pipefail
pkgs=(
	# build
	gcc
	meson
	ninja-build
	pkg-config
	binutils
	# tests: sanitizers, libFuzzer, babeltrace2, scripts
	clang
	libclang-rt-14-dev
	babeltrace2
	python3
	clang-format
	# libuv shim and its tests (ctest, from cmake, is the real libuv
	# program the tests trace)
	libuv1-dev
	cmake
	# libevent shim and its tests (memcached with memcslap's load, and
	# tmux: real libevent programs the tests trace)
	libevent-dev
	memcached
	libmemcached-tools
	tmux
	# the arrows between processes: dig asking named (BIND 9.18, both on
	# libuv) is the real pair the tests trace
	bind9
	bind9-dnsutils
	# knot-resolver answers a uv_udp_t's queries with its own sendmmsg:
	# the program's own I/O on a libuv descriptor (tests/uv)
	knot-resolver
	# the GLib shim's tests: zenity is the real GLib/GTK program they trace
	# (GLib itself comes with GTK, below)
	zenity
	# GLib through GObject introspection: a Python (PyGObject) and a
	# JavaScript (GJS) script traced by the GLib shim
	python3-gi
	gjs
	# the renderer's cairo back end (weft render), and a font for its text
	libcairo2-dev
	fonts-dejavu-core
	# the GTK viewer (weft view), tested under Xvfb with real input
	# events (XTest) and screenshots of the X server
	libgtk-3-dev
	libx11-dev
	libxtst-dev
	xvfb
	xauth
	# the HTML viewer: the renderer compiled to WebAssembly, tested in
	# Debian's chromium (playwright-core comes from package-lock.json)
	lld
	wasi-libc
	libclang-rt-14-dev-wasm32
	chromium
	# keeping a trace (weft record --keep, weft keep): chunks compressed
	# with zstd; weft query: SQL over a trace through SQLite's virtual
	# tables (the sqlite3 shell for the tests' comparisons)
	libzstd-dev
	zstd
	libsqlite3-dev
	sqlite3
	# a fleet's store (weft ship --clickhouse): Debian's ClickHouse,
	# started by the tests themselves on loopback ports; OTLP (weft
	# export --otlp) decoded by protoc --decode_raw and, in the tests'
	# receiver, by @opentelemetry/otlp-transformer from package-lock.json
	clickhouse-server
	clickhouse-client
	protobuf-compiler
	# bench peers
	liblttng-ust-dev
	lttng-tools
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
