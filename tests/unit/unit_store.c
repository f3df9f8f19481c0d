/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * unit_store.c - the ordered, hash-indexed variable store (internal.h), and
 * the same guarantees seen through envd_load: order of first definition,
 * the later value wins, many names, and exact matching of names that share
 * a length, a prefix or a hash block.
 */
#include "config.h"

#include "testutil.h"

#include "internal.h"

static void set(struct envd_store *s, const char *name, const char *value)
{
	assert_int_equal(envd_store_set(s, name, strlen(name), value, strlen(value), "f", 7), 0);
}

static const char *get(const struct envd_store *s, const char *name)
{
	size_t i = envd_store_find(s, name, strlen(name));

	if (i == SIZE_MAX)
		return NULL;
	assert_true(i < s->n);
	assert_int_equal(s->v[i].name_len, strlen(name));
	assert_memory_equal(s->v[i].name, name, strlen(name));
	return s->v[i].value;
}

static size_t bytes_of(const struct envd_store *s)
{
	size_t i, b = 0;

	for (i = 0; i < s->n; i++)
		b += s->v[i].name_len + s->v[i].value_len + 2;
	return b;
}

static void test_empty(void **state)
{
	struct envd_store s;

	(void)state;
	envd_store_init(&s);
	assert_int_equal(envd_store_find(&s, "A", 1), SIZE_MAX);
	assert_int_equal(envd_store_find(&s, "", 0), SIZE_MAX);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.bytes, 0);
	envd_store_free(&s);
	/* free leaves it reusable */
	set(&s, "A", "1");
	assert_string_equal(get(&s, "A"), "1");
	envd_store_free(&s);
}

static void test_order_of_first_definition(void **state)
{
	struct envd_store s;

	(void)state;
	envd_store_init(&s);
	set(&s, "B", "1");
	set(&s, "A", "1");
	set(&s, "C", "1");
	set(&s, "B", "2");
	set(&s, "A", "3");
	assert_int_equal(s.n, 3);
	assert_string_equal(s.v[0].name, "B");
	assert_string_equal(s.v[1].name, "A");
	assert_string_equal(s.v[2].name, "C");
	assert_int_equal(envd_store_find(&s, "B", 1), 0);
	assert_int_equal(envd_store_find(&s, "A", 1), 1);
	assert_int_equal(envd_store_find(&s, "C", 1), 2);
	envd_store_free(&s);
}

static void test_later_wins(void **state)
{
	struct envd_store s;

	(void)state;
	envd_store_init(&s);
	set(&s, "A", "first");
	assert_int_equal(envd_store_set(&s, "A", 1, "second", 6, "file2", 9), 0);
	assert_string_equal(get(&s, "A"), "second");
	assert_int_equal(s.v[0].value_len, 6);
	/* the file and line of the final value */
	assert_string_equal(s.v[0].file, "file2");
	assert_int_equal(s.v[0].line, 9);
	/* shorter, then longer again */
	set(&s, "A", "x");
	assert_string_equal(get(&s, "A"), "x");
	set(&s, "A", "a much longer value than before");
	assert_string_equal(get(&s, "A"), "a much longer value than before");
	assert_int_equal(s.n, 1);
	envd_store_free(&s);
}

/* Values are copied: the caller's buffers may change afterwards; only
 * value_len bytes are taken, and the copy is NUL-terminated. */
static void test_copies(void **state)
{
	struct envd_store s;
	char name[] = "NAME_TAIL", value[] = "value-tail";

	(void)state;
	envd_store_init(&s);
	assert_int_equal(envd_store_set(&s, name, 4, value, 5, NULL, 0), 0);
	memset(name, 'Z', sizeof(name) - 1);
	memset(value, 'Z', sizeof(value) - 1);
	assert_string_equal(s.v[0].name, "NAME");
	assert_string_equal(s.v[0].value, "value");
	assert_int_equal(s.v[0].name_len, 4);
	assert_int_equal(s.v[0].value_len, 5);
	assert_int_equal(envd_store_find(&s, "NAME", 4), 0);
	/* an empty value is a value */
	assert_int_equal(envd_store_set(&s, "E", 1, "", 0, NULL, 0), 0);
	assert_string_equal(get(&s, "E"), "");
	envd_store_free(&s);
}

