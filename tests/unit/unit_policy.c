/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * unit_policy.c - the name policy for user files: every default entry
 * refuses, globs ('*' any run, '?' one character, case-sensitive), allow
 * lifts only default entries, the administrator's deny always wins, and bad
 * patterns are refused with -EINVAL.
 */
#include "config.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>

#include "testutil.h"

static struct envd_policy *policy(bool defaults, const char *allow, const char *deny)
{
	struct envd_policy *p = envd_policy_new(defaults);

	assert_non_null(p);
	if (allow)
		assert_int_equal(envd_policy_allow(p, allow), 0);
	if (deny)
		assert_int_equal(envd_policy_deny(p, deny), 0);
	return p;
}

#define assert_refused(p, name)                                                                    \
	do {                                                                                       \
		const char *why_ = envd_policy_check((p), (name), NULL);                           \
		if (!why_)                                                                         \
			fail_msg("%s should be refused", (name));                                  \
		assert_true(why_[0] != '\0');                                                      \
	} while (0)

/* A name refused with a reason that holds a word of its family. */
struct refusal {
	const char *name, *reason;
};

static void assert_refusals(const struct envd_policy *p, const struct refusal *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *why = envd_policy_check(p, cases[i].name, NULL);

		if (!why)
			fail_msg("%s should be refused", cases[i].name);
		if (!strstr(why, cases[i].reason))
			fail_msg("%s refused with \"%s\", expected a reason about %s",
			         cases[i].name, why, cases[i].reason);
	}
}

#define assert_allowed(p, name)                                                                    \
	do {                                                                                       \
		const char *why_ = envd_policy_check((p), (name), NULL);                           \
		if (why_)                                                                          \
			fail_msg("%s should be allowed, refused: %s", (name), why_);               \
	} while (0)

/* A name matched by pattern: '*' becomes "X_9" (or nothing), '?' "Q". */
static void instance(char *out, size_t outsz, const char *pattern, bool empty_star)
{
	size_t j = 0;
	const char *p;

	for (p = pattern; *p; p++) {
		const char *piece = *p == '*' ? (empty_star ? "" : "X_9") : NULL;
		char one[2] = {*p == '?' ? 'Q' : *p, '\0'};

		if (!piece)
			piece = one;
		assert_true(j + strlen(piece) < outsz);
		memcpy(out + j, piece, strlen(piece));
		j += strlen(piece);
	}
	out[j] = '\0';
}

/* Each table stays in strcmp order, which the scan relies on, and every
 * pattern starts with a literal. */
static void check_sorted(const struct envd_policy_entry *t, const char *what)
{
	size_t i;

	for (i = 0; t[i].pattern; i++) {
		if (t[i].pattern[0] == '*' || t[i].pattern[0] == '?' || t[i].pattern[0] == '\0')
			fail_msg("%s: %s starts with a glob", what, t[i].pattern);
		if (i > 0 && strcmp(t[i - 1].pattern, t[i].pattern) >= 0)
			fail_msg("%s before %s: the %s table is out of order", t[i - 1].pattern,
			         t[i].pattern, what);
		assert_non_null(t[i].reason);
		assert_true(t[i].reason[0] != '\0');
	}
}

static void test_default_list_sorted(void **state)
{
	(void)state;
	check_sorted(envd_default_deny, "deny");
	check_sorted(envd_default_exceptions, "exception");
	check_sorted(envd_value_rules, "value rule");
}

static void test_default_entries_each_refused(void **state)
{
	struct envd_policy *p = policy(true, NULL, NULL);
	char name[128];
	size_t i;

	(void)state;
	for (i = 0; envd_default_deny[i].pattern; i++) {
		const struct envd_policy_entry *e = &envd_default_deny[i];
		const char *why;

		assert_true(e->pattern[0] != '\0');
		assert_non_null(e->reason);
		assert_true(e->reason[0] != '\0');
		instance(name, sizeof(name), e->pattern, false);
		why = envd_policy_check(p, name, NULL);
		if (!why)
			fail_msg("%s (entry %s) is not refused", name, e->pattern);
		if (strchr(e->pattern, '*') || strchr(e->pattern, '?')) {
			instance(name, sizeof(name), e->pattern, true);
			if (!strchr(e->pattern, '?'))
				assert_refused(p, name);
		} else {
			/* an exact entry gives its own reason */
			assert_string_equal(why, e->reason);
		}
	}
	assert_true(i > 20);
	envd_policy_free(p);
}

/* The names SECURITY.md lists, and a few more of each family. */
static void test_documented_names_refused(void **state)
{
	/* clang-format off */
	static const char *const names[] = {
	    /* loader and libc */
	    "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "LD_", "GCONV_PATH", "GLIBC_TUNABLES",
	    "MALLOC_CHECK_", "HOSTALIASES", "LOCPATH", "NLSPATH", "RES_OPTIONS",
	    /* shell start-up */
	    "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "BASH_FUNC_foo", "PS4", "IFS", "ZDOTDIR",
	    /* interpreters */
	    "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PERL5LIB", "PERL5OPT", "NODE_OPTIONS",
	    "RUBYOPT", "JAVA_TOOL_OPTIONS", "LUA_INIT", "LUA_INIT_5_4", "GIT_SSH_COMMAND",
	    /* session identity */
	    "XDG_SESSION_ID", "XDG_SESSION_TYPE", "XDG_SESSION_CLASS", "XDG_SEAT", "XDG_VTNR",
	    "XDG_RUNTIME_DIR", "USER", "LOGNAME", "HOME", "SHELL", "SSH_CONNECTION",
	    /* service managers */
	    "NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID",
	};
	/* clang-format on */
	struct envd_policy *p = policy(true, NULL, NULL);
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(names); i++)
		assert_refused(p, names[i]);
	envd_policy_free(p);
}

/* Ordinary names, and near misses of default entries, pass. */
/* Names that make root tools run commands or open user-chosen paths, and
 * PAM_* (pam_exec appends its own after the environment; getenv finds the
 * first); and what only steers interactive use, which stays allowed. */
static void test_tools_and_pam_names(void **state)
{
	/* clang-format off */
	static const char *const refused[] = {
	    "PAM_USER", "PAM_RHOST", "PAM_SERVICE", "PAM_TYPE", "PAM_TTY", "PAM_RUSER", "PAM_",
	    "GIT_DIR", "GIT_WORK_TREE", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
	    "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0",
	    "GIT_CONFIG_PARAMETERS", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_ASKPASS",
	    "SSH_ASKPASS", "GIT_PROXY_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_SSH", "TERMINFO",
	    "TERMINFO_DIRS", "TERMCAP", "TERMPATH", "SSLKEYLOGFILE", "KRB5_TRACE", "KRB5_CONFIG",
	    "KRB5_KDC_PROFILE", "PERLIO_DEBUG", "PHPRC", "PHP_INI_SCAN_DIR", "PYTHONPYCACHEPREFIX",
	    "NULLCMD", "READNULLCMD", "TMPPREFIX", "GTK_MODULES", "QT_PLUGIN_PATH",
	};
	static const char *const allowed[] = {
	    "GIT_EDITOR", "GIT_PAGER", "GIT_AUTHOR_NAME", "LESS", "GTK_THEME",
	    "QT_QPA_PLATFORMTHEME", "EDITOR", "PAGER", "TZ", "TERM", "PAMPHLET", "SSH_AUTH_SOCK",
	};
	/* clang-format on */
	struct envd_policy *p = policy(true, NULL, NULL);
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(refused); i++)
		assert_refused(p, refused[i]);
	for (i = 0; i < TU_LEN(allowed); i++)
		assert_allowed(p, allowed[i]);
	envd_policy_free(p);
}

