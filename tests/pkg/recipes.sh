#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/pkg/recipes.sh TARBALL OUT - the Arch PKGBUILD and the Alpine
# APKBUILD run the way makepkg and abuild run them, without those tools:
# each recipe is sourced in a clean shell (env -i bash), with srcdir, pkgdir
# and startdir laid out as the tool does and the tarball unpacked in srcdir;
# build(), check() and package() run with set -e, and the staged tree is
# compared with the files expected on that distribution.
# Prints PASS:, FAIL: and SKIP: lines; exits 1 on any failure.
# the recipes' code runs in the clean shell: single quotes meant
# shellcheck disable=SC2016
set -u
export LC_ALL=C
top=$(cd "$(dirname "$0")/../.." && pwd)
tarball=${1:?usage: tests/pkg/recipes.sh TARBALL OUT}
out=${2:?usage: tests/pkg/recipes.sh TARBALL OUT}
tarball=$(cd "$(dirname "$tarball")" && pwd)/$(basename "$tarball")
. "$top/tests/lib/harness.sh"
harness_init recipes pkg
rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
# check() runs `make check`; the whole suite runs in ./dev test's own trees,
# so here only two quick tests (TESTS through the environment make reads)
checkflags='TESTS=tests/unit/unit_parse tests/docs/man.sh'

# expected_files PREFIX SECUREDIR LICENSEDIR READERDIR: what make install
# stages, by path, with COPYING and LICENSES/ moved to LICENSEDIR, the
# reader in READERDIR
expected_files() {
	local doc=/usr/share/doc/pam_envd
	{
		echo /etc/profile.d/pam_envd.sh
		echo /usr/bin/envd
		echo "$2/pam_envd.so"
		echo "$4/reader"
		echo /usr/share/man/man1/envd.1
		echo /usr/share/man/man5/pam_envd-environment.d.5
		echo /usr/share/man/man8/pam_envd.8
		echo "$doc/README.md"
		echo "$doc/SECURITY.md"
		(cd "$top" && find examples -type f) | sed "s|^|$doc/|"
		echo "$3/COPYING"
		(cd "$top" && find LICENSES -type f) | sed "s|^|$3/|"
	} | sort
}
staged() { (cd "$1" && find . \( -type f -o -type l \) -print) | sed 's|^\.||' | sort; }

# ---- Arch: makepkg runs each function from $srcdir; pkgdir is
# $startdir/pkg/$pkgname
w=$out/arch
mkdir -p "$w/src"
cp "$top/packaging/arch/PKGBUILD" "$w/"
tar -xf "$tarball" -C "$w/src"
if env -i PATH=/usr/bin:/bin HOME="$w" startdir="$w" srcdir="$w/src" MAKEFLAGS="$checkflags" \
	bash --noprofile --norc -c '
		set -e
		. "$startdir/PKGBUILD"
		pkgdir=$startdir/pkg/$pkgname
		mkdir -p "$pkgdir"
		cd "$srcdir"; build
		cd "$srcdir"; check
		unset MAKEFLAGS
		cd "$srcdir"; package' >"$w/log" 2>&1; then
	pass "PKGBUILD: build, check and package"
else
	fail "PKGBUILD; end of $w/log:"
	tail -n 20 "$w/log"
fi
expected_files arch /usr/lib/security /usr/share/licenses/pam_envd /usr/lib/pam_envd >"$w/expected"
staged "$w/pkg/pam_envd" >"$w/staged" 2>/dev/null
if diff -u "$w/expected" "$w/staged" >"$w/diff"; then
	pass "PKGBUILD: staged exactly the $(wc -l <"$w/expected") files expected on Arch (module in /usr/lib/security)"
else
	fail "PKGBUILD: staged files differ (- expected, + staged):"
	grep '^[-+][^-+]' "$w/diff"
fi

# ---- Alpine: abuild runs each function in $builddir, with $CBUILD and
# $CHOST set (here: the compiler's triplet, a native build); pkgdir is
# $startdir/pkg/$pkgname.  abuild itself is not packaged for Debian, so
# this is the only check of the APKBUILD here (the PKGBUILD also goes
# through the real makepkg: makepkg.sh).  The -doc subpackage is split by
# abuild's default_doc, which moves usr/share/doc, usr/share/man and
# usr/share/licenses; the test does that move itself.
w=$out/alpine
mkdir -p "$w/src"
cp "$top/packaging/alpine/APKBUILD" "$w/"
tar -xf "$tarball" -C "$w/src"
triplet=$(cc -dumpmachine)
if env -i PATH=/usr/bin:/bin HOME="$w" startdir="$w" srcdir="$w/src" CBUILD="$triplet" \
	CHOST="$triplet" MAKEFLAGS="$checkflags" bash --noprofile --norc -c '
		set -e
		. "$startdir/APKBUILD"
		pkgdir=$startdir/pkg/$pkgname
		subpkgdir=$startdir/pkg/$pkgname-doc
		mkdir -p "$pkgdir" "$subpkgdir/usr/share"
		cd "$builddir"; build
		cd "$builddir"; check
		unset MAKEFLAGS
		cd "$builddir"; package
		mv "$pkgdir/usr/share/doc" "$pkgdir/usr/share/man" "$pkgdir/usr/share/licenses" \
			"$subpkgdir/usr/share/"
		rmdir "$pkgdir/usr/share"' >"$w/log" 2>&1; then
	pass "APKBUILD: build, check and package"
else
	fail "APKBUILD; end of $w/log:"
	tail -n 20 "$w/log"
fi
expected_files alpine /lib/security /usr/share/licenses/pam-envd /usr/libexec/pam_envd >"$w/expected"
{ staged "$w/pkg/pam-envd" && staged "$w/pkg/pam-envd-doc"; } 2>/dev/null | sort >"$w/staged"
if diff -u "$w/expected" "$w/staged" >"$w/diff"; then
	pass "APKBUILD: pam-envd and pam-envd-doc staged exactly the $(wc -l <"$w/expected") files expected on Alpine (module in /lib/security)"
else
	fail "APKBUILD: staged files differ (- expected, + staged):"
	grep '^[-+][^-+]' "$w/diff"
fi
if ! staged "$w/pkg/pam-envd" | grep -qE '^/usr/share/(man|doc|licenses)/'; then
	pass "APKBUILD: manual pages, documentation and licenses only in pam-envd-doc"
else
	fail "APKBUILD: pam-envd holds documentation"
fi
finish
