/* SPDX-License-Identifier: MIT */
/*
 * manifest.h - the lines of a run's manifest (docs/format.md, "Runs"):
 * one table for libweft's writer (src/record/run.c) and the reader
 * (src/read/run.c).  run-cli's manifest_table checks that a recorded run
 * (weft record's own lines, tools/cmd-record.c, among them) uses only
 * these words, every line of them, and that docs/format.md names every
 * line and key.
 *
 *   WEFT_MLINE_MAP: X(ID, "the line's first word")
 *   WEFT_MKEY_MAP:  X(ID, "key", how its value reads: 10 unsigned decimal,
 *                     16 hexadecimal, -10 signed decimal, 0 text (%XX
 *                     escaped))
 */
#ifndef WEFT_COMMON_MANIFEST_H
#define WEFT_COMMON_MANIFEST_H

#include <stddef.h>
#include <string.h>

#define WEFT_MLINE_MAP(X)                                                      \
	X(RUN, "weft-run")                                                     \
	X(FORK, "fork")                                                        \
	X(SPAWN, "spawn")                                                      \
	X(PROC, "proc")                                                        \
	X(RING, "ring")                                                        \
	X(EXIT, "exit")                                                        \
	X(REAPED, "reaped")

#define WEFT_MKEY_MAP(X)                                                       \
	X(VERSION, "version", 10)                                              \
	X(SESSION, "session", 16)                                              \
	X(PID, "pid", 10)                                                      \
	X(PPID, "ppid", 10)                                                    \
	X(CHILD, "child", 10)                                                  \
	X(TID, "tid", 10)                                                      \
	X(BY, "by", 16)                                                        \
	X(SPAWN, "spawn", 10)                                                  \
	X(FORK, "fork", 10)                                                    \
	X(START, "start", 10)                                                  \
	X(T, "t", -10)                                                         \
	X(REAL, "real", -10)                                                   \
	X(STATUS, "status", -10)                                               \
	X(SIGNAL, "signal", -10)                                               \
	X(FILE, "file", 0)                                                     \
	X(EXE, "exe", 0)                                                       \
	X(ARG, "arg", 0)                                                       \
	X(CUT, "cut", 10)                                                      \
	/* read from older writers' proc lines */                              \
	X(HOST, "host", 0)                                                     \
	X(BOOT, "boot", 0)

#define WEFT_X_(ID, word) WEFT_ML_##ID,
enum weft_mline { WEFT_MLINE_MAP(WEFT_X_) WEFT_MLINES };
#undef WEFT_X_
#define WEFT_X_(ID, word, base) WEFT_MK_##ID,
enum weft_mkey { WEFT_MKEY_MAP(WEFT_X_) WEFT_MKEYS };
#undef WEFT_X_

/* A line's or a key's word ("?" out of range). */
static inline const char *weft_mline_word(unsigned l)
{
#define WEFT_X_(ID, word) word,
	static const char *const w[] = {WEFT_MLINE_MAP(WEFT_X_)};
#undef WEFT_X_
	return l < WEFT_MLINES ? w[l] : "?";
}

static inline const char *weft_mkey_word(unsigned k)
{
#define WEFT_X_(ID, word, base) word,
	static const char *const w[] = {WEFT_MKEY_MAP(WEFT_X_)};
#undef WEFT_X_
	return k < WEFT_MKEYS ? w[k] : "?";
}

/* How key k's value reads (as in the table). */
static inline int weft_mkey_base(unsigned k)
{
#define WEFT_X_(ID, word, base) base,
	static const signed char b[] = {WEFT_MKEY_MAP(WEFT_X_)};
#undef WEFT_X_
	return k < WEFT_MKEYS ? b[k] : 0;
}

/* The line or key whose word is s[0..n) (not NUL-terminated), or
 * WEFT_MLINES / WEFT_MKEYS: an unknown word (skipped by readers). */
static inline unsigned weft__mword_find(const char *(*word)(unsigned),
					unsigned count, const char *s, size_t n)
{
	unsigned i = 0;
	while (i < count && (strlen(word(i)) != n || memcmp(word(i), s, n)))
		i++;
	return i;
}

static inline unsigned weft_mline_find(const char *s, size_t n)
{
	return weft__mword_find(weft_mline_word, WEFT_MLINES, s, n);
}

static inline unsigned weft_mkey_find(const char *s, size_t n)
{
	return weft__mword_find(weft_mkey_word, WEFT_MKEYS, s, n);
}

#endif
