/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* pam_stack - the module inside a real libpam stack, without root.
 *
 * Each test writes a service file into a fresh directory of the build tree,
 * naming pam_envd.so (and the probe module that reports return codes) by
 * absolute path, runs it through pam_start_confdir(), and checks return
 * codes, pam_getenvlist() and what reached syslog.  Tests that need
 * root-owned system directories skip without root. */
#include "config.h"

#undef NDEBUG
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_appl.h>

#include "pamtest.h"

#ifndef PAM_ENVD_SO
#error "PAM_ENVD_SO must name the built module"
#endif
#ifndef PAM_PROBE_SO
#error "PAM_PROBE_SO must name the probe module"
#endif

/* snprintf that fails the test instead of truncating */
#define FMT(buf, size, ...) assert_true((size_t)snprintf(buf, size, __VA_ARGS__) < (size_t)(size))

static char top[PATH_MAX];  /* this test's directory */
static char user[256];      /* the caller, as PAM_USER */
static char home[PATH_MAX]; /* the caller's passwd home */
static bool is_root;

/* ---- syslog: tests/lib/pamtest.c captures what pam_syslog sends ---- */

static size_t loglines; /* lines from modules, not from libpam itself */

static void count_line(const char *line, size_t len, void *data)
{
	loglines += strncmp(line, "PAM ", 4) != 0;
	if (getenv("PAM_STACK_VERBOSE") != NULL)
		fprintf(stderr, "syslog: %s\n", line);
}

static void log_reset(void)
{
	pamtest_log_reset();
	loglines = 0;
}

/* ---- files ---- */

static const char *at(const char *rel)
{
	static char buf[8][PATH_MAX];
	static unsigned next;
	char *p = buf[next++ % 8];

	FMT(p, PATH_MAX, "%s/%s", top, rel);
	return p;
}

static void mkdirs(const char *path, mode_t mode)
{
	assert_int_equal(tf_mkdirs(path, mode), 0);
}

static void putn(const char *rel, const void *data, size_t len)
{
	assert_int_equal(tf_write(at(rel), data, len, 0644), 0);
}

static void put(const char *rel, const char *text)
{
	putn(rel, text, strlen(text));
}

/* The user directory and the four system directories of every test. */
#define UDIR    "home/.config/environment.d"
#define SYS_ETC "sys/etc/environment.d"
#define SYS_LIB "sys/usr/lib/environment.d"

static const char *dirs_opts(void)
{
	static char buf[4 * PATH_MAX + 64];

	FMT(buf, sizeof(buf),
	    "user_dir=%s/" UDIR " system_dirs=%s/sys/etc/environment.d:%s/sys/run/"
	    "environment.d:%s/sys/usr/local/lib/environment.d:%s/" SYS_LIB,
	    top, top, top, top, top);
	return buf;
}

static int setup(void **state)
{
	char tmpl[PATH_MAX];
	const char *base = getenv("TMPDIR");

	/* below TMPDIR (absolute: the module takes absolute directories
	 * only), not in the build tree: every directory above the files must
	 * be root's or the user's and not writable by others, which a tree
	 * built with umask 002 is not */
	if (base == NULL || base[0] != '/')
		base = "/tmp";
	FMT(tmpl, sizeof(tmpl), "%s/envd-pam_stack.XXXXXX", base);
	if (tf_scratch(tmpl) < 0)
		return -1;
	FMT(top, sizeof(top), "%s", tmpl);
	mkdirs(at(UDIR), 0755);
	mkdirs(at(SYS_ETC), 0755);
	mkdirs(at(SYS_LIB), 0755);
	mkdirs(at("pam.d"), 0755);
	log_reset();
	pamtest_log_hook(count_line, NULL);
	return 0;
}

static int teardown(void **state)
{
	tf_rm_tree(top);
	return 0;
}

/* ---- PAM ---- */

/* Writes service NAME: "@MOD@" becomes the module's path, "@PROBE@" the
 * probe's, "@DIRS@" the options naming this test's directories. */
static void service(const char *name, const char *text)
{
	char out[16384], rel[128];
	size_t o = 0;

	for (const char *p = text; *p != '\0';) {
		const char *rep = NULL;
		size_t skip = 0;

		if (strncmp(p, "@MOD@", 5) == 0) {
			/* the build tree's reader: the installed one is not there */
			rep = PAM_ENVD_SO " reader=" TEST_READER;
			skip = 5;
		} else if (strncmp(p, "@PROBE@", 7) == 0) {
			rep = PAM_PROBE_SO;
			skip = 7;
		} else if (strncmp(p, "@DIRS@", 6) == 0) {
			rep = dirs_opts();
			skip = 6;
		}
		if (rep != NULL) {
			size_t n = strlen(rep);

			assert_true(o + n < sizeof(out));
			memcpy(out + o, rep, n);
			o += n;
			p += skip;
		} else {
			assert_true(o + 1 < sizeof(out));
			out[o++] = *p++;
		}
	}
	out[o] = '\0';
	FMT(rel, sizeof(rel), "pam.d/%s", name);
	putn(rel, out, o);
}

static pam_handle_t *start(const char *svc, const char *who)
{
	pam_handle_t *pamh = NULL;

	assert_int_equal(pam_start_confdir(svc, who, &pamtest_conv, at("pam.d"), &pamh),
	                 PAM_SUCCESS);
	return pamh;
}

static void end(pam_handle_t *pamh, int rc)
{
	assert_int_equal(pam_end(pamh, rc), PAM_SUCCESS);
}

/* One session: "session required MODULE opts", optional preset environment
 * entries, open_session; returns the environment (caller frees). */
static char **session_env(const char *opts, const char *const *preset, int *rc)
{
	char text[8192];
	pam_handle_t *pamh;
	char **env;

	FMT(text, sizeof(text), "session required @MOD@ @DIRS@ %s\n", opts);
	service("s", text);
	pamh = start("s", user);
	for (; preset != NULL && *preset != NULL; preset++)
		assert_int_equal(pam_putenv(pamh, *preset), PAM_SUCCESS);
	*rc = pam_open_session(pamh, 0);
	env = pam_getenvlist(pamh);
	assert_non_null(env);
	end(pamh, *rc);
	return env;
}

static char **open_ok(const char *opts, const char *const *preset)
{
	int rc;
	char **env = session_env(opts, preset, &rc);

	assert_int_equal(rc, PAM_SUCCESS);
	return env;
}

