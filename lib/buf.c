/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* buf.c - a byte buffer that refuses to grow past its cap. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void envd_buf_init(struct envd_buf *b, size_t max)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max ? max : SIZE_MAX - 1;
}

void envd_buf_free(struct envd_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

static int grow(struct envd_buf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 256;
	char *p;

	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return -ENOMEM;
		cap *= 2;
	}
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int envd_buf_append_grow(struct envd_buf *b, const char *s, size_t n)
{
	int r;

	if (n > b->max - b->len)
		return -E2BIG;
	/* one spare byte for the terminating NUL */
	if (b->len + n + 1 > b->cap) {
		r = grow(b, b->len + n + 1);
		if (r < 0)
			return r;
	}
	if (n)
		memcpy(b->data + b->len, s, n);
	b->len += n;
	return 0;
}

long envd_buf_room(struct envd_buf *b, size_t want)
{
	size_t left = b->max - b->len;

	if (want > left)
		want = left;
	if (want > (size_t)LONG_MAX - 1)
		want = (size_t)LONG_MAX - 1;
	if (want == 0)
		return 0;
	if (b->len + want + 1 > b->cap && grow(b, b->len + want + 1) < 0)
		return -ENOMEM;
	return (long)want;
}

char *envd_buf_steal(struct envd_buf *b, size_t *len)
{
	char *p;

	if (!b->data && grow(b, 1) < 0)
		return NULL;
	b->data[b->len] = '\0';
	p = b->data;
	if (len)
		*len = b->len;
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

char *envd_memdup0(const char *s, size_t n)
{
	char *p = n < SIZE_MAX ? malloc(n + 1) : NULL;

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

char *envd_join(const char *a, char sep, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	char *p = malloc(na + nb + 2);

	if (p) {
		memcpy(p, a, na);
		p[na] = sep;
		memcpy(p + na + 1, b, nb + 1);
	}
	return p;
}

void *envd_grow(void *v, size_t *cap, size_t size, size_t first)
{
	size_t n = *cap ? *cap * 2 : first;
	void *nv = reallocarray(v, n, size);

	if (nv)
		*cap = n;
	return nv;
}
