/* SPDX-License-Identifier: MIT */
/*
 * test-path.c - the critical path (src/read/path.c, `weft why --path`) on
 * a trace made by hand on the manual clock, whose answer is known: a
 * request whose end depends on a database call that waited on a busy loop
 * behind another callback.
 *
 *   0 us      the loop (1) creates request R (0x10)
 *   10-110    R runs (parses), creates query Q (0x11), waits on it
 *   110-250   the loop runs (nothing of R's)
 *   250-500   the loop runs callback C (0x12), which it created at 240
 *   300       the database worker W (0x13, another OS thread) signals Q:
 *             its answer is there, but the loop is busy with C
 *   500-520   Q's callback runs and resolves Q
 *   520-530   the loop runs
 *   530-600   R runs, reads Q, renders, resolves
 */
#include <pthread.h>

#include "../harness.h"
#include "util.h"
#include "weft/diff.h"
#include "weft/model.h"
#include "weft/path.h"
#include "weft/weft.h"

static void at(uint64_t us)
{
	weft_clock_set(us * 1000);
}

static void *worker(void *arg)
{
	(void)arg;
	at(300);
	weft_run(0x13);
	weft_signal(0x11);
	weft_run(0);
	return NULL;
}

static const char *record(void)
{
	const char *p = tpath("path.weft");
	CHECK_OK(weft_start(p, 1 << 20, WEFT_CLOCK_MANUAL));
	at(0);
	weft_run(1);
	weft_label(1, "event loop");
	weft_create(0x13, "worker");
	weft_label(0x13, "db worker");
	weft_create(0x10, "request");
	weft_label(0x10, "GET /item/7");
	at(10);
	weft_run(0x10);
	at(110);
	weft_create(0x11, "db query");
	weft_label(0x11, "SELECT 7");
	weft_try_read(0x11);
	weft_run(1);
	at(240);
	weft_create(0x12, "callback");
	weft_label(0x12, "callback C");
	at(250);
	weft_run(0x12);
	pthread_t t;
	CHECK(!pthread_create(&t, NULL, worker, NULL));
	CHECK(!pthread_join(t, NULL));
	at(500);
	weft_resolve(0x12);
	weft_run(0x11);
	at(520);
	weft_resolve(0x11);
	weft_run(1);
	at(530);
	weft_run(0x10);
	weft_read(0x11);
	at(600);
	weft_resolve(0x10);
	weft_run(1);
	at(610);
	weft_run(0);
	CHECK_OK(weft_stop());
	return p;
}

struct want {
	uint32_t depth;
	uint64_t thread;
	int state;
	uint64_t on;	/* 0: none */
	int64_t t0, t1; /* us */
};

TEST(a_request_behind_a_busy_loop)
{
	const char *p = record();
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	struct weft_model *m;
	CHECK_OK(weft_model_load(&m, r));
	struct weft_path path;
	CHECK_OK(weft_path(m, weft_model_find(m, 0x10), &path));
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	static const struct want want[] = {
		{0, 0x10, WEFT_PATH_READY, 1, 0, 10},
		{0, 0x10, WEFT_PATH_RUNNING, 0, 10, 110},
		{0, 0x10, WEFT_PATH_WAITING, 0x11, 110, 520},
		{0, 0x10, WEFT_PATH_READY, 1, 520, 530},
		{0, 0x10, WEFT_PATH_RUNNING, 0, 530, 600},
		/* the wait, explained by the query that ended it */
		{1, 0x11, WEFT_PATH_WAITING, 0x13, 110, 300},
		{1, 0x11, WEFT_PATH_READY, 0x12, 300, 500},
		{1, 0x11, WEFT_PATH_RUNNING, 0, 500, 520},
	};
	uint32_t n = sizeof want / sizeof *want, k = 0;
	for (uint32_t i = 0; i < path.nseg; i++) {
		const struct weft_path_seg *s = &path.seg[i];
		if (s->depth > 1)
			continue; /* the worker's own time, below */
		if (k >= n)
			FAIL("segment %u too many: depth %u %s", i, s->depth,
			     weft_path_state_name((int)s->state));
		const struct want *w = &want[k++];
		CHECK_EQ(s->depth, w->depth);
		CHECK_U64(th[s->thread].id, w->thread);
		CHECK_STR(weft_path_state_name((int)s->state),
			  weft_path_state_name(w->state));
		if (w->on)
			CHECK_U64(th[s->on].id, w->on);
		else
			CHECK_EQ(s->on, WEFT_NONE);
		CHECK_EQ(s->t0, w->t0 * 1000);
		CHECK_EQ(s->t1, w->t1 * 1000);
	}
	CHECK_EQ(k, n);
	/* the split: 170 running, 20 ready, 410 waiting */
	CHECK_EQ(path.total[WEFT_PATH_RUNNING], 170000);
	CHECK_EQ(path.total[WEFT_PATH_READY], 20000);
	CHECK_EQ(path.total[WEFT_PATH_WAITING], 410000);
	CHECK_EQ(path.total[WEFT_PATH_OTHER], 0);
	weft_path_release(&path);
	weft_model_free(m);
	weft_reader_close(r);
}

