/* SPDX-License-Identifier: MIT */
/*
 * sysfacts.c - small facts from /proc (sysfacts.h).
 *
 * Only open/read/close and clock_gettime: called at start-up of every
 * process of a traced tree, and where a ring is made (maybe in a signal
 * handler).  read and close are the system calls themselves: in the
 * preloaded library, read() and close() are the shims' wrappers, whose
 * first call looks up the real ones.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sysfacts.h"

static int64_t now_ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* An optionally negative decimal at *p, moving *p past it; 0 if none. */
static int num(const char **p, int64_t *v)
{
	const char *s = *p;
	int neg = *s == '-';
	s += neg;
	if (*s < '0' || *s > '9')
		return 0;
	int64_t x = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > (INT64_MAX - (*s - '0')) / 10)
			return 0;
		x = x * 10 + (*s - '0');
	}
	*v = neg ? -x : x;
	*p = s;
	return 1;
}

int weft__read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = syscall(SYS_read, fd, buf, cap - 1);
	syscall(SYS_close, fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return (int)n;
}

int64_t weft__timens_read(void)
{
	/* "monotonic SECS NSECS" per clock, since Linux 5.6; none: 0 */
	char b[256];
	if (weft__read_small("/proc/self/timens_offsets", b, sizeof b) <= 0)
		return 0;
	const char *p = strstr(b, "monotonic");
	if (!p)
		return 0;
	p += 9;
	int64_t v[2] = {0, 0};
	for (int i = 0; i < 2; i++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!num(&p, &v[i]))
			return 0;
	}
	/* (the file says how far the namespace's clock is ahead of the
	 * machine's; the offset wanted is the machine's minus ours) */
	return -(v[0] * 1000000000 + v[1]);
}

/* "-123" into b (at least 21 bytes); its length. */
static size_t put(char *b, int64_t v)
{
	char d[24];
	int k = sizeof d;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do {
		d[--k] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		d[--k] = '-';
	memcpy(b, d + k, sizeof d - (size_t)k);
	return sizeof d - (size_t)k;
}

size_t weft__timens_env(char *out, size_t cap)
{
	if (cap < 3 * 21 + 3)
		return 0;
	int64_t off = weft__timens_read();
	int64_t real = now_ns(CLOCK_REALTIME), mono = now_ns(CLOCK_MONOTONIC);
	size_t n = put(out, real - mono);
	out[n++] = ':';
	n += put(out + n, off);
	out[n++] = ':';
	n += put(out + n, real);
	out[n] = 0;
	return n;
}

int64_t weft__timens_inherit(const char *v)
{
	int64_t boot, off, then;
	const char *p = v;
	if (p && num(&p, &boot) && *p++ == ':' && num(&p, &off) &&
	    *p++ == ':' && num(&p, &then) && !*p) {
		int64_t real = now_ns(CLOCK_REALTIME);
		int64_t d = (real - now_ns(CLOCK_MONOTONIC)) - boot;
		int64_t since = real - then;
		int64_t tol = 1000000 + (since > 0 ? since / 2000 : 0);
		if (d <= tol && d >= -tol)
			return off;
	}
	return weft__timens_read();
}
