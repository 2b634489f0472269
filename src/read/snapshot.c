/* SPDX-License-Identifier: MIT */
/*
 * snapshot.c - a consistent copy of a ring that may be live, and finding
 * the ring a running process has mapped.
 *
 * The copy takes the packets first, each through the same validated copy
 * the reader uses (a packet rewritten while it was copied is zeroed, so a
 * reader of the copy sees a gap and counts it), then the header region:
 * streams and names are append-only and published before any packet
 * refers to them, so a header copied last knows every stream and name the
 * copied packets use.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int weft_snapshot(const char *path, int out_fd, uint64_t *torn,
		  struct weft_diag *d)
{
	int err = 0;
	uint64_t ntorn = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if (d) {
			d->offset = 0;
			snprintf(d->msg, sizeof d->msg, "%s", strerror(errno));
		}
		return err;
	}
	struct stat sb;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size <= 0) {
		err = fstat(fd, &sb) < 0 ? -errno : WEFT_ENOTTRACE;
		if (d && err == WEFT_ENOTTRACE)
			snprintf(d->msg, sizeof d->msg,
				 "not a regular, non-empty file");
		close(fd);
		return err;
	}
	size_t len = (size_t)sb.st_size;
	uint8_t *base = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (base == MAP_FAILED)
		return -errno;
	struct rhdr rh;
	uint8_t *out = NULL;
	if ((err = weft__hdr_check(base, len, &rh, d)))
		goto done;
	out = malloc(rh.h.file_size);
	if (!out) {
		err = -ENOMEM;
		goto done;
	}
	uint32_t ps = rh.h.packet_size;
	for (uint32_t slot = 0; slot < rh.h.npackets; slot++) {
		uint8_t *dst = out + rh.packets_off + (uint64_t)slot * ps;
		uint64_t gen;
		long c = weft__packet_copy(base, &rh, slot, dst, &gen);
		if (c <= 0) {
			if (c < 0)
				ntorn++;
			memset(dst, 0, ps);
		}
	}
	/* A packet copied while open whose stream has since moved on to a
	 * packet we also copied: its tail was committed after our copy.  It
	 * is closed now, so copy it again (or, if it was reused meanwhile,
	 * leave it out: a gap readers count). */
	uint64_t *maxseq = calloc(rh.h.streams_cap, sizeof *maxseq);
	if (!maxseq) {
		err = -ENOMEM;
		goto done;
	}
	for (int pass = 0; pass < 2; pass++)
	for (uint32_t slot = 0; slot < rh.h.npackets; slot++) {
		uint8_t *dst = out + rh.packets_off + (uint64_t)slot * ps;
		uint64_t stream = weft__ld64(dst + WEFT_PK_STREAM);
		uint64_t seq = weft__ld64(dst + WEFT_PK_SEQ);
		if (!weft__ld64(dst + WEFT_PK_GEN) || stream >= rh.h.streams_cap)
			continue;
		if (pass == 0) {
			/* seq + 1, so that 0 means "no packet" */
			if (seq + 1 > maxseq[stream])
				maxseq[stream] = seq + 1;
			continue;
		}
		if (weft__ld64(dst + WEFT_PK_TS_END) || seq + 1 >= maxseq[stream])
			continue;
		uint64_t want = weft__ld64(dst + WEFT_PK_GEN), gen;
		long c = weft__packet_copy(base, &rh, slot, dst, &gen);
		if (c <= 0 || gen != want) {
			ntorn++;
			memset(dst, 0, ps);
		}
	}
	free(maxseq);
	/* Header region last (see above). */
	memcpy(out, base, rh.packets_off);
	err = write_all(out_fd, out, rh.h.file_size);
done:
	free(out);
	munmap(base, len);
	if (torn)
		*torn = ntorn;
	return err;
}

int weft_find_ring(int pid, char *buf, size_t cap)
{
	char maps[64];
	snprintf(maps, sizeof maps, "/proc/%d/maps", pid);
	FILE *f = fopen(maps, "re");
	if (!f)
		return -errno;
	char line[4608];
	int err = WEFT_ENOTFOUND;
	while (fgets(line, sizeof line, f)) {
		/* start-end perms offset dev inode path */
		unsigned long lo, hi, inode;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%lx-%lx %7s %*x %*s %lu %n", &lo, &hi, perms,
			   &inode, &pos) < 4 ||
		    !inode || !pos || perms[3] != 's')
			continue;
		char *p = line + pos;
		p[strcspn(p, "\n")] = 0;
		char cand[4200];
		/* A deleted or unreachable path: go through map_files. */
		if (strstr(p, " (deleted)") || *p != '/')
			snprintf(cand, sizeof cand, "/proc/%d/map_files/%lx-%lx",
				 pid, lo, hi);
		else
			snprintf(cand, sizeof cand, "%s", p);
		int fd = open(cand, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		char magic[8];
		ssize_t n = read(fd, magic, 8);
		close(fd);
		if (n == 8 && !memcmp(magic, WEFT_FILE_MAGIC, 8)) {
			if (strlen(cand) >= cap) {
				err = -ENAMETOOLONG;
				break;
			}
			memcpy(buf, cand, strlen(cand) + 1);
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

/* A ring holding only its used packets (npackets and file_size patched):
 * what `weft html` embeds, so a page carries the events, not the ring's
 * empty space.  *out is malloc'ed. */
int weft__compact(const uint8_t *base, size_t len, uint8_t **out,
		  size_t *outlen)
{
	struct rhdr rh;
	int err = weft__hdr_check(base, len, &rh, NULL);
	if (err)
		return err;
	uint32_t ps = rh.h.packet_size, used = 0;
	uint8_t *o = malloc(rh.packets_off + (size_t)rh.h.npackets * ps);
	if (!o)
		return -ENOMEM;
	memcpy(o, base, rh.packets_off);
	for (uint32_t slot = 0; slot < rh.h.npackets; slot++) {
		uint8_t *dst = o + rh.packets_off + (size_t)used * ps;
		uint64_t gen;
		if (weft__packet_copy(base, &rh, slot, dst, &gen) > 0)
			used++;
	}
	if (!used) /* a ring has at least one packet slot */
		memset(o + rh.packets_off, 0, ps), used = 1;
	struct weft__fhdr *h = (struct weft__fhdr *)(void *)o;
	h->npackets = used;
	h->file_size = rh.packets_off + (uint64_t)used * ps;
	*out = o;
	*outlen = (size_t)h->file_size;
	return 0;
}