TEST(weft_why_path_prints_it)
{
	const char *p = record();
	const char *bin = getenv("WEFT_BIN");
	if (!bin)
		FAIL("WEFT_BIN is not set (run through meson test)");
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "'%s' why '%s' --path 'GET /item'", bin, p);
	FILE *f = popen(cmd, "r");
	CHECK(f);
	static char out[16384];
	size_t n = fread(out, 1, sizeof out - 1, f);
	out[n] = 0;
	CHECK_EQ(pclose(f), 0);
	/* (the durations: a column in one unit, lined up; the states' the
	 * same: tools/usage.c tcol) */
	const char *want = "GET /item/7 (0x10, request): created at "
			   "0 s, "
			   "resolved at 0.000 600 s: 600 us\n"
			   "  running   170 us    28 %\n"
			   "  ready      20 us     3 %\n"
			   "  waiting   410 us    68 %\n"
			   "  other       0 us     0 %\n"
			   "critical path:\n"
			   "  0 s            10 us    ready (ran instead: "
			   "event loop (0x1))\n"
			   "  0.000 010 s   100 us    running\n"
			   "  0.000 110 s   410 us    waiting on SELECT 7 "
			   "(0x11, db query)\n"
			   "     0.000 110 s   190 us    SELECT 7 (0x11, db "
			   "query) waiting on "
			   "db worker (0x13, worker)\n";
	if (strncmp(out, want, strlen(want)))
		FAIL("weft why --path printed:\n%s\nwanted it to begin:\n%s",
		     out, want);
	CHECK(strstr(out, "     0.000 300 s   200 us    SELECT 7 (0x11, db "
			  "query) ready (ran instead: callback C (0x12, "
			  "callback))\n"));
	snprintf(cmd, sizeof cmd, "'%s' why '%s' --path 'GET' --all", bin, p);
	f = popen(cmd, "r");
	CHECK(f);
	n = fread(out, 1, sizeof out - 1, f);
	out[n] = 0;
	CHECK_EQ(pclose(f), 0);
	CHECK(strstr(out, "\"GET\": 1 thread that ended, 600 us of life on "
			  "average\n"));
	CHECK(strstr(out, "    db query: SELECT #  1 thread, 410 us in all, "
			  "at most 410 us\n"));
}

/* A loop's picture, by hand: what the path says of an idle loop, a lost
 * wake-up and a request the loop resolves must be what the picture shows
 * and what `weft why` says (nothing woke the condition; the loop sat in
 * poll; the loop was held up by what ran on its OS thread).
 *
 *   0       main (1, a root) creates the loop L (2), which runs; L creates
 *           task T (0x20), timer H (0x22, runs later), request Q (0x23,
 *           never runs) and request U (0x24)
 *   10-30   T runs: creates condition C (0x21), signals it at 20 (nobody
 *           waits: lost), waits on it at 30
 *   30-35   L runs
 *   35-36   U runs and waits on the timer H
 *   36-310  L runs; its OS thread idle in poll 40-300; L resolves Q at 305
 *   310-320 H runs and resolves
 *   320-330 L runs
 *   330-340 U runs, reads H, resolves
 *   340-400 L runs */
