/* SPDX-License-Identifier: MIT */
/*
 * test-read.c - the reader against careless and hostile use: a file
 * truncated or replaced while it is read, input that never ends, bytes
 * that are not UTF-8; the UTF-8 routine against Python's decoder; a
 * consistent copy of a ring; packets read ahead on a second thread give
 * the events of one thread, in a forked child too.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/wait.h>

#include "../harness.h"
#include "util.h"
#include "weft/model.h"
#include "weft/stats.h"
#include "weft/weft.h"
#include "common/format.h"
#include "common/grow.h"

/* A trace of `n` create/label/resolve triples: many packets. */
static const char *make_trace_from(const char *name, int from, int n,
				   size_t size)
{
	const char *p = tpath(name);
	CHECK_OK(weft_start(p, size, WEFT_DISCARD));
	for (int i = from; i < from + n; i++) {
		weft_create((uint64_t)i, "request");
		weft_label((uint64_t)i, "a label long enough to fill packets");
		weft_resolve((uint64_t)i);
	}
	CHECK_OK(weft_stop());
	return p;
}

static const char *make_trace(const char *name, int n, size_t size)
{
	return make_trace_from(name, 1, n, size);
}

static uint64_t file_size(const char *p)
{
	struct stat sb;
	CHECK(stat(p, &sb) == 0);
	return (uint64_t)sb.st_size;
}

/* Reads every event; returns how many, with the reader's problems. */
static uint64_t drain(struct weft_reader *r)
{
	struct weft_event ev;
	uint64_t n = 0;
	int rc;
	while ((rc = weft_reader_next(r, &ev)) == 0)
		n++;
	CHECK_EQ(rc, WEFT_EEOF);
	return n;
}

static int has_problem(struct weft_reader *r, const char *what)
{
	unsigned n;
	const struct weft_problem *p = weft_reader_problems(r, &n);
	for (unsigned i = 0; i < n; i++)
		if (strstr(p[i].what, what))
			return 1;
	return 0;
}

/* The file is cut short after the reader opened it (SIGBUS for a reader
 * that maps it): the rest is reported, with its offset, not a crash. */
TEST(truncated_while_read)
{
	const char *p = make_trace("t.weft", 200000, 8 << 20);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	uint64_t hs = weft_reader_info(r)->file_size -
		      (uint64_t)weft_reader_info(r)->npackets *
			      weft_reader_info(r)->packet_size;
	CHECK(truncate(p, (off_t)(hs + 3 * 4096)) == 0);
	uint64_t n = drain(r);
	CHECK(n < 600000);
	CHECK(has_problem(r, "the file shrank while being read"));
	unsigned np;
	const struct weft_problem *pr = weft_reader_problems(r, &np);
	char now[64];
	snprintf(now, sizeof now, "now %llu of",
		 (unsigned long long)(hs + 3 * 4096));
	CHECK(pr[0].offset >= hs && strstr(pr[0].what, now));
	CHECK(weft_reader_info(r)->losses.packets_torn > 0);
	weft_reader_close(r);
	/* Opened again: refused with its size. */
	struct weft_diag d = {0};
	CHECK_EQ(weft_reader_open(&r, p, 0, &d), WEFT_ETRUNC);
	CHECK(strstr(d.msg, "truncated"));
}

/* Replaced while read, as cp(1) does: truncated, then rewritten with
 * another trace of the same geometry (the same generations in the same
 * slots).  Its packets belong to another trace: reported, never mixed
 * in. */
TEST(replaced_while_read)
{
	const char *a = make_trace("a.weft", 100000, 4 << 20);
	const char *b = make_trace_from("b.weft", 1000001, 100000, 4 << 20);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, a, 0, NULL));
	struct weft_event ev;
	CHECK_OK(weft_reader_next(r, &ev));
	CHECK_U64(ev.id, 1);
	int in = open(b, O_RDONLY), out = open(a, O_WRONLY | O_TRUNC);
	CHECK(in >= 0 && out >= 0);
	char buf[65536];
	ssize_t k;
	while ((k = read(in, buf, sizeof buf)) > 0)
		CHECK(write(out, buf, (size_t)k) == k);
	close(in);
	close(out);
	int rc;
	while ((rc = weft_reader_next(r, &ev)) == 0)
		if (ev.type != WEFT_EV_LOSS && ev.id > 100000)
			FAIL("event of the other trace: id %llu",
			     (unsigned long long)ev.id);
	CHECK_EQ(rc, WEFT_EEOF);
	CHECK(has_problem(r, "changed while being read"));
	weft_reader_close(r);
}

/* Input that is not a file is read only as far as its header declares:
 * a trace followed by endless zeros is read to its end, and /dev/zero is
 * refused at once. */
TEST(endless_input)
{
	const char *p = make_trace("e.weft", 1000, 1 << 20);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	uint64_t want = drain(r);
	weft_reader_close(r);
	CHECK_EQ(want, 3000);

	const char *fifo = tpath("fifo");
	CHECK(mkfifo(fifo, 0600) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		int out = open(fifo, O_WRONLY);
		int in = open(p, O_RDONLY);
		char buf[65536];
		ssize_t k;
		while ((k = read(in, buf, sizeof buf)) > 0)
			if (write(out, buf, (size_t)k) != k)
				_exit(0);
		memset(buf, 0, sizeof buf);
		for (;;) /* until the reader closes the pipe */
			if (write(out, buf, sizeof buf) < 0)
				_exit(0);
	}
	CHECK_OK(weft_reader_open(&r, fifo, 0, NULL));
	CHECK_EQ(drain(r), want);
	CHECK_EQ(weft_reader_info(r)->problems, 0);
	weft_reader_close(r);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);

	struct weft_diag d = {0};
	CHECK_EQ(weft_reader_open(&r, "/dev/zero", 0, &d), WEFT_ENOTTRACE);
	CHECK(strstr(d.msg, "not a weft trace"));
}

