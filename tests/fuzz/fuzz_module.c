/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* fuzz_module - pam_envd.so's open_session through the real libpam.
 *
 * Each input becomes a tree (layout: fuzz.h) and a service file in the
 * harness's private directory that names the built module by absolute path
 * with user_dir= and system_dirs= pointing into the tree; pam_start_confdir
 * reads it.  The base environment goes in with pam_putenv, then the stack's
 * open_session runs, then open_session and setcred run again.
 *
 * Knobs ('o' section): byte 0 bits: 0 debug, 1 nouser, 2 nooverwrite,
 * 3 noexpand, 4 max_env= (bytes 2-3, in bytes), 5 user_allow= and 6
 * user_deny= (patterns from the 'o' bytes 4-19), 7 user directory mode 0777;
 * byte 1 bit 0: a user that does not exist.  The user is "nobody" when the
 * harness runs as root (so the privilege drop is exercised), else the caller.
 *
 * Invariants: every call returns PAM_SUCCESS; every variable the module set
 * (absent from the base, or with another value) has a valid name that some
 * file assigns, a value that is valid UTF-8, and fits 128 KiB as NAME=VALUE;
 * what it set in all fits max_env (or the engine's default result cap); with
 * nooverwrite every base variable keeps its value; a name the default policy
 * refuses is only set when a system file assigns it or user_allow= is given;
 * the second open_session and setcred change nothing; nothing logged shows a
 * byte only a value holds, and every log line is printable ASCII. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <security/pam_appl.h>

#include "envd.h"
#include "internal.h"
#include "fuzz.h"
#include "pamtest.h"

#ifndef PAM_ENVD_SO
#define PAM_ENVD_SO ""
#endif

static struct fuzz_tree tree;
static char confdir[320];
static char module[512];
static const char *user;
static struct envd_policy *default_policy;
static const char *skip_reason;

/* ---- the log: every line pam_syslog sends (tests/lib/pamtest.c) is checked ---- */

static bool log_known[256];

static void check_line(const char *line, size_t len, void *data)
{
	size_t i;

	for (i = 0; i < len; i++)
		FUZZ_CHECK((unsigned char)line[i] >= 0x20 && (unsigned char)line[i] < 0x7f,
		           "log line with byte 0x%02x: \"%s\"", (unsigned char)line[i], line);
	fuzz_check_text("a log line", line, len, log_known);
	if (getenv("FUZZ_MODULE_VERBOSE"))
		fprintf(stderr, "syslog: %s\n", line);
}

/* ---- set-up ---- */

const char *fuzz_skip_reason(void)
{
	return skip_reason;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *so = getenv("ENVD_FUZZ_MODULE");

	snprintf(module, sizeof(module), "%s", so && *so ? so : PAM_ENVD_SO);
#ifndef HAVE_PAM_START_CONFDIR
	skip_reason = "libpam has no pam_start_confdir";
	return 0;
#endif
	if (!module[0] || access(module, R_OK) != 0) {
		skip_reason = "the module is not built (set ENVD_FUZZ_MODULE)";
		return 0;
	}
	/* Keep the module loaded for good: libpam loads and unloads it for every
	 * handle, and the fuzzer's coverage counters live in its mapping. */
	FUZZ_SETUP(dlopen(module, RTLD_NOW | RTLD_GLOBAL) != NULL);
	if (geteuid() == 0 && getpwnam("nobody"))
		user = "nobody";
	else {
		struct passwd *pw = getpwuid(geteuid());

		FUZZ_SETUP(pw != NULL);
		user = strdup(pw->pw_name);
	}
	fuzz_tree_init(&tree, "fuzz_module");
	snprintf(confdir, sizeof(confdir), "%s/pam.d", tree.top);
	FUZZ_SETUP(mkdir(confdir, 0755) == 0);
	pamtest_log_hook(check_line, NULL);
	pamtest_log_capture(false); /* only the module's work is checked */
	default_policy = envd_policy_new(true);
	FUZZ_SETUP(default_policy != NULL);
	return 0;
}

/* Printable pattern characters only: PAM splits arguments at blanks. */
static void knob_patterns(const struct fuzz_section *sec, size_t n, char *out, size_t max)
{
	size_t i, j = 0;

	for (i = 4; i < 20 && j + 1 < max; i++) {
		unsigned c = fuzz_knob(sec, n, i);

		if (c == 0)
			break;
		if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("_*?,:", (int)c))
			out[j++] = (char)c;
	}
	out[j] = '\0';
}

