/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* load.c - the one loading path: directories -> files -> assignments.
 *
 * Order of work (read.c reads): (1) the user directory is listed and its
 * files read by a process that is the user (every user file wins its name:
 * the user directory has the highest precedence); (2) the system
 * directories are listed and the files no earlier directory masks are
 * read; (3) here, the files are parsed, filtered and expanded in strcmp
 * order of their basenames.  Everything is linear in the input except the
 * one sort of the file names. */
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

/* Every limit once: its field, its default, and its ceiling (internal.h:
 * arithmetic on it cannot wrap, so a limit of SIZE_MAX still means "no
 * limit"). */
/* clang-format off */
#define LIMITS(X) \
	X(file_bytes,      ENVD_MAX_FILE_BYTES,      ENVD_LIMIT_BYTES) \
	X(input_bytes,     ENVD_MAX_INPUT_BYTES,     ENVD_LIMIT_BYTES) \
	X(files_per_dir,   ENVD_MAX_FILES_PER_DIR,   ENVD_LIMIT_COUNT) \
	X(assignments,     ENVD_MAX_ASSIGNMENTS,     ENVD_LIMIT_COUNT) \
	X(entry_bytes,     ENVD_MAX_ENTRY_BYTES,     ENVD_LIMIT_BYTES) \
	X(expansion_bytes, ENVD_MAX_EXPANSION_BYTES, ENVD_LIMIT_BYTES) \
	X(depth,           ENVD_MAX_DEPTH,           ENVD_LIMIT_COUNT) \
	X(result_bytes,    ENVD_MAX_RESULT_BYTES,    ENVD_LIMIT_BYTES) \
	X(diagnostics,     ENVD_MAX_DIAGNOSTICS,     ENVD_LIMIT_COUNT) \
	X(link_steps,      ENVD_MAX_LINK_STEPS,      ENVD_LIMIT_COUNT) \
	X(user_ms,         ENVD_MAX_USER_MS,         ENVD_LIMIT_MS) \
	X(user_vars,       ENVD_MAX_USER_VARS,       ENVD_LIMIT_COUNT)
/* clang-format on */

void envd_limits_default(struct envd_limits *l)
{
#define DEFAULT(field, value, ceiling) l->field = value;
	LIMITS(DEFAULT)
#undef DEFAULT
}

static void clamp_limits(struct envd_limits *l)
{
#define CLAMP(field, value, ceiling) l->field = envd_at_most(l->field, ceiling);
	LIMITS(CLAMP)
#undef CLAMP
}

void envd_config_init(struct envd_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->user_uid = (uid_t)-1;
	cfg->user_gid = (gid_t)-1;
	cfg->system_uid = 0;
	cfg->diag_level = ENVD_DEBUG;
	cfg->base_preset = SIZE_MAX;
	envd_limits_default(&cfg->limits);
}

