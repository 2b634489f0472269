/* SPDX-License-Identifier: MIT */
/*
 * test-index.c - the index beside a trace (include/weft/index.h): every
 * bucket of every level equals what the whole model says, recomputed here
 * item by item; the thread table is weft_model_threads(); a query returns
 * exactly the buckets that meet its range; an index that is stale (the
 * trace grew or shrank, another trace's, truncated, a byte changed, an
 * older version, a live writer's) is detected and rebuilt; a read-only
 * directory sends it to the cache directory.
 */
#include "../harness.h"

#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/wait.h>

#include "util.h"
#include "weft/index.h"
#include "weft/model.h"
#include "weft/weft.h"

static int64_t floordiv(int64_t t, int64_t w)
{
	return t >= 0 ? t / w : -((-t - 1) / w) - 1;
}

struct expect {
	int64_t *run, *wait, *idle;
	uint64_t *threads, *arrows;
	int64_t first; /* first bucket number of the level */
	uint32_t n;
};

/* Adds [t0, t1) to e's buckets of width w, piece by piece. */
static void put(int64_t *a, const struct expect *e, int64_t w, int64_t t0,
		int64_t t1)
{
	for (int64_t k = floordiv(t0, w); t1 > t0 && k <= floordiv(t1 - 1, w);
	     k++) {
		int64_t lo = k * w, hi = lo + w;
		CHECK(k >= e->first && k < e->first + e->n);
		a[k - e->first] += (t1 < hi ? t1 : hi) - (t0 > lo ? t0 : lo);
	}
}

/* The index of p against the whole model of p, bucket by bucket at every
 * level.  Returns the levels. */
