/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * unit_limits.c - every resource limit of envd_load, and the diagnostics:
 * their cap, their classes, the severity level, and that none carries a
 * value.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <time.h>

#include <unistd.h>

#include "testutil.h"

/* CLOCK_MONOTONIC as the library reads it, pushed forward clock_step_ms
 * at every read while a test sets it (linked into this program ahead of
 * libc's, as unit_files.c does with fstatat). */
static long clock_step_ms;
static long clock_pushed_ms;

int clock_gettime(clockid_t id, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);
	int r;

	if (!real) {
		*(void **)&real = dlsym(RTLD_NEXT, "clock_gettime");
		if (!real) {
			errno = ENOSYS;
			return -1;
		}
	}
	r = real(id, ts);
	if (r == 0 && id == CLOCK_MONOTONIC && clock_step_ms > 0) {
		clock_pushed_ms += clock_step_ms;
		ts->tv_sec += clock_pushed_ms / 1000;
		ts->tv_nsec += (clock_pushed_ms % 1000) * 1000000L;
		if (ts->tv_nsec >= 1000000000L) {
			ts->tv_sec++;
			ts->tv_nsec -= 1000000000L;
		}
	}
	return r;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- limits: each one gives a diagnostic and keeps earlier work ---- */

/* How many of the one-letter names V<c> (digits) or <c> (letters) are set. */
static int count_set(const struct tu_tree *t, const char *which)
{
	char name[3];
	int n = 0;

	for (; *which != '\0'; which++) {
		name[0] = *which >= '0' && *which <= '9' ? 'V' : *which;
		name[1] = name[0] == 'V' ? *which : '\0';
		name[2] = '\0';
		n += envd_result_get(t->res, name) != NULL;
	}
	return n;
}

/* The user's files are read for user_ms at most (a slow home must not
 * hold a login): the files after the limit are not read, still mask their
 * names, and the log says how many were cut.  The system side does not
 * count.  (A reader in a child keeps to three quarters of it and is
 * killed at the whole: unit_files.) */
static void test_limit_user_time(void **state)
{
	struct tu_tree t;
	const struct tu_diag *d;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.user, "a.conf", "A=1\n");
	tu_write(t.user, "b.conf", "B=1\n");
	tu_write(t.user, "c.conf", "C=1\n");
	tu_write(t.user, "d.conf", "D=1\n");
	tu_write(t.etc, "c.conf", "C=system\n");
	tu_write(t.etc, "s.conf", "S=1\n");
	t.cfg.limits.user_ms = 2500;
	clock_step_ms = 1000; /* each look at the clock: one second later */
	clock_pushed_ms = 0;
	tu_load_ok(&t);
	clock_step_ms = 0;
	/* files are read in the directory's order: two of the four */
	assert_int_equal(count_set(&t, "ABCD"), 2);
	/* read or not, the user's c.conf masks the system's */
	assert_true(envd_result_get(t.res, "C") == NULL ||
	            strcmp(envd_result_get(t.res, "C")->value, "1") == 0);
	tu_assert_var(&t, "S", "1");
	d = tu_find(&t.diags, ENVD_C_LIMIT, "/.config/environment.d", 0);
	assert_non_null(d);
	assert_non_null(strstr(d->message, "longer than 2500 ms: 2 files not read"));
	tu_tree_free(&t);
}

/* The user's files add at most user_vars names to the environment (each
 * costs the root login process a pam_putenv that searches the whole
 * environment); the cut is said once, with how many; names the user's
 * files only change, and the system's, do not count. */
