/* SPDX-License-Identifier: MIT */
/*
 * bench-record.c - weft's recording and reading speed, and its physical
 * floor, each printed as one figure.  bench/run calls it and takes medians.
 *
 *   bench-record floor N        rdtsc + a 16-byte store into a pre-faulted
 *                               ring: the cheapest timestamped event
 *   bench-record record N       weft_resolve(id): one 12-byte event, into a
 *                               64 MiB ring whose pages are in memory
 *   bench-record create N       weft_create(id, "kind"): 14 bytes, interned
 *   bench-record first-pass N   weft_resolve(id) into a new ring: its pages
 *                               come into memory as packets first use them
 *   bench-record start N        weft_start + weft_stop of an N MiB ring: ms
 *   bench-record disabled N     compiled in, tracing stopped
 *   bench-record loop N         the same loop with no call at all
 *   bench-record threads T N    T threads x N events: events/s
 *   bench-record mix N FILE     the realistic mix below into FILE: bytes/event
 *   bench-record wide N FILE    a server with N connections open at once,
 *                               each making requests (the viewer's case of
 *                               many rows)
 *   bench-record read FILE      iterate every event of FILE: events/s
 *
 * Times are CLOCK_MONOTONIC around the loop only; a warm-up precedes it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <weft/read.h>
#include <weft/weft.h>

#include "../src/common/format.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *scratch(void)
{
	const char *s = getenv("WEFT_BENCH_FILE");
	return s ? s : "/tmp/weft-bench.weft";
}

static void start(size_t size, unsigned flags)
{
	int err = weft_start(scratch(), size, flags);
	if (err) {
		fprintf(stderr, "weft_start: %s\n", weft_strerror(err));
		exit(1);
	}
}

/* The loops are noinline so that each is measured as compiled alone, and
 * take their count from a volatile so nothing is hoisted out. */
static volatile uint64_t vn;

__attribute__((noinline)) static void loop_resolve(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		weft_resolve(i);
}

__attribute__((noinline)) static void loop_create(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		weft_create(i, "kind");
}

static volatile uint64_t sink;

/* Enough 12-byte events to go round a 64 MiB ring once. */
#define WARM_EVENTS ((64u << 20) / 12 + 100000)

__attribute__((noinline)) static void loop_empty(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		sink = i; /* the store the disabled loop also keeps */
}

__attribute__((noinline)) static void loop_disabled(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		weft_resolve(i);
		sink = i;
	}
}

#if defined(__x86_64__)
#include <x86intrin.h>
__attribute__((noinline, optimize("no-tree-vectorize"))) static void
loop_floor(uint64_t *ring, uint64_t mask, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t *p = ring + 2 * (i & mask);
		p[0] = __rdtsc();
		p[1] = i;
	}
}
#endif

/* A libuv-style request cycle: the loop polls, a read callback runs and
 * queues a write, the write completes and its callback runs, the pending
 * counter moves, and one request in 16 gets a label. */
__attribute__((noinline)) static uint64_t loop_mix(uint64_t n)
{
	uint64_t events = 0;
	for (uint64_t i = 0; events < n; i++) {
		uint64_t req = 1000 + 2 * i, cb = req + 1;
		weft_idle("poll");
		weft_resume();
		weft_run(cb);
		weft_create(req, "uv_write_t");
		weft_counter_add("pending", 1);
		weft_run(1);
		weft_resolve(req);
		weft_run(req);
		weft_counter_add("pending", -1);
		weft_run(1);
		events += 10;
		if (i % 16 == 0) {
			weft_label(req, "write 512 B fd 12");
			events++;
		}
	}
	return events;
}

/* N connections open together, 8 requests each, read by the loop. */
__attribute__((noinline)) static uint64_t loop_wide(uint64_t n)
{
	uint64_t events = 0;
	weft_run(1);
	for (uint64_t i = 0; i < n; i++) {
		weft_create(100 + i, "connection");
		weft_label(100 + i, "peer 10.0.0.1:4242");
		events += 2;
	}
	for (uint64_t k = 0; k < 8; k++)
		for (uint64_t i = 0; i < n; i++) {
			uint64_t req = (k + 1) * 10000000 + i;
			weft_run(100 + i);
			weft_create(req, "uv_write_t");
			weft_run(1);
			weft_resolve(req);
			weft_read(req);
			events += 4;
		}
	for (uint64_t i = 0; i < n; i++) {
		weft_resolve(100 + i);
		events++;
	}
	weft_run(0);
	return events + 1;
}

struct targ {
	uint64_t n;
	double t;
};

static void *thread_main(void *arg)
{
	struct targ *a = arg;
	loop_resolve(1000);
	double t0 = now();
	loop_resolve(a->n);
	a->t = now() - t0;
	return NULL;
}

static int cmd_read(const char *path)
{
	struct weft_reader *r;
	double t0 = now();
	int err = weft_reader_open(&r, path, 0, NULL);
	if (err) {
		fprintf(stderr, "%s: %s\n", path, weft_strerror(err));
		return 1;
	}
	struct weft_event ev;
	uint64_t n = 0, x = 0;
	while (weft_reader_next(r, &ev) == 0) {
		x += ev.id;
		n++;
	}
	double t = now() - t0;
	weft_reader_close(r);
	sink = x;
	printf("%.0f events/s %llu events %.4f s\n", (double)n / t,
	       (unsigned long long)n, t);
	return 0;
}

