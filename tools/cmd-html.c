/* SPDX-License-Identifier: MIT */
/*
 * cmd-html.c - `weft html FILE -o OUT.html`: one self-contained file (the
 * viewer's WebAssembly, its JavaScript and the trace, base64 inside an
 * HTML page) that opens from file:// with no network.  The WebAssembly was
 * built with weft; making the file needs no compiler.  With zlib, the
 * trace is deflated first: a page a third the size, which the browser
 * parses and inflates (DecompressionStream) faster than it parses the
 * base64 of the whole.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifdef WEFT_HAVE_ZLIB
#include <zlib.h>
#endif

#include "weft-tools.h"

#ifndef WEFT_WASM_BUILD
#define WEFT_WASM_BUILD ""
#endif
#ifndef WEFT_WEB_SRC
#define WEFT_WEB_SRC ""
#endif
#ifndef WEFT_WEB_INSTALL
#define WEFT_WEB_INSTALL ""
#endif

static char *slurp_file(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap + 1);
	size_t k;
	while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap) {
			char *nb = realloc(b, (cap *= 2) + 1);
			if (!nb) {
				free(b);
				b = NULL;
			}
			b = nb;
		}
	}
	if (f != stdin)
		fclose(f);
	if (b)
		b[n] = 0;
	*len = n;
	return b;
}

static void b64(FILE *out, const unsigned char *p, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		fputc(t[v >> 18 & 63], out);
		fputc(t[v >> 12 & 63], out);
		fputc(i + 1 < n ? t[v >> 6 & 63] : '=', out);
		fputc(i + 2 < n ? t[v & 63] : '=', out);
	}
}

/* Finds an asset: $WEFT_HTML_ASSETS/name, else the build or source tree,
 * else the installed copy. */
static char *asset(const char *name, const char *built, size_t *len)
{
	char p[4200];
	const char *env = getenv("WEFT_HTML_ASSETS");
	if (env) {
		snprintf(p, sizeof p, "%s/%s", env, name);
		return slurp_file(p, len);
	}
	char *b = NULL;
	if (built && *built && (b = slurp_file(built, len)))
		return b;
	snprintf(p, sizeof p, "%s/%s", WEFT_WEB_SRC, name);
	if (*WEFT_WEB_SRC && (b = slurp_file(p, len)))
		return b;
	snprintf(p, sizeof p, "%s/%s", WEFT_WEB_INSTALL, name);
	return slurp_file(p, len);
}

/* `n` bytes deflated at `level` (zlib's format, as DecompressionStream
 * ("deflate") reads it) into a new buffer of *out bytes; NULL without
 * zlib or memory (the page then carries them as they are). */
static unsigned char *deflated(const unsigned char *p, size_t n, int level,
			       size_t *out)
{
#ifdef WEFT_HAVE_ZLIB
	uLongf bound = compressBound((uLong)n);
	unsigned char *z = malloc(bound);
	if (z && compress2(z, &bound, p, (uLong)n, level) == Z_OK) {
		*out = bound;
		return z;
	}
	free(z);
#else
	(void)p;
	(void)n;
	(void)level;
#endif
	*out = 0;
	return NULL;
}

int cmd_html(int argc, char **argv)
{
	const char *out = NULL;
	struct traces tr = {0};
	const struct opt opts[] = {
		{"-o", NULL, "OUT", "the page to write (- for standard output)",
		 OPT_STRING, &out},
		TRACES_OPT(&tr),
		OPT_END,
	};
	const struct cmd_usage u = {
		"html", "[OPTIONS] TRACE... -o OUT.html",
		"Writes one self-contained HTML file: the viewer (compiled to "
		"WebAssembly), its script and the trace, which a browser opens "
		"from disk with no network, with the picture, keys and controls "
		"of weft view.",
		opts, 0};
	int rc = parse_traces(&u, argc, argv, &tr);
	if (rc >= 0)
		return rc;
	if (!out) {
		traces_release(&tr);
		return opts_usage(&u);
	}
	int bad;
	const char *path = traces_name(&tr), *first = tr.path[0];
	size_t tl, wl, jl, hl;
	/* Only a readable trace goes into a page; from a live ring, a
	 * consistent copy; and only the packets in use: the page carries
	 * events, not the ring's empty space. */
	struct weft_reader *r = traces_open(&tr, 0);
	traces_release(&tr);
	if (!r)
		return 1;
	void *trace;
	uint64_t torn = 0;
	int err = weft_reader_copy(r, WEFT_COPY_COMPACT, &trace, &tl, &torn);
	if (err) {
		weft_reader_close(r);
		return error("cannot copy '%s': %s", path, weft_strerror(err));
	}
	struct weft_event ev;
	while (weft_reader_next(r, &ev) == 0)
		;
	rc = report_losses(r, path);
	weft_reader_close(r);
	if (torn)
		warning("'%s': %llu packets were being rewritten and are left "
			"out of the page",
			path, (unsigned long long)torn);
	char *wasm = asset("weft.wasm", WEFT_WASM_BUILD, &wl);
	char *js = asset("viewer.js", NULL, &jl);
	char *tpl = asset("viewer.html", NULL, &hl);
	if (!wasm || !js || !tpl) {
		free(trace);
		return error("the HTML viewer's files are missing (built "
			     "without wasm? WEFT_HTML_ASSETS names them)"),
		       1;
	}
	/* the trace, and the viewer's wasm (a third of its size in every
	 * page), deflated: the browser inflates them */
	size_t pl = 0, wpl = 0;
	unsigned char *packed = deflated(trace, tl, 1, &pl);
	unsigned char *wpacked = deflated((unsigned char *)wasm, wl, 9, &wpl);
	const char *coding = packed ? "deflate" : "";
	const char *wcoding = wpacked ? "deflate" : "";
	FILE *f = strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!f) {
		free(wpacked);
		free(packed);
		return error_errno("cannot create '%s'", out);
	}
	const char *name = strrchr(first, '/') ? strrchr(first, '/') + 1 : first;
	for (const char *p = tpl; *p;) {
		const char *at = strchr(p, '@');
		if (!at) {
			fputs(p, f);
			break;
		}
		fwrite(p, 1, (size_t)(at - p), f);
		if (!strncmp(at, "@WASM@", 6)) {
			if (wpacked)
				b64(f, wpacked, wpl);
			else
				b64(f, (unsigned char *)wasm, wl);
			p = at + 6;
		} else if (!strncmp(at, "@WASMCODING@", 12)) {
			fputs(wcoding, f);
			p = at + 12;
		} else if (!strncmp(at, "@TRACE@", 7)) {
			if (packed)
				b64(f, packed, pl);
			else
				b64(f, trace, tl);
			p = at + 7;
		} else if (!strncmp(at, "@CODING@", 8)) {
			fputs(coding, f);
			p = at + 8;
		} else if (!strncmp(at, "@SIZE@", 6)) {
			fprintf(f, "%zu", tl);
			p = at + 6;
		} else if (!strncmp(at, "@NAME@", 6)) {
			b64(f, (const unsigned char *)name, strlen(name));
			p = at + 6;
		} else if (!strncmp(at, "@JS@", 4)) {
			fputs(js, f);
			p = at + 4;
		} else {
			fputc('@', f);
			p = at + 1;
		}
	}
	bad = ferror(f) | (f != stdout ? fclose(f) : fflush(f));
	free(wpacked);
	free(packed);
	free(trace);
	free(wasm);
	free(js);
	free(tpl);
	if (bad)
		return error("cannot write '%s'", out);
	return rc;
}
