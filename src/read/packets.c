/* SPDX-License-Identifier: MIT */
/*
 * packets.c - where a ring's bytes come from, and its packets: reading a
 * file with pread (never a mapping: a file truncated under a mapping
 * kills its reader with SIGBUS, and a library may not catch signals
 * behind its program's back), consistent copies of packets that a live
 * writer may be rewriting, the index of every stream's valid packets, and
 * consistent copies of a whole ring (weft_snapshot, weft_reader_copy).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "kept.h"
#include "run.h"
#include "sys.h"
#include "common/grow.h"

long weft__packet_copy(const struct rsrc *src, const struct rhdr *rh,
		       uint32_t slot, uint8_t *dst, uint64_t *genp, int live)
{
	uint32_t ps = rh->h.packet_size;
	uint64_t off = rh->packets_off + (uint64_t)slot * ps;
	uint64_t gen, ts_end, content, trailer;
	*genp = 0;
	if (!live)
		/* Nothing writes it: one read, then the same checks. */
		return weft__packet_checked(
			rh, dst, weft__src_read(src, off, dst, ps), genp);
	/* The protocol of src/common/format.h: gen, then timestamp_end and
	 * content_size (one read, in that order: a packet seen closed has its
	 * final content), then the bytes, then (after an acquire fence) the
	 * trailer.  Each read is a system call; the fences order what the
	 * kernel loaded for us before what we load next.  Pairs with
	 * open_packet(), ev_commit() and close_packet() in
	 * src/record/events.c. */
	uint64_t w[2];
	if (weft__src_read(src, off + WEFT_PK_GEN, &gen, 8))
		return PK_GONE;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	*genp = gen;
	if (!gen)
		return 0;
	if (weft__src_read(src, off + WEFT_PK_TS_END, w, 16))
		return PK_GONE;
	ts_end = w[0];
	content = w[1];
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (weft__src_read(src, off, dst, ps))
		return PK_GONE;
	/* The copy says what we read first, not what the bulk copy saw
	 * later. */
	memcpy(dst + WEFT_PK_TS_END, &ts_end, 8);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (weft__src_read(src, off + ps - WEFT_PK_TRAILER, &trailer, 8))
		return PK_GONE;
	if (trailer != gen || weft__ld64(dst + WEFT_PK_GEN) != gen)
		return PK_TORN;
	content /= 8;
	if (content < WEFT_PK_EVENTS || content > ps - WEFT_PK_TRAILER)
		return (long)content; /* let validation report it */
	/* What lies past the commit may be half written: never keep it. */
	memset(dst + content, 0, ps - WEFT_PK_TRAILER - content);
	memcpy(dst + WEFT_PK_CONTENT, &(uint64_t){content * 8}, 8);
	return (long)content;
}

long weft__packet_checked(const struct rhdr *rh, const uint8_t *dst, int err,
			  uint64_t *genp)
{
	uint32_t ps = rh->h.packet_size;
	*genp = 0;
	if (err)
		return PK_GONE;
	uint64_t gen = weft__ld64(dst + WEFT_PK_GEN);
	*genp = gen;
	if (!gen)
		return 0;
	if (weft__ld64(dst + ps - WEFT_PK_TRAILER) != gen)
		return PK_TORN; /* the writer died while opening it */
	/* (a content out of range: validation reports it) */
	return (long)(weft__ld64(dst + WEFT_PK_CONTENT) / 8);
}

void weft__lost_packet(struct weft_reader *r, uint32_t stream, uint64_t off)
{
	if (stream < r->nst) {
		r->info.losses.packets_torn++;
		r->sinfo[stream].losses.packets_torn++;
	} else {
		r->info.losses.packets_torn++;
	}
	if (r->shrunk++)
		return;
	long long now = weft__file_size(r->src.fd);
	/* A live writer's ring shrinking is the writer's business (it
	 * dies of it): a loss.  A finished file that shrinks while read was
	 * truncated or replaced under the reader: a problem. */
	if (!r->live)
		weft__problem(r, off,
			      "the file shrank while being read (now %lld of "
			      "%llu bytes: truncated or replaced); the "
			      "packets past its end are lost",
			      now, (unsigned long long)r->rh.h.file_size);
}

