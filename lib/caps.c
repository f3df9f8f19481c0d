/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* caps.c - the calling thread's effective capabilities, off for a window.
 *
 * A root process whose fsuid is the user's is not yet the user: it keeps
 * root's effective capabilities except the file-system ones the kernel
 * clears with the fsuid.  CAP_SYS_PTRACE among them lets it follow
 * /proc/PID/cwd and /proc/PID/root of any process, into root-only
 * directories and other mount namespaces (SECURITY.md).  The privilege
 * windows of the module and of envd therefore clear the effective set while
 * they read a user's files, and put it back afterwards.
 *
 * Capabilities belong to a thread: this changes the caller's only.  The
 * kernel interface is used directly, through syscall(2): no C library has a
 * header for capget/capset (musl none at all), and libcap would be one more
 * library for two system calls. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"

/* <linux/capability.h>, version 3: two 32-bit words per set. */
#define CAP_VERSION_3 0x20080522u

struct cap_header {
	uint32_t version;
	int pid; /* 0: the calling thread */
};

struct cap_data {
	uint32_t effective, permitted, inheritable;
};

static int cap_get(struct cap_data d[2])
{
	struct cap_header h = {.version = CAP_VERSION_3, .pid = 0};

	/* valgrind 3.19 knows capget to write one record of the two */
	memset(d, 0, 2 * sizeof(*d));

	return syscall(SYS_capget, &h, d) == 0 ? 0 : -errno;
}

/* Sets the effective set to e and checks the kernel's answer. */
static int cap_set_effective(const uint32_t e[2])
{
	struct cap_header h = {.version = CAP_VERSION_3, .pid = 0};
	struct cap_data d[2];
	int r = cap_get(d);

	if (r < 0)
		return r;
	d[0].effective = e[0];
	d[1].effective = e[1];
	if (syscall(SYS_capset, &h, d) != 0)
		return -errno;
	r = cap_get(d);
	if (r < 0)
		return r;
	return d[0].effective == e[0] && d[1].effective == e[1] ? 0 : -EPERM;
}

int envd_caps_clear(struct envd_caps *saved)
{
	static const uint32_t none[2] = {0, 0};
	struct cap_data d[2];
	int r = cap_get(d);

	if (r < 0)
		return r;
	saved->effective[0] = d[0].effective;
	saved->effective[1] = d[1].effective;
	r = cap_set_effective(none);
	if (r < 0)
		(void)cap_set_effective(saved->effective); /* as it was, if it can be */
	return r;
}

int envd_caps_restore(const struct envd_caps *saved)
{
	return cap_set_effective(saved->effective);
}
