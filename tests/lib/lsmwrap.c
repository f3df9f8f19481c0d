/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* lsmwrap.c - openat and readlinkat as a security module answers them,
 * for a program linked with -Wl,--wrap=openat -Wl,--wrap=readlinkat
 * (unit_files, and the reader program tests/lib/reader-lsm): an entry
 * whose name starts with "lsm-" is refused with EACCES whatever its mode,
 * as SELinux refuses a domain without the policy's rule. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

int __real_openat(int dirfd, const char *path, int flags, ...);
int __wrap_openat(int dirfd, const char *path, int flags, ...);
ssize_t __real_readlinkat(int dirfd, const char *path, char *buf, size_t n);
ssize_t __wrap_readlinkat(int dirfd, const char *path, char *buf, size_t n);

static int lsm_name(const char *path)
{
	const char *base = strrchr(path, '/');

	return strncmp(base ? base + 1 : path, "lsm-", 4) == 0;
}

int __wrap_openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, unsigned);
		va_end(ap);
	}
	if (lsm_name(path) && !(flags & O_PATH)) {
		errno = EACCES;
		return -1;
	}
	return __real_openat(dirfd, path, flags, mode);
}

ssize_t __wrap_readlinkat(int dirfd, const char *path, char *buf, size_t n)
{
	if (lsm_name(path)) {
		errno = EACCES;
		return -1;
	}
	return __real_readlinkat(dirfd, path, buf, n);
}
