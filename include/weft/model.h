/* SPDX-License-Identifier: MIT */
/*
 * model.h - a trace as a person reasons about it (part of libweft-read).
 *
 * The model turns the events of a reader into:
 *   - async threads (one per incarnation of an id), each with its kind,
 *     labels, creator, creation and end times, how it ended, and its run
 *     intervals on the OS threads;
 *   - arrows: every interaction, typed, with its time and both ends;
 *   - counters as series, notes, spans, idle periods, pauses, losses.
 *
 * Everything is in arrays indexed by uint32_t (WEFT_NONE: no such item),
 * times are nanoseconds since the trace origin.  History that is missing
 * is marked, not guessed: a thread whose creation was lost has
 * WEFT_THREAD_NO_CREATE and starts when it is first mentioned; a thread
 * still pending when the trace ends is WEFT_END_PENDING.
 *
 * Each OS thread (stream) has a root thread (WEFT_THREAD_ROOT, id 0): the
 * OS thread itself, which acts when no async thread runs there.
 *
 * A model is built by one thread; once built it may be read by several.
 * Pointers returned stay valid until the next weft_model_update() or
 * weft_model_free().
 */
#ifndef WEFT_MODEL_H
#define WEFT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "weft/read.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_NONE UINT32_MAX

/* How an async thread ended: X(ENUM, "name", "what a sentence says").
 * Expanded into enum weft_end, weft_end_name() and weft_end_says(). */
#define WEFT_END_MAP(X)                                                        \
	/* still pending at the end of the trace */                           \
	X(PENDING, "pending", "is still pending")                              \
	X(RESOLVED, "resolved", "resolved")                                    \
	/* see weft_thread.message */                                          \
	X(FAILED, "failed", "failed")                                          \
	/* replaced by weft_thread.became */                                   \
	X(BECAME, "became", "became another")                                  \
	X(CANCELLED, "cancelled", "was cancelled")                             \
	/* its id was created again while it lived */                          \
	X(REPLACED, "replaced", "was replaced by a new thread with its id")

#define WEFT__END_ENUM(E, name, says) WEFT_END_##E,
enum weft_end { WEFT_END_MAP(WEFT__END_ENUM) WEFT_END_KINDS };

/* "pending", "resolved"... (exports, JSON); "?" out of range. */
WEFT_API const char *weft_end_name(int end);
/* "is still pending", "resolved", "was cancelled"... (sentences). */
WEFT_API const char *weft_end_says(int end);

enum weft_thread_flags {
	WEFT_THREAD_ROOT = 1 << 0,           /* an OS thread itself */
	WEFT_THREAD_NO_CREATE = 1 << 1,      /* its creation was not seen */
	WEFT_THREAD_SHOULD_RESOLVE = 1 << 2, /* weft_should_resolve() on it */
};

struct weft_thread {
	uint64_t id;
	int64_t t_create;  /* creation (or first mention) */
	int64_t t_end;     /* end, or last mention if pending */
	uint32_t parent;   /* creator, WEFT_NONE if unknown */
	uint32_t stream;   /* OS thread where it was created */
	uint32_t kind;     /* interned name id (weft_model_name) */
	uint32_t label;    /* its latest label (index in labels), or NONE */
	uint32_t message;  /* failure message (weft_model_string), or NONE */
	uint32_t became;   /* successor if WEFT_END_BECAME, else NONE */
	uint32_t incarnation; /* 0 for the first thread with this id */
	uint8_t end;       /* enum weft_end */
	uint8_t flags;     /* enum weft_thread_flags */
	uint16_t pad;
};

/* Model times are nanoseconds from the trace's origin, within
 * +-WEFT_MODEL_T_MAX (about 36 years): a corrupt trace's wilder times are
 * clamped there, so that any two model times can be subtracted. */
#define WEFT_MODEL_T_MAX (INT64_C(1) << 60)

/* A run interval: `thread` ran on OS thread `stream` from t0 to t1. */
struct weft_run {
	int64_t t0, t1;
	uint32_t thread, stream;
};

