/* SPDX-License-Identifier: MIT */
/*
 * trigger.c - the trigger grammar of flight recording, written once: a
 * tokenizer and a recursive-descent parser whose errors point at the bad
 * token with a caret (docs/weft.1, "TRIGGERS").
 *
 *   trigger  := 'pending' '(' sel { ',' sel } ')' '>' DURATION
 *             | 'callback' '>' DURATION | 'iteration' '>' DURATION
 *             | 'phase' [ '(' 'name' '=' (WORD | STRING) ')' ] '>' DURATION
 *             | 'failed' [ '(' 'message' '=' STRING ')' ]
 *             | 'counter' '(' NAME ')' OP NUMBER
 *             | 'lost_wakeup' [ '>' DURATION ]
 *             | 'unresolved_at_exit' | 'mark'
 *   sel      := 'kind' '=' (WORD | STRING) | 'label' '=' STRING
 *   OP       := '>' | '>=' | '<' | '<=' | '=='
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flight.h"
#include "options.h"

enum tok { T_END, T_WORD, T_STRING, T_NUMBER, T_PUNCT, T_BAD };

struct lex {
	const char *s;	/* the expression */
	size_t pos;	/* where the next token starts */
	int tok;	/* the current token */
	size_t at, len; /* its place */
	char text[TRIG_TEXT];
	char *err;
	size_t cap;
	int failed;
};

/* The error, the expression and a caret under the current token. */
__attribute__((format(printf, 2, 3))) static int fail(struct lex *l,
						      const char *fmt, ...)
{
	if (l->failed)
		return -1;
	l->failed = 1;
	char msg[300];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	size_t n = l->len ? l->len : 1;
	char marks[TRIG_TEXT + 2];
	size_t k = 0;
	for (size_t i = 0; i < l->at && k < TRIG_TEXT; i++)
		marks[k++] = l->s[i] == '\t' ? '\t' : ' ';
	for (size_t i = 0; i < n && k < TRIG_TEXT; i++)
		marks[k++] = '^';
	marks[k] = 0;
	snprintf(l->err, l->cap, "%s\n  %s\n  %s", msg, l->s, marks);
	return -1;
}

static void next(struct lex *l)
{
	const char *s = l->s;
	while (s[l->pos] == ' ' || s[l->pos] == '\t')
		l->pos++;
	l->at = l->pos;
	l->text[0] = 0;
	char c = s[l->pos];
	if (!c) {
		l->tok = T_END, l->len = 0;
		return;
	}
	size_t start = l->pos;
	if (isalpha((unsigned char)c) || c == '_') {
		while (isalnum((unsigned char)s[l->pos]) || s[l->pos] == '_')
			l->pos++;
		l->tok = T_WORD;
	} else if (isdigit((unsigned char)c) || c == '.' ||
		   ((c == '-' || c == '+') &&
		    (isdigit((unsigned char)s[l->pos + 1]) ||
		     s[l->pos + 1] == '.'))) {
		/* a number, and the unit glued to it (100ms, 1.5e3, 2s) */
		l->pos++;
		while (isalnum((unsigned char)s[l->pos]) || s[l->pos] == '.' ||
		       ((s[l->pos] == '-' || s[l->pos] == '+') &&
			(s[l->pos - 1] == 'e' || s[l->pos - 1] == 'E')))
			l->pos++;
		l->tok = T_NUMBER;
	} else if (c == '"') {
		size_t k = 0;
		l->pos++;
		while (s[l->pos] && s[l->pos] != '"') {
			if (s[l->pos] == '\\' && s[l->pos + 1])
				l->pos++;
			if (k + 1 < sizeof l->text)
				l->text[k++] = s[l->pos];
			l->pos++;
		}
		l->text[k] = 0;
		if (!s[l->pos]) {
			l->tok = T_BAD;
			l->len = l->pos - start;
			fail(l, "a string that does not end (a '\"' is "
				"missing)");
			return;
		}
		l->pos++;
		l->tok = T_STRING;
		l->len = l->pos - start;
		return;
	} else if (strchr("(),", c)) {
		l->pos++;
		l->tok = T_PUNCT;
	} else if (c == '>' || c == '<' || c == '=') {
		l->pos++;
		if (s[l->pos] == '=')
			l->pos++;
		l->tok = T_PUNCT;
	} else {
		l->pos++;
		l->tok = T_BAD;
	}
	l->len = l->pos - start;
	size_t n = l->len < sizeof l->text - 1 ? l->len : sizeof l->text - 1;
	memcpy(l->text, s + start, n);
	l->text[n] = 0;
}

