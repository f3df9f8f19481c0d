#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/e2e/cli.sh - tests of the envd command itself: output formats (each
# read back by the consumer it is meant for), --explain, `envd files`,
# `envd check` diagnostics with exact file:line, exit codes, the options,
# and, as root, reading another user's files with that user's rights.
#
# An automake test: $ENVD, $top_srcdir and $top_builddir come from the
# Makefile; run by hand it finds them from its own location.  Exit 0 pass,
# 1 fail, 77 skip.  Every check prints "ok - ..." or "FAIL - ..." and the
# last line counts them.

# Literal $ and backslashes in single quotes are meant; cleanup runs from a trap.
# shellcheck disable=SC2016,SC1003,SC2317

if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -u
umask 022
export LC_ALL=C.UTF-8

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir/_build/plain}
FIX=$top_srcdir/tests/e2e/cli

. "$top_srcdir/tests/lib/harness.sh"
harness_init cli.sh check skips
need_envd
need_caller_account

make_tmpdir T envd-cli
H_OUT=$T/out H_ERR=$T/err
tmp_user=
at_exit 'if [ -n "$tmp_user" ]; then
	userdel -r "$tmp_user" >/dev/null 2>&1 || userdel "$tmp_user" >/dev/null 2>&1
fi'

# envd under valgrind when ENVD_VALGRIND asks for it (tests/lib/vg_lib.sh); the
# wrapper and logs outside $T, for the runs as another user
. "$top_srcdir/tests/lib/vg_lib.sh"
VGT=
if [ "${ENVD_VALGRIND:-no}" != no ]; then
	make_tmpdir VGT envd-cli-vg
	vg_init "$VGT" "$ENVD" || exit 1
	ENVD=$(vg_wrap "$ENVD")
fi

# the same as e with an environment: e_env VAR=VALUE... -- ARG...
e_env() {
	local vars=()
	while [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	shift
	env "${vars[@]}" "$ENVD" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}

# mkroot DIR: an empty --root tree with the four system directories
mkroot() {
	mkdir -p "$1/etc/environment.d" "$1/run/environment.d" \
		"$1/usr/local/lib/environment.d" "$1/usr/lib/environment.d"
}

# dir_lines PREFIX USERDIR N ROOT N N N N: the lines `envd files` starts
# with, each after PREFIX, for a user directory and a mkroot tree that are
# all used, with the number of .conf files of each
dir_lines() {
	local p=$1 u=$2 n=$3 r=$4 d s
	s=s
	[ "$n" = 1 ] && s=
	printf '%sused    %s/ (user directory, %s .conf file%s)\n' "$p" "$u" "$n" "$s"
	shift 4
	for d in etc/environment.d run/environment.d usr/local/lib/environment.d usr/lib/environment.d; do
		s=s
		[ "$1" = 1 ] && s=
		printf '%sused    %s/ (system directory, %s .conf file%s)\n' "$p" "$r/$d" "$1" "$s"
		shift
	done
}
# an empty PAM directory: a login has no XDG_RUNTIME_DIR from pam_systemd
PAM0=$T/pam0
mkdir -p "$PAM0"
# one that applies pam_envd.so, without pam_systemd: show, check and files
# read it unless a test names another, so that what they say does not
# depend on what /etc/pam.d has while other tests add and remove services
PAMON=$T/pamon
mkdir -p "$PAMON"
printf '%s\n' 'session optional pam_envd.so cleanup' 'session required pam_unix.so' \
	'session optional pam_envd.so' >"$PAMON/login"
e() {
	local a pin=
	for a; do
		case $a in
		--pam-dir=*)
			pin=
			break
			;;
		show | check | files) pin=--pam-dir=$PAMON ;;
		esac
	done
	"$ENVD" ${pin:+"$pin"} "$@" >"$H_OUT" 2>"$H_ERR"
	rc=$?
}

# the caller, as a login of the caller would see it
me=$(id -un)
my_uid=$(id -u)
IFS=: read -r _ _ _ _ _ my_home my_shell < <(getent passwd "$my_uid")
default_path=$("$ENVD" --help | sed -n 's/.*(default \(.*\))$/\1/p')
expect_true "--help names the default PATH" test -n "$default_path"
: "${default_path:=/usr/local/bin:/usr/bin:/bin}"

# ---- --version, --help ---------------------------------------------------------
for opt in --version -V; do
	e "$opt"
	expect_rc "envd $opt" 0
	if grep -qE '^envd \(pam_envd\) [0-9]+\.[0-9]+' "$T/out" && [ "$(wc -l <"$T/out")" -eq 1 ]; then
		pass "envd $opt prints one version line"
	else fail "envd $opt prints one version line" "$(cat "$T/out")"; fi
	expect_no_err "envd $opt"
done
for opt in --help -h; do
	e "$opt"
	expect_rc "envd $opt" 0
	expect_no_err "envd $opt"
	expect_true "envd $opt starts with the usage line" grep -q '^Usage: envd \[OPTION\]\.\.\. COMMAND \[USER\]' "$T/out"
	missing=
	for word in show check files --format --explain --root= --user-dir= --no-user --inherit \
		--no-overwrite --no-expand --default-path= --system-dirs= --max-env= --quiet \
		--generators --generator-dirs= \
		--verbose --version \
		'Exit status'; do
		grep -qF -- "$word" "$T/out" || missing="$missing $word"
	done
	if [ -z "$missing" ]; then pass "envd $opt documents every command and option"; else
		fail "envd $opt documents every command and option" "missing:$missing"
	fi
	expect_true "envd $opt fits 80 columns" test -z "$(awk 'length > 79' "$T/out")"
done

# ---- usage errors: exit 2, a message on stderr, nothing on stdout --------------
R0=$T/root0
mkroot "$R0"
usage_case() { # WHAT ARG...
	local what=$1
	shift
	e --root="$R0" --no-user "$@"
	expect_rc "usage error: $what" 2
	expect_no_out "usage error: $what"
	if [ -s "$T/err" ]; then pass "usage error: $what: says why on stderr"; else
		fail "usage error: $what: says why on stderr"
	fi
}
usage_case "no command"
usage_case "unknown command" frob
usage_case "too many arguments" show someone extra
usage_case "unknown format (-f)" -f xml show
usage_case "unknown format (--format=)" --format=yaml show
usage_case "format without argument" show -f
usage_case "unknown option" --bogus show
usage_case "unknown short option" -Z show
usage_case "relative --user-dir" --user-dir=rel/dir show
usage_case "relative --root" --root=rel show
usage_case "relative --system-dirs" --system-dirs=rel show
usage_case "--max-env not a size" --max-env=lots show
usage_case "--max-env above the cap" --max-env=2M show
usage_case "--user-dir bad template" --user-dir=/x/%x show
usage_case "--default-path empty" --default-path= show
usage_case "audit with --max-env" --max-env=1K audit
e --root="$R0" --no-user --max-env=lots show
expect_err_has "malformed value: message" "envd: --max-env: not a positive size; fix: give bytes, with an optional K or M suffix, at most 1M"

# ---- the module's options envd shares: --system-dirs, --max-env, --user-dir=%u --
SD=$T/sysdirs
mkroot "$SD"
mkdir -p "$SD/alt" "$T/ud/$me"
printf 'ETC=1\n' >"$SD/etc/environment.d/a.conf"
printf 'ALT=1\nALT2=2\n' >"$SD/alt/a.conf"
printf 'MINE=1\n' >"$T/ud/$me/a.conf"
e --root="$SD" --no-user --system-dirs=/alt show
expect_out "--system-dirs replaces the four, under --root" $'ALT=1\nALT2=2\n'
e --root="$SD" --no-user --system-dirs=/alt --max-env=6 show
expect_out "--max-env caps the result" $'ALT=1\n'
e --root="$SD" --user-dir="$T/ud/%u" --system-dirs=/nowhere show
expect_out "--user-dir takes the module's template" $'MINE=1\n'
usage_case "--explain with --format=shell" --explain --format=shell show
usage_case "--format=shell with --explain" -f shell -e show
usage_case "--explain with --format=nul" -e -f nul show
e --root="$R0" --no-user frob
expect_err_has "unknown command: message" "envd: unknown command: frob"
e --root="$R0" --no-user -f xml show
expect_err_has "unknown format: message" "envd: unknown format: xml"

# ---- unknown user: exit 3 -----------------------------------------------------
no_uid=4000123
while getent passwd "$no_uid" >/dev/null 2>&1; do no_uid=$((no_uid + 1)); done
for u in envd-no-such-user-zz "$no_uid" ""; do
	e --root="$R0" --no-user show "$u"
	expect_rc "unknown user '$u'" 3
	expect_no_out "unknown user '$u'"
	expect_err_has "unknown user '$u': message" "envd: $u: no such user"
done
e --root="$R0" --no-user check envd-no-such-user-zz
expect_rc "check: unknown user" 3

