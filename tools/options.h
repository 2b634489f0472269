/* SPDX-License-Identifier: MIT */
/*
 * options.h - each command's options as one table: the parser reads it,
 * `weft CMD --help` prints it, and tests/cli/test-usage.sh checks the man
 * page against it.  An option a command accepts is an entry of its table
 * or it is not accepted at all, so help and parser cannot drift apart.
 */
#ifndef WEFT_OPTIONS_H
#define WEFT_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum opt_kind {
	OPT_FLAG,     /* sets *(int *)var to 1 */
	OPT_STRING,   /* *(const char **)var = the value */
	OPT_INT,      /* *(int *)var, within min..max */
	OPT_DURATION, /* *(int64_t *)var in ns, within min..max; bare numbers
			 in units of `unit` ns (parse_duration) */
	OPT_LIST,     /* appends to struct opt_list *var */
	OPT_CHOICE,   /* *(int *)var = the index of the value in `choices` */
	OPT_FUNC,     /* fn(ctx, value): 0, or -1 with what the value must be
			 in why ("must be ... (not 'x')") */
};

struct opt_list {
	const char **v;
	int n, cap;
};

struct opt {
	const char *name;  /* "--width", "-o" */
	const char *alias; /* another spelling ("-f"), or NULL */
	const char *arg;   /* the value's placeholder ("W"); NULL: none */
	const char *help;  /* what it does: for --help and the man page */
	enum opt_kind kind;
	void *var;
	long long min, max; /* OPT_INT, OPT_DURATION (max 0: no limit) */
	double unit;	    /* OPT_DURATION: ns of a number with no unit */
	int (*fn)(void *ctx, const char *value, char *why, size_t cap);
	void *ctx;
	const char *choices; /* OPT_CHOICE: "label|raw|kind" */
};

#define OPT_END                                                                \
	{                                                                      \
		0                                                              \
	}

/* opts_parse's flags */
#define OPTS_STOP_AT_ARG 1u /* options end at the first operand (record) */

struct cmd_usage {
	const char *name;     /* "render" */
	const char *synopsis; /* operands and options, after "weft NAME ";
				 lines separated by '\n' */
	const char *about;    /* what the command does, a paragraph */
	const struct opt *opts;
	unsigned flags;
};

/*
 * Parses argv[1..argc-1] by u's table: "--name VALUE", "--name=VALUE",
 * "-o VALUE", "-h"/"--help", operands ("-" is one) in order into
 * ops[*nops] (room for argc), and everything after "--" as operands
 * (*dashdash: how many operands came before it, -1 with no "--").
 * Returns -1 to go on, else the exit status the command returns: 0 when
 * the help was printed (standard output), 2 after a usage error was said
 * (the option, the value, what it must be, and the nearest option for a
 * mistyped one).
 */
int opts_parse(const struct cmd_usage *u, int argc, char **argv,
	       const char **ops, int *nops, int *dashdash);

/* Prints the help of a command (standard output). */
void opts_help(const struct cmd_usage *u, FILE *f);

/* "weft NAME: MSG" and "usage: ..." on stderr; returns 2. */
__attribute__((format(printf, 2, 3))) int opts_error(const struct cmd_usage *u,
						     const char *fmt, ...);
/* "usage: weft NAME SYNOPSIS" and where the help is; returns 2. */
int opts_usage(const struct cmd_usage *u);

/*
 * A duration as a person writes it, as the viewers' ruler shows it:
 * "2.5ms", "120us", "120 µs", "1.2s", "300ns", "1e-3 s"; a number with
 * no unit counts `unit` nanoseconds (1e9: seconds).  With `sign`, a
 * leading + or - is allowed.  Returns 0 and *ns, or -1.
 */
int parse_duration(const char *s, double unit, int sign, int64_t *ns);

/* The candidates nearest to a mistyped word (Damerau-Levenshtein, or a
 * prefix of it), at most `max` of them into out; returns how many. */
int nearest(const char *typed, const char *const *cand, int n, const char **out,
	    int max);

#endif