static const struct {
	const char *in;
	size_t len;
	const char *out; /* Python: in.decode("utf-8", "replace") */
} utf8_cases[] = {
	{"\x63\x61\x66\xe9", 4, "\x63\x61\x66\xef\xbf\xbd"},
	{"\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
	{"\xf4\x90\x80\x80", 4,
	 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
	{"\xc0\x80", 2, "\xef\xbf\xbd\xef\xbf\xbd"},
	{"\xe0\x80\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
	{"\xe0\xa0", 2, "\xef\xbf\xbd"},
	{"\x61\xf0\x9f\x98\x80\x62", 6, "\x61\xf0\x9f\x98\x80\x62"},
	{"\xf0\x9f\x98", 3, "\xef\xbf\xbd"},
	{"\x80\xbf", 2, "\xef\xbf\xbd\xef\xbf\xbd"},
	{"\xf5\x80", 2, "\xef\xbf\xbd\xef\xbf\xbd"},
	{"\xe2\x82\xac\xff", 4, "\xe2\x82\xac\xef\xbf\xbd"},
	{"\xf4\x8f\xbf\xbf", 4, "\xf4\x8f\xbf\xbf"},
	{"\xed\x9f\xbf", 3, "\xed\x9f\xbf"},
	{"\xef\xbf\xbd", 3, "\xef\xbf\xbd"},
	{"\xc3", 1, "\xef\xbf\xbd"},
	{"plain ascii, long enough for the fast loop", 42,
	 "plain ascii, long enough for the fast loop"},
};

TEST(utf8_like_python)
{
	for (size_t i = 0; i < sizeof utf8_cases / sizeof *utf8_cases; i++) {
		char out[64];
		size_t n = weft_utf8_fix(out, sizeof out, utf8_cases[i].in,
					 utf8_cases[i].len);
		if (n != strlen(utf8_cases[i].out) ||
		    memcmp(out, utf8_cases[i].out, n))
			FAIL("case %zu: got %zu bytes", i, n);
		CHECK_EQ(weft_utf8_valid(utf8_cases[i].in, utf8_cases[i].len),
			 !strcmp(utf8_cases[i].in, utf8_cases[i].out));
		CHECK(weft_utf8_valid(out, n));
	}
	/* Cut at a character boundary when it does not fit. */
	char small[5];
	CHECK_EQ(weft_utf8_fix(small, sizeof small, "ab\xe2\x82\xac", 5), 2);
	CHECK_STR(small, "ab");
}

/* Hostile bytes in labels, kinds, notes and failure messages come out of
 * the reader and the model as valid UTF-8, U+FFFD in place of what was
 * invalid; a title cut to fit ends on a character boundary. */
TEST(hostile_text)
{
	const char *p = tpath("h.weft");
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_create(1, "k\xff");
	weft_label(1, "caf\xe9");
	weft_note(1, "\xed\xa0\x80");
	weft_create(2, "ok");
	weft_fail(2, "\xf4\x90\x80\x80!");
	char longl[400];
	for (int i = 0; i < 199; i++)
		memcpy(longl + 2 * i, "\xc3\xa9", 2); /* é */
	longl[398] = 0;
	weft_create(3, "k");
	weft_label(3, longl);
	CHECK_OK(weft_stop());

	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	struct weft_event ev;
	int replaced = 0;
	while (weft_reader_next(r, &ev) == 0) {
		if (ev.text) {
			CHECK(weft_utf8_valid(ev.text, ev.text_len));
			CHECK_EQ(strlen(ev.text), ev.text_len);
			replaced += !!(ev.flags & WEFT_EVF_REPLACED);
		}
		const char *nm = weft_reader_name(r, ev.name);
		CHECK(weft_utf8_valid(nm, strlen(nm)));
	}
	CHECK_EQ(replaced, 3);
	weft_reader_close(r);

	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	struct weft_model *m;
	CHECK_OK(weft_model_load(&m, r));
	uint32_t nth, nl;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_label *l = weft_model_labels(m, &nl);
	int seen = 0;
	for (uint32_t t = 0; t < nth; t++) {
		if (th[t].id == 1) {
			CHECK_STR(weft_model_name(m, th[t].kind), "k\xef\xbf"
								  "\xbd");
			seen++;
		}
		if (th[t].id == 2) {
			CHECK_STR(weft_model_string(m, th[t].message),
				  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
				  "\xef\xbf\xbd!");
			seen++;
		}
		char title[64];
		weft_model_title(m, t, title, sizeof title);
		CHECK(weft_utf8_valid(title, strlen(title)));
		if (th[t].id == 3) {
			CHECK_EQ(strlen(title), 62); /* 31 é, not 31.5 */
			seen++;
		}
	}
	CHECK_EQ(seen, 3);
	int labels = 0;
	for (uint32_t i = 0; i < nl; i++) {
		const char *s = weft_model_string(m, l[i].text);
		CHECK(weft_utf8_valid(s, strlen(s)));
		if (!strcmp(s, "caf\xef\xbf\xbd") || !strcmp(s, "\xef\xbf\xbd"
								"\xef\xbf\xbd"
								"\xef\xbf\xbd"))
			labels++;
	}
	CHECK_EQ(labels, 2);
	weft_model_free(m);
	weft_reader_close(r);
}

/* weft_reader_copy: what a reader of the copy sees is what a reader of
 * the ring sees; compact keeps only the packets in use (of a writer that
 * never stopped: a clean stop cuts the ring to them itself). */
TEST(consistent_copy)
{
	const char *p = tpath("c.weft");
	pid_t pid = fork();
	if (pid == 0) {
		if (weft_start(p, 4 << 20, WEFT_DISCARD))
			_exit(1);
		for (int i = 1; i < 1 + 5000; i++) {
			weft_create((uint64_t)i, "request");
			weft_label((uint64_t)i, "a label long enough to fill "
						"packets");
			weft_resolve((uint64_t)i);
		}
		_exit(0); /* (no stop) */
	}
	int st;
	CHECK_EQ(waitpid(pid, &st, 0), pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CHECK_U64(file_size(p), 4 << 20);
	struct weft_reader *r, *c;
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	void *buf;
	size_t len;
	uint64_t torn = 1;
	CHECK_OK(weft_reader_copy(r, WEFT_COPY_COMPACT, &buf, &len, &torn));
	CHECK_EQ(torn, 0);
	CHECK(len < file_size(p) / 4);
	CHECK_OK(weft_reader_open_mem(&c, buf, len, 0, NULL));
	struct weft_event a, b;
	uint64_t n = 0;
	for (;;) {
		int ra = weft_reader_next(r, &a), rb = weft_reader_next(c, &b);
		CHECK_EQ(ra, rb);
		if (ra)
			break;
		CHECK_U64(a.ts, b.ts);
		CHECK_EQ(a.type, b.type);
		CHECK_U64(a.id, b.id);
		CHECK_EQ(!a.text, !b.text);
		if (a.text)
			CHECK_STR(a.text, b.text);
		n++;
	}
	CHECK_EQ(n, 15000);
	weft_reader_close(c);
	weft_reader_close(r);
	free(buf);
}

/* Bytes this process has read with read(2) and pread(2) so far. */
static uint64_t bytes_read(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	CHECK(f != NULL);
	char line[128];
	uint64_t n = UINT64_MAX;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "rchar: %" SCNu64, &n) == 1)
			break;
	fclose(f);
	CHECK(n != UINT64_MAX);
	return n;
}

/* A big ring that holds a few packets is read only as far as it was
 * written (the slots past the generations handed out were never used):
 * `weft record` summarizing a fresh 64 MiB ring read a header and a
 * trailer of each of its slots, and the file's pages with them.  When the
 * header's count lies (lower than the packets there), every slot is read
 * and no event is lost. */
TEST(unused_slots_unread)
{
	const char *p = make_trace("u.weft", 3000, 256 << 20);
	struct weft_reader *r;
	uint64_t before = bytes_read();
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	CHECK_U64(drain(r), 9000);
	uint64_t used = weft_reader_info(r)->packets_used;
	CHECK(used >= 2 && used < 16);
	weft_reader_close(r);
	uint64_t read = bytes_read() - before;
	/* its packets (of 64 KiB at most), the header, and little else */
	if (read > (used + 1) * 65536)
		FAIL("read %" PRIu64 " bytes of a 256 MiB ring to find "
		     "%" PRIu64 " packets",
		     read, used);

	/* The header says one packet: the slot after it is not empty. */
	int fd = open(p, O_RDWR);
	CHECK(fd >= 0);
	uint64_t one = 1;
	CHECK(pwrite(fd, &one, 8, offsetof(struct weft__fhdr, next_gen)) == 8);
	close(fd);
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	CHECK_U64(drain(r), 9000);
	CHECK_U64(weft_reader_info(r)->packets_used, used);
	weft_reader_close(r);
}

/* weft_stats_compute on a trace of known times (the manual clock). */
TEST(stats_in_the_library)
{
	const char *p = tpath("s.weft");
	CHECK_OK(weft_start(p, 1 << 20, WEFT_CLOCK_MANUAL));
	for (int i = 1; i <= 4; i++) {
		weft_clock_set((uint64_t)i * 100);
		weft_create((uint64_t)i, "req");
		weft_label((uint64_t)i, i % 2 ? "odd" : "even");
		weft_run((uint64_t)i);
		weft_clock_set((uint64_t)i * 100 + (uint64_t)i * 10);
		if (i == 3)
			weft_fail(3, "no");
		else if (i != 4)
			weft_resolve((uint64_t)i);
		weft_run(0);
	}
	weft_create(9, "timer");
	weft_clock_set(1000);
	weft_phase("poll");
	weft_clock_set(1500);
	weft_phase("timers");
	weft_clock_set(1600);
	weft_phase("poll");
	weft_clock_set(2000);
	weft_counter_set("c", 1); /* the trace's last event */
	CHECK_OK(weft_stop());

	struct weft_reader *r;
	struct weft_model *m;
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	CHECK_OK(weft_model_load(&m, r));
	struct weft_stats *st;
	CHECK_OK(weft_stats_compute(&st, m));
	CHECK_EQ(st->threads, 5);
	CHECK_EQ(st->nkinds, 2);
	CHECK_STR(st->kinds[0].key, "req"); /* most frequent first */
	CHECK_EQ(st->kinds[0].count, 4);
	CHECK_EQ(st->kinds[0].pending, 1);
	CHECK_EQ(st->kinds[0].failed, 1);
	/* lifetimes 10, 20, 30 (ns): p50 20, max 30; runs 10..40 */
	CHECK_EQ(st->kinds[0].life[0], 20);
	CHECK_EQ(st->kinds[0].life[3], 30);
	CHECK_EQ(st->kinds[0].run[3], 40);
	CHECK_STR(st->kinds[1].key, "timer");
	CHECK_EQ(st->kinds[1].life[0], -1); /* none finished */
	CHECK_EQ(st->nlabels, 3);	    /* even, odd, (none) */
	CHECK_EQ(st->labels[0].count, 2);
	CHECK_EQ(st->nlongest, 4);
	uint32_t nrun;
	const struct weft_run *run = weft_model_runs(m, &nrun);
	CHECK_EQ(run[st->longest[0]].t1 - run[st->longest[0]].t0, 40);
	CHECK_EQ(run[st->longest[3]].t1 - run[st->longest[3]].t0, 10);
	CHECK_EQ(st->nphases, 2);
	CHECK_STR(weft_model_name(m, st->phases[0].name), "poll");
	CHECK_EQ(st->phases[0].count, 2);
	CHECK_EQ(st->phases[0].total, 900);
	CHECK_EQ(st->phases[1].total, 100);
	weft_stats_free(st);
	weft_model_free(m);
	weft_reader_close(r);
}

/* The statistics of a lean model in one pass (weft_stats_stream_*) as
 * weft_stats_compute's of the whole model: a phase whose longest run is
 * still open when it ends (and one whose run began before it), a counter
 * sampled twice at one instant, three phases of a name; then the phases'
 * histogram past the exact limit, within 1/128 below the exact values. */
static struct weft_stats *stats_one_pass(const char *p, uint32_t exact,
					 struct weft_model **mp,
					 struct weft_reader **rp)
{
	struct weft_stats_stream *ss;
	struct weft_stats *st;
	CHECK_OK(weft_reader_open(rp, p, 0, NULL));
	CHECK_OK(weft_model_new(mp, *rp));
	CHECK_OK(weft_stats_stream_new(&ss, *mp));
	if (exact)
		weft_stats_stream_set_exact(ss, exact);
	CHECK(weft_model_update(*mp) >= 0);
	CHECK_OK(weft_stats_stream_finish(ss, &st));
	weft_stats_stream_free(ss);
	/* read once: what ended went to the sink */
	CHECK_EQ(weft_model_update(*mp), -EINVAL);
	return st;
}

TEST(stats_in_one_pass)
{
	const char *p = tpath("s1.weft");
	CHECK_OK(weft_start(p, 1 << 20, WEFT_CLOCK_MANUAL));
	weft_clock_set(100);
	weft_create(1, "req");
	weft_create(2, "req");
	weft_create(3, "other");
	weft_run(1); /* [100, 160): begins before any phase */
	weft_clock_set(150);
	weft_phase("poll"); /* [150, 300): the longest poll (the first) */
	weft_clock_set(160);
	weft_run(2); /* [160, 400): open when that poll ends */
	weft_clock_set(300);
	weft_phase("timers"); /* [300, 400) */
	weft_counter_set("c", 1);
	weft_counter_add("c", 2); /* the same instant: one sample */
	weft_clock_set(400);
	weft_phase("poll"); /* [400, 550): as long, not the longest */
	weft_run(3);	    /* [400, 420) */
	weft_clock_set(420);
	weft_run(0);
	weft_resolve(3);
	weft_clock_set(500);
	weft_run(1); /* [500, 530) */
	weft_clock_set(530);
	weft_run(0);
	weft_clock_set(550);
	weft_phase("timers"); /* [550, 750): the longest timers */
	weft_counter_set("c", 7);
	weft_clock_set(610);
	weft_run(1); /* [610, 620): its longest run, shorter than 30 */
	weft_clock_set(620);
	weft_run(0);
	weft_clock_set(750);
	weft_phase("poll"); /* [750, 800) */
	weft_clock_set(760);
	weft_run(2); /* open at the end: [760, 800) */
	weft_clock_set(800);
	weft_note(77, "never created"); /* (a thread all the same) */
	weft_resolve(1);
	CHECK_OK(weft_stop());

	struct weft_reader *r, *r2;
	struct weft_model *m, *m2;
	struct weft_stats *a, *b;
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	CHECK_OK(weft_model_load(&m, r));
	CHECK_OK(weft_stats_compute(&a, m));
	b = stats_one_pass(p, 0, &m2, &r2);
	CHECK_EQ(b->approximate, 0);
	CHECK_EQ(b->threads, 4);
	CHECK_EQ(a->threads, b->threads);
	CHECK_EQ(a->nkinds, b->nkinds);
	for (uint32_t i = 0; i < a->nkinds; i++) {
		CHECK_STR(a->kinds[i].key, b->kinds[i].key);
		CHECK_EQ(a->kinds[i].count, b->kinds[i].count);
		CHECK_EQ(a->kinds[i].pending, b->kinds[i].pending);
		for (int k = 0; k < 4; k++) {
			CHECK_EQ(a->kinds[i].life[k], b->kinds[i].life[k]);
			CHECK_EQ(a->kinds[i].run[k], b->kinds[i].run[k]);
		}
	}
	/* runs 240, 60, 40 (the one open at the end), 30, 20, 10 */
	CHECK_EQ(b->nlongest, 6);
	CHECK_EQ(a->nlongest, 6);
	for (uint32_t i = 0; i < a->nlongest; i++) {
		CHECK_EQ(a->longest_runs[i].t0, b->longest_runs[i].t0);
		CHECK_EQ(a->longest_runs[i].t1, b->longest_runs[i].t1);
		CHECK_EQ(a->longest_runs[i].thread, b->longest_runs[i].thread);
	}
	CHECK_EQ(b->longest_runs[0].t0, 160);
	CHECK_EQ(b->longest_runs[2].t1, 800);
	CHECK_EQ(b->nphases, 2);
	CHECK_EQ(a->nphases, 2);
	for (uint32_t i = 0; i < 2; i++) {
		const struct weft_stats_phase *x = &a->phases[i],
					      *y = &b->phases[i];
		CHECK_STR(weft_model_name(m, x->name),
			  weft_model_name(m2, y->name));
		CHECK_EQ(x->count, y->count);
		CHECK_EQ(x->total, y->total);
		CHECK_EQ(x->first, y->first);
		CHECK_EQ(x->longest_t0, y->longest_t0);
		CHECK_EQ(x->longest_t1, y->longest_t1);
		CHECK_EQ(x->run == WEFT_NONE, y->run == WEFT_NONE);
		for (int k = 0; k < 4; k++)
			CHECK_EQ(x->d[k], y->d[k]);
		if (x->run != WEFT_NONE) {
			CHECK_EQ(x->longest_run.t0, y->longest_run.t0);
			CHECK_EQ(x->longest_run.t1, y->longest_run.t1);
		}
	}
	CHECK_STR(weft_model_name(m2, b->phases[0].name), "poll");
	CHECK_EQ(b->phases[0].count, 3);
	CHECK_EQ(b->phases[0].longest_t0, 150);
	CHECK(b->phases[0].run != WEFT_NONE);
	CHECK_EQ(b->phases[0].longest_run.t0, 160);
	CHECK_EQ(b->phases[0].longest_run.t1, 400);
	CHECK_EQ(b->phases[1].count, 2);
	CHECK_EQ(b->phases[1].longest_t0, 550);
	CHECK(b->phases[1].run != WEFT_NONE);
	CHECK_EQ(b->phases[1].longest_run.t0, 610);
	/* the counter's sum over its one process, as the model's */
	struct weft_sample *sm;
	uint32_t ns, np;
	uint32_t nctr;
	const struct weft_counter *ctr = weft_model_counters(m, &nctr);
	CHECK_EQ(nctr, 1);
	CHECK_OK(weft_model_counter_sum(m, ctr[0].name, &sm, &ns, &np));
	CHECK_EQ(ns, 2); /* (3 at 300, 7 at 550) */
	CHECK_EQ(b->nsums, 1);
	CHECK_EQ(b->sums[0].n, ns);
	CHECK_EQ(b->sums[0].processes, np);
	CHECK_EQ(b->sums[0].min, 3);
	CHECK_EQ(b->sums[0].max, 7);
	CHECK_EQ(b->sums[0].last, 7);
	free(sm);
	CHECK_EQ(weft_model_counter_last(m2, 0), 7);
	uint32_t nrun;
	weft_model_runs(m2, &nrun);
	CHECK_EQ(nrun, 0); /* a lean model keeps no runs */
	weft_stats_free(a);
	weft_stats_free(b);
	weft_model_free(m);
	weft_model_free(m2);
	weft_reader_close(r);
	weft_reader_close(r2);

	/* 1000 stays of poll, 1 + 997 i ns: past 16 kept exactly, from
	 * the histogram, each within 1/128 below the exact value */
	p = tpath("s2.weft");
	CHECK_OK(weft_start(p, 1 << 20, WEFT_CLOCK_MANUAL));
	uint64_t t = 1000;
	for (int i = 0; i < 1000; i++) {
		weft_clock_set(t);
		weft_phase("poll");
		t += 1 + 997 * (uint64_t)((i * 7) % 1000);
		weft_clock_set(t);
		weft_phase("pending");
		t += 5;
	}
	weft_clock_set(t);
	weft_phase(NULL);
	CHECK_OK(weft_stop());
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	CHECK_OK(weft_model_load(&m, r));
	CHECK_OK(weft_stats_compute(&a, m));
	b = stats_one_pass(p, 16, &m2, &r2);
	CHECK_EQ(b->approximate, 2);
	CHECK_EQ(b->nphases, 2);
	CHECK_EQ(b->phases[0].count, 1000);
	CHECK_EQ(b->phases[0].total, a->phases[0].total);
	CHECK_EQ(b->phases[1].d[0], 5); /* (below 256: exact) */
	CHECK_EQ(a->phases[0].d[0], 1 + 997 * 499);
	for (int k = 0; k < 3; k++) {
		int64_t x = a->phases[0].d[k], y = b->phases[0].d[k];
		CHECK(y <= x);
		CHECK(y > x - x / 128 - 1);
	}
	CHECK_EQ(b->phases[0].d[3], a->phases[0].d[3]); /* max: exact */
	weft_stats_free(a);
	weft_stats_free(b);
	weft_model_free(m);
	weft_model_free(m2);
	weft_reader_close(r);
	weft_reader_close(r2);
}

/* A live ring truncated under its writer: the reader following it
 * counts what it can no longer read as lost, once however often it looks,
 * and reports no corruption; it never dies. */
TEST(live_ring_truncated)
{
	const char *p = tpath("live.weft");
	int ready[2], go[2];
	CHECK(pipe(ready) == 0 && pipe(go) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		if (weft_start(p, 4 << 20, 0))
			_exit(1);
		for (uint64_t i = 1; i < 200000; i++) {
			weft_create(i, "request");
			weft_resolve(i);
		}
		char c;
		if (write(ready[1], "x", 1) != 1 || read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0); /* still holding the ring until now */
	}
	char c;
	CHECK(read(ready[0], &c, 1) == 1);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, p, WEFT_READ_FOLLOW, NULL));
	CHECK_EQ(weft_reader_info(r)->writer, WEFT_WRITER_LIVE);
	uint32_t np = weft_reader_info(r)->npackets;
	uint64_t hs = weft_reader_info(r)->file_size -
		      (uint64_t)np * weft_reader_info(r)->packet_size;
	struct weft_event ev;
	uint64_t n = 0;
	int rc, polls = 0;
	while ((rc = weft_reader_next(r, &ev)) != WEFT_EEOF) {
		if (rc == WEFT_EAGAIN) {
			if (++polls == 1)
				CHECK(truncate(p, (off_t)(hs + 8192)) == 0);
			if (polls == 50)
				CHECK(write(go[1], "x", 1) == 1);
			usleep(1000);
			continue;
		}
		CHECK_EQ(rc, 0);
		n++;
	}
	CHECK(polls >= 50);
	CHECK(n > 0);
	CHECK_EQ(weft_reader_info(r)->problems, 0);
	CHECK(weft_reader_info(r)->losses.packets_torn <= np);
	weft_reader_close(r);
	waitpid(pid, NULL, 0);
}

