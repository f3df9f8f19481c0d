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
#include "options.h"

/* What the module arguments ask for: debug and cleanup are the module's
 * own, the rest is lib/options.c's table.  Pointers into argv are borrowed:
 * libpam keeps the arguments alive for the duration of the call. */
struct pe_options {
	bool debug;
	bool cleanup; /* the cleanup instance: takes back at close */
	struct envd_settings set;
};

/* Parses argv into opt.  Unknown, empty or malformed options are logged and
 * ignored (a malformed user-side option switches the user side off).
 * Returns PAM_SUCCESS or PAM_BUF_ERR. */
int pe_options_parse(pam_handle_t *pamh, int argc, const char **argv, struct pe_options *opt);
void pe_options_free(struct pe_options *opt);
/* Whether argv names the cleanup instance, without parsing the rest. */
bool pe_options_cleanup(int argc, const char **argv);

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
/* Copies s into out (size outsz) escaped as lib's escaper escapes for a
 * log (C escapes, every byte outside printable ASCII), so that a
 * user-chosen file name cannot forge log lines. */
void pe_log_clean(const char *s, char *out, size_t outsz);

#endif
