/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* userside.c - the user directory read as the user: in the reader
 * (helper/reader.c runs envd_job_user) and, for envd run by the user, in
 * envd itself (cfg->read_here).  It lists the directory, reads and checks
 * each file with the walk of fileio.c, and encodes what it found as the
 * records read.c checks.  Not linked into the module: the login process
 * never reads the user's files. */
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

/* Reads the listed user files from fd while the time lasts.  Returns 0 or
 * -ENOMEM. */
static int read_user_files(struct loader *ld, int fd, dev_t dev, struct envd_side *s,
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
		r = envd_read_one(ld, fd, dev, e, chk);
	}
	return r;
}

static void keep_not_conf(const char *name, void *data)
{
	struct envd_side *s = data;

	/* a name that does not fit is a lint finding less, nothing more */
	if (envd_buf_append(&s->not_conf, name, strlen(name) + 1) == 0)
		s->n_not_conf++;
}

/* Reads the user directory into ld->scan and s, within ms, and says
 * nothing: in a child there is no one to tell.  Returns 0 or -ENOMEM. */
int envd_side_read(struct loader *ld, struct envd_side *s, size_t ms)
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

static int encode_side(struct envd_buf *b, const struct loader *ld, const struct envd_side *s)
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

int envd_job_user(const char *in, size_t n, int fd)
{
	struct envd_config cfg = {.user_name = NULL};
	struct loader ld = {.cfg = &cfg};
	struct envd_side s = {.first = 0};
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
	r = envd_side_read(&ld, &s, child_ms(cfg.limits.user_ms));
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
