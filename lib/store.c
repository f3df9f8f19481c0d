/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* store.c - variables in order of first definition, indexed by a keyed hash.
 *
 * Names come from files a user controls, so the hash is SipHash-1-3 with a
 * random key per process: nobody can precompute names that collide and turn
 * the linear load into a quadratic one.  One key for all stores means one
 * hash per name serves every store it is looked up in; entries keep their
 * hash, so growing the table hashes nothing again. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/random.h>
#include <unistd.h>

#include "internal.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

/* One SipRound on four locals: a macro keeps them in registers. */
#define SIP_ROUND(v0, v1, v2, v3)                                                                  \
	do {                                                                                       \
		v0 += v1;                                                                          \
		v1 = ROTL(v1, 13);                                                                 \
		v1 ^= v0;                                                                          \
		v0 = ROTL(v0, 32);                                                                 \
		v2 += v3;                                                                          \
		v3 = ROTL(v3, 16);                                                                 \
		v3 ^= v2;                                                                          \
		v0 += v3;                                                                          \
		v3 = ROTL(v3, 21);                                                                 \
		v3 ^= v0;                                                                          \
		v2 += v1;                                                                          \
		v1 = ROTL(v1, 17);                                                                 \
		v1 ^= v2;                                                                          \
		v2 = ROTL(v2, 32);                                                                 \
	} while (0)

/* Eight bytes as a little-endian number, whatever the host's order. */
static inline uint64_t load_le64(const unsigned char *p)
{
	uint64_t m;

	memcpy(&m, p, sizeof(m));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	m = __builtin_bswap64(m);
#endif
	return m;
}

uint64_t envd_siphash13(const uint64_t key[2], const char *s, size_t n)
{
	uint64_t v0 = key[0] ^ 0x736f6d6570736575ULL, v1 = key[1] ^ 0x646f72616e646f6dULL;
	uint64_t v2 = key[0] ^ 0x6c7967656e657261ULL, v3 = key[1] ^ 0x7465646279746573ULL;
	uint64_t m, b = (uint64_t)n << 56;
	const unsigned char *p = (const unsigned char *)s;

	for (; n >= 8; n -= 8, p += 8) {
		m = load_le64(p);
		v3 ^= m;
		SIP_ROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	/* the last 0-7 bytes, without a loop: names are short, so this
	 * tail is most of the input */
	switch (n) {
	case 7:
		b |= (uint64_t)p[6] << 48;
		ENVD_FALLTHROUGH;
	case 6:
		b |= (uint64_t)p[5] << 40;
		ENVD_FALLTHROUGH;
	case 5:
		b |= (uint64_t)p[4] << 32;
		ENVD_FALLTHROUGH;
	case 4:
		b |= (uint64_t)p[3] << 24;
		ENVD_FALLTHROUGH;
	case 3:
		b |= (uint64_t)p[2] << 16;
		ENVD_FALLTHROUGH;
	case 2:
		b |= (uint64_t)p[1] << 8;
		ENVD_FALLTHROUGH;
	case 1:
		b |= (uint64_t)p[0];
		break;
	default:
		break;
	}
	v3 ^= b;
	SIP_ROUND(v0, v1, v2, v3);
	v0 ^= b;
	v2 ^= 0xff;
	SIP_ROUND(v0, v1, v2, v3);
	SIP_ROUND(v0, v1, v2, v3);
	SIP_ROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

static uint64_t hash_key[2];
static pthread_once_t hash_key_once = PTHREAD_ONCE_INIT;

/* Made once per process, whichever thread loads first (pthread_once): a key
 * that changed under a running load would lose its names. */
static void hash_key_init(void)
{
	uint64_t k[2] = {0, 0};
	int fd;

	if (getrandom(hash_key, sizeof(hash_key), GRND_NONBLOCK) == (ssize_t)sizeof(hash_key))
		return;
	/* No entropy pool yet (early boot): /dev/urandom still answers, and
	 * addresses add what ASLR gives.  Unpredictable enough to an
	 * unprivileged user; correctness never depends on it. */
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd >= 0) {
		if (read(fd, k, sizeof(k)) != (ssize_t)sizeof(k))
			k[0] = k[1] = 0;
		close(fd);
	}
	hash_key[0] ^= k[0] ^ (uint64_t)(uintptr_t)&k * 0x9e3779b97f4a7c15ULL;
	hash_key[1] ^= k[1] ^ (uint64_t)(uintptr_t)hash_key;
}

uint64_t envd_hash(const char *s, size_t n)
{
	(void)pthread_once(&hash_key_once, hash_key_init);
	return envd_siphash13(hash_key, s, n);
}

void envd_store_init(struct envd_store *s)
{
	memset(s, 0, sizeof(*s));
}

void envd_store_free(struct envd_store *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i].name); /* the value shares the name's block */
	free(s->v);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}

