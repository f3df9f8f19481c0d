/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * unit_parse.c - envd_parse against every syntax rule of
 * environment.d-semantics.md ("The file syntax").  Each table row is one
 * cmocka test; the input is handed over in an exact-size heap buffer without
 * a terminating NUL, so the sanitizer build catches reads past the end.
 * Expected values were checked against Debian 12's generator, except the
 * line numbers: pam_envd reports the line an assignment starts on.
 */
#include "config.h"

#include "testutil.h"

#define MAX_OUT 8

struct exp {
	const char *key;
	const char *value; /* NULL: has_value false */
	unsigned line;
};

struct pcase {
	const char *name;
	const char *in;
	struct exp out[MAX_OUT]; /* terminated by a NULL key */
};

struct got {
	char *key;
	char *value;
	size_t value_len;
	bool has_value;
	unsigned line;
};

struct gots {
	struct got v[64];
	size_t n;
	size_t stop_after; /* callback returns 1 after this many; 0: never */
};

static int collect(const char *key, size_t key_len, const char *value, size_t value_len,
                   bool has_value, unsigned line, void *data)
{
	struct gots *g = data;
	struct got *e;

	assert_true(g->n < TU_LEN(g->v));
	assert_non_null(key);
	/* envd.h: key and value are NUL-terminated at their lengths */
	assert_int_equal(key[key_len], '\0');
	if (has_value)
		assert_int_equal(value[value_len], '\0');
	e = &g->v[g->n++];
	e->key = strndup(key, key_len);
	assert_non_null(e->key);
	e->has_value = has_value;
	e->line = line;
	e->value_len = value_len;
	if (has_value) {
		assert_non_null(value);
		e->value = malloc(value_len + 1);
		assert_non_null(e->value);
		memcpy(e->value, value, value_len);
		e->value[value_len] = '\0';
	} else {
		/* the API: value NULL (and no length) when the line set nothing */
		assert_null(value);
		assert_int_equal(value_len, 0);
		e->value = NULL;
	}
	if (g->stop_after && g->n >= g->stop_after)
		return 1;
	return 0;
}

static void gots_free(struct gots *g)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		free(g->v[i].key);
		free(g->v[i].value);
	}
	g->n = 0;
}

static int parse_exact(const char *in, size_t len, struct gots *g)
{
	char *buf = tu_exact(in, len);
	int r = envd_parse(buf, len, collect, g);

	free(buf);
	return r;
}

static void print_gots(const struct gots *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		print_message("  got %s has_value=%d line=%u len=%zu\n", g->v[i].key,
		              (int)g->v[i].has_value, g->v[i].line, g->v[i].value_len);
}

static void check(const struct gots *g, const struct exp *out)
{
	size_t i, n = 0;

	while (n < MAX_OUT && out[n].key)
		n++;
	if (g->n != n)
		print_gots(g);
	assert_int_equal(g->n, n);
	for (i = 0; i < n; i++) {
		assert_string_equal(g->v[i].key, out[i].key);
		if (!out[i].value) {
			assert_false(g->v[i].has_value);
		} else {
			assert_true(g->v[i].has_value);
			assert_int_equal(g->v[i].value_len, strlen(out[i].value));
			assert_memory_equal(g->v[i].value, out[i].value, g->v[i].value_len);
		}
		assert_int_equal(g->v[i].line, out[i].line);
	}
}

