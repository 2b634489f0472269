/* SPDX-License-Identifier: MIT */
/*
 * flight.h - flight recording (docs/flight.md): the trigger grammar
 * (trigger.c), the watcher that follows a live ring or run, evaluates the
 * triggers and saves snapshots that keep the cause (watch.c), and marks
 * set by hand (`weft mark`).
 */
#ifndef WEFT_FLIGHT_H
#define WEFT_FLIGHT_H

#include <stddef.h>
#include <stdint.h>

enum trig_kind {
	TRIG_PENDING = 1, /* pending(kind=K, label="G") > T */
	TRIG_CALLBACK,	  /* callback > T: one run of an async thread */
	TRIG_ITERATION,	  /* iteration > T: an OS thread busy between idles */
	TRIG_FAILED,	  /* failed(message="G"), or any failure */
	TRIG_COUNTER,	  /* counter(NAME) OP V */
	TRIG_UNRESOLVED,  /* unresolved_at_exit */
	TRIG_MARK,	  /* mark: `weft mark` (always armed) */
	TRIG_PHASE,	  /* phase(name="G") > T: a loop phase, busy */
	TRIG_LOST_WAKEUP, /* lost_wakeup > T: weft why's verdict, held T */
};

enum trig_op { OP_GT, OP_GE, OP_LT, OP_LE, OP_EQ };

#define TRIG_TEXT 256

struct trigger {
	int kind;		    /* enum trig_kind */
	char expr[TRIG_TEXT];	    /* as given */
	char kind_is[TRIG_TEXT];    /* pending: kind=, "" none */
	char label_glob[TRIG_TEXT]; /* pending: label=, failed: message=,
				       phase: name=, "" */
	int has_label;
	char counter[TRIG_TEXT];
	int op;	      /* enum trig_op */
	double value; /* counter */
	int64_t ns;   /* pending, callback, iteration, phase, lost_wakeup: T */
};

/*
 * Parses one trigger expression.  Returns 0, or -1 with `err` holding a
 * message of two or three lines: what is wrong, the expression, and a
 * caret under the bad token ("expected ')' after the selector").
 */
int trigger_parse(const char *expr, struct trigger *t, char *err, size_t cap);

/* What `weft watch` and `weft record --flight` run. */
#define WATCH_MAX_TRIGGERS 32
struct watch_opts {
	const char *src; /* a ring file or a run directory */
	const char *dir; /* where snapshots and flight.log go */
	struct trigger trig[WATCH_MAX_TRIGGERS];
	int ntrig;
	int64_t window_ns;   /* before the trigger (0: all the ring holds) */
	int64_t after_ns;    /* after it */
	int64_t cooldown_ns; /* between two snapshots of one trigger */
	int max_per_hour;    /* snapshots of the watcher in any hour */
	uint64_t max_disk;   /* bytes of snapshots in dir (0: no limit) */
	int max_snapshots;   /* stop after this many (0: no limit) */
	int64_t poll_ns;     /* how often the ring is looked at */
	int quiet;
	volatile int *stop; /* set by another thread or a signal: 1 finish
			       and return; 2 the same, the program having
			       exited (unresolved_at_exit is checked) */
	/* what it did: */
	uint64_t fired, saved, skipped;
};

/* Follows o->src until it ends (its writers stopped or gone, or *o->stop
 * set), saving snapshots.  Returns 0 or 1 (an error, said). */
int watch_run(struct watch_opts *o);

/* The directory `weft mark` writes into for a ring or run directory (the
 * watcher reads it): RUNDIR/marks, or RING.marks. */
void mark_dir(const char *src, char *buf, size_t cap);

/* The --trigger options parsed into o (a bad one said, with a caret):
 * 0 or 2.  And the --max-disk option's parser. */
struct opt_list;
int flight_triggers(struct watch_opts *o, const struct opt_list *l);
int flight_size_arg(void *ctx, const char *v, char *why, size_t cap);

/* `weft info DIR` of a directory of snapshots: prints its flight.log
 * summary; 0, or -1 when DIR holds no flight.log. */
int flight_info(const char *dir, FILE *f);

#endif /* WEFT_FLIGHT_H */
