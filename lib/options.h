/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* options.h - the options of a login, one table for pam_envd.so and envd
 * (options.c). */
#ifndef ENVD_OPTIONS_H
#define ENVD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "envd.h"

/* One table for both front ends.  A row's name is the module's spelling:
 * "nouser" for a flag, "user_dir" for an option taking a value (written
 * user_dir=VALUE in a PAM stack).  envd's long option is derived: '_'
 * becomes '-' (--user-dir=VALUE), unless the row names it in cli (the
 * module's "noxxx" flags are envd's --no-xxx). */
enum envd_setting_flag {
	ENVD_SET_NOUSER = 1u << 0,      /* system files only */
	ENVD_SET_NOOVERWRITE = 1u << 1, /* ENVD_NO_OVERWRITE */
	ENVD_SET_NOEXPAND = 1u << 2,    /* ENVD_NO_EXPAND */
	ENVD_SET_GENERATORS = 1u << 3,  /* run the user environment generators */
};

struct envd_settings {
	const char *user_dir;     /* template with %h %u %%, or NULL: the default */
	char **system_dirs;       /* one malloc'd block, NULL-terminated; NULL: the four */
	const char *default_path; /* PATH of a login that has none */
	const char *admin_dir;    /* per-user and per-group directories, or NULL */
	unsigned flags;           /* enum envd_setting_flag */
	bool user_side_off;       /* a malformed user-side option: fail closed */
	char **generator_dirs;    /* as system_dirs; NULL: the four of systemd */
	size_t max_env;           /* cap on the result's bytes; 0: the engine's */
	const char *reader;       /* the reader program, or NULL: the installed one */
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

#endif
