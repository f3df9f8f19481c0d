/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* admin.c - the administrator's directories for some users and groups.
 *
 * With admin_dir set, a load reads ADMIN/user/USER and ADMIN/group/GROUP
 * (each group of the user that has a directory there) as system
 * directories: after the user directory, before the system ones, the
 * user's before the groups', the groups in strcmp order of their names
 * (load.c's set_dirs puts them there; read.c reads them with the system
 * side's rules).  Which groups: the entries of ADMIN/group, listed here
 * (root-owned, checked as every system directory), each looked up by
 * name (getgrnam_r) and kept when its gid is one of the user's groups
 * (cfg->admin_groups, the caller's getgrouplist).  A path is built only
 * from the administrator's own entry names and from the user's name, and
 * that only when it is a plain path component; a group name NSS gives is
 * never part of a path.  Bounded: at most ENVD_MAX_ADMIN_GROUPS entries
 * are looked up (the first in strcmp order), and ADMIN/group is listed up
 * to sixteen times that many entries. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader.h"

bool envd_path_component(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > ENVD_MAX_COMPONENT || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '/' || (unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

/* The gid of group name, through NSS.  0 with *gid, -ENOENT, -ENOMEM. */
static int group_gid(const char *name, gid_t *gid)
{
	struct group gr;
	char *buf = NULL;
	size_t size;
	int r = envd_group_get(name, 0, &gr, &buf, &size);

	if (r == 0)
		*gid = gr.gr_gid;
	free(buf);
	return r;
}

static bool has_gid(const struct envd_config *cfg, gid_t gid)
{
	for (size_t i = 0; cfg->admin_groups != NULL && i < cfg->admin_ngroups; i++)
		if (cfg->admin_groups[i] == gid)
			return true;
	return false;
}

static bool has_name(const struct envd_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->admin_ngroups; i++)
		if (cfg->admin_group_names[i] != NULL &&
		    strcmp(cfg->admin_group_names[i], name) == 0)
			return true;
	return false;
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends "base/sub/name" to ld->dir_paths.  0 or -ENOMEM. */
static int push_dir(struct loader *ld, const char *base, const char *sub, const char *name)
{
	char *mid = envd_join(base, '/', sub), *p;

	if (mid == NULL)
		return -ENOMEM;
	p = envd_join(mid, '/', name);
	free(mid);
	if (p == NULL)
		return -ENOMEM;
	ld->dir_paths[ld->ndirs++] = p;
	return 0;
}

struct names {
	char **v;
	size_t n, cap;
};

/* hidden names, "." and ".." included, and plain files are no group's
 * directory; a link is, when the chase allows it */
static int group_entry(int dirfd, const struct dirent *de, void *data)
{
	struct names *g = data;
	char **nv;

	(void)dirfd;
	if (de->d_name[0] == '.' || !envd_path_component(de->d_name) ||
	    (de->d_type != DT_DIR && de->d_type != DT_LNK && de->d_type != DT_UNKNOWN))
		return 0;
	if (g->n == g->cap) {
		nv = envd_grow(g->v, &g->cap, sizeof(*nv), 16);
		if (nv == NULL)
			return -ENOMEM;
		g->v = nv;
	}
	g->v[g->n] = envd_memdup0(de->d_name, strlen(de->d_name));
	if (g->v[g->n] == NULL)
		return -ENOMEM;
	g->n++;
	return 0;
}

/* The entries of dirfd that may name a group's directory, malloc'd, at
 * most max listed.  0, -ENOMEM, -EIO. */
static int list_groups(int dirfd, size_t max, char ***out, size_t *n, bool *truncated)
{
	struct names g = {.v = NULL};
	int r = envd_list_dir(dirfd, max, group_entry, &g, truncated);

	*out = g.v;
	*n = g.n;
	return r;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The user's groups that have a directory in base/group, in strcmp order
 * of their names.  0 or -ENOMEM. */
static int group_dirs(struct loader *ld, const char *base)
{
	struct envd_check chk = {.owner_a = ld->cfg->system_uid,
	                         .owner_b = ld->cfg->system_uid,
	                         .group_ok = (gid_t)-1,
	                         .safe_dirs = true};
	enum envd_reason reason = ENVD_R_NONE;
	char *path = envd_join(base, '/', "group"), **names = NULL;
	size_t n = 0, i;
	bool truncated = false;
	dev_t dev;
	int fd, r = 0;

	if (path == NULL)
		return -ENOMEM;
	fd = envd_open_dir(path, &chk, false, &reason, &dev);
	if (fd == -ENOMEM) {
		free(path);
		return -ENOMEM;
	}
	if (fd < 0) {
		envd_diagf(&ld->sink, fd == -ENOENT ? ENVD_DEBUG : ENVD_ERROR,
		           fd == -ENOENT  ? ENVD_C_DIR_MISSING
		           : fd == -EPERM ? ENVD_C_DIR_UNSAFE
		                          : ENVD_C_DIR_ERROR,
		           path, 0, NULL, "group directories: %s, skipped",
		           envd_reason_text(reason));
		free(path);
		return 0;
	}
	r = list_groups(fd, envd_scan_listed(ENVD_MAX_ADMIN_GROUPS), &names, &n, &truncated);
	close(fd);
	if (r == -EIO)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_DIR_ERROR, path, 0, NULL,
		           "error while listing the group directories");
	if (r != -ENOMEM)
		r = 0;
	if (n > 1)
		qsort(names, n, sizeof(*names), by_str);
	if (r == 0 && (truncated || n > ENVD_MAX_ADMIN_GROUPS))
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, path, 0, NULL,
		           "more than %u group directories: only the first %u in name order "
		           "are considered",
		           ENVD_MAX_ADMIN_GROUPS, ENVD_MAX_ADMIN_GROUPS);
	/* no group of the user's to match (no user, or none found in time):
	 * no entry's look-up can make one apply */
	for (i = 0; r == 0 && ld->cfg->admin_ngroups > 0 && i < n && i < ENVD_MAX_ADMIN_GROUPS;
	     i++) {
		gid_t gid;

		if (ld->cfg->admin_group_names != NULL) {
			/* the user's groups by name, as the look-up found them */
			if (has_name(ld->cfg, names[i]))
				r = push_dir(ld, base, "group", names[i]);
			continue;
		}
		r = group_gid(names[i], &gid);
		if (r == -ENOENT) {
			char *entry = envd_join(path, '/', names[i]);

			if (entry == NULL)
				r = -ENOMEM;
			else
				envd_diagf(&ld->sink, ENVD_NOTICE, ENVD_C_DIR_MISSING, entry, 0,
				           NULL, "no group of this name, skipped");
			free(entry);
			r = r == -ENOMEM ? r : 0;
		} else if (r == 0 && has_gid(ld->cfg, gid))
			r = push_dir(ld, base, "group", names[i]);
	}
	free_names(names, n);
	free(path);
	return r;
}

int envd_admin_dirs(struct loader *ld, const char *base)
{
	const struct envd_config *cfg = ld->cfg;

	if (cfg->admin_user && envd_path_component(cfg->admin_user)) {
		int r = push_dir(ld, base, "user", cfg->admin_user);

		if (r < 0)
			return r;
	} else if (cfg->admin_user)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_DIR_UNSAFE, base, 0, NULL,
		           "the user's name cannot name a directory (empty, \".\", \"..\", a '/', "
		           "a control character or over %u bytes): no per-user directory",
		           ENVD_MAX_COMPONENT);
	return group_dirs(ld, base);
}
