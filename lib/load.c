/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* load.c - the one loading path: directories -> files -> assignments.
 *
 * Order of work: (1) inside one enter_user/leave_user window, list the user
 * directory and read its files (every user file wins its name: the user
 * directory has the highest precedence); (2) list the system directories and
 * read the files no earlier directory masks; (3) parse, filter and expand
 * the files in strcmp order of their basenames.  Everything is linear in the
 * input except the one sort of the file names. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "loader.h"

const char *const envd_system_dirs[] = {
    "/etc/environment.d",
    "/run/environment.d",
    "/usr/local/lib/environment.d",
    "/usr/lib/environment.d",
    NULL,
};

void envd_limits_default(struct envd_limits *l)
{
	l->file_bytes = ENVD_MAX_FILE_BYTES;
	l->input_bytes = ENVD_MAX_INPUT_BYTES;
	l->files_per_dir = ENVD_MAX_FILES_PER_DIR;
	l->assignments = ENVD_MAX_ASSIGNMENTS;
	l->entry_bytes = ENVD_MAX_ENTRY_BYTES;
	l->expansion_bytes = ENVD_MAX_EXPANSION_BYTES;
	l->depth = ENVD_MAX_DEPTH;
	l->result_bytes = ENVD_MAX_RESULT_BYTES;
	l->diagnostics = ENVD_MAX_DIAGNOSTICS;
	l->link_steps = ENVD_MAX_LINK_STEPS;
	l->window_ms = ENVD_MAX_WINDOW_MS;
}

void envd_config_init(struct envd_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->user_uid = (uid_t)-1;
	cfg->system_uid = 0;
	cfg->diag_level = ENVD_DEBUG;
	cfg->base_preset = SIZE_MAX;
	envd_limits_default(&cfg->limits);
}

const char *envd_version(void)
{
	return PACKAGE_VERSION;
}

/* ---- reading ---- */

/* Reads one listed file into e.  Returns 0, or -ENOMEM. */
static int read_one(struct loader *ld, int dirfd, struct envd_scan_entry *e,
                    const struct envd_check *chk)
{
	const struct envd_limits *lim = &ld->cfg->limits;
	size_t max = lim->file_bytes;
	int r;

	e->status = ENVD_SCAN_SKIPPED;
	if (ld->input_bytes >= lim->input_bytes) {
		e->code = ENVD_C_LIMIT;
		e->reason = "the limit on bytes read in one load was reached";
		return 0;
	}
	if (max > lim->input_bytes - ld->input_bytes)
		max = lim->input_bytes - ld->input_bytes;
	r = envd_read_file(dirfd, e->name, chk, max, &e->data, &e->len, &e->reason);
	if (r == -ENOMEM)
		return r;
	if (r == 0 && e->data) {
		e->status = ENVD_SCAN_READ;
		ld->input_bytes += e->len;
	} else if (r == 0 || r == ENVD_READ_MASKS) {
		e->status = ENVD_SCAN_MASKS;
		e->empty = r == 0;
	} else
		e->code = r == -EPERM                   ? ENVD_C_FILE_UNSAFE
		          : r == -EFBIG || r == -EMLINK ? ENVD_C_LIMIT
		                                        : ENVD_C_FILE_ERROR;
	return 0;
}

static void report_dir(struct loader *ld, const char *path, bool user, int r, const char *reason)
{
	enum envd_code code = r == -ENOENT  ? ENVD_C_DIR_MISSING
	                      : r == -EPERM ? ENVD_C_DIR_UNSAFE
	                                    : ENVD_C_DIR_ERROR;

	envd_diagf(&ld->sink, code == ENVD_C_DIR_MISSING ? ENVD_DEBUG : ENVD_ERROR, code, path, 0,
	           NULL, "%s directory %s, skipped", user ? "user" : "system", reason);
}

/* Opens and lists directory number dir into *fd, or -1 when it is skipped
 * (reported).  Returns 0, or -ENOMEM. */
