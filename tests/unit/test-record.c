/* SPDX-License-Identifier: MIT */
/* test-record.c - the recorder, read back through the reader: exact event
 * contents, threads, modes, losses, signals, fork, kills, faults. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#include "../harness.h"
#include "util.h"
#include "weft/model.h"
#include "weft/weft.h"
#include "common/format.h"

/* Runs a shell command; returns its exit status (-1: killed). */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(cmd, sizeof cmd, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof cmd)
		FAIL("command too long");
	int st = system(cmd);
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The names in directory `dir`, sorted, joined by spaces. */
static void list_dir(const char *dir, char *out, size_t cap)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "ls -A '%s' | sort | tr '\\n' ' '", dir);
	FILE *f = popen(cmd, "r");
	size_t n = f ? fread(out, 1, cap - 1, f) : 0;
	out[n] = 0;
	if (f)
		pclose(f);
}

/* Every event type, with exact fields and actors. */
TEST(roundtrip_every_event)
{
	const char *p = tpath("all.weft");
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_run(7);
	weft_create(8, "kind-a");
	weft_label(8, "hello \"world\"\n");
	weft_should_resolve(8);
	weft_try_read(8);
	weft_idle("poll");
	weft_resume();
	weft_run(8);
	weft_counter_set("ctr", -5);
	weft_counter_add("ctr", 12);
	weft_span_begin("sp");
	weft_note(8, "a note");
	weft_span_end("sp");
	weft_signal(9);
	weft_cancel(10);
	weft_becomes(11, 12);
	weft_fail(13, "boom");
	weft_fail(14, NULL);
	weft_resolve(7);
	weft_run(7);
	weft_read(8);
	weft_create_label(15, "kind-b", "a kept label");
	weft_resolve_run(15);
	weft_fire(16, 17);
	weft_phase("timers");
	weft_phase(NULL);
	weft_pause("gc", 12345);
	weft_sent(15, 0xabc, 5, 6);
	weft_received(0, 0xabc, 11, 7);
	weft_run(0);
	CHECK_OK(weft_stop());

	struct ttrace t = tread(p);
	CHECK_EQ(t.problems, 0);
	CHECK_EQ(t.info.writer, WEFT_WRITER_STOPPED);
	struct {
		unsigned type;
		uint64_t actor, id, id2;
		const char *name;
		int64_t value;
		const char *text;
		const char *name2;
	} want[] = {
		{WEFT_EV_RUN, 0, 7, 0, "", 0, NULL},
		{WEFT_EV_CREATE, 7, 8, 0, "kind-a", 0, NULL},
		{WEFT_EV_LABEL, 7, 8, 0, "", 0, "hello \"world\"\n"},
		{WEFT_EV_SHOULD_RESOLVE, 7, 8, 0, "", 0, NULL},
		{WEFT_EV_TRY_READ, 7, 8, 0, "", 0, NULL},
		{WEFT_EV_IDLE, 7, 0, 0, "poll", 0, NULL},
		{WEFT_EV_RESUME, 7, 0, 0, "", 0, NULL},
		{WEFT_EV_RUN, 7, 8, 0, "", 0, NULL},
		{WEFT_EV_COUNTER_SET, 8, 0, 0, "ctr", -5, NULL},
		{WEFT_EV_COUNTER_ADD, 8, 0, 0, "ctr", 12, NULL},
		{WEFT_EV_SPAN_BEGIN, 8, 0, 0, "sp", 0, NULL},
		{WEFT_EV_NOTE, 8, 8, 0, "", 0, "a note"},
		{WEFT_EV_SPAN_END, 8, 0, 0, "sp", 0, NULL},
		{WEFT_EV_SIGNAL, 8, 9, 0, "", 0, NULL},
		{WEFT_EV_CANCEL, 8, 10, 0, "", 0, NULL},
		{WEFT_EV_BECOMES, 8, 11, 12, "", 0, NULL},
		{WEFT_EV_FAIL, 8, 13, 0, "", 0, "boom"},
		{WEFT_EV_FAIL, 8, 14, 0, "", 0, ""},
		{WEFT_EV_RESOLVE, 8, 7, 0, "", 0, NULL},
		{WEFT_EV_RUN, 8, 7, 0, "", 0, NULL},
		{WEFT_EV_READ, 7, 8, 0, "", 0, NULL},
		{WEFT_EV_CREATE_LABEL, 7, 15, 0, "kind-b", 0, NULL,
		 "a kept label"},
		{WEFT_EV_RESOLVE_RUN, 7, 15, 0, "", 0, NULL},
		{WEFT_EV_FIRE, 15, 16, 17, "", 0, NULL},
		{WEFT_EV_PHASE, 16, 0, 0, "timers", 0, NULL},
		{WEFT_EV_PHASE, 16, 0, 0, "", 0, NULL},
		{WEFT_EV_PAUSE, 16, 0, 0, "gc", 12345, NULL},
		{WEFT_EV_SENT, 16, 15, 0, "", 0xabc, NULL},
		{WEFT_EV_RECEIVED, 16, 0, 0, "", 0xabc, NULL},
		{WEFT_EV_RUN, 16, 0, 0, "", 0, NULL},
	};
	size_t nw = sizeof want / sizeof *want;
	CHECK_EQ(t.n, nw);
	uint64_t last = 0;
	for (size_t i = 0; i < nw; i++) {
		const struct tev *v = &t.ev[i];
		if (v->e.type != want[i].type)
			FAIL("event %zu: type %s, want %s", i,
			     weft_event_name(v->e.type),
			     weft_event_name(want[i].type));
		CHECK_U64(v->e.actor, want[i].actor);
		CHECK_U64(v->e.id, want[i].id);
		CHECK_U64(v->e.id2, want[i].id2);
		CHECK_STR(v->name, want[i].name);
		CHECK_EQ(v->e.value, want[i].value);
		if (want[i].text)
			CHECK_STR(v->text, want[i].text);
		CHECK_STR(v->name2, want[i].name2 ? want[i].name2 : "");
		CHECK_EQ(v->e.flags, 0);
		CHECK_EQ(v->e.stream, 0);
		CHECK(v->e.ts >= last);
		last = v->e.ts;
	}
	/* the second and third numbers of sent and received */
	CHECK_EQ(t.ev[nw - 3].e.value2, 5);
	CHECK_EQ(t.ev[nw - 3].e.value3, 6);
	CHECK_EQ(t.ev[nw - 2].e.value2, 11);
	CHECK_EQ(t.ev[nw - 2].e.value3, 7);
	CHECK_EQ(t.ev[nw - 4].e.value2, 0);
	for (unsigned ty = 0; ty < WEFT_EV_COUNT; ty++)
		if (!tcount(&t, ty))
			FAIL("no %s event", weft_event_name(ty));
}

/* Nothing is recorded while stopped; a second start makes a new trace. */
TEST(stopped_records_nothing)
{
	const char *a = tpath("a.weft"), *b = tpath("b.weft");
	weft_run(1); /* before any start: a no-op */
	CHECK_EQ(weft_stop(), WEFT_ENOTSTARTED);
	CHECK_OK(weft_start(a, 1 << 20, 0));
	CHECK_EQ(weft_start(a, 1 << 20, 0), WEFT_EBUSY);
	weft_run(2);
	CHECK_OK(weft_stop());
	weft_run(3); /* stopped */
	CHECK_OK(weft_start(b, 1 << 20, 0));
	weft_run(4);
	CHECK_OK(weft_stop());
	struct ttrace ta = tread(a), tb = tread(b);
	CHECK_EQ(ta.n, 1);
	CHECK_U64(ta.ev[0].e.id, 2);
	CHECK_EQ(tb.n, 1);
	CHECK_U64(tb.ev[0].e.id, 4);
	CHECK(memcmp(ta.info.uuid, tb.info.uuid, 16) != 0);
}

TEST(bad_arguments)
{
	CHECK_EQ(weft_start(NULL, 0, 0), WEFT_EINVAL);
	CHECK_EQ(weft_start(tpath("x"), 0, 99), WEFT_EINVAL);
	CHECK_EQ(weft_start(tpath("small.weft"), 10000, 0), WEFT_ETOOSMALL);
	CHECK(weft_start("/nonexistent-dir/x.weft", 0, 0) < 0);
	CHECK(access(tpath("small.weft"), F_OK) != 0);
	CHECK(strlen(weft_strerror(WEFT_ECORRUPT)) > 0);
	CHECK_STR(weft_strerror(-ENOENT), strerror(ENOENT));
}

/* The file is created 0600 and replaced atomically (an earlier ring of
 * mode 0644: the new one is 0600). */
TEST(file_mode_0600)
{
	const char *p = tpath("mode.weft");
	CHECK_OK(weft_start(p, 1 << 20, 0));
	CHECK_OK(weft_stop());
	CHECK_OK(chmod(p, 0644));
	CHECK_OK(weft_start(p, 1 << 20, 0));
	struct stat sb;
	CHECK_OK(stat(p, &sb));
	CHECK_EQ(sb.st_mode & 0777, 0600);
	CHECK_OK(weft_stop());
}

#define NTHREADS 4
#define PER_THREAD 50000

static void *burst(void *arg)
{
	uint64_t base = (uint64_t)(uintptr_t)arg << 32;
	for (uint64_t i = 0; i < PER_THREAD; i++)
		weft_run(base | i);
	return NULL;
}

/* Several OS threads at once: every event is there, each stream in order,
 * nothing lost when the ring is big enough. */
TEST(threads_no_loss)
{
	const char *p = tpath("thr.weft");
	CHECK_OK(weft_start(p, 64 << 20, WEFT_DISCARD));
	pthread_t th[NTHREADS];
	for (uintptr_t i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, burst, (void *)(i + 1));
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	CHECK_OK(weft_stop());
	struct ttrace t = tread(p);
	CHECK_EQ(t.problems, 0);
	CHECK_EQ(t.n, NTHREADS * PER_THREAD);
	CHECK_EQ(t.info.losses.packets_lost + t.info.losses.events_discarded,
		 0);
	uint64_t next[NTHREADS + 1] = {0};
	uint64_t last_ts = 0;
	for (size_t i = 0; i < t.n; i++) {
		uint64_t id = t.ev[i].e.id, th_ = id >> 32;
		CHECK(th_ >= 1 && th_ <= NTHREADS);
		CHECK_U64(id & 0xffffffff, next[th_]);
		next[th_]++;
		CHECK(t.ev[i].e.ts >= last_ts); /* merged in time order */
		last_ts = t.ev[i].e.ts;
	}
}

/* Overwrite mode keeps the newest events; the loss is counted and shows
 * where it happened. */
TEST(overwrite_keeps_newest)
{
	const char *p = tpath("ow.weft");
	CHECK_OK(weft_start(p, 256 << 10, WEFT_OVERWRITE));
	const uint64_t n = 200000;
	for (uint64_t i = 0; i < n; i++)
		weft_run(i);
	CHECK_OK(weft_stop());
	struct ttrace t = tread(p);
	CHECK_EQ(t.problems, 0);
	CHECK(t.info.losses.packets_lost > 0);
	CHECK_EQ(t.ev[0].e.type, WEFT_EV_LOSS);
	CHECK_EQ(t.ev[0].e.value, t.info.losses.packets_lost);
	/* What is left is the contiguous tail, ending with the last event. */
	CHECK_U64(t.ev[t.n - 1].e.id, n - 1);
	uint64_t first = t.ev[1].e.id;
	CHECK_EQ(t.n - 1, n - first);
	for (size_t i = 1; i < t.n; i++)
		CHECK_U64(t.ev[i].e.id, first + i - 1);
	/* A wrap loses whole packets, a small fraction of the ring. */
	CHECK(t.info.npackets >= 64);
}

/* A burst's events share the clock reading of its first; before and after
 * it, each event reads the clock; a burst across packets stays in order. */
TEST(bursts_share_one_time)
{
	const char *p = tpath("burst.weft");
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_run(1);
	spin_us(5);
	weft_burst_begin();
	spin_us(5); /* the burst's time is its first event's, not begin's */
	weft_resolve(2);
	spin_us(5);
	weft_run(2);
	weft_create(3, "next");
	weft_label(3, "next one");
	weft_burst_end();
	spin_us(5);
	weft_run(1);
	/* weft_burst_now: the time is read at once, and returned */
	uint64_t at = weft_burst_now();
	spin_us(5);
	weft_run(9);
	weft_burst_end();
	weft_run(1);
	/* a long burst crosses packet boundaries */
	weft_burst_begin();
	for (uint64_t i = 0; i < 20000; i++)
		weft_resolve(100 + i);
	weft_burst_end();
	weft_run(0);
	CHECK_OK(weft_stop());
	struct ttrace t = tread(p);
	CHECK_EQ(t.problems, 0);
	CHECK_EQ(t.ev[1].e.type, WEFT_EV_RESOLVE);
	CHECK(t.ev[1].e.ts > t.ev[0].e.ts);
	CHECK(t.ev[1].e.ns - t.ev[0].e.ns >= 9000); /* both spins */
	for (int i = 2; i <= 4; i++)
		CHECK_U64(t.ev[i].e.ts, t.ev[1].e.ts);
	CHECK(t.ev[5].e.ns - t.ev[4].e.ns >= 4000); /* after the burst */
	CHECK(at > 0);
	CHECK_U64(t.ev[6].e.id, 9);
	CHECK_U64(t.ev[6].e.ts, at);
	CHECK(t.ev[7].e.ns - t.ev[6].e.ns >= 4000);
	for (size_t i = 8; i < t.n - 1; i++) {
		CHECK_EQ(t.ev[i].e.type, WEFT_EV_RESOLVE);
		CHECK_U64(t.ev[i].e.id, 100 + i - 8);
		CHECK(t.ev[i].e.ts == t.ev[8].e.ts);
	}
	CHECK_EQ(t.n, 8 + 20000 + 1);
	CHECK(t.ev[t.n - 1].e.ts >= t.ev[8].e.ts);
	/* stopped: no time */
	CHECK_U64(weft_burst_now(), 0);
}

/* Events far apart keep their times: an event past the compact header's
 * reach (2^27 ticks: 45-70 ms of a TSC, 134 ms of nanoseconds) takes the
 * extended one, whichever encoder writes it, on the fast path (a name
 * already cached) as on the first use. */
