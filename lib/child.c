/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * child.c - work on a user's files in a process that is the user.
 *
 * SECURITY.md has the threat model.  The rule kept here: a root process
 * (the login: sshd, login, su, a display manager) never reads anything of
 * the user's itself, and never changes its own credentials.  A child
 * process takes the user's credentials in full and does the reading; what
 * it sends back is input, checked by the caller like any file.
 *
 * The shape, and why:
 *  - Two forks.  The login process forks a middle process, which forks the
 *    reader, sends the reader's pid down the pipe and exits at once; the
 *    login reaps the middle process by its pid only.  The reader is never
 *    the login's child: a reader stuck in the kernel (a hard NFS mount in D
 *    state, a FUSE server that never answers) cannot be killed until the
 *    kernel lets go of it, and the login neither waits for it nor keeps a
 *    zombie of it.  Reaping by pid leaves every other child's status to the
 *    host, whether it has a SIGCHLD handler that reaps everything (then the
 *    waitpid here finds nothing, which is fine) or ignores SIGCHLD (then
 *    the kernel reaps the middle process).
 *  - The reader waits until the middle process has written its pid and
 *    exited (a pipe closed by its exit), so the pid is the first thing on
 *    the pipe and comes from a root process, not from the reader.
 *  - In the reader: signal dispositions back to the defaults (no handler
 *    of the host's runs in it), every descriptor but the pipe closed, the
 *    user's supplementary groups (computed by the caller with NSS before
 *    the fork: no NSS after it), setresgid, setresuid, each read back and
 *    compared, every capability dropped and checked with capget,
 *    no_new_privs, not dumpable, rlimits on CPU time, file size, open
 *    files, core size and address space, and a timer of its own.
 *  - The caller gives one budget for all of it, from before the fork: past
 *    it the reader is killed (only while it still holds the pipe open, so
 *    that its pid cannot have been reused) and the caller goes on without
 *    what it would have said.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#ifdef HAVE_VALGRIND_VALGRIND_H
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

/* ---- the reader's side ---- */

/* <linux/capability.h>, version 3: two 32-bit words per set.  No C
 * library has a header for capget/capset (musl none at all). */
#define CAP_VERSION_3 0x20080522u

struct cap_header {
	uint32_t version;
	int pid;
};

struct cap_data {
	uint32_t effective, permitted, inheritable;
};

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT           47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

/* No capability in any set, checked with the kernel's answer. */
static bool drop_caps(void)
{
	struct cap_header h = {.version = CAP_VERSION_3, .pid = 0};
	struct cap_data d[2];

	memset(d, 0, sizeof(d));
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); /* EINVAL before 4.3 */
	if (syscall(SYS_capset, &h, d) != 0)
		return false;
	memset(d, 0xff, sizeof(d));
	if (syscall(SYS_capget, &h, d) != 0)
		return false;
	for (int i = 0; i < 2; i++)
		if (d[i].effective || d[i].permitted || d[i].inheritable)
			return false;
	return true;
}

static int by_gid(const void *a, const void *b)
{
	gid_t x = *(const gid_t *)a, y = *(const gid_t *)b;

	return x < y ? -1 : x > y;
}

/* The process's groups are ids's, in any order (the kernel sorts them). */
static bool same_groups(const struct envd_ids *ids)
{
	int n = getgroups(0, NULL);
	gid_t *now, *want;
	bool ok;

	if (n < 0 || (size_t)n != ids->ngroups)
		return false;
	if (n == 0)
		return true;
	now = calloc((size_t)n, sizeof(*now));
	want = calloc((size_t)n, sizeof(*want));
	ok = now && want && getgroups(n, now) == n;
	if (ok) {
		memcpy(want, ids->groups, (size_t)n * sizeof(*want));
		qsort(now, (size_t)n, sizeof(*now), by_gid);
		qsort(want, (size_t)n, sizeof(*want), by_gid);
		ok = memcmp(now, want, (size_t)n * sizeof(*now)) == 0;
	}
	free(now);
	free(want);
	return ok;
}

