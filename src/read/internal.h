/* SPDX-License-Identifier: MIT */
/*
 * internal.h - libweft-read's private header: the reader's state, shared
 * by the files that each do one part of its work:
 *
 *   api.c      the public calls on a reader, through its source's table
 *              (struct weft__reader_ops, below)
 *   diag.c     problems and error messages
 *   header.c   the file header, the stream and name tables, the clock
 *   packets.c  consistent packet copies, the packet index, and
 *              consistent copies of a whole ring (snapshot, html)
 *   decode.c   events out of a packet (decode.h)
 *   reader.c   a ring's source: opening, and the merge of its streams
 *              in time order
 *
 * (A merge of rings is a source of its own: run.h and multi.h.  Where a
 * ring's bytes come from, a file read with pread, memory or kept chunks,
 * is weft__src_read below.)
 *
 * The hot part of decoding is inline in decode.h.  Nothing here is
 * exported from the library.
 */
#ifndef WEFT_READ_INTERNAL_H
#define WEFT_READ_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../common/format.h"
#include "sys.h"
#include "weft/read.h"

#define MAX_PROBLEMS 64

/*
 * Where a ring's bytes come from.  A file is never mapped: it is read
 * with pread into the reader's own buffers, so a file truncated or
 * replaced while it is read gives a short read (reported) and never a
 * SIGBUS.  Memory (weft_reader_open_mem, or standard input read to the
 * size its header declares) is read in place.
 */
struct weft__kread;
struct rsrc {
	const uint8_t *mem; /* in memory, unchanging; or NULL */
	int fd;		    /* else a file */
	uint64_t len;	    /* bytes there when opened */
	/* else a ring of kept chunks, decompressed frame by frame as read
	 * (kept.c): nothing writes it, read by one thread */
	struct weft__kread *kv;
};

/* Writes all n bytes at p to fd (a short write or EINTR goes on): 0 or
 * -errno. */
int weft__write_all(int fd, const uint8_t *p, size_t n);

/* kept.c (kept.h): n bytes of a ring of kept chunks, from `off`. */
int weft__kread_read(struct weft__kread *R, uint64_t off, void *dst, size_t n);

/* Reads n bytes at off into dst.  Returns 0, WEFT_ETRUNC if the source
 * ends before (a file truncated since), or -errno. */
static inline int weft__src_read(const struct rsrc *src, uint64_t off,
				 void *dst, size_t n)
{
	if (src->mem) {
		if (off > src->len || n > src->len - off)
			return WEFT_ETRUNC;
		memcpy(dst, src->mem + off, n);
		return 0;
	}
	if (src->kv)
		return weft__kread_read(src->kv, off, dst, n);
	return weft__file_read(src->fd, off, dst, n);
}

/* One valid packet found in the ring. */
/* A packet a kept chunk's reader made of the async threads alive at the
 * chunk's start (kept.c, docs/keep.md "Carried threads"): its generation
 * has this bit.  It comes first in its stream, outside the stream's packet
 * sequence, and its events are marked WEFT_EVF_CARRIED. */
#define WEFT__GEN_CARRIED (1ull << 62)

struct rpacket {
	uint32_t slot;
	uint32_t stream;
	uint64_t gen, seq;
	uint64_t ts_begin;
	uint64_t ts_end; /* 0: the packet was open when read */
	uint64_t discarded;
	uint64_t current;
};

/* Validated copy of the file header, with the sizes checked against the
 * bytes that are really there. */
struct rhdr {
	struct weft__fhdr h;
	uint64_t packets_off;
};

/* Checks the header of a source of `len` bytes whose first bytes (at
 * least min(len, sizeof(struct weft__fhdr))) are at `base`; fills *out.
 * Returns 0 or a negative code with `diag` filled. */
int weft__hdr_check(const uint8_t *base, uint64_t len, struct rhdr *out,
		    struct weft_diag *diag);

/* packets.c: how many slots, from the first, may hold packets (fewer
 * than the ring's when it never went round, or was cut at a clean stop);
 * `live`: a file whose writer may still be at it. */
uint32_t weft__slots_to_read(const struct rsrc *src, const struct rhdr *rh,
			     int live);

