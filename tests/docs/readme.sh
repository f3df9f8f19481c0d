#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/docs/readme.sh - every command of README.md runs as written, or is
# classified as one that cannot run here and checked as far as it can be.
#
# Every fenced block of README.md carries an annotation on the line before
# it, an HTML comment the rendered page does not show:
#   <!-- readme-test: user [expect=ERE] -->   run as a scratch user, in its
#       scratch home, with the build tree's envd first on PATH;
#   <!-- readme-test: root [expect=ERE] -->   run as root in the source
#       tree, against the scratch system below (sudo is a no-op there);
#   <!-- readme-test: other RECIPE -->   builds or installs a package, or is
#       another family's: RECIPE (a file of the tree) exists, the block
#       names a package RECIPE defines, every package file it installs
#       (*.deb, *.rpm, *.apk) is one of RECIPE's, and every package it
#       installs besides with apt-get or dnf is a build dependency of
#       debian/control or of the spec (or rpm-build and the autotools);
#   <!-- readme-test: covered TEST -->   what TEST, a test of Makefile.am's
#       TESTS, does for real; every ./configure option it gives is one of
#       configure's;
#   <!-- readme-test: dev -->   ./dev commands: each one is a command of dev;
#   <!-- readme-test: text -->   not commands (a file's lines, PAM lines).
# A block without one fails.  The user and root blocks run in the order of
# the README, each with bash -e -o pipefail: a block that exits non-zero,
# or whose output (stdout and stderr) has no line matching its expect=,
# fails.
#
# The scratch system (root only; skipped otherwise, after the checks that
# need no root): the test runs in a private mount namespace in which
# - libpam's module directory is a copy with the build tree's pam_envd.so;
# - /etc/pam.d is a copy of the services the distribution's packages own
#   and the common-* files (other tests' services left out), in which su
#   lets the scratch user become itself without a password (it has none;
#   the session lines stay as they are);
# - /usr/share/pam-configs, /var/lib/pam and /var/cache/debconf are copies,
#   for pam-auth-update;
# - /etc/profile.d is a copy with the login-shell snippet built for the
#   scratch copy of envd;
# so that nothing of the machine changes; the user is removed at exit.
#
# An automake test; exit 0 pass, 1 fail, 77 skipped.

if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -u
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir/_build/plain}
ENVD=${ENVD:-$top_builddir/src/envd}
readme=$top_srcdir/README.md

# as root: the whole test in a private mount namespace, whose mounts end
# with it.  Whether one can be made is probed first, with a bind mount in
# it: in a chroot whose root is no mount point (a buildd's) unshare cannot
# change the propagation, and without CAP_SYS_ADMIN it cannot unshare at
# all; the blocks that run are then skipped, with unshare's words
if [ "$(id -u)" = 0 ] && [ -z "${READMETEST_NS:-}" ] && command -v unshare >/dev/null 2>&1; then
	if READMETEST_NONS=$(unshare -m --propagation private mount --bind /etc /etc 2>&1); then
		READMETEST_NS=1 exec unshare -m --propagation private bash "$0" "$@"
	fi
fi

. "$top_srcdir/tests/lib/harness.sh"
harness_init readme.sh check

make_tmpdir T envd-readme
chmod 755 "$T"
mkdir -p "$T/blocks"

# ---- the blocks: T/blocks/N (the text), and one line per block in
# T/blocks/list: "N<TAB>LINE<TAB>ANNOTATION" (the annotation's words, or
# empty)
awk -v dir="$T/blocks" '
	/^```/ && !inblock {
		n++
		inblock = 1
		a = prev ~ /^<!-- readme-test: .* -->$/ ? prev : ""
		sub(/^<!-- readme-test: /, "", a)
		sub(/ -->$/, "", a)
		printf "%d\t%d\t%s\n", n, NR, a >(dir "/list")
		printf "" >(dir "/" n)
		next
	}
	/^```/ && inblock { inblock = 0; prev = ""; next }
	inblock { print >>(dir "/" n); next }
	/[^ \t]/ { prev = $0 }' "$readme"
[ -s "$T/blocks/list" ] || { fail "README.md: no fenced block found"; finish; }
chmod -R a+rX "$T/blocks"

