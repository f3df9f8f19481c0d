/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* pam_session.c - one session of a real user through the libpam this
 * program is linked with, for tests/e2e/e2e_confdir.sh (no pamtester: the
 * compatibility cells of ./dev test link it with each Linux-PAM built).
 *
 *   pam_session CONFDIR SERVICE USER OUT
 *
 * pam_start_confdir(SERVICE, USER, CONFDIR), pam_open_session, then the
 * PAM environment into OUT (NAME=VALUE entries, each ended by a NUL),
 * pam_close_session, pam_end.  Exit 1 when a PAM call fails, or when the
 * process leaves the session with other credentials than it had (fsuid,
 * fsgid, supplementary groups, effective capabilities); 0 otherwise.
 * The libpam in use is named on stderr.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <unistd.h>

#include <security/pam_appl.h>

#include "pamtest.h"

struct creds {
	uid_t fsuid;
	gid_t fsgid;
	int ngroups;
	gid_t groups[256];
	char capeff[256];
};

static void get_creds(struct creds *c)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	memset(c, 0, sizeof(*c));
	c->fsuid = (uid_t)setfsuid((uid_t)-1);
	c->fsgid = (gid_t)setfsgid((gid_t)-1);
	c->ngroups = getgroups(256, c->groups);
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "CapEff:", 7) == 0)
			snprintf(c->capeff, sizeof(c->capeff), "%s", line + 7);
	if (f)
		fclose(f);
}

static int same_creds(const struct creds *a, const struct creds *b)
{
	return a->fsuid == b->fsuid && a->fsgid == b->fsgid && a->ngroups == b->ngroups &&
	       memcmp(a->groups, b->groups,
	              (size_t)(a->ngroups > 0 ? a->ngroups : 0) * sizeof(gid_t)) == 0 &&
	       strcmp(a->capeff, b->capeff) == 0;
}

int main(int argc, char **argv)
{
	pam_handle_t *pamh = NULL;
	struct creds before, after;
	Dl_info info;
	char **env;
	FILE *out;
	int rc;

	if (argc != 5) {
		fprintf(stderr, "usage: pam_session CONFDIR SERVICE USER OUT\n");
		return 2;
	}
	if (dladdr((void *)pam_start, &info) && info.dli_fname)
		fprintf(stderr, "pam_session: libpam %s\n", info.dli_fname);
	get_creds(&before);
	rc = pam_start_confdir(argv[2], argv[3], &pamtest_conv, argv[1], &pamh);
	if (rc != PAM_SUCCESS) {
		fprintf(stderr, "pam_session: pam_start_confdir: %d\n", rc);
		return 1;
	}
	rc = pam_open_session(pamh, 0);
	if (rc != PAM_SUCCESS) {
		fprintf(stderr, "pam_session: pam_open_session: %s\n", pam_strerror(pamh, rc));
		pam_end(pamh, rc);
		return 1;
	}
	env = pam_getenvlist(pamh);
	out = fopen(argv[4], "w");
	if (!env || !out) {
		fprintf(stderr, "pam_session: no environment or no %s\n", argv[4]);
		return 1;
	}
	for (char **p = env; *p; p++) {
		fwrite(*p, 1, strlen(*p) + 1, out);
		free(*p);
	}
	free(env);
	fclose(out);
	rc = pam_close_session(pamh, 0);
	pam_end(pamh, rc);
	get_creds(&after);
	if (rc != PAM_SUCCESS || !same_creds(&before, &after)) {
		fprintf(stderr, "pam_session: %s\n",
		        rc != PAM_SUCCESS ? "pam_close_session failed"
		                          : "credentials after the session differ from before");
		return 1;
	}
	fputs(pamtest_log(), stderr);
	return 0;
}
