/* SPDX-License-Identifier: MIT */
/*
 * ctf.c - writes a trace as a CTF 1.8 directory for babeltrace2 and other
 * CTF tools: `metadata` (regenerated from the event table with the refined
 * clock and the trace's names as an enumeration) and one data stream file
 * per OS thread holding its valid packets in sequence order.
 *
 * Packets are copied as they are, with only what CTF readers need fixed:
 * a packet that was still open gets its timestamp_end from its last event,
 * and content_size stops at the last event that decodes.  Gaps in a
 * stream's packet_seq_num stay gaps (babeltrace2 reports them as discarded
 * packets); events_discarded carries the writer's drop counts.  A kept
 * directory's carried threads (their packets outside the stream's
 * sequence) are numbered just before its first packet.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "run.h"

static int write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	while (n) {
		ssize_t k = write(fd, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

static int write_file(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	const uint8_t *b = p;
	while (n) {
		ssize_t k = write(fd, b, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = -errno;
			close(fd);
			return e;
		}
		b += k;
		n -= (size_t)k;
	}
	return close(fd) < 0 ? -errno : 0;
}

/* weft_ctf_write of a run: DIR/PID-COMM[.IMAGE]/ per process, each a CTF
 * trace whose clock is placed on the run's axis (absolute), so that
 * babeltrace2 DIR shows them all in one time order. */
int weft__run_ctf(struct weft_reader *R, const char *dir, struct weft_diag *d)
{
	struct rmulti *M = R->multi;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	int err = 0;
	for (uint32_t k = 0; k < M->nsub && !err; k++) {
		struct msub *s = &M->sub[k];
		const struct weft_process *P = &M->procs[s->proc];
		char path[4200], comm[40];
		/* a file name of the process's name: no slash, no dot first */
		size_t i = 0;
		for (; P->comm[i] && i < sizeof comm - 1; i++)
			comm[i] = P->comm[i] == '/' ? '_' : P->comm[i];
		comm[i] = 0;
		if (P->image)
			snprintf(path, sizeof path, "%s/%u-%s.%u", dir, P->pid,
				 comm, P->image);
		else
			snprintf(path, sizeof path, "%s/%u-%s", dir, P->pid,
				 comm);
		/* its clock on the run's axis: tick 0 of the ring is at
		 * merged ns `shift`, which is realtime origin + shift */
		int64_t saved = s->r->info.origin_real_ns;
		s->r->info.origin_real_ns = R->info.origin_real_ns + s->shift;
		s->r->ctf_absolute = 1;
		err = weft_ctf_write(s->r, path, d);
		s->r->info.origin_real_ns = saved;
		s->r->ctf_absolute = 0;
	}
	return err;
}

