#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/e2e/golden_check.sh - the exact text a user sees (stdout, stderr and
# exit status) for what `envd check`, `show --explain` and `files` say
# about a login: the lines systemd reads otherwise than they look, the
# user's assignments that a later system file replaces, the login before
# pam_envd.so (XDG_RUNTIME_DIR from pam_systemd.so, --set, the variables
# each session sets), and the directories searched.  Every reading named
# here was checked against systemd's generator; tests/conformance/cases.py
# holds the same lines (issue25_*), checked against it on every run.
#
# An automake test: $ENVD and $top_srcdir come from the Makefile; run by
# hand it finds them from its own location.  Exit 0 pass, 1 fail.

# Literal $ in single quotes is meant; cleanup runs from a trap.
# shellcheck disable=SC1003,SC2016,SC2317

if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -u
umask 022
export LC_ALL=C.UTF-8

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir/_build/plain}

. "$top_srcdir/tests/lib/harness.sh"
harness_init golden_check.sh check
need_envd
need_caller_account
make_tmpdir T envd-golden
H_OUT=$T/out H_ERR=$T/err
uid=$(id -u)
# envd expands $HOME from the caller's passwd entry, as the module does
# from the user's: the environment's HOME (debhelper's, a build user's)
# may be another directory
pwhome=$(getent passwd "$uid" | cut -d: -f6)

# mkroot DIR: an empty --root tree with the four system directories
mkroot() {
	mkdir -p "$1/etc/environment.d" "$1/run/environment.d" \
		"$1/usr/local/lib/environment.d" "$1/usr/lib/environment.d"
}
# pamdir DIR LINE...: a PAM directory with one service, "login", of LINEs
pamdir() {
	local d=$1
	shift
	mkdir -p "$d"
	printf '%s\n' "$@" >"$d/login"
}
# a service that applies pam_envd.so, without pam_systemd.so: no
# XDG_RUNTIME_DIR, and no "no service applies pam_envd.so" either
NOPAM=$T/pam-nosystemd
pamdir "$NOPAM" 'session optional pam_envd.so cleanup' 'session optional pam_envd.so'

# ---- the six lines systemd reads otherwise ---------------------------------------
S=$T/six
mkroot "$S/r"
mkdir -p "$S/u"
cat >"$S/u/50-six.conf" <<'EOF'
EDITOR vim
GREETING="hello world"  # c
A=${X-default}
C=$HOME/"my dir"
XDG_DATA_DIRS=$HOME/.local/share/flatpak/exports/share:$XDG_DATA_DIRS
NAME="unterminated
B=1
EOF
f=$S/u/50-six.conf
six="$f:1: warning: no '=' on this line: systemd ignores it; write EDITOR=VALUE
$f:2: warning: GREETING: the text after the closing quote is joined to the value, the blanks dropped ('#' starts a comment only at the start of a line); move it to a line of its own
$f:3: warning: \${X-...} is not a form systemd knows: it expands to nothing; write \${X:-...}
$f:4: warning: C: a quote after the start of the value is kept as a character, it quotes nothing; quote the whole value: C=\"...\"
$f:5: warning: \$XDG_DATA_DIRS is not set here, as at a login: the value loses the defaults /usr/local/share:/usr/share that programs assume when it is unset; write \${XDG_DATA_DIRS:-/usr/local/share:/usr/share}
$f:6: warning: NAME: the quote opened on this line is never closed: the value takes every line to the end of the file; close the quote
"
e --pam-dir="$NOPAM" --root="$S/r" --user-dir="$S/u" check
expect_rc "check: the six lines" 1
expect_out "check: each of the six lines at file:line with its fix" "$six"
expect_no_err "check: the six lines"
e --pam-dir="$NOPAM" --root="$S/r" --user-dir="$S/u" -q check
expect_rc "check -q: the six lines" 1
expect_no_out "check -q: the six lines"
# what each line gives (as systemd's generator gives it)
e --pam-dir="$NOPAM" --root="$S/r" --user-dir="$S/u" show
expect_out "show: what the six lines give" "GREETING=hello world# c
A=
C=$pwhome/\"my dir\"
XDG_DATA_DIRS=$pwhome/.local/share/flatpak/exports/share:
NAME=\$'unterminated\\nB=1\\n'
"
expect_no_err "show: the six lines are no error"

