#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/e2e/golden_msgs.sh - the exact text of the messages a user or an
# administrator reads: every skip and refusal ends with what to do.
#
# 1. envd's stderr, whole, for each case: permission skips (a writable
#    file, user directory and parent), a type skip, the refusals of the
#    default list (the everyday developer variables), of a value rule, of
#    user_deny and user_only, an invalid name (FOO-BAR), a file opening
#    with a byte order mark, malformed options, import-pam-environment on
#    a missing file and on a file writable by others.
# 2. As root, through the reader child (envd USER): a file and a parent
#    owned by another user, a group that is not the user's private one,
#    an unreadable file; a system file owned by another user or reached
#    through a directory others can write.
# 3. As root, pam_envd.so in a real PAM stack (pamtester): the lines the
#    module logs for a permission skip and a refusal.
# Without root, parts 2 and 3 are skipped (exit 77 when 1 passed).

# Literal $ in single quotes is meant; the cleanup runs from a trap.
# shellcheck disable=SC2016,SC2317

if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -u
umask 022
export LC_ALL=C.UTF-8

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir/_build/plain}

. "$top_srcdir/tests/lib/harness.sh"
harness_init golden_msgs.sh colon
need_envd
need_caller_account

make_tmpdir T envd-golden
H_OUT=$T/out H_ERR=$T/err
me=$(id -un)

# what a refusal of the default list says to do
shell="set it in your shell's startup file (~/.profile) instead"
allow() { echo "; fix: $shell, or an administrator adds user_allow=$1 to the pam_envd line"; }

mkdir -p "$T/r/etc/environment.d" "$T/p/u"
U=$T/p/u
# a PAM directory that applies pam_envd.so: what show says does not depend
# on /etc/pam.d, which other root tests change while they run
PON=$T/pam-on
mkdir -p "$PON"
printf '%s\n' 'session optional pam_envd.so cleanup' 'session optional pam_envd.so' >"$PON/login"
g() { e --pam-dir="$PON" --root="$T/r" --user-dir="$U" "$@"; }

# ---- 1. envd ---------------------------------------------------------------
# permission skips: the exact chmod, with the path
printf 'A=1\n' >"$U/10-a.conf"
chmod 666 "$U/10-a.conf"
g show
expect_err "a file writable by others" \
	"$U/10-a.conf: error: writable by group or others, skipped; fix: chmod go-w $U/10-a.conf
"
chmod 644 "$U/10-a.conf"
chmod 777 "$U"
g show
expect_err "a user directory writable by others" \
	"$U: error: user directory: writable by group or others, skipped; fix: chmod go-w $U
"
chmod 755 "$U"
chmod 777 "$T/p"
g show
expect_err "a parent of the user directory writable by others" \
	"$U: error: user directory: a parent directory is writable by group or others, skipped; fix: chmod go-w $T/p
"
chmod 755 "$T/p"
# a path that a shell would split is quoted in the fix
mkdir -p "$T/my dir"
cp "$U/10-a.conf" "$T/my dir/"
chmod 757 "$T/my dir"
e --pam-dir="$PON" --root="$T/r" --user-dir="$T/my dir" show
expect_err "a path with a blank is one shell word in the fix" \
	"$T/my dir: error: user directory: writable by group or others, skipped; fix: chmod go-w '$T/my dir'
"
chmod 755 "$T/my dir"
mkdir -p "$T/it's"
cp "$U/10-a.conf" "$T/it's/"
chmod 757 "$T/it's"
e --pam-dir="$PON" --root="$T/r" --user-dir="$T/it's" show
expect_err "a path with a quote is one shell word in the fix" \
	"$T/it's: error: user directory: writable by group or others, skipped; fix: chmod go-w \"$T/it's\"
"
chmod 755 "$T/it's"
mkfifo "$U/20-fifo.conf"
g show
expect_err "a FIFO" "$U/20-fifo.conf: error: not a regular file, skipped; fix: make it a regular file
"
rm "$U/20-fifo.conf"
g show
expect_no_err "no skip left"

