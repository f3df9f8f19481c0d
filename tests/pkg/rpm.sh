#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/pkg/rpm.sh TARBALL OUT - packaging/rpm/pam_envd.spec built with
# rpmbuild from the make dist tarball, its file list and modes checked, and
# rpmlint on the spec and the package.  --nodeps: Debian has no RPM
# database of the build dependencies (the spec's BuildRequires are
# Fedora's); --nocheck: ./dev test runs the suite in its own trees.
# Prints PASS:, FAIL: and SKIP: lines; exits 1 on any failure.
set -u
export LC_ALL=C
top=$(cd "$(dirname "$0")/../.." && pwd)
tarball=${1:?usage: tests/pkg/rpm.sh TARBALL OUT}
out=${2:?usage: tests/pkg/rpm.sh TARBALL OUT}
fails=0
pass() { echo "PASS: rpm: $*"; }
fail() {
	fails=$((fails + 1))
	echo "FAIL: rpm: $*"
}
for c in rpmbuild rpmlint rpm; do
	command -v "$c" >/dev/null 2>&1 || { echo "SKIP: rpm: $c is not installed (./dev deps)"; exit 0; }
done
rm -rf "$out"
mkdir -p "$out/SOURCES"
out=$(cd "$out" && pwd)
cp "$tarball" "$out/SOURCES/"
spec=$top/packaging/rpm/pam_envd.spec
# _docdir_fmt: Fedora's rpm names the %doc and %license directories by
# %{NAME} alone; Debian's rpm leaves it unset (NAME-VERSION)
if rpmbuild --nodeps --nocheck -bb --define "_topdir $out" --define '_docdir_fmt %%{NAME}' \
	"$spec" >"$out/build.log" 2>&1; then
	pass "rpmbuild -bb from $(basename "$tarball")"
else
	fail "rpmbuild; end of $out/build.log:"
	tail -n 30 "$out/build.log"
	exit 1
fi
version=$(sed -n 's/^Version:[[:space:]]*//p' "$spec")
rpmfile=$(find "$out/RPMS" -name "pam_envd-$version-*.rpm" ! -name '*debug*' | head -n 1)

# the expected files with their modes, in rpm -qlvp's form (mode path),
# without rpm's own /usr/lib/.build-id links
{
	echo "-rw-r--r-- /etc/profile.d/pam_envd.sh"
	echo "-rwxr-xr-x /usr/bin/envd"
	echo "-rwxr-xr-x /usr/lib64/security/pam_envd.so"
	echo "drwxr-xr-x /usr/share/doc/pam_envd"
	echo "-rw-r--r-- /usr/share/doc/pam_envd/README.md"
	echo "-rw-r--r-- /usr/share/doc/pam_envd/SECURITY.md"
	echo "drwxr-xr-x /usr/share/doc/pam_envd/authselect"
	echo "-rw-r--r-- /usr/share/doc/pam_envd/authselect/README"
	echo "-rw-r--r-- /usr/share/doc/pam_envd/authselect/postlogin-envd"
	(cd "$top" && find examples -type d) | sed 's|^|drwxr-xr-x /usr/share/doc/pam_envd/|'
	(cd "$top" && find examples -type f) | sed 's|^|-rw-r--r-- /usr/share/doc/pam_envd/|'
	echo "-rw-r--r-- /usr/share/man/man1/envd.1"
	echo "-rw-r--r-- /usr/share/man/man5/pam_envd-environment.d.5"
	echo "-rw-r--r-- /usr/share/man/man8/pam_envd.8"
	# %license: COPYING and the texts of LICENSES/, in the license directory
	echo "drwxr-xr-x /usr/share/licenses/pam_envd"
	echo "-rw-r--r-- /usr/share/licenses/pam_envd/COPYING"
	echo "-rw-r--r-- /usr/share/licenses/pam_envd/BSD-3-Clause.txt"
	echo "-rw-r--r-- /usr/share/licenses/pam_envd/GPL-2.0-or-later.txt"
} | sort >"$out/expected"
rpm -qlvp "$rpmfile" 2>/dev/null | awk '{ print $1, $9 }' | grep -v ' /usr/lib/\.build-id' |
	sed 's/\.\(gz\|bz2\|xz\|zst\)$//' | sort >"$out/listed"
if diff -u "$out/expected" "$out/listed" >"$out/diff"; then
	pass "rpm -qlp lists exactly the $(wc -l <"$out/expected") expected files and directories, modes as expected"
else
	fail "rpm -qlp differs (- expected, + listed):"
	grep '^[-+][^-+]' "$out/diff"
fi
if rpm -qp --configfiles "$rpmfile" 2>/dev/null | grep -qx /etc/profile.d/pam_envd.sh; then
	pass "/etc/profile.d/pam_envd.sh is a %config file"
else
	fail "/etc/profile.d/pam_envd.sh is not marked %config"
fi
rpmlint -r "$top/packaging/rpm/pam_envd.rpmlintrc" "$spec" "$rpmfile" >"$out/rpmlint.log" 2>&1
if grep -qE ' [0-9]+ errors, [0-9]+ warnings' "$out/rpmlint.log" &&
	grep -qE ' 0 errors, 0 warnings' "$out/rpmlint.log"; then
	pass "rpmlint on the spec and the package: 0 errors, 0 warnings (filters in pam_envd.rpmlintrc)"
else
	fail "rpmlint:"
	grep -E ': [EW]: |errors' "$out/rpmlint.log"
fi
[ "$fails" = 0 ]
