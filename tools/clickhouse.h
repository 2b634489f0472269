/* SPDX-License-Identifier: MIT */
/*
 * clickhouse.h - talking to ClickHouse over its HTTP interface
 * (docs/fleet.md): HTTP/1.1 spoken over a TCP socket (no libcurl), for
 * URLs http://HOST:PORT[/] only (no TLS, no user or password: the
 * server's default user), with a connect timeout and an I/O timeout;
 * TabSeparated escaping of values and SQL string literals.
 */
#ifndef WEFT_CLICKHOUSE_H
#define WEFT_CLICKHOUSE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ch_server {
	char host[256];
	char port[8];
	int64_t timeout_ns; /* connect, and each read or write (0: 30 s) */
};

/* http://HOST:PORT[/] (the port defaults to 8123) into s.  0, or -1 with
 * what the URL must be in why. */
int ch_parse_url(const char *url, struct ch_server *s, char *why, size_t cap);

struct ch_reply {
	int status; /* the HTTP status, or 0 when there was none */
	char *body; /* NUL-terminated (chunked encoding undone) */
	size_t len;
};
void ch_reply_free(struct ch_reply *r);

/*
 * POSTs body (len bytes) to /?PARAMS (already URL-encoded: name=value&...)
 * and reads the whole reply.  0 when a reply came (whatever its status),
 * else -1 with why ("cannot connect to 127.0.0.1:8123: Connection
 * refused", "timed out after 30 s").
 */
int ch_post(const struct ch_server *s, const char *params, const char *body,
	    size_t len, struct ch_reply *out, char *why, size_t cap);

/* Runs one statement (in the body; its result as text in out->body).
 * 0 when it succeeded (status 200), else -1 with the server's message or
 * the transport's failure in why. */
int ch_query(const struct ch_server *s, const char *params, const char *sql,
	     struct ch_reply *out, char *why, size_t cap);

/* Appends s (n bytes) to f escaped for TabSeparated: backslash, tab,
 * newline, carriage return and NUL as \\ \t \n \r \0. */
void ch_tsv(FILE *f, const char *s, size_t n);
/* Appends s to buf (cap bytes) URL-encoded; returns the length written,
 * or cap when it did not fit. */
size_t ch_urlenc(char *buf, size_t cap, const char *s);
/* A ClickHouse string literal 'like \'this\'' into buf. */
const char *ch_literal(char *buf, size_t cap, const char *s);
/* An identifier weft accepts for a database or cluster: [A-Za-z0-9_]+,
 * not starting with a digit, at most 63 bytes. */
int ch_ident_ok(const char *s);

#endif
