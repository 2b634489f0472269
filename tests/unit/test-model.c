/* SPDX-License-Identifier: MIT */
/* test-model.c - events into the model: exact threads, ends, parents,
 * arrows, runs, idle periods, spans, pauses, counters, losses. */
#include <math.h>

#include "../harness.h"
#include "util.h"
#include "weft/diff.h"
#include "weft/model.h"
#include "weft/stats.h"
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
	weft_run(1);	       /* 1: never created */
	weft_create(2, "req"); /* 1 creates 2 */
	weft_label(2, "first");
	weft_label(2, "second");
	weft_try_read(2); /* 1 waits on 2 */
	weft_idle("poll");
	weft_resume();
	weft_run(2);
	weft_span_begin("work");
	weft_counter_set("c", 5);
	weft_counter_add("c", -2);
	weft_span_end("work");
	weft_resolve(2); /* 2 resolves itself */
	weft_run(1);
	weft_read(2); /* 1 reads 2 */
	weft_create(3, "req");
	weft_fail(3, "nope");
	weft_read(3); /* read of a failure */
	weft_create(4, "p");
	weft_becomes(4, 5);
	weft_create(6, "t");
	weft_cancel(6);
	weft_create(2, "req"); /* a new incarnation of 2 */
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
	const struct weft_interval *iv =
		weft_model_intervals(m, WEFT_INTERVAL_IDLE, &n);
	CHECK_EQ(n, 1);
	CHECK_STR(weft_model_name(m, iv[0].name), "poll");
	CHECK_EQ(iv[0].t0, run[0].t1);
	CHECK_EQ(iv[0].t1, run[1].t0);
	iv = weft_model_intervals(m, WEFT_INTERVAL_SPAN, &n);
	CHECK_EQ(n, 1);
	CHECK_EQ(iv[0].thread, t2);
	iv = weft_model_intervals(m, WEFT_INTERVAL_PAUSE, &n);
	CHECK_EQ(n, 1);
	CHECK_EQ(iv[0].t1 - iv[0].t0, 1000);
	/* a kind given as the event that begins it (as callers did before
	 * the kinds had their enum) is that kind, never another one */
	CHECK(weft_model_intervals(m, WEFT_EV_IDLE, &n) ==
	      weft_model_intervals(m, WEFT_INTERVAL_IDLE, &n));
	CHECK(weft_model_intervals(m, WEFT_EV_SPAN_BEGIN, &n) ==
	      weft_model_intervals(m, WEFT_INTERVAL_SPAN, &n));
	CHECK(weft_model_intervals(m, WEFT_EV_PAUSE, &n) ==
	      weft_model_intervals(m, WEFT_INTERVAL_PAUSE, &n));
	CHECK(weft_model_intervals(m, WEFT_EV_RUN, &n) == NULL && n == 0);
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
	fprintf(stderr, "# %llu bytes for %llu events, %u threads\n",
		(unsigned long long)weft_model_bytes(m),
		(unsigned long long)events, nth);
	CHECK(weft_model_bytes(m) <= 64 * events + 65536);
	uint32_t resolved = 0;
	for (uint32_t i = 0; i < nth; i++)
		resolved += th[i].end == WEFT_END_RESOLVED;
	CHECK(resolved >= nth - 3);
	weft_model_free(m);
	weft_reader_close(r);
}

/* The fused events give the model exactly what their halves do:
 * create_label = create + label, resolve_run = resolve + run, fire =
 * resolve_run + the target creating the next, of its kind and label. */
TEST(fused_events_match_their_halves)
{
	const char *pa = tpath("halves.weft"), *pb = tpath("fused.weft");
	for (int fused = 0; fused < 2; fused++) {
		CHECK_OK(weft_start(fused ? pb : pa, 1 << 20, 0));
		weft_run(1);
		if (fused) {
			weft_create_label(2, "req", "a request");
		} else {
			weft_create(2, "req");
			weft_label(2, "a request");
		}
		weft_run(0);
		if (fused) {
			weft_resolve_run(2);
		} else {
			weft_resolve(2);
			weft_run(2);
		}
		weft_run(0);
		if (fused) {
			weft_fire(2, 3);
		} else {
			weft_resolve(2);
			weft_run(2);
			weft_create(3, "req");
			weft_label(3, "a request");
		}
		weft_run(0);
		CHECK_OK(weft_stop());
	}
	struct weft_reader *ra, *rb;
	struct weft_model *ma = load(pa, &ra), *mb = load(pb, &rb);
	uint32_t na, nb;
	const struct weft_thread *ta = weft_model_threads(ma, &na);
	const struct weft_thread *tb = weft_model_threads(mb, &nb);
	CHECK_EQ(na, nb);
	uint32_t x = weft_model_find(mb, 2);
	CHECK_EQ(x, weft_model_find(ma, 2));
	char b1[64], b2[64];
	CHECK_STR(weft_model_title(mb, x, b2, sizeof b2), "a request");
	CHECK_STR(weft_model_title(ma, x, b1, sizeof b1), b2);
	CHECK_STR(weft_model_name(mb, tb[x].kind), "req");
	CHECK_EQ(tb[x].end, WEFT_END_RESOLVED);
	CHECK_EQ(ta[x].end, tb[x].end);
	CHECK_EQ(tb[x].parent, weft_model_find(mb, 1));
	uint32_t y = weft_model_find(mb, 3);
	CHECK_EQ(y, weft_model_find(ma, 3));
	CHECK_STR(weft_model_title(mb, y, b2, sizeof b2), "a request");
	CHECK_STR(weft_model_name(mb, tb[y].kind), "req");
	CHECK_EQ(tb[y].parent, x);
	CHECK_EQ(ta[y].parent, x);
	CHECK_EQ(tb[y].end, WEFT_END_PENDING);
	uint32_t nla, nlb;
	weft_model_labels(ma, &nla);
	weft_model_labels(mb, &nlb);
	CHECK_EQ(nla, 2);
	CHECK_EQ(nlb, 2);
	const struct weft_arrow *aa = weft_model_arrows(ma, &na);
	const struct weft_arrow *ab = weft_model_arrows(mb, &nb);
	/* create 2, resolve 2, resolve 2 again (a second resolution is an
	 * arrow too), create 3 */
	CHECK_EQ(na, 4);
	CHECK_EQ(nb, 4);
	for (uint32_t i = 0; i < na; i++) {
		CHECK_EQ(aa[i].kind, ab[i].kind);
		CHECK_EQ(aa[i].from, ab[i].from);
		CHECK_EQ(aa[i].to, ab[i].to);
	}
	CHECK_EQ(ab[1].kind, WEFT_ARROW_RESOLVE);
	CHECK_EQ(ab[1].to, x);
	CHECK_EQ(ab[3].kind, WEFT_ARROW_CREATE);
	CHECK_EQ(ab[3].from, x);
	CHECK_EQ(ab[3].to, y);
	/* 1 runs, then 2 from its resolution until run(0), twice */
	const struct weft_run *ru = weft_model_runs(mb, &nb);
	weft_model_runs(ma, &na);
	CHECK_EQ(na, 3);
	CHECK_EQ(nb, 3);
	CHECK_EQ(ru[1].thread, x);
	CHECK_EQ(ru[1].t0, ab[1].t);
	CHECK_EQ(ru[2].thread, x);
	CHECK_EQ(ru[2].t0, ab[2].t);
	weft_model_free(ma);
	weft_model_free(mb);
	weft_reader_close(ra);
	weft_reader_close(rb);
}

