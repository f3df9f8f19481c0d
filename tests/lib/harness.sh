# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/lib/harness.sh - sourced by the shell tests: the one place that
# counts checks, prints them, cleans up and says how a test ended.
#
# harness_init NAME STYLE [skips]: STYLE is the test's output form,
#   check   "ok - WHAT", "FAIL - WHAT", "skip - WHAT"; the last line
#           "NAME: N checks, F failed" (", S skipped" with the word skips);
#   colon   "ok: WHAT", "FAIL: WHAT", "SKIP: WHAT"; the last line
#           "P checks passed, F failed" (the root end-to-end tests);
#   pkg     "PASS: NAME: WHAT", "FAIL: NAME: WHAT", "SKIP: NAME: WHAT",
#           no count line (./dev counts the lines; tests/pkg/).
# pass WHAT, fail WHAT [DETAIL...] (each detail line indented below it),
# skip WHAT (not a check).  finish prints the count line and exits 0, or 1
# when a check failed; skip_all REASON ends a test that cannot run (exit
# 77); skip_rest REASON ends one whose remaining part cannot run: the
# count line, then exit 1 when a check failed, else 77.
# at_exit COMMAND: run at exit, also on failure or interruption, the last
# registered first.  make_tmpdir VAR PREFIX [PARENT]: a fresh directory in
# VAR (PARENT defaults to $TMPDIR or /tmp), removed at exit.
# reader_preload DIR READER PRELOAD: a reader that preloads PRELOAD.
# mode_for_run PATH MODE: PATH (a device node, say) gets MODE for this
# test's run and its own mode back at exit; false when it cannot be set.
# What udev or systemd would set on a desktop is never assumed: a
# container, a minimal VM or a build chroot has none of it.
# need_root REASON: skip_all unless root.  need_envd: fails (exit 1)
# unless $ENVD is built.
# need_cmds CMD...: every CMD is installed, else skip_all naming the
# missing ones and their Debian packages (tools/deps.list); under CI=true,
# where ./dev deps has installed everything, a failure instead (exit 1).
# have_cmds CMD...: true when every CMD is installed; else false with the
# reason in H_WHY, and under CI=true a failed check (once per command),
# for a test that goes on without them.  Declare commands through these
# two, with their names written out: ./dev lint deps checks that each is
# in tools/deps.list.  deps_why CMD...: prints that reason and returns 1
# when one is missing (the stage scripts' stage_needs uses it too).
# e ARG...: runs $ENVD with stdout, stderr and status in $H_OUT, $H_ERR
# and $rc, which expect_rc, expect_out, expect_err and friends check.

# the cleanup runs from a trap; rc is read by the tests
# shellcheck shell=bash disable=SC2317,SC2034

H_DEPS_LIST=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/tools/deps.list

harness_init() {
	# what the tests make (system files, a user's files, scratch trees)
	# has the modes an admin's and a user's files have, whatever umask the
	# build runs with (002 with user-private groups: rpmbuild, mock)
	umask 022
	H_NAME=$1
	H_STYLE=$2
	H_SHOW_SKIPS=${3:-}
	H_CHECKS=0 H_FAILS=0 H_SKIPS=0
	H_AT_EXIT=()
	rc=0
	trap harness_exit EXIT
	trap 'exit 130' HUP INT TERM
}

# the output form of a result: h_line KIND WHAT (KIND ok, FAIL or skip)
h_line() {
	case $H_STYLE in
	check) printf '%s - %s\n' "$1" "$2" ;;
	colon) printf '%s: %s\n' "${1/skip/SKIP}" "$2" ;;
	pkg) printf '%s: %s: %s\n' "$(h_pkg_word "$1")" "$H_NAME" "$2" ;;
	esac
}
h_pkg_word() {
	case $1 in ok) echo PASS ;; skip) echo SKIP ;; *) echo "$1" ;; esac
}

pass() {
	H_CHECKS=$((H_CHECKS + 1))
	h_line ok "$1"
}
fail() {
	H_CHECKS=$((H_CHECKS + 1))
	H_FAILS=$((H_FAILS + 1))
	h_line FAIL "$1"
	shift
	[ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/    /'
	return 0
}
skip() {
	H_SKIPS=$((H_SKIPS + 1))
	h_line skip "$1"
}

# the count line of the test's style
h_counts() {
	case $H_STYLE in
	check)
		printf '%s: %s checks, %s failed%s\n' "$H_NAME" "$H_CHECKS" "$H_FAILS" \
			"${H_SHOW_SKIPS:+, $H_SKIPS skipped}"
		;;
	colon) echo "$((H_CHECKS - H_FAILS)) checks passed, $H_FAILS failed" ;;
	esac
}
finish() {
	h_counts
	[ "$H_FAILS" = 0 ] || exit 1
	exit 0
}
skip_all() {
	skip "$1"
	exit 77
}
skip_rest() {
	h_counts
	[ "$H_FAILS" = 0 ] || exit 1
	skip "$1"
	exit 77
}
need_root() {
	[ "$(id -u)" = 0 ] || skip_all "$1"
}
need_envd() {
	ENVD=${ENVD:-${top_builddir:?}/src/envd}
	# the build tree's envd runs the build tree's reader (as root, for
	# another user's files); an installed one, the installed reader
	if [ -z "${ENVD_READER:-}" ] && [ "$ENVD" = "${top_builddir:-}/src/envd" ]; then
		export ENVD_READER=$top_builddir/helper/reader
	fi
	[ -x "$ENVD" ] && return 0
	echo "$H_NAME: $ENVD is not built" >&2
	exit 1
}

