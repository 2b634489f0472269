/* SPDX-License-Identifier: MIT */
/*
 * test-run.c - several rings read as one trace: the merge in time order on
 * one axis, ids, names and streams made unique, the process table from a
 * manifest, the process threads (creation by the spawning thread, exec as
 * becomes, exit resolving the spawn request), bundles and their cut, and
 * hostile manifests and bundles.
 *
 * Each ring is recorded by a process of its own with the manual clock,
 * and its start anchor is then set to a known instant, so that every time
 * on the merged axis is exact.
 */
#include <fcntl.h>
#include <stddef.h>
#include <sys/wait.h>

#include "../harness.h"
#include "util.h"
#include "weft/model.h"
#include "weft/weft.h"

#include "../../src/common/format.h"
#include "../../src/common/next-reader.h"

#define BASE INT64_C(1000000000) /* the rings' CLOCK_MONOTONIC origin */
#define XTAG (0x3FFEull << 48)	 /* process threads */

/* Records `fn` into `path` in a new process with the manual clock; the
 * ring's start is then set to CLOCK_MONOTONIC `mono`.  Returns its pid. */
static pid_t record(const char *path, void (*fn)(void), int64_t mono)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (weft_start(path, 1 << 20, WEFT_CLOCK_MANUAL))
			_exit(3);
		fn();
		weft_stop();
		_exit(0);
	}
	int st;
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK_EQ(WEXITSTATUS(st), 0);
	int fd = open(path, O_RDWR);
	CHECK(fd >= 0);
	CHECK(pwrite(fd, &mono, 8,
		     offsetof(struct weft__fhdr, a0) +
			     offsetof(struct weft__anchor, mono_ns)) == 8);
	close(fd);
	return pid;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	fputs(text, f);
	fclose(f);
}

static void ring_a(void)
{
	weft_clock_set(100);
	weft_run(1);
	weft_clock_set(300);
	weft_create(2, "req");
	weft_clock_set(500);
	weft_run(0);
}

static void ring_b(void)
{
	weft_clock_set(200);
	weft_run(1);
	weft_clock_set(400);
	weft_create(3, "req");
	weft_label(3, "b's");
	weft_clock_set(450);
	weft_create(4, "other");
	weft_clock_set(600);
	weft_run(0);
}

/* The events of `path` that came from the rings (not made by the merge:
 * those concern process threads). */
static struct ttrace real_events(const char *path)
{
	struct ttrace t = tread(path);
	size_t k = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct weft_event *e = &t.ev[i].e;
		int made = (e->id & (0x3FFFull << 48)) == XTAG &&
			   e->type != WEFT_EV_RUN;
		if (!made)
			t.ev[k++] = t.ev[i];
	}
	t.n = k;
	return t;
}

TEST(merged_in_time_order)
{
	const char *dir = tpath("run");
	CHECK(mkdir(dir, 0700) == 0);
	char a[600], b[600];
	snprintf(a, sizeof a, "%s/ring", dir);
	snprintf(b, sizeof b, "%s/ring.2", dir);
	pid_t pa = record(a, ring_a, BASE);
	pid_t pb = record(b, ring_b, BASE + 50);

	struct ttrace t = real_events(dir);
	CHECK_EQ(t.n, 8);
	static const struct {
		int type;
		int64_t ns;
		uint64_t id;
		uint32_t stream;
	} want[] = {
		{WEFT_EV_RUN, 100, 1, 0},
		{WEFT_EV_RUN, 250, 1ull << 48 | 1, 1},
		{WEFT_EV_CREATE, 300, 2, 0},
		{WEFT_EV_CREATE, 450, 1ull << 48 | 3, 1},
		{WEFT_EV_LABEL, 450, 1ull << 48 | 3, 1},
		{WEFT_EV_RUN, 500, 0, 0},
		{WEFT_EV_CREATE, 500, 1ull << 48 | 4, 1},
		{WEFT_EV_RUN, 650, 0, 1},
	};
	for (size_t i = 0; i < t.n; i++) {
		const struct weft_event *e = &t.ev[i].e;
		CHECK_EQ(e->type, want[i].type);
		CHECK_EQ(e->ns, want[i].ns);
		CHECK_U64(e->id, want[i].id);
		CHECK_EQ(e->stream, want[i].stream);
	}
	/* raw ticks are kept: ring b's own clock */
	CHECK_U64(t.ev[1].e.ts, 200);
	/* one name for "req" in both rings, "other" after */
	CHECK_EQ(t.ev[2].e.name, t.ev[3].e.name);
	CHECK_STR(t.ev[3].name, "req");
	CHECK_STR(t.ev[6].name, "other");
	CHECK(t.ev[6].e.name != t.ev[3].e.name);
	/* the actor of ring b's events, its own thread 1, tagged */
	CHECK_U64(t.ev[3].e.actor, 1ull << 48 | 1);
	CHECK_STR(t.ev[4].text, "b's");

	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, dir, 0, NULL));
	uint32_t n;
	const struct weft_process *p = weft_reader_processes(r, &n);
	CHECK_EQ(n, 2);
	CHECK_EQ(p[0].pid, (uint32_t)pa);
	CHECK_EQ(p[1].pid, (uint32_t)pb);
	CHECK_EQ(p[1].t_start, 50);
	CHECK_EQ(weft_reader_stream_process(r, 0), 0);
	CHECK_EQ(weft_reader_stream_process(r, 1), 1);
	CHECK_U64(p[0].thread, XTAG | 1);
	CHECK_U64(p[1].thread, XTAG | 2);
	const struct weft_trace_info *in = weft_reader_info(r);
	CHECK_EQ(in->nstreams, 2);
	weft_reader_close(r);
}

/* A run directory `dir` (made) with a's ring (what `fa` records, at
 * BASE) and, with `fb`, b's (at BASE + 50, named ring.b); the manifest's
 * path.  two_rings(): ring_a's, and with `b` ring_b's. */
struct two_rings {
	char a[700], b[700], man[700];
	pid_t pa, pb;
};

static void rings_of(struct two_rings *w, const char *dir, void (*fa)(void),
		     void (*fb)(void))
{
	CHECK(mkdir(dir, 0700) == 0);
	snprintf(w->a, sizeof w->a, "%s/ring", dir);
	snprintf(w->b, sizeof w->b, "%s/ring.b", dir);
	snprintf(w->man, sizeof w->man, "%s/manifest", dir);
	w->pa = record(w->a, fa, BASE);
	w->pb = fb ? record(w->b, fb, BASE + 50) : 0;
}

static void two_rings(struct two_rings *w, const char *dir, int b)
{
	rings_of(w, dir, ring_a, b ? ring_b : NULL);
}

TEST(process_threads_from_a_manifest)
{
	const char *dir = tpath("run");
	struct two_rings w;
	two_rings(&w, dir, 1);
	pid_t pa = w.pa, pb = w.pb;
	char text[2048];
	/* b forked at 150 by a's thread 1 (a spawn request), exec'd /bin/b,
	 * exited 3 at 700; a exited 0 at 900. */
	snprintf(text, sizeof text,
		 "weft-run version=1 session=ab\n"
		 "proc pid=%d ppid=1 start=7 t=%lld exe=/bin/a arg=a "
		 "arg=--x%%20y\n"
		 "this line is garbage\n"
		 "fork pid=%d ppid=%d tid=%d by=1 spawn=1 t=%lld\n"
		 "proc pid=%d ppid=%d start=8 t=%lld exe=/bin/b arg=b\n"
		 "ring pid=%d file=ring t=%lld\n"
		 "ring pid=%d file=ring.b t=%lld\n"
		 "exit pid=%d status=3 t=%lld\n"
		 "exit pid=%d status=0 t=%lld\n",
		 pa, (long long)BASE - 10, pb, pa, pa, (long long)BASE + 150,
		 pb, pa, (long long)BASE + 160, pa, (long long)BASE, pb,
		 (long long)BASE + 50, pb, (long long)BASE + 700, pa,
		 (long long)BASE + 900);
	write_file(w.man, text);

	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, dir, 0, NULL));
	struct weft_model *m;
	CHECK_OK(weft_model_load(&m, r));
	uint32_t n;
	const struct weft_process *p = weft_reader_processes(r, &n);
	CHECK_EQ(n, 2);
	CHECK_STR(p[0].exe, "/bin/a");
	CHECK_EQ(p[0].argc, 2);
	CHECK_STR(p[0].argv[1], "--x y");
	CHECK_EQ(p[0].t_start, -10);
	CHECK_EQ(p[1].parent, 0);
	CHECK_EQ(p[1].t_start, 150);
	CHECK_EQ(p[1].t_end, 700);
	CHECK_EQ(p[1].end, WEFT_PROC_EXITED);
	CHECK_EQ(p[1].status, 3);
	CHECK_U64(p[1].creator, 1);
	CHECK_STR(p[1].comm, "b");

	uint32_t nth, narr;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_arrow *ar = weft_model_arrows(m, &narr);
	uint32_t xa = weft_model_find(m, XTAG | 1);
	uint32_t xb = weft_model_find(m, XTAG | 2);
	uint32_t a1 = weft_model_find(m, 1);
	CHECK(xa != WEFT_NONE && xb != WEFT_NONE && a1 != WEFT_NONE);
	/* a's process thread has no creator in the run: created by none
	 * (its OS thread's root, as a program's first threads are), of kind
	 * "process" all the same */
	CHECK(!(th[xa].flags & WEFT_THREAD_NO_CREATE));
	CHECK(th[xa].parent != WEFT_NONE &&
	      (th[th[xa].parent].flags & WEFT_THREAD_ROOT));
	CHECK_STR(weft_model_name(m, th[xa].kind), "process");
	CHECK_EQ(th[xa].end, WEFT_END_RESOLVED);
	CHECK_EQ(th[xa].t_end, 900);
	/* b's: created by a's thread 1 at the fork, failed with how */
	CHECK_EQ(th[xb].parent, a1);
	CHECK_EQ(th[xb].t_create, 150);
	CHECK_EQ(th[xb].end, WEFT_END_FAILED);
	CHECK_STR(weft_model_string(m, th[xb].message), "exited with status 3");
	CHECK_EQ(th[xb].t_end, 700);
	char buf[200];
	snprintf(text, sizeof text, "b (pid %d): b", pb);
	CHECK_STR(weft_model_title(m, xb, buf, sizeof buf), text);
	/* b's exit resolves the spawn request; b's thread acts where b's
	 * main OS thread runs nothing: it created b's thread 1 */
	int create = 0, resolve = 0;
	for (uint32_t i = 0; i < narr; i++) {
		if (ar[i].kind == WEFT_ARROW_CREATE && ar[i].from == a1 &&
		    ar[i].to == xb && ar[i].t == 150)
			create++;
		if (ar[i].kind == WEFT_ARROW_RESOLVE && ar[i].from == xb &&
		    ar[i].to == a1 && ar[i].t == 700)
			resolve++;
	}
	CHECK_EQ(create, 1);
	CHECK_EQ(resolve, 1);
	/* the manifest's bad line is reported, once */
	unsigned np;
	const struct weft_problem *pr = weft_reader_problems(r, &np);
	CHECK_EQ(np, 1);
	CHECK(strstr(pr[0].what, "manifest: 1 bad line (first: line 3: "));
	CHECK_U64(pr[0].offset, WEFT_PROBLEM_NO_OFFSET);
	weft_model_free(m);
	weft_reader_close(r);
}