/* The client families of issue 36: a display (and the bus autolaunched
 * through it), the mail system, a directory; each name made a real client
 * run as root run the user's code or hand over a secret
 * (tests/e2e/e2e_clients.sh). */
static void test_client_families(void **state)
{
	/* clang-format off */
	static const char *const refused[] = {
	    "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "ICEAUTHORITY", "SESSION_MANAGER",
	    "MAIL_CONFIG", "MAIL_DEBUG", "MAIL_VERBOSE", "MAIL_LOGTAG", "POSTLOG_SERVICE",
	    "POSTLOG_HOSTNAME", "SASL_PATH", "SASL_CONF_PATH", "LDAPURI", "LDAPCONF", "LDAPRC",
	    "LDAPNOINIT", "LDAPBINDDN", "LDAPTLS_REQCERT", "LDAPTLS_CACERT", "LDAPSASL_MECH",
	    "LDAP_URI", "LIBSMB_PROG",
	};
	static const char *const allowed[] = {
	    "MAIL", "MAILCHECK", "MAILPATH", "SASL", "LDA", "DISPLAYS", "XAUTHORITY_X",
	};
	/* clang-format on */
	struct envd_policy *p = policy(true, NULL, NULL);
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(refused); i++)
		assert_refused(p, refused[i]);
	for (i = 0; i < TU_LEN(allowed); i++)
		assert_allowed(p, allowed[i]);
	envd_policy_free(p);
}

/* What a reading of the client libraries of issue 36 adds: helpers that
 * OpenSSH runs, GTK, Qt and Xlib modules, X resource files, Kerberos and
 * Samba credentials and caches, CUPS servers. */
static void test_client_libraries(void **state)
{
	/* clang-format off */
	static const char *const refused[] = {
	    "SSH_SK_HELPER", "SSH_PKCS11_HELPER", "GTK_MODULES", "GTK3_MODULES", "GTK_PATH",
	    "GTK_IM_MODULE_FILE", "QT_PLUGIN_PATH", "QT_QPA_PLATFORM_PLUGIN_PATH", "XLOCALEDIR",
	    "XENVIRONMENT", "XAPPLRESDIR", "XFILESEARCHPATH", "XUSERFILESEARCHPATH",
	    "GSS_MECH_CONFIG", "KRB5CCNAME", "KRB5_CONFIG", "KRB5_KDC_PROFILE", "KRB5_KTNAME",
	    "KRB5_CLIENT_KTNAME", "KRB5RCACHEDIR", "KRB5RCACHETYPE", "KRB5RCACHENAME",
	    "PASSWD", "PASSWD_FD", "PASSWD_FILE", "CUPS_SERVER", "CUPS_SERVERROOT",
	    "CUPS_DATADIR", "CUPS_ENCRYPTION", "CUPS_USER", "IPP_PORT",
	};
	static const char *const allowed[] = {
	    "GTK_THEME", "GTK_IM_MODULE", "QT_QPA_PLATFORMTHEME", "QT_SCALE_FACTOR",
	    "PASSWDX", "CUPS", "PRINTER", "LPDEST", "SSH_AUTH_SOCK",
	};
	/* clang-format on */
	struct envd_policy *p = policy(true, NULL, NULL);
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(refused); i++)
		assert_refused(p, refused[i]);
	for (i = 0; i < TU_LEN(allowed); i++)
		assert_allowed(p, allowed[i]);
	envd_policy_free(p);
}

/* What the package sweep (tools/sweep/packages.sh) found that steers a
 * root program: build tools, CGI variables, module and command paths of
 * iproute2, iptables, groff, sulogin, wget, libpamc, GnuPG. */
static void test_package_sweep_names(void **state)
{
	/* clang-format off */
	static const char *const refused[] = {
	    "CC", "CXX", "LD", "LDFLAGS", "CFLAGS", "MAKEFLAGS", "PKG_CONFIG_PATH", "HARNESS_PERL",
	    "BUNDLE_GEMFILE", "BUNDLE_APP_CONFIG", "PATH_TRANSLATED", "REMOTE_USER", "SERVER_NAME",
	    "IPTABLES_LIB_DIR", "XTABLES_LIBDIR", "TC_LIB_DIR", "GROFF_BIN_PATH", "SUSHELL",
	    "sushell", "WGET_ASKPASS", "PAMC_AGENT_PATH", "GNUPG_BUILD_ROOT", "OPENSSL",
	    "SMB_CONF_PATH", "COREPACK_NPM_REGISTRY", "npm_config_registry", "container",
	    "WATCHDOG_USEC", "DBUS_STARTER_BUS_TYPE", "G_DBUS_COOKIE_SHA1_KEYRING_DIR",
	    "DEVICE_URI", "AUTH_PASSWORD", "PROC_NET_SCTP", "RESIZE2FS_FORCE_ITABLE_INIT",
	};
	static const char *const allowed[] = {
	    "G_DBUS_DEBUG", "LS_COLORS", "GTK_IM_MODULE", "PRINTER", "TEST_VERBOSE", "MANWIDTH",
	    "NOPROXY", "XDG_CURRENT_DESKTOP", "OPENSSLX", "CCACHE_DIR_X",
	};
	/* clang-format on */
	struct envd_policy *p = policy(true, NULL, NULL);
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(refused); i++)
		assert_refused(p, refused[i]);
	for (i = 0; i < TU_LEN(allowed); i++)
		assert_allowed(p, allowed[i]);
	envd_policy_free(p);
}

/* TZ from a user file may name a zone or a rule, not a file elsewhere. */
static void test_tz_value(void **state)
{
	static const char *const bad[] = {"/etc/shadow",    ":/home/u/fifo", "../../home/u/x",
	                                  "Europe/../../x", ":..",           "a/.."};
	static const char *const good[] = {
	    "Europe/Berlin", ":Europe/Berlin", "UTC", "", "CET-1CEST,M3.5.0,M10.5.0/3",
	    "a..b",          "..a/b"};
	struct envd_policy *p = policy(true, NULL, NULL), *lifted = policy(true, "TZ", NULL);
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(bad); i++) {
		const char *why = envd_policy_check(p, "TZ", bad[i]);

		if (why == NULL)
			fail_msg("TZ=%s should be refused", bad[i]);
		assert_non_null(strstr(why, "time zone"));
		assert_null(envd_policy_check(lifted, "TZ", bad[i]));
		assert_null(envd_policy_check(p, "NOT_TZ", bad[i]));
	}
	for (i = 0; i < TU_LEN(good); i++)
		if (envd_policy_check(p, "TZ", good[i]) != NULL)
			fail_msg("TZ=%s should be allowed", good[i]);
	envd_policy_free(p);
	envd_policy_free(lifted);
}

/* Allow-list mode: only the administrator's names, the defaults and the
 * administrator's denials still apply within them. */
