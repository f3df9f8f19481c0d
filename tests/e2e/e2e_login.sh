#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# e2e_login.sh - the deployment pair under a real login program: `login -f
# USER` on a pseudo-terminal, as root, for a real user (root only).
#
# util-linux login (Fedora, Arch, openSUSE, Debian 13) copies the PAM
# environment into its own root process right after pam_open_session and
# closes the session from that process; pam_script and pam_mount run their
# programs with that copy.  A logout script's first bare command then ran
# the user's ~/bin copy of it as root.  With the pair, the cleanup instance
# takes back in login's process environment what is still the user's, so
# the script finds the values from before.  Shadow's login (Debian 12)
# copies in its child only: there the close sees nothing of the user's
# either way, and the process environment is left alone.
#
# The login binary: $UL_LOGIN (the compat stage builds Debian 13's from its
# source package, tests/compat/run.sh), else the system's login.  It opens
# the "login" service, so the test runs in a private mount namespace with
# its stack bind-mounted over /etc/pam.d/login (the real file is never
# written).  Between the two instances: the probe module, recording the
# process environment at each call, and pam_script when installed
# ($PAM_SCRIPT_SO or the system's module directory).

. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/e2e_lib.sh"
E2E_TOOLS="python3 unshare mount" e2e_init

LOGIN=${UL_LOGIN:-$(command -v login || true)}
if [ -z "$LOGIN" ] || [ ! -x "$LOGIN" ]; then skip_all "no login program"; fi
[ -f /etc/pam.d/login ] || skip_all "no /etc/pam.d/login to bind the test stack over"
unshare -m true 2>/dev/null || skip_all "no private mount namespace (unshare -m)"
copies=no
if "$LOGIN" --version 2>/dev/null | grep -q util-linux; then copies=yes; fi
if [ "$copies" = yes ]; then
	echo "login: $LOGIN ($("$LOGIN" --version 2>/dev/null | head -n 1))"
else
	echo "login: $LOGIN (not util-linux login: it does not copy the PAM environment into its own)"
fi
PROBE=$top_builddir/tests/pam/.libs/pam_probe.so
[ -f "$PROBE" ] || { echo "FAIL: $PROBE not built"; exit 1; }
PAM_SCRIPT=${PAM_SCRIPT_SO:+$(readlink -f "$PAM_SCRIPT_SO")}
if [ -z "$PAM_SCRIPT" ]; then
	for d in /lib/*/security /usr/lib/*/security /lib/security /usr/lib/security; do
		[ -f "$d/pam_script.so" ] && PAM_SCRIPT=$d/pam_script.so && break
	done
fi