static void test_limit_user_vars(void **state)
{
	struct tu_tree t;
	const struct tu_diag *d;
	size_t n = 0;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.etc, "00-sys.conf", "SHARED=system\nS1=1\nS2=2\nS3=3\n");
	tu_write(t.user, "10-u.conf", "U1=1\nU2=2\nSHARED=user\nU3=3\nU4=4\nU1=again\n");
	tu_write(t.user, "20-u.conf", "U5=5\nU6=6\n");
	t.cfg.limits.user_vars = 3;
	tu_load_ok(&t);
	tu_assert_var(&t, "U1", "again");
	tu_assert_var(&t, "U2", "2");
	tu_assert_var(&t, "U3", "3");
	tu_assert_var(&t, "SHARED", "user"); /* set by a system file first: no new name */
	tu_assert_unset(&t, "U4");
	tu_assert_unset(&t, "U5");
	tu_assert_unset(&t, "U6");
	tu_assert_var(&t, "S3", "3");
	for (size_t i = 0; i < t.diags.n; i++)
		if (t.diags.v[i].code == ENVD_C_LIMIT)
			n++;
	assert_int_equal(n, 1);
	d = tu_find(&t.diags, ENVD_C_LIMIT, "/.config/environment.d", 0);
	assert_non_null(d);
	assert_string_equal(d->message,
	                    "the user's files set more than 3 variables: 3 more not set; fix: set "
	                    "fewer variables");
	assert_int_equal(ENVD_MAX_USER_VARS, 2048);
	tu_tree_free(&t);
}

/* Every limit at its largest value means no limit, and nothing in the
 * arithmetic on it wraps (file_bytes + 1 once made realloc(p, 0) and a
 * double free for a file over 4 KiB; files_per_dir * 16 wrapped to 0 and
 * listed nothing): in this process and through a reader child. */
static void test_limits_at_maximum(void **state)
{
	struct tu_tree t;
	struct envd_ids self = {.uid = geteuid(), .gid = getegid()};
	char big[20000];

	(void)state;
	memset(big, 'x', sizeof(big) - 2);
	memcpy(big, "BIG=", 4);
	big[sizeof(big) - 2] = '\n';
	big[sizeof(big) - 1] = '\0';
	for (int round = 0; round < 4; round++) {
		/* SIZE_MAX, and the value whose sixteen times wraps to 0 */
		size_t max = round < 2 ? SIZE_MAX : SIZE_MAX / 16 + 1;
		int child = round % 2;

		tu_tree_init(&t);
		tu_write(t.user, "10-big.conf", big);
		tu_write(t.user, "20-a.conf", "A=${HOME:-x}-1\n");
		tu_write(t.etc, "30-s.conf", "S=1\n");
		t.cfg.limits = (struct envd_limits){
		    .file_bytes = max,
		    .input_bytes = max,
		    .files_per_dir = max,
		    .assignments = max,
		    .entry_bytes = max,
		    .expansion_bytes = max,
		    .depth = max,
		    .result_bytes = max,
		    .diagnostics = max,
		    .link_steps = max,
		    .user_ms = max,
		    .user_vars = max,
		};
		if (child)
			t.cfg.user_ids = &self;
		tu_load_ok(&t);
		assert_non_null(envd_result_get(t.res, "BIG"));
		assert_int_equal(envd_result_get(t.res, "BIG")->value_len, sizeof(big) - 6);
		tu_assert_var(&t, "S", "1");
		assert_non_null(envd_result_get(t.res, "A"));
		tu_tree_free(&t);
	}
}

/* Symbolic link steps on the user side are counted per load: thousands of
 * links into long chains cannot keep the window open.  A file behind the
 * budget is skipped with the reason; a plain file after it is still read. */
