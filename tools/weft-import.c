/* SPDX-License-Identifier: MIT */
/*
 * weft-import.c - `weft import --otlp FILE -o OUT` (cmd-import.c runs
 * it): spans that `weft export --otlp` wrote, recorded back into a ring
 * with libweft's own API on the manual clock, so that every reader makes
 * of it the same async threads and arrows.  A program of its own because
 * it links libweft, which the weft command never loads.
 *
 * Each arrow link (weft.arrow, weft.arrow.out, weft.arrow.time,
 * weft.arrow.seq) is replayed by the thread that did it, in the order of
 * the original arrows (seq): a creation is weft_create() run by the
 * creator, a read weft_read() run by the reader, and so on; labels and
 * notes (span events) are replayed at their times, after the arrows of
 * the same instant.  What is not replayed: OS threads (all become the one
 * OS thread of this program: id 0), runs (a thread runs only at the
 * instants it acts), processes, and messages between processes (their
 * reads come back as plain reads).  For `weft fetch` across hosts
 * (cmd-fetch.c): span events weft.sent and weft.received (weft.chan,
 * weft.off, weft.len) are replayed as the thread's sent and received
 * events, and MACHINE names the machine the ring says it was written on
 * (its boot id a hash of the name), so that a merge of such rings pairs
 * their messages and aligns their clocks.
 *
 * Usage: weft-import FILE OUT [MACHINE]; exit 0, or 1 with a message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weft/weft.h>

#include "otlp.h"
#include "pb.h"
#include "common/format.h"
#include "common/grow.h"

struct span {
	uint64_t sid;
	uint64_t id;
	int root, should;
	const char *kind; /* in the file's bytes: copied when used */
	size_t kind_len;
	const char *msg;
	size_t msg_len;
	int64_t start;
};

enum act_type { ACT_ARROW, ACT_LABEL, ACT_NOTE, ACT_SENT, ACT_RECEIVED };

struct act {
	int64_t t;
	uint64_t seq;
	int type;
	int kind;	   /* arrows: enum weft_arrow_kind */
	uint32_t from, to; /* span indexes (labels: to) */
	uint64_t other;	   /* while reading: the other span's id */
	int out;
	const char *text;
	size_t len;
	uint64_t chan, off, bytes; /* ACT_SENT, ACT_RECEIVED */
};

static struct span *sp;
static size_t nsp, capsp;
static struct act *acts;
static size_t nacts, capacts;
static const char *file;

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (weft__grow_to(&p, cap, n + 1, size, 1024, SIZE_MAX)) {
		fprintf(stderr, "weft: out of memory\n");
		exit(1);
	}
	return p;
}

static void bad(const char *what)
{
	fprintf(stderr, "weft: '%s' is not an OTLP export of weft: %s\n", file,
		what);
	exit(1);
}

struct val {
	int type; /* 1 string, 2 bool, 3 int */
	const uint8_t *s;
	size_t len;
	int64_t i;
};

/* A KeyValue: its key (NUL-less, key/klen) and value. */
static void keyvalue(const uint8_t *p, size_t n, const uint8_t **key,
		     size_t *klen, struct val *v)
{
	struct pb_in in = {p, p + n}, vin;
	struct pb_field f;
	int rc;
	*key = NULL;
	*klen = 0;
	memset(v, 0, sizeof *v);
	while ((rc = pb_next(&in, &f)) > 0) {
		if (f.field == 1 && f.wire == PB_LEN) {
			*key = f.data;
			*klen = f.len;
		} else if (f.field == 2 && f.wire == PB_LEN) {
			vin = (struct pb_in){f.data, f.data + f.len};
			struct pb_field g;
			while ((rc = pb_next(&vin, &g)) > 0) {
				if (g.field == 1 && g.wire == PB_LEN) {
					v->type = 1;
					v->s = g.data;
					v->len = g.len;
				} else if ((g.field == 2 || g.field == 3) &&
					   g.wire == PB_VARINT) {
					v->type = (int)g.field;
					v->i = (int64_t)g.v;
				}
			}
			if (rc < 0)
				bad("a malformed attribute value");
		}
	}
	if (rc < 0)
		bad("a malformed attribute");
}

