#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/pkg/rpm.sh TARBALL OUT - packaging/rpm/pam_envd.spec built with
# rpmbuild from the make dist tarball, its file list and modes checked,
# rpmlint on the spec and the package, and the package installed into a
# scratch root, verified (rpm -V) and erased without a trace.  --nodeps:
# Debian has no RPM database of the build dependencies (the spec's
# BuildRequires are Fedora's); --nocheck: ./dev test runs the suite in its
# own trees.
# Prints PASS:, FAIL: and SKIP: lines; exits 1 on any failure.
set -u
export LC_ALL=C
top=$(cd "$(dirname "$0")/../.." && pwd)
tarball=${1:?usage: tests/pkg/rpm.sh TARBALL OUT}
out=${2:?usage: tests/pkg/rpm.sh TARBALL OUT}
. "$top/tests/lib/harness.sh"
harness_init rpm pkg
need_cmds rpmbuild rpmlint rpm
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
	echo "-rw-r--r-- /usr/share/doc/pam_envd/authselect/cleanup-envd"
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

# installed into a scratch root (its own rpm database; --nodeps: the
# root has no pam or glibc package), verified, and erased: rpm -V must
# print nothing, and after rpm -e nothing of the package may be left but
# directories that the package does not own, empty of all but such
# directories (rpm makes the parents of what it installs, /usr/lib of the
# .build-id links among them, and leaves them)
root=$out/root
rm -rf "$root"
mkdir -p "$root"
# Debian's rpm keeps its database in ~/.rpmdb and warns on -i and -e
# unless told --force-debian
rpmr=(rpm --root "$root" --dbpath /var/lib/rpm)
force=()
rpm --help 2>/dev/null | grep -q -- --force-debian && force=(--force-debian)
"${rpmr[@]}" --initdb >"$out/install.log" 2>&1
files_of_root() {
	(cd "$root" && find . -mindepth 1 ! -path './var/lib/rpm' ! -path './var/lib/rpm/*' \
		\( -type d -printf '%p/\n' -o -print \) | sed 's|^\.||' | sort)
}
files_of_root >"$out/root-before"
if "${rpmr[@]}" --nodeps "${force[@]}" -i "$rpmfile" >>"$out/install.log" 2>&1; then
	pass "rpm --root --nodeps -i into a scratch root"
	if [ "$("${rpmr[@]}" -q pam_envd 2>&1)" = "$(rpm -qp "$rpmfile" 2>/dev/null)" ]; then
		pass "rpm -q pam_envd in the scratch root: $(rpm -qp "$rpmfile" 2>/dev/null)"
	else
		fail "rpm -q pam_envd in the scratch root: $("${rpmr[@]}" -q pam_envd 2>&1)"
	fi
	# --nodeps: the files only (the root has none of the dependencies)
	verify=$("${rpmr[@]}" -V --nodeps pam_envd 2>&1)
	if [ -z "$verify" ]; then
		pass "rpm -V pam_envd printed nothing (every file, mode and digest as packaged)"
	else
		fail "rpm -V pam_envd:"
		echo "$verify"
	fi
	if "${rpmr[@]}" "${force[@]}" -e pam_envd >>"$out/install.log" 2>&1; then
		pass "rpm --root -e pam_envd"
	else
		fail "rpm --root -e pam_envd; end of $out/install.log:"
		tail -n 10 "$out/install.log"
	fi
	if "${rpmr[@]}" -q pam_envd >/dev/null 2>&1; then
		fail "rpm -q still finds pam_envd after rpm -e"
	fi
	rpm -qlp "$rpmfile" 2>/dev/null | sort >"$out/owned"
	files_of_root | comm -13 "$out/root-before" - >"$out/root-left"
	while IFS= read -r p; do
		case $p in
		*/) grep -qxF "${p%/}" "$out/owned" || continue ;; # holding nothing but directories
		esac
		echo "$p"
	done <"$out/root-left" >"$out/root-bad"
	if [ ! -s "$out/root-bad" ]; then
		pass "after rpm -e nothing of the package is left ($(wc -l <"$out/root-left") empty directories it did not own)"
	else
		fail "after rpm -e, left behind:"
		head -n 20 "$out/root-bad"
	fi
else
	fail "rpm --root --nodeps -i; end of $out/install.log:"
	tail -n 10 "$out/install.log"
fi
finish