static void test_limit_link_steps(void **state)
{
	struct tu_tree t;
	char name[32], target[TU_PATH], link[32], text[32];
	const struct tu_diag *d;

	(void)state;
	tu_tree_init(&t);
	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "v%d.env", i);
		snprintf(text, sizeof(text), "V%d=1\n", i);
		tu_write(t.root, name, text);
		tu_join(target, t.root, name);
		snprintf(link, sizeof(link), "l%d", i);
		tu_symlink(target, t.root, link); /* a chain of two links */
		tu_join(target, t.root, link);
		snprintf(name, sizeof(name), "%d.conf", i);
		tu_symlink(target, t.user, name);
	}
	tu_write(t.user, "z.conf", "Z=1\n");
	t.cfg.limits.link_steps = 5;
	tu_load_ok(&t);
	/* two files of two steps each; the third would need steps 5 and 6 */
	assert_int_equal(count_set(&t, "012345"), 2);
	tu_assert_var(&t, "Z", "1");
	d = tu_find(&t.diags, ENVD_C_LIMIT, "/.config/environment.d", 0);
	assert_non_null(d);
	assert_non_null(strstr(d->message, "more than 5 symbolic link steps"));
	tu_tree_free(&t);
}

static void test_limit_input_bytes(void **state)
{
	struct tu_tree t;
	char name[32], head[32];
	size_t i;

	(void)state;
	tu_tree_init(&t);
	t.cfg.limits.input_bytes = 20;
	tu_write(t.etc, "a.conf", "A=aaaaaaaaa\n"); /* 12 */
	tu_write(t.etc, "b.conf", "B=bbbbbbbbb\n"); /* 12: over what is left */
	tu_write(t.etc, "c.conf", "C=cc\n");        /* 5 */
	tu_write(t.etc, "d.conf", "D=dd\n");        /* 5: 22 > 20 */
	tu_write(t.etc, "e.conf", "E=e");           /* 3: exactly what is left */
	tu_write(t.etc, "f.conf", "F=f\n");         /* nothing left */
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "aaaaaaaaa");
	tu_assert_unset(&t, "B");
	tu_assert_var(&t, "C", "cc");
	tu_assert_unset(&t, "D");
	tu_assert_var(&t, "E", "e");
	tu_assert_unset(&t, "F");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/b.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/d.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/f.conf", 0);
	tu_tree_free(&t);

	/* the default: sixteen files of the largest size fit, a seventeenth not */
	tu_tree_init(&t);
	for (i = 0; i <= ENVD_MAX_INPUT_BYTES / ENVD_MAX_FILE_BYTES; i++) {
		snprintf(name, sizeof(name), "f%02zu.conf", i);
		snprintf(head, sizeof(head), "F%02zu=1\n", i);
		tu_write_padded(i < 8 ? t.user : t.etc, name, head, ENVD_MAX_FILE_BYTES);
	}
	tu_load_ok(&t);
	tu_assert_var(&t, "F00", "1");
	tu_assert_var(&t, "F15", "1");
	tu_assert_unset(&t, "F16");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/f16.conf", 0);
	tu_tree_free(&t);
}

static void test_limit_files_per_dir(void **state)
{
	struct tu_tree t;
	char name[32], line[32];
	size_t i;

	(void)state;
	tu_tree_init(&t);
	t.cfg.limits.files_per_dir = 3;
	/* created out of order: the first ones in strcmp order are kept */
	tu_write(t.etc, "e.conf", "E=1\n");
	tu_write(t.etc, "b.conf", "B=1\n");
	tu_write(t.etc, "d.conf", "D=1\n");
	tu_write(t.etc, "a.conf", "A=1\n");
	tu_write(t.etc, "c.conf", "C=1\n");
	tu_write(t.usr, "z.conf", "Z=1\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "1");
	tu_assert_var(&t, "B", "1");
	tu_assert_var(&t, "C", "1");
	tu_assert_unset(&t, "D");
	tu_assert_unset(&t, "E");
	tu_assert_var(&t, "Z", "1");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d", 0);
	tu_tree_free(&t);

	/* the default (the user's variables uncapped: each file sets one) */
	tu_tree_init(&t);
	t.cfg.limits.user_vars = SIZE_MAX;
	for (i = 0; i <= ENVD_MAX_FILES_PER_DIR; i++) {
		snprintf(name, sizeof(name), "%05zu.conf", i);
		snprintf(line, sizeof(line), "V%05zu=1\n", i);
		tu_write(t.user, name, line);
	}
	tu_load_ok(&t);
	assert_int_equal(envd_result_count(t.res), ENVD_MAX_FILES_PER_DIR);
	tu_assert_var(&t, "V04095", "1");
	tu_assert_unset(&t, "V04096");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/.config/environment.d", 0);
	tu_tree_free(&t);
}

/* A file dropped over the per-directory limit still holds its name, like
 * any skipped file ("anything holding the name masks"): the same basename
 * in a lower directory must not take its place. */
static void test_limit_files_per_dir_still_masks(void **state)
{
	struct tu_tree t;
	bool b_set;

	(void)state;
	tu_tree_init(&t);
	t.cfg.limits.files_per_dir = 1;
	tu_write(t.etc, "a.conf", "A=etc\n");
	tu_write(t.etc, "b.conf", "B=etc\n"); /* dropped: over the limit */
	tu_write(t.usr, "b.conf", "B=usr\n"); /* masked by etc/b.conf */
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "etc");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d", 0);
	b_set = tu_get(&t, "B") != NULL;
	tu_tree_free(&t); /* before failing: no leak report on top */
	if (b_set)
		fail_msg("B came from usr/b.conf: the dropped etc/b.conf did not mask it");
}