TEST(long_gaps_keep_their_times)
{
	const char *p = tpath("gaps.weft");
	CHECK_OK(weft_start(p, 1 << 20, 0));
	static const char ph[] = "gap phase";
	weft_run(1);
	weft_phase(ph);
	weft_create_label(3, "gap kind", "gap label");
	struct timespec gap = {0, 300 * 1000 * 1000};
	nanosleep(&gap, NULL);
	weft_run(2);
	nanosleep(&gap, NULL);
	weft_phase(ph);
	nanosleep(&gap, NULL);
	weft_create_label(4, "gap kind", "gap label");
	nanosleep(&gap, NULL);
	weft_resume();
	nanosleep(&gap, NULL);
	weft_sent(4, 77, 0, 5);
	CHECK_OK(weft_stop());
	struct ttrace t = tread(p);
	CHECK_EQ(t.problems, 0);
	CHECK_EQ(t.n, 8);
	CHECK_EQ(t.ev[3].e.type, WEFT_EV_RUN);
	CHECK_U64(t.ev[3].e.id, 2);
	CHECK_EQ(t.ev[4].e.type, WEFT_EV_PHASE);
	CHECK_STR(t.ev[4].name, "gap phase");
	CHECK_EQ(t.ev[5].e.type, WEFT_EV_CREATE_LABEL);
	CHECK_U64(t.ev[5].e.id, 4);
	CHECK_STR(t.ev[5].name, "gap kind");
	CHECK_STR(t.ev[5].name2, "gap label");
	CHECK_EQ(t.ev[6].e.type, WEFT_EV_RESUME);
	CHECK_EQ(t.ev[7].e.type, WEFT_EV_SENT);
	CHECK_EQ(t.ev[7].e.value3, 5);
	for (int i = 3; i < 8; i++)
		if (t.ev[i].e.ns - t.ev[i - 1].e.ns < 290 * 1000 * 1000)
			FAIL("event %d came %.3f ms after the one before, not "
			     "300",
			     i,
			     (double)(t.ev[i].e.ns - t.ev[i - 1].e.ns) / 1e6);
}

/* Discard mode keeps the oldest events and counts every drop exactly. */
TEST(discard_counts_exactly)
{
	const char *p = tpath("disc.weft");
	CHECK_OK(weft_start(p, 256 << 10, WEFT_DISCARD));
	const uint64_t n = 200000;
	for (uint64_t i = 0; i < n; i++)
		weft_run(i);
	CHECK_OK(weft_stop());
	struct ttrace t = tread(p);
	CHECK_EQ(t.problems, 0);
	size_t kept = tcount(&t, WEFT_EV_RUN);
	CHECK(kept > 1000 && kept < n);
	CHECK_EQ(kept + t.info.losses.events_discarded, n);
	for (size_t i = 0; i < kept; i++)
		CHECK_U64(t.ev[i].e.id, i);
	CHECK_EQ(t.ev[t.n - 1].e.type, WEFT_EV_LOSS);
	CHECK_U64(t.ev[t.n - 1].e.id, n - kept);
}

/* Discard mode, once full: an event too big for its packet's rest (a
 * note) is dropped, and every later event of its stream too, until the
 * loss is marked; so a reader sees each stream's events numbered without
 * a gap, and every gap is a loss of exactly the missing events, at its
 * place.  Three OS threads, counters numbered, big notes between them;
 * several ring sizes and seeds (where the ring fills and which event
 * first finds no room vary). */
#define DISC_THREADS 3
#define DISC_EVENTS 6000
struct disc_arg {
	uint64_t seed;
	pthread_barrier_t *go;
};
static char big[2000]; /* (filled before the threads start) */

static void *disc_thread(void *arg)
{
	struct disc_arg *a = arg;
	uint64_t x = a->seed;
	/* every stream has a packet before the ring can fill */
	weft_counter_set("n", 0);
	pthread_barrier_wait(a->go);
	for (int64_t i = 1; i < DISC_EVENTS; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		if ((x >> 60) < 3) /* a note of 100..1000 bytes, numbered */
			weft_note((uint64_t)i,
				  big + sizeof big - 1 - 100 - (x >> 20) % 900);
		else
			weft_counter_set("n", i);
	}
	return NULL;
}

TEST(discard_marks_every_loss_at_its_place)
{
	const size_t sizes[] = {64 << 10, 96 << 10, 200 << 10, 1 << 20};
	int filled = 0, runs = 0;
	memset(big, 'n', sizeof big - 1);
	for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
		for (uint64_t seed = 1; seed <= 6; seed++) {
			const char *p = tpath("disc3.weft");
			CHECK_OK(weft_start(p, sizes[z], WEFT_DISCARD));
			pthread_barrier_t go;
			pthread_barrier_init(&go, NULL, DISC_THREADS);
			pthread_t th[DISC_THREADS];
			struct disc_arg a[DISC_THREADS];
			for (int k = 0; k < DISC_THREADS; k++) {
				a[k] = (struct disc_arg){
					seed * 7919 + (uint64_t)k, &go};
				pthread_create(&th[k], NULL, disc_thread,
					       &a[k]);
			}
			for (int k = 0; k < DISC_THREADS; k++)
				pthread_join(th[k], NULL);
			pthread_barrier_destroy(&go);
			CHECK_OK(weft_stop());
			struct ttrace t = tread(p);
			CHECK_EQ(t.problems, 0);
			/* per stream: the next number, the loss since */
			int64_t next[8] = {0};
			uint64_t lost[8] = {0}, total_lost = 0;
			size_t kept = 0;
			for (size_t i = 0; i < t.n; i++) {
				const struct tev *v = &t.ev[i];
				uint32_t st = v->e.stream;
				CHECK(st < 8);
				if (v->e.type == WEFT_EV_LOSS) {
					lost[st] += v->e.id;
					total_lost += v->e.id;
					continue;
				}
				int64_t num = v->e.type == WEFT_EV_NOTE
						      ? (int64_t)v->e.id
						      : v->e.value;
				CHECK(v->e.type == WEFT_EV_NOTE ||
				      v->e.type == WEFT_EV_COUNTER_SET);
				if (num < next[st] ||
				    (uint64_t)(num - next[st]) != lost[st])
					FAIL("size %zu seed %llu, stream %u: "
					     "%lld after %lld with %llu "
					     "events lost between",
					     sizes[z], (unsigned long long)seed,
					     st, (long long)num,
					     (long long)next[st] - 1,
					     (unsigned long long)lost[st]);
				next[st] = num + 1;
				lost[st] = 0;
				kept++;
			}
			int streams = 0;
			for (int k = 0; k < 8; k++) {
				if (!next[k])
					continue;
				streams++;
				/* what the stream lost after its last */
				CHECK_U64(lost[k],
					  (uint64_t)(DISC_EVENTS - next[k]));
			}
			CHECK_EQ(streams, DISC_THREADS);
			CHECK_EQ(kept + total_lost,
				 (size_t)DISC_THREADS * DISC_EVENTS);
			CHECK_U64(total_lost, t.info.losses.events_discarded);
			filled += total_lost > 0;
			runs++;
			CHECK_OK(unlink(p));
		}
	/* every ring filled (or nothing was checked) */
	CHECK_EQ(filled, runs);
	CHECK_EQ(runs, 24);
}

/* The shims name a callback by its symbol (src/shim/label.c), keeping 95
 * bytes of it: a longer name is cut there, at a character, and counted
 * as a truncated text each time a label takes it; one of 95 is kept
 * whole and not counted. */
const char *weft__shim_cb_name(const void *cb);
void callback_whose_name_is_exactly_ninety_five_bytes_long_so_that_the_cache_keeps_all_of_it_xxxxxxx(
	void);
void callback_whose_name_is_ninety_six_bytes_long_one_more_than_the_cache_keeps_so_it_is_cut_xyzwwwww(
	void);
void callback_whose_name_ends_in_a_two_byte_character_cut_in_its_middle_at_byte_ninety_five_xxxxxxx\u00e9(
	void);
void callback_whose_name_is_exactly_ninety_five_bytes_long_so_that_the_cache_keeps_all_of_it_xxxxxxx(
	void)
{
}
void callback_whose_name_is_ninety_six_bytes_long_one_more_than_the_cache_keeps_so_it_is_cut_xyzwwwww(
	void)
{
}
void callback_whose_name_ends_in_a_two_byte_character_cut_in_its_middle_at_byte_ninety_five_xxxxxxx\u00e9(
	void)
{
}

TEST(long_callback_names_counted)
{
	const char *n95 = "callback_whose_name_is_exactly_ninety_five_bytes_"
			  "long_so_that_the_cache_keeps_all_of_it_xxxxxxx";
	const char *n96 = "callback_whose_name_is_ninety_six_bytes_long_one_"
			  "more_than_the_cache_keeps_so_it_is_cut_xyzwwwww";
	const char *nu = "callback_whose_name_ends_in_a_two_byte_character_"
			 "cut_in_its_middle_at_byte_ninety_five_xxxxxxx\u00e9";
	CHECK_EQ(strlen(n95), 95);
	CHECK_EQ(strlen(n96), 96);
	CHECK_EQ(strlen(nu), 96); /* é: bytes 95 and 96 */
	const char *p = tpath("cb.weft");
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_run(1);
	void (*const fns[])(void) = {
		callback_whose_name_is_exactly_ninety_five_bytes_long_so_that_the_cache_keeps_all_of_it_xxxxxxx,
		callback_whose_name_is_ninety_six_bytes_long_one_more_than_the_cache_keeps_so_it_is_cut_xyzwwwww,
		callback_whose_name_ends_in_a_two_byte_character_cut_in_its_middle_at_byte_ninety_five_xxxxxxx\u00e9,
	};
	char want[3][100];
	snprintf(want[0], sizeof want[0], "%s", n95);
	snprintf(want[1], sizeof want[1], "%.95s", n96);
	snprintf(want[2], sizeof want[2], "%.94s", nu);
	for (int round = 0; round < 2; round++) /* (the second: cached) */
		for (int i = 0; i < 3; i++) {
			const void *cb;
			memcpy(&cb, &fns[i], sizeof cb);
			CHECK_STR(weft__shim_cb_name(cb), want[i]);
		}
	CHECK_OK(weft_stop());
	struct ttrace t = tread(p);
	CHECK_EQ(t.n, 1);
	/* two names cut, each taken twice */
	CHECK_U64(t.info.losses.texts_truncated, 4);
}

/* A text longer than a packet is cut at a UTF-8 boundary and marked. */
TEST(long_label_truncated)
{
	const char *p = tpath("long.weft");
	CHECK_OK(weft_start(p, 64 << 10, 0)); /* 1 KiB packets */
	size_t len = 100000;
	char *s = malloc(len + 1);
	for (size_t i = 0; i < len; i += 2) {
		s[i] = (char)0xC3; /* é, two bytes */
		s[i + 1] = (char)0xA9;
	}
	s[len] = 0;
	weft_label(1, s);
	weft_label(2, "short");
	CHECK_OK(weft_stop());
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	struct weft_event e;
	CHECK_OK(weft_reader_next(r, &e));
	CHECK_EQ(e.type, WEFT_EV_LABEL);
	CHECK(e.flags & WEFT_EVF_TRUNCATED);
	CHECK(e.text_len > 500 && e.text_len < 1024);
	CHECK_EQ(e.text_len % 2, 0); /* not cut inside a character */
	CHECK(!memcmp(e.text, s, e.text_len));
	CHECK_OK(weft_reader_next(r, &e));
	CHECK_EQ(e.flags, 0);
	CHECK_STR(e.text, "short");
	CHECK_EQ(weft_reader_info(r)->losses.texts_truncated, 1);
	weft_reader_close(r);
	free(s);
}

/* Hostile text comes back byte for byte, but for what is not UTF-8:
 * U+FFFD in its place (the reader hands out valid UTF-8 only). */
TEST(hostile_text_roundtrip)
{
	const char *p = tpath("hostile.weft");
	const char bad[] = "</script><img src=x onerror=alert(1)>\x01\xff\xfe"
			   "\"\\\n\t%s%n";
	const char back[] = "</script><img src=x onerror=alert(1)>\x01"
			    "\xef\xbf\xbd\xef\xbf\xbd\"\\\n\t%s%n";
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_label(1, bad);
	weft_fail(2, bad);
	weft_create(3, "kind \"quoted\" \\ \n");
	CHECK_OK(weft_stop());
	struct ttrace t = tread(p);
	CHECK_EQ(t.n, 3);
	CHECK_STR(t.ev[0].text, back);
	CHECK_STR(t.ev[1].text, back);
	CHECK_STR(t.ev[2].name, "kind \"quoted\" \\ \n");
}

/* The name table: one entry per distinct string constant. */
TEST(names_interned_once)
{
	const char *p = tpath("names.weft");
	CHECK_OK(weft_start(p, 1 << 20, 0));
	for (int i = 0; i < 1000; i++) {
		weft_create((uint64_t)i, "same");
		weft_counter_add("c", 1);
	}
	CHECK_OK(weft_stop());
	struct ttrace t = tread(p);
	CHECK_EQ(t.info.nnames, 3); /* "", "same", "c" */
	CHECK_STR(t.ev[0].name, "same");
	CHECK_STR(t.ev[1].name, "c");
}

/* weft_create_label interns its label; with the name table full, the
 * label goes as text in a label event: never lost, and not counted as a
 * lost name. */
TEST(create_label_never_loses_the_label)
{
	const char *p = tpath("cl.weft");
	enum { N = 600 }; /* more than a small ring's 256 names */
	static char labels[N][32];
	CHECK_OK(weft_start(p, 1 << 19, 0));
	for (int i = 0; i < N; i++) {
		snprintf(labels[i], sizeof labels[i], "label number %d", i);
		weft_create_label((uint64_t)i + 1, "k", labels[i]);
	}
	/* the same label again: the same name */
	weft_create_label(N + 1, "k", labels[0]);
	CHECK_OK(weft_stop());
	struct ttrace t = tread(p);
	CHECK_EQ(t.problems, 0);
	CHECK_EQ(t.info.lost_names, 0);
	size_t fused = 0, split = 0;
	uint32_t first_name = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct tev *v = &t.ev[i];
		char want[32];
		snprintf(want, sizeof want, "label number %d",
			 v->e.id == N + 1 ? 0 : (int)v->e.id - 1);
		if (v->e.type == WEFT_EV_CREATE_LABEL) {
			CHECK_STR(v->name, "k");
			CHECK_STR(v->name2, want);
			if (v->e.id == 1)
				first_name = v->e.name2;
			if (v->e.id == N + 1)
				CHECK_EQ(v->e.name2, first_name);
			fused++;
		} else if (v->e.type == WEFT_EV_CREATE) {
			CHECK_STR(v->name, "k");
			CHECK(i + 1 < t.n);
			CHECK_EQ(t.ev[i + 1].e.type, WEFT_EV_LABEL);
			CHECK_U64(t.ev[i + 1].e.id, v->e.id);
			CHECK_STR(t.ev[i + 1].text, want);
			split++;
		} else {
			CHECK_EQ(v->e.type, WEFT_EV_LABEL);
		}
	}
	CHECK_EQ(fused + split, N + 1);
	CHECK(fused > 100 && split > 100);
	/* the model labels every thread either way */
	struct weft_reader *r;
	struct weft_model *m;
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	CHECK_OK(weft_model_load(&m, r));
	char buf[64];
	CHECK_STR(weft_model_title(m, weft_model_find(m, 1), buf, sizeof buf),
		  "label number 0");
	CHECK_STR(weft_model_title(m, weft_model_find(m, N), buf, sizeof buf),
		  "label number 599");
	weft_model_free(m);
	weft_reader_close(r);
	free(t.ev);
}