static uint32_t same_as_model(const char *p, struct weft_index *ix)
{
	struct weft_reader *r;
	struct weft_model *m;
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	CHECK_OK(weft_model_load(&m, r));
	uint32_t nth, nix, nrun, narr, nlab, nidle, nms, nis, nctr, nser;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_index_thread *it = weft_index_threads(ix, &nix);
	const struct weft_run *run = weft_model_runs(m, &nrun);
	const struct weft_arrow *arr = weft_model_arrows(m, &narr);
	const struct weft_label *lab = weft_model_labels(m, &nlab);
	const struct weft_interval *idle =
		weft_model_intervals(m, WEFT_INTERVAL_IDLE, &nidle);
	const struct weft_model_stream *ms = weft_model_streams(m, &nms);
	const struct weft_index_stream *is = weft_index_streams(ix, &nis);
	const struct weft_counter *ctr = weft_model_counters(m, &nctr);
	const struct weft_index_series *ser = weft_index_series(ix, &nser);
	/* the thread table */
	CHECK_EQ(nix, nth);
	uint32_t nrn;
	const int64_t *running = weft_index_thread_running(ix, &nrn);
	CHECK_EQ(nrn, nth);
	for (uint32_t i = 0; i < nth; i++) {
		/* its running time: the sum of its runs */
		uint32_t nr;
		const uint32_t *ri = weft_model_thread_runs(m, i, &nr);
		int64_t ran = 0;
		for (uint32_t k = 0; k < nr; k++)
			ran += run[ri[k]].t1 - run[ri[k]].t0;
		CHECK_EQ(running[i], ran);
		CHECK_U64(it[i].id, th[i].id);
		CHECK_EQ(it[i].t_create, th[i].t_create);
		CHECK_EQ(it[i].t_end, th[i].t_end);
		CHECK_EQ(it[i].parent, th[i].parent);
		CHECK_EQ(it[i].stream, th[i].stream);
		CHECK_EQ(it[i].end, th[i].end);
		CHECK_EQ(it[i].flags, th[i].flags);
		CHECK_STR(weft_index_string(ix, it[i].kind),
			  weft_model_name(m, th[i].kind));
		if (th[i].label == WEFT_NONE)
			CHECK_EQ(it[i].label, WEFT_NONE);
		else
			CHECK_STR(weft_index_string(ix, it[i].label),
				  weft_model_string(m, lab[th[i].label].text));
	}
	CHECK_EQ(nis, nms);
	for (uint32_t s = 0; s < nms; s++) {
		CHECK_EQ(is[s].tid, ms[s].tid);
		CHECK_STR(weft_index_string(ix, is[s].name), ms[s].name);
		CHECK_EQ(is[s].busy_ns, ms[s].busy_ns);
		CHECK_EQ(is[s].idle_ns, ms[s].idle_ns);
		CHECK_EQ(is[s].process, ms[s].process);
	}
	CHECK_EQ(nser, nctr);
	for (uint32_t c = 0; c < nctr; c++) {
		CHECK_STR(weft_index_string(ix, ser[c].name),
			  weft_model_name(m, ctr[c].name));
		CHECK_EQ(ser[c].process, ctr[c].process);
	}
	int64_t t0, t1, it0, it1;
	weft_model_range(m, &t0, &t1);
	weft_index_range(ix, &it0, &it1);
	CHECK_EQ(it0, t0);
	CHECK_EQ(it1, t1);
	uint32_t levels = weft_index_levels(ix);
	CHECK(levels >= 1);
	uint64_t marks = 0;
	for (uint32_t j = 0; j < levels; j++) {
		int64_t w = weft_index_bucket_ns(ix, j);
		CHECK(w > 0 && (w & (w - 1)) == 0);
		if (j)
			CHECK_EQ(w, 2 * weft_index_bucket_ns(ix, j - 1));
		for (uint32_t s = 0; s < nms; s++) {
			const struct weft_index_bucket *b;
			int64_t f0;
			uint32_t n =
				weft_index_query(ix, s, j, -WEFT_MODEL_T_MAX,
						 WEFT_MODEL_T_MAX, &b, &f0);
			CHECK(n >= 1 && n <= WEFT_INDEX_LEAVES);
			CHECK_EQ(f0 % w, 0);
			CHECK(f0 <= t0 && f0 + (int64_t)n * w > t1);
			/* the top: one bucket, or two meeting at 0 */
			if (j == levels - 1)
				CHECK(n == 1 || (n == 2 && f0 == -w));
			else
				CHECK(n > 2 || (n == 2 && f0 != -w));
			struct expect e = {0};
			e.first = floordiv(f0, w);
			e.n = n;
			e.run = calloc(n, 8);
			e.wait = calloc(n, 8);
			e.idle = calloc(n, 8);
			e.threads = calloc(n, 8);
			e.arrows = calloc(n, 8);
			for (uint32_t i = 0; i < nrun; i++)
				if (run[i].stream == s)
					put(e.run, &e, w, run[i].t0, run[i].t1);
			for (uint32_t i = 0; i < nidle; i++)
				if (idle[i].stream == s)
					put(e.idle, &e, w, idle[i].t0,
					    idle[i].t1);
			for (uint32_t i = 0; i < nth; i++)
				if (th[i].stream == s &&
				    !(th[i].flags & WEFT_THREAD_ROOT)) {
					put(e.wait, &e, w, th[i].t_create,
					    th[i].t_end);
					e.threads[floordiv(th[i].t_create, w) -
						  e.first]++;
				}
			for (uint32_t i = 0; i < narr; i++)
				if (arr[i].stream == s)
					e.arrows[floordiv(arr[i].t, w) -
						 e.first]++;
			int64_t busy = 0, idl = 0;
			for (uint32_t k = 0; k < n; k++) {
				if (b[k].running_ns != e.run[k] ||
				    b[k].waiting_ns != e.wait[k] ||
				    b[k].idle_ns != e.idle[k] ||
				    b[k].threads != e.threads[k] ||
				    b[k].arrows != e.arrows[k])
					FAIL("%s: level %u stream %u bucket "
					     "%u: "
					     "run %lld/%lld wait %lld/%lld "
					     "idle "
					     "%lld/%lld threads %u/%llu arrows "
					     "%u/%llu",
					     p, j, s, k,
					     (long long)b[k].running_ns,
					     (long long)e.run[k],
					     (long long)b[k].waiting_ns,
					     (long long)e.wait[k],
					     (long long)b[k].idle_ns,
					     (long long)e.idle[k], b[k].threads,
					     (unsigned long long)e.threads[k],
					     b[k].arrows,
					     (unsigned long long)e.arrows[k]);
				busy += b[k].running_ns;
				idl += b[k].idle_ns;
				if (j == 0)
					marks += b[k].marks;
			}
			/* the sums are the model's per-thread totals */
			CHECK_EQ(busy, ms[s].busy_ns);
			CHECK_EQ(idl, ms[s].idle_ns);
			free(e.run);
			free(e.wait);
			free(e.idle);
			free(e.threads);
			free(e.arrows);
		}
		for (uint32_t c = 0; c < nctr; c++) {
			const struct weft_index_range *b;
			int64_t f0;
			uint32_t n = weft_index_counter_query(ix, c, j,
							      -WEFT_MODEL_T_MAX,
							      WEFT_MODEL_T_MAX,
							      &b, &f0);
			CHECK(n >= 1);
			uint64_t total = 0;
			for (uint32_t k = 0; k < n; k++) {
				int64_t lo = f0 + (int64_t)k * w, mn = 0,
					mx = 0;
				uint64_t cnt = 0;
				for (uint32_t i = 0; i < ctr[c].nsamples; i++) {
					const struct weft_sample *x =
						&ctr[c].samples[i];
					if (x->t < lo || x->t >= lo + w)
						continue;
					if (!cnt || x->value < mn)
						mn = x->value;
					if (!cnt || x->value > mx)
						mx = x->value;
					cnt++;
				}
				CHECK_U64(b[k].samples, cnt);
				CHECK_EQ(b[k].min, mn);
				CHECK_EQ(b[k].max, mx);
				total += cnt;
			}
			CHECK_U64(total, ctr[c].nsamples);
		}
	}
	CHECK_U64(marks, nlab);
	weft_model_free(m);
	weft_reader_close(r);
	return levels;
}

/* Three OS threads at once: loops with idle periods, requests of which
 * some live long (across many buckets), labels, notes, arrows of every
 * kind, a counter per thread and a shared one. */
static void *worker(void *arg)
{
	uint64_t base = (uint64_t)(uintptr_t)arg;
	char name[32];
	snprintf(name, sizeof name, "w%llu", (unsigned long long)(base >> 20));
	pthread_setname_np(pthread_self(), name);
	for (uint64_t i = 0; i < 3000; i++) {
		uint64_t id = base + i;
		weft_idle("poll");
		weft_resume();
		weft_create(id, i % 3 ? "req" : "timer");
		if (i % 5 == 0)
			weft_label(id, i % 2 ? "GET /a" : "GET /b");
		weft_run(id);
		weft_counter_set(name, (int64_t)(i % 17) - 8);
		weft_counter_add("shared", 1);
		if (i % 11 == 0)
			weft_note(id, "a note");
		if (i > 0 && i % 3 == 0) {
			weft_try_read(id - 1);
			weft_read(id - 2);
		}
		weft_run(0);
		/* one in a hundred stays pending to the end */
		if (i % 100 != 7)
			weft_resolve(i > 50 && i % 9 == 0 ? id - 50 : id);
	}
	return NULL;
}