static const char *env_get(char **env, const char *name)
{
	size_t n = strlen(name);

	for (; *env != NULL; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

static size_t env_count(char **env)
{
	size_t n = 0;

	for (; *env != NULL; env++)
		n += strncmp(*env, "PROBE_RC_", 9) != 0;
	return n;
}

static void env_free(char **env)
{
	for (char **p = env; *p != NULL; p++)
		free(*p);
	free(env);
}

#define assert_env(env, name, value) assert_string_equal(env_get(env, name) ?: "(unset)", value)
#define assert_unset(env, name)      assert_null(env_get(env, name))

static void need_root(void)
{
	if (!is_root)
		skip();
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The PAM environment's NAME is WANT: a variable that is not there fails
 * the test with its name (cmocka's string compare would crash on NULL). */
static void assert_pam_env(pam_handle_t *pamh, const char *name, const char *want)
{
	const char *v = pam_getenv(pamh, name);

	if (v == NULL)
		fail_msg("%s is not set in the PAM environment; expected \"%s\"", name, want);
	assert_string_equal(v, want);
}

/* ---- entry points ---- */

static int probe_rc(pam_handle_t *pamh, const char *fn)
{
	char name[64];
	const char *v;

	FMT(name, sizeof(name), "PROBE_RC_%s", fn);
	v = pam_getenv(pamh, name);
	assert_non_null(v);
	return atoi(v);
}

static void t_entry_points(void **state)
{
	static const char stack[] = "auth required @PROBE@ @MOD@ @DIRS@\n"
	                            "account required @PROBE@ @MOD@ @DIRS@\n"
	                            "password required @PROBE@ @MOD@ @DIRS@\n"
	                            "session required @PROBE@ @MOD@ @DIRS@\n";
	pam_handle_t *pamh;

	put(UDIR "/a.conf", "A=1\n");
	service("e", stack);
	pamh = start("e", user);
	pam_authenticate(pamh, 0);
	assert_int_equal(probe_rc(pamh, "authenticate"), PAM_IGNORE);
	pam_acct_mgmt(pamh, 0);
	assert_int_equal(probe_rc(pamh, "acct_mgmt"), PAM_SERVICE_ERR);
	pam_chauthtok(pamh, 0);
	assert_int_equal(probe_rc(pamh, "chauthtok"), PAM_SERVICE_ERR);
	assert_null(pam_getenv(pamh, "A"));
	assert_true(pamtest_logged("pam_envd is a session module"));
	end(pamh, PAM_SUCCESS);

	/* libpam derives setcred's result from the frozen authenticate chain,
	 * so the session calls get a handle of their own */
	pamh = start("e", user);
	assert_int_equal(pam_open_session(pamh, 0), PAM_SUCCESS);
	assert_int_equal(probe_rc(pamh, "open_session"), PAM_SUCCESS);
	assert_pam_env(pamh, "A", "1");
	assert_int_equal(pam_setcred(pamh, PAM_ESTABLISH_CRED), PAM_SUCCESS);
	assert_int_equal(probe_rc(pamh, "setcred"), PAM_SUCCESS);
	assert_int_equal(pam_setcred(pamh, PAM_REFRESH_CRED), PAM_SUCCESS);
	assert_int_equal(pam_setcred(pamh, PAM_DELETE_CRED), PAM_SUCCESS);
	assert_int_equal(probe_rc(pamh, "setcred"), PAM_SUCCESS);
	assert_int_equal(pam_close_session(pamh, 0), PAM_SUCCESS);
	assert_int_equal(probe_rc(pamh, "close_session"), PAM_SUCCESS);
	end(pamh, PAM_SUCCESS);
}

static void t_setcred_alone_applies(void **state)
{
	pam_handle_t *pamh;

	put(UDIR "/a.conf", "A=from-setcred\n");
	service("c", "auth required @PROBE@ @MOD@ @DIRS@\n");
	pamh = start("c", user);
	assert_int_equal(pam_setcred(pamh, PAM_ESTABLISH_CRED), PAM_SUCCESS);
	assert_pam_env(pamh, "A", "from-setcred");
	end(pamh, PAM_SUCCESS);

	/* PAM_DELETE_CRED alone applies nothing */
	pamh = start("c", user);
	assert_int_equal(pam_setcred(pamh, PAM_DELETE_CRED), PAM_SUCCESS);
	assert_null(pam_getenv(pamh, "A"));
	end(pamh, PAM_SUCCESS);
}

static void t_no_pam_user(void **state)
{
	pam_handle_t *pamh;

	put(UDIR "/a.conf", "A=1\n");
	service("n", "auth required @PROBE@ @MOD@ @DIRS@\n"
	             "session required @PROBE@ @MOD@ @DIRS@\n");
	pamh = start("n", NULL);
	pam_open_session(pamh, 0);
	assert_int_equal(probe_rc(pamh, "open_session"), PAM_SESSION_ERR);
	pam_setcred(pamh, PAM_ESTABLISH_CRED);
	assert_int_equal(probe_rc(pamh, "setcred"), PAM_CRED_ERR);
	assert_null(pam_getenv(pamh, "A"));
	end(pamh, PAM_SUCCESS);
}

/* ---- what gets written ---- */

static void t_applies_user_files(void **state)
{
	char expect[PATH_MAX + 64];
	char **env;

	put(UDIR "/10-a.conf", "# comment\nEDITOR=vim\nPATH=$HOME/bin:$PATH\n"
	                       "GREETING=\"hello $USER\"\n");
	put(UDIR "/20-b.conf", "EDITOR=emacs\nB=${EDITOR:+$EDITOR-mode}\n");
	env = open_ok("", NULL);
	FMT(expect, sizeof(expect), "%s/bin:" ENVD_DEFAULT_PATH, home);
	assert_env(env, "PATH", expect);
	assert_env(env, "EDITOR", "emacs");
	FMT(expect, sizeof(expect), "hello %s", user);
	assert_env(env, "GREETING", expect);
	assert_env(env, "B", "emacs-mode");
	/* the login fallbacks are for expansion only */
	assert_unset(env, "HOME");
	assert_unset(env, "USER");
	assert_unset(env, "LOGNAME");
	assert_unset(env, "SHELL");
	assert_int_equal(env_count(env), 4);
	env_free(env);
}

static void t_system_files(void **state)
{
	char **env;

	need_root();
	put(SYS_LIB "/10-sys.conf", "SYS=lib\nSHARED=lib\nLD_LIBRARY_PATH=/opt/lib\n");
	put(SYS_ETC "/10-sys.conf", "SYS=etc\n"); /* masks the lib file */
	put(SYS_LIB "/20-sys.conf", "SHARED=lib20\nONLY_LIB=1\n");
	put(UDIR "/30-user.conf", "SHARED=user-$SHARED\n");
	env = open_ok("", NULL);
	assert_env(env, "SYS", "etc");
	assert_env(env, "SHARED", "user-lib20");
	assert_env(env, "ONLY_LIB", "1");
	/* the policy is for user files; the masked file set nothing */
	assert_unset(env, "LD_LIBRARY_PATH");
	env_free(env);

	put(SYS_ETC "/10-sys.conf", "SYS=etc\nLD_LIBRARY_PATH=/opt/lib\n");
	env = open_ok("", NULL);
	assert_env(env, "LD_LIBRARY_PATH", "/opt/lib");
	env_free(env);
}

static void t_dev_null_masks(void **state)
{
	char **env;

	need_root();
	put(SYS_LIB "/50-vendor.conf", "VENDOR=1\n");
	put(SYS_LIB "/60-other.conf", "OTHER=1\n");
	assert_int_equal(symlink("/dev/null", at(UDIR "/50-vendor.conf")), 0);
	mkdirs(at(UDIR "/60-other.conf"), 0755); /* a directory masks too */
	env = open_ok("", NULL);
	assert_unset(env, "VENDOR");
	assert_unset(env, "OTHER");
	env_free(env);
}

static void t_debug_names_no_values(void **state)
{
	char **env;

	put(UDIR "/a.conf", "TRACED=value-not-for-logs\n");
	log_reset();
	env = open_ok("", NULL);
	assert_false(pamtest_logged("TRACED"));
	env_free(env);
	log_reset();
	env = open_ok("debug", NULL);
	assert_true(pamtest_logged("a.conf:1: TRACED"));
	assert_true(pamtest_logged("variables set"));
	assert_false(pamtest_logged("value-not-for-logs"));
	env_free(env);
}

static void t_expansion_base_is_pam_env(void **state)
{
	const char *preset[] = {"FROM_APP=app", "HOME=/app/home", NULL};
	char **env;

	setenv("FROM_PROCESS", "process", 1);
	put(UDIR "/a.conf", "A=$FROM_APP\nP=${FROM_PROCESS:-never}\nH=$HOME\n");
	env = open_ok("", preset);
	assert_env(env, "A", "app");
	assert_env(env, "P", "never"); /* the process environment is not consulted */
	assert_env(env, "H", "/app/home");
	assert_env(env, "HOME", "/app/home"); /* the application's, untouched */
	env_free(env);
	unsetenv("FROM_PROCESS");
}

static void t_apply_once(void **state)
{
	static const char stack[] = "auth required @PROBE@ @MOD@ @DIRS@\n"
	                            "session required @PROBE@ @MOD@ @DIRS@\n";
	char expect[PATH_MAX + 64];
	pam_handle_t *pamh;

	put(UDIR "/a.conf", "PATH=$HOME/bin:$PATH\nX=${X:+$X-}a\n");
	FMT(expect, sizeof(expect), "%s/bin:" ENVD_DEFAULT_PATH, home);
	service("o", stack);
	pamh = start("o", user);
	assert_int_equal(pam_setcred(pamh, PAM_ESTABLISH_CRED), PAM_SUCCESS);
	assert_int_equal(pam_open_session(pamh, 0), PAM_SUCCESS);
	assert_int_equal(pam_setcred(pamh, PAM_REINITIALIZE_CRED), PAM_SUCCESS);
	assert_int_equal(pam_open_session(pamh, 0), PAM_SUCCESS);
	assert_pam_env(pamh, "PATH", expect);
	assert_pam_env(pamh, "X", "a");
	end(pamh, PAM_SUCCESS);

	/* open_session first, then setcred */
	pamh = start("o", user);
	assert_int_equal(pam_open_session(pamh, 0), PAM_SUCCESS);
	assert_int_equal(pam_setcred(pamh, PAM_ESTABLISH_CRED), PAM_SUCCESS);
	assert_pam_env(pamh, "X", "a");
	end(pamh, PAM_SUCCESS);

	/* a new handle applies again */
	pamh = start("o", user);
	assert_int_equal(pam_open_session(pamh, 0), PAM_SUCCESS);
	assert_pam_env(pamh, "X", "a");
	end(pamh, PAM_SUCCESS);
}

static void t_nooverwrite(void **state)
{
	const char *preset[] = {"KEEP=app", NULL};
	char **env;

	put(UDIR "/a.conf", "KEEP=file\nUSES=$KEEP\nNEW=new\n");
	env = open_ok("", preset);
	assert_env(env, "KEEP", "file");
	assert_env(env, "USES", "file");
	env_free(env);
	env = open_ok("nooverwrite", preset);
	assert_env(env, "KEEP", "app");
	assert_env(env, "USES", "app");
	assert_env(env, "NEW", "new");
	env_free(env);
}

static void t_noexpand(void **state)
{
	char **env;

	put(UDIR "/a.conf", "E=$HOME/x\nF=${A:-b}\n");
	env = open_ok("noexpand", NULL);
	assert_env(env, "E", "$HOME/x");
	assert_env(env, "F", "${A:-b}");
	env_free(env);
}

/* ---- policy ---- */

static void t_policy_default(void **state)
{
	char **env;

	put(UDIR "/a.conf", "LD_PRELOAD=/tmp/evil.so\nLD_LIBRARY_PATH=/tmp\nBASH_ENV=/tmp/x\n"
	                    "ENV=/tmp/x\nSHELLOPTS=xtrace\nBASH_FUNC_ls%%=() { :; }\nPS4=$(id)\n"
	                    "IFS=x\nGCONV_PATH=/tmp\nGLIBC_TUNABLES=x\nPYTHONPATH=/tmp\n"
	                    "PERL5OPT=-Mx\nNODE_OPTIONS=--require=/tmp/x\nXDG_SESSION_TYPE=x11\n"
	                    "XDG_SEAT=seat0\nXDG_VTNR=1\nXDG_RUNTIME_DIR=/tmp\nOK=1\n");
	env = open_ok("", NULL);
	assert_env(env, "OK", "1");
	assert_int_equal(env_count(env), 1);
	assert_true(pamtest_logged("LD_PRELOAD"));
	assert_true(pamtest_logged("a.conf:1"));
	assert_false(pamtest_logged("/tmp/evil.so"));
	env_free(env);
}

static void t_policy_options(void **state)
{
	char **env;

	put(UDIR "/a.conf", "PYTHONPATH=/opt/py\nFOO_BAR=1\nFOO=2\nLD_PRELOAD=x\n");
	env = open_ok("user_allow=PYTHONPATH user_deny=FOO_*", NULL);
	assert_env(env, "PYTHONPATH", "/opt/py");
	assert_unset(env, "FOO_BAR");
	assert_env(env, "FOO", "2");
	assert_unset(env, "LD_PRELOAD");
	env_free(env);

	/* repeated options add up */
	env = open_ok("user_deny=FOO user_deny=FOO_*", NULL);
	assert_unset(env, "FOO_BAR");
	assert_unset(env, "FOO");
	env_free(env);

	/* allow-list mode; the defaults still hold; an empty list fails
	 * closed for the user side */
	env = open_ok("user_only=FOO,LD_*", NULL);
	assert_env(env, "FOO", "2");
	assert_unset(env, "FOO_BAR");
	assert_unset(env, "PYTHONPATH");
	assert_unset(env, "LD_PRELOAD");
	env_free(env);
	log_reset();
	env = open_ok("user_only=,", NULL);
	assert_unset(env, "FOO");
	assert_true(pamtest_logged("user_only=: invalid pattern list"));
	env_free(env);

	/* PAM_*, tools' variables and a TZ naming a file */
	put(UDIR "/b.conf", "PAM_USER=root\nGIT_DIR=/tmp/g\nTZ=:/tmp/fifo\nGIT_PAGER=less\n");
	env = open_ok("", NULL);
	assert_unset(env, "PAM_USER");
	assert_unset(env, "GIT_DIR");
	assert_unset(env, "TZ");
	assert_env(env, "GIT_PAGER", "less");
	env_free(env);
}

/* ---- options ---- */

static void t_options(void **state)
{
	char **env;
	char opt[PATH_MAX + 64];

	put(UDIR "/a.conf", "U=1\nP=$PATH\n");
	env = open_ok("nouser", NULL);
	assert_unset(env, "U");
	env_free(env);

	env = open_ok("default_path=/opt/bin", NULL);
	assert_env(env, "P", "/opt/bin");
	env_free(env);

	/* unknown and empty options are logged and ignored */
	log_reset();
	env = open_ok("frobnicate user_dir= max_env=lots max_env=0", NULL);
	assert_env(env, "U", "1");
	assert_true(pamtest_logged("unknown option: frobnicate"));
	assert_true(pamtest_logged("user_dir=: no value; fix: give one after '='; ignored"));
	assert_true(pamtest_logged("max_env="));
	env_free(env);

	/* a template naming the directory by user name */
	FMT(opt, sizeof(opt), "users/%s/env/a.conf", user);
	put(opt, "T=1\n");
	FMT(opt, sizeof(opt), "user_dir=%s/users/%%u/env", top);
	env = open_ok(opt, NULL);
	assert_env(env, "T", "1");
	assert_unset(env, "U"); /* the later user_dir= wins over @DIRS@'s */
	env_free(env);

	/* a bad template switches the user side off, and the session opens */
	log_reset();
	env = open_ok("user_dir=%x/env", NULL);
	assert_unset(env, "U");
	assert_true(pamtest_logged("user_dir=: unknown specifier %x; fix: use %h (home), %u (user) "
	                           "or %% (a %); the user's files are skipped"));
	env_free(env);
	env = open_ok("user_dir=relative/%u", NULL);
	assert_unset(env, "U");
	env_free(env);

	/* a malformed policy option fails closed for the user side */
	env = open_ok("user_allow=", NULL);
	assert_env(env, "U", "1"); /* empty: ignored */
	env_free(env);
}

static void t_system_dirs_option(void **state)
{
	char opt[PATH_MAX * 2];
	char **env;

	need_root();
	put("alt/a.conf", "ALT=1\n");
	put(SYS_ETC "/a.conf", "ETC=1\n");
	FMT(opt, sizeof(opt), "system_dirs=relative/dir:%s/alt:", top);
	log_reset();
	env = open_ok(opt, NULL);
	assert_env(env, "ALT", "1");
	assert_unset(env, "ETC");
	assert_true(pamtest_logged("relative"));
	env_free(env);

	/* more directories than the engine takes: the session still opens */
	{
		char many[PATH_MAX * 24] = "system_dirs=";

		for (int i = 0; i < 20; i++) {
			strcat(many, top);
			strcat(many, "/alt:");
		}
		env = open_ok(many, NULL);
		env_free(env);
	}
}

static void t_default_user_dir(void **state)
{
	char h[PATH_MAX + 16], x[PATH_MAX + 32];
	const char *preset[3] = {h, NULL, NULL};
	char **env;
	int rc;

	put("h2/.config/environment.d/a.conf", "WHERE=home\n");
	put("xdg/environment.d/a.conf", "WHERE=xdg\n");
	FMT(h, sizeof(h), "HOME=%s/h2", top);
	service("d", "session required @MOD@\n");
	{
		pam_handle_t *pamh = start("d", user);

		assert_int_equal(pam_putenv(pamh, h), PAM_SUCCESS);
		rc = pam_open_session(pamh, 0);
		assert_int_equal(rc, PAM_SUCCESS);
		assert_pam_env(pamh, "WHERE", "home");
		end(pamh, rc);
	}
	FMT(x, sizeof(x), "XDG_CONFIG_HOME=%s/xdg", top);
	preset[1] = x;
	{
		pam_handle_t *pamh = start("d", user);

		for (int i = 0; preset[i] != NULL; i++)
			assert_int_equal(pam_putenv(pamh, preset[i]), PAM_SUCCESS);
		assert_int_equal(pam_open_session(pamh, 0), PAM_SUCCESS);
		assert_pam_env(pamh, "WHERE", "xdg");
		end(pamh, PAM_SUCCESS);
	}
	/* a relative XDG_CONFIG_HOME is not used */
	{
		pam_handle_t *pamh = start("d", user);

		assert_int_equal(pam_putenv(pamh, h), PAM_SUCCESS);
		assert_int_equal(pam_putenv(pamh, "XDG_CONFIG_HOME=xdg"), PAM_SUCCESS);
		assert_int_equal(pam_open_session(pamh, 0), PAM_SUCCESS);
		assert_pam_env(pamh, "WHERE", "home");
		end(pamh, PAM_SUCCESS);
	}
	(void)env;
}

/* ---- a login never fails because of files ---- */

static void t_missing_and_odd_dirs(void **state)
{
	char opt[PATH_MAX + 64];
	char **env;

	FMT(opt, sizeof(opt), "user_dir=%s/does/not/exist", top);
	env = open_ok(opt, NULL);
	env_free(env);

	put("plainfile", "A=1\n");
	FMT(opt, sizeof(opt), "user_dir=%s/plainfile", top);
	env = open_ok(opt, NULL);
	assert_unset(env, "A");
	env_free(env);

	/* a user directory writable by others is skipped */
	put(UDIR "/a.conf", "A=1\n");
	chmod(at(UDIR), 0777);
	log_reset();
	env = open_ok("", NULL);
	assert_unset(env, "A");
	assert_true(pamtest_logged("writable"));
	env_free(env);
	chmod(at(UDIR), 0755);

	/* a file writable by others is skipped, its neighbours apply */
	put(UDIR "/b.conf", "B=1\n");
	chmod(at(UDIR "/a.conf"), 0666);
	env = open_ok("", NULL);
	assert_unset(env, "A");
	assert_env(env, "B", "1");
	env_free(env);
}

static void t_unknown_user(void **state)
{
	pam_handle_t *pamh;

	need_root(); /* the system side must be root's */
	put(SYS_ETC "/a.conf", "SYS=1\nWHO=${USER:-nobody}\n");
	service("u", "session required @MOD@ @DIRS@\n");
	pamh = start("u", "pam-envd-no-such-user");
	assert_int_equal(pam_open_session(pamh, 0), PAM_SUCCESS);
	assert_pam_env(pamh, "SYS", "1");
	assert_pam_env(pamh, "WHO", "nobody");
	end(pamh, PAM_SUCCESS);
}

static void t_hostile_entries(void **state)
{
	static const char garbage[] = "\x7f"
	                              "ELF\x02\x01\x01\x00\x00\x00A=1\n";
	static const char badutf[] = "BAD=\xff\xfe secret-in-bad-utf8\nGOOD_UTF=ok\n";
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	double t0;
	char **env;
	int s;

	put(UDIR "/00-good.conf", "GOOD=1\n");
	putn(UDIR "/01-garbage.conf", garbage, sizeof(garbage) - 1);
	put(UDIR "/02-cr.conf", "CR1=a\rCR2=b\r");
	put(UDIR "/03-badutf.conf", badutf);
	assert_int_equal(mkfifo(at(UDIR "/04-fifo.conf"), 0644), 0);
	if (strlen(at(UDIR "/05-sock.conf")) < sizeof(sa.sun_path)) {
		memcpy(sa.sun_path, at(UDIR "/05-sock.conf"), strlen(at(UDIR "/05-sock.conf")) + 1);
		s = socket(AF_UNIX, SOCK_STREAM, 0);
		assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof(sa)), 0);
		close(s);
	}
	assert_int_equal(symlink("/dev/zero", at(UDIR "/06-zero.conf")), 0);
	assert_int_equal(symlink("/dev/urandom", at(UDIR "/07-random.conf")), 0);
	assert_int_equal(symlink("/dev/tty", at(UDIR "/08-tty.conf")), 0);
	assert_int_equal(symlink("/proc/self/environ", at(UDIR "/09-environ.conf")), 0);
	assert_int_equal(symlink("/proc/self/status", at(UDIR "/10-status.conf")), 0);
	assert_int_equal(symlink("/etc/shadow", at(UDIR "/11-shadow.conf")), 0);
	assert_int_equal(symlink("nowhere", at(UDIR "/12-dangling.conf")), 0);
	mkdirs(at(UDIR "/13-dir.conf"), 0755);
	put(UDIR "/99-last.conf", "LAST=1\n");
	setenv("PAM_STACK_SECRET", "secret-in-process-env", 1);

	t0 = now();
	log_reset();
	env = open_ok("", NULL);
	assert_true(now() - t0 < 10.0);
	assert_env(env, "GOOD", "1");
	assert_env(env, "CR1", "a");
	assert_env(env, "CR2", "b");
	assert_env(env, "GOOD_UTF", "ok");
	assert_unset(env, "BAD");
	assert_env(env, "LAST", "1");
	for (char **p = env; *p != NULL; p++)
		assert_null(strstr(*p, "secret-in"));
	assert_false(pamtest_logged("secret-in"));
	assert_true(pamtest_logged("03-badutf.conf:1"));
	env_free(env);
	unsetenv("PAM_STACK_SECRET");
}

static void t_log_injection(void **state)
{
	char **env;

	put(UDIR "/a\nFAKE: root login.conf", "A=1\n");
	chmod(at(UDIR "/a\nFAKE: root login.conf"), 0666); /* makes the module name it */
	log_reset();
	env = open_ok("", NULL);
	assert_false(pamtest_logged("\nFAKE"));
	assert_true(pamtest_logged("a\\nFAKE"));
	env_free(env);
}

/* ---- limits ---- */

static void t_limits(void **state)
{
	size_t big = 140 * 1024, total = 0;
	char *text = malloc(big + 64);
	char many[100 * 64];
	double t0;
	char **env;

	assert_non_null(text);
	memcpy(text, "BIG=", 4);
	memset(text + 4, 'x', big);
	strcpy(text + 4 + big, "\nSMALL=1\n");
	put(UDIR "/a.conf", text);
	free(text);
	env = open_ok("", NULL);
	assert_unset(env, "BIG");
	assert_env(env, "SMALL", "1");
	env_free(env);

	many[0] = '\0';
	for (int i = 0; i < 100; i++)
		FMT(many + strlen(many), sizeof(many) - strlen(many),
		    "V%02d=0123456789012345678901234567890123456789\n", i);
	put(UDIR "/a.conf", many);
	log_reset();
	env = open_ok("max_env=1K", NULL);
	for (char **p = env; *p != NULL; p++)
		total += strlen(*p) + 1;
	assert_true(total <= 1024);
	assert_env(env, "V00", "0123456789012345678901234567890123456789");
	assert_unset(env, "V99");
	assert_true(pamtest_logged("1024"));
	env_free(env);

	/* max_env cannot raise the engine's cap */
	log_reset();
	env = open_ok("max_env=64M", NULL);
	assert_env(env, "V99", "0123456789012345678901234567890123456789");
	assert_true(pamtest_logged("cannot raise"));
	env_free(env);

	/* exponential expansion and a huge file finish quickly */
	{
		char *exp = malloc(200 * 16 + 16);

		strcpy(exp, "A=xx\n");
		for (int i = 0; i < 200; i++)
			strcat(exp, "A=$A$A$A$A\n");
		strcat(exp, "AFTER=1\n");
		put(UDIR "/a.conf", exp);
		free(exp);
	}
	{
		size_t n = 5u << 20;
		char *huge = malloc(n);

		memset(huge, '#', n);
		putn(UDIR "/b.conf", huge, n);
		free(huge);
	}
	t0 = now();
	env = open_ok("", NULL);
	assert_true(now() - t0 < 10.0);
	assert_env(env, "AFTER", "1");
	env_free(env);
}

static void t_many_files(void **state)
{
	char name[64], text[64];
	double t0;
	char **env;

	for (int i = 0; i < 5000; i++) {
		FMT(name, sizeof(name), UDIR "/%05d.conf", i);
		FMT(text, sizeof(text), "F%05d=%d\n", i, i);
		put(name, text);
	}
	log_reset();
	t0 = now();
	env = open_ok("", NULL);
	assert_true(now() - t0 < 20.0);
	assert_env(env, "F00000", "0");
	assert_true(loglines <= 100 + 5); /* the module's cap on lines per login */
	env_free(env);
}

static void t_log_cap(void **state)
{
	char *text = malloc(3000 * 8 + 1);
	char **env, want[128];

	text[0] = '\0';
	for (int i = 0; i < 3000; i++)
		strcat(text, "1BAD=x\n");
	put(UDIR "/a.conf", text);
	free(text);

	/* the 3000 lines are the only problems as root; without root the
	 * system paths of setup() pass through the caller's scratch directory,
	 * and the module refuses each of the four (systemd's safe chase: four
	 * problems more, whether the directory exists or not) */
	FMT(want, sizeof(want), "%d more problems with environment files not logged",
	    3000 + (is_root ? 0 : 4) - 100);
	log_reset();
	env = open_ok("", NULL);
	assert_true(loglines <= 100 + 1);
	if (!pamtest_logged(want))
		fail_msg("not logged: \"%s\"", want);
	env_free(env);
}

/* ---- the cleanup instance ---- */

/* The section of a probe record file that follows the nth "== fn" (0: the
 * first), one entry a line; "" when the file has none. */
static char *record_section_nth(const char *file, const char *fn, int nth)
{
	static char buf[65536];
	char head[64], line[4096];
	size_t o = 0;
	bool in = false;
	FILE *f = fopen(at(file), "r");

	buf[0] = '\0';
	if (f == NULL)
		return buf;
	FMT(head, sizeof(head), "== %s\n", fn);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "== ", 3) == 0) {
			if (in)
				break;
			in = strcmp(line, head) == 0 && nth-- == 0;
			continue;
		}
		if (in && o + strlen(line) < sizeof(buf)) {
			memcpy(buf + o, line, strlen(line) + 1);
			o += strlen(line);
		}
	}
	fclose(f);
	return buf;
}

