/* SPDX-License-Identifier: MIT */
/*
 * harness.h - weft's test harness: each case runs in a forked child with
 * a time-out, so a crash or a hang fails that case only.  Output is TAP,
 * ending with "# N passed, N failed, N skipped"; the exit status is non-zero
 * on any failure.
 *
 *   TEST(name) { CHECK_EQ(1 + 1, 2); }
 *   ...
 *   TEST_MAIN(T(name), T(other))
 *
 * `prog NAME...` runs only the named cases (an unknown name fails).
 * WEFT_TEST_TIMEOUT (seconds, default 60) bounds each case.  A case calls
 * SKIP("why") to be skipped;
 * the reason goes on its TAP line ("ok 3 - name # SKIP why"), where
 * tests/run reads and shows it.
 *
 * Each case runs with TMPDIR set to a scratch directory of its own, which
 * the harness removes when the case passes or is skipped; a failed case's
 * is kept, and named, for a look at its traces (WEFT_TEST_KEEP=1 keeps
 * every one).  What a case and its own children write there cannot fill
 * the disk over many runs: a few rings are 64 MiB.
 */
#ifndef WEFT_TEST_HARNESS_H
#define WEFT_TEST_HARNESS_H

#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct test_case {
	const char *name;
	void (*fn)(void);
};

#define TEST(name) static void test_##name(void)
/* clang-format off */
#define T(name) {#name, test_##name}
/* clang-format on */

