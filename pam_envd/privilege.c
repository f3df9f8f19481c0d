/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * privilege.c - the window in which pam_envd touches a user's files.
 *
 * SECURITY.md has the threat model and the rules; this file keeps the one
 * about identity: nothing of the user directory is stat'ed, opened or read
 * with more than the user's own rights.  The engine calls pe_priv_enter()
 * before its first access to the user directory and pe_priv_leave() after
 * its last, once per load.  enter takes the process's window lock, switches
 * fsuid/fsgid and the supplementary groups to the user's
 * (pam_modutil_drop_priv), clears the thread's effective capabilities
 * (lib/caps.c), and verifies all of it from the kernel's answers; if
 * anything is off, the user side is skipped, never read as root.  leave
 * undoes it in the reverse order and verifies again; if root's identity
 * cannot be restored, the load fails with -EPERM and the module fails the
 * session (a process half the user and half root must not run the rest of
 * the stack).
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/fsuid.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_ext.h>

#include "module.h"

void pe_priv_init(struct pe_priv *priv, pam_handle_t *pamh, const struct passwd *pw, bool debug)
{
	priv->pamh = pamh;
	priv->pw = pw;
	priv->debug = debug;
	priv->dropped = false;
	priv->broken = false;
	priv->caps_cleared = false;
}

/* setfsuid/setfsgid with an invalid id change nothing and return the current
 * value: the only way to ask the kernel what they are. */
static uid_t current_fsuid(void)
{
	return (uid_t)setfsuid((uid_t)-1);
}

static gid_t current_fsgid(void)
{
	return (gid_t)setfsgid((gid_t)-1);
}

static bool was_roots(const struct pe_priv *priv, gid_t g)
{
	if (priv->ngroups_before > PE_SAVED_GROUPS)
		return true; /* not remembered: assume the worst */
	for (int i = 0; i < priv->ngroups_before; i++)
		if (priv->groups_before[i] == g)
			return true;
	return false;
}

/* Whether the user is a member of g; any doubt is a no. */
static bool user_in_group(const struct passwd *pw, gid_t g)
{
	gid_t list[256];
	int n = (int)(sizeof(list) / sizeof(list[0]));

	if (getgrouplist(pw->pw_name, pw->pw_gid, list, &n) < 0)
		return false;
	for (int i = 0; i < n; i++)
		if (list[i] == g)
			return true;
	return false;
}

/* True when none of root's supplementary groups travels with the user's
 * fsuid (CVE-2010-3430).  pam_modutil_drop_priv sets the user's own groups
 * with initgroups, or clears the list when that fails (Linux-PAM 1.5.2 and
 * 1.7.0, libpam/pam_modutil_priv.c); 1.4.0 always clears it.  A group root
 * also had may stay only when the user is a member of it as well. */
static bool groups_dropped(const struct pe_priv *priv)
{
	gid_t few[PE_SAVED_GROUPS], *now = few;
	int n = getgroups(0, NULL);
	bool ok;

	if (n <= 0)
		return n == 0;
	/* most users are in a handful of groups: the heap only for many */
	if (n > PE_SAVED_GROUPS) {
		now = calloc((size_t)n, sizeof(*now));
		if (now == NULL)
			return false;
	}
	n = getgroups(n, now);
	ok = n >= 0;
	for (int i = 0; ok && i < n; i++)
		if (now[i] != priv->pw->pw_gid && was_roots(priv, now[i]))
			ok = user_in_group(priv->pw, now[i]);
	if (now != few)
		free(now);
	return ok;
}

/* The supplementary groups are back to what they were before enter. */
static bool groups_restored(const struct pe_priv *priv)
{
	gid_t now[PE_SAVED_GROUPS];
	int n = getgroups(0, NULL);

	if (n != priv->ngroups_before)
		return false;
	if (n > PE_SAVED_GROUPS)
		return true; /* not remembered: the count has to do */
	if (getgroups(n, now) != n)
		return false;
	for (int i = 0; i < n; i++)
		if (now[i] != priv->groups_before[i])
			return false;
	return true;
}

/* True when the process now has exactly the user's file-system identity, or
 * when there was nothing to switch (not root, or the user is root). */
static bool switched(const struct pe_priv *priv)
{
	const struct passwd *pw = priv->pw;

	if (geteuid() != 0 || pw->pw_uid == 0)
		return true;
	return current_fsuid() == pw->pw_uid && current_fsgid() == pw->pw_gid &&
	       groups_dropped(priv);
}

/* One window at a time in the process.  glibc's setgroups, which
 * pam_modutil_drop_priv calls, changes the groups of every thread, while
 * setfsuid/setfsgid and the capabilities change the calling thread only:
 * two windows at once would switch each other's groups and restore the
 * wrong list.  The wait is bounded, so that a process forked while another
 * thread held the lock, or a user directory on a hung file system, cannot
 * hold every other login: after it, the user's files are skipped. */
