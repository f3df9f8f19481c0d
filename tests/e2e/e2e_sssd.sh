#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# e2e_sssd.sh - a fleet's directory through sssd, the client of RHEL,
# Fedora and FreeIPA/AD fleets (root only).
#
# slapd on 127.0.0.1 (tests/lib/ldap_lib.sh) and a real sssd (Debian's
# sssd-ldap) in front of it, with the rfc2307bis schema (groups hold
# member DNs, groups in groups) and sssd's default enumerate = false:
# getpwent and getgrent return no directory account.  sssd, the logins,
# getent, id and envd run in a private mount namespace where
# /etc/nsswitch.conf has "sss" and /etc/sssd, /var/lib/sss (the cache and
# the client's sockets), /var/log/sssd and /run are scratch directories:
# no file of the machine is changed (nsswitch.conf is checked byte for
# byte at the end) and a system sssd, if any, is left alone.  sssd and
# slapd are started here and stopped by pid at exit; every wait is bounded.
#
# Cases, each through a real pamtester login:
#  - nested groups: a user in a group that is a member of another group
#    gets both groups' admin_dir= values;
#  - a group-writable user file whose group is a shared directory group
#    (the primary group of two directory users, listing no member) is
#    refused, as enumerate = false hides the other user; a user-private
#    group (the user's name and uid) is accepted;
#  - a user in 300 directory groups, 70 of them with an admin directory:
#    the first 64 in name order apply (ENVD_MAX_ADMIN_GROUPS), the login's
#    wall time is printed and bounded;
#  - slapd stopped: the login ends within LDAP_DOWN_MS with the system
#    values and, for a user sssd has cached, its cached groups' values;
#    a user sssd never saw gets the system values.
# shellcheck disable=SC2317 # the stop functions run by at_exit

. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/e2e_lib.sh"
e2e_init
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/ldap_lib.sh"
need_cmds sssd
compgen -G "/usr/lib/*/sssd/libsss_ldap.so" >/dev/null ||
	skip_all "sssd's LDAP provider missing (package sssd-ldap)"
compgen -G "/usr/lib/*/libnss_sss.so.2" >/dev/null ||
	skip_all "libnss_sss.so.2 missing (package libnss-sss)"

L=$E2E_TMP/ldap
ldap_init "$L"
NGROUPS=300 NADMIN=70 # the big user's groups, and how many have a directory
ldap_ids $((NGROUPS + 20))
base=$LDAP_BASE id0=$LDAP_ID0
tag=ss$$
nest=$tag-n            # user in nested groups
gin=$tag-inner gout=$tag-outer
upg=$tag-u             # user with a private group: its name, its uid
shr=$tag-s shr2=$tag-t # two users whose primary group is the shared group
gshr=$tag-shared
big=$tag-b             # user in NGROUPS groups
cold=$tag-c            # a user sssd never looks up before slapd stops
gbig() { printf '%s-g%03d' "$tag" "$1"; }

slapd_start
person() { # NAME UID GID
	cat <<EOF

dn: uid=$1,ou=people,$base
objectClass: account
objectClass: posixAccount
uid: $1
cn: $1
uidNumber: $2
gidNumber: $3
homeDirectory: $E2E_TMP/home/$1
loginShell: /bin/sh
EOF
}
group() { # NAME GID [MEMBER-DN...]
	local n=$1 g=$2 m
	shift 2
	printf '\ndn: cn=%s,ou=groups,%s\nobjectClass: posixGroup\nobjectClass: extensibleObject\ncn: %s\ngidNumber: %s\n' \
		"$n" "$base" "$n" "$g"
	for m in "$@"; do printf 'member: %s\n' "$m"; done
}
udn() { echo "uid=$1,ou=people,$base"; }
gdn() { echo "cn=$1,ou=groups,$base"; }
{
	person "$nest" "$id0" $((id0 + 1))
	group "$nest" $((id0 + 1))
	group "$gin" $((id0 + 2)) "$(udn "$nest")"
	group "$gout" $((id0 + 3)) "$(gdn "$gin")"
	person "$upg" $((id0 + 4)) $((id0 + 4))
	group "$upg" $((id0 + 4))
	person "$shr" $((id0 + 5)) $((id0 + 7))
	person "$shr2" $((id0 + 6)) $((id0 + 7))
	group "$gshr" $((id0 + 7))
	person "$cold" $((id0 + 8)) $((id0 + 9))
	group "$cold" $((id0 + 9)) "$(udn "$cold")"
	person "$big" $((id0 + 10)) $((id0 + 11))
	group "$big" $((id0 + 11))
	for i in $(seq 1 "$NGROUPS"); do group "$(gbig "$i")" $((id0 + 19 + i)) "$(udn "$big")"; done
} >"$L/users.ldif"
ldap_add <"$L/users.ldif"
pass "the directory: $((NGROUPS + 10)) entries"

