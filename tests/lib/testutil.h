/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * testutil.h - helpers shared by the cmocka unit tests (testutil.c): a
 * diagnostics collector, temporary directory trees laid out like a root
 * file system, and a runner for table-driven tests (one cmocka test per
 * table row).  Failures fail the running test.
 */
#ifndef ENVD_TESTUTIL_H
#define ENVD_TESTUTIL_H

#undef NDEBUG

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cmocka.h>

#include "envd.h"
#include "internal.h"
#include "wrappers.h"
#include "testfs.h"

/* ---- table-driven tests -------------------------------------------------- */

#define TU_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Runs fixed tests followed by one test per table row: row i gets
 * names[i] as its name and rows + i * row_size as its state. */
int tu_run(const char *group, const struct CMUnitTest *fixed, size_t nfixed,
           void (*row_fn)(void **state), const void *rows, size_t row_size, size_t nrows,
           const char *(*row_name)(const void *row));

/* ---- memory helpers -------------------------------------------------------- */

/* An exact-size heap copy without a terminating NUL, so that the sanitizer
 * build catches any read past len. */
char *tu_exact(const char *s, size_t len);

char *tu_repeat(const char *unit, size_t times);

/* "${U:-${U:-...x...}}" with levels nested defaults (malloc'd). */
char *tu_nested(size_t levels);

/* ---- diagnostics ------------------------------------------------------------ */

struct tu_diag {
	enum envd_severity severity;
	enum envd_code code;
	char *file; /* NULL when the diagnostic had none */
	unsigned line;
	char *name;
	char *message;
};

struct tu_diags {
	struct tu_diag *v;
	size_t n, cap;
};

char *tu_strdup_or_null(const char *s);

void tu_diag_cb(const struct envd_diag *d, void *data);

void tu_diags_clear(struct tu_diags *ds);

size_t tu_count(const struct tu_diags *ds, enum envd_code code);

bool tu_ends_with(const char *s, const char *suffix);

/* The first diagnostic with code whose file ends in file_suffix (NULL: any)
 * and, when line is not UINT_MAX, on that line. */
const struct tu_diag *tu_find(const struct tu_diags *ds, enum envd_code code,
                              const char *file_suffix, unsigned line);

void tu_print_diags(const struct tu_diags *ds);

/* Like tu_find, but fails the test when there is no such diagnostic. */
__attribute__((returns_nonnull)) const struct tu_diag *
tu_need(const struct tu_diags *ds, enum envd_code code, const char *file_suffix, unsigned line);

/* Asserts a diagnostic with code at file_suffix:line exists. */
#define tu_assert_diag(ds, code, file_suffix, line)                                                \
	do {                                                                                       \
		if (!tu_find((ds), (code), (file_suffix), (line))) {                               \
			tu_print_diags(ds);                                                        \
			fail_msg("no diagnostic code %d at %s:%u", (int)(code),                    \
			         (file_suffix) ? (const char *)(file_suffix) : "*",                \
			         (unsigned)(line));                                                \
		}                                                                                  \
	} while (0)

/* ---- file system helpers ------------------------------------------------------ */

#define TU_PATH 4096

void tu_join(char *out, const char *a, const char *b);

void tu_mkdir_p(const char *path, mode_t mode);

void tu_write_len(const char *dir, const char *name, const void *data, size_t len);

void tu_write(const char *dir, const char *name, const char *content);

void tu_symlink(const char *target, const char *dir, const char *name);

void tu_chmod(const char *dir, const char *name, mode_t mode);

void tu_rm_rf(const char *path);

/* ---- a temporary root with a user directory and the four system ones ---------- */

struct tu_tree {
	char root[TU_PATH / 4];
	char home[TU_PATH / 2];
	char user[TU_PATH];     /* home/.config/environment.d */
	char etc[TU_PATH];      /* root/etc/environment.d */
	char run[TU_PATH];      /* root/run/environment.d */
	char usrlocal[TU_PATH]; /* root/usr/local/lib/environment.d */
	char usr[TU_PATH];      /* root/usr/lib/environment.d */
	struct envd_config cfg;
	struct tu_diags diags;
	struct envd_result *res;
};

void tu_tree_init(struct tu_tree *t);

int tu_load(struct tu_tree *t);

void tu_load_ok(struct tu_tree *t);

/* The value of name in the last result, or NULL. */
const char *tu_get(const struct tu_tree *t, const char *name);

#define tu_assert_var(t, name, expected)                                                           \
	do {                                                                                       \
		const char *tu_v_ = tu_get((t), (name));                                           \
		if (!tu_v_) {                                                                      \
			tu_print_diags(&(t)->diags);                                               \
			fail_msg("%s is not set", (name));                                         \
		}                                                                                  \
		assert_string_equal(tu_v_, (expected));                                            \
	} while (0)

#define tu_assert_unset(t, name) assert_null(tu_get((t), (name)))

/* The file entry of the last result whose path ends in suffix; fails the
 * test when there is none. */
__attribute__((returns_nonnull)) const struct envd_file *tu_file(const struct tu_tree *t,
                                                                 const char *suffix);

void tu_tree_free(struct tu_tree *t);

/* cmocka teardown: removes the trees a failed test left (its memory is
 * lost with the test's stack frame). */
int tu_cleanup(void **state);

/* Writes head, then a comment line padding the file to exactly total bytes. */
void tu_write_padded(const char *dir, const char *name, const char *head, size_t total);

#define tu_test(f) cmocka_unit_test_teardown(f, tu_cleanup)

#endif
