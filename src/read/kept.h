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
 * The kept directory `dir` as one trace in memory: for each ring, the
 * packets of all its chunks (each once, a generation kept twice is read
 * once) behind the header region of its newest chunk; with the run's
 * manifest, a bundle of them (*bundle 1), else one ring (*bundle 0).
 * *out is malloc'ed.  0 or a negative code with `diag` filled.
 */
int weft__kept_load(const char *dir, uint8_t **out, size_t *len, int *bundle,
		    struct kept_notes *notes, struct weft_diag *diag);

/* One chunk file (a zstd file: its first bytes ZSTD_MAGIC) read alone:
 * the compact ring it holds, into *out (malloc'ed).  0 or a code. */
#define WEFT_ZSTD_MAGIC 0xFD2FB528u
int weft__kept_chunk(const char *path, uint8_t **out, size_t *len,
		     struct weft_diag *diag);

#endif
