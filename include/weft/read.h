/* SPDX-License-Identifier: MIT */
/*
 * read.h - reading weft traces (libweft-read).
 *
 * A reader opens a ring file (finished, or still being written by a live
 * program, or a copy), checks every byte it uses, and returns the events
 * of all streams merged in time order, with every loss reported where it
 * happened (as WEFT_EV_LOSS pseudo-events) and counted.
 *
 * Nothing here prints, exits or aborts on bad input: problems come back
 * as codes, and the offsets of corrupt bytes are kept in a list of
 * problems.  A reader is used by one thread at a time; different readers
 * are independent.
 */
#ifndef WEFT_READ_H
#define WEFT_READ_H

#include <stddef.h>
#include <stdint.h>

#include "weft/events.h"
#include "weft/weft.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A pseudo-event the reader inserts where events were lost:
 * ev.value = packets lost there (overwritten, dropped, torn or corrupt),
 * ev.id = events the writer declared discarded there. */
#define WEFT_EV_LOSS 63

/* ev.flags */
#define WEFT_EVF_TRUNCATED 1u /* the text was cut by the writer */
#define WEFT_EVF_PARTIAL                                                       \
	2u /* loss: the end of a packet is missing (an
				 unknown number of events), because the file
				 was copied inconsistently (cp(1) of a live
				 ring; weft snapshot never does this) */
#define WEFT_EVF_REPLACED                                                      \
	4u /* the text was not valid UTF-8: what was
				 invalid reads U+FFFD (weft_utf8_fix) */
#define WEFT_EVF_MESSAGE                                                       \
	8u /* a read that several traces merged show (a
				 message between processes): the actor read
				 the bytes thread `id` wrote at ns `value`
				 (docs/runs.md, "Arrows between processes") */
#define WEFT_EVF_MADE                                                          \
	16u /* made by the merge of several traces (a
				 process's creation, label and end; a message
				 between processes): no ring holds it, so it
				 has no clock ticks of its own (ts is 0) */
#define WEFT_EVF_CARRIED                                                       \
	32u /* a kept chunk read alone: the creation,
				 label or wait of an async thread alive at
				 the chunk's start, carried from the chunks
				 before it, at the time of its first packet
				 (docs/keep.md, "Carried threads") */

/*
 * One event.  Filled by weft_reader_next(); `text` points into the
 * reader's memory and stays valid until the next call on the reader.
 * Every text and name the reader hands out is valid UTF-8: invalid
 * sequences in what the program recorded read U+FFFD (the event's
 * WEFT_EVF_REPLACED flag says so for a text).
 */
struct weft_event {
	uint64_t ts;	  /* trace clock ticks */
	int64_t ns;	  /* nanoseconds since the trace origin (weft_start) */
	uint32_t stream;  /* stream (OS thread) index */
	uint16_t type;	  /* enum weft_event_type, or WEFT_EV_LOSS */
	uint16_t flags;	  /* WEFT_EVF_* */
	uint64_t actor;	  /* current async thread of the stream, before the
			    event (for run and resolve_run: the thread
			    switched from) */
	uint64_t id;	  /* first ID field (child, thread, source, target,
			    from, receiver), else 0 */
	uint64_t id2;	  /* second ID field (becomes: to), else 0 */
	uint32_t name;	  /* NAME field (kind, reason, counter, span, pause
			    kind), else 0 */
	uint32_t name2;	  /* second NAME field (create_label: label), else 0 */
	int64_t value;	  /* I64/U64 field (counter value or delta, pause
			    duration in ns; sent, received: chan), else 0 */
	const char *text; /* STR field (NUL-terminated), else NULL */
	uint32_t text_len;
	uint64_t offset; /* byte offset of the event in the file */
	int64_t value2;	 /* second and third I64/U64 fields (sent, */
	int64_t value3;	 /* received: offset, bytes), else 0 */
};

