/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* log.c - engine diagnostics to syslog through pam_syslog.
 *
 * The engine never puts a value into a diagnostic; this file never adds one.
 * File and variable names are chosen by the user, so they are escaped before
 * they reach syslog, and the number of lines one login can produce is capped. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <syslog.h>

#include <security/pam_ext.h>

#include "escape.h"
#include "module.h"

void pe_log_init(struct pe_log *log, pam_handle_t *pamh, bool debug)
{
	log->pamh = pamh;
	log->debug = debug;
	log->logged = 0;
	log->max = debug ? SIZE_MAX : PE_LOG_MAX_LINES;
}

void pe_log_clean(const char *s, char *out, size_t outsz)
{
	envd_esc_clip(s, ENVD_ESC_C | ENVD_ESC_BACKSLASH | ENVD_ESC_ASCII, out, outsz);
}

static int priority(const struct pe_log *log, enum envd_severity sev)
{
	switch (sev) {
	case ENVD_ERROR: /* a file or an assignment was skipped */
		return LOG_WARNING;
	case ENVD_WARNING:
		return LOG_NOTICE;
	case ENVD_NOTICE: /* masked files, kept variables, missing dirs: routine */
		return log->debug ? LOG_INFO : -1;
	case ENVD_DEBUG:
		return log->debug ? LOG_DEBUG : -1;
	}
	return -1;
}

void pe_log_diag(const struct envd_diag *d, void *data)
{
	struct pe_log *log = data;
	char file[1024], name[PE_LOG_NAME_BYTES], msg[1536];
	const char *sep;
	int prio = priority(log, d->severity);

	if (prio < 0)
		return;
	/* the engine's own "further ones suppressed" line is not a problem of
	 * the files: pe_log_finish reports the real count instead */
	if (d->code == ENVD_C_SUPPRESSED)
		return;
	if (log->logged >= log->max)
		return;
	log->logged++;
	name[0] = '\0';
	if (d->name != NULL)
		pe_log_clean(d->name, name, sizeof(name));
	sep = name[0] != '\0' ? ": " : "";
	pe_log_clean(d->message != NULL ? d->message : "", msg, sizeof(msg));
	if (d->file != NULL) {
		pe_log_clean(d->file, file, sizeof(file));
		if (d->line > 0)
			pam_syslog(log->pamh, prio, "%s:%u: %s%s%s", file, d->line, name, sep, msg);
		else
			pam_syslog(log->pamh, prio, "%s: %s%s%s", file, name, sep, msg);
	} else
		pam_syslog(log->pamh, prio, "%s%s%s", name, sep, msg);
}

void pe_log_finish(struct pe_log *log, size_t total)
{
	if (total > log->logged)
		pam_syslog(log->pamh, LOG_WARNING,
		           "%zu more problems with environment files not logged (limit %zu)",
		           total - log->logged, log->max);
}