/* An event loop's phases: each lasts until the next phase; on an OS
 * thread that records phases each idle period begins anew the phase its
 * reason names (one an iteration), which goes on after the resume; the
 * last one ends, for now, with the trace. */
TEST(loop_phases)
{
	const char *p = tpath("phases.weft");
	static const char poll[] = "poll"; /* one name, one address */
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_run(1);
	weft_idle(poll); /* no phase recorded yet: only idle */
	weft_resume();
	weft_phase("timers");
	weft_run(2);
	weft_run(1);
	weft_idle(poll); /* timers ends, poll begins */
	weft_resume();
	weft_run(3); /* I/O callbacks: still poll */
	weft_run(1);
	weft_phase("closing");
	weft_phase("closing"); /* the same: nothing new */
	weft_phase(NULL);      /* the loop leaves its phases */
	weft_idle(poll);       /* a loop's wait: poll again */
	weft_resume();
	weft_idle(poll); /* the next iteration's: a poll phase of its own */
	weft_resume();
	weft_run(0);
	CHECK_OK(weft_stop());
	struct weft_reader *r;
	struct weft_model *m = load(p, &r);
	uint32_t n, ni;
	const struct weft_interval *ph =
		weft_model_intervals(m, WEFT_INTERVAL_PHASE, &n);
	const struct weft_interval *idle =
		weft_model_intervals(m, WEFT_INTERVAL_IDLE, &ni);
	CHECK_EQ(ni, 4);
	CHECK_EQ(n, 5);
	const char *want[] = {"timers", "poll", "closing", "poll", "poll"};
	for (uint32_t i = 0; i < n; i++) {
		CHECK_STR(weft_model_name(m, ph[i].name), want[i]);
		CHECK_EQ(ph[i].stream, 0);
		CHECK(ph[i].t0 <= ph[i].t1);
	}
	CHECK(ph[0].t0 >= idle[0].t1);
	CHECK_EQ(ph[0].t1, idle[1].t0);
	CHECK_EQ(ph[1].t0, idle[1].t0);
	CHECK_EQ(ph[1].t1, ph[2].t0);
	CHECK(ph[1].t1 > idle[1].t1); /* beyond the wait */
	CHECK(ph[2].t1 < ph[3].t0);   /* none between */
	CHECK_EQ(ph[3].t0, idle[2].t0);
	CHECK_EQ(ph[3].t1, idle[3].t0);
	CHECK_EQ(ph[4].t0, idle[3].t0);
	int64_t t0, t1;
	weft_model_range(m, &t0, &t1);
	CHECK_EQ(ph[4].t1, t1);
	weft_model_free(m);
	weft_reader_close(r);
}

/* A live model updated as the trace grows keeps no provisional run,
 * idle period or phase of the update before, even when it had none that
 * had ended. */
TEST(live_update_replaces_provisional_ends)
{
	const char *p = tpath("live.weft");
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_run(1);
	weft_phase("timers");
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, p, WEFT_READ_FOLLOW, NULL));
	struct weft_model *m;
	CHECK_OK(weft_model_load(&m, r));
	uint32_t n;
	weft_model_runs(m, &n);
	CHECK_EQ(n, 1); /* 1, running still */
	weft_model_intervals(m, WEFT_INTERVAL_PHASE, &n);
	CHECK_EQ(n, 1);
	weft_run(2);
	weft_idle("poll");
	CHECK(weft_model_update(m) > 0);
	weft_model_runs(m, &n);
	CHECK_EQ(n, 2);
	weft_model_intervals(m, WEFT_INTERVAL_IDLE, &n);
	CHECK_EQ(n, 1); /* open */
	weft_model_intervals(m, WEFT_INTERVAL_PHASE, &n);
	CHECK_EQ(n, 2); /* timers, poll (open) */
	weft_resume();
	weft_phase(NULL);
	weft_run(0);
	CHECK(weft_model_update(m) > 0);
	const struct weft_run *run = weft_model_runs(m, &n);
	CHECK_EQ(n, 3); /* 1, 2 until idle, 2 again after resume */
	CHECK_EQ(run[0].thread, weft_model_find(m, 1));
	CHECK_EQ(run[1].thread, weft_model_find(m, 2));
	CHECK_EQ(run[2].thread, weft_model_find(m, 2));
	weft_model_intervals(m, WEFT_INTERVAL_IDLE, &n);
	CHECK_EQ(n, 1);
	const struct weft_interval *ph =
		weft_model_intervals(m, WEFT_INTERVAL_PHASE, &n);
	CHECK_EQ(n, 2);
	CHECK_STR(weft_model_name(m, ph[1].name), "poll");
	CHECK(ph[1].t1 > ph[1].t0);
	CHECK_OK(weft_stop());
	weft_model_free(m);
	weft_reader_close(r);
}

/* A live model that grows while it is read: a read follows a try_read
 * read in an earlier update, and after its source's id is created again
 * (a new incarnation), the read is of the new one and follows only the
 * try_read of it. */
