/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* lint.h - envd check's warnings (lint.c): the hooks a load calls through
 * cfg->lint (loader.h's struct envd_lint_ops).  Only envd and the tests
 * link them: the module's image has no lint. */
#ifndef ENVD_CHECK_LINT_H
#define ENVD_CHECK_LINT_H

struct envd_lint_ops;
extern const struct envd_lint_ops envd_lint_ops;

#endif
