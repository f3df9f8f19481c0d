/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * envd.h - the pam_envd engine: environment.d directories in, assignments out.
 *
 * This library has no libpam dependency and never prints, logs or exits.
 * Every problem is reported through the diagnostics callback of the
 * configuration; functions return 0 or a negative errno, and only internal
 * failures (out of memory, a child that cannot be started) are errors.  The PAM module and the envd
 * command both load through envd_load().
 */
#ifndef ENVD_H
#define ENVD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

/* Resource limits.  Each hit produces a diagnostic and skips the offending
 * item; earlier work is kept.  The defaults are documented in README.md and
 * envd(1). */
#define ENVD_MAX_FILE_BYTES    (1024u * 1024u)       /* bytes read from one file */
#define ENVD_MAX_INPUT_BYTES   (16u * 1024u * 1024u) /* bytes read in one load */
#define ENVD_MAX_FILES_PER_DIR 4096u                 /* .conf files per directory */
#define ENVD_MAX_ASSIGNMENTS   65536u                /* assignments in one load */
/* "NAME=VALUE" plus its NUL must fit the kernel's MAX_ARG_STRLEN (128 KiB). */
#define ENVD_MAX_ENTRY_BYTES     (128u * 1024u - 1u)
#define ENVD_MAX_EXPANSION_BYTES (32u * 1024u * 1024u) /* substituted bytes per load */
#define ENVD_MAX_DEPTH           32u                   /* nesting of ${X:-...} */
#define ENVD_MAX_RESULT_BYTES    (1024u * 1024u)       /* sum of "NAME=VALUE\0" in the result */
#define ENVD_MAX_DIRS            16u   /* directories per load, the user directory included */
#define ENVD_MAX_DIAGNOSTICS     1000u /* errors+warnings, and notices+debug, reported per load */
/* The user side of one load: symbolic link steps followed (the user
 * directory's path and every file's), and the milliseconds it may take,
 * from the reader's fork to its last record. */
#define ENVD_MAX_LINK_STEPS 256u
#define ENVD_MAX_USER_MS    3000u
/* Variables the user's files may add to a login's environment: libpam's
 * pam_putenv searches the whole environment on every call, so n
 * variables cost the root login process n^2 work at open and again at
 * close; the cap keeps that small (README.md, "Limits", has the measured
 * cost). */
#define ENVD_MAX_USER_VARS 2048u

struct envd_limits {
	size_t file_bytes;
	size_t input_bytes;
	size_t files_per_dir;
	size_t assignments;
	size_t entry_bytes;
	size_t expansion_bytes;
	size_t depth;
	size_t result_bytes;
	size_t diagnostics;
	size_t link_steps;
	size_t user_ms;
	size_t user_vars;
};

enum envd_severity {
	ENVD_ERROR,   /* an assignment or file was skipped */
	ENVD_WARNING, /* something the user probably did not mean (lint) */
	ENVD_NOTICE,  /* informational: masked files, kept variables */
	ENVD_DEBUG,   /* tracing: which file set which name */
};

/* Stable codes, so that callers and tests need not match message text. */
enum envd_code {
	ENVD_C_NONE = 0,
	/* files and directories */
	ENVD_C_DIR_MISSING,   /* directory does not exist (notice) */
	ENVD_C_DIR_UNSAFE,    /* wrong owner, writable by others, not a directory */
	ENVD_C_DIR_ERROR,     /* cannot be opened or read */
	ENVD_C_FILE_UNSAFE,   /* wrong owner, writable by others, not regular */
	ENVD_C_FILE_ERROR,    /* cannot be opened or read */
	ENVD_C_FILE_MASKED,   /* basename shadowed by a higher-precedence dir */
	ENVD_C_FILE_NOT_CONF, /* file in a directory without the .conf suffix */
	ENVD_C_FILE_NUL,      /* file holds a NUL byte: skipped, as systemd does */
	/* syntax */
	ENVD_C_NO_VALUE, /* KEY= with nothing after: sets nothing */
	ENVD_C_BAD_NAME, /* invalid variable name */
	ENVD_C_EXPORT,   /* "export NAME=": invalid name in environment.d */
	ENVD_C_BAD_UTF8, /* value not valid UTF-8: assignment skipped */
	/* policy, merge mode */
	ENVD_C_REFUSED, /* name refused by the policy */
	ENVD_C_KEPT,    /* nooverwrite: variable already set, kept */
	/* limits */
	ENVD_C_LIMIT, /* a resource limit was hit */
	/* lint (only with ENVD_LINT) */
	ENVD_C_LINT_TILDE,            /* ~ is not expanded */
	ENVD_C_LINT_COMMAND,          /* $(...) or backticks are not run */
	ENVD_C_LINT_SPECIFIER,        /* %h and friends are not expanded */
	ENVD_C_LINT_UNSET,            /* reference to a variable that is not set */
	ENVD_C_LINT_EMPTY_DEFAULT,    /* ${X:-d} with X set but empty gives empty */
	ENVD_C_LINT_EMPTY_PATH,       /* PATH-like value with an empty component */
	ENVD_C_LINT_TRAILING_COMMENT, /* "A=1 # x": the comment is part of the value */
	ENVD_C_LINT_USER_VALUE,       /* a system file gives a name the policy refuses
	                               * a value that a user file controls */
	/* tracing */
	ENVD_C_SET, /* debug: NAME set from file:line */
	/* the sink's own: further diagnostics of a class are not reported */
	ENVD_C_SUPPRESSED,
};

