/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* reader_start.c - what starting the reader costs, timed apart.
 *
 *   reader_start [-n N] [-l USER] PROGRAM
 *
 * Starts PROGRAM (helper/reader, or bench/floor_helper) N times (default
 * 1) the way lib/spawn.c starts the reader: opened O_PATH, every signal
 * blocked around a clone that holds the caller until the exec (clone3,
 * else clone), the input on 0, a pipe on 1, /dev/null on 2, every other
 * descriptor closed, exec'd through the descriptor with an empty
 * environment.  Without -l its input is empty: the program runs up to
 * its first read, finds the end and exits, and the time is the clone to
 * the end of its output (its start, that read and its exit).  With -l the
 * input is the look-up a root login sends (lib/proto.h: REQ_HEAD with
 * lookup, REQ_LOOKUP with USER), and the time is the clone to its answer
 * (one whole record, REC_WHO: the start and the user's look-up through
 * NSS); the input then ends, which ends the reader.  Each start is
 * reaped before the next.  Prints one line: N, then the median, first and
 * third quartile of the times in microseconds.  Exit status 0, 1 on a
 * failure, 2 on a usage error.  Needs root for -l (the reader looks up
 * as root only).  A measuring stick for bench/run.py.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto.h"

struct clone_args0 {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

static _Noreturn void child(int exe, int in, int out, int nul)
{
	static char *const argv[] = {(char *)"pam_envd-reader", NULL};
	static char *const envp[] = {NULL};
	sigset_t none;

	in = (int)syscall(SYS_fcntl, in, F_DUPFD_CLOEXEC, 3);
	out = (int)syscall(SYS_fcntl, out, F_DUPFD_CLOEXEC, 3);
	nul = (int)syscall(SYS_fcntl, nul, F_DUPFD_CLOEXEC, 3);
	if (in < 0 || out < 0 || nul < 0 || syscall(SYS_dup3, in, 0, 0) != 0 ||
	    syscall(SYS_dup3, out, 1, 0) != 1 || syscall(SYS_dup3, nul, 2, 0) != 2)
		syscall(SYS_exit_group, 127);
	if (exe > 3)
		(void)syscall(SYS_close_range, 3u, (unsigned)exe - 1, 0u);
	(void)syscall(SYS_close_range, (unsigned)exe + 1, ~0u, 0u);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	(void)syscall(SYS_execveat, exe, "", argv, envp, AT_EMPTY_PATH);
	syscall(SYS_exit_group, 127);
	for (;;)
		;
}

static pid_t spawn(int exe, int in, int out, int nul)
{
	struct clone_args0 ca = {.flags = 0x00004000 /* CLONE_VFORK */, .exit_signal = SIGCHLD};
	sigset_t all, old;
	long pid;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid < 0)
		pid = syscall(SYS_clone, (unsigned long)(0x00004000 | SIGCHLD), 0UL, 0UL, 0UL, 0UL);
	if (pid == 0)
		child(exe, in, out, nul);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return (pid_t)pid;
}

static void put(char *buf, size_t *len, char type, const void *a, size_t na, const void *b,
                size_t nb)
{
	uint32_t l = (uint32_t)(1 + na + nb);

	memcpy(buf + *len, &l, sizeof(l));
	buf[*len + sizeof(l)] = type;
	memcpy(buf + *len + sizeof(l) + 1, a, na);
	if (nb)
		memcpy(buf + *len + sizeof(l) + 1 + na, b, nb);
	*len += sizeof(l) + 1 + na + nb;
}

static double us_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e6 + (double)(t.tv_nsec - t0->tv_nsec) / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* One start: the time to its answer (with a request) or to the end of its
 * output.  Negative on a failure. */
static double once(int exe, const char *req, size_t len, int nul)
{
	int in[2], out[2], status;
	char buf[8192];
	size_t got = 0;
	uint32_t rl;
	struct timespec t0;
	double us = -1;
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
		return -1;
	if (len && write(in[1], req, len) != (ssize_t)len)
		return -1;
	if (!len)
		close(in[1]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = spawn(exe, in[0], out[1], nul);
	close(in[0]);
	close(out[1]);
	if (pid < 0)
		return -1;
	for (;;) {
		ssize_t n = read(out[0], buf + got, sizeof(buf) - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!len)
				us = us_since(&t0);
			break;
		}
		got += (size_t)n;
		if (len && got >= sizeof(rl)) {
			memcpy(&rl, buf, sizeof(rl));
			if (got - sizeof(rl) >= rl) {
				us = us_since(&t0);
				break;
			}
		}
		if (got == sizeof(buf))
			break;
	}
	if (len) {
		/* a whole REC_WHO that says the user was found */
		struct envd_rec_who w;

		if (us >= 0 && (buf[sizeof(rl)] != ENVD_REC_WHO || rl < 1 + sizeof(w)))
			us = -1;
		if (us >= 0) {
			memcpy(&w, buf + sizeof(rl) + 1, sizeof(w));
			if (w.r != 0)
				us = -1;
		}
		close(in[1]);
	}
	close(out[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return us;
}

int main(int argc, char **argv)
{
	const char *user = NULL;
	char req[4096];
	size_t len = 0;
	long n = 1;
	double *t;
	int c, exe, nul;

	while ((c = getopt(argc, argv, "n:l:")) != -1) {
		if (c == 'n')
			n = strtol(optarg, NULL, 10);
		else if (c == 'l')
			user = optarg;
		else
			goto usage;
	}
	if (argc - optind != 1 || n < 1 || n > 1000000 || (user && strlen(user) > 256))
		goto usage;
	if (user) {
		struct envd_req_head h;
		struct envd_req_lookup q;

		memset(&h, 0, sizeof(h));
		memset(&q, 0, sizeof(q));
		h.version = ENVD_REQ_VERSION;
		h.job = ENVD_JOB_USER;
		h.switch_ids = 1;
		h.lookup = 1;
		h.budget_ms = 3000;
		h.memory_bytes = 64u << 20;
		put(req, &len, ENVD_REQ_HEAD, &h, sizeof(h), NULL, 0);
		put(req, &len, ENVD_REQ_LOOKUP, &q, sizeof(q), user, strlen(user));
	}
	exe = open(argv[optind], O_PATH | O_CLOEXEC);
	nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	t = calloc((size_t)n, sizeof(*t));
	if (exe < 0 || nul < 0 || t == NULL) {
		fprintf(stderr, "reader_start: cannot open %s\n", argv[optind]);
		return 1;
	}
	for (long i = 0; i < n; i++) {
		t[i] = once(exe, req, len, nul);
		if (t[i] < 0) {
			fprintf(stderr, "reader_start: start %ld of %s failed\n", i + 1,
			        argv[optind]);
			return 1;
		}
	}
	qsort(t, (size_t)n, sizeof(*t), cmp);
	printf("%ld %.1f %.1f %.1f\n", n, t[n / 2], t[n / 4], t[(3 * n) / 4]);
	return 0;
usage:
	fprintf(stderr, "usage: reader_start [-n N] [-l USER] PROGRAM\n");
	return 2;
}
