/* SPDX-License-Identifier: MIT */
/*
 * keep-format.h - the files of a kept directory (`weft keep`, `weft record
 * --keep`), shared by the keeper (tools/keep.c) and the reader of kept
 * directories (src/read/kept.c).  docs/keep.md explains them.
 *
 * A chunk holds packets of one ring.  It is a zstd file (RFC 8878) whose
 * frames, decompressed one after the other, are a compact ring file (the
 * header region of the ring as it was when the chunk was closed, with
 * its geometry patched to the packets the chunk holds, then the packets):
 *
 *   frame 0        the header region (header_size bytes)
 *   frames 1..F    packets, a few per frame, in the order they were kept
 *   last frame     a skippable frame (magic WEFT_KEEP_SKIPPABLE) holding
 *                  the index: struct weft__kidx, F struct weft__kframe,
 *                  npackets struct weft__kpk, ncarry struct weft__kcarry
 *                  (version 2), then struct weft__ktail
 *
 * so `zstd -d < CHUNK > RING` gives a ring any weft command reads, and a
 * reader finds the index from the file's last 16 bytes (the tail) without
 * decompressing anything.  All integers are little-endian.
 */
#ifndef WEFT_KEEP_FORMAT_H
#define WEFT_KEEP_FORMAT_H

#include <stdint.h>

#define WEFT_KEEP_SKIPPABLE 0x184D2A5Eu /* zstd skippable frame, variant E */
#define WEFT_KEEP_IDX_MAGIC "WEFTKIDX"
#define WEFT_KEEP_END_MAGIC "WEFTKEND"
/* 2: the carried async threads (1: none); 3: the async threads its
 * events name (the index by async thread) */
#define WEFT_KEEP_VERSION 3
#define WEFT_KEEP_VERSION_MIN 1
#define WEFT_KEEP_NAME 64 /* a ring's name in its run (NUL-padded) */

/* The log of a kept directory: its presence makes a directory a kept
 * one.  Text, one fact a line (see docs/keep.md). */
#define WEFT_KEEP_LOG "keep.log"
/* Chunk files: "%08llu.RING.zst" (a number over the whole directory, in
 * the order chunks were closed, then the ring's name in its run); being
 * written: ".tmp-" before that, renamed into place when complete. */
#define WEFT_KEEP_SUFFIX ".zst"
#define WEFT_KEEP_TMP ".tmp-"

struct weft__kidx {
	char magic[8]; /* WEFT_KEEP_IDX_MAGIC */
	uint32_t version;
	uint32_t nframes;
	uint32_t npackets;
	uint32_t packet_size;
	uint32_t header_size; /* frame 0's size, decompressed */
	int32_t level;	      /* zstd level it was compressed with */
	uint8_t uuid[16];     /* the ring's */
	char ring[WEFT_KEEP_NAME];
	uint64_t number;	   /* the chunk's number in the directory */
	uint64_t gen_min, gen_max; /* generations of its packets */
	uint64_t ts_min, ts_max;   /* ticks: first packet begin, last end */
	uint64_t raw_bytes;	   /* header + packets, decompressed */
	int64_t real_closed;	   /* CLOCK_REALTIME when it was closed */
	uint32_t ncarry;	   /* struct weft__kcarry (version 2) */
	uint32_t carry_untracked;  /* threads alive not carried (over
				      WEFT_KEEP_CARRY_MAX) */
	uint32_t layout;	   /* WEFT_KEEP_PLAIN or WEFT_KEEP_PACKED */
	uint32_t pad;
	uint64_t nthreads;  /* version 3: the async threads its events name
			       (the index by async thread), after the
			       carried threads: their ids ascending, as
			       LEB128 varints, the first, then each one's
			       difference from the one before */
	uint64_t thr_bytes; /* their bytes */
};

