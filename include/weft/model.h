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
 * What is worked out from a model has a header of its own: why.h (why a
 * thread is still pending), chain.h (the causal chain), layout.h (rows),
 * inspect.h (a thread for an inspector), path.h (the critical path),
 * stats.h, diff.h, export.h (Chrome JSON).
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
	/* still pending at the end of the trace */                            \
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
	WEFT_THREAD_ROOT = 1 << 0,	     /* an OS thread itself */
	WEFT_THREAD_NO_CREATE = 1 << 1,	     /* its creation was not seen */
	WEFT_THREAD_SHOULD_RESOLVE = 1 << 2, /* weft_should_resolve() on it */
};

struct weft_thread {
	uint64_t id;
	int64_t t_create;     /* creation (or first mention) */
	int64_t t_end;	      /* end, or last mention if pending */
	uint32_t parent;      /* creator, WEFT_NONE if unknown */
	uint32_t stream;      /* OS thread where it was created */
	uint32_t kind;	      /* interned name id (weft_model_name) */
	uint32_t label;	      /* its latest label (index in labels), or NONE */
	uint32_t message;     /* failure message (weft_model_string), or NONE */
	uint32_t became;      /* successor if WEFT_END_BECAME, else NONE */
	uint32_t incarnation; /* 0 for the first thread with this id */
	uint8_t end;	      /* enum weft_end */
	uint8_t flags;	      /* enum weft_thread_flags */
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
	X(CREATE, "created", "creates", 0.2, 0.2, 0.2)                         \
	/* to read from's result (from had resolved) */                        \
	X(READ, "read", "reads", 0, 0, 1)                                      \
	/* to read from's failure */                                           \
	X(READ_FAILED, "read failure", "reads the failure of", 1, 0, 0)        \
	/* from waited on to, not ready */                                     \
	X(TRY_READ, "waited on (not ready)", "waits on", 0.8, 0.8, 0.4)        \
	/* from resolved to */                                                 \
	X(RESOLVE, "resolved", "resolves", 0, 0.5, 0)                          \
	/* from made to fail */                                                \
	X(FAIL, "failed", "fails", 1, 0, 0)                                    \
	/* from signalled to */                                                \
	X(SIGNAL, "signalled", "signals", 1, 0.6, 0)                           \
	/* from was replaced by to */                                          \
	X(BECOME, "became", "is what became", 0.2, 0.2, 0.2)                   \
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
	uint32_t name; /* interned name id */
	uint32_t nsamples;
	const struct weft_sample *samples; /* in time order */
	int64_t min, max;
	uint32_t process; /* whose (weft_model_processes), or WEFT_NONE */
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
	uint32_t depth;	 /* spans: nesting depth */
};

struct weft_loss {
	int64_t t;
	uint32_t stream;
	uint32_t flags;	  /* WEFT_EVF_PARTIAL */
	uint64_t packets; /* packets lost there */
	uint64_t events;  /* events the writer declared dropped there */
};

