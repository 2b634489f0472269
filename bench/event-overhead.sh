#!/bin/bash
# event-overhead.sh BUILD-DIR - prints `event.overhead` (see
# loop-overhead.sh): a libevent bufferevent TCP echo on loopback without
# weft ÷ under `weft record`.
exec "$(dirname "$0")/loop-overhead.sh" "${1:-build}" event event-bench \
	"libevent bufferevent TCP echo on loopback, one 64-byte message in flight; overhead target <= 1.10"
