/* SPDX-License-Identifier: MIT */
/* clickhouse.c - ClickHouse's HTTP interface over a plain TCP socket
 * (clickhouse.h). */
#define _GNU_SOURCE
#include "clickhouse.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/grow.h"

int ch_parse_url(const char *url, struct ch_server *s, char *why, size_t cap)
{
	const char *want = "must be http://HOST:PORT[/] (no TLS, user, "
			   "password or path)";
	memset(s, 0, sizeof *s);
	if (strncmp(url, "http://", 7)) {
		snprintf(why, cap, "%s (not '%s')", want, url);
		return -1;
	}
	const char *h = url + 7, *e = h;
	if (*h == '[') { /* [::1]:8123 */
		e = strchr(h, ']');
		if (!e) {
			snprintf(why, cap, "%s (not '%s')", want, url);
			return -1;
		}
		h++;
	} else {
		while (*e && *e != ':' && *e != '/')
			e++;
	}
	size_t hn = (size_t)(e - h);
	if (!hn || hn >= sizeof s->host || memchr(h, '@', hn)) {
		snprintf(why, cap, "%s (not '%s')", want, url);
		return -1;
	}
	memcpy(s->host, h, hn);
	if (*e == ']')
		e++;
	const char *p = "8123";
	size_t pn = 4;
	if (*e == ':') {
		p = ++e;
		while (*e >= '0' && *e <= '9')
			e++;
		pn = (size_t)(e - p);
	}
	if (!pn || pn > 5 || atoi(p) < 1 || atoi(p) > 65535 ||
	    (*e && strcmp(e, "/"))) {
		snprintf(why, cap, "%s (not '%s')", want, url);
		return -1;
	}
	memcpy(s->port, p, pn);
	return 0;
}

void ch_reply_free(struct ch_reply *r)
{
	if (r) {
		free(r->body);
		r->body = NULL;
		r->len = 0;
	}
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Waits for fd to be ready for `ev` until the deadline: 0, or -1 with
 * errno ETIMEDOUT. */
static int wait_fd(int fd, short ev, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline - now_ns();
		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		struct pollfd p = {fd, ev, 0};
		int n = poll(&p, 1, (int)(left / 1000000 + 1));
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -1;
	}
}

static int dial(const struct ch_server *s, int64_t tmo, char *why, size_t cap)
{
	struct addrinfo hints = {0}, *ai, *a;
	hints.ai_socktype = SOCK_STREAM;
	int rc = getaddrinfo(s->host, s->port, &hints, &ai);
	if (rc) {
		snprintf(why, cap, "cannot resolve '%s': %s", s->host,
			 gai_strerror(rc));
		return -1;
	}
	int fd = -1, err = 0;
	for (a = ai; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family,
			    a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			    a->ai_protocol);
		if (fd < 0) {
			err = errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
			if (errno == EINPROGRESS &&
			    !wait_fd(fd, POLLOUT, now_ns() + tmo)) {
				socklen_t l = sizeof err;
				getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l);
			} else {
				err = errno;
			}
			if (err) {
				close(fd);
				fd = -1;
			}
		}
	}
	freeaddrinfo(ai);
	if (fd < 0)
		snprintf(why, cap, "cannot connect to %s:%s: %s", s->host,
			 s->port,
			 err == ETIMEDOUT ? "timed out" : strerror(err));
	return fd;
}

static int send_all(int fd, const char *p, size_t n, int64_t tmo)
{
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k > 0) {
			p += k;
			n -= (size_t)k;
		} else if (k < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (wait_fd(fd, POLLOUT, now_ns() + tmo))
				return -1;
		} else {
			return -1;
		}
	}
	return 0;
}

/* Undoes chunked transfer encoding in place; -1 when malformed. */
static int unchunk(char *b, size_t n, size_t *out)
{
	size_t i = 0, o = 0;
	for (;;) {
		char *end;
		if (i >= n)
			return -1;
		unsigned long long k = strtoull(b + i, &end, 16);
		char *nl = memchr(b + i, '\n', n - i);
		if (!nl || end == b + i)
			return -1;
		i = (size_t)(nl - b) + 1;
		if (!k)
			break;
		if (k > n - i)
			return -1;
		memmove(b + o, b + i, k);
		o += k;
		i += k;
		if (i < n && b[i] == '\r')
			i++;
		if (i < n && b[i] == '\n')
			i++;
	}
	b[o] = 0;
	*out = o;
	return 0;
}

