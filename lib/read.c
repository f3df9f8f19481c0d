/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* read.c - the reading phases of a load: directories listed, files read,
 * masks noted (load.c then parses what was read).
 *
 * The user directory is read by a process that is the user: in this
 * process when the caller is not root (envd run by the user), else in a
 * reader program with the user's credentials (spawn.c, helper/reader.c), which sends what it found
 * back as records.  Those records are input like any file: every field is
 * checked here (names, states, codes, reasons, sizes, counts) and a stream
 * that breaks a rule is dropped whole.  Nothing the child says becomes
 * text in a message except a file name and the path of a directory above
 * the user directory that a refusal names (absolute, no NUL, escaped where
 * shown), which the user can see anyway, and an owner's uid; the reasons
 * are numbers into fileio.c's table.  The system directories are
 * read here, by the caller, with systemd's safe-chase rule added: every
 * directory a system path passes through, links followed, belongs to root
 * and no one else may write it (fileio.c). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "loader.h"
#include "proto.h"
#include "side.h"

/* ---- one file ---- */

/* Reads one listed file of a directory on device dev into e.  Returns 0,
 * or -ENOMEM. */
int envd_read_one(struct loader *ld, int dirfd, dev_t dev, struct envd_scan_entry *e,
                  const struct envd_check *chk)
{
	struct envd_entry_hint hint = {.type = e->type, .dev_known = true, .dir_dev = dev};
	const struct envd_limits *lim = &ld->cfg->limits;
	size_t max = lim->file_bytes;
	struct envd_read got;

	if (ld->input_bytes >= lim->input_bytes) {
		e->code = ENVD_C_LIMIT;
		e->reason = ENVD_R_INPUT_FULL;
		return 0;
	}
	if (max > lim->input_bytes - ld->input_bytes)
		max = lim->input_bytes - ld->input_bytes;
	e->state = envd_read_file(dirfd, e->name, &hint, chk, max, &got);
	e->data = got.data;
	e->len = got.len;
	e->reason = got.reason;
	e->code = got.code;
	if (got.err == -ENOMEM)
		return -ENOMEM;
	if (got.err == -EPERM && chk->detail) {
		e->owner = chk->detail->owner;
		e->others_write = chk->detail->others_write;
		if (e->reason == ENVD_R_UNSAFE_PATH && chk->detail->where[0]) {
			e->where = envd_memdup0(chk->detail->where, strlen(chk->detail->where));
			if (!e->where)
				return -ENOMEM;
		}
	}
	if (e->state == ENVD_FILE_USED) {
		e->group_write = chk->walk != NULL && chk->walk->group_used;
		ld->input_bytes += e->len;
	}
	return 0;
}

/* The owner a check on side user wants: its name where there is one. */
void envd_skip_owner(const struct envd_config *cfg, bool user, struct envd_skip *k)
{
	k->user = user;
	k->want = user ? cfg->user_uid : cfg->system_uid;
	k->who = user ? cfg->user_name : k->want == 0 ? "root" : NULL;
}

/* Directory dir (an index of dir_paths) was not read: missing, or
 * skipped for why (a static string). */
static void envd_dir_skipped(struct loader *ld, size_t dir, bool missing, const char *why)
{
	if (dir >= ENVD_MAX_ALL_DIRS)
		return;
	ld->dir_state[dir] = missing ? ENVD_DIR_MISSING : ENVD_DIR_SKIPPED;
	ld->dir_why[dir] = missing ? NULL : why;
}

static void report_dir(struct loader *ld, size_t dir, const char *path, bool user, int r,
                       enum envd_reason reason, const struct envd_detail *d)
{
	envd_dir_skipped(ld, dir, r == -ENOENT, envd_reason_text(reason));
	enum envd_code code = r == -ENOENT  ? ENVD_C_DIR_MISSING
	                      : r == -EPERM ? ENVD_C_DIR_UNSAFE
	                                    : ENVD_C_DIR_ERROR;
	enum envd_severity sev = code == ENVD_C_DIR_MISSING ? ENVD_DEBUG : ENVD_ERROR;
	struct envd_skip k = {.reason = reason, .path = path, .dir = true};
	char text[1024];

