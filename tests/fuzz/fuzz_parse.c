/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* fuzz_parse - envd_parse over arbitrary bytes.
 *
 * The input is one file's content.  Invariants besides "no crash, no bad
 * memory access": every key and value fits in the input; the key is what the
 * syntax allows (no line end, no '=' after its first byte, no blank at either
 * end, not a comment); a value is given exactly when has_value says so and
 * holds no NUL; line numbers start at 1, never decrease and never pass the
 * number of line ends + 1; there are no more assignments than '=' bytes.  A
 * second pass stops at the middle assignment: it must see the same
 * assignments up to there, none after, and get the callback's code back. */
#include "config.h"

#include <string.h>

#include "envd.h"
#include "internal.h"
#include "fuzz.h"

struct seen {
	const uint8_t *in;
	size_t size;
	size_t max_line; /* line ends + 1 */
	size_t equals;   /* '=' bytes in the input */
	size_t count;    /* assignments so far */
	unsigned last_line;
	struct fuzz_str log;          /* key, value and line of each, for the second pass */
	size_t stop_at;               /* second pass: return non-zero at this assignment */
	const struct fuzz_str *first; /* second pass: the first pass's log */
	size_t replay_off;
};

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void record(struct fuzz_str *log, const char *key, size_t key_len, const char *value,
                   size_t value_len, bool has_value, unsigned line)
{
	unsigned char h = has_value;

	fuzz_str_add(log, &key_len, sizeof(key_len));
	fuzz_str_add(log, key, key_len);
	fuzz_str_add(log, &h, 1);
	fuzz_str_add(log, &value_len, sizeof(value_len));
	if (value)
		fuzz_str_add(log, value, value_len);
	fuzz_str_add(log, &line, sizeof(line));
}

static int on_assign(const char *key, size_t key_len, const char *value, size_t value_len,
                     bool has_value, unsigned line, void *data)
{
	struct seen *s = data;
	struct fuzz_str one = {0};
	size_t i;

	s->count++;
	FUZZ_CHECK(s->count <= s->equals, "assignment %zu, but only %zu '=' in the input", s->count,
	           s->equals);
	FUZZ_CHECK(key != NULL, "assignment %zu", s->count);
	FUZZ_CHECK(key_len >= 1 && key_len <= s->size, "key_len %zu, input %zu", key_len, s->size);
	FUZZ_CHECK(value_len <= s->size, "value_len %zu, input %zu", value_len, s->size);
	FUZZ_CHECK(has_value == (value != NULL), "has_value %d, value %p", has_value,
	           (const void *)value);
	FUZZ_CHECK(has_value || value_len == 0, "no value but value_len %zu", value_len);
	for (i = 0; i < key_len; i++) {
		FUZZ_CHECK(key[i] != '\n' && key[i] != '\r' && key[i] != '\0',
		           "key byte %zu is 0x%02x", i, (unsigned char)key[i]);
		FUZZ_CHECK(i == 0 || key[i] != '=', "'=' inside the key at %zu", i);
	}
	FUZZ_CHECK(!blank(key[0]) && !blank(key[key_len - 1]), "key not trimmed: \"%.*s\"",
	           (int)key_len, key);
	FUZZ_CHECK(key[0] != '#' && key[0] != ';', "a comment line became key \"%.*s\"",
	           (int)key_len, key);
	if (value)
		FUZZ_CHECK(memchr(value, '\0', value_len) == NULL,
		           "NUL inside a value of %zu bytes", value_len);
	FUZZ_CHECK(line >= 1 && line <= s->max_line, "line %u, input has %zu lines", line,
	           s->max_line);
	FUZZ_CHECK(line >= s->last_line, "line %u after line %u", line, s->last_line);
	s->last_line = line;

	if (!s->first) {
		record(&s->log, key, key_len, value, value_len, has_value, line);
		return 0;
	}
	/* second pass: the same assignment as the first time */
	record(&one, key, key_len, value, value_len, has_value, line);
	FUZZ_CHECK(s->count <= s->stop_at, "assignment %zu after the callback asked to stop at %zu",
	           s->count, s->stop_at);
	FUZZ_CHECK(s->replay_off + one.len <= s->first->len &&
	               memcmp(s->first->p + s->replay_off, one.p, one.len) == 0,
	           "assignment %zu differs between two parses of the same input", s->count);
	s->replay_off += one.len;
	fuzz_str_free(&one);
	return s->count == s->stop_at ? 7 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size copy, so that reading one byte too far is caught */
	char *buf = malloc(size ? size : 1);
	struct seen a = {0}, b = {0};
	size_t i;
	int r;

	FUZZ_SETUP(buf != NULL);
	if (size)
		memcpy(buf, data, size);
	a.in = data;
	a.size = size;
	a.max_line = 1;
	for (i = 0; i < size; i++) {
		if (data[i] == '\n' || data[i] == '\r')
			a.max_line++;
		if (data[i] == '=')
			a.equals++;
	}
	r = envd_parse(buf, size, on_assign, &a);
	FUZZ_CHECK(r == 0, "envd_parse returned %d with a callback that always returns 0", r);

	if (a.count > 0) {
		b = a;
		b.count = 0;
		b.last_line = 0;
		b.log = (struct fuzz_str){0};
		b.first = &a.log;
		b.stop_at = (a.count + 1) / 2;
		r = envd_parse(buf, size, on_assign, &b);
		FUZZ_CHECK(r == 7, "envd_parse returned %d, the callback stopped it with 7", r);
		FUZZ_CHECK(b.count == b.stop_at, "%zu assignments, stopped at %zu", b.count,
		           b.stop_at);
	}
	fuzz_str_free(&a.log);
	free(buf);
	return 0;
}