TEST(a_growing_model_follows_try_reads_across_updates)
{
	const char *p = tpath("lf.weft");
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_run(1);
	weft_create(2, "a");
	weft_create(3, "b");
	weft_run(2);
	weft_try_read(3);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, p, WEFT_READ_FOLLOW, NULL));
	struct weft_model *m;
	CHECK_OK(weft_model_load(&m, r));
	weft_run(1);
	weft_create(4, "c");
	weft_run(2);
	weft_try_read(4);
	weft_read(3); /* the try_read of the first update */
	CHECK(weft_model_update(m) > 0);
	weft_run(1);
	weft_create(3, "b"); /* again */
	weft_run(2);
	weft_try_read(3);
	weft_read(3);
	weft_run(0);
	CHECK(weft_model_update(m) > 0);
	uint32_t n, nth;
	const struct weft_arrow *a = weft_model_arrows(m, &n);
	const struct weft_thread *th = weft_model_threads(m, &nth);
	uint32_t b2 = weft_model_find(m, 3);
	CHECK_EQ(th[b2].incarnation, 1);
	int bits = 0, k = 0, reads = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (a[i].kind == WEFT_ARROW_TRY_READ)
			bits |= !!(a[i].flags & WEFT_ARROW_FOLLOWED) << k++;
		if (a[i].kind == WEFT_ARROW_READ && reads++ == 1)
			CHECK_EQ(a[i].from, b2);
	}
	CHECK_EQ(k, 3);
	CHECK_EQ(reads, 2);
	CHECK_EQ(bits, 1 | 1 << 2);
	CHECK_OK(weft_stop());
	weft_model_free(m);
	weft_reader_close(r);
}

/* A read marks as followed the reader's latest try_read of that same
 * source, and no other: not the latest try_read of another source, nor
 * another reader's. */
TEST(a_read_follows_the_try_read_of_its_source)
{
	const char *p = tpath("f.weft");
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_run(1);
	weft_create(2, "a");
	weft_create(3, "b");
	weft_create(4, "c");
	weft_create(5, "d");
	weft_run(2);
	weft_try_read(3); /* 2 waits on 3, */
	weft_try_read(4); /* then on 4 (the latest), */
	weft_run(5);
	weft_try_read(3); /* and 5 on 3 */
	weft_run(2);
	weft_read(3); /* 2 reads 3: its first wait is answered */
	weft_read(1); /* a read of something it never waited on */
	CHECK_OK(weft_stop());
	struct weft_reader *r;
	struct weft_model *m = load(p, &r);
	uint32_t n;
	const struct weft_arrow *a = weft_model_arrows(m, &n);
	uint32_t t2 = weft_model_find(m, 2), t3 = weft_model_find(m, 3),
		 t4 = weft_model_find(m, 4), t5 = weft_model_find(m, 5);
	int seen = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (a[i].kind != WEFT_ARROW_TRY_READ)
			continue;
		int want = a[i].from == t2 && a[i].to == t3;
		if (!!(a[i].flags & WEFT_ARROW_FOLLOWED) != want)
			FAIL("try_read %u -> %u: flags %d", a[i].from, a[i].to,
			     a[i].flags);
		seen |= (a[i].from == t2 && a[i].to == t3) |
			(a[i].from == t2 && a[i].to == t4) << 1 |
			(a[i].from == t5 && a[i].to == t3) << 2;
	}
	CHECK_EQ(seen, 7);
	weft_model_free(m);
	weft_reader_close(r);
}

/* Which of reader 2's try_reads the read of 3 follows, when `gap` other
 * arrows come between its latest try_read of 3 and the read: bit k set
 * for its k-th try_read (three of 3, one of 4 between them). */
static int followed_after(const char *name, int gap)
{
	const char *p = tpath(name);
	CHECK_OK(weft_start(p, 1 << 22, 0));
	weft_run(1);
	weft_create(2, "a");
	weft_create(3, "b");
	weft_create(4, "c");
	weft_run(2);
	weft_try_read(3);
	weft_try_read(4);
	weft_try_read(3);
	weft_try_read(3); /* the one a read follows, if near enough */
	for (int i = 0; i < gap; i++)
		weft_signal(4); /* an arrow each */
	weft_read(3);
	CHECK_OK(weft_stop());
	struct weft_reader *r;
	struct weft_model *m = load(p, &r);
	uint32_t n;
	const struct weft_arrow *a = weft_model_arrows(m, &n);
	CHECK_EQ(n, 3 + 4 + (uint32_t)gap + 1);
	int bits = 0, k = 0;
	for (uint32_t i = 0; i < n; i++)
		if (a[i].kind == WEFT_ARROW_TRY_READ)
			bits |= !!(a[i].flags & WEFT_ARROW_FOLLOWED) << k++;
	CHECK_EQ(k, 4);
	weft_model_free(m);
	weft_reader_close(r);
	return bits;
}

/* A read looks back 4096 arrows (its own among them) for the try_read
 * it answers: the latest of its reader and source, not an earlier one
 * of the same pair; 4094 arrows between them are near enough, 4095 not,
 * and a try_read more than 4096 arrows back is never followed. */
TEST(a_read_follows_only_the_latest_near_try_read)
{
	CHECK_EQ(followed_after("g0.weft", 0), 1 << 3);
	CHECK_EQ(followed_after("g1.weft", 4094), 1 << 3);
	CHECK_EQ(followed_after("g2.weft", 4095), 0);
	CHECK_EQ(followed_after("g3.weft", 9000), 0);
}

/* The inspector's entries: every arrow, label and note of a thread (40
 * creations, 3 waits, 12 labels, 3 notes: no cap), in time order, with
 * exact times and each wait's length and end. */
static void at(uint64_t ns)
{
	weft_clock_set(ns);
}

