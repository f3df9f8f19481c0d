/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * window.c - the privilege window in which a root process reads a user's
 * files, shared by pam_envd.so and envd.
 *
 * SECURITY.md has the threat model and the rules; this file keeps the one
 * about identity: nothing of the user's side is stat'ed, opened or read
 * with more than the user's own rights.  envd_load calls
 * envd_window_enter() before its first access to the user directory and
 * envd_window_leave() after its last.  enter takes the process's window
 * lock, switches fsuid/fsgid and the supplementary groups to the user's
 * through the caller's backend (pam_modutil_drop_priv in the module,
 * setgroups/setfsgid/setfsuid in envd), clears the thread's effective
 * capabilities (caps.c), and verifies all of it from the kernel's answers;
 * if anything is off, the user side is skipped, never read as root.  leave
 * undoes it in the reverse order and verifies again that root's identity,
 * groups and capabilities are back exactly; if they are not, the window is
 * broken: envd_load fails with -EPERM and the caller fails closed (a
 * process half the user and half root must not run on).
 *
 * One window at a time in the process.  glibc's setgroups changes the
 * groups of every thread, while setfsuid/setfsgid and the capabilities
 * change the calling thread only: two windows at once would switch each
 * other's groups and restore the wrong list.  The wait for the lock is
 * bounded, so that a process forked while another thread held it, or a
 * user directory on a hung file system, cannot hold every other login:
 * after it, the user's files are skipped.  The load itself bounds the time
 * it keeps the window open (envd_limits.window_ms) well below that wait.
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/fsuid.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

static pthread_mutex_t window_lock = PTHREAD_MUTEX_INITIALIZER;

