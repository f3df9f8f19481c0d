#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/pkg/dm.sh DEBDIR - real display managers log in through the
# installed Debian packages (issue 18).
#
# As root, with the .debs tests/pkg/deb.sh built in DEBDIR: apt-get install
# of libpam-envd and envd (pam-auth-update puts the module in
# /etc/pam.d/common-session); a real user with ~/.config/environment.d
# files (plain variables, an expansion of what the display manager put in
# the PAM environment, a PATH prefix, refused names) and a file in
# /etc/environment.d; then each display manager logs that user in for real
# and the session's command records the environment it was given:
#
# - LightDM: autologin into an X11 session on Xvfb through /etc/X11/Xsession
#   (a private --config; a system D-Bus daemon when none runs; no logind),
#   then into a Wayland session (X-LightDM-Session-Type=wayland) on a VT;
# - greetd: initial_session on a free virtual terminal, twice: with the
#   package's /etc/profile.d snippet and with it moved away, because greetd
#   sources /etc/profile, which sets PATH anew; then a login through a
#   greeter that starts the session with XDG_SESSION_TYPE=wayland;
# - nodm: autologin into X on Xvfb; its session runs in "sh -l", so
#   /etc/profile sets PATH there too;
# - SDDM and SLiM: autologin into X on Xvfb; /etc/sddm/Xsession and SLiM's
#   "bash -login /etc/X11/Xsession" source /etc/profile as well; SDDM
#   again into a Wayland session through /etc/sddm/wayland-session;
# - GDM: its real gdm-password service through pamtester, with what GDM
#   sets before it opens a Wayland session (GDM itself cannot run here).
# A Wayland session must have XDG_SESSION_TYPE=wayland from the display
# manager as well as the user's values.
#
# The DM's PAM service gets two pam_exec recorders where an admin's logout
# script would be: on its first session line (at open it shows what the
# DM itself put in the PAM environment) and right after common-session.
# At close_session the one after common-session must see none of the
# user's values (the cleanup instance, first in common-session, took them
# back); the first-line one runs before the cleanup instance and still
# sees them, which is asserted as the documented limit.  The session logs
# out by making its command exit; then the DM is stopped by its pid.
#
# The display manager packages (lightdm, greetd, nodm, sddm, slim, xvfb,
# ...) are installed here when missing, as stage_musl installs
# musl-tools.  Everything changed is restored and everything started is
# stopped by its process id, also on failure; the packages are purged at
# the end, and the files they and this test touch are compared with how
# they were.
#
# Prints PASS:, FAIL: and SKIP: lines (counted by ./dev); exits 1 on any
# failure, 77 when it cannot run at all (not root, no .debs).
set -u
export LC_ALL=C
top=$(cd "$(dirname "$0")/../.." && pwd)
debdir=${1:?usage: tests/pkg/dm.sh DEBDIR}
debdir=$(cd "$debdir" 2>/dev/null && pwd) || debdir=$1
. "$top/tests/lib/harness.sh"
harness_init dm pkg
t_start=$(date +%s)

version=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$top/debian/changelog")
arch=$(dpkg --print-architecture 2>/dev/null)
debs=("$debdir/libpam-envd_${version}_$arch.deb" "$debdir/envd_${version}_$arch.deb")

need_root "display managers: needs root"
for d in "${debs[@]}"; do
	[ -f "$d" ] || skip_all "display managers: no $d (tests/pkg/deb.sh DEBDIR builds it)"
done
need_cmds apt-get dpkg flock useradd userdel su python3 timeout setpriv

