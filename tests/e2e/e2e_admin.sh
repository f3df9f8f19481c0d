#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# e2e_admin.sh - admin_dir=: the administrator's files for some users and
# groups, through pamtester and a real /etc/pam.d service (root only).
#
# A user in several real local groups (made here, prefix admin-, removed
# at exit): the per-user directory, its groups' (the primary one too, in
# name order), not another group's; masking across them, the system
# directories and the user's own files; the module and envd agree, and
# envd files and show --explain name the files.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/e2e_lib.sh"
e2e_init
need_cmds groupadd usermod

# admin_group TAG: a local group named admin-PID-TAG, removed at exit.
admin_group() {
	local name="admin-$$-$1"
	echo "$name" >>"$E2E_TMP/created-groups"
	groupadd "$name" >/dev/null 2>&1 || { echo "FAIL: groupadd $name" >&2; exit 1; }
	echo "$name"
}

u="admin-$$-u"
echo "$u" >>"$E2E_TMP/created-users"
useradd -m -d "$E2E_TMP/home/$u" -s /bin/sh -K UMASK=022 -U "$u" >/dev/null ||
	{ echo "FAIL: useradd $u"; exit 1; }
ga=$(admin_group a)
gb=$(admin_group b)
gc=$(admin_group c) # the user is not in it
usermod -a -G "$gb,$ga" "$u"
h=$(home_of "$u")
udir=$h/.config/environment.d
as "$u" mkdir -p "$udir"

adm=$E2E_TMP/sys/admin
mkdir -p "$adm/user/$u" "$adm/group/$ga" "$adm/group/$gb" "$adm/group/$gc" "$adm/group/$u"
chmod -R 755 "$adm"
echo "WHO=user-admin" >"$adm/user/$u/10-who.conf"
echo "WHO=group-a" >"$adm/group/$ga/10-who.conf"
echo "TEAM=a" >"$adm/group/$ga/20-team.conf"
echo "TEAM=b" >"$adm/group/$gb/20-team.conf"
echo "ONLY_B=yes" >"$adm/group/$gb/30-b.conf"
echo "NOT_MEMBER=yes" >"$adm/group/$gc/30-c.conf"
echo "PRIMARY=yes" >"$adm/group/$u/30-primary.conf"
echo "SITE=group-b" >"$adm/group/$gb/40-site.conf"
echo "SITE=etc" >"$E2E_TMP/sys/etc/environment.d/40-site.conf"
echo "PROXY=group-a" >"$adm/group/$ga/50-proxy.conf"
as "$u" sh -c "echo PROXY=mine >'$udir/50-proxy.conf'"

svc=$(e2e_service admin <<EOF
auth     required pam_permit.so
account  required pam_permit.so
session  optional $MOD system_dirs=$SYSDIRS admin_dir=$adm
session  required pam_exec.so $HELPER $OUT
EOF
)
e2e_pam "$svc" "$u" open_session
r=$(record "$u")
expect_eq "open_session succeeds" "$E2E_RC" 0
expect_eq "per-user file masks the group's" "$(getvar "$r" WHO)" user-admin
expect_eq "groups in name order: $ga masks $gb" "$(getvar "$r" TEAM)" a
expect_eq "a file of the second group" "$(getvar "$r" ONLY_B)" yes
expect_eq "the primary group's directory" "$(getvar "$r" PRIMARY)" yes
expect_false "not a group the user is in" hasvar "$r" NOT_MEMBER
expect_eq "a group's file masks the system's" "$(getvar "$r" SITE)" group-b
expect_eq "the user's own file masks the admin's" "$(getvar "$r" PROXY)" mine

