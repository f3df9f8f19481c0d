/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * unit_expand.c - envd_expand against the "Expansion" rules of
 * environment.d-semantics.md, including systemd's brace-counting quirk
 * after an unsupported ${X:...} form, and the three limits: output size
 * (max_out), substituted bytes (budget) and nesting (max_depth).
 */
#include "config.h"

#include "testutil.h"

/* the variables every row can see */
static const char *const env[][2] = {
    {"X", "x"},  {"Y", "yy"},      {"E", ""},  {"AB", "ab"},
    {"A", "a"},  {"A_1", "a1"},    {"_", "u"}, {"V", "$X"}, /* never expanded again */
    {"B", "{}"}, {"PATH", "/bin"},
};

static const char *lookup(const char *name, size_t len, size_t *value_len, void *data)
{
	size_t i;

	(void)data;
	for (i = 0; i < TU_LEN(env); i++)
		if (strlen(env[i][0]) == len && memcmp(env[i][0], name, len) == 0) {
			*value_len = strlen(env[i][1]);
			return env[i][1];
		}
	return NULL;
}

static struct envd_expand_state state_with(size_t budget, size_t max_out, size_t max_depth)
{
	struct envd_expand_state st = {
	    .budget = budget,
	    .max_out = max_out,
	    .max_depth = max_depth,
	    .lookup = lookup,
	};

	return st;
}

/* Expands s (handed over without its NUL); returns the result code and sets
 * *out (malloc'd) on success. */
static int expand(struct envd_expand_state *st, const char *s, char **out, size_t *out_len)
{
	size_t len = strlen(s);
	char *in = tu_exact(s, len);
	int r;

	*out = NULL;
	r = envd_expand(st, in, len, out, out_len);
	free(in);
	return r;
}

struct xcase {
	const char *name;
	const char *in;
	const char *out;
};