/* prefetch.c: the next packet of a stream read on a second thread. */
struct weft__pf;
struct weft__pf_job {
	int state; /* (atomic) idle, queued, being read, read */
	struct rsrc src;
	uint64_t off;
	size_t len;
	uint8_t *dst;
	int err; /* weft__src_read()'s */
	struct weft__pf_job *next;
};
struct weft__pf *weft__pf_new(void);
void weft__pf_free(struct weft__pf *pf);
/* Queues j (1), or 0: nothing reads ahead here, or not for a reader at
 * this pace (the caller reads the packet itself). */
int weft__pf_submit(struct weft__pf *pf, struct weft__pf_job *j);
/* 1 once j is read (j->err says how), or 0: the caller reads it (it was
 * not begun, or none was queued).  j is idle again either way. */
int weft__pf_collect(struct weft__pf *pf, struct weft__pf_job *j);
/* A second buffer of n bytes, within the process's budget, or NULL. */
uint8_t *weft__pf_buffer(size_t n);
void weft__pf_buffer_free(uint8_t *b, size_t n);

/* What weft__packet_copy() returns besides a content size. */
#define PK_TORN (-1) /* rewritten during the copy */
#define PK_GONE (-2) /* cannot be read: the file shrank, or I/O error */

/*
 * Copies packet `slot` into `dst` (packet_size bytes).  `live`: a writer
 * may be rewriting it, so the commit protocol of src/common/format.h is
 * followed (gen, timestamp_end, content_size, the bytes, then the
 * trailer) and the bytes past the commit are zeroed.  Returns the content
 * size in bytes, 0 if the slot was never used, PK_TORN or PK_GONE.  *gen
 * receives the generation.
 */
long weft__packet_copy(const struct rsrc *src, const struct rhdr *rh,
		       uint32_t slot, uint8_t *dst, uint64_t *gen, int live);
/* weft__packet_copy() of a file nothing writes, once its read into dst
 * returned err (weft__src_read's). */
long weft__packet_checked(const struct rhdr *rh, const uint8_t *dst, int err,
			  uint64_t *gen);

/* Walks the events of one packet copy: returns the end (bytes) of the
 * last event that decodes, and its timestamp in *last_ts. */
uint32_t weft__packet_valid_end(const uint8_t *pk, uint32_t content,
				uint64_t ts_begin, uint64_t *last_ts);

/* ------------------------------------------------------------ the reader */

struct rstream {
	struct rpacket *pk; /* sorted by seq */
	uint32_t npk, pkcap;
	uint32_t next_pk;    /* next packet to open */
	const uint8_t *data; /* packet being decoded */
	uint32_t pos, end;   /* bytes within it */
	uint64_t pk_off;     /* its file offset */
	uint64_t pk_gen, pk_seq, pk_discarded;
	uint32_t pk_slot;
	int in_packet;
	uint64_t clock;	     /* last timestamp */
	uint64_t cur;	     /* current async thread */
	uint64_t expect_seq; /* next packet_seq_num expected */
	uint64_t last_discarded;
	uint8_t *copy;	  /* packet copy (files) */
	int prev_open;	  /* the packet before was open when copied */
	int open_copy;	  /* live: this one was open when copied (its
			     tail may have been committed since) */
	int carried;	  /* its packet is a kept chunk's carried threads */
	int pending;	  /* 1 an event at pos, 2 a loss (see peek) */
	uint64_t next_ts; /* its time */
	uint32_t next_id, next_hdr;	 /* its event id and header size */
	uint64_t nev, first_ts, last_ts; /* events returned so far */
	/* a loss found, to be returned before the next event */
	int loss, loss_partial;
	uint64_t loss_packets, loss_events, loss_ts;
	/* (last: the fields above are the ones read for every event) */
	uint8_t *copy2;		  /* the next packet, read ahead (prefetch.c) */
	struct weft__pf_job *job; /* its reading, and which packet */
	uint32_t job_pk;
	int no_ahead; /* none can be read ahead (no thread, no memory) */
};

struct namebuf {
	struct namebuf *next;
	char s[];
};

#define WEFT__PROGRESS_EVERY 65536

struct rmulti;

/*
 * What a source of events does: every public call on a reader (api.c)
 * goes through its source's table.  Two sources: a ring (reader.c, with
 * header.c, packets.c and ctf.c) and a merge of rings (merge.c, with its
 * rooms: multi.h), which reads its rings through their own tables.  A
 * source calls nothing of another but through its table, so the rooms
 * of the reader call each other in no loop (tests/meta/rooms.sh).
 */