# nouser: the administrator's still apply, the user's do not
svc_nouser=$(e2e_service admin-nouser <<EOF
session  optional $MOD nouser system_dirs=$SYSDIRS admin_dir=$adm
session  required pam_exec.so $HELPER $OUT
EOF
)
rm -f "$OUT"/*
e2e_pam "$svc_nouser" "$u" open_session
r=$(record "$u")
expect_eq "nouser: the admin's per-user file" "$(getvar "$r" WHO)" user-admin
expect_eq "nouser: the group's file, no user file to mask it" "$(getvar "$r" PROXY)" group-a

# without admin_dir= none of it
svc_off=$(e2e_service admin-off <<EOF
session  optional $MOD system_dirs=$SYSDIRS
session  required pam_exec.so $HELPER $OUT
EOF
)
rm -f "$OUT"/*
e2e_pam "$svc_off" "$u" open_session
r=$(record "$u")
expect_false "without admin_dir: no per-user file" hasvar "$r" WHO
expect_eq "without admin_dir: the system's SITE" "$(getvar "$r" SITE)" etc

# the module and envd agree; envd names the files
if [ -x "${ENVD:-}" ]; then
	rm -f "$OUT"/*
	e2e_pam "$svc" "$u" open_session
	"$ENVD" show "$u" -q --format nul --system-dirs "$SYSDIRS" --admin-dir "$adm" \
		--user-dir "$udir" >"$E2E_TMP/envd.out"
	tr '\0' '\n' <"$(record "$u")" | grep -vE '^(PAM_[A-Z]+|PWD|SHLVL|_)=' | sort \
		>"$E2E_TMP/module.txt"
	tr '\0' '\n' <"$E2E_TMP/envd.out" | sort >"$E2E_TMP/envd.txt"
	if cmp -s "$E2E_TMP/module.txt" "$E2E_TMP/envd.txt"; then
		pass "helper's environment equals envd show $u --admin-dir"
	else
		fail "module and envd disagree:" "$(diff "$E2E_TMP/envd.txt" "$E2E_TMP/module.txt")"
	fi
	"$ENVD" files "$u" -q --system-dirs "$SYSDIRS" --admin-dir "$adm" >"$E2E_TMP/files.out"
	expect_true "envd files: the group's file used" \
		grep -qx "used    $adm/group/$gb/30-b.conf" "$E2E_TMP/files.out"
	expect_true "envd files: masked by the per-user file" \
		grep -qx "masked  $adm/group/$ga/10-who.conf (by $adm/user/$u/10-who.conf)" \
		"$E2E_TMP/files.out"
	expect_false "envd files: not another group's" grep -q "/$gc/" "$E2E_TMP/files.out"
	"$ENVD" show "$u" -q --explain --system-dirs "$SYSDIRS" --admin-dir "$adm" >"$E2E_TMP/explain.out"
	expect_true "show --explain: where TEAM comes from" \
		grep -qx "# $adm/group/$ga/20-team.conf:1" "$E2E_TMP/explain.out"
	echo "envd files $u:" && sed 's/^/  /' "$E2E_TMP/files.out"
	echo "envd show --explain $u:" && sed 's/^/  /' "$E2E_TMP/explain.out"
else
	echo "note: envd not built, agreement not checked"
fi

# a user in more groups with a directory than a load has user and system
# directories (ENVD_MAX_DIRS, 16): 20 real groups, each with a directory,
# the value in the last in name order.  The login process once wrote past
# its per-directory tables here and died (SIGSEGV) at 12.
m="admin-$$-m"
echo "$m" >>"$E2E_TMP/created-users"
useradd -m -d "$E2E_TMP/home/$m" -s /bin/sh -K UMASK=022 -U "$m" >/dev/null ||
	{ echo "FAIL: useradd $m"; exit 1; }
many=$E2E_TMP/sys/many
mkdir -p "$many/group"
glist=
for i in $(seq -w 1 20); do
	g=$(admin_group "m$i")
	glist=$glist${glist:+,}$g
	mkdir -p "$many/group/$g"
	echo "G$i=$i" >"$many/group/$g/$i.conf"
done
usermod -a -G "$glist" "$m"
echo "LAST_GROUP=yes" >"$many/group/$g/zz-last.conf"
chmod -R 755 "$many"
svc_many=$(e2e_service admin-many <<EOF
session  optional $MOD system_dirs=$SYSDIRS admin_dir=$many
session  required pam_exec.so $HELPER $OUT
EOF
)
rm -f "$OUT"/*
e2e_pam "$svc_many" "$m" open_session
expect_eq "20 group directories: open_session succeeds" "$E2E_RC" 0
r=$(record "$m")
expect_eq "20 group directories: the last group's file" "$(getvar "$r" LAST_GROUP)" yes
expect_eq "20 group directories: the first group's file" "$(getvar "$r" G01)" 01
if [ -x "${ENVD:-}" ]; then
	"$ENVD" show "$m" -q --system-dirs "$SYSDIRS" --admin-dir "$many" >"$E2E_TMP/many.out" 2>&1
	expect_eq "20 group directories: envd show USER exits 0" "$?" 0
	expect_true "20 group directories: envd show USER has the last group's" \
		grep -qx "LAST_GROUP=yes" "$E2E_TMP/many.out"
fi

e2e_finish