/* Three OS threads, each its own stream of many packets. */
static void *three_thread(void *arg)
{
	uint64_t base = (uint64_t)(uintptr_t)arg;
	for (uint64_t i = 0; i < 40000; i++) {
		weft_create(base + i, "request");
		if (i % 7 == 0)
			weft_label(base + i, "a label of some length");
		weft_counter_add("bytes", (int64_t)i);
		weft_resolve(base + i);
	}
	return NULL;
}

static const char *make_three(const char *name)
{
	const char *p = tpath(name);
	CHECK_OK(weft_start(p, 32 << 20, WEFT_DISCARD));
	pthread_t t[3];
	for (uintptr_t k = 0; k < 3; k++)
		CHECK(!pthread_create(&t[k], NULL, three_thread,
				      (void *)((k + 1) * 1000000)));
	for (int k = 0; k < 3; k++)
		CHECK(!pthread_join(t[k], NULL));
	CHECK_OK(weft_stop());
	return p;
}

/* One event's every field, its text by content. */
static int same_event(const struct weft_event *a, const struct weft_event *b)
{
	return a->ts == b->ts && a->ns == b->ns && a->stream == b->stream &&
	       a->type == b->type && a->flags == b->flags &&
	       a->actor == b->actor && a->id == b->id && a->id2 == b->id2 &&
	       a->name == b->name && a->name2 == b->name2 &&
	       a->value == b->value && a->value2 == b->value2 &&
	       a->value3 == b->value3 && a->offset == b->offset &&
	       a->text_len == b->text_len && !a->text == !b->text &&
	       (!a->text || !memcmp(a->text, b->text, a->text_len));
}