static int list_dir(struct loader *ld, size_t dir, bool user, const struct envd_check *chk, int *fd)
{
	const struct envd_limits *lim = &ld->cfg->limits;
	const char *path = ld->dir_paths[dir], *reason;
	struct envd_scan_report rep;
	int r;

	*fd = envd_open_dir(path, chk, user, &reason);
	if (*fd == -ENOMEM)
		return -ENOMEM;
	if (*fd < 0) {
		report_dir(ld, path, user, *fd, reason);
		*fd = -1;
		return 0;
	}
	r = envd_scan_dir(&ld->scan, *fd, dir, lim->files_per_dir, &rep);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_DIR_ERROR, path, 0, NULL,
		           "error while listing the directory");
	if (rep.dropped)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, path, 0, NULL,
		           "more than %zu .conf files: %zu skipped", lim->files_per_dir,
		           rep.dropped);
	if (rep.truncated)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, path, 0, NULL,
		           "too many directory entries: listing stopped");
	/* lint only: a listing that fails is no finding, out of memory
	 * fails the load as everywhere */
	if (rep.not_conf && (ld->cfg->flags & ENVD_LINT))
		return envd_lint_not_conf(ld, *fd, path) == -ENOMEM ? -ENOMEM : 0;
	return 0;
}

/* When the user side's window must close: window_ms from now.  Returns
 * false when the clock cannot be read (the user's files are then not
 * read: the bound could not be kept). */
static bool window_deadline(const struct envd_limits *lim, struct timespec *until)
{
	if (clock_gettime(CLOCK_MONOTONIC, until) != 0)
		return false;
	until->tv_sec += (time_t)(lim->window_ms / 1000);
	until->tv_nsec += (long)(lim->window_ms % 1000) * 1000000L;
	if (until->tv_nsec >= 1000000000L) {
		until->tv_sec++;
		until->tv_nsec -= 1000000000L;
	}
	return true;
}

static bool past(const struct timespec *until)
{
	struct timespec now;

	if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
		return true;
	return now.tv_sec > until->tv_sec ||
	       (now.tv_sec == until->tv_sec && now.tv_nsec >= until->tv_nsec);
}

/* Reads the listed user files [first, scan.n) from fd, while the window's
 * time lasts.  Returns 0 or -ENOMEM. */
static int read_user_files(struct loader *ld, int fd, size_t first, const struct envd_check *chk)
{
	const struct envd_limits *lim = &ld->cfg->limits;
	struct timespec until;
	bool in_time = window_deadline(lim, &until);
	size_t i, late = 0;
	int r = 0;

	for (i = first; i < ld->scan.n && r == 0; i++) {
		struct envd_scan_entry *e = &ld->scan.v[i];

		if (e->status != ENVD_SCAN_PENDING)
			continue;
		if (in_time && past(&until))
			in_time = false;
		if (!in_time) {
			/* not read, but still its name: it masks */
			e->status = ENVD_SCAN_SKIPPED;
			e->code = ENVD_C_LIMIT;
			e->reason =
			    "not read: the time limit for reading the user's files was reached";
			late++;
			continue;
		}
		r = read_one(ld, fd, e, chk);
	}
	if (late > 0)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, ld->cfg->user_dir, 0, NULL,
		           "reading the user's files took longer than %zu ms: %zu files not read",
		           lim->window_ms, late);
	if (chk->walk->links_cut)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, ld->cfg->user_dir, 0, NULL,
		           "more than %zu symbolic link steps: the files behind the rest were "
		           "not read",
		           lim->link_steps);
	return r;
}

/* Phase 1: the user directory, inside one privilege window.  Returns 0,
 * -ENOMEM, or -EPERM when the privileges could not be restored. */
static int load_user(struct loader *ld)
{
	const struct envd_config *cfg = ld->cfg;
	struct envd_walk walk = {.links_left = cfg->limits.link_steps};
	struct envd_check chk = {.owner_a = cfg->user_uid, .owner_b = 0, .walk = &walk};
	size_t first = ld->scan.n;
	int fd, r;

	if (cfg->enter_user && cfg->enter_user(cfg->priv_data) != 0) {
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_DIR_ERROR, cfg->user_dir, 0, NULL,
		           "cannot switch to the user's privileges: user directory skipped");
		return 0;
	}
	r = list_dir(ld, 0, true, &chk, &fd);
	if (fd >= 0) {
		/* every user file wins its name: read them all now */
		if (r == 0)
			r = read_user_files(ld, fd, first, &chk);
		close(fd);
	}
	if (cfg->leave_user && cfg->leave_user(cfg->priv_data) != 0)
		r = -EPERM;
	return r;
}

