#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tools/deps.sh - installs the build and test dependencies (./dev deps, and
# before every ./dev command that builds): nothing when every command and
# library is there already, else the Debian/Ubuntu packages below with
# apt-get (through sudo when not root).  README.md lists the Fedora, Arch
# and Alpine names.
set -euo pipefail

debian_pkgs=(build-essential autoconf automake libtool pkg-config libpam0g-dev
	libcmocka-dev pamtester libpam-modules libpam-wrapper systemd valgrind
	python3 jq mandoc hyperfine musl-tools cmake clang util-linux passwd
	clang-tools clang-format cppcheck man-db groff-base
	debhelper lintian rpm rpmlint zsh meson ninja-build dpkg-dev flex bison reuse
	tar git curl wget tcl libglib2.0-bin dbus-bin ruby rsync bzip2 xz-utils gettext
	makepkg fakeroot libarchive-tools apt less)

# need_cmds: returns 0 when something is missing
need_cmds() {
	local c
	for c in autoreconf automake libtoolize pkg-config cc make python3 pamtester jq mandoc man groff hyperfine valgrind musl-gcc cmake clang-format cppcheck scan-build \
		dpkg-buildpackage dh lintian rpmbuild rpmlint zsh meson ninja dpkg-source flex bison reuse \
		git curl wget tclsh gio dbus-send ruby rsync bzip2 xz msgfmt makepkg fakeroot bsdtar \
		apt-config findmnt less; do
		command -v "$c" >/dev/null 2>&1 || return 0
	done
	pkg-config --exists cmocka pam 2>/dev/null || return 0
	[ -x /usr/lib/systemd/user-environment-generators/30-systemd-environment-d-generator ] || return 0
	[ -e /usr/lib/x86_64-linux-gnu/libpam_wrapper.so ] || ls /usr/lib/*/libpam_wrapper.so >/dev/null 2>&1 || return 0
	return 1
}

need_cmds || exit 0
sudo=
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then sudo=sudo; else
		echo "dev: missing build dependencies and not root; install: ${debian_pkgs[*]}" >&2
		exit 1
	fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "dev: not a Debian system; install the packages listed in README.md" >&2
	exit 1
fi
echo "dev: installing build and test dependencies" >&2
$sudo apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${debian_pkgs[@]}" >/dev/null
