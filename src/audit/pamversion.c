/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* pamversion.c - the Linux-PAM version that matters to `envd audit`.
 *
 * Linux-PAM 1.5 and older (_pam_assemble_line: Debian 12, Ubuntu up to
 * 24.04, RHEL 9) skip a comment line or a blank line that follows a line
 * ending in a backslash and go on joining; 1.6 and later (_pam_line_assemble)
 * end the logical line there.  libpam carries no version of its own (no
 * string, no symbol version newer than 1.4's, the same soname), so the
 * installed one is taken from dpkg's database, a text file (read with
 * lib's reader, capped, as every file envd reads); the caller
 * reads both ways when there is none (RPM, pacman and apk systems:
 * --pam-version says). */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child.h"
#include "pamversion.h"

#define ECONF ",econf"

int pam_lines_of(const char *s, enum pam_lines *lines)
{
	unsigned long major, minor;
	const char *colon = strchr(s, ':');
	char *end;

	if (strcmp(s, "any") == 0) {
		*lines = PAM_LINES_UNKNOWN;
		return 0;
	}
	if (colon) /* a Debian epoch */
		s = colon + 1;
	if (!isdigit((unsigned char)s[0]))
		return -1;
	major = strtoul(s, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return -1;
	minor = strtoul(end + 1, &end, 10);
	if (*end != '\0' && *end != '.' && *end != '-' && *end != '+' && *end != '~' &&
	    strcmp(end, ECONF) != 0)
		return -1;
	*lines = major < 1 || (major == 1 && minor < 6) ? PAM_LINES_JOIN : PAM_LINES_STOP;
	return 0;
}

/* The value of field name (with its colon) in line, or NULL. */
static const char *field(const char *line, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(line, name, n) != 0)
		return NULL;
	return line + n + strspn(line + n, " \t");
}

/* dpkg's status file, read whole: a few MiB on a large system */
#define STATUS_MAX (64u << 20)

bool pam_econf_of(const char *s)
{
	unsigned long major, minor, patch = 0;
	const char *colon = strchr(s, ':');
	size_t n = strlen(s);
	char *end;

	if (n < sizeof(ECONF) || strcmp(s + n - (sizeof(ECONF) - 1), ECONF) != 0)
		return false;
	if (colon)
		s = colon + 1;
	major = strtoul(s, &end, 10);
	if (*end != '.')
		return false;
	minor = strtoul(end + 1, &end, 10);
	if (*end == '.')
		patch = strtoul(end + 1, &end, 10);
	return major > 1 || (major == 1 && (minor > 5 || (minor == 5 && patch >= 3)));
}

/* The value of field (with its colon) in the stanza of the installed
 * package pkg, into value (size bytes).  Returns 0, or -1. */
static int installed_field(const char *path, const char *pkg_name, const char *name, char *value,
                           size_t size)
{
	struct envd_path_read rd = {.any_owner = true, .max = STATUS_MAX};
	char ver[4096] = "", *line, *end, *nl;
	bool pkg = false, installed = false, last = false;
	const char *v;
	int r = -1;

	if (envd_read_path(path, &rd) < 0 || rd.data == NULL)
		return -1;
	/* stanzas of "Field: value" lines, separated by blank lines */
	end = rd.data + rd.len;
	for (line = rd.data; r != 0 && !last; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(end - line));
		last = nl == NULL;
		if (last)
			nl = end; /* the NUL after the data */
		*nl = '\0';
		if ((v = field(line, "Package:")))
			pkg = strcmp(v, pkg_name) == 0;
		else if ((v = field(line, "Status:")))
			installed = strlen(v) > 10 && strcmp(v + strlen(v) - 10, " installed") == 0;
		else if ((v = field(line, name)) && strlen(v) < sizeof(ver))
			memcpy(ver, v, strlen(v) + 1);
		if (line == nl || last) { /* a stanza ends */
			if (pkg && installed && ver[0] && strlen(ver) < size) {
				memcpy(value, ver, strlen(ver) + 1);
				r = 0;
			}
			pkg = installed = false;
			ver[0] = '\0';
		}
	}
	free(rd.data);
	return r;
}

int pam_installed_version(const char *path, char *version, size_t size)
{
	char depends[4096];
	size_t n;

	if (installed_field(path, "libpam0g", "Version:", version, size) != 0)
		return -1;
	/* pam_env.so is libpam-modules': built with libeconf where it
	 * depends on it */
	n = strlen(version);
	if (installed_field(path, "libpam-modules", "Depends:", depends, sizeof(depends)) == 0 &&
	    strstr(depends, "libeconf") && n + sizeof(ECONF) <= size)
		memcpy(version + n, ECONF, sizeof(ECONF));
	return 0;
}