/* clang-format off */
static const struct pcase cases[] = {
    /* basics */
    {"one assignment", "A=1", {{"A", "1", 1}}},
    {"one assignment with newline", "A=1\n", {{"A", "1", 1}}},
    {"two lines", "A=1\nB=2\n", {{"A", "1", 1}, {"B", "2", 2}}},
    {"blank lines are counted", "\n\nA=1\n\n\nB=2", {{"A", "1", 3}, {"B", "2", 6}}},
    {"leading blanks before the key", "  \t A=1", {{"A", "1", 1}}},
    {"blanks around the key are trimmed", "A \t = 1", {{"A", "1", 1}}},
    {"blanks after = are skipped", "A=\t  x", {{"A", "x", 1}}},
    {"trailing blanks are trimmed", "A=x \t \nB=y  ", {{"A", "x", 1}, {"B", "y", 2}}},
    {"inner blanks are kept", "A=a \t b  ", {{"A", "a \t b", 1}}},
    {"= inside the value", "A=b=c==", {{"A", "b=c==", 1}}},
    {"line without = is dropped", "JUNK\nA=1\njunk too\nB=2", {{"A", "1", 2}, {"B", "2", 4}}},
    {"key at end of file without = is dropped", "A=1\nTAIL", {{"A", "1", 1}}},
    {"key with blank then newline is dropped", "A \nB=1", {{"B", "1", 2}}},
    {"key with an inner blank is passed on raw", "A B=1", {{"A B", "1", 1}}},
    {"export is part of the key", "export FOO=bar", {{"export FOO", "bar", 1}}},
    {"quote characters in a key are kept", "A'B=1", {{"A'B", "1", 1}}},
    {"= starting a line begins the key", "=x\nA=1", {{"A", "1", 2}}},
    {"== gives the key =", "==1", {{"=", "1", 1}}},

    /* comments */
    {"hash comment", "#A=1\nB=2", {{"B", "2", 2}}},
    {"semicolon comment", ";A=1\nB=2", {{"B", "2", 2}}},
    {"indented comment", "  \t# A=1\nB=2", {{"B", "2", 2}}},
    {"comment only at line start", "A=1 # x\nB=2;y", {{"A", "1 # x", 1}, {"B", "2;y", 2}}},
    {"hash comment ending in backslash ends at newline", "# x \\\nA=1", {{"A", "1", 2}}},
    {"semicolon comment ending in backslash ends at newline", "; x\\\nA=1\n", {{"A", "1", 2}}},
    {"comment ended by CR", "#c\rA=1", {{"A", "1", 2}}},
    {"comment at end of file", "A=1\n# no newline", {{"A", "1", 1}}},

    /* line ends */
    {"CR line ends", "A=1\rB=2\r", {{"A", "1", 1}, {"B", "2", 2}}},
    {"CRLF line ends", "A=1\r\nB=2\r\nC=3", {{"A", "1", 1}, {"B", "2", 2}, {"C", "3", 3}}},
    {"CRLF after trailing blanks", "A=x  \r\nB=y\t\r\n", {{"A", "x", 1}, {"B", "y", 2}}},
    {"mixed line ends", "A=1\r\n\rB=2\n\nC=3\r", {{"A", "1", 1}, {"B", "2", 3}, {"C", "3", 5}}},
    {"CR CR LF is two line ends", "\r\r\nA=1", {{"A", "1", 3}}},

    /* unquoted values */
    {"backslash escapes any character",
     "A=a\\b\\$c\\\\d\\\"e\\'f", {{"A", "ab$c\\d\"e'f", 1}}},
    {"escaped leading blank", "A=\\ x", {{"A", " x", 1}}},
    {"escaped trailing blank is kept", "A=x\\ ", {{"A", "x ", 1}}},
    {"escaped blank then blanks", "A=x\\  \t", {{"A", "x ", 1}}},
    {"continuation", "A=a\\\nb\nB=2", {{"A", "ab", 1}, {"B", "2", 3}}},
    {"continuation keeps leading blanks", "A=a\\\n   b", {{"A", "a   b", 1}}},
    {"continuation with CR", "A=a\\\rb\rB=1", {{"A", "ab", 1}, {"B", "1", 3}}},
    {"backslash CRLF ends the line", "A=x\\\r\nB=2", {{"A", "x", 1}, {"B", "2", 2}}},
    {"continuation onto a comment-like line", "A=a\\\n#b", {{"A", "a#b", 1}}},
    {"backslash at end of file", "A=a\\", {{"A", "a", 1}}},
    {"blanks before a final backslash are kept", "A=a  \\", {{"A", "a  ", 1}}},
    {"quotes are literal inside an unquoted segment",
     "A=a'b c'\"d\" \nB=1", {{"A", "a'b c'\"d\"", 1}, {"B", "1", 2}}},
    {"control characters are kept", "A=a\tb\x1b", {{"A", "a\tb\x1b", 1}}},
    {"bytes above 127 pass through", "A=\xff\xfe", {{"A", "\xff\xfe", 1}}},

    /* single quotes */
    {"single quotes", "A='a b'", {{"A", "a b", 1}}},
    {"single quotes keep backslashes", "A='a\\nb\\'", {{"A", "a\\nb\\", 1}}},
    {"single quotes keep $ and double quotes", "A='$X \"q\"'", {{"A", "$X \"q\"", 1}}},
    {"single quotes keep newlines", "A='a\nb'\nB=2", {{"A", "a\nb", 1}, {"B", "2", 3}}},
    {"single quotes keep blanks", "A='  a  '", {{"A", "  a  ", 1}}},

    /* double quotes */
    {"double quotes", "A=\"a b\"", {{"A", "a b", 1}}},
    {"double quote escapes", "A=\"\\\"\\\\\\`\\$\"", {{"A", "\"\\`$", 1}}},
    {"other backslashes in double quotes are kept", "A=\"\\n\\a\\'\"", {{"A", "\\n\\a\\'", 1}}},
    {"backslash newline in double quotes is removed",
     "A=\"a\\\nb\"\nB=1", {{"A", "ab", 1}, {"B", "1", 3}}},
    {"backslash CR in double quotes is kept", "A=\"a\\\rb\"", {{"A", "a\\\rb", 1}}},
    {"raw newline in double quotes is kept", "A=\"a\nb\"\nB=1", {{"A", "a\nb", 1}, {"B", "1", 3}}},
    {"blanks in double quotes are kept", "A=\"  a  \"  ", {{"A", "  a  ", 1}}},
    {"single quote in double quotes", "A=\"it's\"", {{"A", "it's", 1}}},

    /* segments */
    {"segments are joined", "A=\"a\"'b'c", {{"A", "abc", 1}}},
    {"blank between segments is skipped", "A=\"x\" y", {{"A", "xy", 1}}},
    {"many segments", "A='x'  \"y\"\t z  ", {{"A", "xyz", 1}}},
    {"escape after a closing quote", "A=\"a\"\\ b", {{"A", "a b", 1}}},
    {"quotes after an unquoted start stay literal", "A=x\"y\" 'z'", {{"A", "x\"y\" 'z'", 1}}},

    /* a quote left open */
    {"open single quote runs to end of file", "A='abc\nB=2\n", {{"A", "abc\nB=2\n", 1}}},
    {"open double quote runs to end of file", "A=\"abc\nB=2", {{"A", "abc\nB=2", 1}}},
    {"open double quote escape at end of file", "A=\"abc\\", {{"A", "abc", 1}}},

    /* empty values set nothing */
    {"A= at end of file", "A=", {{"A", NULL, 1}}},
    {"A= then blanks", "A=  \t ", {{"A", NULL, 1}}},
    {"A= then newline", "A=\nB=1", {{"A", NULL, 1}, {"B", "1", 2}}},
    {"A= then CRLF", "A=\r\nB=1", {{"A", NULL, 1}, {"B", "1", 2}}},
    {"A=\"\"", "A=\"\"", {{"A", NULL, 1}}},
    {"A=''", "A=''", {{"A", NULL, 1}}},
    {"A='' \"\"", "A='' \"\"\nB=1", {{"A", NULL, 1}, {"B", "1", 2}}},
    {"A= with only a continuation in double quotes", "A=\"\\\n\"", {{"A", NULL, 1}}},
    {"A= with only a continuation", "A=\\\n", {{"A", NULL, 1}}},
    /* the generator gives A= here: a value that was started, then trimmed */
    {"continuation then blanks is an empty value", "A=\\\n   ", {{"A", "", 1}}},

    /* nothing at all */
    {"empty input", "", {{NULL, NULL, 0}}},
    {"blank input", " \n\t\r\n ", {{NULL, NULL, 0}}},
    {"only comments", "#a\n;b\n  #c", {{NULL, NULL, 0}}},

    /* line numbers: where an assignment starts */
    {"line after a multi-line single-quoted value",
     "A='x\ny\nz'\nB=1", {{"A", "x\ny\nz", 1}, {"B", "1", 4}}},
    {"start lines across quotes and continuations",
     "\n\nA=\"1\n2\n3\"\nB=x\\\ny\nC=3",
     {{"A", "1\n2\n3", 3}, {"B", "xy", 6}, {"C", "3", 8}}},
    {"line of a dropped line and comments still count",
     "#1\nnothing\n\r\n;4\rA=5", {{"A", "5", 5}}},
    {"CRLF inside double quotes counts once",
     "A=\"a\r\nb\"\r\nB=1", {{"A", "a\r\nb", 1}, {"B", "1", 3}}},
};
/* clang-format on */