/* The kinds of arrows: X(ENUM, "name", "what from does to", red, green,
 * blue), the colour every viewer draws them in.  Expanded into enum
 * weft_arrow_kind, weft_arrow_name(), weft_arrow_verb() and
 * weft_arrow_color(). */
#define WEFT_ARROW_MAP(X)                                                      \
	/* from created to */                                                  \
	X(CREATE, "created", "creates", 0.2, 0.2, 0.2)                                    \
	/* to read from's result (from had resolved) */                        \
	X(READ, "read", "reads", 0, 0, 1)                                               \
	/* to read from's failure */                                           \
	X(READ_FAILED, "read failure", "reads the failure of", 1, 0, 0)                                \
	/* from waited on to, not ready */                                     \
	X(TRY_READ, "waited on (not ready)", "waits on", 0.8, 0.8, 0.4)                    \
	/* from resolved to */                                                 \
	X(RESOLVE, "resolved", "resolves", 0, 0.5, 0)                                      \
	/* from made to fail */                                                \
	X(FAIL, "failed", "fails", 1, 0, 0)                                             \
	/* from signalled to */                                                \
	X(SIGNAL, "signalled", "signals", 1, 0.6, 0)                                      \
	/* from was replaced by to */                                          \
	X(BECOME, "became", "is what became", 0.2, 0.2, 0.2)                                     \
	/* from cancelled to */                                                \
	X(CANCEL, "cancelled", "cancels", 0.5, 0.5, 0.5)

#define WEFT__ARROW_ENUM(E, name, verb, r, g, b) WEFT_ARROW_##E,
enum weft_arrow_kind { WEFT_ARROW_MAP(WEFT__ARROW_ENUM) WEFT_ARROW_KINDS };

/* WEFT_ARROW_TRY_READ that a read of the same thread by the same reader
 * followed (viewers hide it). */
#define WEFT_ARROW_FOLLOWED 1u
/* WEFT_ARROW_READ of a message between processes: `to` read bytes that
 * `from` wrote at weft_model_arrow_sent() (drawn from there).
 * WEFT_ARROW_TRY_READ of a wait on another process: `from` waits for a
 * reply on a connection whose last message `to`, in the peer process,
 * read (weft why goes on with what `to` started that is still pending). */
#define WEFT_ARROW_MESSAGE 2u

struct weft_arrow {
	int64_t t;
	uint32_t from, to;
	uint8_t kind;  /* enum weft_arrow_kind */
	uint8_t flags; /* WEFT_ARROW_* */
	uint16_t pad;
	uint32_t stream; /* OS thread where it happened */
};

struct weft_label {
	int64_t t;
	uint32_t thread;
	uint32_t text; /* weft_model_string */
	uint32_t prev; /* the thread's previous label, or NONE */
	uint32_t kind; /* WEFT_EV_LABEL or WEFT_EV_NOTE */
};

struct weft_sample {
	int64_t t;
	int64_t value;
};

/* A counter belongs to its process: two processes' counters of one name
 * (two tickers' "ticks") are two series. */
struct weft_counter {
	uint32_t name;     /* interned name id */
	uint32_t nsamples;
	const struct weft_sample *samples; /* in time order */
	int64_t min, max;
	uint32_t process;  /* whose (weft_model_processes), or WEFT_NONE */
};

/* Background intervals, by kind.  (Each kind is numbered as the event
 * that begins it: code written when weft_model_intervals() took an event
 * id, WEFT_EV_IDLE say, gets the same intervals, not another kind's.) */
enum weft_interval_kind {
	/* the OS thread blocked; `name` the reason */
	WEFT_INTERVAL_IDLE = WEFT_EV_IDLE,
	/* the runtime stopped everything; `name` its kind */
	WEFT_INTERVAL_PAUSE = WEFT_EV_PAUSE,
	/* a span `name` on async thread `thread` */
	WEFT_INTERVAL_SPAN = WEFT_EV_SPAN_BEGIN,
	/* an event loop's phase `name`: per OS thread, disjoint and in time
	 * order */
	WEFT_INTERVAL_PHASE = WEFT_EV_PHASE,
};

