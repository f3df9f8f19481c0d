#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# e2e_clients.sh - the client families of issue 36 (a display, a bus, a
# mail system, a directory), against the real clients run as root (root
# only).
#
# As e2e_tools.sh: a user's environment.d files set, family by family, what
# made a real client run the user's code or hand over a secret as root,
# next to a harmless variable; the service stacks pam_envd, the recording
# helper and a root pam_exec helper that runs the clients as a login
# notifier would.  The servers the user runs (an X server, a listener) are
# the user's processes, on local sockets and 127.0.0.1 only, each with a
# time limit, and killed by pid at exit (started with setpriv, not the
# `as` function, so that the pid is the process's own).
#   bus      the user's own Xvfb holds the selection libdbus's autolaunch
#            looks for, with a unixexec: address: a root `dbus-send
#            --session` with the user's DISPLAY (and autolaunch:, or no
#            address) ran `dbus-launch --autolaunch`, which took the
#            address from the user's X server and ran the user's command
#   display  another user's Xvfb wants the cookie of their 0600
#            ~/.Xauthority: a root `xdpyinfo` on that display, with the
#            user's XAUTHORITY naming the file, got in
#   postfix  a root `sendmail -bp` (and `sendmail root`) read the user's
#            main.cf from MAIL_CONFIG and ran the user's postqueue
#            (postdrop) as root, and with MAIL_DEBUG its debugger_command:
#            Postfix checks MAIL_CONFIG only for callers that are not root
#   ldap     a root `ldapsearch -x` dlopen()ed every .so in the user's
#            SASL_PATH, and sent its bind password, read from a 0600 root
#            file, to the user's listener that LDAPURI named
#   ssh      a root `ssh-keygen -K` ran the user's SSH_SK_HELPER
#   mail check  the names of the mail family that lib/policy_reviewed.tsv
#            keeps (MAIL, MAILPATH, MAILCHECK: an interactive shell's mail
#            check) arrive, and the root shells run with them reach
#            nothing of the user's: the mailbox they name is a FIFO whose
#            writer (the user's) would see any open
# Each family asserts that the names did not reach the root helper, that
# the side effect did not happen, and that the harmless variable arrived.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/e2e_lib.sh"
e2e_init

u=$(e2e_user c)
v=$(e2e_user v)
uh=$(home_of "$u")
vh=$(home_of "$v")
ud=$uh/.config/environment.d
PW=$E2E_TMP/pwned # markers: root-only, so only a root process can make them
RH=$E2E_TMP/roothome # the root helper's HOME: no cookie of root's
mkdir -p "$ud" "$uh/bin" "$PW" "$RH"
chmod 700 "$PW" "$RH"

# the clients, each when installed (./dev deps installs them all; under
# CI=true a missing one fails here, else its family says what it leaves
# unchecked)
have_cmds Xvfb xauth xdpyinfo dbus-launch dbus-send sendmail ldapsearch ssh-keygen python3 || true
have() { command -v "$1" >/dev/null 2>&1; }

# payload NAME: a script of the user's that leaves the marker NAME with
# the uid it ran as.
payload() {
	printf '#!/bin/sh\nid -u >%s/%s\n' "$PW" "$1" >"$uh/bin/$1"
	chmod 755 "$uh/bin/$1"
}
userfile() { cat >"$ud/$1.conf"; }
# so NAME: a shared object of the user's whose constructor leaves the
# marker NAME; prints its path, or nothing without a compiler
so() {
	mkdir -p "$uh/so-$1"
	${CC:-cc} -shared -fPIC -o "$uh/so-$1/lib$1.so" -x c - 2>/dev/null <<EOF &&
#include <fcntl.h>
__attribute__((constructor)) static void f(void) { creat("$PW/$1", 0600); }
EOF
		echo "$uh/so-$1"
}