# the display managers and what they need, installed once: the packages
# tools/deps.list tags dm (heavy: only this test uses them, so deps.sh
# leaves them out)
mapfile -t dm_pkgs < <(awk '$1 !~ /^#/ && $4 == "dm" && !seen[$3]++ { print $3 }' "$H_DEPS_LIST")
[ ${#dm_pkgs[@]} != 0 ] || { fail "no package tagged dm in $H_DEPS_LIST"; finish; }
missing=()
for p in "${dm_pkgs[@]}"; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
dm_install() {
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		-o DPkg::Lock::Timeout=300 "${missing[@]}" >"/tmp/pam-envd-dm-apt.$$.log" 2>&1
}
if [ ${#missing[@]} != 0 ]; then
	echo "dm: installing ${missing[*]}"
	# package lists too old for the mirror: updated once
	dm_install || { apt-get update -qq >/dev/null 2>&1 && dm_install; } ||
		echo "dm: apt-get install failed: $(grep -E '^E: ' "/tmp/pam-envd-dm-apt.$$.log" | head -n 3)"
	rm -f "/tmp/pam-envd-dm-apt.$$.log"
fi

lockdir=/run/lock
[ -d "$lockdir" ] || lockdir=/tmp
exec 9>"$lockdir/pam_envd-install-test.lock"
flock -w 600 9 || skip_all "display managers: another run held the install lock for 600s"

# refuse when any pam_envd is on the system: never clobber a real one
for p in libpam-envd envd; do
	if dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -qv 'not-installed'; then
		skip_all "display managers: package $p is installed or has configuration files; not touching it"
	fi
done
for f in /usr/bin/envd /usr/local/bin/envd /etc/profile.d/pam_envd.sh \
	/usr/share/pam-configs/pam_envd /etc/pam_envd /lib/*/security/pam_envd.so \
	/usr/lib/*/security/pam_envd.so /usr/lib/security/pam_envd.so; do
	[ -e "$f" ] && skip_all "display managers: $f exists: pam_envd is installed on this system; not touching it"
done

running=' '
if have_cmds pgrep; then
	for p in lightdm greetd nodm sddm slim; do
		! pgrep -x "$p" >/dev/null || running="$running$p "
	done
fi

make_tmpdir TMP pam-envd-dm /tmp
chmod 755 "$TMP"
mkdir -p "$TMP/bin" "$TMP/out" "$TMP/backup" "$TMP/home"
chmod 700 "$TMP/out" "$TMP/backup"
USERS=()
PIDS=()     # processes this test started, stopped by id
RESTORE=()  # files changed: "PATH" restored from $TMP/backup
REMOVE=()   # files and empty directories added
installed=no
vt_orig=
greetd_recorders=no
# teardown: stops what was started, restores what was changed, purges the
# packages, removes the users (once; again at exit is a no-op)
# shellcheck disable=SC2317 # run at exit too
teardown() {
	local p u i f
	for p in "${PIDS[@]}"; do stop_pid "$p"; done
	[ ! -f "$TMP/xserver.pids" ] || stop_xservers
	[ -z "$vt_orig" ] || vt_activate "$vt_orig"
	for f in "${RESTORE[@]}"; do
		[ -e "$TMP/backup/${f//\//%}" ] && cp -p "$TMP/backup/${f//\//%}" "$f"
	done
	if [ -e "$TMP/backup/profile.d-pam_envd.sh" ]; then
		mv "$TMP/backup/profile.d-pam_envd.sh" /etc/profile.d/pam_envd.sh
	fi
	for ((i = ${#REMOVE[@]} - 1; i >= 0; i--)); do
		f=${REMOVE[i]}
		if [ -d "$f" ]; then rmdir "$f" 2>/dev/null; else rm -f "$f"; fi
	done
	# apt-get waits for the dpkg lock of another apt run (dpkg cannot)
	if [ "$installed" = yes ] && ! DEBIAN_FRONTEND=noninteractive apt-get purge -y -q \
		-o DPkg::Lock::Timeout=300 libpam-envd envd >"$TMP/purge.log" 2>&1; then
		fail "apt-get purge libpam-envd envd: $(tail -n 5 "$TMP/purge.log")"
		dpkg --purge libpam-envd envd >/dev/null 2>&1
	fi
	for u in "${USERS[@]}"; do
		rm -rf "/var/lib/lightdm-data/$u"
		for i in $(seq 1 50); do
			userdel -f "$u" >/dev/null 2>&1 && break
			getent passwd "$u" >/dev/null || break
			sleep 0.2
		done
	done
	PIDS=() RESTORE=() REMOVE=() USERS=() vt_orig='' installed=no
}
at_exit teardown

# stop_pid PID: SIGTERM, up to 10 s, then SIGKILL
stop_pid() {
	local i
	kill -0 "$1" 2>/dev/null || return 0
	kill "$1" 2>/dev/null
	for i in $(seq 1 100); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	echo "dm: pid $1 ($(cat "/proc/$1/comm" 2>/dev/null)) did not stop within 10 s of SIGTERM: SIGKILL"
	kill -9 "$1" 2>/dev/null
}
# wait_for FILE SECONDS [PID]: until FILE exists (non-empty); fails on
# timeout or when PID died
wait_for() {
	local i
	for i in $(seq 1 $(($2 * 10))); do
		[ -s "$1" ] && return 0
		if [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null; then
			sleep 0.5
			[ -s "$1" ]
			return
		fi
		sleep 0.1
	done
	return 1
}
# backup FILE: keeps a copy, restored at exit
backup() {
	cp -p "$1" "$TMP/backup/${1//\//%}"
	RESTORE+=("$1")
}
# val FILE NAME: the value of NAME in an env -0 record
val() { tr '\0' '\n' <"$1" | sed -n "s/^$2=//p" | head -n 1; }
has() { tr '\0' '\n' <"$1" | grep -q "^$2="; }

# the active virtual terminal and VT_ACTIVATE, through /dev/tty0
vt_query() { # active | free
	python3 - "$1" <<'EOF' 2>/dev/null
import fcntl, os, struct, sys
fd = os.open("/dev/tty0", os.O_RDWR | os.O_NOCTTY)
if sys.argv[1] == "active":
    buf = bytearray(6)
    fcntl.ioctl(fd, 0x5603, buf)  # VT_GETSTATE
    print(struct.unpack("HHH", buf)[0])
else:
    buf = bytearray(4)
    fcntl.ioctl(fd, 0x5600, buf)  # VT_OPENQRY
    print(struct.unpack("i", buf)[0])
EOF
}
vt_activate() {
	python3 - "$1" <<'EOF' >/dev/null 2>&1
import fcntl, os, sys
fd = os.open("/dev/tty0", os.O_RDWR | os.O_NOCTTY)
fcntl.ioctl(fd, 0x5606, int(sys.argv[1]))  # VT_ACTIVATE
fcntl.ioctl(fd, 0x5607, int(sys.argv[1]))  # VT_WAITACTIVE
EOF
}

# snapshot: what the packages, pam-auth-update and this test may touch.
# Of /etc/pam.d only common-* and the DMs' services: other tests add and
# remove services of their own meanwhile.
snapshot() {
	local pamd
	pamd=$(find /etc/pam.d -maxdepth 1 \( -name 'common-*' -o -name 'lightdm*' -o -name 'greetd*' \
		-o -name nodm -o -name 'sddm*' -o -name slim -o -name login -o -name 'gdm*' \))
	{
		# shellcheck disable=SC2086 # file names without blanks
		find $pamd /var/lib/pam /etc/profile.d /usr/share/pam-configs /etc/pam_envd \
			/etc/environment.d /etc/lightdm /etc/greetd /etc/sddm.conf.d /var/lib/sddm /etc/slim.conf \
			/usr/share/xsessions -printf '%p %y %m %u:%g\n' 2>/dev/null
		# shellcheck disable=SC2086
		find $pamd /var/lib/pam /etc/profile.d /usr/share/pam-configs /etc/environment.d \
			/etc/lightdm /etc/greetd /etc/sddm.conf.d /var/lib/sddm /etc/slim.conf /usr/share/xsessions \
			-type f -exec sha256sum {} + 2>/dev/null
	} | sort
}
snapshot >"$TMP/before"

# ---- the packages ------------------------------------------------------------
if DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
	-o DPkg::Lock::Timeout=300 "${debs[@]}" >"$TMP/install.log" 2>&1; then
	installed=yes
	pass "apt-get install ./libpam-envd_*.deb ./envd_*.deb"
else
	installed=yes
	fail "apt-get install:"
	tail -n 20 "$TMP/install.log"
	finish
fi
if grep -qE '^session[[:space:]]+optional[[:space:]]+pam_envd\.so' /etc/pam.d/common-session; then
	pass "pam-auth-update enabled the module in common-session"
else
	fail "no pam_envd line in common-session:"
	cat /etc/pam.d/common-session
fi
# the cleanup instance (profile pam_envd-cleanup), first in the Additional
# block; tests/pkg/deb.sh checks its place
cleanup_line=no
if grep -qE '^session[[:space:]]+optional[[:space:]]+pam_envd\.so[[:space:]]+cleanup' /etc/pam.d/common-session; then
	cleanup_line=yes
	pass "pam-auth-update enabled the cleanup instance in common-session"
else
	fail "no 'session optional pam_envd.so cleanup' line in common-session"
fi

# ---- the user, the files and the helpers ---------------------------------------
mkuser() { # NAME
	USERS+=("$1")
	useradd -m -d "$TMP/home/$1" -s /bin/bash -K UMASK=022 "$1" >/dev/null 2>&1 ||
		{ fail "useradd $1"; finish; }
}
u=pedm$$
ctl=pedmc$$
mkuser "$u"
mkuser "$ctl"
h=$TMP/home/$u
su "$u" -s /bin/sh -c "mkdir -p '$h/.config/environment.d'"
# DM_SEEN expands what the display manager put in the PAM environment
# before the session opened; XDG_SESSION_TYPE, BASH_ENV and LD_PRELOAD are
# refused names (identity, shell start-up, loader): the DM's own
# XDG_SESSION_TYPE (x11, wayland or none) must stay, the others must not
# arrive
cat >"$h/.config/environment.d/50-dm.conf" <<'EOF'
DM_PLAIN=plain value from environment.d
DM_QUOTED="two  spaced words"
DM_SEEN=type=${XDG_SESSION_TYPE:-none} class=${XDG_SESSION_CLASS:-none} seat=${XDG_SEAT:-none} vt=${XDG_VTNR:-none}
PATH=$HOME/dm-bin:$PATH
XDG_SESSION_TYPE=tty
BASH_ENV=$HOME/bash_env
LD_PRELOAD=/nonexistent/pam-envd-dm-test.so
EOF
# shellcheck disable=SC2016 # bash would expand it, were BASH_ENV to arrive
printf 'touch "$HOME/bash_env.ran"\n' >"$h/bash_env"
chown "$u:" "$h/.config/environment.d/50-dm.conf" "$h/bash_env"
if [ ! -d /etc/environment.d ]; then
	mkdir /etc/environment.d
	REMOVE+=(/etc/environment.d)
fi
sysfile=/etc/environment.d/60-pam-envd-dm-test.conf
echo 'DM_SYSTEM=from /etc/environment.d' >"$sysfile"
REMOVE+=("$sysfile")

# the session command: records its environment, then waits for the
# logout.  A DM that starts the session again after the logout (nodm
# does) gets one that waits to be stopped.
cat >"$TMP/bin/session" <<'EOF'
#!/bin/sh
[ ! -e "$HOME/$1.logout" ] || exec sleep 120
/usr/bin/env -0 >"$HOME/$1.env.tmp" && mv "$HOME/$1.env.tmp" "$HOME/$1.env"
i=0
while [ ! -e "$HOME/$1.logout" ] && [ "$i" -lt 1200 ]; do
	sleep 0.1
	i=$((i + 1))
done
EOF
# greetd's greeter for the Wayland login (greetd_login wayland), as
# _greetd: "greeter STATE USER CMD...": create_session for USER, the
# password of STATE/pw for pam_unix's prompt, then start_session CMD with
# XDG_SESSION_TYPE=wayland; its log in STATE/log.  Started again after the
# logout, it only waits.
cat >"$TMP/bin/greeter" <<'EOF'
import json, os, socket, struct, sys, time
state, user, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
if os.path.exists(state + "/done"):
    time.sleep(120)
    sys.exit(0)
open(state + "/done", "w").close()
log = open(state + "/log", "a")
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(os.environ["GREETD_SOCK"])
def recv(n):
    b = b""
    while len(b) < n:
        c = sock.recv(n - len(b))
        if not c:
            raise EOFError("greetd closed the socket")
        b += c
    return b
def call(req):
    b = json.dumps(req).encode()
    sock.sendall(struct.pack("=I", len(b)) + b)
    r = json.loads(recv(struct.unpack("=I", recv(4))[0]))
    print(req["type"], "->", r.get("type"), r.get("auth_message_type", ""),
          r.get("description", ""), file=log, flush=True)
    return r
r = call({"type": "create_session", "username": user})
while r.get("type") == "auth_message":
    answer = None
    if r.get("auth_message_type") == "secret":
        answer = open(state + "/pw").read().strip()
    r = call({"type": "post_auth_message_response", "response": answer})
if r.get("type") != "success":
    sys.exit(1)
r = call({"type": "start_session", "cmd": cmd, "env": ["XDG_SESSION_TYPE=wayland"]})
sys.exit(0 if r.get("type") == "success" else 1)
EOF
# the X server the display managers start: Xvfb, through a wrapper that
# passes the display and the authority file on and drops what only a VT
# server takes (LightDM runs "xserver-command :N -seat seat0 -auth FILE
# -nolisten tcp vtN -novtswitch", nodm "SERVER :N ... vtN", SDDM "SERVER
# -auth FILE -background none -noreset -displayfd FD -seat seat0 vtN").  Exec keeps
# the pid and the ignored SIGUSR1 (Xvfb signals readiness with it); every
# pid is recorded, to be stopped at the end.
cat >"$TMP/bin/xserver" <<EOF
#!/bin/sh
[ ! -e "$TMP/xserver.refuse" ] || exit 1
echo \$\$ >>"$TMP/xserver.pids"
display= auth= displayfd=
while [ \$# -gt 0 ]; do
	case \$1 in
	:*) display=\$1 ;;
	-auth) auth=\$2; shift ;;
	-displayfd) displayfd=\$2; shift ;;
	esac
	shift
done
exec Xvfb \$display \${auth:+-auth "\$auth"} \${displayfd:+-displayfd \$displayfd} \
	-nolisten tcp -screen 0 640x480x24
EOF
chmod 755 "$TMP/bin/xserver"
: >"$TMP/xserver.pids"
stop_xservers() {
	local p
	while read -r p; do stop_pid "$p"; done <"$TMP/xserver.pids"
}

# the pam_exec recorder, as root: the PAM environment at open and close
# (nodm closes the session after dropping to the user: OUT is writable by
# all, sticky; RECORDER_UID says who ran it)
cat >"$TMP/bin/record" <<'EOF'
#!/bin/sh
{ /usr/bin/env -0; printf 'RECORDER_UID=%s\0' "$(id -u)"; } >"$1.$PAM_TYPE"
EOF
chmod 1733 "$TMP/out"
chmod 755 "$TMP/bin/session" "$TMP/bin/record"

# add_recorders SERVICE NAME FIRST INCLUDE: pam_exec recorders in SERVICE,
# one before the first line matching the regular expression FIRST (the
# first of its session stack: OUT/NAME.top) and one right after the line
# INCLUDE (OUT/NAME.after)
add_recorders() {
	local f=/etc/pam.d/$1
	backup "$f"
	awk -v top="session optional pam_exec.so $TMP/bin/record $TMP/out/$2.top" \
		-v after="session optional pam_exec.so $TMP/bin/record $TMP/out/$2.after" \
		-v first="$3" -v inc="$4" '
		!t && $0 ~ first { print top; t = 1 }
		{ print }
		$0 == inc { print after; a = 1 }
		END { if (!a || !t) exit 1 }' "$TMP/backup/${f//\//%}" >"$f" ||
		{ fail "$1: no line '$3' or '$4' to stack the recorders at"; return 1; }
}

# the PATH /etc/profile gives a user without files (the control user)
# shellcheck disable=SC2016 # the login shell expands it
path_profile=$(timeout 60 su -l "$ctl" -c 'echo "$PATH"' 2>/dev/null </dev/null)

# check_login NAME RECORD PATH_WANT SEEN_WANT TOP: the session's
# environment (TOP: the PAM environment at open before common-session)
check_login() {
	local n=$1 f=$2 pw=$3 sw=$4 top=$5 v
	if [ ! -s "$f" ]; then
		fail "$n: the session recorded no environment"
		return 1
	fi
	echo "dm: $n: the session saw:"
	tr '\0' '\n' <"$f" | grep -E '^(DM_[A-Z]*|PATH|XDG_SESSION_TYPE|XDG_SESSION_CLASS|XDG_SEAT|XDG_VTNR|DISPLAY|BASH_ENV|LD_PRELOAD)=' |
		sort | sed 's/^/    /'
	v=$(val "$f" DM_PLAIN)
	if [ "$v" = "plain value from environment.d" ]; then
		pass "$n: a plain variable of ~/.config/environment.d arrived"
	else
		fail "$n: DM_PLAIN '$v'"
	fi
	v=$(val "$f" DM_QUOTED)
	if [ "$v" = "two  spaced words" ]; then
		pass "$n: a quoted value arrived without its quotes"
	else
		fail "$n: DM_QUOTED '$v', expected 'two  spaced words'"
	fi
	v=$(val "$f" DM_SEEN)
	if [ "$v" = "$sw" ]; then
		pass "$n: the expansion against what the display manager set: DM_SEEN='$v'"
	else
		fail "$n: DM_SEEN '$v', expected '$sw'"
	fi
	v=$(val "$f" DM_SYSTEM)
	if [ "$v" = "from /etc/environment.d" ]; then
		pass "$n: the variable of /etc/environment.d arrived"
	else
		fail "$n: DM_SYSTEM '$v'"
	fi
	v=$(val "$f" PATH)
	if [ "$v" = "$pw" ]; then
		pass "$n: PATH='$v'"
	else
		fail "$n: PATH '$v', expected '$pw'"
	fi
	if has "$f" BASH_ENV || has "$f" LD_PRELOAD || [ -e "$h/bash_env.ran" ]; then
		fail "$n: a refused name arrived: BASH_ENV '$(val "$f" BASH_ENV)' LD_PRELOAD '$(val "$f" LD_PRELOAD)'"
	else
		pass "$n: the refused BASH_ENV and LD_PRELOAD did not arrive"
	fi
	# the user's XDG_SESSION_TYPE=tty is refused: the DM's value, or
	# none, stays
	v=$(val "$top" XDG_SESSION_TYPE)
	if [ "$(val "$f" XDG_SESSION_TYPE)" = "$v" ] && { [ -n "$v" ] || ! has "$f" XDG_SESSION_TYPE; }; then
		pass "$n: the refused XDG_SESSION_TYPE=tty did not arrive (the display manager's: '${v:-unset}')"
	else
		fail "$n: XDG_SESSION_TYPE '$(val "$f" XDG_SESSION_TYPE)' in the session, the display manager's '${v:-unset}'"
	fi
}

# check_close NAME RECORD WHERE: the recorder after common-session (WHERE
# after) saw none of the user's values at close_session: the cleanup
# instance, first in common-session's Additional block, took them back.
# The one before common-session (WHERE before) runs at close before the
# cleanup instance, as Linux-PAM runs close hooks top to bottom: it still
# sees them, the limit of the pair (a logout helper belongs after
# common-session), asserted so that it stays documented.
check_close() {
	local n=$1 f=$2 where=$3 line=$4 got=
	if [ ! -f "$f" ]; then
		fail "$n: the recorder $line did not run at close_session"
		return
	fi
	has "$f" DM_PLAIN && got="$got DM_PLAIN"
	has "$f" DM_QUOTED && got="$got DM_QUOTED"
	has "$f" DM_SEEN && got="$got DM_SEEN"
	has "$f" DM_SYSTEM && got="$got DM_SYSTEM"
	case ":$(val "$f" PATH):" in *":$h/dm-bin:"*) got="$got PATH($(val "$f" PATH))" ;; esac
	line="$line (uid $(val "$f" RECORDER_UID))"
	if [ "$where" = after ]; then
		if [ -z "$got" ]; then
			pass "$n: at close_session a pam_exec helper $line saw none of the user's values (PATH '$(val "$f" PATH)')"
		elif [ "$cleanup_line" = no ]; then
			fail "$n: at close_session a pam_exec helper $line saw the user's$got: common-session has no 'pam_envd.so cleanup' line (the package does not enable the cleanup instance)"
		else
			fail "$n: at close_session a pam_exec helper $line saw the user's$got, although common-session has the cleanup instance"
		fi
	elif [ -n "$got" ]; then
		pass "$n: at close_session a pam_exec helper $line, which runs before the cleanup instance, still saw the user's$got (the documented limit)"
	else
		fail "$n: at close_session a pam_exec helper $line saw none of the user's values: the cleanup instance ran before common-session? (update this test and the documentation)"
	fi
}

# seen_of RECORD: DM_SEEN's value for the PAM environment in RECORD
seen_of() {
	local t c s v
	t=$(val "$1" XDG_SESSION_TYPE) c=$(val "$1" XDG_SESSION_CLASS)
	s=$(val "$1" XDG_SEAT) v=$(val "$1" XDG_VTNR)
	echo "type=${t:-none} class=${c:-none} seat=${s:-none} vt=${v:-none}"
}

# check_wayland NAME RECORD TOP: the display manager put
# XDG_SESSION_TYPE=wayland in the PAM environment before the session
# opened (TOP) and the session has it (RECORD)
check_wayland() {
	local t s
	t=$(val "$3" XDG_SESSION_TYPE) s=$(val "$2" XDG_SESSION_TYPE)
	if [ "$t" = wayland ] && [ "$s" = wayland ]; then
		pass "$1: XDG_SESSION_TYPE=wayland in the PAM environment before the session opened and in the session"
	else
		fail "$1: XDG_SESSION_TYPE '${t:-unset}' at open, '${s:-unset}' in the session; expected wayland"
	fi
}

# the DM's own variables at open, before common-session (the top recorder)
show_dm_env() {
	echo "dm: $1: the PAM environment the display manager gave (at open, before common-session):"
	tr '\0' '\n' <"$2" | grep -vE '^(PAM_|RECORDER_UID=)' | sort | sed 's/^/    /'
}

# runs NAME: a process of that name ran before this test started anything
# (a real display manager of this machine: not to be disturbed)
runs() { case $running in *" $1 "*) return 0 ;; esac; return 1; }

# start_bus: a system D-Bus daemon when none runs (LightDM needs one)
start_bus() {
	[ -S /run/dbus/system_bus_socket ] && return 0
	local p
	if [ ! -d /run/dbus ]; then
		mkdir -p /run/dbus
		REMOVE+=(/run/dbus)
	fi
	[ -e /run/dbus/pid ] || REMOVE+=(/run/dbus/pid)
	REMOVE+=(/run/dbus/system_bus_socket)
	p=$(timeout 30 dbus-daemon --system --fork --print-pid 2>"$TMP/dbus.err") || true
	case $p in
	'' | *[!0-9]*)
		echo "dm: dbus-daemon --system: $(cat "$TMP/dbus.err")"
		return 1
		;;
	esac
	PIDS+=("$p")
	echo "dm: started a system D-Bus daemon (pid $p)"
}

# vt_remember NAME: the active virtual terminal, restored at the end
# (a DM that starts a session on a VT of its own switches to it); else a
# skip and a false return
vt_remember() {
	[ -z "$vt_orig" ] || return 0
	vt_orig=$(vt_query active)
	case $vt_orig in
	'' | *[!0-9]*)
		vt_orig=
		skip "$1: no virtual terminals here (/dev/tty0 cannot be opened or answers no VT_GETSTATE)"
		return 1
		;;
	esac
}

# ---- one display manager's login, step by step ------------------------------------
# dm_ready NAME PROCESS: no PROCESS of this machine runs; else a skip and
# a false return (the caller has checked its tools with have_cmds)
dm_ready() {
	! runs "$2" || { skip "$1: a $2 runs on this machine already"; return 1; }
}
# dm_started NAME PID SECONDS WHAT LOG...: the DM started as PID (stopped
# at exit) began the session within SECONDS; else a failure with the end
# of its logs (WHAT says where they come from), the DM stopped, a false
# return
dm_started() {
	local n=$1 pid=$2 secs=$3 what=$4
	shift 4
	PIDS+=("$pid")
	wait_for "$h/$n.env" "$secs" "$pid" && return 0
	fail "$n: no session within $secs s$what"
	tail -n 30 "$@" 2>/dev/null
	stop_pid "$pid"
	return 1
}
# dm_opened NAME [RECORDS]: top, what the top recorder saw at open
# (shown), and seen, DM_SEEN's value for it
dm_opened() {
	top=$TMP/out/${2:-$1}.top.open_session
	[ ! -s "$top" ] || show_dm_env "$1" "$top"
	seen=$(seen_of "$top")
}
# dm_logout NAME PID RECORDS WHO WHAT LOG...: the session's command exits
# and WHO closes the PAM session (the recorders' files RECORDS.*) within
# 30 s; else a failure with the end of the logs and a false return
dm_logout() {
	local n=$1 pid=$2 rec=$3 who=$4 what=$5
	shift 5
	touch "$h/$n.logout"
	if wait_for "$TMP/out/$rec.after.close_session" 30 "$pid"; then
		pass "$n: the session command exited and $who closed the PAM session"
		return 0
	fi
	fail "$n: no close_session within 30 s of the logout$what"
	tail -n 30 "$@" 2>/dev/null
	return 1
}
# dm_closed NAME RECORDS [AFTER BEFORE]: what the two recorders saw at
# close_session (AFTER, BEFORE: where they are; by default around
# common-session)
dm_closed() {
	check_close "$1" "$TMP/out/$2.after.close_session" after "${3:-right after @include common-session}"
	check_close "$1" "$TMP/out/$2.top.close_session" before \
		"${4:-on the first session line (before common-session)}"
}
# dm_stopped NAME PID: the DM and its X servers stopped, then dm_closed
dm_stopped() {
	stop_pid "$2"
	stop_xservers
	dm_closed "$1" "$1"
}

# ---- LightDM -------------------------------------------------------------------
# autologin into an X11 session on Xvfb, then into a Wayland session.  A
# session's type is its .desktop file's X-LightDM-Session-Type, "x" unless
# the file is in /usr/share/wayland-sessions (LightDM's
# session_config_new_from_file and find_session_config): this test's
# sessions directory is its own, so the Wayland one says
# X-LightDM-Session-Type=wayland.  For it LightDM starts no display
# server, takes a free VT and sets XDG_SESSION_TYPE=wayland and XDG_VTNR.
# Both go through Debian's session-wrapper, /etc/X11/Xsession, which
# sources no profile: the PATH is the module's composition over the one
# LightDM put in the PAM environment
lightdm_recorders=no
lightdm_login() {
	local type=$1 n=lightdm d=$TMP/lightdm pid p top want seen what
	[ "$type" = x11 ] || n=lightdm-$type
	rm -f "$TMP"/out/lightdm.*
	have_cmds lightdm Xvfb xauth dbus-daemon || { skip "$n: $H_WHY"; return; }
	dm_ready "$n" lightdm || return
	[ -x /etc/X11/Xsession ] || { skip "$n: no /etc/X11/Xsession"; return; }
	[ "$type" = x11 ] || vt_remember "$n" || return
	start_bus || { fail "$n: no system D-Bus daemon could be started"; return; }
	if [ "$lightdm_recorders" = no ]; then
		add_recorders lightdm-autologin lightdm '^-?session[[:space:]]' "@include common-session" || return
		lightdm_recorders=yes
	fi
	rm -rf "$d"
	mkdir -p "$d/xsessions" "$d/log" "$d/run" "$d/cache"
	{
		echo '[Desktop Entry]'
		echo 'Name=pam_envd test session'
		echo "Exec=$TMP/bin/session $n"
		echo 'Type=Application'
		[ "$type" = x11 ] || echo 'X-LightDM-Session-Type=wayland'
	} >"$d/xsessions/pam-envd-dm.desktop"
	# --config replaces /etc/lightdm/lightdm.conf; Debian's
	# /usr/share/lightdm/lightdm.conf.d (session-wrapper=/etc/X11/Xsession)
	# is still read
	cat >"$d/lightdm.conf" <<EOF
[LightDM]
sessions-directory=$d/xsessions
[Seat:*]
xserver-command=$TMP/bin/xserver
autologin-user=$u
autologin-user-timeout=0
autologin-session=pam-envd-dm
user-session=pam-envd-dm
EOF
	lightdm --config "$d/lightdm.conf" --debug --log-dir "$d/log" \
		--run-dir "$d/run" --cache-dir "$d/cache" >"$d/lightdm.out" 2>&1 &
	pid=$!
	dm_started "$n" "$pid" 60 "; end of the LightDM log:" "$d/log/lightdm.log" "$d/lightdm.out" ||
		{ stop_xservers; return; }
	if [ "$type" = x11 ]; then
		what="an X11 session on Xvfb"
	else
		what="a Wayland session (X-LightDM-Session-Type=wayland) on VT $(val "$TMP/out/lightdm.top.open_session" XDG_VTNR)"
	fi
	pass "$n: autologin of $u into $what through /etc/X11/Xsession"
	dm_opened "$n" lightdm
	if [ "$type" = wayland ]; then
		check_wayland "$n" "$h/$n.env" "$top"
	elif [ "$(val "$top" XDG_SESSION_TYPE)" = x11 ]; then
		pass "$n: LightDM put XDG_SESSION_TYPE=x11 in the PAM environment before the session opened"
	else
		fail "$n: XDG_SESSION_TYPE at open '$(val "$top" XDG_SESSION_TYPE)'"
	fi
	p=$(val "$top" PATH)
	want="$h/dm-bin:${p:-/usr/local/bin:/usr/bin:/bin}"
	check_login "$n" "$h/$n.env" "$want" "$seen" "$top"
	dm_logout "$n" "$pid" lightdm LightDM "; end of the LightDM log:" "$d/log/lightdm.log"
	stop_pid "$pid"
	stop_xservers
	[ -z "$vt_orig" ] || vt_activate "$vt_orig"
	dm_closed "$n" lightdm
}

# ---- greetd --------------------------------------------------------------------
# initial_session (autologin) on a free virtual terminal.  greetd runs the
# command as "/bin/sh -c '[ -f /etc/profile ] && . /etc/profile; [ -f
# $HOME/.profile ] && . $HOME/.profile; exec CMD'" (source_profile, true by
# default), and Debian's /etc/profile sets PATH anew: the module's PATH
# reaches the session only through the package's /etc/profile.d/pam_envd.sh,
# which composes the user's PATH over the profile's again.  MODE without
# runs with that snippet moved away to show it.  MODE wayland logs in
# through a greeter instead (default_session, as _greetd): greetd's IPC
# (JSON requests on $GREETD_SOCK) authenticates the user with a password
# set for the run and starts the session with the environment a greeter
# of Wayland sessions passes, XDG_SESSION_TYPE=wayland, which greetd puts
# in the PAM environment before pam_open_session (greetd 0.9's
# start_session "env"; greetd itself sets no session type).
greetd_login() {
	local profile=$1 n=greetd d=$TMP/greetd vt pid p top want seen pw
	case $profile in
	without) n=greetd-without-snippet ;;
	wayland) n=greetd-wayland ;;
	esac
	rm -f "$TMP"/out/greetd.*
	have_cmds greetd || { skip "$n: $H_WHY"; return; }
	[ "$profile" != wayland ] || have_cmds chpasswd || { skip "$n: $H_WHY"; return; }
	dm_ready "$n" greetd || return
	getent passwd _greetd >/dev/null || { skip "$n: no _greetd user (greetd's package makes it)"; return; }
	vt_remember "$n" || return
	vt=$(vt_query free)
	case $vt in
	'' | *[!0-9]* | -1) skip "$n: no free virtual terminal (VT_OPENQRY: '$vt')"; return ;;
	esac
	[ -c "/dev/tty$vt" ] || { skip "$n: /dev/tty$vt (the free VT) is not a character device here"; return; }
	mkdir -p "$d"
	if [ "$greetd_recorders" = no ]; then
		add_recorders greetd greetd '^@include login$' "@include login" || return
		greetd_recorders=yes
	fi
	[ "$profile" != without ] || mv /etc/profile.d/pam_envd.sh "$TMP/backup/profile.d-pam_envd.sh"
	{
		printf '[terminal]\nvt = %s\n\n[general]\nrunfile = "%s"\nsource_profile = true\n\n' "$vt" "$d/$n.run"
		if [ "$profile" = wayland ]; then
			printf '[default_session]\ncommand = "python3 %s %s %s %s %s"\nuser = "_greetd"\n' \
				"$TMP/bin/greeter" "$d/greeter" "$u" "$TMP/bin/session" "$n"
		else
			printf '[default_session]\ncommand = "sleep 60"\nuser = "_greetd"\n\n'
			printf '[initial_session]\ncommand = "%s %s"\nuser = "%s"\n' "$TMP/bin/session" "$n" "$u"
		fi
	} >"$d/$n.toml"
	if [ "$profile" = wayland ]; then
		# a password for the greeter to answer pam_unix with (the user
		# goes at the end); only the greeter's user can read it
		pw=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
		echo "$u:$pw" | chpasswd || { fail "$n: chpasswd"; return; }
		mkdir -m 700 "$d/greeter" 2>/dev/null || chmod 700 "$d/greeter"
		printf '%s\n' "$pw" >"$d/greeter/pw"
		chown -R _greetd "$d/greeter"
		chmod 600 "$d/greeter/pw"
	fi
	greetd --config "$d/$n.toml" >"$d/$n.log" 2>&1 &
	pid=$!
	if ! dm_started "$n" "$pid" 30 " on VT $vt; greetd said:" "$d/$n.log" "$d/greeter/log"; then
		[ "$profile" != without ] || mv "$TMP/backup/profile.d-pam_envd.sh" /etc/profile.d/pam_envd.sh
		return
	fi
	top=$TMP/out/greetd.top.open_session
	if [ "$profile" = wayland ]; then
		pass "$n: the greeter logged $u in on VT $vt (/dev/tty$vt) with start_session env XDG_SESSION_TYPE=wayland"
		check_wayland "$n" "$h/$n.env" "$top"
	else
		pass "$n: initial_session of $u on VT $vt (/dev/tty$vt)"
	fi
	[ "$profile" = without ] || show_dm_env "$n" "$top"
	echo "dm: $n: PATH in the PAM environment after the module: $(val "$TMP/out/greetd.after.open_session" PATH)"
	seen=$(seen_of "$top")
	if [ "$(val "$top" XDG_VTNR)" = "$vt" ]; then
		pass "$n: greetd put XDG_VTNR=$vt in the PAM environment before the session opened"
	else
		fail "$n: XDG_VTNR at open '$(val "$top" XDG_VTNR)', expected $vt"
	fi
	p=$(val "$TMP/out/greetd.after.open_session" PATH)
	if [ "$profile" != without ]; then
		want="$h/dm-bin:$path_profile"
	else
		# the module alone: /etc/profile's PATH replaced the user's
		want=$path_profile
		case $p in
		"$h/dm-bin:"*)
			pass "$n: the module put the user's PATH in the PAM environment ('$p'), /etc/profile replaced it"
			;;
		*) fail "$n: the PAM environment's PATH after the module '$p', expected $h/dm-bin:..." ;;
		esac
	fi
	check_login "$n" "$h/$n.env" "$want" "$seen" "$top"
	dm_logout "$n" "$pid" greetd greetd "; greetd said:" "$d/$n.log"
	stop_pid "$pid"
	[ "$profile" != without ] || mv "$TMP/backup/profile.d-pam_envd.sh" /etc/profile.d/pam_envd.sh
	vt_activate "$vt_orig"
	dm_closed "$n" greetd "right after @include login" "before @include login"
}

