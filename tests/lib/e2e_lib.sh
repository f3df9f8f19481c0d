# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# e2e_lib.sh - sourced by the root end-to-end tests of pam_envd.so.
#
# What an admin would do, for real: users made with useradd, a service file
# in /etc/pam.d, pamtester opening sessions, and a pam_exec helper stacked
# after pam_envd that records the environment it is given (as root, the way
# every pam_exec helper runs).  Everything created is removed on exit, also
# on failure or interruption.  Without root the tests skip (exit 77).
#
# Set by the caller or automake: top_builddir, top_srcdir, ENVD,
# ENVD_SANITIZERS, CC.  With ENVD_VALGRIND=auto or yes (tests/lib/vg_lib.sh),
# pamtester (with the module in it) and $ENVD run under valgrind's memcheck;
# its errors and definite leaks fail the test.

set -u
. "$(dirname "${BASH_SOURCE[0]}")/vg_lib.sh"
# the harness, begun here unless the test began it (import.sh, install.sh)
. "${top_srcdir:-$(dirname "${BASH_SOURCE[0]}")/../..}/tests/lib/harness.sh"
[ -n "${H_STYLE:-}" ] || harness_init "$(basename "$0")" colon

MODULE=${PAM_ENVD_MODULE:-$top_builddir/pam_envd/.libs/pam_envd.so}
# The reader program of the tree under test: the module of a build tree is
# told where it is (MOD: the module with reader=, for the lines of a stack
# that apply it), envd through ENVD_READER.  An installed module
# (PAM_ENVD_MODULE) runs its installed reader.
if [ -z "${PAM_ENVD_MODULE:-}" ]; then
	E2E_READER=$top_builddir/helper/reader
	export ENVD_READER=${ENVD_READER:-$E2E_READER}
else
	E2E_READER=
fi
MOD="$MODULE${E2E_READER:+ reader=$E2E_READER}"
E2E_TMP=
E2E_TIME_LIMIT=${E2E_TIME_LIMIT:-10} # seconds one session open may take
E2E_WRAP=() # a command pamtester runs under, e.g. (setpriv --groups=G)
# E2E_TOOLS=: a test that drives its sessions itself, without pamtester

# What was created is listed in files, not shell variables: the helpers
# below run in command substitutions, whose variables die with them.
e2e_cleanup() {
	local u s i
	[ -n "$E2E_TMP" ] && [ -d "$E2E_TMP" ] || return 0
	while read -r s; do
		kill "$s" 2>/dev/null
	done <"$E2E_TMP/created-pids"
	# a sysctl a test changed
	if [ -s "$E2E_TMP/protected_symlinks" ]; then
		cat "$E2E_TMP/protected_symlinks" >/proc/sys/fs/protected_symlinks
	fi
	while read -r s; do
		rm -f "/etc/pam.d/$s"
	done <"$E2E_TMP/created-services"
	while read -r u; do
		for i in $(seq 1 50); do
			userdel -f "$u" >/dev/null 2>&1 && break
			getent passwd "$u" >/dev/null || break
			sleep 0.2
		done
		if getent group "$u" >/dev/null 2>&1; then groupdel "$u" >/dev/null 2>&1; fi
	done <"$E2E_TMP/created-users"
	while read -r s; do
		groupdel "$s" >/dev/null 2>&1
	done <"$E2E_TMP/created-groups"
}

