/* SPDX-License-Identifier: MIT */
/*
 * test-why.c - `weft why`'s rules (src/read/why.c), one case each: traces
 * recorded on the manual clock, so that `weft why`'s whole output can be
 * written here to the byte, and weft_why()'s chain checked field by field.
 *
 * Every case's trace: one OS thread runs thread 1 (the event loop, never
 * created), which creates the tasks; times are whole microseconds.
 */
#include <pthread.h>

#include "../harness.h"
#include "util.h"
#include "weft/model.h"
#include "weft/weft.h"

static void at(uint64_t us)
{
	weft_clock_set(us * 1000);
}

static const char *begin(const char *name, size_t bytes, unsigned flags)
{
	const char *p = tpath(name);
	CHECK_OK(weft_start(p, bytes, WEFT_CLOCK_MANUAL | flags));
	/* (times shown count from this first event: at 1 us, they read as
	 * the microseconds below minus one; every_time_counts_from_the_
	 * first_event checks that) */
	at(1);
	weft_run(1);
	weft_label(1, "event loop");
	return p;
}

/* At `us`, `who` runs and waits on `what`. */
static void waits_on(uint64_t us, uint64_t who, uint64_t what)
{
	at(us);
	weft_run(who);
	weft_try_read(what);
}

/* At `us`, the loop runs again. */
static void to_loop(uint64_t us)
{
	at(us);
	weft_run(1);
}

/* A task created by the loop, with a label, optionally should-resolve. */
static void task(uint64_t id, const char *label, int should)
{
	weft_run(1);
	weft_create(id, "task");
	weft_label(id, label);
	if (should)
		weft_should_resolve(id);
}

static const char *weft_bin(void)
{
	const char *bin = getenv("WEFT_BIN");
	if (!bin)
		FAIL("WEFT_BIN is not set (run through meson test)");
	return bin;
}

/* `weft why PATH ARGS` must print exactly `want` and exit `rc`. */
static void why_prints(const char *path, const char *args, int rc,
		       const char *want)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "'%s' why '%s' %s 2>/dev/null", weft_bin(),
		 path, args);
	FILE *f = popen(cmd, "r");
	CHECK(f);
	static char out[16384];
	size_t n = fread(out, 1, sizeof out - 1, f);
	out[n] = 0;
	int st = pclose(f);
	if (strcmp(out, want))
		FAIL("weft why %s printed:\n%s\nwanted:\n%s", args, out, want);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), rc);
}

/* `weft why PATH` says that request A is pending at the end of the trace
 * (`end`, in seconds), then `rest`, and exits 1. */
/* ns (under 1 s) as weft writes an instant, by hand: "0.009 58" would
 * be wrong, "0.009 580" is right (groups of three, whole zero groups at
 * the end left out). */
static void secs(char *buf, size_t cap, int64_t ns)
{
	char d[16];
	snprintf(d, sizeof d, "%09lld", (long long)ns);
	int groups = 3;
	while (groups && !strncmp(d + 3 * (groups - 1), "000", 3))
		groups--;
	snprintf(buf, cap, "0%s%.3s%s%.3s%s%.3s", groups ? "." : "", d,
		 groups > 1 ? " " : "", groups > 1 ? d + 3 : "",
		 groups > 2 ? " " : "", groups > 2 ? d + 6 : "");
	if (!groups)
		snprintf(buf, cap, "0");
}

static void a_pending(const char *path, const char *end, const char *rest)
{
	char want[4096];
	snprintf(want, sizeof want,
		 "request A (0xa, task) should resolve, but is still pending "
		 "at the end of the trace (%s s)\n%s",
		 end, rest);
	why_prints(path, "", 1, want);
}

/* `weft why PATH` prints this line among others. */
static void why_says(const char *path, const char *line)
{
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "'%s' why '%s' 2>/dev/null", weft_bin(),
		 path);
	FILE *f = popen(cmd, "r");
	CHECK(f);
	char buf[4096];
	int found = 0;
	while (fgets(buf, sizeof buf, f)) {
		buf[strcspn(buf, "\n")] = 0;
		found |= !strcmp(buf, line);
	}
	pclose(f);
	if (!found)
		FAIL("weft why did not print \"%s\"", line);
}

