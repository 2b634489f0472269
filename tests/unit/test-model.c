/* SPDX-License-Identifier: MIT */
/* test-model.c - events into the model: exact threads, ends, parents,
 * arrows, runs, idle periods, spans, pauses, counters, losses. */
#include "../harness.h"
#include "util.h"
#include "weft/model.h"
#include "weft/weft.h"

static struct weft_model *load(const char *p, struct weft_reader **r)
{
	CHECK_OK(weft_reader_open(r, p, 0, NULL));
	struct weft_model *m;
	CHECK_OK(weft_model_load(&m, *r));
	return m;
}

TEST(threads_and_arrows)
{
	const char *p = tpath("m.weft");
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_run(1);                 /* 1: never created */
	weft_create(2, "req");       /* 1 creates 2 */
	weft_label(2, "first");
	weft_label(2, "second");
	weft_try_read(2);            /* 1 waits on 2 */
	weft_idle("poll");
	weft_resume();
	weft_run(2);
	weft_span_begin("work");
	weft_counter_set("c", 5);
	weft_counter_add("c", -2);
	weft_span_end("work");
	weft_resolve(2);             /* 2 resolves itself */
	weft_run(1);
	weft_read(2);                /* 1 reads 2 */
	weft_create(3, "req");
	weft_fail(3, "nope");
	weft_read(3);                /* read of a failure */
	weft_create(4, "p");
	weft_becomes(4, 5);
	weft_create(6, "t");
	weft_cancel(6);
	weft_create(2, "req");       /* a new incarnation of 2 */
	weft_signal(2);
	weft_pause("gc", 1000);
	weft_run(0);
	CHECK_OK(weft_stop());

	struct weft_reader *r;
	struct weft_model *m = load(p, &r);
	uint32_t nth, narr, nrun, nlab, nctr, n;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_arrow *a = weft_model_arrows(m, &narr);
	const struct weft_run *run = weft_model_runs(m, &nrun);
	weft_model_labels(m, &nlab);
	const struct weft_counter *c = weft_model_counters(m, &nctr);

	/* root of stream 0, then 1 (no create), 2, 3, 4, 5, 6, 2' */
	CHECK_EQ(nth, 8);
	CHECK(th[0].flags & WEFT_THREAD_ROOT);
	uint32_t t1 = weft_model_find(m, 1), t2 = 2, t3 = weft_model_find(m, 3);
	CHECK_EQ(t1, 1);
	CHECK(th[t1].flags & WEFT_THREAD_NO_CREATE);
	CHECK_EQ(th[t1].end, WEFT_END_PENDING);
	CHECK_U64(th[t2].id, 2);
	CHECK_EQ(th[t2].parent, t1);
	CHECK_EQ(th[t2].end, WEFT_END_RESOLVED); /* then its id is reused */
	CHECK_STR(weft_model_name(m, th[t2].kind), "req");
	char buf[64];
	CHECK_STR(weft_model_title(m, t2, buf, sizeof buf), "second");
	CHECK_EQ(th[t3].end, WEFT_END_FAILED);
	CHECK_STR(weft_model_string(m, th[t3].message), "nope");
	uint32_t t4 = weft_model_find(m, 4), t5 = weft_model_find(m, 5);
	CHECK_EQ(th[t4].end, WEFT_END_BECAME);
	CHECK_EQ(th[t4].became, t5);
	CHECK(th[t5].flags & WEFT_THREAD_NO_CREATE);
	CHECK_EQ(th[weft_model_find(m, 6)].end, WEFT_END_CANCELLED);
	uint32_t t2b = weft_model_find(m, 2);
	CHECK_EQ(t2b, 7);
	CHECK_EQ(th[t2b].incarnation, 1);
	CHECK_EQ(th[t2b].end, WEFT_END_PENDING);

	/* arrows, in order */
	struct {
		int kind;
		uint32_t from, to;
		int flags;
	} want[] = {
		{WEFT_ARROW_CREATE, t1, t2, 0},
		{WEFT_ARROW_TRY_READ, t1, t2, WEFT_ARROW_FOLLOWED},
		{WEFT_ARROW_RESOLVE, t2, t2, 0},
		{WEFT_ARROW_READ, t2, t1, 0},
		{WEFT_ARROW_CREATE, t1, t3, 0},
		{WEFT_ARROW_FAIL, t1, t3, 0},
		{WEFT_ARROW_READ_FAILED, t3, t1, 0},
		{WEFT_ARROW_CREATE, t1, t4, 0},
		{WEFT_ARROW_BECOME, t4, t5, 0},
		{WEFT_ARROW_CREATE, t1, 6, 0},
		{WEFT_ARROW_CANCEL, t1, 6, 0},
		{WEFT_ARROW_CREATE, t1, t2b, 0},
		{WEFT_ARROW_SIGNAL, t1, t2b, 0},
	};
	CHECK_EQ(narr, sizeof want / sizeof *want);
	for (uint32_t i = 0; i < narr; i++) {
		if (a[i].kind != want[i].kind || a[i].from != want[i].from ||
		    a[i].to != want[i].to || a[i].flags != want[i].flags)
			FAIL("arrow %u: %d %u->%u %d", i, a[i].kind, a[i].from,
			     a[i].to, a[i].flags);
	}
	/* runs: 1 until idle; 1 after resume until run(2); 2; 1 to the end */
	CHECK_EQ(nrun, 4);
	CHECK_EQ(run[0].thread, t1);
	CHECK_EQ(run[1].thread, t1);
	CHECK_EQ(run[2].thread, t2);
	CHECK_EQ(run[3].thread, t1);
	const struct weft_interval *iv = weft_model_intervals(m, WEFT_EV_IDLE, &n);
	CHECK_EQ(n, 1);
	CHECK_STR(weft_model_name(m, iv[0].name), "poll");
	CHECK_EQ(iv[0].t0, run[0].t1);
	CHECK_EQ(iv[0].t1, run[1].t0);
	iv = weft_model_intervals(m, WEFT_EV_SPAN_BEGIN, &n);
	CHECK_EQ(n, 1);
	CHECK_EQ(iv[0].thread, t2);
	iv = weft_model_intervals(m, WEFT_EV_PAUSE, &n);
	CHECK_EQ(n, 1);
	CHECK_EQ(iv[0].t1 - iv[0].t0, 1000);
	CHECK_EQ(nctr, 1);
	CHECK_EQ(c[0].nsamples, 2);
	CHECK_EQ(c[0].samples[1].value, 3);
	CHECK_EQ(c[0].min, 3);
	CHECK_EQ(c[0].max, 5);
	CHECK_EQ(nlab, 2);
	/* per-thread lists */
	const uint32_t *ai = weft_model_thread_arrows(m, t3, &n);
	CHECK_EQ(n, 3);
	CHECK_EQ(a[ai[0]].kind, WEFT_ARROW_CREATE);
	weft_model_thread_runs(m, t2, &n);
	CHECK_EQ(n, 1);
	weft_model_free(m);
	weft_reader_close(r);
}

