/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* pam_open.c - a minimal PAM session driver for bench/run.py.
 *
 *   pam_open [-n N] [-w W] [-t] [-p] [-e NAME=VALUE]... SERVICE USER
 *
 * Runs one PAM transaction per session: pam_start(SERVICE, USER),
 * pam_putenv of each -e, pam_open_session, pam_close_session, pam_end.
 *
 *   -n N  sessions to run (default 1)
 *   -w W  sessions to run first, untimed (default 0)
 *   -t    print per-session wall times of the N sessions on stdout:
 *         "sessions N median_ns M mean_ns M min_ns M max_ns M"
 *   -p    print the PAM environment as it is after the last
 *         pam_open_session, one NAME=VALUE per entry, each ended by a NUL
 *   -e    a variable to put into the PAM environment before opening
 *
 * Many sessions in one process separate the cost of a session (libpam
 * loading the stack's modules, the modules' work) from process start-up.
 * Text and error messages from modules go to stderr; a module that prompts
 * gets a conversation error.  Exit status: 0, or 1 when a PAM call fails,
 * 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_appl.h>

static int conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
	(void)data;
	for (int i = 0; i < n; i++) {
		switch (msg[i]->msg_style) {
		case PAM_TEXT_INFO:
		case PAM_ERROR_MSG:
			fprintf(stderr, "pam_open: module says: %s\n", msg[i]->msg);
			break;
		default:
			return PAM_CONV_ERR; /* nothing here answers prompts */
		}
	}
	*resp = NULL;
	return PAM_SUCCESS;
}

static const struct pam_conv conversation = {conv, NULL};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static void print_env(pam_handle_t *pamh)
{
	char **env = pam_getenvlist(pamh);

	if (env == NULL)
		return;
	for (char **p = env; *p != NULL; p++) {
		fwrite(*p, 1, strlen(*p) + 1, stdout);
		free(*p);
	}
	free(env);
}

/* One transaction.  Returns 0, or 1 after a message on a failure. */
static int session(const char *service, const char *user, char **vars, int nvars, int print)
{
	pam_handle_t *pamh = NULL;
	int rc = pam_start(service, user, &conversation, &pamh);

	if (rc != PAM_SUCCESS) {
		fprintf(stderr, "pam_open: pam_start(%s, %s): %s\n", service, user,
		        pam_strerror(pamh, rc));
		return 1;
	}
	for (int i = 0; i < nvars && rc == PAM_SUCCESS; i++)
		rc = pam_putenv(pamh, vars[i]);
	if (rc != PAM_SUCCESS) {
		fprintf(stderr, "pam_open: pam_putenv: %s\n", pam_strerror(pamh, rc));
		pam_end(pamh, rc);
		return 1;
	}
	rc = pam_open_session(pamh, 0);
	if (rc != PAM_SUCCESS) {
		fprintf(stderr, "pam_open: pam_open_session(%s, %s): %s\n", service, user,
		        pam_strerror(pamh, rc));
		pam_end(pamh, rc);
		return 1;
	}
	if (print)
		print_env(pamh);
	rc = pam_close_session(pamh, 0);
	if (rc != PAM_SUCCESS) {
		fprintf(stderr, "pam_open: pam_close_session: %s\n", pam_strerror(pamh, rc));
		pam_end(pamh, rc);
		return 1;
	}
	pam_end(pamh, PAM_SUCCESS);
	return 0;
}

static long parse_count(const char *s, long min)
{
	char *end = NULL;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > 100000000L) {
		fprintf(stderr, "pam_open: bad count: %s\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long n = 1, warm = 0;
	int timing = 0, print = 0, nvars = 0, c;
	char **vars = calloc((size_t)argc, sizeof(*vars));
	long long *t;

	if (vars == NULL)
		return 1;
	while ((c = getopt(argc, argv, "n:w:tpe:")) != -1) {
		switch (c) {
		case 'n':
			n = parse_count(optarg, 1);
			break;
		case 'w':
			warm = parse_count(optarg, 0);
			break;
		case 't':
			timing = 1;
			break;
		case 'p':
			print = 1;
			break;
		case 'e':
			if (strchr(optarg, '=') == NULL || optarg[0] == '=') {
				fprintf(stderr, "pam_open: -e wants NAME=VALUE\n");
				return 2;
			}
			vars[nvars++] = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 2)
		goto usage;

	for (long i = 0; i < warm; i++)
		if (session(argv[optind], argv[optind + 1], vars, nvars, 0) != 0)
			return 1;
	t = calloc((size_t)n, sizeof(*t));
	if (t == NULL)
		return 1;
	for (long i = 0; i < n; i++) {
		long long t0 = now_ns();

		if (session(argv[optind], argv[optind + 1], vars, nvars, print && i == n - 1) != 0)
			return 1;
		t[i] = now_ns() - t0;
	}
	if (timing) {
		long double sum = 0;

		for (long i = 0; i < n; i++)
			sum += t[i];
		qsort(t, (size_t)n, sizeof(*t), cmp_ll);
		printf("sessions %ld median_ns %lld mean_ns %.0Lf min_ns %lld max_ns %lld\n", n,
		       n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2, sum / n, t[0], t[n - 1]);
	}
	free(t);
	free(vars);
	return fflush(stdout) == 0 ? 0 : 1;
usage:
	fprintf(stderr,
	        "usage: pam_open [-n N] [-w W] [-t] [-p] [-e NAME=VALUE]... SERVICE USER\n");
	return 2;
}
