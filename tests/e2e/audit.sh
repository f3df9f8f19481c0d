#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/e2e/audit.sh - envd audit on PAM stacks: the hand-made cases of
# tests/e2e/audit-stacks/cases (each gets one thing right or wrong, and each
# finding is checked as its exact line), stacks made here (include depth,
# long lines, control bytes in names), the Debian 12 display-manager and
# login stacks of tests/e2e/audit-stacks/debian with the pair right and then
# with a helper in the wrong place, the JSON form, usage errors and
# failures.  (Not tests/audit/: make's built-in %: %.sh rule would take
# that name for a program made from audit.sh.)  No root needed:
# everything goes through --pam-dir.
#
# An automake test: $ENVD, $top_srcdir and $top_builddir come from the
# Makefile; run by hand it finds them from its own location.  Exit 0 pass,
# 1 fail.  Every check prints "ok - ..." or "FAIL - ..." and the last line
# counts them.

# Literal $ in single quotes is meant; cleanup runs from a trap.
# shellcheck disable=SC2016,SC2317

if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -u
umask 022
export LC_ALL=C.UTF-8

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir/_build/plain}
ENVD=${ENVD:-$top_builddir/src/envd}
CASES=$top_srcdir/tests/e2e/audit-stacks/cases
DEBIAN=$top_srcdir/tests/e2e/audit-stacks/debian

. "$top_srcdir/tests/lib/harness.sh"
harness_init audit.sh check
need_envd

make_tmpdir T envd-audit
H_OUT=$T/out H_ERR=$T/err

# summary CHECKED APPLYING FINDINGS: the last line of every text audit
summary() {
	local s=s a=y f=s
	[ "$1" = 1 ] && s=
	[ "$2" = 1 ] && a=ies
	[ "$3" = 1 ] && f=
	echo "$1 service$s checked, $2 appl$a pam_envd.so, $3 finding$f"
}
# case NAME EXIT EXPECTED: envd audit --pam-dir=cases NAME prints exactly
# EXPECTED (lines, each ending in a newline) and the summary of one service
# that applies pam_envd.so, with as many findings as EXPECTED has lines
# other than "NAME: ok", and exits EXIT
case_is() {
	e audit --pam-dir="$CASES" "$1"
	expect_rc "$1" "$2"
	expect_out "$1" "$3$(summary 1 1 "$(printf %s "$3" | grep -cvx "$1: ok")")
"
	expect_no_err "$1"
}

exec_reason="runs its command as root with the whole PAM environment"
no_cleanup="pam_envd.so has no cleanup instance: every close hook sees the user's values (add \"session optional pam_envd.so cleanup\" as the first session line)"
script_reason="runs its scripts as root with the application's environment, into which login(1) copies the PAM environment after open_session: the cleanup instance takes the values back out of it too, but only for the close hooks after it"
mount_reason="runs mount, umount and its helpers as root with the application's environment (PATH its own), into which login(1) copies the PAM environment after open_session: the cleanup instance takes the values back out of it too, but only for the close hooks after it"

# ---- the pair right --------------------------------------------------------------
case_is right 0 'right: ok
'
case_is type-open-before 0 'type-open-before: ok
'
case_is type-close-after 0 'type-close-after: ok
'