static pthread_mutex_t window_lock = PTHREAD_MUTEX_INITIALIZER;

static bool window_lock_take(const struct pe_priv *priv)
{
	struct timespec until;
	int r;

	if (clock_gettime(CLOCK_REALTIME, &until) != 0)
		return false;
	until.tv_sec += PE_WINDOW_WAIT_SECONDS;
	do
		r = pthread_mutex_timedlock(&window_lock, &until);
	while (r == EINTR);
	if (r != 0)
		pam_syslog(priv->pamh, LOG_ERR,
		           "another thread's privilege window did not end in %d s; "
		           "the user's files are skipped",
		           PE_WINDOW_WAIT_SECONDS);
	return r == 0;
}

/* Back to root's identity: capabilities first, since regaining the groups
 * needs CAP_SETGID.  Any doubt leaves the process marked broken. */
static int leave_locked(struct pe_priv *priv)
{
	bool caps_ok = !priv->caps_cleared || envd_caps_restore(&priv->caps) == 0;
	bool regained = pam_modutil_regain_priv(priv->pamh, &priv->privs) == 0;

	priv->dropped = false;
	priv->caps_cleared = false;
	if (!caps_ok || !regained || current_fsuid() != priv->fsuid_before ||
	    current_fsgid() != priv->fsgid_before || !groups_restored(priv)) {
		priv->broken = true;
		pam_syslog(priv->pamh, LOG_CRIT,
		           "cannot restore privileges after reading "
		           "the user's files");
		return -1;
	}
	return 0;
}

static int enter_locked(struct pe_priv *priv)
{
	/* pam_modutil_regain_priv releases the group list, so every window
	 * starts from a fresh state. */
	priv->privs = (struct pam_modutil_privs){.grplist = priv->grplist,
	                                         .number_of_groups = PAM_MODUTIL_NGROUPS,
	                                         .allocated = 0,
	                                         .old_gid = (gid_t)-1,
	                                         .old_uid = (uid_t)-1,
	                                         .is_dropped = 0};
	priv->fsuid_before = current_fsuid();
	priv->fsgid_before = current_fsgid();
	priv->ngroups_before = getgroups(0, NULL);
	if (priv->ngroups_before < 0 ||
	    (priv->ngroups_before <= PE_SAVED_GROUPS &&
	     getgroups(priv->ngroups_before, priv->groups_before) != priv->ngroups_before)) {
		pam_syslog(priv->pamh, LOG_ERR,
		           "cannot read the supplementary groups; "
		           "the user's files are skipped");
		return -1;
	}
	if (pam_modutil_drop_priv(priv->pamh, &priv->privs, priv->pw) != 0) {
		/* libpam undoes a half-made switch without checking that the
		 * undoing worked: if it did not, fail closed */
		if (current_fsuid() != priv->fsuid_before ||
		    current_fsgid() != priv->fsgid_before || !groups_restored(priv)) {
			priv->broken = true;
			pam_syslog(priv->pamh, LOG_CRIT,
			           "switching to the user's identity failed half-way; "
			           "failing the session");
			return -1;
		}
		pam_syslog(priv->pamh, LOG_ERR,
		           "cannot switch to the user's identity; "
		           "the user's files are skipped");
		return -1;
	}
	priv->dropped = true;
	/* after the switch: setfsuid and setgroups need CAP_SETUID/SETGID */
	priv->caps_cleared = envd_caps_clear(&priv->caps) == 0;
	if (!priv->caps_cleared || !switched(priv)) {
		pam_syslog(priv->pamh, LOG_CRIT,
		           "identity switch did not take effect; "
		           "the user's files are skipped");
		(void)leave_locked(priv);
		return -1;
	}
	if (priv->debug)
		pam_syslog(priv->pamh, LOG_DEBUG, "reading the user's files as uid %lu",
		           (unsigned long)priv->pw->pw_uid);
	return 0;
}

int pe_priv_enter(void *data)
{
	struct pe_priv *priv = data;

	if (priv->dropped || priv->broken || priv->pw == NULL)
		return -1;
	if (!window_lock_take(priv))
		return -1;
	if (enter_locked(priv) != 0) {
		pthread_mutex_unlock(&window_lock);
		return -1;
	}
	return 0;
}

int pe_priv_leave(void *data)
{
	struct pe_priv *priv = data;
	int rc;

	if (!priv->dropped)
		return priv->broken ? -1 : 0;
	/* released also when broken: the session fails, and a lock held for
	 * good would only cost every later login of the process its wait */
	rc = leave_locked(priv);
	pthread_mutex_unlock(&window_lock);
	return rc;
}

int pe_priv_finish(struct pe_priv *priv)
{
	if (priv->dropped) {
		/* The engine promised to call leave; do not rely on it. */
		pam_syslog(priv->pamh, LOG_ERR, "privileges still dropped after loading");
		(void)pe_priv_leave(priv);
	}
	return priv->broken ? -1 : 0;
}