static char *record_section(const char *file, const char *fn)
{
	return record_section_nth(file, fn, 0);
}

static bool record_has(const char *file, const char *fn, const char *entry)
{
	char needle[256];
	const char *s = record_section(file, fn);

	FMT(needle, sizeof(needle), "\n%s\n", entry);
	return strncmp(s, needle + 1, strlen(needle + 1)) == 0 || strstr(s, needle) != NULL;
}

/* The pair: the cleanup instance first, the applying one last.  A module
 * stacked between them sees none of the user's values at open, and at
 * close neither it nor one after the applying instance does: the values
 * the login had before are back, the new ones gone. */
static void t_cleanup_pair(void **state)
{
	char stack[4 * PATH_MAX];
	char expect[PATH_MAX + 64];
	pam_handle_t *pamh;

	put(UDIR "/a.conf", "EDITOR=vim\nNEW=new\nPATH=$HOME/bin:$PATH\n");
	FMT(stack, sizeof(stack),
	    "session required @PROBE@ @MOD@ cleanup\n"
	    "session required @PROBE@ record %s\n"
	    "session required @MOD@ @DIRS@\n"
	    "session required @PROBE@ record %s\n",
	    at("before.rec"), at("after.rec"));
	service("k", stack);
	pamh = start("k", user);
	assert_int_equal(pam_putenv(pamh, "EDITOR=nano"), PAM_SUCCESS);
	assert_int_equal(pam_putenv(pamh, "PATH=/usr/bin:/bin"), PAM_SUCCESS);
	assert_int_equal(pam_open_session(pamh, 0), PAM_SUCCESS);
	assert_int_equal(probe_rc(pamh, "open_session"), PAM_SUCCESS);
	/* the session gets everything */
	FMT(expect, sizeof(expect), "%s/bin:/usr/bin:/bin", home);
	assert_pam_env(pamh, "PATH", expect);
	assert_pam_env(pamh, "EDITOR", "vim");
	assert_pam_env(pamh, "NEW", "new");
	assert_true(record_has("after.rec", "open_session", "NEW=new"));
	assert_true(record_has("before.rec", "open_session", "EDITOR=nano"));
	assert_false(record_has("before.rec", "open_session", "NEW=new"));

	assert_int_equal(pam_close_session(pamh, 0), PAM_SUCCESS);
	assert_int_equal(probe_rc(pamh, "close_session"), PAM_SUCCESS);
	for (int i = 0; i < 2; i++) {
		const char *rec = i == 0 ? "before.rec" : "after.rec";

		assert_true(record_has(rec, "close_session", "EDITOR=nano"));
		assert_true(record_has(rec, "close_session", "PATH=/usr/bin:/bin"));
		assert_false(record_has(rec, "close_session", "EDITOR=vim"));
		assert_false(record_has(rec, "close_session", "NEW=new"));
	}
	assert_null(pam_getenv(pamh, "NEW"));
	assert_pam_env(pamh, "EDITOR", "nano");

	/* called again: nothing left to take back, nothing changed */
	assert_int_equal(pam_putenv(pamh, "NEW=app"), PAM_SUCCESS);
	assert_int_equal(pam_close_session(pamh, 0), PAM_SUCCESS);
	assert_int_equal(probe_rc(pamh, "close_session"), PAM_SUCCESS);
	assert_pam_env(pamh, "NEW", "app");
	assert_pam_env(pamh, "EDITOR", "nano");
	end(pamh, PAM_SUCCESS);
}

