#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/pkg/rpm.sh TARBALL OUT - packaging/rpm/pam_envd.spec built with
# rpmbuild from the make dist tarball, its file list and modes checked,
# rpmlint on the spec and the package, and the package installed into a
# scratch root, verified (rpm -V) and erased without a trace; built again
# with the -selinux subpackage (--with selinux), which is checked.  --nodeps:
# Debian has no RPM database of the build dependencies (the spec's
# BuildRequires are Fedora's).  The first build runs %check (the whole make
# check) as mock runs it: as root, as the unprivileged build user
# envd-build (created when missing, as the user stage does) in a
# directory of its own below /tmp that OUT links to; the root-only tests
# skip.  Its time is printed.  The -selinux build is the same build again
# with the policy module: --nocheck there.
# Prints PASS:, FAIL: and SKIP: lines; exits 1 on any failure.
set -u
export LC_ALL=C
top=$(cd "$(dirname "$0")/../.." && pwd)
tarball=${1:?usage: tests/pkg/rpm.sh TARBALL OUT}
out=${2:?usage: tests/pkg/rpm.sh TARBALL OUT}
. "$top/tests/lib/harness.sh"
harness_init rpm pkg
need_cmds rpmbuild rpmlint rpm rpm2cpio cpio od bzcat
build_user=${ENVD_BUILD_USER:-envd-build}
[ ! -L "$out" ] || rm -rf "$(readlink -f "$out")" # a former run's directory below /tmp
rm -rf "$out"
run=()
if [ "$(id -u)" = 0 ]; then
	need_cmds useradd setpriv
	# the build user works below /tmp (the checkout may lie below a
	# directory only root can enter); OUT links to it
	w=$(mktemp -d /tmp/pam_envd-rpm.XXXXXX)
	mkdir -p "$(dirname "$out")"
	ln -s "$w" "$out"
	if ! id -u "$build_user" >/dev/null 2>&1 &&
		! useradd -r -m -d "/var/lib/$build_user" -s /bin/sh -c "pam_envd build user" \
			"$build_user" >"$w/useradd.log" 2>&1; then
		fail "cannot create the build user $build_user: $(cat "$w/useradd.log")"
		finish
	fi
	run=(setpriv --reuid="$build_user" --regid="$build_user" --init-groups
		env HOME="$(getent passwd "$build_user" | cut -d: -f6)" USER="$build_user" LOGNAME="$build_user")