/* b runs its thread 5 and exits in that callback; a goes on. */
static void ring_b_exits_running(void)
{
	weft_clock_set(200);
	weft_run(5);
	weft_clock_set(300);
	weft_create(6, "req");
}

static void ring_a_longer(void)
{
	weft_clock_set(100);
	weft_run(1);
	weft_clock_set(500);
	weft_run(0);
	weft_clock_set(900);
	weft_run(1);
	weft_clock_set(950);
	weft_run(0);
}

/* A process that exits in a callback: the run it was in ends at its last
 * event, not where the run's other processes stopped (a white line to
 * the right edge, across the groups that come after it in its lane). */
TEST(a_run_ends_with_its_process)
{
	const char *dir = tpath("run");
	struct two_rings w;
	rings_of(&w, dir, ring_a_longer, ring_b_exits_running);
	pid_t pa = w.pa, pb = w.pb;
	char text[2048];
	snprintf(text, sizeof text,
		 "weft-run version=1 session=ab\n"
		 "proc pid=%d ppid=1 start=7 t=%lld exe=/bin/a arg=a\n"
		 "fork pid=%d ppid=%d tid=%d by=1 spawn=0 t=%lld\n"
		 "proc pid=%d ppid=%d start=8 t=%lld exe=/bin/b arg=b\n"
		 "ring pid=%d file=ring t=%lld\n"
		 "ring pid=%d file=ring.b t=%lld\n"
		 "exit pid=%d status=0 t=%lld\n"
		 "exit pid=%d status=0 t=%lld\n",
		 pa, (long long)BASE - 10, pb, pa, pa, (long long)BASE + 40, pb,
		 pa, (long long)BASE + 45, pa, (long long)BASE, pb,
		 (long long)BASE + 50, pb, (long long)BASE + 400, pa,
		 (long long)BASE + 1000);
	write_file(w.man, text);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, dir, 0, NULL));
	struct weft_model *m;
	CHECK_OK(weft_model_load(&m, r));
	uint32_t n5 = weft_model_find(m, 1ull << 48 | 5), nr, k;
	uint32_t a1 = weft_model_find(m, 1);
	CHECK(n5 != WEFT_NONE && a1 != WEFT_NONE);
	const struct weft_run *run = weft_model_runs(m, &nr);
	const uint32_t *ix = weft_model_thread_runs(m, n5, &k);
	CHECK_EQ(k, 1);
	CHECK_EQ(run[ix[0]].t0, 250);
	CHECK_EQ(run[ix[0]].t1, 400); /* (b's exit: its stream's last event) */
	/* a's, closed by a itself: as recorded */
	ix = weft_model_thread_runs(m, a1, &k);
	CHECK_EQ(k, 2);
	CHECK_EQ(run[ix[1]].t0, 900);
	CHECK_EQ(run[ix[1]].t1, 950);
	weft_model_free(m);
	weft_reader_close(r);
}

/* posix_spawn: the parent says which thread started the child (a spawn
 * line), before or after the child's own proc line; a spawn line of a
 * child that is not its own, or that a fork line already named, changes
 * nothing. */
TEST(posix_spawned_in_either_order)
{
	for (int order = 0; order < 3; order++) {
		char dir[600], text[2048], spawn[200], proc[200];
		snprintf(dir, sizeof dir, "%s%d", tpath("sp"), order);
		struct two_rings w;
		two_rings(&w, dir, 1);
		pid_t pa = w.pa, pb = w.pb;
		snprintf(spawn, sizeof spawn,
			 "spawn pid=%d child=%d tid=%d by=1 spawn=0 t=%lld\n",
			 order == 2 ? pb : pa, pb, pa, (long long)BASE + 170);
		snprintf(proc, sizeof proc,
			 "proc pid=%d ppid=%d start=8 t=%lld exe=/bin/b\n", pb,
			 pa, (long long)BASE + 160);
		snprintf(text, sizeof text,
			 "weft-run version=1 session=ab\n"
			 "proc pid=%d ppid=1 start=7 t=%lld exe=/bin/a\n"
			 "%s%s"
			 "ring pid=%d file=ring t=%lld\n"
			 "ring pid=%d file=ring.b t=%lld\n",
			 pa, (long long)BASE - 10, order ? proc : spawn,
			 order ? spawn : proc, pa, (long long)BASE, pb,
			 (long long)BASE + 50);
		write_file(w.man, text);
		struct weft_reader *r;
		CHECK_OK(weft_reader_open(&r, dir, 0, NULL));
		uint32_t n;
		const struct weft_process *p = weft_reader_processes(r, &n);
		CHECK_EQ(n, 2);
		CHECK_EQ(p[1].parent, 0);
		CHECK_STR(p[1].exe, "/bin/b");
		if (order == 2) { /* b says it started itself: not believed */
			CHECK_U64(p[1].creator, XTAG | 1);
			CHECK_EQ(p[1].t_start, 160);
		} else {
			/* by a's thread 1; it started when it loaded (the
			 * parent spoke after), or when the parent said */
			CHECK_U64(p[1].creator, 1);
			CHECK_EQ(p[1].t_start, order ? 160 : 170);
		}
		weft_reader_close(r);
	}
}

/* A fork through the preloaded shim's fork(): the parent says it once
 * fork() returned (a spawn line, timed before the fork), which may come
 * after the child's image loaded with no start token, and after it
 * ended.  An older process of the same pid that vanished without an exit
 * line, under another parent, is not taken for the image before. */
TEST(fork_said_by_the_parent)
{
	const char *dir = tpath("run");
	struct two_rings w;
	two_rings(&w, dir, 1);
	pid_t pa = w.pa, pb = w.pb;
	char text[2048];
	snprintf(text, sizeof text,
		 "weft-run version=1 session=ab\n"
		 "proc pid=%d ppid=1 start=7 t=%lld exe=/bin/a\n"
		 "ring pid=%d file=ring t=%lld\n"
		 "proc pid=%d ppid=1 start=3 t=%lld exe=/bin/old\n"
		 "proc pid=%d ppid=%d start=0 t=%lld exe=/bin/b\n"
		 "ring pid=%d file=ring.b t=%lld\n"
		 "exit pid=%d status=4 t=%lld\n"
		 "spawn pid=%d child=%d tid=%d by=1 spawn=1 t=%lld\n",
		 pa, (long long)BASE - 10, pa, (long long)BASE, pb,
		 (long long)BASE + 20, pb, pa, (long long)BASE + 160, pb,
		 (long long)BASE + 50, pb, (long long)BASE + 700, pa, pb, pa,
		 (long long)BASE + 150);
	write_file(w.man, text);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, dir, 0, NULL));
	uint32_t n;
	const struct weft_process *p = weft_reader_processes(r, &n);
	CHECK_EQ(n, 3);
	uint32_t ia = n, iold = n, ib = n;
	for (uint32_t k = 0; k < n; k++) {
		if (!strcmp(p[k].exe, "/bin/a"))
			ia = k;
		else if (!strcmp(p[k].exe, "/bin/old"))
			iold = k;
		else if (!strcmp(p[k].exe, "/bin/b"))
			ib = k;
	}
	CHECK(ia < n && iold < n && ib < n);
	CHECK_EQ(p[iold].end, WEFT_PROC_VANISHED);
	CHECK_EQ(p[iold].next_image, WEFT_NO_PROCESS);
	CHECK_EQ(p[ib].prev_image, WEFT_NO_PROCESS);
	CHECK_EQ(p[ib].parent, ia);
	CHECK_U64(p[ib].creator, 1);
	CHECK_EQ(p[ib].t_start, 150);
	CHECK_EQ(p[ib].end, WEFT_PROC_EXITED);
	CHECK_EQ(p[ib].status, 4);
	CHECK_EQ(p[ib].t_end, 700);
	CHECK_STR(p[ib].ring, w.b);
	weft_reader_close(r);
}

/* The parent's line for a forked child comes once fork() returned there:
 * the child may have forked a child of its own, and ended, before it.
 * The grandchild waits for its parent's entry; the child that never
 * exec'd runs its parent's program (fork=1); both end as they said. */
TEST(a_child_before_its_parents_line)
{
	const char *dir = tpath("run");
	struct two_rings w;
	two_rings(&w, dir, 0);
	pid_t pa = w.pa;
	char text[2048];
	unsigned x = (unsigned)pa + 1000, gc = (unsigned)pa + 1001;
	snprintf(text, sizeof text,
		 "weft-run version=1 session=ab\n"
		 "proc pid=%d ppid=1 start=7 t=%lld exe=/bin/a arg=a arg=-v\n"
		 "ring pid=%d file=ring t=%lld\n"
		 "proc pid=%u ppid=%u start=0 t=%lld exe=/bin/gc arg=gc\n"
		 "exit pid=%u status=2 t=%lld\n"
		 "spawn pid=%u child=%u tid=%u by=0 spawn=0 fork=1 t=%lld\n"
		 "exit pid=%u status=0 t=%lld\n"
		 "spawn pid=%d child=%u tid=%d by=1 spawn=1 fork=1 t=%lld\n",
		 pa, (long long)BASE - 10, pa, (long long)BASE, gc, x,
		 (long long)BASE + 170, gc, (long long)BASE + 200, x, gc, x,
		 (long long)BASE + 165, x, (long long)BASE + 300, pa, x, pa,
		 (long long)BASE + 150);
	write_file(w.man, text);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, dir, 0, NULL));
	uint32_t n;
	const struct weft_process *p = weft_reader_processes(r, &n);
	CHECK_EQ(n, 3);
	uint32_t ia = n, ix = n, ig = n;
	for (uint32_t k = 0; k < n; k++) {
		if (p[k].pid == (uint32_t)pa)
			ia = k;
		else if (p[k].pid == x)
			ix = k;
		else if (p[k].pid == gc)
			ig = k;
	}
	CHECK(ia < n && ix < n && ig < n);
	/* the child: the parent's program, from the fork to its exit */
	CHECK_EQ(p[ix].parent, ia);
	CHECK_EQ(p[ix].ppid, (uint32_t)pa);
	CHECK_STR(p[ix].exe, "/bin/a");
	CHECK_EQ(p[ix].argc, 2);
	CHECK_STR(p[ix].argv[1], "-v");
	CHECK_EQ(p[ix].t_start, 150);
	CHECK_EQ(p[ix].end, WEFT_PROC_EXITED);
	CHECK_EQ(p[ix].status, 0);
	CHECK_EQ(p[ix].t_end, 300);
	/* the grandchild: its own image, under the child */
	CHECK_EQ(p[ig].parent, ix);
	CHECK_STR(p[ig].exe, "/bin/gc");
	CHECK_EQ(p[ig].t_start, 165);
	CHECK_EQ(p[ig].end, WEFT_PROC_EXITED);
	CHECK_EQ(p[ig].status, 2);
	CHECK_EQ(p[ig].t_end, 200);
	weft_reader_close(r);
}

