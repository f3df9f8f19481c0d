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

/* Where pam_systemd.so sets XDG_RUNTIME_DIR before pam_envd.so applies:
 * of the services of pam_dir (NULL: /etc/pam.d) whose session stack
 * applies pam_envd.so, how many have pam_systemd.so on an earlier session
 * line; and how many services have pam_systemd.so in the session stack at
 * all; and where pam_env.so still reads ~/.pam_environment.  Read as audit
 * reads them, silently.  Returns 0, or -errno when the
 * directory cannot be listed. */
struct pam_systemd_use {
	size_t applying;
	size_t after_systemd;
	size_t with_systemd;
	/* the first service applying pam_envd.so where pam_env.so
	 * user_readenv=1 still reads ~/.pam_environment: "SERVICE
	 * (FILE:LINE)", or "" */
	char readenv[256];
};
int audit_pam_systemd(const char *pam_dir, struct pam_systemd_use *u);

/* Whether a service of pam_dir (NULL: /etc/pam.d) applies pam_envd.so, as
 * audit's summary counts them, reading up to the first that does (and
 * continued lines both ways, without the package database: cheap enough
 * for every login shell).  Returns 1, 0 (none: "no service applies
 * pam_envd.so") or -errno when the directory cannot be listed. */
int audit_applied(const char *pam_dir);

#endif
