/* SPDX-License-Identifier: MIT */
/*
 * cmd-fetch.c - `weft fetch --clickhouse URL --request ID|LABEL -o OUT`:
 * one request's causal chain out of the tables `weft ship` fills
 * (docs/fleet.md), back as a trace every reader and viewer opens.
 *
 * 1. The request is found in ClickHouse: its id (threads.id), else a
 *    label (labels.text, exactly, else a part of it), as `weft export
 *    --select` finds it; it must name one thread of one shipped trace
 *    (host, run, source).
 * 2. That trace's async threads, arrows and labels are read back (the
 *    rows of its batches: one trace's, as `weft ship` modelled it, its
 *    processes on one clock) and recorded into a scratch ring by
 *    weft-import (the writer of `weft import --otlp`, fed the same
 *    spans and links `weft export --otlp` writes), each thread under the
 *    id thread + 1, so that ids two processes share stay apart.
 * 3. The scratch ring is modelled and the chain taken with weft_chain()
 *    (every arrow, stopping at hubs: the definition of the viewers and
 *    `weft export --select`); its threads, the arrows between them (or
 *    an OS thread) and their labels are recorded again into OUT, under
 *    their own ids (thread + 1 if two processes of the chain share one).
 *
 * 4. Across hosts: the chain's message ends (msg_ends, which weft ship
 *    fills with the ends its model left unpaired) whose channel no
 *    fetched trace pairs are looked up in the other traces' msg_ends;
 *    each trace holding the other end joins, every trace becomes a
 *    scratch ring of its own machine with its message ends replayed,
 *    the rings are merged (msgs.c pairs the messages, clocks.c aligns
 *    the clocks: the library's definitions) and the chain taken again,
 *    until it reaches no trace not yet fetched.  A channel's id names a
 *    port pair, which connections at different times share: each end
 *    says its connection (msg_ends.conn), the other end joined is the
 *    connection nearest in realtime (other_ends), and each connection
 *    is replayed on a channel of its own (replay_chans).  The waits
 *    msgs.c infers from the loops' fire events were shipped as
 *    received ends of no bytes: the merge makes its try_read at the
 *    traces' end from them, kept in OUT as the read arrows are.
 *
 * OUT is replaced only if it is a weft ring (weft_start()'s rule).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clickhouse.h"
#include "otlp.h"
#include "pb.h"
#include "weft-tools.h"
#include "weft/chain.h"
#include "weft/model.h"
#include "weft/read.h"
#include "common/grow.h"

#define NONE UINT32_MAX

struct row_thread {
	uint32_t thread; /* the host's thread number + its hosts's base */
	uint32_t host;	 /* index in struct fetch's hosts */
	int64_t id, process;
	int root, should;
	char *kind, *msg; /* msg: NULL when none */
};

struct row_arrow {
	uint32_t from, to; /* row threads; NONE: none */
	int64_t t, seq;
	int kind;
};

struct row_label {
	uint32_t thread;
	int64_t t;
	int note;
	char *text;
};

/* A message end another host may hold the other end of (msg_ends). */
struct row_mend {
	uint32_t th; /* row thread */
	int sent;
	int64_t chan, off, len, t;
	int64_t wall;  /* its realtime (the row's `time`) */
	int64_t conn;  /* its connection (msg_ends.conn); CONN_UNKNOWN */
	int64_t rchan; /* the channel replayed: one per connection */
};

#define CONN_UNKNOWN INT64_MIN
/* How far apart (realtime) the two ends of one connection may be seen:
 * the machines' realtime clocks must agree within it. */
#define CONN_SLACK INT64_C(1000000000)

struct rows {
	struct row_thread *th;
	size_t nth, cth;
	uint32_t *idx; /* thread number -> index in th (NONE) */
	uint32_t nidx;
	struct row_arrow *ar;
	size_t nar, car;
	struct row_label *lb;
	size_t nlb, clb;
	struct row_mend *me;
	size_t nme, cme;
};

/* TabSeparated: a field unescaped in place; NULL for \N. */
static char *tsv_field(char *s)
{
	if (!strcmp(s, "\\N"))
		return NULL;
	char *w = s;
	for (char *r = s; *r; r++) {
		if (*r != '\\' || !r[1]) {
			*w++ = *r;
			continue;
		}
		r++;
		switch (*r) {
		case 't':
			*w++ = '\t';
			break;
		case 'n':
			*w++ = '\n';
			break;
		case 'r':
			*w++ = '\r';
			break;
		case 'b':
			*w++ = '\b';
			break;
		case 'f':
			*w++ = '\f';
			break;
		case '0':
			*w++ = '\0';
			break;
		default:
			*w++ = *r;
		}
	}
	*w = 0;
	return s;
}

/* Splits the next line of *p into at most max fields (unescaped);
 * returns how many, or -1 at the end. */
static int tsv_line(char **p, char **f, int max)
{
	if (!**p)
		return -1;
	char *line = *p, *nl = strchr(line, '\n');
	if (nl) {
		*nl = 0;
		*p = nl + 1;
	} else
		*p = line + strlen(line);
	int n = 0;
	for (char *s = line; n < max;) {
		char *tab = strchr(s, '\t');
		if (tab)
			*tab = 0;
		f[n++] = tsv_field(s);
		if (!tab)
			break;
		s = tab + 1;
	}
	return n;
}

static int64_t num(const char *s)
{
	return s ? strtoll(s, NULL, 10) : -1;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");
	if (!d)
		die("out of memory");
	return d;
}

/* Room for one more element of an array (capacity *cap), 64 first. */
static void grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (weft__grow_to(p, cap, n + 1, size, 64, SIZE_MAX))
		die("out of memory");
}

/* A trace the chain reaches: its host, run and batches (HOST/RUN/WHAT/),
 * its threads numbered from base in struct rows. */
struct hsrc {
	char *host, *run, *prefix;
	uint32_t base;
	int64_t cal; /* the merge's time of its row time 0 */
	int has_cal;
};

/* Two ends of one connection paired: its channel pair (chan >> 1), the
 * traces (struct fetch's h) and their connections (c2 CONN_UNKNOWN:
 * rows shipped before msg_ends.conn, paired by channel alone). */
struct cmatch {
	uint64_t pair;
	uint32_t h1, h2;
	int64_t c1, c2;
};

/* A connection of the chain whose other end was looked for. */
struct ctried {
	uint64_t pair;
	uint32_t h;
	int64_t conn;
};

