/* SPDX-License-Identifier: MIT */
/*
 * diff.c - two runs aligned by causal identity, and where they first went
 * different ways (diff.h).
 *
 * Work is linear in the threads and arrows of both runs, but for the
 * longest-common-subsequence step, which is Myers' O((n + m) D) on what
 * the siblings' common prefix and suffix leave, with D bounded: beyond
 * LCS_MAX_D differences (or 50 M steps) the rest is matched by key and
 * ordinal.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "diff-internal.h"
#include "common/grow.h"

#define LCS_MAX_D 512

/* ------------------------------------------------------------- keys */

size_t weft_diff_normalise(const char *s, char *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; s[i];) {
		char c;
		size_t k;
		if (s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X') &&
		    strchr("0123456789abcdefABCDEF", s[i + 2]) && s[i + 2]) {
			for (k = i + 2;
			     s[k] && strchr("0123456789abcdefABCDEF", s[k]);
			     k++)
				;
			c = '#';
		} else if (s[i] >= '0' && s[i] <= '9') {
			for (k = i; s[k] >= '0' && s[k] <= '9'; k++)
				;
			c = '#';
		} else {
			c = s[i];
			k = i + 1;
		}
		if (n + 1 < cap)
			out[n] = c;
		n++;
		i = k;
	}
	if (cap) {
		size_t end = n < cap ? n : cap - 1;
		/* Cut on a character boundary: drop a partial sequence. */
		if (end < n) {
			size_t j = end;
			while (j > 0 &&
			       ((unsigned char)out[j - 1] & 0xC0) == 0x80)
				j--;
			if (j > 0 && ((unsigned char)out[j - 1] & 0x80))
				end = j - 1;
		}
		out[end] = 0;
	}
	return n;
}

/* The thread's first label, or NULL. */
static const char *first_label(const struct weft_model *m, uint32_t t)
{
	uint32_t nth, nl;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	const struct weft_label *l = weft_model_labels(m, &nl);
	uint32_t k = th[t].label, hops = 0;
	if (k == WEFT_NONE || k >= nl)
		return NULL;
	while (l[k].prev != WEFT_NONE && l[k].prev < nl && hops++ < 1u << 20)
		k = l[k].prev;
	return weft_model_string(m, l[k].text);
}

size_t weft_diff_key_text(const struct weft_model *m, uint32_t t, int key,
			  char *out, size_t cap)
{
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	if (t >= nth) {
		if (cap)
			*out = 0;
		return 0;
	}
	const char *kind = th[t].kind ? weft_model_name(m, th[t].kind) : "";
	const char *lab = key == WEFT_DIFF_KEY_KIND ? NULL : first_label(m, t);
	size_t kl = strlen(kind);
	size_t n = 0;
	if (cap) {
		size_t c = kl < cap - 1 ? kl : cap - 1;
		memcpy(out, kind, c);
		out[c] = 0;
	}
	n = kl;
	if (lab) {
		static const char sep[] = ": ";
		for (int i = 0; i < 2; i++, n++)
			if (n + 1 < cap) {
				out[n] = sep[i];
				out[n + 1] = 0;
			}
		if (key == WEFT_DIFF_KEY_RAW) {
			size_t ll = strlen(lab);
			for (size_t i = 0; i < ll; i++, n++)
				if (n + 1 < cap) {
					out[n] = lab[i];
					out[n + 1] = 0;
				}
		} else
			n += weft_diff_normalise(lab, out + (n < cap ? n : cap),
						 n < cap ? cap - n : 0);
	}
	return n;
}

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* The key as a hash (the text is not kept): kind, separator, label. */
uint64_t weft__diff_key(const struct weft_model *m, uint32_t t, int key,
			char *scratch, size_t cap)
{
	uint32_t nth;
	const struct weft_thread *th = weft_model_threads(m, &nth);
	uint64_t h = 0xcbf29ce484222325ull;
	h = fnv(h, th[t].kind ? weft_model_name(m, th[t].kind) : "");
	h = (h ^ 0x1f) * 0x100000001b3ull;
	const char *lab = key == WEFT_DIFF_KEY_KIND ? NULL : first_label(m, t);
	if (lab) {
		h = (h ^ 0x1e) * 0x100000001b3ull;
		if (key == WEFT_DIFF_KEY_RAW)
			h = fnv(h, lab);
		else {
			size_t n = weft_diff_normalise(lab, scratch, cap);
			if (n >= cap) /* longer than the scratch: hash it all */
				for (const char *p = lab; *p; p++)
					h = (h ^
					     (unsigned char)(*p >= '0' && *p <= '9'
								     ? '#'
								     : *p)) *
					    0x100000001b3ull;
			else
				h = fnv(h, scratch);
		}
	}
	return h | 1; /* never 0 */
}

