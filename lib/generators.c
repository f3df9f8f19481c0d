/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* generators.c - systemd's user environment generators, run as the user.
 *
 * systemd's user manager runs every executable of its generator
 * directories (src/core/manager.c, manager_run_environment_generators;
 * src/shared/exec-util.c and src/basic/conf-files.c in 252): one list
 * sorted by basename (strcmp), the first directory that holds a name with
 * a regular executable file or a mask (an empty file, a character device
 * such as a link to /dev/null) decides it; entries that are neither (not
 * executable, a directory, a dangling link) hold no name; hidden and
 * backup names are skipped.  They run one after the other, each with the
 * environment the earlier ones built, and each one's output is read as
 * env-file assignments without expansion ("KEY=" sets an empty value; no
 * assignment unsets).  A generator that fails is warned about and its
 * output used all the same.  30-systemd-environment-d-generator is
 * environment.d itself: this load is that one, in its place in the order.
 *
 * What is ours (SECURITY.md has the threat model):
 *  - Only root-owned (cfg->system_uid) regular executables writable by no
 *    one else, in directories of that owner writable by no one else,
 *    reached only through such directories (the safe chase of the system
 *    environment.d directories, fileio.c) are run.  An entry that fails a
 *    check is not run and still holds its name, so that an unsafe file in
 *    /etc never lets a later one of the same name run in its stead.
 *  - They run in a child process with the user's credentials, no
 *    capability, no_new_privs (helper/reader.c), started after the environment.d
 *    files are parsed, so that the generators after environment.d's place
 *    see its result; each in a session of its own (setsid), stdin and
 *    stderr /dev/null, stdout a pipe, umask 022, the environment built so
 *    far as its whole environment (its PATH included: the program runs
 *    as the user, who may run anything, and systemd gives it the same).
 *  - One time bound for the user side, reading and generators together
 *    (limits.user_ms from before the reader's fork): a generator still
 *    running at its end is killed with its process group, its output
 *    dropped, and the rest are not run; the login goes on.  Output over
 *    ENVD_MAX_GENERATOR_BYTES is dropped the same way.
 *  - The child sends each output back in the framed records of read.c;
 *    the caller checks every field, and parses each output as a user
 *    file: every name and value goes through the user policy.
 * Where systemd keeps nothing when one generator hangs (its executor is
 * killed after 90 s and every output is lost), and drops every output
 * after a value that is not UTF-8, the load here keeps what came before
 * and skips that one assignment. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
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
const char *const envd_generator_dirs[] = {
    "/run/systemd/user-environment-generators",
    "/etc/systemd/user-environment-generators",
    "/usr/local/lib/systemd/user-environment-generators",
    "/usr/lib/systemd/user-environment-generators",
    NULL,
};

/* environment.d's own generator, whose place this load takes */
#define ENVD_GENERATOR "30-systemd-environment-d-generator"

/* ---- listing, in the caller ---- */

/* systemd's hidden_or_backup_file(): names it never runs. */
static bool hidden_or_backup(const char *name)
{
	static const char *const suffixes[] = {
	    "rpmnew",    "rpmsave",  "rpmorig",     "dpkg-old",    "dpkg-new", "dpkg-tmp",
	    "dpkg-dist", "dpkg-bak", "dpkg-backup", "dpkg-remove", "ucf-new",  "ucf-old",
	    "ucf-dist",  "swp",      "bak",         "old",         "new",
	};
	const char *dot = strrchr(name, '.');
	size_t len = strlen(name);

	if (name[0] == '.' || strcmp(name, "lost+found") == 0 || strcmp(name, "aquota.user") == 0 ||
	    strcmp(name, "aquota.group") == 0 || (len > 0 && name[len - 1] == '~'))
		return true;
	for (size_t i = 0; dot && i < ENVD_ARRAY_SIZE(suffixes); i++)
		if (strcmp(dot + 1, suffixes[i]) == 0)
			return true;
	return false;
}

static int push_gen(struct envd_gens *g, const char *dir, const char *name, size_t d)
{
	struct envd_gen *e;

	if (g->n == g->cap) {
		struct envd_gen *nv = envd_grow(g->v, &g->cap, sizeof(*nv), 16);

		if (nv == NULL)
			return -ENOMEM;
		g->v = nv;
	}
	e = &g->v[g->n];
	memset(e, 0, sizeof(*e));
	e->path = envd_join(dir, '/', name);
	if (e->path == NULL)
		return -ENOMEM;
	e->name = e->path + strlen(dir) + 1;
	e->dir = d;
	e->state = ENVD_FILE_SKIPPED;
	e->code = ENVD_C_GEN_MASKED;
	g->n++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct envd_gen *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->dir < y->dir ? -1 : x->dir > y->dir;
}

/* The names of directory number d (fd), at most ENVD_MAX_GENERATORS of
 * them (in strcmp order, as envd_scan_dir keeps its first ones).
 * 0 or -ENOMEM. */
struct gen_pass {
	struct envd_gens *g;
	const char *path;
	size_t d;
};

static int gen_entry(int dirfd, const struct dirent *de, void *data)
{
	struct gen_pass *p = data;

	(void)dirfd;
	return hidden_or_backup(de->d_name) ? 0 : push_gen(p->g, p->path, de->d_name, p->d);
}

static int list_dir(struct loader *ld, int fd, const char *path, size_t d)
{
	struct envd_gens *g = &ld->gens;
	struct gen_pass p = {.g = g, .path = path, .d = d};
	size_t first = g->n;
	bool truncated;
	int r = envd_list_dir(fd, ENVD_MAX_FILES_PER_DIR, gen_entry, &p, &truncated);

	if (r == -ENOMEM)
		return r;
	if (r < 0)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_DIR_ERROR, path, 0, NULL,
		           "generator directory: cannot be listed whole; what was listed is used");
	if (g->n - first > ENVD_MAX_GENERATORS) {
		size_t extra = g->n - first - ENVD_MAX_GENERATORS;

		qsort(g->v + first, g->n - first, sizeof(*g->v), by_name);
		for (size_t i = first + ENVD_MAX_GENERATORS; i < g->n; i++)
			free(g->v[i].path);
		g->n = first + ENVD_MAX_GENERATORS;
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, path, 0, NULL,
		           "more than %u generators: %zu skipped", ENVD_MAX_GENERATORS, extra);
	}
	return 0;
}

