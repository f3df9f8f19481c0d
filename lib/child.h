/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* child.h - the user's side: credentials and groups (ids.c), the child
 * process that is the user (ids.c, spawn.c, helper/reader.c), and one file read as the engine
 * reads a user's file (read.c, fileio.c). */
#ifndef ENVD_CHILD_H
#define ENVD_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "buf.h"

/* The user's credentials, looked up (NSS) by the caller before any fork. */
struct envd_ids {
	uid_t uid;
	gid_t gid;
	gid_t *groups; /* malloc'd by envd_ids_get */
	size_t ngroups;
};

/* Fills ids with uid, gid and user's supplementary groups (getgrouplist,
 * however many).  Returns 0, -ENOMEM or -E2BIG. */
int envd_ids_get(const char *user, uid_t uid, gid_t gid, struct envd_ids *ids);
void envd_ids_free(struct envd_ids *ids);
/* Whether gid is user's private group: named as user, no member but
 * user, no other account's primary group (lookups by gid and by name, one
 * capped read of /etc/passwd; no enumeration).  1, 0 or -ENOMEM. */
int envd_group_private(const char *user, uid_t uid, gid_t gid);
struct group;
/* The group named name (NULL: the group gid) through NSS into *gr, its
 * strings in *buf (freed by the caller, also on failure), the buffer
 * grown while NSS says it is too small.  0, -ENOENT or -ENOMEM. */
int envd_group_get(const char *name, gid_t gid, struct group *gr, char **buf, size_t *size);
struct passwd;
/* The account named name through NSS, as envd_group_get.  0, -ENOENT or
 * -ENOMEM. */
int envd_passwd_get(const char *name, struct passwd *pw, char **buf, size_t *size);

/* Work done by the reader program (helper/reader.c, started by spawn.c)
 * with ids's credentials in full (a root caller's reader switches; any
 * other caller's keeps its own), no capabilities, no_new_privs, not
 * dumpable, only its pipe open, bounded in CPU time, memory, file size
 * and open files. */
struct envd_child {
	const struct envd_ids *ids; /* NULL: no switch */
	unsigned budget_ms;         /* from before the spawn to the pipe's end */
	size_t memory_bytes;        /* address space the work may add */
	/* The work runs programs (generators.c): they may write files, as
	 * the user may (no file size cap of 0), and open more files. */
	bool programs;
	const char *reader; /* the program; NULL: envd_reader_path(NULL) */
};

/* The user as the reader found it (envd_reader_lookup): the passwd
 * entry's name, home and shell, the ids and every group (with their
 * names when asked, "" for a group without one), malloc'd. */
struct envd_who {
	uid_t uid;
	gid_t gid;
	char *name, *dir, *shell;
	gid_t *groups;
	size_t ngroups;
	char **group_names;
};
void envd_who_free(struct envd_who *who);
/* The look-up's answer (REC_WHO) in[0..n), checked, into who (freed by
 * the caller, also on failure): 0, -ESRCH (no such user), -EBADMSG,
 * -ENOMEM.  For the fuzz harness (tests/fuzz/fuzz_records.c) too. */
int envd_who_records(const char *in, size_t n, bool names, struct envd_who *who);
/* A reader started for a look-up, waiting for its job. */
struct envd_reader;
/* Starts a reader (root only) that looks user up through NSS as root,
 * bounded by c->budget_ms and killed past it, says who it found, and
 * then waits, with the ids it found, for the user side's job
 * (cfg->started, read.c) or for envd_reader_close.  0 with *rd and who
 * filled; -ESRCH no such user; -ETIMEDOUT past the budget; -ENOMEM;
 * another of envd_child_run's errors (-ENOENT: no reader program).  *rd
 * is NULL on every error. */
int envd_reader_lookup(const char *user, const struct envd_child *c, bool names,
                       struct envd_reader **rd, struct envd_who *who);
/* Gives the reader its job (records after the head) and reads the answer
 * to its end, as envd_child_run; frees rd. */
int envd_reader_job(struct envd_reader *rd, const struct envd_buf *job, struct envd_buf *out);
/* Ends a reader that got no job; frees rd (NULL: nothing). */
void envd_reader_close(struct envd_reader *rd);

/* Reaps pid (a child of this process) until *until (CLOCK_MONOTONIC),
 * through its pidfd's readiness where there is one (-1: none), else
 * looking every millisecond.  True with *status when it ended, or when
 * it is not this process's to reap any more; false past *until. */
struct timespec;
bool envd_reap_until(pid_t pid, int pidfd, const struct timespec *until, int *status);

/* The reader program: override, or the one installed with this build
 * (ENVD_READER_PATH). */
const char *envd_reader_path(const char *override);
/* Starts req (a request, envd_child_request) for job. */
int envd_child_request(const struct envd_child *c, char job, struct envd_buf *req);
/* Runs the reader on req and puts what it wrote in out (at most out's
 * cap).  Never blocks past the budget, leaves no child of the caller
 * behind and reaps only its own.  Returns 0 when the reader closed the
 * pipe and ended (whether it finished its work is for the caller's
 * records to say), -ETIMEDOUT past the budget (the reader is killed),
 * -EMSGSIZE over the cap, -EPERM when the reader could not take the
 * credentials or drop its privileges, -ENOENT when the program is
 * missing, -EACCES when its checks refuse it, -ENOEXEC when it could not
 * be exec'd, -ECHILD when it could not be started, -EIO when the pipe
 * could not be read, or -ENOMEM. */
int envd_child_run(const struct envd_child *c, const struct envd_buf *req, struct envd_buf *out);

/* One file read as envd_load reads a user's file: its links walked by
 * their text (no /proc magic link, no link another user planted in a
 * sticky directory), opened without blocking, checked on the descriptor
 * to be a regular file owned by owner or root and writable by no one
 * else, at most max bytes. */
struct envd_path_read {
	/* NULL: in this process, with its own credentials; else in a child
	 * process with as's credentials (envd_child_run, ENVD_MAX_USER_MS),
	 * whose answer is checked as input. */
	const struct envd_ids *as;
	const char *reader; /* with as: the reader program; NULL: the installed one */
	uid_t owner;
	/* Optional: owner's name, for the messages (NULL: its uid) */
	const char *who;
	/* No owner and no write rule, the others still hold: root's own
	 * configuration read as the program that reads it would (envd
	 * audit's PAM files). */
	bool any_owner;
	size_t max;
	/* What was found: data malloc'd and NUL-terminated (NULL for an empty
	 * file), reason when
	 * it could not be read, the file's device and inode. */
	char *data;
	size_t len;
	const char *reason;
	/* Optional (text_size 0: none): the reason as a message says it, a
	 * refusal with what the check found and the command that fixes it
	 * ("" for none). */
	char *text;
	size_t text_size;
	dev_t dev;
	ino_t ino;
};
/* Returns 0, or a negative errno with rd->reason: -EPERM refused by a
 * check (rd->text then ends with the command that fixes it), -ENOENT no
 * such file, -EINVAL not a file (/dev/null, a directory, a dangling
 * link), -EFBIG over max, -ETIMEDOUT, -ENOMEM, another errno. */
int envd_read_path(const char *path, struct envd_path_read *rd);
/* Reads fd to its end, at most max bytes, into *data (malloc'd; hint: the
 * size expected, 0 when unknown): the capped read of every file above,
 * for a descriptor the caller was given (a pipe on standard input).
 * Returns 0 (*data NUL-terminated after its *len bytes), -EFBIG over max,
 * -ENOMEM or read's errno. */
int envd_read_fd(int fd, size_t max, size_t hint, char **data, size_t *len);

#endif