static void image_1(void)
{
	weft_clock_set(10);
	weft_run(7);
	weft_clock_set(20);
	weft_run(0);
}

/* One process, two images: the ring of each, the second after exec. */
TEST(exec_becomes)
{
	const char *dir = tpath("run");
	CHECK(mkdir(dir, 0700) == 0);
	char a[600], b[600], man[600], text[1024];
	snprintf(a, sizeof a, "%s/ring", dir);
	snprintf(b, sizeof b, "%s/ring.1", dir);
	snprintf(man, sizeof man, "%s/manifest", dir);
	pid_t pid = record(a, image_1, BASE);
	/* (a second process stands for the new image: the ring's pid is
	 * what the manifest names) */
	record(b, ring_b, BASE + 100);
	int fd = open(b, O_RDWR);
	uint32_t p32 = (uint32_t)pid;
	CHECK(pwrite(fd, &p32, 4, offsetof(struct weft__fhdr, pid)) == 4);
	close(fd);
	snprintf(text, sizeof text,
		 "proc pid=%d ppid=1 start=5 t=%lld exe=/bin/sh arg=sh\n"
		 "ring pid=%d file=ring t=%lld\n"
		 "proc pid=%d ppid=1 start=5 t=%lld exe=/bin/srv arg=srv\n"
		 "ring pid=%d file=ring.1 t=%lld\n"
		 "reaped pid=%d signal=9 t=%lld\n",
		 pid, (long long)BASE, pid, (long long)BASE, pid,
		 (long long)BASE + 90, pid, (long long)BASE + 100, pid,
		 (long long)BASE + 1000);
	write_file(man, text);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, dir, 0, NULL));
	struct weft_model *m;
	CHECK_OK(weft_model_load(&m, r));
	uint32_t n;
	const struct weft_process *p = weft_reader_processes(r, &n);
	CHECK_EQ(n, 2);
	CHECK_EQ(p[0].end, WEFT_PROC_EXECED);
	CHECK_EQ(p[0].next_image, 1);
	CHECK_EQ(p[1].prev_image, 0);
	CHECK_EQ(p[1].image, 1);
	CHECK_EQ(p[1].end, WEFT_PROC_SIGNALED);
	CHECK_EQ(p[1].status, 9);
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	uint32_t x0 = weft_model_find(m, XTAG | 1);
	uint32_t x1 = weft_model_find(m, XTAG | 2);
	CHECK_EQ(th[x0].end, WEFT_END_BECAME);
	CHECK_EQ(th[x0].became, x1);
	CHECK_EQ(th[x1].parent, x0);
	CHECK_EQ(th[x1].end, WEFT_END_FAILED);
	CHECK_STR(weft_model_string(m, th[x1].message), "killed by signal 9 "
							"(SIGKILL)");
	CHECK_EQ(th[x1].t_end, 1000);
	weft_model_free(m);
	weft_reader_close(r);
}

/* A large build's run: tens of thousands of processes, their pids used
 * again and again, each forked, exec'd once and ended.  Every image is
 * linked to the right parent and to the image before it, and ends as
 * its lines say (the manifest's table of pids grows and is probed many
 * times over). */
TEST(many_processes_reusing_pids)
{
	enum { N = 20000, PIDS = 4999 };
	const char *dir = tpath("run");
	CHECK(mkdir(dir, 0700) == 0);
	char a[600], man[600];
	snprintf(a, sizeof a, "%s/ring", dir);
	snprintf(man, sizeof man, "%s/manifest", dir);
	pid_t pa = record(a, ring_a, BASE);
	uint32_t first = pa >= 3000000 && pa < 3000000 + PIDS ? 3100000
							      : 3000000;
	size_t cap = (size_t)N * 400, n = 0;
	char *text = malloc(cap);
	CHECK(text != NULL);
	n += (size_t)snprintf(text + n, cap - n,
			      "weft-run version=1 session=ab\n"
			      "proc pid=%d ppid=1 start=7 t=%lld exe=/bin/a\n"
			      "ring pid=%d file=ring t=%lld\n",
			      pa, (long long)BASE - 10, pa, (long long)BASE);
	for (int i = 0; i < N; i++) {
		uint32_t pid = first + (uint32_t)(i % PIDS);
		long long t = (long long)BASE + 1000 + 10LL * i;
		n += (size_t)snprintf(text + n, cap - n,
				      "fork pid=%u ppid=%d tid=%d by=1 spawn=1 "
				      "t=%lld\n"
				      "proc pid=%u ppid=%d start=0 t=%lld "
				      "exe=/bin/c arg=c%d\n"
				      "proc pid=%u ppid=%d start=0 t=%lld "
				      "exe=/bin/d arg=d%d\n",
				      pid, pa, pa, t, pid, pa, t + 1, i, pid,
				      pa, t + 2, i);
		/* every third vanishes (no exit line) but the last of
		 * each pid */
		if (i % 3 != 2 || i >= N - PIDS)
			n += (size_t)snprintf(text + n, cap - n,
					      "exit pid=%u status=%d t=%lld\n",
					      pid, i % 7, t + 3);
	}
	CHECK(n < cap);
	write_file(man, text);
	free(text);

	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, dir, 0, NULL));
	uint32_t np;
	const struct weft_process *p = weft_reader_processes(r, &np);
	CHECK_EQ(np, 2 * N + 1);
	uint32_t root = WEFT_NO_PROCESS;
	for (uint32_t k = 0; k < np; k++)
		if (p[k].pid == (uint32_t)pa)
			root = k;
	CHECK(root != WEFT_NO_PROCESS);
	static int seen[N];
	int images = 0;
	for (uint32_t k = 0; k < np; k++) {
		if (k == root)
			continue;
		CHECK_EQ(p[k].parent, root);
		CHECK_EQ(p[k].argc, 1);
		int i = atoi(p[k].argv[0] + 1);
		CHECK(i >= 0 && i < N);
		CHECK_EQ(p[k].pid, first + (uint32_t)(i % PIDS));
		if (p[k].argv[0][0] == 'c') {
			CHECK_EQ(p[k].image, 0);
			CHECK_EQ(p[k].t_start, 1000 + 10LL * i);
			CHECK_EQ(p[k].end, WEFT_PROC_EXECED);
			CHECK_EQ(p[k].t_end, 1000 + 10LL * i + 2);
			continue;
		}
		CHECK_EQ(p[k].argv[0][0], 'd');
		CHECK_EQ(p[k].image, 1);
		uint32_t prev = p[k].prev_image;
		CHECK(prev < np);
		CHECK_EQ(p[prev].next_image, k);
		CHECK_EQ(p[prev].pid, p[k].pid);
		CHECK_EQ(atoi(p[prev].argv[0] + 1), i);
		CHECK_EQ(p[prev].argv[0][0], 'c');
		CHECK_EQ(p[k].t_start, 1000 + 10LL * i + 2);
		if (i % 3 != 2 || i >= N - PIDS) {
			CHECK_EQ(p[k].end, WEFT_PROC_EXITED);
			CHECK_EQ(p[k].status, i % 7);
			CHECK_EQ(p[k].t_end, 1000 + 10LL * i + 3);
		} else {
			CHECK_EQ(p[k].end, WEFT_PROC_VANISHED);
		}
		CHECK_EQ(seen[i], 0);
		seen[i] = 1;
		images++;
	}
	CHECK_EQ(images, N);
	weft_reader_close(r);
}

/* The events of a reader, as text, one per line. */
static char *events_text(struct weft_reader *r)
{
	size_t cap = 1 << 16, n = 0;
	char *s = malloc(cap);
	struct weft_event e;
	while (weft_reader_next(r, &e) == 0) {
		if (n + 512 > cap)
			s = realloc(s, cap *= 2);
		n += (size_t)snprintf(
			s + n, cap - n, "%d %lld %u %llx %llx %llx %s %s\n",
			e.type, (long long)e.ns, e.stream,
			(unsigned long long)e.actor, (unsigned long long)e.id,
			(unsigned long long)e.id2, weft_reader_name(r, e.name),
			e.text ? e.text : "");
	}
	s[n] = 0;
	return s;
}

/* Cuts the part named `name` of the bundle at `bundle` at CLOCK_MONOTONIC
 * `cut`; returns how many parts it has. */
static uint32_t cut_part(void *bundle, const char *name, int64_t cut)
{
	uint8_t *bb = bundle;
	uint32_t nparts;
	memcpy(&nparts, bb + 12, 4);
	for (uint32_t i = 0; i < nparts; i++)
		if (!strcmp((char *)bb + 32 + 80 * i + 32, name))
			memcpy(bb + 32 + 80 * i + 24, &cut, 8);
	return nparts;
}

TEST(bundle_round_trip_and_cut)
{
	const char *dir = tpath("run");
	CHECK(mkdir(dir, 0700) == 0);
	char a[600], b[600];
	snprintf(a, sizeof a, "%s/ring", dir);
	snprintf(b, sizeof b, "%s/ring.2", dir);
	record(a, ring_a, BASE);
	record(b, ring_b, BASE + 50);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, dir, 0, NULL));
	void *copy;
	size_t len;
	CHECK_OK(weft_reader_copy(r, 0, &copy, &len, NULL));
	char *want = events_text(r);
	weft_reader_close(r);
	CHECK(!memcmp(copy, "WEFTBNDL", 8));

	CHECK_OK(weft_reader_open_mem(&r, copy, len, 0, NULL));
	char *got = events_text(r);
	weft_reader_close(r);
	CHECK_STR(got, want);
	free(got);

	/* the same bundle, from a file and from a pipe */
	const char *f = tpath("run.weft");
	FILE *o = fopen(f, "w");
	CHECK(fwrite(copy, 1, len, o) == len);
	fclose(o);
	CHECK_OK(weft_reader_open(&r, f, 0, NULL));
	got = events_text(r);
	weft_reader_close(r);
	CHECK_STR(got, want);
	free(got);

	/* ring b cut at its clock's 1e9 + 50 + 420: its events after 470
	 * (merged axis) are not read, ring a's all are */
	CHECK_EQ(cut_part(copy, "ring.2", BASE + 50 + 420), 2);
	CHECK_OK(weft_reader_open_mem(&r, copy, len, 0, NULL));
	struct weft_event e;
	int64_t last_b = -1, last_a = -1;
	while (weft_reader_next(r, &e) == 0) {
		if (e.stream == 1)
			last_b = e.ns;
		else
			last_a = e.ns;
	}
	CHECK_EQ(last_b, 450);
	CHECK_EQ(last_a, 500);
	weft_reader_close(r);
	free(want);
	free(copy);
}

