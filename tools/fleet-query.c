/* SPDX-License-Identifier: MIT */
/*
 * fleet-query.c - `weft query --clickhouse URL 'SQL'|NAME`: SQL over the
 * tables `weft ship` fills (docs/fleet.md), and the fleet's standard
 * questions by name.  The percentiles are nearest-rank as weft query's
 * (the value of rank floor(q n + 0.999999), at least 1), so that the
 * fleet's answer equals weft query's over the same traces merged.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clickhouse.h"
#include "weft-tools.h"

int cmd_query_clickhouse(int argc, char **argv);

/* the nearest-rank percentile q of the non-NULL x */
#define PNR(x, q)                                                              \
	"if(count(" x ") = 0, NULL, arrayElement(arraySort(groupArrayIf("      \
	"assumeNotNull(" x "), isNotNull(" x "))), toUInt64(greatest(1, "      \
	"least(toFloat64(count(" x ")), floor(" q " * count(" x ") + "         \
	"0.999999))))))"

/* the latency columns of the async threads (not OS threads), as weft
 * query's latency views have them */
/* (clang-format would cut the SQL into pieces around PNR) */
/* clang-format off */
#define LATENCY                                                                \
	"count() AS count, countIf(`end` = 'pending') AS pending, "            \
	"countIf(`end` = 'failed') AS failed, "                                \
	PNR("lifetime", "0.5") " AS p50, "                                     \
	PNR("lifetime", "0.9") " AS p90, "                                     \
	PNR("lifetime", "0.99") " AS p99, "                                    \
	"max(lifetime) AS max FROM threads WHERE root = 0 "
/* clang-format on */

static const struct {
	const char *name, *what, *sql;
} standard[] = {
	{"p99_by_host_kind",
	 "latency (the lifetime of async threads but OS threads) by host "
	 "and kind: count, pending, failed, nearest-rank p50, p90, p99, max",
	 "SELECT host, kind, " LATENCY "GROUP BY host, kind ORDER BY host, "
	 "kind"},
	{"p99_by_kind",
	 "the same over the whole fleet, by kind (weft query's "
	 "latency_by_kind over every host's trace merged)",
	 "SELECT kind, " LATENCY "GROUP BY kind ORDER BY count DESC, kind"},
	{"unresolved",
	 "every host with a should-resolve thread that did not resolve (the "
	 "faults weft why reports): how many, and their verdicts",
	 "SELECT host, count() AS threads, arrayStringConcat(arraySort("
	 "groupUniqArray(verdict)), ',') AS verdicts FROM verdicts WHERE "
	 "fault = 1 AND should_resolve = 1 GROUP BY host ORDER BY host"},
	{"slowest_last_hour",
	 "the 20 slowest requests that ended in the last hour, over every "
	 "host",
	 "SELECT host, service, kind, title, lifetime AS latency, run_id, "
	 "thread FROM threads WHERE root = 0 AND lifetime IS NOT NULL AND "
	 "time + lifetime >= (toInt64(now()) - 3600) * 1000000000 ORDER BY "
	 "latency DESC, host, run_id, thread LIMIT 20"},
};
#define NSTANDARD (sizeof standard / sizeof *standard)

int cmd_query_clickhouse(int argc, char **argv)
{
	const char *url = NULL, *db = "weft", *file = NULL;
	int csv = 0, tsv = 0, json = 0, list = 0;
	int64_t timeout = 0;
	const struct opt opts[] = {
		{"--clickhouse", NULL, "URL",
		 "ask the ClickHouse server weft ship fills "
		 "(http://HOST:PORT[/]) instead of a trace",
		 OPT_STRING, &url},
		{"--database", NULL, "DB", "its database (default weft)",
		 OPT_STRING, &db},
		{"--csv", NULL, NULL, "rows as CSV, a header first", OPT_FLAG,
		 &csv},
		{"--tsv", NULL, NULL,
		 "rows as tab-separated values, a header "
		 "first",
		 OPT_FLAG, &tsv},
		{"--json", NULL, NULL, "rows as JSON objects, one a line",
		 OPT_FLAG, &json},
		{"--timeout", NULL, "DURATION",
		 "stop waiting for the answer after this long (default 30 s)",
		 OPT_DURATION, &timeout, 0, 0, 1e9},
		{"--file", "-f", "FILE", "read the SQL from FILE", OPT_STRING,
		 &file},
		{"--list", NULL, NULL, "list the standard queries and exit",
		 OPT_FLAG, &list},
		OPT_END,
	};
	const struct cmd_usage u = {"query",
				    "--clickhouse URL [--database DB] "
				    "['SQL'|NAME]",
				    "SQL (ClickHouse's) over the fleet's "
				    "tables that weft ship "
				    "fills, or one of the standard queries by "
				    "NAME "
				    "(p99_by_host_kind, unresolved, "
				    "slowest_last_hour; --list "
				    "says what each is).  docs/fleet.md.",
				    opts, 0};
	const char **ops = calloc((size_t)argc + 1, sizeof *ops);
	if (!ops)
		die("out of memory");
	int nops, rc = opts_parse(&u, argc, argv, ops, &nops, NULL);
	const char *sql = nops ? ops[0] : NULL;
	free(ops);
	if (rc >= 0)
		return rc;
	if (list) {
		for (size_t i = 0; i < NSTANDARD; i++)
			printf("%-18s %s\n", standard[i].name,
			       standard[i].what);
		return 0;
	}
	if (nops > 1 || (sql && file) || (!sql && !file))
		return opts_error(&u, "one statement: SQL or a standard "
				      "query's name, or --file");
	if (csv + tsv + json > 1)
		return opts_error(&u, "--csv, --tsv and --json: one at most");
	if (!ch_ident_ok(db))
		return opts_error(&u,
				  "--database must be a name of letters, "
				  "digits and '_' (not '%s')",
				  db);
	struct ch_server srv;
	char why[600];
	if (ch_parse_url(url, &srv, why, sizeof why))
		return opts_error(&u, "--clickhouse %s", why);
	srv.timeout_ns = timeout;
	char *text = NULL;
	if (file) {
		FILE *f = strcmp(file, "-") ? fopen(file, "re") : stdin;
		if (!f)
			return error_errno("cannot open '%s'", file);
		size_t n = 0;
		FILE *m = open_memstream(&text, &n);
		char b[65536];
		size_t k;
		while (m && (k = fread(b, 1, sizeof b, f)) > 0)
			fwrite(b, 1, k, m);
		if (m)
			fclose(m);
		if (f != stdin)
			fclose(f);
		if (!text)
			die("out of memory");
		sql = text;
	}
	for (size_t i = 0; i < NSTANDARD; i++)
		if (!strcmp(sql, standard[i].name)) {
			sql = standard[i].sql; /* (in database DB) */
			break;
		}
	char params[200];
	snprintf(params, sizeof params, "database=%s&default_format=%s", db,
		 csv	? "CSVWithNames"
		 : tsv	? "TabSeparatedWithNames"
		 : json ? "JSONEachRow"
			: "PrettyCompactNoEscapes");
	struct ch_reply rp;
	rc = ch_query(&srv, params, sql, &rp, why, sizeof why);
	free(text);
	text = NULL;
	if (rc)
		return error("%s", why);
	fwrite(rp.body, 1, rp.len, stdout);
	ch_reply_free(&rp);
	return fflush(stdout) ? error_errno("cannot write") : 0;
}