struct weft_losses {
	uint64_t packets_lost;	   /* missing from a stream's sequence */
	uint64_t packets_torn;	   /* rewritten while being read: skipped */
	uint64_t packets_corrupt;  /* failed validation: rest skipped */
	uint64_t events_discarded; /* the writer's declared drops */
	uint64_t events_nested;	   /* dropped: call from a signal handler */
	uint64_t texts_truncated;  /* texts cut to fit a packet */
};

struct weft_stream_info {
	uint32_t index;
	uint32_t tid;
	char name[17];
	uint64_t start_ticks;
	uint64_t events; /* events read from this stream */
	uint64_t first_ts, last_ts;
	struct weft_losses losses;
};

enum weft_writer_state {
	WEFT_WRITER_LIVE = 1,	 /* a process still holds the ring */
	WEFT_WRITER_STOPPED = 2, /* weft_stop() or normal exit */
	WEFT_WRITER_GONE = 3,	 /* no writer, never stopped: killed/crashed */
};

struct weft_trace_info {
	uint8_t uuid[16];
	char uuid_str[37];
	unsigned major, minor;
	uint32_t pid, ppid;
	char comm[33];
	uint64_t session;
	int clock_kind;		/* 1 TSC, 2 CLOCK_MONOTONIC, 3 manual (the
				      program's time, in ns) */
	uint64_t freq;		/* ticks per second (refined) */
	uint64_t origin_ticks;	/* ticks at weft_start */
	int64_t origin_real_ns; /* CLOCK_REALTIME at origin_ticks */
	uint32_t packet_size, npackets;
	int mode; /* 0 overwrite, 1 discard */
	uint64_t file_size;
	int writer; /* enum weft_writer_state */
	uint32_t nstreams;
	const struct weft_stream_info *streams;
	uint32_t nnames; /* names[0] is "" (no name) */
	const char *const *names;
	uint64_t lost_no_stream; /* events dropped: stream table full */
	uint64_t lost_names;	 /* names not interned: table full */
	uint64_t packets_used;	 /* valid packets found */
	/* Filled as events are read (complete after WEFT_EEOF): */
	uint64_t events;
	uint64_t counts[WEFT_EV_COUNT];
	uint64_t first_ts, last_ts;
	struct weft_losses losses; /* sum over streams */
	uint64_t problems;	   /* corruptions found (see below) */
	/* (format 1.3) the machine it was written on: "" when not known */
	char host[65];
	char boot_id[37];
};

/* Where and what: the problems found while reading (first 64 kept).
 * `offset` is a byte offset in the ring file `what` names, or one of: */
struct weft_problem {
	uint64_t offset;
	char what[120];
};
/* at no place in a ring (a bad line of a run's manifest): `what` says
 * where; counted in weft_trace_info.problems */
#define WEFT_PROBLEM_NO_OFFSET UINT64_MAX
/* not a corruption but what the reader did differently from what it was
 * given, said so (a ring given twice is read once); not counted */
#define WEFT_PROBLEM_NOTE (UINT64_MAX - 1)

enum weft_reader_flags {
	/* Keep returning new events as a live writer commits them: next()
	 * returns WEFT_EAGAIN when nothing new is there yet, and WEFT_EEOF
	 * once the writer has stopped or gone and everything is read.
	 * Events of one OS thread always come in order; across OS threads
	 * they are merged in time order among what had been committed when
	 * the reader last looked, so an event that an OS thread committed
	 * late (it was descheduled between reading the clock and
	 * committing) can come after a later event of another thread.  On a
	 * ring that loops faster than it is polled, packets overwritten
	 * before the reader saw them are reported as losses. */
	WEFT_READ_FOLLOW = 1 << 0,
	/* Read on the caller's thread only.  By default, a caller that goes
	 * through a file's events quickly (a packet in under 50 µs) has
	 * each stream's next packet copied in on a second thread while the
	 * current one is decoded (one for a reader and the rings merged
	 * with it, started at the first packet read ahead, joined by
	 * weft_reader_close; not with one CPU, for a live ring, or for
	 * input in memory; WEFT_READ_AHEAD=never in the environment: never,
	 * =always: at any pace).  The events are the same either way. */
	WEFT_READ_ONE_THREAD = 1 << 1,
};