struct weft__reader_ops {
	/* the next event when r->batch holds none (weft_reader_next) */
	int (*next)(struct weft_reader *r, struct weft_event *ev);
	/* r->info brought up to date (counts, first and last times) */
	void (*info)(struct weft_reader *r);
	const struct weft_problem *(*problems)(struct weft_reader *r,
					       unsigned *n);
	const char *(*name)(struct weft_reader *r, uint32_t id);
	int (*copy)(struct weft_reader *r, unsigned flags, void **out,
		    size_t *len, uint64_t *torn);
	int (*ctf)(struct weft_reader *r, const char *dir, struct weft_diag *d);
	const struct weft_process *(*processes)(struct weft_reader *r,
						uint32_t *n);
	uint32_t (*stream_process)(struct weft_reader *r, uint32_t stream);
	const struct weft_host *(*hosts)(struct weft_reader *r, uint32_t *n);
	/* the packets indexed (*all) and those opened (*done), added */
	void (*packets)(const struct weft_reader *r, uint64_t *done,
			uint64_t *all);
	void (*close)(struct weft_reader *r);
};

struct weft_reader {
	const struct weft__reader_ops *ops; /* its source: a ring or a merge */
	struct rmulti *multi;	 /* a merge's own state (multi.h), or NULL */
	struct weft_process one; /* weft_reader_processes of a ring */
	int ctf_absolute; /* weft_ctf_write: a run's ring, clock aligned */
	int have_mach;	  /* 1.3: the machine block (below) was read */
	uint8_t boot[16];
	int64_t timens; /* its time namespace's CLOCK_MONOTONIC offset */
	struct rsrc src;
	struct weft__pf *pf; /* reads packets ahead; shared in a merge */
	int pf_own;	     /* closed with this reader */
	uint8_t *owned;	     /* standard input, read */
	const uint8_t *hdr;  /* the header region (header_size bytes) */
	uint8_t *hdrcopy;    /* files: its copy, refreshed while live */
	unsigned flags;
	int live;   /* a writer holds the ring: copy packets by the protocol */
	int shrunk; /* the file was found shorter than it was (reported once) */
	uint32_t ahead; /* indexing a file: the slot whose header was read
			   with the trailer before it (packets.c) */
	struct rhdr rh;
	struct weft_trace_info info;
	struct weft_stream_info *sinfo;
	const char **names; /* names_cap entries, info.nnames loaded */
	struct namebuf *namebufs;
	uint32_t names_missing; /* the first name not loaded yet */
	struct rstream *st;
	uint32_t nst;
	uint32_t *heap;
	uint32_t nheap;
	int started;
	uint64_t mult; /* ns per tick << 32 */
	struct weft_problem prob[MAX_PROBLEMS];
	unsigned nprob;
	char *textbuf; /* the text of the event returned, when it is copied */
	/* (32: any compact header's id; SH_GENERIC past WEFT_EV_COUNT) */
	uint8_t shape[32];
	/* weft_reader_on_progress: called every WEFT__PROGRESS_EVERY
	 * events, and at the end of the input */
	void (*progress)(void *arg, uint64_t events, double fraction);
	void *progress_arg;
	uint64_t progress_n;
	int progress_end;
	/* events of one stream decoded ahead (reader.c, refill()):
	 * batch[bi..bn) are still to be returned; all were counted when
	 * decoded but batch[bu..bn) (uncount()); bstream: their stream,
	 * blast: its last_ts before them.  Of the events returned, a ring
	 * reads again only `ts` and `type`: a merge makes the events it
	 * takes from a ring's batch its own there (merge.c, gather()), and
	 * a merge's batch is a part of its ring's */
	struct weft_event *batch;
	uint32_t bi, bn, bu, bstream;
	uint64_t blast;
};

/* diag.c */
__attribute__((format(printf, 3, 4))) void
weft__problem(struct weft_reader *r, uint64_t off, const char *fmt, ...);
__attribute__((format(printf, 4, 5))) int
weft__diag(struct weft_diag *d, int err, uint64_t off, const char *fmt, ...);

/* reader.c: a ring's source; a ring's reader opened from a regular file
 * (`path`), from memory (`own`: freed with the reader), or all freed
 * (what a merge's close calls too, its ring fields empty). */