struct envd_diag {
	enum envd_severity severity;
	enum envd_code code;
	const char *file;    /* path, or NULL */
	unsigned line;       /* 1-based, or 0 */
	const char *name;    /* variable name concerned, or NULL; never a value */
	const char *message; /* never contains a value */
};

typedef void (*envd_diag_fn)(const struct envd_diag *diag, void *data);

/* ---- the user's side, read by a process that is the user (child.c) ---- */

struct envd_buf; /* below */

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
/* Whether gid is user's private group: no member but user, no other
 * account's primary group (NSS).  1, 0 or -ENOMEM. */
int envd_group_private(const char *user, uid_t uid, gid_t gid);

/* Work done in a child process with ids's credentials in full (a root
 * caller switches; any other caller's child keeps its own), no
 * capabilities, no_new_privs, not dumpable, only the pipe open, bounded
 * in CPU time, memory, file size and open files.  work writes to fd what
 * the caller gets back and returns 0. */
struct envd_child {
	const struct envd_ids *ids; /* NULL: no switch */
	unsigned budget_ms;         /* from before the fork to the pipe's end */
	size_t memory_bytes;        /* address space the work may add */
	int (*work)(int fd, void *data);
	void *data;
};

/* Runs c->work in a child and puts what it wrote in out (at most out's
 * cap).  Never blocks past the budget, leaves no child of the caller
 * behind and reaps only its own.  Returns 0 when the child closed the
 * pipe (whether it finished its work is for the caller's records to
 * say), -ETIMEDOUT past the budget (the child is killed), -EMSGSIZE over
 * the cap, -EPERM when the child could not take the credentials or drop
 * its privileges, -ECHILD when it could not be started (no clock, pipe
 * or process), -EIO when the pipe could not be read, or -ENOMEM. */
int envd_child_run(const struct envd_child *c, struct envd_buf *out);

struct envd_policy; /* name policy for user files, see below */

enum envd_flags {
	ENVD_NO_OVERWRITE = 1u << 0, /* keep variables the base already holds */
	ENVD_NO_EXPAND = 1u << 1,    /* take values literally */
	ENVD_LINT = 1u << 2,         /* report lint warnings (envd check) */
};

struct envd_config {
	/* Directories, highest precedence first.  The user directory (may be
	 * NULL) comes before all system directories. */
	const char *user_dir;
	const char *const *system_dirs; /* NULL-terminated, at most ENVD_MAX_DIRS - 1;
	                                 * NULL: the default four */
	const char *root;               /* prefix for system_dirs, or NULL */

	uid_t user_uid;   /* besides root, the owner allowed on the user side */
	uid_t system_uid; /* owner required on the system side (normally 0) */

	/* Expansion base, "NAME=VALUE" strings, NULL-terminated; may be NULL.
	 * Only looked up, never part of the result. */
	const char *const *base_env;
	/* With ENVD_NO_OVERWRITE, only the first base_preset entries of
	 * base_env count as already set (the login's own environment, not the
	 * fallbacks envd_login_base appends).  Default SIZE_MAX: all. */
	size_t base_preset;

