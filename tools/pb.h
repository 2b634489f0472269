/* SPDX-License-Identifier: MIT */
/*
 * pb.h - a small protocol-buffers encoder and decoder (the wire format of
 * https://protobuf.dev/programming-guides/encoding/), for weft's OTLP
 * export, import and shipping (otlp.c, ship-otlp.c) and its Perfetto
 * export (perfetto.c).
 *
 * Encoding: a growable buffer of bytes.  A nested message is opened with
 * pb_begin() and closed with pb_end(), which writes its length in front of
 * it (the body is moved by the few bytes the length's varint takes: its
 * minimal encoding, as protoc writes it).  An allocation failure is
 * sticky: pb.oom, checked once at the end.
 *
 * Decoding: pb_next() walks the fields of one message, checking every
 * length against the bytes there are; a bad message is an error, never a
 * read past its end.
 */
#ifndef WEFT_PB_H
#define WEFT_PB_H

#include <stddef.h>
#include <stdint.h>

enum pb_wire {
	PB_VARINT = 0,
	PB_FIXED64 = 1,
	PB_LEN = 2,
	PB_FIXED32 = 5,
};

#define PB_MAX_DEPTH 16

struct pb {
	uint8_t *b;
	size_t n, cap;
	size_t open[PB_MAX_DEPTH]; /* where each open message's body starts */
	int depth;
	int oom; /* an allocation failed (or nesting too deep) */
};

void pb_init(struct pb *p);
void pb_release(struct pb *p);
/* Empties it, keeping its memory. */
void pb_reset(struct pb *p);

void pb_raw(struct pb *p, const void *data, size_t len);
void pb_put_varint(struct pb *p, uint64_t v);
void pb_tag(struct pb *p, uint32_t field, enum pb_wire wire);
void pb_uint(struct pb *p, uint32_t field, uint64_t v); /* uint32/64, enum */
void pb_int(struct pb *p, uint32_t field, int64_t v);	/* int32/64 */
void pb_sint(struct pb *p, uint32_t field, int64_t v);	/* sint32/64 */
void pb_bool(struct pb *p, uint32_t field, int v);
void pb_fixed64(struct pb *p, uint32_t field, uint64_t v);
void pb_fixed32(struct pb *p, uint32_t field, uint32_t v);
void pb_double(struct pb *p, uint32_t field, double v);
void pb_bytes(struct pb *p, uint32_t field, const void *data, size_t len);
void pb_string(struct pb *p, uint32_t field, const char *s);
/* A nested message: its fields go between pb_begin and pb_end. */
void pb_begin(struct pb *p, uint32_t field);
void pb_end(struct pb *p);
/* Bytes a varint of v takes. */
size_t pb_varint_size(uint64_t v);

/* Decoding one message's fields. */
struct pb_in {
	const uint8_t *p, *end;
};

struct pb_field {
	uint32_t field;
	enum pb_wire wire;
	uint64_t v;	     /* VARINT, FIXED64, FIXED32 */
	const uint8_t *data; /* LEN */
	size_t len;	     /* LEN */
};

/* 1 and *f: the next field; 0: the end of the message; -1: malformed
 * (a truncated varint, a length past the end, an unknown wire type). */
int pb_next(struct pb_in *in, struct pb_field *f);
/* Reads a varint at *p (before end): 0, or -1 when malformed. */
int pb_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v);

#endif
