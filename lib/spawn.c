/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * spawn.c - the login's side of the reader: the user's files are read by
 * a program of its own, exec'd, as pam_unix runs unix_chkpwd.
 *
 * SECURITY.md has the threat model.  The rule kept here: a root process
 * (the login: sshd, login, su, a display manager) never reads anything of
 * the user's itself and never changes its own credentials.  It starts the
 * reader (helper/reader.c), which takes the user's credentials in full,
 * does the work the request names and writes records back; what comes
 * back is input, checked by the caller like any file.
 *
 * The shape, and why:
 *  - An exec, not a fork that goes on running: nothing of the login's
 *    memory (another module's items, sshd's keys), handlers, atfork hooks
 *    or descriptors reaches a process that becomes the user.  Between the
 *    clone and the exec the child runs only system calls: every signal
 *    back to its default, the request on 0, the pipe on 1, /dev/null on
 *    2, every other descriptor closed, the signal mask emptied, exec.
 *  - The program is checked on its descriptor before it runs: a regular
 *    file owned by root (or by the caller, when the caller is not root)
 *    and writable by no one else, reached through directories that only
 *    root may write.  It is exec'd through that descriptor.
 *  - Every signal is blocked in the calling thread around the clone: no
 *    handler of the host's runs in the child.
 *  - The reader is the login's own child, and the only process started:
 *    it forks nothing but the generators, each killed with its process
 *    group.  It is reaped here by its pid, always: at its end, or killed
 *    at the budget's end; no orphan is left for a host that is a
 *    subreaper or PID 1 to inherit.  A host whose SIGCHLD handler reaps
 *    every child may take its status first (then nothing is left to reap,
 *    which is fine), and one that ignores SIGCHLD has the kernel reap it.
 *    The signal goes through a pidfd where the kernel has them (5.3), so
 *    a reader the host reaped can never be mistaken for a new process
 *    with its pid; without one, the reader is signalled only while its
 *    pipe is still open, which it holds until it ends.
 *  - The request travels in a sealed memfd: the login never blocks
 *    writing to a reader that does not read.
 *  - One budget for all of it, from before the clone: past it the reader
 *    is killed and the caller goes on without what it would have said.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loader.h"
#include "proto.h"

#ifndef CLONE_VFORK
#define CLONE_VFORK 0x00004000
#endif
#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif
#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 0x0002U
#endif

/* How long a killed reader is given to end (the kernel lets go of a
 * killed process waiting on FUSE or NFS at once; one in an uninterruptible
 * sleep is left, and said). */
#define KILL_GRACE_MS 250

/* <linux/sched.h>'s clone_args, version 0 (musl has no header for it). */
struct clone_args0 {
	uint64_t flags;
	uint64_t pidfd;
	uint64_t child_tid;
	uint64_t parent_tid;
	uint64_t exit_signal;
	uint64_t stack;
	uint64_t stack_size;
	uint64_t tls;
};

const char *envd_reader_path(const char *override)
{
	return override ? override : ENVD_READER_PATH;
}

/* ---- the program, checked ---- */

/* The reader at path opened O_PATH and checked on the descriptor.  The
 * descriptor, or a negative errno: -ENOENT (missing), -EPERM (refused),
 * another. */
