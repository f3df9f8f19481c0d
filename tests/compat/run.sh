#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/compat/run.sh - the compat stage of ./dev test (./dev compat alone):
# the module built against each Linux-PAM of the matrix below, from
# Debian's source package of that release (tests/lib/debsrc.sh), and its
# stack tests run there; then util-linux login as Debian 13 builds it, from
# its source package too, logs a real user in around the deployment pair
# (tests/e2e/e2e_login.sh, in the bookworm glibc cell's tree).  Prints one
# line per cell on stderr and the cells' "pass fail skip" added up on stdout.
set -uo pipefail
# shellcheck source=tools/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../tools/common.sh"
# shellcheck source=tests/lib/debsrc.sh
. "$top/tests/lib/debsrc.sh"
bootstrap
# Debian's sources (apt-get, dpkg-source, patch), Linux-PAM 1.7's meson
# build, 1.4's and 1.5's autotools build (flex, bison), the musl cell
stage_needs apt-get dpkg-source patch meson ninja flex bison gcc musl-gcc cmake

# The Linux-PAM compatibility matrix: suite, version, C library of each
# cell.  The source is Debian's package of that suite (patches applied).
compat_cells=("bullseye 1.4 glibc" "bookworm 1.5 glibc" "trixie 1.7 glibc" "bookworm 1.5 musl")

# pam_failed WHAT LOG: on stderr, WHAT failed, with the end of its LOG
pam_failed() {
	echo "$1 failed; end of $2:" >&2
	tail -n 20 "$2" | sed 's/^/    /' >&2
}