/* The user's credentials in full, read back: real, effective, saved and
 * file-system ids, and the groups.  Only a root process switches; any
 * other reads with its own credentials. */
static bool become(const struct envd_ids *ids)
{
	uid_t ru, eu, su;
	gid_t rg, eg, sg;

	if (ids == NULL || geteuid() != 0 || ids->uid == 0)
		return true;
	if (setgroups(ids->ngroups, ids->groups) != 0 ||
	    setresgid(ids->gid, ids->gid, ids->gid) != 0 ||
	    setresuid(ids->uid, ids->uid, ids->uid) != 0)
		return false;
	if (getresuid(&ru, &eu, &su) != 0 || getresgid(&rg, &eg, &sg) != 0)
		return false;
	return ru == ids->uid && eu == ids->uid && su == ids->uid && rg == ids->gid &&
	       eg == ids->gid && sg == ids->gid && same_groups(ids);
}

static void limit(int resource, rlim_t value)
{
	struct rlimit rl = {.rlim_cur = value, .rlim_max = value};

	(void)setrlimit(resource, &rl);
}

/* The reader's address space: what it has now plus room for the work.
 * Sanitizer and valgrind builds reserve far more than they use; the
 * figure then only bounds what is added. */
static void limit_memory(size_t work_bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long pages = 0;
	char text[64];
	ssize_t n;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || page <= 0)
		goto out;
	n = read(fd, text, sizeof(text) - 1);
	if (n <= 0)
		goto out;
	text[n] = '\0';
	pages = strtoul(text, NULL, 10);
	/* what it has now plus the work, unless that sum wraps (a load whose
	 * limits are all SIZE_MAX): then no limit rather than a tiny one */
	if (pages > 0 && pages <= (rlim_t)RLIM_INFINITY / (rlim_t)page &&
	    (rlim_t)work_bytes < (rlim_t)RLIM_INFINITY - (rlim_t)pages * (rlim_t)page)
		limit(RLIMIT_AS, (rlim_t)pages * (rlim_t)page + (rlim_t)work_bytes);
out:
	if (fd >= 0)
		close(fd);
}

static void default_signals(void)
{
	struct sigaction sa;
	sigset_t none;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (int s = 1; s < NSIG; s++)
		(void)sigaction(s, &sa, NULL); /* EINVAL for SIGKILL, SIGSTOP, RT ones */
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Every descriptor but keep. */
static void close_others(int keep)
{
	struct rlimit rl;
	int max;

#ifdef SYS_close_range
	if ((keep == 0 || syscall(SYS_close_range, 0u, (unsigned)keep - 1u, 0u) == 0) &&
	    syscall(SYS_close_range, (unsigned)keep + 1u, ~0u, 0u) == 0)
		return;
#endif
	max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur : 65536;
	for (int fd = 0; fd < max; fd++)
		if (fd != keep)
			(void)close(fd);
}

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A failure of the reader's set-up: one byte the caller turns into a
 * reason (envd_child_run's -EPERM). */
#define SETUP_FAILED 'X'

static void wait_for_parent(int sync)
{
	char c;

	while (read(sync, &c, 1) < 0 && errno == EINTR)
		;
	close(sync);
}

static void reader(int fd, int sync, const struct envd_child *c)
{
	struct itimerval t = {0};
	unsigned ms = c->budget_ms + 100; /* the caller's deadline comes first */

	default_signals();
	wait_for_parent(sync);
	close_others(fd);
	if (!become(c->ids) || !drop_caps() || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
		char x = SETUP_FAILED;

		(void)write_all(fd, &x, 1);
		_exit(2);
	}
	limit(RLIMIT_CORE, 0);
	/* valgrind writes its profile or log at the reader's exit, in the
	 * reader; natively RUNNING_ON_VALGRIND is 0, and nothing a user
	 * controls makes it anything else */
	if (!RUNNING_ON_VALGRIND && !c->programs)
		limit(RLIMIT_FSIZE, 0);
	limit(RLIMIT_NOFILE, c->programs ? 1024 : 64);
	limit(RLIMIT_CPU, (rlim_t)(ms / 1000 + 1));
	limit_memory(c->memory_bytes);
	t.it_value.tv_sec = (time_t)(ms / 1000);
	t.it_value.tv_usec = (suseconds_t)(ms % 1000) * 1000;
	(void)setitimer(ITIMER_REAL, &t, NULL); /* SIGALRM's default: the end */
	_exit(c->work(fd, c->data) == 0 ? 0 : 1);
}

static void middle(int fd, const struct envd_child *c)
{
	int sync[2];
	pid_t pid;

	if (pipe2(sync, O_CLOEXEC) != 0)
		_exit(1);
	pid = fork();
	if (pid < 0)
		_exit(1);
	if (pid == 0) {
		close(sync[1]);
		reader(fd, sync[0], c);
	}
	(void)write_all(fd, &pid, sizeof(pid));
	_exit(0); /* closes sync[1]: the reader starts */
}

/* ---- the caller's side ---- */

static void reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

static long ms_left(const struct timespec *start, unsigned budget_ms)
{
	struct timespec now;
	long long ms;

	if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
		return 0;
	ms = (long long)(now.tv_sec - start->tv_sec) * 1000 +
	     (now.tv_nsec - start->tv_nsec) / 1000000;
	return ms >= (long long)budget_ms ? 0 : (long)((long long)budget_ms - ms);
}

/* Waits, within the budget, until fd can be read.  0, -ETIMEDOUT, or
 * poll's errno. */
static int wait_readable(int fd, const struct timespec *start, unsigned budget_ms)
{
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		long left = ms_left(start, budget_ms);
		int r;

		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int)left);
		if (r > 0)
			return 0;
		if (r == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -EIO; /* the kernel's trouble, not ours: no reader */
	}
}

