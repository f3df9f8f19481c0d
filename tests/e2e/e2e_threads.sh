#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# e2e_threads.sh - sessions of real users opened from several threads of one
# process at once, through the real module and libpam (root only).
#
# Each user has a supplementary group of its own and, besides files of its
# own, a root-owned file readable only through that group: if anything
# switched the process's groups under a session, that file would not be
# read.  tests/pam/pam_threads checks every session, every environment and
# the credentials of every thread and of the process; the second run adds
# a thread that loops pam_modutil_drop_priv/regain_priv for a fourth user
# (as pam_motd, pam_mail and pam_xauth do in a threaded host), which the
# reader, a program of its own (lib/spawn.c), must not care about; the
# third a thread that allocates and frees all along, with the sessions on
# 64 KiB stacks (half of musl's default).

. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/e2e_lib.sh"
e2e_init
# The reader of the user's files is a program of its own, exec'd (lib/
# spawn.c): nothing of the threaded host runs in the process between the
# clone and the exec but system calls, so the sanitizer builds run this
# too (a forked reader that allocated hung under GCC 12's ASan allocator).
THREADS=${E2E_THREADS:-8}
ROUNDS=${E2E_ROUNDS:-30}
prog=$top_builddir/tests/pam/pam_threads
[ -x "$prog" ] || { echo "FAIL: $prog not built"; exit 1; }

echo "SYS_OK=1" >"$E2E_TMP/sys/usr/lib/environment.d/90-sys.conf"
svc=$(e2e_service threads <<EOF
auth     required pam_permit.so
account  required pam_permit.so
session  required $MOD system_dirs=$SYSDIRS
EOF
)

expect=()
for tag in a b c; do
	u=$(e2e_user "t$tag")
	g=$(e2e_group "g$tag")
	usermod -aG "$g" "$u"
	ud=$(home_of "$u")/.config/environment.d
	mkdir -p "$ud"
	for i in $(seq -w 1 30); do
		echo "V${i}_$tag=$i" >"$ud/$i-own.conf"
	done
	echo "PATH=\$HOME/bin-$tag:\$PATH" >"$ud/40-path.conf"
	chown -R "$u:" "$(home_of "$u")/.config"
	echo "GROUP_ONLY_$tag=yes" >"$ud/50-group.conf"
	chown "root:$g" "$ud/50-group.conf" && chmod 640 "$ud/50-group.conf"
	expect+=("$u=GROUP_ONLY_$tag=yes" "$u=V30_$tag=30" "$u=SYS_OK=1")
done

env ${PRELOAD:+LD_PRELOAD="$PRELOAD"} E2E_SYSLOG="$E2E_LOG" \
	timeout -k 5 600 "$prog" "$svc" "$THREADS" "$ROUNDS" "${expect[@]}" >"$E2E_TMP/threads.out" 2>&1
rc=$?
head -n 40 "$E2E_TMP/threads.out"
expect_eq "$ROUNDS rounds of $THREADS threads, three users" "$rc" 0

m=$(e2e_user tm)
usermod -aG "$(e2e_group gm)" "$m"
env ${PRELOAD:+LD_PRELOAD="$PRELOAD"} E2E_SYSLOG="$E2E_LOG" PAM_THREADS_MEDDLER="$m" \
	timeout -k 5 600 "$prog" "$svc" "$THREADS" "$ROUNDS" "${expect[@]}" >"$E2E_TMP/meddled.out" 2>&1
rc=$?
head -n 40 "$E2E_TMP/meddled.out"
expect_eq "$ROUNDS rounds of $THREADS threads, another thread dropping and regaining privileges" "$rc" 0
env ${PRELOAD:+LD_PRELOAD="$PRELOAD"} E2E_SYSLOG="$E2E_LOG" PAM_THREADS_MALLOC=1 \
	PAM_THREADS_STACK=65536 \
	timeout -k 5 600 "$prog" "$svc" "$THREADS" "$ROUNDS" "${expect[@]}" >"$E2E_TMP/malloc.out" 2>&1
rc=$?
head -n 40 "$E2E_TMP/malloc.out"
expect_eq "$ROUNDS rounds of $THREADS threads on 64 KiB stacks, another thread allocating" "$rc" 0
expect_false "no error about the user's files logged" grep -qi "user directory skipped\|credentials" "$E2E_LOG"
e2e_finish