/* A frame of packets decompresses to the packets themselves (PLAIN), or
 * to a packed block (PACKED) of the same packets, columns apart, that a
 * reader puts back byte for byte (docs/keep.md, "Packed layout"):
 *   "WKP1", u32 npk, u32 len[6], then the columns:
 *   0 per packet: u8 mode (1 packed, 0 raw); packed: its first
 *     WEFT_PK_EVENTS bytes, u32 content (bytes), u32 events
 *   1 per event: its id (31: an extended header)
 *   2 per compact event: its time after the one before (varint)
 *   3 per ID field: zigzag of its difference from the packet's previous
 *     ID field (varint)
 *   4 the rest, in order: an extended header's id (u32) and time (u64),
 *     NAME (u16), I64/U64 (u64), TRUNC (u8), STR (with its NUL)
 *   5 raw packets (mode 0: a packet not packed as it was), whole
 * Past its content a packed packet is zeros, then its trailer: its
 * generation. */
#define WEFT_KEEP_PLAIN 0
#define WEFT_KEEP_PACKED 1
#define WEFT_KEEP_PACK_MAGIC "WKP1"
#define WEFT_KEEP_PACK_COLS 6

/* A frame of packets: where it is, and what it holds. */
struct weft__kframe {
	uint64_t off, csize; /* in the file, compressed */
	uint32_t first, npk; /* its packets: index in the packet list */
	uint64_t gen_min, gen_max;
	uint64_t ts_min, ts_max;
};

/* A packet, in the order the frames hold them. */
struct weft__kpk {
	uint64_t gen;
	uint64_t seq; /* packet_seq_num */
	uint32_t stream;
	uint32_t open; /* 1: copied while still open (its committed part) */
	uint64_t ts_begin, ts_end;
};

/* An async thread alive at the chunk's start (created, not yet resolved,
 * failed, cancelled or become another), as the keeper saw it in the
 * packets it kept before this chunk: readers of the chunk alone make it
 * events at the chunk's start (docs/keep.md, "Carried threads"). */
#define WEFT_KEEP_LABEL 64	  /* a text label, cut (ltrunc) to fit */
#define WEFT_KEEP_CARRY_MAX 65536 /* threads alive a ring carries */
enum { WEFT_KEEP_CREATED = 0, WEFT_KEEP_RUNNING = 1, WEFT_KEEP_WAITING = 2 };
struct weft__kcarry {
	uint64_t id;	  /* the async thread */
	uint64_t creator; /* current on the OS thread that created it */
	uint64_t source;  /* waiting: what its unanswered try_read named */
	uint64_t created; /* ticks: its creation */
	uint32_t stream;  /* the stream (OS thread) that created it */
	uint16_t kind;	  /* its kind: a name of the ring's name table */
	uint16_t lname;	  /* its label as a name (create_label), or 0 */
	uint8_t state;	  /* WEFT_KEEP_CREATED (never ran), RUNNING (the
			     current thread of a stream), WAITING (ran) */
	uint8_t ltrunc;	  /* its text label was cut */
	uint8_t pad[6];
	char label[WEFT_KEEP_LABEL]; /* its latest text label, or "" */
};

struct weft__ktail {
	uint64_t index_len; /* the skippable frame's payload, with the tail */
	char magic[8];	    /* WEFT_KEEP_END_MAGIC */
};

/* Whether a chunk's async threads (version 3: `n` ids ascending, as
 * varint differences in `bytes` bytes at `tv`, read as they are on disk)
 * hold `id`: the writer is tools/keep.c, the readers src/read/kept.c and
 * `weft keep --thread`. */
static inline int weft__kthreads_has(const uint8_t *tv, uint64_t bytes,
				     uint64_t n, uint64_t id)
{
	uint64_t v = 0, k = 0;
	size_t at = 0;
	while (k < n && at < bytes) {
		uint64_t d = 0;
		unsigned sh = 0;
		while (at < bytes && sh < 64) {
			uint8_t b = tv[at++];
			d |= (uint64_t)(b & 0x7F) << sh;
			sh += 7;
			if (!(b & 0x80))
				break;
		}
		v += d;
		k++;
		if (v >= id)
			return v == id;
	}
	return 0;
}

#endif /* WEFT_KEEP_FORMAT_H */