# runs argv on a new pseudo-terminal, prints what it wrote, exits with its
# status; killed after SECONDS
cat >"$E2E_TMP/bin/pty-run.py" <<'EOF'
import os, pty, select, signal, sys, time
deadline = time.time() + float(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
out, status = b"", None
while status is None:
    if time.time() > deadline:
        os.kill(pid, signal.SIGKILL)
    if select.select([fd], [], [], 0.1)[0]:
        try:
            out += os.read(fd, 4096)
        except OSError:  # the terminal is gone: every process closed it
            time.sleep(0.05)
    p, st = os.waitpid(pid, os.WNOHANG)
    if p == pid:
        status = st
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
EOF

u=$(e2e_user l)
h=$(home_of "$u")
as "$u" mkdir -p "$h/.config/environment.d" "$h/bin"
as "$u" sh -c "cat >'$h/.config/environment.d/10-mine.conf'" <<'EOF'
EDITOR=vim
NEW=new
PATH=$HOME/bin:$PATH
EOF
# the user's command of the same name as one a logout script runs
as "$u" sh -c "cat >'$h/bin/pam-envd-e2e-cmd'; chmod 755 '$h/bin/pam-envd-e2e-cmd'" <<EOF
#!/bin/sh
: >"$OUT/the-user's-command-ran-as-\$(id -un)"
EOF
# the session: the environment the shell starts with, then logout
as "$u" sh -c "cat >'$h/.profile'" <<'EOF'
/usr/bin/env -0 >"$HOME/session.env"
exit 0
EOF
# before the module at open, as pam_env would: EDITOR=nano
printf 'EDITOR=nano\n' >"$E2E_TMP/environment"
: >"$E2E_TMP/pam_env.conf"
# pam_script's scripts: record the environment they are run with, then a
# bare command, as logout scripts do
mkdir -p "$E2E_TMP/script"
for t in ses_open ses_close; do
	cat >"$E2E_TMP/script/pam_script_$t" <<EOF
#!/bin/sh
/usr/bin/env -0 >"$OUT/script.$t.env"
[ "$t" = ses_open ] || pam-envd-e2e-cmd
exit 0
EOF
	chmod 755 "$E2E_TMP/script/pam_script_$t"
done
chmod 755 "$E2E_TMP/script"

# stack [nocleanup]: the "login" service's stack
stack() {
	echo "auth     required pam_permit.so"
	echo "account  required pam_permit.so"
	[ "${1:-}" = nocleanup ] || echo "session  optional $MODULE cleanup debug"
	echo "session  required pam_env.so readenv=1 envfile=$E2E_TMP/environment conffile=$E2E_TMP/pam_env.conf user_readenv=0"
	echo "session  required $PROBE environ $OUT/probe.rec"
	[ -z "$PAM_SCRIPT" ] || echo "session  optional $PAM_SCRIPT dir=$E2E_TMP/script"
	echo "session  optional $MOD system_dirs=$SYSDIRS debug"
}

# login_run STACK-FILE: login -f USER with that stack as /etc/pam.d/login;
# sets E2E_RC
login_run() {
	rm -f "$OUT"/* "$h/session.env"
	: >"$E2E_LOG"
	E2E_RC=0
	# shellcheck disable=SC2016 # $1 and $@ are the inner shell's
	env ${PRELOAD:+LD_PRELOAD="$PRELOAD"} E2E_SYSLOG="$E2E_LOG" \
		ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" \
		unshare -m --propagation private sh -c 'mount --bind "$1" /etc/pam.d/login && shift && exec "$@"' \
		sh "$1" python3 "$E2E_TMP/bin/pty-run.py" "$((E2E_TIME_LIMIT * 3))" "$LOGIN" -f "$u" \
		>"$E2E_TMP/login.log" 2>&1 || E2E_RC=$?
	if [ "$E2E_RC" != 0 ]; then
		echo "login -f $u exited $E2E_RC:"
		tail -n 30 "$E2E_TMP/login.log"
	fi
}

# probe_get FN NAME: NAME's value in the process environment the probe
# recorded at FN (the first such call), "(unset)" when it has none
probe_get() {
	awk -v fn="== $1" -v name="$2" '
		/^== / { if (in_fn) exit; in_fn = ($0 == fn); next }
		in_fn && index($0, name "=") == 1 { print substr($0, length(name) + 2); found = 1; exit }
		END { if (!found) print "(unset)" }' "$OUT/probe.rec"
}
# script_get T NAME: the same in what pam_script's script T was run with
script_get() {
	if hasvar "$OUT/script.$1.env" "$2"; then getvar "$OUT/script.$1.env" "$2"; else echo "(unset)"; fi
}

# --- the pair ------------------------------------------------------------------
stack >"$E2E_TMP/login.pair"
login_run "$E2E_TMP/login.pair"
expect_eq "pair: login -f succeeds" "$E2E_RC" 0
expect_true "pair: the session ran" test -s "$h/session.env"
expect_eq "pair: the session gets the user's EDITOR" "$(getvar "$h/session.env" EDITOR)" vim
expect_eq "pair: the session gets the user's NEW" "$(getvar "$h/session.env" NEW)" new
expect_true "pair: the probe ran at close" grep -qx "== close_session" "$OUT/probe.rec"
# with a copy, the PAM environment's values from before (EDITOR from
# pam_env, none for the others); without, login's own environment, which
# never had them
before=nano
[ "$copies" = yes ] || before="(unset)"
for v in EDITOR:"$before" NEW:'(unset)' PATH:'(unset)'; do
	n=${v%%:*} want=${v#*:}
	expect_eq "pair: at close, $n in login's process environment is the value from before" \
		"$(probe_get close_session "$n")" "$want"
done
if [ -n "$PAM_SCRIPT" ]; then
	expect_true "pair: pam_script's logout script ran" test -s "$OUT/script.ses_close.env"
	expect_eq "pair: pam_script's logout script gets the EDITOR from before" \
		"$(script_get ses_close EDITOR)" "$before"
	expect_false "pair: pam_script's logout script gets no user PATH" \
		grep -q "$h/bin" "$OUT/script.ses_close.env"
	expect_false "pair: the user's command did not run at logout" \
		test -e "$OUT/the-user's-command-ran-as-root"
else
	skip "pam_script is not installed: the probe stands in for it"
fi
# util-linux login closes every descriptor it inherits, the syslog shim's
# too (pam_stack checks the count under its calls)
if [ -n "$E2E_SHIM" ] && [ "$copies" = no ]; then
	expect_true "pair: the count is logged (nothing in the process environment)" \
		grep -q "cleanup: 3 variables taken back, 0 in the process environment" "$E2E_LOG"
	expect_false "pair: no value in the log" grep -q "$h/bin" "$E2E_LOG"
fi

# --- without the cleanup line: what it prevents --------------------------------
if [ "$copies" = yes ]; then
	stack nocleanup >"$E2E_TMP/login.nocleanup"
	login_run "$E2E_TMP/login.nocleanup"
	expect_eq "no cleanup line: login -f succeeds" "$E2E_RC" 0
	expect_eq "no cleanup line: at close, login's process environment has the user's PATH" \
		"$(probe_get close_session PATH)" "$h/bin:/usr/local/bin:/usr/bin:/bin"
	if [ -n "$PAM_SCRIPT" ]; then
		expect_true "no cleanup line: the logout script ran the user's command as root" \
			test -e "$OUT/the-user's-command-ran-as-root"
	fi
else
	skip "$LOGIN does not copy the PAM environment into its own (not util-linux login)"
fi

e2e_finish