# refusals: the everyday developer variables, a value rule, the
# administrator's lists
interp="makes an interpreter started later load code"
cat >"$U/30-dev.conf" <<'EOF'
PYTHONPATH=$HOME/lib/python
NODE_PATH=$HOME/lib/node
GEM_HOME=$HOME/.gem
PERL5LIB=$HOME/lib/perl5
CLASSPATH=$HOME/lib/java
LD_LIBRARY_PATH=$HOME/lib
SSL_CERT_FILE=$HOME/ca.pem
SSH_ASKPASS=/usr/bin/ksshaskpass
TZ=/etc/localtime
EOF
f=$U/30-dev.conf
g show
expect_err "refusals say user_allow= and the shell's startup file" \
	"$f:1: error: PYTHONPATH refused: $interp$(allow PYTHONPATH)
$f:2: error: NODE_PATH refused: steers node run later, possibly as root: the code it loads, the certificates it trusts, the files it writes$(allow NODE_PATH)
$f:3: error: GEM_HOME refused: $interp$(allow GEM_HOME)
$f:4: error: PERL5LIB refused: $interp$(allow PERL5LIB)
$f:5: error: CLASSPATH refused: $interp$(allow CLASSPATH)
$f:6: error: LD_LIBRARY_PATH refused: steers the dynamic loader or libc of programs started later$(allow LD_LIBRARY_PATH)
$f:7: error: SSL_CERT_FILE refused: makes TLS clients run later, possibly as root, trust certificates the user chose or stop checking them$(allow SSL_CERT_FILE)
$f:8: error: SSH_ASKPASS refused: makes a tool run later, possibly as root, run a command or open a path the user chose$(allow SSH_ASKPASS)
$f:9: error: TZ refused: names a file outside the time zone database; fix: give it another value, or $shell, or an administrator adds user_allow=TZ to the pam_envd line
"
g --user-allow='PYTHONPATH NODE_PATH GEM_HOME PERL5LIB CLASSPATH LD_LIBRARY_PATH SSL_CERT_FILE SSH_ASKPASS TZ' show
expect_no_err "user_allow= as the refusal says lifts each"
printf 'MY_VAR=1\n' >"$f"
g --user-deny='MY_*' show
expect_err "a user_deny refusal" \
	"$f:1: error: MY_VAR refused: denied by the administrator (user_deny); fix: $shell
"
g --user-only=A show
expect_err "a user_only refusal" \
	"$f:1: error: MY_VAR refused: not among the names the administrator lets user files set (user_only); fix: $shell, or an administrator adds MY_VAR to user_only=
"
rm "$f"

# names: shown as systemd shows them, unless they may hide a secret; a BOM
printf 'FOO-BAR=x\nmy.var=1\nTOKEN-s3cr3t=x\n' >"$U/40-names.conf"
printf '\357\273\277BOM=1\nAFTER=2\n' >"$U/50-bom.conf"
g show
expect_out "the rest of the files applies" $'A=1\nAFTER=2\n'
expect_err "invalid names, a byte order mark" \
	"$U/40-names.conf:1: error: invalid variable name \"FOO-BAR\", ignored; a name has only letters, digits and '_', and no digit first
$U/40-names.conf:2: error: invalid variable name \"my.var\", ignored; a name has only letters, digits and '_', and no digit first
$U/40-names.conf:3: error: invalid variable name of 12 bytes, starting \"TOKEN\" (the rest not shown), ignored; a name has only letters, digits and '_', and no digit first
$U/50-bom.conf:1: error: the file starts with a UTF-8 byte order mark (BOM), which systemd does not skip either: the name \"BOM\" is invalid and ignored; fix: save the file without a BOM
"
rm "$U/40-names.conf" "$U/50-bom.conf"