/* Without the cleanup instance a module stacked before the applying one
 * sees the user's values at close: what the pair is for. */
static void t_cleanup_missing(void **state)
{
	char stack[4 * PATH_MAX];
	pam_handle_t *pamh;

	put(UDIR "/a.conf", "NEW=new\n");
	FMT(stack, sizeof(stack),
	    "session required @PROBE@ record %s\n"
	    "session required @MOD@ @DIRS@\n",
	    at("before.rec"));
	service("m", stack);
	pamh = start("m", user);
	assert_int_equal(pam_open_session(pamh, 0), PAM_SUCCESS);
	assert_int_equal(pam_close_session(pamh, 0), PAM_SUCCESS);
	assert_true(record_has("before.rec", "close_session", "NEW=new"));
	end(pamh, PAM_SUCCESS);
}

/* A cleanup instance alone applies nothing and succeeds; one in the auth
 * stack takes back at close what setcred applied; stacked after the
 * applying instance it still takes everything back at close. */
static void t_cleanup_alone_and_setcred(void **state)
{
	pam_handle_t *pamh;

	put(UDIR "/a.conf", "NEW=new\n");
	service("a", "auth required @PROBE@ @MOD@ cleanup\n"
	             "session required @PROBE@ @MOD@ cleanup debug\n");
	pamh = start("a", user);
	assert_int_equal(pam_setcred(pamh, PAM_ESTABLISH_CRED), PAM_SUCCESS);
	assert_int_equal(pam_open_session(pamh, 0), PAM_SUCCESS);
	assert_null(pam_getenv(pamh, "NEW"));
	log_reset();
	assert_int_equal(pam_close_session(pamh, 0), PAM_SUCCESS);
	assert_int_equal(probe_rc(pamh, "close_session"), PAM_SUCCESS);
	assert_true(pamtest_logged("cleanup: nothing was applied to this handle"));
	end(pamh, PAM_SUCCESS);

	service("b", "auth required @MOD@ @DIRS@\n"
	             "session required @MOD@ @DIRS@\n"
	             "session required @PROBE@ @MOD@ cleanup\n");
	pamh = start("b", user);
	assert_int_equal(pam_putenv(pamh, "NEW=app"), PAM_SUCCESS);
	assert_int_equal(pam_setcred(pamh, PAM_ESTABLISH_CRED), PAM_SUCCESS);
	assert_pam_env(pamh, "NEW", "new");
	assert_int_equal(pam_open_session(pamh, 0), PAM_SUCCESS);
	assert_pam_env(pamh, "NEW", "new");
	assert_int_equal(pam_close_session(pamh, 0), PAM_SUCCESS);
	assert_int_equal(probe_rc(pamh, "close_session"), PAM_SUCCESS);
	assert_pam_env(pamh, "NEW", "app");
	end(pamh, PAM_SUCCESS);
}

