/* SPDX-License-Identifier: MIT */
/* test-layout.c - the library's layout and causal chain (model.h) on
 * server-shaped traces: rows never overlap, stay within twice the peak
 * concurrency plus the long-lived rows, a repeating source keeps one row,
 * rows do not move when a live trace grows; the chain of one request is
 * its connection's few threads and the hubs it touched, a hub is shown
 * but not walked through, depth bounds the steps; two runs side by side
 * (pair.h) keep one time scale and link their selections, with no
 * drawing (test-render checks the picture). */
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../harness.h"
#include "../unit/util.h"
#include "common/format.h"
#include "common/mintree.h"
#include "keys.h"
#include "pair.h"
#include "weft/model.h"
#include "weft/weft.h"

static uint64_t clock_ns;

static void start_manual(const char *path)
{
	CHECK_OK(weft_start(path, 64 << 20, WEFT_DISCARD | WEFT_CLOCK_MANUAL));
	clock_ns = 0;
}

static void tick(uint64_t ns)
{
	clock_ns += ns;
	weft_clock_set(clock_ns);
}

struct trace {
	struct weft_reader *r;
	struct weft_model *m;
	struct weft_layout *l;
	const struct weft_thread *th;
	uint32_t n;
	const int32_t *row;
};

static void open_trace(struct trace *t, const char *path, unsigned flags)
{
	memset(t, 0, sizeof *t);
	CHECK_OK(weft_reader_open(&t->r, path, flags, NULL));
	CHECK_OK(weft_model_load(&t->m, t->r));
	CHECK_OK(weft_layout_new(&t->l, t->m, NULL));
	t->th = weft_model_threads(t->m, &t->n);
	uint32_t nr;
	t->row = weft_layout_rows(t->l, &nr);
	CHECK_EQ(nr, t->n);
}

static void close_trace(struct trace *t)
{
	weft_layout_free(t->l);
	weft_model_free(t->m);
	weft_reader_close(t->r);
}

static uint32_t find(struct trace *t, uint64_t id)
{
	uint32_t x = weft_model_find(t->m, id);
	if (x == WEFT_NONE)
		FAIL("no thread 0x%llx", (unsigned long long)id);
	return x;
}

/* Every row holds threads one after the other, apart by the gap unless
 * one continues the other; every thread but the OS threads has a row. */
static void check_rows(struct trace *t)
{
	struct weft_layout_info in;
	weft_layout_info(t->l, &in);
	uint32_t *last = malloc(((size_t)in.rows + 1) * sizeof *last);
	CHECK(last != NULL);
	for (uint32_t r = 0; r < in.rows; r++)
		last[r] = WEFT_NONE;
	for (uint32_t i = 0; i < t->n; i++) {
		const struct weft_thread *x = &t->th[i];
		if (x->flags & WEFT_THREAD_ROOT) {
			CHECK_EQ(t->row[i], -1);
			continue;
		}
		if (t->row[i] < 0 || (uint32_t)t->row[i] >= in.rows)
			FAIL("thread %u: row %d of %u", i, t->row[i], in.rows);
		uint32_t p = last[t->row[i]];
		last[t->row[i]] = i;
		if (p == WEFT_NONE)
			continue;
		const struct weft_thread *y = &t->th[p];
		if (y->end == WEFT_END_PENDING)
			FAIL("row %d: thread %u after %u, still pending",
			     t->row[i], i, p);
		int64_t gap = x->parent == p && weft_model_continues(t->m, i)
				      ? 0
				      : (y->t_end - y->t_create) / 8 + 1;
		if (x->t_create < y->t_end + gap)
			FAIL("row %d: thread %u at %lld overlaps %u "
			     "(%lld..%lld)",
			     t->row[i], i, (long long)x->t_create, p,
			     (long long)y->t_create, (long long)y->t_end);
	}
	free(last);
}

/* A libuv echo server under load, as the shim records it: the loop, a
 * timer and a listener live throughout; `conns` connections at a time,
 * each a chain of reads (weft_fire: the next read armed as one
 * completes) whose callbacks create a write the loop completes. */
enum { LOOP = 1, TIMER = 2, LISTENER = 3 };
#define CONN(c) (100 + (uint64_t)(c))
#define READ(c, k) (((uint64_t)(c) + 1) << 32 | (uint64_t)(k) << 1)
#define WRITE(c, k) (READ(c, k) | 1)

static void echo_server(const char *path, int conns, int rounds)
{
	start_manual(path);
	tick(1000);
	weft_create(LOOP, "uv_loop_t");
	weft_run(LOOP);
	weft_create(TIMER, "uv_timer_t");
	weft_create(LISTENER, "uv_tcp_t");
	for (int c = 0; c < conns; c++) {
		tick(500);
		weft_run(LISTENER);
		weft_create(CONN(c), "connection");
		weft_create(READ(c, 0), "uv_stream_t read");
		weft_run(LOOP);
	}
	for (int k = 0; k < rounds; k++)
		for (int c = 0; c < conns; c++) {
			tick(1000);
			weft_fire(READ(c, k), READ(c, k + 1));
			tick(200);
			weft_create(WRITE(c, k), "uv_write_t");
			tick(300);
			weft_run(LOOP);
			tick(400);
			weft_resolve(WRITE(c, k));
		}
	tick(1000);
	weft_resolve(TIMER);
	weft_resolve(LISTENER);
	weft_run(0);
	CHECK_OK(weft_stop());
}

