/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * reader.c - the reader: the program that reads a user's files as the
 * user, started by the login (lib/spawn.c) as pam_unix starts unix_chkpwd.
 *
 * It starts as a fresh image: the login cleared its signals and
 * descriptors before the exec, and gave it an empty environment.  Here,
 * in order:
 *  - every descriptor but 0 (the request), 1 (the records) and 2
 *    (/dev/null) closed: close_range, else the names in /proc/self/fd
 *    (a host's descriptor above 65535 too);
 *  - the request read (proto.h), and nothing else done before; with a
 *    look-up, the user through NSS, said at once, then the job's records;
 *  - a fork: a guard that stays root and only waits, and the reader
 *    (guard() says why);
 *  - the user's credentials in full, read back: setgroups, setresgid,
 *    setresuid, each compared with what the kernel then says; every
 *    capability dropped and checked with capget; no_new_privs; not
 *    dumpable.  When any of it fails: one byte, ENVD_READER_SETUP_FAILED,
 *    and nothing read.  A reader that is not root keeps its own
 *    credentials: run by hand, it reads what its caller can read;
 *  - rlimits on core size, file size, open files, CPU time and address
 *    space, and a timer of its own past the login's budget;
 *  - the job (lib/read.c, lib/generators.c), its records on 1.
 * It uses no locale, and NSS only for a look-up the login asked for
 * (envd_reader_lookup): the user and the user's groups, as root, before
 * the fork, within the login's budget like everything else here.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "loader.h"
#include "proto.h"

#ifdef HAVE_VALGRIND_VALGRIND_H
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

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

/* Every descriptor above 2. */
static void close_others(void)
{
	DIR *d;
	struct dirent *de;

#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3u, ~0u, 0u) == 0)
		return;
#endif
	/* before 5.9: the open ones, by name, whatever their number */
	d = opendir("/proc/self/fd");
	if (d == NULL) {
		for (int fd = 3; fd < 65536; fd++)
			(void)close(fd);
		return;
	}
	// cppcheck-suppress readdirCalled ; a stream of its own
	while ((de = readdir(d)) != NULL) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);

		if (*end == '\0' && end != de->d_name && fd > 2 && fd != dirfd(d))
			(void)close((int)fd);
	}
	closedir(d);
}

static pid_t guard_pid;

/* Splits in two: the guard, which stays root, waits for the reader and
 * ends with it, and the reader, which goes on.  The login reaps the guard,
 * its own child, at its end; the guard reaps the reader.  So no process
 * is ever orphaned into a host that is a subreaper or PID 1, and the
 * login is never left waiting on a reader that the kernel holds (a FUSE
 * or NFS home that never answers: killed, it still waits there): the
 * login kills the guard, which ends at once, and the reader dies with it
 * (PR_SET_PDEATHSIG) as soon as the kernel lets go of it, reaped then by
 * init, or by the nearest subreaper. */