const char *envd_version(void)
{
	return PACKAGE_VERSION;
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

#define SHOWN_PREFIX 16 /* bytes of an invalid name's start that a diagnostic shows */
#define SHOWN_WHOLE  32 /* bytes of an invalid name shown whole */

/* Whether an invalid name reads as a name someone meant, like FOO-BAR or
 * my.var, and is shown whole, as systemd shows it: at most SHOWN_WHOLE
 * bytes of letters of one case, digits, '_', '-' and '.', no digit
 * before a letter.  A malformed line can hold a secret ("TOKEN-s3cr3t=x",
 * "TOKEN VALSECRET1=x"): random text mixes cases, digits and letters. */
static bool reads_as_name(const char *key, size_t len)
{
	bool upper = false, lower = false;
	size_t i;

	if (len > SHOWN_WHOLE)
		return false;
	for (i = 0; i < len; i++) {
		char c = key[i];

		upper |= c >= 'A' && c <= 'Z';
		lower |= c >= 'a' && c <= 'z';
		if (!envd_name_char(c) && c != '-' && c != '.')
			return false;
		if (i > 0 && key[i - 1] >= '0' && key[i - 1] <= '9' &&
		    ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')))
			return false;
	}
	return !(upper && lower);
}

/* What may be shown of an invalid name: all of it when it reads as a name,
 * else only its leading run of name characters, at most SHOWN_PREFIX
 * bytes, which stops before the first byte that made the name invalid.
 * Returns whether that is the whole name. */
static bool describe_key(char *out, const char *key, size_t len)
{
	size_t n = 0;

	if (reads_as_name(key, len))
		n = len;
	else
		while (n < len && n < SHOWN_PREFIX && envd_name_char(key[n]))
			n++;
	memcpy(out, key, n);
	out[n] = '\0';
	return n == len;
}

#define UTF8_BOM "\xef\xbb\xbf"

static int bad_name(struct loader *ld, const char *key, size_t len)
{
	char shown[SHOWN_WHOLE + 1];
	bool whole;

	if (len > 7 && memcmp(key, "export", 6) == 0 && (key[6] == ' ' || key[6] == '\t')) {
		size_t skip = 7;

		while (skip < len && (key[skip] == ' ' || key[skip] == '\t'))
			skip++;
		whole = describe_key(shown, key + skip, len - skip);
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_EXPORT, ld->file, ld->line, NULL,
		           "\"export %s%s\": environment.d has no \"export\"; write NAME=VALUE",
		           shown, whole ? "" : "...");
		return 0;
	}
	/* systemd takes a byte order mark for the first name's first bytes */
	if (ld->bom && ld->line == 1 && len >= 3 && memcmp(key, UTF8_BOM, 3) == 0) {
		whole = describe_key(shown, key + 3, len - 3);
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_BAD_NAME, ld->file, ld->line, NULL,
		           "the file starts with a UTF-8 byte order mark (BOM), which systemd does "
		           "not skip either: the name \"%s%s\" is invalid and ignored; fix: save "
		           "the file without a BOM",
		           shown, whole ? "" : "...");
		return 0;
	}
	whole = describe_key(shown, key, len);
	if (whole)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_BAD_NAME, ld->file, ld->line, NULL,
		           "invalid variable name \"%s\", ignored; a name has only letters, digits "
		           "and '_', and no digit first",
		           shown);
	else if (shown[0])
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_BAD_NAME, ld->file, ld->line, NULL,
		           "invalid variable name of %zu bytes, starting \"%s\" (the rest not "
		           "shown), ignored; a name has only letters, digits and '_', and no digit "
		           "first",
		           len, shown);
	else
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_BAD_NAME, ld->file, ld->line, NULL,
		           "invalid variable name of %zu bytes, ignored; a name has only letters, "
		           "digits and '_', and no digit first",
		           len);
	return 0;
}

/* Reports name refused by the policy (reason, kind) with what to do. */
static int refused(struct loader *ld, const char *name, const char *reason, enum envd_refusal kind)
{
	static const char shell[] = "set it in your shell's startup file (~/.profile) instead";

	if (kind == ENVD_REFUSE_DEFAULT || kind == ENVD_REFUSE_VALUE)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_REFUSED, ld->file, ld->line, name,
		           "%s refused: %s; fix: %s%s, or an administrator adds user_allow=%s to "
		           "the pam_envd line",
		           name, reason,
		           kind == ENVD_REFUSE_VALUE ? "give it another value, or " : "", shell,
		           name);
	else if (kind == ENVD_REFUSE_ONLY)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_REFUSED, ld->file, ld->line, name,
		           "%s refused: %s; fix: %s, or an administrator adds %s to user_only=",
		           name, reason, shell, name);
	else
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_REFUSED, ld->file, ld->line, name,
		           "%s refused: %s; fix: %s", name, reason, shell);
	return 0;
}

/* The bytes a value of name may have: "NAME=VALUE" and its NUL within
 * entry_bytes (none when the name alone leaves no room for them).  The one
 * statement of that limit: the expansion stops at it, and every value is
 * held to it (store_value). */
static size_t value_room(const struct envd_limits *lim, size_t name_len)
{
	return lim->entry_bytes > name_len + 1 ? lim->entry_bytes - name_len - 1 : 0;
}

static void too_long(struct loader *ld, const char *name)
{
	envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, ld->file, ld->line, name,
	           "%s would be longer than %zu bytes, skipped; fix: shorten its value", name,
	           ld->cfg->limits.entry_bytes);
}