# ---- one thing wrong each --------------------------------------------------------
case_is exec-after 1 "exec-after: exec-after:3: pam_exec.so at open sees the user's values: $exec_reason
exec-after: exec-after:2: pam_envd.so is not the last session line: 1 later module runs programs at open
"
case_is exec-before-cleanup 1 "exec-before-cleanup: exec-before-cleanup:1: pam_exec.so at close sees the user's values: $exec_reason
"
case_is no-cleanup 1 "no-cleanup: no-cleanup:2: $no_cleanup
"
case_is no-cleanup-exec 1 "no-cleanup-exec: no-cleanup-exec:1: pam_exec.so at close sees the user's values: $exec_reason
no-cleanup-exec: no-cleanup-exec:2: $no_cleanup
"
case_is cleanup-after 1 "cleanup-after: cleanup-after:3: pam_envd.so cleanup comes after the applying instance at cleanup-after:2: make it the first session line
"
case_is type-close-before 1 "type-close-before: type-close-before:2: pam_exec.so at close sees the user's values: $exec_reason
"
case_is type-open-after 1 "type-open-after: type-open-after:3: pam_exec.so at open sees the user's values: $exec_reason
type-open-after: type-open-after:2: pam_envd.so is not the last session line: 1 later module runs programs at open
"
case_is type-after-command 1 "type-after-command: type-after-command:4: pam_exec.so at open sees the user's values: $exec_reason
type-after-command: type-after-command:3: pam_envd.so is not the last session line: 1 later module runs programs at open
"
case_is others 1 "others: others:3: pam_script.so at close sees the user's values: $script_reason
"
# pam_script and pam_mount run with the application's environment, which
# util-linux login fills from the PAM environment after open_session; the
# cleanup instance takes the values back out of it too, so below it (as
# pam-auth-update puts libpam-script's profile, Priority 257, between the
# pair) they are fine, and above it (a service's own line before its
# @include of common-session) they see the values
case_is script-pair 0 'script-pair: ok
'
case_is script-above 1 "script-above: script-above:3: pam_script.so at close sees the user's values: $script_reason
script-above: script-above:4: pam_mount.so at close sees the user's values: $mount_reason
"

# pam_envd in the auth stack applies at setcred, maybe before open_session
auth_stack="pam_envd.so in the auth stack applies at setcred, which applications may call before open_session: every session module that runs programs sees the user's values"
case_is auth-stack 1 "auth-stack: auth-stack:3: pam_exec.so at open sees the user's values: $exec_reason
auth-stack: auth-stack:2: $auth_stack
"
case_is auth-include 1 "auth-include: auth-include-1:3: $auth_stack
auth-include: auth-include-1:3: $no_cleanup
"

# ---- reading as libpam does ------------------------------------------------------
# session include -> substack -> @include; auth include reads no session line
case_is chain 1 "chain: chain-3:2: pam_exec.so at close sees the user's values: $exec_reason
"
case_is loop 1 'loop: loop-b:2: include loop-a: an include loop: Linux-PAM fails the stack
'
case_is missing 1 'missing: missing:2: include missing-file: No such file or directory: Linux-PAM fails the stack
'
case_is dash 1 "dash: dash:1: pam_exec.so at close sees the user's values: $exec_reason
"
case_is bracket 1 "bracket: bracket:1: pam_exec.so at close sees the user's values: $exec_reason
"
case_is continued 1 "continued: continued:1: pam_exec.so at close sees the user's values: $exec_reason
"
case_is continued-comment 1 "continued-comment: continued-comment:2: $no_cleanup
"
case_is ends-continued 1 'ends-continued: ends-continued:3: the file ends in a continued line: Linux-PAM rejects the file
'
case_is absolute 1 "absolute: absolute:3: pam_exec.so at open sees the user's values: $exec_reason
absolute: absolute:2: pam_envd.so is not the last session line: 1 later module runs programs at open
"

# ---- no service applies pam_envd.so: not a clean bill of health -------------------
e audit --pam-dir="$CASES" none
expect_rc "no service applies" 1
expect_out "no service applies" 'none: pam_envd.so does not apply in the session stack
no service applies pam_envd.so
1 service checked, 0 apply pam_envd.so, 0 findings
'
expect_no_err "no service applies"
# a whole directory in which nothing applies it prints no service line
mkdir "$T/plain"
printf 'session required pam_unix.so\n' >"$T/plain/login"
printf 'session optional pam_exec.so /bin/true\n' >"$T/plain/su"
e audit --pam-dir="$T/plain"
expect_rc "a directory where no service applies" 1
expect_out "a directory where no service applies" 'no service applies pam_envd.so
2 services checked, 0 apply pam_envd.so, 0 findings
'
mkdir "$T/emptydir"
e audit --pam-dir="$T/emptydir"
expect_rc "an empty directory" 1
expect_out "an empty directory" 'no service applies pam_envd.so
0 services checked, 0 apply pam_envd.so, 0 findings
'
e audit --pam-dir="$CASES" right none exec-after
expect_rc "three services, two applying" 1
expect_out "three services, two applying" "right: ok
none: pam_envd.so does not apply in the session stack
exec-after: exec-after:3: pam_exec.so at open sees the user's values: $exec_reason
exec-after: exec-after:2: pam_envd.so is not the last session line: 1 later module runs programs at open
3 services checked, 2 apply pam_envd.so, 2 findings
"