/* Threads on several OS threads, losses, memory per event. */
TEST(losses_and_memory)
{
	const char *p = tpath("l.weft");
	CHECK_OK(weft_start(p, 256 << 10, WEFT_OVERWRITE));
	for (uint64_t i = 1; i <= 100000; i++) {
		weft_create(i, "k");
		weft_run(i);
		weft_resolve(i);
	}
	CHECK_OK(weft_stop());
	struct weft_reader *r;
	struct weft_model *m = load(p, &r);
	uint32_t n, nth;
	const struct weft_loss *l = weft_model_losses(m, &n);
	CHECK(n >= 1);
	CHECK(l[0].packets > 0);
	const struct weft_thread *th = weft_model_threads(m, &nth);
	/* the oldest creations fell off: the first thread seen may lack
	 * its create, every later one has it */
	uint64_t events = weft_reader_info(r)->events;
	CHECK(events > 1000);
	fprintf(stderr, "# %llu bytes for %llu events, %u threads\n", (unsigned long long)weft_model_bytes(m), (unsigned long long)events, nth);
	CHECK(weft_model_bytes(m) <= 64 * events + 65536);
	uint32_t resolved = 0;
	for (uint32_t i = 0; i < nth; i++)
		resolved += th[i].end == WEFT_END_RESOLVED;
	CHECK(resolved >= nth - 3);
	weft_model_free(m);
	weft_reader_close(r);
}

TEST_MAIN(T(threads_and_arrows), T(losses_and_memory))
