#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# e2e_session.sh - pam_envd.so in a real /etc/pam.d service, driven by
# pamtester for a real user, with a pam_exec helper after it (root only).
#
# Checks: the user's and the system's files reach the session; fallbacks are
# not exported; the default user directory and XDG_CONFIG_HOME; nooverwrite;
# the module stacked in auth and session applies once; the helper sees the
# same variables as `envd show USER` on the same files.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/e2e_lib.sh"
e2e_init

u=$(e2e_user s)
h=$(home_of "$u")
udir=$h/.config/environment.d
as "$u" mkdir -p "$udir"
as "$u" sh -c "cat >'$udir/10-editor.conf'" <<'EOF'
# the user's editor and tools
EDITOR=vim
PATH=$HOME/bin:$PATH
GREETING="hello $USER"
X=${X:+$X-}a
EOF
as "$u" sh -c "cat >'$udir/20-more.conf'" <<'EOF'
PAGER=less
LESS=-R
MASKED=user
EOF
cat >"$E2E_TMP/sys/etc/environment.d/10-site.conf" <<'EOF'
SITE=example
PAGER=more
EOF
cat >"$E2E_TMP/sys/usr/lib/environment.d/20-more.conf" <<'EOF'
MASKED=system
EOF

svc=$(e2e_service basic <<EOF
auth     required pam_permit.so
account  required pam_permit.so
session  optional $MOD system_dirs=$SYSDIRS
session  required pam_exec.so $HELPER $OUT
EOF
)

# --- the basics ----------------------------------------------------------
e2e_pam "$svc" "$u" open_session
r=$(record "$u")
expect_eq "open_session succeeds" "$E2E_RC" 0
expect_true "the helper after the module ran" test -s "$r"
expect_eq "EDITOR from the user" "$(getvar "$r" EDITOR)" vim
expect_eq "PATH prepended once" "$(getvar "$r" PATH)" "$h/bin:/usr/local/bin:/usr/bin:/bin"
expect_eq "expansion of \$USER" "$(getvar "$r" GREETING)" "hello $u"
expect_eq "a user file wins its name" "$(getvar "$r" PAGER)" less
expect_eq "system file" "$(getvar "$r" SITE)" example
expect_eq "user file masks the system one" "$(getvar "$r" MASKED)" user
expect_false "HOME is a fallback, not exported" hasvar "$r" HOME
expect_false "SHELL is a fallback, not exported" hasvar "$r" SHELL
expect_true "within ${E2E_TIME_LIMIT}s" test "$E2E_MS" -lt $((E2E_TIME_LIMIT * 1000))

