#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# e2e_child.sh - the reader of the user's files is a child process that is
# the user (lib/child.c), seen from the hosts it runs in (root only).
#
# tests/pam/pam_host is a PAM application written as real hosts are: with
# a SIGCHLD handler that reaps every child (sshd, display managers), with
# SIGCHLD ignored, with a child of its own whose status it must still get,
# without CAP_DAC_OVERRIDE in its effective set.  Then homes: on a FUSE file
# system the user mounted without allow_other (root cannot enter it,
# systemd's user manager can), on one that never answers a read (the login
# goes on within the time bound), unreadable, missing and huge; and
# user-private groups with umask 002 (group write accepted only for a
# group no other account has).

. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/e2e_lib.sh"
e2e_init
host=$top_builddir/tests/pam/pam_host
fusefs=$top_builddir/tests/lib/fusefs
[ -x "$host" ] || { echo "FAIL: $host not built"; exit 1; }
BOUND_MS=3000 # ENVD_MAX_USER_MS

echo "SYS_CHILD=1" >"$E2E_TMP/sys/usr/lib/environment.d/50-sys.conf"
svc=$(e2e_service child <<EOF
auth     required pam_permit.so
account  required pam_permit.so
session  required $MOD system_dirs=$SYSDIRS
EOF
)

# run_host USER ARG...: the host's report in $E2E_TMP/host.out
run_host() {
	env ${PRELOAD:+LD_PRELOAD="$PRELOAD"} E2E_SYSLOG="$E2E_LOG" \
		timeout -k 5 60 "$host" "$svc" "$@" >"$E2E_TMP/host.out" 2>&1
}
val() { sed -n "s/^$1=//p" "$E2E_TMP/host.out" | head -n 1; }
penv() { sed -n "s/^env $1=//p" "$E2E_TMP/host.out" | head -n 1; }
user_conf() { # USER FILE TEXT: a file in USER's environment.d, as USER
	local d
	d=$(home_of "$1")/.config/environment.d
	as "$1" mkdir -p "$d"
	as "$1" sh -c "printf '%s\n' '$3' >'$d/$2'"
}

u=$(e2e_user c)
user_conf "$u" 10-child.conf CHILD_USER=yes

# --- hosts and their children ------------------------------------------------
run_host "$u" sigchld=reap own-child
expect_eq "SIGCHLD handler reaping all: session opens" "$(val rc)" 0
expect_eq "SIGCHLD handler reaping all: the user's files read" "$(penv CHILD_USER)" yes
expect_eq "SIGCHLD handler reaping all: the host gets its own child's status" "$(val own)" 7
expect_eq "SIGCHLD handler reaping all: no child of the module left" "$(val children)" 0
run_host "$u" sigchld=ignore own-child
expect_eq "SIGCHLD ignored: session opens" "$(val rc)" 0
expect_eq "SIGCHLD ignored: the user's files read" "$(penv CHILD_USER)" yes
expect_eq "SIGCHLD ignored: the host's own child reaped by the kernel" "$(val own)" reaped-by-kernel
expect_eq "SIGCHLD ignored: no child left" "$(val children)" 0
run_host "$u" own-child
expect_eq "SIGCHLD default: the host's waitpid gets its own child's status" "$(val own)" 7
expect_eq "SIGCHLD default: the user's files read" "$(penv CHILD_USER)" yes
expect_eq "SIGCHLD default: no child, no zombie left" "$(val children)" 0
run_host "$u" drop-dac
expect_eq "a host without CAP_DAC_OVERRIDE: before" "$(val dac-before)" 0
expect_eq "a host without CAP_DAC_OVERRIDE leaves without it" "$(val dac-after)" 0
expect_eq "a host without CAP_DAC_OVERRIDE: the user's files read" "$(penv CHILD_USER)" yes