/* Bytes of packet content (headers included) per event, from the file. */
static int cmd_bytes(const char *path, uint64_t events)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 1;
	struct weft__fhdr h;
	if (fread(&h, sizeof h, 1, f) != 1)
		return 1;
	uint8_t *pk = malloc(h.packet_size);
	uint64_t bytes = 0;
	for (uint32_t i = 0; i < h.npackets; i++) {
		fseek(f, (long)(h.header_size + (uint64_t)i * h.packet_size),
		      SEEK_SET);
		if (fread(pk, h.packet_size, 1, f) != 1)
			break;
		if (weft__ld64(pk + WEFT_PK_GEN))
			bytes += weft__ld64(pk + WEFT_PK_CONTENT) / 8;
	}
	fclose(f);
	free(pk);
	printf("%.2f bytes/event %llu bytes %llu events\n",
	       (double)bytes / (double)events, (unsigned long long)bytes,
	       (unsigned long long)events);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench-record MODE N|FILE ...\n");
		return 2;
	}
	const char *mode = argv[1];
	uint64_t n = strtoull(argv[2], NULL, 10);
	vn = n;
	double t0, t;

	if (!strcmp(mode, "read"))
		return cmd_read(argv[2]);
	if (!strcmp(mode, "floor")) {
#if defined(__x86_64__)
		size_t bytes = 64u << 20;
		uint64_t *ring =
			mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		memset(ring, 1, bytes);
		loop_floor(ring, bytes / 16 - 1, 1000);
		t0 = now();
		loop_floor(ring, bytes / 16 - 1, vn);
		t = now() - t0;
		printf("%.3f ns/event\n", t * 1e9 / (double)n);
		return 0;
#else
		fprintf(stderr, "floor: x86-64 only\n");
		return 1;
#endif
	}
	if (!strcmp(mode, "loop") || !strcmp(mode, "disabled")) {
		void (*fn)(uint64_t) = !strcmp(mode, "loop") ? loop_empty
							     : loop_disabled;
		fn(1000);
		t0 = now();
		fn(vn);
		t = now() - t0;
		printf("%.3f ns/event\n", t * 1e9 / (double)n);
		return 0;
	}
	if (!strcmp(mode, "record") || !strcmp(mode, "create")) {
		/* The hot path as it runs: into a 64 MiB ring (the floor's
		 * size) that the warm-up went round once, so its pages are
		 * in memory, as they are after a ring's first pass. */
		start(64u << 20, WEFT_OVERWRITE);
		void (*fn)(uint64_t) = !strcmp(mode, "record") ? loop_resolve
							       : loop_create;
		fn(WARM_EVENTS);
		t0 = now();
		fn(vn);
		t = now() - t0;
		weft_stop();
		printf("%.3f ns/event\n", t * 1e9 / (double)n);
		return 0;
	}
	if (!strcmp(mode, "first-pass")) {
		/* The first pass through a new ring: each packet's pages
		 * come into memory as it is first used (discard mode, a ring
		 * large enough that nothing is dropped). */
		start((size_t)n * 16 + (64u << 20), WEFT_DISCARD);
		loop_resolve(1000);
		t0 = now();
		loop_resolve(vn);
		t = now() - t0;
		weft_stop();
		printf("%.3f ns/event\n", t * 1e9 / (double)n);
		return 0;
	}
	if (!strcmp(mode, "start")) {
		/* weft_start + weft_stop of a ring of N MiB: start-up. */
		t0 = now();
		start((size_t)n << 20, 0);
		weft_resolve(1);
		weft_stop();
		t = now() - t0;
		printf("%.3f ms\n", t * 1e3);
		return 0;
	}
	if (!strcmp(mode, "threads") && argc > 3) {
		int nt = atoi(argv[2]);
		n = strtoull(argv[3], NULL, 10);
		/* As `record`: a 64 MiB ring per thread, gone round once. */
		start((size_t)nt * (64u << 20), WEFT_OVERWRITE);
		loop_resolve(WARM_EVENTS * (uint64_t)nt);
		pthread_t th[64];
		struct targ a[64];
		for (int i = 0; i < nt && i < 64; i++) {
			a[i].n = n;
			pthread_create(&th[i], NULL, thread_main, &a[i]);
		}
		double worst = 0;
		for (int i = 0; i < nt && i < 64; i++) {
			pthread_join(th[i], NULL);
			if (a[i].t > worst)
				worst = a[i].t;
		}
		weft_stop();
		printf("%.0f events/s\n", (double)n * nt / worst);
		return 0;
	}
	if (!strcmp(mode, "mix") && argc > 3) {
		setenv("WEFT_BENCH_FILE", argv[3], 1);
		start((size_t)n * 16 + (8u << 20), WEFT_DISCARD);
		uint64_t events = loop_mix(n);
		weft_stop();
		return cmd_bytes(argv[3], events);
	}
	if (!strcmp(mode, "wide") && argc > 3) {
		setenv("WEFT_BENCH_FILE", argv[3], 1);
		start((size_t)n * 600 + (8u << 20), WEFT_DISCARD);
		uint64_t events = loop_wide(n);
		weft_stop();
		return cmd_bytes(argv[3], events);
	}
	fprintf(stderr, "bench-record: unknown mode '%s'\n", mode);
	return 2;
}
