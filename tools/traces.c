/* SPDX-License-Identifier: MIT */
/*
 * traces.c - what every reading command accepts as its trace: one or more
 * rings, run directories and bundles (read merged, as one trace), and the
 * clock offsets a user forces on machines (--offset HOST=+-NS).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weft-tools.h"
#include "weft/model.h"

int traces_offset(void *ctx, const char *v, char *why, size_t cap)
{
	struct traces *t = ctx;
	const char *eq = strrchr(v, '=');
	int64_t ns;
	/* "+1500", "-2ms", "3.5us", "1s": a bare number is nanoseconds */
	if (!eq || eq == v || parse_duration(eq + 1, 1, 1, &ns)) {
		snprintf(why, cap,
			 "must be HOST=+-TIME, such as db1=+2.5ms "
			 "(not '%s')",
			 v);
		return -1;
	}
	if (t->noff == TRACES_MAX_OFFSETS) {
		snprintf(why, cap, "given more than %d times",
			 TRACES_MAX_OFFSETS);
		return -1;
	}
	char *h = strndup(v, (size_t)(eq - v));
	if (!h) {
		snprintf(why, cap, "out of memory");
		return -1;
	}
	t->ns[t->noff] = ns;
	t->host[t->noff++] = h;
	return 0;
}

int traces_add(struct traces *t, const char *path)
{
	if (t->n == TRACES_MAX)
		return -1;
	t->path[t->n++] = path;
	return 0;
}

void traces_release(struct traces *t)
{
	for (unsigned i = 0; i < t->noff; i++)
		free((char *)t->host[i]);
	t->noff = 0;
}

const char *traces_name(struct traces *t)
{
	if (t->n <= 1)
		return t->n ? t->path[0] : "";
	snprintf(t->what, sizeof t->what, "%s (and %u more)", t->path[0],
		 t->n - 1);
	return t->what;
}

struct weft_reader *traces_open(struct traces *t, unsigned flags)
{
	if (t->n == 1 && !t->noff)
		return open_trace(t->path[0], flags);
	struct weft_reader *r;
	struct weft_diag d = {0};
	struct weft_merge_opts o = {
		.noffsets = t->noff,
		.offset_host = t->host,
		.offset_ns = t->ns,
	};
	int err = weft_reader_open_many(&r, t->path, t->n, flags, &o, &d);
	if (!err)
		progress_attach(r, traces_name(t));
	if (err) {
		if (d.msg[0])
			error("cannot read %s: %s", traces_name(t), d.msg);
		else
			error("cannot read %s: %s", traces_name(t),
			      weft_strerror(err));
		return NULL;
	}
	return r;
}

const char *process_end(const struct weft_process *p, char *buf, size_t cap)
{
	return weft_process_says(p->end, p->status, buf, cap);
}

struct weft_model *traces_model(struct traces *t, struct weft_reader **r)
{
	struct weft_model *m;
	if (!(*r = traces_open(t, 0)))
		return NULL;
	int err = weft_model_load(&m, *r);
	if (err) {
		error("cannot model %s: %s", traces_name(t),
		      weft_strerror(err));
		weft_reader_close(*r);
		*r = NULL;
		return NULL;
	}
	return m;
}