# what a file holds: not UTF-8, a NUL byte; a limit
printf 'B=\377\nC=1\n' >"$U/60-utf8.conf"
printf 'D=1\000\n' >"$U/70-nul.conf"
g --max-env=6 show
expect_out "the rest applies, within the cap" $'A=1\n'
expect_err "not UTF-8, a NUL byte, over max_env" \
	"$U/60-utf8.conf:1: error: value of B is not valid UTF-8, skipped; fix: save the file as UTF-8
$U/60-utf8.conf:2: error: environment would exceed 6 bytes: C skipped; fix: set fewer or shorter variables
$U/70-nul.conf: error: contains a NUL byte, skipped (as systemd does); fix: remove the NUL bytes
"
rm "$U/60-utf8.conf" "$U/70-nul.conf"

# options: what is wrong and what to write
g --user-dir=cfg/environment.d show
expect_rc "--user-dir relative" 2
expect_err "--user-dir relative" "envd: --user-dir: not an absolute path; fix: start it with / or with %h (the home directory)
Try 'envd --help'.
"
g --user-dir=/x/%x show
expect_err "--user-dir unknown specifier" "envd: --user-dir: unknown specifier %x; fix: use %h (home), %u (user) or %% (a %)
Try 'envd --help'.
"
g --max-env=2G show
expect_rc "--max-env=2G" 2
expect_err "--max-env=2G" "envd: --max-env: unknown suffix 'G'; fix: give bytes, or K or M (binary), at most 1M
Try 'envd --help'.
"
g --max-env=lots show
expect_err "--max-env=lots" "envd: --max-env: not a positive size; fix: give bytes, with an optional K or M suffix, at most 1M
Try 'envd --help'.
"

# import-pam-environment: a missing file is missing
e import-pam-environment --as="$me" "$T/none"
expect_rc "import of a missing file" 3
expect_err "import of a missing file" "envd: $T/none: does not exist: nothing to import
"

printf 'A DEFAULT=1\n' >"$T/pe"
chmod 666 "$T/pe"
e import-pam-environment --as="$me" "$T/pe"
expect_rc "import of a file writable by others" 3
expect_err "import of a file writable by others" "envd: $T/pe: writable by group or others, not read; fix: chmod go-w $T/pe
"

[ "$(id -u)" = 0 ] || skip_rest "reading as another user and the module need root"

# ---- 2. as root, through the reader child ----------------------------------
. "$top_srcdir/tests/lib/e2e_lib.sh"
e2e_init
need_cmds usermod
u=$(e2e_user g)
u2=$(e2e_user g2)
h=$(home_of "$u")
udir=$h/.config/environment.d
as "$u" mkdir -p "$udir"
as "$u" sh -c "printf 'A=1\n' >'$udir/10-a.conf'"
as "$u" sh -c "printf 'B=1\n' >'$udir/20-b.conf'"
SYS=$E2E_TMP/sys
gr() { e --pam-dir="$PON" --root="$SYS" "$@"; }
nob=$(id -u nobody)
chown nobody "$udir/20-b.conf"
gr show "$u"
expect_err "root: a file owned by another user" \
	"$udir/20-b.conf: error: owned by another user (uid $nob, not $u), skipped; fix: chown $u $udir/20-b.conf
"
chown "$u" "$udir/20-b.conf"
# the import names the user it reads for, as the load does
as "$u" sh -c "printf 'A DEFAULT=1\n' >'$h/pe'"
chown nobody "$h/pe"
e import-pam-environment --as="$u" "$h/pe"
expect_rc "root: import of a file owned by another user" 3
expect_err "root: import of a file owned by another user" \
	"envd: $h/pe: owned by another user (uid $nob, not $u), not read; fix: chown $u $h/pe
"
chown nobody "$udir"
gr show "$u"
expect_err "root: a user directory owned by another user" \
	"$udir: error: user directory: owned by another user (uid $nob, not $u), skipped; fix: chown $u $udir