static struct weft_model *model(const char *p, struct weft_reader **r)
{
	CHECK_OK(weft_reader_open(r, p, 0, NULL));
	struct weft_model *m;
	CHECK_OK(weft_model_load(&m, *r));
	return m;
}

/* weft_why() on the thread with `id`: its verdict and chain of ids. */
static void why_is(const char *p, uint64_t id, int verdict,
		   const uint64_t *chain, uint32_t n)
{
	struct weft_reader *r;
	struct weft_model *m = model(p, &r);
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	struct weft_why w;
	CHECK_OK(weft_why(m, weft_model_find(m, id), &w));
	CHECK_STR(weft_verdict_name(w.verdict), weft_verdict_name(verdict));
	CHECK_EQ(w.nchain, n);
	for (uint32_t k = 0; k < n; k++)
		CHECK_U64(th[w.chain[k].thread].id, chain[k]);
	weft_model_free(m);
	weft_reader_close(r);
}

/* The blocker was signalled before anyone waited on it: a lost wake-up,
 * with the signal as its evidence. */
TEST(signalled_before_the_wait_is_a_lost_wakeup)
{
	const char *p = begin("lw.weft", 1 << 20, 0);
	task(0xa, "request A", 1);
	task(0xb, "response B", 0);
	task(0xc, "port C", 0);
	at(5);
	weft_run(0xc);
	weft_signal(0xb); /* C signals B at 5 us... */
	at(7);
	weft_run(0xa);
	weft_try_read(0xb); /* ...before A waits on it at 7 us */
	to_loop(9);
	CHECK_OK(weft_stop());
	a_pending(p, "0.000 008",
		  "  waits since 0.000 006 s on response B (0xb, task)\n"
		  "verdict: lost wake-up: response B (0xb, task) was "
		  "signalled at 0.000 004 s by port C (0xc, task), before "
		  "request A began waiting on it at 0.000 006 s; nothing "
		  "signalled or resolved it after\n\n");
	uint64_t chain[] = {0xa, 0xb};
	why_is(p, 0xa, WEFT_VERDICT_LOST_WAKEUP, chain, 2);
}

/* The blocker resolved while its waiter waited, and the waiter never read
 * it: the walk stops at the ended thread. */
TEST(resolved_but_never_read_is_a_lost_wakeup)
{
	const char *p = begin("rn.weft", 1 << 20, 0);
	task(0xa, "request A", 1);
	task(0xb, "response B", 0);
	waits_on(3, 0xa, 0xb);
	to_loop(6);
	weft_resolve(0xb);
	CHECK_OK(weft_stop());
	a_pending(p, "0.000 005",
		  "  waits since 0.000 002 s on response B (0xb, task)\n"
		  "verdict: lost wake-up: response B (0xb, task) was resolved "
		  "at 0.000 005 s by event loop (0x1), but request A, "
		  "waiting on it since 0.000 002 s, never read it\n\n");
	uint64_t chain[] = {0xa, 0xb};
	why_is(p, 0xa, WEFT_VERDICT_LOST_WAKEUP, chain, 2);
}

/* A read of the thread waited on ends the wait: A, having read B, waits
 * on nothing, and is itself what nothing resolved. */
TEST(a_read_ends_the_wait)
{
	const char *p = begin("rd.weft", 1 << 20, 0);
	task(0xa, "request A", 1);
	task(0xb, "response B", 0);
	waits_on(3, 0xa, 0xb);
	to_loop(4);
	weft_resolve(0xb);
	at(5);
	weft_run(0xa);
	weft_read(0xb);
	to_loop(6);
	CHECK_OK(weft_stop());
	a_pending(p, "0.000 005",
		  "verdict: never resolved: nothing signalled, resolved or "
		  "failed request A (0xa, task)\n\n");
	uint64_t chain[] = {0xa};
	why_is(p, 0xa, WEFT_VERDICT_NEVER_RESOLVED, chain, 1);
}