/* Expands raw into ld->xbuf. */
static int expand_value(struct loader *ld, const char *name, size_t name_len, const char *raw,
                        size_t raw_len)
{
	const struct envd_limits *lim = &ld->cfg->limits;
	struct envd_expand_state st = {
	    .budget = ld->expansion_left,
	    .max_out = value_room(lim, name_len),
	    .max_depth = lim->depth,
	    .lookup = lookup,
	    .lookup_data = ld,
	    .on_ref = envd_ref_hooks(ld) ? envd_ref_hooks(ld)->on_ref : NULL,
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
		           "expansions skipped; fix: expand fewer or shorter values",
		           lim->expansion_bytes, name);
	} else if (r == -E2BIG && st.budget)
		too_long(ld, name);
	else if (r == -E2BIG)
		envd_diagf(
		    &ld->sink, ENVD_ERROR, ENVD_C_LIMIT, ld->file, ld->line, name,
		    "expansion limit reached: %s skipped; fix: expand fewer or shorter values",
		    name);
	else if (r == -ELOOP)
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, ld->file, ld->line, name,
		           "expansions nested deeper than %zu: %s skipped; fix: nest ${...:-...} "
		           "less deeply",
		           lim->depth, name);
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

	if (name_len >= lim->entry_bytes || vlen > value_room(lim, name_len)) {
		too_long(ld, name);
		return 0;
	}
	if (!result_fits(s, lim->result_bytes, name, name_len, h, vlen)) {
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, ld->file, ld->line, name,
		           "environment would exceed %zu bytes: %s skipped; fix: set fewer or "
		           "shorter variables",
		           lim->result_bytes, name);
		return 0;
	}
	/* a name the user's files add: counted against user_vars, and what is
	 * over it said once, at the end (finish) */
	if (ld->user_side && envd_store_find_h(s, name, name_len, h) == SIZE_MAX) {
		if (ld->user_vars >= lim->user_vars) {
			ld->user_vars_cut++;
			return 0;
		}
		ld->user_vars++;
	}
	r = envd_store_set_h(s, name, name_len, h, v, vlen, ld->file, ld->line, ld->user_side);
	if (r == 0)
		envd_diagf(&ld->sink, ENVD_DEBUG, ENVD_C_SET, ld->file, ld->line, name, "%s set",
		           name);
	return r;
}

/* store_value for a system file under lint: a user's assignment that
 * this one replaces (without taking its value in) is noted in the entry,
 * and carried over by later system files. */
static int store_noting(struct loader *ld, const char *name, size_t name_len, uint64_t h,
                        const char *v, size_t vlen)
{
	struct envd_store *s = &ld->res->store;
	size_t i = envd_store_find_h(s, name, name_len, h);
	const char *rep_file = NULL;
	unsigned rep_line = 0;
	int r;

	if (i != SIZE_MAX && s->v[i].user_side && !ld->self_ref) {
		rep_file = s->v[i].file;
		rep_line = s->v[i].line;
	} else if (i != SIZE_MAX && !s->v[i].user_side) {
		rep_file = s->v[i].replaced_file;
		rep_line = s->v[i].replaced_line;
	}
	r = store_value(ld, name, name_len, h, v, vlen);
	if (r < 0 || !rep_file)
		return r;
	i = envd_store_find_h(s, name, name_len, h);
	if (i != SIZE_MAX && s->v[i].file == ld->file && s->v[i].line == ld->line) {
		s->v[i].replaced_file = rep_file;
		s->v[i].replaced_line = rep_line;
	}
	return 0;
}

/* store_value for a user file under lint: where the entry holds a system
 * file's value that replaced a user's assignment, and this one builds on
 * it ($NAME in the value), that assignment is still lost: kept in
 * ld->losses, as the entry forgets it. */