static void test_only_list(void **state)
{
	struct envd_policy *p = policy(true, NULL, "MY_SECRET");
	const char *why;

	(void)state;
	assert_int_equal(envd_policy_only(p, "PATH LANG LC_* MY_* LD_PRELOAD"), 0);
	assert_allowed(p, "PATH");
	assert_allowed(p, "LC_ALL");
	assert_allowed(p, "MY_VAR");
	why = envd_policy_check(p, "EDITOR", NULL);
	assert_true(why != NULL && strstr(why, "user_only") != NULL);
	why = envd_policy_check(p, "LD_PRELOAD", NULL); /* listed, but a default refusal */
	assert_true(why != NULL && strstr(why, "user_only") == NULL);
	why = envd_policy_check(p, "MY_SECRET", NULL);
	assert_true(why != NULL && strstr(why, "user_deny") != NULL);
	assert_int_equal(envd_policy_only(p, "BAD-NAME"), -EINVAL);
	envd_policy_free(p);
}

static void test_ordinary_names_allowed(void **state)
{
	/* clang-format off */
	static const char *const names[] = {
	    "PATH", "EDITOR", "VISUAL", "PAGER", "LANG", "LC_ALL", "LANGUAGE", "TZ",
	    "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_DATA_DIRS", "XDG_CACHE_HOME", "MANPATH",
	    "GOPATH", "SSH_AUTH_SOCK", "GTK_THEME", "QT_QPA_PLATFORMTHEME", "MOZ_ENABLE_WAYLAND",
	    /* near misses */
	    "LDX", "LDFLAG", "ld_preload", "MY_LD_PRELOAD", "ENVX", "XENV", "XDG_SEATX",
	    "XDG_SESSION", "PYTHONPATHX", "BASH_FUNC", "HOMEDIR", "USERNAME", "SHELLX",
	};
	/* clang-format on */
	struct envd_policy *p = policy(true, NULL, NULL);
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(names); i++)
		assert_allowed(p, names[i]);
	envd_policy_free(p);
}

static void test_no_defaults_and_no_policy(void **state)
{
	struct envd_policy *p = policy(false, NULL, NULL);

	(void)state;
	assert_allowed(p, "LD_PRELOAD");
	assert_allowed(p, "BASH_ENV");
	envd_policy_free(p);
	assert_null(envd_policy_check(NULL, "LD_PRELOAD", NULL));
	envd_policy_free(NULL);
}

struct gcase {
	const char *pattern;
	const char *name;
	bool match;
};

static void test_globs(void **state)
{
	/* clang-format off */
	static const struct gcase cases[] = {
	    {"ABC", "ABC", true},       {"ABC", "ABCD", false},     {"ABC", "AB", false},
	    {"ABC", "abc", false},      {"A*", "A", true},          {"A*", "AB", true},
	    {"A*", "BA", false},        {"*A", "A", true},          {"*A", "BA", true},
	    {"*A", "AB", false},        {"*", "X", true},           {"**", "XYZ", true},
	    {"A**", "A", true},         {"A?C", "ABC", true},       {"A?C", "AC", false},
	    {"A?C", "ABBC", false},     {"?", "A", true},           {"?", "AB", false},
	    {"??*", "A", false},        {"??*", "AB", true},        {"A*B*C", "AXXBYYC", true},
	    {"A*B*C", "ABC", true},     {"A*B*C", "ACB", false},    {"*AB", "AAB", true},
	    {"*AB", "ABAB", true},      {"*AB", "ABA", false},      {"A*A", "AA", true},
	    {"A*A", "A", false},        {"A*A", "ABA", true},       {"A*A", "AAB", false},
	    {"*_PATH", "MY_PATH", true}, {"*_PATH", "PATH", false}, {"*?", "A", true},
	    {"X*Y?Z", "XaaYbZ", true},  {"X*Y?Z", "XaaYZ", false},  {"*A*", "BAB", true},
	};
	/* clang-format on */
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(cases); i++) {
		struct envd_policy *p = policy(false, NULL, cases[i].pattern);
		bool refused = envd_policy_check(p, cases[i].name, NULL) != NULL;

		if (refused != cases[i].match)
			fail_msg("pattern %s, name %s: expected %s", cases[i].pattern,
			         cases[i].name, cases[i].match ? "match" : "no match");
		envd_policy_free(p);
	}
}

/* A long name against a pattern with many stars finishes at once. */
static void test_glob_long_name(void **state)
{
	char *name = tu_repeat("A", 8192);
	struct envd_policy *p = policy(false, NULL, "*A*A*A*A*A*A*A*A*B");

	(void)state;
	assert_allowed(p, name);
	name[8191] = 'B';
	assert_refused(p, name);
	envd_policy_free(p);
	free(name);
}

/* ---- the matcher against fnmatch(3) ----
 * The policy matches byte by byte; fnmatch(pattern, name, 0) is the
 * reference.  Names made from every pattern of every table are checked
 * against every pattern (through user_deny, whose list the same matcher
 * reads) and against the tables' lookups, and small patterns with '*'
 * and '?' anywhere against all short names of their alphabet. */

static const struct envd_policy_entry *const all_tables[] = {
    envd_default_deny,
    envd_default_exceptions,
    envd_value_rules,
};

/* A fixed sequence (xorshift32): the same names on every run. */
static unsigned next_random(unsigned *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void random_name(char *out, size_t len, unsigned *s)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_";
	size_t i;

	for (i = 0; i < len; i++)
		out[i] = set[next_random(s) % (sizeof(set) - 1)];
	out[len] = '\0';
}

struct name_set {
	char (*v)[96];
	size_t n, cap;
};

static void add_name(struct name_set *ns, const char *name)
{
	if (ns->n == ns->cap) {
		ns->cap = ns->cap ? ns->cap * 2 : 1024;
		ns->v = realloc(ns->v, ns->cap * sizeof(*ns->v));
		assert_non_null(ns->v);
	}
	assert_true(strlen(name) < sizeof(ns->v[0]));
	strcpy(ns->v[ns->n++], name);
}

/* From one pattern: its instances, the literal with suffixes, cut short
 * at every length, with the case changed, with a random tail or middle,
 * and random names. */
static void names_from(struct name_set *ns, const char *pattern, unsigned *seed)
{
	static const char *const suffixes[] = {"A", "_", "9", "z", "_TM_PATH", "X_Y"};
	char name[96], tail[16];
	size_t i, len;

	instance(name, sizeof(name), pattern, true);
	add_name(ns, name);
	instance(name, sizeof(name), pattern, false);
	add_name(ns, name);
	len = strcspn(pattern, "*?");
	for (i = 0; i < TU_LEN(suffixes); i++) {
		snprintf(name, sizeof(name), "%.*s%s", (int)len, pattern, suffixes[i]);
		add_name(ns, name);
	}
	for (i = 1; i < strlen(pattern); i++) {
		snprintf(name, sizeof(name), "%.*s", (int)i, pattern);
		if (!strpbrk(name, "*?"))
			add_name(ns, name);
	}
	instance(name, sizeof(name), pattern, false);
	for (i = 0; name[i]; i++)
		name[i] = (char)(islower((unsigned char)name[i]) ? toupper((unsigned char)name[i])
		                                                 : tolower((unsigned char)name[i]));
	add_name(ns, name);
	instance(name, sizeof(name), pattern, true);
	name[0] = (char)tolower((unsigned char)name[0]);
	add_name(ns, name);
	for (i = 0; i < 4; i++) {
		random_name(tail, 1 + next_random(seed) % 12, seed);
		snprintf(name, sizeof(name), "%.*s%s", (int)len, pattern, tail);
		add_name(ns, name);
		snprintf(name, sizeof(name), "%.*s%s%s", (int)len, pattern, tail, pattern + len);
		add_name(ns, name);
		random_name(name, 1 + next_random(seed) % 20, seed);
		add_name(ns, name);
	}
}

