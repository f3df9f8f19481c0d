/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* options.c - the module arguments of pam_envd.so.
 *
 * Table-driven: one row per option.  An unknown, empty or malformed option is
 * logged and ignored; a malformed option that narrows what user files may do
 * (user_dir=, user_allow=, user_deny=) switches the user side off instead, so
 * that a typo never widens what a user can set. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <security/pam_ext.h>

#include "module.h"

/* The engine's directories, the user directory included, less that one. */
#define PE_MAX_SYSTEM_DIRS (ENVD_MAX_DIRS - 1u)

#ifndef ENVD_DEFAULT_PATH
#define ENVD_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"
#endif

/* Handlers return PAM_SUCCESS, or PAM_BUF_ERR when out of memory; they log
 * and ignore bad values themselves. */
typedef int (*option_fn)(pam_handle_t *pamh, struct pe_options *opt, const char *arg,
                         const char *value);

static int set_debug(pam_handle_t *pamh, struct pe_options *opt, const char *arg, const char *v)
{
	opt->debug = true;
	return PAM_SUCCESS;
}

static int set_nouser(pam_handle_t *pamh, struct pe_options *opt, const char *arg, const char *v)
{
	opt->nouser = true;
	return PAM_SUCCESS;
}

static int set_nooverwrite(pam_handle_t *pamh, struct pe_options *opt, const char *arg,
                           const char *v)
{
	opt->flags |= ENVD_NO_OVERWRITE;
	return PAM_SUCCESS;
}

static int set_noexpand(pam_handle_t *pamh, struct pe_options *opt, const char *arg, const char *v)
{
	opt->flags |= ENVD_NO_EXPAND;
	return PAM_SUCCESS;
}

/* system_dirs=DIR:DIR:...  Relative entries are dropped; what remains (even
 * nothing) replaces the default list.  One block: the pointers, then a copy
 * of the value with each ':' made a NUL. */
static int set_system_dirs(pam_handle_t *pamh, struct pe_options *opt, const char *arg,
                           const char *value)
{
	size_t n = 1, k = 0, len = strlen(value), size;
	char **dirs, *p, *end;

	for (const char *c = value; *c != '\0'; c++)
		n += *c == ':';
	size = (n + 1) * sizeof(*dirs);
	dirs = malloc(size + len + 1);
	if (dirs == NULL)
		return PAM_BUF_ERR;
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
			pam_syslog(pamh, LOG_ERR, "%s: ignoring a relative directory", arg);
		} else if (k == PE_MAX_SYSTEM_DIRS) {
			pam_syslog(pamh, LOG_ERR, "%s: more than %u directories; the rest ignored",
			           arg, PE_MAX_SYSTEM_DIRS);
			break;
		} else
			dirs[k++] = dir;
	}
	dirs[k] = NULL;
	free(opt->system_dirs);
	opt->system_dirs = dirs;
	return PAM_SUCCESS;
}

static int set_user_dir(pam_handle_t *pamh, struct pe_options *opt, const char *arg,
                        const char *value)
{
	opt->user_dir = value; /* the template is checked when it is expanded */
	return PAM_SUCCESS;
}

static int set_default_path(pam_handle_t *pamh, struct pe_options *opt, const char *arg,
                            const char *value)
{
	opt->default_path = value;
	return PAM_SUCCESS;
}

/* A pattern list of user_allow=, user_deny= or user_only=: r is what the
 * policy call returned. */
static int policy_result(pam_handle_t *pamh, struct pe_options *opt, const char *option, int r)
{
	if (r == -ENOMEM)
		return PAM_BUF_ERR;
	if (r < 0) {
		pam_syslog(pamh, LOG_ERR, "%s: invalid pattern list; the user's files are skipped",
		           option);
		opt->user_side_off = true;
	}
	return PAM_SUCCESS;
}

static int set_user_allow(pam_handle_t *pamh, struct pe_options *opt, const char *arg,
                          const char *value)
{
	return policy_result(pamh, opt, "user_allow=", envd_policy_allow(opt->policy, value));
}