# --- a user with supplementary groups, a root process with some ------------
# Linux-PAM upstream clears the groups on the switch, Debian's sets the
# user's own: either way the user's files must be read.
usermod -a -G audio,video "$u"
rm -f "$OUT"/*
e2e_pam "$svc" "$u" open_session
expect_eq "user in supplementary groups: files read" "$(getvar "$(record "$u")" EDITOR)" vim
E2E_WRAP=(setpriv --groups=audio,disk)
rm -f "$OUT"/*
e2e_pam "$svc" "$u" open_session
E2E_WRAP=()
expect_eq "root with groups the user shares or not: files read" \
	"$(getvar "$(record "$u")" EDITOR)" vim

# --- the default user directory and XDG_CONFIG_HOME ------------------------
svc_default=$(e2e_service default <<EOF
session  optional $MOD system_dirs=$E2E_TMP/sys/etc/environment.d
session  required pam_exec.so $HELPER $OUT
EOF
)
rm -f "$OUT"/*
e2e_pam "$svc_default" "$u" open_session
expect_eq "default user dir: ~/.config/environment.d" "$(getvar "$(record "$u")" EDITOR)" vim
as "$u" mkdir -p "$h/xdg/environment.d"
as "$u" sh -c "echo EDITOR=from-xdg >'$h/xdg/environment.d/a.conf'"
rm -f "$OUT"/*
e2e_pam -E "XDG_CONFIG_HOME=$h/xdg" "$svc_default" "$u" open_session
expect_eq "XDG_CONFIG_HOME in the PAM environment" "$(getvar "$(record "$u")" EDITOR)" from-xdg

# --- nooverwrite ---------------------------------------------------------------
svc_keep=$(e2e_service keep <<EOF
session  optional $MOD nooverwrite system_dirs=$SYSDIRS
session  required pam_exec.so $HELPER $OUT
EOF
)
rm -f "$OUT"/*
e2e_pam -E EDITOR=nano "$svc_keep" "$u" open_session
expect_eq "nooverwrite keeps the login's EDITOR" "$(getvar "$(record "$u")" EDITOR)" nano
rm -f "$OUT"/*
e2e_pam -E EDITOR=nano "$svc" "$u" open_session
expect_eq "without it the file wins" "$(getvar "$(record "$u")" EDITOR)" vim

# --- auth and session: applied once ------------------------------------------
svc_both=$(e2e_service both <<EOF
auth     optional $MOD system_dirs=$SYSDIRS
auth     required pam_permit.so
account  required pam_permit.so
session  optional $MOD system_dirs=$SYSDIRS
session  required pam_exec.so $HELPER $OUT
EOF
)
rm -f "$OUT"/*
e2e_pam "$svc_both" "$u" authenticate setcred open_session
r=$(record "$u")
expect_eq "auth+session: session opens" "$E2E_RC" 0
expect_eq "auth+session: PATH prepended once" "$(getvar "$r" PATH)" "$h/bin:/usr/local/bin:/usr/bin:/bin"
expect_eq "auth+session: X applied once" "$(getvar "$r" X)" a
rm -f "$OUT"/*
e2e_pam "$svc_both" "$u" setcred open_session
expect_eq "setcred then open_session: once" "$(getvar "$(record "$u")" X)" a

# --- the module and envd agree ----------------------------------------------------
if [ -x "${ENVD:-}" ]; then
	rm -f "$OUT"/*
	e2e_pam "$svc" "$u" open_session
	r=$(record "$u")
	"$ENVD" show "$u" -q --format nul --root "$E2E_TMP/sys" --user-dir "$udir" >"$E2E_TMP/envd.out"
	# what the helper saw, minus what pam_exec and bash add themselves
	tr '\0' '\n' <"$r" | grep -vE '^(PAM_[A-Z]+|PWD|SHLVL|_)=' | sort >"$E2E_TMP/module.txt"
	tr '\0' '\n' <"$E2E_TMP/envd.out" | sort >"$E2E_TMP/envd.txt"
	if cmp -s "$E2E_TMP/module.txt" "$E2E_TMP/envd.txt"; then
		pass "helper's environment equals envd show $u"
	else
		fail "module and envd disagree:"
		diff "$E2E_TMP/envd.txt" "$E2E_TMP/module.txt"
	fi
else
	echo "note: envd not built, agreement not checked"
fi

# --- a reader that cannot become the user reads nothing of the user's -------
# A preloaded setresuid() that says it worked and changed nothing (in the
# reader program, through a wrapper that preloads it): the reader checks
# its ids from the kernel's
# answers, refuses to read as root, and the login goes on with the system
# files; the login process's own ids are never touched.
cat >"$E2E_TMP/fake-setresuid.c" <<'EOF'
#define _GNU_SOURCE
#include <sys/types.h>
int setresuid(uid_t r, uid_t e, uid_t s);
int setresuid(uid_t r, uid_t e, uid_t s)
{
	(void)r;
	(void)e;
	(void)s;
	return 0; /* "done" */
}
EOF
if ${CC:-cc} -shared -fPIC -o "$E2E_TMP/fake-setresuid.so" "$E2E_TMP/fake-setresuid.c" 2>/dev/null &&
	fake=$(e2e_reader_preload "$E2E_TMP/fake-setresuid.so"); then
	svc_fake=$(e2e_service fake <<EOF
session  optional $MODULE system_dirs=$SYSDIRS reader=$fake
session  required pam_exec.so $HELPER $OUT
EOF
)
	rm -f "$OUT"/*
	: >"$E2E_LOG"
	e2e_pam "$svc_fake" "$u" open_session
	expect_eq "no credentials: the session opens" "$E2E_RC" 0
	expect_false "no credentials: nothing of the user's read as root" \
		hasvar "$(record "$u")" EDITOR
	expect_eq "no credentials: the system files apply" "$(getvar "$(record "$u")" SITE)" example
	[ -z "$E2E_SHIM" ] || expect_true "no credentials: logged" \
		grep -q "could not take the user's credentials" "$E2E_LOG"
	rm -f "$OUT"/*
	e2e_pam "$svc" "$u" open_session
	expect_eq "without the fault the user's files apply" "$(getvar "$(record "$u")" EDITOR)" vim
else
	echo "note: no compiler, a reader without credentials not checked"
fi

# --- nothing logged holds a value ---------------------------------------------
if [ -n "$E2E_SHIM" ]; then
	as "$u" sh -c "printf 'LD_PRELOAD=/secret-value-1\n1BAD=secret-value-2\n' >'$udir/30-bad.conf'"
	e2e_pam "$svc" "$u" open_session
	expect_true "refusal logged with file:line" grep -q "30-bad.conf:1: LD_PRELOAD" "$E2E_LOG"
	expect_false "no value in the log" grep -q "secret-value" "$E2E_LOG"
fi

e2e_finish