/* A read of the failure ends the wait as well. */
TEST(a_read_of_a_failure_ends_the_wait)
{
	const char *p = begin("rf.weft", 1 << 20, 0);
	task(0xa, "request A", 1);
	task(0xb, "disk read B", 0);
	waits_on(3, 0xa, 0xb);
	to_loop(4);
	weft_fail(0xb, "EIO");
	at(5);
	weft_run(0xa);
	weft_read(0xb);
	to_loop(6);
	CHECK_OK(weft_stop());
	uint64_t chain[] = {0xa};
	why_is(p, 0xa, WEFT_VERDICT_NEVER_RESOLVED, chain, 1);
}

/* Only a read of the thread waited on ends the wait: A waits on B, reads
 * C (resolved), and still waits on B. */
TEST(a_read_of_another_thread_does_not_end_the_wait)
{
	const char *p = begin("ro.weft", 1 << 20, 0);
	task(0xa, "request A", 1);
	task(0xb, "response B", 0);
	task(0xc, "timer C", 0);
	weft_resolve(0xc);
	waits_on(3, 0xa, 0xb);
	at(4);
	weft_read(0xc);
	to_loop(6);
	CHECK_OK(weft_stop());
	a_pending(p, "0.000 005",
		  "  waits since 0.000 002 s on response B (0xb, task)\n"
		  "verdict: never resolved: nothing signalled, resolved or "
		  "failed response B (0xb, task) after request A began "
		  "waiting on it at 0.000 002 s\n\n");
	uint64_t chain[] = {0xa, 0xb};
	why_is(p, 0xa, WEFT_VERDICT_NEVER_RESOLVED, chain, 2);
}

/* The last wait counts: A waited on B (answered), then on C. */
TEST(the_last_unanswered_wait_counts)
{
	const char *p = begin("lt.weft", 1 << 20, 0);
	task(0xa, "request A", 1);
	task(0xb, "response B", 0);
	task(0xc, "response C", 0);
	waits_on(2, 0xa, 0xb);
	to_loop(3);
	weft_resolve(0xb);
	at(4);
	weft_run(0xa);
	weft_read(0xb);
	weft_try_read(0xc);
	to_loop(5);
	CHECK_OK(weft_stop());
	uint64_t chain[] = {0xa, 0xc};
	why_is(p, 0xa, WEFT_VERDICT_NEVER_RESOLVED, chain, 2);
}

/* weft why's index (weft_why_index_new), through the arrows: a pending
 * blocker's waiter is the first pending thread (in creation order) whose
 * last wait, unanswered, is on it -- not one whose wait on it a read
 * answered, not a later one, and a read of another thread answers
 * nothing -- and the longest a woken waiter took to
 * read counts from its wait when it was woken before (2 us, not 9). */
TEST(the_index_names_the_first_waiter_and_the_wake_to_read)
{
	const char *p = begin("ix.weft", 1 << 20, 0);
	task(0xa, "request A", 0);
	task(0xc, "request C", 0);
	task(0xd, "request D", 0);
	task(0xb, "response B", 0);
	task(0xe, "request E", 0);
	task(0xf, "response F", 0);
	task(0x9, "timer G", 0);
	task(0x8, "request H", 0);
	weft_resolve(0x9); /* at 1 us */
	waits_on(2, 0xa, 0xb);
	at(3);
	weft_read(0xb); /* A's wait answered */
	waits_on(4, 0xc, 0xb);
	at(5);
	weft_read(0x9); /* C's wait on B goes on */
	waits_on(6, 0xd, 0xb);
	waits_on(10, 0x8, 0x9);
	at(12);
	weft_read(0x9); /* G woken at 1 us, H read it 2 us after waiting */
	waits_on(20, 0xe, 0xf);
	to_loop(25);
	weft_resolve(0xf); /* 5 us before the end: longer than 2 us */
	to_loop(30);
	CHECK_OK(weft_stop());
	struct weft_reader *r;
	struct weft_model *m = model(p, &r);
	struct weft_why_index *ix;
	CHECK_OK(weft_why_index_new(&ix, m));
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	struct weft_why w;
	CHECK_OK(weft_why_at(ix, weft_model_find(m, 0xb), &w));
	CHECK(w.waiter != WEFT_NONE);
	CHECK_U64(th[w.waiter].id, 0xc);
	CHECK_EQ(w.t_wait, 4000);
	CHECK_OK(weft_why_at(ix, weft_model_find(m, 0xe), &w));
	CHECK_STR(weft_verdict_name(w.verdict),
		  weft_verdict_name(WEFT_VERDICT_LOST_WAKEUP));
	weft_why_index_free(ix);
	weft_model_free(m);
	weft_reader_close(r);
}

