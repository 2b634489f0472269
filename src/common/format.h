/* SPDX-License-Identifier: MIT */
/*
 * format.h - the layout of a weft ring file, shared by writer and reader.
 *
 * A ring file is:
 *
 *   [file header | CTF metadata text | stream table | name table | strings]
 *   [packet 0][packet 1] ... [packet N-1]
 *
 * The header region is written once at start, except for append-only
 * tables (streams, names) whose entries publish themselves with a release
 * store of a "valid" word, a few atomic counters, and the clock anchor,
 * which is a seqlock.
 *
 * Every packet is a CTF 1.8 packet (see metadata.c): a packet header and
 * context, events, then free space, and in its last 8 bytes a *trailer*
 * that repeats the packet's generation number.  Packets are shared by all
 * streams: a writer that needs one takes the next generation number from
 * the header's global counter and the slot (generation - 1) % npackets.
 *
 * Commit protocol, and why a reader never misreads:
 *  - opening a packet: trailer := 0; release fence; header fields; gen :=
 *    g (release); trailer := g (release);
 *  - appending an event: bytes; content_size := new end (release);
 *  - closing it: events_discarded; timestamp_end (release);
 *  - a reader reads gen (acquire) before any other field (it is the first
 *    mutable word, so even a plain sequential copy such as cp(1) reads it
 *    first), timestamp_end (seen closed: the content is final),
 *    content_size, the events below content_size, then, after an
 *    acquire fence, the trailer.  The copy is valid iff gen == trailer != 0.
 *    A packet reopened during the copy fails that test (its trailer went to
 *    0 before any other byte changed), and is skipped and counted.
 *
 * All integers are little-endian.
 */
#ifndef WEFT_FORMAT_H
#define WEFT_FORMAT_H

#include <stdint.h>

#define WEFT_FILE_MAGIC "WEFTRING"
#define WEFT_FORMAT_MAJOR 1
#define WEFT_FORMAT_MINOR 3
#define WEFT_CTF_MAGIC 0xC1FC1FC1u

#define WEFT_CLOCK_TSC 1
#define WEFT_CLOCK_MONO 2
#define WEFT_CLOCK_PROGRAM 3 /* set by the program (WEFT_CLOCK_MANUAL), in ns */

#define WEFT_STATE_RUNNING 1
#define WEFT_STATE_STOPPED 2

struct weft__anchor {
	uint64_t ticks;	 /* trace clock */
	int64_t mono_ns; /* CLOCK_MONOTONIC at the same instant */
	int64_t real_ns; /* CLOCK_REALTIME at the same instant */
};

/* At offset 0.  Fields marked (atomic) change while the writer runs. */
struct weft__fhdr {
	char magic[8];	       /* WEFT_FILE_MAGIC */
	uint16_t major, minor; /* format version */
	uint32_t header_size;  /* offset of packet 0 */
	uint64_t file_size;
	uint32_t packet_size; /* bytes, a power of two */
	uint32_t npackets;
	uint32_t mode;	     /* 0 overwrite, 1 discard */
	uint32_t clock_kind; /* WEFT_CLOCK_* */
	uint8_t uuid[16];
	uint64_t freq;		/* trace clock Hz, calibrated at start */
	struct weft__anchor a0; /* taken at start */
	uint64_t a1_seq;	/* (atomic) seqlock of a1: odd while written */
	struct weft__anchor a1; /* latest anchor, refreshed on packet switches */
	uint32_t pid, ppid;
	char comm[32];	  /* program name */
	uint64_t session; /* WEFT_SESSION of the environment, or 0 */
	uint32_t metadata_off, metadata_len;
	uint32_t streams_off, streams_cap;
	uint32_t names_off, names_cap;
	uint32_t strings_off, strings_cap;
	uint32_t nstreams;	 /* (atomic) stream slots taken */
	uint32_t nnames;	 /* (atomic) name slots taken */
	uint32_t strings_used;	 /* (atomic) */
	uint32_t state;		 /* (atomic) WEFT_STATE_* */
	uint64_t next_gen;	 /* (atomic) generations handed out so far;
				   | WEFT_GEN_STOPPED from a clean stop on */
	uint64_t lost_no_stream; /* (atomic) events dropped: stream table full */
	uint64_t lost_names;	 /* (atomic) names not interned: table full */
	uint64_t stop_ticks;	 /* clock at weft_stop(), or 0 */
	/* 1.3: the machine block (struct weft__fmach), or 0 (before 1.3) */
	uint32_t mach_off, mach_size;
	uint8_t reserved[56];
};