/* Phase 2: the system directories; only unmasked files are read.  Returns
 * 0 or -ENOMEM. */
static int load_system(struct loader *ld, size_t first_dir)
{
	struct envd_check chk = {.owner_a = ld->cfg->system_uid, .owner_b = ld->cfg->system_uid};
	int fds[ENVD_MAX_DIRS], r = 0;
	size_t d, i, nd = ld->ndirs; /* one bound for both loops: what is opened is closed */

	for (d = first_dir; d < nd; d++) {
		fds[d] = -1;
		if (r == 0)
			r = list_dir(ld, d, false, &chk, &fds[d]);
	}
	if (r == 0)
		envd_scan_sort(&ld->scan);
	for (i = 0; i < ld->scan.n && r == 0; i++) {
		struct envd_scan_entry *e = &ld->scan.v[i];

		if (e->status == ENVD_SCAN_PENDING && e->dir >= first_dir)
			r = read_one(ld, fds[e->dir], e, &chk);
	}
	for (d = first_dir; d < nd; d++)
		if (fds[d] >= 0)
			close(fds[d]);
	return r;
}

/* ---- assignments ---- */

static const char *lookup(const char *name, size_t len, size_t *vlen, void *data)
{
	struct loader *ld = data;
	const struct envd_store *s = &ld->res->store;
	uint64_t h = envd_hash(name, len);
	size_t i = envd_store_find_h(s, name, len, h);

	if (i == SIZE_MAX) {
		s = &ld->base;
		i = envd_store_find_h(s, name, len, h);
	}
	if (i == SIZE_MAX)
		return NULL;
	*vlen = s->v[i].value_len;
	return s->v[i].value;
}

#define SHOWN_PREFIX 16 /* bytes of an invalid name that a diagnostic shows */

/* What may be shown of an invalid name: only its leading run of name
 * characters, at most SHOWN_PREFIX bytes.  A malformed line can hold a
 * secret ("TOKEN VALSECRET1=x" has the key "TOKEN VALSECRET1"), and the
 * run stops before the first byte that made the name invalid. */
static void describe_key(char *out, const char *key, size_t len)
{
	size_t n = 0;

	while (n < len && n < SHOWN_PREFIX && envd_name_char(key[n]))
		n++;
	memcpy(out, key, n);
	out[n] = '\0';
}

static int bad_name(struct loader *ld, const char *key, size_t len)
{
	char shown[SHOWN_PREFIX + 1];

	if (len > 7 && memcmp(key, "export", 6) == 0 && (key[6] == ' ' || key[6] == '\t')) {
		size_t skip = 7;

		while (skip < len && (key[skip] == ' ' || key[skip] == '\t'))
			skip++;
		describe_key(shown, key + skip, len - skip);
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_EXPORT, ld->file, ld->line, NULL,
		           "\"export %s%s\": environment.d has no \"export\"; write NAME=VALUE",
		           shown, strlen(shown) < len - skip ? "..." : "");
		return 0;
	}
	describe_key(shown, key, len);
	if (shown[0])
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_BAD_NAME, ld->file, ld->line, NULL,
		           "invalid variable name of %zu bytes, starting \"%s\"%s; ignored", len,
		           shown, strlen(shown) < len ? " (the rest not shown)" : "");
	else
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_BAD_NAME, ld->file, ld->line, NULL,
		           "invalid variable name of %zu bytes; ignored", len);
	return 0;
}