	if (!ld->sink.fn || sev > ld->sink.level)
		return;
	if (r == -EPERM) {
		k.owner = d->owner;
		k.others_write = d->others_write;
		k.where = d->where;
	}
	envd_skip_owner(ld->cfg, user, &k);
	envd_diagf(&ld->sink, sev, code, path, 0, NULL, "%s directory: %s",
	           user ? "user" : "system", envd_skip_text(text, sizeof(text), &k));
}

static void report_listing(struct loader *ld, const char *path, bool error, size_t dropped,
                           bool truncated)
{
	const struct envd_limits *lim = &ld->cfg->limits;

	if (error)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_DIR_ERROR, path, 0, NULL,
		           "error while listing the directory");
	if (dropped)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, path, 0, NULL,
		           "more than %zu .conf files: %zu skipped; fix: merge files into fewer",
		           lim->files_per_dir, dropped);
	if (truncated)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, path, 0, NULL,
		           "too many directory entries: listing stopped; fix: remove what the "
		           "directory does not need");
}

/* ---- the system side ---- */

/* Opens and lists system directory number dir into *fd, or -1 when it is
 * skipped (reported).  Returns 0, or -ENOMEM. */
static int list_system_dir(struct loader *ld, size_t dir, const struct envd_check *chk, int *fd,
                           dev_t *dev)
{
	const struct envd_limits *lim = &ld->cfg->limits;
	const char *path = ld->dir_paths[dir];
	enum envd_reason reason = ENVD_R_NONE;
	struct envd_scan_report rep;
	int r;

	*fd = envd_open_dir(path, chk, false, &reason, dev);
	if (*fd == -ENOMEM)
		return -ENOMEM;
	if (*fd < 0) {
		report_dir(ld, dir, path, false, *fd, reason, chk->detail);
		*fd = -1;
		return 0;
	}
	r = envd_scan_dir(&ld->scan, *fd, dir, lim->files_per_dir, &rep);
	if (r == -ENOMEM)
		return r;
	report_listing(ld, path, r < 0, rep.dropped, rep.truncated);
	/* lint only: a listing that fails is no finding, out of memory
	 * fails the load as everywhere */
	if (rep.not_conf && envd_linting(ld))
		return envd_linting(ld)->not_conf(ld, *fd, path) == -ENOMEM ? -ENOMEM : 0;
	return 0;
}

int envd_read_system(struct loader *ld, size_t first_dir)
{
	struct envd_detail detail = {.owner = 0};
	struct envd_check chk = {.owner_a = ld->cfg->system_uid,
	                         .owner_b = ld->cfg->system_uid,
	                         .group_ok = (gid_t)-1,
	                         .safe_dirs = true,
	                         .detail = &detail};
	int fds[ENVD_MAX_ALL_DIRS], r = 0;
	dev_t devs[ENVD_MAX_ALL_DIRS];
	size_t d, i, nd = ld->ndirs; /* one bound for both loops: what is opened is closed */

	for (d = first_dir; d < nd; d++) {
		fds[d] = -1;
		if (r == 0)
			r = list_system_dir(ld, d, &chk, &fds[d], &devs[d]);
	}
	if (r == 0)
		envd_scan_sort(&ld->scan);
	for (i = 0; i < ld->scan.n && r == 0; i++) {
		struct envd_scan_entry *e = &ld->scan.v[i];

		if (envd_scan_unread(e) && e->dir >= first_dir)
			r = envd_read_one(ld, fds[e->dir], devs[e->dir], e, &chk);
	}
	for (d = first_dir; d < nd; d++)
		if (fds[d] >= 0)
			close(fds[d]);
	return r;
}

/* The entries of the user side from s->first on, dropped. */
static void drop_entries(struct loader *ld, const struct envd_side *s)
{
	for (size_t i = s->first; i < ld->scan.n; i++) {
		free(ld->scan.v[i].name);
		free(ld->scan.v[i].data);
		free(ld->scan.v[i].where);
	}
	ld->scan.n = s->first;
}

