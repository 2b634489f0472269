/* SPDX-License-Identifier: MIT */
/*
 * kept.h - reading a kept directory (`weft keep`, `weft record --keep`;
 * docs/keep.md) as one trace (libweft-read, private).
 */
#ifndef WEFT_READ_KEPT_H
#define WEFT_READ_KEPT_H

#include <stddef.h>
#include <stdint.h>

#include "weft/read.h"

/* Whether `path` is a kept directory (it holds keep.log). */
int weft__kept_dir(const char *path);

/* What was wrong with some chunks (the others are read). */
struct kept_notes {
	unsigned n;	    /* damaged chunks (what cannot be read: left out) */
	uint64_t unwritten; /* packets the disk refused (keep.log) */
	char what[120];	    /* the first */
};

/*
 * A ring of a kept directory (or one chunk) read frame by frame: a
 * virtual ring file, the header region of its newest chunk then a slot
 * for each packet of its chunks (each generation once) and for each
 * packet its carried threads become; a reader (weft__kread) decompresses
 * a frame when it reads one of its slots, into a cache of a few frames of
 * its own, so that memory does not grow with the chunks.  Shared by its
 * readers (counted references).
 */
struct weft__kring;
struct weft__kread;

/* A kept directory: its rings, and the run's manifest if it has one. */
struct weft__kset {
	uint8_t *man; /* the manifest's text (malloc'ed), or NULL */
	size_t manlen;
	uint32_t nrings;
	struct {
		char name[64];
		struct weft__kring *K; /* one reference: the set's */
	} * ring;
	struct kept_notes notes;
	unsigned skipped; /* chunks left unread: not naming the thread */
};

/* The kept directory `dir`: its chunks' indexes read, nothing
 * decompressed but each ring's newest header; with `thread` (not 0), only
 * the chunks whose index names it (weft_reader_open_thread).  0 or a
 * negative code with `diag` filled. */
int weft__kept_open(const char *dir, uint64_t thread, struct weft__kset **out,
		    struct weft_diag *diag);
void weft__kept_set_free(struct weft__kset *s);

/* One chunk file (a zstd file: its first bytes ZSTD_MAGIC) read alone:
 * *out (one reference).  0 or a code. */
#define WEFT_ZSTD_MAGIC 0xFD2FB528u
int weft__kept_chunk(const char *path, struct weft__kring **out,
		     struct weft_diag *diag);

void weft__kring_ref(struct weft__kring *K);
void weft__kring_free(struct weft__kring *K); /* a reference dropped */
/* Its header region (patched) and the virtual file's size. */
const uint8_t *weft__kring_header(const struct weft__kring *K, uint64_t *size);
/* Frames that did not decompress, found as its readers read them. */
const struct kept_notes *weft__kring_notes(const struct weft__kring *K);

/* A reader's view of K (a reference), and its reads (weft__src_read's
 * contract: 0, WEFT_ETRUNC or -ENOMEM; a frame that does not decompress
 * reads as zeros: never-used slots, a gap readers count). */
struct weft__kread *weft__kread_new(struct weft__kring *K);
void weft__kread_free(struct weft__kread *R);
/* (weft__kread_read(R, off, dst, n): in internal.h, beside the other
 * sources of a ring's bytes) */

/* A reader of K (reader.c): its frames are read as its events are. */
int weft__reader_open_kept(struct weft_reader **out, struct weft__kring *K,
			   unsigned flags, struct weft_diag *diag);

#endif