static int store_user_noting(struct loader *ld, const char *name, size_t name_len, uint64_t h,
                             const char *v, size_t vlen)
{
	struct envd_store *s = &ld->res->store;
	size_t i = envd_store_find_h(s, name, name_len, h);
	struct envd_loss loss;
	int r;

	if (i == SIZE_MAX || s->v[i].user_side || !s->v[i].replaced_file || !ld->self_ref)
		return store_value(ld, name, name_len, h, v, vlen);
	loss = (struct envd_loss){.entry = i,
	                          .seq = ld->nlosses,
	                          .file = s->v[i].replaced_file,
	                          .line = s->v[i].replaced_line,
	                          .by_file = s->v[i].file,
	                          .by_line = s->v[i].line};
	r = store_value(ld, name, name_len, h, v, vlen);
	if (r < 0 || s->v[i].file != ld->file || s->v[i].line != ld->line)
		return r; /* not stored: the entry still says it */
	if (ld->nlosses == ld->losses_cap) {
		struct envd_loss *nv = envd_grow(ld->losses, &ld->losses_cap, sizeof(*nv), 8);

		if (!nv)
			return -ENOMEM;
		ld->losses = nv;
	}
	ld->losses[ld->nlosses++] = loss;
	return 0;
}

/* nooverwrite: was name in the login's own environment? */
static bool preset(struct loader *ld, const char *name, size_t len, uint64_t h)
{
	size_t i = envd_store_find_h(&ld->base, name, len, h);

	return i != SIZE_MAX && ld->base_index[i] < ld->cfg->base_preset;
}

/* One assignment, in the order a reviewer checks it (over 80 lines, kept
 * together): the limits, the policy's verdict on name and value, the
 * expansion, nooverwrite, the store. */
static int on_assign(const char *key, size_t key_len, const char *value, size_t value_len,
                     bool has_value, unsigned line, void *data)
{
	struct loader *ld = data;
	const struct envd_config *cfg = ld->cfg;
	const char *name = key; /* NUL-terminated by the parser */
	const char *v = value, *why;
	enum envd_refusal kind;
	size_t vlen = value_len;
	uint64_t h;
	int r;

	ld->line = line;
	if (++ld->assignments > cfg->limits.assignments) {
		if (!ld->assignments_full)
			envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_LIMIT, ld->file, line, NULL,
			           "more than %zu assignments: the rest is skipped; fix: set fewer "
			           "variables",
			           cfg->limits.assignments);
		ld->assignments_full = true;
		return 1; /* stop this file; later files stop at once too */
	}
	if (!envd_name_valid(key, key_len))
		return bad_name(ld, key, key_len);
	h = envd_hash(name, key_len);
	if (!has_value && ld->raw_values) {
		/* a generator's "KEY=" sets an empty value, as in systemd */
		value = "";
		value_len = 0;
		v = value;
		vlen = 0;
	} else if (!has_value) {
		/* "WORD=" may be a pasted secret with one '=' of padding: only
		 * what describe_key shows of a bad name is shown of it */
		char shown[SHOWN_WHOLE + 1];
		bool whole = describe_key(shown, key, key_len);

		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_NO_VALUE, ld->file, line, shown,
		           "%s%s= has no value and sets nothing (environment.d cannot set an "
		           "empty value, nor unset one)%s",
		           shown, whole ? "" : "...",
		           whole ? "" : "; the name's rest is not shown");
		return 0;
	}
	ld->cur_name = name;
	ld->cur_len = key_len;
	ld->self_ref = false;
	ld->xdg_unset = false;
	if (envd_linting(ld) && !ld->raw_values)
		envd_linting(ld)->raw(ld, name, value, value_len);
	/* without a '$' the expansion is the value itself; a generator's
	 * output is never expanded */
	if (!(cfg->flags & ENVD_NO_EXPAND) && !ld->raw_values && memchr(value, '$', value_len)) {
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
	/* the user policy, once, on the name and the value it would get */
	if (ld->user_side && (why = envd_policy_verdict(cfg->policy, name, v, &kind)))
		return refused(ld, name, why, kind);
	if ((cfg->flags & ENVD_NO_OVERWRITE) && preset(ld, name, key_len, h)) {
		envd_diagf(&ld->sink, ENVD_NOTICE, ENVD_C_KEPT, ld->file, line, name,
		           "%s is already set and kept (nooverwrite)", name);
		return 0;
	}
	if (!envd_utf8_valid(v, vlen)) {
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_BAD_UTF8, ld->file, line, name,
		           "value of %s is not valid UTF-8, skipped; fix: save the file as UTF-8",
		           name);
		return 0;
	}
	if (envd_linting(ld) && !ld->raw_values)
		envd_linting(ld)->value(ld, name, v, vlen, v != value);
	if (!(cfg->flags & ENVD_LINT))
		return store_value(ld, name, key_len, h, v, vlen);
	if (ld->user_side)
		return store_user_noting(ld, name, key_len, h, v, vlen);
	return store_noting(ld, name, key_len, h, v, vlen);
}

