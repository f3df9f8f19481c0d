# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# Fault injection (tests/fault/): a test copy of the module, linked with
# --wrap for every allocation, system call and PAM call that the load and
# open_session make, and a driver that fails each of those calls in turn
# through real libpam and checks return codes, leaks, the process identity
# and the PAM environment.  The __wrap_* functions live in the driver,
# which exports them to the module it loads.
fault_wrap_ldflags = \
	-Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc -Wl,--wrap=reallocarray \
	-Wl,--wrap=strndup -Wl,--wrap=free \
	-Wl,--wrap=open -Wl,--wrap=open64 -Wl,--wrap=__open_2 \
	-Wl,--wrap=openat -Wl,--wrap=openat64 -Wl,--wrap=__openat_2 \
	-Wl,--wrap=read -Wl,--wrap=__read_chk \
	-Wl,--wrap=fstat -Wl,--wrap=fstat64 -Wl,--wrap=fstatat -Wl,--wrap=fstatat64 \
	-Wl,--wrap=fstatfs -Wl,--wrap=fstatfs64 -Wl,--wrap=close \
	-Wl,--wrap=fdopendir -Wl,--wrap=readdir -Wl,--wrap=closedir -Wl,--wrap=syscall \
	-Wl,--wrap=getgrouplist -Wl,--wrap=getgrnam_r -Wl,--wrap=getrandom -Wl,--wrap=clock_gettime \
	-Wl,--wrap=readlinkat -Wl,--wrap=pipe2 -Wl,--wrap=fork -Wl,--wrap=poll \
	-Wl,--wrap=dup2 -Wl,--wrap=fcntl \
	-Wl,--wrap=getgroups -Wl,--wrap=setgroups -Wl,--wrap=setresuid -Wl,--wrap=setresgid \
	-Wl,--wrap=pam_get_item -Wl,--wrap=pam_get_data -Wl,--wrap=pam_set_data \
	-Wl,--wrap=pam_getenvlist -Wl,--wrap=pam_getenv -Wl,--wrap=pam_putenv -Wl,--wrap=pam_modutil_getpwnam

# No version script: the driver takes envd_load from it too.  No
# -no-undefined: the __wrap_* symbols come from the driver.  Built with the
# module only (configure --disable-module may lack the PAM headers).
if BUILD_MODULE
check_LTLIBRARIES += tests/fault/pam_envd_fault.la
check_PROGRAMS += tests/fault/driver
TESTS += tests/fault/fault.sh
endif
tests_fault_pam_envd_fault_la_SOURCES = \
	pam_envd/module.h \
	pam_envd/pam_envd.c \
	pam_envd/options.c \
	pam_envd/log.c
tests_fault_pam_envd_fault_la_CPPFLAGS = $(AM_CPPFLAGS)
tests_fault_pam_envd_fault_la_LIBADD = lib/libenvd.la $(PAM_LIBS)
tests_fault_pam_envd_fault_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version -shared \
	-rpath /nowhere $(fault_wrap_ldflags)

tests_fault_driver_SOURCES = tests/fault/driver.c tests/fault/wrap.c tests/fault/fault.h \
	tests/lib/pamtest.c tests/lib/pamtest.h tests/lib/testfs.c \
	tests/lib/testfs.h
tests_fault_driver_CPPFLAGS = $(test_cppflags) \
	-DFAULT_SO='"$(abs_top_builddir)/tests/fault/.libs/pam_envd_fault.so"'
tests_fault_driver_LDADD = $(PAM_LIBS) -ldl
tests_fault_driver_LDFLAGS = $(AM_LDFLAGS) -Wl,--export-dynamic
EXTRA_tests_fault_driver_DEPENDENCIES = tests/fault/pam_envd_fault.la

# fault.sh checks that no fallible call escapes the wrappers, then runs the driver.
dist_check_SCRIPTS += tests/fault/fault.sh
