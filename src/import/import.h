/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* import.h - `envd import-pam-environment`: ~/.pam_environment as an
 * environment.d file. */
#ifndef ENVD_IMPORT_H
#define ENVD_IMPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "exitcode.h"

/* Translates file (NULL: the ~/.pam_environment of as, or of the caller;
 * "-": standard input) and prints the result on out.  The file is read
 * with the rights of as (a user name; only root may name another user),
 * by default the caller's, and as root nobody's for a named file: root
 * reads it through a child process with that user's credentials, as the
 * module reads a user's files (lib/child.c), its links walked as envd_load
 * walks them.  Unless quiet, a one-line summary goes to stderr when some
 * line could not be translated exactly.  Returns EXIT_OK, or EXIT_FAIL
 * when the file cannot be read or memory runs out. */
int import_pam_environment(const char *file, const char *as, bool quiet, FILE *out);

#endif
