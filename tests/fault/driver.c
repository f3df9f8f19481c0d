/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* driver.c - fails every allocation, system call and PAM call of a login,
 * one at a time, and checks what the module and the engine make of it.
 *
 * Scenarios: (1) pam_open_session through real libpam (pam_start_confdir,
 * a service file in a temporary directory naming the test module by
 * absolute path) on a home and system directories holding valid, invalid,
 * masked and policy-refused files; (2) envd_load called directly (lint
 * on, as `envd check` does).  Each scenario runs once without faults,
 * counting the calls in order, then once per call N and failure variant
 * (errno), failing exactly call N.  After every run:
 *  - the Nth call was the one failed, and it was the same function as in
 *    the counting run (the runs are deterministic);
 *  - nothing leaked: every allocation made through the wrappers was freed,
 *    no descriptor is left open (and LeakSanitizer in the ASan build);
 *  - the process has its identity as before (fsuid, fsgid, the
 *    supplementary groups and the effective capabilities): the module
 *    never changes its own, the user's files are read by a child process
 *    (lib/child.c), and no read of the process is made with another
 *    file-system uid;
 *  - the return code is PAM_SUCCESS or PAM_SESSION_ERR (pam_envd(8));
 *  - the PAM environment is the preset one plus either everything, a
 *    prefix of it in order (a failed write), the system files only, or a
 *    result in which every value is one the files can produce: never a
 *    half-written value, never a refused name;
 *  - the outcome is one this kind of fault may have (e.g. PAM_SUCCESS for
 *    an unreadable file, a session error for a failed pam_putenv);
 *  - a second pam_open_session on the same handle, without faults, leaves
 *    the environment as it was, or applies everything when nothing was
 *    written: never twice.
 * As root the user is "nobody", so that the child really switches; without
 * root the same calls are made and failed, the child keeps the caller's
 * credentials. */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_appl.h>

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#endif

#include "envd.h"
#include "fault.h"
#include "pamtest.h"

#ifndef FAULT_SO
#error "FAULT_SO must name the test module"
#endif

/* fewer fault points than this means the wrapping did not take effect */
#define MIN_POINTS_ROOT 200u
#define MIN_POINTS_USER 120u

static bool is_root;
static char top[PATH_MAX]; /* the scratch directory */
static char user[256];     /* PAM_USER */
static uid_t user_uid;
static gid_t user_gid;
static unsigned long failures; /* failed checks */
static char current[512];      /* the run under way, for crash reports */

/* ---- output ---- */

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("FAIL: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void crash_report(void)
{
	static const char msg[] = "\nfault driver: crashed during ";

	if (write(2, msg, sizeof(msg) - 1) < 0 || write(2, current, strlen(current)) < 0 ||
	    write(2, "\n", 1) < 0)
		return;
}

#ifndef __SANITIZE_ADDRESS__
static void on_signal(int sig)
{
	crash_report();
	signal(sig, SIG_DFL);
	raise(sig);
}
#endif

/* ---- string lists (the driver's own memory: not through the wrappers) ---- */

struct strv {
	char **v;
	size_t n;
};

static void strv_add(struct strv *l, const char *s)
{
	char **nv = realloc(l->v, (l->n + 2) * sizeof(*nv));

	if (nv == NULL || (nv[l->n] = strdup(s)) == NULL)
		die("out of memory");
	l->v = nv;
	l->v[++l->n] = NULL;
}

static void strv_clear(struct strv *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static size_t name_len(const char *entry)
{
	const char *eq = strchr(entry, '=');

	return eq ? (size_t)(eq - entry) : strlen(entry);
}

/* pam_putenv as libpam does it: a name already there is replaced in place,
 * a new one is appended. */
static void model_put(struct strv *env, const char *entry)
{
	size_t n = name_len(entry);

	for (size_t i = 0; i < env->n; i++)
		if (name_len(env->v[i]) == n && strncmp(env->v[i], entry, n) == 0) {
			char *copy = strdup(entry);

			if (copy == NULL)
				die("out of memory");
			free(env->v[i]);
			env->v[i] = copy;
			return;
		}
	strv_add(env, entry);
}

static const char *const preset_env[] = {"PATH=/usr/bin:/bin", "PRESET=1", NULL};

/* The preset environment with entries[0..n) put. */
static void model(struct strv *out, const char *const *entries, size_t n)
{
	for (const char *const *p = preset_env; *p != NULL; p++)
		strv_add(out, *p);
	for (size_t i = 0; i < n; i++)
		model_put(out, entries[i]);
}

static bool same(const struct strv *a, const struct strv *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i], b->v[i]) != 0)
			return false;
	return true;
}

static size_t count(const char *const *v)
{
	size_t n = 0;

	while (v[n] != NULL)
		n++;
	return n;
}

/* ---- what the files produce ---- */