static int check_group_write(struct loader *ld, struct envd_side *s)
{
	const struct envd_config *cfg = ld->cfg;
	int p;

	if (!relies_on_group(ld, s))
		return 0;
	/* the reader decided it, within the bound (NSS, as the user); in
	 * this process (envd run by the user) it is decided here */
	if (cfg->user_ids != NULL)
		p = s->private_group == 1;
	else
		p = envd_group_private(cfg->user_name, cfg->user_uid, cfg->user_gid);
	if (p < 0)
		return p;
	if (p == 1)
		return 0;
	if (s->dir_group) {
		drop_entries(ld, s);
		s->dir_r = -EPERM;
		s->dir_reason = ENVD_R_GROUP_SHARED;
		return 0;
	}
	for (size_t i = s->first; i < ld->scan.n; i++) {
		struct envd_scan_entry *e = &ld->scan.v[i];

		if (!e->group_write)
			continue;
		free(e->data);
		e->data = NULL;
		e->len = 0;
		e->state = ENVD_FILE_SKIPPED;
		e->code = ENVD_C_FILE_UNSAFE;
		e->reason = ENVD_R_GROUP_SHARED;
	}
	return 0;
}

static void report_user_side(struct loader *ld, const struct envd_side *s)
{
	const struct envd_limits *lim = &ld->cfg->limits;
	const char *path = ld->cfg->user_dir;
	const char *name = s->not_conf.data;

	if (s->dir_r < 0)
		report_dir(ld, 0, path, true, s->dir_r, s->dir_reason, &s->dir_detail);
	else
		report_listing(ld, path, s->list_error, s->dropped, s->truncated);
	for (size_t i = 0; envd_linting(ld) && i < s->n_not_conf; i++, name += strlen(name) + 1)
		envd_linting(ld)->not_conf_name(ld, path, name);
	if (s->late > 0)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, path, 0, NULL,
		           "reading the user's files took longer than %zu ms: %zu files not read",
		           lim->user_ms, s->late);
	if (s->links_cut)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, path, 0, NULL,
		           "more than %zu symbolic link steps: the files behind the rest were "
		           "not read; fix: use fewer symbolic links",
		           lim->link_steps);
}

/* A name the user directory can hold and envd_scan_dir lists. */
static bool conf_name(const char *s, size_t n)
{
	return n > 5 && n < 256 && s[0] != '.' && memcmp(s + n - 5, ".conf", 5) == 0 &&
	       !memchr(s, '/', n) && !memchr(s, '\0', n);
}

static bool plain_name(const char *s, size_t n)
{
	return n > 0 && n < 256 && !memchr(s, '/', n) && !memchr(s, '\0', n);
}

/* where: the where_len bytes after d, a directory's absolute path, only
 * for the refusals that name one. */
static bool valid_dir_rec(const struct rec_dir *d, const char *where, size_t len)
{
	bool names_dir = d->r == -EPERM &&
	                 (d->reason == ENVD_R_PARENT_OWNER || d->reason == ENVD_R_PARENT_WRITABLE);

	return d->r <= 0 && d->r > -4096 && d->reason < ENVD_R_COUNT && d->group <= 1 &&
	       d->list_error <= 1 && d->truncated <= 1 && len == d->where_len &&
	       len < ENVD_WHERE_MAX && (len == 0 || (names_dir && where[0] == '/')) &&
	       !memchr(where, '\0', len);
}

