#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/pkg/deb.sh OUT - the Debian packages, built and used for real.
#
# 1. dpkg-buildpackage -us -uc -b in OUT/src, a copy of the source tree's
#    files (the tracked ones and new ones not ignored), unless OUT already
#    holds the .debs of this version (./dev test builds them once), with
#    its check step (dh_auto_test: the whole make check, with the HOME
#    debhelper sets), as a buildd builds: as root, as the unprivileged
#    build user envd-build (created when missing, as the user stage does)
#    in a directory of its own below /tmp that OUT links to, HOME an
#    absent directory as sbuild sets it; the root-only tests skip.  The
#    build's time is printed.  pam-envd-selinux holds the policy module,
#    and the build profile pkg.pam-envd.noselinux leaves that package out.
# 2. lintian on the .debs and the .changes: no error, no warning.
# 3. As root, twice: apt-get install of libpam-envd and envd; the line in
#    /etc/pam.d/common-session after pam_systemd; a real user's
#    environment.d variables reach a pamtester session of a service that
#    includes common-session and (first cycle) real login shells: bash,
#    dash and zsh through su -l, bash through login on a pseudo-terminal,
#    and cron (first cycle): none of the user's variables in a session of
#    Debian's real /etc/pam.d/cron, pamtester's and a real job's of the
#    real daemon, and all of them with the opt-in pair of pam_envd(8);
#    and pam-envd-selinux installed and purged (SELinux disabled: the
#    policy store untouched);
#    then apt-get remove and dpkg --purge, after which /etc/pam.d,
#    /var/lib/pam, /etc/profile.d, /usr/share/pam-configs and every path of
#    the packages are as they were.  Under the lock of tests/e2e/install.sh;
#    refused when pam_envd is installed already, from source or a package.
#
# Prints PASS:, FAIL: and SKIP: lines (counted by ./dev) and exits 1 on
# any failure.
set -u
export LC_ALL=C
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: tests/pkg/deb.sh OUT}
out_arg=$out
mkdir -p "$out"
out=$(cd "$out" && pwd)
. "$top/tests/lib/harness.sh"
harness_init deb pkg

version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$top/debian/changelog")
arch=$(dpkg --print-architecture 2>/dev/null)
debs=("$out/libpam-envd_${version}_$arch.deb" "$out/envd_${version}_$arch.deb")
seldeb=$out/pam-envd-selinux_${version}_all.deb

