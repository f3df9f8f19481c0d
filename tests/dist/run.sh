#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/dist/run.sh - the distcheck stage of ./dev test: make distcheck
# from _build/distcheck (the tarball builds, its make check passes in a
# read-only source tree, install and uninstall into distcheck's own prefix
# leave nothing behind); then, as root, ./dev demo on a fresh Debian 12
# (tests/dist/fresh.sh).  Prints "pass fail skip" of the make check inside
# distcheck and of fresh.sh; the tarball stays in _build/distcheck for the
# user and packages stages.
set -uo pipefail
# shellcheck source=tools/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../tools/common.sh"
bootstrap

dir="$top/_build/distcheck" log="$top/_build/distcheck.log" rc=0
echo "== distcheck: make distcheck" >&2
mkdir -p "$dir"
if [ ! -f "$dir/Makefile" ] || [ "$top/configure" -nt "$dir/Makefile" ]; then
	(cd "$dir" && "$top/configure" -q) >"$log" 2>&1 || rc=$?
fi
[ "$rc" = 0 ] && { make -C "$dir" -j"$jobs" distcheck >"$log" 2>&1 || rc=$?; }
grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS):' "$log" >&2 || true
if [ "$rc" != 0 ]; then
	echo "== distcheck: failed; end of $log:" >&2
	tail -n 60 "$log" >&2
	# the failed tests of the tree distcheck left behind
	failed_logs "$dir"
else
	grep -E '^pam_envd-.*archives ready for distribution' "$log" >&2 || true
fi
read -r p f s < <(count_log "$log")
# ./dev demo on a fresh Debian 12 (root; tests/dist/fresh.sh)
fresh=$("$top/tests/dist/fresh.sh") || rc=1
read -r a b c <<<"$fresh"
echo "$((p + ${a:-0})) $((f + ${b:-0})) $((s + ${c:-0}))"
exit "$rc"
