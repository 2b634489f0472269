/* SPDX-License-Identifier: MIT */
/* internal.h - libweft-read internals shared by reader.c, snapshot.c and
 * ctf.c. */
#ifndef WEFT_READ_INTERNAL_H
#define WEFT_READ_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "../common/format.h"
#include "weft/read.h"

/* One valid packet found in the ring. */
struct rpacket {
	uint32_t slot;
	uint32_t stream;
	uint64_t gen, seq;
	uint64_t ts_begin;
	uint64_t ts_end; /* 0: the packet was open when read */
	uint64_t discarded;
	uint64_t current;
};

/* Validated copy of the file header, with the sizes checked against the
 * bytes that are really there. */
struct rhdr {
	struct weft__fhdr h;
	uint64_t packets_off;
};

/* Checks the header of `len` bytes at `base`; fills *out.  Returns 0 or a
 * negative code with `diag` filled. */
int weft__hdr_check(const uint8_t *base, size_t len, struct rhdr *out,
		    struct weft_diag *diag);

/*
 * Copies packet `slot` of a ring that may be live into `dst` (packet_size
 * bytes) consistently: returns the committed content size in bytes (the
 * bytes past it are zeroed), 0 if the slot was never used, or -1 if the
 * packet was rewritten during the copy (torn).  *gen receives the
 * generation.
 */
long weft__packet_copy(const uint8_t *base, const struct rhdr *rh,
		       uint32_t slot, uint8_t *dst, uint64_t *gen);

/* Walks the events of one packet copy: returns the end (bytes) of the
 * last event that decodes, and its timestamp in *last_ts. */
uint32_t weft__packet_valid_end(const uint8_t *pk, uint32_t content,
				uint64_t ts_begin, uint64_t *last_ts);

/* For ctf.c: the packets of stream `s` in sequence order, and the ring. */
const struct rpacket *weft__reader_packets(struct weft_reader *r, uint32_t s,
					   uint32_t *n);
const uint8_t *weft__reader_base(struct weft_reader *r,
				 const struct rhdr **rh);

int weft__compact(const uint8_t *base, size_t len, uint8_t **out,
		  size_t *outlen);

#endif
