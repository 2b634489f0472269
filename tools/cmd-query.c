/* SPDX-License-Identifier: MIT */
/*
 * cmd-query.c - `weft query TRACE... [SQL]`: SQL over a trace
 * (docs/query.md).  The database is src/query's; this prints results as
 * aligned text, CSV, TSV or JSON, shows an error at the place in the
 * statement SQLite names, stops a statement on Ctrl-C or --timeout, and,
 * with no SQL on a terminal, reads statements at a prompt (history in
 * ~/.weft_history).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "query.h"
#include "weft-tools.h"
#include "weft/index.h"
#include "weft/model.h"
#include "common/grow.h"

enum mode { M_TEXT, M_CSV, M_TSV, M_JSON };

static struct weft_query *cur_q;

static void on_sigint(int sig)
{
	(void)sig;
	if (cur_q)
		weft_query_interrupt(cur_q);
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- where the tables come from ---- */

/* A trace this big (bytes; of a directory, its files') has its index
 * built by --index auto when a statement needs threads first: the build
 * costs about what the model would (docs/query.md, "At scale"). */
#define INDEX_AUTO_BYTES (32ull << 20)

struct source {
	struct traces *tr;
	const char *index; /* --index: auto, build, no */
	struct weft_reader *r;
	struct weft_model *m;
	struct weft_index *ix;
	int built;
};

static int load_model(void *ctx, const struct weft_model **m,
		      struct weft_reader **r)
{
	struct source *s = ctx;
	if (!s->m) {
		int err = weft_model_load(&s->m, s->r);
		if (err) {
			s->m = NULL;
			error("cannot model %s: %s", traces_name(s->tr),
			      weft_strerror(err));
			return err;
		}
	}
	*m = s->m;
	*r = s->r;
	return 0;
}

static uint64_t trace_bytes(const char *path)
{
	struct stat sb;
	if (stat(path, &sb))
		return 0;
	if (!S_ISDIR(sb.st_mode))
		return (uint64_t)sb.st_size;
	uint64_t n = 0;
	DIR *d = opendir(path);
	struct dirent *e;
	char sub[4096];
	while (d && (e = readdir(d)))
		if ((size_t)snprintf(sub, sizeof sub, "%s/%s", path,
				     e->d_name) < sizeof sub &&
		    !stat(sub, &sb) && S_ISREG(sb.st_mode))
			n += (uint64_t)sb.st_size;
	if (d)
		closedir(d);
	return n;
}

/* One trace (a file, a run or a kept directory, no offsets): its index
 * when it is there and fresh; with --index build, or auto and a big
 * trace, built when it is not (never for a live trace: that index
 * would serve once). */
static int load_index(void *ctx, const struct weft_index **ix)
{
	struct source *s = ctx;
	const char *path = s->tr->path[0];
	struct stat sb;
	*ix = NULL;
	if (!strcmp(s->index, "no") || s->tr->n != 1 || s->tr->noff ||
	    !strcmp(path, "-") || stat(path, &sb))
		return 0;
	char why[200];
	int rc = weft_index_open(&s->ix, path, 0, NULL, why, sizeof why);
	if (rc == WEFT_ESTALE && (!strcmp(s->index, "build") ||
				  (!strcmp(s->index, "auto") &&
				   trace_bytes(path) >= INDEX_AUTO_BYTES))) {
		struct weft_reader *r;
		if (weft_reader_open(&r, path, 0, NULL))
			return 0;
		int live = weft_reader_info(r)->writer == WEFT_WRITER_LIVE;
		weft_reader_close(r);
		if (live)
			return 0;
		struct weft_index_built b;
		rc = weft_index_open(&s->ix, path, WEFT_INDEX_BUILD, &b, why,
				     sizeof why);
		s->built = !rc && b.path[0];
	}
	if (rc) /* (none: the model serves) */
		return 0;
	*ix = s->ix;
	return 0;
}

/* ---- output ---- */

