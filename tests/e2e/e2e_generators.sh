#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# e2e_generators.sh - systemd's user environment generators through
# pam_envd.so's `generators` option, in a real /etc/pam.d service driven by
# pamtester for a real user (root only).
#
# Checks, with the REAL generators of gpg-agent (90gpg-agent) and flatpak
# (60-flatpak) in /usr/lib/systemd/user-environment-generators: the values
# they print reach the session (SSH_AUTH_SOCK as gpgconf says, the flatpak
# exports in XDG_DATA_DIRS, over what environment.d set); without the
# option none of it; and with generators of the test's own: one that hangs
# (the login completes within the time bound, no process of it is left,
# the files' values still apply, the rest are not run), one that prints
# LD_PRELOAD (refused by the policy), one in a directory another account
# can write (not run: its marker file never appears), one that exits 3
# (warned about, its output used, as systemd does), masking by an earlier
# directory and by a link to /dev/null, also of a real one.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/e2e_lib.sh"
e2e_init
need_cmds gpgconf flatpak
REAL=/usr/lib/systemd/user-environment-generators
for g in 60-flatpak 90gpg-agent; do
	[ -x "$REAL/$g" ] || skip_all "$REAL/$g is not installed"
done

u=$(e2e_user g)
h=$(home_of "$u")
as "$u" mkdir -p "$h/.config/environment.d" "$h/.gnupg"
as "$u" chmod 700 "$h/.gnupg"
as "$u" sh -c "echo enable-ssh-support >'$h/.gnupg/gpg-agent.conf'"
as "$u" sh -c "echo EDITOR=vim >'$h/.config/environment.d/10-editor.conf'"
# the flatpak generator must see what environment.d set
cat >"$E2E_TMP/sys/etc/environment.d/10-site.conf" <<'EOF'
SITE=example
XDG_DATA_DIRS=/opt/site/share:/usr/share
EOF

# generator directories of the test's own, root's and mode 755, but W,
# which another account can write
G=$E2E_TMP/gen
mkdir -p "$G/one" "$G/two" "$G/w" "$G/hang" "$G/maskreal"
chmod 755 "$G" "$G/one" "$G/two" "$G/hang" "$G/maskreal"
chmod 757 "$G/w"
gen() { # DIR NAME: a generator from stdin
	cat >"$1/$2"
	chmod 755 "$1/$2"
}
gen "$G/one" 45-preload <<'EOF'
#!/bin/sh
echo LD_PRELOAD=/tmp/evil.so
echo PRELOAD_NEIGHBOUR=kept
EOF
gen "$G/one" 55-fail <<'EOF'
#!/bin/sh
echo FAILED_OUTPUT=used
exit 3
EOF
gen "$G/one" 70-mask <<'EOF'
#!/bin/sh
echo MASK=early
EOF
gen "$G/two" 70-mask <<'EOF'
#!/bin/sh
echo MASK=late
EOF
ln -s /dev/null "$G/one/80-null"
gen "$G/two" 80-null <<'EOF'
#!/bin/sh
echo NULLED=ran
EOF
marker=$E2E_TMP/out/writable-dir-ran
gen "$G/w" 50-marker <<EOF
#!/bin/sh
echo ran >'$marker'
echo WRITABLE_DIR=ran
EOF
# prints, starts a child, then waits for ever: both pids to the user's home
gen "$G/hang" 40-hang <<'EOF'
#!/bin/sh
echo HANG_OUTPUT=dropped
sleep 1000 &
echo "$$ $!" >"$HOME/hang.pids"
sleep 1000
EOF
ln -s /dev/null "$G/maskreal/90gpg-agent"
# leaves a process of its own session behind, out of its process group's
# reach, and exits at once: its pid to the user's home
mkdir -p "$G/daemon" && chmod 755 "$G/daemon"
gen "$G/daemon" 40-daemon <<'EOF'
#!/bin/sh
setsid sleep 1000 </dev/null >/dev/null 2>&1 &
echo "$!" >"$HOME/daemon.pid"
echo DAEMON=started
EOF

