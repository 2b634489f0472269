/* SPDX-License-Identifier: MIT */
/*
 * cmd-ship.c - `weft ship TRACE|DIR --clickhouse URL`: a trace's rows into
 * ClickHouse (docs/fleet.md).
 *
 * The rows are those of `weft query`'s tables (src/query: the SQL is run
 * over the model, nothing is decoded here), plus the columns a fleet needs
 * (host, service, run_id, pid, day, time, batch_id).  They go through a
 * queue directory: each insert is a file (NNNNNNNNNNNN.TABLE) written
 * whole and renamed into place, delivered in order, deleted once
 * ClickHouse holds its rows.  Exactly once: every row carries its
 * batch's id; before inserting a batch the shipper waits until no insert
 * of it is still running on the server (system.processes, by the insert's
 * query_id), then counts the batch's rows already there: all of them, it
 * is done; none, it inserts; some (never seen: one insert is one block,
 * and a batch goes to one shard) it is reported and set aside.  A ledger
 * table, weft_shipped, gets one row per source (a trace, or a kept
 * chunk) after its rows: what was shipped and what was lost.
 *
 * With --follow on a kept directory each chunk is shipped as it
 * completes (a chunk stands alone), until the keeper's `end`.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clickhouse.h"
#include "keep.h"
#include "otlp.h"
#include "weft-tools.h"
#include "weft/model.h"
#include "common/grow.h"
#include "common/next-reader.h"
#ifdef WEFT_HAVE_SQLITE
#include "query.h"
#endif

/* (--otlp: the OpenTelemetry half, cmd_ship_otlp(), ship-otlp.c) */

/* ---- the tables: weft query's, with the fleet's columns ---- */

/*
 * Each table: weft query's table, its columns as src/query declares them
 * (checked against what the SELECT returns: a column renamed there fails
 * here, loudly), the column that orders it after host (NULL: none), the
 * column that is its time (NULL: the trace's start), and how the row's
 * process id is found (NULL: the table has pid already).
 */
struct stab {
	const char *name;
	const char *cols;
	const char *kind;
	const char *tcol;
	const char *pid;
};

#define PID_OS                                                                 \
	"(SELECT p.pid FROM os_threads o JOIN processes p ON p.process = "     \
	"o.process WHERE o.os_thread = x.os_thread)"
#define PID_THREAD(c)                                                          \
	"(SELECT p.pid FROM threads t JOIN processes p ON p.process = "        \
	"t.process WHERE t.thread = x." c ")"
#define PID_PROC "(SELECT p.pid FROM processes p WHERE p.process = x.process)"

static const struct stab stabs[] = {
	{"threads",
	 "thread INTEGER, id INTEGER, incarnation INTEGER, kind TEXT, label "
	 "TEXT, title TEXT, creator INTEGER, created INTEGER, ended INTEGER, "
	 "last_seen INTEGER, end TEXT, message TEXT, became INTEGER, process "
	 "INTEGER, os_thread INTEGER, root INTEGER, no_create INTEGER, "
	 "should_resolve INTEGER, lifetime INTEGER, running INTEGER",
	 "kind", "created", PID_PROC},
	{"runs",
	 "run INTEGER, thread INTEGER, os_thread INTEGER, t0 INTEGER, "
	 "t1 INTEGER, dur INTEGER",
	 NULL, "t0", PID_OS},
	{"arrows",
	 "arrow INTEGER, kind TEXT, says TEXT, from_thread INTEGER, to_thread "
	 "INTEGER, t INTEGER, sent INTEGER, os_thread INTEGER, followed "
	 "INTEGER, message INTEGER",
	 "kind", "t", PID_OS},
	{"waits",
	 "wait INTEGER, waiter INTEGER, on_thread INTEGER, t0 INTEGER, t1 "
	 "INTEGER, dur INTEGER, how TEXT, arrow INTEGER",
	 NULL, "t0", PID_THREAD("waiter")},
	{"labels",
	 "label INTEGER, thread INTEGER, t INTEGER, text TEXT, kind TEXT, prev "
	 "INTEGER",
	 "kind", "t", PID_THREAD("thread")},
	{"samples",
	 "sample INTEGER, counter INTEGER, name TEXT, t INTEGER, value INTEGER",
	 "name", "t", "NULL"},
	{"loop_phases",
	 "phase INTEGER, os_thread INTEGER, name TEXT, t0 INTEGER, t1 INTEGER, "
	 "dur INTEGER, loop INTEGER",
	 "name", "t0", PID_OS},
	{"losses",
	 "loss INTEGER, os_thread INTEGER, t INTEGER, packets INTEGER, events "
	 "INTEGER, partial INTEGER",
	 NULL, "t", PID_OS},
	{"verdicts",
	 "thread INTEGER, verdict TEXT, fault INTEGER, should_resolve INTEGER, "
	 "subject INTEGER, blocker INTEGER, chain_length INTEGER, waiter "
	 "INTEGER, waits_since INTEGER, evidence INTEGER, cycle INTEGER, loss "
	 "INTEGER",
	 "verdict", NULL, PID_THREAD("thread")},
	{"os_threads",
	 "os_thread INTEGER, tid INTEGER, name TEXT, process INTEGER, root "
	 "INTEGER, busy INTEGER, idle INTEGER",
	 NULL, NULL, PID_PROC},
	{"processes",
	 "process INTEGER, pid INTEGER, ppid INTEGER, parent INTEGER, image "
	 "INTEGER, comm TEXT, exe TEXT, args TEXT, host TEXT, t_start INTEGER, "
	 "t_end INTEGER, end TEXT, says TEXT, status INTEGER, thread INTEGER, "
	 "creator INTEGER, ring TEXT, os_threads INTEGER",
	 NULL, "t_start", NULL},
	{"trace",
	 "events INTEGER, t0 INTEGER, t1 INTEGER, duration INTEGER, threads "
	 "INTEGER, os_threads INTEGER, processes INTEGER, packets_lost "
	 "INTEGER, packets_torn INTEGER, packets_corrupt INTEGER, "
	 "events_discarded INTEGER, events_nested INTEGER, texts_truncated "
	 "INTEGER, problems INTEGER, writer TEXT, uuid TEXT",
	 NULL, "t0", "(SELECT pid FROM processes ORDER BY process LIMIT 1)"},
	/* not weft query's: a temporary table ship_msg_ends() fills */
	{"msg_ends",
	 "msg_end INTEGER, thread INTEGER, dir TEXT, chan INTEGER, off "
	 "INTEGER, len INTEGER, t INTEGER, conn INTEGER",
	 NULL, "t",
	 "(SELECT p.pid FROM msg_end_pids p WHERE p.msg_end = "
	 "x.msg_end)"},
};
#define NSTABS (sizeof stabs / sizeof *stabs)

