/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* pam_host.c - a PAM application the way real hosts are written, to see
 * what the module's reader child does to them.
 *
 *   pam_host SERVICE USER [sigchld=reap|ignore|default] [own-child]
 *            [drop-dac] [subreaper] [storm] [high-fd] [no-close-range]
 *
 * sigchld=reap installs a SIGCHLD handler that reaps every child with
 * waitpid(-1) (sshd, display managers); ignore sets SIGCHLD to SIG_IGN;
 * default leaves it.  own-child forks a child of the host's own before the
 * session, which exits with status 7 while the session opens: the host
 * must still get that status (handler, or waitpid), and nothing of the
 * module's may be left as the host's child, alive or zombie.  drop-dac
 * clears CAP_DAC_OVERRIDE from the effective set first; it must stay
 * cleared.  Prints, one per line: rc=, ms= (pam_open_session's wall
 * time), own=STATUS|lost|reaped-by-kernel, children= (the host's children
 * left: live and zombie), dac-before= and dac-after=, then env NAME=VALUE
 * for the PAM environment.
 *
 * subreaper makes the host a child subreaper (PR_SET_CHILD_SUBREAPER, as
 * a service manager or a container's init is): an orphan below it would
 * be its child.  storm gives the host handlers for SIGUSR1 and SIGTERM
 * and, all through pam_open_session, has a process of the host's own send
 * both to the host's process group as fast as it can: a handler that runs
 * in any other process than the host is counted (foreign=N), as a
 * process of the module's that the storm kills would show in what the
 * session got.  high-fd leaves descriptor 70000 open (not close-on-exec)
 * across the session, as a host with many connections may; no-close-range
 * makes close_range(2) fail with ENOSYS for the host and everything it
 * starts (a seccomp filter: a kernel before 5.9). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include <security/pam_appl.h>

#define CAP_DAC_OVERRIDE 1

static pid_t host_pid;
static int foreign_fd = -1;

/* The storm's handler: in the host, nothing; in any other process (a copy
 * of the host that kept its handlers), one byte to the count. */
static void on_storm(int sig)
{
	int saved = errno;

	(void)sig;
	if (getpid() != host_pid)
		(void)write(foreign_fd, "x", 1);
	errno = saved;
}

/* A process of the host's that signals the host's process group until it
 * is killed; it ignores the signals itself. */
static pid_t storm_start(void)
{
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	signal(SIGUSR1, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	for (;;) {
		(void)kill(0, SIGUSR1);
		(void)kill(0, SIGTERM);
	}
}

/* close_range fails with ENOSYS here and in every process started from
 * here on, exec'd ones included. */
static int no_close_range(void)
{
#ifdef SYS_close_range
	struct sock_filter f[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_close_range, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};

	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
#else
	return 0;
#endif
}

/* Descriptor 70000 left open, or, where the hard limit cannot be raised
 * that far (no CAP_SYS_RESOURCE), the highest one it allows.  The number,
 * or -1. */
static int high_fd(void)
{
	struct rlimit rl = {.rlim_cur = 70100, .rlim_max = 70100};
	int fd, at = 70000;

	if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
		if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_max < 64)
			return -1;
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			return -1;
		at = (int)(rl.rlim_max > 70001 ? 70000 : rl.rlim_max - 1);
	}
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, at) != at)
		return -1;
	close(fd);
	return at;
}

static volatile sig_atomic_t nreaped;
static volatile pid_t reaped_pid[64];
static volatile int reaped_status[64];

static void on_chld(int sig)
{
	int saved = errno, st;
	pid_t pid;

	(void)sig;
	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		if (nreaped < 64) {
			reaped_pid[nreaped] = pid;
			reaped_status[nreaped] = st;
			nreaped++;
		}
	errno = saved;
}

struct caps {
	uint32_t version;
	int pid;
	uint32_t d[6];
};

static int dac_effective(void)
{
	struct caps c = {.version = 0x20080522u};

	if (syscall(SYS_capget, &c, c.d) != 0)
		return -1;
	return (c.d[0] >> CAP_DAC_OVERRIDE) & 1;
}

static void drop_dac(void)
{
	struct caps c = {.version = 0x20080522u};

	if (syscall(SYS_capget, &c, c.d) != 0)
		return;
	c.d[0] &= ~(1u << CAP_DAC_OVERRIDE);
	(void)syscall(SYS_capset, &c, c.d);
}

/* The host's children now: live or zombie, from /proc. */
static int children(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		char path[300], buf[512], *p;
		FILE *f;
		long ppid = 0;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fgets(buf, sizeof(buf), f) != NULL && (p = strrchr(buf, ')')) != NULL &&
		    sscanf(p + 2, "%*c %ld", &ppid) == 1 && ppid == (long)getpid())
			n++;
		fclose(f);
	}
	closedir(d);
	return n;
}

