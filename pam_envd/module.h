/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* module.h - shared between the files of pam_envd.so; nothing here is exported
 * (pam_envd.map keeps every symbol but pam_sm_* local). */
#ifndef PAM_ENVD_MODULE_H
#define PAM_ENVD_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <pwd.h>

#include <security/pam_modules.h>
#include <security/pam_modutil.h>

#include "envd.h"

/* What the module arguments ask for.  Pointers into argv are borrowed: libpam
 * keeps the arguments alive for the duration of the call. */
struct pe_options {
	bool debug;
	bool nouser;          /* system files only */
	bool user_side_off;   /* a bad user_dir/user_allow/user_deny: fail closed */
	unsigned flags;       /* ENVD_NO_OVERWRITE, ENVD_NO_EXPAND */
	const char *user_dir; /* template with %h %u, or NULL for the default */
	const char *default_path;
	char **system_dirs; /* one malloc'd block, NULL-terminated; NULL: the four defaults */
	size_t max_env;     /* cap on the bytes written; 0: the engine default */
	struct envd_policy *policy;
};

/* Parses argv into opt.  Unknown, empty or malformed options are logged and
 * ignored (a malformed user-side option switches the user side off).
 * Returns PAM_SUCCESS or PAM_BUF_ERR. */
int pe_options_parse(pam_handle_t *pamh, int argc, const char **argv, struct pe_options *opt);
void pe_options_free(struct pe_options *opt);

#define PE_SAVED_GROUPS        64 /* supplementary groups of root remembered for checks */
#define PE_WINDOW_WAIT_SECONDS 10 /* longest wait for another thread's window */

/* Privilege window around the engine's reads of the user directory
 * (privilege.c).  Lives on the caller's stack. */
struct pe_priv {
	pam_handle_t *pamh;
	const struct passwd *pw;
	bool debug;
	bool dropped;      /* between a successful enter and leave */
	bool broken;       /* a regain failed: the process is not itself any more */
	bool caps_cleared; /* the effective capabilities are off (caps) */
	struct envd_caps caps;
	uid_t fsuid_before; /* the identity to come back to */
	gid_t fsgid_before;
	int ngroups_before;
	gid_t groups_before[PE_SAVED_GROUPS]; /* root's, when ngroups_before fits */
	gid_t grplist[PAM_MODUTIL_NGROUPS];
	struct pam_modutil_privs privs;
};
void pe_priv_init(struct pe_priv *priv, pam_handle_t *pamh, const struct passwd *pw, bool debug);
int pe_priv_enter(void *data); /* envd_priv_fn: 0 when the user side may be read */
int pe_priv_leave(void *data); /* envd_priv_fn: 0, or -1 when regaining failed */
/* Regains privileges if they are still dropped.  Returns 0, or -1 when the
 * process could not be restored at some point (the caller fails closed). */
int pe_priv_finish(struct pe_priv *priv);

/* Diagnostics to syslog. */
struct pe_log {
	pam_handle_t *pamh;
	bool debug;
	size_t logged; /* the engine's diagnostics sent to syslog */
	size_t max;    /* lines allowed per load */
};
#define PE_LOG_MAX_LINES  100u
#define PE_LOG_NAME_BYTES 300u /* a variable name as logged; longer ones end in "..." */
void pe_log_init(struct pe_log *log, pam_handle_t *pamh, bool debug);
void pe_log_diag(const struct envd_diag *diag, void *data); /* envd_diag_fn */
/* Logs how many of total diagnostics (envd_result_diag_count, which counts
 * those the engine itself suppressed too) were not logged. */
void pe_log_finish(struct pe_log *log, size_t total);
/* Copies s into out (size outsz), replacing bytes that are not printable
 * ASCII by \xNN, so that a user-chosen file name cannot forge log lines. */
void pe_log_clean(const char *s, char *out, size_t outsz);

#endif