static void write_service(const struct fuzz_section *sec, size_t n, size_t *max_env, bool *allow)
{
	unsigned k0 = fuzz_knob(sec, n, 0);
	char pat[32], args[2048];
	size_t len;

	len = (size_t)snprintf(args, sizeof(args), "user_dir=%s system_dirs=%s:%s:%s:%s",
	                       tree.dirs[FUZZ_USER], tree.sys[0], tree.sys[1], tree.sys[2],
	                       tree.sys[3]);
	if (k0 & 1)
		len += (size_t)snprintf(args + len, sizeof(args) - len, " debug");
	if (k0 & 2)
		len += (size_t)snprintf(args + len, sizeof(args) - len, " nouser");
	if (k0 & 4)
		len += (size_t)snprintf(args + len, sizeof(args) - len, " nooverwrite");
	if (k0 & 8)
		len += (size_t)snprintf(args + len, sizeof(args) - len, " noexpand");
	*max_env = 0;
	if (k0 & 16) {
		*max_env = fuzz_knob(sec, n, 2) << 8 | fuzz_knob(sec, n, 3);
		len += (size_t)snprintf(args + len, sizeof(args) - len, " max_env=%zu", *max_env);
		if (*max_env == 0)
			*max_env = ENVD_MAX_RESULT_BYTES; /* refused by the module: the default */
	}
	knob_patterns(sec, n, pat, sizeof(pat));
	*allow = (k0 & 32) != 0;
	if ((k0 & 32) && pat[0])
		len += (size_t)snprintf(args + len, sizeof(args) - len, " user_allow=%s", pat);
	if ((k0 & 64) && pat[0])
		len += (size_t)snprintf(args + len, sizeof(args) - len, " user_deny=%s", pat);
	FUZZ_SETUP(len < sizeof(args));

	/* auth, so that pam_setcred reaches the module too */
	FUZZ_SETUP(pamtest_service(confdir, "fuzz", "auth optional %s %s\nsession required %s %s\n",
	                           module, args, module, args) == 0);
}

/* ---- what the files assign ---- */

struct keys {
	struct fuzz_str all;    /* every valid name any file assigns, NUL-separated */
	struct fuzz_str system; /* the same, of system files only */
	bool system_side;
	bool *known;
};

static int add_key(const char *key, size_t key_len, const char *value, size_t value_len,
                   bool has_value, unsigned line, void *data)
{
	struct keys *k = data;

	fuzz_know(k->known, key, key_len);
	if (!envd_name_valid(key, key_len))
		return 0;
	fuzz_str_add(&k->all, key, key_len);
	fuzz_str_add(&k->all, "", 1);
	if (k->system_side) {
		fuzz_str_add(&k->system, key, key_len);
		fuzz_str_add(&k->system, "", 1);
	}
	return 0;
}

static bool listed(const struct fuzz_str *s, const char *name, size_t len)
{
	const char *p = s->p, *end = s->p + s->len;

	while (p && p < end) {
		size_t l = strlen(p);

		if (l == len && !memcmp(p, name, len))
			return true;
		p += l + 1;
	}
	return false;
}

/* Files reach the engine through symlinks too: a file's names count for every
 * directory, so the user/system split is only trusted for plain layouts. */
static bool has_links(const struct fuzz_section *sec, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (sec[k].kind == 'f' && sec[k].entry == '>')
			return true;
	return false;
}

static const char *base_value(char **base, const char *name, size_t len)
{
	size_t i;

	for (i = 0; base[i]; i++)
		if (!strncmp(base[i], name, len) && base[i][len] == '=')
			return base[i] + len + 1;
	return NULL;
}

static char **env_of(pam_handle_t *pamh)
{
	char **env = pam_getenvlist(pamh);

	FUZZ_SETUP(env != NULL);
	return env;
}

