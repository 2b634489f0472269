/* SPDX-License-Identifier: MIT */
/*
 * prefetch.c - a stream's next packet read on a second thread while this
 * one decodes the current packet.  Reading a file with pread copies
 * every byte from the page cache (a fifth of the reader's time on 10 M
 * events); a worker does the copy of packet k+1 meanwhile, into the
 * stream's second buffer, and the reader swaps the buffers when it
 * reaches it.  Only for files read whole (not a live ring's protocol of
 * several reads), one worker for a reader and the rings merged with it,
 * started at the first packet it can read ahead and joined when the
 * reader is closed.
 *
 * Waking a sleeping thread costs about what the copy saves (an IPI, on a
 * virtual machine an exit to the host): the worker, its queue empty,
 * watches it for twice the usual time between packets before it sleeps.
 * So only a reader that goes through its packets quickly reads ahead:
 * under SPIN_NS / 2 between them (a loop over the events, a packet of the
 * default size in 40 µs), as measured over its first packets, read by
 * itself.  One that does more with each event (a model built as it reads,
 * text printed, several rings merged) has the copy small against the
 * rest, and a wake-up a packet would cost it more than it saves: it goes
 * on reading on its own thread.  With one CPU nothing is read ahead (a
 * spinning worker would take the reader's CPU).  WEFT_READ_AHEAD=always
 * reads ahead whatever the pace (the tests' way to the worker's paths on
 * slow builds), =never never.
 *
 * The reader never waits for a job the worker has not begun: it takes it
 * back and reads the packet itself.  In a child forked while a worker
 * ran, there is no worker (and its lock may be held for ever): every job
 * is read by the reader itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define SPIN_NS 100000

enum { PF_IDLE, PF_QUEUED, PF_BUSY, PF_DONE };

struct weft__pf {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct weft__pf_job *head, *tail;
	pthread_t th;
	int started, failed;
	int quit;	    /* (atomic) */
	unsigned long jobs; /* (atomic) jobs queued so far */
	int64_t last, gap;  /* the last packet's time, the usual time
			       between (a moving average) */
	unsigned seen;	    /* packets asked for */
	int always;	    /* WEFT_READ_AHEAD=always */
	pid_t pid;	    /* the process whose worker this is */
};

/* The second buffers' bytes, in all readers of the process: a merge of
 * thousands of rings does not double its memory. */
#define PF_BUDGET ((size_t)64 << 20)
static size_t pf_bytes;

struct weft__pf *weft__pf_new(void)
{
	const char *how = getenv("WEFT_READ_AHEAD");
	int always = how && !strcmp(how, "always");
	if (how && !strcmp(how, "never"))
		return NULL;
	cpu_set_t cpus;
	if (!always && sched_getaffinity(0, sizeof cpus, &cpus) == 0 &&
	    CPU_COUNT(&cpus) < 2)
		return NULL;
	struct weft__pf *pf = calloc(1, sizeof *pf);
	if (!pf)
		return NULL;
	pf->always = always;
	pthread_mutex_init(&pf->mu, NULL);
	pthread_cond_init(&pf->work, NULL);
	pthread_cond_init(&pf->done, NULL);
	pf->pid = getpid();
	return pf;
}

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Watches for a job queued after the `seen`th, or for the end, for
 * twice the usual time between packets, if that is under SPIN_NS / 2 (the
 * lock not held). */
static void spin(struct weft__pf *pf, unsigned long seen, int64_t gap)
{
	if (gap >= SPIN_NS / 2)
		return;
	int64_t until = now_ns() + 2 * gap + 1000;
	for (unsigned i = 1;; i++) {
		if (__atomic_load_n(&pf->jobs, __ATOMIC_RELAXED) != seen ||
		    __atomic_load_n(&pf->quit, __ATOMIC_RELAXED))
			return;
		if (i % 64 == 0 && now_ns() > until)
			return;
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
}

static void *worker(void *arg)
{
	struct weft__pf *pf = arg;
	pthread_mutex_lock(&pf->mu);
	for (;;) {
		if (!pf->head && !pf->quit) {
			unsigned long seen = pf->jobs;
			int64_t gap = pf->gap;
			pthread_mutex_unlock(&pf->mu);
			spin(pf, seen, gap);
			pthread_mutex_lock(&pf->mu);
		}
		while (!pf->head && !pf->quit)
			pthread_cond_wait(&pf->work, &pf->mu);
		if (!pf->head)
			break;
		struct weft__pf_job *j = pf->head;
		pf->head = j->next;
		if (!pf->head)
			pf->tail = NULL;
		__atomic_store_n(&j->state, PF_BUSY, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&pf->mu);
		int err = weft__src_read(&j->src, j->off, j->dst, j->len);
		pthread_mutex_lock(&pf->mu);
		j->err = err;
		__atomic_store_n(&j->state, PF_DONE, __ATOMIC_RELAXED);
		pthread_cond_broadcast(&pf->done);
	}
	pthread_mutex_unlock(&pf->mu);
	return NULL;
}

/* The worker, with every signal blocked (the program's handlers run on
 * its own threads). */
static int start(struct weft__pf *pf)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&pf->th, NULL, worker, pf);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e)
		pf->failed = 1;
	else
		pf->started = 1;
	return !e;
}