	unsigned flags;                   /* enum envd_flags */
	const struct envd_policy *policy; /* applied to user files; NULL: none */
	struct envd_limits limits;

	envd_diag_fn diag;
	void *diag_data;
	/* diagnostics less severe than this are neither formatted nor counted
	 * (default ENVD_DEBUG: all) */
	enum envd_severity diag_level;
	/* How the user side is read: NULL, in this process with its own
	 * credentials (envd run by the user); else in a child process with
	 * these credentials (child.c), within limits.user_ms from the fork.
	 * user_name and user_gid name the user's private group candidate:
	 * write by that group is accepted when it is private
	 * (envd_group_private); user_name NULL: never. */
	const struct envd_ids *user_ids;
	const char *user_name;
	gid_t user_gid;
};

/* The four system directories of systemd, in precedence order. */
extern const char *const envd_system_dirs[];

void envd_config_init(struct envd_config *cfg);
void envd_limits_default(struct envd_limits *limits);

/* ---- the options of a login (options.c) ---- */

/* One table for both front ends.  A row's name is the module's spelling:
 * "nouser" for a flag, "user_dir" for an option taking a value (written
 * user_dir=VALUE in a PAM stack).  envd's long option is derived: '_'
 * becomes '-' (--user-dir=VALUE), unless the row names it in cli (the
 * module's "noxxx" flags are envd's --no-xxx). */
enum envd_setting_flag {
	ENVD_SET_NOUSER = 1u << 0,      /* system files only */
	ENVD_SET_NOOVERWRITE = 1u << 1, /* ENVD_NO_OVERWRITE */
	ENVD_SET_NOEXPAND = 1u << 2,    /* ENVD_NO_EXPAND */
};

struct envd_settings {
	const char *user_dir;     /* template with %h %u %%, or NULL: the default */
	char **system_dirs;       /* one malloc'd block, NULL-terminated; NULL: the four */
	const char *default_path; /* PATH of a login that has none */
	unsigned flags;           /* enum envd_setting_flag */
	bool user_side_off;       /* a malformed user-side option: fail closed */
	size_t max_env;           /* cap on the result's bytes; 0: the engine's */
	struct envd_policy *policy;
};

struct envd_option;
/* A malformed value: problem says what is wrong with it (never the value),
 * user_side_off whether the user side is now off.  The front end says it
 * in its own spelling of the option. */
typedef void (*envd_option_report_fn)(const struct envd_option *opt, const char *problem,
                                      bool user_side_off, void *data);

struct envd_option {
	const char *name; /* the module's spelling, without '=' */
	const char *cli;  /* envd's long option, or NULL: derived from name */
	/* A flag, which takes no value: what it sets in s->flags (enum
	 * envd_setting_flag); 0 for an option with a value. */
	unsigned flag;
	bool user_side; /* malformed, it switches the user side off (fail closed) */
	/* An option with a value: what the value is, for the help ("DIR",
	 * "PAT" ...), and what sets s from it.  set returns 0, -EINVAL after
	 * reporting, or -ENOMEM. */
	const char *arg;
	int (*set)(const struct envd_option *opt, struct envd_settings *s, const char *value,
	           envd_option_report_fn report, void *data);
	const char *help; /* one line */
};

/* The table, terminated by a row with a NULL name. */
extern const struct envd_option envd_options[];

/* The defaults, with a policy holding the default refusals.  Returns 0 or
 * -ENOMEM. */
int envd_settings_init(struct envd_settings *s);
void envd_settings_free(struct envd_settings *s);
/* One module argument, "name" or "name=value".  Returns 0, -ENOENT for an
 * option the table lacks (not reported), -EINVAL after reporting (an empty
 * value is reported and ignored), or -ENOMEM. */
int envd_settings_arg(struct envd_settings *s, const char *arg, envd_option_report_fn report,
                      void *data);
/* One row with its value (NULL for a flag): what both front ends call.
 * Same returns, without -ENOENT. */
int envd_option_set(const struct envd_option *opt, struct envd_settings *s, const char *value,
                    envd_option_report_fn report, void *data);
/* envd's long option of a row, without the leading "--", into buf.
 * Returns buf. */
const char *envd_option_cli_name(const struct envd_option *opt, char *buf, size_t size);
/* What s asks of a load: system directories, flags, policy, limits. */
void envd_settings_config(const struct envd_settings *s, struct envd_config *cfg);