struct weft_interval {
	int64_t t0, t1;
	uint32_t stream;
	uint32_t name;
	uint32_t thread; /* spans: the async thread; phases: the one current
			    when it began (the loop); else NONE */
	uint32_t depth;  /* spans: nesting depth */
};

struct weft_loss {
	int64_t t;
	uint32_t stream;
	uint32_t flags;   /* WEFT_EVF_PARTIAL */
	uint64_t packets; /* packets lost there */
	uint64_t events;  /* events the writer declared dropped there */
};

struct weft_model_stream {
	uint32_t tid;
	char name[17];
	uint32_t root;   /* its root thread */
	int64_t busy_ns; /* time something ran there */
	int64_t idle_ns; /* time it was idle */
	uint32_t process; /* its process (weft_model_processes), or
			     WEFT_NONE */
};

/* A process of the trace as the model keeps it (a run of several merged:
 * read.h, "Runs"; weft_reader_processes() has the rest, its executable
 * and arguments).  A single ring is one process. */
struct weft_model_process {
	uint32_t pid;
	uint32_t parent; /* its parent's index, or WEFT_NONE */
	uint32_t thread; /* its async thread ("process"), or WEFT_NONE */
	int end;         /* enum weft_process_end */
	int status;      /* exit status or signal */
	char comm[33];   /* short name */
};

struct weft_model;

/*
 * weft_model_load - read every event of `r` (until WEFT_EEOF, or
 * WEFT_EAGAIN in follow mode) into a new model.  Returns 0 and *out, or a
 * negative code (-ENOMEM).  The reader stays owned by the caller and must
 * outlive the model (names come from it).
 */
WEFT_API int weft_model_load(struct weft_model **out, struct weft_reader *r);

/* In follow mode: add the events the reader has now.  Returns the number
 * of events added (>= 0) or a negative code.  Invalidates pointers. */
WEFT_API long weft_model_update(struct weft_model *m);

/* Loading in steps (a viewer that shows its progress): weft_model_new()
 * makes a model that has read nothing; each weft_model_step() reads up
 * to `max` more events (0: all there are) and returns how many, or a
 * negative code.  While it returns `max`, more may come and the model
 * must not be read; once it returns fewer, the model is complete as
 * weft_model_load() would have made it.  weft_model_update() is
 * weft_model_step(m, 0). */
WEFT_API int weft_model_new(struct weft_model **out, struct weft_reader *r);
WEFT_API long weft_model_step(struct weft_model *m, long max);

WEFT_API void weft_model_free(struct weft_model *m);

WEFT_API const struct weft_thread *weft_model_threads(const struct weft_model *m,
					     uint32_t *n);
WEFT_API const struct weft_run *weft_model_runs(const struct weft_model *m,
				       uint32_t *n);
WEFT_API const struct weft_arrow *weft_model_arrows(const struct weft_model *m,
					   uint32_t *n);
WEFT_API const struct weft_label *weft_model_labels(const struct weft_model *m,
					   uint32_t *n);
WEFT_API const struct weft_counter *weft_model_counters(const struct weft_model *m,
					       uint32_t *n);
/* Counter i's title, as every front end shows it: its name, and in a
 * trace of several processes its process ("ticks (pid 4242)").  Writes
 * at most cap bytes (NUL included); returns the length it needed. */
WEFT_API size_t weft_model_counter_title(const struct weft_model *m,
					 uint32_t i, char *buf, size_t cap);
/* The total of the counters named `name` (a name id) over the processes
 * that keep one, where asked (`weft stats --sum-counters`): at each
 * sample of any of them, the sum of each one's latest value.  *out
 * (free() it) gets *n samples in time order, *processes how many
 * processes' counters were summed.  0 or -ENOMEM. */
