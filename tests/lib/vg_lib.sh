# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# shellcheck shell=bash
# vg_lib.sh - sourced by the shell tests: runs envd and pamtester (with the
# module in it) under valgrind's memcheck when asked to.
#
#   ENVD_VALGRIND=auto  when valgrind is installed and the build is not
#                       sanitized (./dev test sets it for the plain build)
#   ENVD_VALGRIND=yes   the same, and a missing valgrind is an error
#   unset, no           never
#
# Valgrind and the sanitizers do not mix: a build with ASan (ENVD_SANITIZERS
# =yes, or a program linked with libasan) is never run under valgrind.
# Any memcheck error, and any definite leak, is a failure: the run exits
# with 99 and vg_check shows its log.  tests/lib/valgrind.supp silences only
# documented noise of third-party code (libpam, libc, NSS, pamtester).
#
# vg_init DIR [PROGRAM...]: decides, probing the PROGRAMs for libasan; when
#   on, VG is the valgrind command line to put before a program (an array,
#   empty when off) and its logs go to DIR/logs.  Returns 1 only when
#   ENVD_VALGRIND=yes cannot be honoured.
# vg_wrap PROGRAM: prints the path of a script in DIR that runs PROGRAM
#   under valgrind (PROGRAM itself when off), for tests that run a program
#   through a variable such as $ENVD.
# vg_check: prints the log of each run with an error since the last call,
#   with the command line, and sets VG_BAD to how many there were; returns
#   0 when there were none.

VG=()
VG_DIR=

vg_init() {
	local dir=$1 want=${ENVD_VALGRIND:-no} p vg supp
	shift
	VG=()
	VG_DIR=
	case $want in
	yes | auto) ;;
	*) return 0 ;;
	esac
	for p in "$@"; do
		if [ "${ENVD_SANITIZERS:-no}" = yes ] ||
			{ command -v readelf >/dev/null 2>&1 && readelf -d "$p" 2>/dev/null | grep -q 'NEEDED.*libasan'; }; then
			[ "$want" = auto ] || echo "vg_lib: a sanitizer build: not run under valgrind" >&2
			return 0
		fi
	done
	if ! vg=$(command -v valgrind); then
		[ "$want" = auto ] && return 0
		echo "vg_lib: ENVD_VALGRIND=yes, but valgrind is not installed" >&2
		return 1
	fi
	supp=${top_srcdir:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}/tests/lib/valgrind.supp
	VG_DIR=$dir
	mkdir -p "$VG_DIR/logs"
	chmod 755 "$VG_DIR"
	chmod 1777 "$VG_DIR/logs" # runs as other users log here too
	# runs as other users read it here: the source tree may be private
	cp "$supp" "$VG_DIR/valgrind.supp" && chmod 644 "$VG_DIR/valgrind.supp"
	supp=$VG_DIR/valgrind.supp
	# --child-silent-after-fork: pam_exec's child runs its helper
	# natively (no --trace-children), and says nothing before it execs;
	# --keep-debuginfo: pam_end unloads the module before the leak check,
	# whose stacks would otherwise show ??? for the module's frames
	VG=("$vg" --tool=memcheck --error-exitcode=99 --leak-check=full
		--errors-for-leak-kinds=definite --show-leak-kinds=definite
		--num-callers=40 --child-silent-after-fork=yes --keep-debuginfo=yes
		--suppressions="$supp"
		--log-file="$VG_DIR/logs/vg.%p.log")
	echo "vg_lib: envd and pamtester run under valgrind memcheck (logs in $VG_DIR/logs)"
}

vg_wrap() {
	local w
	if [ ${#VG[@]} = 0 ]; then
		echo "$1"
		return
	fi
	w=$VG_DIR/$(basename "$1")
	# a copy next to the wrapper: the build tree may sit in a directory that
	# the users the tests switch to cannot enter (a private mktemp -d clone)
	mkdir -p "$VG_DIR/bin" && chmod 755 "$VG_DIR/bin"
	cp "$1" "$VG_DIR/bin/" && chmod 755 "$VG_DIR/bin/$(basename "$1")"
	{
		echo "#!$BASH"
		printf 'exec'
		printf ' %q' "${VG[@]}" "$VG_DIR/bin/$(basename "$1")"
		echo ' "$@"'
	} >"$w"
	chmod 755 "$w"
	echo "$w"
}

vg_check() {
	local f n=0
	VG_BAD=0
	[ -n "$VG_DIR" ] || return 0
	for f in "$VG_DIR"/logs/vg.*.log; do
		[ -e "$f" ] || continue
		# no summary: killed (a timeout) before it could check anything
		if grep -q '^==[0-9]*== ERROR SUMMARY: 0 errors' "$f"; then
			rm -f "$f"
			continue
		fi
		n=$((n + 1))
		echo "valgrind: errors in: $(sed -n 's/^==[0-9]*== Command: //p' "$f" | head -n 1)"
		head -n 300 "$f" | sed 's/^/    /'
		mv "$f" "$f.reported"
	done
	VG_BAD=$n
	[ "$n" = 0 ]
}
