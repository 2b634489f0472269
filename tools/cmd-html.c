/* SPDX-License-Identifier: MIT */
/*
 * cmd-html.c - `weft html FILE -o OUT.html`: one self-contained file (the
 * viewer's WebAssembly, its JavaScript and the trace, base64 inside an
 * HTML page) that opens from file:// with no network.  For pages of
 * several viewers (docs/viewer.md), `--embed-runtime` writes the viewer's
 * script with the WebAssembly, once for a page, and `--embed` a script
 * that registers one trace with it.  The WebAssembly was
 * built with weft; making the file needs no compiler.  With zlib, the
 * trace is deflated first: a page a third the size, which the browser
 * parses and inflates (DecompressionStream) faster than it parses the
 * base64 of the whole.  Two runs to compare (traces_pair: `weft html GOOD
 * BAD`): both in the page, which shows them one above the other as `weft
 * view GOOD BAD` does (not with --embed).
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
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrst"
				"uvwxyz0123456789+/";
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

/* A part of the page: its deflated copy when there is one, else its
 * bytes, in base64. */
static void b64_part(FILE *out, const unsigned char *packed, size_t pl,
		     const void *raw, size_t rl)
{
	if (packed)
		b64(out, packed, pl);
	else
		b64(out, raw, rl);
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

/* What the page asks of the viewer at first (--start, --duration,
 * --counters). */
struct initial {
	int64_t start, duration; /* ns; -1: none */
	struct opt_list counters;
	int ncounters;	    /* names in it, once split at commas */
	const char **names; /* into copies of the values, in copy[] */
	char **copy;
};

/* Splits --counters' values at commas into ini->names. */
static int split_counters(struct initial *ini)
{
	size_t n = 0;
	for (int i = 0; i < ini->counters.n; i++)
		n += strlen(ini->counters.v[i]) + 1;
	ini->names = calloc(n + 1, sizeof *ini->names);
	ini->copy = calloc((size_t)ini->counters.n + 1, sizeof *ini->copy);
	if (!ini->names || !ini->copy)
		return -1;
	for (int i = 0; i < ini->counters.n; i++) {
		char *s = ini->copy[i] = strdup(ini->counters.v[i]);
		if (!s)
			return -1;
		for (char *t = strtok(s, ","); t; t = strtok(NULL, ","))
			ini->names[ini->ncounters++] = t;
	}
	return 0;
}

/* The counters' names, one a line, base64 (names reach the page as data,
 * never as markup or script). */
static void counters_b64(FILE *f, const struct initial *ini)
{
	size_t n = 0;
	for (int i = 0; i < ini->ncounters; i++)
		n += strlen(ini->names[i]) + 1;
	char *b = malloc(n + 1), *p = b;
	if (!b)
		die("out of memory");
	for (int i = 0; i < ini->ncounters; i++)
		p += sprintf(p, "%s\n", ini->names[i]);
	b64(f, (unsigned char *)b, (size_t)(p - b));
	free(b);
}

/* The runtime of embedded viewers: viewer.js and the wasm, once a page. */
static int write_runtime(const char *out)
{
	size_t wl, jl;
	char *wasm = asset("weft.wasm", WEFT_WASM_BUILD, &wl);
	char *js = asset("viewer.js", NULL, &jl);
	if (!wasm || !js) {
		free(wasm);
		free(js);
		return error("the HTML viewer's files are missing (built "
			     "without wasm? WEFT_HTML_ASSETS names them)");
	}
	size_t wpl = 0;
	unsigned char *wpacked = deflated((unsigned char *)wasm, wl, 9, &wpl);
	FILE *f = strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!f) {
		free(wpacked);
		free(wasm);
		free(js);
		return error_errno("cannot create '%s'", out);
	}
	fputs("/* weft-viewer.js, written by weft html --embed-runtime: "
	      "the viewer (WeftViewer.mount) and its WebAssembly, once a "
	      "page, for the traces of weft html --embed.  See weft's "
	      "docs/viewer.md. */\n",
	      f);
	fwrite(js, 1, jl, f);
	fprintf(f, "\nWeftViewer.wasm('%s', '", wpacked ? "deflate" : "");
	b64_part(f, wpacked, wpl, wasm, wl);
	fputs("');\n", f);
	int bad = ferror(f) | (f != stdout ? fclose(f) : fflush(f));
	free(wpacked);
	free(wasm);
	free(js);
	return bad ? error("cannot write '%s'", out) : 0;
}

