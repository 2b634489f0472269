/* SPDX-License-Identifier: MIT */
/*
 * ring.c - the ring: its layout, making its file, its header, its clock
 * anchor; weft_start() and weft_stop().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define WEFT_ENABLE 1
#include "weft/weft.h"

#include "record.h"

struct weft__rec weft__g = {.fd = -1};
#define g weft__g

#ifdef WEFT_TEST_HOOKS
int weft__fault_tmpfile, weft__fault_open, weft__fault_ftruncate,
	weft__fault_fallocate, weft__fault_mmap, weft__fault_link,
	weft__fault_rename, weft__fault_errno = ENOSPC;
int weft__fault(int *n)
{
	if (*n > 0 && --*n == 0) {
		errno = weft__fault_errno;
		return 1;
	}
	return 0;
}
#endif

static uint32_t pow2_floor(uint64_t v)
{
	uint32_t p = 1;
	while ((uint64_t)p * 2 <= v && p < (1u << 30))
		p *= 2;
	return p;
}

/* ------------------------------------------------------------- layout */

/* Packets of about 1/256 of the ring (a wrap loses well under 1 %),
 * 1 KiB to 32 KiB; tables sized for a big ring from 1 MiB on; the header
 * region aligned to a page and to a packet. */
int weft__ring_layout(uint64_t bytes, struct weft__layout *l)
{
	if (!bytes)
		bytes = WEFT_DEFAULT_SIZE;
	if (bytes < WEFT_MIN_SIZE)
		return WEFT_ETOOSMALL;
	if (bytes > WEFT_MAX_SIZE || bytes > SIZE_MAX / 2)
		return WEFT_ETOOBIG;
	uint32_t psize = pow2_floor(bytes / 256);
	if (psize < WEFT_MIN_PACKET)
		psize = WEFT_MIN_PACKET;
	if (psize > 32768)
		psize = 32768;
	int big = bytes >= (1u << 20);
	l->psize = psize;
	l->streams_cap = big ? 1024 : 64;
	l->names_cap = big ? 4096 : 256;
	l->strings_cap = big ? 65536 : 8192;
	l->meta_cap = 16384;
	uint32_t off = 4096; /* header page */
	l->meta_off = off;
	off += l->meta_cap;
	l->streams_off = off;
	off += l->streams_cap * (uint32_t)sizeof(struct weft__fstream);
	l->names_off = off;
	off += l->names_cap * (uint32_t)sizeof(struct weft__fname);
	l->strings_off = off;
	off += l->strings_cap;
	uint32_t align = psize > 4096 ? psize : 4096;
	l->hsize = (off + align - 1) / align * align;
	if (bytes < (uint64_t)l->hsize + 4 * (uint64_t)psize)
		return WEFT_ETOOSMALL;
	uint64_t npk = (bytes - l->hsize) / psize;
	l->npk = npk > (1u << 30) ? (1u << 30) : (uint32_t)npk;
	l->size = (size_t)l->hsize + (size_t)l->npk * psize;
	return 0;
}

/* ------------------------------------------------------------- the file */

void weft__random_bytes(void *buf, size_t n)
{
	if (getrandom(buf, n, GRND_NONBLOCK) == (ssize_t)n)
		return;
	/* No entropy yet (early boot): the clock, the pid, a counter. */
	static uint64_t count;
	uint8_t *b = buf;
	for (size_t i = 0; i < n; i += 8) {
		uint64_t x = (weft__mono_ticks() ^ ((uint64_t)getpid() << 32) ^
			      __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED)) *
			     0x9E3779B97F4A7C15ull;
		memcpy(b + i, &x, n - i < 8 ? n - i : 8);
	}
}

static void random_uuid(uint8_t u[16])
{
	weft__random_bytes(u, 16);
	u[6] = (u[6] & 0x0f) | 0x40; /* version 4 */
	u[8] = (u[8] & 0x3f) | 0x80; /* variant */
}

/* Whether the regular file `path` is a weft ring: it begins with the
 * magic (the test `weft record -o` makes too).  1, 0 (not a ring: an empty
 * file neither), or -errno (it cannot be read: it is left alone). */
static int is_ring(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
				    O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	char magic[8];
	ssize_t n = pread(fd, magic, sizeof magic, 0);
	int err = n < 0 ? -errno : 0;
	close(fd);
	return err ? err : n == 8 && !memcmp(magic, WEFT_FILE_MAGIC, 8);
}

