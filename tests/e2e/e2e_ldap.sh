#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# e2e_ldap.sh - admin_dir= on a fleet whose accounts are not in /etc/passwd:
# the user and its groups come from a real LDAP directory (root only).
#
# slapd on 127.0.0.1 (a free port, a database of its own below the scratch
# directory), nslcd and libnss-ldapd in front of it, both started here and
# stopped by pid at exit; /etc/nslcd.conf is backed up and put back byte
# for byte at exit (also on failure); the logins run in a private mount
# namespace whose /etc/nsswitch.conf has "ldap", the system's is never
# changed.  A real login with
# pamtester: the LDAP user in LDAP groups gets its per-user and per-group
# values; hostile names from the directory ("..", a user and a group) build
# no path.  Then slapd stops: nslcd has no cache, and the login must end
# within the bound (LDAP_DOWN_MS) with the system values.  The slapd
# setup and the namespace are tests/lib/ldap_lib.sh's, shared
# with e2e_sssd.sh.
# shellcheck disable=SC2317 # the stop and restore functions run by at_exit

. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/e2e_lib.sh"
e2e_init
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/ldap_lib.sh"
need_cmds nslcd
compgen -G "/usr/lib/*/libnss_ldap.so.2" >/dev/null ||
	skip_all "libnss_ldap.so.2 missing (package libnss-ldapd)"
# a running nslcd is the system's: its socket is not ours to take
if [ -S /run/nslcd/socket ] || pgrep -x nslcd >/dev/null 2>&1; then
	skip_all "an nslcd is running already; this test starts its own"
fi

L=$E2E_TMP/ldap
ldap_init "$L"
ldap_ids 10
base=$LDAP_BASE
id0=$LDAP_ID0
tag=admin-$$
user=$tag-l              # the LDAP user
ga=$tag-la gb=$tag-lb    # its LDAP groups
gp=$tag-lp               # its primary group
gx=$tag-lx               # a group it is not in

slapd_start
uri=$LDAP_URI
ldap_add <<EOF
dn: uid=$user,ou=people,$base
objectClass: account
objectClass: posixAccount
uid: $user
cn: $user
uidNumber: $id0
gidNumber: $((id0 + 1))
homeDirectory: $E2E_TMP/home/$user
loginShell: /bin/sh

dn: uid=..,ou=people,$base
objectClass: account
objectClass: posixAccount
uid: ..
cn: dotdot
uidNumber: $((id0 + 2))
gidNumber: $((id0 + 1))
homeDirectory: $E2E_TMP/home/dotdot
loginShell: /bin/sh

dn: cn=$gp,ou=groups,$base
objectClass: posixGroup
cn: $gp
gidNumber: $((id0 + 1))

dn: cn=$ga,ou=groups,$base
objectClass: posixGroup
cn: $ga
gidNumber: $((id0 + 3))
memberUid: $user

dn: cn=$gb,ou=groups,$base
objectClass: posixGroup
cn: $gb
gidNumber: $((id0 + 4))
memberUid: $user
memberUid: ..

dn: cn=$gx,ou=groups,$base
objectClass: posixGroup
cn: $gx
gidNumber: $((id0 + 5))

dn: cn=..,ou=groups,$base
objectClass: posixGroup
cn: ..
gidNumber: $((id0 + 6))
memberUid: $user
memberUid: ..
EOF

# --- nslcd, with /etc/nslcd.conf of this test ---------------------------------
[ ! -e /etc/nslcd.conf ] || cp -p /etc/nslcd.conf "$L/nslcd.conf.orig"
nslcd_pid="" made_run=""
stop_nslcd() {
	if [ -n "$nslcd_pid" ]; then
		kill "$nslcd_pid" 2>/dev/null
		for _ in $(seq 1 50); do kill -0 "$nslcd_pid" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$nslcd_pid" 2>/dev/null
		nslcd_pid=
	fi
	restore_file /etc/nslcd.conf "$L/nslcd.conf.orig"
	[ -z "$made_run" ] || rm -rf /run/nslcd
}
at_exit stop_nslcd
cat >/etc/nslcd.conf <<EOF
uid nslcd
gid nslcd
uri $uri
base $base
EOF
chmod 640 /etc/nslcd.conf
if [ ! -d /run/nslcd ]; then
	mkdir -p /run/nslcd
	made_run=1
fi
chown nslcd:nslcd /run/nslcd 2>/dev/null || true
nslcd -n >"$L/nslcd.log" 2>&1 &
nslcd_pid=$!
for _ in $(seq 1 50); do [ -S /run/nslcd/socket ] && break; sleep 0.1; done
[ -S /run/nslcd/socket ] || { echo "FAIL: nslcd did not start:"; cat "$L/nslcd.log"; exit 1; }