static void test_limit_directory_entries(void **state)
{
	struct tu_tree t;
	char name[32];
	size_t i;

	(void)state;
	tu_tree_init(&t);
	t.cfg.limits.files_per_dir = 1;
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "junk%02zu", i);
		tu_write(t.etc, name, "");
	}
	tu_write(t.usr, "u.conf", "U=1\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "U", "1");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d", 0);
	tu_tree_free(&t);
}

static void test_limit_assignments(void **state)
{
	struct tu_tree t;
	char *buf;
	size_t i, len = 0, n = ENVD_MAX_ASSIGNMENTS;

	(void)state;
	tu_tree_init(&t);
	t.cfg.limits.assignments = 5;
	tu_write(t.etc, "a.conf", "A1=1\nA2=2\n1BAD=3\nA4=4\n");
	tu_write(t.etc, "b.conf", "B1=1\n\nB2=2\nB3=3\n");
	tu_write(t.etc, "c.conf", "C1=1\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "A1", "1");
	tu_assert_var(&t, "A4", "4");
	tu_assert_var(&t, "B1", "1");
	tu_assert_unset(&t, "B2");
	tu_assert_unset(&t, "B3");
	tu_assert_unset(&t, "C1");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/b.conf", 3);
	assert_int_equal(tu_count(&t.diags, ENVD_C_LIMIT), 1);
	tu_tree_free(&t);

	/* the default */
	tu_tree_init(&t);
	buf = malloc(n * 16 + 32);
	assert_non_null(buf);
	for (i = 1; i <= n; i++)
		len += (size_t)sprintf(buf + len, "V=%zu\n", i);
	len += (size_t)sprintf(buf + len, "LAST=1\n");
	tu_write_len(t.etc, "a.conf", buf, len);
	free(buf);
	t.cfg.diag_level = ENVD_ERROR; /* not 65536 "set" traces */
	tu_load_ok(&t);
	tu_assert_unset(&t, "LAST");
	assert_int_equal(atoi(tu_get(&t, "V")), (int)n);
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/a.conf", (unsigned)n + 1);
	tu_tree_free(&t);
}

static void test_limit_entry_bytes(void **state)
{
	struct tu_tree t;
	size_t max = ENVD_MAX_ENTRY_BYTES - 2; /* "A=" */
	char *fits = tu_repeat("a", max), *over = tu_repeat("b", max + 1);
	size_t fl = strlen(fits), ol = strlen(over);
	char *buf = malloc(fl + ol + 64);
	size_t len = 0;
	const char *f = "/etc/environment.d/a.conf";

	(void)state;
	assert_non_null(buf);
	len += (size_t)sprintf(buf + len, "A=%s\n", fits); /* 1 */
	len += (size_t)sprintf(buf + len, "B=%s\n", over); /* 2 */
	len += (size_t)sprintf(buf + len, "C=$A$A\n");     /* 3: by expansion */
	len += (size_t)sprintf(buf + len, "D=ok\n");       /* 4 */
	len += (size_t)sprintf(buf + len, "A=${A}x\n");    /* 5: one byte over */
	tu_tree_init(&t);
	tu_write_len(t.etc, "a.conf", buf, len);
	tu_load_ok(&t);
	assert_int_equal(strlen(tu_get(&t, "A")), max);
	tu_assert_unset(&t, "B");
	tu_assert_unset(&t, "C");
	tu_assert_var(&t, "D", "ok");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, f, 2);
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, f, 3);
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, f, 5);

	/* without expansion the same cap holds */
	t.cfg.flags = ENVD_NO_EXPAND;
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "${A}x");
	tu_assert_unset(&t, "B");
	tu_assert_var(&t, "C", "$A$A");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, f, 2);

	/* a configured cap counts the name and the '=' */
	t.cfg.flags = 0;
	t.cfg.limits.entry_bytes = 6;
	tu_write(t.etc, "a.conf", "AB=123\nCD=1234\nEF=$AB$AB\nGH=x\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "AB", "123");
	tu_assert_unset(&t, "CD");
	tu_assert_unset(&t, "EF");
	tu_assert_var(&t, "GH", "x");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, f, 2);
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, f, 3);
	free(buf);
	free(fits);
	free(over);
	tu_tree_free(&t);
}

