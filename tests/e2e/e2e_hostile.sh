#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# e2e_hostile.sh - SECURITY.md's hostile inputs against the real module in a
# real service, one case at a time (root only).
#
# Every case asserts that the session opens, within the time limit, that
# the pam_exec helper stacked after pam_envd still ran, that a valid system
# file and (where the user directory survives) a valid user file still
# apply, and that no secret reaches the helper's environment or syslog.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/e2e_lib.sh"
e2e_init

v=$(e2e_user v)  # the victim, whose session opens
o=$(e2e_user o)  # another local user
vh=$(home_of "$v")
oh=$(home_of "$o")
ud=$vh/.config/environment.d
S=$E2E_TMP/secret
mkdir -p "$S" "$E2E_TMP/pwned"
chmod 755 "$S" "$E2E_TMP/pwned"
SECRET=TOPSECRET$$
printf 'SECRET_A=%s-600\nPATH=%s\n' "$SECRET" "$SECRET" >"$S/secret600.conf"
chmod 600 "$S/secret600.conf"
printf 'SECRET_B=%s-640\n' "$SECRET" >"$S/secret640.conf"
chmod 640 "$S/secret640.conf" # group root: only root's groups could read it
echo "SYS_OK=1" >"$E2E_TMP/sys/usr/lib/environment.d/90-sys.conf"

svc=$(e2e_service hostile <<EOF
auth     required pam_permit.so
account  required pam_permit.so
session  optional $MOD system_dirs=$SYSDIRS
session  required pam_exec.so $HELPER $OUT
EOF
)

# A fresh home for the victim: a valid user file and nothing else.
reset_home() {
	chmod -R u+rwx "$vh" 2>/dev/null
	rm -rf "$vh"
	mkdir -p "$ud"
	echo "GOOD_V=1" >"$ud/50-good.conf"
	chown -R "$v:" "$vh"
	chmod 755 "$vh" "$vh/.config" "$ud"
	chmod 644 "$ud/50-good.conf"
}

