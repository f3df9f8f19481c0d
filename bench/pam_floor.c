/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* pam_floor.c - the calls pam_envd cannot do without, and nothing else.
 *
 * A PAM session module for bench/run.py and bench/login.py: what any
 * module with pam_envd's job has to pay for before it reads a single file,
 * by the project's own rules (../shared/SECURITY.md) and Linux-PAM's
 * interfaces, in pam_envd's process shape (lib/spawn.c):
 *   - the user from PAM_USER and pam_modutil_getpwnam,
 *   - the PAM environment (pam_getenvlist) as the expansion base,
 *   - the user's groups (getgrouplist) and a reader that is the user, an
 *     exec'd program (helper=PATH, bench/floor_helper.c): the program
 *     opened O_PATH and checked on its descriptor (a regular file of
 *     root's, writable by no one else), the request (the ids) written to
 *     a pipe, every signal blocked around a clone that holds the caller
 *     until the exec (clone3 with a pidfd, else clone), the child's pipes
 *     put on 0 and 1, every other descriptor closed, the exec through the
 *     descriptor; the helper's setgroups, setresgid and setresuid, one
 *     byte back, waited for within a bound, the helper reaped,
 *   - one pam_putenv per variable of the result.
 * The variables come ready-made from vars=FILE (NAME=VALUE entries, each
 * ended by a NUL: the bench writes envd show's result there), read with
 * root's privileges and no checks: this is a measuring stick, not a module
 * to install.  pam_envd's own work is then its cost above this floor.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

/* <linux/sched.h>'s clone_args, version 0. */
struct clone_args0 {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

/* fd on to (0 or 1), open across the exec; in the child: system calls only. */
static int put_on(int fd, int to)
{
	if (fd == to)
		return (int)syscall(SYS_fcntl, fd, F_SETFD, 0);
	return syscall(SYS_dup3, fd, to, 0) == to ? 0 : -1;
}

static _Noreturn void child(int exe, int in, int out)
{
	static char *const argv[] = {(char *)"pam_floor-helper", NULL};
	static char *const envp[] = {NULL};

	/* above 1 first, so that neither dup3 overwrites the other */
	in = (int)syscall(SYS_fcntl, in, F_DUPFD_CLOEXEC, 3);
	out = (int)syscall(SYS_fcntl, out, F_DUPFD_CLOEXEC, 3);
	if (in < 0 || out < 0 || put_on(in, 0) != 0 || put_on(out, 1) != 0)
		syscall(SYS_exit_group, 127);
	if (exe > 3)
		(void)syscall(SYS_close_range, 3u, (unsigned)exe - 1, 0u);
	(void)syscall(SYS_close_range, (unsigned)exe + 1, ~0u, 0u);
	(void)syscall(SYS_execveat, exe, "", argv, envp, AT_EMPTY_PATH);
	syscall(SYS_exit_group, 127);
	for (;;)
		;
}

/* The helper, exec'd as the user: one byte back.  0, or -1. */
static int reader(const struct passwd *pw, const char *helper)
{
	uint32_t req[3 + 64];
	gid_t groups[64];
	int n = 64, in[2], out[2], exe, pidfd = -1, status;
	struct clone_args0 ca = {.flags = 0x00004000 | 0x00001000, /* CLONE_VFORK | CLONE_PIDFD */
	                         .exit_signal = SIGCHLD};
	struct pollfd p;
	struct stat st;
	sigset_t all, old;
	long pid;
	char c = 'n';

	if (helper == NULL || getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) < 0)
		return -1;
	exe = open(helper, O_PATH | O_CLOEXEC);
	if (exe < 0)
		return -1;
	if (fstat(exe, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)) || pipe2(in, O_CLOEXEC) != 0) {
		close(exe);
		return -1;
	}
	if (pipe2(out, O_CLOEXEC) != 0) {
		close(in[0]);
		close(in[1]);
		close(exe);
		return -1;
	}
	req[0] = (uint32_t)pw->pw_uid;
	req[1] = (uint32_t)pw->pw_gid;
	req[2] = (uint32_t)n;
	for (int i = 0; i < n; i++)
		req[3 + i] = (uint32_t)groups[i];
	/* a few bytes: they fit the pipe */
	(void)!write(in[1], req, (3 + (size_t)n) * sizeof(uint32_t));
	close(in[1]);
	ca.pidfd = (uint64_t)(uintptr_t)&pidfd;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid < 0) {
		pidfd = -1;
		pid = syscall(SYS_clone, (unsigned long)(0x00004000 | SIGCHLD), 0UL, 0UL, 0UL, 0UL);
	}
	if (pid == 0)
		child(exe, in[0], out[1]);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(exe);
	close(in[0]);
	close(out[1]);
	p = (struct pollfd){.fd = out[0], .events = POLLIN};
	if (pid > 0 && poll(&p, 1, 3000) == 1 && read(out[0], &c, 1) != 1)
		c = 'n';
	close(out[0]);
	if (pid > 0)
		waitpid((pid_t)pid, &status, 0);
	if (pidfd >= 0)
		close(pidfd);
	return c == 'y' ? 0 : -1;
}

int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	const void *user = NULL;
	const struct passwd *pw;
	const char *vars = NULL, *helper = NULL;
	char **env, *data = NULL;
	size_t len = 0, i;
	int rc = PAM_SUCCESS;

	(void)flags;
	for (int a = 0; a < argc; a++)
		if (strncmp(argv[a], "vars=", 5) == 0)
			vars = argv[a] + 5;
		else if (strncmp(argv[a], "helper=", 7) == 0)
			helper = argv[a] + 7;
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

	if (reader(pw, helper) != 0)
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