/* A chain of waits through several threads, to the root blocker. */
TEST(the_walk_follows_waits_to_the_root_blocker)
{
	const char *p = begin("ch.weft", 1 << 20, 0);
	task(0xa, "request A", 1);
	task(0xb, "helper B", 0);
	task(0xc, "disk C", 0);
	waits_on(2, 0xa, 0xb);
	waits_on(3, 0xb, 0xc);
	to_loop(4);
	CHECK_OK(weft_stop());
	a_pending(p, "0.000 003",
		  "  waits since 0.000 001 s on helper B (0xb, task)\n"
		  "  which waits since 0.000 002 s on disk C (0xc, task)\n"
		  "verdict: never resolved: nothing signalled, resolved or "
		  "failed disk C (0xc, task) after helper B began waiting on "
		  "it at 0.000 002 s\n\n");
	uint64_t chain[] = {0xa, 0xb, 0xc};
	why_is(p, 0xa, WEFT_VERDICT_NEVER_RESOLVED, chain, 3);
}

/* Waits in a cycle: a deadlock, naming the thread that closes it. */
TEST(a_cycle_of_waits_is_a_deadlock)
{
	const char *p = begin("dl.weft", 1 << 20, 0);
	task(0xa, "request A", 1);
	task(0xb, "helper B", 0);
	waits_on(2, 0xa, 0xb);
	waits_on(3, 0xb, 0xa);
	to_loop(4);
	CHECK_OK(weft_stop());
	a_pending(p, "0.000 003",
		  "  waits since 0.000 001 s on helper B (0xb, task)\n"
		  "verdict: deadlock: helper B (0xb, task) waits since "
		  "0.000 002 s on request A (0xa, task), which closes a "
		  "cycle of waits\n\n");
	uint64_t chain[] = {0xa, 0xb};
	why_is(p, 0xa, WEFT_VERDICT_DEADLOCK, chain, 2);
}

/* The blocker failed and its waiter never read the failure. */
TEST(an_unread_failure_is_failed_upstream)
{
	const char *p = begin("fu.weft", 1 << 20, 0);
	task(0xa, "request A", 1);
	task(0xb, "disk read B", 0);
	waits_on(2, 0xa, 0xb);
	to_loop(3);
	weft_fail(0xb, "EIO");
	CHECK_OK(weft_stop());
	a_pending(p, "0.000 002",
		  "  waits since 0.000 001 s on disk read B (0xb, task)\n"
		  "verdict: failed upstream: disk read B (0xb, task) failed "
		  "at 0.000 002 s (\"EIO\") and request A, waiting on it, "
		  "never read the failure\n\n");
	uint64_t chain[] = {0xa, 0xb};
	why_is(p, 0xa, WEFT_VERDICT_FAILED_UPSTREAM, chain, 2);
}

/* A thread that became another is explained through its successor. */
TEST(becomes_is_followed)
{
	const char *p = begin("bc.weft", 1 << 20, 0);
	task(0xa, "request A", 1);
	task(0xb, "response B", 0);
	task(0xd, "request A, again", 0);
	at(2);
	weft_becomes(0xa, 0xd);
	waits_on(3, 0xd, 0xb);
	to_loop(4);
	CHECK_OK(weft_stop());
	a_pending(p, "0.000 003",
		  "  it became request A, again (0xd, task)\n"
		  "  waits since 0.000 002 s on response B (0xb, task)\n"
		  "verdict: never resolved: nothing signalled, resolved or "
		  "failed response B (0xb, task) after request A, again "
		  "began waiting on it at 0.000 002 s\n\n");
	uint64_t chain[] = {0xd, 0xb};
	why_is(p, 0xa, WEFT_VERDICT_NEVER_RESOLVED, chain, 2);
}

