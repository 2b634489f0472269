/* SPDX-License-Identifier: MIT */
/*
 * traces.c - what every reading command accepts as its trace: one or more
 * rings, run directories and bundles (read merged, as one trace), and the
 * clock offsets a user forces on machines (--offset HOST=+-NS).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "weft-tools.h"
#include "weft/model.h"

/* "+1500", "-2ms", "3.5us", "1s": nanoseconds; -1 when it is none. */
static int parse_ns(const char *s, int64_t *out)
{
	int neg = *s == '-';
	if (*s == '+' || *s == '-')
		s++;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -1;
	double mult = 1;
	if (!strcmp(end, "s"))
		mult = 1e9;
	else if (!strcmp(end, "ms"))
		mult = 1e6;
	else if (!strcmp(end, "us"))
		mult = 1e3;
	else if (*end && strcmp(end, "ns"))
		return -1;
	v *= mult;
	if (v > 9.2e18)
		return -1;
	*out = neg ? -(int64_t)(v + 0.5) : (int64_t)(v + 0.5);
	return 0;
}

int traces_arg(struct traces *t, int argc, char **argv, int *i, int exists)
{
	const char *a = argv[*i];
	if (!strcmp(a, "--offset") || !strncmp(a, "--offset=", 9)) {
		const char *v = a[8] == '='	? a + 9
				: *i + 1 < argc ? argv[++*i]
						: NULL;
		const char *eq = v ? strrchr(v, '=') : NULL;
		if (!eq || eq == v || t->noff == TRACES_MAX_OFFSETS ||
		    parse_ns(eq + 1, &t->ns[t->noff]))
			return -1;
		size_t n = (size_t)(eq - v);
		char *h = malloc(n + 1);
		if (!h)
			return -1;
		memcpy(h, v, n);
		h[n] = 0;
		t->host[t->noff++] = h;
		return 1;
	}
	if (a[0] == '-' && a[1])
		return 0;
	struct stat sb;
	if (exists && strcmp(a, "-") && stat(a, &sb) < 0)
		return 0;
	if (t->n == TRACES_MAX)
		return -1;
	t->path[t->n++] = a;
	return 1;
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