/* Everything read, as root (system files are root's). */
static const char *const full_root[] = {
    "U_ONE=one+lib",       "U_TWO=one-two",
    "U_LIT=single quoted", "PATH=/u/bin:/usr/bin:/bin:/s/bin:/l/bin",
    "TMPDIR=/u/tmp",       "U_AFTER=after",
    "SYS_ONE=sys-one",     "LD_LIBRARY_PATH=/s/lib",
    "SYS_REF=one",         "RUN_ONE=run",
    "LIB_ONE=lib",         "ADMIN_USER=yes",
    "ADMIN_GROUP=yes",     NULL,
};
/* The user's files skipped: nothing masks the system files any more. */
static const char *const nouser_root[] = {
    "SYS_SHADOWED=shadowed",
    "MASKED=sys",
    "DIR_MASKED=sys",
    "SYS_ONE=sys-one",
    "PATH=/usr/bin:/bin:/s/bin:/l/bin",
    "LD_LIBRARY_PATH=/s/lib",
    "SYS_REF=nouser",
    "RUN_ONE=run",
    "LIB_ONE=lib",
    "U_ONE=+lib",
    "ADMIN_USER=yes",
    "ADMIN_GROUP=yes",
    NULL,
};
/* Without root the system files are not root's: all skipped. */
static const char *const full_user[] = {
    "U_ONE=one",
    "U_TWO=one-two",
    "U_LIT=single quoted",
    "PATH=/u/bin:/usr/bin:/bin",
    "TMPDIR=/u/tmp",
    "U_AFTER=after",
    NULL,
};
static const char *const nouser_user[] = {NULL};

static const char *const *full_list(void)
{
	return is_root ? full_root : full_user;
}

static const char *const *nouser_list(void)
{
	return is_root ? nouser_root : nouser_user;
}

/* Values a variable can have when some files or directories could not be
 * read: every combination of the files that set it. */
static const char *const allowed[] = {
    "U_ONE=one+lib",
    "U_ONE=+lib",
    "U_ONE=one",
    "U_TWO=one-two",
    "U_LIT=single quoted",
    "TMPDIR=/u/tmp",
    "U_AFTER=after",
    "SYS_ONE=sys-one",
    "SYS_ONE=masked-run",
    "LD_LIBRARY_PATH=/s/lib",
    "SYS_REF=one",
    "SYS_REF=nouser",
    "RUN_ONE=run",
    "LIB_ONE=lib",
    "SYS_SHADOWED=shadowed",
    "MASKED=sys",
    "DIR_MASKED=sys",
    "ADMIN_USER=yes",
    "ADMIN_GROUP=yes",
    NULL,
};

static bool path_allowed(const char *v)
{
	static const char mid[] = "/usr/bin:/bin";

	if (strncmp(v, "/u/bin:", 7) == 0)
		v += 7;
	if (strncmp(v, mid, sizeof(mid) - 1) != 0)
		return false;
	v += sizeof(mid) - 1;
	if (strncmp(v, ":/s/bin", 7) == 0)
		v += 7;
	if (strncmp(v, ":/l/bin", 7) == 0)
		v += 7;
	return *v == '\0';
}

static bool entry_allowed(const char *e)
{
	if (strncmp(e, "PATH=", 5) == 0)
		return path_allowed(e + 5);
	for (const char *const *p = allowed; *p != NULL; p++)
		if (strcmp(*p, e) == 0)
			return true;
	return false;
}

/* ---- the scratch tree ---- */

static const char *at(const char *rel)
{
	static char buf[8][PATH_MAX];
	static unsigned next;
	char *p = buf[next++ % 8];

	if ((size_t)snprintf(p, PATH_MAX, "%s/%s", top, rel) >= PATH_MAX)
		die("path too long");
	return p;
}

static void mkdir_p(const char *rel)
{
	int r = tf_mkdirs(at(rel), 0755);

	if (r < 0)
		die("mkdir %s: %s", at(rel), strerror(-r));
}

static void put(const char *rel, const char *data, size_t len, mode_t mode)
{
	int r = tf_write(at(rel), data, len, mode);

	if (r < 0)
		die("writing %s: %s", at(rel), strerror(-r));
}

#define PUT(rel, text) put(rel, text, sizeof(text) - 1, 0644)

#define UDIR "home/.config/environment.d"