/* A blocker whose creation is not in a trace that lost nothing was never
 * created: that is no loss (it once said "truncated: events were lost"),
 * and nothing touched it after the wait. */
TEST(a_missing_creation_with_no_loss_is_no_loss)
{
	const char *p = begin("nc.weft", 1 << 20, 0);
	task(0xa, "request A", 1);
	at(2);
	weft_run(0xa);
	weft_try_read(0xb); /* B: never created in this trace */
	to_loop(3);
	CHECK_OK(weft_stop());
	a_pending(p, "0.000 002",
		  "  waits since 0.000 001 s on 0xb (0xb)\n"
		  "verdict: never resolved: nothing signalled, resolved or "
		  "failed 0xb (0xb) after request A began waiting on it at "
		  "0.000 001 s\n\n");
	uint64_t chain[] = {0xa, 0xb};
	why_is(p, 0xa, WEFT_VERDICT_NEVER_RESOLVED, chain, 2);
}

/* 20,000 short-lived threads every 10 us, on a 64 KiB ring. */
static void filler(uint64_t *t)
{
	for (uint64_t i = 0; i < 20000; i++) {
		*t += 10;
		at(*t);
		weft_create(0x100 + i, "filler");
		weft_resolve(0x100 + i);
	}
}

/* Packets lost before the chain's threads were created (the ring wrapped
 * over them) hide nothing about them: the verdict stands (it was once
 * "truncated" for any loss before the wait). */
TEST(losses_before_the_creation_hide_nothing)
{
	const char *p = begin("lb.weft", 64 << 10, WEFT_OVERWRITE);
	uint64_t t = 1;
	filler(&t);
	task(0xa, "request A", 1);
	task(0xb, "response B", 0);
	waits_on(t + 10, 0xa, 0xb);
	to_loop(t + 20);
	CHECK_OK(weft_stop());
	struct weft_reader *r;
	struct weft_model *m = model(p, &r);
	uint32_t n;
	const struct weft_loss *l = weft_model_losses(m, &n);
	CHECK(n >= 1); /* the precondition: packets lost, before A and B */
	CHECK(l[0].packets > 0);
	CHECK(l[n - 1].t < (int64_t)(t * 1000));
	/* (times count from the first event that survived the wrap) */
	int64_t o0, o1;
	weft_model_range(m, &o0, &o1);
	CHECK(o0 > 1000);
	weft_model_free(m);
	weft_reader_close(r);
	char end[40], since[40], rest[400];
	int64_t e = (int64_t)(t + 20) * 1000 - o0, w = e - 10000;
	secs(end, sizeof end, e);
	secs(since, sizeof since, w);
	snprintf(rest, sizeof rest,
		 "  waits since %s s on response B (0xb, task)\n"
		 "verdict: never resolved: nothing signalled, resolved or "
		 "failed response B (0xb, task) after request A began "
		 "waiting on it at %s s\n\n",
		 since, since);
	a_pending(p, end, rest);
	uint64_t chain[] = {0xa, 0xb};
	why_is(p, 0xa, WEFT_VERDICT_NEVER_RESOLVED, chain, 2);
}

static void *fill_from_another_thread(void *arg)
{
	filler(arg);
	return NULL;
}

/* Packets of another OS thread lost after the chain's threads were
 * created (their own OS thread's packet, still open, survives): what
 * touched the blocker may be among them, so no verdict is safe. */
TEST(losses_in_the_chain_make_it_truncated)
{
	const char *p = begin("lc.weft", 64 << 10, WEFT_OVERWRITE);
	task(0xa, "request A", 1);
	task(0xb, "response B", 0);
	waits_on(2, 0xa, 0xb);
	uint64_t t = 2;
	pthread_t th;
	CHECK(!pthread_create(&th, NULL, fill_from_another_thread, &t));
	CHECK(!pthread_join(th, NULL));
	to_loop(t + 10);
	CHECK_OK(weft_stop());
	a_pending(p, "0.200 011",
		  "  waits since 0.000 001 s on response B (0xb, task)\n"
		  "verdict: truncated: events about response B (0xb, task) "
		  "were lost (its creation, or packets before the wait), so "
		  "the cause cannot be told\n\n");
	uint64_t chain[] = {0xa, 0xb};
	why_is(p, 0xa, WEFT_VERDICT_TRUNCATED, chain, 2);
}