TEST(packed_echo_server)
{
	const char *p = tpath("echo.weft");
	echo_server(p, 4, 2000);
	struct trace t;
	open_trace(&t, p, 0);
	check_rows(&t);
	struct weft_layout_info in;
	weft_layout_info(t.l, &in);
	uint32_t peak;
	CHECK_OK(weft_layout_peak(t.l, &peak));
	/* loop, timer, listener, connections and their reads: alive at
	 * once; one write per connection at most */
	CHECK(peak >= 3 + 4 + 4);
	CHECK(peak <= 3 + 4 + 4 + 4);
	if (in.rows > 2 * peak + in.top)
		FAIL("%u rows for a peak of %u and %u long-lived", in.rows,
		     peak, in.top);
	/* the long-lived ones on top: loop, timer, listener */
	CHECK(t.row[find(&t, LOOP)] < (int)in.top);
	CHECK(t.row[find(&t, TIMER)] < (int)in.top);
	CHECK(t.row[find(&t, LISTENER)] < (int)in.top);
	/* a connection's reads: one row; its writes: one row too (each
	 * done before the next is created) */
	for (int c = 0; c < 4; c++) {
		int rr = t.row[find(&t, READ(c, 0))];
		int rw = t.row[find(&t, WRITE(c, 0))];
		for (int k = 1; k <= 2000; k++)
			if (t.row[find(&t, READ(c, k))] != rr)
				FAIL("connection %d: read %d on row %d, not %d",
				     c, k, t.row[find(&t, READ(c, k))], rr);
		for (int k = 1; k < 2000; k++)
			CHECK_EQ(t.row[find(&t, WRITE(c, k))], rw);
		CHECK(rw != rr);
	}
	close_trace(&t);
}

/* A child goes on the row just below its creator when that row is free;
 * threads that overlap in time go on rows of their own. */
TEST(children_near_parents)
{
	const char *p = tpath("tree.weft");
	start_manual(p);
	tick(1000);
	weft_create(1, "loop");
	weft_run(1);
	/* a service that lives 40 % of the trace (not long-lived) runs 20
	 * tasks one after the other, each with a child while it lives;
	 * tasks live some 2 % of the trace (not brief) */
	weft_create(2, "service");
	weft_run(2);
	for (uint64_t i = 0; i < 20; i++) {
		uint64_t a = 1000 + 10 * i;
		tick(100);
		weft_run(2);
		weft_create(a, "task");
		weft_run(a);
		tick(100);
		weft_create(a + 1, "child"); /* while a lives */
		tick(20000);
		weft_resolve(a + 1);
		tick(100);
		weft_run(1);
		weft_resolve(a);
		tick(5000); /* more than an eighth of a task's life */
	}
	weft_run(1);
	weft_resolve(2);
	tick(800000);
	weft_run(0);
	CHECK_OK(weft_stop());
	struct trace t;
	open_trace(&t, p, 0);
	check_rows(&t);
	struct weft_layout_info in;
	weft_layout_info(t.l, &in);
	CHECK_EQ(in.top, 1); /* the loop */
	CHECK_EQ(in.rows, 4);
	int rs = t.row[find(&t, 2)];
	CHECK_EQ(rs, 1);
	for (uint64_t i = 0; i < 20; i++) {
		CHECK_EQ(t.row[find(&t, 1000 + 10 * i)], rs + 1);
		CHECK_EQ(t.row[find(&t, 1000 + 10 * i + 1)], rs + 2);
	}
	close_trace(&t);
}

/* Threads of a kind that lives briefly (requests) gather under the
 * long-lived rows, whoever made them; a connection its listener made
 * takes the last free row. */
TEST(brief_ones_on_top)
{
	const char *p = tpath("brief.weft");
	start_manual(p);
	tick(1000);
	weft_create(1, "loop");
	weft_run(1);
	weft_create(2, "listener");
	for (uint64_t c = 0; c < 8; c++) {
		tick(1000);
		weft_run(2);
		weft_create(100 + c, "connection");
	}
	/* requests made by the connections, one at a time, each 1 us */
	for (uint64_t k = 0; k < 400; k++) {
		tick(2000);
		weft_run(100 + k % 8);
		weft_create(1000 + k, "request");
		tick(1000);
		weft_run(1);
		weft_resolve(1000 + k);
	}
	for (uint64_t c = 0; c < 8; c++) {
		tick(1000);
		weft_resolve(100 + c);
	}
	tick(2000000); /* (the connections: under half the trace) */
	weft_run(0);
	CHECK_OK(weft_stop());
	struct trace t;
	open_trace(&t, p, 0);
	check_rows(&t);
	struct weft_layout_info in;
	weft_layout_info(t.l, &in);
	CHECK_EQ(in.top, 2); /* loop, listener */
	/* every request on the first row under them */
	for (uint64_t k = 0; k < 400; k++)
		CHECK_EQ(t.row[find(&t, 1000 + k)], 2);
	/* the connections below, from the last row up */
	for (uint64_t c = 0; c < 8; c++)
		CHECK(t.row[find(&t, 100 + c)] > 2);
	close_trace(&t);
}

/* A server whose connections mostly close soon but three of eight live
 * most of the trace: those three are connections like the others, not
 * parts of the program; the top rows are the loop and the listener, the
 * requests right under them (what a zoomed view shows in full), the
 * connections and their reads below. */
TEST(long_connections_below_requests)
{
	const char *p = tpath("longconn.weft");
	start_manual(p);
	tick(1000);
	weft_create(1, "loop");
	weft_run(1);
	weft_create(2, "listener");
	for (uint64_t c = 0; c < 8; c++) {
		tick(1000);
		weft_run(2);
		weft_create(100 + c, "connection");
		weft_run(100 + c);
		weft_create(200 + c, "read");
	}
	uint64_t rd[8];
	for (uint64_t c = 0; c < 8; c++)
		rd[c] = 200 + c;
	/* requests made by the connections' reads, one at a time, 1 us */
	for (uint64_t k = 0; k < 400; k++) {
		uint64_t c = k % 8;
		if (c >= 3 && k >= 200)
			c = k % 3; /* (the short ones closed) */
		tick(2000);
		weft_fire(rd[c], 10000 + k);
		rd[c] = 10000 + k;
		weft_create(1000 + k, "request");
		tick(1000);
		weft_run(1);
		weft_resolve(1000 + k);
		if (k == 199)
			for (uint64_t s = 3; s < 8; s++) {
				weft_resolve(rd[s]);
				weft_resolve(100 + s);
			}
	}
	tick(500000);
	for (uint64_t c = 0; c < 3; c++) {
		tick(1000);
		weft_resolve(rd[c]);
		weft_resolve(100 + c);
	}
	weft_run(0);
	CHECK_OK(weft_stop());
	struct trace t;
	open_trace(&t, p, 0);
	check_rows(&t);
	struct weft_layout_info in;
	weft_layout_info(t.l, &in);
	CHECK_EQ(in.top, 2); /* loop, listener */
	CHECK_EQ(t.row[find(&t, 1)], 0);
	CHECK_EQ(t.row[find(&t, 2)], 1);
	for (uint64_t k = 0; k < 400; k++)
		CHECK_EQ(t.row[find(&t, 1000 + k)], 2);
	for (uint64_t c = 0; c < 8; c++) {
		int rc = t.row[find(&t, 100 + c)];
		int rr = t.row[find(&t, 200 + c)];
		if (rc <= 2 || rr <= 2)
			FAIL("connection %llu on row %d, its read on %d",
			     (unsigned long long)c, rc, rr);
	}
	/* a long one's reads: one row, just under its connection */
	for (uint64_t k = 0; k < 400; k++) {
		uint64_t c = k % 8;
		if (c >= 3 && k >= 200)
			c = k % 3;
		CHECK_EQ(t.row[find(&t, 10000 + k)], t.row[find(&t, 200 + c)]);
	}
	for (uint64_t c = 0; c < 3; c++)
		CHECK_EQ(t.row[find(&t, 200 + c)],
			 t.row[find(&t, 100 + c)] + 1);
	close_trace(&t);
}