/* Details of a failed open. */
struct weft_diag {
	uint64_t offset;
	char msg[200];
};

struct weft_reader;

/*
 * weft_reader_open - open the trace at `path`.  On success *out is a new
 * reader (free with weft_reader_close).  On failure returns a negative
 * code (WEFT_ENOTTRACE, WEFT_EVERSION, WEFT_ETRUNC, WEFT_ECORRUPT,
 * WEFT_EEMPTY, -errno) and, if `diag` is not NULL, fills it with the
 * offset and a message.
 *
 * A regular file is read with pread, never mapped: if it is truncated or
 * replaced while it is read, what can no longer be read is reported (a
 * problem with its offset, or for a live ring a torn packet), and the
 * reader never dies of SIGBUS.  Anything else ("-" for standard input, a
 * pipe, a device) is read into memory, its header first and then no more
 * than the header declares: input that is not a weft trace is refused
 * after its first bytes, and an endless one is not read forever.
 */
WEFT_API int weft_reader_open(struct weft_reader **out, const char *path,
			      unsigned flags, struct weft_diag *diag);

/* Same, over `len` bytes at `data`, which must stay valid and unchanged
 * until weft_reader_close (no copy is made). */
WEFT_API int weft_reader_open_mem(struct weft_reader **out, const void *data,
				  size_t len, unsigned flags,
				  struct weft_diag *diag);

WEFT_API void weft_reader_close(struct weft_reader *r);

/*
 * Runs: the processes of a program, read as one trace.
 *
 * `weft record` keeps one run directory per run: the ring of each process
 * that recorded, and a manifest of the process tree (docs/format.md,
 * "Runs").  weft_reader_open() reads such a directory, a bundle (one file
 * holding a run: `weft snapshot` of a run, or what `weft html` embeds; also
 * read by weft_reader_open_mem()), or a ring; weft_reader_open_many() reads
 * several of them together.  Either way the reader returns the events of
 * every ring merged in time order on one axis, as if they were one trace:
 *   - ev.ns is on that axis (ns since its origin, the earliest ring's
 *     start); ev.ts stays the raw clock of the event's own ring;
 *   - streams are numbered across the rings; weft_reader_stream_process()
 *     names the process of each;
 *   - async thread ids of the first ring are kept; those of the others
 *     carry the ring's number in bits 48 to 61 (an id that already uses
 *     those bits is mapped to one of its own), so that no two processes
 *     share one;
 *   - names are merged by their text (the first ring's keep their ids);
 *   - every process that recorded has an async thread of its own (kind
 *     "process", labelled with its pid and command line) that acts on its
 *     main OS thread when nothing else runs there, is created by the async
 *     thread that spawned the process (a spawn request, or the one running
 *     when it forked) and ends when the process exits (failing with how,
 *     if not with status 0), resolving the spawn request; an exec makes
 *     it become the new image's;
 *   - a ring of a run or bundle that cannot be read (damaged, emptied,
 *     cut short, a bundle's part that does not open, or missing though
 *     the manifest names it) does not stop the others: each is a problem
 *     (weft_reader_problems(): its name and what is wrong), and its
 *     process's ring_unread says so; only when no ring at all can be
 *     read does the open fail;
 * A single ring with no manifest is read as it always was.
 *
 * Clocks: rings of one machine (one boot id) share CLOCK_MONOTONIC (time
 * namespaces accounted for); rings of other machines are placed on the
 * first one's axis from their realtime clocks, then refined by the
 * messages they exchanged (weft_reader_hosts() says how, and with what
 * uncertainty).
 */
