/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* fuzz_expand - envd_expand with a lookup table and limits from the input.
 *
 * Input layout: byte 0 picks the limits (bits 0-2 max_out, 3-5 budget, 6-7
 * max_depth, from the small tables below); then any number of lines
 * "@NAME=VALUE\n" fill the lookup table (a name not listed is unset, "@E="
 * is set and empty); the rest is the text to expand.
 *
 * Invariants:
 *  - the result is 0, -E2BIG or -ELOOP (nothing else on inputs this small);
 *  - on success the output is NUL-terminated, no longer than max_out, and
 *    no longer than the input plus the bytes the budget was charged;
 *  - the budget never goes up;
 *  - the limits never change what comes out, only whether it does: with
 *    unbounded output, budget and depth the same text expands to the same
 *    output; -E2BIG only when that output is longer than max_out or costs more
 *    than the budget, -ELOOP only when the unbounded run nests ${X:-...}
 *    deeper than max_depth (the top level is not a nesting);
 *  - lookups are only made for valid names, and on_ref sees each of them. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "envd.h"
#include "internal.h"
#include "fuzz.h"

#define MAX_VARS 16

static const size_t max_outs[8] = {0, 1, 2, 7, 16, 64, 1024, 65536};
static const size_t budgets[8] = {0, 1, 3, 16, 100, 4096, 1 << 20, SIZE_MAX};
static const size_t depths[4] = {1, 2, 4, 32};

struct table {
	const char *name[MAX_VARS];
	size_t name_len[MAX_VARS];
	const char *value[MAX_VARS];
	size_t value_len[MAX_VARS];
	size_t n;
	size_t lookups, refs;
	struct envd_expand_state *st;
	size_t deepest; /* largest st->depth seen at a reference */
};

static const char *lookup(const char *name, size_t len, size_t *vlen, void *data)
{
	struct table *t = data;
	size_t i;

	t->lookups++;
	FUZZ_CHECK(envd_name_valid(name, len), "lookup of invalid name \"%.*s\"", (int)len, name);
	for (i = t->n; i-- > 0;) /* the newest definition wins */
		if (t->name_len[i] == len && memcmp(t->name[i], name, len) == 0) {
			*vlen = t->value_len[i];
			return t->value[i];
		}
	return NULL;
}

static void on_ref(const char *name, size_t len, enum envd_ref_kind kind, bool set,
                   size_t value_len, void *data)
{
	struct table *t = data;

	t->refs++;
	if (t->st->depth > t->deepest)
		t->deepest = t->st->depth;
	FUZZ_CHECK(kind == ENVD_REF_PLAIN || kind == ENVD_REF_DEFAULT || kind == ENVD_REF_ALTERNATE,
	           "kind %d", (int)kind);
	FUZZ_CHECK(set || value_len == 0, "unset \"%.*s\" with a value length %zu", (int)len, name,
	           value_len);
	/* every valid reference was looked up just before (lookup counts first) */
	if (envd_name_valid(name, len))
		FUZZ_CHECK(t->lookups >= 1, "on_ref for \"%.*s\" without a lookup", (int)len, name);
	else
		FUZZ_CHECK(!set, "invalid name \"%.*s\" reported as set", (int)len, name);
}

struct run {
	int r;
	char *out;
	size_t out_len;
	size_t spent; /* budget charged */
	size_t deepest;
};