/* Rows of threads already laid out do not move as a live trace grows. */
/* A trace at `name` recorded on the manual clock, its loop running. */
static const char *loop_trace(const char *name)
{
	const char *p = tpath(name);
	CHECK_OK(weft_start(p, 16 << 20, WEFT_DISCARD | WEFT_CLOCK_MANUAL));
	clock_ns = 0;
	tick(1000);
	weft_create(LOOP, "uv_loop_t");
	weft_run(LOOP);
	return p;
}

TEST(stable_when_live)
{
	const char *p = loop_trace("live.weft");
	uint64_t id = 1000;
	struct trace t;
	int32_t *before = NULL;
	uint32_t nbefore = 0;
	for (int step = 0; step < 6; step++) {
		/* requests of several lengths, some still pending */
		for (int i = 0; i < 300; i++) {
			tick(700);
			weft_run(LOOP);
			weft_create(id, "request");
			if (i % 7 == 3)
				weft_create(id + 1, "held");
			tick(300 + 97 * (uint64_t)(i % 13));
			weft_resolve(id);
			if (i % 11 == 5 && id > 1200)
				weft_resolve(id - 199); /* a held one ends */
			id += 2;
		}
		if (!step) {
			open_trace(&t, p, WEFT_READ_FOLLOW);
		} else {
			CHECK(weft_model_update(t.m) > 0);
			CHECK_OK(weft_layout_update(t.l, NULL));
			t.th = weft_model_threads(t.m, &t.n);
			uint32_t nr;
			t.row = weft_layout_rows(t.l, &nr);
			CHECK_EQ(nr, t.n);
			CHECK(t.n > nbefore);
			for (uint32_t i = 0; i < nbefore; i++)
				if (t.row[i] != before[i])
					FAIL("step %d: thread %u moved from "
					     "row %d "
					     "to %d",
					     step, i, before[i], t.row[i]);
		}
		check_rows(&t);
		free(before);
		before = malloc(t.n * sizeof *before);
		CHECK(before != NULL);
		memcpy(before, t.row, t.n * sizeof *before);
		nbefore = t.n;
	}
	weft_run(0);
	CHECK_OK(weft_stop());
	/* placed as it grew, the rows are as many as a layout made now of
	 * the same threads (the rows' free times refreshed at each update:
	 * held ones ended since) */
	struct weft_layout *fresh;
	CHECK_OK(weft_layout_new(&fresh, t.m, NULL));
	struct weft_layout_info live_in, fresh_in;
	weft_layout_info(t.l, &live_in);
	weft_layout_info(fresh, &fresh_in);
	CHECK_EQ(live_in.threads, fresh_in.threads);
	CHECK_EQ(live_in.rows, fresh_in.rows);
	weft_layout_free(fresh);
	free(before);
	close_trace(&t);
}

/* A thread's group in groups_as_one_by_one: arbitrary (continuations
 * and creators across groups), some in none; group 4 only from thread
 * `late` on (a group that appears as a live trace grows). */
static uint32_t test_group(uint32_t i, uint32_t late)
{
	uint32_t g = (uint32_t)(i * 2654435761u >> 7) % 6;
	return g == 5 || (g == 4 && i < late) ? WEFT_NONE : g;
}

/* Group g's rows by weft_layout_new_groups() (or _update_groups()) are
 * those of a layout of its threads alone (weft_layout_new(), _update()),
 * and so are its counts and peak. */
static void same_rows(struct weft_layout *grp, struct weft_layout *one,
		      uint32_t n, const uint32_t *group, uint32_t g)
{
	uint32_t nm, nr;
	const int32_t *gr;
	const uint32_t *mem = weft_layout_members(grp, &gr, &nm);
	const int32_t *row = weft_layout_rows(one, &nr);
	CHECK(mem != NULL && row != NULL);
	CHECK(weft_layout_rows(grp, &nr) == NULL);
	CHECK(weft_layout_members(one, &gr, &nr) == NULL);
	mem = weft_layout_members(grp, &gr, &nm);
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (row[i] < 0)
			continue;
		CHECK_EQ(group[i], g);
		if (k >= nm || mem[k] != i)
			FAIL("group %u: thread %u laid out alone, not in the "
			     "group's",
			     g, i);
		if (gr[k] != row[i])
			FAIL("group %u: thread %u in row %d, alone %d", g, i,
			     gr[k], row[i]);
		k++;
	}
	CHECK_EQ(k, nm);
	struct weft_layout_info a, b;
	weft_layout_info(grp, &a);
	weft_layout_info(one, &b);
	CHECK_EQ(a.rows, b.rows);
	CHECK_EQ(a.top, b.top);
	CHECK_EQ(a.threads, b.threads);
	uint32_t pa, pb;
	CHECK_OK(weft_layout_peak(grp, &pa));
	CHECK_OK(weft_layout_peak(one, &pb));
	CHECK_EQ(pa, pb);
}