static void say(const struct envd_window *w, enum envd_severity sev, bool fatal, const char *msg)
{
	if (w->report)
		w->report(sev, fatal, msg, w->report_data);
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

/* The process's supplementary groups in a malloc'd array.  Returns the
 * count, or -1 (errno set). */
static int groups_now(gid_t **out)
{
	int n = getgroups(0, NULL), got;
	gid_t *v;

	*out = NULL;
	if (n < 0)
		return -1;
	v = calloc(n > 0 ? (size_t)n : 1, sizeof(*v));
	if (v == NULL)
		return -1;
	got = n > 0 ? getgroups(n, v) : 0;
	if (got != n) { /* changed in between: another thread, which the lock forbids */
		free(v);
		errno = EAGAIN;
		return -1;
	}
	*out = v;
	return n;
}

int envd_user_groups(const char *user, gid_t gid, gid_t **out)
{
	int n = 64;
	gid_t *v = NULL, *nv;

	*out = NULL;
	for (;;) {
		int want = n;

		nv = reallocarray(v, (size_t)n, sizeof(*v));
		if (nv == NULL) {
			free(v);
			return -ENOMEM;
		}
		v = nv;
		if (getgrouplist(user, gid, v, &n) >= 0)
			break;
		/* n is the count needed now; a list that keeps growing ends */
		if (n <= want) {
			if (want >= 65536) {
				free(v);
				return -E2BIG;
			}
			n = want * 2;
		}
	}
	*out = v;
	return n;
}

static bool member(const gid_t *v, int n, gid_t g)
{
	for (int i = 0; v != NULL && i < n; i++)
		if (v[i] == g)
			return true;
	return false;
}

/* True when none of root's supplementary groups travels with the user's
 * fsuid (CVE-2010-3430): every group the process has now is the user's
 * primary group, one the user is a member of, or one root did not have.
 * pam_modutil_drop_priv sets the user's own groups with initgroups, or
 * clears the list when that fails (Linux-PAM 1.5.2 and 1.7.0); 1.4.0
 * always clears it; envd's backend sets the user's list.  Any doubt is a
 * no. */
static bool groups_dropped(const struct envd_window *w)
{
	gid_t *now = NULL, *mine = NULL;
	int n = groups_now(&now), nmine = -1;
	bool ok = n >= 0;

	for (int i = 0; ok && i < n; i++) {
		if (now[i] == w->gid || !member(w->groups_before, w->ngroups_before, now[i]))
			continue;
		if (nmine < 0)
			nmine = envd_user_groups(w->user, w->gid, &mine);
		ok = nmine >= 0 && member(mine, nmine, now[i]);
	}
	free(now);
	free(mine);
	return ok;
}

/* The supplementary groups are exactly what they were before enter. */
static bool groups_restored(const struct envd_window *w)
{
	gid_t *now = NULL;
	int n = groups_now(&now);
	bool ok = n == w->ngroups_before;

	for (int i = 0; ok && i < n; i++)
		ok = now[i] == w->groups_before[i];
	free(now);
	return ok;
}

/* True when the process now has exactly the user's file-system identity,
 * or when there was nothing to switch (not root, or the user is root). */
static bool switched(const struct envd_window *w)
{
	if (geteuid() != 0 || w->uid == 0)
		return true;
	return current_fsuid() == w->uid && current_fsgid() == w->gid && groups_dropped(w);
}

static bool restored(const struct envd_window *w)
{
	return current_fsuid() == w->fsuid_before && current_fsgid() == w->fsgid_before &&
	       groups_restored(w);
}

static bool lock_take(const struct envd_window *w)
{
	struct timespec until;
	int r;

	if (clock_gettime(CLOCK_REALTIME, &until) != 0)
		return false;
	until.tv_sec += w->wait_seconds;
	do
		r = pthread_mutex_timedlock(&window_lock, &until);
	while (r == EINTR);
	if (r != 0)
		say(w, ENVD_ERROR, false,
		    "another thread's privilege window did not end in time; "
		    "the user's files are skipped");
	return r == 0;
}

static void forget_groups(struct envd_window *w)
{
	free(w->groups_before);
	w->groups_before = NULL;
	w->ngroups_before = 0;
}

/* Back to the identity before enter: capabilities first, since regaining
 * the groups needs CAP_SETGID.  Any doubt leaves the window broken. */
static int leave_locked(struct envd_window *w)
{
	bool caps_ok = !w->caps_cleared || envd_caps_restore(&w->caps) == 0;
	bool regained = w->backend->regain(w, w->backend->ctx) == 0;

	w->dropped = false;
	w->caps_cleared = false;
	if (!caps_ok || !regained || !restored(w)) {
		w->broken = true;
		say(w, ENVD_ERROR, true,
		    "cannot restore privileges after reading the user's files");
	}
	forget_groups(w);
	return w->broken ? -1 : 0;
}

static int enter_locked(struct envd_window *w)
{
	int r;

	w->fsuid_before = current_fsuid();
	w->fsgid_before = current_fsgid();
	w->ngroups_before = groups_now(&w->groups_before);
	if (w->ngroups_before < 0) {
		w->ngroups_before = 0;
		say(w, ENVD_ERROR, false,
		    "cannot read the supplementary groups; the user's files are skipped");
		return -1;
	}
	r = w->backend->drop(w, w->backend->ctx);
	if (r != 0) {
		/* a backend undoes a half-made switch; whether that worked is
		 * checked here: if it did not, fail closed */
		if (!restored(w)) {
			w->broken = true;
			say(w, ENVD_ERROR, true,
			    "switching to the user's identity failed half-way; failing closed");
		} else
			say(w, ENVD_ERROR, false,
			    "cannot switch to the user's identity; the user's files are skipped");
		forget_groups(w);
		return -1;
	}
	w->dropped = true;
	/* after the switch: setfsuid and setgroups need CAP_SETUID/SETGID */
	w->caps_cleared = envd_caps_clear(&w->caps) == 0;
	if (!w->caps_cleared || !switched(w)) {
		say(w, ENVD_ERROR, true,
		    "identity switch did not take effect; the user's files are skipped");
		(void)leave_locked(w);
		return -1;
	}
	say(w, ENVD_DEBUG, false, "reading the user's files with the user's identity");
	return 0;
}

void envd_window_init(struct envd_window *w, const struct envd_window_backend *backend, uid_t uid,
                      gid_t gid, const char *user)
{
	*w = (struct envd_window){
	    .backend = backend,
	    .uid = uid,
	    .gid = gid,
	    .user = user,
	    .wait_seconds = ENVD_WINDOW_WAIT_SECONDS,
	};
}

int envd_window_enter(void *data)
{
	struct envd_window *w = data;

	if (w->dropped || w->broken || w->user == NULL)
		return -1;
	if (!lock_take(w))
		return -1;
	if (enter_locked(w) != 0) {
		pthread_mutex_unlock(&window_lock);
		return -1;
	}
	return 0;
}

int envd_window_leave(void *data)
{
	struct envd_window *w = data;
	int rc;

	if (!w->dropped)
		return w->broken ? -1 : 0;
	/* released also when broken: the caller fails, and a lock held for
	 * good would only cost every later login of the process its wait */
	rc = leave_locked(w);
	pthread_mutex_unlock(&window_lock);
	return rc;
}

int envd_window_finish(struct envd_window *w)
{
	if (w->dropped) {
		/* envd_load promised to call leave; do not rely on it */
		say(w, ENVD_ERROR, false, "privileges still dropped after loading");
		(void)envd_window_leave(w);
	}
	return w->broken ? -1 : 0;
}
