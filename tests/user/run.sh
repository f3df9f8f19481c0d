#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/user/run.sh - the user stage of ./dev test: the plain tree's make
# check as an unprivileged user with umask 002, as every distribution's
# build runs it
# (makepkg, mock, sbuild): the build user envd-build (made when missing, a
# system user with a home), a build of the release tarball below /tmp
# (_build/user links to it) owned by it, configure --enable-werror and make
# check as it.  Root-only tests skip with their reason.  Prints "pass fail
# skip"; "0 0 1" with a message when not root (./dev test as a user runs
# that user's make check already) or the user cannot be made.
set -uo pipefail
# shellcheck source=tools/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../tools/common.sh"
bootstrap

build_user=envd-build

# as_build_user DIR COMMAND...: COMMAND in DIR as build_user, with its
# groups and home (setpriv: no PAM session, no login environment), and
# umask 002, as on Fedora and RHEL, whose users have groups of their own
# (rpmbuild and mock as a user): the tree unpacked, built and tested is
# group-writable
as_build_user() {
	local home
	home=$(getent passwd "$build_user" | cut -d: -f6)
	(cd "$1" && shift && umask 002 && setpriv --reuid="$build_user" --regid="$build_user" --init-groups \
		env HOME="$home" USER="$build_user" LOGNAME="$build_user" "$@")
}

dir="$top/_build/user" log="$top/_build/user.check.log" rc=0
echo "== user: make check as the unprivileged user $build_user" >&2
if [ "$(id -u)" != 0 ]; then
	echo "== user: SKIP: not root (the plain tree's make check ran as $(id -un))" >&2
	echo "0 0 1"
	exit 0
fi
stage_needs useradd getent setpriv
if ! id -u "$build_user" >/dev/null 2>&1 &&
	! useradd -r -m -d "/var/lib/$build_user" -s /bin/sh -c "pam_envd build user" "$build_user" 2>"$log"; then
	echo "== user: SKIP: cannot create the user $build_user: $(cat "$log")" >&2
	echo "0 0 1"
	exit 0
fi
# as a packager builds: from the release tarball distcheck made (else
# one from the plain tree), unpacked where the build user can reach it
# (the checkout may lie below a directory only root can enter)
tarball=$(release_tarball "$log")
[ -n "$tarball" ] || { echo "== user: FAIL: no release tarball (see $log)" >&2; echo "0 1 0"; exit 1; }
[ ! -L "$dir" ] || rm -rf "$(readlink "$dir")"
rm -rf "$dir"
work=$(mktemp -d /tmp/pam_envd-user.XXXXXX)
ln -s "$work" "$dir"
cp "$tarball" "$work/"
chown -R "$build_user:" "$work"
as_build_user "$work" tar -xf "${tarball##*/}" >"$log" 2>&1 || rc=$?
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'pam_envd-*' | head -n 1)
[ "$rc" = 0 ] && [ -n "$src" ] && mkdir -p "$work/build" && chown "$build_user:" "$work/build" ||
	rc=1
[ "$rc" = 0 ] && { as_build_user "$work/build" "$src/configure" -q --enable-werror >"$log" 2>&1 || rc=$?; }
[ "$rc" = 0 ] && { as_build_user "$work/build" make -s -j"$jobs" check >"$log" 2>&1 || rc=$?; }
dir=$work/build
grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS):' "$log" >&2 || true
if [ "$rc" != 0 ]; then
	echo "== user: failures; end of $log and the failed tests' logs:" >&2
	tail -n 20 "$log" >&2
	failed_logs "$dir"
fi
read -r a b c < <(count_results "$dir")
[ "$rc" = 0 ] || [ "$b" != 0 ] || b=1
echo "== user: $a passed, $b failed, $c skipped (make check as $build_user)" >&2
echo "$a $b $c"
exit "$rc"