/* Ids that use bits 48..61 get ids of their own: never another ring's. */
static void high_ids(void)
{
	weft_clock_set(10);
	weft_run((1ull << 48) | 5);
	weft_create(5, "k");
	weft_run(0);
}

TEST(ids_never_shared)
{
	const char *dir = tpath("run");
	CHECK(mkdir(dir, 0700) == 0);
	char a[600], b[600];
	snprintf(a, sizeof a, "%s/ring", dir);
	snprintf(b, sizeof b, "%s/ring.2", dir);
	record(a, high_ids, BASE);
	record(b, high_ids, BASE + 100);
	struct ttrace t = real_events(dir);
	CHECK_EQ(t.n, 6);
	/* ring 0 keeps its 5, ring 1's is tagged; 1<<48|5, which uses the
	 * tag's bits, gets a fresh id in each ring: two different ones */
	uint64_t fresh = 0x3FFFull << 48;
	CHECK_U64(t.ev[0].e.id & fresh, fresh);
	CHECK_U64(t.ev[1].e.id, 5);
	CHECK_U64(t.ev[1].e.actor, t.ev[0].e.id);
	CHECK_U64(t.ev[3].e.id & fresh, fresh);
	CHECK(t.ev[3].e.id != t.ev[0].e.id);
	CHECK_U64(t.ev[4].e.id, (1ull << 48) | 5);
	CHECK_U64(t.ev[4].e.actor, t.ev[3].e.id);
}

/* A run directory with one ring reads that ring's events unchanged. */
TEST(one_ring_run)
{
	const char *dir = tpath("run");
	CHECK(mkdir(dir, 0700) == 0);
	char a[600];
	snprintf(a, sizeof a, "%s/ring", dir);
	record(a, ring_b, BASE);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, a, 0, NULL));
	char *plain = events_text(r);
	weft_reader_close(r);
	struct ttrace t = real_events(dir);
	CHECK_EQ(t.n, 5);
	char *line = plain;
	for (size_t i = 0; i < t.n; i++) {
		char want[512];
		const struct weft_event *e = &t.ev[i].e;
		snprintf(want, sizeof want, "%d %lld %u ", e->type,
			 (long long)e->ns, e->stream);
		CHECK(!strncmp(line, want, strlen(want)));
		line = strchr(line, '\n') + 1;
	}
	free(plain);
}

/* Manifests and bundles are read as hostile input: every mutation reads
 * to its end or fails cleanly (ASan and UBSan watch the rest). */
TEST(hostile_manifests_and_bundles)
{
	const char *dir = tpath("run");
	CHECK(mkdir(dir, 0700) == 0);
	char a[600], b[600], man[600];
	snprintf(a, sizeof a, "%s/ring", dir);
	snprintf(b, sizeof b, "%s/ring.2", dir);
	snprintf(man, sizeof man, "%s/manifest", dir);
	pid_t pa = record(a, ring_a, BASE);
	record(b, ring_b, BASE + 50);
	char text[1024];
	snprintf(text, sizeof text,
		 "proc pid=%d ppid=1 start=7 t=5 exe=/a arg=%%ff%%\n"
		 "fork pid=3 ppid=%d by=zz t=1\n"
		 "exit pid=99999999999999999999 status=1\n"
		 "reaped pid=%d signal=300\n"
		 "proc pid=%d start=8 t=-5 arg=a arg=b arg=c\n"
		 "ring pid=%d file=../../etc/passwd\n",
		 pa, pa, pa, pa, pa);
	write_file(man, text);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, dir, 0, NULL));
	struct weft_event e;
	while (weft_reader_next(r, &e) == 0)
		;
	unsigned np;
	weft_reader_problems(r, &np);
	CHECK_EQ(np, 1);
	uint32_t n;
	const struct weft_process *p = weft_reader_processes(r, &n);
	CHECK(n >= 2);
	/* an invalid byte reads U+FFFD; a new start token: a new process
	 * (its pid reused), not an exec */
	CHECK_STR(p[0].argv[0], "\xEF\xBF\xBD%");
	CHECK_EQ(p[0].end, WEFT_PROC_VANISHED);
	void *copy;
	size_t len;
	CHECK_OK(weft_reader_copy(r, 0, &copy, &len, NULL));
	weft_reader_close(r);

	/* random bytes over the bundle (its header, entries, manifest and
	 * rings), read to the end or refused */
	uint8_t *m = malloc(len);
	unsigned seed = 1;
	int opened = 0;
	for (int round = 0; round < 400; round++) {
		memcpy(m, copy, len);
		int flips = 1 + (int)(rand_r(&seed) % 8);
		for (int i = 0; i < flips; i++) {
			/* mostly the bundle's own bytes and the first ring's
			 * header, sometimes anywhere */
			size_t at = rand_r(&seed) % 4
					    ? (size_t)rand_r(&seed) % 4096
					    : (size_t)rand_r(&seed) % len;
			m[at] ^= (uint8_t)(1 + rand_r(&seed) % 255);
		}
		if (weft_reader_open_mem(&r, m, len, 0, NULL))
			continue;
		opened++;
		struct weft_model *mo;
		if (weft_model_load(&mo, r) == 0)
			weft_model_free(mo);
		weft_reader_processes(r, &n);
		weft_reader_close(r);
	}
	CHECK(opened > 50);
	free(m);
	free(copy);
}

/* Two machines: machine A's CLOCK_MONOTONIC reads the true time +
 * 1000 s, B's + 5000 s (other boots), and B's realtime clock is 3 ms
 * off (NTP's error).  Both rings start at true time 0, with the manual
 * clock counting true ns; they exchange messages whose delays are known. */
#define MONO_A (INT64_C(1000) * 1000000000)
#define MONO_B (INT64_C(5000) * 1000000000)
#define REAL0 (INT64_C(1700000000) * 1000000000)
#define NTP_ERR INT64_C(3000000)

static void machine_a(void)
{
	weft_run(1);
	weft_clock_set(1000);
	weft_sent(0, 0xA2B, 0, 100); /* B reads it at 31000 */
	weft_clock_set(95000);
	weft_received(0, 0xB2A, 0, 50); /* B wrote it at 60000 */
	weft_clock_set(200000);
	weft_sent(0, 0xA2B, 100, 10); /* B reads it at 220000 */
	weft_clock_set(300000);
	weft_run(0);
}

static void machine_b(void)
{
	weft_run(1);
	weft_clock_set(31000);
	weft_received(0, 0xA2B, 0, 100);
	weft_clock_set(60000);
	weft_sent(0, 0xB2A, 0, 50);
	weft_clock_set(220000);
	weft_received(0, 0xA2B, 100, 10);
	weft_clock_set(250000);
	weft_run(0);
}

/* Sets the machine of a ring: its host name, boot id, and its clock
 * readings (the start only) as machine `mono` / `real` at true time 0. */
static void set_machine(const char *path, const char *host, uint8_t boot,
			int64_t mono, int64_t real)
{
	int fd = open(path, O_RDWR);
	CHECK(fd >= 0);
	struct weft__fmach m;
	CHECK(pread(fd, &m, sizeof m, WEFT_MACH_OFF) == sizeof m);
	memset(m.host, 0, sizeof m.host);
	snprintf(m.host, sizeof m.host, "%s", host);
	memset(m.boot_id, boot, 16);
	m.timens_mono_ns = 0;
	m.ntuples = 1;
	m.t[0].seq = 2;
	m.t[0].ticks = 0;
	m.t[0].mono_ns = mono;
	m.t[0].real_ns = real;
	CHECK(pwrite(fd, &m, sizeof m, WEFT_MACH_OFF) == sizeof m);
	close(fd);
}

static void two_machines(const char *a, const char *b)
{
	record(a, machine_a, MONO_A);
	record(b, machine_b, MONO_B);
	set_machine(a, "alpha", 0xaa, MONO_A, REAL0);
	set_machine(b, "beta", 0xbb, MONO_B, REAL0 + NTP_ERR);
}

TEST(two_machines_aligned_by_messages)
{
	const char *a = tpath("a.weft"), *b = tpath("b.weft");
	two_machines(a, b);
	const char *both[] = {a, b};
	struct weft_reader *r;
	CHECK_OK(weft_reader_open_many(&r, both, 2, 0, NULL, NULL));
	uint32_t nh;
	const struct weft_host *h = weft_reader_hosts(r, &nh);
	CHECK_EQ(nh, 2);
	CHECK_STR(h[0].name, "alpha");
	CHECK_STR(h[1].name, "beta");
	CHECK_EQ(h[0].method, WEFT_CLOCK_REFERENCE);
	CHECK_EQ(h[1].method, WEFT_CLOCK_MESSAGES);
	CHECK_U64(h[1].messages, 3);
	/* the truth: add MONO_A - MONO_B to B's clock; the least delays,
	 * 20000 one way and 35000 the other, bound it */
	int64_t truth = MONO_A - MONO_B;
	CHECK_EQ(h[1].lo_ns, truth - 20000);
	CHECK_EQ(h[1].hi_ns, truth + 35000);
	CHECK(h[1].lo_ns <= truth && truth <= h[1].hi_ns);
	CHECK_EQ(h[1].offset_ns, truth + 7500);
	CHECK_EQ(h[1].uncertainty_ns, 27500);
	int64_t err = h[1].offset_ns - truth;
	CHECK(err <= h[1].uncertainty_ns && -err <= h[1].uncertainty_ns);
	/* no message is read before it was written */
	struct weft_event e;
	int64_t sent_at[2][2] = {{-1, -1}, {-1, -1}};
	int received = 0;
	while (weft_reader_next(r, &e) == 0) {
		int c = e.value == 0xA2B ? 0 : 1;
		int k = e.value2 == 0 ? 0 : 1;
		if (e.type == WEFT_EV_SENT)
			sent_at[c][k] = e.ns;
		if (e.type == WEFT_EV_RECEIVED) {
			CHECK(sent_at[c][k] >= 0);
			CHECK(e.ns > sent_at[c][k]);
			received++;
		}
	}
	CHECK_EQ(received, 3);
	/* raw times stay: B's received at its clock's 31000 */
	weft_reader_close(r);
}

