# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# ldap_lib.sh - sourced after e2e_lib.sh by the root tests whose accounts
# come from a directory (e2e_ldap.sh with nslcd, e2e_sssd.sh with sssd).
#
# ldap_init DIR: checks slapd's commands and schemas (skips without
#   them), makes DIR (mode 700) for the directory's files.
# ldap_ids N: LDAP_ID0, the first of N uids and gids no local account has.
# slapd_start: slapd on 127.0.0.1 (a free port, its database in DIR/db),
#   started here and stopped by pid at exit; LDAP_URI, LDAP_BASE.  Groups
#   may carry "member" DNs (rfc2307bis nesting) through extensibleObject.
# slapd_stop: stops it now (a directory that goes down), by pid, waited for
#   five seconds at most, then killed.
# ldap_add: adds the LDIF on stdin as the directory's admin.
# restore_file FILE BACKUP: FILE back as it was, byte for byte (absent
#   when BACKUP is).
# ns_start: a private mount namespace (unshare -m), held by a process of
#   ours (NS_PID, killed at exit); in_ns CMD... runs CMD in it, ns_bind SRC
#   DST bind-mounts SRC over DST there only.
# nss_in_ns SERVICE: in the namespace, /etc/nsswitch.conf is the system's
#   with SERVICE after the passwd and group sources; the logins (E2E_WRAP)
#   run there.  Other tests on the machine rely on NSS: the system's file
#   is never changed (nss_unchanged checks it, byte for byte).
# shellcheck shell=bash disable=SC2317 # the stop and restore functions run by at_exit

LDAP_DIR=
LDAP_URI=
LDAP_BASE=dc=envd,dc=test
SLAPD_PID=

ldap_init() {
	local s
	need_cmds slapd ldapadd ldapsearch getent cmp flock
	for s in core cosine nis; do
		[ -f "/etc/ldap/schema/$s.schema" ] ||
			skip_all "/etc/ldap/schema/$s.schema missing (package slapd)"
	done
	LDAP_DIR=$1
	mkdir -p "$LDAP_DIR/db"
	chmod 700 "$LDAP_DIR"
}

ldap_ids() {
	local n
	LDAP_ID0=$((3900000 + ($$ % 10000) * 10))
	# a scan of the files database
	for n in $(seq "$LDAP_ID0" $((LDAP_ID0 + $1 - 1))); do
		if getent -s files passwd "$n" >/dev/null || getent -s files group "$n" >/dev/null; then
			skip_all "uid or gid $n is taken"
		fi
	done
}

slapd_stop() {
	[ -n "$SLAPD_PID" ] || return 0
	kill "$SLAPD_PID" 2>/dev/null
	for _ in $(seq 1 50); do kill -0 "$SLAPD_PID" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$SLAPD_PID" 2>/dev/null
	wait "$SLAPD_PID" 2>/dev/null
	SLAPD_PID=
}

slapd_start() {
	local port
	cat >"$LDAP_DIR/slapd.conf" <<EOF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/nis.schema
pidfile $LDAP_DIR/slapd.pid
modulepath /usr/lib/ldap
moduleload back_mdb
database mdb
maxsize 10485760
suffix "$LDAP_BASE"
rootdn "cn=admin,$LDAP_BASE"
rootpw secret
directory $LDAP_DIR/db
index objectClass,uid,uidNumber,gidNumber,memberUid,member,cn eq
EOF
	at_exit slapd_stop
	LDAP_URI=
	for _ in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 20000))
		# -d: in the foreground, so that $! is slapd itself
		slapd -f "$LDAP_DIR/slapd.conf" -h "ldap://127.0.0.1:$port/" -d 0 >"$LDAP_DIR/slapd.log" 2>&1 &
		SLAPD_PID=$!
		for _ in $(seq 1 50); do
			if ldapsearch -x -H "ldap://127.0.0.1:$port/" -b "" -s base >/dev/null 2>&1; then
				LDAP_URI=ldap://127.0.0.1:$port/
				break 2
			fi
			kill -0 "$SLAPD_PID" 2>/dev/null || break
			sleep 0.2
		done
		slapd_stop
	done
	[ -n "$LDAP_URI" ] || { echo "FAIL: slapd did not start:"; tail -n 20 "$LDAP_DIR/slapd.log"; exit 1; }
	pass "slapd answers on $LDAP_URI"
	ldap_add <<EOF
dn: $LDAP_BASE
objectClass: dcObject
objectClass: organization
dc: envd
o: envd

dn: ou=people,$LDAP_BASE
objectClass: organizationalUnit
ou: people

dn: ou=groups,$LDAP_BASE
objectClass: organizationalUnit
ou: groups
EOF
}

ldap_add() {
	local rc=0
	ldapadd -x -H "$LDAP_URI" -D "cn=admin,$LDAP_BASE" -w secret >"$LDAP_DIR/ldapadd.log" 2>&1 || rc=$?
	[ $rc = 0 ] || { echo "FAIL: ldapadd exited $rc:"; cat "$LDAP_DIR/ldapadd.log"; exit 1; }
}

restore_file() {
	# a copy renamed over FILE: a reader sees the old file or the new one
	if [ -e "$2" ]; then
		cp -p "$2" "$1.envd-test.$$" && mv -f "$1.envd-test.$$" "$1" && cmp -s "$2" "$1" ||
			echo "FAIL: $1 not restored" >&2
	else
		rm -f "$1"
	fi
}

NS_PID=""
ns_start() {
	need_cmds unshare nsenter mount
	cp -p /etc/nsswitch.conf "$LDAP_DIR/nsswitch.conf.orig"
	unshare -m --propagation private sleep 86400 &
	NS_PID=$!
	echo "$NS_PID" >>"$E2E_TMP/created-pids"
	for _ in $(seq 1 50); do
		[ "$(readlink "/proc/$NS_PID/ns/mnt")" = "$(readlink /proc/self/ns/mnt)" ] || return 0
		sleep 0.1
	done
	echo "FAIL: no private mount namespace (unshare -m)"
	exit 1
}
in_ns() { nsenter -t "$NS_PID" -m -- "$@"; }
ns_bind() { in_ns mount --bind "$1" "$2" || { echo "FAIL: mount --bind $1 $2 in the namespace"; exit 1; }; }
nss_in_ns() {
	sed -E "s/^(passwd|group):.*/& $1/" "$LDAP_DIR/nsswitch.conf.orig" >"$LDAP_DIR/nsswitch.conf"
	chmod 644 "$LDAP_DIR/nsswitch.conf"
	ns_bind "$LDAP_DIR/nsswitch.conf" /etc/nsswitch.conf
	# shellcheck disable=SC2034 # e2e_pam runs pamtester under it
	E2E_WRAP=(nsenter -t "$NS_PID" -m --)
}
nss_unchanged() {
	expect_true "the system's nsswitch.conf untouched" cmp -s "$LDAP_DIR/nsswitch.conf.orig" /etc/nsswitch.conf
}

# LDAP_DOWN_MS: how long a login may take with the directory down: the
# module's user-side bound (3 s) and two seconds for the rest of the
# stack; memcheck's slowdown on top under valgrind
LDAP_DOWN_MS=5000
[ ${#VG[@]} = 0 ] || LDAP_DOWN_MS=$((LDAP_DOWN_MS * 6))
