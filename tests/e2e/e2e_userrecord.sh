#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# e2e_userrecord.sh - who wins when pam_systemd applies a user record's
# "environment" too (root only).
#
# A real pam_systemd.so and a JSON user record in a userdb drop-in
# (/run/userdb/USER.user, systemd's userdb reads it in the login process:
# no systemd-userdbd or logind is needed for pam_systemd to apply the
# record).  pam_systemd's apply_user_record_settings() sets a record's
# variable only when the PAM environment has no such name: so a name both
# set has pam_envd's value with pam_envd after pam_systemd (the deployment
# pair) and before it alike, the record's with nooverwrite after it; the
# record's other names apply, unexpanded.  envd show --explain says so.
# The drop-in is removed at exit (and /run/userdb when the test made it).
# pam_systemd talks to logind when /run/systemd/seats exists; a machine
# or container without a logind on its bus would stop it there, so the
# logins run in a private mount namespace with an empty tmpfs on
# /run/systemd: pam_systemd takes its path without logind, which applies
# the record through the same function.
# shellcheck disable=SC2016,SC2317 # literal ${...}; drop_record runs at exit

. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/e2e_lib.sh"
e2e_init
need_cmds unshare mount
SYSTEMD_PAM=$(compgen -G "/usr/lib/*/security/pam_systemd.so" | head -n 1)
[ -n "$SYSTEMD_PAM" ] || skip_all "pam_systemd.so missing (package libpam-systemd)"

u=$(e2e_user r)
h=$(home_of "$u")
mkdir -p "$h/.config/environment.d"
printf 'BOTH=envd\nONLY_ENVD=envd\nSEEN=${ONLY_RECORD}\n' >"$h/.config/environment.d/10-mine.conf"
chown -R "$u:$u" "$h/.config"

made_dir=""
[ -d /run/userdb ] || { mkdir -m 755 /run/userdb && made_dir=1; }
rec=/run/userdb/$u.user
drop_record() {
	rm -f "$rec"
	[ -z "$made_dir" ] || rmdir /run/userdb 2>/dev/null
}
at_exit drop_record
cat >"$rec" <<EOF
{"userName":"$u","uid":$(id -u "$u"),"gid":$(id -g "$u"),"homeDirectory":"$h",
 "environment":["BOTH=record","ONLY_RECORD=record","RAW=\${HOME}"]}
EOF
chmod 644 "$rec"

stack() { # TAG LINE...: a service with LINEs as its session part and the recorder
	local t=$1
	shift
	{
		printf 'auth required pam_permit.so\naccount required pam_permit.so\n'
		printf 'session %s\n' "$@"
		echo "session required pam_exec.so $HELPER $OUT"
	} | e2e_service "$t"
}
E2E_WRAP=(unshare -m --propagation private sh -c 'mount -t tmpfs none /run/systemd && exec "$@"' sh)
envd_line="optional $MOD system_dirs=$SYSDIRS"
run() { # SERVICE TAG
	e2e_pam "$1" "$u" open_session
	expect_eq "$2: open_session succeeds" "$E2E_RC" 0
	cp "$(record "$u")" "$E2E_TMP/$2.env" 2>/dev/null || : >"$E2E_TMP/$2.env"
	rm -f "$(record "$u")"
}
run "$(stack after "optional $SYSTEMD_PAM" "$envd_line")" after
run "$(stack before "$envd_line" "optional $SYSTEMD_PAM")" before
run "$(stack noow "optional $SYSTEMD_PAM" "$envd_line nooverwrite")" noow
run "$(stack alone "optional $SYSTEMD_PAM")" alone

expect_eq "pam_systemd alone applies the record" "$(getvar "$E2E_TMP/alone.env" ONLY_RECORD)" record
expect_eq "the record's value is not expanded" "$(getvar "$E2E_TMP/alone.env" RAW)" '${HOME}'
expect_eq "pam_envd after pam_systemd: a name both set is pam_envd's" \
	"$(getvar "$E2E_TMP/after.env" BOTH)" envd
expect_eq "pam_envd after pam_systemd: the record's other names apply" \
	"$(getvar "$E2E_TMP/after.env" ONLY_RECORD)" record
expect_eq "pam_envd after pam_systemd: its files see the record's values" \
	"$(getvar "$E2E_TMP/after.env" SEEN)" record
expect_eq "pam_envd before pam_systemd: a name both set is pam_envd's" \
	"$(getvar "$E2E_TMP/before.env" BOTH)" envd
expect_eq "pam_envd before pam_systemd: the record fills the other names" \
	"$(getvar "$E2E_TMP/before.env" ONLY_RECORD)" record
expect_eq "pam_envd before pam_systemd: its files do not see the record" \
	"$(getvar "$E2E_TMP/before.env" SEEN)" ""
expect_eq "nooverwrite after pam_systemd: the record's value stays" \
	"$(getvar "$E2E_TMP/noow.env" BOTH)" record
expect_eq "nooverwrite: pam_envd's other names apply" "$(getvar "$E2E_TMP/noow.env" ONLY_ENVD)" envd

if [ -x "${ENVD:-}" ]; then
	pd=$E2E_TMP/pam.d
	mkdir -p "$pd"
	printf 'session optional pam_envd.so cleanup\nsession optional pam_systemd.so\nsession optional pam_envd.so\n' \
		>"$pd/login"
	"$ENVD" show "$u" --explain --pam-dir="$pd" --system-dirs "$SYSDIRS" >"$E2E_TMP/explain.out" 2>&1
	expect_true "envd show --explain says who wins against a user record" grep -qxF \
		"#   pam_systemd.so also sets the user record's \"environment\" (userdbctl user USER), unexpanded, for names unset when it runs: a name both set has pam_envd.so's value, after pam_systemd.so or before it (with nooverwrite after it, the record's)" \
		"$E2E_TMP/explain.out"
fi
e2e_finish
