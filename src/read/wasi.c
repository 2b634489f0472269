/* SPDX-License-Identifier: MIT */
/*
 * wasi.c - the reader in the HTML viewer's WebAssembly (viewer/web): one
 * trace in memory, no file locks, processes, threads or zstd.  It stands
 * in for what sys-posix.c, follow.c, runs-disk.c, prefetch.c, kept.c,
 * copy.c and ctf.c are in the library (src/read/meson.build): nothing is
 * live or followed, no path is opened, nothing is read ahead, no kept
 * chunk is read, no run is copied, no CTF is written.
 */
#include <errno.h>
#include <stddef.h>

#include "kept.h"
#include "multi.h"
#include "sys.h"

/* ----------------------------------------------------------- sys.h */

int weft__file_read(int fd, uint64_t off, void *dst, size_t n)
{
	(void)fd;
	(void)off;
	(void)dst;
	(void)n;
	return -ENOSYS;
}

int weft__file_begins(const char *path, const void *magic, size_t n,
		      int nofollow)
{
	(void)path;
	(void)magic;
	(void)n;
	(void)nofollow;
	return 0;
}

long long weft__file_size(int fd)
{
	(void)fd;
	return -1;
}

int weft__writer_holds(int fd)
{
	(void)fd;
	return 0;
}

int weft__process_alive(uint32_t pid)
{
	(void)pid;
	return 0;
}

/* ------------------------------------ follow.c's and runs-disk.c's part */

/* (the viewer's trace is one ring or one bundle, in memory, read whole:
 * nothing to follow, no path to open) */

static int grow_none(struct weft_reader *R)
{
	(void)R;
	return 0;
}

static int live_none(struct rmulti *M)
{
	(void)M;
	return 0;
}

const struct weft__growth weft__follow = {.more = grow_none, .live = live_none};

int weft__wait_first_ring(struct rmulti *M, struct weft_diag *d)
{
	(void)M;
	(void)d;
	return 0;
}

int weft__add_paths(struct rmulti *M, const char *const *paths, unsigned n,
		    unsigned flags, int *plain, struct weft_diag *d)
{
	(void)M;
	(void)paths;
	(void)flags;
	(void)plain;
	(void)d;
	return n ? -ENOSYS : 0;
}

int weft__file_open(struct weft_reader **out, const char *path, unsigned flags,
		    struct weft_diag *d)
{
	(void)path;
	(void)flags;
	(void)d;
	*out = NULL;
	return -ENOSYS;
}

int weft__ring_reopen(const struct msub *s, struct weft_reader **r)
{
	(void)s;
	*r = NULL;
	return -ENOSYS;
}

int weft__read_manifest(struct rmulti *M, uint32_t run)
{
	(void)M;
	(void)run;
	return 0;
}

/* ------------------------------------------------ prefetch.c's part */

struct weft__pf *weft__pf_new(void)
{
	return NULL;
}

int weft__pf_submit(struct weft__pf *pf, struct weft__pf_job *j)
{
	(void)pf;
	(void)j;
	return 0;
}

int weft__pf_collect(struct weft__pf *pf, struct weft__pf_job *j)
{
	(void)pf;
	(void)j;
	return 0;
}

void weft__pf_free(struct weft__pf *pf)
{
	(void)pf;
}

uint8_t *weft__pf_buffer(size_t n)
{
	(void)n;
	return NULL;
}

void weft__pf_buffer_free(uint8_t *b, size_t n)
{
	(void)b;
	(void)n;
}

/* ---------------------------------------------------- kept.c's part */

int weft__kept_chunk(const char *path, struct weft__kring **out,
		     struct weft_diag *diag)
{
	(void)path;
	(void)diag;
	*out = NULL;
	return -ENOSYS;
}

void weft__kring_free(struct weft__kring *K)
{
	(void)K;
}

const uint8_t *weft__kring_header(const struct weft__kring *K, uint64_t *size)
{
	(void)K;
	*size = 0;
	return NULL;
}

const struct kept_notes *weft__kring_notes(const struct weft__kring *K)
{
	static const struct kept_notes none;
	(void)K;
	return &none;
}

struct weft__kread *weft__kread_new(struct weft__kring *K)
{
	(void)K;
	return NULL;
}

void weft__kread_free(struct weft__kread *R)
{
	(void)R;
}

int weft__kread_read(struct weft__kread *R, uint64_t off, void *dst, size_t n)
{
	(void)R;
	(void)off;
	(void)dst;
	(void)n;
	return -ENOSYS;
}

/* ------------------------------------------- copy.c's and ctf.c's part */

int weft__multi_copy(struct weft_reader *R, unsigned flags, void **out,
		     size_t *len, uint64_t *torn)
{
	(void)R;
	(void)flags;
	(void)len;
	(void)torn;
	*out = NULL;
	return -ENOSYS;
}

int weft__ring_ctf(struct weft_reader *r, const char *dir, struct weft_diag *d)
{
	(void)r;
	(void)dir;
	(void)d;
	return -ENOSYS;
}

int weft__run_ctf(struct weft_reader *r, const char *dir, struct weft_diag *d)
{
	return weft__ring_ctf(r, dir, d);
}
