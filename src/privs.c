/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* privs.c - switch the file-system identity to a user and back.
 *
 * Only used when envd runs as root for another user: then, like the module,
 * it must never open anything on the user's side with root's rights.
 * setfsuid/setfsgid change the identity used for file access only; the
 * supplementary groups are switched as well (CVE-2010-3430/3431 were
 * incomplete drops), and the effective capabilities are cleared (with
 * CAP_SYS_PTRACE, /proc/PID/cwd of any process opens; see SECURITY.md).
 * Each change is verified. */
#include "config.h"

#include <grp.h>
#include <sys/fsuid.h>
#include <unistd.h>

#include "privs.h"

static int set_fs_ids(uid_t uid, gid_t gid)
{
	setfsgid(gid);
	setfsuid(uid);
	/* the calls return the previous id: calling again tells the current */
	if ((gid_t)setfsgid(gid) != gid || (uid_t)setfsuid(uid) != uid)
		return -1;
	return 0;
}

int privs_enter(void *data)
{
	struct privs *p = data;
	gid_t groups[256];
	int n = 256;

	if (geteuid() != 0 || p->uid == 0)
		return 0;
	p->nsaved = getgroups(256, p->saved_groups);
	if (p->nsaved < 0)
		return -1;
	if (getgrouplist(p->user, p->gid, groups, &n) < 0)
		n = 0;
	if (n == 0) {
		groups[0] = p->gid;
		n = 1;
	}
	if (setgroups((size_t)n, groups) < 0)
		return -1;
	if (set_fs_ids(p->uid, p->gid) < 0 || envd_caps_clear(&p->caps) < 0) {
		(void)set_fs_ids(0, 0);
		(void)setgroups((size_t)p->nsaved, p->saved_groups);
		return -1;
	}
	p->active = 1;
	return 0;
}

int privs_leave(void *data)
{
	struct privs *p = data;

	if (!p->active)
		return 0;
	p->active = 0;
	/* capabilities first: setgroups needs CAP_SETGID */
	if (envd_caps_restore(&p->caps) < 0 || set_fs_ids(geteuid(), getegid()) < 0)
		return -1;
	if (setgroups((size_t)p->nsaved, p->saved_groups) < 0)
		return -1;
	return 0;
}