# --- sssd, in a namespace of its own -------------------------------------------------
S=$E2E_TMP/sssd
mkdir -p "$S/etc/conf.d" "$S/lib/db" "$S/lib/mc" "$S/lib/pipes/private" "$S/lib/pubconf" \
	"$S/lib/gpo_cache" "$S/lib/deskprofile" "$S/lib/secrets" "$S/log" "$S/run"
chmod 700 "$S/lib/db" "$S/lib/secrets" "$S/lib/pipes/private"
chmod 755 "$S" "$S/lib" "$S/lib/pipes" "$S/lib/mc" "$S/run"
cat >"$S/etc/sssd.conf" <<EOF
[sssd]
services = nss
domains = envd

[domain/envd]
id_provider = ldap
ldap_uri = $LDAP_URI
ldap_search_base = $base
ldap_schema = rfc2307bis
ldap_group_member = member
enumerate = false
cache_credentials = false
ldap_network_timeout = 2
ldap_opt_timeout = 2
EOF
chmod 600 "$S/etc/sssd.conf"
ns_start
for d in /etc/sssd /var/lib/sss /var/log/sssd; do
	[ -d "$d" ] || skip_all "$d missing (package sssd-common)"
done
ns_bind "$S/etc" /etc/sssd
ns_bind "$S/lib" /var/lib/sss
ns_bind "$S/log" /var/log/sssd
ns_bind "$S/run" /run
nss_in_ns sss

sssd_pid=""
sssd_stop() {
	local kids
	[ -n "$sssd_pid" ] || return 0
	kids=$(pgrep -P "$sssd_pid" 2>/dev/null)
	kill "$sssd_pid" 2>/dev/null
	for _ in $(seq 1 50); do kill -0 "$sssd_pid" 2>/dev/null || break; sleep 0.1; done
	# shellcheck disable=SC2086 # pids
	kill -9 "$sssd_pid" $kids 2>/dev/null
	wait "$sssd_pid" 2>/dev/null
	sssd_pid=""
}
at_exit sssd_stop
# -i: in the foreground, so that $! is sssd's monitor (nsenter execs it)
in_ns sssd -i --logger=stderr >"$S/sssd.log" 2>&1 &
sssd_pid=$!
for _ in $(seq 1 100); do
	in_ns getent passwd "$nest" >/dev/null 2>&1 && break
	kill -0 "$sssd_pid" 2>/dev/null || break
	sleep 0.2
done
in_ns getent passwd "$nest" >/dev/null 2>&1 ||
	{ echo "FAIL: sssd did not answer in 20 s:"; tail -n 20 "$S/sssd.log"; exit 1; }
pass "sssd answers for $nest"

# --- the administrator's files, the users' homes ---------------------------------------
echo "FLEET=system" >"$E2E_TMP/sys/etc/environment.d/10-fleet.conf"
adm=$E2E_TMP/sys/admin
mkdir -p "$adm/group/$gin" "$adm/group/$gout"
echo "INNER=yes" >"$adm/group/$gin/10-inner.conf"
echo "OUTER=yes" >"$adm/group/$gout/10-outer.conf"
# the big user's: an admin directory of its own, NADMIN group directories
admbig=$E2E_TMP/sys/admin-big
for i in $(seq 1 "$NADMIN"); do
	mkdir -p "$admbig/group/$(gbig "$i")"
	# a name of its own: a file name masks the same name in later directories
	echo "BIG_$i=yes" >"$admbig/group/$(gbig "$i")/10-big-$i.conf"
done
chmod -R go-w "$adm" "$admbig"
home() { # NAME UID GID: a home with a group-writable user file
	local h=$E2E_TMP/home/$1
	mkdir -p "$h/.config/environment.d"
	echo "MINE=$1" >"$h/.config/environment.d/10-mine.conf"
	chmod 664 "$h/.config/environment.d/10-mine.conf"
	chown -R "$2:$3" "$h"
}
home "$nest" "$id0" $((id0 + 1))
home "$upg" $((id0 + 4)) $((id0 + 4))
home "$shr" $((id0 + 5)) $((id0 + 7))
home "$cold" $((id0 + 8)) $((id0 + 9))
home "$big" $((id0 + 10)) $((id0 + 11))