/* The column i of a table's list ("thread INTEGER" -> name, is_text);
 * -1 past the last. */
static int stab_col(const struct stab *t, int i, char *name, size_t cap,
		    int *text)
{
	const char *p = t->cols;
	for (int k = 0; k < i; k++) {
		p = strchr(p, ',');
		if (!p)
			return -1;
		p += 2;
	}
	const char *sp = strchr(p, ' ');
	size_t n = (size_t)(sp - p);
	if (n >= cap)
		n = cap - 1;
	memcpy(name, p, n);
	name[n] = 0;
	*text = !strncmp(sp + 1, "TEXT", 4);
	return 0;
}

/* The fleet's columns, first in every table (but `pid` of processes,
 * which has its own). */
static const char fleet_cols[] = "`host` String, `service` String, `run_id` "
				 "String, `day` Date, "
				 "`time` Int64, `batch_id` String";

static void print_table_ddl(FILE *f, const char *db, const char *cluster,
			    const struct stab *t)
{
	fprintf(f, "CREATE TABLE IF NOT EXISTS %s.%s%s (%s", db, t->name,
		cluster ? "_local" : "", fleet_cols);
	if (t->pid)
		fprintf(f, ", `pid` UInt32");
	char c[64];
	int text;
	for (int i = 0; !stab_col(t, i, c, sizeof c, &text); i++) {
		int key = t->kind && !strcmp(c, t->kind);
		/* (processes.host is the fleet's host: `machine` here) */
		fprintf(f, ", `%s` %s%s%s", strcmp(c, "host") ? c : "machine",
			key ? "" : "Nullable(", text ? "String" : "Int64",
			key ? "" : ")");
	}
	fprintf(f,
		") ENGINE = MergeTree PARTITION BY day ORDER BY (host, %s%s"
		"time);\n",
		t->kind ? t->kind : "", t->kind ? ", " : "");
	if (cluster)
		fprintf(f,
			"CREATE TABLE IF NOT EXISTS %s.%s AS %s.%s_local "
			"ENGINE = Distributed(%s, %s, %s_local, "
			"cityHash64(host));\n",
			db, t->name, db, t->name, cluster, db, t->name);
}

static void print_ddl(FILE *f, const char *db, const char *cluster)
{
	fprintf(f, "CREATE DATABASE IF NOT EXISTS %s;\n", db);
	for (size_t i = 0; i < NSTABS; i++)
		print_table_ddl(f, db, cluster, &stabs[i]);
	fprintf(f,
		"CREATE TABLE IF NOT EXISTS %s.weft_shipped%s (`batch_id` "
		"String, `host` String, `service` String, `run_id` String, "
		"`source` String, `rows` UInt64, `lost_rows` UInt64, "
		"`shipped_at` DateTime) ENGINE = MergeTree PARTITION BY "
		"toYYYYMM(shipped_at) ORDER BY (host, batch_id);\n",
		db, cluster ? "_local" : "");
	if (cluster)
		fprintf(f,
			"CREATE TABLE IF NOT EXISTS %s.weft_shipped AS "
			"%s.weft_shipped_local ENGINE = Distributed(%s, %s, "
			"weft_shipped_local, cityHash64(host));\n",
			db, db, cluster, db);
}

/* ---- the shipper's state ---- */

#define QHEAD "weft-ship-queue 1"

struct ship {
	struct ch_server srv;
	const char *db, *cluster, *host_opt, *service_opt;
	char qdir[4096];
	int qtemp;	   /* a directory of our own, removed at the end */
	uint64_t qmax;	   /* the queue's budget in bytes */
	uint64_t qbytes;   /* what it holds now */
	uint64_t seq;	   /* the next file's number */
	long batch_rows;   /* rows per insert */
	int64_t retry_for; /* give up delivering after (0: never) */
	int verbose;
	/* the sources already queued whole (queue/enqueued) */
	char **done;
	size_t ndone, cdone;
	/* delivery */
	int64_t next_try, backoff;
	int64_t failing_since;
	char last_err[512];
	int schema_ok;
	/* totals */
	uint64_t rows_queued, rows_lost, parts_lost, rows_sent, parts_sent,
		parts_skipped, parts_bad, sources;
};

static volatile sig_atomic_t stopping;
static void on_stop(int sig)
{
	(void)sig;
	stopping = 1;
}

static int64_t mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A batch id's characters: what is safe in a file name, a header line
 * and a SQL literal. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._:/-", *s)))
			*s = '_';
}

static int is_done(const struct ship *S, const char *src)
{
	for (size_t i = 0; i < S->ndone; i++)
		if (!strcmp(S->done[i], src))
			return 1;
	return 0;
}

static void mark_done(struct ship *S, const char *src)
{
	if (weft__grow_to(&S->done, &S->cdone, S->ndone + 1, sizeof *S->done,
			  64, SIZE_MAX))
		die("out of memory");
	if (!(S->done[S->ndone++] = strdup(src)))
		die("out of memory");
}

/* The queue directory: made (0700) or opened; leftovers of a killed
 * shipper's writes (.tmp-*) deleted; the next number and the bytes held
 * counted; the sources queued whole read back. */
static int queue_open(struct ship *S)
{
	if (mkdir(S->qdir, 0700) < 0 && errno != EEXIST)
		return error_errno("cannot make the queue directory '%s'",
				   S->qdir);
	DIR *d = opendir(S->qdir);
	if (!d)
		return error_errno("cannot open the queue directory '%s'",
				   S->qdir);
	struct dirent *de;
	int dfd = dirfd(d);
	while ((de = readdir(d))) {
		unsigned long long n;
		struct stat sb;
		if (!strncmp(de->d_name, ".tmp-", 5)) {
			unlinkat(dfd, de->d_name, 0);
		} else if (sscanf(de->d_name, "%12llu.", &n) == 1 &&
			   !fstatat(dfd, de->d_name, &sb, 0)) {
			if (n + 1 > S->seq)
				S->seq = n + 1;
			S->qbytes += (uint64_t)sb.st_size;
		}
	}
	closedir(d);
	char p[4200], line[4096];
	snprintf(p, sizeof p, "%s/enqueued", S->qdir);
	FILE *f = fopen(p, "re");
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (*line)
			mark_done(S, line);
	}
	if (f)
		fclose(f);
	return 0;
}

/* ---- making the rows (weft query's tables) ---- */

#ifdef WEFT_HAVE_SQLITE

struct source {
	const char *path;
	char id[1024]; /* the source's id: HOST/RUN/WHAT */
	char host[256], service[256], run_id[64];
	int64_t base; /* ns since the epoch of weft query's time 0 */
	uint64_t rows, lost;
};

/* One part of a table being written into the queue. */
struct part {
	FILE *f;
	char tmp[4200];
	uint64_t rows;
	int n;
};