# ---- the checks that need no root
# pkgs RECIPE: the packages a recipe defines, one a line
pkgs() {
	case $1 in
	debian/control) awk '/^Package:/ { print $2 }' "$top_srcdir/$1" ;;
	*.spec) awk '/^Name:/ { print $2 }' "$top_srcdir/$1" ;;
	*PKGBUILD | *APKBUILD) sed -n 's/^pkgname=//p' "$top_srcdir/$1" ;;
	esac
}
# builddeps: debian/control's Build-Depends and Build-Depends-Indep, and
# build-essential (implied)
builddeps() {
	echo build-essential
	awk '/^Build-Depends(-Indep)?:/ { on = 1; sub(/^Build-Depends(-Indep)?:/, "") }
		on && /^[A-Z]/ && !/^Build-Depends(-Indep)?:/ { on = 0 }
		on { gsub(/\([^)]*\)|<[^>]*>/, ""); n = split($0, a, /[ ,]+/)
			for (i = 1; i <= n; i++) if (a[i] != "") print a[i] }' "$top_srcdir/debian/control" |
		sed 's/-compat$//'
}
check_other() { # N LINE RECIPE
	local n=$1 line=$2 recipe=$3 names p f w ok
	if [ ! -f "$top_srcdir/$recipe" ]; then
		fail "README.md:$line: $recipe does not exist"
		return
	fi
	names=$(pkgs "$recipe")
	[ -n "$names" ] || { fail "README.md:$line: no package name found in $recipe"; return; }
	ok=
	for p in $names; do
		grep -qE "(^|[^A-Za-z0-9_-])$p([^A-Za-z0-9_+-]|[-_][*[0-9]|\$)" "$T/blocks/$n" && ok=1
	done
	if [ -n "$ok" ]; then pass "README.md:$line: names a package of $recipe"; else
		fail "README.md:$line: names no package of $recipe ($names)" "$(cat "$T/blocks/$n")"
	fi
	# the package files it installs: NAME_*.deb, NAME-*.rpm, NAME-*.apk
	for f in $(grep -oE '[^ /]+\.(deb|rpm|apk)' "$T/blocks/$n"); do
		case $f in
		*.deb) w=${f%%_*} ;;
		*) w=$(sed -E 's/-(\*|\[|[0-9]).*//' <<<"$f") ;;
		esac
		if grep -qxF -- "$w" <<<"$names"; then pass "README.md:$line: $f is a package of $recipe"; else
			fail "README.md:$line: $f: $recipe makes no package $w ($names)"
		fi
	done
	# the packages it installs from the distribution: build dependencies
	# of debian/control or of the spec (and, for the spec, what make dist
	# needs in a git checkout)
	for w in $(sed -n 's/.*apt-get install \([^#]*\).*/\1/p' "$T/blocks/$n" | tr ' ' '\n' |
		grep -vE '^(-|\.\./|/|$)|\.deb$'); do
		if builddeps | grep -qxF -- "$w"; then pass "README.md:$line: $w is a build dependency"; else
			fail "README.md:$line: $w is not a build dependency in debian/control"
		fi
	done
	# the build profiles it gives (apt-get build-dep and dpkg-buildpackage
	# -P): each one is a profile of debian/control's
	for w in $(grep -oE -- '(^| )(-P|--build-profiles=?) ?[a-z0-9.,-]+' "$T/blocks/$n" |
		sed -E 's/^ ?(-P|--build-profiles=?) ?//' | tr , '\n' | sort -u); do
		if grep -qE "<([^>]* )?!?${w//./[.]}( [^>]*)?>" "$top_srcdir/debian/control"; then
			pass "README.md:$line: build profile $w is one of debian/control"
		else
			fail "README.md:$line: build profile $w: debian/control names no such profile"
		fi
	done
	# dpkg-buildpackage reads "-P PROFILE" as -P with no profile and
	# stops at PROFILE: "unknown option or argument"
	if grep -qE 'dpkg-buildpackage( .*)? -P( |$)' "$T/blocks/$n"; then
		fail "README.md:$line: dpkg-buildpackage -P takes its profiles without a blank (-PNAME, --build-profiles=NAME)"
	fi
	for w in $(sed -n 's/.*dnf install \([^#]*\).*/\1/p' "$T/blocks/$n" | tr ' ' '\n' |
		grep -vE '^(-|\.\./|/|~|$)|\.rpm$'); do
		if { printf '%s\n' rpm-build autoconf automake libtool; awk '/^BuildRequires:/ { print $2 }' \
			"$top_srcdir/$recipe"; } | grep -qxF -- "$w"; then
			pass "README.md:$line: $w is a build dependency of $recipe"
		else
			fail "README.md:$line: $w is not a BuildRequires of $recipe"
		fi
	done
}
check_covered() { # N LINE TEST
	local n=$1 line=$2 t=$3 o
	if [ -f "$top_srcdir/$t" ] && grep -qE "^TESTS \+=.*(^| )$t( |\$)" "$top_srcdir/Makefile.am"; then
		pass "README.md:$line: covered by $t, a test of TESTS"
	else
		fail "README.md:$line: $t is not a test of Makefile.am's TESTS"
	fi
	for o in $(grep -E '(^|[ ;&])\./configure( |$)' "$T/blocks/$n" | grep -oE -- '--[a-z][a-z-]*'); do
		if "$top_srcdir/configure" --help | grep -qE -- "^ +$o(\[?=|[ ,]|\$)"; then
			pass "README.md:$line: configure has $o"
		else
			fail "README.md:$line: configure has no option $o"
		fi
	done
}
check_dev() { # N LINE
	local n=$1 line=$2 c
	for c in $(grep -oE '(^|[ ;&])\./dev [a-z-]+' "$T/blocks/$n" | awk '{ print $2 }'); do
		if grep -qE "^([a-z-]+ \| )*$c( \| [a-z-]+)*\)" "$top_srcdir/dev"; then
			pass "README.md:$line: ./dev $c is a command of dev"
		else
			fail "README.md:$line: ./dev $c: dev has no such command"
		fi
	done
}

