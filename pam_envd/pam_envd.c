/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * pam_envd.c - the PAM entry points: environment.d files into the session.
 *
 * open_session (and setcred, for stacks that only call that) loads the
 * user's and the system's environment.d directories through envd_load(),
 * the same function `envd show` uses, and writes the variables the files
 * assign with pam_putenv(), at most once per PAM handle.  The login
 * process reads nothing of the user's: the user directory is read by the
 * reader program with the user's credentials (lib/spawn.c starts
 * helper/reader.c), whose answer is checked as input (lib/read.c).
 *
 * The PAM environment is not the user's session alone: Linux-PAM runs the
 * close_session hooks top to bottom on the same environment, so every
 * module stacked before this one (a pam_exec logout helper, run as root)
 * would see the user's values at close.  A second instance with the
 * option "cleanup", stacked first, therefore does nothing at open and, at
 * close, takes back every variable the applying instance set, before any
 * later hook runs: it plays back the record the applying instance keeps
 * with the handle (pam_set_data).
 *
 * Some programs copy the PAM environment into their own (util-linux login,
 * into the root process that later closes the session) and the close hooks
 * of pam_script and pam_mount run their programs with that copy.  The
 * cleanup instance therefore also takes back, in the process environment,
 * each variable whose entry there is not the one the program had when the
 * session opened and whose value is still the one written
 * (take_back_process): the program's own entries are never changed.
 *
 * Return values: PAM_SUCCESS whatever the files hold (skipped files and
 * assignments are logged).  Errors only for internal failures: out of
 * memory, a PAM call failing, no PAM_USER: PAM_SESSION_ERR from
 * open_session, PAM_CRED_ERR from setcred.  A user side that cannot be read
 * (the child cannot start, takes too long, says something malformed) is
 * logged and skipped: the system files still apply.
 * close_session returns PAM_SUCCESS, or PAM_SESSION_ERR from a cleanup
 * instance that could not take a variable back.  authenticate returns
 * PAM_IGNORE, acct_mgmt and chauthtok PAM_SERVICE_ERR (like pam_env, the
 * module has no business there).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>

#include "internal.h" /* envd_hash */
#include "module.h"

/* pam_set_data key: the files were applied to this handle.  Its data is
 * the record of what the applying instance changed. */
#define PE_APPLIED_KEY "pam_envd:applied"

/* How to take back each variable written, in the order written.  back is
 * "NAME=old" where the PAM environment had a value before, "NAME" (unset)
 * where it had none.  The value written is kept as its length and keyed
 * hash only: enough to tell, at close, whether a program's copy of it is
 * still the user's, without a second copy of every value (a token, say)
 * living in a root process for the whole session.  The key is the
 * process's random one (envd_hash), which no user can learn, so no value a
 * program chose itself is taken for the user's but by a 2^-64 chance, and
 * then what is lost is that program's value, never a secret.  host is
 * the identity (address, compared, never followed) of the process
 * environment's own entry for the name when the value was written, 0
 * where there was none: that entry is the program's, whatever its value.
 * One allocation, sized for the whole result up front. */
struct pe_undo_var {
	char *back;
	size_t value_len;
	uint64_t value_hash;
	uintptr_t host;
};

extern char **environ;

/* The process environment's entry "NAME=value" for name (len bytes), the
 * one getenv finds, or NULL. */
static const char *process_entry(const char *name, size_t len)
{
	for (char **e = environ; e != NULL && *e != NULL; e++)
		if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
			return *e;
	return NULL;
}

struct pe_undo {
	size_t n, cap;
	struct pe_undo_var var[];
};

static void free_secret(char *s)
{
	explicit_bzero(s, strlen(s));
	free(s);
}

static void undo_free(pam_handle_t *pamh, void *data, int error_status)
{
	struct pe_undo *undo = data;

	while (undo->n > 0)
		free_secret(undo->var[--undo->n].back);
	free(undo);
}

/* What puts a variable back as it was: "NAME=before", or "NAME" where the
 * PAM environment had no such name.  The engine found before in the copy of
 * the PAM environment it was given (one hash lookup; pam_getenv here would
 * search the whole environment for every variable). */