/* Names are compared whole: no prefix, suffix or same-length confusion. */
static void test_exact_names(void **state)
{
	static const char *const names[] = {
	    "A",
	    "B",
	    "AB",
	    "BA",
	    "ABC",
	    "ABCDEFG",
	    "ABCDEFGH",
	    "ABCDEFGI",
	    "ABCDEFGHI",
	    "BBCDEFGH",
	    "ABCDEFGHIJKLMNOP",
	    "ABCDEFGHIJKLMNOQ",
	    "_",
	    "__",
	    "A_",
	    "_A",
	};
	struct envd_store s;
	size_t i;

	(void)state;
	envd_store_init(&s);
	for (i = 0; i < TU_LEN(names); i++)
		set(&s, names[i], names[i]);
	for (i = 0; i < TU_LEN(names); i++) {
		assert_int_equal(envd_store_find(&s, names[i], strlen(names[i])), i);
		assert_string_equal(get(&s, names[i]), names[i]);
	}
	/* a length shorter than the string finds the shorter name */
	assert_int_equal(envd_store_find(&s, "ABX", 2), 2);
	assert_int_equal(envd_store_find(&s, "ABCDEFGHX", 8), 6);
	/* names not stored */
	assert_int_equal(envd_store_find(&s, "C", 1), SIZE_MAX);
	assert_int_equal(envd_store_find(&s, "ABCD", 4), SIZE_MAX);
	assert_int_equal(envd_store_find(&s, "ABCDEFGHIJ", 10), SIZE_MAX);
	assert_int_equal(envd_store_find(&s, "", 0), SIZE_MAX);
	assert_int_equal(envd_store_find(&s, "a", 1), SIZE_MAX);
	envd_store_free(&s);
}

/* 100,000 names of equal length force every slot sequence the table can
 * have; each is found at its own index, overwrites keep the order, and the
 * byte count follows. */
static void test_many_names(void **state)
{
	enum { N = 100000 };
	struct envd_store s;
	char name[32], value[32];
	size_t i;

	(void)state;
	envd_store_init(&s);
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "VAR_%06zu", i);
		snprintf(value, sizeof(value), "%zu", i);
		set(&s, name, value);
	}
	assert_int_equal(s.n, N);
	for (i = 0; i < N; i += 2) {
		snprintf(name, sizeof(name), "VAR_%06zu", i);
		set(&s, name, "even");
	}
	assert_int_equal(s.n, N);
	for (i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "VAR_%06zu", i);
		snprintf(value, sizeof(value), "%zu", i);
		assert_int_equal(envd_store_find(&s, name, strlen(name)), i);
		assert_string_equal(s.v[i].name, name);
		assert_string_equal(s.v[i].value, i % 2 ? value : "even");
	}
	/* neighbours that were never set */
	assert_int_equal(envd_store_find(&s, "VAR_100000", 10), SIZE_MAX);
	assert_int_equal(envd_store_find(&s, "VAR_00000", 9), SIZE_MAX);
	assert_int_equal(s.bytes, bytes_of(&s));
	envd_store_free(&s);
}

/* Names whose only difference is their length ("A", "AA", ...), and names
 * that differ only in one byte at every position of several hash blocks. */
static void test_colliding_lengths(void **state)
{
	struct envd_store s;
	char name[80];
	size_t len, pos;

	(void)state;
	envd_store_init(&s);
	for (len = 1; len <= 64; len++) {
		memset(name, 'A', len);
		assert_int_equal(envd_store_set(&s, name, len, name, len, NULL, 0), 0);
	}
	for (pos = 0; pos < 24; pos++) {
		memset(name, 'Q', 24);
		name[pos] = 'R';
		assert_int_equal(envd_store_set(&s, name, 24, name, 24, NULL, 0), 0);
	}
	assert_int_equal(s.n, 64 + 24);
	for (len = 1; len <= 64; len++) {
		memset(name, 'A', len);
		assert_int_equal(envd_store_find(&s, name, len), len - 1);
		assert_int_equal(s.v[len - 1].value_len, len);
	}
	for (pos = 0; pos < 24; pos++) {
		memset(name, 'Q', 24);
		name[pos] = 'R';
		assert_int_equal(envd_store_find(&s, name, 24), 64 + pos);
	}
	memset(name, 'Q', 24);
	assert_int_equal(envd_store_find(&s, name, 24), SIZE_MAX);
	envd_store_free(&s);
}

/* The hash is a function of the bytes and the length, and every byte of
 * every block matters. */