/* ---- a program that copies the PAM environment into its own ---- */

extern char **environ;

/* util-linux login (login-utils/login.c) copies the PAM environment into
 * its root process after open_session and closes the session from that
 * process after the session's child exits: setcred(PAM_DELETE_CRED) before
 * close_session up to 2.41 (Debian 13, Fedora 42), after it from 2.42. */
enum close_order { DELETE_CRED_FIRST, CLOSE_FIRST };

/* What the program does with its environment between open and close. */
enum program {
	COPIES,         /* login: a fresh environ, then every PAM entry */
	COPIES_CHANGES, /* the same, then changes some variables itself */
	NO_COPY,        /* sshd, su, shadow's login: environ stays its own */
	OWN_LANG,       /* the same, with its own LANG equal to a system file's */
};

/* Appends "== label" and environ, one entry a line, to the file rel. */
static bool write_environ(const char *rel, const char *label)
{
	FILE *f = fopen(at(rel), "a");

	if (f == NULL)
		return false;
	fprintf(f, "== %s\n", label);
	for (char **p = environ; *p != NULL; p++)
		fprintf(f, "%s\n", *p);
	return fclose(f) == 0;
}

/* login's calls on service svc for the user, in its order, with EDITOR=nano
 * in the PAM environment before open (as pam_env would set it).  Runs in a
 * child process of the test (it replaces environ); the session, a child of
 * that, records the environment it starts with in program.rec ("==
 * session"), and the program records its own before the close ("==
 * before_close") and after pam_end ("== end"), and what the modules logged
 * in program.log.  Returns 0, or the number of the step that failed. */