/* ------------------------------------------------------------- hash map */

int weft__hmap_init(struct weft__hmap *h, uint32_t n)
{
	uint32_t cap = 16;
	while (cap < n * 2 + 16)
		cap *= 2;
	h->cap = cap;
	h->used = 0;
	h->key = calloc(cap, sizeof *h->key);
	h->val = malloc(cap * sizeof *h->val);
	return h->key && h->val ? 0 : -ENOMEM;
}

void weft__hmap_release(struct weft__hmap *h)
{
	free(h->key);
	free(h->val);
	h->key = NULL;
	h->val = NULL;
}

static uint32_t hslot(const struct weft__hmap *h, uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (uint32_t)k & (h->cap - 1);
}

/* The value slot for key k (k != 0), inserted with `dflt` if new; NULL
 * if out of memory. */
uint32_t *weft__hmap_get(struct weft__hmap *h, uint64_t k, uint32_t dflt)
{
	if ((h->used + 1) * 2 > h->cap) {
		struct weft__hmap n = {0};
		n.cap = h->cap * 2;
		n.key = calloc(n.cap, sizeof *n.key);
		n.val = malloc(n.cap * sizeof *n.val);
		if (!n.key || !n.val) {
			free(n.key);
			free(n.val);
			return NULL;
		}
		for (uint32_t i = 0; i < h->cap; i++)
			if (h->key[i]) {
				uint32_t j = hslot(&n, h->key[i]);
				while (n.key[j])
					j = (j + 1) & (n.cap - 1);
				n.key[j] = h->key[i];
				n.val[j] = h->val[i];
			}
		n.used = h->used;
		weft__hmap_release(h);
		*h = n;
	}
	uint32_t i = hslot(h, k);
	while (h->key[i] && h->key[i] != k)
		i = (i + 1) & (h->cap - 1);
	if (!h->key[i]) {
		h->key[i] = k;
		h->val[i] = dflt;
		h->used++;
	}
	return &h->val[i];
}

uint32_t weft__hmap_find(const struct weft__hmap *h, uint64_t k)
{
	uint32_t i = hslot(h, k);
	while (h->key[i]) {
		if (h->key[i] == k)
			return h->val[i];
		i = (i + 1) & (h->cap - 1);
	}
	return WEFT_NONE;
}

/* ------------------------------------------------------------- alignment */

struct side {
	const struct weft_model *m;
	const struct weft_thread *th;
	uint32_t nth;
	uint64_t *key;
	uint32_t *kid_off, *kid; /* children (CSR), top level last */
	uint32_t *map;
};

struct weft_align {
	struct side s[2];
	struct weft_align_info info;
	int key;
};

static int is_root(const struct side *s, uint32_t t)
{
	return t >= s->nth || (s->th[t].flags & WEFT_THREAD_ROOT);
}

/* The list a thread's children are in: its creator's, or the top level
 * (index nth). */
static uint32_t list_of(const struct side *s, uint32_t t)
{
	uint32_t p = s->th[t].parent;
	return p == WEFT_NONE || is_root(s, p) ? s->nth : p;
}

