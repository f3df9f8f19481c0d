/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* options.c - the options of a login, one table for pam_envd.so and envd.
 *
 * Each row is one option of both front ends: its module spelling (envd's
 * is derived, see options.h), whether a malformed value switches the user
 * side off, for a flag its bit, else what its value is and the function
 * that sets struct envd_settings from it, and one line of help.  Both front ends
 * go through envd_option_set, so an option has one default, one rule and
 * one message for a malformed value.  A malformed value of an option that
 * narrows what user files may do (user_dir=, user_allow=, user_deny=,
 * user_only=) switches the user side off, so that a typo never widens what
 * a user can set; the module goes on, envd stops with a usage error.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "options.h"

/* The engine's directories, the user directory included, less that one. */
#define MAX_SYSTEM_DIRS (ENVD_MAX_DIRS - 1u)

static int bad(const struct envd_option *opt, struct envd_settings *s, const char *problem,
               envd_option_report_fn report, void *data)
{
	if (opt->user_side)
		s->user_side_off = true;
	if (report)
		report(opt, problem, opt->user_side, data);
	return -EINVAL;
}

/* The one option taken as it is. */
static int set_default_path(const struct envd_option *opt, struct envd_settings *s,
                            const char *value, envd_option_report_fn report, void *data)
{
	s->default_path = value;
	return 0;
}

/* What is wrong with a template envd_user_dir refused, into problem. */
static void template_problem(const char *value, char *problem, size_t size)
{
	const char *p;

	for (p = value; (p = strchr(p, '%')) != NULL; p += 2) {
		if (p[1] == 'h' || p[1] == 'u' || p[1] == '%')
			continue;
		/* the byte only when it is plain text: an option is no place for
		 * a control character */
		if (p[1] > ' ' && p[1] < 0x7f)
			snprintf(problem, size,
			         "unknown specifier %%%c; fix: use %%h (home), %%u (user) or %%%% "
			         "(a %%)",
			         p[1]);
		else
			snprintf(
			    problem, size,
			    "a '%%' without %%h, %%u or %%%% after it; fix: write %%%% for a %%");
		return;
	}
	snprintf(problem, size,
	         "not an absolute path; fix: start it with / or with %%h (the home directory)");
}

/* The template is expanded for a made-up user, so that a bad one is
 * reported where it is given; the login's expansion checks it again. */
static int set_user_dir(const struct envd_option *opt, struct envd_settings *s, const char *value,
                        envd_option_report_fn report, void *data)
{
	char *dir = NULL, problem[128];
	int r = envd_user_dir(value, NULL, "user", "/home", &dir);

	free(dir);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		template_problem(value, problem, sizeof(problem));
		return bad(opt, s, problem, report, data);
	}
	s->user_dir = value;
	return 0;
}

/* An absolute directory. */
static int set_admin_dir(const struct envd_option *opt, struct envd_settings *s, const char *value,
                         envd_option_report_fn report, void *data)
{
	if (value[0] != '/')
		return bad(opt, s, "a relative directory", report, data);
	s->admin_dir = value;
	return 0;
}

/* An absolute path of a program. */
static int set_reader(const struct envd_option *opt, struct envd_settings *s, const char *value,
                      envd_option_report_fn report, void *data)
{
	if (value[0] != '/')
		return bad(opt, s, "a relative path; fix: give the absolute path", report, data);
	s->reader = value;
	return 0;
}

/* DIR:DIR:...  Relative entries are dropped; what remains (even nothing)
 * replaces the default list *list.  One block: the pointers, then a copy
 * of the value with each ':' made a NUL. */
static int set_dirs(const struct envd_option *opt, struct envd_settings *s, const char *value,
                    envd_option_report_fn report, void *data, char ***list)
{
	size_t n = 1, k = 0, len = strlen(value), size;
	char **dirs, *p, *end;
	char problem[64];
	int r = 0;

	for (const char *c = value; *c != '\0'; c++)
		n += *c == ':';
	size = (n + 1) * sizeof(*dirs);
	dirs = malloc(size + len + 1);
	if (dirs == NULL)
		return -ENOMEM;
	p = (char *)dirs + size;
	memcpy(p, value, len + 1);
	for (end = p + len; p < end; p++) {
		char *dir = p;

		while (p < end && *p != ':')
			p++;
		*p = '\0';
		if (dir == p)
			continue;
		if (dir[0] != '/') {
			r = bad(opt, s, "a relative directory; fix: give absolute ones", report,
			        data);
		} else if (k == MAX_SYSTEM_DIRS) {
			snprintf(problem, sizeof(problem), "more than %u directories: the rest",
			         MAX_SYSTEM_DIRS);
			r = bad(opt, s, problem, report, data);
			break;
		} else
			dirs[k++] = dir;
	}
	dirs[k] = NULL;
	free(*list);
	*list = dirs;
	return r;
}