static int open_reader(const char *path)
{
	uid_t me = geteuid();
	struct envd_check chk = {
	    .owner_a = me, .owner_b = 0, .group_ok = (gid_t)-1, .safe_dirs = true};
	enum envd_reason reason = ENVD_R_NONE;
	const char *slash = strrchr(path, '/');
	char *dir;
	struct stat st;
	dev_t dev;
	int dfd, fd;

	if (path[0] != '/' || slash == NULL || slash[1] == '\0')
		return -EINVAL;
	dir = slash == path ? envd_memdup0("/", 1) : envd_memdup0(path, (size_t)(slash - path));
	if (dir == NULL)
		return -ENOMEM;
	/* the checks protect a root caller; any other runs the reader as
	 * itself, and gains nothing from them (its own build tree, group-
	 * writable under umask 002, is fine) */
	if (me == 0)
		dfd = envd_open_dir(dir, &chk, false, &reason, &dev);
	else
		dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (dfd < 0 && me != 0)
		dfd = errno == ENOENT ? -ENOENT : errno == ENOMEM ? -ENOMEM : -EPERM;
	if (dfd < 0)
		return dfd == -ENOENT || dfd == -ENOMEM ? dfd : -EPERM;
	fd = openat(dfd, slash + 1, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : errno == ENOMEM ? -ENOMEM : -EPERM;
	if (fstat(fd, &st) != 0) {
		int e = errno;

		close(fd);
		return e == ENOMEM ? -ENOMEM : -EPERM;
	}
	if (!S_ISREG(st.st_mode) || (st.st_uid != 0 && st.st_uid != me) ||
	    (me == 0 && (st.st_mode & (S_IWGRP | S_IWOTH))) || !(st.st_mode & S_IXUSR)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* ---- the request ---- */

int envd_child_request(const struct envd_child *c, char job, struct envd_buf *req)
{
	struct envd_req_head h;
	uint32_t *groups = NULL;
	size_t ng = c->ids ? c->ids->ngroups : 0;
	int r;

	if (ng > ENVD_REQ_GROUPS)
		return -E2BIG;
	memset(&h, 0, sizeof(h));
	h.version = ENVD_REQ_VERSION;
	h.job = (uint32_t)(unsigned char)job;
	h.budget_ms = c->budget_ms;
	h.memory_bytes = c->memory_bytes;
	h.programs = c->programs;
	if (c->ids) {
		h.switch_ids = 1;
		h.uid = (uint32_t)c->ids->uid;
		h.gid = (uint32_t)c->ids->gid;
		if (ng > 0 && (groups = calloc(ng, sizeof(*groups))) == NULL)
			return -ENOMEM;
		for (size_t i = 0; i < ng; i++)
			groups[i] = (uint32_t)c->ids->groups[i];
	}
	r = envd_rec_put(req, ENVD_REQ_HEAD, &h, sizeof(h), groups, ng * sizeof(*groups), NULL, 0);
	free(groups);
	return r;
}

/* The request in a sealed memfd, at offset 0.  The descriptor or -errno. */
static int request_fd(const struct envd_buf *req)
{
	int fd = (int)syscall(SYS_memfd_create, "envd-request", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return errno == ENOMEM ? -ENOMEM : -ECHILD;
	if (envd_write_all(fd, req->data, req->len) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -EIO;
	}
	/* best effort: the reader only reads it */
	(void)fcntl(fd, F_ADD_SEALS, 0x0001 | 0x0002 | 0x0004 | 0x0008); /* SEAL_* */
	return fd;
}

/* ---- the child, between the clone and the exec: system calls only ---- */

/* In the child, system calls only: no function of the C library's that
 * keeps state (or that a test wraps) runs between the clone and the exec.
 * sigaction and sigprocmask are the library's thin wrappers. */
static void close_from(int lo, int hi)
{
	if (lo > hi)
		return;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)lo, (unsigned)hi, 0u) == 0)
		return;
#endif
	/* without close_range (before 5.9) the reader closes the rest after
	 * its exec, from /proc/self/fd (helper/reader.c) */
	for (int fd = lo; fd <= hi && fd < 65536; fd++)
		(void)syscall(SYS_close, fd);
}

/* fd moved to 3 or above (close-on-exec), then dup'd onto to. */
static bool move_to(int fd, int to)
{
	fd = (int)syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 3);
	return fd >= 0 && syscall(SYS_dup3, fd, to, 0) == to;
}