/* Reads the pipe to its end into out, within the budget: first the
 * reader's pid, alone, then whatever the reader wrote (a record stream
 * that fits the pipe arrives in one read).  Returns 0 at the end,
 * -ETIMEDOUT, -EMSGSIZE over out's cap, -ENOMEM, -EIO. */
static int collect(int fd, const struct timespec *start, unsigned budget_ms, struct envd_buf *out,
                   pid_t *pid)
{
	char chunk[65536];
	size_t want = sizeof(*pid);

	for (;;) {
		ssize_t n;
		int r = wait_readable(fd, start, budget_ms);

		if (r < 0)
			return r;
		n = read(fd, chunk, want ? want : sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return errno == ENOMEM ? -ENOMEM : -EIO;
		if (n == 0)
			return 0;
		if (want) {
			/* four bytes written at once by the middle process */
			if ((size_t)n != want)
				return -EIO;
			memcpy(pid, chunk, sizeof(*pid));
			want = 0;
			continue;
		}
		r = envd_buf_append(out, chunk, (size_t)n);
		if (r == -E2BIG)
			return -EMSGSIZE;
		if (r < 0)
			return r;
	}
}

int envd_child_run(const struct envd_child *c, struct envd_buf *out)
{
	struct timespec start;
	pid_t middle_pid, reader_pid = -1;
	int p[2], r;

	if (clock_gettime(CLOCK_MONOTONIC, &start) != 0)
		return -ECHILD;
	if (pipe2(p, O_CLOEXEC) != 0)
		return -ECHILD;
	middle_pid = fork();
	if (middle_pid < 0) {
		close(p[0]);
		close(p[1]);
		return -ECHILD;
	}
	if (middle_pid == 0) {
		close(p[0]);
		middle(p[1], c);
	}
	close(p[1]);
	reap(middle_pid);
	r = collect(p[0], &start, c->budget_ms, out, &reader_pid);
	/* the pipe is still open at its end: the reader is alive, its pid
	 * is its own */
	if (r < 0 && reader_pid > 0)
		(void)kill(reader_pid, SIGKILL);
	close(p[0]);
	if (r < 0)
		return r;
	if (reader_pid <= 0)
		return -ECHILD; /* the middle process could not start the reader */
	if (out->len == 1 && out->data[0] == SETUP_FAILED)
		return -EPERM;
	return 0;
}
