/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * envd.h - the pam_envd engine: environment.d directories in, assignments out.
 *
 * This library has no libpam dependency and never prints, logs or exits.
 * Every problem is reported through the diagnostics callback of the
 * configuration; functions return 0 or a negative errno, and only internal
 * failures (out of memory, a child that cannot be started) are errors.  The PAM module and the envd
 * command both load through envd_load().  The user's side (credentials, the
 * reader child, one file read as a user's) is child.h; the options of a
 * login, options.h; the byte buffer, buf.h.
 */
#ifndef ENVD_H
#define ENVD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Resource limits.  Each hit produces a diagnostic and skips the offending
 * item; earlier work is kept.  The defaults are documented in DEVELOPING.md and
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
/* admin_dir: entries of ADMIN/group looked up (NSS) per load, so also the
 * group directories read at most; and the longest user or group name that
 * names a directory (NAME_MAX). */
#define ENVD_MAX_ADMIN_GROUPS 64u
#define ENVD_MAX_COMPONENT    255u
/* The user side of one load: symbolic link steps followed (the user
 * directory's path and every file's), and the milliseconds it may take,
 * from the reader's fork to its last record. */
#define ENVD_MAX_LINK_STEPS 256u
#define ENVD_MAX_USER_MS    3000u
/* Variables the user's files may add to a login's environment: libpam's
 * pam_putenv searches the whole environment on every call, so n
 * variables cost the root login process n^2 work at open and again at
 * close; the cap keeps that small (DEVELOPING.md, "Limits", has the measured
 * cost). */
#define ENVD_MAX_USER_VARS 2048u
/* User environment generators (generators.c): names listed at most per
 * directory, programs run at most per load, bytes read from one's output
 * (the file cap, ENVD_MAX_FILE_BYTES, is for files: a program's output
 * is held in memory by the reader child and the login alike). */
#define ENVD_MAX_GENERATORS      64u
#define ENVD_MAX_GENERATOR_BYTES (64u * 1024u)

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
	/* lint (only with ENVD_LINT), what systemd reads differently from
	 * what a line looks like */
	ENVD_C_LINT_NO_EQUALS,         /* a line without '=': ignored */
	ENVD_C_LINT_OPEN_QUOTE,        /* a quote never closed: the value runs to the end */
	ENVD_C_LINT_AFTER_QUOTE,       /* text after a closing quote and blanks: joined */
	ENVD_C_LINT_INNER_QUOTE,       /* a quote inside an unquoted value: literal */
	ENVD_C_LINT_UNSUPPORTED,       /* ${X-d} and other shell forms: empty */
	ENVD_C_LINT_XDG_DEFAULTS,      /* XDG_DATA_DIRS=...:$XDG_DATA_DIRS, unset: no defaults */
	ENVD_C_LINT_REPLACED,          /* a user assignment a later system file replaces */
	ENVD_C_LINT_COMMENT_BACKSLASH, /* "# x\": systemd < 254 drops the next line */
	/* a value depends on a variable of the session (session_names) that
	 * the load does not know (notice) */
	ENVD_C_SESSION_UNKNOWN,
	/* user environment generators */
	ENVD_C_GEN_UNSAFE, /* refused: owner, mode, how it is reached */
	ENVD_C_GEN_FAILED, /* exited with a status other than 0: warned, output used */
	ENVD_C_GEN_KILLED, /* over the time or output limit: killed, output dropped */
	ENVD_C_GEN_MASKED, /* notice: masked, or a mask (empty, /dev/null) */
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