static const char *make_threads(const char *name)
{
	const char *p = tpath(name);
	CHECK_OK(weft_start(p, 16 << 20, WEFT_DISCARD));
	pthread_t t[3];
	for (uintptr_t k = 0; k < 3; k++)
		CHECK(!pthread_create(&t[k], NULL, worker,
				      (void *)((k + 1) << 20)));
	for (int k = 0; k < 3; k++)
		CHECK(!pthread_join(t[k], NULL));
	CHECK_OK(weft_stop());
	return p;
}

static struct weft_index *open_built(const char *p, int expect_build)
{
	struct weft_index *ix = NULL;
	struct weft_index_built b;
	char why[200];
	CHECK_OK(
		weft_index_open(&ix, p, WEFT_INDEX_BUILD, &b, why, sizeof why));
	if ((b.path[0] != 0) != expect_build)
		FAIL("%s: built %d, not %d (%s)", p, b.path[0] != 0,
		     expect_build, why);
	return ix;
}

TEST(index_equals_the_model)
{
	const char *p = make_threads("t.weft");
	unlink(tpath("t.weft.weftidx"));
	struct weft_index *ix = open_built(p, 1);
	CHECK(same_as_model(p, ix) >= 10);
	weft_index_close(ix);
	/* found and trusted the second time, not built again */
	ix = open_built(p, 0);
	weft_index_close(ix);
	char why[200];
	CHECK_OK(weft_index_check(p, NULL, why, sizeof why));
}

/* Hand-made times: a thread alive across exactly whole buckets, a run
 * ending on a bucket's bound, a range query's bounds. */
TEST(bucket_bounds)
{
	const char *p = tpath("b.weft");
	CHECK_OK(weft_start(p, 1 << 20, WEFT_CLOCK_MANUAL));
	weft_clock_set(1000);
	weft_create(1, "long");
	weft_create(2, "short");
	weft_run(2);
	weft_counter_set("c", 5);
	weft_clock_set(1010);
	weft_counter_set("c", -3);
	weft_run(0);
	weft_resolve(2);
	weft_idle("sleep");
	weft_clock_set(9000);
	weft_resume();
	weft_note(1, "mark");
	weft_create(3, "late");
	weft_resolve(1);
	weft_clock_set(1000000);
	weft_resolve(3);
	CHECK_OK(weft_stop());
	unlink(tpath("b.weft.weftidx"));
	struct weft_index *ix = open_built(p, 1);
	uint32_t levels = same_as_model(p, ix);
	/* [1000, 1000000] in at most 4096 buckets of a power of two: 256 ns
	 * (buckets 3 to 3906), 13 levels (256 ns to 2^20 ns) */
	CHECK_EQ(weft_index_bucket_ns(ix, 0), 256);
	CHECK_EQ(levels, 13);
	CHECK_EQ(weft_index_bucket_ns(ix, levels), 0);
	const struct weft_index_bucket *b;
	int64_t f0;
	/* [1024, 1280) is the bucket of 1024..1279: exactly one */
	CHECK_EQ(weft_index_query(ix, 0, 0, 1024, 1280, &b, &f0), 1);
	CHECK_EQ(f0, 1024);
	CHECK_EQ(weft_index_query(ix, 0, 0, 1024, 1281, &b, &f0), 2);
	CHECK_EQ(weft_index_query(ix, 0, 0, 1279, 1279, &b, &f0), 1);
	CHECK_EQ(f0, 1024);
	/* outside the trace, another stream or level: nothing */
	CHECK_EQ(weft_index_query(ix, 0, 0, 2000000, 3000000, &b, &f0), 0);
	CHECK(b == NULL);
	CHECK_EQ(weft_index_query(ix, 1, 0, 0, 5000, &b, &f0), 0);
	CHECK_EQ(weft_index_query(ix, 0, levels, 0, 5000, &b, &f0), 0);
	/* the run of 2, [1000, 1010), in the bucket [768, 1024) */
	CHECK_EQ(weft_index_query(ix, 0, 0, 1000, 1001, &b, &f0), 1);
	CHECK_EQ(f0, 768);
	CHECK_EQ(b[0].running_ns, 10);
	CHECK_EQ(b[0].threads, 2);
	/* thread 1 waits [1000, 9000): whole buckets from 1024 to 8959 */
	CHECK_EQ(weft_index_query(ix, 0, 0, 2048, 2304, &b, &f0), 1);
	CHECK_EQ(b[0].waiting_ns, 256);
	CHECK_EQ(b[0].idle_ns, 256);
	const struct weft_index_range *c;
	CHECK_EQ(weft_index_counter_query(ix, 0, 0, 1000, 1001, &c, &f0), 1);
	CHECK_EQ(c[0].min, -3);
	CHECK_EQ(c[0].max, 5);
	CHECK_U64(c[0].samples, 2);
	weft_index_close(ix);
}

