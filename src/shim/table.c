/* SPDX-License-Identifier: MIT */
/*
 * table.c - the side table: what the shims keep of each armed handle and
 * pending request, keyed by (address, role).  A shared open-addressing
 * table under a spinlock, and a lock-free table per OS thread for the
 * requests it submits to the loop it runs.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <string.h>
#include <sys/mman.h>

#include "shim.h"

/* The table grows by doubling from a few pages to 2^TABLE_MAX_BITS entries: a
 * fixed 4 MiB array had its entries' pages scattered by the hash, and
 * every fork() of a traced program (a build tool, a test runner) made
 * each of them a copy-on-write fault in the parent afterwards. */
#define TABLE_MIN_BITS 6
#define TABLE_MAX_BITS 16
static struct shim_ent *table;
static unsigned table_bits, table_mask, table_used;
/* A spinlock: the table is held for well under a microsecond, and a
 * pthread mutex costs more than the work it protects here. */
static int table_lock;

static void lock_table(void)
{
	while (__atomic_exchange_n(&table_lock, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&table_lock, __ATOMIC_RELAXED))
			sched_yield();
}

static int trylock_table(void)
{
	return !__atomic_exchange_n(&table_lock, 1, __ATOMIC_ACQUIRE);
}

static void unlock_table(void)
{
	/* Pairs with the acquire exchange in lock_table/trylock_table. */
	__atomic_store_n(&table_lock, 0, __ATOMIC_RELEASE);
}

static unsigned slot_of(const void *key, int role)
{
	uint64_t h = ((uint64_t)(uintptr_t)key ^ (uint64_t)role) *
		     0x9E3779B97F4A7C15ull;
	return (unsigned)(h >> (64 - table_bits));
}

/* Makes the table 2^bits entries, moving what it holds.  0 if there is no
 * memory for it (the old table is then kept).  Anonymous memory, not
 * malloc: the shims run inside the program's allocator's callers. */
