/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* pam_probe.so - a test module that reports another module's return codes.
 *
 *   TYPE CONTROL /path/pam_probe.so /path/to/module.so [ARGS...]
 *
 * Each entry point loads the module, calls the same entry point from inside
 * the stack (so pam_set_data and friends behave as in production), records
 * the return code in the PAM environment as PROBE_RC_<function>=<code>, and
 * returns it.  The tests drop PROBE_* when they compare environments.
 *
 *   TYPE CONTROL /path/pam_probe.so record FILE
 *
 * records instead what a module stacked there sees: each call appends
 * "== <function>" and the PAM environment, one entry a line, to FILE, and
 * returns PAM_SUCCESS (a stand-in for a pam_exec helper that works in every
 * cell of the Linux-PAM matrix).
 *
 *   TYPE CONTROL /path/pam_probe.so environ FILE
 *
 * records the process environment (environ) the same way: what pam_script
 * and pam_mount hand to the programs they run.
 *
 *   TYPE CONTROL /path/pam_probe.so returns OPEN CLOSE
 *
 * returns the number OPEN from open_session, CLOSE from close_session and
 * PAM_SUCCESS from the other entry points: a module that answers otherwise
 * at close than at open. */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>

extern char **environ;

/* Appends "== <function>" and env, one entry a line, to path. */
static int record_list(char **env, const char *fn, const char *path)
{
	FILE *f = fopen(path, "a");

	if (f == NULL)
		return PAM_SYSTEM_ERR;
	fprintf(f, "== %s\n", fn + strlen("pam_sm_"));
	for (char **p = env; p != NULL && *p != NULL; p++)
		fprintf(f, "%s\n", *p);
	return fclose(f) == 0 ? PAM_SUCCESS : PAM_SYSTEM_ERR;
}

static int record_env(pam_handle_t *pamh, const char *fn, const char *path)
{
	char **env = pam_getenvlist(pamh);
	int rc;

	if (env == NULL)
		return PAM_BUF_ERR;
	rc = record_list(env, fn, path);
	for (char **p = env; *p != NULL; p++)
		free(*p);
	free(env);
	return rc;
}

typedef int (*sm_fn)(pam_handle_t *, int, int, const char **);

static int probe(pam_handle_t *pamh, const char *fn, int flags, int argc, const char **argv)
{
	char record[96];
	void *dl;
	sm_fn f;
	int rc;

	if (argc < 1)
		return PAM_SERVICE_ERR;
	if (strcmp(argv[0], "record") == 0)
		return argc == 2 ? record_env(pamh, fn, argv[1]) : PAM_SERVICE_ERR;
	if (strcmp(argv[0], "environ") == 0)
		return argc == 2 ? record_list(environ, fn, argv[1]) : PAM_SERVICE_ERR;
	if (strcmp(argv[0], "returns") == 0 && argc == 3)
		return strcmp(fn, "pam_sm_open_session") == 0    ? atoi(argv[1])
		       : strcmp(fn, "pam_sm_close_session") == 0 ? atoi(argv[2])
		                                                 : PAM_SUCCESS;
	/* Kept open on purpose: the module may have left pam_set_data entries
	 * behind that libpam cleans up at pam_end. */
	dl = dlopen(argv[0], RTLD_NOW | RTLD_LOCAL);
	if (dl == NULL) {
		pam_syslog(pamh, LOG_ERR, "probe: %s", dlerror());
		return PAM_SERVICE_ERR;
	}
	f = (sm_fn)dlsym(dl, fn);
	if (f == NULL) {
		pam_syslog(pamh, LOG_ERR, "probe: %s missing", fn);
		return PAM_SYMBOL_ERR;
	}
	rc = f(pamh, flags, argc - 1, argv + 1);
	snprintf(record, sizeof(record), "PROBE_RC_%s=%d", fn + strlen("pam_sm_"), rc);
	if (pam_putenv(pamh, record) != PAM_SUCCESS)
		return PAM_BUF_ERR;
	return rc;
}

int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	return probe(pamh, "pam_sm_authenticate", flags, argc, argv);
}

int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	return probe(pamh, "pam_sm_setcred", flags, argc, argv);
}

int pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	return probe(pamh, "pam_sm_acct_mgmt", flags, argc, argv);
}

int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	return probe(pamh, "pam_sm_open_session", flags, argc, argv);
}

int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	return probe(pamh, "pam_sm_close_session", flags, argc, argv);
}

int pam_sm_chauthtok(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	return probe(pamh, "pam_sm_chauthtok", flags, argc, argv);
}
