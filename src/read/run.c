/* SPDX-License-Identifier: MIT */
/*
 * run.c - a run's manifest and bundles.
 *
 * The manifest is text that every traced process of a run appends to, one
 * line per fact, each line written whole by one write(2) on a file opened
 * with O_APPEND (so lines of different processes never mix):
 *
 *   weft-run version=1 session=HEX                       weft record, first
 *   fork pid= ppid= tid= by= spawn= t= real=     the child, at fork
 *   spawn pid= child= tid= by= spawn= fork= t= real=
 *                                                the parent, after
 *                                                posix_spawn or fork
 *   proc pid= ppid= start= t= real= boot= host= exe= arg=...
 *                                                each image, at load
 *   ring pid= file= t=                           at its first event
 *   exit pid= status= ppid= t=                   at exit(), _exit()
 *   reaped pid= status=|signal= by= t=           a parent at wait (by=
 *                                                its pid), weft record
 *
 * Values are %XX-escaped (bytes up to space, '%', DEL); unknown line
 * kinds and keys are skipped, so that a later writer may say more.  Every
 * byte is hostile: a line that does not parse is counted and skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/manifest.h"
#include "run.h"
#include "common/grow.h"

#define KEY(ID) weft_mkey_word(WEFT_MK_##ID)

#define NONE UINT32_MAX
#define MAX_ARGS 4096
#define MAX_LINE 65536

/* ------------------------------------------------------------ manifest */

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The value at v (n bytes), unescaped into a new string, valid UTF-8. */
static char *unescape(const char *v, size_t n)
{
	char *raw = malloc(n + 1);
	if (!raw)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		int a, b;
		if (v[i] == '%' && i + 2 < n && (a = hexval(v[i + 1])) >= 0 &&
		    (b = hexval(v[i + 2])) >= 0) {
			raw[k++] = (char)(a * 16 + b);
			i += 2;
		} else
			raw[k++] = v[i];
	}
	/* a NUL escaped in the middle ends the text */
	size_t len = strnlen(raw, k);
	char *out = malloc(len * 3 + 1);
	if (out)
		weft_utf8_fix(out, len * 3 + 1, raw, len);
	free(raw);
	return out;
}

