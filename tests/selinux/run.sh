#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/selinux/run.sh - the SELinux stage of ./dev test: the policy
# module of selinux/ built, installed offline into a copy of the policy
# store, its accesses and file contexts read back and its removal checked
# (policy.sh).  Log in _build/selinux.log; on stderr the PASS:, FAIL: and
# SKIP: lines.  Prints "pass fail skip"; "0 0 1" with the reason when the
# SELinux tools are not installed (./dev deps installs them; under
# CI=true "0 1 0").
set -uo pipefail
# shellcheck source=tools/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../tools/common.sh"

stage_needs make m4 checkmodule semodule_package semodule sesearch seinfo matchpathcon sha256sum
out="$top/_build/selinux" rc=0
echo "== selinux: tests/selinux/policy.sh" >&2
mkdir -p "$top/_build"
"$top/tests/selinux/policy.sh" "$out" >"$out.log" 2>&1 || [ $? = 77 ] || rc=1
grep -E '^(PASS|FAIL|SKIP):|^    ' "$out.log" >&2
count_log "$out.log"
exit "$rc"
