#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# e2e_confdir.sh - a real user's session through the libpam that
# tests/pam/pam_session is linked with (pam_start_confdir; no pamtester, no
# /etc/pam.d), as root, so that the reader child really becomes the user.  The
# compatibility cells of ./dev test run it against each Linux-PAM they
# build (COMPAT_LIBPAM names it in the output, COMPAT_PAM_VERSION is its
# version).
#
# Checks: the session opens; the user's and the system's variables arrive;
# a user file that is a link to a root-only file is not read; the process
# leaves with the credentials it had (pam_session checks fsuid, fsgid,
# groups and effective capabilities).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/e2e_lib.sh"

driver=$top_builddir/tests/pam/pam_session
[ -x "$driver" ] || skip_all "tests/pam/pam_session is not built (no pam_start_confdir)"
E2E_TOOLS=: e2e_init
echo "libpam: ${COMPAT_LIBPAM:-the system one}"

u=$(e2e_user c)
h=$(home_of "$u")
mkdir -p "$E2E_TMP/secret" "$E2E_TMP/pam.d"
chmod 700 "$E2E_TMP/secret"
echo "CONFDIR_LEAK=1" >"$E2E_TMP/secret/leak.conf"
chmod 644 "$E2E_TMP/secret/leak.conf"
as "$u" mkdir -p "$h/.config/environment.d"
printf 'CONFDIR_USER=yes\nPATH=$HOME/bin:${PATH}\n' >"$h/.config/environment.d/10-c.conf"
chown "$u:" "$h/.config/environment.d/10-c.conf"
as "$u" ln -s "$E2E_TMP/secret/leak.conf" "$h/.config/environment.d/20-leak.conf"
# a file only the user's supplementary group may read: the reader child
# takes the user's groups itself (lib/child.c), whatever the Linux-PAM
# (pam_modutil_drop_priv of 1.4 cleared them, and the old window with it)
g=$(e2e_group g)
usermod -a -G "$g" "$u"
mkdir -p "$E2E_TMP/grp"
echo "CONFDIR_GROUP=1" >"$E2E_TMP/grp/group.conf"
chgrp "$g" "$E2E_TMP/grp" "$E2E_TMP/grp/group.conf"
chmod 750 "$E2E_TMP/grp"
chmod 640 "$E2E_TMP/grp/group.conf"
as "$u" ln -s "$E2E_TMP/grp/group.conf" "$h/.config/environment.d/30-group.conf"
echo "CONFDIR_SYS=1" >"$E2E_TMP/sys/etc/environment.d/50-sys.conf"
echo "session required $MOD system_dirs=$SYSDIRS" >"$E2E_TMP/pam.d/confdir"

out=$OUT/confdir.env
rc=0
timeout 60 "${VG[@]}" "$driver" "$E2E_TMP/pam.d" confdir "$u" "$out" 2>"$OUT/confdir.err" || rc=$?
expect_eq "the session opens, and the process leaves with its credentials" "$rc" 0
[ "$rc" = 0 ] || sed 's/^/  /' "$OUT/confdir.err"
if [ -s "$out" ]; then
	expect_eq "the user's variable" "$(getvar "$out" CONFDIR_USER)" yes
	expect_eq "the system's variable" "$(getvar "$out" CONFDIR_SYS)" 1
	expect_eq "PATH composed" "$(getvar "$out" PATH)" "$h/bin:/usr/local/bin:/usr/bin:/bin"
	expect_false "a link to a root-only file is not read (the reader is the user)" hasvar "$out" CONFDIR_LEAK
	expect_eq "a file of a supplementary group is read (the user's groups, any Linux-PAM)" \
		"$(getvar "$out" CONFDIR_GROUP)" 1
fi
e2e_finish
