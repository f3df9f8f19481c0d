/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* pamenv.h - pam_env's user file as pam_env reads it (pamenv.c). */
#ifndef ENVD_PAMENV_H
#define ENVD_PAMENV_H

#include <pwd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "buf.h"
#include "child.h"
#include "envd.h"

#define PAMENV_LINE_BUF 8192u /* pam_env's line buffer, NUL included */

struct pamenv_reader {
	const char *p, *end;
	unsigned lineno; /* of the physical line at p */
	FILE *out;       /* blank and comment lines are passed straight through */
};

struct pamenv_logical {
	char text[PAMENV_LINE_BUF];
	size_t len;               /* pam_env's count of bytes used */
	const char *first, *last; /* its physical lines (comment lines between included) */
	unsigned line;            /* number of the first one */
	const char *stop;         /* why pam_env stops reading, for PAMENV_STOP */
};

enum pamenv_rd { PAMENV_LINE, PAMENV_EOF, PAMENV_STOP };

enum pamenv_vkind { PAMENV_V_NONE, PAMENV_V_EMPTY, PAMENV_V_TEXT };

struct pamenv_val {
	enum pamenv_vkind kind;
	const char *p;
	size_t n;
};

struct pamenv_pline {
	const char *name;
	size_t name_len;
	struct pamenv_val dflt, ovr;
	const char *bad; /* why pam_env ignores the line, or NULL */
	const char *bad_at;
};

enum pamenv_part_kind { PAMENV_P_END, PAMENV_P_LIT, PAMENV_P_ENV, PAMENV_P_ITEM, PAMENV_P_ABORT };

struct pamenv_part {
	enum pamenv_part_kind kind;
	const char *p; /* the literal text, or the name between the braces */
	size_t n;
};

/* The file at path ("-": standard input) into buf, at most 1 MiB, read as
 * envd_read_path reads it: a regular file of reader's or root's, its links
 * walked; by a child with as's credentials when as is not NULL.  Returns 0
 * or a negative errno, with the library's reason in reason (size bytes;
 * "" when it gave none). */
int pamenv_read_file(const char *path, const struct envd_ids *as, const struct passwd *reader,
                     struct envd_buf *buf, char *reason, size_t size);
/* Original text in a comment line, escaped (tabs kept). */
void pamenv_put_comment_text(FILE *out, const char *s, size_t n);
bool pamenv_is_blank(char c);
/* A blank or comment line as pam_env sees it (it skips both). */
bool pamenv_skipped_line(const char *s, size_t n);
/* The next logical line into lg; blank and comment lines on the way are
 * passed through to r->out. */
enum pamenv_rd pamenv_assemble(struct pamenv_reader *r, struct pamenv_logical *lg);
/* Splits a logical line into NAME, DEFAULT= and OVERRIDE=. */
void pamenv_parse_line(const char *t, struct pamenv_pline *pl);
/* The next part of a value in [*cur, end): literal text, ${X} or @{X}. */
enum pamenv_part_kind pamenv_next_part(const char **cur, const char *end, struct pamenv_part *pt);
bool pamenv_part_is(const struct pamenv_part *pt, const char *name);

#endif
