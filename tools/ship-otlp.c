/* SPDX-License-Identifier: MIT */
/*
 * ship-otlp.c - `weft ship --otlp URL TRACE...`: the trace's spans
 * (otlp.c) POSTed to an OpenTelemetry collector's OTLP/HTTP endpoint
 * (http://HOST:PORT/v1/traces, Content-Type application/x-protobuf), one
 * ExportTraceServiceRequest a request, over one kept-alive HTTP/1.1
 * connection on a plain socket.  A 429, 502, 503 or 504, a refused
 * connection or one that breaks is retried with back-off (Retry-After
 * honoured, at most 10 s a wait) up to --retries times a message; any
 * other answer but 2xx stops the shipping with its status line.
 * (docs/otlp.md.)
 */
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "otlp.h"
#include "weft-tools.h"
#include "weft/model.h"

struct conn {
	char host[256], port[8], path[512];
	int fd;
	int retries;
	int64_t timeout_ms;
	uint64_t sent, retried;
	char why[1024]; /* the last failure, for the message */
};

static int parse_url(struct conn *c, const char *url)
{
	const char *p = url;
	if (!strncmp(p, "https://", 8)) {
		snprintf(c->why, sizeof c->why,
			 "https is not supported: give the collector's "
			 "plain-HTTP endpoint (http://HOST:4318)");
		return -1;
	}
	if (!strncmp(p, "http://", 7))
		p += 7;
	const char *slash = strchr(p, '/');
	size_t hl = slash ? (size_t)(slash - p) : strlen(p);
	const char *colon = memchr(p, ':', hl);
	if (p[0] == '[') { /* [v6]:port */
		const char *rb = memchr(p, ']', hl);
		colon = rb && rb + 1 < p + hl && rb[1] == ':' ? rb + 1 : NULL;
		if (!rb)
			goto bad;
		snprintf(c->host, sizeof c->host, "%.*s", (int)(rb - p - 1),
			 p + 1);
	} else
		snprintf(c->host, sizeof c->host, "%.*s",
			 (int)(colon ? (size_t)(colon - p) : hl), p);
	if (!c->host[0] || hl >= sizeof c->host)
		goto bad;
	if (colon) {
		size_t pl = (size_t)(p + hl - colon - 1);
		if (pl == 0 || pl > 5 || strspn(colon + 1, "0123456789") < pl)
			goto bad;
		snprintf(c->port, sizeof c->port, "%.*s", (int)pl, colon + 1);
		long v = strtol(c->port, NULL, 10);
		if (v < 1 || v > 65535)
			goto bad;
	} else
		snprintf(c->port, sizeof c->port, "4318");
	if (!slash || !strcmp(slash, "/"))
		snprintf(c->path, sizeof c->path, "/v1/traces");
	else if (strlen(slash) >= sizeof c->path || strpbrk(slash, " \r\n\t"))
		goto bad;
	else
		snprintf(c->path, sizeof c->path, "%s", slash);
	return 0;
bad:
	snprintf(c->why, sizeof c->why,
		 "must be http://HOST[:PORT][/PATH] (not '%s')", url);
	return -1;
}

static void drop(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static int dial(struct conn *c)
{
	struct addrinfo hints = {0}, *ai, *a;
	hints.ai_socktype = SOCK_STREAM;
	int rc = getaddrinfo(c->host, c->port, &hints, &ai);
	if (rc) {
		snprintf(c->why, sizeof c->why, "cannot resolve '%s': %s",
			 c->host, gai_strerror(rc));
		return -1;
	}
	for (a = ai; a; a = a->ai_next) {
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC,
				a->ai_protocol);
		if (fd < 0)
			continue;
		if (!connect(fd, a->ai_addr, a->ai_addrlen)) {
			/* the head and the body go in two sends: without
			 * this, Nagle's algorithm holds the body until the
			 * head's delayed ACK (40 ms a request) */
			int one = 1;
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof one);
			c->fd = fd;
			break;
		}
		snprintf(c->why, sizeof c->why, "cannot connect to %s:%s: %s",
			 c->host, c->port, strerror(errno));
		close(fd);
	}
	freeaddrinfo(ai);
	return c->fd >= 0 ? 0 : -1;
}