static void part_open(struct ship *S, struct part *p, const struct source *src,
		      const struct stab *t)
{
	snprintf(p->tmp, sizeof p->tmp, "%s/.tmp-%012" PRIu64 ".%s", S->qdir,
		 S->seq, t->name);
	p->f = fopen(p->tmp, "wxe");
	if (!p->f)
		die("cannot write '%s': %s", p->tmp, strerror(errno));
	fprintf(p->f, QHEAD "\tdata\t%s/%s/%d\t%s\t", src->id, t->name, p->n,
		t->name);
	/* the row count, fixed width: written again at the end */
	fprintf(p->f, "%012d\n", 0);
	p->rows = 0;
}

/* Closes a part: into the queue when it fits the budget, else deleted
 * and its rows counted lost. */
static void part_close(struct ship *S, struct part *p, struct source *src,
		       const struct stab *t)
{
	if (!p->f)
		return;
	long size = ftell(p->f);
	int bad = 0;
	/* the row count in the header */
	char head[1400];
	int hl = snprintf(head, sizeof head, QHEAD "\tdata\t%s/%s/%d\t%s\t",
			  src->id, t->name, p->n, t->name);
	if (fseek(p->f, hl, SEEK_SET) ||
	    fprintf(p->f, "%012" PRIu64, p->rows) < 0)
		bad = 1;
	if (fclose(p->f) || bad)
		die("cannot write '%s': %s", p->tmp, strerror(errno));
	p->f = NULL;
	if (!p->rows) {
		unlink(p->tmp);
		return;
	}
	if (S->qmax && S->qbytes + (uint64_t)size > S->qmax) {
		unlink(p->tmp);
		src->lost += p->rows;
		S->rows_lost += p->rows;
		S->parts_lost++;
		char lp[4200];
		snprintf(lp, sizeof lp, "%s/lost.log", S->qdir);
		FILE *lf = fopen(lp, "ae");
		if (lf) {
			fprintf(lf,
				"lost %s/%s/%d rows=%" PRIu64 " bytes=%ld\n",
				src->id, t->name, p->n, p->rows, size);
			fclose(lf);
		}
	} else {
		char fin[4200];
		snprintf(fin, sizeof fin, "%s/%012" PRIu64 ".%s", S->qdir,
			 S->seq++, t->name);
		if (rename(p->tmp, fin))
			die("cannot rename '%s': %s", p->tmp, strerror(errno));
		S->qbytes += (uint64_t)size;
		src->rows += p->rows;
		S->rows_queued += p->rows;
	}
	p->n++;
}

static void ymd(int64_t ns, char *buf, size_t cap)
{
	time_t s = (time_t)(ns / 1000000000);
	struct tm tm;
	if (ns < 0 || !gmtime_r(&s, &tm))
		snprintf(buf, cap, "1970-01-01");
	else
		strftime(buf, cap, "%Y-%m-%d", &tm);
}

/* Queues one table of the source: SELECT over weft query's table, the
 * columns checked against the list, rows as TabSeparated. */
static int queue_table(struct ship *S, sqlite3 *db, struct source *src,
		       const struct stab *t)
{
	char *sql = sqlite3_mprintf("SELECT %s, x.* FROM %s x",
				    t->pid ? t->pid : "NULL", t->name);
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK)
		return error("weft ship: table %s: %s", t->name,
			     sqlite3_errmsg(db));
	int nc = sqlite3_column_count(st), tcol = -1, kcol = -1;
	char c[64];
	int text, i;
	for (i = 0; !stab_col(t, i, c, sizeof c, &text); i++) {
		const char *got = i + 1 < nc ? sqlite3_column_name(st, i + 1)
					     : "(none)";
		if (strcmp(got, c)) {
			sqlite3_finalize(st);
			return error("weft ship: weft query's table %s has "
				     "'%s' where '%s' was expected",
				     t->name, got, c);
		}
		if (t->tcol && !strcmp(c, t->tcol))
			tcol = i + 1;
		if (t->kind && !strcmp(c, t->kind))
			kcol = i + 1;
	}
	if (i + 1 != nc) {
		sqlite3_finalize(st);
		return error("weft ship: weft query's table %s has %d columns "
			     "where %d were expected",
			     t->name, nc - 1, i);
	}
	struct part p = {0};
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!p.f)
			part_open(S, &p, src, t);
		int64_t tm = src->base;
		if (tcol >= 0 && sqlite3_column_type(st, tcol) != SQLITE_NULL)
			tm += sqlite3_column_int64(st, tcol);
		char day[16];
		ymd(tm, day, sizeof day);
		ch_tsv(p.f, src->host, strlen(src->host));
		putc('\t', p.f);
		ch_tsv(p.f, src->service, strlen(src->service));
		fprintf(p.f, "\t%s\t%s\t%" PRId64 "\t%s/%s/%d", src->run_id,
			day, tm, src->id, t->name, p.n);
		for (int k = t->pid ? 0 : 1; k < nc; k++) {
			putc('\t', p.f);
			int ty = sqlite3_column_type(st, k);
			if (ty == SQLITE_NULL) {
				/* a key column is never NULL in ClickHouse */
				fputs(k == kcol ? "" : k ? "\\N" : "0", p.f);
			} else if (ty == SQLITE_INTEGER) {
				fprintf(p.f, "%lld",
					(long long)sqlite3_column_int64(st, k));
			} else {
				const char *s =
					(const char *)sqlite3_column_text(st,
									  k);
				ch_tsv(p.f, s,
				       (size_t)sqlite3_column_bytes(st, k));
			}
		}
		putc('\n', p.f);
		if (++p.rows >= (uint64_t)S->batch_rows)
			part_close(S, &p, src, t);
	}
	part_close(S, &p, src, t);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return error("weft ship: table %s: %s", t->name,
			     sqlite3_errmsg(db));
	return 0;
}

/*
 * msg_ends: the message ends (sent and received events: msgs.c's) of the
 * channels the trace holds one side of (only writes, or only reads: the
 * other end is another host's), so that `weft fetch` can pair them with
 * the ends other hosts shipped and follow a chain across hosts.  Each
 * end: the async thread (the model's row), sent or received, the
 * channel (two's complement of its 64-bit id), its byte offset (-1: a
 * datagram), its length and its time, and its connection (`conn`):
 * the realtime (ns since the epoch) of the first message of the
 * connection at this end, so that two connections of one address and
 * port pair at different times (one channel id) are told apart; NULL for
 * a datagram.  Read by a second pass over the trace, into a temporary
 * table of weft query's database.
 */
struct mend {
	uint64_t chan, off, len, id;
	int64_t t, conn;
	size_t seq;
	int sent;
};