struct fetch {
	struct ch_server srv;
	const char *db;
	char params[200];
	int has_mends; /* the store has msg_ends */
	int has_conn;  /* ... with its column conn */
	struct hsrc *h;
	size_t nh, ch;
	struct cmatch *mt;
	size_t nmt, cmt;
	struct ctried *tr;
	size_t ntr, ctr;
};

/* Runs sql; its TabSeparated answer in *out (0), or says why (1). */
static int ask(struct fetch *f, const char *sql, struct ch_reply *out)
{
	char why[600];
	if (ch_query(&f->srv, f->params, sql, out, why, sizeof why))
		return error("%s", why);
	return 0;
}

/* The rows of `select` (columns FROM table) WHERE where ORDER BY order,
 * into out. */
static int ask_rows(struct fetch *f, const char *select, const char *where,
		    const char *order, struct ch_reply *out)
{
	char *sql;
	if (asprintf(&sql, "SELECT %s WHERE %s ORDER BY %s", select, where,
		     order) < 0)
		die("out of memory");
	int rc = ask(f, sql, out);
	free(sql);
	return rc;
}

static int arrow_kind(const char *tok)
{
	char buf[16];
	for (int k = 0; k < WEFT_ARROW_KINDS; k++) {
		/* the tokens of weft query's arrows.kind */
		const char *t = otlp_arrow_token(k, buf);
		if (tok && !strcmp(t, tok))
			return k;
	}
	return -1;
}

/* The rows of one shipped trace: those of host, run and batches that
 * begin with `prefix`. */
static int load_rows(struct fetch *f, const char *where, struct rows *R,
		     uint32_t hi)
{
	struct ch_reply rp;
	char *fl[8], *p;
	int n;
	uint32_t base = f->h[hi].base;
	size_t th0 = R->nth;
	if (ask_rows(f,
		     "thread, id, process, root, should_resolve, kind, message "
		     "FROM threads",
		     where, "thread", &rp))
		return 1;
	for (p = rp.body; (n = tsv_line(&p, fl, 8)) >= 0;) {
		if (n < 7 || !fl[0])
			continue;
		grow(&R->th, &R->cth, R->nth, sizeof *R->th);
		struct row_thread *t = &R->th[R->nth++];
		t->thread = (uint32_t)num(fl[0]) + base;
		t->host = hi;
		t->id = num(fl[1]);
		t->process = num(fl[2]);
		t->root = num(fl[3]) == 1;
		t->should = num(fl[4]) == 1;
		t->kind = xstrdup(fl[5]);
		t->msg = fl[6] ? xstrdup(fl[6]) : NULL;
		if (t->thread >= R->nidx)
			R->nidx = t->thread + 1;
	}
	ch_reply_free(&rp);
	free(R->idx);
	R->idx = malloc(((size_t)R->nidx + 1) * sizeof *R->idx);
	if (!R->idx)
		die("out of memory");
	memset(R->idx, 0xff, ((size_t)R->nidx + 1) * sizeof *R->idx);
	for (size_t i = 0; i < th0; i++)
		R->idx[R->th[i].thread] = (uint32_t)i;
	for (size_t i = th0; i < R->nth; i++) {
		if (R->idx[R->th[i].thread] != NONE)
			return error("the trace's rows hold thread %" PRIu32
				     " twice: it was shipped by chunks "
				     "(--follow); weft fetch needs a trace "
				     "shipped whole",
				     R->th[i].thread);
		R->idx[R->th[i].thread] = (uint32_t)i;
	}
	if (ask_rows(f, "arrow, kind, from_thread, to_thread, t FROM arrows",
		     where, "arrow", &rp))
		return 1;
	for (p = rp.body; (n = tsv_line(&p, fl, 8)) >= 0;) {
		if (n < 5 || !fl[0])
			continue;
		int k = arrow_kind(fl[1]);
		int64_t a = fl[2] ? num(fl[2]) + base : -1,
			b = fl[3] ? num(fl[3]) + base : -1;
		if (k < 0 || a < 0 || b < 0 || a >= R->nidx || b >= R->nidx ||
		    R->idx[a] == NONE || R->idx[b] == NONE || !fl[4])
			continue; /* an arrow with no thread at an end */
		grow(&R->ar, &R->car, R->nar, sizeof *R->ar);
		R->ar[R->nar++] = (struct row_arrow){R->idx[a], R->idx[b],
						     num(fl[4]), num(fl[0]), k};
	}
	ch_reply_free(&rp);
	if (ask_rows(f, "thread, t, kind, text FROM labels", where, "label",
		     &rp))
		return 1;
	for (p = rp.body; (n = tsv_line(&p, fl, 8)) >= 0;) {
		if (n < 4 || !fl[0] || !fl[1] || !fl[3])
			continue;
		int64_t th = num(fl[0]) + base;
		if (th < base || th >= R->nidx || R->idx[th] == NONE)
			continue;
		grow(&R->lb, &R->clb, R->nlb, sizeof *R->lb);
		R->lb[R->nlb++] = (struct row_label){
			R->idx[th], num(fl[1]), fl[2] && !strcmp(fl[2], "note"),
			xstrdup(fl[3])};
	}
	ch_reply_free(&rp);
	if (!f->has_mends)
		return 0;
	if (ask_rows(f,
		     f->has_conn ? "thread, dir, chan, off, len, t, time, conn "
				   "FROM "
				   "msg_ends"
				 : "thread, dir, chan, off, len, t, time, NULL "
				   "FROM "
				   "msg_ends",
		     where, "msg_end", &rp))
		return 1;
	for (p = rp.body; (n = tsv_line(&p, fl, 8)) >= 0;) {
		if (n < 8 || !fl[0] || !fl[1] || !fl[2] || !fl[3] || !fl[4] ||
		    !fl[5] || !fl[6])
			continue;
		int64_t th = num(fl[0]) + base;
		if (th < base || th >= R->nidx || R->idx[th] == NONE)
			continue;
		grow(&R->me, &R->cme, R->nme, sizeof *R->me);
		R->me[R->nme++] = (struct row_mend){
			R->idx[th], !strcmp(fl[1], "sent"),
			num(fl[2]), num(fl[3]),
			num(fl[4]), num(fl[5]),
			num(fl[6]), fl[7] ? num(fl[7]) : CONN_UNKNOWN,
			num(fl[2])};
	}
	ch_reply_free(&rp);
	return 0;
}