static inline void test_fail_(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
static inline void test_fail_(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "# %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	_exit(1);
}

/* The write end of the pipe through which a case tells the harness why it
 * skipped itself (the reason goes on its TAP line). */
static int test_skip_fd_ = -1;

static inline void test_skip_(const char *why) __attribute__((noreturn));
static inline void test_skip_(const char *why)
{
	fprintf(stderr, "# skip: %s\n", why);
	fflush(stderr);
	if (test_skip_fd_ >= 0 && write(test_skip_fd_, why, strlen(why)) < 0)
		_exit(1);
	_exit(77);
}

#define FAIL(...) test_fail_(__FILE__, __LINE__, __VA_ARGS__)
#define SKIP(why) test_skip_(why)
#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond))                                                   \
			FAIL("CHECK(%s) failed", #cond);                       \
	} while (0)
#define CHECK_EQ(a, b)                                                         \
	do {                                                                   \
		long long a_ = (long long)(a), b_ = (long long)(b);            \
		if (a_ != b_)                                                  \
			FAIL("CHECK_EQ(%s, %s): %lld != %lld", #a, #b, a_,     \
			     b_);                                              \
	} while (0)
#define CHECK_U64(a, b)                                                        \
	do {                                                                   \
		uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);               \
		if (a_ != b_)                                                  \
			FAIL("CHECK_U64(%s, %s): 0x%" PRIx64 " != 0x%" PRIx64, \
			     #a, #b, a_, b_);                                  \
	} while (0)
#define CHECK_STR(a, b)                                                        \
	do {                                                                   \
		const char *a_ = (a), *b_ = (b);                               \
		if (!a_ || !b_ || strcmp(a_, b_))                              \
			FAIL("CHECK_STR(%s, %s): \"%s\" != \"%s\"", #a, #b,    \
			     a_ ? a_ : "(null)", b_ ? b_ : "(null)");          \
	} while (0)
#define CHECK_OK(expr)                                                         \
	do {                                                                   \
		long long e_ = (long long)(expr);                              \
		if (e_ != 0)                                                   \
			FAIL("%s returned %lld", #expr, e_);                   \
	} while (0)

/* Removes a directory and what is in it (symbolic links not followed). */
static inline void test_rm_(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char sub[4096];
		struct stat sb;
		if (snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) >=
		    (int)sizeof sub)
			continue;
		if (lstat(sub, &sb) == 0 && S_ISDIR(sb.st_mode))
			test_rm_(sub);
		else
			unlink(sub);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

static inline int test_run_(const struct test_case *tc, int n, int argc,
			    char **argv)
{
	int passed = 0, failed = 0, skipped = 0, num = 0;
	const char *to = getenv("WEFT_TEST_TIMEOUT");
	unsigned timeout = to ? (unsigned)atoi(to) : 60;
	int selected = 0;
	for (int i = 0; i < n; i++) {
		int want = argc <= 1;
		for (int k = 1; k < argc; k++)
			if (!strcmp(argv[k], tc[i].name))
				want = 1;
		selected += want;
	}
	/* A case asked for by a name that no case has is an error, not an
	 * empty run that passes. */
	for (int k = 1; k < argc; k++) {
		int known = 0;
		for (int i = 0; i < n; i++)
			known |= !strcmp(argv[k], tc[i].name);
		if (!known) {
			printf("1..1\nnot ok 1 - no case is called %s\n",
			       argv[k]);
			return 1;
		}
	}
	printf("1..%d\n", selected);
	fflush(stdout);
	for (int i = 0; i < n; i++) {
		int want = argc <= 1;
		for (int k = 1; k < argc; k++)
			if (!strcmp(argv[k], tc[i].name))
				want = 1;
		if (!want)
			continue;
		num++;
		fflush(stdout);
		fflush(stderr);
		const char *base = getenv("TMPDIR");
		char scratch[4096];
		snprintf(scratch, sizeof scratch, "%s/weft-case.XXXXXX",
			 base && *base ? base : "/tmp");
		int have_scratch = mkdtemp(scratch) != NULL;
		int skip_pipe[2] = {-1, -1};
		if (pipe(skip_pipe) < 0) {
			skip_pipe[0] = skip_pipe[1] = -1;
		} else { /* (a grandchild elsewhere may hold it open) */
			fcntl(skip_pipe[0], F_SETFL, O_NONBLOCK);
			fcntl(skip_pipe[0], F_SETFD, FD_CLOEXEC);
			fcntl(skip_pipe[1], F_SETFD, FD_CLOEXEC);
		}
		pid_t pid = fork();
		if (pid == 0) {
			setpgid(0, 0);
			if (skip_pipe[0] >= 0)
				close(skip_pipe[0]);
			test_skip_fd_ = skip_pipe[1];
			alarm(timeout);
			if (have_scratch)
				setenv("TMPDIR", scratch, 1);
			tc[i].fn();
			fflush(stdout);
			fflush(stderr);
			_exit(0);
		}
		int st = 0;
		if (skip_pipe[1] >= 0)
			close(skip_pipe[1]);
		waitpid(pid, &st, 0);
		/* A case's own children (servers, writers) die with it. */
		kill(-pid, SIGKILL);
		/* Why it skipped itself, if it did: written before it exited. */
		char why[200] = "";
		if (skip_pipe[0] >= 0) {
			ssize_t got = read(skip_pipe[0], why, sizeof why - 1);
			why[got > 0 ? got : 0] = 0;
			close(skip_pipe[0]);
		}
		for (char *c = why; *c; c++)
			if (*c == '\n' || *c == '#')
				*c = ' ';
		int good = WIFEXITED(st) &&
			   (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 77);
		if (have_scratch && good && !getenv("WEFT_TEST_KEEP"))
			test_rm_(scratch);
		else if (have_scratch)
			printf("# %s: scratch kept in %s\n", tc[i].name,
			       scratch);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			printf("ok %d - %s\n", num, tc[i].name);
			passed++;
		} else if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
			printf("ok %d - %s # SKIP %s\n", num, tc[i].name,
			       why[0] ? why : "no reason given");
			skipped++;
		} else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) {
			printf("not ok %d - %s # timed out after %us\n", num,
			       tc[i].name, timeout);
			failed++;
		} else if (WIFSIGNALED(st)) {
			printf("not ok %d - %s # killed by signal %d\n", num,
			       tc[i].name, WTERMSIG(st));
			failed++;
		} else {
			printf("not ok %d - %s\n", num, tc[i].name);
			failed++;
		}
		fflush(stdout);
	}
	printf("# %d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}

#define TEST_MAIN(...)                                                         \
	int main(int argc, char **argv)                                        \
	{                                                                      \
		static const struct test_case tc_[] = {__VA_ARGS__};           \
		return test_run_(tc_, (int)(sizeof tc_ / sizeof *tc_), argc,   \
				 argv);                                        \
	}

#endif