static _Noreturn void child(int exe, int in, int out, int nul)
{
	static char *const argv[] = {(char *)"pam_envd-reader", NULL};
	static char *const envp[] = {NULL};
	struct sigaction sa;
	sigset_t none;

	/* a session of its own, so that nothing sent to the host's process
	 * group (a terminal's ^C, a storm) reaches it; then every signal
	 * ignored, which discards what came while blocked (pending, since a
	 * blocked signal is never ignored on arrival); then back to the
	 * defaults */
	(void)syscall(SYS_setsid);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	for (int s = 1; s < NSIG; s++)
		(void)sigaction(s, &sa, NULL); /* EINVAL for SIGKILL, SIGSTOP */
	sa.sa_handler = SIG_DFL;
	for (int s = 1; s < NSIG; s++)
		(void)sigaction(s, &sa, NULL);
	/* each above 2 first, so that no dup3 overwrites another */
	nul = (int)syscall(SYS_fcntl, nul, F_DUPFD_CLOEXEC, 3);
	in = (int)syscall(SYS_fcntl, in, F_DUPFD_CLOEXEC, 3);
	if (nul < 0 || in < 0 || !move_to(in, 0) || !move_to(out, 1) ||
	    syscall(SYS_dup3, nul, 2, 0) != 2)
		syscall(SYS_exit_group, ENVD_READER_NO_EXEC);
	/* exe is close-on-exec: it stays open until the exec needs it */
	close_from(3, exe - 1);
	close_from(exe + 1, INT32_MAX);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	(void)syscall(SYS_execveat, exe, "", argv, envp, AT_EMPTY_PATH);
	syscall(SYS_exit_group, ENVD_READER_NO_EXEC);
	for (;;)
		;
}

/* A child, the parent held until it has exec'd (or ended).  Its pid,
 * *pidfd where the kernel gives one, or -errno. */
static pid_t spawn_reader(int exe, int in, int out, int nul, int *pidfd)
{
	struct clone_args0 ca;
	sigset_t all, old;
	long pid;

	*pidfd = -1;
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_VFORK | CLONE_PIDFD;
	ca.pidfd = (uint64_t)(uintptr_t)pidfd;
	ca.exit_signal = SIGCHLD;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
#ifdef SYS_clone3
	pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid < 0 && (errno == ENOSYS || errno == EPERM || errno == E2BIG || errno == EINVAL)) {
		*pidfd = -1;
#else
	{
#endif
		/* before 5.3: clone's flags hold the exit signal; every other
		 * argument is 0, whatever their order on this machine */
		pid =
		    syscall(SYS_clone, (unsigned long)(CLONE_VFORK | SIGCHLD), 0UL, 0UL, 0UL, 0UL);
	}
	if (pid == 0)
		child(exe, in, out, nul);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid < 0)
		return -errno;
	return (pid_t)pid;
}

/* ---- the caller's side ---- */

/* Waits within the budget until fd can be read, and reads into out at
 * most want bytes, straight into it (a stream that fits the pipe arrives
 * in one read).  1 after a read, 0 at the end of the pipe, -ETIMEDOUT,
 * -EMSGSIZE when out is full and more comes, -ENOMEM, -EIO. */
static int read_some(int fd, const struct timespec *until, struct envd_buf *out, size_t want)
{
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		long left = envd_ms_until(until), room;
		ssize_t n;
		char over;
		int r;

		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&p, 1, (int)left);
		if (r == 0)
			return -ETIMEDOUT;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -EIO;
		room = envd_buf_room(out, want);
		if (room < 0)
			return -ENOMEM;
		n = room ? read(fd, out->data + out->len, (size_t)room) : read(fd, &over, 1);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return errno == ENOMEM ? -ENOMEM : -EIO;
		if (n == 0)
			return 0;
		if (room == 0)
			return -EMSGSIZE;
		out->len += (size_t)n;
		return 1;
	}
}

/* Reads the pipe to its end into out within the budget.  0 at the end,
 * or read_some's errors. */
static int collect(int fd, const struct timespec *until, struct envd_buf *out)
{
	int r;

	while ((r = read_some(fd, until, out, 65536)) > 0)
		;
	return r;
}

/* Reaps pid within ms.  True with *status when it ended (or another
 * reaped it).  With a pidfd: one poll for its end, then the wait. */
