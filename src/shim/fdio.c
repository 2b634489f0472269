/* SPDX-License-Identifier: MIT */
/*
 * fdio.c - I/O the loops do not see: plain system calls on the
 * descriptors of traced handles (knot-resolver answers the queries of a
 * uv_udp_t with its own sendmmsg; memcached reads and writes the sockets
 * of its libevent events itself).  Each becomes a request of the thread
 * that made it, "read 20 bytes from fd 7", resolved at once, or failed
 * with the errno name.
 *
 * Every process that preloads the shims calls these wrappers for every
 * read and write: for a descriptor no traced handle owns, a wrapper is a
 * bit test and the real call.
 */
#define _GNU_SOURCE
#undef _FORTIFY_SOURCE /* read() is defined here, not wrapped */
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "shim.h"

/* One bit per descriptor, below FD_LIMIT (made on first use). */
#define FD_LIMIT (1u << 20)
#define WORD (8 * sizeof(unsigned long))
static unsigned long *fdmap;
static pthread_once_t fdmap_once = PTHREAD_ONCE_INIT;

static void fdmap_make(void)
{
	void *p = mmap(NULL, FD_LIMIT / 8, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* Pairs with the acquire load in watched(). */
	if (p != MAP_FAILED)
		__atomic_store_n(&fdmap, p, __ATOMIC_RELEASE);
}

void weft__shim_fd_watch(int fd)
{
	if (fd < 0 || (unsigned)fd >= FD_LIMIT)
		return;
	pthread_once(&fdmap_once, fdmap_make);
	if (fdmap)
		__atomic_or_fetch(&fdmap[fd / WORD], 1ul << (fd % WORD),
				  __ATOMIC_RELAXED);
}

void weft__shim_fd_forget(int fd)
{
	unsigned long *m = __atomic_load_n(&fdmap, __ATOMIC_ACQUIRE);
	/* (written only when set: see weft__shim_chan_forget) */
	if (m && fd >= 0 && (unsigned)fd < FD_LIMIT &&
	    (__atomic_load_n(&m[fd / WORD], __ATOMIC_RELAXED) >> (fd % WORD) &
	     1))
		__atomic_and_fetch(&m[fd / WORD], ~(1ul << (fd % WORD)),
				   __ATOMIC_RELAXED);
}

static inline int watched(int fd)
{
	/* Pairs with the release store in fdmap_make(). */
	unsigned long *m = __atomic_load_n(&fdmap, __ATOMIC_ACQUIRE);
	return __builtin_expect(m != NULL, 0) && fd >= 0 &&
	       (unsigned)fd < FD_LIMIT &&
	       (__atomic_load_n(&m[fd / WORD], __ATOMIC_RELAXED) >>
			(fd % WORD) &
		1);
}

/* The loop libraries' own I/O is theirs: their shims record it. */
#define X(ID, name, word, kind) WEFT_LOOP_LIBS_##ID,
static const char *const loop_libs[] = {WEFT_LOOP_MAP(X) NULL};
#undef X
static struct shim_lib loops = SHIM_LIB(loop_libs, SHIM_LIB_LOOPS);

/* Whether a call on a watched descriptor is the program's. */
static int programs(const void *ret)
{
	return !weft__shim_inside && ON() && !weft__shim_from_lib(&loops, ret);
}

/* Records what the call did: `kind` is the system call ("read"), `what`
 * the same with a space, `dir` " bytes from fd " or " bytes to fd ", n the
 * bytes (or messages, with " messages ..."), r its result.  Returns the
 * request's id. */
static uint64_t record(const char *kind, const char *what, const char *dir,
		       int fd, long long n, long r, int err)
{
	struct shim_lb b;
	uint64_t id = weft__shim_new_id();
	const char *kept;
	weft_burst_begin(); /* one instant: one clock read */
	if (r < 0) {
		kept = weft__shim_cached_label(&b, kind, NO_NUM, " on fd ", fd,
					       SHIM_NO_CB);
		weft__shim_create_labelled(id, kind, kept, &b);
		const char *name = strerrorname_np(err);
		weft_fail(id, name ? name : "error");
	} else {
		/* "read " 20 " bytes from fd " 7: the kind names the call */
		kept = weft__shim_cached_label(&b, what, n, dir, fd,
					       SHIM_NO_CB);
		weft__shim_create_labelled(id, kind, kept, &b);
		weft_resolve(id);
	}
	weft_burst_end();
	return id;
}

/* The bytes (or datagrams) of a call, for the arrows between processes
 * (chan.c): written by its request, read by the current thread. */
static void chan_msgs(int fd, uint64_t id, const struct mmsghdr *m, int n,
		      int out)
{
	for (int i = 0; i < n; i++) {
		const struct sockaddr *a =
			m[i].msg_hdr.msg_namelen ? m[i].msg_hdr.msg_name : NULL;
		if (out)
			weft__shim_chan_sent(fd, id, m[i].msg_len, a);
		else
			weft__shim_chan_received(fd, 0, m[i].msg_len, a);
	}
}
#define TX(addr) weft__shim_chan_sent(fd, id_, (size_t)r, (addr))
#define RX(addr) weft__shim_chan_received(fd, 0, (size_t)r, (addr))
#define NAME_OF(msg) ((msg)->msg_namelen ? (msg)->msg_name : NULL)

/* Each wrapper: a bit test, then the call; on a watched descriptor, the
 * call recorded (errno kept), and what it moved (`chan`). */
#define IO(ret_t, name, params, args, fd, dir, count, chan)                    \
	WEFT_SHIM_EXPORT ret_t name params                                     \
	{                                                                      \
		REAL(name);                                                    \
		if (__builtin_expect(!watched(fd), 1))                         \
			return real_##name args;                               \
		ret_t r = real_##name args;                                    \
		if (programs(__builtin_return_address(0))) {                   \
			int e = errno;                                         \
			uint64_t id_ = record(#name, #name " ", dir, fd,       \
					      (long long)(count), (long)r, e); \
			if (r > 0 && id_)                                      \
				chan;                                          \
			errno = e;                                             \
		}                                                              \
		return r;                                                      \
	}

#define FROM " bytes from fd "
#define TO " bytes to fd "
IO(ssize_t, read, (int fd, void *buf, size_t n), (fd, buf, n), fd, FROM, r,
   RX(NULL))
IO(ssize_t, write, (int fd, const void *buf, size_t n), (fd, buf, n), fd, TO, r,
   TX(NULL))
IO(ssize_t, readv, (int fd, const struct iovec *iov, int n), (fd, iov, n), fd,
   FROM, r, RX(NULL))
IO(ssize_t, writev, (int fd, const struct iovec *iov, int n), (fd, iov, n), fd,
   TO, r, TX(NULL))
IO(ssize_t, recv, (int fd, void *buf, size_t n, int flags), (fd, buf, n, flags),
   fd, FROM, r, RX(NULL))
IO(ssize_t, send, (int fd, const void *buf, size_t n, int flags),
   (fd, buf, n, flags), fd, TO, r, TX(NULL))
IO(ssize_t, recvfrom,
   (int fd, void *buf, size_t n, int flags, struct sockaddr *addr,
    socklen_t *len),
   (fd, buf, n, flags, addr, len), fd, FROM, r,
   RX(addr &&len &&*len ? addr : NULL))
IO(ssize_t, sendto,
   (int fd, const void *buf, size_t n, int flags, const struct sockaddr *addr,
    socklen_t len),
   (fd, buf, n, flags, addr, len), fd, TO, r, TX(len ? addr : NULL))
IO(ssize_t, recvmsg, (int fd, struct msghdr *msg, int flags), (fd, msg, flags),
   fd, FROM, r, RX(NAME_OF(msg)))
IO(ssize_t, sendmsg, (int fd, const struct msghdr *msg, int flags),
   (fd, msg, flags), fd, TO, r, TX(NAME_OF(msg)))
IO(int, recvmmsg,
   (int fd, struct mmsghdr *msgs, unsigned int n, int flags,
    struct timespec *tmo),
   (fd, msgs, n, flags, tmo), fd, " messages from fd ", r,
   chan_msgs(fd, id_, msgs, r, 0))
IO(int, sendmmsg, (int fd, struct mmsghdr *msgs, unsigned int n, int flags),
   (fd, msgs, n, flags), fd, " messages to fd ", r,
   chan_msgs(fd, id_, msgs, r, 1))

/* A closed descriptor belongs to no handle any more: its number may come
 * back for anything. */
WEFT_SHIM_EXPORT int close(int fd)
{
	REAL(close);
	if (__builtin_expect(watched(fd), 0)) {
		weft__shim_fd_forget(fd);
		weft__shim_chan_forget(fd);
	}
	return real_close(fd);
}
