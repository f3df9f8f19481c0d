#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# fault.sh - the fault-injection test (tests/fault/driver.c).
#
# First a guard: the test copy of the module must reach no fallible function
# except through a __wrap_* of the driver, else a newly used call would go
# untested without anyone noticing.  Then the driver.
set -u
: "${top_builddir:=.}"
so=$top_builddir/tests/fault/.libs/pam_envd_fault.so
driver=$top_builddir/tests/fault/driver

if [ ! -f "$so" ] || [ ! -x "$driver" ]; then
	echo "FAIL: $so or $driver not built"
	exit 1
fi

# Fallible functions of libc and libpam the module could come to call.
fallible='malloc calloc realloc reallocarray free strdup strndup __strdup __strndup
aligned_alloc posix_memalign memalign valloc asprintf vasprintf getline getdelim
open open64 __open_2 __open64_2 openat openat64 __openat_2 __openat64_2 creat fopen fdopen
opendir fdopendir readdir readdir64 readdir_r closedir scandir getdents getdents64 syscall
read __read_chk pread pread64
readv fstat fstat64 fstatat fstatat64 __fxstat __fxstat64 __fxstatat __fxstatat64 stat stat64
lstat lstat64 statx fstatfs fstatfs64 statfs statfs64 close dup dup2 dup3 fcntl fcntl64 mmap
realpath readlink readlinkat getgroups getgrouplist setgroups initgroups setfsuid setfsgid
setuid seteuid setreuid setresuid setgid setegid setregid setresgid getrandom getpwnam
getpwnam_r getpwuid getpwuid_r getgrnam getgrnam_r pam_get_item pam_set_item pam_get_user
pam_get_data pam_set_data pam_getenv pam_getenvlist pam_putenv pam_modutil_getpwnam
pam_modutil_getpwuid pam_modutil_getgrnam pam_modutil_getgrgid pam_modutil_drop_priv
pam_modutil_regain_priv pthread_mutex_lock pthread_mutex_timedlock pthread_mutex_trylock
clock_gettime capget capset openat2'

if command -v nm >/dev/null 2>&1; then
	report=$(nm -D --undefined-only "$so" | awk -v fallible="$fallible" '
		BEGIN { n = split(fallible, f, /[ \n]+/); for (i = 1; i <= n; i++) bad[f[i]] = 1 }
		{ sub(/@.*/, "", $NF); if ($NF == "__wrap_malloc") wrapped = 1; if ($NF in bad) out = out " " $NF }
		END { if (!wrapped) print "not linked with --wrap (no __wrap_malloc)"; else if (out != "") print "calls" out " without a fault wrapper (tests/fault/)" }')
	if [ -n "$report" ]; then
		echo "FAIL: $so $report"
		exit 1
	fi
	echo "guard: every fallible call of the module goes through a wrapper"
else
	echo "note: no nm, the wrapper guard is skipped"
fi

exec "$driver"