# the other forms and names of the same findings
cat >"$S/u/50-six.conf" <<'EOF'
-x y
P=${X+alt}
Q=${X=d}
R=${X?e}
XDG_CONFIG_DIRS=$XDG_CONFIG_DIRS:/opt/xdg
T='single'   'joined'
U=a'b'
EOF
e --pam-dir="$NOPAM" --root="$S/r" --user-dir="$S/u" check
expect_rc "check: other forms" 1
expect_out "check: other forms, exactly" "$f:1: warning: no '=' on this line: systemd ignores it; write NAME=VALUE
$f:2: warning: \${X+...} is not a form systemd knows: it expands to nothing; write \${X:+...}
$f:3: warning: \${X=...} is not a form systemd knows: it expands to nothing; only \${X:-...} and \${X:+...} are
$f:4: warning: \${X?...} is not a form systemd knows: it expands to nothing; only \${X:-...} and \${X:+...} are
$f:5: warning: \$XDG_CONFIG_DIRS is not set here, as at a login: the value loses the defaults /etc/xdg that programs assume when it is unset; write \${XDG_CONFIG_DIRS:-/etc/xdg}
$f:6: warning: T: the text after the closing quote is joined to the value, the blanks dropped ('#' starts a comment only at the start of a line); move it to a line of its own
$f:7: warning: U: a quote after the start of the value is kept as a character, it quotes nothing; quote the whole value: U=\"...\"
"
# a line without '=' may be a pasted secret: only a short first word
# before a blank is shown of it
printf 'ghp_S3CRETT0KEN0123456789\nabc_longer_than_sixteen more\n' >"$S/u/50-six.conf"
e --pam-dir="$NOPAM" --root="$S/r" --user-dir="$S/u" check
expect_out "check: a line without '=' that may be a secret is not shown" "$f:1: warning: no '=' on this line: systemd ignores it; write NAME=VALUE
$f:2: warning: no '=' on this line: systemd ignores it; write NAME=VALUE
"
# what is fine stays quiet: a closing quote with text right after it, a
# quote escaped or inside the other quotes, the supported forms, and
# XDG_DATA_DIRS with its defaults
cat >"$S/u/50-six.conf" <<'EOF'
A="x"y
B=a\"b
C="say 'hi'"
D=${X:-d}${X:+a}
XDG_DATA_DIRS=/opt/share:${XDG_DATA_DIRS:-/usr/local/share:/usr/share}
E=1
EOF
e --pam-dir="$NOPAM" --root="$S/r" --user-dir="$S/u" check
expect_rc "check: the correct forms" 0
expect_no_out "check: the correct forms"
rm "$S/u/50-six.conf"

# ---- a comment ending in a backslash ---------------------------------------------
# systemd before 254 (Debian 12's 252) continues such a comment over the
# next line; check warns where that line is read today (not a blank or a
# comment line), nowhere else: two backslashes, a CRLF, a blank line after
S=$T/bsl
mkroot "$S/r"
mkdir -p "$S/u"
printf '%s\n' '# comment \' 'A=1' 'B=2' '# x\\' 'C=1' '; a \' '# b \' 'D=3' \
	'# blank next \' '' 'G=7' >"$S/u/10-c.conf"
printf '#e\\\r\nF=6\n' >>"$S/u/10-c.conf"
f=$S/u/10-c.conf
bsl="this comment ends in a backslash: systemd before 254 (Debian 12's 252) continues the comment over the next line, which it then does not read; end the comment with another character"
e --pam-dir="$NOPAM" --root="$S/r" --user-dir="$S/u" check
expect_rc "check: comments ending in a backslash" 1
expect_out "check: a comment ending in a backslash, where a line is lost" "$f:1: warning: $bsl
$f:7: warning: $bsl
"
e --pam-dir="$NOPAM" --root="$S/r" --user-dir="$S/u" show
expect_out "show: every assignment read (systemd 254 and later)" "A=1
B=2
C=1
D=3
G=7
F=6
"
# the real generator drops exactly the lines after the warned ones (A, D)
# where it is systemd before 254, none where it is later
gen=/usr/lib/systemd/user-environment-generators/30-systemd-environment-d-generator
sdv=
if [ -x "$gen" ] && have_cmds systemctl; then
	sdv=$(systemctl --version 2>/dev/null | sed -n '1s/^systemd \([0-9]*\).*/\1/p')
