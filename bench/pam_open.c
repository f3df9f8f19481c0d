/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* pam_open.c - a minimal PAM session driver for bench/run.py.
 *
 *   pam_open [-n N] [-p] SERVICE USER
 *
 * Runs one PAM transaction per session: pam_start(SERVICE, USER),
 * pam_open_session, pam_close_session, pam_end.
 *
 *   -n N  sessions to run (default 1)
 *   -p    print the PAM environment as it is after the last
 *         pam_open_session, one NAME=VALUE per entry, each ended by a NUL
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
static int session(const char *service, const char *user, int print)
{
	pam_handle_t *pamh = NULL;
	int rc = pam_start(service, user, &conversation, &pamh);

	if (rc != PAM_SUCCESS) {
		fprintf(stderr, "pam_open: pam_start(%s, %s): %s\n", service, user,
		        pam_strerror(pamh, rc));
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

static long parse_count(const char *s)
{
	char *end = NULL;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 1 || v > 100000000L) {
		fprintf(stderr, "pam_open: bad count: %s\n", s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long n = 1;
	int print = 0, c;

	while ((c = getopt(argc, argv, "n:p")) != -1) {
		switch (c) {
		case 'n':
			n = parse_count(optarg);
			break;
		case 'p':
			print = 1;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind != 2)
		goto usage;
	for (long i = 0; i < n; i++)
		if (session(argv[optind], argv[optind + 1], print && i == n - 1) != 0)
			return 1;
	return fflush(stdout) == 0 ? 0 : 1;
usage:
	fprintf(stderr, "usage: pam_open [-n N] [-p] SERVICE USER\n");
	return 2;
}