struct weft_merge_opts {
	/* Offsets forced on machines (`weft ... --offset HOST=+-NS`): the
	 * nanoseconds added to host[i]'s clock (a host name or a boot id). */
	unsigned noffsets;
	const char *const *offset_host;
	const int64_t *offset_ns;
};

/* Opens `n` traces (ring files, run directories, bundles, "-" at most
 * once) as one merged trace.  One ring and nothing else: as
 * weft_reader_open().  `opts` may be NULL.  On failure, `diag` names the
 * path at fault. */
WEFT_API int weft_reader_open_many(struct weft_reader **out,
				   const char *const *paths, unsigned n,
				   unsigned flags,
				   const struct weft_merge_opts *opts,
				   struct weft_diag *diag);

/* As weft_reader_open_many(), but of a kept directory (docs/keep.md)
 * only the chunks whose events name the async thread `thread` are read
 * (their index by async thread says which, nothing else decompressed;
 * chunks written before that index are read, as they may): the thread's
 * events, with what else happened in those chunks, without reading the
 * rest (their packets are gaps, counted as losses).  An ID as a merged
 * run's reader gives it (a ring's ids but the first's carry its tag) is
 * looked for as the ring wrote it.  Other traces are read whole.
 * WEFT_EEMPTY: a kept directory none of whose chunks names it. */
WEFT_API int weft_reader_open_thread(struct weft_reader **out,
				     const char *const *paths, unsigned n,
				     unsigned flags,
				     const struct weft_merge_opts *opts,
				     uint64_t thread, struct weft_diag *diag);

#define WEFT_NO_PROCESS UINT32_MAX

enum weft_process_end {
	WEFT_PROC_RUNNING = 0, /* no end recorded: running when read */
	WEFT_PROC_EXITED,      /* status: its exit status */
	WEFT_PROC_SIGNALED,    /* status: the signal that ended it */
	WEFT_PROC_EXECED,      /* replaced by a new image (next_image) */
	WEFT_PROC_VANISHED,    /* its ring's writer is gone without stopping,
				  and nothing recorded how it ended (killed
				  by a signal, most likely) */
	WEFT_PROC_STOPPED,     /* its ring stopped cleanly (an exit, or
				  weft_stop) and nothing recorded more */
};

/* A process (one image of it: an exec starts another) of the trace. */
struct weft_process {
	uint32_t pid, ppid;
	uint32_t parent;     /* its parent's index, or WEFT_NO_PROCESS */
	uint32_t prev_image; /* the image it replaced by exec, or NONE */
	uint32_t next_image; /* the image that replaced it, or NONE */
	uint32_t image;	     /* 0, or n after its process exec'd n times */
	uint32_t host;	     /* its machine (weft_reader_hosts) */
	int end;	     /* enum weft_process_end */
	int status;	     /* exit status or signal number */
	int64_t t_start;     /* ns on the trace's axis: fork (or start) */
	int64_t t_end;	     /* exit, exec; or INT64_MAX when not known */
	uint64_t thread;     /* its async thread ("process"), 0: no ring */
	uint64_t creator;    /* the async thread that created it, or 0 */
	char comm[33];	     /* short name */
	const char *exe;     /* executable ("" when not known) */
	uint32_t argc;
	const char *const *argv; /* its arguments (argv[0] first) */
	const char *ring;	 /* its ring's path, or NULL: none */
	uint32_t nstreams;	 /* OS threads of it that recorded */
	/* its ring could not be read (damaged, emptied, cut short, missing
	 * though the run's manifest names it): what is wrong, and `ring`
	 * names the file; NULL when it was read or it has none */
	const char *ring_unread;
};

/* The processes of the trace: for one ring, the process that wrote it;
 * for a run, every process of its manifest (also those that recorded
 * nothing: a shell between two programs) and of its rings, parents
 * before children.  Valid until the next weft_reader_next() (a followed
 * run grows). */
