/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* parse.c - systemd's env-file syntax, byte for byte.
 *
 * The state machine follows the one systemd >= 254 uses for environment.d,
 * including its quirks (quotes literal inside an unquoted segment, segments
 * joined after a closing quote, a quote left open running to end of file).
 * Unlike systemd it reports the line an assignment starts on.  Input is
 * bounded by the caller (the file cap), so the buffers here need no cap of
 * their own: they never outgrow the input. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "internal.h"

enum state {
	PRE_KEY,
	KEY,
	PRE_VALUE,
	VALUE,
	VALUE_ESCAPE,
	SQUOTE,
	DQUOTE,
	DQUOTE_ESCAPE,
	COMMENT,
};

static bool is_newline(char c)
{
	return c == '\n' || c == '\r';
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* characters a backslash escapes inside double quotes */
static bool dquote_escapable(char c)
{
	return c == '"' || c == '\\' || c == '`' || c == '$';
}

struct parser {
	struct envd_buf *key, *value;
	bool has_value;    /* something was appended to value */
	size_t key_trim;   /* start of trailing blanks of key, SIZE_MAX: none */
	size_t value_trim; /* start of trailing unescaped blanks of value */
	unsigned key_line;
	envd_assign_fn cb;
	void *data;
	/* lint only (note not NULL) */
	envd_note_fn note;
	unsigned quote_line;    /* where the last quote opened */
	bool after_quote;       /* PRE_VALUE reached by a closing quote */
	bool blank_after_quote; /* ... and blanks skipped since */
	bool inner_noted;       /* INNER_QUOTE told for this assignment */
};

static void tell(struct parser *p, enum envd_parse_note n, unsigned line)
{
	size_t klen = p->key_trim != SIZE_MAX ? p->key_trim : p->key->len;

	p->note(n, line, p->key->data, klen, p->data);
}

/* lint: a quote in the unquoted run buf[from..to) is kept as a character */
static void inner_quotes(struct parser *p, const char *buf, size_t from, size_t to)
{
	if (!p->note || p->inner_noted)
		return;
	if (memchr(buf + from, '"', to - from) || memchr(buf + from, '\'', to - from)) {
		p->inner_noted = true;
		tell(p, ENVD_NOTE_INNER_QUOTE, p->key_line);
	}
}

/* lint: PRE_VALUE meets text; after a closing quote and blanks it is
 * joined to the value without them */
static void pre_value_text(struct parser *p)
{
	if (p->note && p->blank_after_quote)
		tell(p, ENVD_NOTE_AFTER_QUOTE, p->key_line);
	p->after_quote = false;
	p->blank_after_quote = false;
}

static int push(struct parser *p, bool trim_value)
{
	size_t klen = p->key->len, vlen = p->value->len;
	int r;

	if (p->key_trim != SIZE_MAX)
		klen = p->key_trim;
	if (trim_value && p->value_trim != SIZE_MAX)
		vlen = p->value_trim;
	/* both buffers always keep a spare byte: hand out C strings */
	p->key->data[klen] = '\0';
	if (p->has_value)
		p->value->data[vlen] = '\0';
	r = p->cb(p->key->data, klen, p->has_value ? p->value->data : NULL, p->has_value ? vlen : 0,
	          p->has_value, p->key_line, p->data);
	p->key->len = 0;
	p->value->len = 0;
	p->has_value = false;
	p->after_quote = false;
	p->blank_after_quote = false;
	p->inner_noted = false;
	return r;
}

/* lint: the comment buf[from..end) ends at a line end that systemd
 * before 254 (Debian 12's 252) takes as escaped: a backslash in a comment
 * escapes the next byte there, so an odd run of them before a LF, or a
 * lone CR, continues the comment over the next line.  True when that line
 * is read today: neither blank nor a comment itself (one ending in a
 * backslash is told on its own). */
static bool continued_before_254(const char *buf, size_t from, size_t end, size_t len)
{
	size_t k = end, n;

	if (end >= len || buf[end] == '\0' ||
	    (buf[end] == '\r' && end + 1 < len && buf[end + 1] == '\n'))
		return false;
	while (k > from && buf[k - 1] == '\\')
		k--;
	if ((end - k) % 2 == 0)
		return false;
	n = end + 1;
	while (n < len && (buf[n] == ' ' || buf[n] == '\t'))
		n++;
	return n < len && !strchr("\n\r#;", buf[n]) && buf[n] != '\0';
}

static int add_value(struct parser *p, char c)
{
	p->has_value = true;
	return envd_buf_putc(p->value, c);
}

/* Bytes that end a run of text copied as it is, per state: NUL and the
 * line ends for all (lines are counted one byte at a time). */
enum { STOP_KEY = 1, STOP_VALUE = 2, STOP_SQUOTE = 4, STOP_DQUOTE = 8, STOP_ALL = 15 };

static const unsigned char stops[256] = {
    ['\0'] = STOP_ALL,
    ['\n'] = STOP_ALL,
    ['\r'] = STOP_ALL,
    [' '] = STOP_KEY | STOP_VALUE,
    ['\t'] = STOP_KEY | STOP_VALUE,
    ['='] = STOP_KEY,
    ['\\'] = STOP_VALUE | STOP_DQUOTE,
    ['\''] = STOP_SQUOTE,
    ['"'] = STOP_DQUOTE,
};

/* The end of the run that starts at buf[i]: the first byte at or after i
 * that stops state's runs, or len.  Runs of ordinary bytes are copied with
 * one append, not byte by byte through the state machine: most bytes of a
 * file are such runs, and a per-byte append cost a whole login measurably
 * more, past the 1% that a fast path has to earn (DEVELOPING.md, "Tests and
 * benchmarks", has the figures). */
static size_t run_end(const char *buf, size_t i, size_t len, unsigned state_bit)
{
	while (i < len && !(stops[(unsigned char)buf[i]] & state_bit))
		i++;
	return i;
}

/* Appends the run of value bytes that starts at buf[*i] and stops at a byte
 * of state_bit; *i is left on the run's last byte. */
static int add_value_run(struct parser *p, const char *buf, size_t *i, size_t len,
                         unsigned state_bit)
{
	size_t n = run_end(buf, *i + 1, len, state_bit);
	int r;

	p->has_value = true;
	r = envd_buf_append(p->value, buf + *i, n - *i);
	*i = n - 1;
	return r;
}

int envd_parse_with(const char *buf, size_t len, envd_assign_fn cb, void *data,
                    struct envd_buf *key, struct envd_buf *value)
{
	return envd_parse_noting(buf, len, cb, data, key, value, NULL);
}

/* One pass over the bytes, a state machine in one loop as systemd's
 * env-file.c parses: it stays one function over 80 lines because its
 * states share the position, the two buffers and the line count, and
 * each step can change all of them; split, the states would pass them
 * back and forth. */
int envd_parse_noting(const char *buf, size_t len, envd_assign_fn cb, void *data,
                      struct envd_buf *key, struct envd_buf *value, envd_note_fn note)
{
	struct parser p = {.key = key,
	                   .value = value,
	                   .cb = cb,
	                   .data = data,
	                   .note = note,
	                   .key_trim = SIZE_MAX,
	                   .value_trim = SIZE_MAX};
	enum state st = PRE_KEY;
	unsigned line = 1;
	size_t i, n;
	int r = 0;

	key->len = 0;
	value->len = 0;
	for (i = 0; i < len && buf[i] && r == 0; i++) {
		char c = buf[i];

		/* A CRLF pair is one line end for counting, two for the syntax. */
		bool counts = c == '\n' || (c == '\r' && (i + 1 >= len || buf[i + 1] != '\n'));

		switch (st) {
		case PRE_KEY:
			if (c == '#' || c == ';')
				st = COMMENT;
			else if (!is_blank(c)) {
				st = KEY;
				p.key_trim = SIZE_MAX;
				p.key_line = line;
				if (c == '=') { /* an empty key: '=' is its first byte */
					r = envd_buf_putc(p.key, c);
					break;
				}
				/* the key's first run, up to '=', a blank or a line end */
				n = run_end(buf, i + 1, len, STOP_KEY);
				r = envd_buf_append(p.key, buf + i, n - i);
				i = n - 1;
				continue;
			}
			break;
		case KEY:
			if (is_newline(c)) {
				st = PRE_KEY; /* a line without '=' is dropped */
				if (note)
					tell(&p, ENVD_NOTE_NO_EQUALS, p.key_line);
				p.key->len = 0;
			} else if (c == '=') {
				st = PRE_VALUE;
				p.value_trim = SIZE_MAX;
			} else if (is_blank(c)) {
				if (p.key_trim == SIZE_MAX)
					p.key_trim = p.key->len;
				r = envd_buf_putc(p.key, c);
			} else {
				/* a run of key bytes up to '=', a blank or a line end */
				n = run_end(buf, i + 1, len, STOP_KEY);
				p.key_trim = SIZE_MAX;
				r = envd_buf_append(p.key, buf + i, n - i);
				i = n - 1;
				continue;
			}
			break;
		case PRE_VALUE:
			if (is_newline(c)) {
				st = PRE_KEY;
				r = push(&p, false);
			} else if (c == '\'' || c == '"') {
				st = c == '"' ? DQUOTE : SQUOTE;
				p.quote_line = line;
				pre_value_text(&p);
			} else if (c == '\\') {
				st = VALUE_ESCAPE;
				p.after_quote = false;
				p.blank_after_quote = false;
			} else if (!is_blank(c)) {
				/* the value's first run (value_trim is still unset) */
				st = VALUE;
				pre_value_text(&p);
				n = i;
				r = add_value_run(&p, buf, &i, len, STOP_VALUE);
				inner_quotes(&p, buf, n, i + 1);
				continue;
			} else if (p.after_quote)
				p.blank_after_quote = true;
			break;
		case VALUE:
			if (is_newline(c)) {
				st = PRE_KEY;
				r = push(&p, true);
			} else if (c == '\\') {
				st = VALUE_ESCAPE;
				p.value_trim = SIZE_MAX;
			} else if (is_blank(c)) {
				if (p.value_trim == SIZE_MAX)
					p.value_trim = p.value->len;
				r = add_value(&p, c);
			} else {
				/* a run of ordinary bytes: one copy, no line ends */
				p.value_trim = SIZE_MAX;
				n = i;
				r = add_value_run(&p, buf, &i, len, STOP_VALUE);
				inner_quotes(&p, buf, n, i + 1);
				continue;
			}
			break;
		case VALUE_ESCAPE:
			st = VALUE;
			if (!is_newline(c)) /* backslash-newline: continuation */
				r = add_value(&p, c);
			break;
		case SQUOTE:
			if (c == '\'') {
				st = PRE_VALUE;
				p.after_quote = true;
			} else if (is_newline(c))
				r = add_value(&p, c);
			else {
				r = add_value_run(&p, buf, &i, len, STOP_SQUOTE);
				continue;
			}
			break;
		case DQUOTE:
			if (c == '"') {
				st = PRE_VALUE;
				p.after_quote = true;
			} else if (c == '\\')
				st = DQUOTE_ESCAPE;
			else if (is_newline(c))
				r = add_value(&p, c);
			else {
				r = add_value_run(&p, buf, &i, len, STOP_DQUOTE);
				continue;
			}
			break;
		case DQUOTE_ESCAPE:
			st = DQUOTE;
			if (dquote_escapable(c))
				r = add_value(&p, c);
			else if (c != '\n') {
				r = add_value(&p, '\\');
				if (r == 0)
					r = add_value(&p, c);
			}
			break;
		case COMMENT:
			/* since systemd 254 a comment always ends at its newline */
			if (is_newline(c))
				st = PRE_KEY;
			else {
				/* on to the line end (or a NUL, which ends the input) */
				const char *nl = memchr(buf + i, '\n', len - i);
				size_t end = nl ? (size_t)(nl - buf) : len;
				const char *cr = memchr(buf + i, '\r', end - i);
				const char *nul = memchr(buf + i, '\0', end - i);

				if (cr && (!nul || cr < nul))
					end = (size_t)(cr - buf);
				else if (nul)
					end = (size_t)(nul - buf);
				if (note && continued_before_254(buf, i, end, len))
					tell(&p, ENVD_NOTE_COMMENT_BACKSLASH, line);
				i = end - 1;
				continue;
			}
			break;
		}
		if (counts)
			line++;
	}

	if (r == 0 && note && st == KEY)
		tell(&p, ENVD_NOTE_NO_EQUALS, p.key_line);
	if (r == 0 && note && (st == SQUOTE || st == DQUOTE || st == DQUOTE_ESCAPE))
		tell(&p, ENVD_NOTE_OPEN_QUOTE, p.quote_line);
	if (r == 0 && (st == PRE_VALUE || st == VALUE || st == VALUE_ESCAPE || st == SQUOTE ||
	               st == DQUOTE || st == DQUOTE_ESCAPE))
		r = push(&p, st == VALUE);

	return r;
}