static void csv_field(const char *s, char sep)
{
	if (!s)
		return;
	if (sep == '\t') { /* TSV: escapes, as PostgreSQL's COPY writes */
		for (; *s; s++) {
			if (*s == '\t')
				fputs("\\t", stdout);
			else if (*s == '\n')
				fputs("\\n", stdout);
			else if (*s == '\r')
				fputs("\\r", stdout);
			else if (*s == '\\')
				fputs("\\\\", stdout);
			else
				putchar(*s);
		}
		return;
	}
	if (!strpbrk(s, "\",\r\n")) { /* CSV: quoted when it must be */
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

/* A cell as text ("" for NULL); *num: right-aligned. */
struct cellv {
	char *s;
	int num, null;
};

/* Columns of characters a UTF-8 text takes (one per character). */
static size_t width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static char *dup_text(const unsigned char *t)
{
	char *s = strdup(t ? (const char *)t : "");
	if (!s)
		die("out of memory");
	return s;
}

/* Text of a value for a person or a CSV: control characters escaped so
 * that a row stays a line. */
static char *cell_text(sqlite3_stmt *st, int i, int escape)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	if (!t || !escape)
		return dup_text(t);
	size_t n = strlen((const char *)t);
	char *o = malloc(4 * n + 1), *p = o;
	if (!o)
		die("out of memory");
	for (size_t k = 0; k < n; k++) {
		unsigned char c = t[k];
		if (c < 0x20 || c == 0x7f)
			p += sprintf(p,
				     c == '\n'	 ? "\\n"
				     : c == '\t' ? "\\t"
						 : "\\x%02x",
				     c);
		else
			*p++ = (char)c;
	}
	*p = 0;
	return o;
}

/* Aligned text: the widths are those of the first ALIGN_ROWS rows (a
 * wider value later pushes its row's next columns right), so that a big
 * result streams instead of waiting in memory. */
#define ALIGN_ROWS 1000

/* Prints the header and the rule for the rows buffered in v; returns the
 * widths. */
static size_t *text_head(sqlite3_stmt *st, const struct cellv *v, size_t nrow,
			 int *nset)
{
	int nc = sqlite3_column_count(st);
	size_t *w = calloc(nc, sizeof *w);
	if (!w)
		die("out of memory");
	for (int i = 0; i < nc; i++) {
		w[i] = width(sqlite3_column_name(st, i));
		for (size_t r = 0; r < nrow; r++) {
			size_t x = width(v[r * nc + i].s);
			if (x > w[i])
				w[i] = x;
		}
	}
	if ((*nset)++)
		printf("\n");
	for (int i = 0; i < nc; i++) {
		/* a column of numbers has its name on the right, too */
		const char *h = sqlite3_column_name(st, i);
		int num = 0, pad = (int)(w[i] - width(h));
		for (size_t r = 0; r < nrow; r++)
			if (!v[r * nc + i].null) {
				num = v[r * nc + i].num;
				break;
			}
		if (num)
			printf("%s%*s%s", i ? "  " : "", pad, "", h);
		else
			printf("%s%s%*s", i ? "  " : "", h,
			       i + 1 < nc ? pad : 0, "");
	}
	printf("\n");
	for (int i = 0; i < nc; i++) {
		printf("%s", i ? "  " : "");
		for (size_t k = 0; k < w[i]; k++)
			putchar('-');
	}
	printf("\n");
	return w;
}

/* Prints the rows buffered in v and frees their texts. */
static void text_rows(struct cellv *v, size_t nrow, int nc, const size_t *w)
{
	for (size_t r = 0; r < nrow; r++) {
		for (int i = 0; i < nc; i++) {
			struct cellv *c = &v[r * nc + i];
			size_t cw = width(c->s);
			int pad = cw < w[i] ? (int)(w[i] - cw) : 0;
			if (i)
				printf("  ");
			if (c->num)
				printf("%*s%s", pad, "", c->s);
			else
				printf("%s%*s", c->s, i + 1 < nc ? pad : 0, "");
			free(c->s);
		}
		printf("\n");
	}
}

/* Runs one prepared statement and prints its rows.  Returns the step's
 * last code. */
static int print_rows(sqlite3_stmt *st, enum mode mode, int *nset)
{
	int nc = sqlite3_column_count(st), rc;
	if (!nc) {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
		return rc;
	}
	struct cellv *v = NULL;
	size_t nrow = 0, total = 0, *w = NULL;
	if (mode == M_TEXT &&
	    !(v = malloc((size_t)ALIGN_ROWS * nc * sizeof *v)))
		die("out of memory");
	if (mode == M_JSON)
		printf("[");
	else if (mode != M_TEXT) {
		if ((*nset)++)
			printf("\n");
		for (int i = 0; i < nc; i++) {
			if (i)
				putchar(mode == M_CSV ? ',' : '\t');
			csv_field(sqlite3_column_name(st, i),
				  mode == M_CSV ? ',' : '\t');
		}
		printf("\n");
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (mode == M_JSON) {
			printf("%s{", nrow++ ? "," : "");
			for (int i = 0; i < nc; i++) {
				printf("%s", i ? "," : "");
				weft_json_string(stdout,
						 sqlite3_column_name(st, i));
				putchar(':');
				switch (sqlite3_column_type(st, i)) {
				case SQLITE_NULL:
					printf("null");
					break;
				case SQLITE_INTEGER:
					printf("%lld",
					       (long long)sqlite3_column_int64(
						       st, i));
					break;
				case SQLITE_FLOAT:
					printf("%.17g",
					       sqlite3_column_double(st, i));
					break;
				default:
					weft_json_string(
						stdout,
						(const char *)
							sqlite3_column_text(st,
									    i));
				}
			}
			printf("}");
			continue;
		}
		if (mode != M_TEXT) {
			for (int i = 0; i < nc; i++) {
				if (i)
					putchar(mode == M_CSV ? ',' : '\t');
				csv_field((const char *)sqlite3_column_text(st,
									    i),
					  mode == M_CSV ? ',' : '\t');
			}
			printf("\n");
			continue;
		}
		if (nrow == ALIGN_ROWS) { /* the widths are set: print */
			if (!w)
				w = text_head(st, v, nrow, nset);
			text_rows(v, nrow, nc, w);
			nrow = 0;
		}
		for (int i = 0; i < nc; i++) {
			struct cellv *c = &v[nrow * nc + i];
			int t = sqlite3_column_type(st, i);
			c->num = t == SQLITE_INTEGER || t == SQLITE_FLOAT;
			c->null = t == SQLITE_NULL;
			c->s = cell_text(st, i, 1);
		}
		nrow++;
		total++;
	}
	if (mode == M_JSON) {
		printf("]\n");
		return rc;
	}
	if (mode != M_TEXT)
		return rc;
	if (rc != SQLITE_DONE) { /* an error, said instead of the rows */
		for (size_t r = 0; r < nrow * nc; r++)
			free(v[r].s);
		free(v);
		free(w);
		return rc;
	}
	if (!w)
		w = text_head(st, v, nrow, nset);
	text_rows(v, nrow, nc, w);
	printf("(%zu row%s)\n", total, total == 1 ? "" : "s");
	free(w);
	free(v);
	return rc;
}

/* ---- errors ---- */

static size_t width_n(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n && s[i]; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* The statement's line where SQLite points, and a caret under the
 * place. */
static void show_at(const char *sql, int off)
{
	if (off < 0)
		return;
	size_t len = strlen(sql);
	if ((size_t)off > len)
		off = (int)len;
	const char *b = sql + off, *e = sql + off;
	while (b > sql && b[-1] != '\n')
		b--;
	while (*e && *e != '\n')
		e++;
	int line = 1;
	for (const char *p = sql; p < b; p++)
		line += *p == '\n';
	fprintf(stderr, "  at line %d, column %d:\n  ", line,
		(int)width_n(b, (size_t)(sql + off - b)) + 1);
	for (const char *p = b; p < e; p++) /* (a tab would move the caret) */
		fputc(*p == '\t' ? ' ' : *p, stderr);
	fprintf(stderr, "\n  %*s^\n", (int)width_n(b, (size_t)(sql + off - b)),
		"");
}

struct ctx {
	struct weft_query *q;
	enum mode mode;
	int64_t timeout; /* ns, 0: none */
	int nset;	 /* result sets printed */
};

/* Says why a statement failed: SQLite's message, the place in the text
 * (`sql` is the whole text, `stmt` where the statement that failed begins
 * in it: SQLite's offsets are from there), and for what weft refuses,
 * why. */
static int sql_error(struct ctx *c, const char *sql, const char *stmt, int rc)
{
	sqlite3 *db = weft_query_db(c->q);
	int stopped = weft_query_stopped(c->q);
	if (stopped == 1)
		return error("interrupted");
	if (stopped == 2) {
		char d[32];
		return error("stopped: the statement ran longer than "
			     "--timeout %s",
			     fmt_time(d, sizeof d, c->timeout));
	}
	if (rc == SQLITE_AUTH || sqlite3_extended_errcode(db) == SQLITE_AUTH ||
	    !strcmp(sqlite3_errmsg(db), "not authorized"))
		error("SQL error: %s: weft query only reads (no writes, no "
		      "ATTACH, no extensions, no pragmas that change "
		      "anything)",
		      sqlite3_errmsg(db));
	else
		error("SQL error: %s", sqlite3_errmsg(db));
	int off = sqlite3_error_offset(db);
	show_at(sql, off < 0 ? off : off + (int)(stmt - sql));
	return 1;
}

/* Runs every statement of `sql`.  0, or 1 after the first that failed
 * (said). */
static int run_sql(struct ctx *c, const char *sql)
{
	sqlite3 *db = weft_query_db(c->q);
	const char *p = sql;
	while (*p) {
		sqlite3_stmt *st = NULL;
		const char *tail;
		weft_query_deadline(c->q,
				    c->timeout ? mono_ns() + c->timeout : 0);
		int rc = sqlite3_prepare_v2(db, p, -1, &st, &tail);
		if (rc != SQLITE_OK)
			return sql_error(c, sql, p, rc);
		if (!st) { /* a comment, white space */
			p = tail;
			continue;
		}
		/* (the authorizer refuses every write already: this is the
		 * second lock on the same door) */
		if (!sqlite3_stmt_readonly(st)) {
			sqlite3_finalize(st);
			return error("SQL error: weft query only reads: the "
				     "statement would write");
		}
		rc = print_rows(st, c->mode, &c->nset);
		fflush(stdout);
		if (rc != SQLITE_DONE) {
			/* the error's place is the statement's */
			int r = sql_error(c, sql, p, rc);
			sqlite3_finalize(st);
			return r;
		}
		sqlite3_finalize(st);
		p = tail;
	}
	return 0;
}

/* ---- the prompt ---- */

/* ~/.weft_history, or $WEFT_HISTORY ("" for none): each statement the
 * prompt ran, appended (a statement of several lines stays one entry,
 * its newlines kept). */
static char *history_path(void)
{
	const char *h = getenv("WEFT_HISTORY");
	if (h)
		return *h ? strdup(h) : NULL;
	const char *home = getenv("HOME");
	if (!home || !*home)
		return NULL;
	char *p;
	if (asprintf(&p, "%s/.weft_history", home) < 0)
		return NULL;
	return p;
}

static void history_add(const char *path, const char *sql)
{
	if (!path)
		return;
	/* never through a link, only the user's own file */
	int fd = open(path,
		      O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
		      0600);
	if (fd < 0)
		return;
	struct stat sb;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    sb.st_uid == geteuid()) {
		size_t n = strlen(sql);
		while (n && (sql[n - 1] == '\n' || sql[n - 1] == ' '))
			n--;
		if (write(fd, sql, n) < 0 || write(fd, "\n", 1) < 0) {
			/* a history that cannot be written is not an error */
		}
	}
	close(fd);
}

static void history_show(const char *path)
{
	FILE *f = path ? fopen(path, "re") : NULL;
	if (!f) {
		printf("(no history%s%s)\n", path ? " in " : "",
		       path ? path : "");
		return;
	}
	/* the last 20 lines */
	char *lines[20] = {0}, *line = NULL;
	size_t cap = 0, k = 0;
	while (getline(&line, &cap, f) > 0) {
		free(lines[k % 20]);
		lines[k % 20] = strdup(line);
		k++;
	}
	for (size_t i = k > 20 ? k - 20 : 0; i < k; i++) {
		printf("%5zu  %s", i + 1, lines[i % 20] ? lines[i % 20] : "\n");
		free(lines[i % 20]);
	}
	free(line);
	fclose(f);
}

static void schema(struct weft_query *q, const char *only)
{
	sqlite3 *db = weft_query_db(q);
	for (int kind = 0; kind < 3; kind++) {
		for (int i = 0;; i++) {
			const char *name = kind == 0   ? weft_query_table(i)
					   : kind == 1 ? weft_query_function(i)
						       : NULL;
			char view[64] = "";
			if (kind == 2) {
				const char *v = weft_query_views[i];
				if (!v)
					break;
				sscanf(v, "CREATE VIEW %63s", view);
				name = view;
			}
			if (!name)
				break;
			if (only && strcmp(only, name))
				continue;
			sqlite3_stmt *st;
			if (sqlite3_prepare_v2(db,
					       "SELECT name, type, hidden FROM "
					       "pragma_table_xinfo(?1)",
					       -1, &st, NULL) != SQLITE_OK)
				return;
			sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
			printf("%s %s(",
			       kind == 0   ? "table"
			       : kind == 1 ? "function"
					   : "view",
			       name);
			int n = 0;
			while (sqlite3_step(st) == SQLITE_ROW) {
				const char *type =
					(const char *)sqlite3_column_text(st,
									  1);
				int hidden = sqlite3_column_int(st, 2);
				if (hidden && kind == 0)
					continue;
				printf("%s%s%s%s", n++ ? ", " : "",
				       sqlite3_column_text(st, 0),
				       hidden || !type || !*type ? "" : " ",
				       hidden ? ""
				       : type ? type
					      : "");
				if (hidden)
					printf(" (argument)");
			}
			sqlite3_finalize(st);
			printf(")\n");
		}
	}
}

static const char prompt_help[] =
	"Statements end with ';' (several lines until then).  Commands:\n"
	"  .schema [NAME]   tables, functions and views, with their columns\n"
	"  .mode text|csv|tsv|json\n"
	"  .timeout DURATION  stop a statement after that long (0: never)\n"
	"  .history         the last statements (kept in ~/.weft_history)\n"
	"  .help, .quit\n"
	"Ctrl-C stops the statement running; Ctrl-D or .quit leaves.\n";

/* Reads statements at a prompt until the end of the input.  Returns 0,
 * or 1 when the last statement failed. */
static int prompt(struct ctx *c, const char *path)
{
	char *hist = history_path(), *line = NULL, *buf = NULL;
	size_t cap = 0, len = 0, bcap = 0;
	int rc = 0;
	printf("weft query on %s: SQL ending in ';', .help for help\n", path);
	for (;;) {
		fputs(len ? "   ...> " : "weft> ", stdout);
		fflush(stdout);
		errno = 0;
		ssize_t n = getline(&line, &cap, stdin);
		if (n < 0) {
			if (errno == EINTR) { /* Ctrl-C at the prompt */
				clearerr(stdin);
				len = 0;
				putchar('\n');
				continue;
			}
			putchar('\n');
			break;
		}
		if (!len && line[0] == '.') {
			char cmd[32] = "", arg[256] = "";
			sscanf(line, ".%31s %255s", cmd, arg);
			if (!strcmp(cmd, "quit") || !strcmp(cmd, "exit"))
				break;
			else if (!strcmp(cmd, "help"))
				fputs(prompt_help, stdout);
			else if (!strcmp(cmd, "schema") || !strcmp(cmd, "table"
									"s"))
				schema(c->q, *arg ? arg : NULL);
			else if (!strcmp(cmd, "history"))
				history_show(hist);
			else if (!strcmp(cmd, "mode") && !strcmp(arg, "text"))
				c->mode = M_TEXT;
			else if (!strcmp(cmd, "mode") && !strcmp(arg, "csv"))
				c->mode = M_CSV;
			else if (!strcmp(cmd, "mode") && !strcmp(arg, "tsv"))
				c->mode = M_TSV;
			else if (!strcmp(cmd, "mode") && !strcmp(arg, "json"))
				c->mode = M_JSON;
			else if (!strcmp(cmd, "timeout") &&
				 !parse_duration(arg, 1e9, 0, &c->timeout))
				;
			else
				printf("unknown command or value: %s", line);
			continue;
		}
		if (WEFT_GROW(buf, bcap, (size_t)n + len + 1))
			die("out of memory");
		memcpy(buf + len, line, (size_t)n + 1);
		len += (size_t)n;
		if (!sqlite3_complete(buf))
			continue;
		history_add(hist, buf);
		c->nset = 0;
		rc = run_sql(c, buf);
		len = 0;
	}
	free(line);
	free(buf);
	free(hist);
	return rc;
}

/* ---- the command ---- */

/* The whole of f, NUL-terminated ("" when empty); dies short of memory. */
static char *read_all(FILE *f)
{
	size_t n = 0, k, cap = 0;
	char chunk[65536], *text = NULL;
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (WEFT_GROW(text, cap, n + k + 1))
			die("out of memory");
		memcpy(text + n, chunk, k);
		n += k;
	}
	if (!text && !(text = malloc(1)))
		die("out of memory");
	text[n] = 0;
	return text;
}

