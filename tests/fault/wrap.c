/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* wrap.c - the __wrap_* functions the test module's calls are bound to.
 *
 * Each one asks hit() whether this call is the one to fail; if so it fails
 * the way the real function does (a NULL or -1 with errno, a PAM error
 * code), else it calls the real function, which from here is the plain
 * symbol: the driver is not linked with --wrap (under ASan that is ASan's
 * interceptor, so LeakSanitizer still sees every allocation).  Allocations
 * are also tracked, so that a run can be checked for leaks in every build. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <security/pam_ext.h>

#include "fault.h"

/* glibc's fortified entry points, for builds with _FORTIFY_SOURCE */
extern int __open_2(const char *path, int flags);
extern int __openat_2(int dirfd, const char *path, int flags);
extern ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen);

#define NOMEM  {{ENOMEM, "ENOMEM"}}, 1
#define FILEIO {{EACCES, "EACCES"}, {EIO, "EIO"}, {ENOMEM, "ENOMEM"}}, 3

const struct fault_fninfo fault_fns[F_COUNT] = {
    [F_MALLOC] = {"malloc", NOMEM},
    [F_CALLOC] = {"calloc", NOMEM},
    [F_REALLOC] = {"realloc", NOMEM},
    [F_REALLOCARRAY] = {"reallocarray", NOMEM},
    [F_STRNDUP] = {"strndup", NOMEM},
    [F_OPEN] = {"open", FILEIO},
    [F_OPENAT] = {"openat", FILEIO},
    [F_READ] = {"read", {{EIO, "EIO"}, {EINTR, "EINTR"}, {ENOMEM, "ENOMEM"}}, 3},
    [F_FSTAT] = {"fstat", {{EIO, "EIO"}, {ENOMEM, "ENOMEM"}}, 2},
    [F_FSTATAT] = {"fstatat", FILEIO},
    [F_FSTATFS] = {"fstatfs", {{EIO, "EIO"}, {ENOMEM, "ENOMEM"}}, 2},
    [F_CLOSE] = {"close", {{EIO, "EIO (fd released)"}}, 1},
    [F_FDOPENDIR] = {"fdopendir", NOMEM},
    [F_READDIR] = {"readdir", {{EIO, "EIO"}}, 1},
    [F_CLOSEDIR] = {"closedir", {{EIO, "EIO (closed)"}}, 1},
    [F_CLOCKTIME] = {"clock_gettime", {{EINVAL, "EINVAL"}}, 1},
    [F_READLINKAT] = {"readlinkat", FILEIO},
    [F_GETGROUPLIST] = {"getgrouplist", {{0, "-1"}}, 1},
    [F_GETGRNAM_R] = {"getgrnam_r", {{EIO, "EIO"}, {ENOMEM, "ENOMEM"}}, 2},
    [F_GETPWNAM_R] = {"getpwnam_r", {{EIO, "EIO"}, {ENOMEM, "ENOMEM"}}, 2},
    [F_GETRANDOM] = {"getrandom", {{EAGAIN, "EAGAIN"}}, 1},
    [F_PIPE2] = {"pipe2", {{EMFILE, "EMFILE"}}, 1},
    [F_FORK] = {"fork", {{EAGAIN, "EAGAIN"}, {ENOMEM, "ENOMEM"}}, 2},
    [F_POLL] = {"poll", {{EINTR, "EINTR"}, {ENOMEM, "ENOMEM"}}, 2},
    [F_DUP2] = {"dup2", {{EBADF, "EBADF"}}, 1},
    [F_FCNTL] = {"fcntl", {{EMFILE, "EMFILE"}}, 1},
    [F_PAM_GET_ITEM] = {"pam_get_item", {{0, "PAM_SYSTEM_ERR"}}, 1},
    [F_PAM_GET_DATA] = {"pam_get_data", {{0, "PAM_SYSTEM_ERR"}}, 1},
    [F_PAM_SET_DATA] = {"pam_set_data", {{0, "PAM_BUF_ERR"}}, 1},
    [F_PAM_GETENVLIST] = {"pam_getenvlist", {{ENOMEM, "NULL"}}, 1},
    [F_PAM_GETENV] = {"pam_getenv", {{0, "NULL"}}, 1},
    [F_PAM_PUTENV] = {"pam_putenv", {{0, "PAM_BUF_ERR"}}, 1},
    [F_PAM_GETPWNAM] = {"pam_modutil_getpwnam", {{ENOMEM, "NULL"}}, 1},
};

struct fault_state fault;

/* ---- allocation tracking: an open-addressing set of live pointers ---- */