static char *undo_entry(const struct envd_var *v)
{
	size_t before_len = v->before != NULL ? strlen(v->before) : 0;
	char *e = malloc(v->name_len + (v->before != NULL ? 1 + before_len : 0) + 1);

	if (e == NULL)
		return NULL;
	memcpy(e, v->name, v->name_len);
	if (v->before == NULL) {
		e[v->name_len] = '\0';
	} else {
		e[v->name_len] = '=';
		memcpy(e + v->name_len + 1, v->before, before_len + 1);
	}
	return e;
}

static void free_env(char **env)
{
	if (env == NULL)
		return;
	for (char **p = env; *p != NULL; p++)
		free_secret(*p); /* the PAM environment may hold secrets */
	free(env);
}

static bool already_applied(pam_handle_t *pamh)
{
	const void *marker = NULL;

	return pam_get_data(pamh, PE_APPLIED_KEY, &marker) == PAM_SUCCESS && marker != NULL;
}

/* Writes one variable, whole or not at all, and records in undo how to
 * take it back.  Every rule on names, values, sizes and the policy is the
 * engine's, checked once there (envd_load); the module writes its result.
 * Returns PAM_SUCCESS, PAM_BUF_ERR, or the pam_putenv error. */
static int put_var(pam_handle_t *pamh, const struct envd_var *v, struct pe_undo *undo)
{
	size_t name_len = v->name_len;
	char small[1024], *entry, *back;
	int rc;

	/* most entries are short: no allocation for them */
	entry = name_len + 1 + v->value_len + 1 <= sizeof(small)
	            ? small
	            : malloc(name_len + 1 + v->value_len + 1);
	if (entry == NULL)
		return PAM_BUF_ERR;
	/* never a value the cleanup instance could not take back */
	back = undo->n < undo->cap ? undo_entry(v) : NULL;
	if (back == NULL) {
		if (entry != small)
			free(entry);
		return PAM_BUF_ERR;
	}
	memcpy(entry, v->name, name_len);
	entry[name_len] = '=';
	memcpy(entry + name_len + 1, v->value, v->value_len);
	entry[name_len + 1 + v->value_len] = '\0';
	rc = pam_putenv(pamh, entry); /* copies */
	explicit_bzero(entry, name_len + 1 + v->value_len);
	if (entry != small)
		free(entry);
	if (rc == PAM_SUCCESS) {
		undo->var[undo->n].back = back;
		undo->var[undo->n].value_len = v->value_len;
		undo->var[undo->n].value_hash = envd_hash(v->value, v->value_len);
		undo->var[undo->n].host = (uintptr_t)process_entry(v->name, name_len);
		undo->n++;
	} else {
		free_secret(back);
	}
	return rc;
}

