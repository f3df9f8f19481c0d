/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* names.c - what a variable name and a value may hold.
 *
 * Names as systemd's env_name_is_valid: ASCII letters, digits and '_', not
 * starting with a digit.  Values as its utf8_is_valid. */
#include "config.h"

#include "internal.h"

bool envd_name_valid(const char *name, size_t len)
{
	size_t i;

	if (len == 0 || !envd_name_start(name[0]))
		return false;
	for (i = 1; i < len; i++)
		if (!envd_name_char(name[i]))
			return false;
	return true;
}

/* Strict UTF-8: no overlong forms, no surrogates, no noncharacters (which
 * systemd's validator refuses too), nothing above U+10FFFF. */
bool envd_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	while (p < end) {
		unsigned c = *p, cp;
		size_t k, i;

		if (c < 0x80) {
			p++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			k = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			k = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			k = 3;
			cp = c & 0x07;
		} else
			return false;
		if ((size_t)(end - p) <= k)
			return false;
		for (i = 1; i <= k; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (p[i] & 0x3f);
		}
		if ((k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		if ((cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe)
			return false;
		p += k + 1;
	}
	return true;
}
