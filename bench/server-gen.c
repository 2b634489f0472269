/* SPDX-License-Identifier: MIT */
/*
 * server-gen.c - a server-shaped trace, for the viewers' benchmarks and
 * tests: `server-gen [-n EVENTS] [-c CONNS] [-s SEED] [--size BYTES] -o FILE`.
 *
 * A simulated HTTP server, instrumented the way docs/other-loops.md says,
 * on the manual clock (WEFT_CLOCK_MANUAL): the same arguments give the
 * same trace, byte for byte in its events, on any machine.
 *
 *   - an event loop (one OS thread) with its phases (timers, pending,
 *     poll, closing), idle in poll between iterations, and now and then a
 *     runtime pause ("gc");
 *   - a listener that creates each connection and reads it when it
 *     closes (a hub: it touches every connection);
 *   - about CONNS connections open at once (default 300), each with a
 *     chain of reads (weft_fire: a repeating source), serving a few
 *     requests one after the other (keep-alive);
 *   - each request ("GET /api/items/N", should resolve) queries a
 *     database: it creates the query, signals the pool and waits on the
 *     query (try_read); the pool, on a worker OS thread, runs the queries
 *     one after the other and resolves them (or fails 3 % of them:
 *     "canceling statement due to statement timeout"); slow queries get a
 *     note;
 *   - then the request writes its response (a write request the loop
 *     resolves; write ids are reused, as addresses are: incarnations) and
 *     ends: resolved, or failed after a failed query;
 *   - 5 % of requests are proxied: the request becomes an upstream fetch
 *     that a later iteration resolves;
 *   - a timer sweeps every 50 ms: it cancels requests older than their
 *     deadline (and their queries);
 *   - 3 % of connections are reset by the peer: the read and the
 *     connection fail ("ECONNRESET"), the requests in flight are
 *     cancelled;
 *   - spans ("parse", "render") inside callbacks; counters
 *     (http.connections, http.in_flight, db.queue).
 *
 * Stops once about EVENTS events (default 1,000,000) were recorded; the
 * requests then in flight stay pending (red: they should have resolved).
 * Prints "EVENTS REQUESTS CONNECTIONS" on standard output.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WEFT_ENABLE 1
#include <weft/weft.h>

/* ------------------------------------------------------------- random */

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [0, n). */
static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

/* Exponential with mean m (ns), from a uniform in (0, 1]. */
static int64_t expo(double m)
{
	double u = (double)((rnd() >> 11) + 1) / 9007199254740993.0;
	return (int64_t)(-log(u) * m) + 1;
}

static int percent(int p)
{
	return (int)below(100) < p;
}

/* ------------------------------------------------------------- the trace */

static int64_t now; /* virtual ns */
static uint64_t events;
static uint64_t next_id = 1000;

#define LOOP 1
#define LISTENER 2
#define POOL 3

static const char POLL[] = "poll"; /* idle reason = phase name */

static void at(int64_t t)
{
	if (t > now)
		now = t;
	weft_clock_set((uint64_t)now);
}

/* Work on the loop thread takes time: `ns` of virtual time pass. */
static void work(int64_t ns)
{
	at(now + ns);
}

/* ------------------------------------------------------------- the worker */

/* The database pool's OS thread records what the simulation computed for
 * it, in batches handed over under a lock: only one OS thread records at
 * a time, so the manual clock is never set by two at once. */
enum wop { W_IDLE, W_RESUME, W_START, W_DONE, W_FAIL, W_STOP };
struct wact {
	int64_t t;
	uint64_t q;
	int op;
	int64_t value;
};

static struct wact *wbuf;
static size_t wn, wcap;
static pthread_mutex_t wlock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wcond = PTHREAD_COND_INITIALIZER;
static int wturn; /* 1: the worker records the batch */

static void wpush(int op, int64_t t, uint64_t q, int64_t value)
{
	if (wn == wcap) {
		wcap = wcap ? wcap * 2 : 1024;
		wbuf = realloc(wbuf, wcap * sizeof *wbuf);
		if (!wbuf) {
			perror("server-gen");
			exit(1);
		}
	}
	wbuf[wn++] = (struct wact){t, q, op, value};
}