bool envd_reap_until(pid_t pid, int pidfd, const struct timespec *until, int *status)
{
	if (pidfd >= 0) {
		struct pollfd p = {.fd = pidfd, .events = POLLIN};
		long ms = envd_ms_until(until);

		if (ms > 0)
			(void)poll(&p, 1, (int)ms);
	}
	for (;;) {
		pid_t w = waitpid(pid, status, WNOHANG);
		struct timespec pause = {.tv_sec = 0, .tv_nsec = 1000000};

		if (w == pid)
			return true;
		if (w < 0 && errno != EINTR)
			return true; /* not ours to reap any more: nothing is left */
		if (envd_ms_until(until) <= 0)
			return false;
		(void)nanosleep(&pause, NULL);
	}
}

/* envd_reap_until, within ms from now. */
static bool reap_within(pid_t pid, int pidfd, long ms, int *status)
{
	struct timespec until;

	if (!envd_deadline(ms > 0 ? (size_t)ms : 0, &until))
		return envd_reap_until(pid, pidfd, &(struct timespec){0}, status);
	return envd_reap_until(pid, pidfd, &until, status);
}

/* Kills the reader: through its pidfd, else by its pid while it still
 * holds its pipe open (open: it has not ended, so no one has reaped it
 * and the pid is its own). */
static void kill_reader(pid_t pid, int pidfd, bool pipe_open)
{
#ifdef SYS_pidfd_send_signal
	if (pidfd >= 0) {
		(void)syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0u);
		return;
	}
#endif
	if (pipe_open)
		(void)kill(pid, SIGKILL);
}

/* A reader started: its pid, pidfd, the pipe it answers on, and while it
 * waits for its job (a look-up's), the write end of its input. */
struct envd_reader {
	pid_t pid;
	int pidfd, out, in;
	struct timespec until; /* the end of its budget */
};

/* Starts the reader on req: in a sealed memfd, or with keep_open in a
 * pipe whose write end stays the caller's (rd->in) for the job that
 * follows.  0, or what envd_child_run returns before the reader runs. */
static int start_reader(const struct envd_child *c, const struct envd_buf *req, bool keep_open,
                        struct envd_reader *rd)
{
	int exe, in = -1, p[2], nul = -1, r = 0;

	*rd = (struct envd_reader){.pid = -1, .pidfd = -1, .out = -1, .in = -1};
	if (!envd_deadline(c->budget_ms, &rd->until))
		return -ECHILD;
	exe = open_reader(envd_reader_path(c->reader));
	if (exe == -ENOMEM)
		return -ENOMEM;
	if (exe < 0)
		return exe == -ENOENT ? -ENOENT : -EACCES;
	if (!keep_open) {
		in = request_fd(req);
		r = in < 0 ? in : 0;
	} else if (pipe2(p, O_CLOEXEC) != 0) {
		r = -ECHILD;
	} else {
		/* the look-up's few bytes, and the job's after it, fit the
		 * pipe: no write of the caller's can block (O_NONBLOCK on its
		 * end only, to make sure) */
		in = p[0];
		rd->in = p[1];
		if (fcntl(rd->in, F_SETFL, O_NONBLOCK) != 0 ||
		    envd_write_all(rd->in, req->data, req->len) != 0)
			r = -ECHILD;
	}
	if (r == 0 && (nul = open("/dev/null", O_RDWR | O_CLOEXEC | O_NOCTTY)) < 0)
		r = errno == ENOMEM ? -ENOMEM : -ECHILD;
	if (r == 0 && pipe2(p, O_CLOEXEC) != 0)
		r = -ECHILD; /* the kernel's trouble: no reader */
	if (r == 0) {
		rd->pid = spawn_reader(exe, in, p[1], nul, &rd->pidfd);
		close(p[1]);
		rd->out = p[0];
		if (rd->pid < 0)
			r = -ECHILD;
	}
	close(exe);
	if (in >= 0)
		close(in);
	if (nul >= 0)
		close(nul);
	if (r < 0) {
		if (rd->in >= 0)
			close(rd->in);
		if (rd->out >= 0)
			close(rd->out);
		rd->in = rd->out = -1;
	}
	return r;
}

/* Gives the reader the rest of its input (more, may be NULL), reads its
 * answer to the end within the budget, and ends it.  envd_child_run's
 * returns. */