/* By connection (both directions of a channel: chan ^ 1), in time order. */
static int by_pair(const void *a, const void *b)
{
	const struct mend *x = a, *y = b;
	if (x->chan >> 1 != y->chan >> 1)
		return x->chan >> 1 < y->chan >> 1 ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Each end's connection (v sorted by_pair): a connection begins where a
 * direction's bytes are counted from below what that direction already
 * carried (a new connection's count starts at 0 again: chan.c) - but a
 * write made again at the offset of the write just before it (one taken
 * back: it failed) - and is named by the realtime of its first end. */
static void connections(struct mend *v, size_t n, int64_t real0)
{
	for (size_t i = 0, j; i < n; i = j) {
		uint64_t end[2] = {0, 0};
		size_t last = SIZE_MAX;
		int64_t conn = real0 + v[i].t;
		for (j = i; j < n && v[j].chan >> 1 == v[i].chan >> 1; j++) {
			struct mend *e = &v[j];
			int d = (int)(e->chan & 1);
			if (e->off == UINT64_MAX) {
				e->conn = INT64_MIN; /* a datagram: none */
				continue;
			}
			int again = last != SIZE_MAX && e->sent &&
				    v[last].sent && v[last].chan == e->chan &&
				    v[last].off == e->off;
			if (e->off < end[d] && !again) {
				conn = real0 + e->t;
				end[0] = end[1] = 0;
			}
			if (e->off + e->len > end[d])
				end[d] = e->off + e->len;
			e->conn = conn;
			last = j;
		}
	}
}

static int by_chan(const void *a, const void *b)
{
	const struct mend *x = a, *y = b;
	if (x->chan != y->chan)
		return x->chan < y->chan ? -1 : 1;
	return x->t < y->t ? -1 : x->t > y->t;
}

static int ship_msg_ends(sqlite3 *db, struct weft_model *m, struct traces *tr,
			 int64_t real0)
{
	char *err = NULL;
	if (sqlite3_exec(db,
			 "CREATE TABLE msg_ends(msg_end INTEGER PRIMARY KEY, "
			 "thread INTEGER, dir TEXT, chan INTEGER, off INTEGER, "
			 "len INTEGER, t INTEGER, conn INTEGER); CREATE TABLE "
			 "msg_end_pids(msg_end INTEGER PRIMARY KEY, pid "
			 "INTEGER)",
			 NULL, NULL, &err) != SQLITE_OK) {
		int rc = error("weft ship: msg_ends: %s", err);
		sqlite3_free(err);
		return rc;
	}
	struct weft_reader *r = traces_open(tr, 0);
	if (!r)
		return 1;
	struct mend *v = NULL;
	size_t n = 0, cap = 0;
	struct weft__fires fires = {0}; /* each stream's last fire */
	struct weft_event e;
	while (weft_reader_next(r, &e) == 0) {
		if (e.type == WEFT_EV_FIRE) {
			if (weft__fires_note(&fires, &e))
				die("out of memory");
			continue;
		}
		if (e.type != WEFT_EV_SENT && e.type != WEFT_EV_RECEIVED)
			continue;
		/* (a received event of no bytes: a wait for the next,
		 * which shims before format 1.x wrote; shipped as it is) */
		if (weft__grow_to(&v, &cap, n + 2, sizeof *v, 256, SIZE_MAX))
			die("out of memory");
		uint64_t th = e.id ? e.id : e.actor;
		v[n] = (struct mend){(uint64_t)e.value,
				     (uint64_t)e.value2,
				     (uint64_t)e.value3,
				     th,
				     e.ns,
				     0,
				     n,
				     e.type == WEFT_EV_SENT};
		n++;
		/* A read of bytes that a fire ran: the fire's next
		 * activation waits for the bytes after them, as msgs.c
		 * infers (a wait the merge ends as a try_read on the other
		 * end's reader if the trace ends with it): shipped as a
		 * received end of no bytes at their end, which msgs.c
		 * reads as that wait (the rule is msgs.c's, shared). */
		uint64_t next = weft__next_reader(&fires, &e);
		if (next) {
			v[n] = v[n - 1];
			v[n].id = next;
			v[n].off = v[n - 1].off + v[n - 1].len;
			v[n].len = 0;
			v[n].seq = n;
			n++;
		}
	}
	weft__fires_release(&fires);
	weft_reader_close(r);
	if (n) {
		qsort(v, n, sizeof *v, by_pair);
		connections(v, n, real0);
		qsort(v, n, sizeof *v, by_chan);
	}
	int64_t t0, t1;
	weft_model_range(m, &t0, &t1);
	sqlite3_stmt *st, *sp;
	if (sqlite3_prepare_v2(db,
			       "INSERT INTO msg_ends VALUES (?, ?, ?, ?, ?, "
			       "?, ?, ?)",
			       -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO msg_end_pids VALUES (?, ?)", -1,
			       &sp, NULL) != SQLITE_OK) {
		free(v);
		return error("weft ship: msg_ends: %s", sqlite3_errmsg(db));
	}
	uint32_t np;
	const struct weft_model_process *P = weft_model_processes(m, &np);
	int rc = 0;
	int64_t row = 0;
	for (size_t i = 0, j; i < n && !rc; i = j) {
		int sides = 0;
		for (j = i; j < n && v[j].chan == v[i].chan; j++)
			sides |= v[j].sent ? 1 : 2;
		if (sides == 3)
			continue; /* both ends here: the merge paired them */
		for (size_t k = i; k < j && !rc; k++) {
			uint32_t th = weft_model_find(m, v[k].id);
			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, row++);
			if (th == WEFT_NONE)
				sqlite3_bind_null(st, 2);
			else
				sqlite3_bind_int64(st, 2, th);
			sqlite3_bind_text(st, 3,
					  v[k].sent ? "sent" : "received", -1,
					  SQLITE_STATIC);
			sqlite3_bind_int64(st, 4, (int64_t)v[k].chan);
			sqlite3_bind_int64(st, 5, (int64_t)v[k].off);
			sqlite3_bind_int64(st, 6, (int64_t)v[k].len);
			sqlite3_bind_int64(st, 7, v[k].t - t0);
			if (v[k].conn == INT64_MIN)
				sqlite3_bind_null(st, 8);
			else
				sqlite3_bind_int64(st, 8, v[k].conn);
			uint32_t pr =
				th == WEFT_NONE
					? WEFT_NONE
					: weft_model_thread_process(m, th);
			sqlite3_reset(sp);
			sqlite3_bind_int64(sp, 1, row - 1);
			sqlite3_bind_int64(sp, 2, pr < np ? P[pr].pid : 0);
			if (sqlite3_step(st) != SQLITE_DONE ||
			    sqlite3_step(sp) != SQLITE_DONE)
				rc = error("weft ship: msg_ends: %s",
					   sqlite3_errmsg(db));
		}
	}
	sqlite3_finalize(st);
	sqlite3_finalize(sp);
	free(v);
	return rc;
}

/* Queues the ledger's row of a source (never dropped for the budget: a
 * loss must reach the fleet). */
static void queue_ledger(struct ship *S, const struct source *src)
{
	char tmp[4200], fin[4200];
	snprintf(tmp, sizeof tmp, "%s/.tmp-%012" PRIu64 ".weft_shipped",
		 S->qdir, S->seq);
	FILE *f = fopen(tmp, "wxe");
	if (!f)
		die("cannot write '%s': %s", tmp, strerror(errno));
	fprintf(f, QHEAD "\tledger\t%s\tweft_shipped\t%012d\n", src->id, 1);
	fprintf(f, "%s\t", src->id);
	ch_tsv(f, src->host, strlen(src->host));
	putc('\t', f);
	ch_tsv(f, src->service, strlen(src->service));
	fprintf(f, "\t%s\t", src->run_id);
	ch_tsv(f, src->path, strlen(src->path));
	fprintf(f, "\t%" PRIu64 "\t%" PRIu64 "\t%lld\n", src->rows, src->lost,
		(long long)time(NULL));
	long size = ftell(f);
	if (fclose(f))
		die("cannot write '%s': %s", tmp, strerror(errno));
	snprintf(fin, sizeof fin, "%s/%012" PRIu64 ".weft_shipped", S->qdir,
		 S->seq++);
	if (rename(tmp, fin))
		die("cannot rename '%s': %s", tmp, strerror(errno));
	S->qbytes += (uint64_t)size;
	char p[4200];
	snprintf(p, sizeof p, "%s/enqueued", S->qdir);
	FILE *e = fopen(p, "ae");
	if (e) {
		fprintf(e, "%s\n", src->id);
		fclose(e);
	}
}

/* Models a trace (or a chunk) and queues its rows.  `what` names it in
 * its id: the chunk's file name, or NULL for a whole trace. */
static int queue_source(struct ship *S, struct traces *tr, const char *what)
{
	struct weft_reader *r;
	struct weft_model *m = traces_model(tr, &r);
	if (!m)
		return 1;
	struct source src = {.path = traces_name(tr)};
	const struct weft_trace_info *in = weft_reader_info(r);
	char h[256] = "unknown";
	if (!S->host_opt && !in->host[0] && gethostname(h, sizeof h - 1))
		snprintf(h, sizeof h, "unknown");
	snprintf(src.host, sizeof src.host, "%s",
		 S->host_opt   ? S->host_opt
		 : in->host[0] ? in->host
			       : h);
	uint32_t np;
	const struct weft_model_process *P = weft_model_processes(m, &np);
	snprintf(src.service, sizeof src.service, "%s",
		 S->service_opt	      ? S->service_opt
		 : np && P[0].comm[0] ? P[0].comm
				      : in->comm);
	if (in->session)
		snprintf(src.run_id, sizeof src.run_id, "%016" PRIx64,
			 in->session);
	else
		snprintf(src.run_id, sizeof src.run_id, "%s", in->uuid_str);
	int64_t t0, t1;
	weft_model_range(m, &t0, &t1);
	src.base = (in->origin_real_ns > 0 ? in->origin_real_ns : 0) + t0;
	char whole[64];
	if (!what) {
		snprintf(whole, sizeof whole, "trace-%" PRIu64 "-%" PRId64,
			 in->events, t1 - t0);
		what = whole;
	}
	snprintf(src.id, sizeof src.id, "%s/%s/%s", src.host, src.run_id, what);
	sanitize(src.id);
	int rc = 0;
	if (is_done(S, src.id)) {
		if (S->verbose)
			fprintf(stderr, "weft ship: %s: queued before\n",
				src.id);
	} else {
		struct weft_query *q;
		char why[300];
		if (weft_query_open(&q, m, r, why, sizeof why)) {
			rc = error("%s", why);
		} else {
			/* msg_ends: a database of its own (weft query's
			 * is read-only) */
			sqlite3 *mdb = NULL;
			if (sqlite3_open(":memory:", &mdb) != SQLITE_OK)
				rc = error("weft ship: no memory for msg_ends");
			else
				rc = ship_msg_ends(mdb, m, tr,
						   in->origin_real_ns > 0
							   ? in->origin_real_ns
							   : 0);
			for (size_t i = 0; !rc && i < NSTABS; i++)
				rc = queue_table(S,
						 strcmp(stabs[i].name, "msg_"
								       "ends")
							 ? weft_query_db(q)
							 : mdb,
						 &src, &stabs[i]);
			sqlite3_close(mdb);
			weft_query_close(q);
		}
		if (!rc) {
			queue_ledger(S, &src);
			mark_done(S, src.id);
			S->sources++;
			if (S->verbose)
				fprintf(stderr,
					"weft ship: %s: %" PRIu64
					" rows queued, %" PRIu64 " lost\n",
					src.id, src.rows, src.lost);
		}
	}
	weft_model_free(m);
	int lrc = report_losses(r, src.path);
	weft_reader_close(r);
	return rc ? rc : lrc;
}
#endif

/* ---- delivery ---- */

/* The queue's files in order (the oldest first); *n of them. */
static char **queue_list(struct ship *S, size_t *n)
{
	struct dirent **de;
	int k = scandir(S->qdir, &de, NULL, alphasort);
	char **v = calloc(k > 0 ? (size_t)k : 1, sizeof *v);
	*n = 0;
	if (!v)
		die("out of memory");
	for (int i = 0; i < k; i++) {
		unsigned long long x;
		char c;
		if (sscanf(de[i]->d_name, "%12llu%c", &x, &c) == 2 && c == '.')
			v[(*n)++] = strdup(de[i]->d_name);
		free(de[i]);
	}
	free(de);
	return v;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The tables, if missing, on the server we talk to. */
static int make_schema(struct ship *S, char *why, size_t cap)
{
	char *ddl = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&ddl, &n);
	if (!f)
		die("out of memory");
	print_ddl(f, S->db, S->cluster);
	fclose(f);
	int rc = 0;
	for (char *s = ddl, *e; !rc && *s; s = e + 2) {
		e = strstr(s, ";\n");
		if (!e)
			break;
		*e = 0;
		struct ch_reply rp;
		rc = ch_query(&S->srv, NULL, s, &rp, why, cap);
		if (!rc)
			ch_reply_free(&rp);
	}
	free(ddl);
	return rc;
}

/* A count the server returns ("42\n"), or -1 with why. */
static long long ch_count(struct ship *S, const char *sql, char *why,
			  size_t cap)
{
	struct ch_reply rp;
	if (ch_query(&S->srv, NULL, sql, &rp, why, cap))
		return -1;
	char *end;
	long long v = strtoll(rp.body, &end, 10);
	if (end == rp.body) {
		snprintf(why, cap, "not a count: '%.60s'", rp.body);
		v = -1;
	}
	ch_reply_free(&rp);
	return v;
}

/* Columns added to a table since weft ship first made it: msg_ends.conn
 * (a table of before gets it; its rows read NULL: unknown).  18.16 has
 * no ADD COLUMN IF NOT EXISTS: system.columns says.  0, or 1 (why). */
static int add_columns(struct ship *S, char *why, size_t cap)
{
	const char *tabs[2] = {S->cluster ? "msg_ends_local" : "msg_ends",
			       S->cluster ? "msg_ends" : NULL};
	for (int i = 0; i < 2 && tabs[i]; i++) {
		char sql[600];
		snprintf(sql, sizeof sql,
			 "SELECT count() FROM system.columns WHERE database = "
			 "'%s' AND table = '%s' AND name = 'conn'",
			 S->db, tabs[i]);
		long long c = ch_count(S, sql, why, cap);
		if (c < 0)
			return 1;
		if (c > 0)
			continue;
		snprintf(sql, sizeof sql,
			 "ALTER TABLE %s.%s ADD COLUMN conn Nullable(Int64)",
			 S->db, tabs[i]);
		struct ch_reply rp;
		if (ch_query(&S->srv, NULL, sql, &rp, why, cap))
			return 1;
		ch_reply_free(&rp);
	}
	return 0;
}

/* Delivers one queue file: 0 delivered (or already there: the file is
 * deleted), -1 not now (why says what failed). */
static int deliver(struct ship *S, const char *name, char *why, size_t cap)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", S->qdir, name);
	FILE *f = fopen(path, "re");
	if (!f) {
		snprintf(why, cap, "cannot open '%.300s': %s", path,
			 strerror(errno));
		return -1;
	}
	char head[2048], kind[16], batch[1100], table[64];
	unsigned long long rows;
	if (!fgets(head, sizeof head, f) ||
	    sscanf(head, QHEAD "\t%15s\t%1099s\t%63s\t%llu", kind, batch, table,
		   &rows) != 4) {
		fclose(f);
		/* not ours, or damaged: set aside, said */
		char bad[4300];
		snprintf(bad, sizeof bad, "%s/bad-%s", S->qdir, name);
		rename(path, bad);
		S->parts_bad++;
		warning("%s: not a queue file of weft ship: set aside as "
			"'%s'",
			path, bad);
		return 0;
	}
	long off = ftell(f);
	struct stat sb;
	fstat(fileno(f), &sb);
	size_t len = (size_t)(sb.st_size - off);
	char *body = malloc(len + 1);
	if (!body || fread(body, 1, len, f) != len) {
		fclose(f);
		free(body);
		snprintf(why, cap, "cannot read '%.300s'", path);
		return -1;
	}
	fclose(f);
	if (!S->schema_ok) {
		if (make_schema(S, why, cap) || add_columns(S, why, cap)) {
			free(body);
			return -1;
		}
		S->schema_ok = 1;
	}
	/* the insert's query_id: the batch's, so that a retry finds the
	 * earlier attempt if it still runs */
	uint64_t hsh = 1469598103934665603ull;
	for (const char *p = batch; *p; p++)
		hsh = (hsh ^ (unsigned char)*p) * 1099511628211ull;
	char qid[40], lit[2400], sql[3000];
	snprintf(qid, sizeof qid, "weft-ship-%016" PRIx64, hsh);
	snprintf(sql, sizeof sql,
		 "SELECT count() FROM system.processes WHERE query_id = '%s'",
		 qid);
	long long running = ch_count(S, sql, why, cap);
	if (running) {
		if (running > 0)
			snprintf(why, cap, "an insert of %.300s still runs",
				 batch);
		free(body);
		return -1;
	}
	snprintf(sql, sizeof sql,
		 "SELECT count() FROM %s.%s WHERE batch_id = %s", S->db, table,
		 ch_literal(lit, sizeof lit, batch));
	long long have = ch_count(S, sql, why, cap);
	if (have < 0) {
		free(body);
		return -1;
	}
	if (have == (long long)rows) {
		S->parts_skipped++;
	} else if (have) {
		char bad[4300];
		snprintf(bad, sizeof bad, "%s/partial-%s", S->qdir, name);
		rename(path, bad);
		S->parts_bad++;
		warning("%s: ClickHouse holds %lld of the %llu rows of batch "
			"%s: set aside as '%s'",
			S->db, have, rows, batch, bad);
		free(body);
		S->qbytes -= (uint64_t)sb.st_size < S->qbytes
				     ? (uint64_t)sb.st_size
				     : S->qbytes;
		return 0;
	} else {
		char q[200], params[600];
		snprintf(q, sizeof q, "INSERT INTO %s.%s FORMAT TabSeparated",
			 S->db, table);
		size_t k = (size_t)snprintf(params, sizeof params,
					    "insert_distributed_sync=1&query_"
					    "id=%s&query=",
					    qid);
		ch_urlenc(params + k, sizeof params - k, q);
		struct ch_reply rp;
		int rc = ch_post(&S->srv, params, body, len, &rp, why, cap);
		if (!rc && rp.status != 200) {
			size_t n = rp.len;
			while (n && rp.body[n - 1] == '\n')
				n--;
			for (size_t i = 0; i < n; i++)
				if (rp.body[i] == '\n')
					rp.body[i] = ' ';
			snprintf(why, cap, "ClickHouse (HTTP %d): %.*s",
				 rp.status, (int)(n > 400 ? 400 : n), rp.body);
			rc = -1;
		}
		ch_reply_free(&rp);
		if (rc) {
			free(body);
			return -1;
		}
		if (strcmp(kind, "ledger")) {
			S->rows_sent += rows;
			S->parts_sent++;
		}
	}
	free(body);
	unlink(path);
	S->qbytes -= (uint64_t)sb.st_size < S->qbytes ? (uint64_t)sb.st_size
						      : S->qbytes;
	return 0;
}

