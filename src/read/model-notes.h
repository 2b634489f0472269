/* SPDX-License-Identifier: MIT */
/*
 * model-notes.h - a thread's notes without a scan (model.c keeps them
 * chained by thread; describe.c's inspector walks the chain).  Labels
 * are chained by weft_label.prev from weft_thread.label.
 */
#ifndef WEFT_MODEL_NOTES_H
#define WEFT_MODEL_NOTES_H

#include <stdint.h>

struct weft_model;

/* The thread's latest note (an index in weft_model_labels()), or
 * WEFT_NONE. */
uint32_t weft__model_note(const struct weft_model *m, uint32_t thread);
/* The note before note `label` of its thread, or WEFT_NONE. */
uint32_t weft__model_note_prev(const struct weft_model *m, uint32_t label);

#endif
