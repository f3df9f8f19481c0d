#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/pkg/run.sh - the packages stage of ./dev test: the distribution
# packages built once from this tree and the release tarball, and
# exercised: Debian's .debs built, linted, installed and used for real as
# root (deb.sh), then installed again for real display managers' logins
# (dm.sh, which installs LightDM, SDDM, greetd, nodm, SLiM and Xvfb
# itself: only it needs them), the RPM built, linted, installed into a
# scratch root, verified and erased (rpm.sh), the Arch and Alpine recipes
# run (recipes.sh), and the Arch package built by the real makepkg as the
# build user (makepkg.sh).  Logs in _build/pkg; on stderr each test's
# PASS:, FAIL: and SKIP: lines, and below a FAIL the lines the test
# printed after it (the harness's detail, a tool's last lines), up to the
# next result.  A test that cannot run at all (exit 77) is a skip.  Prints
# "pass fail skip".
set -uo pipefail
# shellcheck source=tools/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../tools/common.sh"
bootstrap

out="$top/_build/pkg" rc=0
echo "== packages: tests/pkg (deb, display managers, rpm, Arch and Alpine recipes, makepkg)" >&2
# the builds run below /tmp, OUT's links name them (deb, rpm, makepkg)
for l in "$out"/*; do
	[ ! -L "$l" ] || rm -rf "$(readlink -f "$l")"
done
rm -rf "$out"
mkdir -p "$out"
tarball=$(release_tarball "$out/dist.log")
for t in deb dm rpm recipes makepkg; do
	case $t in
	deb) "$top/tests/pkg/deb.sh" "$out/deb" ;;
	dm) "$top/tests/pkg/dm.sh" "$out/deb" ;;
	*)
		if [ -n "$tarball" ]; then
			"$top/tests/pkg/$t.sh" "$tarball" "$out/$t"
		else
			echo "FAIL: $t: no release tarball; end of $out/dist.log:"
			tail -n 20 "$out/dist.log"
			false
		fi
		;;
	esac >"$out/$t.log" 2>&1 || [ $? = 77 ] || rc=1
	awk '/^(PASS|SKIP):/ { d = 0; print; next }
		/^FAIL:/ { d = 40; print; next }
		d > 0 { d--; print }' "$out/$t.log" >&2
	if ! grep -qE '^(PASS|FAIL|SKIP):' "$out/$t.log"; then
		echo "FAIL: $t: no result; end of $out/$t.log:" | tee -a "$out/$t.log" >&2
		tail -n 20 "$out/$t.log" >&2
		rc=1
	fi
done
cat "$out"/deb.log "$out"/dm.log "$out"/rpm.log "$out"/recipes.log "$out"/makepkg.log >"$out/all.log"
count_log "$out/all.log"
exit "$rc"
