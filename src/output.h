/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* output.h - the formats of `envd show`. */
#ifndef ENVD_OUTPUT_H
#define ENVD_OUTPUT_H

#include <stdio.h>
#include <stdlib.h>

#include "envd.h"

enum out_format { FORMAT_ENV, FORMAT_SHELL, FORMAT_JSON, FORMAT_NUL };

int parse_format(const char *s, enum out_format *f);
void print_result(FILE *out, const struct envd_result *res, enum out_format f, bool explain);
/* show --explain --format=json's object up to its "files" array, open:
 * the caller adds members or the closing brace. */
void print_json_explained(FILE *out, const struct envd_result *res);
void print_files(FILE *out, const struct envd_result *res, const char *prefix);
/* The directories of the load, each "STATE PATH/ (user|system directory,
 * N .conf files | : reason)"; user_off, when not NULL, says why the user
 * directory was not searched, on a line of its own first. */
void print_dirs(FILE *out, const struct envd_result *res, const char *prefix, const char *user_off);
/* One variable; first: the first of the output (json's separators). */
void print_var(FILE *out, enum out_format f, bool first, const char *name, const char *value,
               size_t len);
/* What goes before the first and after the last of n variables. */
void print_begin(FILE *out, enum out_format f);
void print_end(FILE *out, enum out_format f, size_t n);
const char *file_state_name(enum envd_file_state s);
void print_text(FILE *out, const char *s);
/* s (n bytes) on out through lib's escaper (escape.h), in the syntax of how. */
void print_escaped(FILE *out, const char *s, size_t n, unsigned how);
/* A JSON string (null for NULL); bytes that are not UTF-8 become U+FFFD. */
void print_json_text(FILE *out, const char *s);
/* The same for n bytes of s. */
void print_json_string(FILE *out, const char *s, size_t n);

/* The reader program envd runs as root (the user's side of a load,
 * import --as): ENVD_READER from envd's own environment, for running envd
 * from its build tree, or NULL, the installed one.  It is checked as the
 * installed one is (owned by root, writable by no one else). */
static inline const char *envd_cli_reader(void)
{
	return getenv("ENVD_READER");
}

#endif
