/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* buf.h - a growable byte buffer with a hard cap (buf.c): the engine's,
 * and envd's for the text it builds.  Not part of the engine's API
 * (envd.h). */
#ifndef ENVD_BUF_H
#define ENVD_BUF_H

#include <stddef.h>
#include <string.h>

/* Every append returns 0 or a negative errno: no error is kept in the buffer.  envd_buf_init
 * comes first (a zeroed buffer has room for nothing). */
struct envd_buf {
	char *data;
	size_t len;
	size_t cap;
	size_t max; /* len never exceeds max; 0: SIZE_MAX */
};

void envd_buf_init(struct envd_buf *b, size_t max);
void envd_buf_free(struct envd_buf *b);
/* The slow path of envd_buf_append: grows the buffer first. */
int envd_buf_append_grow(struct envd_buf *b, const char *s, size_t n);
/* 0, -ENOMEM, or -E2BIG when the append would pass max (nothing appended).
 * Inline while there is room (one spare byte for a NUL is kept). */
static inline int envd_buf_append(struct envd_buf *b, const char *s, size_t n)
{
	if (n <= b->max - b->len && b->len + n < b->cap) {
		if (n)
			memcpy(b->data + b->len, s, n);
		b->len += n;
		return 0;
	}
	return envd_buf_append_grow(b, s, n);
}
/* The parser's hot path: one byte, inline while there is room. */
static inline int envd_buf_putc(struct envd_buf *b, char c)
{
	if (b->len + 1 < b->cap && b->len < b->max) {
		b->data[b->len++] = c;
		return 0;
	}
	return envd_buf_append_grow(b, &c, 1);
}
/* Room for up to want more bytes, written at data + len by the caller,
 * who then adds what it wrote to len: the count (at most what max
 * leaves; 0 at max), or -ENOMEM. */
long envd_buf_room(struct envd_buf *b, size_t want);
/* NUL-terminates and hands the data over; the buffer is left empty. */
char *envd_buf_steal(struct envd_buf *b, size_t *len);
/* A NUL-terminated string: envd_buf_append of its bytes. */
static inline int envd_buf_puts(struct envd_buf *b, const char *s)
{
	return envd_buf_append(b, s, strlen(s));
}

#endif