static struct run expand(struct table *t, const char *in, size_t len, size_t max_out, size_t budget,
                         size_t depth)
{
	struct envd_expand_state st = {
	    .budget = budget,
	    .max_out = max_out,
	    .max_depth = depth,
	    .lookup = lookup,
	    .lookup_data = t,
	    .on_ref = on_ref,
	};
	struct run run = {0};

	t->st = &st;
	t->deepest = 0;
	t->lookups = t->refs = 0;
	run.r = envd_expand(&st, in, len, &run.out, &run.out_len);
	FUZZ_CHECK(run.r == 0 || run.r == -E2BIG || run.r == -ELOOP, "envd_expand returned %d",
	           run.r);
	FUZZ_CHECK(st.budget <= budget, "budget went up from %zu to %zu", budget, st.budget);
	FUZZ_CHECK(t->refs == t->lookups || t->refs >= t->lookups,
	           "%zu lookups but only %zu references reported", t->lookups, t->refs);
	run.spent = budget - st.budget;
	run.deepest = t->deepest;
	if (run.r == 0) {
		FUZZ_CHECK(run.out != NULL, "success without output");
		FUZZ_CHECK(run.out[run.out_len] == '\0', "output not NUL-terminated");
		FUZZ_CHECK(max_out == 0 || run.out_len <= max_out, "output %zu bytes, max_out %zu",
		           run.out_len, max_out);
		FUZZ_CHECK(run.out_len <= len + run.spent,
		           "output %zu bytes from %zu input bytes and %zu substituted", run.out_len,
		           len, run.spent);
	}
	return run;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct table t = {0};
	size_t max_out, budget, depth, pos = 1, len;
	struct run lim, free_run;
	char *in;

	if (size < 1)
		return 0;
	max_out = max_outs[data[0] & 7];
	budget = budgets[(data[0] >> 3) & 7];
	depth = depths[data[0] >> 6];

	while (pos < size && data[pos] == '@' && t.n < MAX_VARS) {
		const uint8_t *nl = memchr(data + pos, '\n', size - pos);
		const uint8_t *line = data + pos + 1, *eq;
		size_t llen;

		if (!nl)
			break;
		llen = (size_t)(nl - line);
		eq = memchr(line, '=', llen);
		if (eq) {
			t.name[t.n] = (const char *)line;
			t.name_len[t.n] = (size_t)(eq - line);
			t.value[t.n] = (const char *)eq + 1;
			t.value_len[t.n] = llen - t.name_len[t.n] - 1;
			t.n++;
		}
		pos = (size_t)(nl - data) + 1;
	}
	/* an exact-size copy of the text, so that over-reads are caught */
	len = size - pos;
	in = malloc(len ? len : 1);
	FUZZ_SETUP(in != NULL);
	if (len)
		memcpy(in, data + pos, len);

	lim = expand(&t, in, len, max_out, budget, depth);
	free_run = expand(&t, in, len, 0, SIZE_MAX, 1000000);
	/* nesting is bounded by the braces of the text; the table's values are
	 * never expanded */
	FUZZ_CHECK(free_run.r == 0 || free_run.r == -E2BIG, "unbounded expansion failed with %d",
	           free_run.r);

	if (free_run.r == 0) {
		bool too_long = max_out && free_run.out_len > max_out;
		bool too_costly = free_run.spent > budget;
		/* a level is only entered from a reference one level up, so the
		 * nestings (levels below the top) are at most the deepest level
		 * with a reference; max_depth counts nestings */
		bool too_deep = free_run.deepest > depth;

		if (lim.r == 0) {
			FUZZ_CHECK(lim.out_len == free_run.out_len &&
			               memcmp(lim.out, free_run.out, lim.out_len) == 0,
			           "limits changed the output: \"%.*s\" against \"%.*s\"",
			           (int)lim.out_len, lim.out, (int)free_run.out_len, free_run.out);
			FUZZ_CHECK(lim.spent == free_run.spent, "charged %zu, unbounded %zu",
			           lim.spent, free_run.spent);
		} else if (lim.r == -E2BIG) {
			FUZZ_CHECK(
			    too_long || too_costly,
			    "-E2BIG, but the output is %zu bytes (max_out %zu) and costs %zu "
			    "(budget %zu)",
			    free_run.out_len, max_out, free_run.spent, budget);
		} else {
			FUZZ_CHECK(too_deep,
			           "-ELOOP, but the nesting is at most %zu (max_depth %zu)",
			           free_run.deepest, depth);
		}
		/* whatever fits every limit must come out */
		if (!too_long && !too_costly && !too_deep)
			FUZZ_CHECK(lim.r == 0, "failed with %d within every limit", lim.r);
	}
	free(lim.out);
	free(free_run.out);
	free(in);
	return 0;
}