WEFT_API int weft_model_counter_sum(const struct weft_model *m, uint32_t name,
				    struct weft_sample **out, uint32_t *n,
				    uint32_t *processes);
/* The intervals of a kind (enum weft_interval_kind); NULL and *n = 0
 * for another kind. */
WEFT_API const struct weft_interval *weft_model_intervals(const struct weft_model *m,
						 int kind, uint32_t *n);
WEFT_API const struct weft_loss *weft_model_losses(const struct weft_model *m,
					  uint32_t *n);
WEFT_API const struct weft_model_stream *weft_model_streams(const struct weft_model *m,
						   uint32_t *n);

/* How a process ended (enum weft_process_end and its status), for a
 * sentence: "exited with status 0", "killed by signal 9", "running"...;
 * written into buf (cap bytes) when it has a number. */
WEFT_API const char *weft_process_says(int end, int status, char *buf,
				       size_t cap);
/* The processes of the trace, parents before children (as
 * weft_reader_processes() lists them, when the model last read). */
WEFT_API const struct weft_model_process *
weft_model_processes(const struct weft_model *m, uint32_t *n);
/* The process a thread belongs to: that of the OS thread where it was
 * created (or first seen); WEFT_NONE if not known. */
WEFT_API uint32_t weft_model_thread_process(const struct weft_model *m,
					    uint32_t thread);

/* Indexes of the runs / arrows (in and out) of one thread, in time order;
 * *n receives the count. */
WEFT_API const uint32_t *weft_model_thread_runs(const struct weft_model *m,
				       uint32_t thread, uint32_t *n);
WEFT_API const uint32_t *weft_model_thread_arrows(const struct weft_model *m,
					 uint32_t thread, uint32_t *n);

/* When a message arrow's bytes were written (ns), for a read with
 * WEFT_ARROW_MESSAGE; since when its thread waits, for such a try_read
 * (made at the end of the trace); for any other arrow, its time. */
WEFT_API int64_t weft_model_arrow_sent(const struct weft_model *m,
				       uint32_t arrow);

/* The latest incarnation with this id, or WEFT_NONE. */
WEFT_API uint32_t weft_model_find(const struct weft_model *m, uint64_t id);

/* Texts and names ("" for NONE). */
WEFT_API const char *weft_model_string(const struct weft_model *m, uint32_t s);
WEFT_API const char *weft_model_name(const struct weft_model *m, uint32_t name);
/* A thread's display name: its latest label, else "kind 0xID". */
WEFT_API const char *weft_model_title(const struct weft_model *m, uint32_t thread,
			     char *buf, unsigned cap);

/* Time range of the trace (ns since origin). */
WEFT_API void weft_model_range(const struct weft_model *m, int64_t *t0, int64_t *t1);

/* The reader the model was loaded from. */
WEFT_API struct weft_reader *weft_model_reader(const struct weft_model *m);

/* Bytes of memory the model uses. */
WEFT_API uint64_t weft_model_bytes(const struct weft_model *m);

/*
 * Diagnosis: why is a thread still pending?
 *
 * weft_why() walks the chain of waits from `thread` (following becomes):
 * each pending thread waits on the target of its last try_read that no
 * read answered, until a thread that waits on nothing (the root blocker),
 * a thread that already ended, or a thread seen twice.  When the subject
 * itself waits on nothing, its waiter is a pending thread that waits on
 * it (`awaited_by`), if any.  A verdict states only what the trace shows
 * (docs/model.md, "weft why"):
 *   LOST_WAKEUP      the blocker was signalled or resolved, but the waiter
 *                    never read it (classically: signalled before anyone
 *                    waited, then waited on forever);
 *   NEVER_RESOLVED   nothing touched the blocker once the wait began, for
 *                    longer than any finished thread of its kind lived;
 *   DEADLOCK         the waits form a cycle;
 *   FAILED_UPSTREAM  the blocker failed and the waiter never read it;
 *   TRUNCATED        events were lost where the evidence lies (a loss
 *                    the reader counted after the chain's first creation,
 *                    or anywhere before a thread whose creation is not in
 *                    the trace), so no verdict is safe;
 *   OK               the thread is not pending;
 * and two that are not faults:
 *   IN_FLIGHT        the trace ended while the blocker was pending for no
 *                    longer than a finished thread of its kind lived in
 *                    this trace (`longest`), or while its waiter, woken
 *                    (by a resolution, a failure or a signal), had been
 *                    ready for no longer than a woken waiter took to read
 *                    in this trace.  "The trace ended" is where the trace
 *                    of the OS thread it lives on ends (`horizon`): an OS
 *                    thread that stopped recording early shows nothing
 *                    after;
 *   UNAWAITED        the subject waits on nothing, nothing waits on it
 *                    and nothing says it should resolve (an event loop, a
 *                    listener, a connection open when the trace ended).
 * A thread whose creation is not in a trace with no losses was never
 * created by the program (a loop it runs as a thread): that is not a loss.
 */
