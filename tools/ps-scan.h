/* SPDX-License-Identifier: MIT */
/*
 * ps-scan.h - weft ps's own pass over a trace: what a brief model and
 * weft_why_at() would say of the present (the pending async threads,
 * each OS thread's last run, idle period and loop phase, the processes),
 * without keeping arrows, runs, label histories or a why index of the
 * whole trace (docs/flight.md, "weft ps").
 *
 * Threads are numbered as a model numbers them (the order it makes
 * them, roots included), so ps.th[] reads as weft_model_threads() would;
 * `label` there is the scan's (ps_title() reads it).  What the scan
 * keeps of a thread besides is the present only: its open wait, the
 * last signal, resolution, failure or cancellation into it, its latest
 * run's start and OS thread.  weft_why_at() is followed step for step
 * in ps_why(), over that.
 */
#ifndef WEFT_PS_SCAN_H
#define WEFT_PS_SCAN_H

#include <stdint.h>

#include "weft/model.h"
#include "weft/read.h"

#include "common/idtab.h"

/* What the scan keeps of a thread beyond struct weft_thread. */
struct ps_more {
	int64_t wait_t;	     /* its open wait's try_read, INT64_MIN: none */
	int64_t wait_since;  /* since when it waits (a message's: sent) */
	int64_t ev_t;	     /* the last signal/resolve/fail/cancel into it */
	int64_t sig_t;	     /* the last signal into it, -1: none */
	int64_t run_t0;	     /* its latest started run's start */
	uint32_t wait_on;    /* its open wait's target, or NONE */
	uint32_t ev_from;    /* who made ev, or NONE: none */
	uint32_t run_stream; /* that run's OS thread, or NONE: no run */
	uint8_t wait_msg;    /* the wait is on another process's reply */
	uint8_t ev_kind;     /* ev's arrow kind */
	uint16_t pad;
};

/* An OS thread, as the scan follows it. */
struct ps_stream {
	uint32_t cur; /* current async thread, or NONE */
	int running, idle, phased;
	int64_t run_t0, idle_t0, phase_t0, t_last;
	uint32_t idle_reason, phase, phase_thread;
	/* its latest ending run, idle period, loop phase (have: 0 none) */
	int have_run, have_idle, have_phase;
	struct weft_run run;
	struct weft_interval idle_iv, phase_iv;
	int64_t end; /* where weft why sees its trace end (a run's, an
			arrow's or an idle period's latest time) */
};

#define PS_DIRECT ((uint64_t)1 << 26)

struct ps_scan {
	struct weft_reader *r;
	struct weft_thread *th; /* .label: a text (ps_title), NONE */
	struct ps_more *mo;
	uint32_t nth, cth, cmo;
	struct weft_model_stream *pst;
	struct ps_stream *st;
	uint32_t nst;
	struct weft_model_process *proc;
	uint32_t nproc;
	struct weft_loss *loss;
	uint32_t nloss, closs;
	/* labels: a name (high bit) or an offset in str */
	char *str;
	uint32_t nstr, cstr;
	/* id -> latest incarnation + 1 (0: none), for the ids under
	 * PS_DIRECT (a program's counted ids: a table by id, mapped, whose
	 * pages are touched only where ids are); the others in h */
	uint32_t *direct;
	int no_direct; /* it could not be mapped */
	/* id -> latest incarnation, with a memo (common/idtab.h) */
	struct weft__idtab ids;
	/* per kind (name id): the longest life of a thread that ended so */
	int64_t *longest;
	uint32_t clongest;
	int64_t ready_max; /* longest a woken waiter took to read, -1 */
	uint32_t *child_off, *child_idx; /* by creator (ps_why's, lazily) */
	struct ps_await {		 /* pending waits, by target */
		uint32_t target, waiter;
		int64_t since;
	} * await;
	uint32_t nawait;
	int64_t t0, t1;
	int have_t;
};

/* Reads every event of r (until its end, or what a live ring holds
 * now).  0, or a negative code (the reader's, -ENOMEM). */
int ps_scan_run(struct ps_scan *s, struct weft_reader *r);
void ps_scan_release(struct ps_scan *s);

/* weft_model_title() of thread t. */
const char *ps_title(const struct ps_scan *s, uint32_t t, char *buf,
		     unsigned cap);
/* weft_model_thread_process() of thread t. */
uint32_t ps_thread_process(const struct ps_scan *s, uint32_t t);
/* weft_why_at() of thread t (its evidence: the blocker's ps_more ev_*
 * fields, w->evidence the blocker or NONE).  0, or WEFT_EINVAL. */
int ps_why(struct ps_scan *s, uint32_t t, struct weft_why *w);

#endif
