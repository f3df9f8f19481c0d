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

static size_t sat_mul(size_t a, size_t b)
{
	return b != 0 && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

static size_t sat_add(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* Directory entries listed at most (envd_scan_listed). */
static size_t max_listed(const struct envd_limits *lim)
{
	return envd_scan_listed(lim->files_per_dir);
}

/* ---- one file ---- */

/* Reads one listed file of a directory on device dev into e.  Returns 0,
 * or -ENOMEM. */
static int read_one(struct loader *ld, int dirfd, dev_t dev, struct envd_scan_entry *e,
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
			r = read_one(ld, fds[e->dir], devs[e->dir], e, &chk);
	}
	for (d = first_dir; d < nd; d++)
		if (fds[d] >= 0)
			close(fds[d]);
	return r;
}

/* ---- the user side ---- */

/* What reading the user directory found besides its entries, which go to
 * ld->scan (directory 0) from index first on. */
struct side {
	size_t first;
	int dir_r; /* 0: opened and listed; else the negative errno */
	enum envd_reason dir_reason;
	struct envd_detail dir_detail; /* what a refusal of the directory found */
	bool dir_group;                /* the directory or a parent relies on group write */
	bool list_error;
	bool truncated;
	size_t dropped;
	size_t late; /* files not read for the time limit */
	bool links_cut;
	struct envd_buf not_conf; /* lint: names without .conf, each NUL-ended */
	size_t n_not_conf;
	bool failed; /* the child failed: said, nothing more to say */
	/* whether the user's group is private, as the reader decided it
	 * (within the bound) where it relied on group write: 0 not asked,
	 * 1 private, 2 not (or unknown) */
	uint8_t private_group;
};

/* Reads the listed user files from fd while the time lasts.  Returns 0 or
 * -ENOMEM. */
static int read_user_files(struct loader *ld, int fd, dev_t dev, struct side *s,
                           const struct envd_check *chk, size_t ms)
{
	struct timespec until;
	bool in_time = envd_deadline(ms, &until);
	int r = 0;

	for (size_t i = s->first; i < ld->scan.n && r == 0; i++) {
		struct envd_scan_entry *e = &ld->scan.v[i];

		if (!envd_scan_unread(e))
			continue;
		if (in_time && envd_ms_until(&until) == 0)
			in_time = false;
		if (!in_time) {
			/* not read, but still its name: it masks */
			e->code = ENVD_C_LIMIT;
			e->reason = ENVD_R_LATE;
			s->late++;
			continue;
		}
		r = read_one(ld, fd, dev, e, chk);
	}
	return r;
}

static void keep_not_conf(const char *name, void *data)
{
	struct side *s = data;

	/* a name that does not fit is a lint finding less, nothing more */
	if (envd_buf_append(&s->not_conf, name, strlen(name) + 1) == 0)
		s->n_not_conf++;
}

/* Reads the user directory into ld->scan and s, within ms, and says
 * nothing: in a child there is no one to tell.  Returns 0 or -ENOMEM. */
static int read_user_side(struct loader *ld, struct side *s, size_t ms)
{
	const struct envd_config *cfg = ld->cfg;
	struct envd_walk walk = {.links_left = cfg->limits.link_steps};
	struct envd_check chk = {.owner_a = cfg->user_uid,
	                         .owner_b = 0,
	                         .group_ok = cfg->user_name ? cfg->user_gid : (gid_t)-1,
	                         .walk = &walk,
	                         .detail = &s->dir_detail};
	struct envd_detail file_detail = {.owner = 0};
	struct envd_scan_report rep;
	dev_t dev = 0;
	int fd, r;

	fd = envd_open_dir(cfg->user_dir, &chk, true, &s->dir_reason, &dev);
	if (fd == -ENOMEM)
		return -ENOMEM;
	if (fd < 0) {
		s->dir_r = fd;
		s->links_cut = walk.links_cut;
		return 0;
	}
	s->dir_group = walk.group_used;
	chk.detail = &file_detail;
	r = envd_scan_dir(&ld->scan, fd, 0, cfg->limits.files_per_dir, &rep);
	if (r != -ENOMEM) {
		s->list_error = r < 0;
		s->dropped = rep.dropped;
		s->truncated = rep.truncated;
		r = 0;
		if (rep.not_conf && (cfg->flags & ENVD_LINT))
			r = envd_scan_not_conf(fd, max_listed(&cfg->limits), keep_not_conf, s);
		if (r != -ENOMEM)
			r = read_user_files(ld, fd, dev, s, &chk, ms);
	}
	s->links_cut = walk.links_cut;
	close(fd);
	return r == -ENOMEM ? r : 0;
}

/* The entries of the user side from s->first on, dropped. */
static void drop_entries(struct loader *ld, const struct side *s)
{
	for (size_t i = s->first; i < ld->scan.n; i++) {
		free(ld->scan.v[i].name);
		free(ld->scan.v[i].data);
		free(ld->scan.v[i].where);
	}
	ld->scan.n = s->first;
}

/* Group write is accepted only by the owner's private group; the reader
 * noted where it relied on it, and NSS is asked here, only then.
 * Returns 0 or -ENOMEM. */
/* The directory or a file read relied on group write. */
static bool relies_on_group(const struct loader *ld, const struct side *s)
{
	bool any = s->dir_group;

	for (size_t i = s->first; i < ld->scan.n && !any; i++)
		any = ld->scan.v[i].group_write;
	return any;
}

static int check_group_write(struct loader *ld, struct side *s)
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

static void report_user_side(struct loader *ld, const struct side *s)
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

/* ---- the records a child sends ---- */

/* A record: a 32-bit length (of what follows), a type byte, the fields.
 * Integers in the machine's order: both ends are the same program. */
enum rec_type {
	REC_DIR = 'D',      /* struct rec_dir */
	REC_FILE = 'F',     /* struct rec_file, the name, the contents */
	REC_NOT_CONF = 'N', /* a name (lint) */
	REC_END = 'E',      /* struct rec_end: nothing follows */
	REC_PATH = 'P',     /* envd_read_path: struct rec_path, the contents */
};

/* where_len bytes of the directory a refusal found follow (PARENT_*) */
struct rec_dir {
	int32_t r;
	uint32_t reason;
	uint32_t dropped;
	uint32_t owner;
	uint16_t where_len;
	uint8_t group, list_error, truncated, pad[3];
};

struct rec_file {
	uint32_t code;
	uint32_t reason;
	uint32_t owner;
	uint16_t name_len;
	uint8_t state, group, pad[4];
};

struct rec_end {
	uint32_t late;
	uint8_t links_cut, private_group, pad[2];
};

struct rec_path {
	int32_t r;
	uint32_t reason;
	uint32_t owner;
	uint32_t pad;
	uint64_t dev, ino;
};

static int encode_side(struct envd_buf *b, const struct loader *ld, const struct side *s)
{
	struct rec_dir d;
	struct rec_end end;
	const char *name = s->not_conf.data;
	int r;

	memset(&d, 0, sizeof(d));
	d.r = s->dir_r;
	d.reason = s->dir_reason;
	d.dropped = s->dropped > UINT32_MAX ? UINT32_MAX : (uint32_t)s->dropped;
	d.group = s->dir_group;
	d.list_error = s->list_error;
	d.truncated = s->truncated;
	if (s->dir_r == -EPERM) {
		d.owner = (uint32_t)s->dir_detail.owner;
		if (s->dir_reason == ENVD_R_PARENT_OWNER || s->dir_reason == ENVD_R_PARENT_WRITABLE)
			d.where_len = (uint16_t)strlen(s->dir_detail.where);
	}
	r = envd_rec_put(b, REC_DIR, &d, sizeof(d), s->dir_detail.where, d.where_len, NULL, 0);
	for (size_t i = s->first; i < ld->scan.n && r == 0; i++) {
		const struct envd_scan_entry *e = &ld->scan.v[i];
		struct rec_file f;
		size_t nl = strlen(e->name);

		memset(&f, 0, sizeof(f));
		f.code = e->code;
		f.reason = e->reason;
		f.owner = (uint32_t)e->owner;
		f.name_len = nl > UINT16_MAX ? UINT16_MAX : (uint16_t)nl;
		f.state = (uint8_t)e->state;
		f.group = e->group_write;
		r = envd_rec_put(b, REC_FILE, &f, sizeof(f), e->name, f.name_len, e->data,
		                 e->state == ENVD_FILE_USED ? e->len : 0);
	}
	for (size_t i = 0; i < s->n_not_conf && r == 0; i++, name += strlen(name) + 1)
		r = envd_rec_put(b, REC_NOT_CONF, NULL, 0, name, strlen(name), NULL, 0);
	memset(&end, 0, sizeof(end));
	end.late = s->late > UINT32_MAX ? UINT32_MAX : (uint32_t)s->late;
	end.links_cut = s->links_cut;
	end.private_group = s->private_group;
	return r == 0 ? envd_rec_put(b, REC_END, &end, sizeof(end), NULL, 0, NULL, 0) : r;
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
static int decode_side(struct loader *ld, const char *in, size_t n, struct side *s)
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
	struct side s = {.first = ld->scan.n};
	int r;

	envd_buf_init(&s.not_conf, 0);
	r = decode_side(ld, in, n, &s);
	if (r < 0)
		drop_entries(ld, &s);
	envd_buf_free(&s.not_conf);
	return r;
}

/* What a child's stream may hold at most: every byte the load may read,
 * and a record for every entry the listings may hold. */
static size_t stream_cap(const struct envd_limits *lim)
{
	size_t per_entry = 4 + 1 + sizeof(struct rec_file) + 256;

	return sat_add(sat_add(lim->input_bytes, sat_mul(sat_mul(max_listed(lim), 2), per_entry)),
	               4096);
}

/* The budget a child's own reading keeps to, within the caller's: what is
 * read in time counts, and the records still reach the caller. */
static size_t child_ms(size_t ms)
{
	return ms - ms / 4;
}

/* The user directory's job, as the request carries it. */
#define REQ_USER 'u'

struct req_user {
	struct envd_limits limits;
	uint32_t user_uid, user_gid;
	uint32_t dir_len; /* the directory's bytes, then the user's name */
	uint8_t has_name, lint, pad[2];
};

int envd_job_user(const char *in, size_t n, int fd)
{
	struct envd_config cfg = {.user_name = NULL};
	struct loader ld = {.cfg = &cfg};
	struct side s = {.first = 0};
	struct req_user q;
	struct envd_buf out;
	const char *body;
	size_t pos = 0, len;
	char type, *dir, *name;
	int r;

	if (!envd_rec_next(in, n, &pos, &type, &body, &len) || pos != n || type != REQ_USER ||
	    len <= sizeof(q) || memchr(body + sizeof(q), '\0', len - sizeof(q)))
		return -EBADMSG;
	memcpy(&q, body, sizeof(q));
	if (q.dir_len == 0 || q.dir_len > len - sizeof(q))
		return -EBADMSG;
	dir = envd_memdup0(body + sizeof(q), q.dir_len);
	name = envd_memdup0(body + sizeof(q) + q.dir_len, len - sizeof(q) - q.dir_len);
	if (dir == NULL || name == NULL) {
		free(dir);
		free(name);
		return -ENOMEM;
	}
	cfg.user_dir = dir;
	cfg.limits = q.limits;
	cfg.user_uid = (uid_t)q.user_uid;
	cfg.user_gid = (gid_t)q.user_gid;
	cfg.user_name = q.has_name ? name : NULL;
	cfg.flags = q.lint ? ENVD_LINT : 0;
	envd_buf_init(&s.not_conf, 0);
	envd_buf_init(&out, 0);
	r = read_user_side(&ld, &s, child_ms(cfg.limits.user_ms));
	/* group write relied on: whether the group is private is decided
	 * here, within the bound (NSS, as the user), not by the login */
	if (r == 0 && cfg.user_name != NULL && relies_on_group(&ld, &s)) {
		int p = envd_group_private(cfg.user_name, cfg.user_uid, cfg.user_gid);

		if (p < 0)
			r = p;
		s.private_group = p == 1 ? 1 : 2;
	}
	if (r == 0)
		r = encode_side(&out, &ld, &s);
	if (r == 0)
		r = envd_write_all(fd, out.data, out.len);
	envd_scan_free(&ld.scan);
	envd_buf_free(&s.not_conf);
	envd_buf_free(&out);
	free(dir);
	free(name);
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
static int read_user_child(struct loader *ld, struct side *s)
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
	struct side s = {.first = ld->scan.n};
	int r;

	envd_buf_init(&s.not_conf, 0);
	if (ld->cfg->user_ids)
		r = read_user_child(ld, &s);
	else
		r = read_user_side(ld, &s, ld->cfg->limits.user_ms);
	if (r == 0 && !s.failed)
		r = check_group_write(ld, &s);
	if (r == 0 && !s.failed)
		report_user_side(ld, &s);
	envd_buf_free(&s.not_conf);
	return r;
}

/* ---- one file: envd import-pam-environment (--as), envd audit ---- */

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

/* One file's job, as the request carries it. */
#define REQ_PATH 'p'

struct req_path {
	uint64_t max;
	uint32_t owner;
	uint8_t any_owner, pad[3];
};

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