/* What entry e of directory fd is: decides its state.  Returns true when
 * it holds its name (masks every later one), as systemd's listing does
 * for executables and masks, and as this one does for refused ones. */
static bool examine(struct loader *ld, int fd, const struct envd_check *chk, struct envd_gen *e)
{
	struct stat st;
	int r = envd_stat_entry(fd, e->name, chk, &st, &e->reason);

	if (r == -ENOENT || (r < 0 && r != -EPERM)) {
		e->state = ENVD_FILE_SKIPPED;
		e->code = ENVD_C_GEN_MASKED;
		if (e->reason == ENVD_R_NONE)
			e->reason = ENVD_R_OPEN;
		return false;
	}
	if (r == -EPERM) {
		e->state = ENVD_FILE_SKIPPED;
		e->code = ENVD_C_GEN_UNSAFE;
		return true;
	}
	if (S_ISCHR(st.st_mode) || (S_ISREG(st.st_mode) && st.st_size == 0)) {
		e->state = ENVD_FILE_MASKS;
		e->reason = S_ISCHR(st.st_mode) ? ENVD_R_DEV_NULL : ENVD_R_EMPTY;
		return true;
	}
	if (!S_ISREG(st.st_mode) || !(st.st_mode & 0111)) {
		e->state = ENVD_FILE_SKIPPED;
		e->code = ENVD_C_GEN_MASKED;
		e->reason = S_ISREG(st.st_mode) ? ENVD_R_NOT_EXEC : ENVD_R_NOT_REGULAR;
		return false;
	}
	e->state = ENVD_FILE_SKIPPED;
	if (st.st_uid != chk->owner_a) {
		e->code = ENVD_C_GEN_UNSAFE;
		e->reason = ENVD_R_OWNER;
	} else if (envd_others_write(chk, -1, &st)) {
		e->code = ENVD_C_GEN_UNSAFE;
		e->reason = ENVD_R_WRITABLE;
	} else if (strcmp(e->name, ENVD_GENERATOR) == 0) {
		e->code = ENVD_C_NONE;
		e->reason = ENVD_R_GEN_ENVD;
	} else {
		e->code = ENVD_C_NONE;
		e->reason = ENVD_R_GEN_NOT_RUN; /* to run */
	}
	return true;
}