/* Reads p with and without reading ahead, side by side: the same events,
 * losses and problems.  Returns the events. */
static uint64_t same_both_ways(const char *p)
{
	struct weft_reader *a, *b;
	CHECK_OK(weft_reader_open(&a, p, 0, NULL));
	CHECK_OK(weft_reader_open(&b, p, WEFT_READ_ONE_THREAD, NULL));
	struct weft_event ea, eb;
	uint64_t n = 0;
	int ra, rb;
	do {
		ra = weft_reader_next(a, &ea);
		rb = weft_reader_next(b, &eb);
		CHECK_EQ(ra, rb);
		if (!ra && !same_event(&ea, &eb))
			FAIL("%s: event %llu differs read ahead", p,
			     (unsigned long long)n);
		n += !ra;
	} while (!ra);
	CHECK_EQ(ra, WEFT_EEOF);
	const struct weft_trace_info *ia = weft_reader_info(a),
				     *ib = weft_reader_info(b);
	CHECK(!memcmp(&ia->losses, &ib->losses, sizeof ia->losses));
	CHECK(!memcmp(ia->counts, ib->counts, sizeof ia->counts));
	unsigned na, nb;
	const struct weft_problem *pa = weft_reader_problems(a, &na),
				  *pb = weft_reader_problems(b, &nb);
	CHECK_EQ(na, nb);
	for (unsigned i = 0; i < na && i < nb; i++)
		CHECK(pa[i].offset == pb[i].offset &&
		      !strcmp(pa[i].what, pb[i].what));
	weft_reader_close(a);
	weft_reader_close(b);
	return n;
}

