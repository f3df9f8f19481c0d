/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* reapply.h - envd show --reapply: selected variables of the files composed
 * again over the values a login shell's profile left in the environment. */
#ifndef ENVD_REAPPLY_H
#define ENVD_REAPPLY_H

#include <stdio.h>

#include "envd.h"
#include "output.h"

struct reapply {
	size_t n;             /* selected names */
	char **names;         /* each malloc'd */
	const char **current; /* value in the environment ("" when empty), or NULL */
	char **marks;         /* the stand-in of each name's value, or NULL */
	const char **env;     /* the expansion base: environ with the marks */
	char **owned;         /* "NAME=MARK" strings of env */
};

/* Selects the names of list (separated by ','), each a shell identifier,
 * and builds the base from env.  Returns 0, -EINVAL (bad list) or -ENOMEM. */
int reapply_init(struct reapply *ra, const char *list, char *const *env);
void reapply_free(struct reapply *ra);

/* Prints, in format f, each selected name the result sets whose value
 * must be applied again.  Returns 0 or -ENOMEM. */
int reapply_print(FILE *out, const struct reapply *ra, const struct envd_result *res,
                  enum out_format f);

#endif