# ---- formats ------------------------------------------------------------------
# The fixture holds the hard values; a second file adds control characters.
F=$T/fmt
mkroot "$F/r"
mkdir -p "$F/u" "$F/run"
cp "$FIX/values.conf" "$F/u/10-values.conf"
printf 'CTRL="a\tb\033[1mc\001d"\nDEL="x\177y"\nCSI="\302\233x"\n' >"$F/u/20-ctrl.conf"
exp_names=(SQ NL DQ BS DOLLAR UTF SPACES EQ STAR TRAIL CONT ONEQ TRAILNL LEADNL CMDV BTV SEMI
	JSONISH CTRL DEL CSI)
exp_values=(
	"it's"
	$'line1\nline2'
	'say "hi"'
	'a\b\\c'
	'$HOME'
	'héllo wörld ✓ 日本'
	'  lead and trail  '
	'a=b=c'
	'*'
	'ends with \'
	'one  two'
	"'"
	$'x\n'
	$'\ny'
	'$(touch pwned)'
	'`touch pwned`'
	'a; touch pwned; b'
	'{"k": [1, "u0041"]}'
	$'a\tb\033[1mc\001d'
	$'x\177y'
	$'\302\233x'
)
# raw_controls FILE: no line holds a raw control character (C0 but the
# newline, DEL, C1 in UTF-8: U+0080..U+009F, which terminals obey too)
raw_controls() {
	! LC_ALL=C grep -qaP '[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1"
}
fe() { e --root="$F/r" --user-dir="$F/u" "$@"; }

# nul: split on \0, compared with the values written above
fe show --format=nul
expect_rc "show --format=nul" 0
expect_no_err "show --format=nul"
cp "$T/out" "$F/nul"
expected_nul() {
	local i
	for i in "${!exp_names[@]}"; do printf '%s=%s\0' "${exp_names[$i]}" "${exp_values[$i]}"; done
}
expected_nul >"$F/nul.expected"
expect_true "nul: every NAME=VALUE\\0 byte-identical, in order of first definition" cmp -s "$F/nul" "$F/nul.expected"
got_names=()
got_values=()
while IFS= read -r -d '' kv; do
	got_names+=("${kv%%=*}")
	got_values+=("${kv#*=}")
done <"$F/nul"
expect_true "nul: split on \\0 gives ${#exp_names[@]} entries" test "${#got_names[@]}" -eq "${#exp_names[@]}"
expect_true "nul: the last byte is \\0" test "$(tail -c 1 "$F/nul" | od -An -tx1 | tr -d ' ')" = 00
bad=
for i in "${!exp_names[@]}"; do
	[ "${got_names[$i]:-}" = "${exp_names[$i]}" ] && [ "${got_values[$i]:-}" = "${exp_values[$i]}" ] ||
		bad="$bad ${exp_names[$i]}"
done
if [ -z "$bad" ]; then pass "nul: each name and value read back identical"; else
	fail "nul: each name and value read back identical" "differ:$bad"
fi
# nul is for programs, byte for byte; a terminal gets the values escaped as
# env writes them (script(1) gives envd one)
if have script; then
	script -qec "$(printf '%q ' "$ENVD" --root="$F/r" --user-dir="$F/u" show --format=nul)" \
		/dev/null >"$F/nul.tty" 2>&1 </dev/null
	tr -d '\000' <"$F/nul.tty" >"$F/nul.tty.text"
	expect_true "nul on a terminal: no raw control character but the \\0" \
		raw_controls "$F/nul.tty.text"
	expect_true "nul on a terminal: values escaped as env writes them" \
		grep -qaF "CTRL=\$'a\\tb\\x1b[1mc\\x01d'" "$F/nul.tty"
else
	skip "nul on a terminal (no script)"
fi

# env: NAME=VALUE lines, the value raw unless it holds a control
# character: then $'...' with C escapes (systemctl show-environment's
# form), which bash reads back byte-identical; no raw control byte, one
# line per variable
fe show
expect_rc "show (default format env)" 0
cp "$T/out" "$F/env"
expected_env=
for i in "${!exp_names[@]}"; do
	case ${exp_names[$i]} in
	CTRL) expected_env+='CTRL=$'"'"'a\tb\x1b[1mc\x01d'"'"$'\n' ;;
	DEL) expected_env+='DEL=$'"'"'x\x7fy'"'"$'\n' ;;
	CSI) expected_env+='CSI=$'"'"'\xc2\x9bx'"'"$'\n' ;;
	NL | TRAILNL | LEADNL) expected_env+="${exp_names[$i]}=$(printf '%q' "${exp_values[$i]}")"$'\n' ;;
	*) expected_env+="${exp_names[$i]}=${exp_values[$i]}"$'\n' ;;
	esac
done
expect_out "show (env)" "$expected_env"
expect_no_err "show (env)"
fe show -f env
expect_out "show -f env" "$expected_env"
expect_true "env: one line per variable" test "$(wc -l <"$F/env")" -eq "${#exp_names[@]}"
expect_true "env: no raw control byte (a newline forges no line, no escape reaches a terminal)" \
	raw_controls "$F/env"