static int login_like(const char *svc, enum close_order order, enum program prog)
{
	char mail[PATH_MAX + 32];
	pam_handle_t *pamh = NULL;
	char **env;
	pid_t pid;
	int rc, status;

	if (prog == OWN_LANG && setenv("LANG", "xx_YY.UTF-8", 1) != 0)
		return 1;
	if (pam_start_confdir(svc, user, &pamtest_conv, at("pam.d"), &pamh) != PAM_SUCCESS)
		return 1;
	if (pam_putenv(pamh, "EDITOR=nano") != PAM_SUCCESS ||
	    pam_authenticate(pamh, 0) != PAM_SUCCESS)
		return 2;
	if (pam_acct_mgmt(pamh, 0) != PAM_SUCCESS)
		return 3;
	/* loginpam_session */
	if (pam_setcred(pamh, PAM_ESTABLISH_CRED) != PAM_SUCCESS ||
	    pam_open_session(pamh, 0) != PAM_SUCCESS ||
	    pam_setcred(pamh, PAM_REINITIALIZE_CRED) != PAM_SUCCESS)
		return 4;
	/* init_environ: a fresh environment with login's own variables, then
	 * putenv of every entry of the PAM environment */
	if (prog == NO_COPY || prog == OWN_LANG) {
		if (setenv("EDITOR", "own", 1) != 0 || setenv("PATH", "/usr/bin:/bin", 1) != 0)
			return 5;
	} else {
		environ = calloc(1, sizeof(char *));
		snprintf(mail, sizeof(mail), "/var/mail/%s", user);
		if (environ == NULL || setenv("HOME", home, 0) != 0 ||
		    setenv("USER", user, 1) != 0 || setenv("SHELL", "/bin/sh", 1) != 0 ||
		    setenv("PATH", "/usr/local/bin:/bin:/usr/bin", 1) != 0 ||
		    setenv("MAIL", mail, 0) != 0 || setenv("LOGNAME", user, 1) != 0)
			return 5;
		env = pam_getenvlist(pamh);
		for (size_t i = 0; env != NULL && env[i] != NULL; i++)
			if (putenv(env[i]) != 0)
				return 5;
	}
	if (prog == COPIES_CHANGES && (setenv("EDITOR", "program", 1) != 0 || unsetenv("NEW") != 0))
		return 6;
	/* fork_session: the session in a child, the close in the parent */
	pid = fork();
	if (pid == 0)
		_exit(write_environ("program.rec", "session") ? 0 : 1);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status != 0)
		return 7;
	if (!write_environ("program.rec", "before_close"))
		return 8;
	if (order == DELETE_CRED_FIRST) {
		(void)pam_setcred(pamh, PAM_DELETE_CRED);
		rc = pam_close_session(pamh, 0);
	} else {
		rc = pam_close_session(pamh, 0);
		(void)pam_setcred(pamh, PAM_DELETE_CRED);
	}
	pam_end(pamh, rc);
	if (!write_environ("program.rec", "end"))
		return 8;
	/* what the modules logged, for the parent */
	if (tf_write(at("program.log"), pamtest_log(), strlen(pamtest_log()), 0600) != 0)
		return 8;
	return rc == PAM_SUCCESS ? 0 : 9;
}

/* The stack of these tests: a pam_permit stand-in for auth and account
 * that records the process environment, and the pair with, between its
 * two instances, a module that records the process environment as
 * pam_script and pam_mount hand it to their programs. */
static void login_service(void)
{
	char stack[4 * PATH_MAX + 512];

	put(UDIR "/a.conf", "EDITOR=vim\nNEW=new\nPATH=$HOME/bin:$PATH\n");
	FMT(stack, sizeof(stack),
	    "auth required @PROBE@ environ %s\n"
	    "account required @PROBE@ environ %s\n"
	    "session required @MOD@ cleanup debug\n"
	    "session required @PROBE@ environ %s\n"
	    "session required @MOD@ @DIRS@\n",
	    at("auth.rec"), at("account.rec"), at("between.rec"));
	service("login", stack);
}

static void run_login(enum close_order order, enum program prog)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(login_like("login", order, prog));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* NAME's value in the nth "== fn" section of a record, or NULL. */
static const char *record_get(const char *file, const char *fn, int nth, const char *name)
{
	static char value[4096];
	char head[256];
	const char *s = record_section_nth(file, fn, nth), *p;
	size_t n;

	FMT(head, sizeof(head), "%s=", name);
	for (p = s; *p != '\0'; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != '\0')) {
		if (strncmp(p, head, strlen(head)) != 0)
			continue;
		n = strcspn(p + strlen(head), "\n");
		assert_true(n < sizeof(value));
		memcpy(value, p + strlen(head), n);
		value[n] = '\0';
		return value;
	}
	return NULL;
}

/* program.log, what the modules logged in the child, has needle */
static void assert_logged(const char *needle)
{
	char buf[65536];
	size_t n;
	FILE *f = fopen(at("program.log"), "r");

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	if (strstr(buf, needle) == NULL)
		fail_msg("not logged: \"%s\"; the log:\n%s", needle, buf);
}

#define assert_rec(file, fn, nth, name, want)                                                      \
	assert_string_equal(record_get(file, fn, nth, name) ?: "(unset)", want)