# --- hosts the reader must not disturb ----------------------------------------
# a subreaper host (a service manager, a container's init): nothing of the
# module's is ever orphaned into it
run_host "$u" subreaper own-child
expect_eq "a subreaper host: session opens" "$(val rc)" 0
expect_eq "a subreaper host: the user's files read" "$(penv CHILD_USER)" yes
expect_eq "a subreaper host: its own child's status" "$(val own)" 7
expect_eq "a subreaper host: no child, no zombie left" "$(val children)" 0
# PID 1 of a PID namespace, as a container's init that logs users in
if unshare --pid --fork --mount-proc true 2>/dev/null; then
	env ${PRELOAD:+LD_PRELOAD="$PRELOAD"} E2E_SYSLOG="$E2E_LOG" \
		timeout -k 5 60 unshare --pid --fork --mount-proc "$host" "$svc" "$u" own-child \
		>"$E2E_TMP/host.out" 2>&1
	expect_eq "PID 1 of a PID namespace: session opens" "$(val rc)" 0
	expect_eq "PID 1 of a PID namespace: the user's files read" "$(penv CHILD_USER)" yes
	expect_eq "PID 1 of a PID namespace: its own child's status" "$(val own)" 7
	expect_eq "PID 1 of a PID namespace: no child, no zombie left" "$(val children)" 0
else
	skip "PID 1 of a PID namespace: unshare --pid --fork --mount-proc cannot run here"
fi
# handlers of the host's, and signals to its process group all through the
# open: no handler runs in a process of the module's, and none of them
# ends the reader
run_host "$u" sigchld=reap storm
expect_eq "a signal storm on the host's group: session opens" "$(val rc)" 0
expect_eq "a signal storm: no handler of the host's ran in another process" "$(val foreign)" 0
expect_eq "a signal storm: the user's files read" "$(penv CHILD_USER)" yes
expect_eq "a signal storm: no child left" "$(val children)" 0
# a host descriptor above 65535 (or the highest the hard limit allows),
# not close-on-exec, with and without close_range: the reader still has
# none of the host's (a generator it runs lists what it was given)
gd=$E2E_TMP/sys/fdgen
mkdir -p "$gd"
cat >"$gd/10-fd" <<'EOF'
#!/bin/sh
echo "HOST_FDS=$(ls /proc/self/fd | tr '\n' ' ')"
EOF
chmod 755 "$gd" "$gd/10-fd"
svc_fd=$(e2e_service childfd <<EOF
session  required $MOD system_dirs=$SYSDIRS generators generator_dirs=$gd
EOF
)
run_host_svc() { # SERVICE USER ARG...
	local s=$1
	shift
	env ${PRELOAD:+LD_PRELOAD="$PRELOAD"} E2E_SYSLOG="$E2E_LOG" \
		timeout -k 5 60 "$host" "$s" "$@" >"$E2E_TMP/host.out" 2>&1
}
run_host_svc "$svc_fd" "$u" high-fd
hfd=$(val high-fd-at)
expect_eq "a host descriptor ($hfd): still the host's" "$(val high-fd)" open
expect_false "a host descriptor ($hfd): not the reader's" \
	grep -qw "$hfd" <<<"$(penv HOST_FDS)"
run_host_svc "$svc_fd" "$u" high-fd no-close-range
expect_eq "no close_range: the session opens" "$(val rc)" 0
expect_false "no close_range: a host descriptor ($hfd) is not the reader's" \
	grep -qw "$hfd" <<<"$(penv HOST_FDS)"
expect_eq "no close_range: the user's files read" "$(penv CHILD_USER)" yes
# where no hard limit above 65535 can be had (no CAP_SYS_RESOURCE), the
# descriptor is the highest the limit allows
[ "${hfd:-0}" -gt 65535 ] ||
	skip "a host descriptor above 65535: the hard limit of open files here is $((hfd + 1)), and cannot be raised"
# what opens the user's directory is a process of the reader program,
# exec'd, never a copy of the login (strace -ff, one file a process: the
# opener of ~/.config descends, below the host, from a process that
# exec'd the reader).  LeakSanitizer cannot run under ptrace: a sanitizer
# build's host would die at its exit without its output, so it is off for
# the two hosts traced here.
if have_cmds strace; then
	mkdir -p "$E2E_TMP/strace"
	strace -ff -qq -e trace=execve,execveat,clone,clone3,fork,vfork,openat \
		-o "$E2E_TMP/strace/p" env ${PRELOAD:+LD_PRELOAD="$PRELOAD"} E2E_SYSLOG="$E2E_LOG" \
		ASAN_OPTIONS=detect_leaks=0 \
		"$host" "$svc" "$u" >"$E2E_TMP/host.out" 2>&1
	expect_eq "under strace: the user's files read" "$(penv CHILD_USER)" yes
	expect_true "the process that opens ~/.config runs the exec'd reader, not a copy of the login" \
		python3 - "$E2E_TMP/strace" <<'PY'