/* A reader following a live ring knows the names interned after it
 * opened (the label of a create_label recorded later). */
TEST(live_reader_learns_new_names)
{
	const char *p = tpath("live-names.weft");
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_create_label(1, "k", "known at open");
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, p, WEFT_READ_FOLLOW, NULL));
	struct weft_event e;
	CHECK_OK(weft_reader_next(r, &e));
	CHECK_EQ(e.type, WEFT_EV_CREATE_LABEL);
	CHECK_STR(weft_reader_name(r, e.name2), "known at open");
	const char *kept = weft_reader_name(r, e.name2);
	CHECK_EQ(weft_reader_next(r, &e), WEFT_EAGAIN);
	weft_create_label(2, "k2", "interned after the reader opened");
	weft_counter_set("a counter, new too", 3);
	CHECK_OK(weft_reader_next(r, &e));
	CHECK_EQ(e.type, WEFT_EV_CREATE_LABEL);
	CHECK_STR(weft_reader_name(r, e.name), "k2");
	CHECK_STR(weft_reader_name(r, e.name2), "interned after the reader "
						"opened");
	CHECK_OK(weft_reader_next(r, &e));
	CHECK_STR(weft_reader_name(r, e.name), "a counter, new too");
	/* what was returned before stays valid */
	CHECK_STR(kept, "known at open");
	CHECK_OK(weft_stop());
	weft_reader_close(r);
}

/* What a reader says it read: no problem, nothing lost. */
static void lost_nothing(const struct weft_trace_info *in)
{
	CHECK_EQ(in->problems, 0);
	CHECK_U64(in->losses.packets_lost + in->losses.packets_torn +
			  in->losses.packets_corrupt +
			  in->losses.events_discarded,
		  0);
}

/* A reader following a ring while its writer fills it: every event comes
 * back once, in order, and nothing is counted lost.  The reader catches
 * up with the writer again and again, so it often copies a packet the
 * writer is still in and reads it to the end; a copy's tail committed
 * after it was taken must be read before the stream's next packet (it
 * was lost, silently, when the next packet had been indexed between the
 * copy and the end of its reading: `weft dump -f` of a busy program
 * missed an event in one run of five). */
static void follow_a_busy_writer(const char *p)
{
	int ready[2], go[2];
	CHECK(pipe(ready) == 0 && pipe(go) == 0);
	const uint64_t total = 3000000; /* (36 MB of the 64 MiB ring) */
	pid_t pid = fork();
	if (pid == 0) {
		if (weft_start(p, 64 << 20, 0))
			_exit(1);
		weft_run(1);
		char g;
		if (write(ready[1], "x", 1) != 1 || read(go[0], &g, 1) != 1)
			_exit(2);
		for (uint64_t i = 2; i <= total; i++) {
			weft_run(i);
			if (i % 5000 == 0)
				usleep(1000); /* (the reader catches up) */
		}
		_exit(weft_stop() ? 3 : 0);
	}
	char c;
	CHECK(read(ready[0], &c, 1) == 1);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, p, WEFT_READ_FOLLOW, NULL));
	CHECK(write(go[1], "x", 1) == 1);
	struct weft_event ev;
	uint64_t n = 0, polls = 0;
	int rc;
	while ((rc = weft_reader_next(r, &ev)) != WEFT_EEOF) {
		if (rc == WEFT_EAGAIN) {
			polls++;
			CHECK(polls < 2000000);
			continue;
		}
		CHECK_EQ(rc, 0);
		if (ev.type != WEFT_EV_RUN)
			FAIL("event %llu: type %u, not a run",
			     (unsigned long long)n, ev.type);
		if (ev.id != n + 1)
			FAIL("event %llu names %llu (events missing or "
			     "repeated)",
			     (unsigned long long)n + 1,
			     (unsigned long long)ev.id);
		n++;
	}
	int status;
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_U64(n, total);
	lost_nothing(weft_reader_info(r));
	CHECK(polls > 0); /* (it did catch up with the writer) */
	weft_reader_close(r);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
}

TEST(follow_reads_every_event_of_a_busy_writer)
{
	/* (three rounds: the case it failed on came in three of four) */
	follow_a_busy_writer(tpath("busy1.weft"));
	follow_a_busy_writer(tpath("busy2.weft"));
	follow_a_busy_writer(tpath("busy3.weft"));
}

#define HANDLER_ID (1ull << 62)
static atomic_long sig_calls, sig_seq;
static void on_signal(int sig)
{
	(void)sig;
	uint64_t k = (uint64_t)atomic_fetch_add(&sig_seq, 1);
	weft_signal(HANDLER_ID | k);
	weft_label(HANDLER_ID | k, "from a signal handler");
	atomic_fetch_add(&sig_calls, 2);
}

/* Events from a signal handler that interrupts an event on the same
 * thread are dropped and counted; the trace is never corrupt.  Each drop
 * is marked at its place: the handler's calls are numbered, and the loss
 * between two recorded calls is exactly the events of the calls between
 * them (two each), never after a later one. */
TEST(signal_reentrancy)
{
	const char *p = tpath("sig.weft");
	/* (each drop ends its packet: room for a few thousand) */
	CHECK_OK(weft_start(p, 256 << 20, WEFT_DISCARD));
	struct sigaction sa = {.sa_handler = on_signal};
	sigaction(SIGUSR1, &sa, NULL);
	/* A timer of its own: ITIMER_REAL would replace the harness's
	 * alarm, and leave this case without a time-out. */
	struct sigevent sev = {.sigev_notify = SIGEV_SIGNAL,
			       .sigev_signo = SIGUSR1};
	timer_t timer;
	CHECK_OK(timer_create(CLOCK_MONOTONIC, &sev, &timer));
	struct itimerspec it = {{0, 50000}, {0, 50000}};
	CHECK_OK(timer_settime(timer, 0, &it, NULL));
	long n = 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 1000; i++, n++)
			weft_label((uint64_t)n, "main loop label text");
		clock_gettime(CLOCK_MONOTONIC, &t1);
		/* (a slow build -- TSan -- takes a signal every few labels:
		 * at most 4000 handler calls, each drop ending its packet,
		 * so that the ring never fills and drops a label) */
	} while (n < 1000000 && t1.tv_sec - t0.tv_sec < 5 &&
		 atomic_load(&sig_calls) < 8000);
	CHECK_OK(timer_delete(timer));
	CHECK_OK(weft_stop());
	struct ttrace t = tread(p);
	CHECK_EQ(t.problems, 0);
	CHECK(atomic_load(&sig_calls) > 0);
	size_t from_handler = 0, main_labels = 0, gaps = 0;
	uint64_t lost = 0, next_call = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct tev *v = &t.ev[i];
		if (v->e.type == WEFT_EV_LOSS) {
			lost += v->e.id;
		} else if (v->e.id & HANDLER_ID) {
			uint64_t k = v->e.id & ~HANDLER_ID;
			if (v->e.type == WEFT_EV_SIGNAL) {
				/* the calls since the last one recorded were
				 * dropped: marked here, not later */
				if (k < next_call ||
				    lost != 2 * (k - next_call))
					FAIL("handler call %llu: %llu events "
					     "lost before it, calls %llu..%llu "
					     "missing",
					     (unsigned long long)k,
					     (unsigned long long)lost,
					     (unsigned long long)next_call,
					     (unsigned long long)k);
				gaps += k > next_call;
				next_call = k + 1;
				lost = 0;
			}
			from_handler++;
		} else if (v->e.type == WEFT_EV_LABEL) {
			CHECK_STR(v->text, "main loop label text");
			CHECK_U64(v->e.id, main_labels);
			main_labels++;
		}
	}
	CHECK_EQ(main_labels, n);
	CHECK_EQ(from_handler + t.info.losses.events_nested,
		 atomic_load(&sig_calls));
	CHECK_U64(lost, 2 * ((uint64_t)atomic_load(&sig_seq) - next_call));
	CHECK(gaps > 0); /* (or nothing was checked) */
	fprintf(stderr, "# %ld handler events: %zu recorded, %llu dropped\n",
		atomic_load(&sig_calls), from_handler,
		(unsigned long long)t.info.losses.events_nested);
}

/* After fork() the child never writes into the parent's ring. */
TEST(fork_child_stops)
{
	const char *p = tpath("fork.weft");
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_run(1);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 1000; i++)
			weft_run(666);
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	weft_run(2);
	CHECK_OK(weft_stop());
	struct ttrace t = tread(p);
	CHECK_EQ(t.n, 2);
	CHECK_U64(t.ev[0].e.id, 1);
	CHECK_U64(t.ev[1].e.id, 2);
}

/* Killed with SIGKILL mid-burst: every committed event is readable and
 * nothing is misread. */
TEST(sigkill_leaves_readable_trace)
{
	const char *p = tpath("kill.weft");
	pid_t pid = fork();
	if (pid == 0) {
		if (weft_start(p, 512 << 10, WEFT_OVERWRITE))
			_exit(3);
		for (uint64_t i = 0;; i++) {
			weft_run(i);
			weft_label(i, "payload that must match its id");
		}
	}
	usleep(300000);
	kill(pid, SIGKILL);
	int st;
	waitpid(pid, &st, 0);
	CHECK(WIFSIGNALED(st));
	/* a plain copy of a dead writer's ring reads the same */
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s.copy'", p, p);
	CHECK_OK(system(cmd));
	char copy[600];
	snprintf(copy, sizeof copy, "%s.copy", p);
	struct ttrace tc = tread(copy);
	struct ttrace t = tread(p);
	CHECK_EQ(tc.n, t.n);
	for (size_t i = 0; i < t.n; i++)
		CHECK_U64(tc.ev[i].e.id, t.ev[i].e.id);
	CHECK_EQ(t.problems, 0);
	CHECK_EQ(t.info.writer, WEFT_WRITER_GONE);
	CHECK(t.n > 1000);
	uint64_t prev = UINT64_MAX;
	for (size_t i = 0; i < t.n; i++) {
		const struct tev *v = &t.ev[i];
		if (v->e.type == WEFT_EV_LOSS) {
			prev = UINT64_MAX;
			continue;
		}
		if (v->e.type == WEFT_EV_LABEL) {
			CHECK_STR(v->text, "payload that must match its id");
			if (prev != UINT64_MAX) /* its run may be lost */
				CHECK_U64(v->e.id, prev);
		} else {
			CHECK_EQ(v->e.type, WEFT_EV_RUN);
			if (prev != UINT64_MAX)
				CHECK_U64(v->e.id, prev + 1);
			prev = v->e.id;
		}
	}
}

/* A reader copying the ring while the writer runs (weft_snapshot) never
 * misreads: torn packets are skipped and counted, and no packet's tail is
 * left out.  (A plain cp(1) of a live ring is not enough: the kernel's copy
 * does not order its loads, so it may see a commit before the bytes it
 * covers; cp is fine once the writer is gone, see sigkill test.) */