TEST(two_machines_by_realtime_or_forced)
{
	const char *a = tpath("a.weft"), *b = tpath("b.weft");
	two_machines(a, b);
	/* Without messages: B's realtime clock says where (3 ms off). */
	int fd = open(b, O_RDWR);
	CHECK(fd >= 0);
	close(fd);
	const char *one[] = {a};
	struct weft_reader *r;
	/* (b alone on the other side: its messages still match a's; make
	 * a pair with a ring of b's machine that sends nothing) */
	const char *c = tpath("c.weft");
	record(c, ring_b, MONO_B);
	set_machine(c, "beta", 0xbb, MONO_B, REAL0 + NTP_ERR);
	const char *ac[] = {a, c};
	CHECK_OK(weft_reader_open_many(&r, ac, 2, 0, NULL, NULL));
	uint32_t nh;
	const struct weft_host *h = weft_reader_hosts(r, &nh);
	CHECK_EQ(nh, 2);
	CHECK_EQ(h[1].method, WEFT_CLOCK_REALTIME);
	CHECK_EQ(h[1].offset_ns, MONO_A - MONO_B + NTP_ERR);
	CHECK_EQ(h[1].uncertainty_ns, -1);
	weft_reader_close(r);
	(void)one;
	/* Forced: what the user says. */
	const char *hosts[] = {"beta"};
	int64_t ns[] = {-42};
	struct weft_merge_opts o = {1, hosts, ns};
	const char *ab[] = {a, b};
	CHECK_OK(weft_reader_open_many(&r, ab, 2, 0, &o, NULL));
	h = weft_reader_hosts(r, &nh);
	CHECK_EQ(h[1].method, WEFT_CLOCK_FORCED);
	CHECK_EQ(h[1].offset_ns, -42);
	struct weft_event e;
	int64_t b_first = -1;
	while (weft_reader_next(r, &e) == 0)
		if (e.stream == 1 && b_first < 0 && e.type == WEFT_EV_RECEIVED)
			b_first = e.ns;
	/* B's 31000 at B's clock MONO_B + 31000, less 42, from A's origin */
	CHECK_EQ(b_first, MONO_B + 31000 - 42 - MONO_A);
	/* a bundle of it (weft html, weft snapshot, weft view of several)
	 * keeps the forced offset; a reader's own comes first */
	void *copy;
	size_t len;
	CHECK_OK(weft_reader_copy(r, 0, &copy, &len, NULL));
	weft_reader_close(r);
	CHECK_OK(weft_reader_open_mem(&r, copy, len, 0, NULL));
	h = weft_reader_hosts(r, &nh);
	CHECK_EQ(nh, 2);
	CHECK_EQ(h[1].method, WEFT_CLOCK_FORCED);
	CHECK_EQ(h[1].offset_ns, -42);
	weft_reader_close(r);
	char bpath[600];
	snprintf(bpath, sizeof bpath, "%s", tpath("forced.bundle"));
	int bfd = open(bpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(bfd >= 0 && write(bfd, copy, len) == (ssize_t)len);
	close(bfd);
	const char *bund[] = {bpath};
	int64_t ns2[] = {77};
	struct weft_merge_opts o2 = {1, hosts, ns2};
	CHECK_OK(weft_reader_open_many(&r, bund, 1, 0, &o2, NULL));
	h = weft_reader_hosts(r, &nh);
	CHECK_EQ(h[1].method, WEFT_CLOCK_FORCED);
	CHECK_EQ(h[1].offset_ns, 77);
	weft_reader_close(r);
	free(copy);
}

/* Five machines, each message link of another kind (rings given in the
 * order A C B D E, so C is placed only once B is):
 *   A-B  messages both ways (as above): B's offset within +-27500;
 *   B-C  both ways, C linked to B only: bounded from B's offset, so C
 *        inherits B's uncertainty on top of its own;
 *   A->D one way only, D's realtime clock 50 ms slow: the estimate moved
 *        to the one bound;
 *   A-E  both ways but contradictory (each received before it was sent,
 *        true time): no offset fits, E keeps its realtime estimate, said
 *        so. */
#define MONO_C (INT64_C(9000) * 1000000000)
#define MONO_D (INT64_C(13000) * 1000000000)
#define MONO_E (INT64_C(17000) * 1000000000)

static void five_a(void)
{
	weft_run(1);
	weft_clock_set(1000);
	weft_sent(0, 0xA2B, 0, 100);
	weft_clock_set(10000);
	weft_sent(0, 0xA2D, 0, 10); /* D reads it at 12000 */
	weft_clock_set(20000);
	weft_sent(0, 0xA2E, 0, 10); /* E "reads" it at 10000 */
	weft_clock_set(30000);
	weft_received(0, 0xE2A, 0, 10); /* E "writes" it at 40000 */
	weft_clock_set(95000);
	weft_received(0, 0xB2A, 0, 50);
	weft_clock_set(200000);
	weft_sent(0, 0xA2B, 100, 10);
	weft_clock_set(300000);
	weft_run(0);
}

static void five_b(void)
{
	weft_run(1);
	weft_clock_set(31000);
	weft_received(0, 0xA2B, 0, 100);
	weft_clock_set(60000);
	weft_sent(0, 0xB2A, 0, 50);
	weft_clock_set(100000);
	weft_sent(0, 0xB2C, 0, 10); /* C reads it at 110000 */
	weft_clock_set(154000);
	weft_received(0, 0xC2B, 0, 10); /* C wrote it at 150000 */
	weft_clock_set(220000);
	weft_received(0, 0xA2B, 100, 10);
	weft_clock_set(250000);
	weft_run(0);
}

static void five_c(void)
{
	weft_run(1);
	weft_clock_set(110000);
	weft_received(0, 0xB2C, 0, 10);
	weft_clock_set(150000);
	weft_sent(0, 0xC2B, 0, 10);
	weft_clock_set(250000);
	weft_run(0);
}

static void five_d(void)
{
	weft_run(1);
	weft_clock_set(12000);
	weft_received(0, 0xA2D, 0, 10);
	weft_clock_set(50000);
	weft_run(0);
}

static void five_e(void)
{
	weft_run(1);
	weft_clock_set(10000);
	weft_received(0, 0xA2E, 0, 10);
	weft_clock_set(40000);
	weft_sent(0, 0xE2A, 0, 10);
	weft_clock_set(50000);
	weft_run(0);
}

TEST(five_machines_one_way_contradictory_and_inherited)
{
	const char *p[5] = {tpath("a.weft"), tpath("c.weft"), tpath("b.weft"),
			    tpath("d.weft"), tpath("e.weft")};
	record(p[0], five_a, MONO_A);
	record(p[1], five_c, MONO_C);
	record(p[2], five_b, MONO_B);
	record(p[3], five_d, MONO_D);
	record(p[4], five_e, MONO_E);
	set_machine(p[0], "alpha", 0xaa, MONO_A, REAL0);
	set_machine(p[1], "gamma", 0xcc, MONO_C, REAL0 - 5000000);
	set_machine(p[2], "beta", 0xbb, MONO_B, REAL0 + NTP_ERR);
	set_machine(p[3], "delta", 0xdd, MONO_D, REAL0 - 50000000);
	set_machine(p[4], "epsilon", 0xee, MONO_E, REAL0 + 1000000);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open_many(&r, p, 5, 0, NULL, NULL));
	uint32_t nh;
	const struct weft_host *hs = weft_reader_hosts(r, &nh);
	CHECK_EQ(nh, 5);
	/* by name (the order of the machines is the rings') */
	static const char *const name[5] = {"alpha", "gamma", "beta", "delta",
					    "epsilon"};
	struct weft_host h[5];
	for (int k = 0; k < 5; k++) {
		uint32_t i = 0;
		while (i < nh && strcmp(hs[i].name, name[k]))
			i++;
		if (i == nh)
			FAIL("no machine %s", name[k]);
		h[k] = hs[i];
	}
	CHECK_STR(hs[0].name, "alpha");
	CHECK_EQ(h[0].method, WEFT_CLOCK_REFERENCE);
	/* B, from A both ways */
	int64_t tb = MONO_A - MONO_B;
	CHECK_EQ(h[2].method, WEFT_CLOCK_MESSAGES);
	CHECK_U64(h[2].messages, 3);
	CHECK_EQ(h[2].offset_ns, tb + 7500);
	CHECK_EQ(h[2].uncertainty_ns, 27500);
	/* C, from B: delays 10000 (B to C) and 4000 (C to B) around B's
	 * offset (itself 7500 off the truth) */
	int64_t tc = MONO_A - MONO_C;
	CHECK_EQ(h[1].method, WEFT_CLOCK_MESSAGES);
	CHECK_U64(h[1].messages, 2);
	CHECK_EQ(h[1].lo_ns, tc + 7500 - 10000);
	CHECK_EQ(h[1].hi_ns, tc + 7500 + 4000);
	CHECK_EQ(h[1].offset_ns, tc + 4500);
	CHECK_EQ(h[1].uncertainty_ns, 7000 + 27500);
	CHECK(h[1].offset_ns - tc <= h[1].uncertainty_ns);
	/* D: one message, A to D in 2000: off_D >= truth - 2000, and the
	 * realtime estimate (truth - 50 ms) moved up to it */
	int64_t td = MONO_A - MONO_D;
	CHECK_EQ(h[3].method, WEFT_CLOCK_MESSAGES);
	CHECK_U64(h[3].messages, 1);
	CHECK_EQ(h[3].lo_ns, td - 2000);
	CHECK_EQ(h[3].hi_ns, INT64_MAX);
	CHECK_EQ(h[3].offset_ns, td - 2000);
	CHECK_EQ(h[3].uncertainty_ns, -1);
	/* E: lo = truth + 10000 > hi = truth - 10000: realtime, said so */
	int64_t te = MONO_A - MONO_E;
	CHECK_EQ(h[4].method, WEFT_CLOCK_REALTIME);
	CHECK_EQ(h[4].lo_ns, te + 10000);
	CHECK_EQ(h[4].hi_ns, te - 10000);
	CHECK_EQ(h[4].offset_ns, te + 1000000);
	CHECK_EQ(h[4].uncertainty_ns, -1);
	weft_reader_close(r);
}

/* Same boot id: one machine's CLOCK_MONOTONIC, each ring moved out of its
 * writer's time namespace. */