/* The user's values in login's process environment at close: what the
 * session got, what pam_script's programs get at logout in the old
 * module (the user's PATH: a bare command of a logout script ran the
 * user's ~/bin/logger as root), and what they get now. */
static void login_copies(enum close_order order)
{
	char upath[PATH_MAX + 64];

	login_service();
	run_login(order, COPIES);
	FMT(upath, sizeof(upath), "%s/bin:" ENVD_DEFAULT_PATH, home);
	/* the session gets everything, in the PAM environment's copy */
	assert_rec("program.rec", "session", 0, "EDITOR", "vim");
	assert_rec("program.rec", "session", 0, "NEW", "new");
	assert_rec("program.rec", "session", 0, "PATH", upath);
	/* at close the modules after the cleanup instance see the values
	 * from before: the PAM environment's, or none (PATH had none there:
	 * login's own from before its copy is not known, and an unset PATH is
	 * the system's default) */
	assert_rec("between.rec", "close_session", 0, "EDITOR", "nano");
	assert_rec("between.rec", "close_session", 0, "NEW", "(unset)");
	assert_rec("between.rec", "close_session", 0, "PATH", "(unset)");
	/* login's own variables stay */
	assert_rec("between.rec", "close_session", 0, "HOME", home);
	assert_rec("between.rec", "close_session", 0, "LOGNAME", user);
	assert_rec("program.rec", "end", 0, "NEW", "(unset)");
	assert_rec("program.rec", "end", 0, "EDITOR", "nano");
	assert_logged("cleanup: 3 variables taken back, 3 in the process environment");
	/* Up to 2.41, setcred(PAM_DELETE_CRED) runs the auth stack's setcred
	 * hooks before close_session, i.e. before the cleanup instance: they
	 * still see the user's values (pam_exec, pam_script and pam_mount run
	 * nothing there).  From 2.42 they run after it. */
	assert_rec("auth.rec", "setcred", 0, "NEW", "(unset)"); /* ESTABLISH_CRED */
	assert_rec("auth.rec", "setcred", 2, "NEW", order == DELETE_CRED_FIRST ? "new" : "(unset)");
}

static void t_login_copy_delete_cred_first(void **state)
{
	login_copies(DELETE_CRED_FIRST);
}

static void t_login_copy_close_first(void **state)
{
	login_copies(CLOSE_FIRST);
}

/* What the program changed itself after its copy is its own: left alone. */
static void t_login_copy_changed(void **state)
{
	login_service();
	run_login(DELETE_CRED_FIRST, COPIES_CHANGES);
	assert_rec("program.rec", "session", 0, "EDITOR", "program");
	assert_rec("between.rec", "close_session", 0, "EDITOR", "program");
	assert_rec("between.rec", "close_session", 0, "NEW", "(unset)");
	/* not changed: taken back */
	assert_rec("between.rec", "close_session", 0, "PATH", "(unset)");
	assert_rec("program.rec", "end", 0, "EDITOR", "program");
	assert_logged("cleanup: 3 variables taken back, 1 in the process environment");
}

/* A program that keeps its own environment finds it untouched. */
static void t_login_no_copy(void **state)
{
	char *before;

	login_service();
	run_login(CLOSE_FIRST, NO_COPY);
	assert_rec("program.rec", "session", 0, "EDITOR", "own");
	assert_rec("program.rec", "session", 0, "NEW", "(unset)");
	before = strdup(record_section("program.rec", "before_close"));
	assert_non_null(before);
	assert_string_equal(record_section("between.rec", "close_session"), before);
	assert_string_equal(record_section("program.rec", "end"), before);
	free(before);
	assert_logged("cleanup: 3 variables taken back, 0 in the process environment");
}

/* A program's own variable whose value happens to be the one a file set
 * (its LANG and the system's) is the program's: at close it still has it,
 * and so have the close hooks after the cleanup instance. */
static void t_login_own_equal_value(void **state)
{
	/* a system file's value: the system directories below the test's
	 * tree are root's only as root */
	need_root();
	login_service();
	put(SYS_ETC "/50-lang.conf", "LANG=xx_YY.UTF-8\n");
	run_login(CLOSE_FIRST, OWN_LANG);
	assert_rec("program.rec", "before_close", 0, "LANG", "xx_YY.UTF-8");
	assert_rec("between.rec", "close_session", 0, "LANG", "xx_YY.UTF-8");
	assert_rec("program.rec", "end", 0, "LANG", "xx_YY.UTF-8");
	assert_logged("cleanup: 4 variables taken back, 0 in the process environment");
}

/* ---- the module and `envd show` agree ---- */

static size_t read_all(FILE *f, char **out)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	size_t n;

	while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	*out = buf;
	return len;
}

/* ---- envd audit reads stacks as this libpam does ---- */

/* What `envd audit --pam-dir=<this test's pam.d> SERVICE` prints, read as
 * the Linux-PAM of COMPAT_PAM_VERSION (the compat cells) or, without it,
 * as the installed one envd finds; NULL when envd is not built. */
static char *audit_out(const char *svc)
{
	const char *envd = getenv("ENVD"), *ver = getenv("COMPAT_PAM_VERSION");
	char cmd[PATH_MAX * 2 + 128];
	char *out;
	size_t len;
	FILE *p;

	if (envd == NULL || access(envd, X_OK) != 0)
		return NULL;
	FMT(cmd, sizeof(cmd), "'%s' audit --pam-dir '%s' %s%s %s", envd, at("pam.d"),
	    ver ? "--pam-version=" : "", ver ? ver : "", svc);
	p = popen(cmd, "r");
	assert_non_null(p);
	len = read_all(p, &out);
	pclose(p);
	out = realloc(out, len + 1);
	assert_non_null(out);
	out[len] = '\0';
	return out;
}

/* Linux-PAM 1.5 and older join a line continued across a comment line to
 * the one after the comment, 1.6 and later end it at the comment.  Here
 * that decides whether the first line is the cleanup instance (its option
 * after the comment) or an applying one, which the probe below it sees at
 * open; envd audit must read the file as this libpam does. */
static void t_continued_across_comment(void **state)
{
	const char *ver = getenv("COMPAT_PAM_VERSION");
	char stack[4 * PATH_MAX];
	pam_handle_t *pamh;
	bool joined;
	char *out;

	put(UDIR "/a.conf", "NEW=new\n");
	FMT(stack, sizeof(stack),
	    "session optional @MOD@ @DIRS@ \\\n"
	    "# the cleanup instance: its option on the next line\n"
	    "\tcleanup\n"
	    "session required @PROBE@ record %s\n"
	    "session optional @MOD@ @DIRS@\n",
	    at("mid.rec"));
	service("c", stack);
	pamh = start("c", user);
	assert_int_equal(pam_open_session(pamh, 0), PAM_SUCCESS);
	joined = !record_has("mid.rec", "open_session", "NEW=new");
	end(pamh, PAM_SUCCESS);
	if (ver != NULL) {
		int major = 0, minor = 0;

		assert_int_equal(sscanf(ver, "%d.%d", &major, &minor), 2);
		if (joined != (major == 1 && minor < 6))
			fail_msg("Linux-PAM %s %s the lines across the comment", ver,
			         joined ? "joins" : "does not join");
	}
	out = audit_out("c");
	if (out == NULL)
		skip();
	if (strstr(out, "crosses a comment") != NULL) {
		free(out); /* no version known: audit reads both ways */
		skip();
	}
	if (joined)
		assert_string_equal(
		    out, "c: ok\n1 service checked, 1 applies pam_envd.so, 0 findings\n");
	else
		assert_non_null(strstr(out, "pam_envd.so has no cleanup instance"));
	free(out);
}

/* At close libpam takes each line's action from the return value cached
 * at open: a jump over the cleanup instance at open is taken at close too,
 * even where the module answers otherwise then (here PAM_IGNORE, which
 * "default=ignore" would not jump on).  envd audit reports the jump. */
