/* SPDX-License-Identifier: MIT */
/*
 * run.h - reading runs (libweft-read, private): what the files that read
 * several rings as one trace share.
 *
 *   run.c     a run's manifest (the process tree) and bundles (a run in
 *             one file), parsed; run directories listed
 *   merge.c   the merged reader: rings in time order on one axis, ids,
 *             names and streams made unique, the process threads (its
 *             rooms: multi.h lists them)
 *   clocks.c  machines: which rings share a clock, and the offsets of
 *             the others (realtime, then messages)
 *
 * docs/format.md ("Runs") describes the manifest and the bundle.
 */
#ifndef WEFT_READ_RUN_H
#define WEFT_READ_RUN_H

#include <stdint.h>

#include "internal.h"

/* ------------------------------------------------------------ manifest */

/* One process (image) as a manifest tells it.  Times are the writer's
 * CLOCK_MONOTONIC in ns (0: not known). */
struct mproc {
	uint32_t pid, ppid;
	uint64_t token; /* its start time in clock ticks since boot
			       (/proc/PID/stat): tells a reused pid apart */
	int64_t t_fork, t_start, t_end;
	int64_t real_start; /* CLOCK_REALTIME at t_start, or 0 */
	int end;	    /* enum weft_process_end */
	int status;
	int has_proc;	    /* a proc line was seen (its image started) */
	int spawn;	    /* `by` is a spawn request (its exit resolves it) */
	uint64_t by;	    /* the creating async thread, in the parent's ids */
	uint32_t by_tid;    /* the parent's OS thread that forked */
	uint32_t parent;    /* index of its parent entry, or NONE */
	uint32_t prev_same; /* the entry of its pid before it, or NONE */
	uint32_t next_orphan; /* (the list of those waiting for a parent) */
	int waits;	      /* in that list */
	uint32_t prev_image;  /* index of the image it replaced, or NONE */
	/* forked before its parent's program was known (its lines came
	 * first): it runs that program, copied once known */
	int want_image, kids_want_image;
	uint32_t image;
	char *exe, *host, *ring;
	char boot[37];
	char comm[33];
	char **argv;
	uint32_t argc;
};

struct manifest {
	char *raw; /* the text parsed (a snapshot copies it) */
	size_t rawlen;
	struct mproc *p;
	uint32_t n, cap;
	/* pid -> its latest entry: open addressing, a slot holds the
	 * entry's index + 1 (0: free); a manifest of a large build has
	 * hundreds of thousands of processes */
	uint32_t *latest;
	uint32_t lcap, lused; /* slots (a power of two), used */
	/* ppid -> the entries that named it before any entry of it was
	 * known (a child's lines may come before its parent's spawn line
	 * for it: written once fork() returned there) */
	struct orphans {
		uint32_t ppid, head; /* ppid 0: a free slot */
	} * orph;
	uint32_t ocap, oused;
	uint64_t session;
	uint64_t lines, bad_lines;
	char first_bad[120]; /* what the first bad line was */
};

/* Parses `len` bytes of manifest text into *m (appending: a followed
 * manifest is parsed as it grows; pass only whole lines).  Returns 0 or
 * -ENOMEM; a malformed line is counted and skipped. */
int weft__manifest_parse(struct manifest *m, const char *text, size_t len);
/* The latest entry of pid (the others: its prev_same), or UINT32_MAX. */
uint32_t weft__manifest_latest(const struct manifest *m, uint32_t pid);
void weft__manifest_free(struct manifest *m);

/* ------------------------------------------------------------- bundles */

/* A bundle: one or more runs in one file (a snapshot of them, or what
 * `weft html` embeds).
 *   [header | entries | parts]
 * header: magic "WEFTBNDL", u16 major (1), u16 minor (0), u32 count,
 *         u64 total size, u64 reserved;
 * entry:  u64 offset, u64 length, u32 kind (1 ring, 2 manifest), u32 run
 *         (the parts of one run share it), i64 cut (a ring copied while
 *         it was written: CLOCK_MONOTONIC of its machine when the copy
 *         began, events after it are not read, so that all the rings of
 *         a snapshot end at the same instant; 0: none), char name[48]
 *         (NUL-padded);
 * parts:  each at an offset that is a multiple of 64. */
#define WEFT_BUNDLE_MAGIC "WEFTBNDL"
#define BUNDLE_HDR 32
#define BUNDLE_ENT 80
#define BUNDLE_RING 1
#define BUNDLE_MANIFEST 2
#define BUNDLE_OFFSETS 3 /* clock offsets its maker forced: "HOST NS" lines */
#define BUNDLE_MAX_OFFSETS 64
#define BUNDLE_MAX_PARTS 65536

struct bpart {
	uint64_t off, len;
	uint32_t kind, run;
	int64_t cut;
	char name[49];
};

struct bundle {
	struct bpart *part;
	uint32_t n;
	uint64_t size;
};

/* Checks a bundle of `len` bytes at `base`: every part in bounds.  0 or a
 * negative code with `diag` filled.  *b is malloc'ed inside. */
