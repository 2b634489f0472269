/* SPDX-License-Identifier: MIT */
/*
 * verdicts.c - one small program per `weft why` verdict:
 *   verdicts deadlock   A waits on B, B waits on A
 *   verdicts never      A waits on B, which nothing ever touches
 *   verdicts failed     A waits on B, B on C; C fails, B never reads it
 *   verdicts truncated  A waits on B, then so many events follow that the
 *                       wait and both creations fall off a small ring
 *   verdicts ok         A waits on B, B resolves, A reads it and resolves
 * Each marks A (id 10) should_resolve.
 */
#include <stdio.h>
#include <string.h>

#include <weft/weft.h>

enum { A = 10, B = 11, C = 12, OTHER = 13 };

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "ok";
	weft_run(1);
	weft_create(A, "task");
	weft_label(A, "request A");
	weft_should_resolve(A);
	weft_create(B, "task");
	weft_label(B, "helper B");
	weft_run(A);
	weft_try_read(B);
	if (!strcmp(mode, "deadlock")) {
		weft_run(B);
		weft_try_read(A);
	} else if (!strcmp(mode, "failed")) {
		weft_run(B);
		weft_create(C, "task");
		weft_label(C, "disk read C");
		weft_try_read(C);
		weft_run(OTHER);
		weft_fail(C, "EIO");
	} else if (!strcmp(mode, "truncated")) {
		/* Run with a small ring (WEFT_SIZE=64K): this pushes the
		 * start of the story out of it. */
		weft_run(1);
		for (uint64_t i = 0; i < 200000; i++)
			weft_counter_set("noise", (int64_t)i);
		weft_should_resolve(A);
	} else if (!strcmp(mode, "ok")) {
		weft_run(B);
		weft_resolve(B);
		weft_run(A);
		weft_read(B);
		weft_resolve(A);
	}
	weft_run(0);
	printf("verdicts %s\n", mode);
	return 0;
}
