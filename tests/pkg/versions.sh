#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# The version is set once, in configure.ac's AC_INIT; debian/changelog (the
# upstream part), the RPM spec, the PKGBUILD and the APKBUILD must say the
# same.  An automake test (top_srcdir from the Makefile) and run by
# ./dev release.
set -u
top=${top_srcdir:-$(dirname "$0")/../..}
v=$(sed -n 's/^AC_INIT(\[[^]]*\], *\[\([^]]*\)\].*/\1/p' "$top/configure.ac")
[ -n "$v" ] || { echo "FAIL: no version in configure.ac's AC_INIT"; exit 1; }
rc=0
check() { # WHERE VERSION
	if [ "$2" = "$v" ]; then echo "ok: $1: $2"; else
		echo "FAIL: $1 says '$2', configure.ac says '$v'"
		rc=1
	fi
}
deb=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$top/debian/changelog")
check debian/changelog "${deb%-*}"
check packaging/rpm/pam_envd.spec "$(sed -n 's/^Version:[[:space:]]*//p' "$top/packaging/rpm/pam_envd.spec")"
check packaging/arch/PKGBUILD "$(sed -n 's/^pkgver=//p' "$top/packaging/arch/PKGBUILD")"
check packaging/alpine/APKBUILD "$(sed -n 's/^pkgver=//p' "$top/packaging/alpine/APKBUILD")"
exit $rc