static void make_tree(void)
{
	char tmpl[] = "/tmp/envd-fault.XXXXXX";
	char text[5 * PATH_MAX + 256], rel[PATH_MAX];
	const struct group *gr;
	int n;

	/* below /tmp: every directory above the user's must be root's or the
	 * user's and not writable by others, which a build tree may not be */
	n = tf_scratch(tmpl);
	if (n < 0)
		die("mkdtemp: %s", strerror(-n));
	snprintf(top, sizeof(top), "%s", tmpl);
	mkdir_p(UDIR);
	mkdir_p(UDIR "/50-dir.conf");
	mkdir_p("sys/etc");
	mkdir_p("sys/run");
	mkdir_p("sys/lib");
	mkdir_p("pam.d");

	PUT(UDIR "/10-user.conf", "# the user's own\n"
	                          "U_ONE=one\n"
	                          "U_TWO=\"${U_ONE}-two\"\n"
	                          "U_LIT='single quoted'\n"
	                          "PATH=/u/bin:${PATH}\n"
	                          "TMPDIR=/u/tmp\n");
	PUT(UDIR "/20-bad.conf", "1BAD=x\n"
	                         "export EXPORTED=1\n"
	                         "NOVAL=\n"
	                         "U_UTF=\xff\xfe\n"
	                         "LD_PRELOAD=/u/evil.so\n"
	                         "BASH_ENV=/u/evil\n"
	                         "FAULT_DENIED_X=1\n"
	                         "U_AFTER=after\n");
	PUT(UDIR "/30-mask.conf", "");
	PUT(UDIR "/40-nul.conf", "U_NUL=a\0b\n");
	put(UDIR "/45-gw.conf", "U_GW=1\n", 7, 0666);
	PUT(UDIR "/notes.txt", "IGNORED=1\n");
	PUT(UDIR "/.hidden.conf", "HIDDEN=1\n");
	if (symlink("/nonexistent/envd-fault", at(UDIR "/65-dangling.conf")) < 0)
		die("symlink: %s", strerror(errno));

	PUT("sys/etc/10-user.conf", "SYS_SHADOWED=shadowed\n");
	PUT("sys/etc/30-mask.conf", "MASKED=sys\n");
	PUT("sys/etc/50-dir.conf", "DIR_MASKED=sys\n");
	PUT("sys/etc/70-sys.conf", "SYS_ONE=sys-one\n"
	                           "PATH=${PATH}:/s/bin\n"
	                           "LD_LIBRARY_PATH=/s/lib\n"
	                           "SYS_REF=${U_ONE:-nouser}\n");
	PUT("sys/run/70-sys.conf", "SYS_ONE=masked-run\n");
	PUT("sys/run/80-run.conf", "RUN_ONE=run\n");
	PUT("sys/lib/90-lib.conf", "LIB_ONE=lib\n"
	                           "PATH=${PATH}:/l/bin\n"
	                           "U_ONE=${U_ONE}+lib\n");

	/* the user's side belongs to the user, as it would */
	if (is_root) {
		static const char *const mine[] = {"home",
		                                   "home/.config",
		                                   UDIR,
		                                   UDIR "/50-dir.conf",
		                                   UDIR "/10-user.conf",
		                                   UDIR "/20-bad.conf",
		                                   UDIR "/30-mask.conf",
		                                   UDIR "/40-nul.conf",
		                                   UDIR "/45-gw.conf",
		                                   UDIR "/notes.txt",
		                                   UDIR "/.hidden.conf",
		                                   NULL};

		for (const char *const *p = mine; *p != NULL; p++)
			if (chown(at(*p), user_uid, user_gid) < 0)
				die("chown %s: %s", at(*p), strerror(errno));
	}

	/* admin_dir: the user's directory and its primary group's, read
	 * last (their basenames sort last) */
	gr = getgrgid(user_gid);
	if (gr == NULL)
		die("no group %u", (unsigned)user_gid);
	snprintf(rel, sizeof(rel), "sys/admin/user/%s", user);
	mkdir_p(rel);
	snprintf(rel, sizeof(rel), "sys/admin/user/%s/95-admin-user.conf", user);
	PUT(rel, "ADMIN_USER=yes\n");
	snprintf(rel, sizeof(rel), "sys/admin/group/%s", gr->gr_name);
	mkdir_p(rel);
	snprintf(rel, sizeof(rel), "sys/admin/group/%s/96-admin-group.conf", gr->gr_name);
	PUT(rel, "ADMIN_GROUP=yes\n");

	n = snprintf(text, sizeof(text),
	             "session required %s user_dir=%s system_dirs=%s:%s:%s:%s admin_dir=%s "
	             "user_allow=TMPDIR user_deny=FAULT_DENIED_* reader=" TEST_READER "\n",
	             FAULT_SO, at(UDIR), at("sys/etc"), at("sys/run"), at("sys/missing"),
	             at("sys/lib"), at("sys/admin"));
	if (n < 0 || (size_t)n >= sizeof(text))
		die("service line too long");
	put("pam.d/fault", text, (size_t)n, 0644);
}

static void remove_tree(void)
{
	tf_rm_tree(top);
}

/* ---- process state ---- */

static uid_t fsuid0;
static gid_t fsgid0;
static int ngroups0;
static gid_t groups0[256];

/* The thread's effective capabilities (never changed by the module). */
struct caps {
	uint32_t version;
	int pid;
	uint32_t d[6]; /* effective, permitted, inheritable; twice */
};
static struct caps caps0;

static void get_caps(struct caps *c)
{
	c->version = 0x20080522u;
	c->pid = 0;
	if (syscall(SYS_capget, c, c->d) != 0)
		die("capget: %s", strerror(errno));
}

static bool caps_same(void)
{
	struct caps now;

	get_caps(&now);
	return now.d[0] == caps0.d[0] && now.d[3] == caps0.d[3];
}

static void save_identity(void)
{
	get_caps(&caps0);
	fsuid0 = (uid_t)setfsuid((uid_t)-1);
	fsgid0 = (gid_t)setfsgid((gid_t)-1);
	ngroups0 = getgroups((int)(sizeof(groups0) / sizeof(groups0[0])), groups0);
	if (ngroups0 < 0)
		die("getgroups: %s", strerror(errno));
}