static void guard(void)
{
	int status = 0;
	pid_t pid;

	guard_pid = getpid();
	/* what the reader leaves behind (a generator's process, should the
	 * reader be killed first) is the guard's, and killed at its end */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	pid = fork();
	if (pid < 0)
		_exit(1);
	if (pid == 0)
		return;
	(void)close(1); /* the pipe's end is the reader's alone */
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	envd_sweep_children();
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

static _Noreturn void setup_failed(void)
{
	char x = ENVD_READER_SETUP_FAILED;

	(void)envd_write_all(1, &x, 1);
	_exit(2);
}

/* One record of the input, whole, appended to b: 1, or 0 at the input's
 * end before its first byte, or -1 (broken, too large, a read error). */
static int read_record(struct envd_buf *b)
{
	uint32_t len;
	size_t want = sizeof(len), got = 0, start = b->len;

	for (int part = 0; part < 2; part++) {
		while (got < want) {
			long room = envd_buf_room(b, want - got);
			ssize_t n;

			if (room <= 0)
				return -1;
			n = read(0, b->data + b->len, (size_t)room);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				return n == 0 && got == 0 && part == 0 ? 0 : -1;
			b->len += (size_t)n;
			got += (size_t)n;
		}
		memcpy(&len, b->data + start, sizeof(len));
		if (len < 1 || len > ENVD_REQ_MAX)
			return -1;
		want += len;
	}
	return 1;
}

/* The look-up (proto.h's REQ_LOOKUP): the user through NSS, as root,
 * within the login's budget; REC_WHO to 1; *ids the ids found.  0, or -1
 * when there is no one to read for (said in REC_WHO). */
static int lookup(const char *body, size_t len, struct envd_ids *ids)
{
	struct envd_req_lookup q;
	struct envd_rec_who w;
	struct passwd pw;
	struct envd_buf payload, out;
	char *name, *buf = NULL;
	size_t bufsize;
	int r;

	if (len <= sizeof(q) || memchr(body + sizeof(q), '\0', len - sizeof(q)))
		_exit(1);
	memcpy(&q, body, sizeof(q));
	name = envd_memdup0(body + sizeof(q), len - sizeof(q));
	if (name == NULL)
		_exit(1);
	memset(&w, 0, sizeof(w));
	envd_buf_init(&payload, 0);
	envd_buf_init(&out, 0);
	r = envd_passwd_get(name, &pw, &buf, &bufsize);
	if (r == 0)
		r = envd_ids_get(pw.pw_name, pw.pw_uid, pw.pw_gid, ids);
	if (r == 0 && ids->ngroups > ENVD_REQ_GROUPS)
		r = -E2BIG;
	w.r = r;
	if (r == 0) {
		w.uid = (uint32_t)pw.pw_uid;
		w.gid = (uint32_t)pw.pw_gid;
		w.ngroups = (uint32_t)ids->ngroups;
		w.name_len = (uint32_t)strlen(pw.pw_name);
		w.dir_len = (uint32_t)strlen(pw.pw_dir ? pw.pw_dir : "");
		w.shell_len = (uint32_t)strlen(pw.pw_shell ? pw.pw_shell : "");
		r = envd_buf_puts(&payload, pw.pw_name);
		if (r == 0)
			r = envd_buf_puts(&payload, pw.pw_dir ? pw.pw_dir : "");
		if (r == 0)
			r = envd_buf_puts(&payload, pw.pw_shell ? pw.pw_shell : "");
		for (size_t i = 0; r == 0 && i < ids->ngroups; i++) {
			uint32_t g = (uint32_t)ids->groups[i];

			r = envd_buf_append(&payload, (const char *)&g, sizeof(g));
		}
		for (size_t i = 0; r == 0 && q.group_names && i < ids->ngroups; i++) {
			struct group gr;
			char *gbuf = NULL;
			size_t gsize;
			int e = envd_group_get(NULL, ids->groups[i], &gr, &gbuf, &gsize);

			if (e == -ENOMEM)
				r = e;
			else if (e == 0)
				r = envd_buf_puts(&payload, gr.gr_name);
			if (r == 0)
				r = envd_buf_append(&payload, "", 1);
			free(gbuf);
		}
		w.names_len = (uint32_t)(payload.len - w.name_len - w.dir_len - w.shell_len -
		                         ids->ngroups * sizeof(uint32_t));
		if (r < 0) {
			w = (struct envd_rec_who){.r = r};
			payload.len = 0;
		}
	}
	if (envd_rec_put(&out, ENVD_REC_WHO, &w, sizeof(w), payload.data, payload.len, NULL, 0) !=
	        0 ||
	    envd_write_all(1, out.data, out.len) != 0)
		_exit(1);
	envd_buf_free(&payload);
	envd_buf_free(&out);
	free(buf);
	free(name);
	return w.r == 0 ? 0 : -1;
}

/* The head (proto.h) from the input, and the ids it names; with a
 * look-up, the ids the look-up found instead (lookup, which answers). */
static void take_head(struct envd_req_head *h, struct envd_ids *ids)
{
	struct envd_buf in;
	const char *body;
	size_t blen, pos = 0;
	char type;

	/* the head, and a look-up's record, as they come: the job's records
	 * may follow only once the look-up is answered */
	envd_buf_init(&in, ENVD_REQ_MAX);
	if (read_record(&in) != 1 || !envd_rec_next(in.data, in.len, &pos, &type, &body, &blen) ||
	    type != ENVD_REQ_HEAD || blen < sizeof(*h))
		_exit(1);
	memcpy(h, body, sizeof(*h));
	blen -= sizeof(*h);
	if (h->version != ENVD_REQ_VERSION || blen % sizeof(uint32_t) != 0 ||
	    blen / sizeof(uint32_t) > ENVD_REQ_GROUPS)
		_exit(1);
	*ids = (struct envd_ids){
	    .uid = (uid_t)h->uid, .gid = (gid_t)h->gid, .ngroups = blen / sizeof(uint32_t)};
	if (ids->ngroups > 0 && (ids->groups = calloc(ids->ngroups, sizeof(gid_t))) == NULL)
		setup_failed();
	for (size_t i = 0; i < ids->ngroups; i++) {
		uint32_t g;

		memcpy(&g, body + sizeof(*h) + i * sizeof(g), sizeof(g));
		ids->groups[i] = (gid_t)g;
	}
	if (h->lookup) {
		size_t at = in.len;

		free(ids->groups);
		*ids = (struct envd_ids){.groups = NULL};
		if (read_record(&in) != 1 ||
		    !envd_rec_next(in.data, in.len, &at, &type, &body, &blen) ||
		    type != ENVD_REQ_LOOKUP)
			_exit(1);
		if (lookup(body, blen, ids) != 0)
			_exit(0);
	}
	envd_buf_free(&in);
}

/* The user's credentials in full, every privilege dropped, checked; the
 * guard's death its own; then the limits and a timer past the login's
 * budget.  What does not verify: one byte, and the end. */
static void become_user(const struct envd_req_head *h, struct envd_ids *ids)
{
	struct itimerval t = {0};
	unsigned ms = h->budget_ms + 100; /* the login's deadline comes first */

	if (!become(h->switch_ids ? ids : NULL) || !drop_caps() ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		setup_failed();
	free(ids->groups);
	ids->groups = NULL;
	/* the guard's death ends the reader (a killed guard: the login's
	 * budget ran out); set after the switch, which clears it, and only
	 * while the guard is still there */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != guard_pid)
		_exit(1);
	limit(RLIMIT_CORE, 0);
	/* valgrind writes its log at the reader's exit, in the reader;
	 * natively RUNNING_ON_VALGRIND is 0 */
	if (!RUNNING_ON_VALGRIND && !h->programs)
		limit(RLIMIT_FSIZE, 0);
	limit(RLIMIT_NOFILE, h->programs ? 1024 : 64);
	limit(RLIMIT_CPU, (rlim_t)(ms / 1000 + 1));
	limit_memory((size_t)h->memory_bytes);
	t.it_value.tv_sec = (time_t)(ms / 1000);
	t.it_value.tv_usec = (suseconds_t)(ms % 1000) * 1000;
	(void)setitimer(ITIMER_REAL, &t, NULL); /* SIGALRM's default: the end */
}

int main(void)
{
	struct envd_req_head h;
	struct envd_ids ids = {.groups = NULL};
	char *req = NULL;
	size_t len = 0;
	int r;

	close_others();
	take_head(&h, &ids);
	/* the job's records, to the end of the input */
	if (envd_read_fd(0, ENVD_REQ_MAX, 0, &req, &len) != 0)
		_exit(1);
	(void)close(0);
	if (len == 0)
		_exit(0); /* a look-up the login wanted nothing more of */
	guard();
	become_user(&h, &ids);
	switch (h.job) {
	case ENVD_JOB_USER:
		r = envd_job_user(req, len, 1);
		break;
	case ENVD_JOB_PATH:
		r = envd_job_path(req, len, 1);
		break;
	case ENVD_JOB_GENS:
		r = envd_job_gens(req, len, 1);
		break;
	default:
		r = -EBADMSG;
	}
	/* no exit handlers, no sanitizer's leak pass in a process that is
	 * not dumpable */
	_exit(r == 0 ? 0 : 1);
}