# ---- continued lines across a comment or blank line ------------------------------
# Linux-PAM 1.5 and older skip the comment line and go on joining (the
# command of pam_exec is there), 1.6 and later end the line (pam_exec
# without a command runs nothing); a blank line the same way round
at_open="pam_exec.so at open sees the user's values: $exec_reason"
not_last="pam_envd.so is not the last session line: 1 later module runs programs at open"
cross() { # AT: the finding of a continued line crossing line AT
	echo "this continued line crosses a comment or blank line at line $1: Linux-PAM 1.5 and older go on joining after it, 1.6 and later end the line there (audited both ways; --pam-version=VERSION reads it as that Linux-PAM does)"
}
for v in 1.4.0 1.5 1.5.2-6+deb12u3 1:1.5.3-5ubuntu5; do
	e audit --pam-version="$v" --pam-dir="$CASES" continued-across-comment continued-across-blank
	expect_rc "Linux-PAM $v: continued lines" 1
	expect_out "Linux-PAM $v: continued lines" "continued-across-comment: continued-across-comment:3: $at_open
continued-across-comment: continued-across-comment:2: $not_last
continued-across-blank: ok
2 services checked, 2 apply pam_envd.so, 2 findings
"
done
for v in 1.6.0 1.7 1.7.0-5; do
	e audit --pam-version="$v" --pam-dir="$CASES" continued-across-comment continued-across-blank
	expect_rc "Linux-PAM $v: continued lines" 1
	expect_out "Linux-PAM $v: continued lines" "continued-across-comment: ok
continued-across-blank: continued-across-blank:4: $at_open
continued-across-blank: continued-across-blank:2: $not_last
2 services checked, 2 apply pam_envd.so, 2 findings
"
done
# any version: where the readings differ, a finding, and the findings of both
e audit --pam-version=any --pam-dir="$CASES" continued-across-comment continued-across-blank
expect_rc "any Linux-PAM: continued lines" 1
expect_out "any Linux-PAM: continued lines" "continued-across-comment: continued-across-comment:3: $(cross 4)
continued-across-comment: continued-across-comment:3: $at_open
continued-across-comment: continued-across-comment:2: $not_last
continued-across-blank: continued-across-blank:2: $(cross 3)
continued-across-blank: continued-across-blank:4: $at_open
continued-across-blank: continued-across-blank:2: $not_last
2 services checked, 2 apply pam_envd.so, 6 findings
"
e audit --pam-version=any --pam-dir="$CASES" continued right
expect_out "any Linux-PAM: lines that cross nothing read once" "continued: continued:1: pam_exec.so at close sees the user's values: $exec_reason
right: ok
2 services checked, 2 apply pam_envd.so, 1 finding
"
# without --pam-version, the installed libpam's reading (dpkg's database)
if ver=$(dpkg-query -W -f '${Version}' libpam0g 2>/dev/null) && [ -n "$ver" ]; then
	e audit --pam-version="$ver" --pam-dir="$CASES" continued-across-comment continued-across-blank
	cp "$T/out" "$T/want"
	e -v audit --pam-dir="$CASES" continued-across-comment continued-across-blank
	expect_out "no --pam-version: as the installed libpam0g $ver" "$(cat "$T/want")
"
	expect_err "no --pam-version: -v names the version" "envd: audit: Linux-PAM $ver (libpam0g in /var/lib/dpkg/status)
"
else
	skip "no --pam-version: the installed libpam (no dpkg)"
fi
for v in 1 x.y 1.x '' 1.5junk; do
	e audit --pam-version="$v" --pam-dir="$CASES" right
	expect_rc "--pam-version='$v'" 2
done
e --pam-version=1.5 show
expect_rc "--pam-version with show" 2