#define TRACK_SLOTS (1u << 16)
#define TOMB        ((void *)1)

static void *slots[TRACK_SLOTS];

static size_t slot_of(const void *p)
{
	return (size_t)(((uintptr_t)p >> 4) * 0x9e3779b97f4a7c15ULL >> 16) & (TRACK_SLOTS - 1);
}

static void track(void *p)
{
	size_t i;

	if (p == NULL)
		return;
	if (fault.live >= TRACK_SLOTS / 2)
		abort(); /* far more than one login allocates */
	for (i = slot_of(p); slots[i] != NULL && slots[i] != TOMB; i = (i + 1) & (TRACK_SLOTS - 1))
		;
	slots[i] = p;
	fault.live++;
	fault.allocs++;
}

static void untrack(void *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = slot_of(p); slots[i] != NULL; i = (i + 1) & (TRACK_SLOTS - 1))
		if (slots[i] == p) {
			slots[i] = TOMB;
			fault.live--;
			fault.frees++;
			return;
		}
	fault.foreign_frees++;
}

void fault_reset(unsigned long fail_at, int variant)
{
	for (size_t i = 0; i < fault.nput; i++)
		free(fault.put[i]);
	fault.nput = 0;
	memset(slots, 0, sizeof(slots)); /* a leak was reported by the run that made it */
	fault.live = 0;
	fault.armed = false;
	fault.calls = 0;
	fault.fail_at = fail_at;
	fault.variant = variant;
	fault.fail_every = 0;
	fault.injected = 0;
	fault.injected_fn = -1;
	fault.allocs = 0;
	fault.frees = 0;
	fault.window_reads = 0;
	fault.window_reads_with_caps = 0;
	fault.foreign_frees = 0;
}

/* ---- injection ---- */

static bool hit(enum fault_fn fn, const void *caller)
{
	unsigned long n;

	if (!fault.armed)
		return false;
	n = ++fault.calls;
	if (n <= FAULT_LOG_MAX)
		fault.log[n - 1] = (struct fault_call){(unsigned char)fn, caller};
	if (n != fault.fail_at && !(fault.fail_every & (1ull << fn)))
		return false;
	fault.injected++;
	fault.injected_fn = (int)fn;
	return true;
}

/* The variant asked for, for this function. */
static int variant_of(enum fault_fn fn)
{
	int v = fault.variant;

	return v >= 0 && v < fault_fns[fn].nv ? v : 0;
}

static int errno_of(enum fault_fn fn)
{
	return fault_fns[fn].v[variant_of(fn)].err;
}

#define HIT(fn) hit(fn, __builtin_return_address(0))
/* fails the call: errno set, ret returned */
#define FAIL_IF_HIT(fn, ret)                                                                       \
	do {                                                                                       \
		if (HIT(fn)) {                                                                     \
			errno = errno_of(fn);                                                      \
			return ret;                                                                \
		}                                                                                  \
	} while (0)

/* ---- memory ---- */

void *__wrap_malloc(size_t n)
{
	void *p;

	FAIL_IF_HIT(F_MALLOC, NULL);
	p = malloc(n);
	track(p);
	return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
	void *p;

	FAIL_IF_HIT(F_CALLOC, NULL);
	p = calloc(n, size);
	track(p);
	return p;
}

/* old leaves the set before the call (it may be freed) and comes back if
 * it was not. */
static void *resized(void *old, void *p, bool freed_old)
{
	if (p != NULL)
		track(p);
	else if (!freed_old && old != NULL)
		track(old);
	return p;
}

void *__wrap_realloc(void *old, size_t n)
{
	FAIL_IF_HIT(F_REALLOC, NULL);
	untrack(old);
	/* glibc's realloc(p, 0) frees p and returns NULL */
	return resized(old, realloc(old, n), n == 0);
}

void *__wrap_reallocarray(void *old, size_t n, size_t size)
{
	FAIL_IF_HIT(F_REALLOCARRAY, NULL);
	untrack(old);
	return resized(old, reallocarray(old, n, size), n == 0 || size == 0);
}

char *__wrap_strndup(const char *s, size_t n)
{
	char *p;

	FAIL_IF_HIT(F_STRNDUP, NULL);
	p = strndup(s, n);
	track(p);
	return p;
}

void __wrap_free(void *p)
{
	untrack(p);
	free(p);
}

/* ---- files ---- */

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

int __wrap_open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	FAIL_IF_HIT(F_OPEN, -1);
	return open(path, flags, mode);
}

int __wrap_open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	FAIL_IF_HIT(F_OPEN, -1);
	return open64(path, flags, mode);
}

