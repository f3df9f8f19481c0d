/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* exitcode.h - envd's exit status, one set for every command. */
#ifndef ENVD_EXITCODE_H
#define ENVD_EXITCODE_H

enum envd_exit {
	EXIT_OK = 0,       /* success */
	EXIT_FINDINGS = 1, /* check or audit reported something */
	EXIT_USAGE = 2,    /* usage error, a malformed option value included */
	EXIT_FAIL = 3,     /* failure: unknown user, out of memory, unreadable input */
};

#endif
