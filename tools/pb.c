/* SPDX-License-Identifier: MIT */
/* pb.c - the protocol-buffers encoder and decoder of pb.h. */
#include "pb.h"

#include <stdlib.h>
#include <string.h>
#include "common/grow.h"

void pb_init(struct pb *p)
{
	memset(p, 0, sizeof *p);
}

void pb_release(struct pb *p)
{
	free(p->b);
	pb_init(p);
}

void pb_reset(struct pb *p)
{
	p->n = 0;
	p->depth = 0;
	p->oom = 0;
}

static int reserve(struct pb *p, size_t more)
{
	if (p->oom)
		return -1;
	if (weft__grow_to(&p->b, &p->cap, p->n + more, 1, 256, SIZE_MAX)) {
		p->oom = 1;
		return -1;
	}
	return 0;
}

void pb_raw(struct pb *p, const void *data, size_t len)
{
	if (!len || reserve(p, len))
		return;
	memcpy(p->b + p->n, data, len);
	p->n += len;
}

size_t pb_varint_size(uint64_t v)
{
	size_t k = 1;
	while (v >= 0x80) {
		v >>= 7;
		k++;
	}
	return k;
}

static size_t put_varint_at(uint8_t *b, uint64_t v)
{
	size_t k = 0;
	while (v >= 0x80) {
		b[k++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b[k++] = (uint8_t)v;
	return k;
}

void pb_put_varint(struct pb *p, uint64_t v)
{
	if (reserve(p, 10))
		return;
	p->n += put_varint_at(p->b + p->n, v);
}

void pb_tag(struct pb *p, uint32_t field, enum pb_wire wire)
{
	pb_put_varint(p, (uint64_t)field << 3 | (uint64_t)wire);
}

void pb_uint(struct pb *p, uint32_t field, uint64_t v)
{
	pb_tag(p, field, PB_VARINT);
	pb_put_varint(p, v);
}

/* int32 and int64 are written as 64-bit two's complement (ten bytes for
 * a negative value), as the specification says. */
void pb_int(struct pb *p, uint32_t field, int64_t v)
{
	pb_uint(p, field, (uint64_t)v);
}

void pb_sint(struct pb *p, uint32_t field, int64_t v)
{
	uint64_t u = (uint64_t)v;
	pb_uint(p, field, (u << 1) ^ (v < 0 ? UINT64_MAX : 0));
}

void pb_bool(struct pb *p, uint32_t field, int v)
{
	pb_uint(p, field, v ? 1 : 0);
}

void pb_fixed64(struct pb *p, uint32_t field, uint64_t v)
{
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	pb_tag(p, field, PB_FIXED64);
	pb_raw(p, b, 8);
}

void pb_fixed32(struct pb *p, uint32_t field, uint32_t v)
{
	uint8_t b[4];
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	pb_tag(p, field, PB_FIXED32);
	pb_raw(p, b, 4);
}

void pb_double(struct pb *p, uint32_t field, double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	pb_fixed64(p, field, u);
}

void pb_bytes(struct pb *p, uint32_t field, const void *data, size_t len)
{
	pb_tag(p, field, PB_LEN);
	pb_put_varint(p, len);
	pb_raw(p, data, len);
}

void pb_string(struct pb *p, uint32_t field, const char *s)
{
	pb_bytes(p, field, s, strlen(s));
}

void pb_begin(struct pb *p, uint32_t field)
{
	if (p->depth == PB_MAX_DEPTH) {
		p->oom = 1;
		return;
	}
	pb_tag(p, field, PB_LEN);
	p->open[p->depth++] = p->n;
}

/* The body was written where its length goes: move it up by the length's
 * size and write the length in front. */
void pb_end(struct pb *p)
{
	if (p->depth == 0) {
		p->oom = 1;
		return;
	}
	size_t start = p->open[--p->depth];
	if (p->oom)
		return;
	size_t len = p->n - start, k = pb_varint_size(len);
	if (reserve(p, k))
		return;
	memmove(p->b + start + k, p->b + start, len);
	put_varint_at(p->b + start, len);
	p->n += k;
}

int pb_get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;
	const uint8_t *q = *p;
	for (int shift = 0; shift < 64; shift += 7) {
		if (q >= end)
			return -1;
		uint8_t c = *q++;
		r |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*p = q;
			*v = r;
			return 0;
		}
	}
	return -1;
}

int pb_next(struct pb_in *in, struct pb_field *f)
{
	if (in->p >= in->end)
		return 0;
	uint64_t tag;
	if (pb_get_varint(&in->p, in->end, &tag) || tag >> 3 == 0 ||
	    tag >> 3 > UINT32_MAX >> 3)
		return -1;
	f->field = (uint32_t)(tag >> 3);
	f->wire = (enum pb_wire)(tag & 7);
	f->v = 0;
	f->data = NULL;
	f->len = 0;
	switch (f->wire) {
	case PB_VARINT:
		return pb_get_varint(&in->p, in->end, &f->v) ? -1 : 1;
	case PB_FIXED64:
	case PB_FIXED32: {
		size_t k = f->wire == PB_FIXED64 ? 8 : 4;
		if ((size_t)(in->end - in->p) < k)
			return -1;
		for (size_t i = 0; i < k; i++)
			f->v |= (uint64_t)in->p[i] << (8 * i);
		in->p += k;
		return 1;
	}
	case PB_LEN: {
		uint64_t len;
		if (pb_get_varint(&in->p, in->end, &len) ||
		    len > (uint64_t)(in->end - in->p))
			return -1;
		f->data = in->p;
		f->len = (size_t)len;
		in->p += len;
		return 1;
	}
	default:
		return -1;
	}
}
