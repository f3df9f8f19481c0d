/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* floor_helper.c - the floor's reader: the least an exec'd reader does.
 *
 * bench/pam_floor.c starts this program as pam_envd starts its reader
 * (helper/reader.c): cloned with the parent held until the exec, exec'd
 * through a descriptor, its request on 0 and its answer on 1.  It reads
 * the request to its end (the user's uid, gid and groups: uint32_t each,
 * in that order after the count of groups), takes the user's credentials
 * in full (setgroups, setresgid, setresuid) and answers one byte: 'y', or
 * 'n' when a switch failed.  Nothing else: no look-up, no file read.  The
 * signal mask it was exec'd with (everything blocked, around the clone)
 * is emptied first.  A measuring stick for bench/run.py, not a program
 * to install.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

#define FLOOR_MAX_GROUPS 65536

static uint32_t req[3 + FLOOR_MAX_GROUPS];

/* The switch, a function of its own: under callgrind the bench dumps the
 * profile before it (--dump-before=floor_switch), since the file that
 * callgrind made as root when this program started cannot be written
 * once it is the user (bench/benchlib.py's ir_of). */
__attribute__((noinline)) int floor_switch(const gid_t *groups, size_t n);
__attribute__((noinline)) int floor_switch(const gid_t *groups, size_t n)
{
	return setgroups(n, groups) == 0 && setresgid(req[1], req[1], req[1]) == 0 &&
	       setresuid(req[0], req[0], req[0]) == 0;
}

int main(void)
{
	gid_t groups[FLOOR_MAX_GROUPS];
	size_t got = 0, n;
	sigset_t none;
	ssize_t r;
	char c = 'n';

	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	while (got < sizeof(req) && (r = read(0, (char *)req + got, sizeof(req) - got)) > 0)
		got += (size_t)r;
	if (got >= 3 * sizeof(uint32_t) && req[2] <= FLOOR_MAX_GROUPS &&
	    got == (3 + (size_t)req[2]) * sizeof(uint32_t)) {
		n = req[2];
		for (size_t i = 0; i < n; i++)
			groups[i] = (gid_t)req[3 + i];
		if (floor_switch(groups, n))
			c = 'y';
	}
	(void)!write(1, &c, 1);
	_exit(c == 'y' ? 0 : 1);
}