# ---- nodm ----------------------------------------------------------------------
# autologin into X on Xvfb.  nodm runs its session command, /etc/X11/Xsession
# (which runs ~/.xsession), with "sh -l": as with greetd, /etc/profile sets
# PATH anew and the user's prefix comes back through the package's
# /etc/profile.d snippet.  Configured by environment variables only.
nodm_login() {
	local n=nodm pid top seen disp=20 i
	have_cmds nodm Xvfb || { skip "$n: $H_WHY"; return; }
	dm_ready "$n" "$n" || return
	add_recorders nodm "$n" '^-?session[[:space:]]' "@include common-session" || return
	while [ -e "/tmp/.X11-unix/X$disp" ] || [ -e "/tmp/.X$disp-lock" ]; do disp=$((disp + 1)); done
	printf '#!/bin/sh\nexec %s %s\n' "$TMP/bin/session" "$n" >"$h/.xsession"
	chmod 755 "$h/.xsession"
	chown "$u:" "$h/.xsession"
	# a vtN option turns nodm's VT allocation off (the wrapper drops it)
	NODM_USER=$u NODM_XSESSION=/etc/X11/Xsession NODM_X_OPTIONS="$TMP/bin/xserver :$disp vt63" \
		NODM_MIN_SESSION_TIME=0 NODM_X_TIMEOUT=5 nodm --no-syslog --stderr \
		>"$TMP/nodm.log" 2>&1 &
	pid=$!
	dm_started "$n" "$pid" 60 "; nodm said:" "$TMP/nodm.log" || { stop_xservers; return; }
	pass "$n: autologin of $u into X on Xvfb (:$disp) through /etc/X11/Xsession and ~/.xsession"
	dm_opened "$n"
	check_login "$n" "$h/$n.env" "$h/dm-bin:$path_profile" "$seen" "$top"
	# nodm starts X and the session again at once, with SIGTERM blocked
	# until both run: the X server refuses to start, and nodm ends
	touch "$TMP/xserver.refuse"
	if dm_logout "$n" "$pid" "$n" nodm "; nodm said:" "$TMP/nodm.log"; then
		for i in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	dm_stopped "$n" "$pid"
}