static void test_limit_expansion_budget(void **state)
{
	static const char *const base[] = {"X=12345", NULL};
	struct tu_tree t;
	const char *f = "/etc/environment.d/a.conf";

	(void)state;
	tu_tree_init(&t);
	t.cfg.base_env = base;
	t.cfg.limits.expansion_bytes = 10;
	tu_write(t.etc, "a.conf", "A=$X\nB=${X}\nC=$X\nD=literal $$\nE=${UNSET:-word}\n");
	tu_write(t.usr, "b.conf", "F=$X\nG=plain\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "12345");
	tu_assert_var(&t, "B", "12345");
	tu_assert_unset(&t, "C");
	tu_assert_var(&t, "D", "literal $");
	tu_assert_var(&t, "E", "word");
	tu_assert_unset(&t, "F");
	tu_assert_var(&t, "G", "plain");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, f, 3);
	tu_tree_free(&t);
}

/* A=$A$A$A$A 100,000 times: the budget keeps it linear and fast. */
static void test_limit_expansion_exponential(void **state)
{
	enum { LINES = 100000 };
	const char *line = "A=$A$A$A$A\n";
	struct tu_tree t;
	char *body = tu_repeat(line, LINES);
	size_t bl = strlen(body);
	char *buf = malloc(bl + 32);
	size_t len = 0;
	double t0;
	const char *a;

	(void)state;
	assert_non_null(buf);
	len += (size_t)sprintf(buf, "A=x\n");
	memcpy(buf + len, body, bl);
	len += bl;
	len += (size_t)sprintf(buf + len, "B=done\n");
	tu_tree_init(&t);
	tu_write_len(t.etc, "a.conf", buf, len);
	t.cfg.limits.file_bytes = 4u << 20;
	t.cfg.limits.assignments = 2 * LINES;
	t0 = now();
	tu_load_ok(&t);
	print_message("  %d exponential lines loaded in %.3f s\n", LINES, now() - t0);
	assert_true(now() - t0 < 20.0);
	a = tu_get(&t, "A");
	assert_non_null(a);
	/* 4^8: the last value under the entry cap */
	assert_int_equal(strlen(a), 65536);
	tu_assert_var(&t, "B", "done");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/a.conf", 10);
	free(buf);
	free(body);
	tu_tree_free(&t);
}

