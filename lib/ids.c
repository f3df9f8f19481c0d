/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * ids.c - the user's credentials and groups, looked up through NSS in the
 * calling process before any child is started: the supplementary groups
 * the reader takes, the groups an admin directory names, and whether the
 * user's primary group is private to the user.
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

int envd_ids_get(const char *user, uid_t uid, gid_t gid, struct envd_ids *ids)
{
	int n = 64;
	gid_t *v = NULL, *nv;

	*ids = (struct envd_ids){.uid = uid, .gid = gid};
	for (;;) {
		int want = n;

		nv = reallocarray(v, (size_t)n, sizeof(*v));
		if (nv == NULL) {
			free(v);
			return -ENOMEM;
		}
		v = nv;
		if (getgrouplist(user, gid, v, &n) >= 0)
			break;
		/* n is the count needed now; a list that keeps growing ends */
		if (n <= want) {
			if (want >= 65536) {
				free(v);
				return -E2BIG;
			}
			n = want * 2;
		}
	}
	ids->groups = v;
	ids->ngroups = (size_t)n;
	return 0;
}

void envd_ids_free(struct envd_ids *ids)
{
	free(ids->groups);
	ids->groups = NULL;
	ids->ngroups = 0;
}

/* NSS's answers need a buffer of the size it asks for (ERANGE: larger). */
#define NSS_BUF_MIN 4096
#define NSS_BUF_MAX (1024 * 1024)

/* The group named name (NULL: the group gid) through NSS, into *gr with
 * its strings in *buf (the caller frees it, also on failure; *size its
 * size), the buffer grown while NSS says it is too small.  0, -ENOENT (no
 * such group, or NSS failed) or -ENOMEM. */
int envd_group_get(const char *name, gid_t gid, struct group *gr, char **buf, size_t *size)
{
	struct group *grp = NULL;
	char *nb;
	int e;

	for (*size = NSS_BUF_MIN;; *size *= 2) {
		nb = realloc(*buf, *size);
		if (nb == NULL)
			return -ENOMEM;
		*buf = nb;
		e = name ? getgrnam_r(name, gr, *buf, *size, &grp)
		         : getgrgid_r(gid, gr, *buf, *size, &grp);
		if (e != ERANGE || *size >= NSS_BUF_MAX)
			break;
	}
	if (e == 0 && grp != NULL)
		return 0;
	return e == ENOMEM ? -ENOMEM : -ENOENT;
}

/* Whether gid is user's private group, as Debian's OpenSSH decides for
 * StrictModes: the group exists, lists no member other than user, and no
 * other account has it as its primary group.  Enumerating the accounts
 * sees what NSS enumerates (sssd and LDAP may enumerate nothing: their
 * accounts then go unseen).  1, 0, or -ENOMEM. */
int envd_group_private(const char *user, uid_t uid, gid_t gid)
{
	size_t size;
	char *buf = NULL, *nb;
	struct group gr = {0};
	struct passwd pw = {0}, *pwp = NULL;
	int r = 1, e;

	if (gid == 0 || user == NULL)
		return 0;
	e = envd_group_get(NULL, gid, &gr, &buf, &size);
	if (e < 0) {
		free(buf);
		return e == -ENOMEM ? -ENOMEM : 0;
	}
	for (char **m = gr.gr_mem; m != NULL && *m != NULL; m++)
		if (strcmp(*m, user) != 0)
			r = 0;
	setpwent();
	while (r == 1) {
#ifdef HAVE_GETPWENT_R
		e = getpwent_r(&pw, buf, size, &pwp);
#else
		/* musl has no getpwent_r: getpwent's entry is static, as the
		 * enumeration's cursor is the process's with either */
		errno = 0;
		// cppcheck-suppress getpwentCalled
		pwp = getpwent();
		e = pwp == NULL ? errno : 0;
		if (pwp != NULL)
			pw = *pwp;
#endif
		if (e == ERANGE && size < NSS_BUF_MAX) {
			nb = realloc(buf, size * 2);
			if (nb == NULL) {
				r = -ENOMEM;
				break;
			}
			buf = nb;
			size *= 2;
			continue;
		}
		if (e != 0 || pwp == NULL)
			break;
		if (pw.pw_gid == gid && pw.pw_uid != uid)
			r = 0;
	}
	endpwent();
	free(buf);
	return r;
}
