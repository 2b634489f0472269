/* SPDX-License-Identifier: MIT */
/*
 * scenes.c - small programs for the flight recorder's tests
 * (tests/flight/test-flight.sh): `flight-scenes SCENE`, traced from the
 * environment (WEFT_FILE, WEFT_SIZE).  Each scene starts by waiting for
 * the file named by FLIGHT_GO to exist (the watcher is following by
 * then), and each makes one trigger kind true, once, at a known place:
 *
 *   pending    a request "GET /api/users" (kind req) created by a
 *              connection made long before (kind conn, label "conn 7",
 *              created by the listener, kind server, a hub: it creates
 *              200 threads; made by main), waiting on a pool
 *              (kind db) made before too, pending 400 ms; between them
 *              a flood that overwrites their creation in a small ring,
 *              and the 200 threads of the listener (kind noise)
 *   callback   one run of 300 ms (thread 0x20), and runs of 5 ms
 *   iteration  idle 300 ms (a counter set meanwhile), then 300 ms busy
 *              made of 30 runs of 10 ms, no idle between
 *   phase      a loop of three iterations, each in phases timers, poll
 *              (waiting 150 ms: no work) and closing, of 5 ms callbacks
 *              but for one timer callback of 300 ms (thread 0x72) in
 *              the last iteration's timers phase
 *   lost       a lost wake-up: 0x80 (label "ready") signalled by 0x7f
 *              before 0x81 ("consumer") waits on it, never read; beside
 *              it 0x82 waits on 0x83, resolved and read 20 ms later (no
 *              fault), and 0x84 waits on 0x85 that nothing touches
 *              (never resolved: a fault, not a lost wake-up)
 *   failed     failures "refused" and then "timeout talking to db"
 *   counter    counter "queue" 1..8, down to 0, up to 8 again
 *   unresolved a thread that should resolve, 0x40, never resolved
 *   mark       waits until the file FLIGHT_DONE exists (at most 20 s)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "weft/weft.h"

static void ms(long n)
{
	struct timespec t = {n / 1000, (n % 1000) * 1000000};
	while (nanosleep(&t, &t))
		;
}

static void wait_file(const char *env, long max_ms)
{
	const char *f = getenv(env);
	for (long i = 0; f && i < max_ms && access(f, F_OK); i += 5)
		ms(5);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return fprintf(stderr, "usage: flight-scenes SCENE\n"), 2;
	const char *s = argv[1];
	weft_run(0); /* (the ring is made at the first event) */
	wait_file("FLIGHT_GO", 20000);
	if (!strcmp(s, "pending")) {
		weft_create(5, "main");
		weft_label(5, "main");
		weft_run(5);
		weft_create(1, "server");
		weft_label(1, "listener");
		weft_run(1);
		weft_create(2, "db");
		weft_label(2, "db pool");
		weft_create(3, "conn");
		weft_label(3, "conn 7");
		weft_run(0);
		ms(100); /* seen by the watcher */
		/* the listener makes many: a hub, which the walk keeps but
		 * does not go through (to main) */
		for (uint64_t i = 0; i < 200; i++) {
			weft_run(1);
			weft_create(100 + i, "noise");
			weft_label(100 + i, "noise");
			weft_run(100 + i);
			weft_resolve(100 + i);
			weft_run(0);
			if (i % 50 == 49)
				ms(20); /* (seen by the watcher) */
		}
		ms(100);
		for (int i = 0; i < 40000; i++) {
			weft_counter_set("filler", i);
			if (i % 2000 == 0)
				ms(2);
		}
		ms(50);
		weft_run(3);
		weft_create(10, "req");
		weft_label(10, "GET /api/users");
		if (getenv("FLIGHT_PRINT")) {
			/* when it was made, for bench/flight-bench.sh */
			struct timespec now;
			clock_gettime(CLOCK_REALTIME, &now);
			printf("created %lld\n",
			       (long long)now.tv_sec * 1000000000 +
				       now.tv_nsec);
			fflush(stdout);
		}
		weft_run(10);
		weft_try_read(2);
		weft_run(0);
		weft_idle("poll");
		ms(400);
		weft_resume();
		weft_run(2);
		weft_resolve(10);
		weft_run(0);
	} else if (!strcmp(s, "callback")) {
		for (uint64_t i = 0; i < 5; i++) {
			weft_create(0x10 + i, "short");
			weft_run(0x10 + i);
			ms(5);
			weft_resolve(0x10 + i);
			weft_run(0);
			weft_idle("poll");
			ms(5);
			weft_resume();
		}
		weft_create(0x20, "slow");
		weft_run(0x20);
		ms(300);
		weft_resolve(0x20);
		weft_run(0);
		weft_idle("poll");
		ms(50);
		weft_resume();
	} else if (!strcmp(s, "iteration")) {
		/* idle 300 ms, the loop recording its busy time meanwhile
		 * (as libevent's and libuv's shims do): not busy */
		weft_idle("poll");
		weft_counter_set("busy_us", 30);
		ms(300);
		weft_resume();
		for (uint64_t i = 0; i < 30; i++) {
			weft_create(0x30 + i, "step");
			weft_run(0x30 + i);
			ms(10);
			weft_resolve(0x30 + i);
			weft_run(0);
		}
		weft_idle("poll");
		ms(50);
		weft_resume();
	} else if (!strcmp(s, "phase")) {
		for (uint64_t i = 0; i < 3; i++) {
			weft_phase("timers");
			weft_create(0x70 + i, "timer");
			weft_run(0x70 + i);
			ms(i == 2 ? 300 : 5);
			weft_resolve(0x70 + i);
			weft_run(0);
			weft_idle("poll");
			ms(150);
			weft_resume();
			weft_create(0x78 + i, "read");
			weft_run(0x78 + i);
			ms(5);
			weft_resolve(0x78 + i);
			weft_run(0);
			weft_phase("closing");
			ms(5);
		}
		weft_phase(NULL);
		ms(50);
	} else if (!strcmp(s, "lost")) {
		weft_create(0x7f, "producer");
		weft_create(0x80, "cond");
		weft_label(0x80, "ready");
		weft_create(0x81, "waiter");
		weft_label(0x81, "consumer");
		weft_create(0x82, "waiter");
		weft_create(0x83, "reply");
		weft_create(0x84, "waiter");
		weft_create(0x85, "reply");
		weft_run(0x82);
		weft_try_read(0x83);
		weft_run(0x84);
		weft_try_read(0x85);
		weft_run(0);
		ms(20);
		weft_run(0x7f);
		weft_resolve(0x83);
		weft_signal(0x80);
		weft_run(0);
		ms(20);
		weft_run(0x82);
		weft_read(0x83);
		weft_resolve(0x82);
		weft_run(0);
		ms(20);
		weft_run(0x81);
		weft_try_read(0x80);
		weft_run(0);
		weft_idle("poll");
		ms(200);
		weft_resume();
		weft_run(0x7f);
		weft_resolve(0x7f);
		weft_run(0);
		ms(50);
	} else if (!strcmp(s, "failed")) {
		weft_create(0x50, "call");
		weft_create(0x51, "call");
		ms(20);
		weft_fail(0x50, "refused");
		ms(20);
		weft_fail(0x51, "timeout talking to db");
		ms(50);
	} else if (!strcmp(s, "counter")) {
		for (int i = 1; i <= 8; i++) {
			weft_counter_set("queue", i);
			ms(10);
		}
		for (int i = 7; i >= 0; i--) {
			weft_counter_add("queue", -1);
			ms(10);
		}
		for (int i = 1; i <= 8; i++) {
			weft_counter_set("queue", i);
			ms(10);
		}
		ms(50);
	} else if (!strcmp(s, "unresolved")) {
		weft_create(0x40, "job");
		weft_label(0x40, "nightly");
		weft_should_resolve(0x40);
		weft_create(0x41, "job");
		weft_should_resolve(0x41);
		weft_resolve(0x41);
		ms(20);
	} else if (!strcmp(s, "mark")) {
		weft_create(0x60, "waiter");
		weft_label(0x60, "stuck");
		wait_file("FLIGHT_DONE", 20000);
	} else
		return fprintf(stderr, "no scene '%s'\n", s), 2;
	return 0;
}