enum weft_verdict {
	WEFT_VERDICT_OK,
	WEFT_VERDICT_LOST_WAKEUP,
	WEFT_VERDICT_NEVER_RESOLVED,
	WEFT_VERDICT_DEADLOCK,
	WEFT_VERDICT_FAILED_UPSTREAM,
	WEFT_VERDICT_TRUNCATED,
	WEFT_VERDICT_IN_FLIGHT,
	WEFT_VERDICT_UNAWAITED,
};

/* Whether a verdict is a fault (exit status 1 of `weft why`): every one
 * but OK, IN_FLIGHT and UNAWAITED. */
#define WEFT_VERDICT_IS_FAULT(v)                                               \
	((v) != WEFT_VERDICT_OK && (v) != WEFT_VERDICT_IN_FLIGHT &&          \
	 (v) != WEFT_VERDICT_UNAWAITED)

#define WEFT_WHY_MAX_CHAIN 64

struct weft_why {
	uint32_t thread;   /* the subject (after following becomes) */
	int verdict;       /* enum weft_verdict */
	uint32_t nchain;   /* chain[0] is the subject; chain[n-1] the blocker */
	struct {
		uint32_t thread;
		int64_t t_wait; /* when it began waiting on the next one */
	} chain[WEFT_WHY_MAX_CHAIN];
	uint32_t evidence; /* arrow: the signal/resolve/fail of the
			      blocker, or NONE */
	uint32_t cycle;    /* DEADLOCK: the thread the last waits on */
	int64_t t_wait;    /* when the last waiter began waiting */
	/* (since 0.2) */
	uint32_t waiter;   /* who waits on the blocker: chain[n-2], or for a
			      chain of one its awaited_by; NONE: nobody */
	uint32_t awaited_by; /* chain of one: a pending thread waiting on
				the subject, or NONE */
	uint32_t loss;     /* TRUNCATED: the loss (weft_model_losses) */
	int64_t longest;   /* IN_FLIGHT: what the trace shows may take that
			      long (a finished thread's life, a woken
			      waiter's delay); else -1 */
	int64_t ready;     /* IN_FLIGHT, woken waiter: since when */
	int64_t horizon;   /* where the trace of the OS thread the judged
			      thread lives on ends (its creation's or its
			      last run's, the later): being pending is
			      measured up to there */
};

WEFT_API int weft_why(const struct weft_model *m, uint32_t thread, struct weft_why *w);

/* For many questions about one model (`weft why --all`): what weft_why()
 * otherwise works out at each call, in O(threads + arrows), once.  The
 * index reads the model, which must outlive it; weft_why_at() may be
 * called from several threads at once.  0 or -ENOMEM. */
struct weft_why_index;
WEFT_API int weft_why_index_new(struct weft_why_index **out,
				const struct weft_model *m);
WEFT_API void weft_why_index_free(struct weft_why_index *ix);
WEFT_API int weft_why_at(const struct weft_why_index *ix, uint32_t thread,
			 struct weft_why *w);

/* "lost wake-up", ... */
WEFT_API const char *weft_verdict_name(int verdict);

