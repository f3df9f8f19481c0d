/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* pam_threads.c - sessions opened from several threads of one process at once.
 *
 *   pam_threads SERVICE THREADS ROUNDS USER=NAME=VALUE...
 *
 * Linux-PAM allows one handle per thread.  Each round forks a process that
 * starts THREADS threads together; thread i opens a session of the i-th
 * user named by the arguments (round robin) through SERVICE, with its own
 * handle, and records the PAM environment.  The round passes when every
 * session succeeded, every thread of a user saw the same environment, that
 * environment holds each NAME=VALUE given for the user, each thread ended
 * with the file-system identity and capabilities it started with, and the
 * process ended with the supplementary groups, fsuid, fsgid and
 * capabilities it started with.  Run by tests/e2e/e2e_threads.sh as root.
 *
 * With PAM_THREADS_MEDDLER=USER in the environment, one more thread does
 * what pam_motd, pam_mail and pam_xauth do in a threaded host: it loops
 * pam_modutil_drop_priv and pam_modutil_regain_priv for USER (glibc's
 * setgroups changes every thread's groups) until the sessions are done.
 * The sessions must still read their users' files, group-readable ones
 * included, and the process must end as it started.
 *
 * With PAM_THREADS_MALLOC=1, one more thread allocates and frees as fast
 * as it can while the sessions open (a threaded host's other work: an
 * allocator lock held by another thread when the module starts its
 * reader).  With PAM_THREADS_STACK=BYTES, the session threads run on
 * stacks of that size (musl's default is 128 KiB; glibc's 8 MiB hides
 * what the module puts on its stack). */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <security/pam_appl.h>
#include <security/pam_modutil.h>

#define MAX_THREADS 64
#define MAX_EXPECT  64
#define ENV_BYTES   65536

struct creds {
	uid_t fsuid;
	gid_t fsgid;
	uint32_t caps[6]; /* capget's two data records */
	int ngroups;
	gid_t groups[256];
};

struct expect {
	const char *user;
	const char *entry; /* NAME=VALUE */
};

struct worker {
	pthread_t tid;
	const char *user;
	int rc;
	bool creds_ok;
	char env[ENV_BYTES]; /* the PAM environment, one entry a line, sorted */
};

static const char *service;
static pthread_barrier_t start;
static volatile int sessions_done;
static unsigned long meddles;
static struct expect expects[MAX_EXPECT];
static int nexpect;

static void get_creds(struct creds *c, bool groups)
{
	struct {
		uint32_t version;
		int pid;
	} h = {0x20080522u, 0};

	memset(c, 0, sizeof(*c));
	c->fsuid = (uid_t)setfsuid((uid_t)-1);
	c->fsgid = (gid_t)setfsgid((gid_t)-1);
	if (syscall(SYS_capget, &h, c->caps) != 0) {
		perror("capget");
		exit(2);
	}
	if (groups) {
		c->ngroups = getgroups(256, c->groups);
		if (c->ngroups < 0) {
			perror("getgroups");
			exit(2);
		}
	}
}

static bool creds_equal(const struct creds *a, const struct creds *b)
{
	return a->fsuid == b->fsuid && a->fsgid == b->fsgid && a->ngroups == b->ngroups &&
	       memcmp(a->caps, b->caps, sizeof(a->caps)) == 0 &&
	       memcmp(a->groups, b->groups, (size_t)a->ngroups * sizeof(gid_t)) == 0;
}

static int conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
	return PAM_CONV_ERR; /* no module of the stack asks */
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct pam_conv c = {conv, NULL};
	pam_handle_t *pamh = NULL;
	struct creds before, after;
	char **env;
	size_t n = 0, used = 0;

	get_creds(&before, false);
	pthread_barrier_wait(&start);
	w->rc = pam_start(service, w->user, &c, &pamh);
	if (w->rc == PAM_SUCCESS)
		w->rc = pam_open_session(pamh, 0);
	get_creds(&after, false);
	w->creds_ok = creds_equal(&before, &after);
	env = pamh ? pam_getenvlist(pamh) : NULL;
	if (env != NULL) {
		while (env[n] != NULL)
			n++;
		qsort(env, n, sizeof(*env), cmp_str);
		for (size_t i = 0; i < n; i++) {
			int k = snprintf(w->env + used, sizeof(w->env) - used, "%s\n", env[i]);

			if (k > 0 && (size_t)k < sizeof(w->env) - used)
				used += (size_t)k;
			free(env[i]);
		}
		free(env);
	}
	if (pamh != NULL) {
		if (w->rc == PAM_SUCCESS)
			(void)pam_close_session(pamh, 0);
		pam_end(pamh, w->rc);
	}
	return NULL;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

/* Switches to pw's user and back as fast as it can while sessions run. */
static void *meddle(void *arg)
{
	const char *user = arg;
	struct pam_conv c = {conv, NULL};
	pam_handle_t *pamh = NULL;
	struct passwd *pw = getpwnam(user);
	gid_t groups[PAM_MODUTIL_NGROUPS];

	if (pw == NULL || pam_start(service, user, &c, &pamh) != PAM_SUCCESS) {
		fprintf(stderr, "meddler: cannot start for %s\n", user);
		return NULL;
	}
	while (!__atomic_load_n(&sessions_done, __ATOMIC_ACQUIRE)) {
		struct pam_modutil_privs p = {.grplist = groups,
		                              .number_of_groups = PAM_MODUTIL_NGROUPS,
		                              .old_gid = (gid_t)-1,
		                              .old_uid = (uid_t)-1};

		if (pam_modutil_drop_priv(pamh, &p, pw) == 0) {
			sched_yield();
			(void)pam_modutil_regain_priv(pamh, &p);
		}
		meddles++;
	}
	pam_end(pamh, PAM_SUCCESS);
	return NULL;
}

/* Allocates and frees while the sessions run. */
static void *churn(void *arg)
{
	unsigned long *count = arg;
	void *keep[64] = {NULL};

	while (!__atomic_load_n(&sessions_done, __ATOMIC_ACQUIRE)) {
		size_t i = *count % 64;

		free(keep[i]);
		keep[i] = malloc(16 + (*count * 977) % 8192);
		(*count)++;
	}
	for (size_t i = 0; i < 64; i++)
		free(keep[i]);
	return NULL;
}

/* One round, in a child process: 0 when every check held. */
static int round_run(int nthreads, const char *const *users, int nusers)
{
	static struct worker w[MAX_THREADS];
	struct creds before, after;
	const char *meddler = getenv("PAM_THREADS_MEDDLER");
	const char *mallocs = getenv("PAM_THREADS_MALLOC");
	const char *stack = getenv("PAM_THREADS_STACK");
	unsigned long churned = 0;
	pthread_attr_t attr;
	pthread_t m, a;
	int bad = 0;

	get_creds(&before, true);
	if (meddler != NULL && pthread_create(&m, NULL, meddle, (void *)meddler) != 0) {
		perror("pthread_create");
		return 2;
	}
	if (mallocs != NULL && pthread_create(&a, NULL, churn, &churned) != 0) {
		perror("pthread_create");
		return 2;
	}
	pthread_attr_init(&attr);
	if (stack != NULL && pthread_attr_setstacksize(&attr, strtoul(stack, NULL, 10)) != 0) {
		fprintf(stderr, "PAM_THREADS_STACK=%s: not a stack size\n", stack);
		return 2;
	}
	pthread_barrier_init(&start, NULL, (unsigned)nthreads);
	for (int i = 0; i < nthreads; i++) {
		w[i].user = users[i % nusers];
		if (pthread_create(&w[i].tid, &attr, work, &w[i]) != 0) {
			perror("pthread_create");
			return 2;
		}
	}
	pthread_attr_destroy(&attr);
	for (int i = 0; i < nthreads; i++)
		pthread_join(w[i].tid, NULL);
	__atomic_store_n(&sessions_done, 1, __ATOMIC_RELEASE);
	if (mallocs != NULL) {
		pthread_join(a, NULL);
		if (churned == 0) {
			fprintf(stderr, "allocator thread: never ran\n");
			bad++;
		}
	}
	if (meddler != NULL) {
		pthread_join(m, NULL);
		if (meddles == 0) {
			fprintf(stderr, "meddler: never switched\n");
			bad++;
		}
	}
	get_creds(&after, true);
	if (!creds_equal(&before, &after)) {
		fprintf(stderr, "process credentials changed (groups %d -> %d, fsuid %lu -> %lu)\n",
		        before.ngroups, after.ngroups, (unsigned long)before.fsuid,
		        (unsigned long)after.fsuid);
		bad++;
	}
	for (int i = 0; i < nthreads; i++) {
		if (w[i].rc != PAM_SUCCESS) {
			fprintf(stderr, "thread %d (%s): session failed: %d\n", i, w[i].user,
			        w[i].rc);
			bad++;
		}
		if (!w[i].creds_ok) {
			fprintf(stderr, "thread %d (%s): thread credentials changed\n", i,
			        w[i].user);
			bad++;
		}
		for (int j = 0; j < i; j++)
			if (w[j].user == w[i].user && strcmp(w[j].env, w[i].env) != 0) {
				fprintf(stderr,
				        "threads %d and %d (%s) saw different environments\n", j, i,
				        w[i].user);
				bad++;
				break;
			}
		for (int e = 0; e < nexpect; e++)
			if (strcmp(expects[e].user, w[i].user) == 0 &&
			    !has_line(w[i].env, expects[e].entry)) {
				fprintf(stderr, "thread %d (%s): %s missing\n", i, w[i].user,
				        expects[e].entry);
				bad++;
			}
	}
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *users[MAX_THREADS];
	int nusers = 0, nthreads, rounds, failed = 0;

	if (argc < 5) {
		fprintf(stderr, "usage: %s SERVICE THREADS ROUNDS USER=NAME=VALUE...\n", argv[0]);
		return 2;
	}
	service = argv[1];
	nthreads = atoi(argv[2]);
	rounds = atoi(argv[3]);
	if (nthreads < 1 || nthreads > MAX_THREADS || rounds < 1 || argc - 4 > MAX_EXPECT)
		return 2;
	for (int i = 4; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		int u;

		if (eq == NULL)
			return 2;
		*eq = '\0';
		for (u = 0; u < nusers && strcmp(users[u], argv[i]) != 0; u++)
			;
		if (u == nusers)
			users[nusers++] = argv[i];
		expects[nexpect].user = users[u];
		expects[nexpect++].entry = eq + 1;
	}
	for (int r = 0; r < rounds; r++) {
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 2;
		}
		if (pid == 0)
			_exit(round_run(nthreads, users, nusers));
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0) {
			fprintf(stderr, "round %d failed\n", r + 1);
			failed++;
		}
	}
	printf("%d rounds of %d threads: %d failed\n", rounds, nthreads, failed);
	return failed ? 1 : 0;
}