# --- the X servers: the user's (no access control: it is the user's),
# and another user's that wants the cookie of its 0600 ~/.Xauthority ----
X11_DIR_MADE=no
XPIDS=()
# shellcheck disable=SC2317 # run by at_exit
x_cleanup() {
	local p
	for p in "${XPIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${XPIDS[@]}"; do
		for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
	done
	[ "$X11_DIR_MADE" = no ] || rmdir /tmp/.X11-unix 2>/dev/null
}
at_exit x_cleanup
# xserver USER AUTH: starts Xvfb as USER on a free display (AUTH: -ac, or
# an authority file) and prints its number
xserver() {
	local who=$1 auth=$2 n pid
	for n in $(seq $((600 + $$ % 300)) 999); do
		if [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ]; then continue; fi
		if [ "$auth" = -ac ]; then set -- -ac; else set -- -auth "$auth"; fi
		setpriv --reuid="$who" --regid="$(id -g "$who")" --init-groups -- \
			timeout 300 Xvfb ":$n" -nolisten tcp -nolisten local "$@" \
			>"$E2E_TMP/xvfb-$n.log" 2>&1 &
		pid=$!
		echo "$pid" >>"$E2E_TMP/created-pids"
		for _ in $(seq 1 100); do
			[ -S "/tmp/.X11-unix/X$n" ] && { echo "$n $pid"; return 0; }
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill "$pid" 2>/dev/null
	done
	return 1
}
XU=''
XV=
if have Xvfb && have xauth; then
	if [ ! -d /tmp/.X11-unix ]; then
		mkdir -m 1777 /tmp/.X11-unix && X11_DIR_MADE=yes
	fi
	if r=$(xserver "$u" -ac); then
		XU=${r% *}
		XPIDS+=("${r#* }")
	fi
	# the server loads every cookie of the file; a client looks one up by
	# the display's number, added once the server has one
	cookie=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
	as "$v" xauth -q -f "$vh/.Xauthority" add ":0" . "$cookie" 2>/dev/null
	if r=$(xserver "$v" "$vh/.Xauthority"); then
		XV=${r% *}
		XPIDS+=("${r#* }")
		as "$v" xauth -q -f "$vh/.Xauthority" add ":$XV" . "$cookie"
		chmod 600 "$vh/.Xauthority"
	fi
fi

# bus: the selection dbus-launch --autolaunch looks for on the user's X
# server, root's (the caller's name and the machine id), held by the
# user's client with a unixexec: address
payload dbus_autolaunch
SEL_READY=no
mid=$(cat /var/lib/dbus/machine-id 2>/dev/null || cat /etc/machine-id 2>/dev/null)
if [ -n "$XU" ] && [ -n "$mid" ] &&
	${CC:-cc} -o "$uh/bin/x-selection" -x c - -lX11 2>/dev/null <<'EOF'; then
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
/* x-selection SELECTION ADDRESS SECONDS: owns SELECTION on $DISPLAY with a
 * window whose _DBUS_SESSION_BUS_ADDRESS is ADDRESS, for SECONDS */
int main(int argc, char **argv)
{
	Display *d;
	Window w;
	long pid = getpid();

	if (argc != 4 || !(d = XOpenDisplay(NULL)))
		return 1;
	w = XCreateSimpleWindow(d, DefaultRootWindow(d), 0, 0, 1, 1, 0, 0, 0);
	XChangeProperty(d, w, XInternAtom(d, "_DBUS_SESSION_BUS_ADDRESS", False), XA_STRING, 8,
	                PropModeReplace, (unsigned char *)argv[2], (int)strlen(argv[2]));
	XChangeProperty(d, w, XInternAtom(d, "_DBUS_SESSION_BUS_PID", False), XA_CARDINAL, 32,
	                PropModeReplace, (unsigned char *)&pid, 1);
	XSetSelectionOwner(d, XInternAtom(d, argv[1], False), w, CurrentTime);
	XSync(d, False);
	puts("ready");
	fflush(stdout);
	sleep((unsigned)atoi(argv[3]));
	return 0;
}
EOF
	setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups -- env DISPLAY=":$XU" \
		"$uh/bin/x-selection" "_DBUS_SESSION_BUS_SELECTION_root_$mid" \
		"unixexec:path=$uh/bin/dbus_autolaunch" 240 >"$E2E_TMP/x-selection.out" 2>&1 &
	echo $! >>"$E2E_TMP/created-pids"
	XPIDS+=("$!")
	for _ in $(seq 1 50); do
		grep -q ready "$E2E_TMP/x-selection.out" && { SEL_READY=yes; break; }
		sleep 0.1
	done
fi
userfile 10-bus <<EOF
DISPLAY=:${XU:-99}
DBUS_SESSION_BUS_ADDRESS=autolaunch:
HARMLESS_BUS=ok-bus
EOF

# display: the other user's cookie file, for the display the root helper
# shows its notice on (its own choice, not the user's); ICEAUTHORITY and
# SESSION_MANAGER, the session manager's twins, alone
userfile 20-display <<EOF
XAUTHORITY=$vh/.Xauthority
ICEAUTHORITY=$vh/.ICEauthority
SESSION_MANAGER=local/x:@/tmp/.ICE-unix/1,unix/x:/tmp/.ICE-unix/1
HARMLESS_DISPLAY=ok-display
EOF

# postfix: the user's main.cf puts command_directory in the user's home
# and names a debugger_command, which MAIL_DEBUG runs
payload postfix_postqueue
payload postfix_postdrop
payload postfix_debugger
mkdir -p "$uh/postfix/bin"
printf 'command_directory = %s/postfix/bin\ndebugger_command = %s/bin/postfix_debugger\n' \
	"$uh" "$uh" >"$uh/postfix/main.cf"