/* One file record into a new entry of ld->scan.  0, -EBADMSG, -ENOMEM. */
static int decode_file(struct loader *ld, const char *body, size_t len, size_t *bytes)
{
	const struct envd_limits *lim = &ld->cfg->limits;
	struct envd_scan_entry *e;
	struct rec_file f;
	size_t data_len;
	int r;

	if (len < sizeof(f))
		return -EBADMSG;
	memcpy(&f, body, sizeof(f));
	body += sizeof(f);
	len -= sizeof(f);
	if (f.name_len > len || !conf_name(body, f.name_len) || f.reason >= ENVD_R_COUNT ||
	    f.group > 1)
		return -EBADMSG;
	data_len = len - f.name_len;
	switch (f.state) {
	case ENVD_FILE_USED:
		if (data_len == 0 || data_len > lim->file_bytes ||
		    data_len > lim->input_bytes - *bytes)
			return -EBADMSG;
		break;
	case ENVD_FILE_MASKS:
		if (data_len != 0 || f.group)
			return -EBADMSG;
		break;
	case ENVD_FILE_SKIPPED:
		if (data_len != 0 || f.group ||
		    (f.code != ENVD_C_FILE_UNSAFE && f.code != ENVD_C_FILE_ERROR &&
		     f.code != ENVD_C_LIMIT))
			return -EBADMSG;
		break;
	default:
		return -EBADMSG;
	}
	r = envd_scan_push(&ld->scan, body, f.name_len, 0, DT_UNKNOWN);
	if (r < 0)
		return r;
	e = &ld->scan.v[ld->scan.n - 1];
	e->state = (enum envd_file_state)f.state;
	e->code = f.state == ENVD_FILE_SKIPPED ? (enum envd_code)f.code : ENVD_C_NONE;
	e->reason = (enum envd_reason)f.reason;
	e->group_write = f.group;
	e->owner = (uid_t)f.owner;
	if (data_len > 0) {
		e->data = envd_memdup0(body + f.name_len, data_len);
		if (e->data == NULL)
			return -ENOMEM;
		e->len = data_len;
		*bytes += data_len;
	}
	return 0;
}

/* The child's records into ld->scan and s.  0, -EBADMSG or -ENOMEM. */
static int decode_side(struct loader *ld, const char *in, size_t n, struct envd_side *s)
{
	size_t pos = 0, files = 0, bytes = 0, names = 0, len;
	size_t most = max_listed(&ld->cfg->limits);
	bool have_dir = false;
	const char *body;
	char type;
	int r;

	while (pos < n) {
		if (!envd_rec_next(in, n, &pos, &type, &body, &len))
			return -EBADMSG;
		if (!have_dir && type != REC_DIR)
			return -EBADMSG;
		switch (type) {
		case REC_DIR: {
			struct rec_dir d;

			if (have_dir || len < sizeof(d))
				return -EBADMSG;
			memcpy(&d, body, sizeof(d));
			if (!valid_dir_rec(&d, body + sizeof(d), len - sizeof(d)))
				return -EBADMSG;
			have_dir = true;
			s->dir_r = d.r;
			s->dir_reason = (enum envd_reason)d.reason;
			s->dir_detail.owner = (uid_t)d.owner;
			memcpy(s->dir_detail.where, body + sizeof(d), d.where_len);
			s->dir_detail.where[d.where_len] = '\0';
			s->dir_group = d.group;
			s->list_error = d.list_error;
			s->truncated = d.truncated;
			s->dropped = d.dropped;
			break;
		}
		case REC_FILE:
			if (s->dir_r < 0 || ++files > most)
				return -EBADMSG;
			r = decode_file(ld, body, len, &bytes);
			if (r < 0)
				return r;
			break;
		case REC_NOT_CONF:
			if (!(ld->cfg->flags & ENVD_LINT) || ++names > most ||
			    !plain_name(body, len))
				return -EBADMSG;
			if (envd_buf_append(&s->not_conf, body, len) < 0 ||
			    envd_buf_append(&s->not_conf, "", 1) < 0)
				return -ENOMEM;
			s->n_not_conf++;
			break;
		case REC_END: {
			struct rec_end end;

			if (len != sizeof(end) || pos != n)
				return -EBADMSG;
			memcpy(&end, body, sizeof(end));
			if (end.links_cut > 1 || end.late > files || end.private_group > 2)
				return -EBADMSG;
			s->late = end.late;
			s->links_cut = end.links_cut;
			s->private_group = end.private_group;
			return 0;
		}
		default:
			return -EBADMSG;
		}
	}
	return -EBADMSG; /* no end: the reader did not finish */
}

int envd_user_records(struct loader *ld, const char *in, size_t n)
{
	struct envd_side s = {.first = ld->scan.n};
	int r;

	envd_buf_init(&s.not_conf, 0);
	r = decode_side(ld, in, n, &s);
	if (r < 0)
		drop_entries(ld, &s);
	envd_buf_free(&s.not_conf);
	return r;
}