static bool groups_same(void)
{
	gid_t now[256];
	int n = getgroups((int)(sizeof(now) / sizeof(now[0])), now);

	return n == ngroups0 && memcmp(now, groups0, (size_t)n * sizeof(gid_t)) == 0;
}

static bool identity_same(void)
{
	return (uid_t)setfsuid((uid_t)-1) == fsuid0 && (gid_t)setfsgid((gid_t)-1) == fsgid0 &&
	       groups_same() && caps_same();
}

static void restore_identity(void)
{
	struct caps c = caps0;

	if (syscall(SYS_capset, &c, c.d) != 0)
		die("capset: %s", strerror(errno));
	setfsuid(fsuid0);
	setfsgid(fsgid0);
	if (is_root && setgroups((size_t)ngroups0, groups0) < 0)
		die("setgroups: %s", strerror(errno));
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* ---- the test module, also loaded here for its engine functions ---- */

static struct {
	void *handle;
	void (*config_init)(struct envd_config *cfg);
	int (*load)(const struct envd_config *cfg, struct envd_result **out);
	void (*result_free)(struct envd_result *res);
	size_t (*result_count)(const struct envd_result *res);
	const struct envd_var *(*result_var)(const struct envd_result *res, size_t i);
	struct envd_policy *(*policy_new)(bool with_defaults);
	int (*policy_allow)(struct envd_policy *p, const char *patterns);
	int (*policy_deny)(struct envd_policy *p, const char *patterns);
	void (*policy_free)(struct envd_policy *p);
	const struct envd_lint_ops *lint; /* envd_lint_ops: the module's image has none */
	int (*read_here)(struct loader *ld, struct envd_side *s, size_t ms); /* envd_side_read */
} so;

static void *sym(const char *name)
{
	void *p = dlsym(so.handle, name);

	if (p == NULL)
		die("%s: %s not found", FAULT_SO, name);
	return p;
}

/* Loaded once for the whole test: libpam's dlopen of the same path then
 * shares it, so that state of the module (the hash key) lives on. */
static void load_module(void)
{
	so.handle = dlopen(FAULT_SO, RTLD_NOW | RTLD_LOCAL);
	if (so.handle == NULL)
		die("dlopen: %s", dlerror());
	*(void **)&so.config_init = sym("envd_config_init");
	*(void **)&so.load = sym("envd_load");
	*(void **)&so.result_free = sym("envd_result_free");
	*(void **)&so.result_count = sym("envd_result_count");
	*(void **)&so.result_var = sym("envd_result_var");
	*(void **)&so.policy_new = sym("envd_policy_new");
	so.lint = sym("envd_lint_ops");
	*(void **)&so.read_here = sym("envd_side_read");
	*(void **)&so.policy_allow = sym("envd_policy_allow");
	*(void **)&so.policy_deny = sym("envd_policy_deny");
	*(void **)&so.policy_free = sym("envd_policy_free");
}

/* ---- one run ---- */

enum outcome {
	O_FULL,       /* success, everything applied */
	O_NOUSER,     /* success, the system files only */
	O_DEGRADED,   /* success, some files skipped, every value possible */
	O_ERR_NONE,   /* error, nothing applied */
	O_ERR_PREFIX, /* error, the first assignments applied, in order */
	O_BAD_ENV,    /* anything else in the environment */
	O_BAD_RC,     /* a return code pam_envd(8) does not document */
	O_COUNT
};

static const char *const outcome_name[O_COUNT] = {
    "success (all applied)",    "success (system files only)", "success (some files skipped)",
    "error (nothing applied)",  "error (a prefix applied)",    "WRONG ENVIRONMENT",
    "UNDOCUMENTED RETURN CODE",
};

#define M(o) (1u << (o))

struct run {
	int rc;                 /* pam_open_session, or envd_load */
	struct strv env;        /* the PAM environment, or the result as NAME=VALUE */
	bool left_dropped;      /* the identity was not restored after the run */
	uid_t fsuid_after;      /* the identity right after the run */
	int fd_delta;           /* descriptors opened and not closed */
	size_t live, foreign;   /* allocations not freed, frees of unknown pointers */
	unsigned long injected; /* failures injected */
	size_t window_reads, window_reads_with_caps;
	int injected_fn;
	enum outcome outcome;
	/* pam_open_session once more on the same handle (module runs) */
	bool retried, retry_ok, retry_identity;
	int retry_rc;
};

static void run_clear(struct run *r)
{
	strv_clear(&r->env);
	memset(r, 0, sizeof(*r));
}

/* Every value pam_putenv took is one the files can produce, each name once. */
static bool puts_allowed(void)
{
	for (size_t i = 0; i < fault.nput; i++) {
		if (!entry_allowed(fault.put[i]))
			return false;
		for (size_t j = 0; j < i; j++)
			if (name_len(fault.put[i]) == name_len(fault.put[j]) &&
			    strncmp(fault.put[i], fault.put[j], name_len(fault.put[i])) == 0)
				return false; /* one name written twice */
	}
	return true;
}

static bool env_is(const struct strv *env, const char *const *entries, size_t n)
{
	struct strv want = {0};
	bool ok;

	model(&want, entries, n);
	ok = same(env, &want);
	strv_clear(&want);
	return ok;
}

static enum outcome classify_module(const struct run *r)
{
	const char *const *full = full_list();
	size_t nfull = count(full);

	if (r->rc == PAM_SUCCESS) {
		if (env_is(&r->env, full, nfull))
			return O_FULL;
		if (env_is(&r->env, nouser_list(), count(nouser_list())))
			return O_NOUSER;
		if (puts_allowed() && env_is(&r->env, (const char *const *)fault.put, fault.nput))
			return O_DEGRADED;
		return O_BAD_ENV;
	}
	if (r->rc != PAM_SESSION_ERR)
		return O_BAD_RC;
	for (size_t j = 0; j <= nfull; j++)
		if (env_is(&r->env, full, j))
			return j == 0 ? O_ERR_NONE : O_ERR_PREFIX;
	return O_BAD_ENV;
}

static enum outcome classify_load(const struct run *r)
{
	const char *const *full = full_list();

	if (r->rc < 0)
		return r->env.n == 0 && (r->rc == -ENOMEM || r->rc == -EIO) ? O_ERR_NONE : O_BAD_RC;
	if (r->rc > 0)
		return O_BAD_RC;
	if (r->env.n == count(full)) {
		bool all = true;

		for (size_t i = 0; i < r->env.n && all; i++)
			all = strcmp(r->env.v[i], full[i]) == 0;
		if (all)
			return O_FULL;
	}
	for (size_t i = 0; i < r->env.n; i++)
		if (!entry_allowed(r->env.v[i]))
			return O_BAD_ENV;
	return O_DEGRADED;
}

static void arm(unsigned long fail_at, int variant, unsigned long long fail_every)
{
	fault_reset(fail_at, variant);
	fault.fail_every = fail_every;
	fault.armed = true;
}

static void disarm(struct run *r)
{
	fault.armed = false;
	r->window_reads = fault.window_reads;
	r->window_reads_with_caps = fault.window_reads_with_caps;
	r->injected = fault.injected;
	r->injected_fn = fault.injected_fn;
}

/* After a run: the identity, restored by the driver if the module left it. */
static void after_run(struct run *r)
{
	r->fsuid_after = (uid_t)setfsuid((uid_t)-1);
	if (!identity_same()) {
		r->left_dropped = true;
		restore_identity();
		if (!identity_same())
			die("%s: cannot restore the file-system identity", current);
	}
}

#ifdef HAVE_PAM_START_CONFDIR
static void copy_env(pam_handle_t *pamh, struct strv *out)
{
	char **env = pam_getenvlist(pamh);

	if (env == NULL)
		die("pam_getenvlist failed");
	for (char **p = env; *p != NULL; p++) {
		strv_add(out, *p);
		free(*p);
	}
	free(env);
}

static void module_run(struct run *r, unsigned long fail_at, int variant,
                       unsigned long long fail_every)
{
	pam_handle_t *pamh = NULL;
	int fds = count_fds();
	struct strv again = {0};

	pamtest_log_reset();
	if (pam_start_confdir("fault", user, &pamtest_conv, at("pam.d"), &pamh) != PAM_SUCCESS)
		die("pam_start_confdir failed");
	for (const char *const *p = preset_env; *p != NULL; p++)
		if (pam_putenv(pamh, *p) != PAM_SUCCESS)
			die("pam_putenv failed");
	arm(fail_at, variant, fail_every);
	r->rc = pam_open_session(pamh, 0);
	disarm(r);
	after_run(r);
	copy_env(pamh, &r->env);
	r->outcome = classify_module(r);

	/* The application tries again on the same handle, without faults:
	 * after a success or a failed write, nothing changes (the files are
	 * applied at most once per handle); after an error before any write,
	 * everything is applied. */
	r->retried = true;
	r->retry_rc = pam_open_session(pamh, 0);
	r->retry_identity = identity_same();
	if (!r->retry_identity)
		restore_identity();
	copy_env(pamh, &again);
	r->retry_ok = r->retry_rc == PAM_SUCCESS && r->retry_identity &&
	              (same(&again, &r->env) ||
	               (r->rc != PAM_SUCCESS && env_is(&again, full_list(), count(full_list()))));
	strv_clear(&again);

	pam_end(pamh, r->rc);
	r->live = fault.live;
	r->foreign = fault.foreign_frees;
	r->fd_delta = fds < 0 ? 0 : count_fds() - fds;
}
#endif

static void count_diag(const struct envd_diag *d, void *data)
{
	(*(size_t *)data)++;
}

static void load_run(struct run *r, unsigned long fail_at, int variant,
                     unsigned long long fail_every)
{
	const char *const sys[] = {at("sys/etc"), at("sys/run"), at("sys/missing"), at("sys/lib"),
	                           NULL};
	struct envd_result *res = NULL;
	struct envd_policy *policy;
	struct envd_config cfg;
	int fds = count_fds();
	size_t ndiag = 0;

	arm(fail_at, variant, fail_every);
	policy = so.policy_new(true);
	r->rc = policy == NULL ? -ENOMEM : 0;
	if (r->rc == 0)
		r->rc = so.policy_allow(policy, "TMPDIR");
	if (r->rc == 0)
		r->rc = so.policy_deny(policy, "FAULT_DENIED_*");
	if (r->rc == 0) {
		so.config_init(&cfg);
		cfg.user_dir = at(UDIR);
		cfg.system_dirs = sys;
		cfg.user_uid = user_uid;
		cfg.admin_dir = at("sys/admin");
		cfg.admin_user = user;
		cfg.admin_groups = &user_gid;
		cfg.admin_ngroups = 1;
		cfg.base_env = preset_env;
		cfg.flags = ENVD_LINT;
		cfg.lint = so.lint;
		cfg.read_here = so.read_here;
		cfg.policy = policy;
		cfg.diag = count_diag;
		cfg.diag_data = &ndiag;
		r->rc = so.load(&cfg, &res);
		if (r->rc < 0 && res != NULL)
			r->rc = 1; /* an error with a result: classified as wrong */
	}
	disarm(r);
	after_run(r);
	for (size_t i = 0; res != NULL && i < so.result_count(res); i++) {
		const struct envd_var *v = so.result_var(res, i);
		char *e = malloc(strlen(v->name) + v->value_len + 2);

		if (e == NULL)
			die("out of memory");
		sprintf(e, "%s=%.*s", v->name, (int)v->value_len, v->value);
		strv_add(&r->env, e);
		free(e);
	}
	so.result_free(res);
	if (policy != NULL)
		so.policy_free(policy);
	r->live = fault.live;
	r->foreign = fault.foreign_frees;
	r->fd_delta = fds < 0 ? 0 : count_fds() - fds;
	r->outcome = classify_load(r);
}

/* ---- what each fault may lead to ---- */

static unsigned expected_module(int fn, int variant)
{
	int err = fault_fns[fn].v[variant].err;

	switch (fn) {
	case F_MALLOC:
	case F_CALLOC:
	case F_REALLOC:
	case F_REALLOCARRAY:
	case F_STRNDUP:
		/* out of memory fails the session, except where the module
		 * can do without: checking the groups (the user side is
		 * skipped) */
		return M(O_FULL) | M(O_NOUSER) | M(O_ERR_NONE) | M(O_ERR_PREFIX);
	case F_OPEN:
	case F_OPENAT:
	case F_READLINKAT:
	case F_READ:
	case F_FSTAT:
	case F_FSTATAT:
	case F_FSTATFS:
		if (err == EINTR)
			return M(O_FULL); /* retried */
		if (err == ENOMEM)
			return M(O_ERR_NONE); /* out of memory is internal: the session fails */
		return M(O_DEGRADED);         /* a file problem never fails a session */
	case F_READDIR:
		return M(O_DEGRADED); /* a listing cut short: what was listed counts */
	case F_CLOSE:
	case F_CLOSEDIR:
	case F_GETRANDOM:
	case F_PAM_GET_DATA:
		return M(O_FULL);
	case F_FDOPENDIR:
		return M(O_ERR_NONE);
	case F_CLOCKTIME:
		/* the reader's deadline, or the user side's: the user side is
		 * skipped from there on, what was read before counts */
		return M(O_DEGRADED);
	case F_PIPE2:
	case F_FORK:
		/* no reader: the user side is skipped; or, for the look-up's
		 * reader, the user is looked up here and the user side's own
		 * reader reads */
		return M(O_NOUSER) | M(O_FULL);
	case F_DUP2:
	case F_FCNTL:
		return M(O_FULL); /* a generator's process only: never the login's */
	case F_POLL:
		if (err == EINTR)
			return M(O_FULL); /* waited again */
		/* the kernel's failure: no reader; or, waiting for the reader's
		 * end after its records (a pidfd), waited by its pid instead */
		return M(O_NOUSER) | M(O_FULL);
	case F_GETGROUPLIST:
		return M(O_NOUSER) | M(O_FULL); /* asked again with a larger list */
	case F_PAM_GETPWNAM:
		/* no passwd entry: no user side, and as root no admin_dir
		 * file of the user's or its groups' either */
		return M(O_NOUSER) | M(O_DEGRADED);
	case F_GETGRNAM_R:
		/* NSS out of memory fails the load; another error: that
		 * group's directory is not read */
		return err == ENOMEM ? M(O_ERR_NONE) : M(O_DEGRADED);
	case F_GETPWNAM_R:
		/* the private-group rule: NSS out of memory fails the load;
		 * another error: the group is not taken for private, its
		 * writable files are not read */
		return err == ENOMEM ? M(O_ERR_NONE) : M(O_DEGRADED);
	case F_PAM_GET_ITEM:
	case F_PAM_SET_DATA:
	case F_PAM_GETENVLIST:
		return M(O_ERR_NONE);
	case F_PAM_PUTENV:
		return M(O_ERR_NONE) | M(O_ERR_PREFIX);
	case F_PAM_GETENV:
		/* the cleanup record says "unset" instead of the old value: the
		 * session itself gets everything */
		return M(O_FULL);
	}
	return 0;
}

static unsigned expected_load(int fn, int variant)
{
	switch (fn) {
	case F_MALLOC:
	case F_CALLOC:
	case F_REALLOC:
	case F_REALLOCARRAY:
	case F_STRNDUP:
		return M(O_FULL) | M(O_ERR_NONE);
	case F_FDOPENDIR:
		/* out of memory, in either listing: the load fails */
		return M(O_FULL) | M(O_ERR_NONE);
	case F_READDIR:
		return M(O_DEGRADED);
	default:
		return expected_module(fn, variant);
	}
}

static bool accepted(unsigned mask, enum outcome o)
{
	if (mask & M(o))
		return true;
	if ((o == O_FULL || o == O_NOUSER) && (mask & M(O_DEGRADED)))
		return true;
	return o == O_ERR_NONE && (mask & M(O_ERR_PREFIX));
}

/* ---- the loop ---- */

typedef void (*run_fn)(struct run *r, unsigned long fail_at, int variant,
                       unsigned long long fail_every);

struct stats {
	unsigned long points, runs;
	unsigned long outcomes[O_COUNT];
};

static struct stats per_fn[F_COUNT];
static unsigned long total_points, total_runs, total_injected;

static void describe(char *out, size_t outsz, const char *scenario, unsigned long n,
                     const struct fault_call *c, int variant)
{
	Dl_info info = {0};
	const char *where = "?";
	size_t off = 0;

	if (dladdr(c->caller, &info) != 0 && info.dli_sname != NULL) {
		where = info.dli_sname;
		off = (size_t)((const char *)c->caller - (const char *)info.dli_saddr);
	} else if (info.dli_fname != NULL) { /* a static function: addr2line -e SO */
		where = strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1
		                                     : info.dli_fname;
		off = (size_t)((const char *)c->caller - (const char *)info.dli_fbase);
	}
	snprintf(out, outsz, "%s: call %lu, %s failing with %s, called from %s+0x%zx", scenario, n,
	         fault_fns[c->fn].name, fault_fns[c->fn].v[variant].label, where, off);
}

static void check_failed(const char *what, const struct run *r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void check_failed(const char *what, const struct run *r, const char *fmt, ...)
{
	va_list ap;

	failures++;
	if (failures > 40)
		return;
	fprintf(stderr, "FAIL: %s: ", what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (r == NULL)
		return;
	fprintf(stderr, "  return code %d, %s; environment:\n", r->rc, outcome_name[r->outcome]);
	for (size_t i = 0; i < r->env.n; i++)
		fprintf(stderr, "    %s\n", r->env.v[i]);
	if (pamtest_log()[0])
		fprintf(stderr, "  syslog:\n%s", pamtest_log());
}

/* What every run must satisfy, faulty or not. */
static void check_common(const char *what, const struct run *r)
{
	if (r->live != 0)
		check_failed(what, r, "%zu allocations leaked", r->live);
	if (r->foreign != 0)
		check_failed(what, r, "%zu frees of memory not allocated (double free?)",
		             r->foreign);
	if (r->fd_delta != 0)
		check_failed(what, r, "%d file descriptors leaked", r->fd_delta);
	if (r->left_dropped)
		check_failed(what, r, "file-system identity left changed (fsuid %lu)",
		             (unsigned long)r->fsuid_after);
	if (r->outcome == O_BAD_ENV || r->outcome == O_BAD_RC)
		check_failed(what, r, "%s", outcome_name[r->outcome]);
	if (r->window_reads != 0)
		check_failed(what, r,
		             "%zu reads of the login process with another file-system uid "
		             "(%zu of them with effective capabilities)",
		             r->window_reads, r->window_reads_with_caps);
	if (r->retried && !r->retry_ok)
		check_failed(what, r,
		             "a second pam_open_session on the handle: return code %d, identity "
		             "%s, environment neither unchanged nor complete",
		             r->retry_rc, r->retry_identity ? "restored" : "NOT restored");
}

static void scenario(const char *name, run_fn run, unsigned (*expected)(int fn, int variant))
{
	struct run r = {0};
	struct fault_call *base;
	unsigned long n, calls;
	char what[512];

	snprintf(current, sizeof(current), "%s: counting run", name);
	run(&r, 0, 0, 0);
	calls = fault.calls;
	if (calls > FAULT_LOG_MAX)
		die("%s: %lu calls, more than the log holds", name, calls);
	base = malloc((calls + 1) * sizeof(*base));
	if (base == NULL)
		die("out of memory");
	memcpy(base, fault.log, calls * sizeof(*base));
	check_common(current, &r);
	if (r.outcome != O_FULL)
		check_failed(current, &r, "without faults, expected everything applied");
	if (calls == 0)
		die("%s: no call went through the wrappers: the test module is not wrapped", name);
	run_clear(&r);

	for (n = 1; n <= calls; n++) {
		int fn = base[n - 1].fn;

		per_fn[fn].points++;
		for (int v = 0; v < fault_fns[fn].nv; v++) {
			describe(what, sizeof(what), name, n, &base[n - 1], v);
			snprintf(current, sizeof(current), "%s", what);
			run(&r, n, v, 0);
			if (r.injected != 1 || r.injected_fn != fn)
				check_failed(
				    what, &r,
				    "the failure was not injected as counted (%lu injected, "
				    "into %s): the runs are not deterministic",
				    r.injected,
				    r.injected_fn >= 0 ? fault_fns[r.injected_fn].name : "-");
			total_injected += r.injected;
			/* no fault leaves the process with another identity:
			 * the module never changes its own */
			check_common(what, &r);
			if (!accepted(expected(fn, v), r.outcome))
				check_failed(what, &r, "outcome not expected for this fault");
			per_fn[fn].runs++;
			per_fn[fn].outcomes[r.outcome]++;
			total_runs++;
			run_clear(&r);
		}
	}
	total_points += calls;
	printf("%s: %lu fault points\n", name, calls);
	free(base);
}

/* The engine keys its hash once per process from getrandom(): that first
 * call is failed here, where it happens (later runs do not repeat it). */
static void warm_up(run_fn run, const char *name)
{
	struct run r = {0};

	snprintf(current, sizeof(current), "%s: warm-up, getrandom failing", name);
	run(&r, 0, 0, 1ull << F_GETRANDOM);
	check_common(current, &r);
	if (r.outcome != O_FULL)
		check_failed(current, &r, "expected everything applied");
	printf("%s: warm-up with getrandom failing: %lu failed, result unchanged\n", name,
	       r.injected);
	run_clear(&r);
}

static void pick_user(void)
{
	const struct passwd *pw = NULL;

	if (is_root)
		pw = getpwnam("nobody");
	if (pw == NULL || (is_root && pw->pw_uid == 0))
		pw = getpwuid(getuid());
	if (pw == NULL)
		die("no passwd entry to log in as");
	snprintf(user, sizeof(user), "%s", pw->pw_name);
	user_uid = pw->pw_uid;
	user_gid = pw->pw_gid;
}

int main(void)
{
	/* the calls every session makes; the others are wrapped for the
	 * paths that only some take (fault.sh's guard checks that all are) */
	/* clang-format off */
	static const int required[] = {
	    F_MALLOC,         F_CALLOC,       F_REALLOC,      F_OPENAT,        F_READ,
	    F_FSTATAT,        F_FSTATFS,      F_CLOSE,        F_READDIR,       F_PIPE2,
	    F_POLL,           F_PAM_GET_ITEM, F_PAM_GET_DATA, F_PAM_SET_DATA,  F_PAM_GETENVLIST,
	    F_PAM_PUTENV,     -1,
	};
	/* clang-format on */
	struct timespec t0, t1;
	unsigned long min_points;
	bool module_ok = true;
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	setvbuf(stdout, NULL, _IOLBF, 0);
#ifdef __SANITIZE_ADDRESS__
	__sanitizer_set_death_callback(crash_report);
#else
	signal(SIGSEGV, on_signal);
	signal(SIGBUS, on_signal);
	signal(SIGABRT, on_signal);
#endif
	is_root = geteuid() == 0;
	pick_user();
	save_identity();
	make_tree();
	atexit(remove_tree);
	load_module();
	printf("as %s: user %s%s\n", is_root ? "root" : "non-root", user,
	       is_root ? " (the user's files read by a child that is the user)" : "");

#ifdef HAVE_PAM_START_CONFDIR
	warm_up(module_run, "pam_open_session");
	scenario("pam_open_session", module_run, expected_module);
#else
	module_ok = false;
	warm_up(load_run, "envd_load");
	printf("SKIP: pam_start_confdir missing: the module's scenario does not run\n");
#endif
	scenario("envd_load", load_run, expected_load);

	/* per function: points, runs and what they led to */
	for (int f = 0; f < F_COUNT; f++) {
		if (per_fn[f].points == 0)
			continue;
		printf("  %-24s %4lu points %4lu runs:", fault_fns[f].name, per_fn[f].points,
		       per_fn[f].runs);
		for (int o = 0; o < O_COUNT; o++)
			if (per_fn[f].outcomes[o])
				printf(" %lu %s;", per_fn[f].outcomes[o], outcome_name[o]);
		printf("\n");
	}
	min_points = is_root ? MIN_POINTS_ROOT : MIN_POINTS_USER;
	if (total_points < min_points)
		check_failed("summary", NULL, "only %lu fault points (at least %lu)", total_points,
		             min_points);
	if (total_injected != total_runs)
		check_failed("summary", NULL, "%lu failures injected in %lu runs", total_injected,
		             total_runs);
	for (const int *f = required; module_ok && *f >= 0; f++)
		if (per_fn[*f].points == 0)
			check_failed("summary", NULL, "%s was never called", fault_fns[*f].name);

#ifdef __SANITIZE_ADDRESS__
	if (__lsan_do_recoverable_leak_check() != 0)
		check_failed("summary", NULL, "LeakSanitizer found leaks");
#endif
	if (so.handle != NULL)
		dlclose(so.handle);
	fault_reset(0, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("runs: %lu (each point once per failure variant), %.1f s\n", total_runs,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (failures > 0) {
		printf("FAIL: %lu checks failed\n", failures);
		rc = 1;
	} else {
		printf("failures injected: %lu in %lu runs\n", total_injected, total_runs);
		printf("fault points: %lu, each failed once: ok\n", total_points);
		rc = 0;
	}
	return rc;
}