static struct name_set table_names(void)
{
	struct name_set ns = {0};
	unsigned seed = 20260101;
	size_t t, i;

	for (t = 0; t < TU_LEN(all_tables); t++)
		for (i = 0; all_tables[t][i].pattern; i++)
			names_from(&ns, all_tables[t][i].pattern, &seed);
	return ns;
}

static void test_matcher_tables_fnmatch(void **state)
{
	struct name_set ns = table_names();
	size_t t, i, k, matched = 0;

	(void)state;
	for (t = 0; t < TU_LEN(all_tables); t++)
		for (i = 0; all_tables[t][i].pattern; i++) {
			const char *pattern = all_tables[t][i].pattern;
			struct envd_policy *p = policy(false, NULL, pattern);

			for (k = 0; k < ns.n; k++) {
				bool want = fnmatch(pattern, ns.v[k], 0) == 0;

				if ((envd_policy_check(p, ns.v[k], NULL) != NULL) != want)
					fail_msg("pattern %s, name %s: fnmatch says %s", pattern,
					         ns.v[k], want ? "match" : "no match");
				matched += want;
			}
			envd_policy_free(p);
		}
	/* the names are not all misses */
	assert_true(matched > ns.n / 8);
	free(ns.v);
}

/* The first entry of a table that fnmatch matches, as a linear scan. */
static const struct envd_policy_entry *reference_find(const struct envd_policy_entry *t,
                                                      const char *name)
{
	for (; t->pattern; t++)
		if (fnmatch(t->pattern, name, 0) == 0)
			return t;
	return NULL;
}

/* Each table's lookup gives what a linear fnmatch scan gives. */
static void test_lookup_tables_fnmatch(void **state)
{
	struct name_set ns = table_names();
	struct envd_policy *p = policy(true, NULL, NULL);
	size_t k, refused = 0;

	(void)state;
	for (k = 0; k < ns.n; k++) {
		const char *name = ns.v[k];
		const struct envd_policy_entry *d = reference_find(envd_default_deny, name);
		const struct envd_policy_entry *v = reference_find(envd_value_rules, name);
		const char *want =
		    d && !reference_find(envd_default_exceptions, name) ? d->reason : NULL;

		if (envd_policy_check(p, name, NULL) != want)
			fail_msg("%s: expected %s", name, want ? want : "allowed");
		if (envd_policy_value_rule(p, name) != (v ? v->reason : NULL))
			fail_msg("%s: expected the value rule of %s", name,
			         v ? v->pattern : "no pattern");
		refused += want != NULL;
	}
	assert_true(refused > ns.n / 8);
	envd_policy_free(p);
	free(ns.v);
}

/* All names of up to 5 bytes from {A, B, _} against all patterns of up to
 * 4 bytes from {A, _, *, ?}, as user_deny, user_only and user_allow. */
static void short_strings(char (*out)[8], size_t *n, const char *set, size_t maxlen)
{
	size_t len, i, count, k, base = strlen(set);

	*n = 0;
	for (len = 1; len <= maxlen; len++) {
		for (count = 1, i = 0; i < len; i++)
			count *= base;
		for (k = 0; k < count; k++) {
			size_t x = k;

			for (i = 0; i < len; i++, x /= base)
				out[*n][i] = set[x % base];
			out[(*n)++][len] = '\0';
		}
	}
}

static void test_matcher_short_fnmatch(void **state)
{
	static char names[3 + 9 + 27 + 81 + 243][8], pats[4 + 16 + 64 + 256][8];
	struct envd_policy *deny, *only, *allow;
	char list[32];
	size_t nn, np, i, k;

	(void)state;
	short_strings(names, &nn, "AB_", 5);
	short_strings(pats, &np, "A_*?", 4);
	assert_int_equal(nn, TU_LEN(names));
	assert_int_equal(np, TU_LEN(pats));
	for (i = 0; i < np; i++) {
		deny = policy(false, NULL, pats[i]);
		only = envd_policy_new(false);
		assert_non_null(only);
		/* a list of two, the other never matching */
		assert_true((size_t)snprintf(list, sizeof(list), "ZZZ, %.8s", pats[i]) <
		            sizeof(list));
		assert_int_equal(envd_policy_only(only, list), 0);
		assert_true((size_t)snprintf(list, sizeof(list), "%.8s:ZZZ", pats[i]) <
		            sizeof(list));
		allow = policy(false, list, "*");
		for (k = 0; k < nn; k++) {
			bool want = fnmatch(pats[i], names[k], 0) == 0;

			if ((envd_policy_check(deny, names[k], NULL) != NULL) != want ||
			    (envd_policy_check(only, names[k], NULL) == NULL) != want)
				fail_msg("pattern %s, name %s: fnmatch says %s", pats[i], names[k],
				         want ? "match" : "no match");
			/* the administrator's deny wins over allow */
			assert_non_null(envd_policy_check(allow, names[k], NULL));
		}
		envd_policy_free(deny);
		envd_policy_free(only);
		envd_policy_free(allow);
	}
}

/* user_allow reads its list with the same matcher: it lifts a default
 * exactly where fnmatch matches. */
static void test_allow_list_fnmatch(void **state)
{
	struct name_set ns = table_names();
	static const char *const lists[] = {"LD_*",  "*PATH*", "PYTHON?*",        "?IT_*",
	                                    "*_*_*", "L*_P*",  "SSH_*,GIT_*:TCL*"};
	struct envd_policy *bare = policy(true, NULL, NULL);
	size_t i, k;

	(void)state;
	for (i = 0; i < TU_LEN(lists); i++) {
		struct envd_policy *p = policy(true, lists[i], NULL);

		for (k = 0; k < ns.n; k++) {
			const char *name = ns.v[k], *l;
			bool listed = false, refused;
			char one[32];

			if (!envd_policy_check(bare, name, NULL))
				continue;
			for (l = lists[i]; *l; l += strcspn(l, ",:"), l += *l != '\0') {
				snprintf(one, sizeof(one), "%.*s", (int)strcspn(l, ",:"), l);
				listed |= fnmatch(one, name, 0) == 0;
			}
			refused = envd_policy_check(p, name, NULL) != NULL;
			if (refused == listed)
				fail_msg("allow %s, name %s: fnmatch says %s", lists[i], name,
				         listed ? "listed" : "not listed");
		}
		envd_policy_free(p);
	}
	envd_policy_free(bare);
	free(ns.v);
}

static void test_allow_lifts_defaults(void **state)
{
	struct envd_policy *p = policy(true, "LD_PRELOAD", NULL);

	(void)state;
	assert_allowed(p, "LD_PRELOAD");
	assert_refused(p, "LD_LIBRARY_PATH");
	assert_refused(p, "BASH_ENV");
	envd_policy_free(p);

	p = policy(true, "LD_*,XDG_SEAT", NULL);
	assert_allowed(p, "LD_PRELOAD");
	assert_allowed(p, "LD_AUDIT");
	assert_allowed(p, "XDG_SEAT");
	assert_refused(p, "XDG_VTNR");
	envd_policy_free(p);

	p = policy(true, "*", NULL);
	assert_allowed(p, "BASH_ENV");
	assert_allowed(p, "XDG_SESSION_ID");
	envd_policy_free(p);
}