static int num(const char *v, size_t n, uint64_t *out, int base)
{
	if (!n || n > 20)
		return -1;
	uint64_t x = 0;
	for (size_t i = 0; i < n; i++) {
		int d = hexval(v[i]);
		if (d < 0 || d >= base)
			return -1;
		if (x > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -1;
		x = x * (uint64_t)base + (uint64_t)d;
	}
	*out = x;
	return 0;
}

static int snum(const char *v, size_t n, int64_t *out)
{
	int neg = n && v[0] == '-';
	uint64_t x;
	if (num(v + neg, n - (size_t)neg, &x, 10) || x > INT64_MAX)
		return -1;
	*out = neg ? -(int64_t)x : (int64_t)x;
	return 0;
}

/* One line's fields. */
struct fields {
	const char *kind;
	size_t kindn;
	struct {
		const char *k, *v;
		size_t kn, vn;
	} f[64 + MAX_ARGS];
	unsigned n;
};

static int split(const char *s, size_t len, struct fields *fl)
{
	size_t i = 0;
	fl->n = 0;
	fl->kind = s;
	while (i < len && s[i] != ' ')
		i++;
	fl->kindn = i;
	while (i < len) {
		while (i < len && s[i] == ' ')
			i++;
		if (i == len)
			break;
		size_t a = i;
		while (i < len && s[i] != ' ')
			i++;
		const char *eq = memchr(s + a, '=', i - a);
		if (!eq)
			return -1;
		if (fl->n == sizeof fl->f / sizeof *fl->f)
			return -1;
		fl->f[fl->n].k = s + a;
		fl->f[fl->n].kn = (size_t)(eq - (s + a));
		fl->f[fl->n].v = eq + 1;
		fl->f[fl->n].vn = (size_t)(s + i - (eq + 1));
		fl->n++;
	}
	return 0;
}

static int is(const char *k, size_t kn, const char *want)
{
	return kn == strlen(want) && !memcmp(k, want, kn);
}

static uint32_t slot_of(uint32_t pid, uint32_t cap)
{
	return (uint32_t)(((uint64_t)pid * 0x9E3779B97F4A7C15ull) >> 32) &
	       (cap - 1);
}

/* The latest entry of `pid`, or NONE. */
static uint32_t latest_of(const struct manifest *m, uint32_t pid)
{
	if (!m->lcap)
		return NONE;
	for (uint32_t i = slot_of(pid, m->lcap);; i = (i + 1) & (m->lcap - 1)) {
		uint32_t e = m->latest[i];
		if (!e)
			return NONE;
		if (m->p[e - 1].pid == pid)
			return e - 1;
	}
}

/* The latest entry of `pid` if it has not ended, or NONE. */
static uint32_t live_of(const struct manifest *m, uint32_t pid)
{
	uint32_t i = latest_of(m, pid);
	return i != NONE && m->p[i].end == WEFT_PROC_RUNNING ? i : NONE;
}

/* Entry `at` is now the latest of its pid.  -ENOMEM, or 0. */
static int index_entry(struct manifest *m, uint32_t at)
{
	if ((m->lused + 1) * 2 > m->lcap) {
		uint32_t cap = m->lcap ? m->lcap * 2 : 64;
		uint32_t *t = calloc(cap, sizeof *t);
		if (!t)
			return -ENOMEM;
		for (uint32_t k = 0; k < m->lcap; k++) {
			uint32_t e = m->latest[k];
			if (!e)
				continue;
			uint32_t i = slot_of(m->p[e - 1].pid, cap);
			while (t[i])
				i = (i + 1) & (cap - 1);
			t[i] = e;
		}
		free(m->latest);
		m->latest = t;
		m->lcap = cap;
	}
	uint32_t pid = m->p[at].pid;
	uint32_t i = slot_of(pid, m->lcap);
	while (m->latest[i] && m->p[m->latest[i] - 1].pid != pid)
		i = (i + 1) & (m->lcap - 1);
	m->lused += !m->latest[i];
	m->p[at].prev_same = m->latest[i] ? m->latest[i] - 1 : NONE;
	m->latest[i] = at + 1;
	return 0;
}

uint32_t weft__manifest_latest(const struct manifest *m, uint32_t pid)
{
	return latest_of(m, pid);
}

static struct orphans *orphans_of(const struct manifest *m, uint32_t ppid)
{
	if (!m->ocap)
		return NULL;
	for (uint32_t i = slot_of(ppid, m->ocap);; i = (i + 1) & (m->ocap - 1))
		if (m->orph[i].ppid == ppid || !m->orph[i].ppid)
			return &m->orph[i];
}

/* Entry `at` names a parent no entry is known of yet: it waits for one.
 * -ENOMEM, or 0. */
static int wait_parent(struct manifest *m, uint32_t at)
{
	if ((m->oused + 1) * 2 > m->ocap) {
		uint32_t cap = m->ocap ? m->ocap * 2 : 16;
		struct orphans *t = calloc(cap, sizeof *t);
		if (!t)
			return -ENOMEM;
		struct manifest grown = {.orph = t, .ocap = cap};
		for (uint32_t k = 0; k < m->ocap; k++)
			if (m->orph[k].ppid)
				*orphans_of(&grown, m->orph[k].ppid) =
					m->orph[k];
		free(m->orph);
		m->orph = t;
		m->ocap = cap;
	}
	if (m->p[at].waits)
		return 0; /* (already, for this ppid: it never changes) */
	struct orphans *o = orphans_of(m, m->p[at].ppid);
	if (!o->ppid) {
		o->ppid = m->p[at].ppid;
		o->head = NONE;
		m->oused++;
	}
	m->p[at].next_orphan = o->head;
	m->p[at].waits = 1;
	o->head = at;
	return 0;
}

/* Entry `at` is a new process: those that named its pid as their parent
 * before it was known are its children. */
static void adopt(struct manifest *m, uint32_t at)
{
	struct orphans *o = orphans_of(m, m->p[at].pid);
	if (!o || !o->ppid)
		return;
	for (uint32_t k = o->head; k != NONE; k = m->p[k].next_orphan) {
		m->p[k].waits = 0;
		if (m->p[k].parent == NONE)
			m->p[k].parent = at;
		if (m->p[k].parent == at && m->p[k].want_image)
			m->p[at].kids_want_image = 1;
	}
	o->head = NONE;
}

/* The entry of `ppid` that a process starting at t had for its parent:
 * its latest, if still running then.  NONE: none known (yet). */
static uint32_t parent_at(const struct manifest *m, uint32_t ppid, int64_t t)
{
	uint32_t i = ppid ? latest_of(m, ppid) : NONE;
	if (i == NONE || m->p[i].end == WEFT_PROC_RUNNING ||
	    (t && m->p[i].t_end >= t))
		return i;
	return NONE;
}

/* Entry `at`'s parent, from its ppid: known now, or waited for.  -ENOMEM,
 * or 0. */
static int link_parent(struct manifest *m, uint32_t at, int64_t t)
{
	struct mproc *p = &m->p[at];
	p->parent = parent_at(m, p->ppid, t);
	if (p->parent != NONE || !p->ppid)
		return 0;
	return wait_parent(m, at);
}

/* A forked child runs its parent's program until it execs. */
static int copy_image(struct mproc *p, const struct mproc *pp)
{
	if (pp->exe && !(p->exe = strdup(pp->exe)))
		return -ENOMEM;
	if (pp->argc && !(p->argv = calloc(pp->argc, sizeof *p->argv)))
		return -ENOMEM;
	for (uint32_t i = 0; i < pp->argc; i++) {
		if (!(p->argv[i] = strdup(pp->argv[i])))
			return -ENOMEM;
		p->argc = i + 1;
	}
	return 0;
}

/* A new entry of pid (a process, or an image after exec: the caller
 * links that one), its parent not linked. */
static struct mproc *add(struct manifest *m, uint32_t pid, uint32_t ppid)
{
	if (WEFT_GROW32(m->p, m->cap, (size_t)m->n + 1))
		return NULL;
	struct mproc *p = &m->p[m->n];
	memset(p, 0, sizeof *p);
	p->pid = pid;
	p->ppid = ppid;
	p->parent = p->next_orphan = p->prev_image = NONE;
	if (index_entry(m, m->n))
		return NULL;
	m->n++;
	return p;
}

static void free_proc(struct mproc *p)
{
	free(p->exe);
	free(p->host);
	free(p->ring);
	for (uint32_t i = 0; i < p->argc; i++)
		free(p->argv[i]);
	free(p->argv);
}

static void set_str(char **dst, const char *v, size_t n, int *oom)
{
	char *s = unescape(v, n);
	if (!s) {
		*oom = 1;
		return;
	}
	free(*dst);
	*dst = s;
}

/* The comm of a process: its executable's last part (a header's comm
 * is 15 bytes, the kernel's). */
static void comm_of(struct mproc *p)
{
	/* the name it was run by (sh, not the dash it links to) */
	const char *e = p->argc && *p->argv[0] ? p->argv[0]
			: p->exe	       ? p->exe
					       : "";
	const char *slash = strrchr(e, '/');
	snprintf(p->comm, sizeof p->comm, "%s", slash ? slash + 1 : e);
}

static void bad(struct manifest *m, const char *what, uint64_t line)
{
	if (!m->bad_lines++)
		snprintf(m->first_bad, sizeof m->first_bad, "line %llu: %s",
			 (unsigned long long)line, what);
}

/* The exe= and arg= fields of a line: what the process runs (its
 * arguments replaced only when the line names some).  0 or -ENOMEM. */
static int set_image(struct mproc *p, const struct fields *fl)
{
	int oom = 0;
	uint32_t args = 0;
	for (unsigned i = 0; i < fl->n; i++)
		args += is(fl->f[i].k, fl->f[i].kn, KEY(ARG));
	if (args) {
		for (uint32_t i = 0; i < p->argc; i++)
			free(p->argv[i]);
		free(p->argv);
		p->argc = 0;
		p->argv = calloc(args, sizeof *p->argv);
		if (!p->argv)
			return -ENOMEM;
	}
	for (unsigned i = 0; i < fl->n; i++) {
		const char *k = fl->f[i].k, *v = fl->f[i].v;
		size_t kn = fl->f[i].kn, vn = fl->f[i].vn;
		if (is(k, kn, KEY(EXE)))
			set_str(&p->exe, v, vn, &oom);
		else if (is(k, kn, KEY(ARG))) {
			char *a = unescape(v, vn);
			if (!a)
				return -ENOMEM;
			p->argv[p->argc++] = a;
		}
	}
	return oom ? -ENOMEM : 0;
}

/* Applies one line; returns -ENOMEM, or 0 (bad lines are counted). */
static int line(struct manifest *m, struct fields *fl)
{
	/* the numbers, by the table's keys (text values are read below) */
	uint64_t u[WEFT_MKEYS] = {0};
	int64_t sv[WEFT_MKEYS] = {0};
	uint32_t have = 0;
	_Static_assert(WEFT_MKEYS <= 32, "have: a bit a key");
	int oom = 0;
	uint64_t lineno = m->lines;
	for (unsigned i = 0; i < fl->n; i++) {
		unsigned key = weft_mkey_find(fl->f[i].k, fl->f[i].kn);
		int base = weft_mkey_base(key);
		if (key == WEFT_MKEYS || !base)
			continue; /* unknown (a later writer's), or text */
		const char *v = fl->f[i].v;
		size_t vn = fl->f[i].vn;
		if (base < 0 ? snum(v, vn, &sv[key])
			     : num(v, vn, &u[key], base))
			return bad(m, "a number that does not parse", lineno),
			       0;
		have |= 1u << key;
	}
	uint64_t pid = u[WEFT_MK_PID], ppid = u[WEFT_MK_PPID],
		 token = u[WEFT_MK_START], by = u[WEFT_MK_BY],
		 tid = u[WEFT_MK_TID], spawn = u[WEFT_MK_SPAWN],
		 session = u[WEFT_MK_SESSION], child = u[WEFT_MK_CHILD],
		 fork = u[WEFT_MK_FORK];
	int64_t t = sv[WEFT_MK_T], real = sv[WEFT_MK_REAL],
		status = sv[WEFT_MK_STATUS],
		sig = have >> WEFT_MK_SIGNAL & 1 ? sv[WEFT_MK_SIGNAL] : -1;
	int have_pid = have >> WEFT_MK_PID & 1,
	    have_status = have >> WEFT_MK_STATUS & 1;
	if (pid > UINT32_MAX || ppid > UINT32_MAX || tid > UINT32_MAX ||
	    child > UINT32_MAX || status > INT32_MAX || status < INT32_MIN ||
	    sig > 255)
		return bad(m, "a value out of range", lineno), 0;
	unsigned kind = weft_mline_find(fl->kind, fl->kindn);
	if (kind == WEFT_ML_RUN) {
		m->session = session;
		return 0;
	}
	if (!have_pid || !pid) {
		if (kind != WEFT_MLINES)
			bad(m, "no pid", lineno);
		return 0;
	}
	uint32_t at = live_of(m, (uint32_t)pid);
	struct mproc *p;
	if (kind == WEFT_ML_FORK) {
		/* A new process: an older one of this pid has gone. */
		if (at != NONE && m->p[at].end == WEFT_PROC_RUNNING)
			m->p[at].end = WEFT_PROC_VANISHED;
		if (!(p = add(m, (uint32_t)pid, (uint32_t)ppid)) ||
		    link_parent(m, m->n - 1, t))
			return -ENOMEM;
		adopt(m, m->n - 1);
		p->t_fork = t;
		p->by = by;
		p->by_tid = (uint32_t)tid;
		p->spawn = spawn == 1;
		/* until it execs, a forked child runs its parent's program
		 * (when that is not known yet: once it is) */
		if (p->parent != NONE && copy_image(p, &m->p[p->parent]))
			return -ENOMEM;
		p->want_image = p->parent == NONE;
		/* weft record names what it runs: exe and arg, as proc */
		if (set_image(p, fl))
			return -ENOMEM;
	} else if (kind == WEFT_ML_PROC) {
		if (at != NONE && m->p[at].token && token &&
		    m->p[at].token != token) {
			/* the pid came back for another process */
			m->p[at].end = WEFT_PROC_VANISHED;
			at = NONE;
		} else if (at != NONE && !token && m->p[at].has_proc && ppid &&
			   m->p[at].ppid != ppid) {
			/* no token (its parent's spawn line, written after
			 * the fork returned, is still to come), and another
			 * parent: not an exec of the one that vanished */
			m->p[at].end = WEFT_PROC_VANISHED;
			at = NONE;
		}
		if (at != NONE && m->p[at].has_proc) {
			/* an exec: the image before ends here */
			struct mproc *old = &m->p[at];
			old->end = WEFT_PROC_EXECED;
			old->t_end = t;
			uint32_t prev = at;
			if (!(p = add(m, (uint32_t)pid, old->ppid)))
				return -ENOMEM;
			old = &m->p[prev]; /* (moved) */
			p->parent = old->parent;
			if (p->parent == NONE && p->ppid &&
			    wait_parent(m, m->n - 1))
				return -ENOMEM;
			p->prev_image = prev;
			p->image = old->image + 1;
			p->t_fork = old->t_fork;
			p->by = old->by;
			p->by_tid = old->by_tid;
			p->spawn = old->spawn;
		} else if (at != NONE) {
			p = &m->p[at];
		} else {
			if (!(p = add(m, (uint32_t)pid, (uint32_t)ppid)) ||
			    link_parent(m, m->n - 1, t))
				return -ENOMEM;
			adopt(m, m->n - 1);
		}
		p->has_proc = 1;
		p->token = token;
		p->t_start = t;
		p->real_start = real;
		if (ppid)
			p->ppid = (uint32_t)ppid;
		if (set_image(p, fl))
			return -ENOMEM;
		for (unsigned i = 0; i < fl->n; i++) {
			const char *k = fl->f[i].k, *v = fl->f[i].v;
			size_t kn = fl->f[i].kn, vn = fl->f[i].vn;
			if (is(k, kn, KEY(HOST)))
				set_str(&p->host, v, vn, &oom);
			else if (is(k, kn, KEY(BOOT)) && vn < sizeof p->boot) {
				char *b = unescape(v, vn);
				if (!b)
					return -ENOMEM;
				snprintf(p->boot, sizeof p->boot, "%s", b);
				free(b);
			}
		}
	} else if (kind == WEFT_ML_SPAWN) {
		/* The parent (pid) names its child once posix_spawn or the
		 * shims' fork() returned there: the child's own lines may
		 * have come first, even its exit (an entry of its pid that
		 * no fork or spawn line named, of this parent or of none
		 * known: ring, exit) */
		if (!child)
			return bad(m, "no child", lineno), 0;
		uint32_t c = live_of(m, (uint32_t)child);
		int live = c != NONE;
		if (!live)
			c = latest_of(m, (uint32_t)child);
		/* its first image, if it exec'd already */
		while (c != NONE && m->p[c].prev_image != NONE)
			c = m->p[c].prev_image;
		if (c != NONE && ((m->p[c].ppid && m->p[c].ppid != pid) ||
				  m->p[c].by_tid || m->p[c].t_fork)) {
			if (live)
				return 0; /* not the one it started */
			c = NONE;	  /* an older process of that pid */
		}
		if (c == NONE) {
			if (!(p = add(m, (uint32_t)child, (uint32_t)pid)))
				return -ENOMEM;
			c = m->n - 1;
			adopt(m, c);
		} else {
			p = &m->p[c];
		}
		if (!p->ppid)
			p->ppid = (uint32_t)pid;
		if (p->parent == NONE) {
			if (link_parent(m, c, t))
				return -ENOMEM;
			p = &m->p[c];
			/* (its later images: theirs) */
			for (uint32_t k = latest_of(m, (uint32_t)child);
			     k != NONE && k != c; k = m->p[k].prev_image)
				if (m->p[k].parent == NONE)
					m->p[k].parent = p->parent;
		}
		if (fork == 1 && !p->has_proc && !p->exe && p->parent != NONE &&
		    copy_image(p, &m->p[p->parent]))
			return -ENOMEM;
		/* (said once the call returned: the child may have loaded
		 * before) */
		if (!p->has_proc || !p->t_start || t < p->t_start)
			p->t_fork = t;
		p->by = by;
		p->by_tid = (uint32_t)tid;
		p->spawn = spawn == 1;
	} else if (kind == WEFT_ML_RING) {
		if (at == NONE) {
			if (!(p = add(m, (uint32_t)pid, 0)))
				return -ENOMEM;
			adopt(m, m->n - 1);
		}
		p = &m->p[at == NONE ? m->n - 1 : at];
		for (unsigned i = 0; i < fl->n; i++)
			if (is(fl->f[i].k, fl->f[i].kn, KEY(FILE)))
				set_str(&p->ring, fl->f[i].v, fl->f[i].vn,
					&oom);
	} else if (kind == WEFT_ML_EXIT) {
		if (at == NONE) {
			/* its parent's line for it is still to come (a
			 * child that never loaded an image of its own), or
			 * none will: a vfork child (no fork handler runs)
			 * whose exec failed, running its parent's program;
			 * known from its end on */
			if (!(p = add(m, (uint32_t)pid, (uint32_t)ppid)))
				return -ENOMEM;
			adopt(m, m->n - 1);
			if (ppid && link_parent(m, m->n - 1, t))
				return -ENOMEM;
			p = &m->p[m->n - 1];
			if (p->parent != NONE &&
			    copy_image(p, &m->p[p->parent]))
				return -ENOMEM;
			p->t_start = t;
		} else
			p = &m->p[at];
		p->end = WEFT_PROC_EXITED;
		p->status = (int)status;
		p->t_end = t;
	} else if (kind == WEFT_ML_REAPED) {
		/* After the process's own exit line, if it wrote one. */
		uint32_t i = at != NONE ? at : latest_of(m, (uint32_t)pid);
		if (i == NONE || m->p[i].end == WEFT_PROC_EXECED) {
			/* known from its end on: a child that loaded no
			 * libweft (static, set-uid), its parent the process
			 * that reaped it (by=, a pid) */
			uint64_t bp = 0;
			for (unsigned k = 0; k < fl->n; k++)
				if (is(fl->f[k].k, fl->f[k].kn, KEY(BY)) &&
				    num(fl->f[k].v, fl->f[k].vn, &bp, 10))
					bp = 0;
			if (bp > UINT32_MAX)
				bp = 0;
			if (!(p = add(m, (uint32_t)pid, (uint32_t)bp)))
				return -ENOMEM;
			adopt(m, m->n - 1);
			if (bp && link_parent(m, m->n - 1, t))
				return -ENOMEM;
			p = &m->p[m->n - 1];
			p->t_start = t;
		} else
			p = &m->p[i];
		if (p->end == WEFT_PROC_RUNNING ||
		    p->end == WEFT_PROC_VANISHED) {
			p->end = sig > 0       ? WEFT_PROC_SIGNALED
				 : have_status ? WEFT_PROC_EXITED
					       : WEFT_PROC_VANISHED;
			p->status = sig > 0 ? (int)sig : (int)status;
			p->t_end = t;
		} else if (sig > 0 && p->end == WEFT_PROC_EXITED) {
			p->end = WEFT_PROC_SIGNALED;
			p->status = (int)sig;
		}
	} else {
		return 0;
	}
	if (oom)
		return -ENOMEM;
	comm_of(p);
	if (p->kids_want_image && (p->exe || p->argc)) {
		/* (rare: a child's fork line before its parent's spawn line,
		 * as daemon()'s child can write it) */
		uint32_t me = (uint32_t)(p - m->p);
		p->kids_want_image = 0;
		for (uint32_t k = 0; k < m->n; k++) {
			struct mproc *c = &m->p[k];
			if (c->parent != me || !c->want_image)
				continue;
			c->want_image = 0;
			if (!c->exe && !c->argc && copy_image(c, p))
				return -ENOMEM;
			comm_of(c);
		}
	}
	return 0;
}

int weft__manifest_parse(struct manifest *m, const char *text, size_t len)
{
	struct fields *f = malloc(sizeof *f); /* (large) */
	char *raw = realloc(m->raw, m->rawlen + len + 1);
	if (!f || !raw) {
		free(f);
		if (raw)
			m->raw = raw;
		return -ENOMEM;
	}
	m->raw = raw;
	memcpy(raw + m->rawlen, text, len);
	m->rawlen += len;
	int err = 0;
	size_t i = 0;
	while (i < len && !err) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len;
		m->lines++;
		size_t n = end - i;
		if (n && (n > MAX_LINE || split(text + i, n, f)))
			bad(m,
			    n > MAX_LINE ? "too long" : "a field without '='",
			    m->lines);
		else if (n)
			err = line(m, f);
		i = end + 1;
	}
	free(f);
	return err;
}

