/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* escape.h - the one escaper of text that is not ours (escape.c): envd's
 * output and the module's log lines. */
#ifndef ENVD_ESCAPE_H
#define ENVD_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/* The syntax of the escapes, one of: */
enum {
	ENVD_ESC_C = 0,    /* \n \t \r, else \xHH a byte */
	ENVD_ESC_JSON = 1, /* \n \t \r \" \\, else \u00HH; a byte that is not UTF-8: \ufffd */
	ENVD_ESC_PRINTF =
	    2, /* a printf(1) format in '...': \n \t \r \\ %% '\'', else \ooo a byte */
};
/* and, for ENVD_ESC_C, any of: */
enum {
	ENVD_ESC_BACKSLASH = 4, /* a backslash as \\ (no escape can be forged) */
	ENVD_ESC_QUOTE = 8,     /* ' as \' (inside $'...') */
	ENVD_ESC_KEEP_TAB = 16, /* a tab as it is (comments) */
	/* every byte outside printable ASCII, valid UTF-8 too, each as \xHH:
	 * a log line, which no terminal shows as it was written */
	ENVD_ESC_ASCII = 32,
};

/* Whether s (n bytes) holds a character that is escaped in every syntax:
 * a control character (C0, DEL, a C1 control in UTF-8: terminals obey all
 * of them; with ENVD_ESC_KEEP_TAB in how, a tab is not counted) or a byte
 * that is not part of valid UTF-8 (with ENVD_ESC_ASCII: not ASCII). */
bool envd_esc_needed(const char *s, size_t n, unsigned how);

/* Where the escaped text goes: a run of s as it is (whole false: it may be
 * cut anywhere) or one escape (whole true).  Returns 0 to go on. */
typedef int (*envd_esc_sink)(const char *s, size_t n, bool whole, void *data);

/* s (n bytes) through sink, those characters escaped in the syntax of how
 * (and, in each syntax, what would end or forge its quoting).  Returns 0
 * or the first non-zero value sink returned. */
int envd_esc(const char *s, size_t n, unsigned how, envd_esc_sink sink, void *data);

/* The same, appended to b.  Returns 0 or -ENOMEM. */
int envd_esc_append(struct envd_buf *b, const char *s, size_t n, unsigned how);

/* The NUL-terminated s into out (size bytes, NUL included), cut with
 * "..." where it does not fit, never inside an escape. */
void envd_esc_clip(const char *s, unsigned how, char *out, size_t size);

#endif