static void test_limit_depth(void **state)
{
	struct tu_tree t;
	char *deep = tu_nested(ENVD_MAX_DEPTH + 8), *ok = tu_nested(8);
	char *buf = malloc(strlen(deep) + strlen(ok) + 64);

	(void)state;
	assert_non_null(buf);
	sprintf(buf, "BEFORE=1\nDEEP=%s\nOK=%s\nAFTER=1\n", deep, ok);
	tu_tree_init(&t);
	tu_write(t.etc, "a.conf", buf);
	tu_load_ok(&t);
	tu_assert_var(&t, "BEFORE", "1");
	tu_assert_unset(&t, "DEEP");
	tu_assert_var(&t, "OK", "x");
	tu_assert_var(&t, "AFTER", "1");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/a.conf", 2);

	/* a configured depth */
	t.cfg.limits.depth = 4;
	tu_load_ok(&t);
	tu_assert_unset(&t, "OK");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/a.conf", 3);
	free(buf);
	free(deep);
	free(ok);
	tu_tree_free(&t);
}

static void test_limit_result_bytes(void **state)
{
	struct tu_tree t;
	const char *f = "/etc/environment.d/a.conf";
	char name[16], *value, *buf;
	size_t i, len = 0, vlen = 120000;

	(void)state;
	tu_tree_init(&t);
	t.cfg.limits.result_bytes = 30;
	tu_write(t.etc, "a.conf",
	         "A=aaaaaaaaaa\n" /* 1: 13 */
	         "B=bbbbbbbbbb\n" /* 2: 26 */
	         "C=cccccccccc\n" /* 3: 39 > 30 */
	         "D=d\n"          /* 4: 30 */
	         "A=a\n"          /* 5: 21, the old value no longer counts */
	         "C=cccccccccc\n" /* 6: 34 > 30 */
	         "C=cccccc\n");   /* 7: 30 */
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "a");
	tu_assert_var(&t, "B", "bbbbbbbbbb");
	tu_assert_var(&t, "C", "cccccc");
	tu_assert_var(&t, "D", "d");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, f, 3);
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, f, 6);
	assert_int_equal(tu_count(&t.diags, ENVD_C_LIMIT), 2);
	tu_tree_free(&t);

	/* the default: 120,000-byte values, four per file */
	tu_tree_init(&t);
	value = tu_repeat("v", vlen);
	buf = malloc(4 * (vlen + 16));
	assert_non_null(buf);
	for (i = 0; i < 12; i++) {
		len += (size_t)sprintf(buf + len, "R%02zu=%s\n", i, value);
		if (i % 4 == 3) {
			snprintf(name, sizeof(name), "%02zu.conf", i);
			tu_write_len(t.etc, name, buf, len);
			len = 0;
		}
	}
	tu_load_ok(&t);
	/* 8 * (3 + 120000 + 2) fit in 1 MiB, a ninth does not */
	assert_int_equal(envd_result_count(t.res), ENVD_MAX_RESULT_BYTES / (3 + vlen + 2));
	assert_int_equal(envd_result_count(t.res), 8);
	assert_non_null(tu_get(&t, "R07"));
	tu_assert_unset(&t, "R08");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/11.conf", 1);
	free(value);
	free(buf);
	tu_tree_free(&t);
}