# ---- jumps, followed as libpam follows them ----------------------------------------
# At close libpam takes the path open_session took: a skip of the cleanup
# line counts where that path runs the applying line afterwards.
jumped="and close_session takes the jumps open_session took: the close hooks after the jump see the user's values"
skipped_exec="pam_exec.so at close sees the user's values where the cleanup instance is skipped: $exec_reason"
case_is jump-over-cleanup 1 "jump-over-cleanup: jump-over-cleanup:2: pam_succeed_if.so may jump over the cleanup instance at jump-over-cleanup:3, $jumped
jump-over-cleanup: jump-over-cleanup:4: $skipped_exec
"
case_is jump-default 1 "jump-default: jump-default:1: pam_permit.so may jump over the cleanup instance at jump-default:2, $jumped
"
# into an @include; a substack counts as one module; done in a substack
case_is jump-include 1 "jump-include: jump-include:1: pam_permit.so may jump over the cleanup instance at jump-include-1:1, $jumped
jump-include: jump-include-1:2: $skipped_exec
"
case_is jump-substack 1 "jump-substack: jump-substack:2: pam_succeed_if.so may jump over the cleanup instance at jump-substack:4, $jumped
"
case_is done-substack 1 "done-substack: done-substack-1:1: pam_succeed_if.so may end its substack before the cleanup instance at done-substack-1:2 (done, die), and close_session ends it there too: the close hooks after the substack see the user's values
"
# with pam_envd in the auth stack, ending the stack early loses the cleanup
case_is auth-end 1 "auth-end: auth-end:2: pam_succeed_if.so may end the stack before the cleanup instance at auth-end:3 (done, die), and close_session ends it there too: the user's values are never taken back
auth-end: auth-end:1: $auth_stack
"
# no skip: a jump landing on the cleanup line, a broken line counted, the
# whole stack ended or both lines jumped over (nothing applied on that
# path), a zero jump (a syntax error: no jump at all)
for c in jump-lands-on-cleanup jump-broken-line sufficient-before jump-over-pair jump-zero; do
	case_is "$c" 0 "$c: ok
"
done

# every file of the directory: the ones above, and nothing of "none"
e audit --pam-dir="$CASES"
expect_rc "the whole cases directory" 1
if grep -q '^none:' "$T/out"; then
	fail "a service without pam_envd is not reported" "$(grep '^none:' "$T/out")"
else pass "a service without pam_envd is not reported"; fi
if grep -qxF "chain: chain-3:2: pam_exec.so at close sees the user's values: $exec_reason" "$T/out" &&
	grep -qx 'right: ok' "$T/out"; then
	pass "the whole directory: the same lines as one by one"
else fail "the whole directory: the same lines as one by one" "$(head -20 "$T/out")"; fi
expect_no_err "the whole cases directory"

# ---- stacks made here --------------------------------------------------------------
P=$T/pam
mkdir -p "$P"
# 17 levels of include: Linux-PAM stops at 16
printf 'session optional pam_envd.so cleanup\nsession include deep-1\nsession optional pam_envd.so\n' >"$P/deep"
for i in $(seq 1 16); do
	printf 'session include deep-%d\n' $((i + 1)) >"$P/deep-$i"