TEST(time_namespaces)
{
	const char *a = tpath("a.weft"), *b = tpath("b.weft");
	record(a, ring_a, BASE);
	record(b, ring_b, BASE + 50 - 777); /* its namespace is 777 behind */
	set_machine(a, "host", 0x11, BASE, REAL0);
	set_machine(b, "container", 0x11, BASE + 50 - 777, REAL0);
	int fd = open(b, O_RDWR);
	int64_t tns = 777;
	CHECK(pwrite(fd, &tns, 8,
		     WEFT_MACH_OFF + offsetof(struct weft__fmach,
					      timens_mono_ns)) == 8);
	close(fd);
	const char *both[] = {a, b};
	struct weft_reader *r;
	CHECK_OK(weft_reader_open_many(&r, both, 2, 0, NULL, NULL));
	uint32_t nh;
	weft_reader_hosts(r, &nh);
	CHECK_EQ(nh, 1);
	struct weft_event e;
	while (weft_reader_next(r, &e) == 0)
		if (e.stream == 1 && e.type == WEFT_EV_RUN && e.id) {
			CHECK_EQ(e.ns, 250);
			break;
		}
	weft_reader_close(r);
}

/* Messages: two writes read by one read and a part of another; a read
 * recorded before its write; datagrams by order and size, one lost; a
 * message within one process makes no arrow. */
static void writer(void)
{
	weft_run(1);
	weft_create(2, "write");
	weft_clock_set(100);
	weft_sent(2, 0xC0, 0, 10);
	weft_clock_set(200);
	weft_sent(0, 0xC0, 10, 10); /* by the current thread, 1 */
	weft_clock_set(500);
	weft_sent(0, 0xC2, 0, 5); /* read (by the clock) before: at 450 */
	weft_clock_set(600);
	weft_sent(0, 0xD0, WEFT_DATAGRAM, 3);
	weft_sent(0, 0xD0, WEFT_DATAGRAM, 9); /* lost */
	weft_sent(0, 0xD0, WEFT_DATAGRAM, 4);
	weft_clock_set(650);
	weft_sent(0, 0xE0, 0, 8); /* read within the process */
	weft_received(0, 0xE0, 0, 8);
	weft_clock_set(900);
	weft_run(0);
}

static void reader(void)
{
	weft_run(7);
	weft_clock_set(300);
	weft_received(0, 0xC0, 0, 15);
	weft_clock_set(400);
	weft_run(8);
	weft_received(0, 0xC0, 15, 5);
	weft_clock_set(450);
	weft_received(0, 0xC2, 0, 5);
	weft_clock_set(700);
	weft_received(0, 0xD0, WEFT_DATAGRAM, 3);
	weft_received(0, 0xD0, WEFT_DATAGRAM, 4);
	weft_clock_set(800);
	weft_run(0);
}

/* The read arrows of `m` flagged as messages, as text. */
static void messages(struct weft_model *m, char *out, size_t cap)
{
	uint32_t na, nth;
	const struct weft_arrow *a = weft_model_arrows(m, &na);
	const struct weft_thread *th = weft_model_threads(m, &nth);
	size_t n = 0;
	out[0] = 0;
	for (uint32_t i = 0; i < na; i++) {
		if (!(a[i].flags & WEFT_ARROW_MESSAGE) ||
		    a[i].kind != WEFT_ARROW_READ)
			continue;
		n += (size_t)snprintf(out + n, cap - n, "%llx>%llx@%lld/%lld ",
				      (unsigned long long)th[a[i].from].id,
				      (unsigned long long)th[a[i].to].id,
				      (long long)a[i].t,
				      (long long)weft_model_arrow_sent(m, i));
	}
}

TEST(messages_between_processes)
{
	const char *a = tpath("a.weft"), *b = tpath("b.weft");
	record(a, writer, BASE);
	record(b, reader, BASE);
	const char *both[] = {a, b};
	struct weft_reader *r;
	CHECK_OK(weft_reader_open_many(&r, both, 2, 0, NULL, NULL));
	struct weft_model *m;
	CHECK_OK(weft_model_load(&m, r));
	char got[1024];
	messages(m, got, sizeof got);
	/* b's 7 read a's 2 and 1 (bytes 0-15); b's 8 read a's 1 (15-20);
	 * b's 8 read a's 1 (0xC2) written after (by its clock): made when
	 * written, drawn as written no later than read; the datagrams of 3
	 * and 4 bytes, not the lost one of 9 */
	CHECK_STR(got, "2>1000000000007@300/100 1>1000000000007@300/200 "
		       "1>1000000000008@400/200 1>1000000000008@500/450 "
		       "1>1000000000008@700/600 1>1000000000008@700/600 ");
	weft_model_free(m);
	weft_reader_close(r);
}

/* Three rings of many events, as merges meet them in a run of processes
 * on several cores: from 1000, each ring's events one after another's
 * (ring k at 1000 + 3i + k); from 5000, the same instants in all three
 * (their order: the rings'); ring c ends at 5100; from 10000, runs of 500
 * events of one ring, c's process exiting at 10100 in the middle of a's
 * (the manifest: an event the merge makes), a message from a to b in
 * the middle of theirs, read by the read b's loop fired just before
 * (whose next activation then waits for more, a having had the last
 * word on the way back). */
static void batch_ring(int k)
{
	weft_run(1);
	for (int i = 0; i < 300; i++) {
		weft_clock_set(1000 + 3 * i + k);
		weft_create(100 + (uint64_t)i, "fine");
	}
	for (int i = 0; i < 200; i++) {
		if (k == 2 && i > 100)
			return; /* (stopped: its last event at 5100) */
		weft_clock_set(5000 + i);
		weft_create(1000 + (uint64_t)i, "tie");
	}
	for (int i = 0; i < 500; i++) {
		weft_clock_set(10000 + 1000 * k + i);
		weft_create(2000 + (uint64_t)i, "run");
		if (i == 250 && k == 0)
			weft_sent(0, 0xAB, 0, 10);
		if (i == 249 && k == 1)
			weft_fire(60, 61);
		if (i == 250 && k == 1)
			weft_received(60, 0xAB, 0, 10);
	}
	if (k == 0) { /* and reads on the way back */
		weft_clock_set(12000);
		weft_received(0, 0xAA, 0, 5);
	}
	weft_run(0);
}

static void batch_a(void)
{
	batch_ring(0);
}

static void batch_b(void)
{
	batch_ring(1);
}

static void batch_c(void)
{
	batch_ring(2);
}

/* What `r` counts of the events it returned (of each OS thread of 8, of
 * each type of 64) is what they were. */
static void check_counts(struct weft_reader *r, const size_t *per_stream,
			 const size_t *per_type)
{
	const struct weft_trace_info *in = weft_reader_info(r);
	for (uint32_t i = 0; i < 8; i++)
		CHECK_U64(i < in->nstreams ? in->streams[i].events : 0,
			  per_stream[i]);
	for (uint32_t t = 0; t < WEFT_EV_COUNT && t < 64; t++)
		CHECK_U64(in->counts[t], per_type[t]);
}

/* What a merge of `r` returns, checked as it goes: every event in time
 * order (the made ones too), events of one instant in their rings'
 * order, each ring's events its own reading's in the same order, and
 * what weft_reader_info() counts after each event what was returned.
 * `last`: each process's last event's time. */
static void check_merge(struct weft_reader *r, struct ttrace alone[3],
			int64_t last[3])
{
	size_t at[3] = {0, 0, 0}, per_stream[8] = {0}, per_type[64] = {0};
	size_t n = 0;
	int64_t prev = INT64_MIN, prev_real = INT64_MIN;
	uint32_t prev_proc = 0;
	struct weft_event e;
	for (int k = 0; k < 3; k++)
		last[k] = -1;
	while (weft_reader_next(r, &e) == 0) {
		CHECK(e.ns >= prev);
		prev = e.ns;
		CHECK(e.stream < 8 && e.type < 64);
		per_stream[e.stream]++;
		per_type[e.type]++;
		if (++n % 37 == 0) /* (not after each: several at once) */
			check_counts(r, per_stream, per_type);
		if ((e.flags & WEFT_EVF_MADE) ||
		    (e.id & (0x3FFFull << 48)) == XTAG)
			continue; /* (made by the merge) */
		uint32_t p = weft_reader_stream_process(r, e.stream);
		CHECK(p < 3);
		if (e.ns == prev_real)
			CHECK(p >= prev_proc);
		prev_real = e.ns;
		prev_proc = p;
		/* the ring's own next event, as read alone */
		CHECK(at[p] < alone[p].n);
		const struct weft_event *w = &alone[p].ev[at[p]++].e;
		CHECK_EQ(e.type, w->type);
		CHECK_EQ(e.ns, w->ns);
		CHECK_U64(e.id & 0xFFFFFFFFFFFFull, w->id);
		last[p] = e.ns;
	}
	for (int k = 0; k < 3; k++)
		CHECK_EQ(at[k], alone[k].n);
	check_counts(r, per_stream, per_type);
}

TEST(merged_in_batches)
{
	const char *dir = tpath("run");
	CHECK(mkdir(dir, 0700) == 0);
	char ring[3][600];
	void (*fn[3])(void) = {batch_a, batch_b, batch_c};
	pid_t pid[3];
	struct ttrace alone[3];
	for (int k = 0; k < 3; k++) {
		snprintf(ring[k], sizeof ring[k], "%s/ring.%c", dir, 'a' + k);
		pid[k] = record(ring[k], fn[k], BASE);
		alone[k] = tread(ring[k]);
		CHECK(alone[k].n > 400);
	}
	char man[700], text[2048];
	snprintf(man, sizeof man, "%s/manifest", dir);
	snprintf(text, sizeof text,
		 "weft-run version=1 session=ab\n"
		 "proc pid=%d ppid=1 start=7 t=%lld exe=/bin/a arg=a\n"
		 "ring pid=%d file=ring.a t=%lld\n"
		 "proc pid=%d ppid=1 start=8 t=%lld exe=/bin/b arg=b\n"
		 "ring pid=%d file=ring.b t=%lld\n"
		 "proc pid=%d ppid=1 start=9 t=%lld exe=/bin/c arg=c\n"
		 "ring pid=%d file=ring.c t=%lld\n"
		 "exit pid=%d status=0 t=%lld\n",
		 pid[0], (long long)BASE, pid[0], (long long)BASE, pid[1],
		 (long long)BASE, pid[1], (long long)BASE, pid[2],
		 (long long)BASE, pid[2], (long long)BASE, pid[2],
		 (long long)BASE + 10100);
	write_file(man, text);

	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, dir, 0, NULL));
	uint32_t np;
	const struct weft_process *p = weft_reader_processes(r, &np);
	CHECK_EQ(np, 3);
	for (int k = 0; k < 3; k++)
		CHECK_EQ(p[k].pid, (uint32_t)pid[k]);
	int64_t last[3];
	check_merge(r, alone, last);
	CHECK_EQ(last[0], 12000);
	CHECK_EQ(last[1], 11499);
	CHECK_EQ(last[2], 5100);
	/* c's exit, made at 10100 between a's events */
	CHECK_EQ(p[2].t_end, 10100);
	void *copy;
	size_t len;
	CHECK_OK(weft_reader_copy(r, 0, &copy, &len, NULL));
	weft_reader_close(r);

	/* the message from a to b, matched */
	struct weft_model *m;
	CHECK_OK(weft_reader_open(&r, dir, 0, NULL));
	CHECK_OK(weft_model_load(&m, r));
	char got[256];
	messages(m, got, sizeof got);
	CHECK_STR(got, "1>100000000003c@11250/10250 ");
	/* b's read's next activation waits for a's next bytes at the end
	 * (a had the last word) */
	uint32_t na, nth, waits = 0;
	const struct weft_arrow *ar = weft_model_arrows(m, &na);
	const struct weft_thread *th = weft_model_threads(m, &nth);
	for (uint32_t i = 0; i < na; i++)
		if (ar[i].kind == WEFT_ARROW_TRY_READ &&
		    (ar[i].flags & WEFT_ARROW_MESSAGE) &&
		    th[ar[i].from].id == (1ull << 48 | 61)) {
			CHECK_EQ(ar[i].t, 12000);
			waits++;
		}
	CHECK_EQ(waits, 1);
	weft_model_free(m);
	weft_reader_close(r);

	/* the same as a bundle, b cut at 11300: none of b's events after
	 * it, a's all */
	CHECK(cut_part(copy, "ring.b", BASE + 11300) >= 3); /* (+ manifest) */
	CHECK_OK(weft_reader_open_mem(&r, copy, len, 0, NULL));
	struct weft_event e;
	int64_t last_b = -1, last_a = -1;
	while (weft_reader_next(r, &e) == 0) {
		uint32_t k = weft_reader_stream_process(r, e.stream);
		if ((e.flags & WEFT_EVF_MADE) ||
		    (e.id & (0x3FFFull << 48)) == XTAG)
			continue;
		if (k == 1)
			last_b = e.ns;
		else if (k == 0)
			last_a = e.ns;
	}
	CHECK_EQ(last_b, 11300);
	CHECK_EQ(last_a, 12000);
	weft_reader_close(r);
	free(copy);
	for (int k = 0; k < 3; k++)
		free(alone[k].ev);
}

