/* SPDX-License-Identifier: MIT */
/*
 * record-loops.c - which loop shims `weft record` preloads, and which
 * loops a trace shows were traced.
 *
 * A program needs the shim of each loop library it links (libuv,
 * libevent, GLib), found the way the dynamic loader finds them: glibc's
 * loader lists the libraries of an executable without running it
 * (`ld.so --list`), and a script is judged by its interpreter
 * (`#!/usr/bin/env node` by node).  A command that links none of them (a
 * shell, a test runner, a statically linked program) gets every shim:
 * what it starts may need them, and a shim whose library a process does
 * not load is never called there.  --loops chooses instead.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "record-loops.h"

#ifndef WEFT_SHIM_BUILD
#define WEFT_SHIM_BUILD ""
#endif
#ifndef WEFT_SHIM_INSTALL_DIR
#define WEFT_SHIM_INSTALL_DIR ""
#endif
#ifndef WEFT_LIB_BUILD
#define WEFT_LIB_BUILD ""
#endif
#ifndef WEFT_LIB_INSTALL
#define WEFT_LIB_INSTALL ""
#endif
#ifndef WEFT_SHIM_UV_BUILD
#define WEFT_SHIM_UV_BUILD ""
#endif
#ifndef WEFT_SHIM_EVENT_BUILD
#define WEFT_SHIM_EVENT_BUILD ""
#endif
#ifndef WEFT_SHIM_GLIB_BUILD
#define WEFT_SHIM_GLIB_BUILD ""
#endif

static const struct loop {
	const char *name;  /* as said to the user */
	const char *opt;   /* in --loops */
	const char *lib;   /* a part of the library's file name */
	const char *build; /* the shim in this build tree, "" if not built */
	const char *file;  /* the shim's file name where installed */
	const char *kind;  /* the kind of a loop's thread in a trace */
} loops[] = {
	{"libuv", "uv", "libuv.so", WEFT_SHIM_UV_BUILD, "libweft-uv.so",
	 "uv_loop_t"},
	{"libevent", "event", "libevent", WEFT_SHIM_EVENT_BUILD,
	 "libweft-event.so", "event_base"},
	{"GLib", "glib", "libglib-2.0.so", WEFT_SHIM_GLIB_BUILD,
	 "libweft-glib.so", "GMainContext"},
};
#define NLOOPS (sizeof loops / sizeof *loops)

/* $WEFT_SHIM_DIR/FILE, else the build's, else the installed one; NULL
 * when there is none. */
static const char *shim_path(const char *build, const char *file, char *buf,
			     size_t cap)
{
	const char *dir = getenv("WEFT_SHIM_DIR");
	if (dir && *dir) {
		snprintf(buf, cap, "%s/%s", dir, file);
		return access(buf, R_OK) == 0 ? buf : NULL;
	}
	if (*build && access(build, R_OK) == 0)
		return build;
	if (!*WEFT_SHIM_INSTALL_DIR)
		return NULL;
	snprintf(buf, cap, "%s/%s", WEFT_SHIM_INSTALL_DIR, file);
	return access(buf, R_OK) == 0 ? buf : NULL;
}

/* CMD as execvp would find it. */
static int resolve(const char *cmd, char *out, size_t cap)
{
	if (strchr(cmd, '/')) {
		snprintf(out, cap, "%s", cmd);
		return access(out, X_OK);
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		snprintf(out, cap, "%.*s%s%s", (int)n, path, n ? "/" : "", cmd);
		struct stat st;
		if (access(out, X_OK) == 0 && stat(out, &st) == 0 &&
		    S_ISREG(st.st_mode))
			return 0;
		path += n + (path[n] == ':');
	}
	return -1;
}

/* The program interpreter of a dynamically linked ELF executable of this
 * machine's class, into interp; -1 when there is none. */