static const char *record_loop(void)
{
	const char *p = tpath("loop.weft");
	CHECK_OK(weft_start(p, 1 << 20, WEFT_CLOCK_MANUAL));
	at(0);
	weft_run(1);
	weft_create(2, "uv_loop_t");
	weft_label(2, "L");
	weft_run(2);
	weft_create(0x20, "task");
	weft_label(0x20, "T");
	weft_should_resolve(0x20);
	weft_create(0x22, "uv_timer_t");
	weft_label(0x22, "H");
	weft_create(0x23, "uv_fs_t");
	weft_label(0x23, "Q");
	weft_create(0x24, "request");
	weft_label(0x24, "U");
	at(10);
	weft_run(0x20);
	weft_create(0x21, "condition");
	weft_label(0x21, "C");
	at(20);
	weft_signal(0x21);
	at(30);
	weft_try_read(0x21);
	weft_run(2);
	at(35);
	weft_run(0x24);
	weft_try_read(0x22);
	at(36);
	weft_run(2);
	at(40);
	weft_idle("poll");
	at(300);
	weft_resume();
	at(305);
	weft_resolve(0x23);
	at(310);
	weft_run(0x22);
	at(320);
	weft_resolve(0x22);
	weft_run(2);
	at(330);
	weft_run(0x24);
	weft_read(0x22);
	at(340);
	weft_resolve(0x24);
	weft_run(2);
	at(400);
	weft_run(0);
	CHECK_OK(weft_stop());
	return p;
}

/* The segments of `thread`'s path, exactly (idle: the idle reason). */
struct want2 {
	uint32_t depth;
	uint64_t thread;
	int state;
	uint64_t on; /* 0: none */
	const char *idle;
	int64_t t0, t1;
};

static void check_path(struct weft_model *m, uint64_t id,
		       const struct want2 *want, uint32_t n)
{
	struct weft_path path;
	CHECK_OK(weft_path(m, weft_model_find(m, id), &path));
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	for (uint32_t i = 0; i < path.nseg; i++) {
		const struct weft_path_seg *s = &path.seg[i];
		if (i >= n)
			FAIL("0x%llx: segment %u too many: depth %u %s "
			     "%lld..%lld",
			     (unsigned long long)id, i, s->depth,
			     weft_path_state_name((int)s->state),
			     (long long)s->t0, (long long)s->t1);
		const struct want2 *w = &want[i];
		CHECK_EQ(s->depth, w->depth);
		CHECK_U64(th[s->thread].id, w->thread);
		CHECK_STR(weft_path_state_name((int)s->state),
			  weft_path_state_name(w->state));
		if (w->on)
			CHECK_U64(th[s->on].id, w->on);
		else
			CHECK_EQ(s->on, WEFT_NONE);
		CHECK_STR(s->idle ? weft_model_name(m, s->idle) : "",
			  w->idle ? w->idle : "");
		CHECK_EQ(s->t0, w->t0 * 1000);
		CHECK_EQ(s->t1, w->t1 * 1000);
	}
	CHECK_EQ(path.nseg, n);
	weft_path_release(&path);
}

#define NW(a) (sizeof(a) / sizeof *(a))

