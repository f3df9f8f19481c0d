/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* import.h - `envd import-pam-environment`: ~/.pam_environment as an
 * environment.d file. */
#ifndef ENVD_IMPORT_H
#define ENVD_IMPORT_H

#include <stdbool.h>
#include <stdio.h>

/* Translates file (NULL: the caller's ~/.pam_environment from the passwd
 * entry; "-": standard input) and prints the result on out.  Unless quiet, a
 * one-line summary goes to stderr when some line could not be translated
 * exactly.  Returns 0, or 3 when the file cannot be read or memory runs out. */
int import_pam_environment(const char *file, bool quiet, FILE *out);

#endif
