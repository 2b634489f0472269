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

#include <stdint.h>

#include "weft/read.h"

#ifdef __cplusplus
extern "C" {
#endif

#define WEFT_NONE UINT32_MAX

enum weft_end {
	WEFT_END_PENDING = 0,  /* still pending at the end of the trace */
	WEFT_END_RESOLVED,
	WEFT_END_FAILED,       /* see weft_thread.message */
	WEFT_END_BECAME,       /* replaced by weft_thread.became */
	WEFT_END_CANCELLED,
	WEFT_END_REPLACED,     /* its id was created again while it lived */
};

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

enum weft_arrow_kind {
	WEFT_ARROW_CREATE,    /* from created to */
	WEFT_ARROW_READ,      /* to read from's result (from had resolved) */
	WEFT_ARROW_READ_FAILED, /* to read from's failure */
	WEFT_ARROW_TRY_READ,  /* from waited on to, not ready */
	WEFT_ARROW_RESOLVE,   /* from resolved to */
	WEFT_ARROW_FAIL,      /* from made to fail */
	WEFT_ARROW_SIGNAL,    /* from signalled to */
	WEFT_ARROW_BECOME,    /* from was replaced by to */
	WEFT_ARROW_CANCEL,    /* from cancelled to */
	WEFT_ARROW_KINDS
};

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

struct weft_counter {
	uint32_t name;     /* interned name id */
	uint32_t nsamples;
	const struct weft_sample *samples; /* in time order */
	int64_t min, max;
};

/* Background intervals: idle periods (the OS thread blocked, `name` the
 * reason), pauses (`name` the kind), spans (`name`, on `thread`). */
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
/* kind: WEFT_EV_IDLE, WEFT_EV_PAUSE, WEFT_EV_SPAN_BEGIN or WEFT_EV_PHASE
 * (an event loop's phases: per OS thread, disjoint and in time order) */
WEFT_API const struct weft_interval *weft_model_intervals(const struct weft_model *m,
						 int kind, uint32_t *n);
WEFT_API const struct weft_loss *weft_model_losses(const struct weft_model *m,
					  uint32_t *n);
WEFT_API const struct weft_model_stream *weft_model_streams(const struct weft_model *m,
						   uint32_t *n);

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

/* "resolved", "read", ... for an enum weft_arrow_kind. */
WEFT_API const char *weft_arrow_name(int kind);

/*
 * weft_export_chrome - the model as Chrome trace-event JSON (Perfetto,
 * chrome://tracing): async slices for async threads with their runs
 * nested, X slices for what each OS thread ran, a flow with a fresh id
 * per interaction, counters, idle periods, pauses, labels, losses.
 * Returns 0 or a negative code if writing failed.
 */
#include <stdio.h>
WEFT_API int weft_export_chrome(const struct weft_model *m, FILE *f);

/* Writes `s` as a JSON string literal: quotes, backslashes, control
 * bytes and '<' escaped, invalid UTF-8 replaced by U+FFFD. */
WEFT_API void weft_json_string(FILE *f, const char *s);

#ifdef __cplusplus
}
#endif

#endif /* WEFT_MODEL_H */