TEST(a_lost_wakeup_an_idle_loop_and_a_request_it_resolves)
{
	const char *p = record_loop();
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	struct weft_model *m;
	CHECK_OK(weft_model_load(&m, r));
	/* the lost wake-up: the condition was pending, nothing woke it
	 * (never "ready": it never runs) */
	static const struct want2 lost[] = {
		{0, 0x20, WEFT_PATH_READY, 2, NULL, 0, 10},
		{0, 0x20, WEFT_PATH_RUNNING, 0, NULL, 10, 30},
		{0, 0x20, WEFT_PATH_WAITING, 0x21, NULL, 30, 400},
		{1, 0x21, WEFT_PATH_WAITING, 0, NULL, 30, 400},
	};
	check_path(m, 0x20, lost, NW(lost));
	/* the condition itself: signalled (by T, nobody waiting), then
	 * pending to the end, never ready */
	static const struct want2 cond[] = {
		{0, 0x21, WEFT_PATH_WAITING, 0x20, NULL, 10, 20},
		{0, 0x21, WEFT_PATH_WAITING, 0, NULL, 20, 400},
		{1, 0x20, WEFT_PATH_RUNNING, 0, NULL, 10, 20},
	};
	check_path(m, 0x21, cond, NW(cond));
	/* waiting on a timer: it waited for its event while the loop sat in
	 * poll, was ready once the loop woke, then ran */
	static const struct want2 timer[] = {
		{0, 0x24, WEFT_PATH_READY, 0x20, NULL, 0, 35},
		{0, 0x24, WEFT_PATH_RUNNING, 0, NULL, 35, 36},
		{0, 0x24, WEFT_PATH_WAITING, 0x22, NULL, 36, 320},
		{0, 0x24, WEFT_PATH_READY, 2, NULL, 320, 330},
		{0, 0x24, WEFT_PATH_RUNNING, 0, NULL, 330, 340},
		{1, 0x22, WEFT_PATH_WAITING, 0, "poll", 36, 300},
		{1, 0x22, WEFT_PATH_READY, 2, NULL, 300, 310},
		{1, 0x22, WEFT_PATH_RUNNING, 0, NULL, 310, 320},
	};
	check_path(m, 0x24, timer, NW(timer));
	/* a request its loop resolves: it waited on the loop, which ran,
	 * was held up by what ran on its OS thread, and sat in poll */
	static const struct want2 req[] = {
		{0, 0x23, WEFT_PATH_WAITING, 2, NULL, 0, 305},
		{1, 2, WEFT_PATH_RUNNING, 0, NULL, 0, 10},
		{1, 2, WEFT_PATH_READY, 0x20, NULL, 10, 30},
		{1, 2, WEFT_PATH_RUNNING, 0, NULL, 30, 35},
		{1, 2, WEFT_PATH_READY, 0x24, NULL, 35, 36},
		{1, 2, WEFT_PATH_RUNNING, 0, NULL, 36, 40},
		{1, 2, WEFT_PATH_WAITING, 0, "poll", 40, 300},
		{1, 2, WEFT_PATH_RUNNING, 0, NULL, 300, 305},
	};
	check_path(m, 0x23, req, NW(req));
	weft_model_free(m);
	weft_reader_close(r);
	/* in words: what weft why says, and the picture */
	const char *bin = getenv("WEFT_BIN");
	if (!bin)
		FAIL("WEFT_BIN is not set (run through meson test)");
	char cmd[4096];
	snprintf(cmd, sizeof cmd,
		 "'%s' why '%s' --path 0x20 && '%s' why '%s' "
		 "--path U && '%s' why '%s' --path Q",
		 bin, p, bin, p, bin, p);
	FILE *f = popen(cmd, "r");
	CHECK(f);
	static char out[16384];
	size_t n = fread(out, 1, sizeof out - 1, f);
	out[n] = 0;
	CHECK_EQ(pclose(f), 0);
	const char *want[] = {
		"  0.000 030 s   370 us    waiting on C (0x21, condition)\n"
		"     0.000 030 s     370 us  C (0x21, condition) waiting "
		"(pending: nothing signalled, resolved or failed it since)\n",
		"     0.000 036 s   264 us    H (0x22, uv_timer_t) waiting "
		"for "
		"an event (its OS thread idle: poll)\n"
		"     0.000 300 s    10 us    H (0x22, uv_timer_t) ready "
		"(ran "
		"instead: L (0x2, uv_loop_t))\n",
		"     0.000 010 s   20 us     L (0x2, uv_loop_t) ready (ran "
		"instead: T (0x20, task))\n",
		"     0.000 040 s  260 us     L (0x2, uv_loop_t) waiting for "
		"an "
		"event (its OS thread idle: poll)\n",
	};
	for (unsigned i = 0; i < NW(want); i++)
		if (!strstr(out, want[i]))
			FAIL("weft why --path printed:\n%s\nwithout:\n%s", out,
			     want[i]);
	CHECK(!strstr(out, " other\n"));
	CHECK(!strstr(out, "condition) ready"));
}