static void record_busy_thread(const char *p, char labels[12][16])
{
	CHECK_OK(weft_start(p, 1 << 20, WEFT_CLOCK_MANUAL));
	at(1000);
	weft_run(1);
	for (uint64_t i = 0; i < 40; i++) {
		at(10000 + i * 1000);
		weft_create(100 + i, "job");
	}
	at(60000);
	weft_try_read(100); /* waits on 100, which resolves at 65000 */
	at(62000);
	weft_run(100);
	at(65000);
	weft_resolve(100);
	at(70000);
	weft_run(1);
	at(71000);
	weft_try_read(101); /* waits on 101, is woken at 75000 */
	at(72000);
	weft_run(0);
	at(75000);
	weft_run(1);
	for (int i = 0; i < 12; i++) {
		at(80000 + (uint64_t)i * 100);
		snprintf(labels[i], 16, "step %d", i);
		weft_label(1, labels[i]);
	}
	for (uint64_t i = 0; i < 3; i++) {
		at(85000 + i * 10);
		weft_note(1, "noted");
	}
	at(90000);
	weft_try_read(102); /* never answered */
	at(99000);
	CHECK_OK(weft_stop());
}

TEST(the_inspector_lists_every_entry)
{
	const char *p = tpath("i.weft");
	char labels[12][16];
	record_busy_thread(p, labels);
	struct weft_reader *r;
	struct weft_model *m = load(p, &r);
	uint32_t t1 = weft_model_find(m, 1);
	struct weft_inspect in = {0};
	CHECK_OK(weft_model_inspect(m, t1, &in));
	CHECK_EQ(in.n, 40 + 3 + 12 + 3);
	int64_t lo, hi;
	weft_model_range(m, &lo, &hi);
	const struct weft_entry *e = in.entries;
	for (uint32_t i = 0; i < 40; i++) {
		CHECK_EQ(e[i].kind, WEFT_ENTRY_ARROW);
		CHECK_EQ(e[i].t, 10000 + i * 1000);
		CHECK_EQ(e[i].other, weft_model_find(m, 100 + i));
		CHECK_EQ(e[i].out, 1);
		CHECK_EQ(e[i].dur, -1);
	}
	CHECK_EQ(e[40].t, 60000);
	CHECK_EQ(e[40].dur, 5000);
	CHECK_EQ(e[40].wait, WEFT_WAIT_ENDED);
	CHECK_EQ(e[40].other, weft_model_find(m, 100));
	CHECK_EQ(e[41].t, 71000);
	CHECK_EQ(e[41].dur, 4000);
	CHECK_EQ(e[41].wait, WEFT_WAIT_WOKEN);
	for (int i = 0; i < 12; i++) {
		CHECK_EQ(e[42 + i].kind, WEFT_ENTRY_LABEL);
		CHECK_EQ(e[42 + i].t, 80000 + i * 100);
		CHECK_STR(weft_model_string(m, e[42 + i].text), labels[i]);
	}
	for (int i = 0; i < 3; i++) {
		CHECK_EQ(e[54 + i].kind, WEFT_ENTRY_NOTE);
		CHECK_EQ(e[54 + i].t, 85000 + i * 10);
	}
	CHECK_EQ(e[57].t, 90000);
	CHECK_EQ(e[57].wait, WEFT_WAIT_AT_END);
	CHECK_EQ(e[57].dur, hi - 90000);
	/* (the waits less the runs: it ran on after each try-read, to
	 * 62000 and 72000, and from 75000 to the end) */
	CHECK_EQ(hi, 90000);
	CHECK_EQ(in.waiting, (65000 - 62000) + (75000 - 72000));
	CHECK_EQ(in.running, (62000 - 1000) + (72000 - 70000) + (hi - 75000));

	/* as lines: every entry, none cut; times from the first event
	 * (at 1 us), to the ns, as weft why and dump print them */
	char line[512], all[16384];
	weft_entry_text(m, t1, &e[40], line, sizeof line);
	CHECK_STR(line, "at 0.000 059 s: waited on (not ready) job 0x64 "
			"for 5 us (until it resolved)");
	weft_entry_text(m, t1, &e[41], line, sizeof line);
	CHECK_STR(line, "at 0.000 070 s: waited on (not ready) job 0x65 "
			"for 4 us (until woken)");
	weft_entry_text(m, t1, &e[53], line, sizeof line);
	CHECK_STR(line, "at 0.000 080 100 s: label: step 11");
	size_t len = weft_model_describe(m, t1, all, sizeof all);
	CHECK(len < sizeof all);
	CHECK(strstr(all, "\nentries: 58\n"));
	CHECK(strstr(all, ": created job 0x8b\n"));
	CHECK(strstr(all, "label: step 0"));
	CHECK(!strstr(all, "more"));
	weft_inspect_release(&in);
	CHECK_EQ(in.n, 0);
	weft_inspect_release(NULL);
	weft_chain_release(NULL); /* (every release takes NULL) */
	CHECK_EQ(weft_model_inspect(m, 9999, &in), WEFT_EINVAL);
	weft_model_free(m);
	weft_reader_close(r);
}

/* The inspector's words: an arrow said from the inspected thread's side
 * ("created by event loop", "resolved query 0x5", "waited on (not
 * ready) by stuck"), a thread's own resolve not listed as an arrow to
 * itself, and durations that add up: a thread pending at the end is
 * pending to the end of the trace, two waits at once count once, the
 * time it ran after a try-read is not waiting, and what is neither is
 * said; the tooltip's life is the same.  (Before: "seen for 6 us, ran 3
 * us, waited 143 us" of a thread pending 107 us.) */