/* ---- the pipeline ---- */

static int add_file(struct loader *ld, struct envd_scan_entry *e)
{
	struct envd_result *res = ld->res;
	struct envd_file *f;
	char *path = envd_join(ld->dir_paths[e->dir], '/', e->name);

	if (!path)
		return -ENOMEM;
	f = &res->files[res->nfiles++];
	f->path = path;
	f->basename = path + strlen(ld->dir_paths[e->dir]) + 1;
	f->state = e->state;
	f->user_side = ld->cfg->user_dir && e->dir == 0;
	f->masked_by = NULL;
	f->reason = e->reason == ENVD_R_NONE ? NULL : envd_reason_text(e->reason);
	f->empty = e->state == ENVD_FILE_MASKS && e->reason == ENVD_R_EMPTY;
	ld->dir_files[e->dir]++;
	return 0;
}

/* Reports file f and parses it when it was read.  Returns 0 or -ENOMEM. */
static int process_file(struct loader *ld, struct envd_scan_entry *e, struct envd_file *f)
{
	int r;

	switch (e->state) {
	case ENVD_FILE_MASKED:
		/* the entry of the directory with the highest precedence */
		f->masked_by =
		    ld->res->files[ld->file_base + (size_t)(e->masked_by - ld->scan.v)].path;
		envd_diagf(&ld->sink, ENVD_NOTICE, ENVD_C_FILE_MASKED, f->path, 0, NULL,
		           "masked by %s", f->masked_by);
		return 0;
	case ENVD_FILE_MASKS:
		envd_diagf(&ld->sink, ENVD_NOTICE, ENVD_C_FILE_MASKED, f->path, 0, NULL,
		           "reads nothing (%s) and masks the same name in later directories",
		           f->reason);
		return 0;
	case ENVD_FILE_SKIPPED: {
		struct envd_skip k = {.reason = e->reason,
		                      .path = f->path,
		                      .owner = e->owner,
		                      .others_write = e->others_write,
		                      .where = e->where};
		char text[1024];

		if (!ld->sink.fn)
			return 0;
		envd_skip_owner(ld->cfg, f->user_side, &k);
		envd_diagf(&ld->sink, ENVD_ERROR, e->code, f->path, 0, NULL, "%s",
		           envd_skip_text(text, sizeof(text), &k));
		return 0;
	}
	case ENVD_FILE_USED:
		break;
	}
	if (memchr(e->data, '\0', e->len)) {
		f->state = ENVD_FILE_SKIPPED;
		f->reason = "contains a NUL byte";
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_FILE_NUL, f->path, 0, NULL,
		           "contains a NUL byte, skipped (as systemd does); fix: remove the NUL "
		           "bytes");
		return 0;
	}
	if (ld->assignments_full)
		return 0;
	ld->file = f->path;
	ld->user_side = f->user_side;
	ld->bom = e->len >= 3 && memcmp(e->data, UTF8_BOM, 3) == 0;
	/* on_assign's 1 only stops the file */
	r = envd_parse_noting(e->data, e->len, on_assign, ld, &ld->kbuf, &ld->vbuf,
	                      envd_linting(ld) ? envd_linting(ld)->note : NULL);
	return r < 0 ? r : 0;
}