# ---- 1. build -------------------------------------------------------------------
need_cmds dpkg dpkg-buildpackage dpkg-checkbuilddeps dh dh_listpackages lintian
build_user=${ENVD_BUILD_USER:-envd-build}
if [ ! -f "${debs[0]}" ] || [ ! -f "${debs[1]}" ] || [ ! -f "$seldeb" ]; then
	run=()
	if [ "$(id -u)" = 0 ]; then
		need_cmds useradd setpriv
		if ! id -u "$build_user" >/dev/null 2>&1 &&
			! useradd -r -m -d "/var/lib/$build_user" -s /bin/sh -c "pam_envd build user" \
				"$build_user" >"$out/useradd.log" 2>&1; then
			fail "cannot create the build user $build_user: $(cat "$out/useradd.log")"
			finish
		fi
		# the checkout may lie below a directory only root can enter:
		# the build user works below /tmp, OUT links to it
		w=$(mktemp -d /tmp/pam_envd-deb.XXXXXX)
		[ ! -L "$out_arg" ] || rm -rf "$(readlink -f "$out_arg")"
		rm -rf "$out_arg"
		ln -s "$w" "$out_arg"
		out=$w
		run=(setpriv --reuid="$build_user" --regid="$build_user" --init-groups
			env HOME=/nonexistent-pam_envd-build USER="$build_user" LOGNAME="$build_user")
	fi
	rm -rf "$out/src" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
	mkdir -p "$out/src"
	(cd "$top" && git ls-files -co --exclude-standard 2>/dev/null | grep -v '^_build/' |
		tar -cf - -T -) | tar -xf - -C "$out/src" || { fail "copying the source tree"; finish; }
	[ ${#run[@]} = 0 ] || chown -R "$build_user:" "$out/"
	start=$(date +%s)
	if (cd "$out/src" && "${run[@]}" env DEB_BUILD_OPTIONS="parallel=$(nproc 2>/dev/null || echo 2)" \
		dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
		pass "dpkg-buildpackage -us -uc -b as $("${run[@]}" id -un), check step included: $(($(date +%s) - start))s"
	else
		fail "dpkg-buildpackage -us -uc -b as $("${run[@]}" id -un); failed tests and the end of $out/build.log:"
		grep -E '^(FAIL|ERROR):' "$out/build.log"
		tail -n 30 "$out/build.log"
		finish
	fi
	# the check step ran the suite, and nothing failed in it
	if grep -qE '^PASS: tests/pam/pam_stack$' "$out/build.log" && grep -q '^# TOTAL: ' "$out/build.log" &&
		! grep -qE '^(FAIL|ERROR|XPASS): ' "$out/build.log"; then
		pass "dh_auto_test ran make check: $(grep -c '^PASS: ' "$out/build.log") passed, $(grep -c '^SKIP: ' "$out/build.log") skipped"
	else
		fail "dh_auto_test did not run the suite (no tests/pam/pam_stack result in $out/build.log)"
	fi
fi

debs=("$out/libpam-envd_${version}_$arch.deb" "$out/envd_${version}_$arch.deb")
seldeb=$out/pam-envd-selinux_${version}_all.deb

# the build profile pkg.pam-envd.noselinux: the two packages README.md
# installs, without pam-envd-selinux and its build dependency
listed=$(cd "$out/src" && DEB_BUILD_PROFILES=pkg.pam-envd.noselinux dh_listpackages 2>&1 | sort | xargs)
if [ "$listed" = "envd libpam-envd" ]; then
	pass "profile pkg.pam-envd.noselinux: dh_listpackages gives envd libpam-envd"
else
	fail "profile pkg.pam-envd.noselinux: dh_listpackages gives '$listed', not 'envd libpam-envd'"
fi
# what dpkg-checkbuilddeps finds unmet against an empty package database:
# every build dependency, with the profile and without it
mkdir -p "$out/nodb/updates"
: >"$out/nodb/status"
unmet() { (cd "$out/src" && dpkg-checkbuilddeps --admindir="$out/nodb" "$@" 2>&1) | sed -n 's/.*Unmet build dependencies: //p'; }
all=$(unmet) noselinux=$(unmet -P pkg.pam-envd.noselinux)
if grep -qw selinux-policy-dev <<<"$all" && ! grep -qw selinux-policy-dev <<<"$noselinux" &&
	grep -qw libcmocka-dev <<<"$noselinux"; then
	pass "profile pkg.pam-envd.noselinux: build dependencies without selinux-policy-dev ($noselinux)"
else
	fail "profile pkg.pam-envd.noselinux: build dependencies '$noselinux' (without it: '$all')"
fi

# the policy module's package: the module, a policy package (its magic)
if dpkg-deb -c "$seldeb" 2>/dev/null | grep -q ' \./usr/share/selinux/packages/pam_envd\.pp$' &&
	[ "$(dpkg-deb --fsys-tarfile "$seldeb" | tar -xOf - ./usr/share/selinux/packages/pam_envd.pp |
		od -An -tx1 -N4 | tr -d ' ')" = 8fff7cf9 ]; then
	pass "pam-envd-selinux holds /usr/share/selinux/packages/pam_envd.pp, a policy package"
else
	fail "pam-envd-selinux: no policy package /usr/share/selinux/packages/pam_envd.pp" "$(dpkg-deb -c "$seldeb" 2>&1)"
fi

# ---- 2. lintian -----------------------------------------------------------------
lintian -I --pedantic "$out"/*.deb "$out"/*.changes >"$out/lintian.log" 2>&1
if grep -qE '^[EW]: ' "$out/lintian.log"; then
	fail "lintian found errors or warnings:"
	grep -E '^[EW]: ' "$out/lintian.log"
else
	pass "lintian: no error or warning ($(grep -cE '^[IP]: ' "$out/lintian.log") infos and pedantic tags)"
fi

# ---- 3. install, use, remove, purge -----------------------------------------------
[ "$(id -u)" = 0 ] || { skip "install: needs root"; finish; }
have_cmds apt-get flock pamtester useradd userdel su script python3 timeout ||
	{ skip "install: $H_WHY"; finish; }

lockdir=/run/lock
[ -d "$lockdir" ] || lockdir=/tmp
exec 9>"$lockdir/pam_envd-install-test.lock"
flock -w 600 9 || { skip "install: another run held the install lock for 600s"; finish; }

# refuse when any pam_envd is on the system: never clobber a real one
for p in libpam-envd envd; do
	if dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -qv 'not-installed'; then
		skip "install: package $p is installed or has configuration files; not touching it"
		finish
	fi
done
for f in /usr/bin/envd /usr/local/bin/envd /etc/profile.d/pam_envd.sh /usr/lib/*/pam_envd \
	/usr/share/pam-configs/pam_envd /usr/share/pam-configs/pam_envd-cleanup /etc/pam_envd /lib/*/security/pam_envd.so \
	/usr/lib/*/security/pam_envd.so /usr/lib/security/pam_envd.so \
	/usr/lib64/security/pam_envd.so /usr/local/lib/*/security/pam_envd.so; do
	if [ -e "$f" ]; then
		skip "install: $f exists: pam_envd is installed on this system; not touching it"
		finish
	fi
done

make_tmpdir TMP pam-envd-deb /tmp
chmod 755 "$TMP"
USERS=()
SERVICE=
installed=no
# shellcheck disable=SC2317 # run at exit
cleanup() {
	local u
	! declare -F cron_restore >/dev/null || cron_restore
	if [ "$installed" = yes ]; then
		dpkg --purge libpam-envd envd >/dev/null 2>&1
	fi
	rm -f /etc/pam_envd/no-profile-path
	rmdir /etc/pam_envd 2>/dev/null
	[ -z "$SERVICE" ] || rm -f "/etc/pam.d/$SERVICE"
	for u in "${USERS[@]}"; do userdel -f "$u" >/dev/null 2>&1; done
}
at_exit cleanup

# the paths the packages hold, for the before/after comparison
for d in "${debs[@]}"; do dpkg-deb -c "$d"; done | awk '{print $6}' | sed 's|^\./|/|; s|/$||' |
	grep -v '^$' | sort -u >"$TMP/paths"

# snapshot FILE: type, mode, owner and checksum of everything that the
# packages or pam-auth-update may touch
snapshot() {
	{
		find /etc/pam.d /var/lib/pam /etc/profile.d /usr/share/pam-configs /etc/pam_envd \
			-printf '%p %y %m %u:%g\n' 2>/dev/null
		find /etc/pam.d /var/lib/pam /etc/profile.d /usr/share/pam-configs -type f \
			-exec sha256sum {} + 2>/dev/null
		# other tests' services come and go meanwhile (they do not take
		# this lock): not ours to compare
		while IFS= read -r p; do
			if [ -L "$p" ] || [ -e "$p" ]; then
				stat -c '%n %F %a %U:%G' "$p"
				[ -f "$p" ] && sha256sum "$p"
			else
				echo "$p absent"
			fi
		done <"$TMP/paths"
	} | grep -v '/etc/pam.d/pam-envd-test-' | sort >"$1"
}
same_as_before() { # WHAT SNAPSHOT
	if diff -u "$TMP/before" "$2" >"$TMP/diff"; then
		pass "$1: /etc/pam.d, /var/lib/pam, /etc/profile.d, the profiles and the packages' paths as before"
	else
		fail "$1: differences from before (- before, + now):"
		grep '^[-+][^-+]' "$TMP/diff" | head -n 40
	fi
}

# ---- the users, their files and the pamtester service
mkuser() { # NAME SHELL
	USERS+=("$1")
	useradd -m -d "$TMP/home/$1" -s "$2" -K UMASK=022 "$1" >/dev/null 2>&1 ||
		{ fail "useradd $1"; finish; }
}
mkdir -p "$TMP/home"
u=pedeb$$
ctl=pedebc$$
mkuser "$u" /bin/bash
mkuser "$ctl" /bin/bash
h=$TMP/home/$u
su "$u" -s /bin/sh -c "mkdir -p '$h/.config/environment.d'"
cat >"$h/.config/environment.d/50-pkg.conf" <<'EOF'
PATH=/opt/pam-envd-deb-test/bin:$PATH:$HOME/tail
PKG_TEST=from the package's module
XDG_DATA_DIRS=$HOME/share${XDG_DATA_DIRS:+:$XDG_DATA_DIRS}
EOF
chown "$u:" "$h/.config/environment.d/50-pkg.conf"
cat >"$TMP/record" <<'EOF'
#!/bin/sh
case $PAM_TYPE in
open_session) /usr/bin/env >"$1/pamtester.env" ;;
close_session) /usr/bin/env >"$1/pamtester.close.env" ;;
esac
EOF
chmod 755 "$TMP/record"
SERVICE=pam-envd-deb-test-$$
cat >"/etc/pam.d/$SERVICE" <<EOF
auth     required pam_permit.so
account  required pam_permit.so
@include common-session
session  optional pam_exec.so $TMP/record $TMP
EOF

snapshot "$TMP/before"
val() { sed -n "s/^$2=//p" "$1" | head -n 1; }

# login_shells: the user's environment.d PATH composed over the one the
# distribution's profile sets, and the other variables as the module set
# them, in each kind of login shell
login_shells() {
	local f path_ctl want kind w x xok
	local want_login="/opt/pam-envd-deb-test/bin:/usr/local/bin:/usr/bin:/bin:$h/tail"
	# what the profile sets, from a user without files
	# shellcheck disable=SC2016 # the login shell expands it
	timeout 60 su -l "$ctl" -c 'echo "$PATH"' >"$TMP/ctl.path" 2>"$TMP/su.err" </dev/null
	path_ctl=$(cat "$TMP/ctl.path")
	want="/opt/pam-envd-deb-test/bin:$path_ctl:$h/tail"
	case $path_ctl in
	/*) ;;
	*) fail "su -l $ctl: no PATH ($(head -c 300 "$TMP/su.err"))"; return ;;
	esac
	for kind in bash dash zsh login; do
		f=$TMP/$kind.env
		rm -f "$f"
		case $kind in
		bash) timeout 60 su -l "$u" -c env >"$f" 2>"$TMP/su.err" </dev/null ;;
		dash) timeout 60 su -l -s /bin/dash "$u" -c env >"$f" 2>"$TMP/su.err" </dev/null ;;
		zsh)
			if [ ! -x /bin/zsh ]; then
				skip "login shell zsh: /bin/zsh is not installed"
				continue
			fi
			timeout 60 su -l -s /bin/zsh "$u" -c env >"$f" 2>"$TMP/su.err" </dev/null
			;;
		login)
			# /bin/login -f on a pseudo-terminal, as getty would run it;
			# the interactive shell writes its environment to a file
			timeout 60 python3 - "$u" "$h/login.env" >"$TMP/login.log" 2>&1 <<'EOF'
import os, pty, sys, time
user, dest = sys.argv[1], sys.argv[2]
pid, fd = pty.fork()
if pid == 0:
    os.execv("/bin/login", ["login", "-f", user])
os.write(fd, ("env >%s; exit\n" % dest).encode())
while True:
    try:
        if not os.read(fd, 4096):
            break
    except OSError:
        break
os.waitpid(pid, 0)
EOF
			mv "$h/login.env" "$f" 2>/dev/null
			;;
		esac
		if [ ! -s "$f" ]; then
			fail "login shell $kind: no environment recorded ($(head -c 300 "$TMP/su.err" "$TMP/login.log" 2>/dev/null))"
			continue
		fi
		# Debian's zsh reads no /etc/profile, and /etc/zsh/zshenv sets
		# PATH only when it is empty or /bin:/usr/bin: the login's PATH,
		# the module's composition, stays (nothing to re-apply)
		w=$want
		[ "$kind" != zsh ] || w=$want_login
		if [ "$(val "$f" PATH)" = "$w" ]; then
			pass "login shell $kind: PATH is the user's composed over the distribution's ($w)"
		else
			fail "login shell $kind: PATH '$(val "$f" PATH)', expected '$w'"
		fi
		# XDG_DATA_DIRS: the module set $h/share (the login had none);
		# other profile.d snippets may prepend theirs (flatpak's
		# /etc/profile.d/flatpak.sh does): the module's value stays
		# whole, last, and once
		x=$(val "$f" XDG_DATA_DIRS)
		case ":$x" in
		*":$h/share") xok=yes ;;
		*) xok= ;;
		esac
		case ":${x%"$h/share"}" in
		*":$h/share:"*) xok= ;;
		esac
		if [ "$(val "$f" PKG_TEST)" = "from the package's module" ] && [ -n "$xok" ]; then
			pass "login shell $kind: PKG_TEST as the module set it, XDG_DATA_DIRS ends in its value ($x)"
		else
			fail "login shell $kind: PKG_TEST '$(val "$f" PKG_TEST)', XDG_DATA_DIRS '$x' (want ...:$h/share)"
		fi
	done
	# the switch: with it, the profile's PATH stays (the problem shown)
	mkdir -p /etc/pam_envd
	touch /etc/pam_envd/no-profile-path
	timeout 60 su -l "$u" -c env >"$TMP/off.env" 2>/dev/null </dev/null
	rm -f /etc/pam_envd/no-profile-path
	rmdir /etc/pam_envd
	if [ "$(val "$TMP/off.env" PATH)" = "$path_ctl" ] &&
		[ "$(val "$TMP/off.env" PKG_TEST)" = "from the package's module" ]; then
		pass "with /etc/pam_envd/no-profile-path the snippet is off: PATH is the profile's"
	else
		fail "with /etc/pam_envd/no-profile-path: PATH '$(val "$TMP/off.env" PATH)', expected '$path_ctl'"
	fi
}

# ---- cron: the decision of pam_envd(8), CRON AND OTHER NON-INTERACTIVE
# SESSIONS.  Debian's real /etc/pam.d/cron includes
# common-session-noninteractive, where the interactive-only profiles put
# nothing: a cron session gets none of the user's variables.  The opt-in
# the manual page gives, the pair added to /etc/pam.d/cron, gives them.
# Each state is checked through a pamtester session of the cron service
# and, when no cron daemon runs here, through a real job of the real
# daemon: an @reboot job, which cron runs at once when it starts and finds
# no /run/crond.reboot (its "first start since boot" mark), so the daemon
# lives for the seconds the job takes instead of up to a minute.  A pam_exec
# recorder appended to the file shows the PAM environment at the end of
# the stack at open and at close.  The file, the crontab and cron's marks
# in /run are restored, the daemon stopped by its pid.
CRON_PID=
CRON_TAB=no
CRON_RUN=()   # cron's files in /run that were not there before
# shellcheck disable=SC2317 # run at exit
cron_restore() {
	local f
	[ -z "$CRON_PID" ] || stop_pid "$CRON_PID"
	CRON_PID=
	[ ! -f "$TMP/cron.pam" ] || cp -p "$TMP/cron.pam" /etc/pam.d/cron
	if [ "$CRON_TAB" = yes ]; then
		crontab -u "$u" -r >/dev/null 2>&1
		CRON_TAB=no
	fi
	for f in "${CRON_RUN[@]}"; do rm -f "$f"; done
	[ ! -e "$TMP/crond.reboot" ] || cp -p "$TMP/crond.reboot" /run/crond.reboot
}
# stop_pid PID: SIGTERM, up to 10 s, then SIGKILL
stop_pid() {
	local i
	kill "$1" 2>/dev/null || return 0
	for i in $(seq 1 100); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	! kill -0 "$1" 2>/dev/null || kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}
# wait_file FILE SECONDS
wait_file() {
	local i
	for i in $(seq 1 $(($2 * 10))); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
# cron_file STATE: /etc/pam.d/cron as Debian ships it (default) or with
# the pair of the manual page (opt-in), then the recorder at the end
cron_file() {
	if [ "$1" = opt-in ]; then
		awk '!c && /^session[[:space:]]/ { print "session optional pam_envd.so cleanup"; c = 1 }
			{ print }
			END { print "session optional pam_envd.so" }' "$TMP/cron.pam" >/etc/pam.d/cron
		if envd audit cron >"$TMP/audit.out" 2>&1 && [ "$(head -n 1 "$TMP/audit.out")" = "cron: ok" ]; then
			pass "cron opt-in: envd audit cron: ok with the pair of the manual page"
		else
			fail "cron opt-in: envd audit cron: $(cat "$TMP/audit.out")"
		fi
	else
		cp -p "$TMP/cron.pam" /etc/pam.d/cron
	fi
	echo "session optional pam_exec.so $TMP/cron-record $TMP/cron/rec" >>/etc/pam.d/cron
}
# cron_user_values STATE WHAT FILE: the names of the user's values in FILE
cron_user_values() {
	local got=
	grep -q '^PKG_TEST=' "$3" && got="$got PKG_TEST"
	[ "$(val "$3" XDG_DATA_DIRS)" != "$h/share" ] || got="$got XDG_DATA_DIRS"
	! grep -q '^PATH=.*/opt/pam-envd-deb-test' "$3" || got="$got PATH"
	echo "${got# }"
}
# cron_check STATE WHAT FILE WANT: FILE (a record of WHAT) has the user's
# values (WANT yes) or none of them (no)
cron_check() {
	local s=$1 what=$2 f=$3 want=$4 got
	if [ ! -s "$f" ]; then
		fail "cron $s: $what: nothing recorded"
		return
	fi
	got=$(cron_user_values "$@")
	if [ "$want" = no ] && [ -z "$got" ]; then
		pass "cron $s: $what: none of the user's variables (PATH '$(val "$f" PATH)')"
	elif [ "$want" = no ]; then
		fail "cron $s: $what: the user's $got arrived"
	elif [ "$(val "$f" PKG_TEST)" = "from the package's module" ] &&
		[ "$(val "$f" XDG_DATA_DIRS)" = "$h/share" ]; then
		pass "cron $s: $what: PKG_TEST and XDG_DATA_DIRS as the module set them (PATH '$(val "$f" PATH)')"
	else
		fail "cron $s: $what: PKG_TEST '$(val "$f" PKG_TEST)', XDG_DATA_DIRS '$(val "$f" XDG_DATA_DIRS)'"
	fi
}
# cron_state STATE WANT: a pamtester session and a job of the daemon with
# the file of STATE; WANT: the user's values at open (yes or no)
cron_state() {
	local s=$1 want=$2 pt=$TMP/cron/pamtester-$1
	cron_file "$s"
	rm -f "$TMP/cron/rec".*
	if ! timeout 60 pamtester cron "$u" open_session close_session >"$TMP/cron.log" 2>&1; then
		fail "cron $s: pamtester cron $u open_session close_session: $(cat "$TMP/cron.log")"
	fi
	mv "$TMP/cron/rec.open_session" "$pt.open" 2>/dev/null
	mv "$TMP/cron/rec.close_session" "$pt.close" 2>/dev/null
	cron_check "$s" "pamtester session of the cron service, at open" "$pt.open" "$want"
	[ "$want" = no ] || cron_check "$s" "pamtester session of the cron service, at close" "$pt.close" no
	[ "$cron_daemon" = yes ] || return 0
	rm -f "$TMP/cron/rec".* "$h/cron.env" /run/crond.reboot
	cron -f >"$TMP/cron-$s.log" 2>&1 &
	CRON_PID=$!
	if wait_file "$h/cron.env" 30 && wait_file "$TMP/cron/rec.close_session" 30; then
		echo "deb: cron $s: the job saw: $(grep -E '^(PKG_TEST|XDG_DATA_DIRS|PATH|LOGNAME)=' "$h/cron.env" | sort | tr '\n' ' ')"
		pass "cron $s: the cron daemon ran $u's @reboot job and closed its session"
		cron_check "$s" "the job of the cron daemon" "$h/cron.env" "$want"
		if [ "$want" = yes ]; then
			# cron's own variables (PATH=/usr/bin:/bin, SHELL, HOME,
			# LOGNAME, the crontab's) override the PAM environment
			case $(val "$h/cron.env" PATH) in
			*/opt/pam-envd-deb-test*) fail "cron $s: the job's PATH is the user's: '$(val "$h/cron.env" PATH)'" ;;
			*) pass "cron $s: the job's PATH is cron's own ('$(val "$h/cron.env" PATH)'), as the manual page says" ;;
			esac
			cron_check "$s" "the daemon's session, at close" "$TMP/cron/rec.close_session" no
		fi
	else
		fail "cron $s: no job record or close_session within 30 s of starting cron; cron said: $(tail -n 5 "$TMP/cron-$s.log")"
	fi
	stop_pid "$CRON_PID"
	CRON_PID=
}
cron_sessions() {
	local f other
	have_cmds cron crontab || { skip "cron: $H_WHY"; return; }
	[ -f /etc/pam.d/cron ] || { skip "cron: no /etc/pam.d/cron (package cron)"; return; }
	cp -p /etc/pam.d/cron "$TMP/cron.pam"
	mkdir -m 700 "$TMP/cron"
	# shellcheck disable=SC2016 # the recorder's shell expands them
	printf '#!/bin/sh\n/usr/bin/env >"$1.$PAM_TYPE"\n' >"$TMP/cron-record"
	chmod 755 "$TMP/cron-record"
	# the daemon: not when one runs (this one would run its jobs twice),
	# nor when another @reboot job would run with the test's
	cron_daemon=yes
	other=$(grep -ls '^[[:space:]]*@reboot' /etc/crontab /etc/cron.d/* /var/spool/cron/crontabs/* 2>/dev/null | head -n 1)
	if have_cmds pgrep && pgrep -x cron >/dev/null; then
		cron_daemon=no
		skip "cron: jobs of the real daemon: a cron daemon runs here already (pamtester sessions only)"
	elif [ -n "$other" ]; then
		cron_daemon=no
		skip "cron: jobs of the real daemon: $other has an @reboot job, which would run too (pamtester sessions only)"
	else
		[ ! -e /run/crond.reboot ] || cp -p /run/crond.reboot "$TMP/crond.reboot"
		for f in /run/crond.reboot /run/crond.pid; do
			[ -e "$f" ] || CRON_RUN+=("$f")
		done
		CRON_TAB=yes
		# shellcheck disable=SC2016 # the job's shell expands it
		echo '@reboot /usr/bin/env >"$HOME/cron.env.tmp" && mv "$HOME/cron.env.tmp" "$HOME/cron.env"' |
			crontab -u "$u" - || { fail "cron: crontab -u $u -"; cron_daemon=no; }
	fi
	cron_state default no
	cron_state opt-in yes
	cron_restore
	if cmp -s "$TMP/cron.pam" /etc/pam.d/cron; then
		pass "cron: /etc/pam.d/cron restored"
	else
		fail "cron: /etc/pam.d/cron differs from before"
	fi
}

# pam-envd-selinux installed and purged beside libpam-envd: where SELinux
# is disabled (this machine) its postinst leaves the policy store alone;
# where the store has no pam_envd the postrm does nothing either
selinux_package() {
	if ! have_cmds semodule selinuxenabled || ! semodule -l >/dev/null 2>&1; then
		skip "pam-envd-selinux: ${H_WHY:-no policy store}"
		return
	fi
	if selinuxenabled; then
		skip "pam-envd-selinux: SELinux is enabled here; its install would change the policy"
		return
	fi
	if dpkg -i "$seldeb" >"$TMP/sel.log" 2>&1 && ! semodule -l | grep -qx pam_envd; then
		pass "pam-envd-selinux installed with SELinux disabled: the policy store is left alone"
	else
		fail "pam-envd-selinux: dpkg -i, or the store has pam_envd: $(tail -n 10 "$TMP/sel.log")"
	fi
	if dpkg --purge pam-envd-selinux >>"$TMP/sel.log" 2>&1 && [ ! -e /usr/share/selinux/packages/pam_envd.pp ]; then
		pass "pam-envd-selinux purged"
	else
		fail "pam-envd-selinux: dpkg --purge: $(tail -n 10 "$TMP/sel.log")"
	fi
}

cycle() {
	local n=$1 line_sd line_ed
	if DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		-o DPkg::Lock::Timeout=900 "${debs[@]}" >"$TMP/install.log" 2>&1; then
		installed=yes
		pass "cycle $n: apt-get install ./libpam-envd_*.deb ./envd_*.deb"
	else
		installed=yes
		fail "cycle $n: apt-get install:"
		tail -n 20 "$TMP/install.log"
		return
	fi
	line_sd=$(grep -nE '^session[[:space:]]+optional[[:space:]]+pam_systemd\.so' /etc/pam.d/common-session | cut -d: -f1)
	line_ed=$(grep -nE '^session[[:space:]]+optional[[:space:]]+pam_envd\.so[[:space:]]*$' /etc/pam.d/common-session | cut -d: -f1)
	line_cl=$(grep -nE '^session[[:space:]]+optional[[:space:]]+pam_envd\.so[[:space:]]+cleanup[[:space:]]*$' /etc/pam.d/common-session | cut -d: -f1)
	# the first module of the Additional block: right after the primary
	# block's closing "session required pam_permit.so"
	line_pr=$(grep -nE '^session[[:space:]]+required[[:space:]]+pam_permit\.so' /etc/pam.d/common-session | cut -d: -f1)
	if [ -n "$line_ed" ] && [ "$(echo "$line_ed" | wc -l)" = 1 ] &&
		{ [ -z "$line_sd" ] || [ "$line_ed" -gt "$line_sd" ]; }; then
		pass "cycle $n: common-session has 'session optional pam_envd.so' (line $line_ed) after pam_systemd (line ${line_sd:-none})"
	else
		fail "cycle $n: common-session: pam_envd at '${line_ed:-none}', pam_systemd at '${line_sd:-none}'"
		cat /etc/pam.d/common-session
	fi
	# the first session line after it (pam-auth-update writes a comment
	# between the blocks)
	line_first=$(awk -v p="${line_pr:-0}" 'NR > p && /^session[[:space:]]/ { print NR; exit }' /etc/pam.d/common-session)
	if [ -n "$line_cl" ] && [ "$(echo "$line_cl" | wc -l)" = 1 ] && [ -n "$line_pr" ] &&
		[ "$line_cl" = "$line_first" ]; then
		pass "cycle $n: common-session has 'session optional pam_envd.so cleanup' first in the Additional block (line $line_cl)"
	else
		fail "cycle $n: common-session: cleanup at '${line_cl:-none}', primary block ends at '${line_pr:-none}'"
		cat /etc/pam.d/common-session
	fi
	if grep -q pam_envd /etc/pam.d/common-session-noninteractive; then
		fail "cycle $n: pam_envd in common-session-noninteractive (the profile is interactive only)"
	else
		pass "cycle $n: not in common-session-noninteractive"
	fi
	# the installed pair as envd audit sees it, in services that include
	# common-session (this test's own service stacks a helper after it)
	if envd audit login su >"$TMP/audit.out" 2>&1 &&
		[ "$(cat "$TMP/audit.out")" = "login: ok
su: ok
2 services checked, 2 apply pam_envd.so, 0 findings" ]; then
		pass "cycle $n: envd audit login su: ok"
	else
		fail "cycle $n: envd audit login su: $(cat "$TMP/audit.out")"
	fi
	if envd audit "$SERVICE" >"$TMP/audit.out" 2>&1; then
		fail "cycle $n: envd audit misses the helper after the applying line: $(cat "$TMP/audit.out")"
	else
		pass "cycle $n: envd audit names the helper after the applying line ($(grep -c "^$SERVICE: " "$TMP/audit.out") finding(s))"
	fi
	rm -f "$TMP/pamtester.env" "$TMP/pamtester.close.env"
	timeout 60 pamtester "$SERVICE" "$u" open_session close_session >"$TMP/pamtester.log" 2>&1
	if [ "$(val "$TMP/pamtester.env" PKG_TEST 2>/dev/null)" = "from the package's module" ] &&
		[ "$(val "$TMP/pamtester.env" PATH)" = "/opt/pam-envd-deb-test/bin:/usr/local/bin:/usr/bin:/bin:$h/tail" ]; then
		pass "cycle $n: pamtester session through common-session gets the user's variables"
	else
		fail "cycle $n: pamtester session: $(cat "$TMP/pamtester.log") PKG_TEST '$(val "$TMP/pamtester.env" PKG_TEST 2>/dev/null)' PATH '$(val "$TMP/pamtester.env" PATH 2>/dev/null)'"
	fi
	if [ -s "$TMP/pamtester.close.env" ] && ! grep -qE '^(PKG_TEST|XDG_DATA_DIRS)=' "$TMP/pamtester.close.env" &&
		! grep -q /opt/pam-envd-deb-test "$TMP/pamtester.close.env"; then
		pass "cycle $n: at close the helper after common-session sees none of the user's values"
	else
		fail "cycle $n: at close the helper saw: $(grep -E '^(PKG_TEST|XDG_DATA_DIRS|PATH)=' "$TMP/pamtester.close.env" 2>/dev/null | tr '\n' ' ')"
	fi
	[ "$n" != 1 ] || login_shells
	[ "$n" != 1 ] || cron_sessions
	[ "$n" != 1 ] || selinux_package

	if DEBIAN_FRONTEND=noninteractive apt-get remove -y -q -o DPkg::Lock::Timeout=900 \
		libpam-envd envd >"$TMP/remove.log" 2>&1; then
		pass "cycle $n: apt-get remove"
	else
		fail "cycle $n: apt-get remove: $(tail -n 20 "$TMP/remove.log")"
	fi
	snapshot "$TMP/removed"
	# after remove, dpkg keeps the conffile /etc/profile.d/pam_envd.sh (it
	# does nothing without /usr/bin/envd) and nothing else of ours
	grep -v '/etc/profile.d/pam_envd.sh' "$TMP/removed" >"$TMP/removed.cmp"
	grep -v '/etc/profile.d/pam_envd.sh' "$TMP/before" >"$TMP/before.cmp"
	if diff -u "$TMP/before.cmp" "$TMP/removed.cmp" >"$TMP/diff"; then
		pass "cycle $n: after remove everything is as before but the conffile /etc/profile.d/pam_envd.sh"
	else
		fail "cycle $n: after remove (- before, + now):"
		grep '^[-+][^-+]' "$TMP/diff" | head -n 40
	fi
	# apt-get cannot purge a package that came from a file once it is
	# removed (no candidate: "Unable to locate package"): dpkg does it
	if dpkg --purge libpam-envd envd >"$TMP/purge.log" 2>&1; then
		installed=no
		pass "cycle $n: dpkg --purge"
	else
		fail "cycle $n: dpkg --purge: $(tail -n 20 "$TMP/purge.log")"
	fi
	snapshot "$TMP/purged"
	same_as_before "cycle $n: after purge" "$TMP/purged"
}

cycle 1
cycle 2
finish
