/* SPDX-License-Identifier: MIT */
/*
 * arp.c - the lost wake-up from MirageOS's ARP code (see the seed blog
 * post), reproduced with a tiny hand-instrumented async runtime.
 *
 * The main thread opens a "TCP connect", which sends an ARP probe
 * ("ring.write") and must then wait on the "ARP response" condition.
 * Two network events arrive: the ack of the probe's write, and the ARP
 * response.  With `good`, the ack comes first: TCP connect waits on the
 * condition before the response signals it, and everything resolves.
 * With `bad`, the response comes first: the condition is signalled while
 * nobody waits, then TCP connect waits on it forever -- and main, which
 * should resolve, never does.
 *
 *   WEFT_FILE=bad.weft build/examples/arp bad && weft why bad.weft
 */
#include <stdio.h>
#include <string.h>

#include <weft/weft.h>

enum {
	LOOP = 1,    /* the event loop */
	MAIN = 2,    /* the program's main thread */
	CONNECT = 3, /* TCP connect */
	COND = 4,    /* the "ARP response" condition */
	PROBE = 5,   /* ring.write of the ARP probe */
	EVENT = 100, /* network events (port-4 notifications) */
};

static int waiting_on_cond;
static uint64_t next_event = EVENT;

/* A network event: the loop creates a handler that runs and returns. */
static uint64_t net_event(const char *what)
{
	uint64_t ev = next_event++;
	weft_run(LOOP);
	weft_create(ev, "event");
	weft_label(ev, what);
	weft_run(ev);
	return ev;
}

static void arp_response(void)
{
	uint64_t ev = net_event("port-4: ARP response");
	/* Lwt_condition.signal: wakes whoever waits now, if anyone. */
	weft_signal(COND);
	if (waiting_on_cond) {
		weft_run(CONNECT);
		weft_read(COND);
		waiting_on_cond = 0;
		/* the connection proceeds: SYN, ack... */
		weft_counter_add("tcp-to-ip", 1);
		weft_resolve(CONNECT);
		weft_run(MAIN);
		weft_read(CONNECT);
		weft_resolve(MAIN);
	}
	weft_run(ev);
	weft_resolve(ev);
	weft_run(LOOP);
}

static void write_acked(void)
{
	uint64_t ev = net_event("port-4: ring.write ack");
	weft_resolve(PROBE);
	/* TCP connect continues after its probe went out: it now waits for
	 * the ARP response on the condition. */
	weft_run(CONNECT);
	weft_read(PROBE);
	weft_try_read(COND);
	waiting_on_cond = 1;
	weft_run(ev);
	weft_resolve(ev);
	weft_run(LOOP);
}

int main(int argc, char **argv)
{
	int bad = argc > 1 && !strcmp(argv[1], "bad");
	weft_run(LOOP);
	weft_label(LOOP, "event loop");
	weft_create(MAIN, "task");
	weft_label(MAIN, "main");
	weft_should_resolve(MAIN);
	weft_run(MAIN);
	weft_create(CONNECT, "task");
	weft_label(CONNECT, "TCP connect");
	weft_try_read(CONNECT);
	weft_run(CONNECT);
	weft_create(COND, "condition");
	weft_label(COND, "ARP response");
	weft_create(PROBE, "wait");
	weft_label(PROBE, "ring.write");
	weft_try_read(PROBE);
	weft_run(LOOP);
	weft_idle("poll");
	weft_resume();
	if (bad) {
		arp_response();
		weft_idle("poll");
		weft_resume();
		write_acked();
	} else {
		write_acked();
		weft_idle("poll");
		weft_resume();
		arp_response();
	}
	weft_idle("poll");
	weft_resume();
	weft_run(0);
	printf("arp %s: main %s\n", bad ? "bad" : "good",
	       waiting_on_cond ? "hangs" : "returned");
	return 0;
}