"
chown "$u" "$udir"
chown nobody "$h/.config"
gr show "$u"
expect_err "root: a parent owned by another user, named" \
	"$udir: error: user directory: a parent directory is owned by another user ($h/.config: uid $nob), skipped; fix: chown $u $h/.config
"
chown "$u" "$h/.config"
chmod 777 "$h/.config"
gr show "$u"
expect_err "root: a parent writable by others, named" \
	"$udir: error: user directory: a parent directory is writable by group or others, skipped; fix: chmod go-w $h/.config
"
chmod 755 "$h/.config"
as "$u" chmod 000 "$udir/20-b.conf"
gr show "$u"
expect_err "root: an unreadable file" \
	"$udir/20-b.conf: error: permission denied (read as $u), skipped; fix: chmod u+r $udir/20-b.conf
"
as "$u" chmod 644 "$udir/20-b.conf"
# group write by the user's primary group, when it is not private
grp=$(e2e_group gs)
usermod -g "$grp" "$u"
usermod -a -G "$grp" "$u2"
chgrp "$grp" "$udir/20-b.conf"
chmod 664 "$udir/20-b.conf"
gr show "$u"
expect_err "root: a group that is not the user's private group" \
	"$udir/20-b.conf: error: writable by a group that is not the owner's private group, skipped; fix: chmod g-w $udir/20-b.conf
"
chmod 644 "$udir/20-b.conf"
gr show "$u"
expect_no_err "root: no skip left"

# the system side: root's, and reached only through root's directories
printf 'S=1\n' >"$SYS/etc/environment.d/60-s.conf"
chown nobody "$SYS/etc/environment.d/60-s.conf"
gr show "$u"
expect_err "root: a system file owned by another user" \
	"$SYS/etc/environment.d/60-s.conf: error: owned by another user (uid $nob, not root), skipped; fix: chown root $SYS/etc/environment.d/60-s.conf
"
rm "$SYS/etc/environment.d/60-s.conf"
mkdir -p "$E2E_TMP/open/d"
printf 'S=1\n' >"$E2E_TMP/open/d/s.conf"
chmod 777 "$E2E_TMP/open"
ln -s "$E2E_TMP/open/d/s.conf" "$SYS/etc/environment.d/60-s.conf"
gr show "$u"
expect_err "root: a system file reached through a directory others can write, named" \
	"$SYS/etc/environment.d/60-s.conf: error: reached through a directory that someone other than root can change ($E2E_TMP/open), skipped; fix: chmod go-w $E2E_TMP/open
"
rm "$SYS/etc/environment.d/60-s.conf"

# ---- 3. the module's log, in a real PAM stack ------------------------------
if [ -z "$E2E_SHIM" ]; then
	skip "the module's log lines: no compiler for the syslog shim"
	e2e_finish
fi
svc=$(e2e_service golden <<EOF
auth     required pam_permit.so
account  required pam_permit.so
session  optional $MOD system_dirs=$SYSDIRS
EOF
)
log_lines() { # the lines pam_envd logged, without the syslog prefix
	sed -n "s/^pam_envd($svc:session): //p" "$E2E_LOG"
}
chmod 777 "$h/.config"
: >"$E2E_LOG"
e2e_pam "$svc" "$u" open_session
expect_eq "module: a permission skip, with its fix" "$(log_lines)" \
	"$udir: user directory: a parent directory is writable by group or others, skipped; fix: chmod go-w $h/.config"
chmod 755 "$h/.config"
as "$u" sh -c "printf 'PYTHONPATH=/secret-value\n' >'$udir/30-dev.conf'"
: >"$E2E_LOG"
e2e_pam "$svc" "$u" open_session
expect_eq "module: a refusal, with its fix, no value" "$(log_lines)" \
	"$udir/30-dev.conf:1: PYTHONPATH: PYTHONPATH refused: $interp$(allow PYTHONPATH)"

e2e_finish