done
printf 'session required pam_unix.so\n' >"$P/deep-17"
e audit --pam-dir="$P" deep
expect_rc "includes 17 deep" 1
expect_out "includes 17 deep" 'deep: deep-15:1: include deep-16: includes nested more than 16 deep: Linux-PAM fails the stack
1 service checked, 1 applies pam_envd.so, 1 finding
'
rm -f "$P/deep-16"
printf 'session required pam_unix.so\n' >"$P/deep-15"
e audit --pam-dir="$P" deep
expect_rc "includes 15 deep" 0
expect_out "includes 15 deep" 'deep: ok
1 service checked, 1 applies pam_envd.so, 0 findings
'
# a line over 8 KiB is skipped with a finding, the next ones are read
{
	printf 'session optional pam_envd.so cleanup\n'
	printf 'session optional pam_exec.so /bin/%s\n' "$(head -c 9000 /dev/zero | tr '\0' x)"
	printf 'session optional pam_envd.so\n'
} >"$P/long"
e audit --pam-dir="$P" long
expect_rc "a long line" 1
expect_out "a long line" 'long: long:2: line longer than 8192 bytes: not audited
1 service checked, 1 applies pam_envd.so, 1 finding
'
# at most 1024 session lines and 256 files per service
{
	printf 'session optional pam_envd.so cleanup\n'
	for i in $(seq 1 1030); do printf 'session required pam_unix.so\n'; done
	printf 'session optional pam_envd.so\n'
} >"$P/many"
e audit --pam-dir="$P" many
expect_out "1032 session lines" 'many: many:1025: more than 1024 session lines: the rest is not audited
no service applies pam_envd.so
1 service checked, 0 apply pam_envd.so, 1 finding
'
printf 'session required pam_unix.so\n' >"$P/inc"
{
	printf 'session optional pam_envd.so cleanup\nsession optional pam_envd.so\n'
	for i in $(seq 1 300); do printf 'session include inc\n'; done
} >"$P/wide"
e audit --pam-dir="$P" wide
expect_out "300 includes" 'wide: wide:258: include inc: more than 256 files read: not audited
1 service checked, 1 applies pam_envd.so, 1 finding
'
{
	for i in $(seq 1 300); do printf 'session optional pam_exec.so /bin/true\n'; done
	printf 'session optional pam_envd.so\n'
} >"$P/noisy"
e audit --pam-dir="$P" noisy
expect_rc "300 findings" 1
if [ "$(wc -l <"$T/out")" -eq 258 ] &&
	[ "$(tail -2 "$T/out")" = "noisy: more than 256 findings: the rest is not shown
1 service checked, 1 applies pam_envd.so, 256 findings" ]; then
	pass "300 findings: 256 shown and a line that says so"
else fail "300 findings: 256 shown and a line that says so" "$(tail -2 "$T/out")"; fi
{
	printf 'session optional pam_envd.so cleanup\nsession include big\nsession optional pam_envd.so\n'
} >"$P/huge"
head -c 1100000 /dev/zero | tr '\0' '#' >"$P/big"
e audit --pam-dir="$P" huge
expect_out "an include over 1 MiB" 'huge: huge:2: include big: larger than 1048576 bytes: not audited
1 service checked, 1 applies pam_envd.so, 1 finding
'
head -c 1100000 /dev/zero | tr '\0' '#' >"$P/huge"
e audit --pam-dir="$P" huge
expect_out "a service over 1 MiB" 'huge: huge:0: larger than 1048576 bytes: not audited
no service applies pam_envd.so
1 service checked, 0 apply pam_envd.so, 1 finding
'
rm -f "$P/many" "$P/wide" "$P/inc" "$P/noisy" "$P/huge" "$P/big"
# control bytes and invalid UTF-8 in names from the files are escaped
printf 'session optional pam_envd.so cleanup\nsession include bad\033[2Jname\nsession optional pam_envd.so\nsession optional /x/pam_exec.so\001\377 /bin/true\n' >"$P/ctl"
e audit --pam-dir="$P" ctl
expect_rc "control bytes in names" 1
expect_out "control bytes in names" 'ctl: ctl:2: include bad\x1b[2Jname: No such file or directory: Linux-PAM fails the stack
1 service checked, 1 applies pam_envd.so, 1 finding
'
printf 'session optional pam_envd.so cleanup\nsession optional pam_envd.so\nsession optional /x/pam_\033]0;t\007exec.so /bin/true\nsession include inc\001\n' >"$P/ctl2"
e audit --pam-dir="$P" ctl2
expect_out "control bytes in names, escaped" 'ctl2: ctl2:4: include inc\x01: No such file or directory: Linux-PAM fails the stack
1 service checked, 1 applies pam_envd.so, 1 finding
'
# a service's own file including itself
printf 'session optional pam_envd.so\nsession include self\n' >"$P/self"
e audit --pam-dir="$P" self
expect_out "a service including itself" 'self: self:2: include self: an include loop: Linux-PAM fails the stack
self: self:1: '"$no_cleanup"'
1 service checked, 1 applies pam_envd.so, 2 findings
'
# --pam-dir maps absolute /etc/pam.d/ includes into the directory
printf 'session include /etc/pam.d/abs-inc\nsession optional pam_envd.so cleanup\nsession optional pam_envd.so\n' >"$P/abs"
printf 'session optional pam_exec.so /bin/true\n' >"$P/abs-inc"
e audit --pam-dir="$P" abs
expect_out "an absolute /etc/pam.d include under --pam-dir" "abs: /etc/pam.d/abs-inc:1: pam_exec.so at close sees the user's values: $exec_reason
1 service checked, 1 applies pam_envd.so, 1 finding
"
# a FIFO or a device as an include is not opened for reading (no hang)
mkfifo "$P/fifo"
printf 'session optional pam_envd.so cleanup\nsession include fifo\nsession include /dev/zero\nsession optional pam_envd.so\n' >"$P/special"
e audit --pam-dir="$P" special
expect_rc "a FIFO and a device as includes" 1
expect_out "a FIFO and a device as includes" 'special: special:2: include fifo: not a regular file
special: special:3: include /dev/zero: not a regular file
1 service checked, 1 applies pam_envd.so, 2 findings
'
rm -f "$P/fifo" "$P/special"
# the PAM files are read by lib's one reader (envd_read_path): a file on
# /proc, or a link through a /proc magic link, is not read at all
ln -s /proc/self/cwd/x "$P/magic"
printf 'session optional pam_envd.so cleanup\nsession include /proc/version\nsession include magic\nsession optional pam_envd.so\n' >"$P/pseudo"
e audit --pam-dir="$P" pseudo
expect_rc "a /proc file and a magic link as includes" 1
expect_out "a /proc file and a magic link as includes" 'pseudo: pseudo:2: include /proc/version: on a kernel pseudo file system
pseudo: pseudo:3: include magic: a /proc magic link or too many symbolic links
1 service checked, 1 applies pam_envd.so, 2 findings
'
rm -f "$P/magic" "$P/pseudo"
# leftovers of package managers and editors are no services
cp "$CASES/no-cleanup" "$P/sshd.dpkg-old"
cp "$CASES/no-cleanup" "$P/sshd~"
rm -f "$P"/deep* "$P"/ctl* "$P/long" "$P/self" "$P/abs"*
cp "$CASES/right" "$P/right"
mkdir "$P/subdir"
ln -s right "$P/right-link"
e audit --pam-dir="$P"
expect_rc "package leftovers and directories are skipped, links followed" 0
expect_out "package leftovers and directories are skipped, links followed" 'right: ok
right-link: ok
2 services checked, 2 apply pam_envd.so, 0 findings
'

# ---- JSON ---------------------------------------------------------------------------
e audit --format=json --pam-dir="$CASES" right exec-before-cleanup none
expect_rc "json" 1
expect_out "json" '{"services":[
{"service":"right","applies":true,"ok":true,"findings":[]},
{"service":"exec-before-cleanup","applies":true,"ok":false,"findings":[{"file":"exec-before-cleanup","line":1,"message":"pam_exec.so at close sees the user'"'"'s values: '"$exec_reason"'"}]},
{"service":"none","applies":false,"ok":false,"findings":[]}
],"summary":{"checked":3,"applying":2,"findings":1}}
'
e audit --format=json --pam-dir="$CASES" none
expect_rc "json: no service applies" 1
expect_out "json: no service applies" '{"services":[
{"service":"none","applies":false,"ok":false,"findings":[]}
],"summary":{"checked":1,"applying":0,"findings":0,"error":"no service applies pam_envd.so"}}
'
e audit --format=json --pam-dir="$T/emptydir"
expect_rc "json: an empty directory" 1
expect_out "json: an empty directory" '{"services":[],"summary":{"checked":0,"applying":0,"findings":0,"error":"no service applies pam_envd.so"}}
'
if have_cmds python3; then
	e audit --format=json --pam-dir="$CASES"
	if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["services"]) > 20' "$T/out"; then
		pass "json of the whole directory parses"
	else fail "json of the whole directory parses" "$(head -c 600 "$T/out")"; fi
	printf 'session optional pam_envd.so\nsession include x\033\377y\n' >"$P/jctl"
	e audit --format=json --pam-dir="$P" jctl
	if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); m=d["services"][0]["findings"][0]["message"]; assert m.startswith("include x\x1b\ufffdy:"), m' "$T/out"; then
		pass "json with control bytes parses"
	else fail "json with control bytes parses" "$(head -c 600 "$T/out")"; fi
	printf 'session optional pam_envd.so\nsession include x\302\233y\n' >"$P/jc1"
	e audit --format=json --pam-dir="$P" jc1
	if ! LC_ALL=C grep -qaP '\xc2[\x80-\x9f]' "$T/out" && grep -qF 'include x\u009by:' "$T/out"; then
		pass "json: a C1 control in a name as \\u009b"
	else fail "json: a C1 control in a name as \\u009b" "$(head -c 600 "$T/out" | cat -v)"; fi
