/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* pamtest.h - what the programs that drive real PAM stacks share
 * (tests/pam/pam_stack.c, tests/fault/driver.c, tests/fuzz/fuzz_module.c):
 * the syslog capture, a conversation and the service files (the scratch
 * tree is testfs.h's).  Functions return 0 or a negative
 * errno; the callers report failures in their own way (cmocka, die,
 * FUZZ_SETUP). */
#ifndef PAMTEST_H
#define PAMTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <security/pam_appl.h>

#include "testfs.h"

/* ---- syslog ----
 * This file defines syslog, vsyslog and their _FORTIFY_SOURCE variants, so
 * that what pam_syslog sends from the module ends here: each line is kept
 * in the capture (while capturing, which it is from the start) and handed
 * to the hook, when one is set. */
typedef void (*pamtest_log_fn)(const char *line, size_t len, void *data);
void pamtest_log_hook(pamtest_log_fn fn, void *data);
void pamtest_log_capture(bool on);
void pamtest_log_reset(void);
/* The lines captured since the last reset, each ended by '\n' ("" when
 * none). */
const char *pamtest_log(void);
bool pamtest_logged(const char *needle);

/* A conversation that answers nothing: the module must never prompt. */
extern const struct pam_conv pamtest_conv;

/* ---- service files ---- */
/* Writes the service file confdir/name from a printf format. */
int pamtest_service(const char *confdir, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