# ---- SDDM ----------------------------------------------------------------------
# autologin into an X11 session on Xvfb, then into a Wayland session.
# SDDM has no option for another configuration file: a snippet in
# /etc/sddm.conf.d, removed at the end.  The autologin session is looked
# up in [Wayland] SessionDir (by default /usr/share/wayland-sessions; here
# the test's own) before [X11] SessionDir: found there, SDDM (0.19) sets
# XDG_SESSION_TYPE=wayland, its helper takes a new VT (XDG_VTNR, PAM_TTY)
# and runs the session's Exec through [Wayland] SessionCommand,
# /etc/sddm/wayland-session; an X11 one runs through /etc/sddm/Xsession.
# Both source /etc/profile and ~/.profile in the user's shell (bash here):
# PATH as with greetd.  The X server still starts (SDDM's display server).
sddm_setup=no
sddm_login() {
	local type=$1 n=sddm d=$TMP/sddm pid top seen f sdir=xsessions what
	[ "$type" = x11 ] || n=sddm-$type sdir=wayland-sessions
	rm -f "$TMP"/out/sddm.*
	have_cmds sddm Xvfb xauth dbus-daemon || { skip "$n: $H_WHY"; return; }
	dm_ready "$n" sddm || return
	[ "$type" = x11 ] || vt_remember "$n" || return
	start_bus || { fail "$n: no system D-Bus daemon could be started"; return; }
	rm -f "$TMP/xserver.refuse"
	if [ "$sddm_setup" = no ]; then
		add_recorders sddm-autologin sddm '^-?session[[:space:]]' "@include common-session" || return
		if [ ! -d /etc/sddm.conf.d ]; then
			mkdir /etc/sddm.conf.d
			REMOVE+=(/etc/sddm.conf.d)
		fi
		REMOVE+=(/etc/sddm.conf.d/90-pam-envd-dm-test.conf)
		# where SDDM remembers the last user and session, and its log of
		# the X session, which its first run on a machine makes
		for f in /var/lib/sddm/.local /var/lib/sddm/.local/share /var/lib/sddm/.local/share/sddm; do
			[ -e "$f" ] || REMOVE+=("$f")
		done
		for f in /var/lib/sddm/state.conf /var/lib/sddm/.local/share/sddm/xorg-session.log; do
			if [ -f "$f" ]; then backup "$f"; else REMOVE+=("$f"); fi
		done
		sddm_setup=yes
	fi
	rm -rf "$d"
	mkdir -p "$d/xsessions" "$d/wayland-sessions"
	cat >"$d/$sdir/pam-envd-dm.desktop" <<EOF
[Desktop Entry]
Name=pam_envd test session
Exec=$TMP/bin/session $n
Type=Application
EOF
	cat >/etc/sddm.conf.d/90-pam-envd-dm-test.conf <<EOF
[Autologin]
User=$u
Session=pam-envd-dm.desktop
Relogin=false

[X11]
ServerPath=$TMP/bin/xserver
SessionDir=$d/xsessions

[Wayland]
SessionDir=$d/wayland-sessions
EOF
	sddm >"$d/sddm.log" 2>&1 &
	pid=$!
	dm_started "$n" "$pid" 60 "; SDDM said:" "$d/sddm.log" || { stop_xservers; return; }
	if [ "$type" = x11 ]; then
		what="an X11 session on Xvfb through /etc/sddm/Xsession"
	else
		what="a Wayland session on VT $(val "$TMP/out/sddm.top.open_session" XDG_VTNR) through /etc/sddm/wayland-session"
	fi
	pass "$n: autologin of $u into $what"
	dm_opened "$n" sddm
	[ "$type" = x11 ] || check_wayland "$n" "$h/$n.env" "$top"
	check_login "$n" "$h/$n.env" "$h/dm-bin:$path_profile" "$seen" "$top"
	dm_logout "$n" "$pid" sddm SDDM "; SDDM said:" "$d/sddm.log"
	stop_pid "$pid"
	stop_xservers
	[ -z "$vt_orig" ] || vt_activate "$vt_orig"
	dm_closed "$n" sddm
}

