/* SPDX-License-Identifier: MIT */
/*
 * label.c - the labels of the shims' async threads ("read fd 7 ->
 * on_read"): callback names, a label builder, and a per-thread cache of
 * the labels made over and over, whose texts live in an arena that is
 * never freed so that the trace interns each once.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "shim.h"

/* C++ callbacks (Node.js hands libuv its own) have mangled names: they
 * are demangled by the C++ runtime's __cxa_demangle, found in the process
 * (a program with C++ in it has it loaded) or, the first time a mangled
 * name comes in a program that has none, loaded then; a C program that
 * never meets one never loads it. */
static char *(*demangler)(const char *, char *, size_t *, int *);
static pthread_once_t demangler_once = PTHREAD_ONCE_INIT;

static void find_demangler(void)
{
	void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (!f) {
		void *lib = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (lib)
			f = dlsym(lib, "__cxa_demangle");
	}
	*(void **)&demangler = f;
}

/* Copies the name with its parameter lists left out, which a label does
 * not need: "node::Environment::CheckImmediate(uv_check_s*)" becomes
 * "node::Environment::CheckImmediate", and a lambda made into a function
 * pointer, "ns::f()::{lambda(uv_handle_s*)#1}::_FUN(uv_handle_s*)",
 * "ns::f::{lambda#1}".  Templates' arguments stay.  1 if the name did not
 * fit in out[cap] and was cut. */
static int shorten(char *out, size_t cap, const char *dm)
{
	size_t n = 0;
	const char *p = dm;
	int angle = 0;
	while (*p && n + 1 < cap) {
		if (*p == '<')
			angle++;
		else if (*p == '>' && angle > 0)
			angle--;
		if (*p != '(' || angle > 0 ||
		    !strncmp(p, "(anonymous namespace)", 21) ||
		    (p - dm >= 8 && !strncmp(p - 8, "operator", 8))) {
			out[n++] = *p++;
			continue;
		}
		int depth = 0; /* a parameter list: skip it */
		do {
			depth += *p == '(';
			depth -= *p == ')';
			p++;
		} while (*p && depth > 0);
		while (!strncmp(p, " const", 6) || !strncmp(p, " &", 2))
			p += p[1] == '&' ? (p[2] == '&' ? 3 : 2) : 6;
	}
	int cut = *p != 0;
	out[n] = 0;
	if (!cut && n >= 6 && !strcmp(out + n - 6, "::_FUN"))
		out[n - 6] = 0;
	return cut;
}

/* dladdr walks symbol tables (microseconds): each OS thread caches the
 * names it has looked up.  A name longer than the cache's 95 bytes is cut
 * there (at a UTF-8 boundary), and counted as a truncated text each time
 * a label takes it, as the recorder counts the texts it cuts. */
#define NAME_CACHE 16
static __thread struct {
	const void *cb;
	char name[96];
	unsigned char cut;
} name_cache[NAME_CACHE];

/* Copies `s` into out[cap]; 1 if it had to be cut. */
static int copy_name(char *out, size_t cap, const char *s)
{
	size_t n = strlen(s);
	int cut = n >= cap;
	if (cut) {
		n = cap - 1;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(out, s, n);
	out[n] = 0;
	return cut;
}

const char *weft__shim_cb_name(const void *cb)
{
	if (!cb)
		return "(no callback)";
	unsigned i = (unsigned)(((uintptr_t)cb >> 4) % NAME_CACHE);
	if (name_cache[i].cb != cb) {
		char *name = name_cache[i].name;
		size_t cap = sizeof name_cache[i].name;
		char where[4200];
		int cut = 0;
		Dl_info di;
		char *dm = NULL;
		if (!dladdr(cb, &di)) {
			snprintf(name, cap, "%p", cb);
		} else if (!di.dli_sname) {
			/* no symbol (a static function, a program linked
			 * without -rdynamic): where it is, which does not
			 * change from run to run */
			const char *f = di.dli_fname ? di.dli_fname : "?";
			const char *slash = strrchr(f, '/');
			snprintf(where, sizeof where, "%.4000s+0x%lx",
				 slash ? slash + 1 : f,
				 (unsigned long)((uintptr_t)cb -
						 (uintptr_t)di.dli_fbase));
			cut = copy_name(name, cap, where);
		} else if (di.dli_sname[0] == '_' && di.dli_sname[1] == 'Z' &&
			   !pthread_once(&demangler_once, find_demangler) &&
			   demangler &&
			   (dm = demangler(di.dli_sname, NULL, NULL, NULL))) {
			/* (shortened in full first: what is cut is what
			 * the label would have shown) */
			cut = shorten(where, sizeof where, dm);
			free(dm);
			cut |= copy_name(name, cap, where);
		} else {
			cut = copy_name(name, cap, di.dli_sname);
		}
		name_cache[i].cb = cb;
		name_cache[i].cut = (unsigned char)cut;
	}
	if (name_cache[i].cut)
		weft__count_truncated();
	return name_cache[i].name;
}

void weft__shim_lb_str(struct shim_lb *b, const char *p)
{
	size_t k = strlen(p);
	if (k > sizeof b->s - 1 - b->n) {
		/* (a label longer than the builder: cut and counted) */
		k = sizeof b->s - 1 - b->n;
		while (k > 0 && ((unsigned char)p[k] & 0xC0) == 0x80)
			k--;
		weft__count_truncated();
	}
	memcpy(b->s + b->n, p, k);
	b->n += k;
	b->s[b->n] = 0;
}

void weft__shim_lb_num(struct shim_lb *b, long long v)
{
	char tmp[24];
	int i = sizeof tmp - 1;
	unsigned long long u = v < 0 ? 0 - (unsigned long long)v
				     : (unsigned long long)v;
	tmp[i] = 0;
	do
		tmp[--i] = (char)('0' + u % 10);
	while ((u /= 10) && i > 1);
	if (v < 0)
		tmp[--i] = '-';
	weft__shim_lb_str(b, tmp + i);
}

void weft__shim_label(uint64_t id, const void *cb, const char *fmt, ...)
{
	struct shim_lb b;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b.s, sizeof b.s, fmt, ap);
	va_end(ap);
	b.n = n < 0 ? 0 : (size_t)n < sizeof b.s ? (size_t)n : sizeof b.s - 1;
	weft__shim_lb_str(&b, " -> ");
	weft__shim_lb_str(&b, weft__shim_cb_name(cb));
	weft_label(id, b.s);
}