/* Level 0 as it grows, one nanosecond wide at first, 4096 buckets: a
 * run that starts before it and ends in it (3's [990, 1000) when it is
 * [1000, 1001)), an arrow at its end (at 1001 when it is [990, 1001)),
 * a run that starts in it and ends just past it (1's [1000, 20009) when
 * it is [984, 20008)), the last two each followed by a coarsening: the
 * builder's fast path (a time already in level 0) and its long way
 * (level 0 grows) must meet exactly at level 0's bounds, or a bucket
 * lands beyond level 0 and is misplaced when it coarsens (compared
 * bucket by bucket). */
TEST(level_zero_grows_at_its_bounds)
{
	const char *p = tpath("g.weft");
	CHECK_OK(weft_start(p, 1 << 20, WEFT_CLOCK_MANUAL));
	weft_clock_set(990);
	weft_run(3); /* (a thread never created: no arrow) */
	weft_clock_set(1000);
	weft_create(1, "a"); /* the first time the builder sees */
	weft_run(1);	     /* 3's run [990, 1000): before level 0 */
	weft_clock_set(1001);
	weft_create(2, "b"); /* at level 0's end */
	weft_clock_set(20000);
	weft_note(1, "x"); /* level 0 coarsens to 8 ns: [984, 20008) */
	weft_clock_set(20009);
	weft_run(0); /* 1's run ends past level 0's end by one */
	weft_clock_set(1000000);
	weft_note(1, "far"); /* level 0 coarsens, to 256 ns */
	weft_resolve(1);
	weft_resolve(2);
	CHECK_OK(weft_stop());
	unlink(tpath("g.weft.weftidx"));
	struct weft_index *ix = open_built(p, 1);
	same_as_model(p, ix);
	CHECK_EQ(weft_index_bucket_ns(ix, 0), 256);
	const struct weft_index_bucket *b;
	int64_t f0;
	/* [768, 1024): 3's run [990, 1000), 1's first 24 ns, the three
	 * threads (3 as first seen) and the two creations */
	CHECK_EQ(weft_index_query(ix, 0, 0, 990, 991, &b, &f0), 1);
	CHECK_EQ(f0, 768);
	CHECK_EQ(b[0].running_ns, 10 + 24);
	CHECK_EQ(b[0].threads, 3);
	CHECK_EQ(b[0].arrows, 2);
	/* [19968, 20224): the end of 1's run, [19968, 20009) */
	CHECK_EQ(weft_index_query(ix, 0, 0, 20008, 20009, &b, &f0), 1);
	CHECK_EQ(f0, 19968);
	CHECK_EQ(b[0].running_ns, 41);
	weft_index_close(ix);
}

/* More labels than the builder's memo of texts has slots (4096), their
 * texts 5000 in turn, some threads labelled twice: every thread's label
 * is its own text (a memo slot that held another text is not taken for
 * this one). */
TEST(labels_beyond_the_memo)
{
	const char *p = tpath("l.weft");
	CHECK_OK(weft_start(p, 4 << 20, WEFT_CLOCK_MANUAL));
	char text[32];
	for (uint64_t i = 1; i <= 12000; i++) {
		weft_clock_set((int64_t)i * 10);
		weft_create(i, "req");
		snprintf(text, sizeof text, "L%llu",
			 (unsigned long long)(i * 7 % 5000));
		weft_label(i, text);
		if (i % 3 == 0) {
			snprintf(text, sizeof text, "again %llu",
				 (unsigned long long)(i % 4000));
			weft_label(i, text);
		}
		weft_resolve(i);
	}
	CHECK_OK(weft_stop());
	unlink(tpath("l.weft.weftidx"));
	struct weft_index *ix = open_built(p, 1);
	same_as_model(p, ix);
	uint32_t n;
	const struct weft_index_thread *it = weft_index_threads(ix, &n);
	CHECK_EQ(n, 12001); /* (the OS thread's root first) */
	CHECK_STR(weft_index_string(ix, it[1].label), "L7");
	CHECK_STR(weft_index_string(ix, it[3].label), "again 3");
	CHECK_STR(weft_index_string(ix, it[5000].label), "L0");
	CHECK_STR(weft_index_string(ix, it[12000].label), "again 0");
	weft_index_close(ix);
}

static void *brief(void *arg)
{
	uint64_t id = (uint64_t)(uintptr_t)arg;
	weft_create(id, "brief");
	weft_run(id);
	weft_run(0);
	weft_resolve(id);
	return NULL;
}

/* 300 OS threads: fewer buckets each (2^20 over all: 2048 each), the
 * same sums. */
TEST(many_os_threads)
{
	const char *p = tpath("many.weft");
	/* (a packet each: 300 of 32 KiB) */
	CHECK_OK(weft_start(p, 16 << 20, WEFT_DISCARD));
	for (uintptr_t k = 0; k < 300; k++) {
		pthread_t t;
		CHECK(!pthread_create(&t, NULL, brief, (void *)(k + 1)));
		CHECK(!pthread_join(t, NULL));
		usleep(k % 50 == 0 ? 2000 : 0); /* (a wide trace) */
	}
	CHECK_OK(weft_stop());
	struct weft_index *ix = open_built(p, 1);
	uint32_t ns;
	weft_index_streams(ix, &ns);
	CHECK(ns >= 300);
	const struct weft_index_bucket *b;
	int64_t f0;
	uint32_t n = weft_index_query(ix, 1, 0, -WEFT_MODEL_T_MAX,
				      WEFT_MODEL_T_MAX, &b, &f0);
	CHECK(n > 1024 && n <= 2048);
	same_as_model(p, ix);
	weft_index_close(ix);
}

/* A run of two processes (weft record of examples/forker): its times
 * begin before its origin, so no level's buckets merge into one. */