int weft__bundle_parse(const uint8_t *base, uint64_t len, struct bundle *b,
		       struct weft_diag *diag);
/* The size a bundle's header declares (for reading it from a pipe), or
 * 0 when the first bytes are no bundle header. */
uint64_t weft__bundle_size(const uint8_t *base, size_t len);

/* Writes a bundle of `n` parts into a new buffer (*out, malloc'ed). */
int weft__bundle_write(const struct bpart *parts, const void *const *data,
		       uint32_t n, uint8_t **out, size_t *len);
/* Where the first part of a bundle of n parts goes, and its header (the
 * parts at their `off`, `size` bytes in all) written at b, for a bundle
 * built in place (kept.c).  weft__bundle_write uses them. */
uint64_t weft__bundle_first(uint32_t n);
void weft__bundle_header(uint8_t *b, const struct bpart *parts, uint32_t n,
			 uint64_t size);

/* --------------------------------------------------------- the merge */

#define MNONE UINT32_MAX

enum { S_IDLE, S_HAS, S_WAIT, S_DONE };

/* One ring. */
struct msub {
	struct weft_reader *r;
	char *path;
	uint32_t run;	    /* where it came from (M->runs), or MNONE */
	uint32_t host;	    /* its machine (M->hosts) */
	const uint8_t *mem; /* read from memory: there (to read it again) */
	size_t memlen;
	struct weft__kring *kring; /* read from kept chunks: (a reference) */
	uint32_t proc;		   /* its process */
	uint64_t tag;	  /* k << TAG_SHIFT, 0 for ring 0; TAG_FRESH: table */
	int64_t shift;	  /* merged ns = its ns + shift */
	int64_t mono0;	  /* CLOCK_MONOTONIC of its origin */
	int64_t cut_mono; /* a snapshot's cut (its machine's clock), or 0 */
	int64_t cut;	  /* the same on the merged axis, or INT64_MAX */
	uint32_t *smap, nsmap; /* its streams -> merged */
	uint32_t *nmap, nnmap; /* its names -> merged (0: not yet) */
	struct weft_event ev;  /* its next event (S_HAS) */
	/* that event is still its reader's, the next of its batch, as
	 * decoded: `ev` holds only its time, made the merge's (merge.c,
	 * gather()) */
	int inbatch;
	int state;
	int started;	 /* the events of its process's start were made */
	uint32_t main;	 /* local index of its main OS thread's stream */
	uint64_t xid;	 /* its process thread */
	uint64_t by;	 /* what creates it: the image before, or its creator */
	uint64_t before; /* the image before's process thread, or 0 */
	int remap;	 /* its main OS thread's root acts as xid */
	int64_t last_ns;
	uint64_t returned;
};

/* Where rings came from: a run directory or a bundle. */
struct mrun {
	char *dir;     /* a directory (followed), or NULL */
	uint32_t host; /* the machine of its rings (its manifest's clock) */
	struct manifest man;
	size_t man_off;	     /* bytes of the manifest parsed */
	uint32_t first;	     /* its first process in M->procs */
	uint32_t bundle_run; /* in a bundle: its run number there */
	int in_bundle;
};

/* What the merge keeps of a process besides the public record. */
struct mproc_x {
	uint32_t run, entry; /* its manifest entry, or MNONE */
	uint32_t sub;	     /* its ring, or MNONE */
	uint64_t by;	     /* creator, in its parent's ids */
	int spawn;
	char *label;
	char *end_text;
};

struct synth {
	int64_t ns;
	uint64_t seq;
	struct weft_event ev;
};

struct idmap {
	uint64_t key; /* (sub << 32 ^ ...) hashed below; 0: free */
	uint32_t sub;
	uint64_t id, fresh;
};

/* How a followed run grows (follow.c): when the merge has nothing, `more`
 * asks for what came since (the rings with something new, or a negative
 * code), `live` whether a process of the run may still add some. */
struct weft__growth {
	int (*more)(struct weft_reader *R);
	int (*live)(struct rmulti *M);
};