# need_caller_account: skip the rest without a passwd entry for the caller
# (envd reads the caller's own files through it)
need_caller_account() {
	getent passwd "$(id -u)" >/dev/null 2>&1 ||
		skip_all "the caller (uid $(id -u)) has no passwd entry"
}

deps_why() {
	local c p why=
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 && continue
		p=$(awk -v c="$c" '$1 == "cmd" && $2 == c { print $3; exit }' "$H_DEPS_LIST" 2>/dev/null)
		if [ -n "$p" ]; then p="Debian: $p; ./dev deps installs it"; else p="and not in tools/deps.list"; fi
		why="$why${why:+, }$c is not installed ($p)"
	done
	[ -z "$why" ] && return 0
	echo "$why"
	return 1
}
need_cmds() {
	local why
	why=$(deps_why "$@") && return 0
	if [ "${CI:-}" = true ]; then
		fail "$why" "CI=true: every dependency of the tests must be installed"
		finish
	fi
	skip_all "$why"
}
H_CI_MISSING=' '
have_cmds() {
	local c
	H_WHY=$(deps_why "$@") && return 0
	if [ "${CI:-}" = true ]; then
		for c in "$@"; do
			command -v "$c" >/dev/null 2>&1 || case $H_CI_MISSING in
			*" $c "*) ;;
			*)
				H_CI_MISSING="$H_CI_MISSING$c "
				fail "$(deps_why "$c")" "CI=true: every dependency of the tests must be installed"
				;;
			esac
		done
	fi
	return 1
}

at_exit() {
	H_AT_EXIT+=("$*")
}
harness_exit() {
	local i
	for ((i = ${#H_AT_EXIT[@]} - 1; i >= 0; i--)); do
		eval "${H_AT_EXIT[i]}"
	done
	H_AT_EXIT=()
}
# reader_preload DIR READER PRELOAD: prints the path of a program in DIR
# that runs the reader program READER with PRELOAD (LD_PRELOAD's words)
# preloaded.  The module and envd give the reader an empty environment, so
# a preload of theirs never reaches it; a compiled wrapper, as their checks
# of the reader want a program, not a script.  False without a compiler.
reader_preload() {
	local w
	w=$1/reader-preload-$$-$RANDOM
	cat >"$w.c" <<EOF
#include <stdlib.h>
#include <unistd.h>
int main(void)
{
	char *argv[] = {"reader", NULL};
	setenv("LD_PRELOAD", "$3", 1);
	/* a sanitizer build's reader: its runtime need not come first */
	setenv("ASAN_OPTIONS", "verify_asan_link_order=0:detect_leaks=0", 1);
	execv("$2", argv);
	return 127;
}
EOF
	${CC:-cc} -o "$w" "$w.c" 2>/dev/null || return 1
	chmod 755 "$w"
	echo "$w"
}

mode_for_run() {
	local was
	was=$(stat -c %a "$1" 2>/dev/null) || return 1
	[ "$was" = "$2" ] && return 0
	chmod "$2" "$1" 2>/dev/null || return 1
	at_exit "chmod '$was' '$1' 2>/dev/null"
}
make_tmpdir() {
	local d
	d=$(mktemp -d "${3:-${TMPDIR:-/tmp}}/$2.XXXXXX") || exit 1
	printf -v "$1" '%s' "$d"
	at_exit "chmod -R u+rwx '$d' 2>/dev/null; rm -rf '$d'"
}

# ---- envd's results ---------------------------------------------------------------
e() {
	"$ENVD" "$@" >"$H_OUT" 2>"$H_ERR"
	rc=$?
}
expect_rc() { # WHAT N
	if [ "$rc" -eq "$2" ]; then pass "$1: exit $2"; else
		fail "$1: exit $2" "got exit $rc" "stdout: $(head -c 600 "$H_OUT")" \
			"stderr: $(head -c 600 "$H_ERR")"
	fi
}
# expect_file WHAT FILE EXPECTED: FILE holds exactly EXPECTED
expect_file() {
	if printf '%s' "$3" | cmp -s - "$2"; then pass "$1"; else
		fail "$1" "$(printf '%s' "$3" | diff -u --label expected --label got - "$2" | head -40)"
	fi
}
expect_out() { expect_file "$1: stdout" "$H_OUT" "$2"; }
expect_err() { expect_file "$1: stderr" "$H_ERR" "$2"; }
expect_no_out() { expect_file "$1: stdout empty" "$H_OUT" ""; }
expect_no_err() { expect_file "$1: stderr empty" "$H_ERR" ""; }
# expect_err_has WHAT LINE: stderr holds LINE as a whole line
expect_err_has() {
	if grep -qxF -- "$2" "$H_ERR"; then pass "$1"; else
		fail "$1" "missing line: $2" "stderr: $(head -c 600 "$H_ERR")"
	fi
}
# expect_err_lacks, expect_out_lacks WHAT FIXED-STRING
expect_err_lacks() { h_lacks "$1" "$2" "$H_ERR"; }
expect_out_lacks() { h_lacks "$1" "$2" "$H_OUT"; }
h_lacks() {
	if grep -qF -- "$2" "$3"; then fail "$1" "unexpected: $(grep -F -- "$2" "$3" | head -3)"; else
		pass "$1"
	fi
}
# expect_eq WHAT ACTUAL EXPECTED; expect_true, expect_false WHAT COMMAND...
expect_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', expected '$3'"; fi
}
expect_true() {
	local what=$1
	shift
	if "$@"; then pass "$what"; else fail "$what"; fi
}
expect_false() {
	local what=$1
	shift
	if "$@"; then fail "$what"; else pass "$what"; fi
}
