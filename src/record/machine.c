/* SPDX-License-Identifier: MIT */
/*
 * machine.c - what a ring says about the machine it was written on, for
 * merging traces of several machines (docs/format.md, "Clocks"): its host
 * name and boot id, the offset of the writer's time namespace, and
 * readings of the clocks (trace clock, CLOCK_MONOTONIC, CLOCK_REALTIME)
 * at the start, about every 10 s while events come, and at the stop.
 *
 * Only open/read/close here (a ring from the environment is made at the
 * first event, which may be in a signal handler).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record.h"
#include "common/sysfacts.h"

#define g weft__g
#define TUPLE_EVERY_NS INT64_C(10000000000)

static int64_t now_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* "9a1c...-..." (a UUID's text) into 16 bytes; all 0 when unreadable. */
static void boot_id(uint8_t out[16])
{
	char b[64];
	memset(out, 0, 16);
	if (weft__read_small("/proc/sys/kernel/random/boot_id", b, sizeof b) <
	    32)
		return;
	int k = 0;
	for (const char *p = b; *p && k < 32; p++) {
		int v = hexval(*p);
		if (v < 0)
			continue;
		out[k / 2] |= (uint8_t)(k % 2 ? v : v << 4);
		k++;
	}
	if (k < 32)
		memset(out, 0, 16);
}

/* One reading of the clocks, each pair as the tightest of a few
 * sandwiches. */
static void take(struct weft__ctuple *c)
{
	int64_t best = INT64_MAX;
	for (int i = 0; i < 5; i++) {
		int64_t m0 = now_ns(CLOCK_MONOTONIC);
		uint64_t t = weft__clock_now();
		int64_t m1 = now_ns(CLOCK_MONOTONIC);
		if (m1 - m0 < best) {
			best = m1 - m0;
			c->ticks = t;
			c->mono_ns = m0 + (m1 - m0) / 2;
		}
	}
	c->tick_err_ns = (uint32_t)((best + 1) / 2);
	/* CLOCK_REALTIME, paired with CLOCK_MONOTONIC: the reading at
	 * c->mono_ns is this one moved by the monotonic time between. */
	best = INT64_MAX;
	int64_t real = 0, mono = 0;
	for (int i = 0; i < 5; i++) {
		int64_t m0 = now_ns(CLOCK_MONOTONIC);
		int64_t r = now_ns(CLOCK_REALTIME);
		int64_t m1 = now_ns(CLOCK_MONOTONIC);
		if (m1 - m0 < best) {
			best = m1 - m0;
			real = r;
			mono = m0 + (m1 - m0) / 2;
		}
	}
	c->real_ns = real - (mono - c->mono_ns);
	c->real_err_ns = (uint32_t)((best + 1) / 2);
}

static struct weft__fmach *mach(void)
{
	return (struct weft__fmach *)(void *)(g.base + WEFT_MACH_OFF);
}

void weft__machine_init(struct weft__fhdr *h)
{
	struct weft__fmach *m =
		(struct weft__fmach *)(void *)((uint8_t *)h + WEFT_MACH_OFF);
	h->mach_off = WEFT_MACH_OFF;
	h->mach_size = sizeof *m;
	gethostname(m->host, sizeof m->host - 1);
	m->host[sizeof m->host - 1] = 0;
	boot_id(m->boot_id);
	m->timens_mono_ns = weft__timens_read();
	m->tuples_cap = WEFT_CLOCK_TUPLES;
	take(&m->t[0]);
	m->t[0].seq = 2;
	m->ntuples = 1;
}

void weft__clock_tuple(int force)
{
	struct weft__fmach *m = mach();
	uint32_t n = __atomic_load_n(&m->ntuples, __ATOMIC_RELAXED);
	if (!force && n) {
		/* about every 10 s: cheap to ask at every new packet */
		const struct weft__ctuple *last =
			&m->t[n == 1 ? 0
				     : 1 + (n - 2) % (WEFT_CLOCK_TUPLES - 1)];
		uint64_t since =
			weft__clock_now() -
			__atomic_load_n(&last->ticks, __ATOMIC_RELAXED);
		if ((double)since * 1e9 <
		    (double)TUPLE_EVERY_NS * (double)g.hdr->freq)
			return;
	}
	/* A try-lock: another thread taking one now is as good. */
	uint32_t free_ = 0;
	if (!__atomic_compare_exchange_n(&m->lock, &free_, 1, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	n = __atomic_load_n(&m->ntuples, __ATOMIC_RELAXED);
	struct weft__ctuple *c = &m->t[1 + (n - 1) % (WEFT_CLOCK_TUPLES - 1)];
	struct weft__ctuple v;
	take(&v);
	uint64_t s = c->seq;
	__atomic_store_n(&c->seq, s + 1, __ATOMIC_RELAXED);
	/* Pairs with the reader's acquire fence before its second load of
	 * seq: the odd value is visible before the data changes. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&c->ticks, v.ticks, __ATOMIC_RELAXED);
	c->mono_ns = v.mono_ns;
	c->real_ns = v.real_ns;
	c->tick_err_ns = v.tick_err_ns;
	c->real_err_ns = v.real_err_ns;
	/* Pairs with the reader's acquire load of seq. */
	__atomic_store_n(&c->seq, s + 2, __ATOMIC_RELEASE);
	/* Pairs with the reader's acquire load of ntuples. */
	__atomic_store_n(&m->ntuples, n + 1, __ATOMIC_RELEASE);
	/* Pairs with the acquire of the CAS above. */
	__atomic_store_n(&m->lock, 0, __ATOMIC_RELEASE);
}