runs=()
while IFS=$'\t' read -r n line ann; do
	read -r kind arg <<<"$ann"
	# a block for root runs in a root shell, which may have no sudo
	# (a minimal Debian, a container): its commands are written without it
	if [ "$kind" = root ]; then
		if grep -qE '(^|[;&|(]|do|then)[[:blank:]]*sudo[[:blank:]]' "$T/blocks/$n"; then
			fail "README.md:$line: a block for root uses sudo" "$(grep -n sudo "$T/blocks/$n")"
		else
			pass "README.md:$line: the block for root does without sudo"
		fi
	fi
	case $kind in
	user | root) runs+=("$n") ;;
	other) check_other "$n" "$line" "$arg" ;;
	covered) check_covered "$n" "$line" "$arg" ;;
	dev) check_dev "$n" "$line" ;;
	text) ;;
	'') fail "README.md:$line: a block without a readme-test annotation" "$(head -n 3 "$T/blocks/$n")" ;;
	*) fail "README.md:$line: unknown annotation '$ann'" ;;
	esac
done <"$T/blocks/list"
[ ${#runs[@]} -ge 6 ] || fail "README.md: only ${#runs[@]} blocks to run (6 or more expected): the annotations went blind"
# the permission rule states the user-private-group exception, as the
# module applies it (lib/ids.c); and what make uninstall leaves (the
# pam-configs the Enable step copies) is said where it is turned off
if grep -q 'writable by group or others' "$readme" && grep -qi 'private group' "$readme"; then
	pass "README.md: the permission rule with the private-group exception"
else
	fail "README.md: the permission rule without the private-group exception"
fi
if grep -qF 'rm /usr/share/pam-configs/pam_envd' "$readme"; then
	pass "README.md: removing the copied pam-configs profiles"
else
	fail "README.md: the copied pam-configs profiles are never removed"
fi
# the README's own commands for developers stay visible
for c in './dev demo' './dev test'; do
	if grep -qF -- "$c" "$readme"; then pass "README.md names $c"; else fail "README.md lacks $c"; fi
done

# ---- the scratch system and the blocks that run
need_root_rest() {
	[ "$(id -u)" = 0 ] || skip_rest "running the README's commands needs root"
	[ -n "${READMETEST_NS:-}" ] ||
		skip_rest "no private mount namespace (unshare -m${READMETEST_NONS:+: $(head -n 1 <<<"$READMETEST_NONS")})"
}
need_root_rest
[ "${ENVD_MODULE:-yes}" != no ] || skip_rest "configured with --disable-module: no pam_envd.so"
need_envd
module=$top_builddir/pam_envd/.libs/pam_envd.so
[ -f "$module" ] || { fail "$module is not built"; finish; }
# the sanitizer build's module needs the ASan runtime in the programs
# that load it (su, pam-auth-update's helpers do not): preloaded into the
# blocks' commands, as tests/lib/e2e_lib.sh does for pamtester
asan=()
if readelf -d "$module" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
	p=$(${CC:-cc} -print-file-name=libasan.so)
	[ -f "$p" ] || skip_rest "no ASan runtime found for the sanitizer build"
	asan=(LD_PRELOAD="$p" ASAN_OPTIONS=detect_leaks=0)
fi
have_cmds useradd userdel getent setpriv su mount pam-auth-update dpkg-query ||
	skip_rest "$H_WHY"

# bind DIR: DIR replaced by a copy of itself for the rest of the test
# (prints the copy)
bind_copy() {
	local c
	c=$T/sys$(echo "$1" | tr / _)
	mkdir -p "$c"
	[ ! -d "$1" ] || cp -a "$1/." "$c/"
	mkdir -p "$1"
	mount --bind "$c" "$1" || { fail "mount --bind $c $1"; finish; }
	echo "$c"
}
unix=$(find /usr/lib /lib -name pam_unix.so -path '*/security/*' 2>/dev/null | head -n 1)
[ -n "$unix" ] || skip_rest "no pam_unix.so"
secdir=$(dirname "$unix")
bind_copy "$secdir" >/dev/null
cp "$module" "$secdir/pam_envd.so"
mkdir -p "$T/bin"
cp "$ENVD" "$T/bin/envd"
chmod -R a+rX "$T/bin"

# the user, removed at exit
user="readme-$$$RANDOM"
user=${user:0:32}
home=$T/home
at_exit "userdel -f '$user' >/dev/null 2>&1; groupdel '$user' >/dev/null 2>&1 || true"
# (retried while another test holds the passwd lock)
for _ in $(seq 1 100); do
	rc=0
	useradd -m -d "$home" -s /bin/bash -K UMASK=022 "$user" >/dev/null 2>"$T/useradd.err" || rc=$?
	case $rc in 0 | 9) break ;; esac
	sleep 0.2
done
[ "$rc" = 0 ] || { fail "useradd $user: $(cat "$T/useradd.err")"; finish; }

# /etc/pam.d: the distribution's services and the common-* files
pamd=$T/pam.d.orig
mkdir -p "$pamd"
for f in /etc/pam.d/*; do
	case ${f##*/} in
	common-*) cp -a "$f" "$pamd/" ;;
	*) dpkg-query -S "$f" >/dev/null 2>&1 && cp -a "$f" "$pamd/" ;;
	esac
