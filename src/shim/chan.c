/* SPDX-License-Identifier: MIT */
/*
 * chan.c - what a descriptor is connected to, for the arrows between
 * processes: each direction of a pipe or socket gets a 64-bit identity
 * that both ends compute alike, and each end counts the bytes of its
 * direction, so that a reader of both processes' traces can match every
 * read with the writes of its bytes (docs/format.md, "Messages"):
 *
 *   pipe, FIFO          its inode (one direction)
 *   Unix stream socket  the pair of inodes, writer's first (the peer's
 *                       from the kernel's sock_diag)
 *   TCP                 the addresses and ports, writer's first
 *   UDP                 the ports, sender's first (addresses differ
 *                       between ends: a wildcard bind, a loopback alias);
 *                       each datagram is matched by order and size
 *
 * A descriptor is looked at once, at its first read or write that a
 * shim records (a few system calls), and forgotten when it is closed.
 * Bytes are counted from that first sight: both ends must be traced from
 * the connection's start (as in a run under `weft record`).  Two OS
 * threads writing one descriptor at once have their bytes counted in the
 * order their calls returned.
 */
#define _GNU_SOURCE
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "shim.h"

#define CHAN_LIMIT (1u << 20) /* descriptors below this are followed */

enum { K_UNSEEN, K_NONE, K_PIPE, K_STREAM, K_UDP, K_UNIX_DGRAM };

struct chan_fd {
	uint8_t kind;	  /* (atomic) K_*; K_UNSEEN until looked at */
	uint16_t lport;	  /* UDP: local port, host order */
	uint64_t in, out; /* stream, pipe: the channel of each direction */
	uint64_t in_off;  /* (atomic) bytes of each direction so far */
	uint64_t out_off; /* (atomic) */
};

static struct chan_fd *table;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_make(void)
{
	/* reserved, not committed: only the pages of descriptors used */
	void *p = mmap(NULL, CHAN_LIMIT * sizeof *table, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	/* Pairs with the acquire loads of `table`. */
	if (p != MAP_FAILED)
		__atomic_store_n(&table, p, __ATOMIC_RELEASE);
}

/* FNV-1a over what names a channel: both ends hash the same bytes. */
struct h64 {
	uint64_t v;
};
static void mix(struct h64 *h, const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		h->v = (h->v ^ b[i]) * 0x100000001b3ull;
}
static uint64_t done(struct h64 *h)
{
	/* never 0: 0 says "no channel" */
	return h->v ? h->v : 1;
}
static struct h64 start(char kind)
{
	struct h64 h = {0xcbf29ce484222325ull};
	mix(&h, &kind, 1);
	return h;
}

/* The two directions between ends a and b (bytes): one identity but for
 * its lowest bit, which says the direction (a's bytes first, or b's):
 * the reverse of a channel is the channel ^ 1, on both ends. */
static void pair(struct chan_fd *c, char kind, const void *a, size_t na,
		 const void *b, size_t nb)
{
	int a_first = na != nb ? na < nb : memcmp(a, b, na) < 0;
	struct h64 h = start(kind);
	mix(&h, a_first ? a : b, a_first ? na : nb);
	mix(&h, a_first ? b : a, a_first ? nb : na);
	uint64_t base = done(&h) & ~1ull;
	/* never 0, either way */
	if (!base)
		base = 2;
	c->out = base | (uint64_t)!a_first;
	c->in = c->out ^ 1;
}

/* An IP endpoint as bytes: v4-mapped IPv6 addresses read as IPv4. */
static size_t endpoint(const struct sockaddr_storage *ss, uint8_t out[18],
		       uint16_t *port)
{
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const void *)ss;
		memcpy(out, &a->sin_addr, 4);
		memcpy(out + 4, &a->sin_port, 2);
		*port = ntohs(a->sin_port);
		return 6;
	}
	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)ss;
		static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0,    0,
						     0, 0, 0, 0, 0xff, 0xff};
		*port = ntohs(a->sin6_port);
		if (!memcmp(&a->sin6_addr, v4mapped, 12)) {
			memcpy(out, (const uint8_t *)&a->sin6_addr + 12, 4);
			memcpy(out + 4, &a->sin6_port, 2);
			return 6;
		}
		memcpy(out, &a->sin6_addr, 16);
		memcpy(out + 16, &a->sin6_port, 2);
		return 18;
	}
	return 0;
}