int ch_post(const struct ch_server *s, const char *params, const char *body,
	    size_t len, struct ch_reply *out, char *why, size_t cap)
{
	int64_t tmo = s->timeout_ns > 0 ? s->timeout_ns
					: 30 * INT64_C(1000000000);
	memset(out, 0, sizeof *out);
	int fd = dial(s, tmo, why, cap);
	if (fd < 0)
		return -1;
	char *head = NULL;
	int hn = asprintf(&head,
			  "POST /?%s HTTP/1.1\r\nHost: %s:%s\r\n"
			  "User-Agent: weft\r\nContent-Length: %zu\r\n"
			  "Content-Type: text/plain; charset=utf-8\r\n"
			  "Connection: close\r\n\r\n",
			  params ? params : "", s->host, s->port, len);
	if (hn < 0) {
		close(fd);
		snprintf(why, cap, "out of memory");
		return -1;
	}
	int rc = send_all(fd, head, (size_t)hn, tmo);
	free(head);
	if (!rc)
		rc = send_all(fd, body, len, tmo);
	if (rc) {
		snprintf(why, cap, "cannot send to %s:%s: %s", s->host, s->port,
			 errno == ETIMEDOUT ? "timed out" : strerror(errno));
		close(fd);
		return -1;
	}
	size_t n = 0, bcap = 65536;
	char *b = malloc(bcap);
	for (;;) {
		if (!b) {
			close(fd);
			snprintf(why, cap, "out of memory");
			return -1;
		}
		/* (doubled up to 4 GiB) */
		if (n + 1 >= bcap && (bcap >= ((size_t)1 << 31) ||
				      WEFT_GROW(b, bcap, bcap + 1))) {
			free(b);
			close(fd);
			snprintf(why, cap, "a reply too big from %s:%s",
				 s->host, s->port);
			return -1;
		}
		ssize_t k = recv(fd, b + n, bcap - n - 1, 0);
		if (k > 0) {
			n += (size_t)k;
		} else if (!k) {
			break;
		} else if (errno == EAGAIN || errno == EINTR) {
			if (wait_fd(fd, POLLIN, now_ns() + tmo)) {
				free(b);
				close(fd);
				snprintf(why, cap,
					 "no reply from %s:%s: timed out "
					 "after %lld s",
					 s->host, s->port,
					 (long long)(tmo / 1000000000));
				return -1;
			}
		} else {
			free(b);
			close(fd);
			snprintf(why, cap, "cannot read from %s:%s: %s",
				 s->host, s->port, strerror(errno));
			return -1;
		}
	}
	close(fd);
	b[n] = 0;
	char *eoh = strstr(b, "\r\n\r\n");
	int status = 0;
	if (!eoh || sscanf(b, "HTTP/1.%*d %d", &status) != 1) {
		free(b);
		snprintf(why, cap, "not an HTTP reply from %s:%s", s->host,
			 s->port);
		return -1;
	}
	*eoh = 0;
	int chunked = 0;
	for (char *l = strstr(b, "\r\n"); l; l = strstr(l + 2, "\r\n"))
		if (!strncasecmp(l + 2, "Transfer-Encoding:", 18) &&
		    strstr(l + 2, "chunked"))
			chunked = 1;
	size_t off = (size_t)(eoh + 4 - b), blen = n - off;
	memmove(b, b + off, blen + 1);
	if (chunked && unchunk(b, blen, &blen)) {
		free(b);
		snprintf(why, cap, "a malformed chunked reply from %s:%s",
			 s->host, s->port);
		return -1;
	}
	out->status = status;
	out->body = b;
	out->len = blen;
	return 0;
}

int ch_query(const struct ch_server *s, const char *params, const char *sql,
	     struct ch_reply *out, char *why, size_t cap)
{
	if (ch_post(s, params, sql, strlen(sql), out, why, cap))
		return -1;
	if (out->status == 200)
		return 0;
	/* the server's message, on one line */
	size_t n = out->len;
	while (n && (out->body[n - 1] == '\n' || out->body[n - 1] == '\r'))
		n--;
	for (size_t i = 0; i < n; i++)
		if (out->body[i] == '\n' || out->body[i] == '\r')
			out->body[i] = ' ';
	snprintf(why, cap, "ClickHouse (HTTP %d): %.*s", out->status,
		 (int)(n > 400 ? 400 : n), out->body);
	ch_reply_free(out);
	return -1;
}

void ch_tsv(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		switch (c) {
		case '\\':
			fputs("\\\\", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case 0:
			fputs("\\0", f);
			break;
		default:
			putc(c, f);
		}
	}
}

size_t ch_urlenc(char *buf, size_t cap, const char *s)
{
	size_t o = 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-_.~", c)) {
			if (o + 1 >= cap)
				return cap;
			buf[o++] = (char)c;
		} else {
			if (o + 3 >= cap)
				return cap;
			o += (size_t)snprintf(buf + o, cap - o, "%%%02X", c);
		}
	}
	if (o < cap)
		buf[o] = 0;
	return o;
}

const char *ch_literal(char *buf, size_t cap, const char *s)
{
	size_t o = 0;
	if (cap < 3)
		return "''";
	buf[o++] = '\'';
	for (; *s && o + 4 < cap; s++) {
		if (*s == '\'' || *s == '\\')
			buf[o++] = '\\';
		buf[o++] = *s;
	}
	buf[o++] = '\'';
	buf[o] = 0;
	return buf;
}

int ch_ident_ok(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 63 || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}