static int prepare(struct side *s, const struct weft_model *m, int key)
{
	s->m = m;
	s->th = weft_model_threads(m, &s->nth);
	uint32_t n = s->nth;
	s->key = malloc(((size_t)n + 1) * sizeof *s->key);
	s->kid_off = calloc((size_t)n + 2, sizeof *s->kid_off);
	s->kid = malloc(((size_t)n + 1) * sizeof *s->kid);
	s->map = malloc(((size_t)n + 1) * sizeof *s->map);
	if (!s->key || !s->kid_off || !s->kid || !s->map)
		return -ENOMEM;
	char scratch[512];
	for (uint32_t t = 0; t < n; t++) {
		s->map[t] = WEFT_NONE;
		if (is_root(s, t))
			continue;
		s->key[t] = weft__diff_key(m, t, key, scratch, sizeof scratch);
		s->kid_off[list_of(s, t) + 1]++;
	}
	for (uint32_t i = 0; i <= n; i++)
		s->kid_off[i + 1] += s->kid_off[i];
	uint32_t *fill = calloc((size_t)n + 1, sizeof *fill);
	if (!fill)
		return -ENOMEM;
	for (uint32_t t = 0; t < n; t++) /* creation order */
		if (!is_root(s, t)) {
			uint32_t l = list_of(s, t);
			s->kid[s->kid_off[l] + fill[l]++] = t;
		}
	free(fill);
	return 0;
}

/* Myers' greedy LCS of a[0..n) and b[0..m) by key, at most LCS_MAX_D
 * differences: sets pa[i] = j for matched pairs (others NONE).  Returns
 * 0, 1 if D was exceeded (nothing matched), or -ENOMEM. */
static int lcs(const uint64_t *ka, uint32_t n, const uint64_t *kb, uint32_t m,
	       uint32_t *pa)
{
	int64_t N = n, M = m, maxd = N + M < LCS_MAX_D ? N + M : LCS_MAX_D;
	/* and a bounded amount of work: (N + M) D steps at most */
	if ((N + M) * maxd > (int64_t)50 << 20)
		maxd = ((int64_t)50 << 20) / (N + M);
	int64_t off = maxd + 1;
	int64_t w = 2 * maxd + 3;
	/* v for each d, kept to trace back */
	int64_t *v = malloc((size_t)(maxd + 1) * (size_t)w * sizeof *v);
	if (!v)
		return -ENOMEM;
	int64_t *cur = calloc((size_t)w, sizeof *cur);
	if (!cur) {
		free(v);
		return -ENOMEM;
	}
	int64_t dfound = -1;
	for (int64_t d = 0; d <= maxd && dfound < 0; d++) {
		for (int64_t k = -d; k <= d; k += 2) {
			int64_t x;
			if (k == -d ||
			    (k != d && cur[off + k - 1] < cur[off + k + 1]))
				x = cur[off + k + 1];
			else
				x = cur[off + k - 1] + 1;
			int64_t y = x - k;
			while (x < N && y < M && ka[x] == kb[y]) {
				x++;
				y++;
			}
			cur[off + k] = x;
			if (x >= N && y >= M) {
				dfound = d;
				break;
			}
		}
		memcpy(v + d * w, cur, (size_t)w * sizeof *cur);
	}
	free(cur);
	if (dfound < 0) {
		free(v);
		return 1;
	}
	for (uint32_t i = 0; i < n; i++)
		pa[i] = WEFT_NONE;
	int64_t x = N, y = M;
	for (int64_t d = dfound; d > 0; d--) {
		const int64_t *pv = v + (d - 1) * w;
		int64_t k = x - y, pk;
		if (k == -d || (k != d && pv[off + k - 1] < pv[off + k + 1]))
			pk = k + 1;
		else
			pk = k - 1;
		int64_t px = pv[off + pk], py = px - pk;
		while (x > (pk < k ? px + 1 : px) &&
		       y > (pk < k ? py : py + 1)) {
			x--;
			y--;
			pa[x] = (uint32_t)y;
		}
		x = px;
		y = py;
	}
	while (x > 0 && y > 0) {
		x--;
		y--;
		pa[x] = (uint32_t)y;
	}
	free(v);
	return 0;
}