static void *worker(void *arg)
{
	(void)arg;
	static char note[64];
	int stop = 0;
	while (!stop) {
		pthread_mutex_lock(&wlock);
		while (!wturn)
			pthread_cond_wait(&wcond, &wlock);
		for (size_t i = 0; i < wn; i++) {
			const struct wact *a = &wbuf[i];
			weft_clock_set((uint64_t)a->t);
			switch (a->op) {
			case W_IDLE:
				weft_run(0);
				weft_idle("pthread_cond_wait");
				events += 2;
				break;
			case W_RESUME:
				weft_resume();
				weft_run(POOL);
				events += 2;
				break;
			case W_START:
				weft_span_begin("execute");
				events++;
				break;
			case W_DONE:
			case W_FAIL:
				weft_span_end("execute");
				if (a->op == W_FAIL)
					weft_fail(a->q, "canceling statement "
							"due "
							"to statement timeout");
				else
					weft_resolve(a->q);
				if (a->value > 2000000) {
					snprintf(note, sizeof note,
						 "slow query: %.1f ms",
						 (double)a->value / 1e6);
					weft_note(a->q, note);
					events++;
				}
				weft_signal(LOOP); /* wakes the loop */
				events += 3;
				break;
			case W_STOP:
				weft_run(0);
				events++;
				stop = 1;
				break;
			}
		}
		wn = 0;
		wturn = 0;
		pthread_cond_broadcast(&wcond);
		pthread_mutex_unlock(&wlock);
	}
	return NULL;
}

/* Lets the worker record what is queued, and waits until it did. */
static void wflush(void)
{
	if (!wn)
		return;
	pthread_mutex_lock(&wlock);
	wturn = 1;
	pthread_cond_broadcast(&wcond);
	while (wturn)
		pthread_cond_wait(&wcond, &wlock);
	pthread_mutex_unlock(&wlock);
	weft_clock_set((uint64_t)now);
}

/* ------------------------------------------------------------- the server */

enum { REQ_FREE, REQ_DB, REQ_WRITE, REQ_UPSTREAM };

struct req {
	uint64_t id, query, write, upstream;
	int state, failed;
	int64_t deadline;
	uint32_t conn;
};

struct conn {
	uint64_t id, read;
	int fd, left, open;
	uint32_t req; /* in flight, or UINT32_MAX */
};

static struct conn *conns;
static uint32_t nconns, cconns;
static struct req *reqs;
static uint32_t nreqs, creqs;
static uint32_t *free_reqs;
static uint32_t nfree_reqs;
static uint64_t *free_writes;
static uint32_t nfree_writes, cfree_writes;
static uint64_t nrequests, nconnections;
static int64_t open_conns, in_flight, db_queue, db_free_at;

/* Timed items of the simulation: a binary heap by time (then sequence,
 * so that equal times keep their order: deterministic). */
enum item_kind {
	I_ARRIVE,
	I_REQUEST,
	I_DB,
	I_WRITE,
	I_UPSTREAM,
	I_TIMER,
	I_GC
};
struct item {
	int64_t t;
	uint64_t seq;
	int kind;
	uint32_t a;
	uint64_t gen; /* the request/connection incarnation it is for */
};

static struct item *heap;
static size_t nheap, cheap;
static uint64_t seq;