/* clang-format off */
static const struct xcase cases[] = {
    {"empty", "", ""},
    {"plain text", "plain text", "plain text"},
    {"braceless", "$X", "x"},
    {"braced", "${X}", "x"},
    {"braceless name ends at a non-name character", "a$X-b", "ax-b"},
    {"braceless name is the longest run", "$Xz", ""},
    {"braced name then text", "${X}z", "xz"},
    {"two-letter name", "$AB", "ab"},
    {"dot ends a name", "$A.B", "a.B"},
    {"colon ends a name", "$X:$Y", "x:yy"},
    {"underscore and digits", "$A_1", "a1"},
    {"underscore alone", "$_", "u"},
    {"braced underscore", "${_}", "u"},
    {"several references", "$X$Y$X", "xyyx"},
    {"several braced references", "${X}${Y}", "xyy"},
    {"set but empty", "a${E}b$E", "ab"},

    /* $$ and lone $ */
    {"$$ is one $", "$$", "$"},
    {"$$ before a name", "$$X", "$X"},
    {"$$ then a reference", "$$$X", "$x"},
    {"$$ inside text", "a$$b", "a$b"},
    {"$$$$", "$$$$", "$$"},
    {"$$ before a brace", "$${X}", "${X}"},
    {"lone $", "$", "$"},
    {"trailing $", "a$", "a$"},
    {"$ before a blank", "$ x", "$ x"},
    {"$ before a dash", "$-", "$-"},
    {"$ before a slash", "$/x", "$/x"},
    {"$ before a colon", "$:", "$:"},
    {"no command substitution", "$(cmd)", "$(cmd)"},
    {"no arithmetic", "$((1+1))", "$((1+1))"},
    {"no backticks", "`cmd`", "`cmd`"},
    {"no tilde", "~/bin:~", "~/bin:~"},
    {"no specifiers", "%h/%u", "%h/%u"},
    {"braces without $", "{X}}", "{X}}"},
    {"closing brace after a reference", "${X}}", "x}"},

    /* invalid names */
    {"braceless name starting with a digit", "$1x", ""},
    {"invalid name inside text", "a$1x b", "a b"},
    {"single digit", "$9", ""},
    {"braced name starting with a digit", "${1x}", ""},
    {"${X-d} is the invalid name X-d", "${X-d}", ""},
    {"empty braced name", "a${}b", "ab"},
    {"braced name with a blank", "${X Y}", ""},

    /* unset */
    {"unset braceless", "$UNSET", ""},
    {"unset braced", "${UNSET}", ""},
    {"unset inside text", "a${UNSET}b", "ab"},

    /* unterminated */
    {"unterminated ${", "${X", "${X"},
    {"unterminated after text", "a${X", "a${X"},
    {"bare ${", "${", "${"},
    {"unterminated default", "${X:-abc", "${X:-abc"},
    {"unterminated test", "${X:", "${X:"},

    /* ${X:-word} */
    {"default when unset", "${UNSET:-d}", "d"},
    {"no default when set", "${X:-d}", "x"},
    {"set but empty gives empty, not the default", "${E:-d}", ""},
    {"empty default", "${UNSET:-}", ""},
    {"default then text", "${X:-a}b", "xb"},
    {"default with a name of underscore and digits", "${A_1:-z}", "a1"},
    {"invalid name takes the default", "${1:-d}", "d"},

    /* ${X:+word} */
    {"alternate when set", "${X:+w}", "w"},
    {"alternate when set but empty", "${E:+w}", "w"},
    {"no alternate when unset", "${UNSET:+w}", ""},
    {"empty alternate", "${X:+}", ""},
    {"mixed forms", "${UNSET:-a}${UNSET:+b}${X:-c}", "ax"},

    /* words are expanded */
    {"default word with a reference", "${UNSET:-$X}", "x"},
    {"default word with a braced reference", "${UNSET:-${Y}}", "yy"},
    {"alternate word with a reference", "${X:+<$Y>}", "<yy>"},
    {"nested defaults", "${UNSET:-${UNSET2:-deep}}", "deep"},
    {"nested forms", "${UNSET:-${X:+${Y}}}", "yy"},
    {"alternate word with a default", "${X:+${Y:-}}", "yy"},
    {"braces in a word nest by counting", "${UNSET:-a{b}c}", "a{b}c"},
    {"unbalanced brace in a word stays literal", "${UNSET:-{}", "${UNSET:-{}"},
    {"$$ in a word", "${UNSET:-$$}", "$"},
    {"word is not taken when set", "${X:-$Y}", "x"},

    /* expanded text is never expanded again */
    {"value holding $ is not re-expanded", "$V", "$X"},
    {"value in a default word is not re-expanded", "${UNSET:-$V}", "$X"},
    {"value holding braces", "$B${UNSET:-z}", "{}z"},

    /* unsupported forms and the brace-counting quirk */
    {"${X:=d} stays literal", "${X:=d}", "${X:=d}"},
    {"${X:?e} stays literal", "${X:?e}", "${X:?e}"},
    {"${X:x} stays literal", "${X:x}", "${X:x}"},
    {"${X:} stays literal", "${X:}", "${X:}"},
    {"a later default stays literal", "${X:=d}${UNSET:-w}", "${X:=d}${UNSET:-w}"},
    {"a later alternate stays literal", "${X:?e} ${Y:+w}", "${X:?e} ${Y:+w}"},
    {"everything after a stuck default stays literal",
     "${X:=d}${UNSET:-w}$Y", "${X:=d}${UNSET:-w}$Y"},
    {"an extra } closes the stuck default", "${X:=d}${UNSET:-w}}", "${X:=d}w}"},
    {"braceless references still expand after the quirk", "${X:=d}$Y", "${X:=d}yy"},
    {"plain braced references still expand after the quirk", "${X:=d}${Y}", "${X:=d}yy"},
    {"default before an unsupported form works", "${UNSET:-a}${X:=d}", "a${X:=d}"},
};
/* clang-format on */

static void test_row(void **state)
{
	const struct xcase *c = *state;
	struct envd_expand_state st = state_with(1u << 20, 1u << 20, 32);
	char *out;
	size_t out_len = 12345;

	assert_int_equal(expand(&st, c->in, &out, &out_len), 0);
	assert_non_null(out);
	assert_int_equal(out_len, strlen(c->out));
	assert_string_equal(out, c->out);
	/* the result is NUL-terminated at out_len */
	assert_int_equal(out[out_len], '\0');
	free(out);
}

static const char *row_name(const void *row)
{
	return ((const struct xcase *)row)->name;
}

/* ---- limits ---- */

static void test_max_out_literal(void **state)
{
	struct envd_expand_state st = state_with(100, 5, 32);
	char *out;
	size_t n;

	(void)state;
	assert_int_equal(expand(&st, "abcdef", &out, &n), -E2BIG);
	st = state_with(100, 6, 32);
	assert_int_equal(expand(&st, "abcdef", &out, &n), 0);
	assert_string_equal(out, "abcdef");
	free(out);
}

static void test_max_out_substitution(void **state)
{
	struct envd_expand_state st = state_with(100, 5, 32);
	char *out;
	size_t n;

	(void)state;
	assert_int_equal(expand(&st, "$Y$Y$Y", &out, &n), -E2BIG);
	/* the output limit, not the budget, stopped it: the budget is left */
	assert_true(st.budget > 0);
	st = state_with(100, 6, 32);
	assert_int_equal(expand(&st, "$Y$Y$Y", &out, &n), 0);
	assert_string_equal(out, "yyyyyy");
	assert_int_equal(st.budget, 94);
	free(out);
}

