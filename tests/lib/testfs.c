/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* testfs.c - scratch trees and files for the test programs (no cmocka, no
 * PAM: the unit tests, the PAM drivers and the fault driver share it). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testfs.h"

int tf_scratch(char *tmpl)
{
	if (!mkdtemp(tmpl))
		return -errno;
	return chmod(tmpl, 0755) < 0 ? -errno : 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (flag == FTW_DP || flag == FTW_D)
		chmod(path, 0700);
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

void tf_rm_tree(const char *top)
{
	if (top && top[0])
		nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int tf_mkdirs(const char *path, mode_t mode)
{
	char tmp[PATH_MAX];

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, mode) < 0 && errno != EEXIST)
		return -errno;
	return chmod(tmp, mode) < 0 ? -errno : 0;
}

int tf_write(const char *path, const void *data, size_t len, mode_t mode)
{
	char dir[PATH_MAX], *slash;
	int fd, r = 0;

	if ((size_t)snprintf(dir, sizeof(dir), "%s", path) >= sizeof(dir))
		return -ENAMETOOLONG;
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		r = tf_mkdirs(dir, 0755);
		if (r < 0)
			return r;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	if (write(fd, data, len) != (ssize_t)len)
		r = -EIO;
	else if (fchmod(fd, mode) < 0)
		r = -errno;
	close(fd);
	return r;
}