/* next_gen's top bit: set by weft_stop(), with the same compare-and-swap
 * that reads how many packets were ever opened; a writer that finds it
 * set opens no packet.  A ring that never went round has then been cut
 * to those packets: npackets and file_size say how many are left (a clean
 * stop gives the unused blocks back; `weft compact` does it for a ring
 * whose writer died).  The low bits stop meaning "generations handed out"
 * (writers still add to them). */
#define WEFT_GEN_STOPPED (1ull << 63)

/* 1.3: one reading of the clocks, each pair read as a tight sandwich
 * (the tightest of a few tries): ticks between two CLOCK_MONOTONIC
 * reads, CLOCK_REALTIME between two more.  A slot is a seqlock of its
 * own: `seq` is odd while it is written. */
struct weft__ctuple {
	uint64_t seq;	      /* (atomic) */
	uint64_t ticks;	      /* the trace clock */
	int64_t mono_ns;      /* CLOCK_MONOTONIC at ticks */
	int64_t real_ns;      /* CLOCK_REALTIME at mono_ns */
	uint32_t tick_err_ns; /* half the width of each sandwich: how far */
	uint32_t real_err_ns; /* the pairing may be off */
};

#define WEFT_CLOCK_TUPLES 64
#define WEFT_MACH_OFF 1024 /* in the header page, after the file header */

/* 1.3: the machine a ring was written on, and its clocks over time: at
 * the start (slot 0), then about every 10 s and at the stop (slots 1..N-1,
 * round robin: the latest are kept).  What merging traces of several
 * machines needs: which rings share a CLOCK_MONOTONIC (the same boot id,
 * once each is moved out of its time namespace) and how each relates to
 * CLOCK_REALTIME. */
struct weft__fmach {
	char host[72];		/* host name (gethostname), NUL-terminated */
	uint8_t boot_id[16];	/* /proc/sys/kernel/random/boot_id; 0: none */
	int64_t timens_mono_ns; /* CLOCK_MONOTONIC of the machine minus the
				    writer's (its time namespace's offset) */
	uint32_t ntuples;	/* (atomic) tuples taken so far */
	uint32_t tuples_cap;	/* WEFT_CLOCK_TUPLES */
	uint32_t lock;		/* (atomic) held while a tuple is taken */
	uint32_t pad;
	struct weft__ctuple t[WEFT_CLOCK_TUPLES];
};
#define WEFT__FHDR_FITS (sizeof(struct weft__fhdr) <= WEFT_MACH_OFF)
_Static_assert(WEFT__FHDR_FITS, "the file header fits before the machine");
#undef WEFT__FHDR_FITS
#define WEFT__FMACH_FITS (WEFT_MACH_OFF + sizeof(struct weft__fmach) <= 4096)
_Static_assert(WEFT__FMACH_FITS, "the machine block fits in the header page");
#undef WEFT__FMACH_FITS

/* One per OS thread that recorded, in the stream table. */
struct weft__fstream {
	uint32_t valid; /* (atomic) 1 once the entry is written */
	uint32_t tid;	/* OS thread id */
	uint64_t start_ticks;
	char name[16];		 /* thread name at registration */
	uint64_t dropped_full;	 /* (atomic) events dropped: no packet free */
	uint64_t dropped_nested; /* (atomic) events dropped: signal re-entry */
	uint64_t truncated;	 /* (atomic) texts cut to fit a packet */
	uint64_t packets;	 /* (atomic) packets opened */
};

/* One per interned name; `len` is published last with WEFT_NAME_VALID. */
struct weft__fname {
	uint32_t off; /* in the strings area */
	uint32_t len; /* (atomic) length | WEFT_NAME_VALID */
};
#define WEFT_NAME_VALID 0x80000000u
#define WEFT_NAME_MAX 255