/* Three OS threads taking turns at the same (manual) times: in each
 * round, every thread writes its events at the round's time, the first
 * registered first. */
#define TIE_ROUNDS 20
#define TIE_EACH 300
static pthread_mutex_t tie_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t tie_cv = PTHREAD_COND_INITIALIZER;
static int tie_turn; /* round * 3 + thread */

static void *tie_thread(void *arg)
{
	int k = (int)(uintptr_t)arg;
	for (int round = 0; round < TIE_ROUNDS; round++) {
		pthread_mutex_lock(&tie_mu);
		while (tie_turn != round * 3 + k)
			pthread_cond_wait(&tie_cv, &tie_mu);
		pthread_mutex_unlock(&tie_mu);
		weft_clock_set((uint64_t)(round + 1) * 1000);
		for (uint64_t i = 0; i < TIE_EACH; i++) {
			uint64_t id = (uint64_t)(k + 1) << 32 |
				      ((uint64_t)round * TIE_EACH + i);
			weft_create(id, "request");
			weft_resolve(id);
		}
		pthread_mutex_lock(&tie_mu);
		tie_turn++;
		pthread_cond_broadcast(&tie_cv);
		pthread_mutex_unlock(&tie_mu);
	}
	return NULL;
}

/* The reader decodes a stream's events in batches: they come in the
 * merge's order (times, then stream indices: a stream's batch stops
 * where another stream's next event has the same time and a lower
 * index), none past a packet's end, and weft_reader_info() between two
 * calls counts only what was returned. */
TEST(batches_in_order_and_counted)
{
	const char *p = tpath("ties.weft");
	CHECK_OK(weft_start(p, 4 << 20, WEFT_DISCARD | WEFT_CLOCK_MANUAL));
	pthread_t th[3];
	for (uintptr_t k = 0; k < 3; k++)
		CHECK(!pthread_create(&th[k], NULL, tie_thread, (void *)k));
	for (int k = 0; k < 3; k++)
		CHECK(!pthread_join(th[k], NULL));
	CHECK_OK(weft_stop());

	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	struct weft_event ev;
	uint64_t n = 0, per[3] = {0}, last[3] = {0}, next[3] = {0};
	uint64_t counts[WEFT_EV_COUNT] = {0}, pts = 0;
	uint32_t pstream = 0;
	int rc;
	while ((rc = weft_reader_next(r, &ev)) == 0) {
		CHECK(ev.stream < 3);
		if (n && (ev.ts < pts || (ev.ts == pts && ev.stream < pstream)))
			FAIL("event %llu: ts %llu stream %u after ts %llu "
			     "stream %u",
			     (unsigned long long)n, (unsigned long long)ev.ts,
			     ev.stream, (unsigned long long)pts, pstream);
		pts = ev.ts;
		pstream = ev.stream;
		CHECK(ev.type == WEFT_EV_CREATE || ev.type == WEFT_EV_RESOLVE);
		/* each thread's own events, in its order, at its times */
		uint64_t k = ev.id >> 32, seq = ev.id & 0xffffffffu;
		CHECK(k == ev.stream + 1);
		CHECK_U64(seq, next[ev.stream] / 2);
		CHECK_U64(ev.ts, (seq / TIE_EACH + 1) * 1000);
		next[ev.stream]++;
		n++;
		per[ev.stream]++;
		last[ev.stream] = ev.ts;
		counts[ev.type]++;
		const struct weft_trace_info *in = weft_reader_info(r);
		CHECK_U64(in->events, n);
		CHECK(!memcmp(in->counts, counts, sizeof counts));
		CHECK_EQ(in->nstreams, 3);
		for (int s = 0; s < 3; s++) {
			CHECK_U64(in->streams[s].events, per[s]);
			if (per[s])
				CHECK_U64(in->streams[s].last_ts, last[s]);
		}
	}
	CHECK_EQ(rc, WEFT_EEOF);
	CHECK_U64(n, 3 * TIE_ROUNDS * TIE_EACH * 2);
	weft_reader_close(r);

	/* read without asking for the counts between: the same at the end */
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	CHECK_U64(drain(r), n);
	const struct weft_trace_info *in = weft_reader_info(r);
	CHECK_U64(in->events, n);
	CHECK(!memcmp(in->counts, counts, sizeof counts));
	for (int s = 0; s < 3; s++)
		CHECK_U64(in->streams[s].events, per[s]);
	weft_reader_close(r);
}