static void test_limit_diagnostics(void **state)
{
	struct tu_tree t;
	char *buf;
	size_t i, len = 0;
	const struct tu_diag *last;

	(void)state;
	tu_tree_init(&t);
	t.cfg.limits.diagnostics = 5;
	tu_write(t.etc, "a.conf", "1A=1\n1B=1\n1C=1\n1D=1\n1E=1\n1F=1\n1G=1\n1H=1\n1I=1\n1J=1\n");
	tu_write(t.etc, "b.conf", "OK=1\n");
	t.cfg.diag_level = ENVD_ERROR;
	tu_load_ok(&t);
	tu_assert_var(&t, "OK", "1");
	assert_int_equal(tu_count(&t.diags, ENVD_C_BAD_NAME), 5);
	assert_int_equal(t.diags.n, 6);
	last = &t.diags.v[5];
	assert_int_equal(last->code, ENVD_C_SUPPRESSED);
	assert_int_equal(envd_result_diag_count(t.res), 10);
	tu_tree_free(&t);

	/* the default */
	tu_tree_init(&t);
	buf = malloc(ENVD_MAX_DIAGNOSTICS * 16 + 16);
	assert_non_null(buf);
	for (i = 0; i <= ENVD_MAX_DIAGNOSTICS; i++)
		len += (size_t)sprintf(buf + len, "1X%zu=1\n", i);
	tu_write_len(t.etc, "a.conf", buf, len);
	free(buf);
	t.cfg.diag_level = ENVD_ERROR;
	tu_load_ok(&t);
	assert_int_equal(t.diags.n, ENVD_MAX_DIAGNOSTICS + 1);
	assert_int_equal(t.diags.v[ENVD_MAX_DIAGNOSTICS].code, ENVD_C_SUPPRESSED);
	assert_int_equal(envd_result_diag_count(t.res), ENVD_MAX_DIAGNOSTICS + 1);
	tu_tree_free(&t);
}

/* Tracing and problems are capped apart: at debug level, the "set" lines of
 * many assignments do not push a later error out. */
static void test_limit_diagnostics_classes(void **state)
{
	struct tu_tree t;

	(void)state;
	tu_tree_init(&t);
	t.cfg.limits.diagnostics = 5;
	tu_write(t.etc, "a.conf", "A=1\nB=1\nC=1\nD=1\nE=1\nF=1\nG=1\nH=1\n1BAD=1\n");
	t.cfg.diag_level = ENVD_DEBUG;
	tu_load_ok(&t);
	tu_assert_var(&t, "H", "1");
	assert_int_equal(tu_count(&t.diags, ENVD_C_SET), 5);
	tu_assert_diag(&t.diags, ENVD_C_BAD_NAME, "/etc/environment.d/a.conf", 9);
	/* one "suppressed" line, for the tracing only, with a code of its own */
	assert_int_equal(tu_count(&t.diags, ENVD_C_SUPPRESSED), 1);
	assert_int_equal(tu_count(&t.diags, ENVD_C_LIMIT), 0);
	assert_int_equal(envd_result_diag_count(t.res), 9);
	tu_tree_free(&t);
}

/* Below diag_level nothing is reported or counted; no callback is fine. */
static void test_diag_level(void **state)
{
	struct tu_tree t;
	size_t i, all;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.etc, "a.conf", "A=1\n1BAD=2\nT=~/x\n");
	tu_write(t.usr, "a.conf", "M=1\n");
	t.cfg.flags = ENVD_LINT;
	tu_load_ok(&t);
	all = envd_result_diag_count(t.res);
	assert_int_equal(all, t.diags.n);
	tu_assert_diag(&t.diags, ENVD_C_SET, "/etc/environment.d/a.conf", 1);
	tu_assert_diag(&t.diags, ENVD_C_FILE_MASKED, "/usr/lib/environment.d/a.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_LINT_TILDE, "/etc/environment.d/a.conf", 3);

	t.cfg.diag_level = ENVD_WARNING;
	tu_load_ok(&t);
	for (i = 0; i < t.diags.n; i++)
		assert_true(t.diags.v[i].severity <= ENVD_WARNING);
	tu_assert_diag(&t.diags, ENVD_C_BAD_NAME, "/etc/environment.d/a.conf", 2);
	tu_assert_diag(&t.diags, ENVD_C_LINT_TILDE, "/etc/environment.d/a.conf", 3);
	assert_int_equal(envd_result_diag_count(t.res), t.diags.n);
	assert_true(t.diags.n < all);

	t.cfg.diag_level = ENVD_ERROR;
	tu_load_ok(&t);
	assert_int_equal(t.diags.n, 1);
	assert_int_equal(t.diags.v[0].code, ENVD_C_BAD_NAME);

	t.cfg.diag = NULL;
	t.cfg.diag_level = ENVD_DEBUG;
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "1");
	tu_assert_var(&t, "T", "~/x");
	tu_tree_free(&t);
}

