#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# The differential conformance suite: envd against systemd's environment.d
# generator, live in a private mount namespace when possible, else against
# the generator's recorded results (tests/conformance/run.py explains).
# Exit: 0 pass, 1 fail, 77 skip (no envd, no python3).
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null 2>&1 || { echo "python3 missing: skipped"; exit 77; }
if [ -n "${ENVD:-}" ]; then
	exec python3 "$srcdir/tests/conformance/run.py" --envd "$ENVD"
fi
exec python3 "$srcdir/tests/conformance/run.py"