/* A waits for the reply to its request; B read it and started work that
 * is still pending: weft why follows A's wait into B. */
static void asks(void)
{
	weft_run(1);
	weft_create(2, "ask");
	weft_clock_set(100);
	weft_sent(2, 0x10, 0, 5);
	weft_create(3, "reply read");
	weft_received(3, 0x11, 0, 0); /* 3 waits for the reply */
	weft_clock_set(1000);
	weft_run(0);
}

static void answers_not(void)
{
	weft_run(1);
	weft_create(7, "conn read");
	weft_clock_set(200);
	weft_resolve_run(7);
	weft_received(0, 0x10, 0, 5);
	weft_create(8, "backend query"); /* never answers */
	weft_create(9, "conn read");	 /* the next read: not the work */
	weft_clock_set(300);
	/* nor what the next read starts (the stream's end: a close) */
	weft_resolve_run(9);
	weft_create(10, "close");
	weft_clock_set(350);
	weft_run(0);
}

TEST(why_follows_a_wait_into_another_process)
{
	const char *a = tpath("a.weft"), *b = tpath("b.weft");
	record(a, asks, BASE);
	record(b, answers_not, BASE);
	const char *both[] = {a, b};
	struct weft_reader *r;
	CHECK_OK(weft_reader_open_many(&r, both, 2, 0, NULL, NULL));
	struct weft_model *m;
	CHECK_OK(weft_model_load(&m, r));
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	uint32_t a3 = weft_model_find(m, 3),
		 b7 = weft_model_find(m, 1ull << 48 | 7);
	uint32_t b8 = weft_model_find(m, 1ull << 48 | 8);
	CHECK(a3 != WEFT_NONE && b7 != WEFT_NONE && b8 != WEFT_NONE);
	struct weft_why w;
	CHECK_OK(weft_why(m, a3, &w));
	CHECK_EQ(w.nchain, 3);
	CHECK_EQ(w.chain[0].thread, a3);
	CHECK_EQ(w.chain[1].thread, b7);
	CHECK_EQ(w.chain[2].thread, b8);
	CHECK_EQ(w.verdict, WEFT_VERDICT_NEVER_RESOLVED);
	CHECK_EQ(th[b7].end, WEFT_END_RESOLVED);
	/* it waits since it asked, not since the trace ended */
	CHECK_EQ(w.chain[0].t_wait, 100);
	/* the wait, made at the end of a's ring, flagged */
	uint32_t na;
	const struct weft_arrow *ar = weft_model_arrows(m, &na);
	int waits = 0;
	for (uint32_t i = 0; i < na; i++)
		if (ar[i].kind == WEFT_ARROW_TRY_READ && ar[i].from == a3 &&
		    ar[i].to == b7 && (ar[i].flags & WEFT_ARROW_MESSAGE) &&
		    ar[i].t == 1000)
			waits++;
	CHECK_EQ(waits, 1);
	weft_model_free(m);
	weft_reader_close(r);
}

/* A ring of format 1.2 (before the machine block and the message
 * events) still reads, alone and merged with a 1.3 ring: taken to be on
 * the same machine. */
TEST(old_rings_still_read)
{
	const char *src = getenv("WEFT_SRC");
	if (!src)
		FAIL("WEFT_SRC must be set (meson test sets it)");
	char old[600];
	snprintf(old, sizeof old, "%s/tests/fuzz/corpus/seed-all-events", src);
	struct ttrace t = tread(old);
	CHECK_EQ(t.info.major, 1);
	CHECK_EQ(t.info.minor, 2);
	CHECK_EQ(t.info.host[0], 0);
	CHECK_EQ(t.problems, 0);
	CHECK(t.n > 40);
	const char *a = tpath("a.weft");
	record(a, ring_a, BASE);
	const char *both[] = {a, old};
	struct weft_reader *r;
	CHECK_OK(weft_reader_open_many(&r, both, 2, 0, NULL, NULL));
	uint32_t nh, np;
	weft_reader_hosts(r, &nh);
	CHECK_EQ(nh, 1);
	weft_reader_processes(r, &np);
	CHECK_EQ(np, 2);
	struct weft_event e;
	size_t n = 0;
	while (weft_reader_next(r, &e) == 0)
		n++;
	CHECK(n >= t.n + 3);
	unsigned nprob;
	weft_reader_problems(r, &nprob);
	CHECK_EQ(nprob, 0);
	weft_reader_close(r);
}

/* Three processes, each of a ring that counts "ticks" from 10 * i + 1
 * (and the first one a counter of its own), in a run whose manifest
 * names their rings ring.0 .. ring.2. */
static int64_t tick_base;

static void ticks_ring(void)
{
	weft_clock_set(100);
	weft_run(1);
	for (int k = 0; k < 3; k++) {
		weft_clock_set(200 + 100 * k + 10 * tick_base);
		weft_counter_set("ticks", 10 * tick_base + k + 1);
	}
	if (!tick_base)
		weft_counter_set("solo", 7);
	weft_clock_set(700);
	weft_run(0);
}

static void three_rings(const char *dir, pid_t pid[3], char ring[3][700])
{
	CHECK(mkdir(dir, 0700) == 0);
	char text[4096];
	size_t at = 0;
	at += (size_t)snprintf(text, sizeof text,
			       "weft-run version=1 session=ab\n");
	for (int i = 0; i < 3; i++) {
		snprintf(ring[i], sizeof ring[i], "%s/ring.%d", dir, i);
		tick_base = i;
		pid[i] = record(ring[i], ticks_ring, BASE + i);
		at += (size_t)snprintf(text + at, sizeof text - at,
				       "proc pid=%d ppid=1 start=%d t=%lld "
				       "exe=/bin/p%d arg=p%d\n"
				       "ring pid=%d file=ring.%d t=%lld\n",
				       pid[i], 7 + i, (long long)BASE - 10, i,
				       i, pid[i], i, (long long)BASE + i);
	}
	char man[800];
	snprintf(man, sizeof man, "%s/manifest", dir);
	write_file(man, text);
}

static void copy_file(const char *from, const char *to)
{
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	CHECK(a && b);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, a)) > 0)
		CHECK(fwrite(buf, 1, n, b) == n);
	fclose(a);
	fclose(b);
}

/* The run of `dir` (or the bundle at mem) reads the rings but `bad`
 * (its index), says it by name with `what`, and marks its process. */
static void reads_but(const char *dir, const void *mem, size_t len,
		      const pid_t pid[3], int bad, size_t want_events,
		      const char *what)
{
	struct weft_reader *r;
	if (mem)
		CHECK_OK(weft_reader_open_mem(&r, mem, len, 0, NULL));
	else
		CHECK_OK(weft_reader_open(&r, dir, 0, NULL));
	struct weft_event e;
	size_t n = 0;
	while (weft_reader_next(r, &e) == 0)
		n += (e.id & (0x3FFFull << 48)) != XTAG ||
		     e.type == WEFT_EV_RUN;
	CHECK_EQ(n, want_events);
	unsigned np;
	const struct weft_problem *pr = weft_reader_problems(r, &np);
	CHECK_EQ(np, 1);
	char want[200];
	snprintf(want, sizeof want, "ring.%d (pid %d p%d) not read: %s", bad,
		 pid[bad], bad, what);
	CHECK_STR(pr[0].what, want);
	CHECK_U64(pr[0].offset, WEFT_PROBLEM_NO_OFFSET);
	CHECK_EQ(weft_reader_info(r)->problems, 1);
	uint32_t nproc;
	const struct weft_process *p = weft_reader_processes(r, &nproc);
	CHECK_EQ(nproc, 3);
	for (uint32_t i = 0; i < 3; i++) {
		CHECK(p[i].ring != NULL);
		if (p[i].pid == (uint32_t)pid[bad])
			CHECK_STR(p[i].ring_unread ? p[i].ring_unread
						   : "(null)",
				  what);
		else
			CHECK(p[i].ring_unread == NULL);
	}
	weft_reader_close(r);
}

/* A damaged ring of a run (its magic flipped, emptied, removed, cut to
 * 100 bytes) or of a bundle: the others are read, it is named with what
 * is wrong; with none readable, the open fails saying so. */