static int finish_reader(struct envd_reader *rd, const struct envd_buf *more, struct envd_buf *out)
{
	int status = 0, r = 0;

	if (rd->in >= 0) {
		/* a job's few records after a look-up: they fit the pipe */
		if (more != NULL && more->len > 0 &&
		    envd_write_all(rd->in, more->data, more->len) != 0)
			r = -EIO;
		close(rd->in);
		rd->in = -1;
	}
	if (r == 0)
		r = collect(rd->out, &rd->until, out);
	if (r < 0)
		kill_reader(rd->pid, rd->pidfd, true);
	close(rd->out);
	rd->out = -1;
	if (r == 0 && !reap_within(rd->pid, rd->pidfd, envd_ms_until(&rd->until), &status)) {
		r = -ETIMEDOUT;
		kill_reader(rd->pid, rd->pidfd, false);
	}
	if (r < 0)
		(void)reap_within(rd->pid, rd->pidfd, KILL_GRACE_MS, &status);
	if (rd->pidfd >= 0)
		close(rd->pidfd);
	rd->pidfd = -1;
	if (r < 0)
		return r;
	if (WIFEXITED(status) && WEXITSTATUS(status) == ENVD_READER_NO_EXEC && out->len == 0)
		return -ENOEXEC;
	if (out->len == 1 && out->data[0] == ENVD_READER_SETUP_FAILED)
		return -EPERM;
	return 0;
}

int envd_child_run(const struct envd_child *c, const struct envd_buf *req, struct envd_buf *out)
{
	struct envd_reader rd;
	int r = start_reader(c, req, false, &rd);

	return r < 0 ? r : finish_reader(&rd, NULL, out);
}

/* ---- the look-up ---- */

/* Reads from the reader until out holds one whole record.  0, or
 * collect's errors; -EBADMSG at the end of its answer before that. */
static int collect_record(struct envd_reader *rd, struct envd_buf *out)
{
	for (;;) {
		uint32_t len;
		int r;

		if (out->len >= sizeof(len)) {
			memcpy(&len, out->data, sizeof(len));
			if (len > 0 && out->len - sizeof(len) >= len)
				return 0;
		}
		r = read_some(rd->out, &rd->until, out, 4096);
		if (r < 0)
			return r;
		if (r == 0)
			return out->len == 1 && out->data[0] == ENVD_READER_SETUP_FAILED ? -EPERM
			                                                                 : -EBADMSG;
	}
}

void envd_who_free(struct envd_who *who)
{
	free(who->name);
	free(who->dir);
	free(who->shell);
	free(who->groups);
	if (who->group_names != NULL)
		for (size_t i = 0; i < who->ngroups; i++)
			free(who->group_names[i]);
	free(who->group_names);
	memset(who, 0, sizeof(*who));
}

/* A string of the answer: n bytes at *p, no NUL in them. */
static char *take_str(const char **p, size_t n)
{
	char *s = memchr(*p, '\0', n) ? NULL : envd_memdup0(*p, n);

	*p += n;
	return s;
}

/* The answer: REC_WHO, checked.  0, -ESRCH (no such user), -EBADMSG,
 * -ENOMEM. */