fi
mkdir -p "$out/SOURCES"
out=$(cd "$out" && pwd -P)
cp "$tarball" "$out/SOURCES/"
[ ${#run[@]} = 0 ] || chown -R "$build_user:" "$out"
spec=$top/packaging/rpm/pam_envd.spec
cp "$spec" "$out/"
# _docdir_fmt: Fedora's rpm names the %doc and %license directories by
# %{NAME} alone; Debian's rpm leaves it unset (NAME-VERSION)
start=$(date +%s)
if "${run[@]}" rpmbuild --nodeps -bb --define "_topdir $out" --define '_docdir_fmt %%{NAME}' \
	--define "_smp_mflags -j$(nproc 2>/dev/null || echo 2)" "$out/${spec##*/}" >"$out/build.log" 2>&1; then
	pass "rpmbuild -bb from $(basename "$tarball") as $("${run[@]}" id -un), %check included: $(($(date +%s) - start))s"
else
	fail "rpmbuild as $("${run[@]}" id -un); failed tests and the end of $out/build.log:"
	grep -E '^(FAIL|ERROR):' "$out/build.log"
	tail -n 30 "$out/build.log"
	exit 1
fi
if grep -qE '^PASS: tests/pam/pam_stack$' "$out/build.log" && grep -q '^# TOTAL: ' "$out/build.log" &&
	! grep -qE '^(FAIL|ERROR|XPASS): ' "$out/build.log"; then
	pass "%check ran make check: $(grep -c '^PASS: ' "$out/build.log") passed, $(grep -c '^SKIP: ' "$out/build.log") skipped"
else
	fail "%check did not run the suite (no tests/pam/pam_stack result in $out/build.log)"
fi
version=$(sed -n 's/^Version:[[:space:]]*//p' "$spec")
rpmfile=$(find "$out/RPMS" -name "pam_envd-$version-*.rpm" ! -name '*debug*' | head -n 1)

# the expected files with their modes, in rpm -qlvp's form (mode path),
# without rpm's own /usr/lib/.build-id links
{
	echo "-rw-r--r-- /etc/profile.d/pam_envd.sh"
	echo "-rwxr-xr-x /usr/bin/envd"
	echo "-rwxr-xr-x /usr/lib64/security/pam_envd.so"
	echo "drwxr-xr-x /usr/libexec/pam_envd"
	echo "-rwxr-xr-x /usr/libexec/pam_envd/reader"
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

# the -selinux subpackage: Debian's rpm has no selinux-policy macros, so
# each is defined to record its call (": NAME ARGS", a no-op in the
# scriptlet); the calls, the files, the dependencies and the module
# (a policy package: its magic) are checked.  Built where
# selinux-policy-dev is (./dev deps installs it).
sel_build() {
	rpmbuild --nodeps --nocheck -bb --with selinux --define "_topdir $out/sel" \
		--define '_docdir_fmt %%{NAME}' \
		--define 'selinux_modules_install(s:) : selinux_modules_install %{-s} %{*}' \
		--define 'selinux_modules_uninstall(s:) : selinux_modules_uninstall %{-s} %{*}' \
		--define 'selinux_relabel_pre(s:) : selinux_relabel_pre %{-s}' \
		--define 'selinux_relabel_post(s:) : selinux_relabel_post %{-s}' "$spec"
}
if ! have_cmds make m4 checkmodule semodule_package bzip2 || [ ! -f /usr/share/selinux/devel/Makefile ]; then
	skip "the -selinux subpackage: ${H_WHY:-no /usr/share/selinux/devel/Makefile} (Debian: selinux-policy-dev)"
elif mkdir -p "$out/sel/SOURCES" && cp "$tarball" "$out/sel/SOURCES/" && sel_build >"$out/sel.log" 2>&1; then
	selrpm=$(find "$out/sel/RPMS" -name "pam_envd-selinux-$version-*.noarch.rpm" | head -n 1)
	mainrpm=$(find "$out/sel/RPMS" -name "pam_envd-$version-*.rpm" ! -name '*debug*' | head -n 1)
	pass "rpmbuild -bb --with selinux: $(basename "${selrpm:-none}") and $(basename "${mainrpm:-none}")"
	{
		echo "-rw-r--r-- /usr/share/selinux/packages/targeted/pam_envd.pp.bz2"
		echo "-rw-r--r-- /usr/share/selinux/devel/include/distributed/pam_envd.if"
		echo "---------- /var/lib/selinux/targeted/active/modules/200/pam_envd"
		echo "drwxr-xr-x /usr/share/licenses/pam_envd-selinux"
		for f in COPYING BSD-3-Clause.txt GPL-2.0-or-later.txt; do
			echo "-rw-r--r-- /usr/share/licenses/pam_envd-selinux/$f"
		done
	} | sort >"$out/sel-expected"
	rpm -qlvp "$selrpm" 2>/dev/null | awk '{ print $1, $9 }' | sort >"$out/sel-listed"
	if diff -u "$out/sel-expected" "$out/sel-listed" >"$out/sel-diff"; then
		pass "pam_envd-selinux holds the module, its interface and the store's %ghost entry"
	else
		fail "pam_envd-selinux's files differ (- expected, + listed):" "$(grep '^[-+][^-+]' "$out/sel-diff")"
	fi
	scripts=$(rpm -qp --scripts "$selrpm" 2>/dev/null)
	for want in ": selinux_relabel_pre -s targeted" \
		": selinux_modules_install -s targeted /usr/share/selinux/packages/targeted/pam_envd.pp.bz2" \
		": selinux_modules_uninstall -s targeted pam_envd" ": selinux_relabel_post -s targeted"; do
		if grep -qxF -- "$want" <<<"$(sed 's/^ *//' <<<"$scripts")"; then
			pass "pam_envd-selinux's scriptlets call${want#:}"
		else
			fail "pam_envd-selinux's scriptlets lack${want#:}:" "$scripts"
		fi
	done
	if rpm -qp --requires "$selrpm" 2>/dev/null | grep -qx selinux-policy-targeted &&
		rpm -qp --recommends "$mainrpm" 2>/dev/null | grep -qxF '(pam_envd-selinux if selinux-policy-targeted)'; then
		pass "pam_envd-selinux requires selinux-policy-targeted; pam_envd recommends it there"
	else
		fail "the dependencies between pam_envd, pam_envd-selinux and selinux-policy-targeted"
	fi
	mkdir -p "$out/sel/x"
	(cd "$out/sel/x" && rpm2cpio "$selrpm" | cpio -idm --quiet 2>/dev/null)
	magic=$(bzcat "$out/sel/x/usr/share/selinux/packages/targeted/pam_envd.pp.bz2" 2>/dev/null | od -An -tx1 -N4 | tr -d ' ')
	if [ "$magic" = 8fff7cf9 ]; then
		pass "pam_envd.pp.bz2 is a SELinux policy package (magic f97cff8f)"
	else
		fail "pam_envd.pp.bz2 is no policy package (first bytes: ${magic:-none})"
	fi
else
	fail "rpmbuild --with selinux; end of $out/sel.log:" "$(tail -n 30 "$out/sel.log")"
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