dirs="$G/w:$G/one:$G/two:$REAL"
svc=$(e2e_service on <<EOF
session  optional $MOD system_dirs=$SYSDIRS generators generator_dirs=$dirs
session  required pam_exec.so $HELPER $OUT
EOF
)
svc_off=$(e2e_service off <<EOF
session  optional $MOD system_dirs=$SYSDIRS generator_dirs=$dirs
session  required pam_exec.so $HELPER $OUT
EOF
)
svc_hang=$(e2e_service hang <<EOF
session  optional $MOD system_dirs=$SYSDIRS generators generator_dirs=$G/hang:$REAL
session  required pam_exec.so $HELPER $OUT
EOF
)
svc_daemon=$(e2e_service daemon <<EOF
session  optional $MOD system_dirs=$SYSDIRS generators generator_dirs=$G/daemon
session  required pam_exec.so $HELPER $OUT
EOF
)
svc_mask=$(e2e_service maskreal <<EOF
session  optional $MOD system_dirs=$SYSDIRS generators generator_dirs=$G/maskreal:$REAL
session  required pam_exec.so $HELPER $OUT
EOF
)

# what gpg-agent's generator prints for this user, asked of gpgconf as the
# user with the environment the generator gets (HOME, no runtime directory)
want_sock=$(as "$u" env -i HOME="$h" PATH=/usr/local/bin:/usr/bin:/bin \
	gpgconf --list-dirs agent-ssh-socket)

# --- the real generators, and the test's own -------------------------------
: >"$E2E_LOG"
e2e_pam "$svc" "$u" open_session
r=$(record "$u")
expect_eq "open_session succeeds" "$E2E_RC" 0
expect_eq "the files apply: user" "$(getvar "$r" EDITOR)" vim
expect_eq "the files apply: system" "$(getvar "$r" SITE)" example
expect_true "gpg-agent's generator: SSH_AUTH_SOCK as gpgconf says ($want_sock)" \
	test -n "$want_sock" -a "$(getvar "$r" SSH_AUTH_SOCK)" = "$want_sock"
expect_eq "gpg-agent's generator: GSM_SKIP_SSH_AGENT_WORKAROUND" \
	"$(getvar "$r" GSM_SKIP_SSH_AGENT_WORKAROUND)" true
xdd=$(getvar "$r" XDG_DATA_DIRS)
expect_eq "flatpak's generator: the user's exports first in XDG_DATA_DIRS" \
	"${xdd%%:*}" "$h/.local/share/flatpak/exports/share"
expect_true "flatpak's generator: the system's exports in XDG_DATA_DIRS ($xdd)" \
	grep -qx /var/lib/flatpak/exports/share <<<"${xdd//:/$'\n'}"
expect_true "flatpak's generator saw environment.d's XDG_DATA_DIRS ($xdd)" \
	grep -qx /opt/site/share <<<"${xdd//:/$'\n'}"
expect_false "LD_PRELOAD from a generator is refused" hasvar "$r" LD_PRELOAD
expect_eq "the rest of that generator's output applies" \
	"$(getvar "$r" PRELOAD_NEIGHBOUR)" kept
expect_true "the refusal is logged with the generator's name" \
	grep -q "$G/one/45-preload:1: LD_PRELOAD: LD_PRELOAD refused" "$E2E_LOG"
expect_false "no value in the log" grep -q evil.so "$E2E_LOG"
expect_eq "a generator that exits 3: its output used, as by systemd" \
	"$(getvar "$r" FAILED_OUTPUT)" used
expect_true "a generator that exits 3: warned about" \
	grep -q "55-fail: generator exited with a status other than 0" "$E2E_LOG"
expect_eq "an earlier directory masks a later one's generator" "$(getvar "$r" MASK)" early
expect_false "a link to /dev/null masks a later generator" hasvar "$r" NULLED
expect_false "a directory another account can write: not run" test -e "$marker"
expect_false "a directory another account can write: no output" hasvar "$r" WRITABLE_DIR
expect_true "a directory another account can write: logged" \
	grep -q "$G/w: generator directory: writable by group or others, skipped" "$E2E_LOG"
