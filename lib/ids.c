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
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
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

/* One NSS look-up into *buf (the caller frees it, also on failure; *size
 * its size), the buffer grown while NSS says it is too small: get is
 * getgrnam_r, getgrgid_r or getpwnam_r with its key bound.  0, -ENOENT
 * (no such entry, or NSS failed) or -ENOMEM. */
static int nss_grow(int (*get)(const void *key, char *buf, size_t size, bool *found),
                    const void *key, char **buf, size_t *size)
{
	bool found = false;
	char *nb;
	int e;

	for (*size = NSS_BUF_MIN;; *size *= 2) {
		nb = realloc(*buf, *size);
		if (nb == NULL)
			return -ENOMEM;
		*buf = nb;
		e = get(key, *buf, *size, &found);
		if (e != ERANGE || *size >= NSS_BUF_MAX)
			break;
	}
	if (e == 0 && found)
		return 0;
	return e == ENOMEM ? -ENOMEM : -ENOENT;
}

struct group_key {
	const char *name;
	gid_t gid;
	struct group *gr;
};

static int group_by(const void *key, char *buf, size_t size, bool *found)
{
	const struct group_key *k = key;
	struct group *res = NULL;
	int e = k->name ? getgrnam_r(k->name, k->gr, buf, size, &res)
	                : getgrgid_r(k->gid, k->gr, buf, size, &res);

	*found = res != NULL;
	return e;
}

int envd_group_get(const char *name, gid_t gid, struct group *gr, char **buf, size_t *size)
{
	struct group_key k = {.name = name, .gid = gid, .gr = gr};

	return nss_grow(group_by, &k, buf, size);
}

struct passwd_key {
	const char *name;
	struct passwd *pw;
};

static int passwd_by(const void *key, char *buf, size_t size, bool *found)
{
	const struct passwd_key *k = key;
	struct passwd *res = NULL;
	int e = getpwnam_r(k->name, k->pw, buf, size, &res);

	*found = res != NULL;
	return e;
}

int envd_passwd_get(const char *name, struct passwd *pw, char **buf, size_t *size)
{
	struct passwd_key k = {.name = name, .pw = pw};

	return nss_grow(passwd_by, &k, buf, size);
}

/* The local accounts file, read whole with a cap: a larger one is not
 * looked through (the group is then not taken as private). */
#define PASSWD_FILE "/etc/passwd"
#define PASSWD_MAX  (8 * 1024 * 1024)

/* Whether a line of passwd ("name:x:uid:gid:...") is an account other than
 * uid whose primary group is gid. */
static bool other_primary(const char *line, const char *end, uid_t uid, gid_t gid)
{
	unsigned long long v[2];
	const char *p = line;
	int f;

	for (f = 0; f < 2; f++) { /* past the name and the password */
		p = memchr(p, ':', (size_t)(end - p));
		if (p == NULL)
			return false;
		p++;
	}
	for (f = 0; f < 2; f++) {
		if (p >= end || *p < '0' || *p > '9')
			return false;
		for (v[f] = 0; p < end && *p >= '0' && *p <= '9' && v[f] <= UINT32_MAX; p++)
			v[f] = v[f] * 10 + (unsigned long long)(*p - '0');
		if (p >= end || *p != ':')
			return false;
		p++;
	}
	return v[1] == gid && v[0] != uid;
}

/* Whether the local accounts file has an account other than uid with gid
 * as its primary group: its own descriptor and buffer (no cursor of the
 * process's, no NSS), one read with a cap.  1, 0 (none, or no such
 * file), or -ENOMEM. */
static int passwd_has_other(uid_t uid, gid_t gid)
{
	char *data = NULL, *p, *nl, *end;
	size_t len = 0;
	int fd, r;

	fd = open(PASSWD_FILE, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	r = envd_read_fd(fd, PASSWD_MAX, 0, &data, &len);
	close(fd);
	if (r < 0)
		return r == -ENOMEM ? -ENOMEM : 1;
	end = data + len;
	for (p = data, r = 0; p < end && r == 0; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		r = other_primary(p, nl, uid, gid);
	}
	free(data);
	return r;
}

/* Whether gid is user's private group, by the user-private-group
 * convention (useradd's USERGROUPS_ENAB): the group exists, has the user's
 * name, lists no member other than user, its name looked up as an account
 * is the user (uid) with gid as primary group, and the local accounts file
 * has no other account with gid as primary group.  Lookups of one name
 * each and one capped read of /etc/passwd; no enumeration through NSS:
 * setpwent/getpwent_r share one cursor in the whole process (with a few
 * threads some checks saw only part of passwd and misjudged), and would
 * walk a whole directory (LDAP, sssd).  An account from a directory that
 * has the group as primary without being listed in it is not seen.
 * 1, 0, or -ENOMEM. */
int envd_group_private(const char *user, uid_t uid, gid_t gid)
{
	size_t gsize = 0, psize = 0;
	char *gbuf = NULL, *pbuf = NULL;
	struct group gr = {0};
	struct passwd pw = {0};
	int r, e;

	if (gid == 0 || user == NULL)
		return 0;
	e = envd_group_get(NULL, gid, &gr, &gbuf, &gsize);
	r = e == -ENOMEM ? -ENOMEM : e == 0 && strcmp(gr.gr_name, user) == 0;
	for (char **m = gr.gr_mem; r == 1 && m != NULL && *m != NULL; m++)
		if (strcmp(*m, user) != 0)
			r = 0;
	if (r == 1) {
		e = envd_passwd_get(gr.gr_name, &pw, &pbuf, &psize);
		r = e == -ENOMEM ? -ENOMEM : e == 0 && pw.pw_uid == uid && pw.pw_gid == gid;
	}
	if (r == 1) {
		e = passwd_has_other(uid, gid);
		r = e < 0 ? e : !e;
	}
	free(gbuf);
	free(pbuf);
	return r;
}
