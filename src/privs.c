/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* privs.c - envd's backend of the privilege window (lib/window.c).
 *
 * Only at work when envd runs as root for another user: then, like the
 * module, it must never open anything on the user's side with root's
 * rights.  The ids are switched with setgroups (the user's whole list),
 * setfsgid and setfsuid, the identity used for file access only; the lock,
 * the capabilities and every check of the kernel's answers are the
 * window's, the same as the module's. */
#include "config.h"

#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/fsuid.h>
#include <unistd.h>

#include "privs.h"

static bool nothing_to_switch(const struct envd_window *w)
{
	return geteuid() != 0 || w->uid == 0;
}

/* setfsuid and setfsgid return the previous id: calling them again with
 * the same id tells whether the first call took. */
static int set_fs_ids(uid_t uid, gid_t gid)
{
	setfsgid(gid);
	setfsuid(uid);
	if ((gid_t)setfsgid(gid) != gid || (uid_t)setfsuid(uid) != uid)
		return -1;
	return 0;
}

static int regain(struct envd_window *w, void *ctx)
{
	int r;

	if (nothing_to_switch(w))
		return 0;
	r = set_fs_ids(w->fsuid_before, w->fsgid_before);
	if (setgroups((size_t)w->ngroups_before, w->groups_before) < 0)
		r = -1;
	return r;
}

static int drop(struct envd_window *w, void *ctx)
{
	gid_t *groups = NULL;
	int n;

	if (nothing_to_switch(w))
		return 0;
	n = envd_user_groups(w->user, w->gid, &groups);
	if (n < 0)
		return -1;
	if (setgroups((size_t)n, groups) < 0) {
		free(groups);
		return -1;
	}
	free(groups);
	if (set_fs_ids(w->uid, w->gid) < 0) {
		(void)regain(w, ctx);
		return -1;
	}
	return 0;
}

static void report(enum envd_severity sev, bool fatal, const char *msg, void *data)
{
	const int *verbose = data;

	if (fatal || sev != ENVD_DEBUG || *verbose >= 2)
		fprintf(stderr, "envd: %s\n", msg);
}

void privs_init(struct privs *p, const struct passwd *pw, const int *verbose)
{
	p->backend = (struct envd_window_backend){.drop = drop, .regain = regain, .ctx = p};
	envd_window_init(&p->win, &p->backend, pw->pw_uid, pw->pw_gid, pw->pw_name);
	p->win.report = report;
	p->win.report_data = (void *)verbose;
}