static void report_child_failure(struct loader *ld, int r)
{
	const char *path = ld->cfg->user_dir;

	envd_dir_skipped(ld, 0, false, "its reader failed");
	if (r == -ETIMEDOUT)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, path, 0, NULL,
		           "reading the user's files took longer than %zu ms: none of them is used",
		           ld->cfg->limits.user_ms);
	else if (r == -EPERM)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_DIR_ERROR, path, 0, NULL,
		           "the reader of the user's files could not take the user's credentials: "
		           "user directory skipped");
	else if (r == -EBADMSG || r == -EMSGSIZE)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_DIR_ERROR, path, 0, NULL,
		           "the reader of the user's files ended early or sent malformed records: "
		           "user directory skipped");
	else if (r == -ENOENT || r == -EACCES || r == -ENOEXEC)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_DIR_ERROR, path, 0, NULL,
		           "the reader program %s %s: user directory skipped; fix: reinstall "
		           "pam_envd",
		           envd_reader_path(ld->cfg->reader),
		           r == -ENOENT   ? "is missing"
		           : r == -EACCES ? "is refused (not a root-owned executable that only "
		                            "root may write, in directories only root may write)"
		                          : "cannot be run");
	else
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_DIR_ERROR, path, 0, NULL,
		           "cannot start the reader of the user's files (%s): user directory "
		           "skipped",
		           strerror(-r));
}

/* The user side through a child.  Returns 0 or -ENOMEM. */
static int read_user_child(struct loader *ld, struct envd_side *s)
{
	const struct envd_limits *lim = &ld->cfg->limits;
	const struct envd_config *cfg = ld->cfg;
	struct envd_reader *started = cfg->started ? *cfg->started : NULL;
	struct envd_child c = {.ids = cfg->user_ids,
	                       .budget_ms = (unsigned)lim->user_ms,
	                       .memory_bytes = sat_add(sat_mul(stream_cap(lim), 3), 64u << 20),
	                       .reader = cfg->reader};
	struct req_user q;
	struct envd_buf in, req;
	int r;

	memset(&q, 0, sizeof(q));
	q.limits = *lim;
	q.user_uid = (uint32_t)cfg->user_uid;
	q.user_gid = (uint32_t)cfg->user_gid;
	q.dir_len = (uint32_t)strlen(cfg->user_dir);
	q.has_name = cfg->user_name != NULL;
	q.lint = (cfg->flags & ENVD_LINT) != 0;
	envd_buf_init(&in, stream_cap(lim));
	envd_buf_init(&req, 0);
	/* a reader the caller started for the look-up takes the job; else
	 * one starts now */
	r = started ? 0 : envd_child_request(&c, ENVD_JOB_USER, &req);
	if (r == 0)
		r = envd_rec_put(&req, REQ_USER, &q, sizeof(q), cfg->user_dir, q.dir_len,
		                 cfg->user_name, cfg->user_name ? strlen(cfg->user_name) : 0);
	if (r == 0 && started) {
		*cfg->started = NULL;
		r = envd_reader_job(started, &req, &in);
	} else if (r == 0) {
		r = envd_child_run(&c, &req, &in);
	}
	envd_buf_free(&req);
	if (r == 0)
		r = decode_side(ld, in.data, in.len, s);
	if (in.data)
		explicit_bzero(in.data, in.len);
	envd_buf_free(&in);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		drop_entries(ld, s);
		report_child_failure(ld, r);
		s->failed = true;
	}
	return 0;
}

int envd_read_user(struct loader *ld)
{
	struct envd_side s = {.first = ld->scan.n};
	int r;

	envd_buf_init(&s.not_conf, 0);
	if (ld->cfg->user_ids)
		r = read_user_child(ld, &s);
	else
		r = ld->cfg->read_here ? ld->cfg->read_here(ld, &s, ld->cfg->limits.user_ms) : 0;
	if (r == 0 && !s.failed)
		r = check_group_write(ld, &s);
	if (r == 0 && !s.failed)
		report_user_side(ld, &s);
	envd_buf_free(&s.not_conf);
	return r;
}