static void report_listed(struct loader *ld, const struct envd_gen *e)
{
	switch (e->state) {
	case ENVD_FILE_SKIPPED:
		if (e->code == ENVD_C_GEN_UNSAFE)
			envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_GEN_UNSAFE, e->path, 0, NULL,
			           "generator not run: %s", envd_reason_text(e->reason));
		else if (e->code == ENVD_C_GEN_MASKED)
			envd_diagf(&ld->sink, ENVD_DEBUG, ENVD_C_GEN_MASKED, e->path, 0, NULL,
			           "not a generator: %s", envd_reason_text(e->reason));
		break;
	case ENVD_FILE_MASKED:
		envd_diagf(&ld->sink, ENVD_NOTICE, ENVD_C_GEN_MASKED, e->path, 0, NULL,
		           "generator masked by %s", e->masked_by->path);
		break;
	case ENVD_FILE_MASKS:
		envd_diagf(&ld->sink, ENVD_NOTICE, ENVD_C_GEN_MASKED, e->path, 0, NULL,
		           "runs nothing (%s) and masks the same name in later directories",
		           envd_reason_text(e->reason));
		break;
	case ENVD_FILE_USED:
		break;
	}
}

int envd_gens_list(struct loader *ld)
{
	const struct envd_config *cfg = ld->cfg;
	const char *const *dirs = cfg->generator_dirs ? cfg->generator_dirs : envd_generator_dirs;
	struct envd_check chk = {.owner_a = cfg->system_uid,
	                         .owner_b = cfg->system_uid,
	                         .group_ok = (gid_t)-1,
	                         .safe_dirs = true};
	struct envd_gens *g = &ld->gens;
	int fds[ENVD_MAX_DIRS];
	size_t nd = 0, i, j;
	int r = 0;

	for (nd = 0; nd < ENVD_MAX_DIRS && dirs[nd]; nd++) {
		enum envd_reason reason = ENVD_R_NONE;
		dev_t dev;

		fds[nd] = -1;
		if (r < 0 || dirs[nd][0] != '/')
			continue;
		fds[nd] = envd_open_dir(dirs[nd], &chk, false, &reason, &dev);
		if (fds[nd] == -ENOMEM)
			r = -ENOMEM;
		if (fds[nd] < 0) {
			if (fds[nd] != -ENOENT && fds[nd] != -ENOMEM)
				envd_diagf(&ld->sink, ENVD_ERROR,
				           fds[nd] == -EPERM ? ENVD_C_DIR_UNSAFE : ENVD_C_DIR_ERROR,
				           dirs[nd], 0, NULL, "generator directory: %s, skipped",
				           envd_reason_text(reason));
			fds[nd] = -1;
			continue;
		}
		r = list_dir(ld, fds[nd], dirs[nd], nd);
	}
	if (r == 0 && g->n > 1)
		qsort(g->v, g->n, sizeof(*g->v), by_name);
	/* each name: its entries in precedence order, the first that holds
	 * it decides, the later ones are masked */
	for (i = 0; r == 0 && i < g->n; i = j) {
		const struct envd_gen *holder = NULL;

		for (j = i; j < g->n && strcmp(g->v[j].name, g->v[i].name) == 0; j++) {
			struct envd_gen *e = &g->v[j];

			if (holder) {
				e->state = ENVD_FILE_MASKED;
				e->masked_by = holder;
			} else if (examine(ld, fds[e->dir], &chk, e))
				holder = e;
		}
	}
	g->first_after = g->n;
	g->to_run = 0;
	for (i = 0; r == 0 && i < g->n; i++) {
		if (g->first_after == g->n && strcmp(g->v[i].name, ENVD_GENERATOR) > 0)
			g->first_after = i;
		if (envd_gen_to_run(&g->v[i]) && g->to_run >= ENVD_MAX_GENERATORS)
			g->v[i].reason = ENVD_R_DIR_FULL;
		if (envd_gen_to_run(&g->v[i]))
			g->to_run++;
		report_listed(ld, &g->v[i]);
	}
	for (i = 0; i < nd; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return r;
}

void envd_gens_free(struct envd_gens *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].path);
		if (g->v[i].data)
			explicit_bzero(g->v[i].data, g->v[i].len);
		free(g->v[i].data);
	}
	free(g->v);
	memset(g, 0, sizeof(*g));
}