int weft__same_packet(const struct weft_reader *r, const struct rpacket *p,
		      const uint8_t *copy, long content)
{
	return content >= WEFT_PK_EVENTS &&
	       (uint64_t)content <= r->rh.h.packet_size - WEFT_PK_TRAILER &&
	       !memcmp(copy + WEFT_PK_UUID, r->rh.h.uuid, 16) &&
	       weft__ld64(copy + WEFT_PK_STREAM) == p->stream &&
	       weft__ld64(copy + WEFT_PK_SEQ) == p->seq &&
	       weft__ld64(copy + WEFT_PK_TS_BEGIN) == p->ts_begin;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct rpacket *x = a, *y = b;
	int cx = !!(x->gen & WEFT__GEN_CARRIED),
	    cy = !!(y->gen & WEFT__GEN_CARRIED);
	if (cx != cy)
		return cx ? -1 : 1; /* (carried first) */
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->gen < y->gen ? -1 : x->gen > y->gen;
}

/* Validates the packet header at `pk` (a copy, or the ring in memory) and
 * records it.  Returns 1 if indexed, 0 if not, or -ENOMEM. */
static int index_packet(struct weft_reader *r, uint32_t slot, const uint8_t *pk,
			uint64_t gen)
{
	const struct weft__fhdr *h = &r->rh.h;
	uint64_t off = r->rh.packets_off + (uint64_t)slot * h->packet_size;
	uint32_t ps = h->packet_size;

	if (weft__ld32(pk + WEFT_PK_MAGIC) != WEFT_CTF_MAGIC)
		goto bad_magic;
	if (memcmp(pk + WEFT_PK_UUID, h->uuid, 16)) {
		weft__problem(r, off + WEFT_PK_UUID,
			      "packet %u: foreign trace UUID", slot);
		goto corrupt;
	}
	uint64_t content = weft__ld64(pk + WEFT_PK_CONTENT);
	if (weft__ld64(pk + WEFT_PK_SIZE) != (uint64_t)ps * 8 || content % 8 ||
	    content / 8 < WEFT_PK_EVENTS ||
	    content / 8 > ps - WEFT_PK_TRAILER) {
		weft__problem(r, off + WEFT_PK_CONTENT,
			      "packet %u: bad content/packet size", slot);
		goto corrupt;
	}
	uint64_t stream = weft__ld64(pk + WEFT_PK_STREAM);
	if (stream >= r->nst) {
		/* A stream registered after the header was read (live), or
		 * a corrupt id. */
		if (stream < h->streams_cap && r->live)
			return 0;
		weft__problem(r, off + WEFT_PK_STREAM,
			      "packet %u: unknown stream %llu", slot,
			      (unsigned long long)stream);
		goto corrupt;
	}
	struct rstream *s = &r->st[stream];
	if (WEFT_GROW32(s->pk, s->pkcap, (size_t)s->npk + 1))
		return -ENOMEM;
	struct rpacket *p = &s->pk[s->npk++];
	p->slot = slot;
	p->stream = (uint32_t)stream;
	p->gen = gen;
	p->seq = weft__ld64(pk + WEFT_PK_SEQ);
	p->ts_begin = weft__ld64(pk + WEFT_PK_TS_BEGIN);
	p->ts_end = weft__ld64(pk + WEFT_PK_TS_END);
	p->discarded = weft__ld64(pk + WEFT_PK_DISCARDED);
	p->current = weft__ld64(pk + WEFT_PK_CURRENT);
	r->info.packets_used++;
	return 1;

bad_magic:
	weft__problem(r, off, "packet %u: bad magic", slot);
corrupt:
	r->info.losses.packets_corrupt++;
	return 0;
}

/* A file that a writer stopping cleanly cut to the packets it used
 * (src/record/ring.c, give_back()): the slots left, from its header now,
 * or 0 if it was not cut (not stopped, or unreadable).  The stop bit is
 * set before the header changes, which is before the file is cut. */
static uint32_t slots_left(const struct rsrc *src)
{
	uint64_t n;
	uint32_t np;
	if (src->mem ||
	    weft__src_read(src, offsetof(struct weft__fhdr, next_gen), &n, 8) ||
	    !(n & WEFT_GEN_STOPPED) ||
	    weft__src_read(src, offsetof(struct weft__fhdr, npackets), &np, 4))
		return 0;
	return np;
}

/* Whether slot `slot` is gone from the file because its writer stopped
 * cleanly and gave back the slots it never used: not a loss. */
static int given_back(const struct rsrc *src, uint32_t slot)
{
	uint32_t np = slots_left(src);
	return np && slot >= np;
}