WEFT_API const struct weft_process *weft_reader_processes(struct weft_reader *r,
							  uint32_t *n);

/* The process (index in weft_reader_processes) of a stream. */
WEFT_API uint32_t weft_reader_stream_process(struct weft_reader *r,
					     uint32_t stream);

enum weft_clock_method {
	WEFT_CLOCK_REFERENCE = 0, /* the axis: the first ring's machine */
	WEFT_CLOCK_SHARED,	  /* same boot: CLOCK_MONOTONIC is shared */
	WEFT_CLOCK_REALTIME,	  /* by realtime clocks: as good as NTP */
	WEFT_CLOCK_MESSAGES,	  /* bounded by messages sent and received */
	WEFT_CLOCK_FORCED,	  /* given (weft_merge_opts) */
};

/* A machine the trace's rings come from, and how its clock was placed. */
struct weft_host {
	char name[65];		/* host name ("" when not recorded) */
	char boot_id[37];	/* "" when not recorded (rings before 1.3) */
	int method;		/* enum weft_clock_method */
	int64_t offset_ns;	/* added to its CLOCK_MONOTONIC */
	int64_t uncertainty_ns; /* +-: the offset lies within this */
	uint64_t messages;	/* matched messages that bounded it */
	int64_t lo_ns, hi_ns;	/* MESSAGES: the bounds found */
};

WEFT_API const struct weft_host *weft_reader_hosts(struct weft_reader *r,
						   uint32_t *n);

/* Trace description; valid until weft_reader_close.  Counts and losses
 * grow as events are read. */
WEFT_API const struct weft_trace_info *weft_reader_info(struct weft_reader *r);

/*
 * weft_reader_next - the next event in time order.  Returns 0 (event
 * filled), WEFT_EEOF (no more), or WEFT_EAGAIN (follow mode: nothing new
 * yet; poll again later).
 */
WEFT_API int weft_reader_next(struct weft_reader *r, struct weft_event *ev);

/*
 * weft_reader_on_progress - for a program that shows how far a long read
 * has come: weft_reader_next() calls fn(arg, events, fraction) every
 * 65536 events it returns, and once when the input ends (WEFT_EEOF:
 * fraction 1).  `events` counts the events returned so far; `fraction`
 * is the share of the input's packets opened so far (0..1), or -1 when
 * the reader cannot tell.  fn runs on the caller's thread, inside
 * weft_reader_next, and must not call the reader.  fn NULL: no calls.
 */
WEFT_API void weft_reader_on_progress(struct weft_reader *r,
				      void (*fn)(void *arg, uint64_t events,
						 double fraction),
				      void *arg);

/* Problems found so far; *n receives how many are listed. */
WEFT_API const struct weft_problem *weft_reader_problems(struct weft_reader *r,
							 unsigned *n);

/* The name of an interned name id ("" for 0 or unknown ids). */
WEFT_API const char *weft_reader_name(struct weft_reader *r, uint32_t id);

/* Ticks to nanoseconds since the trace origin, with the trace's clock. */
WEFT_API int64_t weft_reader_ns(struct weft_reader *r, uint64_t ticks);

/* The event table, for printing: name of an event type ("loss" for
 * WEFT_EV_LOSS, NULL if unknown), its meaning, and its fields. */
WEFT_API const char *weft_event_name(unsigned type);
WEFT_API const char *weft_event_doc(unsigned type);
/* Field i of an event type: its name and enum weft_field_type, or NULL. */
WEFT_API const char *weft_event_field(unsigned type, unsigned i, int *ftype);

enum weft_copy_flags {
	/* Only the packets in use (the header's geometry adjusted): the
	 * events without the ring's empty space. */
	WEFT_COPY_COMPACT = 1 << 0,
};