static int put_store(struct envd_buf *req, char type, const struct envd_store *st)
{
	int r = 0;

	for (size_t i = 0; i < st->n && r == 0; i++) {
		struct req_var v = {.name_len = (uint32_t)st->v[i].name_len};

		r = envd_rec_put(req, type, &v, sizeof(v), st->v[i].name, st->v[i].name_len,
		                 st->v[i].value, st->v[i].value_len);
	}
	return r;
}

static int gens_request(const struct loader *ld, unsigned ms, struct envd_buf *req)
{
	const struct envd_gens *g = &ld->gens;
	struct req_gens h = {
	    .ms = ms, .n = (uint32_t)g->n, .first_after = (uint32_t)g->first_after};
	int r = envd_rec_put(req, REQ_GENS, &h, sizeof(h), NULL, 0, NULL, 0);

	for (size_t i = 0; i < g->n && r == 0; i++) {
		struct req_gen e = {.to_run = envd_gen_to_run(&g->v[i])};

		r = envd_rec_put(req, REQ_GEN, &e, sizeof(e), g->v[i].path, strlen(g->v[i].path),
		                 NULL, 0);
	}
	if (r == 0)
		r = put_store(req, REQ_ENV_B, &ld->base);
	if (r == 0)
		r = put_store(req, REQ_ENV_R, &ld->res->store);
	return r;
}

/* ---- the records, in the caller ---- */

/* A reason a generator the child was to run is SKIPPED for: killed, or
 * its turn did not come. */
static bool ran_reason(uint32_t reason)
{
	return reason == ENVD_R_GEN_KILLED || reason == ENVD_R_GEN_TOO_BIG ||
	       reason == ENVD_R_GEN_LATE || reason == ENVD_R_GEN_NOT_RUN;
}

int envd_gens_records(struct loader *ld, const char *in, size_t n)
{
	struct envd_gens *g = &ld->gens;
	size_t pos = 0, next = 0, len;
	const char *body;
	char type;

	while (envd_rec_next(in, n, &pos, &type, &body, &len)) {
		struct rec_gen rec;
		struct envd_gen *e;
		size_t dlen;

		if (type == REC_GEN_END) {
			if (len != 0 || pos != n)
				break;
			return 0;
		}
		if (type != REC_GEN || len < sizeof(rec))
			break;
		memcpy(&rec, body, sizeof(rec));
		dlen = len - sizeof(rec);
		/* each generator to run at most once, in order */
		if (rec.index < next || rec.index >= g->n || !envd_gen_to_run(&g->v[rec.index]))
			break;
		e = &g->v[rec.index];
		next = rec.index + 1;
		switch (rec.state) {
		case ENVD_FILE_USED:
			if (rec.reason != ENVD_R_NONE && rec.reason != ENVD_R_GEN_FAILED &&
			    rec.reason != ENVD_R_GEN_SIGNAL)
				goto bad;
			break;
		case ENVD_FILE_SKIPPED:
			if (!ran_reason(rec.reason) || dlen)
				goto bad;
			break;
		default:
			goto bad;
		}
		if (dlen > ENVD_MAX_GENERATOR_BYTES)
			goto bad;
		if (dlen) {
			e->data = envd_memdup0(body + sizeof(rec), dlen);
			if (e->data == NULL)
				return -ENOMEM;
			e->len = dlen;
		}
		e->state = (enum envd_file_state)rec.state;
		e->reason = (enum envd_reason)rec.reason;
	}
bad:
	/* nothing of a broken stream is kept: what the records set is to run
	 * again */
	for (size_t i = 0; i < g->n; i++) {
		struct envd_gen *e = &g->v[i];

		if (e->state != ENVD_FILE_USED &&
		    (e->state != ENVD_FILE_SKIPPED || !ran_reason(e->reason)))
			continue;
		if (e->data)
			explicit_bzero(e->data, e->len);
		free(e->data);
		e->data = NULL;
		e->len = 0;
		e->state = ENVD_FILE_SKIPPED;
		e->reason = ENVD_R_GEN_NOT_RUN;
	}
	return -EBADMSG;
}