bad=
i=0
while IFS= read -r line; do
	v=${line#*=}
	case $v in \$\'*) eval "v=$v" ;; esac
	[ "${line%%=*}" = "${exp_names[$i]}" ] && [ "$v" = "${exp_values[$i]}" ] || bad="$bad ${exp_names[$i]}"
	i=$((i + 1))
done <"$F/env"
if [ -z "$bad" ]; then pass "env: each value read back identical (bash for the quoted ones)"; else
	fail "env: each value read back identical (bash for the quoted ones)" "differ:$bad"
fi
printf 'FORGE="x\nLD_PRELOAD=/tmp/evil.so"\nLOOKS=$'"'"'quoted'"'"'\n' >"$F/u/30-forge.conf"
fe show
expect_true "env: a value with a newline forges no LD_PRELOAD= line" \
	grep -qx "FORGE=\$'x\\\\nLD_PRELOAD=/tmp/evil.so'" "$T/out"
expect_true "env: nor any line of its own" sh -c '! grep -q "^LD_PRELOAD=" "$1"' sh "$T/out"
expect_true "env: a value that starts like the quoting is quoted itself" \
	grep -qx "LOOKS=\$'\\\$\\\\'quoted\\\\''" "$T/out"
rm -f "$F/u/30-forge.conf"

# shell: eval'ed back in each shell, the values come out byte-identical and
# nothing in them runs
fe show --format=shell
expect_rc "show --format=shell" 0
expect_no_err "show --format=shell"
cp "$T/out" "$F/shell"
n_export=$(grep -c '^export [A-Z_]*=' "$F/shell")
expect_true "shell: one export line per variable" test "$n_export" -eq "${#exp_names[@]}"
# a value with a control character is made by printf from octal escapes:
# none reaches the terminal that shows the output raw
expect_true "shell: no raw control character (a terminal shows the output)" raw_controls "$F/shell"
expect_true "shell: a control character as printf's octal escape" \
	grep -qxF "export CTRL=\"\$(printf 'a\\tb\\033[1mc\\001d_')\"; CTRL=\"\${CTRL%_}\"" "$F/shell"
readback='eval "$(cat "$1")" || exit 9; shift
for n do eval "v=\${$n}"; printf "%s=%s\0" "$n" "$v"; done'
for sh in sh dash bash; do
	if ! have_cmds "$sh"; then
		skip "shell: eval in $sh (not installed)"
		continue
	fi
	rm -f "$F/run/pwned"
	(cd "$F/run" && env -i PATH="$PATH" "$sh" -c "$readback" sh "$F/shell" "${exp_names[@]}") \
		>"$F/back.$sh" 2>"$F/back.$sh.err"
	expect_true "shell: eval in $sh gives byte-identical values" cmp -s "$F/back.$sh" "$F/nul.expected"
	expect_true "shell: eval in $sh runs nothing from the values" test ! -e "$F/run/pwned"
	expect_true "shell: eval in $sh is silent" test ! -s "$F/back.$sh.err"
done
# the exported variables reach a child process too
if have_cmds bash; then
	(cd "$F/run" && env -i PATH="$PATH" bash -c 'eval "$(cat "$1")"; env -0' sh "$F/shell") >"$F/child"
	declare -A child=()
	while IFS= read -r -d '' kv; do child[${kv%%=*}]=${kv#*=}; done <"$F/child"
	bad=
	for i in "${!exp_names[@]}"; do
		[ "${child[${exp_names[$i]}]-unset}" = "${exp_values[$i]}" ] || bad="$bad ${exp_names[$i]}"
	done
	if [ -z "$bad" ]; then pass "shell: the values are exported to children"; else
		fail "shell: the values are exported to children" "missing:$bad"
	fi
fi

# json: one object; python3 and jq read back the same names, in order, and values
fe show --format=json
expect_rc "show --format=json" 0
expect_no_err "show --format=json"
cp "$T/out" "$F/json"
expect_true "json: no raw control character, C1 included" raw_controls "$F/json"
expect_true "json: a C1 control as \\u009b" grep -qF '"CSI":"\u009bx"' "$F/json"
fe show --explain --format=json
expect_true "json --explain: no raw control character, C1 included" raw_controls "$T/out"
fe show --explain
expect_true "env --explain: no raw control character" raw_controls "$T/out"
if have_cmds python3; then
	expect_true "json: python3 parses it; names in order, values identical" python3 -c '
import json, sys
doc = open(sys.argv[1], "rb").read().decode("utf-8")
pairs = json.loads(doc, object_pairs_hook=list)
raw = open(sys.argv[2], "rb").read()
assert raw.endswith(b"\0")
want = [tuple(e.decode("utf-8").split("=", 1)) for e in raw[:-1].split(b"\0")]
if pairs != want:
    print("got ", pairs, "\nwant", want, file=sys.stderr)
    sys.exit(1)
' "$F/json" "$F/nul.expected"
else
	skip "json: python3 (not installed)"
fi
if have_cmds jq; then
	jq -j 'to_entries[] | .key + "=" + .value + "\u0000"' "$F/json" >"$F/json.jq" 2>"$F/json.jq.err"
	expect_true "json: jq parses it; names in order, values identical" cmp -s "$F/json.jq" "$F/nul.expected"
	expect_true "json: jq reads exactly one object" test "$(jq -s 'length' "$F/json")" = 1
else
	skip "json: jq (not installed)"
fi

# no variables at all: each format is still well-formed
E0=$T/empty
mkroot "$E0/r"
mkdir -p "$E0/u"
for f in env shell nul; do
	e --root="$E0/r" --user-dir="$E0/u" show -f "$f"
	expect_rc "no variables, -f $f" 0
	expect_no_out "no variables, -f $f"
done
e --root="$E0/r" --user-dir="$E0/u" show -f json
expect_out "no variables, -f json" $'{}\n'
if have_cmds jq; then expect_true "no variables: json parses" jq -e 'length == 0' "$T/out" >/dev/null; fi

# ---- --explain and `envd files` -------------------------------------------------
X=$T/x
R=$X/r
U=$X/u
mkroot "$R"
mkdir -p "$U"
printf 'B=1\nA=1\n' >"$R/etc/environment.d/10-first.conf"
printf 'Z=masked\n' >"$R/usr/lib/environment.d/10-first.conf"
ln -s /dev/null "$R/run/environment.d/20-null.conf"
printf 'Y=masked\n' >"$R/usr/lib/environment.d/20-null.conf"
printf 'W=1\n' >"$R/etc/environment.d/25-gw.conf"
chmod 664 "$R/etc/environment.d/25-gw.conf"
printf '# comment\n\nB=2\nC=multi\\\n line\nD=4\n' >"$U/30-later.conf"
mkdir "$R/usr/local/lib/environment.d/50-dir.conf"
printf 'V=masked\n' >"$R/usr/lib/environment.d/50-dir.conf"
ln -s "$X/nonexistent" "$R/etc/environment.d/60-dangling.conf"
printf 'Q=masked\n' >"$R/usr/lib/environment.d/60-dangling.conf"
printf 'E=user\n' >"$U/70-x.conf"
printf 'E=etc\n' >"$R/etc/environment.d/70-x.conf"
printf 'E=lib\n' >"$R/usr/lib/environment.d/70-x.conf"
mkfifo "$R/run/environment.d/80-fifo.conf"
printf 'F=${B}\n' >"$R/usr/lib/environment.d/9-b.conf"
printf 'G=1\n' >"$R/usr/lib/environment.d/B.conf"
printf 'H=${F}x\n' >"$R/usr/lib/environment.d/a.conf"
printf 'J=hidden\n' >"$R/usr/lib/environment.d/.hidden.conf"
printf 'K=1\n' >"$R/usr/lib/environment.d/README"
E_=$R/etc/environment.d RU=$R/run/environment.d L=$R/usr/local/lib/environment.d UL=$R/usr/lib/environment.d
files_expected="used    $E_/10-first.conf
masked  $UL/10-first.conf (by $E_/10-first.conf)
masks   $RU/20-null.conf (/dev/null)
masked  $UL/20-null.conf (by $RU/20-null.conf)
skipped $E_/25-gw.conf (writable by group or others)
used    $U/30-later.conf
masks   $L/50-dir.conf (a directory)
masked  $UL/50-dir.conf (by $L/50-dir.conf)
masks   $E_/60-dangling.conf (dangling symbolic link)
masked  $UL/60-dangling.conf (by $E_/60-dangling.conf)
used    $U/70-x.conf
masked  $E_/70-x.conf (by $U/70-x.conf)
masked  $UL/70-x.conf (by $U/70-x.conf)
skipped $RU/80-fifo.conf (not a regular file)
used    $UL/9-b.conf
used    $UL/B.conf
used    $UL/a.conf
"
errors_expected="$E_/25-gw.conf: error: writable by group or others, skipped; fix: chmod go-w $E_/25-gw.conf
$RU/80-fifo.conf: error: not a regular file, skipped; fix: make it a regular file
"
xe() { e --pam-dir="$PAMON" --root="$R" --user-dir="$U" "$@"; }
xdirs=$(dir_lines '' "$U" 2 "$R" 4 2 1 8)
model0="# before pam_envd.so the login has HOME, USER, LOGNAME and SHELL from the passwd entry, PATH, and:
#   no XDG_RUNTIME_DIR: pam_systemd.so is not before pam_envd.so in any of the 1 service that apply it
#   not known here, each session sets them: XDG_SESSION_TYPE, XDG_SESSION_DESKTOP, XDG_CURRENT_DESKTOP, DISPLAY... (--set gives one)"

xe show
expect_rc "explain tree: show" 0
expect_out "explain tree: show, order of first definition, later wins" 'B=2
A=1
C=multi line
D=4
E=user
F=2
G=1
H=2x
'
expect_err "explain tree: show reports the skipped files" "$errors_expected"

xe show --explain
expect_rc "show --explain" 0
expect_out "show --explain: file:line per variable, then every file with its state" "$model0
# $U/30-later.conf:3
B=2
# $E_/10-first.conf:2
A=1
# $U/30-later.conf:4
C=multi line
# $U/30-later.conf:6
D=4
# $U/70-x.conf:1
E=user
# $UL/9-b.conf:1
F=2
# $UL/B.conf:1
G=1
# $UL/a.conf:1
H=2x
# directories, highest precedence first:
$(printf '%s\n' "$xdirs" | sed 's/^/#   /')
# files, in the order they are read:
$(printf '%s' "$files_expected" | sed 's/^/#   /')
# envd check says:
#   $UL/README: warning: not read: environment.d reads only names ending in \".conf\"
"
expect_err "show --explain" "$errors_expected"
xe show -e -f env
expect_rc "show -e -f env" 0

xe files
expect_rc "files" 0
expect_out "files: the directories, then used/masked/masks/skipped, in strcmp order of basenames" "$xdirs
$files_expected"
expect_err "files" "$errors_expected"

xe show --explain --format=json
expect_rc "show --explain --format=json" 0
cp "$T/out" "$X/explain.json"
if have_cmds python3; then
	expect_true "show --explain --format=json: structure and content" python3 -c '
import json, sys
R, U = sys.argv[2], sys.argv[3]
E, RU, L, UL = R + "/etc/environment.d", R + "/run/environment.d", R + "/usr/local/lib/environment.d", R + "/usr/lib/environment.d"
doc = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"), object_pairs_hook=list)
def obj(pairs):
    return dict(pairs)
assert [k for k, _ in doc] == ["variables", "directories", "files", "login",
                               "no_service_applies", "user_directory_skipped", "check"], doc
top = dict(doc)
vs = top["variables"]
for v in vs:
    assert [k for k, _ in v] == ["name", "value", "file", "line"], v
got = [tuple(x for _, x in v) for v in vs]
want = [("B", "2", U + "/30-later.conf", 3), ("A", "1", E + "/10-first.conf", 2),
        ("C", "multi line", U + "/30-later.conf", 4), ("D", "4", U + "/30-later.conf", 6),
        ("E", "user", U + "/70-x.conf", 1), ("F", "2", UL + "/9-b.conf", 1),
        ("G", "1", UL + "/B.conf", 1), ("H", "2x", UL + "/a.conf", 1)]
assert got == want, (got, want)
ds = [dict(d) for d in top["directories"]]
assert [(d["path"], d["state"], d["user"], d["files"], d["reason"]) for d in ds] == [
    (U, "used", True, 2, None), (E, "used", False, 4, None), (RU, "used", False, 2, None),
    (L, "used", False, 1, None), (UL, "used", False, 8, None)], ds
fs = top["files"]
for f in fs:
    assert [k for k, _ in f] == ["path", "state", "user", "masked_by", "reason"], f
got = [tuple(x for _, x in f) for f in fs]
want = [
    (E + "/10-first.conf", "used", False, None, None),
    (UL + "/10-first.conf", "masked", False, E + "/10-first.conf", None),
    (RU + "/20-null.conf", "masks", False, None, "/dev/null"),
    (UL + "/20-null.conf", "masked", False, RU + "/20-null.conf", None),
    (E + "/25-gw.conf", "skipped", False, None, "writable by group or others"),
    (U + "/30-later.conf", "used", True, None, None),
    (L + "/50-dir.conf", "masks", False, None, "a directory"),
    (UL + "/50-dir.conf", "masked", False, L + "/50-dir.conf", None),
    (E + "/60-dangling.conf", "masks", False, None, "dangling symbolic link"),
    (UL + "/60-dangling.conf", "masked", False, E + "/60-dangling.conf", None),
    (U + "/70-x.conf", "used", True, None, None),
    (E + "/70-x.conf", "masked", False, U + "/70-x.conf", None),
    (UL + "/70-x.conf", "masked", False, U + "/70-x.conf", None),
    (RU + "/80-fifo.conf", "skipped", False, None, "not a regular file"),
    (UL + "/9-b.conf", "used", False, None, None),
    (UL + "/B.conf", "used", False, None, None),
    (UL + "/a.conf", "used", False, None, None),
]
if got != want:
    for g, w in zip(got, want):
        if g != w: print("got ", g, "\nwant", w, file=sys.stderr)
    sys.exit(1)
' "$X/explain.json" "$R" "$U"
else
	skip "show --explain --format=json (python3 not installed)"
fi
if have_cmds jq; then
	expect_true "show --explain --format=json: jq reads it" jq -e '.variables | length == 8' "$X/explain.json" >/dev/null
fi

# -v adds the notes about masked files; without it there are none
xe -v show
expect_err_has "-v: masked file noted" "$UL/10-first.conf: note: masked by $E_/10-first.conf"
expect_err_has "-v: masking file noted" \
	"$RU/20-null.conf: note: reads nothing (/dev/null) and masks the same name in later directories"
xe show
expect_err_lacks "no -v: no notes" ": note: "
# -q: no diagnostics at all, the same output
xe -q show
expect_rc "-q show" 0
expect_no_err "-q show"
expect_out "-q show: same output" 'B=2
A=1
C=multi line
D=4
E=user
F=2
G=1
H=2x
'
xe -q files
expect_no_err "-q files"
expect_out "-q files" "$xdirs
$files_expected"
# stdout holds only the output even while diagnostics are printed
xe -v -v show -f json
expect_rc "-vv show -f json" 0
expect_true "-vv show -f json: stderr has the tracing" test -s "$T/err"
if have_cmds jq; then expect_true "-vv show -f json: stdout parses" jq -e 'length == 8' "$T/out" >/dev/null; fi
xe check
expect_out "check: the findings on stdout" "$UL/README: warning: not read: environment.d reads only names ending in \".conf\"
$errors_expected"

# an empty file masks the same name in later directories
M=$T/mask
mkroot "$M/r"
mkdir -p "$M/u"
: >"$M/u/40-empty.conf"
printf 'EMPTYMASKED=1\n' >"$M/r/etc/environment.d/40-empty.conf"
printf 'KEEP=1\n' >"$M/r/etc/environment.d/41-keep.conf"
e --root="$M/r" --user-dir="$M/u" show
expect_out "an empty user file masks the system file" $'KEEP=1\n'
e --root="$M/r" --user-dir="$M/u" files
expect_true "files: the system file is masked by the empty file" \
	grep -qxF "masked  $M/r/etc/environment.d/40-empty.conf (by $M/u/40-empty.conf)" "$T/out"
# envd.h: ENVD_FILE_MASKS "holds a name only to mask: /dev/null, directory, empty"
expect_true "files: an empty file is in state 'masks' (envd.h), not 'used'" \
	grep -qE "^masks   $M/u/40-empty\.conf( \(.*\))?\$" "$T/out"

# an empty file with nothing of its name below (Debian's 99-environment.conf
# when /etc/environment is empty) is only empty
printf 'X=1\n' >"$M/r/etc/environment.d/40-empty.conf"
: >"$M/r/usr/lib/environment.d/99-environment.conf"
e --root="$M/r" --user-dir="$M/u" files
expect_true "files: an empty file that masks nothing is 'empty'" \
	grep -qxF "empty   $M/r/usr/lib/environment.d/99-environment.conf (empty file)" "$T/out"
expect_true "files: an empty file that masks a file is still 'masks'" \
	grep -qxF "masks   $M/u/40-empty.conf (empty file)" "$T/out"

# ---- envd check ----------------------------------------------------------------
C=$T/check
mkroot "$C/r"
mkdir -p "$C/u"
cp "$FIX/lint.conf" "$C/u/10-lint.conf"
ce() { e --root="$C/r" --user-dir="$C/u" "$@"; }
lf=$C/u/10-lint.conf
lint_expected="$lf:3: error: A_EMPTY= has no value and sets nothing (environment.d cannot set an empty value, nor unset one)
$lf:4: error: \"export FOO\": environment.d has no \"export\"; write NAME=VALUE
$lf:5: warning: '~' is not expanded here; write \$HOME
$lf:6: warning: command substitution (\$(...) or \`...\`) is not run here
$lf:7: warning: command substitution (\$(...) or \`...\`) is not run here
$lf:8: warning: '%' specifiers such as %h are not expanded here; write \$HOME
$lf:9: warning: \$NOT_SET_ANYWHERE is not set here: it expands to nothing
$lf:10: warning: \$NOT_SET_EITHER is not set here: it expands to nothing
$lf:11: warning: EMPTY is set but empty: \${EMPTY:-...} gives empty, the default applies only when it is unset
$lf:12: warning: \$NOPE is not set here: it expands to nothing
$lf:12: warning: empty component in PATH: the current directory is searched (was a variable unset?)
$lf:13: warning: '#' after the value is part of it; comments must start a line
$lf:14: error: LD_PRELOAD refused: steers the dynamic loader or libc of programs started later; fix: set it in your shell's startup file (~/.profile) instead, or an administrator adds user_allow=LD_PRELOAD to the pam_envd line
$lf:15: error: BASH_ENV refused: makes shells started later run code; fix: set it in your shell's startup file (~/.profile) instead, or an administrator adds user_allow=BASH_ENV to the pam_envd line
"
ce check
expect_rc "check: findings" 1
expect_no_err "check"
expect_out "check: one file:line: finding per line on stdout, exactly" "$lint_expected"
ce check "$me"
expect_rc "check USER" 1
ce -q check
expect_rc "check -q: findings" 1
expect_no_err "check -q"
expect_no_out "check -q"
# show on the same files: errors only, no lint, and stdout parses
ce show -f json
expect_rc "show over a file with findings" 0
expect_err_lacks "show: no lint warnings" ": warning: "
expect_err_has "show: still reports the refused name" \
	"$lf:14: error: LD_PRELOAD refused: steers the dynamic loader or libc of programs started later; fix: set it in your shell's startup file (~/.profile) instead, or an administrator adds user_allow=LD_PRELOAD to the pam_envd line"
if have_cmds python3; then
	expect_true "show -f json over a file with findings: stdout is exactly the JSON" python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
assert "LD_PRELOAD" not in d and "BASH_ENV" not in d and "FOO" not in d and "A_EMPTY" not in d, d
assert d["DEFAULTED"] == "" and d["PATH"] == ":/x" and d["COMMENT"] == "1 # trailing", d
assert d["FINE"].startswith("1:d::$:"), d
' "$T/out"
fi
ce files
expect_rc "files over a file with findings" 0
expect_out "files over a file with findings" "$(dir_lines '' "$C/u" 1 "$C/r" 0 0 0 0)
used    $lf
"

# a clean file: exit 0, nothing printed
cp "$FIX/clean.conf" "$C/r/etc/environment.d/10-clean.conf"
printf 'MASKED_CLEAN=1\n' >"$C/r/usr/lib/environment.d/10-clean.conf"
e --root="$C/r" --no-user check
expect_rc "check: clean files (a masked one included)" 0
expect_no_err "check: clean files"
expect_no_out "check: clean files"
e --root="$C/r" --no-user -v check
expect_rc "check -v: notes are not findings" 0

# policy: refused in a user file, fine in a system directory
P=$T/policy
mkroot "$P/r"
mkdir -p "$P/u"
cp "$FIX/system.conf" "$P/r/etc/environment.d/50-system.conf"
e --root="$P/r" --user-dir="$P/u" check
expect_rc "check: LD_PRELOAD/BASH_ENV in a system dir are not refused" 0
expect_no_err "check: system dir LD_PRELOAD/BASH_ENV"
e --root="$P/r" --user-dir="$P/u" show
expect_out "show: LD_PRELOAD/BASH_ENV from a system dir" 'LD_PRELOAD=/usr/lib/libsystemwide.so
BASH_ENV=/etc/bash_env
'
rm "$P/r/etc/environment.d/50-system.conf"
cp "$FIX/system.conf" "$P/u/50-system.conf"
e --root="$P/r" --user-dir="$P/u" check
expect_rc "check: LD_PRELOAD/BASH_ENV in the user dir are refused" 1
expect_out "check: user dir LD_PRELOAD/BASH_ENV" "$P/u/50-system.conf:2: error: LD_PRELOAD refused: steers the dynamic loader or libc of programs started later; fix: set it in your shell's startup file (~/.profile) instead, or an administrator adds user_allow=LD_PRELOAD to the pam_envd line
$P/u/50-system.conf:3: error: BASH_ENV refused: makes shells started later run code; fix: set it in your shell's startup file (~/.profile) instead, or an administrator adds user_allow=BASH_ENV to the pam_envd line
"
e --root="$P/r" --user-dir="$P/u" show
expect_no_out "show: refused names are not set"
e --root="$P/r" --user-dir="$P/u" --user-allow=LD_PRELOAD show
expect_out "--user-allow lifts a refusal" $'LD_PRELOAD=/usr/lib/libsystemwide.so\n'
printf 'MY_VAR=1\nOTHER=2\n' >"$P/u/60-deny.conf"
e --root="$P/r" --user-dir="$P/u" --user-deny='MY_*' show
expect_out "--user-deny refuses more names" $'OTHER=2\n'
expect_err_has "--user-deny: reported" "$P/u/60-deny.conf:1: error: MY_VAR refused: denied by the administrator (user_deny); fix: set it in your shell's startup file (~/.profile) instead"

# allow-list mode: only the administrator's names, the defaults still hold
printf 'PATH=/opt/bin:$PATH\nEDITOR=vi\nLD_PRELOAD=/x.so\nLANG=C.UTF-8\n' >"$P/u/70-only.conf"
e --root="$P/r" --user-dir="$P/u" --user-only='PATH LANG LD_*' --user-deny='MY_*' show
expect_out "--user-only takes only the listed names" $'PATH=/opt/bin:/usr/local/bin:/usr/bin:/bin\nLANG=C.UTF-8\n'
expect_err_has "--user-only: others reported" "$P/u/70-only.conf:2: error: EDITOR refused: not among the names the administrator lets user files set (user_only); fix: set it in your shell's startup file (~/.profile) instead, or an administrator adds EDITOR to user_only="
expect_err_has "--user-only: defaults still hold" "$P/u/70-only.conf:3: error: LD_PRELOAD refused: steers the dynamic loader or libc of programs started later; fix: set it in your shell's startup file (~/.profile) instead, or an administrator adds user_allow=LD_PRELOAD to the pam_envd line"
e --root="$P/r" --user-dir="$P/u" --user-only=', ' show
expect_rc "--user-only with no pattern is a usage error" 2
rm "$P/u/70-only.conf" "$P/u/60-deny.conf" "$P/u/50-system.conf"

# TZ naming a file, PAM_* and tools' variables from a user file
printf 'TZ=:/home/x/fifo\nPAM_USER=root\nGIT_DIR=/tmp/g\nGIT_EDITOR=vi\n' >"$P/u/80-tz.conf"
e --root="$P/r" --user-dir="$P/u" show
expect_out "TZ with a path, PAM_USER, GIT_DIR refused; GIT_EDITOR kept" $'GIT_EDITOR=vi\n'
expect_err_has "TZ with a path: reported" "$P/u/80-tz.conf:1: error: TZ refused: names a file outside the time zone database; fix: give it another value, or set it in your shell's startup file (~/.profile) instead, or an administrator adds user_allow=TZ to the pam_envd line"
expect_err_has "PAM_USER: reported" "$P/u/80-tz.conf:2: error: PAM_USER refused: impersonates the session or its identity; fix: set it in your shell's startup file (~/.profile) instead, or an administrator adds user_allow=PAM_USER to the pam_envd line"
printf 'TZ=Europe/Berlin\n' >"$P/u/80-tz.conf"
e --root="$P/r" --user-dir="$P/u" show
expect_out "a zone name in TZ is fine" $'TZ=Europe/Berlin\n'
rm "$P/u/80-tz.conf"

# a system file that hands a user-controlled value to a refused name
printf 'XDG_DATA_HOME=/home/u/data\n' >"$P/u/50-data.conf"
printf 'GCONV_PATH=${XDG_DATA_HOME}/gconv\nSAFE=${XDG_DATA_HOME}\n' >"$P/r/etc/environment.d/60-gconv.conf"
e --root="$P/r" --user-dir="$P/u" check
expect_rc "check: a user-controlled value in a refused name is a finding" 1
expect_out "check: GCONV_PATH from \$XDG_DATA_HOME" "$P/r/etc/environment.d/60-gconv.conf:1: warning: GCONV_PATH takes its value from \$XDG_DATA_HOME, which a user file sets: the user controls a name that user files may not set (steers the dynamic loader or libc of programs started later)
"
mv "$P/r/etc/environment.d/60-gconv.conf" "$P/r/etc/environment.d/40-gconv.conf"
e --root="$P/r" --user-dir="$P/u" check
expect_out_lacks "check: no such finding when the system file comes first" "takes its value from"
rm -f "$P/r/etc/environment.d/40-gconv.conf" "$P/u/50-data.conf"

# files without the .conf suffix: not read, reported by check only
N=$T/notconf
mkroot "$N/r"
mkdir -p "$N/u/sub" "$N/u/subdir.conf"
printf 'OK=1\n' >"$N/u/10-ok.conf"
printf 'NOTREAD1=1\n' >"$N/u/90-env"
printf 'NOTREAD2=1\n' >"$N/u/20-upper.CONF"
printf 'NOTREAD3=1\n' >"$N/u/.hidden"
printf 'NOTREAD4=1\n' >"$N/r/etc/environment.d/environment"
e --root="$N/r" --user-dir="$N/u" show
expect_out "show: only .conf files are read (case-sensitive)" $'OK=1\n'
expect_no_err "show: no lint about names"
nc='warning: not read: environment.d reads only names ending in ".conf"'
e --root="$N/r" --user-dir="$N/u" check
expect_rc "check: files without .conf are findings" 1
sort "$T/out" >"$N/err.sorted"
expect_file "check: each file without .conf named, hidden files and directories not" "$N/err.sorted" \
	"$(printf '%s\n' "$N/r/etc/environment.d/environment: $nc" "$N/u/20-upper.CONF: $nc" "$N/u/90-env: $nc" | sort)
"

# NUL bytes, invalid UTF-8, an unsafe user directory
B=$T/bad
mkroot "$B/r"
mkdir -p "$B/u"
printf 'A=1\nB=\377x\nC=2\n' >"$B/u/10-utf8.conf"
printf 'N=1\0\n' >"$B/u/20-nul.conf"
e --root="$B/r" --user-dir="$B/u" check
expect_rc "check: invalid UTF-8 and a NUL byte" 1
expect_out "check: invalid UTF-8 and a NUL byte" "$B/u/10-utf8.conf:2: error: value of B is not valid UTF-8, skipped; fix: save the file as UTF-8
$B/u/20-nul.conf: error: contains a NUL byte, skipped (as systemd does); fix: remove the NUL bytes
"
e --root="$B/r" --user-dir="$B/u" show
expect_out "show: invalid UTF-8 skips one assignment only" $'A=1\nC=2\n'
e --root="$B/r" --user-dir="$B/u" files
expect_out "files: a file with a NUL byte is skipped" "$(dir_lines '' "$B/u" 2 "$B/r" 0 0 0 0)
used    $B/u/10-utf8.conf
skipped $B/u/20-nul.conf (contains a NUL byte)
"
chmod 757 "$B/u"
e --root="$B/r" --user-dir="$B/u" check
expect_rc "check: world-writable user directory" 1
expect_out "check: world-writable user directory" "$B/u: error: user directory: writable by group or others, skipped; fix: chmod go-w $B/u
"
e --root="$B/r" --user-dir="$B/u" show
expect_rc "show: world-writable user directory" 0
expect_no_out "show: world-writable user directory is not read"
chmod 755 "$B/u"
# a reason that names another directory reads as a sentence after the
# colon (it was "user directory a parent directory is writable ...")
mkdir -p "$B/gw/u"
cp "$B/u/10-utf8.conf" "$B/gw/u/"
chmod 757 "$B/gw"
e --root="$B/r" --user-dir="$B/gw/u" check
expect_rc "check: a world-writable parent of the user directory" 1
expect_out "check: a world-writable parent of the user directory" "$B/gw/u: error: user directory: a parent directory is writable by group or others, skipped; fix: chmod go-w $B/gw
"
chmod 755 "$B/gw"
rm -rf "$B/gw"
# a write error is a failure
if [ -w /dev/full ]; then
	"$ENVD" --root="$B/r" --user-dir="$B/u" show >/dev/full 2>"$T/err"
	rc=$?
	expect_rc "show >/dev/full" 3
	expect_err_has "show >/dev/full: says so" "envd: write error"
fi

# hostile file names: the output formats stay intact
HN=$T/names
mkroot "$HN/r"
mkdir -p "$HN/u"
printf 'A=1\n' >"$HN/u/bad$(printf '\377').conf"
printf 'B=1\n' >"$HN/u/nl
used    \$HOME-FAKE=1.conf"
printf 'C=1\n' >"$HN/u/esc$(printf '\033')[31m.conf"
e --root="$HN/r" --user-dir="$HN/u" show
expect_out "odd file names: show" $'A=1\nC=1\nB=1\n'
e --root="$HN/r" --user-dir="$HN/u" files
expect_true "odd file names: files prints one line per directory and file" test "$(wc -l <"$T/out")" -eq 8
e --root="$HN/r" --user-dir="$HN/u" show --explain
grep -v '^#' "$T/out" >"$HN/explain.vars"
expect_file "odd file names: show --explain adds only comment lines" "$HN/explain.vars" $'A=1\nC=1\nB=1\n'
e --root="$HN/r" --user-dir="$HN/u" show --explain --format=json
if have_cmds python3; then
	expect_true "odd file names: show --explain --format=json is valid JSON (UTF-8)" python3 -c '
import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))
assert [(v["name"], v["value"]) for v in d["variables"]] == [("A", "1"), ("C", "1"), ("B", "1")], d
assert len(d["files"]) == 3, d
' "$T/out"
fi

# unreadable file (as root: see the temporary user below)
if [ "$my_uid" != 0 ]; then
	Q=$T/unread
	mkroot "$Q/r"
	mkdir -p "$Q/u"
	printf 'OK=1\n' >"$Q/u/10-ok.conf"
	printf 'SECRET=1\n' >"$Q/u/20-unreadable.conf"
	chmod 000 "$Q/u/20-unreadable.conf"
	e --root="$Q/r" --user-dir="$Q/u" check
	expect_rc "check: unreadable file" 1
	expect_out "check: unreadable file" "$Q/u/20-unreadable.conf: error: permission denied (read as $me), skipped; fix: chmod u+r $Q/u/20-unreadable.conf
"
	e --root="$Q/r" --user-dir="$Q/u" files
	expect_out "files: unreadable file skipped" "$(dir_lines '' "$Q/u" 2 "$Q/r" 0 0 0 0)
used    $Q/u/10-ok.conf
skipped $Q/u/20-unreadable.conf (permission denied)
"
fi

# ---- merge options --------------------------------------------------------------
O=$T/opts
mkroot "$O/r"
mkdir -p "$O/u"
printf 'PATH=/p:$PATH\nSHELL=/bin/other\nNEW=$SHELL\n' >"$O/r/etc/environment.d/10-a.conf"
oe() { e --root="$O/r" --user-dir="$O/u" "$@"; }
oe show
expect_out "system files may override PATH and SHELL" "PATH=/p:$default_path
SHELL=/bin/other
NEW=/bin/other
"
# A fresh login's environment is empty: the passwd and PATH fallbacks are
# not "already set", so --no-overwrite keeps nothing here (the --inherit
# case below shows it keeping the process's variables).
oe --no-overwrite show
expect_rc "--no-overwrite" 0
expect_out "--no-overwrite: the fallbacks are not kept" "PATH=/p:$default_path
SHELL=/bin/other
NEW=/bin/other
"
oe --default-path=/only/here show
expect_out "--default-path" "PATH=/p:/only/here
SHELL=/bin/other
NEW=/bin/other
"
printf 'LIT=$HOME/x ${B:-d} $$ ${C:+y}\n' >"$O/u/20-lit.conf"
oe --no-expand show
expect_out "--no-expand takes values literally" 'PATH=/p:$PATH
SHELL=/bin/other
NEW=$SHELL
LIT=$HOME/x ${B:-d} $$ ${C:+y}
'
oe show
expect_true "without --no-expand the same value expands" grep -qxF "LIT=$my_home/x d \$ " "$T/out"
oe --no-user show
expect_out "--no-user reads the system directories only" "PATH=/p:$default_path
SHELL=/bin/other
NEW=/bin/other
"
oe --no-user files
expect_out "--no-user: files" "skipped user directory (--no-user)
$(dir_lines '' /x 0 "$O/r" 1 0 0 0 | tail -n +2)
used    $O/r/etc/environment.d/10-a.conf
"

# ---- expansion base: passwd entry by default, the process environment with --inherit
I=$T/inh
mkroot "$I/r"
mkdir -p "$I/h/.config/environment.d" "$I/x/environment.d" "$I/u"
printf 'A=$HOME|$USER|$LOGNAME|$SHELL|$PATH|$FOO\n' >"$I/h/.config/environment.d/a.conf"
printf 'X=xdg|$FOO\n' >"$I/x/environment.d/b.conf"
cp "$I/h/.config/environment.d/a.conf" "$I/u/a.conf"
e_env FOO=bar HOME=/elsewhere USER=someone SHELL=/bin/nope PATH=/bin:/usr/bin -- \
	--root="$I/r" --user-dir="$I/u" show
expect_out "without --inherit: HOME/USER/LOGNAME/SHELL from passwd, default PATH, nothing else" \
	"A=$my_home|$me|$me|$my_shell|$default_path|
"
e_env FOO=bar HOME="$I/h" XDG_CONFIG_HOME="$I/x" -- --root="$I/r" files
expect_rc "without --inherit: files" 0
expect_out_lacks "without --inherit: \$HOME does not pick the user dir" "$I/h/"
expect_out_lacks "without --inherit: \$XDG_CONFIG_HOME does not pick the user dir" "$I/x/"
expect_err "without --inherit: a note on the \$XDG_CONFIG_HOME a login does not see" \
	"envd: note: XDG_CONFIG_HOME is set here, but a login does not see this shell's variables: it reads $my_home/.config/environment.d, not $I/x/environment.d (--inherit reads that one, as systemd's generator in a manager that has XDG_CONFIG_HOME)
"
e_env FOO=bar XDG_CONFIG_HOME="$my_home/.config" -- --root="$I/r" files
expect_no_err "without --inherit: no note when \$XDG_CONFIG_HOME names the login's directory"
e_env FOO=bar XDG_CONFIG_HOME="$I/x" -- --root="$I/r" --inherit files
expect_no_err "--inherit: no note on \$XDG_CONFIG_HOME"
e_env -i FOO=bar HOME="$I/h" -- --inherit --root="$I/r" show
expect_out "--inherit under env -i: the base is the process environment only" "A=$I/h|||||bar
"
e_env -i FOO=bar HOME="$I/h" -- --inherit --root="$I/r" files
expect_out "--inherit: the user dir is \$HOME/.config/environment.d" "$(dir_lines '' "$I/h/.config/environment.d" 1 "$I/r" 0 0 0 0)
used    $I/h/.config/environment.d/a.conf
"
e_env -i FOO=bar HOME="$I/h" XDG_CONFIG_HOME="$I/x" -- --inherit --root="$I/r" show
expect_out "--inherit: \$XDG_CONFIG_HOME/environment.d replaces \$HOME/.config/environment.d" "X=xdg|bar
"
e_env -i FOO=bar HOME="$I/h" XDG_CONFIG_HOME=relative/x -- --inherit --root="$I/r" show
expect_out "--inherit: a relative \$XDG_CONFIG_HOME is ignored" "A=$I/h|||||bar
"
e_env -i FOO=bar HOME="$I/h" USER=u LOGNAME=l SHELL=/s PATH=/p -- --inherit --root="$I/r" show
expect_out "--inherit: the process's USER/LOGNAME/SHELL/PATH" "A=$I/h|u|l|/s|/p|bar
"
e_env -i FOO=bar HOME="$I/h" -- --inherit --root="$I/r" --user-dir="$I/x/environment.d" show
expect_out "--inherit with --user-dir: --user-dir wins" "X=xdg|bar
"
printf 'FOO=file\nBAR=file\n' >"$I/x/environment.d/c.conf"
e_env -i FOO=bar HOME="$I/h" XDG_CONFIG_HOME="$I/x" -- --inherit --no-overwrite --root="$I/r" show
expect_out "--inherit --no-overwrite keeps the process's variables" "X=xdg|bar
BAR=file
"

# ---- show --reapply: the login shell snippet's composition ----------------------
RA=$T/reapply
mkroot "$RA/r"
mkdir -p "$RA/u"
cat >"$RA/u/10-path.conf" <<'EOF'
PATH=$HOME/.local/bin:$PATH:/opt/tail
XDG_DATA_DIRS=$HOME/share${XDG_DATA_DIRS:+:$XDG_DATA_DIRS}
TWICE=$TWICE:mid:$TWICE
FIXED=/only/this
QUOTES=it's "$HOME" `id` $$(id) \\ end
EOF
printf 'MULTI="one\ntwo'"'"'three"\n' >"$RA/u/20-multi.conf"
ra() {
	e_env -i HOME=/h "$@" -- --pam-dir="$PAMON" --root="$RA/r" --user-dir="$RA/u" \
		show --format=shell --reapply=PATH,XDG_DATA_DIRS,TWICE,FIXED,QUOTES,MULTI
}
ra PATH=/usr/bin:/bin XDG_DATA_DIRS=/usr/share TWICE=t FIXED=/else
expect_rc "reapply over values a profile replaced" 0
expect_out "reapply over values a profile replaced" "export PATH='/h/.local/bin:/usr/bin:/bin:/opt/tail'
export XDG_DATA_DIRS='/h/share:/usr/share'
export TWICE='t:mid:t'
export FIXED='/only/this'
export QUOTES='it'\''s \"/h\" \`id\` \$(id) \\ end'
export MULTI=\"\$(printf 'one\\ntwo'\''three_')\"; MULTI=\"\${MULTI%_}\"
"
# what the module gave the login, untouched: nothing again
ra PATH=/h/.local/bin:/x:/opt/tail XDG_DATA_DIRS=/h/share:/y TWICE=a:mid:a FIXED=/only/this \
	QUOTES='it'\''s "/h" `id` $(id) \ end' MULTI="one
two'three"
expect_rc "reapply over the login's values" 0
expect_no_out "reapply over the login's values: nothing applied twice"
# unset and empty names get no stand-in: ${X:+...} sees them as they are
# (set though empty, as for systemd)
ra PATH=/h/.local/bin:/x:/opt/tail XDG_DATA_DIRS=
expect_out "reapply: empty and unset names" "export XDG_DATA_DIRS='/h/share:'
export TWICE=':mid:'
export FIXED='/only/this'
export QUOTES='it'\''s \"/h\" \`id\` \$(id) \\ end'
export MULTI=\"\$(printf 'one\\ntwo'\''three_')\"; MULTI=\"\${MULTI%_}\"
"
# evaluated by sh: the values arrive byte for byte, nothing runs
ra PATH=/usr/bin XDG_DATA_DIRS=/usr/share
if out=$(env -i PATH=/usr/bin:/bin sh -c '. "$1" && printf "%s|%s|%s" "$QUOTES" "$MULTI" "$PATH"' sh "$T/out") &&
	[ "$out" = 'it'\''s "/h" `id` $(id) \ end|one
two'\''three|/h/.local/bin:/usr/bin:/opt/tail' ]; then
	pass "reapply: shell output evaluated by sh gives the values"
else
	fail "reapply: shell output evaluated by sh gives the values" "got: $out"
fi
# the snippet's command over its own result: a fixed point
e_env -i HOME=/h PATH=/h/.local/bin:/usr/bin:/opt/tail -- --pam-dir="$PAMON" --root="$RA/r" \
	--user-dir="$RA/u" show --format=shell --reapply=PATH
expect_no_out "reapply twice: the second run changes nothing"
e_env -i HOME=/h PATH=/usr/bin -- --pam-dir="$PAMON" --root="$RA/r" --user-dir="$RA/u" \
	show --format=env --reapply=NOPE
expect_no_out "reapply: a name the files do not set is left out"

# off means off: where no service applies pam_envd.so (pam-auth-update
# --disable takes both lines out, or an admin deletes them) the snippet
# gives a login shell nothing; a cleanup line alone, a commented-out
# applying line or a continued comment do not apply it either.  Where
# the directory cannot be read the snippet cannot tell: as before.
RO=$T/pam-off
mkdir -p "$RO"
printf '%s\n' 'session optional pam_envd.so cleanup' 'session required pam_unix.so' \
	'#session optional pam_envd.so' >"$RO/login"
printf '%s\n' '@include common-session' >"$RO/sshd"
printf '%s\n' 'session required pam_unix.so' '# session optional pam_envd.so \' \
	'session optional pam_systemd.so' >"$RO/common-session"
for pd in "$PAM0" "$RO"; do
	e_env -i HOME=/h PATH=/usr/bin:/bin -- --pam-dir="$pd" --root="$RA/r" --user-dir="$RA/u" \
		show --format=shell --reapply=PATH
	expect_rc "reapply where no service applies pam_envd.so (${pd##*/})" 0
	expect_no_out "reapply where no service applies pam_envd.so (${pd##*/}): nothing"
	expect_no_err "reapply where no service applies pam_envd.so (${pd##*/})"
done
# applied in the auth stack only, through an include: applied
printf '%s\n' 'auth optional pam_envd.so' >"$RO/common-auth"
printf '%s\n' '@include common-auth' >"$RO/su"
e_env -i HOME=/h PATH=/usr/bin:/bin -- --pam-dir="$RO" --root="$RA/r" --user-dir="$RA/u" \
	show --format=shell --reapply=PATH
expect_out "reapply where a service applies it in the auth stack" "export PATH='/h/.local/bin:/usr/bin:/bin:/opt/tail'
"
rm "$RO/su" "$RO/common-auth"
e_env -i HOME=/h PATH=/usr/bin:/bin -- --pam-dir="$T/no-such-dir" --root="$RA/r" \
	--user-dir="$RA/u" show --format=shell --reapply=PATH
expect_out "reapply where the PAM directory cannot be read: as before" "export PATH='/h/.local/bin:/usr/bin:/bin:/opt/tail'
"
# show and check say so first, on stderr (-q: not); --explain in a
# comment line, json in a member; the exit status stays check's
unapplied="no service in $RO applies pam_envd.so: no login gets these variables, and the login-shell snippet applies none (envd audit)"
mkdir -p "$RA/clean"
echo 'EDITOR=vi' >"$RA/clean/10-editor.conf"
for cmd in show check; do
	e --pam-dir="$RO" --root="$RA/r" --user-dir="$RA/clean" "$cmd"
	expect_rc "$cmd where no service applies pam_envd.so" 0
	expect_err_has "$cmd where no service applies pam_envd.so: says so" "envd: note: $unapplied"
	e -q --pam-dir="$RO" --root="$RA/r" --user-dir="$RA/clean" "$cmd"
	expect_no_err "$cmd -q where no service applies pam_envd.so"
	e --pam-dir="$PAMON" --root="$RA/r" --user-dir="$RA/clean" "$cmd"
	expect_no_err "$cmd where a service applies pam_envd.so"
done
e --pam-dir="$RO" --root="$RA/r" --user-dir="$RA/u" show --explain
if [ "$(head -n 1 "$T/out")" = "# $unapplied" ]; then
	pass "show --explain where no service applies pam_envd.so: its first line says so"
else fail "show --explain where no service applies pam_envd.so: its first line says so" "$(head -n 2 "$T/out")"; fi
if have_cmds jq; then
	for pd in "$RO:true" "$PAMON:false" "$T/no-such-dir:null"; do
		e --pam-dir="${pd%:*}" --root="$RA/r" --user-dir="$RA/u" show --explain -f json
		expect_true "show --explain -f json: no_service_applies is ${pd##*:} (${pd%:*})" \
			test "$(jq -c .no_service_applies "$T/out")" = "${pd##*:}"
	done
fi
usage_case "--reapply with a bad name" show --reapply='A;B'
usage_case "--reapply with an empty name" show --reapply=PATH,,X
usage_case "--reapply with check" check --reapply=PATH
usage_case "--reapply with --explain" show --explain --reapply=PATH

# ---- USER argument --------------------------------------------------------------
W=$T/who
mkroot "$W/r"
mkdir -p "$W/u"
printf 'A=$HOME|$USER|$LOGNAME|$SHELL|$PATH\n' >"$W/u/a.conf"
want="A=$my_home|$me|$me|$my_shell|$default_path
"
e --root="$W/r" --user-dir="$W/u" show
expect_out "no USER: the caller" "$want"
e --root="$W/r" --user-dir="$W/u" show "$me"
expect_out "USER by name" "$want"
e --root="$W/r" --user-dir="$W/u" show "$my_uid"
expect_out "USER by uid" "$want"

# ---- as root: another user's files are read with that user's rights -------------
if [ "$my_uid" != 0 ]; then
	skip "another user's files (not root)"
elif ! have_cmds useradd || ! have_cmds userdel; then
	skip "another user's files (no useradd/userdel)"
else
	cand=envdcli$$
	for _ in 1 2 3 4 5; do # /etc/passwd may be locked by a concurrent useradd
		if useradd -m -s /bin/sh "$cand" >/dev/null 2>&1; then
			tmp_user=$cand
			break
		fi
		getent passwd "$cand" >/dev/null 2>&1 && break
		sleep 0.2
	done
	if [ -z "$tmp_user" ]; then
		skip "another user's files (useradd failed)"
	else
		IFS=: read -r _ _ tu_uid tu_gid _ tu_home tu_shell < <(getent passwd "$tmp_user")
		D=$tu_home/.config/environment.d
		S=$T/secret
		mkdir -p "$D" "$S"
		chmod 755 "$T" "$S"
		mkroot "$S/r"
		printf 'A=$HOME|$USER|$LOGNAME|$SHELL|$PATH\n' >"$D/10-a.conf"
		printf 'SECRET=topsecret\n' >"$S/secret.conf"
		chmod 600 "$S/secret.conf"
		ln -s "$S/secret.conf" "$D/20-link.conf"
		printf 'NOPE=1\n' >"$D/30-unreadable.conf"
		printf 'PUBLIC=1\n' >"$S/public.conf"
		ln -s "$S/public.conf" "$D/40-public.conf"
		printf 'SYS=1\n' >"$S/r/etc/environment.d/50-sys.conf"
		chmod 600 "$S/r/etc/environment.d/50-sys.conf"
		chown -R "$tu_uid:$tu_gid" "$tu_home/.config"
		chown -h "$tu_uid:$tu_gid" "$D/20-link.conf" "$D/40-public.conf"
		chmod 000 "$D/30-unreadable.conf"
		tu_out="A=$tu_home|$tmp_user|$tmp_user|$tu_shell|$default_path
PUBLIC=1
SYS=1
"
		tu_files="$(dir_lines '' "$D" 4 "$S/r" 1 0 0 0)
used    $D/10-a.conf
skipped $D/20-link.conf (permission denied)
skipped $D/30-unreadable.conf (permission denied)
used    $D/40-public.conf
used    $S/r/etc/environment.d/50-sys.conf
"
		tu_err="$D/20-link.conf: error: permission denied (read as $tmp_user), skipped; fix: chmod u+r $D/20-link.conf
$D/30-unreadable.conf: error: permission denied (read as $tmp_user), skipped; fix: chmod u+r $D/30-unreadable.conf
"
		e --root="$S/r" show "$tmp_user"
		expect_rc "root, show USER" 0
		expect_out "root, show USER: their files with their rights, system files with root's" "$tu_out"
		expect_out_lacks "root, show USER: a symlink to a root-only file is not read" topsecret
		expect_err "root, show USER" "$tu_err"
		e --root="$S/r" show "$tu_uid"
		expect_out "root, show UID" "$tu_out"
		e --root="$S/r" files "$tmp_user"
		expect_out "root, files USER" "$tu_files"
		e --root="$S/r" check "$tmp_user"
		expect_rc "root, check USER: unreadable files are findings" 1
		expect_out "root, check USER: unreadable files" "$tu_err"
		e --root="$S/r" --explain show "$tmp_user"
		expect_out_lacks "root, show --explain USER: no secret" topsecret
		e_env HOME=/root XDG_CONFIG_HOME=/root/.config -- --root="$S/r" files "$tmp_user"
		expect_out "root, files USER: the caller's HOME does not matter" "$tu_files"
		# --inherit as root for another user: root's environment would be
		# the base of the user's reader and generators (a generator's
		# environment is the user's to read in /proc/PID/environ)
		mkdir -p "$S/gen"
		printf '#!/bin/sh\necho "SEEN=${ENVD_ROOT_SECRET:-none}"\n' >"$S/gen/50-seen"
		chmod 755 "$S/gen" "$S/gen/50-seen"
		e_env ENVD_ROOT_SECRET=rootsecret -- --root="$S/r" --generators \
			--generator-dirs="$S/gen" show "$tmp_user"
		expect_out "root, --generators show USER: the generator runs, without root's environment" \
			"$tu_out""SEEN=none
"
		e_env ENVD_ROOT_SECRET=rootsecret -- --root="$S/r" --inherit --generators \
			--generator-dirs="$S/gen" show "$tmp_user"
		expect_rc "root, --inherit --generators show USER: refused" 2
		expect_out_lacks "root, --inherit --generators show USER: root's environment not passed" \
			rootsecret
		expect_err "root, --inherit show USER: says why" \
			"envd: --inherit expands against this process's environment: as root it takes no other user: $tmp_user
Try 'envd --help'.
"
		e_env ENVD_ROOT_SECRET=rootsecret -- --root="$S/r" --reapply=PATH show "$tmp_user"
		expect_rc "root, --reapply show USER: refused" 2
		e_env ENVD_ROOT_SECRET=rootsecret -- --root="$S/r" --inherit --no-user show root
		expect_rc "root, --inherit show root: root's own, allowed" 0
		# the same user running envd: the same view
		if have_cmds setpriv && setpriv --reuid="$tu_uid" --regid="$tu_gid" --init-groups test -x "$ENVD" 2>/dev/null; then
			setpriv --reuid="$tu_uid" --regid="$tu_gid" --init-groups \
				env -i PATH=/usr/bin:/bin "$ENVD" --root="$S/r" files >"$T/out" 2>"$T/err"
			rc=$?
			# as that user, the root-only 0600 system file cannot be read
			expect_out "the user themselves: files" "$(dir_lines '' "$D" 4 "$S/r" 1 0 0 0)
used    $D/10-a.conf
skipped $D/20-link.conf (permission denied)
skipped $D/30-unreadable.conf (permission denied)
used    $D/40-public.conf
skipped $S/r/etc/environment.d/50-sys.conf (permission denied)
"
			# a ~/.pam_environment that pam_env.so still reads as
			# root where pam_envd.so applies: check warns
			RE=$T/pam-readenv
			mkdir -p "$RE"
			printf '%s\n' 'session optional pam_envd.so cleanup' '@include common-session' \
				'session required pam_env.so user_readenv=1 envfile=/etc/default/locale' >"$RE/sshd"
			printf '%s\n' 'session required pam_unix.so' 'session optional pam_envd.so' >"$RE/common-session"
			as_tu() {
				setpriv --reuid="$tu_uid" --regid="$tu_gid" --init-groups \
					env -i PATH=/usr/bin:/bin "$ENVD" "$@" >"$T/out" 2>"$T/err"
				rc=$?
			}
			as_tu --pam-dir="$RE" --root="$RA/r" --user-dir="$RA/clean" check
			expect_rc "check without ~/.pam_environment" 0
			printf 'PYTHONPATH DEFAULT=/x\n' >"$tu_home/.pam_environment"
			chown "$tu_uid:$tu_gid" "$tu_home/.pam_environment"
			as_tu --pam-dir="$RE" --root="$RA/r" --user-dir="$RA/clean" check
			expect_rc "check: ~/.pam_environment that a service still reads" 1
			expect_out "check: ~/.pam_environment that a service still reads" "$tu_home/.pam_environment: warning: pam_env.so user_readenv=1 still reads this file, as root, in sshd (sshd:3), a service that also applies pam_envd.so: whichever comes later wins, and names pam_envd.so refuses come through; move it (envd import-pam-environment), then remove it, or have an administrator drop user_readenv=1 from that line
"
			as_tu --pam-dir="$PAMON" --root="$RA/r" --user-dir="$RA/clean" check
			expect_rc "check: ~/.pam_environment that no service reads" 0
			rm -f "$tu_home/.pam_environment"
		else
			skip "the user themselves (cannot run $ENVD as $tmp_user)"
		fi
		# root reads the user's side in a child that is the user (the
		# module's way, lib/child.c): root's own groups, however many,
		# are never switched, and the child has the user's, checked
		if have_cmds setpriv; then
			setpriv --groups="$(seq -s, 70000 70299)" "$ENVD" --root="$S/r" show "$tmp_user" \
				>"$T/out" 2>"$T/err"
			rc=$?
			expect_rc "root with 300 supplementary groups, show USER" 0
			expect_out "root with 300 supplementary groups: the user's files read" "$tu_out"
		fi
		if [ -z "$VGT" ] && have_cmds "${CC:-cc}"; then
			cat >"$T/fake-setresuid.c" <<'EOF'
#define _GNU_SOURCE
#include <sys/types.h>
/* says done, changes nothing: the child must not read as root */
int setresuid(uid_t r, uid_t e, uid_t s)
{
	(void)r;
	(void)e;
	(void)s;
	return 0;
}
EOF
			if "${CC:-cc}" -shared -fPIC -o "$T/fake-setresuid.so" "$T/fake-setresuid.c" 2>/dev/null; then
				fake=$(reader_preload "$T" "$ENVD_READER" "$T/fake-setresuid.so")
				e_env ENVD_READER="$fake" ASAN_OPTIONS=verify_asan_link_order=0 -- \
					--root="$S/r" show "$tmp_user"
				expect_rc "root, the child cannot become the user: still shows" 0
				expect_out_lacks "root, the child cannot become the user: nothing of the user's" "A=1"
				expect_err_has "root, the child cannot become the user: said" "$D: error: the reader of the user's files could not take the user's credentials: user directory skipped"
			else
				skip "a child without credentials (no shared object could be built)"
			fi
		fi
	fi
fi

# ---- summary ----------------------------------------------------------------------
vg_check || fail "valgrind: $VG_BAD runs of envd with memory errors or definite leaks (logs above)"
finish