static void test_admin_deny_wins(void **state)
{
	struct envd_policy *p;
	const char *why;
	size_t i;

	(void)state;
	/* over an allow of the same name, in either order */
	p = policy(true, "FOO", "FOO");
	assert_refused(p, "FOO");
	envd_policy_free(p);
	p = envd_policy_new(true);
	assert_non_null(p);
	assert_int_equal(envd_policy_deny(p, "FOO"), 0);
	assert_int_equal(envd_policy_allow(p, "FOO,*"), 0);
	assert_refused(p, "FOO");
	assert_allowed(p, "BASH_ENV"); /* the allow * still lifts defaults */
	envd_policy_free(p);

	/* over an allow that lifts a default */
	p = policy(true, "LD_*", "LD_PRELOAD");
	assert_refused(p, "LD_PRELOAD");
	assert_allowed(p, "LD_AUDIT");
	envd_policy_free(p);

	/* without defaults too, and for names the defaults let through */
	p = policy(false, "*", "EDITOR,PA?H");
	assert_refused(p, "EDITOR");
	assert_refused(p, "PATH");
	assert_allowed(p, "PAGER");
	/* its reason is not one of the default reasons */
	why = envd_policy_check(p, "EDITOR", NULL);
	for (i = 0; envd_default_deny[i].pattern; i++)
		assert_string_not_equal(why, envd_default_deny[i].reason);
	envd_policy_free(p);
}

static void test_separators(void **state)
{
	static const char *const in[] = {"A1", "B1", "C1", "D1", "E1", "F1", "G1"};
	struct envd_policy *p = policy(false, NULL, "A1, B1:C1\tD1\nE1  F1,,:: G1,");
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(in); i++)
		assert_refused(p, in[i]);
	assert_allowed(p, "H1");
	assert_allowed(p, "A1B1");
	/* empty lists are fine and change nothing */
	assert_int_equal(envd_policy_deny(p, ""), 0);
	assert_int_equal(envd_policy_deny(p, " , :\t\n"), 0);
	assert_int_equal(envd_policy_allow(p, ""), 0);
	assert_allowed(p, "H1");
	envd_policy_free(p);
}

static void test_bad_patterns(void **state)
{
	/* clang-format off */
	static const char *const bad[] = {
	    "LD-PRELOAD", "A.B", "A[B]", "$X", "A=B", "\xc3\xa9", "A/B", "A;B",
	    "{A}", "A\\B", "A!", "GOOD,BA-D", "A|B", "'A'", "\"A\"", "A\rB",
	};
	/* clang-format on */
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(bad); i++) {
		struct envd_policy *p = envd_policy_new(true);

		assert_non_null(p);
		if (envd_policy_deny(p, bad[i]) != -EINVAL)
			fail_msg("deny \"%s\" should give -EINVAL", bad[i]);
		if (envd_policy_allow(p, bad[i]) != -EINVAL)
			fail_msg("allow \"%s\" should give -EINVAL", bad[i]);
		envd_policy_free(p);
	}
}

/* Issue 16: names that steer root tools.  Each refused with its family's
 * reason (a word of it). */
static void test_root_tool_names(void **state)
{
	/* clang-format off */
	static const struct refusal cases[] = {
	    /* D-Bus: unixexec: makes every client run a command */
	    {"DBUS_SYSTEM_BUS_ADDRESS", "D-Bus"}, {"DBUS_STARTER_ADDRESS", "D-Bus"},
	    /* git: all of GIT_* */
	    {"GIT_COMMON_DIR", "git"}, {"GIT_TRACE", "git"}, {"GIT_TRACE2", "git"},
	    {"GIT_TRACE_PACKET", "git"}, {"GIT_TRACE2_EVENT", "git"}, {"GIT_INDEX_FILE", "git"},
	    {"GIT_OBJECT_DIRECTORY", "git"}, {"GIT_ALTERNATE_OBJECT_DIRECTORIES", "git"},
	    {"GIT_SSL_CAINFO", "git"}, {"GIT_SEQUENCE_EDITOR", "git"}, {"GIT_DIR", "git"},
	    {"GIT_CONFIG_GLOBAL", "git"}, {"GIT_SSH_COMMAND", "git"}, {"GIT_", "git"},
	    /* options and file names added to a root tool's command line */
	    {"TAR_OPTIONS", "options"}, {"BZIP", "options"}, {"BZIP2", "options"},
	    {"XZ_OPT", "options"}, {"XZ_DEFAULTS", "options"}, {"ZIPOPT", "options"},
	    {"UNZIP", "options"}, {"UNZIPOPT", "options"},
	    /* configuration files */
	    {"CURL_HOME", "configuration"}, {"WGETRC", "configuration"},
	    {"SYSTEM_WGETRC", "configuration"}, {"MAILRC", "configuration"},
	    {"NAILRC", "configuration"}, {"MAILCAPS", "configuration"},
	    {"HGRCPATH", "configuration"},
	    /* commands and files */
	    {"RSYNC_RSH", "command"}, {"RSYNC_CONNECT_PROG", "command"}, {"CVS_RSH", "command"},
	    {"CVS_SERVER", "command"}, {"SVN_SSH", "command"}, {"GIO_LAUNCH_DESKTOP", "command"},
	    {"GST_DEBUG_FILE", "path"}, {"TAPE", "path"}, {"TEXTDOMAINDIR", "path"}, {"GST_REGISTRY", "path"}, {"GST_REGISTRY_1_0", "path"},
	    /* trust */
	    {"CURL_CA_BUNDLE", "certificates"}, {"SSL_CERT_FILE", "certificates"},
	    {"SSL_CERT_DIR", "certificates"}, {"REQUESTS_CA_BUNDLE", "certificates"},
	    {"NODE_EXTRA_CA_CERTS", "certificates"},
	    /* interpreters */
	    {"TCL_LIBRARY", "interpreter"}, {"TK_LIBRARY", "interpreter"},
	    {"TCLLIBPATH", "interpreter"}, {"TCL8_6_TM_PATH", "interpreter"},
	    {"TCL9_TM_PATH", "interpreter"}, {"RUBYOPT", "interpreter"},
	    {"RUBYLIB", "interpreter"}, {"GEM_HOME", "interpreter"}, {"GEM_PATH", "interpreter"},
	    {"GEM_SPEC_CACHE", "interpreter"}, {"GEMRC", "interpreter"},
	    {"BUNDLE_GEMFILE", "interpreter"},
	    /* modules of libraries */
	    {"GIO_EXTRA_MODULES", "modules"}, {"GIO_MODULE_DIR", "modules"},
	    {"GI_TYPELIB_PATH", "modules"}, {"GST_PLUGIN_PATH", "modules"},
	    {"GST_PLUGIN_PATH_1_0", "modules"}, {"GST_PLUGIN_SYSTEM_PATH", "modules"},
	    {"GST_PLUGIN_SYSTEM_PATH_1_0", "modules"}, {"GST_PLUGIN_SCANNER", "modules"},
	    {"GDK_PIXBUF_MODULE_FILE", "modules"},
	    /* libc */
	    {"MUSL_LOCPATH", "libc"}, {"DATEMSK", "libc"},
	};
	/* clang-format on */
	struct envd_policy *p = policy(true, NULL, NULL);

	(void)state;
	assert_refusals(p, cases, TU_LEN(cases));
	envd_policy_free(p);
}

/* Issue 24: the names of the issue, and those the sweep (tools/sweep)
 * found steering root tools.  Each fails on the tables before it, and is
 * refused with its family's reason (a word of it). */