fi
if [ -n "$sdv" ]; then
	mkdir -p "$S/cfg"
	ln -s "$S/u" "$S/cfg/environment.d"
	env -i HOME="$S" XDG_CONFIG_HOME="$S/cfg" "$gen" 2>/dev/null | grep -E '^[A-G]=' |
		cut -d= -f1 | sort >"$T/gen"
	printf '%s\n' A B C D F G >"$T/all"
	lost=$(comm -23 "$T/all" "$T/gen" | tr '\n' ' ')
	if [ "$sdv" -lt 254 ]; then want="A D "; else want=""; fi
	if [ "$lost" = "$want" ]; then
		pass "systemd $sdv's generator loses [${lost}], the lines after the warned comments"
	else
		fail "systemd $sdv's generator loses [${lost}], wanted [${want}]"
	fi
else
	skip "systemd's environment.d generator is not installed"
fi

# ---- a system file read later replaces the user's value --------------------------
W=$T/wins
mkroot "$W/r"
mkdir -p "$W/u"
printf 'PATH=$HOME/.local/bin:$PATH\n' >"$W/u/10-path.conf"
printf 'EDITOR=vim\n' >"$W/u/10-editor.conf"
printf 'EDITOR=nano\n' >"$W/r/etc/environment.d/20-editor.conf"
printf 'PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"\n' \
	>"$W/r/usr/lib/environment.d/99-environment.conf"