/* Aligns sibling lists A and B (thread indexes); pushes matched pairs. */
static int align_lists(struct weft_align *al, const uint32_t *A, uint32_t n,
		       const uint32_t *B, uint32_t m, uint32_t **stack,
		       uint32_t *nstack, uint32_t *cstack)
{
	struct side *sa = &al->s[0], *sb = &al->s[1];
	uint32_t *pa = malloc(((size_t)n + 1) * sizeof *pa);
	uint8_t *usedb = calloc((size_t)m + 1, 1);
	uint64_t *ka = malloc(((size_t)n + 1) * sizeof *ka);
	uint64_t *kb = malloc(((size_t)m + 1) * sizeof *kb);
	int rc = -ENOMEM;
	if (!pa || !usedb || !ka || !kb)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		pa[i] = WEFT_NONE;
		ka[i] = sa->key[A[i]];
	}
	for (uint32_t j = 0; j < m; j++)
		kb[j] = sb->key[B[j]];
	uint32_t pre = 0, suf = 0;
	while (pre < n && pre < m && ka[pre] == kb[pre]) {
		pa[pre] = pre;
		pre++;
	}
	while (suf < n - pre && suf < m - pre &&
	       ka[n - 1 - suf] == kb[m - 1 - suf]) {
		pa[n - 1 - suf] = m - 1 - suf;
		suf++;
	}
	uint32_t mn = n - pre - suf, mm = m - pre - suf;
	if (mn && mm) {
		int r = lcs(ka + pre, mn, kb + pre, mm, pa + pre);
		if (r < 0)
			goto out;
		if (r == 0)
			for (uint32_t i = pre; i < pre + mn; i++)
				if (pa[i] != WEFT_NONE)
					pa[i] += pre;
	}
	for (uint32_t i = 0; i < n; i++)
		if (pa[i] != WEFT_NONE)
			usedb[pa[i]] = 1;
	/* What is left: by key and ordinal among what is left. */
	struct weft__hmap h = {0};
	if (weft__hmap_init(&h, 64))
		goto out;
	/* key -> first unused B position, chained through next[] */
	uint32_t *next = malloc(((size_t)m + 1) * sizeof *next);
	if (!next) {
		weft__hmap_release(&h);
		goto out;
	}
	for (uint32_t j = m; j-- > 0;) {
		next[j] = WEFT_NONE;
		if (usedb[j])
			continue;
		uint32_t *slot = weft__hmap_get(&h, kb[j], WEFT_NONE);
		if (!slot) {
			free(next);
			weft__hmap_release(&h);
			goto out;
		}
		next[j] = *slot;
		*slot = j;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (pa[i] != WEFT_NONE)
			continue;
		uint32_t *slot = weft__hmap_get(&h, ka[i], WEFT_NONE);
		if (!slot) {
			free(next);
			weft__hmap_release(&h);
			goto out;
		}
		if (*slot != WEFT_NONE) {
			pa[i] = *slot;
			*slot = next[*slot];
			al->info.reordered++;
		}
	}
	free(next);
	weft__hmap_release(&h);
	for (uint32_t i = 0; i < n; i++) {
		if (pa[i] == WEFT_NONE)
			continue;
		uint32_t x = A[i], y = B[pa[i]];
		sa->map[x] = y;
		sb->map[y] = x;
		al->info.matched++;
		if (weft__grow32(stack, cstack, (size_t)*nstack + 2,
				 sizeof **stack, 1024))
			goto out;
		(*stack)[(*nstack)++] = x;
		(*stack)[(*nstack)++] = y;
	}
	rc = 0;
out:
	free(pa);
	free(usedb);
	free(ka);
	free(kb);
	return rc;
}

void weft_align_free(struct weft_align *al)
{
	if (!al)
		return;
	for (int i = 0; i < 2; i++) {
		free(al->s[i].key);
		free(al->s[i].kid_off);
		free(al->s[i].kid);
		free(al->s[i].map);
	}
	free(al);
}

