/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* escape.c - the one place that decides how text that is not ours is
 * written: envd's values, names, file names, lines of a user's file, and
 * the file and variable names in the module's log lines.
 *
 * A user's value or file name may hold control characters; printed raw to
 * root's terminal they drive it (an escape sequence rewrites the screen or
 * the title, a carriage return hides what came before), and a newline
 * forges a line of envd's output.  Every output of envd therefore writes
 * them escaped, each in its own syntax: C escapes ($'...' values, names,
 * comments), JSON's, or a printf(1) format for the shell.  The control
 * characters are C0, DEL and the C1 controls U+0080..U+009F (in UTF-8 two
 * bytes, which terminals obey as well); a byte that is not part of valid
 * UTF-8 is escaped too.  Every other character is written as it is, but
 * for a log line (ENVD_ESC_ASCII), which escapes every byte outside
 * printable ASCII: a log is not a terminal, and its readers and tools
 * expect ASCII. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"
#include "internal.h"

enum { CH_PLAIN, CH_CONTROL, CH_BYTE };

/* The character at s (n > 0 bytes left): its length, and in *kind whether
 * it is plain, a control character or a byte that is not UTF-8. */
static size_t classify(const char *s, size_t n, unsigned how, int *kind)
{
	unsigned char c = (unsigned char)s[0];
	size_t k = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;

	if (c < 0x20 || c == 0x7f) {
		*kind = CH_CONTROL;
		return 1;
	}
	if (c < 0x80) {
		*kind = CH_PLAIN;
		return 1;
	}
	if ((how & ENVD_ESC_ASCII) || k == 1 || k > n || !envd_utf8_valid(s, k)) {
		*kind = CH_BYTE;
		return 1;
	}
	*kind = k == 2 && c == 0xc2 && (unsigned char)s[1] < 0xa0 ? CH_CONTROL : CH_PLAIN;
	return k;
}

/* The escape of the character at s (n > 0 bytes left) into out (16
 * bytes): its length, 0 when it is written as it is; *used: the bytes it
 * stands for. */
static size_t escape_one(const char *s, size_t n, unsigned how, char *out, size_t *used)
{
	unsigned syntax = how & 3;
	unsigned char c = (unsigned char)s[0];
	size_t o = 0, i;
	int kind;

	*used = classify(s, n, how, &kind);
	if (kind == CH_PLAIN) {
		if ((c == '\\' && (syntax != ENVD_ESC_C || (how & ENVD_ESC_BACKSLASH))) ||
		    (c == '"' && syntax == ENVD_ESC_JSON) || (c == '\'' && (how & ENVD_ESC_QUOTE)))
			return (size_t)snprintf(out, 16, "\\%c", c);
		if (c == '%' && syntax == ENVD_ESC_PRINTF)
			return (size_t)snprintf(out, 16, "%%%%");
		if (c == '\'' && syntax == ENVD_ESC_PRINTF)
			return (size_t)snprintf(out, 16, "'\\''");
		return 0;
	}
	if (c == '\t' && (how & ENVD_ESC_KEEP_TAB))
		return 0;
	if (c == '\n' || c == '\t' || c == '\r')
		return (size_t)snprintf(out, 16, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
	if (syntax == ENVD_ESC_JSON)
		return kind == CH_BYTE
		           ? (size_t)snprintf(out, 16, "\\ufffd")
		           : (size_t)snprintf(out, 16, "\\u%04x", (unsigned char)s[*used - 1]);
	for (i = 0; i < *used; i++)
		o += (size_t)snprintf(out + o, 16 - o,
		                      syntax == ENVD_ESC_PRINTF ? "\\%03o" : "\\x%02x",
		                      (unsigned char)s[i]);
	return o;
}

bool envd_esc_needed(const char *s, size_t n, unsigned how)
{
	size_t i = 0;
	int kind;

	while (i < n) {
		i += classify(s + i, n - i, how, &kind);
		if (kind != CH_PLAIN && !(s[i - 1] == '\t' && (how & ENVD_ESC_KEEP_TAB)))
			return true;
	}
	return false;
}

int envd_esc(const char *s, size_t n, unsigned how, envd_esc_sink sink, void *data)
{
	char buf[16];
	size_t i = 0, done = 0, used, k;
	int r;

	while (i < n) {
		k = escape_one(s + i, n - i, how, buf, &used);
		if (k) {
			r = sink(s + done, i - done, false, data);
			if (r == 0)
				r = sink(buf, k, true, data);
			if (r != 0)
				return r;
			done = i + used;
		}
		i += used;
	}
	return sink(s + done, n - done, false, data);
}

static int to_buf(const char *s, size_t n, bool whole, void *data)
{
	return envd_buf_append(data, s, n) < 0 ? -ENOMEM : 0;
}

int envd_esc_append(struct envd_buf *b, const char *s, size_t n, unsigned how)
{
	return envd_esc(s, n, how, to_buf, b);
}

struct clip {
	char *out;
	size_t size, o;
};

/* Keeps room for "..." and the NUL; past it, the "..." and stop. */
static int to_clip(const char *s, size_t n, bool whole, void *data)
{
	struct clip *c = data;
	size_t room = c->size >= c->o + 4 ? c->size - c->o - 4 : 0;

	if (n <= room) {
		memcpy(c->out + c->o, s, n);
		c->o += n;
		return 0;
	}
	if (!whole) {
		memcpy(c->out + c->o, s, room);
		c->o += room;
	}
	if (c->o + 4 <= c->size) {
		memcpy(c->out + c->o, "...", 3);
		c->o += 3;
	}
	return 1;
}

void envd_esc_clip(const char *s, unsigned how, char *out, size_t size)
{
	struct clip c = {.out = out, .size = size};

	if (size == 0)
		return;
	envd_esc(s, strlen(s), how, to_clip, &c);
	out[c.o] = '\0';
}
