/* SPDX-License-Identifier: MIT */
/*
 * api.c - the public calls on an open reader, the same for every source:
 * each goes through the source's table (struct weft__reader_ops,
 * internal.h: a ring's in reader.c, a merge's in merge.c), so that this
 * file calls no room of the reader and any room may call it.  Also the
 * progress callback, counted here for every source.  (The opening calls
 * are open.c's: they choose the source.)
 */
#include "internal.h"

static double read_fraction(const struct weft_reader *r)
{
	uint64_t done = 0, all = 0;
	r->ops->packets(r, &done, &all);
	return all ? (double)done / (double)all : -1;
}

static __attribute__((noinline)) int progress(struct weft_reader *r, int rc)
{
	if (rc == 0 && ++r->progress_n % WEFT__PROGRESS_EVERY == 0)
		r->progress(r->progress_arg, r->progress_n, read_fraction(r));
	else if (rc == WEFT_EEOF && !r->progress_end) {
		r->progress_end = 1;
		r->progress(r->progress_arg, r->progress_n, 1.0);
	}
	return rc;
}

/* Past the batch: the source's next event. */
static __attribute__((noinline)) int from_source(struct weft_reader *r,
						 struct weft_event *ev)
{
	int rc = r->ops->next(r, ev);
	if (__builtin_expect(r->progress != NULL, 0))
		return progress(r, rc);
	return rc;
}

/* The common path, kept small: an event of the batch a ring decoded ahead
 * (a merge has none: each of its events from its source). */
int weft_reader_next(struct weft_reader *r, struct weft_event *ev)
{
	if (__builtin_expect(r->bi < r->bn, 1)) {
		*ev = r->batch[r->bi++];
		if (__builtin_expect(r->progress != NULL, 0))
			return progress(r, 0);
		return 0;
	}
	return from_source(r, ev);
}

void weft_reader_on_progress(struct weft_reader *r,
			     void (*fn)(void *arg, uint64_t events,
					double fraction),
			     void *arg)
{
	r->progress = fn;
	r->progress_arg = arg;
	r->progress_end = 0;
}

const struct weft_trace_info *weft_reader_info(struct weft_reader *r)
{
	r->ops->info(r);
	return &r->info;
}

const struct weft_problem *weft_reader_problems(struct weft_reader *r,
						unsigned *n)
{
	return r->ops->problems(r, n);
}

const char *weft_reader_name(struct weft_reader *r, uint32_t id)
{
	return r->ops->name(r, id);
}

int weft_reader_copy(struct weft_reader *r, unsigned flags, void **out,
		     size_t *len, uint64_t *torn)
{
	return r->ops->copy(r, flags, out, len, torn);
}

int weft_ctf_write(struct weft_reader *r, const char *dir, struct weft_diag *d)
{
	return r->ops->ctf(r, dir, d);
}

const struct weft_process *weft_reader_processes(struct weft_reader *r,
						 uint32_t *n)
{
	return r->ops->processes(r, n);
}

uint32_t weft_reader_stream_process(struct weft_reader *r, uint32_t stream)
{
	return r->ops->stream_process(r, stream);
}

const struct weft_host *weft_reader_hosts(struct weft_reader *r, uint32_t *n)
{
	return r->ops->hosts(r, n);
}

void weft_reader_close(struct weft_reader *r)
{
	if (r)
		r->ops->close(r);
}