static int is(struct lex *l, int tok, const char *text)
{
	return l->tok == tok && (!text || !strcmp(l->text, text));
}

/* The current token must be `text`: consume it. */
static int expect(struct lex *l, const char *text, const char *where)
{
	if (!is(l, T_PUNCT, text))
		return fail(l, "expected '%s' %s", text, where);
	next(l);
	return 0;
}

static const char *shown(struct lex *l)
{
	return l->tok == T_END ? "the end" : l->text;
}

static int duration(struct lex *l, int64_t *ns)
{
	if (l->tok == T_NUMBER && !isalpha((unsigned char)l->text[l->len - 1]))
		return fail(l, "the duration needs its unit (ns, us, ms, s)");
	if (l->tok != T_NUMBER || parse_duration(l->text, 1, 0, ns) || *ns <= 0)
		return fail(l,
			    "expected a duration with its unit (100ms, 2s), "
			    "not %s",
			    shown(l));
	next(l);
	return 0;
}

static int selector(struct lex *l, struct trigger *t)
{
	if (!is(l, T_WORD, "kind") && !is(l, T_WORD, "label"))
		return fail(l, "expected kind= or label=, not %s", shown(l));
	int label = !strcmp(l->text, "label");
	next(l);
	if (expect(l, "=", label ? "after label" : "after kind"))
		return -1;
	if (label ? l->tok != T_STRING : l->tok != T_WORD && l->tok != T_STRING)
		return fail(l,
			    label ? "expected a quoted glob (label=\"GET "
				    "/api/*\"), not %s"
				  : "expected a kind (kind=uv_write_t), not %s",
			    shown(l));
	if (label) {
		snprintf(t->label_glob, sizeof t->label_glob, "%s", l->text);
		t->has_label = 1;
	} else
		snprintf(t->kind_is, sizeof t->kind_is, "%s", l->text);
	next(l);
	return 0;
}