static int conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
	(void)n;
	(void)msg;
	(void)resp;
	(void)data;
	return PAM_CONV_ERR;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

int main(int argc, char **argv)
{
	struct pam_conv c = {conv, NULL};
	const char *mode = "default";
	int own_child = 0, dac = 0, subreaper = 0, storm = 0, hfd = 0, ncr = 0, rc, status;
	pid_t stormer = -1;
	pam_handle_t *pamh = NULL;
	struct timespec t0;
	pid_t own = -1;
	char **env;

	if (argc < 3) {
		fprintf(stderr, "usage: pam_host SERVICE USER [sigchld=MODE] [own-child] "
		                "[drop-dac] [subreaper] [storm] [high-fd] [no-close-range]\n");
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		if (strncmp(argv[i], "sigchld=", 8) == 0)
			mode = argv[i] + 8;
		else if (strcmp(argv[i], "own-child") == 0)
			own_child = 1;
		else if (strcmp(argv[i], "drop-dac") == 0)
			dac = 1;
		else if (strcmp(argv[i], "subreaper") == 0)
			subreaper = 1;
		else if (strcmp(argv[i], "storm") == 0)
			storm = 1;
		else if (strcmp(argv[i], "high-fd") == 0)
			hfd = 1;
		else if (strcmp(argv[i], "no-close-range") == 0)
			ncr = 1;
		else
			return 2;
	}
	host_pid = getpid();
	if (subreaper && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
		perror("PR_SET_CHILD_SUBREAPER");
		return 2;
	}
	if (hfd && (hfd = high_fd()) < 0) {
		perror("a high descriptor");
		return 2;
	}
	if (ncr && no_close_range() != 0) {
		perror("seccomp");
		return 2;
	}
	if (storm) {
		char tmpl[] = "/tmp/pam_host-storm-XXXXXX";
		struct sigaction sa;

		/* a process group of the host's own: the storm reaches the host,
		 * its children and whatever the module leaves in the group, not
		 * the program that runs the host */
		(void)setpgid(0, 0);
		foreign_fd = mkstemp(tmpl);
		if (foreign_fd < 0) {
			perror("mkstemp");
			return 2;
		}
		unlink(tmpl);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_storm;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGUSR1, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	if (strcmp(mode, "reap") == 0) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_chld;
		sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
		sigaction(SIGCHLD, &sa, NULL);
	} else if (strcmp(mode, "ignore") == 0) {
		signal(SIGCHLD, SIG_IGN);
	}
	if (dac)
		drop_dac();
	printf("dac-before=%d\n", dac_effective());
	if (own_child) {
		own = fork();
		if (own == 0) {
			usleep(100000);
			_exit(7);
		}
	}
	if (storm)
		stormer = storm_start();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = pam_start(argv[1], argv[2], &c, &pamh);
	if (rc == PAM_SUCCESS)
		rc = pam_open_session(pamh, 0);
	printf("rc=%d\nms=%ld\n", rc, ms_since(&t0));
	if (stormer > 0) {
		struct stat st;

		kill(stormer, SIGKILL);
		while (waitpid(stormer, &status, 0) < 0 && errno == EINTR)
			;
		usleep(100000); /* a copy of the host's still running has done by now */
		printf("foreign=%lld\n",
		       fstat(foreign_fd, &st) == 0 ? (long long)st.st_size : -1LL);
	}
	if (hfd)
		printf("high-fd-at=%d\nhigh-fd=%s\n", hfd,
		       fcntl(hfd, F_GETFD) >= 0 ? "open" : "closed");
	printf("dac-after=%d\n", dac_effective());
	if (own_child) {
		const char *what = "lost";

		usleep(300000); /* the own child has exited by now */
		if (strcmp(mode, "reap") == 0) {
			for (int i = 0; i < nreaped; i++)
				if (reaped_pid[i] == own && WIFEXITED(reaped_status[i]))
					printf("own=%d\n", WEXITSTATUS(reaped_status[i])),
					    what = NULL;
		} else if (waitpid(own, &status, 0) == own && WIFEXITED(status)) {
			printf("own=%d\n", WEXITSTATUS(status));
			what = NULL;
		} else if (errno == ECHILD && strcmp(mode, "ignore") == 0) {
			what = "reaped-by-kernel";
		}
		if (what)
			printf("own=%s\n", what);
	}
	printf("children=%d\n", children());
	env = pamh ? pam_getenvlist(pamh) : NULL;
	for (char **p = env; p && *p; p++) {
		printf("env %s\n", *p);
		free(*p);
	}
	free(env);
	if (pamh) {
		if (rc == PAM_SUCCESS)
			pam_close_session(pamh, 0);
		pam_end(pamh, rc);
	}
	return 0;
}
