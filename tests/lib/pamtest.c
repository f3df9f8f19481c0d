/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* pamtest.c - the shared part of the programs that drive PAM stacks. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pamtest.h"

/* ---- syslog ---- */

static char *logbuf;
static size_t loglen, logcap;
static bool capturing = true;
static pamtest_log_fn hook;
static void *hook_data;

void pamtest_log_hook(pamtest_log_fn fn, void *data)
{
	hook = fn;
	hook_data = data;
}

void pamtest_log_capture(bool on)
{
	capturing = on;
}

void pamtest_log_reset(void)
{
	loglen = 0;
	if (logbuf)
		logbuf[0] = '\0';
}

const char *pamtest_log(void)
{
	return logbuf ? logbuf : "";
}

bool pamtest_logged(const char *needle)
{
	return strstr(pamtest_log(), needle) != NULL;
}

__attribute__((format(printf, 1, 0))) static void capture(const char *fmt, va_list ap)
{
	char line[8192];
	size_t len;

	if (!capturing || vsnprintf(line, sizeof(line), fmt, ap) < 0)
		return;
	len = strlen(line);
	if (loglen + len + 2 > logcap) {
		size_t cap = (logcap + len + 2) * 2;
		char *nb = realloc(logbuf, cap);

		if (!nb)
			abort(); /* a test program: no way on without its log */
		logbuf = nb;
		logcap = cap;
	}
	memcpy(logbuf + loglen, line, len);
	loglen += len;
	logbuf[loglen++] = '\n';
	logbuf[loglen] = '\0';
	if (hook)
		hook(line, len, hook_data);
}

/* <syslog.h> is not included: with _FORTIFY_SOURCE it defines syslog */
void syslog(int pri, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void vsyslog(int pri, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void __syslog_chk(int pri, int flag, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void __vsyslog_chk(int pri, int flag, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

void syslog(int pri, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	capture(fmt, ap);
	va_end(ap);
}

void vsyslog(int pri, const char *fmt, va_list ap)
{
	capture(fmt, ap);
}

void __syslog_chk(int pri, int flag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	capture(fmt, ap);
	va_end(ap);
}

void __vsyslog_chk(int pri, int flag, const char *fmt, va_list ap)
{
	capture(fmt, ap);
}

/* ---- conversation ---- */

static int no_answers(int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
	return PAM_CONV_ERR;
}

const struct pam_conv pamtest_conv = {no_answers, NULL};

int pamtest_service(const char *confdir, const char *name, const char *fmt, ...)
{
	char path[PATH_MAX], *text = NULL;
	va_list ap;
	int n, r;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", confdir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	r = tf_write(path, text, (size_t)n, 0644);
	free(text);
	return r;
}
