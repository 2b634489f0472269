/* SPDX-License-Identifier: MIT */
/*
 * traces.c - what every reading command accepts as its trace: one or more
 * rings, run directories and bundles (read merged, as one trace), and the
 * clock offsets a user forces on machines (--offset HOST=+-NS); or, for
 * render and view, two runs to compare (traces_pair: the rule).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The merge's options: the --offset of each trace. */
static struct weft_merge_opts merge_opts(const struct traces *t)
{
	return (struct weft_merge_opts){
		.noffsets = t->noff,
		.offset_host = t->host,
		.offset_ns = t->ns,
	};
}

/* r opened (err 0), shown progress; else the error said, NULL. */
static struct weft_reader *opened(struct traces *t, struct weft_reader *r,
				  int err, const struct weft_diag *d)
{
	if (err) {
		error("cannot read %s: %s", traces_name(t),
		      d->msg[0] ? d->msg : weft_strerror(err));
		return NULL;
	}
	progress_attach(r, traces_name(t));
	return r;
}

struct weft_reader *traces_open(struct traces *t, unsigned flags)
{
	if (t->n == 1 && !t->noff)
		return open_trace(t->path[0], flags);
	struct weft_reader *r = NULL;
	struct weft_diag d = {0};
	struct weft_merge_opts o = merge_opts(t);
	int err = weft_reader_open_many(&r, t->path, t->n, flags, &o, &d);
	return opened(t, r, err, &d);
}

const char *process_end(const struct weft_process *p, char *buf, size_t cap)
{
	return weft_process_says(p->end, p->status, buf, cap);
}

struct weft_reader *traces_open_thread(struct traces *t, uint64_t id)
{
	struct weft_reader *r = NULL;
	struct weft_diag d = {0};
	struct weft_merge_opts o = merge_opts(t);
	int err = weft_reader_open_thread(&r, t->path, t->n, 0, &o, id, &d);
	return opened(t, r, err, &d);
}

struct weft_model *traces_model(struct traces *t, struct weft_reader **r)
{
	return traces_model_thread(t, 0, r);
}