import os, re, sys
d = sys.argv[1]
parent, execd, opener = {}, set(), None
pids = sorted(int(f.split('.')[-1]) for f in os.listdir(d))
for pid in pids:
    for line in open(os.path.join(d, 'p.%d' % pid)):
        c = re.match(r'(clone3?|v?fork)\(.*\)\s*=\s*(\d+)\s*$', line)
        if c:
            parent[int(c.group(2))] = pid
        if re.match(r'execveat\(.*"pam_envd-reader".*\)\s*=\s*0\s*$', line):
            execd.add(pid)
        if opener is None and re.match(r'openat\(\d+, "\.config"', line):
            opener = pid
p = opener
while p is not None:
    if p in execd:
        sys.exit(0)
    p = parent.get(p)
print("opener", opener, "exec'd", sorted(execd), "parents", parent)
sys.exit(1)
PY
fi
# --- the reader program, checked before it runs -----------------------------------
# missing: the system files apply, one line says which program
svc_noreader=$(e2e_service noreader <<EOF
session  required $MODULE system_dirs=$SYSDIRS reader=$E2E_TMP/no-such/reader
EOF
)
: >"$E2E_LOG"
run_host_svc "$svc_noreader" "$u"
expect_eq "a missing reader: session opens" "$(val rc)" 0
expect_eq "a missing reader: the system files apply" "$(penv SYS_CHILD)" 1
expect_eq "a missing reader: nothing of the user's" "$(penv CHILD_USER)" ""
[ -z "$E2E_SHIM" ] || expect_eq "a missing reader: one line says so" \
	"$(grep -c "the reader program $E2E_TMP/no-such/reader is missing" "$E2E_LOG")" 1
# a copy that others may write, or that is not root's: refused, never run
if [ -n "$E2E_READER" ]; then
	mkdir -p "$E2E_TMP/readers" && chmod 755 "$E2E_TMP/readers"
	cp "$E2E_READER" "$E2E_TMP/readers/writable" && chmod 775 "$E2E_TMP/readers/writable"
	cp "$E2E_READER" "$E2E_TMP/readers/users" && chown "$u" "$E2E_TMP/readers/users"
	for r in writable users; do
		svc_r=$(e2e_service "reader-$r" <<EOF
session  required $MODULE system_dirs=$SYSDIRS reader=$E2E_TMP/readers/$r
EOF
)
		: >"$E2E_LOG"
		run_host_svc "$svc_r" "$u"
		expect_eq "a reader $r: session opens" "$(val rc)" 0
		expect_eq "a reader $r: not run, nothing of the user's" "$(penv CHILD_USER)" ""
		expect_eq "a reader $r: the system files apply" "$(penv SYS_CHILD)" 1
		[ -z "$E2E_SHIM" ] || expect_true "a reader $r: said refused" \
			grep -q "the reader program $E2E_TMP/readers/$r is refused" "$E2E_LOG"
	done
fi

# --- user-private groups (umask 002) -------------------------------------------
# useradd makes a group of the user's own (USERGROUPS_ENAB); with umask 002
# the directory is 0775 and the file 0664, as on Fedora and RHEL.
p=$(e2e_user p)
pg=$(id -gn "$p")
pd=$(home_of "$p")/.config/environment.d
as "$p" sh -c "umask 002 && mkdir -p '$pd' && printf 'UPG=yes\n' >'$pd/10-upg.conf'"
expect_eq "umask 002 made a group-writable directory" "$(stat -c %a "$pd")" 775
run_host "$p"
expect_eq "user-private group, group-writable files: read" "$(penv UPG)" yes
# the login process asks NSS nothing: the user, the groups and whether the
# group is private are decided by the reader, within the bound (strace
# -ff: the host's own process opens neither /etc/passwd nor /etc/group)
if have_cmds strace; then
	rm -rf "$E2E_TMP/strace-nss" && mkdir -p "$E2E_TMP/strace-nss"
	strace -ff -qq -e trace=openat,connect -o "$E2E_TMP/strace-nss/p" \
		env ${PRELOAD:+LD_PRELOAD="$PRELOAD"} E2E_SYSLOG="$E2E_LOG" ASAN_OPTIONS=detect_leaks=0 \
		"$host" "$svc" "$p" >"$E2E_TMP/host.out" 2>&1
	expect_eq "under strace: the group-writable files read" "$(penv UPG)" yes
	hostp=$(ls "$E2E_TMP/strace-nss" | sort -t. -k2 -n | head -n 1)
	expect_false "the login process opens no account database (NSS runs in the reader)" \
		grep -E 'openat\(.*"/etc/(passwd|group)"' "$E2E_TMP/strace-nss/$hostp"