/* Copies file a to b, its bytes from `from` on changed by flip(). */
static void copy_changed(const char *a, const char *b, uint64_t from,
			 uint64_t every)
{
	int in = open(a, O_RDONLY),
	    out = open(b, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(in >= 0 && out >= 0);
	static uint8_t buf[1 << 16];
	uint64_t at = 0;
	ssize_t k;
	while ((k = read(in, buf, sizeof buf)) > 0) {
		for (ssize_t i = 0; i < k; i++)
			if (at + (uint64_t)i >= from &&
			    (at + (uint64_t)i) % every == 0)
				buf[i] ^= 0x5a;
		CHECK(write(out, buf, (size_t)k) == k);
		at += (uint64_t)k;
	}
	close(in);
	close(out);
}

/* The OS threads of this process. */
static int threads_now(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/task");
	CHECK(d != NULL);
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The threads once a joined one is gone: pthread_join returns when the
 * thread's last act is done, a moment before the kernel takes it off
 * /proc/self/task (seen under load: one too many right after the
 * close).  Waits up to 5 s for `want`, then gives the count. */
static int threads_settle(int want)
{
	int n = threads_now();
	for (int i = 0; i < 500 && n != want; i++) {
		usleep(10000);
		n = threads_now();
	}
	return n;
}

/* Packets read ahead on a second thread (WEFT_READ_AHEAD=always: at any
 * pace, so that slow builds go through the worker too): the same events
 * as read on one, field by field, on a ring of one stream, of three, on
 * copies with damaged packets and cut short, and on a run of two rings
 * merged. */
TEST(read_ahead_same_events)
{
	setenv("WEFT_READ_AHEAD", "always", 1);
	const char *one = make_trace("ra1.weft", 150000, 32 << 20);
	const char *three = make_three("ra3.weft");
	CHECK_U64(same_both_ways(one), 450000);
	uint64_t n3 = same_both_ways(three);
	CHECK(n3 > 300000);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, three, 0, NULL));
	CHECK(weft_reader_info(r)->nstreams >= 3);
	uint64_t hs = weft_reader_info(r)->file_size -
		      (uint64_t)weft_reader_info(r)->npackets *
			      weft_reader_info(r)->packet_size;
	uint64_t fs = weft_reader_info(r)->file_size;
	uint64_t ps = weft_reader_info(r)->packet_size;
	weft_reader_close(r);
	/* bytes flipped in the packets: corrupt ones reported alike */
	const char *bad = tpath("ra-bad.weft");
	copy_changed(three, bad, hs, 40009);
	uint64_t nb = same_both_ways(bad);
	CHECK(nb > 0 && nb < n3);
	/* cut short after the reader opened it */
	const char *cut = tpath("ra-cut.weft");
	copy_changed(three, cut, fs, 1);
	struct weft_reader *a, *b;
	CHECK_OK(weft_reader_open(&a, cut, 0, NULL));
	CHECK_OK(weft_reader_open(&b, cut, WEFT_READ_ONE_THREAD, NULL));
	CHECK(truncate(cut, (off_t)(hs + 5 * ps)) == 0);
	uint64_t na = drain(a), nb2 = drain(b);
	CHECK_U64(na, nb2);
	CHECK(na < n3);
	CHECK(has_problem(a, "the file shrank while being read"));
	CHECK_U64(weft_reader_info(a)->losses.packets_torn,
		  weft_reader_info(b)->losses.packets_torn);
	weft_reader_close(a);
	weft_reader_close(b);
	/* two rings merged: one worker reads ahead for both */
	const char *two[] = {one, three};
	CHECK_OK(weft_reader_open_many(&a, two, 2, 0, NULL, NULL));
	CHECK_OK(weft_reader_open_many(&b, two, 2, WEFT_READ_ONE_THREAD, NULL,
				       NULL));
	struct weft_event ea, eb;
	int ra, rb;
	uint64_t n = 0;
	while ((ra = weft_reader_next(a, &ea)) == 0) {
		rb = weft_reader_next(b, &eb);
		CHECK_EQ(rb, 0);
		if (!same_event(&ea, &eb))
			FAIL("merged: event %llu differs",
			     (unsigned long long)n);
		n++;
	}
	CHECK_EQ(ra, WEFT_EEOF);
	CHECK_EQ(weft_reader_next(b, &eb), WEFT_EEOF);
	CHECK(n >= 450000 + n3); /* (and the processes' own events) */
	weft_reader_close(a);
	weft_reader_close(b);
	/* closed halfway, a packet being read ahead */
	CHECK_OK(weft_reader_open(&a, three, 0, NULL));
	for (int i = 0; i < 5000; i++)
		CHECK_OK(weft_reader_next(a, &ea));
	weft_reader_close(a);
}

/* A reader forked halfway (its worker reading ahead in the parent): the
 * child reads the rest on its own thread, the same events, and does not
 * hang on the parent's worker. */