# ---- SLiM ----------------------------------------------------------------------
# autologin (auto_login, default_user) into X on Xvfb.  SLiM reads only
# /etc/slim.conf: changed for the run and restored.  Its login_cmd runs
# /etc/X11/Xsession through "bash -login": /etc/profile sets PATH anew.
slim_login() {
	local n=slim d=$TMP/slim pid top seen
	have_cmds slim Xvfb xauth || { skip "$n: $H_WHY"; return; }
	dm_ready "$n" "$n" || return
	[ -f /etc/slim.conf ] || { skip "$n: no /etc/slim.conf"; return; }
	add_recorders slim "$n" '^-?session[[:space:]]' "@include common-session" || return
	rm -f "$TMP/xserver.refuse"
	# with no session in sessiondir, %session is empty: Xsession runs
	# ~/.xsession
	mkdir -p "$d/xsessions"
	printf '#!/bin/sh\nexec %s %s\n' "$TMP/bin/session" "$n" >"$h/.xsession"
	chmod 755 "$h/.xsession"
	chown "$u:" "$h/.xsession"
	backup /etc/slim.conf
	awk -v d="$d" -v x="$TMP/bin/xserver" -v u="$u" '
		$1 ~ /^(default_xserver|xserver_arguments|sessiondir|authfile|lockfile|logfile|auto_login|default_user)$/ { next }
		{ print }
		END {
			print "default_xserver " x
			print "xserver_arguments -nolisten tcp"
			print "sessiondir " d "/xsessions"
			print "authfile " d "/slim.auth"
			print "lockfile " d "/slim.lock"
			print "logfile " d "/slim.log"
			print "auto_login yes"
			print "default_user " u
		}' "$TMP/backup/%etc%slim.conf" >/etc/slim.conf
	slim -nodaemon >"$d/slim.out" 2>&1 &
	pid=$!
	dm_started "$n" "$pid" 60 "; SLiM said:" "$d/slim.out" "$d/slim.log" || { stop_xservers; return; }
	pass "$n: autologin of $u into X on Xvfb through /etc/X11/Xsession (bash -login) and ~/.xsession"
	dm_opened "$n"
	check_login "$n" "$h/$n.env" "$h/dm-bin:$path_profile" "$seen" "$top"
	dm_logout "$n" "$pid" "$n" SLiM "; SLiM said:" "$d/slim.out" "$d/slim.log"
	dm_stopped "$n" "$pid"
}

