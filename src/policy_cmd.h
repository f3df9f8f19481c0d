/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* policy_cmd.h - `envd policy`: the default name policy for user files. */
#ifndef ENVD_POLICY_CMD_H
#define ENVD_POLICY_CMD_H

#include <stdio.h>

/* Prints one line per entry of the default tables, tab-separated: "refuse",
 * "allow-back" or "value", the name pattern, the reason.  Returns 0, or -EIO
 * when out fails. */
int policy_print(FILE *out);

#endif