/* weft query --clickhouse URL: the fleet's tables (fleet-query.c) */
int cmd_query_clickhouse(int argc, char **argv);

int cmd_query(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--clickhouse") ||
		    !strncmp(argv[i], "--clickhouse=", 13))
			return cmd_query_clickhouse(argc, argv);
	const char *clickhouse = NULL;
	int csv = 0, tsv = 0, json = 0, show_schema = 0;
	int64_t timeout = 0;
	const char *file = NULL;
	const char *index = "auto";
	struct traces tr = {0};
	const struct opt opts[] = {
		{"--csv", NULL, NULL, "rows as CSV (RFC 4180), a header first",
		 OPT_FLAG, &csv},
		{"--tsv", NULL, NULL,
		 "rows as tab-separated values (tabs, "
		 "newlines and backslashes escaped), a header first",
		 OPT_FLAG, &tsv},
		{"--json", NULL, NULL,
		 "each statement's rows as a JSON array of objects, on a "
		 "line of its own",
		 OPT_FLAG, &json},
		{"--timeout", NULL, "DURATION",
		 "stop a statement that runs longer (a bare number is "
		 "seconds)",
		 OPT_DURATION, &timeout, 0, 0, 1e9},
		{"--file", "-f", "FILE",
		 "read the SQL from FILE ('-': standard input)", OPT_STRING,
		 &file},
		{"--schema", NULL, NULL,
		 "list the tables, table-valued functions and views with "
		 "their columns, and exit",
		 OPT_FLAG, &show_schema},
		{"--clickhouse", NULL, "URL",
		 "ask the fleet's ClickHouse server (weft ship) instead of "
		 "a trace: its own options, weft query --clickhouse URL "
		 "--help",
		 OPT_STRING, &clickhouse},
		{"--index", NULL, "WHEN",
		 "read threads and the views over it from the trace's index "
		 "(weft index) when fresh: auto (built first when the trace "
		 "is 32 MiB or more), build (built when missing or stale), "
		 "no (always the model)",
		 OPT_STRING, &index},
		TRACES_OPT(&tr),
		OPT_END,
	};
	const struct cmd_usage u = {"query", "[OPTIONS] TRACE... ['SQL']",
				    "SQL (SQLite) over the trace's async "
				    "threads, runs, waits, "
				    "arrows, labels, counters, loop phases, "
				    "idle periods, losses "
				    "and processes, read in place "
				    "(docs/query.md).  The last "
				    "operand is the SQL when it is not a file; "
				    "with none, the "
				    "statements come from --file, from "
				    "standard input, or on a "
				    "terminal from a prompt (history in "
				    "~/.weft_history).  Times "
				    "are integer nanoseconds from the trace's "
				    "origin, as every "
				    "command gives them.  Read-only: writes, "
				    "ATTACH and "
				    "extensions are refused.",
				    opts, 0};
	const char **ops = calloc((size_t)argc + 1, sizeof *ops);
	if (!ops)
		die("out of memory");
	const char *sql = NULL;
	int nops, rc = opts_parse(&u, argc, argv, ops, &nops, NULL);
	for (int i = 0; rc < 0 && i < nops; i++) {
		struct stat sb;
		if (i && i == nops - 1 && strcmp(ops[i], "-") &&
		    stat(ops[i], &sb) < 0)
			sql = ops[i];
		else if (traces_add(&tr, ops[i]))
			rc = opts_error(&u, "more than %d traces", TRACES_MAX);
	}
	free(ops);
	if (rc < 0 && !tr.n)
		rc = opts_usage(&u);
	if (rc < 0 && csv + tsv + json > 1)
		rc = opts_error(&u, "--csv, --tsv and --json: one at most");
	if (rc < 0 && strcmp(index, "auto") && strcmp(index, "build") &&
	    strcmp(index, "no"))
		rc = opts_error(&u, "--index: auto, build or no, not '%s'",
				index);
	if (rc < 0 && sql && file)
		rc = opts_error(&u, "the SQL comes from --file or the command "
				    "line, not both");
	if (rc >= 0) {
		traces_release(&tr);
		return rc;
	}
	char *text = NULL;
	if (file) {
		FILE *f = strcmp(file, "-") ? fopen(file, "re") : stdin;
		if (!f) {
			traces_release(&tr);
			return error_errno("cannot open '%s'", file);
		}
		text = read_all(f);
		if (f != stdin)
			fclose(f);
		sql = text;
	}
	const char *path = traces_name(&tr);
	char pathbuf[300];
	snprintf(pathbuf, sizeof pathbuf, "%s", path);
	/* The model is loaded when a statement first needs it; threads
	 * may come from the index instead (load_index). */
	struct source src = {.tr = &tr, .index = index};
	/* (opened now: a trace that cannot be read is an error before any
	 * statement, as when the model was always loaded) */
	if (!(src.r = traces_open(&tr, 0))) {
		traces_release(&tr);
		free(text);
		return 1;
	}
	const struct weft_query_source qs = {load_model, load_index, &src};
	struct weft_query *q;
	char why[300];
	if (weft_query_open_lazy(&q, &qs, why, sizeof why)) {
		weft_reader_close(src.r);
		traces_release(&tr);
		free(text);
		return error("%s", why);
	}
	struct ctx c = {q,
			csv    ? M_CSV
			: tsv  ? M_TSV
			: json ? M_JSON
			       : M_TEXT,
			timeout, 0};
	cur_q = q;
	struct sigaction sa = {0}, old;
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old); /* (no SA_RESTART: a prompt wakes) */
	int qrc;
	if (show_schema) {
		schema(q, NULL);
		qrc = 0;
	} else if (sql) {
		qrc = run_sql(&c, sql);
	} else if (isatty(0)) {
		qrc = prompt(&c, pathbuf);
	} else {
		char *in = read_all(stdin);
		qrc = *in ? run_sql(&c, in) : 0;
		free(in);
	}
	sigaction(SIGINT, &old, NULL);
	cur_q = NULL;
	/* WEFT_QUERY_STATS: what the statements read (the test of
	 * pushdown; docs/weft.1) */
	const char *qst = getenv("WEFT_QUERY_STATS");
	if (qst && *qst && strcmp(qst, "0")) {
		int srcn = weft_query_threads_source(q);
		fprintf(stderr,
			"weft query stats: threads=%s model=%d built=%d "
			"events_read=%" PRIu64 " threads_visited=%" PRId64 "\n",
			srcn == 2   ? "index"
			: srcn == 1 ? "model"
				    : "none",
			src.m != NULL, src.built,
			src.m ? weft_reader_info(src.r)->events : 0,
			weft_query_visited(q, "threads"));
	}
	weft_query_close(q);
	weft_model_free(src.m);
	weft_index_close(src.ix);
	free(text);
	rc = report_losses(src.r, pathbuf);
	weft_reader_close(src.r);
	traces_release(&tr);
	return qrc || rc ? 1 : 0;
}