/* The header of packet `slot` (its first WEFT_PK_EVENTS bytes, in `buf`
 * for a file) and its generation, if the packet is complete.  Returns the
 * header, or NULL (unused, torn: counted, or unreadable). */
static const uint8_t *packet_header(struct weft_reader *r, uint32_t slot,
				    uint8_t *buf, uint64_t *gen, int refresh)
{
	const struct weft__fhdr *h = &r->rh.h;
	uint64_t off = r->rh.packets_off + (uint64_t)slot * h->packet_size;
	if (r->live) {
		long c = weft__packet_copy(&r->src, &r->rh, slot, buf, gen, 1);
		/* (a refresh looks at every slot again: count once) */
		if (c == PK_GONE && !refresh && !given_back(&r->src, slot))
			weft__lost_packet(r, UINT32_MAX, off);
		else if (c == PK_TORN && !refresh)
			r->info.losses.packets_torn++;
		return c > 0 ? buf : NULL;
	}
	const uint8_t *pk;
	uint64_t trailer;
	if (r->src.mem) {
		pk = r->src.mem + off;
		trailer = weft__ld64(pk + h->packet_size - WEFT_PK_TRAILER);
	} else {
		/* One read a slot: a packet's trailer and the next one's
		 * header sit side by side, so each read takes both, and
		 * the header is at hand when the next slot comes. */
		uint8_t *ahead = buf + 256;
		uint64_t toff = off + h->packet_size - WEFT_PK_TRAILER;
		size_t want = WEFT_PK_TRAILER +
			      (slot + 1 < h->npackets ? WEFT_PK_EVENTS : 0);
		int err = 0;
		if (r->ahead == slot)
			memcpy(buf, ahead + WEFT_PK_TRAILER, WEFT_PK_EVENTS);
		else
			err = weft__src_read(&r->src, off, buf, WEFT_PK_EVENTS);
		r->ahead = UINT32_MAX;
		if (err || weft__src_read(&r->src, toff, ahead, want)) {
			weft__lost_packet(r, UINT32_MAX, off);
			return NULL;
		}
		if (want > WEFT_PK_TRAILER)
			r->ahead = slot + 1;
		trailer = weft__ld64(ahead);
		pk = buf;
	}
	*gen = weft__ld64(pk + WEFT_PK_GEN);
	if (*gen && trailer != *gen) {
		/* The writer died while opening it. */
		r->info.losses.packets_torn++;
		return NULL;
	}
	return *gen ? pk : NULL;
}

/* How many slots, from the first, may hold packets.  A writer takes slot
 * (generation - 1) % npackets for each new packet, generations counted
 * in the header (next_gen): a ring that has not gone round once has used
 * only the slots below that count, and the others were never written.
 * Reading those costs a read of each (a 64 MiB ring has a thousand
 * slots, a 1 GiB one 16,384), which brings the file's pages into memory:
 * weft record spent more time summarizing a child's fresh ring of a few
 * packets than the child spent recording it.  The first slot past the
 * count must be empty (no magic, no generation); if it is not (a packet
 * opened since the count was read, or a header that lies), every slot is
 * read, as before. */
static uint32_t slots_to_read(const struct rsrc *src, const struct rhdr *rh,
			      int live)
{
	const struct weft__fhdr *h = &rh->h;
	uint64_t n = h->next_gen;
	if (live && !src->mem &&
	    weft__src_read(src, offsetof(struct weft__fhdr, next_gen), &n, 8))
		return h->npackets;
	if (n & WEFT_GEN_STOPPED) {
		/* Stopped cleanly: the slots left are those in use (a ring
		 * that never went round was cut to them, maybe since it was
		 * opened: the header says how many now). */
		uint32_t np = live ? slots_left(src) : 0;
		return np && np < h->npackets ? np : h->npackets;
	}
	if (n >= h->npackets)
		return h->npackets;
	uint8_t first[WEFT_PK_GEN + 8];
	uint64_t off = rh->packets_off + n * h->packet_size;
	if (weft__src_read(src, off, first, sizeof first) ||
	    weft__ld32(first + WEFT_PK_MAGIC) ||
	    weft__ld64(first + WEFT_PK_GEN))
		return h->npackets;
	return (uint32_t)n;
}

uint32_t weft__slots_to_read(const struct rsrc *src, const struct rhdr *rh,
			     int live)
{
	return slots_to_read(src, rh, live);
}

