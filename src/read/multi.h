/* SPDX-License-Identifier: MIT */
/*
 * multi.h - the merged reader (libweft-read, private): what its files
 * share, beside its state (struct rmulti, run.h).  Several rings read as
 * one trace, each by a reader of its own (a sub-reader), their events
 * merged in time order on one axis:
 *
 *   merge.c      the merge: the heap of rings, the next event (its fast
 *                path), the totals, names and problems of the whole
 *   remap.c      ids, names and streams made the merge's (unique)
 *   made.c       the events the merge makes: each process's start, end
 *                and label, in time order with the rest
 *   procs.c      the process table: the manifests' entries, each ring's
 *                process, a ring joining the merge
 *   runs-open.c  the parts: sub-readers and their tables, runs, bundles
 *                in memory, rings bad or missing
 *   runs-disk.c  the parts on the disk: run directories, bundle files,
 *                kept directories (not in the WebAssembly build)
 *   follow.c     a followed run: manifests that grew, rings that came
 *                (the merge asks through M->grow)
 *   open.c       opening: which source a path is, the parts, then the
 *                merge set up, step by step
 *   copy.c       a run copied into a bundle (written as CTF: ctf.c)
 *
 * run.h has the state (struct rmulti, struct msub) and the merge's
 * source table (weft__merge_ops), through which api.c reaches these.
 */
#ifndef WEFT_READ_MULTI_H
#define WEFT_READ_MULTI_H

#include "run.h"

#define NONE UINT32_MAX
#define TAG_SHIFT 48
#define TAG_MASK (0x3FFFull << TAG_SHIFT)
#define TAG_PROC (0x3FFEull << TAG_SHIFT)  /* the process threads */
#define TAG_FRESH (0x3FFFull << TAG_SHIFT) /* ids given by the table */
#define TAG_MAX 0x3FFDu			   /* rings tagged by number */

/* ------------------------------------------------------------ remap.c */

/* Appends a name (kept as it is: the first ring's names keep their ids,
 * duplicates included).  Its id, or 0 when memory is short. */
uint32_t weft__name_append(struct rmulti *M, const char *s);
/* The merged id of a name's text (0 for "", or when memory is short). */
uint32_t weft__name_of(struct rmulti *M, const char *s);
/* The slow paths of map_name, map_id and map_stream below. */
uint32_t weft__map_name_new(struct rmulti *M, struct msub *s, uint32_t local);
uint64_t weft__fresh_id(struct rmulti *M, uint32_t sub, uint64_t id);
uint32_t weft__map_stream_new(struct rmulti *M, struct msub *s, uint32_t local);

/* Name `local` of ring s, as the merge's. */
static inline uint32_t map_name(struct rmulti *M, struct msub *s,
				uint32_t local)
{
	if (!local)
		return 0;
	if (local < s->nnmap && s->nmap[local])
		return s->nmap[local];
	return weft__map_name_new(M, s, local);
}

/* Id `id` of ring `sub` (whose tag is `tag`), as the merge's. */
static inline uint64_t map_id_tagged(struct rmulti *M, uint32_t sub,
				     uint64_t tag, uint64_t id)
{
	if (!id)
		return 0;
	if (!(id & TAG_MASK) && tag != TAG_FRESH)
		return id | tag;
	return weft__fresh_id(M, sub, id);
}

/* Id `id` of ring `sub`, as the merge's. */
static inline uint64_t map_id(struct rmulti *M, uint32_t sub, uint64_t id)
{
	return map_id_tagged(M, sub, M->sub[sub].tag, id);
}

/* Stream `local` of ring s, as the merge's. */
static inline uint32_t map_stream(struct rmulti *M, struct msub *s,
				  uint32_t local)
{
	if (local < s->nsmap && s->smap[local] != NONE)
		return s->smap[local];
	return weft__map_stream_new(M, s, local);
}

/* ------------------------------------------------------------- made.c */

/* The made event at the top of their heap, taken off (weft__syn_push, in
 * run.h, puts one on). */
struct synth weft__syn_pop(struct rmulti *M);
/* The process thread of process index q (its ring's), or 0. */
uint64_t weft__xid_of(const struct rmulti *M, uint32_t q);
/* The async thread that created process p, as an id of the merge. */
uint64_t weft__creator_of(struct rmulti *M, uint32_t p);
/* The events of ring s's process's start, its first event at `first`. */
int weft__start_events(struct rmulti *M, struct msub *s, int64_t first);
/* How process p ended (enum weft_process_end), with what its ring says. */
int weft__end_of(const struct rmulti *M, uint32_t p);
/* The events of ring s's process's end, when its ring has no more. */
int weft__end_events(struct rmulti *M, struct msub *s);

/* ------------------------------------------------------------ procs.c */

