#!/bin/bash
# glib-overhead.sh BUILD-DIR - prints `glib.overhead` (see
# loop-overhead.sh): a GLib idle/timeout ping-pong without weft ÷ under
# `weft record`.
exec "$(dirname "$0")/loop-overhead.sh" "${1:-build}" glib glib-bench \
	"GLib ping-pong, an idle adds a 0 ms timeout that adds the idle; overhead target <= 1.15"