int __wrap___open_2(const char *path, int flags)
{
	FAIL_IF_HIT(F_OPEN, -1);
	return __open_2(path, flags);
}

int __wrap_openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	FAIL_IF_HIT(F_OPENAT, -1);
	return openat(dirfd, path, flags, mode);
}

int __wrap_openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_arg(flags, ap);
	va_end(ap);
	FAIL_IF_HIT(F_OPENAT, -1);
	return openat64(dirfd, path, flags, mode);
}

int __wrap___openat_2(int dirfd, const char *path, int flags)
{
	FAIL_IF_HIT(F_OPENAT, -1);
	return __openat_2(dirfd, path, flags);
}

/* The login process never reads with another identity than its own (the
 * user's files are read by a child that is the user, lib/child.c): a read
 * with a file-system uid other than root's, in a root process, is counted
 * for the driver to fail, and so is one without the effective
 * capabilities the process started with cleared (a window's).  A disarmed
 * child (the reader) is not counted. */
static void note_window_read(void)
{
	struct {
		uint32_t version;
		int pid;
	} h = {0x20080522u, 0};
	struct {
		uint32_t effective, permitted, inheritable;
	} d[2];

	if (!fault.armed || geteuid() != 0 || (uid_t)setfsuid((uid_t)-1) == 0)
		return;
	fault.window_reads++;
	if (syscall(SYS_capget, &h, d) != 0 || d[0].effective != 0 || d[1].effective != 0)
		fault.window_reads_with_caps++;
}

ssize_t __wrap_read(int fd, void *buf, size_t n)
{
	FAIL_IF_HIT(F_READ, -1);
	note_window_read();
	return read(fd, buf, n);
}

ssize_t __wrap___read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	FAIL_IF_HIT(F_READ, -1);
	note_window_read();
	return __read_chk(fd, buf, n, buflen);
}

int __wrap_fstat(int fd, struct stat *st)
{
	FAIL_IF_HIT(F_FSTAT, -1);
	return fstat(fd, st);
}

int __wrap_fstat64(int fd, struct stat64 *st)
{
	FAIL_IF_HIT(F_FSTAT, -1);
	return fstat64(fd, st);
}

int __wrap_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	FAIL_IF_HIT(F_FSTATAT, -1);
	return fstatat(dirfd, path, st, flags);
}

int __wrap_fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	FAIL_IF_HIT(F_FSTATAT, -1);
	return fstatat64(dirfd, path, st, flags);
}

int __wrap_fstatfs(int fd, struct statfs *sf)
{
	FAIL_IF_HIT(F_FSTATFS, -1);
	return fstatfs(fd, sf);
}

int __wrap_fstatfs64(int fd, struct statfs64 *sf)
{
	FAIL_IF_HIT(F_FSTATFS, -1);
	return fstatfs64(fd, sf);
}

/* close and closedir release the descriptor even when they report an
 * error (Linux): do that, then report it. */
int __wrap_close(int fd)
{
	int r = close(fd);

	FAIL_IF_HIT(F_CLOSE, -1);
	return r;
}

DIR *__wrap_fdopendir(int fd)
{
	FAIL_IF_HIT(F_FDOPENDIR, NULL);
	return fdopendir(fd);
}

struct dirent *__wrap_readdir(DIR *d)
{
	FAIL_IF_HIT(F_READDIR, NULL);
	return readdir(d);
}

int __wrap_closedir(DIR *d)
{
	int r = closedir(d);

	FAIL_IF_HIT(F_CLOSEDIR, -1);
	return r;
}

/* The module calls syscall(2) only in its reader child (capget, capset,
 * close_range), where nothing is counted: every number passes through
 * untouched (six arguments, as the kernel takes). */
long __wrap_syscall(long n, ...)
{
	long a[6];
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	return syscall(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}

ssize_t __wrap_readlinkat(int dirfd, const char *path, char *buf, size_t n)
{
	FAIL_IF_HIT(F_READLINKAT, -1);
	return readlinkat(dirfd, path, buf, n);
}

int __wrap_clock_gettime(clockid_t clock, struct timespec *ts)
{
	FAIL_IF_HIT(F_CLOCKTIME, -1);
	return clock_gettime(clock, ts);
}

/* ---- identity and processes ---- */

int __wrap_getgrouplist(const char *user, gid_t group, gid_t *groups, int *ngroups)
{
	if (HIT(F_GETGROUPLIST))
		return -1;
	return getgrouplist(user, group, groups, ngroups);
}

/* fails as NSS does: the error number returned, no entry */
int __wrap_getgrnam_r(const char *name, struct group *gr, char *buf, size_t size,
                      struct group **res)
{
	if (HIT(F_GETGRNAM_R)) {
		*res = NULL;
		return errno_of(F_GETGRNAM_R);
	}
	return getgrnam_r(name, gr, buf, size, res);
}

/* the private-group rule's look-up of the group's name as an account */
int __wrap_getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t size,
                      struct passwd **res)
{
	if (HIT(F_GETPWNAM_R)) {
		*res = NULL;
		return errno_of(F_GETPWNAM_R);
	}
	return getpwnam_r(name, pw, buf, size, res);
}