TEST(the_inspector_in_words)
{
	const char *p = tpath("w.weft");
	CHECK_OK(weft_start(p, 1 << 20, WEFT_CLOCK_MANUAL));
	at(1000);
	weft_run(1);
	weft_label(1, "event loop");
	at(2000);
	weft_create(2, "request");
	weft_label(2, "GET /a");
	at(3000);
	weft_create(3, "task");
	weft_label(3, "stuck");
	at(4000);
	weft_create(4, "query");
	weft_create(5, "query");
	at(5000);
	weft_run(2);
	at(6000);
	weft_resolve(2); /* its own resolve, running on to 7000 */
	at(7000);
	weft_run(3);
	at(8000);
	weft_try_read(4); /* never answered: waits to the end */
	at(9000);
	weft_try_read(5); /* answered at 50000: within the first */
	at(10000);
	weft_run(1);
	at(50000);
	weft_resolve(5);
	at(110000);
	weft_note(1, "the end");
	CHECK_OK(weft_stop());
	struct weft_reader *r;
	struct weft_model *m = load(p, &r);
	uint32_t t2 = weft_model_find(m, 2), t3 = weft_model_find(m, 3);
	uint32_t t4 = weft_model_find(m, 4), t5 = weft_model_find(m, 5);
	char buf[4096];

	weft_model_describe(m, t3, buf, sizeof buf);
	CHECK(strstr(buf, "\npending for 107 us (to the end of the trace): "
			  "ran 3 us, waited 100 us, neither 4 us\n"));
	CHECK(strstr(buf, "\nat 0.000 002 s: created by event loop\n"));
	CHECK(strstr(buf, "\nat 0.000 007 s: waited on (not ready) query "
			  "0x4 for 102 us (still waiting at the end)\n"));
	struct weft_inspect in = {0};
	CHECK_OK(weft_model_inspect(m, t3, &in));
	CHECK_EQ(in.running, 3000);
	CHECK_EQ(in.waiting, 100000);
	weft_inspect_release(&in);

	/* its own resolve: no entry of it to itself; ran to its end only */
	CHECK_OK(weft_model_inspect(m, t2, &in));
	CHECK_EQ(in.n, 2); /* created by, its label */
	for (uint32_t i = 0; i < in.n; i++)
		CHECK(in.entries[i].other != t2);
	CHECK_EQ(in.running, 1000);
	weft_inspect_release(&in);
	weft_model_describe(m, t2, buf, sizeof buf);
	CHECK(strstr(buf, "\nlived 4 us: ran 1 us, waited 0 ns, neither 3 "
			  "us\n"));
	CHECK(strstr(buf, "\nentries: 2\nat 0.000 001 s: created by event "
			  "loop\nat 0.000 001 s: label: GET /a"));
	CHECK(!strstr(strstr(buf, "entries:"), "resolved"));

	weft_model_describe(m, weft_model_find(m, 1), buf, sizeof buf);
	CHECK(strstr(buf, "\nat 0.000 049 s: resolved query 0x5\n"));
	CHECK(strstr(buf, "\nat 0.000 001 s: created GET /a\n"));
	CHECK(!strstr(buf, "<-") && !strstr(buf, "->"));
	weft_model_describe(m, t5, buf, sizeof buf);
	CHECK(strstr(buf, ": created by event loop\n"));
	CHECK(strstr(buf, "\nat 0.000 008 s: waited on (not ready) by "
			  "stuck"));
	CHECK(strstr(buf, "\nat 0.000 049 s: resolved by event loop"));
	weft_model_describe(m, t4, buf, sizeof buf);
	CHECK(strstr(buf, "\nat 0.000 007 s: waited on (not ready) by "
			  "stuck"));
	weft_model_free(m);
	weft_reader_close(r);
}

/* The Mann-Whitney test's p (weft diff with several runs a side), exact
 * where the arrangements are counted: two-sided (twice the smaller tail),
 * the same with the samples swapped, at the sizes where weft diff's
 * minimum number of runs lies (docs/diff.md); with ties, the normal
 * approximation with its corrections. */
static void near(double got, double want, const char *what)
{
	if (fabs(got - want) > 1e-12 * (want > 1 ? want : 1))
		FAIL("%s: p %.17g, wanted %.17g", what, got, want);
}

TEST(mann_whitney_p_values)
{
	static const double lo7[] = {1, 2, 3, 4, 5, 6, 7, 8},
			    hi7[] = {11, 12, 13, 14, 15, 16, 17, 18};
	static const double a[] = {1, 3, 5}, b[] = {2, 4, 6};
	/* separated, 3 a side: 2 of the 20 arrangements are as extreme */
	near(weft_mann_whitney(lo7, 3, hi7, 3), 2.0 / 20, "3/3 apart");
	near(weft_mann_whitney(hi7, 3, lo7, 3), 2.0 / 20, "3/3 swapped");
	/* interleaved: U = 3, P(U <= 3) = 7/20 */
	near(weft_mann_whitney(a, 3, b, 3), 14.0 / 20, "interleaved");
	near(weft_mann_whitney(b, 3, a, 3), 14.0 / 20, "interleaved swapped");
	/* U = 2: 4 arrangements of 20 at most as small */
	static const double c[] = {1, 2, 5}, d[] = {3, 4, 6};
	near(weft_mann_whitney(c, 3, d, 3), 8.0 / 20, "U = 2");
	/* 3 against 4, and 6, 7 and 8 a side apart: 2 / C(n + m, n) */
	near(weft_mann_whitney(lo7, 3, hi7, 4), 2.0 / 35, "3/4 apart");
	near(weft_mann_whitney(lo7, 6, hi7, 6), 2.0 / 924, "6/6 apart");
	near(weft_mann_whitney(lo7, 7, hi7, 7), 2.0 / 3432, "7/7 apart");
	near(weft_mann_whitney(hi7, 8, lo7, 8), 2.0 / 12870, "8/8 apart");
	/* ties: U = 1, mid-ranks, variance 9/12 * (7 - 24/30), continuity */
	static const double e[] = {1, 2, 2}, f[] = {2, 3, 4};
	near(weft_mann_whitney(e, 3, f, 3), erfc(3 / sqrt(4.65) / sqrt(2.0)),
	     "ties");
	near(weft_mann_whitney(e, 0, f, 3), 1, "no x");
	near(weft_mann_whitney(e, 3, f, 0), 1, "no y");
	/* all equal: nothing to tell them apart */
	near(weft_mann_whitney(e + 1, 2, f, 1), 1, "all equal");
}

/* Siblings that came in another order: the children X X Y Y Y Z of one
 * request in one run, Y Y Y X X Z in the other.  The longest common
 * subsequence matches Y Y Y Z; the two X are matched by key and ordinal,
 * each with a partner of its own, counted as reordered. */
