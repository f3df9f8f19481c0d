/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* audit.h - `envd audit`: where the PAM configuration lets root programs
 * see the values pam_envd sets. */
#ifndef ENVD_AUDIT_H
#define ENVD_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "exitcode.h"

struct audit_opts {
	const char *pam_dir;     /* NULL: /etc/pam.d */
	const char *pam_version; /* NULL: the installed one; "any" */
	int verbose;             /* 1: say which Linux-PAM the files are read as */
	bool json;
	char *const *services; /* NULL or empty: every file of pam_dir */
	size_t n_services;
};

/* Prints the findings and a summary on out, problems with the run on
 * stderr.  Returns EXIT_OK (no finding), EXIT_FINDINGS (a finding, or no
 * service applies pam_envd.so) or EXIT_FAIL (a directory or named service
 * that cannot be read, out of memory, a write error). */
int audit_run(const struct audit_opts *o, FILE *out);

#endif
