# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# shellcheck shell=bash
# shellcheck disable=SC2154 # root, dir and top are fresh.sh's
# tests/dist/deb_walk.sh - sourced by tests/dist/fresh.sh (never run): the
# Debian package path a new admin walks, in fresh.sh's Debian 12 chroot,
# after the demo and the README's commands:
#   1. README.md's Debian recipe as written (its block annotated
#      "readme-test: other debian/control", sudo a no-op for root) in a
#      second copy of the source tree: the build dependencies, the build
#      with its check step, the install.  The chroot is then as a buildd's:
#      only /proc, /dev and /sys are mounted in it, its root is no mount
#      point, so the tests that need a private mount namespace skip;
#   2. a user's ~/.config/environment.d file; a real su -l login gets it;
#   3. ssh through Debian's own /etc/pam.d/sshd: openssh-server installed
#      in the chroot, its sshd started by this test on a free port of
#      127.0.0.1 and stopped by its pid; the session gets the values;
#   4. envd audit names sshd's pam_env.so user_readenv=1;
#   5. pam-auth-update --disable pam_envd pam_envd-cleanup, then su -l and
#      ssh bash -l get none of the user's values;
#   6. apt-get purge: the packages, the snippet and the lines gone, a login
#      without the values.
# Uses fresh.sh's root, dir, top, say, unmount_all, mount_system,
# SSHD_PID, npass and nfail.

walk_pass() {
	say "PASS: deb: $1"
	npass=$((npass + 1))
}
walk_fail() {
	say "FAIL: deb: $1"
	shift
	[ $# = 0 ] || printf '%s\n' "$@" | head -n 40 >&2
	nfail=$((nfail + 1))
}
# in_root CMD...: CMD in the chroot as root, with a clean environment
# (apt-get answers yes: walk-apt.conf)
in_root() {
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
		APT_CONFIG=/tmp/walk-apt.conf PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
# walk_val FILE NAME: NAME's value in an env listing
walk_val() { sed -n "s/^$2=//p" "$1" | head -n 1; }
# free_port: a TCP port of 127.0.0.1 that nothing listens on (the chroot
# shares the machine's network)
free_port() {
	local p hex
	for _ in $(seq 1 50); do
		p=$((20000 + RANDOM % 30000))
		hex=$(printf '%04X' "$p")
		grep -q ":$hex [0-9A-F:]* 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null || { echo "$p"; return 0; }
	done
	return 1
}

walk_user=walker
walk_port=
walk_home=/home/$walk_user
# walk_login KIND OUT: the environment of a login of the user: su (su -l,
# env), ssh (ssh, env), ssh-l (ssh, bash -l -c env)
walk_login() {
	local ssh=(ssh -T -i /root/walk_key -p "$walk_port" -o BatchMode=yes -o StrictHostKeyChecking=no
		-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR "$walk_user@127.0.0.1")
	case $1 in
	su) in_root timeout 60 su -l "$walk_user" -c env ;;
	ssh) in_root timeout 60 "${ssh[@]}" env ;;
	ssh-l) in_root timeout 60 "${ssh[@]}" bash -l -c env ;;
	esac >"$2" 2>"$2.err" </dev/null
}
# walk_with WHAT KIND: the login has the user's values
walk_with() {
	local f=$dir/walk/$2.env
	walk_login "$2" "$f"
	case "$(walk_val "$f" WALK_VAR)|$(walk_val "$f" PATH)" in
	"from the package|$walk_home/walk-bin:"*) walk_pass "$1: WALK_VAR and PATH ($(walk_val "$f" PATH)) from the user's file" ;;
	*) walk_fail "$1: WALK_VAR '$(walk_val "$f" WALK_VAR)', PATH '$(walk_val "$f" PATH)'" "$(head -c 600 "$f.err")" ;;
	esac
}
# walk_without WHAT KIND: the login has none of the user's values
walk_without() {
	local f=$dir/walk/$2.env
	walk_login "$2" "$f"
	if ! grep -q '^PATH=/' "$f"; then
		walk_fail "$1: no login ($(head -c 600 "$f.err"))"
	elif grep -q '^WALK_VAR=' "$f" || grep -q "^PATH=.*$walk_home/walk-bin" "$f"; then
		walk_fail "$1: the user's values arrived: WALK_VAR '$(walk_val "$f" WALK_VAR)', PATH '$(walk_val "$f" PATH)'"
	else
		walk_pass "$1: none of the user's values (PATH $(walk_val "$f" PATH))"
	fi
}