static int elf_interp(int fd, char *interp, size_t cap)
{
	ElfW(Ehdr) eh;
	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] !=
		    (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum > 256)
		return -1;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		ElfW(Phdr) ph;
		if (pread(fd, &ph, sizeof ph,
			  (off_t)(eh.e_phoff + i * sizeof ph)) !=
		    (ssize_t)sizeof ph)
			return -1;
		if (ph.p_type != PT_INTERP)
			continue;
		if (ph.p_filesz == 0 || ph.p_filesz >= cap ||
		    pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset) !=
			    (ssize_t)ph.p_filesz)
			return -1;
		interp[ph.p_filesz] = 0;
		return interp[0] ? 0 : -1;
	}
	return -1;
}

/* What `INTERP --list PROG` prints (glibc's loader lists a program's
 * libraries without running it), into out. */
static int list_libs(const char *interp, const char *prog, char *out,
		     size_t cap)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(p[1], 1);
		if (null >= 0)
			dup2(null, 2);
		execl(interp, interp, "--list", prog, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	size_t n = 0;
	ssize_t k;
	while (n + 1 < cap && ((k = read(p[0], out + n, cap - 1 - n)) > 0 ||
			       (k < 0 && errno == EINTR)))
		if (k > 0)
			n += (size_t)k;
	out[n] = 0;
	close(p[0]);
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* The loops PROG links (a bit per loops[] entry), following a script to
 * its interpreter; 0 when it links none or cannot be told. */
static unsigned linked_loops(const char *cmd, int depth)
{
	char path[PATH_MAX];
	if (depth > 4 || resolve(cmd, path, sizeof path) < 0)
		return 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	char head[PATH_MAX];
	ssize_t n = pread(fd, head, sizeof head - 1, 0);
	char interp[PATH_MAX];
	int dyn = elf_interp(fd, interp, sizeof interp) == 0;
	close(fd);
	if (n > 2 && head[0] == '#' && head[1] == '!') {
		/* "#!INTERP [ARG]": env's ARG is the program */
		head[n] = 0;
		char *s = head + 2 + strspn(head + 2, " \t");
		s[strcspn(s, "\n")] = 0;
		char *arg = s + strcspn(s, " \t");
		if (*arg)
			*arg++ = 0;
		arg += strspn(arg, " \t");
		arg[strcspn(arg, " \t")] = 0;
		const char *base = strrchr(s, '/') ? strrchr(s, '/') + 1 : s;
		if (!strcmp(base, "env") && *arg && *arg != '-')
			return linked_loops(arg, depth + 1);
		return *s == '/' ? linked_loops(s, depth + 1) : 0;
	}
	/* Only glibc's loader is asked: another might run the program. */
	const char *ib = strrchr(interp, '/') ? strrchr(interp, '/') + 1
					      : interp;
	if (!dyn || strncmp(ib, "ld-linux", 8))
		return 0;
	static char out[65536];
	if (list_libs(interp, path, out, sizeof out) < 0)
		return 0;
	unsigned mask = 0;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		line += strspn(line, " \t");
		line[strcspn(line, " \t")] = 0; /* the name before " => " */
		for (unsigned i = 0; i < NLOOPS; i++)
			if (!strncmp(line, loops[i].lib, strlen(loops[i].lib)))
				mask |= 1u << i;
	}
	return mask;
}

static void add(char *s, size_t cap, const char *sep, const char *part)
{
	size_t n = strlen(s);
	snprintf(s + n, cap - n, "%s%s", n ? sep : "", part);
}

/* Puts `part:` in front of the list s. */
static int prepend(char *s, size_t cap, const char *part)
{
	size_t k = strlen(part) + 1, n = strlen(s);
	if (k + n + 1 > cap)
		return -1;
	memmove(s + k, s, n + 1);
	memcpy(s, part, k - 1);
	s[k - 1] = ':';
	return 0;
}

/* The libweft the shims link, for the shims' common part at `common`:
 * preloaded by its path, it is not searched for along their run path in
 * every process (a dozen hardware-capability subdirectories of each
 * directory: tens of failed opens before main).  NULL: let the loader
 * search. */