/* Events lost only after the wait began (a full ring in discard mode)
 * hide nothing about it: the verdict stands. */
TEST(losses_after_the_wait_do_not_hide_it)
{
	const char *p = begin("la.weft", 64 << 10, WEFT_DISCARD);
	task(0xa, "request A", 1);
	task(0xb, "response B", 0);
	waits_on(2, 0xa, 0xb);
	weft_run(1);
	uint64_t t = 2;
	filler(&t);
	CHECK_OK(weft_stop());
	struct weft_reader *r;
	struct weft_model *m = model(p, &r);
	uint32_t n;
	const struct weft_loss *l = weft_model_losses(m, &n);
	CHECK_EQ(n, 1); /* the precondition: one loss, after the wait */
	CHECK(l[0].events > 0);
	CHECK(l[0].t > 2000);
	weft_model_free(m);
	weft_reader_close(r);
	/* (the end of the trace depends on how many events the ring holds) */
	why_says(p, "  waits since 0.000 001 s on response B (0xb, task)");
	why_says(p, "verdict: never resolved: nothing signalled, resolved or "
		    "failed response B (0xb, task) after request A began "
		    "waiting on it at 0.000 001 s");
	uint64_t chain[] = {0xa, 0xb};
	why_is(p, 0xa, WEFT_VERDICT_NEVER_RESOLVED, chain, 2);
}

/* A chain longer than weft_why() walks ends in "never resolved" with
 * the first WEFT_WHY_MAX_CHAIN threads. */
TEST(a_long_chain_is_cut)
{
	const char *p = begin("lc.weft", 1 << 20, 0);
	uint64_t chain[WEFT_WHY_MAX_CHAIN];
	for (uint64_t i = 0; i < WEFT_WHY_MAX_CHAIN + 10; i++) {
		task(0x10 + i, "link", i == 0);
		if (i < WEFT_WHY_MAX_CHAIN)
			chain[i] = 0x10 + i;
	}
	for (uint64_t i = 0; i + 1 < WEFT_WHY_MAX_CHAIN + 10; i++) {
		at(2 + i);
		weft_run(0x10 + i);
		weft_try_read(0x10 + i + 1);
	}
	weft_run(1);
	CHECK_OK(weft_stop());
	why_is(p, 0x10, WEFT_VERDICT_NEVER_RESOLVED, chain, WEFT_WHY_MAX_CHAIN);
}

/* What is not pending needs no explanation; asked about by id or label. */
TEST(a_resolved_thread_is_ok)
{
	const char *p = begin("ok.weft", 1 << 20, 0);
	task(0xa, "request A", 1);
	at(2);
	weft_resolve(0xa);
	CHECK_OK(weft_stop());
	why_prints(p, "", 0,
		   "nothing is wrong: 1 should-resolve thread checked, all "
		   "resolved\n");
	why_prints(p, "0xa", 0,
		   "request A (0xa, task) resolved: nothing to "
		   "explain\n");
	uint64_t chain[] = {0};
	why_is(p, 0xa, WEFT_VERDICT_OK, chain, 0);
}

/* The output of `cmd` (a shell command line), whole. */
static const char *output_of(const char *cmd)
{
	static char out[65536];
	FILE *f = popen(cmd, "r");
	CHECK(f);
	size_t n = fread(out, 1, sizeof out - 1, f);
	out[n] = 0;
	pclose(f);
	return out;
}

static void has(const char *what, const char *out, const char *line)
{
	if (!strstr(out, line))
		FAIL("%s printed:\n%s\nwithout: %s", what, out, line);
}

/* One origin for every time shown: the trace's first event, 100 us
 * after the ring's start (its raw origin).  main is created 85 us after
 * it and waits from 100 us on: weft why, why --path, dump, export and
 * the inspector say so, to the ns, and never the raw 185 us. */