static void attr_begin(struct pb *p, uint32_t field, const char *key)
{
	pb_begin(p, field);
	pb_string(p, 1, key);
	pb_begin(p, 2);
}

static void attr_str(struct pb *p, uint32_t field, const char *key,
		     const char *v)
{
	attr_begin(p, field, key);
	pb_bytes(p, 1, v, strlen(v));
	pb_end(p);
	pb_end(p);
}

static void attr_int(struct pb *p, uint32_t field, const char *key, int64_t v,
		     int boolean)
{
	attr_begin(p, field, key);
	if (boolean)
		pb_bool(p, 2, v != 0);
	else
		pb_int(p, 3, v);
	pb_end(p);
	pb_end(p);
}

static void span_id(uint8_t b[8], uint64_t v)
{
	for (int i = 7; i >= 0; i--, v >>= 8)
		b[i] = (uint8_t)v;
}

/* The spans weft-import reads (docs/otlp.md's attributes): the threads
 * i with keep[i] (NULL: all), the arrows between them, their labels;
 * ids: the thread's own, or (by_row) thread + 1. */
static int write_spans(const struct rows *R, const uint8_t *keep, int by_row,
		       int mends, const char *path)
{
	struct pb p;
	pb_init(&p);
	pb_begin(&p, 1); /* ResourceSpans */
	pb_begin(&p, 2); /* ScopeSpans */
	for (size_t i = 0; i < R->nth; i++) {
		const struct row_thread *t = &R->th[i];
		if (keep && !keep[i])
			continue;
		uint8_t sid[8];
		pb_begin(&p, 2); /* Span */
		span_id(sid, (uint64_t)t->thread + 1);
		pb_bytes(&p, 2, sid, 8);
		attr_int(&p, 9, "weft.id",
			 by_row ? (int64_t)t->thread + 1 : t->id, 0);
		if (*t->kind)
			attr_str(&p, 9, "weft.kind", t->kind);
		if (t->root)
			attr_int(&p, 9, "weft.os_thread", 1, 1);
		if (t->should)
			attr_int(&p, 9, "weft.should_resolve", 1, 1);
		for (size_t k = 0; k < R->nlb; k++) {
			const struct row_label *l = &R->lb[k];
			if (l->thread != i)
				continue;
			pb_begin(&p, 11); /* Event */
			pb_fixed64(&p, 1, (uint64_t)l->t);
			pb_string(&p, 2, l->note ? "weft.note" : "weft.label");
			attr_str(&p, 3, "weft.text", l->text);
			pb_end(&p);
		}
		for (size_t k = 0; mends && k < R->nme; k++) {
			/* its message ends, replayed as sent and received
			 * events for the merge to pair (msgs.c) */
			const struct row_mend *e = &R->me[k];
			if (e->th != i)
				continue;
			pb_begin(&p, 11); /* Event */
			pb_fixed64(&p, 1, (uint64_t)e->t);
			pb_string(&p, 2,
				  e->sent ? "weft.sent" : "weft.received");
			attr_int(&p, 3, "weft.chan", e->rchan, 0);
			attr_int(&p, 3, "weft.off", e->off, 0);
			attr_int(&p, 3, "weft.len", e->len, 0);
			pb_end(&p);
		}
		for (size_t k = 0; k < R->nar; k++) {
			const struct row_arrow *a = &R->ar[k];
			if (a->from != i || (keep && !keep[a->to]))
				continue;
			char tok[16];
			pb_begin(&p, 13); /* Link */
			span_id(sid, (uint64_t)R->th[a->to].thread + 1);
			pb_bytes(&p, 2, sid, 8);
			attr_str(&p, 4, "weft.link", "arrow");
			attr_str(&p, 4, "weft.arrow",
				 otlp_arrow_token(a->kind, tok));
			attr_int(&p, 4, "weft.arrow.out", 1, 1);
			attr_int(&p, 4, "weft.arrow.time", a->t, 0);
			attr_int(&p, 4, "weft.arrow.seq", a->seq, 0);
			pb_end(&p);
		}
		if (t->msg) {
			pb_begin(&p, 15); /* Status */
			pb_bytes(&p, 2, t->msg, strlen(t->msg));
			pb_end(&p);
		}
		pb_end(&p);
	}
	pb_end(&p);
	pb_end(&p);
	if (p.oom)
		die("out of memory");
	FILE *f = fopen(path, "wbe");
	if (!f) {
		pb_release(&p);
		return error_errno("cannot create '%s'", path);
	}
	struct pb len;
	pb_init(&len);
	pb_put_varint(&len, p.n);
	fwrite(len.b, 1, len.n, f);
	fwrite(p.b, 1, p.n, f);
	pb_release(&len);
	pb_release(&p);
	if (fclose(f))
		return error_errno("cannot write '%s'", path);
	return 0;
}

/* Runs weft-import SPANS OUT; its messages go to `log` (said if it
 * fails). */
static int import(const char *spans, const char *out, const char *log,
		  const char *machine)
{
	const char *exe = weft_import_exe();
	pid_t pid = fork();
	if (pid < 0)
		return error_errno("cannot fork");
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			      0600);
		if (fd >= 0)
			dup2(fd, 2);
		unsetenv("WEFT_FILE");
		unsetenv("WEFT_RUN");
		char *args[] = {(char *)exe, (char *)spans, (char *)out,
				(char *)machine, NULL};
		execv(exe, args);
		fprintf(stderr, "weft: cannot run '%s': %s\n", exe,
			strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return error_errno("waitpid");
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	FILE *f = fopen(log, "re");
	char line[1024];
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "weft: imported ", 15))
			fputs(line, stderr);
	if (f)
		fclose(f);
	return 1;
}

/* OUT may be written: absent, or a weft ring (weft_start() checks it
 * again).  0, or an exit status. */
static int out_ok(const char *out)
{
	struct stat sb;
	if (stat(out, &sb) < 0)
		return 0;
	if (!S_ISREG(sb.st_mode))
		return error("'%s' is not a regular file: weft never replaces "
			     "it",
			     out),
		       2;
	char magic[8] = "";
	int fd = open(out, O_RDONLY | O_CLOEXEC);
	int ring = fd >= 0 && read(fd, magic, 8) == 8 &&
		   !memcmp(magic, "WEFTRING", 8);
	if (fd >= 0)
		close(fd);
	if (!ring)
		return error("'%s' exists and is not a weft trace: weft never "
			     "replaces it",
			     out),
		       2;
	return 0;
}