static const char *siblings(const char *name, const char *order)
{
	const char *p = tpath(name);
	CHECK_OK(weft_start(p, 1 << 20, WEFT_CLOCK_MANUAL));
	uint64_t t = 1000;
	weft_clock_set(t);
	weft_run(1);
	weft_create(2, "request");
	weft_label(2, "GET /");
	weft_run(2);
	for (uint64_t i = 0; order[i]; i++) {
		weft_clock_set(t += 1000);
		/* (a kind is a string that outlives the recording) */
		weft_create(10 + i, order[i] == 'X'   ? "kind X"
				    : order[i] == 'Y' ? "kind Y"
						      : "kind Z");
	}
	for (uint64_t i = 0; order[i]; i++)
		weft_resolve(10 + i);
	weft_resolve(2);
	weft_run(0);
	CHECK_OK(weft_stop());
	return p;
}

TEST(diff_aligns_reordered_siblings)
{
	struct weft_reader *ra, *rb;
	struct weft_model *a = load(siblings("a.weft", "XXYYYZ"), &ra);
	struct weft_model *b = load(siblings("b.weft", "YYYXXZ"), &rb);
	struct weft_align *al;
	CHECK_OK(weft_align_new(&al, a, b, WEFT_DIFF_KEY_LABEL));
	struct weft_align_info in;
	weft_align_info(al, &in);
	if (in.reordered != 2)
		FAIL("matched %u, only %u and %u, reordered %u", in.matched,
		     in.only[0], in.only[1], in.reordered);
	CHECK_EQ(in.only[0], 0);
	CHECK_EQ(in.only[1], 0);
	uint32_t na, nb;
	const uint32_t *ma = weft_align_map(al, 0, &na);
	const uint32_t *mb = weft_align_map(al, 1, &nb);
	const struct weft_thread *ta = weft_model_threads(a, &na);
	const struct weft_thread *tb = weft_model_threads(b, &nb);
	/* each child has a partner of its own, of its kind, and the X in
	 * their order: the first X with the first */
	uint32_t matched = 0;
	for (uint64_t i = 0; i < 6; i++) {
		uint32_t x = weft_model_find(a, 10 + i);
		CHECK(x != WEFT_NONE);
		uint32_t y = ma[x];
		if (y == WEFT_NONE)
			FAIL("child %llu unmatched", (unsigned long long)i);
		CHECK_EQ(mb[y], x);
		CHECK_STR(weft_model_name(a, ta[x].kind),
			  weft_model_name(b, tb[y].kind));
		matched++;
	}
	CHECK_EQ(matched, 6);
	CHECK_U64(tb[ma[weft_model_find(a, 10)]].id, 13);
	CHECK_U64(tb[ma[weft_model_find(a, 11)]].id, 14);
	CHECK_U64(tb[ma[weft_model_find(a, 12)]].id, 10);
	CHECK_U64(tb[ma[weft_model_find(a, 15)]].id, 15);
	weft_align_free(al);
	weft_model_free(a);
	weft_model_free(b);
	weft_reader_close(ra);
	weft_reader_close(rb);
}

/* A range's summary (stats.h): threads straddling either end, one
 * created exactly at the range's end and one ended exactly at its start
 * (the range is closed), four kinds, a label splitting a kind, idle
 * periods inside and across the end, arrows by kind; and the one-sided
 * ranges (before, after) and a reversed one. */
static void record_range(const char *p)
{
	CHECK_OK(weft_start(p, 1 << 20, WEFT_CLOCK_MANUAL));
	at(1000);
	weft_create(10, "conn"); /* pending: straddles both ends */
	weft_label(10, "A");
	at(2000);
	weft_create(11, "req"); /* straddles the start */
	at(3000);
	weft_create(16, "timer"); /* ends exactly at the start */
	weft_run(11);
	at(3500);
	weft_run(0);
	at(4000);
	weft_cancel(16);
	at(4500);
	weft_run(11);
	at(5000);
	weft_resolve(11);
	weft_run(0);
	at(5500);
	weft_create(12, "req");
	weft_label(12, "GET");
	at(6000);
	weft_create(13, "req");
	at(6500);
	weft_fail(13, "x");
	at(6600);
	weft_idle("poll");
	at(7000);
	weft_resume();
	weft_create(14, "db"); /* straddles the end */
	at(7900);
	weft_idle("poll"); /* 100 ns of it in the range */
	at(8000);
	weft_create(15, "req"); /* exactly at the end */
	at(8500);
	weft_resume();
	at(9000);
	weft_resolve(14);
	at(10000);
	weft_run(0);
	CHECK_OK(weft_stop());
}

/* The group of a kind ("" label) or of a label ("" kind). */
static const struct weft_summary_group *
group_of(const struct weft_summary *s, const char *kind, const char *label)
{
	const struct weft_summary_group *g = *kind ? s->groups : s->labels;
	uint32_t n = *kind ? s->ngroups : s->nlabels;
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(g[i].kind_name, kind) && !strcmp(g[i].label, label))
			return &g[i];
	FAIL("no group %s %s", kind, label);
	return NULL;
}