# --- the administrator's files ----------------------------------------------------
mkdir -p "$E2E_TMP/home/$user" "$E2E_TMP/home/dotdot"
chown "$id0:$((id0 + 1))" "$E2E_TMP/home/$user"
chown "$((id0 + 2)):$((id0 + 1))" "$E2E_TMP/home/dotdot"
adm=$E2E_TMP/sys/admin
mkdir -p "$adm/user/$user" "$adm/group/$ga" "$adm/group/$gb" "$adm/group/$gp" "$adm/group/$gx"
echo "WHO=ldap-user" >"$adm/user/$user/10-who.conf"
echo "TEAM=a" >"$adm/group/$ga/20-team.conf"
echo "TEAM=b" >"$adm/group/$gb/20-team.conf"
echo "ONLY_B=yes" >"$adm/group/$gb/30-b.conf"
echo "PRIMARY=yes" >"$adm/group/$gp/30-p.conf"
echo "NOT_MEMBER=yes" >"$adm/group/$gx/30-x.conf"
# what user/.. or group/.. would read: the admin directory itself
echo "HOSTILE=read" >"$adm/hostile.conf"
chmod -R go-w "$adm"

svc=$(e2e_service ldap <<EOF
auth     required pam_permit.so
account  required pam_permit.so
session  optional $MOD system_dirs=$SYSDIRS admin_dir=$adm
session  required pam_exec.so $HELPER $OUT
EOF
)

# what every login gets, also with the directory down
echo "FLEET=system" >"$E2E_TMP/sys/etc/environment.d/10-fleet.conf"

# --- the logins, in a namespace whose nsswitch.conf has ldap ------------------------
ns_start
nss_in_ns ldap
found=$(in_ns getent passwd "$user" | cut -d: -f3)
groups=$(in_ns id -Gn "$user" 2>/dev/null | tr " " "\n" | LC_ALL=C sort | tr "\n" " ")
: >"$E2E_LOG"
e2e_pam "$svc" "$user" open_session
r=$(record "$user")
cp "$r" "$L/user.env" 2>/dev/null
e2e_pam "$svc" .. open_session
cp "$(record ..)" "$L/dotdot.env" 2>/dev/null
if [ -x "${ENVD:-}" ]; then
	in_ns "$ENVD" files "$user" -q --system-dirs "$SYSDIRS" --admin-dir "$adm" >"$L/files.out" 2>&1
	in_ns "$ENVD" show "$user" -v --system-dirs "$SYSDIRS" --admin-dir "$adm" >"$L/show.out" \
		2>"$L/show.err"
fi
# the directory goes down: nslcd has no cache, the user is unknown, and
# nslcd answers the first lookups only after its retries (about 10 s with
# its defaults).  pamtester looks up nobody itself: what the session takes
# is the stack's, and must end within the bound with the system values.
slapd_stop
e2e_pam "$svc" "$user" open_session
down_rc=$E2E_RC down_ms=$E2E_MS
cp "$(record "$user")" "$L/down.env" 2>/dev/null || : >"$L/down.env"
nss_unchanged
expect_false "the LDAP user is not seen outside the namespace" getent passwd "$user"

expect_eq "the user comes from LDAP" "$found" "$id0"
expect_eq "its LDAP groups" "$groups" ".. $ga $gb $gp "
expect_false "not in /etc/passwd" grep -q "^$user:" /etc/passwd
expect_eq "open_session succeeds" "$E2E_RC" 0
expect_eq "per-user value" "$(getvar "$L/user.env" WHO)" ldap-user
expect_eq "per-group value, groups in name order" "$(getvar "$L/user.env" TEAM)" a
expect_eq "the second group's value" "$(getvar "$L/user.env" ONLY_B)" yes
expect_eq "the primary group's value" "$(getvar "$L/user.env" PRIMARY)" yes
expect_false "not a group it is not in" hasvar "$L/user.env" NOT_MEMBER
expect_false "group .. builds no path" hasvar "$L/user.env" HOSTILE
expect_true "user .. : the session opens" test -s "$L/dotdot.env"
expect_false "user .. builds no path" hasvar "$L/dotdot.env" HOSTILE
expect_eq "slapd down: open_session succeeds" "$down_rc" 0
expect_true "slapd down: the login ends within ${LDAP_DOWN_MS} ms (${down_ms} ms)" \
	test "$down_ms" -le "$LDAP_DOWN_MS"
expect_eq "slapd down: the system values" "$(getvar "$L/down.env" FLEET)" system
expect_false "slapd down: no directory group's value (nslcd caches nothing)" hasvar "$L/down.env" ONLY_B
expect_eq "user .. still gets its groups' values" "$(getvar "$L/dotdot.env" ONLY_B)" yes
[ -z "$E2E_SHIM" ] || expect_true "user .. : said in the log" \
	grep -q "the user's name cannot name a directory" "$E2E_LOG"
if [ -x "${ENVD:-}" ]; then
	expect_true "envd files: the group's file" grep -qx "used    $adm/group/$gb/30-b.conf" "$L/files.out"
	expect_true "envd show: the per-user value" grep -qx "WHO=ldap-user" "$L/show.out"
	echo "envd files $user (accounts from LDAP):" && sed 's/^/  /' "$L/files.out"
	echo "envd show $user:" && sed 's/^/  /' "$L/show.out"
fi
echo "the session of $user (helper's record, pam_exec's own variables left out):"
tr '\0' '\n' <"$L/user.env" | grep -vE '^(PAM_[A-Z]+|PWD|SHLVL|_)=' | sed 's/^/  /'
e2e_finish