static void t_close_repeats_open_jumps(void **state)
{
	char stack[4 * PATH_MAX];
	pam_handle_t *pamh;
	char *out;

	put(UDIR "/a.conf", "NEW=new\n");
	FMT(stack, sizeof(stack),
	    "session [success=1 default=ignore] @PROBE@ returns %d %d\n"
	    "session optional @MOD@ cleanup\n"
	    "session required @PROBE@ record %s\n"
	    "session optional @MOD@ @DIRS@\n",
	    PAM_SUCCESS, PAM_IGNORE, at("after.rec"));
	service("j", stack);
	pamh = start("j", user);
	assert_int_equal(pam_open_session(pamh, 0), PAM_SUCCESS);
	assert_string_equal(pam_getenv(pamh, "NEW"), "new");
	assert_int_equal(pam_close_session(pamh, 0), PAM_SUCCESS);
	assert_true(record_has("after.rec", "close_session", "NEW=new"));
	assert_string_equal(pam_getenv(pamh, "NEW"), "new");
	end(pamh, PAM_SUCCESS);
	out = audit_out("j");
	if (out == NULL)
		skip();
	assert_string_equal(out, "j: j:1: pam_probe.so may jump over the cleanup instance at j:2, "
	                         "and close_session takes the jumps open_session took: the close "
	                         "hooks after the jump see the user's values\n"
	                         "1 service checked, 1 applies pam_envd.so, 1 finding\n");
	free(out);
}

static void agree_once(const char *mod_opts, const char *envd_opts, const char *const *preset)
{
	const char *envd = getenv("ENVD");
	char cmd[PATH_MAX * 3];
	char *out;
	size_t len, i = 0, k = 0;
	FILE *p;
	char **env;

	FMT(cmd, sizeof(cmd), "'%s' show '%s' -q --format nul --root '%s/sys' --user-dir '%s' %s",
	    envd, user, top, at(UDIR), envd_opts);
	p = popen(cmd, "r");
	assert_non_null(p);
	len = read_all(p, &out);
	assert_int_equal(pclose(p), 0);
	env = open_ok(mod_opts, preset);
	while (i < len) {
		const char *entry = out + i;

		/* pam_getenvlist keeps the order of first pam_putenv */
		while (env[k] != NULL && strncmp(env[k], "PROBE_RC_", 9) == 0)
			k++;
		assert_non_null(env[k]);
		assert_string_equal(env[k], entry);
		k++;
		i += strlen(entry) + 1;
	}
	assert_null(env[k]);
	free(out);
	env_free(env);
}

static void t_agrees_with_envd(void **state)
{
	const char *envd = getenv("ENVD");

	if (envd == NULL || access(envd, X_OK) != 0)
		skip();
	put(UDIR "/10-user.conf", "# user\nEDITOR=vim\nPATH=$HOME/bin:$PATH\n"
	                          "LD_PRELOAD=/tmp/x.so\nQ='single $EDITOR' \"double\\\"q\" tail\n"
	                          "LONG=a\\\n  b\nDEF=${UNSET:-dflt}${EDITOR:+alt}\n"
	                          "SHELL=/bin/false\nHOME=/elsewhere\n");
	put(UDIR "/30-masks.conf", "MASK=user\n");
	if (is_root) {
		put(SYS_ETC "/20-sys.conf", "SYS=etc\nEDITOR=nano\nLD_LIBRARY_PATH=/opt\n");
		put(SYS_LIB "/20-sys.conf", "SYSLIB=never\n");
		put(SYS_LIB "/30-masks.conf", "MASK=lib\n");
		put(SYS_LIB "/05-early.conf", "EARLY=$EDITOR\n");
	}
	agree_once("", "", NULL);
	agree_once("nooverwrite", "--no-overwrite", NULL);
	agree_once("noexpand", "--no-expand", NULL);
	agree_once("nooverwrite noexpand", "--no-overwrite --no-expand", NULL);
	agree_once("user_allow=LD_PRELOAD", "--user-allow=LD_PRELOAD", NULL);
	agree_once("user_deny=EDITOR", "--user-deny=EDITOR", NULL);
	agree_once("user_only=EDITOR:PATH", "--user-only=EDITOR:PATH", NULL);
	agree_once("max_env=40", "--max-env=40", NULL);
	if (is_root) {
		char opt[PATH_MAX + 64];

		/* envd's --root prefixes --system-dirs as it does the four */
		FMT(opt, sizeof(opt), "system_dirs=%s/" SYS_LIB, top);
		agree_once(opt, "--system-dirs=/usr/lib/environment.d", NULL);
	}
}

/* A malformed value: the module logs "name=: PROBLEM; ...", envd says
 * "envd: --name: PROBLEM" and exits 2, with the same PROBLEM. */
static void same_problem(const char *mod_opt, const char *envd_opt)
{
	const char *envd = getenv("ENVD");
	char cmd[PATH_MAX * 2], want[512], name[64];
	char *err, *colon;
	size_t len, n;
	FILE *p;
	char **env;

	FMT(cmd, sizeof(cmd), "'%s' show '%s' --root '%s/sys' '%s' 2>&1 >/dev/null", envd, user,
	    top, envd_opt);
	p = popen(cmd, "r");
	assert_non_null(p);
	len = read_all(p, &err);
	assert_int_equal(WEXITSTATUS(pclose(p)), 2);
	err[len < 1 ? 0 : len - 1] = '\0';
	/* "envd: --max-env: not a positive size\nTry ..." */
	assert_true(strncmp(err, "envd: --", 8) == 0);
	colon = strchr(err + 8, ':');
	assert_non_null(colon);
	*strchr(colon, '\n') = '\0';
	n = strcspn(mod_opt, "=");
	FMT(name, sizeof(name), "%.*s", (int)n, mod_opt);
	FMT(want, sizeof(want), "%s=%s;", name, colon);
	log_reset();
	env = open_ok(mod_opt, NULL);
	if (!pamtest_logged(want))
		fail_msg("module did not log \"%s\":\n%s", want, pamtest_log());
	free(err);
	env_free(env);
}

static void t_options_same_problems(void **state)
{
	const char *envd = getenv("ENVD");

	if (envd == NULL || access(envd, X_OK) != 0)
		skip();
	same_problem("max_env=lots", "--max-env=lots");
	same_problem("max_env=0", "--max-env=0");
	same_problem("max_env=64M", "--max-env=64M");
	same_problem("user_only=,", "--user-only=,");
	same_problem("user_allow=[", "--user-allow=[");
	same_problem("user_dir=%x/env", "--user-dir=%x/env");
	same_problem("user_dir=relative", "--user-dir=relative");
	same_problem("system_dirs=relative", "--system-dirs=relative");
	same_problem("default_path=", "--default-path=");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(t_entry_points, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_setcred_alone_applies, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_no_pam_user, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_applies_user_files, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_system_files, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_dev_null_masks, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_debug_names_no_values, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_expansion_base_is_pam_env, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_apply_once, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_nooverwrite, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_noexpand, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_policy_default, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_policy_options, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_options, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_system_dirs_option, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_default_user_dir, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_missing_and_odd_dirs, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_unknown_user, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_hostile_entries, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_log_injection, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_limits, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_many_files, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_log_cap, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_agrees_with_envd, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_options_same_problems, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_cleanup_pair, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_cleanup_missing, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_cleanup_alone_and_setcred, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_login_copy_delete_cred_first, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_login_copy_close_first, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_login_copy_changed, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_login_no_copy, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_login_own_equal_value, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_continued_across_comment, setup, teardown),
	    cmocka_unit_test_setup_teardown(t_close_repeats_open_jumps, setup, teardown),
	};
	struct passwd *pw = getpwuid(geteuid());

	if (pw == NULL) {
		fprintf(stderr, "pam_stack: the caller is not in passwd\n");
		return 77;
	}
	if (strlen(pw->pw_name) >= sizeof(user) || strlen(pw->pw_dir) >= sizeof(home))
		return 77;
	strcpy(user, pw->pw_name);
	strcpy(home, pw->pw_dir);
	is_root = geteuid() == 0;
	umask(022);
	return cmocka_run_group_tests_name("pam_stack", tests, NULL, NULL);
}
