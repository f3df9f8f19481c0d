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

/* Each line that applies the module (a word ending in pam_envd.so or
 * pam_envd_fault.so, no cleanup) gets reader= the build tree's reader,
 * unless it names one: the installed one is not there. */
static bool applies(const char *line, size_t len)
{
	static const char *const mods[] = {"pam_envd.so", "pam_envd_fault.so"};
	bool found = false;

	for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]) && !found; i++) {
		const char *p = memmem(line, len, mods[i], strlen(mods[i]));
		size_t end = p ? (size_t)(p - line) + strlen(mods[i]) : 0;

		found = p && (end == len || line[end] == ' ' || line[end] == '\t');
	}
	return found && !memmem(line, len, "cleanup", 7) && !memmem(line, len, "reader=", 7);
}

static int with_reader(char **text, int *n)
{
	static const char arg[] = " reader=" TEST_READER;
	size_t cap = (size_t)*n * 2 + 64, len = 0;
	char *out = malloc(cap), *p = *text, *end = *text + *n;

	if (out == NULL)
		return -ENOMEM;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		bool add = applies(p, l);

		if (len + l + sizeof(arg) + 1 > cap) {
			char *nb;

			cap = (len + l + sizeof(arg) + 1) * 2;
			nb = realloc(out, cap);
			if (nb == NULL) {
				free(out);
				return -ENOMEM;
			}
			out = nb;
		}
		memcpy(out + len, p, l);
		len += l;
		if (add) {
			memcpy(out + len, arg, sizeof(arg) - 1);
			len += sizeof(arg) - 1;
		}
		if (nl)
			out[len++] = '\n';
		p += l + (nl != NULL);
	}
	free(*text);
	*text = out;
	*n = (int)len;
	return 0;
}

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
	r = with_reader(&text, &n);
	if (r == 0)
		r = tf_write(path, text, (size_t)n, 0644);
	free(text);
	return r;
}