struct weft_model *traces_model_thread(struct traces *t, uint64_t id,
				       struct weft_reader **r)
{
	struct weft_model *m;
	if (!(*r = id ? traces_open_thread(t, id) : traces_open(t, 0)))
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

struct weft_model *traces_model_one(struct traces *t, unsigned i,
				    struct weft_reader **r)
{
	/* (the offsets are shared, not copied: never released here) */
	struct traces *one = calloc(1, sizeof *one);
	if (!one)
		die("out of memory");
	one->path[0] = t->path[i];
	one->n = 1;
	one->noff = t->noff;
	memcpy(one->host, t->host, sizeof one->host);
	memcpy(one->ns, t->ns, sizeof one->ns);
	struct weft_model *m = traces_model(one, r);
	free(one);
	return m;
}

/* Whether `path` is a whole run: a run directory (its manifest), a
 * bundle whose parts are of one run, a ring not in a run directory.
 * NULL when it is, else why not. */
static const char *not_whole(const char *path)
{
	struct stat st;
	char *dir, buf[4096];
	if (!strcmp(path, "-"))
		return "standard input";
	if (stat(path, &st))
		return NULL; /* (opening it says what is wrong) */
	if (S_ISDIR(st.st_mode)) {
		snprintf(buf, sizeof buf, "%s/manifest", path);
		return access(buf, F_OK) ? "a directory with no manifest"
					 : NULL;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	/* a bundle's header (32 bytes), then its entries of 80 bytes: the
	 * run of each at byte 20 (docs/format.md, "Runs") */
	ssize_t got = pread(fd, buf, sizeof buf, 0);
	close(fd);
	if (got >= 8 && !memcmp(buf, "WEFTRING", 8)) {
		if (!(dir = strdup(path)))
			die("out of memory");
		snprintf(buf, sizeof buf, "%s/manifest", dirname(dir));
		free(dir);
		return access(buf, F_OK) ? NULL : "a ring of a run directory";
	}
	if (got >= 32 && !memcmp(buf, "WEFTBNDL", 8)) {
		uint32_t count, run0 = 0, run;
		memcpy(&count, buf + 12, 4);
		for (uint32_t k = 0; k < count; k++) {
			if (32 + 80 * (ssize_t)(k + 1) > got)
				return "a bundle of many parts";
			memcpy(&run, buf + 32 + 80 * k + 20, 4);
			if (k && run != run0)
				return "a bundle of several runs";
			run0 = run;
		}
		return NULL;
	}
	return NULL; /* (not a trace: opening it says so) */
}

/* Decides by the rule of weft-tools.h: 1 compare, 0 merge, and the
 * reason in why. */
static int pair_rule(struct traces *t, char *why, size_t cap)
{
	for (unsigned i = 0; i < 2; i++) {
		const char *no = not_whole(t->path[i]);
		if (no) {
			snprintf(why, cap, "'%s' is %s", t->path[i], no);
			return 0;
		}
	}
	struct weft_reader *r[2] = {0};
	uint64_t session[2];
	uint32_t pid[2], ppid[2];
	char comm[2][33];
	int rc = 0;
	for (unsigned i = 0; i < 2; i++) {
		if (weft_reader_open(&r[i], t->path[i], 0, NULL)) {
			/* (the merge says what is wrong with it) */
			snprintf(why, cap, "'%s' cannot be read", t->path[i]);
			goto out;
		}
		const struct weft_trace_info *in = weft_reader_info(r[i]);
		if (in->writer == WEFT_WRITER_LIVE) {
			/* (not whole yet: followed, as one run) */
			snprintf(why, cap, "'%s' is still being written",
				 t->path[i]);
			goto out;
		}
		session[i] = in->session;
		pid[i] = in->pid;
		ppid[i] = in->ppid;
		memcpy(comm[i], in->comm, sizeof comm[i]);
		comm[i][sizeof comm[i] - 1] = 0;
	}
	/* Session 0: a program that called weft_start() itself, outside
	 * any run, tells nothing of which run it belongs to: two of them
	 * are one run only as one process, or a process and its child. */
	if (session[0] && session[0] == session[1])
		snprintf(why, cap, "parts of one run (session %llx)",
			 (unsigned long long)session[0]);
	else if (!session[0] && !session[1] &&
		 (pid[0] == pid[1] || ppid[0] == pid[1] || ppid[1] == pid[0]))
		snprintf(why, cap,
			 "parts of one run (%s of pid %u and %u, no session)",
			 pid[0] == pid[1] ? "the same process"
					  : "a process "
					    "and its child",
			 (unsigned)pid[0], (unsigned)pid[1]);
	else if (strcmp(comm[0], comm[1]))
		snprintf(why, cap, "runs of different programs (%s, %s)",
			 comm[0], comm[1]);
	else {
		snprintf(why, cap, "two runs of %s", comm[0]);
		rc = 1;
	}
out:
	weft_reader_close(r[0]);
	weft_reader_close(r[1]);
	return rc;
}

int traces_pair(const struct cmd_usage *u, struct traces *t, int compare,
		int merge)
{
	if (compare && merge)
		return opts_error(u, "--compare and --merge exclude each "
				     "other");
	if (compare && t->n != 2)
		return opts_error(u, "--compare needs two traces (not %u)",
				  t->n);
	if (t->n != 2)
		return 0;
	char why[600];
	int c = compare ? 1 : merge ? 0 : pair_rule(t, why, sizeof why);
	if (compare || merge)
		snprintf(why, sizeof why, "as asked");
	progress_clear();
	if (c)
		fprintf(stderr,
			"weft: comparing %s with %s: %s (--merge reads them "
			"as one run)\n",
			t->path[0], t->path[1], why);
	else
		fprintf(stderr,
			"weft: merging %s and %s as one run: %s (--compare "
			"compares them)\n",
			t->path[0], t->path[1], why);
	return c;
}