E_=$W/r/etc/environment.d UL=$W/r/usr/lib/environment.d
replaced="$W/u/10-editor.conf:1: warning: EDITOR is replaced by $E_/20-editor.conf:1, which is read later (files are read in the order of their names, whatever their directory): rename this file to sort after 20-editor.conf, such as zz-10-editor.conf (a \$EDITOR in the value then takes the system's value)
$W/u/10-path.conf:1: warning: PATH is replaced by $UL/99-environment.conf:1, which is read later (files are read in the order of their names, whatever their directory): rename this file to sort after 99-environment.conf, such as zz-10-path.conf (a \$PATH in the value then takes the system's value)
"
e --pam-dir="$NOPAM" --root="$W/r" --user-dir="$W/u" check
expect_rc "check: user values a later system file replaces" 1
expect_out "check: each replaced user assignment, both files, how to win" "$replaced"
e --pam-dir="$NOPAM" --root="$W/r" --user-dir="$W/u" show --explain
expect_rc "show --explain: replaced values" 0
expect_out "show --explain: the replaced assignment, the login, directories, findings" "# before pam_envd.so the login has HOME, USER, LOGNAME and SHELL from the passwd entry, PATH, and:
#   no XDG_RUNTIME_DIR: pam_systemd.so is not before pam_envd.so in any of the 1 service that apply it
#   not known here, each session sets them: XDG_SESSION_TYPE, XDG_SESSION_DESKTOP, XDG_CURRENT_DESKTOP, DISPLAY... (--set gives one)
# $E_/20-editor.conf:1 (replaces $W/u/10-editor.conf:1)
EDITOR=nano
# $UL/99-environment.conf:1 (replaces $W/u/10-path.conf:1)
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# directories, highest precedence first:
#   used    $W/u/ (user directory, 2 .conf files)
#   used    $E_/ (system directory, 1 .conf file)
#   used    $W/r/run/environment.d/ (system directory, 0 .conf files)
#   used    $W/r/usr/local/lib/environment.d/ (system directory, 0 .conf files)
#   used    $UL/ (system directory, 1 .conf file)
# files, in the order they are read:
#   used    $W/u/10-editor.conf
#   used    $W/u/10-path.conf
#   used    $E_/20-editor.conf
#   used    $UL/99-environment.conf
# envd check says:
$(printf '%s' "$replaced" | sed 's/^/#   /')
"
expect_no_err "show --explain: replaced values"
e --pam-dir="$NOPAM" --root="$W/r" --user-dir="$W/u" show --explain --format=json
if have_cmds python3; then
	expect_true "show --explain --format=json: the replaced assignment" python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
v = {x["name"]: x for x in d["variables"]}
assert v["PATH"]["replaces"] == sys.argv[2] + "/10-path.conf" and v["PATH"]["replaces_line"] == 1, v
assert v["EDITOR"]["replaces"] == sys.argv[2] + "/10-editor.conf", v
' "$T/out" "$W/u"
	# what check says is a member of the object, as in the env format
	# (and so not on stderr)
	expect_true "show --explain --format=json: what check says" python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
want = [l.split(": warning: ", 1) for l in sys.argv[2].split("\n") if l]
got = [("%s:%d" % (c["file"], c["line"]), c["message"]) for c in d["check"]]
assert [c["severity"] for c in d["check"]] == ["warning"] * len(want), d["check"]
assert got == [tuple(w) for w in want], (got, want)
assert d["user_directory_skipped"] is None, d
' "$T/out" "$replaced"
	expect_no_err "show --explain --format=json: nothing on stderr"
fi
# the fix the finding gives works: the renamed file wins, with the
# system's PATH in it (as systemd's generator gives it)
mv "$W/u/10-path.conf" "$W/u/zz-10-path.conf"
mv "$W/u/10-editor.conf" "$W/u/zz-10-editor.conf"
e --pam-dir="$NOPAM" --root="$W/r" --user-dir="$W/u" check
expect_rc "check: the renamed files win" 0
expect_no_out "check: the renamed files win"
e --pam-dir="$NOPAM" --root="$W/r" --user-dir="$W/u" show
expect_out "show: the renamed files win" "EDITOR=vim
PATH=$pwhome/.local/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
"
# a system file that keeps the user's value (${PATH} in it) replaces nothing
mv "$W/u/zz-10-path.conf" "$W/u/10-path.conf"
rm "$W/u/zz-10-editor.conf"
printf 'PATH=/opt/bin:${PATH}\n' >"$UL/99-environment.conf"
e --pam-dir="$NOPAM" --root="$W/r" --user-dir="$W/u" check
expect_rc "check: a system file that builds on the user's value" 0
expect_no_out "check: a system file that builds on the user's value"
# replaced, then set again by another system file: the last one is named,
# and a system file whose name sorts after "zz-..." gets a name after its own
printf 'PATH=/sbin:/bin\n' >"$UL/99-environment.conf"
printf 'PATH=/zz/bin\n' >"$UL/zz-last.conf"
e --pam-dir="$NOPAM" --root="$W/r" --user-dir="$W/u" check
expect_out "check: the last system file is named" "$W/u/10-path.conf:1: warning: PATH is replaced by $UL/zz-last.conf:1, which is read later (files are read in the order of their names, whatever their directory): rename this file to sort after zz-last.conf, such as zz-last_10-path.conf (a \$PATH in the value then takes the system's value)
"
# a user file that sorts later replaces the system's value: nothing to say
rm "$UL/zz-last.conf"
printf 'EDITOR=vim\n' >"$W/u/30-editor.conf"
e --pam-dir="$NOPAM" --root="$W/r" --user-dir="$W/u" check
expect_out_lacks "check: a user file read later is not replaced" "EDITOR is replaced"

# replaced, then built on by a later user file (the name the finding
# suggests): the first assignment is still lost, and said, however many
# files compose the value (issue 34's three files)
rm -f "$W/u/30-editor.conf" "$W/u/10-editor.conf" "$E_/20-editor.conf"
printf 'PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"\n' \
	>"$UL/99-environment.conf"
printf 'PATH=$HOME/bin:$PATH\n' >"$W/u/zz-90-x.conf"
e --pam-dir="$NOPAM" --root="$W/r" --user-dir="$W/u" show
expect_out "show: a later user file composes over the system's PATH" "PATH=$pwhome/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
"
e --pam-dir="$NOPAM" --root="$W/r" --user-dir="$W/u" check
expect_rc "check: an assignment lost under a composed value" 1
expect_out "check: an assignment lost under a composed value, both files" "$W/u/10-path.conf:1: warning: PATH is replaced by $UL/99-environment.conf:1, which is read later (files are read in the order of their names, whatever their directory): rename this file to sort after 99-environment.conf, such as zz-10-path.conf (a \$PATH in the value then takes the system's value)
"
# each loss of a longer chain: user, system, user, system, user
printf 'PATH=/sys2/bin\n' >"$UL/zz-91-sys.conf"
printf 'PATH=$HOME/last:$PATH\n' >"$W/u/zz-92-y.conf"
e --pam-dir="$NOPAM" --root="$W/r" --user-dir="$W/u" check
expect_out "check: every lost assignment of a chain" "$W/u/10-path.conf:1: warning: PATH is replaced by $UL/99-environment.conf:1, which is read later (files are read in the order of their names, whatever their directory): rename this file to sort after 99-environment.conf, such as zz-10-path.conf (a \$PATH in the value then takes the system's value)
$W/u/zz-90-x.conf:1: warning: PATH is replaced by $UL/zz-91-sys.conf:1, which is read later (files are read in the order of their names, whatever their directory): rename this file to sort after zz-91-sys.conf, such as zz-zz-90-x.conf (a \$PATH in the value then takes the system's value)
"
# the fix works: renamed after the system's files, nothing is lost
rm "$UL/zz-91-sys.conf" "$W/u/zz-92-y.conf"
mv "$W/u/10-path.conf" "$W/u/zz-10-path.conf"
e --pam-dir="$NOPAM" --root="$W/r" --user-dir="$W/u" check
expect_rc "check: the renamed file composes too" 0
expect_no_out "check: the renamed file composes too"
e --pam-dir="$NOPAM" --root="$W/r" --user-dir="$W/u" show
expect_out "show: both user files in PATH" "PATH=$pwhome/bin:$pwhome/.local/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
"

# ---- the login before pam_envd.so ------------------------------------------------
L=$T/login
mkroot "$L/r"
mkdir -p "$L/u" "$L/r/run/systemd/system" # systemd runs there
printf 'SSH_AUTH_SOCK=${XDG_RUNTIME_DIR}/ssh-agent.socket\n' >"$L/u/20-ssh.conf"
le() { e --root="$L/r" --user-dir="$L/u" "$@"; }
# pam_systemd.so before pam_envd.so: XDG_RUNTIME_DIR as it sets it
pamdir "$L/before" "session optional pam_envd.so cleanup" "session optional pam_systemd.so" \
	"session optional pam_envd.so"
le --pam-dir="$L/before" show
expect_out "pam_systemd.so before pam_envd.so: XDG_RUNTIME_DIR" "SSH_AUTH_SOCK=/run/user/$uid/ssh-agent.socket
"
le --pam-dir="$L/before" check
expect_rc "pam_systemd.so before pam_envd.so: check" 0
expect_no_out "pam_systemd.so before pam_envd.so: check"
le --pam-dir="$L/before" show --explain
expect_true "explain: XDG_RUNTIME_DIR and where it comes from" grep -qxF \
	"#   XDG_RUNTIME_DIR=/run/user/$uid from pam_systemd.so, before pam_envd.so in 1 of the 1 service that apply it (systemd runs here)" "$T/out"
# before it, but systemd does not run (a container, a chroot): pam_systemd
# sets nothing, and show says which it assumed
rmdir "$L/r/run/systemd/system"
le --pam-dir="$L/before" show
expect_out "pam_systemd.so before pam_envd.so, no systemd: no XDG_RUNTIME_DIR" "SSH_AUTH_SOCK=/ssh-agent.socket
"
le --pam-dir="$L/before" show --explain
expect_true "explain: no XDG_RUNTIME_DIR without systemd, and why" grep -qxF \
	"#   no XDG_RUNTIME_DIR: pam_systemd.so is before pam_envd.so, but systemd does not run here (no $L/r/run/systemd/system), and pam_systemd.so sets it only where it does" "$T/out"
mkdir "$L/r/run/systemd/system"
# after it: not there yet
pamdir "$L/after" "session optional pam_envd.so cleanup" "session optional pam_envd.so" \
	"session optional pam_systemd.so"
le --pam-dir="$L/after" show
expect_out "pam_systemd.so after pam_envd.so: no XDG_RUNTIME_DIR" "SSH_AUTH_SOCK=/ssh-agent.socket
"
le --pam-dir="$L/after" check
expect_rc "pam_systemd.so after pam_envd.so: check" 1
expect_out "pam_systemd.so after pam_envd.so: check" "$L/u/20-ssh.conf:1: warning: \$XDG_RUNTIME_DIR is not set here: it expands to nothing
"
le --pam-dir="$L/after" show --explain
expect_true "explain: no XDG_RUNTIME_DIR, and why" grep -qxF \
	"#   no XDG_RUNTIME_DIR: pam_systemd.so is not before pam_envd.so in any of the 1 service that apply it" "$T/out"
# no service applies pam_envd.so yet: taken as the last session line
pamdir "$L/none" "session optional pam_systemd.so"
le --pam-dir="$L/none" show
expect_out "no service applies pam_envd.so: as its last line" "SSH_AUTH_SOCK=/run/user/$uid/ssh-agent.socket
"
le --pam-dir="$L/none" show --explain
expect_true "explain: no service applies pam_envd.so" grep -qxF \
	"#   XDG_RUNTIME_DIR=/run/user/$uid from pam_systemd.so (in 1 service; no service applies pam_envd.so yet: taken as the last session line; systemd runs here)" "$T/out"
le --pam-dir="$T/no-such-dir" show --explain
expect_true "explain: a PAM directory that cannot be read" grep -qxF \
	"#   no XDG_RUNTIME_DIR: $T/no-such-dir cannot be read (No such file or directory)" "$T/out"
# --set adds or overrides
le --pam-dir="$L/before" --set=XDG_RUNTIME_DIR=/tmp/rt show
expect_out "--set overrides the model" "SSH_AUTH_SOCK=/tmp/rt/ssh-agent.socket
"
le --pam-dir="$NOPAM" --set=XDG_RUNTIME_DIR=/a --set=XDG_RUNTIME_DIR=/b show
expect_out "--set: the last of a name wins" "SSH_AUTH_SOCK=/b/ssh-agent.socket
"
le --pam-dir="$NOPAM" --set=HOME=/elsewhere --set='XDG_RUNTIME_DIR=/x y' show --explain
expect_out "explain: --set, and the login" "# before pam_envd.so the login has HOME, USER, LOGNAME and SHELL from the passwd entry, PATH, and:
#   HOME=/elsewhere (--set)
#   XDG_RUNTIME_DIR=/x y (--set)
#   not known here, each session sets them: XDG_SESSION_TYPE, XDG_SESSION_DESKTOP, XDG_CURRENT_DESKTOP, DISPLAY... (--set gives one)
# $L/u/20-ssh.conf:1
SSH_AUTH_SOCK=/x y/ssh-agent.socket
# directories, highest precedence first:
#   used    $L/u/ (user directory, 1 .conf file)
#   used    $L/r/etc/environment.d/ (system directory, 0 .conf files)
#   used    $L/r/run/environment.d/ (system directory, 0 .conf files)
#   used    $L/r/usr/local/lib/environment.d/ (system directory, 0 .conf files)
#   used    $L/r/usr/lib/environment.d/ (system directory, 0 .conf files)
# files, in the order they are read:
#   used    $L/u/20-ssh.conf
"
le --pam-dir="$NOPAM" --set=XDG_RUNTIME_DIR=/r --inherit show --explain
expect_true "explain --inherit: the process environment, and --set" test \
	"$(head -n 2 "$T/out")" = "# before pam_envd.so: envd's own environment (--inherit), as systemd's generator has its manager's, and:
#   XDG_RUNTIME_DIR=/r (--set)"
expect_true "explain --inherit: the next line is the first variable's" grep -qxF "SSH_AUTH_SOCK=/r/ssh-agent.socket" "$T/out"
# the same in json: the login's members
if have_cmds python3; then
	jl() { # WHAT PYTHON-CONDITION (d: the object, L: its "login")
		expect_true "$1" python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
L = d["login"]
assert list(L) == ["inherit", "set", "xdg_runtime_dir", "per_session"], L
assert L["inherit"] or d["no_service_applies"] is (L["xdg_runtime_dir"]["services_applying"] == 0 if L["xdg_runtime_dir"]["error"] is None else None), d["no_service_applies"]
assert eval(sys.argv[2]), (sys.argv[2], L)
' "$T/out" "$2"
	}
	le --pam-dir="$L/before" show --explain --format=json
	jl "json: XDG_RUNTIME_DIR from pam_systemd.so, with the counts" \
		"L['xdg_runtime_dir'] == {'value': '/run/user/$uid', 'from': 'pam_systemd.so', 'systemd_running': True, 'services_applying': 1, 'services_after_pam_systemd': 1, 'services_with_pam_systemd': None, 'error': None} and L['inherit'] is False and L['set'] == [] and 'XDG_SESSION_TYPE' in L['per_session'] and d['variables'][0]['value'] == '/run/user/$uid/ssh-agent.socket'"
	le --pam-dir="$L/after" show --explain --format=json
	jl "json: no XDG_RUNTIME_DIR after pam_envd.so, with the counts" \
		"L['xdg_runtime_dir'] == {'value': None, 'from': None, 'systemd_running': True, 'services_applying': 1, 'services_after_pam_systemd': 0, 'services_with_pam_systemd': None, 'error': None} and [c['message'] for c in d['check']] == ['\$XDG_RUNTIME_DIR is not set here: it expands to nothing']"
	le --pam-dir="$L/none" show --explain --format=json
	jl "json: no service applies pam_envd.so: the services with pam_systemd.so" \
		"L['xdg_runtime_dir'] == {'value': '/run/user/$uid', 'from': 'pam_systemd.so', 'systemd_running': True, 'services_applying': 0, 'services_after_pam_systemd': 0, 'services_with_pam_systemd': 1, 'error': None}"
	le --pam-dir="$T/no-such-dir" show --explain --format=json
	jl "json: a PAM directory that cannot be read" \
		"L['xdg_runtime_dir']['value'] is None and L['xdg_runtime_dir']['error'] == 'No such file or directory'"
	le --pam-dir="$NOPAM" --set=HOME=/elsewhere --set='XDG_RUNTIME_DIR=/x y' show --explain --format=json
	jl "json: --set, each name and value" \
		"L['set'] == [{'name': 'HOME', 'value': '/elsewhere'}, {'name': 'XDG_RUNTIME_DIR', 'value': '/x y'}] and L['xdg_runtime_dir']['value'] == '/x y' and L['xdg_runtime_dir']['from'] == '--set'"
	XDG_RUNTIME_DIR=/inh le --pam-dir="$NOPAM" --inherit --no-user show --explain --format=json
	jl "json: --inherit, and the user directory not searched" \
		"L['inherit'] is True and L['per_session'] == [] and L['xdg_runtime_dir']['value'] == '/inh' and L['xdg_runtime_dir']['from'] == '--inherit' and d['user_directory_skipped'] == '--no-user'"
fi
# --set counts as the login's own for --no-overwrite
printf 'KEEP=files\n' >"$L/u/30-keep.conf"
le --pam-dir="$NOPAM" --set=KEEP=login --no-overwrite show
expect_out "--set with --no-overwrite: the login's value is kept" "SSH_AUTH_SOCK=/ssh-agent.socket
"
rm "$L/u/30-keep.conf"
for bad in NOEQUALS '1X=y' '=y'; do
	e --pam-dir="$NOPAM" --root="$L/r" --set="$bad" show
	expect_rc "--set=$bad: usage error" 2
	expect_err "--set=$bad: says so" "envd: --set needs NAME=VALUE
Try 'envd --help'.
"
done
e --set=A=1 policy
expect_rc "--set with policy" 2
expect_err "--set with policy: says so" "envd: --set goes with show, check and files
Try 'envd --help'.
"
e --pam-dir="$NOPAM" import-pam-environment /dev/null
expect_rc "--pam-dir with import-pam-environment" 2
expect_err "--pam-dir with import-pam-environment: says so" "envd: --pam-dir goes with audit, show, check and files
Try 'envd --help'.
"
e --set=A=1 --reapply=PATH show
expect_rc "--set with --reapply" 2
expect_err "--set with --reapply: says so" "envd: --set goes with show, check and files, not --reapply
Try 'envd --help'.
"
e --set=A=1 audit
expect_rc "--set with audit" 2

# a value that uses a variable each session sets: noted, not a finding
printf 'GDK_BACKEND=${XDG_SESSION_TYPE}\n' >"$L/u/30-session.conf"
sess="$L/u/30-session.conf:1: note: GDK_BACKEND depends on \$XDG_SESSION_TYPE, which each session sets (a display manager, pam_systemd): not known here, taken as unset
"
le --pam-dir="$NOPAM" show
expect_out "a session variable: unset in show" "SSH_AUTH_SOCK=/ssh-agent.socket
GDK_BACKEND=
"
expect_err "a session variable: noted in show" "$sess"
le --pam-dir="$NOPAM" show --explain
expect_true "a session variable: noted at the end of show --explain" grep -qxF \
	"#   ${sess%$'\n'}" "$T/out"
expect_no_err "a session variable: show --explain"
le --pam-dir="$L/before" check
expect_rc "a session variable: no finding in check" 0
expect_no_out "a session variable: check"
expect_err "a session variable: noted in check" "$sess"
le --pam-dir="$NOPAM" -q show
expect_no_err "a session variable: -q says nothing"
le --pam-dir="$NOPAM" --set=XDG_SESSION_TYPE=wayland show
expect_out "a session variable: --set gives it" "SSH_AUTH_SOCK=/ssh-agent.socket
GDK_BACKEND=wayland
"
expect_no_err "a session variable: --set, no note"
rm "$L/u/30-session.conf"

# ---- the directories searched ----------------------------------------------------
D=$T/dirs
mkdir -p "$D/r/etc/environment.d" "$D/r/usr/lib/environment.d" "$D/u"
chmod 777 "$D/r/usr/lib/environment.d"
printf 'A=1\n' >"$D/r/etc/environment.d/10-a.conf"
e --pam-dir="$NOPAM" --root="$D/r" --user-dir="$D/u" files
expect_out "files: every directory with its state, then the files" "used    $D/u/ (user directory, 0 .conf files)
used    $D/r/etc/environment.d/ (system directory, 1 .conf file)
missing $D/r/run/environment.d/ (system directory)
missing $D/r/usr/local/lib/environment.d/ (system directory)
skipped $D/r/usr/lib/environment.d/ (system directory: writable by group or others)
used    $D/r/etc/environment.d/10-a.conf
"
e --pam-dir="$NOPAM" --root="$D/r" --user-dir="$D/nowhere" files
expect_true "files: a missing user directory" grep -qxF \
	"missing $D/nowhere/ (user directory)" "$T/out"
e --pam-dir="$NOPAM" --root="$D/r" --no-user files
expect_true "files: --no-user names why the user directory is not searched" grep -qxF \
	"skipped user directory (--no-user)" "$T/out"

# a passwd entry whose home is not absolute names no user directory: as
# root, in a private mount namespace with a copy of /etc/passwd.  Whether
# one can be made is probed (a chroot whose root is no mount point cannot
# change its propagation; a container may not unshare at all)
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
	skip "a relative home: needs root and unshare"
elif ! ns_err=$(unshare -m mount --bind /etc /etc 2>&1); then
	skip "a relative home: no private mount namespace (unshare -m: $(head -n 1 <<<"$ns_err"))"
else
	me=$(id -un)
	sed "s|^\($me:[^:]*:[^:]*:[^:]*:[^:]*:\)[^:]*:|\1relative/home:|" /etc/passwd >"$T/passwd"
	unshare -m sh -c 'mount --bind "$1" /etc/passwd && shift && exec "$@"' sh "$T/passwd" \
		"$ENVD" --pam-dir="$NOPAM" --root="$D/r" files >"$H_OUT" 2>"$H_ERR"
	rc=$?
	expect_rc "files: a relative home" 0
	expect_true "files: a relative home names no user directory, and says why" grep -qxF \
		"skipped user directory (no absolute home)" "$T/out"
	expect_true "files: a relative home, the system directories still read" grep -qxF \
		"used    $D/r/etc/environment.d/10-a.conf" "$T/out"
fi

finish