TEST(a_run_of_processes)
{
	const char *w = getenv("WEFT_BIN"), *bin = getenv("WEFT_BUILD");
	char ex[4096], cmd[9000];
	snprintf(ex, sizeof ex, "%s/examples/forker", bin ? bin : ".");
	if (!w || access(w, X_OK) || access(ex, X_OK))
		SKIP("no weft or examples/forker");
	const char *run = tpath("run");
	snprintf(cmd, sizeof cmd,
		 "env -u WEFT_FILE -u WEFT_RUN '%s' record -o '%s' -- '%s' "
		 ">/dev/null 2>&1",
		 w, run, ex);
	CHECK_OK(system(cmd));
	struct weft_index *ix = open_built(run, 1);
	int64_t t0, t1;
	weft_index_range(ix, &t0, &t1);
	CHECK(t0 < 0); /* (what this case is about) */
	uint32_t ns;
	weft_index_streams(ix, &ns);
	CHECK_EQ(ns, 2);
	same_as_model(run, ix);
	weft_index_close(ix);
	char why[200];
	CHECK_OK(weft_index_check(run, NULL, why, sizeof why));
	CHECK(access(tpath("run.weftidx"), F_OK) == 0);
}

/* A realistic server-shaped trace (bench/server-gen), when built. */
TEST(server_shaped)
{
	const char *bin = getenv("WEFT_BUILD");
	char gen[4096], cmd[8300];
	snprintf(gen, sizeof gen, "%s/bench/server-gen", bin ? bin : ".");
	if (access(gen, X_OK))
		SKIP("no bench/server-gen");
	const char *p = tpath("s.weft");
	snprintf(cmd, sizeof cmd, "'%s' -n 200000 -s 3 -o '%s' >/dev/null", gen,
		 p);
	CHECK_OK(system(cmd));
	struct weft_index *ix = open_built(p, 1);
	same_as_model(p, ix);
	weft_index_close(ix);
}

/* ---- staleness ---------------------------------------------------- */

/* The same small trace, twice the same bytes but its uuid. */
static const char *make_small(const char *name, int n)
{
	const char *p = tpath(name);
	CHECK_OK(weft_start(p, 1 << 20, WEFT_CLOCK_MANUAL));
	for (int i = 1; i <= n; i++) {
		weft_clock_set((uint64_t)i * 100);
		weft_create((uint64_t)i, "req");
		weft_resolve((uint64_t)i);
	}
	CHECK_OK(weft_stop());
	return p;
}

static void copy_file(const char *from, const char *to)
{
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
	CHECK_OK(system(cmd));
}

/* Not trusted, for this reason; rebuilt when asked; then trusted. */
static void stale_then_rebuilt(const char *p, const char *reason)
{
	struct weft_index *ix = NULL;
	char why[200];
	CHECK_EQ(weft_index_open(&ix, p, 0, NULL, why, sizeof why),
		 WEFT_ESTALE);
	CHECK(ix == NULL);
	if (!strstr(why, reason))
		FAIL("%s: '%s', not '%s'", p, why, reason);
	CHECK_EQ(weft_index_check(p, NULL, why, sizeof why), WEFT_ESTALE);
	ix = open_built(p, 1);
	weft_index_close(ix);
	CHECK_OK(weft_index_open(&ix, p, 0, NULL, why, sizeof why));
	CHECK_STR(why, "");
	weft_index_close(ix);
	CHECK_OK(weft_index_check(p, NULL, why, sizeof why));
}

static void patch(const char *path, long off, const void *bytes, size_t n)
{
	int fd = open(path, O_WRONLY);
	CHECK(fd >= 0);
	CHECK_EQ(pwrite(fd, bytes, n, off), (long)n);
	close(fd);
}

static long file_size(const char *path)
{
	struct stat sb;
	CHECK_OK(stat(path, &sb));
	return (long)sb.st_size;
}

TEST(stale_another_traces)
{
	const char *a = make_small("a.weft", 50);
	const char *b = make_small("b.weft", 50);
	CHECK_EQ(file_size(a), file_size(b));
	weft_index_close(open_built(b, 1));
	copy_file(tpath("b.weft.weftidx"), tpath("a.weft.weftidx"));
	stale_then_rebuilt(a, "another trace's (its uuid)");
}

TEST(stale_damaged)
{
	const char *a = make_small("d.weft", 50);
	const char *ip = tpath("d.weft.weftidx");
	weft_index_close(open_built(a, 1));
	long n = file_size(ip);
	/* a byte of the body changed */
	unsigned char x = 0x5a;
	patch(ip, n - 3, &x, 1);
	stale_then_rebuilt(a, "damaged (its checksum)");
	/* a byte of the header */
	patch(ip, 40, &x, 1);
	stale_then_rebuilt(a, "damaged (its header's checksum)");
	/* truncated by a byte, then to less than its header */
	CHECK_OK(truncate(ip, n - 1));
	stale_then_rebuilt(a, "truncated or extended (its size)");
	CHECK_OK(truncate(ip, 10));
	stale_then_rebuilt(a, "truncated (shorter than its header)");
	/* an older version: version 0 */
	uint32_t v = 0;
	patch(ip, 8, &v, 4);
	stale_then_rebuilt(a, "another version");
	/* not an index at all */
	patch(ip, 0, "NOTINDEX", 8);
	stale_then_rebuilt(a, "not a weft index");
}

/* A ring still being written: copies of it taken as it grows have the
 * same uuid and size, more packets; its own index is never trusted. */
