/* SPDX-License-Identifier: MIT */
/* util.h - helpers shared by weft's C tests: scratch files and reading a
 * trace back into an array. */
#ifndef WEFT_TEST_UTIL_H
#define WEFT_TEST_UTIL_H

#include <time.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "weft/read.h"

/* A fresh path in a per-case scratch directory. */
static inline const char *tpath(const char *name)
{
	static char dir[256];
	static char buf[8][512];
	static int k;
	if (!dir[0]) {
		const char *t = getenv("TMPDIR");
		snprintf(dir, sizeof dir, "%s/weft-test-%d", t ? t : "/tmp",
			 (int)getpid());
		mkdir(dir, 0700);
	}
	char *b = buf[k++ & 7];
	snprintf(b, 512, "%s/%s", dir, name);
	return b;
}

struct tev {
	struct weft_event e;
	char text[512];
	char name[256];
	char name2[256];
};

struct ttrace {
	struct tev *ev;
	size_t n;
	struct weft_trace_info info;
	unsigned problems;
};

/* Reads every event (including losses) of `path`; fails the case on an
 * open error. */
static inline struct ttrace tread(const char *path)
{
	struct ttrace t = {0};
	struct weft_reader *r;
	struct weft_diag d = {0};
	int err = weft_reader_open(&r, path, 0, &d);
	if (err)
		FAIL("cannot open %s: %d %s @%llu", path, err, d.msg,
		     (unsigned long long)d.offset);
	size_t cap = 0;
	struct weft_event e;
	while (weft_reader_next(r, &e) == 0) {
		if (t.n == cap) {
			cap = cap ? cap * 2 : 1024;
			t.ev = realloc(t.ev, cap * sizeof *t.ev);
		}
		struct tev *v = &t.ev[t.n++];
		v->e = e;
		v->text[0] = 0;
		if (e.text) {
			size_t l = e.text_len < 511 ? e.text_len : 511;
			memcpy(v->text, e.text, l);
			v->text[l] = 0;
		}
		snprintf(v->name, sizeof v->name, "%s",
			 weft_reader_name(r, e.name));
		snprintf(v->name2, sizeof v->name2, "%s",
			 weft_reader_name(r, e.name2));
		v->e.text = NULL;
	}
	t.info = *weft_reader_info(r);
	weft_reader_problems(r, &t.problems);
	t.info.streams = NULL;
	t.info.names = NULL;
	weft_reader_close(r);
	return t;
}

static inline size_t tcount(const struct ttrace *t, unsigned type)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += t->ev[i].e.type == type;
	return n;
}

/* Busy for `us` microseconds: events far enough apart that their times
 * (and places on screen) do not depend on how fast the machine is. */
static inline void spin_us(int us)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) <
	       us * 1000L);
}

#endif