/* Delivers what it can now: 0 the queue is empty, 1 files remain (the
 * next try is due at S->next_try). */
static int deliver_some(struct ship *S, int64_t budget_ns)
{
	int64_t now = mono();
	/* (INT64_MAX: no budget; the sum must not overflow) */
	int64_t until = budget_ns > INT64_MAX - now ? INT64_MAX
						    : now + budget_ns;
	if (mono() < S->next_try)
		return 1;
	size_t n;
	char **v = queue_list(S, &n);
	size_t i = 0;
	for (; i < n && !stopping; i++) {
		char why[600] = "";
		if (deliver(S, v[i], why, sizeof why)) {
			/* back off: 100 ms, doubling, up to 5 s */
			S->backoff = S->backoff ? S->backoff * 2 : 100000000;
			if (S->backoff > 5 * INT64_C(1000000000))
				S->backoff = 5 * INT64_C(1000000000);
			S->next_try = mono() + S->backoff;
			if (!S->failing_since)
				S->failing_since = mono();
			if (strcmp(why, S->last_err) || S->verbose)
				fprintf(stderr,
					"weft ship: %s (retrying every %.1f s "
					"at most)\n",
					why, (double)S->backoff / 1e9);
			snprintf(S->last_err, sizeof S->last_err, "%s", why);
			break;
		}
		if (S->failing_since)
			fprintf(stderr, "weft ship: delivering again\n");
		S->backoff = 0;
		S->failing_since = 0;
		S->last_err[0] = 0;
		if (mono() > until) {
			i++;
			break;
		}
	}
	int left = i < n;
	free_list(v, n);
	return left;
}