TEST(read_ahead_forked)
{
	setenv("WEFT_READ_AHEAD", "always", 1);
	const char *p = make_three("raf.weft");
	uint64_t all = same_both_ways(p);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	struct weft_event ev;
	for (uint64_t i = 0; i < all / 3; i++)
		CHECK_OK(weft_reader_next(r, &ev));
	pid_t pid = fork();
	if (pid == 0) {
		alarm(30);
		uint64_t n = all / 3;
		int rc;
		while ((rc = weft_reader_next(r, &ev)) == 0)
			n++;
		weft_reader_close(r);
		_exit(rc == WEFT_EEOF && n == all ? 0 : 1);
	}
	CHECK(pid > 0);
	CHECK_U64(all / 3 + drain(r), all);
	weft_reader_close(r);
	int st;
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* A worker only for a reader that goes through its packets quickly: one
 * that takes its time over each (a model built, text printed) reads them
 * itself, and no thread is started; WEFT_READ_AHEAD=always starts one
 * (joined at close), =never none. */
TEST(read_ahead_by_pace)
{
	const char *p = make_trace("pace.weft", 40000, 8 << 20);
	int base = threads_now();
	struct weft_reader *r;
	struct weft_event ev;
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	uint64_t n = 0;
	while (weft_reader_next(r, &ev) == 0)
		if (++n % 500 == 0)
			usleep(200); /* > 50 µs a packet */
	CHECK_EQ(threads_now(), base);
	weft_reader_close(r);
	/* read at full pace, a worker by the pace alone (started after a
	 * few packets, running until the reader is closed); small packets
	 * (4 KiB), quick to go through even unoptimised and under load */
	unsetenv("WEFT_READ_AHEAD");
	const char *quick = make_trace("quick.weft", 4000, 1 << 20);
	CHECK_OK(weft_reader_open(&r, quick, 0, NULL));
	CHECK_EQ(weft_reader_info(r)->packet_size, 4096);
	CHECK(weft_reader_info(r)->npackets > 40);
	for (int i = 0; i < 6000; i++)
		CHECK_OK(weft_reader_next(r, &ev));
	int paced = threads_now();
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* (a sanitizer's reader is slower than the pace that reads ahead:
	 * the main build checks it) */
	paced = paced > base ? paced : base + 1;
#else
	CHECK(paced > base);
#endif
	weft_reader_close(r);
	if (threads_settle(base) != base)
		CHECK_EQ(threads_settle(paced - 1), paced - 1);
	base = paced - 1;
	setenv("WEFT_READ_AHEAD", "always", 1);
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	for (int i = 0; i < 20000; i++)
		CHECK_OK(weft_reader_next(r, &ev));
	/* (a sanitizer may start a thread of its own at the first) */
	int with = threads_now();
	CHECK(with > base);
	weft_reader_close(r);
	CHECK_EQ(threads_settle(with - 1), with - 1);
	setenv("WEFT_READ_AHEAD", "never", 1);
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	CHECK_U64(drain(r), n);
	CHECK_EQ(threads_now(), with - 1);
	weft_reader_close(r);
}

/* Times and clock anchors that lie.  An extended event header (a jump of
 * the clock) whose time is before the stream's last one: reported with
 * the rest of its packet, never given out of order.  The latest anchor of
 * a TSC ring refines the calibrated frequency only when it agrees with it
 * to 1 %; one far off, or written while the writer died (its seqlock
 * odd), is not trusted. */
static int64_t find_u64(const uint8_t *m, size_t len, uint64_t v, size_t *at)
{
	int hits = 0;
	for (size_t i = 5; i + 8 <= len; i++)
		if (!memcmp(m + i, &v, 8) && (m[i - 5] & 31) == 31) {
			*at = i;
			hits++;
		}
	return hits;
}

static uint8_t *slurp(const char *p, size_t *len)
{
	int fd = open(p, O_RDONLY);
	CHECK(fd >= 0);
	*len = (size_t)file_size(p);
	uint8_t *m = malloc(*len);
	CHECK(m && pread(fd, m, *len, 0) == (ssize_t)*len);
	close(fd);
	return m;
}

static void spit(const char *p, const void *m, size_t len)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, m, len) == (ssize_t)len);
	close(fd);
}

/* Events of thread `id` in the trace, and the reader's frequency. */
static int count_id(const char *p, uint64_t id, uint64_t *freq,
		    struct weft_reader **keep)
{
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	struct weft_event ev;
	int n = 0, rc;
	int64_t last = INT64_MIN;
	while ((rc = weft_reader_next(r, &ev)) == 0) {
		CHECK(ev.ns >= last);
		last = ev.ns;
		n += ev.id == id;
	}
	CHECK_EQ(rc, WEFT_EEOF);
	if (freq)
		*freq = weft_reader_info(r)->freq;
	if (keep)
		*keep = r;
	else
		weft_reader_close(r);
	return n;
}

TEST(hostile_times_and_anchors)
{
	const char *p = tpath("jump.weft");
	CHECK_OK(weft_start(p, 1 << 20, WEFT_CLOCK_MANUAL));
	weft_clock_set(1000);
	weft_run(1);
	weft_create(5, "before");
	weft_clock_set(UINT64_C(10000000000)); /* 10 s on: extended */
	weft_create(6, "after the jump");
	weft_clock_set(UINT64_C(10000000100));
	weft_resolve(6);
	weft_run(0);
	CHECK_OK(weft_stop());
	CHECK_EQ(count_id(p, 5, NULL, NULL), 1);
	CHECK_EQ(count_id(p, 6, NULL, NULL), 2);
	size_t len, at;
	uint8_t *m = slurp(p, &len);
	CHECK_EQ(find_u64(m, len, UINT64_C(10000000000), &at), 1);
	/* the jump goes back to 500, before the event at 1000 */
	uint64_t back = 500;
	memcpy(m + at, &back, 8);
	const char *bad = tpath("back.weft");
	spit(bad, m, len);
	struct weft_reader *r;
	CHECK_EQ(count_id(bad, 5, NULL, NULL), 1);
	CHECK_EQ(count_id(bad, 6, NULL, &r), 0);
	CHECK(has_problem(r, "time goes backwards"));
	CHECK_U64(weft_reader_info(r)->losses.packets_corrupt, 1);
	weft_reader_close(r);
	free(m);

	/* a TSC ring at 1 GHz (calibrated), its latest anchor 1 s later */
	m = slurp(p, &len);
	struct weft__fhdr h;
	memcpy(&h, m, sizeof h);
	h.clock_kind = WEFT_CLOCK_TSC;
	h.freq = 1000000000;
	h.a1 = h.a0;
	h.a1.mono_ns = h.a0.mono_ns + 1000000000;
	static const struct {
		uint64_t ticks, seq, freq;
	} anc[] = {
		{1005000000, 2, 1005000000}, /* 0.5 % off: refined */
		{1009000000, 4, 1009000000}, /* 0.9 % */
		{1011000000, 4, 1000000000}, /* 1.1 %: not trusted */
		{990000000, 2, 1000000000},  /* -1 %: not */
		{2000000000, 2, 1000000000}, /* twice: not */
		{500000000, 2, 1000000000},  /* half: not */
		{1005000000, 3, 1000000000}, /* written as it died */
	};
	const char *tsc = tpath("tsc.weft");
	for (size_t i = 0; i < sizeof anc / sizeof *anc; i++) {
		h.a1.ticks = h.a0.ticks + anc[i].ticks;
		h.a1_seq = anc[i].seq;
		memcpy(m, &h, sizeof h);
		spit(tsc, m, len);
		uint64_t f = 0;
		CHECK_EQ(count_id(tsc, 6, &f, NULL), 2);
		if (f != anc[i].freq)
			FAIL("anchor %zu: frequency %llu, wanted %llu", i,
			     (unsigned long long)f,
			     (unsigned long long)anc[i].freq);
	}
	free(m);
}

/* Kinds named by ids the trace's name table does not hold (a hostile
 * trace's: an event's name id is any 16-bit value): weft stats groups
 * them by their text (the empty name, as weft_model_name gives it) as
 * any other, in the whole model and in one pass alike. */
static void kind_id_set(uint8_t *m, size_t len, uint64_t id, uint16_t kind)
{
	/* (the id is in its create, then in its resolve: the first) */
	int hits = 0;
	for (size_t i = 0; i + 10 <= len; i++)
		if (!memcmp(m + i, &id, 8) && !hits++)
			memcpy(m + i + 8, &kind, 2); /* (the kind follows) */
	CHECK_EQ(hits, 2);
}

