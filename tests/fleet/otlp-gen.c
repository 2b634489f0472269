/* SPDX-License-Identifier: MIT */
/*
 * otlp-gen.c - a small trace of known shape for tests/fleet/test-otlp.sh,
 * on the manual clock: `otlp-gen FILE`.
 *
 * The OS thread creates an event loop (a hub: it creates and resolves
 * 20 connections); connection 0 serves a chain of five requests, each
 * created by the one before (so its trace holds six spans: the budget's
 * boundary), with hostile labels (quotes, control bytes, markup, invalid
 * UTF-8, 3,000 bytes, emoji), a note, a failure, a cancel, a signal to
 * the loop, a wait and a read, and one request left pending (should
 * resolve).
 */
#include <stdio.h>
#include <string.h>

#include <weft/weft.h>

enum { LOOP = 10, CONN = 100, REQ = 1000 };

static uint64_t now = 1000;

static void tick(void)
{
	now += 1000;
	weft_clock_set(now);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: otlp-gen FILE\n");
		return 2;
	}
	int rc = weft_start(argv[1], 1 << 20, WEFT_CLOCK_MANUAL);
	if (rc) {
		fprintf(stderr, "otlp-gen: %s\n", weft_strerror(rc));
		return 1;
	}
	static char longlabel[3001];
	memset(longlabel, 'x', 3000);
	weft_clock_set(now);
	weft_create(LOOP, "event loop");
	weft_label(LOOP, "loop \"main\"");
	tick();
	weft_run(LOOP);
	for (int i = 0; i < 20; i++) {
		tick();
		weft_create(CONN + (uint64_t)i, "connection");
	}
	tick();
	weft_run(CONN);
	weft_create(REQ + 1, "request");
	weft_label(REQ + 1, "quote \" "
			    "back\\slash\nnewline\t<script>x</script>");
	weft_should_resolve(REQ + 1);
	tick();
	weft_run(REQ + 1);
	weft_create(REQ + 2, "request");
	weft_label(REQ + 2, "bad \xff\xfe utf-8 \xc3");
	weft_label(REQ + 2, longlabel);
	tick();
	weft_run(REQ + 2);
	weft_note(REQ + 2, "slow: 5 ms \xf0\x9f\xa7\xb5 \xc3\xbcnic\xc3\xb6"
			   "de");
	weft_create(REQ + 3, "step");
	weft_try_read(REQ + 3);
	weft_signal(LOOP);
	tick();
	weft_run(REQ + 3);
	weft_create(REQ + 4, "step");
	weft_fail(REQ + 3, "ECONNRESET \"peer\"");
	tick();
	weft_run(REQ + 4);
	weft_create(REQ + 5, "step");
	weft_should_resolve(REQ + 5);
	tick();
	weft_run(REQ + 2);
	weft_read(REQ + 3);
	weft_cancel(REQ + 4);
	tick();
	weft_run(LOOP);
	for (int i = 0; i < 20; i++) {
		tick();
		weft_resolve(CONN + (uint64_t)i);
	}
	weft_resolve(REQ + 2);
	tick();
	weft_run(REQ + 1);
	weft_read(REQ + 2);
	weft_resolve(REQ + 1);
	tick();
	weft_run(0);
	tick();
	weft_stop();
	return 0;
}
