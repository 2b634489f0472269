/* SPDX-License-Identifier: MIT */
/*
 * regress.c - a small server on the manual clock, for `weft diff`:
 *
 *   regress good|slow|extra|fail|signal [SEED]
 *
 * An event loop serves 40 requests one after another, alternately
 * "GET /item/N" and "GET /user/N" (kind "request"): each parses (100 us
 * running), creates a "db query" and waits on it; the loop resolves the
 * query 300 us later; the request reads it, renders (200 us) and
 * resolves.  `slow` makes the work of /item requests (parse and render)
 * twice as long (the known regression: their running time x2.00); `extra` makes the 7th request retry its query once
 * (a thread more); `fail` makes the 5th request's query fail and the
 * request with it; `signal` makes the loop signal the 4th request once
 * (an interaction more, that changes nothing else).  With SEED (not 0) every duration varies by up to
 * +-10 %, differently for each seed (the noise of real runs).  The same
 * arguments always give the same trace.
 *
 *   WEFT_FILE=a.weft build/examples/regress good
 *   WEFT_FILE=b.weft build/examples/regress slow
 *   weft diff a.weft b.weft
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/weft.h>

static uint64_t now, rng;

static uint64_t jitter(uint64_t ns)
{
	if (!rng)
		return ns;
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	/* uniform in [-10 %, +10 %] */
	int64_t d = (int64_t)(rng % 2001) - 1000;
	return (uint64_t)((int64_t)ns + (int64_t)ns * d / 10000);
}

static void spend(uint64_t ns)
{
	now += jitter(ns);
	weft_clock_set(now);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "good";
	rng = argc > 2 ? strtoull(argv[2], NULL, 0) * 0x9E3779B97F4A7C15ull : 0;
	if (strcmp(mode, "good") && strcmp(mode, "slow") &&
	    strcmp(mode, "extra") && strcmp(mode, "fail") &&
	    strcmp(mode, "signal")) {
		fprintf(stderr, "usage: regress good|slow|extra|fail|signal "
				"[SEED]\n");
		return 2;
	}
	const char *file = getenv("WEFT_FILE");
	if (!file) {
		fprintf(stderr, "regress: set WEFT_FILE\n");
		return 2;
	}
	/* The manual clock: started by hand, not from the environment. */
	weft_stop();
	if (weft_start(file, 4 << 20, WEFT_CLOCK_MANUAL)) {
		fprintf(stderr, "regress: cannot trace into %s\n", file);
		return 1;
	}
	now = 1000;
	weft_clock_set(now);
	weft_run(1);
	weft_label(1, "event loop");
	uint64_t id = 100;
	for (int i = 0; i < 40; i++) {
		int item = i % 2 == 0;
		uint64_t req = id++, q = id++;
		char lab[64];
		snprintf(lab, sizeof lab, "GET /%s/%d", item ? "item" : "user",
			 1000 + i * 37);
		weft_run(1);
		weft_create(req, "request");
		weft_label(req, lab);
		weft_should_resolve(req);
		spend(10000);
		int slow = item && !strcmp(mode, "slow");
		weft_run(req);
		spend(slow ? 200000 : 100000); /* parse */
		weft_create(q, "db query");
		weft_label(q, "SELECT * FROM t WHERE id = $1");
		weft_try_read(q);
		weft_run(1);
		weft_idle("poll");
		spend(300000);
		weft_resume();
		if (!strcmp(mode, "fail") && i == 4) {
			weft_fail(q, "timeout");
			weft_run(req);
			weft_read(q);
			spend(20000);
			weft_fail(req, "503");
			continue;
		}
		if (!strcmp(mode, "signal") && i == 3)
			weft_signal(req);
		weft_resolve(q);
		if (!strcmp(mode, "extra") && i == 6) {
			/* the first answer was stale: ask again */
			uint64_t q2 = id++;
			weft_run(req);
			weft_read(q);
			weft_create(q2, "db query");
			weft_label(q2, "SELECT * FROM t WHERE id = $1");
			weft_try_read(q2);
			weft_run(1);
			weft_idle("poll");
			spend(300000);
			weft_resume();
			weft_resolve(q2);
			q = q2;
		}
		weft_run(req);
		weft_read(q);
		spend(slow ? 400000 : 200000); /* render */
		weft_resolve(req);
		weft_run(1);
	}
	spend(10000);
	weft_run(0);
	weft_stop();
	printf("regress %s\n", mode);
	return 0;
}