/* A request that the loop resolves (a uv_fs_t, a timer's promise) while
 * the request itself is not running: from its last run to its end it was
 * waiting on the loop that ended it, not ready nor idle; the loop's time
 * explains that wait one level down.
 *
 *   0 us     the loop (1) creates request R (0x20)
 *   10-40    R runs (submits its work)
 *   40-200   the loop runs; at 200 it resolves R
 */
TEST(a_request_the_loop_resolves_waits_on_it)
{
	const char *p = tpath("loop.weft");
	CHECK_OK(weft_start(p, 1 << 20, WEFT_CLOCK_MANUAL));
	at(0);
	weft_run(1);
	weft_label(1, "event loop");
	weft_create(0x20, "fs request");
	at(10);
	weft_run(0x20);
	at(40);
	weft_run(1);
	at(200);
	weft_resolve(0x20);
	at(250);
	weft_run(0);
	CHECK_OK(weft_stop());
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	struct weft_model *m;
	CHECK_OK(weft_model_load(&m, r));
	struct weft_path path;
	CHECK_OK(weft_path(m, weft_model_find(m, 0x20), &path));
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	static const struct want want[] = {
		{0, 0x20, WEFT_PATH_READY, 1, 0, 10},
		{0, 0x20, WEFT_PATH_RUNNING, 0, 10, 40},
		{0, 0x20, WEFT_PATH_WAITING, 1, 40, 200},
		{1, 1, WEFT_PATH_RUNNING, 0, 40, 200},
	};
	uint32_t n = sizeof want / sizeof *want;
	for (uint32_t i = 0; i < path.nseg; i++) {
		const struct weft_path_seg *s = &path.seg[i];
		if (i >= n)
			FAIL("segment %u too many: depth %u %s", i, s->depth,
			     weft_path_state_name((int)s->state));
		const struct want *w = &want[i];
		CHECK_EQ(s->depth, w->depth);
		CHECK_U64(th[s->thread].id, w->thread);
		CHECK_STR(weft_path_state_name((int)s->state),
			  weft_path_state_name(w->state));
		if (w->on)
			CHECK_U64(th[s->on].id, w->on);
		else
			CHECK_EQ(s->on, WEFT_NONE);
		CHECK_EQ(s->t0, w->t0 * 1000);
		CHECK_EQ(s->t1, w->t1 * 1000);
	}
	CHECK_EQ(path.nseg, n);
	CHECK_EQ(path.total[WEFT_PATH_RUNNING], 30000);
	CHECK_EQ(path.total[WEFT_PATH_READY], 10000);
	CHECK_EQ(path.total[WEFT_PATH_WAITING], 160000);
	CHECK_EQ(path.total[WEFT_PATH_OTHER], 0);
	weft_path_release(&path);
	weft_model_free(m);
	weft_reader_close(r);
}

/* Many paths summed (weft_path_sum_add): the depth-0 waits and ready
 * times by key, each thread counted once a key, the lists most time
 * first and ties by key; deeper segments and running time are no key's. */
