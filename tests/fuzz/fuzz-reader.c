/* SPDX-License-Identifier: MIT */
/*
 * fuzz-reader.c - libFuzzer target: any bytes given to the reader as a
 * trace must give a clean error or events, never a crash, a hang or a read
 * out of bounds.  Built with -fsanitize=fuzzer by .ci/run for a smoke run,
 * and replayed over the corpus by fuzz-main.c in every test run.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "weft/read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct weft_reader *r;
	struct weft_diag d;
	if (weft_reader_open_mem(&r, data, size, 0, &d))
		return 0;
	const struct weft_trace_info *in = weft_reader_info(r);
	volatile size_t sink = 0;
	for (uint32_t i = 0; i < in->nnames; i++)
		sink += strlen(in->names[i]);
	struct weft_event ev;
	uint64_t n = 0;
	while (weft_reader_next(r, &ev) == 0 && n++ < 10000000) {
		if (ev.text)
			sink += strlen(ev.text) + ev.text_len;
		sink += strlen(weft_reader_name(r, ev.name));
		const char *nm = weft_event_name(ev.type);
		sink += nm ? strlen(nm) : 0;
	}
	unsigned np;
	weft_reader_problems(r, &np);
	sink += np;
	weft_reader_close(r);
	(void)sink;
	return 0;
}