static const char *libweft_path(const char *common, char *buf, size_t cap)
{
	if (!strcmp(common, WEFT_SHIM_BUILD))
		return *WEFT_LIB_BUILD && access(WEFT_LIB_BUILD, R_OK) == 0
			       ? WEFT_LIB_BUILD
			       : NULL;
	/* installed, or WEFT_SHIM_DIR: DIR/libweft-shim.so's libweft is
	 * DIR/../libweft.so.0 (the shims' run path), else the installed one */
	const char *slash = strrchr(common, '/');
	if (slash &&
	    (size_t)snprintf(buf, cap, "%.*s/../libweft.so.0",
			     (int)(slash - common), common) < cap &&
	    access(buf, R_OK) == 0)
		return buf;
	return *WEFT_LIB_INSTALL && access(WEFT_LIB_INSTALL, R_OK) == 0
		       ? WEFT_LIB_INSTALL
		       : NULL;
}

int record_loops_choose(const char *cmd, const char *choice,
			struct record_loops *out)
{
	memset(out, 0, sizeof *out);
	unsigned mask = 0;
	const char *why;
	int all = 0; /* not chosen: a missing shim is not worth a word */
	if (choice) {
		char buf[256];
		snprintf(buf, sizeof buf, "%s", choice);
		for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
			unsigned i = 0;
			if (!strcmp(t, "all"))
				mask |= (1u << NLOOPS) - 1;
			else if (strcmp(t, "none")) {
				while (i < NLOOPS && strcmp(t, loops[i].opt))
					i++;
				if (i == NLOOPS)
					return -1;
				mask |= 1u << i;
			}
		}
		why = "chosen with --loops";
	} else if ((mask = linked_loops(cmd, 0))) {
		why = "what it links";
	} else {
		mask = (1u << NLOOPS) - 1;
		all = 1;
		why = "it links none of them: all, for what it may start";
	}
	char buf[PATH_MAX];
	for (unsigned i = 0; i < NLOOPS; i++) {
		if (!(mask & (1u << i)))
			continue;
		const char *p = shim_path(loops[i].build, loops[i].file, buf,
					  sizeof buf);
		if (!p) {
			if (!all)
				add(out->missing, sizeof out->missing, ", ",
				    loops[i].name);
			continue;
		}
		add(out->preload, sizeof out->preload, ":", p);
		add(out->what, sizeof out->what, ", ", loops[i].name);
	}
	if (out->preload[0]) {
		const char *common = shim_path(
			WEFT_SHIM_BUILD, "libweft-shim.so", buf, sizeof buf);
		if (!common) {
			add(out->missing, sizeof out->missing, ", ",
			    "the shims' common part (libweft-shim.so)");
			out->preload[0] = out->what[0] = 0;
		} else {
			/* the common part first: its waits come before libc's */
			if (prepend(out->preload, sizeof out->preload, common) <
			    0)
				return -1;
			/* libweft before it, by its path (see libweft_path) */
			char lbuf[PATH_MAX];
			const char *lib =
				libweft_path(common, lbuf, sizeof lbuf);
			if (lib &&
			    prepend(out->preload, sizeof out->preload, lib) < 0)
				return -1;
		}
	}
	size_t n = strlen(out->what);
	if (n)
		snprintf(out->what + n, sizeof out->what - n, " (%s)", why);
	return 0;
}

unsigned record_loop_of_kind(const char *kind)
{
	for (unsigned i = 0; kind && i < NLOOPS; i++)
		if (!strcmp(kind, loops[i].kind))
			return 1u << i;
	return 0;
}

void record_loops_names(unsigned mask, char *buf, size_t cap)
{
	buf[0] = 0;
	for (unsigned i = 0; i < NLOOPS; i++)
		if (mask & (1u << i))
			add(buf, cap, ", ", loops[i].name);
}
