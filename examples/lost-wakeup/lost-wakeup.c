/* SPDX-License-Identifier: MIT */
/*
 * lost-wakeup.c - the seed's ARP bug in a libuv program.  Two timers stand
 * for the network events: the ack of the ARP probe's write and the ARP
 * response.  "TCP connect" waits for the ack, then waits on a
 * condition-style primitive for the response.  A condition keeps no
 * memory: a signal with nobody waiting is lost.
 *
 *   good: the ack (1 ms) comes before the response (5 ms): it works;
 *   bad:  the response (1 ms) comes before the ack (5 ms): the signal is
 *         lost and "TCP connect" - and main, which should resolve - wait
 *         forever (the program gives up after 50 ms).
 *
 * libuv is traced by `weft record` with no code here; the condition and
 * the tasks are instrumented by hand with weft.h:
 *   weft record -o bad.weft -- build/examples/lost-wakeup bad
 *   weft why bad.weft
 */
#include <stdio.h>
#include <string.h>
#include <uv.h>

#include <weft/weft.h>

enum { MAIN = 1, CONNECT = 2, PROBE = 3, COND = 4 };

/* A condition variable for callbacks: wait registers a continuation,
 * signal runs it if someone waits, and is lost otherwise. */
struct cond {
	uint64_t id;
	void (*waiter)(void);
};

static struct cond arp_response = {COND, NULL};
static uv_timer_t ack_timer, response_timer, give_up;
static int connected;

static void cond_wait(struct cond *c, void (*k)(void))
{
	weft_try_read(c->id); /* the current thread now waits on it */
	c->waiter = k;
}

static void cond_signal(struct cond *c)
{
	weft_signal(c->id);
	void (*k)(void) = c->waiter;
	c->waiter = NULL;
	if (k)
		k();
}

static void connected_k(void)
{
	uint64_t prev = weft_current();
	weft_run(CONNECT);
	weft_read(COND);
	connected = 1;
	weft_resolve(CONNECT);
	weft_run(MAIN);
	weft_read(CONNECT);
	weft_resolve(MAIN);
	weft_run(prev);
	uv_close((uv_handle_t *)&give_up, NULL);
}

void on_ack(uv_timer_t *t);
void on_response(uv_timer_t *t);
void on_give_up(uv_timer_t *t);

void on_ack(uv_timer_t *t)
{
	(void)t;
	weft_resolve(PROBE); /* the probe went out */
	uint64_t prev = weft_current();
	weft_run(CONNECT);
	weft_read(PROBE);
	cond_wait(&arp_response, connected_k);
	weft_run(prev);
}

void on_response(uv_timer_t *t)
{
	(void)t;
	cond_signal(&arp_response);
}

void on_give_up(uv_timer_t *t)
{
	(void)t;
	uv_close((uv_handle_t *)&ack_timer, NULL);
	uv_close((uv_handle_t *)&response_timer, NULL);
	uv_close((uv_handle_t *)&give_up, NULL);
}

int main(int argc, char **argv)
{
	int bad = argc > 1 && !strcmp(argv[1], "bad");
	uv_loop_t *loop = uv_default_loop();
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
	weft_run(0);
	uv_timer_init(loop, &ack_timer);
	uv_timer_init(loop, &response_timer);
	uv_timer_init(loop, &give_up);
	uv_timer_start(&ack_timer, on_ack, bad ? 5 : 1, 0);
	uv_timer_start(&response_timer, on_response, bad ? 1 : 5, 0);
	uv_timer_start(&give_up, on_give_up, 50, 0);
	uv_run(loop, UV_RUN_DEFAULT);
	printf("lost-wakeup %s: %s\n", bad ? "bad" : "good",
	       connected ? "connected"
			 : "gave up waiting for the ARP response");
	return connected ? 0 : 1;
}