fi
q=$(e2e_user q)
usermod -aG "$pg" "$q"
: >"$E2E_LOG"
run_host "$p"
expect_eq "the group has another member: not read" "$(penv UPG)" ""
[ -z "$E2E_SHIM" ] || expect_true "the group has another member: logged" \
	grep -q "not the owner's private group" "$E2E_LOG"
expect_eq "the group has another member: the system files apply" "$(penv SYS_CHILD)" 1
gpasswd -d "$q" "$pg" >/dev/null
qg=$(id -gn "$q")
usermod -g "$pg" "$q"
run_host "$p"
expect_eq "another account's primary group: not read" "$(penv UPG)" ""
usermod -g "$qg" "$q"
run_host "$p"
expect_eq "the group private again: read" "$(penv UPG)" yes
as "$p" chmod 757 "$pd"
run_host "$p"
expect_eq "writable by others: never read" "$(penv UPG)" ""
as "$p" chmod 775 "$pd"

# --- POSIX ACLs: write an ACL grants is others' write --------------------------
# Another account given write by an ACL (a named user, a named group, or
# only the mask) on the file, the directory or its parent (~/.config, 0775
# by umask 002 and of the private group): the group bits are the ACL's
# mask, and the private group's exception must not let it through.
pf=$pd/10-upg.conf
pp=$(dirname "$pd")
if ! have_cmds setfacl || ! setfacl -m "u:$q:r" "$pf" 2>/dev/null || ! setfacl -b "$pf"; then
	skip "POSIX ACLs (no setfacl, or no ACLs on this file system)"
else
	expect_eq "the parent is group-writable (umask 002)" "$(stat -c %a "$pp")" 775
	for grant in "u:$q:rw" "g:$qg:w" "m::rw"; do
		for target in file dir parent; do
			case $target in
			file) path=$pf ;;
			dir) path=$pd ;;
			*) path=$pp ;;
			esac
			setfacl -m "$grant" "$path"
			run_host "$p"
			expect_eq "ACL ${grant%%:"$q"*} on the $target: not read" "$(penv UPG)" ""
			expect_eq "ACL on the $target: the system files apply" "$(penv SYS_CHILD)" 1
			setfacl -b "$path"
		done
	done
	run_host "$p"
	expect_eq "the ACLs removed: read again" "$(penv UPG)" yes
fi

# --- unreadable, missing and huge homes -------------------------------------------
h=$(home_of "$u")
chmod 000 "$h"
run_host "$u"
expect_eq "unreadable home: session opens" "$(val rc)" 0
expect_eq "unreadable home: the system files apply" "$(penv SYS_CHILD)" 1
expect_eq "unreadable home: nothing of the user's" "$(penv CHILD_USER)" ""
chmod 755 "$h"
usermod -d "$E2E_TMP/home/nowhere" "$u"
run_host "$u"
expect_eq "missing home: session opens" "$(val rc)" 0
expect_eq "missing home: the system files apply" "$(penv SYS_CHILD)" 1
usermod -d "$h" "$u"
as "$u" sh -c "cd '$h/.config/environment.d' && for i in \$(seq 1 5000); do echo \"H\$i=\$i\" >\"h\$i.conf\"; done && head -c 3000000 /dev/zero | tr '\\0' a | sed 's/^/BIG=/' >zz-big.conf"
run_host "$u"
expect_eq "huge home: session opens" "$(val rc)" 0
expect_true "huge home: within the bound" test "$(val ms)" -lt $((BOUND_MS + 2000))
expect_eq "huge home: the files within the limits read" "$(penv H1)" 1
expect_eq "huge home: the file over the size limit not read" "$(penv BIG)" ""
expect_eq "huge home: the system files apply" "$(penv SYS_CHILD)" 1
as "$u" sh -c "rm -f '$h/.config/environment.d'/h*.conf '$h/.config/environment.d/zz-big.conf'"

