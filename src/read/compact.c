/* SPDX-License-Identifier: MIT */
/*
 * compact.c - weft_compact: a ring whose writer did not stop cleanly
 * gives back the blocks of the packet slots it never used (a clean stop
 * does it itself: src/record/ring.c, give_back()).  docs/format.md,
 * "Giving back what was not used".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/* The new file beside `path`: ".compact.NAME.XXXXXX" in its directory
 * (a dot first: readers of a run directory skip it, and `weft record`
 * removes one a kill left behind, since it begins with a ring's magic
 * once its first bytes are written).  Returns its descriptor or -errno. */
static int make_tmp(const char *path, char *tmp, size_t cap)
{
	const char *slash = strrchr(path, '/');
	int dl = slash ? (int)(slash - path) + 1 : 0;
	int n = snprintf(tmp, cap, "%.*s.compact.%s.XXXXXX", dl, path,
			 slash ? slash + 1 : path);
	if (n < 0 || (size_t)n >= cap)
		return -ENAMETOOLONG;
	int fd = mkostemp(tmp, O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* Copies the header region (its geometry patched) and the first `used`
 * slots of the ring `src` into `fd`. */
static int copy_ring(const struct rsrc *src, const struct rhdr *rh,
		     uint32_t used, int fd)
{
	uint64_t hs = rh->packets_off, ps = rh->h.packet_size;
	uint64_t total = hs + used * ps;
	size_t cap = 1 << 20;
	uint8_t *buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	int err = 0;
	for (uint64_t off = 0; off < total && !err;) {
		size_t n = total - off < cap ? (size_t)(total - off) : cap;
		err = weft__src_read(src, off, buf, n);
		if (!err && off == 0) {
			/* (the file header is in the first chunk:
			 * weft__hdr_check saw header_size >= its size) */
			struct weft__fhdr h;
			memcpy(&h, buf, sizeof h);
			h.npackets = used;
			h.file_size = total;
			memcpy(buf, &h, sizeof h);
		}
		if (!err)
			err = weft__write_all(fd, buf, n);
		off += n;
	}
	free(buf);
	return err;
}

int weft_compact(const char *path, struct weft_compact_result *res,
		 struct weft_diag *d)
{
	struct weft_compact_result r0;
	if (!res)
		res = &r0;
	memset(res, 0, sizeof *res);
	struct stat ls, fs;
	if (lstat(path, &ls) < 0)
		return weft__diag(d, -errno, 0, "%s", strerror(errno));
	if (S_ISLNK(ls.st_mode))
		return weft__diag(d, WEFT_ELINK, 0,
				  "a symbolic link: weft compact never follows "
				  "one (name the ring itself)");
	if (!S_ISREG(ls.st_mode))
		return weft__diag(d, WEFT_ENOTREG, 0,
				  "not a regular file (never replaced)");
	struct rsrc src = {.fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
						    O_NOFOLLOW | O_NONBLOCK)};
	if (src.fd < 0)
		return weft__diag(d, -errno, 0, "%s", strerror(errno));
	char tmp[4200] = "";
	int tfd = -1, err;
	if (fstat(src.fd, &fs) < 0 || fs.st_dev != ls.st_dev ||
	    fs.st_ino != ls.st_ino) {
		err = weft__diag(d, -EAGAIN, 0, "replaced while looked at");
		goto out;
	}
	src.len = (uint64_t)fs.st_size;
	struct weft__fhdr fh;
	memset(&fh, 0, sizeof fh);
	size_t n = src.len < sizeof fh ? (size_t)src.len : sizeof fh;
	if ((err = weft__src_read(&src, 0, &fh, n)))
		goto out;
	if (n < 8 || memcmp(fh.magic, WEFT_FILE_MAGIC, 8)) {
		err = weft__diag(d, WEFT_ENOTRING, 0,
				 "not a weft ring (never replaced)");
		goto out;
	}
	struct rhdr rh;
	if ((err = weft__hdr_check((const uint8_t *)&fh, src.len, &rh, d)))
		goto out;
	/* Held while we copy: a live writer holds it (refused), and a
	 * writer starting at `path` meanwhile finds it held, and never
	 * replaces it under us. */
	if (flock(src.fd, LOCK_EX | LOCK_NB) < 0) {
		err = errno == EWOULDBLOCK
			      ? weft__diag(d, -EBUSY, 0,
					   "a live writer holds it (compact "
					   "it once it is done)")
			      : weft__diag(d, -errno, 0, "%s", strerror(errno));
		goto out;
	}
	/* (read again: the writer may have stopped since) */
	if ((err = weft__src_read(&src, 0, &fh, sizeof fh)) ||
	    (err = weft__hdr_check((const uint8_t *)&fh, src.len, &rh, d)))
		goto out;
	uint32_t used = weft__slots_to_read(&src, &rh, 0);
	if (!used)
		used = 1; /* (a ring has a packet slot: readers insist) */
	res->size_before = src.len;
	res->slots_before = rh.h.npackets;
	res->size_after = src.len;
	res->slots_after = rh.h.npackets;
	uint64_t size = rh.packets_off + (uint64_t)used * rh.h.packet_size;
	if (size >= src.len) {
		err = 0; /* every slot in use: nothing to give back */
		goto out;
	}
	tfd = make_tmp(path, tmp, sizeof tmp);
	if (tfd < 0) {
		err = weft__diag(d, tfd, 0, "cannot make a file beside it: %s",
				 strerror(-tfd));
		tmp[0] = 0;
		goto out;
	}
	if ((err = copy_ring(&src, &rh, used, tfd))) {
		err = weft__diag(d, err, 0, "cannot write '%s': %s", tmp,
				 weft_strerror(err));
		goto out;
	}
	/* Its mode and owner (as root, another user's ring stays theirs). */
	if (fchmod(tfd, fs.st_mode & 07777) < 0 ||
	    (fchown(tfd, fs.st_uid, fs.st_gid) < 0 && errno != EPERM) ||
	    fdatasync(tfd) < 0) {
		err = weft__diag(d, -errno, 0, "cannot write '%s': %s", tmp,
				 strerror(errno));
		goto out;
	}
	/* Still the file we copied? */
	if (lstat(path, &ls) < 0 || ls.st_dev != fs.st_dev ||
	    ls.st_ino != fs.st_ino) {
		err = weft__diag(d, -EAGAIN, 0, "replaced while compacted");
		goto out;
	}
	if (rename(tmp, path) < 0) {
		err = weft__diag(d, -errno, 0, "cannot replace it: %s",
				 strerror(errno));
		goto out;
	}
	tmp[0] = 0;
	res->size_after = size;
	res->slots_after = used;
	err = 0;
out:
	if (tfd >= 0)
		close(tfd);
	if (tmp[0])
		unlink(tmp);
	close(src.fd);
	return err;
}
