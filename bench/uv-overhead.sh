#!/bin/bash
# uv-overhead.sh BUILD-DIR - prints `uv.overhead` (see loop-overhead.sh):
# a libuv TCP echo on loopback without weft ÷ under `weft record`.
exec "$(dirname "$0")/loop-overhead.sh" "${1:-build}" uv uv-bench \
	"libuv TCP echo on loopback, one 64-byte message in flight; overhead target <= 1.10"