int weft__ring_ctf(struct weft_reader *r, const char *dir, struct weft_diag *d)
{
	const struct weft_trace_info *in = weft_reader_info(r);
	const struct rhdr *rh = &r->rh;
	char path[PATH_MAX];
	int err;

	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;

	struct weft__meta_params mp = {
		.uuid = in->uuid,
		.freq = in->freq,
		.origin_real_ns = in->origin_real_ns,
		.origin_ticks = in->origin_ticks,
		.clock_kind = in->clock_kind,
		.names = in->names,
		.nnames = in->nnames,
		.comm = in->comm,
		.pid = in->pid,
		.export_layout = 1,
		.absolute = r->ctf_absolute,
	};
	int need = weft__metadata(NULL, 0, &mp);
	char *meta = malloc((size_t)need + 1);
	if (!meta)
		return -ENOMEM;
	weft__metadata(meta, (unsigned)need + 1, &mp);
	snprintf(path, sizeof path, "%s/metadata", dir);
	err = write_file(path, meta, (size_t)need);
	free(meta);
	if (err)
		return err;

	uint32_t ps = rh->h.packet_size;
	uint8_t *pk = malloc(ps), *buf = NULL;
	size_t cap = 0;
	if (!pk)
		return -ENOMEM;
	for (uint32_t s = 0; s < in->nstreams && !err; s++) {
		uint32_t n = s < r->nst ? r->st[s].npk : 0;
		const struct rpacket *pks = n ? r->st[s].pk : NULL;
		if (!n)
			continue;
		/* a stream's packets go out as they are made, a few at a
		 * time: memory for 64 packets, not for the whole stream */
		if (!buf) {
			cap = (size_t)64 * ps;
			if (!(buf = malloc(cap))) {
				err = -ENOMEM;
				break;
			}
		}
		/* A kept directory's carried threads (docs/keep.md): packets
		 * first in their stream, outside its sequence.  CTF numbers
		 * them just before the stream's first real packet (whose
		 * past is a gap babeltrace2 never sees anyway: it is first);
		 * where that number is too small for them, the stream's
		 * numbers all move up alike, so every gap stays as it was. */
		uint32_t ncar = 0;
		while (ncar < n && (pks[ncar].gen & WEFT__GEN_CARRIED))
			ncar++;
		uint64_t first = ncar < n ? pks[ncar].seq : ncar;
		uint64_t shift = first < ncar ? ncar - first : 0;
		snprintf(path, sizeof path, "%s/stream-%u", dir, s);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			      0644);
		if (fd < 0) {
			err = -errno;
			break;
		}
		size_t used = 0;
		for (uint32_t i = 0; i < n && !err; i++) {
			if (used + ps > cap) {
				err = write_all(fd, buf, used);
				used = 0;
				if (err)
					break;
			}
			uint64_t gen, last;
			uint64_t seq = i < ncar ? first + shift - ncar + i
						: pks[i].seq + shift;
			long c = weft__packet_copy(&r->src, rh, pks[i].slot, pk,
						   &gen, r->live);
			if (c == PK_GONE) {
				weft__lost_packet(
					r, s,
					r->rh.packets_off +
						(uint64_t)pks[i].slot * ps);
				continue;
			}
			if (gen != pks[i].gen ||
			    !weft__same_packet(r, &pks[i], pk, c))
				continue; /* torn since indexed: a gap */
			/* Only the events that decode, and the end time of a
			 * packet that was still open. */
			uint32_t end = weft__packet_valid_end(
				pk, (uint32_t)c, pks[i].ts_begin, &last);
			uint64_t ts_end = weft__ld64(pk + WEFT_PK_TS_END);
			if (ts_end < last)
				ts_end = last;
			uint32_t size = end - WEFT_XP_SHIFT;
			uint64_t bits = (uint64_t)size * 8;
			uint8_t *dst = buf + used;
			memcpy(dst, pk, WEFT_PK_VERSION); /* magic, uuid */
			memcpy(dst + WEFT_XP_STREAM, pk + WEFT_PK_STREAM, 8);
			memcpy(dst + WEFT_XP_CONTEXT, pk + WEFT_PK_TS_BEGIN,
			       WEFT_PK_EVENTS - WEFT_PK_TS_BEGIN);
			memcpy(dst + WEFT_XP_CONTEXT + 8, &ts_end, 8);
			memcpy(dst + WEFT_XP_CONTEXT + 16, &bits, 8);
			memcpy(dst + WEFT_XP_CONTEXT + 24, &bits, 8);
			memcpy(dst + WEFT_XP_CONTEXT + WEFT_PK_SEQ -
				       WEFT_PK_TS_BEGIN,
			       &seq, 8);
			/* (a carried packet of a stream with no packet of
			 * its own in the chunk has no OS thread: the stream
			 * table's, as readers take it) */
			uint32_t tid = weft__ld32(pk + WEFT_PK_TID);
			if (!tid && i < ncar)
				memcpy(dst + WEFT_XP_CONTEXT + WEFT_PK_TID -
					       WEFT_PK_TS_BEGIN,
				       &in->streams[s].tid, 4);
			memcpy(dst + WEFT_XP_EVENTS, pk + WEFT_PK_EVENTS,
			       end - WEFT_PK_EVENTS);
			used += size;
		}
		if (!err)
			err = write_all(fd, buf, used);
		if (close(fd) < 0 && !err)
			err = -errno;
	}
	free(pk);
	free(buf);
	(void)d;
	return err;
}