TEST(range_summary)
{
	const char *p = tpath("range.weft");
	record_range(p);
	struct weft_reader *r;
	struct weft_model *m = load(p, &r);
	struct weft_summary *s;
	CHECK_OK(weft_summary_compute(&s, m, 8000, 4000)); /* (swapped) */
	CHECK_EQ(s->t0, 4000);
	CHECK_EQ(s->t1, 8000);
	CHECK_EQ(s->threads, 7);
	CHECK_EQ(s->began, 4); /* 12, 13, 14 and 15 at the end */
	CHECK_EQ(s->ended, 3); /* 16 at the start, 11, 13 */
	CHECK_EQ(s->failed, 1);
	/* by kind, most threads first, then by kind */
	CHECK_EQ(s->ngroups, 4);
	static const char *order[4] = {"req", "conn", "db", "timer"};
	for (int i = 0; i < 4; i++) {
		CHECK_STR(s->groups[i].kind_name, order[i]);
		CHECK_STR(s->groups[i].label, "");
	}
	const struct weft_summary_group *g = group_of(s, "req", "");
	CHECK_EQ(g->threads, 4);
	CHECK_EQ(g->began, 3);
	CHECK_EQ(g->ended, 2);
	CHECK_EQ(g->failed, 1);
	CHECK_EQ(g->total, 3000 + 500); /* whole lifetimes of 11 and 13 */
	CHECK_EQ(g->p50, 500);
	CHECK_EQ(g->p99, 3000);
	CHECK_EQ(g->running, 500); /* 11's run before the start left out */
	CHECK_EQ(g->waiting, 500 + 2500 + 500 + 0);
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	static const uint64_t ids[4] = {11, 12, 13, 15};
	for (int i = 0; i < 4; i++)
		CHECK_EQ(th[s->members[g->first + (uint32_t)i]].id, ids[i]);
	g = group_of(s, "conn", "");
	CHECK_EQ(g->threads, 1);
	CHECK_EQ(g->began + g->ended, 0);
	CHECK_EQ(g->p50, -1);
	CHECK_EQ(g->p99, -1);
	CHECK_EQ(g->total, 0);
	CHECK_EQ(g->waiting, 4000);
	CHECK_EQ(th[s->members[g->first]].id, 10);
	/* by label: only the labelled ones */
	CHECK_EQ(s->nlabels, 2);
	CHECK_STR(s->labels[0].label, "A");
	CHECK_STR(s->labels[1].label, "GET");
	g = group_of(s, "", "GET");
	CHECK_EQ(g->threads, 1);
	CHECK_EQ(g->began, 1);
	CHECK_EQ(g->waiting, 2500);
	CHECK_EQ(th[s->lmembers[g->first]].id, 12);
	CHECK_EQ(th[s->lmembers[group_of(s, "", "A")->first]].id, 10);
	g = group_of(s, "db", "");
	CHECK_EQ(g->began, 1);
	CHECK_EQ(g->ended, 0);
	CHECK_EQ(g->waiting, 1000);
	g = group_of(s, "timer", "");
	CHECK_EQ(g->began, 0);
	CHECK_EQ(g->ended, 1);
	CHECK_EQ(g->total, 1000);
	CHECK_EQ(g->p50, 1000);
	CHECK_EQ(g->waiting, 0);
	/* the OS thread: 11 ran 500 ns in it, idle 400 + 1000... */
	CHECK_EQ(s->nos, 1);
	CHECK_EQ(s->os[0].running, 500);
	CHECK_EQ(s->os[0].idle, 400 + 100);
	CHECK_EQ(s->os[0].other, 4000 - 500 - 500);
	CHECK_EQ(s->nprocs, 1);
	CHECK_EQ(s->procs[0].streams, 1);
	CHECK_EQ(s->procs[0].idle, 500);
	CHECK_EQ(s->arrows[WEFT_ARROW_CREATE], 4);
	CHECK_EQ(s->arrows[WEFT_ARROW_CANCEL], 1); /* at the start */
	CHECK_EQ(s->arrows[WEFT_ARROW_FAIL], 1);
	weft_summary_free(s);

	/* before the range: up to 16's end, one-sided */
	CHECK_OK(weft_summary_compute(&s, m, 0, 3999));
	CHECK_EQ(s->threads, 3); /* 10, 11, 16 */
	CHECK_EQ(s->began, 3);
	CHECK_EQ(s->ended, 0);
	CHECK_EQ(s->os[0].running, 500);
	weft_summary_free(s);
	/* after it: only what goes on */
	CHECK_OK(weft_summary_compute(&s, m, 8001, 20000));
	CHECK_EQ(s->threads, 4); /* 10, 12, 14, 15 (pending to the end) */
	CHECK_EQ(s->began, 0);
	CHECK_EQ(s->ended, 1);
	CHECK_EQ(group_of(s, "db", "")->total, 2000);
	CHECK_EQ(s->arrows[WEFT_ARROW_CREATE], 0);
	weft_summary_free(s);
	weft_model_free(m);
	weft_reader_close(r);
}

/* Times for people (weft_time_fmt): the unit after rounding, decimals in
 * groups of three down to the precision, whole zero groups left out. */
TEST(time_fmt)
{
	static const struct {
		int64_t ns, prec;
		const char *s;
	} t[] = {
		{0, 1, "0 ns"},
		{999, 1, "999 ns"},
		{1000, 1, "1 us"},
		{1001, 1, "1.001 us"},
		{999499, 1000, "999 us"},
		{999500, 1000, "1 ms"}, /* rounded up into the next unit */
		{999999999, 1000, "1 s"},
		{17094992000, 1000, "17.094 992 s"},
		{17094992123, 1, "17.094 992 123 s"},
		{17094992123, 1000000, "17.095 s"},
		{1234567, 10, "1.234 57 ms"},
		{3500, 100, "3.5 us"},
		{3000, 1, "3 us"},
		{1500000, 1, "1.500 ms"},
		{1000000010, 1, "1.000 000 010 s"},
		{-1500000, 1, "-1.500 ms"},
		{-400, 1000, "0 ns"}, /* no "-0" */
		{-999, 1, "-999 ns"},
		{123456789012, 7, "123.456 789 012 s"}, /* (prec down to 1) */
		{INT64_MIN, 1, "-9223372036.854 775 808 s"},
	};
	char b[64];
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		size_t n = weft_time_fmt(t[i].ns, t[i].prec, b, sizeof b);
		CHECK_STR(b, t[i].s);
		CHECK_EQ(n, strlen(t[i].s));
	}
	CHECK_EQ(weft_time_fmt(1500000, 1, b, 4), strlen("1.500 ms"));
	CHECK_STR(b, "1.5");
}

/* A brief model (weft ps) keeps of the runs each OS thread's latest
 * ending and each async thread's latest started, of the idle periods and
 * loop phases each OS thread's latest ending, no spans; everything else,
 * and the busy and idle totals, as a whole model; it is read once. */
static uint32_t latest_iv(const struct weft_interval *iv, uint32_t n)
{
	uint32_t k = 0;
	for (uint32_t i = 1; i < n; i++)
		if (iv[i].t1 >= iv[k].t1)
			k = i;
	return k;
}