/* ---- following a kept directory ---- */

/* NNNNNNNN.RING.zst (8 digits or more). */
static int chunk_file(const char *n)
{
	size_t d = strspn(n, "0123456789"), l = strlen(n);
	return d >= 8 && n[d] == '.' && l > d + 5 && !strcmp(n + l - 4, ".zst");
}

/* Whether the keeper's last word is `end` (after its last start). */
static int keeper_ended(const char *dir)
{
	char p[4200], line[1024];
	snprintf(p, sizeof p, "%s/keep.log", dir);
	FILE *f = fopen(p, "re");
	int ended = 0;
	while (f && fgets(line, sizeof line, f))
		ended = !strncmp(line, "end ", 4)    ? 1
			: !strncmp(line, "keep ", 5) ? 0
						     : ended;
	if (f)
		fclose(f);
	return ended;
}

#ifdef WEFT_HAVE_SQLITE
/* Queues the chunks of dir not queued yet, in order. */
static int queue_chunks(struct ship *S, const char *dir, struct traces *opt,
			int *news)
{
	struct dirent **de;
	int k = scandir(dir, &de, NULL, alphasort), rc = 0;
	*news = 0;
	if (k < 0)
		return error_errno("cannot read '%s'", dir);
	for (int i = 0; i < k; i++) {
		if (!stopping && chunk_file(de[i]->d_name)) {
			char p[4200];
			snprintf(p, sizeof p, "%s/%s", dir, de[i]->d_name);
			/* skip the chunks already queued without modelling */
			int skip = 0;
			for (size_t j = 0; j < S->ndone && !skip; j++) {
				const char *s = strrchr(S->done[j], '/');
				char nm[300];
				snprintf(nm, sizeof nm, "%s", de[i]->d_name);
				sanitize(nm);
				skip = s && !strcmp(s + 1, nm);
			}
			if (!skip) {
				struct traces one = *opt;
				one.path[0] = p;
				one.n = 1;
				size_t had = S->ndone;
				if (queue_source(S, &one, de[i]->d_name))
					rc = 1;
				/* a chunk that cannot be read (said) is not
				 * tried again every 200 ms */
				if (S->ndone == had) {
					char f[400];
					snprintf(f, sizeof f, "failed/%s",
						 de[i]->d_name);
					sanitize(f);
					mark_done(S, f);
				}
				(*news)++;
			}
		}
		free(de[i]);
	}
	free(de);
	return rc;
}
#endif