TEST(paths_summed_by_key)
{
	const char *p = record();
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	struct weft_model *m;
	CHECK_OK(weft_model_load(&m, r));
	uint32_t a = weft_model_find(m, 0x11), b = weft_model_find(m, 0x13);
	char ka[200], kb[200];
	weft_diff_key_text(m, a, WEFT_DIFF_KEY_LABEL, ka, sizeof ka);
	weft_diff_key_text(m, b, WEFT_DIFF_KEY_LABEL, kb, sizeof kb);
	CHECK(strcmp(ka, kb) != 0);
#define SEG(d, st, on, t0, t1)                                                 \
	{                                                                      \
		(t0), (t1), 0, (on), (d), (st), 0                              \
	}
	struct weft_path_seg s1[] = {
		SEG(0, WEFT_PATH_WAITING, a, 0, 10),
		SEG(0, WEFT_PATH_READY, WEFT_NONE, 10, 15),
		SEG(0, WEFT_PATH_WAITING, a, 15, 22),
		SEG(0, WEFT_PATH_RUNNING, WEFT_NONE, 22, 25),
		SEG(1, WEFT_PATH_WAITING, b, 0, 100), /* (deeper: no key's) */
	};
	struct weft_path_seg s2[] = {
		SEG(0, WEFT_PATH_WAITING, b, 0, 20),
		SEG(0, WEFT_PATH_READY, a, 20, 24),
	};
	struct weft_path_seg s3[] = {
		SEG(0, WEFT_PATH_WAITING, WEFT_NONE, 0, 6)};
	struct weft_path_seg s4[] = {SEG(0, WEFT_PATH_WAITING, a, 5, 8)};
#undef SEG
	struct weft_path ps[] = {
		{0, 0, 25, {3, 5, 17, 0}, s1, 5},
		{0, 0, 24, {0, 4, 20, 0}, s2, 2},
		{0, 0, 6, {0, 0, 6, 0}, s3, 1},
		{0, 5, 8, {0, 0, 3, 0}, s4, 1},
	};
	struct weft_path_sum sum = {0};
	for (int i = 0; i < 3; i++)
		CHECK_OK(weft_path_sum_add(&sum, m, &ps[i]));
	CHECK_EQ(sum.threads, 3);
	CHECK_EQ(sum.life, 25 + 24 + 6);
	CHECK_EQ(sum.total[WEFT_PATH_WAITING], 43);
	CHECK_EQ(sum.total[WEFT_PATH_RUNNING], 3);
	/* waited on: B 20, A 17 (one thread, at most 10), (idle) 6 */
	CHECK_EQ(sum.nwaited_on, 3);
	CHECK_STR(sum.waited_on[0].key, kb);
	CHECK_EQ(sum.waited_on[0].total, 20);
	CHECK_STR(sum.waited_on[1].key, ka);
	CHECK_EQ(sum.waited_on[1].total, 17);
	CHECK_EQ(sum.waited_on[1].threads, 1);
	CHECK_EQ(sum.waited_on[1].max, 10);
	CHECK_STR(sum.waited_on[2].key, "(idle)");
	CHECK_EQ(sum.waited_on[2].total, 6);
	CHECK_EQ(sum.waited_on[0].threads, 1);
	CHECK_EQ(sum.waited_on[2].threads, 1);
	/* ready while: (idle) 5, A 4 */
	CHECK_EQ(sum.nready_while, 2);
	CHECK_STR(sum.ready_while[0].key, "(idle)");
	CHECK_EQ(sum.ready_while[0].total, 5);
	CHECK_STR(sum.ready_while[1].key, ka);
	CHECK_EQ(sum.ready_while[1].total, 4);
	/* (each a path's second key, after one of the other list) */
	CHECK_EQ(sum.ready_while[0].threads, 1);
	CHECK_EQ(sum.ready_while[1].threads, 1);
	/* a fourth: A reaches B's 20, two threads; the tie goes by key */
	CHECK_OK(weft_path_sum_add(&sum, m, &ps[3]));
	CHECK_EQ(sum.nwaited_on, 3);
	int af = strcmp(ka, kb) < 0;
	const struct weft_path_blame *ra = &sum.waited_on[af ? 0 : 1];
	CHECK_STR(ra->key, ka);
	CHECK_EQ(ra->total, 20);
	CHECK_EQ(ra->threads, 2);
	CHECK_EQ(ra->max, 10);
	CHECK_STR(sum.waited_on[af ? 1 : 0].key, kb);
	weft_path_sum_release(&sum);
	CHECK_EQ(sum.nwaited_on, 0);
	CHECK(sum.waited_on == NULL);
	weft_path_sum_release(NULL);
	weft_model_free(m);
	weft_reader_close(r);
}

TEST_MAIN(T(a_request_behind_a_busy_loop), T(weft_why_path_prints_it),
	  T(paths_summed_by_key),
	  T(a_lost_wakeup_an_idle_loop_and_a_request_it_resolves),
	  T(a_request_the_loop_resolves_waits_on_it))