int weft_align_new(struct weft_align **out, const struct weft_model *a,
		   const struct weft_model *b, int key)
{
	*out = NULL;
	if (key < WEFT_DIFF_KEY_LABEL || key > WEFT_DIFF_KEY_KIND)
		return WEFT_EINVAL;
	struct weft_align *al = calloc(1, sizeof *al);
	if (!al)
		return -ENOMEM;
	al->key = key;
	int rc;
	if ((rc = prepare(&al->s[0], a, key)) ||
	    (rc = prepare(&al->s[1], b, key))) {
		weft_align_free(al);
		return rc;
	}
	struct side *sa = &al->s[0], *sb = &al->s[1];
	uint32_t *stack = NULL, nstack = 0, cstack = 0;
	rc = align_lists(al, sa->kid + sa->kid_off[sa->nth],
			 sa->kid_off[sa->nth + 1] - sa->kid_off[sa->nth],
			 sb->kid + sb->kid_off[sb->nth],
			 sb->kid_off[sb->nth + 1] - sb->kid_off[sb->nth],
			 &stack, &nstack, &cstack);
	while (!rc && nstack) {
		uint32_t y = stack[--nstack], x = stack[--nstack];
		rc = align_lists(al, sa->kid + sa->kid_off[x],
				 sa->kid_off[x + 1] - sa->kid_off[x],
				 sb->kid + sb->kid_off[y],
				 sb->kid_off[y + 1] - sb->kid_off[y], &stack,
				 &nstack, &cstack);
	}
	free(stack);
	if (rc) {
		weft_align_free(al);
		return rc;
	}
	for (int i = 0; i < 2; i++)
		for (uint32_t t = 0; t < al->s[i].nth; t++)
			if (!is_root(&al->s[i], t) &&
			    al->s[i].map[t] == WEFT_NONE)
				al->info.only[i]++;
	*out = al;
	return 0;
}

const uint32_t *weft_align_map(const struct weft_align *al, int side,
			       uint32_t *n)
{
	side = !!side;
	*n = al->s[side].nth;
	return al->s[side].map;
}

void weft_align_info(const struct weft_align *al, struct weft_align_info *info)
{
	*info = al->info;
}

const struct weft_model *weft_align_model(const struct weft_align *al, int side)
{
	return al->s[!!side].m;
}

/* ------------------------------------------------------------- divergence */

/* The thread an arrow is "on", and the actor (the other end). */
static void arrow_ends(const struct weft_arrow *a, uint32_t *on,
		       uint32_t *actor)
{
	switch (a->kind) {
	case WEFT_ARROW_READ:
	case WEFT_ARROW_READ_FAILED:
	case WEFT_ARROW_BECOME:
		*on = a->from;
		*actor = a->to;
		break;
	default:
		*on = a->to;
		*actor = a->from;
	}
}

static int is_wait(int k)
{
	return k == WEFT_ARROW_TRY_READ;
}

static int is_wake(int k)
{
	return k == WEFT_ARROW_SIGNAL || k == WEFT_ARROW_RESOLVE ||
	       k == WEFT_ARROW_FAIL || k == WEFT_ARROW_CANCEL;
}

#define ROOT_ID (WEFT_NONE - 1) /* any OS thread, as an actor */
#define LONE_ID (WEFT_NONE - 2) /* a thread with no partner */

/* An arrow's identity in side 0's numbering: (on, kind, actor). */
static uint64_t arrow_key(const struct weft_align *al, int side,
			  const struct weft_arrow *a, int *ok)
{
	const struct side *s = &al->s[side];
	uint32_t on, actor;
	arrow_ends(a, &on, &actor);
	*ok = 0;
	if (is_root(s, on))
		return 0;
	uint32_t on0 = side ? s->map[on] : on;
	if (on0 == WEFT_NONE)
		return 0; /* on a thread of one run only */
	uint32_t act0 = is_root(s, actor) ? ROOT_ID
			: side		  ? s->map[actor]
					  : actor;
	if (act0 == WEFT_NONE)
		act0 = LONE_ID;
	*ok = act0 != LONE_ID;
	uint64_t k = ((uint64_t)on0 << 32) ^
		     ((uint64_t)act0 * 0x9E3779B97F4A7C15ull) ^
		     ((uint64_t)a->kind << 56);
	return k ? k : 1;
}