/* A script that registers one trace with the runtime under `name`. */
static void write_embed(FILE *f, const char *name, const char *file,
			const unsigned char *trace, size_t tl,
			const unsigned char *packed, size_t pl,
			const struct initial *ini)
{
	fputs("/* written by weft html --embed: one trace for the viewers of "
	      "weft html --embed-runtime (<div class=\"weft-viewer\" "
	      "data-trace=\"NAME\">) */\n(function (W) { (W.pending = "
	      "W.pending || []).push({name: '",
	      f);
	b64(f, (const unsigned char *)name, strlen(name));
	fputs("', file: '", f);
	b64(f, (const unsigned char *)file, strlen(file));
	fprintf(f, "', start: %lld, duration: %lld, counters: ",
		(long long)ini->start, (long long)ini->duration);
	if (ini->counters.n) {
		fputc('\'', f);
		counters_b64(f, ini);
		fputc('\'', f);
	} else {
		fputs("null", f);
	}
	fprintf(f, ", coding: '%s', size: %zu, data: '",
		packed ? "deflate" : "", tl);
	b64_part(f, packed, pl, trace, tl);
	fputs("'}); })(self.WeftViewer = self.WeftViewer || {});\n", f);
}

/* The name a page gives an embedded trace by default: the first trace's
 * file name without its directory and ".weft". */
static char *default_name(const char *path)
{
	char *s = strdup(strcmp(path, "-") ? path : "trace");
	if (!s)
		die("out of memory");
	size_t n = strlen(s);
	while (n > 1 && s[n - 1] == '/')
		s[--n] = 0;
	char *b = strrchr(s, '/') ? strrchr(s, '/') + 1 : s;
	n = strlen(b);
	if (n > 5 && !strcmp(b + n - 5, ".weft"))
		b[n - 5] = 0;
	memmove(s, b, strlen(b) + 1);
	return s;
}

/* A trace as the page carries it: its readable packets, their time
 * span (*len, ns) and which of --counters' names it has (seen[i] set).
 * 0, 1 (losses, said) or -1 (an error, said). */
static int grab(struct traces *trp, const struct initial *ini, void **trace,
		size_t *tl, int64_t *len, char *seen)
{
	const char *path = traces_name(trp);
	/* Only a readable trace goes into a page; from a live ring, a
	 * consistent copy; and only the packets in use: the page carries
	 * events, not the ring's empty space. */
	struct weft_reader *r = traces_open(trp, 0);
	if (!r)
		return -1;
	uint64_t torn = 0;
	int err = weft_reader_copy(r, WEFT_COPY_COMPACT, trace, tl, &torn);
	if (err) {
		weft_reader_close(r);
		error("cannot copy '%s': %s", path, weft_strerror(err));
		return -1;
	}
	/* what --start and --counters name is in the trace: its times, and
	 * the counters' names */
	struct weft_event ev;
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	while (weft_reader_next(r, &ev) == 0) {
		if (ev.type == WEFT_EV_LOSS)
			continue;
		t0 = ev.ns < t0 ? ev.ns : t0;
		t1 = ev.ns > t1 ? ev.ns : t1;
		if (ev.type != WEFT_EV_COUNTER_SET &&
		    ev.type != WEFT_EV_COUNTER_ADD)
			continue;
		const char *cn = weft_reader_name(r, ev.name);
		for (int i = 0; cn && i < ini->ncounters; i++)
			seen[i] |= !strcmp(cn, ini->names[i]);
	}
	int rc = report_losses(r, path);
	weft_reader_close(r);
	*len = t1 < t0 ? 0 : t1 - t0;
	if (torn)
		warning("'%s': %llu packets were being rewritten and are left "
			"out of the page",
			path, (unsigned long long)torn);
	return rc;
}

/* Writes the bad run's parts of a page of two (@PAIR@): its name and
 * its trace, as the good run's are. */
static void write_second(FILE *f, const char *file, const unsigned char *trace,
			 size_t tl, const unsigned char *packed, size_t pl)
{
	const char *name = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	fputs("<script type=\"application/octet-stream\" id=\"weft-name2\">",
	      f);
	b64(f, (const unsigned char *)name, strlen(name));
	fprintf(f,
		"</script>\n<script type=\"application/octet-stream\" "
		"id=\"weft-trace2\" data-coding=\"%s\" data-size=\"%zu\">",
		packed ? "deflate" : "", tl);
	b64_part(f, packed, pl, trace, tl);
	fputs("</script>", f);
}

/* Writes the page (or with --embed, the trace's script); two runs to
 * compare (`compare`: the two traces of trp) in one page. */