static void same_env(char **a, char **b, const char *when)
{
	size_t i;

	for (i = 0; a[i] && b[i]; i++)
		FUZZ_CHECK(!strcmp(a[i], b[i]), "%s changed the PAM environment", when);
	FUZZ_CHECK(!a[i] && !b[i], "%s changed the number of variables", when);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_section sec[FUZZ_MAX_SECTIONS];
	size_t n, k, i, max_env, set_bytes = 0;
	struct keys keys = {{0}, {0}, false, log_known};
	char **base, **env, **again;
	pam_handle_t *pamh = NULL;
	bool allow, links;
	unsigned k0, k1;
	int rc;

	if (skip_reason)
		return 0;
	n = fuzz_split(data, size, sec, FUZZ_MAX_SECTIONS);
	k0 = fuzz_knob(sec, n, 0);
	k1 = fuzz_knob(sec, n, 1);
	fuzz_tree_build(&tree, sec, n);
	if (k0 & 128)
		FUZZ_SETUP(chmod(tree.dirs[FUZZ_USER], 0777) == 0);
	write_service(sec, n, &max_env, &allow);
	base = fuzz_base_env(sec, n);
	links = has_links(sec, n);

	memcpy(log_known, tree.known, sizeof(log_known));
	fuzz_know(log_known, confdir, strlen(confdir));
	fuzz_know(log_known, module, strlen(module));
	fuzz_know(log_known, user, strlen(user));
	fuzz_know(log_known, "no-such-user-envd", 17);
	for (k = 0; base[k]; k++)
		fuzz_know(log_known, base[k], strcspn(base[k], "="));
	for (k = 0; k < n; k++) {
		if (sec[k].kind != 'f' || (sec[k].entry != ':' && sec[k].entry != '0'))
			continue;
		keys.system_side = sec[k].dir != FUZZ_USER;
		(void)envd_parse((const char *)sec[k].data, sec[k].len, add_key, &keys);
	}

	pamtest_log_reset();
	pamtest_log_capture(true);
	rc = pam_start_confdir("fuzz", (k1 & 1) ? "no-such-user-envd" : user, &pamtest_conv,
	                       confdir, &pamh);
	FUZZ_SETUP(rc == PAM_SUCCESS);
	/* libpam's own complaints about the harness's malformed entries are not
	 * the module's log */
	pamtest_log_capture(false);
	for (k = 0; base[k]; k++)
		(void)pam_putenv(pamh, base[k]);
	pamtest_log_capture(true);
	/* what the base became in PAM (pam_putenv may refuse some) */
	fuzz_strv_free(base);
	base = env_of(pamh);

	rc = pam_open_session(pamh, 0);
	FUZZ_CHECK(rc == PAM_SUCCESS, "open_session returned %d (%s); log:\n%s", rc,
	           pam_strerror(pamh, rc), pamtest_log());
	env = env_of(pamh);
	for (i = 0; env[i]; i++) {
		const char *eq = strchr(env[i], '=');
		size_t nl, vl;
		const char *old;

		FUZZ_CHECK(eq != NULL, "PAM entry without '='");
		nl = (size_t)(eq - env[i]);
		vl = strlen(eq + 1);
		old = base_value(base, env[i], nl);
		if (old && !strcmp(old, eq + 1))
			continue;
		/* set by the module */
		FUZZ_CHECK(!(k0 & 4) || !old, "nooverwrite, but %.*s changed", (int)nl, env[i]);
		FUZZ_CHECK(envd_name_valid(env[i], nl), "invalid name \"%.*s\" set", (int)nl,
		           env[i]);
		FUZZ_CHECK(listed(&keys.all, env[i], nl), "%.*s set, but no file assigns it",
		           (int)nl, env[i]);
		FUZZ_CHECK(fuzz_utf8_valid((const unsigned char *)eq + 1, vl),
		           "%.*s: value not valid UTF-8", (int)nl, env[i]);
		FUZZ_CHECK(nl + 1 + vl <= ENVD_MAX_ENTRY_BYTES, "%.*s: %zu bytes", (int)nl, env[i],
		           nl + 1 + vl);
		if (!allow && !links && envd_policy_check(default_policy, env[i], NULL) == NULL)
			; /* allowed anyway */
		else if (!allow && !links)
			FUZZ_CHECK(listed(&keys.system, env[i], nl),
			           "%.*s, refused by the default policy, set from the user's files",
			           (int)nl, env[i]);
		set_bytes += nl + 1 + vl + 1;
	}
	FUZZ_CHECK(set_bytes <= (max_env ? max_env : ENVD_MAX_RESULT_BYTES),
	           "the module set %zu bytes, max_env %zu", set_bytes, max_env);

	rc = pam_open_session(pamh, 0);
	FUZZ_CHECK(rc == PAM_SUCCESS, "second open_session returned %d", rc);
	again = env_of(pamh);
	same_env(env, again, "a second open_session");
	fuzz_strv_free(again);
	rc = pam_setcred(pamh, PAM_ESTABLISH_CRED);
	FUZZ_CHECK(rc == PAM_SUCCESS, "setcred returned %d", rc);
	again = env_of(pamh);
	same_env(env, again, "setcred after open_session");
	fuzz_strv_free(again);

	pam_end(pamh, PAM_SUCCESS);
	pamtest_log_capture(false);
	fuzz_strv_free(env);
	fuzz_strv_free(base);
	fuzz_str_free(&keys.all);
	fuzz_str_free(&keys.system);
	return 0;
}
