/* SPDX-License-Identifier: MIT */
/*
 * utf8.c - the one UTF-8 validation routine of libweft-read.  The reader
 * passes every text and name through it, and every writer of text (dump,
 * stats, the JSON exports) uses it, so that what weft prints, exports or
 * draws is valid UTF-8 whatever bytes a program recorded.
 *
 * An invalid sequence becomes one U+FFFD per maximal subpart (Unicode's
 * recommended practice, §3.9 "U+FFFD Substitution of Maximal Subparts",
 * which is also what Python's decode(errors="replace") does): a byte that
 * cannot start a sequence, a sequence cut short, an overlong form
 * (C0 80, E0 80 80), a UTF-16 surrogate (ED A0 80) and a code point above
 * U+10FFFF (F4 90 80 80) are all refused.
 */
#include <string.h>

#include "weft/read.h"

size_t weft_utf8_decode(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *p = (const unsigned char *)s;
	if (!n) {
		*cp = 0;
		return 0;
	}
	unsigned c = p[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	/* The length, the lead's payload bits, and the range of the second
	 * byte (narrower than 80..BF where overlongs, surrogates or code
	 * points past U+10FFFF would start). */
	size_t len;
	uint32_t v;
	unsigned lo = 0x80, hi = 0xBF;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2, v = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF) {
		len = 3, v = c & 0x0F;
		if (c == 0xE0)
			lo = 0xA0; /* overlong */
		else if (c == 0xED)
			hi = 0x9F; /* surrogates D800..DFFF */
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4, v = c & 0x07;
		if (c == 0xF0)
			lo = 0x90; /* overlong */
		else if (c == 0xF4)
			hi = 0x8F; /* above U+10FFFF */
	} else {
		*cp = 0xFFFD; /* 80..C1, F5..FF: never a lead byte */
		return 1;
	}
	size_t k = 1;
	for (; k < len; k++) {
		if (k >= n)
			break;
		unsigned b = p[k];
		if (b < lo || b > hi)
			break;
		lo = 0x80, hi = 0xBF;
		v = v << 6 | (b & 0x3F);
	}
	if (k < len) {
		*cp = 0xFFFD; /* the maximal subpart: what matched so far */
		return k;
	}
	*cp = v;
	return len;
}

int weft_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		/* Most text is ASCII: eight bytes at a time. */
		while (i + 8 <= n) {
			uint64_t w;
			memcpy(&w, p + i, 8);
			if (w & 0x8080808080808080ull)
				break;
			i += 8;
		}
		if (i >= n)
			break;
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		uint32_t cp;
		size_t k = weft_utf8_decode(s + i, n - i, &cp);
		if (cp == 0xFFFD && !(k == 3 && p[i] == 0xEF &&
				      p[i + 1] == 0xBF && p[i + 2] == 0xBD))
			return 0;
		i += k;
	}
	return 1;
}

size_t weft_utf8_fix(char *dst, size_t cap, const char *s, size_t n)
{
	size_t w = 0;
	if (!cap)
		return 0;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k = weft_utf8_decode(s + i, n - i, &cp);
		const char *src = s + i;
		size_t len = k;
		if (cp == 0xFFFD) {
			src = "\xEF\xBF\xBD";
			len = 3;
		}
		if (w + len + 1 > cap)
			break; /* cut at a character boundary */
		memcpy(dst + w, src, len);
		w += len;
		i += k;
	}
	dst[w] = 0;
	return w;
}