if [ -x "${ENVD:-}" ]; then
	"$ENVD" -q --generators --generator-dirs="$dirs" --root "$E2E_TMP/sys" \
		show --explain "$u" >"$E2E_TMP/explain.out"
	expect_true "envd show --explain names the generator that set a variable" \
		grep -qx "# $REAL/90gpg-agent:1" "$E2E_TMP/explain.out"
	expect_true "envd show --explain: its variable follows" \
		grep -A1 -x "# $REAL/90gpg-agent:1" "$E2E_TMP/explain.out" |
		grep -qx "SSH_AUTH_SOCK=$want_sock"
fi

# --- off by default ----------------------------------------------------------
rm -f "$OUT"/*
e2e_pam "$svc_off" "$u" open_session
r=$(record "$u")
expect_eq "without the option: the files apply" "$(getvar "$r" EDITOR)" vim
expect_false "without the option: no generator runs" hasvar "$r" SSH_AUTH_SOCK
expect_eq "without the option: XDG_DATA_DIRS from environment.d only" \
	"$(getvar "$r" XDG_DATA_DIRS)" /opt/site/share:/usr/share

# --- masking a real generator ------------------------------------------------
rm -f "$OUT"/*
e2e_pam "$svc_mask" "$u" open_session
r=$(record "$u")
expect_false "a /dev/null link masks the real 90gpg-agent" hasvar "$r" SSH_AUTH_SOCK
expect_true "the real 60-flatpak still runs" \
	grep -qx "$h/.local/share/flatpak/exports/share" <<<"$(getvar "$r" XDG_DATA_DIRS | tr : '\n')"

# --- a generator that hangs ------------------------------------------------
rm -f "$OUT"/* "$h/hang.pids"
: >"$E2E_LOG"
e2e_pam "$svc_hang" "$u" open_session
r=$(record "$u")
expect_eq "a hanging generator: open_session succeeds" "$E2E_RC" 0
# the user side's 3 s and the rest of the login; memcheck slows the rest
hang_ms=4500
[ ${#VG[@]} = 0 ] || hang_ms=15000
expect_true "a hanging generator: the login takes the user side's bound (${E2E_MS} ms)" \
	test "$E2E_MS" -lt "$hang_ms"
expect_eq "a hanging generator: the user's files still apply" "$(getvar "$r" EDITOR)" vim
expect_eq "a hanging generator: the system files still apply" "$(getvar "$r" SITE)" example
expect_false "a hanging generator: its output is dropped" hasvar "$r" HANG_OUTPUT
expect_false "a hanging generator: the generators after it are not run" \
	hasvar "$r" SSH_AUTH_SOCK
expect_true "a hanging generator: said in the log" \
	grep -q "40-hang: generator still running at the time limit: killed" "$E2E_LOG"
expect_true "a hanging generator: it ran" test -s "$h/hang.pids"
left=
for p in $(cat "$h/hang.pids" 2>/dev/null); do
	for _ in $(seq 1 50); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	! kill -0 "$p" 2>/dev/null || left="$left $p"
done
expect_eq "a hanging generator: no process of it is left" "$left" ""
[ -z "$left" ] || kill -9 $left

# --- a generator that leaves a process of its own session behind ------------
rm -f "$OUT"/* "$h/daemon.pid"
e2e_pam "$svc_daemon" "$u" open_session
r=$(record "$u")
expect_eq "a generator that leaves a daemon: its output used" "$(getvar "$r" DAEMON)" started
expect_true "a generator that leaves a daemon: it ran" test -s "$h/daemon.pid"
left=
for p in $(cat "$h/daemon.pid" 2>/dev/null); do
	for _ in $(seq 1 50); do
		kill -0 "$p" 2>/dev/null || break
		sleep 0.1
	done
	! kill -0 "$p" 2>/dev/null || left="$left $p"
done
expect_eq "a generator that leaves a daemon: nothing of it outlives the login" "$left" ""
[ -z "$left" ] || kill -9 $left

e2e_finish
