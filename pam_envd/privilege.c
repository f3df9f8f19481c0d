/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * privilege.c - the module's backend of the privilege window (lib/window.c):
 * the ids are switched with pam_modutil_drop_priv and switched back with
 * pam_modutil_regain_priv, as Linux-PAM's own modules do; the window's
 * messages go to syslog.  The lock, the capabilities and every check of
 * the kernel's answers are lib/window.c's, the same for envd.
 */
#include "config.h"

#include <syslog.h>

#include <security/pam_ext.h>

#include "module.h"

static int drop(struct envd_window *w, void *ctx)
{
	struct pe_priv *priv = ctx;

	/* pam_modutil_regain_priv releases the group list, so every window
	 * starts from a fresh state */
	priv->privs = (struct pam_modutil_privs){.grplist = priv->grplist,
	                                         .number_of_groups = PAM_MODUTIL_NGROUPS,
	                                         .allocated = 0,
	                                         .old_gid = (gid_t)-1,
	                                         .old_uid = (uid_t)-1,
	                                         .is_dropped = 0};
	return pam_modutil_drop_priv(priv->pamh, &priv->privs, priv->pw) == 0 ? 0 : -1;
}

static int regain(struct envd_window *w, void *ctx)
{
	struct pe_priv *priv = ctx;

	return pam_modutil_regain_priv(priv->pamh, &priv->privs) == 0 ? 0 : -1;
}

static void report(enum envd_severity sev, bool fatal, const char *msg, void *data)
{
	struct pe_priv *priv = data;

	if (fatal)
		pam_syslog(priv->pamh, LOG_CRIT, "%s", msg);
	else if (sev != ENVD_DEBUG)
		pam_syslog(priv->pamh, LOG_ERR, "%s", msg);
	else if (priv->debug)
		pam_syslog(priv->pamh, LOG_DEBUG, "%s (uid %lu)", msg,
		           (unsigned long)priv->pw->pw_uid);
}

void pe_priv_init(struct pe_priv *priv, pam_handle_t *pamh, const struct passwd *pw, bool debug)
{
	priv->pamh = pamh;
	priv->pw = pw;
	priv->debug = debug;
	priv->backend = (struct envd_window_backend){.drop = drop, .regain = regain, .ctx = priv};
	envd_window_init(&priv->win, &priv->backend, pw ? pw->pw_uid : 0, pw ? pw->pw_gid : 0,
	                 pw ? pw->pw_name : NULL);
	priv->win.report = report;
	priv->win.report_data = priv;
}
