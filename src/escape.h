/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* escape.h - the one escaper of envd's output (escape.c). */
#ifndef ENVD_ESCAPE_H
#define ENVD_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "envd.h"

/* The syntax of the escapes, one of: */
enum {
	ESC_C = 0,      /* \n \t \r, else \xHH a byte */
	ESC_JSON = 1,   /* \n \t \r \" \\, else \u00HH; a byte that is not UTF-8: \ufffd */
	ESC_PRINTF = 2, /* a printf(1) format in '...': \n \t \r \\ %% '\'', else \ooo a byte */
};
/* and, for ESC_C, any of: */
enum {
	ESC_BACKSLASH = 4, /* a backslash as \\ (no escape can be forged) */
	ESC_QUOTE = 8,     /* ' as \' (inside $'...') */
	ESC_KEEP_TAB = 16, /* a tab as it is (comments) */
};

/* Whether s (n bytes) holds a character that is escaped in every syntax:
 * a control character (C0, DEL, a C1 control in UTF-8: terminals obey all
 * of them; with ESC_KEEP_TAB in how, a tab is not counted) or a byte that
 * is not part of valid UTF-8. */
bool esc_needed(const char *s, size_t n, unsigned how);

/* s (n bytes) on out, those characters escaped in the syntax of how (and,
 * in each syntax, what would end or forge its quoting). */
void esc_put(FILE *out, const char *s, size_t n, unsigned how);

/* The same, appended to b.  Returns 0 or -ENOMEM. */
int esc_append(struct envd_buf *b, const char *s, size_t n, unsigned how);

#endif
