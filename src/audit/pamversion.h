/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* pamversion.h - which Linux-PAM reads the PAM configuration, for the one
 * place where versions read it differently (pamversion.c). */
#ifndef ENVD_PAMVERSION_H
#define ENVD_PAMVERSION_H

#include <stdbool.h>
#include <stddef.h>

/* How a line ending in a backslash continues across a comment line or a
 * blank line. */
enum pam_lines {
	PAM_LINES_UNKNOWN, /* the version is not known: both ways */
	PAM_LINES_JOIN,    /* 1.5 and older: skip it and go on joining */
	PAM_LINES_STOP,    /* 1.6 and later: the logical line ends there */
};

/* The reading of the Linux-PAM version s ("1.5", "1.7.0", a package's
 * "1.5.2-6+deb12u3" with or without an epoch, each optionally followed by
 * ",econf": built with libeconf), or of "any" (PAM_LINES_UNKNOWN).
 * Returns 0, or -1 when s is neither. */
int pam_lines_of(const char *s, enum pam_lines *lines);

/* Whether pam_env.so of the Linux-PAM version s reads /etc/environment
 * through libeconf, and with it the drop-ins of /etc/environment.d: 1.5.3
 * and later, built with libeconf (s ends in ",econf"). */
bool pam_econf_of(const char *s);

/* The version of the installed libpam, from the package database at path
 * (dpkg's status file: the package libpam0g, installed), into version
 * (size bytes), followed by ",econf" where the installed libpam-modules
 * depends on libeconf.  Returns 0, or -1 when the file or the package is
 * not there. */
int pam_installed_version(const char *path, char *version, size_t size);

#endif