/* Label texts that the trace interns by address (weft_create_label: a
 * two-byte name in the event instead of the text) must never change: they
 * are kept here, in chunks that are never freed, 1 MiB in all (the trace's
 * name table is full long before: 64 KiB of strings).  Past that, labels
 * go as text.  WEFT_UV_LABEL_ARENA=BYTES sets the limit (tests). */
#define LABEL_CHUNK 4096
static unsigned long label_arena_total, label_arena_max;
static pthread_once_t arena_once = PTHREAD_ONCE_INIT;
static __thread char *arena_pos, *arena_end;

static void arena_init(void)
{
	const char *e = getenv("WEFT_UV_LABEL_ARENA");
	label_arena_max = e && *e ? strtoul(e, NULL, 0) : 1ul << 20;
}

static const char *arena_copy(const char *text, size_t n)
{
	if ((size_t)(arena_end - arena_pos) < n + 1) {
		pthread_once(&arena_once, arena_init);
		if (n + 1 > LABEL_CHUNK ||
		    __atomic_add_fetch(&label_arena_total, LABEL_CHUNK,
				       __ATOMIC_RELAXED) > label_arena_max)
			return NULL;
		void *p = mmap(NULL, LABEL_CHUNK, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		arena_pos = p;
		arena_end = arena_pos + LABEL_CHUNK;
	}
	char *r = arena_pos;
	memcpy(r, text, n + 1);
	arena_pos += n + 1;
	return r;
}

/* The labels made over and over — each read activation of a stream, each
 * write of the same size on it — are the same text: each OS thread keeps
 * the last few, keyed by what they are made of, so that making one is a
 * comparison. */
#define LCACHE 32
#define LWAYS 4
static __thread struct {
	const char *p1, *p2; /* string constants: compared by address */
	long long n1, n2;
	const void *cb;
	const char *s; /* in the arena */
} lcache[LCACHE];
/* per set: the way to replace next (round robin) */
static __thread uint8_t lcache_next[LCACHE / LWAYS];

const char *weft__shim_cached_label(struct shim_lb *b, const char *p1,
				    long long n1, const char *p2, long long n2,
				    const void *cb)
{
	uint64_t k = ((uint64_t)(uintptr_t)p1 ^ (uint64_t)(uintptr_t)cb ^
		      (uint64_t)(uintptr_t)p2) +
		     (uint64_t)n1 * 0x9E3779B97F4A7C15ull +
		     (uint64_t)n2 * 0xC2B2AE3D27D4EB4Full;
	/* Four ways: the slots set .. set + 3.  With two, three labels of
	 * one set (one chance in twenty for the four labels of an echo
	 * server, depending on where things were loaded) evicted each other
	 * on every call. */
	unsigned set =
		(unsigned)((k ^ (k >> 31)) * 0x9E3779B97F4A7C15ull >> 61) %
		(LCACHE / LWAYS) * LWAYS;
	for (unsigned i = set; i < set + LWAYS; i++)
		if (lcache[i].p1 == p1 && lcache[i].p2 == p2 &&
		    lcache[i].n1 == n1 && lcache[i].n2 == n2 &&
		    lcache[i].cb == cb && lcache[i].s)
			return lcache[i].s;
	weft__shim_lb_init(b);
	weft__shim_lb_str(b, p1);
	if (n1 != NO_NUM)
		weft__shim_lb_num(b, n1);
	if (p2) {
		weft__shim_lb_str(b, p2);
		if (n2 != NO_NUM)
			weft__shim_lb_num(b, n2);
	}
	if (cb != SHIM_NO_CB) {
		weft__shim_lb_str(b, " -> ");
		weft__shim_lb_str(b, weft__shim_cb_name(cb));
	}
	const char *kept = arena_copy(b->s, b->n);
	if (kept) {
		unsigned i = set + lcache_next[set / LWAYS];
		lcache[i].p1 = p1;
		lcache[i].p2 = p2;
		lcache[i].n1 = n1;
		lcache[i].n2 = n2;
		lcache[i].cb = cb;
		lcache[i].s = kept;
		lcache_next[set / LWAYS] =
			(uint8_t)((lcache_next[set / LWAYS] + 1) % LWAYS);
	}
	return kept;
}

void weft__shim_create_text(uint64_t id, const char *kind,
			    const struct shim_lb *b)
{
	weft_create(id, kind);
	weft_label(id, b->s);
}
