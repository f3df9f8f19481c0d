/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* fusefs.c - a tiny FUSE file system for the end-to-end tests: a home
 * the way sshfs or gocryptfs gives one, mounted by the user without
 * allow_other, so that root cannot enter it.
 *
 *   fusefs MODE MOUNTPOINT [fuse options...]
 *
 * It holds .config/environment.d/10-fuse.conf (FUSE_HOME=yes), owned by
 * the mounting user, 0755 directories and a 0644 file.  MODE "serve"
 * answers every request; "hang" never answers a read of the file (the
 * request waits until the server dies), as a dead network server would.
 * Runs in the foreground, multi-threaded, until killed or unmounted. */
#define FUSE_USE_VERSION 31
#include "config.h"

#include <errno.h>
#include <fuse.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char text[] = "FUSE_HOME=yes\n";
static int hang;

static const char *const dirs[] = {"/", "/.config", "/.config/environment.d"};
static const char file[] = "/.config/environment.d/10-fuse.conf";

static int is_dir(const char *path)
{
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (strcmp(path, dirs[i]) == 0)
			return 1;
	return 0;
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	(void)fi;
	memset(st, 0, sizeof(*st));
	st->st_uid = getuid();
	st->st_gid = getgid();
	if (is_dir(path)) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (strcmp(path, file) == 0) {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
		st->st_size = (off_t)strlen(text);
		return 0;
	}
	return -ENOENT;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
                      struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (!is_dir(path))
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	if (strcmp(path, "/") == 0)
		fill(buf, ".config", NULL, 0, 0);
	else if (strcmp(path, "/.config") == 0)
		fill(buf, "environment.d", NULL, 0, 0);
	else
		fill(buf, "10-fuse.conf", NULL, 0, 0);
	return 0;
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
	if (strcmp(path, file) != 0)
		return -ENOENT;
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EACCES;
	fi->direct_io = 1; /* every read reaches us: no page cache */
	return 0;
}

static int fs_read(const char *path, char *buf, size_t n, off_t off, struct fuse_file_info *fi)
{
	size_t len = strlen(text);

	(void)fi;
	if (strcmp(path, file) != 0)
		return -ENOENT;
	while (hang)
		pause(); /* never answers */
	if ((size_t)off >= len)
		return 0;
	if (n > len - (size_t)off)
		n = len - (size_t)off;
	memcpy(buf, text + off, n);
	return (int)n;
}

static const struct fuse_operations ops = {
    .getattr = fs_getattr,
    .readdir = fs_readdir,
    .open = fs_open,
    .read = fs_read,
};

int main(int argc, char **argv)
{
	static char foreground[] = "-f";
	char *args[16];
	int n = 0;

	if (argc < 3 || argc > 12 ||
	    (strcmp(argv[1], "serve") != 0 && strcmp(argv[1], "hang") != 0)) {
		fprintf(stderr, "usage: fusefs serve|hang MOUNTPOINT [fuse options...]\n");
		return 2;
	}
	hang = strcmp(argv[1], "hang") == 0;
	args[n++] = argv[0];
	args[n++] = foreground;
	for (int i = 3; i < argc; i++)
		args[n++] = argv[i];
	args[n++] = argv[2];
	args[n] = NULL;
	return fuse_main(n, args, &ops, NULL);
}
