/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * pam_envd.c - the PAM entry points: environment.d files into the session.
 *
 * open_session (and setcred, for stacks that only call that) loads the
 * user's and the system's environment.d directories through envd_load(),
 * the same function `envd show` uses, and writes the variables the files
 * assign with pam_putenv(), at most once per PAM handle.  The threat model
 * and the privilege window are in privilege.c.
 *
 * Return values: PAM_SUCCESS whatever the files hold (skipped files and
 * assignments are logged).  Errors only for internal failures: out of
 * memory, a PAM call failing, no PAM_USER, privileges that cannot be
 * restored: PAM_SESSION_ERR from open_session, PAM_CRED_ERR from setcred.
 * authenticate returns PAM_IGNORE, close_session PAM_SUCCESS, acct_mgmt and
 * chauthtok PAM_SERVICE_ERR (like pam_env, the module has no business there).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>

#include "module.h"

/* pam_set_data key: the files were applied to this handle. */
#define PE_APPLIED_KEY "pam_envd:applied"

static void free_env(char **env)
{
	if (env == NULL)
		return;
	for (char **p = env; *p != NULL; p++) {
		explicit_bzero(*p, strlen(*p)); /* the PAM environment may hold secrets */
		free(*p);
	}
	free(env);
}

static bool already_applied(pam_handle_t *pamh)
{
	const void *marker = NULL;

	return pam_get_data(pamh, PE_APPLIED_KEY, &marker) == PAM_SUCCESS && marker != NULL;
}

/* Writes one variable, whole or not at all.  Returns PAM_SUCCESS, PAM_IGNORE
 * for a variable that must not be written, or the pam_putenv error. */
static int put_var(pam_handle_t *pamh, const struct pe_options *opt, const struct envd_var *v)
{
	size_t name_len = v->name_len;
	char small[1024], *entry;
	int rc;

	/* The engine promises all of this; a root process does not take
	 * promises about LD_PRELOAD on trust. */
	if (!envd_name_valid(v->name, name_len) || memchr(v->value, '\0', v->value_len) != NULL ||
	    name_len + 1 + v->value_len > ENVD_MAX_ENTRY_BYTES || v->name[name_len] != '\0' ||
	    (v->user_side && envd_policy_check(opt->policy, v->name, v->value) != NULL)) {
		char shown[PE_LOG_NAME_BYTES];

		pe_log_clean(v->name, shown, sizeof(shown));
		pam_syslog(pamh, LOG_ERR, "%s: refused by the module's own check; not set", shown);
		return PAM_IGNORE;
	}
	/* most entries are short: no allocation for them */
	entry = name_len + 1 + v->value_len + 1 <= sizeof(small)
	            ? small
	            : malloc(name_len + 1 + v->value_len + 1);
	if (entry == NULL)
		return PAM_BUF_ERR;
	memcpy(entry, v->name, name_len);
	entry[name_len] = '=';
	memcpy(entry + name_len + 1, v->value, v->value_len);
	entry[name_len + 1 + v->value_len] = '\0';
	rc = pam_putenv(pamh, entry); /* copies */
	explicit_bzero(entry, name_len + 1 + v->value_len);
	if (entry != small)
		free(entry);
	return rc;
}

static int write_result(pam_handle_t *pamh, const struct pe_options *opt,
                        const struct envd_result *res, size_t max_bytes)
{
	size_t n = envd_result_count(res), written = 0, bytes = 0;

	/* Marked before the first write: if a write fails half-way, a second
	 * call must not prepend PATH again. */
	if (pam_set_data(pamh, PE_APPLIED_KEY, (void *)PE_APPLIED_KEY, NULL) != PAM_SUCCESS) {
		pam_syslog(pamh, LOG_ERR, "pam_set_data failed; nothing applied");
		return PAM_SYSTEM_ERR;
	}
	for (size_t i = 0; i < n; i++) {
		const struct envd_var *v = envd_result_var(res, i);
		size_t entry = v->name_len + 1 + v->value_len + 1;
		int rc;

		/* The engine caps the result; the module checks again that what
		 * it writes stays exec-able. */
		if (entry > max_bytes - bytes) {
			pam_syslog(pamh, LOG_ERR,
			           "environment size limit (%zu bytes) reached; "
			           "%zu variables not set",
			           max_bytes, n - i);
			break;
		}
		rc = put_var(pamh, opt, v);

		if (rc == PAM_IGNORE)
			continue;
		if (rc != PAM_SUCCESS) {
			pam_syslog(pamh, LOG_ERR, "pam_putenv failed: %s; %zu of %zu variables set",
			           pam_strerror(pamh, rc), written, n);
			return rc;
		}
		written++;
		bytes += entry;
	}
	if (opt->debug)
		pam_syslog(pamh, LOG_DEBUG, "%zu variables set", written);
	return PAM_SUCCESS;
}

/* The user directory, or NULL to read system files only.  Returns
 * PAM_SUCCESS or PAM_BUF_ERR. */