cp "$uh/bin/postfix_postqueue" "$uh/postfix/bin/postqueue"
cp "$uh/bin/postfix_postdrop" "$uh/postfix/bin/postdrop"
userfile 30-postfix <<EOF
MAIL_CONFIG=$uh/postfix
MAIL_DEBUG=1
MAIL_VERBOSE=1
HARMLESS_POSTFIX=ok-postfix
EOF

# ldap: a SASL plugin directory, and the user's listener as the server
SASL_DIR=$(so sasl) || SASL_DIR=
LPORT=
if have python3; then
	cat >"$uh/bin/listen.py" <<'EOF'
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(1)
s.settimeout(float(sys.argv[2]))
with open(sys.argv[1] + ".port", "w") as f:
    f.write(str(s.getsockname()[1]))
try:
    c, _ = s.accept()
    c.settimeout(5)
    with open(sys.argv[1], "wb") as f:
        f.write(c.recv(4096))
except OSError:
    pass
EOF
	chown -R "$u:" "$uh"
	setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups -- \
		timeout 240 python3 "$uh/bin/listen.py" "$uh/ldap.capture" 230 &
	echo $! >>"$E2E_TMP/created-pids"
	XPIDS+=("$!")
	for _ in $(seq 1 50); do
		[ -s "$uh/ldap.capture.port" ] && { LPORT=$(cat "$uh/ldap.capture.port"); break; }
		sleep 0.1
	done
fi
printf 'URI ldap://127.0.0.1:%s\n' "${LPORT:-9}" >"$uh/ldap.conf"
userfile 40-ldap <<EOF
SASL_PATH=${SASL_DIR:-$uh/so-sasl}
LDAPURI=ldap://127.0.0.1:${LPORT:-9}
LDAPCONF=$uh/ldap.conf
LDAPTLS_REQCERT=never
HARMLESS_LDAP=ok-ldap
EOF
printf 'root-bind-secret' >"$E2E_TMP/bindpw"

# ssh: the helper that talks to security keys, run by ssh-keygen -K (and
# by ssh and ssh-add for a key of that kind); the PKCS#11 one, ssh-agent's
payload ssh_sk_helper
payload ssh_pkcs11_helper
userfile 50-ssh <<EOF
SSH_SK_HELPER=$uh/bin/ssh_sk_helper
SSH_PKCS11_HELPER=$uh/bin/ssh_pkcs11_helper
HARMLESS_SSH=ok-ssh
EOF
chmod 600 "$E2E_TMP/bindpw"

# mail check: the mailbox is a FIFO; the user's writer leaves a marker as
# soon as anything opens it for reading
mkfifo "$uh/mailbox"
userfile 60-mailcheck <<EOF
MAIL=$uh/mailbox
MAILPATH=$uh/mailbox
MAILCHECK=0
HARMLESS_MAILCHECK=ok-mailcheck
EOF

chown -R "$u:" "$uh"
chmod -R go-w "$uh"
# shellcheck disable=SC2016 # expanded by that sh
setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups -- timeout 240 \
	sh -c 'echo x >"$1" && : >"$1.opened"' sh "$uh/mailbox" >/dev/null 2>&1 &
echo $! >>"$E2E_TMP/created-pids"
XPIDS+=("$!")

# --- the root helper: a login notifier that runs ordinary clients -------
CLIENTS=$E2E_TMP/bin/run-clients
cat >"$CLIENTS" <<EOF
#!/bin/bash
[ "\${PAM_TYPE:-}" = open_session ] || exit 0
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=$RH
exec >>"$OUT/clients.log" 2>&1 </dev/null
cd /
run() { echo "== \$*"; timeout 20 "\$@"; echo "rc=\$?"; }
have() { command -v "\$1" >/dev/null 2>&1; }
have dbus-send && run dbus-send --session --print-reply --reply-timeout=2000 \
	--dest=org.freedesktop.DBus / org.freedesktop.DBus.Peer.Ping
have xdpyinfo && [ -n "$XV" ] && DISPLAY=:$XV timeout 20 xdpyinfo >"$OUT/xdpyinfo.out" 2>&1
have sendmail && run sendmail -bp
# a mail to root only where Postfix has no configuration of its own: it
# fails at once there, and queues nothing on a machine that has one
have sendmail && [ ! -e /etc/postfix/main.cf ] && printf 'Subject: login\n\n' | run sendmail root
have ssh-keygen && (cd $RH && run ssh-keygen -K)
run bash -c true
run sh -c true
run bash -l -c true
have ldapsearch && run ldapsearch -x -o nettimeout=3 -D cn=notifier,dc=example \
	-y $E2E_TMP/bindpw -b dc=example