/* The inode of a Unix socket's peer (sock_diag), or 0. */
static uint32_t unix_peer(uint32_t ino)
{
	int s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
		       NETLINK_SOCK_DIAG);
	if (s < 0)
		return 0;
	struct {
		struct nlmsghdr nlh;
		struct unix_diag_req req;
	} msg = {
		.nlh = {.nlmsg_len = sizeof msg,
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST},
		.req = {.sdiag_family = AF_UNIX,
			.udiag_states = ~0u,
			.udiag_ino = ino,
			.udiag_show = UDIAG_SHOW_PEER,
			.udiag_cookie = {~0u, ~0u}},
	};
	uint32_t peer = 0;
	union {
		char b[1024];
		struct nlmsghdr align;
	} buf;
	if (send(s, &msg, sizeof msg, 0) == (ssize_t)sizeof msg) {
		ssize_t n = recv(s, buf.b, sizeof buf.b, 0);
		struct nlmsghdr *h = (void *)buf.b;
		if (n > 0 && NLMSG_OK(h, (size_t)n) &&
		    h->nlmsg_type == SOCK_DIAG_BY_FAMILY) {
			struct unix_diag_msg *m = NLMSG_DATA(h);
			size_t left = h->nlmsg_len - NLMSG_LENGTH(sizeof *m);
			struct nlattr *a = (void *)(m + 1);
			while (left >= sizeof *a && a->nla_len >= sizeof *a &&
			       a->nla_len <= left) {
				if (a->nla_type == UNIX_DIAG_PEER &&
				    a->nla_len >= NLA_HDRLEN + 4)
					memcpy(&peer, (char *)a + NLA_HDRLEN,
					       4);
				size_t step = NLA_ALIGN(a->nla_len);
				if (step > left)
					break;
				left -= step;
				a = (void *)((char *)a + step);
			}
		}
	}
	/* (not through our close(): this descriptor is none of the
	 * program's) */
	REAL(close);
	real_close(s);
	return peer;
}

/* Looks at fd once: what it is and the identity of each direction. */
static void look(int fd, struct chan_fd *c)
{
	struct stat sb;
	uint8_t kind = K_NONE;
	int saved = errno;
	if (fstat(fd, &sb) < 0)
		goto out;
	if (S_ISFIFO(sb.st_mode)) {
		struct h64 h = start('p');
		mix(&h, &sb.st_dev, sizeof sb.st_dev);
		mix(&h, &sb.st_ino, sizeof sb.st_ino);
		c->in = c->out = done(&h);
		kind = K_PIPE;
		goto out;
	}
	if (!S_ISSOCK(sb.st_mode))
		goto out;
	int type = 0;
	socklen_t tl = sizeof type;
	struct sockaddr_storage me, peer;
	socklen_t ml = sizeof me, pl = sizeof peer;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 ||
	    getsockname(fd, (struct sockaddr *)&me, &ml) < 0)
		goto out;
	if (me.ss_family == AF_UNIX) {
		uint32_t mine = (uint32_t)sb.st_ino, other;
		kind = type == SOCK_DGRAM ? K_UNIX_DGRAM : K_STREAM;
		/* A connection to a listening socket: named after the
		 * connecting socket alone (unnamed, its peer named), which
		 * both ends know: the accepting end's socket has no inode
		 * until accept() returns, so a client that writes first
		 * cannot learn it.  The connector's bytes are the even
		 * direction. */
		int named = ml > offsetof(struct sockaddr_un, sun_path);
		int peer_named =
			getpeername(fd, (struct sockaddr *)&peer, &pl) == 0 &&
			pl > offsetof(struct sockaddr_un, sun_path);
		if (type == SOCK_STREAM && named != peer_named) {
			uint32_t conn = named ? unix_peer(mine) : mine;
			if (!conn) {
				kind = K_NONE;
				goto out;
			}
			struct h64 h = start('U');
			mix(&h, &conn, 4);
			uint64_t base = done(&h) & ~1ull;
			c->out = (base ? base : 2) | (uint64_t)named;
			c->in = c->out ^ 1;
			goto out;
		}
		/* a socket pair (or two named ends): both inodes */
		if (!(other = unix_peer(mine))) {
			kind = K_NONE;
			goto out;
		}
		pair(c, 'u', &mine, 4, &other, 4);
		goto out;
	}
	uint8_t a[18], b[18];
	uint16_t pa, pb;
	size_t na = endpoint(&me, a, &pa);
	if (!na)
		goto out;
	if (type == SOCK_DGRAM) {
		c->lport = pa;
		kind = K_UDP;
		goto out;
	}
	if (type != SOCK_STREAM ||
	    getpeername(fd, (struct sockaddr *)&peer, &pl) < 0)
		goto out;
	size_t nb = endpoint(&peer, b, &pb);
	if (!nb)
		goto out;
	pair(c, 't', a, na, b, nb);
	kind = K_STREAM;
out:
	errno = saved;
	/* Pairs with the acquire load in entry(): the channels are set
	 * before the kind says they are. */
	__atomic_store_n(&c->kind, kind, __ATOMIC_RELEASE);
}

/* entry() the first time: the table made, fd looked at. */
static __attribute__((noinline)) struct chan_fd *entry_first(int fd)
{
	struct chan_fd *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	if (__builtin_expect(!t, 0)) {
		pthread_once(&table_once, table_make);
		t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
		if (!t)
			return NULL;
	}
	struct chan_fd *c = &t[fd];
	if (__atomic_load_n(&c->kind, __ATOMIC_ACQUIRE) == K_UNSEEN) {
		look(fd, c);
		/* forgotten when closed: our close() sees watched ones */
		weft__shim_fd_watch(fd);
	}
	return c;
}

/* The descriptor's entry, looked at once: inline when it was (every
 * message after a descriptor's first). */
