/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* path.c - one file read as a user's file is: envd import-pam-environment
 * (--as) and envd audit (envd_read_path), in this process or through the
 * reader (envd_job_path).  envd's and the reader's, not the module's. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loader.h"
#include "proto.h"
#include "side.h"

/* The file at path, as envd_read_path says it: 0 (data NULL: empty),
 * -ENOENT no such file, -EINVAL only masks (no file to read: a dangling
 * link too), or the reader's errno. */
static int read_path_here(const char *path, const struct envd_path_read *rd, size_t max,
                          struct envd_read *got, uid_t *found)
{
	struct envd_detail detail = {.owner = 0};
	struct envd_check chk = {.owner_a = rd->owner,
	                         .owner_b = 0,
	                         .group_ok = (gid_t)-1,
	                         .any_owner = rd->any_owner,
	                         .detail = &detail};
	enum envd_file_state state = envd_read_file(AT_FDCWD, path, NULL, &chk, max, got);
	struct stat st;

	*found = detail.owner;
	switch (state) {
	case ENVD_FILE_USED:
		return 0;
	case ENVD_FILE_MASKS:
		if (got->reason == ENVD_R_EMPTY)
			return 0;
		/* a name in a listing that leads nowhere is a dangling link; a
		 * path given is, most often, only missing: said as such */
		if (got->reason != ENVD_R_DANGLING ||
		    fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
			return -EINVAL;
		got->reason = ENVD_R_MISSING; /* no file: a single file masks nothing */
		return -ENOENT;
	default:
		return got->err;
	}
}

int envd_job_path(const char *in, size_t n, int fd)
{
	struct envd_path_read rd = {.as = NULL};
	struct envd_read got = {.reason = ENVD_R_NONE};
	struct req_path q;
	struct rec_path p;
	struct envd_buf out;
	const char *body;
	size_t pos = 0, len;
	uid_t owner = 0;
	char type, *path;
	int r;

	if (!envd_rec_next(in, n, &pos, &type, &body, &len) || pos != n || type != REQ_PATH ||
	    len <= sizeof(q) || memchr(body + sizeof(q), '\0', len - sizeof(q)))
		return -EBADMSG;
	memcpy(&q, body, sizeof(q));
	path = envd_memdup0(body + sizeof(q), len - sizeof(q));
	if (path == NULL)
		return -ENOMEM;
	rd.owner = (uid_t)q.owner;
	rd.any_owner = q.any_owner;
	memset(&p, 0, sizeof(p));
	p.r = read_path_here(path, &rd, (size_t)q.max, &got, &owner);
	p.reason = got.reason;
	p.owner = (uint32_t)owner;
	p.dev = got.dev;
	p.ino = got.ino;
	envd_buf_init(&out, 0);
	r = envd_rec_put(&out, REC_PATH, &p, sizeof(p), got.data, got.len, NULL, 0);
	if (r == 0)
		r = envd_write_all(fd, out.data, out.len);
	envd_buf_free(&out);
	free(got.data);
	free(path);
	return r;
}

/* The child's one record.  Returns what it says, or -EBADMSG. */
static int decode_path(const char *in, size_t n, size_t max, struct envd_read *got, uid_t *owner)
{
	struct rec_path p;
	const char *body;
	size_t pos = 0, blen;
	char type;

	if (!envd_rec_next(in, n, &pos, &type, &body, &blen) || pos != n || type != REC_PATH ||
	    blen < sizeof(p))
		return -EBADMSG;
	memcpy(&p, body, sizeof(p));
	blen -= sizeof(p);
	if (p.reason >= ENVD_R_COUNT || p.r > 0 || p.r <= -4096 || (p.r != 0 && blen != 0) ||
	    blen > max)
		return -EBADMSG;
	got->reason = (enum envd_reason)p.reason;
	*owner = (uid_t)p.owner;
	got->dev = (dev_t)p.dev;
	got->ino = (ino_t)p.ino;
	if (p.r == 0 && blen > 0) {
		got->data = envd_memdup0(body + sizeof(p), blen);
		if (got->data == NULL)
			return -ENOMEM;
		got->len = blen;
	}
	return p.r;
}

/* Through a child with rd->as's credentials. */
static int read_path_child(const char *path, const struct envd_path_read *rd, size_t max,
                           struct envd_read *got, uid_t *owner)
{
	struct envd_child c = {.ids = rd->as,
	                       .budget_ms = ENVD_MAX_USER_MS,
	                       .memory_bytes = sat_add(sat_mul(max, 3), 64u << 20),
	                       .reader = rd->reader};
	struct req_path q;
	struct envd_buf in, req;
	int r;

	memset(&q, 0, sizeof(q));
	q.max = max;
	q.owner = (uint32_t)rd->owner;
	q.any_owner = rd->any_owner;
	envd_buf_init(&in, sat_add(max, 64));
	envd_buf_init(&req, 0);
	r = envd_child_request(&c, ENVD_JOB_PATH, &req);
	if (r == 0)
		r = envd_rec_put(&req, REQ_PATH, &q, sizeof(q), path, strlen(path), NULL, 0);
	if (r == 0)
		r = envd_child_run(&c, &req, &in);
	envd_buf_free(&req);
	if (r == 0)
		r = decode_path(in.data, in.len, max, got, owner);
	else if (r == -ETIMEDOUT)
		got->reason = ENVD_R_LATE;
	else if (r != -ENOMEM)
		got->reason = ENVD_R_OPEN;
	if (in.data)
		explicit_bzero(in.data, in.len);
	envd_buf_free(&in);
	if (r == -EBADMSG || r == -EMSGSIZE)
		got->reason = ENVD_R_OPEN;
	/* no reader to run is no answer about the file */
	if (r == -ENOENT || r == -EACCES || r == -ENOEXEC)
		r = -ECHILD;
	return r;
}

int envd_read_path(const char *path, struct envd_path_read *rd)
{
	size_t max = envd_at_most(rd->max, ENVD_LIMIT_BYTES); /* as envd_load's */
	struct envd_read got = {.reason = ENVD_R_NONE};
	uid_t found = 0;
	int r;

	r = rd->as == NULL ? read_path_here(path, rd, max, &got, &found)
	                   : read_path_child(path, rd, max, &got, &found);
	rd->data = got.data;
	rd->len = got.len;
	rd->dev = got.dev;
	rd->ino = got.ino;
	rd->reason = got.reason == ENVD_R_NONE ? NULL : envd_reason_text(got.reason);
	if (rd->text_size > 0)
		rd->text[0] = '\0';
	if (r == -EPERM && rd->text_size > 0) {
		/* a refusal says what fixes it, as a skip in a load does */
		struct envd_skip k = {.reason = got.reason,
		                      .path = path,
		                      .owner = found,
		                      .want = rd->owner,
		                      .who = rd->who          ? rd->who
		                             : rd->owner == 0 ? "root"
		                                              : NULL,
		                      .done = "not read"};

		envd_skip_text(rd->text, rd->text_size, &k);
	} else if (rd->reason && rd->text_size > 0)
		snprintf(rd->text, rd->text_size, "%s", rd->reason);
	return r;
}