static int set_system_dirs(const struct envd_option *opt, struct envd_settings *s,
                           const char *value, envd_option_report_fn report, void *data)
{
	return set_dirs(opt, s, value, report, data, &s->system_dirs);
}

static int set_generator_dirs(const struct envd_option *opt, struct envd_settings *s,
                              const char *value, envd_option_report_fn report, void *data)
{
	return set_dirs(opt, s, value, report, data, &s->generator_dirs);
}

/* A pattern list: r is what the policy call returned. */
static int patterns(const struct envd_option *opt, struct envd_settings *s, int r,
                    envd_option_report_fn report, void *data)
{
	return r == -EINVAL ? bad(opt, s,
	                          "invalid pattern list; fix: give names or globs (letters, "
	                          "digits, '_', '*', '?') separated by ',' ':' or blanks",
	                          report, data)
	                    : r;
}

static int set_user_allow(const struct envd_option *opt, struct envd_settings *s, const char *value,
                          envd_option_report_fn report, void *data)
{
	return patterns(opt, s, envd_policy_allow(s->policy, value), report, data);
}

static int set_user_deny(const struct envd_option *opt, struct envd_settings *s, const char *value,
                         envd_option_report_fn report, void *data)
{
	return patterns(opt, s, envd_policy_deny(s->policy, value), report, data);
}

static int set_user_only(const struct envd_option *opt, struct envd_settings *s, const char *value,
                         envd_option_report_fn report, void *data)
{
	/* an empty list would allow everything: nothing is what it means */
	if (strspn(value, ",: \t\n") == strlen(value))
		return patterns(opt, s, -EINVAL, report, data);
	return patterns(opt, s, envd_policy_only(s->policy, value), report, data);
}

/* BYTES, with an optional K or M suffix (binary units).  It can only lower
 * the engine's cap, never raise it. */
static int set_size(const struct envd_option *opt, struct envd_settings *s, const char *value,
                    envd_option_report_fn report, void *data)
{
	unsigned long long n, unit = 1;
	char *end, problem[128];

	/* digits only: strtoull alone would take blanks, a sign or "0x" */
	if (value[0] < '0' || value[0] > '9')
		goto bad;
	errno = 0;
	n = strtoull(value, &end, 10);
	if (errno == ERANGE)
		goto bad;
	if (*end == 'k' || *end == 'K')
		unit = 1024;
	else if (*end == 'm' || *end == 'M')
		unit = 1024 * 1024;
	if (unit != 1)
		end++;
	if (unit == 1 && *end > ' ' && *end < 0x7f && end[1] == '\0' && n > 0) {
		snprintf(problem, sizeof(problem),
		         "unknown suffix '%c'; fix: give bytes, or K or M (binary), at most 1M",
		         *end);
		return bad(opt, s, problem, report, data);
	}
	if (*end != '\0' || n == 0 || n > SIZE_MAX / unit)
		goto bad;
	n *= unit;
	if (n > ENVD_MAX_RESULT_BYTES) {
		snprintf(problem, sizeof(problem),
		         "cannot raise the limit above %u bytes; fix: give at most 1M",
		         ENVD_MAX_RESULT_BYTES);
		return bad(opt, s, problem, report, data);
	}
	s->max_env = (size_t)n;
	return 0;
bad:
	return bad(opt, s,
	           "not a positive size; fix: give bytes, with an optional K or M suffix, at "
	           "most 1M",
	           report, data);
}