TEST(concurrent_copies_never_misread)
{
	const char *p = tpath("live.weft");
	const char *c = tpath("copy.weft");
	int ready[2];
	CHECK_OK(pipe(ready));
	pid_t pid = fork();
	if (pid == 0) {
		if (weft_start(p, 128 << 10, WEFT_OVERWRITE))
			_exit(3);
		for (uint64_t i = 0;; i++) {
			weft_run(i);
			weft_label(i, "payload that must match its id");
			char b = 1; /* ready once the ring went round */
			if (i == 20000 && write(ready[1], &b, 1) != 1)
				_exit(4);
		}
	}
	char b;
	CHECK_EQ(read(ready[0], &b, 1), 1);
	uint64_t torn_total = 0;
	for (int round = 0; round < 40; round++) {
		int fd = open(c, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		uint64_t torn = 0;
		CHECK_OK(weft_snapshot(p, fd, &torn, NULL));
		close(fd);
		torn_total += torn;
		struct ttrace t = tread(c);
		CHECK_EQ(t.problems, 0);
		/* a copy of a ring the writer keeps full: ~90 packets of
		 * ~25 events (its tail may be one packet's worth short) */
		if (t.n < 1000)
			FAIL("round %d: a copy holds %zu events", round, t.n);
		CHECK_EQ(t.info.losses.packets_corrupt, 0);
		/* a snapshot never leaves a packet's tail out */
		for (size_t i = 0; i < t.n; i++)
			CHECK(!(t.ev[i].e.flags & WEFT_EVF_PARTIAL));
		uint64_t prev = UINT64_MAX;
		for (size_t i = 0; i < t.n; i++) {
			const struct tev *v = &t.ev[i];
			if (v->e.type == WEFT_EV_LOSS) {
				prev = UINT64_MAX;
				continue;
			}
			if (v->e.type == WEFT_EV_LABEL) {
				CHECK_STR(v->text, "payload that must match "
						   "its id");
				if (prev != UINT64_MAX)
					CHECK_U64(v->e.id, prev);
			} else if (prev != UINT64_MAX)
				CHECK_U64(v->e.id, ++prev);
			else
				prev = v->e.id;
		}
		free(t.ev);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	fprintf(stderr, "# torn packets skipped in snapshots: %llu\n",
		(unsigned long long)torn_total);
}

/* Start-up failures return an error and leave the directory as it was: no
 * temporary file, and an earlier trace at the name untouched.  Every hook
 * is checked to fire (a hook that no longer does would make its case
 * pass for nothing).  Where the file system has no O_TMPFILE (a named
 * temporary file) or no fallocate (a sparse file), recording works. */
extern int weft__fault_tmpfile, weft__fault_open, weft__fault_ftruncate,
	weft__fault_fallocate, weft__fault_mmap, weft__fault_link,
	weft__fault_rename, weft__fault_errno;
TEST(fault_injection)
{
	const char *p = tpath("fault.weft"), *old = tpath("fault.orig");
	char dir[512];
	snprintf(dir, sizeof dir, "%s", p);
	*strrchr(dir, '/') = 0;
	/* an earlier trace at the name, and a copy to compare with */
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_run(1);
	CHECK_OK(weft_stop());
	CHECK_OK(sh("cp '%s' '%s'", p, old));
	struct {
		int *hook[2];
		int err;
		int want; /* 0, or what weft_start returns */
		int sparse;
	} cases[] = {
		{{&weft__fault_tmpfile}, ENOSPC, -ENOSPC, 0},
		{{&weft__fault_tmpfile}, EOPNOTSUPP, 0, 0}, /* named file */
		{{&weft__fault_tmpfile, &weft__fault_open},
		 EOPNOTSUPP,
		 -EOPNOTSUPP,
		 0},
		{{&weft__fault_fallocate}, ENOSPC, WEFT_ENOSPC, 0},
		{{&weft__fault_fallocate}, EIO, -EIO, 0},
		{{&weft__fault_fallocate}, EOPNOTSUPP, 0, 1}, /* sparse */
		{{&weft__fault_fallocate, &weft__fault_ftruncate},
		 EOPNOTSUPP,
		 -EOPNOTSUPP,
		 0},
		{{&weft__fault_mmap}, ENOMEM, -ENOMEM, 0},
		{{&weft__fault_link}, EPERM, -EPERM, 0},
		{{&weft__fault_tmpfile, &weft__fault_rename},
		 EOPNOTSUPP,
		 -EOPNOTSUPP,
		 0},
		{{&weft__fault_tmpfile, &weft__fault_mmap},
		 EOPNOTSUPP,
		 -EOPNOTSUPP,
		 0},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		for (int h = 0; h < 2; h++)
			if (cases[c].hook[h])
				*cases[c].hook[h] = 1;
		weft__fault_errno = cases[c].err;
		int err = weft_start(p, 1 << 20, 0);
		for (int h = 0; h < 2; h++)
			if (cases[c].hook[h] && *cases[c].hook[h] != 0)
				FAIL("case %zu: hook %d never fired", c, h);
		if (err != cases[c].want)
			FAIL("case %zu: weft_start returned %d (%s), want %d",
			     c, err, weft_strerror(err), cases[c].want);
		char names[4096];
		list_dir(dir, names, sizeof names);
		if (strcmp(names, "fault.orig fault.weft "))
			FAIL("case %zu: the directory holds [%s]", c, names);
		if (err) {
			if (sh("cmp -s '%s' '%s'", p, old))
				FAIL("case %zu: a failed start changed the "
				     "earlier trace",
				     c);
			continue;
		}
		weft_run(2);
		CHECK_OK(weft_stop());
		struct stat sb;
		CHECK_OK(stat(p, &sb));
		/* fallocate reserved every block; the sparse file has few */
		if (cases[c].sparse)
			CHECK((uint64_t)sb.st_blocks * 512 < (1u << 20) / 2);
		else
			CHECK((uint64_t)sb.st_blocks * 512 >=
			      (uint64_t)sb.st_size);
		struct ttrace t = tread(p);
		CHECK_EQ(t.problems, 0);
		CHECK_EQ(t.n, 1);
		CHECK_U64(t.ev[0].e.id, 2);
		CHECK_OK(sh("cp '%s' '%s'", p, old));
	}
	/* a start with no fault works, and the mmap hook fires on the
	 * second mapping too */
	weft__fault_mmap = 2;
	weft__fault_errno = ENOMEM;
	CHECK_EQ(weft_start(p, 1 << 20, 0), -ENOMEM);
	CHECK_EQ(weft__fault_mmap, 0);
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_run(5);
	CHECK_OK(weft_stop());
	struct ttrace t = tread(p);
	CHECK_EQ(t.n, 1);
}

/* Reading never records: with WEFT_FILE (and the other settings) exported
 * and naming the very trace being read, every reading command leaves its
 * bytes as they were and creates no file beside it, and no reading
 * program loads libweft (whose constructor records from the
 * environment). */
TEST(readers_never_record)
{
	const char *bin = getenv("WEFT_BIN"), *build = getenv("WEFT_BUILD");
	if (!bin || !build)
		FAIL("WEFT_BIN and WEFT_BUILD must be set (meson test sets "
		     "them)");
	const char *p = tpath("read-me.weft");
	char dir[512], out[600], copy[600];
	snprintf(dir, sizeof dir, "%s", p);
	*strrchr(dir, '/') = 0;
	snprintf(out, sizeof out, "%s.out", dir);
	snprintf(copy, sizeof copy, "%s.orig", dir);
	CHECK_OK(mkdir(out, 0700));
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_run(1);
	weft_create(2, "kind");
	weft_should_resolve(2);
	weft_label(2, "still here");
	weft_run(0);
	CHECK_OK(weft_stop());
	CHECK_OK(sh("cp '%s' '%s'", p, copy));
	char before[4096], after[4096];
	list_dir(dir, before, sizeof before);

	char help[8192] = "";
	FILE *f = popen("\"$WEFT_BIN\" 2>&1", "r");
	help[fread(help, 1, sizeof help - 1, f)] = 0;
	pclose(f);
	char wasm[600];
	snprintf(wasm, sizeof wasm, "%s/viewer/web/weft.wasm", build);
	struct {
		const char *args; /* %1$s: the trace, %2$s: the output dir */
		int have;
	} cmds[] = {
		{"info '%1$s'", 1},
		{"dump '%1$s'", 1},
		{"stats '%1$s'", 1},
		{"stats --json '%1$s'", 1},
		{"why '%1$s'", 1},
		{"why --all '%1$s'", 1},
		{"export --format chrome '%1$s' -o '%2$s/t.json'", 1},
		{"ctf '%1$s' -o '%2$s/ctf'", 1},
		{"snapshot '%1$s' -o '%2$s/snap.weft'", 1},
		{"render '%1$s' -o '%2$s/t.png'", !!strstr(help, "  render ")},
		{"render '%1$s' -o '%2$s/t.svg'", !!strstr(help, "  render ")},
		{"html '%1$s' -o '%2$s/t.html'", access(wasm, R_OK) == 0},
	};
	int ran = 0;
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
		if (!cmds[i].have) {
			fprintf(stderr, "# not in this build: weft %s\n",
				cmds[i].args);
			continue;
		}
		char args[2048];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
		snprintf(args, sizeof args, cmds[i].args, p, out);
#pragma GCC diagnostic pop
		/* (fontconfig's caches look like leaks to LeakSanitizer) */
		int rc = sh("cd '%s' && WEFT_FILE='%s' WEFT_SIZE=64K "
			    "WEFT_MODE=discard WEFT_CLOCK=monotonic "
			    "WEFT_SESSION=1 LSAN_OPTIONS=\"${LSAN_OPTIONS:+"
			    "$LSAN_OPTIONS:}suppressions=$WEFT_SRC/tests/"
			    "render/lsan.supp\" \"$WEFT_BIN\" %s >'%s/stdout' "
			    "2>'%s/stderr'",
			    dir, p, args, out, out);
		if (rc < 0 || rc > 1) /* why exits 1: thread 2 never resolved */
			FAIL("weft %s: exit %d", args, rc);
		if (sh("cmp -s '%s' '%s'", p, copy))
			FAIL("weft %s changed the trace it read", args);
		list_dir(dir, after, sizeof after);
		if (strcmp(before, after))
			FAIL("weft %s: files beside the trace were [%s], are "
			     "[%s]",
			     args, before, after);
		ran++;
	}
	CHECK(ran >= 9);
	/* What stops the constructor for good: no reading program or
	 * library loads libweft, directly or through another library. */
	const char *readers[] = {"tools/weft", "src/read/libweft-read.so",
				 "viewer/weft-view", "bench/model-bench"};
	for (size_t i = 0; i < sizeof readers / sizeof *readers; i++) {
		char path[700];
		snprintf(path, sizeof path, "%s/%s", build, readers[i]);
		if (access(path, R_OK)) {
			if (i < 2)
				FAIL("%s is missing", path);
			continue;
		}
		CHECK_EQ(sh("ldd '%s' | grep -q 'libweft-read'", path),
			 i == 1 ? 1 : 0);
		if (!sh("ldd '%s' | grep -q 'libweft\\.so'", path))
			FAIL("%s loads libweft", path);
	}
}

/* The file type and device of `p` (lstat: a link is not followed). */
static void node_id(const char *p, mode_t *mode, dev_t *rdev)
{
	struct stat sb;
	if (lstat(p, &sb))
		FAIL("%s is gone: %s", p, strerror(errno));
	*mode = sb.st_mode & S_IFMT;
	*rdev = sb.st_rdev;
}

/* Makes the nodes weft must never replace in dir: a FIFO (no reader: an
 * open for writing would block), a socket, a directory, a character
 * device (as root: the null device), a link to a FIFO. */
static int make_nodes(const char *dir, char names[][600])
{
	int n = 0;
	snprintf(names[n], 600, "%.500s/fifo", dir);
	CHECK_OK(mkfifo(names[n++], 0600));
	snprintf(names[n], 600, "%.500s/sock", dir);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", names[n]);
	if (strlen(names[n]) < sizeof sa.sun_path &&
	    bind(s, (struct sockaddr *)&sa, sizeof sa) == 0)
		n++;
	snprintf(names[n], 600, "%.500s/dir", dir);
	CHECK_OK(mkdir(names[n++], 0700));
	snprintf(names[n], 600, "%.500s/null", dir);
	if (mknod(names[n], S_IFCHR | 0666, makedev(1, 3)) == 0)
		n++;
	else
		fprintf(stderr, "# no character device of our own: %s\n",
			strerror(errno));
	snprintf(names[n], 600, "%.500s/link-to-fifo", dir);
	CHECK_OK(symlink("fifo", names[n++]));
	return n;
}

/* A device, FIFO, socket or directory is never replaced: weft_start()
 * refuses it with WEFT_ENOTREG, a program started with WEFT_FILE naming
 * it runs untraced and unchanged with one message, `weft record -o`
 * refuses before running anything (but an empty directory, which it
 * uses as the run directory).  A symbolic link of the caller's own is
 * followed. */
TEST(never_replace_non_regular_files)
{
	char dir[600];
	snprintf(dir, sizeof dir, "%s", tpath("x"));
	*strrchr(dir, '/') = 0;
	char nodes[8][600];
	int n = make_nodes(dir, nodes);
	mode_t mode[8];
	dev_t rdev[8];
	for (int i = 0; i < n; i++)
		node_id(nodes[i], &mode[i], &rdev[i]);
	const char *bin = getenv("WEFT_BIN"), *build = getenv("WEFT_BUILD");
	if (!bin || !build)
		FAIL("WEFT_BIN and WEFT_BUILD must be set (meson test sets "
		     "them)");
	char ticker[700];
	snprintf(ticker, sizeof ticker, "%s/examples/forker", build);
	CHECK_OK(sh("cd '%s' && '%s' >plain.out 2>plain.err", dir, ticker));

	for (int i = 0; i < n; i++) {
		CHECK_EQ(weft_start(nodes[i], 1 << 20, 0), WEFT_ENOTREG);
		CHECK_EQ(sh("cd '%s' && WEFT_FILE='%s' '%s' >env.out 2>env.err",
			    dir, nodes[i], ticker),
			 0);
		/* the program's output is its own (forker prints its
		 * child's pid: compare the shape), and one line says why */
		CHECK_OK(sh("cd '%s' && test $(wc -l <env.out) = 1 && "
			    "test $(wc -l <env.err) = 1 && grep -q 'cannot "
			    "trace into .*: not a regular file (never "
			    "replaced); running untraced' env.err",
			    dir));
		int is_dir = !strcmp(strrchr(nodes[i], '/'), "/dir");
		/* (a sanitizer build's preloaded shim brings its runtime into
		 * sh: let it load late) */
		CHECK_EQ(sh("cd '%s' && touch ran && rm ran && "
			    "ASAN_OPTIONS=verify_asan_link_order=0:detect_"
			    "leaks=0 "
			    "'%s' record -o '%s' -- sh -c 'touch ran' "
			    "2>rec.err",
			    dir, bin, nodes[i]),
			 is_dir ? 0 : 2);
		if (is_dir) {
			/* the run directory: the tree's manifest in it */
			CHECK_OK(sh("cd '%s' && rm ran && grep -q '^fork pid=' "
				    "dir/manifest && rm dir/manifest",
				    dir));
			continue;
		}
		CHECK(sh("test -e '%s/ran'", dir) != 0);
		CHECK_OK(sh("grep -q 'is not a regular file' '%s/rec.err'",
			    dir));
		for (int k = 0; k < n; k++) {
			mode_t m;
			dev_t d;
			node_id(nodes[k], &m, &d);
			if (m != mode[k] || d != rdev[k])
				FAIL("%s was replaced (type %o, was %o)",
				     nodes[k], m, mode[k]);
		}
	}
	/* Nothing was left beside them. */
	char names[4096];
	list_dir(dir, names, sizeof names);
	CHECK_STR(names, "dir env.err env.out fifo link-to-fifo null "
			 "plain.err plain.out rec.err sock ");
}

/* The state of every file in `dir` but env.out and env.err: type, owner,
 * link target, and the md5 of each regular file, into `out`. */
static void dir_state(const char *dir, const char *out)
{
	CHECK_OK(sh("cd '%s' && find . -path ./env.out -prune -o -path "
		    "./env.err -prune -o -printf '%%p %%y %%u %%l\\n' | sort "
		    ">'%s' && find . -type f ! -name 'env.*' -exec md5sum {} + "
		    "| sort >>'%s'",
		    dir, out, out));
}

/* `name` (in dir) is refused: weft_start() returns `code`, and a program
 * started with WEFT_FILE=name (from dir) runs untraced with exactly one
 * line, "weft: cannot trace into 'name': `why`; running untraced",
 * and nothing in dir changes (every file's md5, every link). */
static void refused(const char *dir, const char *name, int code,
		    const char *why)
{
	char path[700], before[700], after[700];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	snprintf(before, sizeof before, "%s.before", dir);
	snprintf(after, sizeof after, "%s.after", dir);
	dir_state(dir, before);
	if (weft_start(path, 1 << 20, 0) != code)
		FAIL("weft_start(%s) did not return %d (%s)", name, code,
		     weft_strerror(code));
	const char *build = getenv("WEFT_BUILD");
	if (!build)
		FAIL("WEFT_BUILD must be set (meson test sets it)");
	CHECK_EQ(sh("cd '%s' && WEFT_FILE='%s' '%s/examples/ticker' 0.01 "
		    ">env.out 2>env.err",
		    dir, name, build),
		 0);
	char want[1200];
	snprintf(want, sizeof want,
		 "weft: cannot trace into '%s': %s; running untraced", name,
		 why);
	if (sh("cd '%s' && test \"$(cat env.err)\" = \"%s\" && grep -q "
	       "'^ticker: [0-9]* ticks$' env.out",
	       dir, want))
		FAIL("%s: the message is not \"%s\"", name, want);
	/* said when the program loads, before it runs: even one that
	 * records nothing says it */
	char self[600];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	CHECK(n > 0);
	self[n] = 0;
	if (sh("cd '%s' && WEFT_FILE='%s' '%s' --idle-helper >env.out "
	       "2>env.err && test \"$(cat env.err)\" = \"%s\" && test "
	       "\"$(cat env.out)\" = 'recorded nothing'",
	       dir, name, self, want))
		FAIL("%s: not said at load", name);
	dir_state(dir, after);
	if (sh("cmp -s '%s' '%s'", before, after))
		FAIL("%s: something changed in %s", name, dir);
}

/* What weft_start() and WEFT_FILE replace (docs/format.md, "Making the
 * file"): a ring of an earlier run, directly or through a link of the
 * caller's own; a dangling link of the caller's is created where it
 * points.  Never a regular file that is not a ring, nor an empty one. */
TEST(replaces_only_rings)
{
	const char *ring = tpath("ring.weft");
	char dir[600];
	snprintf(dir, sizeof dir, "%s", ring);
	*strrchr(dir, '/') = 0;
	/* a ring of an earlier run */
	CHECK_OK(weft_start(ring, 1 << 20, 0));
	weft_run(1);
	CHECK_OK(weft_stop());
	CHECK_OK(sh("cd '%s' && mkdir sub && printf 'precious\\n' >data && "
		    "printf 'precious\\n' >data.weft && : >empty.weft && "
		    "printf 'WEFTRIN' >short.weft && "
		    "ln -s data link-to-data.weft && ln -s empty.weft "
		    "link-to-empty.weft && ln -s link-to-data.weft "
		    "link-to-link-to-data.weft && ln -s ring.weft "
		    "link-to-ring.weft && ln -s sub/new.weft dangling.weft && "
		    "mkdir dir.weft",
		    dir));
	const char *notring = "exists and is not a weft ring (never replaced)";
	refused(dir, "data.weft", WEFT_ENOTRING, notring);
	refused(dir, "empty.weft", WEFT_ENOTRING, notring);
	refused(dir, "short.weft", WEFT_ENOTRING, notring);
	refused(dir, "link-to-data.weft", WEFT_ENOTRING, notring);
	refused(dir, "link-to-empty.weft", WEFT_ENOTRING, notring);
	refused(dir, "link-to-link-to-data.weft", WEFT_ENOTRING, notring);
	refused(dir, "dir.weft", WEFT_ENOTREG,
		"not a regular file (never replaced)");
	CHECK_OK(sh("cd '%s' && test \"$(cat data)\" = precious && "
		    "test \"$(cat data.weft)\" = precious && test ! -s "
		    "empty.weft",
		    dir));

	/* Replaced: the ring, directly and through the caller's own link
	 * (which stays a link); created: where a dangling link points. */
	const char *names[] = {"ring.weft", "link-to-ring.weft",
			       "dangling.weft"};
	const char *targets[] = {"ring.weft", "ring.weft", "sub/new.weft"};
	for (int i = 0; i < 3; i++) {
		char path[700], target[700];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		snprintf(target, sizeof target, "%s/%s", dir, targets[i]);
		CHECK_OK(weft_start(path, 1 << 20, 0));
		weft_run(40 + (uint64_t)i);
		CHECK_OK(weft_stop());
		struct ttrace t = tread(target);
		CHECK_EQ(t.n, 1);
		CHECK_U64(t.ev[0].e.id, 40 + (uint64_t)i);
		struct stat sb;
		CHECK_OK(lstat(path, &sb));
		CHECK(i == 0 ? S_ISREG(sb.st_mode) : S_ISLNK(sb.st_mode));
	}
	char listing[4096];
	list_dir(dir, listing, sizeof listing);
	CHECK_STR(listing, "dangling.weft data data.weft dir.weft empty.weft "
			   "env.err "
			   "env.out link-to-data.weft link-to-empty.weft "
			   "link-to-link-to-data.weft link-to-ring.weft "
			   "ring.weft "
			   "short.weft sub ");
	list_dir(strcat(dir, "/sub"), listing, sizeof listing);
	CHECK_STR(listing, "new.weft ");
}

/* A symbolic link the caller does not own is never followed (the kernel's
 * protected_symlinks rule, without its exception for the directory's
 * owner): one planted in a sticky world-writable directory would have
 * root's recorder replace a file of another user's choosing.  At any
 * step of a chain; for FILE, FILE.PID and a run's rings alike.  Needs
 * root, to give a link to another user. */
TEST(never_follows_another_users_link)
{
	if (geteuid() != 0)
		SKIP("not root: cannot make a link owned by another user");
	const char *ring = tpath("ring.weft");
	char dir[600];
	snprintf(dir, sizeof dir, "%s", ring);
	*strrchr(dir, '/') = 0;
	CHECK_OK(weft_start(ring, 1 << 20, 0));
	weft_run(1);
	CHECK_OK(weft_stop());
	CHECK_OK(sh("cd '%s' && printf 'precious\\n' >data && "
		    "ln -s ring.weft theirs-to-ring.weft && "
		    "ln -s data theirs-to-data.weft && "
		    "ln -s sub/new.weft theirs-dangling.weft && "
		    "ln -s theirs-to-ring.weft mine-to-theirs.weft && "
		    "chown -h 65534:65534 theirs-to-ring.weft "
		    "theirs-to-data.weft theirs-dangling.weft && mkdir sub",
		    dir));
	const char *why = "a symbolic link its caller does not own (never "
			  "followed)";
	refused(dir, "theirs-to-ring.weft", WEFT_ELINK, why);
	refused(dir, "theirs-to-data.weft", WEFT_ELINK, why);
	refused(dir, "theirs-dangling.weft", WEFT_ELINK, why);
	refused(dir, "mine-to-theirs.weft", WEFT_ELINK, why);

	/* FILE.PID (a process that is not the tree's first) and a run's
	 * ring.PID: the same rules.  exec keeps the pid the shell knew. */
	const char *build = getenv("WEFT_BUILD");
	char pidf[700], sums[700];
	snprintf(pidf, sizeof pidf, "%s/pid", dir);
	snprintf(sums, sizeof sums, "%s.md5", dir);
	const char *setup[] = {
		"ln -s ring.weft f.weft.$$ && chown -h 65534 f.weft.$$ && "
		"WEFT_FILE=f.weft WEFT_ROOT_PID=1",
		"echo precious >f.weft.$$ && WEFT_FILE=f.weft WEFT_ROOT_PID=1",
		"mkdir -p run && ln -s ../ring.weft run/ring.$$ && chown -h "
		"65534 run/ring.$$ && WEFT_RUN=run WEFT_ROOT_PID=1",
	};
	const char *file[] = {"f.weft", "f.weft", "run/ring"};
	const char *said[] = {
		"a symbolic link its caller does not own",
		"exists and is not a weft ring",
		"a symbolic link its caller does not own",
	};
	for (int i = 0; i < 3; i++) {
		CHECK_OK(sh("cd '%s' && md5sum ring.weft data >'%s'", dir,
			    sums));
		/* (exec: the pid the shell wrote is the program's) */
		CHECK_OK(sh("cd '%s' && sh -c 'echo $$ >pid && %s exec "
			    "\"%s/examples/ticker\" 0.01 >env.out 2>env.err'",
			    dir, setup[i], build));
		FILE *f = fopen(pidf, "r");
		int pid = 0;
		CHECK(f && fscanf(f, "%d", &pid) == 1);
		fclose(f);
		char want[300];
		snprintf(want, sizeof want, "%s.%d': %s", file[i], pid,
			 said[i]);
		if (sh("cd '%s' && test $(wc -l <env.err) = 1 && grep -qF "
		       "\"cannot trace into '%s\" env.err && grep -q "
		       "'; running untraced$' env.err",
		       dir, want))
			FAIL("case %d: not said: %s", i, want);
		CHECK_OK(sh("cd '%s' && md5sum -c --quiet '%s' && rm -f "
			    "f.weft.* pid",
			    dir, sums));
	}
}

/* The size of `p` (ls) and the bytes it holds on disk (du). */
static void file_size(const char *p, uint64_t *size, uint64_t *disk)
{
	struct stat sb;
	if (stat(p, &sb))
		FAIL("%s: %s", p, strerror(errno));
	*size = (uint64_t)sb.st_size;
	*disk = (uint64_t)sb.st_blocks * 512;
}

static void *one_event(void *arg)
{
	weft_run((uint64_t)(uintptr_t)arg);
	return NULL;
}

/* A clean stop gives back the blocks of the slots a ring never used: its
 * header says how many are left, the file is cut there (ls and du); a ring
 * that went round, or a full discard ring, keeps every slot.  A 1 MiB
 * ring: a header region of 184320 bytes, 211 slots of 4096. */
TEST(clean_stop_gives_back_unused_slots)
{
	const uint64_t hs = 184320, ps = 4096, whole = 1 << 20;
	struct stop_case {
		int threads; /* OS threads recording one event each */
		uint64_t slots;
	} cases[] = {{0, 1}, {1, 1}, {3, 3}};
	for (int c = 0; c < 3; c++) {
		const char *p = tpath("clean.weft");
		CHECK_OK(weft_start(p, whole, 0));
		uint64_t size, disk;
		file_size(p, &size, &disk);
		CHECK_U64(size, whole); /* the whole ring while it runs */
		pthread_t th[3];
		for (int k = 0; k < cases[c].threads; k++)
			pthread_create(&th[k], NULL, one_event,
				       (void *)(uintptr_t)(k + 1));
		for (int k = 0; k < cases[c].threads; k++)
			pthread_join(th[k], NULL);
		CHECK_OK(weft_stop());
		file_size(p, &size, &disk);
		CHECK_U64(size, hs + cases[c].slots * ps);
		CHECK(disk <= size);
		struct ttrace t = tread(p);
		CHECK_EQ(t.problems, 0);
		CHECK_EQ(t.n, (size_t)cases[c].threads);
		CHECK_EQ(t.info.npackets, cases[c].slots);
		CHECK_U64(t.info.file_size, size);
		CHECK_EQ(t.info.writer, WEFT_WRITER_STOPPED);
		CHECK_U64(t.info.losses.packets_lost +
				  t.info.losses.packets_torn,
			  0);
		CHECK_OK(unlink(p));
	}
	/* Gone round (overwrite), and full (discard): nothing to give. */
	unsigned modes[] = {WEFT_OVERWRITE, WEFT_DISCARD};
	for (int m = 0; m < 2; m++) {
		const char *p = tpath("full.weft");
		CHECK_OK(weft_start(p, whole, modes[m]));
		for (uint64_t i = 0; i < 200000; i++)
			weft_run(i);
		CHECK_OK(weft_stop());
		uint64_t size, disk;
		file_size(p, &size, &disk);
		CHECK_U64(size, whole);
		struct ttrace t = tread(p);
		CHECK_EQ(t.problems, 0);
		CHECK_EQ(t.info.npackets, 211);
		CHECK(modes[m] == WEFT_DISCARD
			      ? t.info.losses.events_discarded > 0
			      : t.info.losses.packets_lost > 0);
		CHECK_OK(unlink(p));
	}
}

/* A stop that lands in the middle of an event (here, from a signal
 * handler: as another OS thread's stop would) cuts the ring; the event,
 * when it goes on to open a packet, must not take a slot past the cut
 * (its page is gone: SIGBUS).  Every event here is a note that fills a
 * packet, so nearly every one opens a packet; a timer stops the ring
 * after a few.  The ring reads back whole, its events numbered in order. */
static atomic_int stop_calls;
static void stop_on_signal(int sig)
{
	(void)sig;
	int e = errno;
	if (weft_stop() == 0)
		atomic_fetch_add(&stop_calls, 1);
	errno = e;
}

TEST(stop_mid_event_opens_no_packet)
{
	struct sigaction sa = {.sa_handler = stop_on_signal};
	sigaction(SIGUSR2, &sa, NULL);
	struct sigevent sev = {.sigev_notify = SIGEV_SIGNAL,
			       .sigev_signo = SIGUSR2};
	timer_t timer;
	CHECK_OK(timer_create(CLOCK_MONOTONIC, &sev, &timer));
	static char text[4096];
	memset(text, 'n', 3900);
	int runs = 0;
	for (int k = 0; k < 300; k++) {
		const char *p = tpath("midstop.weft");
		int before = atomic_load(&stop_calls);
		CHECK_OK(weft_start(p, 1 << 20, WEFT_OVERWRITE));
		struct itimerspec it = {{0, 0}, {0, 100000 + (k % 7) * 13000}};
		CHECK_OK(timer_settime(timer, 0, &it, NULL));
		uint64_t i = 0;
		/* (at most 150 notes: the ring's 211 slots never go round) */
		while (atomic_load(&stop_calls) == before && i < 150)
			weft_note(i++, text);
		if (atomic_load(&stop_calls) == before) {
			struct itimerspec off = {{0, 0}, {0, 0}};
			CHECK_OK(timer_settime(timer, 0, &off, NULL));
			weft_stop();
		} else {
			runs++;
		}
		struct ttrace t = tread(p);
		CHECK_EQ(t.problems, 0);
		uint64_t next = 0;
		for (size_t e = 0; e < t.n; e++) {
			if (t.ev[e].e.type == WEFT_EV_LOSS)
				continue;
			CHECK_EQ(t.ev[e].e.type, WEFT_EV_NOTE);
			CHECK_U64(t.ev[e].e.id, next);
			next++;
		}
		CHECK_OK(unlink(p));
	}
	CHECK_OK(timer_delete(timer));
	CHECK(runs > 100); /* (stopped by the timer, mid-run, mostly) */
}

/* A reader following a ring while its writer stops cleanly, and cuts the
 * file to the slots it used, sees every event, and no loss or problem:
 * the slots past the cut were never used.  A copy of the ring (what weft
 * html and weft snapshot make) by a reader that opened it before the cut
 * is whole, not "shrank while copied", and as short as the file. */
TEST(live_reader_sees_a_clean_stop)
{
	const char *p = tpath("stopping.weft");
	int ready[2], go[2];
	CHECK(pipe(ready) == 0 && pipe(go) == 0);
	const uint64_t per = 3000;
	pid_t pid = fork();
	if (pid == 0) {
		if (weft_start(p, 4 << 20, WEFT_DISCARD))
			_exit(1);
		for (uint64_t i = 0; i < per; i++)
			weft_run(i);
		char c;
		if (write(ready[1], "x", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(2);
		for (uint64_t i = per; i < 2 * per; i++)
			weft_run(i);
		_exit(weft_stop() ? 3 : 0);
	}
	char c;
	CHECK(read(ready[0], &c, 1) == 1);
	struct weft_reader *r, *r2;
	CHECK_OK(weft_reader_open(&r, p, WEFT_READ_FOLLOW, NULL));
	CHECK_OK(weft_reader_open(&r2, p, 0, NULL));
	CHECK_EQ(weft_reader_info(r)->writer, WEFT_WRITER_LIVE);
	CHECK_EQ(weft_reader_info(r2)->writer, WEFT_WRITER_LIVE);
	uint32_t np = weft_reader_info(r)->npackets;
	struct weft_event ev;
	uint64_t n = 0;
	int rc, polls = 0, status = -1;
	while ((rc = weft_reader_next(r, &ev)) != WEFT_EEOF) {
		if (rc == WEFT_EAGAIN) {
			if (++polls == 1) {
				CHECK_U64(n, per);
				CHECK(write(go[1], "x", 1) == 1);
				CHECK_EQ(waitpid(pid, &status, 0), pid);
			}
			CHECK(polls < 1000);
			usleep(1000);
			continue;
		}
		CHECK_EQ(rc, 0);
		CHECK_U64(ev.id, n);
		n++;
	}
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK_U64(n, 2 * per);
	lost_nothing(weft_reader_info(r));
	weft_reader_close(r);
	/* (and it was cut, while the reader read) */
	struct ttrace t = tread(p);
	CHECK(t.info.npackets < np);
	CHECK_EQ(t.n, 2 * per);
	uint64_t size, disk;
	file_size(p, &size, &disk);
	for (unsigned flags = 0; flags <= WEFT_COPY_COMPACT; flags++) {
		void *copy;
		size_t len;
		uint64_t torn = 1;
		CHECK_OK(weft_reader_copy(r2, flags, &copy, &len, &torn));
		CHECK_U64(torn, 0);
		CHECK_U64(len, size);
		struct weft_reader *rc2;
		CHECK_OK(weft_reader_open_mem(&rc2, copy, len, 0, NULL));
		uint64_t k = 0;
		while (weft_reader_next(rc2, &ev) == 0) {
			CHECK_U64(ev.id, k);
			k++;
		}
		CHECK_U64(k, 2 * per);
		CHECK_EQ(weft_reader_info(rc2)->problems, 0);
		weft_reader_close(rc2);
		free(copy);
	}
	weft_reader_close(r2);
}

/* A writer killed keeps its ring's size; weft_compact gives back what it
 * never used, into a file that reads the same (every event, every field),
 * with the ring's mode; again, nothing more to give.  Refused: a ring a
 * live writer holds, a symbolic link, what is not a ring. */
TEST(compact_a_killed_writers_ring)
{
	const char *p = tpath("killed.weft");
	int ready[2];
	CHECK(pipe(ready) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		if (weft_start(p, 1 << 20, 0))
			_exit(1);
		pthread_t th[3];
		for (int k = 0; k < 3; k++)
			pthread_create(&th[k], NULL, one_event,
				       (void *)(uintptr_t)(k + 100));
		for (int k = 0; k < 3; k++)
			pthread_join(th[k], NULL);
		for (uint64_t i = 0; i < 2000; i++) {
			weft_create(i, "request");
			weft_label(i, "a label that takes some room");
		}
		if (write(ready[1], "x", 1) != 1)
			_exit(2);
		pause();
		_exit(0);
	}
	char c;
	CHECK(read(ready[0], &c, 1) == 1);
	struct weft_compact_result res;
	struct weft_diag d = {0};
	uint64_t size, disk;
	CHECK_EQ(weft_compact(p, &res, &d), -EBUSY);
	CHECK_STR(d.msg, "a live writer holds it (compact it once it is done)");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	file_size(p, &size, &disk);
	CHECK_U64(size, 1 << 20);
	CHECK_OK(chmod(p, 0640));
	struct ttrace before = tread(p);
	CHECK_EQ(before.info.writer, WEFT_WRITER_GONE);
	CHECK_EQ(before.n, 3 + 2 * 2000);
	uint32_t used = before.info.packets_used;
	CHECK(used > 3 && used < 211);
	CHECK_OK(weft_compact(p, &res, &d));
	CHECK_U64(res.size_before, 1 << 20);
	CHECK_U64(res.size_after, 184320 + (uint64_t)used * 4096);
	CHECK_EQ(res.slots_before, 211);
	CHECK_EQ(res.slots_after, used);
	file_size(p, &size, &disk);
	CHECK_U64(size, res.size_after);
	struct stat sb;
	CHECK_OK(stat(p, &sb));
	CHECK_EQ(sb.st_mode & 07777, 0640);
	struct ttrace after = tread(p);
	CHECK_EQ(after.info.writer, WEFT_WRITER_GONE);
	CHECK_EQ(after.problems, 0);
	CHECK_EQ(after.n, before.n);
	for (size_t i = 0; i < after.n; i++) {
		const struct tev *a = &before.ev[i], *b = &after.ev[i];
		CHECK(a->e.type == b->e.type && a->e.ts == b->e.ts &&
		      a->e.stream == b->e.stream && a->e.id == b->e.id &&
		      a->e.actor == b->e.actor && a->e.offset == b->e.offset);
		CHECK_STR(a->text, b->text);
		CHECK_STR(a->name, b->name);
	}
	CHECK_OK(weft_compact(p, &res, &d));
	CHECK_U64(res.size_after, res.size_before);
	CHECK_EQ(res.slots_after, used);
	/* nothing left beside it */
	char dir[600], names[4096];
	snprintf(dir, sizeof dir, "%s", p);
	*strrchr(dir, '/') = 0;
	list_dir(dir, names, sizeof names);
	CHECK_STR(names, "killed.weft ");

	/* Refused, untouched. */
	CHECK_OK(sh("cd '%s' && ln -s killed.weft link.weft && printf "
		    "'precious\\n' >data.weft && mkdir dir.weft && md5sum "
		    "killed.weft data.weft >../sums",
		    dir));
	const char *bad[] = {"link.weft", "data.weft", "dir.weft"};
	int code[] = {WEFT_ELINK, WEFT_ENOTRING, WEFT_ENOTREG};
	for (int i = 0; i < 3; i++) {
		char path[700];
		snprintf(path, sizeof path, "%s/%s", dir, bad[i]);
		CHECK_EQ(weft_compact(path, &res, &d), code[i]);
	}
	CHECK_OK(sh("cd '%s' && md5sum -c --quiet ../sums && test -L "
		    "link.weft",
		    dir));
}

/* Another process's live ring is never replaced. */
TEST(never_replace_live_ring)
{
	const char *p = tpath("held.weft");
	int go[2];
	CHECK_OK(pipe(go));
	pid_t pid = fork();
	if (pid == 0) {
		if (weft_start(p, 1 << 20, 0))
			_exit(3);
		char b = 1;
		if (write(go[1], &b, 1) != 1)
			_exit(4);
		pause();
		_exit(0);
	}
	char b;
	CHECK_EQ(read(go[0], &b, 1), 1);
	CHECK_EQ(weft_start(p, 1 << 20, 0), -EBUSY);
	struct weft_reader *r;
	CHECK_OK(weft_reader_open(&r, p, 0, NULL));
	CHECK_EQ(weft_reader_info(r)->writer, WEFT_WRITER_LIVE);
	weft_reader_close(r);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* WEFT_CLOCK_MANUAL: events are stamped with the time the program set,
 * in ns from the start, on every OS thread; a stream never goes back. */
static void *manual_other(void *arg)
{
	(void)arg;
	weft_run(7); /* stamped with the time set before this thread ran */
	weft_run(0);
	return NULL;
}

TEST(manual_clock)
{
	const char *p = tpath("manual.weft");
	CHECK_EQ(weft_start(p, 1 << 20,
			    WEFT_CLOCK_MANUAL | WEFT_CLOCK_MONOTONIC),
		 WEFT_EINVAL);
	CHECK_OK(weft_start(p, 1 << 20, WEFT_CLOCK_MANUAL));
	weft_run(1); /* at 0 */
	weft_clock_set(1000);
	weft_create(2, "k");
	weft_clock_set(123456789);
	weft_resolve(2);
	pthread_t th;
	pthread_create(&th, NULL, manual_other, NULL);
	pthread_join(th, NULL);
	weft_clock_set(5000); /* back in time: the stream keeps its last */
	weft_read(2);
	weft_clock_set(200000000);
	weft_run(0);
	CHECK_OK(weft_stop());
	struct ttrace t = tread(p);
	CHECK_EQ(t.problems, 0);
	CHECK_EQ(t.info.clock_kind, 3);
	CHECK_U64(t.info.freq, 1000000000u);
	CHECK_EQ(t.n, 7);
	static const int64_t want[] = {
		0, 1000, 123456789, 123456789, 123456789, 123456789, 200000000};
	for (size_t i = 0; i < t.n; i++)
		if (t.ev[i].e.ns != want[i])
			FAIL("event %zu (%s) at %lld ns, want %lld", i,
			     weft_event_name(t.ev[i].e.type),
			     (long long)t.ev[i].e.ns, (long long)want[i]);
	/* the other OS thread's two events, at the time set then */
	int other = 0;
	for (size_t i = 0; i < t.n; i++)
		if (t.ev[i].e.stream != t.ev[0].e.stream) {
			CHECK_EQ(t.ev[i].e.ns, 123456789);
			other++;
		}
	CHECK_EQ(other, 2);
	/* a later start begins at 0 again, on the real clock by default */
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_run(1);
	CHECK_OK(weft_stop());
	t = tread(p);
	CHECK(t.info.clock_kind == 1 || t.info.clock_kind == 2);
}

/* Names longer than 255 bytes: a label given to weft_create_label goes
 * whole, as a text; a kind or counter name is cut at a character
 * boundary and counted as a truncated text. */
TEST(long_names_cut_at_a_character)
{
	const char *p = tpath("names.weft");
	char label[260], kind2[301], counter[260], label2[301];
	memset(label, 'L', 259);
	label[259] = 0;
	memset(counter, 'c', 259);
	counter[259] = 0;
	for (int i = 0; i < 300; i += 2) {
		kind2[i] = (char)0xC3; /* é */
		kind2[i + 1] = (char)0xA9;
	}
	kind2[300] = 0;
	memcpy(label2, kind2, sizeof label2);
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_create_label(1, "k", label);
	weft_create(2, kind2);
	weft_counter_set(counter, 7);
	weft_create_label(3, kind2, label2);
	CHECK_OK(weft_stop());
	struct ttrace t = tread(p);
	CHECK_EQ(t.problems, 0);
	CHECK_EQ(t.n, 6);
	/* the label, whole: create then label */
	CHECK_EQ(t.ev[0].e.type, WEFT_EV_CREATE);
	CHECK_STR(t.ev[0].name, "k");
	CHECK_EQ(t.ev[1].e.type, WEFT_EV_LABEL);
	CHECK_STR(t.ev[1].text, label);
	CHECK_EQ(t.ev[1].e.flags, 0);
	/* the kind: 127 whole characters, 254 bytes */
	CHECK_EQ(t.ev[2].e.type, WEFT_EV_CREATE);
	CHECK_EQ(strlen(t.ev[2].name), 254);
	CHECK(!memcmp(t.ev[2].name, kind2, 254));
	CHECK_EQ(t.ev[3].e.type, WEFT_EV_COUNTER_SET);
	CHECK_EQ(strlen(t.ev[3].name), 255);
	CHECK(!memcmp(t.ev[3].name, counter, 255));
	CHECK_EQ(t.ev[4].e.type, WEFT_EV_CREATE);
	CHECK_EQ(strlen(t.ev[4].name), 254); /* the kind: interned once */
	CHECK_EQ(t.ev[5].e.type, WEFT_EV_LABEL);
	CHECK_STR(t.ev[5].text, label2);
	CHECK_EQ(t.ev[5].e.flags, 0);
	/* two names cut (the kind once: it is interned once) */
	CHECK_EQ(t.info.losses.texts_truncated, 2);
}

/* A ring is made without writing it: its blocks are reserved (a full disk
 * is an error of weft_start, never a SIGBUS later), its pages are not in
 * memory until packets use them. */
TEST(start_writes_only_the_header)
{
	const char *p = tpath("big.weft");
	size_t size = 256u << 20;
	CHECK_OK(weft_start(p, size, 0));
	weft_run(1);
	int fd = open(p, O_RDONLY);
	CHECK(fd >= 0);
	struct stat sb;
	CHECK_OK(fstat(fd, &sb));
	CHECK((uint64_t)sb.st_blocks * 512 >= (uint64_t)sb.st_size);
	void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(m != MAP_FAILED);
	size_t pages = (size_t)sb.st_size / 4096, in = 0;
	unsigned char *vec = malloc(pages);
	CHECK_OK(mincore(m, (size_t)sb.st_size, vec));
	for (size_t i = 0; i < pages; i++)
		in += vec[i] & 1;
	/* (a page fault may bring in a large folio: a few MiB) */
	fprintf(stderr, "# %zu of %zu pages in memory\n", in, pages);
	CHECK(in < pages / 8);
	/* Of the packets, the first window brought in ahead (256 KiB), not
	 * what the disk's read-ahead would read around the first fault (8
	 * MiB with read_ahead_kb 8192, as on the VMs this runs on). */
	size_t hpages = ((const struct weft__fhdr *)m)->header_size / 4096,
	       inpk = 0;
	for (size_t i = hpages; i < pages; i++)
		inpk += vec[i] & 1;
	fprintf(stderr, "# %zu packet pages in memory\n", inpk);
	CHECK(inpk >= 1 && inpk <= (256 << 10) / 4096);
	munmap(m, (size_t)sb.st_size);
	close(fd);
	free(vec);
	CHECK_OK(weft_stop());
	struct ttrace t = tread(p);
	CHECK_EQ(t.n, 1);
}

/* The ring file is never reachable under a name someone else could make
 * first: a file or link already at the old predictable name
 * (FILE.PID.tmp) is left alone, and nothing else is left beside FILE. */
TEST(no_predictable_temporary_name)
{
	const char *p = tpath("t.weft");
	char planted[600], keep[600];
	snprintf(planted, sizeof planted, "%s.%d.tmp", p, (int)getpid());
	snprintf(keep, sizeof keep, "%s.attacker", p);
	CHECK_OK(sh("echo attacker >'%s' && chmod 666 '%s' && ln '%s' '%s'",
		    planted, planted, planted, keep));
	CHECK_OK(weft_start(p, 1 << 20, 0));
	weft_run(1);
	CHECK_OK(weft_stop());
	CHECK_OK(sh("test \"$(cat '%s')\" = attacker", keep));
	struct stat sb;
	CHECK_OK(stat(p, &sb));
	CHECK_EQ(sb.st_mode & 0777, 0600);
	CHECK_EQ(sb.st_nlink, 1);
	char dir[512], names[4096];
	snprintf(dir, sizeof dir, "%s", p);
	*strrchr(dir, '/') = 0;
	list_dir(dir, names, sizeof names);
	char want[1024];
	snprintf(want, sizeof want, "t.weft t.weft.%d.tmp t.weft.attacker ",
		 (int)getpid());
	CHECK_STR(names, want);
}

/* Killed at any moment of start-up (a 1 GiB ring), a writer leaves either
 * nothing or a readable ring: never a temporary file. */
TEST(kill_during_startup_leaves_nothing)
{
	const char *p = tpath("k.weft");
	char dir[512], names[4096];
	snprintf(dir, sizeof dir, "%s", p);
	*strrchr(dir, '/') = 0;
	int kept = 0;
	for (int round = 0; round < 40; round++) {
		pid_t pid = fork();
		if (pid == 0) {
			if (weft_start(p, (size_t)1 << 30, 0))
				_exit(3);
			for (uint64_t i = 0;; i++)
				weft_run(i);
		}
		usleep((useconds_t)(round % 20) * 500);
		kill(pid, SIGKILL);
		int st;
		waitpid(pid, &st, 0);
		CHECK(WIFSIGNALED(st));
		list_dir(dir, names, sizeof names);
		if (!strcmp(names, "k.weft ")) {
			struct ttrace t = tread(p);
			CHECK_EQ(t.problems, 0);
			free(t.ev);
			CHECK_OK(unlink(p));
			kept++;
		} else if (names[0])
			FAIL("round %d: left [%s]", round, names);
	}
	fprintf(stderr,
		"# killed 40 times: %d rings complete, %d before "
		"the ring had a name\n",
		kept, 40 - kept);
}

/* Many writers of 4 OS threads each, killed with SIGKILL at random
 * moments (bounded: a few seconds): every event read back is one that was
 * committed, in each stream's order, nothing misread. */
#define KILL_THREADS 4
static void *kill_writer(void *arg)
{
	uint64_t base = (uint64_t)(uintptr_t)arg << 40;
	for (uint64_t i = 0;; i++) {
		weft_run(base | i);
		weft_label(base | i, "payload that must match its id");
	}
	return NULL;
}

TEST(sigkill_loop_four_threads)
{
	const char *p = tpath("kl.weft");
	unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
	fprintf(stderr, "# seed %u\n", seed);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rounds = 0;
	uint64_t total = 0;
	do {
		pid_t pid = fork();
		if (pid == 0) {
			if (weft_start(p, (rand_r(&seed) % 4 + 1) << 18,
				       WEFT_OVERWRITE))
				_exit(3);
			pthread_t th[KILL_THREADS];
			for (uintptr_t i = 0; i < KILL_THREADS; i++)
				pthread_create(&th[i], NULL, kill_writer,
					       (void *)(i + 1));
			pause();
		}
		usleep(rand_r(&seed) % 30000);
		kill(pid, SIGKILL);
		int st;
		waitpid(pid, &st, 0);
		CHECK(WIFSIGNALED(st));
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (access(p, F_OK))
			continue; /* killed before the ring had a name */
		struct ttrace t = tread(p);
		CHECK_EQ(t.problems, 0);
		CHECK_EQ(t.info.writer, WEFT_WRITER_GONE);
		uint64_t prev[64];
		for (int k = 0; k < 64; k++)
			prev[k] = UINT64_MAX;
		for (size_t i = 0; i < t.n; i++) {
			const struct tev *v = &t.ev[i];
			unsigned s = v->e.stream;
			CHECK(s < 64);
			if (v->e.type == WEFT_EV_LOSS) {
				prev[s] = UINT64_MAX;
				continue;
			}
			if (v->e.type == WEFT_EV_LABEL) {
				CHECK_STR(v->text, "payload that must match "
						   "its id");
				if (prev[s] != UINT64_MAX)
					CHECK_U64(v->e.id, prev[s]);
			} else {
				CHECK_EQ(v->e.type, WEFT_EV_RUN);
				if (prev[s] != UINT64_MAX)
					CHECK_U64(v->e.id, prev[s] + 1);
				prev[s] = v->e.id;
			}
		}
		total += t.n;
		free(t.ev);
		unlink(p);
		/* at least 10 kills; then until 6 s have passed (a loaded
		 * machine gives fewer rounds, not a time-out) */
	} while (rounds < 10 || (t1.tv_sec - t0.tv_sec < 6 && rounds < 200));
	fprintf(stderr, "# %d kills, %llu events read back\n", rounds,
		(unsigned long long)total);
	CHECK(total > 0);
}

/* What the helpers below left in dir, for the tests that run them. */
static void run_helper(const char *dir, const char *envs, const char *args)
{
	char self[600];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	CHECK(n > 0);
	self[n] = 0;
	int rc = sh("cd '%s' && env %s '%s' %s >helper.out 2>helper.err", dir,
		    envs, self, args);
	if (rc)
		FAIL("helper %s exited %d: see %s/helper.err", args, rc, dir);
}

/* A traced program that records, then execs itself (twice), each image
 * recording again: nothing of an earlier image is lost.  The process
 * writes FILE, its images after exec FILE.PID.1 and FILE.PID.2; a child
 * (fork, then exec) writes FILE.CHILD and FILE.CHILD.1. */
TEST(exec_keeps_what_came_before)
{
	const char *p = tpath("x.weft");
	char dir[512];
	snprintf(dir, sizeof dir, "%s", p);
	*strrchr(dir, '/') = 0;
	run_helper(dir, "WEFT_FILE=x.weft", "--exec-helper 0");
	int pid = 0, child = 0;
	FILE *f = fopen(tpath("helper.out"), "r");
	CHECK(f && fscanf(f, "%d %d", &pid, &child) == 2);
	fclose(f);
	CHECK_OK(sh("test ! -s '%s/helper.err'", dir));
	char names[4096], want[1024];
	list_dir(dir, names, sizeof names);
	char cmd[512];
	snprintf(cmd, sizeof cmd,
		 "printf '%%s\\n' helper.err helper.out x.weft x.weft.%d "
		 "x.weft.%d.1 x.weft.%d.1 x.weft.%d.2 | sort | tr '\\n' ' '",
		 child, child, pid, pid);
	f = popen(cmd, "r");
	want[fread(want, 1, sizeof want - 1, f)] = 0;
	pclose(f);
	CHECK_STR(names, want);
	struct {
		char name[64];
		int pid, image;
	} rings[] = {{"x.weft", pid, 0},
		     {"", pid, 1},
		     {"", pid, 2},
		     {"", child, 0},
		     {"", child, 1}};
	snprintf(rings[1].name, 64, "x.weft.%d.1", pid);
	snprintf(rings[2].name, 64, "x.weft.%d.2", pid);
	snprintf(rings[3].name, 64, "x.weft.%d", child);
	snprintf(rings[4].name, 64, "x.weft.%d.1", child);
	for (int i = 0; i < 5; i++) {
		char nm[64];
		snprintf(nm, sizeof nm, "%.40s", rings[i].name);
		struct ttrace t = tread(tpath(nm));
		CHECK_EQ(t.problems, 0);
		CHECK_EQ(t.info.pid, rings[i].pid);
		/* each image: run(100 + image), label "image N" */
		CHECK_EQ(t.n, 2);
		CHECK_U64(t.ev[0].e.id, 100 + (uint64_t)rings[i].image);
		char text[32];
		snprintf(text, sizeof text, "image %d", rings[i].image);
		CHECK_STR(t.ev[1].text, text);
		/* an image that exec'd never stopped: its writer is gone */
		CHECK_EQ(t.info.writer, rings[i].image == 2 || i == 4
						? WEFT_WRITER_STOPPED
						: WEFT_WRITER_GONE);
		free(t.ev);
	}
}

/* Started from the environment, a process makes its ring at its first
 * event: processes that record nothing (a shell, its children, a child of
 * a traced program that only exits) leave no file, and nothing of their
 * behaviour changes. */
TEST(processes_that_record_nothing_leave_no_file)
{
	const char *p = tpath("lazy.weft");
	char dir[512], names[4096];
	snprintf(dir, sizeof dir, "%s", p);
	*strrchr(dir, '/') = 0;
	const char *build = getenv("WEFT_BUILD");
	if (!build)
		FAIL("WEFT_BUILD must be set (meson test sets them)");
	/* (sanitizer builds: the runtime is not the first library of sh) */
	CHECK_OK(sh("cd '%s' && WEFT_FILE=lazy.weft WEFT_SIZE=1G "
		    "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 "
		    "LD_PRELOAD='%s/libweft.so' sh -c 'true; sh -c true; "
		    "echo hi' >sh.out 2>sh.err && test \"$(cat sh.out)\" = hi "
		    "&& test ! -s sh.err && rm sh.out sh.err",
		    dir, build));
	list_dir(dir, names, sizeof names);
	CHECK_STR(names, "");
	/* a traced program whose first child records nothing and second
	 * child records once: FILE and FILE.SECOND */
	run_helper(dir, "WEFT_FILE=lazy.weft", "--fork-helper");
	int second = 0;
	FILE *f = fopen(tpath("helper.out"), "r");
	CHECK(f && fscanf(f, "%d", &second) == 1);
	fclose(f);
	list_dir(dir, names, sizeof names);
	char want[256];
	snprintf(want, sizeof want,
		 "helper.err helper.out lazy.weft lazy.weft.%d ", second);
	CHECK_STR(names, want);
	struct ttrace t = tread(p);
	CHECK_EQ(t.n, 2);
	CHECK_STR(t.ev[1].text, "parent");
	char child[64];
	snprintf(child, sizeof child, "lazy.weft.%d", second);
	t = tread(tpath(child));
	CHECK_EQ(t.n, 1);
	CHECK_U64(t.ev[0].e.id, 2);
	CHECK_EQ(t.info.pid, second);
}

/* Under weft record, the processes of a tree that record nothing (a
 * shell and what it runs) load the recorder and the shims and appear in
 * the run's manifest, but make no ring file and map none. */
TEST(children_that_record_nothing_map_no_ring)
{
	const char *p = tpath("run");
	char dir[512], names[4096];
	snprintf(dir, sizeof dir, "%s", p);
	*strrchr(dir, '/') = 0;
	const char *build = getenv("WEFT_BUILD");
	if (!build)
		FAIL("WEFT_BUILD must be set (meson test sets them)");
	/* (a weft record that preloads nothing: libweft, then) */
	char pre[700] = "";
	if (sh("cd '%s' && '%s/tools/weft' record -o probe -- true 2>&1 | "
	       "grep -q 'preloaded: no shim'; rc=$?; rm -rf probe; exit $rc",
	       dir, build) == 0)
		snprintf(pre, sizeof pre, "env LD_PRELOAD=%s/libweft.so",
			 build);
	CHECK_OK(sh("cd '%s' && ASAN_OPTIONS=verify_asan_link_order=0:"
		    "detect_leaks=0 '%s/tools/weft' record -o run -- %s sh -c "
		    "'cat /proc/self/maps >maps1; sh -c \"cat /proc/self/maps "
		    ">maps2\"; echo hi' >sh.out 2>sh.err && test \"$(cat "
		    "sh.out)\" = hi",
		    dir, build, pre));
	list_dir(p, names, sizeof names);
	CHECK_STR(names, "manifest ");
	for (int k = 1; k <= 2; k++) {
		char m[64];
		snprintf(m, sizeof m, "maps%d", k);
		/* the recorder is there (with the shims, one library), its
		 * ring is not */
		CHECK_OK(sh("grep -Eq 'libweft(-preload)?\\.so' '%s/%s'", dir,
			    m));
		CHECK(sh("grep -q '/run/' '%s/%s'", dir, m) == 1);
	}
	/* sh, cat, sh, cat each said it started and how it ended (the
	 * cats at exit(), dash through the preloaded _exit()) */
	CHECK_OK(sh("test $(grep -c '^proc ' '%s/manifest') = 4 && "
		    "test $(grep -c '^exit .*status=0' '%s/manifest') = 4",
		    p, p));
}

/* The TSC's frequency a process started from the environment writes in
 * its header is measured from the moment it loaded to its first event
 * (no 2 ms wait there): it agrees with the frequency over the whole
 * recording (its first and last clock anchors, 300 ms apart) to 0.1 %. */
TEST(calibration_from_load_to_first_event)
{
	const char *p = tpath("cal.weft");
	char dir[512];
	snprintf(dir, sizeof dir, "%s", p);
	*strrchr(dir, '/') = 0;
	run_helper(dir, "WEFT_FILE=cal.weft", "--calibration-helper");
	int fd = open(p, O_RDONLY);
	CHECK(fd >= 0);
	struct weft__fhdr h;
	CHECK(pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h);
	close(fd);
	if (h.clock_kind != WEFT_CLOCK_TSC)
		SKIP("the trace clock here is not the TSC");
	double span = (double)(h.a1.mono_ns - h.a0.mono_ns);
	CHECK(span > 2e8);
	double f = (double)(h.a1.ticks - h.a0.ticks) * 1e9 / span;
	fprintf(stderr, "# header %" PRIu64 " Hz, over %.0f ms %.0f Hz\n",
		h.freq, span / 1e6, f);
	double r = (double)h.freq / f - 1;
	CHECK(r < 1e-3 && r > -1e-3);
}

/* The first event of a program started from the environment may come
 * from a signal handler: the ring is made there, and works. */
TEST(first_event_in_a_signal_handler)
{
	const char *p = tpath("sig1.weft");
	char dir[512];
	snprintf(dir, sizeof dir, "%s", p);
	*strrchr(dir, '/') = 0;
	run_helper(dir, "WEFT_FILE=sig1.weft", "--signal-first-helper");
	CHECK_OK(sh("test ! -s '%s/helper.err'", dir));
	struct ttrace t = tread(p);
	CHECK_EQ(t.problems, 0);
	CHECK_EQ(t.n, 3);
	CHECK_U64(t.ev[0].e.id, 7);
	CHECK_STR(t.ev[1].text, "in a handler");
	CHECK_U64(t.ev[2].e.id, 8);
}

/* Bad settings: the program runs untraced, unchanged, with one message
 * naming the variable and what it accepts; weft record refuses to run
 * (exit 2) with a setting it cannot honour.  Good ones are honoured. */
TEST(settings_parsed_strictly)
{
	const char *p = tpath("s.weft");
	char dir[512];
	snprintf(dir, sizeof dir, "%s", p);
	*strrchr(dir, '/') = 0;
	const char *bin = getenv("WEFT_BIN");
	if (!bin)
		FAIL("WEFT_BIN must be set (meson test sets it)");
	static const char *bad[][2] = {
		{"WEFT_SIZE=0", "WEFT_SIZE='0': too small"},
		{"WEFT_SIZE=garbage", "WEFT_SIZE='garbage': not valid"},
		{"WEFT_SIZE=100T", "WEFT_SIZE='100T': too large"},
		{"WEFT_SIZE=-5M", "WEFT_SIZE='-5M': not valid"},
		{"WEFT_SIZE=64Q", "WEFT_SIZE='64Q': not valid"},
		{"WEFT_SIZE=18446744073709551616", "too large"},
		{"WEFT_MODE=flight", "WEFT_MODE='flight': not valid"},
		{"WEFT_CLOCK=bogus", "WEFT_CLOCK='bogus': not valid"},
		{"WEFT_ROOT_PID=me", "WEFT_ROOT_PID='me': not valid"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char envs[256];
		snprintf(envs, sizeof envs, "WEFT_FILE=s.weft %s", bad[i][0]);
		run_helper(dir, envs, "--record-helper");
		CHECK_OK(sh("cd '%s' && test \"$(cat helper.out)\" = recorded "
			    "&& test $(wc -l <helper.err) = 1 && grep -q "
			    "\"%s\" "
			    "helper.err && grep -q 'expected .*; running "
			    "untraced' helper.err && test ! -e s.weft",
			    dir, bad[i][1]));
	}
	/* (the ring is cut at its stop to the one packet it used: its
	 * packet size, 1/256 of the size asked for from 1 KiB to 32 KiB,
	 * and its header region tell the size it was made at) */
	static const char *good[][3] = {
		{"WEFT_SIZE=64K", "37888", "1024"},
		{"WEFT_SIZE=1MiB", "188416", "4096"},
		{"WEFT_SIZE=3m WEFT_MODE=discard WEFT_CLOCK=monotonic",
		 "196608", "8192"},
		{"WEFT_SIZE= WEFT_MODE= WEFT_CLOCK=auto", "229376", "32768"},
	};
	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		char envs[256];
		snprintf(envs, sizeof envs, "WEFT_FILE=s.weft %s", good[i][0]);
		run_helper(dir, envs, "--record-helper");
		CHECK_OK(sh("cd '%s' && test ! -s helper.err", dir));
		struct ttrace t = tread(p);
		CHECK_EQ(t.n, 1);
		CHECK_EQ(t.info.file_size, strtoull(good[i][1], NULL, 10));
		CHECK_EQ(t.info.packet_size, strtoull(good[i][2], NULL, 10));
		CHECK_EQ(t.info.mode, i == 2);
		if (i == 2)
			CHECK_EQ(t.info.clock_kind, 2);
		unlink(p);
	}
	/* weft record: refused before running anything */
	static const char *opts[][2] = {
		{"--size 100T", "--size '100T': too large"},
		{"--size 0", "--size '0': too small"},
		{"--size lots", "--size 'lots': not valid"},
		{"--mode flight", "--mode 'flight': not valid"},
		{"--clock bogus", "--clock 'bogus': not valid"},
	};
	for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
		CHECK_EQ(sh("cd '%s' && '%s' record -o s.weft %s -- touch ran "
			    "2>rec.err",
			    dir, bin, opts[i][0]),
			 2);
		CHECK_OK(sh("cd '%s' && test ! -e ran && test $(wc -l "
			    "<rec.err) = 1 && grep -q -e \"%s\" rec.err",
			    dir, opts[i][1]));
	}
}

/* The settings' parser itself. */
#include "common/settings.h"
TEST(size_parser)
{
	static const struct {
		const char *s;
		int err;
		uint64_t v;
	} c[] = {
		{"40960", 0, 40960},
		{"40959", WEFT_ETOOSMALL, 0},
		{"40K", 0, 40960},
		{"39K", WEFT_ETOOSMALL, 0},
		{"64K", 0, 65536},
		{"64k", 0, 65536},
		{"64KB", 0, 65536},
		{"64KiB", 0, 65536},
		{"64kib", 0, 65536},
		{"16M", 0, 16u << 20},
		{"2G", 0, 2ull << 30},
		{"1T", 0, 1ull << 40},
		{"1025G", WEFT_ETOOBIG, 0},
		{"1099511627777", WEFT_ETOOBIG, 0},
		{"99999999999999999999999", WEFT_ETOOBIG, 0},
		{"0", WEFT_ETOOSMALL, 0},
		{"", WEFT_EINVAL, 0},
		{"M", WEFT_EINVAL, 0},
		{"-5M", WEFT_EINVAL, 0},
		{"+5M", WEFT_EINVAL, 0},
		{" 5M", WEFT_EINVAL, 0},
		{"5 M", WEFT_EINVAL, 0},
		{"5MX", WEFT_EINVAL, 0},
		{"5.5M", WEFT_EINVAL, 0},
		{"0x100000", WEFT_EINVAL, 0},
		{"12Q", WEFT_EINVAL, 0},
	};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		uint64_t v = 0;
		int err = weft__parse_size(c[i].s, &v);
		if (err != c[i].err || (!err && v != c[i].v))
			FAIL("'%s': %d %llu, want %d %llu", c[i].s, err,
			     (unsigned long long)v, c[i].err,
			     (unsigned long long)c[i].v);
	}
	unsigned f = 0;
	CHECK_OK(weft__parse_mode("discard", &f));
	CHECK_EQ(f, WEFT_DISCARD);
	CHECK_OK(weft__parse_mode("overwrite", &f));
	CHECK_EQ(f, 0);
	CHECK_EQ(weft__parse_mode("Discard", &f), WEFT_EINVAL);
	CHECK_OK(weft__parse_clock("monotonic", &f));
	CHECK_EQ(f, WEFT_CLOCK_MONOTONIC);
	CHECK_OK(weft__parse_clock("auto", &f));
	CHECK_EQ(f, 0);
	CHECK_EQ(weft__parse_clock("tsc ", &f), WEFT_EINVAL);
	/* weft_start: the same range */
	CHECK_EQ(weft_start(tpath("r.weft"), WEFT_MIN_SIZE - 1, 0),
		 WEFT_ETOOSMALL);
	CHECK_EQ(weft_start(tpath("r.weft"), (size_t)WEFT_MAX_SIZE + 1, 0),
		 WEFT_ETOOBIG);
	CHECK_OK(weft_start(tpath("r.weft"), WEFT_MIN_SIZE, 0));
	weft_run(1);
	CHECK_OK(weft_stop());
	CHECK_EQ(tread(tpath("r.weft")).n, 1);
}

/* The ring's layout, a pure function: exact figures for a few sizes, and
 * what must hold for any size. */
#include "record/record.h"
TEST(ring_layout)
{
	struct weft__layout l;
	CHECK_EQ(weft__ring_layout(WEFT_MIN_SIZE - 1, &l), WEFT_ETOOSMALL);
	CHECK_EQ(weft__ring_layout(WEFT_MAX_SIZE + 1, &l), WEFT_ETOOBIG);
	static const struct {
		uint64_t bytes;
		uint32_t psize, npk, hsize, streams;
	} known[] = {
		{0, 32768, 506, 196608, 1024}, /* the default, 16 MiB */
		{WEFT_MIN_SIZE, 1024, 4, 36864, 64},
		{64 << 10, 1024, 28, 36864, 64},
		{1 << 20, 4096, 211, 184320, 1024},
		{(uint64_t)1 << 40, 32768, 33554426, 196608, 1024},
	};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
		CHECK_OK(weft__ring_layout(known[i].bytes, &l));
		CHECK_EQ(l.psize, known[i].psize);
		CHECK_EQ(l.npk, known[i].npk);
		CHECK_EQ(l.hsize, known[i].hsize);
		CHECK_EQ(l.streams_cap, known[i].streams);
	}
	/* any size: a sweep from the smallest to the largest, with odd
	 * values on the way */
	for (uint64_t b = WEFT_MIN_SIZE; b <= WEFT_MAX_SIZE;
	     b = b * 5 / 4 + 4093) {
		CHECK_OK(weft__ring_layout(b, &l));
		CHECK(l.psize >= WEFT_MIN_PACKET && l.psize <= 32768);
		CHECK_EQ(l.psize & (l.psize - 1), 0);
		/* about 1/256 of the ring, within the bounds */
		CHECK(l.psize == WEFT_MIN_PACKET || l.psize <= b / 256);
		CHECK(l.psize == 32768 || (uint64_t)l.psize * 2 > b / 256);
		/* the header region: a page, then each table after the
		 * other, all before the first packet, which is aligned */
		CHECK_EQ(l.meta_off, 4096);
		CHECK_EQ(l.streams_off, l.meta_off + l.meta_cap);
		CHECK_EQ(l.names_off,
			 l.streams_off +
				 l.streams_cap * sizeof(struct weft__fstream));
		CHECK_EQ(l.strings_off,
			 l.names_off +
				 l.names_cap * sizeof(struct weft__fname));
		CHECK(l.strings_off + l.strings_cap <= l.hsize);
		CHECK_EQ(l.hsize % 4096, 0);
		CHECK_EQ(l.hsize % l.psize, 0);
		/* whole packets, at least four, filling all but less than one
		 * packet of what was asked */
		CHECK(l.npk >= 4);
		CHECK_U64(l.size,
			  (uint64_t)l.hsize + (uint64_t)l.npk * l.psize);
		CHECK(l.size <= b);
		CHECK(b - l.size < l.psize);
	}
}

/* In a run, a forked child's manifest line names the process that forked
 * it -- the one that was there at fork(), not the one it has when its line
 * is written: here its parent exits first (the child writes its line only
 * once it has been reparented to the subreaper), as a daemon's does. */
TEST(fork_line_names_the_parent_that_forked_even_after_it_exited)
{
	const char *dir = tpath("frun");
	CHECK(mkdir(dir, 0700) == 0 || errno == EEXIST);
	char man[4096];
	snprintf(man, sizeof man, "%s/manifest", dir);
	unlink(man);
	pid_t g = fork();
	CHECK(g >= 0);
	if (g == 0) {
		/* the subreaper, as weft record is */
		if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
			_exit(10);
		pid_t p = fork();
		if (p < 0)
			_exit(11);
		if (p == 0) {
			weft__run_init(dir, getpid(), 0, NULL);
			weft__run_prepare();
			pid_t was = getpid();
			/* (no fork handlers: the child writes its line
			 * below, once this process has gone) */
			long c = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
			if (c < 0)
				_exit(12);
			if (c == 0) {
				for (int i = 0;
				     i < 5000 &&
				     (pid_t)syscall(SYS_getppid) == was;
				     i++)
					usleep(1000);
				if ((pid_t)syscall(SYS_getppid) == was)
					_exit(13);
				weft__run_child();
				_exit(0);
			}
			_exit(0);
		}
		int st, bad = 0;
		while (wait(&st) > 0)
			bad |= !WIFEXITED(st) || WEXITSTATUS(st);
		_exit(bad ? 14 : 0);
	}
	int st;
	CHECK(waitpid(g, &st, 0) == g);
	CHECK(WIFEXITED(st));
	CHECK_EQ(WEXITSTATUS(st), 0);
	FILE *f = fopen(man, "r");
	CHECK(f != NULL);
	char line[4096];
	int proc = 0, ppid = -1, procs = 0, forks = 0;
	while (fgets(line, sizeof line, f)) {
		if (sscanf(line, "proc pid=%d ", &proc) == 1)
			procs++;
		if (sscanf(line, "fork pid=%*d ppid=%d ", &ppid) == 1)
			forks++;
	}
	fclose(f);
	CHECK_EQ(procs, 1);
	CHECK_EQ(forks, 1);
	CHECK(proc > 0 && proc != g);
	CHECK_EQ(ppid, proc);
}

/* Helpers run as programs by the tests above (test-record --NAME ...). */
static int exec_helper(int image, int child)
{
	weft_run(100 + (uint64_t)image);
	char text[32];
	snprintf(text, sizeof text, "image %d", image);
	weft_label(100 + (uint64_t)image, text);
	char next[16];
	snprintf(next, sizeof next, "%d", image + 1);
	if (image == 0) {
		/* a child that records, then execs into image 1 */
		pid_t pid = fork();
		if (pid == 0) {
			weft_run(100);
			weft_label(100, "image 0");
			execl("/proc/self/exe", "test-record", "--exec-helper",
			      "1", "child", (char *)NULL);
			_exit(127);
		}
		int st;
		waitpid(pid, &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
		printf("%d %d\n", (int)getpid(), (int)pid);
		fflush(stdout);
	}
	if (image < 2 && !child)
		execl("/proc/self/exe", "test-record", "--exec-helper", next,
		      (char *)NULL);
	return 0;
}

static int fork_helper(void)
{
	weft_run(1);
	weft_label(1, "parent");
	pid_t a = fork();
	if (a == 0)
		_exit(0); /* records nothing */
	waitpid(a, NULL, 0);
	pid_t b = fork();
	if (b == 0) {
		weft_run(2);
		_exit(0);
	}
	waitpid(b, NULL, 0);
	printf("%d\n", (int)b);
	return 0;
}

static void first_in_handler(int sig)
{
	(void)sig;
	weft_run(7);
	weft_label(7, "in a handler");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--signal-first-helper")) {
		signal(SIGUSR1, first_in_handler);
		raise(SIGUSR1);
		weft_run(8);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--exec-helper"))
		return exec_helper(atoi(argv[2]), argc > 3);
	if (argc > 1 && !strcmp(argv[1], "--fork-helper"))
		return fork_helper();
	if (argc > 1 && !strcmp(argv[1], "--calibration-helper")) {
		usleep(20000);
		weft_create(1, "x");
		usleep(300000);
		weft_resolve(1);
		return 0; /* (stopped at exit: the last anchor) */
	}
	if (argc > 1 && !strcmp(argv[1], "--record-helper")) {
		weft_run(1);
		puts("recorded");
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--idle-helper")) {
		puts("recorded nothing");
		return 0;
	}
	static const struct test_case tc[] = {
		T(roundtrip_every_event),
		T(stopped_records_nothing),
		T(create_label_never_loses_the_label),
		T(live_reader_learns_new_names),
		T(follow_reads_every_event_of_a_busy_writer),
		T(bad_arguments),
		T(file_mode_0600),
		T(threads_no_loss),
		T(overwrite_keeps_newest),
		T(discard_counts_exactly),
		T(discard_marks_every_loss_at_its_place),
		T(long_callback_names_counted),
		T(long_label_truncated),
		T(hostile_text_roundtrip),
		T(names_interned_once),
		T(signal_reentrancy),
		T(fork_child_stops),
		T(sigkill_leaves_readable_trace),
		T(concurrent_copies_never_misread),
		T(fault_injection),
		T(never_replace_live_ring),
		T(bursts_share_one_time),
		T(long_gaps_keep_their_times),
		T(manual_clock),
		T(readers_never_record),
		T(never_replace_non_regular_files),
		T(replaces_only_rings),
		T(never_follows_another_users_link),
		T(clean_stop_gives_back_unused_slots),
		T(stop_mid_event_opens_no_packet),
		T(live_reader_sees_a_clean_stop),
		T(compact_a_killed_writers_ring),
		T(long_names_cut_at_a_character),
		T(start_writes_only_the_header),
		T(no_predictable_temporary_name),
		T(kill_during_startup_leaves_nothing),
		T(sigkill_loop_four_threads),
		T(exec_keeps_what_came_before),
		T(processes_that_record_nothing_leave_no_file),
		T(children_that_record_nothing_map_no_ring),
		T(calibration_from_load_to_first_event),
		T(settings_parsed_strictly),
		T(size_parser),
		T(first_event_in_a_signal_handler),
		T(ring_layout),
		T(fork_line_names_the_parent_that_forked_even_after_it_exited),
	};
	return test_run_(tc, (int)(sizeof tc / sizeof *tc), argc, argv);
}