fi

# ---- failures and usage -----------------------------------------------------------
e audit --pam-dir="$CASES" no-such-service
expect_rc "a named service that does not exist" 3
expect_err "a named service that does not exist" "envd: $CASES/no-such-service: No such file or directory
"
e audit --pam-dir="$T/nowhere"
expect_rc "a directory that does not exist" 3
expect_err "a directory that does not exist" "envd: $T/nowhere: No such file or directory
"
e audit --pam-dir="$CASES" ../cases/right
expect_rc "a service name with a slash" 3
e audit --format=shell --pam-dir="$CASES"
expect_rc "audit --format=shell" 2
e --pam-dir="$CASES" policy
expect_rc "--pam-dir with policy" 2
expect_err "--pam-dir with policy" "envd: --pam-dir goes with audit, show, check and files
Try 'envd --help'.
"
for opt in --explain --root=/ --user-dir=/ --no-user --inherit --no-overwrite --no-expand \
	--user-allow=X --user-deny=X --user-only=X --reapply=PATH --set=A=1; do
	e "$opt" audit --pam-dir="$CASES" right
	expect_rc "audit $opt" 2
	expect_err "audit $opt" "envd: audit takes --pam-dir, --pam-version, --format, -q and -v only
Try 'envd --help'.
"
done
e audit --pam-dir
expect_rc "--pam-dir without a directory" 2