static void test_sweep_names(void **state)
{
	/* clang-format off */
	static const struct refusal cases[] = {
	    /* the issue's: configuration, file system tables, temporary files */
	    {"APT_CONFIG", "configuration"}, {"RUBYGEMS_GEMDEPS", "interpreter"},
	    {"BLKID_FILE", "file system"}, {"LIBMOUNT_FSTAB", "file system"},
	    {"LIBMOUNT_MTAB", "file system"}, {"LIBMOUNT_UTAB", "file system"},
	    {"TEMP", "path"}, {"TMP", "path"},
	    /* the issue's trust family */
	    {"PERL_LWP_SSL_CA_FILE", "certificates"}, {"HTTPS_CA_FILE", "certificates"},
	    {"PIP_CERT", "options"}, {"AWS_CA_BUNDLE", "certificates"},
	    {"HTTPLIB2_CA_CERTS", "certificates"},
	    {"GRPC_DEFAULT_SSL_ROOTS_FILE_PATH", "certificates"},
	    {"NODE_TLS_REJECT_UNAUTHORIZED", "certificates"},
	    {"NODE_EXTRA_CA_CERTS", "certificates"},
	    {"PERL_LWP_SSL_VERIFY_HOSTNAME", "certificates"},
	    /* the sweep's: trust */
	    {"PERL_LWP_SSL_CA_PATH", "certificates"}, {"HTTPS_CA_DIR", "certificates"},
	    {"PERL_NET_HTTPS_SSL_SOCKET_CLASS", "certificates"}, {"CTLOG_FILE", "certificates"},
	    /* interpreters */
	    {"NODE_OPTIONS", "code"}, {"NODE_PATH", "code"}, {"NODE_ICU_DATA", "node"},
	    {"NODE_V8_COVERAGE", "files"}, {"NODE_REPL_EXTERNAL_MODULE", "node"},
	    {"OPENSSL_CONF", "interpreter"}, {"OPENSSL_MODULES", "interpreter"},
	    {"OPENSSL_CONF_INCLUDE", "interpreter"}, {"PYTHONOPTIMIZE", "interpreter"},
	    {"PYTHONTZPATH", "interpreter"}, {"PYTHONDUMPREFSFILE", "interpreter"},
	    {"PYTHON_EGG_CACHE", "interpreter"}, {"_PYTHON_SYSCONFIGDATA_NAME", "interpreter"},
	    {"_PYTHON_PROJECT_BASE", "interpreter"}, {"PEP517_BACKEND_PATH", "interpreter"},
	    {"PERLIO", "interpreter"}, {"PERL_USE_UNSAFE_INC", "interpreter"},
	    {"PERL_HTTP_URI_CLASS", "interpreter"}, {"RUBYPATH", "interpreter"},
	    /* modules */
	    {"SSH_SK_PROVIDER", "modules"}, {"SS_READLINE_PATH", "modules"},
	    /* options */
	    {"ZIP", "options"}, {"CVSIGNORE", "options"}, {"PIP_INDEX_URL", "options"},
	    {"PIP_CONFIG_FILE", "options"}, {"_PIP_STANDALONE_CERT", "options"},
	    /* configuration */
	    {"GNUPGHOME", "configuration"}, {"GSETTINGS_SCHEMA_DIR", "configuration"},
	    {"GSETTINGS_BACKEND", "configuration"},
	    /* package tools */
	    {"DPKG_ADMINDIR", "package"}, {"DPKG_ROOT", "package"}, {"DPKG_FORCE", "package"},
	    {"DPKG_PAGER", "package"}, {"DEBCONF_SYSTEMRC", "package"},
	    {"DEBCONF_DB_REPLACE", "package"}, {"DEBIAN_FRONTEND", "package"},
	    {"DEBIAN_HAS_FRONTEND", "package"}, {"DEBIAN_DISABLE_RUBYGEMS_INTEGRATION", "package"},
	    /* mount and file systems */
	    {"BLKID_CONF", "file system"}, {"LIBMOUNT_SWAPS", "file system"},
	    {"FSTAB_FILE", "file system"}, {"E2FSCK_CONFIG", "file system"},
	    {"E2FSPROGS_FAKE_TIME", "file system"}, {"EXT2FS_PRETEND_RW_MOUNT", "file system"},
	    {"MKE2FS_CONFIG", "file system"}, {"TEST_IO_LOGFILE", "file system"},
	    {"UNIX_IO_FORCE_BOUNCE", "file system"},
	    /* commands and files */
	    {"RSYNC_RSH", "command"}, {"RSYNC_CONNECT_PROG", "command"},
	    {"RSYNC_SHELL", "command"}, {"RSYNC_PARTIAL_DIR", "path"},
	    {"COMERR_DEBUG_FILE", "path"}, {"DEBUGFS_PAGER", "command"}, {"I18NPATH", "path"},
	    {"ICU_TIMEZONE_FILES_DIR", "path"}, {"ICU_DATA", "path"}, {"LESSOPEN", "command"},
	    {"LESSCLOSE", "command"}, {"LESSECHO", "command"}, {"LESSGLOBALTAGS", "command"},
	    {"LESSKEY", "path"}, {"LESSKEYIN", "path"}, {"LESSKEY_SYSTEM", "path"},
	    {"LESSKEYIN_SYSTEM", "path"}, {"MAGIC", "path"}, {"NETRC", "path"},
	    {"QLOGDIR", "path"}, {"EGD_PATH", "path"}, {"RND_SEED", "path"},
	    {"SSH_ASKPASS_REQUIRE", "command"}, {"git", "command"},
	    /* argument parsing */
	    {"POSIXLY_CORRECT", "parse"}, {"POSIX_ME_HARDER", "parse"},
	    {"_POSIX2_VERSION", "parse"}, {"GETOPT_COMPATIBLE", "parse"},
	    /* identity, services */
	    {"SSH_USER_AUTH", "identity"}, {"SSH_TUNNEL", "identity"}, {"DOMAIN", "identity"},
	    {"SYSTEMCTL_SKIP_SYSV", "services"}, {"SYSTEMCTL_FORCE_BUS", "services"},
	    {"_SKIP_SYSTEMD_NATIVE", "services"},
	};
	static const char *const allowed[] = {
	    /* near misses, and names the sweep found that stay (tools/sweep) */
	    "TEMPLATE", "TMPL", "NODE", "PIP", "DPKG", "LESSCHARSET", "LESS_TERMCAP_md",
	    "LESSHISTFILE", "LESSSECURE", "ZIPX", "GZIP", "ZSTD_CLEVEL", "DOMAINNAME",
	    "SSH_AUTH_SOCK", "PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED", "COLUMNS",
	    "NO_COLOR", "http_proxy", "NO_PROXY", "gitx", "GIT",
	};
	/* clang-format on */
	struct envd_policy *p = policy(true, NULL, NULL);
	size_t i;

	(void)state;
	assert_refusals(p, cases, TU_LEN(cases));
	for (i = 0; i < TU_LEN(allowed); i++)
		assert_allowed(p, allowed[i]);
	envd_policy_free(p);
}

/* What only the user's own interactive session reads stays, and so do the
 * XDG base directories (the cleanup instance and the module last in the
 * stack keep them from root). */