static void test_hash(void **state)
{
	char a[40], b[40];
	uint64_t h;
	size_t len, pos;

	(void)state;
	assert_int_equal(envd_hash("abc", 3), envd_hash("abc", 3));
	assert_int_equal(envd_hash("abcdef", 3), envd_hash("abc", 3));
	assert_true(envd_hash("a", 1) != envd_hash("a\0", 2));
	assert_true(envd_hash("", 0) != envd_hash("\0", 1));
	for (len = 1; len <= sizeof(a); len++) {
		memset(a, 'x', sizeof(a));
		h = envd_hash(a, len);
		for (pos = 0; pos < len; pos++) {
			memcpy(b, a, sizeof(a));
			b[pos] = 'y';
			if (envd_hash(b, len) == h)
				fail_msg("byte %zu of a %zu-byte name does not change the hash",
				         pos, len);
		}
	}
}

/* 4096 same-length names with a long common prefix spread over 4096
 * buckets: a sound hash puts at most a handful in any bucket. */
/* SipHash-1-3 written the plain way, one byte at a time (Aumasson and
 * Bernstein's definition with c = 1, d = 3): the engine's version, which
 * loads words and unrolls the tail, must agree on every length. */
static uint64_t rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

static void sip_round(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = rotl(v[1], 13) ^ v[0];
	v[0] = rotl(v[0], 32);
	v[2] += v[3];
	v[3] = rotl(v[3], 16) ^ v[2];
	v[0] += v[3];
	v[3] = rotl(v[3], 21) ^ v[0];
	v[2] += v[1];
	v[1] = rotl(v[1], 17) ^ v[2];
	v[2] = rotl(v[2], 32);
}

static uint64_t plain_siphash13(const uint64_t k[2], const unsigned char *m, size_t n)
{
	uint64_t v[4] = {k[0] ^ 0x736f6d6570736575ULL, k[1] ^ 0x646f72616e646f6dULL,
	                 k[0] ^ 0x6c7967656e657261ULL, k[1] ^ 0x7465646279746573ULL};
	size_t blocks = n / 8 + 1, b, j;

	for (b = 0; b < blocks; b++) {
		uint64_t w = 0;

		for (j = 0; j < 8; j++) {
			size_t at = b * 8 + j;
			uint64_t byte = at < n ? m[at] : (j == 7 && b == blocks - 1 ? n & 0xff : 0);

			w |= byte << (8 * j);
		}
		v[3] ^= w;
		sip_round(v);
		v[0] ^= w;
	}
	v[2] ^= 0xff;
	sip_round(v);
	sip_round(v);
	sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

static void test_siphash_definition(void **state)
{
	static const uint64_t keys[3][2] = {
	    {0, 0}, {0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL}, {~0ULL, 0x9e3779b97f4a7c15ULL}};
	unsigned char m[80];
	size_t n, k;

	(void)state;
	for (n = 0; n < sizeof(m); n++)
		m[n] = (unsigned char)(n * 37 + 11);
	for (k = 0; k < 3; k++)
		for (n = 0; n <= sizeof(m); n++)
			if (envd_siphash13(keys[k], (const char *)m, n) !=
			    plain_siphash13(keys[k], m, n))
				fail_msg("key %zu, %zu bytes: differs from the definition", k, n);
}

static void test_hash_spread(void **state)
{
	enum { N = 4096 };
	unsigned *bucket = calloc(N, sizeof(*bucket));
	unsigned worst = 0;
	char name[64];
	size_t i;

	(void)state;
	assert_non_null(bucket);
	for (i = 0; i < N; i++) {
		size_t b;

		snprintf(name, sizeof(name), "A_LONG_COMMON_PREFIX_%04zu", i);
		b = (size_t)(envd_hash(name, strlen(name)) % N);
		if (++bucket[b] > worst)
			worst = bucket[b];
	}
	assert_true(worst < 16);
	free(bucket);
}

static void test_bytes_accounting(void **state)
{
	struct envd_store s;

	(void)state;
	envd_store_init(&s);
	set(&s, "AB", "123");
	assert_int_equal(s.bytes, 2 + 3 + 2);
	set(&s, "C", "");
	assert_int_equal(s.bytes, 7 + 1 + 0 + 2);
	set(&s, "AB", "1");
	assert_int_equal(s.bytes, 2 + 1 + 2 + 3);
	set(&s, "AB", "123456");
	assert_int_equal(s.bytes, bytes_of(&s));
	envd_store_free(&s);
}

/* ---- the same guarantees through envd_load ---- */

static void test_load_order_and_last_value(void **state)
{
	struct tu_tree t;
	const struct envd_var *v;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.etc, "a.conf", "B=1\nA=1\nB=2\n");
	tu_write(t.etc, "b.conf", "C=1\nA=2\n\nB=3\n");
	tu_load_ok(&t);
	assert_int_equal(envd_result_count(t.res), 3);
	assert_string_equal(envd_result_var(t.res, 0)->name, "B");
	assert_string_equal(envd_result_var(t.res, 1)->name, "A");
	assert_string_equal(envd_result_var(t.res, 2)->name, "C");
	assert_null(envd_result_var(t.res, 3));
	v = envd_result_get(t.res, "B");
	assert_non_null(v);
	assert_string_equal(v->value, "3");
	assert_true(tu_ends_with(v->file, "/etc/environment.d/b.conf"));
	assert_int_equal(v->line, 4);
	v = envd_result_get(t.res, "A");
	assert_string_equal(v->value, "2");
	assert_int_equal(v->line, 2);
	assert_null(envd_result_get(t.res, "D"));
	tu_tree_free(&t);
}