/* Layouts of many groups at once (a run's processes): the same as one
 * layout per group, first and as a live trace grows (a group appearing
 * then: laid out as a first layout of it would be). */
TEST(groups_as_one_by_one)
{
	enum { G = 5 };
	const char *p = loop_trace("groups.weft");
	weft_create(TIMER, "uv_timer_t");
	struct weft_reader *r = NULL;
	struct weft_model *m = NULL;
	struct weft_layout *grp[G] = {0}, *one[G] = {0};
	uint32_t *group = NULL, n = 0, late = 0, from = 0;
	uint64_t id = 1000, held[1024];
	uint32_t nheld = 0;
	for (int step = 0; step < 4; step++) {
		for (int i = 0; i < 400; i++) {
			tick(700);
			weft_run(LOOP);
			weft_create(id, i % 3 ? "request" : "query");
			weft_fire(id, id + 1); /* (its continuation) */
			tick(300 + 97 * (uint64_t)(i % 13));
			weft_resolve(id + 1);
			if (i % 3 == 1) {
				weft_create(id + 2, "held");
				held[nheld++] = id + 2;
			}
			/* a held one ends some 100 requests later: those of
			 * a step's end, after the layout saw them pending */
			if (i % 3 == 0 && nheld > 33)
				weft_resolve(held[nheld - 34]);
			id += 3;
		}
		if (!step) {
			CHECK_OK(weft_reader_open(&r, p, WEFT_READ_FOLLOW,
						  NULL));
			CHECK_OK(weft_model_load(&m, r));
		} else
			CHECK(weft_model_update(m) > 0);
		weft_model_threads(m, &n);
		if (!step)
			late = n; /* (group 4 from the next step on) */
		free(group);
		group = malloc(n * sizeof *group);
		CHECK(group != NULL);
		for (uint32_t i = 0; i < n; i++)
			group[i] = test_group(i, late);
		if (!step)
			CHECK_OK(weft_layout_new_groups(grp, G, m, group));
		else
			CHECK_OK(weft_layout_update_groups(grp, G, m, group,
							   from));
		uint8_t *only = malloc(n);
		CHECK(only != NULL);
		for (uint32_t g = 0; g < G; g++) {
			for (uint32_t i = 0; i < n; i++)
				only[i] = group[i] == g;
			if (!one[g] && memchr(only, 1, n))
				CHECK_OK(weft_layout_new(&one[g], m, only));
			else if (one[g])
				CHECK_OK(weft_layout_update(one[g], only));
			CHECK_EQ(!grp[g], !one[g]);
			if (grp[g])
				same_rows(grp[g], one[g], n, group, g);
		}
		free(only);
		CHECK(step || !grp[4]);
		CHECK(!step || grp[4]);
		CHECK_EQ(weft_layout_update(grp[0], NULL), -EINVAL);
		from = n;
	}
	/* placed as the trace grew, each group uses as many rows as a
	 * layout made now of its threads (rows freed since refreshed) */
	uint8_t *only = malloc(n);
	CHECK(only != NULL);
	for (uint32_t g = 0; g < G; g++) {
		for (uint32_t i = 0; i < n; i++)
			only[i] = group[i] == g;
		struct weft_layout *fresh;
		CHECK_OK(weft_layout_new(&fresh, m, only));
		struct weft_layout_info a, b;
		weft_layout_info(grp[g], &a);
		weft_layout_info(fresh, &b);
		CHECK_EQ(a.threads, b.threads);
		if (a.rows != b.rows)
			FAIL("group %u: %u rows placed live, %u anew", g,
			     a.rows, b.rows);
		weft_layout_free(fresh);
	}
	free(only);
	for (uint32_t g = 0; g < G; g++) {
		weft_layout_free(grp[g]);
		weft_layout_free(one[g]);
	}
	free(group);
	weft_run(0);
	CHECK_OK(weft_stop());
	weft_model_free(m);
	weft_reader_close(r);
}

/* A server as docs/other-loops.md instruments one: a listener creates
 * each connection and reads it when it closes; a connection's reads are a
 * repeating source; each read's callback creates a request, which creates
 * a query, signals the pool and waits; the pool resolves the query, the
 * request reads it, writes its response (the loop completes the write),
 * reads the write and the loop resolves it. */
enum { SLOOP = 1, SLISTENER = 2, SPOOL = 3 };
#define SCONN(c) (1000 + (uint64_t)(c))
#define SREAD(c, k) (0x100000 + (uint64_t)(c)*64 + (uint64_t)(k))
#define SREQ(c, k) (0x200000 + (uint64_t)(c)*64 + (uint64_t)(k))
#define SQUERY(c, k) (0x300000 + (uint64_t)(c)*64 + (uint64_t)(k))
#define SWRITE(c, k) (0x400000 + (uint64_t)(c)*64 + (uint64_t)(k))

static void server(const char *path, int nconn, int nreq)
{
	start_manual(path);
	tick(1000);
	weft_create(SLOOP, "event loop");
	weft_run(SLOOP);
	weft_create(SLISTENER, "tcp listener");
	weft_create(SPOOL, "db pool");
	for (int c = 0; c < nconn; c++) {
		tick(1000);
		weft_run(SLISTENER);
		weft_create(SCONN(c), "connection");
		weft_run(SCONN(c));
		weft_create(SREAD(c, 0), "read");
		for (int k = 0; k < nreq; k++) {
			tick(1000);
			weft_run(SLOOP);
			weft_fire(SREAD(c, k), SREAD(c, k + 1));
			weft_create(SREQ(c, k), "http request");
			weft_run(SREQ(c, k));
			weft_create(SQUERY(c, k), "db query");
			weft_signal(SPOOL);
			weft_try_read(SQUERY(c, k));
			weft_run(SPOOL);
			tick(500);
			weft_resolve(SQUERY(c, k));
			weft_run(SREQ(c, k));
			weft_read(SQUERY(c, k));
			weft_create(SWRITE(c, k), "write");
			weft_try_read(SWRITE(c, k));
			weft_run(SLOOP);
			tick(300);
			weft_resolve(SWRITE(c, k));
			weft_run(SREQ(c, k));
			weft_read(SWRITE(c, k));
			weft_run(SLOOP);
			weft_resolve(SREQ(c, k));
		}
		tick(1000);
		weft_resolve(SREAD(c, nreq));
		weft_resolve(SCONN(c));
		weft_run(SLISTENER);
		weft_read(SCONN(c));
		weft_run(SLOOP);
	}
	weft_run(0);
	CHECK_OK(weft_stop());
}