# ---- Debian 12's stacks -----------------------------------------------------------
debian_services="common-session gdm-password greetd lightdm login sddm sshd su"
ok_lines=
for s in $debian_services; do ok_lines="$ok_lines$s: ok
"; done
# Debian 12's sshd and sddm: pam_env.so user_readenv=1 after @include
# common-session reads ~/.pam_environment as root, and wins
readenv() { # SERVICE
	echo "$1: $1:$(grep -n '^session.*pam_env.so.*user_readenv=1' "$DEBIAN/$1" | cut -d: -f1): pam_env.so user_readenv=1 reads ~/.pam_environment as root in the sessions pam_envd.so applies to: whichever of the two comes later wins, and names pam_envd.so refuses (PYTHONPATH, LD_*, ...) come through; fix: remove user_readenv=1 from this line (keep its other options) once the users' files are in environment.d (envd import-pam-environment)"
}
e audit --pam-version=1.5.2-6+deb12u3 --pam-dir="$DEBIAN"
expect_rc "Debian 12 with the pair: sshd's and sddm's user_readenv=1" 1
expect_out "Debian 12 with the pair: sshd's and sddm's user_readenv=1" "$(printf '%s' "$ok_lines" | sed -e "s|^sshd: ok\$|$(readenv sshd)|" -e "s|^sddm: ok\$|$(readenv sddm)|")
11 services checked, 8 apply pam_envd.so, 2 findings
"
# not where pam_envd.so does not apply
mkdir -p "$T/readenv"
printf '%s\n' 'session required pam_unix.so' 'session required pam_env.so user_readenv=1' >"$T/readenv/sshd"
e audit --pam-dir="$T/readenv" sshd
expect_out "user_readenv=1 where pam_envd.so does not apply: no finding" 'sshd: pam_envd.so does not apply in the session stack
no service applies pam_envd.so
1 service checked, 0 apply pam_envd.so, 0 findings
'
# the fix README gives: the line without user_readenv=1
DF=$T/debian-fixed
cp -r "$DEBIAN" "$DF"
sed -i 's/ user_readenv=1//' "$DF/sshd" "$DF/sddm"
e audit --pam-dir="$DF"
expect_rc "Debian 12 with the pair" 0
# common-auth, common-account and common-password are checked too
expect_out "Debian 12 with the pair" "${ok_lines}11 services checked, 8 apply pam_envd.so, 0 findings
"
expect_no_err "Debian 12 with the pair"