static int parse(struct lex *l, struct trigger *t)
{
	next(l);
	if (l->tok != T_WORD)
		return fail(l,
			    "expected a trigger (pending, callback, "
			    "iteration, phase, failed, counter, "
			    "unresolved_at_exit, lost_wakeup, mark), not %s",
			    shown(l));
	char word[TRIG_TEXT];
	snprintf(word, sizeof word, "%s", l->text);
	if (!strcmp(word, "pending")) {
		t->kind = TRIG_PENDING;
		next(l);
		if (expect(l, "(", "after pending (pending(kind=K) > T)"))
			return -1;
		if (selector(l, t))
			return -1;
		while (is(l, T_PUNCT, ",")) {
			next(l);
			if (selector(l, t))
				return -1;
		}
		if (expect(l, ")", "after the selector") ||
		    expect(l, ">", "(pending(...) > T)"))
			return -1;
		return duration(l, &t->ns);
	}
	if (!strcmp(word, "callback") || !strcmp(word, "iteration")) {
		t->kind = word[0] == 'c' ? TRIG_CALLBACK : TRIG_ITERATION;
		next(l);
		if (expect(l, ">",
			   t->kind == TRIG_CALLBACK ? "(callback > T)"
						    : "(iteration > T)"))
			return -1;
		return duration(l, &t->ns);
	}
	if (!strcmp(word, "phase")) {
		t->kind = TRIG_PHASE;
		next(l);
		if (is(l, T_PUNCT, "(")) {
			next(l);
			if (!is(l, T_WORD, "name"))
				return fail(l, "expected name=, not %s",
					    shown(l));
			next(l);
			if (expect(l, "=", "after name"))
				return -1;
			if (l->tok != T_WORD && l->tok != T_STRING)
				return fail(l,
					    "expected a phase's name or a "
					    "quoted glob (name=poll), not %s",
					    shown(l));
			snprintf(t->label_glob, sizeof t->label_glob, "%s",
				 l->text);
			t->has_label = 1;
			next(l);
			if (expect(l, ")", "after the phase's name"))
				return -1;
		}
		if (expect(l, ">", "(phase > T, phase(name=poll) > T)"))
			return -1;
		return duration(l, &t->ns);
	}
	if (!strcmp(word, "failed")) {
		t->kind = TRIG_FAILED;
		next(l);
		if (!is(l, T_PUNCT, "("))
			return 0;
		next(l);
		if (!is(l, T_WORD, "message"))
			return fail(l, "expected message=, not %s", shown(l));
		next(l);
		if (expect(l, "=", "after message"))
			return -1;
		if (l->tok != T_STRING)
			return fail(l,
				    "expected a quoted glob "
				    "(message=\"*timeout*\"), not %s",
				    shown(l));
		snprintf(t->label_glob, sizeof t->label_glob, "%s", l->text);
		t->has_label = 1;
		next(l);
		return expect(l, ")", "after the message");
	}
	if (!strcmp(word, "counter")) {
		t->kind = TRIG_COUNTER;
		next(l);
		if (expect(l, "(", "after counter (counter(NAME) > V)"))
			return -1;
		if (l->tok != T_WORD && l->tok != T_STRING)
			return fail(l, "expected a counter's name, not %s",
				    shown(l));
		snprintf(t->counter, sizeof t->counter, "%s", l->text);
		next(l);
		if (expect(l, ")", "after the counter's name"))
			return -1;
		static const char *const ops[] = {">", ">=", "<", "<=", "=="};
		t->op = -1;
		for (int i = 0; i < 5; i++)
			if (is(l, T_PUNCT, ops[i]))
				t->op = i;
		if (t->op < 0)
			return fail(l, "expected >, >=, <, <= or ==, not %s",
				    shown(l));
		next(l);
		char *e;
		if (l->tok != T_NUMBER || (t->value = strtod(l->text, &e), *e))
			return fail(l, "expected a number, not %s", shown(l));
		next(l);
		return 0;
	}
	if (!strcmp(word, "lost_wakeup")) {
		/* the verdict held this long (default 100 ms): a trace that
		 * grows is a prefix, and a woken waiter may read yet */
		t->kind = TRIG_LOST_WAKEUP;
		t->ns = 100000000;
		next(l);
		if (!is(l, T_PUNCT, ">"))
			return 0;
		next(l);
		return duration(l, &t->ns);
	}
	if (!strcmp(word, "unresolved_at_exit") || !strcmp(word, "mark")) {
		t->kind = word[0] == 'u'   ? TRIG_UNRESOLVED
			  : word[0] == 'l' ? TRIG_LOST_WAKEUP
					   : TRIG_MARK;
		next(l);
		return 0;
	}
	return fail(l,
		    "unknown trigger '%s' (pending, callback, iteration, "
		    "phase, failed, counter, unresolved_at_exit, lost_wakeup, "
		    "mark)",
		    word);
}

int trigger_parse(const char *expr, struct trigger *t, char *err, size_t cap)
{
	memset(t, 0, sizeof *t);
	struct lex l = {.s = expr, .err = err, .cap = cap};
	if (strlen(expr) >= TRIG_TEXT) {
		snprintf(err, cap, "a trigger of %zu bytes (at most %d)",
			 strlen(expr), TRIG_TEXT - 1);
		return -1;
	}
	snprintf(t->expr, sizeof t->expr, "%s", expr);
	if (parse(&l, t) || l.failed)
		return -1;
	if (l.tok != T_END)
		return fail(&l, "unexpected %s after the trigger", shown(&l));
	return 0;
}