/* Expands raw into ld->xbuf. */
static int expand_value(struct loader *ld, const char *name, size_t name_len, const char *raw,
                        size_t raw_len)
{
	const struct envd_limits *lim = &ld->cfg->limits;
	struct envd_expand_state st = {
	    .budget = ld->expansion_left,
	    .max_out = lim->entry_bytes > name_len + 1 ? lim->entry_bytes - name_len - 1 : 0,
	    .max_depth = lim->depth,
	    .lookup = lookup,
	    .lookup_data = ld,
	    .on_ref = (ld->cfg->flags & ENVD_LINT) ? envd_lint_on_ref : NULL,
	};
	int r;

	if (st.max_out == 0) /* 0 would mean "no cap" to the buffer */
		st.max_out = 1;
	r = envd_expand_buf(&st, raw, raw_len, &ld->xbuf);

	ld->expansion_left = st.budget;
	if (r == -E2BIG && st.budget == 0 && !ld->budget_said) {
		ld->budget_said = true;
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, ld->file, ld->line, name,
		           "expansion limit of %zu bytes per load reached: %s and later "
		           "expansions skipped",
		           lim->expansion_bytes, name);
	} else if (r == -E2BIG && st.budget)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, ld->file, ld->line, name,
		           "%s would be longer than %zu bytes, skipped", name, lim->entry_bytes);
	else if (r == -E2BIG)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, ld->file, ld->line, name,
		           "expansion limit reached: %s skipped", name);
	else if (r == -ELOOP)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, ld->file, ld->line, name,
		           "expansions nested deeper than %zu: %s skipped", lim->depth, name);
	return r;
}

/* Whether name=VALUE of vlen bytes keeps the result within cap bytes; the
 * value it replaces is looked up only near the cap. */
static bool result_fits(const struct envd_store *s, size_t cap, const char *name, size_t name_len,
                        uint64_t h, size_t vlen)
{
	size_t add = name_len + vlen + 2, i;

	if (s->bytes + add <= cap)
		return true;
	i = envd_store_find_h(s, name, name_len, h);
	return i != SIZE_MAX && s->bytes - (s->v[i].value_len + name_len + 2) + add <= cap;
}

/* Stores a copy of v. */
static int store_value(struct loader *ld, const char *name, size_t name_len, uint64_t h,
                       const char *v, size_t vlen)
{
	const struct envd_limits *lim = &ld->cfg->limits;
	struct envd_store *s = &ld->res->store;
	int r;

	if (name_len + 1 + vlen > lim->entry_bytes) {
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, ld->file, ld->line, name,
		           "%s would be longer than %zu bytes, skipped", name, lim->entry_bytes);
		return 0;
	}
	if (!result_fits(s, lim->result_bytes, name, name_len, h, vlen)) {
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, ld->file, ld->line, name,
		           "environment would exceed %zu bytes: %s skipped", lim->result_bytes,
		           name);
		return 0;
	}
	r = envd_store_set_h(s, name, name_len, h, v, vlen, ld->file, ld->line, ld->user_side);
	if (r == 0)
		envd_diagf(&ld->sink, ENVD_DEBUG, ENVD_C_SET, ld->file, ld->line, name, "%s set",
		           name);
	return r;
}

/* nooverwrite: was name in the login's own environment? */
static bool preset(struct loader *ld, const char *name, size_t len, uint64_t h)
{
	size_t i = envd_store_find_h(&ld->base, name, len, h);

	return i != SIZE_MAX && ld->base_index[i] < ld->cfg->base_preset;
}

