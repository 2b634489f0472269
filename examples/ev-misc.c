/* SPDX-License-Identifier: MIT */
/*
 * ev-misc.c - libevent's kinds of events, in a program with no tracing
 * code: `weft record -- build/examples/ev-misc` traces them.
 *
 * A one-shot timer writes to a socket pair; a persistent read event on
 * the other end reads it with read() (a request of the read's activation)
 * and removes itself; a persistent timer ticks three times and deletes
 * itself; a read event that never gets data times out; SIGUSR1 raised in
 * a callback runs a signal event; a user event is activated three times
 * from another OS thread; event_base_once runs a callback at once; an
 * event created with event_self_cbarg() gets itself as its argument, and
 * the getters still give the program's callback and argument.  Then a
 * base with two priorities runs an urgent and a lazy event.
 */
#include <event2/event.h>
#include <event2/thread.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct event_base *base;
static struct event *tick, *rd, *quiet, *sig, *user, *self_ev, *keep;
static int sv[2], qv[2], ticks, users;
static pthread_t poker;
static int tag = 42;

void on_tick(evutil_socket_t fd, short what, void *arg);
void on_read(evutil_socket_t fd, short what, void *arg);
void on_once(evutil_socket_t fd, short what, void *arg);
void on_quiet(evutil_socket_t fd, short what, void *arg);
void on_signal(evutil_socket_t fd, short what, void *arg);
void on_user(evutil_socket_t fd, short what, void *arg);
void on_base_once(evutil_socket_t fd, short what, void *arg);
void on_self(evutil_socket_t fd, short what, void *arg);
void on_prio(evutil_socket_t fd, short what, void *arg);

void on_prio(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	printf("priority: %s\n", (const char *)arg);
}

void on_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	printf("tick %d\n", ++ticks);
	if (ticks == 3)
		event_del(tick);
}

void on_read(evutil_socket_t fd, short what, void *arg)
{
	char buf[64];
	(void)what;
	(void)arg;
	ssize_t n = read(fd, buf, sizeof buf);
	printf("read %zd bytes: %.*s\n", n, (int)(n > 0 ? n : 0), buf);
	event_del(rd);
	raise(SIGUSR1);
}

void on_once(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	puts("once");
	if (write(sv[0], "hello", 5) != 5)
		perror("write");
}

void on_quiet(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)arg;
	printf("quiet: %s\n", what & EV_TIMEOUT ? "timed out" : "read");
}

void on_signal(evutil_socket_t fd, short what, void *arg)
{
	(void)what;
	(void)arg;
	printf("signal %d\n", (int)fd);
	event_del(sig);
}

/* Each activation waits for the run of the one before: two made before
 * the loop came round would be one. */
static sem_t user_ran;

static void *poke(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++) {
		event_active(user, EV_READ, 0);
		while (sem_wait(&user_ran) < 0)
			;
	}
	return NULL;
}

void on_keep(evutil_socket_t fd, short what, void *arg);
void on_keep(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
}

void on_user(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	if (++users == 3) {
		puts("user event three times");
		event_del(user);
		event_del(keep);
	}
	sem_post(&user_ran);
}

void on_base_once(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	printf("base once, arg %d\n", *(int *)arg);
}

void on_self(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	printf("self: %s\n", arg == self_ev ? "the event" : "something else");
	event_free(self_ev);
}

int main(void)
{
	evthread_use_pthreads();
	base = event_base_new();
	if (!base || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) ||
	    socketpair(AF_UNIX, SOCK_STREAM, 0, qv))
		return 1;
	evutil_make_socket_nonblocking(sv[1]);
	evutil_make_socket_nonblocking(qv[1]);
	struct timeval ms2 = {0, 2000}, ms5 = {0, 20000}, ms30 = {0, 60000};

	tick = event_new(base, -1, EV_PERSIST, on_tick, NULL);
	event_add(tick, &ms2);
	struct event *once = evtimer_new(base, on_once, NULL);
	event_add(once, &ms5);
	rd = event_new(base, sv[1], EV_READ | EV_PERSIST, on_read, &tag);
	event_add(rd, NULL);
	quiet = event_new(base, qv[1], EV_READ, on_quiet, NULL);
	event_add(quiet, &ms30);
	sig = evsignal_new(base, SIGUSR1, on_signal, NULL);
	event_add(sig, NULL);
	user = event_new(base, -1, EV_PERSIST, on_user, NULL);
	event_add(user, NULL);
	/* An event with no descriptor and no timeout does not keep the loop
	 * running: this timer does, until the user event ran three times. */
	keep = event_new(base, -1, EV_PERSIST, on_keep, NULL);
	struct timeval s10 = {10, 0};
	event_add(keep, &s10);
	event_base_once(base, -1, EV_TIMEOUT, on_base_once, &tag, NULL);
	self_ev = event_new(base, -1, 0, on_self, event_self_cbarg());
	event_active(self_ev, EV_TIMEOUT, 0);
	printf("getters: %s\n",
	       event_get_callback(rd) == on_read &&
			       event_get_callback_arg(rd) == &tag
		       ? "the program's"
		       : "changed");
	sem_init(&user_ran, 0, 0);
	pthread_create(&poker, NULL, poke, NULL);

	event_base_loop(base, EVLOOP_ONCE);
	event_base_dispatch(base); /* until no event is left */
	pthread_join(poker, NULL);
	event_free(tick);
	event_free(once);
	event_free(rd);
	event_free(quiet);
	event_free(sig);
	event_free(user);
	event_free(keep);
	event_base_free(base);

	/* two priorities: each queue is a phase of its own */
	struct event_base *pb = event_base_new();
	if (!pb || event_base_priority_init(pb, 2))
		return 1;
	static char lazy_s[] = "lazy", urgent_s[] = "urgent";
	struct event *lazy = event_new(pb, -1, 0, on_prio, lazy_s);
	struct event *urgent = event_new(pb, -1, 0, on_prio, urgent_s);
	event_priority_set(lazy, 1);
	event_priority_set(urgent, 0);
	event_active(lazy, EV_TIMEOUT, 0);
	event_active(urgent, EV_TIMEOUT, 0);
	event_base_loop(pb, EVLOOP_ONCE);
	event_free(lazy);
	event_free(urgent);
	event_base_free(pb);
	close(sv[0]);
	close(sv[1]);
	close(qv[0]);
	close(qv[1]);
	return 0;
}
