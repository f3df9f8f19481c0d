/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * unit_escape.c - lib/escape.c: one escaper for envd's output and the
 * module's log lines, which differ in what they escape, not in how.
 */
#include "config.h"

#include "escape.h"
#include "testutil.h"

static char *appended(const char *s, unsigned how)
{
	struct envd_buf b;

	envd_buf_init(&b, 0);
	assert_int_equal(envd_esc_append(&b, s, strlen(s), how), 0);
	return envd_buf_steal(&b, NULL);
}

/* The log (ENVD_ESC_ASCII) writes every escape as the terminal's C syntax
 * does; it escapes more: the bytes of valid UTF-8 too. */
static void test_log_and_terminal_share_the_syntax(void **state)
{
	static const char in[] = "a\nb\tc\rd\\e\x1b[2J\x7f\xc3\xa9\xff";
	const unsigned c = ENVD_ESC_C | ENVD_ESC_BACKSLASH;
	char log[256], *term = appended(in, c), *ascii = appended(in, c | ENVD_ESC_ASCII);

	(void)state;
	assert_string_equal(term, "a\\nb\\tc\\rd\\\\e\\x1b[2J\\x7f\xc3\xa9\\xff");
	assert_string_equal(ascii, "a\\nb\\tc\\rd\\\\e\\x1b[2J\\x7f\\xc3\\xa9\\xff");
	envd_esc_clip(in, c | ENVD_ESC_ASCII, log, sizeof(log));
	assert_string_equal(log, ascii);
	assert_true(envd_esc_needed("\xc3\xa9", 2, ENVD_ESC_ASCII));
	assert_false(envd_esc_needed("\xc3\xa9", 2, 0));
	free(term);
	free(ascii);
}

/* Clipped with "...", never inside an escape. */
static void test_clip(void **state)
{
	char out[10];

	(void)state;
	envd_esc_clip("abcdef", ENVD_ESC_C, out, sizeof(out));
	assert_string_equal(out, "abcdef");
	envd_esc_clip("abcdefghijk", ENVD_ESC_C, out, sizeof(out));
	assert_string_equal(out, "abcdef...");
	envd_esc_clip("abcd\x01xyz", ENVD_ESC_C, out, sizeof(out));
	assert_string_equal(out, "abcd...");
	envd_esc_clip("x", ENVD_ESC_C, out, 3);
	assert_string_equal(out, "");
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    tu_test(test_log_and_terminal_share_the_syntax),
	    tu_test(test_clip),
	};

	return cmocka_run_group_tests_name("unit_escape", tests, NULL, NULL);
}
