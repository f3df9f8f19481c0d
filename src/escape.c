/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* escape.c - the one place that decides how envd writes text that is not
 * its own: values, names, file names, lines of a user's file.
 *
 * A user's value or file name may hold control characters; printed raw to
 * root's terminal they drive it (an escape sequence rewrites the screen or
 * the title, a carriage return hides what came before), and a newline
 * forges a line of envd's output.  Every output of envd therefore writes
 * them escaped, each in its own syntax: C escapes ($'...' values, names,
 * comments), JSON's, or a printf(1) format for the shell.  The control
 * characters are C0, DEL and the C1 controls U+0080..U+009F (in UTF-8 two
 * bytes, which terminals obey as well); a byte that is not part of valid
 * UTF-8 is escaped too.  Every other character is written as it is. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "escape.h"

enum { CH_PLAIN, CH_CONTROL, CH_BYTE };

/* The character at s (n > 0 bytes left): its length, and in *kind whether
 * it is plain, a control character or a byte that is not UTF-8. */
static size_t classify(const char *s, size_t n, int *kind)
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
	if (k == 1 || k > n || !envd_utf8_valid(s, k)) {
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

	*used = classify(s, n, &kind);
	if (kind == CH_PLAIN) {
		if ((c == '\\' && (syntax != ESC_C || (how & ESC_BACKSLASH))) ||
		    (c == '"' && syntax == ESC_JSON) || (c == '\'' && (how & ESC_QUOTE)))
			return (size_t)snprintf(out, 16, "\\%c", c);
		if (c == '%' && syntax == ESC_PRINTF)
			return (size_t)snprintf(out, 16, "%%%%");
		if (c == '\'' && syntax == ESC_PRINTF)
			return (size_t)snprintf(out, 16, "'\\''");
		return 0;
	}
	if (c == '\t' && (how & ESC_KEEP_TAB))
		return 0;
	if (c == '\n' || c == '\t' || c == '\r')
		return (size_t)snprintf(out, 16, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
	if (syntax == ESC_JSON)
		return kind == CH_BYTE
		           ? (size_t)snprintf(out, 16, "\\ufffd")
		           : (size_t)snprintf(out, 16, "\\u%04x", (unsigned char)s[*used - 1]);
	for (i = 0; i < *used; i++)
		o += (size_t)snprintf(out + o, 16 - o, syntax == ESC_PRINTF ? "\\%03o" : "\\x%02x",
		                      (unsigned char)s[i]);
	return o;
}

bool esc_needed(const char *s, size_t n, unsigned how)
{
	size_t i = 0;
	int kind;

	while (i < n) {
		i += classify(s + i, n - i, &kind);
		if (kind != CH_PLAIN && !(s[i - 1] == '\t' && (how & ESC_KEEP_TAB)))
			return true;
	}
	return false;
}

void esc_put(FILE *out, const char *s, size_t n, unsigned how)
{
	char buf[16];
	size_t i = 0, done = 0, used, k;

	while (i < n) {
		k = escape_one(s + i, n - i, how, buf, &used);
		if (k) {
			fwrite(s + done, 1, i - done, out);
			fwrite(buf, 1, k, out);
			done = i + used;
		}
		i += used;
	}
	fwrite(s + done, 1, n - done, out);
}

int esc_append(struct envd_buf *b, const char *s, size_t n, unsigned how)
{
	char buf[16];
	size_t i = 0, done = 0, used, k;

	while (i < n) {
		k = escape_one(s + i, n - i, how, buf, &used);
		if (k) {
			if (envd_buf_append(b, s + done, i - done) < 0 ||
			    envd_buf_append(b, buf, k) < 0)
				return -ENOMEM;
			done = i + used;
		}
		i += used;
	}
	return envd_buf_append(b, s + done, n - done) < 0 ? -ENOMEM : 0;
}