/* ---- result ---- */

struct envd_var {
	const char *name;
	const char *value;
	size_t value_len;
	const char *file; /* file that set the final value */
	unsigned line;
	size_t name_len;
	bool user_side; /* file is in the user directory */
	/* The name's value in the caller's own environment (the first
	 * base_preset entries of base_env), pointing into base_env; NULL where
	 * it had none.  What puts the name back as it was. */
	const char *before;
};

enum envd_file_state {
	ENVD_FILE_USED,    /* read and parsed */
	ENVD_FILE_MASKED,  /* shadowed by the same basename higher up */
	ENVD_FILE_MASKS,   /* holds a name only to mask: empty, /dev/null, directory, dangling */
	ENVD_FILE_SKIPPED, /* unsafe, unreadable, too big, NUL bytes ... */
};

struct envd_file {
	const char *path;
	const char *basename;
	enum envd_file_state state;
	bool user_side;
	const char *masked_by; /* path, for ENVD_FILE_MASKED */
	const char *reason;    /* for MASKS and SKIPPED */
	bool empty;            /* MASKS: the file is empty (not /dev/null, a directory ...) */
};

struct envd_result;

/* Loads the directories.  Returns 0 and a result (even when files were
 * skipped), or a negative errno: -ENOMEM, -EINVAL for a bad configuration,
 * -EPERM when leave_user failed.  Never fails because of file contents. */
int envd_load(const struct envd_config *cfg, struct envd_result **out);
void envd_result_free(struct envd_result *res);

size_t envd_result_count(const struct envd_result *res);
const struct envd_var *envd_result_var(const struct envd_result *res, size_t i);
const struct envd_var *envd_result_get(const struct envd_result *res, const char *name);
size_t envd_result_file_count(const struct envd_result *res);
const struct envd_file *envd_result_file(const struct envd_result *res, size_t i);
/* Diagnostics at or above diag_level, including those over the limit. */
size_t envd_result_diag_count(const struct envd_result *res);

/* ---- name policy ---- */

/* Which names a user's file may set.  In order: a name matching a deny glob
 * is refused; with an "only" list, a name matching none of it is refused
 * (allow-list mode); a name the default list refuses (with_defaults) is
 * refused unless it matches an allow glob.  A deny list is best effort: it
 * names what is known to steer programs run later, and the "only" list is
 * for sites that want certainty.  Globs: '*' any run, '?' one character;
 * case-sensitive. */
struct envd_policy *envd_policy_new(bool with_defaults);
void envd_policy_free(struct envd_policy *p);
/* Patterns separated by ',' or ':' or whitespace; returns 0 or -EINVAL/-ENOMEM. */
int envd_policy_allow(struct envd_policy *p, const char *patterns);
int envd_policy_deny(struct envd_policy *p, const char *patterns);
int envd_policy_only(struct envd_policy *p, const char *patterns);
/* Returns NULL when name may be set, else the reason (a static string).
 * value, when not NULL, is the expanded value: the default value rules
 * also refuse some values of some names (TZ naming a file, LANGUAGE, LANG
 * and LC_* naming a path, a D-Bus address that runs a command). */
const char *envd_policy_check(const struct envd_policy *p, const char *name, const char *value);
/* When the verdict on name depends on its value (a default value rule
 * applies and user_allow does not lift it): that rule's reason, else NULL. */
const char *envd_policy_value_rule(const struct envd_policy *p, const char *name);

/* The default policy's tables, for showing them: the names refused, the
 * names allowed back from those, and the names refused for some values
 * (the reason then says which). */
enum envd_policy_table {
	ENVD_POLICY_DENY,
	ENVD_POLICY_EXCEPTION,
	ENVD_POLICY_VALUE,
};
/* Entry i of table: sets *pattern (a glob) and *reason (static strings) and
 * returns true, or returns false past the end. */
bool envd_policy_default(enum envd_policy_table table, size_t i, const char **pattern,
                         const char **reason);

/* ---- names and values ---- */

/* A valid variable name: ASCII letters, digits and '_', not starting with
 * a digit (systemd's rule). */
bool envd_name_valid(const char *name, size_t len);
/* Strict UTF-8 as systemd checks values: no overlongs, surrogates or
 * noncharacters. */