TEST(chain_of_a_request)
{
	const char *p = tpath("server.weft");
	server(p, 40, 6);
	struct trace t;
	open_trace(&t, p, 0);
	check_rows(&t);
	CHECK(weft_model_is_hub(t.m, find(&t, SLISTENER)));
	CHECK(weft_model_is_hub(t.m, find(&t, SPOOL)));
	CHECK(weft_model_is_hub(t.m, find(&t, SLOOP)));
	CHECK(!weft_model_is_hub(t.m, find(&t, SCONN(7))));
	CHECK(!weft_model_is_hub(t.m, find(&t, SREQ(7, 3))));
	struct weft_chain c = {0};
	CHECK_OK(weft_chain(t.m, find(&t, SREQ(7, 3)), WEFT_CHAIN_ALL, &c));
	/* what led to it: its read, the first read of the connection (what
	 * armed the reads), the connection, the listener (a hub), the loop
	 * (a hub); what it led to: its query, its write, the pool (a hub) */
	static const uint64_t want[] = {SREQ(7, 3),   SREAD(7, 3),  SREAD(7, 0),
					SCONN(7),     SLISTENER,    SLOOP,
					SQUERY(7, 3), SWRITE(7, 3), SPOOL};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++)
		if (!(c.in[find(&t, want[i])] & WEFT_CHAIN_IN))
			FAIL("0x%llx not in the chain",
			     (unsigned long long)want[i]);
	CHECK_EQ(c.size, sizeof want / sizeof *want);
	CHECK_EQ(c.hubs, 3);
	CHECK(c.in[find(&t, SLISTENER)] & WEFT_CHAIN_HUB);
	CHECK(c.in[find(&t, SREQ(7, 3))] & WEFT_CHAIN_SUBJECT);
	CHECK(c.in[find(&t, SCONN(7))] & WEFT_CHAIN_BEFORE);
	CHECK(c.in[find(&t, SWRITE(7, 3))] & WEFT_CHAIN_AFTER);
	/* not the other requests, reads or connections */
	CHECK(!c.in[find(&t, SREAD(7, 2))]);
	CHECK(!c.in[find(&t, SREQ(7, 2))]);
	CHECK(!c.in[find(&t, SCONN(8))]);
	/* depth 1: the direct arrows only (creator, query, write, pool,
	 * loop) */
	CHECK_OK(weft_chain(t.m, find(&t, SREQ(7, 3)), 1, &c));
	CHECK_EQ(c.size, 6);
	CHECK(!c.in[find(&t, SCONN(7))]);
	CHECK(c.in[find(&t, SREAD(7, 3))]);
	/* depth 2: through the read to the source's first read */
	CHECK_OK(weft_chain(t.m, find(&t, SREQ(7, 3)), 2, &c));
	CHECK(c.in[find(&t, SREAD(7, 0))] && !c.in[find(&t, SCONN(7))]);
	/* a connection led to its reads and what they did: its requests,
	 * not the other connections' */
	CHECK_OK(weft_chain(t.m, find(&t, SCONN(7)), WEFT_CHAIN_ALL, &c));
	for (int k = 0; k < 6; k++)
		CHECK(c.in[find(&t, SREQ(7, k))] & WEFT_CHAIN_AFTER);
	CHECK(!c.in[find(&t, SREQ(8, 0))]);
	CHECK(c.size < 6 * 4 + 8 + 4);
	/* the listener itself is walked, as the subject: every connection */
	CHECK_OK(weft_chain(t.m, find(&t, SLISTENER), 1, &c));
	CHECK(c.in[find(&t, SCONN(39))] && c.in[find(&t, SCONN(0))]);
	/* the Chrome export of a chain: its threads, not the others */
	CHECK_OK(weft_chain(t.m, find(&t, SREQ(7, 3)), WEFT_CHAIN_ALL, &c));
	char *json = NULL;
	size_t jl = 0;
	FILE *f = open_memstream(&json, &jl);
	CHECK(f != NULL);
	CHECK_OK(weft_export_chrome_only(t.m, f, c.in));
	fclose(f);
	char id[64];
	snprintf(id, sizeof id, "\"args\":{\"id\":\"0x%llx\"",
		 (unsigned long long)SQUERY(7, 3));
	CHECK(strstr(json, id) != NULL);
	snprintf(id, sizeof id, "\"args\":{\"id\":\"0x%llx\"",
		 (unsigned long long)SQUERY(7, 2));
	CHECK(strstr(json, id) == NULL);
	free(json);
	CHECK_EQ(weft_chain(t.m, t.n + 5, 1, &c), WEFT_EINVAL);
	weft_chain_release(&c);
	close_trace(&t);
}

/* The ARP example's good and bad runs as a pair: the same span from each
 * run's start, kept through zoom and pan in either side; a selection in
 * one selects the aligned thread in the other; lined up at a thread, its
 * creation and its partner's at one x. */