static int on_assign(const char *key, size_t key_len, const char *value, size_t value_len,
                     bool has_value, unsigned line, void *data)
{
	struct loader *ld = data;
	const struct envd_config *cfg = ld->cfg;
	const char *name = key; /* NUL-terminated by the parser */
	const char *v = value, *why;
	size_t vlen = value_len;
	uint64_t h;
	int r;

	ld->line = line;
	if (++ld->assignments > cfg->limits.assignments) {
		if (!ld->assignments_full)
			envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, ld->file, line, NULL,
			           "more than %zu assignments: the rest is skipped",
			           cfg->limits.assignments);
		ld->assignments_full = true;
		return 1; /* stop this file; later files stop at once too */
	}
	if (!envd_name_valid(key, key_len))
		return bad_name(ld, key, key_len);
	h = envd_hash(name, key_len);
	if (!has_value) {
		/* "WORD=" may be a pasted secret with one '=' of padding: only
		 * what describe_key shows of a bad name is shown of it */
		char shown[SHOWN_PREFIX + 1];

		describe_key(shown, key, key_len);
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_NO_VALUE, ld->file, line, shown,
		           "%s%s= has no value and sets nothing (environment.d cannot set an "
		           "empty value, nor unset one)%s",
		           shown, key_len > SHOWN_PREFIX ? "..." : "",
		           key_len > SHOWN_PREFIX ? "; the name's rest is not shown" : "");
		return 0;
	}
	if (ld->user_side && (why = envd_policy_check(cfg->policy, name, NULL))) {
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_REFUSED, ld->file, line, name,
		           "%s refused: %s", name, why);
		return 0;
	}
	if ((cfg->flags & ENVD_NO_OVERWRITE) && preset(ld, name, key_len, h)) {
		envd_diagf(&ld->sink, ENVD_NOTICE, ENVD_C_KEPT, ld->file, line, name,
		           "%s is already set and kept (nooverwrite)", name);
		return 0;
	}
	if (cfg->flags & ENVD_LINT)
		envd_lint_raw(ld, name, value, value_len);
	/* without a '$' the expansion is the value itself */
	if (!(cfg->flags & ENVD_NO_EXPAND) && memchr(value, '$', value_len)) {
		ld->user_ref[0] = '\0';
		r = expand_value(ld, name, key_len, value, value_len);
		if (r == -E2BIG || r == -ELOOP)
			return 0; /* reported */
		if (r < 0)
			return r;
		/* the checks below read v as a string: the buffer keeps a spare
		 * byte for the NUL, and without it held the previous value's
		 * bytes past vlen.  No data: nothing was ever appended. */
		if (ld->xbuf.data)
			ld->xbuf.data[ld->xbuf.len] = '\0';
		v = ld->xbuf.data ? ld->xbuf.data : "";
		vlen = ld->xbuf.len;
	}
	if (!envd_utf8_valid(v, vlen)) {
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_BAD_UTF8, ld->file, line, name,
		           "value of %s is not valid UTF-8, skipped", name);
		return 0;
	}
	/* what depends on the value (TZ) */
	if (ld->user_side && (why = envd_policy_check(cfg->policy, name, v))) {
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_REFUSED, ld->file, line, name,
		           "%s refused: %s", name, why);
		return 0;
	}
	if (cfg->flags & ENVD_LINT)
		envd_lint_value(ld, name, v, vlen, v != value);
	return store_value(ld, name, key_len, h, v, vlen);
}

/* ---- the pipeline ---- */

static int add_file(struct loader *ld, struct envd_scan_entry *e)
{
	static const enum envd_file_state state_of[] = {
	    [ENVD_SCAN_PENDING] = ENVD_FILE_SKIPPED, [ENVD_SCAN_READ] = ENVD_FILE_USED,
	    [ENVD_SCAN_MASKS] = ENVD_FILE_MASKS,     [ENVD_SCAN_SKIPPED] = ENVD_FILE_SKIPPED,
	    [ENVD_SCAN_MASKED] = ENVD_FILE_MASKED,
	};
	struct envd_result *res = ld->res;
	struct envd_file *f;
	char *path = envd_join(ld->dir_paths[e->dir], '/', e->name);

	if (!path)
		return -ENOMEM;
	f = &res->files[res->nfiles++];
	f->path = path;
	f->basename = path + strlen(ld->dir_paths[e->dir]) + 1;
	f->state = state_of[e->status];
	f->user_side = ld->cfg->user_dir && e->dir == 0;
	f->masked_by = NULL;
	f->reason = e->reason;
	f->empty = e->empty;
	if (e->status == ENVD_SCAN_PENDING) {
		f->reason = "not read";
		e->code = ENVD_C_FILE_ERROR;
	}
	return 0;
}