static inline struct chan_fd *entry(int fd)
{
	if (fd < 0 || (unsigned)fd >= CHAN_LIMIT)
		return NULL;
	/* Pairs with the release store in table_make(). */
	struct chan_fd *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	/* Pairs with the release store in look(). */
	if (__builtin_expect(t != NULL, 1) &&
	    __builtin_expect(__atomic_load_n(&t[fd].kind, __ATOMIC_ACQUIRE) !=
				     K_UNSEEN,
			     1))
		return &t[fd];
	return entry_first(fd);
}

/* The UDP channel of a datagram from port `from` to port `to`. */
static uint64_t udp_chan(uint16_t from, uint16_t to)
{
	struct h64 h = start('d');
	mix(&h, &from, 2);
	mix(&h, &to, 2);
	return done(&h);
}

static uint16_t port_of(const struct sockaddr *sa)
{
	uint8_t b[18];
	uint16_t p = 0;
	struct sockaddr_storage ss;
	if (!sa)
		return 0;
	size_t n = sa->sa_family == AF_INET6  ? sizeof(struct sockaddr_in6)
		   : sa->sa_family == AF_INET ? sizeof(struct sockaddr_in)
					      : 0;
	if (!n)
		return 0;
	memcpy(&ss, sa, n);
	return endpoint(&ss, b, &p) ? p : 0;
}

/* The peer's port of a connected UDP socket, or 0. */
static uint16_t connected_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof ss;
	int saved = errno;
	uint16_t p = getpeername(fd, (struct sockaddr *)&ss, &l) == 0
			     ? port_of((struct sockaddr *)&ss)
			     : 0;
	errno = saved;
	return p;
}

/* A datagram of n bytes sent (out) or received on UDP socket fd: the
 * event of its channel, that of its peer's port, given or connected. */
static __attribute__((noinline)) void udp_moved(int fd, const struct chan_fd *c,
						uint64_t thread, size_t n,
						const struct sockaddr *sa,
						int out)
{
	uint16_t peer = sa ? port_of(sa) : connected_port(fd);
	if (!peer || !c->lport)
		return;
	uint64_t chan = out ? udp_chan(c->lport, peer)
			    : udp_chan(peer, c->lport);
	if (out)
		weft_sent(thread, chan, WEFT_DATAGRAM, n);
	else
		weft_received(thread, chan, WEFT_DATAGRAM, n);
}

/* n bytes written (out) or read on fd: the event of its channel, at the
 * offset its direction's count had (a datagram: none), counted. */
static inline __attribute__((always_inline)) void
moved(int fd, uint64_t thread, size_t n, const struct sockaddr *sa, int out)
{
	if (!n || !ON())
		return;
	struct chan_fd *c = entry(fd);
	if (!c)
		return;
	uint64_t chan = out ? c->out : c->in, off = WEFT_DATAGRAM;
	switch (c->kind) {
	case K_PIPE:
	case K_STREAM:
		off = __atomic_fetch_add(out ? &c->out_off : &c->in_off, n,
					 __ATOMIC_RELAXED);
		break;
	case K_UNIX_DGRAM:
		break;
	case K_UDP:
		/* (out of line: a stream's path saves no registers) */
		udp_moved(fd, c, thread, n, sa, out);
		return;
	default:
		return;
	}
	if (out)
		weft_sent(thread, chan, off, n);
	else
		weft_received(thread, chan, off, n);
}

void weft__shim_chan_sent(int fd, uint64_t thread, size_t n,
			  const struct sockaddr *to)
{
	moved(fd, thread, n, to, 1);
}

void weft__shim_chan_received(int fd, uint64_t thread, size_t n,
			      const struct sockaddr *from)
{
	moved(fd, thread, n, from, 0);
}

void weft__shim_chan_unsent(int fd, size_t n)
{
	struct chan_fd *c = entry(fd);
	if (c && (c->kind == K_PIPE || c->kind == K_STREAM))
		__atomic_fetch_sub(&c->out_off, n, __ATOMIC_RELAXED);
}

int weft__shim_bound(int fd)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof ss;
	int saved = errno;
	int r = getsockname(fd, (struct sockaddr *)&ss, &l) == 0 &&
		port_of((struct sockaddr *)&ss) != 0;
	errno = saved;
	return r;
}

void weft__shim_chan_forget(int fd)
{
	struct chan_fd *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
	/* (written only when it holds something: the descriptors a forked
	 * child closes before exec are mostly unseen, and a write to a page
	 * shared with the parent since fork is a copy-on-write fault) */
	if (t && fd >= 0 && (unsigned)fd < CHAN_LIMIT &&
	    (__atomic_load_n(&t[fd].kind, __ATOMIC_RELAXED) || t[fd].in ||
	     t[fd].out || t[fd].lport ||
	     __atomic_load_n(&t[fd].in_off, __ATOMIC_RELAXED) ||
	     __atomic_load_n(&t[fd].out_off, __ATOMIC_RELAXED)))
		memset(&t[fd], 0, sizeof t[fd]);
}
