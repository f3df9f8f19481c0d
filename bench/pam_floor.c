/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* pam_floor.c - the calls pam_envd cannot do without, and nothing else.
 *
 * A PAM session module for bench/run.py: what any module with pam_envd's
 * job has to pay for before it reads a single file, by the project's own
 * rules (../shared/SECURITY.md) and Linux-PAM's interfaces:
 *   - the user from PAM_USER and pam_modutil_getpwnam,
 *   - the PAM environment (pam_getenvlist) as the expansion base,
 *   - the user's groups (getgrouplist) and a reader process that is the
 *     user: a pipe, a middle process that forks the reader and exits,
 *     the reader's setgroups, setresgid and setresuid, one byte back,
 *     the middle process reaped (lib/child.c without its checks),
 *   - one pam_putenv per variable of the result.
 * The variables come ready-made from vars=FILE (NAME=VALUE entries, each
 * ended by a NUL: bench/run.py writes the pam_envd result there), read with
 * root's privileges and no checks: this is a measuring stick, not a module
 * to install.  pam_envd's own work is then its cost above this floor.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <security/pam_modules.h>
#include <security/pam_modutil.h>

#define FLOOR_MAX_BYTES (1 << 20)

static char *read_all(const char *path, size_t *len)
{
	struct stat st;
	char *buf = NULL;
	size_t n = 0, cap;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && st.st_size > 0 && st.st_size < FLOOR_MAX_BYTES) {
		cap = (size_t)st.st_size;
		buf = malloc(cap);
		while (buf && n < cap && (r = read(fd, buf + n, cap - n)) > 0)
			n += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;
}

/* A process that is the user, forked twice, sends one byte. */
static int reader(const struct passwd *pw)
{
	gid_t groups[64];
	int n = 64, p[2], status;
	pid_t mid;
	char c;

	if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) < 0 || pipe2(p, O_CLOEXEC) != 0)
		return -1;
	mid = fork();
	if (mid == 0) {
		if (fork() == 0) {
			c = (setgroups((size_t)n, groups) == 0 &&
			     setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) == 0 &&
			     setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) == 0)
			        ? 'y'
			        : 'n';
			(void)!write(p[1], &c, 1);
		}
		_exit(0);
	}
	close(p[1]);
	if (mid > 0)
		waitpid(mid, &status, 0);
	n = mid > 0 ? (int)read(p[0], &c, 1) : -1;
	close(p[0]);
	return n == 1 ? 0 : -1;
}

int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	const void *user = NULL;
	const struct passwd *pw;
	const char *vars = NULL;
	char **env, *data = NULL;
	size_t len = 0, i;
	int rc = PAM_SUCCESS;

	(void)flags;
	for (int a = 0; a < argc; a++)
		if (strncmp(argv[a], "vars=", 5) == 0)
			vars = argv[a] + 5;
	if (pam_get_item(pamh, PAM_USER, &user) != PAM_SUCCESS || user == NULL)
		return PAM_SESSION_ERR;
	pw = pam_modutil_getpwnam(pamh, user);
	if (pw == NULL)
		return PAM_SESSION_ERR;
	env = pam_getenvlist(pamh);
	if (env == NULL)
		return PAM_BUF_ERR;
	for (char **p = env; *p; p++)
		free(*p);
	free(env);

	if (reader(pw) != 0)
		return PAM_SESSION_ERR;

	if (vars && (data = read_all(vars, &len)) != NULL)
		for (i = 0; i < len && rc == PAM_SUCCESS; i += strlen(data + i) + 1)
			if (data[i] != '\0' && memchr(data + i, '\0', len - i))
				rc = pam_putenv(pamh, data + i);
	free(data);
	return rc == PAM_SUCCESS ? PAM_SUCCESS : PAM_SESSION_ERR;
}

int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	(void)pamh;
	(void)flags;
	(void)argc;
	(void)argv;
	return PAM_SUCCESS;
}