/* s as a ClickHouse string literal, whole (malloc'd). */
static char *lit(const char *s)
{
	size_t cap = 2 * strlen(s) + 8;
	char *b = malloc(cap);
	if (!b)
		die("out of memory");
	return (char *)ch_literal(b, cap, s);
}

struct match {
	char *host, *run, *prefix, *pid;
	int64_t thread;
};

/* The batch id's HOST/RUN/WHAT/ (its last two parts, TABLE/PART, cut). */
static char *batch_prefix(const char *b)
{
	char *s = xstrdup(b), *a = strrchr(s, '/');
	if (a) {
		*a = 0;
		a = strrchr(s, '/');
	}
	if (a)
		a[1] = 0;
	return s;
}

/* The threads `sql` finds: (host, run, thread, batch, pid) each; distinct
 * by host, run, source and thread.  How many (up to cap in m). */
static int find(struct fetch *f, const char *sql, struct match *m, int cap,
		int *err)
{
	struct ch_reply rp;
	*err = ask(f, sql, &rp);
	if (*err)
		return 0;
	int k = 0;
	char *fl[6], *p;
	for (p = rp.body; tsv_line(&p, fl, 6) >= 5;) {
		if (!fl[0] || !fl[1] || !fl[2] || !fl[3])
			continue;
		struct match x = {xstrdup(fl[0]), xstrdup(fl[1]),
				  batch_prefix(fl[3]), xstrdup(fl[4]),
				  num(fl[2])};
		int seen = 0;
		for (int i = 0; i < k && i < cap && !seen; i++)
			seen = m[i].thread == x.thread &&
			       !strcmp(m[i].prefix, x.prefix);
		if (seen || k >= cap) {
			free(x.host);
			free(x.run);
			free(x.prefix);
			free(x.pid);
			if (!seen && k++ >= cap)
				break; /* more than cap: enough said */
			continue;
		}
		m[k++] = x;
	}
	ch_reply_free(&rp);
	return k;
}

static void free_rows(struct rows *R)
{
	for (size_t i = 0; i < R->nth; i++) {
		free(R->th[i].kind);
		free(R->th[i].msg);
	}
	for (size_t i = 0; i < R->nlb; i++)
		free(R->lb[i].text);
	free(R->th);
	free(R->idx);
	free(R->ar);
	free(R->lb);
	free(R->me);
}

/* The rows of a trace the chain reaches (host, run, batches). */
static char *where_of(const struct hsrc *h)
{
	char *hl = lit(h->host), *rl = lit(h->run), *pl = lit(h->prefix),
	     *where;
	if (asprintf(&where,
		     "host = %s AND run_id = %s AND "
		     "substring(batch_id, 1, %zu) = %s",
		     hl, rl, strlen(h->prefix), pl) < 0)
		die("out of memory");
	free(hl);
	free(rl);
	free(pl);
	return where;
}

/* A trace joins the chain's: its rows loaded, numbered after those
 * loaded before.  0, or 1 (said). */
static int add_host(struct fetch *f, struct rows *R, const char *host,
		    const char *run, const char *prefix)
{
	if (f->nh == TRACES_MAX)
		return error("fetch: the chain reaches more than %d traces",
			     TRACES_MAX);
	grow(&f->h, &f->ch, f->nh, sizeof *f->h);
	struct hsrc *h = &f->h[f->nh];
	*h = (struct hsrc){
		xstrdup(host), xstrdup(run), xstrdup(prefix), R->nidx, 0, 0};
	f->nh++;
	char *where = where_of(h);
	int rc = load_rows(f, where, R, (uint32_t)(f->nh - 1));
	free(where);
	return rc;
}

/* The row of a thread of the merged scratch rings: their ids are row
 * thread + 1, which the merge tags with its ring in the top 16 bits
 * (multi.h). */
static uint32_t row_of(const struct rows *R, uint64_t id)
{
	uint64_t x = (id & ((UINT64_C(1) << 48) - 1)) - 1;
	return x < R->nidx ? R->idx[x] : NONE;
}