/* "resolved", "read", ... for an enum weft_arrow_kind ("?" out of
 * range), and the colour viewers draw it in (components 0..1). */
WEFT_API const char *weft_arrow_name(int kind);
WEFT_API void weft_arrow_color(int kind, double rgb[3]);
/* What the actor of an arrow does, as a verb phrase: "waits on",
 * "signals", "reads the failure of" ("touches" out of range; the actor
 * of a read or a become is its `to`). */
WEFT_API const char *weft_arrow_verb(int kind);

/*
 * Repeating sources.  A thread *continues* its creator when it is the
 * creator's next activation: of the same kind, created when or after the
 * creator ended (weft_fire() does exactly that; so does any integration
 * that re-arms a wait from its callback).  The successive reads of a
 * connection, the ticks of a timer are one row in the layout and one
 * source in the causal chain.
 */
WEFT_API int weft_model_continues(const struct weft_model *m, uint32_t thread);

/*
 * Layout: a row for each async thread, for a picture where time runs left
 * to right.  Rows are packed and stable:
 *   - a thread that continues its creator takes its creator's row;
 *   - long-lived threads and sources (spanning half of the trace or
 *     more when the layout is made: loops, listeners, timers) take the
 *     top rows;
 *   - any other thread takes the free row nearest its creator's, below
 *     first; a row is free once what it holds ended, plus an eighth of
 *     that one's life (a gap that keeps neighbours apart at any zoom);
 *     a new row only when none is free.
 * So the rows used stay within about twice the most threads alive at
 * once, plus the long-lived ones.  Threads are placed once, in creation
 * order, looking only at what ended before they began: a live trace's new
 * threads are placed by weft_layout_update() without moving any other.
 * OS threads (roots) get no row.
 *
 * `only` (NULL: every thread) restricts the layout to the threads i with
 * only[i] != 0 (it must cover the model's threads at each call).
 * Returns 0 or -ENOMEM.  The layout reads the model, which must outlive
 * it; one thread at a time.
 */
struct weft_layout;

struct weft_layout_info {
	uint32_t rows;    /* rows used */
	uint32_t top;     /* of which the top rows (long-lived threads) */
	uint32_t threads; /* threads laid out */
};

WEFT_API int weft_layout_new(struct weft_layout **out, const struct weft_model *m,
		    const uint8_t *only);
/* After weft_model_update(): places the new threads (-EINVAL for a
 * group's layout). */
WEFT_API int weft_layout_update(struct weft_layout *l, const uint8_t *only);
WEFT_API void weft_layout_free(struct weft_layout *l);
/* Per thread, its row (-1: none); *n gets the threads covered. */
WEFT_API const int32_t *weft_layout_rows(const struct weft_layout *l, uint32_t *n);
/* Layouts of groups of threads at once (a run's processes, each apart):
 * group[i], for each of the model's threads, is thread i's group, or
 * WEFT_NONE: in none.  out[g] (g < ngroups) is group g's layout, as
 * weft_layout_new() with `only` its threads would make it, or NULL when
 * it has none; in time O(threads + groups), where a weft_layout_new() per
 * group passes over every thread each (a run of 10,000 processes).  Each
 * is freed with weft_layout_free(); its rows are weft_layout_members()'s,
 * and weft_layout_update_groups() places the model's new threads. */
WEFT_API int weft_layout_new_groups(struct weft_layout **out, uint32_t ngroups,
				   const struct weft_model *m,
				   const uint32_t *group);
/* After weft_model_update(): the threads from `from` on (the model's
 * threads at the last call) placed in their groups' layouts, a layout made
 * for a group that had none.  0 or -ENOMEM. */
WEFT_API int weft_layout_update_groups(struct weft_layout **out,
				      uint32_t ngroups,
				      const struct weft_model *m,
				      const uint32_t *group, uint32_t from);
/* A group's layout: its threads, ascending (*n of them), and in *rows
 * their rows.  NULL for a layout of weft_layout_new(), whose rows are
 * weft_layout_rows()'s (which gives NULL for a group's). */