struct weft_model_stream {
	uint32_t tid;
	char name[17];
	uint32_t root;	  /* its root thread */
	int64_t busy_ns;  /* time something ran there */
	int64_t idle_ns;  /* time it was idle */
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
	int end;	 /* enum weft_process_end */
	int status;	 /* exit status or signal */
	char comm[33];	 /* short name */
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

/*
 * A lean model (docs/huge.md): one that keeps its async threads, their
 * labels and per-OS-thread totals, but not the events' detail.  Runs,
 * loop phases and counter samples are handed to `sink` as they end and
 * not kept (weft_model_runs(), _intervals(), _arrows(), _losses() stay
 * empty, and a counter keeps only its count, min, max and last value:
 * weft_model_counter_last()); spans, pauses and notes are dropped.  Its
 * memory grows with the async threads, not with the events.  Set it on
 * a new model before its first step; a lean model is read once (a later
 * update returns -EINVAL).  The busy and idle totals of
 * weft_model_streams() are as in a whole model.
 */
struct weft_model_sink {
	void *ctx;
	/* a run, once it ended (or ended provisionally at the end);
	 * phase_t0: when its OS thread's loop entered the phase it is in
	 * now, INT64_MAX if it is in none */
	void (*run)(void *ctx, const struct weft_run *r, int64_t phase_t0);
	/* a loop phase once it ended; open_run_t0: when the run still
	 * open on its OS thread began, INT64_MIN if none is */
	void (*phase)(void *ctx, const struct weft_interval *v,
		      int64_t open_run_t0);
	/* a counter's sample (its value as the model keeps it) */
	void (*sample)(void *ctx, uint32_t name, uint32_t process, int64_t t,
		       int64_t value);
	/* (optional, NULL: not wanted; the index, include/weft/index.h)
	 * an idle period of OS thread `stream`, once it ended (or ended
	 * provisionally at the end) */
	void (*idle)(void *ctx, uint32_t stream, int64_t t0, int64_t t1);
	/* an arrow, as the whole model would keep it (weft_model_arrows) */
	void (*arrow)(void *ctx, const struct weft_arrow *a);
	/* a label or a note (WEFT_EV_LABEL, WEFT_EV_NOTE) on OS thread
	 * `stream`: one for each that the whole model keeps in
	 * weft_model_labels() */
	void (*mark)(void *ctx, uint32_t stream, int64_t t, uint32_t kind);
};
WEFT_API int weft_model_set_sink(struct weft_model *m,
				 const struct weft_model_sink *sink);
/*
 * A brief model (weft ps; docs/flight.md): the present of a trace, read
 * once.  It keeps what a whole model keeps of async threads, arrows,
 * labels, losses and processes, but of the runs only each OS thread's
 * latest ending and each async thread's latest started, of the idle
 * periods and loop phases only each OS thread's latest ending, and no
 * spans nor pauses; weft_why_at() on it answers as on a whole model, and
 * weft_model_streams()'s busy and idle totals are a whole model's.  Set
 * it on a new model before its first step (not with a sink); a later
 * update returns -EINVAL.
 */
WEFT_API int weft_model_set_brief(struct weft_model *m);
/* Counter i's last value (a lean model keeps no samples). */
WEFT_API int64_t weft_model_counter_last(const struct weft_model *m,
					 uint32_t i);

WEFT_API const struct weft_thread *
weft_model_threads(const struct weft_model *m, uint32_t *n);
WEFT_API const struct weft_run *weft_model_runs(const struct weft_model *m,
						uint32_t *n);
WEFT_API const struct weft_arrow *weft_model_arrows(const struct weft_model *m,
						    uint32_t *n);
WEFT_API const struct weft_label *weft_model_labels(const struct weft_model *m,
						    uint32_t *n);
WEFT_API const struct weft_counter *
weft_model_counters(const struct weft_model *m, uint32_t *n);
/* Counter i's title, as every front end shows it: its name, and in a
 * trace of several processes its process ("ticks (pid 4242)").  Writes
 * at most cap bytes (NUL included); returns the length it needed. */
WEFT_API size_t weft_model_counter_title(const struct weft_model *m, uint32_t i,
					 char *buf, size_t cap);
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
WEFT_API const struct weft_interval *
weft_model_intervals(const struct weft_model *m, int kind, uint32_t *n);
WEFT_API const struct weft_loss *weft_model_losses(const struct weft_model *m,
						   uint32_t *n);
WEFT_API const struct weft_model_stream *
weft_model_streams(const struct weft_model *m, uint32_t *n);

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
WEFT_API const char *weft_model_title(const struct weft_model *m,
				      uint32_t thread, char *buf, unsigned cap);

/* Time range of the trace (ns since origin). */
WEFT_API void weft_model_range(const struct weft_model *m, int64_t *t0,
			       int64_t *t1);

/* The reader the model was loaded from. */
WEFT_API struct weft_reader *weft_model_reader(const struct weft_model *m);

/* Bytes of memory the model uses. */
WEFT_API uint64_t weft_model_bytes(const struct weft_model *m);

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

#ifdef __cplusplus
}
#endif

/* Each analysis on the model has a header of its own: code includes the
 * ones it uses.  (model.h still brings them all, for the code written
 * before they were split.) */
#include "weft/chain.h"
#include "weft/export.h"
#include "weft/inspect.h"
#include "weft/layout.h"
#include "weft/why.h"

#endif /* WEFT_MODEL_H */