static void test_interactive_and_allowed_back(void **state)
{
	/* clang-format off */
	static const char *const allowed[] = {
	    "GIT_EDITOR", "GIT_PAGER", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
	    "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_PS1_SHOWDIRTYSTATE", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
	    "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_DIRS", "EDITOR", "VISUAL", "PAGER",
	    "LESS", "MANPAGER", "DBUS_SESSION_BUS_ADDRESS", "LANG", "LANGUAGE", "LC_ALL",
	    "GITHUB_TOKEN", "GIT", "TAR", "CURL_OPTIONS_X", "GEM", "GIO_USE_VFS", "GST_DEBUG",
	    "TCL", "ZIP_X", "http_proxy", "https_proxy",
	};
	/* clang-format on */
	struct envd_policy *p = policy(true, NULL, NULL);
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(allowed); i++)
		assert_allowed(p, allowed[i]);
	envd_policy_free(p);

	/* the administrator's deny still refuses what the defaults allow back */
	p = policy(true, NULL, "GIT_EDITOR,GIT_AUTHOR_*");
	assert_refused(p, "GIT_EDITOR");
	assert_refused(p, "GIT_AUTHOR_NAME");
	assert_allowed(p, "GIT_PAGER");
	envd_policy_free(p);
	/* user_only admits them but the defaults still refuse the rest of GIT_* */
	p = policy(true, NULL, NULL);
	assert_int_equal(envd_policy_only(p, "GIT_*"), 0);
	assert_allowed(p, "GIT_EDITOR");
	assert_allowed(p, "GIT_COMMITTER_EMAIL");
	assert_refused(p, "GIT_TRACE");
	assert_refused(p, "EDITOR");
	envd_policy_free(p);
	/* user_allow lifts a single refused git name */
	p = policy(true, "GIT_TRACE", NULL);
	assert_allowed(p, "GIT_TRACE");
	assert_refused(p, "GIT_COMMON_DIR");
	envd_policy_free(p);
}

/* Each exception lifts a name that a deny entry refuses (else it is dead),
 * and a value rule's name is not refused outright (else it is dead). */
static void test_exceptions_and_rules_consistent(void **state)
{
	struct envd_policy *p = policy(true, NULL, NULL), *bare = policy(false, NULL, NULL);
	char name[128];
	size_t i, j;

	(void)state;
	for (i = 0; envd_default_exceptions[i].pattern; i++) {
		const struct envd_policy_entry *e = &envd_default_exceptions[i];
		bool covered = false;

		instance(name, sizeof(name), e->pattern, false);
		for (j = 0; envd_default_deny[j].pattern; j++)
			covered |= fnmatch(envd_default_deny[j].pattern, name, 0) == 0;
		if (!covered)
			fail_msg("exception %s lifts no refused name", e->pattern);
		assert_null(e->refuses);
		assert_allowed(p, name);
	}
	for (i = 0; envd_value_rules[i].pattern; i++) {
		const struct envd_policy_entry *e = &envd_value_rules[i];

		assert_non_null(e->refuses);
		instance(name, sizeof(name), e->pattern, false);
		assert_allowed(p, name);
		assert_allowed(bare, name);
	}
	for (i = 0; envd_default_deny[i].pattern; i++)
		assert_null(envd_default_deny[i].refuses);
	envd_policy_free(p);
	envd_policy_free(bare);
}

struct vcase {
	const char *name, *value;
	bool refused;
};

/* LANGUAGE, LANG, LC_* and DBUS_SESSION_BUS_ADDRESS values. */
static void test_value_rules(void **state)
{
	/* clang-format off */
	static const struct vcase cases[] = {
	    {"LANGUAGE", "de:fr", false}, {"LANGUAGE", "de_DE:en_GB:en", false},
	    {"LANGUAGE", "sr@latin", false}, {"LANGUAGE", "", false},
	    {"LANGUAGE", "..a:b..", false},
	    {"LANGUAGE", "../../x", true}, {"LANGUAGE", "/tmp/x", true},
	    {"LANGUAGE", "de/../..", true}, {"LANGUAGE", "de:..", true},
	    {"LANGUAGE", "..:de", true}, {"LANGUAGE", "de:fr/x", true}, {"LANGUAGE", "..", true},
	    {"LANG", "de_DE.UTF-8", false}, {"LANG", "C.UTF-8", false}, {"LANG", "C", false},
	    {"LANG", "sr_RS@latin", false},
	    {"LANG", "/home/u/loc", true}, {"LANG", "../../home/u/loc", true},
	    {"LANG", "..", true},
	    {"LC_ALL", "en_US.UTF-8", false}, {"LC_MESSAGES", "de_DE", false},
	    {"LC_ALL", "/tmp/x", true}, {"LC_MESSAGES", "../../../tmp/x", true},
	    {"LC_TIME", "de_DE/../x", true},
	    {"DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus", false},
	    {"DBUS_SESSION_BUS_ADDRESS", "unix:abstract=/tmp/dbus-x,guid=1", false},
	    {"DBUS_SESSION_BUS_ADDRESS", "unix:path=/a;tcp:host=localhost,port=1", false},
	    /* autolaunch: takes the address from the X server of DISPLAY */
	    {"DBUS_SESSION_BUS_ADDRESS", "autolaunch:", true},
	    {"DBUS_SESSION_BUS_ADDRESS", "autolaunch:scope=x", true},
	    {"DBUS_SESSION_BUS_ADDRESS", "unixexec:path=/bin/sh,argv1=-c", true},
	    {"DBUS_SESSION_BUS_ADDRESS", "unix:path=/a;unixexec:path=/bin/sh", true},
	    {"DBUS_SESSION_BUS_ADDRESS", "x-machine-unixexec:path=/bin/sh", true},
	    {"DBUS_SESSION_BUS_ADDRESS", "unix", true},
	    {"DBUS_SESSION_BUS_ADDRESS", "UNIXEXEC:path=/bin/sh", true},
	    /* nonce-tcp: sends the first 16 bytes of its noncefile= to the bus */
	    {"DBUS_SESSION_BUS_ADDRESS", "nonce-tcp:host=127.0.0.1,port=4000,noncefile=/etc/shadow",
	     true},
	    {"DBUS_SESSION_BUS_ADDRESS", "nonce-tcp:host=127.0.0.1,port=4000", true},
	    {"DBUS_SESSION_BUS_ADDRESS", "unix:path=/a;nonce-tcp:host=h,port=1,noncefile=/x", true},
	    {"DBUS_SESSION_BUS_ADDRESS", "tcp:host=h,port=1,noncefile=/etc/shadow", true},
	    {"DBUS_SESSION_BUS_ADDRESS", "tcp:noncefile=/x,host=h,port=1", true},
	    {"DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus,noncefile=/x", true},
	    {"DBUS_SESSION_BUS_ADDRESS", "unix:path=/a;;autolaunch:;tcp:host=h,noncefile=/x", true},
	    {"DBUS_SESSION_BUS_ADDRESS", "autolaunch:;unix:path=/run/user/1000/bus", true},
	    {"DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus;autolaunch:", true},
	    {"DBUS_SESSION_BUS_ADDRESS", "tcp:host=localhost,port=4000,family=ipv4", false},
	    {"DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/nonce", false},
	    /* GDK_BACKEND: broadway draws at a local port any user can take */
	    {"GDK_BACKEND", "wayland", false}, {"GDK_BACKEND", "x11", false},
	    {"GDK_BACKEND", "wayland,x11", false}, {"GDK_BACKEND", "", false},
	    {"GDK_BACKEND", "broadway", true}, {"GDK_BACKEND", "x11,Broadway", true},
	    {"GDK_BACKEND", "*", true},
	    /* LESS: a lesskey file can set LESSOPEN, a command less runs */
	    {"LESS", "-R", false}, {"LESS", "-FRXK", false}, {"LESS", "-iMRS -j.5 -x4", false},
	    {"LESS", "--mouse --wheel-lines=3 --RAW-CONTROL-CHARS", false}, {"LESS", "", false},
	    {"LESS", "-k/home/u/keys", true}, {"LESS", "-Rk/home/u/keys", true},
	    {"LESS", "R k /home/u/keys", true}, {"LESS", "--lesskey-src=/home/u/k", true},
	    {"LESS", "--LESSKEY-SRC=/home/u/k", true}, {"LESS", "--LessKey-File /x", true},
	    {"LESS", "-R --lesskey-s=/x", true}, {"LESS", "--no-keypad", true},
	    /* the names that carry no rule take any value */
	    {"LANGUAGES", "../x", false}, {"MY_LANG", "/x", false}, {"LC", "/x", false},
	    {"LESSX", "-k/x", false}, {"LESS_TERMCAP_md", "k", false},
	};
	/* clang-format on */
	struct envd_policy *p = policy(true, NULL, NULL);
	struct envd_policy *lifted =
	    policy(true, "LANGUAGE,LC_*,LANG,DBUS_SESSION_BUS_ADDRESS,LESS,GDK_BACKEND", NULL);
	struct envd_policy *bare = policy(false, NULL, NULL);
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(cases); i++) {
		const char *why = envd_policy_check(p, cases[i].name, cases[i].value);

		if ((why != NULL) != cases[i].refused)
			fail_msg("%s=%s: expected %s", cases[i].name, cases[i].value,
			         cases[i].refused ? "refused" : "allowed");
		/* the name alone passes: the value decides */
		assert_null(envd_policy_check(p, cases[i].name, NULL));
		/* user_allow lifts the value rules, like the other defaults */
		assert_null(envd_policy_check(lifted, cases[i].name, cases[i].value));
	}
	/* which names carry a rule, for envd import-pam-environment */
	assert_non_null(envd_policy_value_rule(p, "LANGUAGE"));
	assert_non_null(envd_policy_value_rule(p, "LC_TIME"));
	assert_non_null(strstr(envd_policy_value_rule(p, "TZ"), "time zone"));
	assert_null(envd_policy_value_rule(p, "PATH"));
	assert_null(envd_policy_value_rule(p, "LD_PRELOAD"));
	assert_null(envd_policy_value_rule(lifted, "LANG"));
	assert_null(envd_policy_value_rule(NULL, "LANG"));
	assert_null(envd_policy_value_rule(bare, "LANG"));
	envd_policy_free(bare);
	envd_policy_free(p);
	envd_policy_free(lifted);
}