/* The processes of run `run`'s manifest entries from `from` on.  0 or
 * -ENOMEM. */
int weft__procs_of_manifest(struct rmulti *M, uint32_t run, uint32_t from);
/* Brings process i up to date with its manifest entry. */
void weft__proc_sync(struct rmulti *M, uint32_t i);
/* The process of ring k (its entry in a manifest, else a new one). */
int weft__ring_proc(struct rmulti *M, uint32_t k);
/* What creates ring k's process thread, and whether it acts on the main
 * OS thread (its process is known: weft__ring_proc). */
void weft__creation(struct rmulti *M, uint32_t k);
/* Ring k joins the merge: its tag, clock and streams.  0 or -ENOMEM. */
int weft__join(struct rmulti *M, uint32_t k);

/* ------------------------------------------------------------ merge.c */

/* Asks ring k for its next event, into the heap.  0, or a negative
 * code. */
int weft__merge_fill(struct rmulti *M, uint32_t k);

/* ----------------------------------------------------------- follow.c */

/* A followed run's growth: manifests that grew, rings that appeared
 * (set as M->grow by the opener when the run is followed). */
extern const struct weft__growth weft__follow;
/* Opening step: a followed run that has recorded nothing yet waited
 * for (while a process of it lives).  0 or a negative code. */
int weft__wait_first_ring(struct rmulti *M, struct weft_diag *d);

/* -------------------------------------------------------- runs-open.c */

/* Ring r (read as `path`, of run `run` or NONE) a part of the merge: 0,
 * 1 when it is a ring read already (said, r not kept), or -ENOMEM. */
int weft__add_sub(struct rmulti *M, struct weft_reader *r, const char *path,
		  uint32_t run);
/* A run more (of directory `dir`, or NULL: a bundle's).  0 or -ENOMEM. */
int weft__add_run(struct rmulti *M, const char *dir);
/* Memory M frees when it goes (freed now when it cannot keep it). */
int weft__keep_owned(struct rmulti *M, uint8_t *p);
/* Ring `path` of run `run` cannot be read (err, and the reader's message
 * or NULL): kept to be said, the other rings read on. */
int weft__bad_ring(struct rmulti *M, uint32_t run, const char *path, int err,
		   const char *msg);
/* The rings run `run`'s manifest names that are neither read nor bad:
 * said missing (a bundle's named `prefix`:NAME); `appeared`, when not
 * NULL, is asked of each first (a directory's: 0 when it reads after
 * all, -ENOENT when nothing is there, else why not, said in sd). */
int weft__rings_missing(struct rmulti *M, uint32_t run, const char *prefix,
			int (*appeared)(const char *path,
					struct weft_diag *sd));
/* A bundle's parts: its rings, read in place, and its manifest. */
int weft__add_bundle(struct rmulti *M, const uint8_t *base, size_t len,
		     const char *what, struct weft_diag *d);
/* A ring or a bundle in memory that M owns read as part of the trace. */
int weft__add_owned(struct rmulti *M, uint8_t *b, size_t len, int bundle,
		    const char *p, struct weft_diag *d);
/* Whether a sub-reader already reads `path`. */
int weft__have_path(const struct rmulti *M, const char *path);

/* -------------------------------------------------------- runs-disk.c */
/* (follow.c and runs-disk.c are not in the WebAssembly: wasi.c) */

/* Reads what the run's manifest holds beyond what was parsed (whole
 * lines only).  0 or a negative code. */
int weft__read_manifest(struct rmulti *M, uint32_t run);
/* Reads a whole regular file (a bundle) into memory. */
int weft__read_file(const char *path, uint8_t **out, size_t *len);
/* The rings of run directory `run` not read yet; `initial`: an open (a
 * ring that cannot be read is said bad), else a followed run's growth. */
int weft__scan_dir(struct rmulti *M, uint32_t run, int initial,
		   struct weft_diag *d);
/* A kept directory (kept.c): its rings, with its run's manifest. */
int weft__add_kept(struct rmulti *M, const char *p, struct weft_diag *d);
/* Ring s (of kept chunks, or a file) read once more, by a reader of its
 * own.  0 or a negative code. */
int weft__ring_reopen(const struct msub *s, struct weft_reader **r);
/* A regular file opened: a chunk of a kept directory, alone, or a ring
 * (weft_reader_open's last cases). */
int weft__file_open(struct weft_reader **out, const char *path, unsigned flags,
		    struct weft_diag *d);
/* Opening step: `paths` (rings, run directories, bundles, kept
 * directories, "-") added to the merge; `plain` cleared when one is more
 * than a ring.  0 or a negative code (said in d). */
int weft__add_paths(struct rmulti *M, const char *const *paths, unsigned n,
		    unsigned flags, int *plain, struct weft_diag *d);

#endif
