#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# e2e_cleanup.sh - the deployment pair in a real /etc/pam.d service, driven
# by pamtester open_session close_session for a real user (root only).
#
# Linux-PAM runs the close_session hooks top to bottom on the same PAM
# environment: a pam_exec helper stacked before pam_envd (a logout backup,
# an unmount) runs as root at close with every variable the module set.
# With the pair (a cleanup instance first, the applying instance last) no
# user value reaches a helper before or after the module at close, none
# reaches the helper before the module at open, and the session still gets
# everything.  Without the cleanup line the helper before the module does
# see them at close: the case the pair exists for.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/e2e_lib.sh"
e2e_init

# records at open and at close: OUT/TAG.PAM_TYPE.env
REC=$E2E_TMP/bin/record-both
cat >"$REC" <<'EOF'
#!/bin/sh
/usr/bin/env -0 >"$1/$2.${PAM_TYPE:-none}.env"
EOF
chmod 755 "$REC"

u=$(e2e_user c)
h=$(home_of "$u")
udir=$h/.config/environment.d
as "$u" mkdir -p "$udir"
as "$u" sh -c "cat >'$udir/10-mine.conf'" <<'EOF'
EDITOR=vim
TAR_LIKE=--checkpoint-action=exec=/tmp/x
PATH=$HOME/bin:$PATH
EOF
cat >"$E2E_TMP/sys/etc/environment.d/10-site.conf" <<'EOF'
SITE=example
EOF

rec() { echo "$OUT/$1.$2.env"; }

pair=$(e2e_service pair <<EOF
session  optional $MODULE cleanup
session  optional pam_exec.so $REC $OUT before
session  optional $MOD system_dirs=$SYSDIRS
session  optional pam_exec.so $REC $OUT after
EOF
)
rm -f "$OUT"/*
e2e_pam -E EDITOR=nano -E PATH=/usr/bin:/bin "$pair" "$u" open_session close_session
expect_eq "pair: open and close succeed" "$E2E_RC" 0
for f in before.open_session after.open_session before.close_session after.close_session; do
	expect_true "pair: the helper recorded $f" test -s "$OUT/$f.env"
done
r=$(rec after open_session)
expect_eq "pair: the session gets the user's EDITOR" "$(getvar "$r" EDITOR)" vim
expect_eq "pair: the session gets the user's PATH" "$(getvar "$r" PATH)" "$h/bin:/usr/bin:/bin"
expect_eq "pair: the session gets the system file's SITE" "$(getvar "$r" SITE)" example
r=$(rec before open_session)
expect_eq "pair: before the module at open, the login's EDITOR" "$(getvar "$r" EDITOR)" nano
expect_false "pair: before the module at open, no user value" hasvar "$r" TAR_LIKE
for w in before after; do
	r=$(rec $w close_session)
	expect_eq "pair: $w the module at close, the login's EDITOR back" "$(getvar "$r" EDITOR)" nano
	expect_eq "pair: $w the module at close, the login's PATH back" "$(getvar "$r" PATH)" /usr/bin:/bin
	expect_false "pair: $w the module at close, no user-only variable" hasvar "$r" TAR_LIKE
	expect_false "pair: $w the module at close, no system-file variable" hasvar "$r" SITE
done

# --- without the cleanup line: what the pair prevents ----------------------
nopair=$(e2e_service nopair <<EOF
session  optional pam_exec.so $REC $OUT before
session  optional $MOD system_dirs=$SYSDIRS
EOF
)
rm -f "$OUT"/*
e2e_pam "$nopair" "$u" open_session close_session
expect_eq "no cleanup line: open and close succeed" "$E2E_RC" 0
r=$(rec before close_session)
expect_eq "no cleanup line: the helper before the module sees the user's value at close" \
	"$(getvar "$r" TAR_LIKE)" "--checkpoint-action=exec=/tmp/x"

# --- the cleanup instance alone, twice, and with debug ----------------------
twice=$(e2e_service twice <<EOF
session  optional $MODULE cleanup debug
session  required $MODULE cleanup
session  optional pam_exec.so $REC $OUT before
session  optional $MOD system_dirs=$SYSDIRS
EOF
)
rm -f "$OUT"/*
: >"$E2E_LOG"
e2e_pam "$twice" "$u" open_session close_session
expect_eq "two cleanup lines: the second one (required) succeeds" "$E2E_RC" 0
expect_false "two cleanup lines: nothing of the user at close" hasvar "$(rec before close_session)" TAR_LIKE
[ -z "$E2E_SHIM" ] || expect_true "cleanup debug: the count is logged" grep -q "cleanup: 4 variables taken back" "$E2E_LOG"
[ -z "$E2E_SHIM" ] || expect_false "cleanup: no value in the log" grep -q "checkpoint" "$E2E_LOG"
alone=$(e2e_service alone <<EOF
session  required $MODULE cleanup
session  optional pam_exec.so $REC $OUT before
EOF
)
rm -f "$OUT"/*
e2e_pam -E EDITOR=nano "$alone" "$u" open_session close_session
expect_eq "cleanup without an applying instance: succeeds" "$E2E_RC" 0
expect_eq "cleanup without an applying instance: changes nothing" \
	"$(getvar "$(rec before close_session)" EDITOR)" nano

e2e_finish