static void test_row(void **state)
{
	const struct pcase *c = *state;
	struct gots g = {0};

	assert_int_equal(parse_exact(c->in, strlen(c->in), &g), 0);
	check(&g, c->out);
	gots_free(&g);
}

static const char *row_name(const void *row)
{
	return ((const struct pcase *)row)->name;
}

/* ---- fixed tests ---- */

/* Only len bytes are looked at: the rest of the string is not parsed. */
static void test_len_bounds_input(void **state)
{
	struct gots g = {0};
	const char *in = "A=12345\nB=2";

	(void)state;
	assert_int_equal(parse_exact(in, 4, &g), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.v[0].key, "A");
	assert_string_equal(g.v[0].value, "12");
	gots_free(&g);

	/* cut inside a key: nothing */
	assert_int_equal(parse_exact(in, 1, &g), 0);
	assert_int_equal(g.n, 0);
	/* zero length */
	assert_int_equal(parse_exact(in, 0, &g), 0);
	assert_int_equal(g.n, 0);
}

/* A non-zero callback return stops the parse and is passed back. */
static void test_callback_stops(void **state)
{
	struct gots g = {.stop_after = 2};

	(void)state;
	assert_int_equal(parse_exact("A=1\nB=2\nC=3\nD=4\n", 16, &g), 1);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.v[1].key, "B");
	gots_free(&g);
}