svc=$(e2e_service sssd <<EOF
auth     required pam_permit.so
account  required pam_permit.so
session  optional $MOD system_dirs=$SYSDIRS admin_dir=$adm
session  required pam_exec.so $HELPER $OUT
EOF
)
svcbig=$(e2e_service sssd-big <<EOF
auth     required pam_permit.so
account  required pam_permit.so
session  optional $MOD system_dirs=$SYSDIRS admin_dir=$admbig
session  required pam_exec.so $HELPER $OUT
EOF
)
login() { # USER RUN [SERVICE]: a login, its record copied to $L/USER.RUN.env
	e2e_pam "${3:-$svc}" "$1" open_session
	cp "$(record "$1")" "$L/$1.$2.env" 2>/dev/null || : >"$L/$1.$2.env"
	rm -f "$(record "$1")"
}

# --- nested groups ----------------------------------------------------------------------
groups=$(in_ns id -Gn "$nest" 2>/dev/null | tr " " "\n" | LC_ALL=C sort | tr "\n" " ")
expect_eq "sssd resolves the nested groups" "$groups" \
	"$(printf '%s\n' "$nest" "$gin" "$gout" | LC_ALL=C sort | tr "\n" " ")"
expect_false "enumerate = false: getent passwd lists no directory user" \
	sh -c "nsenter -t $NS_PID -m -- getent passwd | grep -q '^$tag-'"
login "$nest" up
expect_eq "nested: open_session succeeds" "$E2E_RC" 0
expect_eq "nested: the inner group's value" "$(getvar "$L/$nest.up.env" INNER)" yes
expect_eq "nested: the outer group's value (a group of its group)" "$(getvar "$L/$nest.up.env" OUTER)" yes
expect_eq "nested: the system value" "$(getvar "$L/$nest.up.env" FLEET)" system

# --- group write: a shared directory group, a user-private group ------------------------
login "$shr" up
expect_eq "shared group: open_session succeeds" "$E2E_RC" 0
expect_false "a group-writable file of a shared directory group is refused" \
	hasvar "$L/$shr.up.env" MINE
login "$upg" up
expect_eq "a group-writable file of the user's private group is read" \
	"$(getvar "$L/$upg.up.env" MINE)" "$upg"

# --- a user in NGROUPS groups -------------------------------------------------------------
n=$(in_ns id -G "$big" 2>/dev/null | wc -w)
expect_eq "the big user's groups" "$n" $((NGROUPS + 1))
login "$big" up "$svcbig"
big_ms=$E2E_MS
login "$big" warm "$svcbig"
echo "a login of a user in $NGROUPS directory groups, $NADMIN with an admin directory:" \
	"$big_ms ms (sssd's cache cold), $E2E_MS ms (warm)"
expect_true "the big user's login within ${LDAP_DOWN_MS} ms (${big_ms} ms)" test "$big_ms" -le "$LDAP_DOWN_MS"
got=$(tr '\0' '\n' <"$L/$big.warm.env" | grep -c '^BIG_[0-9]*=yes$')
expect_eq "at most 64 group directories apply" "$got" 64
expect_eq "the first 64 in name order: the 64th applies" "$(getvar "$L/$big.warm.env" BIG_64)" yes
expect_false "the 65th in name order does not" hasvar "$L/$big.warm.env" BIG_65

# --- slapd stopped --------------------------------------------------------------------------
slapd_stop
login "$nest" down
expect_eq "slapd down: open_session succeeds" "$E2E_RC" 0
expect_true "slapd down: the login ends within ${LDAP_DOWN_MS} ms (${E2E_MS} ms)" \
	test "$E2E_MS" -le "$LDAP_DOWN_MS"
expect_eq "slapd down: the system values" "$(getvar "$L/$nest.down.env" FLEET)" system
expect_eq "slapd down: sssd's cached groups still give their values" \
	"$(getvar "$L/$nest.down.env" OUTER)" yes
login "$cold" down
expect_eq "slapd down, a user sssd never saw: open_session succeeds" "$E2E_RC" 0
expect_true "slapd down, a user sssd never saw: within ${LDAP_DOWN_MS} ms (${E2E_MS} ms)" \
	test "$E2E_MS" -le "$LDAP_DOWN_MS"
expect_eq "slapd down, a user sssd never saw: the system values" \
	"$(getvar "$L/$cold.down.env" FLEET)" system

sssd_stop
nss_unchanged
expect_false "the directory users are not seen outside the namespace" getent passwd "$nest"
e2e_finish