static void rm_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
}

static int size_arg(void *ctx, const char *v, char *why, size_t cap)
{
	char *end;
	double x = strtod(v, &end);
	uint64_t mul = 1;
	if (*end == 'k' || *end == 'K')
		mul = 1ull << 10, end++;
	else if (*end == 'M')
		mul = 1ull << 20, end++;
	else if (*end == 'G')
		mul = 1ull << 30, end++;
	else if (*end == 'T')
		mul = 1ull << 40, end++;
	if (*end == 'i' && mul > 1)
		end++;
	if (*end == 'B')
		end++;
	if (end == v || *end || !(x > 0) || x * (double)mul > 1e18) {
		snprintf(why, cap,
			 "must be a size such as 512M or 2G (not '%s')", v);
		return -1;
	}
	*(uint64_t *)ctx = (uint64_t)(x * (double)mul);
	return 0;
}

int cmd_ship(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--otlp") ||
		    !strncmp(argv[i], "--otlp=", 7)) {
			return cmd_ship_otlp(argc, argv);
		}
	}
	const char *otlp_only = NULL, *url = NULL, *queue = NULL, *db = "weft",
		   *cluster = NULL, *host = NULL, *service = NULL;
	int follow = 0, schema = 0, verbose = 0, batch = 100000;
	int64_t timeout = 30 * INT64_C(1000000000), retry_for = -1;
	uint64_t qmax = 1ull << 30;
	struct traces tr = {0};
	const struct opt opts[] = {
		{"--clickhouse", NULL, "URL",
		 "the ClickHouse server to insert into: http://HOST:PORT[/] "
		 "(its HTTP interface; no TLS, the default user)",
		 OPT_STRING, &url},
		{"--otlp", NULL, "URL",
		 "send OpenTelemetry (OTLP/HTTP) instead (docs/fleet.md)",
		 OPT_STRING, &url},
		{"--database", NULL, "DB", "the database (default weft)",
		 OPT_STRING, &db},
		{"--cluster", NULL, "NAME",
		 "the tables are MergeTree tables NAME_local on every shard "
		 "of cluster NAME with Distributed tables over them",
		 OPT_STRING, &cluster},
		{"--host", NULL, "NAME",
		 "the host column (default: the machine the trace was "
		 "written on)",
		 OPT_STRING, &host},
		{"--service", NULL, "NAME",
		 "the service column (default: the command name of the "
		 "trace's first process)",
		 OPT_STRING, &service},
		{"--follow", "-f", NULL,
		 "with a kept directory: ship each chunk as it completes, "
		 "until the keeper ends",
		 OPT_FLAG, &follow},
		{"--queue", NULL, "DIR",
		 "the on-disk queue (kept across runs: a restarted shipper "
		 "resumes; default: a temporary directory)",
		 OPT_STRING, &queue},
		{"--queue-max", NULL, "SIZE",
		 "the queue's budget (default 1G): rows beyond it are "
		 "dropped, counted and reported",
		 OPT_FUNC, .fn = size_arg, .ctx = &qmax},
		{"--batch", NULL, "ROWS", "rows per insert (default 100000)",
		 OPT_INT, &batch, 1, 1000000},
		{"--timeout", NULL, "DURATION",
		 "connect and I/O timeout of each request (default 30 s)",
		 OPT_DURATION, &timeout, 1000000, 0, 1e9},
		{"--retry-for", NULL, "DURATION",
		 "give up delivering after failing this long (default 5 "
		 "min; 0: never; never with --follow)",
		 OPT_DURATION, &retry_for, 0, 0, 1e9},
		{"--schema", NULL, NULL,
		 "print the tables' DDL (for --cluster: to run on every "
		 "shard) and exit",
		 OPT_FLAG, &schema},
		{"--verbose", "-v", NULL, "say each source and each retry",
		 OPT_FLAG, &verbose},
		/* (--otlp's own: its half parses them, ship-otlp.c) */
		{"--span-budget", NULL, "N",
		 "with --otlp: the most spans a trace (as weft export)",
		 OPT_STRING, &otlp_only},
		{"--message-limit", NULL, "BYTES",
		 "with --otlp: the most bytes a request (default 4 MiB)",
		 OPT_STRING, &otlp_only},
		{"--retries", NULL, "N",
		 "with --otlp: tries again at most N times (default 8)",
		 OPT_STRING, &otlp_only},
		TRACES_OPT(&tr),
		OPT_END,
	};
	const struct cmd_usage u = {"ship",
				    "TRACE|DIR --clickhouse URL [OPTIONS]\n"
				    "--schema [--database DB] [--cluster "
				    "NAME]\n"
				    "TRACE --otlp URL",
				    "Insert a trace's rows (the tables of weft "
				    "query, with host, "
				    "service, run_id and pid) into ClickHouse "
				    "over HTTP, through "
				    "a bounded on-disk queue, each batch "
				    "exactly once, retrying "
				    "with back-off while the server is down; "
				    "with a kept "
				    "directory and --follow, each chunk as it "
				    "completes "
				    "(docs/fleet.md).",
				    opts, 0};
	int rc = parse_operands(&u, argc, argv, &tr);
	if (rc >= 0) {
		traces_release(&tr);
		return rc;
	}
	if (!ch_ident_ok(db) || (cluster && !ch_ident_ok(cluster))) {
		traces_release(&tr);
		return opts_error(&u,
				  "--database and --cluster must be names of "
				  "letters, digits and '_' (not '%s')",
				  ch_ident_ok(db) ? cluster : db);
	}
	if (schema) {
		traces_release(&tr);
		if (tr.n)
			return opts_error(&u, "--schema takes no trace");
		print_ddl(stdout, db, cluster);
		return 0;
	}
	if (otlp_only) {
		traces_release(&tr);
		return opts_error(&u, "--span-budget, --message-limit and "
				      "--retries go with --otlp");
	}
	if (!tr.n || !url) {
		traces_release(&tr);
		return tr.n ? opts_error(&u, "--clickhouse URL or --otlp URL "
					     "is needed")
			    : opts_usage(&u);
	}
	if (follow && (tr.n != 1 || !keep_is_dir(tr.path[0]))) {
		traces_release(&tr);
		return opts_error(&u, "--follow ships a kept directory (one; "
				      "docs/keep.md)");
	}
	struct ship S = {.db = db,
			 .cluster = cluster,
			 .host_opt = host,
			 .service_opt = service,
			 .qmax = qmax,
			 .seq = 1,
			 .batch_rows = batch,
			 .verbose = verbose};
	char why[300];
	if (ch_parse_url(url, &S.srv, why, sizeof why)) {
		traces_release(&tr);
		return opts_error(&u, "--clickhouse %s", why);
	}
	S.srv.timeout_ns = timeout;
	S.retry_for = retry_for >= 0 ? retry_for : 300 * INT64_C(1000000000);
	if (queue) {
		snprintf(S.qdir, sizeof S.qdir, "%s", queue);
	} else {
		const char *t = getenv("TMPDIR");
		snprintf(S.qdir, sizeof S.qdir, "%s/weft-ship-XXXXXX",
			 t && *t ? t : "/tmp");
		if (!mkdtemp(S.qdir)) {
			traces_release(&tr);
			return error_errno("cannot make a queue directory "
					   "in '%s'",
					   t && *t ? t : "/tmp");
		}
		S.qtemp = 1;
	}
