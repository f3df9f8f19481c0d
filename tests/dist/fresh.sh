#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/dist/fresh.sh - README.md's and DEVELOPING.md's claim that
# `./dev demo` works on a fresh Debian 12 machine, checked on one: a
# minimal Debian 12 (debootstrap --variant=minbase bookworm) in
# _build/fresh, the source tree's committed files (git ls-files, as a
# clone has them; the whole tree without _build/ outside git) copied into
# it, and `./dev demo` run there by chroot as root, with /proc, /dev and
# /sys mounted for it and unmounted after.  The bootstrapped system is
# cached in _build/fresh-bookworm.tar (made by the first run).  It passes when the demo ends
# with "the module and envd agree".  Then, with nothing installed but what
# the demo asked for, the README's own commands run there as a new user
# would (tests/docs/readme.sh in the demo's build tree: enable with
# pam-auth-update, write a file, envd show and check, a real su -l login,
# the migration): a second check.  Then the Debian package path a new
# admin walks (deb_walk, below): README.md's Debian recipe run as written
# (build dependencies, dpkg-buildpackage with its check step, install), in
# the chroot with only /proc, /dev and /sys mounted, its root no mount
# point as in a buildd's chroot; a user's file; a real su -l; ssh through
# Debian's own sshd stack; envd audit; disable with pam-auth-update; a
# login without the values; purge.  Prints the time each part took and
# the packages the demo installed on stderr, PASS:/FAIL: lines on stderr,
# and "pass fail skip" on stdout, like a stage.  Root and the Debian archive are needed: without root it
# is skipped; when debootstrap cannot fetch (no network) it is skipped,
# or under CI=true failed.  ENVD_DEBIAN_MIRROR overrides the mirror
# (http://deb.debian.org/debian).  About two minutes for the demo and
# the README's commands (the first run one more, for debootstrap), and
# the package path as long again and more.
set -uo pipefail
# shellcheck source=tools/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../tools/common.sh"

say() { echo "== fresh: $*" >&2; }
if [ "$(id -u)" != 0 ]; then
	say "SKIP: needs root (debootstrap, chroot)"
	echo "0 0 1"
	exit 0
fi
stage_needs debootstrap chroot mount umount tar