static int user_dir_for(pam_handle_t *pamh, const struct pe_options *opt, const struct passwd *pw,
                        const char *const *base, char **dir)
{
	int r;

	*dir = NULL;
	if (pw == NULL || opt->nouser || opt->user_side_off)
		return PAM_SUCCESS;
	r = envd_user_dir(opt->user_dir, base, pw->pw_name, pw->pw_dir, dir);
	if (r == -ENOMEM)
		return PAM_BUF_ERR;
	if (r < 0) {
		pam_syslog(pamh, LOG_ERR, "user_dir=: bad template; the user's files are skipped");
		*dir = NULL;
	} else if (*dir == NULL && opt->debug) {
		pam_syslog(pamh, LOG_DEBUG, "no home directory; reading system files only");
	}
	return PAM_SUCCESS;
}

/* Loads and applies the files.  err is the entry point's failure code. */
static int apply(pam_handle_t *pamh, int argc, const char **argv, int err)
{
	struct pe_options opt;
	struct pe_log log;
	struct pe_priv priv;
	struct envd_config cfg;
	struct envd_result *res = NULL;
	const void *item = NULL;
	const struct passwd *pw = NULL;
	char **env = NULL, *dir = NULL;
	const char **base = NULL; /* borrows env */
	int rc, r;

	rc = pe_options_parse(pamh, argc, argv, &opt);
	if (rc != PAM_SUCCESS)
		goto out;
	if (already_applied(pamh)) {
		if (opt.debug)
			pam_syslog(pamh, LOG_DEBUG, "already applied to this handle");
		goto out;
	}
	rc = pam_get_item(pamh, PAM_USER, &item);
	if (rc != PAM_SUCCESS || item == NULL || *(const char *)item == '\0') {
		pam_syslog(pamh, LOG_ERR, "no user name (PAM_USER)");
		rc = PAM_USER_UNKNOWN;
		goto out;
	}
	pw = pam_modutil_getpwnam(pamh, item);
	if (pw == NULL)
		pam_syslog(pamh, LOG_NOTICE, "user not found; reading system files only");

	rc = PAM_BUF_ERR;
	env = pam_getenvlist(pamh);
	if (env == NULL)
		goto out;
	r = envd_login_base((const char *const *)env, pw ? pw->pw_name : NULL,
	                    pw ? pw->pw_dir : NULL, pw ? pw->pw_shell : NULL, opt.default_path,
	                    &base);
	if (r < 0)
		goto out;
	rc = user_dir_for(pamh, &opt, pw, base, &dir);
	if (rc != PAM_SUCCESS)
		goto out;

	pe_log_init(&log, pamh, opt.debug);
	pe_priv_init(&priv, pamh, pw, opt.debug);
	envd_config_init(&cfg);
	cfg.user_dir = dir;
	cfg.user_uid = pw ? pw->pw_uid : 0;
	cfg.system_uid = 0;
	cfg.system_dirs = (const char *const *)opt.system_dirs;
	cfg.base_env = base;
	/* nooverwrite keeps what the PAM environment holds, not the fallbacks
	 * envd_login_base appended after it */
	cfg.base_preset = 0;
	while (env[cfg.base_preset] != NULL)
		cfg.base_preset++;
	cfg.flags = opt.flags & (ENVD_NO_OVERWRITE | ENVD_NO_EXPAND);
	cfg.policy = opt.policy;
	if (opt.max_env > 0 && opt.max_env < cfg.limits.result_bytes)
		cfg.limits.result_bytes = opt.max_env;
	cfg.diag = pe_log_diag;
	cfg.diag_data = &log;
	cfg.diag_level = opt.debug ? ENVD_DEBUG : ENVD_WARNING; /* what pe_log_diag sends */
	cfg.enter_user = pe_priv_enter;
	cfg.leave_user = pe_priv_leave;
	cfg.priv_data = &priv;

	r = envd_load(&cfg, &res);
	if (pe_priv_finish(&priv) != 0 || r == -EPERM) {
		pam_syslog(pamh, LOG_CRIT, "privileges not restored; failing the session");
		rc = PAM_SYSTEM_ERR;
		goto out;
	}
	if (r < 0) {
		pam_syslog(pamh, LOG_ERR, "loading failed: %s",
		           r == -ENOMEM   ? "out of memory"
		           : r == -EINVAL ? "invalid configuration"
		                          : "internal error");
		rc = r == -ENOMEM ? PAM_BUF_ERR : PAM_SYSTEM_ERR;
		goto out;
	}
	pe_log_finish(&log, envd_result_diag_count(res));
	rc = write_result(pamh, &opt, res, cfg.limits.result_bytes);
out:
	envd_result_free(res);
	free(dir);
	free(base);
	free_env(env);
	pe_options_free(&opt);
	if (rc == PAM_BUF_ERR)
		pam_syslog(pamh, LOG_CRIT, "out of memory");
	return rc == PAM_SUCCESS ? PAM_SUCCESS : err;
}

int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	return apply(pamh, argc, argv, PAM_SESSION_ERR);
}

int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	if (flags & PAM_DELETE_CRED)
		return PAM_SUCCESS; /* nothing to take back: the environment dies with the handle */
	return apply(pamh, argc, argv, PAM_CRED_ERR);
}

int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	return PAM_SUCCESS;
}

int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	return PAM_IGNORE;
}

int pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	pam_syslog(pamh, LOG_NOTICE, "called for account management; pam_envd is a session module");
	return PAM_SERVICE_ERR;
}

int pam_sm_chauthtok(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	pam_syslog(pamh, LOG_NOTICE, "called for password changes; pam_envd is a session module");
	return PAM_SERVICE_ERR;
}