static int write_result(pam_handle_t *pamh, const struct pe_options *opt,
                        const struct envd_result *res)
{
	size_t n = envd_result_count(res), written = 0;
	struct pe_undo *undo = calloc(1, sizeof(*undo) + n * sizeof(undo->var[0]));

	if (undo == NULL)
		return PAM_BUF_ERR;
	undo->cap = n;
	/* Kept before the first write: if a write fails half-way, a second
	 * call must not prepend PATH again, and what was written is taken
	 * back at close all the same. */
	if (pam_set_data(pamh, PE_APPLIED_KEY, undo, undo_free) != PAM_SUCCESS) {
		undo_free(pamh, undo, 0);
		pam_syslog(pamh, LOG_ERR, "pam_set_data failed; nothing applied");
		return PAM_SYSTEM_ERR;
	}
	for (size_t i = 0; i < n; i++) {
		int rc = put_var(pamh, envd_result_var(res, i), undo);

		if (rc != PAM_SUCCESS) {
			pam_syslog(pamh, LOG_ERR, "pam_putenv failed: %s; %zu of %zu variables set",
			           pam_strerror(pamh, rc), written, n);
			return rc;
		}
		written++;
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
	if (pw == NULL || (opt->set.flags & ENVD_SET_NOUSER) || opt->set.user_side_off)
		return PAM_SUCCESS;
	r = envd_user_dir(opt->set.user_dir, base, pw->pw_name, pw->pw_dir, dir);
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

/* Who reads the user directory: the user, in a child process; and the
 * groups whose admin_dir directories apply.  A root caller looks the
 * groups up now (NSS is not for a forked child), once for both; any other
 * caller's child keeps the caller's own credentials.  Returns PAM_SUCCESS,
 * with *dir freed when the groups cannot be had, or PAM_BUF_ERR. */
static int reader_ids(pam_handle_t *pamh, const struct pe_options *opt, const struct passwd *pw,
                      char **dir, struct envd_ids *ids)
{
	bool reader = *dir != NULL && geteuid() == 0 && pw->pw_uid != 0;
	int r;

	*ids = (struct envd_ids){.uid = pw->pw_uid, .gid = pw->pw_gid};
	if (!reader && opt->set.admin_dir == NULL)
		return PAM_SUCCESS;
	r = envd_ids_get(pw->pw_name, pw->pw_uid, pw->pw_gid, ids);
	if (r == -ENOMEM)
		return PAM_BUF_ERR;
	if (r < 0) {
		pam_syslog(pamh, LOG_ERR,
		           "cannot look up the user's groups; the user's files and the group "
		           "directories are skipped");
		free(*dir);
		*dir = NULL;
	}
	return PAM_SUCCESS;
}

/* The user, for a root login: looked up by the reader within the user
 * side's bound (a directory that is down costs the login that bound, not
 * NSS's own time-outs), which then waits in *started for the user side's
 * job.  *pw points into who.  Where no reader can be started the look-up
 * is made here, as any module of the stack makes it.  Returns PAM_SUCCESS
 * (*pw NULL: no such user, or none in time) or PAM_BUF_ERR. */
static int lookup_user(pam_handle_t *pamh, const struct pe_options *opt, const char *user,
                       struct envd_reader **started, struct envd_who *who, struct passwd *pwbuf,
                       const struct passwd **pw, struct envd_ids *ids)
{
	struct envd_child c = {
	    .budget_ms = ENVD_MAX_USER_MS, .memory_bytes = 64u << 20, .reader = opt->set.reader};
	int r;

	*pw = NULL;
	if (geteuid() != 0) {
		*pw = pam_modutil_getpwnam(pamh, user);
		return PAM_SUCCESS;
	}
	r = envd_reader_lookup(user, &c, opt->set.admin_dir != NULL, started, who);
	if (r == 0) {
		*pwbuf = (struct passwd){.pw_name = who->name,
		                         .pw_uid = who->uid,
		                         .pw_gid = who->gid,
		                         .pw_dir = who->dir,
		                         .pw_shell = who->shell};
		*pw = pwbuf;
		*ids = (struct envd_ids){.uid = who->uid,
		                         .gid = who->gid,
		                         .groups = who->groups,
		                         .ngroups = who->ngroups};
		who->groups = NULL; /* ids has them now */
		return PAM_SUCCESS;
	}
	if (r == -ENOMEM)
		return PAM_BUF_ERR;
	if (r == -ETIMEDOUT)
		pam_syslog(pamh, LOG_ERR,
		           "looking up the user took longer than %u ms (its directory is down?): "
		           "reading system files only",
		           ENVD_MAX_USER_MS);
	else if (r != -ESRCH) {
		/* no reader (missing, refused): looked up here; the user side
		 * then says why it is skipped */
		*pw = pam_modutil_getpwnam(pamh, user);
	}
	return PAM_SUCCESS;
}

/* The load's configuration for the user pw (NULL: none found) and the
 * options; the caller adds the base environment and the log. */
static void config(struct envd_config *cfg, const struct pe_options *opt, const struct passwd *pw,
                   const char *dir, const struct envd_ids *ids, const struct envd_who *who,
                   struct envd_reader **started)
{
	envd_config_init(cfg);
	cfg->user_dir = dir;
	cfg->user_uid = pw ? pw->pw_uid : 0;
	if (pw != NULL) {
		cfg->user_ids = ids;
		cfg->user_name = pw->pw_name;
		cfg->user_gid = pw->pw_gid;
		cfg->admin_user = pw->pw_name;
		cfg->admin_groups = ids->groups;
		cfg->admin_ngroups = ids->ngroups;
		cfg->admin_group_names = (const char *const *)who->group_names;
	}
	cfg->started = started;
	cfg->system_uid = 0;
	envd_settings_config(&opt->set, cfg);
	cfg->diag = pe_log_diag;
	cfg->diag_level = opt->debug ? ENVD_DEBUG : ENVD_WARNING; /* what pe_log_diag sends */
}

/* Loads and applies the files.  err is the entry point's failure code. */
static int apply(pam_handle_t *pamh, int argc, const char **argv, int err)
{
	struct pe_options opt;
	struct pe_log log;
	struct envd_ids ids = {0};
	struct envd_reader *started = NULL;
	struct envd_who who = {0};
	struct passwd pwbuf;
	struct envd_config cfg;
	struct envd_result *res = NULL;
	const void *item = NULL;
	const struct passwd *pw = NULL;
	char **env = NULL, *dir = NULL;
	const char **base = NULL; /* borrows env */
	int rc, r;

	rc = pe_options_parse(pamh, argc, argv, &opt);
	if (rc != PAM_SUCCESS || opt.cleanup) /* the cleanup instance works at close */
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
	rc = lookup_user(pamh, &opt, item, &started, &who, &pwbuf, &pw, &ids);
	if (rc != PAM_SUCCESS)
		goto out;
	if (pw == NULL)
		pam_syslog(pamh, LOG_NOTICE, "user not found; reading system files only");

	rc = PAM_BUF_ERR;
	env = pam_getenvlist(pamh);
	if (env == NULL)
		goto out;
	r = envd_login_base((const char *const *)env, pw ? pw->pw_name : NULL,
	                    pw ? pw->pw_dir : NULL, pw ? pw->pw_shell : NULL, opt.set.default_path,
	                    &base);
	if (r < 0)
		goto out;
	rc = user_dir_for(pamh, &opt, pw, base, &dir);
	if (rc == PAM_SUCCESS && pw != NULL && ids.groups == NULL &&
	    (dir != NULL || opt.set.admin_dir != NULL))
		rc = reader_ids(pamh, &opt, pw, &dir, &ids);
	if (rc != PAM_SUCCESS)
		goto out;

	pe_log_init(&log, pamh, opt.debug);
	config(&cfg, &opt, pw, dir, &ids, &who, &started);
	cfg.base_env = base;
	/* nooverwrite keeps what the PAM environment holds, not the fallbacks
	 * envd_login_base appended after it */
	cfg.base_preset = 0;
	while (env[cfg.base_preset] != NULL)
		cfg.base_preset++;
	cfg.diag_data = &log;

	r = envd_load(&cfg, &res);
	if (r < 0) {
		pam_syslog(pamh, LOG_ERR, "loading failed: %s",
		           r == -ENOMEM   ? "out of memory"
		           : r == -EINVAL ? "invalid configuration"
		                          : "internal error");
		rc = r == -ENOMEM ? PAM_BUF_ERR : PAM_SYSTEM_ERR;
		goto out;
	}
	pe_log_finish(&log, envd_result_diag_count(res));
	rc = write_result(pamh, &opt, res);
out:
	envd_reader_close(started); /* a reader that got no job */
	envd_who_free(&who);
	envd_result_free(res);
	envd_ids_free(&ids);
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

/* The process environment of the program that closes the session, for a
 * name the applying instance wrote (name NUL-terminated, before its value
 * from before or NULL).  An entry that is the very one the program had
 * when the value was written (u->host: same address) is the program's
 * own, whatever its value, and is left alone: a host's LANG equal to a
 * system file's stays.  Another entry that holds the value written was
 * put there since the open: by a program that copied the PAM environment
 * (util-linux login does, into the root process whose close hooks run
 * pam_script and pam_mount with it).  That one gets the PAM environment's
 * value from before, or is unset where there was none (what the program
 * itself had before its copy is not known; an unset PATH is the system's
 * default).  A name the program never copied, or changed since, is left
 * alone.  Returns 1 when taken back, 0 when left alone, -1 when it could
 * be neither put back nor unset.
 *
 * environ is not thread-safe, here as in pam_mount (setenv of PATH around
 * its close hook) or pam_script (its own variables, after a fork): the
 * programs that copy the PAM environment are single-threaded when they
 * close the session, and in every other program this only reads environ,
 * since a name is written only where its entry was replaced since the
 * open with the value written, i.e. copied. */
static int take_back_process(const struct pe_undo_var *u, const char *name, const char *before)
{
	size_t len = strlen(name);
	const char *entry = process_entry(name, len), *now = entry != NULL ? entry + len + 1 : NULL;

	if (now == NULL || (uintptr_t)entry == u->host || strlen(now) != u->value_len ||
	    envd_hash(now, u->value_len) != u->value_hash)
		return 0;
	if (before != NULL && setenv(name, before, 1) == 0)
		return 1;
	return unsetenv(name) == 0 ? 1 : -1;
}

/* The cleanup instance: takes back, newest first, every variable the
 * applying instance wrote to this handle, in the PAM environment and in the
 * process environment (take_back_process), and empties the record, so that
 * a second call, or a call without an applying instance, does nothing.  A
 * value that cannot be put back is unset. */
static int take_back(pam_handle_t *pamh, bool debug)
{
	const void *data = NULL;
	struct pe_undo *undo;
	size_t n, lost = 0, lost_process = 0, in_process = 0;

	if (pam_get_data(pamh, PE_APPLIED_KEY, &data) != PAM_SUCCESS || data == NULL) {
		if (debug)
			pam_syslog(pamh, LOG_DEBUG, "cleanup: nothing was applied to this handle");
		return PAM_SUCCESS;
	}
	undo = (struct pe_undo *)data; /* the record is ours: pam_set_data above */
	n = undo->n;
	while (undo->n > 0) {
		struct pe_undo_var *u = &undo->var[--undo->n];
		char *e = u->back, *eq = strchr(e, '=');
		size_t len = strlen(e);
		int rc = pam_putenv(pamh, e), r;

		if (eq != NULL)
			*eq = '\0'; /* e is the name now, eq + 1 the value before */
		if (rc != PAM_SUCCESS && eq != NULL)
			rc = pam_putenv(pamh, e);
		/* unsetting a name that is not set any more */
		if (rc != PAM_SUCCESS && (rc != PAM_BAD_ITEM || pam_getenv(pamh, e) != NULL))
			lost++;
		r = take_back_process(u, e, eq != NULL ? eq + 1 : NULL);
		if (r < 0)
			lost_process++;
		else
			in_process += (size_t)r;
		explicit_bzero(e, len);
		free(e);
		u->back = NULL;
	}
	if (lost > 0 || lost_process > 0) {
		pam_syslog(pamh, LOG_CRIT,
		           "cleanup: of %zu variables, %zu could not be taken back in the PAM "
		           "environment, %zu in the process environment",
		           n, lost, lost_process);
		return PAM_SESSION_ERR;
	}
	if (debug)
		pam_syslog(pamh, LOG_DEBUG,
		           "cleanup: %zu variables taken back, %zu in the process environment", n,
		           in_process);
	return PAM_SUCCESS;
}

int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct pe_options opt;
	int rc;

	/* the applying instance, last in the stack, has nothing to do */
	if (!pe_options_cleanup(argc, argv))
		return PAM_SUCCESS;
	rc = pe_options_parse(pamh, argc, argv, &opt);
	if (rc == PAM_SUCCESS)
		rc = take_back(pamh, opt.debug);
	pe_options_free(&opt);
	return rc == PAM_SUCCESS ? PAM_SUCCESS : PAM_SESSION_ERR;
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