TEST(pair_time_and_selection)
{
	const char *b = getenv("WEFT_BUILD");
	static const char *how[2] = {"good", "bad"};
	struct weft_reader *r[2];
	struct weft_model *m[2];
	char cmd[2048];
	for (int s = 0; s < 2; s++) {
		snprintf(cmd, sizeof cmd,
			 "WEFT_FILE=%s %s/examples/arp %s >/dev/null",
			 tpath(how[s]), b ? b : ".", how[s]);
		if (system(cmd))
			FAIL("cannot run %s", cmd);
		CHECK_OK(weft_reader_open(&r[s], tpath(how[s]), 0, NULL));
		CHECK_OK(weft_model_load(&m[s], r[s]));
	}
	struct weft_pair *p = weft_pair_new(m[0], m[1], "g", "b", 1000, 600);
	CHECK(p != NULL);
	int64_t start[2], end[2];
	for (int s = 0; s < 2; s++)
		weft_model_range(m[s], &start[s], &end[s]);
	/* the same span from each anchor (the first divergence: its time
	 * in each run), in three states: fitted, zoomed in the good side,
	 * panned from the bad one */
	const struct weft_divergence *dv = weft_pair_divergence(p);
	CHECK(dv->kind != WEFT_DIV_NONE);
	int64_t anc[2];
	for (int s = 0; s < 2; s++) {
		anc[s] = weft_pair_anchor_t(p, s);
		CHECK_EQ(anc[s], dv->t[s]);
	}
	for (int k = 0; k < 3; k++) {
		if (k == 1)
			weft_pair_zoom(p, 3, 300);
		if (k == 2) {
			weft_view_pan(weft_pair_view(p, 1), 120, 0);
			weft_pair_sync(p, 1);
		}
		int64_t a[2], z[2];
		for (int s = 0; s < 2; s++)
			weft_view_range(weft_pair_view(p, s), &a[s], &z[s]);
		CHECK_EQ(a[0] - anc[0], a[1] - anc[1]);
		CHECK_EQ(z[0] - a[0], z[1] - a[1]);
		if (k == 0) /* fitted: the longer run whole */
			CHECK(z[0] - a[0] >=
			      (end[0] - start[0] > end[1] - start[1]
				       ? end[0] - start[0]
				       : end[1] - start[1]));
	}
	/* a selection in the good side selects its partner in the bad */
	uint32_t n, tcp = WEFT_NONE;
	char t[256];
	weft_model_threads(m[0], &n);
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(weft_model_title(m[0], i, t, sizeof t), "TCP "
								    "connect"))
			tcp = i;
	CHECK(tcp != WEFT_NONE);
	uint32_t o = weft_pair_select(p, 0, tcp);
	CHECK(o != WEFT_NONE);
	CHECK_STR(weft_model_title(m[1], o, t, sizeof t), "TCP connect");
	CHECK_EQ(weft_view_selected(weft_pair_view(p, 1)), o);
	CHECK_EQ(weft_view_focus(weft_pair_view(p, 1)),
		 weft_view_row(weft_pair_view(p, 1), o));
	/* lined up at it: both creations at one x */
	CHECK_EQ(weft_pair_anchor(p, 0, tcp), 0);
	uint32_t n1;
	double x0 = weft_view_x_of(weft_pair_view(p, 0),
				   weft_model_threads(m[0], &n)[tcp].t_create);
	double x1 = weft_view_x_of(weft_pair_view(p, 1),
				   weft_model_threads(m[1], &n1)[o].t_create);
	if (x0 != x1)
		FAIL("lined up: x %.2f and %.2f", x0, x1);
	weft_pair_free(p);
	for (int s = 0; s < 2; s++) {
		weft_model_free(m[s]);
		weft_reader_close(r[s]);
	}
}

/* Search: the next and the previous match (N, Shift+N) in creation order,
 * round, with four matches (two created at one instant, in id order)
 * among threads that do not match: the previous is not the next. */
TEST(search_next_and_previous)
{
	const char *p = loop_trace("search.weft");
	static const struct {
		uint64_t id;
		const char *kind;
		uint64_t at;
	} mk[] = {
		{0x20, "other", 100},	{0x21, "match A", 100},
		{0x22, "other", 100},	{0x23, "match B", 100},
		{0x24, "match C", 0},	{0x25, "other", 100},
		{0x26, "match D", 100}, {0x27, "other", 100},
	};
	for (size_t i = 0; i < sizeof mk / sizeof *mk; i++) {
		tick(mk[i].at); /* (C created at B's instant) */
		weft_create(mk[i].id, mk[i].kind);
	}
	tick(1000);
	for (size_t i = 0; i < sizeof mk / sizeof *mk; i++)
		weft_resolve(mk[i].id);
	weft_run(0);
	CHECK_OK(weft_stop());
	struct trace t;
	open_trace(&t, p, 0);
	struct weft_view *v = weft_view_new(t.m, 800, 600);
	CHECK(v != NULL);
	CHECK_EQ(weft_view_search(v, "MATCH"), 4);
	uint32_t a = find(&t, 0x21), b = find(&t, 0x23), c = find(&t, 0x24),
		 d = find(&t, 0x26);
	CHECK_EQ(t.th[b].t_create, t.th[c].t_create);
	CHECK(b < c);
	/* nothing selected: next is the first, previous the last */
	CHECK_EQ(weft_view_next_match(v, 1), a);
	weft_view_select(v, WEFT_NONE);
	CHECK_EQ(weft_view_next_match(v, -1), d);
	CHECK_EQ(weft_view_selected(v), d);
	/* forward, round */
	weft_view_select(v, WEFT_NONE);
	const uint32_t fwd[] = {a, b, c, d, a, b};
	for (size_t i = 0; i < sizeof fwd / sizeof *fwd; i++) {
		CHECK_EQ(weft_view_next_match(v, 1), fwd[i]);
		CHECK_EQ(weft_view_selected(v), fwd[i]);
	}
	/* back from b, round */
	const uint32_t back[] = {a, d, c, b, a, d};
	for (size_t i = 0; i < sizeof back / sizeof *back; i++) {
		CHECK_EQ(weft_view_next_match(v, -1), back[i]);
		CHECK_EQ(weft_view_selected(v), back[i]);
	}
	/* from a thread that does not match: the nearest either way */
	weft_view_select(v, find(&t, 0x25));
	CHECK_EQ(weft_view_next_match(v, 1), d);
	weft_view_select(v, find(&t, 0x25));
	CHECK_EQ(weft_view_next_match(v, -1), c);
	/* one match: itself either way */
	CHECK_EQ(weft_view_search(v, "match d"), 1);
	CHECK_EQ(weft_view_next_match(v, -1), d);
	CHECK_EQ(weft_view_next_match(v, 1), d);
	CHECK_EQ(weft_view_search(v, "nothing like it"), 0);
	CHECK_EQ(weft_view_next_match(v, 1), WEFT_NONE);
	weft_view_free(v);
	close_trace(&t);
}