/* A generator as an entry of the result's files. */
static int add_gen(struct loader *ld, struct envd_gen *g)
{
	struct envd_file *f = &ld->res->files[ld->res->nfiles];

	g->file_index = ld->res->nfiles++;
	f->path = envd_memdup0(g->path, strlen(g->path));
	if (f->path == NULL)
		return -ENOMEM;
	f->basename = f->path + (g->name - g->path);
	f->state = g->state;
	f->user_side = true;
	f->generator = true;
	/* the holder of the name sorts before g: its entry is made */
	f->masked_by = g->masked_by ? ld->res->files[g->masked_by->file_index].path : NULL;
	f->reason = g->reason == ENVD_R_NONE ? NULL : envd_reason_text(g->reason);
	f->empty = g->reason == ENVD_R_EMPTY;
	return 0;
}

/* A generator's output, parsed as a user file whose values are taken
 * literally.  Returns 0 or -ENOMEM. */
static int process_gen(struct loader *ld, const struct envd_gen *g, const struct envd_file *f)
{
	int r;

	if (g->state != ENVD_FILE_USED || g->len == 0 || ld->assignments_full)
		return 0;
	if (memchr(g->data, '\0', g->len)) {
		envd_diagf(&ld->sink, ENVD_ERROR, ENVD_C_FILE_NUL, f->path, 0, NULL,
		           "generator output contains a NUL byte, skipped");
		return 0;
	}
	ld->file = f->path;
	ld->user_side = true;
	ld->raw_values = true;
	r = envd_parse_with(g->data, g->len, on_assign, ld, &ld->kbuf, &ld->vbuf);
	ld->raw_values = false;
	return r < 0 ? r : 0;
}

/* The generators from first to end, in the result's files and parsed. */
static int process_gens(struct loader *ld, size_t first, size_t end)
{
	int r = 0;

	for (size_t i = first; i < end && r == 0; i++) {
		r = add_gen(ld, &ld->gens.v[i]);
		if (r == 0)
			r = process_gen(ld, &ld->gens.v[i], &ld->res->files[ld->res->nfiles - 1]);
	}
	return r;
}

/* One pass over what was read: the generators before environment.d's
 * place, the files, the generators after it.  Returns 0 or -ENOMEM. */
static int process_all(struct loader *ld)
{
	struct envd_result *res = ld->res;
	int r = 0;

	res->files = calloc(ld->scan.n + ld->gens.n + 1, sizeof(*res->files));
	if (!res->files)
		return -ENOMEM;
	r = process_gens(ld, 0, ld->gens.first_after);
	ld->file_base = res->nfiles;
	for (size_t i = 0; r == 0 && i < ld->scan.n; i++) {
		struct envd_file *f = &res->files[res->nfiles];

		r = add_file(ld, &ld->scan.v[i]);
		if (r == 0)
			r = process_file(ld, &ld->scan.v[i], f);
	}
	if (r == 0)
		r = process_gens(ld, ld->gens.first_after, ld->gens.n);
	return r;
}

/* Back to before process_all: what a pass built is dropped. */
static void reset_pass(struct loader *ld)
{
	struct envd_result *res = ld->res;

	for (size_t i = 0; i < res->nfiles; i++)
		free((char *)res->files[i].path);
	free(res->files);
	res->files = NULL;
	res->nfiles = 0;
	envd_store_free(&res->store);
	envd_store_init(&res->store);
	ld->input_bytes = 0;
	ld->expansion_left = ld->cfg->limits.expansion_bytes;
	ld->assignments = 0;
	ld->assignments_full = false;
	ld->user_vars = 0;
	ld->user_vars_cut = 0;
	ld->budget_said = false;
}

/* The generators, when the load asks for them and reads the user side:
 * listed, and run after a first, silent pass over the files has built
 * the environment the ones after environment.d's place see.  Returns 0
 * or -ENOMEM. */