int envd_who_records(const char *in, size_t n, bool names, struct envd_who *who)
{
	struct envd_rec_who w;
	const char *body, *p, *end;
	size_t pos = 0, len;
	char type;

	if (!envd_rec_next(in, n, &pos, &type, &body, &len) || type != ENVD_REC_WHO ||
	    len < sizeof(w))
		return -EBADMSG;
	memcpy(&w, body, sizeof(w));
	if (w.r != 0)
		return w.r == -ENOENT ? -ESRCH : -EBADMSG;
	if (w.ngroups > ENVD_REQ_GROUPS || w.name_len == 0 || w.name_len > 4096 ||
	    w.dir_len > 4096 || w.shell_len > 4096 || (!names && w.names_len != 0) ||
	    len - sizeof(w) != (size_t)w.name_len + w.dir_len + w.shell_len +
	                           (size_t)w.ngroups * sizeof(uint32_t) + w.names_len)
		return -EBADMSG;
	p = body + sizeof(w);
	who->uid = (uid_t)w.uid;
	who->gid = (gid_t)w.gid;
	who->name = take_str(&p, w.name_len);
	who->dir = take_str(&p, w.dir_len);
	who->shell = take_str(&p, w.shell_len);
	if (!who->name || !who->dir || !who->shell)
		return -EBADMSG;
	who->ngroups = w.ngroups;
	who->groups = calloc(w.ngroups + 1, sizeof(*who->groups));
	if (who->groups == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < w.ngroups; i++, p += sizeof(uint32_t)) {
		uint32_t g;

		memcpy(&g, p, sizeof(g));
		who->groups[i] = (gid_t)g;
	}
	if (!names)
		return 0;
	who->group_names = calloc(w.ngroups + 1, sizeof(*who->group_names));
	if (who->group_names == NULL)
		return -ENOMEM;
	end = p + w.names_len;
	for (size_t i = 0; i < w.ngroups; i++) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));

		if (nul == NULL)
			return -EBADMSG;
		who->group_names[i] = envd_memdup0(p, (size_t)(nul - p));
		if (who->group_names[i] == NULL)
			return -ENOMEM;
		p = nul + 1;
	}
	return p == end ? 0 : -EBADMSG;
}

int envd_reader_lookup(const char *user, const struct envd_child *c, bool names,
                       struct envd_reader **out_rd, struct envd_who *who)
{
	struct envd_req_lookup q;
	struct envd_req_head h;
	struct envd_reader *rd;
	struct envd_buf req, ans;
	int r;

	*out_rd = NULL;
	memset(who, 0, sizeof(*who));
	rd = calloc(1, sizeof(*rd));
	if (rd == NULL)
		return -ENOMEM;
	memset(&h, 0, sizeof(h));
	h.version = ENVD_REQ_VERSION;
	h.job = ENVD_JOB_USER;
	h.switch_ids = 1;
	h.lookup = 1;
	h.budget_ms = c->budget_ms;
	h.memory_bytes = c->memory_bytes;
	memset(&q, 0, sizeof(q));
	q.group_names = names;
	envd_buf_init(&req, 0);
	envd_buf_init(&ans, 1u << 20);
	r = envd_rec_put(&req, ENVD_REQ_HEAD, &h, sizeof(h), NULL, 0, NULL, 0);
	if (r == 0)
		r = envd_rec_put(&req, ENVD_REQ_LOOKUP, &q, sizeof(q), user, strlen(user), NULL, 0);
	if (r == 0)
		r = start_reader(c, &req, true, rd);
	envd_buf_free(&req);
	if (r < 0) {
		free(rd);
		return r;
	}
	r = collect_record(rd, &ans);
	if (r == 0)
		r = envd_who_records(ans.data, ans.len, names, who);
	envd_buf_free(&ans);
	if (r < 0) {
		struct envd_buf none;
		int e;

		envd_who_free(who);
		envd_buf_init(&none, 1);
		/* -ESRCH: the reader ends by itself; else it is killed */
		if (r != -ESRCH)
			kill_reader(rd->pid, rd->pidfd, true);
		e = finish_reader(rd, NULL, &none);
		envd_buf_free(&none);
		free(rd);
		(void)e;
		return r;
	}
	*out_rd = rd;
	return 0;
}

int envd_reader_job(struct envd_reader *rd, const struct envd_buf *job, struct envd_buf *out)
{
	int r = finish_reader(rd, job, out);

	free(rd);
	return r;
}

void envd_reader_close(struct envd_reader *rd)
{
	int status;

	if (rd == NULL)
		return;
	/* no job: the end of its input ends it, with nothing more to say */
	close(rd->in);
	close(rd->out);
	if (!reap_within(rd->pid, rd->pidfd, envd_ms_until(&rd->until), &status)) {
		kill_reader(rd->pid, rd->pidfd, false);
		(void)reap_within(rd->pid, rd->pidfd, KILL_GRACE_MS, &status);
	}
	if (rd->pidfd >= 0)
		close(rd->pidfd);
	free(rd);
}