static size_t probe(const struct envd_store *s, const char *name, size_t len, uint64_t h,
                    bool *found)
{
	size_t mask = s->nslots - 1;
	size_t i = (size_t)h & mask;
	const struct envd_entry *e;

	for (;;) {
		if (!s->slots[i]) {
			*found = false;
			return i;
		}
		e = &s->v[s->slots[i] - 1];
		if (e->hash == h && e->name_len == len && memcmp(e->name, name, len) == 0) {
			*found = true;
			return i;
		}
		i = (i + 1) & mask;
	}
}

size_t envd_store_find_h(const struct envd_store *s, const char *name, size_t len, uint64_t h)
{
	bool found;
	size_t i;

	if (!s->nslots)
		return SIZE_MAX;
	i = probe(s, name, len, h, &found);
	return found ? s->slots[i] - 1 : SIZE_MAX;
}

size_t envd_store_find(const struct envd_store *s, const char *name, size_t len)
{
	return s->n ? envd_store_find_h(s, name, len, envd_hash(name, len)) : SIZE_MAX;
}

static int rehash(struct envd_store *s, size_t nslots)
{
	uint32_t *old = s->slots;
	size_t i, j;
	bool found;

	s->slots = calloc(nslots, sizeof(*s->slots));
	if (!s->slots) {
		s->slots = old;
		return -ENOMEM;
	}
	s->nslots = nslots;
	for (i = 0; i < s->n; i++) {
		j = probe(s, s->v[i].name, s->v[i].name_len, s->v[i].hash, &found);
		s->slots[j] = (uint32_t)(i + 1);
	}
	free(old);
	return 0;
}

static inline struct envd_entry *add_entry(struct envd_store *s, size_t slot)
{
	if (s->n == s->cap) {
		struct envd_entry *nv = envd_grow(s->v, &s->cap, sizeof(*nv), 64);

		if (!nv)
			return NULL;
		s->v = nv;
	}
	s->slots[slot] = (uint32_t)(s->n + 1);
	return &s->v[s->n++];
}

/* Room for one more entry: at most UINT32_MAX - 1 of them, and a load
 * factor of at most 1/2.  0 or -ENOMEM. */
static int grow_slots(struct envd_store *s)
{
	if (s->n >= UINT32_MAX - 1)
		return -ENOMEM;
	return rehash(s, s->nslots ? s->nslots * 2 : 128);
}

static inline int reserve(struct envd_store *s)
{
	if (s->n < UINT32_MAX - 1 && (s->n + 1) * 2 <= s->nslots)
		return 0;
	return grow_slots(s);
}

/* An entry is one malloc'd block, "NAME\0VALUE\0"; a new value reallocates
 * it. */
int envd_store_set_h(struct envd_store *s, const char *name, size_t name_len, uint64_t h,
                     const char *value, size_t value_len, const char *file, unsigned line,
                     bool user_side)
{
	struct envd_entry *e;
	bool found = false;
	size_t i, size;
	char *block;

	if (reserve(s) < 0)
		return -ENOMEM;
	if (value_len > SIZE_MAX - name_len - 2)
		return -ENOMEM;
	size = name_len + 1 + value_len + 1;
	i = probe(s, name, name_len, h, &found);
	if (found) {
		e = &s->v[s->slots[i] - 1];
		block = realloc(e->name, size);
		if (!block)
			return -ENOMEM;
		s->bytes -= e->value_len;
	} else {
		block = malloc(size);
		if (!block)
			return -ENOMEM;
		e = add_entry(s, i);
		if (!e) {
			free(block);
			s->slots[i] = 0;
			return -ENOMEM;
		}
		memcpy(block, name, name_len);
		block[name_len] = '\0';
		e->name_len = name_len;
		e->hash = h;
		s->bytes += name_len + 2;
	}
	e->name = block;
	e->value = block + name_len + 1;
	memcpy(e->value, value, value_len);
	e->value[value_len] = '\0';
	e->value_len = value_len;
	e->file = file;
	e->line = line;
	e->user_side = user_side;
	e->replaced_file = NULL;
	e->replaced_line = 0;
	s->bytes += value_len;
	return 0;
}