static int is(const uint8_t *k, size_t kl, const char *name)
{
	return kl == strlen(name) && !memcmp(k, name, kl);
}

static uint64_t id8(const struct pb_field *f)
{
	uint64_t v = 0;
	if (f->wire != PB_LEN || f->len != 8)
		bad("a span id not of 8 bytes");
	for (int i = 0; i < 8; i++)
		v = v << 8 | f->data[i];
	return v;
}

static int arrow_kind(const uint8_t *s, size_t len)
{
	char buf[16];
	for (int k = 0; k < WEFT_ARROW_KINDS; k++) {
		const char *t = otlp_arrow_token(k, buf);
		if (len == strlen(t) && !memcmp(s, t, len))
			return k;
	}
	return -1;
}

static void link(const uint8_t *p, size_t n, uint32_t self)
{
	struct pb_in in = {p, p + n};
	struct pb_field f;
	int rc, kind = -1, out = -1, arrow = 0, have_t = 0, have_seq = 0;
	uint64_t other = 0, seq = 0;
	int64_t t = 0;
	while ((rc = pb_next(&in, &f)) > 0) {
		if (f.field == 2)
			other = id8(&f);
		else if (f.field == 4 && f.wire == PB_LEN) {
			const uint8_t *k;
			size_t kl;
			struct val v;
			keyvalue(f.data, f.len, &k, &kl, &v);
			if (is(k, kl, "weft.link"))
				arrow = v.type == 1 && v.len == 5 &&
					!memcmp(v.s, "arrow", 5);
			else if (is(k, kl, "weft.arrow") && v.type == 1)
				kind = arrow_kind(v.s, v.len);
			else if (is(k, kl, "weft.arrow.out") && v.type == 2)
				out = v.i != 0;
			else if (is(k, kl, "weft.arrow.time") && v.type == 3) {
				t = v.i;
				have_t = 1;
			} else if (is(k, kl, "weft.arrow.seq") && v.type == 3) {
				seq = (uint64_t)v.i;
				have_seq = 1;
			}
		}
	}
	if (rc < 0)
		bad("a malformed link");
	if (!arrow)
		return;
	if (kind < 0 || out < 0 || !have_t || !have_seq)
		bad("an arrow link without its weft.arrow, weft.arrow.out, "
		    "weft.arrow.time and weft.arrow.seq");
	acts = grow(acts, &capacts, nacts, sizeof *acts);
	acts[nacts++] = (struct act){.t = t,
				     .seq = seq,
				     .type = ACT_ARROW,
				     .kind = kind,
				     .from = self,
				     .other = other,
				     .out = out};
}

static void event(const uint8_t *p, size_t n, uint32_t self)
{
	struct pb_in in = {p, p + n};
	struct pb_field f;
	int rc, type = -1, have = 0;
	int64_t t = 0;
	const uint8_t *text = NULL;
	size_t len = 0;
	uint64_t m[3] = {0, 0, 0};
	while ((rc = pb_next(&in, &f)) > 0) {
		if (f.field == 1 && f.wire == PB_FIXED64)
			t = (int64_t)f.v;
		else if (f.field == 2 && f.wire == PB_LEN)
			type = f.len == 10 && !memcmp(f.data, "weft.label", 10)
				       ? ACT_LABEL
			       : f.len == 9 && !memcmp(f.data, "weft.note", 9)
				       ? ACT_NOTE
			       : f.len == 9 && !memcmp(f.data, "weft.sent", 9)
				       ? ACT_SENT
			       : f.len == 13 && !memcmp(f.data, "weft.received",
							13)
				       ? ACT_RECEIVED
				       : -1;
		else if (f.field == 3 && f.wire == PB_LEN) {
			const uint8_t *k;
			size_t kl;
			struct val v;
			keyvalue(f.data, f.len, &k, &kl, &v);
			if (is(k, kl, "weft.text") && v.type == 1) {
				text = v.s;
				len = v.len;
			} else if (v.type == 3) {
				/* a message end (weft fetch's): its channel,
				 * offset and bytes */
				int i = is(k, kl, "weft.chan")	? 0
					: is(k, kl, "weft.off") ? 1
					: is(k, kl, "weft.len") ? 2
								: -1;
				if (i >= 0) {
					m[i] = (uint64_t)v.i;
					have |= 1 << i;
				}
			}
		}
	}
	if (rc < 0)
		bad("a malformed event");
	if (type == ACT_SENT || type == ACT_RECEIVED) {
		if (have != 7)
			bad("a message end without its weft.chan, weft.off "
			    "and weft.len");
		acts = grow(acts, &capacts, nacts, sizeof *acts);
		acts[nacts++] = (struct act){.t = t,
					     .seq = UINT64_MAX,
					     .type = type,
					     .to = self,
					     .chan = m[0],
					     .off = m[1],
					     .bytes = m[2]};
		return;
	}
	if (type < 0 || !text)
		return;
	acts = grow(acts, &capacts, nacts, sizeof *acts);
	acts[nacts++] = (struct act){.t = t,
				     .seq = UINT64_MAX,
				     .type = type,
				     .to = self,
				     .text = (const char *)text,
				     .len = len};
}

