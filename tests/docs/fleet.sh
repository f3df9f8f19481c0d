#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/docs/fleet.sh - the fleet recipe of examples/fleet/ works as its
# README says: a copy of its etc/environment.d, a role directory renamed to
# a group of the user, gives the user the fleet's and the role's values and
# nothing of another role; its pam.d/login, with the distribution's
# common-session beside it, has the deployment pair with admin_dir= and a
# clean envd -f json audit report.  Runs as any user (the caller is the
# user, its primary group the role's group).

. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/harness.sh"
harness_init fleet.sh check
need_envd
need_caller_account
need_cmds jq
F=${top_srcdir:-$(dirname "$0")/../..}/examples/fleet
make_tmpdir T envd-fleet
H_OUT=$T/out H_ERR=$T/err

# what the admin ships, the developers role renamed to the caller's group
cp -R "$F/etc" "$T/etc"
mv "$T/etc/environment.d/group/developers" "$T/etc/environment.d/group/$(id -gn)"
chmod -R go-w "$T/etc"
e show --root "$T" --admin-dir /etc/environment.d --system-dirs /etc/environment.d --no-user "$(id -un)"
expect_rc "envd show with the recipe's admin directory" 0
expect_out "the fleet's file, then the role's" "FLEET_SITE=example
PROXY_HOST=proxy.example.internal
ROLE=developers
EDITOR=vim
PIP_INDEX_URL=https://pypi.example.internal/simple
"
e show --explain --root "$T" --admin-dir /etc/environment.d --system-dirs /etc/environment.d --no-user \
	"$(id -un)"
if grep -qF "$T/etc/environment.d/group/$(id -gn)/50-role.conf:5" "$H_OUT"; then
	pass "show --explain names the role's file"
else
	fail "show --explain names the role's file" "$(head -c 600 "$H_OUT")"
fi

# the PAM side: the recipe's service with a common-session beside it
mkdir -p "$T/pam.d"
cp "$F/pam.d/login" "$T/pam.d/login"
echo "session required pam_unix.so" >"$T/pam.d/common-session"
if grep -qx "session optional pam_envd.so admin_dir=/etc/environment.d" "$T/pam.d/login" &&
	grep -qx "session optional pam_envd.so cleanup" "$T/pam.d/login"; then
	pass "pam.d/login: the pair, admin_dir= on the applying line"
else
	fail "pam.d/login: the pair, admin_dir= on the applying line"
fi
e --pam-dir "$T/pam.d" -f json audit login
expect_rc "envd -f json audit of the recipe's service" 0
expect_eq "the report: the service applies the module, no finding" \
	"$(jq -c '[.summary.applying, .summary.findings, .services[0].ok]' "$H_OUT")" "[1,0,true]"
finish