static int grow(unsigned bits)
{
	size_t n = (size_t)1 << bits;
	void *p = mmap(NULL, n * sizeof *table, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	struct shim_ent *old = table;
	size_t old_n = old ? (size_t)table_mask + 1 : 0;
	table = p;
	table_bits = bits;
	table_mask = (unsigned)n - 1;
	for (size_t k = 0; k < old_n; k++) {
		if (!old[k].key)
			continue;
		unsigned i = slot_of(old[k].key, old[k].role);
		while (table[i].key)
			i = (i + 1) & table_mask;
		table[i] = old[k];
	}
	if (old)
		munmap(old, old_n * sizeof *old);
	return 1;
}

/* Finds (key, role); with `create`, makes the entry if it is missing.
 * Called with table_lock held.  NULL if absent (or the table is full: the
 * activity then goes untraced rather than mis-traced, and counted). */
static struct shim_ent *find(const void *key, int role, int create)
{
	if (!table) {
		if (!create || !grow(TABLE_MIN_BITS))
			return NULL;
	}
	unsigned i = slot_of(key, role);
	for (unsigned n = 0; n <= table_mask; n++, i = (i + 1) & table_mask) {
		struct shim_ent *e = &table[i];
		if (e->key == key && e->role == role)
			return e;
		if (!e->key) { /* the end of the chain: absent */
			if (!create)
				return NULL;
			if (table_used + 1 >= (table_mask + 1) / 4 * 3) {
				if (table_bits == TABLE_MAX_BITS ||
				    !grow(table_bits + 1))
					return NULL;
				return find(key, role, create);
			}
			table_used++;
			memset(e, 0, sizeof *e);
			e->key = key;
			e->role = role;
			return e;
		}
	}
	return NULL;
}

/* Removes an entry, leaving no tombstone: the entries after it in its
 * probe chain that may move up, do (backward-shift deletion).  With
 * tombstones, the chains only grew and the table's free slots ran out
 * after some 35,000 handles in a process's life, however few were live:
 * a long-running server's later handles went untraced. */
static void drop(struct shim_ent *e)
{
	unsigned i = (unsigned)(e - table), j = i;
	for (;;) {
		j = (j + 1) & table_mask;
		if (!table[j].key)
			break; /* the end of the chain */
		unsigned h = slot_of(table[j].key, table[j].role);
		/* j stays if its home is in (i, j], cyclically */
		if (i <= j ? (h > i && h <= j) : (h > i || h <= j))
			continue;
		table[i] = table[j];
		i = j;
	}
	memset(&table[i], 0, sizeof table[i]);
	table_used--;
}

/* A handle the table had no room for (more than 49,152 armed at once)
 * goes untraced, counted: the counter weft.untraced_handles. */
static void untraced(void)
{
	weft_counter_add("weft.untraced_handles", 1);
}

int weft__shim_put_labelled(const void *key, int role, uint64_t id,
			    void (*cb)(void), void (*cb2)(void), void *loop,
			    const char *label)
{
	lock_table();
	struct shim_ent *e = find(key, role, 1);
	if (e) {
		e->id = id;
		e->cb = cb;
		e->cb2 = cb2;
		e->loop = loop;
		e->label = label;
	}
	unlock_table();
	if (!e)
		untraced();
	return e != NULL;
}

int weft__shim_put_data(const void *key, int role, void *data)
{
	lock_table();
	struct shim_ent *e = find(key, role, 1);
	if (e)
		e->data = data;
	unlock_table();
	if (!e)
		untraced();
	return e != NULL;
}

int weft__shim_get(const void *key, int role, struct shim_ent *out, int remove)
{
	lock_table();
	struct shim_ent *e = find(key, role, 0);
	if (e) {
		*out = *e;
		if (remove)
			drop(e);
	}
	unlock_table();
	return e != NULL;
}

void weft__shim_set_id(const void *key, int role, uint64_t id)
{
	lock_table();
	struct shim_ent *e = find(key, role, 0);
	if (e)
		e->id = id;
	unlock_table();
}

int weft__shim_swap_id(const void *key, int role, struct shim_ent *out,
		       uint64_t next)
{
	int found = 0;
	lock_table();
	struct shim_ent *p = find(key, role, 0);
	if (p && p->id) {
		*out = *p;
		p->id = next;
		found = 1;
	}
	unlock_table();
	return found;
}

uint64_t weft__shim_peek_id(const void *key, int role)
{
	/* Bounded: never block for long, and never deadlock when called
	 * from a signal handler that interrupted the lock's holder on this
	 * thread; the table is only held for a few hundred nanoseconds at
	 * a time. */
	int locked = 0;
	for (int tries = 0; tries < 1000 && !locked; tries++) {
		locked = trylock_table();
		if (!locked)
			sched_yield();
	}
	if (!locked)
		return 0;
	struct shim_ent *p = find(key, role, 0);
	uint64_t id = p ? p->id : 0;
	unlock_table();
	return id;
}

/* ------------------------------------------------ this thread's table */

#define MINE_SIZE 256 /* a power of two */
#define MINE_TOMB ((const void *)1)
struct mine {
	const void *key; /* NULL: never used; MINE_TOMB: removed */
	int role;
	uint64_t id;
	void (*cb)(void);
	void *loop;
};
static __thread struct mine *mine; /* MINE_SIZE entries, made on first use */
static __thread unsigned mine_used, mine_live; /* used: live + removed */
__thread void *weft__shim_mine_loop;

static unsigned mine_slot(const void *key)
{
	return (unsigned)(((uint64_t)(uintptr_t)key * 0x9E3779B97F4A7C15ull) >>
			  56) &
	       (MINE_SIZE - 1);
}

static void mine_reset(void)
{
	memset(mine, 0, MINE_SIZE * sizeof *mine);
	mine_used = mine_live = 0;
}

/* 0 if the request is not for this thread's table (or it is full). */
int weft__shim_mine_put(const void *key, int role, uint64_t id,
			void (*cb)(void), void *loop)
{
	if (loop != weft__shim_mine_loop || !loop)
		return 0;
	if (!mine) {
		void *p = mmap(NULL, MINE_SIZE * sizeof *mine,
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 0;
		mine = p;
	}
	if (!mine_live && mine_used > MINE_SIZE / 2)
		mine_reset(); /* only removed entries: start afresh */
	/* The first free slot of the probe: a request cannot be submitted
	 * again before its callback took its entry, so there is no older
	 * entry of the same address further on to look for. */
	struct mine *slot = NULL;
	unsigned i = mine_slot(key);
	for (unsigned n = 0; n < MINE_SIZE;
	     n++, i = (i + 1) & (MINE_SIZE - 1)) {
		struct mine *m = &mine[i];
		if (m->key == MINE_TOMB) {
			slot = m;
			break;
		}
		if (!m->key) {
			if (mine_used + 1 > MINE_SIZE * 3 / 4)
				return 0;
			mine_used++;
			slot = m;
			break;
		}
	}
	if (!slot)
		return 0;
	slot->key = key;
	slot->role = role;
	slot->id = id;
	slot->cb = cb;
	slot->loop = loop;
	mine_live++;
	return 1;
}

int weft__shim_mine_take(const void *key, int role, struct shim_ent *out)
{
	if (!mine_live)
		return 0;
	unsigned i = mine_slot(key);
	for (unsigned n = 0; n < MINE_SIZE;
	     n++, i = (i + 1) & (MINE_SIZE - 1)) {
		struct mine *m = &mine[i];
		if (m->key == key && m->role == role) {
			memset(out, 0, sizeof *out);
			out->key = key;
			out->role = role;
			out->id = m->id;
			out->cb = m->cb;
			out->loop = m->loop;
			m->key = MINE_TOMB;
			mine_live--;
			return 1;
		}
		if (!m->key)
			return 0;
	}
	return 0;
}

void weft__shim_mine_flush(void)
{
	if (!mine || !mine_used)
		return;
	for (unsigned i = 0; i < MINE_SIZE && mine_live; i++) {
		struct mine *m = &mine[i];
		if (m->key && m->key != MINE_TOMB) {
			weft__shim_put(m->key, m->role, m->id, m->cb, NULL,
				       m->loop);
			mine_live--;
		}
	}
	mine_reset();
}