static int html(struct traces *trp, const char *out, int embed,
		const char *ename, const struct initial *ini, int compare)
{
	int bad, rc = 0;
	const char *path = traces_name(trp), *first = trp->path[0];
	size_t tl, tl2 = 0, wl = 0, jl = 0, hl = 0;
	void *trace = NULL, *trace2 = NULL;
	int64_t len = 0;
	char *seen = calloc((size_t)ini->ncounters + 1, 1);
	if (!seen)
		die("out of memory");
	if (compare) { /* each run on its own (the offsets apply to both) */
		struct traces *one = calloc(1, sizeof *one);
		if (!one)
			die("out of memory");
		one->n = 1;
		one->noff = trp->noff;
		memcpy(one->host, trp->host, sizeof one->host);
		memcpy(one->ns, trp->ns, sizeof one->ns);
		for (int s = 0; s < 2 && rc >= 0; s++) {
			int64_t l = 0;
			int r;
			one->path[0] = trp->path[s];
			r = grab(one, ini, s ? &trace2 : &trace, s ? &tl2 : &tl,
				 &l, seen);
			rc = r < 0 ? -1 : rc | r;
			len = l > len ? l : len;
		}
		free(one);
	} else {
		rc = grab(trp, ini, &trace, &tl, &len, seen);
	}
	if (rc < 0) {
		free(trace);
		free(trace2);
		free(seen);
		return 1;
	}
	const char *missing = NULL;
	for (int i = 0; i < ini->ncounters; i++)
		if (!seen[i])
			missing = ini->names[i];
	free(seen);
	if (ini->start > len || missing) {
		char a[40], b[40];
		free(trace);
		free(trace2);
		progress_clear();
		if (missing && compare)
			fprintf(stderr,
				"weft html: no counter '%s' in %s or %s\n",
				missing, trp->path[0], trp->path[1]);
		else if (missing)
			fprintf(stderr, "weft html: no counter '%s' in '%s'\n",
				missing, path);
		else if (compare)
			fprintf(stderr,
				"weft html: --start %s is past the end of both "
				"runs (%s long at most)\n",
				fmt_time(a, sizeof a, ini->start),
				fmt_time(b, sizeof b, len));
		else
			fprintf(stderr,
				"weft html: --start %s is past the end of the "
				"trace (%s long)\n",
				fmt_time(a, sizeof a, ini->start),
				fmt_time(b, sizeof b, len));
		return 1;
	}
	/* (embedded: the runtime has the wasm and the script) */
	char *wasm = embed ? NULL : asset("weft.wasm", WEFT_WASM_BUILD, &wl);
	char *js = embed ? NULL : asset("viewer.js", NULL, &jl);
	char *tpl = embed ? NULL : asset("viewer.html", NULL, &hl);
	size_t pl = 0, wpl = 0, pl2 = 0;
	unsigned char *packed = NULL, *packed2 = NULL, *wpacked = NULL;
	FILE *f = NULL;
	if (!embed && (!wasm || !js || !tpl)) {
		rc = error("the HTML viewer's files are missing (built "
			   "without wasm? WEFT_HTML_ASSETS names them)");
		goto done;
	}
	/* the trace, and the viewer's wasm (a third of its size in every
	 * page), deflated: the browser inflates them */
	packed = deflated(trace, tl, 1, &pl);
	packed2 = trace2 ? deflated(trace2, tl2, 1, &pl2) : NULL;
	wpacked = embed ? NULL : deflated((unsigned char *)wasm, wl, 9, &wpl);
	const char *coding = packed ? "deflate" : "";
	const char *wcoding = wpacked ? "deflate" : "";
	f = strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!f) {
		rc = error_errno("cannot create '%s'", out);
		goto done;
	}
	const char *name = strrchr(first, '/') ? strrchr(first, '/') + 1
					       : first;
	if (embed) {
		char *dn = ename ? NULL : default_name(first);
		write_embed(f, ename ? ename : dn, name, trace, tl, packed, pl,
			    ini);
		free(dn);
	}
	for (const char *p = tpl; p && *p;) {
		const char *at = strchr(p, '@');
		if (!at) {
			fputs(p, f);
			break;
		}
		fwrite(p, 1, (size_t)(at - p), f);
		if (!strncmp(at, "@WASM@", 6)) {
			b64_part(f, wpacked, wpl, wasm, wl);
			p = at + 6;
		} else if (!strncmp(at, "@WASMCODING@", 12)) {
			fputs(wcoding, f);
			p = at + 12;
		} else if (!strncmp(at, "@TRACE@", 7)) {
			b64_part(f, packed, pl, trace, tl);
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
		} else if (!strncmp(at, "@OPTS@", 6)) {
			if (ini->start >= 0)
				fprintf(f, " data-start=\"%lld\"",
					(long long)ini->start);
			if (ini->duration > 0)
				fprintf(f, " data-duration=\"%lld\"",
					(long long)ini->duration);
			if (ini->counters.n) {
				fputs(" data-counters=\"", f);
				counters_b64(f, ini);
				fputc('"', f);
			}
			p = at + 6;
		} else if (!strncmp(at, "@PAIR@", 6)) {
			if (trace2)
				write_second(f, trp->path[1], trace2, tl2,
					     packed2, pl2);
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
	if (bad)
		rc = error("cannot write '%s'", out);
done:
	free(wpacked);
	free(packed);
	free(packed2);
	free(trace);
	free(trace2);
	free(wasm);
	free(js);
	free(tpl);
	return rc;
}

int cmd_html(int argc, char **argv)
{
	const char *out = NULL, *ename = NULL;
	int embed = 0, runtime = 0, compare = 0, merge = 0;
	struct initial ini = {-1, -1, {0}, 0, NULL, NULL};
	struct traces tr = {0};
	const struct opt opts[] = {
		{"-o", NULL, "OUT",
		 "the page (or with --embed, --embed-runtime: "
		 "the script) to write (- for standard output)",
		 OPT_STRING, &out},
		{"--embed", NULL, NULL,
		 "write a script that registers the trace "
		 "with the runtime of --embed-runtime, for a page of several "
		 "viewers (<div class=\"weft-viewer\" data-trace=\"NAME\">)",
		 OPT_FLAG, &embed},
		{"--embed-runtime", NULL, NULL,
		 "write the script embedded "
		 "viewers share, once a page: the viewer and its WebAssembly "
		 "(no TRACE)",
		 OPT_FLAG, &runtime},
		{"--name", NULL, "NAME",
		 "with --embed: the name a page's "
		 "data-trace gives the trace (default: the trace's file name "
		 "without .weft)",
		 OPT_STRING, &ename},
		{"--start", NULL, "T",
		 "show first from T after the start of "
		 "the trace (2.5ms, 120us, 1.2s; a bare number is seconds); "
		 "past the end of the trace is an error",
		 OPT_DURATION, &ini.start, 0, 0, 1e9},
		{"--duration", NULL, "D",
		 "show first this long a time "
		 "(default: to the end of the trace)",
		 OPT_DURATION, &ini.duration, 1, 0, 1e9},
		{"--counters", NULL, "NAME,NAME",
		 "show only these counters "
		 "at first (default all; repeatable)",
		 OPT_LIST, &ini.counters},
		TRACES_OPT(&tr),
		TRACES_PAIR_OPTS(&compare, &merge),
		OPT_END,
	};
	const struct cmd_usage u = {
		"html",
		"[OPTIONS] TRACE... -o OUT.html\n"
		"--embed [OPTIONS] TRACE... -o TRACE.js\n"
		"--embed-runtime -o weft-viewer.js",
		"Writes one self-contained HTML file: the viewer (compiled to "
		"WebAssembly), its script and the trace, which a browser opens "
		"from disk with no network, with the picture, keys and "
		"controls of weft view.  For a page of several viewers, "
		"--embed-runtime writes the viewer's script (once a page) and "
		"--embed one script a trace.  Two whole runs of one program "
		"are compared, one above the other (--compare, --merge: the "
		"rule in weft(1); not with --embed).",
		opts,
		0,
	};
	int rc = parse_operands(&u, argc, argv, &tr);
	if (rc < 0 && runtime &&
	    (embed || tr.n || ename || ini.start >= 0 || ini.duration > 0 ||
	     ini.counters.n))
		rc = opts_error(&u, "--embed-runtime takes no trace and no "
				    "other option but -o");
	else if (rc < 0 && embed && compare)
		rc = opts_error(&u, "--compare: --embed writes one trace "
				    "(a page of two runs is weft html GOOD "
				    "BAD -o OUT.html)");
	else if (rc < 0 && ename && !embed)
		rc = opts_error(&u, "--name needs --embed");
	else if (rc < 0 && !out)
		rc = opts_usage(&u);
	else if (rc < 0 && runtime)
		rc = write_runtime(out);
	else if (rc < 0 && !tr.n)
		rc = opts_usage(&u);
	else if (rc < 0 && split_counters(&ini))
		die("out of memory");
	else if (rc < 0 && !embed &&
		 (compare = traces_pair(&u, &tr, compare, merge)) == 2)
		rc = 2;
	if (rc < 0)
		rc = html(&tr, out, embed, ename, &ini, compare == 1);
	traces_release(&tr);
	for (int i = 0; ini.copy && i < ini.counters.n; i++)
		free(ini.copy[i]);
	free(ini.copy);
	free(ini.names);
	free(ini.counters.v);
	return rc;
}