static uint64_t mix64(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

/* The channel each message end is replayed on: one of its own for each
 * connection (a channel's id names an address and port pair, which
 * connections at different times share), the same for the two ends of
 * a connection paired (struct cmatch), so that msgs.c and clocks.c pair
 * only the ends of one connection.  An end of unknown connection
 * (shipped before msg_ends.conn), or paired with one, keeps its channel.
 * The lowest bit (the direction) is kept: the reverse of a replayed
 * channel is still the channel ^ 1. */
static void replay_chans(const struct fetch *f, struct rows *R)
{
	for (size_t i = 0; i < R->nme; i++) {
		struct row_mend *e = &R->me[i];
		uint32_t h = R->th[e->th].host;
		uint64_t pair = (uint64_t)e->chan >> 1, mask;
		e->rchan = e->chan;
		if (e->conn == CONN_UNKNOWN)
			continue;
		size_t m = 0;
		for (; m < f->nmt; m++) {
			const struct cmatch *x = &f->mt[m];
			if (x->pair == pair &&
			    ((x->h1 == h && x->c1 == e->conn) ||
			     (x->h2 == h && x->c2 == e->conn)))
				break;
		}
		if (m < f->nmt)
			mask = f->mt[m].c1 == CONN_UNKNOWN ||
					       f->mt[m].c2 == CONN_UNKNOWN
				       ? 0
				       : mix64(m + 1);
		else
			mask = mix64(mix64(pair ^ ((uint64_t)h << 40)) ^
				     (uint64_t)e->conn);
		uint64_t c = (uint64_t)e->chan ^ (mask & ~UINT64_C(1));
		e->rchan = (int64_t)(c > 1 ? c : c | 2);
	}
}

/* The realtime span of a connection's ends in trace h. */
static void conn_span(const struct rows *R, uint32_t h, uint64_t pair,
		      int64_t conn, int64_t *lo, int64_t *hi)
{
	*lo = INT64_MAX;
	*hi = INT64_MIN;
	for (size_t i = 0; i < R->nme; i++) {
		const struct row_mend *e = &R->me[i];
		if (R->th[e->th].host != h || (uint64_t)e->chan >> 1 != pair ||
		    e->conn != conn)
			continue;
		if (e->wall < *lo)
			*lo = e->wall;
		if (e->wall > *hi)
			*hi = e->wall;
	}
}

/* A connection's ends in another shipped trace (msg_ends, grouped). */
struct cand {
	char *host, *run, *prefix;
	uint64_t pair;
	int64_t conn, lo, hi;
};

static int same_trace(const struct fetch *f, uint32_t h, const struct cand *c)
{
	return !strcmp(c->prefix, f->h[h].prefix) &&
	       !strcmp(c->host, f->h[h].host) && !strcmp(c->run, f->h[h].run);
}

/* The index of the trace (host, run, prefix) in f->h, loaded if it was
 * not (*added counts it); NONE (said). */
static uint32_t trace_of(struct fetch *f, struct rows *R, const struct cand *c,
			 size_t *added)
{
	for (size_t h = 0; h < f->nh; h++)
		if (!strcmp(f->h[h].prefix, c->prefix) &&
		    !strcmp(f->h[h].host, c->host) &&
		    !strcmp(f->h[h].run, c->run))
			return (uint32_t)h;
	if (add_host(f, R, c->host, c->run, c->prefix))
		return NONE;
	++*added;
	return (uint32_t)(f->nh - 1);
}

/* The other ends of the chain's connections `op` (none of whose ends a
 * trace loaded pairs), looked for in msg_ends: of each, the connection
 * of its channel in another trace whose realtime span is nearest its own
 * (overlapping it: a port pair is one connection at a time), within
 * CONN_SLACK; else (or for a connection of unknown span) every one of
 * unknown span.  Each pairing found is kept in f->mt, its trace loaded.
 * *found: how many; 0, or 1 (said). */
static int other_ends(struct fetch *f, struct rows *R, const struct ctried *op,
		      size_t nop, size_t *added, size_t *found)
{
	char *chans = NULL, *sql;
	size_t len = 0, n = 0;
	FILE *cs = open_memstream(&chans, &len);
	if (!cs)
		die("out of memory");
	for (size_t i = 0; i < R->nme; i++) {
		const struct row_mend *e = &R->me[i];
		int in = 0;
		for (size_t k = 0; k < nop && !in; k++)
			in = op[k].h == R->th[e->th].host &&
			     op[k].pair == (uint64_t)e->chan >> 1 &&
			     op[k].conn == e->conn;
		if (in)
			fprintf(cs, "%s%" PRId64 ", %" PRId64, n++ ? ", " : "",
				e->chan, (int64_t)((uint64_t)e->chan ^ 1));
	}
	if (fclose(cs))
		die("out of memory");
	if (asprintf(&sql,
		     "SELECT host, run_id, batch_id, chan, %s, min(time), "
		     "max(time) FROM msg_ends WHERE chan IN (%s) GROUP BY "
		     "host, run_id, batch_id, chan%s ORDER BY host, run_id, "
		     "batch_id LIMIT 100000",
		     f->has_conn ? "conn" : "NULL", chans,
		     f->has_conn ? ", conn" : "") < 0)
		die("out of memory");
	free(chans);
	struct ch_reply rp;
	int rc = ask(f, sql, &rp);
	free(sql);
	if (rc)
		return 1;
	struct cand *cd = NULL;
	size_t ncd = 0, ccd = 0;
	char *fl[8], *p;
	for (p = rp.body; tsv_line(&p, fl, 8) >= 7;) {
		if (!fl[0] || !fl[1] || !fl[2] || !fl[3] || !fl[5] || !fl[6])
			continue;
		struct cand c = {fl[0],
				 fl[1],
				 batch_prefix(fl[2]),
				 (uint64_t)num(fl[3]) >> 1,
				 fl[4] ? num(fl[4]) : CONN_UNKNOWN,
				 num(fl[5]),
				 num(fl[6])};
		size_t k = 0;
		for (; k < ncd; k++)
			if (cd[k].pair == c.pair && cd[k].conn == c.conn &&
			    !strcmp(cd[k].prefix, c.prefix) &&
			    !strcmp(cd[k].host, c.host) &&
			    !strcmp(cd[k].run, c.run))
				break;
		if (k < ncd) {
			free(c.prefix);
			if (c.lo < cd[k].lo)
				cd[k].lo = c.lo;
			if (c.hi > cd[k].hi)
				cd[k].hi = c.hi;
			continue;
		}
		grow(&cd, &ccd, ncd, sizeof *cd);
		c.host = xstrdup(c.host);
		c.run = xstrdup(c.run);
		cd[ncd++] = c;
	}
	ch_reply_free(&rp);
	for (size_t k = 0; k < nop && !rc; k++) {
		const struct ctried *x = &op[k];
		int64_t lo, hi, bd = INT64_MAX, bo = INT64_MIN;
		size_t best = SIZE_MAX;
		conn_span(R, x->h, x->pair, x->conn, &lo, &hi);
		for (size_t i = 0; i < ncd && x->conn != CONN_UNKNOWN; i++) {
			const struct cand *c = &cd[i];
			if (c->pair != x->pair || c->conn == CONN_UNKNOWN ||
			    same_trace(f, x->h, c))
				continue;
			/* how far apart the spans are (0: they overlap),
			 * and how much they overlap */
			int64_t d = c->lo > hi	 ? c->lo - hi
				    : lo > c->hi ? lo - c->hi
						 : 0;
			int64_t o = (c->hi < hi ? c->hi : hi) -
				    (c->lo > lo ? c->lo : lo);
			if (d < bd || (d == bd && o > bo)) {
				bd = d;
				bo = o;
				best = i;
			}
		}
		for (size_t i = 0; i < ncd && !rc; i++) {
			const struct cand *c = &cd[i];
			int take =
				best != SIZE_MAX && bd <= CONN_SLACK
					? i == best
					: c->pair == x->pair &&
						  (x->conn == CONN_UNKNOWN ||
						   c->conn == CONN_UNKNOWN) &&
						  !same_trace(f, x->h, c);
			if (!take)
				continue;
			uint32_t h2 = trace_of(f, R, c, added);
			if (h2 == NONE) {
				rc = 1;
				break;
			}
			grow(&f->mt, &f->cmt, f->nmt, sizeof *f->mt);
			f->mt[f->nmt++] = (struct cmatch){x->pair, x->h, h2,
							  x->conn, c->conn};
			++*found;
		}
	}
	for (size_t i = 0; i < ncd; i++) {
		free(cd[i].host);
		free(cd[i].run);
		free(cd[i].prefix);
	}
	free(cd);
	return rc;
}

/* Each trace's rows (and with `mends` its message ends) recorded into a
 * scratch ring of its own in dir (the ring of trace h: a machine named
 * after its batches), the rings modelled merged: messages paired by
 * msgs.c, clocks aligned by clocks.c, as those of the traces merged
 * locally.  The model, or NULL (said). */
static struct weft_model *model_hosts(struct fetch *f, struct rows *R,
				      const char *dir, int mends,
				      struct weft_reader **r, char **rings)
{
	uint8_t *keep = calloc(R->nth + 1, 1);
	if (!keep)
		die("out of memory");
	char spans[4200], log[4200];
	snprintf(spans, sizeof spans, "%s/spans", dir);
	snprintf(log, sizeof log, "%s/log", dir);
	struct traces tr = {0};
	int rc = 0;
	replay_chans(f, R);
	for (size_t h = 0; h < f->nh && !rc; h++) {
		for (size_t i = 0; i < R->nth; i++)
			keep[i] = R->th[i].host == h;
		if (!rings[h] && asprintf(&rings[h], "%s/%zu.weft", dir, h) < 0)
			die("out of memory");
		rc = write_spans(R, keep, 1, mends, spans) ||
		     import(spans, rings[h], log,
			    f->nh > 1 ? f->h[h].prefix : NULL);
		if (!rc)
			traces_add(&tr, rings[h]);
	}
	free(keep);
	unlink(spans);
	unlink(log);
	*r = NULL;
	struct weft_model *md = rc ? NULL : traces_model(&tr, r);
	traces_release(&tr);
	return md;
}

/* Steps 2 and 3 for the thread m0 found: 0, or 1 (said). */
static int fetch_chain(struct fetch *f, const struct match *m0, const char *out)
{
	/* 2. its trace's rows */
	struct rows R = {0};
	if (add_host(f, &R, m0->host, m0->run, m0->prefix)) {
		free_rows(&R);
		return 1;
	}
	uint32_t subj = m0->thread < R.nidx ? R.idx[m0->thread] : NONE;
	if (subj == NONE) {
		free_rows(&R);
		return error("fetch: thread %" PRId64 " of %s is not in its "
			     "trace's rows (shipped in part?)",
			     m0->thread, m0->host);
	}
	const char *tmpd = getenv("TMPDIR");
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/weft-fetch.XXXXXX",
		 tmpd && *tmpd ? tmpd : "/tmp");
	if (!mkdtemp(dir)) {
		free_rows(&R);
		return error_errno("cannot make a directory in '%s'",
				   tmpd && *tmpd ? tmpd : "/tmp");
	}
	char spans[4200], log[4200];
	snprintf(spans, sizeof spans, "%s/spans", dir);
	snprintf(log, sizeof log, "%s/log", dir);
	char *rings[TRACES_MAX] = {0};

	/* 3. the chain, on the model of the scratch rings; while it has
	 * message ends whose other end another shipped trace holds, that
	 * trace joins (its host's ring, the message ends replayed) and the
	 * chain is taken again */
	uint8_t *keep = NULL;
	size_t nthreads = 0, narrows = 0, oneside = 0;
	uint64_t nmsgs = 0;
	int by_row = 0, mends = 0, rc = 0;
	struct weft_model *md = NULL;
	struct weft_reader *r = NULL;
	struct weft_chain ch = {0};
	uint32_t *mdrow = NULL; /* the model's thread -> its row */
	for (;;) {
		md = model_hosts(f, &R, dir, mends, &r, rings);
		uint32_t n = 0, t = WEFT_NONE;
		const struct weft_thread *th = md ? weft_model_threads(md, &n)
						  : NULL;
		free(mdrow);
		mdrow = malloc(((size_t)n + 1) * sizeof *mdrow);
		free(keep);
		keep = calloc(R.nth + 1, 1);
		if (!mdrow || !keep)
			die("out of memory");
		for (uint32_t i = 0; i < n; i++) {
			mdrow[i] = th[i].flags & WEFT_THREAD_ROOT
					   ? NONE
					   : row_of(&R, th[i].id);
			/* (a thread the merge made, a process's, is none of
			 * the rows, whatever its id's low bits) */
			if (mdrow[i] != NONE &&
			    strcmp(weft_model_name(md, th[i].kind),
				   R.th[mdrow[i]].kind))
				mdrow[i] = NONE;
			if (mdrow[i] == subj)
				t = i;
		}
		if (!md || t == WEFT_NONE || weft_chain(md, t, 0, &ch)) {
			rc = error("fetch: no chain of thread %" PRId64,
				   m0->thread);
			break;
		}
		for (uint32_t i = 0; i < n; i++)
			if (ch.in[i] && mdrow[i] != NONE)
				keep[mdrow[i]] = 1;
		if (!f->has_mends)
			break;
		/* the chain's message ends that no trace loaded pairs:
		 * their channels (said if none is found) and connections
		 * (their other ends looked for once) */
		replay_chans(f, &R);
		int64_t *oc = NULL;
		struct ctried *op = NULL;
		size_t open = 0, coc = 0, nop = 0, cop = 0;
		for (size_t i = 0; i < R.nme; i++) {
			const struct row_mend *e = &R.me[i];
			uint32_t h = R.th[e->th].host;
			int paired = 0;
			if (!keep[e->th])
				continue;
			for (size_t j = 0; j < R.nme && !paired; j++)
				paired = R.me[j].rchan == e->rchan &&
					 R.th[R.me[j].th].host != h;
			if (paired)
				continue;
			size_t k = 0;
			while (k < open && oc[k] != e->chan)
				k++;
			if (k == open) {
				grow(&oc, &coc, open, sizeof *oc);
				oc[open++] = e->chan;
			}
			struct ctried x = {(uint64_t)e->chan >> 1, h, e->conn};
			int tried = 0;
			for (k = 0; k < f->ntr && !tried; k++)
				tried = f->tr[k].pair == x.pair &&
					f->tr[k].h == x.h &&
					f->tr[k].conn == x.conn;
			if (tried)
				continue;
			grow(&f->tr, &f->ctr, f->ntr, sizeof *f->tr);
			f->tr[f->ntr++] = x;
			grow(&op, &cop, nop, sizeof *op);
			op[nop++] = x;
		}
		free(oc);
		size_t added = 0, found = 0;
		if (nop)
			rc = other_ends(f, &R, op, nop, &added, &found);
		free(op);
		if (rc || !found) {
			oneside = open;
			break;
		}
		mends = 1;
		weft_chain_release(&ch);
		memset(&ch, 0, sizeof ch);
		weft_model_free(md);
		md = NULL;
		if (r)
			weft_reader_close(r);
		r = NULL;
	}
	if (!rc) {
		uint32_t n;
		const struct weft_thread *th = weft_model_threads(md, &n);
		for (size_t i = 0; i < R.nth; i++)
			nthreads += keep[i] == 1;
		if (f->nh > 1) {
			/* each trace's row times onto the merge's clock:
			 * where the merge put a creation its rows hold */
			for (uint32_t i = 0; i < n; i++) {
				uint32_t x = mdrow[i];
				if (x == NONE || f->h[R.th[x].host].has_cal)
					continue;
				for (size_t k = 0; k < R.nar; k++)
					if (R.ar[k].to == x &&
					    R.ar[k].kind == WEFT_ARROW_CREATE) {
						struct hsrc *h =
							&f->h[R.th[x].host];
						h->cal = th[i].t_create -
							 R.ar[k].t;
						h->has_cal = 1;
						break;
					}
			}
			for (size_t k = 0; k < R.nar; k++)
				R.ar[k].t += f->h[R.th[R.ar[k].to].host].cal;
			for (size_t k = 0; k < R.nlb; k++)
				R.lb[k].t +=
					f->h[R.th[R.lb[k].thread].host].cal;
			/* the messages between hosts: the merge's arrows */
			uint32_t na;
			const struct weft_arrow *A = weft_model_arrows(md, &na);
			for (uint32_t k = 0; k < na; k++) {
				if (!(A[k].flags & WEFT_ARROW_MESSAGE) ||
				    (A[k].kind != WEFT_ARROW_READ &&
				     A[k].kind != WEFT_ARROW_TRY_READ))
					continue;
				uint32_t a = mdrow[A[k].from],
					 b = mdrow[A[k].to];
				if (a == NONE || b == NONE ||
				    R.th[a].host == R.th[b].host)
					continue;
				grow(&R.ar, &R.car, R.nar, sizeof *R.ar);
				R.ar[R.nar++] = (struct row_arrow){
					a, b, A[k].t, INT64_MAX / 2 + k,
					A[k].kind};
			}
			uint32_t nhost;
			const struct weft_host *H =
				weft_reader_hosts(r, &nhost);
			for (uint32_t h = 0; h < nhost; h++)
				nmsgs += H[h].messages;
		}
		/* the arrows: between threads of the chain, or one and an
		 * OS thread; and what a thread outside did to one of the
		 * chain (its creation, its end, a signal), as done on an OS
		 * thread; other arrows across the chain's edge (reads,
		 * waits) stay out */
		uint32_t os = NONE;
		for (size_t i = 0; i < R.nth && os == NONE; i++)
			if (R.th[i].root)
				os = (uint32_t)i;
		for (size_t i = 0; i < R.nar; i++) {
			struct row_arrow *a = &R.ar[i];
			int fi = keep[a->from] == 1, ti = keep[a->to] == 1;
			int fro = R.th[a->from].root, tro = R.th[a->to].root;
			int act = a->kind == WEFT_ARROW_CREATE ||
				  a->kind == WEFT_ARROW_RESOLVE ||
				  a->kind == WEFT_ARROW_FAIL ||
				  a->kind == WEFT_ARROW_SIGNAL ||
				  a->kind == WEFT_ARROW_CANCEL;
			if (!fi && !fro && ti && act && os != NONE)
				a->from = os, fro = 1;
			if ((fi || fro) && (ti || tro) && (fi || ti)) {
				if (fro)
					keep[a->from] = 2;
				if (tro)
					keep[a->to] = 2;
			} else
				a->from = a->to = NONE;
		}
		size_t w = 0;
		for (size_t i = 0; i < R.nar; i++)
			if (R.ar[i].from != NONE)
				R.ar[w++] = R.ar[i];
		R.nar = w;
		narrows = R.nar;
		/* an id two processes (or hosts) of the chain share */
		for (size_t i = 0; i < R.nth && !by_row; i++)
			for (size_t j = i + 1;
			     keep[i] == 1 && j < R.nth && !by_row; j++)
				by_row = keep[j] == 1 &&
					 R.th[i].id == R.th[j].id &&
					 (R.th[i].process != R.th[j].process ||
					  R.th[i].host != R.th[j].host);
	}
	weft_chain_release(&ch);
	if (md)
		weft_model_free(md);
	if (r)
		weft_reader_close(r);
	free(mdrow);
	if (!rc)
		rc = write_spans(&R, keep, by_row, 0, spans) ||
		     import(spans, out, log, NULL);
	unlink(spans);
	unlink(log);
	for (size_t h = 0; h < TRACES_MAX; h++)
		if (rings[h]) {
			unlink(rings[h]);
			free(rings[h]);
		}
	rmdir(dir);
	if (!rc) {
		if (by_row)
			warning("fetch: two processes of the chain share an "
				"id: every thread's id is its thread number "
				"+ 1");
		if (f->nh > 1) {
			fprintf(stderr,
				"weft fetch: the chain crosses %zu "
				"traces:",
				f->nh);
			for (size_t h = 0; h < f->nh; h++)
				fprintf(stderr, "%s %s (run %s)", h ? "," : "",
					f->h[h].host, f->h[h].run);
			fprintf(stderr,
				"; their clocks aligned by %" PRIu64 " messages"
				"\n",
				nmsgs);
		}
		if (oneside)
			fprintf(stderr,
				"weft fetch: %zu channels of the chain's "
				"messages have no other end in the store (a "
				"host not shipped, or shipped before "
				"msg_ends, or a connection over 1 s apart in "
				"realtime): the chain may go on there\n",
				oneside);
		fprintf(stderr,
			"weft fetch: thread %" PRId64 " of %s (run %s): %zu "
			"async threads and %zu "
			"arrows "
			"of its causal chain into %s\n",
			m0->thread, m0->host, m0->run, nthreads, narrows, out);
	}
	free_rows(&R);
	free(keep);
	return rc ? 1 : 0;
}