int __wrap_pipe2(int fds[2], int flags)
{
	FAIL_IF_HIT(F_PIPE2, -1);
	return pipe2(fds, flags);
}

/* A child's calls are not the run's: it disarms itself. */
pid_t __wrap_fork(void)
{
	pid_t pid;

	FAIL_IF_HIT(F_FORK, -1);
	pid = fork();
	if (pid == 0)
		fault.armed = false;
	return pid;
}

int __wrap_poll(struct pollfd *fds, unsigned long n, int timeout)
{
	FAIL_IF_HIT(F_POLL, -1);
	return poll(fds, (nfds_t)n, timeout);
}

/* Only a generator's process calls these, after a fork (disarmed). */
int __wrap_dup2(int fd, int to)
{
	FAIL_IF_HIT(F_DUP2, -1);
	return dup2(fd, to);
}

int __wrap_fcntl(int fd, int cmd, ...)
{
	va_list ap;
	int arg;

	FAIL_IF_HIT(F_FCNTL, -1);
	va_start(ap, cmd);
	arg = va_arg(ap, int);
	va_end(ap);
	return fcntl(fd, cmd, arg);
}

int __wrap_getgroups(int n, gid_t *list)
{
	return getgroups(n, list);
}

int __wrap_setgroups(size_t n, const gid_t *list)
{
	return setgroups(n, list);
}

int __wrap_setresuid(uid_t r, uid_t e, uid_t s)
{
	return setresuid(r, e, s);
}

int __wrap_setresgid(gid_t r, gid_t e, gid_t s)
{
	return setresgid(r, e, s);
}

ssize_t __wrap_getrandom(void *buf, size_t n, unsigned flags)
{
	FAIL_IF_HIT(F_GETRANDOM, -1);
	return getrandom(buf, n, flags);
}

/* ---- PAM ---- */

int __wrap_pam_get_item(const pam_handle_t *pamh, int type, const void **item)
{
	if (HIT(F_PAM_GET_ITEM))
		return PAM_SYSTEM_ERR;
	return pam_get_item(pamh, type, item);
}

int __wrap_pam_get_data(const pam_handle_t *pamh, const char *name, const void **data)
{
	if (HIT(F_PAM_GET_DATA))
		return PAM_SYSTEM_ERR;
	return pam_get_data(pamh, name, data);
}

int __wrap_pam_set_data(pam_handle_t *pamh, const char *name, void *data,
                        void (*cleanup)(pam_handle_t *pamh, void *data, int error_status))
{
	if (HIT(F_PAM_SET_DATA))
		return PAM_BUF_ERR;
	return pam_set_data(pamh, name, data, cleanup);
}

/* libpam allocates the list; the module frees it: track it like ours. */
char **__wrap_pam_getenvlist(pam_handle_t *pamh)
{
	char **env;

	FAIL_IF_HIT(F_PAM_GETENVLIST, NULL);
	env = pam_getenvlist(pamh);
	if (env != NULL) {
		track(env);
		for (char **p = env; *p != NULL; p++)
			track(*p);
	}
	return env;
}

/* NULL: the name is not set, as far as the caller can tell */
const char *__wrap_pam_getenv(pam_handle_t *pamh, const char *name)
{
	if (HIT(F_PAM_GETENV))
		return NULL;
	return pam_getenv(pamh, name);
}

int __wrap_pam_putenv(pam_handle_t *pamh, const char *name_value)
{
	int rc;

	if (HIT(F_PAM_PUTENV))
		return PAM_BUF_ERR;
	rc = pam_putenv(pamh, name_value);
	if (rc == PAM_SUCCESS && fault.nput < FAULT_PUT_MAX)
		fault.put[fault.nput++] = strdup(name_value);
	return rc;
}

struct passwd *__wrap_pam_modutil_getpwnam(pam_handle_t *pamh, const char *user)
{
	FAIL_IF_HIT(F_PAM_GETPWNAM, NULL);
	return pam_modutil_getpwnam(pamh, user);
}