struct envd_ids;      /* child.h */
struct envd_reader;   /* child.h */
struct envd_lint_ops; /* loader.h */
struct envd_side;     /* side.h */
struct loader;        /* loader.h */

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
	 * credentials (envd run by the user); else by the reader program
	 * (helper/reader.c, started by spawn.c) with these credentials,
	 * within limits.user_ms from its start: reader, or NULL for the one
	 * installed with this build.
	 * user_name and user_gid name the user's private group candidate:
	 * write by that group is accepted when it is private
	 * (envd_group_private); user_name NULL: never. */
	const struct envd_ids *user_ids;
	const char *reader;
	/* A reader the caller started for the user's look-up
	 * (envd_reader_lookup), waiting: the user side's job goes to it, and
	 * *started is set to NULL when it is taken.  NULL: none. */
	struct envd_reader **started;
	/* With ENVD_LINT: the lint hooks (envd's envd_lint_ops, check/lint.c);
	 * NULL: no lint, whatever the flag. */
	const struct envd_lint_ops *lint;
	/* Without user_ids: how the user directory is read in this process
	 * (envd run by the user: envd_side_read, userside.c, which the module
	 * does not link).  NULL: not at all. */
	int (*read_here)(struct loader *ld, struct envd_side *s, size_t ms);
	const char *user_name;
	gid_t user_gid;
	/* The administrator's directories for some users and groups
	 * (admin.c): admin_dir (below root, like system_dirs) holds user/NAME
	 * and group/NAME.  Read as system directories after the user
	 * directory: admin_dir/user/admin_user (when admin_user is a plain
	 * path component), then admin_dir/group/G for each G listed there
	 * whose gid is one of admin_groups, in strcmp order of G.  NULL: none. */
	const char *admin_dir;
	const char *admin_user;
	const gid_t *admin_groups; /* the user's groups (envd_ids_get) */
	size_t admin_ngroups;
	/* Their names, in the same order ("" for a group without one), as a
	 * look-up found them (envd_reader_lookup): an entry of
	 * admin_dir/group applies when it is one of them, with no NSS
	 * look-up here.  NULL: each entry's gid is looked up (getgrnam_r). */
	const char *const *admin_group_names;
	/* envd: names a login gets per session (a display manager's), whose
	 * value is not known here; a reference to one that base_env lacks is
	 * reported (ENVD_C_SESSION_UNKNOWN).  NULL-terminated, or NULL. */
	const char *const *session_names;
	/* Run the user environment generators (generators.c) as the user,
	 * when the user side is read (user_dir set), within limits.user_ms
	 * with the reading.  generator_dirs: NULL-terminated, highest
	 * precedence first, at most ENVD_MAX_DIRS; NULL: the four of systemd.
	 * Never from the environment ($SYSTEMD_ENVIRONMENT_GENERATOR_PATH):
	 * a user can put that in a login's. */
	bool generators;
	const char *const *generator_dirs;
};

/* The four system directories of systemd, in precedence order. */
extern const char *const envd_system_dirs[];
/* The four directories of systemd's user environment generators, in
 * precedence order (/run first: systemd's order for these). */
extern const char *const envd_generator_dirs[];

void envd_config_init(struct envd_config *cfg);
void envd_limits_default(struct envd_limits *limits);

/* ---- result ---- */

struct envd_var {
	const char *name;
	const char *value;
	size_t value_len;
	const char *file; /* file that set the final value, or the generator whose
	                   * output did (line: of its output) */
	unsigned line;
	size_t name_len;
	bool user_side; /* file is in the user directory, or a generator's output */
	/* The name's value in the caller's own environment (the first
	 * base_preset entries of base_env), pointing into base_env; NULL where
	 * it had none.  What puts the name back as it was. */
	const char *before;
	/* ENVD_LINT: the user's assignment that a later system file (this
	 * var's file) replaced, or NULL */
	const char *replaced_file;
	unsigned replaced_line;
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
	bool generator;        /* a user environment generator, not a file */
};

/* A directory of the load, in precedence order (the user's first). */
enum envd_dir_state {
	ENVD_DIR_USED,    /* opened and listed */
	ENVD_DIR_MISSING, /* does not exist */
	ENVD_DIR_SKIPPED, /* unsafe, unreadable, or its reader failed: reason */
};

struct envd_dir {
	const char *path;
	enum envd_dir_state state;
	bool user_side;
	const char *reason; /* for SKIPPED, or NULL */
	size_t files;       /* .conf entries listed */
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
size_t envd_result_dir_count(const struct envd_result *res);
const struct envd_dir *envd_result_dir(const struct envd_result *res, size_t i);
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
/* Which rule refused a name, for what to do about it. */
enum envd_refusal {
	ENVD_REFUSE_NONE,
	ENVD_REFUSE_DENY,    /* the administrator's user_deny */
	ENVD_REFUSE_ONLY,    /* not in the administrator's user_only */
	ENVD_REFUSE_DEFAULT, /* the default list; user_allow lifts it */
	ENVD_REFUSE_VALUE,   /* a default value rule; user_allow lifts it */
};
/* envd_policy_check, and *kind says which rule refused (NONE: allowed). */
const char *envd_policy_verdict(const struct envd_policy *p, const char *name, const char *value,
                                enum envd_refusal *kind);
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

const char *envd_version(void);

#endif