exit 0
EOF
chmod 755 "$CLIENTS"

svc=$(e2e_service clients <<EOF
auth     required pam_permit.so
account  required pam_permit.so
session  optional $MOD system_dirs=$SYSDIRS
session  required pam_exec.so $HELPER $OUT
session  optional pam_exec.so $CLIENTS
EOF
)

E2E_TIME_LIMIT=$((E2E_TIME_LIMIT * 6)) # the clients start up one after the other
e2e_pam "$svc" "$u" open_session
expect_eq "the session opens" "$E2E_RC" 0
r=$(record "$u")
if [ ! -s "$r" ] || [ ! -s "$OUT/clients.log" ]; then
	fail "the helpers after the module did not run"
	e2e_finish
fi

# family DESC HARMLESS NAME...: the harmless variable arrived, the named
# ones did not
family() {
	local desc=$1 harmless=$2 want
	shift 2
	want=${harmless#HARMLESS_}
	expect_eq "$desc: the harmless $harmless arrives" "$(getvar "$r" "$harmless")" "ok-${want,,}"
	for n in "$@"; do
		expect_false "$desc: $n does not reach the root helper" hasvar "$r" "$n"
	done
}
# ran DESC MARKER: no marker MARKER made as root
ran() { expect_false "$1: not run as root" test -e "$PW/$2"; }

family bus HARMLESS_BUS DISPLAY DBUS_SESSION_BUS_ADDRESS
if [ "$SEL_READY" = yes ] && have dbus-send && have dbus-launch; then
	ran "bus: the unixexec: command that autolaunch took from the user's X server" \
		dbus_autolaunch
else
	skip "bus: no Xvfb, dbus-launch, dbus-send, Xlib or machine id: autolaunch not checked"
fi

family display HARMLESS_DISPLAY XAUTHORITY ICEAUTHORITY SESSION_MANAGER
if [ -n "$XV" ] && have xdpyinfo; then
	expect_true "display: the root xdpyinfo ran" test -s "$OUT/xdpyinfo.out"
	expect_false "display: the root xdpyinfo did not get into the other user's display" \
		grep -q 'name of display' "$OUT/xdpyinfo.out"
else
	skip "display: no Xvfb, xauth or xdpyinfo: the cookie is not checked"
fi

family postfix HARMLESS_POSTFIX MAIL_CONFIG MAIL_DEBUG MAIL_VERBOSE
if have sendmail; then
	ran "postfix: the user's postqueue (sendmail -bp)" postfix_postqueue
	ran "postfix: the user's postdrop (sendmail root)" postfix_postdrop
	ran "postfix: the user's debugger_command (MAIL_DEBUG)" postfix_debugger
else
	skip "postfix: sendmail is not installed, its side effect is not checked"
fi

family ldap HARMLESS_LDAP SASL_PATH LDAPURI LDAPCONF LDAPTLS_REQCERT
if have ldapsearch && [ -n "$SASL_DIR" ]; then
	ran "ldap: the user's SASL plugin" sasl
else
	skip "ldap: no ldapsearch or compiler: SASL_PATH not checked"
fi
if have ldapsearch && [ -n "$LPORT" ]; then
	expect_false "ldap: the root bind password did not reach the user's listener" \
		grep -qs root-bind-secret "$uh/ldap.capture"
else
	skip "ldap: no ldapsearch or python3: LDAPURI not checked"
fi

family ssh HARMLESS_SSH SSH_SK_HELPER SSH_PKCS11_HELPER
if have ssh-keygen; then
	ran "ssh: the user's security key helper (ssh-keygen -K)" ssh_sk_helper
else
	skip "ssh: ssh-keygen is not installed, its side effect is not checked"
fi

# the reviewed mail check names: they arrive, and no root shell opened the
# mailbox they name
family "mail check" HARMLESS_MAILCHECK
for n in MAIL MAILPATH MAILCHECK; do
	expect_true "mail check: the reviewed $n arrives" hasvar "$r" "$n"
done
expect_false "mail check: no root shell opened the mailbox MAIL names" \
	test -e "$uh/mailbox.opened"

expect_false "no value naming the user's home reaches the root helper but the mailbox" \
	grep -qF "$uh" <(tr '\0' '\n' <"$r" | grep -v '^MAIL\(PATH\)\?=')
expect_false "no value naming the other user's home reaches the root helper" grep -qF "$vh" "$r"

if [ "$H_FAILS" != 0 ]; then
	echo "--- what the clients said"
	cat "$OUT/clients.log"
	head -n 5 "$OUT/xdpyinfo.out" 2>/dev/null
fi
e2e_finish
