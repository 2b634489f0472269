/* SPDX-License-Identifier: MIT */
/*
 * pb-sample.c - tools/pb.c's encoder on every field shape, for
 * tests/fleet/test-otlp.sh to read back with `protoc --decode_raw`:
 * varints at their byte boundaries (0, 127, 128, 16383, 16384, 2^63, the
 * largest), negative int64 and sint64, fixed64, fixed32, a double, a
 * string, bytes, nested messages three deep, and messages of 127 and
 * 128 bytes (the length's varint grows a byte) and of 20,000 (three).
 */
#include <stdio.h>
#include <string.h>

#include "pb.h"

int main(void)
{
	struct pb p;
	pb_init(&p);
	const uint64_t v[] = {
		0,     1,	127,	 128,	     16383,
		16384, 2097151, 2097152, 1ull << 63, 18446744073709551615ull};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		pb_uint(&p, 1, v[i]);
	pb_int(&p, 2, -1);
	pb_sint(&p, 3, -1);
	pb_sint(&p, 3, 1);
	pb_sint(&p, 3, -64);
	pb_fixed64(&p, 4, 0x0102030405060708ull);
	pb_fixed32(&p, 5, 0xdeadbeef);
	pb_double(&p, 6, 1.5);
	pb_string(&p, 7, "hello");
	pb_bytes(&p, 8, "\x01\x02", 2);
	pb_bool(&p, 9, 1);
	pb_begin(&p, 10);
	pb_uint(&p, 1, 5);
	pb_begin(&p, 2);
	pb_string(&p, 1, "in");
	pb_begin(&p, 3);
	pb_uint(&p, 1, 300);
	pb_end(&p);
	pb_end(&p);
	pb_end(&p);
	char buf[20001];
	size_t sizes[] = {125, 126, 19997};
	for (int i = 0; i < 3; i++) {
		/* a message whose body is sizes[i] + 2 bytes: one string */
		memset(buf, 'a' + i, sizes[i]);
		buf[sizes[i]] = 0;
		pb_begin(&p, 11);
		pb_string(&p, 1, buf);
		pb_end(&p);
	}
	pb_begin(&p, 12); /* empty */
	pb_end(&p);
	pb_uint(&p, 536870911, 7); /* the largest field number */
	if (p.oom || fwrite(p.b, 1, p.n, stdout) != p.n)
		return 1;
	pb_release(&p);
	return 0;
}