void weft__manifest_free(struct manifest *m)
{
	for (uint32_t i = 0; i < m->n; i++)
		free_proc(&m->p[i]);
	free(m->p);
	free(m->latest);
	free(m->orph);
	free(m->raw);
	memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------- bundles */

uint64_t weft__bundle_size(const uint8_t *base, size_t len)
{
	if (len < BUNDLE_HDR || memcmp(base, WEFT_BUNDLE_MAGIC, 8))
		return 0;
	return weft__ld64(base + 16);
}

int weft__bundle_parse(const uint8_t *base, uint64_t len, struct bundle *b,
		       struct weft_diag *d)
{
	memset(b, 0, sizeof *b);
	if (len < BUNDLE_HDR || memcmp(base, WEFT_BUNDLE_MAGIC, 8))
		return weft__diag(d, WEFT_ENOTTRACE, 0, "not a weft bundle");
	if (weft__ld16(base + 8) != 1)
		return weft__diag(d, WEFT_EVERSION, 8,
				  "bundle version %u; this weft reads 1",
				  weft__ld16(base + 8));
	uint32_t n = weft__ld32(base + 12);
	uint64_t size = weft__ld64(base + 16);
	if (size > len)
		return weft__diag(d, WEFT_ETRUNC, len,
				  "truncated bundle: %llu of %llu bytes",
				  (unsigned long long)len,
				  (unsigned long long)size);
	if (n == 0 || n > BUNDLE_MAX_PARTS ||
	    BUNDLE_HDR + (uint64_t)n * BUNDLE_ENT > size)
		return weft__diag(d, WEFT_ECORRUPT, 12,
				  "bad bundle part count %u", n);
	b->part = calloc(n, sizeof *b->part);
	if (!b->part)
		return -ENOMEM;
	b->n = n;
	b->size = size;
	for (uint32_t i = 0; i < n; i++) {
		const uint8_t *e = base + BUNDLE_HDR + (uint64_t)i * BUNDLE_ENT;
		struct bpart *p = &b->part[i];
		p->off = weft__ld64(e);
		p->len = weft__ld64(e + 8);
		p->kind = weft__ld32(e + 16);
		p->run = weft__ld32(e + 20);
		p->cut = (int64_t)weft__ld64(e + 24);
		memcpy(p->name, e + 32, 48);
		p->name[48] = 0;
		char fixed[49];
		weft_utf8_fix(fixed, sizeof fixed, p->name, strlen(p->name));
		memcpy(p->name, fixed, sizeof fixed);
		if (p->off % 64 || p->off > size || p->len > size - p->off ||
		    p->off < BUNDLE_HDR + (uint64_t)n * BUNDLE_ENT) {
			uint64_t at = BUNDLE_HDR + (uint64_t)i * BUNDLE_ENT;
			free(b->part);
			b->part = NULL;
			return weft__diag(d, WEFT_ECORRUPT, at,
					  "bundle part %u lies outside the "
					  "bundle",
					  i);
		}
	}
	return 0;
}

static void st64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}
static void st32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