static int fail_enomem(const char *key, size_t key_len, const char *value, size_t value_len,
                       bool has_value, unsigned line, void *data)
{
	(void)key;
	(void)key_len;
	(void)value;
	(void)value_len;
	(void)has_value;
	(void)line;
	++*(int *)data;
	return -ENOMEM;
}

static void test_callback_error_passed_back(void **state)
{
	int calls = 0;
	const char *in = "A=1\nB=2\n";
	char *buf = tu_exact(in, strlen(in));

	(void)state;
	assert_int_equal(envd_parse(buf, strlen(in), fail_enomem, &calls), -ENOMEM);
	assert_int_equal(calls, 1);
	free(buf);
}

/* Line numbers stay exact deep into a large file, whatever the line ends. */
static void test_many_lines(void **state)
{
	static const char *const ends[] = {"\n", "\r", "\r\n"};
	size_t e, n = 100000;
	struct gots g = {0};

	(void)state;
	for (e = 0; e < TU_LEN(ends); e++) {
		char *body = tu_repeat(ends[e], n);
		size_t blen = strlen(body);
		char *in = malloc(blen + 16);

		assert_non_null(in);
		memcpy(in, body, blen);
		memcpy(in + blen, "LAST=x", 6);
		assert_int_equal(parse_exact(in, blen + 6, &g), 0);
		assert_int_equal(g.n, 1);
		assert_string_equal(g.v[0].key, "LAST");
		assert_int_equal(g.v[0].line, n + 1);
		gots_free(&g);
		free(in);
		free(body);
	}
}

/* Every line of a long file reaches the callback with its own number. */
static void test_line_numbers_in_sequence(void **state)
{
	struct gots g = {0};
	char in[4096];
	size_t len = 0, i;

	(void)state;
	for (i = 0; i < 40; i++)
		len += (size_t)snprintf(in + len, sizeof(in) - len,
		                        i % 3 ? "K%zu=%zu\r\n" : "K%zu=%zu\n", i, i);
	assert_int_equal(parse_exact(in, len, &g), 0);
	assert_int_equal(g.n, 40);
	for (i = 0; i < 40; i++)
		assert_int_equal(g.v[i].line, i + 1);
	gots_free(&g);
}

/* A value as long as the input is handed over whole. */
static void test_long_value(void **state)
{
	struct gots g = {0};
	char *v = tu_repeat("x", 1u << 20);
	size_t vlen = strlen(v);
	char *in = malloc(vlen + 3);

	(void)state;
	assert_non_null(in);
	memcpy(in, "A=", 2);
	memcpy(in + 2, v, vlen);
	assert_int_equal(parse_exact(in, vlen + 2, &g), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.v[0].value_len, vlen);
	assert_memory_equal(g.v[0].value, v, vlen);
	gots_free(&g);
	free(in);
	free(v);
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
	    cmocka_unit_test(test_len_bounds_input),
	    cmocka_unit_test(test_callback_stops),
	    cmocka_unit_test(test_callback_error_passed_back),
	    cmocka_unit_test(test_many_lines),
	    cmocka_unit_test(test_line_numbers_in_sequence),
	    cmocka_unit_test(test_long_value),
	};

	return tu_run("unit_parse", fixed, TU_LEN(fixed), test_row, cases, sizeof(cases[0]),
	              TU_LEN(cases), row_name);
}