TEST(brief_model_keeps_the_latest)
{
	const char *p = tpath("brief.weft");
	static const char poll[] = "poll";
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_run(1);
	weft_create(2, "request");
	weft_create(3, "request");
	weft_phase("timers");
	weft_run(2);
	weft_span_begin("parse");
	weft_span_end("parse");
	weft_run(3);
	weft_run(2); /* 2's latest run */
	weft_run(1);
	weft_idle(poll);
	weft_resume();
	weft_phase("closing");
	weft_idle(poll); /* the latest idle period, to the end */
	CHECK_OK(weft_stop());
	struct weft_reader *r, *rb;
	struct weft_model *m = load(p, &r), *b;
	CHECK_OK(weft_reader_open(&rb, p, 0, NULL));
	CHECK_OK(weft_model_new(&b, rb));
	CHECK_OK(weft_model_set_brief(b));
	CHECK_EQ(weft_model_set_sink(b, &(struct weft_model_sink){0}), -EINVAL);
	CHECK(weft_model_step(b, 0) > 0);
	uint32_t n, nb;
	const struct weft_run *ru = weft_model_runs(m, &n);
	const struct weft_run *rub = weft_model_runs(b, &nb);
	/* the whole model's runs (sorted by start) that are the last of
	 * their thread, or the last of those ending latest on their OS
	 * thread: 3's, 2's second and 1's last, in that order */
	uint32_t keep[16], nk = 0, last_th[8] = {0}, last_st = 0;
	CHECK(n >= 5 && n <= 16);
	for (uint32_t k = 0; k < n; k++) {
		CHECK(ru[k].thread < 8 && ru[k].stream == 0);
		last_th[ru[k].thread] = k + 1;
		if (!last_st || ru[k].t1 >= ru[last_st - 1].t1)
			last_st = k + 1;
	}
	for (uint32_t k = 0; k < n; k++) {
		int kept = last_st == k + 1;
		for (uint32_t t = 0; t < 8; t++)
			kept |= last_th[t] == k + 1;
		if (kept)
			keep[nk++] = k;
	}
	CHECK_EQ(nb, nk);
	CHECK(nk >= 3 && nk < n);
	for (uint32_t k = 0; k < nk && k < nb; k++)
		CHECK(!memcmp(&rub[k], &ru[keep[k]], sizeof *ru));
	const struct weft_interval *iv =
		weft_model_intervals(m, WEFT_INTERVAL_IDLE, &n);
	const struct weft_interval *ivb =
		weft_model_intervals(b, WEFT_INTERVAL_IDLE, &nb);
	CHECK(n >= 2);
	CHECK_EQ(nb, 1);
	CHECK(!memcmp(&ivb[0], &iv[latest_iv(iv, n)], sizeof *iv));
	iv = weft_model_intervals(m, WEFT_INTERVAL_PHASE, &n);
	ivb = weft_model_intervals(b, WEFT_INTERVAL_PHASE, &nb);
	CHECK(n >= 2);
	CHECK_EQ(nb, 1);
	CHECK(!memcmp(&ivb[0], &iv[latest_iv(iv, n)], sizeof *iv));
	CHECK_STR(weft_model_name(b, ivb[0].name), "poll");
	weft_model_intervals(m, WEFT_INTERVAL_SPAN, &n);
	weft_model_intervals(b, WEFT_INTERVAL_SPAN, &nb);
	CHECK_EQ(n, 1);
	CHECK_EQ(nb, 0);
	const struct weft_thread *th = weft_model_threads(m, &n);
	const struct weft_thread *thb = weft_model_threads(b, &nb);
	CHECK_EQ(n, nb);
	CHECK(!memcmp(th, thb, n * sizeof *th));
	weft_model_arrows(m, &n);
	weft_model_arrows(b, &nb);
	CHECK_EQ(n, nb);
	const struct weft_model_stream *st = weft_model_streams(m, &n);
	const struct weft_model_stream *stb = weft_model_streams(b, &nb);
	CHECK_EQ(n, 1);
	CHECK_EQ(nb, 1);
	CHECK_EQ(st[0].busy_ns, stb[0].busy_ns);
	CHECK_EQ(st[0].idle_ns, stb[0].idle_ns);
	CHECK(stb[0].busy_ns > 0 && stb[0].idle_ns > 0);
	CHECK_EQ(weft_model_update(b), -EINVAL);
	weft_model_free(b);
	weft_reader_close(rb);
	weft_model_free(m);
	weft_reader_close(r);
}

/* An id named by an event (held in the id table's memo) and created
 * again just as the table grows: the growth rewrites every entry, and
 * the memo must end up naming the new incarnation, not the one the
 * rewrite copied.  Each round adds an id (the table fills) and makes id
 * 1 anew, so one of the re-creations is the insert that grows it, at
 * whatever size the table grows: four growths, 1,024 to 16,384 slots
 * (found: weft query over traces merged gave a request's resolve to
 * its previous incarnation). */
TEST(an_id_made_again_as_the_table_grows)
{
	const char *p = tpath("grow.weft");
	enum { ROUNDS = 7000 };
	CHECK_OK(weft_start(p, 1 << 22, 0));
	weft_run(0);
	weft_create(1, "req");
	for (uint64_t k = 2; k < ROUNDS + 2; k++) {
		weft_create(k, "other");
		weft_resolve(1); /* names 1: the memo holds it */
		weft_create(1, "req");
	}
	weft_resolve(1);
	CHECK_OK(weft_stop());

	struct weft_reader *r;
	struct weft_model *m = load(p, &r);
	uint32_t nth, n1 = 0;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	for (uint32_t i = 0; i < nth; i++) {
		if (th[i].id != 1)
			continue;
		CHECK_EQ(th[i].incarnation, n1);
		CHECK_EQ(th[i].end, WEFT_END_RESOLVED);
		n1++;
	}
	CHECK_EQ(n1, ROUNDS + 1);
	CHECK_EQ(weft_model_find(m, 1), nth - 1);
	weft_model_free(m);
	weft_reader_close(r);
}

TEST_MAIN(T(threads_and_arrows), T(losses_and_memory),
	  T(fused_events_match_their_halves), T(loop_phases),
	  T(live_update_replaces_provisional_ends),
	  T(a_read_follows_the_try_read_of_its_source),
	  T(a_read_follows_only_the_latest_near_try_read),
	  T(a_growing_model_follows_try_reads_across_updates),
	  T(the_inspector_lists_every_entry), T(the_inspector_in_words),
	  T(mann_whitney_p_values), T(diff_aligns_reordered_siblings),
	  T(range_summary), T(time_fmt), T(brief_model_keeps_the_latest),
	  T(an_id_made_again_as_the_table_grows))