/* The slots' tree (src/common/mintree.h, under the rows and the process
 * lanes): the first and the last slot of a range free strictly before t,
 * against a plain scan, for every range and time over trees of random
 * times (slots freed at the same instant, slots not in use), as it grows;
 * a slot freed at t is not free for what begins at t. */
static uint32_t scan(const int64_t *v, uint32_t lo, uint32_t hi, int64_t t,
		     int last)
{
	uint32_t r = UINT32_MAX;
	for (uint32_t k = lo; k < hi; k++)
		if (v[k] < t && (last || r == UINT32_MAX))
			r = k;
	return r;
}

TEST(mintree_free_before)
{
	int64_t *tree = NULL;
	uint32_t cap = 0;
	int64_t v[40];
	unsigned seed = 7;
	/* the boundary, by hand: slot 0 free at 5, slot 1 at 3 */
	CHECK_OK(weft__mintree_room(&tree, &cap, 1, 0, 4));
	CHECK_EQ(cap, 4);
	weft__mintree_set(tree, cap, 0, 5);
	weft__mintree_set(tree, cap, 1, 3);
	CHECK_EQ(weft__mintree_first(tree, cap, 0, 4, 5), 1);
	CHECK_EQ(weft__mintree_first(tree, cap, 0, 4, 6), 0);
	CHECK_EQ(weft__mintree_last(tree, cap, 0, 4, 5), 1);
	CHECK_EQ(weft__mintree_first(tree, cap, 0, 4, 3), UINT32_MAX);
	CHECK_EQ(weft__mintree_last(tree, cap, 0, 1, 5), UINT32_MAX);
	v[0] = 5;
	v[1] = 3;
	uint32_t used = 2;
	for (int round = 0; round < 300; round++) {
		/* a slot more now and then (the tree doubles), a few set */
		if (used < 40 && rand_r(&seed) % 4 == 0) {
			CHECK_OK(
				weft__mintree_room(&tree, &cap, used, used, 4));
			v[used++] = INT64_MAX;
		}
		for (int k = 0; k < 3; k++) {
			uint32_t s = (uint32_t)rand_r(&seed) % used;
			v[s] = rand_r(&seed) % 8 ? rand_r(&seed) % 12
						 : INT64_MAX;
			weft__mintree_set(tree, cap, s, v[s]);
		}
		for (uint32_t lo = 0; lo <= used; lo++)
			for (uint32_t hi = lo; hi <= used; hi++)
				for (int64_t t = 0; t <= 13; t++) {
					uint32_t f = weft__mintree_first(
							 tree, cap, lo, hi, t),
						 l = weft__mintree_last(
							 tree, cap, lo, hi, t);
					if (f != scan(v, lo, hi, t, 0) ||
					    l != scan(v, lo, hi, t, 1))
						FAIL("[%u, %u) before %lld: "
						     "first %u last %u, wanted "
						     "%u %u",
						     lo, hi, (long long)t, f, l,
						     scan(v, lo, hi, t, 0),
						     scan(v, lo, hi, t, 1));
				}
	}
	free(tree);
}

/* A live run of two processes, A (this one, its ring still written) and
 * B (a child, done): A recorded up to 10 us and the manifest says it
 * exited at 20 us; B ran at 40-61 us, so B's group follows A's in one
 * lane.  Then A's ring gives more, at 80-90 us (what a reader can meet:
 * packets it reads late, a ring that outlives what the manifest says):
 * the two no longer fit one after the other, and the lanes are placed
 * anew, A's and B's apart (src/render/rows.c, lane_lists()). */
#define LBASE INT64_C(1000000000) /* the rings' CLOCK_MONOTONIC origin */

static void set_mono(const char *path, int64_t mono)
{
	int fd = open(path, O_RDWR);
	CHECK(fd >= 0);
	CHECK(pwrite(fd, &mono, 8,
		     (off_t)(offsetof(struct weft__fhdr, a0) +
			     offsetof(struct weft__anchor, mono_ns))) == 8);
	close(fd);
}

TEST(live_run_lanes_placed_anew)
{
	const char *dir = tpath("run");
	CHECK(mkdir(dir, 0700) == 0);
	char a[600], b[600], man[600], text[1024];
	snprintf(a, sizeof a, "%s/ring", dir);
	snprintf(b, sizeof b, "%s/ring.b", dir);
	snprintf(man, sizeof man, "%s/manifest", dir);
	pid_t pb = fork();
	if (pb == 0) {
		if (weft_start(b, 1 << 20, WEFT_CLOCK_MANUAL))
			_exit(3);
		weft_clock_set(50000);
		weft_run(1);
		weft_create(2, "b's work");
		weft_clock_set(60000);
		weft_resolve(2);
		weft_run(0);
		weft_stop();
		_exit(0);
	}
	int st;
	CHECK(waitpid(pb, &st, 0) == pb);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	set_mono(b, LBASE);
	CHECK_OK(weft_start(a, 1 << 20, WEFT_DISCARD | WEFT_CLOCK_MANUAL));
	set_mono(a, LBASE);
	weft_clock_set(1000);
	weft_run(1);
	weft_create(2, "a's work");
	weft_clock_set(10000);
	weft_resolve(2);
	weft_run(0);
	pid_t pa = getpid();
	snprintf(text, sizeof text,
		 "weft-run version=1 session=ab\n"
		 "proc pid=%d ppid=1 start=7 t=%lld exe=/bin/a arg=a\n"
		 "ring pid=%d file=ring t=%lld\n"
		 "exit pid=%d status=0 t=%lld\n"
		 "proc pid=%d ppid=1 start=8 t=%lld exe=/bin/b arg=b\n"
		 "ring pid=%d file=ring.b t=%lld\n"
		 "exit pid=%d status=0 t=%lld\n",
		 pa, (long long)LBASE, pa, (long long)LBASE, pa,
		 (long long)LBASE + 20000, pb, (long long)LBASE + 40000, pb,
		 (long long)LBASE + 40000, pb, (long long)LBASE + 61000);
	FILE *f = fopen(man, "w");
	CHECK(f && fputs(text, f) >= 0 && fclose(f) == 0);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, dir, WEFT_READ_FOLLOW, NULL));
	struct weft_model *m;
	CHECK_OK(weft_model_load(&m, r));
	uint32_t np;
	weft_model_processes(m, &np);
	CHECK_EQ(np, 2);
	struct weft_view *v = weft_view_new(m, 1000, 600);
	CHECK(v != NULL);
	/* (the precondition: one lane, A's group then B's) */
	int ha = weft_view_header_row(v, 0), hb = weft_view_header_row(v, 1);
	if (ha < 0 || ha != hb)
		FAIL("before: header rows %d and %d, wanted one lane", ha, hb);
	/* A again, at 80 us: its group now spans B's */
	weft_clock_set(80000);
	weft_run(1);
	weft_create(3, "a's later work");
	weft_clock_set(90000);
	weft_resolve(3);
	weft_run(0);
	CHECK(weft_model_update(m) > 0);
	weft_view_model_changed(v);
	ha = weft_view_header_row(v, 0);
	hb = weft_view_header_row(v, 1);
	if (ha < 0 || hb < 0 || ha == hb)
		FAIL("after A grew past B's start: header rows %d and %d", ha,
		     hb);
	CHECK_OK(weft_stop());
	weft_view_free(v);
	weft_model_free(m);
	weft_reader_close(r);
}