uint64_t weft__bundle_first(uint32_t n)
{
	return (BUNDLE_HDR + (uint64_t)n * BUNDLE_ENT + 63) & ~(uint64_t)63;
}

void weft__bundle_header(uint8_t *b, const struct bpart *parts, uint32_t n,
			 uint64_t size)
{
	memset(b, 0, (size_t)weft__bundle_first(n));
	memcpy(b, WEFT_BUNDLE_MAGIC, 8);
	b[8] = 1;
	st32(b + 12, n);
	st64(b + 16, size);
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *e = b + BUNDLE_HDR + (uint64_t)i * BUNDLE_ENT;
		st64(e, parts[i].off);
		st64(e + 8, parts[i].len);
		st32(e + 16, parts[i].kind);
		st32(e + 20, parts[i].run);
		st64(e + 24, (uint64_t)parts[i].cut);
		memcpy(e + 32, parts[i].name, strnlen(parts[i].name, 48));
	}
}

int weft__bundle_write(const struct bpart *parts, const void *const *data,
		       uint32_t n, uint8_t **out, size_t *len)
{
	uint64_t off = weft__bundle_first(n);
	uint64_t size = off;
	for (uint32_t i = 0; i < n; i++)
		size = ((size + parts[i].len + 63) & ~(uint64_t)63);
	if (size > SIZE_MAX)
		return -ENOMEM;
	uint8_t *b = calloc(1, (size_t)size);
	struct bpart *at = calloc(n ? n : 1, sizeof *at);
	if (!b || !at) {
		free(b);
		free(at);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		at[i] = parts[i];
		at[i].off = off;
		memcpy(b + off, data[i], (size_t)parts[i].len);
		off = (off + parts[i].len + 63) & ~(uint64_t)63;
	}
	weft__bundle_header(b, at, n, size);
	free(at);
	*out = b;
	*len = (size_t)size;
	return 0;
}