# Linux-PAM 1.5.3 and later built with libeconf: pam_env.so reads
# /etc/environment.d itself, literally (the lines without envfile=)
econf() { # SERVICE LINE VERSION
	echo "$1: $1:$2: pam_env.so of Linux-PAM $3 (built with libeconf) reads /etc/environment and every /etc/environment.d/*.conf itself, each line literally: a \$NAME there is not expanded, so PATH=...:\$PATH gives these sessions a literal \"\$PATH\"; fix: keep lines that expand in /usr/local/lib/environment.d/ (pam_envd.so reads it, pam_env.so does not), or give this line envfile=/etc/environment"
}
sshd_env=$(grep -n '^session.*pam_env.so # \[1\]' "$DF/sshd" | cut -d: -f1)
login_env=$(grep -n '^session.*pam_env.so *$\|^session.*pam_env.so readenv=1$' "$DF/login" | head -n 1 | cut -d: -f1)
for v in 1.5.3,econf 1.7.0-5,econf 1:1.5.3-5ubuntu5,econf; do
	e audit --pam-version="$v" --pam-dir="$DF" sshd login
	expect_rc "Linux-PAM $v: pam_env reads /etc/environment.d" 1
	expect_out "Linux-PAM $v: pam_env reads /etc/environment.d" "$(econf sshd "$sshd_env" "${v%,econf}")
$(econf login "$login_env" "${v%,econf}")
2 services checked, 2 apply pam_envd.so, 2 findings
"
done
for v in 1.5.2,econf 1.5.3 1.7.0 1.5.2-6+deb12u3; do
	e audit --pam-version="$v" --pam-dir="$DF" sshd login
	expect_out "Linux-PAM $v: pam_env reads no /etc/environment.d" "sshd: ok
login: ok
2 services checked, 2 apply pam_envd.so, 0 findings
"
done

# a pam_exec helper before the cleanup line of common-session: every service
D=$T/debian
cp -r "$DF" "$D"
sed -i 's/^session\toptional\tpam_envd.so cleanup$/session\toptional\tpam_exec.so \/usr\/local\/sbin\/logout-hook\n&/' "$D/common-session"
line=$(grep -n 'logout-hook' "$D/common-session" | cut -d: -f1)
want=
for s in $debian_services; do want="$want$s: common-session:$line: pam_exec.so at close sees the user's values: $exec_reason
"; done
e audit --pam-dir="$D"
expect_rc "Debian 12, a helper before the cleanup line" 1
expect_out "Debian 12, a helper before the cleanup line" "${want}11 services checked, 8 apply pam_envd.so, 8 findings
"

# in one service, before its @include common-session
cp "$DF/common-session" "$D/common-session"
sed -i 's/^@include common-session$/session optional pam_exec.so type=close_session \/usr\/local\/sbin\/hook\n&/' "$D/sshd"
line=$(grep -n 'sbin/hook' "$D/sshd" | cut -d: -f1)
e audit --pam-dir="$D" sshd lightdm
expect_rc "Debian 12 sshd, a close helper before common-session" 1
expect_out "Debian 12 sshd, a close helper before common-session" "sshd: sshd:$line: pam_exec.so at close sees the user's values: $exec_reason
lightdm: ok
2 services checked, 2 apply pam_envd.so, 1 finding
"
# a helper after the applying line, appended to gdm-password
cp "$DEBIAN/sshd" "$D/sshd"
echo 'session optional pam_exec.so /usr/local/sbin/hook' >>"$D/gdm-password"
line=$(wc -l <"$D/gdm-password")
apply=$(grep -n '^session	optional	pam_envd.so *$' "$D/common-session" | cut -d: -f1)
e audit --pam-dir="$D" gdm-password
expect_rc "Debian 12 gdm-password, a helper after the applying line" 1
expect_out "Debian 12 gdm-password, a helper after the applying line" "gdm-password: gdm-password:$line: pam_exec.so at open sees the user's values: $exec_reason
gdm-password: common-session:$apply: pam_envd.so is not the last session line: 1 later module runs programs at open
1 service checked, 1 applies pam_envd.so, 2 findings
"
# without the cleanup line
cp "$DEBIAN/gdm-password" "$D/gdm-password"
sed -i '/pam_envd.so cleanup/d' "$D/common-session"
apply=$(grep -n '^session	optional	pam_envd.so *$' "$D/common-session" | cut -d: -f1)
e audit --pam-dir="$D" greetd
expect_rc "Debian 12 greetd, no cleanup line" 1
expect_out "Debian 12 greetd, no cleanup line" "greetd: common-session:$apply: $no_cleanup
1 service checked, 1 applies pam_envd.so, 1 finding
"

# ---- summary ----------------------------------------------------------------------
finish