/* Where a ring named `path` goes: `path` itself, or, when it is a
 * symbolic link the caller owns, the file it names (followed to the end of
 * the chain, so the temporary file is made in the directory of the file it
 * replaces).  Refuses what must never be replaced or followed:
 *  - a symbolic link the caller (its effective user) does not own, at any
 *    step of the chain: WEFT_ELINK.  Another user may plant one in a
 *    sticky world-writable directory (/tmp) for root's recorder to follow
 *    to a file of their choosing;
 *  - a regular file that is not a weft ring (an empty one too): another
 *    program's data, WEFT_ENOTRING;
 *  - anything else that exists and is not a regular file (a device, a
 *    FIFO, a socket, a directory): WEFT_ENOTREG.
 * A ring (of an earlier run) is replaced; whether a live writer holds it
 * is the caller's question.  Stack buffers only: this may run in a child
 * after fork. */
int weft__resolve_target(const char *path, char *out, size_t cap)
{
	if (strlen(path) >= cap)
		return -ENAMETOOLONG;
	strcpy(out, path);
	uid_t me = geteuid();
	for (int hops = 0; hops < 40; hops++) {
		struct stat sb;
		if (lstat(out, &sb) < 0)
			return errno == ENOENT ? 0 : -errno;
		if (S_ISREG(sb.st_mode)) {
			int ring = is_ring(out);
			return ring < 0 ? ring : ring ? 0 : WEFT_ENOTRING;
		}
		if (!S_ISLNK(sb.st_mode))
			return WEFT_ENOTREG;
		if (sb.st_uid != me)
			return WEFT_ELINK;
		char link[4096];
		ssize_t n = readlink(out, link, sizeof link - 1);
		if (n < 0)
			return -errno;
		link[n] = 0;
		char *slash = strrchr(out, '/');
		size_t dir = link[0] == '/' || !slash
				     ? 0
				     : (size_t)(slash - out) + 1;
		if (dir + (size_t)n >= cap)
			return -ENAMETOOLONG;
		memcpy(out + dir, link, (size_t)n + 1);
	}
	return -ELOOP;
}

/* What is at `path` (already resolved): a ring, whose, and whether a live
 * writer holds it (writers keep an exclusive flock(2) on their file while
 * tracing). */