static void span(const uint8_t *p, size_t n)
{
	struct pb_in in = {p, p + n};
	struct pb_field f;
	int rc;
	sp = grow(sp, &capsp, nsp, sizeof *sp);
	uint32_t self = (uint32_t)nsp;
	struct span *s = &sp[nsp++];
	memset(s, 0, sizeof *s);
	int have_id = 0;
	while ((rc = pb_next(&in, &f)) > 0) {
		if (f.field == 2)
			s->sid = id8(&f);
		else if (f.field == 7 && f.wire == PB_FIXED64)
			s->start = (int64_t)f.v;
		else if (f.field == 9 && f.wire == PB_LEN) {
			const uint8_t *k;
			size_t kl;
			struct val v;
			keyvalue(f.data, f.len, &k, &kl, &v);
			if (is(k, kl, "weft.id") && v.type == 3) {
				s->id = (uint64_t)v.i;
				have_id = 1;
			} else if (is(k, kl, "weft.kind") && v.type == 1) {
				s->kind = (const char *)v.s;
				s->kind_len = v.len;
			} else if (is(k, kl, "weft.os_thread"))
				s->root = v.i != 0;
			else if (is(k, kl, "weft.should_resolve"))
				s->should = v.i != 0;
		} else if (f.field == 11 && f.wire == PB_LEN)
			event(f.data, f.len, self);
		else if (f.field == 13 && f.wire == PB_LEN)
			link(f.data, f.len, self);
		else if (f.field == 15 && f.wire == PB_LEN) {
			struct pb_in st = {f.data, f.data + f.len};
			struct pb_field g;
			while (pb_next(&st, &g) > 0)
				if (g.field == 2 && g.wire == PB_LEN) {
					s->msg = (const char *)g.data;
					s->msg_len = g.len;
				}
		}
	}
	if (rc < 0)
		bad("a malformed span");
	if (!have_id)
		bad("a span without weft.id");
}

/* Walks a message's fields `path` deep down to spans. */
static void message(const uint8_t *p, size_t n, int depth)
{
	struct pb_in in = {p, p + n};
	struct pb_field f;
	int rc;
	while ((rc = pb_next(&in, &f)) > 0) {
		if (f.wire != PB_LEN)
			continue;
		if (depth == 0 && f.field == 1) /* ResourceSpans */
			message(f.data, f.len, 1);
		else if (depth == 1 && f.field == 2) /* ScopeSpans */
			message(f.data, f.len, 2);
		else if (depth == 2 && f.field == 2) /* Span */
			span(f.data, f.len);
	}
	if (rc < 0)
		bad("a malformed message");
}

static int by_sid(const void *a, const void *b)
{
	uint64_t x = ((const struct span *)a)->sid,
		 y = ((const struct span *)b)->sid;
	return x < y ? -1 : x > y;
}

