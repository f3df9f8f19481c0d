/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* options.c - the module arguments of pam_envd.so.
 *
 * The options shared with envd are lib/options.c's table; only debug and
 * cleanup are the module's own.  An unknown, empty or malformed option is
 * logged and ignored; a malformed option that narrows what user files may
 * do switches the user side off instead (the table says which), so that a
 * typo never widens what a user can set. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <syslog.h>

#include <security/pam_ext.h>

#include "module.h"

/* "user_dir=: not an absolute path; fix: start it with / or with %h (the
 * home directory); the user's files are skipped" */
static void report(const struct envd_option *o, const char *problem, bool user_side_off, void *data)
{
	pam_handle_t *pamh = data;

	pam_syslog(pamh, LOG_ERR, "%s%s: %s; %s", o->name, o->flag ? "" : "=", problem,
	           user_side_off ? "the user's files are skipped" : "ignored");
}

static int apply_one(pam_handle_t *pamh, struct pe_options *opt, const char *arg)
{
	char shown[256];
	int r;

	if (strcmp(arg, "debug") == 0) {
		opt->debug = true;
		return PAM_SUCCESS;
	}
	if (strcmp(arg, "cleanup") == 0) {
		opt->cleanup = true;
		return PAM_SUCCESS;
	}
	r = envd_settings_arg(&opt->set, arg, report, pamh);
	if (r == -ENOMEM)
		return PAM_BUF_ERR;
	if (r == -ENOENT) {
		pe_log_clean(arg, shown, sizeof(shown));
		pam_syslog(pamh, LOG_ERR, "unknown option: %s", shown);
	}
	return PAM_SUCCESS;
}

int pe_options_parse(pam_handle_t *pamh, int argc, const char **argv, struct pe_options *opt)
{
	*opt = (struct pe_options){.debug = false};
	if (envd_settings_init(&opt->set) < 0)
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

bool pe_options_cleanup(int argc, const char **argv)
{
	for (int i = 0; i < argc; i++)
		if (argv[i] != NULL && strcmp(argv[i], "cleanup") == 0)
			return true;
	return false;
}

void pe_options_free(struct pe_options *opt)
{
	envd_settings_free(&opt->set);
}