bool envd_utf8_valid(const char *s, size_t n);

/* ---- what a login starts with: shared by the module and envd ---- */

/* The value of the first "name=..." entry of env (NULL-terminated
 * "NAME=VALUE" strings; may be NULL), or NULL when there is none. */
const char *envd_env_get(const char *const *env, const char *name);

/* Builds the expansion base of a login: env (the PAM environment, may be
 * NULL) plus HOME, USER, LOGNAME and SHELL from the passwd entry (any of
 * them may be NULL) and PATH=default_path, each only where env lacks it.
 * *out is a NULL-terminated array of "NAME=VALUE" strings in one malloc'd
 * block, freed with free(): env's strings are borrowed (env must outlive
 * it), the fallbacks live in the block.  Returns 0 or -ENOMEM. */
int envd_login_base(const char *const *env, const char *user, const char *home, const char *shell,
                    const char *default_path, const char ***out);

/* The user directory of a login.  tmpl (may be NULL) expands %h to home,
 * %u to user and %% to %.  Without tmpl: $XDG_CONFIG_HOME/environment.d when
 * base holds an absolute XDG_CONFIG_HOME, else HOME/.config/environment.d
 * with HOME from base, falling back to home.  *out is malloc'd, or NULL when
 * no directory can be named: no absolute home (for %h too: an empty or
 * relative home names no directory).  Returns 0, -ENOMEM or -EINVAL (bad
 * template: unknown %x, relative result). */
int envd_user_dir(const char *tmpl, const char *const *base, const char *user, const char *home,
                  char **out);

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
	uid_t owner;
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
	dev_t dev;
	ino_t ino;
};
/* Returns 0, or a negative errno with rd->reason: -EPERM refused by a
 * check, -ENOENT no such file (a dangling link included), -EINVAL not a
 * file (/dev/null, a directory), -EFBIG over max, -ETIMEDOUT, -ENOMEM,
 * another errno. */
int envd_read_path(const char *path, struct envd_path_read *rd);
/* Reads fd to its end, at most max bytes, into *data (malloc'd; hint: the
 * size expected, 0 when unknown): the capped read of every file above,
 * for a descriptor the caller was given (a pipe on standard input).
 * Returns 0 (*data NUL-terminated after its *len bytes), -EFBIG over max,
 * -ENOMEM or read's errno. */
int envd_read_fd(int fd, size_t max, size_t hint, char **data, size_t *len);

/* ---- a growable byte buffer with a hard cap (buf.c) ---- */

/* The engine's, and envd's for the text it builds.  Every append returns
 * 0 or a negative errno: no error is kept in the buffer.  envd_buf_init
 * comes first (a zeroed buffer has room for nothing). */
struct envd_buf {
	char *data;
	size_t len;
	size_t cap;
	size_t max; /* len never exceeds max; 0: SIZE_MAX */
};

void envd_buf_init(struct envd_buf *b, size_t max);
void envd_buf_free(struct envd_buf *b);
/* The slow path of envd_buf_append: grows the buffer first. */
int envd_buf_append_grow(struct envd_buf *b, const char *s, size_t n);
/* 0, -ENOMEM, or -E2BIG when the append would pass max (nothing appended).
 * Inline while there is room (one spare byte for a NUL is kept). */
static inline int envd_buf_append(struct envd_buf *b, const char *s, size_t n)
{
	if (n <= b->max - b->len && b->len + n < b->cap) {
		if (n)
			memcpy(b->data + b->len, s, n);
		b->len += n;
		return 0;
	}
	return envd_buf_append_grow(b, s, n);
}
/* The parser's hot path: one byte, inline while there is room. */
static inline int envd_buf_putc(struct envd_buf *b, char c)
{
	if (b->len + 1 < b->cap && b->len < b->max) {
		b->data[b->len++] = c;
		return 0;
	}
	return envd_buf_append_grow(b, &c, 1);
}
/* NUL-terminates and hands the data over; the buffer is left empty. */
char *envd_buf_steal(struct envd_buf *b, size_t *len);
/* A NUL-terminated string: envd_buf_append of its bytes. */
static inline int envd_buf_puts(struct envd_buf *b, const char *s)
{
	return envd_buf_append(b, s, strlen(s));
}

const char *envd_version(void);

#endif
