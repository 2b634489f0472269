/* SPDX-License-Identifier: MIT */
/*
 * record.h - libweft's recorder: what its files share.
 *
 *   ring.c    the ring: its layout (a pure function), making its file,
 *             its header; weft_start, weft_stop
 *   names.c   interning names into the ring's name table
 *   events.c  the hot path: streams, packets, the event encoders
 *             (generated from the event table)
 *   env.c     start-up from the environment (WEFT_FILE...), fork and exec
 *   clock.c   the trace clock
 *
 * Everything here is internal (hidden in libweft).  The hot path's helpers
 * stay static inline in events.c, so each encoder is compiled with them.
 */
#ifndef WEFT_RECORD_H
#define WEFT_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../common/format.h"

#define WEFT__HIDDEN __attribute__((visibility("hidden")))

/* ------------------------------------------------------------- clock */

extern WEFT__HIDDEN int weft__clock_kind;
extern WEFT__HIDDEN uint64_t weft__manual_ns;

WEFT__HIDDEN uint64_t weft__mono_ticks(void);

static inline uint64_t weft__clock_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (__builtin_expect(weft__clock_kind == WEFT_CLOCK_TSC, 1))
		return __builtin_ia32_rdtsc();
#endif
	return weft__mono_ticks();
}

WEFT__HIDDEN void weft__anchor_take(struct weft__anchor *a);
/* When the process loads: the start of the TSC's calibration. */
WEFT__HIDDEN void weft__clock_early(void);
/* clock: WEFT_CLOCK_TSC (if usable), _MONO or _PROGRAM wanted. */
WEFT__HIDDEN uint64_t weft__clock_init(int clock, struct weft__anchor *a0);

/* ------------------------------------------------------------- state */

/* Per OS thread, the names it used last, by address: kinds, reasons,
 * counters and the labels an integration interns (a few per handle).
 * Two-way set associative. */
#define WEFT__NAME_CACHE 64

/* An OS thread's stream (process-private, in the ring's private area). */
struct weft__thr {
	unsigned gen;  /* generation this state belongs to */
	unsigned busy; /* inside an event: a re-entrant call is dropped */
	unsigned close_pending; /* one was: the packet takes no more
				   events (events.c, enter()) */
	uint8_t *pk;		/* current packet, or NULL */
	uint8_t *pos;		/* next event */
	uint8_t *end;		/* packet end, trailer excluded */
	uint64_t last; /* timestamp of the last event (or packet begin) */
	int burst;     /* 0: none; 1: begun (weft_burst_begin), its first event
			  is still to come; 2: events reuse `last` */
	uint64_t cur;  /* current async thread */
	uint64_t seq;  /* next packet_seq_num */
	uint64_t dropped; /* events dropped by this thread, outside signals */
	uint64_t nested;  /* events dropped by re-entry (signal handlers) */
	uint32_t pkidx;
	uint32_t stream;
	struct weft__fstream *fs;
	struct {
		const char *p;
		uint32_t id;
	} nc[WEFT__NAME_CACHE]; /* name cache: address -> id */
};

/* The name hash: address -> name id. */
struct weft__nslot {
	const char *key; /* (atomic) */
	uint32_t id;	 /* (atomic) 0 while being interned */
};

/* The recorder's state, one per process. */
struct weft__rec {
	/* the ring (valid while state is RING_READY) */
	struct weft__fhdr *hdr;
	uint8_t *base;
	size_t size;
	uint8_t *packets;
	uint32_t psize, npk;
	uint8_t *owner;		   /* per packet, 1 while a stream writes it */
	struct weft__thr *thrs;	   /* per stream slot */
	struct weft__nslot *nhash; /* 2 * names_cap slots */
	uint32_t nhash_cap;
	size_t priv_size;
	void *priv;
	/* A forked child's copies of its parent's ring and private state,
	 * unmapped when it makes its own ring rather than at fork: most
	 * children exec at once, which unmaps them anyway (two system calls
	 * fewer in every fork of a traced program). */
	void *stale_base, *stale_priv;
	size_t stale_size, stale_priv_size;
	int fd;
	unsigned flags;
	uint32_t text_cap; /* longest text an event may carry */
	unsigned gen;	   /* the generation tracing (weft__on) */
	int state;	   /* (atomic) RING_* */
	/* started from the environment */
	int from_env;
	char env_path[4096];
	size_t env_size;
	unsigned env_flags;
	int env_root;	      /* WEFT_ROOT_PID */
	uint64_t env_session; /* WEFT_SESSION, or weft record's; 0: none */
};
extern WEFT__HIDDEN struct weft__rec weft__g;

/* weft__g.state: is there a ring?  Started from the environment, a
 * process makes its ring when it records its first event: a child that
 * never records (a shell, `sleep`) costs no file and no time. */
enum {
	RING_NONE,     /* not tracing */
	RING_PENDING,  /* tracing from the environment, no event yet */
	RING_CREATING, /* an OS thread is making the ring */
	RING_READY,    /* weft__g's ring fields are valid */
};

/* A new generation number for weft__on (never 0). */
WEFT__HIDDEN unsigned weft__next_gen(void);