extern const struct weft__reader_ops weft__ring_ops;
int weft__ring_open(struct weft_reader **out, const char *path, unsigned flags,
		    struct weft_diag *d);
int weft__ring_open_mem(struct weft_reader **out, const void *data, size_t len,
			int own, unsigned flags, struct weft_diag *d);
void weft__ring_free(struct weft_reader *r);

/* header.c */
/* Opens `path`, a regular file, and checks its header: src->fd is then
 * open (close it).  Returns 0 or a negative code with `diag` filled. */
int weft__open_file_header(struct rsrc *src, const char *path, struct rhdr *rh,
			   struct weft_diag *diag);
/* A ring's name `id` ("" for none), a live ring's tables read again when
 * it is new. */
const char *weft__ring_name(struct weft_reader *r, uint32_t id);
int weft__load_tables(struct weft_reader *r);
int weft__load_names(struct weft_reader *r);
/* Files: reads the header region again (a live writer appends to its
 * tables).  Returns 0 or a negative code. */
int weft__hdr_reload(struct weft_reader *r);
void weft__setup_clock(struct weft_reader *r);
/* 1.3: the machine block (host, boot id, time namespace) into r->info and
 * r->have_mach...; a block out of bounds is a problem, and ignored. */
void weft__load_machine(struct weft_reader *r);
/* The ring's clock readings (up to `cap`, in the order they were taken;
 * a slot being rewritten is left out).  Returns how many. */
unsigned weft__ring_tuples(const struct weft_reader *r,
			   struct weft__ctuple *out, unsigned cap);
/* Follow mode: fills sinfo[i] for a stream registered since. */
void weft__stream_info(struct weft_reader *r, uint32_t i);

/* reader.c: reads input that is not a regular file (a pipe, standard
 * input: `fd`) to the size its header declares, a ring's or a bundle's:
 * *out (malloc'ed) and *len; *bundle says which. */
int weft__slurp(int fd, uint8_t **out, size_t *len, int *bundle,
		struct weft_diag *d);

/* ctf.c: a ring written as CTF (weft_ctf_write). */
int weft__ring_ctf(struct weft_reader *r, const char *dir, struct weft_diag *d);

/* packets.c */
/* A ring's consistent copy (weft_reader_copy). */
int weft__ring_copy(struct weft_reader *r, unsigned flags, void **out,
		    size_t *len, uint64_t *torn);
int weft__index_ring(struct weft_reader *r, int refresh);
/* Whether a copy of packet p's slot (content bytes, as
 * weft__packet_copy returned) is still the packet that was indexed: the
 * same trace, stream, sequence number and start, its content in bounds.
 * The generation is compared by the caller. */
int weft__same_packet(const struct weft_reader *r, const struct rpacket *p,
		      const uint8_t *copy, long content);
/* A file that shrank while read: reported once, as a problem (a finished
 * file) or with the packet counted torn (a live ring). */
void weft__lost_packet(struct weft_reader *r, uint32_t stream, uint64_t off);

/* A 64-bit key spread over every bit (MurmurHash3's finalizer), for hash
 * tables that take its low bits: ids of a merged run differ in their top
 * 16 bits (each ring's tag), which a multiplicative hash's middle bits
 * never see (the model's table put a run's 110,000 threads in a dozen
 * chains so; it takes the product's top bits now). */
static inline uint64_t weft__mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xFF51AFD7ED558CCDull;
	x ^= x >> 33;
	x *= 0xC4CEB9FE1A85EC53ull;
	x ^= x >> 33;
	return x;
}

/* Ticks to ns since the origin (weft_reader_ns, inline for the merge).
 * An event before the origin is rare (the clock anchor is taken at
 * weft_start): the common case falls straight through. */
static inline int64_t weft__ns_at(uint64_t o, uint64_t mult, uint64_t t)
{
	if (__builtin_expect(t >= o, 1))
		return (int64_t)(((unsigned __int128)(t - o) * mult) >> 32);
	return -(int64_t)(((unsigned __int128)(o - t) * mult) >> 32);
}

static inline int64_t weft__ns(const struct weft_reader *r, uint64_t t)
{
	return weft__ns_at(r->info.origin_ticks, r->mult, t);
}

#endif