struct rmulti {
	/* a followed run's growth (set by the opener), or NULL */
	const struct weft__growth *grow;
	uint64_t kept_thread; /* of kept directories, read only the chunks
				 naming it (0: all) */
	struct weft__pf *pf;  /* the rings' reading ahead, shared */
	struct msub *sub;
	uint32_t nsub, csub;
	/* sub index + 1 by a hash of its path, and of its ring's uuid
	 * (open addressing, bycap slots each: a run of a large test suite
	 * has thousands of rings) */
	uint32_t *by_path, *by_uuid;
	uint32_t bycap;
	struct mrun *runs;
	uint32_t nruns;
	uint32_t *heap, nheap; /* subs with an event, by (ns, index) */
	uint32_t refill;       /* the sub whose event was returned last */
	struct synth *syn;     /* made events, a heap by (ns, seq) */
	uint32_t nsyn, csyn;
	uint64_t seq;
	struct synth cur_syn; /* the one returned last (its text) */
	struct weft_process *procs;
	struct mproc_x *px;
	uint32_t nprocs, cprocs;
	struct weft_host *hosts;
	uint32_t nhosts;
	uint32_t *sproc; /* merged stream -> process */
	struct weft_stream_info *sinfo;
	uint32_t nst, cst;
	const char **names; /* merged names */
	uint32_t nnames, cnames;
	uint32_t *nhash; /* text hash -> name id + 1 */
	uint32_t nhcap;
	struct namebuf *bufs;
	struct idmap *ids; /* fresh ids */
	uint32_t idcap, idused;
	uint64_t fresh_next;
	int64_t origin_mono;
	uint32_t name_process; /* "process" */
	unsigned flags;
	int started;
	int synth;	   /* several rings: the process threads' events */
	int waits_done;	   /* the waits of the trace's end are made */
	struct msgs *msgs; /* messages waiting for their other end */
	uint64_t returned, info_at;
	uint8_t *owned[64]; /* bundles' bytes, and rings read from pipes */
	unsigned nowned;
	struct weft_problem prob[MAX_PROBLEMS];
	unsigned nprob;
	/* offsets the bundles read say their makers forced (applied after
	 * the caller's): host name or boot id, ns */
	char *bforced[BUNDLE_MAX_OFFSETS];
	int64_t bforced_ns[BUNDLE_MAX_OFFSETS];
	unsigned nbforced;
	/* rings given twice (by uuid), read once: their paths, and what is
	 * said of them */
#define DUPS_MAX 8
	char *dups[DUPS_MAX];
	char dupwhat[DUPS_MAX][120]; /* (a weft_problem's `what`) */
	unsigned ndups;
	uint8_t idfields[WEFT_EV_COUNT]; /* 1: ev.id, 2: ev.id2 are ids;
					    4, 8: name, name2 are names */
	/* rings of a run that could not be read (damaged, emptied, cut,
	 * missing though the manifest names them, a bundle's part that does
	 * not open): the others are read, these are named with what is
	 * wrong (problems, so the commands exit 1) */
	struct mbad {
		uint32_t run;  /* its run (M->runs) */
		uint32_t proc; /* its process, or NONE */
		char *path;    /* DIR/NAME, or BUNDLE:NAME */
		char what[100];
	} * bad;
	uint32_t nbad, cbad;
	/* kept directories' damaged chunks, said as problems (kept.c) */
	char kept[4][120];
	unsigned nkept;
};

/* made.c: an event the merge makes, at ns. */
int weft__syn_push(struct rmulti *M, int64_t ns, const struct weft_event *ev);

/* msgs.c: a sent or received event of ring k (made the merge's), matched
 * with its other end: read arrows between processes (made events). */
struct msgs;
int weft__msgs_event(struct rmulti *M, uint32_t k, const struct weft_event *ev);
/* A fire event: the next activation of a read waits for its next bytes. */
int weft__msgs_fire(struct rmulti *M, const struct weft_event *ev);
void weft__msgs_free(struct rmulti *M);
/* Every ring has been read (the trace ends at ns): the threads still
 * waiting for a peer's reply wait on the peer (made try_reads). */
int weft__msgs_end(struct rmulti *M, int64_t ns);

/* clocks.c: the machines of the rings (M->hosts, each sub's host) and the
 * offset of each on the first ring's machine's CLOCK_MONOTONIC: the same
 * boot, none; else CLOCK_REALTIME, then the messages they exchanged,
 * or what `opts` forces.  0 or a negative code. */
int weft__clocks_align(struct rmulti *M, const struct weft_merge_opts *opts);
/* A ring's start on its machine's CLOCK_MONOTONIC (out of its writer's
 * time namespace). */
int64_t weft__ring_mono0(const struct weft_reader *r);

/* The merge's source (struct weft__reader_ops, internal.h): merge.c's
 * table, of functions of merge.c, procs.c, copy.c and ctf.c.  A struct
 * weft_reader whose `multi` is set reads through it. */
struct rmulti;
extern const struct weft__reader_ops weft__merge_ops;
void weft__multi_info(struct weft_reader *r);
void weft__multi_free(struct rmulti *m);
int weft__multi_copy(struct weft_reader *r, unsigned flags, void **out,
		     size_t *len, uint64_t *torn);
int weft__run_ctf(struct weft_reader *r, const char *dir, struct weft_diag *d);
const struct weft_process *weft__multi_processes(struct weft_reader *r,
						 uint32_t *n);
uint32_t weft__multi_stream_process(struct weft_reader *r, uint32_t stream);
const struct weft_host *weft__multi_hosts(struct weft_reader *r, uint32_t *n);
/* Opens `paths` (rings, run directories, bundles, "-") and the bundle
 * at `mem` (if not NULL; `own`: freed with the reader, or on failure) as
 * one merged reader; one ring and nothing else is opened as it is.  Used
 * by weft_reader_open, _open_mem and _open_many (open.c). */
int weft__multi_open(struct weft_reader **out, const char *const *paths,
		     unsigned n, const void *mem, size_t memlen, int own,
		     unsigned flags, const struct weft_merge_opts *opts,
		     struct weft_diag *d);

#endif
