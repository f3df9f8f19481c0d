/* diag.c - diagnostics go to the caller's callback, never anywhere else. */
#include "config.h"

#include <stdio.h>

#include "internal.h"

void envd_diagf(struct envd_diag_sink *s, enum envd_severity sev, enum envd_code code,
                const char *file, unsigned line, const char *name, const char *fmt, ...)
{
	struct envd_diag d;
	char msg[512];
	va_list ap;

	if (!s->fn || sev > s->level)
		return;
	s->count++;
	if (s->count > s->max) {
		if (s->suppressed_said)
			return;
		s->suppressed_said = true;
		d = (struct envd_diag){
		    s->level < ENVD_WARNING ? s->level : ENVD_WARNING, ENVD_C_LIMIT, NULL, 0, NULL,
		    "too many diagnostics, further ones suppressed"};
		s->fn(&d, s->data);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	d = (struct envd_diag){sev, code, file, line, name, msg};
	s->fn(&d, s->data);
}