# --- homes on FUSE ---------------------------------------------------------------
if ! have_cmds fusermount3; then
	skip "homes on FUSE: $H_WHY"
	e2e_finish
fi
if [ ! -x "$fusefs" ] || [ ! -e /dev/fuse ]; then
	if [ "${CI:-}" = true ]; then
		fail "homes on FUSE: no $fusefs (configure found no fuse3: libfuse3-dev) or no /dev/fuse"
	else
		skip "homes on FUSE: no fusefs helper (libfuse3-dev) or no /dev/fuse"
	fi
	e2e_finish
fi
# libfuse mounts as the user: it opens /dev/fuse itself, and falls back to
# the setuid fusermount3 only when the node is missing.  fuse3's udev rule
# makes it 0666 on a desktop; without udev (a container, a build chroot) it
# stays 0600, so the test sets the mode for its run and puts it back.
if ! mode_for_run /dev/fuse 666; then
	skip "homes on FUSE: /dev/fuse's mode cannot be set for the run"
	e2e_finish
fi
f=$(e2e_user f)
fh=$(home_of "$f")
fpid=
fuse_stop() {
	# the server dies first: a reader waiting on its answer is let go
	[ -z "$fpid" ] || kill -9 "$fpid" 2>/dev/null
	[ -z "$fpid" ] || wait "$fpid" 2>/dev/null
	fpid=
	fusermount3 -uz "$fh" 2>/dev/null || umount -l "$fh" 2>/dev/null || true
}
at_exit fuse_stop
# fuse_start MODE: the user mounts fusefs over their own home (setpriv
# execs it: $! is the server's own pid, which fuse_stop kills)
fuse_start() {
	setpriv --reuid="$f" --regid="$(id -g "$f")" --init-groups -- \
		"$fusefs" "$1" "$fh" >"$E2E_TMP/fusefs.log" 2>&1 &
	fpid=$!
	for _ in $(seq 1 50); do
		grep -q " $fh fuse" /proc/mounts && return 0
		sleep 0.1
	done
	fail "fusefs $1 did not mount" "$(cat "$E2E_TMP/fusefs.log")"
	fuse_stop
	e2e_finish
}
fuse_start serve
expect_false "root cannot enter a FUSE home mounted without allow_other" ls "$fh/.config"
run_host "$f"
expect_eq "FUSE home: session opens" "$(val rc)" 0
expect_eq "FUSE home: read by the user's child, as systemd reads it" "$(penv FUSE_HOME)" yes
"$ENVD" show "$f" >"$E2E_TMP/show.out" 2>&1
expect_true "FUSE home: envd show USER as root reads it too" grep -qx FUSE_HOME=yes "$E2E_TMP/show.out"
fuse_stop

fuse_start hang
: >"$E2E_LOG"
run_host "$f" sigchld=reap own-child
expect_eq "FUSE home that never answers: session opens" "$(val rc)" 0
expect_true "FUSE home that never answers: within the bound ($(val ms) ms)" \
	test "$(val ms)" -lt $((BOUND_MS + 1500))
expect_eq "FUSE home that never answers: the system files apply" "$(penv SYS_CHILD)" 1
expect_eq "FUSE home that never answers: nothing of the user's" "$(penv FUSE_HOME)" ""
expect_eq "FUSE home that never answers: the host's own child's status" "$(val own)" 7
expect_eq "FUSE home that never answers: no child or zombie of the host" "$(val children)" 0
[ -z "$E2E_SHIM" ] || expect_true "FUSE home that never answers: logged once" \
	test "$(grep -c "took longer than $BOUND_MS ms" "$E2E_LOG")" = 1
# the next login of the same process kind is not held either
run_host "$u"
expect_eq "another user's login meanwhile: read" "$(penv CHILD_USER)" yes
fuse_stop
# with its server gone, the reader that waited on it ends: nothing of the
# test's user is left running
for _ in $(seq 1 50); do
	pgrep -u "$f" >/dev/null || break
	sleep 0.1
done
expect_false "the server gone, no process of the FUSE user is left" pgrep -u "$f"
e2e_finish