/* ------------------------------------------------------------- ring.c */

/* Where each part of a ring of `bytes` bytes goes. */
struct weft__layout {
	uint32_t psize, npk, hsize;
	uint32_t streams_cap, names_cap, strings_cap, meta_cap;
	uint32_t meta_off, streams_off, names_off, strings_off;
	size_t size; /* <= bytes: the header and whole packets */
};

/* The layout of a ring of `bytes` bytes (0: WEFT_DEFAULT_SIZE): pure.
 * Returns 0, WEFT_ETOOSMALL or WEFT_ETOOBIG. */
WEFT__HIDDEN int weft__ring_layout(uint64_t bytes, struct weft__layout *l);

/* Makes a ring at `name` (weft__resolve_target's rules) and sets up weft__g
 * for it; tracing is not on yet.  `session` goes in its header. */
WEFT__HIDDEN int weft__ring_create(const char *name, size_t bytes,
				   unsigned flags, uint64_t session);

/* Where a ring named `path` goes: `path`, or the file a symbolic link the
 * caller owns names.  0, WEFT_ELINK (a link another user owns),
 * WEFT_ENOTRING (a regular file that is not a ring), WEFT_ENOTREG
 * (something that is not a regular file), or -errno. */
WEFT__HIDDEN int weft__resolve_target(const char *path, char *out, size_t cap);

/* What is at `path` (resolved): a ring, whose, held by a live writer? */
struct weft__ring_id {
	int exists, held;
	uint32_t pid;
	uint64_t session;
};
WEFT__HIDDEN void weft__ring_id(const char *path, struct weft__ring_id *r);

/* Refreshes the header's clock anchor (a seqlock; skipped when another
 * thread is at it). */
WEFT__HIDDEN void weft__refresh_anchor(void);

WEFT__HIDDEN void weft__random_bytes(void *buf, size_t n);

/* ------------------------------------------------------------- names.c */

/* Interns s by its address.  0 when the table is full: counted as a lost
 * name, unless `quiet` (the caller records the text some other way). */
WEFT__HIDDEN uint32_t weft__intern_slow(struct weft__thr *t, const char *s,
					int quiet);

/* Length of the longest prefix of s, at most cap bytes, that does not cut
 * a UTF-8 sequence (s holds more than cap bytes). */
static inline size_t weft__utf8_cut(const char *s, size_t cap)
{
	size_t n = cap;
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

/* ------------------------------------------------------------- events.c */

/* Once per process, before any stream: the key that closes a stream's
 * packet when its OS thread exits. */
WEFT__HIDDEN void weft__streams_init(void);
/* The calling OS thread closes its packet (weft_stop). */
WEFT__HIDDEN void weft__stream_close_own(unsigned gen);
/* After fork: the child's one OS thread has no stream. */
WEFT__HIDDEN void weft__stream_forget(void);
/* A text the preloaded shims cut: counted in the caller's stream. */
WEFT__HIDDEN void weft__count_truncated(void);

/* ------------------------------------------------------------- env.c */

/* The first event of a process started from the environment: makes its
 * ring.  1 when the ring is ready. */
WEFT__HIDDEN int weft__ring_from_env(void);
/* Events a signal handler recorded on the OS thread that was making the
 * ring (dropped), to count in its stream. */
extern WEFT__HIDDEN __thread uint64_t weft__early_nested;

/* ------------------------------------------------------------- run.c */

/* A process of a run (WEFT_RUN=dir): the manifest's proc line, and its
 * fork and exit lines from now on (docs/format.md, "Runs"). */
WEFT__HIDDEN void weft__run_init(const char *dir, int pid, int argc,
				 char **argv);
/* Fork handlers (env.c registers them, with its own): the thread that
 * forks, and in the child its fork line. */
WEFT__HIDDEN void weft__run_prepare(void);
WEFT__HIDDEN void weft__run_child(void);
/* Its ring `name` is made: the ring line. */
WEFT__HIDDEN void weft__run_ring(const char *name);

/* ------------------------------------------------------------- machine.c */

/* The machine block of a new ring's header, with its first clock
 * reading. */
WEFT__HIDDEN void weft__machine_init(struct weft__fhdr *h);
/* Another reading of the clocks: when `force`, or about 10 s after the
 * last one. */
WEFT__HIDDEN void weft__clock_tuple(int force);

/* ------------------------------------------------------- fault injection */

#ifdef WEFT_TEST_HOOKS
/* Test builds only (the static library weft-test): when a hook is set to
 * N > 0, the Nth next call of that system call in start-up fails with
 * weft__fault_errno, and the hook drops to 0 (so a test sees it fired).
 * Only start-up reads them, so they cost nothing while recording. */
extern int weft__fault_tmpfile, weft__fault_open, weft__fault_ftruncate,
	weft__fault_fallocate, weft__fault_mmap, weft__fault_link,
	weft__fault_rename, weft__fault_errno;
WEFT__HIDDEN int weft__fault(int *n);
#define FAULT(name) weft__fault(&weft__fault_##name)
#else
#define FAULT(name) 0
#endif

#endif