TEST(damaged_rings_are_named_the_others_read)
{
	const char *dir = tpath("run");
	pid_t pid[3];
	char ring[3][700];
	three_rings(dir, pid, ring);
	size_t each[3];
	for (int i = 0; i < 3; i++)
		each[i] = tread(ring[i]).n;
	struct ttrace all = real_events(dir);
	CHECK_EQ(all.n, each[0] + each[1] + each[2]);
	CHECK_EQ(all.problems, 0);
	const char *keep = tpath("ring.1.keep");
	copy_file(ring[1], keep);
	size_t others = each[0] + each[2];
	static const char *const what[] = {
		"not a weft trace (no WEFTRING magic)",
		"empty (0 bytes)",
		"missing (the manifest names it)",
		"truncated in the file header (100 of 312 bytes)",
	};
	for (int v = 0; v < 4; v++) {
		copy_file(keep, ring[1]);
		if (v == 0) {
			int fd = open(ring[1], O_WRONLY);
			CHECK(fd >= 0 && pwrite(fd, "X", 1, 0) == 1);
			close(fd);
		} else if (v == 1)
			CHECK(truncate(ring[1], 0) == 0);
		else if (v == 2)
			CHECK(unlink(ring[1]) == 0);
		else
			CHECK(truncate(ring[1], 100) == 0);
		reads_but(dir, NULL, 0, pid, 1, others, what[v]);
	}
	/* a bundle whose part ring.1 is damaged */
	copy_file(keep, ring[1]);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, dir, 0, NULL));
	void *copy;
	size_t len;
	CHECK_OK(weft_reader_copy(r, 0, &copy, &len, NULL));
	weft_reader_close(r);
	uint8_t *b = copy;
	uint32_t nparts, hit = 0;
	memcpy(&nparts, b + 12, 4);
	for (uint32_t i = 0; i < nparts; i++)
		if (!strcmp((char *)b + 32 + 80 * i + 32, "ring.1")) {
			uint64_t off;
			memcpy(&off, b + 32 + 80 * i, 8);
			b[off] ^= 0xff;
			hit++;
		}
	CHECK_EQ(hit, 1);
	reads_but(NULL, copy, len, pid, 1, others, what[0]);
	free(copy);
	/* a damaged file named as a ring that the manifest does not name
	 * (its line lost): said too, with no process */
	copy_file(keep, ring[1]);
	char stray[800];
	snprintf(stray, sizeof stray, "%s/ring.9", dir);
	write_file(stray, "not a ring at all, but named as one");
	CHECK_OK(weft_reader_open(&r, dir, 0, NULL));
	struct weft_event e;
	size_t n = 0;
	while (weft_reader_next(r, &e) == 0)
		n += (e.id & (0x3FFFull << 48)) != XTAG ||
		     e.type == WEFT_EV_RUN;
	CHECK_EQ(n, all.n);
	unsigned np;
	const struct weft_problem *pr = weft_reader_problems(r, &np);
	CHECK_EQ(np, 1);
	CHECK_STR(pr[0].what, "ring.9 not read: not a weft trace (no WEFTRING "
			      "magic)");
	weft_reader_close(r);
	CHECK(unlink(stray) == 0);
	/* nothing readable: an error that names the first */
	for (int i = 0; i < 3; i++)
		CHECK(truncate(ring[i], 0) == 0);
	struct weft_diag d = {0};
	CHECK_EQ(weft_reader_open(&r, dir, 0, &d), WEFT_ECORRUPT);
	char want[900];
	snprintf(want, sizeof want,
		 "no ring can be read: %s: empty (0 bytes) (and 2 more)",
		 ring[0]);
	CHECK_STR(d.msg, want);
}

/* Counters of one name in three processes are three series, each its
 * process's (titled with its pid); their sum only where asked; a ring
 * alone keeps its counters' bare names. */
TEST(counters_belong_to_their_process)
{
	const char *dir = tpath("run");
	pid_t pid[3];
	char ring[3][700];
	three_rings(dir, pid, ring);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, dir, 0, NULL));
	struct weft_model *m;
	CHECK_OK(weft_model_load(&m, r));
	uint32_t nc, np;
	const struct weft_counter *c = weft_model_counters(m, &nc);
	const struct weft_model_process *mp = weft_model_processes(m, &np);
	CHECK_EQ(nc, 4);
	uint32_t ticks = 0, seen = 0;
	for (uint32_t i = 0; i < nc; i++) {
		char title[100], want[100];
		weft_model_counter_title(m, i, title, sizeof title);
		CHECK(c[i].process < np);
		uint32_t pp = mp[c[i].process].pid;
		int k = 0;
		while (k < 3 && (uint32_t)pid[k] != pp)
			k++;
		CHECK(k < 3);
		if (strcmp(weft_model_name(m, c[i].name), "ticks")) {
			CHECK_STR(weft_model_name(m, c[i].name), "solo");
			CHECK_EQ(k, 0);
			continue;
		}
		ticks = c[i].name;
		seen |= 1u << k;
		snprintf(want, sizeof want, "ticks (pid %d)", pid[k]);
		CHECK_STR(title, want);
		/* its own values only: 10k+1, 10k+2, 10k+3, never another's */
		CHECK_EQ(c[i].nsamples, 3);
		for (uint32_t j = 0; j < 3; j++) {
			CHECK_EQ(c[i].samples[j].value, 10 * k + (int)j + 1);
			CHECK_EQ(c[i].samples[j].t, k + 200 + 100 * j + 10 * k);
		}
		CHECK_EQ(c[i].min, 10 * k + 1);
		CHECK_EQ(c[i].max, 10 * k + 3);
	}
	CHECK_EQ(seen, 7u);
	/* the total over the three: at each sample, the sum of each one's
	 * latest value */
	struct weft_sample *s;
	uint32_t ns, nproc;
	CHECK_OK(weft_model_counter_sum(m, ticks, &s, &ns, &nproc));
	CHECK_EQ(nproc, 3);
	CHECK_EQ(ns, 9);
	static const int64_t t[9] = {200, 211, 222, 300, 311,
				     322, 400, 411, 422};
	static const int64_t v[9] = {1, 12, 33, 34, 35, 36, 37, 38, 39};
	for (uint32_t j = 0; j < ns; j++) {
		CHECK_EQ(s[j].t, t[j]);
		CHECK_EQ(s[j].value, v[j]);
	}
	free(s);
	/* the Chrome export: each process's counter on its own track (its
	 * pid), counting its own values */
	char *json;
	size_t jl;
	FILE *f = open_memstream(&json, &jl);
	CHECK(f);
	CHECK_OK(weft_export_chrome(m, f));
	fclose(f);
	for (int k = 0; k < 3; k++)
		for (int j = 0; j < 3; j++) {
			char want[200];
			snprintf(want, sizeof want,
				 "{\"ph\":\"C\",\"pid\":%d,\"tid\":0,"
				 "\"name\":\"ticks\",\"ts\":",
				 pid[k]);
			const char *at = json;
			int found = 0;
			char val[40];
			snprintf(val, sizeof val, "\"value\":%d}",
				 10 * k + j + 1);
			while ((at = strstr(at, want))) {
				const char *eol = strchr(at, '\n');
				const char *hit = strstr(at, val);
				found |= hit && (!eol || hit < eol);
				at++;
			}
			if (!found)
				FAIL("no ticks %d of pid %d in:\n%s",
				     10 * k + j + 1, pid[k], json);
		}
	free(json);
	weft_model_free(m);
	weft_reader_close(r);
	/* one ring alone: its counter's bare name */
	CHECK_OK(weft_reader_open(&r, ring[1], 0, NULL));
	CHECK_OK(weft_model_load(&m, r));
	c = weft_model_counters(m, &nc);
	CHECK_EQ(nc, 1);
	char title[100];
	weft_model_counter_title(m, 0, title, sizeof title);
	CHECK_STR(title, "ticks");
	weft_model_free(m);
	weft_reader_close(r);
}

/* The one rule of which thread waits for a connection's next bytes
 * (common/next-reader.h), that the merge applies and weft ship ships:
 * only the read the stream's last fire ran, receiving bytes of a stream,
 * has a next reader (tests/fleet's t_fetch_hang checks that the two
 * make the same waits). */
TEST(the_next_reader_rule)
{
	struct weft__fires f = {0};
	struct weft_event fire = {
		.type = WEFT_EV_FIRE, .stream = 2, .id = 7, .id2 = 9};
	struct weft_event rd = {.type = WEFT_EV_RECEIVED,
				.stream = 2,
				.id = 7,
				.value = 0x10,
				.value2 = 0,
				.value3 = 5};
	CHECK_EQ(weft__next_reader(&f, &rd), 0); /* no fire yet */
	CHECK_OK(weft__fires_note(&f, &fire));
	CHECK(f.n >= 3);
	CHECK_EQ(weft__next_reader(&f, &rd), 9);
	/* the reader as the stream's current thread (no id) */
	struct weft_event x = rd;
	x.id = 0;
	x.actor = 7;
	CHECK_EQ(weft__next_reader(&f, &x), 9);
	/* another read of that stream */
	x = rd;
	x.id = 8;
	CHECK_EQ(weft__next_reader(&f, &x), 0);
	/* another stream, one never fired, one past the table */
	x = rd;
	x.stream = 1;
	CHECK_EQ(weft__next_reader(&f, &x), 0);
	x.stream = 1000;
	CHECK_EQ(weft__next_reader(&f, &x), 0);
	/* a datagram, no bytes, a write */
	x = rd;
	x.value2 = -1;
	CHECK_EQ(weft__next_reader(&f, &x), 0);
	x = rd;
	x.value3 = 0;
	CHECK_EQ(weft__next_reader(&f, &x), 0);
	x = rd;
	x.type = WEFT_EV_SENT;
	CHECK_EQ(weft__next_reader(&f, &x), 0);
	/* the stream's last fire counts: one that runs another read, then
	 * one of no next activation */
	struct weft_event g = fire;
	g.id = 8;
	g.id2 = 11;
	CHECK_OK(weft__fires_note(&f, &g));
	CHECK_EQ(weft__next_reader(&f, &rd), 0);
	x = rd;
	x.id = 8;
	CHECK_EQ(weft__next_reader(&f, &x), 11);
	g.id2 = 0;
	CHECK_OK(weft__fires_note(&f, &g));
	CHECK_EQ(weft__next_reader(&f, &x), 0);
	weft__fires_release(&f);
	CHECK_EQ(f.n, 0);
	weft__fires_release(&f);
}

TEST_MAIN(T(damaged_rings_are_named_the_others_read),
	  T(counters_belong_to_their_process), T(merged_in_time_order),
	  T(process_threads_from_a_manifest), T(posix_spawned_in_either_order),
	  T(exec_becomes), T(fork_said_by_the_parent),
	  T(a_child_before_its_parents_line), T(a_run_ends_with_its_process),
	  T(many_processes_reusing_pids), T(bundle_round_trip_and_cut),
	  T(ids_never_shared), T(one_ring_run),
	  T(hostile_manifests_and_bundles), T(two_machines_aligned_by_messages),
	  T(two_machines_by_realtime_or_forced), T(time_namespaces),
	  T(five_machines_one_way_contradictory_and_inherited),
	  T(messages_between_processes), T(merged_in_batches),
	  T(why_follows_a_wait_into_another_process), T(old_rings_still_read),
	  T(the_next_reader_rule))
