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
#include <stdlib.h>
#include <string.h>

#include "weft/model.h"
#include "weft/stats.h"
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
		/* what the reader hands out is valid UTF-8, whatever the
		 * bytes */
		if (ev.text && (strlen(ev.text) != ev.text_len ||
				!weft_utf8_valid(ev.text, ev.text_len)))
			abort();
		const char *nm0 = weft_reader_name(r, ev.name);
		if (!weft_utf8_valid(nm0, strlen(nm0)))
			abort();
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
	/* a consistent copy of what it read reads back */
	void *copy;
	size_t clen;
	if (weft_reader_copy(r, WEFT_COPY_COMPACT, &copy, &clen, NULL) == 0) {
		struct weft_reader *c;
		if (weft_reader_open_mem(&c, copy, clen, 0, &d) == 0) {
			while (weft_reader_next(c, &ev) == 0)
				sink++;
			weft_reader_close(c);
		}
		free(copy);
	}
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
		/* and what `weft stats` shows */
		struct weft_stats *st;
		if (weft_stats_compute(&st, m) == 0) {
			for (uint32_t i = 0; i < st->nkinds; i++)
				sink += strlen(st->kinds[i].key);
			for (uint32_t i = 0; i < st->nlabels; i++)
				sink += strlen(st->labels[i].key);
			sink += st->nphases + st->nlongest;
			weft_stats_free(st);
		}
		weft_model_free(m);
	}
	weft_reader_close(r);
	/* `weft stats` in one pass (a lean model): the same threads and
	 * groups as the whole model's */
	if (weft_reader_open_mem(&r, data, size, 0, &d))
		return 0;
	struct weft_stats_stream *ss;
	if (weft_model_new(&m, r) == 0) {
		if (weft_stats_stream_new(&ss, m) == 0) {
			struct weft_stats *st;
			if (weft_model_update(m) >= 0 &&
			    weft_stats_stream_finish(ss, &st) == 0) {
				sink += st->threads + st->nkinds + st->nlabels +
					st->nphases + st->nlongest + st->nsums;
				weft_stats_free(st);
			}
			weft_stats_stream_free(ss);
		}
		weft_model_free(m);
	}
	weft_reader_close(r);
	/* `weft ps`: a brief model, and weft why's index over it */
	if (weft_reader_open_mem(&r, data, size, 0, &d))
		return 0;
	if (weft_model_new(&m, r) == 0) {
		struct weft_why_index *ix;
		if (weft_model_set_brief(m) == 0 && weft_model_update(m) >= 0 &&
		    weft_why_index_new(&ix, m) == 0) {
			uint32_t nth, nrun;
			weft_model_threads(m, &nth);
			weft_model_runs(m, &nrun);
			sink += nrun;
			for (uint32_t i = 0; i < nth && i < 64; i++) {
				struct weft_why w;
				if (weft_why_at(ix, i, &w) == 0)
					sink += (size_t)w.verdict + w.nchain;
			}
			weft_why_index_free(ix);
		}
		weft_model_free(m);
	}
	weft_reader_close(r);
	(void)sink;
	return 0;
}