int weft__pf_submit(struct weft__pf *pf, struct weft__pf_job *j)
{
	if (!pf || pf->pid != getpid())
		return 0;
	pthread_mutex_lock(&pf->mu);
	int64_t t = now_ns();
	if (pf->seen++ == 1)
		pf->gap = t - pf->last;
	else if (pf->seen > 1)
		pf->gap = (7 * pf->gap + (t - pf->last)) / 8;
	pf->last = t;
	/* (the pace known from a few packets read by the caller first) */
	int ok = pf->always || (pf->seen > 3 && pf->gap < SPIN_NS / 2);
	ok = ok && (pf->started || (!pf->failed && start(pf)));
	if (ok) {
		__atomic_store_n(&j->state, PF_QUEUED, __ATOMIC_RELAXED);
		j->next = NULL;
		if (pf->tail)
			pf->tail->next = j;
		else
			pf->head = j;
		pf->tail = j;
		__atomic_store_n(&pf->jobs, pf->jobs + 1, __ATOMIC_RELAXED);
		pthread_cond_signal(&pf->work);
	}
	pthread_mutex_unlock(&pf->mu);
	return ok;
}

/* Takes job j out of the queue (its lock held). */
static void unqueue(struct weft__pf *pf, struct weft__pf_job *j)
{
	struct weft__pf_job **at = &pf->head, *prev = NULL;
	while (*at && *at != j) {
		prev = *at;
		at = &(*at)->next;
	}
	if (!*at)
		return;
	*at = j->next;
	if (pf->tail == j)
		pf->tail = prev;
	j->next = NULL;
}

int weft__pf_collect(struct weft__pf *pf, struct weft__pf_job *j)
{
	/* (only the caller makes a job idle, or queues it) */
	if (__atomic_load_n(&j->state, __ATOMIC_RELAXED) == PF_IDLE)
		return 0;
	if (pf->pid != getpid()) {
		/* forked: no worker here */
		j->state = PF_IDLE;
		return 0;
	}
	pthread_mutex_lock(&pf->mu);
	int got = 0;
	if (j->state == PF_QUEUED)
		unqueue(pf, j); /* not begun: read by the caller */
	else {
		while (j->state == PF_BUSY)
			pthread_cond_wait(&pf->done, &pf->mu);
		got = 1;
	}
	__atomic_store_n(&j->state, PF_IDLE, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&pf->mu);
	return got;
}

void weft__pf_free(struct weft__pf *pf)
{
	if (!pf)
		return;
	if (pf->pid != getpid()) {
		/* forked while it ran: its lock may be held for ever */
		free(pf);
		return;
	}
	if (pf->started) {
		pthread_mutex_lock(&pf->mu);
		__atomic_store_n(&pf->quit, 1, __ATOMIC_RELAXED);
		pthread_cond_signal(&pf->work);
		pthread_mutex_unlock(&pf->mu);
		pthread_join(pf->th, NULL);
	}
	pthread_cond_destroy(&pf->work);
	pthread_cond_destroy(&pf->done);
	pthread_mutex_destroy(&pf->mu);
	free(pf);
}

uint8_t *weft__pf_buffer(size_t n)
{
	size_t had = __atomic_fetch_add(&pf_bytes, n, __ATOMIC_RELAXED);
	uint8_t *b = had + n <= PF_BUDGET ? malloc(n) : NULL;
	if (!b)
		__atomic_fetch_sub(&pf_bytes, n, __ATOMIC_RELAXED);
	return b;
}

void weft__pf_buffer_free(uint8_t *b, size_t n)
{
	if (!b)
		return;
	free(b);
	__atomic_fetch_sub(&pf_bytes, n, __ATOMIC_RELAXED);
}