TEST(stats_kind_ids_beyond_the_names)
{
	const char *p = tpath("kinds.weft");
	static const uint64_t id[] = {UINT64_C(0x5a5a5a5a5a5a5a51),
				      UINT64_C(0x5a5a5a5a5a5a5a52),
				      UINT64_C(0x5a5a5a5a5a5a5a53),
				      UINT64_C(0x5a5a5a5a5a5a5a54)};
	CHECK_OK(weft_start(p, 1 << 20, WEFT_CLOCK_MANUAL));
	for (int i = 0; i < 4; i++) {
		weft_clock_set((uint64_t)(i + 1) * 100);
		weft_create(id[i], "req");
	}
	weft_clock_set(1000);
	for (int i = 0; i < 4; i++)
		weft_resolve(id[i]);
	CHECK_OK(weft_stop());
	size_t len;
	uint8_t *m = slurp(p, &len);
	kind_id_set(m, len, id[1], 0xfff0);
	kind_id_set(m, len, id[2], 0x7ff1);
	const char *bad = tpath("kinds-bad.weft");
	spit(bad, m, len);
	free(m);
	for (int pass = 0; pass < 2; pass++) {
		struct weft_reader *r;
		struct weft_model *md;
		struct weft_stats *st;
		if (pass) {
			st = stats_one_pass(bad, 0, &md, &r);
		} else {
			CHECK_OK(weft_reader_open(&r, bad, 0, NULL));
			CHECK_OK(weft_model_load(&md, r));
			CHECK_OK(weft_stats_compute(&st, md));
		}
		CHECK_EQ(st->threads, 4);
		/* the two unknown ids: one group of the empty name (as
		 * many as "req": first by its text) */
		CHECK_EQ(st->nkinds, 2);
		CHECK_STR(st->kinds[0].key, "");
		CHECK_EQ(st->kinds[0].count, 2);
		CHECK_EQ(st->kinds[0].life[3], 800); /* 900 - 100 */
		CHECK_STR(st->kinds[1].key, "req");
		CHECK_EQ(st->kinds[1].count, 2);
		CHECK_EQ(st->kinds[1].life[3], 900);
		CHECK_EQ(st->kinds[1].life[0], 600); /* p50 of 600, 900 */
		weft_stats_free(st);
		weft_model_free(md);
		weft_reader_close(r);
	}
}

/* The one growth helper (src/common/grow.h): nothing while need <= cap,
 * the floor for an empty array, doubling until need fits, the contents
 * kept. */
TEST(grow_doubles_from_a_floor)
{
	int *p = NULL;
	size_t cap = 0;
	CHECK_EQ(WEFT_GROW(p, cap, 0), 0); /* cap 0, need 0: no block */
	CHECK(p == NULL);
	CHECK_EQ(cap, 0);
	CHECK_EQ(WEFT_GROW(p, cap, 1), 0);
	CHECK(p != NULL);
	CHECK_EQ(cap, WEFT_GROW_FLOOR);
	for (int i = 0; i < 16; i++)
		p[i] = 100 + i;
	int *was = p;
	CHECK_EQ(WEFT_GROW(p, cap, 16), 0); /* need == cap: untouched */
	CHECK(p == was);
	CHECK_EQ(cap, 16);
	CHECK_EQ(WEFT_GROW(p, cap, 17), 0); /* one more: doubled */
	CHECK_EQ(cap, 32);
	for (int i = 0; i < 16; i++)
		CHECK_EQ(p[i], 100 + i);
	CHECK_EQ(WEFT_GROW(p, cap, 300), 0); /* need > 2 cap: 64, 128... */
	CHECK_EQ(cap, 512);
	for (int i = 0; i < 16; i++)
		CHECK_EQ(p[i], 100 + i);
	free(p);

	/* a capacity that is no power of two doubles from itself */
	p = malloc(5 * sizeof *p);
	CHECK(p != NULL);
	cap = 5;
	CHECK_EQ(WEFT_GROW(p, cap, 6), 0);
	CHECK_EQ(cap, 10);
	CHECK_EQ(WEFT_GROW(p, cap, 41), 0);
	CHECK_EQ(cap, 80);
	free(p);

	/* a floor of the caller's; the floor doubles when need exceeds it */
	uint64_t *q = NULL;
	uint32_t c32 = 0;
	CHECK_EQ(weft__grow32(&q, &c32, 1, sizeof *q, 64), 0);
	CHECK_EQ(c32, 64);
	free(q);
	q = NULL;
	c32 = 0;
	CHECK_EQ(weft__grow32(&q, &c32, 100, sizeof *q, 64), 0);
	CHECK_EQ(c32, 128);
	q[127] = 7; /* all of it is there (ASan checks) */
	CHECK_EQ(WEFT_GROW32(q, c32, 129), 0);
	CHECK_EQ(c32, 256);
	CHECK_EQ(q[127], 7);
	free(q);

	/* doubling past the largest capacity stops at it */
	char *b = NULL;
	size_t cb = 16;
	b = malloc(cb);
	CHECK(b != NULL);
	CHECK_EQ(weft__grow_to(&b, &cb, 100, 1, 16, 100), 0);
	CHECK_EQ(cb, 100); /* 16, 32, 64, then not 128 */
	b[99] = 1;
	cb = 16;
	CHECK_EQ(weft__grow_to(&b, &cb, 70, 1, 16, 120), 0);
	CHECK_EQ(cb, 120); /* 64 > 120 / 2: the largest, not 128 */
	b[119] = 1;
	free(b);
}

/* What does not fit is -ENOMEM before any realloc, the old block and its
 * capacity as they were. */
TEST(grow_refuses_what_does_not_fit)
{
	uint64_t *p = malloc(4 * sizeof *p);
	CHECK(p != NULL);
	for (int i = 0; i < 4; i++)
		p[i] = 0xabc0 + (uint64_t)i;
	size_t cap = 4;
	uint64_t *was = p;
	/* need * 8 wraps to 8 bytes: refused, never a block too small */
	CHECK_EQ(WEFT_GROW(p, cap, SIZE_MAX / sizeof *p + 2), -ENOMEM);
	CHECK(p == was);
	CHECK_EQ(cap, 4);
	CHECK_EQ(WEFT_GROW(p, cap, SIZE_MAX), -ENOMEM);
	CHECK(p == was);
	CHECK_EQ(cap, 4);
	for (int i = 0; i < 4; i++)
		CHECK_U64(p[i], 0xabc0 + (uint64_t)i);
	/* a uint32_t capacity holds no more than UINT32_MAX */
	uint32_t c32 = 4;
	CHECK_EQ(weft__grow32(&p, &c32, (size_t)UINT32_MAX + 1, 1, 16),
		 -ENOMEM);
	CHECK(p == was);
	CHECK_EQ(c32, 4);
	/* nor a zero-sized element (no capacity can be told from it) */
	CHECK_EQ(weft__grow(&p, &cap, 5, 0), -ENOMEM);
	CHECK(p == was);
	CHECK_EQ(cap, 4);
	for (int i = 0; i < 4; i++)
		CHECK_U64(p[i], 0xabc0 + (uint64_t)i);
	free(p);
}

TEST_MAIN(T(batches_in_order_and_counted), T(read_ahead_same_events),
	  T(read_ahead_forked), T(read_ahead_by_pace), T(truncated_while_read),
	  T(live_ring_truncated), T(replaced_while_read), T(endless_input),
	  T(utf8_like_python), T(hostile_text), T(consistent_copy),
	  T(unused_slots_unread), T(stats_in_the_library), T(stats_in_one_pass),
	  T(hostile_times_and_anchors), T(stats_kind_ids_beyond_the_names),
	  T(grow_doubles_from_a_floor), T(grow_refuses_what_does_not_fit))