/* The viewers' key table (keys.h): every key's action and argument, in
 * both viewers; ':' (the query bar) GTK's only; a capital letter with
 * no row of its own is its small letter's, "N" is not "n"'s; keys the
 * table lacks find nothing.  (The help's text: both viewers' tests
 * compare it with tests/render/keys-help.txt.) */
TEST(key_table)
{
	static const struct {
		const char *key;
		enum weft_key_do what;
		int arg;
	} want[] = {
		{"w", WEFT_DO_ZOOM, 1},		{"W", WEFT_DO_ZOOM, 1},
		{"+", WEFT_DO_ZOOM, 1},		{"s", WEFT_DO_ZOOM, -1},
		{"-", WEFT_DO_ZOOM, -1},	{"a", WEFT_DO_PAN, -1},
		{"ArrowLeft", WEFT_DO_PAN, -1}, {"d", WEFT_DO_PAN, 1},
		{"ArrowRight", WEFT_DO_PAN, 1}, {"f", WEFT_DO_FIT, 0},
		{"ArrowUp", WEFT_DO_FOCUS, -1}, {"ArrowDown", WEFT_DO_FOCUS, 1},
		{"PageUp", WEFT_DO_FOCUS, -10}, {"PageDown", WEFT_DO_FOCUS, 10},
		{"c", WEFT_DO_CONNECTED, 0},	{"1", WEFT_DO_DEPTH, 1},
		{"2", WEFT_DO_DEPTH, 2},	{"3", WEFT_DO_DEPTH, 3},
		{"0", WEFT_DO_DEPTH, 0},	{"n", WEFT_DO_MATCH, 1},
		{"N", WEFT_DO_MATCH, -1},	{"z", WEFT_DO_ZOOM_MEASURE, 0},
		{"p", WEFT_DO_PATH, 0},		{"P", WEFT_DO_PATH, 0},
		{"l", WEFT_DO_ALIGN, 0},	{"Escape", WEFT_DO_CLEAR, 0},
		{"?", WEFT_DO_HELP, 0},		{"t", WEFT_DO_THEME, 0},
		{"v", WEFT_DO_STATE, 0},	{"b", WEFT_DO_BOOKMARK, 0},
		{"]", WEFT_DO_MARK, 1},		{"[", WEFT_DO_MARK, -1},
	};
	static const unsigned viewers[] = {WEFT_KEYS_GTK, WEFT_KEYS_WEB};
	for (size_t v = 0; v < 2; v++)
		for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
			const struct weft_key *k =
				weft_key_find(want[i].key, viewers[v]);
			if (!k || k->what != want[i].what ||
			    k->arg != want[i].arg)
				FAIL("viewer %u, key '%s': %s %d, wanted %s %d",
				     viewers[v], want[i].key,
				     k ? weft_key_do_name(k->what) : "none",
				     k ? k->arg : 0,
				     weft_key_do_name(want[i].what),
				     want[i].arg);
		}
	const struct weft_key *q = weft_key_find(":", WEFT_KEYS_GTK);
	CHECK(q && q->what == WEFT_DO_QUERY);
	CHECK(weft_key_find(":", WEFT_KEYS_WEB) == NULL);
	static const char *const none[] = {"x",	 "X",	  "Enter",  "4",     "",
					   "ww", "Arrow", "escape", "ESCAPE"};
	for (size_t i = 0; i < sizeof none / sizeof *none; i++)
		if (weft_key_find(none[i], WEFT_KEYS_ALL))
			FAIL("key '%s' has an action", none[i]);
	CHECK(weft_key_find(NULL, WEFT_KEYS_ALL) == NULL);
	/* every row is one the lists above name (no key untested), the
	 * actions' names distinct */
	CHECK_EQ(weft_nkeys, sizeof want / sizeof *want - 2 + 1);
	for (int i = 0; i < WEFT_DO_N; i++) {
		CHECK(weft_key_do_name((enum weft_key_do)i) != NULL);
		for (int j = 0; j < i; j++)
			CHECK(strcmp(weft_key_do_name((enum weft_key_do)i),
				     weft_key_do_name((enum weft_key_do)j)));
	}
	CHECK(weft_key_do_name(WEFT_DO_N) == NULL);
	CHECK_STR(weft_key_do_name(WEFT_DO_ZOOM_MEASURE), "zoom-measure");
}

TEST_MAIN(T(packed_echo_server), T(children_near_parents), T(brief_ones_on_top),
	  T(long_connections_below_requests), T(stable_when_live),
	  T(groups_as_one_by_one), T(chain_of_a_request),
	  T(pair_time_and_selection), T(search_next_and_previous),
	  T(mintree_free_before), T(live_run_lanes_placed_anew), T(key_table))