static int send_all(struct conn *c, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t k = send(c->fd, p, len, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			snprintf(c->why, sizeof c->why, "sending to %s:%s: %s",
				 c->host, c->port, strerror(errno));
			return -1;
		}
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

/* Reads into buf (cap) at *n, waiting at most the time-out: bytes read,
 * 0 at the end of the stream, -1 on an error or a time-out. */
static ssize_t recv_some(struct conn *c, char *buf, size_t cap, size_t *n)
{
	struct pollfd pfd = {c->fd, POLLIN, 0};
	int r = poll(&pfd, 1, (int)c->timeout_ms);
	if (r == 0) {
		snprintf(c->why, sizeof c->why,
			 "%s:%s did not answer within %" PRId64 " ms", c->host,
			 c->port, c->timeout_ms);
		return -1;
	}
	ssize_t k = r < 0 ? -1 : recv(c->fd, buf + *n, cap - *n, 0);
	if (k < 0) {
		snprintf(c->why, sizeof c->why, "reading from %s:%s: %s",
			 c->host, c->port, strerror(errno));
		return -1;
	}
	*n += (size_t)k;
	return k;
}

/* The value of header `name` in head (NUL-terminated), or NULL. */
static const char *header(const char *head, const char *name)
{
	size_t nl = strlen(name);
	for (const char *p = strstr(head, "\r\n"); p; p = strstr(p, "\r\n")) {
		p += 2;
		if (!strncasecmp(p, name, nl) && p[nl] == ':') {
			p += nl + 1;
			while (*p == ' ' || *p == '\t')
				p++;
			return p;
		}
	}
	return NULL;
}

/*
 * One POST: the HTTP status (200...), or -1 when the connection failed
 * (c->why says how).  *retry_after: the seconds a 429/503 asked to wait,
 * or -1.
 */
static int post(struct conn *c, const uint8_t *msg, size_t len,
		int *retry_after)
{
	char head[2048];
	*retry_after = -1;
	if (c->fd < 0 && dial(c))
		return -1;
	int hl = snprintf(head, sizeof head,
			  "POST %s HTTP/1.1\r\nHost: %s:%s\r\n"
			  "User-Agent: weft\r\n"
			  "Content-Type: application/x-protobuf\r\n"
			  "Content-Length: %zu\r\n\r\n",
			  c->path, c->host, c->port, len);
	if (send_all(c, head, (size_t)hl) || send_all(c, msg, len))
		goto broken;
	/* the answer: its head, then a body of Content-Length bytes (or
	 * chunked, or to the end: read and dropped) */
	char buf[8192];
	size_t n = 0;
	char *end;
	for (;;) {
		buf[n] = 0;
		if ((end = strstr(buf, "\r\n\r\n")))
			break;
		if (n + 1 >= sizeof buf) {
			snprintf(c->why, sizeof c->why,
				 "%s:%s answered with a head over %zu bytes",
				 c->host, c->port, sizeof buf);
			goto broken;
		}
		ssize_t k = recv_some(c, buf, sizeof buf - 1, &n);
		if (k <= 0) {
			if (k == 0)
				snprintf(c->why, sizeof c->why,
					 "%s:%s closed the connection", c->host,
					 c->port);
			goto broken;
		}
	}
	*end = 0;
	int status;
	if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1) {
		snprintf(c->why, sizeof c->why, "%s:%s: not HTTP: '%.40s'",
			 c->host, c->port, buf);
		goto broken;
	}
	const char *ra = header(buf, "Retry-After");
	if (ra)
		*retry_after = atoi(ra);
	const char *cl = header(buf, "Content-Length");
	const char *te = header(buf, "Transfer-Encoding");
	const char *cn = header(buf, "Connection");
	int close_after = cn && !strncasecmp(cn, "close", 5);
	size_t have = n - (size_t)(end + 4 - buf);
	snprintf(c->why, sizeof c->why, "%s:%s answered '%.*s'", c->host,
		 c->port,
		 (int)(strcspn(buf, "\r\n") > 80 ? 80 : strcspn(buf, "\r\n")),
		 buf);
	if (cl) {
		unsigned long long want = strtoull(cl, NULL, 10);
		while (have < want) {
			n = 0;
			ssize_t k = recv_some(c, buf, sizeof buf - 1, &n);
			if (k <= 0)
				goto broken_status;
			have += (size_t)k;
		}
	} else if (te && !strncasecmp(te, "chunked", 7)) {
		/* rare for OTLP answers: read to the last chunk's end */
		memmove(buf, end + 4, have);
		n = have;
		for (;;) {
			buf[n] = 0;
			if (strstr(buf, "0\r\n\r\n"))
				break;
			if (n + 1 >= sizeof buf) { /* keep the tail */
				memmove(buf, buf + n - 8, 8);
				n = 8;
			}
			ssize_t k = recv_some(c, buf, sizeof buf - 1, &n);
			if (k <= 0)
				goto broken_status;
		}
	} else
		close_after = 1; /* a body to the end of the stream */
	if (close_after)
		drop(c);
	return status;
broken_status:
	drop(c);
	return status;
broken:
	drop(c);
	return -1;
}