/* Packet layout (offsets in bytes from the packet start). */
#define WEFT_PK_MAGIC 0	     /* u32 0xC1FC1FC1 */
#define WEFT_PK_UUID 4	     /* u8[16] */
#define WEFT_PK_VERSION 20   /* u32 format major<<16|minor, constant */
#define WEFT_PK_GEN 24	     /* u64 generation, written last */
#define WEFT_PK_STREAM 32    /* u64 stream_instance_id */
#define WEFT_PK_TS_BEGIN 40  /* u64 */
#define WEFT_PK_TS_END 48    /* u64, 0 while the packet is open */
#define WEFT_PK_CONTENT 56   /* u64 content_size in bits (the commit) */
#define WEFT_PK_SIZE 64	     /* u64 packet_size in bits */
#define WEFT_PK_SEQ 72	     /* u64 packet_seq_num, per stream */
#define WEFT_PK_DISCARDED 80 /* u64 events_discarded, per stream total */
#define WEFT_PK_CURRENT 88   /* u64 current async thread at packet start */
#define WEFT_PK_TID 96	     /* u32 OS thread id */
#define WEFT_PK_EVENTS 100   /* first event */
#define WEFT_PK_TRAILER 8    /* trailer: last 8 bytes hold the generation */

/* Compact event header: 5-bit id + 27 low bits of the timestamp; id 31
 * escapes to an extended header: 1 byte (31), u32 id, u64 timestamp. */
#define WEFT_EH_COMPACT_BITS 27
#define WEFT_EH_EXTENDED 31
#define WEFT_EH_EXT_SIZE 13

#define WEFT_MIN_PACKET 1024u
#define WEFT_MAX_PACKET 65536u

/* Event table as data (expanded from WEFT_EVENT_MAP). */
struct weft__evspec {
	const char *name;
	const char *doc;
	/* 1: the event makes its first ID field the stream's current async
	 * thread (the `cur` column) */
	unsigned char sets_current;
	struct {
		unsigned char type; /* enum weft_field_type, WEFT_FT_END ends */
		const char *name;
	} f[4];
};
/* Linked into libweft and into libweft-read (from the internal static
 * library weft-common), and exported by neither: each has its own copy. */
#define WEFT__SHARED __attribute__((visibility("hidden")))
extern WEFT__SHARED const struct weft__evspec weft__events[];

/* Metadata generation (metadata.c). */
struct weft__meta_params {
	const uint8_t *uuid;
	uint64_t freq;
	int64_t origin_real_ns; /* CLOCK_REALTIME at ticks origin_ticks */
	uint64_t origin_ticks;
	int clock_kind;
	/* optional: names for the NAME enum (index = id), NULL entries skipped */
	const char *const *names;
	uint32_t nnames;
	const char *hostname;
	const char *comm;
	uint32_t pid;
	/* 0: the ring's packets (with weft_version and weft_gen in the packet
	 * header); 1: the packets `weft ctf` writes (WEFT_XP_* below). */
	int export_layout;
	/* 1: the clock's offset places it on a time axis shared with other
	 * traces (`weft ctf` of a run: every process's trace, aligned), so
	 * CTF readers may correlate them (absolute = true). */
	int absolute;
};

/* Packet layout of a `weft ctf` export: the ring's header without its two
 * private words (CTF readers warn about unknown packet header fields). */
#define WEFT_XP_STREAM 20  /* u64 stream_instance_id */
#define WEFT_XP_CONTEXT 28 /* ring offsets WEFT_PK_TS_BEGIN..TID follow */
#define WEFT_XP_EVENTS 88
#define WEFT_XP_SHIFT (WEFT_PK_EVENTS - WEFT_XP_EVENTS)
/* Writes TSDL text into buf (NUL-terminated); returns the length it needs
 * (excluding the NUL), like snprintf. */
WEFT__SHARED int weft__metadata(char *buf, unsigned cap,
				const struct weft__meta_params *p);

/* UUID text form, 36 chars + NUL. */
WEFT__SHARED void weft__uuid_str(const uint8_t *u, char out[37]);

static inline uint64_t weft__ld64(const unsigned char *p)
{
	uint64_t v;
	__builtin_memcpy(&v, p, 8);
	return v;
}
static inline uint32_t weft__ld32(const unsigned char *p)
{
	uint32_t v;
	__builtin_memcpy(&v, p, 4);
	return v;
}
static inline uint16_t weft__ld16(const unsigned char *p)
{
	uint16_t v;
	__builtin_memcpy(&v, p, 2);
	return v;
}

#endif /* WEFT_FORMAT_H */