/* Reports file f and parses it when it was read.  Returns 0 or -ENOMEM. */
static int process_file(struct loader *ld, struct envd_scan_entry *e, struct envd_file *f)
{
	int r;

	switch (e->status) {
	case ENVD_SCAN_MASKED:
		/* the entry of the directory with the highest precedence */
		f->masked_by = ld->res->files[e->masked_by - ld->scan.v].path;
		envd_diagf(&ld->sink, ENVD_NOTICE, ENVD_C_FILE_MASKED, f->path, 0, NULL,
		           "masked by %s", f->masked_by);
		return 0;
	case ENVD_SCAN_MASKS:
		envd_diagf(&ld->sink, ENVD_NOTICE, ENVD_C_FILE_MASKED, f->path, 0, NULL,
		           "reads nothing (%s) and masks the same name in later directories",
		           f->reason);
		return 0;
	case ENVD_SCAN_PENDING:
	case ENVD_SCAN_SKIPPED:
		envd_diagf(&ld->sink, ENVD_ERROR, e->code, f->path, 0, NULL, "%s, skipped",
		           f->reason);
		return 0;
	case ENVD_SCAN_READ:
		break;
	}
	if (memchr(e->data, '\0', e->len)) {
		f->state = ENVD_FILE_SKIPPED;
		f->reason = "contains a NUL byte";
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_FILE_NUL, f->path, 0, NULL,
		           "contains a NUL byte, skipped (as systemd does)");
		return 0;
	}
	if (ld->assignments_full)
		return 0;
	ld->file = f->path;
	ld->user_side = f->user_side;
	/* on_assign's 1 only stops the file */
	r = envd_parse_with(e->data, e->len, on_assign, ld, &ld->kbuf, &ld->vbuf);
	return r < 0 ? r : 0;
}

static int index_base(struct loader *ld)
{
	const char *const *p;
	const char *eq;
	size_t n = 0;
	int r;

	while (ld->cfg->base_env && ld->cfg->base_env[n])
		n++;
	ld->base_index = calloc(n + 1, sizeof(size_t));
	if (!ld->base_index)
		return -ENOMEM;
	for (p = ld->cfg->base_env; p && *p; p++) {
		size_t len;
		uint64_t h;

		eq = strchr(*p, '=');
		if (!eq || eq == *p)
			continue;
		len = (size_t)(eq - *p);
		h = envd_hash(*p, len);
		/* the first occurrence wins, as getenv() finds it */
		if (envd_store_find_h(&ld->base, *p, len, h) != SIZE_MAX)
			continue;
		r = envd_store_set_h(&ld->base, *p, len, h, eq + 1, strlen(eq + 1), NULL, 0, false);
		if (r < 0)
			return r;
		ld->base_index[ld->base.n - 1] = (size_t)(p - ld->cfg->base_env);
	}
	return 0;
}

static int set_dirs(struct loader *ld)
{
	const struct envd_config *cfg = ld->cfg;
	const char *const *sys = cfg->system_dirs ? cfg->system_dirs : envd_system_dirs;
	size_t n = 0, i, rl = cfg->root ? strlen(cfg->root) : 0;
	char *p;

	while (rl > 1 && cfg->root[rl - 1] == '/')
		rl--;
	for (i = 0; sys[i]; i++)
		n++;
	if (n + 1 > ENVD_MAX_DIRS)
		return -EINVAL;
	ld->dir_paths = calloc(n + 1, sizeof(char *));
	if (!ld->dir_paths)
		return -ENOMEM;
	if (cfg->user_dir) {
		p = envd_memdup0(cfg->user_dir, strlen(cfg->user_dir));
		if (!p)
			return -ENOMEM;
		ld->dir_paths[ld->ndirs++] = p;
	}
	for (i = 0; i < n; i++) {
		size_t sl = strlen(sys[i]);

		if (sys[i][0] != '/')
			return -EINVAL;
		p = malloc(rl + sl + 1);
		if (!p)
			return -ENOMEM;
		if (rl)
			memcpy(p, cfg->root, rl);
		memcpy(p + rl, sys[i], sl + 1);
		ld->dir_paths[ld->ndirs++] = p;
	}
	return 0;
}