/* The accessor shows exactly the tables. */
static void test_policy_accessor(void **state)
{
	static const struct {
		enum envd_policy_table t;
		const struct envd_policy_entry *e;
	} tables[] = {
	    {ENVD_POLICY_DENY, envd_default_deny},
	    {ENVD_POLICY_EXCEPTION, envd_default_exceptions},
	    {ENVD_POLICY_VALUE, envd_value_rules},
	};
	const char *pattern, *reason;
	size_t i, k;

	(void)state;
	for (k = 0; k < TU_LEN(tables); k++) {
		for (i = 0; tables[k].e[i].pattern; i++) {
			assert_true(envd_policy_default(tables[k].t, i, &pattern, &reason));
			assert_ptr_equal(pattern, tables[k].e[i].pattern);
			assert_ptr_equal(reason, tables[k].e[i].reason);
		}
		assert_false(envd_policy_default(tables[k].t, i, &pattern, &reason));
		assert_false(envd_policy_default(tables[k].t, i + 1000, &pattern, &reason));
	}
	assert_false(envd_policy_default((enum envd_policy_table)99, 0, &pattern, &reason));
}

/* The rule that refused a name, which decides what its message says to
 * do: the defaults and value rules (user_allow lifts them), user_deny,
 * user_only. */
static void test_verdict_kind(void **state)
{
	struct envd_policy *p = envd_policy_new(true);
	enum envd_refusal kind;

	(void)state;
	assert_non_null(p);
	assert_int_equal(envd_policy_deny(p, "MY_*"), 0);
	assert_non_null(envd_policy_verdict(p, "PYTHONPATH", NULL, &kind));
	assert_int_equal(kind, ENVD_REFUSE_DEFAULT);
	assert_non_null(envd_policy_verdict(p, "TZ", "/etc/passwd", &kind));
	assert_int_equal(kind, ENVD_REFUSE_VALUE);
	assert_non_null(envd_policy_verdict(p, "MY_VAR", NULL, &kind));
	assert_int_equal(kind, ENVD_REFUSE_DENY);
	assert_null(envd_policy_verdict(p, "EDITOR", NULL, &kind));
	assert_int_equal(kind, ENVD_REFUSE_NONE);
	assert_int_equal(envd_policy_allow(p, "PYTHONPATH TZ"), 0);
	assert_null(envd_policy_verdict(p, "PYTHONPATH", NULL, &kind));
	assert_int_equal(kind, ENVD_REFUSE_NONE);
	assert_null(envd_policy_verdict(p, "TZ", "/etc/passwd", &kind));
	assert_int_equal(kind, ENVD_REFUSE_NONE);
	assert_int_equal(envd_policy_only(p, "PATH"), 0);
	assert_non_null(envd_policy_verdict(p, "EDITOR", NULL, &kind));
	assert_int_equal(kind, ENVD_REFUSE_ONLY);
	envd_policy_free(p);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default_list_sorted),
	    cmocka_unit_test(test_default_entries_each_refused),
	    cmocka_unit_test(test_documented_names_refused),
	    cmocka_unit_test(test_tools_and_pam_names),
	    cmocka_unit_test(test_client_families),
	    cmocka_unit_test(test_client_libraries),
	    cmocka_unit_test(test_package_sweep_names),
	    cmocka_unit_test(test_tz_value),
	    cmocka_unit_test(test_root_tool_names),
	    cmocka_unit_test(test_sweep_names),
	    cmocka_unit_test(test_interactive_and_allowed_back),
	    cmocka_unit_test(test_exceptions_and_rules_consistent),
	    cmocka_unit_test(test_value_rules),
	    cmocka_unit_test(test_policy_accessor),
	    cmocka_unit_test(test_only_list),
	    cmocka_unit_test(test_ordinary_names_allowed),
	    cmocka_unit_test(test_no_defaults_and_no_policy),
	    cmocka_unit_test(test_globs),
	    cmocka_unit_test(test_glob_long_name),
	    cmocka_unit_test(test_matcher_tables_fnmatch),
	    cmocka_unit_test(test_lookup_tables_fnmatch),
	    cmocka_unit_test(test_matcher_short_fnmatch),
	    cmocka_unit_test(test_allow_list_fnmatch),
	    cmocka_unit_test(test_allow_lifts_defaults),
	    cmocka_unit_test(test_admin_deny_wins),
	    cmocka_unit_test(test_separators),
	    cmocka_unit_test(test_bad_patterns),
	    cmocka_unit_test(test_verdict_kind),
	};

	return cmocka_run_group_tests_name("unit_policy", tests, NULL, NULL);
}
