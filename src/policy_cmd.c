/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* policy_cmd.c - `envd policy`: what the default policy refuses in user
 * files, what it allows back, and which values it refuses, each with its
 * reason, read from the engine's tables (lib/policy.c).  tests/e2e/cli.sh holds
 * pam_envd(8) and SECURITY.md to this output. */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "envd.h"
#include "policy_cmd.h"

int policy_print(FILE *out)
{
	static const struct {
		enum envd_policy_table table;
		const char *kind;
	} tables[] = {
	    {ENVD_POLICY_DENY, "refuse"},
	    {ENVD_POLICY_EXCEPTION, "allow-back"},
	    {ENVD_POLICY_VALUE, "value"},
	};
	const char *pattern, *reason;
	size_t t, i;

	for (t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (i = 0; envd_policy_default(tables[t].table, i, &pattern, &reason); i++)
			fprintf(out, "%s\t%s\t%s\n", tables[t].kind, pattern, reason);
	return fflush(out) != 0 || ferror(out) ? -EIO : 0;
}
