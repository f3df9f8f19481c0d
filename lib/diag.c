/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* diag.c - diagnostics go to the caller's callback, never anywhere else. */
#include "config.h"

#include <stdio.h>

#include "internal.h"

/* Problems (errors, warnings) and tracing (notices, debug) are counted
 * apart, each up to s->max: a verbose trace never crowds out an error. */
void envd_diag_emit(struct envd_diag_sink *s, enum envd_severity sev, enum envd_code code,
                    const char *file, unsigned line, const char *name, const char *fmt, ...)
{
	struct envd_diag d;
	char msg[1024];
	va_list ap;
	int k = sev <= ENVD_WARNING ? 0 : 1;

	if (!s->fn || sev > s->level)
		return;
	s->count++;
	if (++s->class_count[k] > s->max) {
		if (s->suppressed_said[k])
			return;
		s->suppressed_said[k] = true;
		d = (struct envd_diag){
		    .severity = k == 0 ? ENVD_WARNING : sev,
		    .code = ENVD_C_SUPPRESSED,
		    .message = k == 0 ? "too many errors and warnings, further ones suppressed"
		                      : "too many notices, further ones suppressed"};
		if (d.severity > s->level)
			d.severity = s->level;
		s->fn(&d, s->data);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	d = (struct envd_diag){.severity = sev,
	                       .code = code,
	                       .file = file,
	                       .line = line,
	                       .name = name,
	                       .message = msg};
	s->fn(&d, s->data);
}
