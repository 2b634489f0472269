/* SPDX-License-Identifier: MIT */
/*
 * all-events.c - every weft event, from several OS threads.
 *
 * A tiny "async runtime" by hand: the main thread runs a request that
 * spawns worker tasks on two OS threads; workers resolve or fail their
 * tasks, signal a condition, count and label as they go.
 *
 *   WEFT_FILE=t.weft build/examples/all-events
 *   weft dump t.weft
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <weft/weft.h>

enum { MAIN = 1, REQUEST = 2, COND = 3, WORKER = 100 };

static void *worker(void *arg)
{
	uint64_t id = (uint64_t)(uintptr_t)arg;
	weft_run(id);
	weft_span_begin("compute");
	weft_counter_add("busy-workers", 1);
	weft_note(id, "working hard");
	weft_span_end("compute");
	if (id % 2)
		weft_resolve(id); /* a task resolves itself when done */
	else
		weft_fail(id, "disk on fire: \"EIO\"");
	weft_signal(COND);
	weft_counter_add("busy-workers", -1);
	weft_run(0);
	return NULL;
}

int main(int argc, char **argv)
{
	int nworkers = argc > 1 ? atoi(argv[1]) : 2;
	if (nworkers < 1 || nworkers > 64)
		nworkers = 2;
	weft_run(MAIN);
	weft_label(MAIN, "main");
	weft_create(REQUEST, "request");
	weft_label(REQUEST, "GET /index.html");
	weft_should_resolve(REQUEST);
	weft_create(COND, "condition");
	weft_label(COND, "workers done");
	weft_counter_set("busy-workers", 0);

	pthread_t th[64];
	weft_run(REQUEST);
	for (int i = 0; i < nworkers; i++) {
		uint64_t id = WORKER + (uint64_t)i;
		weft_create(id, "task");
		weft_try_read(id);
		pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)id);
	}
	weft_idle("join");
	for (int i = 0; i < nworkers; i++)
		pthread_join(th[i], NULL);
	weft_resume();
	for (int i = 0; i < nworkers; i++)
		weft_read(WORKER + (uint64_t)i);
	weft_create(200, "promise");
	weft_becomes(200, 201);
	weft_create(300, "timer");
	weft_cancel(300);
	/* the fused forms an integration uses at every turn of its loop,
	 * in a phase of its loop */
	weft_phase("pending");
	weft_create_label(400, "reply", "200 OK to the client");
	weft_resolve_run(400);
	weft_fire(400, 401); /* 400 fires, and re-arms as 401 */
	weft_phase(NULL);
	weft_run(REQUEST);
	weft_pause("gc", 1500);
	/* a message: 12 bytes written at byte 100 of a channel, read back
	 * (as by another process, in a run) */
	weft_sent(REQUEST, 0xC4A11E1ull, 100, 12);
	weft_received(0, 0xC4A11E1ull, 100, 12);
	weft_resolve(REQUEST);
	weft_run(MAIN);
	weft_resolve(MAIN);
	weft_run(0);
	puts("all-events: done");
	return 0;
}
