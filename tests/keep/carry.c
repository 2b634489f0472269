/* SPDX-License-Identifier: MIT */
/*
 * carry.c - async threads alive across chunks, for the keeping tests
 * (tests/keep/test-keep.sh, t_carry): `carry EVENTS`.
 *
 * At the start, on the main OS thread: the listener (0x100, "listener",
 * label "listener one") creates, while it runs, the connection 0x200
 * ("conn", text label "conn from 10.0.0.7") and the timer 0x300
 * (create_label: kind "timer", label "every second"); the request 0x400
 * ("request", label "GET /slow") is created by the OS thread, runs, and
 * waits on 0x500 ("query", created by 0x400); 0x600 ("doomed") is
 * created and resolved at once; 2,000 counter values follow (so that the
 * packets holding all that close, and are kept, then).  A second OS thread then writes EVENTS
 * counter values paced over a second or more (several chunks); at the
 * end the main thread resolves 0x200 and 0x500, the request reads 0x500
 * and resolves, and the timer is cancelled.  Prints "done".
 *
 * With a second argument, a file's name: the worker starts once that file
 * exists (the test makes it when its keeper runs: a keeper slow to start,
 * under ASan and load, found the start's packets overwritten by then).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "weft/weft.h"

static long events;

static void *work(void *arg)
{
	(void)arg;
	weft_create(0x700, "worker");
	weft_run(0x700);
	for (long i = 0; i < events; i++) {
		weft_counter_set("filler", i);
		if (i % 500 == 499) {
			struct timespec nap = {0, 2000000};
			nanosleep(&nap, NULL);
		}
	}
	weft_resolve(0x700);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (events = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: carry EVENTS [GO-FILE]\n");
		return 2;
	}
	weft_create(0x100, "listener");
	weft_label(0x100, "listener one");
	weft_run(0x100);
	weft_create(0x200, "conn");
	weft_label(0x200, "conn from 10.0.0.7");
	weft_create_label(0x300, "timer", "every second");
	weft_run(0);
	weft_create(0x400, "request");
	weft_label(0x400, "GET /slow");
	weft_run(0x400);
	weft_create(0x500, "query");
	weft_try_read(0x500);
	weft_run(0);
	weft_create(0x600, "doomed");
	weft_resolve(0x600);
	/* (so that the packets holding all that close, and are kept, now) */
	for (int i = 0; i < 2000; i++)
		weft_counter_set("setup", i);
	for (int i = 0; argc > 2 && access(argv[2], F_OK) && i < 6000; i++) {
		struct timespec nap = {0, 10000000};
		nanosleep(&nap, NULL);
	}
	pthread_t t;
	pthread_create(&t, NULL, work, NULL);
	pthread_join(t, NULL);
	weft_resolve(0x200);
	weft_resolve(0x500);
	weft_run(0x400);
	weft_read(0x500);
	weft_resolve(0x400);
	weft_run(0);
	weft_cancel(0x300);
	puts("done");
	return 0;
}