int cmd_fetch(int argc, char **argv)
{
	const char *url = NULL, *req = NULL, *out = NULL, *host = NULL;
	struct fetch f = {.db = "weft"};
	int64_t timeout = 0;
	const struct opt opts[] = {
		{"--clickhouse", NULL, "URL",
		 "the ClickHouse server weft ship fills (http://HOST:PORT[/])",
		 OPT_STRING, &url},
		{"--request", NULL, "ID|LABEL",
		 "the request: its async thread's id, else a label of it "
		 "(exactly, else a part of it)",
		 OPT_STRING, &req},
		{"-o", NULL, "OUT", "the trace to write (a ring file)",
		 OPT_STRING, &out},
		{"--host", NULL, "NAME",
		 "look for the request on this host only", OPT_STRING, &host},
		{"--database", NULL, "DB", "its database (default weft)",
		 OPT_STRING, &f.db},
		{"--timeout", NULL, "DURATION",
		 "stop waiting for an answer after this long (default 30 s)",
		 OPT_DURATION, &timeout, 0, 0, 1e9},
		OPT_END,
	};
	const struct cmd_usage u = {
		"fetch", "--clickhouse URL --request ID|LABEL -o OUT.weft",
		"Brings one request's causal chain out of the fleet's "
		"ClickHouse tables (weft ship) back as a trace every command "
		"and viewer opens: its async threads (ids, kinds, labels, "
		"notes, ends, failure messages) and the arrows between them, "
		"across the processes of its run, on one clock, as the "
		"viewers' chain (stopping at hubs).  docs/fleet.md.",
		opts, 0};
	const char **ops = calloc((size_t)argc + 1, sizeof *ops);
	if (!ops)
		die("out of memory");
	int nops, rc = opts_parse(&u, argc, argv, ops, &nops, NULL);
	free(ops);
	if (rc >= 0)
		return rc;
	if (nops)
		return opts_error(&u, "no operands: --clickhouse URL --request "
				      "ID|LABEL -o OUT");
	if (!url || !req || !out)
		return opts_error(&u, "--clickhouse URL, --request ID|LABEL "
				      "and -o OUT are required");
	if (!ch_ident_ok(f.db))
		return opts_error(&u,
				  "--database must be a name of letters, "
				  "digits and '_' (not '%s')",
				  f.db);
	char why[600];
	if (ch_parse_url(url, &f.srv, why, sizeof why))
		return opts_error(&u, "--clickhouse %s", why);
	f.srv.timeout_ns = timeout;
	snprintf(f.params, sizeof f.params,
		 "database=%s&default_format=TabSeparated", f.db);
	if ((rc = out_ok(out)))
		return rc;

	/* 1. the request */
	char *lq = lit(req), *hwhere = NULL;
	if (host) {
		char *h = lit(host);
		if (asprintf(&hwhere, " AND host = %s", h) < 0)
			die("out of memory");
		free(h);
	}
	struct match m[9];
	int k = 0, err = 0;
	char *sql, *end;
	errno = 0;
	unsigned long long id = strtoull(req, &end, 0);
	if (*req && !*end && !errno) {
		if (asprintf(&sql,
			     "SELECT host, run_id, thread, batch_id, pid FROM "
			     "threads WHERE id = %llu AND root = 0%s ORDER BY "
			     "host, run_id, thread LIMIT 1000",
			     id, hwhere ? hwhere : "") < 0)
			die("out of memory");
		k = find(&f, sql, m, 8, &err);
		free(sql);
	}
	for (int exact = 1; !k && !err && exact >= 0; exact--) {
		if (asprintf(&sql,
			     exact ? "SELECT host, run_id, thread, batch_id, "
				     "pid FROM labels WHERE text = %s%s ORDER "
				     "BY host, run_id, thread LIMIT 1000"
				   : "SELECT host, run_id, thread, batch_id, "
				     "pid FROM labels WHERE position(text, %s) "
				     "> 0%s ORDER BY host, run_id, thread "
				     "LIMIT 1000",
			     lq, hwhere ? hwhere : "") < 0)
			die("out of memory");
		k = find(&f, sql, m, 8, &err);
		free(sql);
	}
	free(lq);
	free(hwhere);
	if (err)
		return 1;
	if (!k)
		return error("fetch: no thread with id or label '%s'%s%s", req,
			     host ? " on host " : "", host ? host : "");
	if (k > 1) {
		fprintf(stderr, "weft fetch: '%s' matches %s%d threads: ", req,
			k > 8 ? "more than " : "", k > 8 ? 8 : k);
		for (int i = 0; i < k && i < 8; i++)
			fprintf(stderr,
				"%sthread %" PRId64 " of %s (run %s, pid %s)",
				i ? ", " : "", m[i].thread, m[i].host, m[i].run,
				m[i].pid ? m[i].pid : "?");
		fprintf(stderr, "; name one by its id, or its host with "
				"--host\n");
	}
	if (k == 1) {
		/* msg_ends (weft ship since it pairs hosts' messages) */
		struct ch_reply rp;
		char *dl = lit(f.db);
		if (asprintf(&sql,
			     "SELECT count() FROM system.tables WHERE "
			     "database = %s AND name = 'msg_ends'",
			     dl) < 0)
			die("out of memory");
		free(dl);
		err = ask(&f, sql, &rp);
		free(sql);
		if (!err) {
			f.has_mends = atoi(rp.body) > 0;
			ch_reply_free(&rp);
		}
		/* its column conn (weft ship since it tells connections
		 * apart); without it, every end's connection is unknown */
		dl = lit(f.db);
		if (!err && f.has_mends &&
		    asprintf(&sql,
			     "SELECT count() FROM system.columns WHERE "
			     "database = %s AND table = 'msg_ends' AND name = "
			     "'conn'",
			     dl) < 0)
			die("out of memory");
		free(dl);
		if (!err && f.has_mends) {
			err = ask(&f, sql, &rp);
			free(sql);
			if (!err) {
				f.has_conn = atoi(rp.body) > 0;
				ch_reply_free(&rp);
			}
		}
	}
	rc = k == 1 && !err ? fetch_chain(&f, &m[0], out) : 1;
	for (size_t i = 0; i < f.nh; i++) {
		free(f.h[i].host);
		free(f.h[i].run);
		free(f.h[i].prefix);
	}
	free(f.h);
	free(f.mt);
	free(f.tr);
	for (int i = 0; i < k && i < 8; i++) {
		free(m[i].host);
		free(m[i].run);
		free(m[i].prefix);
		free(m[i].pid);
	}
	return rc;
}
