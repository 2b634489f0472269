/* SPDX-License-Identifier: MIT */
/*
 * sys-posix.c - sys.h on a POSIX system: files read with pread, the
 * ring's lock (flock).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "weft/read.h"

#include "sys.h"

int weft__file_read(int fd, uint64_t off, void *dst, size_t n)
{
	uint8_t *d = dst;
	while (n) {
		ssize_t k = pread(fd, d, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return WEFT_ETRUNC;
		d += k;
		off += (uint64_t)k;
		n -= (size_t)k;
	}
	return 0;
}

long long weft__file_size(int fd)
{
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) < 0)
		return -1;
	return (long long)sb.st_size;
}

int weft__writer_holds(int fd)
{
	if (fd < 0)
		return 0;
	if (flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK)
		return 1;
	flock(fd, LOCK_UN);
	return 0;
}

int weft__file_begins(const char *path, const void *magic, size_t n,
		      int nofollow)
{
	struct stat sb;
	char b[16];
	if (n > sizeof b ||
	    (nofollow ? lstat(path, &sb) : stat(path, &sb)) < 0 ||
	    !S_ISREG(sb.st_mode))
		return 0;
	/* (O_NONBLOCK: replaced by a FIFO since, it is not waited on) */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
				    (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0)
		return 0;
	int yes = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
		  read(fd, b, n) == (ssize_t)n && !memcmp(b, magic, n);
	close(fd);
	return yes;
}