static uint32_t find(uint64_t sid)
{
	size_t lo = 0, hi = nsp;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sp[mid].sid < sid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nsp && sp[lo].sid == sid ? (uint32_t)lo : UINT32_MAX;
}

static int by_time(const void *a, const void *b)
{
	const struct act *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static char *dup(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (!d) {
		fprintf(stderr, "weft: out of memory\n");
		exit(1);
	}
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

/* A kind, as a string that lives as long as the program: libweft
 * interns names by their address (a kind is meant to be a literal). */
static const char *intern(const char *s, size_t n)
{
	static char **names;
	static size_t nnames, capnames;
	for (size_t i = 0; i < nnames; i++)
		if (strlen(names[i]) == n && !memcmp(names[i], s, n))
			return names[i];
	names = grow(names, &capnames, nnames, sizeof *names);
	return names[nnames++] = dup(s, n);
}

static uint64_t wid(uint32_t s)
{
	return sp[s].root ? 0 : sp[s].id;
}

/* weft fetch's scratch rings (MACHINE given): the ring says it was
 * written on the machine `name`, its boot id a hash of the name, so that
 * a merge of the rings of several hosts aligns their clocks by their
 * messages (clocks.c) as it does the hosts' own traces. */
static int machine(const char *path, const char *name)
{
	struct weft__fmach m;
	FILE *f = fopen(path, "r+be");
	if (!f || fseek(f, WEFT_MACH_OFF, SEEK_SET) ||
	    fread(&m, sizeof m, 1, f) != 1) {
		fprintf(stderr, "weft: cannot read '%s' back\n", path);
		if (f)
			fclose(f);
		return 1;
	}
	memset(m.host, 0, sizeof m.host);
	snprintf(m.host, sizeof m.host, "%s", name);
	uint64_t h = 0xcbf29ce484222325u, g = 0x84222325cbf29ce4u;
	for (const char *p = name; *p; p++) {
		h = (h ^ (uint8_t)*p) * 0x100000001b3u;
		g = (g ^ (uint8_t)*p) * 0x1000193u + h;
	}
	memcpy(m.boot_id, &h, 8);
	memcpy(m.boot_id + 8, &g, 8);
	m.boot_id[0] |= 1; /* (all 0 says: not known) */
	int bad = fseek(f, WEFT_MACH_OFF, SEEK_SET) ||
		  fwrite(&m, sizeof m, 1, f) != 1;
	if (fclose(f) || bad) {
		fprintf(stderr, "weft: cannot write '%s'\n", path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: weft-import FILE OUT [MACHINE]\n");
		return 2;
	}
	file = argv[1];
	FILE *f = strcmp(file, "-") ? fopen(file, "rb") : stdin;
	if (!f) {
		fprintf(stderr, "weft: cannot open '%s': %s\n", file,
			strerror(errno));
		return 1;
	}
	size_t n = 0, cap = 1 << 16;
	uint8_t *buf = malloc(cap);
	for (size_t k; buf && (k = fread(buf + n, 1, cap - n, f)) > 0;) {
		n += k;
		if (n == cap && WEFT_GROW(buf, cap, n + 1)) {
			free(buf);
			buf = NULL;
		}
	}
	if (!buf || ferror(f)) {
		fprintf(stderr, "weft: cannot read '%s'\n", file);
		return 1;
	}
	if (f != stdin)
		fclose(f);
	/* varint-delimited messages */
	const uint8_t *p = buf, *end = buf + n;
	while (p < end) {
		uint64_t len;
		if (pb_get_varint(&p, end, &len) || len > (uint64_t)(end - p)) {
			char what[80];
			snprintf(what, sizeof what,
				 "a message's length cut short at byte %zu",
				 (size_t)(p - buf));
			bad(what);
		}
		message(p, (size_t)len, 0);
		p += len;
	}
	if (!nsp)
		bad("no spans");
	/* resolve the links' other ends, then the order */
	struct span *orig = malloc(nsp * sizeof *orig);
	if (!orig)
		return fprintf(stderr, "weft: out of memory\n"), 1;
	memcpy(orig, sp, nsp * sizeof *sp);
	qsort(sp, nsp, sizeof *sp, by_sid);
	for (size_t i = 1; i < nsp; i++)
		if (sp[i].sid == sp[i - 1].sid)
			bad("two spans with one span id");
	/* the actions' span indexes were in file order: map them */
	for (size_t i = 0; i < nacts; i++) {
		struct act *a = &acts[i];
		uint32_t self =
			find(orig[a->type == ACT_ARROW ? a->from : a->to].sid);
		if (a->type != ACT_ARROW) {
			a->to = self;
			continue;
		}
		uint32_t other = find(a->other);
		if (other == UINT32_MAX)
			bad("a link to a span that is not in the file");
		a->from = a->out ? self : other;
		a->to = a->out ? other : self;
	}
	free(orig);
	qsort(acts, nacts, sizeof *acts, by_time);
	int64_t t0 = acts ? acts[0].t : 0;
	for (size_t i = 0; i < nsp; i++)
		if (sp[i].start < t0)
			t0 = sp[i].start;
	int rc = weft_start(argv[2], (size_t)(nacts + nsp) * 96 + (4u << 20),
			    WEFT_CLOCK_MANUAL);
	if (rc) {
		fprintf(stderr, "weft: cannot create '%s': %s\n", argv[2],
			weft_strerror(rc));
		return 1;
	}
	uint64_t cur = UINT64_MAX;
	for (size_t i = 0; i < nacts; i++) {
		const struct act *a = &acts[i];
		weft_clock_set((uint64_t)(a->t - t0) + 1000);
		if (a->type == ACT_SENT || a->type == ACT_RECEIVED) {
			if (a->type == ACT_SENT)
				weft_sent(wid(a->to), a->chan, a->off,
					  a->bytes);
			else
				weft_received(wid(a->to), a->chan, a->off,
					      a->bytes);
			continue;
		}
		if (a->type != ACT_ARROW) {
			char *text = dup(a->text, a->len);
			if (a->type == ACT_LABEL)
				weft_label(wid(a->to), text);
			else
				weft_note(wid(a->to), text);
			free(text);
			continue;
		}
		/* the thread that acted: the reader of a read, the
		 * successor of a become, else `from` */
		int by_to = a->kind == WEFT_ARROW_READ ||
			    a->kind == WEFT_ARROW_READ_FAILED;
		uint64_t actor = wid(by_to ? a->to : a->from);
		if (actor != cur) {
			weft_run(actor);
			cur = actor;
		}
		uint64_t from = wid(a->from), to = wid(a->to);
		const struct span *t = &sp[a->to];
		switch (a->kind) {
		case WEFT_ARROW_CREATE: {
			weft_create(to, intern(t->kind ? t->kind : "",
					       t->kind_len));
			if (t->should)
				weft_should_resolve(to);
			break;
		}
		case WEFT_ARROW_READ:
		case WEFT_ARROW_READ_FAILED:
			weft_read(from);
			break;
		case WEFT_ARROW_TRY_READ:
			weft_try_read(to);
			break;
		case WEFT_ARROW_RESOLVE:
			weft_resolve(to);
			break;
		case WEFT_ARROW_FAIL: {
			char *msg = dup(t->msg ? t->msg : "", t->msg_len);
			weft_fail(to, msg);
			free(msg);
			break;
		}
		case WEFT_ARROW_SIGNAL:
			weft_signal(to);
			break;
		case WEFT_ARROW_BECOME:
			weft_becomes(from, to);
			break;
		case WEFT_ARROW_CANCEL:
			weft_cancel(to);
			break;
		}
	}
	weft_run(0);
	rc = weft_stop();
	free(buf);
	if (rc) {
		fprintf(stderr, "weft: cannot write '%s': %s\n", argv[2],
			weft_strerror(rc));
		return 1;
	}
	if (argc == 4 && machine(argv[2], argv[3]))
		return 1;
	fprintf(stderr, "weft: imported %zu spans, %zu arrows and labels\n",
		nsp, nacts);
	return 0;
}