struct cand {
	struct weft_divergence d;
	int64_t when; /* the earlier of its times since its trace's start */
	int have;
};

static void consider(struct cand *c, const struct weft_divergence *d,
		     const int64_t t0[2])
{
	int64_t w = INT64_MAX;
	for (int i = 0; i < 2; i++)
		if (d->t[i] != INT64_MIN && d->t[i] - t0[i] < w)
			w = d->t[i] - t0[i];
	if (!c->have || w < c->when) {
		c->d = *d;
		c->when = w;
		c->have = 1;
	}
}

static void blank(struct weft_divergence *d, int kind)
{
	memset(d, 0, sizeof *d);
	d->kind = kind;
	for (int i = 0; i < 2; i++) {
		d->thread[i] = d->arrow[i] = d->other[i] = WEFT_NONE;
		d->t[i] = INT64_MIN;
	}
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x | 1;
}

int weft_diff_first(const struct weft_align *al, struct weft_divergence *d)
{
	const struct side *S = al->s;
	int64_t t0[2], t1[2];
	for (int i = 0; i < 2; i++)
		weft_model_range(S[i].m, &t0[i], &t1[i]);
	struct cand c = {0};
	struct weft_divergence x;

	/* Threads of one run only, and ends that differ. */
	for (int i = 0; i < 2; i++)
		for (uint32_t t = 0; t < S[i].nth; t++) {
			if (is_root(&S[i], t))
				continue;
			uint32_t p = S[i].map[t];
			if (p == WEFT_NONE) {
				/* only the first of a subtree can be first */
				blank(&x, WEFT_DIV_ONLY);
				x.thread[i] = t;
				x.t[i] = S[i].th[t].t_create;
				consider(&c, &x, t0);
				continue;
			}
			if (i == 1)
				continue;
			const struct weft_thread *a = &S[0].th[t],
						 *b = &S[1].th[p];
			if (a->end == b->end)
				continue;
			blank(&x, WEFT_DIV_END);
			x.thread[0] = t;
			x.thread[1] = p;
			if (a->end != WEFT_END_PENDING)
				x.t[0] = a->t_end;
			if (b->end != WEFT_END_PENDING)
				x.t[1] = b->t_end;
			consider(&c, &x, t0);
		}

	/* Interactions: side 0's, each (on, kind, actor) numbered in time
	 * order; side 1's looked up by the same numbering. */
	uint32_t na[2];
	const struct weft_arrow *A[2] = {weft_model_arrows(S[0].m, &na[0]),
					 weft_model_arrows(S[1].m, &na[1])};
	struct weft__hmap count = {0}, where = {0};
	uint32_t *partner[2] = {malloc(((size_t)na[0] + 1) * sizeof(uint32_t)),
				malloc(((size_t)na[1] + 1) * sizeof(uint32_t))};
	uint64_t *wake_id = malloc(((size_t)na[0] + 1) * sizeof *wake_id);
	uint64_t *sum[2] = {calloc((size_t)S[0].nth + 1, sizeof(uint64_t)),
			    calloc((size_t)S[1].nth + 1, sizeof(uint64_t))};
	uint64_t *before = malloc(((size_t)na[0] + 1) * sizeof *before);
	int rc = -ENOMEM;
	if (!partner[0] || !partner[1] || !wake_id || !sum[0] || !sum[1] ||
	    !before || weft__hmap_init(&count, na[0] / 4 + 16) ||
	    weft__hmap_init(&where, na[0] + 16))
		goto out;
	for (int i = 0; i < 2; i++) {
		/* the ordinal counters start afresh for each side */
		if (i == 1) {
			memset(count.key, 0, count.cap * sizeof *count.key);
			count.used = 0;
		}
		for (uint32_t k = 0; k < na[i]; k++) {
			partner[i][k] = WEFT_NONE;
			const struct weft_arrow *a = &A[i][k];
			if (a->kind == WEFT_ARROW_CREATE)
				continue;
			int ok;
			uint64_t key = arrow_key(al, i, a, &ok);
			if (!key)
				continue; /* on a thread of one run: ONLY */
			if (!ok) {
				/* by a thread of one run only: that thread
				 * is the divergence, not this */
				partner[i][k] = WEFT_NONE - 1;
				continue;
			}
			uint32_t *n = weft__hmap_get(&count, key, 0);
			if (!n)
				goto out;
			uint64_t full = mix(key ^ mix((uint64_t)(*n)++));
			if (i == 0) {
				uint32_t *slot =
					weft__hmap_get(&where, full, WEFT_NONE);
				if (!slot)
					goto out;
				*slot = k;
			} else {
				uint32_t p = weft__hmap_find(&where, full);
				if (p != WEFT_NONE) {
					partner[1][k] = p;
					partner[0][p] = k;
				}
			}
		}
	}
	for (int i = 0; i < 2; i++)
		for (uint32_t k = 0; k < na[i]; k++) {
			const struct weft_arrow *a = &A[i][k];
			if (a->kind == WEFT_ARROW_CREATE ||
			    partner[i][k] != WEFT_NONE)
				continue;
			uint32_t on, act;
			arrow_ends(a, &on, &act);
			if (is_root(&S[i], on) || S[i].map[on] == WEFT_NONE)
				continue;
			blank(&x, WEFT_DIV_ARROW);
			x.thread[i] = on;
			x.thread[!i] = S[i].map[on];
			x.arrow[i] = k;
			x.t[i] = a->t;
			consider(&c, &x, t0);
		}

	/* Order flips: per thread, the set of matched wake-ups before each
	 * matched wait, as a sum of random tags, in both runs. */
	for (uint32_t k = 0; k < na[0]; k++) {
		wake_id[k] = 0;
		before[k] = 0;
	}
	for (int i = 0; i < 2; i++)
		for (uint32_t k = 0; k < na[i]; k++) {
			uint32_t p = partner[i][k];
			if (p >= WEFT_NONE - 1)
				continue;
			const struct weft_arrow *a = &A[i][k];
			uint32_t on, act;
			arrow_ends(a, &on, &act);
			uint32_t k0 = i ? p : k;
			if (is_wake(a->kind)) {
				if (!wake_id[k0])
					wake_id[k0] = mix(k0 + 0x1234567ull);
				sum[i][on] += wake_id[k0];
			} else if (is_wait(a->kind)) {
				if (i == 0)
					before[k] = sum[0][on];
				else if (before[k0] != sum[1][on]) {
					/* flipped: find the wake-up */
					uint32_t on0 = S[1].map[on];
					uint32_t n0;
					const uint32_t *ix =
						weft_model_thread_arrows(
							S[0].m, on0, &n0);
					for (uint32_t j = 0; j < n0; j++) {
						uint32_t w0 = ix[j];
						uint32_t w1 = partner[0][w0];
						if (w1 >= WEFT_NONE - 1 ||
						    !is_wake(A[0][w0].kind))
							continue;
						uint32_t o0, a0;
						arrow_ends(&A[0][w0], &o0, &a0);
						if (o0 != on0)
							continue;
						int bef0 = w0 < p,
						    bef1 = w1 < k;
						if (bef0 == bef1)
							continue;
						blank(&x, WEFT_DIV_ORDER);
						x.thread[0] = on0;
						x.thread[1] = on;
						x.arrow[0] = p;
						x.arrow[1] = k;
						x.other[0] = w0;
						x.other[1] = w1;
						x.t[0] = A[0][w0].t < A[0][p].t
								 ? A[0][w0].t
								 : A[0][p].t;
						x.t[1] = A[1][w1].t < a->t
								 ? A[1][w1].t
								 : a->t;
						consider(&c, &x, t0);
						break;
					}
				}
			}
		}
	rc = 0;
out:
	weft__hmap_release(&count);
	weft__hmap_release(&where);
	free(partner[0]);
	free(partner[1]);
	free(wake_id);
	free(sum[0]);
	free(sum[1]);
	free(before);
	if (rc)
		return rc;
	if (!c.have) {
		blank(d, WEFT_DIV_NONE);
		return 0;
	}
	*d = c.d;
	return 1;
}
