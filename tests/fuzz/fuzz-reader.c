/* SPDX-License-Identifier: MIT */
/*
 * fuzz-reader.c - libFuzzer target: any bytes given to the reader as a
 * trace must give a clean error or events, never a crash, a hang or a read
 * out of bounds; and neither must the model built from them, nor `weft
 * why`'s analysis of it, nor its Chrome JSON export.  Built with
 * -fsanitize=fuzzer by tests/run for a smoke run, and replayed over the
 * corpus by fuzz-main.c in every test run.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "weft/model.h"
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
		sink += strlen(weft_reader_name(r, ev.name2));
		const char *nm = weft_event_name(ev.type);
		sink += nm ? strlen(nm) : 0;
	}
	unsigned np;
	weft_reader_problems(r, &np);
	sink += np;
	weft_reader_close(r);
	/* The model of the same bytes: every thread's title. */
	if (weft_reader_open_mem(&r, data, size, 0, &d))
		return 0;
	struct weft_model *m;
	if (weft_model_load(&m, r) == 0) {
		uint32_t nth;
		weft_model_threads(m, &nth);
		char buf[128];
		for (uint32_t i = 0; i < nth; i++)
			sink += strlen(weft_model_title(m, i, buf, sizeof buf));
		/* what `weft why` and `weft export` compute from it */
		for (uint32_t i = 0; i < nth && i < 256; i++) {
			struct weft_why w;
			if (weft_why(m, i, &w) == 0)
				sink += w.nchain;
		}
		static FILE *null;
		if (!null)
			null = fopen("/dev/null", "w");
		if (null)
			weft_export_chrome(m, null);
		weft_model_free(m);
	}
	weft_reader_close(r);
	(void)sink;
	return 0;
}
