/* SPDX-License-Identifier: MIT */
/*
 * events.h - the one table of weft's events.
 *
 * Every event of the trace format is one line of WEFT_EVENT_MAP:
 *   X(ENUM, id, name, cur, "meaning", FIELDS)
 * its numeric id (stored in the compact event header, so below 31); its
 * name, which readers print and which names its recording function
 * weft__NAME; `cur`: 1 if the event makes its first ID the stream's
 * current async thread (run, resolve_run, fire), which the writer and the
 * readers both follow; a one-line meaning; and its payload fields in the
 * order they are stored, each F(TYPE, "field").  The CTF metadata, the
 * decoder, the text dump, the JSON exports, the viewers' legend and the
 * writer's encoders (src/record/events.c, one per payload shape, checked
 * against the sizes below at compile time) all expand this table; adding
 * an event is one line here plus its declaration and macro in weft.h.
 *
 * Field types (all little-endian, byte-packed, no padding):
 *   ID    uint64  an async thread id
 *   NAME  uint16  an interned name (0 = none); the trace's name table
 *                 gives its text
 *   I64   int64   a signed value
 *   U64   uint64  an unsigned value
 *   TRUNC uint8   1 if the text that follows was cut to fit a packet
 *   STR   string  UTF-8, NUL-terminated
 *
 * The actor of an event (the async thread that created, read, resolved...)
 * is not stored in it: it is the stream's current async thread, set by the
 * last `run` event of the stream, or by the packet context's
 * current_thread at the start of a packet.
 */
#ifndef WEFT_EVENTS_H
#define WEFT_EVENTS_H

/* X(ENUM, id, name, cur, "meaning", FIELDS) with FIELDS a sequence of
 * F(TYPE, "field") */
#define WEFT_EVENT_MAP(X, F)                                                   \
	X(CREATE, 0, create, 0, "current creates an async thread",             \
	  F(ID, "child") F(NAME, "kind"))                                      \
	X(RUN, 1, run, 1, "an async thread runs (0: none)", F(ID, "thread"))   \
	X(IDLE, 2, idle, 0, "the OS thread blocks waiting for work",           \
	  F(NAME, "reason"))                                                   \
	X(RESUME, 3, resume, 0, "the OS thread is back from idle", )           \
	X(READ, 4, read, 0, "current read the result of source",               \
	  F(ID, "source"))                                                     \
	X(TRY_READ, 5, try_read, 0, "current waits on source, not ready",      \
	  F(ID, "source"))                                                     \
	X(RESOLVE, 6, resolve, 0, "current resolved target", F(ID, "target"))  \
	X(FAIL, 7, fail, 0, "current made target fail",                        \
	  F(ID, "target") F(TRUNC, "truncated") F(STR, "message"))             \
	X(BECOMES, 8, becomes, 0, "from is replaced by to",                    \
	  F(ID, "from") F(ID, "to"))                                           \
	X(SIGNAL, 9, signal, 0, "current signalled receiver",                  \
	  F(ID, "receiver"))                                                   \
	X(CANCEL, 10, cancel, 0, "current cancelled target", F(ID, "target"))  \
	X(LABEL, 11, label, 0, "a label on an async thread",                   \
	  F(ID, "thread") F(TRUNC, "truncated") F(STR, "text"))                \
	X(SHOULD_RESOLVE, 12, should_resolve, 0, "thread should resolve",      \
	  F(ID, "thread"))                                                     \
	X(COUNTER_SET, 13, counter_set, 0, "a counter takes a value",          \
	  F(NAME, "counter") F(I64, "value"))                                  \
	X(COUNTER_ADD, 14, counter_add, 0, "a counter changes by delta",       \
	  F(NAME, "counter") F(I64, "delta"))                                  \
	X(NOTE, 15, note, 0, "a note on an async thread",                      \
	  F(ID, "thread") F(TRUNC, "truncated") F(STR, "text"))                \
	X(SPAN_BEGIN, 16, span_begin, 0, "a named span begins on current",     \
	  F(NAME, "name"))                                                     \
	X(SPAN_END, 17, span_end, 0, "a named span ends on current",           \
	  F(NAME, "name"))                                                     \
	X(PAUSE, 18, pause, 0, "the runtime stopped everything until now",     \
	  F(NAME, "kind") F(U64, "duration_ns"))                               \
	X(RESOLVE_RUN, 19, resolve_run, 1,                                     \
	  "current resolved target, which runs now", F(ID, "target"))          \
	X(CREATE_LABEL, 20, create_label, 0,                                   \
	  "current creates an async thread, labelled",                         \
	  F(ID, "child") F(NAME, "kind") F(NAME, "label"))                     \
	X(FIRE, 21, fire, 1,                                                   \
	  "current resolved target, which runs now and creates next, of "      \
	  "its kind and label",                                                \
	  F(ID, "target") F(ID, "next"))                                       \
	X(PHASE, 22, phase, 0,                                                 \
	  "the OS thread's loop enters a phase (0: leaves its phases)",        \
	  F(NAME, "phase"))                                                    \
	X(SENT, 23, sent, 0,                                                   \
	  "thread (0: current) wrote bytes at offset of channel chan "         \
	  "(offset ~0: a datagram)",                                           \
	  F(ID, "thread") F(U64, "chan") F(U64, "offset") F(U64, "bytes"))     \
	X(RECEIVED, 24, received, 0,                                           \
	  "thread (0: current) read bytes at offset of channel chan "          \
	  "(offset ~0: a datagram)",                                           \
	  F(ID, "thread") F(U64, "chan") F(U64, "offset") F(U64, "bytes"))

enum weft_event_type {
#define WEFT__EV_ENUM(E, id, name, cur, doc, fields) WEFT_EV_##E = (id),
#define WEFT__EV_NOFIELD(t, n)
	WEFT_EVENT_MAP(WEFT__EV_ENUM, WEFT__EV_NOFIELD)
#undef WEFT__EV_ENUM
#undef WEFT__EV_NOFIELD
		WEFT_EV_COUNT
};

enum weft_field_type {
	WEFT_FT_END = 0,
	WEFT_FT_ID,
	WEFT_FT_NAME,
	WEFT_FT_I64,
	WEFT_FT_U64,
	WEFT_FT_TRUNC,
	WEFT_FT_STR,
};

#endif /* WEFT_EVENTS_H */
