/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* fault.h - the fault-injection control shared by the wrappers (wrap.c)
 * and the driver (driver.c).
 *
 * The test copy of the module (pam_envd_fault.so: the sources of pam_envd/
 * and lib/libenvd.la) is linked with -Wl,--wrap=SYM for every allocation, system
 * call and PAM call it makes, so its references to SYM bind to __wrap_SYM.
 * Those live in the driver executable (exported with --export-dynamic): the
 * module's calls, and only the module's, go through them, while libpam and
 * the driver call the real functions.  Each wrapper counts the call while
 * the state is armed and fails it when it is the one asked for.  A child
 * the module forks (the reader of the user's files, lib/child.c) disarms
 * itself: its calls are its own process's, and the driver checks the
 * process it runs in. */
#ifndef ENVD_FAULT_H
#define ENVD_FAULT_H

#include <dirent.h>
#include <grp.h>
#include <stdbool.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <time.h>

#include <security/pam_modules.h>
#include <security/pam_modutil.h>

/* Every function that can be made to fail. */
enum fault_fn {
	F_MALLOC,
	F_CALLOC,
	F_REALLOC,
	F_REALLOCARRAY,
	F_STRNDUP,
	F_OPEN,
	F_OPENAT,
	F_READ,
	F_FSTAT,
	F_FSTATAT,
	F_FSTATFS,
	F_CLOSE,
	F_FDOPENDIR,
	F_READDIR,
	F_CLOSEDIR,
	F_CLOCKTIME,
	F_READLINKAT,
	F_GETGROUPLIST,
	F_GETGRNAM_R,
	F_GETPWNAM_R,
	F_GETRANDOM,
	F_PIPE2,
	F_FORK,
	F_POLL,
	F_DUP2,
	F_FCNTL,
	F_PAM_GET_ITEM,
	F_PAM_GET_DATA,
	F_PAM_SET_DATA,
	F_PAM_GETENVLIST,
	F_PAM_GETENV,
	F_PAM_PUTENV,
	F_PAM_GETPWNAM,
	F_COUNT
};

#define FAULT_MAX_VARIANTS 4

/* How one call fails: the errno it sets (0: none) and a label. */
struct fault_variant {
	int err;
	const char *label;
};

struct fault_fninfo {
	const char *name;
	struct fault_variant v[FAULT_MAX_VARIANTS];
	int nv;
};

extern const struct fault_fninfo fault_fns[F_COUNT];

#define FAULT_LOG_MAX 65536u
#define FAULT_PUT_MAX 256u

struct fault_call {
	unsigned char fn; /* enum fault_fn */
	const void *caller;
};

struct fault_state {
	bool armed;                    /* counting and injecting */
	unsigned long calls;           /* fallible calls counted since the reset */
	unsigned long fail_at;         /* the call to fail (1-based); 0: none */
	int variant;                   /* index into fault_fns[fn].v */
	unsigned long long fail_every; /* bit mask of fns failing on every call */
	unsigned long injected;
	int injected_fn;
	struct fault_call log[FAULT_LOG_MAX]; /* the calls, in order */
	/* the entries pam_putenv accepted, in order (copies) */
	char *put[FAULT_PUT_MAX];
	size_t nput;
	/* allocations through the wrappers (pam_getenvlist's included) */
	size_t live;          /* not freed yet */
	size_t allocs, frees; /* since the reset */
	size_t foreign_frees; /* frees of pointers the wrappers never returned */
	/* reads made with another fsuid than root's (the window), and those
	 * of them made while the thread held effective capabilities */
	size_t window_reads, window_reads_with_caps;
};

extern struct fault_state fault;

/* Clears the counters for a run that fails call fail_at (0: none). */
void fault_reset(unsigned long fail_at, int variant);

/* ---- the wrappers (referenced by the module as __wrap_SYM) ---- */
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
void *__wrap_reallocarray(void *p, size_t n, size_t size);
char *__wrap_strndup(const char *s, size_t n);
void __wrap_free(void *p);
int __wrap_open(const char *path, int flags, ...);
int __wrap_open64(const char *path, int flags, ...);
int __wrap___open_2(const char *path, int flags);
int __wrap_openat(int dirfd, const char *path, int flags, ...);
int __wrap_openat64(int dirfd, const char *path, int flags, ...);
int __wrap___openat_2(int dirfd, const char *path, int flags);
ssize_t __wrap_read(int fd, void *buf, size_t n);
ssize_t __wrap___read_chk(int fd, void *buf, size_t n, size_t buflen);
int __wrap_fstat(int fd, struct stat *st);
int __wrap_fstat64(int fd, struct stat64 *st);
int __wrap_fstatat(int dirfd, const char *path, struct stat *st, int flags);
int __wrap_fstatat64(int dirfd, const char *path, struct stat64 *st, int flags);
int __wrap_fstatfs(int fd, struct statfs *sf);
int __wrap_fstatfs64(int fd, struct statfs64 *sf);
int __wrap_close(int fd);
DIR *__wrap_fdopendir(int fd);
struct dirent *__wrap_readdir(DIR *d);
int __wrap_closedir(DIR *d);
long __wrap_syscall(long n, ...);
int __wrap_clock_gettime(clockid_t clock, struct timespec *ts);
ssize_t __wrap_readlinkat(int dirfd, const char *path, char *buf, size_t n);
int __wrap_getgrouplist(const char *user, gid_t group, gid_t *groups, int *ngroups);
int __wrap_getgrnam_r(const char *name, struct group *gr, char *buf, size_t size,
                      struct group **res);
struct passwd;
int __wrap_getpwnam_r(const char *name, struct passwd *pw, char *buf, size_t size,
                      struct passwd **res);
int __wrap_pipe2(int fds[2], int flags);
pid_t __wrap_fork(void);
struct pollfd;
int __wrap_poll(struct pollfd *fds, unsigned long n, int timeout);
int __wrap_dup2(int fd, int to);
int __wrap_fcntl(int fd, int cmd, ...);
/* the reader child's own calls: passed through (a child is disarmed) */
int __wrap_getgroups(int n, gid_t *list);
int __wrap_setgroups(size_t n, const gid_t *list);
int __wrap_setresuid(uid_t r, uid_t e, uid_t s);
int __wrap_setresgid(gid_t r, gid_t e, gid_t s);
ssize_t __wrap_getrandom(void *buf, size_t n, unsigned flags);
int __wrap_pam_get_item(const pam_handle_t *pamh, int type, const void **item);
int __wrap_pam_get_data(const pam_handle_t *pamh, const char *name, const void **data);
int __wrap_pam_set_data(pam_handle_t *pamh, const char *name, void *data,
                        void (*cleanup)(pam_handle_t *pamh, void *data, int error_status));
char **__wrap_pam_getenvlist(pam_handle_t *pamh);
const char *__wrap_pam_getenv(pam_handle_t *pamh, const char *name);
int __wrap_pam_putenv(pam_handle_t *pamh, const char *name_value);
struct passwd *__wrap_pam_modutil_getpwnam(pam_handle_t *pamh, const char *user);

#endif