static int finish(struct loader *ld)
{
	struct envd_result *res = ld->res;
	size_t i;

	res->vars = calloc(res->store.n + 1, sizeof(*res->vars));
	if (!res->vars)
		return -ENOMEM;
	for (i = 0; i < res->store.n; i++) {
		const struct envd_entry *e = &res->store.v[i];
		size_t b = envd_store_find_h(&ld->base, e->name, e->name_len, e->hash);
		const char *before = NULL;

		if (b != SIZE_MAX && ld->base_index[b] < ld->cfg->base_preset)
			before = ld->cfg->base_env[ld->base_index[b]] + e->name_len + 1;
		res->vars[i] = (struct envd_var){.name = e->name,
		                                 .value = e->value,
		                                 .value_len = e->value_len,
		                                 .file = e->file,
		                                 .line = e->line,
		                                 .name_len = e->name_len,
		                                 .user_side = e->user_side,
		                                 .before = before};
	}
	return 0;
}

int envd_load(const struct envd_config *cfg, struct envd_result **out)
{
	struct loader ld = {.cfg = cfg};
	size_t i;
	int r;

	*out = NULL;
	if (cfg->user_dir && cfg->user_dir[0] != '/')
		return -EINVAL;
	ld.res = calloc(1, sizeof(*ld.res));
	if (!ld.res)
		return -ENOMEM;
	ld.sink = (struct envd_diag_sink){.fn = cfg->diag,
	                                  .data = cfg->diag_data,
	                                  .level = cfg->diag_level,
	                                  .max = cfg->limits.diagnostics};
	ld.expansion_left = cfg->limits.expansion_bytes;
	envd_buf_init(&ld.xbuf, 0);
	envd_buf_init(&ld.kbuf, 0);
	envd_buf_init(&ld.vbuf, 0);
	envd_store_init(&ld.res->store);
	envd_store_init(&ld.base);

	r = set_dirs(&ld);
	if (r == 0)
		r = index_base(&ld);
	if (r == 0 && cfg->user_dir)
		r = load_user(&ld);
	if (r == 0)
		r = load_system(&ld, cfg->user_dir ? 1 : 0);
	if (r == 0) {
		ld.res->files = calloc(ld.scan.n + 1, sizeof(*ld.res->files));
		if (!ld.res->files)
			r = -ENOMEM;
	}
	for (i = 0; r == 0 && i < ld.scan.n; i++) {
		r = add_file(&ld, &ld.scan.v[i]);
		if (r == 0)
			r = process_file(&ld, &ld.scan.v[i], &ld.res->files[i]);
	}
	if (r == 0)
		r = finish(&ld);
	ld.res->ndiag = ld.sink.count;
	envd_scan_free(&ld.scan);
	envd_buf_free(&ld.xbuf);
	envd_buf_free(&ld.kbuf);
	envd_buf_free(&ld.vbuf);
	envd_store_free(&ld.base);
	free(ld.base_index);
	for (i = 0; i < ld.ndirs; i++)
		free(ld.dir_paths[i]);
	free(ld.dir_paths);
	if (r < 0) {
		envd_result_free(ld.res);
		return r;
	}
	*out = ld.res;
	return 0;
}

void envd_result_free(struct envd_result *res)
{
	size_t i;

	if (!res)
		return;
	for (i = 0; i < res->nfiles; i++)
		free((char *)res->files[i].path);
	free(res->files);
	free(res->vars);
	envd_store_free(&res->store);
	free(res);
}

size_t envd_result_count(const struct envd_result *res)
{
	return res->store.n;
}

const struct envd_var *envd_result_var(const struct envd_result *res, size_t i)
{
	return i < res->store.n ? &res->vars[i] : NULL;
}

const struct envd_var *envd_result_get(const struct envd_result *res, const char *name)
{
	size_t i = envd_store_find(&res->store, name, strlen(name));

	return i == SIZE_MAX ? NULL : &res->vars[i];
}

size_t envd_result_file_count(const struct envd_result *res)
{
	return res->nfiles;
}

const struct envd_file *envd_result_file(const struct envd_result *res, size_t i)
{
	return i < res->nfiles ? &res->files[i] : NULL;
}

size_t envd_result_diag_count(const struct envd_result *res)
{
	return res->ndiag;
}
