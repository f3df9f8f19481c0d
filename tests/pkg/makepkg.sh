#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/pkg/makepkg.sh TARBALL OUT - packaging/arch/PKGBUILD built by the
# real makepkg (Debian's package of it, with its /etc/makepkg.conf) as an
# unprivileged user, the way an Arch packager builds it: from the release
# tarball, build(), check() (the whole make check, as that user) and
# package() under fakeroot; --nodeps, since Debian has no pacman database of
# the dependencies.  Then the package's file list (bsdtar -tf) is compared
# with the files expected on Arch, and its .PKGINFO with the recipe.
# As root the build runs as the build user envd-build (created when
# missing, as ./dev's user stage does); otherwise as the caller.  Skipped,
# with the reason, when makepkg, pacman, fakeroot or bsdtar is missing
# (need_cmds names their Debian packages): makepkg stops with "an unknown
# error" when it finds no pacman, which Debian's makepkg does not pull in.
# Prints PASS:, FAIL: and SKIP: lines; exits 1 on any failure.
set -u
export LC_ALL=C
top=$(cd "$(dirname "$0")/../.." && pwd)
tarball=${1:?usage: tests/pkg/makepkg.sh TARBALL OUT}
out=${2:?usage: tests/pkg/makepkg.sh TARBALL OUT}
build_user=${ENVD_BUILD_USER:-envd-build}
. "$top/tests/lib/harness.sh"
harness_init makepkg pkg
need_cmds makepkg pacman fakeroot bsdtar
[ ! -L "$out" ] || rm -rf "$(readlink "$out")" # a former run's directory below /tmp
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
if [ "$(id -u)" = 0 ]; then
	# the build user works in a directory of its own below /tmp: the
	# checkout may lie below a directory only root can enter; OUT links it
	w=$(mktemp -d /tmp/pam_envd-makepkg.XXXXXX)
	rm -rf "$out"
	ln -s "$w" "$out"
	out=$w
fi
cp "$top/packaging/arch/PKGBUILD" "$tarball" "$out/"
run=()
if [ "$(id -u)" = 0 ]; then
	# makepkg refuses to run as root
	if ! id -u "$build_user" >/dev/null 2>&1 &&
		! useradd -r -m -d "/var/lib/$build_user" -s /bin/sh -c "pam_envd build user" \
			"$build_user" >"$out/useradd.log" 2>&1; then
		skip "cannot create the build user $build_user: $(cat "$out/useradd.log")"
		finish
	fi
	chown -R "$build_user:" "$out"
	run=(setpriv --reuid="$build_user" --regid="$build_user" --init-groups
		env HOME="$(getent passwd "$build_user" | cut -d: -f6)" USER="$build_user" LOGNAME="$build_user")
fi
# --nodeps: no pacman database of the dependencies here; the packages and
# sources stay in $out (PKGDEST, SRCDEST)
if (cd "$out" && "${run[@]}" env PKGDEST="$out" SRCDEST="$out" BUILDDIR="$out" \
	MAKEFLAGS="-j$(nproc 2>/dev/null || echo 2)" makepkg --nodeps --noconfirm --noprogressbar -f) \
	>"$out/build.log" 2>&1; then
	pass "makepkg --nodeps as $("${run[@]}" id -un): build, check and package"
else
	fail "makepkg; end of $out/build.log:"
	tail -n 30 "$out/build.log"
	exit 1
fi
version=$(sed -n 's/^pkgver=//p' "$top/packaging/arch/PKGBUILD")
pkg=$(find "$out" -maxdepth 1 -name "pam_envd-$version-*.pkg.tar*" ! -name '*.sig' | head -n 1)
[ -n "$pkg" ] || { fail "no package pam_envd-$version-*.pkg.tar* in $out"; exit 1; }
if grep -qE '^(PASS|FAIL): tests/pam/pam_stack$' "$out/build.log" && ! grep -qE '^(FAIL|ERROR): ' "$out/build.log"; then
	pass "check(): make check ran as that user, $(grep -c '^PASS: ' "$out/build.log") passed, $(grep -c '^SKIP: ' "$out/build.log") skipped"
else
	fail "check() did not run the suite (no tests/pam/pam_stack result in $out/build.log)"
fi

# the files expected on Arch: the module in /usr/lib/security, manual pages
# compressed (makepkg's zipman), the licenses in /usr/share/licenses
doc=/usr/share/doc/pam_envd lic=/usr/share/licenses/pam_envd
{
	echo etc/profile.d/pam_envd.sh
	echo usr/bin/envd
	echo usr/lib/security/pam_envd.so
	echo usr/lib/pam_envd/reader
	echo usr/share/man/man1/envd.1.gz
	echo usr/share/man/man5/pam_envd-environment.d.5.gz
	echo usr/share/man/man8/pam_envd.8.gz
	echo "${doc#/}/README.md"
	echo "${doc#/}/SECURITY.md"
	(cd "$top" && find examples -type f) | sed "s|^|${doc#/}/|"
	echo "${lic#/}/COPYING"
	(cd "$top" && find LICENSES -type f) | sed "s|^|${lic#/}/|"
} | sort >"$out/expected"
bsdtar -tf "$pkg" | grep -v '/$' | grep -vE '^\.(PKGINFO|BUILDINFO|MTREE|INSTALL)$' | sort >"$out/listed"
if diff -u "$out/expected" "$out/listed" >"$out/diff"; then
	pass "bsdtar -tf lists exactly the $(wc -l <"$out/expected") files expected on Arch (module in /usr/lib/security)"
else
	fail "the package's files differ (- expected, + listed):"
	grep '^[-+][^-+]' "$out/diff"
fi
bsdtar -xOf "$pkg" .PKGINFO >"$out/PKGINFO" 2>/dev/null
if grep -qx 'license = BSD-3-Clause OR GPL-2.0-or-later' "$out/PKGINFO" &&
	grep -qx 'backup = etc/profile.d/pam_envd.sh' "$out/PKGINFO" &&
	grep -qx "pkgver = $version-1" "$out/PKGINFO"; then
	pass ".PKGINFO: license BSD-3-Clause OR GPL-2.0-or-later, backup etc/profile.d/pam_envd.sh, pkgver $version-1"
else
	fail ".PKGINFO lacks the license, backup or version line:"
	cat "$out/PKGINFO"
fi
finish