static int set_user_deny(pam_handle_t *pamh, struct pe_options *opt, const char *arg,
                         const char *value)
{
	return policy_result(pamh, opt, "user_deny=", envd_policy_deny(opt->policy, value));
}

static int set_user_only(pam_handle_t *pamh, struct pe_options *opt, const char *arg,
                         const char *value)
{
	/* an empty list would allow everything: nothing is what it means */
	if (strspn(value, ",: \t\n") == strlen(value))
		return policy_result(pamh, opt, "user_only=", -EINVAL);
	return policy_result(pamh, opt, "user_only=", envd_policy_only(opt->policy, value));
}

/* max_env=BYTES, with an optional K or M suffix (binary units).  It can only
 * lower the engine's cap, never raise it. */
static int set_max_env(pam_handle_t *pamh, struct pe_options *opt, const char *arg,
                       const char *value)
{
	unsigned long long n, unit = 1;
	char *end;

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
	if (*end != '\0' || n == 0 || n > SIZE_MAX / unit)
		goto bad;
	n *= unit;
	if (n > ENVD_MAX_RESULT_BYTES) {
		pam_syslog(pamh, LOG_ERR, "max_env=: cannot raise the limit above %u bytes",
		           ENVD_MAX_RESULT_BYTES);
		return PAM_SUCCESS;
	}
	opt->max_env = (size_t)n;
	return PAM_SUCCESS;
bad:
	pam_syslog(pamh, LOG_ERR, "max_env=: not a positive size; ignored");
	return PAM_SUCCESS;
}

struct option_row {
	const char *name; /* ends in '=' when the option takes a value */
	size_t len;       /* strlen(name) */
	option_fn fn;
};

#define ROW(name, fn)                                                                              \
	{                                                                                          \
		name, sizeof(name) - 1, fn                                                         \
	}

static const struct option_row options[] = {
    ROW("debug", set_debug),
    ROW("nouser", set_nouser),
    ROW("nooverwrite", set_nooverwrite),
    ROW("noexpand", set_noexpand),
    ROW("system_dirs=", set_system_dirs),
    ROW("user_dir=", set_user_dir),
    ROW("default_path=", set_default_path),
    ROW("user_allow=", set_user_allow),
    ROW("user_deny=", set_user_deny),
    ROW("user_only=", set_user_only),
    ROW("max_env=", set_max_env),
};

static int apply_one(pam_handle_t *pamh, struct pe_options *opt, const char *arg)
{
	char shown[256];

	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
		const char *name = options[i].name;
		size_t len = options[i].len;

		if (name[len - 1] != '=') {
			if (strcmp(arg, name) == 0)
				return options[i].fn(pamh, opt, arg, NULL);
			continue;
		}
		if (strncmp(arg, name, len) != 0)
			continue;
		if (arg[len] == '\0') {
			pam_syslog(pamh, LOG_ERR, "option %s has no value; ignored", name);
			return PAM_SUCCESS;
		}
		return options[i].fn(pamh, opt, name, arg + len);
	}
	pe_log_clean(arg, shown, sizeof(shown));
	pam_syslog(pamh, LOG_ERR, "unknown option: %s", shown);
	return PAM_SUCCESS;
}

int pe_options_parse(pam_handle_t *pamh, int argc, const char **argv, struct pe_options *opt)
{
	*opt = (struct pe_options){.default_path = ENVD_DEFAULT_PATH};
	opt->policy = envd_policy_new(true);
	if (opt->policy == NULL)
		return PAM_BUF_ERR;
	for (int i = 0; i < argc; i++) {
		int rc;

		if (argv[i] == NULL)
			continue;
		rc = apply_one(pamh, opt, argv[i]);
		if (rc != PAM_SUCCESS)
			return rc;
	}
	return PAM_SUCCESS;
}

void pe_options_free(struct pe_options *opt)
{
	free(opt->system_dirs);
	opt->system_dirs = NULL;
	if (opt->policy != NULL)
		envd_policy_free(opt->policy);
	opt->policy = NULL;
}