static void sleep_ms(int64_t ms)
{
	struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int ship_one(void *ctx, const uint8_t *msg, size_t len)
{
	struct conn *c = ctx;
	int64_t wait = 100;
	for (int attempt = 0;; attempt++) {
		int ra, st = post(c, msg, len, &ra);
		if (st >= 200 && st < 300) {
			c->sent++;
			return 0;
		}
		int again = st < 0 || st == 429 || st == 502 || st == 503 ||
			    st == 504;
		if (!again || attempt >= c->retries)
			return -EIO;
		c->retried++;
		int64_t w = ra >= 0 ? (int64_t)ra * 1000 : wait;
		sleep_ms(w > 10000 ? 10000 : w);
		wait = wait * 2 > 10000 ? 10000 : wait * 2;
	}
}

int cmd_ship_otlp(int argc, char **argv)
{
	const char *url = NULL, *service = NULL;
	int budget = OTLP_SPAN_BUDGET, limit = (int)OTLP_MESSAGE_LIMIT;
	int retries = 8;
	int64_t timeout = 30000000000;
	struct traces tr = {0};
	const struct opt opts[] = {
		{"--otlp", NULL, "URL",
		 "the collector's OTLP/HTTP endpoint: "
		 "http://HOST[:PORT][/PATH] "
		 "(port 4318, path /v1/traces by default)",
		 OPT_STRING, &url},
		{"--span-budget", NULL, "N",
		 "the most spans a trace may hold (default 10000)", OPT_INT,
		 &budget, .min = 1, .max = 100000000},
		{"--message-limit", NULL, "BYTES",
		 "the most bytes a request's body may take (default 4194304, "
		 "4 MiB)",
		 OPT_INT, &limit, .min = OTLP_MESSAGE_MIN, .max = 1 << 30},
		{"--service", NULL, "NAME",
		 "the spans' service.name (default: each process's command "
		 "name)",
		 OPT_STRING, &service},
		{"--retries", NULL, "N",
		 "tries again a request refused with 429, 502, 503 or 504 or "
		 "whose connection failed, at most N times, waiting 0.1 s, "
		 "0.2 s... (or its Retry-After) (default 8)",
		 OPT_INT, &retries, .min = 0, .max = 1000},
		{"--timeout", NULL, "DURATION",
		 "wait at most this long for an answer (default 30 s; a bare "
		 "number is seconds)",
		 OPT_DURATION, &timeout, .min = 1000000, .unit = 1e9},
		TRACES_OPT(&tr),
		OPT_END,
	};
	const struct cmd_usage u = {"ship", "--otlp URL [OPTIONS] TRACE...",
				    "Sends the trace's async threads as "
				    "OpenTelemetry spans to a "
				    "collector (OTLP/HTTP, protobuf): each "
				    "async thread a span, "
				    "requests and connections traces of their "
				    "own, arrows as "
				    "links (docs/otlp.md; weft export --otlp "
				    "writes the same to a "
				    "file).",
				    opts, 0};
	int rc = parse_traces(&u, argc, argv, &tr);
	if (rc >= 0)
		return rc;
	struct conn c = {
		.fd = -1, .retries = retries, .timeout_ms = timeout / 1000000};
	if (!url) {
		traces_release(&tr);
		return opts_error(&u, "--otlp URL is required: the "
				      "collector's OTLP/HTTP endpoint");
	}
	if (parse_url(&c, url)) {
		traces_release(&tr);
		return opts_error(&u, "--otlp: %s", c.why);
	}
	const char *path = traces_name(&tr);
	struct weft_reader *r;
	struct weft_model *m = traces_model(&tr, &r);
	traces_release(&tr);
	if (!m)
		return 1;
	struct otlp_opts o = {(uint32_t)budget, (size_t)limit, service};
	struct otlp_stats st;
	int err = otlp_encode(m, &o, ship_one, &c, &st);
	drop(&c);
	weft_model_free(m);
	if (err == -EIO)
		error("cannot ship to %s: %s (%" PRIu64 " requests accepted "
		      "before)",
		      url, c.why, c.sent);
	else if (err == -E2BIG)
		error("a span's attributes alone exceed --message-limit %d",
		      limit);
	else if (err)
		error("out of memory");
	else {
		fprintf(stderr,
			"weft: shipped %" PRIu64 " spans in %" PRIu64 " traces,"
			" "
			"%" PRIu64 " requests (%" PRIu64 " bytes), %" PRIu64
			" retries\n",
			st.spans, st.traces, st.messages, st.bytes, c.retried);
		if (st.links_dropped || st.events_dropped)
			warning("%" PRIu64 " links and %" PRIu64 " events left "
				"out of spans "
				"too big for "
				"one "
				"request (counted in their dropped_links_count "
				"and dropped_events_count)",
				st.links_dropped, st.events_dropped);
	}
	rc = report_losses(r, path);
	weft_reader_close(r);
	return err ? 1 : rc;
}