TEST(stale_trace_grew)
{
	const char *ring = tpath("g.weft"), *copy = tpath("gc.weft");
	CHECK_OK(weft_start(ring, 1 << 20, 0));
	for (int i = 1; i <= 20; i++) {
		weft_create((uint64_t)i, "req");
		weft_resolve((uint64_t)i);
	}
	int fd = open(copy, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK_OK(weft_snapshot(ring, fd, NULL, NULL));
	close(fd);
	weft_index_close(open_built(copy, 1));
	for (int i = 21; i <= 20000; i++) {
		weft_create((uint64_t)i, "a longer kind to fill packets");
		weft_resolve((uint64_t)i);
	}
	long before = file_size(copy);
	fd = open(copy, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0);
	CHECK_OK(weft_snapshot(ring, fd, NULL, NULL));
	close(fd);
	CHECK_EQ(file_size(copy), before);
	stale_then_rebuilt(copy, "the trace changed (its packets)");
	/* the live ring's own index: built when asked, never found again */
	struct weft_index *ix = NULL;
	char why[200];
	ix = open_built(ring, 1);
	weft_index_close(ix);
	CHECK_EQ(weft_index_open(&ix, ring, 0, NULL, why, sizeof why),
		 WEFT_ESTALE);
	CHECK_STR(why, "the trace is live (still written)");
	CHECK_OK(weft_stop());
	stale_then_rebuilt(ring, "the trace changed");
	/* the same uuid and packets, fewer bytes: weft compact of a copy
	 * (a ring whose writer did not stop) that never went round */
	weft_index_close(open_built(copy, 0)); /* (current: rebuilt above) */
	struct weft_compact_result res;
	CHECK_OK(weft_compact(copy, &res, NULL));
	CHECK(res.size_after < res.size_before);
	stale_then_rebuilt(copy, "the trace changed (its size)");
}

/* A ring in overwrite mode that went round: copies taken one after the
 * other have the same uuid, size and packet count, not the same
 * events. */
TEST(stale_ring_went_round)
{
	const char *ring = tpath("o.weft"), *copy = tpath("oc.weft");
	CHECK_OK(weft_start(ring, 1 << 20, 0));
	/* (names are literals: weft keeps them by address) */
	const char *kind[2] = {"a kind of round 0", "a kind of round 1"};
	for (int round = 0; round < 2; round++) {
		for (int i = 1; i <= 60000; i++) {
			weft_create((uint64_t)i, kind[round]);
			weft_resolve((uint64_t)i);
		}
		int fd = open(copy, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		CHECK(fd >= 0);
		CHECK_OK(weft_snapshot(ring, fd, NULL, NULL));
		close(fd);
		if (round == 0) {
			weft_index_close(open_built(copy, 1));
			usleep(20000); /* (a later modification time) */
		}
	}
	CHECK_OK(weft_stop());
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, copy, 0, NULL));
	const struct weft_trace_info *in = weft_reader_info(r);
	CHECK_EQ(in->packets_used, in->npackets); /* (it went round) */
	weft_reader_close(r);
	stale_then_rebuilt(copy, "the trace changed (its modification time)");
	/* and the index now has the second round's kinds */
	struct weft_index *ix = open_built(copy, 0);
	uint32_t n;
	const struct weft_index_thread *th = weft_index_threads(ix, &n);
	CHECK_STR(weft_index_string(ix, th[n - 1].kind), "a kind of round 1");
	weft_index_close(ix);
}

/* The trace's directory is read-only: the index goes to the cache
 * directory, and is found there; a stale index beside it is passed
 * over.  (As root, in a child that is not: root writes anywhere.) */
TEST(read_only_directory)
{
	char dir[600], cache[600], trace[700];
	snprintf(dir, sizeof dir, "%s", tpath("ro"));
	snprintf(cache, sizeof cache, "%s", tpath("cache"));
	snprintf(trace, sizeof trace, "%s/r.weft", dir);
	CHECK_OK(mkdir(dir, 0755));
	CHECK_OK(mkdir(cache, 0777));
	CHECK_OK(chmod(cache, 0777));
	copy_file(make_small("r0.weft", 30), trace);
	CHECK_OK(chmod(trace, 0644));
	/* another trace's index beside it, then the directory read-only */
	weft_index_close(open_built(make_small("r1.weft", 30), 1));
	char beside[800];
	snprintf(beside, sizeof beside, "%s.weftidx", trace);
	copy_file(tpath("r1.weft.weftidx"), beside);
	CHECK_OK(chmod(beside, 0644));
	CHECK_OK(chmod(dir, 0555));
	/* (the scratch directory above, to the child) */
	char up[600];
	snprintf(up, sizeof up, "%s", tpath(""));
	/* (and the case's own scratch directory, TMPDIR) */
	chmod(up, 0755);
	if (getenv("TMPDIR") && strstr(getenv("TMPDIR"), "weft-case."))
		chmod(getenv("TMPDIR"), 0755);
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
			_exit(10);
		if (access(dir, W_OK) == 0)
			_exit(11); /* (cannot make it read-only here) */
		setenv("XDG_CACHE_HOME", cache, 1);
		struct weft_index *ix = NULL;
		struct weft_index_built b;
		char why[200];
		int rc = weft_index_open(&ix, trace, 0, NULL, why, sizeof why);
		if (rc != WEFT_ESTALE || strcmp(why, "another trace's (its "
						     "uuid)")) {
			fprintf(stderr, "# %d %s\n", rc, why);
			_exit(12);
		}
		if (weft_index_open(&ix, trace, WEFT_INDEX_BUILD, &b, why,
				    sizeof why))
			_exit(13);
		weft_index_close(ix);
		size_t cl = strlen(cache);
		if (!b.in_cache || strncmp(b.path, cache, cl) ||
		    strncmp(b.path + cl, "/weft/", 6))
			_exit(14);
		/* found in the cache now, without building */
		if (weft_index_open(&ix, trace, 0, NULL, why, sizeof why))
			_exit(15);
		uint32_t n;
		weft_index_threads(ix, &n);
		weft_index_close(ix);
		if (n != 31) /* (30 and the OS thread's own) */
			_exit(16);
		if (weft_index_check(trace, NULL, why, sizeof why))
			_exit(17);
		_exit(0);
	}
	int st;
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	chmod(dir, 0755);
	CHECK(WIFEXITED(st));
	if (WEXITSTATUS(st) == 11)
		SKIP("cannot make a directory read-only here");
	CHECK_EQ(WEXITSTATUS(st), 0);
	/* the stale index beside it is left as it was */
	CHECK_EQ(file_size(beside), file_size(tpath("r1.weft.weftidx")));
}