# e2e_init: checks the prerequisites, makes the scratch directory and the
# helper, and arms the cleanup.
e2e_init() {
	need_root "end-to-end tests need root"
	[ "${ENVD_MODULE:-yes}" != no ] || skip_all "configured with --disable-module: no pam_envd.so"
	need_cmds useradd userdel groupdel getent setpriv timeout
	[ "${E2E_TOOLS:-}" = : ] || need_cmds pamtester
	[ -f "$MODULE" ] || { echo "FAIL: $MODULE not built"; exit 1; }
	make_tmpdir E2E_TMP pam-envd-e2e /tmp
	at_exit e2e_cleanup
	chmod 755 "$E2E_TMP" # the users' homes live below: they must get through
	: >"$E2E_TMP/created-users"
	: >"$E2E_TMP/created-services"
	: >"$E2E_TMP/created-pids" # background processes a test started
	: >"$E2E_TMP/created-groups"
	mkdir -p "$E2E_TMP/bin" "$E2E_TMP/out" "$E2E_TMP/home" "$E2E_TMP/sys"
	chmod 755 "$E2E_TMP/bin" "$E2E_TMP/home" "$E2E_TMP/sys"
	chmod 700 "$E2E_TMP/out"
	for c in etc/environment.d run/environment.d usr/local/lib/environment.d usr/lib/environment.d; do
		mkdir -p "$E2E_TMP/sys/$c"
	done
	chmod -R 755 "$E2E_TMP/sys"
	SYSDIRS="$E2E_TMP/sys/etc/environment.d:$E2E_TMP/sys/run/environment.d"
	SYSDIRS="$SYSDIRS:$E2E_TMP/sys/usr/local/lib/environment.d:$E2E_TMP/sys/usr/lib/environment.d"
	OUT=$E2E_TMP/out
	HELPER=$E2E_TMP/bin/record-env
	# A helper written as carelessly as many are: a bash script, run as
	# root by pam_exec with the PAM environment.  BASH_ENV, SHELLOPTS or
	# LD_PRELOAD from a user file would run code here.
	cat >"$HELPER" <<'EOF'
#!/bin/bash
[ "${PAM_TYPE:-}" = open_session ] || exit 0
/usr/bin/env -0 >"$1/${PAM_USER}.${RUN_ID:-0}.env"
EOF
	chmod 755 "$HELPER"
	e2e_preload_setup
	vg_init "$E2E_TMP/vg" "$MODULE" || exit 1
	if [ ${#VG[@]} != 0 ]; then
		[ -z "${ENVD:-}" ] || ENVD=$(vg_wrap "$ENVD")
		E2E_TIME_LIMIT=$((E2E_TIME_LIMIT * 6)) # memcheck's slowdown
	fi
}

# Under ASan the module needs the ASan runtime first in the process;
# pamtester is not instrumented, so it is preloaded.  A syslog shim, when a
# compiler is at hand, records what the module logs.
e2e_preload_setup() {
	PRELOAD=
	E2E_LOG=$E2E_TMP/syslog.txt
	: >"$E2E_LOG"
	# the module says itself whether it needs the ASan runtime
	if [ "${ENVD_SANITIZERS:-no}" = yes ] ||
		{ command -v readelf >/dev/null && readelf -d "$MODULE" | grep -q 'NEEDED.*libasan'; }; then
		PRELOAD=$(${CC:-cc} -print-file-name=libasan.so)
		[ -f "$PRELOAD" ] || skip_all "no ASan runtime found for the sanitizer build"
	fi
	E2E_SHIM=
	cat >"$E2E_TMP/syslog-shim.c" <<'EOF'
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
/* opened while still root: the module logs with the user's fsuid too */
static int fd = -1;
__attribute__((constructor)) static void init(void)
{
	const char *p = getenv("E2E_SYSLOG");
	if (p)
		fd = open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
}
static void rec(const char *fmt, va_list ap)
{
	char line[4096];
	int n;
	if (fd < 0)
		return;
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	(void)!write(fd, line, (size_t)n);
}
void __syslog_chk(int pri, int flag, const char *fmt, ...);
void __syslog_chk(int pri, int flag, const char *fmt, ...)
{ va_list ap; va_start(ap, fmt); rec(fmt, ap); va_end(ap); }
void __vsyslog_chk(int pri, int flag, const char *fmt, va_list ap);
void __vsyslog_chk(int pri, int flag, const char *fmt, va_list ap) { rec(fmt, ap); }
void syslog(int pri, const char *fmt, ...);
void syslog(int pri, const char *fmt, ...)
{ va_list ap; va_start(ap, fmt); rec(fmt, ap); va_end(ap); }
void vsyslog(int pri, const char *fmt, va_list ap);
void vsyslog(int pri, const char *fmt, va_list ap) { rec(fmt, ap); }
EOF
	if ${CC:-cc} -shared -fPIC -O1 -o "$E2E_TMP/syslog-shim.so" "$E2E_TMP/syslog-shim.c" \
		2>/dev/null; then
		E2E_SHIM=$E2E_TMP/syslog-shim.so
		PRELOAD="${PRELOAD:+$PRELOAD }$E2E_SHIM"
	fi
}

# e2e_user TAG: makes a user with a fresh home below the scratch directory
# and prints its name.  useradd is retried while another test holds the
# passwd lock.
e2e_user() {
	local name="pe$$${1}" i rc
	name=${name:0:32}
	echo "$name" >>"$E2E_TMP/created-users" # before: a half-made user is removed too
	for i in $(seq 1 100); do
		rc=0
		useradd -m -d "$E2E_TMP/home/$name" -s /bin/sh -K UMASK=022 "$name" \
			>/dev/null 2>"$E2E_TMP/useradd.err" || rc=$?
		[ "$rc" = 0 ] && break
		[ "$rc" = 9 ] && break # exists: left over from a killed run
		sleep 0.2
	done
	if [ "$rc" != 0 ]; then
		echo "FAIL: useradd $name: $(cat "$E2E_TMP/useradd.err")" >&2
		exit 1
	fi
	echo "$name"
}

# e2e_group TAG: makes a group and prints its name.
e2e_group() {
	local name="pe$$${1}"
	name=${name:0:32}
	echo "$name" >>"$E2E_TMP/created-groups"
	groupadd "$name" >/dev/null 2>&1 || { echo "FAIL: groupadd $name" >&2; exit 1; }
	echo "$name"
}

# e2e_reader_preload SO: reader_preload in E2E_TMP (tests/lib/harness.sh)
e2e_reader_preload() {
	[ -n "$E2E_READER" ] || return 1
	reader_preload "$E2E_TMP" "$E2E_READER" "${PRELOAD:+$PRELOAD }$1"
}

home_of() { getent passwd "$1" | cut -d: -f6; }

# as USER CMD...: runs CMD with USER's identity (no PAM involved).
as() {
	local u=$1
	shift
	setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups -- "$@"
}

# e2e_service TAG <<EOF ... EOF: installs /etc/pam.d/<unique name> from
# stdin and prints the service name.
e2e_service() {
	local name="pam-envd-test-$$-$1"
	echo "$name" >>"$E2E_TMP/created-services"
	cat >"/etc/pam.d/$name"
	chmod 644 "/etc/pam.d/$name"
	echo "$name"
}

# e2e_pam [-E NAME=VALUE]... SERVICE USER OPERATION...: runs pamtester (under
# E2E_WRAP, if set, and valgrind, if on and E2E_NO_VG is not set) with a time
# limit; sets E2E_RC and E2E_MS (elapsed milliseconds).
e2e_pam() {
	local t0 t1 vg=("${VG[@]}")
	[ -z "${E2E_NO_VG:-}" ] || vg=()
	t0=$(date +%s%N)
	E2E_RC=0
	env ${PRELOAD:+LD_PRELOAD="$PRELOAD"} E2E_SYSLOG="$E2E_LOG" \
		ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
		timeout -k 5 "$((E2E_TIME_LIMIT * 6))" "${E2E_WRAP[@]}" "${vg[@]}" pamtester "$@" \
		>"$E2E_TMP/pamtester.log" 2>&1 || E2E_RC=$?
	t1=$(date +%s%N)
	if [ "$E2E_RC" != 0 ]; then
		echo "pamtester $* exited $E2E_RC:"
		tail -n 30 "$E2E_TMP/pamtester.log"
	fi
	E2E_MS=$(((t1 - t0) / 1000000))
	e2e_vg_check "pamtester $*"
}

# e2e_vg_check WHAT: a failure, with valgrind's logs (on stderr: callers
# may send stdout elsewhere), for each run under valgrind since the last
# check that had memory errors or definite leaks.
e2e_vg_check() {
	vg_check >&2 || fail "valgrind: memory errors or definite leaks in $1 (log above)" >&2
}

# record USER [RUN_ID]: the environment file the helper wrote for USER.
record() { echo "$OUT/$1.${2:-0}.env"; }

# getvar FILE NAME: prints NAME's value from a NUL-separated record.
getvar() { tr '\0' '\n' <"$1" | sed -n "s/^$2=//p" | head -n 1; }
hasvar() { tr '\0' '\n' <"$1" | grep -q "^$2="; }

e2e_finish() {
	e2e_vg_check "a run of envd or pamtester"
	finish
}