static int before(const struct item *x, const struct item *y)
{
	return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

static void push(int64_t t, int kind, uint32_t a, uint64_t gen)
{
	if (nheap == cheap) {
		cheap = cheap ? cheap * 2 : 4096;
		heap = realloc(heap, cheap * sizeof *heap);
		if (!heap) {
			perror("server-gen");
			exit(1);
		}
	}
	size_t i = nheap++;
	heap[i] = (struct item){t, seq++, kind, a, gen};
	while (i && before(&heap[i], &heap[(i - 1) / 2])) {
		struct item x = heap[i];
		heap[i] = heap[(i - 1) / 2];
		heap[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

static struct item pop(void)
{
	struct item top = heap[0];
	heap[0] = heap[--nheap];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < nheap && before(&heap[l], &heap[m]))
			m = l;
		if (r < nheap && before(&heap[r], &heap[m]))
			m = r;
		if (m == i)
			break;
		struct item x = heap[i];
		heap[i] = heap[m];
		heap[m] = x;
		i = m;
	}
	return top;
}

static void *grow(void *p, uint32_t *cap, size_t size)
{
	*cap = *cap ? *cap * 2 : 1024;
	p = realloc(p, (size_t)*cap * size);
	if (!p) {
		perror("server-gen");
		exit(1);
	}
	return p;
}

static double think_ns = 50e6; /* a client's pause between requests */

static uint32_t new_req(uint32_t c)
{
	uint32_t r;
	if (nfree_reqs)
		r = free_reqs[--nfree_reqs];
	else {
		if (nreqs == creqs) {
			reqs = grow(reqs, &creqs, sizeof *reqs);
			free_reqs =
				realloc(free_reqs, creqs * sizeof *free_reqs);
		}
		r = nreqs++;
	}
	memset(&reqs[r], 0, sizeof reqs[r]);
	reqs[r].id = next_id++;
	reqs[r].conn = c;
	return r;
}

static void end_req(uint32_t r)
{
	struct req *q = &reqs[r];
	if (q->write) {
		if (nfree_writes == cfree_writes)
			free_writes = grow(free_writes, &cfree_writes,
					   sizeof *free_writes);
		free_writes[nfree_writes++] =
			q->write; /* its address, reused */
	}
	if (q->conn < nconns && conns[q->conn].req == r)
		conns[q->conn].req = UINT32_MAX;
	q->state = REQ_FREE;
	q->id = 0;
	free_reqs[nfree_reqs++] = r;
	in_flight--;
	weft_counter_add("http.in_flight", -1);
	events++;
}

/* The next request of connection c, after the client thinks. */
static void next_request(uint32_t c)
{
	struct conn *k = &conns[c];
	if (k->left-- > 0)
		push(now + expo(think_ns), I_REQUEST, c, k->id);
	else /* the client closes: the read sees EOF */
		push(now + expo(think_ns / 4), I_REQUEST, c, k->id);
}

static void arrive(void)
{
	uint32_t c;
	if (nconns == cconns)
		conns = grow(conns, &cconns, sizeof *conns);
	c = nconns++;
	struct conn *k = &conns[c];
	k->id = next_id++;
	k->fd = 16 + (int)(c % 60000);
	k->left = 1 + (int)below(15); /* mean 8 requests */
	k->open = 1;
	k->req = UINT32_MAX;
	char lab[64];
	/* the listener's callback accepts it */
	weft_run(LISTENER);
	weft_create(k->id, "connection");
	snprintf(lab, sizeof lab, "conn 10.%u.%u.%u:%u fd %d",
		 (unsigned)below(4), (unsigned)below(256), (unsigned)below(256),
		 1024 + (unsigned)below(60000), k->fd);
	weft_label(k->id, lab);
	work(2000 + (int64_t)below(2000));
	/* the connection arms its first read */
	weft_run(k->id);
	k->read = next_id++;
	weft_create(k->read, "read");
	snprintf(lab, sizeof lab, "read fd %d", k->fd);
	weft_label(k->read, lab);
	weft_run(LOOP);
	events += 7;
	open_conns++;
	nconnections++;
	weft_counter_set("http.connections", open_conns);
	events++;
	next_request(c);
}

static void close_conn(uint32_t c, int reset)
{
	struct conn *k = &conns[c];
	if (!k->open)
		return;
	if (reset) {
		weft_fail(k->read, "ECONNRESET");
		weft_fail(k->id, "ECONNRESET");
		events += 2;
		if (k->req != UINT32_MAX) {
			struct req *q = &reqs[k->req];
			weft_cancel(q->id);
			events++;
			if (q->state == REQ_DB) {
				weft_cancel(q->query);
				db_queue--;
				events++;
			} else if (q->state == REQ_WRITE) {
				weft_cancel(q->write);
				events++;
			} else if (q->state == REQ_UPSTREAM) {
				weft_cancel(q->upstream);
				events++;
			}
			end_req(k->req);
		}
	} else {
		weft_resolve_run(k->read); /* EOF */
		work(1000);
		weft_run(LOOP);
		weft_resolve(k->id);
		events += 3;
	}
	/* the listener reaps it */
	weft_run(LISTENER);
	weft_read(k->id);
	weft_run(LOOP);
	events += 3;
	k->open = 0;
	open_conns--;
	weft_counter_set("http.connections", open_conns);
	events++;
}

/* A request arrives on connection c (or the client closes it). */
static void on_data(uint32_t c)
{
	struct conn *k = &conns[c];
	if (!k->open)
		return;
	if (k->left < 0) {
		close_conn(c, 0);
		return;
	}
	if (percent(1) && percent(30)) { /* 0.3 %: the peer resets */
		close_conn(c, 1);
		return;
	}
	uint64_t next = next_id++;
	weft_fire(k->read, next);
	k->read = next;
	weft_span_begin("parse");
	work(3000 + (int64_t)below(4000));
	weft_span_end("parse");
	events += 3;
	uint32_t r = new_req(c);
	struct req *q = &reqs[r];
	k->req = r;
	char lab[64];
	weft_create(q->id, "http request");
	snprintf(lab, sizeof lab, "GET /api/items/%u", (unsigned)below(100000));
	weft_label(q->id, lab);
	weft_should_resolve(q->id);
	q->deadline = now + 40000000; /* 40 ms */
	weft_run(q->id);
	in_flight++;
	weft_counter_add("http.in_flight", 1);
	events += 5;
	nrequests++;
	if (percent(5)) {
		/* proxied: the request becomes an upstream fetch */
		q->upstream = next_id++;
		weft_create_label(q->upstream, "upstream fetch",
				  "GET http://inventory:9000/stock");
		weft_becomes(q->id, q->upstream);
		q->state = REQ_UPSTREAM;
		push(now + 1000000 + expo(3e6), I_UPSTREAM, r, q->id);
		events += 2;
	} else {
		q->query = next_id++;
		weft_create_label(q->query, "db query",
				  "SELECT * FROM items WHERE id = $1");
		weft_signal(POOL);
		weft_try_read(q->query);
		q->state = REQ_DB;
		events += 3;
		/* the pool runs it when free */
		int64_t start = now > db_free_at ? now : db_free_at;
		int64_t d = 30000 + expo(percent(2) ? 2.5e6 : 60000);
		int fail = percent(3);
		if (start > db_free_at) {
			if (db_free_at)
				wpush(W_IDLE, db_free_at, 0, 0);
			wpush(W_RESUME, start, 0, 0);
		}
		db_queue++;
		weft_counter_set("db.queue", db_queue);
		events++;
		wpush(W_START, start, q->query, 0);
		wpush(fail ? W_FAIL : W_DONE, start + d, q->query, d);
		db_free_at = start + d;
		q->failed = fail;
		push(start + d + 20000, I_DB, r, q->id);
	}
	work(2000);
	weft_run(LOOP);
	events++;
}

/* The response: the request writes it and waits for the write. */
static void respond(struct req *q, uint64_t actor)
{
	weft_run(actor);
	uint64_t w = nfree_writes ? free_writes[--nfree_writes] : next_id++;
	q->write = w;
	weft_create_label(w, "write", "write response");
	weft_span_begin("render");
	work(4000 + (int64_t)below(8000));
	weft_span_end("render");
	weft_try_read(w);
	weft_run(LOOP);
	q->state = REQ_WRITE;
	events += 6;
	push(now + 30000 + (int64_t)below(40000), I_WRITE, (uint32_t)(q - reqs),
	     q->id);
}

static void on_db(uint32_t r)
{
	struct req *q = &reqs[r];
	weft_run(q->id);
	weft_read(q->query);
	events += 2;
	db_queue--;
	weft_counter_set("db.queue", db_queue);
	events++;
	respond(q, q->id);
}

static void on_upstream(uint32_t r)
{
	struct req *q = &reqs[r];
	weft_resolve_run(q->upstream);
	events++;
	respond(q, q->upstream);
}

static void on_write(uint32_t r)
{
	struct req *q = &reqs[r];
	uint64_t owner = q->upstream ? q->upstream : q->id;
	weft_resolve(q->write);
	weft_run(owner);
	weft_read(q->write);
	work(1000);
	weft_run(LOOP);
	if (q->failed)
		weft_fail(q->id, "HTTP 500: query failed");
	else if (!q->upstream) /* (an upstream fetch resolved already) */
		weft_resolve(q->id);
	events += 5;
	uint32_t c = q->conn;
	end_req(r);
	next_request(c);
}

static uint64_t timer;

static void on_timer(void)
{
	uint64_t next = next_id++;
	weft_fire(timer, next);
	timer = next;
	events++;
	work(5000);
	/* requests past their deadline are cancelled */
	for (uint32_t r = 0; r < nreqs; r++) {
		struct req *q = &reqs[r];
		if (q->state != REQ_DB || q->deadline > now)
			continue;
		weft_cancel(q->id);
		weft_cancel(q->query);
		db_queue--;
		events += 2;
		uint32_t c = q->conn;
		end_req(r);
		push(now + 1000, I_REQUEST, c, conns[c].id); /* 408 and on */
	}
	weft_run(LOOP);
	events++;
	push(now + 50000000, I_TIMER, 0, 0);
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	uint64_t target = 1000000, nconn = 300, size = 0;
	unsigned mode = WEFT_DISCARD; /* --overwrite: the newest kept */
	rng = 0x9E3779B97F4A7C15ull;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-o") && v)
			out = argv[++i];
		else if (!strcmp(a, "-n") && v)
			target = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "-c") && v)
			nconn = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "-s") && v)
			rng ^= strtoull(argv[++i], NULL, 0) *
			       0xD1B54A32D192ED03ull;
		else if (!strcmp(a, "--size") && v)
			size = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(a, "--overwrite"))
			mode = 0; /* (bench/keep-soak.sh: a ring that wraps) */
		else {
			fprintf(stderr, "usage: server-gen [-n EVENTS] [-c "
					"CONNS] "
					"[-s SEED] [--size BYTES] -o FILE\n");
			return 2;
		}
	}
	if (!out || !nconn || !target) {
		fprintf(stderr, "usage: server-gen [-n EVENTS] [-c CONNS] "
				"[-s SEED] [--size BYTES] -o FILE\n");
		return 2;
	}
	if (!rng)
		rng = 1;
	/* about 16 bytes per event, and room */
	if (!size)
		size = target * 16 + (64u << 20);
	int err = weft_start(out, size, mode | WEFT_CLOCK_MANUAL);
	if (err) {
		fprintf(stderr,
			"server-gen: cannot start tracing into '%s': %s\n", out,
			weft_strerror(err));
		return 1;
	}
	pthread_t wt;
	if (pthread_create(&wt, NULL, worker, NULL)) {
		perror("server-gen");
		return 1;
	}
	at(1000);
	weft_create(LOOP, "event loop");
	weft_label(LOOP, "server loop (epoll)");
	weft_run(LOOP);
	weft_create(LISTENER, "tcp listener");
	weft_label(LISTENER, "listen 0.0.0.0:8080");
	weft_create(POOL, "db pool");
	weft_label(POOL, "postgres pool");
	timer = next_id++;
	weft_create(timer, "timer");
	weft_label(timer, "deadline sweep every 50 ms");
	events += 10;
	wpush(W_RESUME, now + 1000, 0, 0);
	db_free_at = now + 1000;
	/* a connection lives about 8 requests: arrivals keep nconn open */
	double life = 8 * (think_ns + 1.2e6);
	double gap = life / (double)nconn;
	push(now + expo(gap), I_ARRIVE, 0, 0);
	push(now + 50000000, I_TIMER, 0, 0);
	push(now + 100000000, I_GC, 0, 0);
	while (events < target) {
		/* one iteration of the loop */
		weft_phase("timers");
		events++;
		while (nheap && heap[0].t <= now &&
		       (heap[0].kind == I_TIMER || heap[0].kind == I_GC)) {
			struct item it = pop();
			if (it.kind == I_TIMER)
				on_timer();
			else {
				int64_t d = 200000 + (int64_t)below(400000);
				work(d);
				weft_pause("gc", (uint64_t)d);
				events++;
				push(now + 80000000 + expo(4e7), I_GC, 0, 0);
			}
		}
		weft_phase("pending");
		events++;
		while (nheap && heap[0].t <= now && heap[0].kind == I_WRITE) {
			struct item it = pop();
			if (reqs[it.a].id == it.gen &&
			    reqs[it.a].state == REQ_WRITE)
				on_write(it.a);
		}
		/* poll: wait for the next thing due */
		weft_idle(POLL);
		events++;
		if (nheap && heap[0].t > now)
			at(heap[0].t);
		else
			work(500);
		weft_resume();
		events++;
		int budget = 64; /* callbacks per iteration */
		while (nheap && heap[0].t <= now && budget-- > 0) {
			if (heap[0].kind == I_TIMER || heap[0].kind == I_GC ||
			    heap[0].kind == I_WRITE)
				break;
			struct item it = pop();
			switch (it.kind) {
			case I_ARRIVE:
				arrive();
				push(now + expo(gap), I_ARRIVE, 0, 0);
				break;
			case I_REQUEST:
				if (conns[it.a].id == it.gen)
					on_data(it.a);
				break;
			case I_DB:
				if (reqs[it.a].id == it.gen &&
				    reqs[it.a].state == REQ_DB)
					on_db(it.a);
				break;
			case I_UPSTREAM:
				if (reqs[it.a].id == it.gen &&
				    reqs[it.a].state == REQ_UPSTREAM)
					on_upstream(it.a);
				break;
			}
		}
		weft_phase("closing");
		events++;
		work(300);
		if (wn >= 4096)
			wflush();
	}
	weft_phase(NULL);
	weft_run(0);
	events += 2;
	wpush(W_STOP, db_free_at > now ? db_free_at : now, 0, 0);
	wflush();
	pthread_join(wt, NULL);
	err = weft_stop();
	if (err) {
		fprintf(stderr, "server-gen: %s\n", weft_strerror(err));
		return 1;
	}
	printf("%llu %llu %llu\n", (unsigned long long)events,
	       (unsigned long long)nrequests, (unsigned long long)nconnections);
	return 0;
}
