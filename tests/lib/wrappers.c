/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* wrappers.c - see wrappers.h. */
#include "config.h"

#include <errno.h>

#include "wrappers.h"

int envd_parse(const char *buf, size_t len, envd_assign_fn cb, void *data)
{
	struct envd_buf key, value;
	int r;

	envd_buf_init(&key, 0);
	envd_buf_init(&value, 0);
	r = envd_parse_with(buf, len, cb, data, &key, &value);
	envd_buf_free(&key);
	envd_buf_free(&value);
	return r;
}

int envd_expand(struct envd_expand_state *st, const char *in, size_t len, char **out,
                size_t *out_len)
{
	struct envd_buf b;
	int r;

	envd_buf_init(&b, st->max_out);
	r = envd_expand_buf(st, in, len, &b);
	if (r == 0) {
		*out = envd_buf_steal(&b, out_len);
		if (!*out)
			r = -ENOMEM;
	}
	envd_buf_free(&b);
	return r;
}

int envd_store_set(struct envd_store *s, const char *name, size_t name_len, const char *value,
                   size_t value_len, const char *file, unsigned line)
{
	return envd_store_set_h(s, name, name_len, envd_hash(name, name_len), value, value_len,
	                        file, line, false);
}
