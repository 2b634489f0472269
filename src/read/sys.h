/* SPDX-License-Identifier: MIT */
/*
 * sys.h - what the reader asks of the system beyond reading files
 * (libweft-read, private).  The platform is chosen by file in meson, as
 * libuv chooses its src/unix or src/win, never by #ifdef: sys-posix.c in
 * the library and the tools; wasi.c in the HTML viewer's WebAssembly
 * (viewer/web), which reads one trace in memory with no file locks,
 * processes, threads or zstd, and stands in there for the rooms that need
 * them (follow.c, runs-disk.c, prefetch.c, kept.c, copy.c, ctf.c).
 */
#ifndef WEFT_READ_SYS_H
#define WEFT_READ_SYS_H

#include <stddef.h>
#include <stdint.h>

/* n bytes of the file open at `fd`, from `off`, into dst (pread, never a
 * mapping: packets.c): 0, WEFT_ETRUNC when the file ends first, or
 * -errno. */
int weft__file_read(int fd, uint64_t off, void *dst, size_t n);

/* Whether `path` is a regular file (or, unless `nofollow`, a symbolic
 * link to one) whose first n bytes are `magic`: 1 or 0.  Never waits: a
 * FIFO or a device is not opened. */
int weft__file_begins(const char *path, const void *magic, size_t n,
		      int nofollow);

/* The size of the file open at `fd` now, or -1. */
long long weft__file_size(int fd);

/* Whether a live writer holds the ring open at `fd` (a writer holds an
 * exclusive lock on its ring for as long as it traces): 1 or 0. */
int weft__writer_holds(int fd);

#endif