static void test_load_many_names(void **state)
{
	enum { N = 20000 };
	struct tu_tree t;
	char *buf = malloc(N * 32), name[32], value[32];
	size_t len = 0, i;

	(void)state;
	assert_non_null(buf);
	tu_tree_init(&t);
	for (i = 0; i < N; i++)
		len += (size_t)snprintf(buf + len, 32, "N%zu=%zu\n", (i * 7919) % N, i);
	tu_write_len(t.etc, "a.conf", buf, len);
	tu_load_ok(&t);
	assert_int_equal(envd_result_count(t.res), N);
	for (i = 0; i < N; i++) {
		const struct envd_var *v = envd_result_var(t.res, i);

		snprintf(name, sizeof(name), "N%zu", (i * 7919) % N);
		snprintf(value, sizeof(value), "%zu", i);
		assert_string_equal(v->name, name);
		assert_string_equal(v->value, value);
		assert_int_equal(v->line, i + 1);
		assert_ptr_equal(envd_result_get(t.res, name), v);
	}
	free(buf);
	tu_tree_free(&t);
}

/* A value rewritten shorter, longer and much longer keeps its name, its
 * place and the byte count; freeing frees every block (ASan and valgrind
 * would see a leak). */
static void test_store_rewrite(void **state)
{
	struct envd_store s;
	char big[3000];
	size_t i;

	(void)state;
	envd_store_init(&s);
	set(&s, "PATH", "/usr/bin:/bin");
	set(&s, "B", "b");
	i = envd_store_find(&s, "PATH", 4);
	set(&s, "PATH", "/bin");
	assert_string_equal(get(&s, "PATH"), "/bin");
	set(&s, "PATH", "/opt/bin:/usr/local/bin:/usr/bin:/bin");
	assert_string_equal(get(&s, "PATH"), "/opt/bin:/usr/local/bin:/usr/bin:/bin");
	memset(big, 'p', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	for (int k = 0; k < 100; k++)
		set(&s, "PATH", k % 2 ? big : "/bin");
	set(&s, "PATH", big);
	assert_string_equal(get(&s, "PATH"), big);
	assert_int_equal(envd_store_find(&s, "PATH", 4), i);
	assert_string_equal(s.v[i].name, "PATH");
	assert_string_equal(get(&s, "B"), "b");
	assert_int_equal(s.bytes, bytes_of(&s));
	envd_store_free(&s);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    tu_test(test_empty),
	    tu_test(test_order_of_first_definition),
	    tu_test(test_later_wins),
	    tu_test(test_copies),
	    tu_test(test_exact_names),
	    tu_test(test_many_names),
	    tu_test(test_colliding_lengths),
	    tu_test(test_hash),
	    tu_test(test_siphash_definition),
	    tu_test(test_hash_spread),
	    tu_test(test_bytes_accounting),
	    tu_test(test_load_order_and_last_value),
	    tu_test(test_load_many_names),
	    tu_test(test_store_rewrite),
	};

	return cmocka_run_group_tests_name("unit_store", tests, NULL, NULL);
}