/* Finds the valid packets of the ring.  With `refresh` set (follow mode),
 * only packets newer than what each stream has already indexed. */
int weft__index_ring(struct weft_reader *r, int refresh)
{
	const struct weft__fhdr *h = &r->rh.h;
	uint8_t *tmp = r->src.mem && !r->live ? NULL : malloc(h->packet_size);
	if (!tmp && !(r->src.mem && !r->live))
		return -ENOMEM;
	uint32_t nslots = slots_to_read(&r->src, &r->rh, r->live);
	for (uint32_t slot = 0; slot < nslots; slot++) {
		uint64_t gen;
		const uint8_t *pk = packet_header(r, slot, tmp, &gen, refresh);
		if (!pk)
			continue;
		if (refresh) {
			uint64_t stream = weft__ld64(pk + WEFT_PK_STREAM);
			if (stream >= r->nst)
				continue;
			struct rstream *s = &r->st[stream];
			uint64_t seq = weft__ld64(pk + WEFT_PK_SEQ);
			uint64_t known = s->npk ? s->pk[s->npk - 1].seq : 0;
			if (s->npk ? seq <= known : seq < s->expect_seq)
				continue;
			if (s->in_packet && seq <= s->pk_seq)
				continue;
		}
		int rc = index_packet(r, slot, pk, gen);
		if (rc < 0) {
			free(tmp);
			return rc;
		}
	}
	free(tmp);
	for (uint32_t i = 0; i < r->nst; i++) {
		struct rstream *s = &r->st[i];
		uint32_t from = refresh ? s->next_pk : 0;
		if (s->npk - from > 1)
			qsort(s->pk + from, s->npk - from, sizeof *s->pk,
			      cmp_seq);
		/* Same sequence number twice: corrupt; keep the newest. */
		uint32_t w = from;
		for (uint32_t k = from; k < s->npk; k++) {
			if (w > from && s->pk[w - 1].seq == s->pk[k].seq &&
			    !((s->pk[w - 1].gen | s->pk[k].gen) &
			      WEFT__GEN_CARRIED)) {
				r->info.losses.packets_corrupt++;
				s->pk[w - 1] = s->pk[k];
				continue;
			}
			s->pk[w++] = s->pk[k];
		}
		s->npk = w;
	}
	return 0;
}

/* ------------------------------------------------- copies of a whole ring */

/*
 * A consistent copy of the ring at `src` (header `rh`, checked) into a new
 * buffer.  The packets first, each through the same validated copy the
 * reader uses (a packet rewritten while it was copied is zeroed, so a
 * reader of the copy sees a gap and counts it), then the header region:
 * streams and names are append-only and published before any packet
 * refers to them, so a header copied last knows every stream and name the
 * copied packets use.  `compact`: only the packets in use, with the
 * header's geometry patched (what `weft html` embeds).
 */
