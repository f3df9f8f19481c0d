/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* privs.h - envd run as root reads a user's files with the user's rights. */
#ifndef ENVD_PRIVS_H
#define ENVD_PRIVS_H

#include <pwd.h>
#include <sys/types.h>

#include "envd.h"

struct privs {
	uid_t uid;
	gid_t gid;
	const char *user;
	gid_t saved_groups[256];
	int nsaved;
	int active; /* 1 while switched */
	struct envd_caps caps;
};

/* Hooks for envd_config.enter_user/leave_user; data is a struct privs. */
int privs_enter(void *data);
int privs_leave(void *data);

#endif