WEFT_API const uint32_t *weft_layout_members(const struct weft_layout *l,
					    const int32_t **rows, uint32_t *n);
/* Counts. */
WEFT_API void weft_layout_info(const struct weft_layout *l,
		      struct weft_layout_info *info);
/* The most threads laid out alive at once (a thread pending at the end
 * is alive to the end): what the rows used compare with.  A sweep, in
 * O(n log n).  0 or -ENOMEM. */
WEFT_API int weft_layout_peak(const struct weft_layout *l, uint32_t *peak);

/*
 * The causal chain of a thread: what led to it and what it led to.
 *
 * Backwards, from the moment it ended (or the end of the trace if it
 * never did): the threads whose arrows reached it — its creator, what
 * resolved, failed, signalled or cancelled it, the results it read, what
 * it waited on — each only up to the moment it mattered, then theirs.
 * Forwards, from its creation: the threads it created, resolved,
 * signalled or cancelled, that read it or waited on it, from the moment
 * it reached them, then theirs.
 *
 * It stops at what connects everything:
 *   - OS threads (roots) carry no causality: they are left out;
 *   - a *hub* — a thread that interacts with at least 16 threads and 8
 *     times as many as the median of the threads it interacts with (an
 *     event loop, a listener, a pool) — is shown but not walked through
 *     (the subject itself is walked, whatever it is);
 *   - a repeating source is one source: a thread reached through the
 *     activation it continues brings in the source's first activation
 *     (what armed it) rather than every earlier one, and a thread's
 *     next activation is not what it led to.
 * `depth` bounds the steps from the subject: 1 (its direct arrows), 2,
 * 3..., WEFT_CHAIN_ALL (as far as it goes).
 *
 * weft_chain() fills `c`, which must be zeroed or released before;
 * weft_chain_release() frees what it holds.  Returns 0, WEFT_EINVAL for
 * no such thread, or -ENOMEM.
 */
#define WEFT_CHAIN_ALL 0

enum weft_chain_flags {
	WEFT_CHAIN_IN = 1 << 0,      /* in the chain */
	WEFT_CHAIN_SUBJECT = 1 << 1, /* the thread asked about */
	WEFT_CHAIN_BEFORE = 1 << 2,  /* it led to the subject */
	WEFT_CHAIN_AFTER = 1 << 3,   /* the subject led to it */
	WEFT_CHAIN_HUB = 1 << 4,     /* a hub: shown, not walked through */
};

struct weft_chain {
	uint8_t *in;       /* per thread: enum weft_chain_flags, 0: out */
	uint32_t nthreads; /* threads `in` covers (the model's, then) */
	uint32_t subject;
	int depth;
	uint32_t size;     /* threads in the chain, the subject included */
	uint32_t hubs;     /* of which hubs */
};

WEFT_API int weft_chain(const struct weft_model *m, uint32_t thread, int depth,
	       struct weft_chain *c);
WEFT_API void weft_chain_release(struct weft_chain *c);
/* Whether a thread is a hub (as above). */
WEFT_API int weft_model_is_hub(const struct weft_model *m, uint32_t thread);

/*
 * A thread for an inspector, as data: how long it lived, ran and waited,
 * and every arrow in or out, label and note of it, in time order, each an
 * entry (front ends present them; none need parse text).
 *
 * A wait is a try-read (WEFT_ARROW_TRY_READ): the waiter waited on the
 * other thread from the entry's time until that thread ended or the
 * waiter ran again (was woken), whichever came first; neither: until the
 * end of the trace.
 */
enum weft_entry_kind {
	WEFT_ENTRY_ARROW, /* an arrow in or out (a wait among them) */
	WEFT_ENTRY_LABEL,
	WEFT_ENTRY_NOTE,
};