dir=$top/_build/fresh
root=$dir/root
log=$top/_build/fresh.log
mirror=${ENVD_DEBIAN_MIRROR:-http://deb.debian.org/debian}
mounted=()
SSHD_PID=
# stop_pid PID: SIGTERM, up to 10 s, then SIGKILL
stop_pid() {
	local i
	kill "$1" 2>/dev/null || return 0
	for i in $(seq 1 100); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -9 "$1" 2>/dev/null || true
}
# chroot_pids: the processes left running in the chroot (all started by
# this test: the sshd and what the walk's logins left)
chroot_pids() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && echo "${p#/proc/}"
	done
	return 0
}
unmount_all() {
	local i p
	[ -z "$SSHD_PID" ] || stop_pid "$SSHD_PID"
	SSHD_PID=
	for p in $(chroot_pids); do stop_pid "$p"; done
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount -R "${mounted[i]}" 2>/dev/null || umount -R -l "${mounted[i]}" 2>/dev/null || true
	done
	mounted=()
}
cleanup() {
	unmount_all
	# nothing below root may still be mounted when it is removed
	if ! grep -qF " $root/" /proc/self/mounts; then rm -rf "$dir"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
cleanup
mkdir -p "$dir"

# the bootstrapped system is kept as a tarball: a minbase system is as
# fresh from the cache as from the archive, and the demo's own apt-get
# still fetches from the archive (rm the tarball to bootstrap anew)
cache=$top/_build/fresh-bookworm.tar
start=$(date +%s)
if [ -s "$cache" ]; then
	say "a minimal Debian 12 from $cache"
	mkdir -p "$root"
	tar -xpf "$cache" -C "$root" --numeric-owner || { rm -f "$cache"; say "FAIL: $cache"; echo "0 1 0"; exit 1; }
	: >"$log"
else
	say "debootstrap --variant=minbase bookworm ($mirror)"
	if debootstrap --variant=minbase bookworm "$root" "$mirror" >"$log" 2>&1; then
		tar -cpf "$cache.tmp" -C "$root" --numeric-owner . && mv "$cache.tmp" "$cache"
	else
		rm -f "$cache.tmp"
		boot_failed=1
	fi
fi
if [ -n "${boot_failed:-}" ]; then
	if [ "${CI:-}" = true ]; then
		say "FAIL: debootstrap failed (CI=true); end of $log:"
		tail -n 20 "$log" >&2
		echo "0 1 0"
		exit 1
	fi
	say "SKIP: debootstrap failed (no Debian archive reachable?); end of $log:"
	tail -n 5 "$log" >&2
	echo "0 0 1"
	exit 0
fi
boot=$(($(date +%s) - start))
chroot "$root" dpkg-query -W -f '${Package}\n' | sort >"$dir/before"

# the source tree as a clone has it
mkdir -p "$root/src"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$root/src"
else
	tar -C "$top" --exclude=./_build -cf - . | tar -xf - -C "$root/src"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
# mount_system: /proc, /dev and /sys in the chroot
mount_system() {
	mount -t proc proc "$root/proc" && mounted+=("$root/proc")
	mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev" && mounted+=("$root/dev")
	mount -t sysfs sysfs "$root/sys" && mounted+=("$root/sys")
}
# the root a mount point of its own: readme.sh's unshare -m makes its
# mounts private, which a chroot's plain directory cannot be
mount --bind "$root" "$root" && mount --make-private "$root" && mounted+=("$root")
mount_system

say "./dev demo in the fresh Debian 12"
start=$(date +%s)
rc=0
timeout 1200 chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	bash -c 'cd /src && ./dev demo' >>"$log" 2>&1 || rc=$?
demo=$(($(date +%s) - start))
chroot "$root" dpkg-query -W -f '${Package}\n' | sort >"$dir/after"
requested=$(sed -n 's/^dev: installing the demo dependencies: //p' "$log")
added=$(comm -13 "$dir/before" "$dir/after" | wc -l)
say "the base system ${boot}s, ./dev demo ${demo}s; it asked for: ${requested:-nothing}; $added packages installed"
if [ "$rc" != 0 ] || ! grep -q '^== the module and envd agree' "$log"; then
	say "FAIL: ./dev demo on a fresh Debian 12 (exit $rc); end of $log:"
	tail -n 40 "$log" >&2
	echo "0 1 0"
	exit 1
fi
say "PASS: ./dev demo on a fresh Debian 12"

say "the README's commands in the fresh Debian 12 (tests/docs/readme.sh)"
rc=0
timeout 900 chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	bash -c 'cd /src/_build/plain && make check TESTS=tests/docs/readme.sh; s=$?; cat tests/docs/readme.log; exit $s' \
	>"$dir/readme.log" 2>&1 || rc=$?
# every block run (a skip would hide a command the fresh system lacks)
checks=$(sed -n 's/^readme.sh: \([0-9]*\) checks, 0 failed$/\1/p' "$dir/readme.log")
npass=1 nfail=0
if [ "$rc" = 0 ] && [ "${checks:-0}" -ge 30 ] && ! grep -q '^skip' "$dir/readme.log" &&
	grep -q '^ok - README.md:[0-9]*: its output has /^PATH=' "$dir/readme.log"; then
	say "PASS: the README's commands on a fresh Debian 12, a real su -l login included ($checks checks)"
	npass=$((npass + 1))
else
	say "FAIL: the README's commands on a fresh Debian 12 (exit $rc); end of the log:"
	grep -E '^(FAIL|skip)' "$dir/readme.log" | head -n 20 >&2
	tail -n 20 "$dir/readme.log" >&2
	nfail=$((nfail + 1))
fi

# shellcheck source=tests/dist/deb_walk.sh
. "$top/tests/dist/deb_walk.sh"
deb_walk
echo "$npass $nfail 0"
[ "$nfail" = 0 ]