done
mount --bind "$pamd" /etc/pam.d || { fail "mount --bind $pamd /etc/pam.d"; finish; }
# su: the scratch user becomes itself without a password
{
	echo "auth sufficient pam_succeed_if.so quiet user = $user"
	cat /etc/pam.d/su
} >"$T/su" && mv "$T/su" /etc/pam.d/su
for d in /usr/share/pam-configs /var/lib/pam /var/cache/debconf /etc/profile.d; do
	bind_copy "$d" >/dev/null
done
sed -e "s|@bindir@|$T/bin|g" -e 's|@sysconfdir@|/etc|g' \
	"$top_srcdir/profile/pam_envd.sh.in" >/etc/profile.d/pam_envd.sh

# a ~/.pam_environment for the migration, made when its block comes: the
# user of the sections before it has none (check warns while one exists
# and a service still reads it)
pam_environment_made=
make_pam_environment() {
	[ -z "$pam_environment_made" ] || return 0
	pam_environment_made=1
	setpriv --reuid="$user" --regid="$user" --init-groups sh -c \
		"printf '%s\n' 'PAGER DEFAULT=less' 'MY_DIR DEFAULT=@{HOME}/work' >'$home/.pam_environment'"
}

# run N LINE KIND EXPECT
run_block() {
	local n=$1 line=$2 kind=$3 expect=$4 out=$T/out.$1 rc=0 what
	what="README.md:$line: the $kind block runs"
	# su is setuid: in secure-execution mode the loader ignores the
	# preload, so the sanitizer build's module cannot load in it
	if [ "${#asan[@]}" -gt 0 ] && [ "$kind" = user ] && grep -qw su "$T/blocks/$n"; then
		skip "$what: the sanitizer build's module cannot load in setuid su (the plain build runs it)"
		return 0
	fi
	if [ "$kind" = user ]; then
		(cd "$home" && setpriv --reuid="$user" --regid="$user" --init-groups \
			env -i "${asan[@]}" HOME="$home" USER="$user" LOGNAME="$user" SHELL=/bin/bash \
			PATH="$T/bin:/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 \
			bash -e -o pipefail "$T/blocks/$n") >"$out" 2>&1 || rc=$?
	else
		(cd "$top_srcdir" && env -i "${asan[@]}" HOME=/root USER=root LOGNAME=root \
			PATH="$T/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
			LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
			bash -e -o pipefail -c 'sudo() { "$@"; }; . "$1"' block "$T/blocks/$n") >"$out" 2>&1 || rc=$?
	fi
	if [ "$rc" = 0 ]; then pass "$what"; else
		fail "$what: exit $rc" "$(cat "$T/blocks/$n")" "-- output:" "$(head -c 2000 "$out")"
	fi
	[ -n "$expect" ] || return 0
	if grep -qE -- "$expect" "$out"; then pass "README.md:$line: its output has /$expect/"; else
		fail "README.md:$line: its output has no line /$expect/" "$(head -c 2000 "$out")"
	fi
}
while IFS=$'\t' read -r n line ann; do
	read -r kind arg <<<"$ann"
	case $kind in user | root) ;; *) continue ;; esac
	expect=
	case $arg in expect=*) expect=${arg#expect=} ;; esac
	if grep -q import-pam-environment "$T/blocks/$n"; then make_pam_environment; fi
	run_block "$n" "$line" "$kind" "$expect"
done <"$T/blocks/list"

finish