void weft__ring_id(const char *path, struct weft__ring_id *r)
{
	memset(r, 0, sizeof *r);
	/* O_NONBLOCK: resolve_target() refused FIFOs already, but the
	 * environment's FILE is looked at before it runs. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return;
	struct weft__fhdr h;
	r->exists = pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h &&
		    !memcmp(h.magic, WEFT_FILE_MAGIC, 8);
	if (r->exists) {
		r->pid = h.pid;
		r->session = h.session;
	}
	r->held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
}

static int held_by_writer(const char *path)
{
	struct weft__ring_id r;
	weft__ring_id(path, &r);
	return r.held;
}

/* `target`.RANDOM.tmp into tmp. */
static int tmp_name(const char *target, char *tmp, size_t cap)
{
	uint64_t r;
	weft__random_bytes(&r, sizeof r);
	int n = snprintf(tmp, cap, "%s.%016llx.tmp", target,
			 (unsigned long long)r);
	return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* Opens the ring's new file in the directory of `target`: an unnamed
 * file (O_TMPFILE), which nobody else can have made or opened and which a
 * kill during start-up leaves nowhere.  Where the file system has no
 * O_TMPFILE (or there is no /proc to name it from), a new file of a
 * random name made with O_EXCL, named in tmp (tmp is "" otherwise).
 * Returns the descriptor or a negative code. */
static int open_file(const char *target, char *tmp, size_t cap)
{
	tmp[0] = 0;
	char dir[4096];
	const char *slash = strrchr(target, '/');
	size_t dl = slash ? (size_t)(slash - target) : 0;
	if (dl >= sizeof dir)
		return -ENAMETOOLONG;
	memcpy(dir, target, dl);
	strcpy(dir + dl, slash ? (dl ? "" : "/") : ".");
	int fd = -1;
	errno = EOPNOTSUPP;
	if (access("/proc/self/fd", X_OK) == 0 && !FAULT(tmpfile))
		fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
		return -errno;
	for (int tries = 0; tries < 100; tries++) {
		int err = tmp_name(target, tmp, cap);
		if (err)
			return err;
		fd = FAULT(open) ? -1
				 : open(tmp,
					O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC |
						O_NOFOLLOW | O_NOCTTY,
					0600);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			break;
	}
	int err = -errno;
	tmp[0] = 0;
	return err;
}

/* Puts the finished ring at `target`: a reader never sees a half-made
 * ring.  An unnamed file is linked there directly (linkat never replaces:
 * what is there, a trace of an earlier run, is removed first; a ring that
 * another process started meanwhile is never replaced), so no moment of
 * start-up leaves a file under another name.  A named temporary file is
 * renamed over the target. */
static int publish(int fd, const char *target, char *tmp)
{
	if (tmp[0]) {
		int err = 0;
		if (FAULT(rename) || rename(tmp, target) < 0) {
			err = -errno;
			unlink(tmp);
		}
		tmp[0] = 0;
		return err;
	}
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	for (int tries = 0; tries < 100; tries++) {
		if (FAULT(link))
			return -errno;
		if (linkat(AT_FDCWD, proc, AT_FDCWD, target,
			   AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			return -errno;
		/* What is there (a ring of an earlier run, or whatever
		 * came since weft__resolve_target looked): its rules. */
		struct stat sb;
		if (lstat(target, &sb) == 0 && !S_ISREG(sb.st_mode))
			return WEFT_ENOTREG;
		int ring = is_ring(target);
		if (ring == -ENOENT)
			continue; /* gone meanwhile: link again */
		if (ring <= 0)
			return ring ? ring : WEFT_ENOTRING;
		if (held_by_writer(target))
			return -EBUSY;
		if (unlink(target) < 0 && errno != ENOENT)
			return -errno;
	}
	return -EEXIST;
}

/* ------------------------------------------------------------- the ring */

/* Writes nothing but the header: the file's blocks are reserved
 * (fallocate), its pages untouched until a packet uses them. */
int weft__ring_create(const char *name, size_t bytes, unsigned flags,
		      uint64_t session)
{
	if (g.stale_base) { /* the parent's, kept since fork (env.c) */
		munmap(g.stale_base, g.stale_size);
		munmap(g.stale_priv, g.stale_priv_size);
		g.stale_base = g.stale_priv = NULL;
	}
	struct weft__layout L;
	int err = weft__ring_layout(bytes, &L);
	if (err)
		return err;
	char path[4096];
	err = weft__resolve_target(name, path, sizeof path);
	if (err)
		return err;
	/* Never replace a ring another process is writing. */
	if (held_by_writer(path))
		return -EBUSY;
	weft__streams_init();

	char tmp[4200];
	int fd = open_file(path, tmp, sizeof tmp);
	if (fd < 0)
		return fd;
	/* Reserve the disk blocks now, so that a full disk is this error
	 * and never a SIGBUS at the first write of a page.  fallocate(2)
	 * is fast where the file system keeps unwritten extents (ext4, xfs,
	 * btrfs, tmpfs): nothing is written.  Not glibc's posix_fallocate,
	 * which writes every block where fallocate is missing.  Where it is
	 * (EOPNOTSUPP), the file is sparse: see docs/format.md. */
	if (FAULT(fallocate) || fallocate(fd, 0, 0, (off_t)L.size) < 0) {
		if (errno != EOPNOTSUPP && errno != ENOSYS) {
			err = errno == ENOSPC ? WEFT_ENOSPC : -errno;
			goto fail_fd;
		}
		if (FAULT(ftruncate) || ftruncate(fd, (off_t)L.size) < 0) {
			err = -errno;
			goto fail_fd;
		}
	}
	uint8_t *base = FAULT(mmap) ? MAP_FAILED
				    : mmap(NULL, L.size, PROT_READ | PROT_WRITE,
					   MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		err = -errno;
		goto fail_fd;
	}
	/* The header's pages and the first packets' (256 KiB) are brought
	 * into memory now, so that the first touch of a page is no page
	 * cache miss: at a miss, the kernel reads around the page as much
	 * as the disk's read_ahead_kb says (8 MiB on some virtual machines:
	 * 2 ms of zeroed pages for the first event of every process, for a
	 * few packets).  A ring that grows past them gets the kernel's
	 * read-around from there on, which brings pages in large batches
	 * (cheaper per page than one at a time: MADV_RANDOM makes the
	 * ring's first pass slower). */
	madvise(base,
		L.hsize + (L.size - L.hsize < (256u << 10) ? L.size - L.hsize
							   : (256u << 10)),
		MADV_WILLNEED);
	/* Process-private state: packet owners, per-stream state, the name
	 * hash.  One anonymous mapping, no malloc (start may run in a child
	 * after fork, or in a signal handler's first event). */
	uint32_t nhash_cap = 1;
	while (nhash_cap < L.names_cap * 2)
		nhash_cap *= 2;
	size_t priv_size = (size_t)L.npk +
			   L.streams_cap * sizeof(struct weft__thr) +
			   nhash_cap * sizeof(struct weft__nslot) + 64;
	uint8_t *priv = FAULT(mmap)
				? MAP_FAILED
				: mmap(NULL, priv_size, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (priv == MAP_FAILED) {
		err = -errno;
		munmap(base, L.size);
		goto fail_fd;
	}

	/* A new file reads as zeros: only the header is written. */
	struct weft__fhdr *h = (struct weft__fhdr *)(void *)base;
	memcpy(h->magic, WEFT_FILE_MAGIC, 8);
	h->major = WEFT_FORMAT_MAJOR;
	h->minor = WEFT_FORMAT_MINOR;
	h->header_size = L.hsize;
	h->file_size = L.size;
	h->packet_size = L.psize;
	h->npackets = L.npk;
	h->mode = (flags & WEFT_DISCARD) ? 1 : 0;
	random_uuid(h->uuid);
	h->freq = weft__clock_init(
		(flags & WEFT_CLOCK_MANUAL)	 ? WEFT_CLOCK_PROGRAM
		: (flags & WEFT_CLOCK_MONOTONIC) ? WEFT_CLOCK_MONO
						 : WEFT_CLOCK_TSC,
		&h->a0);
	h->clock_kind = (uint32_t)weft__clock_kind;
	h->a1 = h->a0;
	h->pid = (uint32_t)getpid();
	h->ppid = (uint32_t)getppid();
	prctl(PR_GET_NAME, h->comm, 0, 0, 0);
	h->session = session;
	h->metadata_off = L.meta_off;
	h->streams_off = L.streams_off;
	h->streams_cap = L.streams_cap;
	h->names_off = L.names_off;
	h->names_cap = L.names_cap;
	h->strings_off = L.strings_off;
	h->strings_cap = L.strings_cap;
	h->nnames = 1; /* id 0 is "no name" */
	h->state = WEFT_STATE_RUNNING;
	weft__machine_init(h);

	char host[256] = "";
	gethostname(host, sizeof host - 1);
	struct weft__meta_params mp = {
		.uuid = h->uuid,
		.freq = h->freq,
		.origin_real_ns = h->a0.real_ns,
		.origin_ticks = h->a0.ticks,
		.clock_kind = (int)h->clock_kind,
		.hostname = host,
		.comm = h->comm,
		.pid = h->pid,
	};
	int mlen = weft__metadata((char *)base + L.meta_off, L.meta_cap, &mp);
	h->metadata_len =
		mlen > 0 && (uint32_t)mlen < L.meta_cap ? (uint32_t)mlen : 0;

	/* Locked before it has a name: no one ever sees it unheld. */
	flock(fd, LOCK_EX | LOCK_NB);
	err = publish(fd, path, tmp);
	if (err) {
		munmap(priv, priv_size);
		munmap(base, L.size);
		goto fail_fd;
	}

	/* A forked child gets zeros here, not a copy (it never uses its
	 * parent's state: env.c): a fork of a traced program write-protects
	 * none of these pages, and the parent's next writes to them are no
	 * copy-on-write faults. */
	madvise(priv, priv_size, MADV_WIPEONFORK);
	g.hdr = h;
	g.base = base;
	g.size = L.size;
	g.packets = base + L.hsize;
	g.psize = L.psize;
	g.npk = L.npk;
	g.priv = priv;
	g.priv_size = priv_size;
	g.owner = priv;
	g.thrs = (struct weft__thr *)(void *)(priv + (((size_t)L.npk + 63) &
						      ~(size_t)63));
	g.nhash = (struct weft__nslot *)(void *)(g.thrs + L.streams_cap);
	g.nhash_cap = nhash_cap;
	g.fd = fd;
	g.flags = flags;
	g.text_cap = L.psize - WEFT_PK_EVENTS - WEFT_PK_TRAILER -
		     WEFT_EH_EXT_SIZE - 8 - 1 - 1;
	return 0;

fail_fd:
	close(fd);
	if (tmp[0])
		unlink(tmp);
	return err;
}

unsigned weft__next_gen(void)
{
	static unsigned counter;
	unsigned gen = ++counter;
	return gen ? gen : ++counter;
}

/* ------------------------------------------------------------- anchor */

void weft__refresh_anchor(void)
{
	struct weft__fhdr *h = g.hdr;
	uint64_t s = __atomic_load_n(&h->a1_seq, __ATOMIC_RELAXED);
	/* A try-lock: whoever makes the sequence odd writes; others skip
	 * (another writer is refreshing it right now anyway). */
	if ((s & 1) ||
	    !__atomic_compare_exchange_n(&h->a1_seq, &s, s + 1, 0,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	/* Pairs with the reader's acquire fence before its second load of
	 * a1_seq: the odd value is visible before the data changes. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	struct weft__anchor a;
	weft__anchor_take(&a);
	h->a1 = a;
	/* Pairs with the reader's acquire load of a1_seq. */
	__atomic_store_n(&h->a1_seq, s + 2, __ATOMIC_RELEASE);
	weft__clock_tuple(0);
}

/* ------------------------------------------------------------- start/stop */

/* The session of the environment (weft record's, or the one the first
 * traced process of a tree chose), or 0. */
static uint64_t session_of_env(void)
{
	const char *s = getenv("WEFT_SESSION");
	char *end;
	uint64_t v = s && *s ? strtoull(s, &end, 16) : 0;
	return v && !*end ? v : 0;
}

WEFT_API int weft_start(const char *path, size_t bytes, unsigned flags)
{
	if (!path || !*path || (flags & ~7u) ||
	    ((flags & WEFT_CLOCK_MONOTONIC) && (flags & WEFT_CLOCK_MANUAL)))
		return WEFT_EINVAL;
	if (__atomic_load_n(&weft__on, __ATOMIC_RELAXED))
		return WEFT_EBUSY;
	int err = weft__ring_create(path, bytes, flags, session_of_env());
	if (err)
		return err;
	g.from_env = 0;
	g.gen = weft__next_gen();
	/* Pairs with the acquire load of g.state in attach(). */
	__atomic_store_n(&g.state, RING_READY, __ATOMIC_RELEASE);
	__atomic_store_n(&weft__on, g.gen, __ATOMIC_RELEASE);
	return 0;
}

/* At a clean stop: no packet is opened from now on (the stop bit, set
 * with the compare-and-swap that reads how many ever were), and a ring
 * that never went round gives back the blocks of the packets it never
 * used: its header says how many are left, then the file is cut there.
 * Threads still writing their last event (see weft_stop) write in packets
 * they hold, which are kept.  A reader that opened the ring before sees
 * the slots past the cut vanish with the stop bit set: no loss
 * (src/read/packets.c).  docs/format.md, "Giving back what was not
 * used". */
static void give_back(struct weft__fhdr *h)
{
	uint64_t n = __atomic_load_n(&h->next_gen, __ATOMIC_RELAXED);
	while (!(n & WEFT_GEN_STOPPED) &&
	       !__atomic_compare_exchange_n(&h->next_gen, &n,
					    n | WEFT_GEN_STOPPED, 0,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	if (n & WEFT_GEN_STOPPED)
		return;
	uint64_t used = n < g.npk ? n : g.npk;
	if (!used)
		used = 1; /* (a ring has a packet slot: readers insist) */
	if (used >= g.npk)
		return; /* went round, or full: every slot holds a packet */
	uint64_t size = (uint64_t)(g.packets - g.base) + used * g.psize;
	/* The header first: a file longer than its header says is read
	 * as what the header says; one shorter would be truncated.  (No
	 * order is needed between the two, nor with the cut: a live reader
	 * that finds a slot gone reads the stop bit and npackets again.) */
	__atomic_store_n(&h->npackets, (uint32_t)used, __ATOMIC_RELAXED);
	__atomic_store_n(&h->file_size, size, __ATOMIC_RELAXED);
	if (g.fd >= 0)
		(void)!ftruncate(g.fd, (off_t)size);
}

WEFT_API int weft_stop(void)
{
	unsigned gen = __atomic_load_n(&weft__on, __ATOMIC_RELAXED);
	if (!gen)
		return WEFT_ENOTSTARTED;
	__atomic_store_n(&weft__on, 0, __ATOMIC_RELEASE);
	if (__atomic_load_n(&g.state, __ATOMIC_ACQUIRE) != RING_READY) {
		/* From the environment, and nothing recorded: no ring. */
		int pending = RING_PENDING;
		__atomic_compare_exchange_n(&g.state, &pending, RING_NONE, 0,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		return 0;
	}
	__atomic_store_n(&g.state, RING_NONE, __ATOMIC_RELAXED);
	weft__stream_close_own(gen);
	struct weft__fhdr *h = g.hdr;
	weft__refresh_anchor();
	weft__clock_tuple(1);
	h->stop_ticks = weft__clock_now();
	give_back(h);
	__atomic_store_n(&h->state, WEFT_STATE_STOPPED, __ATOMIC_RELEASE);
	/* The mapping stays: a thread that read weft__on just before may
	 * still be writing its last event.  Dropping the lock tells readers
	 * that the writer is done (explicitly: the mapping keeps the open
	 * file description, and so the lock, alive after close). */
	if (g.fd >= 0) {
		flock(g.fd, LOCK_UN);
		close(g.fd);
		g.fd = -1;
	}
	return 0;
}
