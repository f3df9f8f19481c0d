/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* fuzz.h - what the harnesses share: the libFuzzer entry points, invariant
 * checks that abort (so that libFuzzer and the replay driver both see a
 * finding), and a few helpers for turning one input into several pieces.
 *
 * The same harness source builds two ways: linked with -fsanitize=fuzzer
 * (clang, --enable-fuzzing) it is a libFuzzer target; linked with replay.c it
 * is a plain program that `make check` runs over the harness's seed corpus,
 * so that every finding, once its file is in the corpus, is a regression
 * test in every build. */
#ifndef ENVD_FUZZ_H
#define ENVD_FUZZ_H

#undef NDEBUG
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "wrappers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional one-time set-up; the replay driver calls it when it is defined. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
/* Optional: a harness that cannot run here (no module built, no PAM
 * configuration directory support) returns a reason, and the replay driver
 * skips (exit 77) with it. */
const char *fuzz_skip_reason(void) __attribute__((weak));

/* An invariant that does not hold is a finding: say which and abort. */
#define FUZZ_CHECK(cond, ...)                                                                      \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: invariant failed: %s: ", __FILE__, __LINE__,       \
			        #cond);                                                            \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* A failure of the harness itself (not of the code under test). */
#define FUZZ_SETUP(cond)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			perror("fuzz harness set-up: " #cond);                                     \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* Strict UTF-8 as systemd's validator defines it: no overlongs, no
 * surrogates, nothing above U+10FFFF, no noncharacters.  Written apart from
 * the engine's own validator on purpose. */
bool fuzz_utf8_valid(const unsigned char *s, size_t n);

/* True for a byte that no message text of the engine or the module is made
 * of: not printable ASCII, or one of "!&<>@[]^|".  Such a byte in a log line
 * came from the input; when no key, name or path of the input holds it
 * either, it came from a value, and values must never be logged. */
bool fuzz_rare_byte(unsigned char c);

/* Checks text (a diagnostic message, a name, a log line) for rare bytes that
 * are not in known[] (the bytes of the input's keys, names and paths).
 * what names the text in the report. */
void fuzz_check_text(const char *what, const char *text, size_t len, const bool known[256]);
/* Marks the bytes of s[0..n) as known. */
void fuzz_know(bool known[256], const char *s, size_t n);

/* A growable byte string for the harnesses (aborts when out of memory). */
struct fuzz_str {
	char *p;
	size_t len, cap;
};
void fuzz_str_add(struct fuzz_str *s, const void *p, size_t n);
void fuzz_str_addz(struct fuzz_str *s, const char *p); /* with its NUL */
void fuzz_str_free(struct fuzz_str *s);

/* ---- inputs that describe a tree (fuzz_load, fuzz_module) ---- */

/* One input becomes several files across the user directory and the four
 * system directories, a base environment and some knobs.  The input is cut
 * at every byte 0x1e (record separator); the first line of each piece after
 * the first is its header:
 *
 *   <dir><entry><name>   an entry of a directory:
 *     dir    'u' user, 'e' etc, 'r' run, 'l' usr/local/lib, 's' usr/lib
 *     entry  ':' regular file holding the rest of the piece
 *            '~' symlink to /dev/null      '/' directory
 *            '>' symlink to the entry the rest names (a sibling, or
 *                ../<dir>/<name>)          '!' dangling symlink
 *            '0' regular file of mode 0666 (unsafe)
 *            '|' FIFO
 *     name   the basename: printable ASCII but '/' and the rare bytes,
 *            at most 64 bytes ("<n>.conf" when empty)
 *   b        the base environment, one NAME=VALUE per line (other lines
 *            are passed on too: the engine must skip them)
 *   o        knobs: bytes the harness gives a meaning to
 *
 * Other headers are ignored.  The piece before the first separator, unless
 * empty, is the file u:50-input.conf, so that a plain environment.d file is
 * an input too. */
enum fuzz_dir { FUZZ_USER, FUZZ_ETC, FUZZ_RUN, FUZZ_USRLOCAL, FUZZ_USR, FUZZ_NDIRS };

struct fuzz_section {
	char kind; /* 'f' directory entry, 'b' base, 'o' knobs */
	enum fuzz_dir dir;
	char entry;
	char name[72];
	const uint8_t *data;
	size_t len;
};

#define FUZZ_MAX_SECTIONS 32

/* Returns the number of sections (at most max) stored in sec. */
size_t fuzz_split(const uint8_t *data, size_t size, struct fuzz_section *sec, size_t max);

struct fuzz_tree {
	char top[200];               /* private directory, made once */
	char dirs[FUZZ_NDIRS][256];  /* top/case/{u,e,r,l,s} */
	const char *sys[FUZZ_NDIRS]; /* the four system dirs, NULL-terminated */
	bool known[256];             /* bytes of every path of the tree */
};

/* Makes the private directory (mode 0755, under $TMPDIR or /tmp); prefix
 * names the harness.  Sets umask 022. */
void fuzz_tree_init(struct fuzz_tree *t, const char *prefix);
/* Removes the previous case, then lays out this one's entries.  Marks the
 * names of the entries and symlink targets as known. */
void fuzz_tree_build(struct fuzz_tree *t, const struct fuzz_section *sec, size_t n);
/* Removes everything under top/case. */
void fuzz_tree_clear(struct fuzz_tree *t);

/* The 'b' sections as a NULL-terminated vector of malloc'd strings, one per
 * non-empty line (up to a NUL byte): NAME=VALUE, or malformed on purpose. */
char **fuzz_base_env(const struct fuzz_section *sec, size_t n);
void fuzz_strv_free(char **v);
/* The 'o' sections, concatenated; bytes past the end read as 0. */
unsigned fuzz_knob(const struct fuzz_section *sec, size_t n, size_t i);

#endif