/* The command: where it went and what it read; --check's verdicts and
 * exit statuses. */
/* What is where the index would go and is not an index -- a file of
 * the user's, a symbolic link -- is never replaced: the index goes to
 * the cache; and when the cache's place holds one too, nothing is
 * written (-EEXIST). */
TEST(never_replaces_what_is_not_an_index)
{
	char cache[600], beside[800], victim[700], why[200];
	snprintf(cache, sizeof cache, "%s", tpath("nc"));
	CHECK_OK(mkdir(cache, 0700));
	setenv("XDG_CACHE_HOME", cache, 1);
	const char *p = make_small("n.weft", 20);
	snprintf(beside, sizeof beside, "%s.weftidx", p);
	FILE *f = fopen(beside, "w");
	CHECK(f && fputs("precious\n", f) >= 0 && !fclose(f));
	struct weft_index_built b;
	CHECK_OK(weft_index_build(p, &b));
	CHECK_EQ(b.in_cache, 2);
	CHECK(!strncmp(b.path, cache, strlen(cache)));
	CHECK_EQ(file_size(beside), 9L);
	struct weft_index *ix = NULL;
	CHECK_OK(weft_index_open(&ix, p, 0, NULL, why, sizeof why));
	weft_index_close(ix);
	/* a symbolic link there: neither it nor what it names is touched */
	snprintf(victim, sizeof victim, "%s", tpath("victim"));
	f = fopen(victim, "w");
	CHECK(f && fputs("v\n", f) >= 0 && !fclose(f));
	CHECK_OK(unlink(beside));
	CHECK_OK(symlink(victim, beside));
	CHECK_OK(unlink(b.path));
	CHECK_OK(weft_index_build(p, &b));
	CHECK_EQ(b.in_cache, 2);
	struct stat sb;
	CHECK_OK(lstat(beside, &sb));
	CHECK(S_ISLNK(sb.st_mode));
	CHECK_EQ(file_size(victim), 2L);
	/* the cache's place not an index either: nothing written */
	char at[4200];
	snprintf(at, sizeof at, "%s", b.path);
	CHECK_OK(unlink(at));
	f = fopen(at, "w");
	CHECK(f && fputs("mine\n", f) >= 0 && !fclose(f));
	CHECK_EQ(weft_index_build(p, &b), -EEXIST);
	CHECK_EQ(file_size(at), 5L);
	CHECK_EQ(file_size(victim), 2L);
	unsetenv("XDG_CACHE_HOME");
}

TEST(the_command)
{
	const char *w = getenv("WEFT_BIN");
	if (!w || access(w, X_OK))
		SKIP("no weft");
	const char *p = make_small("c.weft", 40), *ip = tpath("c.weft.weftidx");
	char cmd[4096], out[1024] = "";
	snprintf(cmd, sizeof cmd, "'%s' index --check '%s' 2>&1", w, p);
	FILE *f = popen(cmd, "r");
	CHECK(f && fgets(out, sizeof out, f));
	CHECK_EQ(WEXITSTATUS(pclose(f)), 1);
	if (!strstr(out, "none, beside the trace or in the cache"))
		FAIL("%s", out);
	snprintf(cmd, sizeof cmd, "'%s' index '%s'", w, p);
	f = popen(cmd, "r");
	CHECK(f && fgets(out, sizeof out, f));
	CHECK_EQ(WEXITSTATUS(pclose(f)), 0);
	/* "PATH: 80 events, B bytes, S s (E events/s)": 40 creates, 40
	 * resolves */
	char want[1200];
	snprintf(want, sizeof want, "%s: %d events, %ld bytes, ", ip, 80,
		 file_size(ip));
	if (strncmp(out, want, strlen(want)))
		FAIL("'%s', not '%s...'", out, want);
	snprintf(cmd, sizeof cmd, "'%s' index --check '%s'", w, p);
	f = popen(cmd, "r");
	CHECK(f && fgets(out, sizeof out, f));
	CHECK_EQ(WEXITSTATUS(pclose(f)), 0);
	snprintf(want, sizeof want, "%s: up to date\n", ip);
	CHECK_STR(out, want);
	unsigned char x = 0x33;
	patch(ip, file_size(ip) - 2, &x, 1);
	snprintf(cmd, sizeof cmd, "'%s' index --check '%s' 2>&1", w, p);
	f = popen(cmd, "r");
	CHECK(f && fgets(out, sizeof out, f));
	CHECK_EQ(WEXITSTATUS(pclose(f)), 1);
	snprintf(want, sizeof want,
		 "weft: index of '%s' at %s: damaged (its checksum)\n", p, ip);
	CHECK_STR(out, want);
	/* not a trace: said, exit 1, nothing written */
	snprintf(cmd, sizeof cmd, "'%s' index -q '%s' 2>&1", w, ip);
	f = popen(cmd, "r");
	CHECK(f && fgets(out, sizeof out, f));
	CHECK_EQ(WEXITSTATUS(pclose(f)), 1);
	if (!strstr(out, "cannot index"))
		FAIL("%s", out);
	CHECK(access(tpath("c.weft.weftidx.weftidx"), F_OK) != 0);
}