enum weft_wait_end {
	WEFT_WAIT_NONE,	   /* not a wait */
	WEFT_WAIT_ENDED,   /* the awaited thread ended (resolved, failed...) */
	WEFT_WAIT_WOKEN,   /* the waiter ran again first */
	WEFT_WAIT_AT_END,  /* still waiting when the trace ends */
};

struct weft_entry {
	int64_t t;	/* when: ns from the trace's origin */
	int64_t dur;	/* a wait's length (ns); -1: not a wait */
	uint32_t other; /* the arrow's other thread, or WEFT_NONE */
	uint32_t arrow; /* index in weft_model_arrows(), or WEFT_NONE */
	uint32_t text;	/* a label's or note's text (weft_model_string) */
	uint8_t kind;	/* enum weft_entry_kind */
	uint8_t out;	/* an arrow from the thread (1) or into it (0) */
	uint8_t wait;	/* enum weft_wait_end */
	uint8_t pad;
};

struct weft_inspect {
	int64_t lifetime; /* creation to end (pending: to its last mention) */
	int64_t running;  /* its runs within its life (pending: to the
			     end of the trace) */
	int64_t waiting;  /* the union of its own waits (arrows out) within
			     its life, less the time it ran: running +
			     waiting <= its life */
	struct weft_entry *entries; /* in time order, then arrows before
				       labels before notes */
	uint32_t n;
};

/* Fills `in` (which must be zeroed or released before) for `thread`.
 * Returns 0, WEFT_EINVAL for no such thread, or -ENOMEM.  Release with
 * weft_inspect_release() (which accepts a zeroed one). */
WEFT_API int weft_model_inspect(const struct weft_model *m, uint32_t thread,
				struct weft_inspect *in);
WEFT_API void weft_inspect_release(struct weft_inspect *in);
/* One entry of `thread` as a line for a person, its arrows said from its
 * side: "at 0.001200 s: created TITLE", "... created by TITLE", "...
 * resolved by TITLE", "... waited on (not ready) TITLE for 2.5 ms (until
 * it resolved)", "at ...: label: TEXT".  weft_model_inspect() lists no
 * arrow of a thread to itself (its own resolve).  Writes at most `cap` bytes, NUL
 * included; returns the whole length (like snprintf). */
WEFT_API size_t weft_entry_text(const struct weft_model *m, uint32_t thread,
				const struct weft_entry *e, char *buf,
				size_t cap);

/*
 * A thread described for a person, as lines of text: its title; id and
 * kind; when it was created and how and when it ended (with its failure
 * message); how long it lived, ran and waited; its creator.  The head
 * is that much; the whole description goes on with every entry of
 * weft_model_inspect(), one a line (weft_entry_text()).  Writes at most
 * `cap` bytes, NUL included; returns the length of the whole text (like
 * snprintf).  Both viewers' inspectors show the head above the entries.
 */
WEFT_API size_t weft_model_describe_head(const struct weft_model *m,
					 uint32_t thread, char *buf,
					 size_t cap);
WEFT_API size_t weft_model_describe(const struct weft_model *m, uint32_t thread,
			   char *buf, size_t cap);

/*
 * weft_export_chrome - the model as Chrome trace-event JSON (Perfetto,
 * chrome://tracing): async slices for async threads with their runs
 * nested, X slices for what each OS thread ran, a flow with a fresh id
 * per interaction, counters, idle periods, pauses, labels, losses.
 * Returns 0 or a negative code if writing failed.
 */
#include <stdio.h>
WEFT_API int weft_export_chrome(const struct weft_model *m, FILE *f);
/* The same, of only the threads i with only[i] (NULL: all; a causal
 * chain's weft_chain.in, say): their slices, their runs, the arrows
 * between them (or an OS thread); counters, idle periods, pauses,
 * phases and losses as they are. */
WEFT_API int weft_export_chrome_only(const struct weft_model *m, FILE *f,
				     const uint8_t *only);

/* Writes `s` as a JSON string literal: quotes, backslashes, control
 * bytes and '<' escaped, invalid UTF-8 replaced by U+FFFD. */
WEFT_API void weft_json_string(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_MODEL_H */
