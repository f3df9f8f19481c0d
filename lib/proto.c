/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* proto.c - the framing of the records between the login and the reader
 * (proto.h): a 32-bit length of what follows, a type byte, the fixed
 * fields, then up to two byte strings.  Both directions, every job. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "loader.h"

int envd_rec_put(struct envd_buf *b, char type, const void *fixed, size_t fn, const void *s1,
                 size_t n1, const void *s2, size_t n2)
{
	uint32_t len = (uint32_t)(1 + fn + n1 + n2);
	char t = type;
	int r;

	if (1 + fn + n1 + n2 > UINT32_MAX)
		return -E2BIG;
	r = envd_buf_append(b, (const char *)&len, sizeof(len));
	if (r == 0)
		r = envd_buf_append(b, &t, 1);
	if (r == 0)
		r = envd_buf_append(b, fixed, fn);
	if (r == 0 && n1)
		r = envd_buf_append(b, s1, n1);
	if (r == 0 && n2)
		r = envd_buf_append(b, s2, n2);
	return r;
}

/* One record of in[0..n) at *pos: its type, its fields (at least fixed
 * bytes) and the rest.  False when the stream breaks the framing. */
bool envd_rec_next(const char *in, size_t n, size_t *pos, char *type, const char **body,
                   size_t *len)
{
	uint32_t l;

	if (n - *pos < sizeof(l) + 1)
		return false;
	memcpy(&l, in + *pos, sizeof(l));
	if (l < 1 || l > n - *pos - sizeof(l))
		return false;
	*type = in[*pos + sizeof(l)];
	*body = in + *pos + sizeof(l) + 1;
	*len = l - 1;
	*pos += sizeof(l) + l;
	return true;
}

int envd_write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}