# compat_pam SUITE LIBC: Linux-PAM of SUITE's source package, built with
# LIBC's compiler into _build/compat/pam-SUITE-LIBC/prefix: libpam and its
# headers only (the cells' stacks name modules by path).  Kept while the
# source version is the same (prefix/.version).  Prints the prefix; on a
# failure the reason on stderr and returns 1 (2: the source cannot be had).
compat_pam() {
	local suite=$1 libc=$2 dir="$top/_build/compat/pam-$1-$2" ver src cc=gcc
	[ "$libc" = musl ] && cc=musl-gcc
	debsrc_init >/dev/null 2>&1 || { echo "no source lists: ${DEBSRC_ERR:-apt failed}" >&2; return 2; }
	# the newest version whose files the mirror has (a mirror without the
	# security archive's pool serves the suite's own release)
	for ver in $(debsrc_versions pam "$suite"); do
		if [ "$(cat "$dir/prefix/.version" 2>/dev/null)" = "$ver" ]; then
			echo "$dir/prefix"
			return 0
		fi
	done
	for ver in $(debsrc_versions pam "$suite"); do
		mkdir -p "$top/_build/compat/src/$ver"
		debsrc_get pam "$ver" "$top/_build/compat/src/$ver" && break
		rm -rf "$top/_build/compat/src/$ver"
		ver=
	done
	[ -n "$ver" ] || { echo "no pam source package of $suite can be downloaded${DEBSRC_ERR:+ ($DEBSRC_ERR)}" >&2; return 2; }
	rm -rf "$dir"
	mkdir -p "$dir"
	debsrc_extract pam "$ver" "$top/_build/compat/src/$ver" "$dir/src" >"$dir/build.log" 2>&1 ||
		{ pam_failed "extracting pam $ver" "$dir/build.log"; return 1; }
	src=$dir/src
	if [ -f "$src/meson.build" ]; then
		{
			meson setup "$dir/build" "$src" --prefix="$dir/prefix" --libdir=lib \
				-Ddocs=disabled -Daudit=disabled -Deconf=disabled -Dselinux=disabled \
				-Dnis=disabled -Dlogind=disabled -Dopenssl=disabled -Dpam_userdb=disabled \
				-Dpam_lastlog=disabled -Dpam_unix=disabled -Dxtests=false -Dexamples=false &&
				meson compile -C "$dir/build" ./libpam/pam:shared_library &&
				mkdir -p "$dir/prefix/include/security" "$dir/prefix/lib" &&
				cp -P "$dir"/build/libpam/libpam.so "$dir"/build/libpam/libpam.so.0 \
					"$dir"/build/libpam/libpam.so.0.85.1 "$dir/prefix/lib/" &&
				cp "$src"/libpam/include/security/*.h "$dir/prefix/include/security/"
		} >>"$dir/build.log" 2>&1 || { pam_failed "building pam $ver" "$dir/build.log"; return 1; }
	else
		{
			(cd "$src" && CC=$cc ./configure --prefix="$dir/prefix" --libdir="$dir/prefix/lib" \
				--includedir="$dir/prefix/include/security" \
				--disable-doc --disable-nis --disable-selinux --disable-audit --disable-db \
				--disable-nls --disable-regenerate-docu --disable-econf --disable-prelude \
				--disable-lastlog --disable-static) &&
				make -C "$src/libpam" -j"$jobs" && make -C "$src/libpam" install
		} >>"$dir/build.log" 2>&1 || { pam_failed "building pam $ver" "$dir/build.log"; return 1; }
	fi
	echo "$ver" >"$dir/prefix/.version"
	echo "$dir/prefix"
}

# compat_cell SUITE VERSION LIBC: one cell of the Linux-PAM matrix.  pam_envd configured against
# the cell's libpam (headers, library, rpath) and built with its C
# library's compiler; the module's stack tests (pam_stack through
# pam_start_confdir, pam_dlopen) and the end-to-end session of a real user
# (e2e_confdir.sh: as root, the privilege window for real) run in
# _build/compat/SUITE-LIBC.  Prints "linux-pam X.Y (libc): N passed, N
# failed" on stderr and "pass fail skip" on stdout; a cell whose source
# cannot be fetched is skipped with the reason.
compat_cell() {
	local suite=$1 want=$2 libc=$3 prefix name="compat/$1-$3" t0 rc=0 p f s ver cc=gcc cmocka
	local extra=()
	t0=$(date +%s)
	[ "$libc" = musl ] && cc=musl-gcc
	prefix=$(compat_pam "$suite" "$libc" 2>"$top/_build/compat-$suite-$libc.err") || rc=$?
	if [ "$rc" != 0 ]; then
		if [ "$rc" = 2 ]; then
			echo "linux-pam $want ($libc): SKIP: $(cat "$top/_build/compat-$suite-$libc.err")" >&2
			echo "0 0 1"
			return 0
		fi
		echo "linux-pam $want ($libc): FAIL: $(cat "$top/_build/compat-$suite-$libc.err")" >&2
		echo "0 1 0"
		return 1
	fi
	ver=$(cat "$prefix/.version")
	case $ver in "$want".*) ;; *)
		echo "linux-pam $want ($libc): FAIL: $suite has pam $ver, not $want" >&2
		echo "0 1 0"
		return 1
		;;
	esac
	if [ "$libc" = musl ]; then
		cmocka=$("$top/tests/musl/cmocka.sh" 2>/dev/null) ||
			{ echo "linux-pam $want ($libc): FAIL: cmocka for musl" >&2; echo "0 1 0"; return 1; }
		extra=(CMOCKA_CFLAGS="-I$cmocka/include" CMOCKA_LIBS="$cmocka/lib/libcmocka-static.a")
	fi
	if ! build_tree "$name" CC="$cc" --enable-werror "${extra[@]}" \
		CPPFLAGS="-I$prefix/include" LDFLAGS="-L$prefix/lib -Wl,-rpath,$prefix/lib" \
		>"$top/_build/compat-$suite-$libc.build.log" 2>&1; then
		echo "linux-pam $want ($libc): FAIL: build (see _build/compat-$suite-$libc.build.log)" >&2
		tail -n 20 "$top/_build/compat-$suite-$libc.build.log" >&2
		echo "0 1 0"
		return 1
	fi
	find "$top/_build/$name/tests" \( -name "*.log" -o -name "*.trs" \) -delete 2>/dev/null || true
	make -C "$top/_build/$name" -j"$jobs" check TESTS="tests/pam/pam_dlopen tests/pam/pam_stack tests/e2e/e2e_confdir.sh" \
		check_PROGRAMS="tests/pam/pam_dlopen tests/pam/pam_stack tests/pam/pam_session" check_LIBRARIES= \
		COMPAT_LIBPAM="Linux-PAM $ver ($libc, $prefix/lib)" COMPAT_PAM_VERSION="$ver" \
		>"$top/_build/compat-$suite-$libc.check.log" 2>&1 || rc=1
	read -r p f s < <(count_results "$top/_build/$name")
	# each of the three tests must have run and passed: a skip, or a test
	# that left no result, is a failure of the cell
	if [ "$s" != 0 ] || [ "$p" != 3 ]; then rc=1 f=$((3 - p)) s=0; fi
	grep -hE '^(ok|FAIL|not ok|libpam)' "$top/_build/$name/tests/e2e/e2e_confdir.log" 2>/dev/null |
		sed "s/^/  /" >&2 || true
	echo "linux-pam $want ($libc): $p passed, $f failed (Linux-PAM $ver, $(($(date +%s) - t0)) s)" >&2
	if [ "$rc" != 0 ]; then
		grep -E '^(FAIL|ERROR|SKIP):' "$top/_build/compat-$suite-$libc.check.log" >&2
		failed_logs "$top/_build/$name"
		# a compiler error of the test programs make check builds first
		grep -E -A4 ': (fatal )?error:' "$top/_build/compat-$suite-$libc.check.log" | head -n 40 >&2
	fi
	echo "$p $f $s"
	return "$rc"
}

# The login of the matrix: util-linux's, as Debian 13 builds it (trixie's
# source package), which copies the PAM environment into its root process
# and closes the session from there (tests/e2e/e2e_login.sh).
compat_login_suite=trixie

# compat_login: that login alone (login-utils/login, against the system's
# libpam) built in _build/compat/util-linux-SUITE/src; kept while the
# source version is the same (.version).  Prints the binary's path; on a
# failure the reason on stderr and returns 1 (2: the source cannot be had).
compat_login() {
	local suite=$compat_login_suite dir="$top/_build/compat/util-linux-$compat_login_suite" ver src from
	debsrc_init >/dev/null 2>&1 || { echo "no source lists: ${DEBSRC_ERR:-apt failed}" >&2; return 2; }
	for ver in $(debsrc_versions util-linux "$suite"); do
		if [ "$(cat "$dir/.version" 2>/dev/null)" = "$ver" ] && [ -x "$dir/src/login" ]; then
			echo "$dir/src/login"
			return 0
		fi
	done
	for ver in $(debsrc_versions util-linux "$suite"); do
		from=$top/_build/compat/src/util-linux-$ver
		debsrc_get util-linux "$ver" "$from" && break
		rm -rf "$from"
		ver=
	done
	[ -n "$ver" ] || { echo "no util-linux source package of $suite can be downloaded${DEBSRC_ERR:+ ($DEBSRC_ERR)}" >&2; return 2; }
	rm -rf "$dir"
	mkdir -p "$dir"
	src=$dir/src
	debsrc_extract util-linux "$ver" "$from" "$src" >"$dir/build.log" 2>&1 ||
		{ echo "extracting util-linux $ver failed (see $dir/build.log)" >&2; return 1; }
	# Debian's patches leave some Makefile.am newer than the generated
	# files; nothing login needs changed, so no autotools run
	{
		touch "$src/aclocal.m4" && touch "$src/configure" &&
			touch "$src/Makefile.in" "$src/config.h.in" &&
			(cd "$src" && ./configure -q --disable-all-programs --enable-login --disable-nls \
				--disable-liblastlog2 --disable-bash-completion --disable-asciidoc \
				--disable-poman --disable-makeinstall-chown --without-systemd --without-udev \
				--without-selinux --without-audit --without-python --without-ncurses \
				--without-tinfo --without-readline --without-libmagic --without-cap-ng \
				--without-econf) &&
			make -C "$src" -j"$jobs" login
	} >>"$dir/build.log" 2>&1 || { echo "building util-linux $ver login failed (see $dir/build.log)" >&2; return 1; }
	echo "$ver" >"$dir/.version"
	echo "$src/login"
}

# compat_pam_script: pam_script.so from the libpam-script package of the
# system's suite, unpacked into _build/compat/pam_script (not installed: its
# maintainer scripts would enable it in every common-* stack).  Prints its
# path, or nothing when the package cannot be had.
compat_pam_script() {
	local dir="$top/_build/compat/pam_script" deb so
	so=$(find "$dir/root" -name pam_script.so 2>/dev/null | head -n 1)
	if [ -z "$so" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		(cd "$dir" && apt-get download -q libpam-script) >"$dir/download.log" 2>&1 || return 0
		deb=$(find "$dir" -maxdepth 1 -name 'libpam-script_*.deb' | head -n 1)
		[ -n "$deb" ] && dpkg-deb -x "$deb" "$dir/root" 2>>"$dir/download.log" || return 0
		so=$(find "$dir/root" -name pam_script.so | head -n 1)
	fi
	echo "$so"
}

# compat_login_cell: tests/e2e/e2e_login.sh with that login (and
# pam_script), as root, in the bookworm glibc cell's tree (its libpam is the
# Linux-PAM of Debian 12's login stack).  Prints "util-linux login X
# (SUITE): passed/failed" on stderr and "pass fail skip" on stdout.
compat_login_cell() {
	local name=compat/bookworm-glibc login rc=0 t0 res so ver
	local err="$top/_build/compat-login.err" log="$top/_build/compat-login.check.log"
	t0=$(date +%s)
	login=$(compat_login 2>"$err") || rc=$?
	if [ "$rc" = 2 ]; then
		echo "util-linux login ($compat_login_suite): SKIP: $(cat "$err")" >&2
		echo "0 0 1"
		return 0
	fi
	if [ "$rc" != 0 ]; then
		echo "util-linux login ($compat_login_suite): FAIL: $(cat "$err")" >&2
		echo "0 1 0"
		return 1
	fi
	ver=$(cat "$top/_build/compat/util-linux-$compat_login_suite/.version")
	if [ ! -f "$top/_build/$name/Makefile" ]; then
		echo "util-linux login $ver: FAIL: no $name tree to test in" >&2
		echo "0 1 0"
		return 1
	fi
	so=$(compat_pam_script)
	rm -f "$top/_build/$name/tests/e2e/e2e_login.log" "$top/_build/$name/tests/e2e/e2e_login.trs"
	make -C "$top/_build/$name" check TESTS=tests/e2e/e2e_login.sh check_PROGRAMS= \
		check_LIBRARIES= UL_LOGIN="$login" PAM_SCRIPT_SO="$so" >"$log" 2>&1 || rc=1
	res=$(sed -n 's/^:test-result: //p' "$top/_build/$name/tests/e2e/e2e_login.trs" 2>/dev/null)
	grep -hE '^(ok|FAIL|SKIP|login)' "$top/_build/$name/tests/e2e/e2e_login.log" 2>/dev/null |
		sed "s/^/  /" >&2 || true
	# it must have run and passed: a skip is a failure of the cell
	if [ "$res" = PASS ]; then
		echo "util-linux login $ver: passed${so:+ (with pam_script)} ($(($(date +%s) - t0)) s)" >&2
		echo "1 0 0"
		return 0
	fi
	echo "util-linux login $ver: FAIL (${res:-no result}; see _build/compat-login.check.log)" >&2
	echo "0 1 0"
	return 1
}

rc=0 p=0 f=0 s=0
echo "== compat: the module against Linux-PAM ${compat_cells[*]// /-}" >&2
for cell in "${compat_cells[@]}"; do
	# shellcheck disable=SC2086 # suite version libc
	read -r a b c < <(compat_cell $cell) || true
	[ "${b:-1}" = 0 ] || rc=1
	p=$((p + ${a:-0})) f=$((f + ${b:-1})) s=$((s + ${c:-0}))
done
read -r a b c < <(compat_login_cell) || true
[ "${b:-1}" = 0 ] || rc=1
p=$((p + ${a:-0})) f=$((f + ${b:-1})) s=$((s + ${c:-0}))
echo "$p $f $s"
exit "$rc"