static uint64_t fnv64(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* The body's sum (index.c's fnv_words: 8-byte words, then the bytes
 * left over). */
static uint64_t fnv64_words(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		h ^= w;
		h *= 0x100000001b3ull;
	}
	for (; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Crafted indexes: a byte changed anywhere, the checksums made right
 * again (the header's 160 bytes end with the body's sum at 144 and the
 * header's at 152, docs/huge.md).  Each is refused (WEFT_ESTALE) or,
 * when it still makes sense, every part of it reads in bounds (ASan
 * checks that). */
TEST(crafted_indexes_stay_in_bounds)
{
	const char *p = make_small("x.weft", 30), *ip = tpath("x.weft.weftidx");
	weft_index_close(open_built(p, 1));
	size_t n = (size_t)file_size(ip);
	unsigned char *orig = malloc(n), *b = malloc(n);
	FILE *f = fopen(ip, "rb");
	CHECK(f && fread(orig, 1, n, f) == n);
	fclose(f);
	unsigned seed = 7;
	int refused = 0, opened = 0;
	for (int round = 0; round < 400; round++) {
		memcpy(b, orig, n);
		seed = seed * 1103515245u + 12345u;
		/* a third in the header, where the counts are, a third in
		 * the last 2 KiB: the threads and the texts */
		size_t at = round % 3 == 0   ? (seed >> 8) % 144
			    : round % 3 == 1 ? n - 1 - (seed >> 8) % 2048
					     : (seed >> 8) % n;
		if (at >= 144 && at < 160)
			at -= 100;
		b[at] ^= (unsigned char)(1u << (round % 8));
		uint64_t bs = fnv64_words(b + 160, n - 160);
		memcpy(b + 144, &bs, 8);
		uint64_t hs = fnv64(b, 152);
		memcpy(b + 152, &hs, 8);
		f = fopen(ip, "wb");
		CHECK(f && fwrite(b, 1, n, f) == n);
		fclose(f);
		struct weft_index *ix = NULL;
		char why[200];
		int rc = weft_index_open(&ix, p, 0, NULL, why, sizeof why);
		if (rc == WEFT_ESTALE) {
			refused++;
			continue;
		}
		CHECK_OK(rc);
		opened++;
		uint32_t nt, ns, nc, levels = weft_index_levels(ix);
		const struct weft_index_thread *th =
			weft_index_threads(ix, &nt);
		const struct weft_index_stream *st =
			weft_index_streams(ix, &ns);
		weft_index_series(ix, &nc);
		size_t sum = 0;
		for (uint32_t i = 0; i < nt; i++) {
			sum += strlen(weft_index_string(ix, th[i].kind));
			sum += strlen(weft_index_string(ix, th[i].label));
			if (th[i].parent != WEFT_NONE)
				sum += th[th[i].parent].end;
			CHECK(th[i].stream < ns);
		}
		for (uint32_t i = 0; i < ns; i++)
			sum += strlen(weft_index_string(ix, st[i].name));
		for (uint32_t j = 0; j < levels; j++) {
			for (uint32_t s = 0; s < ns; s++) {
				const struct weft_index_bucket *q;
				int64_t f0;
				uint32_t k = weft_index_query(ix, s, j,
							      -WEFT_MODEL_T_MAX,
							      WEFT_MODEL_T_MAX,
							      &q, &f0);
				for (uint32_t i = 0; i < k; i++)
					sum += q[i].threads;
			}
			for (uint32_t c = 0; c < nc; c++) {
				const struct weft_index_range *q;
				int64_t f0;
				uint32_t k = weft_index_counter_query(
					ix, c, j, -WEFT_MODEL_T_MAX,
					WEFT_MODEL_T_MAX, &q, &f0);
				for (uint32_t i = 0; i < k; i++)
					sum += q[i].samples;
			}
		}
		CHECK(sum > 0);
		weft_index_close(ix);
	}
	/* both happen: the counts refused, most of the body's values read */
	CHECK(refused > 50);
	CHECK(opened > 50);
	free(orig);
	free(b);
}

TEST_MAIN(T(index_equals_the_model), T(bucket_bounds),
	  T(level_zero_grows_at_its_bounds), T(labels_beyond_the_memo),
	  T(many_os_threads), T(a_run_of_processes), T(server_shaped),
	  T(stale_another_traces), T(stale_damaged), T(stale_trace_grew),
	  T(stale_ring_went_round), T(read_only_directory),
	  T(never_replaces_what_is_not_an_index), T(the_command),
	  T(crafted_indexes_stay_in_bounds))