/*
 * weft_reader_copy - a consistent copy of the ring `r` reads, in memory,
 * as a ring file that weft_reader_open_mem() reads: from a file that a
 * live writer may be writing, each packet is copied by the commit
 * protocol (a packet rewritten during its copy is left out, and readers
 * of the copy count it as lost), the header last.  *out is malloc'ed
 * (free() it), *len its size; *torn, if not NULL, receives the packets
 * left out.  Returns 0, -ENOMEM, WEFT_ETRUNC (the file shrank) or -errno.
 */
WEFT_API int weft_reader_copy(struct weft_reader *r, unsigned flags, void **out,
			      size_t *len, uint64_t *torn);

/*
 * weft_snapshot - a consistent copy of a (possibly live) ring file.
 * Copies every packet whose copy validates (packets rewritten during the
 * copy are zeroed and so counted as lost by readers of the copy), then the
 * header.  Writes to `out_fd` (a file or a pipe).  *torn, if not NULL,
 * receives the number of packets that could not be copied consistently.
 */
WEFT_API int weft_snapshot(const char *path, int out_fd, uint64_t *torn,
			   struct weft_diag *diag);

/*
 * weft_compact - gives back the disk blocks of the packet slots a ring
 * never used, for a ring whose writer did not stop cleanly (killed, or
 * gone through exec): a clean stop does it itself.  The ring at `path`
 * is replaced, atomically (a new file beside it, renamed over it, with
 * its mode and owner), by one holding its header and the slots in use;
 * readers read the same events from it.  Only a ring that never went
 * round has slots it never used: one that did is left as it is (*res
 * says so: size_after == size_before).  Never while a live writer holds
 * the ring (-EBUSY), and never through a symbolic link (WEFT_ELINK): what
 * is not a regular file is WEFT_ENOTREG, what is not a ring
 * WEFT_ENOTRING; a damaged ring is left alone with the reader's error.
 * `res` may be NULL.  Returns 0 or one of those, or -errno, with a
 * message in `diag` (may be NULL).
 */
struct weft_compact_result {
	uint64_t size_before, size_after;   /* bytes */
	uint32_t slots_before, slots_after; /* packet slots */
};
WEFT_API int weft_compact(const char *path, struct weft_compact_result *res,
			  struct weft_diag *diag);

/* The ring file a running process has mapped: writes its path to `buf`.
 * Returns 0, WEFT_ENOTFOUND, or -errno. */
WEFT_API int weft_find_ring(int pid, char *buf, size_t cap);

/*
 * weft_ctf_write - write the trace as a CTF 1.8 directory `dir` (created
 * if needed): `metadata` plus one data stream file per OS thread, the
 * packets in order, with the refined clock and the trace's names as
 * enumerations.  babeltrace2 reads it.  Returns 0 or a negative code.
 */
WEFT_API int weft_ctf_write(struct weft_reader *r, const char *dir,
			    struct weft_diag *diag);

/*
 * UTF-8: the one validation routine that every reader and writer of text
 * in weft uses.  Invalid input (a byte that cannot start a sequence, a
 * sequence cut short, an overlong form, a UTF-16 surrogate, a code point
 * above U+10FFFF) is replaced by U+FFFD, one per maximal invalid subpart
 * (Unicode's recommended practice; Python's errors="replace" agrees).
 */

/* The character at s (n bytes there): returns the bytes it takes (1 to 4,
 * 0 only if n is 0) and its code point in *cp, U+FFFD if invalid. */
WEFT_API size_t weft_utf8_decode(const char *s, size_t n, uint32_t *cp);

/* 1 if the n bytes at s are valid UTF-8, else 0. */
WEFT_API int weft_utf8_valid(const char *s, size_t n);

/* Copies the n bytes at s to dst (cap bytes, cap >= 1), NUL-terminated,
 * with every invalid sequence replaced by U+FFFD, and cut at a character
 * boundary if it does not fit (3 * n + 1 bytes always do).  Returns the
 * length written. */
WEFT_API size_t weft_utf8_fix(char *dst, size_t cap, const char *s, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_READ_H */