# ---- GDM -----------------------------------------------------------------------
# GDM itself cannot run here (it needs logind and gnome-shell, 180 more
# packages): its Wayland login goes through its real PAM service,
# /etc/pam.d/gdm-password of the gdm3 package (taken from the package
# with apt-get download when gdm3 is not installed, removed at the end),
# with pamtester setting what GDM's session worker sets before
# pam_open_session for a Wayland session (GDM 43: gdm-session.c
# send_session_type, gdm-session-worker.c initialize_pam and
# set_up_for_new_vt): XDG_SESSION_TYPE=wayland, XDG_SEAT=seat0 and
# XDG_VTNR of the new VT with pam_putenv (pamtester -E), PAM_TTY its
# /dev/ttyN (-I tty=).  No process runs the session: what GDM gives it is
# the PAM environment after the stack (pam_getenvlist), which the
# recorder after common-session records.  The service runs pam_env before
# common-session: the top recorder goes right before it, to see the PATH
# the module starts from.
gdm_login() {
	local n=gdm d=$TMP/gdm svc=/etc/pam.d/gdm-password vt p top want seen
	have_cmds pamtester || { skip "$n: $H_WHY"; return; }
	rm -f "$TMP"/out/gdm.*
	mkdir -p "$d"
	if [ ! -e "$svc" ]; then
		have_cmds apt-get dpkg-deb || { skip "$n: $H_WHY"; return; }
		if ! (cd "$d" && apt-get download -q gdm3) >"$d/download.log" 2>&1; then
			skip "$n: apt-get download gdm3: $(grep -E '^(E|W): ' "$d/download.log" | head -n 2)"
			return
		fi
		dpkg-deb --fsys-tarfile "$d"/gdm3_*.deb | tar -xf - -C "$d" ./etc/pam.d/gdm-password ||
			{ fail "$n: no etc/pam.d/gdm-password in $(cd "$d" && echo gdm3_*.deb)"; return; }
		REMOVE+=("$svc")
		cp "$d/etc/pam.d/gdm-password" "$svc"
		echo "dm: $n: $svc from $(cd "$d" && echo gdm3_*.deb)"
	fi
	add_recorders gdm-password gdm '^@include common-session' "@include common-session" || return
	vt=$(vt_query free)
	case $vt in '' | *[!0-9]* | -1) vt=7 ;; esac
	if ! timeout 60 pamtester -E XDG_SESSION_TYPE=wayland -E XDG_SEAT=seat0 -E "XDG_VTNR=$vt" \
		-I "tty=/dev/tty$vt" gdm-password "$u" open_session close_session >"$d/pamtester.log" 2>&1; then
		fail "$n: pamtester gdm-password $u open_session close_session: $(cat "$d/pamtester.log")"
		return
	fi
	pass "$n: a session of $u through GDM's gdm-password with what GDM sets for a Wayland session (VT $vt)"
	dm_opened "$n"
	check_wayland "$n" "$TMP/out/gdm.after.open_session" "$top"
	p=$(val "$top" PATH)
	want="$h/dm-bin:${p:-/usr/local/bin:/usr/bin:/bin}"
	check_login "$n" "$TMP/out/gdm.after.open_session" "$want" "$seen" "$top"
	dm_closed "$n" gdm "right after @include common-session" "right before @include common-session"
}

lightdm_login x11
lightdm_login wayland
greetd_login with
greetd_login without
greetd_login wayland
nodm_login
sddm_login x11
sddm_login wayland
slim_login
gdm_login

users=("${USERS[@]}")
teardown
for u in "${users[@]}"; do
	! getent passwd "$u" >/dev/null || fail "user $u is still there after userdel"
done
snapshot >"$TMP/after"
if diff -u "$TMP/before" "$TMP/after" >"$TMP/diff"; then
	pass "after the purge: common-*, the DMs' PAM services and configuration, /etc/profile.d, /etc/environment.d and the profiles as before, the users gone"
else
	fail "differences from before (- before, + now):"
	grep '^[-+][^-+]' "$TMP/diff" | head -n 40
fi
echo "dm: $(($(date +%s) - t_start)) s"
finish