/* Every generator still marked to run: not run, for reason. */
static void not_run(struct envd_gens *g, enum envd_reason reason)
{
	for (size_t i = 0; i < g->n; i++)
		if (envd_gen_to_run(&g->v[i]))
			g->v[i].reason = reason;
}

static void report_run(struct loader *ld)
{
	const struct envd_gens *g = &ld->gens;
	size_t late = 0;

	for (size_t i = 0; i < g->n; i++) {
		const struct envd_gen *e = &g->v[i];

		if (e->state == ENVD_FILE_USED && e->reason != ENVD_R_NONE)
			envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_GEN_FAILED, e->path, 0, NULL,
			           "generator %s", envd_reason_text(e->reason));
		else if (e->state != ENVD_FILE_SKIPPED)
			continue;
		else if (e->reason == ENVD_R_GEN_KILLED || e->reason == ENVD_R_GEN_TOO_BIG ||
		         e->reason == ENVD_R_GEN_NOT_RUN)
			envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_GEN_KILLED, e->path, 0, NULL,
			           "generator %s", envd_reason_text(e->reason));
		else if (e->reason == ENVD_R_GEN_LATE || e->reason == ENVD_R_DIR_FULL)
			late++;
	}
	if (late)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, NULL, 0, NULL,
		           "the user side took longer than %zu ms: %zu generators not run",
		           ld->cfg->limits.user_ms, late);
}

int envd_gens_run(struct loader *ld)
{
	const struct envd_limits *lim = &ld->cfg->limits;
	size_t spent = envd_ms_since(&ld->user_start);
	struct envd_child c = {.ids = ld->cfg->user_ids,
	                       .memory_bytes = 1024u << 20,
	                       .programs = true,
	                       .reader = ld->cfg->reader};
	struct envd_buf in, req;
	unsigned ms;
	int r;

	if (ld->gens.to_run == 0)
		return 0;
	if (spent >= lim->user_ms) {
		not_run(&ld->gens, ENVD_R_GEN_LATE);
		report_run(ld);
		return 0;
	}
	ms = (unsigned)(lim->user_ms - spent);
	c.budget_ms = ms;
	envd_buf_init(&in, ENVD_MAX_GENERATORS * (ENVD_MAX_GENERATOR_BYTES + 64) + 64);
	envd_buf_init(&req, ENVD_REQ_MAX);
	r = envd_child_request(&c, ENVD_JOB_GENS, &req);
	if (r == 0)
		r = gens_request(ld, ms, &req);
	if (r == 0)
		r = envd_child_run(&c, &req, &in);
	if (req.data)
		explicit_bzero(req.data, req.len);
	envd_buf_free(&req);
	if (r == 0)
		r = envd_gens_records(ld, in.data, in.len);
	if (in.data)
		explicit_bzero(in.data, in.len);
	envd_buf_free(&in);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		not_run(&ld->gens, r == -ETIMEDOUT ? ENVD_R_GEN_LATE : ENVD_R_GEN_NOT_RUN);
	report_run(ld);
	return 0;
}
