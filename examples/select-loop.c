/* SPDX-License-Identifier: MIT */
/*
 * select-loop.c - how to instrument any event loop by hand with weft.h:
 * a select() loop with one "read ready" handler per file descriptor.
 * Every place a loop does something maps to one call:
 *   the loop itself                  weft_create + weft_run around the loop
 *   blocking in select()             weft_idle("select") / weft_resume()
 *   a handler armed (a wait)         weft_create(activation, kind)
 *   the event arrives                weft_resolve(activation) by the loop
 *   the handler runs                 weft_run(activation) ... weft_run(loop)
 * See docs/other-loops.md.
 */
#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include <weft/weft.h>

#define LOOP 1
static uint64_t next_id = 100;

struct watch {
	int fd;
	uint64_t activation; /* the pending "readable" wait */
	void (*on_ready)(struct watch *);
};

static void arm(struct watch *w, const char *what)
{
	w->activation = next_id++;
	weft_create(w->activation, "fd readable");
	weft_label(w->activation, what);
}

static int lines;

static void on_pipe(struct watch *w)
{
	char buf[64];
	ssize_t n = read(w->fd, buf, sizeof buf);
	lines += n > 0;
	weft_counter_add("bytes read", n > 0 ? n : 0);
}

int main(void)
{
	int p[2];
	if (pipe(p))
		return 1;
	struct watch w = {p[0], 0, on_pipe};
	weft_create(LOOP, "select loop");
	weft_run(LOOP);
	arm(&w, "read the pipe");
	for (int round = 0; round < 3; round++) {
		if (write(p[1], "tick\n", 5) != 5) /* an event source */
			return 1;
		fd_set rd;
		FD_ZERO(&rd);
		FD_SET(w.fd, &rd);
		weft_idle("select");
		int n = select(w.fd + 1, &rd, NULL, NULL, NULL);
		weft_resume();
		if (n > 0 && FD_ISSET(w.fd, &rd)) {
			uint64_t a = w.activation;
			weft_resolve(a);	  /* the loop: it is ready */
			weft_run(a);		  /* the handler runs as it */
			arm(&w, "read the pipe"); /* it waits again */
			w.on_ready(&w);
			weft_run(LOOP);
		}
	}
	weft_cancel(w.activation); /* closing: the last wait ends */
	weft_resolve(LOOP);
	weft_run(0);
	printf("select-loop: %d reads\n", lines);
	return 0;
}