deb_walk() {
	local w=$dir/walk log=$dir/walk/build.log start t rc added f
	say "the Debian package path in the fresh Debian 12 (README.md's recipe as root, then its use)"
	# the chroot as a buildd's: no mount of its root onto itself
	unmount_all
	mount_system
	mkdir -p "$w"
	printf 'APT::Get::Assume-Yes "true";\n' >"$root/tmp/walk-apt.conf"

	# ---- 1. README.md's recipe, as written
	awk 'on && /^```/ { exit }
		on { print; next }
		/^```/ && prev ~ /^<!-- readme-test: other debian\/control -->$/ { on = 1; next }
		/[^ \t]/ { prev = $0 }' "$top/README.md" >"$root/tmp/readme-debian.sh"
	if ! grep -q dpkg-buildpackage "$root/tmp/readme-debian.sh"; then
		walk_fail "README.md has no Debian recipe (a block annotated readme-test: other debian/control)"
		return
	fi
	cat >"$root/tmp/readme-debian-run.sh" <<'EOF'
set -e -o pipefail
sudo() { "$@"; }
cd /pkg/pam_envd
. /tmp/readme-debian.sh
EOF
	# a copy of the source tree as a clone has it (the demo built in /src)
	rm -rf "$root/pkg"
	mkdir -p "$root/pkg/pam_envd"
	if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$top" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$root/pkg/pam_envd"
	else
		tar -C "$top" --exclude=./_build -cf - . | tar -xf - -C "$root/pkg/pam_envd"
	fi
	in_root dpkg-query -W -f '${Package}\n' | sort >"$w/before"
	start=$(date +%s)
	rc=0
	timeout 2400 chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive APT_CONFIG=/tmp/walk-apt.conf \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		bash /tmp/readme-debian-run.sh >"$log" 2>&1 || rc=$?
	t=$(($(date +%s) - start))
	in_root dpkg-query -W -f '${Package}\n' | sort >"$w/after"
	added=$(comm -13 "$w/before" "$w/after" | wc -l)
	if [ "$rc" = 0 ]; then
		walk_pass "README.md's Debian recipe as root: build dependencies, build with checks, install (${t}s, $added packages added)"
	else
		walk_fail "README.md's Debian recipe as root (exit $rc); failed tests and the end of $log:" \
			"$(grep -E '^(FAIL|ERROR):' "$log")" "$(tail -n 30 "$log")"
		return
	fi
	if grep -q 'dh_auto_test' "$log" && grep -q '^# TOTAL: ' "$log" && grep -qE '^PASS: tests/pam/pam_stack$' "$log" &&
		! grep -qE '^(FAIL|ERROR|XPASS): ' "$log"; then
		walk_pass "the build's check step ran make check as root: $(grep -c '^PASS: ' "$log") passed, $(grep -c '^SKIP: ' "$log") skipped"
	else
		walk_fail "the build's check step did not run the suite (see $log)"
	fi
	f=$root/pkg/pam_envd/tests/docs/readme.log
	if grep -q '^SKIP: tests/docs/readme.sh' "$log" && grep -q '^skip - no private mount namespace' "$f"; then
		walk_pass "in the buildd-like chroot readme.sh skips: $(grep -m 1 '^skip - ' "$f" | cut -c 8-)"
	else
		walk_fail "readme.sh in the buildd-like chroot: $(grep -E '^(PASS|FAIL|SKIP|ERROR): tests/docs/readme.sh' "$log")"
	fi
	if [ -z "$(find "$root/pkg" -maxdepth 1 -name 'pam-envd-selinux_*.deb')" ] &&
		! in_root dpkg-query -W selinux-policy-dev >/dev/null 2>&1 &&
		[ "$(in_root dpkg-query -W -f '${db:Status-Abbrev}' libpam-envd envd 2>/dev/null)" = "ii ii " ]; then
		walk_pass "libpam-envd and envd installed; neither pam-envd-selinux nor selinux-policy-dev there"
	else
		walk_fail "the packages: $(in_root dpkg-query -W -f '${Package} ${db:Status-Abbrev}\n' libpam-envd envd selinux-policy-dev 2>&1 | xargs)" \
			"$(ls "$root/pkg")"
	fi

	# ---- 2. the user's file and a real su -l
	in_root useradd -m -d "$walk_home" -s /bin/bash "$walk_user" || { walk_fail "useradd $walk_user"; return; }
	mkdir -p "$root$walk_home/.config/environment.d"
	# shellcheck disable=SC2016 # expanded by pam_envd
	printf 'WALK_VAR=from the package\nPATH=$HOME/walk-bin:$PATH\n' >"$root$walk_home/.config/environment.d/50-walk.conf"
	in_root chown -R "$walk_user:" "$walk_home/.config"
	walk_with "su -l with the packages installed" su

	# ---- 3. ssh through Debian's sshd stack
	printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	rc=0
	in_root apt-get install --no-install-recommends openssh-server >"$w/ssh-install.log" 2>&1 || rc=$?
	rm -f "$root/usr/sbin/policy-rc.d"
	walk_port=$(free_port) || { walk_fail "no free port on 127.0.0.1"; return; }
	if [ "$rc" != 0 ]; then
		walk_fail "apt-get install openssh-server:" "$(tail -n 20 "$w/ssh-install.log")"
		return
	fi
	in_root ssh-keygen -q -t ed25519 -N '' -f /root/walk_key >/dev/null
	mkdir -p "$root$walk_home/.ssh" "$root/run/sshd"
	cp "$root/root/walk_key.pub" "$root$walk_home/.ssh/authorized_keys"
	in_root chown -R "$walk_user:" "$walk_home/.ssh"
	chmod 700 "$root$walk_home/.ssh"
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
		/usr/sbin/sshd -D -e -p "$walk_port" -o ListenAddress=127.0.0.1 -o PidFile=none \
		>"$w/sshd.log" 2>&1 &
	SSHD_PID=$!
	for _ in $(seq 1 50); do
		grep -q ":$(printf '%04X' "$walk_port") [0-9A-F:]* 0A " /proc/net/tcp && break
		sleep 0.2
	done
	if grep -q 'pam_env.so.*user_readenv=1' "$root/etc/pam.d/sshd"; then
		walk_pass "Debian's /etc/pam.d/sshd, as installed: $(grep -m 1 'user_readenv' "$root/etc/pam.d/sshd")"
	else
		walk_fail "/etc/pam.d/sshd has no pam_env.so user_readenv=1 line" "$(cat "$root/etc/pam.d/sshd")"
	fi
	walk_with "ssh to sshd on 127.0.0.1:$walk_port, Debian's stack" ssh

	# ---- 4. envd audit: sshd's pam_env.so reads ~/.pam_environment as root
	in_root envd audit sshd >"$w/audit.out" 2>&1
	if grep -q 'user_readenv' "$w/audit.out"; then
		walk_pass "envd audit sshd names user_readenv: $(grep -m 1 user_readenv "$w/audit.out")"
	else
		walk_fail "envd audit sshd says nothing of pam_env.so user_readenv=1:" "$(cat "$w/audit.out")"
	fi

	# ---- 5. disabled with the distribution's tool
	if in_root pam-auth-update --disable pam_envd pam_envd-cleanup >"$w/disable.log" 2>&1 &&
		! grep -q pam_envd "$root/etc/pam.d/common-session"; then
		walk_pass "pam-auth-update --disable pam_envd pam_envd-cleanup: common-session without pam_envd"
	else
		walk_fail "pam-auth-update --disable:" "$(cat "$w/disable.log")" "$(grep pam_envd "$root/etc/pam.d/common-session")"
	fi
	walk_without "su -l, disabled" su
	walk_without "ssh bash -l, disabled" ssh-l

	# ---- 6. purged
	if in_root apt-get purge libpam-envd envd >"$w/purge.log" 2>&1 &&
		! in_root dpkg-query -W -f '${db:Status-Abbrev}\n' libpam-envd envd 2>/dev/null | grep -q '^.[^n]' &&
		[ ! -e "$root/etc/profile.d/pam_envd.sh" ] && [ ! -e "$root/usr/bin/envd" ] &&
		! grep -rq pam_envd "$root/etc/pam.d" "$root/usr/share/pam-configs"; then
		walk_pass "apt-get purge libpam-envd envd: the packages, the snippet and every pam_envd line gone"
	else
		walk_fail "apt-get purge:" "$(tail -n 10 "$w/purge.log")" "$(grep -rl pam_envd "$root/etc/pam.d" "$root/usr/share/pam-configs" 2>&1)"
	fi
	walk_without "su -l, purged" su

	stop_pid "$SSHD_PID"
	SSHD_PID=
	say "the Debian package path: the recipe ${t}s, the whole path $(($(date +%s) - start))s"
}