# case NAME USER_FILES_EXPECTED: runs after the case's setup.
check_case() {
	local name=$1 want_good=$2 user=${3:-$v} r
	rm -f "$OUT"/*
	: >"$E2E_LOG"
	e2e_pam -E "PE_SECRET_IN_PAM_ENV=$SECRET-pam" "$svc" "$user" open_session
	r=$(record "$user")
	expect_eq "$name: session opens" "$E2E_RC" 0
	expect_true "$name: within ${E2E_TIME_LIMIT}s (${E2E_MS}ms)" \
		test "$E2E_MS" -lt $((E2E_TIME_LIMIT * 1000))
	if [ ! -s "$r" ]; then
		fail "$name: the helper after the module did not run"
		return
	fi
	expect_eq "$name: system files still apply" "$(getvar "$r" SYS_OK)" 1
	if [ "$want_good" = yes ]; then
		expect_eq "$name: valid user files still apply" "$(getvar "$r" GOOD_V)" 1
	fi
	# the one place the secret may be: the variable the test put there
	expect_false "$name: no secret in the session" \
		sh -c "tr '\\0' '\\n' <'$r' | grep -v '^PE_SECRET_IN_PAM_ENV=' | grep -q '$SECRET'"
	expect_false "$name: no secret in syslog" grep -q "$SECRET" "$E2E_LOG"
	expect_false "$name: no foreign variable" hasvar "$r" FROM_OTHER
	expect_true "$name: nothing ran as root" sh -c "[ -z \"\$(ls -A '$E2E_TMP/pwned')\" ]"
}

# --- files a root process must not read for the user --------------------
reset_home
ln -s /etc/shadow "$ud/10-shadow.conf"
ln -s "$S/secret600.conf" "$ud/11-secret600.conf"
ln -s "$S/secret640.conf" "$ud/12-secret640.conf"
chown -h "$v:" "$ud"/1*.conf # the links, not their targets
# a hard link in the user's directory (created by root here: the kernel's
# protected_hardlinks would stop the user) is still root's 0600 inode
ln "$S/secret600.conf" "$ud/13-hardlink.conf" 2>/dev/null || true
check_case "symlinks and a hard link to root-only files" yes

# root's own supplementary groups must not travel with the user's identity
# (CVE-2010-3430): a file only the other user's group may read
printf 'SECRET_C=%s-group\n' "$SECRET" >"$S/secret-group.conf"
chgrp "$o" "$S/secret-group.conf" && chmod 640 "$S/secret-group.conf"
reset_home
ln -s "$S/secret-group.conf" "$ud/14-group.conf" && chown -h "$v:" "$ud/14-group.conf"
E2E_WRAP=(setpriv --groups="$(getent group "$o" | cut -d: -f3)")
check_case "root's supplementary groups are not the user's" yes
E2E_WRAP=()

reset_home
for p in /proc/self/environ /proc/1/environ /proc/self/status /proc/self/mem \
	/proc/self/cmdline /proc/self/fd/0 /proc/self/cwd/secret600.conf \
	/sys/kernel/mm/transparent_hugepage/enabled; do
	ln -s "$p" "$ud/20-$(echo "$p" | tr / _).conf"
done
chown -h "$v:" "$ud"/2*.conf
cd "$S" # so that /proc/self/cwd leads to the secrets
check_case "symlinks into /proc and /sys" yes
cd /

# --- /proc magic links: another process's cwd and root ---------------------
# A root process whose current directory lies below a 0700 root directory,
# and one in a private mount namespace with its own tmpfs.  The user cannot
# follow /proc/PID/cwd or /proc/PID/root of either (ptrace rules); a root
# process can, with CAP_SYS_PTRACE, even when its fsuid is the user's.
R=$E2E_TMP/rootonly
mkdir -p "$R/inner" "$E2E_TMP/nsmnt"
chmod 700 "$R"
chmod 755 "$R/inner" "$E2E_TMP/nsmnt"
printf 'SECRET_P=%s-cwd\n' "$SECRET" >"$R/inner/50-secret.conf"
chmod 644 "$R/inner/50-secret.conf"
(cd "$R/inner" && exec sleep 600) &
cwdpid=$!
echo "$cwdpid" >>"$E2E_TMP/created-pids"
nspid=
if have_cmds unshare; then
	unshare -m --propagation private sh -c 'mount -t tmpfs -o mode=755 tmpfs "$1" &&
		printf "SECRET_R=%s-ns\n" "$2" >"$1/50-secret.conf" && chmod 644 "$1/50-secret.conf" &&
		exec sleep 600' sh "$E2E_TMP/nsmnt" "$SECRET" &
	nspid=$!
	echo "$nspid" >>"$E2E_TMP/created-pids"
fi
for i in $(seq 1 50); do # until both are in place
	[ -e "/proc/$cwdpid/cwd/50-secret.conf" ] &&
		{ [ -z "$nspid" ] || [ -e "/proc/$nspid/root$E2E_TMP/nsmnt/50-secret.conf" ]; } && break
	sleep 0.1
done
expect_false "the user cannot read the root process's cwd" \
	as "$v" cat "/proc/$cwdpid/cwd/50-secret.conf"

reset_home
ln -s "/proc/$cwdpid/cwd/50-secret.conf" "$ud/80-cwd.conf"
chown -h "$v:" "$ud/80-cwd.conf"
check_case "a file through /proc/PID/cwd of a root process" yes

if [ -n "$nspid" ] && [ -e "/proc/$nspid/root$E2E_TMP/nsmnt/50-secret.conf" ]; then
	reset_home
	ln -s "/proc/$nspid/root$E2E_TMP/nsmnt/50-secret.conf" "$ud/81-ns.conf"
	chown -h "$v:" "$ud/81-ns.conf"
	check_case "a file through /proc/PID/root into another mount namespace" yes
else
	echo "note: no private mount namespace (unshare), /proc/PID/root case not run"
fi

reset_home
rm -rf "$ud" && ln -s "/proc/$cwdpid/cwd" "$ud" && chown -h "$v:" "$ud"
check_case "the user directory a link to /proc/PID/cwd" no

if [ -n "$nspid" ] && [ -e "/proc/$nspid/root$E2E_TMP/nsmnt/50-secret.conf" ]; then
	reset_home
	rm -rf "$ud" && ln -s "/proc/$nspid/root$E2E_TMP/nsmnt" "$ud" && chown -h "$v:" "$ud"
	check_case "the user directory a link into another mount namespace" no
fi

# envd run by root for the user reads with the same window
if [ -x "${ENVD:-}" ]; then
	"$ENVD" show "$v" >"$E2E_TMP/envd-proc.out" 2>&1
	rm -rf "$ud" && mkdir -p "$ud" && chown "$v:" "$ud"
	ln -s "/proc/$cwdpid/cwd/50-secret.conf" "$ud/80-cwd.conf" && chown -h "$v:" "$ud/80-cwd.conf"
	"$ENVD" show "$v" >>"$E2E_TMP/envd-proc.out" 2>&1
	expect_false "envd show as root: nothing through /proc/PID/cwd" \
		grep -q "$SECRET" "$E2E_TMP/envd-proc.out"
fi

# --- files that could block or never end -----------------------------------
reset_home
as "$v" mkfifo "$ud/30-fifo.conf"
as "$v" /usr/bin/python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" \
	"$ud/31-socket.conf" 2>/dev/null || true
mknod "$ud/32-zero-dev.conf" c 1 5 && chown "$v:" "$ud/32-zero-dev.conf"
for d in /dev/zero /dev/urandom /dev/tty /dev/console /dev/ptmx; do
	as "$v" ln -s "$d" "$ud/33$(echo "$d" | tr / _).conf"
done
as "$v" truncate -s 200M "$ud/34-sparse-huge.conf"
as "$v" sh -c "head -c 3000000 /dev/zero | tr '\\0' 'A' >'$ud/35-big.conf'"
check_case "FIFO, socket, devices, huge files" yes

reset_home
as "$v" /usr/bin/python3 - "$ud" <<'EOF'
import sys
d = sys.argv[1]
for i in range(10000):
    with open(f"{d}/f{i:05d}.conf", "w") as f:
        f.write(f"MANY_{i}={i}\n")
EOF
check_case "ten thousand files" yes

reset_home
as "$v" sh -c "head -c 200000 /dev/urandom >'$ud/40-garbage.conf'"
as "$v" sh -c "printf 'A=1\\0B=2\\n' >'$ud/41-nul.conf'"
as "$v" sh -c "printf 'BADUTF=\\377\\376$SECRET\\n' >'$ud/42-badutf.conf'"
as "$v" sh -c "printf 'CR=1\\rCR2=2\\r' >'$ud/43-cr.conf'"
as "$v" sh -c "{ echo X=xxxxxxxx; for i in \$(seq 1 300); do echo 'X=\$X\$X\$X\$X'; done; \
	printf 'Y=%s\\n' \"\$(yes '\${Y:-' | head -n 5000 | tr -d '\\n')\"; } >'$ud/44-expand.conf'"
check_case "garbage, NUL, invalid UTF-8, CR, exploding expansions" yes
expect_eq "CR-only line ends work" "$(getvar "$(record "$v")" CR2)" 2

# --- code that would run as root in the helper ------------------------------
reset_home
if ${CC:-cc} -shared -fPIC -o "$vh/evil.so" -x c - 2>/dev/null <<EOF
#include <fcntl.h>
__attribute__((constructor)) static void f(void) { creat("$E2E_TMP/pwned/ld_preload", 0600); }
EOF
then :; else echo "note: no compiler, LD_PRELOAD payload is a plain path"; fi
printf '#!/bin/sh\ntouch %s/pwned/bash_env\n' "$E2E_TMP" >"$vh/evil.sh"
chmod 755 "$vh/evil.sh"
chown "$v:" "$vh/evil.so" "$vh/evil.sh" 2>/dev/null
cat >"$ud/60-evil.conf" <<EOF
LD_PRELOAD=$vh/evil.so
LD_LIBRARY_PATH=$vh
BASH_ENV=$vh/evil.sh
ENV=$vh/evil.sh
SHELLOPTS=xtrace
PS4=\$(touch $E2E_TMP/pwned/ps4)
BASH_FUNC_env%%=() { touch $E2E_TMP/pwned/func; }
GCONV_PATH=$vh
XDG_SESSION_TYPE=x11
XDG_SEAT=seat0
XDG_VTNR=1
XDG_SESSION_CLASS=greeter
XDG_RUNTIME_DIR=$vh
PAM_USER=root
PAM_SERVICE=sshd
GIT_DIR=$vh/repo
TZ=:$vh/fifo
EOF
chown "$v:" "$ud/60-evil.conf"
check_case "LD_PRELOAD, BASH_ENV and session identity in a user file" yes
r=$(record "$v")
for n in LD_PRELOAD LD_LIBRARY_PATH BASH_ENV ENV SHELLOPTS PS4 GCONV_PATH XDG_SESSION_TYPE \
	XDG_SEAT XDG_VTNR XDG_SESSION_CLASS XDG_RUNTIME_DIR GIT_DIR TZ; do
	expect_false "$n never reaches the helper" hasvar "$r" "$n"
done
# pam_exec appends its own PAM_* after the PAM environment: the first copy
# is what getenv finds
expect_eq "the helper's first PAM_USER is pam_exec's" "$(getvar "$r" PAM_USER)" "$v"
expect_eq "the helper's first PAM_SERVICE is pam_exec's" "$(getvar "$r" PAM_SERVICE)" "$svc"
[ -z "$E2E_SHIM" ] || expect_true "refusals are logged" grep -q "60-evil.conf:1: LD_PRELOAD" "$E2E_LOG"

# --- homes and directories that are not what they should be -------------
reset_home
rm -rf "$vh"
check_case "missing home" no

reset_home
chmod 000 "$vh"
check_case "unreadable home" no
chmod 755 "$vh"

reset_home
rm -rf "$vh" && echo "GOOD_V=1" >"$vh" && chown "$v:" "$vh"
check_case "home is a regular file" no
rm -f "$vh"

reset_home
rm -rf "$ud" && echo "GOOD_V=1" >"$ud" && chown "$v:" "$ud"
check_case "user directory is a regular file" no

check_case "user missing from passwd" no "pe$$-nosuchuser"

# --- other users ----------------------------------------------------------------
reset_home
chmod 777 "$ud"
echo "FROM_OTHER=1" >"$ud/70-other.conf" && chown "$o:" "$ud/70-other.conf"
check_case "world-writable user directory" no

reset_home
chmod 775 "$ud" && chgrp "$o" "$ud"
echo "FROM_OTHER=1" >"$ud/70-other.conf" && chown "$o:" "$ud/70-other.conf"
check_case "group-writable user directory" no

reset_home
echo "FROM_OTHER=1" >"$ud/70-other.conf" && chown "$o:" "$ud/70-other.conf"
echo "FROM_OTHER=1" >"$ud/71-writable.conf" && chown "$v:" "$ud/71-writable.conf" &&
	chmod 666 "$ud/71-writable.conf"
check_case "files owned by another user or writable by all" yes

reset_home
rm -rf "$vh/.config"
chmod 777 "$vh"
mkdir -p "$vh/.config/environment.d"
echo "FROM_OTHER=1" >"$vh/.config/environment.d/70-other.conf"
chown -R "$o:" "$vh/.config"
check_case "world-writable home, .config planted by another user" no
chmod 755 "$vh"

# a root-owned sticky, world-writable ~/.config: another user plants the
# environment.d link (to a directory of the victim's that passes every
# check).  The kernel refuses such a link only with fs.protected_symlinks=1;
# the module applies that rule itself, so the sysctl is off for this case.
ps=/proc/sys/fs/protected_symlinks
ps_old=$(cat "$ps" 2>/dev/null)
echo "$ps_old" >"$E2E_TMP/protected_symlinks" # e2e_cleanup restores it
if [ -n "$ps_old" ] && echo 0 >"$ps" 2>/dev/null; then
	reset_home
	mkdir -p "$vh/other" && echo "FROM_OTHER=1" >"$vh/other/70-other.conf"
	chown -R "$v:" "$vh/other"
	rm -rf "$ud" && chown root: "$vh/.config" && chmod 1777 "$vh/.config"
	as "$o" ln -s "$vh/other" "$ud"
	check_case "a link planted in a sticky world-writable .config" no
	echo "$ps_old" >"$ps"
else
	echo "note: cannot set fs.protected_symlinks, planted-link case not run"
fi

reset_home
mkdir -p "$oh/env.d" && echo "FROM_OTHER=1" >"$oh/env.d/70-other.conf"
chown -R "$o:" "$oh/env.d"
chmod 755 "$oh" "$oh/env.d"
rm -rf "$ud" && ln -s "$oh/env.d" "$ud" && chown -h "$v:" "$ud"
check_case "user directory a symlink to another user's directory" no

e2e_finish