static int generators(struct loader *ld)
{
	envd_diag_fn fn = ld->sink.fn;
	int r;

	if (!ld->cfg->generators || !ld->cfg->user_dir)
		return 0;
	r = envd_gens_list(ld);
	if (r < 0 || ld->gens.to_run == 0)
		return r;
	ld->sink.fn = NULL;
	r = process_all(ld);
	ld->sink.fn = fn;
	if (r == 0)
		r = envd_gens_run(ld);
	reset_pass(ld);
	return r;
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
	if (n + 1 > ENVD_MAX_DIRS || (cfg->admin_dir && cfg->admin_dir[0] != '/'))
		return -EINVAL;
	ld->dir_paths = calloc(ENVD_MAX_ALL_DIRS, sizeof(char *));
	if (!ld->dir_paths)
		return -ENOMEM;
	if (cfg->user_dir) {
		p = envd_memdup0(cfg->user_dir, strlen(cfg->user_dir));
		if (!p)
			return -ENOMEM;
		ld->dir_paths[ld->ndirs++] = p;
	}
	/* the administrator's, between the user's and the system's */
	if (cfg->admin_dir) {
		int r;

		p = malloc(rl + strlen(cfg->admin_dir) + 1);
		if (!p)
			return -ENOMEM;
		if (rl)
			memcpy(p, cfg->root, rl);
		strcpy(p + rl, cfg->admin_dir);
		r = envd_admin_dirs(ld, p);
		free(p);
		if (r < 0)
			return r;
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

/* The directories' states into the result, which takes their paths. */
static int finish_dirs(struct loader *ld)
{
	struct envd_result *res = ld->res;
	size_t i;

	res->dirs = calloc(ld->ndirs + 1, sizeof(*res->dirs));
	if (!res->dirs)
		return -ENOMEM;
	for (i = 0; i < ld->ndirs; i++)
		res->dirs[i] = (struct envd_dir){.path = ld->dir_paths[i],
		                                 .state = ld->dir_state[i],
		                                 .user_side = ld->cfg->user_dir && i == 0,
		                                 .reason = ld->dir_why[i],
		                                 .files = ld->dir_files[i]};
	res->dir_paths = ld->dir_paths;
	res->ndirs = ld->ndirs;
	ld->dir_paths = NULL;
	ld->ndirs = 0;
	return 0;
}

static int finish(struct loader *ld)
{
	struct envd_result *res = ld->res;
	size_t i;

	if (envd_linting(ld))
		envd_linting(ld)->replaced(ld);
	if (ld->user_vars_cut > 0)
		envd_diagf(
		    &ld->sink, ENVD_ERROR, ENVD_C_LIMIT, ld->cfg->user_dir, 0, NULL,
		    "the user's files set more than %zu variables: %zu more not set; fix: set "
		    "fewer variables",
		    ld->cfg->limits.user_vars, ld->user_vars_cut);

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
		                                 .before = before,
		                                 .replaced_file = e->replaced_file,
		                                 .replaced_line = e->replaced_line};
	}
	return finish_dirs(ld);
}

int envd_load(const struct envd_config *given, struct envd_result **out)
{
	struct envd_config clamped = *given;
	const struct envd_config *cfg = &clamped;
	struct loader ld = {.cfg = cfg};
	size_t i;
	int r;

	clamp_limits(&clamped.limits);

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
	if (r == 0 && clock_gettime(CLOCK_MONOTONIC, &ld.user_start) != 0)
		memset(&ld.user_start, 0, sizeof(ld.user_start)); /* no time left */
	if (r == 0 && cfg->user_dir)
		r = envd_read_user(&ld);
	if (r == 0)
		r = envd_read_system(&ld, cfg->user_dir ? 1 : 0);
	if (r == 0)
		r = generators(&ld);
	if (r == 0)
		r = process_all(&ld);
	if (r == 0)
		r = finish(&ld);
	ld.res->ndiag = ld.sink.count;
	envd_scan_free(&ld.scan);
	envd_gens_free(&ld.gens);
	envd_buf_free(&ld.xbuf);
	envd_buf_free(&ld.kbuf);
	envd_buf_free(&ld.vbuf);
	envd_store_free(&ld.base);
	free(ld.base_index);
	free(ld.losses);
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
	for (i = 0; i < res->ndirs; i++)
		free(res->dir_paths[i]);
	free(res->dir_paths);
	free(res->dirs);
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

size_t envd_result_dir_count(const struct envd_result *res)
{
	return res->ndirs;
}

const struct envd_dir *envd_result_dir(const struct envd_result *res, size_t i)
{
	return i < res->ndirs ? &res->dirs[i] : NULL;
}

size_t envd_result_diag_count(const struct envd_result *res)
{
	return res->ndiag;
}
