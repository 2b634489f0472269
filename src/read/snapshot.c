/* SPDX-License-Identifier: MIT */
/*
 * snapshot.c - finding the ring a running process has mapped (the copy
 * itself, weft_snapshot, is ring_copy() in packets.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

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
			snprintf(cand, sizeof cand,
				 "/proc/%d/map_files/%lx-%lx", pid, lo, hi);
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