TEST(every_time_counts_from_the_first_event)
{
	const char *p = tpath("origin.weft");
	at(1000);
	CHECK_OK(weft_start(p, 1 << 20, WEFT_CLOCK_MANUAL));
	at(1100);
	weft_run(1);
	at(1185);
	weft_create(2, "task");
	weft_label(2, "main");
	weft_should_resolve(2);
	weft_create(3, "task");
	weft_label(3, "connect");
	at(1200);
	weft_run(2);
	weft_try_read(3);
	weft_run(1);
	at(1300);
	weft_run(0);
	CHECK_OK(weft_stop());
	struct weft_reader *r;
	struct weft_model *m = model(p, &r);
	int64_t t0, t1;
	weft_model_range(m, &t0, &t1);
	CHECK_EQ(t0, 1100000); /* (the premise: the raw origin is not it) */
	uint32_t t = weft_model_find(m, 2);
	CHECK_EQ(weft_model_threads(m, &(uint32_t){0})[t].t_create, 1185000);
	char head[1024];
	weft_model_describe_head(m, t, head, sizeof head);
	has("the inspector", head,
	    "created 0.000 085 s, should resolve, never did (last seen "
	    "0.000 100 s)");
	weft_model_free(m);
	weft_reader_close(r);
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "'%s' why '%s'", weft_bin(), p);
	has("weft why", output_of(cmd),
	    "main (0x2, task) should resolve, but is still pending at the "
	    "end of the trace (0.000 200 s)\n  waits since 0.000 100 s "
	    "on connect (0x3, task)\n");
	snprintf(cmd, sizeof cmd, "'%s' why '%s' --json", weft_bin(), p);
	has("weft why --json", output_of(cmd),
	    "\"waiter\":2,\"wait_since_ns\":100000");
	snprintf(cmd, sizeof cmd, "'%s' why '%s' --path main", weft_bin(), p);
	has("weft why --path", output_of(cmd),
	    "main (0x2, task): created at 0.000 085 s, is still pending at "
	    "the end of the trace (0.000 200 s)");
	snprintf(cmd, sizeof cmd, "'%s' info '%s'", weft_bin(), p);
	has("weft info", output_of(cmd),
	    "\ntime:      0 .. 0.000 200 s (200 us)\n");
	snprintf(cmd, sizeof cmd, "'%s' dump '%s'", weft_bin(), p);
	const char *d = output_of(cmd);
	CHECK(!strncmp(d, "0.000000000 #0/", 15));
	/* main's creation: its line begins with its time */
	const char *c = strstr(d, " create child=0x2 kind=\"task\" by=0x1\n");
	CHECK(c);
	while (c > d && c[-1] != '\n')
		c--;
	CHECK(!strncmp(c, "0.000085000 #0/", 15));
	snprintf(cmd, sizeof cmd,
		 "'%s' export --format chrome '%s' -o - | tr ',' '\\n'",
		 weft_bin(), p);
	const char *e = output_of(cmd);
	has("weft export", e, "\"name\":\"main\"\n\"ts\":85.000\n");
	has("weft export", e, "\"weft_origin_axis_ns\":1100000");
}

TEST_MAIN(T(signalled_before_the_wait_is_a_lost_wakeup),
	  T(the_index_names_the_first_waiter_and_the_wake_to_read),
	  T(resolved_but_never_read_is_a_lost_wakeup), T(a_read_ends_the_wait),
	  T(a_read_of_a_failure_ends_the_wait),
	  T(a_read_of_another_thread_does_not_end_the_wait),
	  T(the_last_unanswered_wait_counts),
	  T(the_walk_follows_waits_to_the_root_blocker),
	  T(a_cycle_of_waits_is_a_deadlock),
	  T(an_unread_failure_is_failed_upstream), T(becomes_is_followed),
	  T(a_missing_creation_with_no_loss_is_no_loss),
	  T(losses_before_the_creation_hide_nothing),
	  T(losses_in_the_chain_make_it_truncated),
	  T(losses_after_the_wait_do_not_hide_it), T(a_long_chain_is_cut),
	  T(a_resolved_thread_is_ok), T(every_time_counts_from_the_first_event))