static void test_max_out_in_default_word(void **state)
{
	struct envd_expand_state st = state_with(100, 4, 32);
	char *out;
	size_t n;

	(void)state;
	assert_int_equal(expand(&st, "${UNSET:-abcde}", &out, &n), -E2BIG);
	st = state_with(100, 5, 32);
	assert_int_equal(expand(&st, "${UNSET:-abcde}", &out, &n), 0);
	assert_string_equal(out, "abcde");
	free(out);
}

static void test_budget(void **state)
{
	struct envd_expand_state st = state_with(3, 100, 32);
	char *out;
	size_t n;

	(void)state;
	assert_int_equal(expand(&st, "$Y$Y", &out, &n), -E2BIG);
	assert_int_equal(st.budget, 0); /* tells the caller it was the budget */

	st = state_with(4, 100, 32);
	assert_int_equal(expand(&st, "$Y$Y", &out, &n), 0);
	assert_string_equal(out, "yyyy");
	assert_int_equal(st.budget, 0);
	free(out);

	/* spent across calls */
	st = state_with(10, 100, 32);
	assert_int_equal(expand(&st, "${Y}", &out, &n), 0);
	free(out);
	assert_int_equal(st.budget, 8);
	assert_int_equal(expand(&st, "$X$Y", &out, &n), 0);
	free(out);
	assert_int_equal(st.budget, 5);
}

static void test_budget_counts_only_substitutions(void **state)
{
	struct envd_expand_state st = state_with(0, 100, 32);
	char *out;
	size_t n;

	(void)state;
	/* literal text, $$, empty and unset values cost nothing */
	assert_int_equal(expand(&st, "abc$$ $E${UNSET}${UNSET:-lit}", &out, &n), 0);
	assert_string_equal(out, "abc$ lit");
	free(out);
	assert_int_equal(expand(&st, "$X", &out, &n), -E2BIG);
}

static void test_budget_in_default_word(void **state)
{
	struct envd_expand_state st = state_with(3, 100, 32);
	char *out;
	size_t n;

	(void)state;
	assert_int_equal(expand(&st, "${UNSET:-$Y$Y}", &out, &n), -E2BIG);
	assert_int_equal(st.budget, 0);
}

/* A lookup giving a 1 MiB value for BIG: a value of many $BIG stops as soon
 * as the budget is spent, however large the output limit. */
static const char *big_lookup(const char *name, size_t len, size_t *value_len, void *data)
{
	if (len == 3 && memcmp(name, "BIG", 3) == 0) {
		*value_len = strlen(data);
		return data;
	}
	return NULL;
}

static void test_budget_bounds_work(void **state)
{
	char *big = tu_repeat("b", 1u << 20);
	char *in = tu_repeat("$BIG", 10000);
	struct envd_expand_state st = {
	    .budget = 8u << 20,
	    .max_out = SIZE_MAX / 2,
	    .max_depth = 32,
	    .lookup = big_lookup,
	    .lookup_data = big,
	};
	char *out = NULL;
	size_t n;

	(void)state;
	assert_int_equal(envd_expand(&st, in, strlen(in), &out, &n), -E2BIG);
	assert_null(out);
	assert_int_equal(st.budget, 0);
	free(in);
	free(big);
}

static void test_depth_limit(void **state)
{
	struct envd_expand_state st;
	char *in, *out;
	size_t n;

	(void)state;
	in = tu_nested(100);
	st = state_with(100, 1000, 32);
	assert_int_equal(expand(&st, in, &out, &n), -ELOOP);
	free(in);

	in = tu_nested(10);
	st = state_with(100, 1000, 32);
	assert_int_equal(expand(&st, in, &out, &n), 0);
	assert_string_equal(out, "x");
	free(out);
	/* the state is ready for the next value */
	assert_int_equal(st.depth, 0);
	assert_int_equal(expand(&st, "${U:-y}", &out, &n), 0);
	assert_string_equal(out, "y");
	free(out);
	free(in);
}

/* max_depth is the nesting of ${X:-...}: exactly max_depth levels are
 * allowed, one more is refused (envd.h: ENVD_MAX_DEPTH "nesting of
 * ${X:-...}"). */
static void test_depth_boundary(void **state)
{
	struct envd_expand_state st;
	char *in, *out;
	size_t n, depth;

	(void)state;
	for (depth = 1; depth <= 40; depth += 39) {
		int r;

		in = tu_nested(depth);
		st = state_with(100, 1000, depth);
		r = expand(&st, in, &out, &n);
		free(in);
		if (r != 0)
			fail_msg("%zu nested ${U:-...} refused (%d) with max_depth %zu", depth, r,
			         depth);
		assert_string_equal(out, "x");
		free(out);

		in = tu_nested(depth + 1);
		st = state_with(100, 1000, depth);
		r = expand(&st, in, &out, &n);
		free(in);
		assert_int_equal(r, -ELOOP);
	}
}