/* name, cli, flag, user_side, arg, set, help: struct envd_option */
const struct envd_option envd_options[] = {
    {"nouser", "no-user", ENVD_SET_NOUSER, false, NULL, NULL, "read the system directories only"},
    {"nooverwrite", "no-overwrite", ENVD_SET_NOOVERWRITE, false, NULL, NULL,
     "keep variables the login already has"},
    {"noexpand", "no-expand", ENVD_SET_NOEXPAND, false, NULL, NULL, "take values literally"},
    {"user_dir", NULL, 0, true, "DIR", set_user_dir,
     "the user directory; a template: %h home, %u user, %% %"},
    {"system_dirs", NULL, 0, false, "DIRS", set_system_dirs,
     "system directories instead of the four, ':'-separated"},
    {"generators", NULL, ENVD_SET_GENERATORS, false, NULL, NULL,
     "run systemd's user environment generators, as the user"},
    {"generator_dirs", NULL, 0, false, "DIRS", set_generator_dirs,
     "generator directories instead of systemd's four"},
    {"admin_dir", NULL, 0, false, "DIR", set_admin_dir,
     "read DIR/user/USER and DIR/group/GROUP too"},
    {"default_path", NULL, 0, false, "P", set_default_path, "PATH a login without one starts with"},
    {"user_allow", NULL, 0, true, "PAT", set_user_allow,
     "lift default refusals for names matching PAT"},
    {"user_deny", NULL, 0, true, "PAT", set_user_deny,
     "refuse names matching PAT in user files too"},
    {"user_only", NULL, 0, true, "PAT", set_user_only,
     "take only names matching PAT from user files"},
    {"max_env", NULL, 0, false, "SIZE", set_size,
     "cap the result at SIZE bytes (K, M suffixes; at most 1M)"},
    {"reader", NULL, 0, false, "PATH", set_reader,
     "the reader program instead of the installed one"},
    {NULL, NULL, 0, false, NULL, NULL, NULL},
};

int envd_settings_init(struct envd_settings *s)
{
	*s = (struct envd_settings){.default_path = ENVD_DEFAULT_PATH};
	s->policy = envd_policy_new(true);
	return s->policy ? 0 : -ENOMEM;
}

void envd_settings_free(struct envd_settings *s)
{
	free(s->system_dirs);
	s->system_dirs = NULL;
	free(s->generator_dirs);
	s->generator_dirs = NULL;
	envd_policy_free(s->policy);
	s->policy = NULL;
}

int envd_option_set(const struct envd_option *opt, struct envd_settings *s, const char *value,
                    envd_option_report_fn report, void *data)
{
	if (opt->flag) {
		s->flags |= opt->flag;
		return 0;
	}
	if (value == NULL || value[0] == '\0') {
		if (report)
			report(opt, "no value; fix: give one after '='", false, data);
		return -EINVAL;
	}
	return opt->set(opt, s, value, report, data);
}

int envd_settings_arg(struct envd_settings *s, const char *arg, envd_option_report_fn report,
                      void *data)
{
	for (const struct envd_option *o = envd_options; o->name != NULL; o++) {
		size_t len = strlen(o->name);

		if (strncmp(arg, o->name, len) != 0)
			continue;
		if (o->flag && arg[len] == '\0')
			return envd_option_set(o, s, NULL, report, data);
		if (!o->flag && arg[len] == '=')
			return envd_option_set(o, s, arg + len + 1, report, data);
	}
	return -ENOENT;
}

const char *envd_option_cli_name(const struct envd_option *opt, char *buf, size_t size)
{
	size_t i;

	if (size == 0)
		return buf;
	snprintf(buf, size, "%s", opt->cli ? opt->cli : opt->name);
	for (i = 0; buf[i] != '\0'; i++)
		if (buf[i] == '_')
			buf[i] = '-';
	return buf;
}

void envd_settings_config(const struct envd_settings *s, struct envd_config *cfg)
{
	cfg->system_dirs = (const char *const *)s->system_dirs;
	cfg->generators = (s->flags & ENVD_SET_GENERATORS) != 0;
	cfg->generator_dirs = (const char *const *)s->generator_dirs;
	cfg->flags |= (s->flags & ENVD_SET_NOOVERWRITE ? ENVD_NO_OVERWRITE : 0) |
	              (s->flags & ENVD_SET_NOEXPAND ? ENVD_NO_EXPAND : 0);
	cfg->policy = s->policy;
	cfg->admin_dir = s->admin_dir;
	cfg->reader = s->reader;
	if (s->max_env > 0 && s->max_env < cfg->limits.result_bytes)
		cfg->limits.result_bytes = s->max_env;
}
