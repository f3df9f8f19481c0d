/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* recorder.c - an LD_PRELOAD library for tools/sweep/run.sh: every name a
 * program looks up with getenv or secure_getenv is appended, with the
 * program's name, to the file ENVD_SWEEP_LOG names ("getenv NAME PROGRAM",
 * tab-separated), and the lookup is answered as libc would.
 *
 * Not part of pam_envd: run.sh compiles it into a scratch directory.  It
 * never calls libc's getenv (no dlsym, no recursion): it walks environ
 * itself.  The log's path is taken once, at load, so that a program that
 * clears its environment is still recorded; the file is opened and closed
 * per lookup, so that no descriptor of ours is left in the program.  glibc's
 * own lookups (LD_*, TZ, LOCPATH...) bypass the symbol and are not seen:
 * the loader and libc family of the policy covers them. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

extern char **environ;

static char log_path[PATH_MAX];
static char program[256];

static const char *lookup(const char *name)
{
	size_t n = strlen(name);
	char **e;

	if (!environ || n == 0 || strchr(name, '='))
		return NULL;
	for (e = environ; *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

__attribute__((constructor)) static void init(void)
{
	const char *p = lookup("ENVD_SWEEP_LOG");
	char exe[PATH_MAX];
	ssize_t n;

	if (p && strlen(p) < sizeof(log_path))
		strcpy(log_path, p);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = '\0';
	p = strrchr(exe, '/');
	p = p ? p + 1 : exe;
	if (strlen(p) < sizeof(program))
		strcpy(program, p);
}

/* One line, in one write to an O_APPEND file: lines of concurrent
 * processes do not interleave. */
static void record(const char *name)
{
	static const char kind[] = "getenv\t";
	char line[512];
	size_t k = sizeof(kind) - 1, n = strlen(name), m = strlen(program), len = k + n + m + 2;
	int saved = errno, fd;

	if (!log_path[0] || len > sizeof(line))
		return;
	memcpy(line, kind, k);
	memcpy(line + k, name, n);
	line[k + n] = '\t';
	memcpy(line + k + n + 1, program, m);
	line[len - 1] = '\n';
	fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0) {
		if (write(fd, line, len) < 0) {
			/* a lost line is a name missed, nothing worse */
		}
		close(fd);
	}
	errno = saved;
}

char *getenv(const char *name)
{
	record(name);
	return (char *)lookup(name);
}

char *secure_getenv(const char *name)
{
	record(name);
	return getauxval(AT_SECURE) ? NULL : (char *)lookup(name);
}