/* Only words that are expanded count: an untaken branch is just text. */
static void test_depth_counts_expansion_only(void **state)
{
	struct envd_expand_state st = state_with(100, 100000, 4);
	char *deep = tu_nested(100);
	size_t dl = strlen(deep);
	char *in = malloc(dl + 16), *out;
	size_t n;

	(void)state;
	assert_non_null(in);
	snprintf(in, dl + 16, "${UNSET:+%s}", deep);
	assert_int_equal(expand(&st, in, &out, &n), 0);
	assert_string_equal(out, "");
	free(out);
	free(in);
	free(deep);
}

/* ---- the lint hook ---- */

struct ref {
	char name[16];
	enum envd_ref_kind kind;
	bool set;
	size_t value_len;
};

struct refs {
	struct ref v[16];
	size_t n;
};

static struct refs *seen_refs;

static void on_ref(const char *name, size_t len, enum envd_ref_kind kind, bool set,
                   size_t value_len, void *data)
{
	struct ref *r;

	(void)data;
	assert_true(seen_refs->n < TU_LEN(seen_refs->v));
	assert_true(len < sizeof(r->name));
	r = &seen_refs->v[seen_refs->n++];
	memcpy(r->name, name, len);
	r->name[len] = '\0';
	r->kind = kind;
	r->set = set;
	r->value_len = value_len;
}

static void test_on_ref(void **state)
{
	struct envd_expand_state st = state_with(100, 100, 32);
	struct refs refs = {0};
	char *out;
	size_t n;

	(void)state;
	seen_refs = &refs;
	st.on_ref = on_ref;
	assert_int_equal(expand(&st, "${X:-a}${UNSET:+b}$E$NOPE${Y}", &out, &n), 0);
	assert_string_equal(out, "xyy");
	free(out);
	assert_int_equal(refs.n, 5);
	assert_string_equal(refs.v[0].name, "X");
	assert_int_equal(refs.v[0].kind, ENVD_REF_DEFAULT);
	assert_true(refs.v[0].set);
	assert_int_equal(refs.v[0].value_len, 1);
	assert_string_equal(refs.v[1].name, "UNSET");
	assert_int_equal(refs.v[1].kind, ENVD_REF_ALTERNATE);
	assert_false(refs.v[1].set);
	assert_string_equal(refs.v[2].name, "E");
	assert_int_equal(refs.v[2].kind, ENVD_REF_PLAIN);
	assert_true(refs.v[2].set);
	assert_int_equal(refs.v[2].value_len, 0);
	assert_string_equal(refs.v[3].name, "NOPE");
	assert_false(refs.v[3].set);
	assert_string_equal(refs.v[4].name, "Y");
	assert_int_equal(refs.v[4].value_len, 2);
	seen_refs = NULL;
}

/* ---- names ---- */

static void test_name_valid(void **state)
{
	static const char *const good[] = {"A", "_", "a", "a1", "_1", "A_B_C", "abcXYZ019_"};
	static const char *const bad[] = {
	    "", "1A", "9", "A-B", "A B", "A=", "A.B", "\xc3\xa9", "A\tB", "$A", "A:B", "{A}"};
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(good); i++)
		if (!envd_name_valid(good[i], strlen(good[i])))
			fail_msg("\"%s\" should be a valid name", good[i]);
	for (i = 0; i < TU_LEN(bad); i++)
		if (envd_name_valid(bad[i], strlen(bad[i])))
			fail_msg("\"%s\" should be an invalid name", bad[i]);
	/* only len bytes count */
	assert_true(envd_name_valid("AB-", 2));
	assert_false(envd_name_valid("AB-", 3));
	assert_false(envd_name_valid("A", 0));
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
	    cmocka_unit_test(test_max_out_literal),
	    cmocka_unit_test(test_max_out_substitution),
	    cmocka_unit_test(test_max_out_in_default_word),
	    cmocka_unit_test(test_budget),
	    cmocka_unit_test(test_budget_counts_only_substitutions),
	    cmocka_unit_test(test_budget_in_default_word),
	    cmocka_unit_test(test_budget_bounds_work),
	    cmocka_unit_test(test_depth_limit),
	    cmocka_unit_test(test_depth_boundary),
	    cmocka_unit_test(test_depth_counts_expansion_only),
	    cmocka_unit_test(test_on_ref),
	    cmocka_unit_test(test_name_valid),
	};

	return tu_run("unit_expand", fixed, TU_LEN(fixed), test_row, cases, sizeof(cases[0]),
	              TU_LEN(cases), row_name);
}