/* Diagnostics name files, lines and variables, never values. */
static void test_no_value_in_diagnostics(void **state)
{
	static const char *const base[] = {"KEEP=1", "BIN=s3cr3t\xff", NULL};
	struct tu_tree t;
	struct envd_policy *p = envd_policy_new(true);
	char *deep = tu_nested(64), *buf = malloc(strlen(deep) + 1024);
	size_t i;

	(void)state;
	assert_non_null(p);
	assert_non_null(buf);
	sprintf(buf,
	        "LD_PRELOAD=s3cr3t\n"
	        "U=s3cr3t\xff\n"
	        "V=$BIN\n"
	        "KEEP=s3cr3t\n"
	        "export E=s3cr3t\n"
	        "1X=s3cr3t\n"
	        "T=~/s3cr3t\n"
	        "C=$(s3cr3t) `s3cr3t`\n"
	        "H=%%h/s3cr3t\n"
	        "MYPATH=s3cr3t::x\n"
	        "W=s3cr3t # comment\n"
	        "D=s3cr3t%s\n"
	        "L=s3cr3ts3cr3ts3cr3t\n"
	        "TOKEN s3cr3t=x\n"
	        "TOKEN\ts3cr3t=x\n"
	        "export TOKEN s3cr3t=x\n"
	        "TOKEN-s3cr3t=x\n"
	        /* a pasted base64 secret with one '=' of padding: a valid
	         * name with no value; 16 bytes of it may show */
	        "Q29uZmlnVG9rZW5zs3cr3tVmFsdWU=\n",
	        deep);
	tu_tree_init(&t);
	tu_write(t.user, "a.conf", buf);
	t.cfg.base_env = base;
	t.cfg.policy = p;
	t.cfg.flags = ENVD_LINT | ENVD_NO_OVERWRITE;
	t.cfg.limits.entry_bytes = 12;
	tu_load_ok(&t);
	assert_true(t.diags.n > 10);
	assert_non_null(tu_find(&t.diags, ENVD_C_NO_VALUE, "/a.conf", 18));
	for (i = 0; i < t.diags.n; i++) {
		const struct tu_diag *d = &t.diags.v[i];

		if (strstr(d->message, "s3cr3t") || (d->name && strstr(d->name, "s3cr3t")) ||
		    (d->file && strstr(d->file, "s3cr3t"))) {
			tu_print_diags(&t.diags);
			fail_msg("diagnostic %zu shows a value", i);
		}
	}
	envd_policy_free(p);
	free(deep);
	free(buf);
	tu_tree_free(&t);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    tu_test(test_limit_input_bytes),
	    tu_test(test_limit_files_per_dir),
	    tu_test(test_limit_user_time),
	    tu_test(test_limit_user_vars),
	    tu_test(test_limits_at_maximum),
	    tu_test(test_limit_link_steps),
	    tu_test(test_limit_files_per_dir_still_masks),
	    tu_test(test_limit_directory_entries),
	    tu_test(test_limit_assignments),
	    tu_test(test_limit_entry_bytes),
	    tu_test(test_limit_expansion_budget),
	    tu_test(test_limit_expansion_exponential),
	    tu_test(test_limit_depth),
	    tu_test(test_limit_result_bytes),
	    tu_test(test_limit_diagnostics),
	    tu_test(test_limit_diagnostics_classes),
	    tu_test(test_diag_level),
	    tu_test(test_no_value_in_diagnostics),
	};

	return cmocka_run_group_tests_name("unit_limits", tests, NULL, NULL);
}