#ifndef WEFT_HAVE_SQLITE
	traces_release(&tr);
	return error("weft ship: not in this build (it needs SQLite, for "
		     "weft query's tables)");
#else
	if (queue_open(&S)) {
		traces_release(&tr);
		return 1;
	}
	struct sigaction sa = {0}, oi, ot;
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &oi);
	sigaction(SIGTERM, &sa, &ot);
	int qrc = 0;
	if (!follow) {
		qrc = queue_source(&S, &tr, NULL);
		while (!stopping && deliver_some(&S, INT64_MAX)) {
			if (S.retry_for && S.failing_since &&
			    mono() - S.failing_since > S.retry_for)
				break;
			int64_t w = S.next_try - mono();
			if (w > 0)
				usleep((useconds_t)(w / 1000));
		}
	} else {
		/* look for new chunks every 200 ms; deliver in between */
		int ended_before = 0;
		for (;;) {
			int news = 0, ended = keeper_ended(tr.path[0]);
			if (queue_chunks(&S, tr.path[0], &tr, &news))
				qrc = 1;
			int left = deliver_some(&S, 200000000);
			if (stopping || (ended_before && !news && !left))
				break;
			ended_before = ended;
			if (!news)
				usleep(left ? 50000 : 200000);
		}
	}
	sigaction(SIGINT, &oi, NULL);
	sigaction(SIGTERM, &ot, NULL);
	size_t nleft = 0;
	/* (two statements: an argument's order of evaluation is not
	 * defined, and nleft read before queue_list set it leaked) */
	char **left = queue_list(&S, &nleft);
	free_list(left, nleft);
	fprintf(stderr,
		"weft ship: %" PRIu64 " rows in %" PRIu64 " inserts to %s:%s "
		"(%" PRIu64 " batches there already)",
		S.rows_sent, S.parts_sent, S.srv.host, S.srv.port,
		S.parts_skipped);
	if (nleft)
		fprintf(stderr, "; %zu inserts not delivered%s", nleft,
			S.qtemp ? "" : " (still queued)");
	fprintf(stderr, "\n");
	if (S.rows_lost)
		fprintf(stderr,
			"weft ship: %" PRIu64 " rows (%" PRIu64 " inserts) "
			"lost: the "
			"queue's "
			"budget "
			"(--queue-max) "
			"was exceeded (%s/lost.log)\n",
			S.rows_lost, S.parts_lost, S.qdir);
	if (S.parts_bad)
		fprintf(stderr,
			"weft ship: %" PRIu64 " inserts set aside (see "
			"above)\n",
			S.parts_bad);
	if (S.qtemp && !nleft)
		rm_tree(S.qdir);
	else if (S.qtemp)
		fprintf(stderr, "weft ship: what was not delivered is in %s\n",
			S.qdir);
	for (size_t i = 0; i < S.ndone; i++)
		free(S.done[i]);
	free(S.done);
	traces_release(&tr);
	return qrc || nleft || S.rows_lost || S.parts_bad ? 1 : 0;
#endif
}