static int ring_copy(const struct rsrc *src, const struct rhdr *rh, int compact,
		     uint8_t **out, size_t *outlen, uint64_t *torn,
		     uint64_t *gone)
{
	uint32_t ps = rh->h.packet_size, np = rh->h.npackets;
	uint64_t ntorn = 0;
	*gone = 0;
	*out = NULL;
	if (rh->h.file_size > SIZE_MAX)
		return -ENOMEM;
	uint8_t *o = malloc((size_t)rh->h.file_size);
	uint64_t *maxseq = calloc(rh->h.streams_cap + 1, sizeof *maxseq);
	if (!o || !maxseq) {
		free(o);
		free(maxseq);
		return -ENOMEM;
	}
	/* A file may have a live writer (or get one); memory never does. */
	int live = !src->mem;
	uint8_t *pk0 = o + rh->packets_off;
	uint32_t nslots = slots_to_read(src, rh, live);
	for (uint32_t slot = 0; slot < np; slot++) {
		uint8_t *dst = pk0 + (uint64_t)slot * ps;
		uint64_t gen;
		if (slot >= nslots) { /* never written */
			memset(dst, 0, ps);
			continue;
		}
		long c = weft__packet_copy(src, rh, slot, dst, &gen, live);
		if (c <= 0) {
			if (c == PK_GONE && live && given_back(src, slot))
				c = 0; /* (never used: cut at a clean stop) */
			if (c < 0)
				ntorn++;
			if (c == PK_GONE)
				++*gone;
			memset(dst, 0, ps);
		}
	}
	/* A packet copied while open whose stream has since moved on to a
	 * packet we also copied: its tail was committed after our copy.  It
	 * is closed now, so copy it again (or, if it was reused meanwhile,
	 * leave it out: a gap readers count). */
	for (int pass = 0; live && pass < 2; pass++)
		for (uint32_t slot = 0; slot < np; slot++) {
			uint8_t *dst = pk0 + (uint64_t)slot * ps;
			uint64_t stream = weft__ld64(dst + WEFT_PK_STREAM);
			uint64_t seq = weft__ld64(dst + WEFT_PK_SEQ);
			if (!weft__ld64(dst + WEFT_PK_GEN) ||
			    stream >= rh->h.streams_cap)
				continue;
			if (pass == 0) {
				/* seq + 1, so that 0 means "no packet" */
				if (seq + 1 > maxseq[stream])
					maxseq[stream] = seq + 1;
				continue;
			}
			if (weft__ld64(dst + WEFT_PK_TS_END) ||
			    seq + 1 >= maxseq[stream])
				continue;
			uint64_t want = weft__ld64(dst + WEFT_PK_GEN), gen;
			long c = weft__packet_copy(src, rh, slot, dst, &gen, 1);
			if (c <= 0 || gen != want) {
				ntorn++;
				memset(dst, 0, ps);
			}
		}
	free(maxseq);
	/* The header region last (see above). */
	int err = weft__src_read(src, 0, o, rh->packets_off);
	if (err) {
		free(o);
		return err;
	}
	size_t len = (size_t)rh->h.file_size;
	struct weft__fhdr *oh = (struct weft__fhdr *)(void *)o;
	if ((oh->next_gen & WEFT_GEN_STOPPED) && oh->npackets &&
	    oh->npackets < np &&
	    oh->file_size == rh->packets_off + (uint64_t)oh->npackets * ps)
		/* cut at a clean stop while we copied: the copy too */
		len = (size_t)oh->file_size;
	if (compact) {
		uint32_t used = 0;
		for (uint32_t slot = 0; slot < np; slot++) {
			uint8_t *p = pk0 + (uint64_t)slot * ps;
			if (!weft__ld64(p + WEFT_PK_GEN))
				continue;
			if (used != slot)
				memcpy(pk0 + (uint64_t)used * ps, p, ps);
			used++;
		}
		if (!used) /* a ring has at least one packet slot */
			memset(pk0, 0, ps), used = 1;
		struct weft__fhdr *h = (struct weft__fhdr *)(void *)o;
		h->npackets = used;
		h->file_size = rh->packets_off + (uint64_t)used * ps;
		len = (size_t)h->file_size;
		uint8_t *small = realloc(o, len);
		if (small)
			o = small;
	}
	*out = o;
	*outlen = len;
	if (torn)
		*torn = ntorn;
	return 0;
}

/* A copy of a file that shrank while it was copied: a live writer's
 * packets are counted as torn in the copy; a finished file was truncated
 * or replaced under us, and the copy is refused. */
static int copy_of(const struct rsrc *src, const struct rhdr *rh, int compact,
		   uint8_t **out, size_t *len, uint64_t *torn)
{
	uint64_t gone;
	int err = ring_copy(src, rh, compact, out, len, torn, &gone);
	if (!err && gone && !weft__writer_holds(src->fd)) {
		free(*out);
		*out = NULL;
		return WEFT_ETRUNC;
	}
	return err;
}

int weft__ring_copy(struct weft_reader *r, unsigned flags, void **out,
		    size_t *len, uint64_t *torn)
{
	uint8_t *o;
	int err = copy_of(&r->src, &r->rh, !!(flags & WEFT_COPY_COMPACT), &o,
			  len, torn);
	*out = err ? NULL : o;
	return err;
}

int weft__write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int weft_snapshot(const char *path, int out_fd, uint64_t *torn,
		  struct weft_diag *d)
{
	struct rsrc src = {.fd = -1};
	struct rhdr rh;
	int err = weft__open_file_header(&src, path, &rh, d);
	if (err)
		return err;
	uint8_t *out;
	size_t len;
	err = copy_of(&src, &rh, 0, &out, &len, torn);
	close(src.fd);
	if (err == WEFT_ETRUNC)
		return weft__diag(d, err, 0,
				  "the file shrank while it was copied");
	if (err)
		return err;
	err = weft__write_all(out_fd, out, len);
	free(out);
	return err;
}
