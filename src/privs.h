/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* privs.h - envd run as root reads a user's files with the user's rights,
 * through the privilege window the module uses (lib/window.c). */
#ifndef ENVD_PRIVS_H
#define ENVD_PRIVS_H

#include <pwd.h>

#include "envd.h"

struct privs {
	struct envd_window win; /* envd_config's priv_data */
	struct envd_window_backend backend;
};

/* Sets up the window for pw's user; verbose (envd's -v count, read when
 * the window has something to say) decides whether its debug line shows. */
void privs_init(struct privs *p, const struct passwd *pw, const int *verbose);

#endif
